"""The hot path's shared memos (the roads' hot path, bench/bench_roads.py): they must not change any answer.

Good-road columns and answers are shared between trackers, derived-road columns are shared
run lists, shares come from a per-round-count table, and the grid restores its width on
undo without a per-entry history. Each is checked against a from-scratch answer here,
across shoes that share the memos (and past the memos' size limits).
"""

from __future__ import annotations

import json

from roads.derived import RED, DerivedRoad
from roads.good_roads import GoodRoad, good_roads
from roads.grid import TailGrid
from roads.notation import parse_rounds
from roads.shoe_roads import ShoeRoads
from roads.stats import share

EVERY = (
    GoodRoad("sb", "s", "streak", 1, side="B"), GoodRoad("sp", "s", "streak", 1, side="P"),
    GoodRoad("r11", "r", "run", 1, banker_length=1, player_length=1),
    GoodRoad("r12", "r", "run", 1, banker_length=1, player_length=2),
    GoodRoad("jb", "j", "jump", 1, side="B"), GoodRoad("jp", "j", "jump", 1, side="P"),
    GoodRoad("sbs", "p", "side_by_side", 1),
)


def test_good_road_memo_is_shared_between_shoes_without_mixing_them_up():
    # Same column shapes, opposite winners, one after the other: the memo must tell them apart.
    for text in ("B", "P", "BP", "PB", "BPP", "PBB", "BBPBBP", "PPBPPB", "BBPPBPBP", "PPBBPBPB"):
        roads = ShoeRoads.from_rounds(parse_rounds(text), good_roads=EVERY)
        lengths, winners = roads.big_road.lengths, roads.big_road.winners
        assert roads.good_roads_json() == good_roads(lengths, winners, EVERY), text
        while roads.rounds:
            roads.void(roads.counted_rounds()[-1][0])
            lengths, winners = roads.big_road.lengths, roads.big_road.winners
            assert roads.good_roads_json() == good_roads(lengths, winners, EVERY), text


def test_shared_good_road_answers_are_not_changed_by_later_shoes():
    first = ShoeRoads.from_rounds(parse_rounds("BBBBPBPBP")).good_roads_json()
    encoded = json.dumps(first)
    for text in ("BBBBPBPBPBBBB", "PPPPBPBPB", "BBBBPBPBP"):
        ShoeRoads.from_rounds(parse_rounds(text)).good_roads_json()
    assert json.dumps(first) == encoded


def test_derived_columns_longer_than_the_shared_runs():
    # Ping-pong: every new big-road column has the length of the one two back: all red, one
    # derived column from big-road column 2 on (98 entries, past the shared run lists).
    road = DerivedRoad(1)
    lengths: list[int] = []
    for c in range(100):
        lengths.append(1)
        road.push(lengths, c, 0)
    assert road.columns == [[RED] * 98] and road.sequence == [RED] * 98
    piece = road.json()
    for c in range(99, -1, -1):
        road.pop(c, 0)
        lengths.pop()
        assert road.columns == ([[RED] * (c - 2)] if c > 2 else [])
    assert piece["columns"] == [[RED] * 98]  # a piece handed out earlier is unchanged


def test_shares_past_the_table_equal_share():
    roads = ShoeRoads.from_rounds(parse_rounds("BPPTB" * 60))  # 300 rounds
    s = roads.stats_json()
    assert s["rounds"] == 300
    assert s["shares"] == {"banker": share(120, 300), "player": share(120, 300), "tie": share(60, 300)}
    small = ShoeRoads.from_rounds(parse_rounds("BPPTBBBT")).stats_json()["shares"]
    assert small == {"banker": share(4, 8), "player": share(2, 8), "tie": share(2, 8)}
    assert ShoeRoads().stats_json()["shares"] == {"banker": 0.0, "player": 0.0, "tie": 0.0}


def test_grid_width_after_every_pop_equals_a_fresh_placement():
    pattern = [7, 1, 7, 6, 5, 4, 3, 2, 2, 1, 9, 1, 1, 8]
    moves = [i == 0 for n in pattern for i in range(n)]
    grid = TailGrid()
    for start in moves:
        grid.place(start)
    for k in range(len(moves) - 1, -1, -1):
        grid.pop()
        fresh = TailGrid()
        for start in moves[:k]:
            fresh.place(start)
        assert (grid.width, grid.cells(), grid.column_start_x) == (fresh.width, fresh.cells(), fresh.column_start_x)
        # and the next placement is the same too
        if k:
            assert grid.place(moves[k]) == fresh.place(moves[k])
            grid.pop()
