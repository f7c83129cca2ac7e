"""roads.good_roads: the trend-alert patterns, worked by hand from their definitions (roads/good_roads.py's table)."""

from __future__ import annotations

import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

from roads.good_roads import (DEFAULT_GOOD_ROADS, HIGHLIGHTED_BY_DEFAULT, GoodRoad, GoodRoadError, GoodRoadTracker,
                              check_patterns, good_roads)
from roads.notation import format_rounds, parse_rounds
from roads.shoe_roads import ShoeRoads


def alerts(text: str) -> list[tuple[str, int]]:
    roads = ShoeRoads.from_rounds(parse_rounds(text))
    return [(g["pattern"], g["length"]) for g in roads.good_roads_json()]


def test_default_ids_labels_and_thresholds_are_the_documented_list():
    assert [(p.id, p.label, p.threshold) for p in DEFAULT_GOOD_ROADS] == [
        ("long_banker", "Long Banker", 4), ("long_player", "Long Player", 4), ("ping_pong", "Ping Pong", 4),
        ("double_jump", "Double Jump", 3), ("one_banker_two_player", "One Banker Two Player", 4),
        ("two_banker_one_player", "Two Banker One Player", 4), ("banker_jump", "Banker Jump", 3),
        ("player_jump", "Player Jump", 3), ("side_by_side", "Side by Side", 2),
    ]


def test_boards_highlight_the_two_long_streaks_and_the_ping_pong_by_default():
    assert HIGHLIGHTED_BY_DEFAULT == ("long_banker", "long_player", "ping_pong")
    assert set(HIGHLIGHTED_BY_DEFAULT) <= {p.id for p in DEFAULT_GOOD_ROADS}


def test_descriptions_describe_history_not_predictions():
    for p in DEFAULT_GOOD_ROADS:
        text = p.description.lower()
        assert text and not any(w in text for w in ("will", "next", "predict", "likely", "expect", "bet"))


@pytest.mark.parametrize(
    "rounds, expected",
    [
        ("", []),
        ("TTT", []),
        ("PBBB", []),  # banker column of 3: below 4
        ("PBBBB", [("long_banker", 4)]),
        ("BPPPPPP", [("long_player", 6)]),
        ("BTBTBTB", [("long_banker", 4)]),  # ties do not break the column
        ("BPBP", [("ping_pong", 4), ("side_by_side", 2)]),
        ("BBPBP", []),  # 3 single columns only
        ("BBPPBB", [("double_jump", 3)]),
        ("BBPPBBP", [("double_jump", 3)]),  # newest column in progress (1 of 2): not broken
        ("BBPPBBPPP", []),  # newest column grew past 2: broken
        ("BPPBPP", [("one_banker_two_player", 4)]),
        ("BBPBBP", [("two_banker_one_player", 4)]),
        ("BPPBPPPB", [("banker_jump", 3)]),
        ("PBBPBBBP", [("player_jump", 3)]),
        ("BBBPPPBP", [("side_by_side", 2)]),  # pairs (3,3) (1,1)
        ("BBPPBBBPPPB", [("side_by_side", 2)]),  # (2,2) (3,3), newest column starts a new pair
        ("BBPPBBBPPPBBBBP", [("side_by_side", 2)]),  # (2,2) (3,3), then 4 and 1-so-far: pair in progress
        ("BBPPBBBPPPBBBBPPPPP", [("long_player", 5)]),  # 4 then 5: the pair is broken
        ("BPBPB", [("ping_pong", 5), ("banker_jump", 3), ("side_by_side", 2)]),
    ],
)
def test_hand_worked_alerts(rounds, expected):
    assert alerts(rounds) == expected


def test_alert_entries_carry_label_and_threshold():
    roads = ShoeRoads.from_rounds(parse_rounds("PBBBBB"))
    assert roads.good_roads_json() == [{"pattern": "long_banker", "label": "Long Banker", "length": 5, "threshold": 4}]


def test_pattern_list_is_configurable():
    mine = (GoodRoad("streak2", "Two In A Row", "streak", 2, side="B"),
            GoodRoad("triple_jump", "Triple Jump", "run", 2, banker_length=3, player_length=3))
    roads = ShoeRoads.from_rounds(parse_rounds("BBBPPPBB"), good_roads=mine)
    assert [(g["pattern"], g["length"]) for g in roads.good_roads_json()] == [("streak2", 2), ("triple_jump", 2)]
    assert roads.patterns == mine


def test_measure_reads_one_pattern():
    ping = DEFAULT_GOOD_ROADS[2]
    assert ping.measure([1, 1, 1], ["B", "P", "B"]) == 3
    assert ping.measure([], []) == 0
    assert ping.json(3) == {"pattern": "ping_pong", "label": "Ping Pong", "length": 3, "threshold": 4}


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        (dict(id="", label="x", kind="streak", threshold=1, side="B"), "non-empty"),
        (dict(id="x", label="x", kind="zigzag", threshold=1), "'zigzag'"),
        (dict(id="x", label="x", kind="streak", threshold=0, side="B"), "threshold"),
        (dict(id="x", label="x", kind="streak", threshold=True, side="B"), "threshold"),
        (dict(id="x", label="x", kind="streak", threshold="3", side="B"), "threshold"),
        (dict(id="x", label="x", kind="streak", threshold=2), "side"),
        (dict(id="x", label="x", kind="jump", threshold=2, side="T"), "'T'"),
        (dict(id="x", label="x", kind="run", threshold=2, banker_length=1), "player_length"),
        (dict(id="x", label="x", kind="run", threshold=2, banker_length=0, player_length=1), "banker_length"),
    ],
)
def test_bad_pattern_definitions_are_rejected(kwargs, fragment):
    with pytest.raises(GoodRoadError, match=fragment):
        GoodRoad(**kwargs)


def test_bad_pattern_lists_are_rejected():
    p = DEFAULT_GOOD_ROADS[0]
    with pytest.raises(GoodRoadError, match="appears twice"):
        check_patterns([p, p])
    with pytest.raises(GoodRoadError, match="GoodRoad objects"):
        check_patterns([p, "ping_pong"])  # type: ignore[list-item]
    with pytest.raises(GoodRoadError):
        ShoeRoads(good_roads=[p, p])


# Threshold 1 everywhere: every measured length shows, so the tracker is compared in full.
EVERY = (
    GoodRoad("sb", "s", "streak", 1, side="B"), GoodRoad("sp", "s", "streak", 1, side="P"),
    GoodRoad("r11", "r", "run", 1, banker_length=1, player_length=1),
    GoodRoad("r22", "r", "run", 1, banker_length=2, player_length=2),
    GoodRoad("r12", "r", "run", 1, banker_length=1, player_length=2),
    GoodRoad("r31", "r", "run", 1, banker_length=3, player_length=1),
    GoodRoad("jb", "j", "jump", 1, side="B"), GoodRoad("jp", "j", "jump", 1, side="P"),
    GoodRoad("sbs", "p", "side_by_side", 1),
)


@st.composite
def column_shoe(draw) -> str:
    cols = draw(st.lists(st.integers(1, 4), max_size=25))
    side = draw(st.sampled_from("BP"))
    out = []
    for n in cols:
        out.append(side * n)
        side = "P" if side == "B" else "B"
    return "".join(out)


@settings(max_examples=80, deadline=None)
@given(column_shoe(), st.integers(0, 30))
def test_tracker_equals_a_scan_after_pushes_and_pops(text, undo):
    results = parse_rounds(text)
    note(f"shoe {format_rounds(results)!r}, undo {undo}")
    roads = ShoeRoads.from_rounds(results, good_roads=EVERY)
    for n in range(len(results), max(0, len(results) - undo), -1):
        roads.void(n)
        assert roads.good_roads_json() == good_roads(roads.big_road.lengths, roads.big_road.winners, EVERY)
    assert ShoeRoads.from_rounds(results, good_roads=EVERY).good_roads_json() == good_roads(
        ShoeRoads.from_rounds(results).big_road.lengths, ShoeRoads.from_rounds(results).big_road.winners, EVERY)


def test_tracker_on_no_columns_is_empty():
    assert GoodRoadTracker().json([], []) == []
