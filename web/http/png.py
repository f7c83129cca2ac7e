"""PNG scoreboards for image-only lobby and signage screens (docs/frontend.md).

Routes (all ``GET``, ``image/png``):

- ``/tables/<id>/board.png``: the full scoreboard of the table's current shoe;
- ``/tables/<id>/shoes/<shoe>/board.png``: the same for any shoe of the table (past ones too);
- ``/tables/<id>/roads/<road>.png``: one road (``bead_plate``, ``big_road``, ``big_eye_boy``,
  ``small_road``, ``cockroach_pig``) filling the image;
- ``/lobby.png``: a lobby page, one tile per table (``tables``, ``per_page``, ``page`` as the
  lobby screen, :mod:`web.http.screen_options`); ``/screens/<name>.png`` the same for a named screen.

Query options: ``width`` and ``height`` in pixels (64..3840, at most 3840x2160 pixels in
all; defaults 1920x1080, one road 1200x300), ``columns`` or ``cols`` as on the pages (big-road
columns, or the road's columns for one road; 1..200; lobby: tiles per row 1..16), ``theme`` (``dark``/``light``),
``lang`` (``en``, ``zh``, ``th``, ``my``, ``lo``; without it the Accept-Language header
decides, see ``web.i18n.pick_language``), ``kind`` for boards (``board``/``embed``), ``bead`` and
``good`` (:mod:`web.http.display`). A bad value is a 400 in the shared error shape naming the
parameter in ``field``. Every image is painted from the board model (:mod:`web.render.model`)
that the HTML pages paint too; a table whose feed has been silent longer than
``ROADS_STALE_S`` says so on the image.

Caching: each image is rendered once per (table, shoe, snapshot version, options) and
kept in a bounded LRU (``ROADS_PNG_CACHE_ENTRIES`` images, ``ROADS_PNG_CACHE_BYTES``
bytes; the ``png_*`` fields of :class:`web.settings.Settings`); images of sizes no screen has
(not in :data:`SCREEN_SIZES`) share :data:`ODD_SIZE_ENTRIES` of it. Painting goes through the
render gate (:mod:`web.http.render_gate`): off the event loop, one at a time, 429 past its queue. Seeing a newer version of a table's current shoe drops that table's older
current-shoe images only. Responses carry a strong ``ETag`` (derived from the cache key),
``Cache-Control: public, max-age=ROADS_PNG_MAX_AGE_S`` (past shoes:
``ROADS_PNG_PAST_MAX_AGE_S``) and ``Vary: Accept-Language``; a matching ``If-None-Match``
gets 304 without rendering.

Image-only players (:mod:`web.http.png_freshness`, :mod:`web.http.png_notice`): every image also
carries ``Last-Modified`` (an ``If-Modified-Since`` at or after it gets 304 when no
``If-None-Match`` is sent), ``max-age`` is cut to the seconds until the board turns stale too, and an
error is answered with an image to clients that ask for images.

Betting countdowns: an image cannot tick, and a signage player shows it until its next
refresh, so an image says the venue time betting closes ("Bets close at 14:03:22",
``BoardOptions.still``), then "Bets closed" once the service's clock has passed it. The
cache key holds that close time and whether it has passed, and ``max-age`` is cut to the
seconds until the next close time still ahead (docs/frontend.md).
"""

from __future__ import annotations

import hashlib
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any, Callable, Hashable

from flask import Blueprint, Response, current_app, request

from web import extensions
from web.http import display, png_freshness, png_notice, render_gate
from web.http import screen_options as screens
from web.http.errors import BadRequest, NotFound
from web.http.query import BAD_PARAMETER, bad_parameter, choice_arg, int_arg
from web.push import documents
from web.release import RELEASE
from web.render import layout as layout_mod
from web.render import paint_png, status_panel
from web.render.model import BoardOptions, ModelError, board_model
from web.render.theme import DEFAULT_THEME, THEMES
from web.service import get_service
from web.settings import get_settings

bp = Blueprint("png", __name__)
for _error in png_notice.HANDLED:  # an image, not an error body, for image-only screens
    bp.register_error_handler(_error, png_notice.error_image)

CACHE_EXTENSION = extensions.PNG_CACHE
"""The ``app.extensions`` key of the app's :class:`PngCache`."""

BOARD_SIZE = (1920, 1080)
ROAD_SIZE = (1200, 300)
LOBBY_SIZE = (1920, 1080)

SCREEN_SIZES: frozenset[tuple[int, int]] = frozenset({
    (1920, 1080), (1080, 1920), (3840, 2160), (2160, 3840), (2560, 1440), (1440, 2560), (1280, 720), (720, 1280),
    (1366, 768), (1600, 900), (1024, 768), (768, 1024), (960, 540), (640, 360), (800, 450), ROAD_SIZE})
"""Sizes of real screens and the routes' defaults. An image of another size is cached within
:data:`ODD_SIZE_ENTRIES`: a client asking for a new size each time can never push these out."""

ODD_SIZE_ENTRIES = 32
"""Most cached images whose size is not one of :data:`SCREEN_SIZES` (the oldest goes first)."""


class PngCache:
    """Bounded LRU of encoded PNGs: ``key -> (etag, bytes)``; thread-safe.

    Keys are ``(table, "current" | "past", shoe, version, image, options)`` tuples (``image``:
    ``"board"``, a road name or ``"lobby"``; ``table`` is ``"*lobby*"`` for the wall, whose
    ``version`` is a digest of the tables' states). Bounded by ``max_entries`` and
    ``max_bytes`` (oldest dropped first).
    """

    def __init__(self, max_entries: int = 256, max_bytes: int = 64 * 1024 * 1024) -> None:
        self.max_entries = max(1, int(max_entries))
        self.max_bytes = max(1, int(max_bytes))
        self._items: "OrderedDict[Hashable, tuple[str, bytes]]" = OrderedDict()
        self._bytes = 0
        self._current: dict[str, tuple[int, int]] = {}  # table -> (shoe, version) of the newest seen
        self._odd: "OrderedDict[Hashable, None]" = OrderedDict()  # keys of images of odd sizes, oldest first
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        self.renders = 0

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    @property
    def size_bytes(self) -> int:
        """Total bytes of the cached images."""
        with self._lock:
            return self._bytes

    def keys(self) -> list[Hashable]:
        """Cached keys, least recently used first (for tests and diagnostics)."""
        with self._lock:
            return list(self._items)

    def get(self, key: Hashable) -> tuple[str, bytes] | None:
        """The cached ``(etag, png)`` for ``key`` (marked recently used), or ``None``."""
        with self._lock:
            hit = self._items.get(key)
            if hit is None:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return hit

    def note_current(self, table: str, shoe: int, version: int, *, ordered: bool = True) -> None:
        """Record that ``table``'s current shoe is at ``(shoe, version)``; drop that table's
        current-shoe images of any other ``(shoe, version)`` (other tables are untouched).

        With ``ordered`` (table versions only grow), an older ``(shoe, version)`` seen late by a
        slow request changes nothing; the lobby's state ids are not ordered.
        """
        with self._lock:
            seen = self._current.get(table)
            if seen == (shoe, version) or (ordered and seen is not None and (shoe, version) < seen):
                return
            self._current[table] = (shoe, version)
            stale = [k for k in self._items if k[0] == table and k[1] == "current" and k[2:4] != (shoe, version)]
            for k in stale:
                self._drop(k)

    def _drop(self, key: Hashable) -> None:
        self._bytes -= len(self._items.pop(key)[1])
        self._odd.pop(key, None)

    def put(self, key: Hashable, etag: str, data: bytes, *, odd_size: bool = False) -> None:
        """Store ``(etag, data)`` under ``key``, evicting least recently used images over the bounds;
        ``odd_size`` (a size not in :data:`SCREEN_SIZES`): past :data:`ODD_SIZE_ENTRIES` such
        images, the oldest of them goes first."""
        with self._lock:
            if key in self._items:
                self._drop(key)
            self._items[key] = (etag, data)
            self._bytes += len(data)
            self.renders += 1
            if odd_size:
                self._odd[key] = None
                while len(self._odd) > ODD_SIZE_ENTRIES:
                    self._drop(next(iter(self._odd)))
            while self._items and (len(self._items) > self.max_entries or self._bytes > self.max_bytes):
                self._drop(next(iter(self._items)))

    def clear(self) -> None:
        """Drop everything."""
        with self._lock:
            self._items.clear()
            self._current.clear()
            self._odd.clear()
            self._bytes = 0


@bp.record_once
def _setup(state) -> None:
    """Give the app its :class:`PngCache`, sized by ``ROADS_PNG_CACHE_ENTRIES`` and ``ROADS_PNG_CACHE_BYTES``."""
    app = state.app
    settings = get_settings(app)
    app.extensions[CACHE_EXTENSION] = PngCache(settings.png_cache_entries, settings.png_cache_bytes)
    app.extensions[extensions.PNG_FRESHNESS] = png_freshness.Freshness()
    render_gate.init_app(app)


def get_cache(app=None) -> PngCache:
    """The app's :class:`PngCache` (``app.extensions["roads.png_cache"]``)."""
    return (app or current_app).extensions[CACHE_EXTENSION]


# --------------------------------------------------------------------------- query parsing

def _columns_arg() -> tuple[int | None, str]:
    """``(columns, the query option that gave it)``: ``columns``, or ``cols`` as the pages name
    it (same meaning and range); both may be given only with one value, else a 400 naming ``cols``."""
    columns, cols = int_arg("columns", None), int_arg("cols", None)
    if cols is None:
        return columns, "columns"
    if columns is not None and columns != cols:
        raise BadRequest(f"cols ({cols}) and columns ({columns}) are the same option; give one of them",
                         field="cols", code=BAD_PARAMETER)
    return cols, "cols"


def _options(default_size: tuple[int, int], *, kinds: tuple[str, ...] = ()) -> dict[str, Any]:
    """Validated query options; raises :class:`BadRequest` (``bad_parameter``) naming the parameter."""
    width = int_arg("width", default_size[0])
    height = int_arg("height", default_size[1])
    columns, columns_field = _columns_arg()
    try:
        width, height = layout_mod.check_size(width, height)
    except layout_mod.LayoutError as e:
        raise bad_parameter(e) from None
    if kinds != ("lobby",):  # the lobby checks its own columns (tiles per row)
        try:
            layout_mod.check_columns(columns)
        except layout_mod.LayoutError as e:
            raise bad_parameter(e, columns_field) from None
    opts: dict[str, Any] = {
        "width": width, "height": height, "columns": columns, **display.board_query(DEFAULT_THEME, strict=True),
    }
    if kinds:
        opts["kind"] = choice_arg("kind", kinds, kinds[0])
    if kinds == ("lobby",):
        opts["columns_field"] = columns_field
    return opts


# --------------------------------------------------------------------------- responses

def _etag(key: Hashable) -> str:
    """The ETag of the image of cache key ``key``, drawn by this release (:data:`web.release.RELEASE`:
    a new release changes every ETag, so screens holding an image drawn by older code get the
    new drawing, not a 304)."""
    return hashlib.blake2b(repr((RELEASE, key)).encode("utf-8"), digest_size=12).hexdigest()


def _serve(key: Hashable, max_age: int, draw: Callable[[], bytes], size: tuple[int, int],
           identity: Hashable = None) -> Response:
    cache = get_cache()
    etag = _etag(key)
    stamp = current_app.extensions[extensions.PNG_FRESHNESS].last_modified(identity, etag)
    headers = {
        "ETag": f'"{etag}"',
        "Last-Modified": png_freshness.http_date(stamp),
        "Cache-Control": f"public, max-age={int(max_age)}",
        "Vary": "Accept-Language",
    }
    if png_freshness.not_modified(etag, stamp, request.if_none_match, request.if_modified_since):
        return Response(status=304, headers=headers)
    hit = cache.get(key)
    if hit is None:
        with render_gate.get_gate().turn():  # 429 at once when too many wait
            hit = cache.get(key)  # drawn by a request that had its turn first
            if hit is None:
                try:
                    data = draw()
                except (layout_mod.LayoutError, ModelError) as e:
                    raise bad_parameter(e) from None
                cache.put(key, etag, data, odd_size=size not in SCREEN_SIZES)
    if hit is not None:
        data = hit[1]
    return Response(data, mimetype="image/png", headers=headers)


def _painted(model: Mapping[str, Any], theme: str) -> bytes:
    """The PNG of ``model``, painted and encoded off the event loop (:mod:`web.http.render_gate`;
    the caller holds a turn of the gate)."""
    return render_gate.RenderGate.off_loop(lambda: paint_png.encode_png(paint_png.paint(model, indexed=True), theme=theme))


def _snapshot(table_id: str, shoe: int | None) -> tuple[dict[str, Any], int, int, bool]:
    """``(snapshot, shoe number, version, is_current)``; NotFound from the service."""
    snap = get_service().read.snapshot(table_id, shoe)
    number = int(snap.get("shoe") or 0)
    version = int(snap.get("version") or 0)
    current = shoe is None or bool(snap.get("live"))
    if current:
        get_cache().note_current(table_id, number, version)
    return snap, number, version, current


def _opts_key(opts: dict[str, Any]) -> tuple:
    return tuple(sorted(opts.items()))


def _max_age(current: bool, clocks: tuple = (), now: float = 0.0) -> int:
    """``max-age`` of an image: the setting, and while a table on it takes bets, no longer than
    until the first close time still ahead (then the image changes to "Bets closed")."""
    settings = get_settings()
    age = settings.png_max_age_s if current else settings.png_past_max_age_s
    ahead = [closes - now for closes, closed in (c for c in clocks if c) if not closed]
    if ahead:
        age = min(age, max(1, math.ceil(min(ahead))))
    return age


def _now() -> float:
    """The service's clock (Unix seconds; tests fix it), what betting countdowns are read against."""
    return float(get_service().clock())


def _clock(snap: Mapping[str, Any], now: float) -> tuple[float, bool] | None:
    state = snap.get("state")
    return status_panel.clock_key(state if isinstance(state, Mapping) else None, now)


def _board_png(table_id: str, shoe: int | None, opts: dict[str, Any], roads: tuple[str, ...] | None) -> Response:
    snap, number, version, current = _snapshot(table_id, shoe)
    facts = documents.shoe_facts(get_service().read, table_id, snap, display.stale_after_s())
    facts["stale"] = facts["stale"] and current
    tz = display.venue_tz()
    image = roads[0] if roads else "board"
    now = _now()
    clock = _clock(snap, now)
    key = (table_id, "current" if current else "past", number, version, image, _opts_key(opts),
           facts["last_at"], facts["stale"], tz, clock)

    def draw() -> bytes:
        bo = BoardOptions.of(opts, kind=opts.get("kind", "embed" if roads else "board"), roads=roads, still=True)
        model = board_model(snap, bo, last_at=facts["last_at"], tz=tz, stale=facts["stale"], now=now)
        return _painted(model, opts["theme"])

    stale_at = display.stale_at(facts["last_at"]) if current and not facts["stale"] else None
    age, until = _max_age(current, (clock,), now), png_freshness.seconds_until((stale_at,), time.time())
    age = age if until is None else min(age, until)  # no longer than until the board says its feed is silent
    return _serve(key, age, draw, (opts["width"], opts["height"]), identity=(table_id, key[1], None if current else number, image, key[5]))


@bp.get("/tables/<table_id>/board.png")
def board_png(table_id: str) -> Response:
    """The current shoe's full scoreboard. 404 for an unknown table, 400 for a bad option."""
    return _board_png(table_id, None, _options(BOARD_SIZE, kinds=("board", "embed")), None)


@bp.get("/tables/<table_id>/shoes/<int:shoe>/board.png")
def shoe_board_png(table_id: str, shoe: int) -> Response:
    """The scoreboard of shoe ``shoe`` (current or past). 404 for an unknown table or shoe."""
    return _board_png(table_id, shoe, _options(BOARD_SIZE, kinds=("board", "embed")), None)


@bp.get("/tables/<table_id>/roads/<road>.png")
def road_png(table_id: str, road: str) -> Response:
    """One road of the current shoe under a header strip. 404 for an unknown table or road name."""
    if road not in layout_mod.ROAD_NAMES:
        raise NotFound(f"no road {road!r}; expected one of {', '.join(layout_mod.ROAD_NAMES)}", field="road",
                       code="unknown_road")
    return _board_png(table_id, None, _options(ROAD_SIZE), (road,))


def _lobby_png(preset: dict[str, Any] | None) -> Response:
    preset = preset or {}
    opts = _options(LOBBY_SIZE, kinds=("lobby",))
    cols, field = opts.pop("columns"), opts.pop("columns_field")
    if cols is not None and not 1 <= cols <= 16:  # accepted for old URLs; the page arranges its tiles itself
        raise BadRequest(f"lobby {field} must be between 1 and 16, got {cols!r}", field=field, code=BAD_PARAMETER)
    if "theme" not in request.args and preset.get("theme") in THEMES:
        opts["theme"] = preset["theme"]
    if "lang" not in request.args and preset.get("lang"):
        opts["lang"] = display.lang_arg(default=str(preset["lang"]))
    page_opts = screens.paging(request.args, preset)
    good = preset.get("good")
    if good is None and page_opts["good_road"]:  # a screen of good roads highlights what it filters for
        good = list(display.pattern_ids()) if page_opts["good_road"] == ["any"] else page_opts["good_road"]
    if "good" not in request.args and good is not None:
        opts["patterns"] = display.parse_patterns(",".join(good) or "none")
    read = get_service().read
    listed = documents.pick_tables(read, page_opts["tables"], page_opts["states"], page_opts["sort"])
    tables = [t for t in listed if documents.has_good_road(t, page_opts["good_road"])]
    now = _now()
    per = page_opts["per_page"]
    page = min(page_opts["page"], max(1, -(-len(tables) // per)))
    shown = tables[(page - 1) * per: page * per]  # only the page's tables can show a countdown
    clocks = tuple(_clock(documents.table_snapshot(read, t.get("id")), now) for t in shown)
    state = tuple((t.get("id"), t.get("shoe"), t.get("version")) for t in listed) + clocks  # (the header counts them all)
    state_id = int.from_bytes(hashlib.blake2b(repr(state).encode(), digest_size=8).digest(), "big")
    get_cache().note_current("*lobby*", 0, state_id, ordered=False)  # a new lobby state drops the older images
    key = ("*lobby*", "current", 0, state_id, "lobby", _opts_key(opts), repr(sorted(page_opts.items())),
           repr(sorted(preset.items())), display.venue_tz())

    def draw() -> bytes:
        bo = BoardOptions.of(opts, kind="tile", still=True, extra={"screen": True},
                             min_text=documents.SCREEN_MIN_TEXT * min(opts["width"], opts["height"]) // 1080 or 12)
        model = documents.lobby_page_model(read, bo, page_opts, title=preset.get("title"), tz=display.venue_tz(),
                                           stale_s=display.stale_after_s(), now=now)
        return _painted(model, opts["theme"])

    return _serve(key, _max_age(True, clocks, now), draw, (opts["width"], opts["height"]), identity=key[4:8])


@bp.get("/lobby.png")
def lobby_png() -> Response:
    """A lobby page as an image: ``tables``, ``per_page``, ``page`` (:mod:`web.http.screen_options`)."""
    return _lobby_png(None)


@bp.get("/screens/<name>.png")
def screen_png(name: str) -> Response:
    """A page of the named screen ``name`` (``ROADS_SCREENS``) as an image; 404 for an unknown name."""
    return _lobby_png(screens.screen(name))


@bp.get("/good-roads.png")
def good_roads_png() -> Response:
    """A page of the "Good roads now" screen (the built-in screen ``good-roads``) as an image."""
    return _lobby_png(screens.screen("good-roads"))
