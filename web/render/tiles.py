"""Lobby tiles: the tile of one table and the page of tiles (a lobby screen's canvas), as board models.

A lobby page is a canvas (1920x1080, 1080x1920, 3840x2160...) with a title bar and a grid of
tiles; each tile is the model of one table (:func:`tile_model`, kind ``"tile"``) in its own
canvas, placed at the tile's position, so a table's tile is computed once per version and
size. Tile contents, from the top: table name and last result, shoe / round and the time of
the last result, the big road (with the bead plate beside it and the derived roads under it
when there is room at full cell size), the side-bet line naming the next bet to close, and the
good roads the screen highlights.

Sizes for distance (docs/frontend.md): on a screen (``BoardOptions.min_text`` >= 24), name,
shoe / round, last result and side-bet line are at least :data:`SCREEN_BIG_PX` and scale with
the tile; every other word at least ``min_text``; a road is shown only when its cells are at
least :data:`SCREEN_MIN_CELL` (the big road always is).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from web import i18n
from web.render import cells as cells_mod
from web.render import layout, status_panel, panels
from web.render.cells import GEOMETRY
from web.render.pieces import MODEL_VERSION, glyphs, has_rounds, road_models, venue_time
from web.render.prims import fit, label, panel, text

SCREEN_BIG_PX = 36
"""Smallest size of a screen tile's table name, shoe / round, last result and side-bet line (px at 1920x1080)."""

SCREEN_MIN_CELL = 40
"""Smallest road cell of a screen tile (px at 1920x1080); a mini road that would be smaller is left out."""

NAME_LINE_EMS = 12
"""A portrait tile narrower than this many ``big`` px (inside its padding) gives the table name
line 1 whole and the last result a line of its own under it (12 tables on 1080x1920: 3 x 4
tiles of 342 x 452 px, a 320 px name line at 36 px): the name is what says which table it is."""

MAX_PER_PAGE = 24
"""Most tiles on one page."""


def _grid(x: float, y: float, cols: int, rows: int, cell: int) -> dict[str, int]:
    return {"x": int(x), "y": int(y), "w": cols * cell, "h": rows * cell, "cols": cols, "rows": rows, "cell": cell}


def tile_geometry(w: int, h: int, *, min_text: int, screen: bool) -> dict[str, Any]:
    """Regions of a tile ``w`` x ``h`` px: ``line1``/``line2`` text bands (and ``result`` between
    them on a narrow portrait tile, :data:`NAME_LINE_EMS`), ``big_road`` and maybe ``bead_plate``
    and the three derived roads, ``side_bet`` and ``badges`` bands; ``big`` and ``small`` text px."""
    big_min = SCREEN_BIG_PX if screen else min_text
    # 7.5 % of the height, but no more than a narrow (portrait) tile's width gives its lines room for
    big = max(big_min, min(round(h * 0.075), round(w * 0.062)))
    small = max(min_text, round(big * 0.7))
    pad = max(4, round(big * 0.3))
    band = round(big * 1.35)
    badge_band = round(small * 1.8)
    inner_w = w - 2 * pad
    name_line = h > w and inner_w < NAME_LINE_EMS * big  # the name takes line 1 whole, the result a line
    fixed = 2 * pad + (3 if name_line else 2) * band + band + badge_band + 2 * pad
    avail_h = h - fixed
    c = layout._even(avail_h / 6)
    c = max(4, min(c, layout._even(inner_w / 10)))
    min_cell = SCREEN_MIN_CELL if screen else max(6, min_text)
    regions: dict[str, dict[str, int]] = {}
    y = pad
    regions["line1"] = {"x": pad, "y": y, "w": inner_w, "h": band}
    y += band
    if name_line:
        regions["result"] = {"x": pad, "y": y, "w": inner_w, "h": band}
        y += band
    regions["line2"] = {"x": pad, "y": y, "w": inner_w, "h": band}
    y += band + pad
    cols = max(2, inner_w // c)
    bead_cols = 0
    if cols >= 24:  # room beside the big road: the bead plate, at the same cell size
        bead_cols = max(6, cols // 4)
        cols -= bead_cols
    used_w = (cols + bead_cols) * c + (pad if bead_cols else 0)
    x0 = pad + (inner_w - used_w) // 2
    regions["big_road"] = _grid(x0, y, cols, 6, c)
    if bead_cols:
        regions["bead_plate"] = _grid(x0 + cols * c + pad, y, bead_cols, 6, c)
    y += 6 * c + pad
    # what is left above the side-bet line and the badges (a tall, portrait tile) takes, in turn,
    # the bead plate under the big road (when not beside it), the derived roads side by side, a
    # game line (game, dealer, limits) and a second side-bet line; every road cell >= min_cell
    span_w = (cols + bead_cols) * c
    half = c // 2

    def spare() -> int:
        return h - y - (band + badge_band + 2 * pad)

    if not bead_cols and spare() >= 6 * c + pad and span_w // c >= 6:
        regions["bead_plate"] = _grid(x0, y, span_w // c, 6, c)
        y += 6 * c + pad
    d = half if half >= min_cell else layout._even(min(c, (spare() - pad) / 6))
    third = span_w // 3
    dcols = (third - (pad if d != half else 0)) // max(1, d)
    if d >= min_cell and spare() >= 6 * d + pad and (d == half or dcols >= 6):
        for i, name in enumerate(cells_mod.DERIVED_SHAPES):
            regions[name] = _grid(x0 + i * third, y, dcols, 6, d)
        y += 6 * d + pad
    two = spare() >= band
    regions["side_bet"] = {"x": pad, "y": y, "w": inner_w, "h": band * (2 if two else 1), "lines": 2 if two else 1}
    y += band * (2 if two else 1)
    line = round(small * 1.5)
    if spare() >= line:
        regions["game"] = {"x": pad, "y": y, "w": inner_w, "h": line}
        y += line
    regions["badges"] = {"x": pad, "y": y, "w": inner_w, "h": badge_band}
    return {"cell": c, "big": big, "small": small, "pad": pad, "band": band, "regions": regions}


def _side_bet_items(r: Mapping[str, int], snapshot: Mapping[str, Any], lang: str, big: int,
                    band: int, min_px: int) -> list[dict[str, Any]]:
    """The side-bet line of a tile (:func:`web.render.bets.next_bet_line`) in band ``r``: one line,
    or, when ``r`` has room for two and the full words would not fit on one, those words broken
    at a space onto two lines (both at ``big`` px); on one line where even the shortest words
    do not fit at ``big`` px, the largest size down to ``min_px`` at which some form does."""
    full, colour = panels.next_bet_line(snapshot, lang)
    if r.get("lines", 1) >= 2 and panels.prims.width(full, big, lang) > r["w"]:
        words = full.split(" ")
        # at the " · " before the rounds left (the dot dropped), else at the last space that fits
        cuts = [tuple(full.rsplit(" · ", 1))] if " · " in full else []
        cuts += [(" ".join(words[:k]), " ".join(words[k:])) for k in range(len(words) - 1, 0, -1)]
        for first, second in cuts:
            if panels.prims.width(first, big, lang) <= r["w"] and panels.prims.width(second, big, lang) <= r["w"]:
                return [text(first, r["x"], r["y"] + band / 2, big, colour, lang=lang),
                        text(second, r["x"], r["y"] + band * 1.5, big, colour, lang=lang)]
    line, colour = panels.next_bet_line(snapshot, lang, width=r["w"], size=big)
    size = big
    while size > min_px and panels.prims.width(line, size, lang) > r["w"]:  # no form fits at big px: smaller
        size -= 2
        line, colour = panels.next_bet_line(snapshot, lang, width=r["w"], size=max(size, min_px))
    lt, ls = fit(line, r["w"], max(size, min_px), lang, min_size=min_px)
    return [text(lt, r["x"], r["y"] + min(band, r["h"]) / 2, ls, colour, lang=lang)]


def _result_forms(last: Mapping[str, Any], lang: str) -> list[list[tuple[str, str]]]:
    """The last result as coloured runs, longest first: "Banker  P 5 · B 7" (each total named by
    its side's letter, so no one reads "Banker 5"), "Banker  5 · 7", "B  5 · 7"."""
    w = str(last.get("winner"))
    colour = cells_mod.WINNER_COLOURS.get(w, "text")
    totals = [(str(last.get("player_total")), "player"), (" · ", "muted"), (str(last.get("banker_total")), "banker")]
    return [[(label("winner." + w, lang) + "  ", colour), *panels.result_parts(last, lang, short=True)],
            [(label("winner." + w, lang) + "  ", colour), *totals],
            [(label("winner_short." + w, lang) + "  ", colour), *totals]]


def _header(ps: list[dict[str, Any]], regs: Mapping[str, Mapping[str, int]], snapshot: Mapping[str, Any],
            lang: str, big: int, pad: int, min_px: int) -> None:
    """Panels ``line1`` (the table name, and the last result at its right where both fit) and,
    on a narrow portrait tile (region ``result``), ``result``: the name keeps line 1 whole, a
    name too long for it is broken at a space onto the next line, and the last result goes
    there at the right. The name is never cut while it fits at ``min_px``: the longest result
    form that leaves it whole is used, else none."""
    l1 = regs["line1"]
    name = str(snapshot.get("name") or snapshot.get("table") or "")
    last = snapshot.get("last") if isinstance(snapshot.get("last"), Mapping) else None
    forms = _result_forms(last, lang) if last is not None else []

    def width(parts: Sequence[tuple[str, str]]) -> float:
        return sum(panels.prims.width(t, big, lang) for t, _ in parts)

    def result(r: Mapping[str, int], room: float) -> list[dict[str, Any]]:
        parts = next((f for f in forms if width(f) <= room), None)
        return panels.runs(parts, r["x"] + r["w"], r["y"] + r["h"] / 2, big, lang, anchor="r") if parts else []

    def name_fits(t: str, room: float, size: int) -> bool:
        return panels.prims.width(t, size, lang) <= room

    rr = regs.get("result")
    if rr is None:  # one line: name left, the longest result that leaves the name whole at big px
        res = next((f for f in forms if name_fits(name, l1["w"] - width(f) - pad, big)), None)
        if res is None:
            res = next((f for f in reversed(forms) if name_fits(name, l1["w"] - width(f) - pad, min_px)), None)
        room = l1["w"] - (width(res) + pad if res else 0)
        nt, ns = fit(name, room, big, lang, min_size=min_px)
        items = [text(nt, l1["x"], l1["y"] + l1["h"] / 2, ns, "text", lang=lang)]
        if res:
            items += panels.runs(res, l1["x"] + l1["w"], l1["y"] + l1["h"] / 2, big, lang, anchor="r")
        ps.append(panel("line1", l1, None, items))
        return
    first, rest = name, ""
    words = name.split(" ")
    if not name_fits(name, l1["w"], big) and len(words) > 1:  # at the last space whose first part fits
        k = next((k for k in range(len(words) - 1, 0, -1) if name_fits(" ".join(words[:k]), l1["w"], big)), 0)
        if k and name_fits(" ".join(words[k:]), rr["w"], min_px):
            first, rest = " ".join(words[:k]), " ".join(words[k:])
    nt, ns = fit(first, l1["w"], big, lang, min_size=min_px)
    ps.append(panel("line1", l1, None, [text(nt, l1["x"], l1["y"] + l1["h"] / 2, ns, "text", lang=lang)]))
    items: list[dict[str, Any]] = []
    if rest:
        res_room = rr["w"] - panels.prims.width(rest, big, lang) - pad
        items = result(rr, res_room)
        used = sum(panels.prims.width(i["t"], i["s"], lang) for i in items)
        rt, rs = fit(rest, rr["w"] - (used + pad if items else 0), big, lang, min_size=min_px)
        items.insert(0, text(rt, rr["x"], rr["y"] + rr["h"] / 2, rs, "text", lang=lang))
    elif forms:
        items = result(rr, rr["w"])
    ps.append(panel("result", rr, None, items))


def _game_line(game: str, state: Mapping[str, Any] | None, lang: str, room: float, min_px: int) -> str:
    """The longest of "game · dealer · limits", "dealer · limits", "game · dealer", "dealer",
    "limits", "game" (the parts known) that fits ``room`` px at ``min_px`` (regular), else ``""``."""
    parts = status_panel.dealer_limit_parts(state, lang)
    dealer = [p for p in parts[:1] if state and state.get("dealer")]
    limits = [p for p in parts if p not in dealer]
    tries = [[game, *parts], parts, [game, *dealer], dealer, limits, [game]]
    for t in tries:
        words = "  ·  ".join(x for x in t if x)
        if words and panels.prims.width(words, min_px, lang, "r") <= room:
            return words
    return ""


def tile_model(snapshot: Mapping[str, Any], opts: Any, *, last_at: str | None = None, tz: str = "UTC",
               stale: bool = False, now: float | None = None) -> dict[str, Any]:
    """The model of one lobby tile (kind ``"tile"``; keys as :func:`web.render.model.board_model`,
    plus ``"hl"``: the table has a good road this screen highlights). ``opts.extra["screen"]``
    true: sizes for distance. ``now``: the server's Unix seconds (live state, :mod:`web.render.status_panel`)."""
    import time

    now = time.time() if now is None else float(now)
    screen = bool(opts.extra.get("screen"))
    lang, min_px = opts.lang, opts.min_text
    g = tile_geometry(opts.width, opts.height, min_text=min_px, screen=screen)
    regs, big, small = g["regions"], g["big"], g["small"]
    when = venue_time(last_at, tz)
    still_tz = tz if opts.still else None
    st_words, st_colour, st_extra = status_panel.tile_state_text(snapshot, lang, now, still_tz=still_tz)
    ps: list[dict[str, Any]] = []
    _header(ps, regs, snapshot, lang, big, g["pad"], min_px)
    # line 2: shoe / round left, time of the last result right
    l2 = regs["line2"]
    sub = "  ·  ".join(x for x in (label("ui.shoe_n", lang, n=snapshot.get("shoe")) if snapshot.get("shoe") is not None
                                   else "", panels.round_words(snapshot.get("round"), lang)
                                   if snapshot.get("round") is not None else "") if x)
    tw = 0.0
    if st_words:  # the table's state (a betting countdown) where the time of the last result goes
        keep = panels.prims.width(panels.round_words(snapshot.get("round"), lang), big, lang) + g["pad"] \
            if snapshot.get("round") is not None else 0.0  # the round number keeps its room
        room = max(l2["w"] * 0.35, min(l2["w"] * 0.62, l2["w"] - keep - 1))
        st_words, st_colour, st_extra = status_panel.tile_state_text(snapshot, lang, now, still_tz=still_tz, room=room,
                                                                   size=big, min_px=min_px)  # shorter where narrow
        tt, ts, st_extra = status_panel.fit_state(st_words, st_extra, room, big, lang, min_px=min_px)
        tw = panels.prims.width(status_panel.widest_state(tt, st_extra), ts, lang)
        item = text(tt, l2["x"] + l2["w"], l2["y"] + l2["h"] / 2, ts, st_colour, lang=lang, anchor="r")
        item.update(st_extra)
        ps.append(panel("time", {**l2, "x": l2["x"] + l2["w"] - round(tw), "w": round(tw)}, None, [item]))
    elif when:  # the time of the last result, venue time zone (its own panel: smaller text)
        tt, ts = fit(when, l2["w"] * 0.35, small, lang, weight="r", min_size=min_px)
        tw = panels.prims.width(tt, ts, lang, "r")
        ps.append(panel("time", {**l2, "x": l2["x"] + l2["w"] - round(tw), "w": round(tw)}, None,
                        [text(tt, l2["x"] + l2["w"], l2["y"] + l2["h"] / 2, ts, "muted", lang=lang, weight="r",
                              anchor="r")]))
    if snapshot.get("round") is not None and panels.prims.width(sub, big, lang) > l2["w"] - tw - g["pad"]:
        sub = panels.round_words(snapshot.get("round"), lang)  # the round matters more than the shoe
    st, ss = fit(sub, l2["w"] - tw - g["pad"], big, lang, min_size=big)
    ps.insert(len(ps) - (1 if when or st_words else 0), panel("line2", l2, None,
                                                   [text(st, l2["x"], l2["y"] + l2["h"] / 2, ss, "muted", lang=lang)]))
    # roads
    roads = road_models(snapshot, regs, opts)
    if not has_rounds(snapshot):
        br = regs["big_road"]
        words = label("ui.no_rounds_yet", lang)
        lines = [words]
        if panels.prims.width(words, min_px, lang, "r") > br["w"] * 0.9 and " " in words:  # two lines, evenly
            ws = words.split(" ")
            k = min(range(1, len(ws)), key=lambda k: max(panels.prims.width(" ".join(ws[:k]), small, lang, "r"),
                                                           panels.prims.width(" ".join(ws[k:]), small, lang, "r")))
            lines = [" ".join(ws[:k]), " ".join(ws[k:])]
        note = []
        for n, words in enumerate(lines):
            t, s = fit(words, br["w"] * 0.9, small, lang, weight="r", min_size=min_px)
            note.append(text(t, br["x"] + br["w"] / 2, br["y"] + br["h"] / 2 + (n - (len(lines) - 1) / 2) * small * 1.5,
                             s, "muted", lang=lang, weight="r", anchor="m"))
        ps.append(panel("note", br, None, note))
    # the side bet closing next (on two lines where the tile has room and one line would shorten
    # it; a second line it does not need shows the game instead)
    sb = regs["side_bet"]
    live_items = status_panel.tile_live_items({**sb, "h": min(sb["h"], g["band"])}, snapshot, lang, size=big,
                                            min_px=min_px)
    sb_items = _side_bet_items(sb, snapshot, lang, big, g["band"], min_px) if live_items is None else live_items
    ps.append(panel("side_bet", sb, None, sb_items))
    dl = status_panel.dealer_limits(snapshot.get("state") if isinstance(snapshot.get("state"), Mapping) else None, lang)
    game = i18n.variant_name(snapshot.get("variant"), lang) if isinstance(snapshot.get("variant"), Mapping) else ""
    gr = regs.get("game")
    if gr is None and sb.get("lines", 1) >= 2 and len(sb_items) == 1:
        gr = {"x": sb["x"], "y": sb["y"] + g["band"], "w": sb["w"], "h": sb["h"] - g["band"]}
    st = snapshot.get("state") if isinstance(snapshot.get("state"), Mapping) else None
    if gr is not None:  # the game, dealer and limits (a tall tile)
        words = _game_line(game, st, lang, gr["w"], min_px)
        gt, gs = fit(words, gr["w"], small, lang, weight="r", min_size=min_px)
        ps.append(panel("game", gr, None, [text(gt, gr["x"], gr["y"] + gr["h"] / 2, gs, "muted", lang=lang,
                                                weight="r")] if words else []))
        game = dl = ""
    dl = "  ·  ".join(x for x in (game, dl) if x)  # else where the good roads go when there are none
    game = game if dl else ""
    # good roads this screen highlights
    bd = regs["badges"]
    names = panels.good_road_names(snapshot, lang, opts.highlight)
    if dl and not names:  # game, dealer and limits where the good roads go when there are none
        dt, ds = fit(_game_line(game, st, lang, bd["w"], min_px), bd["w"], small, lang, weight="r", min_size=min_px)
        ps.append(panel("badges", bd, None, [text(dt, bd["x"], bd["y"] + bd["h"] / 2, ds, "muted", lang=lang,
                                                  weight="r")]))
    else:  # the badges, then the dealer and limits (else the game) at the right where they fit
        items = panels.badges(bd["x"], bd["x"] + bd["w"], bd["y"] + bd["h"] / 2, names, lang, small)
        used = max((i["x"] + i["w"] for i in items if i.get("p") == "r"), default=bd["x"]) - bd["x"]
        room = bd["w"] - used - small
        words = _game_line(game, st, lang, room, min_px) if dl else ""
        if words:
            t, s = fit(words, room, small, lang, weight="r", min_size=min_px)
            items.append(text(t, bd["x"] + bd["w"], bd["y"] + bd["h"] / 2, s, "muted", lang=lang, weight="r",
                              anchor="r"))
        ps.append(panel("badges", bd, None, items))
    banner_px = max(min_px, small)
    br = regs["big_road"]  # over the lower big road: the round's cards stay in sight below
    alerts = status_panel.alert_bands(snapshot, br["w"], opts.height, lang, size=max(min_px, small), min_px=min_px,
                                      bottom=br["y"] + br["h"], x=br["x"])
    ps += alerts
    flags = snapshot.get("integrity")
    if isinstance(flags, int) and flags > 0:  # integrity flags today: a red band above the alert bands
        bottom = min([a["y"] for a in alerts] + [br["y"] + br["h"]])
        ps.append(integrity_band(flags, br, bottom, lang, size=max(min_px, small), min_px=min_px))
    if stale and when:
        ps.append(panels.banner(opts.width, opts.height, label("ui.feed_silent", lang, time=when), lang,
                                size=banner_px))
    out = {
        "v": MODEL_VERSION, "kind": "tile", "w": opts.width, "h": opts.height, "theme": opts.theme, "lang": lang,
        "tz": tz, "table": snapshot.get("table"), "shoe": snapshot.get("shoe"), "version": snapshot.get("version"),
        "round": snapshot.get("round"), "geom": GEOMETRY, "last_at": last_at, "dim": bool(stale),
        "panels": ps, "roads": roads, "hl": bool(names), "now": round(now, 3),
        "offline": {"text": label("ui.offline_since", lang, time="{time}"), "size": banner_px},
    }
    if isinstance(flags, int) and flags > 0:
        out["integrity"] = flags
    out["min_text"] = min_px
    out["glyphs"] = glyphs(out, lang)
    return out


def integrity_band(n: int, r: Mapping[str, int], bottom: float, lang: str, *, size: int, min_px: int) -> dict[str, Any]:
    """The tile marker of ``n`` integrity flags today (:mod:`roads.integrity`): a red ``"banner"``
    panel (both painters draw it over everything; ``"flag": "integrity"``) as wide as region ``r``
    (the big road), its lower edge at ``bottom`` px, saying "Integrity flag" / "Integrity flags: n"
    at ``size`` px (down to ``min_px`` to fit)."""
    words = label("ui.integrity_flag", lang) if n == 1 else label("ui.integrity_flags_n", lang, n=n)
    h = round(size * 1.6)
    top = round(bottom) - h
    t, s = fit(words, r["w"] * 0.94, size, lang, min_size=min_px)
    item = text(t, r["x"] + r["w"] / 2, top + h / 2, s, "offline_text", lang=lang, anchor="m")
    return panel("banner", {"x": r["x"], "y": top, "w": r["w"], "h": h}, "offline", [item], flag="integrity")


def page_grid(width: int, height: int, count: int, *, top: int, gap: int) -> dict[str, Any]:
    """Columns and tile size for ``count`` tiles under a ``top`` px title bar: the arrangement
    whose tiles give the largest big-road cells (tiles between 1:1 and 2.6:1)."""
    n = max(1, count)
    area_w, area_h = width - 2 * gap, height - top - 2 * gap
    best = None
    for cols in range(1, min(n, 8) + 1):
        rows = -(-n // cols)
        tw = (area_w - (cols - 1) * gap) // cols
        th = (area_h - (rows - 1) * gap) // rows
        if tw < 64 or th < 64:
            continue
        score = min(th * 0.55 / 6, tw / 12) + (0.01 * (tw * th) ** 0.5)
        if best is None or score > best[0]:
            best = (score, cols, rows, tw, th)
    if best is None:
        raise layout.LayoutError("per_page", f"{count} tiles do not fit a {width}x{height} screen")
    _, cols, rows, tw, th = best
    return {"cols": cols, "rows": rows, "tw": tw, "th": th}


def page_tiles(width: int, height: int, count: int, *, min_text: int) -> dict[str, Any]:
    """Geometry of a lobby page: the ``title`` bar rect, ``tiles``: ``[{"x","y","w","h"}]`` for
    ``count`` tiles (all the same size), and the title text px."""
    title_px = max(min_text, round(min(width, height) * 0.026))
    top = round(title_px * 1.8)
    gap = max(6, round(min(width, height) * 0.012))
    g = page_grid(width, height, count, top=top, gap=gap)
    used_w = g["cols"] * g["tw"] + (g["cols"] - 1) * gap
    used_h = g["rows"] * g["th"] + (g["rows"] - 1) * gap
    ox = (width - used_w) // 2
    oy = top + gap + max(0, (height - top - 2 * gap - used_h) // 2)
    tiles = []
    for i in range(count):
        r, c = divmod(i, g["cols"])
        tiles.append({"x": ox + c * (g["tw"] + gap), "y": oy + r * (g["th"] + gap), "w": g["tw"], "h": g["th"]})
    return {"title": {"x": gap, "y": 0, "w": width - 2 * gap, "h": top}, "tiles": tiles, "title_px": title_px,
            "tw": g["tw"], "th": g["th"]}


def lobby_model(entries: Sequence[tuple[Mapping[str, Any], str | None, bool]], opts: Any, *, title: str | None,
                page: int, pages: int, tz: str = "UTC", tile_cache: Any = None, good_count: int = 0,
                filtered: bool = False, flagged: int = 0) -> dict[str, Any]:
    """The model of one lobby page: ``entries`` = ``(snapshot, last_at, stale)`` of the tables
    on this page; ``page`` (1-based) of ``pages``; ``good_count``: tables of the screen with a good
    road it highlights now (said in the title strip when > 0, where it fits); ``filtered``: the screen shows only
    tables with a good road (default title "Good roads now"); ``flagged``: tables of the screen with
    integrity flags today (said in red in the title strip when > 0, first, where it fits). Keys as a board model (kind ``"lobby"``)
    plus ``"tiles": [{"id", "x", "y", "w", "h", "model": tile model}]``, ``"page"``, ``"pages"``.
    ``tile_cache(snapshot, tile_opts, last_at, stale) -> model`` may memoise tiles."""
    import time
    from dataclasses import replace

    lang, min_px = opts.lang, opts.min_text
    geo = page_tiles(opts.width, opts.height, len(entries), min_text=min_px)
    t = geo["title"]
    items = []
    right_x = t["x"] + t["w"]
    if pages > 1:
        pt = label("ui.page_n", lang, n=page, total=pages)
        items.append(text(pt, right_x, t["h"] / 2, geo["title_px"], "muted", lang=lang, weight="r", anchor="r"))
        right_x -= panels.prims.width(pt, geo["title_px"], lang, "r") + geo["title_px"]
    shown_title = title if title is not None else label("ui.good_roads_now" if filtered else "ui.tables", lang)
    if flagged > 0:  # "Integrity flags: 2 tables", before the good roads: what a floor must see first
        ft = label("ui.integrity_tables_n", lang, n=flagged)
        fw = panels.prims.width(ft, geo["title_px"], lang)
        if right_x - t["x"] - fw - geo["title_px"] >= panels.prims.width(shown_title, min_px, lang):
            items.append(text(ft, right_x, t["h"] / 2, geo["title_px"], "banker", lang=lang, anchor="r"))
            right_x -= fw + geo["title_px"]
    if good_count > 0:  # "Good roads: 3" (tables of this screen with one now), where it fits beside the title
        gt = label("ui.good_roads_count", lang, n=good_count)
        gw = panels.prims.width(gt, geo["title_px"], lang, "r")
        if right_x - t["x"] - gw - geo["title_px"] >= panels.prims.width(shown_title, min_px, lang):
            items.append(text(gt, right_x, t["h"] / 2, geo["title_px"], "badge_text", lang=lang, weight="r",
                              anchor="r"))
            right_x -= gw + geo["title_px"]
    tt, ts = fit(shown_title, right_x - t["x"], geo["title_px"], lang, min_size=min_px)
    items.insert(0, text(tt, t["x"], t["h"] / 2, ts, "text", lang=lang))
    ps = [panel("title", t, None, items)]
    if not entries:
        ps.append(panel("note", {"x": 0, "y": t["h"], "w": opts.width, "h": opts.height - t["h"]}, None,
                        [text(label("ui.no_tables", lang), opts.width / 2, opts.height / 2, geo["title_px"], "muted",
                              lang=lang, weight="r", anchor="m")]))
    tile_opts = replace(opts, kind="tile", width=max(64, geo["tw"]), height=max(64, geo["th"])).check()
    tiles = []
    for (snap, last_at, stale), rect in zip(entries, geo["tiles"]):
        m = tile_cache(snap, tile_opts, last_at, stale) if tile_cache else tile_model(snap, tile_opts, last_at=last_at,
                                                                                   tz=tz, stale=stale)
        tiles.append({"id": snap.get("table"), **rect, "model": m})
    out = {"v": MODEL_VERSION, "kind": "lobby", "w": opts.width, "h": opts.height, "theme": opts.theme,
           "lang": lang, "tz": tz, "geom": GEOMETRY, "panels": ps, "roads": [], "tiles": tiles, "page": page,
           "pages": pages, "dim": False, "now": round(time.time(), 3), "offline": {"text": label("ui.offline_since", lang, time="{time}"),
                                                     "size": max(min_px, geo["title_px"])}}
    out["glyphs"] = {}
    for tile in tiles:
        out["glyphs"].update(tile["model"].get("glyphs", {}))
    return out
