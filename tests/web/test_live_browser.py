"""A live table in headless Chromium and in the PNG: a round in progress (cards dealt, totals,
what happens next, seed 001's insurance) and a betting countdown, on the board (landscape and
portrait), the 600x300 embed and the lobby tile. The page paints the same model the PNG routes
paint (words of every panel, place and colour of every road cell: test_browser.compare), and
screenshots of both go to ``artifacts/`` for a person to look at.

Hands by the tableau (docs/domain.md section 1): T1 round 21 so far player 4S 2H = 6 (stands),
banker 2C 3D = 5 (draws when the player stands): "Player stands · Banker draws", and seed 001's
Player insurance at 2.5:1 for 6 against 5 (docs/insurance.md).
"""

from __future__ import annotations

import copy
import math
import time

import pytest
import requests

from support.feed import AUTH, close_app, dealt_rounds, make_app
from support.serving import serve_app
from test_browser import (ARTIFACTS, LANGS, browser, compare, open_page, page_model_png, playwright,  # noqa: F401
                          png_of, shot)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

MASK = "#"


@pytest.fixture(scope="module")
def table_floor(tmp_path_factory):
    """T1 (seed 001) mid-round while dealing, T2 betting with a countdown, T3 a results-only feed."""
    tables = {"T1": {"name": "บาคาร่าประกัน 1", "variant": "seed001", "limits": {"min": 100, "max": 10000}},
              "T2": {"name": "Live Baccarat 2", "variant": "seed000_live", "limits": {"min": 50, "max": 5000}},
              "T3": {"name": "Table 3"}}
    app = make_app(tmp_path_factory.mktemp("live") / "data", ROADS_TABLES=tables, ROADS_VENUE_TZ="Asia/Bangkok")
    client = app.test_client()
    for k, t in enumerate(tables, 1):
        for i, (p, b) in enumerate(dealt_rounds(20, seed=40 + k), 1):
            body = {"shoe": 1, "round": i, "player": p, "banker": b}
            assert client.post(f"/api/tables/{t}/rounds", json=body, headers=AUTH).status_code == 201
    for path, body in (("T1/state", {"state": "dealing", "dealer": "Anna"}),
                       ("T1/shoes/1/rounds/21/cards", {"position": 1, "cards": ["4S", "2C", "2H", "3D"]}),
                       ("T2/state", {"state": "betting", "seconds_left": 3600, "dealer": "Somchai"})):
        assert client.post(f"/api/tables/{path}", json=body, headers=AUTH).status_code == 201, path
    with serve_app(app, "test-live-browser") as srv:
        yield f"http://127.0.0.1:{srv.server_port}"
    close_app(app)


KINDS = [
    # (name, page path, model path, png path, viewport, model key)
    ("board", "/tables/T1?lang={lang}", "/tables/T1/model.json?lang={lang}", "/tables/T1/board.png?lang={lang}",
     (1920, 1080), "landscape"),
    ("board_betting", "/tables/T2?lang={lang}", "/tables/T2/model.json?lang={lang}",
     "/tables/T2/board.png?lang={lang}", (1920, 1080), "landscape"),
    ("portrait", "/tables/T1?lang={lang}&theme=light", "/tables/T1/model.json?lang={lang}&theme=light",
     "/tables/T1/board.png?lang={lang}&theme=light&width=1080&height=1920", (1080, 1920), "portrait"),
    ("portrait_betting", "/tables/T2?lang={lang}", "/tables/T2/model.json?lang={lang}",
     "/tables/T2/board.png?lang={lang}&width=1080&height=1920", (1080, 1920), "portrait"),
    ("embed", "/embed/T1?lang={lang}&w=600&h=300", "/embed/T1/model.json?lang={lang}&w=600&h=300",
     "/tables/T1/board.png?kind=embed&theme=light&lang={lang}&width=600&height=300", (600, 300), "fixed"),
    ("embed_betting", "/embed/T2?lang={lang}&w=600&h=300", "/embed/T2/model.json?lang={lang}&w=600&h=300",
     "/tables/T2/board.png?kind=embed&theme=light&lang={lang}&width=600&height=300", (600, 300), "fixed"),
    ("lobby", "/lobby?tables=T1,T2,T3&lang={lang}", "/lobby/model.json?tables=T1,T2,T3&lang={lang}&page=1",
     "/lobby.png?tables=T1,T2,T3&lang={lang}", (1920, 1080), "landscape"),
]
CASES = [(k[0], lang) for k in KINDS for lang in (LANGS if k[0] in ("board", "lobby") else ["en"])]


def countdowns(model):
    """Every countdown text item of a model (tiles included)."""
    found = [i for p in model["panels"] for i in p["items"] if i.get("cd")]
    for t in model.get("tiles", []):
        found += countdowns(t["model"])
    return found


def masked(model):
    """The model with each countdown's seconds as :data:`MASK` (the page ticks them every second)."""
    out = copy.deepcopy(model)
    for item in countdowns(out):
        item["t"] = item["fmt"].replace("{s}", MASK)
    return out


def freeze_countdowns(page):
    """Make the page's ticking countdowns show :data:`MASK` for their seconds; returns the seconds
    they showed before."""
    return page.evaluate("""(mask) => Array.from(document.querySelectorAll('[data-cd]')).map(t => {
        const fmt = t.getAttribute('data-fmt');
        const re = new RegExp('^' + fmt.replace(/[.*+?^$()|[\\]\\\\]/g, '\\\\$&').replace('{s}', '(\\\\d+)') + '$');
        const m = t.textContent.match(re);
        t.setAttribute('data-fmt', fmt.replace('{s}', mask));
        t.textContent = fmt.replace('{s}', mask);
        return m ? parseInt(m[1], 10) : null; })""", MASK)


@pytest.mark.parametrize("kind, lang", CASES)
def test_html_and_png_show_the_same_live_table(browser, table_floor, kind, lang):  # noqa: F811
    page, model, png = page_model_png(browser, table_floor, next(k for k in KINDS if k[0] == kind), lang)
    cds = countdowns(model)
    if "betting" in kind or kind == "lobby":
        assert len(cds) == 1                                   # T2's "Bets close in ... s"
        shown = freeze_countdowns(page)
        expected = math.ceil(cds[0]["cd"] - time.time())      # the seconds left now, by the test's clock
        assert len(shown) == 1 and 3000 < shown[0] <= 3600 and abs(shown[0] - expected) <= 1, (shown, expected)
    else:
        assert cds == []
    if kind in ("board", "portrait", "embed", "lobby"):
        words = [i["t"] for p in model["panels"] for i in p["items"] if i.get("p") == "t"]
        words += [i["t"] for t in model.get("tiles", []) for p in t["model"]["panels"] for i in p["items"]
                  if i.get("p") == "t"]
        assert {"4", "2", "3"} <= set(words)                   # the cards dealt, face up
    assert compare(page, masked(model), png, model["theme"]) > 10
    assert page.js_errors == []
    page.close()


@pytest.mark.parametrize("kind", ["board", "board_betting", "portrait", "portrait_betting", "embed", "embed_betting",
                                  "lobby"])
def test_screenshots_of_a_live_table_in_html_and_png(browser, table_floor, kind):  # noqa: F811
    """Artefacts for a person to look at (artifacts/live_<kind>.png and live_<kind>_png.png)."""
    base = table_floor
    name, page_path, _, png_path, (w, h), _ = next(k for k in KINDS if k[0] == kind)
    page = open_page(browser, base + page_path.format(lang="en"), width=w, height=h, wait_live=False)
    page.wait_for_timeout(300)
    shot(page, f"live_{kind}.png")
    png_of(base, png_path.format(lang="en")).save(ARTIFACTS / f"live_{kind}_png.png")
    page.close()
