"""roads.derived and roads.ask: derived-road entries and the ask road (domain.md section 4)."""

from __future__ import annotations

import itertools

import pytest

from roads.ask import ask, ask_one, next_cell
from roads.derived import BLUE, DERIVED_ROADS, RED, DerivedRoad, derived_color, derived_sequence, has_entry


def test_road_names_and_offsets():
    assert DERIVED_ROADS == (("big_eye_boy", 1), ("small_road", 2), ("cockroach_pig", 3))


def test_worked_example_big_eye_boy_is_red_blue_blue():
    # domain.md: B B P P P B -> columns [B,B] [P,P,P] [B] -> R B B
    lengths = [2, 3, 1]
    assert derived_color(lengths, 1, 1, 1) == RED  # 2nd P: column 0 has a 2nd cell
    assert derived_color(lengths, 1, 2, 1) == BLUE  # 3rd P: column 0 has 2 cells, none at row 3
    assert derived_color(lengths, 2, 0, 1) == BLUE  # new column: lengths 3 and 2 differ
    assert derived_sequence(lengths, 1) == [RED, BLUE, BLUE]


@pytest.mark.parametrize(
    "column, row, k, started",
    [
        (0, 0, 1, False), (0, 5, 1, False), (1, 0, 1, False), (1, 1, 1, True), (2, 0, 1, True),
        (1, 3, 2, False), (2, 0, 2, False), (2, 1, 2, True), (3, 0, 2, True),
        (2, 4, 3, False), (3, 0, 3, False), (3, 1, 3, True), (4, 0, 3, True),
    ],
)
def test_both_start_rules(column, row, k, started):
    lengths = [2, 2, 2, 2, 2, 2]
    assert has_entry(column, row, k) is started
    assert (derived_color(lengths, column, row, k) is not None) is started


def test_new_column_compares_the_two_columns_before_it():
    # r = 0: red iff columns c-1 and c-1-k have equal length
    assert derived_color([3, 1, 3, 9], 3, 0, 1) == BLUE  # L2=3 vs L1=1
    assert derived_color([3, 1, 3, 9], 3, 0, 2) == RED  # L2=3 vs L0=3
    assert derived_color([1, 4, 4, 3, 4], 4, 0, 1) == BLUE  # L3=3 vs L2=4
    assert derived_color([1, 4, 4, 3, 4], 4, 0, 3) == BLUE  # L3=3 vs L0=1
    assert derived_color([1, 4, 4, 3, 4], 3, 0, 1) == RED  # L2=4 vs L1=4


def test_row_below_the_top_is_blue_only_when_the_column_k_back_ends_just_above():
    lengths = [3, 6]
    assert [derived_color(lengths, 1, r, 1) for r in range(1, 6)] == [RED, RED, BLUE, RED, RED]
    # straight fall: column c-k shorter than r -> red
    assert derived_color([1, 5], 1, 2, 1) == RED
    assert derived_color([1, 1, 1, 5], 3, 4, 3) == RED


def test_derived_color_needs_the_columns_it_reads():
    with pytest.raises(IndexError):
        derived_color([2], 2, 0, 1)


def test_derived_road_lays_out_its_own_columns_with_tails():
    road = DerivedRoad(1)
    lengths = [1, 9]
    colors = [road.push(lengths, 1, r) for r in range(1, 9)]
    assert colors == [BLUE] + [RED] * 7
    assert road.columns == [[BLUE], [RED] * 7]
    assert [(c["x"], c["y"]) for c in road.cells] == [(0, 0), (1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (1, 5), (2, 5)]
    assert road.grid.width == 3 and road.name == "big_eye_boy" and len(road) == 8


def test_push_before_the_start_adds_nothing_and_pop_mirrors_it():
    road = DerivedRoad(2)
    assert road.push([1, 1], 1, 0) is None and road.sequence == []
    assert road.pop(1, 0) is None
    assert road.push([1, 1, 2], 2, 1) == BLUE
    assert road.pop(2, 1) == BLUE and road.sequence == [] and road.cells == [] and road.grid.width == 0


def test_json_copies_what_later_pushes_change():
    road = DerivedRoad(1)
    road.push([2, 2], 1, 1)
    piece = road.json()
    road.push([2, 3], 1, 2)
    assert piece["sequence"] == [RED] and piece["columns"] == [[RED]] and len(piece["cells"]) == 1


@pytest.mark.parametrize("k", [0, 4, -1, "1"])
def test_derived_road_offset_must_be_1_2_or_3(k):
    with pytest.raises(ValueError, match=repr(k)):
        DerivedRoad(k)


# ------------------------------------------------------------------------------ ask road
def test_next_cell_continues_or_starts_a_column():
    assert next_cell([], [], "B") == (0, 0)
    assert next_cell([2, 3], ["B", "P"], "P") == (1, 3)
    assert next_cell([2, 3], ["B", "P"], "B") == (2, 0)


def test_ask_road_rejects_a_tie():
    with pytest.raises(ValueError, match="'T'"):
        next_cell([1], ["B"], "T")


def test_ask_for_the_worked_example():
    # columns [B,B] [P,P,P] [B]; next B = column 2 row 1, next P = column 3 row 0
    assert ask([2, 3, 1], ["B", "P", "B"]) == {
        "banker": {"big_eye_boy": RED, "small_road": RED, "cockroach_pig": None},
        "player": {"big_eye_boy": BLUE, "small_road": BLUE, "cockroach_pig": None},
    }


def test_ask_on_an_empty_big_road_is_all_none():
    assert ask([], []) == {"banker": dict.fromkeys(("big_eye_boy", "small_road", "cockroach_pig")),
                           "player": dict.fromkeys(("big_eye_boy", "small_road", "cockroach_pig"))}


def test_fast_ask_equals_derived_color_of_the_next_cell_for_every_small_big_road():
    for n in range(1, 6):
        for lengths in itertools.product(range(1, 4), repeat=n):
            for first in "BP":
                winners = [first if i % 2 == 0 else ("P" if first == "B" else "B") for i in range(n)]
                got = ask(list(lengths), winners)
                assert got["banker"] == ask_one(lengths, winners, "B")
                assert got["player"] == ask_one(lengths, winners, "P")
