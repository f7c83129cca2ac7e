"""A card-reading shoe's table in headless Chromium and in the PNG (docs/shoes.md): a card drawn
face down (a card back and "Player's 3rd card drawn"), the shoe's error and a round held for the
supervisor (red bands), on the board (landscape and portrait), the 600x300 embed and the lobby
tile. The page paints the same model the PNG routes paint (test_browser.compare); screenshots go
to ``artifacts/shoe_<kind>.png`` (page) and ``shoe_<kind>_png.png`` for a person to look at.

T1 round 21 (docs/domain.md section 1): player 4S KH = 4 draws, banker 2C 3D = 5; the player's
third card is drawn face down. Round 20 was held (the shoe's result disagreed with its cards).
"""

from __future__ import annotations

import pytest

from support.feed import AUTH, close_app, dealt_rounds, make_app
from support.serving import serve_app
from test_browser import (ARTIFACTS, browser, compare, open_page, page_model_png, playwright,  # noqa: F401
                          png_of, shot)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def shoe_floor(tmp_path_factory):
    tables = {"T1": {"name": "Baccarat 1", "variant": "seed000_live"}, "T2": {"name": "Baccarat 2"}}
    app = make_app(tmp_path_factory.mktemp("shoe") / "data", ROADS_TABLES=tables, ROADS_VENUE_TZ="Asia/Bangkok")
    client = app.test_client()
    for t in tables:
        for i, (p, b) in enumerate(dealt_rounds(19, seed=7), 1):
            body = {"shoe": 1, "round": i, "player": p, "banker": b}
            assert client.post(f"/api/tables/{t}/rounds", json=body, headers=AUTH).status_code == 201
    hold = {"reason": "result_mismatch", "message": "the shoe says B; the cards give P", "shoe_result": None,
            "player": ["2C", "3D", "4S"], "banker": ["5S", "2C"]}
    for path, body in (("T1/state", {"state": "dealing", "dealer": "Anna"}),
                       ("T1/shoes/1/rounds/20/cards", {"position": 1, "cards": ["2C", "5S", "3D"]}),
                       ("T1/shoes/1/rounds/20/hold", hold),
                       ("T1/shoes/1/rounds/21/cards", {"position": 1, "cards": ["4S", "2C", "KH", "3D"]}),
                       ("T1/shoes/1/rounds/21/cards", {"position": 5, "sides": ["player"]}),
                       ("T1/state", {"shoe_error": {"code": 1, "name": "card_unreadable"}})):
        assert client.post(f"/api/tables/{path}", json=body, headers=AUTH).status_code == 201, path
    with serve_app(app, "test-shoe-browser") as srv:
        yield f"http://127.0.0.1:{srv.server_port}"
    close_app(app)


KINDS = [
    ("board", "/tables/T1?lang={lang}", "/tables/T1/model.json?lang={lang}", "/tables/T1/board.png?lang={lang}",
     (1920, 1080), "landscape"),
    ("portrait", "/tables/T1?lang={lang}", "/tables/T1/model.json?lang={lang}",
     "/tables/T1/board.png?lang={lang}&width=1080&height=1920", (1080, 1920), "portrait"),
    ("embed", "/embed/T1?lang={lang}&w=600&h=300", "/embed/T1/model.json?lang={lang}&w=600&h=300",
     "/tables/T1/board.png?kind=embed&theme=light&lang={lang}&width=600&height=300", (600, 300), "fixed"),
    ("lobby", "/lobby?tables=T1,T2&lang={lang}", "/lobby/model.json?tables=T1,T2&lang={lang}&page=1",
     "/lobby.png?tables=T1,T2&lang={lang}", (1920, 1080), "landscape"),
]
LINES = {"en": ("Shoe: card cannot be read", "Round 20 held for the supervisor", "Player's 3rd card drawn"),
         "zh": ("牌靴：无法读取牌", "第 20 局暂停，等待主管处理", "闲第3张牌已发出"),
         "th": ("ขอนไพ่: อ่านไพ่ไม่ได้", "รอบที่ 20 รอหัวหน้าโต๊ะตัดสิน", "ไพ่ใบที่ 3 ของเพลเยอร์ออกแล้ว")}


def all_words(model):
    out = [i["t"] for p in model["panels"] for i in p["items"] if i.get("p") == "t"]
    return out + [w for t in model.get("tiles", []) for w in all_words(t["model"])]


def back_count(model):
    n = sum(1 for p in model["panels"] for i in p["items"] if i.get("p") == "r" and i.get("c") == "player")
    return n + sum(back_count(t["model"]) for t in model.get("tiles", []))


@pytest.mark.parametrize("kind, lang", [(k[0], "en") for k in KINDS] + [("board", "zh"), ("board", "th"),
                                                                        ("lobby", "th")])
def test_html_and_png_show_card_backs_shoe_errors_and_held_rounds(browser, shoe_floor, kind, lang):  # noqa: F811
    page, model, png = page_model_png(browser, shoe_floor, next(k for k in KINDS if k[0] == kind), lang)
    error, held, drawn = LINES[lang]
    words = all_words(model)
    assert error in words and held in words
    assert back_count(model) == 1
    if kind != "lobby":   # the lobby tile gives its band's words to the insurance or next step when they fit
        assert drawn in words
    banners = [p for p in model["panels"] if p["id"] == "banner"] + \
        [p for t in model.get("tiles", []) for p in t["model"]["panels"] if p["id"] == "banner"]
    assert len(banners) == 2 and all(p["bg"] == "offline" for p in banners)
    assert compare(page, model, png, model["theme"]) > 10
    assert page.js_errors == []
    page.close()


@pytest.mark.parametrize("kind", [k[0] for k in KINDS])
def test_screenshots_of_a_shoe_table_in_html_and_png(browser, shoe_floor, kind):  # noqa: F811
    name, page_path, _, png_path, (w, h), _ = next(k for k in KINDS if k[0] == kind)
    page = open_page(browser, shoe_floor + page_path.format(lang="en"), width=w, height=h, wait_live=False)
    page.wait_for_timeout(300)
    shot(page, f"shoe_{kind}.png")
    png_of(shoe_floor, png_path.format(lang="en")).save(ARTIFACTS / f"shoe_{kind}_png.png")
    page.close()
