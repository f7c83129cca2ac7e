"""The board model: one frozen, JSON-serialisable description of what a board shows.

:func:`board_model` turns a snapshot (docs/domain.md §4; the shape of ``roads/schema``) and the
display options (:class:`BoardOptions`) into panels of words and shapes and roads of cells, in
canvas pixels of a nominal size (1920x1080, 1080x1920, 3840x2160, 600x300...). Two painters
only paint it: Pillow (:mod:`web.render.paint_png`) and the page (``static/js/paint.js``, SVG
whose viewBox is the canvas), so the HTML and the PNG show the same thing.

Model keys::

    {"v": 1, "kind": "board" | "embed" | "tile", "w", "h", "theme", "lang", "tz",
     "table", "shoe", "version", "round",
     "geom": web.render.cells.GEOMETRY,
     "panels": [panel, ...]          # web.render.prims; ids: header, last_result, ask, stats,
                                     # side_bets, good_roads, note, banner ...
     "roads": [{"id": road name, "x", "y", "w", "h", "cols", "rows", "cell",
                "cells": [cell, ...]}],   # web.render.cells, placement order
     "dim": bool,                    # roads dimmed (a silent feed, PNG)
     "offline": {"text": "Offline since {time}", "size": px},   # what a page says when it hears nothing
     "last_at": ISO time of the last result | None,
     "glyphs": {text: [size, baseline]}}   # text inside cells, fractions of the cell (glyphs())

A new round appends cells to roads and replaces a few small panels, so an update can be sent
as the changed parts (:func:`model_delta`).
"""

from __future__ import annotations

import datetime as _dt
import time as _time
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from web.render import cells as cells_mod
from web.render import fonts, layout, live_panel, panels
from web.render.cells import BEAD_CONTENT, GEOMETRY
from web.render.prims import label, panel, text
from web.render.theme import THEMES, ThemeError
from web.settings import DEFAULT_PATTERNS

MODEL_VERSION = 1

KINDS: tuple[str, ...] = ("board", "embed", "tile")

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
    :data:`DEFAULT_PATTERNS`), ``min_text`` (smallest text px)."""

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
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)

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
        return DEFAULT_PATTERNS if self.patterns is None else self.patterns


def venue_time(iso: str | None, tz: str) -> str | None:
    """``"hh:mm:ss"`` of the ISO 8601 UTC time ``iso`` in time zone ``tz`` (IANA name; an unknown
    name is UTC), ``None`` for no time."""
    if not iso:
        return None
    try:
        t = _dt.datetime.fromisoformat(str(iso).replace("Z", "+00:00"))
    except ValueError:
        return None
    if t.tzinfo is None:
        t = t.replace(tzinfo=_dt.timezone.utc)
    try:
        zone = ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        zone = ZoneInfo("UTC")
    return t.astimezone(zone).strftime("%H:%M:%S")


def _letters(lang: str) -> dict[str, str]:
    return {w: label(f"winner_short.{w}", lang) for w in "BPT"}


def _roads(snapshot: Mapping[str, Any], regions: Mapping[str, Mapping[str, int]], opts: BoardOptions) -> list[dict]:
    out = []
    letters = _letters(opts.lang)
    for name in layout.ROAD_NAMES:
        r = regions.get(name)
        if r is None:
            continue
        # text in a bead smaller than the board's smallest text is left out (colour only), not shrunk
        content = opts.bead if r["cell"] * GEOMETRY["letter"]["one"] >= opts.min_text else "colour"
        out.append({"id": name, "x": r["x"], "y": r["y"], "w": r["w"], "h": r["h"], "cols": r["cols"],
                    "rows": r["rows"], "cell": r["cell"],
                    "cells": cells_mod.road_cells(name, snapshot, r, content=content, letters=letters)})
    return out


def _has_rounds(snapshot: Mapping[str, Any]) -> bool:
    return bool(snapshot.get("bead_plate")) or bool((snapshot.get("big_road") or {}).get("leading_ties"))


def _note(roads: Sequence[Mapping[str, Any]], lang: str, size: int, min_px: int) -> dict | None:
    """"Waiting for the first round" centred on the first road (big road where shown)."""
    if not roads:
        return None
    r = next((x for x in roads if x["id"] == "big_road"), roads[0])
    t, s = panels.fit(label("ui.no_rounds_yet", lang), r["w"] * 0.9, size, lang, weight="r", min_size=min_px)
    return panel("note", r, None, [text(t, r["x"] + r["w"] / 2, r["y"] + r["h"] / 2, s, "muted", lang=lang,
                                        weight="r", anchor="m")])


def _embed_regions(opts: BoardOptions) -> tuple[dict[str, dict[str, int]], dict[str, int], int]:
    """Regions of an embed: a header strip (name, shoe, round, last result) always, the roads in
    what is left. Roads whose cells would be under :data:`MIN_CELL_PX` are left out (derived
    roads first, then the bead plate), never drawn smaller."""
    w, h = opts.width, opts.height
    head_h = max(round(opts.min_text * 2.2), round(h * 0.1))
    m = max(2, round(min(w, h) * 0.01))
    wanted = list(opts.roads or layout.ROAD_NAMES)
    area_h = h - head_h - 2 * m
    regions: dict[str, dict[str, int]] = {}
    derived = [n for n in wanted if n in layout.DERIVED_ROADS]
    tries = [wanted]
    if derived:
        tries.append([n for n in wanted if n not in layout.DERIVED_ROADS])
    if "bead_plate" in wanted and len(tries[-1]) > 1:
        tries.append([n for n in tries[-1] if n != "bead_plate"])
    tries = [t for t in tries if t]
    for names in tries:
        try:
            lay = layout.board_layout(w, max(layout.MIN_SIDE, area_h), kind="embed", roads=names,
                                      columns=opts.columns)
        except layout.LayoutError:
            continue
        regions = {k: v for k, v in lay["regions"].items() if k in layout.ROAD_NAMES}
        if regions and min(v["cell"] for v in regions.values()) >= MIN_CELL_PX:
            break
    top = head_h + m
    regions = {k: dict(v, y=v["y"] + top) for k, v in regions.items()}
    left = min((v["x"] for v in regions.values()), default=m)
    right = max((v["x"] + v["w"] for v in regions.values()), default=w - m)
    head = {"x": left, "y": m, "w": right - left, "h": head_h - m}
    return regions, head, head_h


def board_model(snapshot: Mapping[str, Any], opts: BoardOptions, *, last_at: str | None = None, tz: str = "UTC",
                stale: bool = False, now: float | None = None) -> dict[str, Any]:
    """The model of one board (see the module docstring) for ``snapshot`` drawn with ``opts``.

    ``last_at``: ISO time of the shoe's last result (shown in time zone ``tz``); ``stale``:
    the feed has been silent too long (the roads are dimmed and a banner says since when);
    ``now``: the server's Unix seconds (default the clock; the model's ``"now"``, from which a
    page corrects its clock for the betting countdown, :mod:`web.render.live_panel`).
    Raises :class:`ModelError` or :class:`web.render.layout.LayoutError` naming a bad option.
    """
    opts.check()
    now = _time.time() if now is None else float(now)
    if opts.kind == "tile":
        from web.render.screen import tile_model  # the lobby tile has its own geometry

        return tile_model(snapshot, opts, last_at=last_at, tz=tz, stale=stale, now=now)
    lang, min_px = opts.lang, opts.min_text
    when = venue_time(last_at, tz)
    model: dict[str, Any] = {
        "v": MODEL_VERSION, "kind": opts.kind, "w": opts.width, "h": opts.height, "theme": opts.theme,
        "lang": lang, "tz": tz, "table": snapshot.get("table"), "shoe": snapshot.get("shoe"),
        "version": snapshot.get("version"), "round": snapshot.get("round"), "geom": GEOMETRY,
        "last_at": last_at, "dim": bool(stale),
    }
    ps: list[dict[str, Any]] = []
    if opts.kind == "embed":
        regions, head, head_h = _embed_regions(opts)
        size = max(min_px, round(head["h"] * 0.5))
        split = head["w"] * 0.55
        ps.append(panels.header({**head, "w": round(split)}, snapshot, lang, title_px=size, sub_px=max(min_px, round(size * 0.8)),
                                min_px=min_px, one_line=True, bg=None))
        ps.append(panels.last_result({**head, "x": head["x"] + round(split), "w": head["w"] - round(split)}, snapshot,
                                     lang, value_px=size, time_px=max(min_px, round(size * 0.8)), min_px=min_px,
                                     time_text=when, one_line=True, bg=None))
        model["roads"] = _roads(snapshot, regions, opts)
        text_px = size
    else:
        lay = layout.board_layout(opts.width, opts.height, kind="board", columns=opts.columns)
        regions = lay["regions"]
        t = lay["text"]
        lbl = max(min_px, t["label"])
        ps.append(panels.header(regions["header"], snapshot, lang, title_px=max(min_px, t["title"]), sub_px=lbl,
                                min_px=min_px, one_line=False))
        ps.append(panels.last_result(regions["last_result"], snapshot, lang, value_px=max(min_px, t["title"]),
                                     time_px=lbl, min_px=min_px, time_text=when, one_line=False))
        if "ask" in regions:
            right = regions["stats"]["x"] + regions["stats"]["w"] if lay["orientation"] == "landscape" else \
                regions["ask"]["x"] + regions["ask"]["w"]
            ps.append(panels.ask(regions["ask"], snapshot, lang, label_right=right, size=lbl, min_px=min_px))
        ps.append(panels.stats(regions["stats"], snapshot, lang, size=lbl, min_px=min_px))
        ps.append(panels.side_bets(regions["side_bets"], snapshot, lang, size=lbl, min_px=min_px))
        ps.append(panels.footer(regions["good_roads"], snapshot, lang, size=lbl, min_px=min_px,
                                patterns=opts.highlight))
        model["roads"] = _roads(snapshot, regions, opts)
        text_px = t["title"]
        live_panel.board_hook(ps, regions, snapshot, lang, title_px=max(min_px, t["title"]), size=lbl,
                              min_px=min_px, now=now)
    if not _has_rounds(snapshot):
        note = _note(model["roads"], lang, max(min_px, text_px), min_px)
        if note:
            ps.append(note)
    banner_px = max(min_px, round(min(opts.width, opts.height) * 0.045))
    if stale and when:
        ps.append(panels.banner(opts.width, opts.height, label("ui.feed_silent", lang, time=when), lang,
                                size=banner_px))
    model["panels"] = ps
    model["offline"] = {"text": label("ui.offline_since", lang, time="{time}"), "size": banner_px}
    model["min_text"] = min_px
    model["now"] = round(now, 3)
    model["glyphs"] = glyphs(model, lang)
    return model


def glyphs(model: Mapping[str, Any], lang: str) -> dict[str, list[float]]:
    """Text drawn inside cells (bead letters and totals, tie counts), each ``text -> [font size,
    baseline below the cell centre]`` as fractions of the cell size, measured with the bundled
    fonts so both painters centre it alike (the ``"?m"`` anchor of :func:`web.render.fonts.draw_text`)."""
    wanted: dict[str, float] = {}

    def visit(cells: Sequence[Mapping[str, Any]]) -> None:
        for c in cells:
            if c.get("t"):
                wanted[str(c["t"])] = GEOMETRY["letter"]["one" if len(str(c["t"])) == 1 else "two"]
            if c.get("ties", 0) > 1 and c["s"] * GEOMETRY["count"]["size"] >= model.get("min_text", 0):
                wanted[str(c["ties"])] = GEOMETRY["count"]["size"]

    for r in model.get("roads", []):
        visit(r["cells"])
    for p in model.get("panels", []):
        visit([i for i in p["items"] if i.get("p") == "m"])
    for t in model.get("tiles", []):
        visit([c for r in t["model"].get("roads", []) for c in r["cells"]])
    out = {}
    ref = 200
    for t, frac in sorted(wanted.items()):
        size = fonts.fit_size(t, ref * 0.66, round(ref * frac), lang=lang, min_size=8)
        base = fonts.middle_to_baseline(t, 0, size=size, lang=lang)
        out[t] = [round(size / ref, 4), round(base / ref, 4)]
    return out


def model_delta(old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> dict[str, Any]:
    """What a page holding ``old`` needs to show ``new``: ``{"full": model}`` when the canvas,
    shoe or options differ, else ``{"base": old version, "version", "panels": [changed panels],
    "drop": [panel ids gone], "roads": {id: {"from": index of the first changed cell, "cells":
    [cells from there]}}, "dim", "last_at", "now"}``."""
    same = old is not None and all(old.get(k) == new.get(k) for k in ("kind", "w", "h", "theme", "lang", "table", "shoe"))
    if not same:
        return {"full": dict(new)}
    out: dict[str, Any] = {"base": old.get("version"), "version": new.get("version"), "round": new.get("round"),
                           "dim": new.get("dim"), "last_at": new.get("last_at"), "now": new.get("now")}
    before = {p["id"]: p for p in old.get("panels", [])}
    out["panels"] = [p for p in new.get("panels", []) if before.get(p["id"]) != p]
    ids = {p["id"] for p in new.get("panels", [])}
    out["drop"] = [pid for pid in before if pid not in ids]
    roads: dict[str, Any] = {}
    old_roads = {r["id"]: r for r in old.get("roads", [])}
    for r in new.get("roads", []):
        prev = old_roads.get(r["id"], {}).get("cells", [])
        cur = r["cells"]
        i = 0
        while i < len(prev) and i < len(cur) and prev[i] == cur[i]:
            i += 1
        if i < len(prev) or i < len(cur):
            roads[r["id"]] = {"from": i, "cells": cur[i:]}
    out["roads"] = roads
    return out
