"""Memory soak of the service over history (issue 23): an accelerated feed through the real app and
HTTP server for several minutes, with tracemalloc snapshots showing where memory grows. Prints
figures; asserts nothing.

    .venv/bin/python bench/soak_history.py [--minutes 6] [--tables 20] [--every 30] [--no-trace]

The app (``web.create_app`` on a fresh SQLite data directory) is served in this process by
Werkzeug's threaded server with ``roads serve``'s request handler; a feeder subprocess sends
``--tables`` simulated tables card by card with table states (``bench/history_gen.timeline``: a
real table's writes, sent as fast as the service answers, round-robin over the tables), and every
20 writes reads: a random past shoe's snapshot and rounds, a page of the shoe list (random
cursor), the shoes page, and every 200 writes a past shoe's board PNG. Every ``--every`` seconds
this process prints its RSS, the traced Python heap and the writes so far; at the end the 12
largest growths (by source line) between the snapshot after the first third (caches filling) and
the last.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench"), str(ROOT / "tests")]

TOKEN = "soak-token-" + "x" * 24

from heap_census import caches, census, heap, images_by_shape, rss_mb  # noqa: E402 (bench/heap_census.py, shared with soak_serving)


def feeder(port: int, tables: int, seed: int) -> None:
    """The feeder subprocess: writes and reads until killed; prints the writes sent every 500."""
    from history_gen import timeline
    from support.feed_writes import request_of

    rng = random.Random(seed)
    streams = [timeline(f"s{i:03d}", seed + i, 1_700_000_000.0, 1_700_000_000.0 + 3650 * 86_400.0) for i in range(tables)]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}

    def call(method: str, path: str, body: dict | None = None) -> tuple[int, bytes]:
        nonlocal conn
        for _ in range(3):
            try:
                conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
                resp = conn.getresponse()
                return resp.status, resp.read()
            except (OSError, http.client.HTTPException):
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        return 0, b""

    sent = 0
    while True:
        for i, stream in enumerate(streams):
            _, w = next(stream)
            method, path, body = request_of(f"s{i:03d}", w)
            call(method, path, body)
            sent += 1
            if sent % 20 == 0:
                table = f"s{rng.randrange(tables):03d}"
                status, data = call("GET", f"/api/tables/{table}/shoes?limit=500")
                if status == 200:
                    past = [s["shoe"] for s in json.loads(data)["shoes"] if not s["live"]]
                    if past:
                        n = rng.choice(past)
                        call("GET", f"/api/tables/{table}/shoes/{n}")
                        call("GET", f"/api/tables/{table}/shoes/{n}/rounds")
                        call("GET", f"/api/tables/{table}/shoes?limit=5&before={n}")
                        call("GET", f"/tables/{table}/shoes?before={n + 1}")
                        if sent % 200 == 0:
                            call("GET", f"/tables/{table}/shoes/{n}/board.png")
            if sent % 500 == 0:
                print(sent, flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=6.0)
    ap.add_argument("--tables", type=int, default=20)
    ap.add_argument("--every", type=float, default=30.0)
    ap.add_argument("--feeder", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--census", action="store_true",
                    help="also count live objects by type (gc) and the fill of every bounded cache at each line")
    ap.add_argument("--no-trace", action="store_true",
                    help="without tracemalloc (RSS as in production: tracemalloc's own tables are native memory)")
    args = ap.parse_args()
    if args.feeder:
        feeder(args.feeder, args.tables, args.seed)
        return

    import logging

    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no request log
    if not args.no_trace:
        tracemalloc.start(8)
    from werkzeug.serving import make_server

    from web import create_app
    from web.cli.serving import RequestHandler

    data = tempfile.mkdtemp(prefix="roads-soak-")
    app = create_app({"ROADS_FEED_TOKEN": TOKEN, "ROADS_DATA_DIR": data, "ROADS_REDIS_URL": None})
    server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=RequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_port
    proc = subprocess.Popen([sys.executable, __file__, "--feeder", str(port), "--tables", str(args.tables),
                             "--seed", str(args.seed)], stdout=subprocess.PIPE, text=True)
    sent = [0]

    def count() -> None:
        for line in proc.stdout:  # type: ignore[union-attr]
            sent[0] = int(line)

    threading.Thread(target=count, daemon=True).start()
    began = time.monotonic()
    end = began + args.minutes * 60
    third = began + args.minutes * 20
    first = None
    base_census: dict[str, int] | None = None
    base_fills: dict[str, int] = {}
    prev_census: dict[str, int] = {}
    prev_fills: dict[str, int] = {}
    service = app.extensions["roads.service"]
    print(f"soak: {args.tables} tables, {args.minutes:g} min; t(s) writes RSS(MB) traced(MB) past-cache", flush=True)
    try:
        while time.monotonic() < end:
            time.sleep(args.every)
            now = time.monotonic() - began
            traced = tracemalloc.get_traced_memory()[0] / 2**20  # 0 without tracing
            print(f"  {now:6.0f} {sent[0]:7d} {rss_mb():7.1f} {traced:7.1f} {service.read.past_cached():4d}", flush=True)
            if args.census:
                png = app.extensions["roads.png_cache"]
                past = sum(len(e[2]()) for e in list(service.read._past.values())) / 2**20
                print(f"    PNG cache {len(png)} images {png.size_bytes / 2**20:.1f} MB; past shoes {past:.1f} MB; "
                      f"pymalloc blocks {sys.getallocatedblocks()}", flush=True)
                counts, fills = census(), caches()
                if base_census is None and time.monotonic() >= third:
                    base_census, base_fills = counts, fills
                grown = sorted(((v - prev_census.get(k, 0), k) for k, v in counts.items()), reverse=True)[:6]
                used, free, pixels = heap()
                print(f"    malloc in use {used:.1f} MB, free in arenas {free:.1f} MB, image pixels {pixels:.1f} MB",
                      flush=True)
                print("    objects: " + ", ".join(f"{k} {d:+d}" for d, k in grown), flush=True)
                print("    caches grown: " + ", ".join(f"{k.rsplit('.', 1)[-1]} {v}" for k, v in fills.items()
                                                      if v != prev_fills.get(k)), flush=True)
                prev_census, prev_fills = counts, fills
            if first is None and time.monotonic() >= third and not args.no_trace:
                first = tracemalloc.take_snapshot()
        last = None if args.no_trace else tracemalloc.take_snapshot()
    finally:
        proc.kill()
        proc.wait()
        server.shutdown()
    if first is not None and last is not None:
        print("largest growths from the first third to the end (source line, MB, blocks):")
        for stat in last.compare_to(first, "lineno")[:12]:
            frame = stat.traceback[0]
            print(f"  {stat.size_diff / 2**20:+7.2f} MB {stat.count_diff:+8d}  {frame.filename.replace(str(ROOT) + '/', '')}:{frame.lineno}")
    if base_census is not None:
        counts = census()
        print("objects grown from the first third to the end (type, count):")
        for d, k in sorted(((v - base_census.get(k, 0), k) for k, v in counts.items()), reverse=True)[:15]:
            print(f"  {d:+9d}  {k}")
        images_by_shape()
        print("caches (entries at the first third -> at the end):")
        for k, v in sorted(caches().items()):
            print(f"  {base_fills.get(k, 0):6d} -> {v:6d}  {k}")
    service.close()


if __name__ == "__main__":
    main()
