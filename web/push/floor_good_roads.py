"""The floor's good-roads topic: which tables have a good road now, their patterns in priority
order, and counts per pattern (``GET /api/good-roads``, docs/api.md "Good roads across the floor").

Document (topic :data:`web.push.topics.GOOD_ROADS`)::

    {"version": lobby version at the last change,
     "tables": [{"id", "name", "shoe", "top": the pattern shown first, "good_roads": [snapshot
                 entries {"pattern", "label", "length", "threshold"}, priority order]}, ...],
     "counts": {pattern id: tables showing it, every pattern in priority order},
     "with_good_road": tables in "tables",
     "patterns": [{"id", "label", "priority"}, ...] (priority order, docs/patterns.md)}

``tables`` is in lobby order. A write of one table puts that table's entry in place; a write that
leaves the table's entry as it was publishes nothing (most writes of a floor: a table with no good
road, or one whose patterns did not move), so screens and web lobbies get a delta only when the
floor's good roads change. The version is the lobby's (the sum of the tables' versions) at the
write that changed the document; deltas are the frame builder's (:mod:`web.push.delta`).
"""

from __future__ import annotations

import bisect
import threading
from typing import Any, Mapping, Sequence

import orjson

from web.push import topics
from web.push.hub import Hub


def floor_entry(entry: Mapping[str, Any]) -> dict[str, Any] | None:
    """A table's entry in the document from its lobby entry (``id``, ``name``, ``shoe``,
    ``good_roads`` in priority order), ``None`` when it has no good road."""
    good = entry.get("good_roads") or []
    if not good:
        return None
    return {"id": entry["id"], "name": entry.get("name"), "shoe": entry.get("shoe"), "top": good[0]["pattern"],
            "good_roads": good}


class GoodRoadsTopic:
    """Publishes the floor's good roads on ``hub`` (module docstring); ``patterns``: every pattern
    ``{"id", "label", "priority"}`` in priority order. Thread-safe.

    Rows come as ``(table_id, version, lobby entry)`` (the lobby entry is never mutated). The
    published lists and dicts are never changed afterwards: a change copies ``tables`` (references)
    and ``counts`` and edits the copies.
    """

    def __init__(self, hub: Hub, patterns: Sequence[Mapping[str, Any]]) -> None:
        self.hub = hub
        self.patterns = [dict(p) for p in patterns]
        self._lock = threading.Lock()
        self._pos: dict[str, int] = {}  # table -> its place in the lobby order
        self._held: dict[str, int] = {}  # table -> the version its entry here has
        self._keys: list[int] = []  # lobby places of the tables in _tables, ascending
        self._tables: list[dict[str, Any]] = []
        self._counts: dict[str, int] = {}
        self._version = 0
        self._layout = -1  # the lobby order (web.tables.Tables.order_changes) _pos was built in
        self._last: list[dict[str, Any]] | None = None
        self.publishes = 0
        """How many documents were published (tests, benches)."""

    def publish(self, order: int, rows: Sequence[tuple[str, int, Mapping[str, Any]]]) -> None:
        """Rebuild from ``rows`` (every visible table, in lobby order ``order``) and publish."""
        with self._lock:
            self._rebuild(order, rows)
            self._publish()

    def update(self, order: int, table_id: str, version: int, entry: Mapping[str, Any],
               rows: Any) -> None:
        """Table ``table_id``'s new lobby ``entry`` at ``version``: publish when its floor entry
        changed (a bisection and two copies: O(tables with a good road) references); when the
        lobby order changed or the table is new, rebuild from ``rows()`` first."""
        with self._lock:
            if order != self._layout or table_id not in self._held:
                self._rebuild(order, rows())
                self._publish()
                return
            held = self._held[table_id]
            if version <= held:
                return
            self._version += version - held
            self._held[table_id] = version
            new = floor_entry(entry)
            key = self._pos[table_id]
            i = bisect.bisect_left(self._keys, key)
            present = i < len(self._keys) and self._keys[i] == key
            old = self._tables[i] if present else None
            if new == old:
                return
            tables, keys, counts = self._tables.copy(), self._keys.copy(), self._counts.copy()
            if old is not None:
                for g in old["good_roads"]:
                    counts[g["pattern"]] -= 1
            if new is not None:
                for g in new["good_roads"]:
                    counts[g["pattern"]] = counts.get(g["pattern"], 0) + 1
            if new is None:
                del tables[i], keys[i]
            elif present:
                tables[i] = new
            else:
                tables.insert(i, new)
                keys.insert(i, key)
            self._tables, self._keys, self._counts = tables, keys, counts
            self._publish()

    def _rebuild(self, order: int, rows: Sequence[tuple[str, int, Mapping[str, Any]]]) -> None:
        self._pos = {table_id: n for n, (table_id, _, _) in enumerate(rows)}
        self._held = {table_id: version for table_id, version, _ in rows}
        self._version = sum(self._held.values())
        self._tables, self._keys = [], []
        counts = {p["id"]: 0 for p in self.patterns}
        for n, (_, _, entry) in enumerate(rows):
            e = floor_entry(entry)
            if e is not None:
                self._tables.append(e)
                self._keys.append(n)
                for g in e["good_roads"]:
                    counts[g["pattern"]] = counts.get(g["pattern"], 0) + 1
        self._counts = counts
        self._layout = order

    def _publish(self) -> None:
        tables = self._tables
        if tables == self._last:  # a rebuild that changed nothing (the lobby order, a new table)
            return
        self._last = tables
        doc = {"version": self._version, "tables": tables, "counts": self._counts, "with_good_road": len(tables),
               "patterns": self.patterns}
        self.publishes += 1
        self.hub.publish(topics.GOOD_ROADS, self._version, lambda: orjson.dumps(doc), document=doc)
