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
    html = resp.get_data(as_text=True)
    assert '<p class="no-tables" id="no-tables">No tables yet</p>' in html
    assert boot_of(resp)["tables"] == []


def test_lobby_carries_the_json_twin_data_and_the_tile_geometry(client, table_t1):
    resp = client.get("/lobby")
    boot = boot_of(resp)
    twin = client.get("/api/tables").get_json()
    assert boot["tables"] == twin["tables"]
    assert boot["version"] == twin["version"]
    assert [t["id"] for t in boot["tables"]] == ["T1"]
    assert boot["tile"] == board_layout(480, 270, kind="tile")
    # the shapes the wall may choose from (16:9, 2:1, 2.4:1), the default first
    assert boot["tiles"] == [board_layout(w, h, kind="tile") for w, h in ((480, 270), (480, 240), (480, 200))]
    assert boot["ws"] == "/ws/lobby"
    assert boot["tableUrl"] == "/tables/{id}"
    assert links(resp, "json") == ["/api/tables"]
    assert 'class="theme-dark' in resp.get_data(as_text=True)  # the lobby wall defaults to dark


def test_lobby_links_keep_language_and_theme_for_the_tiles(client, table_t1):
    boot = boot_of(client.get("/lobby?lang=zh&theme=light"))
    assert boot["query"] == "?lang=zh&theme=light"
    assert boot["labels"]["winner.B"] == "庄"


# ------------------------------------------------------------------ table board
def test_table_page_embeds_the_snapshot_of_its_json_twin(client, table_t1):
    resp = client.get("/tables/T1")
    assert resp.status_code == 200
    assert resp.mimetype == "text/html"
    boot = boot_of(resp)
    assert boot["snapshot"] == client.get("/api/tables/T1").get_json()
    assert boot["page"] == "table" and boot["live"] is True
    assert boot["ws"] == "/ws/tables/T1"
    # Hand-worked: round 2 was a Player natural 9 against 7, in a new big-road column.
    last = boot["snapshot"]["last"]
    assert (last["round"], last["winner"], last["player_total"], last["banker_total"], last["natural"]) == (2, "P", 9, 7, True)
    assert [(c["x"], c["y"]) for c in boot["snapshot"]["big_road"]["cells"]] == [(0, 0), (1, 0)]
    assert [(b["x"], b["y"], b["winner"]) for b in boot["snapshot"]["bead_plate"]] == [(0, 0, "B"), (0, 1, "P")]


def test_table_page_uses_the_shared_layout_for_both_orientations(client, table_t1):
    boot = boot_of(client.get("/tables/T1"))
    assert boot["layouts"] == {
        "landscape": board_layout(1920, 1080, kind="board"),
        "portrait": board_layout(1080, 1920, kind="board"),
    }
    assert boot["layouts"]["landscape"]["orientation"] == "landscape"
    assert boot["layouts"]["portrait"]["orientation"] == "portrait"


def test_table_page_columns_option_reaches_the_layout(client, table_t1):
    boot = boot_of(client.get("/tables/T1?cols=30"))
    assert boot["layouts"]["landscape"] == board_layout(1920, 1080, kind="board", columns=30)
    assert boot["layouts"]["landscape"]["regions"]["big_road"]["cols"] == 30


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
    match = re.search(r'&lt;iframe src="([^"]+)" width="800" height="450"', html)
    assert match, "no embed snippet"
    src = match.group(1).replace("&amp;", "&")
    assert src.startswith("http://localhost/embed/T1?")
    assert "roads=big_road,bead_plate" in src and "lang=th" in src and "theme=light" in src
    # The snippet's URL works.
    path = src.removeprefix("http://localhost")
    assert client.get(path).status_code == 200


def test_table_page_opens_shoes_and_embed_snippet_as_overlays_from_its_link_bar(client, table_t1):
    """The page is one screen (board + link bar); the snippet opens over it, the shoes link
    leads to the table's shoes page (web/http/shoes_pages.py)."""
    resp = client.get("/tables/T1")
    html = resp.get_data(as_text=True)
    assert links(resp, "shoes") == ["/tables/T1/shoes"]
    assert links(resp, "embed") == ["#embed"]
    assert '<section class="more-box" id="shoes"' in html and '<section class="more-box" id="embed"' in html
    assert html.count('data-link="close"') == 2
    assert 'class="theme-dark board-html"' in html


def test_table_page_lists_the_shoes_with_links_to_past_boards(client, auth, table_t1):
    post_round(client, auth, "T1", 2, 1, ROUND_B)
    html = client.get("/tables/T1").get_data(as_text=True)
    assert re.findall(r'href="(/tables/T1/shoes/\d+)" data-shoe', html) == ["/tables/T1/shoes/1", "/tables/T1/shoes/2"]


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
    assert boot["snapshot"] == client.get("/api/tables/T1/shoes/1").get_json()
    assert boot["snapshot"]["shoe"] == 1 and boot["snapshot"]["round"] == 2
    assert links(resp, "json") == ["/api/tables/T1/shoes/1"]
    assert links(resp, "png") == ["/tables/T1/shoes/1/board.png"]
    assert links(resp, "live") == ["/tables/T1"]
    # The live board has moved on to shoe 2.
    assert boot_of(client.get("/tables/T1"))["snapshot"]["shoe"] == 2


def test_unknown_past_shoe_is_404_naming_the_shoe(client, table_t1):
    resp = client.get("/tables/T1/shoes/9", headers={"Accept": "application/json"})
    assert resp.status_code == 404
    err = resp.get_json()["error"]
    assert err["code"] == "unknown_shoe" and err["field"] == "shoe"


def test_shoe_that_is_not_a_number_is_404(client, table_t1):
    assert client.get("/tables/T1/shoes/one", headers={"Accept": "application/json"}).status_code == 404


# ------------------------------------------------------------------ embed
def test_embed_lays_out_the_chosen_roads_and_columns(client, table_t1):
    resp = client.get("/embed/T1?roads=big_road,bead_plate&cols=20&w=900&h=500")
    assert resp.status_code == 200
    boot = boot_of(resp)
    assert boot["page"] == "embed" and boot["compact"] is True
    assert boot["layouts"] == {"fixed": board_layout(900, 500, kind="embed", roads=["big_road", "bead_plate"], columns=20)}
    assert set(boot["layouts"]["fixed"]["regions"]) == {"big_road", "bead_plate"}
    assert boot["snapshot"] == client.get("/api/tables/T1").get_json()
    assert boot["ws"] == "/ws/tables/T1"
    assert re.findall(r'href="([^"]+)"[^>]*data-link="json"', resp.get_data(as_text=True)) == ["/api/tables/T1"]


def test_embed_defaults_to_all_roads_light_theme_800_by_450(client, table_t1):
    resp = client.get("/embed/T1")
    boot = boot_of(resp)
    assert boot["layouts"]["fixed"] == board_layout(800, 450, kind="embed")
    assert 'class="theme-light' in resp.get_data(as_text=True)


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
    labels = boot_of(resp)["labels"]
    assert (labels["winner.P"], labels["winner.B"], labels["winner.T"]) == (player, banker, tie)
    assert labels == i18n.catalogue(lang)


def test_page_text_comes_from_the_catalogue(client, table_t1):
    html = client.get("/tables/T1?lang=my").get_data(as_text=True)
    assert "<title>T1 · ဖဲထုပ်ပေးစက် 1</title>" in html
    assert ">ဧည့်ခန်း</a>" in html  # the lobby link, in Burmese


def test_language_links_switch_language_and_keep_other_options(client, table_t1):
    html = client.get("/tables/T1?theme=light&cols=20").get_data(as_text=True)
    hrefs = dict(re.findall(r'<a href="([^"]+)" hreflang="(\w+)"', html))
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
    assets = re.findall(r'(?:href|src)="(/static/[^"]+)"', html)
    assert assets == ["/static/css/roads.css", "/static/css/pages.css", "/static/js/roads.js", "/static/js/live.js", "/static/js/board.js"]
    for asset in assets:
        resp = client.get(asset)
        assert resp.status_code == 200, asset
        resp.close()
