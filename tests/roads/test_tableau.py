"""The third-card tableau: every cell of the banker table, the player rule, naturals, and
``check_round`` rejecting each broken rule by name.

The expected table below is written out by hand from seed 001 table 2 (Thai, "ตารางที่ 2"),
seed 003's banker table (Lao) and seed 004's table (Thai; it writes the value 0 as 10),
which agree cell for cell; the "stood" column is the rule for a player who stood on 6-7
(seed 001: "หากมีผลรวมของไพ่ 2 ใบแรกน้อยกว่า 6 แต้ม", banker draws below 6).
"""

from __future__ import annotations

import pytest

from roads.cards import Card, parse_cards
from roads.tableau import TableauError, banker_draws, check_round, deal_round, is_natural, player_draws

# Banker two-card total -> (action for a player third card of value 0..9, action when the player stood).
# D = banker draws, S = banker stands.
BANKER_TABLE = {
    #   player third: 0123456789   stood
    0: ("DDDDDDDDDD", "D"),
    1: ("DDDDDDDDDD", "D"),
    2: ("DDDDDDDDDD", "D"),
    3: ("DDDDDDDDSD", "D"),  # 3: draws unless the third card is 8
    4: ("SSDDDDDDSS", "D"),  # 4: draws on 2-7
    5: ("SSSSDDDDSS", "D"),  # 5: draws on 4-7
    6: ("SSSSSSDDSS", "S"),  # 6: draws on 6-7; stands when the player stood
    7: ("SSSSSSSSSS", "S"),  # 7: always stands
}

CELLS = [(total, third, row[third] == "D") for total, (row, _) in BANKER_TABLE.items() for third in range(10)]
STOOD = [(total, stood == "D") for total, (_, stood) in BANKER_TABLE.items()]

# A card of each baccarat value (value 0 written as a king).
RANK_OF_VALUE = {0: "K", 1: "A", 2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9"}


def card(value: int, suit: str = "C") -> Card:
    return Card(RANK_OF_VALUE[value], suit)


def banker_hand(total: int) -> list[Card]:
    """Two banker cards with the given total and no pair: a queen and the total's card."""
    return [Card("Q", "H"), card(total, "H")]


def dealer(cards):
    """A draw function over a fixed card order, remembering how many cards were drawn."""
    it = iter(cards)
    dealer.drawn = 0

    def draw():
        dealer.drawn += 1
        return next(it)
    return draw


@pytest.mark.parametrize("total, third, draws", CELLS, ids=[f"banker{t}-third{v}" for t, v, _ in CELLS])
def test_banker_table_cell_after_a_player_third_card(total, third, draws):
    assert banker_draws(total, third) is draws
    # The same cell, by dealing real cards: player 0 (K K) draws the third card, banker has `total`.
    b1, b2 = banker_hand(total)
    order = [Card("K", "S"), b1, Card("J", "S"), b2, card(third, "D"), Card("2", "D")]
    player, banker = deal_round(dealer(order))
    assert len(player) == 3 and player[2] == card(third, "D")
    assert len(banker) == (3 if draws else 2)
    check_round(player, banker)
    wrong = banker[:2] if draws else tuple(banker) + (Card("2", "D"),)
    with pytest.raises(TableauError) as err:
        check_round(player, wrong)
    assert err.value.rule == ("banker_draws" if draws else "banker_stands")
    assert f"banker total {total}" in str(err.value) and f"player third card {third}" in str(err.value)


@pytest.mark.parametrize("total, draws", STOOD, ids=[f"banker{t}-player-stood" for t, _ in STOOD])
def test_banker_table_cell_when_the_player_stood(total, draws):
    assert banker_draws(total, None) is draws
    b1, b2 = banker_hand(total)
    order = [Card("6", "S"), b1, Card("K", "S"), b2, Card("2", "D")]  # player 6 stands
    player, banker = deal_round(dealer(order))
    assert len(player) == 2
    assert len(banker) == (3 if draws else 2)
    check_round(player, banker)
    wrong = banker[:2] if draws else tuple(banker) + (Card("2", "D"),)
    with pytest.raises(TableauError) as err:
        check_round(player, wrong)
    assert err.value.rule == ("banker_draws" if draws else "banker_stands")
    assert "player stood" in str(err.value)


@pytest.mark.parametrize("total, draws", [(0, True), (1, True), (2, True), (3, True), (4, True), (5, True),
                                          (6, False), (7, False)])
def test_player_draws_on_0_to_5_and_stands_on_6_7(total, draws):
    assert player_draws(total) is draws


@pytest.mark.parametrize("total, natural", [(t, t >= 8) for t in range(10)])
def test_a_natural_is_a_two_card_8_or_9(total, natural):
    assert is_natural(total) is natural


@pytest.mark.parametrize("order, player, banker", [
    ("9S 2H KD KC", "9S KD", "2H KC"),  # player natural 9: nobody draws (banker 2 would)
    ("2S 8H KD KC", "2S KD", "8H KC"),  # banker natural 8: the player's 2 does not draw
    ("4S 4H 4D 5C", "4S 4D", "4H 5C"),  # player natural 8 vs banker 9 (13 -> 9)
])
def test_a_natural_on_either_side_ends_the_round_on_four_cards(order, player, banker):
    draw = dealer(parse_cards(order + " 7C 7D"))
    p, b = deal_round(draw)
    assert (p, b) == (parse_cards(player), parse_cards(banker))
    assert dealer.drawn == 4


def test_cards_are_dealt_player_banker_player_banker_then_third_cards():
    # P 1+2 = 3 draws; B 3+3 = 6; the player's third card 6 makes the banker draw (6 draws on 6-7).
    p, b = deal_round(dealer(parse_cards("AS 3H 2S 3D 6C 9D")))
    assert p == parse_cards("AS 2S 6C")
    assert b == parse_cards("3H 3D 9D")


# ------------------------------------------------------------------ check_round rejections
@pytest.mark.parametrize("player, banker, rule, words", [
    ("AS", "2H 3D", "card_count", "player has 1 cards"),
    ("AS 2S 3S 4S", "2H 3D", "card_count", "player has 4 cards"),
    ("AS 2S", "", "card_count", "banker has 0 cards"),
    ("9S KD 2C", "2H 3D", "natural", "player has a natural 9"),
    ("2S 3D", "4H 4D 5C", "natural", "banker has a natural 8"),
    ("9S KD", "8H KC 2C", "natural", "player has a natural 9"),
    ("2S 3D", "KH 6D", "player_draws_0_5", "player total 5 must draw"),
    ("KS QD", "KH 6D", "player_draws_0_5", "player total 0 must draw"),
    ("3S 3D 2C", "KH 5D", "player_stands_6_7", "player total 6 must stand"),
    ("3S 4D 2C", "KH 5D", "player_stands_6_7", "player total 7 must stand"),
    ("KS 6D", "KH 5D", "banker_draws", "banker total 5 must draw after player stood"),
    ("KS 7D", "KH 7D 2C", "banker_stands", "banker total 7 must stand after player stood"),
    ("KS AD 8C", "KH 3D 2C", "banker_stands", "banker total 3 must stand after player third card 8"),
    ("KS AD 7C", "KH 6D", "banker_draws", "banker total 6 must draw after player third card 7"),
])
def test_check_round_names_the_rule_a_round_breaks(player, banker, rule, words):
    with pytest.raises(TableauError) as err:
        check_round(parse_cards(player), parse_cards(banker))
    assert err.value.rule == rule
    assert words in str(err.value)
    assert isinstance(err.value, ValueError)


def test_check_round_message_quotes_the_cards():
    with pytest.raises(TableauError, match=r"\(player KS 6D; banker KH 5D\)"):
        check_round(parse_cards("KS 6D"), parse_cards("KH 5D"))


def test_check_round_refuses_items_that_are_not_cards():
    with pytest.raises(TableauError) as err:
        check_round(["AS", "2S"], parse_cards("KH 5D"))  # type: ignore[list-item]
    assert err.value.rule == "not_a_card" and "'AS'" in str(err.value)


def test_check_round_accepts_legal_rounds_of_every_shape():
    # Repeated cards are fine: an 8-deck shoe holds 8 copies of the seven of hearts.
    check_round(parse_cards("7H 7H 7H"), parse_cards("7H 7H 7H"))  # P 4 draws 7; B 4 draws on 7
    check_round(parse_cards("KS 6D"), parse_cards("KH 7D"))        # both stand
    check_round(parse_cards("KS AD 8C"), parse_cards("KH 3D"))     # banker 3 stands on an 8
    check_round(parse_cards("KS 7D"), parse_cards("KH 5D 2C"))     # banker 5 draws after a stand


@pytest.mark.parametrize("total, third, rule", [
    (8, None, "banker_total"), (-1, 3, "banker_total"), (9, 0, "banker_total"), (True, 0, "banker_total"),
    (3, 10, "player_third"), (3, -1, "player_third"), (3, "8", "player_third"),
])
def test_banker_draws_refuses_values_outside_the_table(total, third, rule):
    with pytest.raises(TableauError) as err:
        banker_draws(total, third)
    assert err.value.rule == rule
    assert repr(total if rule == "banker_total" else third) in str(err.value)
