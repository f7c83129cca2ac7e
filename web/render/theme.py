"""The one palette of every board, HTML and PNG alike.

Each theme is a table of named colours (RGB). The Pillow painter (:mod:`web.render.paint_png`)
reads the tuples; the pages get the same table as CSS custom properties from
:func:`theme_css` (served at ``/theme.css``), plus one fill class ``f-<name>`` and one stroke
class ``s-<name>`` per colour, which the SVG painter (``static/js/paint.js``) puts on the shapes
of the board model. A test compares the served CSS with these tuples, so the two painters
cannot drift apart.

Colour meaning (docs/domain.md §4): Banker red, Player blue, Tie green, naturals gold. The
derived roads (big eye boy, small road, cockroach pig) record whether the big road repeats its
pattern (red) or breaks it (blue); they use their own red and blue (``repeat``, ``break``), of
another hue than Banker and Player, and every board says what they mean in its legend.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

RGB = tuple[int, int, int]

COLOUR_NAMES: tuple[str, ...] = (
    "background", "panel", "panel_edge", "cell", "grid", "grid_major", "text", "muted",
    "banker", "player", "tie", "natural", "on_symbol", "open", "warn", "badge", "badge_text",
    "repeat", "break", "newest", "link", "offline", "offline_text",
)
"""Every colour a theme names, in a fixed order (the PNG palette's first slots)."""

_DARK: dict[str, RGB] = {
    "background": (11, 14, 19),
    "panel": (21, 26, 33),
    "panel_edge": (37, 48, 64),
    "cell": (26, 31, 40),
    "grid": (41, 48, 60),
    "grid_major": (58, 67, 82),
    "text": (238, 241, 245),
    "muted": (160, 169, 184),
    "banker": (240, 66, 66),
    "player": (64, 140, 255),
    "tie": (46, 196, 104),
    "natural": (255, 196, 51),
    "on_symbol": (255, 255, 255),
    "open": (86, 211, 130),
    "warn": (255, 196, 51),
    "badge": (60, 48, 12),
    "badge_text": (255, 214, 102),
    "repeat": (236, 120, 160),
    "break": (96, 196, 232),
    "newest": (255, 255, 255),
    "link": (127, 176, 255),
    "offline": (120, 20, 20),
    "offline_text": (255, 235, 235),
}

_LIGHT: dict[str, RGB] = {
    "background": (232, 235, 240),
    "panel": (255, 255, 255),
    "panel_edge": (216, 220, 228),  # (213, 218, 225) shared the grid's PNG palette slot (paint_png._steals)
    "cell": (255, 255, 255),
    "grid": (211, 216, 223),
    "grid_major": (184, 191, 202),
    "text": (17, 24, 39),
    "muted": (84, 94, 110),
    "banker": (212, 36, 36),
    "player": (24, 92, 214),
    "tie": (18, 150, 63),
    "natural": (200, 140, 0),
    "on_symbol": (255, 255, 255),
    "open": (18, 130, 62),
    "warn": (154, 106, 0),
    "badge": (255, 243, 205),
    "badge_text": (120, 80, 0),
    "repeat": (196, 50, 120),
    "break": (0, 132, 176),
    "newest": (17, 24, 39),
    "link": (24, 92, 214),
    "offline": (160, 24, 24),
    "offline_text": (255, 255, 255),
}

THEMES: Mapping[str, Mapping[str, RGB]] = MappingProxyType(
    {"dark": MappingProxyType(_DARK), "light": MappingProxyType(_LIGHT)})
"""Theme name -> colour name (:data:`COLOUR_NAMES`) -> RGB. Read-only."""

DEFAULT_THEME = "dark"

DIM_ALPHA = 0.35
"""How much of a road stays visible while the board is offline (the rest is the background)."""


class ThemeError(ValueError):
    """An unknown theme name; ``field`` is ``"theme"``."""

    field = "theme"


def palette(theme: str) -> Mapping[str, RGB]:
    """The colours of ``theme``; raises :class:`ThemeError` for an unknown name."""
    try:
        return THEMES[theme]
    except KeyError:
        raise ThemeError(f"unknown theme {theme!r}; expected one of {', '.join(THEMES)}") from None


def hex_colour(rgb: RGB) -> str:
    """``(240, 66, 66)`` -> ``"#f04242"``."""
    return "#%02x%02x%02x" % tuple(rgb)


def css_name(name: str) -> str:
    """The custom property of a colour: ``"grid_major"`` -> ``"--grid-major"``."""
    return "--" + name.replace("_", "-")


def theme_css() -> str:
    """The stylesheet of the palette: one rule per theme (``.theme-<name>``; ``:root`` is
    dark) declaring every colour as a custom property, then ``.f-<name>`` / ``.s-<name>``
    classes that fill / stroke an SVG shape with it. Deterministic text."""
    out = ["/* Generated from web/render/theme.py: the palette of the HTML and PNG boards. */"]
    for name, colours in THEMES.items():
        sel = f":root, .theme-{name}" if name == DEFAULT_THEME else f".theme-{name}"
        decl = " ".join(f"{css_name(k)}: {hex_colour(colours[k])};" for k in COLOUR_NAMES)
        out.append(f"{sel} {{ {decl} color-scheme: {name}; }}")
    for k in COLOUR_NAMES:
        cls = k.replace("_", "-")
        out.append(f".f-{cls} {{ fill: var({css_name(k)}); }} .s-{cls} {{ stroke: var({css_name(k)}); }}")
    return "\n".join(out) + "\n"
