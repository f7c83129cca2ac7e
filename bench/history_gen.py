"""Write N table-days of history straight into a store, exactly as the feed path stores them.

    .venv/bin/python bench/history_gen.py --out DIR --tables 10 --days 1 [--v2 DIR2] [--seed 1]

Each table deals real shoes (:func:`roads.simulator.simulate`: burn, cut card, tableau) as a live
table sends them (:func:`roads.simulator.live_messages`: a ``shuffling`` state with the shoe's
dealer and the shoe start; per round a ``betting`` state with a 15 s countdown, ``dealing``, one
``cards`` write per card, the ``result`` state) at a real table's pace in simulated time: a round
every 25-45 s (betting 15 s, a card every 1.2-2.5 s), 60-150 s of shuffling between shoes, from
``--start`` for ``--days`` days: about 2,400 rounds and 32 shoes, 21,000 events, per table-day.

Every write goes through the record as a feed write does: ``Table.decide`` (the event, with its
time from the simulated clock), ``Table.commit`` (the shoe it closes, the table's head) and
``Table.apply``; the commits go to :meth:`web.stores.SqliteStore.commit_many`, one transaction per
shoe (what the service stores one transaction per event: the same rows), and the compactor moves
each closed shoe's events into its detail, as the service will after each close (without an fsync
per transaction: a generator needs no durability). With ``--v2``,
the same events also go into a schema-version-2 file (the live log alone: what the release before
history wrote), for side-by-side figures. The last shoe of each table is left live, mid-shoe.

Prints rounds, shoes, events and the time taken. ``--out`` must not hold a store yet.

Several processes (:func:`generate_redis`, ``--redis URL --history URL --prefix P``): the same events
go through :meth:`web.stores.redis_history.RedisHistoryStore.commit_many` (one pipeline per shoe)
into Redis, and the mover puts each closed shoe in PostgreSQL after its close, as the service's
mover does: Redis ends with the live shoes only. With ``--release-prefix P2`` the same events are
also appended, as the release's Redis store does (:data:`web.stores.redis.APPEND_SCRIPT`, one
pipeline per shoe), under that prefix: whole streams, what a release deployment holds before its
migration.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from roads.dealing import DealCards  # noqa: E402
from roads.events import Event  # noqa: E402
from roads.simulator import live_messages, simulate  # noqa: E402
from roads.table import RecordRound, StartShoe, Table  # noqa: E402
from roads.table_state import SetState  # noqa: E402
from web.stores import SqliteStore  # noqa: E402
from web.stores.sqlite_history import EVENT_COLUMNS, event_row  # noqa: E402
from web.stores.sqlite_schema import V2_SCHEMA  # noqa: E402

DAY_S = 86_400.0
DEALERS = ("Anna", "Bo", "Chai", "Dara", "Ein", "Fon")
DEFAULT_START = "2026-01-01T06:00:00Z"


def write_of(m: dict[str, Any]) -> Any:
    """The record's write of one feed message (as the feed endpoints build it)."""
    kind = m["type"]
    if kind == "shoe":
        return StartShoe(m["shoe"], tuple(m.get("burn", ())), m.get("cut_card_position"), m.get("variant"))
    if kind == "round":
        data = {k: v for k, v in m.items() if k not in ("type", "table", "shoe", "round")}
        return RecordRound(m["shoe"], m["round"], data)
    if kind == "state":
        return SetState(**{k: v for k, v in m.items() if k not in ("type", "table")})
    return DealCards(m["shoe"], m["round"], m["position"], tuple(m["cards"]), tuple(m.get("burn", ())),
                     bool(m.get("cut_card")))


def timeline(table: str, seed: int, start: float, end: float) -> Iterator[tuple[float, Any]]:
    """``(time, write)`` of one table from ``start`` until the first round starting after ``end``."""
    rng = random.Random(f"history_gen:{seed}:{table}")
    t = start
    shoe_no = 0
    for message in simulate(table, seed=seed, shoes=None):
        if t >= end:
            return
        if message["type"] == "shoe":
            shoe_no += 1
            shuffling, shoe = live_messages(message, dealer=DEALERS[(shoe_no + rng.randrange(2)) % len(DEALERS)])
            yield t, write_of(shuffling)
            t += rng.uniform(60, 150)
            yield t, write_of(shoe)
            t += rng.uniform(2, 5)
            continue
        begun = t
        for m in live_messages(message):
            if m["type"] == "state" and m["state"] == "dealing":
                t = begun + 15.0
            elif m["type"] == "cards":
                t += rng.uniform(1.2, 2.5)
            elif m["type"] == "state" and m["state"] == "result":
                t += rng.uniform(0.5, 2.0)
            yield round(t, 3), write_of(m)
        t = max(t + 1.0, begun + rng.uniform(25, 45))


@dataclass
class Totals:
    rounds: int = 0
    shoes: int = 0
    events: int = 0


def generate(out: Path, tables: int, days: float, *, seed: int = 1, start: float | None = None,
             v2: Path | None = None, compact: bool = True, quiet: bool = False) -> Totals:
    """Write ``tables`` x ``days`` table-days into a new store in ``out`` (and a v2 file in ``v2``)."""
    start = datetime.fromisoformat(DEFAULT_START).timestamp() if start is None else start
    if (out / SqliteStore.FILENAME).exists():
        raise SystemExit(f"{out} already holds a store")
    store = SqliteStore.in_dir(out, durable=False)
    old = None
    if v2 is not None:
        v2.mkdir(parents=True, exist_ok=True)
        old = sqlite3.connect(v2 / SqliteStore.FILENAME, isolation_level=None)
        old.execute("PRAGMA journal_mode=WAL")
        old.execute("PRAGMA synchronous=OFF")
        old.executescript(V2_SCHEMA + "PRAGMA user_version=2;")
    totals = Totals()
    began = time.monotonic()
    try:
        for i in range(tables):
            table_id = f"t{i + 1:03d}"
            table = Table(table_id, past=store.past_shoes(table_id))
            pending: list = []
            events: list[Event] = []

            def flush() -> None:
                store.commit_many(pending)
                if old is not None:
                    old.execute("BEGIN")
                    old.executemany(f"INSERT INTO events ({EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                                    [event_row(e) for e in events])
                    old.execute("COMMIT")
                pending.clear()
                events.clear()

            for at, w in timeline(table_id, seed + i, start, start + days * DAY_S):
                ev = table.decide(w, lambda: at)
                if not isinstance(ev, Event):
                    continue
                c = table.commit(ev)
                pending.append(c)
                events.append(ev)
                table.apply(ev)
                totals.events += 1
                totals.rounds += ev.kind == "round"
                totals.shoes += c.opens
                if c.archive is not None:
                    flush()  # a shoe closed: one transaction up to the opening of the next
                    if compact:
                        store.compact(table=table_id)
            flush()
            if not quiet:
                print(f"  {table_id}: seq {table.seq}, shoe {table.current.number} live "
                      f"({time.monotonic() - began:.1f} s)", file=sys.stderr)
    finally:
        store.close()
        if old is not None:
            old.close()
    return totals


def generate_redis(redis_url: str, prefix: str, history_url: str | None, tables: int, days: float, *, seed: int = 1,
                   start: float | None = None, release_prefix: str | None = None, quiet: bool = False) -> Totals:
    """Write ``tables`` x ``days`` table-days into Redis + PostgreSQL under ``prefix`` (module doc;
    ``history_url`` None: only the release's layout under ``release_prefix``)."""
    from web.stores.postgres import PostgresHistory
    from web.stores.redis import LOG_MAXLEN, RedisStore, _event_json
    from web.stores.redis_history import RedisHistoryStore

    start = datetime.fromisoformat(DEFAULT_START).timestamp() if start is None else start
    store = None
    if history_url is not None:
        store = RedisHistoryStore(redis_url, PostgresHistory(history_url), prefix=prefix, max_tables=100_000)
        store.ensure_layout()
    old = None
    if release_prefix is not None:
        old = RedisStore(redis_url, prefix=release_prefix, timeout_s=2.0, max_tables=100000)
    totals = Totals()
    began = time.monotonic()
    try:
        for i in range(tables):
            table_id = f"t{i + 1:03d}"
            table = Table(table_id, past=store.past_shoes(table_id) if store is not None else None)
            pending: list = []

            def flush() -> None:
                if store is not None:
                    store.commit_many(pending)
                if old is not None:
                    pipe = old.db.pipeline(transaction=False)
                    for c in pending:
                        ev = c.event
                        old._append_script(keys=[old._heads_key, old._events_key(ev.table), old._rounds_key(ev.table),
                                                 old._log_key],
                                           args=[ev.table, ev.seq, f"{ev.shoe}:{ev.round}" if ev.kind == "round" else "",
                                                 _event_json(ev), "gen", LOG_MAXLEN, 100_000], client=pipe)
                    assert all(r[0] == "ok" for r in pipe.execute())
                pending.clear()

            for at, w in timeline(table_id, seed + i, start, start + days * DAY_S):
                ev = table.decide(w, lambda: at)
                if not isinstance(ev, Event):
                    continue
                c = table.commit(ev)
                pending.append(c)
                table.apply(ev)
                totals.events += 1
                totals.rounds += ev.kind == "round"
                totals.shoes += c.opens
                if c.archive is not None:
                    flush()
                    if store is not None:
                        store.compact(table=table_id)
            flush()
            if not quiet:
                print(f"  {table_id}: seq {table.seq}, shoe {table.current.number} live "
                      f"({time.monotonic() - began:.1f} s)", file=sys.stderr)
    finally:
        if store is not None:
            store.close()
        if old is not None:
            old.close()
    return totals


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, help="data directory of the new (schema v3) store")
    ap.add_argument("--tables", type=int, default=1)
    ap.add_argument("--days", type=float, default=1.0, help="days per table (may be a fraction)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--start", default=DEFAULT_START, help="ISO 8601 time of the first write")
    ap.add_argument("--v2", type=Path, help="also write the same events into a schema-v2 file in this directory")
    ap.add_argument("--no-compact", action="store_true", help="leave closed shoes' events in the live log")
    ap.add_argument("--redis", help="write Redis + PostgreSQL instead: the Redis URL")
    ap.add_argument("--history", help="with --redis: the PostgreSQL URL of the history")
    ap.add_argument("--prefix", default="roads:", help="with --redis: the key prefix")
    ap.add_argument("--release-prefix", help="with --redis: also the release's layout under this prefix")
    args = ap.parse_args()
    began = time.monotonic()
    start = datetime.fromisoformat(args.start).astimezone(timezone.utc).timestamp()
    if args.redis:
        t = generate_redis(args.redis, args.prefix, args.history, args.tables, args.days, seed=args.seed, start=start,
                           release_prefix=args.release_prefix)
    else:
        t = generate(args.out, args.tables, args.days, seed=args.seed, start=start, v2=args.v2,
                     compact=not args.no_compact)
    took = time.monotonic() - began
    print(f"{args.tables} tables x {args.days:g} days: {t.rounds} rounds, {t.shoes} shoes, {t.events} events "
          f"in {took:.1f} s ({t.events / took:,.0f} events/s)")


if __name__ == "__main__":
    main()
