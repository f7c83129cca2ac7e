"""The card-reading shoe's lines in feed files (cards drawn face down, ``shoe_error`` in state
lines, held rounds): ``roads replay`` of them gives the snapshots that the same writes posted by
hand through the HTTP API give; a bad one is refused naming its line and key."""

from __future__ import annotations

import json

import pytest
import requests
from click.testing import CliRunner

from roads.simulator import FeedLineError
from support.feed import AUTH, FEED_TOKEN, close_app, make_app
from support.serving import serve_app
from web.cli import main
from web.cli.feed_file import parse_feed_line

T = {"table": "T1"}
CARDS = {"type": "cards", **T, "shoe": 1, "round": 1}
HOLD = {"reason": "result_mismatch", "message": "the shoe says P; the cards give B",
        "shoe_result": {"winner": "P", "banker_six": False, "player_pair": False, "banker_pair": False},
        "player": ["2C", "3D"], "banker": ["5S"]}
SEGMENTS = [   # replayed one file at a time, the snapshot compared after each
    [{"type": "shoe", **T, "shoe": 1}, {"type": "state", **T, "state": "dealing"},
     {**CARDS, "position": 1, "sides": ["player", "banker"]}],
    [{**CARDS, "position": 1, "cards": ["2C", "5S"]},
     {"type": "state", **T, "shoe_error": {"code": 1, "name": "card_unreadable"}}],
    [{"type": "state", **T, "shoe_error": None}, {**CARDS, "position": 3, "cards": ["3D"]},
     {"type": "hold", **T, "shoe": 1, "round": 1, **HOLD}],
]
BY_HAND = [   # the same writes, as a client posts them
    [("/api/tables/T1/shoes", {"shoe": 1}), ("/api/tables/T1/state", {"state": "dealing"}),
     ("/api/tables/T1/shoes/1/rounds/1/cards", {"position": 1, "sides": ["player", "banker"]})],
    [("/api/tables/T1/shoes/1/rounds/1/cards", {"position": 1, "cards": ["2C", "5S"]}),
     ("/api/tables/T1/state", {"shoe_error": {"code": 1, "name": "card_unreadable"}})],
    [("/api/tables/T1/state", {"shoe_error": None}),
     ("/api/tables/T1/shoes/1/rounds/1/cards", {"position": 3, "cards": ["3D"]}),
     ("/api/tables/T1/shoes/1/rounds/1/hold", HOLD)],
]
RESOLUTION = ("/api/tables/T1/shoes/1/rounds/1", {"player": ["2C", "3D"], "banker": ["5S", "4H"],
                                                   "reason": "read by the supervisor"})


def comparable(snapshot: dict) -> dict:
    """A snapshot without what differs between two services (version, times)."""
    out = {k: v for k, v in snapshot.items() if k != "version"}
    if "state" in out:
        out["state"] = {k: v for k, v in out["state"].items() if k != "since"}
    return out


def test_replayed_shoe_lines_give_the_snapshots_of_the_same_writes_by_hand(tmp_path):
    replayed, by_hand = make_app(tmp_path / "a"), make_app(tmp_path / "b")
    client = by_hand.test_client()
    try:
        with serve_app(replayed) as server:
            url = f"http://127.0.0.1:{server.port}"
            seen = []
            for n, (lines, writes) in enumerate(zip(SEGMENTS, BY_HAND)):
                path = tmp_path / f"part{n}.jsonl"
                path.write_text("".join(json.dumps(m) + "\n" for m in lines), encoding="utf-8")
                result = CliRunner().invoke(main, ["replay", str(path), "--url", url, "--token", FEED_TOKEN,
                                                   "--no-progress"], prog_name="roads")
                assert result.exit_code == 0, result.output
                for p, body in writes:
                    assert client.post(p, json=body, headers=AUTH).status_code in (200, 201)
                a = requests.get(f"{url}/api/tables/T1", timeout=5).json()
                b = client.get("/api/tables/T1").get_json()
                assert comparable(a) == comparable(b)
                seen.append(a)
            p, body = RESOLUTION
            assert requests.put(url + p, json=body, headers=AUTH, timeout=5).status_code == 201
            assert client.put(p, json=body, headers=AUTH).status_code == 201
            a = requests.get(f"{url}/api/tables/T1", timeout=5).json()
            b = client.get("/api/tables/T1").get_json()
    finally:
        close_app(replayed)
        close_app(by_hand)
    assert comparable(a) == comparable(b)
    drawn, faces, held = seen
    assert [c["card"] for c in drawn["in_progress"]["cards"]] == [None, None]
    assert (faces["in_progress"]["player"], faces["in_progress"]["banker"]) == (["2C"], ["5S"])
    assert "drawn" not in faces["in_progress"]
    assert faces["state"]["shoe_error"] == {"code": 1, "name": "card_unreadable"}
    assert "shoe_error" not in held["state"] and "in_progress" not in held
    assert (held["alarm"]["round"], held["alarm"]["reason"]) == (1, "result_mismatch")
    assert "alarm" not in a
    assert held["bead_plate"] == [] and held["stats"]["rounds"] == 0
    assert len(a["bead_plate"]) == 1 and (a["stats"]["rounds"], a["stats"]["banker"]) == (1, 1)


@pytest.mark.parametrize("message, field, words", [
    ({**CARDS, "position": 1, "sides": ["dealer"]}, "sides", "'sides[0]'"),
    ({**CARDS, "position": 1, "sides": []}, "sides", "'sides' must be a list of 1-6 items"),
    ({**CARDS, "position": 1, "sides": ["player"], "cards": ["AS"]}, "sides", "not both"),
    ({"type": "state", **T, "shoe_error": {"code": 64, "name": "x"}}, "shoe_error", "'shoe_error.code'"),
    ({"type": "state", **T, "shoe_error": {"code": 1}}, "shoe_error", "'shoe_error.name'"),
    ({"type": "hold", **T, "shoe": 1, "round": 1, **HOLD, "reason": "bored"}, "reason", "'reason' must be one of"),
    ({"type": "hold", **T, "shoe": 0, "round": 1, **HOLD}, "shoe", "'shoe' must be an integer >= 1, got 0"),
    ({"type": "hold", **T, "shoe": 1, "round": 1, **HOLD, "player": ["AS", "2S", "3S", "4S"]}, "player",
     "'player' must be a list of 0-3 cards"),
    ({"type": "hold", **T, "shoe": 1, "round": 1, "message": "m"}, "reason", "'reason' must be one of"),
    ({"type": "hold", **T, "shoe": 1, "round": 1, **HOLD, "sides": ["player"]}, "sides",
     "unknown key 'sides' in a 'hold' message"),
])
def test_a_bad_shoe_line_names_its_line_number_and_field(message, field, words):
    with pytest.raises(FeedLineError) as info:
        parse_feed_line(json.dumps(message), 9)
    assert str(info.value).startswith("line 9: ") and words in str(info.value), str(info.value)
    assert (info.value.line_number, info.value.field) == (9, field)


def test_replay_refuses_a_bad_hold_line_with_exit_3_before_sending(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(SEGMENTS[0][0]) + "\n" + json.dumps({"type": "hold", **T, "shoe": 1, "round": 1})
                    + "\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["replay", str(path), "--url", "http://127.0.0.1:9", "--token", "t",
                                       "--no-progress"], prog_name="roads")
    assert result.exit_code == 3, result.output
    assert "line 2" in result.output and "'reason'" in result.output


def test_render_folds_out_face_down_cards_and_held_rounds():
    from roads.simulator import feed_request, whole_rounds

    hold = {"type": "hold", **T, "shoe": 1, "round": 1, **HOLD}
    assert feed_request(hold).path == "/api/tables/T1/shoes/1/rounds/1/hold"
    assert "shoe" not in feed_request(hold).body and feed_request(hold).body["reason"] == "result_mismatch"
    lines = [m for part in SEGMENTS for m in part]
    assert [m["type"] for _, m in whole_rounds(enumerate(lines, 1))] == ["shoe"]   # round 1 held: no round
    faces = [m for m in lines if m["type"] != "hold"] + [{**CARDS, "position": 4, "cards": ["4H"]}]
    assert [(n, m.get("player"), m.get("banker")) for n, m in whole_rounds(enumerate(faces, 1))] == \
        [(1, None, None), (8, ["2C", "3D"], ["5S", "4H"])]


def test_render_draws_the_rounds_after_a_held_round_without_it(tmp_path):
    """Round 2 held (3 of its cards dealt), round 3 dealt whole: the drawn shoe holds rounds 1
    (Player 9 against 5, a natural) and 3 (Banker 9 against 5), in that order, and no round 2."""
    from web.cli.commands import shoe_roads_from_file

    lines = [{"type": "shoe", **T, "shoe": 1},
             {"type": "round", **T, "shoe": 1, "round": 1, "player": ["9C", "KD"], "banker": ["2S", "3H"]},
             {**CARDS, "round": 2, "position": 1, "cards": ["2C", "5S", "3D"]},
             {"type": "hold", **T, "shoe": 1, "round": 2, **HOLD},
             {"type": "round", **T, "shoe": 1, "round": 3, "player": ["2C", "3D"], "banker": ["9S", "KH"]}]
    path = tmp_path / "held.jsonl"
    path.write_text("".join(json.dumps(m) + "\n" for m in lines))
    table, roads, rounds, _ = shoe_roads_from_file(path, 1, None)
    assert (table, rounds) == ("T1", 3)
    assert [(b["round"], b["winner"]) for b in roads.bead_plate_json()] == [(1, "P"), (3, "B")]
    out = tmp_path / "held.png"
    assert CliRunner().invoke(main, ["render", str(path), "--shoe", "1", "--out", str(out)]).exit_code == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
