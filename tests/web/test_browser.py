"""End to end in headless Chromium: the pages paint the board model as SVG, the same model the
PNG routes paint with Pillow, and both show the same thing (words of every panel, position and
colour of every road cell) for every board kind and language; lobby screens are sized for
distance (text heights measured in the browser), page and rotate; rounds posted through the real
feed API appear within 2 s, the newest stays marked, a silent server dims the board.

Uses Debian's ``/usr/bin/chromium`` through Playwright (never a downloaded browser). Skips
with the reason when Chromium or Playwright is missing, unless ``ROADS_TEST_REQUIRE_BROWSER=1``
(CI), then fails. Screenshots go to ``artifacts/`` (git-ignored) for a person to look at.

Hands (worked by hand from the tableau, docs/domain.md section 1):
ROUND_B Banker 7-3 (Player 4+0 draws 9 -> 3), ROUND_P_NATURAL Player natural 9 beats 7,
ROUND_TIE natural 9 each, ROUND_B_PAIR Banker 3H 3S (pair) = 6 stands ... Player 8 natural wins.
"""

from __future__ import annotations

import re

import os
import shutil
from pathlib import Path

import pytest
import requests

from support.feed import close_app, dealt_rounds, make_app
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
    # bypass_csp: Playwright polls a string predicate with eval, which the pages' CSP forbids
    # (tests/web/test_security_headers.py checks the CSP itself in Chromium).
    page = browser.new_page(viewport={"width": width, "height": height}, bypass_csp=True)
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

def page_dom(page):
    """What the page's SVG shows: ``{"panels": {scope: [words]}, "cells": {scope: [(key, shape,
    colour name, cx, cy, rgb)]}, "scale"}``; scope is ``road id`` or ``tile/road id`` (canvas px)."""
    return page.evaluate("""() => {
      const svg = document.querySelector('svg#board');
      const box = svg.getBoundingClientRect(), vb = svg.viewBox.baseVal;
      const scale = Math.min(box.width / vb.width, box.height / vb.height);
      const ox = box.left + (box.width - vb.width * scale) / 2, oy = box.top + (box.height - vb.height * scale) / 2;
      const scope = (el) => { const t = el.closest('[data-tile]'); return t ? t.getAttribute('data-tile') + '/' : ''; };
      const panels = {}, cells = {};
      svg.querySelectorAll('[data-panel]').forEach(p => {
        if (p.getAttribute('data-panel') === 'offline') return;
        const key = scope(p) + p.getAttribute('data-panel');
        panels[key] = Array.from(p.querySelectorAll(':scope > text')).map(t => t.textContent);
      });
      svg.querySelectorAll('[data-road]').forEach(r => {
        const key = scope(r) + r.getAttribute('data-road');
        cells[key] = Array.from(r.querySelectorAll(':scope > g.cell')).map(g => {
          const main = g.querySelector('.main');
          const b = main.getBoundingClientRect();
          const cs = getComputedStyle(main);
          const paint = ['ring', 'eye', 'slash', 'tie'].includes(g.getAttribute('data-m')) ? cs.stroke : cs.fill;
          return [g.getAttribute('data-k'), g.getAttribute('data-m'), g.getAttribute('data-c'),
                  ((b.left + b.right) / 2 - ox) / scale, ((b.top + b.bottom) / 2 - oy) / scale, paint];
        });
      });
      return {panels, cells, scale};
    }""")


def rgb(css):
    return tuple(int(v) for v in css[css.index("(") + 1:css.index(")")].split(",")[:3])


def model_scopes(model):
    """``(panels, cells, offsets)`` of a model like :func:`page_dom` (tiles flattened)."""
    panels, cells = {}, {}
    subs = [("", model, 0, 0)] + [(f"{t['id']}/", t["model"], t["x"], t["y"]) for t in model.get("tiles", [])]
    for prefix, m, ox, oy in subs:
        for p in m["panels"]:
            panels[prefix + p["id"]] = [i["t"] for i in p["items"] if i["p"] == "t" and i["t"]]
        for r in m["roads"]:
            cells[prefix + r["id"]] = [dict(c, x=c["x"] + ox, y=c["y"] + oy) for c in r["cells"]]
    return panels, cells


def close(a, b, tol=36):
    return all(abs(x - y) <= tol for x, y in zip(a, b))


def compare(page, model, png, theme_name):
    """The page's SVG and the PNG both show ``model``: same words per panel, cells at the same
    places with the palette colour of their name."""
    from web.render.cells import probe
    from web.render.theme import THEMES

    pal = THEMES[theme_name]
    dom = page_dom(page)
    panels, cells = model_scopes(model)
    assert dom["panels"] == panels
    assert set(dom["cells"]) == set(cells)
    covers = [(p["x"] + ox, p["y"] + oy, p["w"], p["h"]) for m, ox, oy in
              [(model, 0, 0)] + [(t["model"], t["x"], t["y"]) for t in model.get("tiles", [])]
              for p in m["panels"] if p["id"] == "banner"]   # bands drawn over everything (alerts, stale)
    checked = 0
    for scope, want in cells.items():
        got = dom["cells"][scope]
        assert [(str(c["k"]), c["m"], c["c"]) for c in want] == [tuple(g[:3]) for g in got], scope
        for c, g in zip(want, got):
            cx, cy = c["x"] + c["s"] / 2, c["y"] + c["s"] / 2
            assert abs(g[3] - cx) < 2 and abs(g[4] - cy) < 2, (scope, c, g)  # same place on the page
            assert close(rgb(g[5]), pal[c["c"]], 2), (scope, c, g)  # the palette colour on the page
            px, py = probe(c)
            if any(x <= px < x + w and y <= py < y + h for x, y, w, h in covers):
                continue  # under a band: the PNG shows the band there
            assert close(png.getpixel((int(px), int(py))), pal[c["c"]]), (scope, c)  # and in the PNG
            checked += 1
    return checked


def seeded_app(tmp_path, tables=12, **extra):
    names = {f"T{i}": {"name": f"Table {i}"} for i in range(1, tables + 1)}
    app = make_app(tmp_path / "data", ROADS_TABLES=names, ROADS_VENUE_TZ="Asia/Bangkok", **extra)
    client = app.test_client()
    for k in range(1, tables + 1):
        for i, (p, b) in enumerate(dealt_rounds(18 + 3 * k, seed=k), 1):
            r = client.post(f"/api/tables/T{k}/rounds", json={"shoe": 1, "round": i, "player": p, "banker": b},
                            headers={"Authorization": "Bearer test-token"})
            assert r.status_code == 201
    return app


@pytest.fixture(scope="module")
def wall(tmp_path_factory):
    """Twelve tables of dealt rounds on a served app (module-wide); yields ``(app, base URL)``."""
    app = seeded_app(tmp_path_factory.mktemp("wall"))
    with serve_app(app, "test-browser-wall") as srv:
        yield app, f"http://127.0.0.1:{srv.server_port}"
    close_app(app)


def png_of(base, path):
    import io

    from PIL import Image

    r = requests.get(base + path, timeout=30)
    assert r.status_code == 200, r.text
    return Image.open(io.BytesIO(r.content)).convert("RGB")


LANGS = ["en", "zh", "th", "my", "lo", "zh-Hant", "vi", "ko"]
KINDS = [
    # (name, page path, model path, png path, viewport, model key)
    ("board", "/tables/T3?lang={lang}", "/tables/T3/model.json?lang={lang}",
     "/tables/T3/board.png?lang={lang}", (1920, 1080), "landscape"),
    ("portrait", "/tables/T4?lang={lang}&theme=light", "/tables/T4/model.json?lang={lang}&theme=light",
     "/tables/T4/board.png?lang={lang}&theme=light&width=1080&height=1920", (1080, 1920), "portrait"),
    ("embed", "/embed/T5?lang={lang}&w=600&h=300", "/embed/T5/model.json?lang={lang}&w=600&h=300",
     "/tables/T5/board.png?kind=embed&theme=light&lang={lang}&width=600&height=300", (600, 300), "fixed"),
    ("lobby", "/lobby?tables=T1,T2,T3,T4,T5,T6&lang={lang}", "/lobby/model.json?tables=T1,T2,T3,T4,T5,T6&lang={lang}&page=1",
     "/lobby.png?tables=T1,T2,T3,T4,T5,T6&lang={lang}", (1920, 1080), "landscape"),
]


def page_model_png(browser, base: str, row: tuple, lang: str):
    """``(page, model, png)`` of one ``KINDS`` row ``(name, page path, model path, png path,
    viewport, model key)`` in ``lang``: the page opened at the row's viewport, the model the page
    paints (the row's key of the model JSON) and the PNG, checked to be the model's size."""
    _, page_path, model_path, png_path, (w, h), key = row
    page = open_page(browser, base + page_path.format(lang=lang), width=w, height=h, wait_live=False)
    page.wait_for_timeout(300)
    model = requests.get(base + model_path.format(lang=lang), timeout=30).json()["models"][key]
    png = png_of(base, png_path.format(lang=lang))
    assert png.size == (model["w"], model["h"])
    return page, model, png


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("kind", [k[0] for k in KINDS])
def test_html_and_png_show_the_same_board(browser, wall, kind, lang):
    _, base = wall
    page, model, png = page_model_png(browser, base, next(k for k in KINDS if k[0] == kind), lang)
    assert compare(page, model, png, model["theme"]) > 10
    assert page.js_errors == []
    page.close()


def test_six_table_screen_is_readable_from_five_metres(browser, wall):
    """1920x1080, six tiles: no text under 24 px; name, shoe/round, last result and side-bet line
    at 36 px or more; road cells at least 40 px (measured in the browser)."""
    _, base = wall
    for (w, h) in ((1920, 1080), (1080, 1920)):
        page = open_page(browser, base + "/lobby?tables=T1,T2,T3,T4,T5,T6", width=w, height=h, wait_live=False)
        sizes = page.evaluate("""() => Array.from(document.querySelectorAll('svg#board [data-tile] [data-panel] > text'))
            .filter(t => t.textContent.trim()).map(t => [t.closest('[data-panel]').getAttribute('data-panel'),
              t.getBoundingClientRect().height, parseFloat(t.getAttribute('font-size')) * t.getScreenCTM().a])""")
        assert len(sizes) > 30
        assert min(px for _, _, px in sizes) >= 24, sizes
        big = [px for panel, _, px in sizes if panel in ("line1", "line2", "side_bet")]
        assert min(big) >= 36
        assert min(bh for _, bh, _ in sizes) >= 24  # the rendered line box, not only the font size
        cells = page.evaluate("""() => Array.from(document.querySelectorAll('svg#board [data-tile] g.cell'))
            .map(g => g.querySelector('.main') && g.getBBox && g.closest('[data-road]')).filter(Boolean)
            .map(r => r.querySelector('rect').getBoundingClientRect().height / 6)""")
        assert cells and min(cells) >= 40
        shot(page, f"lobby_6_tables_{w}x{h}.png")
        png_of(base, f"/lobby.png?tables=T1,T2,T3,T4,T5,T6&width={w}&height={h}").save(
            ARTIFACTS / f"lobby_6_tables_{w}x{h}_png.png")
        page.close()


def test_twelve_tables_page_and_rotate(browser, wall):
    _, base = wall
    page = open_page(browser, base + "/lobby?per_page=6&rotate_s=3", wait_live=False)
    first = page.evaluate("Array.from(document.querySelectorAll('[data-tile]')).map(t => t.getAttribute('data-tile'))")
    assert first == ["T1", "T2", "T3", "T4", "T5", "T6"]
    assert page.evaluate("[window.__roads.page, window.__roads.pages]") == [1, 2]
    words = page.evaluate("Array.from(document.querySelectorAll('[data-panel=title] text')).map(t => t.textContent)")
    assert "Page 1/2" in words
    shot(page, "lobby_12_tables_page1.png")
    page.wait_for_function("window.__roads.page === 2", timeout=6000)
    second = page.evaluate("Array.from(document.querySelectorAll('[data-tile]')).map(t => t.getAttribute('data-tile'))")
    assert second == ["T7", "T8", "T9", "T10", "T11", "T12"]
    shot(page, "lobby_12_tables_page2.png")
    page.wait_for_function("window.__roads.page === 1", timeout=6000)  # and round again
    png_of(base, "/lobby.png?per_page=6&page=2").save(ARTIFACTS / "lobby_12_tables_page2_png.png")
    # a screen: no scrollbars, no links, no pointer
    assert page.evaluate("document.documentElement.scrollHeight <= innerHeight && document.querySelectorAll('a').length === 0")
    assert page.evaluate("getComputedStyle(document.body).cursor") == "none"
    page.close()


def test_newest_result_stays_marked_after_the_blink(browser, tmp_path):
    app = seeded_app(tmp_path, tables=1)
    with serve_app(app) as srv:
        base = f"http://127.0.0.1:{srv.server_port}"
        page = open_page(browser, base + "/tables/T1")
        r = requests.post(f"{base}/api/tables/T1/rounds", headers={"Authorization": "Bearer test-token"},
                          json={"shoe": 1, "round": 22, "player": ["9C", "KH"], "banker": ["5D", "2S"]}, timeout=10)
        assert r.status_code == 201
        page.wait_for_function("window.__roads.version === 22", timeout=APPEAR_MS + 1000)
        assert page.evaluate("document.querySelectorAll('[data-road=bead_plate] .cell.arrive').length") == 1
        page.wait_for_timeout(3000)  # the blink (3 x 0.5 s) is over; the mark stays until the next result
        marked = page.evaluate("""() => Array.from(document.querySelectorAll('g.cell.newest'))
            .map(g => [g.closest('[data-road]').getAttribute('data-road'), g.getAttribute('data-k'), !!g.querySelector('.newest-mark')])""")
        roads = {m[0] for m in marked}
        assert {"bead_plate", "big_road"} <= roads and all(m[2] for m in marked)
        assert ["bead_plate", "22", True] in marked
        shot(page, "board_after_last_result.png")
        png_of(base, "/tables/T1/board.png").save(ARTIFACTS / "board_after_last_result_png.png")
        page.close()
    close_app(app)


def test_a_silent_server_dims_the_board_and_says_since_when(browser, tmp_path):
    """``roads serve`` killed under an open board, betting open: after 2 x keepalive the whole
    board dims (header, countdown, panels, roads; not the band), the countdown is hidden, and
    the board says "Offline since hh:mm:ss"; at 0 by the page's clock the countdown says "Bets
    closed" (muted) and stops ticking."""
    from support.serving import ServeProcess

    proc = ServeProcess(tmp_path / "data", {"ROADS_WS_KEEPALIVE_S": "0.5"})
    try:
        base = f"http://{proc.base}"
        for i, (p, b) in enumerate(dealt_rounds(12, seed=4), 1):
            r = requests.post(f"{base}/api/tables/T1/rounds", headers={"Authorization": "Bearer test-token"},
                              json={"shoe": 1, "round": i, "player": p, "banker": b}, timeout=10)
            assert r.status_code == 201
        r = requests.post(f"{base}/api/tables/T1/state", headers={"Authorization": "Bearer test-token"},
                          json={"state": "betting", "seconds_left": 6}, timeout=10)
        assert r.status_code == 201
        page = open_page(browser, base + "/tables/T1")
        assert not page.evaluate("document.documentElement.classList.contains('offline')")
        page.wait_for_function("document.querySelector('[data-cd]') !== null", timeout=5000)
        assert page.evaluate("getComputedStyle(document.querySelector('[data-cd]')).visibility") == "visible"
    finally:
        proc.kill()
    page.wait_for_function("document.documentElement.classList.contains('offline')", timeout=5000)
    text = page.evaluate("document.querySelector('.offline-text').textContent")
    assert text.startswith("Offline since ") and len(text.split()[-1]) == 8
    assert page.evaluate("getComputedStyle(document.querySelector('svg .model')).opacity") == "0.35"
    assert page.evaluate("getComputedStyle(document.querySelector('svg .offline-band')).opacity") == "1"
    assert page.evaluate("document.querySelector('svg .model [data-panel=header]') !== null")  # dimmed with it
    assert page.evaluate("getComputedStyle(document.querySelector('[data-cd]')).visibility") == "hidden"
    shot(page, "board_server_stopped.png")
    page.wait_for_function("document.querySelector('[data-cd]') === null", timeout=9000)   # 6 s: closed
    closed = page.evaluate("""() => { const t = Array.from(document.querySelectorAll('[data-panel=header] text'))
        .find(e => e.textContent === 'Bets closed'); return t && t.getAttribute('class'); }""")
    assert closed == "f-muted w-b"
    page.close()


def test_png_of_a_silent_feed_says_so(tmp_path):
    app = seeded_app(tmp_path, tables=1, ROADS_STALE_S=1)
    import time

    time.sleep(1.3)
    with serve_app(app) as srv:
        png_of(f"http://127.0.0.1:{srv.server_port}", "/tables/T1/board.png").save(
            ARTIFACTS / "board_feed_silent_png.png")
    model = app.test_client().get("/tables/T1/model.json").get_json()  # pages say it themselves, not the model
    assert not model["models"]["landscape"]["dim"]
    close_app(app)


def test_embed_at_600_by_300_is_a_labelled_widget(browser, wall):
    _, base = wall
    page = open_page(browser, base + "/embed/T2?w=600&h=300", width=600, height=300, wait_live=False)
    words = page.evaluate("Array.from(document.querySelectorAll('[data-panel=header] text')).map(t => t.textContent)")
    assert words[0] == "Table 2" and "Shoe 1" in words[1]
    sizes = page.evaluate("Array.from(document.querySelectorAll('svg#board text')).filter(t => t.textContent.trim() && !t.closest('.offline-band')).map(t => parseFloat(t.getAttribute('font-size')) * t.getScreenCTM().a)")
    assert min(sizes) >= 12
    shot(page, "embed_600x300.png")
    png_of(base, "/tables/T2/board.png?kind=embed&width=600&height=300").save(ARTIFACTS / "embed_600x300_png.png")
    page.close()


def test_ask_road_shows_the_hypothetical_entry_in_every_road(browser, wall):
    _, base = wall
    page = open_page(browser, base + "/tables/T6", wait_live=False)
    page.click("[data-ask=banker]")
    page.wait_for_function("window.__roads.asking === 'banker'", timeout=3000)
    roads = page.evaluate("Array.from(document.querySelectorAll('.cell.arrive')).map(g => g.closest('[data-road]').getAttribute('data-road'))")
    assert {"bead_plate", "big_road"} <= set(roads)
    page.wait_for_function("window.__roads.asking === null", timeout=6000)
    assert page.evaluate("document.querySelectorAll('.cell.arrive').length") == 0
    page.close()


def _post(base, table, number, cards, shoe=1):
    r = requests.post(f"{base}/api/tables/{table}/rounds", headers={"Authorization": "Bearer test-token"},
                      json={"shoe": shoe, "round": number, **cards}, timeout=10)
    assert r.status_code == 201, r.text
    return r.json()


def _poll(page, expression, timeout_s=10.0):
    """Wait until ``expression`` is true in the page, evaluated from here (no page timers)."""
    import time

    deadline = time.monotonic() + timeout_s
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, (expression, page.evaluate("JSON.stringify(window.__roads).slice(0, 300)"))
        time.sleep(0.05)


def test_a_stopped_server_shows_offline_within_seconds_whatever_the_keepalive(browser, tmp_path):
    """With the default 20 s keepalive, a board whose server is killed says "Offline since"
    once its reconnects have been refused for 5 s (static/js/push_socket.js DOWN_MS), not after the
    40 s of silence the keepalives alone would take; the time shown is when it last heard."""
    import time

    from support.serving import ServeProcess

    proc = ServeProcess(tmp_path / "data")
    try:
        base = f"http://{proc.base}"
        for i, (p, b) in enumerate(dealt_rounds(6, seed=6), 1):
            _post(base, "T1", i, {"player": p, "banker": b})
        page = open_page(browser, base + "/tables/T1")
        _poll(page, "window.__roads.status === 'live'", 10)
    finally:
        proc.kill()
    killed = time.monotonic()
    _poll(page, "document.documentElement.classList.contains('offline')", 12)
    assert 4.5 < time.monotonic() - killed < 12
    said = page.evaluate("document.querySelector('.offline-text').textContent")
    assert re.fullmatch(r"Offline since \d\d:\d\d:\d\d", said), said
    assert page.evaluate("getComputedStyle(document.querySelector('svg .offline-band')).opacity") == "1"
    shot(page, "board_server_stopped_default_keepalive.png")
    # A screen turned (or a player's window resized) while offline repaints the board: the band keeps its time.
    renders = page.evaluate("window.__roads.renders")
    page.set_viewport_size({"width": 1080, "height": 1920})
    _poll(page, f"window.__roads.renders > {renders} && window.__roads.orientation === 'portrait'", 5)
    assert page.evaluate("document.querySelector('.offline-text').textContent") == said
    assert page.js_errors == []  # type: ignore[attr-defined]
    page.close()


def test_the_offline_band_clears_when_the_server_is_back_and_the_roads_resync(browser, tmp_path):
    """``roads serve`` killed under an open board, then started again on the same port and data:
    the band goes, and a round posted to the new process shows."""
    from support.serving import ServeProcess

    env = {"ROADS_WS_KEEPALIVE_S": "0.5"}
    proc = ServeProcess(tmp_path / "data", env)
    port = proc.port
    try:
        base = f"http://{proc.base}"
        deal = dealt_rounds(13, seed=5)
        for i, (p, b) in enumerate(deal[:12], 1):
            _post(base, "T1", i, {"player": p, "banker": b})
        page = open_page(browser, base + "/tables/T1")
    finally:
        proc.kill()
    _poll(page, "document.documentElement.classList.contains('offline')", 5)
    proc = ServeProcess(tmp_path / "data", env, port=port)
    try:
        _poll(page, "!document.documentElement.classList.contains('offline')", 10)
        _poll(page, "window.__roads.status === 'live'", 10)
        p, b = deal[12]
        _post(base, "T1", 13, {"player": p, "banker": b})
        _poll(page, "window.__roads.version === 13", APPEAR_MS / 1000 + 1)
        assert page.evaluate("document.querySelectorAll('[data-road=bead_plate] g.cell').length") == 13
        assert page.evaluate("getComputedStyle(document.querySelector('svg .roads')).opacity") == "1"
        shot(page, "board_server_back.png")
        assert page.js_errors == []  # type: ignore[attr-defined]
        page.close()
    finally:
        proc.kill()


def test_thirty_seconds_after_the_last_result_the_board_still_marks_it(browser, tmp_path):
    """The page's clock run 30 s past the last result: still live (not offline), the newest
    result still marked, the time of the last result (venue time) unchanged."""
    app = seeded_app(tmp_path, tables=1)
    with serve_app(app) as srv:
        base = f"http://127.0.0.1:{srv.server_port}"
        page = browser.new_page(viewport={"width": 1920, "height": 1080}, bypass_csp=True)
        page.clock.install()
        page.goto(base + "/tables/T1")
        _poll(page, "!!(window.__roads && window.__roads.status === 'live')")
        ack = _post(base, "T1", 22, ROUND_P_NATURAL)
        _poll(page, f"window.__roads.version === {ack['version']}", APPEAR_MS / 1000 + 1)
        words = "Array.from(document.querySelectorAll('[data-panel=last_result] text')).map(t => t.textContent)"
        before = page.evaluate(words)
        page.clock.run_for(30_000)
        assert not page.evaluate("document.documentElement.classList.contains('offline')")
        assert page.evaluate(words) == before and before[0] == "Player"
        marked = page.evaluate("Array.from(document.querySelectorAll('g.cell.newest .newest-mark')).length")
        assert marked >= 2  # bead plate and big road at least
        # The fake clock holds the CSS arrival blink mid-way; in real time it ends after 1.5 s
        # (checked by hand: the newest cells stay at full opacity through later keepalives).
        page.evaluate("document.getAnimations().forEach(a => a.finish())")
        opacity = "Array.from(document.querySelectorAll('g.cell.newest')).map(g => getComputedStyle(g).opacity)"
        assert set(page.evaluate(opacity)) == {"1"}
        shot(page, "board_30s_after_last_result.png")
        page.close()
    close_app(app)


def test_a_4k_screen_shows_the_1080p_board_at_about_twice_the_size(browser, wall):
    _, base = wall
    page = open_page(browser, base + "/tables/T3", width=3840, height=2160, wait_live=False)
    scale = page.evaluate("document.querySelector('svg#board').getScreenCTM().a")
    assert 1.9 <= scale <= 2  # the 1920x1080 model, viewBox-scaled: twice as big, less the link bar's strip
    sizes = page.evaluate("Array.from(document.querySelectorAll('svg#board [data-panel] text')).filter(t => t.textContent.trim()).map(t => parseFloat(t.getAttribute('font-size')) * t.getScreenCTM().a)")
    assert min(sizes) >= 24
    shot(page, "board_3840x2160.png")
    page.close()
    png_of(base, "/tables/T3/board.png?width=3840&height=2160").save(ARTIFACTS / "board_3840x2160_png.png")
    page = open_page(browser, base + "/lobby?per_page=6&rotate_s=0", width=3840, height=2160, wait_live=False)
    shot(page, "lobby_6_tables_3840x2160.png")
    page.close()


@pytest.mark.parametrize("bead", ["letters", "total", "colour"])
def test_bead_option_on_the_page_is_the_models(browser, wall, bead):
    _, base = wall
    page = open_page(browser, base + f"/tables/T7?bead={bead}", wait_live=False)
    model = requests.get(base + f"/tables/T7/model.json?bead={bead}", timeout=30).json()["models"]["landscape"]
    want = [c.get("t") or None for c in next(r for r in model["roads"] if r["id"] == "bead_plate")["cells"]]
    got = page.evaluate("Array.from(document.querySelectorAll('[data-road=bead_plate] > g.cell')).map(g => { const t = g.querySelector('text:not(.tie-count)'); return t ? t.textContent : null; })")
    assert got == want and len(got) > 10
    if bead == "colour":
        assert set(got) == {None}
    elif bead == "total":
        assert set(got) <= set("0123456789")
    else:
        assert set(got) <= {"B", "P", "T"}
    shot(page, f"board_bead_{bead}.png")
    page.close()


def test_countdowns_keep_the_newest_server_clock_seen_not_an_old_models(browser, wall):
    """A pushed or cached model may be minutes old: its "now" must not set the countdown clock
    back. Server 5 s ahead of this machine; an old model's now (10 min ago) seen after it."""
    _, base = wall
    page = open_page(browser, base + "/tables/T2", wait_live=False)
    left = page.evaluate("""() => new Promise(done => {
      const t0 = Date.now() / 1000;
      Paint.observeClock(t0 + 5);           // a fresh answer: the server is 5 s ahead
      Paint.observeClock(t0 - 600);         // an old model's now
      const svg = document.querySelector('svg#board');
      const t = document.createElementNS('http://www.w3.org/2000/svg', 'text');
      t.setAttribute('data-cd', String(t0 + 5 + 20));  // betting closes 20 s from the server's now
      t.setAttribute('data-fmt', '{s}');
      svg.appendChild(t);
      setTimeout(() => done(parseInt(t.textContent, 10)), 600);
    })""")
    assert left in (19, 20)
    page.close()


def test_lobby_tile_updates_and_new_tables_appear_within_2_s(browser, live, feed):
    feed("T1", 1, 1, ROUND_B)
    page = open_page(browser, f"{live}/lobby")
    try:
        tile = '[data-tile="T1"] [data-road="big_road"] > g.cell'
        assert page.evaluate(f"document.querySelectorAll('{tile}').length") == 1
        feed("T1", 1, 2, ROUND_P_NATURAL)  # a Player after a Banker: a new big-road column
        _poll(page, f"!!document.querySelector('{tile}[data-k=\"1.0\"][data-c=\"player\"]')", APPEAR_MS / 1000)
        feed("T2", 1, 1, ROUND_TIE)  # a table's first round creates it: a new tile
        _poll(page, "document.querySelectorAll('[data-tile]').length === 2", APPEAR_MS / 1000)
        assert page.evaluate("window.__roads.fetches") == 0  # pushed, never fetched
        assert page.js_errors == []  # type: ignore[attr-defined]
    finally:
        page.close()


def test_good_roads_screen_shows_a_table_once_it_has_a_good_road_within_2_s(browser, live, feed):
    for n in range(1, 4):
        feed("T1", 1, n, ROUND_B)  # three Banker results: one column of 3, no good road yet
    feed("T2", 1, 1, ROUND_P_NATURAL)
    page = open_page(browser, f"{live}/good-roads", width=1080, height=1920)
    try:
        assert page.evaluate("document.querySelectorAll('[data-tile]').length") == 0
        feed("T1", 1, 4, ROUND_B)  # the fourth: Long Banker (docs/patterns.md)
        _poll(page, "document.querySelectorAll('[data-tile=\"T1\"]').length === 1", APPEAR_MS / 1000)
        assert page.evaluate("document.querySelectorAll('[data-tile]').length") == 1  # T2 has none
        assert "Long Banker 4" in page.evaluate("document.body.textContent")
        assert page.evaluate("window.__roads.fetches") == 0  # pushed, never fetched
        assert_no_scrollbars(page, "/good-roads at 1080x1920")
        assert page.js_errors == []  # type: ignore[attr-defined]
        shot(page, "good_roads_portrait.png")
    finally:
        page.close()


def test_an_impossible_write_marks_its_lobby_tile_on_an_open_screen_within_2_s(browser, live, feed, auth):
    """A ninth ace of spades in an 8-deck shoe is refused (422 too_many_copies) and raises an
    integrity flag: the open lobby shows the red band on that table's tile and the header count,
    pushed (no fetch, no reload); the other table's tile has none (docs/api.md "Integrity flags")."""
    for n in range(1, 5):
        feed("T9", 1, n, {"player": ["AS", "AS"], "banker": ["9C", "KD"]})  # the 8 aces of spades the shoe holds
    feed("T1", 1, 1, ROUND_B)
    page = open_page(browser, f"{live}/lobby")
    try:
        text = "document.querySelector('[data-tile=\"%s\"]').textContent"
        assert "Integrity" not in page.evaluate(text % "T9")
        r = requests.post(f"{live}/api/tables/T9/rounds", json={"shoe": 1, "round": 5, "player": ["AS", "9H"],
                                                                 "banker": ["9C", "KD"]}, headers=auth, timeout=10)
        assert (r.status_code, r.json()["error"]["code"]) == (422, "too_many_copies")
        _poll(page, f"{text % 'T9'}.includes('Integrity flag')", APPEAR_MS / 1000)
        assert "Integrity" not in page.evaluate(text % "T1")
        assert "Flagged tables: 1" in page.evaluate("document.body.textContent")
        assert page.evaluate("window.__roads.fetches") == 0  # pushed, never fetched
        assert page.js_errors == []  # type: ignore[attr-defined]
        shot(page, "lobby_integrity_flag.png")
    finally:
        page.close()


FITS_JS = """() => ({scrollW: document.documentElement.scrollWidth, scrollH: document.documentElement.scrollHeight,
                     innerW: window.innerWidth, innerH: window.innerHeight})"""


def assert_no_scrollbars(page, what):
    box = page.evaluate(FITS_JS)
    assert box["scrollH"] <= box["innerH"], f"{what}: content {box['scrollH']} px tall in a {box['innerH']} px viewport"
    assert box["scrollW"] <= box["innerW"], f"{what}: content {box['scrollW']} px wide in a {box['innerW']} px viewport"


@pytest.mark.parametrize("width, height", [(1920, 1080), (1080, 1920), (3840, 2160), (1280, 720)])
def test_table_page_fits_the_screen_without_scrollbars(browser, wall, width, height):
    """The whole board and its link bar, nothing to scroll (the embed snippet opens over it)."""
    _, base = wall
    page = open_page(browser, f"{base}/tables/T9", width=width, height=height, wait_live=False)
    try:
        assert page.evaluate("window.__roads.orientation") == ("portrait" if height > width else "landscape")
        assert_no_scrollbars(page, f"table page {width}x{height}")
        board = page.locator("svg#board").bounding_box()
        bar = page.locator("footer.bar").bounding_box()
        assert board["y"] >= 0 and board["y"] + board["height"] <= bar["y"] + 0.5
        assert bar["y"] + bar["height"] <= height + 0.5
        page.click('footer.bar a[data-link="embed"]')
        assert page.locator("#embed").is_visible()
        assert_no_scrollbars(page, f"table page {width}x{height} with the snippet open")
        page.click('#embed a[data-link="close"]')
        assert not page.locator("#embed").is_visible()
    finally:
        page.close()
    page = open_page(browser, f"{base}/tables/T9/shoes/1", width=width, height=height, wait_live=False)
    try:
        assert_no_scrollbars(page, f"past shoe page {width}x{height}")
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
        words = page.evaluate("Array.from(document.querySelectorAll('[data-panel=last_result] text')).map(t => t.textContent)")
        assert words[0] == "庄"
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
    # Without Chinese text on the page nothing fetches the 2.5 MB file.
    page = open_page(bare_browser, f"{live}/embed/T1?lang=en", width=800, height=450)
    try:
        page.wait_for_timeout(200)
        fetched = page.evaluate("performance.getEntriesByType('resource').map(e => new URL(e.name).pathname)")
        assert CJK_FONT_URL not in fetched
    finally:
        page.close()
