"""Text panels of the board model: header, last result, statistics, side bets, good roads,
legend, ask road and the offline / stale banner.

Each builder takes a region (``x``, ``y``, ``w``, ``h`` canvas px), the snapshot, the language
and the smallest text size the board allows, and returns a panel (:mod:`web.render.prims`)
whose words are already taken from the catalogue and fitted with the bundled fonts. Side-bet
panel and wording live in :mod:`web.render.bets` (imported here).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, Sequence

from web import i18n
from web.render import fonts, prims
from web.render.cells import DERIVED_COLOURS, DERIVED_SHAPES, WINNER_COLOURS
from web.render.bets import next_bet_line, side_bet_lines, side_bets
from web.render.prims import fit, label, line_height, panel, text

__all__ = ["ask", "badges", "banner", "footer", "good_road_names", "header", "last_result", "legend", "next_bet_line",
           "round_words", "side_bet_lines", "side_bets", "stats", "wrap"]

def round_words(n: Any, lang: str) -> str:
    """"Round 39" (``ui.round_n``); round 0, a shoe with no round dealt yet: "New shoe"
    (``ui.new_shoe``), not "Round 0"."""
    return label("ui.new_shoe", lang) if n == 0 else label("ui.round_n", lang, n=n)


def header(r: dict[str, int], snap: Mapping[str, Any], lang: str, *, title_px: int, sub_px: int, min_px: int,
           one_line: bool, bg: str | None = "panel") -> dict[str, Any]:
    """Table name, then shoe / round (and variant on full boards). ``one_line``: name left,
    shoe / round right; else two lines."""
    name = str(snap.get("name") or snap.get("table") or "")
    parts = []
    if snap.get("shoe") is not None:
        parts.append(label("ui.shoe_n", lang, n=snap["shoe"]))
    if snap.get("round") is not None:
        parts.append(round_words(snap["round"], lang))
    variant = snap.get("variant")
    game = i18n.variant_name(variant, lang if lang in i18n.LANGUAGES else i18n.DEFAULT_LANGUAGE) \
        if not one_line and isinstance(variant, Mapping) else ""
    if game:
        parts.append(game)
    if snap.get("past"):
        parts.append(label("ui.past_shoe", lang))
    sub = "  ·  ".join(parts)
    pad = max(4, round(sub_px * 0.45))
    x, w, h = r["x"] + pad, r["w"] - 2 * pad, r["h"]
    items = []
    if one_line:
        sub_t, sub_s = fit(sub, w * 0.55, sub_px, lang, weight="b", min_size=min_px)
        sub_w = prims.width(sub_t, sub_s, lang, "b")
        name_t, name_s = fit(name, w - sub_w - pad * 2, title_px, lang, min_size=min_px)
        items.append(text(name_t, x, r["y"] + h / 2, name_s, "text", lang=lang))
        items.append(text(sub_t, r["x"] + r["w"] - pad, r["y"] + h / 2, sub_s, "muted", lang=lang, anchor="r"))
    else:
        name_t, name_s = fit(name, w, title_px, lang, min_size=min_px)
        sub_t, sub_s = fit(sub, w, sub_px, lang, weight="r", min_size=min_px)
        gap = max(0.0, (h - name_s - sub_s) / 3)
        items.append(text(name_t, x, r["y"] + gap + name_s / 2, name_s, "text", lang=lang))
        items.append(text(sub_t, x, r["y"] + 2 * gap + name_s + sub_s / 2, sub_s, "muted", lang=lang, weight="r"))
    return panel("header", r, bg, items)


def result_parts(last: Mapping[str, Any], lang: str, *, short: bool = False) -> list[tuple[str, str]]:
    """The totals of a result as ``(words, colour)`` runs: "Player 8 · Banker 6" (``short``:
    "P 8 · B 6" with the bead letters), each side in its colour, the Player side first."""
    key = "winner_short" if short else "winner"
    return [(f"{label(key + '.P', lang)} {last.get('player_total')}", "player"), (" · ", "muted"),
            (f"{label(key + '.B', lang)} {last.get('banker_total')}", "banker")]


def marks_words(last: Mapping[str, Any], lang: str) -> str:
    """"Banker pair · Natural": the marks of a result, in catalogue words ("" for none)."""
    words = [label(k, lang) for f, k in (("banker_pair", "ui.banker_pair"), ("player_pair", "ui.player_pair"),
                                          ("natural", "ui.natural")) if last.get(f)]
    return " · ".join(words)


def runs(parts: Sequence[tuple[str, str]], x: float, y: float, size: int, lang: str, *, weight: str = "b",
         anchor: str = "l") -> list[dict[str, Any]]:
    """Text runs of several colours on one line, starting at ``x`` (``anchor`` ``"r"``: ending there)."""
    total = sum(prims.width(t, size, lang, weight) for t, _ in parts)
    px = x - total if anchor == "r" else x
    out = []
    for t, colour in parts:
        out.append(text(t, px, y, size, colour, lang=lang, weight=weight))
        px += prims.width(t, size, lang, weight)
    return out


def last_result(r: dict[str, int], snap: Mapping[str, Any], lang: str, *, value_px: int, time_px: int,
                min_px: int, time_text: str | None, one_line: bool, bg: str | None = "panel") -> dict[str, Any]:
    """The last result: the winner's word (large, its colour) and its marks, then "Player 8 ·
    Banker 6" and the time it came (``one_line``: word, totals and time on one line)."""
    last = snap.get("last") if isinstance(snap.get("last"), Mapping) else None
    pad = max(4, round(time_px * 0.45))
    x, w, h = r["x"] + pad, r["w"] - 2 * pad, r["h"]
    items: list[dict[str, Any]] = []
    if last is None:
        t, s = fit(label("ui.no_rounds_yet", lang), w, time_px, lang, weight="r", min_size=min_px)
        items.append(text(t, x, r["y"] + h / 2, s, "muted", lang=lang, weight="r"))
        return panel("last_result", r, bg, items)
    winner = str(last.get("winner"))
    colour = WINNER_COLOURS.get(winner, "text")
    word = label("winner." + winner, lang)
    if one_line:
        cy = r["y"] + h / 2
        ws = value_px
        parts = result_parts(last, lang, short=True)
        tt = time_text or ""
        while ws > min_px and (prims.width(word, ws, lang) + sum(prims.width(t, ws, lang) for t, _ in parts)
                               + prims.width(tt, ws, lang, "r") + 3 * pad) > w:
            ws -= 1
        items.append(text(word, x, cy, ws, colour, lang=lang))
        items += runs(parts, x + prims.width(word, ws, lang) + pad, cy, ws, lang)
        if tt:
            items.append(text(tt, r["x"] + r["w"] - pad, cy, ws, "muted", lang=lang, weight="r", anchor="r"))
        return panel("last_result", r, bg, items)
    marks = marks_words(last, lang)
    wt, ws = fit(word, w * (0.55 if marks else 1.0), value_px, lang, min_size=min_px)
    parts = result_parts(last, lang)
    when = time_text or ""
    small = time_px
    while small > min_px and (sum(prims.width(t, small, lang) for t, _ in parts) + prims.width(when, small, lang, "r")
                              + 2 * pad) > w:
        small -= 1
    gap = max(0.0, (h - ws - small) / 3)
    y1 = r["y"] + gap + ws / 2
    y2 = r["y"] + 2 * gap + ws + small / 2
    items.append(text(wt, x, y1, ws, colour, lang=lang))
    if marks:
        mw = w - prims.width(wt, ws, lang) - pad
        mt, ms = fit(marks, mw, small, lang, weight="r", min_size=min_px)
        items.append(text(mt, r["x"] + r["w"] - pad, y1, ms, "badge_text", lang=lang, weight="r", anchor="r"))
    items += runs(parts, x, y2, small, lang)
    if when:
        items.append(text(when, r["x"] + r["w"] - pad, y2, small, "muted", lang=lang, weight="r", anchor="r"))
    return panel("last_result", r, bg, items)


def wrap(t: str, max_width: float, size: int, lang: str, weight: str = "b") -> list[str]:
    """``t`` broken at spaces into lines of at most ``max_width`` px (a word longer than that
    stays whole: :func:`web.render.prims.fit` cuts it later)."""
    words = t.split(" ")
    out: list[str] = []
    cur = ""
    for w in words:
        cand = w if not cur else cur + " " + w
        if cur and prims.width(cand, size, lang, weight) > max_width:
            out.append(cur)
            cur = w
        else:
            cur = cand
    if cur:
        out.append(cur)
    return out


def _rows(r: dict[str, int], title: str | None, rows: Sequence[tuple[str, str, str]], lang: str, *, size: int,
          min_px: int, pid: str, two_columns: bool, bg: str | None = "panel") -> dict[str, Any]:
    """A titled list of lines (``(left text, right text, colour)``) at one size for all: the
    largest size (down to ``min_px``) at which they fit the height, long single-column lines
    wrapped at spaces; what still does not fit at ``min_px`` is left out, the last line shown
    ending in "…"."""
    pad = max(4, round(size * 0.5))
    x, w = r["x"] + pad, r["w"] - 2 * pad
    avail = r["h"] - pad

    def lay(s: int) -> list[tuple[str, str, str]]:
        if two_columns:
            return list(rows)
        out = []
        for left, right, colour in rows:
            out += [(part, right, colour) for part in wrap(left, w, s, lang)]
        return out

    s = size
    lines = lay(s)
    while s > min_px and (len(lines) + (1 if title else 0)) * line_height(s, lang, wrapped=not two_columns) > avail:
        s -= 1
        lines = lay(s)
    pitch = line_height(s, lang, wrapped=not two_columns)
    fits = max(0, int(avail // pitch))
    items = []
    y = r["y"] + pad / 2 + pitch / 2
    if title:
        tt, ts = fit(title, w, s, lang, weight="r", min_size=min_px)
        items.append(text(tt, x, y, ts, "muted", lang=lang, weight="r"))
        y += pitch
        fits -= 1
    shown = lines
    if len(shown) > fits:
        shown = shown[:max(0, fits)]
        if shown:
            left, right, colour = shown[-1]
            shown[-1] = (left + " …", right, colour)
    for left, right, colour in shown:
        items += _row(left, right, colour, x, y, w, s, pad, lang, two_columns)
        y += pitch
    return panel(pid, r, bg, items)


@functools.lru_cache(maxsize=16384)
def _row(left: str, right: str, colour: str, x: float, y: float, w: float, s: int, pad: int, lang: str,
         two_columns: bool) -> tuple[dict[str, Any], ...]:
    """The text items of one line of :func:`_rows`, laid out once per set of arguments (most
    lines of a statistics panel are the same from one round to the next). The items are shared
    by every model that has that line: read-only (cached until :func:`web.render.fonts.reset_caches`)."""
    if two_columns and right:
        rt, rs = fit(right, w * 0.4, s, lang, min_size=s)
        lt, ls = fit(left, w - prims.width(rt, rs, lang) - pad, s, lang, weight="r", min_size=s)
        return (text(rt, x + w, y, rs, colour, lang=lang, anchor="r"),
                text(lt, x, y, ls, "muted" if colour == "text" else colour, lang=lang, weight="r"))
    lt, ls = fit(left, w, s, lang, min_size=s)
    return (text(lt, x, y, ls, colour, lang=lang),)


def stats(r: dict[str, int], snap: Mapping[str, Any], lang: str, *, size: int, min_px: int) -> dict[str, Any]:
    """Counts of the shoe: rounds, each winner with its share, pairs, naturals, streaks."""
    st = snap.get("stats") if isinstance(snap.get("stats"), Mapping) else {}
    shares = st.get("shares") or {}
    rows: list[tuple[str, str, str]] = [(label("stats.rounds", lang), str(st.get("rounds", 0)), "text")]
    for key, colour in (("banker", "banker"), ("player", "player"), ("tie", "tie")):
        share = shares.get(key)
        value = f"{st.get(key, 0)}" + (f"  {share:.0f}%" if isinstance(share, (int, float)) else "")
        rows.append((label(f"stats.{key}", lang), value, colour))
    for key in ("banker_pair", "player_pair", "natural"):
        rows.append((label(f"stats.{key}", lang), str(st.get(key, 0)), "text"))
    streak = st.get("current_streak") or {}
    if streak.get("winner"):
        w = str(streak["winner"])
        rows.append((label("stats.streak", lang), f"{label('winner_short.' + w, lang)} {streak.get('length', 0)}",
                     WINNER_COLOURS.get(w, "text")))
    return _rows(r, label("ui.statistics", lang), rows, lang, size=size, min_px=min_px, pid="stats", two_columns=True)


def good_road_names(snap: Mapping[str, Any], lang: str, patterns: Sequence[str] | None) -> list[str]:
    """Labels of the good roads the snapshot has, among ``patterns`` (``None``: all)."""
    out = []
    for g in snap.get("good_roads") or []:
        if not isinstance(g, Mapping) or (patterns is not None and g.get("pattern") not in patterns):
            continue
        name = label(f"good_road.{g.get('pattern')}", lang, default=str(g.get("label") or g.get("pattern")))
        out.append(f"{name} {g['length']}" if g.get("length") else name)
    return out


def badges(x: float, right: float, cy: float, names: Sequence[str], lang: str, size: int) -> list[dict[str, Any]]:
    """Good-road badges (pill + label) from ``x`` towards ``right``, ``names`` in priority order;
    those that do not fit are dropped, but the first (the highest priority) is always shown: where
    even it is too wide, its length goes first, then its name is cut with an ellipsis (same size)."""
    items: list[dict[str, Any]] = []
    pill_h = round(size * 1.6)
    radius = pill_h / 2
    for i, name in enumerate(names):
        w = prims.width(name, size, lang) + 2 * radius
        if x + w > right and i == 0 and right - x > 3 * radius:  # one badge when space is short
            bare = name.rsplit(" ", 1)[0] if name.rsplit(" ", 1)[-1].isdigit() else name
            name, _ = fit(bare, right - x - 2 * radius, size, lang, min_size=size)
            w = prims.width(name, size, lang) + 2 * radius
        if x + w > right:
            break
        items.append(prims.rect(x, cy - pill_h / 2, w, pill_h, "badge", radius))
        items.append(text(name, x + radius, cy, size, "badge_text", lang=lang))
        x += w + size * 0.5
    return items


def legend_items(lang: str, size: int) -> list[tuple[dict[str, Any], str]]:
    """``(icon cell, words)`` of the legend: pair dots, natural, tie slash, then the derived
    roads' red and blue (never Banker / Player: "red: the pattern repeats", "blue: it breaks")."""
    s = round(size * 1.5)

    def icon(**kw: Any) -> dict[str, Any]:
        return {"p": "m", "x": 0, "y": 0, "s": s, **kw}

    return [
        (icon(m="pip", c="banker"), label("ui.banker_pair", lang)),
        (icon(m="pip", c="player"), label("ui.player_pair", lang)),
        (icon(m="pip", c="natural"), label("ui.natural", lang)),
        (icon(m="tie", c="tie"), label("winner.T", lang)),
        (icon(m="eye", c="repeat"), label("legend.repeat", lang)),
        (icon(m="eye", c="break"), label("legend.break", lang)),
    ]


def legend(x: float, right: float, cy: float, lang: str, size: int, min_px: int, *,
           height: float = 0) -> list[dict[str, Any]]:
    """The legend laid out from ``x`` to ``right`` at vertical centre ``cy``: one row, or two
    rows of three when ``height`` (px) holds them and that keeps the words larger; shrinks to
    ``min_px``, then leaves out entries from the end (pairs and derived colours stay longest).
    It depends on nothing else (not the snapshot), so it is laid out once per set of arguments
    (cached until :func:`web.render.fonts.reset_caches`); the items returned are fresh copies."""
    return [dict(item) for item in _legend(x, right, cy, lang, size, min_px, height)]


@functools.lru_cache(maxsize=1024)
def _legend(x: float, right: float, cy: float, lang: str, size: int, min_px: int,
            height: float) -> tuple[dict[str, Any], ...]:
    entries = legend_items(lang, size)

    def row(chosen: Sequence[tuple[dict[str, Any], str]], s: int, y: float) -> tuple[list[dict[str, Any]], float]:
        items: list[dict[str, Any]] = []
        px = x
        for icon, words in legend_items(lang, s)[:len(entries)]:
            if words not in {w for _, w in chosen}:
                continue
            icon = dict(icon, x=round(px), y=round(y - icon["s"] / 2))
            items.append(icon)
            px += icon["s"] + s * 0.3
            items.append(text(words, px, y, s, "muted", lang=lang, weight="r"))
            px += prims.width(words, s, lang, "r") + s * 1.1
        return items, px - s * 1.1

    def one_row(s: int) -> tuple[list[dict[str, Any]], float]:
        return row(entries, s, cy)

    def two_rows(s: int) -> tuple[list[dict[str, Any]], float]:
        pitch = line_height(s, lang)
        top, end_top = row(entries[:3], s, cy - pitch / 2)
        bottom, end_bottom = row(entries[3:], s, cy + pitch / 2)
        return top + bottom, max(end_top, end_bottom)

    def largest(lay: Any) -> tuple[list[dict[str, Any]], float, int]:
        s = size
        items, end = lay(s)
        while end > right and s > min_px:
            s -= 1
            items, end = lay(s)
        return items, end, s

    items, end, s = largest(one_row)
    if height and s < size:
        items2, end2, s2 = largest(two_rows)
        if s2 > s and end2 <= right and 2 * line_height(s2, lang) <= height:
            return tuple(items2)
    while items and end > right:
        items = items[:-2]
        last = items[-1] if items else None
        end = (last["x"] + prims.width(last["t"], last["s"], lang, "r")) if last else x
    return tuple(items)


def footer(r: dict[str, int], snap: Mapping[str, Any], lang: str, *, size: int, min_px: int,
           patterns: Sequence[str] | None) -> dict[str, Any]:
    """Good roads (title and badges) on the left, the legend on the right."""
    pad = max(4, round(size * 0.5))
    cy = r["y"] + r["h"] / 2
    x, right = r["x"] + pad, r["x"] + r["w"] - pad
    items: list[dict[str, Any]] = []
    title = label("ui.good_roads", lang)
    items.append(text(title, x, cy, size, "muted", lang=lang, weight="r"))
    x += prims.width(title, size, lang, "r") + pad
    names = good_road_names(snap, lang, patterns)
    split = r["x"] + r["w"] * 0.36
    if names:
        items += badges(x, split, cy, names, lang, size)
    else:
        items.append(text(label("ui.no_good_roads", lang), x, cy, size, "muted", lang=lang, weight="r"))
    items += legend(split + pad, right, cy, lang, size, min_px, height=r["h"] - pad)
    return panel("good_roads", r, "panel", items)


def ask(r: dict[str, int], snap: Mapping[str, Any], lang: str, *, label_right: float, size: int,
        min_px: int) -> dict[str, Any]:
    """The ask road: for a next Banker and a next Player, the side's disc then the mark each
    derived road would add (a dash where it adds none), and the words "If Banker" / "If Player".
    Each row is a target on the table page (``ask`` key: ``banker`` / ``player``)."""
    data = snap.get("ask") if isinstance(snap.get("ask"), Mapping) else {}
    s = r["cell"]
    items: list[dict[str, Any]] = []
    for row, (side, winner) in enumerate((("banker", "B"), ("player", "P"))):
        y = r["y"] + row * s
        items.append({"p": "m", "x": r["x"], "y": y, "s": s, "m": "disc", "c": WINNER_COLOURS[winner],
                      "t": label(f"winner_short.{winner}", lang)})
        pred = data.get(side) or {}
        for i, road in enumerate(DERIVED_SHAPES):
            x = r["x"] + (i + 1) * s
            colour = DERIVED_COLOURS.get(pred.get(road) or "")
            if colour is None:
                items.append(prims.line(x + s * 0.35, y + s / 2, x + s * 0.65, y + s / 2, "grid_major",
                                        max(1, s // 14)))
            else:
                inner = round(s * 0.8) // 2 * 2
                off = (s - inner) // 2
                items.append({"p": "m", "x": x + off, "y": y + off, "s": inner, "m": DERIVED_SHAPES[road],
                              "c": colour})
        lx = r["x"] + 4 * s + s * 0.25
        if label_right - lx > size * 2:
            t, ts = fit(label(f"ui.ask_{side}", lang), label_right - lx, size, lang, weight="r", min_size=min_px)
            items.append(text(t, lx, y + s / 2, ts, "muted", lang=lang, weight="r"))
    rr = {"x": r["x"], "y": r["y"], "w": max(r["w"], int(label_right - r["x"])), "h": r["h"]}
    return panel("ask", rr, None, items, targets=[{"ask": "banker", "x": rr["x"], "y": r["y"], "w": rr["w"], "h": s},
                                                   {"ask": "player", "x": rr["x"], "y": r["y"] + s, "w": rr["w"],
                                                    "h": s}])


def banner(width: int, height: int, t: str, lang: str, *, size: int, y: float | None = None) -> dict[str, Any]:
    """A band across the board (offline / no new result) with ``t`` centred in it."""
    h = round(size * 2.2)
    top = round((height - h) / 2 if y is None else y)
    r = {"x": 0, "y": top, "w": width, "h": h}
    return panel("banner", r, "offline", [text(t, width / 2, top + h / 2, size, "offline_text", lang=lang, anchor="m")])


fonts.DEPENDENT_CACHES.append(_legend)
fonts.DEPENDENT_CACHES.append(_row)
