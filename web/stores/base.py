"""Durable storage of table events behind a small interface (:class:`Store`).

The unit of storage is a :class:`roads.events.Event` (re-exported here): one accepted feed
write (a shoe start, a round, a void, a correction) of one table, numbered by ``seq`` = 1, 2,
3, ... per table with no gaps. A table's state (its shoes, rounds and roads) is a pure
function of its event sequence (:class:`roads.table.Table`), and ``seq`` is the table's
version after the event, so replaying the stored events rebuilds every table exactly,
version for version.

The service validates a write against its in-memory state and then calls :meth:`Store.append`
with the next ``seq``; the store makes it durable before returning, or raises. A store shared
by several processes (the Redis store, :mod:`web.stores.redis`) refuses a ``seq`` that another process took
(:class:`SeqTaken`); the service then catches up with :meth:`Store.events_after`, validates
again and retries. Events appended by other processes reach the service through the callback
given to :meth:`Store.start`. A shared store also holds ``ROADS_MAX_TABLES`` for every process
at once (:class:`TableLimitReached`): only it sees every process's tables.

:class:`web.stores.sqlite.SqliteStore` (the default, single process) keeps every event in one
SQLite file in WAL mode with ``synchronous=FULL``: a committed event survives a killed
process and a power cut.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Sequence

from roads.archive import Commit, LivePart, PastShoes
from roads.events import EVENT_KINDS, Event
from roads.record import RoundRecord, ShoeRecord

__all__ = ["Commit", "EVENT_KINDS", "Event", "HistoryReader", "HistoryStore", "LivePart", "SeqTaken", "ShoeSummary", "Store",
           "StoreError", "StoreUnavailable", "TableLimitReached"]


class StoreError(Exception):
    """Base class of store failures."""


class SeqTaken(StoreError):
    """The event's ``(table, seq)`` (or its ``(table, shoe, round)`` round) is already stored:
    another writer appended first. Nothing was written; catch up and validate again."""


class TableLimitReached(StoreError):
    """The event would open one table more than the store may hold (``ROADS_MAX_TABLES``,
    counted over every process sharing the store); ``count`` is the tables it holds. Nothing was
    written; the service answers 403 ``too_many_tables``."""

    def __init__(self, message: str, count: int) -> None:
        super().__init__(message)
        self.count = count


class StoreUnavailable(StoreError):
    """The store cannot take the write now (disk full, database locked, Redis unreachable).
    Nothing was written; the service answers 503 with the message. ``detail`` says where and
    why for the operator (the Redis address and the driver's error): logged and printed at
    start, never sent to a client."""

    def __init__(self, message: str, *, detail: str | None = None) -> None:
        super().__init__(message)
        self.detail = detail


class Store(abc.ABC):
    """Where a table's events are kept. Implementations: :class:`SqliteStore`, the Redis store."""

    shared: bool = False
    """Whether other processes append to this store too (Redis): a process's record may then be
    behind the store's, and the service catches up before it answers a write "unchanged"."""

    @abc.abstractmethod
    def load(self) -> Iterator[Event]:
        """Every stored event, each table's in ``seq`` order (tables may interleave)."""

    @abc.abstractmethod
    def append(self, event: Event) -> None:
        """Store ``event`` durably before returning.

        Raises :class:`SeqTaken` when ``(event.table, event.seq)`` is taken (or, for a
        ``"round"`` event, when ``(table, shoe, round)`` already has a round),
        :class:`TableLimitReached` (a shared store only) when the event would open a table past
        ``ROADS_MAX_TABLES``, and :class:`StoreUnavailable` when the write cannot be made; in
        every case nothing is stored.
        """

    @abc.abstractmethod
    def events_after(self, table: str, seq: int) -> list[Event]:
        """``table``'s events with ``seq`` greater than ``seq``, in order (catching up)."""

    def start(self, on_event: Callable[[Event], None]) -> None:
        """Begin delivering events appended by *other* processes to ``on_event`` (from a
        background thread). A single-process store (SQLite) has none: the default does nothing."""

    def close(self) -> None:
        """Release connections and threads. The default does nothing."""


@dataclass(frozen=True, slots=True)
class ShoeSummary:
    """One past shoe's summary row: ``table``, ``shoe``, ``version``, ``started_at`` and
    ``ended_at`` (Unix seconds), ``rounds`` (recorded, voided included), ``line`` (JSON text of
    its shoe-list line, :attr:`roads.archive.ArchivedShoe.line`: the bytes the API serves, UTF-8)
    and ``stats`` (JSON text of :func:`roads.archive.shoe_stats`; ``None`` unless asked for)."""

    table: str
    shoe: int
    version: int
    started_at: float
    ended_at: float
    rounds: int
    line: str
    stats: str | None = None


class HistoryReader(abc.ABC):
    """Where past shoes are read from (docs/history.md): documents, summaries and details, written
    with the event that closes or changes a shoe. Every read costs one shoe or one page, never the
    history. Implementations: every :class:`HistoryStore`, and the PostgreSQL history of several
    processes (:class:`web.stores.postgres.PostgresHistory`)."""

    @abc.abstractmethod
    def past_shoe(self, table: str, shoe: int) -> ShoeRecord | None:
        """Past shoe ``shoe`` of ``table`` rebuilt from its document, or ``None`` (no such past shoe)."""

    def past_shoes(self, table: str) -> PastShoes:
        """The past shoes of ``table`` read from this store (``Table(past=...)``): each ``get`` reads
        the document (the read model caches snapshots, not records), ``put`` keeps nothing (the
        store has the shoe already)."""
        return _StorePast(self, table)

    @abc.abstractmethod
    def shoe_numbers(self, table: str) -> list[int]:
        """Every past shoe number of ``table``, ascending."""

    @abc.abstractmethod
    def shoe_summary(self, table: str, shoe: int, *, stats: bool = False) -> ShoeSummary | None:
        """Past shoe ``shoe``'s summary row, or ``None``."""

    @abc.abstractmethod
    def shoe_summaries(self, table: str, *, before: int | None = None, limit: int = 50,
                       stats: bool = False) -> list[ShoeSummary]:
        """``table``'s past shoes newest first, numbered below ``before`` (a cursor: the last
        shoe of the previous page), at most ``limit``; with ``stats``, their statistics too."""

    @abc.abstractmethod
    def shoe_summaries_between(self, start: float, end: float, *, table: str | None = None,
                               stats: bool = True) -> list[ShoeSummary]:
        """Past shoes that started in ``[start, end)`` (Unix seconds), of ``table`` or of every
        table, by table then shoe."""

    def stream_rounds(self, table: str, shoes: Iterable[int]) -> Iterator[tuple[int, RoundRecord]]:
        """``(shoe, round)`` for every recorded round of the past shoes ``shoes``, in that order,
        reading one document at a time (exports never hold more)."""
        for number in shoes:
            s = self.past_shoe(table, number)
            if s is not None:
                for r in s.rounds:
                    yield number, r

    @abc.abstractmethod
    def shoe_detail(self, table: str, shoe: int) -> list[Event] | None:
        """Every event of a past shoe (cards, states, voids ...), in seq order, or ``None`` when
        its detail is past retention."""

    def apply_retention(self, now: float | None = None) -> int:
        """Drop the details older than the store's retention (``ROADS_DETAIL_RETENTION_DAYS``;
        nothing when unset); every round stays in the documents. Returns the details dropped.
        The default keeps everything."""
        return 0


class HistoryStore(Store, HistoryReader):
    """A store that keeps history on disk (docs/history.md): the live part of every table for the
    start, and past shoes as documents and summaries written with the event that closes or
    changes them. Start, memory and the cost of a write depend on the live tables, not on history.

    The service's loop: ``Table.restore(part, past=store.past_shoes(part.table))`` for each of
    :meth:`load_live`; per write ``event = table.decide(...)``, ``store.commit(table.commit(event))``,
    ``table.apply(event)``.
    """

    @abc.abstractmethod
    def load_live(self) -> Iterator[LivePart]:
        """Every table's live part (:class:`roads.archive.LivePart`), tables in id order. Raises
        :class:`StoreError` for a table whose history cannot be read."""

    @abc.abstractmethod
    def commit(self, commit: Commit) -> None:
        """Store ``commit.event`` with what it closes or changes (the shoe's document and summary,
        never an older version over a newer one) and the table's head, in one transaction,
        durable on return. Raises as :meth:`Store.append` (:class:`SeqTaken` also when the event
        is not the table's next)."""

    @abc.abstractmethod
    def commit_many(self, commits: Sequence[Commit]) -> None:
        """:meth:`commit` each, in order, all in one transaction (bulk writers: one fsync)."""

    def compact(self, *, table: str | None = None, limit: int | None = None) -> int:
        """Move closed shoes' events out of the live log (the SQLite store: into a compressed
        detail per shoe; Redis: to PostgreSQL); returns the shoes moved. The default moves nothing."""
        return 0


class _StorePast:
    """:class:`roads.archive.PastShoes` over a :class:`HistoryReader` (see :meth:`HistoryReader.past_shoes`)."""

    __slots__ = ("store", "table")

    def __init__(self, store: HistoryReader, table: str) -> None:
        self.store = store
        self.table = table

    def get(self, number: int) -> ShoeRecord | None:
        return self.store.past_shoe(self.table, number)

    def put(self, shoe: Any) -> None:
        pass

    def numbers(self) -> list[int]:
        return self.store.shoe_numbers(self.table)
