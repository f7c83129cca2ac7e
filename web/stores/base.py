"""Durable storage of table events behind a small interface (:class:`Store`), and the SQLite store.

The unit of storage is an :class:`Event`: one accepted feed write (a shoe start, a round, a
void, a correction) of one table, numbered by ``seq`` = 1, 2, 3, ... per table with no gaps.
A table's state (its shoes, rounds and roads) is a pure function of its event sequence, and
``seq`` is the table's version after the event, so replaying the stored events rebuilds every
table exactly, version for version (a restart replays the stored events).

The service validates a write against its in-memory state and then calls :meth:`Store.append`
with the next ``seq``; the store makes it durable before returning, or raises. A store shared
by several processes (the Redis store, :mod:`web.stores.redis`) refuses a ``seq`` that another process took
(:class:`SeqTaken`); the service then catches up with :meth:`Store.events_after`, validates
again and retries. Events appended by other processes reach the service through the callback
given to :meth:`Store.start`.

:class:`SqliteStore` (the default, single process) keeps every event in one SQLite file in WAL
mode with ``synchronous=FULL``: a committed event survives a killed process and a power cut.
"""

from __future__ import annotations

import abc
import json
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Mapping

EVENT_KINDS = ("shoe", "round", "void", "correct")
"""The kinds of event: a shoe started explicitly, a round recorded, voided, corrected."""


@dataclass(frozen=True, slots=True)
class Event:
    """One accepted feed write of one table (immutable).

    ``table``: table id. ``seq``: 1-based position in the table's event sequence, consecutive
    with no gaps; the table's version once the event is applied. ``kind``: one of
    :data:`EVENT_KINDS`. ``shoe``: shoe number. ``round``: round number within the shoe
    (``None`` for ``"shoe"``). ``data``: JSON-ready payload (shapes in :mod:`web.service`).
    ``at``: server clock when the write was accepted, Unix time in seconds.
    """

    table: str
    seq: int
    kind: str
    shoe: int
    round: int | None
    data: Mapping[str, Any] = field(hash=False)
    at: float = 0.0

    def __post_init__(self) -> None:
        if self.kind not in EVENT_KINDS:
            raise ValueError(f"event kind must be one of {EVENT_KINDS}, got {self.kind!r}")
        if self.seq < 1:
            raise ValueError(f"event seq must be >= 1, got {self.seq!r}")

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict with every field (the round trip of :meth:`from_json`)."""
        return {"table": self.table, "seq": self.seq, "kind": self.kind, "shoe": self.shoe,
                "round": self.round, "data": dict(self.data), "at": self.at}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "Event":
        """Inverse of :meth:`to_json`; raises ``KeyError``/``ValueError`` on a bad dict."""
        return cls(table=d["table"], seq=int(d["seq"]), kind=d["kind"], shoe=int(d["shoe"]),
                   round=None if d.get("round") is None else int(d["round"]),
                   data=d["data"], at=float(d["at"]))

    def data_json(self) -> str:
        """``data`` as compact JSON text with sorted keys (what the stores keep)."""
        return json.dumps(self.data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class StoreError(Exception):
    """Base class of store failures."""


class SeqTaken(StoreError):
    """The event's ``(table, seq)`` (or its ``(table, shoe, round)`` round) is already stored:
    another writer appended first. Nothing was written; catch up and validate again."""


class StoreUnavailable(StoreError):
    """The store cannot take the write now (disk full, database locked, Redis unreachable).
    Nothing was written; the service answers 503."""


class Store(abc.ABC):
    """Where a table's events are kept. Implementations: :class:`SqliteStore`, the Redis store."""

    @abc.abstractmethod
    def load(self) -> Iterator[Event]:
        """Every stored event, each table's in ``seq`` order (tables may interleave)."""

    @abc.abstractmethod
    def append(self, event: Event) -> None:
        """Store ``event`` durably before returning.

        Raises :class:`SeqTaken` when ``(event.table, event.seq)`` is taken (or, for a
        ``"round"`` event, when ``(table, shoe, round)`` already has a round), and
        :class:`StoreUnavailable` when the write cannot be made; in both cases nothing is stored.
        """

    @abc.abstractmethod
    def events_after(self, table: str, seq: int) -> list[Event]:
        """``table``'s events with ``seq`` greater than ``seq``, in order (catching up)."""

    def start(self, on_event: Callable[[Event], None]) -> None:
        """Begin delivering events appended by *other* processes to ``on_event`` (from a
        background thread). A single-process store (SQLite) has none: the default does nothing."""

    def close(self) -> None:
        """Release connections and threads. The default does nothing."""
