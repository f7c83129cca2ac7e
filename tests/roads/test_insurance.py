"""Seed 001's insurance bets: the pay tables, the offers of a round in progress, settlement
and the cap, on hand-worked rounds and on 50,000 dealt rounds against an independent settler.

The expected tables below are transcribed by hand from seed 001's section "การประกันภัย"
(ตารางการจ่ายบาคาร่าประกันภัย), not from the code; the settler at the bottom is written from
the seed's words and reads only the dealt cards (no roads.insurance, no roads.tableau).
"""

from __future__ import annotations

import json
import random
from fractions import Fraction

import pytest

from roads.cards import parse_cards
from roads.insurance import (INSURANCE_TABLES, SEED001_INSURANCE, InsuranceError, InsuranceRow, InsuranceTable,
                             Moment, get_insurance_table, insurance_offers, insurance_open, offers_made,
                             round_moment, settle_offer)
from roads.outcome import RoundResult, Winner
from roads.shoe import Shoe
from roads.tableau import TableauError
from roads.variants import PRESETS, Variant, VariantError, Verdict, get_variant

P, B = Winner.PLAYER, Winner.BANKER
FOUR, THIRD = Moment.AFTER_FOUR_CARDS, Moment.AFTER_PLAYER_THIRD

# The seed's four tables: {(insured side's total, other side's total): payout to 1}.
# "หลังจากแจกไพ่ 4 ใบ | การเดิมพันประกันภัยเพลเยอร์": 5|4 1.5:1, 6|0-5 2.5:1, 7|0-5 4:1
PLAYER_AFTER_FOUR = {(5, 4): 1.5, **{(6, b): 2.5 for b in range(6)}, **{(7, b): 4 for b in range(6)}}
# "ฝั่งเพลเยอร์ดึงไพ่ใบที่ 3 แล้ว | ...เพลเยอร์": 5|0-4 1.5, 6|0-5 2.5, 7|0-6 4, 8|0-6 10, 9*|0-6 10
PLAYER_AFTER_THIRD = {**{(5, b): 1.5 for b in range(5)}, **{(6, b): 2.5 for b in range(6)},
                      **{(7, b): 4 for b in range(7)}, **{(8, b): 10 for b in range(7)},
                      **{(9, b): 10 for b in range(7)}}
# "หลังจากแจกไพ่ 4 ใบ | ...แบงเกอร์" (banker total | player total): 4|0-3 1.5, 5|0-4 1.5, 6|0-5 2.5, 7|0-5 4
BANKER_AFTER_FOUR = {**{(4, p): 1.5 for p in range(4)}, **{(5, p): 1.5 for p in range(5)},
                     **{(6, p): 2.5 for p in range(6)}, **{(7, p): 4 for p in range(6)}}
# "ฝั่งเพลเยอร์ดึงไพ่ใบที่ 3 แล้ว | ...แบงเกอร์": 1-6|0* 10, 1|1 6, 2-6|1 10, 3-6|2 4, 4|3 2.5
BANKER_AFTER_THIRD = {**{(b, 0): 10 for b in range(1, 7)}, (1, 1): 6, **{(b, 1): 10 for b in range(2, 7)},
                      **{(b, 2): 4 for b in range(3, 7)}, (4, 3): 2.5}
SEED_TABLES = {(P, FOUR): PLAYER_AFTER_FOUR, (P, THIRD): PLAYER_AFTER_THIRD,
               (B, FOUR): BANKER_AFTER_FOUR, (B, THIRD): BANKER_AFTER_THIRD}


def cards(text: str):
    return parse_cards(text)


def offer_summary(player: str, banker: str):
    return [(o.side, o.moment, o.payout) for o in insurance_offers(cards(player), cards(banker))]


# ------------------------------------------------------------------ the tables as data
def test_the_seed_001_table_is_the_seeds_four_tables_cell_by_cell():
    t = SEED001_INSURANCE
    for (side, moment), cells in SEED_TABLES.items():
        for pt in range(10):
            for bt in range(10):
                key = (pt, bt) if side is P else (bt, pt)
                row = t.row(side, moment, pt, bt)
                assert (row.payout if row else None) == cells.get(key), (side, moment, pt, bt)
    assert len(t.rows) == 17 and get_insurance_table("seed001") is t and set(INSURANCE_TABLES) == {"seed001"}


def test_only_the_two_starred_rows_pay_a_tie():
    starred = {r.id for r in SEED001_INSURANCE.rows if r.tie_pays}
    assert starred == {"player:after_player_third:9:0-6", "banker:after_player_third:1-6:0"}


def test_rows_have_ids_labels_and_json():
    row = SEED001_INSURANCE.row(P, FOUR, 6, 3)
    assert row.id == "player:after_four_cards:6:0-5" and row.label == "Player 6 v Banker 0-5"
    assert SEED001_INSURANCE.row(B, THIRD, 0, 4).label == "Banker 1-6 v Player 0"
    assert row.odds == Fraction(5, 2)
    d = json.loads(json.dumps(SEED001_INSURANCE.to_json()))
    assert d["id"] == "seed001" and len(d["rows"]) == 17
    assert d["rows"][0] == {"id": "player:after_four_cards:5:4", "side": "player", "moment": "after_four_cards",
                            "insured_totals": [5], "other_totals": [4], "payout": 1.5, "tie_pays": False,
                            "label": "Player 5 v Banker 4"}
    assert [r.id for r in SEED001_INSURANCE.rows_of(B, THIRD)][:2] == ["banker:after_player_third:1-6:0",
                                                                      "banker:after_player_third:1:1"]


def test_seed_001_presets_offer_insurance_and_no_other_preset_does():
    for v in PRESETS.values():
        assert v.offers_insurance is v.id.startswith("seed001")
        assert (v.insurance is SEED001_INSURANCE) if v.offers_insurance else v.insurance is None
        d = v.to_json()
        assert ("insurance" in d) is v.offers_insurance
        assert "insurance" not in {b.bet for b in v.bets}  # not a pre-round bet: side bets unchanged
    assert get_variant("seed001").to_json()["insurance"]["id"] == "seed001"


def test_a_variant_naming_an_unknown_insurance_table_fails_when_asked():
    main = get_variant("seed004_mini").bets
    v = Variant(id="x", name="X", decks=8, bets=main, insurance_table="nope")
    with pytest.raises(VariantError, match="'nope'"):
        v.insurance
    with pytest.raises(VariantError, match="insurance_table"):
        Variant(id="x", name="X", decks=8, bets=main, insurance_table="")


@pytest.mark.parametrize("kwargs, message", [
    (dict(side=Winner.TIE), "insured side"),
    (dict(moment="after_four_cards"), "moment"),
    (dict(insured_totals=frozenset()), "insured_totals"),
    (dict(insured_totals=frozenset({3, 5})), "consecutive"),
    (dict(other_totals=frozenset({10})), "other_totals"),
    (dict(payout=0), "payout"),
    (dict(payout="2"), "payout"),
])
def test_a_row_refuses_bad_data(kwargs, message):
    args = dict(side=P, moment=FOUR, insured_totals=frozenset({5}), other_totals=frozenset({4}), payout=1.5)
    args.update(kwargs)
    with pytest.raises(InsuranceError, match=message):
        InsuranceRow(**args)


def test_a_table_refuses_overlapping_rows():
    a = InsuranceRow(P, FOUR, frozenset({6}), frozenset(range(6)), 2.5)
    b = InsuranceRow(P, FOUR, frozenset({6}), frozenset({5}), 3)
    with pytest.raises(InsuranceError, match="both cover player 6, banker 5"):
        InsuranceTable("t", (a, b))
    with pytest.raises(InsuranceError, match="unknown insurance table 'x'"):
        get_insurance_table("x")


# ------------------------------------------------------------------ offers, hand-worked
@pytest.mark.parametrize("player, banker, expected", [
    ("2S 3H", "KD 4C", [(P, FOUR, 1.5)]),        # player 5 v banker 4: the player draws
    ("4S 2H", "KD 3C", [(P, FOUR, 2.5)]),        # player 6 stands, banker 3 draws
    ("4S 3H", "5D KC", [(P, FOUR, 4.0)]),        # player 7 v banker 5
    ("KS 3H", "2D 2C", [(B, FOUR, 1.5)]),        # banker 4 v player 3 (player draws)
    ("KS 4H", "2D 3C", [(B, FOUR, 1.5)]),        # banker 5 v player 4
    ("KS 5H", "3D 3C", [(B, FOUR, 2.5)]),        # banker 6 v player 5
    ("KS QH", "3D 4C", [(B, FOUR, 4.0)]),        # banker 7 v player 0
    ("2S 3H", "KD 2C", []),                      # player 5 v banker 2: no row
    ("3S 3H", "4D 2C", []),                      # player 6 v banker 6: both stand, round over
    ("4S 4H", "2D 3C", []),                      # player natural 8
    ("6S 3H", "KD 4C", []),                      # player natural 9
    ("KS 4H", "2D 2C", []),                      # banker 4 v player 4: no row
    ("2S 3H 2D", "KD 4C", [(P, THIRD, 4.0)]),    # player 7 (three cards) v banker 4, banker draws on a 2
    ("2S 3H KD", "KH 4C", []),                   # banker 4 stands on a player third card 0
    ("2S 2H 5D", "2C KD", [(P, THIRD, 10.0)]),   # player 9* v banker 2
    ("2S 2H 4D", "2C KD", [(P, THIRD, 10.0)]),   # player 8 v banker 2
    ("2S 2H 6D", "3C 3D", [(B, THIRD, 10.0)]),   # banker 6 v player 0*, banker 6 draws on a 6
    ("AS KH KD", "AC KS", [(B, THIRD, 6.0)]),    # banker 1 v player 1
    ("AS KH KD", "2C KS", [(B, THIRD, 10.0)]),   # banker 2 v player 1
    ("AS AH KD", "3C KS", [(B, THIRD, 4.0)]),    # banker 3 v player 2, draws on a 0
    ("2S 2H 8D", "3C KS", []),                   # player 2 after an 8: banker 3 stands on an 8
    ("AS 2H KD", "4C KS", []),                   # banker 4 v player 3, but a third card 0: banker stands
    ("AS 2H 2D", "4C KS", [(P, THIRD, 1.5)]),    # player 5 v banker 4 at the second moment (0-4)
    ("AS KH 4D", "5C KS", []),                   # player 5 v banker 5 (draws on a 4): no row
    ("AS 2H", "4C KS", [(B, FOUR, 1.5)]),        # ... while after four cards banker 4 v player 3 is offered
    ("AS", "4C", []), ("", "", []),              # fewer than four cards
    ("2S 3H 2D", "KD 4C 5H", []),                # the round is complete
])
def test_offers_open_now_follow_the_seed_tables(player, banker, expected):
    assert offer_summary(player, banker) == expected


def test_the_same_side_can_be_offered_at_both_moments():
    made = offers_made(cards("2S 3H 2D"), cards("KD 4C 5H"))
    assert [(o.side, o.moment, o.payout, o.player_total, o.banker_total) for o in made] == [
        (P, FOUR, 1.5, 5, 4), (P, THIRD, 4.0, 7, 4)]
    assert offers_made(cards("2S 3H"), cards("KD")) == ()
    assert offers_made(cards("4S 4H"), cards("2D 3C")) == ()
    assert made[1].to_json() == {"side": "player", "moment": "after_player_third",
                                 "row": "player:after_player_third:7:0-6", "label": "Player 7 v Banker 0-6",
                                 "payout": 4.0, "tie_pays": False, "player_total": 7, "banker_total": 4,
                                 "player": ["2S", "3H", "2D"], "banker": ["KD", "4C"]}
    assert SEED001_INSURANCE.offers(cards("2S 3H"), cards("KD 4C")) == made[:1]


@pytest.mark.parametrize("player, banker, rule", [
    ("2S 3H 4D", "KD", "deal_order"),
    ("2S", "KD 4C", "deal_order"),
    ("4S 4H 2D", "2D 3C", "natural"),
    ("3S 3H 2D", "KD 4C", "player_stands_6_7"),
    ("2S 3H", "KD 4C 5H", "player_draws_0_5"),
    ("2S 3H KD", "KH 4C 5H", "banker_stands"),
    ("3S 3H", "3D 3C 5H", "banker_stands"),
])
def test_cards_that_cannot_be_a_round_in_progress_are_refused_by_rule(player, banker, rule):
    with pytest.raises(TableauError) as err:
        round_moment(cards(player), cards(banker))
    assert err.value.rule == rule
    with pytest.raises(TableauError):
        offers_made(cards(player), cards(banker))


def test_round_moment_names_the_moment():
    assert round_moment(cards("2S 3H"), cards("KD 4C")) is FOUR
    assert round_moment(cards("2S 3H 2D"), cards("KD 4C")) is THIRD
    assert round_moment(cards("3S 3H"), cards("3D 3C")) is None
    with pytest.raises(TableauError) as err:
        round_moment(["2S", "3H"], cards("KD 4C"))  # type: ignore[list-item]
    assert err.value.rule == "not_a_card"


# ------------------------------------------------------------------ settlement, hand-worked
def settle_round(player: str, banker: str):
    r = RoundResult.from_cards(cards(player), cards(banker))
    return [(o.moment, o.settle(r).verdict, o.settle(r).payout) for o in offers_made(r.player_cards, r.banker_cards)]


def test_insured_player_loses_so_both_offers_win():
    # player 2S 3H (5) v banker KD 4C (4): 1.5:1; player draws 2D (7), banker draws on a 2: 4:1;
    # banker draws 5H (9) and wins 9-7.
    assert settle_round("2S 3H 2D", "KD 4C 5H") == [(FOUR, Verdict.WIN, 1.5), (THIRD, Verdict.WIN, 4.0)]


def test_insured_player_wins_so_both_offers_lose():
    assert settle_round("2S 3H 2D", "KD 4C 2H") == [(FOUR, Verdict.LOSE, None), (THIRD, Verdict.LOSE, None)]


def test_player_nine_against_a_banker_drawing_to_nine_pays_the_table():
    # "*...เพลเยอร์ที่ 9 แต้ม ... แบงเกอร์จั่วไพ่ได้ผลรวมเป็น 9 แต้มเหมือนกัน": the round is a tie, the
    # insurance taken at 9 is paid 10:1.
    r = RoundResult.from_cards(cards("2S 2H 5D"), cards("2C KD 7S"))
    assert r.winner is Winner.TIE
    assert settle_round("2S 2H 5D", "2C KD 7S") == [(THIRD, Verdict.WIN, 10.0)]
    assert settle_round("2S 2H 5D", "2C KD 6S") == [(THIRD, Verdict.LOSE, None)]  # banker 8: player wins


def test_a_player_eight_tie_pushes():
    assert settle_round("2S 2H 4D", "2C KD 6S") == [(THIRD, Verdict.PUSH, None)]


def test_banker_drawing_to_zero_against_player_zero_pays_the_table_but_the_first_offer_pushes():
    # player 2C 2D (4) v banker 3S 3H (6): "Banker 6 v Player 0-5" 2.5:1 after four cards; player
    # draws 6S (0), banker 6 draws on a 6: "Banker 1-6 v Player 0*" 10:1; banker draws 4D (0): tie 0-0.
    assert settle_round("2C 2D 6S", "3S 3H 4D") == [(FOUR, Verdict.PUSH, None), (THIRD, Verdict.WIN, 10.0)]
    assert settle_round("2C 2D 6S", "3S 3H 5D") == [(FOUR, Verdict.LOSE, None), (THIRD, Verdict.LOSE, None)]


def test_first_moment_offers_settle_on_the_final_totals():
    assert settle_round("4S 2H", "KD 3C 3H") == [(FOUR, Verdict.PUSH, None)]   # banker draws to 6: tie
    assert settle_round("4S 2H", "KD 3C 4H") == [(FOUR, Verdict.WIN, 2.5)]     # banker 7 beats 6
    assert settle_round("4S 2H", "KD 3C 2H") == [(FOUR, Verdict.LOSE, None)]   # banker 5
    assert settle_round("KS 3H 5D", "3D 4C") == [(FOUR, Verdict.WIN, 4.0)]     # player draws to 8 v banker 7
    assert settle_round("KS 3H 4D", "3D 4C") == [(FOUR, Verdict.PUSH, None)]   # player 7 v banker 7


def test_settle_offer_reads_only_totals_and_refuses_bad_ones():
    row = SEED001_INSURANCE.row(B, THIRD, 1, 1)
    assert settle_offer(row, 1, 0).verdict is Verdict.WIN and settle_offer(row, 1, 0).case == row.id
    assert settle_offer(row, 1, 1).verdict is Verdict.PUSH
    assert settle_offer(row, 1, 5).verdict is Verdict.LOSE
    with pytest.raises(InsuranceError) as err:
        settle_offer(row, 10, 1)
    assert err.value.field == "player_total"


def test_an_offer_settles_on_a_result_level_round_and_refuses_another_rounds_cards():
    offer = insurance_offers(cards("4S 2H"), cards("KD 3C"))[0]
    assert offer.settle(RoundResult.from_result("B", 6, 7, banker_card_count=3)).verdict is Verdict.WIN
    other = RoundResult.from_cards(cards("4S 3H"), cards("KD 3C 4H"))
    with pytest.raises(InsuranceError) as err:
        offer.settle(other)
    assert err.value.field == "round" and "4S 2H" in str(err.value)


# ------------------------------------------------------------------ who may bet, and the cap
@pytest.mark.parametrize("side, player_stake, banker_stake, is_open", [
    (P, 100, 0, True), (P, 0, 100, False), (P, 100, 100, False), (P, 0, 0, False),
    (B, 0, 50, True), (B, 50, 0, False), (B, 50, 50, False), ("player", Fraction(1, 2), 0, True),
    ("banker", 0, 0.5, True),
])
def test_insurance_is_open_only_with_a_main_bet_on_that_side_alone(side, player_stake, banker_stake, is_open):
    assert insurance_open(side, player_stake, banker_stake) is is_open


@pytest.mark.parametrize("args, field", [
    (("tie", 1, 0), "side"), ((P, -1, 0), "player_stake"), ((P, 1, "0"), "banker_stake"),
    ((P, True, 0), "player_stake"), ((P, float("nan"), 0), "player_stake"),
])
def test_insurance_open_refuses_bad_arguments_naming_the_field(args, field):
    with pytest.raises(InsuranceError) as err:
        insurance_open(*args)
    assert err.value.field == field


def test_an_insurance_win_never_exceeds_the_main_bet():
    offer_15, offer_4 = offers_made(cards("2S 3H 2D"), cards("KD 4C 5H"))
    r = RoundResult.from_cards(cards("2S 3H 2D"), cards("KD 4C 5H"))
    s = offer_4.settle(r)
    assert offer_4.max_stake(100) == 25 and offer_15.max_stake(100) == Fraction(200, 3)
    assert s.amount(10, 100) == 40            # 10 x 4
    assert s.amount(25, 100) == 100           # exactly the cap
    assert s.amount(40, 100) == 100           # 160 capped at the main bet
    assert offer_15.settle(r).amount(Fraction(1, 3), 100) == Fraction(1, 2)
    lost = offer_4.settle(RoundResult.from_cards(cards("2S 3H 2D"), cards("KD 4C 2H")))
    assert lost.amount(40, 100) == -40 and lost.net == -1
    pushed = insurance_offers(cards("4S 2H"), cards("KD 3C"))[0].settle(
        RoundResult.from_cards(cards("4S 2H"), cards("KD 3C 3H")))
    assert pushed.amount(10, 100) == 0 and pushed.net == 0
    assert s.net == 4.0 and s.to_json() == {"verdict": "win", "payout": 4.0, "case": "player:after_player_third:7:0-6"}
    for bad, field in ((0, "stake"), (-5, "stake"), ("5", "stake")):
        with pytest.raises(InsuranceError) as err:
            s.amount(bad, 100)
        assert err.value.field == field
    with pytest.raises(InsuranceError) as err:
        offer_4.max_stake(0)
    assert err.value.field == "main_stake"


# ------------------------------------------------------------------ 50,000 dealt rounds
def independent_offers(player, banker):
    """The offers of a *dealt* round from the seed's words alone, reading the cards dealt:
    after four cards when someone must draw (player on 0-5; a standing player's banker on
    0-5); after the player's third card when the banker then drew (it has three cards).
    Returns [(side, moment, payout, paying tie?)]."""
    pv, bv = [c.value for c in player], [c.value for c in banker]
    p2, b2 = (pv[0] + pv[1]) % 10, (bv[0] + bv[1]) % 10
    out = []
    if p2 >= 8 or b2 >= 8:
        return out
    if p2 <= 5 or b2 <= 5:
        if (p2, b2) in PLAYER_AFTER_FOUR:
            out.append((P, FOUR, PLAYER_AFTER_FOUR[(p2, b2)], False))
        if (b2, p2) in BANKER_AFTER_FOUR:
            out.append((B, FOUR, BANKER_AFTER_FOUR[(b2, p2)], False))
    if len(player) == 3 and len(banker) == 3:
        p3 = sum(pv) % 10
        if (p3, b2) in PLAYER_AFTER_THIRD:
            out.append((P, THIRD, PLAYER_AFTER_THIRD[(p3, b2)], p3 == 9))
        if (b2, p3) in BANKER_AFTER_THIRD:
            out.append((B, THIRD, BANKER_AFTER_THIRD[(b2, p3)], p3 == 0))
    return out


def independent_verdict(side, paying_tie, player, banker):
    pf, bf = sum(c.value for c in player) % 10, sum(c.value for c in banker) % 10
    if pf == bf:
        return Verdict.WIN if paying_tie else Verdict.PUSH
    insured_lost = pf < bf if side is P else bf < pf
    return Verdict.WIN if insured_lost else Verdict.LOSE


def test_insurance_settlement_of_50000_dealt_rounds_agrees_with_an_independent_settler():
    rng = random.Random(13_001)
    rounds = offers = wins = 0
    by_moment: dict = {}
    while rounds < 50_000:
        for dealt in Shoe(8, rng=rng).deal_all():
            rounds += 1
            mine = [(o.side, o.moment, o.payout, o.settle(dealt.result).verdict)
                    for o in offers_made(dealt.player, dealt.banker)]
            theirs = [(side, moment, float(pay), independent_verdict(side, tie, dealt.player, dealt.banker))
                      for side, moment, pay, tie in independent_offers(dealt.player, dealt.banker)]
            assert mine == theirs, (dealt.player, dealt.banker)
            offers += len(mine)
            wins += sum(v is Verdict.WIN for *_, v in mine)
            for side, moment, _, _ in mine:
                by_moment[(side, moment)] = by_moment.get((side, moment), 0) + 1
            if rounds == 50_000:
                break
    # Every side and moment came up; about 0.53 offers a round (exact: docs/insurance.md).
    assert set(by_moment) == {(P, FOUR), (P, THIRD), (B, FOUR), (B, THIRD)}
    assert 0.50 < offers / rounds < 0.56 and 0.15 < wins / offers < 0.25
