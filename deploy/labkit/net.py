"""The lab's network: one namespace per host, each with an ``eth0`` veth into a bridge that
lives in a switch namespace of its own (nothing is added to the machine's own namespace).

Names: namespaces ``roadslab-<host>``, bridge ``br0`` and veths ``v-<host>`` inside
``roadslab-sw``. Addresses: :data:`SUBNET` ``.x/24``. Needs root, iproute2 and the kernel's
network namespaces, veth and bridge (:func:`missing`). Errors: ``subprocess.CalledProcessError``
from ``ip``, with its stderr.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time

PREFIX = "roadslab"
SWITCH = "sw"
SUBNET = "10.27.0"


def ns(host: str) -> str:
    """The namespace of ``host``."""
    return f"{PREFIX}-{host}"


def ip(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    """``ip *args`` (stdout and stderr captured as text)."""
    return subprocess.run(["ip", *args], check=check, capture_output=True, text=True)


def existing() -> list[str]:
    """The lab's namespaces that exist now."""
    out = ip("netns", "list", check=False).stdout
    return [line.split()[0] for line in out.splitlines() if line.startswith(PREFIX + "-")]


def missing() -> list[str]:
    """What the machine lacks for the lab's network, each with the reason (empty: all there).
    Probes by making and deleting a namespace with a veth and a bridge."""
    if os.geteuid() != 0:
        return ["root (network namespaces, veths and bridges need CAP_NET_ADMIN and CAP_SYS_ADMIN)"]
    try:
        ip("-V")
    except (OSError, subprocess.CalledProcessError):
        return ["iproute2 (the `ip` command: apt-get install iproute2)"]
    probe = ns("probe")
    problems = []
    try:
        ip("netns", "add", probe)
    except subprocess.CalledProcessError as exc:
        return [f"network namespaces (`ip netns add` failed: {exc.stderr.strip()})"]
    try:
        for what, args in (("veth pairs", ("link", "add", "pa", "type", "veth", "peer", "name", "pb")),
                           ("bridges", ("link", "add", "pbr", "type", "bridge"))):
            try:
                ip("-n", probe, *args)
            except subprocess.CalledProcessError as exc:
                problems.append(f"the kernel's {what} ({exc.stderr.strip()})")
    finally:
        ip("netns", "del", probe, check=False)
    return problems


def build(hosts: dict[str, str]) -> None:
    """Make the switch and one namespace per host (``{host: last octet}``), each host's
    ``eth0`` at ``SUBNET.<octet>/24`` on the bridge, ``lo`` up."""
    sw = ns(SWITCH)
    ip("netns", "add", sw)
    ip("-n", sw, "link", "set", "lo", "up")
    ip("-n", sw, "link", "add", "br0", "type", "bridge")
    ip("-n", sw, "link", "set", "br0", "up")
    for host, octet in hosts.items():
        name = ns(host)
        ip("netns", "add", name)
        ip("-n", name, "link", "set", "lo", "up")
        ip("-n", sw, "link", "add", f"v-{host}", "type", "veth", "peer", "name", "eth0", "netns", name)
        ip("-n", sw, "link", "set", f"v-{host}", "master", "br0")
        ip("-n", sw, "link", "set", f"v-{host}", "up")
        ip("-n", name, "addr", "add", f"{SUBNET}.{octet}/24", "dev", "eth0")
        ip("-n", name, "link", "set", "eth0", "up")


def pids(namespace: str) -> list[int]:
    """Every process in ``namespace`` (``ip netns pids``)."""
    out = ip("netns", "pids", namespace, check=False).stdout
    return [int(p) for p in out.split() if p.isdigit()]


def kill_all(namespace: str, timeout: float = 5.0, crash: bool = False) -> None:
    """SIGTERM every process of ``namespace``, SIGKILL what is left after ``timeout`` s
    (``crash``: SIGKILL at once, as a host that loses power)."""
    steps = ((signal.SIGKILL, timeout),) if crash else ((signal.SIGTERM, timeout), (signal.SIGKILL, timeout))
    for sig, wait in steps:
        for pid in pids(namespace):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + wait
        while pids(namespace) and time.monotonic() < deadline:
            time.sleep(0.1)
        if not pids(namespace):
            return


def destroy() -> list[str]:
    """Stop every process of the lab's namespaces and delete them (their veths go with them);
    returns the namespaces deleted."""
    names = existing()
    for name in names:
        kill_all(name)
    for name in names:
        ip("netns", "del", name, check=False)
    return names


def set_link(host: str, up: bool) -> None:
    """Take ``host``'s cable out (``up`` False: its switch port down) or put it back."""
    ip("-n", ns(SWITCH), "link", "set", f"v-{host}", "up" if up else "down")


def partition(a: str, a_addr: str, b: str, b_addr: str, cut: bool) -> None:
    """Cut (``cut``) or mend the path between hosts ``a`` and ``b`` both ways: a blackhole
    route to the other's address in each namespace (packets dropped, nothing answered)."""
    verb = "add" if cut else "del"
    ip("-n", ns(a), "route", verb, "blackhole", f"{b_addr}/32", check=cut)
    ip("-n", ns(b), "route", verb, "blackhole", f"{a_addr}/32", check=cut)


def net_bytes(host: str) -> tuple[int, int]:
    """``(received, sent)`` bytes of ``host``'s ``eth0`` so far."""
    stats = json.loads(ip("-j", "-s", "-n", ns(host), "link", "show", "dev", "eth0").stdout)[0]["stats64"]
    return int(stats["rx"]["bytes"]), int(stats["tx"]["bytes"])
