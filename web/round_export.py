"""Which rounds an export streams, one shoe in memory at a time (roads.export; docs/api.md
"Exports"): a shoe's rounds, a table-day's (every shoe with a round in the gaming day, read from
the history's summaries, plus the live shoe; only the day's rounds) and a floor-day's (each table's
in id order). Rows are made as they are sent: an export never holds more than one shoe.

Flask-free: ``shoe_of(table, number)`` gives a shoe record (the live one from memory, a past one
from the store), ``live_number(table)`` the live shoe's number.
"""

from __future__ import annotations

from datetime import date
from typing import Any, Callable, Iterable, Iterator

from roads.export import round_row
from roads.gaming_day import SHOE_LOOKBACK_S, GamingDay
from roads.record import ShoeRecord
from web.stores.base import HistoryReader


class RoundExport:
    """Export rows of shoes and days (module docstring)."""

    def __init__(self, history: HistoryReader, gaming_day: GamingDay,
                 shoe_of: Callable[[str, int], ShoeRecord | None], live_number: Callable[[str], int | None],
                 tables: Callable[[], Iterable[str]]) -> None:
        self.history = history
        self.gaming_day = gaming_day
        self.shoe_of = shoe_of
        self.live_number = live_number
        self.tables = tables

    def _day(self, at: float) -> str:
        return self.gaming_day.day_of(at).isoformat()

    def shoe_rows(self, table: str, shoe: ShoeRecord) -> Iterator[dict[str, Any]]:
        """Rows of every recorded round of ``shoe``, in deal order."""
        for r in list(shoe.rounds):
            yield round_row(table, shoe.number, r, self._day)

    def day_shoes(self, table: str | None, day: date) -> list[tuple[str, int]]:
        """``(table, shoe)`` with a round in gaming day ``day`` (past shoes from the summaries, then
        each table's live shoe), by table then shoe."""
        start, end = self.gaming_day.bounds(day)
        out = {(r.table, r.shoe) for r in self.history.shoe_summaries_between(
            start - SHOE_LOOKBACK_S, end, table=table, stats=False) if r.ended_at >= start}
        for t in ([table] if table is not None else list(self.tables())):
            n = self.live_number(t)
            if n is not None:
                out.add((t, n))
        return sorted(out)

    def day_rows(self, table: str | None, day: date) -> Iterator[dict[str, Any]]:
        """Rows of the rounds recorded in gaming day ``day``, of ``table`` or every table (``None``),
        by table, shoe and round; each shoe read when its turn comes."""
        start, end = self.gaming_day.bounds(day)
        shoes = self.day_shoes(table, day)
        day_text = day.isoformat()
        for t, n in shoes:
            shoe = self.shoe_of(t, n)
            if shoe is None:
                continue
            for r in list(shoe.rounds):
                if start <= r.at < end:
                    yield round_row(t, n, r, lambda _: day_text)
