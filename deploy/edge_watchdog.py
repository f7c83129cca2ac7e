"""Watchdog of an edge host: is its nginx + nchan still delivering? If not, restart it.

nchan can stop delivering to subscribers it still holds (after a Redis restart in some modes,
or on a worker a reload left behind) while nginx answers everything else. This process holds
``--subscriptions`` WebSocket subscriptions to a heartbeat channel of its own through the local
nginx (``/sub/watchdog:<name>`` on the publisher server of ``deploy/nginx-nchan.conf``) and
publishes a heartbeat there every ``--interval`` seconds (``/pub/watchdog:<name>``): with
``NCHAN_REDIS`` set each heartbeat goes through Redis and back, the path of every screen's frame.

- A subscription that has not received a heartbeat nchan accepted ``--stuck-after`` seconds
  ago, or that cannot connect for that long, means nchan is stuck: the watchdog runs
  ``--restart`` (a shell command: ``systemctl restart nginx``), which closes every screen's
  connection; the screens reconnect (through the balancer, to any edge) and resync from
  ``/push/full/...`` (static/js/push_socket.js, delta.js). Then it waits ``--grace`` seconds.
- A heartbeat that nchan refuses (5xx: Redis unreachable) is not this host's fault: nothing is
  restarted; once Redis is back the heartbeats must flow again, or the rule above applies.

Usage::

    python3 deploy/edge_watchdog.py --name edge1 --nchan http://127.0.0.1:8081 \\
        --restart 'systemctl restart nginx'

Prints one JSON line per event (``start``, ``stuck``, ``restart``, ``publish_failed``,
``recovered``) to stdout. Standard library only; runs until SIGTERM.
"""

from __future__ import annotations

import argparse
import base64
import http.client
import json
import os
import socket
import struct
import subprocess
import sys
import threading
import time
from urllib.parse import urlsplit


def log(event: str, **fields: object) -> None:
    """One JSON line: ``{"t": unix time, "event": event, **fields}``."""
    print(json.dumps({"t": round(time.time(), 3), "event": event, **fields}), flush=True)


class Subscription:
    """One WebSocket subscription to ``url`` (``ws://host:port/path``) in its own thread:
    :attr:`last` (highest heartbeat number received), :attr:`connected_at` (monotonic time of
    the current connection, ``None`` while down), :attr:`down_since` (monotonic, while down)."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.host, self.port, self.path = parts.hostname or "127.0.0.1", parts.port or 80, parts.path
        self.last = -1
        self.connected_at: float | None = None
        self.down_since = time.monotonic()
        self._sock: socket.socket | None = None
        threading.Thread(target=self._run, daemon=True).start()

    def drop(self) -> None:
        """Close the connection (it reconnects)."""
        sock = self._sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _run(self) -> None:
        while True:
            try:
                self._session()
            except (OSError, ValueError):
                pass
            if self.connected_at is not None:
                self.down_since = time.monotonic()
            self.connected_at = None
            time.sleep(0.5)

    def _session(self) -> None:
        sock, reader = open_websocket(self.host, self.port, self.path)
        self._sock = sock
        try:
            self.connected_at = time.monotonic()
            while True:
                opcode, payload = reader.next()
                if opcode == 8:
                    return
                if opcode == 9:  # ping: pong with the same payload (client frames are masked)
                    sock.sendall(_frame(10, payload))
                elif opcode == 1:
                    try:
                        n = int(json.loads(payload).get("n", -1))
                    except (ValueError, AttributeError):
                        continue
                    self.last = max(self.last, n)
        finally:
            self._sock = None
            sock.close()


def open_websocket(host: str, port: int, path: str, timeout: float = 5.0) -> tuple[socket.socket, "_Frames"]:
    """A WebSocket client connection (no extension: frames arrive as sent) and its frame
    reader (``reader.next() -> (opcode, payload)``; the socket then blocks without timeout).
    Raises ``OSError`` or ``ValueError`` (a refused handshake, with its status line)."""
    sock = socket.create_connection((host, port), timeout=timeout)
    try:
        key = base64.b64encode(os.urandom(16)).decode()
        sock.sendall((f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                      f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = sock.recv(4096)
            if not chunk:
                raise ValueError("closed during the handshake")
            head += chunk
        head, _, rest = head.partition(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 101"):
            raise ValueError(head.split(b"\r\n", 1)[0].decode(errors="replace"))
    except BaseException:
        sock.close()
        raise
    sock.settimeout(None)
    return sock, _Frames(sock, rest)


class _Frames:
    """Reads WebSocket frames (unmasked, from the server) from ``sock``, ``buffered`` first."""

    def __init__(self, sock: socket.socket, buffered: bytes) -> None:
        self.sock, self.buf = sock, buffered

    def _read(self, n: int) -> bytes:
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ValueError("connection closed")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def next(self) -> tuple[int, bytes]:
        b0, b1 = self._read(2)
        length = b1 & 0x7F
        if length == 126:
            length = struct.unpack(">H", self._read(2))[0]
        elif length == 127:
            length = struct.unpack(">Q", self._read(8))[0]
        return b0 & 0x0F, self._read(length)


def _frame(opcode: int, payload: bytes) -> bytes:
    mask = os.urandom(4)
    head = bytes([0x80 | opcode, 0x80 | len(payload)])  # control frames: payload < 126
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def publish(base: str, channel: str, n: int) -> int | str:
    """POST heartbeat ``n`` to ``base``/pub/``channel``: the status, or the error's text."""
    parts = urlsplit(base)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80, timeout=3)
    try:
        conn.request("POST", f"/pub/{channel}", body=json.dumps({"type": "heartbeat", "n": n}),
                     headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        resp.read()
        return resp.status
    except (OSError, http.client.HTTPException) as exc:
        return f"{type(exc).__name__}: {exc}"
    finally:
        conn.close()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--name", required=True, help="this edge's name (the channel is watchdog:<name>)")
    parser.add_argument("--nchan", default="http://127.0.0.1:8081", help="nginx's publisher server (PUBLISH_LISTEN)")
    parser.add_argument("--restart", required=True, help="shell command that restarts this host's nginx")
    parser.add_argument("--subscriptions", type=int, default=4, help="subscriptions held (cover every worker)")
    parser.add_argument("--interval", type=float, default=1.0, help="seconds between heartbeats")
    parser.add_argument("--stuck-after", type=float, default=5.0, help="seconds without an accepted heartbeat")
    parser.add_argument("--grace", type=float, default=10.0, help="seconds after a restart before judging again")
    args = parser.parse_args(argv)
    channel = f"watchdog:{args.name}"
    parts = urlsplit(args.nchan)
    subs = [Subscription(f"ws://{parts.hostname}:{parts.port or 80}/sub/{channel}") for _ in range(args.subscriptions)]
    accepted: dict[int, float] = {}  # heartbeat number -> monotonic time nchan accepted it
    n, judge_from, stuck_since_logged, failing = 0, time.monotonic() + args.grace, False, False
    log("start", name=args.name, channel=channel, subscriptions=args.subscriptions)
    while True:
        time.sleep(args.interval)
        n += 1
        status = publish(args.nchan, channel, n)
        now = time.monotonic()
        if status in (200, 201, 202):
            accepted[n] = now
            if failing:
                log("publish_resumed", n=n)
            failing = False
        elif not failing:
            failing = True
            log("publish_failed", n=n, status=status)
        for old in [k for k in accepted if k < n - 600]:
            del accepted[old]
        if now < judge_from:
            continue
        due = [k for k, at in accepted.items() if now - at >= args.stuck_after]
        want = max(due) if due else None
        stuck = [i for i, s in enumerate(subs)
                 if (s.connected_at is None and now - s.down_since >= args.stuck_after)
                 or (want is not None and s.connected_at is not None and now - s.connected_at >= args.stuck_after
                     and s.last < want)]
        if stuck:
            log("stuck", subscriptions=stuck, want=want, have=[s.last for s in subs],
                connected=[s.connected_at is not None for s in subs])
            code = subprocess.call(args.restart, shell=True)
            log("restart", exit=code)
            for s in subs:
                s.drop()
            judge_from, stuck_since_logged = time.monotonic() + args.grace, True
        elif stuck_since_logged and want is not None:
            log("recovered", have=[s.last for s in subs])
            stuck_since_logged = False


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
