"""Gaming-day statistics read times on a year of history for 200 tables (issue 25 targets: a floor
day under 100 ms, a table's 30 days under 50 ms).

    .venv/bin/python bench/bench_day_stats.py [--out /tmp/roads-year] [--tables 200] [--days 365]

Data, written straight into a SQLite store (schema 3, ``shoes`` and ``shoe_docs`` rows as
``web.stores.sqlite_history.write_commit`` writes them): a pool of real shoes is dealt once
through the record (``bench/history_gen.py``'s timeline: ``Table.decide``/``commit``/``apply``,
card by card with dealers), and each table plays them back to back around the clock (a 60-150 s
shuffle between shoes) with every time shifted: the summary's statistics (first and last round,
per dealer) and, for the shoes that cross a 06:00 UTC cut-over (the only ones whose document a
day's figures read), the document's round times. Other documents are not written (nothing here
reads them; they would add some 2 KB a shoe to the file). Kept between runs: a second run with
the same ``--out`` reuses the file.

Reads (``web.day_stats.DayStats`` as the API uses it, the answer encoded as the API encodes it;
tz UTC, cut-over 06:00): a floor day in the middle of the year, cold (a fresh cache: every table's
summaries with statistics and its cut-over shoes' documents) and warm (the cache checked against
the summaries' versions), and in a new process whose disk cache (``day_stats.sqlite3``, emptied
at the start of each run) holds the day; the first floor read after a shoe of the day closes, at once
and after :meth:`~web.day_stats.DayStats.warm` (as the maintenance thread does); a table's 30 days, the same three; anchored against a past shoe's
document read and a page of 50 shoe-list lines on the same file in the same run.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sqlite3
import statistics
import sys
import time
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from history_gen import timeline  # noqa: E402
from roads.events import Event  # noqa: E402
from roads.gaming_day import GamingDay, event_p, side_bet_p  # noqa: E402
from roads.variants import DEFAULT_VARIANT_ID  # noqa: E402
from roads.table import Table  # noqa: E402
from web.day_cache import DayCache  # noqa: E402
from web.day_stats import DayStats  # noqa: E402
from web.snapshots import encode  # noqa: E402
from web.stores import SqliteStore, codec  # noqa: E402

DAY_S = 86_400.0
START = datetime(2025, 1, 1, 6, tzinfo=timezone.utc).timestamp()


def pool_of_shoes(hours: float = 40.0) -> list:
    """Archived shoes (``roads.archive.ArchivedShoe``) of one table dealt for ``hours``."""
    t = Table("pool")
    out = []
    for at, w in timeline("pool", 7, 0.0, hours * 3600):
        ev = t.decide(w, lambda: at)
        if isinstance(ev, Event):
            c = t.commit(ev)
            t.apply(ev)
            if c.archive is not None and c.archive.stats["rounds"] > 0:
                out.append(c.archive)
    return out


def shifted_stats(stats: dict, dt: float) -> dict:
    s = dict(stats)
    s["first_round_at"] += dt
    s["last_round_at"] += dt
    s["dealers"] = [{**d, "first_round_at": d["first_round_at"] + dt, "last_round_at": d["last_round_at"] + dt}
                    for d in stats["dealers"]]
    return s


def shifted_doc(doc: dict, dt: float, number: int, version: int) -> dict:
    d = copy.deepcopy(doc)
    d["shoe"], d["version"] = number, version
    d["started_at"] += dt
    d["updated_at"] += dt
    for r in d["rounds"]:
        r["at"] += dt
    return d


def generate(out: Path, tables: int, days: int) -> tuple[int, int]:
    """Write the year (module docstring); returns (shoes, documents)."""
    pool = pool_of_shoes()
    store = SqliteStore.in_dir(out, durable=False)
    store.close()
    db = sqlite3.connect(out / SqliteStore.FILENAME, isolation_level=None)
    db.execute("PRAGMA synchronous=OFF")
    end = START + days * DAY_S
    shoes = docs = 0
    began = time.monotonic()
    for i in range(tables):
        table = f"t{i + 1:03d}"
        rng = random.Random(f"bench_day_stats:{table}")
        t = START + rng.uniform(0, 3600)
        number = 0
        rows, doc_rows = [], []
        while t < end:
            number += 1
            a = pool[rng.randrange(len(pool))]
            dt = t - a.started_at
            version = number * 100
            ended = a.ended_at + dt
            rows.append((table, number, version, a.started_at + dt, ended, a.rounds, codec.text(a.line),
                         codec.text(shifted_stats(a.stats, dt))))
            if (a.started_at + dt - 6 * 3600) // DAY_S != (ended - 6 * 3600) // DAY_S:
                doc_rows.append((table, number, version, codec.pack_doc(shifted_doc(a.document, dt, number, version))))
            t = ended + rng.uniform(60, 150)
        db.execute("BEGIN")
        db.executemany("INSERT INTO shoes (table_id, shoe, version, started_at, ended_at, rounds, line, stats) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
        db.executemany("INSERT INTO shoe_docs (table_id, shoe, version, doc) VALUES (?, ?, ?, ?)", doc_rows)
        db.execute("INSERT INTO tables (table_id, seq) VALUES (?, 0)", (table,))
        db.execute("COMMIT")
        shoes += len(rows)
        docs += len(doc_rows)
        if (i + 1) % 20 == 0:
            print(f"  {i + 1} tables, {shoes} shoes, {time.monotonic() - began:.0f} s", file=sys.stderr)
    db.close()
    return shoes, docs


def timed(fn, repeat: int = 1) -> tuple[float, object]:
    """Median milliseconds of ``repeat`` calls, and the last result."""
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times), out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=Path("/tmp/roads-year"))
    ap.add_argument("--tables", type=int, default=200)
    ap.add_argument("--days", type=int, default=365)
    a = ap.parse_args()
    if not (a.out / SqliteStore.FILENAME).exists():
        t0 = time.monotonic()
        shoes, docs = generate(a.out, a.tables, a.days)
        print(f"wrote {shoes} shoe summaries and {docs} cut-over documents in {time.monotonic() - t0:.0f} s")
    size = (a.out / SqliteStore.FILENAME).stat().st_size
    store = SqliteStore.in_dir(a.out, durable=False)
    tables = [f"t{i + 1:03d}" for i in range(a.tables)]
    g = GamingDay.of("UTC", "06:00")
    mid = date(2025, 1, 1) + timedelta(days=a.days // 2)
    n_rows = store._db.execute("SELECT COUNT(*) FROM shoes").fetchone()[0]  # noqa: SLF001 - a figure only
    print(f"store: {size / 2**30:.2f} GiB, {n_rows} shoes; floor day {mid}, table t007's 30 days to it")

    disk_path = a.out / DayCache.FILENAME
    for suffix in ("", "-wal", "-shm"):
        Path(str(disk_path) + suffix).unlink(missing_ok=True)
    disk = DayCache(disk_path)

    def fresh() -> DayStats:
        return DayStats(store, g, lambda *_: None, lambda: tables, cache_entries=20_000, disk=disk)

    probabilities, _ = timed(lambda: (event_p(8), side_bet_p(DEFAULT_VARIANT_ID, 8)))  # once a process
    some = tables[len(tables) // 2]
    with_doc = store._db.execute("SELECT shoe FROM shoe_docs WHERE table_id = ? ORDER BY shoe LIMIT 1 OFFSET 100",  # noqa: SLF001
                                 (some,)).fetchone()[0]
    anchor_doc, _ = timed(lambda: store.past_shoe(some, with_doc), 20)
    anchor_page, _ = timed(lambda: store.shoe_summaries(some, before=n_rows // a.tables // 2, limit=50), 20)
    stats = fresh()
    cold_floor, body = timed(lambda: encode(stats.floor_day(mid)))
    warm_floor, _ = timed(lambda: encode(stats.floor_day(mid)), 10)
    floor = json.loads(body)["floor"]
    restart_floor, _ = timed(lambda: encode(fresh().floor_day(mid)), 5)  # a new process: the rows on disk
    # the first read after a shoe closes: one table's summary of the day gets a newer version (as a
    # close or a correction writes it), read at once or after the maintenance thread's warm
    start, end = g.bounds(mid)
    (shoe,) = store._db.execute("SELECT shoe FROM shoes WHERE table_id = 't007' AND started_at >= ? AND "  # noqa: SLF001
                                "ended_at < ? LIMIT 1", (start, end)).fetchone()

    def bump() -> None:
        with store._lock:  # noqa: SLF001 - a figure only
            store._db.execute("UPDATE shoes SET version = version + 1 WHERE table_id = 't007' AND shoe = ?", (shoe,))  # noqa: SLF001
            if store._db.in_transaction:  # noqa: SLF001
                store._db.commit()  # noqa: SLF001
    bump()
    after_close, _ = timed(lambda: encode(stats.floor_day(mid)))
    bump()
    stats.warm(start + 3600.0, [("t007", shoe)])
    after_warm, _ = timed(lambda: encode(stats.floor_day(mid)))
    first = mid - timedelta(days=29)
    stats = fresh()
    cold_30, body30 = timed(lambda: encode(stats.table_range_json("t007", first, mid)))
    warm_30, _ = timed(lambda: encode(stats.table_range_json("t007", first, mid)), 10)
    restart_30, _ = timed(lambda: encode(fresh().table_range_json("t007", first, mid)), 5)
    cold_one, _ = timed(lambda: encode(DayStats(store, g, lambda *_: None, lambda: tables).table_day_json(
        "t007", mid - timedelta(days=60))), 1)
    print(f"floor day ({floor['rounds']} rounds, {floor['shoes']} shoe parts): cold {cold_floor:.1f} ms, "
          f"warm {warm_floor:.1f} ms, new process with the day on disk {restart_floor:.1f} ms (target 100 ms)")
    print(f"first floor read after a shoe closes: {after_close:.1f} ms, after the maintenance thread's warm "
          f"{after_warm:.1f} ms")
    print(f"table 30 days ({json.loads(body30)['total']['rounds']} rounds): cold {cold_30:.1f} ms, "
          f"warm {warm_30:.1f} ms, new process with the days on disk {restart_30:.1f} ms (target 50 ms); "
          f"one table-day cold {cold_one:.1f} ms")
    print(f"the exact probabilities, once a process: {probabilities:.0f} ms")
    print(f"anchors on the same file: a past shoe's document {anchor_doc:.2f} ms, a page of 50 shoe-list lines "
          f"{anchor_page:.2f} ms; floor day warm = {warm_floor / anchor_doc:.1f} document reads")
    store.close()


if __name__ == "__main__":
    main()
