"""Numbers in URLs have bounds: path numbers are 1-10 ASCII digits, integer query options
an optional sign and 1-9 ASCII digits; anything else is a 4xx in the one error shape."""

from __future__ import annotations

import pytest


from test_feed import error_of

P1, B1 = ["4S", "KD", "9H"], ["7C", "JD"]


@pytest.fixture
def table(client, auth):
    resp = client.post("/api/tables/T1/rounds", json={"shoe": 1, "round": 1, "player": P1, "banker": B1}, headers=auth)
    assert resp.status_code == 201


@pytest.mark.parametrize("path", [
    "/api/tables/T1/shoes/" + "9" * 11,
    "/api/tables/T1/shoes/" + "9" * 5000,
    "/api/tables/T1/shoes/\u0661\u0662",       # ARABIC-INDIC DIGITS ONE, TWO: not shoe 12
    "/api/tables/T1/shoes/99999999999999999999999/rounds",
    "/tables/T1/shoes/99999999999999999999999",
    "/tables/T1/shoes/99999999999999999999999/board.png",
])
def test_long_or_unicode_path_numbers_do_not_match_a_route(client, table, path):
    assert error_of(client.get(path), 404)["code"] == "not_found"


def test_a_ten_digit_shoe_number_is_looked_up(client, table):
    assert error_of(client.get("/api/tables/T1/shoes/9999999999"), 404)["code"] == "unknown_shoe"


@pytest.mark.parametrize("method, path", [
    ("post", "/api/tables/T1/shoes/99999999999999999999999/rounds/1/void"),
    ("post", "/api/tables/T1/shoes/1/rounds/99999999999999999999999/void"),
    ("put", "/api/tables/T1/shoes/99999999999999999999999/rounds/1"),
])
def test_long_path_numbers_on_writes_are_404(client, auth, table, method, path):
    resp = getattr(client, method)(path, json={"reason": "x"}, headers=auth)
    assert error_of(resp, 404)["code"] == "not_found"


@pytest.mark.parametrize("value", ["1_0", "\u0661\u0662", " 12", "12 ", "0x10", "1e3", "9" * 10, "9" * 5000, "--1"])
@pytest.mark.parametrize("path, option", [("/tables/T1", "cols"), ("/tables/T1/board.png", "width"),
                                          ("/tables/T1/board.png", "columns")])
def test_integer_query_options_take_ascii_digits_only(client, table, path, option, value):
    err = error_of(client.get(path, query_string={option: value}), 400)
    assert err["code"] == "bad_parameter" and err["field"] == option
    assert len(err["message"]) < 200  # the input is quoted, cut short
