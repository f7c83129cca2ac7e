"""Drawing primitives of the board model and the text fitting both painters rely on.

A panel of the model is ``{"id", "x", "y", "w", "h", "bg": colour | None, "items": [...]}``;
its items are primitives, each a small dict (canvas px, colours are palette names of
:mod:`web.render.theme`):

- text ``{"p": "t", "t": text, "x", "y", "s": font px, "w": "b" | "r", "c", "a": "l" | "m" | "r"}``:
  ``x`` is the anchor (left end, centre or right end), ``y`` the baseline;
- rectangle ``{"p": "r", "x", "y", "w", "h", "r": corner radius, "c"}`` (filled);
- line ``{"p": "l", "x1", "y1", "x2", "y2", "w": width, "c"}``;
- mark ``{"p": "m", ...}``: a road cell (:mod:`web.render.cells`), e.g. a legend icon;
- polygon ``{"p": "g", "pts": [x0, y0, x1, y1, ...], "c"}`` (filled; card suits, :mod:`web.render.status_panel`).

Text is measured with the bundled fonts (:mod:`web.render.fonts`), which the pages also load,
so a fitted string fits on both painters.
"""

from __future__ import annotations

import functools
from typing import Any

from roads.text import clean_display_text
from web import i18n
from web.render import fonts


def label(key: str, lang: str, default: str | None = None, **values: Any) -> str:
    """The catalogue label ``key`` in ``lang`` (English fallback), ``{name}`` filled from
    ``values``; a key in no catalogue gives ``default`` (else the key), filled the same way.
    Without ``values`` the answer is cached (the catalogues do not change while running)."""
    if not values:
        return _plain_label(key, lang, default, i18n.generation())
    return _label(key, lang, default, **values)


def _label(key: str, lang: str, default: str | None = None, **values: Any) -> str:
    if lang not in i18n.LANGUAGES:
        lang = i18n.DEFAULT_LANGUAGE
    try:
        return i18n.translate(key, lang, **values)
    except i18n.UnknownLabelError:
        text = default if default is not None else key
    for name, value in values.items():
        text = text.replace("{" + name + "}", str(value))
    return text


@functools.lru_cache(maxsize=8192)
def _plain_label(key: str, lang: str, default: str | None, generation: int) -> str:
    return _label(key, lang, default)


def text(t: str, x: float, y: float, size: int, colour: str = "text", *, lang: str, weight: str = "b",
         anchor: str = "l") -> dict[str, Any]:
    """A text primitive (see the module docstring) whose vertical middle is at ``y``; the
    primitive stores the baseline (``y`` key), coordinates rounded to 0.1 px, and ``t`` as both
    painters show it (:func:`roads.text.clean_display_text`: text stored before the display-text
    rule loses its control and separator characters here, on the page as on the PNG)."""
    t = clean_display_text(t)
    base = fonts.middle_to_baseline(t, y, size=int(size), lang=lang, weight=weight_name(weight))
    return {"p": "t", "t": t, "x": round(x, 1), "y": round(base, 1), "s": int(size), "w": weight, "c": colour, "a": anchor}


def rect(x: float, y: float, w: float, h: float, colour: str, radius: float = 0) -> dict[str, Any]:
    """A filled (rounded) rectangle primitive."""
    return {"p": "r", "x": round(x, 1), "y": round(y, 1), "w": round(w, 1), "h": round(h, 1), "r": round(radius, 1),
            "c": colour}


def line(x1: float, y1: float, x2: float, y2: float, colour: str, width: float = 1) -> dict[str, Any]:
    """A line primitive."""
    return {"p": "l", "x1": round(x1, 1), "y1": round(y1, 1), "x2": round(x2, 1), "y2": round(y2, 1),
            "w": round(width, 1), "c": colour}


def weight_name(w: str) -> str:
    """Primitive weight code -> :mod:`web.render.fonts` weight."""
    return "regular" if w == "r" else "bold"


def width(t: str, size: int, lang: str, weight: str = "b") -> float:
    """Advance width of ``t`` at ``size`` px with the bundled fonts."""
    return fonts.text_width(t, size=size, lang=lang, weight=weight_name(weight))


def fit(t: str, max_width: float, size: int, lang: str, *, weight: str = "b", min_size: int) -> tuple[str, int]:
    """``(text, size)``: ``t`` at the largest size <= ``size`` (not below ``min_size``) that fits
    ``max_width`` px; still too wide at ``min_size``: cut with an ellipsis. Cached by all the
    arguments (until :func:`web.render.fonts.reset_caches`)."""
    return _fit(t, max_width, size, lang, weight, min_size)


@functools.lru_cache(maxsize=16384)
def _fit(t: str, max_width: float, size: int, lang: str, weight: str, min_size: int) -> tuple[str, int]:
    size = max(int(size), int(min_size))
    s = fonts.fit_size(t, max_width, size, lang=lang, weight=weight_name(weight), min_size=min_size)
    return fonts.ellipsize(t, max_width, size=s, lang=lang, weight=weight_name(weight)), s


def line_height(size: int, lang: str, *, wrapped: bool = False) -> float:
    """Line pitch for text of ``size`` px: 1.55 x for Thai, Lao, Burmese and Vietnamese (marks
    stacked above and below; Vietnamese ấ, ở reach 1.0 em above the baseline), else 1.3 x. ``wrapped`` (the lines of one wrapped text, read as a paragraph):
    1.8 x for Lao and Burmese, whose marks of two such lines otherwise touch (measured on pixels
    in Chromium, static/css/pages.css)."""
    if wrapped and lang in ("my", "lo"):
        return size * 1.8
    return size * (1.55 if lang in ("my", "lo", "th", "vi") else 1.3)


def panel(pid: str, r: dict[str, int], bg: str | None = "panel", items: list | None = None, **extra: Any) -> dict[str, Any]:
    """A panel dict for region ``r`` (``x``, ``y``, ``w``, ``h``)."""
    out = {"id": pid, "x": r["x"], "y": r["y"], "w": r["w"], "h": r["h"], "bg": bg, "items": items or []}
    out.update(extra)
    return out


fonts.DEPENDENT_CACHES.append(_fit)
