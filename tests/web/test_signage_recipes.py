"""The URLs docs/signage.md recommends, tried in headless Chromium with the players' constraints
that can be imitated here: a web-page widget that reloads the page every few seconds (Xibo's
webpage widget, Anthias' web assets, Yodeck) through an outage of the service; an image widget
without JavaScript (info-beamer, Anthias' and Xibo's image assets, BrightSign image states) that
fetches the PNG again and again, revalidating it, behind nginx (deploy/nginx-nchan.conf) while the
service stops. Never a browser error page, never a broken image.

Uses Debian's /usr/bin/chromium through Playwright; skips like tests/web/test_browser.py.
"""

from __future__ import annotations

import time

import pytest
import requests

from test_browser import ARTIFACTS, browser, playwright  # noqa: F401
from test_offline_browser import Tier

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
def embedded(tmp_path):
    t = Tier(tmp_path, production=False)
    try:
        yield t
    finally:
        t.close()


@pytest.fixture
def nginx(tmp_path):
    t = Tier(tmp_path, production=True)
    try:
        yield t
    finally:
        t.close()


def test_a_player_that_reloads_the_page_every_few_seconds_never_shows_an_error(browser, embedded):  # noqa: F811
    """docs/signage.md: a web-page widget set to reload every N s (here about 1.5 s, 10 times), the
    service stopped for 4 of them: every load is the board (dimmed while the service is away)."""
    embedded.post("T1", 20, seed=11)
    context = browser.new_context(bypass_csp=True, viewport={"width": 1920, "height": 1080})
    page = context.new_page()
    url = f"{embedded.base}/lobby?tables=T1&motion=none"
    seen = []
    for cycle in range(10):
        if cycle == 3:
            embedded.stop()
        if cycle == 7:
            embedded.start()
        resp = page.goto(url) if cycle == 0 else page.reload()
        assert resp is not None and resp.status == 200, (cycle, resp and resp.status)   # the service's or the worker's page
        page.wait_for_function("window.__roads && window.__roads.renders >= 1", timeout=5_000)
        if cycle == 0:
            page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=10_000)
            page.wait_for_function("u => caches.open('roads-pages').then(c => c.match(u)).then(r => !!r)", arg=url,
                                   timeout=10_000)
        page.wait_for_timeout(1_200)
        seen.append((cycle, page.evaluate("window.__roads.offline"), page.evaluate("document.querySelectorAll('[data-tile]').length")))
    assert [n for _, _, n in seen] == [1] * 10                     # the table's tile on every load
    assert [off for c, off, _ in seen if 3 <= c < 7] == [True] * 4  # dimmed, saying since when
    assert seen[-1][1] is False                                    # live again
    context.close()


def test_an_image_player_without_javascript_revalidates_and_never_gets_a_broken_image(browser, nginx):  # noqa: F811
    """docs/signage.md: an image widget (no JavaScript) fetching the board PNG through nginx: its
    repeated fetches are answered 304 while the board is unchanged; an unknown table is an image;
    with the service stopped it keeps the last image nginx holds, and a PNG nginx never held is
    the waiting image."""
    nginx.post("T1", 10, seed=12)
    context = browser.new_context(java_script_enabled=False, viewport={"width": 1920, "height": 1080})
    page = context.new_page()
    statuses = []
    page.on("response", lambda r: statuses.append((r.status, r.request.all_headers().get("if-none-match"), r.all_headers().get("x-cache-status"))) if ".png" in r.url else None)
    url = f"{nginx.base}/tables/T1/board.png?width=1920&height=1080&lang=vi"
    for _ in range(3):
        resp = page.goto(url)
        assert resp is not None and resp.status in (200, 304)
        time.sleep(2.5)                                             # past max-age (ROADS_PNG_MAX_AGE_S = 2)
    etag = statuses[0][2] and requests.get(url, timeout=10).headers["ETag"]
    # every later fetch is a revalidation (nginx answers it 304 on the wire; Chromium shows its copy)
    assert statuses[0][0] == 200 and len(statuses) >= 2 and {inm for _, inm, _ in statuses[1:]} == {etag}, statuses
    assert page.evaluate("document.images[0].naturalWidth") == 1920
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "recipe_image_player_vi_1920x1080.png"))

    unknown = page.goto(f"{nginx.base}/tables/T9/board.png?width=1280&height=720")
    assert unknown is not None and unknown.status == 404 and unknown.headers["content-type"] == "image/png"
    assert page.evaluate("document.images[0].naturalWidth") == 1280

    nginx.stop()
    kept = page.goto(url)                                           # nginx's copy (proxy_cache_use_stale)
    assert kept is not None and kept.status in (200, 304) and kept.headers.get("x-cache-status") in ("STALE", "HIT", None)
    assert page.evaluate("document.images[0].naturalWidth") == 1920
    never = page.goto(f"{nginx.base}/tables/T1/board.png?width=800&height=450")
    assert never is not None and never.status == 502 and never.headers["content-type"] == "image/png"
    assert page.evaluate("document.images[0].naturalWidth") == 1920  # static/waiting.png
    page.screenshot(path=str(ARTIFACTS / "recipe_image_player_waiting_1920x1080.png"))
    assert requests.get(f"{nginx.base}/tables/T1", timeout=10).status_code == 502   # the page: nginx's error_page
    context.close()
