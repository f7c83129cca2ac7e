"""The Pillow painter's fast paths (web/render/paint_png.py) change no pixel: road cells pasted as
opaque sprites equal cells blended over the painted grid, and the fixed-palette PNG keeps every
theme colour exact (sampled back from the decoded image)."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from support.feed import dealt_rounds
from web.render import paint_png
from web.render.model import BoardOptions, board_model
from web.render.tiles import lobby_model
from web.render.theme import COLOUR_NAMES, DIM_ALPHA, THEMES


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory):
    from support.feed import close_app, make_app
    from web.service import get_service

    app = make_app(tmp_path_factory.mktemp("paint") / "data")
    client = app.test_client()
    for i, (p, b) in enumerate(dealt_rounds(70, seed=11), 1):
        r = client.post("/api/tables/T1/rounds", json={"shoe": 1, "round": i, "player": p, "banker": b},
                        headers={"Authorization": "Bearer test-token"})
        assert r.status_code == 201
    snap = get_service(app).read.snapshot("T1")
    close_app(app)
    return snap


def _blended(img, cell, r, pal, glyphs, lang, ox, oy):
    """The plain path: every road cell's RGBA sprite blended over what is painted."""
    paint_png._paint_cell(img, cell, pal, glyphs, lang, ox, oy, pal["cell"])


MODELS = [
    dict(width=1920, height=1080), dict(width=1080, height=1920), dict(kind="embed", width=600, height=300),
    dict(kind="tile", width=620, height=500), dict(kind="embed", width=800, height=450, bead="total"),
]


@pytest.mark.parametrize("theme", sorted(THEMES))
@pytest.mark.parametrize("stale", [False, True])
@pytest.mark.parametrize("spec", range(len(MODELS) + 1))
def test_opaque_road_cells_paint_the_same_pixels_as_blended_ones(snapshot, monkeypatch, theme, stale, spec):
    if spec == len(MODELS):
        opts = BoardOptions(kind="tile", width=1920, height=1080, theme=theme, min_text=24, extra={"screen": True})
        model = lobby_model([(snapshot, "2024-01-01T00:00:00Z", stale)] * 6, opts, title=None, page=1, pages=1)
    else:
        model = board_model(snapshot, BoardOptions(theme=theme, **MODELS[spec]), stale=stale,
                            last_at="2024-01-01T00:00:00Z")
    fast = paint_png.paint(model)
    monkeypatch.setattr(paint_png, "_paint_road_cell", _blended)
    plain = paint_png.paint(model)
    assert fast.tobytes() == plain.tobytes()


@pytest.mark.parametrize("theme", sorted(THEMES))
def test_the_fixed_palette_png_keeps_every_theme_colour_exact(theme):
    """Every colour of the theme comes back exact; the dimmed road colours (a silent feed) within
    4 levels, the width of a slot of Pillow's palette cache (some fall in one slot together)."""
    pal = THEMES[theme]
    bg = pal["background"]
    colours = [pal[n] for n in COLOUR_NAMES]
    dimmed = [tuple(round(bg[k] + (c[k] - bg[k]) * DIM_ALPHA) for k in range(3)) for c in colours]
    img = Image.new("RGB", (8 * (len(colours) + len(dimmed)), 8), bg)
    for i, c in enumerate(colours + dimmed):
        img.paste(c, (8 * i, 0, 8 * i + 8, 8))
    back = Image.open(io.BytesIO(paint_png.encode_png(img, theme=theme)))
    assert back.mode == "P"
    back = back.convert("RGB")
    for i, c in enumerate(colours):
        assert back.getpixel((8 * i + 4, 4)) == c, (theme, COLOUR_NAMES[i], c)
    for i, c in enumerate(dimmed, len(colours)):
        got = back.getpixel((8 * i + 4, 4))
        assert max(abs(got[k] - c[k]) for k in range(3)) <= 4, (theme, c, got)


def test_a_painted_board_keeps_its_flat_colours_exact_in_the_png(snapshot):
    """Sampled at the centre of every drawn panel background and every empty road cell."""
    for theme in sorted(THEMES):
        model = board_model(snapshot, BoardOptions(theme=theme))
        pal = THEMES[theme]
        png = Image.open(io.BytesIO(paint_png.encode_png(paint_png.paint(model), theme=theme))).convert("RGB")
        used = {(c["x"], c["y"]) for r in model["roads"] for c in r["cells"]}
        checked = 0
        for r in model["roads"]:
            for col in range(r["cols"]):
                for row in range(r["rows"]):
                    x, y = r["x"] + col * r["cell"], r["y"] + row * r["cell"]
                    if (x, y) not in used:
                        assert png.getpixel((x + r["cell"] // 2, y + r["cell"] // 2)) == pal["cell"]
                        checked += 1
        assert png.getpixel((2, 2)) == pal["background"]
        assert checked > 100


@pytest.mark.parametrize("theme", sorted(THEMES))
@pytest.mark.parametrize("spec", range(len(MODELS) + 1))
def test_painting_onto_the_palette_gives_the_rgb_painting_mapped_onto_it(snapshot, theme, spec):
    """``paint(..., indexed=True)`` (what the PNG routes write) equals the RGB painting mapped onto
    the theme's palette, pixel for pixel; a dimmed board (a silent feed) blends mapped pixels, so
    there it may differ on anti-aliased edges only (under 1 % of the pixels)."""
    if spec == len(MODELS):
        opts = BoardOptions(kind="tile", width=1920, height=1080, theme=theme, min_text=24, extra={"screen": True})
        model = lobby_model([(snapshot, None, False)] * 6, opts, title=None, page=1, pages=1)
    else:
        model = board_model(snapshot, BoardOptions(theme=theme, **MODELS[spec]))
    mapped = paint_png.paint(model).quantize(palette=paint_png.theme_palette(theme), dither=Image.Dither.NONE)
    indexed = paint_png.paint(model, indexed=True)
    assert indexed.mode == "P" and indexed.tobytes() == mapped.tobytes()
    dim = board_model(snapshot, BoardOptions(theme=theme), stale=True, last_at="2024-01-01T00:00:00Z")
    a = paint_png.paint(dim).quantize(palette=paint_png.theme_palette(theme), dither=Image.Dither.NONE).tobytes()
    b = paint_png.paint(dim, indexed=True).tobytes()
    assert sum(x != y for x, y in zip(a, b)) < len(a) // 100


def test_the_routes_write_palette_pngs(client, feed):
    assert feed.round(1, 1, ["4S", "KD", "9H"], ["7C", "JD"]).status_code == 201
    for url in ("/tables/T1/board.png", "/lobby.png", "/tables/T1/roads/big_road.png"):
        resp = client.get(url)
        assert resp.status_code == 200 and Image.open(io.BytesIO(resp.data)).mode == "P", url
