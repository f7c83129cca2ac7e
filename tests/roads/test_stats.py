"""roads.stats: counts, shares, pairs, naturals and streaks of the counted rounds."""

from __future__ import annotations

import pytest

from roads.notation import parse_rounds
from roads.shoe_roads import ShoeRoads
from roads.stats import ShoeStats, share


def stats_of(text: str) -> dict:
    return ShoeRoads.from_rounds(parse_rounds(text)).stats_json()


def test_counts_pairs_and_naturals_including_those_on_ties():
    s = stats_of("Bp Pbn Tpb T Bn P")
    assert (s["rounds"], s["banker"], s["player"], s["tie"]) == (6, 2, 2, 2)
    assert (s["player_pair"], s["banker_pair"], s["natural"]) == (2, 2, 2)


def test_streaks_are_big_road_columns_ties_neither_extend_nor_break_them():
    s = stats_of("BBTBPPTTPPPB T")
    assert s["current_streak"] == {"winner": "B", "length": 1}
    assert s["longest_banker_streak"] == 3
    assert s["longest_player_streak"] == 5  # P P (T T) P P P


def test_no_streak_before_the_first_banker_or_player_result():
    s = stats_of("TT")
    assert s["current_streak"] is None and s["longest_banker_streak"] == 0 and s["longest_player_streak"] == 0


@pytest.mark.parametrize("count, rounds, pct", [(0, 0, 0.0), (1, 8, 12.5), (1, 3, 33.3), (2, 3, 66.7),
                                                (1, 16, 6.3), (5, 5, 100.0), (19, 41, 46.3)])
def test_share_is_a_percentage_rounded_half_up_to_one_decimal(count, rounds, pct):
    assert share(count, rounds) == pct


def test_shares_in_the_piece():
    assert stats_of("BBBPPPPT")["shares"] == {"banker": 37.5, "player": 50.0, "tie": 12.5}
    assert stats_of("")["shares"] == {"banker": 0.0, "player": 0.0, "tie": 0.0}


def test_pop_restores_longest_streaks():
    stats = ShoeStats()
    b, p = parse_rounds("BP")
    stats.push(b, 1)
    stats.push(b, 2)
    stats.push(b, 3)
    stats.pop(b)
    assert stats.longest_banker == 2 and stats.banker == 2 and stats.rounds == 2
    stats.push(p, 1)
    stats.pop(p)
    stats.pop(b)
    stats.pop(b)
    assert (stats.rounds, stats.banker, stats.longest_banker) == (0, 0, 0)
    with pytest.raises(IndexError):
        stats.pop(b)
