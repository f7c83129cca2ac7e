"""The text pages (error pages, the shoes page) in headless Chromium: Lao and Burmese lines do
not touch, nothing scrolls sideways at 1920x1080 or 1080x1920, screenshots for a person.

Line spacing is checked on pixels: two lines of Lao, the first with the marks that reach
lowest (ຫຼຸ່ມ: subscript lo and vowel u under the consonant) and the second with the marks that
reach highest (ກີ້: vowel ii with a tone mark above it), are drawn in the page's own styles
and the rows of ink are read back; a blank band must separate the two lines. The same probe
at the Latin line height (1.5) shows the marks touching, so the check can fail.

Uses Debian's ``/usr/bin/chromium`` through Playwright, like tests/web/test_browser.py
(skips when Chromium or Playwright is missing, unless ``ROADS_TEST_REQUIRE_BROWSER=1``).
Screenshots go to ``artifacts/`` (git-ignored).
"""

from __future__ import annotations

import io
import os
import shutil
from pathlib import Path

import pytest

from support.serving import serve_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
SIZES = [(1920, 1080), (1080, 1920)]
ROUND_B = {"player": ["4S", "KD", "9H"], "banker": ["7C", "JD"]}

PROBE_PX = 40
"""Font size of the line-spacing probe (px)."""


@pytest.fixture(scope="module")
def browser():
    required = os.environ.get("ROADS_TEST_REQUIRE_BROWSER") == "1"
    reason = None
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        reason = f"Chromium not found at {CHROMIUM}"
    else:
        try:
            from playwright.sync_api import sync_playwright
        except ImportError:
            reason = "python package 'playwright' is not installed"
    if reason:
        if required:
            pytest.fail(f"ROADS_TEST_REQUIRE_BROWSER=1 but {reason}")
        pytest.skip(reason)
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def live(app, feed):
    for n in (1, 2):
        assert feed.round(1, n, **ROUND_B).status_code == 201
    assert feed.shoe(2).status_code == 201
    assert feed.round(2, 1, **ROUND_B).status_code == 201
    with serve_app(app, "text-pages-server") as srv:
        yield f"http://127.0.0.1:{srv.server_port}"


def open_page(browser, url, width=1920, height=1080):
    page = browser.new_page(viewport={"width": width, "height": height},
                            extra_http_headers={"Accept": "text/html"})
    page.goto(url)
    page.evaluate("document.fonts.ready.then(() => true)")
    return page


def ink_rows(png: bytes) -> list[bool]:
    """Per pixel row of a black-on-white screenshot: does it hold any ink? The outer 4 px are
    left out (an element screenshot may take in a sliver of the page around it)."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("L")
    w, h = image.size
    px = image.load()
    edge = 4
    return [edge <= y < h - edge and any(px[x, y] < 160 for x in range(edge, w - edge)) for y in range(h)]


def _ink_of(page, lang: str, first: str, second: str, line_height: str | None) -> list[int]:
    """Inked pixel rows of a two-line probe drawn in the page's styles."""
    page.evaluate("""([lang, first, second, lh, px]) => {
        const p = document.createElement('p');
        p.id = 'probe'; p.lang = lang;
        Object.assign(p.style, {fontSize: px + 'px', background: '#fff', color: '#000', margin: '0',
                                padding: '40px', position: 'absolute', left: '0', top: '0', zIndex: '99',
                                whiteSpace: 'nowrap', fontWeight: '700'});
        if (lh) p.style.lineHeight = lh;
        p.append(first, document.createElement('br'), second);
        document.getElementById('probe')?.remove();
        document.body.append(p);
    }""", [lang, first, second, line_height, PROBE_PX])
    page.evaluate("document.fonts.ready.then(() => true)")
    return [y for y, ink in enumerate(ink_rows(page.locator("#probe").screenshot())) if ink]


def gap_between_lines(page, lang: str, first: str, second: str, line_height: str | None = None) -> int:
    """Blank pixel rows between the lowest ink of line 1 and the highest ink of line 2, each
    drawn alone in the same two-line box (the other line a no-break space); negative: overlap."""
    nbsp = "\u00a0"
    above = _ink_of(page, lang, first, nbsp, line_height)
    below = _ink_of(page, lang, nbsp, second, line_height)
    assert above and below, "probe drew nothing"
    return min(below) - max(above) - 1


@pytest.mark.parametrize("lang, low, high", [
    ("lo", "ຫຼຸ່ມ ຜູ້ຫຼິ້ນ", "ກີ້ ເຈົ້າມື"),
    ("my", "ကျွန်ုပ် ရွှေ", "ကြိုး ဒိုင်"),
])
def test_lines_of_stacked_marks_do_not_touch(browser, live, lang, low, high):
    page = open_page(browser, f"{live}/tables/nosuch?lang={lang}")
    try:
        gap = gap_between_lines(page, lang, low, high)
        assert gap >= 0.1 * PROBE_PX, f"{lang}: {gap} px between the lines at {PROBE_PX} px"
        if lang == "lo":   # the control: at the Latin spacing the Lao marks meet
            assert gap_between_lines(page, lang, low, high, line_height="1.5") <= 0
    finally:
        page.close()


@pytest.mark.parametrize("lang", ["lo", "my"])
def test_text_of_lao_and_burmese_pages_gets_the_taller_line_height(browser, live, lang):
    page = open_page(browser, f"{live}/tables/T1/shoes?lang={lang}")
    try:
        for selector in ("body", "table.shoes-table td", "p.shoes-note"):
            size, height = page.evaluate("""(sel) => { const s = getComputedStyle(document.querySelector(sel));
                return [parseFloat(s.fontSize), parseFloat(s.lineHeight)]; }""", selector)
            assert height == pytest.approx(1.8 * size, abs=0.5), (selector, size, height)
    finally:
        page.close()


@pytest.mark.parametrize("width, height", SIZES)
@pytest.mark.parametrize("name, path", [
    ("shoes", "/tables/T1/shoes"),
    ("shoes-lo-light", "/tables/T1/shoes?lang=lo&theme=light"),
    ("error-404-th", "/tables/nosuch?lang=th"),
    ("error-400-my", "/tables/T1?theme=x&lang=my"),
])
def test_text_pages_fit_the_width_and_are_kept_as_screenshots(browser, live, name, path, width, height):
    page = open_page(browser, f"{live}{path}", width, height)
    try:
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        box = page.evaluate("({sw: document.documentElement.scrollWidth, iw: innerWidth})")
        assert box["sw"] <= box["iw"], f"{name} at {width}x{height}: {box['sw']} px wide"
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{name}-{width}x{height}.png"))
        assert errors == []
    finally:
        page.close()
