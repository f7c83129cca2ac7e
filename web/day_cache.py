"""Table-days' figures kept on disk between processes: the past part of each table-day
(:class:`roads.gaming_day.TableDay`) with the fingerprint of the summaries it was made of
(:mod:`web.day_stats`), in one SQLite file beside the store (``day_stats.sqlite3``, WAL).

Derived data only: a row whose fingerprint no longer matches the summaries (a shoe closed, a past
round voided or corrected) is recomputed and replaced, a missing or unreadable file is a cache
miss (logged once), and deleting the file loses nothing. So a restarted process reads a floor day
from these rows instead of every shoe's statistics and documents again.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
from pathlib import Path

log = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS day_parts (
    zone TEXT NOT NULL, day TEXT NOT NULL, table_id TEXT NOT NULL, fingerprint TEXT NOT NULL, state TEXT NOT NULL,
    PRIMARY KEY (zone, day, table_id)
) WITHOUT ROWID;
"""


def fingerprint(parts: object) -> str:
    """A short digest of ``repr(parts)`` (the ``(shoe, version)`` pairs of a table-day)."""
    return hashlib.blake2b(repr(parts).encode(), digest_size=12).hexdigest()


class DayCache:
    """Rows ``(zone, day, table) -> (fingerprint, state JSON)``; thread-safe; every failure is a
    miss. ``zone`` names the gaming day's definition (time zone and cut-over)."""

    FILENAME = "day_stats.sqlite3"

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._warned = False
        self._db: sqlite3.Connection | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=2.0)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.executescript(SCHEMA)
            self._db = db
        except (OSError, sqlite3.Error) as e:
            self._failed(e)

    def _failed(self, e: Exception) -> None:
        if not self._warned:
            self._warned = True
            log.warning("day statistics cache %s unavailable (%s): figures are recomputed", self.path, e)

    def day(self, zone: str, day: str) -> dict[str, tuple[str, str]]:
        """Every table's row of ``day``: ``{table: (fingerprint, state)}``."""
        if self._db is None:
            return {}
        try:
            with self._lock:
                rows = self._db.execute("SELECT table_id, fingerprint, state FROM day_parts WHERE zone = ? AND day = ?",
                                        (zone, day)).fetchall()
        except sqlite3.Error as e:
            self._failed(e)
            return {}
        return {t: (f, s) for t, f, s in rows}

    def get(self, zone: str, day: str, table: str) -> tuple[str, str] | None:
        """One table-day's ``(fingerprint, state)``, or ``None``."""
        if self._db is None:
            return None
        try:
            with self._lock:
                row = self._db.execute("SELECT fingerprint, state FROM day_parts WHERE zone = ? AND day = ? AND "
                                       "table_id = ?", (zone, day, table)).fetchone()
        except sqlite3.Error as e:
            self._failed(e)
            return None
        return None if row is None else (row[0], row[1])

    def put(self, zone: str, day: str, table: str, fp: str, state: str) -> None:
        """Keep (or replace) one table-day's row."""
        if self._db is None:
            return
        try:
            with self._lock:
                self._db.execute("INSERT OR REPLACE INTO day_parts VALUES (?, ?, ?, ?, ?)", (zone, day, table, fp, state))
        except sqlite3.Error as e:
            self._failed(e)

    def close(self) -> None:
        """Close the file."""
        if self._db is not None:
            with self._lock:
                self._db.close()
                self._db = None
