"""A lobby screen's options: from the query, over a named screen of ``ROADS_SCREENS``.

A screen is a plain URL a signage player opens and never touches:
``/lobby?tables=T1,T2&per_page=6&rotate_s=15&page=1`` (``page`` for ``/lobby.png``), or a named
screen ``/screens/<name>`` from the ``ROADS_SCREENS`` setting: a JSON object (or path of a
file holding one) ``{"lobby-east": {"tables": ["T1", "T2"], "per_page": 6, "rotate_s": 15,
"lang": "th", "theme": "dark", "good": ["long_banker"], "bead": "letters", "title": "East"}}``
(every key optional; ``tables`` absent = every table, in the service's order).

Query options: ``tables`` (comma-separated ids, shown in that order; an id the service does
not know, no round yet or misspelt, is a tile saying it waits for the first round; one that is
not a table id at all, :mod:`roads.ids`, a 400 naming ``tables``),
``per_page`` (1-24, default 6), ``page`` (1-based), ``rotate_s`` (seconds between pages,
0 = no rotation, 3-3600; default 20 when there is more than one page), ``state``
(comma-separated table states, :data:`web.push.documents.STATE_FILTERS`: only tables in one of them, e.g. ``betting,dealing``),
``good_road`` (``any``: only tables with a good road now; or comma-separated pattern ids: only
tables showing one of them; docs/patterns.md) and
``sort`` (``open``: open tables first, :data:`web.push.documents.OPEN_ORDER`; ``none``, the default: the order of
``tables`` or the service's). A named screen may set ``"state": ["betting"]`` and ``"sort":
"open"``. The tables' states come from the feed (``POST /api/tables/<id>/state``), so a live
lobby page, rebuilt at every lobby change, keeps its filter and order as states change. Which
tables a page then shows, and its model: :func:`web.push.documents.lobby_page_model`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from roads.ids import TABLE_ID_RULE, is_table_id
from web.http.errors import BadRequest, NotFound
from web.http.query import BAD_PARAMETER, int_arg, quoted
from web.push.documents import DEFAULT_PER_PAGE, SORTS, STATE_FILTERS
from web.render.tiles import MAX_PER_PAGE
from web.settings import ScreenConfig, get_settings

__all__ = ["BUILT_IN_SCREENS", "named_screens", "paging", "screen"]

BUILT_IN_SCREENS: dict[str, dict[str, Any]] = {"good-roads": {"good_road": ["any"]}}
"""Screens every service has unless ``ROADS_SCREENS`` names one the same: ``good-roads``, the
"Good roads now" screen (``/good-roads``: every table with a good road, its patterns highlighted)."""


def named_screens() -> dict[str, ScreenConfig]:
    """``ROADS_SCREENS`` as validated when the app started: ``{name: ScreenConfig}``."""
    return get_settings().screens


def screen(name: str) -> dict[str, Any]:
    """The keys the named screen ``name`` sets (:meth:`web.settings.ScreenConfig.preset`);
    :class:`NotFound` (code ``unknown_screen``) when not set."""
    found = named_screens().get(name)
    if found is None and name in BUILT_IN_SCREENS:
        return dict(BUILT_IN_SCREENS[name])
    if found is None:
        raise NotFound(f"no screen {name!r} in ROADS_SCREENS", field="screen", code="unknown_screen")
    return found.preset()


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
        for t in tables:  # an id that is not a slug names no table, ever: refused, not shown as a tile
            if not is_table_id(t):
                raise BadRequest(f"tables: {quoted(t)} is not a table id ({TABLE_ID_RULE})", field="tables",
                                 code=BAD_PARAMETER)
    per_page = int_arg("per_page", None)
    per_page = _ranged("per_page", per_page if per_page is not None else preset.get("per_page", DEFAULT_PER_PAGE),
                       1, MAX_PER_PAGE)
    page = _ranged("page", int_arg("page", 1), 1, 10_000)
    rotate = int_arg("rotate_s", None)
    rotate = rotate if rotate is not None else preset.get("rotate_s")
    if rotate is not None and rotate != 0:
        rotate = _ranged("rotate_s", rotate, 3, 3600)
    return {"tables": list(tables) if tables else None, "per_page": per_page, "page": page, "rotate_s": rotate,
            "states": _states(args.get("state"), preset.get("state")), "sort": _sort(args.get("sort"), preset.get("sort")),
            "good_road": good_road_filter(args.get("good_road"), preset.get("good_road"))}


def _listed(raw: str | None, preset: Any) -> list[str] | None:
    """The query's comma-separated values (blanks dropped), else the screen's preset list, else ``None``."""
    if raw is not None:
        return [v.strip() for v in raw.split(",") if v.strip()]
    return None if preset is None else list(preset)


def good_road_filter(raw: str | None, preset: Any) -> list[str] | None:
    """The ``good_road`` filter (query over the screen's): ``["any"]``, a list of pattern ids, or
    ``None`` (no filter: absent, empty, ``none``). Raises :class:`BadRequest` (field ``good_road``)
    naming an unknown pattern."""
    wanted = _listed(raw, preset)
    if not wanted or wanted == ["none"]:
        return None
    if "any" in wanted:
        return ["any"]
    known = get_settings().pattern_ids
    for v in wanted:
        if v not in known:
            raise BadRequest(f"unknown good-road pattern {quoted(str(v))}; expected any, none or a comma-separated "
                             f"list of {', '.join(known)}", field="good_road", code=BAD_PARAMETER)
    return list(dict.fromkeys(wanted))


def _states(raw: str | None, preset: Any) -> list[str] | None:
    """The ``state`` filter: the query's comma-separated states, else the screen's list; ``None``
    (no filter) when neither or empty. Raises :class:`BadRequest` (field ``state``) for another value."""
    wanted = _listed(raw, preset)
    if wanted is None:
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
