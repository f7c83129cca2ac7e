"""What every board model is made of: its options, its road cells, its glyph metrics, venue time.

Shared by :mod:`web.render.model` (boards and embeds) and :mod:`web.render.tiles` (lobby
tiles and pages), so neither imports the other's internals.
"""

from __future__ import annotations

import datetime as _dt
import functools
import dataclasses
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from roads.good_roads import HIGHLIGHTED_BY_DEFAULT
from web.render import cells as cells_mod
from web.render import fonts, layout
from web.render.cells import BEAD_CONTENT, GEOMETRY
from web.render.prims import label
from web.render.theme import THEMES

MODEL_VERSION = 1
"""The ``"v"`` of every model; a change of keys or meanings raises it."""

KINDS: tuple[str, ...] = ("board", "embed", "tile")
"""Kinds of a single-board model (a lobby page is kind ``"lobby"``, :mod:`web.render.tiles`)."""

MIN_TEXT_PX = 12
"""No text of a board or embed is smaller than this many canvas px (docs/frontend.md)."""

MIN_CELL_PX = 12
"""An embed leaves a road out rather than draw its cells smaller than this (canvas px)."""



class ModelError(ValueError):
    """A display option that cannot be drawn; ``field`` names it (``kind``, ``theme``, ``lang``,
    ``bead``, ``patterns``, ``width``, ``height``, ``columns``, ``roads``)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class BoardOptions:
    """What to draw and how: ``kind`` (:data:`KINDS`), canvas ``width`` x ``height`` px, ``roads``
    (embed: the roads to show, ``None`` all), big-road ``columns`` (``None``: as many as fit),
    ``lang`` (``web.i18n.LANGUAGES``), ``theme`` (``web.render.theme.THEMES``), ``bead``
    (:data:`web.render.cells.BEAD_CONTENT`), ``patterns`` (good roads to highlight, ``None``:
    :data:`roads.good_roads.HIGHLIGHTED_BY_DEFAULT`), ``min_text`` (smallest text px), ``still``
    (an image, which cannot tick: a betting countdown is said as the venue time betting closes,
    :func:`web.render.status_panel.state_words`)."""

    kind: str = "board"
    width: int = 1920
    height: int = 1080
    roads: tuple[str, ...] | None = None
    columns: int | None = None
    lang: str = "en"
    theme: str = "dark"
    bead: str = "letters"
    patterns: tuple[str, ...] | None = None
    min_text: int = MIN_TEXT_PX
    still: bool = False
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @classmethod
    def of(cls, options: Mapping[str, Any], **fields: Any) -> "BoardOptions":
        """The options named in ``options`` (a parsed query's, a page spec's: keys that are not
        fields are ignored) with ``fields`` over them: how every route and page makes its options."""
        return cls(**{k: v for k, v in options.items() if k in _FIELDS and k not in fields}, **fields)

    def check(self) -> "BoardOptions":
        """Validate every option; raises :class:`ModelError` (or ``layout.LayoutError``) naming it."""
        if self.kind not in KINDS:
            raise ModelError("kind", f"unknown board kind {self.kind!r}; expected one of {', '.join(KINDS)}")
        if self.theme not in THEMES:
            raise ModelError("theme", f"unknown theme {self.theme!r}; expected one of {', '.join(THEMES)}")
        if self.lang not in fonts.LANGUAGES:
            raise ModelError("lang", f"unknown language {self.lang!r}; expected one of {', '.join(fonts.LANGUAGES)}")
        if self.bead not in BEAD_CONTENT:
            raise ModelError("bead", f"unknown bead content {self.bead!r}; expected one of {', '.join(BEAD_CONTENT)}")
        layout.check_size(self.width, self.height)
        layout.check_columns(self.columns)
        if self.roads is not None:
            layout.check_roads(self.roads)
        return self

    @property
    def highlight(self) -> tuple[str, ...]:
        """Good-road patterns to highlight."""
        return HIGHLIGHTED_BY_DEFAULT if self.patterns is None else self.patterns


_FIELDS = frozenset(f.name for f in dataclasses.fields(BoardOptions))
"""The field names of :class:`BoardOptions` (what :meth:`BoardOptions.of` takes from a mapping)."""


def parse_utc(iso: Any) -> "_dt.datetime | None":
    """The aware datetime of an ISO 8601 time (``"...Z"`` accepted; no zone is read as UTC), or
    ``None`` for no time or text that is not one. The one parser of the display's times."""
    if not iso:
        return None
    try:
        t = _dt.datetime.fromisoformat(str(iso).replace("Z", "+00:00"))
    except ValueError:
        return None
    return t if t.tzinfo is not None else t.replace(tzinfo=_dt.timezone.utc)


def venue_time(iso: str | None, tz: str) -> str | None:
    """``"hh:mm:ss"`` of the ISO 8601 UTC time ``iso`` in time zone ``tz`` (IANA name; an unknown
    name is UTC), ``None`` for no time."""
    t = parse_utc(iso)
    if t is None:
        return None
    try:
        zone = ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        zone = ZoneInfo("UTC")
    try:
        return t.astimezone(zone).strftime("%H:%M:%S")
    except OverflowError:  # a feed's close time at the edge of year 9999: said in UTC
        return t.astimezone(_dt.timezone.utc).strftime("%H:%M:%S")


def letters(lang: str) -> dict[str, str]:
    """The winner letters of ``lang`` (``{"B": "B", "P": "P", "T": "T"}``; Chinese 庄/闲/和)."""
    return {w: label(f"winner_short.{w}", lang) for w in "BPT"}


def road_models(snapshot: Mapping[str, Any], regions: Mapping[str, Mapping[str, int]], opts: BoardOptions) -> list[dict]:
    """The model's ``roads`` entries: for each road of ``regions`` (``web.render.layout`` regions,
    px) in :data:`web.render.layout.ROAD_NAMES` order, its grid and its cells
    (:func:`web.render.cells.road_cells`)."""
    out = []
    words = letters(opts.lang)
    for name in layout.ROAD_NAMES:
        r = regions.get(name)
        if r is None:
            continue
        # text in a bead smaller than the board's smallest text is left out (colour only), not shrunk
        content = opts.bead if r["cell"] * GEOMETRY["letter"]["one"] >= opts.min_text else "colour"
        out.append({"id": name, "x": r["x"], "y": r["y"], "w": r["w"], "h": r["h"], "cols": r["cols"],
                    "rows": r["rows"], "cell": r["cell"],
                    "cells": cells_mod.road_cells(name, snapshot, r, content=content, letters=words)})
    return out


def has_rounds(snapshot: Mapping[str, Any]) -> bool:
    """Whether the shoe of ``snapshot`` has a result yet (a bead or a leading tie)."""
    return bool(snapshot.get("bead_plate")) or bool((snapshot.get("big_road") or {}).get("leading_ties"))


def glyphs(model: Mapping[str, Any], lang: str) -> dict[str, list[float]]:
    """Text drawn inside cells (bead letters and totals, tie counts), each ``text -> [font size,
    baseline below the cell centre]`` as fractions of the cell size, measured with the bundled
    fonts so both painters centre it alike (the ``"?m"`` anchor of :func:`web.render.fonts.draw_text`)."""
    wanted: dict[str, float] = {}
    one, two, count = GEOMETRY["letter"]["one"], GEOMETRY["letter"]["two"], GEOMETRY["count"]["size"]
    min_text = model.get("min_text", 0)

    def visit(cells: Sequence[Mapping[str, Any]]) -> None:
        texts = {str(c["t"]) for c in cells if c.get("t")}
        counts = {str(c["ties"]) for c in cells if c.get("ties", 0) > 1 and c["s"] * count >= min_text}
        if texts & counts:  # the same words as a bead's text and a tie count: the later cell's wins
            for c in cells:
                if c.get("t"):
                    wanted[str(c["t"])] = one if len(str(c["t"])) == 1 else two
                if c.get("ties", 0) > 1 and c["s"] * count >= min_text:
                    wanted[str(c["ties"])] = count
            return
        for t in texts:
            wanted[t] = one if len(t) == 1 else two
        for t in counts:
            wanted[t] = count

    for r in model.get("roads", []):
        if r.get("id") not in cells_mod.DERIVED_SHAPES:  # derived roads' marks hold no text (cells.derived_cells)
            visit(r["cells"])
    for p in model.get("panels", []):
        visit([i for i in p["items"] if i.get("p") == "m"])
    for t in model.get("tiles", []):
        visit([c for r in t["model"].get("roads", []) if r.get("id") not in cells_mod.DERIVED_SHAPES
               for c in r["cells"]])
    return {t: list(v) for t, v in _glyph_table(tuple(sorted(wanted.items())), lang)}


@functools.lru_cache(maxsize=2048)
def _glyph_table(wanted: tuple[tuple[str, float], ...], lang: str) -> tuple[tuple[str, tuple[float, float]], ...]:
    """:func:`glyphs`' measures of ``wanted`` (text, fraction of the cell), cached (the texts in
    cells are few: letters, totals, tie counts) until :func:`web.render.fonts.reset_caches`."""
    out = []
    ref = 200
    for t, frac in wanted:
        size = fonts.fit_size(t, ref * 0.66, round(ref * frac), lang=lang, min_size=8)
        base = fonts.middle_to_baseline(t, 0, size=size, lang=lang)
        out.append((t, (round(size / ref, 4), round(base / ref, 4))))
    return tuple(out)


fonts.DEPENDENT_CACHES.append(_glyph_table)
