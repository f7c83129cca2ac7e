"""roads.side_bets: per-shoe side-bet availability (domain.md section 3 "open for the first N
rounds"), with a stand-in variant and with the engine's presets."""

from __future__ import annotations

import pytest

from roads.notation import parse_rounds
from roads.shoe_roads import ShoeRoads
from roads.side_bets import SideBetError, side_bet_state, side_bet_states
from support.variants import Spec, StandIn

STAND_IN = StandIn("demo", "Demo", (Spec("player_pair", "Player Pair", 60), Spec("big", "Big", 30),
                                   Spec("player_bonus", "Player Bonus", None)))


@pytest.mark.parametrize(
    "rounds, is_open, left",
    [(0, True, 30), (1, True, 29), (29, True, 1), (30, False, 0), (31, False, 0), (80, False, 0)],
)
def test_a_limited_bet_is_open_for_the_first_n_rounds(rounds, is_open, left):
    assert side_bet_state(Spec("big", "Big", 30), rounds) == {
        "bet": "big", "label": "Big", "open": is_open, "limit": 30, "rounds_left": left}


def test_41_rounds_of_a_60_round_bet_leave_19():
    assert side_bet_state(Spec("player_pair", "Player Pair", 60), 41)["rounds_left"] == 19


def test_a_whole_shoe_bet_never_closes():
    assert side_bet_state(Spec("player_bonus", "Player Bonus", None), 500) == {
        "bet": "player_bonus", "label": "Player Bonus", "open": True, "limit": None, "rounds_left": None}


def test_states_follow_the_variant_order():
    assert [s["bet"] for s in side_bet_states(STAND_IN, 0)] == ["player_pair", "big", "player_bonus"]
    assert [s["open"] for s in side_bet_states(STAND_IN, 30)] == [True, False, True]


def test_voided_rounds_do_not_count():
    roads = ShoeRoads.from_rounds(parse_rounds("B" * 30))
    roads.void(7)
    roads.void(30)
    assert roads.rounds == 28
    big = side_bet_states(STAND_IN, roads.rounds)[1]
    assert (big["open"], big["rounds_left"]) == (True, 2)


@pytest.mark.parametrize("rounds", [-1, 1.5, True, "3", None])
def test_bad_round_counts_are_rejected(rounds):
    with pytest.raises(SideBetError, match=repr(rounds).replace(".", r"\.")):
        side_bet_states(STAND_IN, rounds)
    with pytest.raises(SideBetError):
        side_bet_state(Spec("big", "Big", 30), rounds)


def test_cached_states_are_per_variant_object():
    other = StandIn("demo", "Demo", (Spec("big", "Big", 10),))
    assert side_bet_states(other, 10)[0]["open"] is False
    assert side_bet_states(STAND_IN, 10)[1]["open"] is True


def test_real_presets_agree_with_the_engine():
    variants = pytest.importorskip("roads.variants")
    for variant in variants.PRESETS.values():
        specs = variant.side_bets  # may be empty (a mini table without side bets)
        for rounds in (0, 1, 29, 30, 49, 50, 59, 60, 61, 90):
            states = side_bet_states(variant, rounds)
            assert [s["bet"] for s in states] == [b.bet for b in specs]
            for s in states:
                assert s["open"] == variant.is_open(s["bet"], rounds + 1)
                assert s["rounds_left"] == variant.rounds_left(s["bet"], rounds + 1)
                assert s["limit"] == variant.bet(s["bet"]).round_limit


def test_default_preset_pair_bet_closes_after_its_digest_limit():
    variants = pytest.importorskip("roads.variants")
    variant = variants.get_variant(variants.DEFAULT_VARIANT_ID)
    if not variant.has_bet("player_pair"):
        pytest.skip("default variant has no player pair bet")
    limit = variant.bet("player_pair").round_limit
    assert limit == 60  # domain.md section 3: player / banker pair open for 60 rounds
    states = {s["bet"]: s for s in side_bet_states(variant, 60)}
    assert states["player_pair"]["open"] is False and states["player_pair"]["rounds_left"] == 0
