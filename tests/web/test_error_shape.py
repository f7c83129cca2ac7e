"""Every error-raising route answers a bad input in the one error shape, and changes nothing.

Walks the feed (rounds, shoes, void, correction), the read API, the pages, the PNGs and the
WebSocket with one bad input each and checks the answer against docs/api.md ("Errors"):

    {"error": {"status": <the HTTP status>, "code": "<stable code>", "message": "...", "field": <path or null>}}

The expected status and code of each case are the ones the docs' table gives for that
mistake; the field is the request field the mistake is in (a path such as ``"player[1]"``; the ``Authorization`` header for a
token), ``null`` when it is in no field. After each refusal, everything the read API shows (every
table, shoe and round export) is byte for byte what it was before.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import websocket

from support.feed import AUTH, Feed, close_app, make_app, record_lobby
from support.serving import serve_app

P1, B1 = ["4S", "KD", "9H"], ["7C", "JD"]  # player 4+0 draws 9 -> 3, banker 7 stands: B
P2, B2 = ["9C", "KH"], ["5D", "2S"]  # player natural 9 beats 7: P
P3, B3 = ["3H", "3D"], ["4S", "AC", "2H"]  # player 6 stands; banker 5 draws: 5+2 = 7: B
SIX_ACES = (["AS", "AS", "AS"], ["AS", "AS", "AS"])  # 2 draws A -> 3; banker 2 draws A -> 3: tie
BURN = ["5H", "KD", "2C", "9S", "4D", "QH"]  # the turned 5 burns five more
RESULT = {"winner": "B", "player_total": 3, "banker_total": 7,
          "player_pair": False, "banker_pair": False, "natural": False}
NO_AUTH: dict[str, str] = {}
BAD_AUTH = {"Authorization": "Bearer not-the-token"}


def assert_canonical_error(resp, status: int, code: str, field: str | None) -> dict:
    """``resp`` is the one JSON error shape with ``status``, ``code`` and ``field``; returns the error."""
    assert resp.status_code == status, resp.get_data(as_text=True)
    assert resp.mimetype == "application/json"
    body = json.loads(resp.get_data(as_text=True))
    assert set(body) == {"error"}
    return assert_canonical_error_object(body["error"], status, code, field)


def assert_canonical_error_object(err: Any, status: int, code: str, field: str | None) -> dict:
    """The error object itself: the four keys (extra keys allowed), a message in words."""
    assert isinstance(err, dict) and {"status", "code", "message", "field"} <= set(err), err
    assert (err["status"], err["code"], err["field"]) == (status, code, field), err
    assert isinstance(err["message"], str) and err["message"].strip(), err
    return err


# ----------------------------------------------------------------------------- the record
@pytest.fixture(scope="module")
def app(tmp_path_factory):
    """One service with a record to refuse writes against:

    * ``T1``: shoe 1 (burn, cut card at 30) with rounds 1-3, round 3 voided;
    * ``ENDED``: shoe 1 ended by the cut card at round 1;
    * ``NEXT``: shoe 3 round 1, then shoe 5 round 1 (shoe 3 is past);
    * ``ACES``: 8 aces of spades dealt in shoe 1 (all an 8-deck shoe holds).
    """
    app = make_app(tmp_path_factory.mktemp("error-shape") / "data")
    feed = Feed(app.test_client())
    writes = [
        feed.shoe(1, burn=BURN, cut_card_position=30),
        feed.round(1, 1, P1, B1), feed.round(1, 2, P2, B2), feed.round(1, 3, P3, B3),
        feed.void(1, 3, "misdeal"),
        feed.round(1, 1, P1, B1, table="ENDED", cut_card=True),
        feed.round(3, 1, P1, B1, table="NEXT"), feed.round(5, 1, P2, B2, table="NEXT"),
        feed.round(1, 1, *SIX_ACES, table="ACES"),
        feed.round(1, 2, ["AS", "AS", "KD"], ["KH", "KC", "KS"], table="ACES"),  # P 2 draws K; B 0 draws K
    ]
    assert [w.status_code for w in writes] == [201] * len(writes), [w.get_json() for w in writes]
    yield app
    close_app(app)


@pytest.fixture
def client(app):
    return app.test_client()


def everything(client) -> dict[str, bytes]:
    """Every read-API answer of every table and shoe, as bytes (to prove nothing changed; the lobby
    without integrity marks, :func:`support.feed.record_lobby`)."""
    out: dict = {"/api/tables": record_lobby(client)}
    for t in out["/api/tables"]["tables"]:
        base = f"/api/tables/{t['id']}"
        out[base] = client.get(base).data
        out[base + "/shoes"] = client.get(base + "/shoes").data
        for s in json.loads(out[base + "/shoes"])["shoes"]:
            for suffix in ("", "/rounds"):
                out[f"{base}/shoes/{s['shoe']}{suffix}"] = client.get(f"{base}/shoes/{s['shoe']}{suffix}").data
    return out


def rnd(shoe: int, number: int, player=P1, banker=B1, **extra) -> dict:
    """A card-level feed round body."""
    return {"shoe": shoe, "round": number, "player": player, "banker": banker, **extra}


# ----------------------------------------------------------------------------- HTTP cases
# (id, method, path, keyword arguments of the test client's call, status, code, field)
ROUNDS = "/api/tables/T1/rounds"
HTTP_CASES = [
    # feed: rounds
    ("round not JSON", "POST", ROUNDS, dict(data="{", content_type="application/json"), 400, "malformed_json", None),
    ("round empty body", "POST", ROUNDS, dict(data="", content_type="application/json"), 400, "malformed_json", None),
    ("round duplicate key", "POST", ROUNDS, dict(data='{"shoe": 1, "shoe": 1}', content_type="application/json"),
     400, "malformed_json", "shoe"),
    ("round NaN", "POST", ROUNDS, dict(data='{"shoe": NaN}', content_type="application/json"), 400, "malformed_json", None),
    ("round not an object", "POST", ROUNDS, dict(json=[1, 2]), 400, "not_an_object", None),
    ("round unknown field", "POST", ROUNDS, dict(json=rnd(1, 4, colour="red")), 400, "unknown_field", "colour"),
    ("round missing shoe", "POST", ROUNDS, dict(json={"round": 4, "player": P1, "banker": B1}),
     400, "missing_field", "shoe"),
    ("round shoe as text", "POST", ROUNDS, dict(json=rnd("1", 4)), 400, "invalid_value", "shoe"),
    ("round cut_card 1", "POST", ROUNDS, dict(json=rnd(1, 4, cut_card=1)), 400, "invalid_value", "cut_card"),
    ("round bad card", "POST", ROUNDS, dict(json=rnd(1, 4, player=["4S", "ZZ"])), 400, "bad_card", "player[1]"),
    ("round bad burn card", "POST", ROUNDS, dict(json=rnd(1, 4, burn=["1X"])), 400, "bad_card", "burn[0]"),
    ("round one card", "POST", ROUNDS, dict(json=rnd(1, 4, player=["4S"])), 400, "card_count", "player"),
    ("round four cards", "POST", ROUNDS, dict(json=rnd(1, 4, banker=["7C", "JD", "2H", "3H"])),
     400, "card_count", "banker"),
    ("round bad table id", "POST", "/api/tables/no%20spaces/rounds", dict(json=rnd(1, 4)),
     400, "bad_table_id", "table_id"),
    ("round without token", "POST", ROUNDS, dict(json=rnd(1, 4), auth=NO_AUTH), 401, "unauthorized", "Authorization"),
    ("round wrong token", "POST", ROUNDS, dict(json=rnd(1, 4), auth=BAD_AUTH), 401, "unauthorized", "Authorization"),
    ("round taken number", "POST", ROUNDS, dict(json=rnd(1, 1, P2, B2)), 409, "round_conflict", "round"),
    ("round gap", "POST", ROUNDS, dict(json=rnd(1, 9)), 409, "round_gap", "round"),
    ("new shoe not at round 1", "POST", ROUNDS, dict(json=rnd(2, 5)), 409, "round_gap", "round"),
    ("round shoe backwards", "POST", "/api/tables/NEXT/rounds", dict(json=rnd(4, 1)), 409, "shoe_backwards", "shoe"),
    ("round after the cut card", "POST", "/api/tables/ENDED/rounds", dict(json=rnd(1, 2, P2, B2)),
     409, "shoe_ended", "round"),
    ("round too large", "POST", ROUNDS, dict(json=rnd(1, 4, pad="x" * 20_000)), 413, "body_too_large", None),
    ("round breaks the tableau", "POST", ROUNDS, dict(json=rnd(1, 4, ["4S", "KD"], ["7C", "JD"])),
     422, "tableau", "player"),
    ("result contradicts itself", "POST", ROUNDS, dict(json={"shoe": 1, "round": 4, "result": {**RESULT, "winner": "P"}}),
     422, "result_contradiction", "result.winner"),
    ("cards and result together", "POST", ROUNDS, dict(json={**rnd(1, 4), "result": RESULT}),
     400, "unknown_field", "player"),
    ("9th ace of spades", "POST", "/api/tables/ACES/rounds", dict(json=rnd(1, 3, ["2C", "AS", "KD"], ["KH", "KC", "KS"])),
     422, "too_many_copies", "player[1]"),
    ("rounds by GET", "GET", ROUNDS, {}, 405, "method_not_allowed", None),
    # feed: shoes
    ("shoe burn count", "POST", "/api/tables/T1/shoes", dict(json={"shoe": 2, "burn": ["5H", "KD"]}),
     422, "burn_count", "burn"),
    ("shoe unknown variant", "POST", "/api/tables/T1/shoes", dict(json={"shoe": 2, "variant": "no-such-game"}),
     422, "unknown_variant", "variant"),
    ("shoe missing number", "POST", "/api/tables/T1/shoes", dict(json={"burn": BURN}), 400, "missing_field", "shoe"),
    ("shoe cut card as text", "POST", "/api/tables/T1/shoes", dict(json={"shoe": 2, "cut_card_position": "deep"}),
     400, "invalid_value", "cut_card_position"),
    ("shoe backwards", "POST", "/api/tables/NEXT/shoes", dict(json={"shoe": 4}), 409, "shoe_backwards", "shoe"),
    ("shoe started again otherwise", "POST", "/api/tables/T1/shoes",
     dict(json={"shoe": 1, "burn": ["2H", "KD", "QD"]}), 409, "shoe_conflict", "shoe"),
    ("shoe without token", "POST", "/api/tables/T1/shoes", dict(json={"shoe": 2}, auth=NO_AUTH),
     401, "unauthorized", "Authorization"),
    # feed: void
    ("void without reason", "POST", "/api/tables/T1/shoes/1/rounds/2/void", dict(json={}), 400, "missing_field", "reason"),
    ("void unknown round", "POST", "/api/tables/T1/shoes/1/rounds/9/void", dict(json={"reason": "misdeal"}),
     404, "unknown_round", "round"),
    ("void unknown shoe", "POST", "/api/tables/T1/shoes/7/rounds/1/void", dict(json={"reason": "misdeal"}),
     404, "unknown_shoe", "shoe"),
    ("void unknown table", "POST", "/api/tables/NOPE/shoes/1/rounds/1/void", dict(json={"reason": "misdeal"}),
     404, "unknown_table", "table_id"),
    ("void again otherwise", "POST", "/api/tables/T1/shoes/1/rounds/3/void", dict(json={"reason": "card exposed"}),
     409, "already_voided", "reason"),
    ("void without token", "POST", "/api/tables/T1/shoes/1/rounds/2/void", dict(json={"reason": "x"}, auth=NO_AUTH),
     401, "unauthorized", "Authorization"),
    # feed: correction
    ("correction path mismatch", "PUT", "/api/tables/T1/shoes/1/rounds/2", dict(json=rnd(1, 3, P2, B2)),
     400, "path_mismatch", "round"),
    ("correction of a voided round", "PUT", "/api/tables/T1/shoes/1/rounds/3", dict(json={"player": P1, "banker": B1}),
     409, "round_voided", "round"),
    ("correction breaks the tableau", "PUT", "/api/tables/T1/shoes/1/rounds/2",
     dict(json={"player": ["4S", "KD"], "banker": ["7C", "JD"]}), 422, "tableau", "player"),
    ("correction unknown round", "PUT", "/api/tables/T1/shoes/1/rounds/9", dict(json={"player": P1, "banker": B1}),
     404, "unknown_round", "round"),
    ("correction 9th ace", "PUT", "/api/tables/ACES/shoes/1/rounds/2",
     dict(json={"player": ["AS", "AS", "AS"], "banker": ["KH", "KC", "KS"]}), 422, "too_many_copies", "player[2]"),
    ("correction not JSON", "PUT", "/api/tables/T1/shoes/1/rounds/2", dict(data="[", content_type="application/json"),
     400, "malformed_json", None),
    # read API
    ("api unknown table", "GET", "/api/tables/NOPE", {}, 404, "unknown_table", "table_id"),
    ("api not a table id", "GET", "/api/tables/no%20spaces", {}, 404, "unknown_table", "table_id"),  # no such table
    ("api shoes of unknown table", "GET", "/api/tables/NOPE/shoes", {}, 404, "unknown_table", "table_id"),
    ("api unknown shoe", "GET", "/api/tables/T1/shoes/9", {}, 404, "unknown_shoe", "shoe"),
    ("api export of unknown shoe", "GET", "/api/tables/T1/shoes/9/rounds", {}, 404, "unknown_shoe", "shoe"),
    ("api unknown URL", "GET", "/api/nothing", {}, 404, "not_found", None),
    ("api table list by POST", "POST", "/api/tables", dict(json={}), 405, "method_not_allowed", None),
    # pages
    ("page unknown table", "GET", "/tables/NOPE", {}, 404, "unknown_table", "table_id"),
    ("page unknown shoe", "GET", "/tables/T1/shoes/9", {}, 404, "unknown_shoe", "shoe"),
    ("page bad theme", "GET", "/tables/T1?theme=pink", {}, 400, "bad_parameter", "theme"),
    ("page bad cols", "GET", "/tables/T1?cols=0", {}, 400, "bad_parameter", "cols"),
    ("lobby bad theme", "GET", "/lobby?theme=pink", {}, 400, "bad_parameter", "theme"),
    ("embed unknown road", "GET", "/embed/T1?roads=big_road,crystal_ball", {}, 400, "bad_parameter", "roads"),
    ("embed bad width", "GET", "/embed/T1?w=wide", {}, 400, "bad_parameter", "w"),
    ("embed unknown table", "GET", "/embed/NOPE", {}, 404, "unknown_table", "table_id"),
    ("unknown page", "GET", "/nowhere", {}, 404, "not_found", None),
    # PNG
    ("png unknown table", "GET", "/tables/NOPE/board.png", {}, 404, "unknown_table", "table_id"),
    ("png unknown shoe", "GET", "/tables/T1/shoes/9/board.png", {}, 404, "unknown_shoe", "shoe"),
    ("png bad width", "GET", "/tables/T1/board.png?width=5", {}, 400, "bad_parameter", "width"),
    ("png bad theme", "GET", "/tables/T1/board.png?theme=pink", {}, 400, "bad_parameter", "theme"),
    ("png bad lang", "GET", "/tables/T1/board.png?lang=xx", {}, 400, "bad_parameter", "lang"),
    ("png unknown road", "GET", "/tables/T1/roads/crystal_ball.png", {}, 404, "unknown_road", "road"),
    ("lobby png bad theme", "GET", "/lobby.png?theme=pink", {}, 400, "bad_parameter", "theme"),
]

# A shoe or round number in the path that no shoe or round has (negative, zero): the 404 of that
# shoe or round naming it, like any unknown number (cards: the path is checked first, a 400).
# (method, path, status, code, field); the body is a valid one for the route.
PATH_NUMBER_CASES = [
    ("GET", "/api/tables/T1/shoes/-1", 404, "unknown_shoe", "shoe"),
    ("GET", "/api/tables/T1/shoes/0", 404, "unknown_shoe", "shoe"),
    ("GET", "/api/tables/T1/shoes/-1/rounds", 404, "unknown_shoe", "shoe"),
    ("GET", "/tables/T1/shoes/-1", 404, "unknown_shoe", "shoe"),
    ("GET", "/tables/T1/shoes/0", 404, "unknown_shoe", "shoe"),
    ("GET", "/tables/T1/shoes/-1/board.png", 404, "unknown_shoe", "shoe"),
    ("POST", "/api/tables/T1/shoes/1/rounds/-1/void", 404, "unknown_round", "round"),
    ("POST", "/api/tables/T1/shoes/1/rounds/0/void", 404, "unknown_round", "round"),
    ("POST", "/api/tables/T1/shoes/-1/rounds/1/void", 404, "unknown_shoe", "shoe"),
    ("PUT", "/api/tables/T1/shoes/1/rounds/-1", 404, "unknown_round", "round"),
    ("PUT", "/api/tables/T1/shoes/0/rounds/1", 404, "unknown_shoe", "shoe"),
    ("POST", "/api/tables/T1/shoes/1/rounds/-1/cards", 400, "invalid_value", "round"),
    ("POST", "/api/tables/T1/shoes/0/rounds/1/cards", 400, "invalid_value", "shoe"),
]
_VALID_BODY = {"void": {"reason": "misdeal"}, "cards": {"position": "player", "cards": ["4S"]}}
HTTP_CASES += [(f"path number {method} {path}", method, path,
                {} if method == "GET" else dict(json=_VALID_BODY.get(path.rsplit("/", 1)[1], {"player": P1, "banker": B1})),
                status, code, field) for method, path, status, code, field in PATH_NUMBER_CASES]


@pytest.mark.parametrize("method, path, kwargs, status, code, field",
                         [c[1:] for c in HTTP_CASES], ids=[c[0] for c in HTTP_CASES])
def test_every_error_has_the_one_shape_and_changes_nothing(client, method, path, kwargs, status, code, field):
    kwargs = dict(kwargs)
    headers = kwargs.pop("auth", AUTH if path.startswith("/api/tables/") and method != "GET" else NO_AUTH)
    before = everything(client)
    resp = client.open(path, method=method, headers=headers, **kwargs)
    err = assert_canonical_error(resp, status, code, field)
    assert everything(client) == before, f"{method} {path} changed the record ({err})"


def test_error_bodies_are_compact_json_like_success_bodies(client):
    ok = client.get("/api/tables")
    err = client.get("/api/tables/NOPE")
    for resp in (ok, err):
        assert resp.data == json.dumps(resp.json, ensure_ascii=False, separators=(",", ":")).encode()
    assert err.json["error"]["code"] == "unknown_table"


def test_the_cases_cover_every_documented_client_error_code():
    """Every 4xx code of the docs' table is walked at least once (503 needs a failing store:
    tests/web/test_feed.py)."""
    documented = {
        "malformed_json", "not_an_object", "unknown_field", "missing_field", "invalid_value", "bad_card",
        "card_count", "bad_table_id", "path_mismatch", "bad_parameter", "unauthorized", "unknown_table",
        "unknown_shoe", "unknown_round", "unknown_road", "not_found", "method_not_allowed", "round_conflict", "round_gap",
        "shoe_backwards", "shoe_ended", "shoe_conflict", "already_voided", "round_voided", "body_too_large",
        "tableau", "result_contradiction", "too_many_copies", "burn_count", "unknown_variant",
    }
    assert {c[5] for c in HTTP_CASES} >= documented


# ----------------------------------------------------------------------------- WebSocket
@pytest.fixture(scope="module")
def server(app):
    """The module's app on a threaded loopback server; yields ``host:port``."""
    with serve_app(app, "test-error-shape") as srv:
        yield f"127.0.0.1:{srv.server_port}"


@pytest.mark.parametrize("path, status, code, field, close_code", [
    ("/ws/tables/NOPE", 404, "unknown_table", "table_id", 4404),
], ids=["unknown table"])
def test_a_websocket_error_frame_carries_the_same_error_object(server, client, path, status, code, field, close_code):
    before = everything(client)
    ws = websocket.create_connection(f"ws://{server}{path}", timeout=10)
    try:
        msg = json.loads(ws.recv())
        assert set(msg) == {"type", "error"} and msg["type"] == "error"
        assert_canonical_error_object(msg["error"], status, code, field)
        opcode, data = ws.recv_data(control_frame=True)
        assert opcode == websocket.ABNF.OPCODE_CLOSE and int.from_bytes(data[:2], "big") == close_code
    finally:
        ws.close()
    assert everything(client) == before
