"""roads.road_patterns: the operator's pattern language, checked against a brute-force matcher
written here over the plain result sequence (every B/P sequence up to 13 results), and its
errors (position and what was expected) worked by hand."""

from __future__ import annotations

import itertools

import pytest

from roads.good_roads import BUILTIN_PRIORITY, CustomRoad, GoodRoadError, with_custom
from roads.notation import parse_rounds
from roads.road_patterns import PatternError, parse
from roads.shoe_roads import ShoeRoads

SEQUENCES = [s for n in range(0, 14) for s in itertools.product("BP", repeat=n)]


def columns_of(seq):
    """Big-road columns straight from the results: runs of one winner (docs/domain.md section 4)."""
    runs = [(w, len(list(g))) for w, g in itertools.groupby(seq)]
    return [n for _, n in runs], [w for w, _ in runs]


# ---- brute force: each definition read off the result sequence itself
def brute_streak(seq, side, n):
    if not seq:
        return 0
    k = 0
    while k < len(seq) and seq[-1 - k] == seq[-1]:
        k += 1
    return k if side is None or seq[-1] == side else 0


def brute_alternation(seq):
    best = 0
    for k in range(1, len(seq)):
        tail = seq[-(k + 1):]
        if all(a != b for a, b in zip(tail, tail[1:])):
            best = k
    return best


def brute_columns(seq, items):
    runs = [len(list(g)) for _, g in itertools.groupby(seq)]
    sides = [w for w, _ in itertools.groupby(seq)]
    k = len(items)
    if len(runs) < k:
        return 0
    for (side, n, at_least), length, w in zip(items, runs[-k:], sides[-k:]):
        if side and side != w:
            return 0
        if (length < n) if at_least else (length != n):
            return 0
    return k


def brute_results(seq, want):
    return len(want) if len(seq) >= len(want) and tuple(seq[len(seq) - len(want):]) == tuple(want) else 0


@pytest.mark.parametrize("text,side,n", [("streak B >= 3", "B", 3), ("streak p >= 5", "P", 5),
                                         ("STREAK any >= 2", None, 2)])
def test_streak_matches_brute_force_on_every_sequence(text, side, n):
    rule = parse(text)
    assert rule.threshold == n
    for seq in SEQUENCES:
        assert rule.measure(*columns_of(seq)) == brute_streak(seq, side, n), seq


@pytest.mark.parametrize("text,n", [("alternation >= 4", 4), ("alternations >= 1", 1)])
def test_alternation_matches_brute_force_on_every_sequence(text, n):
    rule = parse(text)
    assert rule.threshold == n
    for seq in SEQUENCES:
        assert rule.measure(*columns_of(seq)) == brute_alternation(seq), seq


@pytest.mark.parametrize("text,items", [
    ("columns 1,2,1,2", [(None, 1, False), (None, 2, False), (None, 1, False), (None, 2, False)]),
    ("columns B1, P2+", [("B", 1, False), ("P", 2, True)]),
    ("columns 3+", [(None, 3, True)]),
    ("columns p1,b1,p1", [("P", 1, False), ("B", 1, False), ("P", 1, False)]),
])
def test_columns_match_brute_force_on_every_sequence(text, items):
    rule = parse(text)
    assert rule.threshold == len(items)
    for seq in SEQUENCES:
        assert rule.measure(*columns_of(seq)) == brute_columns(seq, items), seq


@pytest.mark.parametrize("text,want", [("results BPPB", "BPPB"), ("results B P P", "BPP"), ("results p,p", "PP"),
                                       ("results B", "B"), ("results BBBBBB", "BBBBBB")])
def test_results_match_brute_force_on_every_sequence(text, want):
    rule = parse(text)
    assert rule.threshold == len(want)
    for seq in SEQUENCES:
        assert rule.measure(*columns_of(seq)) == brute_results(seq, want), seq


def test_hand_worked_road():
    # B B B P B P: columns [3, 1, 1, 1]; three changes in a row at the end
    lengths, winners = [3, 1, 1, 1], ["B", "P", "B", "P"]
    assert parse("alternation >= 3").measure(lengths, winners) == 3
    assert parse("columns B3,1,1,1").measure(lengths, winners) == 4
    assert parse("columns 2,1").measure(lengths, winners) == 0
    assert parse("results B B P B P").measure(lengths, winners) == 5
    assert parse("streak P >= 1").measure(lengths, winners) == 1
    assert parse("streak B >= 1").measure(lengths, winners) == 0


@pytest.mark.parametrize("text,position,expected,found", [
    ("", 1, '"streak" or "alternation" or "columns" or "results"', "the end of the pattern"),
    ("streek B >= 4", 1, '"streak" or "alternation" or "columns" or "results"', "'streek'"),
    ("streak X >= 4", 8, 'a side ("B", "P" or "any")', "'X'"),
    ("streak B > 4", 10, '">="', "'>'"),
    ("streak B >= 0", 13, "a whole number from 1 to 99", "'0'"),
    ("streak B >= 100", 13, "a whole number from 1 to 99", "'100'"),
    ("streak B >=", 12, "a whole number from 1 to 99", "the end of the pattern"),
    ("alternation >= 4 5", 18, "the end of the pattern", "'5'"),
    ("columns 1,,2", 11, "a whole number from 1 to 99", "','"),
    ("columns 1,X2", 11, 'a column: a length (1 to 99), after "B" or "P" if you like', "'X'"),
    ("results BPTB", 11, 'a result ("B" or "P")', "'T'"),
    ("results", 8, 'a result ("B" or "P")', "the end of the pattern"),
    ("results B,", 11, 'a result ("B" or "P")', "the end of the pattern"),
])
def test_errors_name_the_position_and_what_was_expected(text, position, expected, found):
    with pytest.raises(PatternError) as e:
        parse(text)
    assert (e.value.position, e.value.expected, e.value.found) == (position, expected, found)
    assert str(e.value) == f"at position {position}: expected {expected}, found {found}"


def test_at_most_24_items():
    assert parse("results " + "B" * 24).threshold == 24
    with pytest.raises(PatternError, match="at most 24 results"):
        parse("results " + "B" * 25)
    assert parse("columns " + ",".join(["1"] * 24)).threshold == 24
    with pytest.raises(PatternError, match="at most 24 columns"):
        parse("columns " + ",".join(["1"] * 25))


def test_custom_ids_may_not_shadow_built_ins():
    with pytest.raises(GoodRoadError, match="long_banker"):
        CustomRoad.of("long_banker", "X", "streak B >= 2", 5)


def test_priority_order_merges_custom_patterns_between_built_ins():
    # B B B B: long_banker (priority 10) is on; customs at 5, 10 and 95
    roads = ShoeRoads.from_rounds(parse_rounds("B B B B"))
    big = roads.big_road
    custom = [CustomRoad.of("late", "Late", "streak any >= 2", 95),
              CustomRoad.of("tied", "Tied", "results B B", 10),
              CustomRoad.of("first", "First", "streak B >= 3", 5),
              CustomRoad.of("off", "Off", "streak P >= 1", 1)]
    out = with_custom(roads.good_roads_json(), custom, big.lengths, big.winners)
    assert [e["pattern"] for e in out] == ["first", "long_banker", "tied", "late"]
    assert out[0] == {"pattern": "first", "label": "First", "length": 4, "threshold": 3}
    assert BUILTIN_PRIORITY["long_banker"] == 10 and BUILTIN_PRIORITY["side_by_side"] == 90
    shared = roads.good_roads_json()
    assert with_custom(shared, custom[3:], big.lengths, big.winners) is shared
