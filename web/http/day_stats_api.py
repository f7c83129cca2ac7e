"""Gaming-day statistics over HTTP (docs/api.md "Gaming days"; :mod:`web.day_stats`).

- ``GET /api/stats/days/<day>``: the floor's figures of one gaming day (``today``, ``yesterday``
  or ``YYYY-MM-DD``), with each table's line and the tables flagged improbable
- ``GET /api/stats/days?from=<day>&to=<day>``: the floor, day by day and in total (at most
  :data:`web.day_stats.MAX_FLOOR_DAYS` days)
- ``GET /api/tables/<id>/stats/days/<day>``: one table's day, with its dealers
- ``GET /api/tables/<id>/stats/days?from=<day>&to=<day>``: one table, day by day and in total
  (at most :data:`web.day_stats.MAX_TABLE_DAYS` days)

A bad day or range is a 400 ``bad_parameter`` naming ``day``, ``from`` or ``to``; an unknown table
a 404 ``unknown_table``; a store that keeps no history (Redis without ``ROADS_HISTORY_URL``) a 503
``history_unavailable``.
"""

from __future__ import annotations

import threading
from datetime import date
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, Response, current_app, request

from roads.archive import shoe_stats
from roads.gaming_day import GamingDay
from web import extensions
from web.day_cache import DayCache
from web.day_stats import MAX_FLOOR_DAYS, MAX_TABLE_DAYS, DayStats
from web.http.errors import ApiError, BadRequest
from web.http.integrity_api import day_flags
from web.service import Service, get_service
from web.settings import get_settings
from web.snapshots import encode
from web.stores.base import HistoryReader

bp = Blueprint("day_stats", __name__, url_prefix="/api")

FIRST_YEAR, LAST_YEAR = 1971, 9998
"""Days outside these years are a 400 (their bounds would not be Unix times)."""


def _live(service: Service):
    """The live shoes' statistics in a range, cached per ``(table, shoe, version, range)``."""
    cache: dict[str, tuple[tuple, Any]] = {}
    lock = threading.Lock()

    def live(table: str, start: float, end: float):
        slot = service.tables.slots.get(table)
        if slot is None:
            return None
        with slot.lock:
            cur = slot.table.current
            if cur is None or not cur.rounds or cur.rounds[-1].at < start or cur.rounds[0].at >= end:
                return None
            key = (cur.number, cur.version, start, end)
            with lock:
                hit = cache.get(table)
            if hit is not None and hit[0] == key:
                return hit[1]
            out = (cur.number, shoe_stats(cur, start, end), cur.variant.id, cur.decks)
        with lock:
            cache[table] = (key, out)
        return out

    return live


def day_stats(app: Flask | None = None) -> DayStats:
    """The app's :class:`web.day_stats.DayStats` (made on first use); 503 ``history_unavailable``
    when the store keeps no history."""
    app = app or current_app
    made = app.extensions.get(extensions.DAY_STATS)
    if made is None:
        service = get_service(app)
        if not isinstance(service.store, HistoryReader):
            raise ApiError("this store keeps no history (set ROADS_HISTORY_URL with ROADS_REDIS_URL)",
                           code="history_unavailable", status=503)
        settings = get_settings(app)
        made = DayStats(service.store, GamingDay.of(settings.venue_tz, settings.gaming_day_start), _live(service),
                        lambda: [i for i, t in list(service.tables.slots.items()) if t.visible],
                        disk=DayCache(Path(settings.data_dir) / DayCache.FILENAME))
        app.extensions[extensions.DAY_STATS] = made
    return made


def init_app(app: Flask) -> None:
    """Have the service's maintenance thread warm the day caches once at start and after each
    shoe closed or changed (:meth:`web.day_stats.DayStats.warm`), off the request path."""
    service = get_service(app)
    if service.maintenance is None or not isinstance(service.store, HistoryReader):
        return
    stats = day_stats(app)
    service.maintenance.add_task(lambda shoes: stats.warm(service.clock(), shoes))
    if stats.disk is not None:
        service.on_close(stats.disk.close)


def parse_day(text: str, field: str, stats: DayStats) -> date:
    """A day of the path or query (``today``, ``yesterday``, ``YYYY-MM-DD``); 400 naming ``field``."""
    try:
        day = stats.gaming_day.parse_day(text, get_service().clock())
    except ValueError as e:
        raise BadRequest(str(e), code="bad_parameter", field=field) from None
    if not FIRST_YEAR <= day.year <= LAST_YEAR:
        raise BadRequest(f"{text!r} is outside the years {FIRST_YEAR}-{LAST_YEAR}", code="bad_parameter", field=field)
    return day


def parse_range(stats: DayStats, most: int) -> tuple[date, date]:
    """``from`` and ``to`` of the query (both required, ``to`` not before ``from``, at most
    ``most`` days); 400 naming the option."""
    for name in ("from", "to"):
        if name not in request.args:
            raise BadRequest(f"the range needs {name}=YYYY-MM-DD", code="bad_parameter", field=name)
    first = parse_day(request.args["from"], "from", stats)
    last = parse_day(request.args["to"], "to", stats)
    if last < first:
        raise BadRequest(f"to {last} is before from {first}", code="bad_parameter", field="to")
    if (last - first).days + 1 > most:
        raise BadRequest(f"{(last - first).days + 1} days; at most {most}", code="bad_parameter", field="to")
    return first, last


def table_day_body(stats: DayStats, table: str, day: date) -> dict[str, Any]:
    """:meth:`web.day_stats.DayStats.table_day_json` with the day's ``"integrity"`` flags."""
    return {**stats.table_day_json(table, day), "integrity": day_flags(table, *stats.gaming_day.bounds(day))}


def floor_day_body(stats: DayStats, day: date, names: dict[str, str]) -> dict[str, Any]:
    """:meth:`web.day_stats.DayStats.floor_day` with the day's ``"integrity"`` flags."""
    return {**stats.floor_day(day, names), "integrity": day_flags(None, *stats.gaming_day.bounds(day))}


def _json(obj: Any) -> Response:
    resp = Response(encode(obj), mimetype="application/json")
    resp.headers["Cache-Control"] = "no-cache"
    return resp


def _names() -> dict[str, str]:
    return {i: t.name for i, t in list(get_service().tables.slots.items())}


@bp.get("/stats/days/<day>")
def floor_day(day: str) -> Response:
    """The floor's gaming day (:meth:`web.day_stats.DayStats.floor_day`)."""
    stats = day_stats()
    return _json(floor_day_body(stats, parse_day(day, "day", stats), _names()))


@bp.get("/stats/days")
def floor_days() -> Response:
    """The floor over ``from``..``to`` (:meth:`web.day_stats.DayStats.floor_range_json`)."""
    stats = day_stats()
    first, last = parse_range(stats, MAX_FLOOR_DAYS)
    return _json(stats.floor_range_json(first, last, _names()))


@bp.get("/tables/<table_id>/stats/days/<day>")
def table_day(table_id: str, day: str) -> Response:
    """One table's gaming day (:meth:`web.day_stats.DayStats.table_day_json`); 404 unknown table."""
    stats = day_stats()
    get_service().read.table(table_id)
    return _json(table_day_body(stats, table_id, parse_day(day, "day", stats)))


@bp.get("/tables/<table_id>/stats/days")
def table_days(table_id: str) -> Response:
    """One table over ``from``..``to`` (:meth:`web.day_stats.DayStats.table_range_json`)."""
    stats = day_stats()
    get_service().read.table(table_id)
    first, last = parse_range(stats, MAX_TABLE_DAYS)
    return _json(stats.table_range_json(table_id, first, last))
