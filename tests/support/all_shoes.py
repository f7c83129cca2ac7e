"""Every shoe of a table in tests: its past shoes (through ``table.past``) and its current one."""

from __future__ import annotations

from roads.record import ShoeRecord
from roads.table import Table


def all_shoes(table: Table) -> dict[int, ShoeRecord]:
    """``{number: ShoeRecord}`` of every shoe of ``table``, ascending (past shoes read through
    :attr:`roads.table.Table.past`, then the current one)."""
    out = {}
    for n in table.past.numbers():
        s = table.past.get(n)
        assert s is not None
        out[n] = s
    if table.current is not None:
        out[table.current.number] = table.current
    return dict(sorted(out.items()))
