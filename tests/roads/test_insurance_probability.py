"""Exact insurance figures (roads.insurance_probability) against an independent brute force.

The brute force below is written separately from the code it checks: it walks the first
four cards *in dealing order* (P1, B1, P2, B2: 10^4 ordered value sequences, not unordered
hands), applies its own copy of the third-card rules (seed 001 tables 1 and 2, transcribed
here), reads its own transcription of the seed's insurance tables (the printed rows below,
parsed here), and settles each offer from the seed's words. Every count must agree exactly.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from roads.insurance import SEED001_INSURANCE, Moment
from roads.insurance_probability import insurance_figures
from roads.outcome import Winner

# Seed 001 "ตารางการจ่ายบาคาร่าประกันภัย", row by row as printed:
# (side insured, moment, insured side's points, other side's points, payout, starred)
PRINTED_ROWS = [
    ("player", "after_four_cards", "5", "4", "1.5", False),
    ("player", "after_four_cards", "6", "0-5", "2.5", False),
    ("player", "after_four_cards", "7", "0-5", "4", False),
    ("player", "after_player_third", "5", "0-4", "1.5", False),
    ("player", "after_player_third", "6", "0-5", "2.5", False),
    ("player", "after_player_third", "7", "0-6", "4", False),
    ("player", "after_player_third", "8", "0-6", "10", False),
    ("player", "after_player_third", "9", "0-6", "10", True),     # 9*
    ("banker", "after_four_cards", "4", "0-3", "1.5", False),
    ("banker", "after_four_cards", "5", "0-4", "1.5", False),
    ("banker", "after_four_cards", "6", "0-5", "2.5", False),
    ("banker", "after_four_cards", "7", "0-5", "4", False),
    ("banker", "after_player_third", "1-6", "0", "10", True),     # 0*
    ("banker", "after_player_third", "1", "1", "6", False),
    ("banker", "after_player_third", "2-6", "1", "10", False),
    ("banker", "after_player_third", "3-6", "2", "4", False),
    ("banker", "after_player_third", "4", "3", "2.5", False),
]

# Seed 001 table 2: banker two-card total -> player third-card values on which the banker draws.
BANKER_DRAWS = {0: set(range(10)), 1: set(range(10)), 2: set(range(10)), 3: set(range(10)) - {8},
                4: {2, 3, 4, 5, 6, 7}, 5: {4, 5, 6, 7}, 6: {6, 7}, 7: set()}


def span(text):
    lo, _, hi = text.partition("-")
    return range(int(lo), int(hi or lo) + 1)


def lookup_table():
    """{(side, moment, player total, banker total): (row id, payout, starred)}."""
    table = {}
    for side, moment, mine, theirs, pays, starred in PRINTED_ROWS:
        rid = f"{side}:{moment}:{mine}:{theirs}"
        for a in span(mine):
            for b in span(theirs):
                pt, bt = (a, b) if side == "player" else (b, a)
                table[(side, moment, pt, bt)] = (rid, Fraction(pays), starred)
    return table


def brute_force(decks):
    """Counts in ordered six-card sequences: {row id: [offered, wins, pushes, losses]}, and
    {(side, moment): offered}, {side: offered at either moment}, {side: at both moments}."""
    size = 52 * decks
    left = [16 * decks] + [4 * decks] * 9
    fill = {used: math.perm(size - used, 6 - used) for used in (4, 5, 6)}
    table = lookup_table()
    rows = {f"{r[0]}:{r[1]}:{r[2]}:{r[3]}": [0, 0, 0, 0] for r in PRINTED_ROWS}
    moments = {(s, m): 0 for s in ("player", "banker") for m in ("after_four_cards", "after_player_third")}
    either = {"player": 0, "banker": 0}
    both = {"player": 0, "banker": 0}

    def settle(entry, side, pf, bf):
        _, _, starred = entry
        if pf == bf:
            return 1 if starred else 2  # wins, or pushes
        insured_lost = pf < bf if side == "player" else bf < pf
        return 1 if insured_lost else 3

    def take(v):
        n = left[v]
        left[v] -= 1
        return n

    for p1 in range(10):
        w1 = take(p1)
        for b1 in range(10):
            w2 = take(b1)
            for p2 in range(10):
                w3 = take(p2)
                for b2 in range(10):
                    w4 = take(b2)
                    weight4 = w1 * w2 * w3 * w4
                    pt, bt = (p1 + p2) % 10, (b1 + b2) % 10
                    if weight4 and pt < 8 and bt < 8:
                        finals = []  # (player final, banker final, weight, second-moment key or None)
                        if pt >= 6:  # player stands
                            if bt <= 5:
                                for b3 in range(10):
                                    finals.append((pt, (bt + b3) % 10, weight4 * left[b3] * fill[5], None))
                            else:
                                finals.append((pt, bt, weight4 * fill[4], None))
                        else:
                            for p3 in range(10):
                                w5 = take(p3)
                                pf = (pt + p3) % 10
                                if p3 in BANKER_DRAWS[bt]:
                                    for b3 in range(10):
                                        finals.append((pf, (bt + b3) % 10, weight4 * w5 * left[b3] * fill[6], pf))
                                else:
                                    finals.append((pf, bt, weight4 * w5 * fill[5], None))
                                left[p3] += 1
                        for pf, bf, w, p3total in finals:
                            if not w:
                                continue
                            sides_seen = {"player": 0, "banker": 0}
                            for side in ("player", "banker"):
                                for moment, ptot in (("after_four_cards", pt), ("after_player_third", p3total)):
                                    if ptot is None:
                                        continue
                                    entry = table.get((side, moment, ptot, bt))
                                    if entry is None:
                                        continue
                                    counts = rows[entry[0]]
                                    counts[0] += w
                                    counts[settle(entry, side, pf, bf)] += w
                                    moments[(side, moment)] += w
                                    sides_seen[side] += 1
                            for side, n in sides_seen.items():
                                either[side] += w if n else 0
                                both[side] += w if n == 2 else 0
                    left[b2] += 1
                left[p2] += 1
            left[b1] += 1
        left[p1] += 1
    return rows, moments, either, both


@pytest.fixture(scope="module")
def brute8():
    return brute_force(8)


def side_of(name):
    return Winner.PLAYER if name == "player" else Winner.BANKER


def test_the_printed_rows_are_the_tables_rows():
    assert [f"{r[0]}:{r[1]}:{r[2]}:{r[3]}" for r in PRINTED_ROWS] == [r.id for r in SEED001_INSURANCE.rows]
    assert [Fraction(r[4]) for r in PRINTED_ROWS] == [r.odds for r in SEED001_INSURANCE.rows]


def test_every_rows_offer_and_settlement_counts_agree_with_the_brute_force(brute8):
    rows, _, _, _ = brute8
    figures = insurance_figures(SEED001_INSURANCE, 8)
    assert figures.total == math.perm(416, 6) == 4_998_398_275_503_360
    for f in figures.rows:
        offered, wins, pushes, losses = rows[f.row.id]
        assert (f.offered, f.wins, f.pushes, f.losses) == (offered, wins, pushes, losses), f.row.id
        assert wins + pushes + losses == offered > 0


def test_probabilities_and_house_edges_agree_exactly_with_the_brute_force(brute8):
    rows, _, _, _ = brute8
    figures = insurance_figures()
    pays = {f"{r[0]}:{r[1]}:{r[2]}:{r[3]}": Fraction(r[4]) for r in PRINTED_ROWS}
    total = math.perm(416, 6)
    for f in figures.rows:
        offered, wins, pushes, losses = rows[f.row.id]
        assert f.probability == Fraction(offered, total)
        assert f.win_probability + f.push_probability + f.lose_probability == 1
        assert f.expected_return == (pays[f.row.id] * wins - losses) / offered
        assert f.house_edge == -f.expected_return


def test_the_starred_rows_never_push_and_pay_only_on_the_tie(brute8):
    figures = insurance_figures()
    for rid in ("player:after_player_third:9:0-6", "banker:after_player_third:1-6:0"):
        f = figures.row(rid)
        # A player 9 cannot lose to a banker drawing from 0-6 except by the tie; a player 0
        # cannot beat a banker: the insured side "loses" only through the starred tie.
        assert f.pushes == 0 and f.tie_wins == f.wins > 0
    assert all(f.tie_wins == 0 for f in figures.rows if not f.row.tie_pays)


def test_moment_and_side_counts_agree_with_the_brute_force(brute8):
    _, moments, either, both = brute8
    figures = insurance_figures()
    for (side, moment), n in moments.items():
        assert figures.moment_offered[(side_of(side), Moment(moment))] == n
        assert figures.moment_probability(side_of(side), Moment(moment)) == Fraction(n, figures.total)
    for side, n in either.items():
        assert figures.side_offered[side_of(side)] == n and figures.both_moments[side_of(side)] == both[side]
    # a side offered at both moments is offered at either moment once
    for s in ("player", "banker"):
        assert either[s] == moments[(s, "after_four_cards")] + moments[(s, "after_player_third")] - both[s]


def test_one_deck_figures_agree_too():
    rows, moments, _, _ = brute_force(1)
    figures = insurance_figures(decks=1)
    assert {f.row.id: [f.offered, f.wins, f.pushes, f.losses] for f in figures.rows} == rows
    assert {(s.value, m.value): n for (s, m), n in figures.moment_offered.items()} == \
        {(("P" if s == "player" else "B"), m): n for (s, m), n in moments.items()}


def test_hand_worked_limits_of_the_figures():
    # A banker 1 v player 1 offer wins only on a drawn 9 (one value of thirteen), ties on a
    # drawn 0 (four of thirteen): near 1/13 and 4/13 whatever the cards before.
    f = insurance_figures().row("banker:after_player_third:1:1")
    assert abs(f.win_probability - Fraction(1, 13)) < Fraction(1, 1000)
    assert abs(f.push_probability - Fraction(4, 13)) < Fraction(1, 1000)
    # Every insurance bet favours the house.
    assert all(f.house_edge > 0 for f in insurance_figures().rows)


def test_bad_deck_counts_are_refused():
    with pytest.raises(ValueError):
        insurance_figures(decks=0)


def test_the_docs_list_the_figures_as_computed():
    # The figures themselves are checked against the brute force above; this keeps the
    # page that lists them (docs/insurance.md) in step with them.
    from pathlib import Path

    from roads.insurance_probability import figures_markdown

    page = (Path(__file__).resolve().parents[2] / "docs" / "insurance.md").read_text(encoding="utf-8")
    start = page.index("-->\n", page.index("<!-- figures:")) + len("-->\n")
    assert page[start:page.index("<!-- end of figures -->")] == figures_markdown(insurance_figures())
