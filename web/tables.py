"""The known tables: each table's record, its lock, its display name, and the lobby order.

:class:`TableSlot` is one table (its :class:`roads.table.Table` record, the lock its writers and
record readers hold, its name, whether it is configured, and its current
:class:`web.snapshots.TableView`); :class:`Tables` holds the slots in lobby order: configured
tables in configuration order, then the others by id.
"""

from __future__ import annotations

import contextlib
import threading
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping

from roads.archive import LivePart, PastShoes
from roads.errors import UnknownTable
from roads.good_roads import CustomRoad
from roads.table import Table

if TYPE_CHECKING:
    from web.snapshots import TableView


class TableSlot:
    """One known table: its record (``table``), the lock its writers and record readers hold,
    its display name, whether it is configured, the operator's good-road patterns (``custom``)
    and its current :class:`web.snapshots.TableView`. ``past``: where the record reads its past
    shoes (a history store's reader), ``None`` = in memory. Raises the :mod:`roads.errors` error of
    bad ``limits``."""

    def __init__(self, table_id: str, name: str | None, variant_id: str | None, configured: bool,
                 limits: Mapping[str, Any] | None = None, custom: tuple[CustomRoad, ...] = (),
                 past: PastShoes | None = None) -> None:
        self.id = table_id
        self.custom = custom
        """The operator's good-road patterns its snapshots show (:class:`roads.good_roads.CustomRoad`)."""
        self.name = name or table_id
        self.configured = configured
        self.variant_id = variant_id
        self.limits = limits
        self.lock = threading.Lock()
        self.table = Table(table_id, variant_id, limits=limits, past=past)
        self.view: TableView | None = None

    def restore(self, part: LivePart, past: PastShoes) -> None:
        """Replace the record by the one restored from ``part`` (:meth:`roads.table.Table.restore`,
        with this slot's configured variant and limits). Raises ``ValueError`` for a live part that
        does not fit (a damaged store)."""
        self.table = Table.restore(part, variant_id=self.variant_id, limits=self.limits, past=past)

    @property
    def visible(self) -> bool:
        """Configured, or has at least one stored event (a refused first write leaves no table)."""
        return self.configured or self.table.seq > 0


class Tables:
    """The known tables in lobby order, each showing the operator's good-road patterns ``custom``.
    Thread-safe (see :meth:`locked` for writers)."""

    def __init__(self, custom: tuple[CustomRoad, ...] = ()) -> None:
        self.custom = custom
        self.slots: dict[str, TableSlot] = {}
        self.order: list[str] = []
        """Lobby order: configured tables in configuration order, then the others by id."""
        self.order_changes = 0
        """Counts changes of :attr:`order` (the lobby list is rebuilt after one)."""
        self._lock = threading.Lock()
        self.past_for: Callable[[str], PastShoes] | None = None
        """Where a table's record reads its past shoes (``table id -> PastShoes``: the history
        store's reader), or ``None``: each record keeps them in memory. Set before any slot exists."""

    def add_configured(self, table_id: str, name: str | None, variant_id: str | None,
                       limits: Mapping[str, Any] | None = None) -> None:
        """Register a configured table (before loading), at the end of the configured ones.
        Raises the :mod:`roads.errors` error of bad ``limits``."""
        self.slots[table_id] = TableSlot(table_id, name, variant_id, configured=True, limits=limits,
                                         custom=self.custom, past=self._past(table_id))
        self.order.append(table_id)

    def slot(self, table_id: str) -> TableSlot:
        """The slot of ``table_id``, created (unconfigured, not yet visible) when new. Only for
        loading (one thread); writers take a slot with :meth:`locked`."""
        t = self.slots.get(table_id)
        if t is not None:
            return t
        with self._lock:
            return self.slots.setdefault(table_id, TableSlot(table_id, None, None, configured=False,
                                                                    custom=self.custom, past=self._past(table_id)))

    def _past(self, table_id: str) -> PastShoes | None:
        return self.past_for(table_id) if self.past_for is not None else None

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
                        with self._lock:
                            if self.slots.get(table_id) is t:
                                del self.slots[table_id]
                return

    def sort_order(self) -> None:
        """Configured tables first in configuration order, then every other known table by id."""
        with self._lock:
            configured = [i for i in self.order if self.slots[i].configured]
            self.order = configured + sorted(i for i, t in self.slots.items() if not t.configured)
            self.order_changes += 1

    def add_to_order(self, table_id: str) -> None:
        """Give a table that just became visible its place in the lobby order (no-op when it has one)."""
        if table_id in self.order:
            return
        with self._lock:
            configured = [i for i in self.order if self.slots[i].configured]
            others = sorted({i for i in self.order if not self.slots[i].configured} | {table_id})
            self.order = configured + others
            self.order_changes += 1

    def visible(self, table_id: str) -> TableSlot:
        """The slot of a visible table; raises :class:`roads.errors.UnknownTable`."""
        t = self.slots.get(table_id)
        if t is None or not t.visible or t.view is None:
            raise UnknownTable(f"no table {table_id!r}", field="table_id")
        return t

    def shown(self) -> list[TableSlot]:
        """Every visible table that has a view, in lobby order."""
        out = []
        for table_id in list(self.order):
            t = self.slots.get(table_id)
            if t is not None and t.visible and t.view is not None:
                out.append(t)
        return out

    def count(self) -> int:
        """How many tables are visible."""
        return sum(1 for t in list(self.slots.values()) if t.visible)
