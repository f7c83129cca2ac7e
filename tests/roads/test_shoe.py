"""The shoe: burn procedure, cut-card semantics, between-rounds burns, dealing, errors.

Rules (docs/domain.md section 2): seed 000 and 001 (new shoe: the first card is turned and
its value says how many cards are burned, 10/J/Q/K burn 10), seed 001 (blue card: comes
out during a game -> that game is the last; comes out as the burn card that starts a new
game -> the finished game was the last; later cards are void), seed 002 (one card burned
between every two hands). Expected outcomes are worked out from these rules on given card
orders.
"""

from __future__ import annotations

import collections
import random

import pytest

from roads.cards import Card, parse_cards
from roads.outcome import RoundResult
from roads.shoe import (
    DealtRound, Shoe, ShoeError, ShoeExhaustedError, ShoeFinishedError, check_cut_card_position, cut_card_range,
)

BURNS = {"A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
         "T": 10, "J": 10, "Q": 10, "K": 10}
"""Seed 000: the turned card's value burns that many cards; 10 and faces burn 10."""

BURN = "AS QC"  # turned ace: burns one more card (2 cards in all)


def natural(suit: str) -> str:
    """A round of exactly four cards (P1 B1 P2 B2): player 9+K = natural 9, banker K+K = 0."""
    return f"9{suit} K{suit} K{suit} K{suit}"


R1, R2, R3 = natural("S"), natural("H"), natural("D")
ORDER = f"{BURN} {R1} {R2} {R3}"  # indices: burn 0-1, R1 2-5, R2 6-9, R3 10-13 (14 cards)


@pytest.mark.parametrize("turned", ["AS", "2H", "5D", "9C", "TS", "JH", "QD", "KC"])
def test_new_shoe_burn_turns_the_first_card_and_burns_its_value_tens_and_faces_ten(turned):
    filler = [Card("8", "S")] * 11
    order = [Card.parse(turned)] + filler + list(parse_cards(R1)) * 2
    shoe = Shoe.from_cards(order)
    assert shoe.burn_cards[0] == Card.parse(turned)
    assert len(shoe.burn_cards) == 1 + BURNS[turned[0]]
    first = shoe.deal_round()
    assert first.cards == tuple(order[1 + BURNS[turned[0]]:][:4])


@pytest.mark.parametrize("position, last, remaining", [
    (11, 1, 8),   # cut card at index 3: the 2nd card of round 1 -> round 1 is the last
    (9, 1, 8),    # index 5: round 1's 4th card -> round 1
    (8, 1, 8),    # index 6: the first card after round 1 finished -> the shoe ends, round 1 was the last
    (7, 2, 4),    # index 7: round 2's 2nd card -> round 2
    (6, 2, 4),    # index 8: round 2's 3rd card -> round 2
    (5, 2, 4),    # index 9: round 2's last card -> round 2
    (4, 2, 4),    # index 10: first card after round 2 -> round 2
    (3, 3, 0),    # index 11: during round 3
    (0, 3, 0),    # behind the last card: the shoe ends when its cards are used up
])
def test_cut_card_during_a_round_makes_it_the_last_and_right_after_a_round_ends_the_shoe(position, last, remaining):
    shoe = Shoe.from_cards(ORDER, cut_card_position=position)
    rounds = shoe.deal_all()
    assert [r.number for r in rounds] == list(range(1, last + 1))
    assert [r.is_last for r in rounds] == [False] * (last - 1) + [True]
    assert shoe.finished and shoe.cut_card_round == last and shoe.rounds_dealt == last
    assert shoe.cards_remaining == remaining  # cards after the last round are never dealt (void)
    with pytest.raises(ShoeFinishedError, match=f"round {last} was its last"):
        shoe.deal_round()


def test_cut_card_round_is_unknown_until_the_cut_card_comes_out():
    shoe = Shoe.from_cards(ORDER, cut_card_position=6)
    assert shoe.cut_card_round is None and not shoe.finished
    r1 = shoe.deal_round()
    assert not r1.is_last and shoe.cut_card_round is None and not shoe.finished
    r2 = shoe.deal_round()
    assert r2.is_last and shoe.cut_card_round == 2 and shoe.finished


# Between-rounds burns (seed 002): burn 0-1, R1 2-5, X 6, R2 7-10, Y 11, R3 12-15 (16 cards).
BURN_ORDER = f"{BURN} {R1} 2C {R2} 3C {R3}"


@pytest.mark.parametrize("position, last, burned", [
    (10, 1, ()),           # cut card at index 6, where the between-rounds burn card would be: round 1 was the last
    (9, 2, ("2C",)),       # index 7: the first card of round 2, after its burn card -> round 2 is the last
    (5, 2, ("2C",)),       # index 11: the burn card after round 2 -> round 2 was the last
    (4, 3, ("2C", "3C")),  # index 12: round 3's first card -> round 3
])
def test_cut_card_with_a_burn_between_rounds(position, last, burned):
    shoe = Shoe.from_cards(BURN_ORDER, cut_card_position=position, burn_between_rounds=True)
    rounds = shoe.deal_all()
    assert len(rounds) == last and rounds[-1].is_last and shoe.cut_card_round == last
    assert shoe.round_burn_cards == parse_cards(list(burned))
    assert rounds[0].burned == ()
    assert [r.cards for r in rounds] == [parse_cards(R1), parse_cards(R2), parse_cards(R3)][:last]
    if last >= 2:
        assert rounds[1].burned == parse_cards("2C")


def test_rounds_are_dealt_by_the_tableau_in_deal_order():
    # P A+2 = 3 draws; B 3+3 = 6; the player's third card 6 makes a banker 6 draw.
    shoe = Shoe.from_cards(f"{BURN} AS 3H 2S 3D 6C 9D {R1}")
    r = shoe.deal_round()
    assert isinstance(r, DealtRound)
    assert r.player == parse_cards("AS 2S 6C") and r.banker == parse_cards("3H 3D 9D")
    assert r.cards == parse_cards("AS 3H 2S 3D 6C 9D")
    assert r.result == RoundResult.from_cards(r.player, r.banker)
    assert r.result.winner.value == "P" and (r.result.player_total, r.result.banker_total) == (9, 5)
    assert shoe.deal_round().cards == parse_cards(R1)


def test_a_given_order_that_runs_out_mid_round_raises():
    shoe = Shoe.from_cards(f"{BURN} 2S 3H 2D 3D")  # player 4 must draw a fifth card
    with pytest.raises(ShoeExhaustedError, match="round 1"):
        shoe.deal_round()


def test_from_cards_can_skip_the_burn():
    shoe = Shoe.from_cards(R1, burn=False)
    assert shoe.burn_cards == ()
    assert shoe.deal_round().cards == parse_cards(R1)
    assert shoe.finished


@pytest.mark.parametrize("kwargs, message", [
    (dict(cards=["AS", "ZZ"]), "'ZZ'"),
    (dict(cards=ORDER, cut_card_position=15), "0-14"),
    (dict(cards=ORDER, cut_card_position=-1), "-1"),
    (dict(cards=ORDER, cut_card_position="3"), "'3'"),
    (dict(cards=ORDER, cut_card_position=12), "before the first round"),     # right after the burn
    (dict(cards="KS " + R1, cut_card_position=0), "the burn (11 cards"),   # a king burns 10 more
    (dict(cards=[]), "empty"),
])
def test_from_cards_refuses_bad_orders(kwargs, message):
    cards = kwargs.pop("cards")
    with pytest.raises(ShoeError, match=message.replace("(", r"\(")):
        Shoe.from_cards(cards, **kwargs)


# ------------------------------------------------------------------ shuffled shoes
@pytest.mark.parametrize("decks, position, burn_between", [
    (8, None, False), (8, 14, False), (8, 52, True), (6, 30, False), (1, 6, True), (1, 35, False), (8, 399, False),
])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_shuffled_shoe_obeys_the_burn_cut_card_and_conservation_rules(decks, position, burn_between, seed):
    shoe = Shoe(decks, rng=random.Random(seed), cut_card_position=position, burn_between_rounds=burn_between)
    size = 52 * decks
    assert len(shoe.burn_cards) == 1 + BURNS[shoe.burn_cards[0].rank]
    cut_index = size - shoe.cut_card_position  # cards in front of the cut card
    drawn = len(shoe.burn_cards)
    openings, ends = [], []  # index of the first card after the previous round; end of each round
    rounds = []
    for r in shoe.rounds():
        openings.append(drawn)
        drawn += len(r.burned) + len(r.cards)
        ends.append(drawn)
        rounds.append(r)
    n = len(rounds)
    assert [r.number for r in rounds] == list(range(1, n + 1))
    assert [r.is_last for r in rounds] == [False] * (n - 1) + [True]
    assert shoe.finished and shoe.cut_card_round == n
    # The last round is the one during which the cut card came out, or right after which it did.
    assert openings[-1] < cut_index <= ends[-1]
    assert all(end < cut_index for end in ends[:-1])
    assert all(len(r.burned) == (1 if burn_between and r.number > 1 else 0) for r in rounds)
    # Every card is accounted for, and no card appears more often than the shoe holds it.
    assert drawn + shoe.cards_remaining == size
    used = collections.Counter(shoe.burn_cards + shoe.round_burn_cards)
    for r in rounds:
        used.update(r.cards)
    assert max(used.values()) <= decks


def test_the_same_seed_deals_the_same_shoe_and_other_seeds_differ():
    def deal(seed):
        shoe = Shoe(rng=random.Random(seed))
        return shoe.burn_cards, [r.cards for r in shoe.deal_all()]
    assert deal(7) == deal(7)
    assert deal(7) != deal(8)


def test_a_shoe_without_an_rng_is_shuffled_from_the_os():
    a, b = Shoe(), Shoe()
    assert [r.cards for r in a.deal_all()] != [r.cards for r in b.deal_all()]


def test_default_cut_card_leaves_room_for_a_full_shoe():
    shoe = Shoe(8, rng=random.Random(5))
    assert 14 <= shoe.cut_card_position <= 52 * 8 // 4
    assert len(shoe.deal_all()) > 60  # past the longest side-bet window (seeds 000/001: 60 rounds)


@pytest.mark.parametrize("decks", [0, 17, -1, "8", 8.0, True, None])
def test_a_bad_deck_count_raises_shoe_error_quoting_it(decks):
    with pytest.raises(ShoeError) as err:
        Shoe(decks)
    assert repr(decks) in str(err.value)
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize("position", [5, 400, -3, "52", 52.0, True])
def test_a_bad_cut_card_position_raises_shoe_error_quoting_it(position):
    with pytest.raises(ShoeError, match="cut_card_position must be an integer 6-399") as err:
        Shoe(8, cut_card_position=position)
    assert repr(position) in str(err.value)


@pytest.mark.parametrize("decks, low, high", [
    (8, 6, 399),  # 416 cards: 6 behind the cut card, 11 (the largest burn) + 6 (one round) in front
    (6, 6, 295),  # 312 - 17
    (1, 6, 35),   # 52 - 17
])
def test_the_cut_card_range_leaves_a_round_behind_and_the_burn_and_a_round_in_front(decks, low, high):
    assert cut_card_range(decks) == (low, high)
    assert check_cut_card_position(low, decks) == low and check_cut_card_position(high, decks) == high
    for bad in (low - 1, high + 1, 0, 52 * decks, 2 * 52 * decks):
        with pytest.raises(ShoeError) as err:
            check_cut_card_position(bad, decks)
        noun = "deck" if decks == 1 else "decks"
        assert str(err.value) == (f"cut_card_position must be an integer {low}-{high} "
                                  f"(cards from the back of a shoe of {decks} {noun}), got {bad}")


def test_repr_shows_the_state():
    shoe = Shoe.from_cards(ORDER, cut_card_position=8)
    assert repr(shoe) == "<Shoe decks=0 cut_card_position=8 rounds_dealt=0 cards_remaining=12 dealing>"
    shoe.deal_round()
    assert repr(shoe).endswith("rounds_dealt=1 cards_remaining=8 finished>")
