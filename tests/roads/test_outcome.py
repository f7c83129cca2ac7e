"""Round outcomes: every fact the bets read, worked out by hand from the cards, and the
result-level constructor's derivations and refusals.

Rules: docs/domain.md sections 1 and 3; seed 000 (pairs "first 2 cards", perfect pair "same
rank and suit", naturals, bonus margins, Lucky Six), seeds 001/002 (big = 5 or 6 cards,
small = 4 cards).
"""

from __future__ import annotations

import json

import pytest

from roads.cards import CardError, parse_cards
from roads.outcome import ResultError, RoundResult, Winner
from roads.tableau import TableauError


def cards_round(player: str, banker: str) -> RoundResult:
    return RoundResult.from_cards(parse_cards(player), parse_cards(banker))


# Each row worked by hand: player cards, banker cards, then the expected facts.
HAND_WORKED = [
    # P 4+4 = 8 natural with a pair; B K+9 = 9 natural: banker wins 9-8 on naturals.
    dict(player="4S 4H", banker="KD 9C", winner="B", pt=8, bt=9, pc=2, bc=2, natural=True, pn=True, bn=True,
         pp=True, bp=False, ppp=False, bpp=False, big=False, six=0, pm=0, bm=1),
    # P 7H 7H (identical: perfect pair) = 4 draws 2 -> 6; B 3+3 = 6 pair, third card 2: 6 stands. Tie 6-6.
    dict(player="7H 7H 2C", banker="3D 3S", winner="T", pt=6, bt=6, pc=3, bc=2, natural=False, pn=False,
         bn=False, pp=True, bp=True, ppp=True, bpp=False, big=True, six=0, pm=0, bm=0),
    # P 2+3 = 5 draws 9 -> 4; B 3+3 = 6 stands on a 9: banker wins with a two-card 6.
    dict(player="2S 3S 9C", banker="3C 3D", winner="B", pt=4, bt=6, pc=3, bc=2, natural=False, pn=False,
         bn=False, pp=False, bp=True, ppp=False, bpp=False, big=True, six=2, pm=0, bm=2),
    # P A+2 = 3 draws K -> 3; B A+2 = 3 draws (3 draws unless 8) a 3 -> 6: banker wins with a three-card 6.
    dict(player="AS 2S KC", banker="AC 2D 3H", winner="B", pt=3, bt=6, pc=3, bc=3, natural=False, pn=False,
         bn=False, pp=False, bp=False, ppp=False, bpp=False, big=True, six=3, pm=0, bm=3),
    # P 2+3 = 5 draws 4 -> 9; B K+Q = 0 draws a K -> 0: player wins by 9 without a natural.
    dict(player="2S 3H 4C", banker="KD QC KH", winner="P", pt=9, bt=0, pc=3, bc=3, natural=False, pn=False,
         bn=False, pp=False, bp=False, ppp=False, bpp=False, big=True, six=0, pm=9, bm=0),
    # P K+6 = 6 stands; B K+7 = 7 stands: banker 7-6 on four cards, no natural.
    dict(player="KS 6D", banker="KH 7D", winner="B", pt=6, bt=7, pc=2, bc=2, natural=False, pn=False, bn=False,
         pp=False, bp=False, ppp=False, bpp=False, big=False, six=0, pm=0, bm=1),
    # P Q+6 = 6 stands, B K+6 = 6 stands: a tie at 6 is not a banker win with 6.
    dict(player="QS 6S", banker="KC 6C", winner="T", pt=6, bt=6, pc=2, bc=2, natural=False, pn=False, bn=False,
         pp=False, bp=False, ppp=False, bpp=False, big=False, six=0, pm=0, bm=0),
    # Natural tie: P 9+9 = 18 -> 8 (pair), B 5+3 = 8.
    dict(player="9S 9D", banker="5C 3C", winner="T", pt=8, bt=8, pc=2, bc=2, natural=True, pn=True, bn=True,
         pp=True, bp=False, ppp=False, bpp=False, big=False, six=0, pm=0, bm=0),
]


@pytest.mark.parametrize("row", HAND_WORKED, ids=[f"{r['player']}|{r['banker']}" for r in HAND_WORKED])
def test_from_cards_gives_every_fact_worked_by_hand(row):
    r = cards_round(row["player"], row["banker"])
    assert r.winner is Winner(row["winner"])
    assert (r.player_total, r.banker_total) == (row["pt"], row["bt"])
    assert (r.player_card_count, r.banker_card_count) == (row["pc"], row["bc"])
    assert r.card_count == row["pc"] + row["bc"]
    assert r.natural is row["natural"]
    assert (r.player_natural, r.banker_natural) == (row["pn"], row["bn"])
    assert (r.side_natural(Winner.PLAYER), r.side_natural(Winner.BANKER)) == (row["pn"], row["bn"])
    assert (r.player_pair, r.banker_pair) == (row["pp"], row["bp"])
    assert r.either_pair is (row["pp"] or row["bp"])
    assert (r.player_perfect_pair, r.banker_perfect_pair) == (row["ppp"], row["bpp"])
    assert r.perfect_pair is (row["ppp"] or row["bpp"])
    assert r.big is row["big"] and r.small is (not row["big"])
    assert r.banker_six == row["six"]
    assert r.banker_wins_with_six is (row["six"] != 0)
    assert (r.player_margin, r.banker_margin) == (row["pm"], row["bm"])
    assert r.margin == row["pm"] + row["bm"]
    assert r.has_cards
    assert r.player_cards == parse_cards(row["player"]) and r.banker_cards == parse_cards(row["banker"])


def test_from_cards_refuses_a_round_that_breaks_the_tableau():
    with pytest.raises(TableauError) as err:
        cards_round("2S 3D", "KH 6D")
    assert err.value.rule == "player_draws_0_5"


def test_winner_parse_and_totals():
    assert Winner.parse(" b ") is Winner.BANKER and Winner.parse("P") is Winner.PLAYER and Winner.parse("t") is Winner.TIE
    assert Winner.of_totals(3, 7) is Winner.BANKER and Winner.of_totals(9, 0) is Winner.PLAYER
    assert Winner.of_totals(5, 5) is Winner.TIE
    for bad in ("X", "", "BP", None, 1):
        with pytest.raises(ResultError) as err:
            Winner.parse(bad)
        assert err.value.field == "winner" and repr(bad) in str(err.value)


def test_side_natural_refuses_the_tie_as_a_side():
    with pytest.raises(ValueError):
        cards_round("KS 6D", "KH 7D").side_natural(Winner.TIE)


# ------------------------------------------------------------------ result-level rounds
def test_from_result_keeps_unknown_facts_unknown():
    r = RoundResult.from_result("B", 3, 6)
    assert r.player_card_count is None and r.banker_card_count is None and r.card_count is None
    assert r.big is None and r.small is None
    assert r.banker_six is None  # banker won with 6, card count unknown
    assert r.banker_wins_with_six
    assert not r.has_cards and r.player_cards is None
    assert (r.player_natural, r.banker_natural) == (False, False)  # no natural round: no side natural


def test_from_result_derives_what_the_rules_force():
    r = RoundResult.from_result("P", 9, 8, natural=True)
    assert (r.player_card_count, r.banker_card_count) == (2, 2)  # naturals stand on two cards
    assert r.small is True and r.card_count == 4
    assert (r.player_natural, r.banker_natural) == (True, True)
    # No pair -> no perfect pair; a pair with unknown suits -> perfect pair unknown.
    assert RoundResult.from_result("P", 5, 3).perfect_pair is False
    q = RoundResult.from_result("P", 5, 3, player_pair=True)
    assert q.player_perfect_pair is None and q.banker_perfect_pair is False and q.perfect_pair is None
    assert RoundResult.from_result("P", 5, 3, player_pair=True, player_perfect_pair=True).perfect_pair is True
    # One side known to hold three cards: big is known, the total card count is not.
    b = RoundResult.from_result("P", 5, 3, player_card_count=3)
    assert b.big is True and b.small is False and b.card_count is None


@pytest.mark.parametrize("args, kwargs, field", [
    (("X", 1, 2), {}, "winner"),
    (("B", 10, 2), {}, "player_total"),
    (("B", 1, -1), {}, "banker_total"),
    (("B", 1, "2"), {}, "banker_total"),
    (("B", True, 2), {}, "player_total"),
    (("P", 1, 2), {}, "winner"),                                   # totals say banker
    (("T", 4, 5), {}, "winner"),
    (("B", 1, 2, "yes"), {}, "player_pair"),
    (("B", 1, 2, False, False, 1), {}, "natural"),
    (("B", 1, 7, False, False, True), {}, "natural"),              # natural with both totals below 8
    (("B", 1, 8, False, False, True), {"player_card_count": 3}, "player_card_count"),
    (("B", 1, 8), {"banker_card_count": 4}, "banker_card_count"),
    (("B", 1, 8), {"banker_card_count": True}, "banker_card_count"),
    (("B", 3, 8), {"player_card_count": 2}, "player_card_count"),  # stood on two cards -> 6 or 7
    (("P", 7, 5), {"player_card_count": 2, "banker_card_count": 2}, "banker_card_count"),  # stands on 6-7 only
    (("P", 7, 2), {"banker_card_count": 2}, "banker_card_count"),  # banker 0-2 always draws
    (("P", 9, 8, True, False, True), {}, "player_pair"),           # a pair totals 0,2,4,6,8: never 9
    (("B", 6, 7, False, True), {"banker_card_count": 2}, "banker_pair"),
    (("B", 1, 2, False, False), {"player_perfect_pair": True}, "player_perfect_pair"),
    (("B", 1, 2, False, False), {"banker_perfect_pair": True}, "banker_perfect_pair"),
])
def test_from_result_refuses_a_self_contradicting_round_naming_the_field(args, kwargs, field):
    with pytest.raises(ResultError) as err:
        RoundResult.from_result(*args, **kwargs)
    assert err.value.field == field
    assert isinstance(err.value, ValueError)


def test_from_result_accepts_tableau_consistent_card_counts():
    RoundResult.from_result("B", 6, 7, player_card_count=2, banker_card_count=2)  # both stood
    RoundResult.from_result("P", 5, 3, player_card_count=3, banker_card_count=2)  # banker 3 stood on an 8
    RoundResult.from_result("B", 4, 6, True, False, player_card_count=3)         # a pair that drew
    RoundResult.from_result("P", 8, 2, True, False, True)                        # 4-4 natural 8


# ------------------------------------------------------------------ JSON
def test_to_json_and_from_json_round_trip_a_card_level_round():
    r = cards_round("AS 2S KC", "AC 2D 3H")
    d = json.loads(json.dumps(r.to_json()))
    assert d["player"] == ["AS", "2S", "KC"] and d["banker"] == ["AC", "2D", "3H"]
    assert d["winner"] == "B" and d["banker_total"] == 6
    assert RoundResult.from_json(d) == r
    assert RoundResult.from_json({"player": ["AS", "2S", "KC"], "banker": ["AC", "2D", "3H"]}) == r


def test_to_json_and_from_json_round_trip_a_result_level_round():
    for r in (RoundResult.from_result("B", 3, 6, player_pair=True),
              RoundResult.from_result("P", 9, 8, natural=True),
              RoundResult.from_result("T", 5, 5, player_card_count=3, banker_card_count=3)):
        assert RoundResult.from_json(json.loads(json.dumps(r.to_json()))) == r


@pytest.mark.parametrize("data, error, field", [
    ({"player": ["AS", "2S", "KC"], "banker": ["AC", "2D", "3H"], "winner": "P"}, ResultError, "winner"),
    ({"player": ["AS", "2S", "KC"], "banker": ["AC", "2D", "3H"], "banker_total": 5}, ResultError, "banker_total"),
    ({"player": "AS 2S KC", "banker": ["AC", "2D", "3H"]}, ResultError, "player"),
    ({"player": ["AS", "2S", "KC"]}, ResultError, "banker"),
    ({"player_total": 3, "banker_total": 6}, ResultError, "winner"),
    ({"winner": "B", "banker_total": 6}, ResultError, "player_total"),
    ({"winner": "P", "player_total": 9, "banker_total": 8, "natural": True, "player_natural": False},
     ResultError, "player_natural"),
    (["B", 3, 6], ResultError, "round"),
])
def test_from_json_refuses_missing_or_contradicting_fields(data, error, field):
    with pytest.raises(error) as err:
        RoundResult.from_json(data)
    assert err.value.field == field


def test_from_json_passes_on_card_and_tableau_errors():
    with pytest.raises(CardError, match="'1S'"):
        RoundResult.from_json({"player": ["1S", "2S"], "banker": ["AC", "2D"]})
    with pytest.raises(TableauError):
        RoundResult.from_json({"player": ["2S", "3D"], "banker": ["KH", "6D"]})
