"""The SQLite store (the default, one process): one file, WAL, ``synchronous=FULL``; the live log
and every past shoe's document, summary and detail (schema: :mod:`web.stores.sqlite_schema`;
what is kept where and for how long: docs/history.md).

Two interfaces over one file: :class:`web.stores.HistoryStore` (the live part of each table at
start, one transaction per event with the shoe it closes or changes, past shoes read on demand,
paged summaries, the compactor, retention) and the event log of :class:`web.stores.Store`
(``load``/``append``/``events_after``; an ``append`` stores the event alone and the table's rows
catch up from the log later: :func:`web.stores.sqlite_history.catch_up`).

A version 2 file (every event in the log, nothing else) is migrated on first open: the schema in
one transaction, then each table caught up (replayed once with today's code, its past shoes'
documents and summaries written, progress committed every
:data:`web.stores.sqlite_history.CATCH_UP_BATCH` events) and compacted shoe by shoe; a process
killed anywhere resumes where the last transaction left off at the next open.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

from roads.archive import Commit, LivePart, shoe_from_document
from roads.record import RoundRecord, ShoeRecord
from web.stores import codec
from web.stores.base import Event, HistoryStore, SeqTaken, ShoeSummary, StoreError, StoreUnavailable
from web.stores.sqlite_history import (
    EVENT_COLUMNS, all_events, catch_up, closed_shoes, compact_shoe, drop_details, event_of, event_row, lagging, live_part,
    past_document, write_commit,
)
from web.stores.sqlite_schema import SCHEMA, SCHEMA_VERSION, SHOE_INDEX, open_schema

__all__ = ["SCHEMA", "SCHEMA_VERSION", "SqliteStore"]

log = logging.getLogger(__name__)

DAY_S = 86_400.0


class SqliteStore(HistoryStore):
    """The live log and the history of every table in one SQLite file (WAL, ``synchronous=FULL``);
    for one process.

    ``path``: the database file (its directory is created). One connection, shared by request
    threads under a lock; every write is its own committed transaction, fsynced before it returns
    (:meth:`commit_many`: one for all). ``detail_retention_days``: details older than that are
    dropped by :meth:`apply_retention` (``None`` = kept). ``durable`` False skips the fsync of
    each transaction (bulk tools only: a power cut may lose the last ones). Raises
    :class:`StoreError` for a file of another schema version.
    """

    FILENAME = "roads.sqlite3"
    """File name under the data directory."""

    def __init__(self, path: str | Path, *, detail_retention_days: float | None = None, durable: bool = True) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.detail_retention_days = detail_retention_days
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=10.0)
        if self._db.execute("PRAGMA user_version").fetchone()[0] == 0:
            self._db.execute("PRAGMA auto_vacuum=INCREMENTAL")  # a new file gives dropped details back
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL" if durable else "PRAGMA synchronous=OFF")
        try:
            pending = open_schema(self._db, self.path)
        except ValueError as e:
            self._db.close()
            raise StoreError(str(e)) from None
        if pending:
            self._finish_migration()

    @classmethod
    def in_dir(cls, data_dir: str | Path, **options: Any) -> "SqliteStore":
        """The store of a data directory (``<data_dir>/roads.sqlite3``)."""
        return cls(Path(data_dir) / cls.FILENAME, **options)

    # ------------------------------------------------------------------ migration
    def _finish_migration(self) -> None:
        """Catch every table up, then compact every table (both resumable), then clear the marker."""
        db = self._db
        stage = db.execute("SELECT value FROM meta WHERE key = 'migration'").fetchone()[0]
        started = time.monotonic()
        db.execute(SHOE_INDEX)
        tables = [r[0] for r in db.execute("SELECT table_id FROM tables ORDER BY table_id")]
        if stage == "catch_up":
            log.info("%s: migrating %d tables to schema version %d", self.path, len(tables), SCHEMA_VERSION)
            for i, table in enumerate(tables, 1):
                try:
                    n = catch_up(db, table)
                except StoreError as e:
                    log.error("%s: %s; the table stays on its event log", self.path, e)
                    continue
                log.info("%s: table %r caught up (%d events; %d of %d tables)", self.path, table, n, i, len(tables))
            db.execute("UPDATE meta SET value = 'compact' WHERE key = 'migration'")
        moved = sum(self._compact_table(table, None, locked=True) for table in tables)
        db.execute("BEGIN IMMEDIATE")
        db.execute("DROP INDEX IF EXISTS events_by_shoe")
        db.execute("DELETE FROM meta WHERE key = 'migration'")
        db.execute("COMMIT")
        log.info("%s: migrated in %.1f s (%d shoes compacted)", self.path, time.monotonic() - started, moved)

    # ------------------------------------------------------------------ the event log (Store)
    def load(self) -> Iterator[Event]:
        """Every event, ordered by table id then ``seq`` (from the details and the live log).
        Raises :class:`StoreError` when retention dropped a detail (use :meth:`load_live`)."""
        with self._lock:
            tables = [r[0] for r in self._db.execute("SELECT table_id FROM tables ORDER BY table_id")]
            events = [e for table in tables for e in all_events(self._db, table)]
        return iter(events)

    def append(self, event: Event) -> None:
        """Insert and commit ``event`` alone (durable on return); the table's rows catch up later
        (:meth:`load_live`). See :meth:`Store.append` for what it raises."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    self._db.execute("INSERT OR IGNORE INTO tables (table_id) VALUES (?)", (event.table,))
                    self._db.execute(f"INSERT INTO events ({EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                                     event_row(event))
                    self._db.execute("COMMIT")
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
            except sqlite3.IntegrityError as e:
                raise SeqTaken(f"table {event.table!r} seq {event.seq} (shoe {event.shoe} round {event.round}) "
                               f"is taken: {e}") from None
            except sqlite3.Error as e:
                raise StoreUnavailable(f"cannot write to {self.path}: {e}") from None

    def events_after(self, table: str, seq: int) -> list[Event]:
        """``table``'s events after ``seq``, in order (from the details too when ``seq`` is older
        than the live log)."""
        with self._lock:
            compacted = self._db.execute("SELECT MAX(last_seq) FROM shoe_details WHERE table_id = ?",
                                         (table,)).fetchone()[0]
            if compacted is not None and compacted > seq:
                return list(all_events(self._db, table, seq))
            rows = self._db.execute(
                f"SELECT {EVENT_COLUMNS} FROM events WHERE table_id = ? AND seq > ? ORDER BY seq", (table, seq)
            ).fetchall()
        return [event_of(r) for r in rows]

    def close(self) -> None:
        """Close the connection (a clean close also folds the WAL into the file)."""
        with self._lock:
            self._db.close()

    # ------------------------------------------------------------------ live part and writes
    def load_live(self) -> Iterator[LivePart]:
        """Every table's live part, tables in id order; a table whose rows lag its events is caught
        up first. Raises :class:`StoreError` for a table that cannot be caught up."""
        with self._lock:
            out = []
            for (table,) in self._db.execute("SELECT table_id FROM tables ORDER BY table_id").fetchall():
                if lagging(self._db, table):
                    catch_up(self._db, table)
                out.append(live_part(self._db, table))
        return iter(out)

    def commit(self, commit: Commit) -> None:
        """See :meth:`HistoryStore.commit`."""
        self.commit_many((commit,))

    def commit_many(self, commits: Sequence[Commit]) -> None:
        """See :meth:`HistoryStore.commit_many`."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    for c in commits:
                        write_commit(self._db, c)
                    self._db.execute("COMMIT")
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
            except sqlite3.Error as e:
                raise StoreUnavailable(f"cannot write to {self.path}: {e}") from None

    # ------------------------------------------------------------------ past shoes
    def past_shoe(self, table: str, shoe: int) -> ShoeRecord | None:
        """See :meth:`HistoryStore.past_shoe` (decompressed and rebuilt outside the lock)."""
        doc = self.past_document(table, shoe)
        return None if doc is None else shoe_from_document(doc)

    def past_document(self, table: str, shoe: int) -> dict[str, Any] | None:
        """The stored document of a past shoe (:func:`roads.archive.shoe_document` shape), or ``None``."""
        with self._lock:
            blob = past_document(self._db, table, shoe)
        return None if blob is None else codec.unpack_doc(blob)

    def shoe_numbers(self, table: str) -> list[int]:
        """See :meth:`HistoryStore.shoe_numbers`."""
        with self._lock:
            return [r[0] for r in self._db.execute("SELECT shoe FROM shoes WHERE table_id = ? ORDER BY shoe", (table,))]

    def shoe_summary(self, table: str, shoe: int, *, stats: bool = False) -> ShoeSummary | None:
        """See :meth:`HistoryStore.shoe_summary`."""
        cols = "table_id, shoe, version, started_at, ended_at, rounds, line" + (", stats" if stats else "")
        with self._lock:
            row = self._db.execute(f"SELECT {cols} FROM shoes WHERE table_id = ? AND shoe = ?", (table, shoe)).fetchone()
        return None if row is None else ShoeSummary(*row)

    def shoe_summaries(self, table: str, *, before: int | None = None, limit: int = 50,
                       stats: bool = False) -> list[ShoeSummary]:
        """See :meth:`HistoryStore.shoe_summaries` (one index range: the same cost at any depth)."""
        cols = "table_id, shoe, version, started_at, ended_at, rounds, line" + (", stats" if stats else "")
        with self._lock:
            rows = self._db.execute(
                f"SELECT {cols} FROM shoes WHERE table_id = ? AND shoe < ? ORDER BY shoe DESC LIMIT ?",
                (table, before if before is not None else 2**62, limit)).fetchall()
        return [ShoeSummary(*r) for r in rows]

    def shoe_summaries_between(self, start: float, end: float, *, table: str | None = None,
                               stats: bool = True) -> list[ShoeSummary]:
        """See :meth:`HistoryStore.shoe_summaries_between`."""
        cols = "table_id, shoe, version, started_at, ended_at, rounds, line" + (", stats" if stats else "")
        where, args = "started_at >= ? AND started_at < ?", [start, end]
        if table is not None:
            where, args = "table_id = ? AND " + where, [table, *args]
        with self._lock:
            rows = self._db.execute(f"SELECT {cols} FROM shoes WHERE {where} ORDER BY table_id, shoe", args).fetchall()
        return [ShoeSummary(*r) for r in rows]

    def stream_rounds(self, table: str, shoes: Iterable[int]) -> Iterator[tuple[int, RoundRecord]]:
        """See :meth:`HistoryStore.stream_rounds`."""
        for number in shoes:
            s = self.past_shoe(table, number)
            if s is not None:
                for r in s.rounds:
                    yield number, r

    def shoe_detail(self, table: str, shoe: int) -> list[Event] | None:
        """See :meth:`HistoryStore.shoe_detail`: the detail and the events not moved yet."""
        with self._lock:
            row = self._db.execute("SELECT detail, dropped_at FROM shoe_details WHERE table_id = ? AND shoe = ?",
                                   (table, shoe)).fetchone()
            rows = self._db.execute(f"SELECT {EVENT_COLUMNS} FROM events WHERE table_id = ? AND shoe = ? ORDER BY seq",
                                    (table, shoe)).fetchall()
        if row is not None and row[1] is not None:
            return None
        events = list(codec.unpack_detail(table, shoe, row[0])) if row is not None else []
        events += [event_of(r) for r in rows]
        return sorted(events, key=lambda e: e.seq)

    # ------------------------------------------------------------------ compactor and retention
    def compact(self, *, table: str | None = None, limit: int | None = None) -> int:
        """Move closed shoes' events into their details (:func:`web.stores.sqlite_history.compact_shoe`),
        one transaction per shoe, the lock released between shoes; idempotent. Returns the shoes
        moved (at most ``limit``)."""
        with self._lock:
            tables = [table] if table is not None else [
                r[0] for r in self._db.execute("SELECT table_id FROM tables ORDER BY table_id")]
        moved = 0
        for t in tables:
            moved += self._compact_table(t, None if limit is None else limit - moved)
            if limit is not None and moved >= limit:
                break
        return moved

    def _compact_table(self, table: str, limit: int | None, *, locked: bool = False) -> int:
        moved = 0
        with _maybe(self._lock, not locked):
            shoes = closed_shoes(self._db, table)
        for shoe in shoes[:limit]:
            with _maybe(self._lock, not locked):
                moved += compact_shoe(self._db, table, shoe) > 0
        return moved

    def apply_retention(self, now: float | None = None) -> int:
        """Drop the details older than ``detail_retention_days`` (nothing when unset); every
        round stays in the documents. Returns the details dropped."""
        if self.detail_retention_days is None:
            return 0
        now = time.time() if now is None else now
        with self._lock:
            n = drop_details(self._db, now - self.detail_retention_days * DAY_S, now)
            if n:
                self._db.execute("PRAGMA incremental_vacuum")
        return n


class _maybe:
    """``with _maybe(lock, take)``: the lock, or nothing when the caller holds it already."""

    __slots__ = ("lock", "take")

    def __init__(self, lock: threading.Lock, take: bool) -> None:
        self.lock, self.take = lock, take

    def __enter__(self) -> None:
        if self.take:
            self.lock.acquire()

    def __exit__(self, *exc: object) -> None:
        if self.take:
            self.lock.release()
