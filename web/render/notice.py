"""A notice image: a few lines of words on the board's background, for image-only screens that
must show something clear instead of an error body (an unknown table, the service starting; the
PNG routes' errors, :mod:`web.http.png_notice`, and ``static/waiting.png``).

Drawn with the boards' fonts (:mod:`web.render.fonts`: every language's own face) and palette
(:mod:`web.render.theme`): the three beads of the brand (Banker, Player, Tie) over the lines,
centred; sizes follow the image's short side (the title 7 % of it, the other lines 4 % and 3 %),
each line shrunk to fit the width rather than cut.
"""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image, ImageDraw

from web.render import fonts
from web.render.paint_png import encode_png
from web.render.theme import palette

ROLES: dict[str, tuple[float, str, str]] = {
    # role: (size as a share of the short side, colour name, weight)
    "title": (0.07, "text", "bold"),
    "text": (0.04, "text", "regular"),
    "muted": (0.03, "muted", "regular"),
}
"""How each kind of line is drawn."""


def notice_image(lines: Sequence[tuple[str, str, str]], *, width: int, height: int, theme: str = "dark") -> Image.Image:
    """An RGB image of ``lines``, each ``(words, role of ROLES, language)``, centred under the beads."""
    pal = palette(theme)
    img = Image.new("RGB", (width, height), pal["background"])
    d = ImageDraw.Draw(img)
    short = min(width, height)
    bead = max(6, round(short * 0.06))
    sized = []
    for words, role, lang in lines:
        share, colour, weight = ROLES[role]
        size = fonts.fit_size(words, width * 0.9, max(8, round(short * share)), lang=lang, weight=weight, min_size=8)
        sized.append((words, size, pal[colour], lang, weight, 1.55 if lang in ("th", "my", "lo", "vi") else 1.35))
    total = bead * 1.8 + sum(size * pitch for _, size, _, _, _, pitch in sized)
    y = (height - total) / 2
    gap = bead * 0.35
    left = (width - 3 * bead - 2 * gap) / 2
    for i, colour in enumerate(("banker", "player", "tie")):
        x = left + i * (bead + gap)
        d.ellipse((x, y, x + bead, y + bead), fill=pal[colour])
    y += bead * 1.8
    for words, size, colour, lang, weight, pitch in sized:
        fonts.draw_text(d, (width / 2, y + size * pitch / 2), words, size=size, fill=colour, lang=lang,
                        weight=weight, anchor="mm")
        y += size * pitch
    return img


def notice_png(lines: Sequence[tuple[str, str, str]], *, width: int, height: int, theme: str = "dark") -> bytes:
    """:func:`notice_image` as PNG bytes (the theme's palette, as the boards)."""
    return encode_png(notice_image(lines, width=width, height=height, theme=theme), theme=theme)
