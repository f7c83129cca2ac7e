"""Board images in one call: snapshot -> board model (:mod:`web.render.model`) -> Pillow
painter (:mod:`web.render.paint_png`). Kept for the callers that want an image, not a model
(``roads render``, bench/bench_png.py)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from PIL import Image

from web.render import paint_png
from web.render.model import BoardOptions, ModelError, board_model
from web.render.paint_png import DEFAULT_ENCODING, ENCODINGS, PNG_COMPRESS_LEVEL, encode_png, theme_palette
from web.render.theme import DEFAULT_THEME, THEMES

RenderError = ModelError
"""A display option that cannot be drawn (``field`` names it)."""

__all__ = ["render_board", "render_road", "encode_png", "theme_palette", "THEMES", "DEFAULT_THEME", "RenderError",
           "ENCODINGS", "DEFAULT_ENCODING", "PNG_COMPRESS_LEVEL"]


def render_board(snapshot: Mapping[str, Any], *, width: int = 1920, height: int = 1080, kind: str = "board",
                 roads: Sequence[str] | None = None, columns: int | None = None, theme: str = DEFAULT_THEME,
                 lang: str = "en", **extra: Any) -> Image.Image:
    """The board of ``snapshot`` as an RGB image (options as :class:`web.render.model.BoardOptions`;
    ``extra``: ``last_at``, ``tz``, ``stale`` of :func:`web.render.model.board_model`). Raises
    :class:`ModelError` or :class:`web.render.layout.LayoutError` naming a bad option."""
    facts = {k: extra.pop(k) for k in ("last_at", "tz", "stale") if k in extra}
    opts = BoardOptions.of({}, kind=kind, width=width, height=height, roads=tuple(roads) if roads else None,
                           columns=columns, theme=theme, lang=lang, **extra)
    return paint_png.paint(board_model(snapshot, opts, **facts))


def render_road(snapshot: Mapping[str, Any], road: str, *, width: int = 1200, height: int = 300,
                columns: int | None = None, theme: str = DEFAULT_THEME, lang: str = "en") -> Image.Image:
    """One road as an embed (header strip and that road)."""
    return render_board(snapshot, width=width, height=height, kind="embed", roads=(road,), columns=columns,
                        theme=theme, lang=lang)
