"""HTML scoreboards: table board, embeddable widget, lobby screens, past shoes, and their models.

Every page paints the board model of :mod:`web.render.model` with ``static/js/paint.js`` (SVG
whose viewBox is the model's canvas), the same model the PNG routes paint with Pillow, so HTML
and PNG show the same thing. The page gets its first document (:mod:`web.http.model_specs`) in its
boot JSON; live pages then receive that document's changes over their model socket
(:mod:`web.http.model_sockets`, :mod:`web.push.page_models`: deltas of the model, built once per
update for every screen with the same options), never a fetch per update. Colours come from
``/theme.css`` (:func:`web.render.theme.theme_css`).

Routes (all ``GET``):

- ``/`` -> 302 to ``/lobby`` (query string kept)
- ``/lobby``: a lobby screen (:mod:`web.http.screen_options`: ``tables``, ``per_page``, ``rotate_s``);
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
import time
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, Response, jsonify, redirect, render_template, request, url_for

from web import i18n
from web.extensions import get_push
from web.http import display, model_specs
from web.http.model_specs import checked
from web.http.query import int_arg, page_query
from web.push.documents import BOARD_SIZES, EMBED_DEFAULT_SIZE, ModelSpec
from web.push.topics import push_urls
from web.release import RELEASE
from web.render.theme import THEMES, theme_css
from web.service import get_service
from web.settings import get_settings

bp = Blueprint("pages", __name__)

EMBED_SNIPPET_SIZE: tuple[int, int] = (600, 300)
"""Size of the widget the table page's snippet produces (and its canvas)."""

__all__ = ["EMBED_DEFAULT_SIZE", "EMBED_SNIPPET_SIZE", "RELEASE", "bp"]


def _ws_path(endpoint: str, **values: Any) -> str:
    parts = urlsplit(url_for(endpoint, **values))
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _push(spec: ModelSpec, endpoint: str, **values: Any) -> dict[str, Any]:
    """Boot keys ``ws`` (where the page subscribes to its model topic) and ``full`` (where it
    fetches the latest whole document after a gap, or ``None``): the production tier's nchan
    when ``ROADS_PUSH_URL`` is set, else this service's own model socket. Registers the topic
    (as followed on nchan: the page subscribes to it)."""
    get_push().page_models.register(spec, watch=True)
    query = page_query(drop=("page",))
    ws, full = push_urls(get_settings().push_url, spec.topic, _ws_path(endpoint, **values, **query),
                         _ws_path(endpoint, **values, **{**query, "lang": spec.lang}))
    return {"ws": ws, "full": full}


def _table_push(spec: ModelSpec, table_id: str) -> dict[str, Any]:
    """A table page's boot keys ``ws`` and ``full``, each ``{orientation: URL}`` (``full``
    ``None`` on the embedded tier): the page subscribes to the orientation it shows. The topics
    are registered, not followed: on the nchan tier the page asks ``modelUrl?orient=`` first."""
    models, prefix = get_push().page_models, get_settings().push_url
    query = page_query(drop=("page", "orient"))
    ws, full = {}, {}
    for orient in BOARD_SIZES:
        one = replace(spec, orient=orient)
        models.register(one)
        path = _ws_path("model_ws.table_models_socket", table_id=table_id, **query, orient=orient)
        full_path = _ws_path("model_ws.table_models_socket", table_id=table_id, **{**query, "lang": one.lang},
                             orient=orient)  # the language too: a page without ?lang= took it from Accept-Language
        ws[orient], full[orient] = push_urls(prefix, one.topic, path, full_path)
    return {"ws": ws, "full": full if prefix is not None else None}


def _common(lang: str, theme: str) -> dict[str, Any]:
    """Template values every page uses: language, theme, catalogue and switcher links."""
    args = page_query()

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


def _live_doc(spec: ModelSpec) -> dict[str, Any]:
    """The live document of ``spec``: its model topic's current message (built if needed). A
    table spec of both orientations is the two orientation topics' documents joined (what the
    pages' sockets carry); one orientation (``?orient=``, a page about to subscribe) is
    registered as followed (nchan)."""
    models = get_push().page_models
    if spec.page == "table" and spec.orient is None:
        docs = [checked(models.ensure, replace(spec, orient=o)).document for o in BOARD_SIZES]
        held = [doc["held"] for doc in docs if "held" in doc]  # (an orientation's model cannot be built)
        joined = {**docs[0], "models": {k: v for doc in docs for k, v in doc["models"].items()}}
        return {**joined, "held": held[0]} if held else joined
    return checked(models.ensure, spec, watch=spec.orient is not None).document


# --------------------------------------------------------------------------- palette

@bp.get("/theme.css")
def theme_stylesheet() -> Response:
    """The palette (web/render/theme.py) as CSS custom properties and ``f-``/``s-`` classes."""
    css = theme_css()
    etag = hashlib.blake2b(css.encode(), digest_size=8).hexdigest()
    return Response(css, mimetype="text/css", headers={"Cache-Control": "public, max-age=300", "ETag": f'"{etag}"'})


# --------------------------------------------------------------------------- table boards

def _table_doc(table_id: str, shoe: int | None, *, both: bool = False) -> tuple[ModelSpec, dict[str, Any]]:
    """``(spec, document)`` of a board: the live document for the current shoe, else built for
    ``shoe`` (past) or ``?ask=`` (the board as if that side won next); neither is live.
    ``both``: both orientations whatever ``?orient=`` says (the page's first models)."""
    spec = model_specs.table_spec(table_id)
    if both:
        spec = replace(spec, orient=None)
    ask = request.args.get("ask")
    if shoe is None and not ask:
        get_service().read.table(table_id)
        return spec, _live_doc(spec)
    snap = get_service().read.snapshot(table_id, shoe)
    if ask:
        snap = model_specs.hypothetical(table_id, snap, ask)
    return spec, checked(get_push().documents.board_doc, spec, snap)


@bp.get("/tables/<table_id>/model.json")
def table_model(table_id: str) -> Response:
    """The board document (landscape and portrait models, or ``?orient=`` one: what that
    orientation's model socket carries) of a table's current shoe, or of ``?shoe=``, or
    ``?ask=banker|player``."""
    return jsonify(_table_doc(table_id, int_arg("shoe", None))[1])


@bp.get("/")
def index() -> Response:
    """302 to the lobby, keeping the page options of the query (``/?lang=th`` -> ``/lobby?lang=th``;
    :func:`web.http.query.page_query`)."""
    return redirect(url_for("pages.lobby", **page_query()))


@bp.get("/tables/<table_id>")
def table(table_id: str) -> str:
    """The full live scoreboard of a table's current shoe. 404 unknown table; 400 bad option."""
    return _board(table_id, None)


@bp.get("/tables/<table_id>/shoes/<int:shoe>")
def past_shoe(table_id: str, shoe: int) -> str:
    """Any shoe of a table, drawn like the live board but not live."""
    return _board(table_id, shoe)


def _board(table_id: str, shoe: int | None) -> str:
    service = get_service()
    info = service.read.table(table_id)
    spec, doc = _table_doc(table_id, shoe, both=True)
    snapshot = service.read.snapshot(table_id, shoe)
    live = shoe is None
    ctx = _common(spec.lang, spec.theme)
    api_url = url_for("api.table", table_id=table_id) if live else url_for("api.shoe", table_id=table_id, shoe=shoe)
    query = {k: v for k, v in request.args.items() if k in ("lang", "theme", "cols", "bead", "good")}
    embed_url = url_for("pages.embed", table_id=table_id, lang=spec.lang, theme="light", w=EMBED_SNIPPET_SIZE[0],
                        h=EMBED_SNIPPET_SIZE[1], _external=True)
    boot = {
        "page": "table" if live else "past", "table": table_id, "live": live,
        **(_table_push(spec, table_id) if live else {"ws": None, "full": None}),
        "models": doc["models"], "release": RELEASE, "tz": display.venue_tz(), "keepaliveS": _keepalive_s(), "now": round(time.time(), 3),
        **({"held": doc["held"]} if "held" in doc else {}),
        "modelUrl": url_for("pages.table_model", table_id=table_id, **query, **({} if live else {"shoe": shoe})),
        "askUrl": url_for("pages.table_model", table_id=table_id, **query) if live else None,
    }
    png_url = url_for("png.board_png", table_id=table_id) if live else url_for("png.shoe_board_png", table_id=table_id,
                                                                             shoe=shoe)
    return render_template("table.html", boot=boot, info=info, snapshot=snapshot, live=live,
                           api_url=api_url, png_url=png_url, embed_url=embed_url, embed_size=EMBED_SNIPPET_SIZE, **ctx)


# --------------------------------------------------------------------------- embed

def _embed_doc(table_id: str) -> tuple[ModelSpec, dict[str, Any]]:
    spec = model_specs.embed_spec(table_id)
    get_service().read.table(table_id)
    return spec, _live_doc(spec)


@bp.get("/embed/<table_id>/model.json")
def embed_model(table_id: str) -> Response:
    """The embed's document (options as the embed page; what its model socket carries)."""
    return jsonify(_embed_doc(table_id)[1])


@bp.get("/embed/<table_id>")
def embed(table_id: str) -> str:
    """Compact live widget for an ``<iframe>``. Query: ``roads``, ``cols``, ``w``/``h``, ``theme``
    (default light), ``lang``, ``bead``, ``good``. 404 unknown table; 400 naming a bad option."""
    spec, doc = _embed_doc(table_id)
    info = get_service().read.table(table_id)
    ctx = _common(spec.lang, spec.theme)
    boot = {
        "page": "embed", "table": table_id, "live": True,
        **_push(spec, "model_ws.embed_models_socket", table_id=table_id),
        "models": doc["models"], "release": RELEASE, "tz": display.venue_tz(), "keepaliveS": _keepalive_s(), "now": round(time.time(), 3),
        **({"held": doc["held"]} if "held" in doc else {}),
        "modelUrl": url_for("pages.embed_model", table_id=table_id, **page_query()),
    }
    return render_template("embed.html", boot=boot, info=info, api_url=url_for("api.table", table_id=table_id), **ctx)


# --------------------------------------------------------------------------- lobby screens

def _lobby_page(name: str | None) -> str:
    spec, page = model_specs.lobby_spec(name)
    doc = _live_doc(spec)
    ctx = _common(spec.lang, spec.theme)
    query = page_query(drop=("page",))
    if name is None:
        push = _push(spec, "model_ws.lobby_models_socket")
        model_url = url_for("pages.lobby_model", **query)
    else:
        push = _push(spec, "model_ws.screen_models_socket", name=name)
        model_url = url_for("pages.screen_model", name=name, **query)
    boot = {
        "page": "lobby", **push, "doc": doc, "release": RELEASE, "tz": display.venue_tz(), "now": round(time.time(), 3),
        "keepaliveS": _keepalive_s(), "modelUrl": model_url,
        "page_n": min(page, len(doc["pages"]["landscape"])), "rotate_s": doc["rotate_s"],
        "tableUrl": url_for("pages.table", table_id="{id}").replace("%7Bid%7D", "{id}"),
    }
    api_url = url_for("api.good_roads") if spec.good_road else url_for("api.tables")  # the JSON twin
    return render_template("lobby.html", boot=boot, tables=get_service().read.list_tables(), api_url=api_url, **ctx)


def _lobby_json(name: str | None) -> Response:
    """``?page=N`` (or ``orient``): that page's models; neither: the live document (every page)."""
    spec, page = model_specs.lobby_spec(name)
    if "page" in request.args or "orient" in request.args:
        return jsonify(checked(get_push().documents.lobby_page, spec, page, request.args.get("orient")))
    return jsonify(_live_doc(spec))


@bp.get("/lobby")
def lobby() -> str:
    """A lobby screen: tiles of the chosen ``tables`` (default all), ``per_page`` to a page,
    rotating every ``rotate_s`` seconds. 400 for a bad option."""
    return _lobby_page(None)


@bp.get("/lobby/model.json")
def lobby_model() -> Response:
    """The lobby's models: page ``page`` (both orientations, or ``orient``), or without either
    the live document of every page (what the lobby's model socket carries)."""
    return _lobby_json(None)


@bp.get("/good-roads")
def good_roads() -> str:
    """The "Good roads now" screen: every table with a good road, paged like the lobby (the
    built-in screen ``good-roads``, :data:`web.http.screen_options.BUILT_IN_SCREENS`)."""
    return _lobby_page("good-roads")


@bp.get("/screens/<name>")
def screen(name: str) -> str:
    """The named screen ``name`` of ``ROADS_SCREENS``; 404 for an unknown name."""
    return _lobby_page(name)


@bp.get("/screens/<name>/model.json")
def screen_model(name: str) -> Response:
    """The models of the named screen ``name``, as ``/lobby/model.json``."""
    return _lobby_json(name)
