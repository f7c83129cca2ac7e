"""The read model: every table's snapshot and lobby entry, the lobby bytes, past shoes' snapshots,
shoe listings and round exports, built from the tables' records (:class:`roads.table.Table`).

:class:`Views` holds the known tables (:class:`TableSlot`: a record, its lock, its display
name and its current :class:`TableView`) in lobby order. After every change of a table the
service calls :meth:`Views.refresh`: the table's new snapshot and lobby entry are built and
encoded once, swapped in whole, and published to the hub: topic ``f"table:{table_id}"``
(payload: snapshot JSON, document: the snapshot, version: the table's version) and
``"lobby"`` (document: the list of :meth:`Views.list_tables`, payload: its JSON, joined only
when asked for; version: the sum of all table versions). The lobby is updated in place: the
table's entry is swapped into the list and the lobby message carries the delta of that one
entry, so a write costs the same whatever the number of tables (docs/frontend.md).

Snapshot reads (``snapshot``, ``snapshot_json``, ``table``, ``list_tables``, ``lobby_json``:
the API, pages, PNG and WebSocket hot paths) never take a table lock: they read the table's
latest immutable view. Shoe listings, exports and the rebuild of a past shoe's snapshot read
the record, so they hold the table's lock while they copy it out. Returned dicts are shared:
do not mutate them. An unknown table or shoe raises :class:`roads.errors.UnknownTable` /
:class:`roads.errors.UnknownShoe` (the HTTP edge answers 404 ``unknown_table`` /
``unknown_shoe``, ``web.http.errors``).
"""

from __future__ import annotations

import collections
import contextlib
import json
import threading
from dataclasses import dataclass
from typing import Any, Iterator, Mapping

import orjson

from roads.errors import UnknownTable
from roads.live import SetState
from roads.shoe_roads import ShoeRoads
from roads.snapshot import build_snapshot
from roads.table import ShoeRecord, Table
from web.push.delta import diff
from web.push import topics
from web.push.hub import Hub

PAST_SHOE_CACHE = 64
"""Snapshots of past shoes kept in memory (LRU, per service); older ones are rebuilt on demand
by replaying the shoe's recorded operations."""


def state_json(table: Table) -> dict[str, Any]:
    """The table's state for readers: ``{"state", "since", "closes_at", "dealer", "limits"}``
    (:meth:`roads.live.TableStatus.to_json`, configured limits unless the feed set others)."""
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


class TableSlot:
    """One known table: its record (``table``), the lock its writers and record readers hold,
    its display name, whether it is configured, and its current :class:`TableView`."""

    def __init__(self, table_id: str, name: str | None, variant_id: str | None, configured: bool,
                 limits: Mapping[str, Any] | None = None) -> None:
        self.id = table_id
        self.name = name or table_id
        self.configured = configured
        self.lock = threading.Lock()
        self.table = Table(table_id, variant_id, limits=limits)
        self.view: TableView | None = None

    @property
    def visible(self) -> bool:
        """Configured, or has at least one stored event (a refused first write leaves no table)."""
        return self.configured or self.table.seq > 0


class Views:
    """The known tables in lobby order and everything readers get from them (see module doc)."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.slots: dict[str, TableSlot] = {}
        self.order: list[str] = []
        """Lobby order: configured tables in configuration order, then the others by id."""
        self._registry_lock = threading.Lock()
        self._lobby_lock = threading.Lock()
        self._lobby_version = 0
        self._lobby_ids: list[str] = []  # the visible tables in lobby order, as last published
        self._lobby_index: dict[str, int] = {}
        self._lobby_entries: list[dict[str, Any]] = []
        self._lobby_parts: list[Encoded] = []
        self._lobby_stale = True  # the order changed: rebuild before the next in-place update
        self._past: collections.OrderedDict[tuple[str, int], tuple[int, dict[str, Any], Encoded]] = collections.OrderedDict()
        self._past_lock = threading.Lock()

    # ------------------------------------------------------------------ the tables
    def add_configured(self, table_id: str, name: str | None, variant_id: str | None,
                       limits: Mapping[str, Any] | None = None) -> None:
        """Register a configured table (before loading), at the end of the configured ones.
        Raises the :mod:`roads.errors` error of bad ``limits``."""
        self.slots[table_id] = TableSlot(table_id, name, variant_id, configured=True, limits=limits)
        self.order.append(table_id)

    def slot(self, table_id: str) -> TableSlot:
        """The slot of ``table_id``, created (unconfigured, not yet visible) when new. Only for
        loading (one thread); writers take a slot with :meth:`locked`."""
        t = self.slots.get(table_id)
        if t is not None:
            return t
        with self._registry_lock:
            return self.slots.setdefault(table_id, TableSlot(table_id, None, None, configured=False))

    @contextlib.contextmanager
    def locked(self, table_id: str) -> Iterator[TableSlot]:
        """The slot of ``table_id`` with its lock held for the ``with`` block, created when new.
        A slot still not visible when the block ends (its first write refused, or nothing in the
        store) is dropped, so refused writes to new ids leave nothing in memory; a writer that
        waited for the lock of a dropped slot takes a fresh one."""
        while True:
            t = self.slot(table_id)
            with t.lock:
                if self.slots.get(table_id) is not t:
                    continue  # dropped while this writer waited for its lock
                try:
                    yield t
                finally:
                    if not t.visible:
                        with self._registry_lock:
                            if self.slots.get(table_id) is t:
                                del self.slots[table_id]
                return

    def sort_order(self) -> None:
        """Configured tables first in configuration order, then every other known table by id."""
        with self._registry_lock:
            configured = [i for i in self.order if self.slots[i].configured]
            self.order = configured + sorted(i for i, t in self.slots.items() if not t.configured)
            self._lobby_stale = True

    def add_to_order(self, table_id: str) -> None:
        """Give a table that just became visible its place in the lobby order (no-op when it has one)."""
        if table_id in self.order:
            return
        with self._registry_lock:
            configured = [i for i in self.order if self.slots[i].configured]
            others = sorted({i for i in self.order if not self.slots[i].configured} | {table_id})
            self.order = configured + others
            self._lobby_stale = True

    def visible(self, table_id: str) -> TableSlot:
        """The slot of a visible table; raises :class:`roads.errors.UnknownTable`."""
        t = self.slots.get(table_id)
        if t is None or not t.visible or t.view is None:
            raise UnknownTable(f"no table {table_id!r}", field="table_id")
        return t

    @staticmethod
    def _shoe(t: TableSlot, number: int) -> ShoeRecord:
        """Shoe ``number`` of ``t``; raises :class:`roads.errors.UnknownShoe`."""
        return t.table.shoe(number)

    # ------------------------------------------------------------------ reads
    def table(self, table_id: str) -> dict[str, Any]:
        """``{"id", "name", "variant": {"id", "name"}}`` (the current shoe's variant, else the
        configured one). Raises :class:`roads.errors.UnknownTable` / :class:`roads.errors.UnknownShoe`."""
        t = self.visible(table_id)
        v = t.view.lobby_entry["variant"]  # type: ignore[union-attr]
        return {"id": t.id, "name": t.name, "variant": v}

    def list_tables(self) -> list[dict[str, Any]]:
        """Every visible table in lobby order: ``{"id", "name", "variant": {"id", "name"},
        "shoe", "round", "last", "good_roads", "side_bets", "version", "big_road"}`` (before the
        first shoe: ``shoe`` 1, ``round`` 0, empty roads)."""
        out = []
        for table_id in self.order:
            t = self.slots.get(table_id)
            if t is not None and t.visible and t.view is not None:
                out.append(t.view.lobby_entry)
        return out

    def lobby_json(self) -> tuple[int, bytes]:
        """``(lobby version, JSON of list_tables())``, joined once per change, when first asked for."""
        message = self.hub.latest(topics.LOBBY)
        if message is None:
            return 0, b"[]"
        return message.version, message.payload

    def snapshot(self, table_id: str, shoe: int | None = None) -> dict[str, Any]:
        """The snapshot dict (``roads.snapshot`` shape plus ``name`` and ``live``) of the current
        shoe (``shoe`` None) or of shoe ``shoe``. Raises :class:`roads.errors.UnknownTable` / :class:`roads.errors.UnknownShoe`."""
        return self._snapshot(table_id, shoe)[1]

    def snapshot_json(self, table_id: str, shoe: int | None = None) -> tuple[int, bytes]:
        """``(version, snapshot JSON bytes)``, encoded once per version; raises as :meth:`snapshot`."""
        version, _, data = self._snapshot(table_id, shoe)
        return version, data()

    def _snapshot(self, table_id: str, shoe: int | None) -> tuple[int, dict[str, Any], Encoded]:
        """``(version, snapshot, its Encoded JSON)`` of the current shoe or of shoe ``shoe``."""
        t = self.visible(table_id)
        view: TableView = t.view  # type: ignore[assignment]  # visible() checked it
        if shoe is None or shoe == view.snapshot.get("shoe"):
            if shoe is not None:
                self._shoe(t, shoe)  # a configured table shows shoe 1 before it exists
            return view.version, view.snapshot, view.encoded
        return self._past_snapshot(t, shoe)

    def _past_snapshot(self, t: TableSlot, number: int) -> tuple[int, dict[str, Any], Encoded]:
        s = self._shoe(t, number)
        key = (t.id, number)
        with self._past_lock:
            hit = self._past.get(key)
            if hit is not None and hit[0] == s.version:
                self._past.move_to_end(key)
                return hit
        with t.lock:
            roads = s.replay_roads()
            snap = self._build(t, s, roads, s.version, live=False)
        entry = (s.version, snap, Encoded(snap))
        with self._past_lock:
            self._past[key] = entry
            self._past.move_to_end(key)
            while len(self._past) > PAST_SHOE_CACHE:
                self._past.popitem(last=False)
        return entry

    def shoes(self, table_id: str) -> list[dict[str, Any]]:
        """Every shoe of the table, oldest first (:meth:`roads.table.ShoeRecord.summary` lines).
        Raises :class:`roads.errors.UnknownTable` / :class:`roads.errors.UnknownShoe`."""
        t = self.visible(table_id)
        with t.lock:
            cur = t.table.current
            return [s.summary(s is cur) for _, s in sorted(t.table.shoes.items())]

    def shoe(self, table_id: str, shoe: int) -> dict[str, Any]:
        """One line of :meth:`shoes`. Raises :class:`roads.errors.UnknownTable` / :class:`roads.errors.UnknownShoe`."""
        t = self.visible(table_id)
        with t.lock:
            s = self._shoe(t, shoe)
            return s.summary(s is t.table.current)

    def rounds(self, table_id: str, shoe: int) -> list[dict[str, Any]]:
        """Every recorded round of a shoe for export, voided ones included
        (:meth:`roads.table.RoundRecord.export`). Raises as :meth:`shoe`."""
        t = self.visible(table_id)
        with t.lock:
            return [r.export(shoe) for r in self._shoe(t, shoe).rounds]

    @staticmethod
    def ack(t: TableSlot, status: str, write: Any, shoe: int, round_no: int | None = None) -> dict[str, Any]:
        """The response body of a write: ``{"status", "table", "version", "shoe"}`` plus, for a
        round, ``"round"``, its ``"result"`` and ``"void"`` as stored now, or ``"in_progress"``
        while it is dealt card by card; for a table state, ``{"status", "table", "version",
        "state"}`` (caller holds the lock)."""
        table = t.table
        if isinstance(write, SetState):
            return {"status": status, "table": t.id, "version": table.seq, "state": state_json(table)}
        body: dict[str, Any] = {"status": status, "table": t.id, "version": table.seq, "shoe": shoe}
        if round_no is not None:
            body["round"] = round_no
            s = table.shoes.get(shoe)
            stored = s.round(round_no) if s is not None else None
            if stored is not None:
                body["result"] = None if stored.result is None else stored.result.to_json()
                body["void"] = stored.void_json()
            elif s is not None and s.in_progress is not None and s.in_progress.number == round_no:
                body["in_progress"] = s.in_progress.to_json()
        return body

    # ------------------------------------------------------------------ building and publishing
    def _build(self, t: TableSlot, s: ShoeRecord | None, roads: ShoeRoads | None, version: int, *,
               live: bool) -> dict[str, Any]:
        if s is None:  # a configured table before its first shoe: shoe 1 awaiting round 1
            snap = build_snapshot(table=t.id, shoe=1, version=version, roads=ShoeRoads(),
                                  variant=t.table.default_variant())
        else:
            snap = build_snapshot(table=t.id, shoe=s.number, version=version, roads=roads, variant=s.variant)
        snap["name"] = t.name
        snap["live"] = live
        if live:  # keys only when there is something to say: result-only feeds keep their bytes
            if s is not None and s.in_progress is not None:
                snap["in_progress"] = s.in_progress.to_json()
            if not t.table.status.blank or t.table.limits is not None:
                snap["state"] = state_json(t.table)
        return snap

    def refresh(self, t: TableSlot, *, publish_lobby: bool = True) -> None:
        """Build the table's new view from its current shoe and publish it (caller holds the lock)."""
        table = t.table
        s = table.current
        snap = self._build(t, s, s.roads if s is not None else None, table.seq, live=True)
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
        for key in ("in_progress", "state"):
            if key in snap:
                entry[key] = snap[key]
        view = TableView(table.seq, snap, Encoded(snap), entry, Encoded(entry))
        previous, t.view = t.view, view
        self.hub.publish(topics.table(t.id), view.version, view.encoded, document=snap)
        if publish_lobby:
            self._update_lobby(t, previous)

    def _update_lobby(self, t: TableSlot, previous: TableView | None) -> None:
        """Put ``t``'s new lobby entry in place and publish the lobby with the delta of that one
        table. O(1) in the number of tables, apart from copying the list of references (the
        published list is never changed afterwards); the lobby's JSON is joined only when
        someone asks for it (:meth:`lobby_json`, a snapshot frame)."""
        with self._lobby_lock:
            i = self._lobby_index.get(t.id)
            if self._lobby_stale or i is None or t.view is None:
                self._publish_lobby_locked()
                return
            view = t.view
            old_entry = self._lobby_entries[i]
            entries = self._lobby_entries.copy()
            parts = self._lobby_parts.copy()
            entries[i], parts[i] = view.lobby_entry, view.lobby_encoded
            self._lobby_version += view.version - (previous.version if previous is not None else 0)
            self._lobby_entries, self._lobby_parts = entries, parts
            self.hub.publish(topics.LOBBY, self._lobby_version, _joined(parts), document=entries,
                             ops=_entry_ops(i, old_entry, view.lobby_entry))

    def publish_lobby(self) -> None:
        """Rebuild the lobby list from every visible table's view (in lobby order) and publish it."""
        with self._lobby_lock:
            self._publish_lobby_locked()

    def _publish_lobby_locked(self) -> None:
        ids, entries, parts = [], [], []
        total = 0
        for table_id in list(self.order):
            t = self.slots.get(table_id)
            if t is not None and t.visible and t.view is not None:
                ids.append(table_id)
                entries.append(t.view.lobby_entry)
                parts.append(t.view.lobby_encoded)
                total += t.view.version
        self._lobby_ids, self._lobby_entries, self._lobby_parts = ids, entries, parts
        self._lobby_index = {table_id: i for i, table_id in enumerate(ids)}
        self._lobby_version = total
        self._lobby_stale = False
        self.hub.publish(topics.LOBBY, total, _joined(parts), document=entries)


def _entry_ops(i: int, old: dict[str, Any], new: dict[str, Any]) -> Any:
    """A function giving the lobby delta of entry ``i`` changing from ``old`` to ``new`` (built
    when called: only when a lobby screen or the nchan publisher needs that delta)."""
    return lambda: [[op[0], [i, *op[1]], *op[2:]] for op in diff(old, new)]


def _joined(parts: list[Encoded]) -> Any:
    """A function giving the JSON list of the entries ``parts`` (built when called)."""
    return lambda: b"[" + b",".join(part() for part in parts) + b"]"
