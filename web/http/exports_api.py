"""Round exports over HTTP, streamed as they are read (docs/api.md "Exports"; columns:
:mod:`roads.export`):

- ``GET /api/tables/<id>/shoes/<shoe>/rounds.csv`` and ``.jsonl``: one shoe, live or past
- ``GET /api/tables/<id>/days/<day>/rounds.csv`` and ``.jsonl``: one table's gaming day
- ``GET /api/days/<day>/rounds.csv`` and ``.jsonl``: the floor's gaming day, table by table

Unknown table or shoe: 404; a bad day: 400 ``bad_parameter`` naming ``day`` (checked before the
first byte is sent).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Iterable, Iterator

from flask import Blueprint, Flask, Response, current_app

from roads.errors import UnknownShoe
from roads.export import FORMATS
from roads.record import ShoeRecord
from web import extensions
from web.http.day_stats_api import day_stats, parse_day
from web.round_export import RoundExport
from web.service import Service, get_service

bp = Blueprint("exports", __name__, url_prefix="/api")


def _shoe_of(service: Service):
    def shoe_of(table: str, number: int) -> ShoeRecord | None:
        slot = service.tables.slots.get(table)
        if slot is None:
            return None
        with slot.lock:
            cur = slot.table.current
            if cur is not None and cur.number == number:
                return dataclasses.replace(cur, rounds=list(cur.rounds))
            past = slot.table.past
        return past.get(number)
    return shoe_of


def _live_number(service: Service):
    def live_number(table: str) -> int | None:
        slot = service.tables.slots.get(table)
        if slot is None:
            return None
        with slot.lock:
            cur = slot.table.current
            return None if cur is None or not cur.rounds else cur.number
    return live_number


def exporter(app: Flask | None = None) -> RoundExport:
    """The app's :class:`web.round_export.RoundExport` (made on first use, over the same store and
    gaming day as the statistics)."""
    app = app or current_app
    made = app.extensions.get(extensions.ROUND_EXPORT)
    if made is None:
        stats = day_stats(app)
        service = get_service(app)
        made = RoundExport(stats.history, stats.gaming_day, _shoe_of(service), _live_number(service), stats.tables)
        app.extensions[extensions.ROUND_EXPORT] = made
    return made


def streamed(rows: Iterable[dict[str, Any]], fmt: str, filename: str) -> Response:
    """A streamed answer of ``rows`` in ``fmt`` (``csv`` | ``jsonl``), as an attachment."""
    lines, mimetype = FORMATS[fmt]

    def body() -> Iterator[bytes]:
        for line in lines(rows):
            yield line.encode("utf-8")

    resp = Response(body(), content_type=mimetype)
    resp.headers["Content-Disposition"] = f'attachment; filename="{filename}.{fmt}"'
    resp.headers["Cache-Control"] = "no-cache"
    return resp


def _shoe(table_id: str, shoe: int, fmt: str) -> Response:
    get_service().read.table(table_id)
    ex = exporter()
    record = ex.shoe_of(table_id, shoe)
    if record is None:
        raise UnknownShoe(f"table {table_id!r} has no shoe {shoe}", field="shoe")
    return streamed(ex.shoe_rows(table_id, record), fmt, f"{table_id}-shoe-{shoe}-rounds")


def _day(table_id: str | None, day: str, fmt: str) -> Response:
    if table_id is not None:
        get_service().read.table(table_id)
    ex = exporter()
    d = parse_day(day, "day", day_stats())
    rows = ex.day_rows(table_id, d)
    return streamed(rows, fmt, f"{table_id or 'floor'}-{d.isoformat()}-rounds")


@bp.get("/tables/<table_id>/shoes/<int:shoe>/rounds.csv")
def shoe_csv(table_id: str, shoe: int) -> Response:
    """The shoe's rounds as CSV; 404 unknown table or shoe."""
    return _shoe(table_id, shoe, "csv")


@bp.get("/tables/<table_id>/shoes/<int:shoe>/rounds.jsonl")
def shoe_jsonl(table_id: str, shoe: int) -> Response:
    """The shoe's rounds as JSON Lines; 404 unknown table or shoe."""
    return _shoe(table_id, shoe, "jsonl")


@bp.get("/tables/<table_id>/days/<day>/rounds.csv")
def table_day_csv(table_id: str, day: str) -> Response:
    """The table's rounds of a gaming day as CSV."""
    return _day(table_id, day, "csv")


@bp.get("/tables/<table_id>/days/<day>/rounds.jsonl")
def table_day_jsonl(table_id: str, day: str) -> Response:
    """The table's rounds of a gaming day as JSON Lines."""
    return _day(table_id, day, "jsonl")


@bp.get("/days/<day>/rounds.csv")
def floor_day_csv(day: str) -> Response:
    """Every table's rounds of a gaming day as CSV, table by table."""
    return _day(None, day, "csv")


@bp.get("/days/<day>/rounds.jsonl")
def floor_day_jsonl(day: str) -> Response:
    """Every table's rounds of a gaming day as JSON Lines, table by table."""
    return _day(None, day, "jsonl")
