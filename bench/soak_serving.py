"""Memory soak of the production stack (issue 23): nginx in front of gunicorn's gevent worker, fed
card by card with table states, with live board screens and readers, for ``--minutes``; prints the
worker's memory as it goes and a summary. Prints figures; asserts nothing.

    .venv/bin/python bench/soak_serving.py [--minutes 20] [--tables 50] [--rounds-per-s 20]
        [--screens 200] [--every 60] [--census | --census-deep | --tracemalloc FRAMES] [--keep]

What runs, as docs/deploy.md documents it for one host, in a temporary folder on free loopback ports:

- gunicorn, one ``gevent`` worker (``-c bench/gunicorn_hooks.py``: the deployment's garbage-collector
  settings; 10,000 worker connections, keep-alive 75 s, the deployment's access-log format, into a
  file), ``web:create_app()`` on the embedded SQLite store in a fresh data directory; settings
  through the environment as the app reads them (``ROADS_FEED_TOKEN``, ``ROADS_DATA_DIR``,
  ``ROADS_TABLES`` naming the ``--tables`` tables ``s000``...);
- nginx with ``deploy/nginx.conf`` (ports, pid file, logs and temp folders moved to the temporary
  folder by ``tests/support/nginx.py``, as the tests run it).

Load, all through nginx:

- a feeder process: ``--tables`` tables' writes (``bench/history_gen.timeline``: a real table's
  shuffling state, shoe start, and per round betting and dealing states, one write per card and a
  result state, about 8 writes a round), sent as feed requests (``tests/support/feed_writes.request_of``)
  round-robin over the tables from ``--feed-connections`` keep-alive connections (each its own
  tables, in order), paced to ``--rounds-per-s`` rounds a second in all;
- in the same process, reads as ``bench/soak_history.py`` makes them, one batch every
  ``--reads-every`` writes: a random table's shoe list, a random past shoe's snapshot and rounds, a
  shoe-list page before it, the shoes page, and every 10th batch that past shoe's board PNG; and
  every ``--live-every`` seconds the live board PNG of a random table and the lobby page;
- ``--screens`` WebSocket board screens spread evenly over the tables, each subscribed to its
  table page's landscape board model (the ``ws`` URL of the page's boot JSON), held by
  ``bench/node/clients.js`` (npm ``ws``, as ``bench/bench_push.py``), which reads every frame.

Every ``--every`` seconds one line: minutes, writes sent, rounds/s achieved over the interval, the
median and p99 feed-write time (through nginx), reads done, the gunicorn worker's RSS (``VmRSS`` of
the worker, not the arbiter) and its CPU over the interval (100 % = one core), nginx's workers'
RSS, the frames each screen received in the interval (min / median / max, screens that got none,
screens whose socket closed), the load average; with ``--census``, the worker's census below it
(``bench/gunicorn_hooks.py`` with ``ROADS_SOAK_CENSUS``: malloc in use and free, Python's allocated
blocks, Pillow image pixels, past shoes cached, the object types grown most since the previous
line, the bounded caches whose fill changed; counted by a forked child in a copy of the worker's
heap, so the worker's loop does not stop and the census's memory stays out of its RSS).
``--census-deep`` adds the bytes grown by type, objects the collector does not track (str, bytes,
int, dicts of only those...) included; ``--tracemalloc N`` traces the worker's allocations (N
frames, from once the app is loaded) and adds the source lines whose traced memory grew: a heap
profile of the production worker (it slows the worker: check the rounds/s column).

At the end: the worker's RSS at each line, its slope (least squares, MB/min) over the last half of
the run, the census difference from the first third to the end (with ``--census``), the feeder's
answers by kind and status, nginx's access log by method and status, frames per screen over the
whole run, the screens' connection counts, and the warnings and errors in gunicorn's log (its
last such lines). ``--keep`` leaves the temporary folder (logs, data, census lines).
"""

from __future__ import annotations

import argparse
import bisect
import http.client
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench"), str(ROOT / "tests")]

from heap_census import rss_mb  # noqa: E402 (bench/heap_census.py)

TOKEN = "soak-token-" + "x" * 24
LATENCY_EDGES_MS = (1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300, 500, 700, 1000, 2000, 5000, 10_000)
"""Upper edges of the feeder's write-time histogram buckets (the last bucket is above them all)."""


def table_ids(tables: int) -> list[str]:
    return [f"s{i:03d}" for i in range(tables)]


# ----------------------------------------------------------------------------- the feeder process
class Feeder:
    """Writes (paced) and reads through nginx at 127.0.0.1:``port``; prints one JSON line of its
    counters a second (writes, rounds, reads, statuses, a histogram of write times)."""

    def __init__(self, port: int, tables: int, rate: float, connections: int, reads_every: int,
                 live_every: float, seed: int) -> None:
        self.port, self.tables, self.rate = port, tables, rate
        self.connections, self.reads_every, self.live_every, self.seed = connections, reads_every, live_every, seed
        self.lock = threading.Lock()
        self.writes = self.rounds = self.reads = self.skipped_batches = 0
        self.status: Counter[str] = Counter()
        self.hist = [0] * (len(LATENCY_EDGES_MS) + 1)

    def connect(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)

    def call(self, conn: list, kind: str, method: str, path: str, body: dict | None = None) -> tuple[int, bytes]:
        """One request on ``conn[0]`` (replaced after a dropped keep-alive connection); counts
        ``kind status`` (status 0: no answer after 3 tries)."""
        headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
        for _ in range(3):
            try:
                conn[0].request(method, path, body=None if body is None else json.dumps(body), headers=headers)
                resp = conn[0].getresponse()
                data = resp.read()
                with self.lock:
                    self.status[f"{kind} {resp.status}"] += 1
                return resp.status, data
            except (OSError, http.client.HTTPException):
                conn[0].close()
                conn[0] = self.connect()
        with self.lock:
            self.status[f"{kind} 0"] += 1
        return 0, b""

    def writer(self, j: int) -> None:
        """Tables ``i % connections == j``, round-robin, paced at their share of the rate."""
        from history_gen import timeline
        from support.feed_writes import request_of
        from roads.table_state import SetState

        mine = [i for i in range(self.tables) if i % self.connections == j]
        if not mine:
            return
        share = self.rate * len(mine) / self.tables
        streams = {i: timeline(f"s{i:03d}", self.seed + i, 1_700_000_000.0, 1_700_000_000.0 + 3650 * 86_400.0)
                   for i in mine}
        conn = [self.connect()]
        writes = rounds = 0
        due = time.monotonic()
        while True:
            for i in mine:
                _, w = next(streams[i])
                per_round = writes / rounds if rounds >= 20 else 8.0
                due += 1.0 / (share * per_round)
                now = time.monotonic()
                if due > now:
                    time.sleep(due - now)
                elif due < now - 1.0:
                    due = now - 1.0   # at most a second of catching up after a stall
                method, path, body = request_of(f"s{i:03d}", w)
                t = time.perf_counter()
                self.call(conn, "write", method, path, body)
                ms = (time.perf_counter() - t) * 1000
                ended = isinstance(w, SetState) and w.state == "result"
                writes += 1
                rounds += ended
                with self.lock:
                    self.writes += 1
                    self.rounds += ended
                    self.hist[bisect.bisect_left(LATENCY_EDGES_MS, ms)] += 1

    def reader(self) -> None:
        """soak_history's reads, one batch every ``reads_every`` writes (batches more than ten
        behind are skipped and counted), and the live board PNG and lobby every ``live_every`` s."""
        rng = random.Random(self.seed)
        conn = [self.connect()]
        mark, batches = self.reads_every, 0
        live_due = time.monotonic() + self.live_every
        while True:
            if time.monotonic() >= live_due:
                live_due += self.live_every
                self.call(conn, "live-png", "GET", f"/tables/s{rng.randrange(self.tables):03d}/board.png")
                self.call(conn, "lobby", "GET", "/lobby")
                self.reads += 2
            if self.writes < mark:
                time.sleep(0.01)
                continue
            if self.writes - mark > 10 * self.reads_every:
                self.skipped_batches += (self.writes - mark) // self.reads_every
                mark = self.writes
            mark += self.reads_every
            batches += 1
            table = f"s{rng.randrange(self.tables):03d}"
            status, data = self.call(conn, "read", "GET", f"/api/tables/{table}/shoes?limit=500")
            self.reads += 1
            if status != 200:
                continue
            past = [s["shoe"] for s in json.loads(data)["shoes"] if not s["live"]]
            if not past:
                continue
            n = rng.choice(past)
            self.call(conn, "read", "GET", f"/api/tables/{table}/shoes/{n}")
            self.call(conn, "read", "GET", f"/api/tables/{table}/shoes/{n}/rounds")
            self.call(conn, "read", "GET", f"/api/tables/{table}/shoes?limit=5&before={n}")
            self.call(conn, "page", "GET", f"/tables/{table}/shoes?before={n + 1}")
            self.reads += 4
            if batches % 10 == 0:
                self.call(conn, "past-png", "GET", f"/tables/{table}/shoes/{n}/board.png")
                self.reads += 1

    def run(self) -> None:
        for target, args in [(self.writer, (j,)) for j in range(self.connections)] + [(self.reader, ())]:
            threading.Thread(target=target, args=args, daemon=True).start()
        while True:
            time.sleep(1.0)
            with self.lock:
                line = {"writes": self.writes, "rounds": self.rounds, "reads": self.reads,
                        "skipped_batches": self.skipped_batches, "status": dict(self.status), "hist": list(self.hist)}
            print(json.dumps(line), flush=True)


# ----------------------------------------------------------------------------- the stack
def start_stack(tmp: Path, tables: int, census: Path | None,
                extra_env: dict[str, str] | None = None) -> tuple[subprocess.Popen, subprocess.Popen, int, int]:
    """gunicorn and nginx in ``tmp``; returns (gunicorn, nginx, gunicorn port, nginx port)."""
    from bench_push import free_port, wait_port
    from support.nginx import nginx_config

    gport, nport = free_port(), free_port()
    data = tmp / "data"
    data.mkdir()
    env = {**os.environ, "ROADS_FEED_TOKEN": TOKEN, "ROADS_DATA_DIR": str(data),
           "ROADS_TABLES": json.dumps({t: {"name": f"Soak {t}"} for t in table_ids(tables)})}
    for name in ("ROADS_REDIS_URL", "ROADS_HISTORY_URL", "ROADS_NCHAN_PUBLISH_URL", "ROADS_PUSH_URL"):
        env.pop(name, None)   # the embedded tier: SQLite, the service's own sockets
    if census is not None:
        env.update({"ROADS_SOAK_CENSUS": str(census), "ROADS_SOAK_CENSUS_EVERY": "0", **(extra_env or {})})
    gunicorn = str(Path(sys.executable).with_name("gunicorn"))
    log = open(tmp / "gunicorn.log", "w")
    gproc = subprocess.Popen(
        [gunicorn, "-c", str(ROOT / "bench" / "gunicorn_hooks.py"), "-k", "gevent", "-w", "1",
         "--worker-connections", "10000", "--keep-alive", "75", "--graceful-timeout", "10",
         "--forwarded-allow-ips", "127.0.0.1", "-b", f"127.0.0.1:{gport}", "--log-level", "info",
         "--access-logfile", str(tmp / "gunicorn-access.log"),
         "--access-logformat", '%(h)s %(t)s "%(m)s %(U)s %(H)s" %(s)s %(B)s %(M)sms',
         "web:create_app()"],
        cwd=str(ROOT), env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    wait_port(gport, timeout=60)
    (tmp / "nginx.conf").write_text(nginx_config(tmp, nport, gport), encoding="utf-8")
    nproc = subprocess.Popen([shutil.which("nginx") or "/usr/sbin/nginx", "-p", str(tmp), "-c", str(tmp / "nginx.conf"),
                              "-e", str(tmp / "nginx-start.log"), "-g", "daemon off;"],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(tmp / "nginx-stderr.log", "w"),
                             start_new_session=True)
    wait_port(nport, timeout=30)
    return gproc, nproc, gport, nport


def children(pid: int) -> list[int]:
    from bench_push import tree

    return [p for p in tree(pid) if p != pid]


def screen_url(nport: int, table: str) -> str:
    """The landscape board-model socket of ``table``'s page, from its boot JSON (as a screen's page)."""
    conn = http.client.HTTPConnection("127.0.0.1", nport, timeout=30)
    conn.request("GET", f"/tables/{table}")
    html = conn.getresponse().read().decode()
    conn.close()
    boot = json.loads(html.split('<script type="application/json" id="boot">', 1)[1].split("</script>", 1)[0])
    path = boot["ws"]["landscape"]
    return path if path.startswith("ws") else f"ws://127.0.0.1:{nport}{path}"


class Census:
    """The worker's census lines (``bench/gunicorn_hooks.py``): asks for one and waits for it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lines: list[dict] = []

    def take(self, timeout: float = 120.0) -> dict | None:
        Path(str(self.path) + ".now").touch()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.path.exists():
                rows = self.path.read_text().splitlines()
                if len(rows) > len(self.lines) and rows[-1].endswith("}"):
                    self.lines = [json.loads(r) for r in rows]
                    return self.lines[-1]
            time.sleep(0.2)
        return None


def percentile(hist: list[int], q: float) -> str:
    total = sum(hist)
    if not total:
        return "-"
    acc = 0
    for k, n in enumerate(hist):
        acc += n
        if acc >= q * total:
            return f"<={LATENCY_EDGES_MS[k]}" if k < len(LATENCY_EDGES_MS) else f">{LATENCY_EDGES_MS[-1]}"
    return "-"


def slope(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of ``(x, y)`` points (0 with fewer than 2)."""
    if len(points) < 2:
        return 0.0
    mx = statistics.fmean(x for x, _ in points)
    my = statistics.fmean(y for _, y in points)
    den = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / den if den else 0.0


def census_lines(prev: dict | None, now: dict) -> list[str]:
    out = [f"    census: RSS anon {now['rss_anon_mb']:.1f} MB, Python blocks {now['py_blocks']}, malloc in use {now['malloc_used_mb']:.1f} MB, free in arenas {now['malloc_free_mb']:.1f} MB, "
           f"image pixels {now['image_mb']:.1f} MB, past shoes cached {now.get('past_cached')}, "
           f"PNG cache (images, MB) {now.get('png_cached')}, "
           f"objects {sum(now['objects'].values())}, gc runs {now['gc']}, took {now['census_s']:.2f} s"]
    if prev is not None:
        grown = sorted(((v - prev["objects"].get(k, 0), k) for k, v in now["objects"].items()), reverse=True)[:6]
        out.append("    objects grown: " + ", ".join(f"{k} {d:+d}" for d, k in grown))
        changed = [f"{k.rsplit('.', 1)[-1]} {v}" for k, v in now["caches"].items() if v != prev["caches"].get(k)]
        out.append("    caches changed: " + (", ".join(changed) or "none"))
        if "sizes" in now and "sizes" in prev:
            out.append("    bytes grown: " + ", ".join(f"{k} {d / 2**20:+.2f} MB ({n:+d})" for d, n, k in size_growth(prev, now)[:6]))
        if "traced" in now and "traced" in prev:
            out.append(f"    traced {now['traced']['traced_mb']:.1f} MB; lines grown: " + ", ".join(
                f"{k} {d / 2**20:+.2f} MB" for d, _, k in traced_growth(prev, now)[:4]))
    return out


def size_growth(a: dict, b: dict) -> list[tuple[int, int, str]]:
    """(bytes grown, count grown, type) from census ``a`` to ``b`` (deep censuses), largest first."""
    return sorted(((v[1] - a["sizes"].get(k, [0, 0])[1], v[0] - a["sizes"].get(k, [0, 0])[0], k)
                   for k, v in b["sizes"].items()), reverse=True)


def traced_growth(a: dict, b: dict) -> list[tuple[int, int, str]]:
    """(bytes grown, blocks grown, file:line) from census ``a`` to ``b`` (tracemalloc's top lines of
    each; a line outside ``a``'s top counts from 0 there), largest first."""
    before = {k: (size, count) for k, size, count in a["traced"]["lines"]}
    return sorted(((size - before.get(k, (0, 0))[0], count - before.get(k, (0, 0))[1], k)
                   for k, size, count in b["traced"]["lines"]), reverse=True)


def nginx_statuses(log: Path) -> Counter[str]:
    """``method status`` counts of nginx's access log (format ``roads`` of deploy/nginx.conf)."""
    pattern = re.compile(r'"(\S+) \S+ [^"]*" (\d{3}) ')
    out: Counter[str] = Counter()
    try:
        with open(log, errors="replace") as f:
            for line in f:
                m = pattern.search(line)
                out[f"{m.group(1)} {m.group(2)}" if m else "unparsed"] += 1
    except OSError:
        pass
    return out


def gunicorn_problems(log: Path) -> tuple[Counter[str], list[str]]:
    """Counts of gunicorn log lines by level (WARNING, ERROR, CRITICAL, and Traceback lines), and the
    last 12 of those lines."""
    counts: Counter[str] = Counter()
    last: list[str] = []
    try:
        with open(log, errors="replace") as f:
            for line in f:
                level = next((lv for lv in ("[WARNING]", "[ERROR]", "[CRITICAL]", "Traceback") if lv in line), None)
                if level:
                    counts[level.strip("[]")] += 1
                    last = (last + [line.rstrip()[:300]])[-12:]
    except OSError:
        pass
    return counts, last


# ----------------------------------------------------------------------------- main
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=20.0)
    ap.add_argument("--tables", type=int, default=50)
    ap.add_argument("--rounds-per-s", type=float, default=20.0, help="rounds a second, all tables together")
    ap.add_argument("--screens", type=int, default=200, help="WebSocket board screens, spread over the tables")
    ap.add_argument("--every", type=float, default=60.0, help="seconds between lines")
    ap.add_argument("--census", action="store_true", help="the worker's census at each line (bench/gunicorn_hooks.py)")
    ap.add_argument("--census-deep", action="store_true",
                    help="--census, and count every object with its bytes, untracked ones (str, bytes...) too")
    ap.add_argument("--tracemalloc", type=int, metavar="FRAMES", default=0,
                    help="--census, and tracemalloc in the worker: the source lines whose memory grew (slows the worker)")
    ap.add_argument("--feed-connections", type=int, default=4, help="feed connections (threads), each its own tables")
    ap.add_argument("--reads-every", type=int, default=20, help="writes between two batches of reads")
    ap.add_argument("--live-every", type=float, default=15.0, help="seconds between live board PNG + lobby page reads")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder (logs, data, census)")
    ap.add_argument("--feeder", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.feeder:
        Feeder(args.feeder, args.tables, args.rounds_per_s, args.feed_connections, args.reads_every,
               args.live_every, args.seed).run()
        return

    from bench_push import Clients, cpu_seconds, ensure_node_ws, stop

    ensure_node_ws()
    tmp = Path(tempfile.mkdtemp(prefix="roads-soak-serving-"))
    os.chmod(tmp, 0o755)
    args.census = args.census or args.census_deep or args.tracemalloc > 0
    census = Census(tmp / "census.jsonl") if args.census else None
    gproc = nproc = feeder = clients = None
    rows: list[dict] = []
    per_screen: Counter[int] = Counter()
    latest: dict = {"writes": 0, "rounds": 0, "reads": 0, "skipped_batches": 0, "status": {}, "hist": []}
    try:
        extra_env = {**({"ROADS_SOAK_CENSUS_DEEP": "1"} if args.census_deep else {}),
                     **({"ROADS_SOAK_TRACEMALLOC": str(args.tracemalloc)} if args.tracemalloc else {})}
        gproc, nproc, gport, nport = start_stack(tmp, args.tables, census.path if census else None, extra_env)
        names = table_ids(args.tables)
        urls = {t: screen_url(nport, t) for t in names}
        screen_urls = [urls[names[k % args.tables]] for k in range(args.screens)]
        clients = Clients(screen_urls, 1, timeout=120)
        print(f"soak_serving: nginx :{nport} -> gunicorn -k gevent :{gport} (arbiter {gproc.pid}, worker "
              f"{children(gproc.pid)}, nginx workers {children(nproc.pid)}), {args.tables} tables at "
              f"{args.rounds_per_s:g} rounds/s card by card, {args.screens} screens ({clients.connected} connected, "
              f"{clients.failed} failed, {clients.connect_s:.1f} s), {args.minutes:g} min, {os.cpu_count()} cores; "
              f"folder {tmp}", flush=True)
        feeder = subprocess.Popen(
            [sys.executable, __file__, "--feeder", str(nport), "--tables", str(args.tables), "--rounds-per-s",
             str(args.rounds_per_s), "--feed-connections", str(args.feed_connections), "--reads-every",
             str(args.reads_every), "--live-every", str(args.live_every), "--seed", str(args.seed)],
            stdout=subprocess.PIPE, text=True, start_new_session=True)

        def follow() -> None:
            for line in feeder.stdout:  # type: ignore[union-attr]
                try:
                    latest.update(json.loads(line))
                except ValueError:
                    pass

        threading.Thread(target=follow, daemon=True).start()
        began = time.monotonic()
        end = began + args.minutes * 60
        first_census = census.take() if census else None
        prev_census = first_census
        if first_census:
            rows.append({"min": 0.0, "census": first_census})
        print("  min   writes  rounds/s  write ms p50/p99  reads  worker RSS MB (CPU)  nginx RSS MB  "
              "frames/screen min/med/max (none), closed  load", flush=True)
        prev_t, prev_rounds, prev_hist = began, 0, [0] * (len(LATENCY_EDGES_MS) + 1)
        worker_pid = next(iter(children(gproc.pid)), None)
        prev_cpu = cpu_seconds([worker_pid]) if worker_pid else 0.0
        while time.monotonic() < end:
            time.sleep(max(0.0, min(args.every, end - time.monotonic())))
            now = time.monotonic()
            snap = dict(latest)
            workers = children(gproc.pid)
            if worker_pid is not None and workers and workers[0] != worker_pid:
                print(f"  !! gunicorn worker restarted: {worker_pid} -> {workers[0]}", flush=True)
            worker_pid = workers[0] if workers else None
            worker_rss = rss_mb(worker_pid) if worker_pid else 0.0
            cpu = cpu_seconds([worker_pid]) if worker_pid else 0.0
            nginx_rss = [rss_mb(p) for p in children(nproc.pid)]
            counts = Counter(r[1] for r in clients.records())
            closed = sum(json.loads(s)["closed"] for s in clients.command("stats"))
            per_screen.update(counts)
            frames = [counts.get(k, 0) for k in range(args.screens)]
            hist = snap.get("hist") or prev_hist
            window = [a - b for a, b in zip(hist, prev_hist)]
            rate = (snap["rounds"] - prev_rounds) / max(1e-9, now - prev_t)
            minute = (now - began) / 60
            busy = 100 * (cpu - prev_cpu) / max(1e-9, now - prev_t)
            row = {"min": minute, "writes": snap["writes"], "rate": rate, "worker_rss": worker_rss, "cpu": busy,
                   "nginx_rss": sum(nginx_rss)}
            print(f"  {minute:4.1f} {snap['writes']:8d} {rate:8.1f}  {percentile(window, 0.5):>7}/{percentile(window, 0.99):<7}"
                  f"  {snap['reads']:6d}  {worker_rss:8.1f} ({busy:3.0f}%)  {sum(nginx_rss):6.1f} ({'+'.join(f'{r:.0f}' for r in nginx_rss)})"
                  f"  {min(frames)}/{statistics.median(frames):.0f}/{max(frames)} ({frames.count(0)}), closed {closed}"
                  f"  {open('/proc/loadavg').read().split()[0]}", flush=True)
            if census:
                c = census.take()
                if c is not None:
                    row["census"] = c
                    for line in census_lines(prev_census, c):
                        print(line, flush=True)
                    prev_census = c
            rows.append(row)
            prev_t, prev_rounds, prev_hist, prev_cpu = now, snap["rounds"], hist, cpu
        summary(args, rows, latest, per_screen, clients, tmp)
    finally:
        if feeder is not None:
            stop(feeder)
        if clients is not None:
            clients.close()
        for proc in (nproc, gproc):
            stop(proc)
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def summary(args: argparse.Namespace, rows: list[dict], latest: dict, per_screen: Counter[int], clients, tmp: Path) -> None:
    lines = [r for r in rows if "worker_rss" in r]
    print("worker RSS (MB) at each line: " + ", ".join(f"{r['min']:.1f}m {r['worker_rss']:.0f}" for r in lines))
    half = [(r["min"], r["worker_rss"]) for r in lines if r["min"] >= args.minutes / 2 - 1e-6]
    print(f"worker RSS slope over the last half ({len(half)} points): {slope(half):+.2f} MB/min; "
          f"over the whole run: {slope([(r['min'], r['worker_rss']) for r in lines]):+.2f} MB/min")
    print(f"rounds/s over the run: {latest['rounds'] / max(1e-9, lines[-1]['min'] * 60) if lines else 0:.1f}; writes "
          f"{latest['writes']}, rounds {latest['rounds']}, reads {latest['reads']}, read batches skipped "
          f"{latest['skipped_batches']}")
    censuses = [r for r in rows if "census" in r]
    if censuses:
        base = next((r for r in censuses if r["min"] >= args.minutes / 3 - 1e-6), censuses[0])
        a, b = base["census"], censuses[-1]["census"]
        print(f"census from minute {base['min']:.1f} to {censuses[-1]['min']:.1f}: worker RSS {a['rss_mb']:.1f} -> "
              f"{b['rss_mb']:.1f} MB (anon {a['rss_anon_mb']:.1f} -> {b['rss_anon_mb']:.1f}), Python blocks "
              f"{a['py_blocks']} -> {b['py_blocks']}, malloc in use {a['malloc_used_mb']:.1f} -> {b['malloc_used_mb']:.1f} MB, free in "
              f"arenas {a['malloc_free_mb']:.1f} -> {b['malloc_free_mb']:.1f} MB, image pixels {a['image_mb']:.1f} -> "
              f"{b['image_mb']:.1f} MB, past shoes cached {a.get('past_cached')} -> {b.get('past_cached')}")
        print("  objects grown (type, count):")
        for d, k in sorted(((v - a["objects"].get(k, 0), k) for k, v in b["objects"].items()), reverse=True)[:15]:
            print(f"    {d:+9d}  {k}")
        if "functions" in a and "functions" in b:
            print("  function objects grown (qualified name, count):")
            for d, k in sorted(((v - a["functions"].get(k, 0), k) for k, v in b["functions"].items()), reverse=True)[:8]:
                print(f"    {d:+9d}  {k}")
        if "sizes" in a and "sizes" in b:
            print("  bytes grown by type, untracked objects too (MB, count):")
            for d, n, k in size_growth(a, b)[:15]:
                print(f"    {d / 2**20:+8.2f} MB {n:+9d}  {k}")
        if "traced" in a and "traced" in b:
            print(f"  tracemalloc: traced {a['traced']['traced_mb']:.1f} -> {b['traced']['traced_mb']:.1f} MB; "
                  "largest growths (source line, MB, blocks):")
            for d, n, k in traced_growth(a, b)[:15]:
                print(f"    {d / 2**20:+8.2f} MB {n:+9d}  {k}")
        print("  caches (entries then -> at the end / maxsize):")
        for k in sorted(set(a["caches"]) | set(b["caches"])):
            limit = b.get("cache_max", {}).get(k, -1)
            print(f"    {a['caches'].get(k, 0):6d} -> {b['caches'].get(k, 0):6d} / {({-1: 'unbounded', -2: '(own rule)'}).get(limit, limit)}  {k}")
    print("feeder answers (kind status: count): " + ", ".join(f"{k}: {v}" for k, v in sorted(latest["status"].items())))
    print("nginx access log (method status: count): " + ", ".join(
        f"{k}: {v}" for k, v in sorted(nginx_statuses(tmp / "nginx-access.log").items())))
    frames = [per_screen.get(k, 0) for k in range(args.screens)]
    if frames:
        print(f"frames per screen over the run: min {min(frames)}, median {statistics.median(frames):.0f}, "
              f"max {max(frames)}; screens with none: {frames.count(0)}; total {sum(frames)}")
    try:
        stats = [json.loads(s) for s in clients.command("stats")]
        print("screens (Node clients): " + ", ".join(f"{k} {sum(s[k] for s in stats)}" for k in ("connected", "failed", "closed")))
    except Exception as e:  # noqa: BLE001
        print(f"screens: no stats ({e!r})")
    counts, last = gunicorn_problems(tmp / "gunicorn.log")
    print("gunicorn log: " + (", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "no warnings or errors"))
    for line in last:
        print("  " + line)
    try:
        errors = (tmp / "nginx-error.log").read_text(errors="replace").splitlines()
    except OSError:
        errors = []
    print(f"nginx error log: {len(errors)} lines" + "".join("\n  " + e[:300] for e in errors[-5:]))


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    main()
