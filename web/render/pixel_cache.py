"""Caches of drawn pixels (text masks, cell sprites, inked text), each bounded by the bytes of the
pixels it holds, least recently used dropped first (``cachetools.LRUCache`` sized by
:func:`pixel_bytes`).

A count of entries does not bound these: one text mask of a 1080p heading holds ~100 times the
pixels of a bead's digit, and a service that draws past shoes, trends and lobbies meets new texts
for as long as it runs, so caches bounded by entries grew for hours (bench/soak_history.py,
docs/history.md "Memory"). The budgets below are the most each cache can hold; a value larger
than its whole budget is drawn and not kept.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import cachetools
from PIL import Image

ENTRY_BYTES = 256
"""What an entry costs besides its pixels (key, tuple, Image object): counted so that a cache of
tiny images is bounded in entries too."""

MB = 1024 * 1024

TEXT_SPRITES = 16 * MB
"""Text drawn as coverage masks (:func:`web.render.fonts._text_sprite`): every label, number and
heading of every board, tile and page."""

CELL_MASKS = 4 * MB
"""Road-cell mark masks and cell text masks (:mod:`web.render.paint_png`), each."""

CELL_SPRITES = 8 * MB
"""Road cells as RGBA sprites and as opaque RGB sprites (:mod:`web.render.paint_png`), each; the
palette-mapped copies (one byte a pixel) get half."""

INKED_TEXT = 8 * MB
"""Text masks in a colour (RGBA) and those over a flat palette colour (:mod:`web.render.paint_png`), each."""

F = TypeVar("F", bound=Callable[..., Any])


def pixel_bytes(value: Any) -> int:
    """Bytes an entry holds: :data:`ENTRY_BYTES` plus ``width * height * bands`` of every Pillow
    image in ``value`` (an image, or a tuple or list of values; other values add nothing)."""
    size = ENTRY_BYTES
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, Image.Image):
            size += v.width * v.height * len(v.getbands())
        elif isinstance(v, (tuple, list)):
            stack.extend(v)
    return size


def pixel_lru(max_bytes: int) -> Callable[[F], F]:
    """Decorator: cache the function's results (keyed by its arguments, like
    ``functools.lru_cache``) up to ``max_bytes`` of :func:`pixel_bytes`, least recently used
    dropped first; thread-safe; the wrapper has ``cache_clear()``, ``cache_info()`` and
    ``cache`` (the ``LRUCache``: ``currsize`` in bytes, ``maxsize``)."""
    return cachetools.cached(cachetools.LRUCache(maxsize=max_bytes, getsizeof=pixel_bytes),
                             lock=threading.Lock(), info=True)


class PixelCache:
    """A thread-safe LRU of images by key, bounded by ``max_bytes`` of :func:`pixel_bytes`."""

    def __init__(self, max_bytes: int) -> None:
        self.cache: cachetools.LRUCache = cachetools.LRUCache(maxsize=max_bytes, getsizeof=pixel_bytes)
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> Any:
        """The value of ``key`` (marked recently used), or ``None``."""
        with self._lock:
            return self.cache.get(key)

    def put(self, key: Hashable, value: Any) -> None:
        """Keep ``value`` under ``key``, dropping the least recently used to fit (a value larger
        than the whole budget is not kept)."""
        with self._lock:
            try:
                self.cache[key] = value
            except ValueError:  # larger than max_bytes
                pass

    def clear(self) -> None:
        """Forget every entry."""
        with self._lock:
            self.cache.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self.cache)
