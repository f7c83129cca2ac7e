"""Exact odds of the insurance bets (docs/domain.md section 3a) for a fresh N-deck shoe, by
enumeration.

The same exact count as :mod:`roads.probability`: every round is extended to six ordered
cards (8 decks: 416P6 = 4,998,398,275,503,360 equally likely sequences), the first four
cards are enumerated as two unordered two-card hands by *value* (value 0 has 16N cards,
1-9 have 4N each) with their orderings counted, then the tableau's third cards. Each leaf
knows the four-card totals (the first insurance moment), the player's three-card total and
whether the banker draws (the second moment) and the final totals (the settlement), so
one pass counts, for every row of an :class:`roads.insurance.InsuranceTable`, how often it
is offered and how often an offer at it wins, pushes and loses. Integers throughout;
results are :class:`fractions.Fraction`. Well under a second for 8 decks, then cached.

Conventions (the figures in ``docs/insurance.md``):

* ``probability``: the chance that a round of a fresh shoe makes the offer (per round dealt,
  whether or not anyone bets).
* ``win_probability`` / ``push_probability`` / ``lose_probability``: *given* the offer, over
  every way the round can reach it from a fresh shoe and go on from there.
* ``expected_return``: the expected net result per unit staked on insurance, given the
  offer: ``P(win | offer) x odds - P(lose | offer)``; pushes count 0. The stake is within
  the cap (at most main bet / odds, :meth:`roads.insurance.InsuranceOffer.max_stake`), so
  the cap never cuts a win. ``house_edge`` is its negative.

Standard library only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any, Mapping

from roads.cards import CARDS_PER_DECK
from roads.insurance import SEED001_INSURANCE, SIDES, InsuranceRow, InsuranceTable, Moment, settle_offer
from roads.outcome import Winner
from roads.probability import ROUND_CARDS, ordered_draws
from roads.tableau import BANKER_DRAWS_ON, is_natural, player_draws
from roads.verdict import Verdict


@dataclass(frozen=True)
class OfferFigures:
    """Exact figures of one insurance row for a fresh shoe.

    ``row``: the pay-table row; ``decks``: decks in the shoe; ``total``: ordered six-card
    sequences, ``(52N)! / (52N - 6)!``; ``offered``: sequences whose round makes this offer;
    ``wins`` / ``pushes`` / ``losses``: of those, how many settle each way (``wins`` includes
    a ``tie_pays`` row's paying ties, also counted alone in ``tie_wins``).
    """

    row: InsuranceRow
    decks: int
    total: int
    offered: int
    wins: int
    pushes: int
    losses: int
    tie_wins: int

    @property
    def probability(self) -> Fraction:
        """Chance that a round of a fresh shoe makes this offer."""
        return Fraction(self.offered, self.total)

    @property
    def win_probability(self) -> Fraction:
        """Chance an offer at this row wins (insured side loses, or a paying tie), given the offer."""
        return Fraction(self.wins, self.offered)

    @property
    def push_probability(self) -> Fraction:
        """Chance an offer at this row pushes (a tie that does not pay), given the offer."""
        return Fraction(self.pushes, self.offered)

    @property
    def lose_probability(self) -> Fraction:
        """Chance an offer at this row loses (the insured side wins), given the offer."""
        return Fraction(self.losses, self.offered)

    @property
    def expected_return(self) -> Fraction:
        """Expected net result per unit staked at this offer: ``P(win) x odds - P(lose)``, given the offer."""
        return (self.row.odds * self.wins - self.losses) / self.offered

    @property
    def house_edge(self) -> Fraction:
        """Minus :attr:`expected_return`: the house's share of each unit staked at this offer."""
        return -self.expected_return

    def to_json(self) -> dict[str, Any]:
        """Row id, label, payout and the figures as floats (``probability``, ``win``, ``push``,
        ``lose``, ``house_edge``) plus the exact counts (``offered``, ``wins``, ``pushes``,
        ``losses``, ``total``)."""
        return {"row": self.row.id, "label": self.row.label, "payout": self.row.payout,
                "probability": float(self.probability), "win": float(self.win_probability),
                "push": float(self.push_probability), "lose": float(self.lose_probability),
                "house_edge": float(self.house_edge), "offered": self.offered, "wins": self.wins,
                "pushes": self.pushes, "losses": self.losses, "total": self.total}


@dataclass(frozen=True)
class InsuranceFigures:
    """Exact insurance figures of one table for a fresh shoe.

    ``table``: the insurance table; ``decks``; ``total``: ordered six-card sequences;
    ``rows``: :class:`OfferFigures` per row, in the table's order; ``moment_offered``:
    ``{(side, moment): sequences}`` whose round offers that side's insurance at that moment;
    ``side_offered``: ``{side: sequences}`` whose round offers that side's insurance at
    either moment (a round offering both moments counts once); ``both_moments``: ``{side:
    sequences}`` offering that side at both moments.
    """

    table: InsuranceTable
    decks: int
    total: int
    rows: tuple[OfferFigures, ...]
    moment_offered: Mapping[tuple[Winner, Moment], int]
    side_offered: Mapping[Winner, int]
    both_moments: Mapping[Winner, int]

    def row(self, row_id: str) -> OfferFigures:
        """The figures of the row with id ``row_id``; raises ``KeyError`` quoting an unknown id."""
        for f in self.rows:
            if f.row.id == row_id:
                return f
        raise KeyError(f"no insurance row {row_id!r} in table {self.table.id!r}")

    def moment_probability(self, side: Winner, moment: Moment) -> Fraction:
        """Chance that a round offers ``side``'s insurance at ``moment``."""
        return Fraction(self.moment_offered[(side, moment)], self.total)

    def side_probability(self, side: Winner) -> Fraction:
        """Chance that a round offers ``side``'s insurance at least once."""
        return Fraction(self.side_offered[side], self.total)

    def moment_expected_return(self, side: Winner, moment: Moment) -> Fraction:
        """Expected net result per unit staked on every ``side`` offer at ``moment`` (pooled
        over its rows, each offer weighted by how often it is made)."""
        rows = [f for f in self.rows if f.row.side is side and f.row.moment is moment]
        return sum((f.row.odds * f.wins - f.losses for f in rows), Fraction(0)) / sum(f.offered for f in rows)


def insurance_figures(table: InsuranceTable = SEED001_INSURANCE, decks: int = 8) -> InsuranceFigures:
    """Exact :class:`InsuranceFigures` of ``table`` for a fresh ``decks``-deck shoe (cached).

    Raises ``ValueError`` for a deck count outside 1-16.
    """
    ordered_draws(decks)  # checks the deck count
    return _figures(table, decks)


@lru_cache(maxsize=None)
def _figures(table: InsuranceTable, decks: int) -> InsuranceFigures:
    size = CARDS_PER_DECK * decks
    counts = [16 * decks] + [4 * decks] * 9  # cards of each baccarat value 0-9
    tail = {used: math.perm(size - used, ROUND_CARDS - used) for used in (4, 5, 6)}
    rows = table.rows
    index = {row: i for i, row in enumerate(rows)}
    # outcome[i][player final][banker final]: 0 win, 1 push, 2 lose, 3 paying tie.
    outcome = []
    for row in rows:
        grid = []
        for pf in range(10):
            line = []
            for bf in range(10):
                s = settle_offer(row, pf, bf)
                line.append(1 if s.verdict is Verdict.PUSH else 2 if s.verdict is Verdict.LOSE
                            else 3 if pf == bf else 0)
            grid.append(line)
        outcome.append(grid)
    tally = [[0, 0, 0, 0] for _ in rows]  # wins, pushes, losses, paying ties (in wins too)
    offered = [0] * len(rows)
    moment_offered = {(side, m): 0 for side in SIDES for m in Moment}
    side_offered = {side: 0 for side in SIDES}
    both = {side: 0 for side in SIDES}

    def first_rows(pt: int, bt: int) -> list[int]:
        return [index[r] for side in SIDES
                if (r := table.row(side, Moment.AFTER_FOUR_CARDS, pt, bt)) is not None]

    hands = [(a, b) for a in range(10) for b in range(a, 10)]  # unordered two-card hands by value
    for p1, p2 in hands:
        w_p = counts[p1] * (counts[p2] - (p1 == p2))
        orders_p = 1 if p1 == p2 else 2
        counts[p1] -= 1
        counts[p2] -= 1
        pt = (p1 + p2) % 10
        for b1, b2 in hands:
            w_b = counts[b1] * (counts[b2] - (b1 == b2))
            if not w_b:
                continue
            bt = (b1 + b2) % 10
            if is_natural(pt) or is_natural(bt):
                continue  # no insurance on a natural round
            w4 = w_p * w_b * orders_p * (1 if b1 == b2 else 2)
            counts[b1] -= 1
            counts[b2] -= 1
            # leaves: (player final, banker final, weight, second-moment row indexes)
            leaves: list[tuple[int, int, int, tuple[int, ...]]] = []
            if not player_draws(pt):
                if bt <= 5:  # the banker draws on 0-5 when the player stood
                    for b3 in range(10):
                        if counts[b3]:
                            leaves.append((pt, (bt + b3) % 10, w4 * counts[b3] * tail[5], ()))
                else:
                    leaves.append((pt, bt, w4 * tail[4], ()))
            else:
                draws_on = BANKER_DRAWS_ON[bt]
                for p3 in range(10):
                    w5 = counts[p3]
                    if not w5:
                        continue
                    pf = (pt + p3) % 10
                    if p3 in draws_on:
                        second = tuple(index[r] for side in SIDES
                                       if (r := table.row(side, Moment.AFTER_PLAYER_THIRD, pf, bt)) is not None)
                        counts[p3] -= 1
                        for b3 in range(10):
                            if counts[b3]:
                                leaves.append((pf, (bt + b3) % 10, w4 * w5 * counts[b3] * tail[6], second))
                        counts[p3] += 1
                    else:
                        leaves.append((pf, bt, w4 * w5 * tail[5], ()))
            first = first_rows(pt, bt) if (player_draws(pt) or bt <= 5) else []
            first_sides = {rows[i].side for i in first}
            for pf, bf, w, second in leaves:
                for i in first + list(second):
                    offered[i] += w
                    k = outcome[i][pf][bf]
                    tally[i][0 if k == 3 else k] += w
                    if k == 3:
                        tally[i][3] += w
                second_sides = {rows[i].side for i in second}
                for side in SIDES:
                    one, two = side in first_sides, side in second_sides
                    if one:
                        moment_offered[(side, Moment.AFTER_FOUR_CARDS)] += w
                    if two:
                        moment_offered[(side, Moment.AFTER_PLAYER_THIRD)] += w
                    if one or two:
                        side_offered[side] += w
                    if one and two:
                        both[side] += w
            counts[b1] += 1
            counts[b2] += 1
        counts[p1] += 1
        counts[p2] += 1
    total = math.perm(size, ROUND_CARDS)
    figures = tuple(OfferFigures(row=row, decks=decks, total=total, offered=offered[i], wins=tally[i][0],
                                 pushes=tally[i][1], losses=tally[i][2], tie_wins=tally[i][3])
                    for i, row in enumerate(rows))
    for f in figures:
        if f.wins + f.pushes + f.losses != f.offered:  # pragma: no cover - a broken enumeration
            raise AssertionError(f"row {f.row.id!r}: settlements do not add up to the offers")
    return InsuranceFigures(table=table, decks=decks, total=total, rows=figures,
                            moment_offered=dict(moment_offered), side_offered=dict(side_offered),
                            both_moments=dict(both))


# ------------------------------------------------------------------------ the docs' tables
_MOMENT_TEXT = {Moment.AFTER_FOUR_CARDS: "after 4 cards", Moment.AFTER_PLAYER_THIRD: "after player's 3rd"}


def figures_markdown(figures: InsuranceFigures) -> str:
    """The figures as the Markdown tables of ``docs/insurance.md`` (decimals to 6 places,
    house edges in percent to 4, exact fractions in lowest terms)."""
    lines = [f"Fresh {figures.decks}-deck shoe; {figures.total:,} ordered six-card sequences.", "",
             "| insurance | moment | row | pays | P(offer) | P(win \\| offer) | P(push \\| offer) "
             "| P(lose \\| offer) | house edge |",
             "|---|---|---|---|---|---|---|---|---|"]
    for f in figures.rows:
        r = f.row
        star = "*" if r.tie_pays else ""
        lines.append(f"| {'Player' if r.side is Winner.PLAYER else 'Banker'} | {_MOMENT_TEXT[r.moment]} "
                     f"| {r.label}{star} | {r.payout:g}:1 | {float(f.probability):.6f} "
                     f"| {float(f.win_probability):.6f} | {float(f.push_probability):.6f} "
                     f"| {float(f.lose_probability):.6f} | {float(f.house_edge) * 100:.4f}% |")
    lines += ["", "Exact, in lowest terms:", "",
              "| row | P(offer) | house edge |", "|---|---|---|"]
    for f in figures.rows:
        lines.append(f"| `{f.row.id}` | {f.probability} | {f.house_edge} |")
    lines += ["", "By side and moment (house edge pooled over the moment's offers, each weighted by "
              "how often it is made):", "",
              "| insurance | moment | P(offer) | house edge | exact P(offer) |", "|---|---|---|---|---|"]
    for side in SIDES:
        name = "Player" if side is Winner.PLAYER else "Banker"
        for m in Moment:
            p = figures.moment_probability(side, m)
            edge = -figures.moment_expected_return(side, m)
            lines.append(f"| {name} | {_MOMENT_TEXT[m]} | {float(p):.6f} | {float(edge) * 100:.4f}% | {p} |")
        p_any = figures.side_probability(side)
        p_both = Fraction(figures.both_moments[side], figures.total)
        lines.append(f"| {name} | either moment | {float(p_any):.6f} | | {p_any} |")
        lines.append(f"| {name} | both moments | {float(p_both):.6f} | | {p_both} |")
    return "\n".join(lines) + "\n"


def main() -> None:  # pragma: no cover - prints the docs' tables
    """``python -m roads.insurance_probability [decks]``: print :func:`figures_markdown`."""
    import sys

    decks = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    print(figures_markdown(insurance_figures(SEED001_INSURANCE, decks)), end="")


if __name__ == "__main__":  # pragma: no cover
    main()
