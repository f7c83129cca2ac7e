"""Cards: the text notation round-trips, baccarat values, named errors that quote the input.

Expected values come from the rules (docs/domain.md section 1; seed 000's card-value list:
ace 1, 2-9 face value, ten and J/Q/K 0; seed 000/001 burn rule: 10/J/Q/K burn 10), not
from the code.
"""

from __future__ import annotations

import collections

import pytest

from roads.cards import RANKS, SUITS, Card, CardError, format_cards, full_deck, hand_total, parse_cards

# Seed 000: "Ace များကို 1 ပွိုင့်", "2 မှ 9 ... မျက်နှာပါတန်ဖိုး", "တစ်ဆယ်နှင့် မျက်နှာပုံပါဖဲချပ်များ ... 0".
VALUE = {"A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
         "T": 0, "J": 0, "Q": 0, "K": 0}
# Seed 000 burn: the turned card's value burns that many; "10 သို့မဟုတ် မျက်နှာပုံ" burn 10.
BURNS = {"A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
         "T": 10, "J": 10, "Q": 10, "K": 10}


@pytest.mark.parametrize("card", full_deck(), ids=str)
def test_every_card_round_trips_through_its_notation(card):
    assert Card.parse(str(card)) == card
    assert str(Card.parse(str(card).lower())) == str(card)


def test_notation_is_rank_then_suit_with_t_for_the_ten():
    assert str(Card("T", "D")) == "TD"
    assert str(Card("A", "S")) == "AS"
    assert [str(c) for c in full_deck()[:5]] == ["AS", "AH", "AD", "AC", "2S"]


@pytest.mark.parametrize("text, canonical", [
    ("AS", "AS"), ("as", "AS"), ("  kh ", "KH"), ("10D", "TD"), ("10d", "TD"), ("td", "TD"),
    ("Q♥", "QH"), ("9♣", "9C"), ("10♦", "TD"), ("j♠", "JS"),
])
def test_input_forms_are_read_and_printed_canonically(text, canonical):
    assert str(Card.parse(text)) == canonical


def test_repr_can_be_pasted_back():
    card = Card.parse("QH")
    assert repr(card) == "Card.parse('QH')"
    assert eval(repr(card)) == card  # noqa: S307 - our own repr


@pytest.mark.parametrize("rank", RANKS)
def test_baccarat_value_of_every_rank(rank):
    for suit in SUITS:
        assert Card(rank, suit).value == VALUE[rank]


@pytest.mark.parametrize("rank", RANKS)
def test_burn_count_of_every_rank_tens_and_faces_burn_ten(rank):
    assert Card(rank, "S").burn_count == BURNS[rank]


@pytest.mark.parametrize("bad", ["", "A", "1D", "11S", "AX", "ASS", "10", "XS", "T D", "0S", "1S", "10DD", "♥Q"])
def test_a_bad_card_string_raises_card_error_quoting_it(bad):
    with pytest.raises(CardError) as err:
        Card.parse(bad)
    assert repr(bad) in str(err.value)
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize("bad", [None, 10, b"AS", ("A", "S")])
def test_a_non_string_card_raises_card_error_quoting_it(bad):
    with pytest.raises(CardError, match="must be a string") as err:
        Card.parse(bad)
    assert repr(bad) in str(err.value)


@pytest.mark.parametrize("rank, suit", [("10", "S"), ("1", "S"), ("A", "X"), ("a", "S"), (1, "S"), ("A", None)])
def test_the_constructor_checks_its_fields(rank, suit):
    with pytest.raises(CardError) as err:
        Card(rank, suit)
    assert repr(rank) in str(err.value) and repr(suit) in str(err.value)


def test_parse_cards_reads_a_list_or_one_string_and_round_trips_with_format_cards():
    expected = (Card("A", "S"), Card("T", "D"), Card("K", "H"))
    assert parse_cards(["AS", "10D", "kh"]) == expected
    assert parse_cards("AS 10D, kh") == expected
    assert parse_cards("  AS,TD  KH ") == expected
    assert format_cards(expected) == "AS TD KH"
    assert parse_cards(format_cards(expected)) == expected
    assert parse_cards("") == ()


def test_parse_cards_stops_at_the_first_bad_card_quoting_it():
    with pytest.raises(CardError, match=r"'ZZ'"):
        parse_cards(["AS", "ZZ", "QQ"])
    with pytest.raises(CardError, match=r"'1H'"):
        parse_cards("AS 1H")


@pytest.mark.parametrize("cards, total", [
    ("8S 9D", 7),      # seed 000's example: 8 + 9 = 17 counts 7
    ("7H 8C", 5),      # 15 -> 5
    ("KD 9C", 9),      # a natural nine
    ("TS JS QS", 0),   # tens and faces count 0
    ("AS 9H", 0),      # 10 -> 0
    ("AS", 1),
    ("5S 5H 9C", 9),   # 19 -> 9
])
def test_hand_total_is_the_sum_of_values_mod_ten(cards, total):
    assert hand_total(parse_cards(cards)) == total


def test_a_deck_has_52_distinct_cards_13_per_suit_4_per_rank_no_jokers():
    deck = full_deck()
    assert len(deck) == 52 == len(set(deck))
    assert set(collections.Counter(c.suit for c in deck).values()) == {13}
    assert set(collections.Counter(c.rank for c in deck).values()) == {4}
    assert sum(c.value == 0 for c in deck) == 16
