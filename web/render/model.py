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

A new round appends cells to roads and replaces a few small panels, so a live screen is sent
the changed parts (:func:`web.push.delta.diff` of two models). The options, road cells and glyph
metrics every model is made of are in :mod:`web.render.pieces`; lobby tiles and pages in
:mod:`web.render.tiles`.
"""

from __future__ import annotations

import time as _time
from typing import Any, Mapping, Sequence

from web.render import layout, status_panel, panels
from web.render.cells import GEOMETRY
from web.render.pieces import (KINDS, MIN_CELL_PX, MIN_TEXT_PX, MODEL_VERSION, BoardOptions, ModelError, glyphs,
                               has_rounds, road_models, venue_time)
from web.render.prims import label, panel, text
from web.render.tiles import tile_model

__all__ = ["KINDS", "MIN_CELL_PX", "MIN_TEXT_PX", "MODEL_VERSION", "BoardOptions", "ModelError", "board_model",
           "glyphs", "venue_time"]

def _note(roads: Sequence[Mapping[str, Any]], lang: str, size: int, min_px: int) -> dict | None:
    """"Waiting for the first round" centred on the first road (big road where shown)."""
    if not roads:
        return None
    r = next((x for x in roads if x["id"] == "big_road"), roads[0])
    t, s = panels.fit(label("ui.no_rounds_yet", lang), r["w"] * 0.9, size, lang, weight="r", min_size=min_px)
    return panel("note", r, None, [text(t, r["x"] + r["w"] / 2, r["y"] + r["h"] / 2, s, "muted", lang=lang,
                                        weight="r", anchor="m")])


def _embed_regions(opts: BoardOptions, band_h: int = 0) -> tuple[dict[str, dict[str, int]], dict[str, int], int]:
    """Regions of an embed: a header strip (name, shoe, round, last result) always, then a live
    band ``band_h`` px tall (:func:`web.render.status_panel.embed_band_height`), the roads in what
    is left. Roads whose cells would be under :data:`MIN_CELL_PX` are left out (derived roads
    first, then the bead plate), never drawn smaller."""
    w, h = opts.width, opts.height
    head_h = max(round(opts.min_text * 2.2), round(h * 0.1)) + band_h
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
    head = {"x": left, "y": m, "w": right - left, "h": head_h - band_h - m}
    return regions, head, head_h


def board_model(snapshot: Mapping[str, Any], opts: BoardOptions, *, last_at: str | None = None, tz: str = "UTC",
                stale: bool = False, now: float | None = None) -> dict[str, Any]:
    """The model of one board (see the module docstring) for ``snapshot`` drawn with ``opts``.

    ``last_at``: ISO time of the shoe's last result (shown in time zone ``tz``); ``stale``:
    the feed has been silent too long (the roads are dimmed and a banner says since when);
    ``now``: the server's Unix seconds (default the clock; the model's ``"now"``, from which a
    page corrects its clock for the betting countdown, :mod:`web.render.status_panel`).
    Raises :class:`ModelError` or :class:`web.render.layout.LayoutError` naming a bad option.
    """
    opts.check()
    now = _time.time() if now is None else float(now)
    if opts.kind == "tile":  # a lobby tile has its own geometry
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
        band_h = status_panel.embed_band_height(snapshot, opts.height, min_px)
        regions, head, head_h = _embed_regions(opts, band_h)
        size = max(min_px, round(head["h"] * 0.5))
        split = head["w"] * 0.55
        ps.append(panels.header({**head, "w": round(split)}, snapshot, lang, title_px=size, sub_px=max(min_px, round(size * 0.8)),
                                min_px=min_px, one_line=True, bg=None))
        ps.append(panels.last_result({**head, "x": head["x"] + round(split), "w": head["w"] - round(split)}, snapshot,
                                     lang, value_px=size, time_px=max(min_px, round(size * 0.8)), min_px=min_px,
                                     time_text=when, one_line=True, bg=None))
        model["roads"] = road_models(snapshot, regions, opts)
        text_px = size
        if band_h:
            gap = max(2, round(band_h * 0.06))
            band = {"x": head["x"], "y": head["y"] + head["h"] + gap, "w": head["w"], "h": band_h - 2 * gap}
            ps.append(status_panel.embed_band(band, snapshot, lang, min_px=min_px, now=now,
                                            still_tz=tz if opts.still else None))
    else:
        lay = layout.board_layout(opts.width, opts.height, kind="board", columns=opts.columns)
        regions = lay["regions"]
        t = lay["text"]
        lbl = max(min_px, t["label"])
        ps.append(panels.header(regions["header"], snapshot, lang, title_px=max(min_px, t["title"]), sub_px=lbl,
                                min_px=min_px, one_line=False))
        ps.append(panels.last_result(regions["last_result"], snapshot, lang, value_px=max(min_px, t["title"]),
                                     time_px=lbl, min_px=min_px, time_text=when, one_line=False))
        # A narrow board (few columns) may leave text regions out: draw only those it has.
        if "ask" in regions:
            beside = regions["stats"] if lay["orientation"] == "landscape" and "stats" in regions else regions["ask"]
            ps.append(panels.ask(regions["ask"], snapshot, lang, label_right=beside["x"] + beside["w"], size=lbl,
                                 min_px=min_px))
        if "stats" in regions:
            ps.append(panels.stats(regions["stats"], snapshot, lang, size=lbl, min_px=min_px))
        if "side_bets" in regions:
            ps.append(panels.side_bets(regions["side_bets"], snapshot, lang, size=lbl, min_px=min_px))
        if "good_roads" in regions:
            ps.append(panels.footer(regions["good_roads"], snapshot, lang, size=lbl, min_px=min_px,
                                    patterns=opts.highlight))
        model["roads"] = road_models(snapshot, regions, opts)
        text_px = t["title"]
        status_panel.board_hook(ps, regions, snapshot, lang, title_px=max(min_px, t["title"]), size=lbl,
                              min_px=min_px, now=now, still_tz=tz if opts.still else None)
    if not has_rounds(snapshot) and not any(p["id"] == "last_result" for p in ps):  # it says so already
        note = _note(model["roads"], lang, max(min_px, text_px), min_px)
        if note:
            ps.append(note)
    banner_px = max(min_px, round(min(opts.width, opts.height) * 0.045))
    ps += status_panel.alert_bands(snapshot, opts.width, opts.height, lang, size=banner_px, min_px=min_px)
    if stale and when:
        ps.append(panels.banner(opts.width, opts.height, label("ui.feed_silent", lang, time=when), lang,
                                size=banner_px))
    model["panels"] = ps
    model["offline"] = {"text": label("ui.offline_since", lang, time="{time}"), "size": banner_px}
    model["min_text"] = min_px
    model["now"] = round(now, 3)
    model["glyphs"] = glyphs(model, lang)
    return model
