"""The shoes page of a table: its shoes with their times, rounds and links (``GET /tables/<id>/shoes``).

One row per shoe, newest first, a page at a time (``?limit=`` 1-500, default 50; ``?before=<shoe>``
lists the shoes numbered below it; the page links the next older page and, when not on the
first, the newest): the shoe number (the current one marked), its game (the
variant's name), when it started and ended (the time of its last round; the current shoe
is "in play" with the time of its last round so far), the rounds counted and voided, and
links to its board page (``/tables/<id>/shoes/<n>``; the live board for the current shoe),
its PNG (``/tables/<id>/shoes/<n>/board.png``) and its JSON (``/api/tables/<id>/shoes/<n>``).
The data is :meth:`web.read_model.ReadModel.shoes_page`, the same as the JSON twin
``GET /api/tables/<id>/shoes`` (linked from the page, same page).

Times are shown in :func:`display_zone` (UTC until the settings name a venue time zone), and
the page says which zone. Query options: ``lang`` (else Accept-Language) and ``theme``
(``dark`` | ``light``, default dark; empty = default); links keep both. Errors: an unknown
table is a 404 and a bad ``theme`` a 400 (code ``bad_parameter``), as every page
(:mod:`web.http.errors`), as is a bad ``limit`` or ``before``. No inline script: the page is plain HTML.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone, tzinfo
from typing import Any

from flask import Blueprint, render_template, request, url_for

from web import i18n
from web.http.query import choice_arg, page_query, shoe_page_args
from web.read_model import SHOE_PAGE
from web.service import get_service

bp = Blueprint("shoes_pages", __name__)

THEMES: tuple[str, ...] = ("dark", "light")
"""Accepted ``?theme=`` values (as on every page)."""


def display_zone() -> tuple[tzinfo, str]:
    """``(time zone, its label)`` the page shows times in: UTC, labelled ``"UTC"``.

    The one place to switch to the venue's time zone once the settings carry one.
    """
    return timezone.utc, "UTC"


def local_time(iso: str | None, zone: tzinfo) -> str | None:
    """``"2024-06-15T14:03:22.120Z"`` -> ``"2024-06-15 14:03:22"`` in ``zone`` (``None`` stays ``None``).

    Raises ``ValueError`` for text that is not an ISO 8601 time.
    """
    if iso is None:
        return None
    at = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    return at.astimezone(zone).strftime("%Y-%m-%d %H:%M:%S")


def _rows(table_id: str, shoes: list[dict[str, Any]], keep: dict[str, str], zone: tzinfo,
          lang: str) -> list[dict[str, Any]]:
    rows = []
    for s in shoes:  # newest first
        n = s["shoe"]
        board = (url_for("pages.table", table_id=table_id, **keep) if s["live"]
                 else url_for("pages.past_shoe", table_id=table_id, shoe=n, **keep))
        rows.append({
            "shoe": n,
            "live": s["live"],
            "variant": i18n.variant_name(s["variant"], lang),
            "started": local_time(s["started_at"], zone),
            "started_iso": s["started_at"],
            "ended": local_time(s["ended_at"], zone),
            "ended_iso": s["ended_at"],
            "last_round": local_time(s["last_round_at"], zone),
            "last_round_iso": s["last_round_at"],
            "counted": s["counted"],
            "voided": s["voided"],
            "board_url": board,
            "png_url": url_for("png.shoe_board_png", table_id=table_id, shoe=n, **keep),
            "json_url": url_for("api.shoe", table_id=table_id, shoe=n),
        })
    return rows


@bp.get("/tables/<table_id>/shoes")
def shoes(table_id: str) -> str:
    """One page of the table's shoes, newest first (see the module doc). 404 for an unknown
    table; 400 for a bad ``theme``, ``limit`` or ``before``."""
    theme = choice_arg("theme", THEMES, "dark", blank_is_default=True)
    before, limit = shoe_page_args()
    lang = i18n.pick_language(request)
    service = get_service()
    info = service.read.table(table_id)
    lines, after = service.read.shoes_page(table_id, before=before, limit=limit)
    listing = [json.loads(line) for line in lines]
    zone, zone_label = display_zone()
    keep = {k: v for k, v in (("lang", request.args.get("lang")), ("theme", request.args.get("theme"))) if v}
    args = page_query()
    paging = {k: str(v) for k, v in (("before", before), ("limit", limit if limit != SHOE_PAGE else None))
              if v is not None}
    sized = {"limit": str(limit)} if limit != SHOE_PAGE else {}

    def here(**changes: str) -> str:
        return url_for("shoes_pages.shoes", table_id=table_id, **{**args, **paging, **changes})

    return render_template(
        "shoes.html",
        info=info,
        rows=_rows(table_id, listing, keep, zone, lang),
        zone_label=zone_label,
        lang=lang,
        theme=theme,
        t=lambda key, **values: i18n.translate(key, lang, **values),
        table_url=url_for("pages.table", table_id=table_id, **keep),
        lobby_url=url_for("pages.lobby", **keep),
        api_url=url_for("api.shoes", table_id=table_id, **paging),
        older_url=None if after is None else url_for("shoes_pages.shoes", table_id=table_id,
                                                     **{**args, **sized, "before": str(after)}),
        newest_url=None if before is None else url_for("shoes_pages.shoes", table_id=table_id, **{**args, **sized}),
        languages=[(code, i18n.translate("lang.name", code), here(lang=code)) for code in i18n.LANGUAGES],
        themes=[(name, here(theme=name)) for name in THEMES],
    )
