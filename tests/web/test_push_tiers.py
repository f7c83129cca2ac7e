"""Both push tiers end to end: the embedded one (``roads serve``, flask-sock) and the production
one (``roads serve`` publishing to nginx + nchan, pages subscribing there; deploy/nginx-nchan.conf).

Each tier gets a real-browser test (headless Chromium through Playwright): a table page stays
live through 50 rounds, a dropped connection (rounds posted while it is down) and a new shoe,
and at the end the page's document (its board model, pushed as deltas) equals its model JSON
route's answer for the API's snapshot version. The nchan tier also gets
protocol checks without a browser: deltas through nchan, the latest frame for new subscribers,
the full frames from the service through nginx's cache, the page's push endpoint, PNGs
cached by nginx.

nginx is started by the test on free loopback ports with a generated configuration in a
temporary folder (tests/support/nchan.py); it skips without nginx or nchan unless
``ROADS_TEST_REQUIRE_NCHAN=1`` (CI), the browser tests likewise with
``ROADS_TEST_REQUIRE_BROWSER=1``. Every wait is bounded; processes are stopped at the end.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import time

import pytest
import requests
import websocket

from support.feed import FEED_TOKEN
from support.nchan import NginxNchan
from support.serving import ServeProcess
from web.push.delta import apply as delta_apply

pytestmark = [pytest.mark.slow]

AUTH = {"Authorization": f"Bearer {FEED_TOKEN}"}
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
CATCH_UP_MS = 5000
"""Longest a page may take to show a posted round here (generous: the machine is shared)."""


def rounds(count: int, seed: int):
    from support.feed import dealt_rounds

    return dealt_rounds(count, seed=seed)


class Tier:
    """A running tier: :attr:`base` is where browsers and clients go, :attr:`service` the
    roads process (feed writes go there)."""

    def __init__(self, name: str, base: str, service: ServeProcess) -> None:
        self.name, self.base, self.service = name, base, service
        self.http = requests.Session()
        self.next_round: dict[tuple[str, int], int] = {}

    def post(self, table: str, shoe: int, player, banker) -> dict:
        number = self.next_round.get((table, shoe), 1)
        resp = self.http.post(f"http://{self.service.base}/api/tables/{table}/rounds", headers=AUTH, timeout=10,
                              json={"shoe": shoe, "round": number, "player": player, "banker": banker})
        assert resp.status_code == 201, resp.text
        self.next_round[(table, shoe)] = number + 1
        return resp.json()

    def snapshot(self, table: str) -> dict:
        resp = self.http.get(f"http://{self.service.base}/api/tables/{table}", timeout=10)
        assert resp.status_code == 200
        return resp.json()


@pytest.fixture
def embedded(tmp_path):
    service = ServeProcess(tmp_path / "data")
    try:
        yield Tier("embedded", service.base, service)
    finally:
        service.kill()


@pytest.fixture
def nchan(tmp_path):
    nginx = NginxNchan()
    service = ServeProcess(tmp_path / "data", env={"ROADS_NCHAN_PUBLISH_URL": nginx.publish_url,
                                                   "ROADS_PUSH_URL": "/push/"})
    try:
        nginx.start(service.base)
        yield Tier("nchan", nginx.base, service)
    finally:
        nginx.stop()
        service.kill()


def recv_frame(ws) -> dict:
    while True:
        msg = json.loads(ws.recv())
        if msg["type"] != "keepalive":
            return msg


def wait_for(predicate, timeout: float = 10, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def full_frame(tier, tail: str, version: int) -> dict:
    """The full frame (from the service through nginx's one-second cache) once it holds ``version``."""
    def fetch():
        frame = requests.get(f"http://{tier.base}/push/full/{tail}", timeout=10).json()
        return frame if frame["version"] >= version else None
    return wait_for(fetch, timeout=10, what=f"the full frame of {tail} at version {version}")


# ----------------------------------------------------------------------------- nchan, no browser
def test_nchan_tier_pushes_deltas_and_gives_new_subscribers_the_latest_frame(nchan):
    deal = rounds(5, seed=1)
    first = nchan.post("T1", 1, *deal[0])
    ws = websocket.create_connection(f"ws://{nchan.base}/push/tables/T1", timeout=10)
    try:
        msg = recv_frame(ws)  # the channel's newest frame, at once
        assert msg["version"] == first["version"]
        if msg["type"] == "snapshot":
            doc = msg["data"]
        else:  # a delta: the page would fetch the full frame (below)
            doc = full_frame(nchan, "tables/T1", msg["version"])["data"]
        assert doc == nchan.snapshot("T1")
        version = msg["version"]
        for cards in deal[1:]:
            ack = nchan.post("T1", 1, *cards)
            msg = recv_frame(ws)
            assert msg["type"] == "delta" and msg["base"] == version, msg
            doc = delta_apply(copy.deepcopy(doc), msg["ops"])
            version = msg["version"]
            assert version == ack["version"]
            assert doc == nchan.snapshot("T1")
    finally:
        ws.close()
    late = websocket.create_connection(f"ws://{nchan.base}/push/tables/T1", timeout=10)
    try:
        assert recv_frame(late)["version"] == version  # nchan kept the newest frame for it
    finally:
        late.close()
    full = full_frame(nchan, "tables/T1", version)
    assert full == {"type": "snapshot", "topic": "table:T1", "version": version, "data": nchan.snapshot("T1")}
    resp = requests.get(f"http://{nchan.base}/push/full/tables/T1", timeout=10)
    assert resp.status_code == 200 and resp.headers["Cache-Control"] == "no-store"


def test_nchan_tier_full_frames_come_from_the_service_once_for_all_screens_that_missed_a_version(nchan):
    version = nchan.post("T1", 1, *rounds(1, seed=4)[0])["version"]
    url = f"http://{nchan.base}/push/full/tables/T1?since={version}"
    answers = [requests.get(url, timeout=10) for _ in range(3)]
    # the first screen's request reaches the service; the others, within a second, nginx's cache
    assert [r.headers["X-Cache-Status"] for r in answers] == ["MISS", "HIT", "HIT"]
    assert all(r.status_code == 200 and r.headers["Cache-Control"] == "no-store" for r in answers)
    assert answers[0].json() == {"type": "snapshot", "topic": "table:T1", "version": version,
                                 "data": nchan.snapshot("T1")}
    newer = nchan.post("T1", 1, *rounds(2, seed=4)[1])["version"]
    fresh = requests.get(f"http://{nchan.base}/push/full/tables/T1?since={newer}", timeout=10)
    assert fresh.headers["X-Cache-Status"] == "MISS"  # a page that saw a newer delta: another key
    # the answer is what the channel holds (the version its next delta builds on): the newer
    # round once the publisher has posted it (a page sees a delta only after that)
    assert fresh.json()["version"] in (version, newer)
    assert full_frame(nchan, f"tables/T1?since={newer}", newer)["version"] == newer
    missing = requests.get(f"http://{nchan.base}/push/full/tables/NOPE", timeout=10)
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "unknown_table"


def test_nchan_tier_full_frames_of_pages_in_two_languages_never_share_a_cached_answer(nchan):
    """A page without ?lang= takes its language from Accept-Language: its full-frame URL names
    that language, so nginx's cache never hands a Thai screen the English document."""
    version = nchan.post("T1", 1, *rounds(1, seed=6)[0])["version"]
    topics, urls = {}, {}
    for lang in ("th", "en", "th"):
        html = requests.get(f"http://{nchan.base}/tables/T1", headers={"Accept-Language": lang}, timeout=10).text
        boot = json.loads(html.split('<script type="application/json" id="boot">', 1)[1].split("</script>", 1)[0])
        urls[lang] = boot["full"]["landscape"]
        assert f"lang={lang}" in urls[lang]
        frame = requests.get(f"http://{nchan.base}{urls[lang]}&since={version}", timeout=10).json()
        assert frame["topic"] == "model:" + boot["ws"]["landscape"].rsplit("/", 1)[1]  # the page's own topic
        topics.setdefault(lang, frame["topic"])
        assert frame["topic"] == topics[lang]
    assert urls["th"] != urls["en"] and topics["th"] != topics["en"]


def test_nchan_tier_pages_subscribe_to_nchan_and_lobby_frames_flow(nchan):
    nchan.post("T1", 1, *rounds(1, seed=2)[0])
    html = requests.get(f"http://{nchan.base}/tables/T1", timeout=10).text
    boot = json.loads(html.split('<script type="application/json" id="boot">', 1)[1].split("</script>", 1)[0])
    # the page's own model topic (web/push/page_models.py), its channel on nchan and its full frame
    # (one per orientation: a screen follows the one it shows, asking modelUrl?orient= first)
    assert set(boot["ws"]) == set(boot["full"]) == {"landscape", "portrait"}
    for orient in ("landscape", "portrait"):
        assert re.fullmatch(r"/push/models/[0-9a-f]{16}", boot["ws"][orient]), boot["ws"]
        # the full frame is named by the page's options, the language it resolved included (any
        # process can build it, and it keys nginx's cache), not the digest
        assert boot["full"][orient] == f"/push/full/models/tables/T1?lang=en&orient={orient}"
    assert boot["ws"]["landscape"] != boot["ws"]["portrait"]
    followed = requests.get(f"http://{nchan.base}{boot['modelUrl']}?orient=landscape", timeout=10).json()
    assert followed["models"] == {"landscape": boot["models"]["landscape"]}
    ws = websocket.create_connection(f"ws://{nchan.base}{boot['ws']['landscape']}", timeout=10)
    try:
        first = recv_frame(ws)
        assert first["type"] == "snapshot" and first["data"]["models"] == {"landscape": boot["models"]["landscape"]}
        # what a page that missed a version fetches: the same frame, through nginx's cache
        full = requests.get(f"http://{nchan.base}{boot['full']['landscape']}&since={first['version']}", timeout=10)
        assert full.status_code == 200 and full.headers["Cache-Control"] == "no-store"
        assert full.json() == first and full.json()["topic"] == "model:" + boot["ws"]["landscape"].rsplit("/", 1)[1]
        nchan.post("T1", 1, *rounds(2, seed=2)[1])
        msg = recv_frame(ws)
        assert msg["type"] == "delta" and msg["base"] == first["version"] and msg["version"] > first["version"]
    finally:
        ws.close()
    lobby_html = requests.get(f"http://{nchan.base}/lobby", timeout=10).text
    lobby_boot = json.loads(lobby_html.split('<script type="application/json" id="boot">', 1)[1].split("</script>", 1)[0])
    assert re.fullmatch(r"/push/models/[0-9a-f]{16}", lobby_boot["ws"]) and lobby_boot["ws"] not in boot["ws"].values()
    ws = websocket.create_connection(f"ws://{nchan.base}/push/lobby", timeout=10)
    try:
        first = recv_frame(ws)
        nchan.post("T2", 1, *rounds(1, seed=3)[0])
        msg = recv_frame(ws)
        assert msg["version"] > first["version"]
    finally:
        ws.close()
    full = full_frame(nchan, "lobby", msg["version"])
    assert [t["id"] for t in full["data"]] == ["T1", "T2"]
    # Static files come from disk through nginx, byte for byte.
    js = requests.get(f"http://{nchan.base}/static/js/delta.js", timeout=10)
    assert js.status_code == 200 and js.content == (ROOT_STATIC / "js" / "delta.js").read_bytes()


def test_nchan_tier_caches_pngs_as_the_service_allows(nchan):
    nchan.post("T1", 1, *rounds(1, seed=4)[0])
    url = f"http://{nchan.base}/tables/T1/board.png?w=640&h=360"
    a = requests.get(url, timeout=30)
    b = requests.get(url, timeout=30)
    assert a.status_code == b.status_code == 200
    assert a.headers["Content-Type"] == "image/png" and a.content == b.content
    assert a.headers["X-Cache-Status"] in ("MISS", "EXPIRED")
    assert b.headers["X-Cache-Status"] == "HIT"
    direct = requests.get(f"http://{nchan.service.base}/tables/T1/board.png?w=640&h=360", timeout=30)
    assert direct.content == a.content and "max-age=" in direct.headers["Cache-Control"]


from support.serving import ROOT as _ROOT  # noqa: E402

ROOT_STATIC = _ROOT / "static"


# ----------------------------------------------------------------------------- both tiers, in Chromium
def _browser_or_skip():
    reason = None
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        reason = f"Chromium not found at {CHROMIUM} (Debian package 'chromium')"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            reason = "python package 'playwright' is not installed"
    if reason:
        if os.environ.get("ROADS_TEST_REQUIRE_BROWSER") == "1":
            pytest.fail(f"ROADS_TEST_REQUIRE_BROWSER=1 but {reason}")
        pytest.skip(reason)


@pytest.fixture(scope="module")
def browser():
    _browser_or_skip()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


def wait_js(page, expr: str, timeout: int) -> None:
    """Poll ``expr`` in the page until it is true (``timeout`` ms); no eval, so the pages' CSP holds."""
    deadline = time.monotonic() + timeout / 1000
    while not page.evaluate(f"() => !!({expr})"):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} ms waiting for {expr}")
        time.sleep(0.05)


def _live_through_rounds_a_reconnect_and_a_new_shoe(browser, tier, min_deltas):
    deal = rounds(60, seed=14)
    tier.post("T1", 1, *deal[0])
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    try:
        page.goto(f"http://{tier.base}/tables/T1")
        wait_js(page, "window.__roads && window.__roads.status === 'live'", timeout=15_000)
        for i in range(1, 51):  # 50 rounds; the page follows each within a bound
            ack = tier.post("T1", 1, *deal[i])
            if i % 10 == 0:
                wait_js(page, f"window.__roads.version >= {ack['version']}", timeout=CATCH_UP_MS)
        tracker = page.evaluate("({d: __roadsLive.tracker.deltas, r: __roadsLive.tracker.resyncs})")
        # The rounds came as deltas (a publisher that falls behind sends one delta over several
        # versions; nchan's channel is posted at most every web.push.nchan.MIN_POST_INTERVAL_S, and
        # these 50 rounds are posted as fast as the feed answers).
        assert tracker["d"] >= min_deltas and tracker["r"] == 0, tracker
        # A dropped connection; rounds posted while it is down; the page comes back and catches up.
        page.evaluate("__roadsLive.ws.close()")
        wait_js(page, "window.__roads.status !== 'live'", timeout=CATCH_UP_MS)
        for i in range(51, 54):
            ack = tier.post("T1", 1, *deal[i])
        wait_js(page, "window.__roads.status === 'live'", timeout=15_000)
        wait_js(page, f"window.__roads.version >= {ack['version']}", timeout=CATCH_UP_MS)
        # A new shoe: the board starts again from the shoe's first round.
        ack = tier.post("T1", 2, *deal[54])
        wait_js(page, f"window.__roads.shoe === 2 && window.__roads.version >= {ack['version']}",
                               timeout=CATCH_UP_MS)
        # A missed version (as if a frame was lost): the next delta shows the gap and the page
        # resyncs, from the service's full frame through nginx on the nchan tier, by reconnecting
        # on the embedded one.
        resyncs = page.evaluate("__roadsLive.tracker.resyncs")
        page.evaluate("__roadsLive.tracker.version -= 1")
        ack = tier.post("T1", 2, *deal[55])
        wait_js(page, f"window.__roads.version >= {ack['version']} && __roadsLive.tracker.resyncs > {resyncs}",
                timeout=CATCH_UP_MS)
        if tier.name == "nchan":
            fulls = [u for u in requested if "/push/full/" in u]
            assert fulls and all(re.search(r"/push/full/models/tables/T1\?lang=en&orient=landscape&since=\d+$", u)
                                 for u in fulls), fulls
            assert fulls[-1].endswith(f"since={ack['version']}")
        # The document the page holds from the push is its model JSON route's answer (the board
        # model of the API's snapshot version); the board it painted shows the new shoe's two beads.
        snapshot = tier.snapshot("T1")
        # (the landscape orientation only: the one this 1280x720 screen shows)
        doc = tier.http.get(f"http://{tier.service.base}/tables/T1/model.json?orient=landscape", timeout=10).json()
        assert page.evaluate("__roadsLive.tracker.doc") == doc
        assert page.evaluate("window.__roads.version") == snapshot["version"] == doc["version"]
        drawn = page.locator('svg#board [data-road="bead_plate"] [data-k]').count()
        assert drawn == len(snapshot["bead_plate"]) == 2
        # The screen turns portrait: the page follows the portrait topic from its whole document on.
        page.set_viewport_size({"width": 720, "height": 1280})
        wait_js(page, "window.__roads.orientation === 'portrait' && __roadsLive.tracker.doc"
                      " && !!__roadsLive.tracker.doc.models.portrait && window.__roads.status === 'live'",
                timeout=CATCH_UP_MS)
        ack = tier.post("T1", 2, *deal[56])
        wait_js(page, f"window.__roads.version >= {ack['version']}", timeout=CATCH_UP_MS)
        doc = tier.http.get(f"http://{tier.service.base}/tables/T1/model.json?orient=portrait", timeout=10).json()
        assert page.evaluate("__roadsLive.tracker.doc") == doc and list(doc["models"]) == ["portrait"]
        assert page.locator('svg#board [data-road="bead_plate"] [data-k]').count() == 3
        assert page.evaluate("document.getElementById('board').getAttribute('viewBox')") == "0 0 1080 1920"
        assert errors == []
    finally:
        page.close()


@pytest.mark.browser
def test_embedded_tier_page_stays_live_in_chromium(browser, embedded):
    _live_through_rounds_a_reconnect_and_a_new_shoe(browser, embedded, min_deltas=25)


@pytest.mark.browser
def test_nchan_tier_page_stays_live_in_chromium(browser, nchan):
    _live_through_rounds_a_reconnect_and_a_new_shoe(browser, nchan, min_deltas=5)


def test_nchan_tier_pushes_the_floor_good_roads(nchan):
    # Banker 7-3 four times: one Banker column of 4 (long_banker, docs/patterns.md)
    b = (["4S", "KD", "9H"], ["7C", "JD"])
    ws = websocket.create_connection(f"ws://{nchan.base}/push/good-roads", timeout=10)
    try:
        for _ in range(4):
            nchan.post("T1", 1, *b)
        msg = recv_frame(ws)  # the empty floor at start, then the frame long_banker came with (the 4th round)
        while msg["version"] < 4:
            msg = recv_frame(ws)
        assert msg["topic"] == "good-roads" and msg["version"] == 4
    finally:
        ws.close()
    full = full_frame(nchan, "good-roads", 4)
    assert [(t["id"], t["top"]) for t in full["data"]["tables"]] == [("T1", "long_banker")]
    assert full["data"]["counts"]["long_banker"] == 1 and full["data"]["with_good_road"] == 1
