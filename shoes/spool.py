"""The adapter's durable spool: every byte read from the shoe and every feed message made from
it, kept on the table PC until the service has taken it (docs/shoes.md "The spool").

A spool is a folder (``--spool DIR``) holding:

* ``journal.bin`` (``journal.<n>.bin`` after a rotation): the raw bytes read from the shoe,
  appended as read (one ``write`` per read, before they are parsed), so a killed adapter reads
  them again when it starts; a device adapter starts a new one at start when the old one, read
  to its end, is over :data:`shoes.pipeline.JOURNAL_ROTATE_BYTES`;
* ``spool.sqlite3`` (SQLite, WAL, ``synchronous=FULL``): the ``outbox`` of feed messages in
  the order they are to be sent, with each one's status (``pending``, ``sent``, ``refused``,
  ``skipped``, ``degraded``, ``local``) and the service's answer; and ``meta``, where
  ``state`` is the reader's and the round follower's state together with the journal offset
  they have read up to. A batch of messages and the state that made them are committed in one
  transaction, after the journal is fsynced: after a kill -9 at any point, the journal past
  that offset is read again and makes exactly the messages that were not committed.

Standard library only (:mod:`sqlite3`).
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    message TEXT NOT NULL,
    original TEXT,
    status TEXT NOT NULL DEFAULT 'pending',
    note TEXT,
    answer TEXT,
    recorded INTEGER NOT NULL DEFAULT 0,
    spooled_at REAL NOT NULL,
    sent_at REAL
);
CREATE INDEX IF NOT EXISTS outbox_pending ON outbox (status, id);
CREATE TABLE IF NOT EXISTS deliveries (key TEXT PRIMARY KEY, answer TEXT NOT NULL, at REAL NOT NULL);
"""

STATUSES = ("pending", "sent", "refused", "skipped", "degraded", "local")
"""Outbox statuses: waiting; taken by the service; refused by it (4xx, the answer kept); not sent
because an earlier message of its round was refused; dropped because the service does not have
the feed extension it needs (docs/shoes.md "Feed extensions"); kept on the table PC only."""


class SpoolError(Exception):
    """A spool that cannot be used: another table's, or a journal shorter than its state says."""


@dataclass(frozen=True, slots=True)
class Row:
    """One outbox row: ``id``, the ``message`` (a dict, :mod:`shoes.deal`) and its ``status``."""

    id: int
    message: dict[str, Any]
    status: str


class Spool:
    """The spool in ``directory`` for table ``table`` (created when missing).

    Thread-safe: each thread gets its own SQLite connection (WAL: the sender reads while the
    reader writes). Raises :class:`SpoolError` when the folder holds another table's spool.
    """

    def __init__(self, directory: Path, table: str) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / "spool.sqlite3"
        self._local = threading.local()
        self.changed = threading.Condition()
        db = self._db()
        with db:
            db.executescript(SCHEMA)
            row = db.execute("SELECT value FROM meta WHERE key = 'table'").fetchone()
            if row is None:
                db.execute("INSERT INTO meta VALUES ('table', ?)", (json.dumps(table),))
            elif json.loads(row[0]) != table:
                raise SpoolError(f"spool {self.directory} belongs to table {json.loads(row[0])!r}, not {table!r}")
        self.generation = self.get_meta("journal_generation") or 0
        self.journal_path = self._journal_file(self.generation)
        self._journal_fd = os.open(self.journal_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o640)
        self._journal_dirty = False
        for old in self.directory.glob("journal*.bin"):  # left by a rotation killed before it deleted them
            if old != self.journal_path:
                old.unlink(missing_ok=True)
        state = self.load_state()
        if state is not None and state.get("offset", 0) > self.journal_size():
            raise SpoolError(f"{self.journal_path} has {self.journal_size()} bytes but the spool read up to "
                             f"byte {state['offset']}: the journal was cut or replaced")

    def _db(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=True)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA busy_timeout=30000")
            self._local.db = db
        return db

    # ------------------------------------------------------------------ journal
    def journal_append(self, data: bytes) -> None:
        """Append raw bytes read from the shoe (one ``write``: kept by the OS from then on, also
        when this process is killed; fsynced before the next commit)."""
        if data:
            os.write(self._journal_fd, data)
            self._journal_dirty = True

    def _journal_file(self, generation: int) -> Path:
        return self.directory / ("journal.bin" if generation == 0 else f"journal.{generation}.bin")

    def rotate_journal(self, state: dict[str, Any]) -> None:
        """Start an empty journal when every byte of this one is read (``state["offset"]`` is its
        size): the state, with offset 0, and the new journal's number are committed together, then
        the old file is deleted (a kill between the two leaves it for the next start to delete).
        Raises ``ValueError`` when bytes of the journal are still unread."""
        if state["offset"] != self.journal_size():
            raise ValueError(f"journal has {self.journal_size()} bytes, {state['offset']} read: not rotated")
        new_gen = self.generation + 1
        new_path = self._journal_file(new_gen)
        fd = os.open(new_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o640)
        os.fsync(fd)
        db = self._db()
        with db:
            db.execute("BEGIN IMMEDIATE")
            db.execute("INSERT OR REPLACE INTO meta VALUES ('state', ?)",
                       (json.dumps({**state, "offset": 0}, separators=(",", ":")),))
            db.execute("INSERT OR REPLACE INTO meta VALUES ('journal_generation', ?)", (json.dumps(new_gen),))
        old_fd, old_path = self._journal_fd, self.journal_path
        self._journal_fd, self.journal_path, self.generation = fd, new_path, new_gen
        os.close(old_fd)
        old_path.unlink(missing_ok=True)

    def journal_size(self) -> int:
        """Bytes in the journal."""
        return os.fstat(self._journal_fd).st_size

    def journal_read(self, offset: int, size: int | None = None) -> bytes:
        """The journal's bytes from ``offset`` (to the end, or ``size`` of them)."""
        with open(self.journal_path, "rb") as f:
            f.seek(offset)
            return f.read() if size is None else f.read(size)

    # ------------------------------------------------------------------ state and messages
    def load_state(self) -> dict[str, Any] | None:
        """The state last committed (``{"offset", ...}``), or ``None`` for a new spool."""
        row = self._db().execute("SELECT value FROM meta WHERE key = 'state'").fetchone()
        return None if row is None else json.loads(row[0])

    def get_meta(self, key: str) -> Any:
        """A value kept in ``meta`` (``None`` when missing)."""
        row = self._db().execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def set_meta(self, key: str, value: Any) -> None:
        """Keep ``value`` (JSON-ready) under ``key`` in ``meta``."""
        db = self._db()
        with db:
            db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value)))

    def commit(self, state: dict[str, Any], messages: Iterable[dict[str, Any]], *,
               delivery: tuple[str, Any] | None = None) -> None:
        """Spool ``messages`` and the ``state`` that made them in one transaction (the journal is
        fsynced first); ``delivery``: ``(key, answer)`` of an idempotent delivery made with them."""
        if self._journal_dirty:
            os.fsync(self._journal_fd)
            self._journal_dirty = False
        now = time.time()
        db = self._db()
        with db:
            db.execute("BEGIN IMMEDIATE")
            db.executemany("INSERT INTO outbox (message, status, spooled_at) VALUES (?, ?, ?)",
                           [(json.dumps(m, separators=(",", ":")),
                             "local" if m.get("type") == "hold" and not m.get("posted") else "pending", now)
                            for m in messages])
            db.execute("INSERT OR REPLACE INTO meta VALUES ('state', ?)", (json.dumps(state, separators=(",", ":")),))
            if delivery is not None:
                db.execute("INSERT OR REPLACE INTO deliveries VALUES (?, ?, ?)", (delivery[0], json.dumps(delivery[1]), now))
        with self.changed:
            self.changed.notify_all()

    def delivery(self, key: str) -> Any:
        """The answer of an idempotent delivery already taken under ``key`` (``None`` when new)."""
        row = self._db().execute("SELECT answer FROM deliveries WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    # ------------------------------------------------------------------ outbox
    def next_pending(self) -> Row | None:
        """The first message still to send, or ``None``."""
        row = self._db().execute("SELECT id, message, status FROM outbox WHERE status = 'pending' "
                                 "ORDER BY id LIMIT 1").fetchone()
        return None if row is None else Row(row[0], json.loads(row[1]), row[2])

    def mark(self, row_id: int, status: str, answer: Any = None, *, note: str | None = None,
             recorded: bool = False) -> None:
        """Set a message's status (``sent``, ``refused``, ...) with the service's answer."""
        assert status in STATUSES
        db = self._db()
        with db:
            db.execute("UPDATE outbox SET status = ?, answer = ?, note = COALESCE(?, note), recorded = ?, "
                       "sent_at = ? WHERE id = ?",
                       (status, None if answer is None else json.dumps(answer), note, int(recorded), time.time(), row_id))

    def replace(self, row_id: int, message: dict[str, Any], note: str) -> None:
        """Send ``message`` instead of the row's message (kept as ``original``), still in its place."""
        db = self._db()
        with db:
            db.execute("UPDATE outbox SET original = COALESCE(original, message), message = ?, note = ? WHERE id = ?",
                       (json.dumps(message, separators=(",", ":")), note, row_id))

    def skip_round(self, after_id: int, shoe: int, round_no: int, note: str) -> int:
        """Mark the pending messages of round ``round_no`` of shoe ``shoe`` after ``after_id``
        ``skipped``; returns how many."""
        db = self._db()
        with db:
            cur = db.execute(
                "UPDATE outbox SET status = 'skipped', note = ? WHERE status = 'pending' AND id > ? "
                "AND json_extract(message, '$.shoe') = ? AND json_extract(message, '$.round') = ?",
                (note, after_id, shoe, round_no))
            return cur.rowcount

    def prune(self, older_than_s: float) -> int:
        """Delete the messages the service took more than ``older_than_s`` seconds ago (the
        others stay until sent or looked at); returns how many."""
        db = self._db()
        with db:
            return db.execute("DELETE FROM outbox WHERE status = 'sent' AND sent_at < ?",
                              (time.time() - older_than_s,)).rowcount

    def counts(self) -> dict[str, int]:
        """Messages by status, ``recorded``: rounds the service recorded from them, and
        ``refused_rounds``: rounds voided because the service refused one of their cards."""
        db = self._db()
        out = dict.fromkeys(STATUSES, 0)
        out.update({s: n for s, n in db.execute("SELECT status, COUNT(*) FROM outbox GROUP BY status")})
        out["recorded"] = db.execute("SELECT COUNT(*) FROM outbox WHERE recorded = 1").fetchone()[0]
        out["refused_rounds"] = len(self.refused_rounds())
        return out

    def refused_rounds(self) -> list[tuple[dict[str, Any], str]]:
        """``(card message, note)`` of every card the service refused, whose round was voided in
        its place (:mod:`shoes.sender`)."""
        rows = self._db().execute("SELECT original, note FROM outbox WHERE original IS NOT NULL "
                                  "AND note LIKE 'refused (%' ORDER BY id")
        return [(json.loads(o), n) for o, n in rows]

    def rows(self, status: str | None = None) -> list[tuple[int, dict[str, Any], str, str | None, Any]]:
        """``(id, message, status, note, answer)`` of every row (of one ``status``), in order."""
        sql = "SELECT id, message, status, note, answer FROM outbox"
        args: tuple[Any, ...] = ()
        if status is not None:
            sql += " WHERE status = ?"
            args = (status,)
        return [(i, json.loads(m), s, n, None if a is None else json.loads(a))
                for i, m, s, n, a in self._db().execute(sql + " ORDER BY id", args)]

    def wait_for_change(self, timeout: float) -> None:
        """Sleep until :meth:`commit` spools something, at most ``timeout`` seconds."""
        with self.changed:
            self.changed.wait(timeout)

    def close(self) -> None:
        """Close this thread's connection and the journal."""
        db = getattr(self._local, "db", None)
        if db is not None:
            db.close()
            self._local.db = None
        try:
            os.close(self._journal_fd)
        except OSError:
            pass
