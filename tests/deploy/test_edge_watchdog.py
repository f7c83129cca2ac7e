"""deploy/edge_watchdog.py against a stand-in for nginx + nchan (a loopback HTTP and WebSocket
server): it restarts when nchan accepts heartbeats but delivers none (a frozen subscriber),
never while they arrive, and never when nchan refuses them (Redis down is not this host's
fault); after a restart it waits its grace period. Timings shrunk (0.2 s heartbeats, stuck
after 1 s); every wait bounded."""

from __future__ import annotations

import base64
import hashlib
import json
import socket
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WATCHDOG = ROOT / "deploy" / "edge_watchdog.py"


class FakeNchan:
    """``mode``: ``"deliver"`` (202, frame to the subscribers), ``"freeze"`` (202, nothing sent)
    or ``"refuse"`` (503)."""

    def __init__(self) -> None:
        self.mode = "deliver"
        self.subscribers: list[socket.socket] = []
        self.posts = 0
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(4096)
            if not chunk:
                conn.close()
                return
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        lines = head.decode().split("\r\n")
        headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
        if lines[0].startswith("GET /sub/"):
            accept = base64.b64encode(hashlib.sha1((headers["sec-websocket-key"] + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11")
                                                   .encode()).digest()).decode()
            conn.sendall(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                          f"Sec-WebSocket-Accept: {accept}\r\n\r\n").encode())
            self.subscribers.append(conn)
            return
        length = int(headers.get("content-length", 0))
        while len(body) < length:
            body += conn.recv(4096)
        self.posts += 1
        status = "503 Service Unavailable" if self.mode == "refuse" else "202 Accepted"
        conn.sendall(f"HTTP/1.1 {status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".encode())
        conn.close()
        if self.mode == "deliver":
            frame = bytes([0x81]) + (bytes([len(body)]) if len(body) < 126 else bytes([126]) + struct.pack(">H", len(body))) + body
            for sub in list(self.subscribers):
                try:
                    sub.sendall(frame)
                except OSError:
                    self.subscribers.remove(sub)

    def close(self) -> None:
        self.sock.close()
        for sub in self.subscribers:
            sub.close()


def watch(tmp_path: Path, modes: list[tuple[str, float]]) -> tuple[list[dict], int]:
    """Run the watchdog while the stand-in goes through ``modes`` ((mode, seconds) each): its
    events, and how many times it ran the restart command."""
    nchan = FakeNchan()
    marker = tmp_path / "restarts"
    proc = subprocess.Popen([sys.executable, str(WATCHDOG), "--name", "t", "--nchan", f"http://127.0.0.1:{nchan.port}",
                             "--restart", f"echo x >> {marker}", "--subscriptions", "2", "--interval", "0.2",
                             "--stuck-after", "1", "--grace", "1.5"], stdout=subprocess.PIPE, text=True)
    try:
        for mode, seconds in modes:
            nchan.mode = mode
            time.sleep(seconds)
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=10)
        nchan.close()
    events = [json.loads(line) for line in out.splitlines() if line.strip()]
    restarts = len(marker.read_text().split()) if marker.exists() else 0
    return events, restarts


def test_delivered_heartbeats_restart_nothing(tmp_path):
    events, restarts = watch(tmp_path, [("deliver", 4.0)])
    assert restarts == 0, events
    assert [e["event"] for e in events] == ["start"]


def test_heartbeats_accepted_but_never_delivered_restart_nginx(tmp_path):
    events, restarts = watch(tmp_path, [("deliver", 2.0), ("freeze", 2.2)])
    assert restarts == 1, events
    stuck = [e for e in events if e["event"] == "stuck"]
    assert len(stuck) == 1 and stuck[0]["want"] > max(stuck[0]["have"]), stuck
    assert [e["event"] for e in events if e["event"] in ("stuck", "restart")] == ["stuck", "restart"]


def test_a_frozen_nchan_is_restarted_again_after_the_grace_period(tmp_path):
    events, restarts = watch(tmp_path, [("deliver", 2.0), ("freeze", 6.5)])
    assert restarts >= 2, events
    times = [e["t"] for e in events if e["event"] == "restart"]
    assert all(b - a >= 1.5 for a, b in zip(times, times[1:])), times


def test_refused_heartbeats_restart_nothing_and_say_so(tmp_path):
    events, restarts = watch(tmp_path, [("deliver", 2.0), ("refuse", 3.0), ("deliver", 2.0)])
    assert restarts == 0, events
    kinds = [e["event"] for e in events]
    assert "publish_failed" in kinds and "publish_resumed" in kinds, kinds
