"""The SQLite store (the default, one process): every event in one file, WAL, ``synchronous=FULL``."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any, Iterable, Iterator

from web.stores.base import Event, SeqTaken, Store, StoreError, StoreUnavailable

_TABLE = """
CREATE TABLE IF NOT EXISTS {name} (
    table_id TEXT    NOT NULL,
    seq      INTEGER NOT NULL CHECK (seq >= 1),
    kind     TEXT    NOT NULL,
    shoe     INTEGER NOT NULL,
    round    INTEGER,
    data     TEXT    NOT NULL,
    at       REAL    NOT NULL,
    PRIMARY KEY (table_id, seq)
) WITHOUT ROWID;
"""

_INDEX = """
CREATE UNIQUE INDEX IF NOT EXISTS one_round_per_number
    ON events (table_id, shoe, round) WHERE kind = 'round';
"""

SCHEMA = _TABLE.format(name="events") + _INDEX
"""SQLite schema: one row per event; ``data`` is compact JSON, ``at`` Unix seconds; ``kind`` is
one of :data:`roads.events.EVENT_KINDS` (checked by :class:`roads.events.Event` when read)."""

SCHEMA_VERSION = 2
"""``PRAGMA user_version`` of the file; version 1 files (whose ``kind`` column allowed only the
first four kinds) are migrated on open; a file of another version is refused."""

_MIGRATE_1_TO_2 = (
    "BEGIN IMMEDIATE;"
    + _TABLE.format(name="events_v2")
    + "INSERT INTO events_v2 SELECT table_id, seq, kind, shoe, round, data, at FROM events;"
    "DROP TABLE events;"
    "ALTER TABLE events_v2 RENAME TO events;"
    + _INDEX
    + "PRAGMA user_version=2;"
    "COMMIT;"
)


class SqliteStore(Store):
    """Events in one SQLite file (WAL, ``synchronous=FULL``); for one process.

    ``path``: the database file (its directory is created). One connection, shared by
    request threads under a lock; every :meth:`append` is its own committed transaction,
    fsynced before it returns. Raises :class:`StoreError` when the file is of another
    schema version.
    """

    FILENAME = "roads.sqlite3"
    """File name under the data directory."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=10.0)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version not in (0, 1, SCHEMA_VERSION):
            self._db.close()
            raise StoreError(f"{self.path}: schema version {version}, this service reads {SCHEMA_VERSION}")
        if version == 1:
            self._db.executescript(_MIGRATE_1_TO_2)
        self._db.executescript(SCHEMA)
        self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    @classmethod
    def in_dir(cls, data_dir: str | Path) -> "SqliteStore":
        """The store of a data directory (``<data_dir>/roads.sqlite3``)."""
        return cls(Path(data_dir) / cls.FILENAME)

    def load(self) -> Iterator[Event]:
        """Every event, ordered by table id then ``seq``."""
        with self._lock:
            rows = self._db.execute(
                "SELECT table_id, seq, kind, shoe, round, data, at FROM events ORDER BY table_id, seq"
            ).fetchall()
        return (self._event(r) for r in rows)

    def append(self, event: Event) -> None:
        """Insert and commit ``event`` (durable on return); see :meth:`Store.append`."""
        row = (event.table, event.seq, event.kind, event.shoe, event.round, event.data_json(), event.at)
        with self._lock:
            try:
                self._db.execute(
                    "INSERT INTO events (table_id, seq, kind, shoe, round, data, at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    row,
                )
            except sqlite3.IntegrityError as e:
                raise SeqTaken(f"table {event.table!r} seq {event.seq} (shoe {event.shoe} round {event.round}) is taken: {e}") from None
            except sqlite3.Error as e:
                raise StoreUnavailable(f"cannot write to {self.path}: {e}") from None

    def events_after(self, table: str, seq: int) -> list[Event]:
        """``table``'s events after ``seq``, in order."""
        with self._lock:
            rows = self._db.execute(
                "SELECT table_id, seq, kind, shoe, round, data, at FROM events WHERE table_id = ? AND seq > ? ORDER BY seq",
                (table, seq),
            ).fetchall()
        return [self._event(r) for r in rows]

    def close(self) -> None:
        """Close the connection (a clean close also folds the WAL into the file)."""
        with self._lock:
            self._db.close()

    @staticmethod
    def _event(row: Iterable[Any]) -> Event:
        table, seq, kind, shoe, rnd, data, at = row
        return Event(table=table, seq=seq, kind=kind, shoe=shoe, round=rnd, data=json.loads(data), at=at)
