"""Table variants: preset bets, payouts and per-shoe windows as the seeds state them, and
the settlement of every bet on hand-worked rounds.

The expected pay tables and round limits below are transcribed by hand from the seeds'
payout tables (quoted in the comments), not from the code.
"""

from __future__ import annotations

import json
import random

import pytest

from roads.cards import parse_cards
from roads.outcome import RoundResult
from roads.variants import (DEFAULT_VARIANT_ID, PRESETS, BetSpec, Rule, Settlement, UnknownBetError,
                            UnknownVariantError, Variant, VariantError, Verdict, get_variant, settle)

# Seed 000 (Burmese) payout table; "*အများဆုံး အလှည့် ကန့်သတ်ချက် – N" = open for the first N rounds.
SEED000_SIDE_BETS = {
    "player_pair": ({"win": 11}, 60),       # ဟင်းမှတ်တမ်း ... 60  11:1
    "banker_pair": ({"win": 11}, 60),       # ဇောင်းဒွဲ့ ... 60  11:1
    "either_pair": ({"win": 5}, 50),        # မည်သည့်စုံ ... 50  5:1 (paid once)
    "perfect_pair": ({"win": 25}, 50),      # ပြည့်စုံစုံ ... 50  25:1 (paid once)
    "player_natural": ({"win": 3.5}, 50),   # 8 or 9 on the first two cards ... 50  7:2
    "banker_natural": ({"win": 3.5}, 50),
    "player_bonus": ({"natural_win": 1, "margin_9": 30, "margin_8": 10, "margin_7": 6, "margin_6": 4,
                      "margin_5": 2, "margin_4": 1}, None),
    "banker_bonus": ({"natural_win": 1, "margin_9": 30, "margin_8": 10, "margin_7": 6, "margin_6": 4,
                      "margin_5": 2, "margin_4": 1}, None),
    "lucky_six": ({"two_cards": 12, "three_cards": 20}, 50),   # 2 cards 12:1, 3 cards 20:1
    "lucky_six_2": ({"two_cards": 22}, 50),
    "lucky_six_3": ({"three_cards": 50}, 50),
}
# Seed 001 (Thai) payout table and "เปิดให้เดิมพันใน N เกมแรกของแต่ละสำรับ".
SEED001_SIDE_BETS = {
    "player_pair": ({"win": 11}, 60),
    "banker_pair": ({"win": 11}, 60),
    "big": ({"win": 0.5}, 30),              # ใหญ่ 0.5:1, first 30 games
    "small": ({"win": 1.5}, 30),            # เล็ก 1.5:1
    "player_pok_8": ({"natural_8": 8}, 60),  # เพลเยอร์ ป็อก (Natural 8) 8:1
    "player_pok_9": ({"natural_9": 8}, 60),  # เพลเยอร์ ป็อก (Natural 9) 8:1
    "banker_pok_8": ({"natural_8": 8}, 60),
    "banker_pok_9": ({"natural_9": 8}, 60),
    "super_six": ({"two_cards": 12, "three_cards": 18}, 60),  # ซุปเปอร์ 6+ 12:1 / 18:1
}
# Seed 002 (Burmese) payout table: no round limits stated.
SEED002_SIDE_BETS = {
    "banker_pair": ({"win": 11}, None),
    "player_pair": ({"win": 11}, None),
    "big": ({"win": 0.54}, None),           # ၁ မှ ၀.၅၄
    "small": ({"win": 1.5}, None),          # ၁ မှ ၁.၅
}
COMMISSION = {"win": 0.95}
NO_COMMISSION = {"win": 1, "win_with_6": 0.5}

EXPECTED_PRESETS = {
    # id: (banker pay table, tie pays, side bets, decks, burn between rounds)
    "seed000_live": (COMMISSION, 8, SEED000_SIDE_BETS, 8, False),
    "seed000_live_no_commission": (NO_COMMISSION, 8, SEED000_SIDE_BETS, 8, False),
    "seed001": (COMMISSION, 8, SEED001_SIDE_BETS, 8, False),
    "seed001_no_commission": (NO_COMMISSION, 8, SEED001_SIDE_BETS, 8, False),
    "seed002": (NO_COMMISSION, 8, SEED002_SIDE_BETS, 8, True),       # the Super 6 table
    "seed002_commission": (COMMISSION, 8, SEED002_SIDE_BETS, 8, True),
    "seed004_mini": (COMMISSION, 9, {}, 8, False),                  # tie 9 ต่อ 1
}


def cards_round(player: str, banker: str) -> RoundResult:
    return RoundResult.from_cards(parse_cards(player), parse_cards(banker))


# ------------------------------------------------------------------ presets
def test_the_presets_are_the_seed_tables():
    assert set(PRESETS) == set(EXPECTED_PRESETS)
    assert DEFAULT_VARIANT_ID in PRESETS


@pytest.mark.parametrize("variant_id", sorted(EXPECTED_PRESETS))
def test_preset_bets_payouts_and_round_limits_follow_the_seed(variant_id):
    banker, tie, side, decks, burn = EXPECTED_PRESETS[variant_id]
    v = get_variant(variant_id)
    assert v.id == variant_id and v.decks == decks and v.burn_between_rounds is burn
    assert dict(v.bet("player").pays) == {"win": 1}
    assert dict(v.bet("banker").pays) == banker
    assert dict(v.bet("tie").pays) == {"win": tie} and v.tie_pays == tie
    assert [b.bet for b in v.bets[:3]] == ["player", "banker", "tie"]
    assert all(v.bet(b).round_limit is None for b in ("player", "banker", "tie"))
    assert {b.bet: (dict(b.pays), b.round_limit) for b in v.side_bets} == side
    assert v.banker_rule == ("commission" if banker == COMMISSION else "no_commission")
    assert all(b.label and b.source for b in v.bets)


def test_get_variant_refuses_an_unknown_id_quoting_it():
    with pytest.raises(UnknownVariantError) as err:
        get_variant("seed009")
    assert "'seed009'" in str(err.value) and "seed000_live" in str(err.value)
    assert isinstance(err.value, ValueError)
    with pytest.raises(UnknownVariantError):
        get_variant(None)  # type: ignore[arg-type]


# ------------------------------------------------------------------ windows
@pytest.mark.parametrize("bet, round_number, is_open, left", [
    ("player_pair", 1, True, 60), ("player_pair", 60, True, 1), ("player_pair", 61, False, 0),
    ("either_pair", 50, True, 1), ("either_pair", 51, False, 0), ("perfect_pair", 200, False, 0),
    ("lucky_six", 50, True, 1), ("lucky_six", 51, False, 0),
    ("player_bonus", 1, True, None), ("player_bonus", 500, True, None),
    ("banker", 10_000, True, None), ("tie", 1, True, None),
])
def test_is_open_for_the_first_n_rounds_of_a_shoe(bet, round_number, is_open, left):
    v = get_variant("seed000_live")
    assert v.is_open(bet, round_number) is is_open
    assert v.rounds_left(bet, round_number) == left


def test_big_and_small_close_after_round_30_at_seed_001_but_never_at_seed_002():
    s1, s2 = get_variant("seed001"), get_variant("seed002")
    assert s1.is_open("big", 30) and not s1.is_open("big", 31) and not s1.is_open("small", 31)
    assert s2.is_open("big", 31) and s2.is_open("small", 400)
    assert [b.bet for b in s1.open_bets(31)] == ["player", "banker", "tie", "player_pair", "banker_pair",
                                                 "player_pok_8", "player_pok_9", "banker_pok_8", "banker_pok_9",
                                                 "super_six"]
    assert [b.bet for b in s1.open_bets(61)] == ["player", "banker", "tie"]


@pytest.mark.parametrize("round_number", [0, -1, "1", 1.0, True, None])
def test_is_open_refuses_a_bad_round_number_quoting_it(round_number):
    v = get_variant("seed000_live")
    with pytest.raises(VariantError) as err:
        v.is_open("player_pair", round_number)
    assert repr(round_number) in str(err.value)
    with pytest.raises(VariantError):
        v.rounds_left("banker", round_number)


def test_asking_for_a_bet_the_table_does_not_offer_raises_unknown_bet_error():
    v = get_variant("seed004_mini")
    with pytest.raises(UnknownBetError) as err:
        v.is_open("player_pair", 1)
    assert "'player_pair'" in str(err.value) and "'seed004_mini'" in str(err.value)
    assert not v.has_bet("player_pair") and v.has_bet("tie")
    assert v.side_bets == ()


def test_side_bets_are_every_bet_but_player_banker_tie():
    v = get_variant("seed002")
    assert [b.bet for b in v.side_bets] == ["player_pair", "banker_pair", "big", "small"]
    assert all(b.is_side_bet for b in v.side_bets)


# ------------------------------------------------------------------ settlement
def verdicts(variant_id: str, result: RoundResult) -> dict[str, tuple]:
    return {bet: (s.verdict.value, s.payout) for bet, s in settle(get_variant(variant_id), result).items()}


def test_banker_wins_with_a_two_card_six():
    # P 2+3 = 5 draws 9 -> 4; B 3C 3D = 6 stands on a 9 (and is a banker pair).
    r = cards_round("2S 3S 9C", "3C 3D")
    v0 = verdicts("seed000_live", r)
    assert v0["banker"] == ("win", 0.95) and v0["player"] == ("lose", None) and v0["tie"] == ("lose", None)
    assert v0["lucky_six"] == ("win", 12) and v0["lucky_six_2"] == ("win", 22) and v0["lucky_six_3"] == ("lose", None)
    assert v0["banker_pair"] == ("win", 11) and v0["either_pair"] == ("win", 5) and v0["perfect_pair"] == ("lose", None)
    assert v0["banker_bonus"] == ("lose", None)  # wins by 2 without a natural
    assert verdicts("seed000_live_no_commission", r)["banker"] == ("win", 0.5)
    assert verdicts("seed002", r)["banker"] == ("win", 0.5)  # Super 6 table: 50% on a winning 6
    s1 = verdicts("seed001", r)
    assert s1["super_six"] == ("win", 12) and s1["big"] == ("win", 0.5) and s1["small"] == ("lose", None)
    assert settle(get_variant("seed002"), r)["banker"].case == "win_with_6"


def test_banker_wins_with_a_three_card_six():
    r = cards_round("AS 2S KC", "AC 2D 3H")  # P 3 draws K -> 3; B 3 draws a 3 -> 6
    v0 = verdicts("seed000_live", r)
    assert v0["lucky_six"] == ("win", 20) and v0["lucky_six_2"] == ("lose", None) and v0["lucky_six_3"] == ("win", 50)
    assert verdicts("seed001", r)["super_six"] == ("win", 18)
    assert verdicts("seed002_commission", r)["banker"] == ("win", 0.95)
    assert verdicts("seed002", r)["big"] == ("win", 0.54)


def test_a_tie_pushes_player_and_banker_and_pays_the_tie_bet():
    r = cards_round("QS 6S", "KC 6C")  # 6-6, both stand
    for vid, tie in (("seed000_live", 8), ("seed004_mini", 9)):
        v = verdicts(vid, r)
        assert v["player"] == ("push", None) and v["banker"] == ("push", None) and v["tie"] == ("win", tie)
    v0 = verdicts("seed000_live", r)
    assert v0["player_bonus"] == ("lose", None) and v0["banker_bonus"] == ("lose", None)  # non-natural tie
    assert v0["lucky_six"] == ("lose", None)
    assert verdicts("seed001", r)["small"] == ("win", 1.5)


def test_a_natural_tie_pushes_the_bonus_and_loses_every_pok():
    r = cards_round("9S 9D", "5C 3C")  # 8-8 on naturals; the player has a pair
    v0 = verdicts("seed000_live", r)
    assert v0["player_bonus"] == ("push", None) and v0["banker_bonus"] == ("push", None)
    assert v0["player_natural"] == ("win", 3.5) and v0["banker_natural"] == ("win", 3.5)
    assert v0["player_pair"] == ("win", 11)
    s1 = verdicts("seed001", r)
    assert all(s1[b] == ("lose", None) for b in ("player_pok_8", "player_pok_9", "banker_pok_8", "banker_pok_9"))


def test_a_natural_nine_beating_a_natural_eight():
    r = cards_round("KS 9D", "4C 4H")  # player natural 9, banker natural 8 with a pair
    s1 = verdicts("seed001", r)
    assert s1["player_pok_9"] == ("win", 8) and s1["player_pok_8"] == ("lose", None)
    assert s1["banker_pok_8"] == ("lose", None) and s1["banker_pok_9"] == ("lose", None)
    v0 = verdicts("seed000_live", r)
    assert v0["player_bonus"] == ("win", 1) and v0["banker_bonus"] == ("lose", None)
    # The natural bets pay on the two-card 8/9 whoever wins (seed 000).
    assert v0["banker_natural"] == ("win", 3.5) and v0["player_natural"] == ("win", 3.5)
    assert settle(get_variant("seed000_live"), r)["player_bonus"].case == "natural_win"


def test_a_natural_eight_against_no_natural_wins_pok_8():
    r = cards_round("KS 8D", "4C 2H")  # player natural 8; banker 6
    assert verdicts("seed001", r)["player_pok_8"] == ("win", 8)
    assert verdicts("seed001", r)["player_pok_9"] == ("lose", None)


@pytest.mark.parametrize("player, banker, margin, pays", [
    ("2S 3H 4C", "KD QC KH", 9, 30),   # 9-0 without a natural
    ("2S 3H 3C", "KD QC KH", 8, 10),   # 8-0
    ("2S 3H 2C", "KD QC KH", 7, 6),    # 7-0
    ("KS 7D", "KH 5D 6C", 6, 4),       # P 7 stands; B 5 draws 6 -> 1: 7-1
    ("KS 7D", "KH 5D 7C", 5, 2),       # 7-2
    ("KS 7D", "KH 5D 8C", 4, 1),       # 7-3
    ("KS 7D", "KH 5D 9C", 3, None),    # 7-4: a margin of 3 loses
    ("KS 7D", "KH 6D", 1, None),       # 7-6
])
def test_player_bonus_pays_by_margin_without_a_natural(player, banker, margin, pays):
    r = cards_round(player, banker)
    assert r.player_margin == margin
    s = settle(get_variant("seed000_live"), r)
    if pays is None:
        assert s["player_bonus"].verdict is Verdict.LOSE
    else:
        assert (s["player_bonus"].verdict, s["player_bonus"].payout, s["player_bonus"].case) == \
            (Verdict.WIN, pays, f"margin_{margin}")
    assert s["banker_bonus"].verdict is Verdict.LOSE


def test_perfect_pair_and_either_pair_are_paid_once():
    r = cards_round("7H 7H 2C", "3D 3S")  # player perfect pair (7H 7H), banker pair 3D 3S; 6-6 tie
    v0 = verdicts("seed000_live", r)
    assert v0["perfect_pair"] == ("win", 25) and v0["either_pair"] == ("win", 5)
    assert v0["player_pair"] == ("win", 11) and v0["banker_pair"] == ("win", 11)
    assert verdicts("seed001", r)["big"] == ("win", 0.5)


def test_result_level_rounds_settle_unknown_where_facts_are_missing_never_guessed():
    r = RoundResult.from_result("B", 3, 6, player_pair=True)  # no card counts, no suits
    v0 = settle(get_variant("seed000_live"), r)
    assert v0["lucky_six"].verdict is Verdict.UNKNOWN     # banker won with 6: two or three cards?
    assert v0["lucky_six_2"].verdict is Verdict.UNKNOWN
    assert v0["perfect_pair"].verdict is Verdict.UNKNOWN  # a player pair, suits unknown
    assert v0["player_pair"].verdict is Verdict.WIN and v0["either_pair"].verdict is Verdict.WIN
    assert v0["banker"].verdict is Verdict.WIN and v0["banker"].payout == 0.95
    assert v0["player_natural"].verdict is Verdict.LOSE  # no natural on the round
    assert v0["banker_bonus"].verdict is Verdict.LOSE      # won by 3 without a natural
    s1 = settle(get_variant("seed001"), r)
    assert s1["big"].verdict is Verdict.UNKNOWN and s1["small"].verdict is Verdict.UNKNOWN
    assert s1["super_six"].verdict is Verdict.UNKNOWN
    # Facts the rules force are known: no pair -> no perfect pair; a 3-card side -> big.
    q = RoundResult.from_result("P", 5, 3, player_card_count=3)
    assert settle(get_variant("seed000_live"), q)["perfect_pair"].verdict is Verdict.LOSE
    assert settle(get_variant("seed001"), q)["big"].verdict is Verdict.WIN
    assert settle(get_variant("seed000_live"), q)["lucky_six"].verdict is Verdict.LOSE  # not a banker 6


def test_settle_returns_every_bet_of_the_variant_in_order():
    v = get_variant("seed001")
    r = cards_round("KS 7D", "KH 6D")
    assert list(settle(v, r)) == [b.bet for b in v.bets]


def test_settlement_net_and_json():
    assert Settlement(Verdict.WIN, 0.95, "win").net == 0.95
    assert Settlement(Verdict.LOSE).net == -1 and Settlement(Verdict.PUSH).net == 0
    assert Settlement(Verdict.UNKNOWN).net is None
    assert Settlement(Verdict.WIN, 11.0, "win").to_json() == {"verdict": "win", "payout": 11.0, "case": "win"}


def test_variants_describe_themselves_as_json():
    for v in PRESETS.values():
        d = json.loads(json.dumps(v.to_json()))
        assert d["id"] == v.id and [b["bet"] for b in d["bets"]] == [b.bet for b in v.bets]
    d = get_variant("seed002").to_json()
    assert d["banker_rule"] == "no_commission" and d["burn_between_rounds"] is True
    assert d["bets"][1]["paytable"] == {"win": 1.0, "win_with_6": 0.5}


def test_new_shoe_follows_the_variant():
    shoe = get_variant("seed002").new_shoe(random.Random(3))
    assert shoe.decks == 8 and shoe.burn_between_rounds
    rounds = shoe.deal_all()
    assert rounds[1].burned and not rounds[0].burned


# ------------------------------------------------------------------ bad data
@pytest.mark.parametrize("kwargs, message", [
    (dict(bet="", rule=Rule.TIE, paytable=(("win", 8),)), "non-empty"),
    (dict(bet="x", rule="tie", paytable=(("win", 8),)), "must be a Rule"),
    (dict(bet="x", rule=Rule.TIE, paytable=(("two_cards", 8),)), "no case 'two_cards'"),
    (dict(bet="x", rule=Rule.TIE, paytable=(("win", 0),)), "must be a number > 0"),
    (dict(bet="x", rule=Rule.TIE, paytable=(("win", "8"),)), "'8'"),
    (dict(bet="x", rule=Rule.TIE, paytable=(("win", 8), ("win", 9))), "appears twice"),
    (dict(bet="x", rule=Rule.TIE, paytable=()), "empty pay table"),
    (dict(bet="x", rule=Rule.TIE, paytable=["win", 8]), "pairs"),
    (dict(bet="x", rule=Rule.TIE, paytable=(("win", 8),), round_limit=0), "round_limit"),
    (dict(bet="x", rule=Rule.TIE, paytable=(("win", 8),), round_limit=True), "round_limit"),
])
def test_bet_spec_refuses_bad_data(kwargs, message):
    kwargs.setdefault("round_limit", None)
    with pytest.raises(VariantError, match=message):
        BetSpec(label="X", **kwargs)


def test_variant_refuses_bad_data():
    main = get_variant("seed004_mini").bets
    with pytest.raises(VariantError, match="appears twice"):
        Variant(id="x", name="X", decks=8, bets=main + (main[0],))
    with pytest.raises(VariantError, match="missing main bet 'tie'"):
        Variant(id="x", name="X", decks=8, bets=main[:2])
    with pytest.raises(VariantError, match="decks"):
        Variant(id="x", name="X", decks=0, bets=main)
    with pytest.raises(VariantError, match="non-empty"):
        Variant(id="", name="X", decks=8, bets=main)
    with pytest.raises(VariantError, match="BetSpec"):
        Variant(id="x", name="X", decks=8, bets=main + ("big",))  # type: ignore[operator]


def test_a_custom_variant_is_data():
    big = BetSpec(bet="big", label="Big", round_limit=40, rule=Rule.BIG, paytable={"win": 0.54})
    assert big.paytable == (("win", 0.54),)
    v = Variant(id="house", name="House rules", decks=6, bets=get_variant("seed004_mini").bets + (big,))
    assert v.is_open("big", 40) and not v.is_open("big", 41)
    assert settle(v, cards_round("KS 7D", "KH 6D"))["big"].verdict is Verdict.LOSE
