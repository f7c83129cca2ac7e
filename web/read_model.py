"""The read model: every table's snapshot and lobby entry, the lobby list, past shoes' snapshots,
shoe listings and round exports, from the tables' records (:mod:`web.tables`) and, for past
shoes, from the store's history (docs/history.md).

After every change of a table the service calls :meth:`ReadModel.refresh`: the table's new
view (:func:`web.snapshots.table_view`: snapshot and lobby entry, each encoded once) is swapped
in whole and published to the hub: topic ``table:<table_id>`` (payload: the snapshot JSON,
document: the snapshot, version: the table's version), the lobby (:class:`web.push.lobby.LobbyTopic`:
the list of :meth:`ReadModel.list_tables`, updated in place; version: the sum of all table versions)
and the floor's good roads (:class:`web.push.floor_good_roads.GoodRoadsTopic`, when they changed).

Snapshot reads (``snapshot``, ``snapshot_json``, ``table``, ``list_tables``, ``lobby_json``:
the API, pages, PNG and WebSocket hot paths) never take a table lock: they read the table's
latest immutable view.

Past shoes: with a history store (:attr:`ReadModel.history`, a :class:`web.stores.HistoryReader`,
set by the service for SQLite and Redis + PostgreSQL) a past shoe is read from its stored
document (:meth:`web.stores.HistoryReader.past_shoe`) and the shoe list from the stored summary
lines, a page at a time (newest first, :meth:`ReadModel.shoes_page`); nothing of history is kept
in memory but a bounded LRU of past shoes' snapshots (``past_cache`` entries,
``ROADS_PAST_SHOE_CACHE``), whose entry for a shoe is dropped when a commit or another process's
event changes that shoe (:meth:`ReadModel.forget_past`). Without one (the Redis store alone)
past shoes are the table's in-memory records (:class:`roads.archive.MemoryShoes`), read under the
table's lock, and the cache checks each entry's version. Returned dicts are shared: do not
mutate them. An unknown table or shoe raises :class:`roads.errors.UnknownTable` /
:class:`roads.errors.UnknownShoe` (the HTTP edge answers 404 ``unknown_table`` /
``unknown_shoe``, ``web.http.errors``).
"""

from __future__ import annotations

import collections
import json
import threading
import time
from typing import TYPE_CHECKING, Any, Iterator

from roads.errors import UnknownShoe
from roads.good_roads import CustomRoad, catalogue
from roads.record import ShoeRecord
from web import snapshots
from web.push import topics
from web.push.hub import Hub
from web.push.floor_good_roads import GoodRoadsTopic
from web.push.lobby import LobbyTopic
from web.snapshots import Encoded, TableView, encode
from web.tables import Tables, TableSlot

if TYPE_CHECKING:
    from web.stores.base import HistoryReader

PAST_SHOE_CACHE = 64
"""Default number of past shoes' snapshots kept in memory per service (LRU; the setting
``ROADS_PAST_SHOE_CACHE``); older ones are rebuilt on demand from the shoe's document."""

SHOE_PAGE = 50
"""Shoes per page of a shoe list when the request names no ``limit``."""

SHOE_PAGE_MAX = 500
"""Most shoes one page of a shoe list may ask for (``limit``)."""


class ReadModel:
    """The known tables (:attr:`tables`, showing the operator's good-road patterns ``custom``) and
    everything readers get from them (see module doc)."""

    def __init__(self, hub: Hub, custom: tuple[CustomRoad, ...] = (), *, past_cache: int = PAST_SHOE_CACHE) -> None:
        self.hub = hub
        self.tables = Tables(custom)
        self.lobby = LobbyTopic(hub)
        self.good_roads = GoodRoadsTopic(hub, catalogue(custom))
        self.history: HistoryReader | None = None
        """Where past shoes are read from (the service's history store), or ``None``: the tables' records."""
        self.past_cache = past_cache
        self._past: collections.OrderedDict[tuple[str, int], tuple[int, dict[str, Any], Encoded]] = collections.OrderedDict()
        self._past_lock = threading.Lock()
        self._forgets = 0  # counts forget_past calls: a snapshot read before one is not cached
        self._marks: dict[str, tuple[int, int]] = {}  # table -> (integrity flags today, flags ever)
        self._marks_until = 0.0  # Unix seconds the gaming day of ``_marks`` ends
        self.clock: Any = time.time
        """Unix seconds now (the service's clock): when the marks' gaming day is over."""

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
        first shoe: ``shoe`` 1, ``round`` 0, empty roads), plus ``"integrity": n`` for a table with
        n > 0 integrity flags in the current gaming day (:meth:`set_integrity`)."""
        return [self._row(t)[2] for t in self.tables.shown()]

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
        key = (t.id, number)
        history = self.history
        with self._past_lock:
            hit = self._past.get(key)
            forgets = self._forgets
        if history is None:
            with t.lock:  # in-memory records change in place: read them under the table's lock
                s = _shoe(t, number)
                if hit is not None and hit[0] == s.version:
                    with self._past_lock:
                        if key in self._past:
                            self._past.move_to_end(key)
                    return hit
                snap = snapshots.build(t, s, s.replay_roads(), s.version, live=False)
        else:
            if hit is not None:  # dropped by forget_past when the shoe changes
                with self._past_lock:
                    if key in self._past:
                        self._past.move_to_end(key)
                return hit
            s = self._past_record(t, number)
            snap = snapshots.build(t, s, s.replay_roads(), s.version, live=False)
        entry = (s.version, snap, Encoded(snap))
        with self._past_lock:
            if self._forgets == forgets or history is None:
                self._past[key] = entry
                self._past.move_to_end(key)
                while len(self._past) > self.past_cache:
                    self._past.popitem(last=False)
        return entry

    def _past_record(self, t: TableSlot, number: int) -> ShoeRecord:
        """Past shoe ``number`` of ``t`` from the history store (``history`` set); raises
        :class:`roads.errors.UnknownShoe`."""
        assert self.history is not None
        s = self.history.past_shoe(t.id, number)
        if s is None:
            raise UnknownShoe(f"table {t.id!r} has no shoe {number}", field="shoe")
        return s

    def forget_past(self, table_id: str, shoe: int) -> None:
        """Drop past shoe ``shoe``'s cached snapshot: a commit (or another process's event) closed or
        changed it."""
        with self._past_lock:
            self._past.pop((table_id, shoe), None)
            self._forgets += 1

    def past_cached(self) -> int:
        """How many past shoes' snapshots are cached now (at most :attr:`past_cache`)."""
        return len(self._past)

    def shoes_page(self, table_id: str, *, before: int | None = None,
                   limit: int = SHOE_PAGE) -> tuple[list[bytes], int | None]:
        """One page of the table's shoe list, newest first: ``(lines, next)``. ``lines`` are the
        JSON bytes of :meth:`roads.record.ShoeRecord.summary` lines (the live shoe's with ``live``
        true; a past shoe's as stored when it closed or last changed), of the shoes numbered below
        ``before`` (all when ``None``), at most ``limit``; ``next`` is the ``before`` of the next
        page (the last listed shoe's number) or ``None`` when no older shoe remains. Raises
        :class:`roads.errors.UnknownTable`."""
        t = self.tables.visible(table_id)
        lines: list[bytes] = []
        with t.lock:
            cur = t.table.current
            below = before
            if cur is not None and (before is None or cur.number < before):
                lines.append(encode(cur.summary(True)))
                below = cur.number
            want = limit + 1 - len(lines)
            if self.history is not None:
                rows = self.history.shoe_summaries(t.id, before=below, limit=want)
                past = [(r.shoe, r.line.encode("utf-8")) for r in rows]
            else:
                numbers = [n for n in t.table.past.numbers() if below is None or n < below][-want:]
                past = []
                for n in reversed(numbers):
                    s = t.table.past.get(n)
                    if s is not None:
                        past.append((n, encode(s.summary(False))))
        numbers_listed = ([cur.number] if lines else []) + [n for n, _ in past]  # type: ignore[union-attr]
        lines += [line for _, line in past]
        if len(lines) > limit:
            return lines[:limit], numbers_listed[limit - 1]
        return lines, None

    def shoe_line(self, table_id: str, shoe: int) -> bytes:
        """The JSON bytes of shoe ``shoe``'s line of the shoe list. Raises
        :class:`roads.errors.UnknownTable` / :class:`roads.errors.UnknownShoe`."""
        t = self.tables.visible(table_id)
        with t.lock:
            cur = t.table.current
            if cur is not None and cur.number == shoe:
                return encode(cur.summary(True))
            if self.history is None:
                return encode(_shoe(t, shoe).summary(False))
        row = self.history.shoe_summary(t.id, shoe)
        if row is None:
            raise UnknownShoe(f"table {t.id!r} has no shoe {shoe}", field="shoe")
        return row.line.encode("utf-8")

    def shoe(self, table_id: str, shoe: int) -> dict[str, Any]:
        """Shoe ``shoe``'s line of the shoe list as a dict (:meth:`roads.record.ShoeRecord.summary`
        shape). Raises as :meth:`shoe_line`."""
        t = self.tables.visible(table_id)
        with t.lock:
            cur = t.table.current
            if cur is not None and cur.number == shoe:
                return cur.summary(True)
        return json.loads(self.shoe_line(table_id, shoe))

    def rounds(self, table_id: str, shoe: int) -> list[dict[str, Any]]:
        """Every recorded round of a shoe for export, voided ones included
        (:meth:`roads.table.RoundRecord.export`). Raises as :meth:`shoe_line`."""
        return list(self._round_exports(table_id, shoe))

    def export(self, table_id: str, shoe: int) -> Iterator[bytes]:
        """The JSON bytes of ``{"table", "shoe": its shoe-list line, "rounds": [...]}`` (``GET
        .../shoes/<n>/rounds``) in pieces, one round at a time: a past shoe's rounds come from its
        document, read once, and are encoded as they are sent. The shoe is looked up before the
        first piece: raises as :meth:`shoe_line` on the call, not while iterating."""
        line = self.shoe_line(table_id, shoe)
        rounds = self._round_exports(table_id, shoe)
        return _export_pieces(encode(table_id), line, rounds)

    def _round_exports(self, table_id: str, shoe: int) -> Iterator[dict[str, Any]]:
        """The export dicts of shoe ``shoe``'s rounds (looked up now; raises as :meth:`shoe_line`)."""
        t = self.tables.visible(table_id)
        with t.lock:
            cur = t.table.current
            if cur is not None and cur.number == shoe:
                return iter([r.export(shoe) for r in cur.rounds])
            if self.history is None:
                return iter([r.export(shoe) for r in _shoe(t, shoe).rounds])
        s = self._past_record(t, shoe)
        return (r.export(shoe) for r in s.rounds)

    # ------------------------------------------------------------------ after a change
    def refresh(self, t: TableSlot, *, publish_lobby: bool = True) -> None:
        """Build the table's new view from its current shoe and publish it, and (unless
        ``publish_lobby`` is false) the lobby with that table's new entry (caller holds the lock)."""
        view = snapshots.table_view(t)
        t.view = view
        self.hub.publish(topics.table(t.id), view.version, view.encoded, document=view.snapshot)
        if publish_lobby:
            self.lobby.update(self.tables.order_changes, *self._row(t), self._lobby_rows)
            self.good_roads.update(self.tables.order_changes, t.id, view.version, view.lobby_entry, self._floor_rows)

    def publish_lobby(self) -> None:
        """Rebuild the lobby list from every visible table's view (in lobby order) and publish it."""
        self.lobby.publish(self.tables.order_changes, self._lobby_rows())
        self.good_roads.publish(self.tables.order_changes, self._floor_rows())

    def set_integrity(self, today: dict[str, int], raised: dict[str, int], until: float) -> None:
        """Mark the lobby entries of tables with integrity flags and publish the lobby: ``today``
        ``{table: flags in the current gaming day}`` (an entry's ``"integrity"``, until Unix
        seconds ``until``, the day's end: the next lobby change after it drops the marks),
        ``raised`` ``{table: flags ever}`` (added to the table's lobby version, so the lobby's
        version grows with every flag and screens take the change)."""
        self._marks = {t: (today.get(t, 0), n) for t, n in raised.items()}
        self._marks_until = until
        self.publish_lobby()

    def _row(self, t: TableSlot) -> tuple[str, int, dict[str, Any], Any]:
        """``(table id, lobby version, lobby entry, its encoded JSON)`` of ``t``'s view, with its integrity mark."""
        view: TableView = t.view  # type: ignore[assignment]
        mark = self._marks.get(t.id)
        if mark is None:
            return t.id, view.version, view.lobby_entry, view.lobby_encoded
        today, ever = mark
        if not today or self.clock() >= self._marks_until:
            return t.id, view.version + ever, view.lobby_entry, view.lobby_encoded
        entry = {**view.lobby_entry, "integrity": today}
        return t.id, view.version + ever, entry, Encoded(entry)

    def _lobby_rows(self) -> list[tuple[str, int, dict[str, Any], Encoded]]:
        return [self._row(t) for t in self.tables.shown()]


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


def _export_pieces(table: bytes, line: bytes, rounds: Iterator[dict[str, Any]]) -> Iterator[bytes]:
    """The pieces of a round export (:meth:`ReadModel.export`): byte for byte the :func:`encode`
    of the whole body."""
    yield b'{"table":' + table + b',"shoe":' + line + b',"rounds":['
    first = True
    for r in rounds:
        yield encode(r) if first else b"," + encode(r)
        first = False
    yield b"]}"
