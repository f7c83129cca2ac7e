"""The shoes page of a table (web/http/shoes_pages.py): every shoe with start and end times,
rounds counted and voided, game, and links to its board page, PNG and JSON; linked from the
table page; in all five languages.

The service's clock is fixed (a write every 60 s from 2024-06-15 12:00:00 UTC), so the times
on the page are known in advance: shoe 1 starts with its first round (write 1, 12:00:00) and
ends with its last round (write 3, 12:02:00; the void at 12:03:00 is no round); shoe 2 starts
explicitly at 12:04:00 and its first round comes at 12:05:00.
Rounds are worked out from the tableau (docs/domain.md section 1).
"""

from __future__ import annotations

import itertools

import pytest

from support.html import Page, csp_violations
from web import i18n

START = 1_718_452_800.0   # 2024-06-15T12:00:00Z
ROUND_B = {"player": ["4S", "KD", "9H"], "banker": ["7C", "JD"]}        # Banker 7-3
ROUND_P_NATURAL = {"player": ["9C", "KH"], "banker": ["5D", "2S"]}      # Player natural 9-7
ROUND_B_NATURAL = {"player": ["2C", "3H", "4D"], "banker": ["8S", "QC"]}  # Banker natural 8


@pytest.fixture
def two_shoes(app, client, feed):
    from web.service import get_service

    ticks = itertools.count()
    get_service(app).clock = lambda: START + 60 * next(ticks)
    assert feed.round(1, 1, **ROUND_B).status_code == 201             # 12:00:00, starts shoe 1
    assert feed.round(1, 2, **ROUND_P_NATURAL).status_code == 201     # 12:01:00
    assert feed.round(1, 3, **ROUND_B).status_code == 201             # 12:02:00
    assert feed.void(1, 2, "misdeal").status_code == 201              # 12:03:00
    assert feed.shoe(2, variant="seed004_mini").status_code == 201    # 12:04:00
    assert feed.round(2, 1, **ROUND_P_NATURAL).status_code == 201     # 12:05:00
    return "T1"


def page_of(resp) -> Page:
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert resp.mimetype == "text/html"
    return Page(resp.get_data(as_text=True))


def cell(page: Page, shoe: int, name: str):
    row = page.find("tr", data_shoe=str(shoe))
    found = [el for el in page.find_all("td", data_field=name) if el.parent is row]
    assert len(found) == 1
    return found[0]


def test_every_shoe_is_listed_newest_first_with_its_times_rounds_and_game(client, two_shoes):
    page = page_of(client.get("/tables/T1/shoes"))
    assert [el.attrs["data-shoe"] for el in page.find_all("tr") if "data-shoe" in el.attrs] == ["2", "1"]
    assert cell(page, 1, "started").text == "2024-06-15 12:00:00"
    assert page.find_all("time", datetime="2024-06-15T12:00:00.000Z")
    assert cell(page, 1, "ended").text == "2024-06-15 12:02:00"
    assert (cell(page, 1, "counted").text, cell(page, 1, "voided").text) == ("2", "1")
    assert cell(page, 1, "variant").text == "Live Baccarat"          # the default preset, seed 000
    assert cell(page, 2, "started").text == "2024-06-15 12:04:00"
    assert cell(page, 2, "ended").text == "in play · last round 2024-06-15 12:05:00"
    assert (cell(page, 2, "counted").text, cell(page, 2, "voided").text) == ("1", "0")
    assert cell(page, 2, "variant").text == "Mini Baccarat"             # catalogue name (variant.seed004_mini)
    assert page.find("tr", data_shoe="2").attrs["data-live"] == "true"
    assert page.find("span", data_field="count").text == "2 shoes"


def test_the_times_are_labelled_with_their_zone(client, two_shoes):
    page = page_of(client.get("/tables/T1/shoes"))
    assert page.find("span", data_field="zone").text == "Times in UTC"
    headers = [th.text for th in page.find_all("th")]
    assert "Started (UTC)" in headers and "Ended (UTC)" in headers


def test_each_shoe_links_its_board_png_and_json_and_each_answers(client, two_shoes):
    page = page_of(client.get("/tables/T1/shoes?lang=th&theme=light"))

    def links(shoe):
        row = page.find("tr", data_shoe=str(shoe))
        return {a.attrs["data-link"]: a.attrs["href"] for a in page.find_all("a")
                if a.parent is not None and a.parent.parent is not None and a.parent.parent.parent is row}

    past = links(1)
    assert past["board"] in ("/tables/T1/shoes/1?lang=th&theme=light", "/tables/T1/shoes/1?theme=light&lang=th")
    assert past["png"].startswith("/tables/T1/shoes/1/board.png?")
    assert past["json"] == "/api/tables/T1/shoes/1"
    current = links(2)
    assert current["board"].startswith("/tables/T1?")     # the live board for the current shoe
    assert current["json"] == "/api/tables/T1/shoes/2"
    for href, kind in [(past["board"], "text/html"), (past["png"], "image/png"), (past["json"], "application/json"),
                       (current["board"], "text/html"), (current["png"], "image/png")]:
        resp = client.get(href)
        assert resp.status_code == 200 and resp.mimetype == kind, href
    assert client.get(past["json"]).get_json()["shoe"] == 1


def test_the_page_carries_the_same_data_as_its_json_twin(client, two_shoes):
    page = page_of(client.get("/tables/T1/shoes"))
    twin = page.find("link", rel="alternate", type="application/json").attrs["href"]
    assert twin == "/api/tables/T1/shoes"
    assert page.find("header", class_="shoes-head").text.endswith("JSON")
    listing = client.get(twin).get_json()["shoes"]
    for s in listing:
        assert cell(page, s["shoe"], "counted").text == str(s["counted"])
        assert page.find_all("time", datetime=s["started_at"])


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_the_page_is_in_every_language(client, two_shoes, lang):
    page = page_of(client.get(f"/tables/T1/shoes?lang={lang}"))
    assert page.find("html").attrs["lang"] == lang
    assert page.find("h1").text == i18n.translate("shoes.title", lang, table="T1")
    headers = [th.text for th in page.find_all("th")]
    assert headers[:2] == [i18n.translate("ui.shoe", lang), i18n.translate("ui.variant", lang)]
    assert headers[2] == i18n.translate("shoes.started", lang) + " (UTC)"
    assert cell(page, 1, "shoe").text == i18n.translate("ui.shoe_n", lang, n=1)
    assert page.find("a", data_link="live").attrs["href"] == f"/tables/T1?lang={lang}"
    if lang != "en":
        assert page.find("h1").text != i18n.translate("shoes.title", "en", table="T1")


def test_the_table_page_links_to_the_shoes_page(client, two_shoes):
    html = client.get("/tables/T1?lang=zh").get_data(as_text=True)
    page = Page(html)
    assert page.find("a", data_link="shoes").attrs["href"] == "/tables/T1/shoes?lang=zh"
    past = Page(client.get("/tables/T1/shoes/1").get_data(as_text=True))
    assert past.find("a", data_link="shoes").attrs["href"] == "/tables/T1/shoes"


def test_theme_follows_the_query(client, two_shoes):
    assert "theme-dark" in page_of(client.get("/tables/T1/shoes")).find("html").attrs["class"].split()
    assert "theme-light" in page_of(client.get("/tables/T1/shoes?theme=light")).find("html").attrs["class"].split()


def test_a_configured_table_without_shoes_says_so(app_factory):
    app = app_factory("d", ROADS_TABLES={"T9": {"name": "百家乐 9"}})
    page = page_of(app.test_client().get("/tables/T9/shoes"))
    assert page.find("p", class_="shoes-empty").text == "No shoes yet"
    assert page.find("h1").text == "Shoes of 百家乐 9"


def test_unknown_table_and_bad_theme_are_errors_in_the_one_shape(client, two_shoes):
    resp = client.get("/tables/nosuch/shoes")
    assert resp.status_code == 404 and resp.get_json()["error"]["code"] == "unknown_table"
    resp = client.get("/tables/T1/shoes?theme=pink")
    assert resp.status_code == 400 and resp.get_json()["error"]["field"] == "theme"
    resp = client.get("/tables/nosuch/shoes", headers={"Accept": "text/html"})
    assert resp.status_code == 404 and resp.mimetype == "text/html"


def test_the_page_passes_a_strict_content_security_policy(client, two_shoes):
    assert csp_violations(page_of(client.get("/tables/T1/shoes"))) == []


@pytest.mark.parametrize("lang,words", [("en", "1 shoe"), ("zh", "共 1 靴"), ("th", "1 ขอน")])
def test_one_shoe_is_said_in_the_singular(client, feed, lang, words):
    # English inflects ("1 shoe", "2 shoes"); Chinese and Thai count without a plural form
    assert feed.round(1, 1, **ROUND_B).status_code == 201
    page = page_of(client.get(f"/tables/T1/shoes?lang={lang}"))
    assert page.find("span", data_field="count").text == words
