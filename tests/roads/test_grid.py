"""roads.grid: dragon-tail placement (domain.md section 4 "Dragon tail"), worked by hand."""

from __future__ import annotations

import pytest

from roads.grid import ROWS, TailGrid, place_columns


def test_every_road_has_six_rows():
    assert ROWS == 6


def test_a_column_of_six_fills_the_first_grid_column():
    assert place_columns([6]) == [[(0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5)]]


def test_the_seventh_cell_turns_right_along_the_bottom_row_and_keeps_going():
    assert place_columns([9])[0][5:] == [(0, 5), (1, 5), (2, 5), (3, 5)]


def test_new_column_starts_one_step_right_of_the_previous_start_beside_a_tail():
    cols = place_columns([8, 1, 2])
    assert cols[1] == [(1, 0)]
    assert cols[2] == [(2, 0), (2, 1)]


def test_second_column_blocked_by_earlier_tail_turns_at_row_5_and_never_drops_back():
    cols = place_columns([7, 7])
    assert cols[0][-1] == (1, 5)
    # (1, 5) is taken: turn right on row index 4; (2, 5) is free but a turned column stays on its row.
    assert cols[1] == [(1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (2, 4), (3, 4)]


def test_a_column_that_turns_on_row_0_pushes_the_next_start_further_right():
    cols = place_columns([7, 6, 5, 4, 3, 2, 2, 1])
    assert cols[5] == [(5, 0), (6, 0)]  # (5, 1) is taken by the column before: tail along the top row
    assert cols[6] == [(7, 0), (7, 1)]  # (6, 0) is taken: start at the next free top cell
    assert cols[7] == [(8, 0)]  # one step right of the previous column's START (7), not of its tail


def test_width_and_cells_and_is_taken():
    grid = TailGrid()
    assert grid.width == 0 and len(grid) == 0 and grid.column_start_x is None
    for i in range(8):
        grid.place(i == 0)
    grid.place(True)
    assert grid.width == 3
    assert grid.cells() == [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (1, 5), (2, 5), (1, 0)]
    assert grid.column_start_x == 1
    assert grid.is_taken(2, 5) and not grid.is_taken(2, 4) and not grid.is_taken(0, 6) and not grid.is_taken(0, -1)


def test_first_entry_always_starts_a_column():
    grid = TailGrid()
    assert grid.place(False) == (0, 0)
    assert grid.column_start_x == 0


def test_pop_undoes_place_exactly():
    grid = TailGrid()
    for n in (7, 7, 6):
        for i in range(n):
            grid.place(i == 0)
    before = (grid.cells(), grid.width, grid.column_start_x)
    placed = [grid.place(True), grid.place(False), grid.place(False)]
    for cell in reversed(placed):
        assert grid.pop() == cell
    assert (grid.cells(), grid.width, grid.column_start_x) == before
    # and placing again gives the same cells
    assert [grid.place(True), grid.place(False), grid.place(False)] == placed


def test_pop_to_empty_then_place_again():
    grid = TailGrid()
    grid.place(True)
    grid.place(False)
    grid.pop()
    grid.pop()
    assert grid.width == 0 and grid.cells() == [] and grid.column_start_x is None
    assert grid.place(True) == (0, 0)


def test_other_row_counts():
    assert place_columns([4, 2], rows=3) == [[(0, 0), (0, 1), (0, 2), (1, 2)], [(1, 0), (1, 1)]]


@pytest.mark.parametrize("rows", [0, -1, True, 2.5, "6"])
def test_bad_row_count_is_rejected(rows):
    with pytest.raises(ValueError, match=repr(rows).replace(".", r"\.")):
        TailGrid(rows)


@pytest.mark.parametrize("lengths", [[0], [3, -1], [True], [1.5]])
def test_place_columns_rejects_bad_lengths(lengths):
    with pytest.raises(ValueError, match="at least one cell"):
        place_columns(lengths)


def test_pop_from_empty_grid_raises_index_error():
    with pytest.raises(IndexError, match="empty"):
        TailGrid().pop()


def test_extend_needs_a_started_column():
    with pytest.raises(IndexError, match="start a column first"):
        TailGrid().extend()


def test_start_and_extend_are_what_place_does():
    a, b = TailGrid(), TailGrid()
    pattern = [True, False, False, True, True, False, False, False, False, False, False, True]
    assert [a.place(p) for p in pattern] == [b.start() if p else b.extend() for p in pattern]
