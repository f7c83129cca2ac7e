"""Exact probabilities of a fresh shoe by combinatorial enumeration, against published values.

Every expected number is a published figure, with its source named next to it:

* [WoO-main] Wizard of Odds, baccarat house-edge tables "Probabilities in 8-deck / 6-deck /
  4-deck Baccarat" (combinations per outcome; reproduced at casinoexploit.com/baccarat.html).
* [WoO-apx3] Wizard of Odds, Baccarat Appendix 3 (wizardofodds.com/games/baccarat/appendix/3/):
  "Total" row 0.446247 / 0.458597 / 0.095156.
* [WoO-apx5] Wizard of Odds, Baccarat Appendix 5 / side bets page, Dragon Bonus tables.
* [WoO-totals] Wizard of Odds, "Side Total Side Bets in Baccarat" (combinations of each final
  player and banker total, 8 decks).
* [WoO-lucky6] Wizard of Odds, Lucky 6 (wizardofodds.com/games/baccarat/side-bets/lucky-6/).
* [WoO-pp] Wizard of Odds, Perfect Pairs versions 1 and 2.
* [Jacobson] Eliot Jacobson, 888casino blog / American Casino Guide: commission-free
  banker edge 1.4581%, commission banker 1.0579%; dragon bonus 2.652% / 9.373%; pairs
  bet 11:1 edge 10.361%, hit frequency 7.470%.
* [AAP] advancedadvantageplay.com baccarat side bets: Big Tiger (3-card banker 6 at 50:1)
  house edge 15.253%.
* [Chen] Yui-Bin Chen, "Casino Games - Mini Baccarat" (vegastrip.com): win percentages for
  1, 2 and 4 decks.
* [Pub] the published figures for a fresh 8-deck shoe (Wizard of Odds appendices and
  side-bet pages; Thorp), and the seeds' RTP statements (seed 000: 98.94%; seed 004: 97.62%).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from roads.outcome import Winner
from roads.probability import (EVENTS, bet_return, event_probabilities, event_probability, house_edge,
                               house_edges, ordered_draws, pair_distribution, round_distribution,
                               settlement_counts, winner_probabilities)
from roads.variants import Verdict, get_variant

TOTAL_8 = 4_998_398_275_503_360  # 416P6 [Pub]; "416!/410!" (excelpunks.com)


def pct(x: Fraction, places: int) -> float:
    return round(float(x) * 100, places)


def test_ordered_six_card_draws_from_eight_decks_is_416p6():
    assert ordered_draws(8) == TOTAL_8 == 416 * 415 * 414 * 413 * 412 * 411
    assert round_distribution(8).total == TOTAL_8
    assert sum(round_distribution(8).counts.values()) == TOTAL_8
    assert ordered_draws(8, 4) == pair_distribution(8).total == 416 * 415 * 414 * 413


@pytest.mark.parametrize("decks, banker, player, tie", [
    (8, 2_292_252_566_437_888, 2_230_518_282_592_256, 475_627_426_473_216),   # [WoO-main] 8 decks
    (6, 403_095_751_234_560, 392_220_492_728_832, 83_552_962_932_288),        # [WoO-main] 6 decks
])
def test_exact_combinations_of_banker_player_tie(decks, banker, player, tie):
    d = round_distribution(decks)
    assert d.count(lambda s: s.winner is Winner.BANKER) == banker
    assert d.count(lambda s: s.winner is Winner.PLAYER) == player
    assert d.count(lambda s: s.winner is Winner.TIE) == tie
    assert banker + player + tie == d.total


def test_four_deck_banker_and_player_combinations():
    d = round_distribution(4)  # [WoO-main] 4 decks
    assert d.count(lambda s: s.winner is Winner.BANKER) == 34_543_624_867_840
    assert d.count(lambda s: s.winner is Winner.PLAYER) == 33_608_344_225_792


def test_eight_deck_win_probabilities_to_the_published_six_places():
    w = winner_probabilities(8)  # [Pub], [WoO-apx3] Total row
    assert round(float(w[Winner.BANKER]), 6) == 0.458597
    assert round(float(w[Winner.PLAYER]), 6) == 0.446247
    assert round(float(w[Winner.TIE]), 6) == 0.095156
    assert sum(w.values()) == 1


@pytest.mark.parametrize("decks, banker, player, tie", [
    (1, 45.9624, 44.6760, 9.3615),  # [Chen]
    (2, 45.9073, 44.6508, 9.4419),  # [Chen]
    (4, 45.8761, 44.6340, 9.4898),  # [Chen]
    # Chen's 6-deck player figure (44.6276%) disagrees with [WoO-main]'s exact 6-deck
    # count (392,220,492,728,832 / 312P6 = 44.6279%), tested above; not used.
])
def test_win_percentages_for_smaller_shoes(decks, banker, player, tie):
    w = winner_probabilities(decks)
    assert (pct(w[Winner.BANKER], 4), pct(w[Winner.PLAYER], 4), pct(w[Winner.TIE], 4)) == (banker, player, tie)


@pytest.mark.parametrize("total, player, banker", [
    # [WoO-totals]: combinations of each final total, 8 decks.
    (9, 668_220_074_600_448, 641_996_333_062_144),
    (8, 665_982_456_134_400, 639_959_843_756_800),
    (7, 668_117_541_187_584, 641_950_993_608_704),
    (6, 665_920_136_276_736, 605_184_530_090_752),
    (5, 372_435_601_541_376, 503_359_177_443_584),
    (4, 371_426_030_979_072, 466_997_733_545_984),
    (3, 372_517_215_488_256, 363_761_246_869_760),
    (2, 371_465_655_324_672, None),
    (1, 372_517_055_559_936, None),
    (0, 469_796_508_410_880, None),
])
def test_exact_combinations_of_each_final_total(total, player, banker):
    d = round_distribution(8)
    assert d.count(lambda s: s.player_total == total) == player
    if banker is not None:
        assert d.count(lambda s: s.banker_total == total) == banker


# ------------------------------------------------------------------ house edges
def test_house_edges_of_the_main_bets():
    v = get_variant("seed000_live")
    assert pct(house_edge(v.bet("banker")), 4) == 1.0579   # [Pub], [Jacobson]
    assert pct(house_edge(v.bet("player")), 4) == 1.2351   # [Pub]
    assert pct(house_edge(v.bet("tie")), 4) == 14.3596     # [Pub] tie 8:1
    nc = get_variant("seed000_live_no_commission")
    assert pct(house_edge(nc.bet("banker")), 4) == 1.4581  # [Pub], [Jacobson] banker 6 pays 1:2
    # Exact: the commission banker returns 0.95 P(B) - P(P).
    w = winner_probabilities(8)
    assert bet_return(v.bet("banker")) == Fraction(19, 20) * w[Winner.BANKER] - w[Winner.PLAYER]


def test_seed_000_states_a_maximum_rtp_of_98_94_percent():
    # Seed 000: "ကစားနည်း၏ အများဆုံး RTP သည် 98.94%": the best bet, the commission banker.
    edges = house_edges(get_variant("seed000_live"))
    assert min(edges.values()) == edges["banker"]
    assert round(100 - float(edges["banker"]) * 100, 2) == 98.94


def test_seed_004_states_an_average_return_of_97_62_percent_with_a_9_to_1_tie():
    # Seed 004: "ผลตอบแทนเฉลี่ยกับผู้เล่น 97.62%": the mean return of its three bets, 8 decks.
    edges = house_edges(get_variant("seed004_mini"))
    assert round(100 - float(sum(edges.values()) / 3) * 100, 2) == 97.62
    # The figure pins the unstated deck count: 6 decks would give 97.59%.
    six = house_edges(get_variant("seed004_mini"), decks=6)
    assert round(100 - float(sum(six.values()) / 3) * 100, 2) == 97.59


def test_dragon_bonus_combinations_and_edges():
    # [WoO-apx5] Dragon Bonus tables (8 decks); edges 2.65% / 9.37% [Pub], 2.652% / 9.373% [Jacobson].
    v = get_variant("seed000_live")
    expected = {
        "player_bonus": {"margin_9": 18_409_431_764_992, "margin_8": 34_097_645_543_424,
                         "margin_7": 89_590_261_473_280, "margin_6": 141_238_897_317_888,
                         "margin_5": 166_169_165_987_840, "margin_4": 186_780_352_174_080,
                         "natural_win": 812_685_054_124_032},
        "banker_bonus": {"margin_9": 15_390_342_909_952, "margin_8": 28_305_092_784_128,
                         "margin_7": 79_517_099_278_336, "margin_6": 119_200_072_366_080,
                         "margin_5": 157_275_882_332_160, "margin_4": 201_147_167_287_296,
                         "natural_win": 812_685_054_124_032},
    }
    losses = {"player_bonus": 0.692242, "banker_bonus": 0.699334}
    for bet, rows in expected.items():
        counts, total = settlement_counts(v.bet(bet))
        assert total == TOTAL_8
        assert {case: n for (verdict, case), n in counts.items() if verdict is Verdict.WIN} == rows
        assert counts[(Verdict.PUSH, None)] == 89_325_908_267_520  # natural tie
        assert round(counts[(Verdict.LOSE, None)] / total, 6) == losses[bet]
    assert pct(house_edge(v.bet("player_bonus")), 2) == 2.65
    assert pct(house_edge(v.bet("banker_bonus")), 2) == 9.37
    assert pct(house_edge(v.bet("player_bonus")), 3) == 2.652
    assert pct(house_edge(v.bet("banker_bonus")), 3) == 9.373


def test_lucky_six_combinations_and_edges():
    v = get_variant("seed000_live")
    counts, _ = settlement_counts(v.bet("lucky_six"))
    assert counts[(Verdict.WIN, "two_cards")] == 186_173_936_904_192    # [WoO-lucky6]
    assert counts[(Verdict.WIN, "three_cards")] == 83_058_367_551_488   # [WoO-lucky6]
    # Seed 000 pays 12:1 / 20:1: WoO's "stingy pay table", return -0.166836.
    assert round(float(bet_return(v.bet("lucky_six"))), 6) == -0.166836
    assert pct(house_edge(v.bet("lucky_six_3")), 3) == 15.253           # [AAP] Big Tiger 50:1


def test_pair_probabilities_and_edges():
    v = get_variant("seed000_live")
    # (4N-1)/(52N-1) = 31/415 for 8 decks [Pub].
    assert event_probability("player_pair") == event_probability("banker_pair") == Fraction(31, 415)
    assert round(float(event_probability("player_pair")), 6) == 0.074699
    assert pct(house_edge(v.bet("player_pair")), 3) == 10.361          # [Jacobson] 11:1
    assert round(float(event_probability("player_pair")) * 100, 3) == 7.470


@pytest.mark.parametrize("decks", [1, 2, 6, 8])
def test_a_sides_pair_is_4n_minus_1_over_52n_minus_1(decks):
    assert event_probability("player_pair", decks) == Fraction(4 * decks - 1, 52 * decks - 1)


@pytest.mark.parametrize("decks", [1, 6, 8])
def test_either_pair_by_inclusion_exclusion(decks):
    # Independent derivation: P(P or B) = 2p - P(both). Given the player's pair, the banker's
    # two cards pair either in the player's rank (4N-2 then 4N-3 left of it) or in another
    # rank (48N cards, then 4N-1 of that rank).
    n = 52 * decks
    p = Fraction(4 * decks - 1, n - 1)
    both = p * (Fraction(4 * decks - 2, n - 2) * Fraction(4 * decks - 3, n - 3)
                + Fraction(48 * decks, n - 2) * Fraction(4 * decks - 1, n - 3))
    assert event_probability("either_pair", decks) == 2 * p - both


def test_perfect_pair_combinations():
    # [WoO-pp] version 1: 246,848,784 wins of 7,379,583,120 (hands unordered: x4 for our ordered
    # draws); 0.033450 [Pub]; 25:1 return -0.130294. Version 2: both hands 2,101,008.
    assert event_probability("perfect_pair") == Fraction(246_848_784, 7_379_583_120)
    assert round(float(event_probability("perfect_pair")), 6) == 0.033450
    assert event_probability("both_perfect_pairs") == Fraction(2_101_008, 7_379_583_120)
    assert round(float(bet_return(get_variant("seed000_live").bet("perfect_pair"))), 6) == -0.130294
    assert event_probability("perfect_pair", 6) == Fraction(74_114_820, 2_323_673_820)  # [WoO-pp] 6 decks


def test_naturals_and_card_counts():
    assert round(float(event_probability("small")), 6) == 0.378868           # [Pub] 4 cards
    assert event_probability("big") == 1 - event_probability("small")
    assert round(float(event_probability("player_natural")), 6) == 0.189435  # [Pub]
    assert event_probability("banker_natural") == event_probability("player_natural")
    # Banker wins with 6 [WoO-lucky6]: 0.037247 on two cards, 0.016617 on three.
    assert round(float(event_probability("banker_six_two_cards")), 6) == 0.037247
    assert round(float(event_probability("banker_six_three_cards")), 6) == 0.016617


def test_big_at_0_54_to_1():
    # Big pays 0.54:1 at seed 002: house edge 4.35% (vegasfreedom.com "Big and Small").
    assert pct(house_edge(get_variant("seed002").bet("big")), 2) == 4.35


def test_every_named_event_is_a_probability():
    probs = event_probabilities(8)
    assert set(probs) == set(EVENTS)
    assert all(0 < p < 1 for p in probs.values())


@pytest.mark.parametrize("decks", [0, 17, "8", True])
def test_a_bad_deck_count_raises(decks):
    with pytest.raises(ValueError, match="decks must be an integer 1-16"):
        round_distribution(decks)
    with pytest.raises(ValueError):
        pair_distribution(decks)


def test_an_unknown_event_raises_naming_it():
    with pytest.raises(KeyError, match="'dragon'"):
        event_probability("dragon")
