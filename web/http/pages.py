"""HTML scoreboards: table board, embeddable widget, lobby wall and past shoes (docs/frontend.md).

Every page is built from the same data as its JSON twin (linked from the page): the view
puts the service's snapshot (or lobby list), the pixel geometry from :mod:`web.render.layout` and
the label catalogue of :mod:`web.i18n` into the page as JSON, and ``static/js/roads.js``
draws the roads as SVG from them. The geometry is the one the PNG renderer uses, so HTML
and PNG put every cell in the same place.

Routes (all ``GET``):

- ``/`` -> 302 to ``/lobby`` (query string kept)
- ``/lobby``: every table; JSON twin ``/api/tables``; live over ``/ws/lobby``
- ``/tables/<table_id>``: the full board of the current shoe; JSON twin
  ``/api/tables/<table_id>``; live over ``/ws/tables/<table_id>``
- ``/tables/<table_id>/shoes/<shoe>``: any shoe, same board, not live; JSON twin
  ``/api/tables/<table_id>/shoes/<shoe>``
- ``/embed/<table_id>``: compact live widget for an ``<iframe>``

Query options: ``lang`` (``en``, ``zh``, ``th``, ``my``, ``lo``; else Accept-Language), ``theme``
(``dark`` | ``light``; boards and the lobby default to dark, the embed to light), ``cols``
(big-road columns, 1-200). The embed also takes ``roads`` (comma-separated road names, default
all five), ``w`` and ``h`` (the widget's design size in pixels, default 800x450: the drawing
scales to the iframe, ``w``/``h`` set its proportions and how many cells fit).

Errors: an unknown table or shoe is a 404 and a bad option a 400 (code ``bad_parameter``,
:mod:`web.http.query`), in the one error shape of :mod:`web.http.errors` (a small HTML page for
browsers). An unsupported ``lang`` is not an error here: the page falls back as
:func:`web.i18n.pick_language` says (the PNG routes refuse it).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, Response, redirect, render_template, request, url_for

from web import i18n
from web.http.errors import BadRequest
from web.render.layout import LayoutError, board_layout
from web.http.query import BAD_PARAMETER, bad_parameter, choice_arg, int_arg
from web.service import get_service

bp = Blueprint("pages", __name__)

THEMES: tuple[str, ...] = ("dark", "light")
"""Accepted ``?theme=`` values."""

BOARD_SIZES: dict[str, tuple[int, int]] = {"landscape": (1920, 1080), "portrait": (1080, 1920)}
"""Design sizes (px) of the full board; the page picks the one matching the viewport's shape."""

TILE_SIZE: tuple[int, int] = (480, 270)
"""Design size (px) of a lobby tile (16:9); tiles scale to the space the wall gives them."""

TILE_SIZES: tuple[tuple[int, int], ...] = (TILE_SIZE, (480, 240), (480, 200))
"""Tile shapes the lobby chooses from (16:9, 2:1, 2.4:1, as ``web.render.layout.lobby_layout`` allows):
the wall takes the one that best fills the space each table gets (wider tiles show more columns)."""

EMBED_DEFAULT_SIZE: tuple[int, int] = (800, 450)
"""Default design size (px) of the embed widget."""

EMBED_SNIPPET_ROADS = ("big_road", "bead_plate")
"""Roads shown by the example embed snippet on the table page."""


def _theme(default: str) -> str:
    """``?theme=`` or ``default``; raises :class:`BadRequest` (field ``theme``) for another value."""
    return choice_arg("theme", THEMES, default, blank_is_default=True)


def _layout(width: int, height: int, *, kind: str, roads: Any = None, columns: int | None = None,
            size_fields: tuple[str, str] = ("w", "h")) -> dict[str, Any]:
    """:func:`web.render.layout.board_layout`, with its :class:`LayoutError` as a 400 naming our query field."""
    try:
        return board_layout(width, height, kind=kind, roads=roads, columns=columns)
    except LayoutError as e:
        field = {"width": size_fields[0], "height": size_fields[1], "columns": "cols"}.get(e.field)
        raise bad_parameter(e, field) from None


def _ws_path(endpoint: str, **values: Any) -> str:
    """Path of a WebSocket route (``url_for`` builds ``ws://host/...`` for those; the browser
    adds its own scheme and host, so pages behind a TLS proxy use ``wss://``)."""
    parts = urlsplit(url_for(endpoint, **values))
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _common(lang: str, theme: str) -> dict[str, Any]:
    """Template values every page uses: language, theme, catalogue and switcher links."""
    args = request.args.to_dict()

    def with_args(**changes: str) -> str:
        merged = {**args, **changes}
        return url_for(request.endpoint, **(request.view_args or {}), **merged)

    return {
        "lang": lang,
        "theme": theme,
        "labels": i18n.catalogue(lang),
        "t": lambda key, **values: i18n.translate(key, lang, **values),
        "languages": [(code, i18n.translate("lang.name", code), with_args(lang=code)) for code in i18n.LANGUAGES],
        "themes": [(name, with_args(theme=name)) for name in THEMES],
        "keep": {k: v for k, v in (("lang", request.args.get("lang")), ("theme", request.args.get("theme"))) if v},
    }


@bp.get("/")
def index() -> Response:
    """302 to the lobby, keeping the query string (``/?lang=th`` -> ``/lobby?lang=th``)."""
    return redirect(url_for("pages.lobby", **request.args.to_dict()))


@bp.get("/lobby")
def lobby() -> str:
    """Every table as a tile (big road, last result, side-bet counters, good roads); live.

    Query: ``lang``, ``theme`` (default dark). 400 for a bad ``theme``.
    """
    theme = _theme("dark")
    lang = i18n.pick_language(request)
    service = get_service()
    version, _payload = service.lobby_json()
    tables = service.list_tables()
    tiles = [_layout(w, h, kind="tile") for w, h in TILE_SIZES]
    ctx = _common(lang, theme)
    boot = {
        "page": "lobby",
        "version": version,
        "tables": tables,
        "tile": tiles[0],  # TILE_SIZES[0] is TILE_SIZE
        "tiles": tiles,
        "labels": ctx["labels"],
        "ws": _ws_path("ws.lobby_socket"),
        "tableUrl": url_for("pages.table", table_id="{id}").replace("%7Bid%7D", "{id}"),
        "query": ("?" + "&".join(f"{k}={v}" for k, v in ctx["keep"].items())) if ctx["keep"] else "",
    }
    return render_template("lobby.html", boot=boot, tables=tables, api_url=url_for("api.tables"), **ctx)


@bp.get("/tables/<table_id>")
def table(table_id: str) -> str:
    """The full live scoreboard of a table's current shoe.

    Query: ``lang``, ``theme`` (default dark), ``cols``. 404 for an unknown table; 400 for a
    bad ``theme`` or ``cols``.
    """
    return _board(table_id, None)


@bp.get("/tables/<table_id>/shoes/<int:shoe>")
def past_shoe(table_id: str, shoe: int) -> str:
    """Any shoe of a table (past or current), drawn like the live board but not live.

    404 for an unknown table or shoe; 400 for a bad option.
    """
    return _board(table_id, shoe)


def _board(table_id: str, shoe: int | None) -> str:
    theme = _theme("dark")
    lang = i18n.pick_language(request)
    columns = int_arg("cols", None)
    service = get_service()
    info = service.table(table_id)
    snapshot = service.snapshot(table_id, shoe)
    shoes = service.shoes(table_id)
    layouts = {
        name: _layout(w, h, kind="board", columns=columns, size_fields=("cols", "cols"))
        for name, (w, h) in BOARD_SIZES.items()
    }
    live = shoe is None
    ctx = _common(lang, theme)
    if live:
        api_url = url_for("api.table", table_id=table_id)
    else:
        api_url = url_for("api.shoe", table_id=table_id, shoe=shoe)
    embed_url = url_for("pages.embed", table_id=table_id, roads=",".join(EMBED_SNIPPET_ROADS), lang=lang,
                        theme="light", _external=True)
    boot = {
        "page": "table" if live else "past",
        "table": table_id,
        "live": live,
        "ws": _ws_path("ws.table_socket", table_id=table_id) if live else None,
        "snapshot": snapshot,
        "layouts": layouts,
        "labels": ctx["labels"],
        "compact": False,
    }
    return render_template(
        "table.html", boot=boot, info=info, snapshot=snapshot, shoes=shoes, live=live,
        api_url=api_url, png_url=_png_url(table_id, shoe), embed_url=embed_url,
        embed_size=EMBED_DEFAULT_SIZE, **ctx,
    )


def _png_url(table_id: str, shoe: int | None) -> str:
    """The PNG twin of a board (``png.board_png`` / ``png.shoe_board_png``)."""
    if shoe is None:
        return url_for("png.board_png", table_id=table_id)
    return url_for("png.shoe_board_png", table_id=table_id, shoe=shoe)


@bp.get("/embed/<table_id>")
def embed(table_id: str) -> str:
    """Compact live widget for an ``<iframe>``.

    Query: ``roads`` (comma-separated names of :data:`web.render.layout.ROAD_NAMES`; default all),
    ``cols``, ``w``/``h`` (design size px, default 800x450), ``theme`` (default light), ``lang``.
    404 for an unknown table; 400 naming the option for a bad one.
    """
    theme = _theme("light")
    lang = i18n.pick_language(request)
    raw_roads = request.args.get("roads")
    roads = None
    if raw_roads:
        roads = [name.strip() for name in raw_roads.split(",") if name.strip()]
        if not roads:
            raise BadRequest(f"roads must name at least one road, got {raw_roads!r}", field="roads",
                             code=BAD_PARAMETER)
    columns = int_arg("cols", None)
    width = int_arg("w", EMBED_DEFAULT_SIZE[0])
    height = int_arg("h", EMBED_DEFAULT_SIZE[1])
    layout = _layout(width, height, kind="embed", roads=roads, columns=columns)  # type: ignore[arg-type]
    service = get_service()
    info = service.table(table_id)
    snapshot = service.snapshot(table_id)
    ctx = _common(lang, theme)
    boot = {
        "page": "embed",
        "table": table_id,
        "live": True,
        "ws": _ws_path("ws.table_socket", table_id=table_id),
        "snapshot": snapshot,
        "layouts": {"fixed": layout},
        "labels": ctx["labels"],
        "compact": True,
    }
    return render_template("embed.html", boot=boot, info=info, api_url=url_for("api.table", table_id=table_id), **ctx)
