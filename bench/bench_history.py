"""History on disk (docs/history.md), at the store level: what start, a past shoe, a page of shoes,
disk and a write cost as history grows. Prints figures; asserts nothing.

    .venv/bin/python bench/bench_history.py [--root /tmp/roads-history-bench] [--sizes 1,10,100]

Data: ``bench/history_gen.py`` writes ``tables`` x ``days`` table-days (10 tables: 0.1, 1 and 10
days for 1, 10 and 100 table-days; the same live tables, history x100) into a schema-v3 store and
the same events into a schema-v2 file (the release before history). Kept under ``--root`` and
reused by later runs.

1. Load (each in a fresh process, median of ``--repeat``): v3 = ``load_live`` and
   ``Table.restore`` of every table and its live snapshot; v2 = what the release does: read every
   event, replay every table (every shoe kept in memory), its live snapshot. Seconds, RSS after
   load and peak RSS (VmHWM), MB. 1b: the same with more live tables (``--tables``, 0.1 day
   each), and what one more live table costs.
2. A past shoe of the largest history (a table's middle shoe), in a fresh process: cold (the file's
   pages evicted from the page cache first, ``posix_fadvise(DONTNEED)``) and warm (read again): the
   record from its document, and the whole API body (roads replayed from its operations, snapshot,
   JSON).
3. A page of 50 shoe-list lines, newest first and deep (a cursor near the first shoe), and the
   JSON body spliced from the stored lines: ms (median).
4. Disk (``dbstat``): bytes per round in the live log (v2: every event; v3: the live shoes'),
   and per round of a closed shoe (summary + document + detail; without the detail after
   retention).
With ``--redis`` the same run adds the several-process figures (R1-R4: Redis + PostgreSQL beside the
release's Redis store; ``bench/history_redis_figures.py``).

5. Append cost per round dealt card by card (8 events, one transaction each, fsync), v2 (one
   INSERT, the release's) and v3 (``Table.commit`` + ``SqliteStore.commit``), alternating blocks
   in one run, on a fresh file and on the largest store: ms per round (median of blocks), and
   the CPU part.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from history_gen import DEFAULT_START, generate, timeline  # noqa: E402
from roads.events import Event  # noqa: E402
from roads.snapshot import build_snapshot  # noqa: E402
from roads.table import Table  # noqa: E402
from web.stores import SqliteStore  # noqa: E402
from web.stores.sqlite_history import EVENT_COLUMNS, event_row  # noqa: E402
from web.stores.sqlite_schema import V2_SCHEMA  # noqa: E402

TABLES = 10


def rss() -> tuple[float, float]:
    """(VmRSS, VmHWM) of this process, MB."""
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def encode(obj) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()


def dataset(root: Path, table_days: int, tables: int = TABLES) -> tuple[Path, Path]:
    """``(v3 dir, v2 dir)`` of ``table_days`` table-days over ``tables`` tables (made once)."""
    d = root / (f"td{table_days}" if tables == TABLES else f"td{table_days}x{tables}")
    if not (d / "done").exists():
        import shutil

        shutil.rmtree(d, ignore_errors=True)
        began = time.monotonic()
        t = generate(d / "v3", tables, table_days / tables, v2=d / "v2", quiet=True)
        took = time.monotonic() - began
        (d / "done").write_text(json.dumps({"rounds": t.rounds, "shoes": t.shoes, "events": t.events, "s": took}))
        print(f"generated {table_days} table-days over {tables} tables: {t.rounds} rounds, {t.shoes} shoes, "
              f"{t.events} events in {took:.0f} s ({t.events / took:,.0f} events/s)")
    return d / "v3", d / "v2"


# ----------------------------------------------------------------------------- children
def child_load(kind: str, directory: str) -> None:
    began = time.perf_counter()
    tables: dict[str, Table] = {}
    if kind == "v3":
        store = SqliteStore.in_dir(directory)
        for part in store.load_live():
            tables[part.table] = Table.restore(part, past=store.past_shoes(part.table))
    else:
        db = sqlite3.connect(Path(directory) / SqliteStore.FILENAME)
        rows = db.execute("SELECT table_id, seq, kind, shoe, round, data, at FROM events ORDER BY table_id, seq").fetchall()
        for table_id, seq, k, shoe, rnd, data, at in rows:
            t = tables.get(table_id)
            if t is None:
                t = tables[table_id] = Table(table_id)
            t.apply(Event(table_id, seq, k, shoe, rnd, json.loads(data), at))
        del rows
    for t in tables.values():
        s = t.current
        encode(build_snapshot(table=t.id, shoe=s.number, version=t.seq, roads=s.roads, variant=s.variant))
    took = time.perf_counter() - began
    now, peak = rss()
    print(json.dumps({"s": took, "rss": now, "hwm": peak, "tables": len(tables)}))


def child_past(directory: str) -> None:
    path = Path(directory) / SqliteStore.FILENAME
    for name in (path, Path(str(path) + "-wal")):
        if name.exists():
            fd = os.open(name, os.O_RDONLY)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            os.close(fd)
    store = SqliteStore.in_dir(directory)
    numbers = store.shoe_numbers("t005")
    n = numbers[len(numbers) // 2]
    out = {}
    for label in ("cold", "warm"):
        began = time.perf_counter()
        s = store.past_shoe("t005", n)
        record = time.perf_counter() - began
        body = encode(build_snapshot(table="t005", shoe=n, version=s.version, roads=s.replay_roads(), variant=s.variant))
        out[label] = {"record_ms": record * 1000, "api_ms": (time.perf_counter() - began) * 1000, "bytes": len(body)}
    print(json.dumps(out))


def run_child(*args: str) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", *args], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


# ----------------------------------------------------------------------------- figures
def load_figures(root: Path, sizes: list[int], repeat: int) -> None:
    print("\n1. load (median of %d fresh processes): seconds / RSS after load MB / peak RSS MB" % repeat)
    for size in sizes:
        v3, v2 = dataset(root, size)
        row = []
        for kind, d in (("v2", v2), ("v3", v3)):
            runs = [run_child("load", kind, str(d)) for _ in range(repeat)]
            med = {k: statistics.median(r[k] for r in runs) for k in ("s", "rss", "hwm")}
            row.append(f"{kind} {med['s']:.2f} s / {med['rss']:.0f} MB / {med['hwm']:.0f} MB")
        print(f"  {size:>4} table-days ({TABLES} tables): " + "; ".join(row))


def live_table_figures(root: Path, counts: list[int], repeat: int) -> None:
    print("\n1b. load with more live tables (0.1 day of history each; median of %d fresh processes): "
          "seconds / RSS after load MB" % repeat)
    base = None
    for n in counts:
        v3, v2 = dataset(root, max(1, n // 10), n)
        row = []
        for kind, d in (("v2", v2), ("v3", v3)):
            runs = [run_child("load", kind, str(d)) for _ in range(repeat)]
            med = {k: statistics.median(r[k] for r in runs) for k in ("s", "rss")}
            row.append(f"{kind} {med['s']:.2f} s / {med['rss']:.0f} MB")
            if kind == "v3":
                if base is not None:
                    per = (med["rss"] - base[1]) / (n - base[0])
                    row.append(f"v3 {per:.2f} MB and {(med['s'] - base[2]) / (n - base[0]) * 1000:.1f} ms per more table")
                base = (n, med["rss"], med["s"])
        print(f"  {n:>4} tables: " + "; ".join(row))


def past_figures(root: Path, size: int) -> None:
    v3, _ = dataset(root, size)
    runs = [run_child("past", str(v3)) for _ in range(5)]
    print(f"\n2. a past shoe of {size} table-days (median of 5 fresh processes): record from its document / "
          "whole API body")
    for label in ("cold", "warm"):
        rec = statistics.median(r[label]["record_ms"] for r in runs)
        api = statistics.median(r[label]["api_ms"] for r in runs)
        print(f"  {label}: {rec:.2f} ms / {api:.2f} ms ({runs[0][label]['bytes']:,} bytes)")


def page_figures(root: Path, size: int) -> None:
    v3, _ = dataset(root, size)
    store = SqliteStore.in_dir(v3)
    numbers = store.shoe_numbers("t005")
    print(f"\n3. a page of 50 shoe-list lines, table t005 ({len(numbers)} past shoes), median of 200:")
    for label, before in (("newest", None), ("deep", numbers[60] if len(numbers) > 60 else numbers[-1])):
        times, size_b = [], 0
        for _ in range(200):
            began = time.perf_counter()
            rows = store.shoe_summaries("t005", before=before, limit=50)
            body = b'{"table":"t005","shoes":[' + b",".join(r.line.encode() for r in rows) + b"]}"
            times.append(time.perf_counter() - began)
            size_b = len(body)
        print(f"  {label}: {statistics.median(times) * 1000:.3f} ms ({len(rows)} lines, {size_b:,} bytes)")
    store.close()


def disk_figures(root: Path, size: int) -> None:
    v3, v2 = dataset(root, size)
    db = sqlite3.connect(v3 / SqliteStore.FILENAME)
    pages = dict(db.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name"))
    live_rounds = db.execute("SELECT COUNT(*) FROM events WHERE kind = 'round'").fetchone()[0]
    closed_rounds = db.execute("SELECT SUM(rounds) FROM shoes").fetchone()[0]
    payload = dict(zip(("line", "stats", "doc", "detail"), db.execute(
        "SELECT (SELECT SUM(length(line)) FROM shoes), (SELECT SUM(length(stats)) FROM shoes), "
        "(SELECT SUM(length(doc)) FROM shoe_docs), (SELECT SUM(length(detail)) FROM shoe_details)").fetchone()))
    db.close()
    old = sqlite3.connect(v2 / SqliteStore.FILENAME)
    old_pages = dict(old.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name"))
    old_rounds = old.execute("SELECT COUNT(*) FROM events WHERE kind = 'round'").fetchone()[0]
    old.close()
    live = sum(v for k, v in pages.items() if k in ("events", "events_by_shoe", "one_round_per_number"))
    summary = sum(v for k, v in pages.items() if k.startswith(("shoes", "sqlite_autoindex_shoes")))
    docs = sum(v for k, v in pages.items() if "shoe_docs" in k)
    details = sum(v for k, v in pages.items() if "shoe_details" in k)
    print(f"\n4. disk, {size} table-days: bytes per round (pages, dbstat)")
    print(f"  v2 live log: {sum(old_pages.values()) / old_rounds:.0f} B/round ({old_rounds} rounds, every event)")
    print(f"  v3 live log: {live / max(live_rounds, 1):.0f} B/round ({live_rounds} rounds in the live shoes)")
    print(f"  v3 closed shoe: summary {summary / closed_rounds:.0f} + document {docs / closed_rounds:.0f} + detail "
          f"{details / closed_rounds:.0f} = {(summary + docs + details) / closed_rounds:.0f} B/round; after retention "
          f"{(summary + docs) / closed_rounds:.0f} B/round ({closed_rounds} rounds)")
    print("  payload bytes per closed round: " + ", ".join(f"{k} {v / closed_rounds:.0f}" for k, v in payload.items()))


class V2Appender:
    """The release's append: one INSERT per event, its own transaction, fsync (WAL, synchronous=FULL)."""

    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(directory / SqliteStore.FILENAME, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.executescript(V2_SCHEMA + "PRAGMA user_version=2;")

    def write(self, table: Table, ev: Event) -> None:
        self.db.execute(f"INSERT INTO events ({EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)", event_row(ev))


class V3Appender:
    def __init__(self, store: SqliteStore) -> None:
        self.store = store

    def write(self, table: Table, ev: Event) -> None:
        self.store.commit(table.commit(ev))


def append_figures(root: Path, size: int, blocks: int, rounds_per_block: int) -> None:
    v3_big, _ = dataset(root, size)
    start = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        v2 = V2Appender(Path(tmp) / "v2")
        fresh = SqliteStore.in_dir(Path(tmp) / "v3")
        big = SqliteStore.in_dir(v3_big)
        other = f"bench{int(start)}"  # a new table of the large store, whatever ran before
        cases = {"v2 (fresh)": (v2, Table("bench")), "v3 (fresh)": (V3Appender(fresh), Table("bench")),
                 f"v3 ({size} table-days)": (V3Appender(big), Table(other, past=big.past_shoes(other)))}
        feeds = {name: timeline(table.id, 99, start, start + 10**7) for name, (_, table) in cases.items()}
        results = {name: ([], []) for name in cases}
        for _ in range(blocks):
            for name, (appender, table) in cases.items():
                wall0, cpu0 = time.perf_counter(), time.process_time()
                done = 0
                while done < rounds_per_block:
                    at, w = next(feeds[name])
                    ev = table.decide(w, lambda: at)
                    if not isinstance(ev, Event):
                        continue
                    appender.write(table, ev)
                    table.apply(ev)
                    done += ev.kind == "round"
                results[name][0].append((time.perf_counter() - wall0) / done * 1000)
                results[name][1].append((time.process_time() - cpu0) / done * 1000)
        print(f"\n5. append per round dealt card by card (~8 events, each its own transaction and fsync), "
              f"{blocks} alternating blocks of {rounds_per_block} rounds: ms per round, median (min-max); CPU")
        for name, (wall, cpu) in results.items():
            print(f"  {name}: {statistics.median(wall):.2f} ({min(wall):.2f}-{max(wall):.2f}); "
                  f"CPU {statistics.median(cpu):.3f} ms")
        fresh.close()
        big.close()
    # the same without the fsync: the CPU cost of the write path alone
    with tempfile.TemporaryDirectory() as tmp:
        fast = SqliteStore.in_dir(Path(tmp) / "v3", durable=False)
        t = Table("bench")
        feed = timeline("bench", 98, start, start + 10**7)
        began, done = time.perf_counter(), 0
        while done < 300:
            at, w = next(feed)
            ev = t.decide(w, lambda: at)
            if isinstance(ev, Event):
                fast.commit(t.commit(ev))
                t.apply(ev)
                done += ev.kind == "round"
        print(f"  v3 without fsync (decide + commit + apply + SQLite): {(time.perf_counter() - began) / done * 1000:.3f} "
              "ms per round")
        fast.close()


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        {"load": child_load, "past": child_past}[sys.argv[2]](*sys.argv[3:])
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, default=Path(tempfile.gettempdir()) / "roads-history-bench")
    ap.add_argument("--sizes", default="1,10,100", help="table-days, comma-separated")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--tables", default="10,200", help="live-table counts of figure 1b (0 tables: skip it)")
    ap.add_argument("--only", choices=("load", "past", "page", "disk", "append", "redis"), help="one figure only")
    ap.add_argument("--redis", action="store_true", help="also Redis + PostgreSQL beside the release's Redis (R1-R4)")
    ap.add_argument("--blocks", type=int, default=6)
    ap.add_argument("--rounds-per-block", type=int, default=15)
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"Python {sys.version.split()[0]}, SQLite {sqlite3.sqlite_version}; start {DEFAULT_START}")
    if args.only != "redis":
        for size in sizes:
            dataset(args.root, size)
    run = (lambda name: args.only in (None, name))
    if run("load"):
        load_figures(args.root, sizes, args.repeat)
        counts = [int(n) for n in args.tables.split(",") if int(n)]
        if counts:
            live_table_figures(args.root, counts, args.repeat)
    if run("past"):
        past_figures(args.root, sizes[-1])
    if run("page"):
        page_figures(args.root, sizes[-1])
    if run("disk"):
        disk_figures(args.root, sizes[-1])
    if run("append"):
        append_figures(args.root, sizes[-1], args.blocks, args.rounds_per_block)
    if args.only == "redis" or (args.redis and args.only is None):
        from history_redis_figures import figures

        figures(args.root, sizes, args.repeat, args.blocks, args.rounds_per_block)


if __name__ == "__main__":
    main()
