"""Feed-POST-to-receipt latency of live WebSocket clients (docs/frontend.md "Latency").

Starts the service under gunicorn (gthread worker, one process, threads sized for the
clients) on 127.0.0.1 in a subprocess with a fresh data directory, opens N WebSocket
clients on ``/ws/tables/<table>`` (N = 100, 500, 1000 by default), then posts rule-dealt
rounds (``roads.simulator``) through the real feed endpoint and records, for every client
and every round, the time from just before the POST is sent until that client has the
whole frame carrying the new version. Prints the median and p99 per N.

Target (docs/frontend.md "Latency"): median <= 100 ms at 1,000 clients on this 2-core machine.

The clients are one asyncio event loop in this process speaking minimal RFC 6455 (no
compression, answering pings); they share the 2 cores with the server, so the figures
include the client side's own reading time (the later clients of a burst wait for the
loop). Everything is bounded: a fixed number of rounds per N, a timeout per round, a
timeout for connecting, and an overall deadline; traffic goes to loopback only.

Usage::

    .venv/bin/python bench/bench_ws_latency.py                 # N = 100, 500, 1000; 20 rounds each
    .venv/bin/python bench/bench_ws_latency.py --clients 100 --rounds 10
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import re
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from roads.simulator import feed_request, simulate  # noqa: E402

TOKEN = "bench-token"
TABLE = "BENCH"
VERSION_RE = re.compile(rb'"version":(\d+)')


# ----------------------------------------------------------------------------- minimal client
class WSClient(asyncio.Protocol):
    """One WebSocket client: handshake, frame parsing, pong replies; notes when versions arrive."""

    def __init__(self, path: str, host: str, port: int, bench: "Bench") -> None:
        self.path, self.host, self.port, self.bench = path, host, port, bench
        self.transport: asyncio.Transport | None = None
        self.buf = bytearray()
        self.handshaken = False
        self.ready = asyncio.get_running_loop().create_future()
        self.version = -1
        self.closed = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        key = base64.b64encode(os.urandom(16)).decode()
        transport.write(  # type: ignore[attr-defined]
            f"GET {self.path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())

    def data_received(self, data: bytes) -> None:
        self.buf += data
        if not self.handshaken:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                return
            status = bytes(self.buf[: self.buf.find(b"\r\n")])
            if b" 101 " not in status:
                self.fail(RuntimeError(f"handshake refused: {status!r}"))
                return
            del self.buf[: end + 4]
            self.handshaken = True
        self.parse()

    def parse(self) -> None:
        buf = self.buf
        while len(buf) >= 2:
            opcode, length, head = buf[0] & 0x0F, buf[1] & 0x7F, 2
            if length == 126:
                if len(buf) < 4:
                    return
                length, head = int.from_bytes(buf[2:4], "big"), 4
            elif length == 127:
                if len(buf) < 10:
                    return
                length, head = int.from_bytes(buf[2:10], "big"), 10
            if len(buf) < head + length:
                return
            payload = bytes(buf[head: head + length])
            del buf[: head + length]
            if opcode == 0x9:  # ping -> pong (client frames are masked)
                self.send_frame(0xA, payload)
            elif opcode == 0x8:
                self.closed = True
            elif opcode in (0x1, 0x2):
                self.on_message(payload)

    def on_message(self, payload: bytes) -> None:
        now = time.perf_counter()
        if not payload.startswith(b'{"type":"snapshot"'):
            return  # keepalive
        match = VERSION_RE.search(payload, 0, 200)
        if not match:
            return
        self.version = int(match.group(1))
        if not self.ready.done():
            self.ready.set_result(self.version)
        self.bench.received(self.version, now)

    def send_frame(self, opcode: int, payload: bytes) -> None:
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        assert len(payload) < 126
        if self.transport is not None:
            self.transport.write(bytes([0x80 | opcode, 0x80 | len(payload)]) + mask + masked)

    def fail(self, exc: Exception) -> None:
        if not self.ready.done():
            self.ready.set_exception(exc)
        if self.transport is not None:
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if not self.ready.done():
            self.ready.set_exception(exc or ConnectionError("closed before the first snapshot"))

    def close(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.send_frame(0x8, (1000).to_bytes(2, "big"))
            self.transport.close()


class Bench:
    """Receipt bookkeeping for one round: which clients have the target version, and when."""

    def __init__(self) -> None:
        self.target = None  # type: int | None
        self.t0 = 0.0
        self.latencies: list[float] = []
        self.pending = 0
        self.done: asyncio.Event | None = None

    def arm(self, target: int, clients: int) -> None:
        self.target, self.pending, self.latencies = target, clients, []
        self.done = asyncio.Event()

    def received(self, version: int, now: float) -> None:
        if self.target is not None and version >= self.target and self.pending > 0:
            self.latencies.append(now - self.t0)
            self.pending -= 1
            if self.pending == 0 and self.done is not None:
                self.done.set()


# ----------------------------------------------------------------------------- server
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, data_dir: str, threads: int) -> subprocess.Popen:
    env = {**os.environ, "ROADS_DATA_DIR": data_dir, "ROADS_FEED_TOKEN": TOKEN}
    gunicorn = str(Path(sys.executable).with_name("gunicorn"))
    cmd = [gunicorn, "-k", "gthread", "-w", "1", "--threads", str(threads), "--worker-connections", str(threads + 100),
           "-b", f"127.0.0.1:{port}", "--log-level", "warning", "--graceful-timeout", "3", "web:create_app()"]
    return subprocess.Popen(cmd, cwd=str(ROOT), env=env, start_new_session=True)


def wait_ready(base: str, proc: subprocess.Popen, timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"gunicorn exited with {proc.returncode}")
        try:
            if requests.get(f"{base}/api/tables", timeout=1).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.2)
    raise RuntimeError("gunicorn did not answer within %.0f s" % timeout_s)


# ----------------------------------------------------------------------------- run
def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


async def run_n(n: int, rounds: int, host: str, port: int, messages, session: requests.Session, base: str,
                deadline: float) -> dict:
    loop = asyncio.get_running_loop()
    bench = Bench()
    clients: list[WSClient] = []
    t_connect = time.perf_counter()
    sem = asyncio.Semaphore(50)  # at most 50 handshakes in flight

    async def open_one() -> WSClient:
        async with sem:
            _, proto = await loop.create_connection(lambda: WSClient(f"/ws/tables/{TABLE}", host, port, bench), host, port)
            await asyncio.wait_for(proto.ready, timeout=30)
            return proto

    clients = list(await asyncio.wait_for(asyncio.gather(*(open_one() for _ in range(n))), timeout=120))
    connect_s = time.perf_counter() - t_connect
    samples: list[float] = []
    post_ms: list[float] = []
    missing = 0
    for _ in range(rounds):
        if time.monotonic() > deadline:
            break
        message = next(messages)
        req = feed_request(message)
        current = max(c.version for c in clients)
        bench.arm(current + 1, n)

        def post() -> float:
            bench.t0 = time.perf_counter()
            resp = session.post(f"{base}{req.path}", json=req.body, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10)
            if resp.status_code != 201:
                raise RuntimeError(f"feed refused: {resp.status_code} {resp.text[:200]}")
            return time.perf_counter() - bench.t0

        post_ms.append(1000 * await loop.run_in_executor(None, post))
        try:
            await asyncio.wait_for(bench.done.wait(), timeout=10)  # type: ignore[union-attr]
        except asyncio.TimeoutError:
            pass
        missing += bench.pending
        samples.extend(bench.latencies)
        await asyncio.sleep(0.1)
    for c in clients:
        c.close()
    await asyncio.sleep(0.5)
    return {
        "clients": n, "rounds": len(post_ms), "samples": len(samples), "missing": missing, "connect_s": connect_s,
        "median_ms": 1000 * statistics.median(samples) if samples else float("nan"),
        "p99_ms": 1000 * pct(samples, 0.99) if samples else float("nan"),
        "max_ms": 1000 * max(samples) if samples else float("nan"),
        "post_median_ms": statistics.median(post_ms) if post_ms else float("nan"),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, nargs="+", default=[100, 500, 1000], help="client counts N (max 2000)")
    ap.add_argument("--rounds", type=int, default=20, help="rounds posted per N (max 200)")
    ap.add_argument("--max-seconds", type=float, default=540, help="overall deadline")
    args = ap.parse_args(argv)
    if max(args.clients) > 2000 or args.rounds > 200 or min(args.clients) < 1:
        ap.error("clients must be 1..2000 and rounds at most 200")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, max(soft, 4 * max(args.clients) + 256))
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))

    deadline = time.monotonic() + args.max_seconds
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    threads = max(args.clients) + 50
    with tempfile.TemporaryDirectory(prefix="roads-bench-") as data_dir:
        proc = start_server(port, data_dir, threads)
        try:
            wait_ready(base, proc)
            session = requests.Session()
            # An endless supply of rule-dealt rounds (new shoes as needed); shoe starts are posted at once.
            stream = simulate(TABLE, seed=2024, shoes=None)

            def rounds_only():
                for m in stream:
                    if m["type"] == "round":
                        yield m
                    else:
                        req = feed_request(m)
                        r = session.post(f"{base}{req.path}", json=req.body, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10)
                        if r.status_code != 201:
                            raise RuntimeError(f"shoe start refused: {r.status_code} {r.text[:200]}")

            messages = rounds_only()
            for _ in range(40):  # half a shoe first, so the snapshot has a mid-shoe size
                req = feed_request(next(messages))
                session.post(f"{base}{req.path}", json=req.body, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10)
            size = len(session.get(f"{base}/api/tables/{TABLE}", timeout=10).content)
            print(f"gunicorn gthread, 1 worker, {threads} threads, 127.0.0.1:{port}; "
                  f"snapshot ~{size / 1024:.1f} KiB; {os.cpu_count()} cores; {args.rounds} rounds per N")
            print(f"{'clients':>8} {'rounds':>6} {'samples':>8} {'missing':>7} {'connect s':>9} "
                  f"{'median ms':>9} {'p99 ms':>8} {'max ms':>8} {'POST ms':>8}")
            for n in args.clients:
                if time.monotonic() > deadline:
                    print(f"{n:>8} skipped: deadline reached")
                    continue
                r = asyncio.run(run_n(n, args.rounds, "127.0.0.1", port, messages, session, base, deadline))
                print(f"{r['clients']:>8} {r['rounds']:>6} {r['samples']:>8} {r['missing']:>7} {r['connect_s']:>9.1f} "
                      f"{r['median_ms']:>9.1f} {r['p99_ms']:>8.1f} {r['max_ms']:>8.1f} {r['post_median_ms']:>8.1f}", flush=True)
        finally:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=5)
    return 0


if __name__ == "__main__":
    sys.exit(main())
