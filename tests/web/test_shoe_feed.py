"""The feed extensions of card-reading shoes over HTTP (docs/shoes.md section "Feed extensions",
docs/api.md): cards drawn face down, the shoe's error, a round held for the supervisor; refused
writes change nothing; everything survives a restart of the SQLite store byte for byte.

Hand-worked rounds (docs/domain.md section 1):

* face down, then shown ``QC 4S AC 4H`` (the Angel Eye capture of docs/shoes.md): player Q + A =
  1, banker 4 + 4 = natural 8 -> Banker, banker pair (4S 4H share a rank);
* the held round: player 2C 3D = 5 draws 4S -> 9; banker 5S 2C = 7 stands -> Player 9 to 7.
"""

from __future__ import annotations

import jsonschema

from roads.snapshot import schema as snapshot_schema
from support.feed import close_app, make_app, record_lobby
from web.render.model import BoardOptions, board_model
from web.service import get_service

TOKEN = {"Authorization": "Bearer test-token"}
START = 1_718_452_800.0
NATURAL_9 = {"player": ["9C", "KD"], "banker": ["7S", "QH"]}      # player 9 vs banker 7
HELD = {"player": ["2C", "3D", "4S"], "banker": ["5S", "2C"]}
HOLD = {"reason": "result_mismatch", "message": "the shoe says B; the cards give P",
        "shoe_result": {"winner": "B", "banker_six": False, "player_pair": False, "banker_pair": False},
        "player": ["2C", "3D", "4S"], "banker": ["5S", "2C"]}


def everything(client):
    """Every read-API answer of every table and shoe, as raw bytes (as tests/web/test_restart.py); the
    lobby without integrity marks (:func:`support.feed.record_lobby`)."""
    out: dict = {"/api/tables": record_lobby(client)}
    for t in client.get("/api/tables").json["tables"]:
        base = f"/api/tables/{t['id']}"
        out[base] = client.get(base).data
        out[base + "/shoes"] = client.get(base + "/shoes").data
        for s in client.get(base + "/shoes").json["shoes"]:
            for suffix in ("", "/rounds"):
                url = f"{base}/shoes/{s['shoe']}{suffix}"
                out[url] = client.get(url).data
    return out


def app_in(path):
    app = make_app(path, ROADS_FEED_TOKEN="test-token")
    ticks = iter(range(10**9))
    get_service(app).clock = lambda: START + 0.5 * next(ticks)
    return app


def post(client, path, body):
    return client.post(f"/api/tables/T1/{path}", json=body, headers=TOKEN)


def snap(client):
    return client.get("/api/tables/T1").json


def refused(client, path, body, status, code, field, method="post"):
    """The write is refused with ``status``/``code`` naming ``field``, and nothing changes."""
    before = everything(client)
    call = client.put if method == "put" else client.post
    r = call(f"/api/tables/T1/{path}", json=body, headers=TOKEN)
    assert r.status_code == status, r.json
    assert (r.json["error"]["code"], r.json["error"]["field"]) == (code, field)
    assert everything(client) == before


def words(model):
    return [i["t"] for p in model["panels"] for i in p["items"] if i.get("p") == "t"]


def backs(model):
    """Card backs in a model: the player-blue rectangle inside a card (status_panel.card_back)."""
    return sum(1 for p in model["panels"] if p["id"] in ("live", "side_bet")
               for i in p["items"] if i.get("p") == "r" and i.get("c") == "player")


def test_face_down_draws_show_as_backs_then_faces(tmp_path):
    app = app_in(tmp_path / "d")
    c = app.test_client()
    assert post(c, "rounds", {"shoe": 1, "round": 1, **NATURAL_9}).status_code == 201
    r = post(c, "shoes/1/rounds/2/cards", {"position": 1, "sides": ["player", "banker", "player", "banker"]})
    assert r.status_code == 201
    ip = r.json["in_progress"]
    assert ip["player"] == [] and ip["banker"] == []
    assert ip["cards"] == [{"side": s, "card": None} for s in ("player", "banker", "player", "banker")]
    assert ip["drawn"] == [{"position": 1, "side": "player", "nth": 1}, {"position": 2, "side": "banker", "nth": 1},
                           {"position": 3, "side": "player", "nth": 2}, {"position": 4, "side": "banker", "nth": 2}]
    assert snap(c)["in_progress"] == ip
    jsonschema.validate(snap(c), snapshot_schema())
    model = board_model(snap(c), BoardOptions(), now=START)
    assert backs(model) == 4 and "Banker's 2nd card drawn" in words(model)
    zh = board_model(snap(c), BoardOptions(lang="zh"), now=START)
    assert "庄第2张牌已发出" in words(zh)
    # the same backs again: unchanged; another side at a drawn position: a conflict; a gap
    assert post(c, "shoes/1/rounds/2/cards", {"position": 3, "sides": ["player"]}).status_code == 200
    refused(c, "shoes/1/rounds/2/cards", {"position": 2, "sides": ["player"]}, 409, "card_conflict", "sides[0]")
    refused(c, "shoes/1/rounds/2/cards", {"position": 6, "sides": ["banker"]}, 409, "card_gap", "position")
    refused(c, "shoes/1/rounds/2/cards", {"position": 1, "sides": ["dealer"]}, 400, "invalid_value", "sides[0]")
    refused(c, "shoes/1/rounds/2/cards", {"position": 1, "sides": ["player"], "cards": ["QC"]}, 400, "unknown_field",
            "sides")
    # the faces come at their positions: not a conflict, and they count from now on
    r = post(c, "shoes/1/rounds/2/cards", {"position": 1, "cards": ["QC", "4S"]})
    assert r.status_code == 201
    assert r.json["in_progress"]["player"] == ["QC"] and r.json["in_progress"]["banker"] == ["4S"]
    assert [d["position"] for d in r.json["in_progress"]["drawn"]] == [3, 4]
    r = post(c, "shoes/1/rounds/2/cards", {"position": 3, "cards": ["AC", "4H"]})
    assert r.status_code == 201
    res = r.json["result"]
    assert (res["winner"], res["player_total"], res["banker_total"], res["banker_pair"], res["natural"]) == \
        ("B", 1, 8, True, True)
    s = snap(c)
    assert "in_progress" not in s and [b["winner"] for b in s["bead_plate"]] == ["P", "B"]
    close_app(app)


def test_a_face_on_the_other_side_than_its_back_is_a_deal_order_error(tmp_path):
    app = app_in(tmp_path / "o")
    c = app.test_client()
    # player 2C 3D = 5 draws; banker 5S 2C = 7: card 5 is the player's, so a back for the banker at 5 is refused
    assert post(c, "shoes/1/rounds/1/cards", {"position": 1, "cards": ["2C", "5S", "3D", "2C"]}).status_code == 201
    refused(c, "shoes/1/rounds/1/cards", {"position": 5, "sides": ["banker"]}, 422, "deal_order", "sides[0]")
    # card 4 face down as the banker's, its face not yet known: and a sixth card only after the player's third
    app2 = app_in(tmp_path / "o2")
    c2 = app2.test_client()
    assert post(c2, "shoes/1/rounds/1/cards", {"position": 1, "sides": ["player", "banker", "player"]}).status_code == 201
    refused(c2, "shoes/1/rounds/1/cards", {"position": 4, "sides": ["banker", "banker", "banker"]}, 422,
            "deal_order", "sides[2]")
    assert post(c2, "shoes/1/rounds/1/cards", {"position": 4, "sides": ["banker", "player"]}).status_code == 201
    # faces: player 9C KD = natural 9: the round is complete after 4 cards while card 5 was drawn face down
    assert post(c2, "shoes/1/rounds/1/cards", {"position": 1, "cards": ["9C", "7S", "KD"]}).status_code == 201
    refused(c2, "shoes/1/rounds/1/cards", {"position": 4, "cards": ["QH"]}, 422, "deal_order", "cards[0]")
    close_app(app)
    close_app(app2)


def test_shoe_error_on_the_state_until_cleared(tmp_path):
    app = app_in(tmp_path / "e")
    c = app.test_client()
    assert post(c, "rounds", {"shoe": 1, "round": 1, **NATURAL_9}).status_code == 201
    assert "state" not in snap(c)
    r = post(c, "state", {"state": "dealing", "shoe_error": {"code": 1, "name": "card_unreadable"}})
    assert r.status_code == 201 and r.json["state"]["shoe_error"] == {"code": 1, "name": "card_unreadable"}
    assert post(c, "state", {"shoe_error": {"code": 1, "name": "card_unreadable"}}).status_code == 200
    since = snap(c)["state"]["since"]
    s = snap(c)
    jsonschema.validate(s, snapshot_schema())
    assert s["state"]["state"] == "dealing" and s["state"]["shoe_error"]["name"] == "card_unreadable"
    for lang, line in (("en", "Shoe: card cannot be read"), ("zh", "牌靴：无法读取牌"), ("th", "ขอนไพ่: อ่านไพ่ไม่ได้")):
        assert line in words(board_model(s, BoardOptions(lang=lang), now=START))
        assert line in words(board_model(s, BoardOptions(kind="tile", width=640, height=360, lang=lang), now=START))
        assert line in words(board_model(s, BoardOptions(kind="embed", width=600, height=300, lang=lang), now=START))
    other = post(c, "state", {"shoe_error": {"code": 9, "name": "lamp"}})
    assert other.status_code == 201
    assert "Shoe: error 9" in words(board_model(snap(c), BoardOptions(), now=START))
    refused(c, "state", {"shoe_error": {"code": 64, "name": "overdraw"}}, 400, "invalid_value", "shoe_error.code")
    refused(c, "state", {"shoe_error": {"code": 2, "name": "Over Draw"}}, 400, "invalid_value", "shoe_error.name")
    refused(c, "state", {"shoe_error": {"code": 2}}, 400, "missing_field", "shoe_error.name")
    r = post(c, "state", {"shoe_error": None})
    assert r.status_code == 201 and "shoe_error" not in r.json["state"]
    s = snap(c)
    assert "shoe_error" not in s["state"] and s["state"]["since"] == since   # the state itself did not change
    assert not any(p["id"] == "banner" for p in board_model(s, BoardOptions(), now=START)["panels"])
    assert c.get("/api/tables?state=dealing").json["tables"][0]["id"] == "T1"
    close_app(app)


def test_held_round_leaves_the_roads_until_the_supervisor_records_it(tmp_path):
    data = tmp_path / "h"
    app = app_in(data)
    c = app.test_client()
    assert post(c, "rounds", {"shoe": 1, "round": 1, **NATURAL_9}).status_code == 201
    assert post(c, "rounds", {"shoe": 1, "round": 2, "player": ["QC", "AC"], "banker": ["4S", "4H"]}).status_code == 201
    assert post(c, "shoes/1/rounds/3/cards", {"position": 1, "cards": ["2C", "5S", "3D"]}).status_code == 201
    assert post(c, "shoes/1/rounds/3/cards", {"position": 4, "sides": ["banker"]}).status_code == 201
    refused(c, "shoes/1/rounds/3/hold", dict(HOLD, reason="cosmic_rays"), 400, "invalid_value", "reason")
    refused(c, "shoes/1/rounds/3/hold", dict(HOLD, player=["2C", "3D", "4X"]), 400, "bad_card", "player[2]")
    refused(c, "shoes/1/rounds/9/hold", HOLD, 404, "unknown_round", "round")
    refused(c, "shoes/1/rounds/1/hold", HOLD, 409, "round_conflict", "round")
    r = post(c, "shoes/1/rounds/3/hold", HOLD)
    assert r.status_code == 201 and r.json["held"]["reason"] == "result_mismatch" and r.json["result"] is None
    assert post(c, "shoes/1/rounds/3/hold", HOLD).status_code == 200
    refused(c, "shoes/1/rounds/3/hold", dict(HOLD, message="another"), 409, "round_held", "reason")
    refused(c, "shoes/1/rounds/3/cards", {"position": 4, "cards": ["2C"]}, 409, "round_held", "round")
    s = snap(c)
    jsonschema.validate(s, snapshot_schema())
    assert "in_progress" not in s
    assert s["alarm"] == {"round": 3, "reason": "result_mismatch", "message": HOLD["message"], "held": 1}
    assert [b["round"] for b in s["bead_plate"]] == [1, 2]
    for lang, line in (("en", "Round 3 held for the supervisor"), ("zh", "第 3 局暂停，等待主管处理")):
        assert line in words(board_model(s, BoardOptions(lang=lang), now=START))
    lobby = c.get("/api/tables").json["tables"][0]
    assert lobby["alarm"]["round"] == 3
    line = c.get("/api/tables/T1/shoes").json["shoes"][0]
    assert (line["rounds"], line["counted"], line["voided"], line["held"]) == (3, 2, 0, 1)
    held = c.get("/api/tables/T1/shoes/1/rounds").json["rounds"][2]
    assert held["incomplete"] is True and held["result"] is None
    assert held["feed"] == {"shoe": 1, "round": 3, "player": ["2C", "3D"], "banker": ["5S"]}
    assert held["held"]["player"] == HOLD["player"] and held["held"]["resolved"] is False
    exported = c.get("/api/tables/T1/shoes/1/rounds.csv").get_data(as_text=True).splitlines()
    header, third = exported[0].split(","), dict(zip(exported[0].split(","), exported[3].split(",")))
    assert "held" in header and (third["round"], third["held"], third["held_reason"], third["winner"]) == (
        "3", "true", "result_mismatch", "")
    assert (third["player"], third["banker"], third["voided"]) == ("2C 3D", "5S", "false")
    # the next round may start
    assert post(c, "rounds", {"shoe": 1, "round": 4, **NATURAL_9}).status_code == 201
    # restart: the held round, the alarm and everything else come back as they were
    before = everything(c)
    close_app(app)
    app = app_in(data)
    c = app.test_client()
    assert everything(c) == before
    # the supervisor's round is recorded at its place: round 3 between 2 and 4
    refused(c, "shoes/1/rounds/3", {"player": ["2C", "3D", "4S"], "banker": ["5S", "2C", "9H"]}, 422, "tableau",
            "banker", method="put")
    r = c.put("/api/tables/T1/shoes/1/rounds/3", json={**HELD, "reason": "supervisor"}, headers=TOKEN)
    assert r.status_code == 201 and r.json["result"]["winner"] == "P" and r.json["result"]["player_total"] == 9
    s = snap(c)
    assert "alarm" not in s
    assert [(b["round"], b["winner"]) for b in s["bead_plate"]] == [(1, "P"), (2, "B"), (3, "P"), (4, "P")]
    assert [len(col) for col in s["big_road"]["columns"]] == [1, 1, 2]   # P | B | P P
    line = c.get("/api/tables/T1/shoes").json["shoes"][0]
    assert (line["counted"], "held" in line) == (4, False)
    rnd = c.get("/api/tables/T1/shoes/1/rounds").json["rounds"][2]
    assert rnd["held"]["resolved"] is True and rnd["corrections"][0]["previous"] == {"player": ["2C", "3D"],
                                                                                       "banker": ["5S"]}
    before = everything(c)
    close_app(app)
    app = app_in(data)
    assert everything(app.test_client()) == before
    close_app(app)


def test_held_round_of_a_past_shoe_voided_or_recorded_survives_restart(tmp_path):
    data = tmp_path / "p"
    app = app_in(data)
    c = app.test_client()
    for rnd, cards in ((1, ["2C", "5S", "3D"]), (2, ["2C", "5S", "3D"])):
        if rnd == 2:
            assert post(c, "rounds", {"shoe": 1, "round": 2, **NATURAL_9}).status_code == 201
            rnd = 3
        assert post(c, f"shoes/1/rounds/{rnd}/cards", {"position": 1, "cards": cards}).status_code == 201
        assert post(c, f"shoes/1/rounds/{rnd}/hold", HOLD).status_code == 201
    assert snap(c)["alarm"] == {"round": 1, "reason": "result_mismatch", "message": HOLD["message"], "held": 2}
    assert post(c, "rounds", {"shoe": 2, "round": 1, **NATURAL_9}).status_code == 201   # shoe 1 is past now
    assert "alarm" not in snap(c)            # the alarm is the live shoe's
    assert c.get("/api/tables/T1/shoes").json["shoes"][-1]["held"] == 2   # newest first: shoe 1 is last
    r = c.post("/api/tables/T1/shoes/1/rounds/3/void", json={"reason": "supervisor: misdeal"}, headers=TOKEN)
    assert r.status_code == 201 and r.json["void"]["reason"] == "supervisor: misdeal"
    r = c.put("/api/tables/T1/shoes/1/rounds/1", json=HELD, headers=TOKEN)
    assert r.status_code == 201
    past = c.get("/api/tables/T1/shoes/1").json
    assert [(b["round"], b["winner"]) for b in past["bead_plate"]] == [(1, "P"), (2, "P")]
    assert past["voided"] == []              # a held round never was in the roads
    line = c.get("/api/tables/T1/shoes").json["shoes"][-1]
    assert line["shoe"] == 1 and (line["rounds"], line["counted"], line["voided"], "held" in line) == (3, 2, 1, False)
    before = everything(c)
    close_app(app)
    app = app_in(data)
    assert everything(app.test_client()) == before
    close_app(app)
