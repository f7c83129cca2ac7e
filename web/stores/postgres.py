"""The PostgreSQL history of several processes (docs/history.md, "Several processes"): every
closed shoe's summary, document and detail, moved there from Redis by the mover
(:mod:`web.stores.redis_mover`) exactly once; Redis keeps the live shoes.

Selected by ``ROADS_HISTORY_URL`` (``postgresql://...``, with ``ROADS_REDIS_URL``); psycopg 3 and
its connection pool (the ``postgres`` extra). The schema lives in the PostgreSQL schema ``roads``
of the database the URL names, is created by the first process that opens it and migrated by
version (``roads.meta``, key ``schema_version``), both under an advisory lock:

``roads.shoes``
    One summary row per past shoe (as SQLite's ``shoes``): version, start, end, rounds, ``line``
    (the shoe-list line's JSON text, the bytes served) and ``stats`` (JSON text); indexed for pages
    (table, shoe) and days (start).
``roads.shoe_docs``
    The shoe's document (``roads.archive.shoe_document``), zlib JSON (:func:`web.stores.codec.pack_doc`).
``roads.shoe_details``
    The shoe's events (cards, states, voids ...): zlib JSON lines (:func:`web.stores.codec.pack_detail`),
    ``detail`` NULL once retention dropped it (``dropped_at``).

Writes (:meth:`PostgresHistory.move_shoe`) are one transaction per shoe: the summary and document
never older over newer (version guard), the detail merged with what is stored by seq (an event
is never doubled) under a per-shoe advisory lock, so any number of movers may run at once.
"""

from __future__ import annotations

import contextlib
import logging
import time
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

import psycopg
import psycopg_pool

from roads.archive import ArchivedShoe, shoe_from_document
from roads.record import ShoeRecord
from web.stores import codec
from web.stores.base import Event, HistoryReader, ShoeSummary, StoreError, StoreUnavailable

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1
"""``roads.meta.schema_version`` of a current database."""

DAY_S = 86_400.0
_LOCK_CLASS = 0x726F6164
"""First key of this store's advisory locks (``pg_advisory_xact_lock(int, int)``): 'road'."""
_SCHEMA_LOCK, _SHOE_LOCK = 0, 1

_STEPS: dict[int, tuple[str, ...]] = {
    1: (
        """CREATE TABLE roads.shoes (
            table_id   text             NOT NULL,
            shoe       integer          NOT NULL,
            version    bigint           NOT NULL,
            started_at double precision NOT NULL,
            ended_at   double precision NOT NULL,
            rounds     integer          NOT NULL,
            line       text             NOT NULL,
            stats      text             NOT NULL,
            PRIMARY KEY (table_id, shoe))""",
        "CREATE INDEX shoes_by_start ON roads.shoes (started_at)",
        "CREATE INDEX shoes_by_table_start ON roads.shoes (table_id, started_at)",
        """CREATE TABLE roads.shoe_docs (
            table_id text    NOT NULL,
            shoe     integer NOT NULL,
            version  bigint  NOT NULL,
            doc      bytea   NOT NULL,
            PRIMARY KEY (table_id, shoe))""",
        """CREATE TABLE roads.shoe_details (
            table_id   text             NOT NULL,
            shoe       integer          NOT NULL,
            events     integer          NOT NULL,
            first_seq  bigint           NOT NULL,
            last_seq   bigint           NOT NULL,
            last_at    double precision NOT NULL,
            detail     bytea,
            dropped_at double precision,
            PRIMARY KEY (table_id, shoe))""",
    ),
}
"""Schema steps: version -> statements bringing the version before to it (one transaction)."""

_SUMMARY = "table_id, shoe, version, started_at, ended_at, rounds, line"


@dataclass(frozen=True, slots=True)
class ShoeRow:
    """A past shoe as the history stores it: ``table``, ``shoe``, ``version``, ``started_at`` and
    ``ended_at`` (Unix seconds), ``rounds``, ``line`` and ``stats`` (JSON text), ``doc`` (the
    document, :func:`web.stores.codec.pack_doc` bytes)."""

    table: str
    shoe: int
    version: int
    started_at: float
    ended_at: float
    rounds: int
    line: str
    stats: str
    doc: bytes

    @classmethod
    def of(cls, table: str, a: ArchivedShoe) -> "ShoeRow":
        """The row of an archived shoe of ``table``."""
        return cls(table, a.number, a.version, a.started_at, a.ended_at, a.rounds, codec.text(a.line),
                   codec.text(a.stats), codec.pack_doc(a.document))

    def summary(self, stats: bool = False) -> ShoeSummary:
        """Its :class:`web.stores.ShoeSummary`."""
        return ShoeSummary(self.table, self.shoe, self.version, self.started_at, self.ended_at, self.rounds, self.line,
                           self.stats if stats else None)


def safe_url(url: str) -> str:
    """``url`` without its password (for logs and errors)."""
    try:
        parts = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "(unparsable URL)"
    return " ".join(f"{k}={v}" for k, v in sorted(parts.items()) if k in ("host", "port", "dbname", "user"))


class PostgresHistory(HistoryReader):
    """Past shoes of every table in PostgreSQL (module doc); thread-safe (a pool of connections).

    ``url``: a libpq URL or conninfo (``ROADS_HISTORY_URL``). ``detail_retention_days``: details older
    than that are dropped by :meth:`apply_retention` (``None`` = kept). ``pool_size``: most
    connections held (the mover takes one, each reading request one while it reads).
    ``timeout_s``: connect timeout and longest wait for a pooled connection. Opens the pool and
    creates or migrates the schema before returning. Raises :class:`StoreUnavailable` when the
    database cannot be reached and :class:`StoreError` for a schema newer than this code's or a
    URL psycopg cannot read.
    """

    def __init__(self, url: str, *, detail_retention_days: float | None = None, pool_size: int = 4,
                 timeout_s: float = 5.0) -> None:
        self.url = safe_url(url)
        self.detail_retention_days = detail_retention_days
        try:
            psycopg.conninfo.conninfo_to_dict(url)
        except psycopg.ProgrammingError as e:
            raise StoreError(f"ROADS_HISTORY_URL is not a PostgreSQL URL: {e}") from None
        self._pool = psycopg_pool.ConnectionPool(
            url, min_size=1, max_size=max(1, pool_size), open=False, timeout=timeout_s, name="roads-history",
            check=psycopg_pool.ConnectionPool.check_connection,
            kwargs={"connect_timeout": max(1, round(timeout_s)), "application_name": "roads"})
        try:
            self._pool.open(wait=True, timeout=timeout_s)
        except psycopg_pool.PoolTimeout as e:
            self._pool.close()
            raise StoreUnavailable("the history database (PostgreSQL) cannot be reached",
                                   detail=f"PostgreSQL at {self.url}: {e}") from None
        try:
            self._migrate()
        except BaseException:
            self._pool.close()
            raise

    def __repr__(self) -> str:
        return f"PostgresHistory({self.url!r})"

    def close(self) -> None:
        """Close every pooled connection."""
        self._pool.close()

    @contextlib.contextmanager
    def _tx(self, what: str) -> Iterator[psycopg.Connection]:
        """A pooled connection in a transaction (committed at the end of the block, rolled back
        when it raises); a lost database is :class:`StoreUnavailable`."""
        try:
            with self._pool.connection() as conn:
                yield conn
        except (psycopg.OperationalError, psycopg_pool.PoolTimeout) as e:
            raise StoreUnavailable(f"the history database (PostgreSQL) cannot be reached while {what}",
                                   detail=f"PostgreSQL at {self.url}: {e}") from None

    def _migrate(self) -> None:
        with self._tx("creating its schema") as conn:
            conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (_LOCK_CLASS, _SCHEMA_LOCK))
            conn.execute("CREATE SCHEMA IF NOT EXISTS roads")
            conn.execute("CREATE TABLE IF NOT EXISTS roads.meta (key text PRIMARY KEY, value text NOT NULL)")
            row = conn.execute("SELECT value FROM roads.meta WHERE key = 'schema_version'").fetchone()
            version = int(row[0]) if row else 0
            if version > SCHEMA_VERSION:
                raise StoreError(f"the history database at {self.url} has schema version {version}; "
                                 f"this service reads {SCHEMA_VERSION} (a newer release made it)")
            for step in range(version + 1, SCHEMA_VERSION + 1):
                for statement in _STEPS[step]:
                    conn.execute(statement)
                log.info("history database %s: schema version %d", self.url, step)
            conn.execute("INSERT INTO roads.meta (key, value) VALUES ('schema_version', %s) "
                         "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (str(SCHEMA_VERSION),))

    # ------------------------------------------------------------------ writing
    def move_shoe(self, table: str, shoe: int, row: ShoeRow | None, events: Sequence[Event]) -> int:
        """Store one past shoe in one transaction: ``row`` (its summary and document, unless an equal
        or newer version is stored) and ``events`` merged into its detail by seq. Idempotent.
        Returns the events new to the detail. Raises :class:`StoreUnavailable`."""
        with self._tx(f"moving table {table!r} shoe {shoe}") as conn:
            if row is not None:
                conn.execute(
                    "INSERT INTO roads.shoes (table_id, shoe, version, started_at, ended_at, rounds, line, stats) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (table_id, shoe) DO UPDATE SET "
                    "version = excluded.version, started_at = excluded.started_at, ended_at = excluded.ended_at, "
                    "rounds = excluded.rounds, line = excluded.line, stats = excluded.stats "
                    "WHERE excluded.version > roads.shoes.version",
                    (table, shoe, row.version, row.started_at, row.ended_at, row.rounds, row.line, row.stats))
                conn.execute(
                    "INSERT INTO roads.shoe_docs (table_id, shoe, version, doc) VALUES (%s, %s, %s, %s) "
                    "ON CONFLICT (table_id, shoe) DO UPDATE SET version = excluded.version, doc = excluded.doc "
                    "WHERE excluded.version > roads.shoe_docs.version",
                    (table, shoe, row.version, row.doc))
            if not events:
                return 0
            conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (_LOCK_CLASS + _SHOE_LOCK, f"{table}:{shoe}"))
            old = conn.execute("SELECT detail, dropped_at FROM roads.shoe_details WHERE table_id = %s AND shoe = %s",
                               (table, shoe)).fetchone()
            merged: dict[int, Event] = {}
            if old is not None and old[0] is not None:
                merged = {e.seq: e for e in codec.unpack_detail(table, shoe, old[0])}
            new = sum(e.seq not in merged for e in events)
            if not new:
                return 0
            for e in events:
                merged.setdefault(e.seq, e)
            kept = [merged[s] for s in sorted(merged)]
            conn.execute(
                "INSERT INTO roads.shoe_details (table_id, shoe, events, first_seq, last_seq, last_at, detail, dropped_at) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (table_id, shoe) DO UPDATE SET "
                "events = excluded.events, first_seq = excluded.first_seq, last_seq = excluded.last_seq, "
                "last_at = excluded.last_at, detail = excluded.detail",
                (table, shoe, len(kept), kept[0].seq, kept[-1].seq, max(e.at for e in kept), codec.pack_detail(kept),
                 None if old is None else old[1]))
            return new

    def apply_retention(self, now: float | None = None) -> int:
        """Drop the details whose last event is older than ``detail_retention_days`` (nothing when
        unset); documents and summaries stay. Returns the details dropped."""
        if self.detail_retention_days is None:
            return 0
        now = time.time() if now is None else now
        with self._tx("applying retention") as conn:
            cur = conn.execute("UPDATE roads.shoe_details SET detail = NULL, dropped_at = %s "
                               "WHERE detail IS NOT NULL AND last_at < %s",
                               (now, now - self.detail_retention_days * DAY_S))
            return cur.rowcount

    # ------------------------------------------------------------------ reading
    def past_document(self, table: str, shoe: int) -> dict[str, Any] | None:
        """The stored document of a past shoe (:func:`roads.archive.shoe_document` shape), or ``None``."""
        with self._tx(f"reading table {table!r} shoe {shoe}") as conn:
            row = conn.execute("SELECT doc FROM roads.shoe_docs WHERE table_id = %s AND shoe = %s",
                               (table, shoe)).fetchone()
        return None if row is None else codec.unpack_doc(row[0])

    def past_shoe(self, table: str, shoe: int) -> ShoeRecord | None:
        """See :meth:`HistoryReader.past_shoe`."""
        doc = self.past_document(table, shoe)
        return None if doc is None else shoe_from_document(doc)

    def shoe_numbers(self, table: str) -> list[int]:
        """See :meth:`HistoryReader.shoe_numbers`."""
        with self._tx(f"listing table {table!r}") as conn:
            return [r[0] for r in conn.execute("SELECT shoe FROM roads.shoes WHERE table_id = %s ORDER BY shoe",
                                               (table,))]

    def shoe_summary(self, table: str, shoe: int, *, stats: bool = False) -> ShoeSummary | None:
        """See :meth:`HistoryReader.shoe_summary`."""
        cols = _SUMMARY + (", stats" if stats else "")
        with self._tx(f"reading table {table!r} shoe {shoe}") as conn:
            row = conn.execute(f"SELECT {cols} FROM roads.shoes WHERE table_id = %s AND shoe = %s",
                               (table, shoe)).fetchone()
        return None if row is None else ShoeSummary(*row)

    def shoe_summaries(self, table: str, *, before: int | None = None, limit: int = 50,
                       stats: bool = False) -> list[ShoeSummary]:
        """See :meth:`HistoryReader.shoe_summaries` (one index range: the same cost at any depth)."""
        cols = _SUMMARY + (", stats" if stats else "")
        with self._tx(f"listing table {table!r}") as conn:
            rows = conn.execute(
                f"SELECT {cols} FROM roads.shoes WHERE table_id = %s AND shoe < %s ORDER BY shoe DESC LIMIT %s",
                (table, before if before is not None else 2**31 - 1, limit)).fetchall()
        return [ShoeSummary(*r) for r in rows]

    def shoe_summaries_between(self, start: float, end: float, *, table: str | None = None,
                               stats: bool = True) -> list[ShoeSummary]:
        """See :meth:`HistoryReader.shoe_summaries_between`."""
        cols = _SUMMARY + (", stats" if stats else "")
        where, args = "started_at >= %s AND started_at < %s", [start, end]
        if table is not None:
            where, args = "table_id = %s AND " + where, [table, *args]
        with self._tx("listing shoes by time") as conn:
            rows = conn.execute(f"SELECT {cols} FROM roads.shoes WHERE {where} ORDER BY table_id, shoe", args).fetchall()
        return [ShoeSummary(*r) for r in rows]

    def shoe_detail(self, table: str, shoe: int) -> list[Event] | None:
        """The stored detail of a past shoe (``[]`` when none is stored), or ``None`` when
        retention dropped it."""
        with self._tx(f"reading table {table!r} shoe {shoe}") as conn:
            row = conn.execute("SELECT detail, dropped_at FROM roads.shoe_details WHERE table_id = %s AND shoe = %s",
                               (table, shoe)).fetchone()
        if row is None:
            return []
        if row[1] is not None:
            return None
        return list(codec.unpack_detail(table, shoe, row[0]))

    def detail_events(self, table: str, after: int = 0) -> list[Event]:
        """Every stored event of ``table`` with seq above ``after``, in seq order (the old
        interface's full history). Raises :class:`StoreError` when retention dropped some."""
        with self._tx(f"reading table {table!r}'s details") as conn:
            rows = conn.execute("SELECT shoe, detail, dropped_at FROM roads.shoe_details "
                                "WHERE table_id = %s AND last_seq > %s ORDER BY shoe", (table, after)).fetchall()
        if any(dropped is not None for _, _, dropped in rows):
            raise StoreError(f"table {table!r}: the detail of some shoes is past retention; its full event "
                             "history cannot be given (restore from the live part instead)")
        events = [e for shoe, blob, _ in rows for e in codec.unpack_detail(table, shoe, blob) if e.seq > after]
        events.sort(key=lambda e: e.seq)
        return events

    def detail_seqs(self, table: str) -> dict[int, list[int]]:
        """``{shoe: [seq...]}`` of ``table``'s stored details (tests and checks)."""
        with self._tx(f"reading table {table!r}'s details") as conn:
            rows = conn.execute("SELECT shoe, detail FROM roads.shoe_details WHERE table_id = %s AND detail IS NOT NULL",
                                (table,)).fetchall()
        return {shoe: [e.seq for e in codec.unpack_detail(table, shoe, blob)] for shoe, blob in rows}
