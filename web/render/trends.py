"""The trends model: a table's or the floor's gaming day as a picture (docs/frontend.md "Trends"),
one frozen, JSON-serialisable model painted by both painters (Pillow, :mod:`web.render.paint_png`;
the page, ``static/js/paint.js``), as the boards are.

:func:`trends_model` takes a table-day or floor-day answer of the statistics API
(:meth:`web.day_stats.DayStats.table_day_json` / :meth:`~web.day_stats.DayStats.floor_day`) and
draws on a 1920x1080 canvas, every text at least :data:`MIN_TEXT_PX` (readable at 5 m on a
1080p screen):

* a header: the table (or "Floor"), the gaming day, and the flag (integrity flags of the day,
  :mod:`roads.integrity`, first; else "Improbable day" or "N tables flagged"; else "No flags");
* the Banker, Player and Tie shares as bars on a 0-60 % scale, each over its expected band (the
  exact expected share ± 1.96 standard errors) with a tick at the expected share, and the share,
  the expected share and the deviation in standard errors written beside it;
* the longest Banker and Player streaks, rounds, shoes and rounds per hour as big numbers;
* for the floor: the tables with the smallest p-values (flagged ones marked) with their shares.

Words from the catalogues (``trends.*``, ``winner.*``; docs/i18n.md), in the model's ``lang``;
the painters pick each script's font by the text items' language, as on the boards. No Flask.
"""

from __future__ import annotations

from typing import Any, Mapping

from web.render.pieces import MODEL_VERSION
from web.render.prims import fit, label, panel, rect, line, text

W, H = 1920, 1080
"""Canvas of a trends model."""

MIN_TEXT_PX = 36
"""Smallest text of a trends model (canvas px of 1080 rows: about 2.4 % of the screen height, read
at 5 m on a 1080p screen of about 1.2 m height)."""

SCALE_MAX = 0.6
"""Share at the right end of the bars."""

BAND_Z = 1.96
"""The expected band's half width, in standard errors (95 % of fair days fall inside)."""

FLOOR_ROWS = 7
"""Tables listed on the floor's picture (smallest p-values first)."""

_SIDES = (("banker", "B", "banker"), ("player", "P", "player"), ("tie", "T", "tie"))


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x * 100:.1f}%"


def _t(t: str, x: float, y: float, w: float, size: int, colour: str = "text", *, lang: str, weight: str = "b",
       anchor: str = "l") -> dict[str, Any]:
    """Words ``t`` at ``size`` px, made smaller (down to :data:`MIN_TEXT_PX`), then cut, to fit ``w`` px."""
    t, s = fit(t, w, size, lang, weight=weight, min_size=MIN_TEXT_PX)
    return text(t, x, y, s, colour, lang=lang, weight=weight, anchor=anchor)


def _longest(forms: list[str], x: float, y: float, w: float, size: int, colour: str, *, lang: str,
             weight: str = "b") -> dict[str, Any]:
    """The first of ``forms`` (longest first) that fits ``w`` px whole at :data:`MIN_TEXT_PX` or
    more, else the last, fitted (cut) as :func:`_t` does."""
    for words in forms:
        t, _ = fit(words, w, size, lang, weight=weight, min_size=MIN_TEXT_PX)
        if t == words:
            break
    return _t(words, x, y, w, size, colour, lang=lang, weight=weight)


def _flag_words(k: int, floor_flagged: int | None, improbable: bool, lang: str) -> str | None:
    """The header's flag: ``k`` integrity flags first, else ``floor_flagged`` tables flagged (the
    floor) or an improbable day (a table), else ``None``."""
    if k:  # an impossibility outranks a statistic
        return label("trends.integrity_flag", lang) if k == 1 else label("trends.integrity_flags_n", lang, n=k)
    if not improbable:
        return None
    if floor_flagged is None:
        return label("trends.improbable_day", lang)
    return label("trends.table_flagged", lang) if floor_flagged == 1 else label("trends.tables_flagged_n", lang,
                                                                                  n=floor_flagged)


def _bar(items: list, x: float, y: float, w: float, h: float, share: Mapping[str, Any], colour: str) -> None:
    """One share bar over its expected band, at ``(x, y)`` of ``w`` x ``h`` px."""
    items.append(rect(x, y, w, h, "background", h * 0.2))
    def at(v: float) -> float:
        return x + w * max(0.0, min(1.0, v / SCALE_MAX))
    exp, se = share.get("expected"), share.get("se")
    if exp is not None and se is not None:
        lo, hi = at(exp - BAND_Z * se), at(exp + BAND_Z * se)
        items.append(rect(lo, y, max(2.0, hi - lo), h, "grid_major"))
    if share.get("share") is not None:
        items.append(rect(x, y + h * 0.25, max(2.0, at(share["share"]) - x), h * 0.5, colour, h * 0.1))
    if exp is not None:
        items.append(line(at(exp), y - h * 0.1, at(exp), y + h * 1.1, "text", 4))


def _header(title: str, day: str, flag: str | None, test: Mapping[str, Any] | None, lang: str) -> dict[str, Any]:
    r = {"x": 24, "y": 24, "w": W - 48, "h": 130}
    items = [_t(title, 56, 24 + 65, 900, 72, lang=lang)]
    items.append(_t(label("trends.gaming_day", lang, day=day), 980, 24 + 65, 420, 44, "muted", lang=lang, weight="r"))
    if flag:
        items.append(rect(W - 500, 44, 440, 90, "offline", 12))
        items.append(_t(flag, W - 280, 89, 400, 48, "offline_text", lang=lang, anchor="m"))
    else:
        p = test.get("p_value") if test else None
        words = label("trends.no_flags", lang) if p is None else label("trends.no_flags_p", lang, p=f"p {p:.3f}")
        items.append(_t(words, W - 60, 89, 440, 44, "open", lang=lang, anchor="r"))
    return panel("header", r, "panel", items)


def _shares(results: Mapping[str, Any], r: dict[str, int], test: Mapping[str, Any] | None, lang: str) -> dict[str, Any]:
    items: list = [_t(label("trends.results_vs_odds", lang), r["x"] + 32, r["y"] + 50, r["w"] - 64, 44, "muted",
                      lang=lang, weight="r")]
    row_h = (r["h"] - 190) / 3
    bar_x, bar_w = r["x"] + 250, r["w"] - 290
    for i, (key, letter, colour) in enumerate(_SIDES):
        s = results[key]
        y = r["y"] + 100 + i * row_h
        items.append(_t(label("winner." + letter, lang), r["x"] + 32, y + 36, 210, 52, colour, lang=lang))
        _bar(items, bar_x, y + 8, bar_w, 56, s, colour)
        z = s.get("z")
        words = f"{_pct(s.get('share'))}   " + label("trends.expected", lang, pct=_pct(s.get("expected")))
        forms = [words] if z is None else [words + "   " + label("trends.z_se", lang, z=f"{z:+.1f}"),
                                           words + f"   {z:+.1f}"]  # the unit left out where it does not fit
        items.append(_longest(forms, bar_x, y + 112, bar_w, 40, "text", lang=lang, weight="r"))
    axis_y = r["y"] + r["h"] - 70
    for v in (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6):
        x = bar_x + bar_w * v / SCALE_MAX
        items.append(_t(f"{int(v * 100)}%", x, axis_y, 120, MIN_TEXT_PX, "muted", lang=lang, weight="r", anchor="m"))
    if test is not None:
        forms = [label("trends.band_note", lang, z=f"±{BAND_Z}", p=f"p {test['p_value']:.3f}"),
                 label("trends.band_note_short", lang, z=f"±{BAND_Z}")]  # the test's p-value left out where it does not fit
        items.append(_longest(forms, r["x"] + 32, r["y"] + r["h"] - 24, r["w"] - 64, MIN_TEXT_PX, "muted", lang=lang,
                              weight="r"))
    return panel("shares", r, "panel", items)


def _figures(cells: list[tuple[str, str, str]], r: dict[str, int], lang: str, cols: int = 2) -> dict[str, Any]:
    """Big numbers ``(name, value, colour)`` in a grid of ``cols`` columns."""
    items: list = []
    rows = -(-len(cells) // cols)
    cw, ch = r["w"] / cols, (r["h"] - 20) / rows
    big = int(min(120, ch * 0.5))
    for i, (name, value, colour) in enumerate(cells):
        x, y = r["x"] + (i % cols) * cw, r["y"] + 10 + (i // cols) * ch
        items.append(_t(name, x + 32, y + 46, cw - 48, 38, "muted", lang=lang, weight="r"))
        items.append(_t(value, x + 32, y + 46 + 20 + big * 0.75, cw - 48, big, colour, lang=lang))
    return panel("figures", r, "panel", items)


def _streak_bars(day: Mapping[str, Any], r: dict[str, int], lang: str) -> dict[str, Any]:
    """Streak lengths as bars (Banker and Player), out of the longer one or 10."""
    b, p = int(day.get("longest_banker_streak") or 0), int(day.get("longest_player_streak") or 0)
    top = max(10, b, p)
    items: list = [_t(label("trends.longest_streaks", lang), r["x"] + 32, r["y"] + 50, r["w"] - 64, 44, "muted",
                      lang=lang, weight="r")]
    for i, (n, colour) in enumerate(((b, "banker"), (p, "player"))):
        y = r["y"] + 90 + i * 80
        w = (r["w"] - 200) * n / top
        items.append(rect(r["x"] + 32, y, r["w"] - 200, 56, "background", 10))
        items.append(rect(r["x"] + 32, y, max(2.0, w), 56, colour, 10))
        items.append(_t(str(n), r["x"] + r["w"] - 40, y + 28, 140, 52, colour, lang=lang, anchor="r"))
    return panel("streaks", r, "panel", items)


def _floor_rows(tables: list[Mapping[str, Any]], r: dict[str, int], lang: str) -> dict[str, Any]:
    items: list = [_t(label("trends.least_probable", lang), r["x"] + 32, r["y"] + 50, r["w"] - 64, 44, "muted",
                      lang=lang, weight="r")]
    rows = sorted(tables, key=lambda t: t["test"]["p_value"])[:FLOOR_ROWS]
    row_h = (r["h"] - 90) / FLOOR_ROWS
    for i, t in enumerate(rows):
        y = r["y"] + 90 + i * row_h
        flagged = t["test"]["flagged"]
        items.append(_t(t.get("name") or t["table"], r["x"] + 32, y + row_h / 2, 210, 44,
                        "warn" if flagged else "text", lang=lang))
        bx, bw = r["x"] + 260, r["w"] - 560
        res = t["results"]
        x = bx
        for key, _, colour in _SIDES:  # one stacked bar of the shares
            share = res[key].get("share") or 0.0
            if bw * share >= 1:
                items.append(rect(x, y + row_h * 0.2, bw * share, row_h * 0.6, colour))
            x += bw * share
        exp_b = res["banker"].get("expected")
        if exp_b is not None:
            ex = bx + bw * exp_b
            items.append(line(ex, y + row_h * 0.1, ex, y + row_h * 0.9, "text", 4))
        words = (label("trends.flag_mark", lang) + " " if flagged else "") + f"p {t['test']['p_value']:.3f}"
        items.append(_t(words, r["x"] + r["w"] - 32, y + row_h / 2, 260, 40, "warn" if flagged else "muted",
                        lang=lang, anchor="r"))
    if not rows:
        items.append(_t(label("trends.no_rounds", lang), r["x"] + 32, r["y"] + 160, r["w"] - 64, 48, "muted",
                        lang=lang, weight="r"))
    return panel("tables", r, "panel", items)


def trends_title(lang: str, name: str | None = None) -> str:
    """The title of table ``name``'s trends ("T1 · trends"), or of the floor's (``None``: "Floor trends")."""
    return label("trends.floor_title", lang) if name is None else label("trends.table_title", lang, name=name)


def trends_model(day: Mapping[str, Any], *, theme: str = "dark", name: str | None = None,
                 lang: str = "en") -> dict[str, Any]:
    """The model of a table-day (``day`` has ``"table"``) or floor-day (``"floor"``) answer, with
    the words of language ``lang`` (a :data:`web.i18n.LANGUAGES` code)."""
    floor = "floor" in day
    figures = day["floor"] if floor else day
    test = figures.get("test")
    flagged = bool(day.get("flagged")) if floor else bool(test and test["flagged"])
    title = trends_title(lang) if floor else trends_title(lang, name or day["table"])
    flag = _flag_words(len(day.get("integrity") or ()), len(day.get("flagged") or ()) if floor else None, flagged, lang)
    panels = [_header(title, day["day"], flag, None if floor else test, lang)]
    rph = figures.get("rounds_per_hour")
    pace = (label("trends.per_hour", lang), "-" if rph is None else f"{rph:.0f}", "text")
    rounds = (label("trends.rounds", lang), f"{figures.get('rounds', 0):,}", "text")
    if floor:
        panels.append(_shares(figures["results"], {"x": 24, "y": 178, "w": 960, "h": 640}, test, lang))
        panels.append(_figures([rounds, (label("trends.tables", lang), str(len(day.get("tables", []))), "text"),
                                (label("trends.streaks", lang),
                                 f"{figures['longest_banker_streak']}/{figures['longest_player_streak']}", "text"), pace],
                               {"x": 24, "y": 842, "w": 960, "h": 214}, lang, cols=4))
        panels.append(_floor_rows(day.get("tables", []), {"x": 1008, "y": 178, "w": W - 1032, "h": 878}, lang))
    else:
        panels.append(_shares(figures["results"], {"x": 24, "y": 178, "w": 1150, "h": 878}, test, lang))
        panels.append(_figures([rounds, (label("trends.shoes", lang), str(figures.get("shoes", 0)), "text"), pace,
                                (label("trends.flagged", lang), label("trends.yes" if flag else "trends.no", lang),
                                 "warn" if flag else "open")],
                               {"x": 1198, "y": 178, "w": W - 1222, "h": 560}, lang))
        panels.append(_streak_bars(figures, {"x": 1198, "y": 762, "w": W - 1222, "h": 294}, lang))
    return {"v": MODEL_VERSION, "kind": "trends", "w": W, "h": H, "theme": theme, "lang": lang, "tz": "UTC",
            "table": None if floor else day["table"], "day": day["day"], "panels": panels, "roads": [], "glyphs": {}}
