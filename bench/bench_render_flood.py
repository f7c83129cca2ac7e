"""Feed-write latency while clients flood the service with PNGs of distinct sizes (issue 21 item 5).

The service runs as documented (``gunicorn -c deploy/gunicorn.conf.py``: one gevent worker, SQLite),
on loopback, straight (no nginx in front: the flood reaches the worker, as it would from inside the
venue network or past a missing rate limit). Six tables with a few rounds each. Then, in one run:

1. **quiet**: one feed connection alternates table-state writes (``betting`` with a countdown,
   ``dealing``: each one changes the table, rebuilds its live models and the lobby's) every
   100 ms for ``--quiet-s`` seconds: the anchor;
2. **flood**: the same writes while ``--clients`` clients each ask, back to back on a keep-alive
   connection, for ``/lobby.png`` or a table's ``board.png`` at ``height=2160`` and a width no
   other request used (1280, 1281, ... 3840), so no answer comes from the cache: every request
   is a render (or a 429 once the render gate's queue is full: the client asks again at once);
   and one client loads the ``/lobby`` page every 500 ms.

Printed: feed-write latency (request sent to answer read) median, p90, p99 and max in both
phases; ``/lobby`` page latency; the flood's answers by status and per second. ``--src`` serves
another checkout of the code (``git archive <commit> | tar -x -C DIR``) with this venv, for a
before/after pair on the same machine day. Usage::

    .venv/bin/python bench/bench_render_flood.py                      # this checkout
    .venv/bin/python bench/bench_render_flood.py --src /tmp/before    # another one
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "bench-token"
TABLES = [f"T{i}" for i in range(1, 7)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_service(src: Path, data: Path, port: int) -> subprocess.Popen:
    env = {**os.environ, "ROADS_FEED_TOKEN": TOKEN, "ROADS_DATA_DIR": str(data), "PYTHONPATH": str(src)}
    gunicorn = str(Path(sys.executable).with_name("gunicorn"))
    proc = subprocess.Popen([gunicorn, "-c", str(src / "deploy" / "gunicorn.conf.py"), "-b", f"127.0.0.1:{port}",
                             "--access-logfile", "/dev/null", "--log-level", "warning", "web:create_app()"],
                            cwd=src, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            status, _ = request(port, "GET", "/api/tables")
            if status == 200:
                return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit(f"gunicorn did not start: {proc.stderr.read().decode()[-2000:]}")


def request(port: int, method: str, path: str, body: dict | None = None, conn=None) -> tuple[int, bytes]:
    own = conn is None
    conn = conn or http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    headers = {}
    data = None
    if body is not None:
        data = json.dumps(body)
        headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
    conn.request(method, path, body=data, headers=headers)
    resp = conn.getresponse()
    out = resp.status, resp.read()
    if own:
        conn.close()
    return out


def seed(port: int) -> None:
    sys.path.insert(0, str(ROOT / "tests"))
    sys.path.insert(0, str(ROOT))
    from support.feed import dealt_rounds

    for i, table in enumerate(TABLES):
        for n, (p, b) in enumerate(dealt_rounds(20, seed=i), 1):
            status, body = request(port, "POST", f"/api/tables/{table}/rounds",
                                   {"shoe": 1, "round": n, "player": p, "banker": b})
            assert status == 201, body


def feed_phase(port: int, seconds: float, out: list[float], stop: threading.Event) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    states = itertools.cycle([{"state": "betting", "seconds_left": 30}, {"state": "dealing"}])
    end = time.monotonic() + seconds
    while time.monotonic() < end and not stop.is_set():
        t0 = time.perf_counter()
        status, body = request(port, "POST", "/api/tables/T1/state", next(states), conn=conn)
        out.append((time.perf_counter() - t0) * 1000)
        assert status in (200, 201), body
        time.sleep(0.1)
    conn.close()


def flood_client(port: int, widths, stop: threading.Event, statuses: dict, lock: threading.Lock) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    while not stop.is_set():
        w = next(widths)
        path = (f"/lobby.png?width={w}&height=2160" if w % 2 else
                f"/tables/{TABLES[w % len(TABLES)]}/board.png?width={w}&height=2160")
        try:
            status, _ = request(port, "GET", path, conn=conn)
        except (OSError, http.client.HTTPException):
            status = "error"
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        with lock:
            statuses[status] = statuses.get(status, 0) + 1


def page_client(port: int, stop: threading.Event, out: list[float]) -> None:
    while not stop.is_set():
        t0 = time.perf_counter()
        status, _ = request(port, "GET", "/lobby")
        if status == 200:
            out.append((time.perf_counter() - t0) * 1000)
        stop.wait(0.5)


def summary(ms: list[float]) -> str:
    if not ms:
        return "no samples"
    s = sorted(ms)
    q = statistics.quantiles(s, n=100, method="inclusive") if len(s) > 1 else [s[0]] * 99
    return f"median {statistics.median(s):7.1f} ms, p90 {q[89]:7.1f}, p99 {q[98]:7.1f}, max {s[-1]:7.1f} (n={len(s)})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", type=Path, default=ROOT, help="the checkout to serve (default: this one)")
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--quiet-s", type=float, default=10)
    ap.add_argument("--flood-s", type=float, default=30)
    args = ap.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="roads-flood-") as tmp:
        proc = start_service(args.src.resolve(), Path(tmp) / "data", port)
        try:
            seed(port)
            quiet: list[float] = []
            feed_phase(port, args.quiet_s, quiet, threading.Event())
            stop = threading.Event()
            statuses: dict = {}
            lock = threading.Lock()
            widths = itertools.cycle(range(1280, 3841))  # 2,561 widths: none twice within a run
            flooders = [threading.Thread(target=flood_client, args=(port, widths, stop, statuses, lock), daemon=True)
                        for _ in range(args.clients)]
            pages: list[float] = []
            pager = threading.Thread(target=page_client, args=(port, stop, pages), daemon=True)
            for t in flooders:
                t.start()
            pager.start()
            time.sleep(1)  # the flood under way
            flood: list[float] = []
            t0 = time.monotonic()
            feed_phase(port, args.flood_s, flood, stop)
            elapsed = time.monotonic() - t0
            stop.set()
            for t in [*flooders, pager]:
                t.join(timeout=120)
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
    print(f"bench_render_flood: {os.cpu_count()} cores, gunicorn -c deploy/gunicorn.conf.py (gevent, 1 worker), "
          f"src {args.src}, {args.clients} flood clients")
    print(f"feed writes, quiet:        {summary(quiet)}")
    print(f"feed writes, during flood: {summary(flood)}")
    print(f"/lobby page, during flood: {summary(pages)}")
    total = sum(v for k, v in statuses.items())
    print(f"flood answers: {dict(sorted(statuses.items(), key=str))} = {total / elapsed:.1f} per second")


if __name__ == "__main__":
    main()
