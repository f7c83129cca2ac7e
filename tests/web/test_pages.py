"""HTML pages (web/http/pages.py): each page carries the same data as its JSON twin, the shared
layout geometry and the chosen language's labels; bad options and unknown tables answer
in the one error shape.

Rounds are posted through the real feed API. Expected values are worked out by hand from
the tableau (docs/domain.md section 1), not copied from the service's output:

- ROUND_B: Player 4S KD 9H = 4+0 -> draws 9 -> 13 -> 3; Banker 7C JD = 7 stands. Banker wins 7-3.
- ROUND_P_NATURAL: Player 9C KH = 9 (natural), Banker 5D 2S = 7. Player wins, natural.
"""

from __future__ import annotations

import json
import re

import pytest

from web import i18n
from web.render.layout import board_layout

ROUND_B = {"player": ["4S", "KD", "9H"], "banker": ["7C", "JD"]}
ROUND_P_NATURAL = {"player": ["9C", "KH"], "banker": ["5D", "2S"]}

BOOT_RE = re.compile(r'<script type="application/json" id="boot">(.*?)</script>', re.S)


def post_round(client, auth, table, shoe, number, cards):
    resp = client.post(f"/api/tables/{table}/rounds", json={"shoe": shoe, "round": number, **cards}, headers=auth)
    assert resp.status_code == 201, resp.get_data(as_text=True)
    return resp


def boot_of(resp) -> dict:
    """The JSON the page hands to its script (parsed back from the HTML)."""
    match = BOOT_RE.search(resp.get_data(as_text=True))
    assert match, "page has no boot JSON"
    return json.loads(match.group(1))


def links(resp, kind: str) -> list[str]:
    return re.findall(r'<a href="([^"]+)"[^>]*data-link="%s"' % kind, resp.get_data(as_text=True))


@pytest.fixture
def table_t1(client, auth):
    """Table T1 with two rounds of shoe 1: Banker 7-3, then Player natural 9-7."""
    post_round(client, auth, "T1", 1, 1, ROUND_B)
    post_round(client, auth, "T1", 1, 2, ROUND_P_NATURAL)
    return "T1"


# ------------------------------------------------------------------ redirect and lobby
def test_root_redirects_to_the_lobby_keeping_the_query(client):
    resp = client.get("/?lang=th&theme=light")
    assert resp.status_code == 302
    assert resp.headers["Location"] in ("/lobby?lang=th&theme=light", "/lobby?theme=light&lang=th")


def test_empty_lobby_says_there_are_no_tables(client):
    resp = client.get("/lobby")
    assert resp.status_code == 200
    model = boot_of(resp)["doc"]["pages"]["landscape"][0]
    assert model["tiles"] == []
    assert ["No tables yet"] == [i["t"] for p in model["panels"] if p["id"] == "note" for i in p["items"]]


def test_lobby_carries_its_pages_per_orientation_with_a_tile_per_table(client, table_t1):
    resp = client.get("/lobby")
    boot = boot_of(resp)
    assert set(boot["doc"]["pages"]) == {"landscape", "portrait"}
    assert boot["doc"] == client.get("/lobby/model.json").get_json()  # what its model socket carries
    [land] = boot["doc"]["pages"]["landscape"]
    assert (land["kind"], land["w"], land["h"]) == ("lobby", 1920, 1080)
    assert [t["id"] for t in land["tiles"]] == ["T1"]
    tile = land["tiles"][0]["model"]
    big = next(r for r in tile["roads"] if r["id"] == "big_road")
    # hand-worked: Banker then Player: two big-road columns of one cell each, the Player newest
    assert [(c["k"], c["c"], c.get("n", 0)) for c in big["cells"]] == [("0.0", "banker", 0), ("1.0", "player", 1)]
    assert boot["ws"] == "/ws/models/lobby" and boot["modelUrl"].startswith("/lobby/model.json")
    assert 'class="theme-dark' in resp.get_data(as_text=True)  # the lobby screen defaults to dark


def test_lobby_speaks_the_chosen_language(client, table_t1):
    boot = boot_of(client.get("/lobby?lang=zh&theme=light"))
    tile = boot["doc"]["pages"]["landscape"][0]["tiles"][0]["model"]
    words = [i["t"] for p in tile["panels"] for i in p["items"] if i["p"] == "t"]
    assert "闲  " in words and "第 1 靴  ·  第 2 局" in words
    assert tile["theme"] == "light"


# ------------------------------------------------------------------ table board
def test_table_page_embeds_the_board_model_of_its_json_twin(client, table_t1):
    resp = client.get("/tables/T1")
    assert resp.status_code == 200
    assert resp.mimetype == "text/html"
    boot = boot_of(resp)
    def timeless(models):  # "now": the server's clock when each model was made (live countdowns)
        return {k: {f: v for f, v in m.items() if f != "now"} for k, m in models.items()}

    assert timeless(boot["models"]) == timeless(client.get("/tables/T1/model.json").get_json()["models"])
    assert boot["page"] == "table" and boot["live"] is True
    # one model topic per orientation: a screen subscribes to (and gets) the one it shows
    assert boot["ws"] == {"landscape": "/ws/models/tables/T1?orient=landscape",
                          "portrait": "/ws/models/tables/T1?orient=portrait"} and boot["full"] is None
    for orient in ("landscape", "portrait"):
        one = client.get(f"/tables/T1/model.json?orient={orient}").get_json()
        assert list(one["models"]) == [orient]
        assert timeless(one["models"]) == {orient: timeless(boot["models"])[orient]}
    bad = client.get("/tables/T1/model.json?orient=square")
    assert bad.status_code == 400 and bad.get_json()["error"]["field"] == "orient"
    model = boot["models"]["landscape"]
    roads = {r["id"]: r for r in model["roads"]}
    # Hand-worked: round 1 Banker 7-3, round 2 a Player natural 9-7 in a new big-road column.
    assert [(c["k"], c["m"], c["c"], c.get("t"), c.get("nat", 0), c.get("n", 0)) for c in roads["bead_plate"]["cells"]] == [
        (1, "disc", "banker", "B", 0, 0), (2, "disc", "player", "P", 1, 1)]
    assert [(c["k"], c["c"]) for c in roads["big_road"]["cells"]] == [("0.0", "banker"), ("1.0", "player")]
    b = roads["bead_plate"]
    assert (b["cells"][1]["x"], b["cells"][1]["y"]) == (b["x"], b["y"] + b["cell"])
    words = [i["t"] for p in model["panels"] if p["id"] == "last_result" for i in p["items"]]
    assert words[:1] == ["Player"] and "Player 9" in words and "Banker 7" in words


def test_table_page_uses_the_shared_layout_for_both_orientations(client, table_t1):
    boot = boot_of(client.get("/tables/T1"))
    keys = ("x", "y", "cols", "rows", "cell")
    for name, (w, h) in {"landscape": (1920, 1080), "portrait": (1080, 1920)}.items():
        model = boot["models"][name]
        regions = board_layout(w, h, kind="board")["regions"]
        assert (model["w"], model["h"]) == (w, h)
        for r in model["roads"]:
            assert {k: r[k] for k in keys} == {k: regions[r["id"]][k] for k in keys}


def test_table_page_columns_option_reaches_the_layout(client, table_t1):
    boot = boot_of(client.get("/tables/T1?cols=30"))
    big = next(r for r in boot["models"]["landscape"]["roads"] if r["id"] == "big_road")
    assert big["cols"] == 30


def test_table_page_links_its_json_and_png_twins_and_both_answer(client, table_t1):
    resp = client.get("/tables/T1")
    assert links(resp, "json") == ["/api/tables/T1"]
    assert links(resp, "png") == ["/tables/T1/board.png"]
    assert links(resp, "lobby") == ["/lobby"]
    html = resp.get_data(as_text=True)
    assert '<link rel="alternate" type="application/json" href="/api/tables/T1">' in html
    assert client.get("/api/tables/T1").status_code == 200


def test_table_page_shows_an_embed_snippet_for_its_widget(client, table_t1):
    html = client.get("/tables/T1?lang=th").get_data(as_text=True)
    match = re.search(r'&lt;iframe src="([^"]+)" width="600" height="300"', html)
    assert match, "no embed snippet"
    src = match.group(1).replace("&amp;", "&")
    assert src.startswith("http://localhost/embed/T1?")
    assert "lang=th" in src and "theme=light" in src and "w=600" in src and "h=300" in src
    path = src.removeprefix("http://localhost")
    model = boot_of(client.get(path))["models"]["fixed"]
    # the widget is labelled: a header with the table name, shoe and round
    words = [i["t"] for p in model["panels"] if p["id"] == "header" for i in p["items"]]
    assert words[0] == "T1" and "ขอนไพ่ที่ 1" in words[1] and "รอบที่ 2" in words[1]


def test_table_page_opens_the_embed_snippet_as_an_overlay_and_links_the_shoes_page(client, table_t1):
    """The page is one screen (board + link bar); the snippet opens over it, the shoes link
    leads to the table's shoes page (web/http/shoes_pages.py)."""
    resp = client.get("/tables/T1")
    html = resp.get_data(as_text=True)
    assert links(resp, "shoes") == ["/tables/T1/shoes"]
    assert links(resp, "embed") == ["#embed"]
    assert 'id="shoes"' not in html and '<section class="more-box" id="embed"' in html
    assert html.count('data-link="close"') == 1
    assert 'class="theme-dark board-html"' in html


def test_unknown_table_is_404_in_the_error_shape(client):
    resp = client.get("/tables/NOPE", headers={"Accept": "application/json"})
    assert resp.status_code == 404
    body = resp.get_json()
    assert body["error"]["status"] == 404
    assert body["error"]["code"] == "unknown_table"
    assert "'NOPE'" in body["error"]["message"]


def test_unknown_table_gives_a_browser_an_html_404(client):
    resp = client.get("/tables/NOPE", headers={"Accept": "text/html,application/xhtml+xml"})
    assert resp.status_code == 404
    assert resp.mimetype == "text/html"
    assert "NOPE" in resp.get_data(as_text=True)


@pytest.mark.parametrize(
    ("query", "field"),
    [("theme=pink", "theme"), ("cols=abc", "cols"), ("cols=0", "cols"), ("cols=201", "cols")],
)
def test_bad_table_page_options_are_400_naming_the_option(client, table_t1, query, field):
    resp = client.get(f"/tables/T1?{query}", headers={"Accept": "application/json"})
    assert resp.status_code == 400
    err = resp.get_json()["error"]
    assert err["field"] == field
    assert err["status"] == 400


# ------------------------------------------------------------------ past shoes
def test_past_shoe_page_is_the_same_board_not_live(client, auth, table_t1):
    post_round(client, auth, "T1", 2, 1, ROUND_B)
    resp = client.get("/tables/T1/shoes/1")
    assert resp.status_code == 200
    boot = boot_of(resp)
    assert boot["page"] == "past" and boot["live"] is False and boot["ws"] is None
    model = boot["models"]["landscape"]
    assert (model["shoe"], model["round"]) == (1, 2)
    assert links(resp, "json") == ["/api/tables/T1/shoes/1"]
    assert links(resp, "png") == ["/tables/T1/shoes/1/board.png"]
    assert links(resp, "live") == ["/tables/T1"]
    assert boot_of(client.get("/tables/T1"))["models"]["landscape"]["shoe"] == 2


def test_unknown_past_shoe_is_404_naming_the_shoe(client, table_t1):
    resp = client.get("/tables/T1/shoes/9", headers={"Accept": "application/json"})
    assert resp.status_code == 404
    err = resp.get_json()["error"]
    assert err["code"] == "unknown_shoe" and err["field"] == "shoe"


def test_shoe_that_is_not_a_number_is_404(client, table_t1):
    assert client.get("/tables/T1/shoes/one", headers={"Accept": "application/json"}).status_code == 404


# ------------------------------------------------------------------ embed
def test_embed_keeps_its_header_whatever_roads_says(client, table_t1):
    resp = client.get("/embed/T1?roads=big_road,bead_plate&cols=20&w=900&h=500")
    assert resp.status_code == 200
    boot = boot_of(resp)
    model = boot["models"]["fixed"]
    assert boot["page"] == "embed" and (model["w"], model["h"]) == (900, 500)
    assert [r["id"] for r in model["roads"]] == ["bead_plate", "big_road"]
    assert next(r for r in model["roads"] if r["id"] == "big_road")["cols"] == 20
    assert [p["id"] for p in model["panels"]][:2] == ["header", "last_result"]
    # the embed's own model socket, with the embed's options
    assert boot["ws"] == "/ws/models/embed/T1?roads=big_road,bead_plate&cols=20&w=900&h=500"


def test_embed_defaults_to_all_roads_light_theme_800_by_450(client, table_t1):
    resp = client.get("/embed/T1")
    model = boot_of(resp)["models"]["fixed"]
    assert (model["w"], model["h"], model["theme"]) == (800, 450, "light")
    assert 'class="theme-light' in resp.get_data(as_text=True)


def test_embed_at_600_by_300_draws_nothing_below_12_px(client, table_t1):
    """A road that would need cells under 12 px is left out, never shrunk (derived roads first)."""
    model = boot_of(client.get("/embed/T1?w=600&h=300"))["models"]["fixed"]
    assert {r["id"] for r in model["roads"]} == {"bead_plate", "big_road"}
    assert min(r["cell"] for r in model["roads"]) >= 12
    assert min(i["s"] for p in model["panels"] for i in p["items"] if i["p"] == "t") >= 12


@pytest.mark.parametrize(
    ("query", "field", "quoted"),
    [
        ("roads=big_road,snake_road", "roads", "'snake_road'"),
        ("roads=,", "roads", "','"),
        ("cols=x", "cols", "'x'"),
        ("w=10", "w", "10"),
        ("h=abc", "h", "'abc'"),
        ("theme=blue", "theme", "'blue'"),
    ],
)
def test_bad_embed_options_are_400_naming_and_quoting_them(client, table_t1, query, field, quoted):
    resp = client.get(f"/embed/T1?{query}", headers={"Accept": "application/json"})
    assert resp.status_code == 400
    err = resp.get_json()["error"]
    assert err["field"] == field
    assert quoted in err["message"]


def test_embed_of_unknown_table_is_404(client):
    assert client.get("/embed/NOPE", headers={"Accept": "application/json"}).status_code == 404


# ------------------------------------------------------------------ languages and themes
@pytest.mark.parametrize(
    ("query", "accept", "lang", "player", "banker", "tie"),
    [
        ("", None, "en", "Player", "Banker", "Tie"),
        ("?lang=zh", None, "zh", "闲", "庄", "和"),
        ("?lang=th", None, "th", "เพลเยอร์", "แบงเกอร์", "เสมอ"),
        ("?lang=my", None, "my", "ထိုးသား", "ဒိုင်", "သရေ"),
        ("?lang=lo", None, "lo", "ຜູ້ຫຼິ້ນ", "ເຈົ້າມື", "ເສມີ"),
        ("", "my-MM,my;q=0.9,en;q=0.5", "my", "ထိုးသား", "ဒိုင်", "သရေ"),
        ("", "fr-FR,th;q=0.8", "th", "เพลเยอร์", "แบงเกอร์", "เสมอ"),
        ("?lang=xx", "lo-LA", "lo", "ຜູ້ຫຼິ້ນ", "ເຈົ້າມື", "ເສມີ"),
        ("?lang=zh-CN", "th", "zh", "闲", "庄", "和"),
    ],
)
def test_language_comes_from_the_query_then_accept_language(client, table_t1, query, accept, lang, player, banker, tie):
    headers = {"Accept-Language": accept} if accept else {}
    resp = client.get(f"/tables/T1{query}", headers=headers)
    html = resp.get_data(as_text=True)
    assert f'<html lang="{lang}"' in html
    model = boot_of(resp)["models"]["landscape"]
    assert model["lang"] == lang
    words = [i["t"] for p in model["panels"] if p["id"] == "last_result" for i in p["items"]]
    assert words[0] == player and f"{player} 9" in words and f"{banker} 7" in words
    stats = [i["t"] for p in model["panels"] if p["id"] == "stats" for i in p["items"]]
    assert any(t.startswith(tie) for t in stats)


def test_page_text_comes_from_the_catalogue(client, table_t1):
    html = client.get("/tables/T1?lang=my").get_data(as_text=True)
    assert "<title>T1 · ဖဲထုပ်ပေးစက် 1</title>" in html
    assert ">ဧည့်ခန်း</a>" in html  # the lobby link, in Burmese


def test_language_links_switch_language_and_keep_other_options(client, table_t1):
    html = client.get("/tables/T1?theme=light&cols=20").get_data(as_text=True)
    hrefs = dict(re.findall(r'<a href="([^"]+)" hreflang="([\w-]+)"', html))
    by_lang = {lang: href.replace("&amp;", "&") for href, lang in hrefs.items()}
    assert set(by_lang) == set(i18n.LANGUAGES)
    assert "lang=lo" in by_lang["lo"] and "theme=light" in by_lang["lo"] and "cols=20" in by_lang["lo"]


@pytest.mark.parametrize(("path", "default"), [("/tables/T1", "dark"), ("/lobby", "dark"), ("/embed/T1", "light")])
def test_themes_default_per_page_and_follow_the_query(client, table_t1, path, default):
    assert f'class="theme-{default}' in client.get(path).get_data(as_text=True)
    other = "light" if default == "dark" else "dark"
    sep = "&" if "?" in path else "?"
    assert f'class="theme-{other}' in client.get(f"{path}{sep}theme={other}").get_data(as_text=True)


def test_pages_load_their_css_and_scripts_which_exist(client, table_t1):
    html = client.get("/tables/T1").get_data(as_text=True)
    assets = re.findall(r'(?:href|src)="(/(?:static/[^"]+|theme\.css))"', html)
    assert assets == ["/static/js/offline.js", "/theme.css", "/static/css/roads.css", "/static/css/pages.css",
                      "/static/js/paint.js", "/static/js/delta.js", "/static/js/push_socket.js", "/static/js/board.js"]
    for asset in assets:
        resp = client.get(asset)
        assert resp.status_code == 200, asset
        resp.close()
    assert "<script>" not in html and " onclick=" not in html  # scripts are files (Content-Security-Policy)




# ------------------------------------------------------------------ side bets, bead content
SIDE_BETS = [  # a hand-made state: pairs close at round 60 with 2 left, bonus all shoe, naturals closed at 40
    {"bet": "player_pair", "label": "Player Pair", "open": True, "limit": 60, "rounds_left": 2},
    {"bet": "banker_pair", "label": "Banker Pair", "open": True, "limit": 60, "rounds_left": 2},
    {"bet": "player_bonus", "label": "Player Bonus", "open": True, "limit": None, "rounds_left": None},
    {"bet": "banker_bonus", "label": "Banker Bonus", "open": True, "limit": None, "rounds_left": None},
    {"bet": "player_natural", "label": "Player Natural", "open": False, "limit": 40, "rounds_left": 0},
    {"bet": "banker_natural", "label": "Banker Natural", "open": False, "limit": 40, "rounds_left": 0},
]


@pytest.mark.parametrize("lang, want", [
    ("en", [("Pairs · until round 60", "2 left", "warn"), ("Bonus", "Open all shoe", "text"),
            ("Naturals", "Closed (round 40)", "muted")]),
    ("th", [("ไพ่คู่ · ถึงรอบที่ 60", "เหลือ 2 รอบ", "warn"), ("โบนัส", "เปิดทั้งขอน", "text"),
            ("ไพ่ป๊อก", "ปิดแล้ว (รอบที่ 40)", "muted")]),
    ("zh", [("对子 · 至第 60 局", "剩 2 局", "warn"), ("龙宝", "整靴开放", "text"), ("天牌", "已截止（第 40 局）", "muted")]),
])
def test_side_bet_panel_says_each_state_on_one_line_names_left_state_right(lang, want):
    """Each row on one line at 1920x1080: the bets' names (regular) left, the state (bold) right
    in the warning colour when 5 or fewer rounds are left, muted once closed."""
    from web.render.model import BoardOptions, board_model

    snap = {"table": "T1", "shoe": 1, "round": 58, "version": 58, "side_bets": SIDE_BETS, "bead_plate": [],
            "big_road": {"cells": [], "leading_ties": 0}}
    model = board_model(snap, BoardOptions(lang=lang))
    panel = next(p for p in model["panels"] if p["id"] == "side_bets")
    texts = [i for i in panel["items"] if i["p"] == "t"][1:]  # after the title
    rows = [(texts[k]["t"], texts[k + 1]["t"], texts[k]["c"]) for k in range(0, len(texts), 2)]
    assert [(names, state, colour) for state, names, colour in rows] == want
    assert {i["w"] for i in texts[1::2]} == {"r"} and {i["w"] for i in texts[0::2]} == {"b"}
    assert len({round(i["y"]) for i in texts[1::2]}) == 3  # three rows of names, none wrapped


ROUND_TIE = {"player": ["9D", "KC"], "banker": ["9S", "QH"]}  # natural 9 each: a tie at 9


@pytest.mark.parametrize("query, want", [
    ("", ["B", "P", "T"]),                       # letters by default
    ("bead=letters&lang=zh", ["庄", "闲", "和"]),
    ("bead=total", ["7", "9", "9"]),             # the winning total; a tie: the tied total
    ("bead=colour", [None, None, None]),         # colour only: no text in the bead
])
def test_bead_option_letters_total_or_colour(client, auth, table_t1, query, want):
    post_round(client, auth, "T1", 1, 3, ROUND_TIE)
    for path in (f"/tables/T1?{query}", f"/embed/T1?{query}&w=900&h=500"):
        models = boot_of(client.get(path))["models"]
        for model in models.values():
            bead = next(r for r in model["roads"] if r["id"] == "bead_plate")
            assert [c.get("t") for c in bead["cells"]] == want, (path, model["w"])
            assert [c["c"] for c in bead["cells"]] == ["banker", "player", "tie"]


def test_bead_option_is_checked(client, table_t1):
    resp = client.get("/tables/T1?bead=emoji", headers={"Accept": "application/json"})
    assert resp.status_code == 400 and resp.get_json()["error"]["field"] == "bead"
