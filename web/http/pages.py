"""HTML scoreboards: table board, embeddable widget, lobby screens, past shoes, and their models.

Every page paints the board model of :mod:`web.render.model` with ``static/js/paint.js`` (SVG
whose viewBox is the model's canvas), the same model the PNG routes paint with Pillow, so HTML
and PNG show the same thing. The page gets its first model in its boot JSON; live pages hear
over the WebSocket that the table changed (``/ws/tables/<id>``, ``/ws/lobby``) and fetch the
model again from its JSON route. Colours come from ``/theme.css`` (:func:`web.render.theme.theme_css`).

Routes (all ``GET``):

- ``/`` -> 302 to ``/lobby`` (query string kept)
- ``/lobby``: a lobby screen (:mod:`web.http.screens`: ``tables``, ``per_page``, ``rotate_s``);
  ``/screens/<name>``: a named screen (``ROADS_SCREENS``); models at ``/lobby/model.json``
  and ``/screens/<name>/model.json`` (``page``, ``orient`` = ``landscape`` | ``portrait``)
- ``/tables/<table_id>``: the full live board; ``/tables/<table_id>/shoes/<shoe>`` any shoe, not
  live; models at ``/tables/<table_id>/model.json`` (``shoe``, ``ask`` = ``banker`` | ``player``:
  the board as if that side won next)
- ``/embed/<table_id>``: compact live widget for an ``<iframe>``: a header (table name, shoe,
  round) whatever ``roads`` says; ``/embed/<table_id>/model.json``
- ``/theme.css``: the palette as CSS custom properties

Query options: ``lang``, ``theme``, ``bead``, ``good`` (:mod:`web.http.display`), ``cols``
(big-road columns, 1-200); the embed also ``roads`` (comma-separated road names) and ``w``/``h``
(its design size, default 800x450). A bad option is a 400 naming it; an unknown table or shoe a 404.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, Response, jsonify, redirect, render_template, request, url_for

from web import i18n
from web.http import display, screens
from web.http.errors import BadRequest
from web.http.query import BAD_PARAMETER, bad_parameter, int_arg
from web.paths import STATIC_DIR
from web.render.layout import LayoutError
from web.render.model import BoardOptions, ModelError, board_model
from web.render.theme import THEMES, theme_css
from web.push import push_urls
from web.service import get_service
from web.settings import get_settings

bp = Blueprint("pages", __name__)

BOARD_SIZES: dict[str, tuple[int, int]] = {"landscape": (1920, 1080), "portrait": (1080, 1920)}
"""Nominal canvases of boards and screens; the page picks the one matching the viewport's shape."""

EMBED_DEFAULT_SIZE: tuple[int, int] = (800, 450)
EMBED_SNIPPET_SIZE: tuple[int, int] = (600, 300)
"""Size of the widget the table page's snippet produces (and its canvas)."""


def _release() -> str:
    """A digest of what pages are drawn with (render code, scripts, styles, templates): a screen
    whose boot release differs from the server's reloads itself after a new release."""
    h = hashlib.blake2b(digest_size=6)
    render_dir = Path(__file__).resolve().parents[1] / "render"
    templates = Path(__file__).resolve().parents[1] / "templates"
    for folder, pattern in ((render_dir, "*.py"), (Path(STATIC_DIR) / "js", "*.js"), (Path(STATIC_DIR) / "css", "*.css"),
                            (templates, "*.html")):
        for path in sorted(Path(folder).glob(pattern)):
            h.update(path.read_bytes())
    return h.hexdigest()


RELEASE = _release()


def _ws_path(endpoint: str, **values: Any) -> str:
    parts = urlsplit(url_for(endpoint, **values))
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _push(topic: str, endpoint: str, **values: Any) -> dict[str, Any]:
    """Boot keys ``ws`` (where the page subscribes) and ``full`` (where it fetches the latest
    snapshot frame after a gap, or ``None``): the production tier's nchan when
    ``ROADS_PUSH_URL`` is set, else this service's own WebSocket route (``web.push``)."""
    ws, full = push_urls(get_settings().push_url, topic, _ws_path(endpoint, **values))
    return {"ws": ws, "full": full}


def _common(lang: str, theme: str) -> dict[str, Any]:
    """Template values every page uses: language, theme, catalogue and switcher links."""
    args = request.args.to_dict()

    def with_args(**changes: str) -> str:
        return url_for(request.endpoint, **(request.view_args or {}), **{**args, **changes})

    return {
        "lang": lang, "theme": theme,
        "t": lambda key, **values: i18n.translate(key, lang, **values),
        "languages": [(code, i18n.translate("lang.name", code), with_args(lang=code)) for code in i18n.LANGUAGES],
        "themes": [(name, with_args(theme=name)) for name in THEMES],
        "keep": {k: v for k, v in (("lang", request.args.get("lang")), ("theme", request.args.get("theme"))) if v},
    }


def _keepalive_s() -> float:
    return get_settings().ws_keepalive_s


def _model(fn, *args: Any, **kwargs: Any) -> dict[str, Any]:
    try:
        return fn(*args, **kwargs)
    except (LayoutError, ModelError) as e:
        field = {"width": "w", "height": "h", "columns": "cols"}.get(getattr(e, "field", ""), None)
        raise bad_parameter(e, field) from None


# --------------------------------------------------------------------------- palette

@bp.get("/theme.css")
def theme_stylesheet() -> Response:
    """The palette (web/render/theme.py) as CSS custom properties and ``f-``/``s-`` classes."""
    css = theme_css()
    etag = hashlib.blake2b(css.encode(), digest_size=8).hexdigest()
    resp = Response(css, mimetype="text/css", headers={"Cache-Control": "public, max-age=300", "ETag": f'"{etag}"'})
    return resp


# --------------------------------------------------------------------------- table boards

def _board_options(kind: str, width: int, height: int, *, lang: str, theme: str, roads=None,
                   columns: int | None = None) -> BoardOptions:
    return BoardOptions(kind=kind, width=width, height=height, roads=roads, columns=columns, lang=lang, theme=theme,
                        bead=display.bead_arg(), patterns=display.patterns_arg())


def _hypothetical(service: Any, table_id: str, snap: dict[str, Any], side: str) -> dict[str, Any]:
    """``snap`` with its roads as they would be if ``side`` (``banker`` | ``player``) won the next
    round: the shoe's counted rounds (public ``rounds()``) replayed by the roads, plus that result."""
    from roads.outcome import RoundResult
    from roads.shoe_roads import ShoeRoads

    if side not in ("banker", "player"):
        raise BadRequest(f"ask must be banker or player, got {side!r}", field="ask", code=BAD_PARAMETER)
    pairs = []
    for r in service.rounds(table_id, int(snap.get("shoe") or 1)):
        if r.get("void"):
            continue
        res = r.get("result") or {}
        pairs.append((int(r["round"]), RoundResult(
            winner=res["winner"], player_total=int(res["player_total"]), banker_total=int(res["banker_total"]),
            player_pair=bool(res.get("player_pair")), banker_pair=bool(res.get("banker_pair")),
            natural=bool(res.get("natural")))))
    roads = ShoeRoads.from_rounds(pairs)
    winner = "B" if side == "banker" else "P"
    roads.record(max([n for n, _ in pairs], default=0) + 1, RoundResult(
        winner=winner, player_total=0 if winner == "B" else 1, banker_total=1 if winner == "B" else 0,
        player_pair=False, banker_pair=False, natural=False))
    out = dict(snap)
    out["bead_plate"] = roads.bead_plate_json()
    out["big_road"] = roads.big_road_json()
    for k, name in ((1, "big_eye_boy"), (2, "small_road"), (3, "cockroach_pig")):
        out[name] = roads.derived_json(k)
    return out


def _table_models(table_id: str, shoe: int | None, lang: str, theme: str) -> dict[str, Any]:
    service = get_service()
    snap = service.snapshot(table_id, shoe)
    columns = int_arg("cols", None)
    ask = request.args.get("ask")
    if ask:
        snap = _hypothetical(service, table_id, snap, ask)
    facts = display.shoe_facts(service, table_id, snap)
    tz = display.venue_tz()
    models = {}
    for name, (w, h) in BOARD_SIZES.items():
        opts = _board_options("board", w, h, lang=lang, theme=theme, columns=columns)
        models[name] = _model(board_model, snap, opts, last_at=facts["last_at"], tz=tz)
    return {"models": models, "release": RELEASE, "snapshot_version": snap.get("version")}


@bp.get("/tables/<table_id>/model.json")
def table_model(table_id: str) -> Response:
    """The board models (landscape and portrait) of a table's current shoe, or ``?shoe=``."""
    shoe = int_arg("shoe", None)
    return jsonify(_table_models(table_id, shoe, display.lang_arg(), display.theme_arg("dark")))


@bp.get("/")
def index() -> Response:
    """302 to the lobby, keeping the query string (``/?lang=th`` -> ``/lobby?lang=th``)."""
    return redirect(url_for("pages.lobby", **request.args.to_dict()))


@bp.get("/tables/<table_id>")
def table(table_id: str) -> str:
    """The full live scoreboard of a table's current shoe. 404 unknown table; 400 bad option."""
    return _board(table_id, None)


@bp.get("/tables/<table_id>/shoes/<int:shoe>")
def past_shoe(table_id: str, shoe: int) -> str:
    """Any shoe of a table, drawn like the live board but not live."""
    return _board(table_id, shoe)


def _board(table_id: str, shoe: int | None) -> str:
    theme = display.theme_arg("dark")
    lang = display.lang_arg()
    service = get_service()
    info = service.table(table_id)
    data = _table_models(table_id, shoe, lang, theme)
    snapshot = service.snapshot(table_id, shoe)
    live = shoe is None
    ctx = _common(lang, theme)
    api_url = url_for("api.table", table_id=table_id) if live else url_for("api.shoe", table_id=table_id, shoe=shoe)
    query = {k: v for k, v in request.args.items() if k in ("lang", "theme", "cols", "bead", "good")}
    if not live:
        query["shoe"] = str(shoe)
    embed_url = url_for("pages.embed", table_id=table_id, lang=lang, theme="light", w=EMBED_SNIPPET_SIZE[0],
                        h=EMBED_SNIPPET_SIZE[1], _external=True)
    boot = {
        "page": "table" if live else "past", "table": table_id, "live": live,
        **(_push(f"table:{table_id}", "ws.table_socket", table_id=table_id) if live else {"ws": None, "full": None}),
        "models": data["models"], "release": RELEASE, "tz": display.venue_tz(), "keepaliveS": _keepalive_s(),
        "modelUrl": url_for("pages.table_model", table_id=table_id, **query),
        "askUrl": url_for("pages.table_model", table_id=table_id, **query) if live else None,
    }
    png_url = url_for("png.board_png", table_id=table_id) if live else url_for("png.shoe_board_png", table_id=table_id,
                                                                             shoe=shoe)
    return render_template("table.html", boot=boot, info=info, snapshot=snapshot, live=live,
                           api_url=api_url, png_url=png_url, embed_url=embed_url, embed_size=EMBED_SNIPPET_SIZE, **ctx)


# --------------------------------------------------------------------------- embed

def _embed_models(table_id: str, lang: str, theme: str) -> dict[str, Any]:
    raw = request.args.get("roads")
    roads = None
    if raw is not None:
        roads = tuple(name.strip() for name in raw.split(",") if name.strip())
        if not roads:
            raise BadRequest(f"roads must name at least one road, got {raw!r}", field="roads", code=BAD_PARAMETER)
    width = int_arg("w", EMBED_DEFAULT_SIZE[0])
    height = int_arg("h", EMBED_DEFAULT_SIZE[1])
    service = get_service()
    snap = service.snapshot(table_id)
    facts = display.shoe_facts(service, table_id, snap)
    opts = _board_options("embed", width, height, lang=lang, theme=theme, roads=roads, columns=int_arg("cols", None))
    model = _model(board_model, snap, opts, last_at=facts["last_at"], tz=display.venue_tz())
    return {"models": {"fixed": model}, "release": RELEASE}


@bp.get("/embed/<table_id>/model.json")
def embed_model(table_id: str) -> Response:
    """The embed's board model (options as the embed page)."""
    return jsonify(_embed_models(table_id, display.lang_arg(), display.theme_arg("light")))


@bp.get("/embed/<table_id>")
def embed(table_id: str) -> str:
    """Compact live widget for an ``<iframe>``. Query: ``roads``, ``cols``, ``w``/``h``, ``theme``
    (default light), ``lang``, ``bead``, ``good``. 404 unknown table; 400 naming a bad option."""
    theme = display.theme_arg("light")
    lang = display.lang_arg()
    data = _embed_models(table_id, lang, theme)
    info = get_service().table(table_id)
    ctx = _common(lang, theme)
    boot = {
        "page": "embed", "table": table_id, "live": True,
        **_push(f"table:{table_id}", "ws.table_socket", table_id=table_id),
        "models": data["models"], "release": RELEASE, "tz": display.venue_tz(), "keepaliveS": _keepalive_s(),
        "modelUrl": url_for("pages.embed_model", table_id=table_id, **request.args.to_dict()),
    }
    return render_template("embed.html", boot=boot, info=info, api_url=url_for("api.table", table_id=table_id), **ctx)


# --------------------------------------------------------------------------- lobby screens

def _lobby_models(preset: dict[str, Any] | None, lang: str, theme: str) -> dict[str, Any]:
    preset = preset or {}
    page_opts = screens.paging(request.args, preset)
    service = get_service()
    patterns = display.patterns_arg(display.parse_patterns(",".join(preset["good"]) or "none")
                                    if preset.get("good") is not None else None)
    models = {}
    orient = request.args.get("orient")
    for name, (w, h) in BOARD_SIZES.items():
        if orient in BOARD_SIZES and orient != name:
            continue
        opts = BoardOptions(kind="tile", width=w, height=h, lang=lang, theme=theme, bead=display.bead_arg(
            preset.get("bead") if preset.get("bead") in ("letters", "total", "colour") else "letters"),
            patterns=patterns, min_text=screens.SCREEN_MIN_TEXT, extra={"screen": True})
        models[name] = _model(screens.lobby_page_model, service, opts, page_opts, title=preset.get("title"),
                              with_stale=False)
    version, _ = service.lobby_json()
    return {"models": models, "release": RELEASE, "version": version}


def _preset_lang_theme(preset: dict[str, Any] | None) -> tuple[str, str]:
    preset = preset or {}
    lang = display.lang_arg(default=preset.get("lang") if preset.get("lang") in i18n.LANGUAGES else None)
    theme = display.theme_arg(preset.get("theme") if preset.get("theme") in THEMES else "dark")
    return lang, theme


def _lobby_page(preset: dict[str, Any] | None, model_url: str) -> str:
    lang, theme = _preset_lang_theme(preset)
    data = _lobby_models(preset, lang, theme)
    ctx = _common(lang, theme)
    first = next(iter(data["models"].values()))
    boot = {
        "page": "lobby", **_push("lobby", "ws.lobby_socket"), "models": data["models"], "release": RELEASE,
        "tz": display.venue_tz(), "keepaliveS": _keepalive_s(), "modelUrl": model_url,
        "page_n": first["page"], "pages": first["pages"], "rotate_s": first.get("rotate_s"),
        "tableUrl": url_for("pages.table", table_id="{id}").replace("%7Bid%7D", "{id}"),
    }
    if boot["rotate_s"] is None and boot["pages"] > 1:
        boot["rotate_s"] = screens.DEFAULT_ROTATE_S
    return render_template("lobby.html", boot=boot, tables=get_service().list_tables(), api_url=url_for("api.tables"),
                           **ctx)


def _model_query() -> dict[str, str]:
    return {k: v for k, v in request.args.items() if k != "page"}


@bp.get("/lobby")
def lobby() -> str:
    """A lobby screen: tiles of the chosen ``tables`` (default all), ``per_page`` to a page,
    rotating every ``rotate_s`` seconds. 400 for a bad option."""
    return _lobby_page(None, url_for("pages.lobby_model", **_model_query()))


@bp.get("/lobby/model.json")
def lobby_model() -> Response:
    """The lobby models of page ``page`` (both orientations, or ``orient``)."""
    lang, theme = _preset_lang_theme(None)
    return jsonify(_lobby_models(None, lang, theme))


@bp.get("/screens/<name>")
def screen(name: str) -> str:
    """The named screen ``name`` of ``ROADS_SCREENS``; 404 for an unknown name."""
    return _lobby_page(screens.screen(name), url_for("pages.screen_model", name=name, **_model_query()))


@bp.get("/screens/<name>/model.json")
def screen_model(name: str) -> Response:
    """The models of a page of the named screen ``name``."""
    preset = screens.screen(name)
    lang, theme = _preset_lang_theme(preset)
    return jsonify(_lobby_models(preset, lang, theme))
