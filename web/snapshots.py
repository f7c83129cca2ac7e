"""A table's snapshot and lobby entry as readers get them, each encoded to JSON once.

:func:`table_view` builds a table's :class:`TableView` from its record after every change: the
snapshot (``roads/schema/snapshot.schema.json`` plus ``name``, ``live`` and, while there is
something to say, ``in_progress``, ``state`` and ``alarm``) and the table's lobby entry. :func:`build`
makes the snapshot of any shoe (a past one too). :func:`encode` is the one JSON encoding of
everything the service answers; :class:`Encoded` makes it when first asked for.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Protocol

import orjson

from roads.good_roads import CustomRoad, with_custom
from roads.shoe_roads import ShoeRoads
from roads.snapshot import build_snapshot
from roads.table import ShoeRecord, Table


class Slot(Protocol):
    """What a table's snapshot is built from: its id, its display name, its record and the
    operator's good-road patterns (a
    :class:`web.tables.TableSlot`, which in turn holds the :class:`TableView` built here)."""

    id: str
    name: str
    table: Table
    custom: tuple[CustomRoad, ...]


def state_json(table: Table) -> dict[str, Any]:
    """The table's state for readers: ``{"state", "since", "closes_at", "dealer", "limits"}``
    (:meth:`roads.table_state.TableStatus.to_json`, configured limits unless the feed set others)."""
    return table.status.to_json(table.limits)


def encode(obj: Any) -> bytes:
    """Compact UTF-8 JSON (non-ASCII kept, key order as built): every snapshot's one encoding.

    The bytes are exactly ``json.dumps(obj, ensure_ascii=False, separators=(",", ":"))`` in
    UTF-8; orjson makes them about ten times faster (``bench/bench_push.py``). orjson spells
    two things differently, floats below 1e-4 (``0.00001`` / ``1e-7`` for ``1e-05`` /
    ``1e-07``) and nothing else our documents hold, so output containing ``0.0000`` or
    ``e-`` (or that orjson refuses, e.g. an integer beyond 64 bits) comes from ``json``.
    """
    try:
        out = orjson.dumps(obj)
    except TypeError:
        out = None
    if out is None or b"0.0000" in out or b"e-" in out:
        out = json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return out


class Encoded:
    """``obj``'s :func:`encode` bytes, made on the first call and kept (a snapshot's JSON is
    needed only by API reads, snapshot sockets and deltas too big for their rule; a busy table
    nobody polls never spends the ~0.1 ms of a 34 KB encoding). Two threads calling at once may
    both encode; they get equal bytes."""

    __slots__ = ("_obj", "_bytes")

    def __init__(self, obj: Any) -> None:
        self._obj = obj
        self._bytes: bytes | None = None

    def __call__(self) -> bytes:
        data = self._bytes
        if data is None:
            data = self._bytes = encode(self._obj)
        return data


@dataclass(frozen=True, slots=True)
class TableView:
    """What readers see of a table, replaced whole after every write (never mutated).
    ``encoded`` and ``lobby_encoded`` give the JSON bytes of ``snapshot`` and ``lobby_entry``
    (:class:`Encoded`: built when first asked for)."""

    version: int
    snapshot: dict[str, Any]
    encoded: Encoded
    lobby_entry: dict[str, Any]
    lobby_encoded: Encoded


def build(t: Slot, s: ShoeRecord | None, roads: ShoeRoads | None, version: int, *, live: bool) -> dict[str, Any]:
    """The snapshot of shoe ``s`` of table ``t`` (``None``: a configured table before its first
    shoe, shoe 1 awaiting round 1) from ``roads``, at ``version``, its good roads with the
    operator's patterns ``t.custom`` in priority order; ``live``: the current shoe,
    with the round being dealt and the table's state (caller holds the table's lock)."""
    if s is None:
        snap = build_snapshot(table=t.id, shoe=1, version=version, roads=ShoeRoads(),
                              variant=t.table.default_variant())
    else:
        snap = build_snapshot(table=t.id, shoe=s.number, version=version, roads=roads, variant=s.variant)
    if t.custom and roads is not None and s is not None:  # the operator's patterns, by priority
        big = roads.big_road
        snap["good_roads"] = with_custom(snap["good_roads"], t.custom, big.lengths, big.winners)
    snap["name"] = t.name
    snap["live"] = live
    if live:  # keys only when there is something to say: result-only feeds keep their bytes
        if s is not None and s.in_progress is not None:
            snap["in_progress"] = s.in_progress.to_json()
        if not t.table.status.blank or t.table.limits is not None:
            snap["state"] = state_json(t.table)
        if s is not None:
            held = s.held_rounds()
            if held:
                snap["alarm"] = alarm_json(held)
    return snap


def alarm_json(held: list[Any]) -> dict[str, Any]:
    """The snapshot's ``alarm`` while rounds of the live shoe are held for the supervisor
    (docs/shoes.md): ``{"round", "reason", "message"}`` of the first, plus ``"held"``: how many."""
    first = held[0]
    return {"round": first.number, "reason": first.held["reason"], "message": first.held["message"],
            "held": len(held)}


def table_view(t: Slot) -> TableView:
    """The view of ``t``'s current shoe at the table's version: its snapshot and its lobby entry
    ``{"id", "name", "variant": {"id", "name"}, "shoe", "round", "last", "good_roads",
    "side_bets", "version", "big_road"}`` plus ``in_progress``, ``state`` and ``alarm`` when the
    snapshot has them (caller holds the table's lock)."""
    table = t.table
    s = table.current
    snap = build(t, s, s.roads if s is not None else None, table.seq, live=True)
    variant = s.variant if s is not None else table.default_variant()
    entry = {
        "id": t.id,
        "name": t.name,
        "variant": {"id": variant.id, "name": variant.name},
        "shoe": snap.get("shoe", 0),
        "round": snap.get("round", 0),
        "last": snap.get("last"),
        "good_roads": snap.get("good_roads", []),
        "side_bets": snap.get("side_bets", []),
        "version": table.seq,
        "big_road": snap.get("big_road"),
    }
    for key in ("in_progress", "state", "alarm"):
        if key in snap:
            entry[key] = snap[key]
    return TableView(table.seq, snap, Encoded(snap), entry, Encoded(entry))
