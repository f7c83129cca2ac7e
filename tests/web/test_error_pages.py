"""Error pages (web/http/error_pages.py): a browser gets the error as a page in the page theme
and language with a link back to the lobby; /api/ and non-browser clients keep the one JSON
error shape (web/http/errors.py).

Expected words come from the catalogues (web/i18n/*.json, the source of every label); the
statuses and codes from docs/api.md's error table.
"""

from __future__ import annotations

import pytest

from support.html import Page, csp_violations
from web import i18n

BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
ROUND_B = {"shoe": 1, "round": 1, "player": ["4S", "KD", "9H"], "banker": ["7C", "JD"]}


def page_of(resp) -> Page:
    assert resp.mimetype == "text/html", resp.mimetype
    return Page(resp.get_data(as_text=True))


@pytest.fixture
def table_t1(client, auth):
    resp = client.post("/api/tables/T1/rounds", json=ROUND_B, headers=auth)
    assert resp.status_code == 201
    return "T1"


def test_unknown_table_is_a_dark_english_page_with_a_way_back(client):
    resp = client.get("/tables/nosuch", headers=BROWSER)
    assert resp.status_code == 404
    page = page_of(resp)
    html = page.find("html")
    assert html.attrs["lang"] == "en" and "theme-dark" in html.attrs["class"].split()
    assert page.find("h1").text == "Page not found"
    assert page.find("p", class_="error-explanation").text == "There is no table nosuch."
    assert page.find("a", data_link="lobby").attrs["href"] == "/lobby"
    assert page.find("a", data_link="lobby").text == "Back to the lobby"
    assert page.find("link", rel="stylesheet", href="/static/css/roads.css")
    assert page.find("code", data_code="unknown_table")
    assert page.find_all("a", data_link="table") == []   # no such table to go back to


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_the_error_page_speaks_the_lang_option_and_keeps_it_on_the_way_back(client, lang):
    page = page_of(client.get(f"/tables/nosuch?lang={lang}&theme=light", headers=BROWSER))
    html = page.find("html")
    assert html.attrs["lang"] == lang and "theme-light" in html.attrs["class"].split()
    assert page.find("h1").text == i18n.translate("error.title_404", lang)
    assert page.find("p", class_="error-explanation").text == i18n.translate("error.unknown_table", lang,
                                                                               table="nosuch")
    back = page.find("a", data_link="lobby")
    assert back.text == i18n.translate("error.back_to_lobby", lang)
    assert back.attrs["href"] in (f"/lobby?lang={lang}&theme=light", f"/lobby?theme=light&lang={lang}")
    if lang != "en":
        assert page.find("h1").text != i18n.translate("error.title_404", "en")


def test_the_error_page_follows_accept_language(client):
    page = page_of(client.get("/tables/nosuch", headers={**BROWSER, "Accept-Language": "my-MM,my;q=0.9,en;q=0.5"}))
    assert page.find("html").attrs["lang"] == "my"
    assert page.find("h1").text == "စာမျက်နှာ မတွေ့ပါ"   # my.json error.title_404


def test_an_unknown_address_is_a_404_page(client):
    resp = client.get("/no/such/page?lang=zh", headers=BROWSER)
    assert resp.status_code == 404
    page = page_of(resp)
    assert page.find("h1").text == "找不到页面"
    assert page.find("p", class_="error-explanation").text == "此地址没有内容。"
    assert page.find("a", data_link="lobby").attrs["href"] == "/lobby?lang=zh"


def test_a_bad_theme_is_a_400_page_in_the_default_theme_whose_links_drop_the_bad_option(client, table_t1):
    resp = client.get("/tables/T1?theme=purple&lang=th", headers=BROWSER)
    assert resp.status_code == 400
    page = page_of(resp)
    assert "theme-dark" in page.find("html").attrs["class"].split()
    assert page.find("h1").text == i18n.translate("error.title_400", "th")
    assert page.find("p", class_="error-explanation").text == i18n.translate(
        "error.bad_parameter", "th", field="theme", value="purple")
    for a in page.find_all("a", hreflang="en") + page.find_all("a", data_theme_link="light"):
        assert "purple" not in a.attrs["href"]
    back = page.find("a", data_link="table")
    assert back.attrs["href"] == "/tables/T1?lang=th"
    assert back.text == i18n.translate("error.back_to_table", "th", table="T1")


def test_a_bad_number_option_names_and_quotes_it(client, table_t1):
    page = page_of(client.get("/tables/T1?cols=abc", headers=BROWSER))
    assert page.find("p", class_="error-explanation").text == \
        "The option cols has a value this page cannot use: abc"


def test_an_unknown_shoe_links_back_to_the_table_and_its_shoes(client, table_t1):
    resp = client.get("/tables/T1/shoes/7", headers=BROWSER)
    assert resp.status_code == 404
    page = page_of(resp)
    assert page.find("p", class_="error-explanation").text == "Table T1 has no shoe 7."
    assert page.find("a", data_link="table").attrs["href"] == "/tables/T1"
    assert page.find("a", data_link="shoes").attrs["href"] == "/tables/T1/shoes"


def test_the_embed_error_page_defaults_to_the_light_theme(client):
    page = page_of(client.get("/embed/nosuch", headers=BROWSER))
    assert "theme-light" in page.find("html").attrs["class"].split()


def test_a_wrong_method_from_a_browser_keeps_its_allow_header(client):
    resp = client.post("/lobby", headers=BROWSER)
    assert resp.status_code == 405
    assert resp.headers["Allow"] == "GET, HEAD, OPTIONS"
    assert page_of(resp).find("h1").text == "This address does not take that request"


def test_what_the_address_says_is_escaped(client):
    resp = client.get("/tables/%3Cscript%3Ealert(1)%3C%2Fscript%3E", headers=BROWSER)
    assert resp.status_code == 404
    body = resp.get_data(as_text=True)
    assert "<script>alert(1)" not in body and "&lt;script&gt;alert(1)" in body
    resp = client.get('/tables/T1?cols="><b>x', headers=BROWSER)
    assert '"><b>x' not in resp.get_data(as_text=True)


@pytest.mark.parametrize("path", ["/tables/nosuch", "/nowhere", "/tables/T1?theme=x", "/embed/nosuch?lang=lo"])
def test_error_pages_pass_a_strict_content_security_policy(client, path):
    assert csp_violations(page_of(client.get(path, headers=BROWSER))) == []


# ------------------------------------------------------------------ the JSON shape stays
@pytest.mark.parametrize("headers", [{}, {"Accept": "application/json"}, {"Accept": "*/*"}])
def test_non_browsers_still_get_the_json_error_shape(client, headers):
    resp = client.get("/tables/nosuch", headers=headers)
    assert resp.status_code == 404 and resp.mimetype == "application/json"
    assert resp.get_json() == {"error": {"status": 404, "code": "unknown_table", "message": "no table 'nosuch'",
                                         "field": "table_id"}}


def test_the_api_answers_json_even_to_a_browser(client):
    resp = client.get("/api/tables/nosuch", headers=BROWSER)
    assert resp.status_code == 404 and resp.mimetype == "application/json"
    assert resp.get_json()["error"]["code"] == "unknown_table"
