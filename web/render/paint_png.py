"""The Pillow painter of the board model (:mod:`web.render.model`): model in, RGB image out.

It paints only what the model says, in the palette of :mod:`web.render.theme`: panels and their
primitives (:mod:`web.render.prims`), road grids, and road cells (:mod:`web.render.cells`, shape
proportions from the model's ``geom``). Anti-aliasing: each cell's marks are drawn once per
size at 4x as coverage masks, box-reduced and cached as one sprite, then pasted; text is
FreeType-anti-aliased and shaped by raqm (:mod:`web.render.fonts`). :func:`encode_png` maps the
image onto the theme's fixed 256-colour palette and writes it at zlib level 1 (chosen by
measurement, bench/bench_png.py); the PNG routes paint straight onto that palette
(``paint(model, indexed=True)``), the same pixels without mapping every one of them.
"""

from __future__ import annotations

import io
import threading
from typing import Any, Mapping

from PIL import Image, ImageDraw

from web.render import fonts
from web.render.pixel_cache import CELL_MASKS, CELL_SPRITES, INKED_TEXT, PixelCache, pixel_lru
from web.render.cells import GEOMETRY
from web.render.theme import COLOUR_NAMES, DIM_ALPHA, RGB, THEMES, palette

SUPERSAMPLE = 4
"""Cell marks are drawn at this multiple of their final size, then box-reduced."""

PNG_COMPRESS_LEVEL = 1
"""zlib level of PNG encoding: level 1 encodes a 1080p board several times faster than Pillow's
default (6); levels 2-3 cost more time than they save bytes (bench/bench_png.py)."""

ENCODINGS: tuple[str, ...] = ("palette", "rgb", "adaptive")
"""``encode_png`` modes: the theme's fixed palette, 24-bit RGB, an adaptive 256-colour palette."""

DEFAULT_ENCODING = "palette"


class PaintError(ValueError):
    """An encoding or theme that cannot be painted; ``field`` names it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


# --------------------------------------------------------------------------- cell sprites

def _circle(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float, *, fill: int | None = None,
            width: float = 0) -> None:
    box = (cx - r, cy - r, cx + r, cy + r)
    if width:
        d.ellipse(box, outline=255, width=max(1, round(width)))
    else:
        d.ellipse(box, fill=fill if fill is not None else 255)


@pixel_lru(CELL_MASKS)
def _mask(shape: str, size: int) -> Image.Image:
    """Coverage mask ("L", ``size`` px square) of one mark; proportions from :data:`GEOMETRY`."""
    k = SUPERSAMPLE
    s = size * k
    img = Image.new("L", (s, s), 0)
    d = ImageDraw.Draw(img)
    c = s / 2
    g = GEOMETRY
    if shape in ("ring", "eye"):
        _circle(d, c, c, s * g[shape]["r"] + s * g[shape]["w"] / 2, width=s * g[shape]["w"])
    elif shape in ("disc", "dot", "pip"):
        _circle(d, c, c, s * g[shape]["r"])
    elif shape in ("slash", "tie"):
        a, b, w = s * g[shape]["a"], s * g[shape]["b"], s * g[shape]["w"]
        d.line((a, b, b, a), fill=255, width=max(1, round(w)))
        for px, py in ((a, b), (b, a)):
            _circle(d, px, py, w / 2)
    elif shape in ("bp", "pp", "nat", "bp_halo", "pp_halo", "nat_halo"):
        base = shape.split("_")[0]
        r = s * g["mark"]["r"] + (s * g["mark"]["halo"] if shape.endswith("halo") else 0)
        _circle(d, s * g[base]["x"], s * g[base]["y"], r)
    elif shape == "newest":
        n = g["newest"]
        inset, w = s * n["inset"], max(k, s * n["w"])
        d.rounded_rectangle((inset, inset, s - inset - 1, s - inset - 1), radius=s * n["radius"], outline=255,
                            width=round(w))
    elif shape == "blank":
        pass
    else:  # pragma: no cover - programming error
        raise ValueError(f"unknown mark shape {shape!r}")
    return img.reduce(k)


@pixel_lru(CELL_MASKS)
def _text_mask(t: str, size: int, frac: float, base: float, lang: str) -> Image.Image:
    """Mask of text ``t`` in a ``size`` px cell: font ``frac * size`` px, baseline ``base * size``
    below the centre (the model's ``glyphs``)."""
    img = Image.new("L", (size, size), 0)
    d = ImageDraw.Draw(img)
    fonts.draw_text(d, (size / 2, size / 2 + base * size), t, size=max(5, round(frac * size)), fill=255, lang=lang,
                    anchor="ms")
    return img


@pixel_lru(CELL_SPRITES)
def _sprite(layers: tuple, size: int) -> Image.Image:
    """One cell as an RGBA sprite: ``layers`` of ``(rgb, shape)`` composited in order; a shape is
    a :func:`_mask` name or ``("text", t, frac, base, lang)``."""
    acc = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    for colour, shape in layers:
        mask = _text_mask(shape[1], size, shape[2], shape[3], shape[4]) if isinstance(shape, tuple) else \
            _mask(shape, size)
        layer = Image.new("RGBA", (size, size), colour + (255,))
        layer.putalpha(mask)
        acc = Image.alpha_composite(acc, layer)
    return acc


def _cell_layers(cell: Mapping[str, Any], pal: Mapping[str, RGB], glyphs: Mapping[str, Any], lang: str,
                 halo: RGB) -> tuple:
    m = cell["m"]
    colour = pal.get(cell.get("c", "muted"), pal["muted"])
    layers: list = []
    if m != "blank":
        layers.append((colour, m))
    if cell.get("t"):
        frac, base = glyphs.get(cell["t"], (GEOMETRY["letter"]["one"], 0.18))
        layers.append((pal["on_symbol"], ("text", str(cell["t"]), float(frac), float(base), lang)))
    if cell.get("ties") and m == "ring":
        layers.append((pal["tie"], "tie"))
    for key, shape, cname in (("bp", "bp", "banker"), ("pp", "pp", "player"), ("nat", "nat", "natural")):
        if cell.get(key):
            layers += [(halo, shape + "_halo"), (pal[cname], shape)]
    if (cell.get("ties") or 0) > 1 and str(cell["ties"]) in glyphs:  # no glyph: too small to read, left out
        frac, base = glyphs[str(cell["ties"])]
        layers.append((pal["text"], ("text", str(cell["ties"]), float(frac), float(base), "en")))
    if cell.get("n"):
        layers.append((pal["newest"], "newest"))
    return tuple(layers)


@pixel_lru(CELL_SPRITES)
def _opaque(layers: tuple, size: int, back: RGB, left: RGB, top: RGB, corner: RGB) -> Image.Image:
    """A road cell as an opaque RGB sprite: :func:`_sprite` over the cell's own background
    (``back``, with the grid lines it starts with: ``left`` colour on its first column, ``top``
    on its first row, ``corner`` where they meet), so painting it is a copy, not a blend: the
    same pixels as blending the sprite over the painted grid, faster."""
    base = Image.new("RGB", (size, size), back)
    d = ImageDraw.Draw(base)
    d.line((0, 0, 0, size - 1), fill=left)
    d.line((0, 0, size - 1, 0), fill=top)
    d.point((0, 0), fill=corner)
    sprite = _sprite(layers, size)
    base.paste(sprite, (0, 0), sprite)
    return base


def _paint_road_cell(img: Image.Image, cell: Mapping[str, Any], r: Mapping[str, Any], pal: Mapping[str, RGB],
                     glyphs: Mapping[str, Any], lang: str, ox: int, oy: int) -> None:
    """A cell of road region ``r`` (on its grid, whole pixels: :mod:`web.render.cells`), as an opaque sprite."""
    s = int(cell["s"])
    if s < 2:
        return
    x, y = round(cell["x"]), round(cell["y"])
    if s != r["cell"] or (x - r["x"]) % s or (y - r["y"]) % s:  # not on the grid: blend it in
        _paint_cell(img, cell, pal, glyphs, lang, ox, oy, pal["cell"])
        return
    major, grid = pal["grid_major"], pal["grid"]
    left = major if x == r["x"] else grid  # the region's outline is drawn over its grid lines
    top = major if y == r["y"] else grid
    corner = major if major in (left, top) else grid
    args = (_cell_layers(cell, pal, glyphs, lang, pal["cell"]), s, pal["cell"], left, top, corner)
    img.paste(_opaque_indexed(*args, _theme_of(pal)) if img.mode == "P" else _opaque(*args), (x + ox, y + oy))


def _paint_cell(img: Image.Image, cell: Mapping[str, Any], pal: Mapping[str, RGB], glyphs: Mapping[str, Any],
                lang: str, ox: int, oy: int, halo: RGB) -> None:
    s = int(cell["s"])
    if s < 2:
        return
    sprite = _sprite(_cell_layers(cell, pal, glyphs, lang, halo), s)
    x, y = round(cell["x"]) + ox, round(cell["y"]) + oy
    if img.mode == "P":
        _blend_in(img, sprite, (x, y), pal)
    else:
        img.paste(sprite, (x, y, x + s, y + s), sprite)


# --------------------------------------------------------------------------- model painting

def _grid(d: ImageDraw.ImageDraw, r: Mapping[str, Any], pal: Mapping[str, RGB], ox: int, oy: int) -> None:
    x0, y0, cell, cols, rows = r["x"] + ox, r["y"] + oy, r["cell"], r["cols"], r["rows"]
    x1, y1 = x0 + cols * cell, y0 + rows * cell
    d.rectangle((x0, y0, x1, y1), fill=pal["cell"])
    for i in range(cols + 1):
        d.line((x0 + i * cell, y0, x0 + i * cell, y1), fill=pal["grid"])
    for j in range(rows + 1):
        d.line((x0, y0 + j * cell, x1, y0 + j * cell), fill=pal["grid"])
    d.rectangle((x0, y0, x1, y1), outline=pal["grid_major"])


def panel_radius(p: Mapping[str, Any]) -> int:
    """Corner radius of a panel background (shared with the SVG painter through the model)."""
    return max(2, round(min(p["w"], p["h"]) * 0.08))


def _items(img: Image.Image, d: ImageDraw.ImageDraw, items, pal, glyphs, lang: str, ox: int, oy: int) -> None:
    for it in items:
        p = it["p"]
        if p == "t":
            if not it["t"]:
                continue
            anchor = {"l": "ls", "m": "ms", "r": "rs"}[it["a"]]
            weight = "regular" if it["w"] == "r" else "bold"
            if img.mode == "P":
                mask, px, py = fonts.text_mask((it["x"] + ox, it["y"] + oy), it["t"], size=int(it["s"]), lang=lang,
                                               weight=weight, anchor=anchor)
                _blend_in(img, _ink(pal[it["c"]], mask), (px, py), pal)
            else:
                fonts.draw_text(d, (it["x"] + ox, it["y"] + oy), it["t"], size=int(it["s"]), fill=pal[it["c"]],
                                lang=lang, weight=weight, anchor=anchor)
        elif p == "r":
            box = (it["x"] + ox, it["y"] + oy, it["x"] + ox + it["w"] - 1, it["y"] + oy + it["h"] - 1)
            if it.get("r"):
                d.rounded_rectangle(box, radius=it["r"], fill=pal[it["c"]])
            else:
                d.rectangle(box, fill=pal[it["c"]])
        elif p == "l":
            d.line((it["x1"] + ox, it["y1"] + oy, it["x2"] + ox, it["y2"] + oy), fill=pal[it["c"]],
                   width=max(1, round(it["w"])))
        elif p == "m":
            _paint_cell(img, it, pal, glyphs, lang, ox, oy, pal["panel"])
        elif p == "g":  # a filled polygon (web.render.status_panel: suits of card faces)
            pts = it["pts"]
            d.polygon([(pts[i] + ox, pts[i + 1] + oy) for i in range(0, len(pts) - 1, 2)], fill=pal[it["c"]])


def paint_into(img: Image.Image, model: Mapping[str, Any], ox: int = 0, oy: int = 0) -> None:
    """Paint ``model`` onto ``img`` with its canvas origin at ``(ox, oy)``."""
    pal = palette(model["theme"])
    lang = model["lang"]
    glyphs = model.get("glyphs") or {}
    d = ImageDraw.Draw(img)
    later = []
    for p in model.get("panels", []):
        if p["id"] == "banner":
            later.append(p)
            continue
        if p.get("bg"):
            d.rounded_rectangle((p["x"] + ox, p["y"] + oy, p["x"] + ox + p["w"] - 1, p["y"] + oy + p["h"] - 1),
                                radius=panel_radius(p), fill=pal[p["bg"]])
    for r in model.get("roads", []):
        _grid(d, r, pal, ox, oy)
        for c in r["cells"]:
            _paint_road_cell(img, c, r, pal, glyphs, lang, ox, oy)
    if model.get("dim"):
        for r in model.get("roads", []):
            box = (r["x"] + ox, r["y"] + oy, r["x"] + ox + r["w"] + 1, r["y"] + oy + r["h"] + 1)
            part = img.crop(box).convert("RGB")
            dimmed = Image.blend(Image.new("RGB", part.size, pal["background"]), part, DIM_ALPHA)
            img.paste(_quantize(dimmed, _theme_of(pal)) if img.mode == "P" else dimmed, box[:2])
    for p in model.get("panels", []):
        if p["id"] != "banner":
            _items(img, d, p["items"], pal, glyphs, lang, ox, oy)
    for t in model.get("tiles", []):
        sub = t["model"]
        radius = max(4, round(min(t["w"], t["h"]) * 0.03))
        edge = pal["natural"] if sub.get("hl") else pal["panel_edge"]
        d.rounded_rectangle((t["x"], t["y"], t["x"] + t["w"] - 1, t["y"] + t["h"] - 1), radius=radius,
                            fill=pal["panel"], outline=edge, width=max(2, round(min(t["w"], t["h"]) * 0.008)))
        paint_into(img, sub, ox + t["x"], oy + t["y"])
    for p in later:
        d.rectangle((p["x"] + ox, p["y"] + oy, p["x"] + ox + p["w"] - 1, p["y"] + oy + p["h"] - 1), fill=pal[p["bg"]])
        _items(img, d, p["items"], pal, glyphs, lang, ox, oy)


def paint(model: Mapping[str, Any], *, indexed: bool = False) -> Image.Image:
    """The RGB image (``model["w"]`` x ``model["h"]`` px) of a board, tile or lobby model.

    ``indexed``: a "P" image on the theme's fixed palette (:func:`theme_palette`) instead, what
    :func:`encode_png` writes without mapping every pixel: flat areas are filled with palette
    entries, cells pasted as sprites mapped once, and anti-aliased text and marks blended over
    the pixels under them and mapped where they land. Every pixel equals the RGB image's mapped
    onto the palette, except where anti-aliased edges overlap (a blend over a mapped pixel)."""
    theme = model["theme"]
    if not indexed:
        img = Image.new("RGB", (int(model["w"]), int(model["h"])), palette(theme)["background"])
    else:
        pal_img = theme_palette(theme)
        img = Image.new("P", (int(model["w"]), int(model["h"])), _index(theme, palette(theme)["background"]))
        img.putpalette(pal_img.getpalette())
    paint_into(img, model)
    return img


def _theme_of(pal: Mapping[str, RGB]) -> str:
    return next(name for name in THEMES if palette(name) is pal or dict(palette(name)) == dict(pal))


def _index(theme: str, colour: RGB) -> int:
    """The palette index of a theme colour (its first entry)."""
    flat = theme_palette(theme).getpalette()
    for i in range(0, len(flat), 3):
        if tuple(flat[i:i + 3]) == tuple(colour):
            return i // 3
    raise PaintError("theme", f"colour {colour!r} is not in the {theme!r} palette")  # pragma: no cover


def _quantize(rgb: Image.Image, theme: str) -> Image.Image:
    return rgb.quantize(palette=theme_palette(theme), dither=Image.Dither.NONE)


@pixel_lru(CELL_SPRITES // 2)
def _opaque_indexed(layers: tuple, size: int, back: RGB, left: RGB, top: RGB, corner: RGB, theme: str) -> Image.Image:
    """:func:`_opaque` mapped onto ``theme``'s palette once."""
    return _quantize(_opaque(layers, size, back, left, top, corner), theme)


fonts.DEPENDENT_CACHES.extend([_text_mask, _sprite, _opaque, _opaque_indexed])

_INK = PixelCache(INKED_TEXT)
"""``(colour, id(mask)) -> (mask, RGBA sprite)`` of :func:`_ink` (the mask kept beside it, so its
id is not reused while the entry lives)."""


def _ink(colour: RGB, mask: Image.Image) -> Image.Image:
    """Text coverage ``mask`` (one of :mod:`web.render.fonts`' cached masks) in ``colour`` as an
    RGBA sprite, kept in a bounded cache (:data:`_INK`)."""
    key = (tuple(colour), id(mask))
    hit = _INK.get(key)
    if hit is not None and hit[0] is mask:
        return hit[1]
    sprite = Image.new("RGBA", mask.size, tuple(colour) + (255,))
    sprite.putalpha(mask)
    _INK.put(key, (mask, sprite))
    return sprite


def _blend_in(img: Image.Image, sprite: Image.Image, at: tuple[int, int], pal: Mapping[str, RGB]) -> None:
    """Composite RGBA ``sprite`` at ``at`` onto the "P" image ``img``: the pixels under it in
    RGB, the sprite over them, mapped back onto the palette where the sprite has ink."""
    x, y = at
    box = (max(0, x), max(0, y), min(img.width, x + sprite.width), min(img.height, y + sprite.height))
    if box[0] >= box[2] or box[1] >= box[3]:
        return
    under = img.crop(box)
    low, high = under.getextrema()
    if low == high and box == (x, y, x + sprite.width, y + sprite.height):  # on one flat colour: cached
        done = _over_flat(sprite, low, _theme_of(pal))
        img.paste(done[0], box[:2], done[1])
        return
    part = under.convert("RGB")
    piece = sprite.crop((box[0] - x, box[1] - y, box[2] - x, box[3] - y))
    part.paste(piece, (0, 0), piece)
    img.paste(_quantize(part, _theme_of(pal)), box[:2], _coverage(piece))


_ANY = [0] + [255] * 255
_FLAT = PixelCache(INKED_TEXT)
"""``(id(sprite), index, theme) -> (sprite, mapped sprite, coverage)`` of :func:`_over_flat`."""


def _over_flat(sprite: Image.Image, index: int, theme: str) -> tuple[Image.Image, Image.Image]:
    """``(mapped sprite, coverage mask)`` of RGBA ``sprite`` over palette entry ``index`` (kept
    in a bounded cache, :data:`_FLAT`)."""
    key = (id(sprite), index, theme)
    hit = _FLAT.get(key)
    if hit is not None and hit[0] is sprite:
        return hit[1], hit[2]
    flat = theme_palette(theme).getpalette()[3 * index: 3 * index + 3]
    part = Image.new("RGB", sprite.size, tuple(flat))
    part.paste(sprite, (0, 0), sprite)
    out = (sprite, _quantize(part, theme), _coverage(sprite))
    _FLAT.put(key, out)
    return out[1], out[2]


def _coverage(piece: Image.Image) -> Image.Image:
    """An "L" mask of the pixels a sprite changes (alpha above 0: 255, else 0)."""
    return piece.getchannel("A").point(_ANY)


# --------------------------------------------------------------------------- encoding

def _slot_distance(c: RGB, of: RGB) -> int:
    """Squared distance from colour ``c`` to the low corner of the palette-cache slot of ``of``."""
    return sum((c[k] - (of[k] & ~3)) ** 2 for k in range(3))


def _steals(c: RGB, kept: list[RGB]) -> bool:
    """Would palette entry ``c`` take the pixels of a colour in ``kept``? Pillow maps a pixel
    through a cache of 4x4x4 colour slots, each slot to the entry nearest its low corner
    (``4 * (v // 4)`` per channel; Pillow's ``Palette.c``), so an entry nearer that corner than
    the colour itself would: such entries are left out of the palette, and every theme colour
    comes out of the PNG exact (tests/web/test_png_paint.py)."""
    return any(_slot_distance(c, b) <= _slot_distance(b, b) for b in kept)


_PALETTES: dict[str, Image.Image] = {}
_PALETTE_LOCK = threading.Lock()


def theme_palette(theme: str) -> Image.Image:
    """A 256-colour palette image ("P") for boards in ``theme`` (built once, cached).

    Slots: every colour of the theme exactly (flat areas keep their true colour, and the PNG
    gives it back exact: no other entry takes its pixels, :func:`_steals`), the dimmed road
    colours, then the rest chosen (fast octree) from the anti-aliasing ramps between every
    colour drawn and every colour it is drawn on. Mapping a board onto this fixed palette
    takes a few ms where an adaptive quantisation of a 1080p image takes ~25 ms.
    """
    with _PALETTE_LOCK:
        hit = _PALETTES.get(theme)
        if hit is not None:
            return hit
    pal = palette(theme)
    base: list[RGB] = []
    for name in COLOUR_NAMES:
        if pal[name] not in base:
            base.append(pal[name])
    bg = pal["background"]
    dimmed = [tuple(round(bg[k] + (c[k] - bg[k]) * DIM_ALPHA) for k in range(3)) for c in base]
    theme_colours = list(base)
    base += [c for c in dimmed if c not in base and not _steals(c, theme_colours)][: 64]
    backs = [pal[n] for n in ("background", "panel", "cell", "badge", "banker", "player", "tie", "natural", "repeat",
                              "break", "offline")]
    steps = 24
    swatch = Image.new("RGB", (steps, len(base) * len(backs)))
    px = swatch.load()
    row = 0
    for fg in base:
        for b in backs:
            for i in range(steps):
                a = i / (steps - 1)
                px[i, row] = tuple(round(b[k] + (fg[k] - b[k]) * a) for k in range(3))
            row += 1
    ramps = swatch.quantize(256 - len(base), method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    flat_ramps = ramps.getpalette()[: 3 * (256 - len(base))]
    extra: list[int] = []
    for i in range(0, len(flat_ramps), 3):
        c = tuple(flat_ramps[i:i + 3])
        if not _steals(c, base):
            extra += c
    flat = [c for colour in base for c in colour] + extra
    flat += [0] * (768 - len(flat))
    img = Image.new("P", (1, 1))
    img.putpalette(flat)
    with _PALETTE_LOCK:
        _PALETTES[theme] = img
    return img


def encode_png(image: Image.Image, *, theme: str = "dark", encoding: str = DEFAULT_ENCODING,
               compress_level: int = PNG_COMPRESS_LEVEL, compress_type: int | None = None) -> bytes:
    """PNG bytes of a board ``image`` painted in ``theme``: ``encoding`` ``"palette"`` (the theme's
    fixed palette, no dithering), ``"rgb"`` (24-bit, exact) or ``"adaptive"``; ``compress_level``
    0-9; ``compress_type``: a zlib strategy (``zlib.Z_RLE``, ``zlib.Z_FIXED``...; ``None``: the
    default, which measured fastest, bench/bench_png.py). Raises :class:`PaintError` (field
    ``encoding`` or ``theme``) for unknown values."""
    if encoding not in ENCODINGS:
        raise PaintError("encoding", f"unknown PNG encoding {encoding!r}; expected one of {', '.join(ENCODINGS)}")
    if encoding == "palette":
        if theme not in THEMES:
            raise PaintError("theme", f"unknown theme {theme!r}; expected one of {', '.join(THEMES)}")
        if image.mode != "P":  # paint(..., indexed=True) is on the palette already
            image = image.quantize(palette=theme_palette(theme), dither=Image.Dither.NONE)
    elif encoding == "adaptive":
        image = image.quantize(colors=256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    buf = io.BytesIO()
    extra = {} if compress_type is None else {"compress_type": int(compress_type)}
    image.save(buf, format="PNG", compress_level=compress_level, optimize=False, **extra)
    return buf.getvalue()
