"""The live feed over HTTP: rounds dealt card by card, and the table's state, dealer and limits."""

from __future__ import annotations

import json
import os
import random

import jsonschema
import pytest

from roads.simulator import simulate
from roads.snapshot import schema as snapshot_schema
from web.service import Service, get_service
from web.stores import SqliteStore

TOKEN = {"Authorization": "Bearer test-token"}
START = 1_718_452_800.0  # 2024-06-15T12:00:00Z

LIVE_SHOES = int(os.environ.get("ROADS_LIVE_SHOES", "12"))
"""Shoes of the card-by-card equivalence test (the issue's figure is 200: set ROADS_LIVE_SHOES=200)."""


def make(tmp_path, name="data", **config):
    from web import create_app

    app = create_app({"TESTING": True, "ROADS_FEED_TOKEN": "test-token", "ROADS_DATA_DIR": str(tmp_path / name),
                      **config})
    ticks = iter(range(10**9))
    get_service(app).clock = lambda: START + 0.5 * next(ticks)
    return app


def post(client, path, body):
    return client.post(f"/api/tables/{path}", json=body, headers=TOKEN)


def cards_of(message):
    """The round's cards in deal order: P1 B1 P2 B2, the player's third, the banker's third."""
    p, b = message["player"], message["banker"]
    return [p[0], b[0], p[1], b[1]] + p[2:] + b[2:]


def comparable(snapshot):
    return {k: v for k, v in snapshot.items() if k not in ("table", "name", "version")}


def comparable_rounds(body):
    return [{k: v for k, v in r.items() if k != "at"} for r in body["rounds"]]


# ----------------------------------------------------------------------------- the done-when test
def test_card_by_card_feed_gives_exactly_the_roads_of_whole_rounds(tmp_path):
    """Shoes dealt by the simulator go whole to table W and card by card to table C (chunks of
    1-3 cards, retries, duplicates of earlier cards, overlapping posts, the whole round again
    after it completed, a whole round completing a round in progress, a restart in the middle
    of a round): after every round and at the end, every snapshot and stored round agree."""
    rng = random.Random(13)
    app = make(tmp_path)
    client = app.test_client()
    restarted = False
    completed = 0
    for message in simulate("W", seed=99, shoes=LIVE_SHOES, burn_between_rounds=True):
        body = {k: v for k, v in message.items() if k not in ("type", "table")}
        if message["type"] == "shoe":
            for table in ("W", "C"):
                assert post(client, f"{table}/shoes", body).status_code == 201
            continue
        shoe, number = body["shoe"], body["round"]
        assert post(client, "W/rounds", body).status_code == 201
        cards = cards_of(body)
        path = f"C/shoes/{shoe}/rounds/{number}/cards"
        extra = {}
        if "burn" in body:
            extra["burn"] = body["burn"]
        position = 1
        whole_at = rng.randrange(len(cards) + 3)  # sometimes the whole round completes the round in progress
        while position <= len(cards):
            if 1 < position == whole_at:
                r = post(client, "C/rounds", body)
                assert r.status_code == 201 and "result" in r.get_json(), r.get_json()
                break
            size = rng.choice((1, 1, 2, 3))
            chunk = cards[position - 1:position - 1 + size]
            payload = {"position": position, "cards": chunk, **(extra if position == 1 else {})}
            if body.get("cut_card") and position + len(chunk) > len(cards):
                payload["cut_card"] = True
            r = post(client, path, payload)
            assert r.status_code == 201, r.get_json()
            if rng.random() < 0.2:  # a retry of the same post
                assert post(client, path, payload).status_code == 200
            if rng.random() < 0.2 and position > 1:  # an earlier card again, then with the new ones
                k = rng.randrange(1, position)
                assert post(client, path, {"position": k, "cards": cards[k - 1:position]}).status_code == 200
            position += len(chunk)
            if not restarted and number == 7 and position <= len(cards):
                before = client.get("/api/tables/C").data
                get_service(app).close()  # the round in progress survives a restart
                app = make(tmp_path)
                client = app.test_client()
                restarted = True
                assert client.get("/api/tables/C").data == before
                assert json.loads(before)["in_progress"]["round"] == 7
        if rng.random() < 0.3:  # the whole round after it completed card by card
            assert post(client, "C/rounds", body).status_code == 200
        completed += 1
        w = client.get("/api/tables/W").get_json()
        c = client.get("/api/tables/C").get_json()
        assert "in_progress" not in c
        assert comparable(c) == comparable(w)
    assert restarted and completed > 60 * LIVE_SHOES
    for shoe in range(1, LIVE_SHOES + 1):
        w = client.get(f"/api/tables/W/shoes/{shoe}").get_json()
        c = client.get(f"/api/tables/C/shoes/{shoe}").get_json()
        assert comparable(c) == comparable(w)
        w = client.get(f"/api/tables/W/shoes/{shoe}/rounds").get_json()
        c = client.get(f"/api/tables/C/shoes/{shoe}/rounds").get_json()
        assert comparable_rounds(c) == comparable_rounds(w)
    get_service(app).close()


# ----------------------------------------------------------------------------- card rules over HTTP
# player 4S KD 9H (4 draws: 3), banker 7C JD (7 stands after a third card 9): deal order 4S 7C KD JD 9H
DEAL = ["4S", "7C", "KD", "JD", "9H"]


@pytest.fixture
def live(tmp_path):
    app = make(tmp_path)
    yield app, app.test_client()
    get_service(app).close()


def test_cards_build_the_round_in_progress_then_record_it(live):
    app, client = live
    r = post(client, "T1/shoes/1/rounds/1/cards", {"position": 1, "cards": ["4S", "7C", "KD"]})
    assert r.status_code == 201
    assert r.get_json()["in_progress"] == {"round": 1, "player": ["4S", "KD"], "banker": ["7C"], "burn": [],
                                           "cut_card": False, "player_total": 4, "banker_total": 7, "next": "banker"}
    snap = client.get("/api/tables/T1").get_json()
    assert snap["in_progress"]["next"] == "banker" and snap["round"] == 0 and snap["bead_plate"] == []
    assert [t.get("in_progress", {}).get("round") for t in client.get("/api/tables").get_json()["tables"]] == [1]
    r = post(client, "T1/shoes/1/rounds/1/cards", {"position": 4, "cards": ["JD", "9H"]})
    assert r.status_code == 201
    body = r.get_json()
    assert (body["result"]["winner"], body["result"]["player_total"], body["result"]["banker_total"]) == ("B", 3, 7)
    snap = client.get("/api/tables/T1").get_json()
    assert "in_progress" not in snap and snap["round"] == 1 and snap["last"]["winner"] == "B"
    r = post(client, "T1/rounds", {"shoe": 1, "round": 1, "player": ["4S", "KD", "9H"], "banker": ["7C", "JD"]})
    assert r.status_code == 200 and r.get_json()["status"] == "unchanged"
    assert post(client, "T1/shoes/1/rounds/1/cards", {"position": 2, "cards": ["7C"]}).status_code == 200
    rounds = client.get("/api/tables/T1/shoes/1/rounds").get_json()["rounds"]
    assert rounds[0]["feed"] == {"shoe": 1, "round": 1, "player": ["4S", "KD", "9H"], "banker": ["7C", "JD"]}


BAD = [
    # (why, body or path change, status, code, field)
    ("a card after the round is complete (both stand after 5)", {"position": 1, "cards": DEAL + ["2C"]}, 422,
     "deal_order", "cards[5]"),
    ("a position that skips ahead", {"position": 5, "cards": ["9H"]}, 409, "card_gap", "position"),
    ("another card at a stored position", {"position": 2, "cards": ["7H"]}, 409, "card_conflict", "cards[0]"),
    ("not a card", {"position": 4, "cards": ["JX"]}, 400, "bad_card", "cards[0]"),
    ("an unknown field", {"position": 4, "cards": ["JD"], "side": "banker"}, 400, "unknown_field", "side"),
    ("position 0", {"position": 0, "cards": ["JD"]}, 400, "invalid_value", "position"),
    ("burn after the first card", {"position": 4, "cards": ["JD"], "burn": ["8C"]}, 422, "deal_order", "burn"),
    ("past the sixth card", {"position": 6, "cards": ["JD", "9H"]}, 422, "deal_order", "position"),
    ("no cards", {"position": 4, "cards": []}, 400, "invalid_value", "cards"),
]


@pytest.mark.parametrize("why,body,status,code,field", BAD, ids=[b[0] for b in BAD])
def test_bad_card_posts_name_the_field_and_change_nothing(live, why, body, status, code, field):
    app, client = live
    assert post(client, "T1/shoes/1/rounds/1/cards", {"position": 1, "cards": DEAL[:3]}).status_code == 201
    before = client.get("/api/tables/T1").data
    r = post(client, "T1/shoes/1/rounds/1/cards", body)
    err = r.get_json()["error"]
    assert (r.status_code, err["code"], err["field"]) == (status, code, field), err
    assert client.get("/api/tables/T1").data == before


def test_cards_for_another_round_or_shoe_wait_for_the_round_in_progress(live):
    app, client = live
    assert post(client, "T1/shoes/1/rounds/1/cards", {"position": 1, "cards": DEAL[:3]}).status_code == 201
    before = client.get("/api/tables/T1").data
    for path, body, status, code, field in (
        ("T1/shoes/1/rounds/2/cards", {"position": 1, "cards": ["2C"]}, 409, "round_in_progress", "round"),
        ("T1/shoes/2/rounds/1/cards", {"position": 1, "cards": ["2C"]}, 409, "round_in_progress", "round"),
        ("T1/shoes/1/rounds/3/cards", {"position": 1, "cards": ["2C"]}, 409, "round_in_progress", "round"),
        ("T1/shoes", {"shoe": 2}, 409, "round_in_progress", "round"),
        ("T1/rounds", {"shoe": 1, "round": 1, "player": ["4S", "KH", "9H"], "banker": ["7C", "JD"]}, 409,
         "card_conflict", "player[1]"),
        ("T1/rounds", {"shoe": 1, "round": 1, "result": {"winner": "B", "player_total": 3, "banker_total": 7,
                                                         "player_pair": False, "banker_pair": False,
                                                         "natural": False}}, 409, "card_conflict", "result"),
        ("T1/shoes/0/rounds/1/cards", {"position": 1, "cards": ["2C"]}, 400, "invalid_value", "shoe"),
    ):
        r = post(client, path, body)
        err = r.get_json()["error"]
        assert (r.status_code, err["code"], err["field"]) == (status, code, field), (path, err)
        assert client.get("/api/tables/T1").data == before
    r = client.put("/api/tables/T1/shoes/1/rounds/1", json={"player": DEAL[::2], "banker": DEAL[1::2]}, headers=TOKEN)
    assert (r.status_code, r.get_json()["error"]["code"]) == (409, "round_in_progress")


def test_the_ninth_copy_of_a_card_is_refused_also_card_by_card(live):
    app, client = live
    # eight natural rounds each taking one AS: player AS 8x (9), banker Kx Qx (0)
    for n in range(1, 9):
        suit = "SHDC"[n % 4]
        body = {"shoe": 1, "round": n, "player": ["AS", "8" + suit], "banker": ["K" + suit, "Q" + suit]}
        assert post(client, "T1/rounds", body).status_code == 201
    before = client.get("/api/tables/T1").data
    r = post(client, "T1/shoes/1/rounds/9/cards", {"position": 1, "cards": ["AS"]})
    err = r.get_json()["error"]
    assert (r.status_code, err["code"], err["field"]) == (422, "too_many_copies", "cards[0]")
    assert err["message"] == "AS would be copy 9 of AS in shoe 1, but a 8-deck shoe holds 8"
    assert client.get("/api/tables/T1").data == before


def test_a_round_in_progress_can_be_voided_and_its_cards_stay_out_of_the_shoe(live):
    app, client = live
    assert post(client, "T1/shoes/1/rounds/1/cards", {"position": 1, "cards": ["AS", "2C"], "burn": ["8C"]}).status_code == 201
    r = post(client, "T1/shoes/1/rounds/1/void", {"reason": "misdeal"})
    assert r.status_code == 201 and r.get_json()["void"]["reason"] == "misdeal" and r.get_json()["result"] is None
    assert post(client, "T1/shoes/1/rounds/1/void", {"reason": "misdeal"}).status_code == 200
    snap = client.get("/api/tables/T1").get_json()
    assert "in_progress" not in snap and snap["bead_plate"] == []
    export = client.get("/api/tables/T1/shoes/1/rounds").get_json()
    assert export["rounds"][0]["feed"] == {"shoe": 1, "round": 1, "player": ["AS"], "banker": ["2C"], "burn": ["8C"]}
    assert export["rounds"][0]["incomplete"] is True and export["shoe"]["voided"] == 1
    r = post(client, "T1/shoes/1/rounds/1/cards", {"position": 3, "cards": ["KD"]})
    assert (r.status_code, r.get_json()["error"]["code"]) == (409, "round_voided")
    assert post(client, "T1/shoes/1/rounds/2/cards", {"position": 1, "cards": DEAL}).status_code == 201
    assert client.get("/api/tables/T1").get_json()["round"] == 2


def test_the_cut_card_ends_the_shoe_card_by_card(live):
    app, client = live
    assert post(client, "T1/shoes/1/rounds/1/cards", {"position": 1, "cards": DEAL[:2], "cut_card": True}).status_code == 201
    assert client.get("/api/tables/T1").get_json()["in_progress"]["cut_card"] is True
    assert post(client, "T1/shoes/1/rounds/1/cards", {"position": 3, "cards": DEAL[2:]}).status_code == 201
    r = post(client, "T1/shoes/1/rounds/2/cards", {"position": 1, "cards": ["2C"]})
    assert (r.status_code, r.get_json()["error"]["code"]) == (409, "shoe_ended")
    rounds = client.get("/api/tables/T1/shoes/1/rounds").get_json()["rounds"]
    assert rounds[0]["feed"]["cut_card"] is True


# ----------------------------------------------------------------------------- table state
def test_table_state_betting_countdown_dealer_and_unchanged_retries(live):
    app, client = live
    r = post(client, "T1/state", {"state": "betting", "seconds_left": 15, "dealer": "Anna"})
    assert r.status_code == 201  # clock: 12:00:00.000
    assert r.get_json()["state"] == {"state": "betting", "since": "2024-06-15T12:00:00.000Z",
                                     "closes_at": "2024-06-15T12:00:15.000Z", "dealer": "Anna", "limits": None}
    r = post(client, "T1/state", {"state": "betting", "seconds_left": 14.6})  # clock 12:00:00.500: closes 15.1 s
    assert r.status_code == 200
    r = post(client, "T1/state", {"state": "dealing"})  # 12:00:01.000
    assert r.status_code == 201
    assert r.get_json()["state"] == {"state": "dealing", "since": "2024-06-15T12:00:01.000Z", "closes_at": None,
                                     "dealer": "Anna", "limits": None}
    r = post(client, "T1/state", {"closes_at": "2024-06-15T12:01:00Z"})
    err = r.get_json()["error"]
    assert (r.status_code, err["code"], err["field"]) == (422, "bad_table_state", "closes_at")
    r = post(client, "T1/state", {"state": "betting", "closes_at": "2024-06-15T14:01:00+02:00", "dealer": None})
    assert r.get_json()["state"]["closes_at"] == "2024-06-15T12:01:00.000Z" and r.get_json()["state"]["dealer"] is None
    snap = client.get("/api/tables/T1").get_json()
    assert snap["state"]["state"] == "betting" and snap["round"] == 0
    jsonschema.Draft202012Validator(snapshot_schema()).validate(snap)
    for body, status, code, field in (
        ({"state": "napping"}, 400, "invalid_value", "state"),
        ({"closes_at": "tomorrow", "state": "betting"}, 400, "invalid_value", "closes_at"),
        ({"closes_at": "2024-06-15T12:01:00", "state": "betting"}, 400, "invalid_value", "closes_at"),
        ({"closes_at": "0001-01-01T00:00:00+00:01", "state": "betting"}, 400, "invalid_value", "closes_at"),  # schemathesis: was a 500
        ({"closes_at": "9999-12-31T23:59:59-23:59", "state": "betting"}, 400, "invalid_value", "closes_at"),
        ({"seconds_left": 5, "closes_at": "2024-06-15T12:01:00Z"}, 422, "bad_table_state", "seconds_left"),
        ({}, 400, "invalid_value", None),
        ({"limits": {"min": 500, "max": 100}}, 422, "bad_table_state", "limits.max"),
        ({"limits": {"min": 1, "max": 100, "bets": {"dragon": {"min": 1, "max": 5}}}}, 422, "unknown_bet",
         "limits.bets.dragon"),
    ):
        before = client.get("/api/tables/T1").data
        r = post(client, "T1/state", body)
        err = r.get_json()["error"]
        assert (r.status_code, err["code"], err["field"]) == (status, code, field), (body, err)
        assert client.get("/api/tables/T1").data == before


def test_limits_come_from_the_table_settings_and_the_feed_overrides_them(tmp_path):
    service = Service(SqliteStore.in_dir(tmp_path), tables={"T1": {"name": "One", "limits": {"min": 100, "max": 10000}},
                                                            "T2": {}})
    try:
        assert service.read.snapshot("T1")["state"] == {"state": None, "since": None, "closes_at": None, "dealer": None,
                                                   "limits": {"min": 100, "max": 10000}}
        assert "state" not in service.read.snapshot("T2")
        entry = service.read.list_tables()[0]
        assert entry["state"]["limits"] == {"min": 100, "max": 10000}
    finally:
        service.close()
    from web.settings import ConfigError

    with pytest.raises(ConfigError, match=r'ROADS_TABLES\["T1"\].limits.max'):
        Service(SqliteStore.in_dir(tmp_path / "b"), tables={"T1": {"limits": {"min": 5, "max": 1}}})


def test_state_and_round_in_progress_survive_a_restart(tmp_path):
    app = make(tmp_path)
    client = app.test_client()
    post(client, "T1/state", {"state": "dealing", "dealer": "Bo", "limits": {"min": 5, "max": 500}})
    post(client, "T1/shoes/1/rounds/1/cards", {"position": 1, "cards": DEAL[:3]})
    before = client.get("/api/tables/T1").data
    get_service(app).close()
    app = make(tmp_path)
    assert app.test_client().get("/api/tables/T1").data == before
    assert json.loads(before)["in_progress"]["player"] == ["4S", "KD"]
    get_service(app).close()


def test_table_limits_come_from_roads_tables_until_the_feed_sets_others(tmp_path):
    tables = json.dumps({"T1": {"name": "VIP 1", "variant": "seed001",
                                "limits": {"min": 100, "max": 10000, "bets": {"tie": {"min": 10, "max": 1000}}}}})
    app = make(tmp_path, ROADS_TABLES=tables)
    client = app.test_client()
    r = post(client, "T1/state", {"state": "betting", "seconds_left": 15})
    configured = {"min": 100, "max": 10000, "bets": {"tie": {"min": 10, "max": 1000}}}
    assert r.status_code == 201 and r.get_json()["state"]["limits"] == configured
    r = post(client, "T1/state", {"limits": {"min": 500, "max": 50000}})
    assert r.get_json()["state"]["limits"] == {"min": 500, "max": 50000}
    r = post(client, "T1/state", {"limits": None})  # back to the configured ones
    assert r.get_json()["state"]["limits"] == configured
    get_service(app).close()


@pytest.mark.parametrize("limits, field", [
    ({"min": 100, "max": 10}, "limits"),              # min above max
    ({"min": 1, "max": 2, "bets": {"no_such_bet": {"min": 1, "max": 2}}}, "limits.bets.no_such_bet"),
    ({"min": 1, "max": 2, "cap": 3}, "limits.cap"),
])
def test_bad_configured_limits_stop_the_service_at_start_naming_the_table(tmp_path, limits, field):
    from web.settings import ConfigError

    with pytest.raises(ConfigError, match=r'ROADS_TABLES\["T1"\]'):
        make(tmp_path, ROADS_TABLES=json.dumps({"T1": {"variant": "seed001", "limits": limits}}))
