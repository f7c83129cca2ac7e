"""Pillow rendering of scoreboards from a snapshot dict (roads.snapshot) and a layout (web.render.layout).

Pure functions from data to an image, keyword-only options, module-level palettes (the
python-chess ``svg`` module is the model): :func:`render_board`, :func:`render_road`,
:func:`render_lobby`, and :func:`encode_png` for the bytes.

Symbols (docs/domain.md §4; colours Banker red, Player blue, Tie green):

- bead plate: filled circle with the winner's letter (庄/闲/和 in Chinese); banker pair
  red dot top-left, player pair blue dot bottom-right;
- big road: hollow ring in the winner's colour; ties as a green slash, with the count
  when more than one (leading ties of the shoe on the first cell); banker pair red dot
  top-left, player pair blue dot bottom-right, natural a small gold dot top-right;
- big eye boy: small hollow circles; small road: solid dots; cockroach pig: slashes;
- ask road: for a next Banker / next Player, the symbol each derived road would add.

Anti-aliasing: each symbol is drawn once per size as a coverage mask at 4x and
box-reduced (cached), then pasted in its colour; text is FreeType-anti-aliased and
shaped by raqm (web.render.fonts). Grid lines are 1 px on cell boundaries (cells are whole
pixels, see web.render.layout), so lines stay crisp at every size. The static frame of a board
(panels, grid lines, titles) depends only on size, options, theme and language and is
cached separately from the symbols.
"""

from __future__ import annotations

import functools
import io
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from PIL import Image, ImageDraw

from roads.window import bead_plate_offset, road_offset
from web import i18n
from web.render import fonts
from web.render.layout import DERIVED_ROADS, ROAD_NAMES, board_layout, lobby_layout

SUPERSAMPLE = 4
"""Symbols are drawn at this multiple of their final size, then box-reduced."""

PNG_COMPRESS_LEVEL = 1
"""zlib level for PNG encoding, chosen by measurement (bench/bench_png.py): level 1 encodes a
1080p board several times faster than Pillow's default (6); levels 2-3 cost more time than
they save bytes."""


class RenderError(ValueError):
    """A rendering option that is not valid (unknown theme, language, road); ``field`` names it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


RGB = tuple[int, int, int]


@dataclass(frozen=True)
class Theme:
    """A palette (RGB tuples). ``banker``/``player``/``tie`` are the road colours."""

    name: str
    background: RGB
    panel: RGB
    cell: RGB
    grid: RGB
    grid_major: RGB
    text: RGB
    muted: RGB
    banker: RGB
    player: RGB
    tie: RGB
    natural: RGB
    on_symbol: RGB
    open: RGB
    warn: RGB
    badge: RGB
    badge_text: RGB


THEMES: dict[str, Theme] = {
    "dark": Theme(
        name="dark",
        background=(11, 14, 19),
        panel=(21, 26, 33),
        cell=(26, 31, 40),
        grid=(41, 48, 60),
        grid_major=(58, 67, 82),
        text=(238, 241, 245),
        muted=(150, 159, 174),
        banker=(237, 62, 62),
        player=(52, 132, 250),
        tie=(46, 189, 99),
        natural=(245, 190, 50),
        on_symbol=(255, 255, 255),
        open=(86, 211, 130),
        warn=(245, 190, 50),
        badge=(48, 40, 12),
        badge_text=(255, 214, 102),
    ),
    "light": Theme(
        name="light",
        background=(232, 235, 240),
        panel=(255, 255, 255),
        cell=(255, 255, 255),
        grid=(214, 219, 227),
        grid_major=(184, 191, 202),
        text=(17, 24, 39),
        muted=(92, 102, 118),
        banker=(214, 36, 36),
        player=(22, 92, 214),
        tie=(22, 150, 72),
        natural=(200, 140, 0),
        on_symbol=(255, 255, 255),
        open=(18, 130, 62),
        warn=(180, 110, 0),
        badge=(255, 243, 205),
        badge_text=(120, 80, 0),
    ),
}
"""Available themes by name."""

DEFAULT_THEME = "dark"


# --------------------------------------------------------------------------- labels

def label(key: str, lang: str, default: str | None = None, **values: Any) -> str:
    """The label for ``key`` in ``lang`` from :mod:`web.i18n` (English where ``lang`` lacks it,
    or for a ``lang`` that is not a catalogue), ``{name}`` placeholders filled from ``values``.

    A key in no catalogue (a ``bet.<id>`` or ``good_road.<pattern>`` added to the roads
    before the catalogues) gives ``default``, else the key itself, filled the same way.
    """
    if lang not in i18n.LANGUAGES:
        lang = i18n.DEFAULT_LANGUAGE
    try:
        return i18n.translate(key, lang, **values)
    except i18n.UnknownLabelError:
        text = default if default is not None else key
    for name, value in values.items():
        text = text.replace("{" + name + "}", str(value))
    return text


def check_options(*, theme: str, lang: str) -> tuple[Theme, str]:
    """Validate ``theme`` and ``lang``; raises :class:`RenderError` naming ``theme`` or ``lang``."""
    if theme not in THEMES:
        raise RenderError("theme", f"unknown theme {theme!r}; expected one of {', '.join(THEMES)}")
    if lang not in fonts.LANGUAGES:
        raise RenderError("lang", f"unknown language {lang!r}; expected one of {', '.join(fonts.LANGUAGES)}")
    return THEMES[theme], lang


# --------------------------------------------------------------------------- symbol masks

def _ss_canvas(size: int) -> tuple[Image.Image, ImageDraw.ImageDraw, int]:
    s = size * SUPERSAMPLE
    img = Image.new("L", (s, s), 0)
    return img, ImageDraw.Draw(img), s


def _reduce(img: Image.Image) -> Image.Image:
    return img.reduce(SUPERSAMPLE)


@functools.lru_cache(maxsize=1024)
def _mask(shape: str, size: int) -> Image.Image:
    """Coverage mask (mode "L", ``size`` x ``size``) of one symbol shape for a cell of ``size`` px.

    Shapes: ``ring`` (big road), ``disc`` (bead plate, ask), ``eye`` (big eye boy ring),
    ``dot`` (small road), ``slash`` (cockroach pig), ``tie`` (green slash over a big-road
    cell), ``bp``/``pp`` (pair dots: top-left / bottom-right), ``bp_halo``/``pp_halo``
    (their contrasting outline), ``nat``/``nat_halo`` (natural mark, top-right).
    """
    img, d, s = _ss_canvas(size)
    c = s / 2
    if shape == "ring":
        r, w = s * 0.41, max(2 * SUPERSAMPLE, s * 0.12)
        d.ellipse((c - r, c - r, c + r, c + r), outline=255, width=round(w))
    elif shape == "disc":
        r = s * 0.43
        d.ellipse((c - r, c - r, c + r, c + r), fill=255)
    elif shape == "eye":
        r, w = s * 0.38, max(SUPERSAMPLE * 1.5, s * 0.15)
        d.ellipse((c - r, c - r, c + r, c + r), outline=255, width=round(w))
    elif shape == "dot":
        r = s * 0.36
        d.ellipse((c - r, c - r, c + r, c + r), fill=255)
    elif shape in ("slash", "tie"):
        w = max(SUPERSAMPLE * 1.5, s * (0.15 if shape == "slash" else 0.11))
        a, b = (s * 0.2, s * 0.8) if shape == "slash" else (s * 0.16, s * 0.84)
        d.line((a, b, b, a), fill=255, width=round(w))
        rr = w / 2
        for px, py in ((a, b), (b, a)):
            d.ellipse((px - rr, py - rr, px + rr, py + rr), fill=255)
    elif shape in ("bp", "pp", "nat", "bp_halo", "pp_halo", "nat_halo"):
        base = shape.split("_")[0]
        r = s * 0.12
        if shape.endswith("halo"):
            r += max(SUPERSAMPLE, s * 0.045)
        cx, cy = {"bp": (s * 0.18, s * 0.18), "pp": (s * 0.82, s * 0.82), "nat": (s * 0.82, s * 0.18)}[base]
        d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=255)
    else:  # pragma: no cover - programming error
        raise ValueError(f"unknown symbol shape {shape!r}")
    return _reduce(img)


@functools.lru_cache(maxsize=512)
def _letter_mask(text: str, size: int, lang: str) -> Image.Image:
    """Mask of a bead-plate letter centred in a ``size`` px cell (fits inside the disc)."""
    img = Image.new("L", (size, size), 0)
    d = ImageDraw.Draw(img)
    px = max(6, round(size * (0.50 if len(text) == 1 else 0.34)))
    px = fonts.fit_size(text, size * 0.66, px, lang=lang, min_size=5)
    fonts.draw_text(d, (size / 2, size / 2), text, size=px, fill=255, lang=lang, anchor="mm")
    return img


def _paste(img: Image.Image, color: RGB, mask: Image.Image, x: int, y: int) -> None:
    img.paste(color, (x, y, x + mask.width, y + mask.height), mask)


# --------------------------------------------------------------------------- frame (cached)

_FRAME_CACHE: "OrderedDict[tuple, Image.Image]" = OrderedDict()
_FRAME_LOCK = threading.Lock()
FRAME_CACHE_SIZE = 24
"""Static frames (panels, grids, titles) kept per (size, kind, roads, columns, theme, lang)."""


def _panel(d: ImageDraw.ImageDraw, rect: Mapping[str, int], theme: Theme, pad: int, radius: int) -> None:
    x, y, w, h = rect["x"], rect["y"], rect["w"], rect["h"]
    d.rounded_rectangle((x - pad, y - pad, x + w + pad - 1, y + h + pad - 1), radius=radius, fill=theme.panel)


def _grid(d: ImageDraw.ImageDraw, r: Mapping[str, int], theme: Theme) -> None:
    x0, y0, cell, cols, rows = r["x"], r["y"], r["cell"], r["cols"], r["rows"]
    x1, y1 = x0 + cols * cell, y0 + rows * cell
    d.rectangle((x0, y0, x1, y1), fill=theme.cell)
    for i in range(cols + 1):
        d.line((x0 + i * cell, y0, x0 + i * cell, y1), fill=theme.grid)
    for j in range(rows + 1):
        d.line((x0, y0 + j * cell, x1, y0 + j * cell), fill=theme.grid)
    d.rectangle((x0, y0, x1, y1), outline=theme.grid_major)


def _frame(layout: Mapping[str, Any], theme: Theme, lang: str) -> Image.Image:
    key = (layout["kind"], layout["width"], layout["height"], layout["columns"],
           tuple((k, tuple(v.values())) for k, v in layout["regions"].items()), theme.name, lang)
    with _FRAME_LOCK:
        hit = _FRAME_CACHE.get(key)
        if hit is not None:
            _FRAME_CACHE.move_to_end(key)
            return hit
    img = Image.new("RGB", (layout["width"], layout["height"]), theme.background)
    d = ImageDraw.Draw(img)
    regions = layout["regions"]
    cell = layout["cell"]
    pad = max(1, round(cell * 0.08))
    radius = max(2, round(cell * 0.14))
    one_road = layout["kind"] == "embed" and len([r for r in regions if r in ROAD_NAMES]) == len(regions)
    for name in ("header", "last_result", "stats", "side_bets", "good_roads"):
        if name in regions and regions[name]["h"] > 0 and layout["kind"] == "board":
            _panel(d, regions[name], theme, pad, radius)
    if "ask" in regions:
        ask = regions["ask"]
        side = regions.get("stats", ask)
        _panel(d, {"x": min(ask["x"], side["x"]), "y": ask["y"], "w": max(ask["w"], side["x"] + side["w"] - min(ask["x"], side["x"])) if layout["orientation"] == "landscape" else ask["w"], "h": ask["h"]}, theme, pad, radius)
    for name in ROAD_NAMES:
        if name in regions:
            _grid(d, regions[name], theme)
    if not one_road:
        # separators between the big eye boy and the small road / cockroach pig bands
        if "small_road" in regions and "cockroach_pig" in regions:
            s, c = regions["small_road"], regions["cockroach_pig"]
            d.line((c["x"], c["y"], c["x"], c["y"] + c["h"]), fill=theme.grid_major, width=max(1, cell // 30))
            d.line((s["x"], s["y"], c["x"] + c["w"], s["y"]), fill=theme.grid_major, width=max(1, cell // 30))
        if "bead_plate" in regions and "big_eye_boy" in regions:
            b = regions["big_eye_boy"]
            d.line((b["x"], b["y"], b["x"], b["y"] + 2 * b["h"]), fill=theme.grid_major, width=max(1, cell // 30))
    # static titles
    text = layout["text"]
    if "stats" in regions and layout["kind"] == "board":
        r = regions["stats"]
        fonts.draw_text(d, (r["x"] + pad, r["y"] + text["label"]), label("ui.statistics", lang),
                        size=text["label"], fill=theme.muted, lang=lang, weight="regular")
    if "side_bets" in regions and layout["kind"] == "board":
        r = regions["side_bets"]
        fonts.draw_text(d, (r["x"] + pad, r["y"] + text["label"]), label("ui.side_bets", lang),
                        size=text["label"], fill=theme.muted, lang=lang, weight="regular")
    with _FRAME_LOCK:
        _FRAME_CACHE[key] = img
        while len(_FRAME_CACHE) > FRAME_CACHE_SIZE:
            _FRAME_CACHE.popitem(last=False)
    return img


# --------------------------------------------------------------------------- roads

def _road_offset(cells: Sequence[Mapping[str, Any]], cols: int) -> int:
    """First grid column shown for a big road / derived road (roads.window: whole columns,
    the newest logical column always visible)."""
    return road_offset(cells, cols) if cells else 0


def _colour(theme: Theme, name: str | None) -> RGB | None:
    return {"red": theme.banker, "blue": theme.player, "B": theme.banker, "P": theme.player, "T": theme.tie}.get(name or "")


@functools.lru_cache(maxsize=1024)
def _sprite(layers: tuple[tuple[RGB, tuple], ...], size: int) -> Image.Image:
    """One cell's symbol as a cached RGBA image: ``layers`` (colour, shape) composited in order.

    A shape is ``(name,)`` for :func:`_mask` or ``("letter", text, lang)``. A cell is then one
    paste, however many marks it carries (ring, tie slash, pair dots with halos, natural).
    """
    acc = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    for colour, shape in layers:
        mask = _letter_mask(shape[1], size, shape[2]) if shape[0] == "letter" else _mask(shape[0], size)
        layer = Image.new("RGBA", (size, size), colour + (255,))
        layer.putalpha(mask)
        acc = Image.alpha_composite(acc, layer)
    return acc


def _put(img: Image.Image, sprite: Image.Image, x: int, y: int) -> None:
    img.paste(sprite, (x, y, x + sprite.width, y + sprite.height), sprite)


def _mark_layers(entry: Mapping[str, Any], theme: Theme, halo: RGB, natural: bool) -> tuple:
    """Pair dots (banker top-left, player bottom-right) and the natural mark, each on a halo."""
    out = []
    for key, shape, colour in (("banker_pair", "bp", theme.banker), ("player_pair", "pp", theme.player),
                               ("natural", "nat", theme.natural)):
        if entry.get(key) and (natural or key != "natural"):
            out += [(halo, (shape + "_halo",)), (colour, (shape,))]
    return tuple(out)


def _draw_bead_plate(img: Image.Image, r: Mapping[str, int], snap: Mapping[str, Any], theme: Theme, lang: str) -> None:
    beads = snap.get("bead_plate") or []
    cell = r["cell"]
    off = bead_plate_offset(len(beads), r["cols"])
    letters = {w: label(f"winner_short.{w}", lang) for w in "BPT"}
    for b in beads:
        cx = b["x"] - off
        if not 0 <= cx < r["cols"] or not 0 <= b["y"] < r["rows"]:
            continue
        col = _colour(theme, b["winner"]) or theme.muted
        layers = ((col, ("disc",)), (theme.on_symbol, ("letter", letters.get(b["winner"], b["winner"]), lang)))
        layers += _mark_layers(b, theme, theme.cell, natural=False)
        _put(img, _sprite(layers, cell), r["x"] + cx * cell, r["y"] + b["y"] * cell)


def _draw_big_road(img: Image.Image, d: ImageDraw.ImageDraw, r: Mapping[str, int], snap: Mapping[str, Any],
                   theme: Theme, lang: str) -> None:
    big = snap.get("big_road") or {}
    columns = big.get("columns") or []
    cells = big.get("cells") or []
    leading = int(big.get("leading_ties") or 0)
    cell = r["cell"]
    off = _road_offset(cells, r["cols"])
    count_px = max(7, round(cell * 0.42))
    if not columns and leading:
        # a shoe of only ties so far: the ties wait on the first cell
        _put(img, _sprite(((theme.tie, ("tie",)),), cell), r["x"], r["y"])
        if leading > 1:
            fonts.draw_text(d, (r["x"] + cell / 2, r["y"] + cell / 2), str(leading), size=count_px,
                            fill=theme.text, lang="en", anchor="mm")
    for c in cells:
        cx = c["x"] - off
        if not 0 <= cx < r["cols"] or not 0 <= c["y"] < r["rows"]:
            continue
        entry = columns[c["column"]][c["row"]]
        x, y = r["x"] + cx * cell, r["y"] + c["y"] * cell
        ties = int(entry.get("ties") or 0) + (leading if c["column"] == 0 and c["row"] == 0 else 0)
        layers: tuple = ((_colour(theme, entry["winner"]) or theme.muted, ("ring",)),)
        if ties:
            layers += ((theme.tie, ("tie",)),)
        layers += _mark_layers(entry, theme, theme.cell, natural=True)
        _put(img, _sprite(layers, cell), x, y)
        if ties > 1:
            fonts.draw_text(d, (x + cell / 2, y + cell / 2), str(ties), size=count_px, fill=theme.text,
                            lang="en", anchor="mm", stroke=max(1, cell // 22), stroke_fill=theme.cell)


_DERIVED_SHAPE = {"big_eye_boy": "eye", "small_road": "dot", "cockroach_pig": "slash"}


def _draw_derived(img: Image.Image, name: str, r: Mapping[str, int], snap: Mapping[str, Any], theme: Theme) -> None:
    road = snap.get(name) or {}
    cells = road.get("cells") or []
    cell = r["cell"]
    off = _road_offset(cells, r["cols"])
    mask = _mask(_DERIVED_SHAPE[name], cell)
    for c in cells:
        cx = c["x"] - off
        if not 0 <= cx < r["cols"] or not 0 <= c["y"] < r["rows"]:
            continue
        _paste(img, _colour(theme, c.get("color")) or theme.muted, mask, r["x"] + cx * cell, r["y"] + c["y"] * cell)


def _draw_ask(img: Image.Image, d: ImageDraw.ImageDraw, r: Mapping[str, int], snap: Mapping[str, Any], theme: Theme,
              lang: str, label_width: int, text_px: int) -> None:
    ask = snap.get("ask") or {}
    cell = r["cell"]
    for row, (side, winner) in enumerate((("banker", "B"), ("player", "P"))):
        y = r["y"] + row * cell
        _paste(img, _colour(theme, winner), _mask("disc", cell), r["x"], y)
        _paste(img, theme.on_symbol, _letter_mask(label(f"winner_short.{winner}", lang), cell, lang), r["x"], y)
        pred = ask.get(side) or {}
        for i, road in enumerate(DERIVED_ROADS):
            x = r["x"] + (i + 1) * cell
            colour = _colour(theme, pred.get(road))
            if colour is None:
                d.line((x + cell * 0.35, y + cell / 2, x + cell * 0.65, y + cell / 2), fill=theme.grid_major,
                       width=max(1, cell // 14))
            else:
                inner = _mask(_DERIVED_SHAPE[road], round(cell * 0.8) // 2 * 2)
                pad = (cell - inner.width) // 2
                _paste(img, colour, inner, x + pad, y + pad)
        if label_width > text_px * 2:
            text = label(f"ui.ask_{side}", lang)
            size = fonts.fit_size(text, label_width, text_px, lang=lang, weight="regular")
            fonts.draw_text(d, (r["x"] + 4 * cell + cell * 0.25, y + cell / 2), text, size=size,
                            fill=theme.muted, lang=lang, weight="regular", anchor="lm")


# --------------------------------------------------------------------------- text panels

def _fit(text: str, width: float, size: int, lang: str, weight: str = "bold", min_size: int = 8) -> tuple[str, int]:
    """Shrink to fit down to 70% of ``size`` (never below ``min_size``), then ellipsize."""
    s = fonts.fit_size(text, width, size, lang=lang, weight=weight, min_size=max(min_size, round(size * 0.7)))
    return fonts.ellipsize(text, width, size=s, lang=lang, weight=weight), s


def _header(d: ImageDraw.ImageDraw, r: Mapping[str, int], snap: Mapping[str, Any], theme: Theme, lang: str,
            text: Mapping[str, int], *, compact: bool = False) -> None:
    name = str(snap.get("name") or snap.get("table") or "")
    parts = []
    if snap.get("shoe") is not None:
        parts.append(label("ui.shoe_n", lang, n=snap["shoe"]))
    if snap.get("round") is not None:
        parts.append(label("ui.round_n", lang, n=snap["round"]))
    variant = snap.get("variant")
    if isinstance(variant, Mapping) and variant.get("name") and not compact:
        parts.append(str(variant["name"]))
    if snap.get("past"):
        parts.append(label("ui.past_shoe", lang))
    sub = "  ·  ".join(parts)
    pad = max(2, round(text["small"] * 0.4))
    x, w, h = r["x"] + pad, r["w"] - 2 * pad, r["h"]
    if compact or h < text["title"] * 2.1:
        # one line: name left, shoe/round right
        sub_t, sub_s = _fit(sub, w * 0.5, text["label"], lang, "regular")
        sub_w = fonts.text_width(sub_t, size=sub_s, lang=lang, weight="regular")
        name_t, name_s = _fit(name, w - sub_w - pad * 3, round(min(text["title"], h * 0.62)), lang)
        fonts.draw_text(d, (x, r["y"] + h / 2), name_t, size=name_s, fill=theme.text, lang=lang, anchor="lm")
        fonts.draw_text(d, (r["x"] + r["w"] - pad, r["y"] + h / 2), sub_t, size=sub_s, fill=theme.muted, lang=lang,
                        weight="regular", anchor="rm")
        return
    name_t, name_s = _fit(name, w, text["title"], lang)
    sub_t, sub_s = _fit(sub, w, text["label"], lang, "regular")
    gap = (h - name_s - sub_s) / 3
    fonts.draw_text(d, (x, r["y"] + gap + name_s / 2), name_t, size=name_s, fill=theme.text, lang=lang, anchor="lm")
    fonts.draw_text(d, (x, r["y"] + 2 * gap + name_s + sub_s / 2), sub_t, size=sub_s, fill=theme.muted, lang=lang,
                    weight="regular", anchor="lm")


def _stack(d: ImageDraw.ImageDraw, x: float, top: float, height: float, width: float,
           lines: Sequence[tuple[str, int, str, RGB]], lang: str, align: str = "r") -> None:
    """Draw ``lines`` (text, size px, weight, colour) stacked in a box of ``height`` px.

    Line boxes come from the fonts' own ascent/descent (:func:`web.render.fonts.font_metrics`),
    so tall scripts (Burmese, Thai marks) never collide; when the lines do not fit, every
    size shrinks by the same factor. Free space is shared evenly between the lines.
    """
    lines = [ln for ln in lines if ln[0]]
    if not lines:
        return
    for _ in range(6):
        boxes = [fonts.font_metrics(t, size=sz, lang=lang, weight=w) for t, sz, w, _ in lines]
        total = sum(a + b for a, b in boxes)
        if total <= height or all(sz <= 8 for _, sz, _, _ in lines):
            break
        k = height / total
        lines = [(t, max(8, int(sz * k)), w, c) for t, sz, w, c in lines]
    gap = max(0.0, (height - total) / (len(lines) + 1))
    y = top + gap
    anchor = {"r": "rs", "l": "ls", "m": "ms"}[align]
    for (t, sz, w, c), (asc, desc) in zip(lines, boxes):
        t2 = fonts.ellipsize(t, width, size=sz, lang=lang, weight=w)
        fonts.draw_text(d, (x, y + asc), t2, size=sz, fill=c, lang=lang, weight=w, anchor=anchor)
        y += asc + desc + gap


def _totals_segments(last: Mapping[str, Any], theme: Theme, lang: str, short: bool) -> list[tuple[str, RGB, str]]:
    """"Player 8 · Banker 6" as ``(text, colour, weight)`` pieces: each side's catalogue word
    (``winner.*``, or ``winner_short.*`` when ``short``) regular and its total bold, in the
    side's colour, a muted dot between (the web page's last-result line)."""
    key = "winner_short." if short else "winner."
    segs: list[tuple[str, RGB, str]] = []
    for side, total in (("P", last["player_total"]), ("B", last["banker_total"])):
        colour = _colour(theme, side)
        if segs:
            segs.append((" \u00b7 ", theme.muted, "regular"))
        segs += [(label(key + side, lang) + " ", colour, "regular"), (str(total), colour, "bold")]
    return segs


def _segments_width(segs: Sequence[tuple[str, RGB, str]], size: int, lang: str) -> float:
    return sum(fonts.text_width(t, size=size, lang=lang, weight=w) for t, _, w in segs)


def _draw_segments(d: ImageDraw.ImageDraw, x: float, baseline: float, segs: Sequence[tuple[str, RGB, str]],
                   size: int, lang: str) -> None:
    """Draw differently coloured pieces of one line on a shared baseline, left to right."""
    for t, colour, weight in segs:
        fonts.draw_text(d, (x, baseline), t, size=size, fill=colour, lang=lang, weight=weight, anchor="ls")
        x += fonts.text_width(t, size=size, lang=lang, weight=weight)


def _ink(texts: Sequence[str], size: int, lang: str, weight: str) -> tuple[int, int]:
    """Ascent/descent of the ink of every string of ``texts`` together: lines measured on all the
    strings they may show (the three winner words, say) keep their place from round to round."""
    return _ink_cached(tuple(texts), int(size), lang, weight)


@functools.lru_cache(maxsize=4096)
def _ink_cached(texts: tuple[str, ...], size: int, lang: str, weight: str) -> tuple[int, int]:
    asc, desc = 0, 0
    for t in texts:
        if t.strip():
            a, b = fonts.line_metrics(t, size=size, lang=lang, weight=weight)
            asc, desc = max(asc, a), max(desc, b)
    return asc, desc


def _bead(img: Image.Image, theme: Theme, last: Mapping[str, Any], lang: str, x: int, y: int, size: int) -> None:
    """The winner's bead (disc and letter) with its pair / natural dots, ``size`` px at ``(x, y)``."""
    winner = last.get("winner", "")
    _paste(img, _colour(theme, winner) or theme.muted, _mask("disc", size), x, y)
    _paste(img, theme.on_symbol, _letter_mask(label(f"winner_short.{winner}", lang), size, lang), x, y)
    for key, shape, mark in (("banker_pair", "bp", theme.banker), ("player_pair", "pp", theme.player),
                             ("natural", "nat", theme.natural)):
        if last.get(key):
            _paste(img, theme.panel, _mask(shape + "_halo", size), x, y)
            _paste(img, mark, _mask(shape, size), x, y)


MIN_LAST_RESULT_PX = 10
"""Below this text size the full last-result panel (winner, totals, marks) turns compact."""


def _last_result_compact(img: Image.Image, d: ImageDraw.ImageDraw, r: Mapping[str, int], last: Mapping[str, Any],
                         theme: Theme, lang: str, text: Mapping[str, int], pad: int) -> None:
    """The winner's bead, then "P 8 · B 6" (short words; the winner's word without totals)."""
    x0, y0, w, h = r["x"], r["y"], r["w"], r["h"]
    winner = last.get("winner", "")
    left, right = x0 + pad, x0 + w - pad
    disc = int(min(h - 2 * pad, w * 0.3)) // 2 * 2
    if disc >= 6:
        _bead(img, theme, last, lang, left, y0 + (h - disc) // 2, disc)
    tx = left + max(disc, 0) + pad * 0.6
    avail = right - tx
    size = round(min(text["value"] * 1.15, h * 0.55))
    has_totals = last.get("player_total") is not None and last.get("banker_total") is not None
    segs = (_totals_segments(last, theme, lang, short=True) if has_totals
            else [(label(f"winner.{winner}", lang), _colour(theme, winner) or theme.muted, "bold")])
    full = _segments_width(segs, size, lang)
    if full > avail > 0:
        size = int(size * avail / full)
        while size > 6 and _segments_width(segs, size, lang) > avail:
            size -= 1
    if avail > 0 and size >= 6:
        asc, desc = _ink(["".join(t for t, _, _ in segs)], size, lang, "regular")
        _draw_segments(d, tx, y0 + h / 2 + (asc - desc) / 2, segs, size, lang)


def _last_result(img: Image.Image, d: ImageDraw.ImageDraw, r: Mapping[str, int], snap: Mapping[str, Any],
                 theme: Theme, lang: str, text: Mapping[str, int], *, compact: bool = False) -> None:
    """The last result, read as on the web page (static/js/roads.js ``drawLastResult``).

    Full boards: the winner's word large (after its bead when the panel is wide enough), then
    both totals labelled, "Player 8 · Banker 6" (catalogue words in their side's colour, totals
    bold), then the pair / natural marks in gold; beside the winner's word instead when a third
    line would leave the totals too small. Compact (embeds, lobby tiles): the bead and
    "P 8 · B 6" with the short words.
    """
    last = snap.get("last")
    if last is None and snap.get("bead_plate"):
        last = snap["bead_plate"][-1]
    x0, y0, w, h = r["x"], r["y"], r["w"], r["h"]
    pad = max(4, round(min(h, w) * 0.12))
    if h < 8 or w < 16:
        return
    if not last:
        wait = label("ui.no_rounds_yet", lang)
        size = text["small"] if compact else text["label"]
        fit = fonts.fit_size(wait, w - 2 * pad, size, lang=lang, weight="regular", min_size=6)
        if fit < size * 0.75:  # too long to read here (lobby tiles): a dash
            wait, fit = "\u2013", min(text["value"], round(h * 0.5))
        fonts.draw_text(d, (x0 + w / 2, y0 + h / 2), wait, size=fit, fill=theme.muted, lang=lang,
                        weight="regular", anchor="mm")
        return
    winner = last.get("winner", "")
    colour = _colour(theme, winner) or theme.muted
    has_totals = last.get("player_total") is not None and last.get("banker_total") is not None
    left, right = x0 + pad, x0 + w - pad
    if compact or h < text["title"] * 1.9:
        _last_result_compact(img, d, r, last, theme, lang, text, pad)
        return

    if w >= h * 3.4:  # the winner's bead before the words when the panel can spare it
        disc = int(min(h - 2 * pad, w * 0.22)) // 2 * 2
        _bead(img, theme, last, lang, left, y0 + (h - disc) // 2, disc)
        left += disc + pad
    width = right - left
    word = label(f"winner.{winner}", lang)
    words = [label(f"winner.{k}", lang) for k in "BPT"]
    flags = [label(k, lang) for key, k in (("banker_pair", "ui.banker_pair"), ("player_pair", "ui.player_pair"),
                                            ("natural", "ui.natural")) if last.get(key)]
    marks = "  \u00b7  ".join(flags)
    segs = _totals_segments(last, theme, lang, short=False) if has_totals else []
    room = h - 2 * pad * 0.6

    def plan(beside: bool, winner_share: float = 1.55) -> tuple[list[int], list[tuple[int, int]], float]:
        """Sizes and ink boxes of the lines (winner, totals, marks on their own line unless
        ``beside``), shrunk together until they and the gaps between them fit the panel."""
        shares = [winner_share, 1.0 if segs else 0.0, 0.8 if flags and not beside else 0.0]
        caps = [text["title"] * 1.15, text["value"] * 1.1, text["label"]]
        unit = room / (sum(shares) * 1.18)
        sizes = [max(6, round(min(cap, unit * sh))) if sh else 0 for cap, sh in zip(caps, shares)]
        for _ in range(6):
            boxes = [_ink(words, sizes[0], lang, "bold"),
                     _ink(["".join(t for t, _, _ in segs)], sizes[1], lang, "regular") if sizes[1] else (0, 0),
                     _ink([marks], sizes[2], lang, "bold") if sizes[2] else (0, 0)]
            used = [sz for sz in sizes if sz]
            total = sum(a + b for a, b in boxes) + sum(round(sz * 0.3) for sz in used[1:])
            if total <= room or all(sz <= 6 for sz in used):
                break
            k = room / total
            sizes = [max(6, int(sz * k)) if sz else 0 for sz in sizes]
        return sizes, boxes, total

    # Winner and totals alone decide whether this board has room for the full panel (so it does
    # not change from round to round); the marks then go on a third line, or beside the winner's
    # word when a third line would leave the totals too small, or (no room at all) only as the
    # bead's dots.
    sizes, boxes, total = plan(beside=True)
    if sizes[0] < MIN_LAST_RESULT_PX or (segs and sizes[1] < MIN_LAST_RESULT_PX):
        # a small board: one line, "P 8 · B 6", is more legible than several tiny ones
        _last_result_compact(img, d, r, last, theme, lang, text, pad)
        return
    beside = False
    if flags:
        three = plan(beside=False)
        if three[0][2] >= 8 and (not segs or three[0][1] >= max(MIN_LAST_RESULT_PX, text["label"] * 0.7)):
            sizes, boxes, total = three
        else:
            flag_size = max(6, min(text["label"], round(sizes[0] * 0.8 / 1.55)))
            word_w = fonts.text_width(word, size=sizes[0], lang=lang) + sizes[0] * 0.5
            while flag_size > max(8, text["small"] * 0.85) and word_w + fonts.text_width(
                    marks, size=flag_size, lang=lang) > width:
                flag_size -= 1
            tight = plan(beside=False, winner_share=1.15)
            if word_w + fonts.text_width(marks, size=flag_size, lang=lang) <= width:
                beside = True
                sizes = [sizes[0], sizes[1], flag_size]
            elif tight[0][1] >= MIN_LAST_RESULT_PX and tight[0][2] >= 8:
                sizes, boxes, total = tight
            else:
                flags = []
    y = y0 + (h - total) / 2
    # line 1: the winner's word (and the marks, right-aligned, when they go beside it)
    base1 = y + boxes[0][0]
    word_room = width
    if beside:
        word_room -= fonts.text_width(marks, size=sizes[2], lang=lang) + sizes[0] * 0.5
    wt, ws = _fit(word, word_room, sizes[0], lang)
    fonts.draw_text(d, (left, base1), wt, size=ws, fill=colour, lang=lang, anchor="ls")
    if beside:
        fonts.draw_text(d, (right, base1), marks, size=sizes[2], fill=theme.badge_text, lang=lang, anchor="rs")
    y = base1 + boxes[0][1]
    # line 2: "Player 8 · Banker 6", shrunk to the width; the short words when the long ones need
    # more than 30% less
    if segs:
        y += round(sizes[1] * 0.3)
        size = sizes[1]
        if _segments_width(segs, size, lang) > width:
            short = _totals_segments(last, theme, lang, short=True)
            if _segments_width(segs, round(size * 0.7), lang) > width:
                segs = short
            while size > 6 and _segments_width(segs, size, lang) > width:
                size -= 1
        _draw_segments(d, left, y + boxes[1][0], segs, size, lang)
        y += boxes[1][0] + boxes[1][1]
    # line 3: the marks in gold
    if flags and not beside:
        y += round(sizes[2] * 0.3)
        if fonts.text_width(marks, size=sizes[2], lang=lang) > width:
            marks = " \u00b7 ".join(flags)  # tighter separators before a smaller size
        ms = fonts.fit_size(marks, width, sizes[2], lang=lang, min_size=max(6, round(sizes[2] * 0.6)))
        mt = fonts.ellipsize(marks, width, size=ms, lang=lang)
        fonts.draw_text(d, (left, y + boxes[2][0]), mt, size=ms, fill=theme.badge_text, lang=lang, anchor="ls")


def _pct(n: int, total: int) -> str:
    return f"{round(100 * n / total)}%" if total else "–"


def _streak_text(value: Any, lang: str) -> str:
    if isinstance(value, Mapping):
        w, n = value.get("winner"), value.get("length", value.get("count"))
        if w and n:
            return f"{label(f'winner_short.{w}', lang)} {n}"
        return "–"
    if value in (None, 0, ""):
        return "–"
    return str(value)


# snapshot stats key -> (catalogue key, value colour attribute of Theme or None)
_STAT_ROWS: tuple[tuple[tuple[str, ...], str, str | None], ...] = (
    (("current_streak", "streak"), "stats.streak", None),
    (("longest_banker_streak", "longest_banker"), "stats.longest_banker", "banker"),
    (("longest_player_streak", "longest_player"), "stats.longest_player", "player"),
)


def _stats(img: Image.Image, d: ImageDraw.ImageDraw, r: Mapping[str, int], snap: Mapping[str, Any], theme: Theme,
           lang: str, text: Mapping[str, int]) -> None:
    st = snap.get("stats") or {}
    pad = max(2, round(text["small"] * 0.5))
    top = r["y"] + round(text["label"] * 1.5)
    x0, w = r["x"] + pad, r["w"] - 2 * pad
    bottom = r["y"] + r["h"] - pad
    total = int(st.get("rounds") or 0)
    shares = st.get("shares") if isinstance(st.get("shares"), Mapping) else {}
    # three big counters: Banker, Player, Tie, with their share of the rounds
    big_h = min(round((bottom - top) * 0.34), round(text["title"] * 2.1))
    col_w = w / 3
    disc = max(8, min(round(big_h * 0.5), round(col_w * 0.3))) // 2 * 2
    for i, (key, winner) in enumerate((("banker", "B"), ("player", "P"), ("tie", "T"))):
        n = int(st.get(key) or 0)
        cx = x0 + col_w * i
        colour = _colour(theme, winner)
        _paste(img, colour, _mask("disc", disc), round(cx), top)
        _paste(img, theme.on_symbol, _letter_mask(label(f"winner_short.{winner}", lang), disc, lang), round(cx), top)
        num_s = fonts.fit_size(str(n), col_w - disc - pad * 1.5, round(disc * 0.95), lang="en")
        fonts.draw_text(d, (cx + disc + pad * 0.6, top + disc / 2), str(n), size=num_s, fill=theme.text, anchor="lm")
        share = shares.get(key)
        pct = f"{round(share)}%" if isinstance(share, (int, float)) and total else _pct(n, total)
        pct_s = max(8, min(round((big_h - disc) * 0.8), round(disc * 0.62)))
        fonts.draw_text(d, (cx, top + disc + (big_h - disc) / 2), pct, size=pct_s, fill=colour, lang="en",
                        weight="regular", anchor="lm")
    # pairs and naturals: the marks' own symbols (explained by the legend) and counts
    y = top + big_h + pad
    icon_h = min(round((bottom - y) * 0.22), round(disc * 1.0))
    for i, (key, shape, colour) in enumerate((("banker_pair", "bp", theme.banker), ("player_pair", "pp", theme.player),
                                              ("natural", "nat", theme.natural))):
        if key not in st:
            continue
        cx = x0 + col_w * i
        m = _mask(shape, disc * 2)
        fx, fy = {"bp": (0.18, 0.18), "pp": (0.82, 0.82), "nat": (0.82, 0.18)}[shape]
        _paste(img, colour, m, round(cx + disc / 2 - fx * disc * 2), round(y + icon_h / 2 - fy * disc * 2))
        val = str(st[key])
        vs = fonts.fit_size(val, col_w - disc - pad, max(8, round(icon_h * 0.62)), lang="en")
        fonts.draw_text(d, (cx + disc + pad * 0.6, y + icon_h / 2), val, size=vs, fill=colour, anchor="lm")
    y += icon_h + pad
    rows = []
    for keys, cat_key, colour_name in _STAT_ROWS:
        key = next((k for k in keys if k in st), None)
        if key is None:
            continue
        value = st[key]
        rows.append((label(cat_key, lang), _streak_text(value, lang) if isinstance(value, Mapping) else str(value),
                     getattr(theme, colour_name) if colour_name else theme.text))
    avail = bottom - y
    if not rows or avail <= 0:
        return
    row_h = avail / len(rows)
    if row_h < 6:  # no room for legible rows on this board
        return
    size = max(7, min(text["label"], round(row_h * 0.62)))
    while size > 7 and sum(fonts.font_metrics("".join(n for n, _, _ in rows), size=size, lang=lang,
                                              weight="regular")) > row_h:
        size -= 1
    for i, (name, value, colour) in enumerate(rows):
        cy = y + i * row_h + row_h / 2
        if i % 2 == 1:
            d.rectangle((r["x"], y + i * row_h, r["x"] + r["w"] - 1, y + (i + 1) * row_h - 1), fill=theme.cell)
        val_w = fonts.text_width(value, size=size, lang=lang) + pad * 2
        t, s = _fit(name, w - val_w, size, lang, "regular", 7)
        fonts.draw_text(d, (x0, cy), t, size=s, fill=theme.muted, lang=lang, weight="regular", anchor="lm")
        fonts.draw_text(d, (x0 + w, cy), value, size=size, fill=colour, lang=lang, anchor="rm")


def _side_bet_groups(bets: Sequence[Mapping[str, Any]], theme: Theme, lang: str) -> list[tuple[str, RGB, list[str]]]:
    """Side bets grouped by state, in this order: open with rounds left (fewest first), open
    for the whole shoe, closed. Each group: (state text, state colour, bet labels)."""
    groups: dict[tuple, tuple[str, RGB, list[str]]] = {}
    for b in bets:
        name = label(f"bet.{b.get('bet')}", lang, default=str(b.get("label") or b.get("bet")))
        if not b.get("open", True):
            key, state, colour = (2, 0), label("ui.closed", lang), theme.muted
        elif b.get("rounds_left") is None:
            key, state, colour = (1, 0), label("ui.whole_shoe", lang), theme.open
        else:
            left = int(b["rounds_left"])
            key = (0, left)
            state, colour = label("ui.rounds_left", lang, n=left), theme.warn if left <= 5 else theme.open
        groups.setdefault(key, (state, colour, []))[2].append(name)
    return [groups[k] for k in sorted(groups)]


def _wrap_items(items: Sequence[str], width: float, size: int, lang: str, sep: str = "  ·  ") -> list[str]:
    lines: list[str] = []
    cur = ""
    for item in items:
        cand = item if not cur else cur + sep + item
        if cur and fonts.text_width(cand, size=size, lang=lang, weight="regular") > width:
            lines.append(cur)
            cur = item
        else:
            cur = cand
    if cur:
        lines.append(cur)
    return lines


def _side_bets(d: ImageDraw.ImageDraw, r: Mapping[str, int], snap: Mapping[str, Any], theme: Theme, lang: str,
               text: Mapping[str, int], *, title: bool = True) -> None:
    """Side-bet availability grouped by state: "19 left" (colour) then the bets it applies to,
    wrapping over the panel's width; the size shrinks until every group fits."""
    bets = [b for b in (snap.get("side_bets") or []) if isinstance(b, Mapping)]
    if not bets:
        return
    pad = max(2, round(text["small"] * 0.5))
    top = r["y"] + (round(text["label"] * 1.6) if title else pad)
    x0, w = r["x"] + pad, r["w"] - 2 * pad
    avail = r["y"] + r["h"] - pad - top
    groups = _side_bet_groups(bets, theme, lang)
    indent = pad * 3
    size = text["label"]
    sample = "Hg" + "".join(n for g in groups for n in g[2]) + "".join(g[0] for g in groups)
    min_size = max(8, round(text["label"] * 0.72))
    for closed_one_line in (False, True):
        size = text["label"]
        for _ in range(24):
            asc, desc = fonts.font_metrics(sample, size=size, lang=lang, weight="regular")
            line_h = asc + desc
            blocks = []
            for state, colour, names in groups:
                state_w = fonts.text_width(state, size=size, lang=lang) + pad * 2
                first = _wrap_items(names, w - state_w, size, lang)[:1] if state_w < w * 0.6 else []
                rest_names = names[len(first[0].split("  ·  ")):] if first else names
                lines = first + _wrap_items(rest_names, w - indent, size, lang)
                cut = False
                if closed_one_line and colour == theme.muted and len(lines) > 1:
                    lines, cut = lines[:1], True  # closed bets matter least: one line, then "…"
                blocks.append((state, colour, state_w, lines, bool(first), cut))
            need = sum(max(1, len(b[3]) + (0 if b[4] else 1)) for b in blocks) * line_h + (len(blocks) - 1) * pad
            if need <= avail or size <= (min_size if not closed_one_line else 8):
                break
            size -= 1
        if need <= avail:
            break
    y = top
    for state, colour, state_w, lines, inline, cut in blocks:
        if y + line_h > top + avail + 2:
            break
        fonts.draw_text(d, (x0, y + asc), fonts.ellipsize(state, w, size=size, lang=lang), size=size, fill=colour,
                        lang=lang)
        names_colour = theme.muted if colour == theme.muted else theme.text
        if not inline:
            y += line_h
        for j, line in enumerate(lines):
            if y + line_h > top + avail + 2:
                break
            lx = x0 + state_w if (inline and j == 0) else x0 + indent
            if cut:
                line = line + "  ·  …"
            fonts.draw_text(d, (lx, y + asc), fonts.ellipsize(line, x0 + w - lx, size=size, lang=lang,
                            weight="regular"), size=size, fill=names_colour, lang=lang, weight="regular")
            y += line_h
        y += pad


def _legend(img: Image.Image, d: ImageDraw.ImageDraw, right: float, cy: float, size: int, theme: Theme,
            lang: str, draw: bool = True) -> float:
    """Draw the marks' legend right-aligned at ``right``; returns its left edge (x)."""
    items = [("bp", theme.banker, "ui.banker_pair"), ("pp", theme.player, "ui.player_pair"),
             ("nat", theme.natural, "ui.natural"), ("tie", theme.tie, "winner.T")]
    icon = max(8, round(size * 1.5)) // 2 * 2
    gap = round(size * 0.9)
    x = right
    for shape, colour, key in reversed(items):
        t = label(key, lang)
        tw = fonts.text_width(t, size=size, lang=lang, weight="regular")
        x -= tw
        if draw:
            fonts.draw_text(d, (x, cy), t, size=size, fill=theme.muted, lang=lang, weight="regular", anchor="lm")
        x -= icon * 0.75
        if draw:
            # pair/natural dots are drawn in a corner of their mask: centre the dot on the icon
            m = _mask(shape, icon * 2 if shape != "tie" else icon)
            if shape == "tie":
                _paste(img, colour, m, round(x - icon * 0.2), round(cy - icon / 2))
            else:
                fx, fy = {"bp": (0.18, 0.18), "pp": (0.82, 0.82), "nat": (0.82, 0.18)}[shape]
                _paste(img, colour, m, round(x + icon * 0.3 - fx * icon * 2), round(cy - fy * icon * 2))
        x -= gap
    return x


def _good_roads(img: Image.Image, d: ImageDraw.ImageDraw, r: Mapping[str, int], snap: Mapping[str, Any],
                theme: Theme, lang: str, text: Mapping[str, int], *, title: bool = True,
                legend: bool = False) -> None:
    """Good-road badges (pattern label and length), neutral wording from the catalogue;
    with ``legend`` the marks' legend (pairs, natural, tie) fills the right end."""
    items = [g for g in (snap.get("good_roads") or []) if isinstance(g, Mapping)]
    h = r["h"]
    if h <= 4:
        return
    pad = max(2, round(h * 0.16))
    size = max(7, min(text["label"], round(h * 0.42)))
    x = r["x"] + pad
    right = r["x"] + r["w"] - pad
    cy = r["y"] + h / 2
    if legend:
        lsize = max(7, round(size * 0.8))
        left = _legend(img, d, right, cy, lsize, theme, lang, draw=False)
        if left > r["x"] + r["w"] * 0.45:
            _legend(img, d, right, cy, lsize, theme, lang)
            right = left - pad * 2
    if title:
        t = label("ui.good_roads", lang)
        box = fonts.draw_text(d, (x, cy), t, size=size, fill=theme.muted, lang=lang, weight="regular", anchor="lm")
        x = box[2] + pad * 2
    if not items:
        if title:
            fonts.draw_text(d, (x, cy), label("ui.no_good_roads", lang), size=size, fill=theme.muted, lang=lang,
                            weight="regular", anchor="lm")
        return
    pill_h = min(h - 2, round(size * 1.7))
    radius = pill_h // 2
    for g in items:
        name = label(f"good_road.{g.get('pattern')}", lang, default=str(g.get("label") or g.get("pattern")))
        if g.get("length"):
            name = f"{name} {g['length']}"
        w = fonts.text_width(name, size=size, lang=lang) + 2 * radius
        if x + w > right:
            if x + pill_h <= right:
                fonts.draw_text(d, (x, cy), "…", size=size, fill=theme.muted, anchor="lm")
            break
        d.rounded_rectangle((x, cy - pill_h / 2, x + w, cy + pill_h / 2), radius=radius, fill=theme.badge)
        fonts.draw_text(d, (x + radius, cy), name, size=size, fill=theme.badge_text, lang=lang, anchor="lm")
        x += w + pad


def _empty_note(d: ImageDraw.ImageDraw, r: Mapping[str, int], theme: Theme, lang: str, size: int) -> None:
    t, s = _fit(label("ui.no_rounds_yet", lang), r["w"] * 0.9, size, lang, "regular")
    fonts.draw_text(d, (r["x"] + r["w"] / 2, r["y"] + r["h"] / 2), t, size=s, fill=theme.muted, lang=lang,
                    weight="regular", anchor="mm")


# --------------------------------------------------------------------------- public API

def _draw_roads(img: Image.Image, d: ImageDraw.ImageDraw, regions: Mapping[str, Mapping[str, int]],
                snap: Mapping[str, Any], theme: Theme, lang: str) -> None:
    if "bead_plate" in regions:
        _draw_bead_plate(img, regions["bead_plate"], snap, theme, lang)
    if "big_road" in regions:
        _draw_big_road(img, d, regions["big_road"], snap, theme, lang)
    for name in DERIVED_ROADS:
        if name in regions:
            _draw_derived(img, name, regions[name], snap, theme)


def render_board(snapshot: Mapping[str, Any], *, width: int = 1920, height: int = 1080, kind: str = "board",
                 roads: Sequence[str] | None = None, columns: int | None = None, theme: str = DEFAULT_THEME,
                 lang: str = "en") -> Image.Image:
    """Draw a table's scoreboard from ``snapshot`` (roads.snapshot shape; ``name`` optional) as an RGB image.

    ``width``/``height`` in px, ``kind``/``roads``/``columns`` as in
    :func:`web.render.layout.board_layout`; ``theme`` one of :data:`THEMES`; ``lang`` one of
    ``web.render.fonts.LANGUAGES``. Raises :class:`web.render.layout.LayoutError` or :class:`RenderError`
    naming the offending option.
    """
    th, lang = check_options(theme=theme, lang=lang)
    layout = board_layout(width, height, kind=kind, roads=roads, columns=columns)
    img = _frame(layout, th, lang).copy()
    d = ImageDraw.Draw(img)
    regions = layout["regions"]
    text = layout["text"]
    _draw_roads(img, d, regions, snapshot, th, lang)
    compact = layout["kind"] != "board"
    if "header" in regions:
        _header(d, regions["header"], snapshot, th, lang, text, compact=compact)
    if "last_result" in regions:
        _last_result(img, d, regions["last_result"], snapshot, th, lang, text, compact=compact)
    if "ask" in regions:
        ask = regions["ask"]
        label_w = 0
        if layout["orientation"] == "landscape" and "stats" in regions:
            label_w = regions["stats"]["x"] + regions["stats"]["w"] - (ask["x"] + ask["w"]) - ask["cell"] // 2
        _draw_ask(img, d, ask, snapshot, th, lang, label_w, text["label"])
    if "stats" in regions:
        _stats(img, d, regions["stats"], snapshot, th, lang, text)
    if "side_bets" in regions:
        _side_bets(d, regions["side_bets"], snapshot, th, lang, text)
    if "good_roads" in regions:
        _good_roads(img, d, regions["good_roads"], snapshot, th, lang, text, title=layout["kind"] == "board",
                    legend=layout["kind"] == "board")
    has_rounds = bool(snapshot.get("bead_plate")) or bool((snapshot.get("big_road") or {}).get("leading_ties"))
    if not has_rounds:
        for name in ("big_road", "bead_plate"):
            if name in regions:
                _empty_note(d, regions[name], th, lang, text["value"])
                break
    return img


def render_road(snapshot: Mapping[str, Any], road: str, *, width: int = 1200, height: int = 300,
                columns: int | None = None, theme: str = DEFAULT_THEME, lang: str = "en") -> Image.Image:
    """One road (``web.render.layout.ROAD_NAMES``) filling the image, full cells, newest columns visible."""
    if road not in ROAD_NAMES:
        raise RenderError("road", f"unknown road {road!r}; expected one of {', '.join(ROAD_NAMES)}")
    return render_board(snapshot, width=width, height=height, kind="embed", roads=(road,), columns=columns,
                        theme=theme, lang=lang)


def render_lobby(tables: Sequence[Mapping[str, Any]], *, width: int = 1920, height: int = 1080,
                 columns: int | None = None, theme: str = DEFAULT_THEME, lang: str = "en",
                 title: str | None = None) -> Image.Image:
    """The lobby wall: a title strip and one tile per table (name, shoe/round, last result,
    big road, good roads). ``tables``: dicts as ``Service.list_tables()`` gives them (``big_road``
    in the snapshot shape). Tables that do not fit are left out and counted in the title.
    """
    th, lang = check_options(theme=theme, lang=lang)
    lay = lobby_layout(width, height, len(tables), columns=columns)
    img = Image.new("RGB", (width, height), th.background)
    d = ImageDraw.Draw(img)
    t = lay["title"]
    title_text = title if title is not None else label("ui.tables", lang)
    size = max(10, round(t["h"] * 0.6))
    tt, ts = _fit(title_text, t["w"] * 0.7, size, lang)
    fonts.draw_text(d, (t["x"], t["y"] + t["h"] / 2), tt, size=ts, fill=th.text, lang=lang, anchor="lm")
    if lay["shown"] < len(tables):  # say how many tables did not fit
        fonts.draw_text(d, (t["x"] + t["w"], t["y"] + t["h"] / 2), f"{lay['shown']}/{len(tables)}",
                        size=round(ts * 0.8), fill=th.muted, anchor="rm", weight="regular")
    if not tables:
        fonts.draw_text(d, (width / 2, height / 2), label("ui.no_tables", lang), size=size, fill=th.muted, lang=lang,
                        anchor="mm", weight="regular")
        return img
    for tile, table in zip(lay["tiles"], tables):
        layout = tile["layout"]
        cell = layout["cell"]
        radius = max(3, round(cell * 0.3))
        d.rounded_rectangle((tile["x"], tile["y"], tile["x"] + tile["w"] - 1, tile["y"] + tile["h"] - 1),
                            radius=radius, fill=th.panel)
        sub = Image.new("RGB", (tile["w"], tile["h"]), th.panel)
        sd = ImageDraw.Draw(sub)
        regions = layout["regions"]
        _grid(sd, regions["big_road"], th)
        snap = dict(table)
        if not isinstance(snap.get("big_road"), Mapping):
            snap["big_road"] = {}
        _draw_big_road(sub, sd, regions["big_road"], snap, th, lang)
        _header(sd, regions["header"], snap, th, lang, layout["text"], compact=True)
        _last_result(sub, sd, regions["last_result"], snap, th, lang, layout["text"], compact=True)
        _good_roads(sub, sd, regions["good_roads"], snap, th, lang, layout["text"], title=False)
        if not (snap["big_road"].get("cells") or snap["big_road"].get("leading_ties")):
            _empty_note(sd, regions["big_road"], th, lang, layout["text"]["value"])
        # paste inside the rounded panel (corners of the panel stay rounded)
        inset = radius // 3
        img.paste(sub.crop((inset, inset, tile["w"] - inset, tile["h"] - inset)), (tile["x"] + inset, tile["y"] + inset))
    return img


_PALETTES: dict[str, Image.Image] = {}
_PALETTE_LOCK = threading.Lock()


def theme_palette(theme: str) -> Image.Image:
    """A 256-colour palette image ("P") for boards in ``theme`` (built once, cached).

    Slots: every colour of the theme exactly (flat areas keep their true colour), then 256 -
    that many colours chosen (fast octree) from the anti-aliasing ramps between every colour
    drawn and every colour it is drawn on. Mapping a board onto this fixed palette takes a few
    ms, where an adaptive quantisation of a 1080p image takes ~25 ms; edges move by at most
    a few levels per channel.
    """
    with _PALETTE_LOCK:
        hit = _PALETTES.get(theme)
        if hit is not None:
            return hit
    th = THEMES[theme]
    base = []
    for value in vars(th).values():
        if isinstance(value, tuple) and value not in base:
            base.append(value)
    backs = [th.background, th.panel, th.cell, th.badge, th.banker, th.player, th.tie, th.natural]
    steps = 24
    swatch = Image.new("RGB", (steps, len(base) * len(backs)))
    px = swatch.load()
    row = 0
    for fg in base:
        for bg in backs:
            for i in range(steps):
                a = i / (steps - 1)
                px[i, row] = tuple(round(bg[k] + (fg[k] - bg[k]) * a) for k in range(3))
            row += 1
    ramps = swatch.quantize(256 - len(base), method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    extra = ramps.getpalette()[: 3 * (256 - len(base))]
    flat = [c for colour in base for c in colour] + extra
    flat += [0] * (768 - len(flat))
    pal = Image.new("P", (1, 1))
    pal.putpalette(flat)
    with _PALETTE_LOCK:
        _PALETTES[theme] = pal
    return pal


ENCODINGS: tuple[str, ...] = ("palette", "rgb", "adaptive")
"""``encode_png`` modes: the theme's fixed palette, 24-bit RGB, an adaptive 256-colour palette."""

DEFAULT_ENCODING = "palette"
"""Chosen by measurement (bench/bench_png.py): on a 1080p board the theme palette + zlib level
1 is about 4x faster to encode than RGB at level 1 and half the size (~100 KiB)."""


def encode_png(image: Image.Image, *, theme: str = DEFAULT_THEME, encoding: str = DEFAULT_ENCODING,
               compress_level: int = PNG_COMPRESS_LEVEL) -> bytes:
    """PNG bytes of a board ``image`` drawn in ``theme``.

    ``encoding``: ``"palette"`` (map onto :func:`theme_palette`, no dithering), ``"rgb"``
    (24-bit, exact) or ``"adaptive"`` (256 colours chosen for this image); ``compress_level``
    0-9 (zlib). Raises :class:`RenderError` (field ``encoding`` or ``theme``) for unknown values.
    """
    if encoding not in ENCODINGS:
        raise RenderError("encoding", f"unknown PNG encoding {encoding!r}; expected one of {', '.join(ENCODINGS)}")
    if encoding == "palette":
        if theme not in THEMES:
            raise RenderError("theme", f"unknown theme {theme!r}; expected one of {', '.join(THEMES)}")
        image = image.quantize(palette=theme_palette(theme), dither=Image.Dither.NONE)
    elif encoding == "adaptive":
        image = image.quantize(colors=256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    buf = io.BytesIO()
    image.save(buf, format="PNG", compress_level=compress_level)
    return buf.getvalue()
