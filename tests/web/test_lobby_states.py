"""The lobby sorted and filtered by table state (web/http/screen_options.py): ``/lobby?state=betting,dealing``
keeps only those tables, ``?sort=open`` puts open tables first (betting, then dealing or
result, shuffling, closed, maintenance, no state; the configured order kept within each), on the
page, its model JSON and socket, named screens and ``/lobby.png``; bad values are a 400 naming
the option; a live lobby page re-sorts as a table's state changes over the socket."""

from __future__ import annotations

import copy
import json

import pytest
import websocket

from support.feed import AUTH
from support.serving import serve_app
from web.push.delta import apply as delta_apply

IDS = ["T1", "T2", "T3", "T4", "T5", "T6", "T7"]
STATES = {"T1": "closed", "T3": "shuffling", "T4": "result", "T5": "betting", "T6": "dealing", "T7": "maintenance"}
"""T2 has no state (unknown)."""

OPEN_FIRST = ["T5", "T4", "T6", "T3", "T1", "T7", "T2"]
"""``sort=open`` by hand: betting T5; dealing/result T4, T6 in configured order; shuffling T3;
closed T1; maintenance T7; unknown T2."""


@pytest.fixture
def lobby(app_factory):
    app = app_factory(ROADS_TABLES={t: {"name": f"Table {t[1:]}"} for t in IDS},
                      ROADS_SCREENS={"open": {"sort": "open", "state": ["betting", "dealing", "result"]},
                                     "bad": {"state": ["napping"]}})
    client = app.test_client()
    for t, state in STATES.items():
        assert client.post(f"/api/tables/{t}/state", json={"state": state}, headers=AUTH).status_code == 201
    return app, client


def tile_ids(doc, orient="landscape"):
    return [t["id"] for page in doc["pages"][orient] for t in page["tiles"]]


@pytest.mark.parametrize("query, expected", [
    ("", IDS),
    ("sort=none", IDS),
    ("sort=open", OPEN_FIRST),
    ("state=betting,dealing", ["T5", "T6"]),
    ("state=dealing,betting&sort=open", ["T5", "T6"]),
    ("state=unknown", ["T2"]),
    ("state=closed,maintenance,unknown&sort=open", ["T1", "T7", "T2"]),
    ("tables=T2,T6,T5,T1&sort=open", ["T5", "T6", "T1", "T2"]),
    ("state=", IDS),
])
def test_the_lobby_filters_and_sorts_by_state(lobby, query, expected):
    _, client = lobby
    doc = client.get(f"/lobby/model.json?per_page=3&rotate_s=0&{query}").get_json()
    assert tile_ids(doc) == expected and tile_ids(doc, "portrait") == expected
    assert client.get(f"/lobby?{query}").status_code == 200


def test_a_named_screen_sets_sort_and_filter_and_the_query_overrides_them(lobby):
    _, client = lobby
    assert tile_ids(client.get("/screens/open/model.json").get_json()) == ["T5", "T4", "T6"]
    assert tile_ids(client.get("/screens/open/model.json?sort=none").get_json()) == ["T4", "T5", "T6"]
    assert tile_ids(client.get("/screens/open/model.json?state=shuffling").get_json()) == ["T3"]


def test_lobby_png_filters_and_sorts_like_the_page(lobby):
    _, client = lobby
    png = lambda q: client.get(f"/lobby.png?{q}")  # noqa: E731
    assert png("state=betting").data == png("tables=T5").data
    assert png("sort=open").data == png("tables=" + ",".join(OPEN_FIRST)).data
    assert png("sort=open").data != png("").data
    assert png("state=betting").headers["Content-Type"] == "image/png"
    assert client.get("/screens/open.png").data == png("tables=T5,T4,T6").data


@pytest.mark.parametrize("query, field", [
    ("state=napping", "state"), ("state=betting,Betting", "state"), ("sort=closed", "sort"), ("sort=OPEN", "sort"),
])
@pytest.mark.parametrize("path", ["/lobby/model.json", "/lobby.png", "/lobby", "/screens/open/model.json"])
def test_bad_state_or_sort_values_are_a_400_naming_the_option(lobby, path, query, field):
    from test_error_shape import assert_canonical_error

    _, client = lobby
    err = assert_canonical_error(client.get(f"{path}?{query}", headers={"Accept": "application/json"}), 400,
                                 "bad_parameter", field)
    assert query.split("=")[1].split(",")[-1] in err["message"]


def test_a_named_screen_with_a_bad_state_is_a_400_naming_it(lobby):
    from test_error_shape import assert_canonical_error

    _, client = lobby
    assert_canonical_error(client.get("/screens/bad/model.json"), 400, "bad_parameter", "state")


def frame(ws):
    while True:
        msg = json.loads(ws.recv())
        if msg["type"] != "keepalive":
            return msg


def test_a_table_entering_betting_moves_first_on_a_live_lobby_sorted_open(lobby):
    """Over the lobby's model socket (what the page paints): T2 (no state, last) opens betting
    and its tile moves first (beside T5, also betting, in configured order); T5 goes on to
    dealing and joins T4 and T6. The filtered lobby
    loses a table that leaves the states it shows."""
    app, client = lobby
    with serve_app(app, "test-lobby-states") as srv:
        base = f"ws://127.0.0.1:{srv.server_port}/ws/models/lobby?rotate_s=0&per_page=24"
        ws = websocket.create_connection(base + "&sort=open", timeout=10)
        only = websocket.create_connection(base + "&state=betting", timeout=10)
        try:
            doc = frame(ws)["data"]
            assert tile_ids(doc) == OPEN_FIRST
            odoc = frame(only)["data"]
            assert tile_ids(odoc) == ["T5"]
            # Each socket is read after each change: a screen that reads late skips to the newest
            # version (the hub keeps only the latest), so the filtered one is read step by step.
            steps = [("T2", {"state": "betting", "seconds_left": 20}, ["T2", "T5", "T4", "T6", "T3", "T1", "T7"],
                      ["T2", "T5"]),
                     ("T5", {"state": "dealing"}, ["T2", "T4", "T5", "T6", "T3", "T1", "T7"], ["T2"])]
            for table, body, expected, expected_only in steps:
                assert client.post(f"/api/tables/{table}/state", json=body, headers=AUTH).status_code == 201
                msg = frame(ws)
                doc = delta_apply(copy.deepcopy(doc), msg["ops"]) if msg["type"] == "delta" else msg["data"]
                assert tile_ids(doc) == expected
                msg = frame(only)
                odoc = delta_apply(copy.deepcopy(odoc), msg["ops"]) if msg["type"] == "delta" else msg["data"]
                assert tile_ids(odoc) == expected_only
        finally:
            ws.close()
            only.close()
