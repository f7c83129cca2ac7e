"""Exact probabilities of a round dealt from a fresh N-deck shoe, by combinatorial enumeration.

No Monte Carlo: every way the (at most) six cards of a round can come out of a fresh shoe,
without replacement, is counted exactly, in integers, the way the published tables count
them (Wizard of Odds, baccarat appendices: every round is extended to six ordered cards, so
an 8-deck round has 416P6 = 4,998,398,275,503,360 equally likely card sequences).

Two enumerations, each over the facts its bets need and nothing more:

* :func:`round_distribution`: by card *value* with multiplicities (value 0 has 16N cards,
  values 1-9 have 4N each), P1 B1 P2 B2 then the tableau's third cards. Leaves are grouped
  by :class:`RoundShape` (final totals, card counts, natural round). The first four cards
  are enumerated as two unordered two-card hands (55 x 55) with their orderings counted, so
  a round costs a few hundred thousand integer operations: well under a second, then cached.
* :func:`pair_distribution`: the first four cards by *rank and suit*, as patterns of which
  cards repeat a rank or an identical card (a few dozen leaves), for the pair bets.

Every bet of a :class:`roads.variants.Variant` is then priced by settling it
(:meth:`roads.variants.BetSpec.settle`) on each leaf: :func:`bet_return`, :func:`house_edge`.
Results are exact :class:`fractions.Fraction`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Callable, Mapping, NamedTuple

from roads.cards import CARDS_PER_DECK
from roads.outcome import RoundResult, Winner
from roads.tableau import BANKER_DRAWS_ON, is_natural, player_draws
from roads.variants import BetSpec, Variant, Verdict

ROUND_CARDS = 6
"""Cards every round is extended to for counting (the most a round can use)."""

PAIR_CARDS = 4
"""Cards the pair bets read: P1 B1 P2 B2."""


class RoundShape(NamedTuple):
    """The facts of a round that every non-pair bet reads.

    ``player_total`` / ``banker_total``: final totals 0-9; ``player_cards`` /
    ``banker_cards``: 2 or 3; ``natural``: either side's two-card total was 8 or 9.
    """

    player_total: int
    banker_total: int
    player_cards: int
    banker_cards: int
    natural: bool

    @property
    def winner(self) -> Winner:
        """Who won."""
        return Winner.of_totals(self.player_total, self.banker_total)

    def to_result(self) -> RoundResult:
        """A result-level :class:`RoundResult` with these facts (no pair facts: both ``False``)."""
        return RoundResult.from_result(
            self.winner, self.player_total, self.banker_total, natural=self.natural,
            player_card_count=self.player_cards, banker_card_count=self.banker_cards)


class PairShape(NamedTuple):
    """The pair facts of the first four cards: rank pairs and identical-card pairs per side."""

    player_pair: bool
    banker_pair: bool
    player_perfect_pair: bool
    banker_perfect_pair: bool

    def to_result(self) -> RoundResult:
        """A :class:`RoundResult` carrying only these pair facts (winner and totals are
        placeholders: a tie at 0-0; only pair bets may be settled on it)."""
        return RoundResult(winner=Winner.TIE, player_total=0, banker_total=0,
                           player_pair=self.player_pair, banker_pair=self.banker_pair, natural=False,
                           player_perfect_pair=self.player_perfect_pair,
                           banker_perfect_pair=self.banker_perfect_pair)


@dataclass(frozen=True)
class Distribution:
    """Exact counts of equally likely ordered card sequences, grouped by shape.

    ``decks``: decks in the fresh shoe; ``cards``: sequence length (6 for rounds, 4 for
    pairs); ``total``: ``(52N)! / (52N - cards)!``; ``counts``: shape -> number of sequences
    (they sum to ``total``).
    """

    decks: int
    cards: int
    total: int
    counts: Mapping[tuple, int]

    def count(self, event: Callable[[tuple], bool]) -> int:
        """Number of sequences whose shape satisfies ``event``."""
        return sum(n for shape, n in self.counts.items() if event(shape))

    def probability(self, event: Callable[[tuple], bool]) -> Fraction:
        """Exact probability that ``event(shape)`` holds."""
        return Fraction(self.count(event), self.total)


def _check_decks(decks: int) -> None:
    if isinstance(decks, bool) or not isinstance(decks, int) or not 1 <= decks <= 16:
        raise ValueError(f"decks must be an integer 1-16, got {decks!r}")


def ordered_draws(decks: int = 8, cards: int = ROUND_CARDS) -> int:
    """Ordered ways to draw ``cards`` cards from a fresh ``decks``-deck shoe: ``(52N)P(cards)``.

    8 decks, 6 cards: 416P6 = 4,998,398,275,503,360 (the total of the Wizard of Odds tables).
    Raises ``ValueError`` for a deck count outside 1-16.
    """
    _check_decks(decks)
    return math.perm(CARDS_PER_DECK * decks, cards)


def round_distribution(decks: int = 8) -> Distribution:
    """Exact distribution of :class:`RoundShape` for a round dealt from a fresh shoe.

    Each leaf (the cards a round actually uses, by value) is weighted by the number of
    ordered ways to draw those values and then any cards for the unused positions up to six,
    so counts are comparable with the published 416P6-based tables. Cached per deck count.
    Raises ``ValueError`` for a deck count outside 1-16.
    """
    _check_decks(decks)
    return _round_distribution(decks)


@lru_cache(maxsize=None)
def _round_distribution(decks: int) -> Distribution:
    size = CARDS_PER_DECK * decks
    counts = [16 * decks] + [4 * decks] * 9  # cards of each baccarat value 0-9
    # Ways to fill the positions a round leaves unused (up to six cards).
    tail = {used: math.perm(size - used, ROUND_CARDS - used) for used in (4, 5, 6)}
    acc: dict[RoundShape, int] = {}

    def add(shape: RoundShape, weight: int) -> None:
        acc[shape] = acc.get(shape, 0) + weight

    hands = [(a, b) for a in range(10) for b in range(a, 10)]  # unordered two-card hands by value
    for p1, p2 in hands:
        w_p = counts[p1] * (counts[p2] - (p1 == p2))
        orders_p = 1 if p1 == p2 else 2
        counts[p1] -= 1
        counts[p2] -= 1
        pt = (p1 + p2) % 10
        for b1, b2 in hands:
            c1 = counts[b1]
            w_b = c1 * (counts[b2] - (b1 == b2))
            if not w_b:
                continue
            orders = orders_p * (1 if b1 == b2 else 2)
            w4 = w_p * w_b * orders
            bt = (b1 + b2) % 10
            counts[b1] -= 1
            counts[b2] -= 1
            if is_natural(pt) or is_natural(bt):
                add(RoundShape(pt, bt, 2, 2, True), w4 * tail[4])
            elif not player_draws(pt):
                if bt <= 5:  # banker draws on 0-5 when the player stood
                    for b3 in range(10):
                        if counts[b3]:
                            add(RoundShape(pt, (bt + b3) % 10, 2, 3, False), w4 * counts[b3] * tail[5])
                else:
                    add(RoundShape(pt, bt, 2, 2, False), w4 * tail[4])
            else:
                draws_on = BANKER_DRAWS_ON[bt]
                for p3 in range(10):
                    w5 = counts[p3]
                    if not w5:
                        continue
                    pf = (pt + p3) % 10
                    if p3 in draws_on:
                        counts[p3] -= 1
                        for b3 in range(10):
                            if counts[b3]:
                                add(RoundShape(pf, (bt + b3) % 10, 3, 3, False), w4 * w5 * counts[b3] * tail[6])
                        counts[p3] += 1
                    else:
                        add(RoundShape(pf, bt, 3, 2, False), w4 * w5 * tail[5])
            counts[b1] += 1
            counts[b2] += 1
        counts[p1] += 1
        counts[p2] += 1
    total = math.perm(size, ROUND_CARDS)
    if sum(acc.values()) != total:  # pragma: no cover - a broken enumeration, not bad input
        raise AssertionError(f"round enumeration covers {sum(acc.values())} of {total} sequences")
    return Distribution(decks=decks, cards=ROUND_CARDS, total=total, counts=dict(acc))


def pair_distribution(decks: int = 8) -> Distribution:
    """Exact distribution of :class:`PairShape` over the first four cards (P1 B1 P2 B2).

    Enumerates patterns instead of cards: each next card is a copy of a card already seen,
    a new card of a rank already seen, or a card of a new rank, weighted by how many such
    cards remain (13 ranks x 4 suits x N copies). Cached per deck count. Raises
    ``ValueError`` for a deck count outside 1-16.
    """
    _check_decks(decks)
    return _pair_distribution(decks)


@lru_cache(maxsize=None)
def _pair_distribution(decks: int) -> Distribution:
    acc: dict[PairShape, int] = {}
    # A pattern is a list of (rank label, identity label) per position; labels count up.

    def walk(cards: list[tuple[int, int]], weight: int) -> None:
        if len(cards) == PAIR_CARDS:
            (pr1, pi1), (br1, bi1), (pr2, pi2), (br2, bi2) = cards
            shape = PairShape(pr1 == pr2, br1 == br2, pi1 == pi2, bi1 == bi2)
            acc[shape] = acc.get(shape, 0) + weight
            return
        identities: dict[int, tuple[int, int]] = {}  # identity -> (rank, copies used)
        suits_of_rank: dict[int, set[int]] = {}
        for rank, ident in cards:
            r, used = identities.get(ident, (rank, 0))
            identities[ident] = (r, used + 1)
            suits_of_rank.setdefault(rank, set()).add(ident)
        for ident, (rank, used) in identities.items():  # another copy of a card already seen
            if decks - used:
                walk(cards + [(rank, ident)], weight * (decks - used))
        new_ident = len(identities)
        for rank, idents in suits_of_rank.items():  # a new suit of a rank already seen
            if 4 - len(idents):
                walk(cards + [(rank, new_ident)], weight * (4 - len(idents)) * decks)
        if 13 - len(suits_of_rank):  # a card of a rank not seen yet
            walk(cards + [(len(suits_of_rank), new_ident)], weight * (13 - len(suits_of_rank)) * 4 * decks)

    walk([], 1)
    total = math.perm(CARDS_PER_DECK * decks, PAIR_CARDS)
    if sum(acc.values()) != total:  # pragma: no cover
        raise AssertionError(f"pair enumeration covers {sum(acc.values())} of {total} sequences")
    return Distribution(decks=decks, cards=PAIR_CARDS, total=total, counts=dict(acc))


# ---------------------------------------------------------------------------- events
def winner_probabilities(decks: int = 8) -> dict[Winner, Fraction]:
    """Exact probability of a banker win, a player win and a tie for a fresh shoe."""
    d = round_distribution(decks)
    return {w: d.probability(lambda s, w=w: s.winner is w) for w in (Winner.BANKER, Winner.PLAYER, Winner.TIE)}


EVENTS: dict[str, tuple[str, Callable[[tuple], bool]]] = {
    "banker": ("round", lambda s: s.winner is Winner.BANKER),
    "player": ("round", lambda s: s.winner is Winner.PLAYER),
    "tie": ("round", lambda s: s.winner is Winner.TIE),
    "natural": ("round", lambda s: s.natural),
    "player_natural": ("round", lambda s: s.natural and s.player_total >= 8),
    "banker_natural": ("round", lambda s: s.natural and s.banker_total >= 8),
    "small": ("round", lambda s: s.player_cards + s.banker_cards == 4),
    "big": ("round", lambda s: s.player_cards + s.banker_cards > 4),
    "banker_six_two_cards": ("round", lambda s: s.winner is Winner.BANKER and s.banker_total == 6
                             and s.banker_cards == 2),
    "banker_six_three_cards": ("round", lambda s: s.winner is Winner.BANKER and s.banker_total == 6
                               and s.banker_cards == 3),
    "player_pair": ("pair", lambda s: s.player_pair),
    "banker_pair": ("pair", lambda s: s.banker_pair),
    "either_pair": ("pair", lambda s: s.player_pair or s.banker_pair),
    "perfect_pair": ("pair", lambda s: s.player_perfect_pair or s.banker_perfect_pair),
    "both_perfect_pairs": ("pair", lambda s: s.player_perfect_pair and s.banker_perfect_pair),
}
"""Named events: name -> (which distribution, predicate on its shape)."""


def event_probability(name: str, decks: int = 8) -> Fraction:
    """Exact probability of the named event (a key of :data:`EVENTS`) for a fresh shoe.

    Raises ``KeyError`` naming an unknown event, ``ValueError`` for a bad deck count.
    """
    try:
        kind, event = EVENTS[name]
    except KeyError:
        raise KeyError(f"unknown event {name!r} (known: {', '.join(EVENTS)})") from None
    dist = round_distribution(decks) if kind == "round" else pair_distribution(decks)
    return dist.probability(event)


def event_probabilities(decks: int = 8) -> dict[str, Fraction]:
    """Every event of :data:`EVENTS` with its exact probability."""
    return {name: event_probability(name, decks) for name in EVENTS}


# ---------------------------------------------------------------------------- bets
@lru_cache(maxsize=None)
def _results(kind: str, decks: int) -> tuple[tuple[RoundResult, int], ...]:
    dist = round_distribution(decks) if kind == "round" else pair_distribution(decks)
    return tuple((shape.to_result(), n) for shape, n in dist.counts.items())


def settlement_counts(spec: BetSpec, decks: int = 8) -> tuple[dict[tuple[Verdict, str | None], int], int]:
    """How often ``spec`` settles each way on a fresh shoe: ``({(verdict, case): count}, total)``.

    Counts are ordered card sequences (out of ``total``), e.g. for a dragon bonus
    ``(Verdict.WIN, "margin_9")``. Raises ``ValueError`` for a bad deck count.
    """
    _check_decks(decks)
    kind = "pair" if spec.rule.reads_pairs else "round"
    dist_total = ordered_draws(decks, PAIR_CARDS if kind == "pair" else ROUND_CARDS)
    out: dict[tuple[Verdict, str | None], int] = {}
    for result, n in _results(kind, decks):
        s = spec.settle(result)
        if s.verdict is Verdict.UNKNOWN:  # pragma: no cover - every enumerated fact is known
            raise AssertionError(f"bet {spec.bet!r} unknown on an enumerated round {result!r}")
        key = (s.verdict, s.case)
        out[key] = out.get(key, 0) + n
    return out, dist_total


def bet_return(spec: BetSpec, decks: int = 8) -> Fraction:
    """Exact expected net result per unit staked on ``spec`` for a round of a fresh shoe.

    Negative for the house's advantage: the banker bet with 5% commission gives about
    -0.010579 with 8 decks. Payouts are read as the decimals they are written as (0.95 =
    19/20). Raises ``ValueError`` for a bad deck count.
    """
    counts, total = settlement_counts(spec, decks)
    ev = Fraction(0)
    for (verdict, case), n in counts.items():
        if verdict is Verdict.WIN:
            ev += Fraction(repr(spec.pays[case])) * n  # type: ignore[index]
        elif verdict is Verdict.LOSE:
            ev -= n
    return ev / total


def house_edge(spec: BetSpec, decks: int = 8) -> Fraction:
    """The house edge of ``spec``: minus :func:`bet_return` (0.010579... for banker, 8 decks)."""
    return -bet_return(spec, decks)


def house_edges(variant: Variant, decks: int | None = None) -> dict[str, Fraction]:
    """House edge of every bet of ``variant`` (with its own deck count unless ``decks``)."""
    n = variant.decks if decks is None else decks
    return {spec.bet: house_edge(spec, n) for spec in variant.bets}
