"""roads.shoe_roads.ShoeRoads: recording, voiding and correcting rounds; errors; caching."""

from __future__ import annotations

import json

import pytest

from roads.notation import parse_rounds
from roads.shoe_roads import SNAPSHOT_CALLER_KEYS, RoundNumberError, ShoeRoads, VoidRoundError

B, P, T = parse_rounds("BPT")


def columns(roads: ShoeRoads) -> list[str]:
    return ["".join(c["winner"] for c in col) for col in roads.big_road_json()["columns"]]


def test_a_new_shoe_is_empty():
    roads = ShoeRoads()
    assert (roads.rounds, roads.last_round_number, roads.voided, roads.changes) == (0, 0, (), 0)
    assert roads.last_json() is None and roads.counted_rounds() == []


def test_record_numbers_may_have_gaps_but_must_increase():
    roads = ShoeRoads()
    roads.record(1, B)
    roads.record(3, P)
    assert [b["round"] for b in roads.bead_plate_json()] == [1, 3]
    assert roads.last_round_number == 3 and roads.rounds == 2 and roads.changes == 2
    for bad in (3, 2):
        with pytest.raises(RoundNumberError, match="not after the last recorded round 3") as info:
            roads.record(bad, B)
        assert info.value.round_number == bad and info.value.field == "round"
    assert roads.rounds == 2 and roads.changes == 2


@pytest.mark.parametrize("bad", [0, -1, True, 1.0, "2", None])
def test_record_rejects_a_round_number_that_is_not_a_positive_integer(bad):
    with pytest.raises(RoundNumberError, match="positive integer"):
        ShoeRoads().record(bad, B)


def test_record_rejects_a_result_that_is_not_a_round_result_and_changes_nothing():
    roads = ShoeRoads.from_rounds([B])
    with pytest.raises(TypeError, match="RoundResult"):
        roads.record(2, "B")  # type: ignore[arg-type]
    assert roads.last_round_number == 1 and roads.rounds == 1


def test_void_removes_the_round_from_every_road_and_count():
    roads = ShoeRoads.from_rounds(parse_rounds("BBPPPB"))
    roads.void(3)
    assert columns(roads) == ["BB", "PP", "B"]
    assert [(b["x"], b["y"], b["round"]) for b in roads.bead_plate_json()] == [
        (0, 0, 1), (0, 1, 2), (0, 2, 4), (0, 3, 5), (0, 4, 6)]
    assert roads.stats_json()["rounds"] == 5 and roads.rounds == 5
    assert roads.voided == (3,) and roads.voided_json() == [3]
    assert roads.last_round_number == 6
    assert roads.result(3) == P  # a voided round's result is still known
    # big eye boy of [B,B] [P,P] [B]: (1,1) red; (2,0) equal lengths 2, 2 -> red
    assert roads.derived_json(1)["sequence"] == ["red", "red"]


def test_void_of_the_newest_round_and_record_after_it():
    roads = ShoeRoads.from_rounds(parse_rounds("BBP"))
    roads.void(3)
    roads.record(4, B)
    assert columns(roads) == ["BBB"]
    assert roads.last_json()["round"] == 4


def test_void_the_only_round():
    roads = ShoeRoads.from_rounds([T])
    roads.void(1)
    assert roads.big_road_json()["leading_ties"] == 0 and roads.bead_plate_json() == [] and roads.last_json() is None


def test_correct_replaces_a_result_and_replays_the_rounds_after_it():
    roads = ShoeRoads.from_rounds(parse_rounds("BBPPPB"))
    roads.correct(2, P)
    assert columns(roads) == ["B", "PPPP", "B"]
    roads.correct(6, P)
    assert columns(roads) == ["B", "PPPPP"]
    assert roads.result(2) == P and roads.changes == 8
    assert [r.winner.value for _, r in roads.counted_rounds()] == list("BPPPPP")


def test_correct_a_tie_into_a_result_and_back():
    roads = ShoeRoads.from_rounds(parse_rounds("BTB"))
    roads.correct(2, P)
    assert columns(roads) == ["B", "P", "B"]
    roads.correct(2, T)
    assert columns(roads) == ["BB"] and roads.big_road_json()["columns"][0][0]["ties"] == 1


def test_void_and_correct_errors():
    roads = ShoeRoads.from_rounds(parse_rounds("BPB"))
    roads.void(2)
    with pytest.raises(VoidRoundError, match="already void") as info:
        roads.void(2)
    assert info.value.round_number == 2
    with pytest.raises(VoidRoundError):
        roads.correct(2, B)
    for bad in (4, 99):
        with pytest.raises(RoundNumberError, match="not recorded") as info:
            roads.void(bad)
        assert not isinstance(info.value, VoidRoundError)
        with pytest.raises(RoundNumberError, match="not recorded"):
            roads.correct(bad, B)
    with pytest.raises(RoundNumberError, match="positive integer"):
        roads.void(0)
    with pytest.raises(RoundNumberError, match="not recorded"):
        roads.result(7)
    with pytest.raises(TypeError):
        roads.correct(1, None)  # type: ignore[arg-type]
    assert columns(roads) == ["BB"] and roads.changes == 4


def test_pieces_are_cached_until_a_change_and_never_change_afterwards():
    roads = ShoeRoads.from_rounds(parse_rounds("BBPPPB"))
    template = roads.snapshot_template()
    assert roads.snapshot_template() is template
    assert {k for k, v in template.items() if v is None} == SNAPSHOT_CALLER_KEYS
    first = roads.pieces()
    assert first == {k: v for k, v in template.items() if k not in SNAPSHOT_CALLER_KEYS}
    encoded = json.dumps(first, sort_keys=True)
    roads.record(7, T)
    assert roads.snapshot_template() is not template
    second = roads.pieces()
    # a tie leaves the derived roads, the ask road and the good roads as they were: shared
    assert second["big_eye_boy"] is first["big_eye_boy"] and second["ask"] is first["ask"]
    for r in parse_rounds("BBBBBBBBPPP"):
        roads.record(roads.last_round_number + 1, r)
    roads.void(2)
    roads.correct(4, B)
    assert json.dumps(first, sort_keys=True) == encoded


def test_from_rounds_takes_numbered_pairs_too():
    roads = ShoeRoads.from_rounds([(2, B), (5, P)])
    assert [n for n, _ in roads.counted_rounds()] == [2, 5]
    with pytest.raises(RoundNumberError):
        ShoeRoads.from_rounds([(5, B), (2, P)])


@pytest.mark.parametrize("k", [0, 4, "1"])
def test_derived_json_takes_k_1_2_or_3(k):
    with pytest.raises(ValueError, match=repr(k)):
        ShoeRoads().derived_json(k)


def test_with_next_counts_a_tie_on_its_cell_and_adds_the_ask_roads_entry():
    # hand-worked (docs/domain.md section 4): B T P, then a Banker: columns [B (1 tie)] [P] [B];
    # big eye boy starts at column 2 row 0: columns 1 and 0 both hold one cell -> red
    roads = ShoeRoads.from_rounds([B, T, P])
    banker = roads.with_next("B")
    assert columns(banker) == ["B", "P", "B"]
    assert [c["ties"] for col in banker.big_road_json()["columns"] for c in col] == [1, 0, 0]
    assert banker.big_road_json()["leading_ties"] == 0
    assert (banker.derived_json(1)["sequence"], banker.derived_json(2)["sequence"]) == (["red"], [])
    # then a Player instead: columns [B (1 tie)] [P P]; column 0 has exactly 1 cell -> blue
    player = roads.with_next("P")
    assert columns(player) == ["B", "PP"] and player.derived_json(1)["sequence"] == ["blue"]
    assert [b["round"] for b in banker.bead_plate_json()] == [1, 2, 3, 4]
    # the shoe asked about is unchanged
    assert columns(roads) == ["B", "P"] and roads.rounds == 3 and roads.derived_json(1)["sequence"] == []


def test_with_next_keeps_the_voided_rounds_and_numbers_after_the_last_recorded():
    roads = ShoeRoads.from_rounds([B, P, B])
    roads.void(3)
    preview = roads.with_next("P")
    assert columns(preview) == ["B", "PP"]
    assert preview.voided_json() == [3] and [b["round"] for b in preview.bead_plate_json()] == [1, 2, 4]


@pytest.mark.parametrize("winner", ["T", "X", None, "banker"])
def test_with_next_asks_only_about_banker_or_player(winner):
    with pytest.raises(ValueError, match="the ask road asks about 'B' or 'P'"):
        ShoeRoads.from_rounds([B]).with_next(winner)
