"""Trends pages: a table's and the floor's gaming day as a picture, HTML and PNG from one model
(:mod:`web.render.trends`; docs/frontend.md "Trends").

- ``GET /tables/<id>/trends`` and ``/tables/<id>/trends.png``
- ``GET /trends`` and ``/trends.png`` (the floor)

Options: ``day`` (``today`` by default, ``yesterday`` or ``YYYY-MM-DD``), ``theme``
(``dark``/``light``) and ``lang`` (as the boards: pages fall back to Accept-Language, the PNG
refuses an unknown language). A bad option is a 400 ``bad_parameter`` naming it; an unknown
table a 404.
The page repaints nothing live: it reloads every minute; the PNG is drawn per request (a day's
figures change with every round) and cached by browsers for ``ROADS_PNG_MAX_AGE_S``.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, render_template, request, url_for

from web.http import render_gate
from web.http.day_stats_api import day_stats, floor_day_body, parse_day, table_day_body
from web.http.display import lang_arg, theme_arg
from web.render import paint_png
from web.render.theme import THEMES
from web.render.trends import trends_model, trends_title
from web.service import get_service
from web.settings import get_settings

bp = Blueprint("trends", __name__)


def _day_arg():
    stats = day_stats()
    return stats, parse_day(request.args.get("day") or "today", "day", stats)


def _table_model(table_id: str, theme: str, lang: str) -> dict[str, Any]:
    info = get_service().read.table(table_id)
    stats, day = _day_arg()
    return trends_model(table_day_body(stats, table_id, day), theme=theme, name=info["name"], lang=lang)


def _floor_model(theme: str, lang: str) -> dict[str, Any]:
    stats, day = _day_arg()
    names = {i: t.name for i, t in list(get_service().tables.slots.items())}
    return trends_model(floor_day_body(stats, day, names), theme=theme, lang=lang)


def _page(model: dict[str, Any], title: str, api_url: str) -> str:
    theme = model["theme"]
    return render_template("trends.html", model=model, title=title, api_url=api_url, lang=model["lang"], theme=theme,
                           themes=list(THEMES))


def _png(model: dict[str, Any]) -> Response:
    with render_gate.get_gate().turn():
        data = render_gate.RenderGate.off_loop(
            lambda: paint_png.encode_png(paint_png.paint(model, indexed=True), theme=model["theme"]))
    return Response(data, mimetype="image/png",
                    headers={"Cache-Control": f"public, max-age={int(get_settings().png_max_age_s)}"})


@bp.get("/tables/<table_id>/trends")
def table_trends(table_id: str) -> str:
    """The table's trends page (HTML painting the model)."""
    theme = theme_arg("dark")
    model = _table_model(table_id, theme, lang_arg())
    name = get_service().read.table(table_id)["name"]
    return _page(model, trends_title(model["lang"], name),
                 url_for("day_stats.table_day", table_id=table_id, day=model["day"]))


@bp.get("/tables/<table_id>/trends.png")
def table_trends_png(table_id: str) -> Response:
    """The table's trends picture (1920x1080 PNG)."""
    theme = theme_arg("dark", strict=True)
    return _png(_table_model(table_id, theme, lang_arg(strict=True)))


@bp.get("/trends")
def floor_trends() -> str:
    """The floor's trends page (HTML painting the model)."""
    theme = theme_arg("dark")
    model = _floor_model(theme, lang_arg())
    return _page(model, trends_title(model["lang"]), url_for("day_stats.floor_day", day=model["day"]))


@bp.get("/trends.png")
def floor_trends_png() -> Response:
    """The floor's trends picture (1920x1080 PNG)."""
    theme = theme_arg("dark", strict=True)
    return _png(_floor_model(theme, lang_arg(strict=True)))
