"""Fonts for the PNG renderer: a per-language fallback chain of Noto faces, text runs, drawing.

Pillow draws one font per call and has no font fallback, so text is split into runs,
each drawn with the first font in the language's chain whose character map covers it
(combining marks stay with their base, spaces and common punctuation stay in the current
run). Pillow's raqm layout (HarfBuzz + FriBiDi, bundled in the wheels) shapes each run,
which Thai, Lao and Burmese need (stacked vowels and tone marks, medials, reordering).

Fonts come from the project's own ``static/fonts/`` (OFL Noto files from Debian's
fonts-noto-core and fonts-noto-cjk, see ``static/fonts/OFL.txt``) so a fresh machine needs
no package; the system's Noto folders are a second source; Pillow's built-in font is the
last resort (Latin only).

The shipped CJK face, ``NotoSansSC-Bold.otf``, is a subset of Noto Sans CJK SC Bold (made by
``tools/subset_cjk_font.py``): the hanzi of GB2312 and of Big5 level 1, CJK punctuation,
fullwidth forms and every character of the Chinese catalogue. The same file is the web
pages' CJK font (``static/css/roads.css``). ``NotoSansTC-Bold.otf`` (Traditional Chinese: Big5
level 1 in the TC face's forms) and ``NotoSansKR-Bold.otf`` (the 2,350 Hangul syllables of KS X
1001) are subsets made the same way. For rarer characters (table names), every chain ends with a
full system CJK face when the machine has one (fonts-noto-cjk): the TC face for ``zh-Hant``, KR for
``ko``, SC for the others.

Text that breaks the display-text rule (:mod:`roads.text`: a CR, U+2029, other controls and
format characters; stored by a release before the rule) is measured and drawn as
:func:`roads.text.clean_display_text` shows it, never handed to raqm as it is.

Chains (first match wins per character):

- ``en``: Latin, CJK, Thai, Lao, Myanmar (table names in any script still render)
- ``zh``: Latin (digits, Latin letters), CJK (Simplified Chinese face), then the others
- ``zh-Hant``: Latin, Traditional Chinese face, then the Simplified one (hanzi the TC subset lacks)
- ``ko``: Latin, Korean face (Hangul), then the Chinese faces (hanja), the others
- ``vi``: Latin (Noto Sans has every precomposed Vietnamese letter, U+1EA0-1EF9), then the others
- ``th`` / ``lo`` / ``my``: Latin, then that script's face, then the others
- all: then the full system CJK face, if installed (``cjk`` too, for characters the subset lacks)
"""

from __future__ import annotations

import functools
import threading
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont, features

from roads.text import clean_display_text
from web.paths import STATIC_DIR
from web.render.pixel_cache import TEXT_SPRITES, pixel_lru

LANGUAGES: tuple[str, ...] = ("en", "zh", "zh-Hant", "th", "my", "lo", "vi", "ko")
"""Languages the renderer labels in (same as web.i18n.LANGUAGES)."""

FONT_DIR = STATIC_DIR / "fonts"
"""The project's shipped fonts (searched first)."""

SYSTEM_FONT_DIRS: tuple[Path, ...] = (
    Path("/usr/share/fonts/truetype/noto"),
    Path("/usr/share/fonts/opentype/noto"),
    Path("/usr/share/fonts/noto"),
    Path("/usr/share/fonts/google-noto"),
    Path("/usr/share/fonts/google-noto-cjk"),
)
"""Where Debian/Fedora install Noto (searched after :data:`FONT_DIR`)."""

WEIGHTS: tuple[str, ...] = ("regular", "bold")

HAS_RAQM: bool = bool(features.check("raqm"))
"""Whether Pillow has raqm (complex-script shaping). Without it Thai/Lao/Burmese marks misplace."""


class FontError(ValueError):
    """An unknown language or weight, or a font file that cannot be read (quotes the input)."""


@dataclass(frozen=True, slots=True)
class Face:
    """One font face: ``script`` key, file ``path``, ``index`` inside a .ttc collection."""

    script: str
    path: str
    index: int = 0


# script -> weight -> candidate (file name, collection index), best first.
_CANDIDATES: dict[str, dict[str, tuple[tuple[str, int], ...]]] = {
    "latin": {"regular": (("NotoSans-Regular.ttf", 0),), "bold": (("NotoSans-Bold.ttf", 0),)},
    "thai": {"regular": (("NotoSansThai-Regular.ttf", 0),), "bold": (("NotoSansThai-Bold.ttf", 0),)},
    "lao": {"regular": (("NotoSansLao-Regular.ttf", 0),), "bold": (("NotoSansLao-Bold.ttf", 0),)},
    "myanmar": {"regular": (("NotoSansMyanmar-Regular.ttf", 0),), "bold": (("NotoSansMyanmar-Bold.ttf", 0),)},
    # One CJK weight is shipped (size): a Simplified Chinese subset, a single face (index 0).
    # System copies: index 2 of the fonts-noto-cjk collections is "Noto Sans CJK SC".
    "cjk": {
        "regular": (("NotoSansSC-Bold.otf", 0), ("NotoSansCJK-Regular.ttc", 2), ("NotoSansCJKsc-Regular.otf", 0),
                    ("NotoSansCJK-Bold.ttc", 2)),
        "bold": (("NotoSansSC-Bold.otf", 0), ("NotoSansCJK-Bold.ttc", 2), ("NotoSansCJKsc-Bold.otf", 0),
                 ("NotoSansCJK-Regular.ttc", 2)),
    },
    # Traditional Chinese and Korean: one shipped subset each (bold); index 3 / 1 of the collections.
    "tc": {
        "regular": (("NotoSansTC-Bold.otf", 0), ("NotoSansCJK-Regular.ttc", 3), ("NotoSansCJKtc-Regular.otf", 0),
                    ("NotoSansCJK-Bold.ttc", 3)),
        "bold": (("NotoSansTC-Bold.otf", 0), ("NotoSansCJK-Bold.ttc", 3), ("NotoSansCJKtc-Bold.otf", 0),
                 ("NotoSansCJK-Regular.ttc", 3)),
    },
    "kr": {
        "regular": (("NotoSansKR-Bold.otf", 0), ("NotoSansCJK-Regular.ttc", 1), ("NotoSansCJKkr-Regular.otf", 0),
                    ("NotoSansCJK-Bold.ttc", 1)),
        "bold": (("NotoSansKR-Bold.otf", 0), ("NotoSansCJK-Bold.ttc", 1), ("NotoSansCJKkr-Bold.otf", 0),
                 ("NotoSansCJK-Regular.ttc", 1)),
    },
}

SUBSET_CJK_FILES: frozenset[str] = frozenset({"NotoSansSC-Bold.otf", "NotoSansTC-Bold.otf", "NotoSansKR-Bold.otf"})
"""CJK files that hold only part of the hanzi (the shipped subset): the full-font fallback skips them."""

_SCRIPT_ORDER: dict[str, tuple[str, ...]] = {
    "en": ("latin", "cjk", "thai", "lao", "myanmar", "kr", "tc"),
    "zh": ("latin", "cjk", "thai", "lao", "myanmar", "kr", "tc"),
    "zh-Hant": ("latin", "tc", "cjk", "thai", "lao", "myanmar", "kr"),
    "th": ("latin", "thai", "cjk", "lao", "myanmar", "kr", "tc"),
    "lo": ("latin", "lao", "thai", "cjk", "myanmar", "kr", "tc"),
    "my": ("latin", "myanmar", "cjk", "thai", "lao", "kr", "tc"),
    "vi": ("latin", "cjk", "thai", "lao", "myanmar", "kr", "tc"),
    "ko": ("latin", "kr", "cjk", "thai", "lao", "myanmar", "tc"),
}

_RAQM_LANGUAGE = {"en": "en", "zh": "zh-Hans", "zh-Hant": "zh-Hant", "th": "th", "lo": "lo", "my": "my", "vi": "vi",
                  "ko": "ko"}

_FULL_CJK_SCRIPT = {"zh-Hant": "tc", "ko": "kr"}
"""The full system face that ends a language's chain (:func:`full_cjk_face`); others: SC."""


_extra_dir: Path | None = None  # set_font_dir: ROADS_FONT_DIR, given by the app at start-up


def set_font_dir(path: Path | str | None) -> None:
    """Search ``path`` (a folder; ``None``: none) before :data:`FONT_DIR` for every later font
    lookup of the process (fonts serve every app of it). The app calls it once at start-up with
    its ``ROADS_FONT_DIR`` setting (:func:`web.app.create_app`; ``roads render`` likewise), so
    the renderer is given the folder and never reads the settings. Forgets every cached font
    choice when the folder changes (:func:`reset_caches`)."""
    global _extra_dir
    new = Path(path) if path is not None else None
    if new != _extra_dir:
        _extra_dir = new
        reset_caches()


def font_dir() -> Path | None:
    """The extra font folder given by :func:`set_font_dir` (``None``: only the shipped and system fonts)."""
    return _extra_dir


def _find(script: str, weight: str, *, skip: frozenset[str] = frozenset()) -> Face | None:
    dirs = [_extra_dir] if _extra_dir is not None else []
    dirs += [FONT_DIR, *SYSTEM_FONT_DIRS]
    for d in dirs:  # the shipped folder wins over system copies for every candidate
        for name, index in _CANDIDATES[script][weight]:
            p = d / name
            if name not in skip and p.is_file():
                return Face(script, str(p), index)
    return None


def full_cjk_face(weight: str = "bold", lang: str = "zh") -> Face | None:
    """A CJK face with every hanzi (not a shipped subset): a system or ``ROADS_FONT_DIR`` copy
    of Noto Sans CJK (its TC face for ``zh-Hant``, KR for ``ko``, else SC), or ``None``. Ends
    ``lang``'s chain, for rare characters in table names."""
    return _find(_FULL_CJK_SCRIPT.get(lang, "cjk"), weight, skip=SUBSET_CJK_FILES)


@functools.lru_cache(maxsize=None)
def font_chain(lang: str, weight: str = "bold") -> tuple[Face, ...]:
    """The faces tried, in order, for text in ``lang`` (``LANGUAGES``) at ``weight`` ("regular"/"bold").

    Faces whose file is missing are left out. Raises :class:`FontError` for an unknown
    language or weight.
    """
    if lang not in _SCRIPT_ORDER:
        raise FontError(f"unknown language {lang!r}; expected one of {', '.join(LANGUAGES)}")
    if weight not in WEIGHTS:
        raise FontError(f"unknown font weight {weight!r}; expected 'regular' or 'bold'")
    faces = []
    for script in _SCRIPT_ORDER[lang]:
        face = _find(script, weight)
        if face is not None:
            faces.append(face)
    full = full_cjk_face(weight, lang)
    if full is not None and full not in faces:
        faces.append(full)
    return tuple(faces)


def primary_face(lang: str, weight: str = "bold") -> Face | None:
    """The face for ``lang``'s own script (Latin for English): what its labels mostly use."""
    script = {"en": "latin", "zh": "cjk", "zh-Hant": "tc", "th": "thai", "lo": "lao", "my": "myanmar", "vi": "latin",
              "ko": "kr"}[lang] if lang in _SCRIPT_ORDER else None
    if script is None:
        raise FontError(f"unknown language {lang!r}; expected one of {', '.join(LANGUAGES)}")
    return _find(script, weight)


# --------------------------------------------------------------------------- character maps

def _read_cmap(path: str, index: int) -> frozenset[int]:
    """Code points mapped to a real glyph (not glyph 0, ``.notdef``) by the font's best Unicode
    cmap subtable (fontTools' ``getBestCmap``: full-Unicode format 12 before BMP format 4).

    ``index`` picks the face of a ``.ttc`` collection. Only the tables the cmap needs are read
    (``lazy``). Raises :class:`FontError` for a file that is not TrueType/OpenType, a missing
    face, or a font without a Unicode cmap.
    """
    from fontTools.ttLib import TTFont, TTLibError  # imported at the first font read, not at start-up

    try:
        with TTFont(path, fontNumber=index, lazy=True) as font:
            best = font.getBestCmap()
            notdef = font.getGlyphOrder()[0]
    except TTLibError as e:
        raise FontError(f"{path!r} (face {index}) is not a readable TrueType/OpenType font: {e}") from None
    except OSError as e:
        raise FontError(f"{path!r}: {e.strerror or e}") from None
    if best is None:
        raise FontError(f"{path!r} has no Unicode cmap subtable")
    return frozenset(cp for cp, glyph in best.items() if glyph != notdef)


@functools.lru_cache(maxsize=None)
def coverage(face: Face) -> frozenset[int]:
    """The set of code points ``face`` has a glyph for (read once, cached)."""
    return _read_cmap(face.path, face.index)


@functools.lru_cache(maxsize=None)
def _characters(face: Face) -> frozenset[str]:
    """:func:`coverage` as characters (for a subset test of a whole string at once)."""
    return frozenset(map(chr, coverage(face)))


def covers(face: Face, char: str) -> bool:
    """Whether ``face`` has a glyph for the single character ``char``."""
    return ord(char) in coverage(face)


# --------------------------------------------------------------------------- runs

_NEUTRAL_CATEGORIES = {"Zs", "Po", "Pd", "Ps", "Pe", "Pi", "Pf", "Sm", "Sc", "Sk", "So", "Cc", "Cf"}
_INVISIBLE = {"\u200b", "\u200c", "\u200d", "\u2060", "\ufe0f", "\ufe0e"}


def runs(text: str, lang: str, weight: str = "bold") -> list[tuple[str, Face | None]]:
    """Split ``text`` into ``(substring, face)`` runs for ``lang``'s chain.

    Each character goes to the first face of :func:`font_chain` that covers it, except that
    combining marks and zero-width joiners stay in the current run, and spaces/punctuation
    stay in the current run when its face covers them. ``face`` is ``None`` for characters
    no face covers (they would show as missing-glyph boxes). Cached per string.
    """
    return list(_runs(text, lang, weight))


@functools.lru_cache(maxsize=8192)
def _runs(text: str, lang: str, weight: str) -> tuple[tuple[str, Face | None], ...]:
    # Every measure and drawing goes through here: text that breaks the display-text rule (stored
    # before it existed) is shown cleaned, since a CR or U+2029 makes raqm's layout fail.
    text = clean_display_text(text)
    chain = font_chain(lang, weight)
    if chain and text and _characters(chain[0]).issuperset(text):
        return ((text, chain[0]),)  # every character has a glyph in the first face: one run of it
    out: list[list] = []
    current: Face | None = None
    for ch in text:
        cat = unicodedata.category(ch)
        face: Face | None
        if out and (cat.startswith("M") or ch in _INVISIBLE):
            face = current
        elif out and current is not None and cat in _NEUTRAL_CATEGORIES and covers(current, ch):
            face = current
        else:
            face = next((f for f in chain if covers(f, ch)), None)
        if out and face == current:
            out[-1][0] += ch
        else:
            out.append([ch, face])
            current = face
    return tuple((t, f) for t, f in out)


def missing_characters(text: str, lang: str, weight: str = "bold") -> set[str]:
    """Characters of ``text`` that no face of ``lang``'s chain covers (spaces and joiners ignored)."""
    chain = font_chain(lang, weight)
    return {
        ch for ch in text
        if not ch.isspace() and ch not in _INVISIBLE and not any(covers(f, ch) for f in chain)
    }


# --------------------------------------------------------------------------- drawing

_font_lock = threading.RLock()  # FreeType faces are shared between request threads


@functools.lru_cache(maxsize=512)
def get_font(face: Face | None, size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """A Pillow font for ``face`` at ``size`` px (cached). ``None`` -> Pillow's built-in font."""
    size = max(1, int(size))
    if face is None:
        return ImageFont.load_default(size)
    layout = ImageFont.Layout.RAQM if HAS_RAQM else ImageFont.Layout.BASIC
    return ImageFont.truetype(face.path, size, index=face.index, layout_engine=layout)


def _shaped(text: str, lang: str, weight: str, size: int):
    """Runs with their Pillow fonts: ``[(substring, font), ...]``."""
    return [(t, get_font(f, size)) for t, f in _runs(text, lang, weight)]


def _kw(lang: str, font=None) -> dict:
    """Layout keywords for ``font``: the language tag (raqm picks the right glyph forms by it,
    e.g. Simplified Chinese); nothing for fonts without raqm (Pillow's built-in font)."""
    if not HAS_RAQM or (font is not None and getattr(font, "layout_engine", None) != ImageFont.Layout.RAQM):
        return {}
    return {"language": _RAQM_LANGUAGE.get(lang)}


def text_width(text: str, *, size: int, lang: str = "en", weight: str = "bold") -> float:
    """Advance width in px of ``text`` at ``size`` px with ``lang``'s fonts (shaped; cached)."""
    return _text_width(text, int(size), lang, weight)


@functools.lru_cache(maxsize=16384)
def _text_width(text: str, size: int, lang: str, weight: str) -> float:
    with _font_lock:
        return sum(font.getlength(t, **_kw(lang, font)) for t, font in _shaped(text, lang, weight, size))


def line_metrics(text: str, *, size: int, lang: str = "en", weight: str = "bold") -> tuple[int, int]:
    """``(ascent, descent)`` in px of the ink of ``text`` relative to its baseline (descent >= 0)."""
    top, bottom = 0, 0
    with _font_lock:
        for t, font in _shaped(text, lang, weight, size):
            if not t.strip():
                continue
            l, tp, r, b = font.getbbox(t, anchor="ls", **_kw(lang, font))
            top, bottom = min(top, tp), max(bottom, b)
    return -top, bottom


def fit_size(text: str, max_width: float, max_size: int, *, lang: str = "en", weight: str = "bold",
             min_size: int = 8) -> int:
    """Largest size <= ``max_size`` (and >= ``min_size``) at which ``text`` is at most ``max_width`` px wide."""
    size = max(min_size, int(max_size))
    w = text_width(text, size=size, lang=lang, weight=weight)
    if w <= max_width or size <= min_size:
        return size
    size = max(min_size, int(size * max_width / max(w, 1)))
    while size > min_size and text_width(text, size=size, lang=lang, weight=weight) > max_width:
        size -= 1
    return size


def ellipsize(text: str, max_width: float, *, size: int, lang: str = "en", weight: str = "bold") -> str:
    """``text`` cut to fit ``max_width`` px at ``size`` with a trailing ellipsis when cut."""
    if text_width(text, size=size, lang=lang, weight=weight) <= max_width:
        return text
    chars = list(text)
    while chars:
        chars.pop()
        while chars and unicodedata.category(chars[-1]).startswith("M"):
            chars.pop()
        cand = "".join(chars).rstrip() + "\u2026"
        if text_width(cand, size=size, lang=lang, weight=weight) <= max_width:
            return cand
    return ""


def draw_text(draw: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, *, size: int, fill,
              lang: str = "en", weight: str = "bold", anchor: str = "ls", stroke: int = 0,
              stroke_fill=None) -> tuple[float, float, float, float]:
    """Draw ``text`` run by run on a shared baseline; returns the ink box ``(l, t, r, b)``.

    ``anchor``: horizontal ``l``/``m``/``r`` then vertical ``s`` (``xy`` is on the
    baseline) or ``m`` (``xy`` is the vertical middle of the ink of the text).
    """
    if not text:
        return (xy[0], xy[1], xy[0], xy[1])
    fill_mask, px, py = text_mask(xy, text, size=size, lang=lang, weight=weight, anchor=anchor)
    if stroke:
        stroke_mask = _text_sprite(text, int(size), lang, weight, int(stroke))[1]
        draw.bitmap((px - stroke, py - stroke), stroke_mask, fill=stroke_fill)
    draw.bitmap((px, py), fill_mask, fill=fill)
    return (px, py, px + fill_mask.width, py + fill_mask.height)


def text_mask(xy: tuple[float, float], text: str, *, size: int, lang: str = "en", weight: str = "bold",
              anchor: str = "ls") -> tuple[Image.Image, int, int]:
    """``(coverage mask "L", left px, top px)``: where :func:`draw_text` (same arguments, no
    stroke) puts the ink of non-empty ``text``, for painters that blend it themselves."""
    h, v = anchor[0], anchor[1]
    width = text_width(text, size=size, lang=lang, weight=weight)
    x = xy[0] - (width / 2 if h == "m" else width if h == "r" else 0)
    y = xy[1]
    if v == "m":
        asc, desc = _middle_metrics(text, size, lang, weight)
        y = xy[1] + (asc - desc) / 2
    fill_mask, _, left, top = _text_sprite(text, int(size), lang, weight, 0)
    return fill_mask, round(x) + left, round(y) + top


@pixel_lru(TEXT_SPRITES)
def _text_sprite(text: str, size: int, lang: str, weight: str, stroke: int):
    """``(fill mask, stroke mask or None, left, top)``: ``text`` drawn once as coverage masks;
    ``left``/``top`` place the fill mask relative to the text's origin on its baseline (the
    stroke mask is ``stroke`` px larger on every side). Labels repeat on every board, so
    drawing a board mostly pastes cached masks instead of shaping and rasterising again."""
    with _font_lock:
        shaped = _shaped(text, lang, weight, size)
        pieces = []
        x = 0.0
        l_all, t_all, r_all, b_all = 0, 0, 1, 1
        for t, font in shaped:
            kw = _kw(lang, font)
            l, tp, r, b = font.getbbox(t, anchor="ls", **kw)
            pieces.append((x, t, font, kw))
            l_all, t_all = min(l_all, int(x + l)), min(t_all, tp)
            r_all, b_all = max(r_all, int(x + r) + 1), max(b_all, b)
            x += font.getlength(t, **kw)
        w, h = r_all - l_all, b_all - t_all
        fill_mask = Image.new("L", (w, h), 0)
        d = ImageDraw.Draw(fill_mask)
        for px, t, font, kw in pieces:
            d.text((px - l_all, -t_all), t, font=font, fill=255, anchor="ls", **kw)
        stroke_mask = None
        if stroke:
            stroke_mask = Image.new("L", (w + 2 * stroke, h + 2 * stroke), 0)
            sd = ImageDraw.Draw(stroke_mask)
            for px, t, font, kw in pieces:
                sd.text((px - l_all + stroke, -t_all + stroke), t, font=font, fill=255, anchor="ls",
                        stroke_width=stroke, stroke_fill=255, **kw)
    return fill_mask, stroke_mask, l_all, t_all


@functools.lru_cache(maxsize=8192)
def _middle_metrics(text: str, size: int, lang: str, weight: str) -> tuple[float, float]:
    """Ascent/descent used to centre a line: the Latin cap height band unless other scripts are taller.

    Centering on each string's own ink would make "Banker" and "19" sit at different
    baselines; centring the band from the baseline to cap height (and the real ink of
    taller scripts) keeps rows of labels aligned.
    """
    asc, desc = _cap_height(size, weight), 0.0
    if any(f is not None and f.script != "latin" for _, f in _runs(text, lang, weight)):
        a, d = line_metrics(text, size=size, lang=lang, weight=weight)
        asc, desc = max(asc, a), d
    return asc, desc


@functools.lru_cache(maxsize=1024)
def _cap_height(size: int, weight: str) -> float:
    """Cap height (px above the baseline) of the Latin face at ``size`` px: the band
    :func:`_middle_metrics` centres every line on, the same for all texts of one size."""
    face = _find("latin", weight)
    if face is None:
        return size * 0.7
    with _font_lock:  # like every other use of a shared FreeType face
        return -get_font(face, size).getbbox("H", anchor="ls")[1]


DEPENDENT_CACHES: list[Any] = []
"""``functools.lru_cache`` functions of other modules whose results depend on the fonts (text
fitting, legends, glyph tables of :mod:`web.render.prims`, ``panels``, ``pieces``); cleared with
:func:`reset_caches`."""


def reset_caches() -> None:
    """Forget every cached font choice, width and text mask (after fonts are added or removed;
    the folder of :func:`set_font_dir` stays), and what was measured with them
    (:data:`DEPENDENT_CACHES`)."""
    for fn in (font_chain, coverage, _characters, get_font, _runs, _text_width, _text_sprite,
               _middle_metrics, _cap_height, *DEPENDENT_CACHES):
        fn.cache_clear()


def middle_to_baseline(text: str, y_middle: float, *, size: int, lang: str = "en", weight: str = "bold") -> float:
    """The baseline y (px) that puts the vertical middle of ``text`` at ``y_middle``, as
    :func:`draw_text` with a ``"?m"`` anchor does (cap-height band, or the ink of taller scripts).
    The board model stores baselines, so the PNG and the SVG page place text alike."""
    if not text:
        return y_middle
    asc, desc = _middle_metrics(text, int(size), lang, weight)
    return y_middle + (asc - desc) / 2
