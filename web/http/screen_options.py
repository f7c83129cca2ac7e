"""Lobby screens: which tables a lobby page shows, in which order, paged how, and their model.

A screen is a plain URL a signage player opens and never touches:
``/lobby?tables=T1,T2&per_page=6&rotate_s=15&page=1`` (``page`` for ``/lobby.png``), or a named
screen ``/screens/<name>`` from the ``ROADS_SCREENS`` setting: a JSON object (or path of a
file holding one) ``{"lobby-east": {"tables": ["T1", "T2"], "per_page": 6, "rotate_s": 15,
"lang": "th", "theme": "dark", "good": ["long_banker"], "bead": "letters", "title": "East"}}``
(every key optional; ``tables`` absent = every table, in the service's order).

Query options: ``tables`` (comma-separated ids, shown in that order; an id the service does
not know, no round yet or misspelt, is a tile saying it waits for the first round),
``per_page`` (1-24, default 6), ``page`` (1-based), ``rotate_s`` (seconds between pages,
0 = no rotation, 3-3600; default 20 when there is more than one page), ``state``
(comma-separated table states, :data:`STATE_FILTERS`: only tables in one of them, e.g. ``betting,dealing``) and
``sort`` (``open``: open tables first, :data:`OPEN_ORDER`; ``none``, the default: the order of
``tables`` or the service's). A named screen may set ``"state": ["betting"]`` and ``"sort":
"open"``. The tables' states come from the feed (``POST /api/tables/<id>/state``), so a live
lobby page, rebuilt at every lobby change, keeps its filter and order as states change.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import Any

from roads.live import TABLE_STATES
from web.http.display import shoe_facts, venue_tz
from web.http.errors import BadRequest, NotFound
from web.http.query import BAD_PARAMETER, int_arg, quoted
from web.render import status_panel
from web.render.model import BoardOptions
from web.render.tiles import MAX_PER_PAGE, lobby_model, tile_model
from web.settings import get_settings

DEFAULT_PER_PAGE = 6
DEFAULT_ROTATE_S = 20
SCREEN_MIN_TEXT = 24
"""Smallest text on a screen (px at 1920x1080; 4K in proportion), see docs/frontend.md."""

UNKNOWN_STATE = "unknown"
"""The ``state`` filter value of a table whose feed has set no state."""

STATE_FILTERS: tuple[str, ...] = (*TABLE_STATES, UNKNOWN_STATE)
"""Values of the ``state`` option: the feed's table states (:data:`roads.live.TABLE_STATES`) and
:data:`UNKNOWN_STATE`."""

OPEN_ORDER: dict[str, int] = {"betting": 0, "dealing": 1, "result": 1, "shuffling": 2, "closed": 3,
                              "maintenance": 4, UNKNOWN_STATE: 5}
"""Rank of each state with ``sort=open``: bets open first, then tables dealing or showing a result,
shuffling, closed, in maintenance, and tables without a state last (the order otherwise kept)."""

SORTS: tuple[str, ...] = ("none", "open")
"""Values of the ``sort`` option."""


def named_screens() -> dict[str, dict[str, Any]]:
    """``ROADS_SCREENS`` as parsed when the app started: ``{name: {key: value}}`` (keys
    :data:`web.settings.SCREEN_KEYS`)."""
    return get_settings().screens


def screen(name: str) -> dict[str, Any]:
    """The named screen ``name``; :class:`NotFound` (code ``unknown_screen``) when not set."""
    found = named_screens().get(name)
    if found is None:
        raise NotFound(f"no screen {name!r} in ROADS_SCREENS", field="screen", code="unknown_screen")
    return found


def _ranged(name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadRequest(f"{name} must be an integer {low}-{high}, got {value!r}", field=name, code=BAD_PARAMETER)
    return value


def paging(args: Mapping[str, Any], preset: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``{"tables": [ids] | None, "per_page", "page", "rotate_s"}`` from the query (``args``:
    request.args) over a named screen's ``preset``; raises :class:`BadRequest` naming the option."""
    preset = preset or {}
    raw = args.get("tables")
    tables = preset.get("tables")
    if raw:
        tables = [t.strip() for t in raw.split(",") if t.strip()]
    per_page = int_arg("per_page", None)
    per_page = _ranged("per_page", per_page if per_page is not None else preset.get("per_page", DEFAULT_PER_PAGE),
                       1, MAX_PER_PAGE)
    page = _ranged("page", int_arg("page", 1), 1, 10_000)
    rotate = int_arg("rotate_s", None)
    rotate = rotate if rotate is not None else preset.get("rotate_s")
    if rotate is not None and rotate != 0:
        rotate = _ranged("rotate_s", rotate, 3, 3600)
    return {"tables": list(tables) if tables else None, "per_page": per_page, "page": page, "rotate_s": rotate,
            "states": _states(args.get("state"), preset.get("state")), "sort": _sort(args.get("sort"), preset.get("sort"))}


def _states(raw: str | None, preset: Any) -> list[str] | None:
    """The ``state`` filter: the query's comma-separated states, else the screen's list; ``None``
    (no filter) when neither or empty. Raises :class:`BadRequest` (field ``state``) for another value."""
    if raw is not None:
        wanted = [v.strip() for v in raw.split(",") if v.strip()]
    elif preset is not None:
        wanted = list(preset)
    else:
        return None
    for v in wanted:
        if v not in STATE_FILTERS:
            raise BadRequest(f"unknown state {quoted(str(v))}; expected a comma-separated list of "
                             f"{', '.join(STATE_FILTERS)}", field="state", code=BAD_PARAMETER)
    return list(dict.fromkeys(wanted)) or None


def _sort(raw: str | None, preset: Any) -> str | None:
    """The ``sort`` option (query over the screen's): ``"open"`` or ``None`` (``none``, absent,
    empty). Raises :class:`BadRequest` (field ``sort``) for another value."""
    value = raw if raw is not None else preset
    if value in (None, "", "none"):
        return None
    if value not in SORTS:
        raise BadRequest(f"unknown sort {quoted(str(value))}; expected one of {', '.join(SORTS)}", field="sort",
                         code=BAD_PARAMETER)
    return str(value)


def table_state(entry: Mapping[str, Any]) -> str:
    """A lobby entry's state (:data:`STATE_FILTERS`): the feed's, or :data:`UNKNOWN_STATE`."""
    state = entry.get("state")
    value = state.get("state") if isinstance(state, Mapping) else None
    return value if value in TABLE_STATES else UNKNOWN_STATE


def pick_tables(read: Any, wanted: list[str] | None, states: list[str] | None = None,
                sort: str | None = None) -> list[dict[str, Any]]:
    """The lobby entries (``read.list_tables()``) of ``wanted`` ids in that order (all when
    ``None``; an id without an entry, no round yet or misspelt, as :func:`waiting_entry`), only
    those in one of ``states`` (when given), open tables first with ``sort="open"``
    (:data:`OPEN_ORDER`; a stable sort, so the order is kept within a rank)."""
    listed = read.list_tables()
    if wanted is not None:  # a listed id the service does not know yet: a tile waiting for its first round
        by_id = {t.get("id"): t for t in listed}
        listed = [by_id.get(t) or waiting_entry(t) for t in wanted]
    if states is not None:
        listed = [t for t in listed if table_state(t) in states]
    if sort == "open":
        listed = sorted(listed, key=lambda t: OPEN_ORDER[table_state(t)])
    return listed


def waiting_entry(table_id: str) -> dict[str, Any]:
    """The lobby entry of a table a screen lists but the service does not know (no round yet, or
    a misspelt id): ``{"id", "name": the id, "waiting": True}``, shown as a tile saying "nope",
    "Waiting for the first round", so a floor manager sees the name (state unknown)."""
    return {"id": table_id, "name": table_id, "waiting": True}


def table_snapshot(read: Any, table_id: Any) -> Mapping[str, Any]:
    """The table's current snapshot (public ``snapshot()``), ``{}`` for a table gone meanwhile
    or not known yet (a :func:`waiting_entry`)."""
    try:
        return read.snapshot(table_id)
    except Exception:  # a table gone between the list and its snapshot
        return {}


class TileCache:
    """Tile models by (table, shoe, version, options, last_at, stale, and for a still image
    what its betting countdown says, :func:`web.render.status_panel.clock_key`); bounded, thread-safe."""

    def __init__(self, size: int = 512) -> None:
        self.size = size
        self._items: dict[tuple, dict] = {}
        self._lock = threading.Lock()

    def __call__(self, snap: Mapping[str, Any], opts: BoardOptions, last_at: str | None, stale: bool,
                 tz: str, now: float | None = None) -> dict[str, Any]:
        state = snap.get("state")
        clock = (status_panel.clock_key(state if isinstance(state, Mapping) else None, time.time() if now is None else now)
                 if opts.still else None)
        key = (snap.get("table"), snap.get("shoe"), snap.get("version"), opts, last_at, stale, tz, clock)
        with self._lock:
            hit = self._items.get(key)
        if hit is not None:
            return hit
        m = tile_model(snap, opts, last_at=last_at, tz=tz, stale=stale, now=now)
        with self._lock:
            if len(self._items) >= self.size:
                self._items.clear()
            self._items[key] = m
        return m


_TILES = TileCache()


def lobby_page_model(read: Any, opts: BoardOptions, page_opts: Mapping[str, Any], *, title: str | None,
                     with_stale: bool, now: float | None = None) -> dict[str, Any]:
    """The lobby model of ``page_opts["page"]`` (clamped to the last page) for the screen's
    tables; each tile from the table's snapshot (public ``snapshot()``) and shoe facts.
    ``with_stale``: tiles of silent feeds say so (the PNG; pages say it themselves); ``now``:
    Unix seconds the tiles' countdowns are read against (default the clock)."""
    entries = pick_tables(read, page_opts["tables"], page_opts.get("states"), page_opts.get("sort"))
    per = page_opts["per_page"]
    pages = max(1, -(-len(entries) // per))
    page = min(page_opts["page"], pages)
    chosen = entries[(page - 1) * per: page * per]
    tz = venue_tz()
    rows = []
    for t in chosen:
        try:
            snap = dict(read.snapshot(t["id"]))
        except Exception:  # a table gone between the list and its snapshot, or not known yet
            if not t.get("waiting"):
                continue
            snap = {"table": t["id"]}
        snap.setdefault("name", t.get("name"))
        facts = shoe_facts(read, t["id"], snap)
        rows.append((snap, facts["last_at"], facts["stale"] and with_stale))
    model = lobby_model(rows, opts, title=title, page=page, pages=pages, tz=tz,
                        tile_cache=lambda s, o, la, st: _TILES(s, o, la, st, tz, now))
    model["rotate_s"] = page_opts["rotate_s"]
    model["per_page"] = per
    return model
