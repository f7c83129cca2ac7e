"""The lobby topic: every visible table's lobby entry in lobby order, updated in place.

A write of one table swaps that table's entry into the list and publishes the lobby with the
delta of that one entry, so a write costs the same whatever the number of tables
(docs/frontend.md "Live updates"); the list's JSON is joined only when someone asks for it (a
snapshot frame, ``GET /api/tables``). The lobby's version is the sum of its tables' versions.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Sequence

from web.push import topics
from web.push.delta import diff
from web.push.hub import Hub


class LobbyTopic:
    """Publishes the lobby list on ``hub`` (topic :data:`web.push.topics.LOBBY`). Thread-safe.

    Entries come as ``(table_id, version, entry, encoded)``: the table's lobby entry (a dict,
    never mutated) at its table version, and a function giving the entry's JSON bytes.
    """

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self._lock = threading.Lock()
        self._version = 0
        self._index: dict[str, int] = {}
        self._entries: list[dict[str, Any]] = []
        self._parts: list[Callable[[], bytes]] = []
        self._held: dict[str, int] = {}  # table -> the version its entry in the list has
        self._order = -1  # the order (web.tables.Tables.order_changes) the list was built in

    def publish(self, order: int, rows: Sequence[tuple[str, int, dict[str, Any], Callable[[], bytes]]]) -> None:
        """Rebuild the list from ``rows`` (every visible table, in lobby order ``order``) and publish it."""
        with self._lock:
            self._publish_locked(order, rows)

    def update(self, order: int, table_id: str, version: int, entry: dict[str, Any], encoded: Callable[[], bytes],
               rows: Callable[[], Sequence[tuple[str, int, dict[str, Any], Callable[[], bytes]]]]) -> None:
        """Put table ``table_id``'s new ``entry`` (at ``version``) in place and publish the lobby
        with the delta of that one entry. O(1) in the number of tables, apart from copying the
        list of references (the published list is never changed afterwards). When the lobby
        order changed since the list was built (``order``), or the table is not in it, the list
        is rebuilt from ``rows()`` instead; when a rebuild since this table's new view holds that
        version already, nothing is published."""
        with self._lock:
            i = self._index.get(table_id)
            if order != self._order or i is None:
                self._publish_locked(order, rows())
                return
            held = self._held.get(table_id, 0)
            if version == held:  # a rebuild since this table's view changed holds it already
                return
            old_entry = self._entries[i]
            entries = self._entries.copy()
            parts = self._parts.copy()
            entries[i], parts[i] = entry, encoded
            # What the list holds of this table, not the view before this one: a rebuild (another
            # table's first write) may have come between this table's new view and this update.
            self._version += version - held
            self._held[table_id] = version
            self._entries, self._parts = entries, parts
            self.hub.publish(topics.LOBBY, self._version, _joined(parts), document=entries,
                             ops=_entry_ops(i, old_entry, entry))

    def _publish_locked(self, order: int, rows: Sequence[tuple[str, int, dict[str, Any], Callable[[], bytes]]]) -> None:
        self._index = {table_id: i for i, (table_id, _, _, _) in enumerate(rows)}
        self._entries = [entry for _, _, entry, _ in rows]
        self._parts = [encoded for _, _, _, encoded in rows]
        self._held = {table_id: version for table_id, version, _, _ in rows}
        self._version = sum(version for _, version, _, _ in rows)
        self._order = order
        self.hub.publish(topics.LOBBY, self._version, _joined(self._parts), document=self._entries)


def _entry_ops(i: int, old: dict[str, Any], new: dict[str, Any]) -> Any:
    """A function giving the lobby delta of entry ``i`` changing from ``old`` to ``new`` (built
    when called: only when a lobby screen or the nchan publisher needs that delta)."""
    return lambda: [[op[0], [i, *op[1]], *op[2:]] for op in diff(old, new)]


def _joined(parts: list[Callable[[], bytes]]) -> Any:
    """A function giving the JSON list of the entries ``parts`` (built when called)."""
    return lambda: b"[" + b",".join(part() for part in parts) + b"]"
