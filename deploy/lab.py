"""The several-host lab: edge, service, Redis and balancer hosts made of Linux network
namespaces on this machine, and the failure scenarios run against them (docs/deploy.md,
"Several hosts").

Usage (as root)::

    python3 deploy/lab.py up                 # build the hosts and start everything
    python3 deploy/lab.py status             # what runs where, the balancer's view
    python3 deploy/lab.py run edge-kill      # one scenario; its last output line is one JSON object
    python3 deploy/lab.py run edge-kill --help   # the scenario's options
    python3 deploy/lab.py down               # stop everything, remove namespaces, veths, files

``run`` brings the lab up first when it is down and takes it down afterwards (``--keep`` leaves
it up; options after the scenario's name are the scenario's). Scenarios: edge-kill, nginx-reload, redis-restart, service-kill, service-partition,
slow-edge, figures (``run --help``). Needs root, iproute2 with network namespaces, veth and
bridge, nginx with nchan, HAProxy, redis-server, Node.js 20 and the project's venv with
gunicorn: ``up`` names what is missing and exits 3. Exit codes: 0 done (a scenario whose
outcome is not exact exits 1), 2 bad arguments, 3 the machine lacks something.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from labkit import hosts, net  # noqa: E402

SCENARIOS = ("edge-kill", "nginx-reload", "redis-restart", "service-kill", "service-partition", "slow-edge", "figures")
EXIT_MISSING = 3


def err(*args: object) -> None:
    print(*args, file=sys.stderr, flush=True)


def cmd_up(_args: argparse.Namespace) -> int:
    problems = hosts.missing()
    if problems:
        err("lab.py: this machine lacks: " + "; ".join(problems))
        return EXIT_MISSING
    try:
        hosts.up(log=err)
    except RuntimeError as exc:
        err(f"lab.py up: {exc}")
        if net.existing() and "up already" not in str(exc):
            hosts.down(log=err)
        return 1
    return 0


def cmd_down(_args: argparse.Namespace) -> int:
    if os.geteuid() != 0:
        err("lab.py down: needs root")
        return EXIT_MISSING
    hosts.down(log=err)
    return 0


def cmd_status(_args: argparse.Namespace) -> int:
    if not hosts.is_up():
        print("down")
        return 0
    data = hosts.state()
    for name in net.existing():
        pids = net.pids(name)
        print(f"{name:<18} {len(pids)} processes")
    print(json.dumps({"procs": data.get("procs"), "balancer": hosts.edge_stats()}))
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    if "-h" in args.extra or "--help" in args.extra:  # the scenario's options, without a lab
        from labkit import figures, scenarios

        if args.scenario == "figures":
            figures.options(["--help"])
        scenarios.options(args.scenario, ["--help"])
    problems = hosts.missing()
    if problems:
        err("lab.py: this machine lacks: " + "; ".join(problems))
        return EXIT_MISSING
    extra = [a for a in args.extra if a not in ("--", "--keep")]
    keep = args.keep or "--keep" in args.extra
    brought_up = False
    if not hosts.is_up():
        if net.existing():
            hosts.down(log=err)
        try:
            hosts.up(log=err)
        except RuntimeError as exc:
            err(f"lab.py run: the lab did not come up: {exc}")
            hosts.down(log=err)
            return 1
        brought_up = True
    try:
        argv = ["ip", "netns", "exec", net.ns("cli"), sys.executable, str(Path(__file__).resolve()), "_drive",
                args.scenario, *extra]
        return subprocess.call(argv, env={**os.environ, "ROADS_LAB_HOST_ROOT": f"/proc/{os.getpid()}/root"})
    finally:
        if brought_up and not keep:
            hosts.down(log=err)


def cmd_drive(args: argparse.Namespace) -> int:
    from labkit import scenarios

    return scenarios.main(args.scenario, args.extra)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="lab.py", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("up", help="build the hosts and start every process").set_defaults(fn=cmd_up)
    sub.add_parser("down", help="stop everything and remove what the lab made").set_defaults(fn=cmd_down)
    sub.add_parser("status", help="the lab's hosts and the balancer's view").set_defaults(fn=cmd_status)
    run = sub.add_parser("run", help="run one scenario (its options: run SCENARIO -- --help)")
    run.add_argument("scenario", choices=SCENARIOS)
    run.add_argument("--keep", action="store_true", help="leave the lab up afterwards")
    run.add_argument("extra", nargs=argparse.REMAINDER, help="options of the scenario")
    run.set_defaults(fn=cmd_run)
    drive = sub.add_parser("_drive")  # the scenario itself, inside the client host's namespace
    drive.add_argument("scenario", choices=SCENARIOS)
    drive.add_argument("extra", nargs=argparse.REMAINDER)
    drive.set_defaults(fn=cmd_drive)
    args = parser.parse_args(argv)
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
