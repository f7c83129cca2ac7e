"""Gaming-day figures read from the history's per-shoe summaries, never from the rounds
(roads.gaming_day; docs/api.md "Gaming days"; docs/history.md).

A table-day adds up the statistics of the table's past shoes with a round in the day (each
summary's ``stats``; a shoe across a cut-over is read from its document and split by its rounds'
times) and the live shoe's rounds in the day (from the table in memory: ``live``). The past part
of a table-day is cached, keyed by the ``(shoe, version)`` of the summaries it was made of, so a
repeated read costs one summary query without statistics, and a void or correction of a past shoe
(a newer version) or a shoe closing makes it be recomputed. With ``disk``
(:class:`web.day_cache.DayCache`) the past parts are also kept on disk under the same
fingerprints, so a restarted process does not recompute them.

Flask-free: the HTTP routes (``web.http.day_stats_api``) give it the store, the gaming day and
the live shoes.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from datetime import date, timedelta
from typing import Any, Callable, Iterable, Mapping

from roads.archive import shoe_stats
from roads.gaming_day import SHOE_LOOKBACK_S, GamingDay, TableDay
from roads.record import iso_time
from web.day_cache import DayCache
from web.day_cache import fingerprint as day_fingerprint
from web.stores.base import HistoryReader, ShoeSummary

LiveStats = Callable[[str, float, float], "tuple[int, dict[str, Any], str, int] | None"]
"""``live(table, start, end)`` -> ``(shoe number, shoe_stats of its rounds in [start, end), variant
id, decks)`` of the table's live shoe, or ``None``."""

CACHE_ENTRIES = 2048
"""Past parts of table-days kept (LRU): a 200-table floor's today and yesterday, and ranges."""

FLOOR_ROW = ""
"""The disk cache's table id of the floor's sum (a table id is never empty)."""

FLOOR_CACHE_DAYS = 8
"""Floor days whose sum of past parts is kept."""

MAX_TABLE_DAYS = 366
"""Longest range of days for one table."""

MAX_FLOOR_DAYS = 31
"""Longest range of days for the floor."""

WARM_DAYS = 8
"""Most days one :meth:`DayStats.warm` fills (today, yesterday and the changed shoes' days)."""


class DayStats:
    """Table-day, table range and floor-day figures (module docstring)."""

    def __init__(self, history: HistoryReader, gaming_day: GamingDay, live: LiveStats,
                 tables: Callable[[], Iterable[str]], *, cache_entries: int = CACHE_ENTRIES,
                 disk: DayCache | None = None) -> None:
        self.history = history
        self.disk = disk
        self.zone = f"{gaming_day.tz}|{gaming_day.cutover.strftime('%H:%M')}"
        self.gaming_day = gaming_day
        self.live = live
        self.tables = tables
        self._cache: OrderedDict[tuple[str, date], tuple[tuple, TableDay]] = OrderedDict()
        self._cache_entries = cache_entries
        self._floors: OrderedDict[date, tuple[tuple, TableDay]] = OrderedDict()
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ one table-day
    def _rows(self, day: date, table: str | None) -> tuple[float, float, dict[str, list[ShoeSummary]]]:
        start, end = self.gaming_day.bounds(day)
        rows = self.history.shoe_summaries_between(start - SHOE_LOOKBACK_S, end, table=table, stats=False)
        by_table: dict[str, list[ShoeSummary]] = {}
        for r in rows:
            if r.ended_at >= start:
                by_table.setdefault(r.table, []).append(r)
        return start, end, by_table

    def _past(self, table: str, day: date, start: float, end: float, rows: list[ShoeSummary],
              on_disk: Callable[[], Mapping[str, tuple[str, str]]] | None = None) -> TableDay:
        key = (table, day)
        fingerprint = tuple((r.shoe, r.version) for r in rows)
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None and hit[0] == fingerprint:
                self._cache.move_to_end(key)
                return hit[1]
        fp = None
        if self.disk is not None:
            fp = day_fingerprint(fingerprint)
            row = on_disk().get(table) if on_disk is not None else self.disk.get(self.zone, day.isoformat(), table)
            if row is not None and row[0] == fp:
                try:
                    kept = TableDay.from_state(json.loads(row[1]))
                except ValueError:
                    kept = None
                if kept is not None:
                    self._remember(key, fingerprint, kept)
                    return kept
        out = self._compute(table, start, end, rows)
        self._remember(key, fingerprint, out)
        if self.disk is not None and fp is not None:
            self.disk.put(self.zone, day.isoformat(), table, fp, json.dumps(out.state(), separators=(",", ":")))
        return out

    def _remember(self, key: tuple[str, date], fingerprint: tuple, value: TableDay) -> None:
        with self._lock:
            self._cache[key] = (fingerprint, value)
            self._cache.move_to_end(key)
            while len(self._cache) > self._cache_entries:
                self._cache.popitem(last=False)

    def _compute(self, table: str, start: float, end: float, rows: list[ShoeSummary]) -> TableDay:
        """A table-day's past part from its summaries (and the documents of shoes across a bound)."""
        out = TableDay()
        if rows:
            full = {r.shoe: r for r in self.history.shoe_summaries_between(
                min(r.started_at for r in rows), max(r.started_at for r in rows) + 1e-3, table=table, stats=True)}
            for r in rows:
                line = json.loads(r.line)
                variant, decks = line["variant"]["id"], int(line["decks"])
                inside = r.started_at >= start and r.ended_at < end
                stored = full.get(r.shoe)
                if inside and stored is not None and stored.stats is not None:
                    out.add(json.loads(stored.stats), variant, decks)
                    continue
                shoe = self.history.past_shoe(table, r.shoe)
                if shoe is not None:
                    out.add(shoe_stats(shoe, start, end), shoe.variant.id, shoe.decks)
        return out

    def _table_day(self, table: str, day: date, start: float, end: float, rows: list[ShoeSummary]) -> TableDay:
        past = self._past(table, day, start, end, rows)
        live = self.live(table, start, end)
        if live is None or any(r.shoe == live[0] for r in rows):
            return past
        out = TableDay()
        out.merge(past)
        out.add(live[1], live[2], live[3])
        return out

    def table_day(self, table: str, day: date) -> TableDay:
        """``table``'s figures of gaming day ``day``."""
        start, end, by_table = self._rows(day, table)
        return self._table_day(table, day, start, end, by_table.get(table, []))

    def warm(self, now: float, shoes: Iterable[tuple[str, int]] = ()) -> list[date]:
        """Fill the caches (memory and disk) with the past parts of the floor's days at ``now``
        (today, yesterday) and of the days of ``shoes`` (``(table, shoe)`` pairs closed or changed);
        the days warmed, in order (the maintenance thread calls this, off the request path)."""
        today = self.gaming_day.day_of(now)
        days = {today, today - timedelta(days=1)}
        for table, shoe in shoes:
            s = self.history.shoe_summary(table, shoe)
            if s is None:
                continue
            day, last = self.gaming_day.day_of(s.started_at), self.gaming_day.day_of(s.ended_at)
            while day <= last and len(days) < WARM_DAYS:
                days.add(day)
                day += timedelta(days=1)
        out = sorted(days)
        for day in out:
            self._floor_past(day)
        return out

    def cached(self, table: str, day: date) -> TableDay | None:
        """``table``'s past part of ``day`` in memory, or ``None`` (not read nor warmed; tests)."""
        with self._lock:
            hit = self._cache.get((table, day))
        return None if hit is None else hit[1]

    # ------------------------------------------------------------------ answers
    def _day_head(self, day: date) -> dict[str, Any]:
        start, end = self.gaming_day.bounds(day)
        return {"day": day.isoformat(), "from": iso_time(start), "to": iso_time(end)}

    def table_day_json(self, table: str, day: date) -> dict[str, Any]:
        """``{"table", "day", "from", "to", ...DayTally.json(), "dealers": [...]}``."""
        t = self.table_day(table, day)
        return {"table": table, **self._day_head(day), **t.total.json(), "dealers": t.dealers_json()}

    def table_range_json(self, table: str, first: date, last: date) -> dict[str, Any]:
        """``{"table", "from_day", "to_day", "days": [{"day", "rounds", "results", "test", ...}],
        "total": {...}, "dealers": [...]}`` over the days ``first`` to ``last``."""
        total = TableDay()
        days = []
        day = first
        while day <= last:
            t = self.table_day(table, day)
            total.merge(t)
            days.append({**self._day_head(day), **t.total.json()})
            day += timedelta(days=1)
        return {"table": table, "from_day": first.isoformat(), "to_day": last.isoformat(), "days": days,
                "total": total.total.json(), "dealers": total.dealers_json()}

    def _floor_past(self, day: date) -> tuple[float, float, dict[str, list[ShoeSummary]], list[str],
                                              dict[str, TableDay], TableDay]:
        """``day``'s bounds, summaries by table, table ids, each table's past part and their sum
        (cached per day, keyed by every table's summaries' versions)."""
        start, end, by_table = self._rows(day, None)
        ids = sorted(set(by_table) | set(self.tables()))
        rows_on_disk: list[Mapping[str, tuple[str, str]]] = []

        def on_disk() -> Mapping[str, tuple[str, str]]:  # the day's rows, read once if a table needs them
            if not rows_on_disk:
                rows_on_disk.append(self.disk.day(self.zone, day.isoformat()) if self.disk is not None else {})
            return rows_on_disk[0]

        pasts = {t: self._past(t, day, start, end, by_table.get(t, []), on_disk) for t in ids}
        key = tuple((t, tuple((r.shoe, r.version) for r in by_table.get(t, ()))) for t in ids)
        with self._lock:
            hit = self._floors.get(day)
        floor_past = hit[1] if hit is not None and hit[0] == key else None
        if floor_past is None and self.disk is not None:  # a new process: the floor's sum on disk
            fp = day_fingerprint(key)
            row = on_disk().get(FLOOR_ROW)
            if row is not None and row[0] == fp:
                try:
                    floor_past = TableDay.from_state(json.loads(row[1]))
                except ValueError:
                    floor_past = None
        if floor_past is None:
            floor_past = TableDay()
            for p in pasts.values():
                floor_past.merge(p)
            if self.disk is not None:
                self.disk.put(self.zone, day.isoformat(), FLOOR_ROW, day_fingerprint(key),
                              json.dumps(floor_past.state(), separators=(",", ":")))
        if hit is None or hit[0] != key:
            with self._lock:
                self._floors[day] = (key, floor_past)
                self._floors.move_to_end(day)
                while len(self._floors) > FLOOR_CACHE_DAYS:
                    self._floors.popitem(last=False)
        return start, end, by_table, ids, pasts, floor_past

    def _floor(self, day: date) -> tuple[TableDay, list[tuple[str, TableDay]]]:
        """The floor's :class:`TableDay` of ``day`` and each table's with a round in it."""
        start, end, by_table, ids, pasts, floor_past = self._floor_past(day)
        floor = TableDay()
        floor.merge(floor_past)
        tables = []
        for t in ids:
            td = pasts[t]
            live = self.live(t, start, end)
            if live is not None and not any(r.shoe == live[0] for r in by_table.get(t, ())):
                one = TableDay()
                one.merge(td)
                one.add(live[1], live[2], live[3])
                floor.add(live[1], live[2], live[3])
                td = one
            if td.total.rounds or td.total.shoes:
                tables.append((t, td))
        return floor, tables

    def floor_day(self, day: date, names: Mapping[str, str] | None = None) -> dict[str, Any]:
        """``{"day", "from", "to", "floor": {...}, "tables": [{"table", "name", "rounds",
        "shoes", "results", "rounds_per_hour", "longest_*_streak", "test"}], "flagged": [table
        ids], "dealers": [...]}``: every table with a round in the day."""
        floor, per_table = self._floor(day)
        tables = [{"table": t, "name": (names or {}).get(t, t), **td.total.line_json()} for t, td in per_table]
        return {**self._day_head(day), "floor": floor.total.json(), "tables": tables,
                "flagged": [t["table"] for t in tables if t["test"]["flagged"]], "dealers": floor.dealers_json()}

    def floor_range_json(self, first: date, last: date, names: Mapping[str, str] | None = None) -> dict[str, Any]:
        """``{"from_day", "to_day", "days": [{"day", "from", "to", figures, "flagged"}], "total",
        "dealers"}``."""
        total = TableDay()
        days = []
        day = first
        while day <= last:
            one, per_table = self._floor(day)
            total.merge(one)
            flagged = [t for t, td in per_table if td.total.test()["flagged"]]
            days.append({**self._day_head(day), **one.total.json(), "flagged": flagged})
            day += timedelta(days=1)
        return {"from_day": first.isoformat(), "to_day": last.isoformat(), "days": days, "total": total.total.json(),
                "dealers": total.dealers_json()}
