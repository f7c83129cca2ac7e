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
from typing import Callable, Iterator

from roads.events import EVENT_KINDS, Event

__all__ = ["EVENT_KINDS", "Event", "SeqTaken", "Store", "StoreError", "StoreUnavailable", "TableLimitReached"]


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
