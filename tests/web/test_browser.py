"""End to end in headless Chromium: pages render the roads as SVG, rounds posted through the
real feed API appear within 2 s (big road and bead plate; lobby tiles), a new shoe clears
the board, a dropped connection reconnects and resyncs.

Uses Debian's ``/usr/bin/chromium`` through Playwright (never a downloaded browser). Skips
with the reason when Chromium or Playwright is missing, unless ``ROADS_TEST_REQUIRE_BROWSER=1``
(CI), then fails. Screenshots go to ``artifacts/`` (git-ignored) for a person to look at.

Hands (worked by hand from the tableau, docs/domain.md section 1):
ROUND_B Banker 7-3 (Player 4+0 draws 9 -> 3), ROUND_P_NATURAL Player natural 9 beats 7,
ROUND_TIE natural 9 each, ROUND_B_PAIR Banker 3H 3S (pair) = 6 stands ... Player 8 natural wins.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import requests

from support.serving import serve_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
APPEAR_MS = 2000
"""docs/frontend.md "Tests": a posted round must show on the open page within 2 s."""

ROUND_B = {"player": ["4S", "KD", "9H"], "banker": ["7C", "JD"]}
ROUND_P_NATURAL = {"player": ["9C", "KH"], "banker": ["5D", "2S"]}
ROUND_TIE = {"player": ["9D", "KC"], "banker": ["9S", "QH"]}
ROUND_P_NATURAL_BANKER_PAIR = {"player": ["8C", "KS"], "banker": ["3H", "3S"]}


def _browser_or_skip():
    required = os.environ.get("ROADS_TEST_REQUIRE_BROWSER") == "1"
    reason = None
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        reason = f"Chromium not found at {CHROMIUM} (Debian package 'chromium'; .ci/run installs it)"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            reason = "python package 'playwright' is not installed (pip install -e '.[test]')"
    if reason:
        if required:
            pytest.fail(f"ROADS_TEST_REQUIRE_BROWSER=1 but {reason}")
        pytest.skip(reason)


@pytest.fixture(scope="module")
def playwright():
    """Playwright for the module (one instance: the sync API allows one per thread)."""
    _browser_or_skip()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="module")
def browser(playwright):
    """One headless Chromium for the module."""
    b = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield b
    b.close()


DEJAVU_DIR = Path("/usr/share/fonts/truetype/dejavu")
ONLY_DEJAVU_FONTS_CONF = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <dir>{dejavu}</dir>
  <cachedir>{cache}</cachedir>
  <config></config>
</fontconfig>
"""


@pytest.fixture(scope="module")
def bare_browser(playwright, tmp_path_factory):
    """Chromium as on a fresh machine: fontconfig knows only DejaVu (no Noto, no CJK font), so
    whatever the pages show in other scripts comes from the fonts they bundle."""
    if not DEJAVU_DIR.is_dir():
        pytest.skip(f"{DEJAVU_DIR} not found (Debian package fonts-dejavu-core)")
    folder = tmp_path_factory.mktemp("fontconfig")
    conf = folder / "fonts.conf"
    conf.write_text(ONLY_DEJAVU_FONTS_CONF.format(dejavu=DEJAVU_DIR, cache=folder / "cache"), encoding="utf-8")
    b = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS,
                                   env={**os.environ, "FONTCONFIG_FILE": str(conf)})
    yield b
    b.close()


@pytest.fixture
def live(app):
    """The test app on a threaded Werkzeug server on 127.0.0.1; yields its base URL."""
    with serve_app(app, "test-browser-server") as srv:
        yield f"http://127.0.0.1:{srv.server_port}"


@pytest.fixture
def feed(live, auth):
    """``feed(table, shoe, round, cards)``: POST a round through the real feed API over HTTP."""
    session = requests.Session()

    def post(table, shoe, number, cards):
        resp = session.post(f"{live}/api/tables/{table}/rounds", json={"shoe": shoe, "round": number, **cards},
                            headers=auth, timeout=10)
        assert resp.status_code == 201, resp.text
        return resp.json()

    yield post
    session.close()


def open_page(browser, url, *, width=1920, height=1080, wait_live=True):
    page = browser.new_page(viewport={"width": width, "height": height})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.wait_for_function("window.__roads && window.__roads.renders >= 1", timeout=10_000)
    if wait_live:
        page.wait_for_function("window.__roads.status === 'live'", timeout=10_000)
    page.js_errors = errors  # type: ignore[attr-defined]
    return page


def shot(page, name):
    ARTIFACTS.mkdir(exist_ok=True)
    page.wait_for_timeout(50)
    page.screenshot(path=str(ARTIFACTS / name))


def cell(road, x, y):
    return f'svg#board [data-road="{road}"][data-x="{x}"][data-y="{y}"]'


def test_posted_round_appears_in_big_road_and_bead_plate_within_2_s(browser, live, feed):
    feed("T1", 1, 1, ROUND_B)
    page = open_page(browser, f"{live}/tables/T1")
    try:
        assert page.locator(cell("big_road", 0, 0)).get_attribute("data-winner") == "B"
        assert page.locator(cell("big_road", 1, 0)).count() == 0
        feed("T1", 1, 2, ROUND_P_NATURAL)
        # Player after Banker: a new big-road column; the bead plate goes down column 0.
        big = page.wait_for_selector(cell("big_road", 1, 0) + '[data-winner="P"]', timeout=APPEAR_MS)
        bead = page.wait_for_selector(cell("bead_plate", 0, 1) + '[data-winner="P"]', timeout=APPEAR_MS)
        assert big.get_attribute("data-round") == bead.get_attribute("data-round") == "2"
        # The newest cell is highlighted; the older one is not.
        assert "fresh" in big.get_attribute("class")
        assert "fresh" not in page.locator(cell("big_road", 0, 0)).get_attribute("class")
        # Natural mark on the new cell; symbols: hollow ring in the big road, filled bead with its letter.
        assert big.query_selector("circle.natural-dot") is not None
        assert big.query_selector("circle.ring.P") is not None
        assert bead.query_selector("circle.bead.P") is not None
        assert bead.query_selector("text.bead-letter").text_content() == "P"
        # A tie: slash on the last big-road cell, a green bead of its own.
        feed("T1", 1, 3, ROUND_TIE)
        page.wait_for_selector(cell("big_road", 1, 0) + '[data-ties="1"] line.tie-slash', timeout=APPEAR_MS)
        page.wait_for_selector(cell("bead_plate", 0, 2) + '[data-winner="T"]', timeout=APPEAR_MS)
        # Player natural with a banker pair: red dot top-left of the big-road cell.
        feed("T1", 1, 4, ROUND_P_NATURAL_BANKER_PAIR)
        big4 = page.wait_for_selector(cell("big_road", 1, 1) + '[data-winner="P"]', timeout=APPEAR_MS)
        dot = big4.query_selector("circle.pair-dot.B")
        assert dot is not None and float(dot.get_attribute("cx")) < float(big4.get_attribute("data-size")) / 2
        assert page.locator("svg#board").get_attribute("data-version") == str(page.evaluate("window.__roads.version"))
        assert page.js_errors == []  # type: ignore[attr-defined]
        shot(page, "table_landscape_dark.png")
    finally:
        page.close()


def test_lobby_tile_updates_and_new_tables_appear_within_2_s(browser, live, feed):
    feed("T1", 1, 1, ROUND_B)
    page = open_page(browser, f"{live}/lobby")
    try:
        tile = '.tile[data-table="T1"] [data-road="big_road"]'
        assert page.locator(tile).count() == 1
        feed("T1", 1, 2, ROUND_P_NATURAL)
        page.wait_for_selector(f'{tile}[data-x="1"][data-y="0"][data-winner="P"]', timeout=APPEAR_MS)
        feed("T2", 1, 1, ROUND_TIE)  # a table's first round creates it: a new tile
        page.wait_for_selector('.tile[data-table="T2"] [data-road="big_road"][data-winner="T"]', timeout=APPEAR_MS)
        assert page.locator(".tile").count() == 2
        assert page.locator('.tile[data-table="T2"]').get_attribute("href") == "/tables/T2"
        assert page.js_errors == []  # type: ignore[attr-defined]
        shot(page, "lobby_dark.png")
    finally:
        page.close()


def test_a_new_shoe_clears_the_board_at_once(browser, live, feed):
    for n, cards in enumerate([ROUND_B, ROUND_P_NATURAL, ROUND_B, ROUND_B], start=1):
        feed("T1", 1, n, cards)
    page = open_page(browser, f"{live}/tables/T1")
    try:
        assert page.locator('svg#board [data-road="big_road"]').count() == 4
        feed("T1", 2, 1, ROUND_P_NATURAL)
        page.wait_for_selector('svg#board[data-shoe="2"]', timeout=APPEAR_MS)
        assert page.locator('svg#board [data-road="big_road"]').count() == 1
        assert page.locator('svg#board [data-road="bead_plate"]').count() == 1
        assert page.locator('svg#board .fresh').count() == 0  # cleared, not highlighted
        assert page.evaluate("window.__roads.shoeChanges") == 1
    finally:
        page.close()


def test_dropped_connection_reconnects_and_resyncs_from_the_full_snapshot(browser, live, feed):
    feed("T1", 1, 1, ROUND_B)
    page = open_page(browser, f"{live}/tables/T1")
    try:
        # Drop the socket from the client side and post two rounds while it is down.
        page.evaluate("window.__roadsLive.minDelay = 300; window.__roadsLive.ws.close()")
        feed("T1", 1, 2, ROUND_P_NATURAL)
        feed("T1", 1, 3, ROUND_P_NATURAL)
        page.wait_for_selector(cell("big_road", 1, 1) + '[data-round="3"]', timeout=10_000)
        page.wait_for_function("window.__roads.status === 'live'", timeout=10_000)
        assert page.evaluate("window.__roads.version") == page.evaluate(
            "fetch('/api/tables/T1').then(r => r.json()).then(s => s.version)")
        assert page.evaluate("window.__roads.resyncs") >= 1  # version jumped by 2
    finally:
        page.close()


def test_past_shoe_page_draws_the_old_shoe_and_is_not_live(browser, live, feed):
    feed("T1", 1, 1, ROUND_B)
    feed("T1", 1, 2, ROUND_P_NATURAL)
    feed("T1", 2, 1, ROUND_TIE)
    page = open_page(browser, f"{live}/tables/T1/shoes/1?theme=light", wait_live=False)
    try:
        assert page.locator('svg#board[data-shoe="1"] [data-road="big_road"]').count() == 2
        assert page.locator('[data-field="status"]').get_attribute("data-status") == "past"
        assert page.evaluate("window.__roadsLive === undefined")
        shot(page, "past_shoe_light.png")
    finally:
        page.close()


def _deal_some(live, auth, table, rounds, seed):
    """Post a rule-dealt shoe start and its first ``rounds`` rounds (roads.simulator) to the feed."""
    import itertools

    from roads.simulator import feed_request, simulate

    with requests.Session() as session:
        for message in itertools.islice(simulate(table, seed=seed, shoes=1), rounds + 1):
            req = feed_request(message)
            resp = session.post(f"{live}{req.path}", json=req.body, headers=auth, timeout=10)
            assert resp.status_code == 201, resp.text


def test_screenshots_portrait_light_burmese_thai_and_embed(browser, live, auth):
    """Not a pixel test: renders the layouts a person checks in artifacts/, with basic sanity checks."""
    _deal_some(live, auth, "T1", 30, seed=11)
    _deal_some(live, auth, "T2", 12, seed=12)
    # Portrait, light theme.
    page = open_page(browser, f"{live}/tables/T1?theme=light", width=1080, height=1920)
    try:
        assert page.locator("svg#board").get_attribute("data-orientation") == "portrait"
        shot(page, "table_portrait_light.png")
    finally:
        page.close()
    # Burmese labels: the header says shoe and round in Burmese, and the text fits its panel.
    page = open_page(browser, f"{live}/tables/T1?lang=my")
    try:
        details = page.locator('[data-field="details"]').text_content()
        assert "ဖဲထုပ်ပေးစက် 1" in details and "အလှည့် 30" in details
        assert page.locator('[data-region="side_bets"] text').first.text_content().startswith("ဘေးလောင်းကြေး")
        assert page.js_errors == []  # type: ignore[attr-defined]
        shot(page, "table_landscape_dark_my.png")
    finally:
        page.close()
    page = open_page(browser, f"{live}/lobby?lang=th&theme=light")
    try:
        assert page.locator("h1").text_content() == "ล็อบบี้"
        shot(page, "lobby_light_th.png")
    finally:
        page.close()
    page = open_page(browser, f"{live}/embed/T1?roads=big_road,bead_plate&lang=zh", width=800, height=450)
    try:
        assert page.locator('svg#board [data-road="big_road"]').count() > 0
        assert page.locator('svg#board [data-region="big_eye_boy"]').count() == 0
        shot(page, "embed_light_zh.png")
    finally:
        page.close()


def test_long_shoe_windows_match_roads_window_for_every_road(browser, live, auth):
    """The page shows the same display window as roads.window (whole columns, newest visible)."""
    from roads.window import bead_plate_window, road_window
    from web.render.layout import board_layout

    _deal_some(live, auth, "T1", 75, seed=5)
    snap = requests.get(f"{live}/api/tables/T1", timeout=10).json()
    regions = board_layout(1920, 1080, kind="board")["regions"]
    page = open_page(browser, f"{live}/tables/T1")
    try:
        for road in ("bead_plate", "big_road", "big_eye_boy", "small_road", "cockroach_pig"):
            cols = regions[road]["cols"]
            if road == "bead_plate":
                win = bead_plate_window(snap["bead_plate"], cols)
                expected = sorted((c["x"] + win["offset"], c["y"]) for c in win["cells"])
            else:
                win = road_window(snap[road], cols)
                expected = sorted((c["x"] + win["window"]["offset"], c["y"]) for c in win["cells"])
            drawn = page.eval_on_selector_all(
                f'svg#board .cell[data-road="{road}"]',
                "els => els.map(e => [Number(e.dataset.col), Number(e.dataset.y)])")
            assert sorted(map(tuple, drawn)) == expected, road
        assert page.js_errors == []  # type: ignore[attr-defined]
    finally:
        page.close()


FITS_JS = """() => ({
    scrollW: document.documentElement.scrollWidth, scrollH: document.documentElement.scrollHeight,
    innerW: window.innerWidth, innerH: window.innerHeight,
})"""


def assert_no_scrollbars(page, what):
    box = page.evaluate(FITS_JS)
    assert box["scrollH"] <= box["innerH"], f"{what}: content {box['scrollH']} px tall in a {box['innerH']} px viewport"
    assert box["scrollW"] <= box["innerW"], f"{what}: content {box['scrollW']} px wide in a {box['innerW']} px viewport"


@pytest.mark.parametrize("width, height, orientation", [(1920, 1080, "landscape"), (1080, 1920, "portrait")])
def test_table_page_fits_the_screen_without_scrollbars(browser, live, auth, width, height, orientation):
    """A lobby screen shows the whole board and its link bar: nothing to scroll, the board in view
    (the shoe list and the embed snippet open as overlays, still without scrollbars)."""
    _deal_some(live, auth, "T1", 40, seed=7)
    page = open_page(browser, f"{live}/tables/T1", width=width, height=height)
    try:
        assert page.locator("svg#board").get_attribute("data-orientation") == orientation
        assert_no_scrollbars(page, f"table page {width}x{height}")
        board = page.locator("svg#board").bounding_box()
        bar = page.locator("footer.bar").bounding_box()
        assert board["y"] >= 0 and board["y"] + board["height"] <= bar["y"] + 0.5
        assert bar["y"] + bar["height"] <= height + 0.5
        for overlay in ("embed",):   # the shoes link leads to the shoes page (test_shoes_page.py)
            page.click(f'footer.bar a[data-link="{overlay}"]')
            assert page.locator(f"#{overlay}").is_visible()
            assert_no_scrollbars(page, f"table page {width}x{height} with #{overlay} open")
        page.click('#embed a[data-link="close"]')
        assert not page.locator("#embed").is_visible()
        assert page.js_errors == []  # type: ignore[attr-defined]
    finally:
        page.close()
    page = open_page(browser, f"{live}/tables/T1/shoes/1", width=width, height=height, wait_live=False)
    try:
        assert_no_scrollbars(page, f"past shoe page {width}x{height}")
    finally:
        page.close()


def test_last_result_names_the_winner_then_both_totals_labelled(browser, live, feed):
    """Banker 7-3: "Banker" large, then "Player 3 · Banker 7"; a natural is marked below."""
    feed("T1", 1, 1, ROUND_B)
    page = open_page(browser, f"{live}/tables/T1")
    try:
        panel = '[data-region="last_result"]'
        assert page.locator(f'{panel} [data-field="winner"]').text_content() == "Banker"
        assert page.locator(f'{panel} [data-field="totals"]').text_content() == "Player 3 · Banker 7"
        assert page.locator(f'{panel} [data-field="marks"]').count() == 0
        winner_size = float(page.locator(f'{panel} [data-field="winner"]').get_attribute("font-size"))
        totals_size = float(page.locator(f'{panel} [data-field="totals"]').get_attribute("font-size"))
        assert winner_size > totals_size
        feed("T1", 1, 2, ROUND_P_NATURAL)
        page.wait_for_selector(f'{panel}[data-winner="P"]', timeout=APPEAR_MS)
        assert page.locator(f'{panel} [data-field="totals"]').text_content() == "Player 9 · Banker 7"
        assert page.locator(f'{panel} [data-field="marks"]').text_content() == "Natural"
    finally:
        page.close()
    page = open_page(browser, f"{live}/tables/T1?lang=zh", width=1080, height=1920)
    try:
        assert page.locator('[data-region="last_result"] [data-field="winner"]').text_content() == "闲"
        assert page.locator('[data-region="last_result"] [data-field="totals"]').text_content() == "闲 9 · 庄 7"
    finally:
        page.close()


@pytest.mark.parametrize("tables", [1, 4, 12])
def test_lobby_wall_fits_the_screen_for_any_number_of_tables(browser, live, feed, tables):
    """1, 4 or 12 tables on a 1920x1080 wall (and a 1080x1920 one): every tile in view, no scrollbars."""
    for n in range(1, tables + 1):
        feed(f"T{n}", 1, 1, ROUND_B)
    for width, height in ((1920, 1080), (1080, 1920)):
        page = open_page(browser, f"{live}/lobby", width=width, height=height)
        try:
            assert page.locator(".tile").count() == tables
            assert_no_scrollbars(page, f"lobby of {tables} at {width}x{height}")
            for box in page.eval_on_selector_all(".tile", "els => els.map(e => e.getBoundingClientRect().toJSON())"):
                assert box["left"] >= 0 and box["top"] >= 0
                assert box["right"] <= width + 0.5 and box["bottom"] <= height + 0.5
                assert box["width"] >= 300  # readable tiles
            if (tables, width) == (12, 1920):
                shot(page, "lobby_12_dark.png")
        finally:
            page.close()


CJK_FONT_URL = "/static/fonts/NotoSansSC-Bold.otf"
FONT_PROBE_JS = """async (ch) => {
    const faces = await document.fonts.load('700 40px "Roads Sans"', ch);
    const ctx = document.createElement('canvas').getContext('2d');
    ctx.font = '700 40px "Roads Sans"';
    const roads = ctx.measureText(ch).width;
    ctx.font = '700 40px "DejaVu Sans"';
    return {
        faces: faces.map(f => ({family: f.family, status: f.status, range: f.unicodeRange})),
        check: document.fonts.check('700 40px "Roads Sans"', ch),
        width: roads, dejavuWidth: ctx.measureText(ch).width,
        fetched: performance.getEntriesByType('resource').map(e => new URL(e.name).pathname),
    };
}"""


def test_chinese_renders_with_the_bundled_font_on_a_machine_without_cjk_fonts(bare_browser, live, feed):
    """On a Chromium that has only DejaVu, the zh table page fetches static/fonts/NotoSansSC-Bold.otf
    (its @font-face unicode-range covers hanzi) and draws 庄/闲/和 with it: full-width (1 em)
    glyphs, not DejaVu's missing-glyph boxes."""
    feed("T1", 1, 1, ROUND_B)
    page = open_page(bare_browser, f"{live}/tables/T1?lang=zh", width=1280, height=720)
    try:
        assert page.locator('[data-region="last_result"] [data-field="winner"]').text_content() == "庄"
        for ch in "庄闲和":
            probe = page.evaluate(FONT_PROBE_JS, ch)
            assert probe["faces"], probe  # a Roads Sans face covers the character and loaded
            assert all(f["status"] == "loaded" and "U+4E00-9FFF" in f["range"].upper() for f in probe["faces"]), probe
            assert probe["check"] is True
            assert abs(probe["width"] - 40) < 0.5, probe  # CJK ideographs advance 1 em
            assert abs(probe["dejavuWidth"] - 40) > 2, probe  # ... which DejaVu's fallback box does not
        assert CJK_FONT_URL in probe["fetched"]
        assert page.js_errors == []  # type: ignore[attr-defined]
        shot(page, "table_zh_bundled_font_only_dejavu.png")
    finally:
        page.close()
    # Without Chinese text on the page nothing fetches the 2.5 MB file (embed: no language links).
    page = open_page(bare_browser, f"{live}/embed/T1?lang=en", width=800, height=450)
    try:
        page.wait_for_timeout(200)
        fetched = page.evaluate("performance.getEntriesByType('resource').map(e => new URL(e.name).pathname)")
        assert CJK_FONT_URL not in fetched
    finally:
        page.close()
