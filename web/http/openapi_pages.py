"""The pages, PNG boards and WebSockets in the OpenAPI document, with their query options.

Each route of :mod:`web.http.pages`, :mod:`web.http.shoes_pages`, :mod:`web.http.png` and
:mod:`web.http.ws` (and the full frames of :mod:`web.http.full_frames`) as an OpenAPI path item: path parameters, query options with the ranges
their parsers check (:mod:`web.http.query`, :mod:`web.render.layout`), the answer's media type
(``text/html``, ``image/png``, ``101 Switching Protocols``) and the error answers in the one
error shape. :func:`paths` is merged into :func:`web.http.openapi.document`; the WebSocket
message protocol itself is described in docs/frontend.md.
"""

from __future__ import annotations

from typing import Any

from roads.ids import TABLE_ID_PATTERN
from web.i18n import LANGUAGES
from web.render import layout
from web.render.cells import BEAD_CONTENT

TAGS = [
    {"name": "pages", "description": "HTML scoreboards (JSON twin under /api/); errors as a page for browsers"},
    {"name": "png", "description": "scoreboard images (Pillow), cached per version"},
    {"name": "websocket", "description": "live snapshots pushed over a WebSocket (docs/frontend.md)"},
]
"""The document's tags for these routes."""

_ERROR = {"$ref": "#/components/schemas/Error"}


def _path(name: str, schema: dict[str, Any], words: str) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": schema, "description": words}


def _query(name: str, schema: dict[str, Any], words: str) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "schema": schema, "description": words}


TABLE_ID = _path("table_id", {"type": "string", "pattern": TABLE_ID_PATTERN}, "table id (slug)")
SHOE = _path("shoe", {"type": "integer", "minimum": 1}, "shoe number")
ROAD = _path("road", {"enum": list(layout.ROAD_NAMES)}, "one road")

PAGE_LANG = _query("lang", {"type": "string"}, f"label language, one of {', '.join(LANGUAGES)} (or a tag like zh-CN); "
                   "anything else falls back to Accept-Language, then English")
PNG_LANG = _query("lang", {"type": "string"}, f"label language, one of {', '.join(LANGUAGES)} (or a tag like zh-CN); "
                  "another value is a 400")
SHOES_BEFORE = _query("before", {"type": "integer", "minimum": 1, "maximum": 999_999_999},
                      "list the shoes numbered below this one (the older-page link carries it); absent: the newest")
SHOES_LIMIT = _query("limit", {"type": "integer", "minimum": 1, "maximum": 500, "default": 50}, "most shoes on the page")
THEME = _query("theme", {"enum": ["dark", "light"]}, "colour theme (pages: empty = the default)")
COLS = _query("cols", {"type": "integer", "minimum": layout.MIN_COLUMNS, "maximum": layout.MAX_COLUMNS},
              "big-road columns shown")
WIDTH = _query("width", {"type": "integer", "minimum": layout.MIN_SIDE, "maximum": layout.MAX_WIDTH},
               f"image width in pixels (width x height at most {layout.MAX_PIXELS} pixels)")
HEIGHT = _query("height", {"type": "integer", "minimum": layout.MIN_SIDE, "maximum": layout.MAX_HEIGHT},
                "image height in pixels")
COLUMNS = _query("columns", {"type": "integer", "minimum": layout.MIN_COLUMNS, "maximum": layout.MAX_COLUMNS},
                 "big-road columns drawn (the older name of cols; both with different values are a 400)")
PNG_COLS = _query("cols", {"type": "integer", "minimum": layout.MIN_COLUMNS, "maximum": layout.MAX_COLUMNS},
                  "big-road columns drawn, as on the pages")


SCREEN = _path("name", {"type": "string"}, "a screen named in ROADS_SCREENS")
BEAD = _query("bead", {"enum": list(BEAD_CONTENT)}, "bead plate content: letters, winning total or colour only")
GOOD_ROAD = _query("good_road", {"type": "string"}, "only tables with a good road now: any, or comma-separated "
                   "pattern ids (docs/patterns.md); none or absent: every table")
GOOD = _query("good", {"type": "string"}, "comma-separated good-road patterns to highlight, or none (default ROADS_GOOD_ROADS)")
ORIENT = _query("orient", {"enum": ["landscape", "portrait"]}, "one orientation's model (absent: both)")
ASK = _query("ask", {"enum": ["banker", "player"]}, "the ask road's hypothetical next result, shown in place")
MOTION = _query("motion", {"enum": ["full", "none"]}, "none: the lite page for players that screenshot pages "
                "(no animation, no effect under 5 s, countdowns said as the time betting closes; docs/signage.md)")


def _model(words: str) -> dict[str, Any]:
    return {"description": words + " (web/render/model.py; docs/frontend.md)",
            "content": {"application/json": {"schema": {"type": "object"}}}}


def _html(words: str) -> dict[str, Any]:
    return {"description": words, "content": {"text/html": {"schema": {"type": "string"}}}}


def _png(words: str) -> dict[str, Any]:
    return {"description": words + " (ETag, Last-Modified and Cache-Control set; errors as an image of the "
                           "same status for clients that ask for images, docs/signage.md)",
            "content": {"image/png": {"schema": {"type": "string", "contentMediaType": "image/png"}}}}


def _errors(*statuses: int) -> dict[str, Any]:
    words = {400: "a bad query option (code bad_parameter, field = the option)",
             404: "unknown table, shoe or road",
             429: "too many images are being drawn or wait to be (code too_many_renders, Retry-After: 1)",
             503: "the store cannot be read now (code store_unavailable: a shared store unreachable or starting)"}
    statuses = (*statuses, 503)  # every page, image and model reads the store
    return {str(s): {"description": words[s] + "; JSON, or an error page for a browser",
                     "content": {"application/json": {"schema": _ERROR}, "text/html": {"schema": {"type": "string"}}}}
            for s in statuses}


def _get(op_id: str, tag: str, summary: str, params: list[dict[str, Any]], responses: dict[str, Any]) -> dict[str, Any]:
    return {"get": {"operationId": op_id, "tags": [tag], "summary": summary, "parameters": params,
                    "responses": responses}}


def _ws(op_id: str, summary: str, params: list[dict[str, Any]]) -> dict[str, Any]:
    upgrade = [{"name": "Upgrade", "in": "header", "required": True, "schema": {"const": "websocket"},
                "description": "a WebSocket handshake (RFC 6455; Sec-WebSocket-Key, Sec-WebSocket-Version: 13)"}]
    return _get(op_id, "websocket", summary, params + upgrade, {
        "101": {"description": "Switching Protocols: JSON text frames follow (snapshot, keepalive, error; "
                               "docs/frontend.md); security headers as on every answer"},
        "400": {"description": "not a WebSocket handshake (bad_request, bad_handshake)",
                "content": {"application/json": {"schema": _ERROR}}},
    })


SINCE = _query("since", {"type": "integer", "minimum": 0}, "the version the page needs at least (keys the "
               "production tier's cache; the answer is the newest version this process has)")


def _frame(op_id: str, summary: str, params: list[dict[str, Any]]) -> dict[str, Any]:
    """A full-frame route of :mod:`web.http.full_frames`: the first frame its WebSocket twin sends."""
    return _get(op_id, "websocket", summary, [*params, SINCE], {
        "200": {"description": "the snapshot frame {type, topic, version, data} (docs/frontend.md); "
                               "Cache-Control: public, max-age=1",
                "content": {"application/json": {"schema": {"type": "object"}}}},
        **_errors(400, 404)})


def paths() -> dict[str, Any]:
    """The path items of every page, PNG and WebSocket route."""
    page_opts = [PAGE_LANG, THEME, MOTION]
    screen_opts = [
        _query("tables", {"type": "string"}, "comma-separated table ids, in screen order (default: every table)"),
        _query("per_page", {"type": "integer", "minimum": 1}, "tiles per page"),
        _query("page", {"type": "integer", "minimum": 1}, "page shown"),
        _query("rotate_s", {"type": "integer", "minimum": 0}, "seconds per page (0: no rotation)"),
        BEAD, GOOD, GOOD_ROAD,
    ]
    png_opts = [WIDTH, HEIGHT, PNG_COLS, COLUMNS, THEME, PNG_LANG]
    board_kind = _query("kind", {"enum": ["board", "embed"]}, "full board or the compact embed drawing")
    table_model_opts = [TABLE_ID, *page_opts, COLS, BEAD, GOOD, ORIENT]
    embed_model_opts = [TABLE_ID, *page_opts, COLS, BEAD, GOOD,
                        _query("roads", {"type": "string"}, "comma-separated roads"),
                        _query("w", {"type": "integer"}, "design width in pixels"),
                        _query("h", {"type": "integer"}, "design height in pixels")]
    return {
        "/": _get("index", "pages", "Redirect to the lobby (query string kept)", [],
                  {"302": {"description": "to /lobby"}}),
        "/lobby": _get("lobbyPage", "pages", "The lobby wall or a signage screen (live)", [*page_opts, *screen_opts],
                       {"200": _html("the lobby page"), **_errors(400)}),
        "/tables/{table_id}": _get("tablePage", "pages", "A table's full board, current shoe (live)",
                                   [TABLE_ID, *page_opts, COLS, BEAD, GOOD],
                                   {"200": _html("the board page"), **_errors(400, 404)}),
        "/tables/{table_id}/shoes": _get("shoesPage", "pages", "A table's shoes, newest first, a page at a time",
                                         [TABLE_ID, *page_opts, SHOES_BEFORE, SHOES_LIMIT],
                                         {"200": _html("the shoe list"), **_errors(400, 404)}),
        "/tables/{table_id}/shoes/{shoe}": _get("pastShoePage", "pages", "Any shoe's board (not live)",
                                                [TABLE_ID, SHOE, *page_opts, COLS],
                                                {"200": _html("the board page"), **_errors(400, 404)}),
        "/embed/{table_id}": _get("embedPage", "pages", "Compact live widget for an iframe (frameable)", [
            TABLE_ID, *page_opts, COLS, BEAD, GOOD,
            _query("roads", {"type": "string"}, f"comma-separated roads, of {', '.join(layout.ROAD_NAMES)}; default all"),
            _query("w", {"type": "integer", "minimum": layout.MIN_SIDE, "maximum": layout.MAX_WIDTH},
                   "design width in pixels (default 800)"),
            _query("h", {"type": "integer", "minimum": layout.MIN_SIDE, "maximum": layout.MAX_HEIGHT},
                   "design height in pixels (default 450)"),
        ], {"200": _html("the widget (Content-Security-Policy frame-ancestors = ROADS_EMBED_ORIGINS)"),
            **_errors(400, 404)}),
        "/lobby.png": _get("lobbyPng", "png", "The lobby wall as an image", [
            WIDTH, HEIGHT, THEME, PNG_LANG,
            _query("cols", {"type": "integer", "minimum": 1, "maximum": 16}, "tiles per row"),
            _query("columns", {"type": "integer", "minimum": 1, "maximum": 16}, "tiles per row (older name of cols)"),
            _query("kind", {"enum": ["lobby"]}, "the drawing (only lobby)"),
            _query("tables", {"type": "string"}, "comma-separated table ids, in screen order"),
            _query("per_page", {"type": "integer", "minimum": 1}, "tiles per page"),
            _query("page", {"type": "integer", "minimum": 1}, "page drawn"), GOOD_ROAD,
        ], {"200": _png("the lobby image"), "304": {"description": "not modified"}, **_errors(400, 429)}),
        "/tables/{table_id}/board.png": _get("boardPng", "png", "The current shoe's scoreboard",
                                             [TABLE_ID, *png_opts, board_kind],
                                             {"200": _png("the board"), "304": {"description": "not modified"},
                                              **_errors(400, 404, 429)}),
        "/tables/{table_id}/shoes/{shoe}/board.png": _get("shoeBoardPng", "png", "Any shoe's scoreboard",
                                                          [TABLE_ID, SHOE, *png_opts, board_kind],
                                                          {"200": _png("the board"), "304": {"description": "not modified"},
                                                           **_errors(400, 404, 429)}),
        "/tables/{table_id}/roads/{road}.png": _get("roadPng", "png", "One road of the current shoe",
                                                    [TABLE_ID, ROAD, *png_opts],
                                                    {"200": _png("the road"), "304": {"description": "not modified"},
                                                     **_errors(400, 404, 429)}),
        "/sw.js": _get("serviceWorker", "pages", "The pages' service worker (web/http/offline.py, docs/signage.md)", [],
                       {"200": {"description": "application/javascript; Cache-Control: no-cache",
                                "content": {"application/javascript": {"schema": {"type": "string"}}}}}),
        "/theme.css": _get("themeStylesheet", "pages", "The one palette as CSS custom properties", [],
                           {"200": {"description": "text/css of web.render.theme",
                                    "content": {"text/css": {"schema": {"type": "string"}}}}}),
        "/tables/{table_id}/model.json": _get("tableModel", "pages", "The board model the table page paints",
                                              [TABLE_ID, *page_opts, COLS, BEAD, GOOD, ASK,
                                               _query("shoe", {"type": "integer", "minimum": 1}, "a past shoe")],
                                              {"200": _model("the board models"), **_errors(400, 404)}),
        "/embed/{table_id}/model.json": _get("embedModel", "pages", "The board model the embed paints",
                                             [TABLE_ID, *page_opts, COLS, BEAD, GOOD,
                                              _query("roads", {"type": "string"}, "comma-separated roads"),
                                              _query("w", {"type": "integer"}, "design width in pixels"),
                                              _query("h", {"type": "integer"}, "design height in pixels")],
                                             {"200": _model("the embed model"), **_errors(400, 404)}),
        "/lobby/model.json": _get("lobbyModel", "pages", "The lobby screen document (every page), or one page's "
                                  "models with page or orient",
                                  [*page_opts, *screen_opts], {"200": _model("the lobby model"), **_errors(400)}),
        "/good-roads": _get("goodRoadsPage", "pages", "The \"Good roads now\" screen: every table with a good road "
                            "(the built-in screen good-roads; lobby options)", [*page_opts, *screen_opts],
                            {"200": _html("the screen"), **_errors(400)}),
        "/good-roads.png": _get("goodRoadsPng", "png", "A page of the \"Good roads now\" screen as an image",
                                [WIDTH, HEIGHT, THEME, PNG_LANG, GOOD_ROAD,
                                 _query("per_page", {"type": "integer", "minimum": 1}, "tiles per page"),
                                 _query("page", {"type": "integer", "minimum": 1}, "page drawn")],
                                {"200": _png("the screen image"), "304": {"description": "not modified"},
                                 **_errors(400, 429)}),
        "/screens/{name}": _get("screenPage", "pages", "A named lobby screen (ROADS_SCREENS)", [SCREEN, *page_opts],
                                {"200": _html("the screen"), **_errors(400, 404)}),
        "/screens/{name}/model.json": _get("screenModel", "pages", "The named screen's model",
                                           [SCREEN, *page_opts, _query("page", {"type": "integer", "minimum": 1}, "page")],
                                           {"200": _model("the screen model"), **_errors(400, 404)}),
        "/screens/{name}.png": _get("screenPng", "png", "A named lobby screen as an image",
                                    [SCREEN, WIDTH, HEIGHT, THEME, PNG_LANG,
                                     _query("page", {"type": "integer", "minimum": 1}, "page")],
                                    {"200": _png("the screen image"), "304": {"description": "not modified"},
                                     **_errors(400, 404, 429)}),
        "/ws/lobby": _ws("lobbySocket", "Live lobby list", []),
        "/ws/good-roads": _ws("goodRoadsSocket", "Live floor good roads (the document of /api/good-roads)", []),
        "/ws/models/tables/{table_id}": _ws("tableModelsSocket", "Live board document of a table page (its "
                                            "options; first frame whole, then deltas)", table_model_opts),
        "/ws/models/embed/{table_id}": _ws("embedModelsSocket", "Live document of an embed (its options)",
                                           embed_model_opts),
        "/ws/models/lobby": _ws("lobbyModelsSocket", "Live document of a lobby screen (every page)",
                                [*page_opts, *screen_opts]),
        "/ws/models/screens/{name}": _ws("screenModelsSocket", "Live document of a named screen", [SCREEN, *page_opts]),
        "/ws/tables/{table_id}": _ws("tableSocket", "Live snapshots of one table (error frame + close 4404 "
                                     "for an unknown table)", [TABLE_ID]),
        "/frames/lobby": _frame("lobbyFrame", "The lobby list's current frame", []),
        "/frames/good-roads": _frame("goodRoadsFrame", "The floor good roads' current frame", []),
        "/frames/tables/{table_id}": _frame("tableFrame", "A table's current snapshot frame", [TABLE_ID]),
        "/frames/models/tables/{table_id}": _frame("tableModelFrame", "A table page's current board model frame",
                                                   table_model_opts),
        "/frames/models/embed/{table_id}": _frame("embedModelFrame", "An embed's current model frame", embed_model_opts),
        "/frames/models/lobby": _frame("lobbyModelFrame", "A lobby screen's current model frame",
                                       [*page_opts, *screen_opts]),
        "/frames/models/screens/{name}": _frame("screenModelFrame", "A named screen's current model frame",
                                                [SCREEN, *page_opts]),
    }
