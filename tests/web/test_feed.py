"""The table feed: card-level and result-level rounds, shoes, voids, corrections, idempotency,
and every refusal (4xx JSON naming the field, nothing changed).

Expected outcomes are worked by hand from the tableau (docs/domain.md section 1), not read
from the code: e.g. player 4S KD 9H = 4+0+9 = 13 -> 3, banker 7C JD = 7 (stands on 7), banker wins.
"""

from __future__ import annotations

import hmac
import json

import pytest

from support.feed import Feed, close_app, make_app, record_lobby
from web.service import get_service

P1, B1 = ["4S", "KD", "9H"], ["7C", "JD"]  # player 3, banker 7: B; player drew on 4, banker stands on 7
P2, B2 = ["9C", "KH"], ["5D", "2S"]  # player natural 9 vs banker 7: P
P3, B3 = ["3H", "3D"], ["4S", "AC", "2H"]  # player 6 stands; banker 5 draws (player stood, 0-5): 5+2 = 7, B


def state(client, table="T1"):
    """Everything the read API shows of a table (to prove a refusal changed nothing of the record;
    the lobby without integrity marks, :func:`support.feed.record_lobby`)."""
    out = {"tables": record_lobby(client)}
    snap = client.get(f"/api/tables/{table}")
    out["snapshot"] = (snap.status_code, snap.data)
    shoes = client.get(f"/api/tables/{table}/shoes")
    out["shoes"] = (shoes.status_code, shoes.data)
    if shoes.status_code == 200:
        for s in shoes.json["shoes"]:
            out[s["shoe"]] = client.get(f"/api/tables/{table}/shoes/{s['shoe']}/rounds").data
    return out


def error_of(resp, status):
    assert resp.status_code == status, resp.data
    assert resp.mimetype == "application/json"
    body = resp.json
    assert set(body) == {"error"}
    err = body["error"]
    assert err["status"] == status and isinstance(err["message"], str) and err["message"]
    assert {"status", "code", "message", "field"} <= set(err)
    return err


# ----------------------------------------------------------------------------- happy paths
def test_card_level_round_is_recorded_with_the_outcome_the_tableau_gives(feed, client):
    resp = feed.round(1, 1, P1, B1)
    assert resp.status_code == 201
    body = resp.json
    assert (body["status"], body["table"], body["shoe"], body["round"], body["version"]) == ("recorded", "T1", 1, 1, 1)
    r = body["result"]
    assert (r["winner"], r["player_total"], r["banker_total"]) == ("B", 3, 7)
    assert (r["player_card_count"], r["banker_card_count"], r["natural"]) == (3, 2, False)
    snap = client.get("/api/tables/T1").json
    assert (snap["table"], snap["shoe"], snap["round"], snap["version"], snap["live"]) == ("T1", 1, 1, 1, True)
    assert snap["stats"]["banker"] == 1 and snap["stats"]["rounds"] == 1
    assert snap["bead_plate"][0]["winner"] == "B"


def test_cards_are_stored_in_canonical_notation(feed, client):
    assert feed.round(1, 1, ["4s", "kd", "9h"], ["7C", "10D"]).status_code == 201
    stored = client.get("/api/tables/T1/shoes/1/rounds").json["rounds"][0]
    assert stored["feed"] == {"shoe": 1, "round": 1, "player": ["4S", "KD", "9H"], "banker": ["7C", "TD"]}
    # the same round in other spelling is the same round: a no-op
    again = feed.round(1, 1, P1, ["7c", "TD"])
    assert again.status_code == 200 and again.json["status"] == "unchanged"


def test_result_level_round_keeps_unknown_facts_unknown(feed, client):
    result = {"winner": "B", "player_total": 3, "banker_total": 7, "player_pair": False,
              "banker_pair": True, "natural": False}
    resp = feed.round(1, 1, result=result)
    assert resp.status_code == 201
    r = resp.json["result"]
    assert r["banker_pair"] is True and r["winner"] == "B"
    assert r["player_card_count"] is None and r["banker_card_count"] is None
    # banker pair known, its suits not: the perfect pair is unknown; no player pair -> no perfect pair
    assert r["banker_perfect_pair"] is None and r["player_perfect_pair"] is False
    assert "player" not in r
    snap = client.get("/api/tables/T1").json
    assert snap["stats"]["banker_pair"] == 1


def test_result_level_round_with_card_counts_and_perfect_pair(feed):
    # player 4H 4H: a natural 8 and a perfect pair; banker stands on 7
    result = {"winner": "P", "player_total": 8, "banker_total": 7, "player_pair": True, "banker_pair": False,
              "natural": True, "player_perfect_pair": True}
    resp = feed.round(1, 1, result=result)
    assert resp.status_code == 201
    r = resp.json["result"]
    # a natural: both hands stand on two cards (tableau), so the counts are known
    assert (r["player_card_count"], r["banker_card_count"], r["player_natural"]) == (2, 2, True)
    assert r["player_perfect_pair"] is True and r["banker_perfect_pair"] is False  # no banker pair


def test_the_same_round_again_is_a_no_op_success(feed, client):
    assert feed.round(1, 1, P1, B1).status_code == 201
    before = state(client)
    again = feed.round(1, 1, P1, B1)
    assert again.status_code == 200
    assert again.json["status"] == "unchanged" and again.json["version"] == 1
    assert again.json["result"]["winner"] == "B"
    assert state(client) == before


def test_an_old_round_repeated_after_later_rounds_is_still_a_no_op(feed, client):
    for n, (p, b) in enumerate([(P1, B1), (P2, B2), (P3, B3)], 1):
        assert feed.round(1, n, p, b).status_code == 201
    before = state(client)
    assert feed.round(1, 1, P1, B1).status_code == 200
    assert state(client) == before


def test_a_different_round_under_a_taken_number_is_409_naming_the_stored_round(feed, client):
    assert feed.round(1, 1, P1, B1).status_code == 201
    before = state(client)
    err = error_of(feed.round(1, 1, P2, B2), 409)
    assert err["code"] == "round_conflict" and err["field"] == "round"
    assert "4S KD 9H" in err["message"] and "7C JD" in err["message"]
    assert err["stored"]["feed"] == {"shoe": 1, "round": 1, "player": P1, "banker": B1}
    assert state(client) == before


def test_consecutive_rounds_and_a_higher_shoe_number_starts_a_new_shoe(feed, client):
    assert feed.round(1, 1, P1, B1).status_code == 201
    assert feed.round(1, 2, P2, B2).status_code == 201
    resp = feed.round(2, 1, P3, B3)
    assert resp.status_code == 201 and resp.json["version"] == 3
    snap = client.get("/api/tables/T1").json
    assert (snap["shoe"], snap["round"]) == (2, 1)
    shoes = client.get("/api/tables/T1/shoes").json["shoes"]
    assert [(s["shoe"], s["rounds"], s["live"]) for s in shoes] == [(2, 1, True), (1, 2, False)]  # newest first


def test_shoe_numbers_may_skip(feed, client):
    assert feed.round(1, 1, P1, B1).status_code == 201
    assert feed.round(5, 1, P2, B2).status_code == 201
    assert [s["shoe"] for s in client.get("/api/tables/T1/shoes").json["shoes"]] == [5, 1]


def test_explicit_shoe_with_burn_cards_and_cut_card(feed, client):
    # turned 3C burns 3 more (seeds 000-002): 4 cards in all
    resp = feed.shoe(1, burn=["3C", "KD", "2H", "9S"], cut_card_position=30)
    assert resp.status_code == 201 and resp.json["status"] == "recorded" and resp.json["version"] == 1
    shoes = client.get("/api/tables/T1/shoes").json["shoes"]
    assert shoes[0]["burn"] == ["3C", "KD", "2H", "9S"] and shoes[0]["cut_card_position"] == 30
    assert shoes[0]["rounds"] == 0
    snap = client.get("/api/tables/T1").json
    assert (snap["shoe"], snap["round"], snap["last"]) == (1, 0, None)
    # its first round is round 1
    assert feed.round(1, 1, P1, B1).status_code == 201
    # repeating the shoe start is a no-op
    again = feed.shoe(1, burn=["3C", "KD", "2H", "9S"], cut_card_position=30)
    assert again.status_code == 200 and again.json["status"] == "unchanged"


def test_a_ten_or_face_card_turned_burns_ten(feed):
    burn = ["KH", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "JC"]
    assert feed.shoe(1, burn=burn).status_code == 201


def test_explicit_shoe_with_a_variant(feed, client):
    assert feed.shoe(1, variant="seed004_mini").status_code == 201
    assert client.get("/api/tables/T1").json["variant"]["id"] == "seed004_mini"
    err = error_of(feed.shoe(2, variant="no-such-game"), 422)
    assert (err["code"], err["field"]) == ("unknown_variant", "variant")
    assert "no-such-game" in err["message"]


def test_void_keeps_the_round_in_the_record_and_counts_it_nowhere(feed, client):
    assert feed.round(1, 1, P1, B1).status_code == 201  # B
    assert feed.round(1, 2, P2, B2).status_code == 201  # P
    resp = feed.void(1, 2, "misdeal: card exposed")
    assert resp.status_code == 201 and resp.json["version"] == 3
    assert resp.json["void"]["reason"] == "misdeal: card exposed"
    snap = client.get("/api/tables/T1").json
    assert snap["version"] == 3
    assert snap["stats"]["rounds"] == 1 and snap["stats"]["player"] == 0
    assert [b["round"] for b in snap["bead_plate"]] == [1]
    assert snap["voided"] == [2]
    rounds = client.get("/api/tables/T1/shoes/1/rounds").json["rounds"]
    assert [r["round"] for r in rounds] == [1, 2]
    assert rounds[1]["void"]["reason"] == "misdeal: card exposed"
    assert rounds[1]["feed"]["player"] == P2
    shoe = client.get("/api/tables/T1/shoes").json["shoes"][0]
    assert (shoe["rounds"], shoe["counted"], shoe["voided"]) == (2, 1, 1)
    # the next round keeps numbering after the voided one
    assert feed.round(1, 3, P3, B3).status_code == 201


def test_void_again_with_the_same_reason_is_a_no_op_and_another_reason_a_409(feed, client):
    feed.round(1, 1, P1, B1)
    assert feed.void(1, 1, "misdeal").status_code == 201
    before = state(client)
    assert feed.void(1, 1, "misdeal").status_code == 200
    err = error_of(feed.void(1, 1, "shoe malfunction"), 409)
    assert (err["code"], err["field"]) == ("already_voided", "reason")
    assert "misdeal" in err["message"]
    assert state(client) == before


def test_correction_replaces_the_round_and_keeps_the_history(feed, client):
    assert feed.round(1, 1, P1, B1).status_code == 201  # B 7-3
    resp = feed.correct(1, 1, {"player": P2, "banker": B2, "reason": "misread card"})
    assert resp.status_code == 201 and resp.json["version"] == 2
    assert resp.json["result"]["winner"] == "P"
    snap = client.get("/api/tables/T1").json
    assert snap["stats"]["player"] == 1 and snap["stats"]["banker"] == 0
    assert snap["last"]["winner"] == "P"
    stored = client.get("/api/tables/T1/shoes/1/rounds").json["rounds"][0]
    assert stored["feed"]["player"] == P2
    assert stored["corrections"][0]["reason"] == "misread card"
    assert stored["corrections"][0]["previous"] == {"player": P1, "banker": B1}
    # the same correction again is a no-op; so is a retry of the original POST
    assert feed.correct(1, 1, {"player": P2, "banker": B2}).status_code == 200
    assert feed.round(1, 1, P1, B1).status_code == 200
    assert feed.round(1, 1, P2, B2).status_code == 200


def test_correction_to_a_result_level_round(feed, client):
    feed.round(1, 1, P1, B1)
    result = {"winner": "T", "player_total": 5, "banker_total": 5, "player_pair": False, "banker_pair": False,
              "natural": False}
    resp = feed.correct(1, 1, {"shoe": 1, "round": 1, "result": result})
    assert resp.status_code == 201
    assert client.get("/api/tables/T1").json["stats"]["tie"] == 1


@pytest.mark.parametrize("body, status, code, field", [
    ({"shoe": 2, "player": P2, "banker": B2}, 400, "path_mismatch", "shoe"),
    ({"round": 5, "player": P2, "banker": B2}, 400, "path_mismatch", "round"),
    ({"player": ["4S", "KD"], "banker": B1}, 422, "tableau", "player"),
    ({"player": P2, "banker": B2, "note": "x"}, 400, "unknown_field", "note"),
])
def test_bad_corrections_are_refused_without_change(feed, client, body, status, code, field):
    feed.round(1, 1, P1, B1)
    before = state(client)
    err = error_of(feed.correct(1, 1, body), status)
    assert (err["code"], err["field"]) == (code, field)
    assert state(client) == before


def test_correcting_or_voiding_a_missing_round_is_404_and_a_voided_round_is_not_corrected(feed, client):
    feed.round(1, 1, P1, B1)
    err = error_of(feed.correct(1, 2, {"player": P2, "banker": B2}), 404)
    assert (err["code"], err["field"]) == ("unknown_round", "round")
    err = error_of(feed.void(3, 1, "x"), 404)
    assert (err["code"], err["field"]) == ("unknown_shoe", "shoe")
    err = error_of(feed.void(1, 1, "x", table="T9"), 404)
    assert (err["code"], err["field"]) == ("unknown_table", "table_id")
    feed.void(1, 1, "misdeal")
    before = state(client)
    err = error_of(feed.correct(1, 1, {"player": P2, "banker": B2}), 409)
    assert err["code"] == "round_voided"
    assert state(client) == before


def test_a_correction_to_a_missing_round_is_404_before_its_cards_are_judged(feed, client):
    # player 4S KD = 4 must draw (tableau): 422 only for a round that exists
    bad = {"player": ["4S", "KD"], "banker": B1}
    feed.round(1, 1, P1, B1)
    for (shoe, number, table), (code, field) in (((1, 7, None), ("unknown_round", "round")),
                                                 ((2, 1, None), ("unknown_shoe", "shoe")),
                                                 ((1, 1, "T9"), ("unknown_table", "table_id"))):
        err = error_of(feed.correct(shoe, number, bad, table=table), 404)
        assert (err["code"], err["field"]) == (code, field)
    feed.void(1, 1, "misdeal")
    err = error_of(feed.correct(1, 1, bad), 422)  # the round's own rules before the record's (voided)
    assert err["code"] == "tableau"
    assert error_of(feed.correct(1, 1, {"player": P2, "banker": B2}), 409)["code"] == "round_voided"


def test_a_past_shoe_round_can_be_voided(feed, client):
    feed.round(1, 1, P1, B1)
    feed.round(2, 1, P2, B2)
    assert feed.void(1, 1, "late audit").status_code == 201
    past = client.get("/api/tables/T1/shoes/1").json
    assert past["stats"]["rounds"] == 0 and past["voided"] == [1] and past["live"] is False
    live = client.get("/api/tables/T1").json
    assert (live["shoe"], live["stats"]["rounds"], live["version"]) == (2, 1, 3)


def test_cut_card_round_ends_the_shoe(feed, client):
    assert feed.round(1, 1, P1, B1, cut_card=True).status_code == 201
    err = error_of(feed.round(1, 2, P2, B2), 409)
    assert (err["code"], err["field"]) == ("shoe_ended", "round")
    assert client.get("/api/tables/T1/shoes").json["shoes"][0]["cut_card_round"] == 1
    assert feed.round(2, 1, P2, B2).status_code == 201


def test_burn_card_between_rounds_is_recorded_with_the_round(feed, client):
    assert feed.round(1, 1, P1, B1, burn=["QS"]).status_code == 201
    assert client.get("/api/tables/T1/shoes/1/rounds").json["rounds"][0]["feed"]["burn"] == ["QS"]


# ----------------------------------------------------------------------------- publishing
def test_every_change_is_published_to_the_table_and_lobby_topics(app, feed, client):
    hub = get_service(app).hub
    lobby0 = hub.latest("lobby")
    assert lobby0 is not None and lobby0.payload == b"[]"
    feed.round(1, 1, P1, B1)
    msg = hub.latest("table:T1")
    assert msg.version == 1 and msg.payload == client.get("/api/tables/T1").data
    lobby = hub.latest("lobby")
    assert lobby.version == 1 and json.loads(lobby.payload)[0]["id"] == "T1"
    for action in (lambda: feed.void(1, 1, "misdeal"), lambda: feed.round(1, 2, P2, B2),
                   lambda: feed.correct(1, 2, {"player": P3, "banker": B3}), lambda: feed.shoe(2)):
        assert action().status_code == 201
    assert hub.latest("table:T1").version == 5
    assert json.loads(hub.latest("table:T1").payload)["shoe"] == 2
    assert hub.latest("lobby").version == 5
    # refusals and repeats publish nothing
    feed.shoe(2)
    feed.round(1, 9, P1, B1)
    assert hub.latest("table:T1").version == 5 and hub.latest("lobby").version == 5


def test_snapshot_json_is_encoded_once_per_version(app, feed):
    service = get_service(app)
    feed.round(1, 1, P1, B1)
    v1, a = service.read.snapshot_json("T1")
    v2, b = service.read.snapshot_json("T1")
    assert v1 == v2 == 1 and a is b


# ----------------------------------------------------------------------------- refusals
RESULT = {"winner": "B", "player_total": 3, "banker_total": 7, "player_pair": False, "banker_pair": False,
          "natural": False}


def _with(**changes):
    body = {"shoe": 1, "round": 2, "player": P2, "banker": B2}
    body.update(changes)
    return {k: v for k, v in body.items() if v is not None}


def _result(**changes):
    r = dict(RESULT)
    r.update(changes)
    return {"shoe": 1, "round": 2, "result": {k: v for k, v in r.items() if v is not None}}


BAD_ROUNDS = [
    # (id, body (dict or raw bytes), status, code, field)
    ("malformed json", b'{"shoe": 1, "round": ', 400, "malformed_json", None),
    ("empty body", b"", 400, "malformed_json", None),
    ("not utf-8", b'{"shoe": "\xff"}', 400, "malformed_json", None),
    ("not an object", b"[1, 2]", 400, "not_an_object", None),
    ("duplicate key", b'{"shoe": 1, "shoe": 1, "round": 2, "player": ["9C","KH"], "banker": ["5D","2S"]}',
     400, "malformed_json", "shoe"),
    ("NaN", b'{"shoe": NaN, "round": 2}', 400, "malformed_json", None),
    ("unknown field", _with(dealer="Ann"), 400, "unknown_field", "dealer"),
    ("unknown field in result", {**_result(), "result": {**RESULT, "dragon": 1}}, 400, "unknown_field", "result.dragon"),
    ("cards and result", {**_with(), "result": RESULT}, 400, "unknown_field", "player"),
    ("missing round", _with(round=None), 400, "missing_field", "round"),
    ("missing banker", _with(banker=None), 400, "missing_field", "banker"),
    ("shoe as text", _with(shoe="1"), 400, "invalid_value", "shoe"),
    ("round as float", _with(round=2.0), 400, "invalid_value", "round"),
    ("round 0", _with(round=0), 400, "invalid_value", "round"),
    ("bad card string", _with(player=["9C", "1H"]), 400, "bad_card", "player[1]"),
    ("card not a string", _with(banker=["5D", 2]), 400, "invalid_value", "banker[1]"),
    ("one card on a side", _with(player=["9C"]), 400, "card_count", "player"),
    ("four cards on a side", _with(banker=["AD", "AC", "AH", "2S"]), 400, "card_count", "banker"),
    ("player must draw on 4", _with(player=["4S", "KD"], banker=["7C", "JD"]), 422, "tableau", "player"),
    ("player must stand on 6", _with(player=["3H", "3D", "2C"], banker=["7C", "JD"]), 422, "tableau", "player"),
    ("banker must draw on 2", _with(player=["7S", "KD"], banker=["2C", "JD"]), 422, "tableau", "banker"),
    ("banker 3 stands on player 8", _with(player=["2S", "2D", "8C"], banker=["3C", "KD", "4H"]), 422, "tableau",
     "banker"),
    ("third card after a natural", _with(player=["8S", "KD", "2H"], banker=["5C", "JD"]), 422, "tableau", "player"),
    ("winner contradicts totals", _result(winner="P"), 422, "result_contradiction", "result.winner"),
    ("natural without 8 or 9", _result(natural=True), 422, "result_contradiction", "result.natural"),
    ("perfect pair without pair", _result(player_perfect_pair=True), 422, "result_contradiction",
     "result.player_perfect_pair"),
    ("total out of range", _result(banker_total=10), 400, "invalid_value", "result.banker_total"),
    ("pair unknown is not guessed", _result(player_pair=None), 400, "missing_field", "result.player_pair"),
    ("winner not B/P/T", _result(winner="D"), 400, "invalid_value", "result.winner"),
    ("pair as 0", _result(banker_pair=0), 400, "invalid_value", "result.banker_pair"),
    ("card count 4", _result(player_card_count=4), 400, "invalid_value", "result.player_card_count"),
    ("gap in round numbers", _with(round=3), 409, "round_gap", "round"),
    ("new shoe not at round 1", _with(shoe=2, round=2), 409, "round_gap", "round"),
]


@pytest.mark.parametrize("body, status, code, field", [b[1:] for b in BAD_ROUNDS], ids=[b[0] for b in BAD_ROUNDS])
def test_bad_rounds_get_4xx_naming_the_field_and_change_nothing(feed, client, auth, body, status, code, field):
    assert feed.round(1, 1, P1, B1).status_code == 201
    before = state(client)
    if isinstance(body, bytes):
        resp = client.post("/api/tables/T1/rounds", data=body, headers={**auth, "Content-Type": "application/json"})
    else:
        resp = client.post("/api/tables/T1/rounds", json=body, headers=auth)
    err = error_of(resp, status)
    assert (err["code"], err["field"]) == (code, field), err
    assert state(client) == before


def test_a_step_back_to_an_earlier_shoe_is_refused(feed, client):
    feed.round(1, 1, P1, B1)
    feed.round(3, 1, P2, B2)
    before = state(client)
    for shoe, rnd in ((2, 1), (1, 2)):  # a shoe never seen, and a new round in a finished shoe
        err = error_of(feed.round(shoe, rnd, P3, B3), 409)
        assert (err["code"], err["field"]) == ("shoe_backwards", "shoe")
    err = error_of(feed.shoe(2), 409)
    assert (err["code"], err["field"]) == ("shoe_backwards", "shoe")
    err = error_of(feed.shoe(3, burn=["AS", "2C"]), 409)
    assert (err["code"], err["field"]) == ("shoe_conflict", "shoe")
    assert state(client) == before


def test_oversize_body_is_413(app, client, auth):
    limit = app.config["ROADS_MAX_BODY_BYTES"]
    body = json.dumps({"shoe": 1, "round": 1, "player": P1, "banker": B1, "pad": "x" * limit}).encode()
    err = error_of(client.post("/api/tables/T1/rounds", data=body, headers={**auth, "Content-Type": "application/json"}), 413)
    assert err["code"] == "body_too_large" and str(limit) in err["message"]
    assert client.get("/api/tables/T1").status_code == 404


@pytest.mark.parametrize("burn, field", [
    (["3C", "KD", "2H"], "burn"),  # turned 3 burns 3 more: 4 cards, not 3
    (["KC", "2D"], "burn"),  # a king burns 10
    (["3C", "KD", "2H", "9S", "4D"], "burn"),
])
def test_burn_cards_must_match_the_turned_card(feed, client, burn, field):
    err = error_of(feed.shoe(1, burn=burn), 422)
    assert (err["code"], err["field"]) == ("burn_count", field)
    assert client.get("/api/tables/T1").status_code == 404


@pytest.mark.parametrize("body, code, field", [
    ({"shoe": 1, "burn": ["3C", "XX", "2H", "9S"]}, "bad_card", "burn[1]"),
    ({"burn": []}, "missing_field", "shoe"),
    ({"shoe": 1, "cut_card": 30}, "unknown_field", "cut_card"),
])
def test_bad_shoe_bodies_are_400(client, auth, body, code, field):
    err = error_of(client.post("/api/tables/T1/shoes", json=body, headers=auth), 400)
    assert (err["code"], err["field"]) == (code, field)


@pytest.mark.parametrize("position", [-1, 0, 3, 500, 832])
def test_a_cut_card_position_the_shoe_cannot_hold_is_422_and_stores_nothing(feed, client, position):
    # seed000_live: 8 decks, 416 cards; the cut card goes 6-399 cards from the back (seed 001:
    # a full round behind it, the largest burn and a round in front).
    before = state(client)
    err = error_of(feed.shoe(1, cut_card_position=position), 422)
    assert (err["code"], err["field"]) == ("cut_card_position", "cut_card_position")
    assert "6-399" in err["message"] and str(position) in err["message"]
    assert state(client) == before
    assert feed.shoe(1, cut_card_position=399).status_code == 201


def test_void_needs_a_reason(feed, client, auth):
    feed.round(1, 1, P1, B1)
    for body, code in (({}, "missing_field"), ({"reason": ""}, "invalid_value"), ({"reason": 3}, "invalid_value")):
        err = error_of(client.post("/api/tables/T1/shoes/1/rounds/1/void", json=body, headers=auth), 400)
        assert (err["code"], err["field"]) == (code, "reason")


# -- a shoe of N decks holds N copies of each card (rank and suit)
SIX_ACES = (["AS", "AS", "AS"], ["AS", "AS", "AS"])  # player 2 draws A -> 3; banker 2 always draws A -> 3: tie


def test_a_card_beyond_the_shoes_copies_is_refused_counting_rounds(feed, client):
    # seed000_live: 8 decks -> 8 aces of spades. Round 1 takes six, round 2 two more.
    assert feed.round(1, 1, *SIX_ACES).status_code == 201
    assert feed.round(1, 2, ["AS", "AS", "KD"], ["KH", "KC", "KS"]).status_code == 201  # P 2, B 0
    before = state(client)
    err = error_of(feed.round(1, 3, ["2C", "AS", "KD"], ["KH", "KC", "KS"]), 422)
    assert (err["code"], err["field"]) == ("too_many_copies", "player[1]")
    assert "AS" in err["message"] and "9" in err["message"] and "8-deck" in err["message"]
    assert state(client) == before
    # other cards are fine, and a new shoe has all its aces again
    assert feed.round(1, 3, ["2C", "AD", "KD"], ["KH", "KC", "QS"]).status_code == 201
    assert feed.round(2, 1, *SIX_ACES).status_code == 201


def test_the_33rd_ace_is_refused_in_an_8_deck_shoe(feed, client):
    # 8 decks hold 32 aces, 8 of each suit. Five rounds of six aces and one of two: all 32.
    suits = iter("SHDC" * 8)
    for n in range(1, 6):
        aces = [f"A{next(suits)}" for _ in range(6)]
        assert feed.round(1, n, aces[:3], aces[3:]).status_code == 201
    last_two = [f"A{next(suits)}" for _ in range(2)]
    assert feed.round(1, 6, last_two + ["KD"], ["KH", "KC", "KS"]).status_code == 201
    before = state(client)
    for ace in ("AS", "AH", "AD", "AC"):
        err = error_of(feed.round(1, 7, ["KH", "KC", "KS"], ["2C", ace, "KD"]), 422)
        assert (err["code"], err["field"]) == ("too_many_copies", "banker[1]")
    assert state(client) == before


def test_card_copies_count_burn_cards_and_voided_rounds(feed, client):
    # the turned AS burns one more card, here another AS: 2 aces of spades gone
    assert feed.shoe(1, burn=["AS", "AS"]).status_code == 201
    assert feed.round(1, 1, *SIX_ACES).status_code == 201  # 8 in all
    assert feed.void(1, 1, "misdeal").status_code == 201  # voided cards still left the shoe
    err = error_of(feed.round(1, 2, ["KH", "KC", "KS"], ["2C", "AS", "KD"]), 422)
    assert (err["code"], err["field"]) == ("too_many_copies", "banker[1]")
    # a card burned between rounds counts too
    err = error_of(feed.round(1, 2, ["KH", "KC", "KS"], ["2C", "AD", "KD"], burn=["AS"]), 422)
    assert (err["code"], err["field"]) == ("too_many_copies", "burn[0]")


def test_a_correction_frees_the_cards_it_replaces(feed):
    assert feed.round(1, 1, *SIX_ACES).status_code == 201
    assert feed.round(1, 2, ["AS", "AS", "KD"], ["KH", "KC", "KS"]).status_code == 201
    # replacing round 1's six aces by other cards makes room for them elsewhere
    assert feed.correct(1, 1, {"player": P1, "banker": B1}).status_code == 201
    assert feed.round(1, 3, *SIX_ACES).status_code == 201
    err = error_of(feed.correct(1, 1, {"player": ["AS", "2C", "KD"], "banker": ["KH", "KC", "QS"]}), 422)
    assert err["code"] == "too_many_copies"


def test_decks_come_from_the_shoes_variant(feed, monkeypatch):
    import dataclasses

    import roads.variants as variants

    six = dataclasses.replace(variants.get_variant("seed004_mini"), id="six_deck_test", decks=6)
    monkeypatch.setitem(variants.PRESETS, "six_deck_test", six)
    assert feed.shoe(1, variant="six_deck_test").status_code == 201
    assert feed.round(1, 1, *SIX_ACES).status_code == 201  # all six aces of spades of 6 decks
    err = error_of(feed.round(1, 2, ["AS", "2C", "KD"], ["KH", "KC", "QS"]), 422)
    assert (err["code"], err["field"]) == ("too_many_copies", "player[0]")
    assert "6-deck" in err["message"]


# -- tokens
@pytest.mark.parametrize("headers, words", [
    ({}, "missing"),
    ({"Authorization": "Bearer wrong-token"}, "wrong"),
    ({"Authorization": "Basic dGVzdDp0ZXN0"}, "missing"),
    ({"Authorization": "Bearer "}, "missing"),
    ({"Authorization": "test-token"}, "missing"),
])
def test_writes_without_the_right_token_are_401_and_change_nothing(client, headers, words):
    for method, path, body in (
        ("post", "/api/tables/T1/rounds", {"shoe": 1, "round": 1, "player": P1, "banker": B1}),
        ("post", "/api/tables/T1/shoes", {"shoe": 1}),
        ("post", "/api/tables/T1/shoes/1/rounds/1/void", {"reason": "x"}),
        ("put", "/api/tables/T1/shoes/1/rounds/1", {"player": P1, "banker": B1}),
    ):
        resp = getattr(client, method)(path, json=body, headers=headers)
        err = error_of(resp, 401)
        assert err["code"] == "unauthorized" and err["field"] == "Authorization" and words in err["message"]
        assert resp.headers["WWW-Authenticate"].startswith("Bearer")
    assert client.get("/api/tables").json["tables"] == []


def test_token_is_compared_in_constant_time(client, auth, monkeypatch):
    calls = []
    real = hmac.compare_digest

    def spy(a, b):
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr("web.http.feed.hmac.compare_digest", spy)
    assert client.post("/api/tables/T1/shoes", json={"shoe": 1}, headers=auth).status_code == 201
    assert calls == [(b"test-token", b"test-token")]


def test_without_a_configured_token_the_feed_is_closed(tmp_path):
    app = make_app(tmp_path / "d", ROADS_FEED_TOKEN=None)
    try:
        err = error_of(app.test_client().post("/api/tables/T1/shoes", json={"shoe": 1},
                                              headers={"Authorization": "Bearer "}), 401)
        assert "ROADS_FEED_TOKEN" in err["message"] or "missing" in err["message"]
        err = error_of(app.test_client().post("/api/tables/T1/shoes", json={"shoe": 1},
                                              headers={"Authorization": "Bearer None"}), 401)
        assert "ROADS_FEED_TOKEN" in err["message"]
    finally:
        close_app(app)


# -- tables
def test_a_table_is_created_by_its_first_round_and_a_refused_first_round_creates_none(feed, client):
    error_of(feed.round(1, 1, ["4S", "KD"], B1, table="new-table"), 422)
    assert client.get("/api/tables").json["tables"] == []
    error_of(client.get("/api/tables/new-table"), 404)
    assert feed.round(1, 1, P1, B1, table="new-table").status_code == 201
    t = client.get("/api/tables").json["tables"]
    assert [(x["id"], x["name"]) for x in t] == [("new-table", "new-table")]


@pytest.mark.parametrize("table_id", ["-dash-first", "a" * 33, "has space", "ümlaut", "dot.ted", "a%0A", "T1%0D%0A",
                                      "a%00"])  # percent-encoded: newline, CRLF, NUL
def test_table_ids_are_short_slugs(feed, table_id):
    err = error_of(feed.round(1, 1, P1, B1, table=table_id), 400)
    assert (err["code"], err["field"]) == ("bad_table_id", "table_id")
    err = error_of(feed.shoe(1, table=table_id), 400)
    assert (err["code"], err["field"]) == ("bad_table_id", "table_id")


@pytest.mark.parametrize("table_id", ["-dash-first", "a" * 33, "has space", "dot.ted", "a%0A"])
def test_a_non_slug_table_id_names_no_table_outside_table_creating_writes(feed, client, table_id):
    # docs/api.md "Errors": 400 bad_table_id only where the write would create the table
    for resp in (client.get(f"/api/tables/{table_id}"), client.get(f"/api/tables/{table_id}/shoes"),
                 client.get(f"/api/tables/{table_id}/shoes/1/rounds"), feed.void(1, 1, "x", table=table_id),
                 feed.correct(1, 1, {"player": P1, "banker": B1}, table=table_id)):
        err = error_of(resp, 404)
        assert (err["code"], err["field"]) == ("unknown_table", "table_id")


def test_a_table_id_with_a_trailing_newline_creates_no_table(feed, client):
    # issue 21 item 4: "a\n" passed a pattern ending in "$" read with re.match, was stored and listed
    err = error_of(client.post("/api/tables/a%0A/rounds", json={"shoe": 1, "round": 1, "player": P1, "banker": B1},
                               headers=feed.headers), 400)
    assert (err["code"], err["field"]) == ("bad_table_id", "table_id")
    assert client.get("/api/tables").json["tables"] == []
    assert client.get("/api/tables/a%0A").status_code == 404


def test_unknown_urls_and_methods_get_the_json_error_shape(client, auth):
    err = error_of(client.get("/api/nothing-here"), 404)
    assert err["code"] == "not_found"
    resp = client.delete("/api/tables/T1/rounds", headers=auth)
    err = error_of(resp, 405)
    assert err["code"] == "method_not_allowed" and "POST" in resp.headers["Allow"]


def test_store_unavailable_is_503_and_records_nothing(app, feed, client, monkeypatch):
    from web.stores import StoreUnavailable

    feed.round(1, 1, P1, B1)
    before = state(client)

    def down(event):
        raise StoreUnavailable("disk full")

    monkeypatch.setattr(get_service(app).store, "commit", down)
    err = error_of(feed.round(1, 2, P2, B2), 503)
    assert err["code"] == "store_unavailable" and "nothing was recorded" in err["message"]
    assert state(client) == before


# -- concurrency
def test_concurrent_posts_of_one_round_number_store_exactly_one_round(app):
    import threading

    results: list[tuple[int, list]] = []
    lock = threading.Lock()
    bodies = [(P1, B1)] * 6 + [(P2, B2)] * 6  # the same round six times, a different one six times
    start = threading.Barrier(len(bodies))

    def post(p, b):
        client = app.test_client()
        start.wait(timeout=10)
        resp = Feed(client).round(1, 1, p, b)
        with lock:
            results.append((resp.status_code, p))

    threads = [threading.Thread(target=post, args=pb) for pb in bodies]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    statuses = sorted(s for s, _ in results)
    assert len(results) == 12 and statuses.count(201) == 1
    winner = next(p for s, p in results if s == 201)
    # the five other copies of the winner are no-ops, the six others conflicts
    assert sorted(s for s, p in results if p == winner) == [200] * 5 + [201]
    assert [s for s, p in results if p != winner] == [409] * 6
    rounds = app.test_client().get("/api/tables/T1/shoes/1/rounds").json["rounds"]
    assert len(rounds) == 1 and rounds[0]["feed"]["player"] == winner
    assert app.test_client().get("/api/tables/T1").json["version"] == 1
