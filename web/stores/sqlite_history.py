"""The SQLite store's history operations on one connection (the caller holds the store's lock):
writing an event with what it closes or changes, the live part of a table, bringing a table's
rows up to its events (catch-up: the v2 -> v3 migration and events appended through the old
interface), moving closed shoes' events into compressed details (the compactor), and retention.

Every write here is in a transaction of its own or of the caller's; each one leaves the file
consistent if the process is killed at any point (docs/history.md: what each step guarantees).
"""

from __future__ import annotations

import json
import logging
import sqlite3
from typing import Any, Iterable, Iterator

from roads.archive import Commit, LivePart, shoe_from_document
from roads.events import Event
from roads.record import ShoeRecord
from roads.table import Table
from web.stores import codec
from web.stores.base import SeqTaken, StoreError

log = logging.getLogger(__name__)

CATCH_UP_BATCH = 2000
"""Events applied per transaction when catching a table up (the v2 migration: progress is kept
per batch, so a killed migration resumes from the last committed one)."""

EVENT_COLUMNS = "table_id, seq, kind, shoe, round, data, at"


def event_of(row: Iterable[Any]) -> Event:
    """An ``events`` row as an :class:`Event`."""
    table, seq, kind, shoe, rnd, data, at = row
    return Event(table=table, seq=seq, kind=kind, shoe=shoe, round=rnd, data=codec.loads(data), at=at)


def event_row(event: Event) -> tuple:
    """The ``events`` row of ``event``."""
    return (event.table, event.seq, event.kind, event.shoe, event.round, event.data_json(), event.at)


# ----------------------------------------------------------------------------- writing
def write_commit(db: sqlite3.Connection, c: Commit, *, insert_event: bool = True) -> None:
    """Write ``c`` inside the caller's transaction: the event (unless already stored: catch-up),
    the shoe it closes or changes (never an older version over a newer one), the table's row.
    Raises :class:`SeqTaken` when the event is not the table's next (or its seq or round is taken)."""
    ev = c.event
    sets, args = ["seq = ?"], [ev.seq]
    if c.opens:
        sets += ["live_shoe = ?", "live_from = ?", "state_at_open = ?"]
        args += [ev.shoe, ev.seq, codec.text(c.status_at_open)]
    if c.status is not None:
        sets.append("state = ?")
        args.append(codec.text(c.status))
    where = "table_id = ? AND seq = ?" if insert_event else "table_id = ?"
    args += [ev.table, ev.seq - 1] if insert_event else [ev.table]
    if db.execute(f"UPDATE tables SET {', '.join(sets)} WHERE {where}", args).rowcount == 0:
        if not insert_event or ev.seq != 1 or db.execute("SELECT 1 FROM tables WHERE table_id = ?",
                                                         (ev.table,)).fetchone():
            head = db.execute("SELECT seq FROM tables WHERE table_id = ?", (ev.table,)).fetchone()
            raise SeqTaken(f"table {ev.table!r} seq {ev.seq} is not its next (its rows are at seq "
                           f"{head[0] if head else 0})")
        db.execute("INSERT INTO tables (table_id) VALUES (?)", (ev.table,))
        db.execute(f"UPDATE tables SET {', '.join(sets)} WHERE table_id = ?", args[:-2] + [ev.table])
    if insert_event:
        try:
            db.execute(f"INSERT INTO events ({EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)", event_row(ev))
        except sqlite3.IntegrityError as e:
            raise SeqTaken(f"table {ev.table!r} seq {ev.seq} (shoe {ev.shoe} round {ev.round}) is taken: {e}") from None
    a = c.archive
    if a is not None:
        db.execute(
            "INSERT INTO shoes (table_id, shoe, version, started_at, ended_at, rounds, line, stats) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (table_id, shoe) DO UPDATE SET version = excluded.version, "
            "started_at = excluded.started_at, ended_at = excluded.ended_at, rounds = excluded.rounds, "
            "line = excluded.line, stats = excluded.stats WHERE excluded.version >= shoes.version",
            (ev.table, a.number, a.version, a.started_at, a.ended_at, a.rounds, codec.text(a.line), codec.text(a.stats)))
        db.execute(
            "INSERT INTO shoe_docs (table_id, shoe, version, doc) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (table_id, shoe) DO UPDATE SET version = excluded.version, doc = excluded.doc "
            "WHERE excluded.version >= shoe_docs.version",
            (ev.table, a.number, a.version, codec.pack_doc(a.document)))


# ----------------------------------------------------------------------------- reading
def past_document(db: sqlite3.Connection, table: str, shoe: int) -> bytes | None:
    """The stored document blob of a past shoe, or ``None``."""
    row = db.execute("SELECT doc FROM shoe_docs WHERE table_id = ? AND shoe = ?", (table, shoe)).fetchone()
    return None if row is None else row[0]


class DbPast:
    """:class:`roads.archive.PastShoes` reading one table's documents on a connection the caller
    holds (catch-up inside the store's lock)."""

    def __init__(self, db: sqlite3.Connection, table: str) -> None:
        self.db, self.table = db, table

    def get(self, number: int) -> ShoeRecord | None:
        blob = past_document(self.db, self.table, number)
        return None if blob is None else shoe_from_document(codec.unpack_doc(blob))

    def put(self, shoe: ShoeRecord) -> None:
        pass

    def numbers(self) -> list[int]:
        return [r[0] for r in self.db.execute("SELECT shoe FROM shoes WHERE table_id = ? ORDER BY shoe", (self.table,))]


def live_part(db: sqlite3.Connection, table: str) -> LivePart:
    """The live part of ``table`` as its rows stand (events up to the row's ``seq``)."""
    row = db.execute("SELECT seq, live_shoe, live_from, state, state_at_open FROM tables WHERE table_id = ?",
                     (table,)).fetchone()
    if row is None:
        return LivePart(table, 0)
    seq, live_shoe, live_from, state, at_open = row
    events: list[Event] = []
    if live_shoe is not None:
        events = [event_of(r) for r in db.execute(
            f"SELECT {EVENT_COLUMNS} FROM events WHERE table_id = ? AND seq BETWEEN ? AND ? AND shoe = ? ORDER BY seq",
            (table, live_from, seq, live_shoe))]
    return LivePart(table, seq, None if state is None else json.loads(state), live_shoe,
                    None if at_open is None else json.loads(at_open), events)


def lagging(db: sqlite3.Connection, table: str) -> bool:
    """Whether ``table`` has events its rows do not reflect yet (old-interface appends, a migration)."""
    row = db.execute("SELECT (SELECT MAX(seq) FROM events WHERE table_id = ?), "
                     "(SELECT seq FROM tables WHERE table_id = ?)", (table, table)).fetchone()
    return row[0] is not None and (row[1] is None or row[0] > row[1])


def all_events(db: sqlite3.Connection, table: str, after: int = 0) -> Iterator[Event]:
    """Every event of ``table`` with seq above ``after``, in seq order: the details' and the live
    log's. Raises :class:`StoreError` when retention dropped some (they cannot be given)."""
    details = db.execute("SELECT shoe, detail, dropped_at FROM shoe_details WHERE table_id = ? AND last_seq > ? "
                         "ORDER BY shoe", (table, after)).fetchall()
    if any(dropped is not None for _, _, dropped in details):
        raise StoreError(f"table {table!r}: the detail of some shoes is past retention; its full event "
                         "history cannot be given (restore from the live part instead)")
    events = [e for shoe, blob, _ in details for e in codec.unpack_detail(table, shoe, blob) if e.seq > after]
    events += [event_of(r) for r in db.execute(
        f"SELECT {EVENT_COLUMNS} FROM events WHERE table_id = ? AND seq > ? ORDER BY seq", (table, after))]
    events.sort(key=lambda e: e.seq)
    return iter(events)


# ----------------------------------------------------------------------------- catch-up
def catch_up(db: sqlite3.Connection, table: str, *, batch: int | None = None) -> int:
    """Bring ``table``'s rows up to its events: restore it from its rows (no history replayed),
    then commit each later event's archive and head, ``batch`` events per transaction
    (:data:`CATCH_UP_BATCH` when ``None``). Returns
    the events caught up. Raises :class:`StoreError` for an event that does not fit (nothing of
    that batch is kept)."""
    db.execute("INSERT OR IGNORE INTO tables (table_id) VALUES (?)", (table,))
    try:
        t = Table.restore(live_part(db, table), past=DbPast(db, table))
    except ValueError as e:
        raise StoreError(f"table {table!r}: its live part does not fit its record: {e}") from None
    batch = batch or CATCH_UP_BATCH
    done = 0
    while True:
        rows = db.execute(f"SELECT {EVENT_COLUMNS} FROM events WHERE table_id = ? AND seq > ? ORDER BY seq LIMIT ?",
                          (table, t.seq, batch)).fetchall()
        if not rows:
            return done
        db.execute("BEGIN IMMEDIATE")
        try:
            for row in rows:
                ev = event_of(row)
                try:
                    c = t.commit(ev)
                    write_commit(db, c, insert_event=False)
                    t.apply(ev)
                except ValueError as e:
                    raise StoreError(f"table {table!r} event {ev.seq} does not fit its record: {e}") from None
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        done += len(rows)
        if done % (batch * 50) == 0:
            log.info("table %r: %d events caught up (seq %d)", table, done, t.seq)


# ----------------------------------------------------------------------------- compactor
def closed_shoes(db: sqlite3.Connection, table: str) -> list[int]:
    """Shoes of ``table`` with events in the live log that the compactor may move: shoes before
    the live one, events the rows already reflect."""
    row = db.execute("SELECT seq, live_shoe FROM tables WHERE table_id = ?", (table,)).fetchone()
    if row is None or row[1] is None:
        return []
    return [r[0] for r in db.execute("SELECT DISTINCT shoe FROM events WHERE table_id = ? AND seq <= ? AND shoe < ? "
                                     "ORDER BY shoe", (table, row[0], row[1]))]


def compact_shoe(db: sqlite3.Connection, table: str, shoe: int) -> int:
    """Move shoe ``shoe``'s events (of a closed shoe, up to the table's row) into its detail, in
    one transaction: merged with what the detail holds (by seq: an event is never doubled),
    recompressed, and deleted from the live log. Returns the events moved (0: nothing to do)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        row = db.execute("SELECT seq, live_shoe FROM tables WHERE table_id = ?", (table,)).fetchone()
        if row is None or row[1] is None or shoe >= row[1]:
            db.execute("COMMIT")
            return 0
        upto = row[0]
        moved = [event_of(r) for r in db.execute(
            f"SELECT {EVENT_COLUMNS} FROM events WHERE table_id = ? AND seq <= ? AND shoe = ? ORDER BY seq",
            (table, upto, shoe))]
        if not moved:
            db.execute("COMMIT")
            return 0
        old = db.execute("SELECT detail, dropped_at FROM shoe_details WHERE table_id = ? AND shoe = ?",
                         (table, shoe)).fetchone()
        merged = {e.seq: e for e in moved}
        if old is not None and old[0] is not None:
            for e in codec.unpack_detail(table, shoe, old[0]):
                merged.setdefault(e.seq, e)
        events = [merged[s] for s in sorted(merged)]
        db.execute(
            "INSERT INTO shoe_details (table_id, shoe, events, first_seq, last_seq, last_at, detail, dropped_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (table_id, shoe) DO UPDATE SET events = excluded.events, "
            "first_seq = excluded.first_seq, last_seq = excluded.last_seq, last_at = excluded.last_at, "
            "detail = excluded.detail",
            (table, shoe, len(events), events[0].seq, events[-1].seq, max(e.at for e in events),
             codec.pack_detail(events), None if old is None else old[1]))
        db.execute("DELETE FROM events WHERE table_id = ? AND seq <= ? AND shoe = ?", (table, upto, shoe))
        db.execute("COMMIT")
        return len(moved)
    except BaseException:
        db.execute("ROLLBACK")
        raise


def drop_details(db: sqlite3.Connection, before: float, now: float) -> int:
    """Retention: drop the detail of every shoe whose last detailed event is older than ``before``
    (Unix seconds); documents (every round) stay. Returns the details dropped."""
    db.execute("BEGIN IMMEDIATE")
    try:
        n = db.execute("UPDATE shoe_details SET detail = NULL, dropped_at = ? WHERE detail IS NOT NULL AND last_at < ?",
                       (now, before)).rowcount
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return n
