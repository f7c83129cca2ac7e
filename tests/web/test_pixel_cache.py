"""Pixel caches bounded by bytes (web/render/pixel_cache.py): a soak met new texts for hours and
the entry-bounded caches of text masks and inked text grew all the while (docs/history.md)."""

from __future__ import annotations

from PIL import Image, ImageDraw

from web.render import fonts, paint_png
from web.render.pixel_cache import ENTRY_BYTES, TEXT_SPRITES, PixelCache, pixel_bytes, pixel_lru


def test_an_entry_costs_its_pixels_and_a_fixed_overhead():
    assert pixel_bytes(Image.new("RGBA", (10, 20))) == ENTRY_BYTES + 10 * 20 * 4
    assert pixel_bytes(Image.new("L", (7, 3))) == ENTRY_BYTES + 21
    assert pixel_bytes((Image.new("L", (4, 4)), None, 3, (Image.new("RGB", (2, 5)),))) == ENTRY_BYTES + 16 + 30
    assert pixel_bytes(1.5) == ENTRY_BYTES


def test_a_function_cache_keeps_the_most_recent_within_its_bytes():
    budget = 3 * (ENTRY_BYTES + 100 * 100)  # three 100x100 "L" masks exactly
    calls: list[int] = []

    @pixel_lru(budget)
    def mask(n: int) -> Image.Image:
        calls.append(n)
        return Image.new("L", (100, 100), n)

    for n in (1, 2, 3):
        mask(n)
    mask(1)  # 1 is now the most recent: 2 is the oldest
    mask(4)  # 2 goes
    assert mask.cache.currsize == budget
    calls.clear()
    for n in (1, 3, 4):
        assert mask(n).getpixel((0, 0)) == n
    assert calls == []
    mask(2)
    assert calls == [2]
    assert mask.cache.currsize <= budget


def test_a_value_larger_than_the_budget_is_drawn_and_not_kept():
    @pixel_lru(ENTRY_BYTES + 100)
    def big(n: int) -> Image.Image:
        return Image.new("L", (20, 20), n)

    assert big(5).size == (20, 20)
    assert big.cache.currsize == 0 and len(big.cache) == 0

    cache = PixelCache(ENTRY_BYTES + 100)
    cache.put("k", Image.new("L", (20, 20)))
    assert cache.get("k") is None and len(cache) == 0


def test_many_new_texts_stay_within_the_text_budget(monkeypatch):
    """400 different headings at 60 px (about 14 MB of masks): the text cache, here with a 2 MB
    budget so the test is quick, never holds more, and every text is still drawn."""
    small = pixel_lru(2 * 1024 * 1024)(fonts._text_sprite.__wrapped__)
    monkeypatch.setattr(fonts, "_text_sprite", small)
    held = 0
    for i in range(400):
        img = Image.new("L", (900, 80))
        fonts.draw_text(ImageDraw.Draw(img), (10, 70), f"Shoe {i} 12:{i % 60:02d} Banker", size=60, fill=255)
        assert img.getbbox() is not None
        held += pixel_bytes(small(f"Shoe {i} 12:{i % 60:02d} Banker", 60, "en", "bold", 0))
        assert small.cache.currsize <= 2 * 1024 * 1024
    assert held > 5 * 2 * 1024 * 1024
    assert len(small.cache) < 400


def test_the_renderers_image_caches_are_bounded_by_bytes():
    for fn in (fonts._text_sprite, paint_png._mask, paint_png._text_mask, paint_png._sprite, paint_png._opaque,
               paint_png._opaque_indexed):
        assert fn.cache.maxsize <= TEXT_SPRITES, fn
        assert fn.cache.getsizeof is pixel_bytes or fn.cache.getsizeof(Image.new("L", (10, 10))) == ENTRY_BYTES + 100
    assert isinstance(paint_png._INK, PixelCache) and isinstance(paint_png._FLAT, PixelCache)
