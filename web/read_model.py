"""The read model: every table's snapshot and lobby entry, the lobby list, past shoes' snapshots,
shoe listings and round exports, from the tables' records (:mod:`web.tables`).

After every change of a table the service calls :meth:`ReadModel.refresh`: the table's new
view (:func:`web.snapshots.table_view`: snapshot and lobby entry, each encoded once) is swapped
in whole and published to the hub: topic ``table:<table_id>`` (payload: the snapshot JSON,
document: the snapshot, version: the table's version), the lobby (:class:`web.push.lobby.LobbyTopic`:
the list of :meth:`ReadModel.list_tables`, updated in place; version: the sum of all table versions)
and the floor's good roads (:class:`web.push.floor_good_roads.GoodRoadsTopic`, when they changed).

Snapshot reads (``snapshot``, ``snapshot_json``, ``table``, ``list_tables``, ``lobby_json``:
the API, pages, PNG and WebSocket hot paths) never take a table lock: they read the table's
latest immutable view. Shoe listings, exports and the rebuild of a past shoe's snapshot read
the record, so they hold the table's lock while they copy it out (past shoes' snapshots are
kept in a bounded cache, :data:`PAST_SHOE_CACHE`). Returned dicts are shared: do not mutate
them. An unknown table or shoe raises :class:`roads.errors.UnknownTable` /
:class:`roads.errors.UnknownShoe` (the HTTP edge answers 404 ``unknown_table`` /
``unknown_shoe``, ``web.http.errors``).
"""

from __future__ import annotations

import collections
import threading
from typing import Any

from roads.good_roads import CustomRoad, catalogue
from roads.table import ShoeRecord
from web import snapshots
from web.push import topics
from web.push.hub import Hub
from web.push.floor_good_roads import GoodRoadsTopic
from web.push.lobby import LobbyTopic
from web.snapshots import Encoded, TableView
from web.tables import Tables, TableSlot

PAST_SHOE_CACHE = 64
"""Snapshots of past shoes kept in memory (LRU, per service); older ones are rebuilt on demand
by replaying the shoe's recorded operations."""


class ReadModel:
    """The known tables (:attr:`tables`, showing the operator's good-road patterns ``custom``) and
    everything readers get from them (see module doc)."""

    def __init__(self, hub: Hub, custom: tuple[CustomRoad, ...] = ()) -> None:
        self.hub = hub
        self.tables = Tables(custom)
        self.lobby = LobbyTopic(hub)
        self.good_roads = GoodRoadsTopic(hub, catalogue(custom))
        self._past: collections.OrderedDict[tuple[str, int], tuple[int, dict[str, Any], Encoded]] = collections.OrderedDict()
        self._past_lock = threading.Lock()

    # ------------------------------------------------------------------ reads
    def table(self, table_id: str) -> dict[str, Any]:
        """``{"id", "name", "variant": {"id", "name"}}`` (the current shoe's variant, else the
        configured one). Raises :class:`roads.errors.UnknownTable`."""
        t = self.tables.visible(table_id)
        v = t.view.lobby_entry["variant"]  # type: ignore[union-attr]
        return {"id": t.id, "name": t.name, "variant": v}

    def list_tables(self) -> list[dict[str, Any]]:
        """Every visible table in lobby order: ``{"id", "name", "variant": {"id", "name"},
        "shoe", "round", "last", "good_roads", "side_bets", "version", "big_road"}`` (before the
        first shoe: ``shoe`` 1, ``round`` 0, empty roads)."""
        return [t.view.lobby_entry for t in self.tables.shown()]  # type: ignore[union-attr]

    def lobby_json(self) -> tuple[int, bytes]:
        """``(lobby version, JSON of list_tables())``, joined once per change, when first asked for."""
        message = self.hub.latest(topics.LOBBY)
        if message is None:
            return 0, b"[]"
        return message.version, message.payload

    def lobby_version(self) -> int:
        """The lobby's version (the sum of its tables' versions; 0 before anything is published)."""
        message = self.hub.latest(topics.LOBBY)
        return message.version if message is not None else 0

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
        t = self.tables.visible(table_id)
        view: TableView = t.view  # type: ignore[assignment]  # visible() checked it
        if shoe is None or shoe == view.snapshot.get("shoe"):
            if shoe is not None:
                _shoe(t, shoe)  # a configured table shows shoe 1 before it exists
            return view.version, view.snapshot, view.encoded
        return self._past_snapshot(t, shoe)

    def _past_snapshot(self, t: TableSlot, number: int) -> tuple[int, dict[str, Any], Encoded]:
        s = _shoe(t, number)
        key = (t.id, number)
        with self._past_lock:
            hit = self._past.get(key)
            if hit is not None and hit[0] == s.version:
                self._past.move_to_end(key)
                return hit
        with t.lock:
            roads = s.replay_roads()
            snap = snapshots.build(t, s, roads, s.version, live=False)
        entry = (s.version, snap, Encoded(snap))
        with self._past_lock:
            self._past[key] = entry
            self._past.move_to_end(key)
            while len(self._past) > PAST_SHOE_CACHE:
                self._past.popitem(last=False)
        return entry

    def shoes(self, table_id: str) -> list[dict[str, Any]]:
        """Every shoe of the table, oldest first (:meth:`roads.table.ShoeRecord.summary` lines).
        Raises :class:`roads.errors.UnknownTable`."""
        t = self.tables.visible(table_id)
        with t.lock:
            cur = t.table.current
            return [s.summary(s is cur) for _, s in sorted(t.table.shoes.items())]

    def shoe(self, table_id: str, shoe: int) -> dict[str, Any]:
        """One line of :meth:`shoes`. Raises :class:`roads.errors.UnknownTable` / :class:`roads.errors.UnknownShoe`."""
        t = self.tables.visible(table_id)
        with t.lock:
            s = _shoe(t, shoe)
            return s.summary(s is t.table.current)

    def rounds(self, table_id: str, shoe: int) -> list[dict[str, Any]]:
        """Every recorded round of a shoe for export, voided ones included
        (:meth:`roads.table.RoundRecord.export`). Raises as :meth:`shoe`."""
        t = self.tables.visible(table_id)
        with t.lock:
            return [r.export(shoe) for r in _shoe(t, shoe).rounds]

    # ------------------------------------------------------------------ after a change
    def refresh(self, t: TableSlot, *, publish_lobby: bool = True) -> None:
        """Build the table's new view from its current shoe and publish it, and (unless
        ``publish_lobby`` is false) the lobby with that table's new entry (caller holds the lock)."""
        view = snapshots.table_view(t)
        t.view = view
        self.hub.publish(topics.table(t.id), view.version, view.encoded, document=view.snapshot)
        if publish_lobby:
            self.lobby.update(self.tables.order_changes, t.id, view.version, view.lobby_entry, view.lobby_encoded,
                              self._lobby_rows)
            self.good_roads.update(self.tables.order_changes, t.id, view.version, view.lobby_entry, self._floor_rows)

    def publish_lobby(self) -> None:
        """Rebuild the lobby list from every visible table's view (in lobby order) and publish it."""
        self.lobby.publish(self.tables.order_changes, self._lobby_rows())
        self.good_roads.publish(self.tables.order_changes, self._floor_rows())

    def _lobby_rows(self) -> list[tuple[str, int, dict[str, Any], Encoded]]:
        return [(t.id, t.view.version, t.view.lobby_entry, t.view.lobby_encoded)  # type: ignore[union-attr]
                for t in self.tables.shown()]


    def _floor_rows(self) -> list[tuple[str, int, dict[str, Any]]]:
        return [(t.id, t.view.version, t.view.lobby_entry) for t in self.tables.shown()]  # type: ignore[union-attr]

    def good_roads_json(self) -> tuple[int, bytes]:
        """``(version, JSON of the floor's good roads)`` (:mod:`web.push.floor_good_roads`)."""
        message = self.hub.latest(topics.GOOD_ROADS)
        if message is None:
            return 0, b'{"version":0,"tables":[],"counts":{},"with_good_road":0,"patterns":[]}'
        return message.version, message.payload


def _shoe(t: TableSlot, number: int) -> ShoeRecord:
    """Shoe ``number`` of ``t``; raises :class:`roads.errors.UnknownShoe`."""
    return t.table.shoe(number)
