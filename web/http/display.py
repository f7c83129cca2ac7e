"""Display options shared by the HTML pages and the PNG routes, from the query and the settings.

Query options (a bad value is a 400 ``bad_parameter`` naming the option, :mod:`web.http.query`):
``lang`` (else Accept-Language), ``theme`` (``dark`` | ``light``), ``bead`` (``letters`` |
``total`` | ``colour``), ``good`` (comma-separated good-road patterns to highlight; ``none``
for none; default the ``ROADS_GOOD_ROADS`` setting).

Display settings (fields of :class:`web.settings.Settings`, read with ``get_settings()``):
``venue_tz`` (``ROADS_VENUE_TZ``: boards show the time of the last result in it), ``stale_s``
(``ROADS_STALE_S``: a PNG of a feed silent longer says so), ``good_roads`` (``ROADS_GOOD_ROADS``:
patterns highlighted unless ``good`` chooses) and ``screens`` (``ROADS_SCREENS``, see
:mod:`web.http.screen_options`).
"""

from __future__ import annotations

from typing import Any

from flask import request

from web import i18n
from web.http.errors import BadRequest
from web.http.query import BAD_PARAMETER, choice_arg
from web.render.cells import BEAD_CONTENT
from web.render.pieces import parse_utc
from web.render.theme import THEMES
from web.settings import GOOD_ROAD_IDS, get_settings

GOOD_ROAD_PATTERNS: tuple[str, ...] = GOOD_ROAD_IDS
"""Built-in pattern ids a screen may highlight (:data:`web.settings.GOOD_ROAD_IDS`); the operator's
(``ROADS_GOOD_ROAD_PATTERNS``) too, :func:`pattern_ids`."""


def pattern_ids() -> tuple[str, ...]:
    """Every pattern id of this app: the built-in ones, then the operator's."""
    return get_settings().pattern_ids


def venue_tz() -> str:
    """The venue's IANA time zone name (``ROADS_VENUE_TZ``, checked when the app starts)."""
    return get_settings().venue_tz


def stale_after_s() -> float:
    """Seconds of feed silence after which a PNG says the feed is silent (``ROADS_STALE_S``)."""
    return get_settings().stale_s


def parse_patterns(raw: str | None, field: str = "good") -> tuple[str, ...]:
    """``"long_banker,ping_pong"`` -> the tuple; ``"none"`` or empty -> ``()``; raises
    :class:`BadRequest` naming ``field`` for an unknown pattern."""
    if raw is None:
        return ()
    names = [n.strip() for n in str(raw).split(",") if n.strip()]
    if names == ["none"]:
        return ()
    known = pattern_ids()
    for n in names:
        if n not in known:
            raise BadRequest(f"unknown good-road pattern {n!r}; expected some of {', '.join(known)}",
                             field=field, code=BAD_PARAMETER)
    return tuple(dict.fromkeys(names))


def patterns_arg(default: tuple[str, ...] | None = None) -> tuple[str, ...]:
    """``?good=`` or ``default`` (else ``ROADS_GOOD_ROADS``)."""
    raw = request.args.get("good")
    if raw is not None:
        return parse_patterns(raw)
    if default is not None:
        return default
    return get_settings().highlighted


def bead_arg(default: str = "letters") -> str:
    """``?bead=`` (:data:`web.render.cells.BEAD_CONTENT`)."""
    return choice_arg("bead", BEAD_CONTENT, default, blank_is_default=True)


def theme_arg(default: str, *, strict: bool = False) -> str:
    """``?theme=`` (pages take an empty value as no choice; ``strict`` routes refuse it)."""
    return choice_arg("theme", tuple(THEMES), default, blank_is_default=not strict)


def lang_arg(*, strict: bool = False, default: str | None = None) -> str:
    """``?lang=``; pages fall back (:func:`web.i18n.pick_language`), ``strict`` routes refuse an
    unknown language with a 400."""
    raw = request.args.get("lang")
    if raw is not None and strict:
        norm = i18n.normalize_language(raw)
        if norm is None:
            raise BadRequest(f"unknown language {raw!r}; expected one of {', '.join(i18n.LANGUAGES)}", field="lang",
                             code=BAD_PARAMETER)
        return norm
    if raw is None and default is not None:
        return default
    return i18n.pick_language(request)


def stale_at(last_at: str | None) -> float | None:
    """When (Unix seconds) a feed whose last result came at ``last_at`` turns stale
    (``ROADS_STALE_S`` later), or ``None`` without a time."""
    t = parse_utc(last_at)
    return None if t is None else t.timestamp() + stale_after_s()


def board_query(theme: str, *, strict: bool = False, lang: str | None = None, bead: str = "letters",
                patterns: tuple[str, ...] | None = None) -> dict[str, Any]:
    """``{"lang", "theme", "bead", "patterns"}`` from the query: the display options every board
    route takes (pages, model sockets and frames, PNGs), the arguments the defaults when the
    query gives none (``lang``: else Accept-Language; ``patterns``: else ``ROADS_GOOD_ROADS``).
    ``strict`` (the PNG routes): an unknown language or an empty theme is a 400 too. Read in
    this order, so the first bad option is the one named."""
    return {"theme": theme_arg(theme, strict=strict), "lang": lang_arg(strict=strict, default=lang),
            "bead": bead_arg(bead), "patterns": patterns_arg(patterns)}
