"""roads.snapshot.build_snapshot and its JSON Schema (roads/schema/snapshot.schema.json)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pytest

from roads.notation import parse_rounds
from roads.shoe_roads import ShoeRoads
from roads.snapshot import SnapshotError, build_snapshot, schema
from support.variants import Spec, StandIn

GOLDEN = sorted((Path(__file__).parent / "golden").glob("*.json"))
VARIANT = StandIn("demo", "Demo Table", (Spec("player_pair", "Player Pair", 60), Spec("big", "Big", 30)))
VALIDATOR = jsonschema.Draft202012Validator(schema(), format_checker=jsonschema.FormatChecker())


def snap(text: str, variant=VARIANT, **kw) -> dict:
    roads = kw.pop("roads", None) or ShoeRoads.from_rounds(parse_rounds(text))
    return build_snapshot(table=kw.get("table", "T1"), shoe=kw.get("shoe", 3), version=kw.get("version", 57),
                          roads=roads, variant=variant)


def as_json(d: dict) -> dict:
    return json.loads(json.dumps(d))


def test_schema_is_a_valid_draft_2020_12_schema():
    jsonschema.Draft202012Validator.check_schema(schema())


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_every_golden_shoe_snapshot_validates(path):
    rounds = json.loads(path.read_text(encoding="utf-8"))["rounds"]
    VALIDATOR.validate(as_json(snap(rounds)))


def test_real_preset_snapshot_validates():
    variants = pytest.importorskip("roads.variants")
    for variant in variants.PRESETS.values():
        s = snap("TTBPPBTBBpnPPPPPPPPBPBTT", variant=variant)
        VALIDATOR.validate(as_json(s))
        assert s["variant"] == {"id": variant.id, "name": variant.name}
        assert [b["bet"] for b in s["side_bets"]] == [b.bet for b in variant.side_bets]


def test_snapshot_keys_and_meanings():
    s = snap("TTBPPBTB")
    assert (s["table"], s["shoe"], s["round"], s["version"]) == ("T1", 3, 8, 57)
    assert s["variant"] == {"id": "demo", "name": "Demo Table"}
    assert s["bead_plate"][2] == {"x": 0, "y": 2, "round": 3, "winner": "B", "player_total": 2, "banker_total": 7,
                                  "player_pair": False, "banker_pair": False, "natural": False}
    assert s["big_road"]["leading_ties"] == 2
    assert s["big_road"]["columns"][0] == [{"round": 3, "winner": "B", "ties": 0, "player_pair": False,
                                            "banker_pair": False, "natural": False}]
    assert s["big_road"]["cells"][0] == {"x": 0, "y": 0, "column": 0, "row": 0}
    assert s["big_eye_boy"]["cells"][0] == {"x": 0, "y": 0, "column": 0, "row": 0, "color": "blue"}
    assert set(s["ask"]) == {"banker", "player"}
    assert set(s["ask"]["banker"]) == {"big_eye_boy", "small_road", "cockroach_pig"}
    assert {k: s["stats"][k] for k in ("rounds", "banker", "player", "tie", "banker_pair", "player_pair",
                                        "natural")} == {"rounds": 8, "banker": 3, "player": 2, "tie": 3,
                                                        "banker_pair": 0, "player_pair": 0, "natural": 0}
    assert s["side_bets"] == [
        {"bet": "player_pair", "label": "Player Pair", "open": True, "limit": 60, "rounds_left": 52},
        {"bet": "big", "label": "Big", "open": True, "limit": 30, "rounds_left": 22}]
    assert s["good_roads"] == []
    assert s["last"]["round"] == 8 and s["last"]["winner"] == "B"
    assert {k: s["last"][k] for k in ("player_total", "banker_total", "player_pair", "banker_pair", "natural")} == {
        "player_total": 2, "banker_total": 7, "player_pair": False, "banker_pair": False, "natural": False}


def test_round_is_the_round_number_within_the_shoe_and_side_bets_count_counted_rounds():
    # The schema: "`round` is the round number within the shoe". Rounds 1-5 dealt, round 2
    # voided: the shoe is at round 5 (the newest bead is round 5), 4 rounds are counted.
    roads = ShoeRoads.from_rounds(parse_rounds("BPBPB"))
    roads.void(2)
    s = snap("", roads=roads)
    assert s["round"] == 5 and s["last_round_number"] == 5 and s["voided"] == [2]
    assert s["stats"]["rounds"] == 4 and s["last"]["round"] == 5
    # Side-bet windows count counted rounds (interface item 1): 60 - 4 and 30 - 4 left.
    assert [b["rounds_left"] for b in s["side_bets"]] == [56, 26]
    VALIDATOR.validate(as_json(s))


def test_round_follows_the_feed_numbering_across_a_gap_and_a_voided_newest_round():
    # The feed numbers rounds 1, 2, 4 (round 3 was voided before it reached us): the shoe
    # is at round 4 with 3 counted rounds; voiding round 4 leaves the shoe at round 4 with
    # 2 counted rounds and round 2 as the newest counted round.
    roads = ShoeRoads()
    for number, result in zip((1, 2, 4), parse_rounds("BPP")):
        roads.record(number, result)
    s = snap("", roads=roads)
    assert (s["round"], s["stats"]["rounds"], s["last"]["round"]) == (4, 3, 4)
    roads.void(4)
    s = snap("", roads=roads)
    assert (s["round"], s["stats"]["rounds"], s["last"]["round"]) == (4, 2, 2)
    assert [b["rounds_left"] for b in s["side_bets"]] == [58, 28]


def test_empty_shoe_snapshot():
    s = snap("")
    assert s["round"] == 0 and s["last"] is None and s["bead_plate"] == [] and s["good_roads"] == []
    assert s["big_road"] == {"leading_ties": 0, "columns": [], "cells": [], "width": 0}
    VALIDATOR.validate(as_json(s))


def test_top_level_dict_is_new_each_call_and_old_snapshots_never_change():
    roads = ShoeRoads.from_rounds(parse_rounds("BBPPPB"))
    first = snap("", roads=roads)
    frozen = copy.deepcopy(first)
    second = snap("", roads=roads)
    assert second is not first and second == first
    second["live"] = True  # the web layer may add keys
    assert "live" not in first
    for r in parse_rounds("TBBBBBBBBBPPPPPPPP"):
        roads.record(roads.last_round_number + 1, r)
    roads.void(1)
    roads.correct(3, parse_rounds("B")[0])
    assert first == frozen


def test_json_round_trip_is_lossless():
    s = snap("TTBpPbnPPPPPPPPPPBTT")
    assert as_json(s) == s


@pytest.mark.parametrize(
    "kw, field",
    [
        (dict(table=""), "table"), (dict(table=5), "table"), (dict(table=None), "table"),
        (dict(shoe=0), "shoe"), (dict(shoe=True), "shoe"), (dict(shoe="3"), "shoe"),
        (dict(version=-1), "version"), (dict(version=1.0), "version"), (dict(version=False), "version"),
    ],
)
def test_bad_arguments_raise_snapshot_error_naming_the_field(kw, field):
    with pytest.raises(SnapshotError) as info:
        snap("B", **kw)
    assert info.value.field == field
    assert repr(kw[field]) in str(info.value)


def test_roads_must_be_shoe_roads():
    with pytest.raises(TypeError, match="ShoeRoads"):
        build_snapshot(table="T1", shoe=1, version=0, roads=object(), variant=VARIANT)  # type: ignore[arg-type]


def test_schema_documents_every_key_build_snapshot_produces():
    s = snap("TTBPPBTBBp")
    props = schema()["properties"]
    assert set(s) <= set(props), set(s) - set(props)
    assert set(schema()["required"]) <= set(s)
    defs = schema()["$defs"]
    assert set(s["stats"]) <= set(defs["stats"]["properties"])
    assert set(s["big_road"]) <= set(defs["big_road"]["properties"])
    assert set(s["big_eye_boy"]) <= set(defs["derived_road"]["properties"])
    assert set(s["side_bets"][0]) <= set(defs["side_bet"]["properties"])
    assert set(s["bead_plate"][0]) <= set(defs["bead"]["properties"])


@pytest.mark.parametrize(
    "path, value",
    [
        (("bead_plate", 0, "winner"), "X"),
        (("big_road", "columns", 0, 0, "winner"), "T"),
        (("big_road", "cells", 0, "y"), 6),
        (("big_eye_boy", "sequence", 0), "green"),
        (("ask", "banker", "small_road"), "purple"),
        (("stats", "rounds"), -1),
        (("side_bets", 0, "rounds_left"), -3),
        (("last", "player_total"), 10),
        (("round",), "8"),
    ],
)
def test_schema_rejects_bad_values(path, value):
    s = as_json(snap("BBPPPBBBPPBPBB"))
    target = s
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(jsonschema.ValidationError):
        VALIDATOR.validate(s)


def test_schema_rejects_a_missing_required_key():
    s = as_json(snap("B"))
    del s["ask"]
    with pytest.raises(jsonschema.ValidationError, match="'ask' is a required property"):
        VALIDATOR.validate(s)
