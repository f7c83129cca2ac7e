"""roads.bead_plate: one bead per counted round, ties included, 6 rows, column by column."""

from __future__ import annotations

import pytest

from roads.bead_plate import BeadPlate, bead_json, bead_position
from roads.notation import parse_rounds
from roads.outcome import RoundResult


@pytest.mark.parametrize("index, cell", [(0, (0, 0)), (5, (0, 5)), (6, (1, 0)), (13, (2, 1)), (79, (13, 1))])
def test_bead_position_fills_top_to_bottom_then_left_to_right(index, cell):
    assert bead_position(index) == cell


def test_bead_position_rejects_negative_index():
    with pytest.raises(ValueError, match="-1"):
        bead_position(-1)


def test_bead_dict_carries_the_round_result():
    r = RoundResult.from_result("B", 3, 7, player_pair=True)
    assert bead_json(7, 12, r) == {
        "x": 1, "y": 1, "round": 12, "winner": "B", "player_total": 3, "banker_total": 7,
        "player_pair": True, "banker_pair": False, "natural": False,
    }


def test_ties_take_a_bead_and_winners_are_plain_strings():
    plate = BeadPlate()
    for n, r in enumerate(parse_rounds("TBTPPPPB"), 1):
        plate.push(n, r)
    assert [(b["x"], b["y"], b["winner"]) for b in plate.beads] == [
        (0, 0, "T"), (0, 1, "B"), (0, 2, "T"), (0, 3, "P"), (0, 4, "P"), (0, 5, "P"), (1, 0, "P"), (1, 1, "B")]
    assert all(type(b["winner"]) is str for b in plate.beads)
    assert plate.width == 2 and len(plate) == 8


def test_pop_removes_the_newest_bead():
    plate = BeadPlate()
    plate.push(1, parse_rounds("B")[0])
    plate.push(3, parse_rounds("P")[0])
    assert plate.pop()["round"] == 3
    assert [b["round"] for b in plate.beads] == [1]
    plate.pop()
    assert plate.width == 0
    with pytest.raises(IndexError):
        plate.pop()
