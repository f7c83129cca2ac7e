"""roads.window: display windows show whole columns, and the newest column always."""

from __future__ import annotations

import pytest

from roads.notation import parse_rounds
from roads.shoe_roads import ShoeRoads
from roads.snapshot import build_snapshot
from roads.window import (WindowError, bead_plate_offset, bead_plate_window, road_offset, road_window,
                          window_snapshot)


def roads_of(text: str) -> ShoeRoads:
    return ShoeRoads.from_rounds(parse_rounds(text))


@pytest.mark.parametrize("beads, columns, offset", [(0, 3, 0), (12, 2, 0), (13, 2, 1), (18, 2, 1), (19, 2, 2),
                                                     (80, 10, 4), (80, 14, 0)])
def test_bead_plate_drops_whole_columns_of_six(beads, columns, offset):
    assert bead_plate_offset(beads, columns) == offset


def test_bead_plate_window_keeps_every_bead_on_its_row():
    beads = roads_of("BPTBPTBPTBPTB").bead_plate_json()  # 13 beads: columns 0, 1, 2
    w = bead_plate_window(beads, 2)
    assert w["offset"] == 1 and w["columns"] == 2
    assert [(b["x"], b["y"], b["round"]) for b in w["cells"]] == [
        (0, 0, 7), (0, 1, 8), (0, 2, 9), (0, 3, 10), (0, 4, 11), (0, 5, 12), (1, 0, 13)]
    assert beads[6]["x"] == 1  # the snapshot's own beads are not changed


def test_big_road_window_ends_at_the_right_edge():
    big = roads_of("BPBPBPBP").big_road_json()  # eight single columns, x 0..7
    w = road_window(big, 5)
    assert w["window"] == {"offset": 3, "columns": 5}
    assert [(c["x"], c["column"]) for c in w["cells"]] == [(0, 3), (1, 4), (2, 5), (3, 6), (4, 7)]
    assert w["columns"] is big["columns"] and w["leading_ties"] == 0


def test_newest_column_stays_visible_when_an_old_dragon_tail_reaches_further_right():
    big = roads_of("B" * 20 + "PBP").big_road_json()
    # column 0 tails along the bottom row to x = 14; the newest column (P) is at x = 3
    assert road_offset(big["cells"], 6) == 3
    cells = road_window(big, 6)["cells"]
    assert (0, 0, 3) in [(c["x"], c["y"], c["column"]) for c in cells]
    assert sorted({c["x"] for c in cells}) == [0, 1, 2, 3, 4, 5]


def test_a_newest_column_wider_than_the_window_shows_its_newest_cells():
    big = roads_of("P" + "B" * 16).big_road_json()  # column 1: x 1, rows 0-5, then tail to x = 11
    assert road_offset(big["cells"], 4) == 8
    assert [(c["x"], c["y"], c["row"]) for c in road_window(big, 4)["cells"]] == [
        (0, 5, 12), (1, 5, 13), (2, 5, 14), (3, 5, 15)]


def test_wide_window_shows_everything_unshifted():
    big = roads_of("BBPPPB").big_road_json()
    w = road_window(big, 30)
    assert w["window"]["offset"] == 0
    assert [(c["x"], c["y"]) for c in w["cells"]] == [(c["x"], c["y"]) for c in big["cells"]]


def test_empty_roads():
    assert road_offset([], 5) == 0
    assert bead_plate_window([], 5) == {"offset": 0, "columns": 5, "cells": []}


def test_derived_road_window():
    # columns 8, 8: big eye boy has 7 reds (rows 1-7 of column 1; column 0 has 8 cells), a
    # column with a tail: (0,0)..(0,5), (1,5)
    road = roads_of("B" * 8 + "P" * 8).derived_json(1)
    assert [(c["x"], c["y"]) for c in road["cells"]][-2:] == [(0, 5), (1, 5)]
    assert road_window(road, 3)["window"]["offset"] == 0
    w = road_window(road, 1)
    assert w["sequence"] == road["sequence"] and w["window"] == {"offset": 1, "columns": 1}
    assert w["cells"] == [{**road["cells"][-1], "x": 0}]


def test_window_snapshot_cuts_each_named_road_and_reports_offsets():
    variant = pytest.importorskip("roads.variants")
    roads = roads_of("BPTBPTBPTBPTB" + "BPBPBPBP")
    snap = build_snapshot(table="T1", shoe=1, version=1, roads=roads,
                          variant=variant.get_variant(variant.DEFAULT_VARIANT_ID))
    w = window_snapshot(snap, {"bead_plate": 2, "big_road": 4, "cockroach_pig": 1})
    assert w["windows"]["bead_plate"] == {"offset": 2, "columns": 2}
    assert w["windows"]["big_road"]["columns"] == 4 and "small_road" not in w["windows"]
    assert max(b["x"] for b in w["bead_plate"]) == 1
    assert w["small_road"] is snap["small_road"] and w["table"] == "T1"
    assert "windows" not in snap


@pytest.mark.parametrize("columns", [0, -2, 1.5, True, None])
def test_window_width_must_be_a_positive_integer(columns):
    with pytest.raises(WindowError, match="grid columns"):
        bead_plate_offset(3, columns)
    with pytest.raises(WindowError):
        road_offset([], columns)


def test_unknown_road_name_is_rejected():
    with pytest.raises(WindowError, match="'bead_road'"):
        window_snapshot({}, {"bead_road": 3})
