"""The documents pages paint, built from the read model: what a page's boot JSON, its model JSON
route and its live model topic (:mod:`web.push.page_models`) carry, one per :class:`ModelSpec`.

A spec is everything a page chose (its table or screen, language, theme, bead content, good
roads, columns; the embed's roads and size; a lobby's tables, paging and title), parsed from the
request once (:mod:`web.http.model_specs`) and then built without a request
(:meth:`Documents.build`), so the page-model topics can rebuild a page's document whenever its
table or the lobby changes. Documents::

    table, embed: {"models": {"landscape": model, "portrait": model} | {orientation: model}
                             | {"fixed": model}, "release", "version": snapshot version, "shoe"}
    lobby:        {"pages": {"landscape": [page model, ...], "portrait": [...]}, "release",
                   "version": lobby version, "rotate_s"}

Models are :func:`web.render.model.board_model` and :func:`lobby_page_model` (which tables a
lobby screen shows, in which order, paged how, as :func:`web.render.tiles.lobby_model` tiles);
``release`` is :data:`web.release.RELEASE` (a page whose release differs from the server's
reloads). A table spec with an ``orient`` (``landscape`` | ``portrait``) holds that
orientation's model only: a table page subscribes to the topic of the orientation it shows, so
a screen gets, and a process builds, one model per update.

Building raises :class:`roads.errors.UnknownTable` for a table gone, and
:class:`web.render.model.ModelError` / :class:`web.render.layout.LayoutError` naming an option
no model can be drawn with (the HTTP edge answers 400 naming the page's option).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from roads.table_state import TABLE_STATES
from web.push import topics
from web.release import RELEASE
from web.render import status_panel
from web.render.model import BoardOptions, board_model
from web.render.pieces import parse_utc
from web.render.tiles import MAX_PER_PAGE, lobby_model, tile_model

BOARD_SIZES: dict[str, tuple[int, int]] = {"landscape": (1920, 1080), "portrait": (1080, 1920)}
"""Nominal canvases of boards and screens; the page picks the one matching the viewport's shape."""

EMBED_DEFAULT_SIZE: tuple[int, int] = (800, 450)
"""Default design size (px) of the embed widget (``w``/``h``)."""

DEFAULT_PER_PAGE = 6
"""Tiles on a lobby page unless the screen says otherwise (at most :data:`web.render.tiles.MAX_PER_PAGE`)."""

DEFAULT_ROTATE_S = 20
"""Seconds between a lobby screen's pages when it has more than one and says nothing."""

SCREEN_MIN_TEXT = 24
"""Smallest text on a screen (px at 1920x1080; 4K in proportion), see docs/frontend.md."""

UNKNOWN_STATE = "unknown"
"""The ``state`` filter value of a table whose feed has set no state."""

STATE_FILTERS: tuple[str, ...] = (*TABLE_STATES, UNKNOWN_STATE)
"""Values of a lobby screen's ``state`` filter: the feed's table states
(:data:`roads.table_state.TABLE_STATES`) and :data:`UNKNOWN_STATE`."""

OPEN_ORDER: dict[str, int] = {"betting": 0, "dealing": 1, "result": 1, "shuffling": 2, "closed": 3,
                              "maintenance": 4, UNKNOWN_STATE: 5}
"""Rank of each state with ``sort=open``: bets open first, then tables dealing or showing a result,
shuffling, closed, in maintenance, and tables without a state last (the order otherwise kept)."""

SORTS: tuple[str, ...] = ("none", "open")
"""Values of a lobby screen's ``sort`` option."""

__all__ = ["BOARD_SIZES", "DEFAULT_PER_PAGE", "DEFAULT_ROTATE_S", "Documents", "EMBED_DEFAULT_SIZE",
           "ModelSpec", "OPEN_ORDER", "SCREEN_MIN_TEXT", "SORTS", "STATE_FILTERS", "UNKNOWN_STATE", "lobby_page_model",
           "has_good_road", "pick_tables", "shoe_facts", "table_snapshot", "table_state", "waiting_entry"]


class Reads(Protocol):
    """What documents read (:class:`web.read_model.ReadModel`)."""

    def snapshot(self, table_id: str, shoe: int | None = None) -> dict[str, Any]: ...
    def shoe(self, table_id: str, shoe: int) -> dict[str, Any]: ...
    def list_tables(self) -> list[dict[str, Any]]: ...
    def lobby_version(self) -> int: ...


@dataclass(frozen=True)
class ModelSpec:
    """What a page shows, without the request: ``page`` (``table`` | ``embed`` | ``lobby``),
    ``table`` (table and embed), ``lang``, ``theme``, ``bead``, ``patterns`` (good roads),
    ``columns``, ``orient`` (table: one orientation's model, ``None`` = both); embed: ``roads``
    and ``size`` (w, h px); lobby: ``screen`` (a named screen or ``None``), ``tables`` (ids in
    order, ``None`` = all), ``per_page``, ``rotate_s``, ``title``, ``states`` (the state filter,
    ``None`` = all), ``sort`` (``"open"`` or ``None``) and ``good_road`` (the good-road filter); ``still``: the page's ``motion=none``."""

    page: str
    table: str | None
    lang: str
    theme: str
    bead: str
    patterns: tuple[str, ...]
    columns: int | None = None
    roads: tuple[str, ...] | None = None
    size: tuple[int, int] | None = None
    screen: str | None = None
    tables: tuple[str, ...] | None = None
    per_page: int = DEFAULT_PER_PAGE
    rotate_s: int | None = None
    title: str | None = None
    states: tuple[str, ...] | None = None
    sort: str | None = None
    orient: str | None = None
    good_road: tuple[str, ...] | None = None
    """Lobby: only tables with a good road (``("any",)``) or with one of these patterns; ``None`` = all."""
    still: bool = False
    """``motion=none`` (the lite option): a betting countdown is said as the time betting closes, as
    on images (``BoardOptions.still``), so nothing on the page changes every second."""

    @property
    def topic(self) -> str:
        """The live model topic of this spec: ``"model:<16 hex digits>"`` (a digest of the spec)."""
        return topics.model(hashlib.blake2b(repr(self).encode(), digest_size=8).hexdigest())

    @property
    def source(self) -> str:
        """The hub topic whose messages change this document: ``table:<id>`` or ``lobby``."""
        return topics.table(self.table) if self.page in ("table", "embed") else topics.LOBBY  # type: ignore[arg-type]

    @property
    def where(self) -> str:
        """What the document shows, for a log line: ``table T1`` or ``lobby`` / ``screen <name>``."""
        if self.table is not None:
            return f"table {self.table}"
        return f"screen {self.screen}" if self.screen is not None else "lobby"

    def options(self, kind: str, size: tuple[int, int], **extra: Any) -> BoardOptions:
        """The :class:`web.render.model.BoardOptions` of a ``kind`` model of this spec on a
        ``size`` canvas (``extra``: further fields)."""
        return BoardOptions.of(self.__dict__, kind=kind, width=size[0], height=size[1], **extra)

    def paging(self, page: int) -> dict[str, Any]:
        """The lobby paging of this spec at page ``page`` (:func:`lobby_page_model`'s ``page_opts``)."""
        return {"tables": list(self.tables) if self.tables else None, "per_page": self.per_page, "page": page,
                "rotate_s": self.rotate_s, "states": list(self.states) if self.states else None, "sort": self.sort,
                "good_road": list(self.good_road) if self.good_road else None}


class Documents:
    """Builds the documents of specs from ``read`` (:class:`web.read_model.ReadModel`), with
    times in the venue's IANA time zone ``venue_tz`` (``ROADS_VENUE_TZ``)."""

    def __init__(self, read: Reads, *, venue_tz: str) -> None:
        self.read = read
        self.venue_tz = venue_tz

    def build(self, spec: ModelSpec) -> dict[str, Any]:
        """The live document of ``spec`` now. Raises as the module docstring says."""
        if spec.page == "lobby":
            return self.lobby_doc(spec)
        return self.board_doc(spec, self.read.snapshot(spec.table))  # type: ignore[arg-type]

    def board_doc(self, spec: ModelSpec, snap: Mapping[str, Any]) -> dict[str, Any]:
        """The table or embed document of ``spec`` for snapshot ``snap`` (any shoe, or the ask
        preview's; see the module docstring)."""
        facts = shoe_facts(self.read, spec.table, snap)  # type: ignore[arg-type]
        if spec.page == "embed":
            sizes = {"fixed": spec.size or EMBED_DEFAULT_SIZE}
        elif spec.orient is not None:
            sizes = {spec.orient: BOARD_SIZES[spec.orient]}
        else:
            sizes = BOARD_SIZES
        kind = spec.page if spec.page == "embed" else "board"
        models = {name: board_model(snap, spec.options(kind, size), last_at=facts["last_at"], tz=self.venue_tz)
                  for name, size in sizes.items()}
        return {"models": models, "release": RELEASE, "version": snap.get("version"), "shoe": snap.get("shoe")}

    def lobby_page(self, spec: ModelSpec, page: int, orient: str | None = None) -> dict[str, Any]:
        """``{"models": {orientation: page model}, "release", "version"}`` of lobby page ``page``
        (clamped to the last page; ``orient`` one orientation only)."""
        models = {}
        for name, size in BOARD_SIZES.items():
            if orient in BOARD_SIZES and orient != name:
                continue
            opts = spec.options("tile", size, min_text=SCREEN_MIN_TEXT, extra={"screen": True})
            models[name] = lobby_page_model(self.read, opts, spec.paging(page), title=spec.title, tz=self.venue_tz)
        return {"models": models, "release": RELEASE, "version": self.read.lobby_version()}

    def lobby_doc(self, spec: ModelSpec) -> dict[str, Any]:
        """The lobby document of ``spec``: every page in both orientations (see the module docstring)."""
        version = self.read.lobby_version()
        first = self.lobby_page(spec, 1)["models"]
        pages = {name: [model] for name, model in first.items()}
        for n in range(2, first["landscape"]["pages"] + 1):
            for name, model in self.lobby_page(spec, n)["models"].items():
                pages[name].append(model)
        rotate = spec.rotate_s
        if rotate is None and len(pages["landscape"]) > 1:
            rotate = DEFAULT_ROTATE_S
        return {"pages": pages, "release": RELEASE, "version": version, "rotate_s": rotate or None}


# --------------------------------------------------------------------------- facts of a shoe

def shoe_facts(read: Reads, table_id: str, snapshot: Mapping[str, Any], stale_s: float | None = None) -> dict[str, Any]:
    """``{"last_at": ISO time of the shoe's last result | None, "stale": bool}`` from the read
    model's line of the snapshot's shoe (``read.shoe()``: one shoe, whatever the number the
    table has dealt); ``stale``: the current shoe's feed has been silent longer than
    ``stale_s`` seconds (``ROADS_STALE_S``; ``None``: never said)."""
    try:
        last_at = read.shoe(table_id, snapshot.get("shoe")).get("last_round_at") or None  # type: ignore[arg-type]
    except Exception:  # an unknown table here is the caller's 404; the time is only decoration
        last_at = None
    stale = False
    t = parse_utc(last_at)
    if stale_s is not None and t is not None and snapshot.get("live", True):
        stale = (_dt.datetime.now(_dt.timezone.utc) - t).total_seconds() > stale_s
    return {"last_at": last_at, "stale": stale}


# --------------------------------------------------------------------------- lobby screens

def table_state(entry: Mapping[str, Any]) -> str:
    """A lobby entry's state (:data:`STATE_FILTERS`): the feed's, or :data:`UNKNOWN_STATE`."""
    state = entry.get("state")
    value = state.get("state") if isinstance(state, Mapping) else None
    return value if value in TABLE_STATES else UNKNOWN_STATE


def has_good_road(entry: Mapping[str, Any], good: list[str] | tuple[str, ...] | None) -> bool:
    """Whether a lobby entry passes the ``good_road`` filter ``good`` (``None``: every entry;
    ``["any"]``: any good road now; else one of those pattern ids)."""
    if not good:
        return True
    shown = entry.get("good_roads") or []
    if "any" in good:
        return bool(shown)
    return any(g.get("pattern") in good for g in shown)


def pick_tables(read: Reads, wanted: list[str] | None, states: list[str] | None = None,
                sort: str | None = None, good: list[str] | None = None) -> list[dict[str, Any]]:
    """The lobby entries (``read.list_tables()``) of ``wanted`` ids in that order (all when
    ``None``; an id without an entry, no round yet or misspelt, as :func:`waiting_entry`), only
    those in one of ``states`` (when given), with a good road of ``good`` (when given, :func:`has_good_road`), open tables first with ``sort="open"``
    (:data:`OPEN_ORDER`; a stable sort, so the order is kept within a rank)."""
    listed = read.list_tables()
    if wanted is not None:  # a listed id the service does not know yet: a tile waiting for its first round
        by_id = {t.get("id"): t for t in listed}
        listed = [by_id.get(t) or waiting_entry(t) for t in wanted]
    if states is not None:
        listed = [t for t in listed if table_state(t) in states]
    if good:
        listed = [t for t in listed if has_good_road(t, good)]
    if sort == "open":
        listed = sorted(listed, key=lambda t: OPEN_ORDER[table_state(t)])
    return listed


def waiting_entry(table_id: str) -> dict[str, Any]:
    """The lobby entry of a table a screen lists but the service does not know (no round yet, or
    a misspelt id): ``{"id", "name": the id, "waiting": True}``, shown as a tile saying "nope",
    "Waiting for the first round", so a floor manager sees the name (state unknown)."""
    return {"id": table_id, "name": table_id, "waiting": True}


def table_snapshot(read: Reads, table_id: Any) -> Mapping[str, Any]:
    """The table's current snapshot (``read.snapshot()``), ``{}`` for a table gone meanwhile
    or not known yet (a :func:`waiting_entry`)."""
    try:
        return read.snapshot(table_id)
    except Exception:  # a table gone between the list and its snapshot
        return {}


TILE_CACHE_SIZE = 2048
"""Most tile models kept (:class:`TileCache`; ~8 KB each at round 30, most of them held by the
published lobby documents anyway). Every lobby screen model holds every shown table's tile in
both orientations: 300 tables are 600 tiles per set of screen options, so this holds three sets.
A cache of 512 that emptied itself when full missed on nearly every tile at 300 tables: a lobby
build cost ~130 ms instead of ~20 ms (bench/bench_lobby_models.py)."""


class TileCache:
    """Tile models by (table, shoe, version, options, last_at, stale, and for a still image
    what its betting countdown says, :func:`web.render.status_panel.clock_key`); at most ``size``,
    the least recently used dropped first; thread-safe."""

    def __init__(self, size: int = TILE_CACHE_SIZE) -> None:
        self.size = size
        self._items: OrderedDict[tuple, dict] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, snap: Mapping[str, Any], opts: BoardOptions, last_at: str | None, stale: bool,
                 tz: str, now: float | None = None) -> dict[str, Any]:
        state = snap.get("state")
        clock = (status_panel.clock_key(state if isinstance(state, Mapping) else None, time.time() if now is None else now)
                 if opts.still else None)
        key = (snap.get("table"), snap.get("shoe"), snap.get("version"), snap.get("integrity"), opts, last_at, stale, tz,
               clock)
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
                return hit
        m = tile_model(snap, opts, last_at=last_at, tz=tz, stale=stale, now=now)
        with self._lock:
            self._items[key] = m
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return m


_TILES = TileCache()


def lobby_page_model(read: Reads, opts: BoardOptions, page_opts: Mapping[str, Any], *, title: str | None, tz: str,
                     stale_s: float | None = None, now: float | None = None) -> dict[str, Any]:
    """The lobby model of ``page_opts["page"]`` (clamped to the last page) for the screen's
    tables (``page_opts``: ``tables``, ``per_page``, ``page``, ``rotate_s``, ``states``, ``good_road``,
    ``sort``); each tile from the table's snapshot and shoe facts. ``stale_s``: tiles of feeds
    silent longer say so (the PNG; pages say it themselves); ``now``: Unix seconds the tiles'
    countdowns are read against (default the clock); ``tz``: the venue's time zone. A table whose
    lobby entry has ``"integrity"`` (flags today) gets the marker on its tile, and the header counts them."""
    entries = pick_tables(read, page_opts["tables"], page_opts.get("states"), page_opts.get("sort"))
    hl = opts.highlight  # the header counts the tables this screen lights up (None: every pattern)
    with_good = sum(1 for t in entries if any(hl is None or g.get("pattern") in hl for g in t.get("good_roads") or []))
    good = page_opts.get("good_road")
    if good:
        entries = [t for t in entries if has_good_road(t, good)]
    per = page_opts["per_page"]
    pages = max(1, -(-len(entries) // per))
    page = min(page_opts["page"], pages)
    chosen = entries[(page - 1) * per: page * per]
    rows = []
    for t in chosen:
        try:
            snap = dict(read.snapshot(t["id"]))
        except Exception:  # a table gone between the list and its snapshot, or not known yet
            if not t.get("waiting"):
                continue
            snap = {"table": t["id"]}
        snap.setdefault("name", t.get("name"))
        if t.get("integrity"):  # integrity flags today (the lobby entry's mark, ReadModel.set_integrity)
            snap["integrity"] = t["integrity"]
        facts = shoe_facts(read, t["id"], snap, stale_s)
        rows.append((snap, facts["last_at"], facts["stale"]))
    flagged = sum(1 for t in entries if t.get("integrity"))
    model = lobby_model(rows, opts, title=title, page=page, pages=pages, tz=tz, good_count=with_good,
                        filtered=bool(good), flagged=flagged,
                        tile_cache=lambda s, o, la, st: _TILES(s, o, la, st, tz, now))
    model["rotate_s"] = page_opts["rotate_s"]
    model["per_page"] = per
    return model
