"""Many simulated shoes agree with the exact probabilities within statistical bounds.

About 1,500 seeded 8-deck shoes (~100,000 rounds, half of them with a card burned between
rounds as at seed 002) are dealt by :class:`roads.shoe.Shoe`; the frequency of every event
must lie within 5 standard errors of its exact probability from
:mod:`roads.probability` (itself checked against the published tables in
``test_probabilities.py``). Rounds of one shoe are not independent draws from a fresh shoe,
but the effect is far below these bounds. Seeded: the run is the same every time.
"""

from __future__ import annotations

import collections
import math
import random

import pytest

from roads.outcome import Winner
from roads.probability import bet_return, event_probability
from roads.shoe import Shoe
from roads.variants import get_variant

SHOES = 1500
SIGMAS = 5.0

EVENTS = {
    "banker": lambda r: r.winner is Winner.BANKER,
    "player": lambda r: r.winner is Winner.PLAYER,
    "tie": lambda r: r.winner is Winner.TIE,
    "player_pair": lambda r: r.player_pair,
    "banker_pair": lambda r: r.banker_pair,
    "either_pair": lambda r: r.either_pair,
    "perfect_pair": lambda r: r.perfect_pair,
    "small": lambda r: r.small,
    "big": lambda r: r.big,
    "player_natural": lambda r: r.player_natural,
    "banker_natural": lambda r: r.banker_natural,
    "banker_six_two_cards": lambda r: r.banker_six == 2,
    "banker_six_three_cards": lambda r: r.banker_six == 3,
}


@pytest.fixture(scope="module")
def dealt():
    """(every round's result, turned card of every shoe, net results of two bets)."""
    variant = get_variant("seed000_live")
    banker, bonus = variant.bet("banker"), variant.bet("player_bonus")
    results, turned, nets = [], [], collections.defaultdict(float)
    rng = random.Random(20240601)
    for i in range(SHOES):
        shoe = Shoe(8, rng=rng, burn_between_rounds=bool(i % 2))
        turned.append(shoe.burn_cards[0])
        for r in shoe.rounds():
            results.append(r.result)
            nets["banker"] += banker.settle(r.result).net
            nets["player_bonus"] += bonus.settle(r.result).net
    return results, turned, nets


def within_bounds(hits: int, n: int, p: float) -> bool:
    return abs(hits / n - p) <= SIGMAS * math.sqrt(p * (1 - p) / n)


@pytest.mark.parametrize("event", sorted(EVENTS))
def test_event_frequency_agrees_with_the_exact_probability(dealt, event):
    results, _, _ = dealt
    hits = sum(1 for r in results if EVENTS[event](r))
    p = float(event_probability(event))
    assert within_bounds(hits, len(results), p), (event, hits / len(results), p)


def test_many_rounds_were_dealt(dealt):
    results, _, _ = dealt
    assert len(results) > SHOES * 60


def test_the_turned_card_is_uniform_over_ranks(dealt):
    # The turned card is the first card of a shuffled shoe: each rank 1/13, 10/J/Q/K (burn 10) 4/13.
    _, turned, _ = dealt
    counts = collections.Counter(c.rank for c in turned)
    for rank, n in counts.items():
        assert within_bounds(n, SHOES, 1 / 13), (rank, n)
    tens = sum(counts[r] for r in "TJQK")
    assert within_bounds(tens, SHOES, 4 / 13)


@pytest.mark.parametrize("bet, spread", [("banker", 1.0), ("player_bonus", 3.0)])
def test_average_net_of_a_bet_agrees_with_its_exact_return(dealt, bet, spread):
    # Loose bound: the net per round lies within [-1, 30]; its standard deviation is below
    # `spread` (about 0.95 for banker, about 2.4 for the dragon bonus).
    results, _, nets = dealt
    exact = float(bet_return(get_variant("seed000_live").bet(bet)))
    assert abs(nets[bet] / len(results) - exact) <= SIGMAS * spread / math.sqrt(len(results))
