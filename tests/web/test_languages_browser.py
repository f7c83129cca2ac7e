"""Traditional Chinese, Vietnamese and Korean in headless Chromium: on a machine whose fontconfig
knows only DejaVu, each page draws its words with the fonts it bundles (static/fonts: the TC and
KR subsets, Noto Sans for Vietnamese letters with two marks), and screenshots of a board and a
lobby in each language at 1920x1080 and 1080x1920, with the PNG beside, go to artifacts/ for a
person to look at (artifacts/lang_<lang>_<what>_<w>x<h>.png). The HTML and PNG of these languages
are compared cell by cell and word by word in tests/web/test_browser.py (LANGS)."""

from __future__ import annotations

import pytest

from test_browser import (ARTIFACTS, FONT_PROBE_JS, ROUND_B, ROUND_P_NATURAL, ROUND_TIE, bare_browser, browser,  # noqa: F401
                          feed, live, open_page, playwright, png_of, shot)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _advance(font_url: str, ch: str, size: float) -> float:
    """The advance of ``ch`` at ``size`` px in the bundled file (its hmtx table, read with fontTools)."""
    from fontTools.ttLib import TTFont

    from web.paths import STATIC_DIR

    with TTFont(STATIC_DIR / font_url.removeprefix("/static/"), lazy=True) as f:
        return f["hmtx"][f.getBestCmap()[ord(ch)]][0] / f["head"].unitsPerEm * size


@pytest.mark.parametrize("lang, words, font, face_range", [
    # the bead letters: the TC face's 莊/閒/和, Hangul 뱅/플/타 from the KR subset
    ("zh-Hant", "莊閒和", "/static/fonts/NotoSansTC-Bold.otf", "U+4E00-9FFF"),
    ("ko", "뱅플타", "/static/fonts/NotoSansKR-Bold.otf", "U+AC00-D7AF"),
])
def test_cjk_pages_draw_with_their_bundled_face(bare_browser, live, feed, lang, words, font, face_range):  # noqa: F811
    feed("T1", 1, 1, ROUND_B)
    page = open_page(bare_browser, f"{live}/tables/T1?lang={lang}", width=1280, height=720)
    try:
        family = '"Roads Sans TC"' if lang == "zh-Hant" else '"Roads Sans"'
        for ch in words:
            probe = page.evaluate(FONT_PROBE_JS.replace('"Roads Sans"', family), ch)
            assert probe["faces"] and all(f["status"] == "loaded" and face_range in f["range"].upper()
                                          for f in probe["faces"]), probe
            advance = _advance(font, ch, 40)                           # the bundled face's own width at 40 px
            assert probe["check"] is True and abs(probe["width"] - advance) < 0.5, (probe, advance)
            assert abs(probe["dejavuWidth"] - advance) > 2, probe
        assert font in probe["fetched"]
        assert page.evaluate("getComputedStyle(document.querySelector('svg#board text')).fontFamily").startswith(family)
        assert page.js_errors == []  # type: ignore[attr-defined]
    finally:
        page.close()


def test_vietnamese_letters_with_two_marks_come_from_noto_sans(bare_browser, live, feed):  # noqa: F811
    """ấ ệ ở are in U+1E00-1EFF: the Latin face's unicode-range covers them, so the bundled Noto Sans
    draws them (its own advance widths), not a system fallback."""
    feed("T1", 1, 1, ROUND_P_NATURAL)
    page = open_page(bare_browser, f"{live}/tables/T1?lang=vi", width=1280, height=720)
    try:
        for ch in "ấệở":
            probe = page.evaluate(FONT_PROBE_JS, ch)
            assert probe["faces"] and all(f["status"] == "loaded" and "U+1E00-1EFF" in f["range"].upper()
                                          for f in probe["faces"]), probe
            assert probe["check"] is True and abs(probe["width"] - _advance("/static/fonts/NotoSans-Bold.ttf", ch, 40)) < 0.5, probe
        words = page.evaluate("Array.from(document.querySelectorAll('[data-panel=last_result] text')).map(t => t.textContent)")
        assert words[0] == "Nhà Con"
    finally:
        page.close()


@pytest.mark.parametrize("lang", ["zh-Hant", "vi", "ko"])
def test_screenshots_of_boards_and_lobbies(browser, live, feed, lang):  # noqa: F811
    for n, cards in enumerate([ROUND_B, ROUND_P_NATURAL, ROUND_TIE, ROUND_B, ROUND_P_NATURAL], 1):
        feed("T1", 1, n, cards)
        feed("T2", 1, n, cards if n % 2 else ROUND_B)
    for what, path in (("board", f"/tables/T1?lang={lang}"), ("lobby", f"/lobby?tables=T1,T2&lang={lang}")):
        for w, h in ((1920, 1080), (1080, 1920)):
            page = open_page(browser, live + path, width=w, height=h, wait_live=False)
            assert page.evaluate("document.documentElement.lang") == lang
            shot(page, f"lang_{lang}_{what}_{w}x{h}.png")
            page.close()
            png = "/tables/T1/board.png" if what == "board" else "/lobby.png?tables=T1,T2"
            sep = "&" if "?" in png else "?"
            png_of(live, f"{png}{sep}lang={lang}&width={w}&height={h}").save(ARTIFACTS / f"lang_{lang}_{what}_{w}x{h}_png.png")
