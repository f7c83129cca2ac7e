"""Insurance bets (docs/domain.md section 3a): offers made mid-round, and how they settle.

Document 001's table ("baccarat with insurance") lets a player who has a main bet on one side
insure it *during* the round: the insurance pays when the insured side **loses**, at odds read
from a pay table by the totals on the table at that moment. This module holds those pay tables
as data (:class:`InsuranceRow`, :class:`InsuranceTable`, :data:`SEED001_INSURANCE`), finds the
offers a round in progress makes (:func:`insurance_offers`, :func:`offers_made`) and settles
them on the final result (:meth:`InsuranceOffer.settle`, with the cap in
:meth:`InsuranceSettlement.amount`).

The document's rules and pay tables, in Thai with our English, and how each rule is read, are
``docs/insurance.md`` ("Document 001's rules", "Document 001's pay tables", "The rules as
modelled" 1-5):

* who may bet: a main bet on the insured side and none on the other (:func:`insurance_open`);
* when: after four cards when a third card is due, and after the player's third card when
  the banker must draw (:class:`Moment`, :func:`round_moment`), at totals that match a row of
  that moment's table; both moments of one round may offer the same side, each its own bet;
* what it pays: the row's odds, to 1, when the insured side loses; the stake is lost when it
  wins; a tie pushes, except the two starred rows (:attr:`InsuranceRow.tie_pays`);
* the cap: the amount won on one bet is at most the main bet on the insured side
  (:meth:`InsuranceOffer.max_stake`, :meth:`InsuranceSettlement.amount`), per bet.

Standard library only.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Mapping, Sequence

from roads.cards import Card, hand_total
from roads.outcome import RoundResult, Winner
from roads.tableau import TableauError, banker_draws, is_natural, player_draws
from roads.verdict import Verdict

SIDES: tuple[Winner, Winner] = (Winner.PLAYER, Winner.BANKER)
"""The sides a bet can insure, Player first (the pay tables' order, docs/insurance.md)."""


class InsuranceError(ValueError):
    """A bad insurance argument: ``field`` names it (``"stake"``, ``"main_stake"``,
    ``"side"``, ``"round"``, ``"row"``...); the message quotes the value."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class Moment(str, enum.Enum):
    """The two moments of a round at which insurance is offered (docs/domain.md section 3a; values
    are JSON ids)."""

    AFTER_FOUR_CARDS = "after_four_cards"
    """หลังจากแจกไพ่ 4 ใบ: four cards are out, no natural, and the player or the banker (or
    both) must draw a third card. Totals are both sides' two-card totals."""
    AFTER_PLAYER_THIRD = "after_player_third"
    """หลังจากฝั่งเพลเยอร์ดึงไพ่ใบที่ 3 แล้ว: the player has drawn a third card and the banker
    must draw one. Totals: the player's three-card total, the banker's two-card total."""


def _side_name(side: Winner) -> str:
    return "player" if side is Winner.PLAYER else "banker"


def _check_side(side: Any) -> Winner:
    if side in (Winner.PLAYER, "player", "P"):
        return Winner.PLAYER
    if side in (Winner.BANKER, "banker", "B"):
        return Winner.BANKER
    raise InsuranceError("side", f"side must be Winner.PLAYER or Winner.BANKER ('player'/'banker'), got {side!r}")


def _span(totals: frozenset[int]) -> str:
    lo, hi = min(totals), max(totals)
    return str(lo) if lo == hi else f"{lo}-{hi}"


@dataclass(frozen=True, slots=True)
class InsuranceRow:
    """One row of an insurance pay table.

    ``side``: the insured side (``Winner.PLAYER`` or ``Winner.BANKER``); ``moment``: when the
    row applies; ``insured_totals`` / ``other_totals``: the insured side's and the other
    side's totals at that moment for which the row is offered (consecutive totals 0-9,
    written "5" or "0-4" in the pay tables); ``payout``: odds to 1 paid when the insured side
    loses; ``tie_pays``: a tie of the round pays ``payout`` too instead of pushing (the two
    starred rows, docs/insurance.md "The rules as modelled" 4).

    Raises :class:`InsuranceError` (``field="row"``) for a side that is not Player/Banker,
    a moment that is not a :class:`Moment`, empty or non-consecutive totals or totals
    outside 0-9, or a payout that is not a number > 0.
    """

    side: Winner
    moment: Moment
    insured_totals: frozenset[int]
    other_totals: frozenset[int]
    payout: float
    tie_pays: bool = False

    def __post_init__(self) -> None:
        if self.side not in SIDES:
            raise InsuranceError("row", f"insured side must be Winner.PLAYER or Winner.BANKER, got {self.side!r}")
        if not isinstance(self.moment, Moment):
            raise InsuranceError("row", f"moment must be a Moment, got {self.moment!r}")
        for name in ("insured_totals", "other_totals"):
            totals = frozenset(getattr(self, name))
            if not totals or any(isinstance(t, bool) or not isinstance(t, int) or not 0 <= t <= 9 for t in totals) \
                    or len(totals) != max(totals) - min(totals) + 1:
                raise InsuranceError("row", f"{name} must be consecutive totals 0-9, got {getattr(self, name)!r}")
            object.__setattr__(self, name, totals)
        p = self.payout
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not p > 0:
            raise InsuranceError("row", f"payout must be a number > 0, got {p!r}")
        object.__setattr__(self, "payout", float(p))

    @property
    def id(self) -> str:
        """Stable id ``"<side>:<moment>:<insured totals>:<other totals>"``, e.g.
        ``"player:after_four_cards:6:0-5"`` (also the settlement ``case`` of a win)."""
        return f"{_side_name(self.side)}:{self.moment.value}:{_span(self.insured_totals)}:{_span(self.other_totals)}"

    @property
    def label(self) -> str:
        """English label, insured side first, as the pay tables read: ``"Player 6 v Banker 0-5"``."""
        other = Winner.BANKER if self.side is Winner.PLAYER else Winner.PLAYER
        return (f"{_side_name(self.side).title()} {_span(self.insured_totals)} v "
                f"{_side_name(other).title()} {_span(self.other_totals)}")

    @property
    def odds(self) -> Fraction:
        """``payout`` as an exact fraction, read as the decimal it is written as (1.5 = 3/2)."""
        return Fraction(repr(self.payout))

    def matches(self, player_total: int, banker_total: int) -> bool:
        """Whether the row applies to these totals at its moment (player's and banker's)."""
        insured, other = (player_total, banker_total) if self.side is Winner.PLAYER else (banker_total, player_total)
        return insured in self.insured_totals and other in self.other_totals

    def to_json(self) -> dict[str, Any]:
        """``{"id", "side", "moment", "insured_totals": [..], "other_totals": [..], "payout",
        "tie_pays", "label"}`` (totals sorted)."""
        return {"id": self.id, "side": _side_name(self.side), "moment": self.moment.value,
                "insured_totals": sorted(self.insured_totals), "other_totals": sorted(self.other_totals),
                "payout": self.payout, "tie_pays": self.tie_pays, "label": self.label}


@dataclass(frozen=True)
class InsuranceTable:
    """A table's insurance pay tables: every :class:`InsuranceRow`, both sides, both moments.

    ``id``: stable id (``"seed001"``); ``rows``: the rows in the pay tables' order; ``source``:
    the document and section they come from (docs/insurance.md). Lookup: :meth:`row`. Raises :class:`InsuranceError`
    (``field="row"``) for an empty id, an item that is not an :class:`InsuranceRow`, or two
    rows of one side and moment that cover the same totals.
    """

    id: str
    rows: tuple[InsuranceRow, ...]
    source: str = ""
    _lookup: Mapping[tuple[Winner, Moment, int, int], InsuranceRow] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise InsuranceError("row", f"insurance table id must be a non-empty string, got {self.id!r}")
        object.__setattr__(self, "rows", tuple(self.rows))
        lookup: dict[tuple[Winner, Moment, int, int], InsuranceRow] = {}
        for row in self.rows:
            if not isinstance(row, InsuranceRow):
                raise InsuranceError("row", f"insurance table {self.id!r}: rows must be InsuranceRow, got {row!r}")
            for mine in row.insured_totals:
                for theirs in row.other_totals:
                    pt, bt = (mine, theirs) if row.side is Winner.PLAYER else (theirs, mine)
                    key = (row.side, row.moment, pt, bt)
                    if key in lookup:
                        raise InsuranceError("row", f"insurance table {self.id!r}: rows {lookup[key].id!r} and "
                                                    f"{row.id!r} both cover player {pt}, banker {bt}")
                    lookup[key] = row
        object.__setattr__(self, "_lookup", MappingProxyType(lookup))

    def row(self, side: Winner, moment: Moment, player_total: int, banker_total: int) -> InsuranceRow | None:
        """The row insuring ``side`` at ``moment`` with these totals (player's and banker's at
        that moment), ``None`` when the table offers nothing there."""
        return self._lookup.get((side, moment, player_total, banker_total))

    def rows_of(self, side: Winner, moment: Moment) -> tuple[InsuranceRow, ...]:
        """The rows of one side and moment, in the table's order."""
        return tuple(r for r in self.rows if r.side is side and r.moment is moment)

    def offers(self, player_cards: Sequence[Card], banker_cards: Sequence[Card]) -> tuple["InsuranceOffer", ...]:
        """The offers open now in a round in progress: :func:`insurance_offers` with this table."""
        return insurance_offers(player_cards, banker_cards, self)

    def to_json(self) -> dict[str, Any]:
        """``{"id", "source", "rows": [InsuranceRow.to_json(), ...]}``."""
        return {"id": self.id, "source": self.source, "rows": [r.to_json() for r in self.rows]}


def _row(side: Winner, moment: Moment, insured: str, other: str, payout: float, tie_pays: bool = False) -> InsuranceRow:
    def totals(text: str) -> frozenset[int]:
        lo, _, hi = text.partition("-")
        return frozenset(range(int(lo), int(hi or lo) + 1))
    return InsuranceRow(side, moment, totals(insured), totals(other), payout, tie_pays)


_P, _B = Winner.PLAYER, Winner.BANKER
_FOUR, _THIRD = Moment.AFTER_FOUR_CARDS, Moment.AFTER_PLAYER_THIRD

SEED001_INSURANCE = InsuranceTable(
    id="seed001",
    rows=(
        # ตารางการจ่ายบาคาร่าประกันภัย; หลังจากแจกไพ่ 4 ใบ, การเดิมพันประกันภัยเพลเยอร์:
        # แต้มฝั่งเพลเยอร์ | แต้มฝั่งแบงเกอร์ | อัตราจ่าย (เมื่อฝั่งเพลเยอร์แพ้)
        _row(_P, _FOUR, "5", "4", 1.5),
        _row(_P, _FOUR, "6", "0-5", 2.5),
        _row(_P, _FOUR, "7", "0-5", 4),
        # ฝั่งเพลเยอร์ดึงไพ่ใบที่ 3 แล้ว, การเดิมพันประกันภัยเพลเยอร์ (9*: a 9-9 tie pays)
        _row(_P, _THIRD, "5", "0-4", 1.5),
        _row(_P, _THIRD, "6", "0-5", 2.5),
        _row(_P, _THIRD, "7", "0-6", 4),
        _row(_P, _THIRD, "8", "0-6", 10),
        _row(_P, _THIRD, "9", "0-6", 10, tie_pays=True),
        # หลังจากแจกไพ่ 4 ใบ, การเดิมพันประกันภัยแบงเกอร์:
        # แต้มฝั่งแบงเกอร์ | แต้มฝั่งเพลเยอร์ | อัตราจ่าย (เมื่อฝั่งแบงเกอร์แพ้)
        _row(_B, _FOUR, "4", "0-3", 1.5),
        _row(_B, _FOUR, "5", "0-4", 1.5),
        _row(_B, _FOUR, "6", "0-5", 2.5),
        _row(_B, _FOUR, "7", "0-5", 4),
        # ฝั่งเพลเยอร์ดึงไพ่ใบที่ 3 แล้ว, การเดิมพันประกันภัยแบงเกอร์ (0*: a 0-0 tie pays)
        _row(_B, _THIRD, "1-6", "0", 10, tie_pays=True),
        _row(_B, _THIRD, "1", "1", 6),
        _row(_B, _THIRD, "2-6", "1", 10),
        _row(_B, _THIRD, "3-6", "2", 4),
        _row(_B, _THIRD, "4", "3", 2.5),
    ),
    source="seed 001, section การประกันภัย (ตารางการจ่ายบาคาร่าประกันภัย)",
)
"""Document 001's insurance pay tables, row by row as the document prints them
(docs/insurance.md "Document 001's pay tables")."""

INSURANCE_TABLES: Mapping[str, InsuranceTable] = MappingProxyType({SEED001_INSURANCE.id: SEED001_INSURANCE})
"""Insurance tables by id (a :class:`roads.variants.Variant` names its table by id)."""


def get_insurance_table(table_id: str) -> InsuranceTable:
    """The insurance table with id ``table_id``; raises :class:`InsuranceError`
    (``field="insurance"``) quoting an unknown id."""
    try:
        return INSURANCE_TABLES[table_id]
    except (KeyError, TypeError):
        raise InsuranceError("insurance", f"unknown insurance table {table_id!r} "
                                          f"(known: {', '.join(INSURANCE_TABLES)})") from None


# ------------------------------------------------------------------------ the round in progress
_DEAL_STATES = frozenset({(0, 0), (1, 0), (1, 1), (2, 1), (2, 2), (3, 2), (2, 3), (3, 3)})


def round_moment(player_cards: Sequence[Card], banker_cards: Sequence[Card]) -> Moment | None:
    """The insurance moment a round in progress is at, or ``None`` (not at either moment).

    ``player_cards`` / ``banker_cards``: the cards dealt so far to each side, in deal order
    (P1 B1 P2 B2, then the player's third card, then the banker's). Returns
    :attr:`Moment.AFTER_FOUR_CARDS` with 2 + 2 cards, no natural and a third card due;
    :attr:`Moment.AFTER_PLAYER_THIRD` with the player's third card out and the banker due
    to draw; ``None`` otherwise (fewer than four cards, a complete round, a banker who
    stands).

    Raises :class:`roads.tableau.TableauError` naming the rule when the cards cannot be a
    round in progress: ``"not_a_card"``, ``"deal_order"`` (card counts that deal order
    P, B, P, B, P3, B3 cannot give, e.g. 3 + 1), ``"natural"`` (a third card after a
    natural), ``"player_stands_6_7"``, ``"player_draws_0_5"`` (the banker's third card
    before the player's due one), ``"banker_stands"``.
    """
    player, banker = tuple(player_cards), tuple(banker_cards)
    for side, cards in (("player", player), ("banker", banker)):
        for card in cards:
            if not isinstance(card, Card):
                raise TableauError("not_a_card", f"{side} card {card!r} is not a Card (parse it with Card.parse)")
    if (len(player), len(banker)) not in _DEAL_STATES:
        raise TableauError("deal_order", f"player {len(player)} and banker {len(banker)} cards cannot be dealt "
                                         f"in the order P, B, P, B, then third cards")
    if len(player) < 2 or len(banker) < 2:
        return None
    pt, bt = hand_total(player[:2]), hand_total(banker[:2])
    shown = f" (player {' '.join(map(str, player))}; banker {' '.join(map(str, banker))})"
    if is_natural(pt) or is_natural(bt):
        if len(player) == 3 or len(banker) == 3:
            who, total = ("player", pt) if is_natural(pt) else ("banker", bt)
            raise TableauError("natural", f"{who} has a natural {total}: both hands stand on two cards{shown}")
        return None
    if len(player) == 3 and not player_draws(pt):
        raise TableauError("player_stands_6_7", f"player total {pt} must stand (player stands on 6-7){shown}")
    if len(player) == 2 and len(banker) == 3 and player_draws(pt):
        raise TableauError("player_draws_0_5", f"player total {pt} draws a third card before the banker's{shown}")
    third = player[2].value if len(player) == 3 else None
    if len(banker) == 3:
        if not banker_draws(bt, third):
            after = "player stood" if third is None else f"player third card {third}"
            raise TableauError("banker_stands", f"banker total {bt} must stand after {after}{shown}")
        return None
    if len(player) == 2:
        return Moment.AFTER_FOUR_CARDS if player_draws(pt) or banker_draws(bt, None) else None
    return Moment.AFTER_PLAYER_THIRD if banker_draws(bt, third) else None


@dataclass(frozen=True, slots=True)
class InsuranceOffer:
    """An insurance bet offered at one moment of one round, at one row's odds.

    ``row``: the pay-table row that applies; ``player_cards`` / ``banker_cards``: the cards
    on the table when the offer is made (2 + 2 at the first moment, 3 + 2 at the second).
    Build offers with :func:`insurance_offers` / :func:`offers_made`, which check the cards.
    """

    row: InsuranceRow
    player_cards: tuple[Card, ...]
    banker_cards: tuple[Card, ...]

    @property
    def side(self) -> Winner:
        """The insured side."""
        return self.row.side

    @property
    def moment(self) -> Moment:
        """When the offer is made."""
        return self.row.moment

    @property
    def payout(self) -> float:
        """Odds to 1 paid when the insured side loses (and on a tie for a ``tie_pays`` row)."""
        return self.row.payout

    @property
    def player_total(self) -> int:
        """The player's total when the offer is made (two or three cards)."""
        return hand_total(self.player_cards)

    @property
    def banker_total(self) -> int:
        """The banker's two-card total when the offer is made."""
        return hand_total(self.banker_cards)

    def max_stake(self, main_stake: int | float | Fraction | Decimal) -> Fraction:
        """The largest insurance stake whose win stays within the cap: ``main_stake / payout``.

        ``main_stake``: the main bet on the insured side, in any currency unit (the result
        is in the same unit). An insurance payout is never higher than the main bet
        (docs/insurance.md "The rules as modelled" 5). Raises :class:`InsuranceError` (``field="main_stake"``) for a value that is
        not a number > 0.
        """
        return _amount("main_stake", main_stake) / self.row.odds

    def settle(self, result: RoundResult) -> "InsuranceSettlement":
        """Settle the offer on the round's final ``result``.

        Win (``payout``, ``case`` = the row id) when the insured side loses, or on a tie for
        a ``tie_pays`` row; push on any other tie; lose when the insured side wins. A
        result-level ``result`` (no cards) is settled by its totals. Raises
        :class:`InsuranceError` (``field="round"``) when ``result`` has cards that do not
        begin with the cards of the offer (it is not this round).
        """
        if result.has_cards:
            p, b = result.player_cards, result.banker_cards
            if p[:len(self.player_cards)] != self.player_cards or b[:len(self.banker_cards)] != self.banker_cards:
                raise InsuranceError("round", f"the round's cards do not continue the offer's "
                                              f"(offer {self._cards_text()}; round {self._cards_text(result)})")
        return settle_offer(self.row, result.player_total, result.banker_total)

    def _cards_text(self, result: RoundResult | None = None) -> str:
        p = self.player_cards if result is None else result.player_cards
        b = self.banker_cards if result is None else result.banker_cards
        return f"player {' '.join(map(str, p))}; banker {' '.join(map(str, b))}"

    def to_json(self) -> dict[str, Any]:
        """``{"side", "moment", "row", "label", "payout", "tie_pays", "player_total",
        "banker_total", "player", "banker"}`` (cards as strings)."""
        return {"side": _side_name(self.side), "moment": self.moment.value, "row": self.row.id,
                "label": self.row.label, "payout": self.payout, "tie_pays": self.row.tie_pays,
                "player_total": self.player_total, "banker_total": self.banker_total,
                "player": [str(c) for c in self.player_cards], "banker": [str(c) for c in self.banker_cards]}


def insurance_offers(player_cards: Sequence[Card], banker_cards: Sequence[Card],
                     table: InsuranceTable = SEED001_INSURANCE) -> tuple[InsuranceOffer, ...]:
    """The insurance offers open *now* in a round in progress (empty when none is).

    ``player_cards`` / ``banker_cards``: the cards dealt so far, in deal order. At a moment
    (:func:`round_moment`) each side whose totals match a row of ``table`` is offered that
    row's odds, Player first; the ``seed001`` tables never offer both sides at once. Raises
    :class:`roads.tableau.TableauError` like :func:`round_moment`.
    """
    player, banker = tuple(player_cards), tuple(banker_cards)
    moment = round_moment(player, banker)
    if moment is None:
        return ()
    pt, bt = hand_total(player), hand_total(banker)
    offers = []
    for side in SIDES:
        row = table.row(side, moment, pt, bt)
        if row is not None:
            offers.append(InsuranceOffer(row, player, banker))
    return tuple(offers)


def offers_made(player_cards: Sequence[Card], banker_cards: Sequence[Card],
                table: InsuranceTable = SEED001_INSURANCE) -> tuple[InsuranceOffer, ...]:
    """Every insurance offer a round has made so far, in order (first moment, then second).

    ``player_cards`` / ``banker_cards``: the round's cards so far or in full, in deal order.
    Raises :class:`roads.tableau.TableauError` like :func:`round_moment` (a complete round
    is also checked against the tableau).
    """
    player, banker = tuple(player_cards), tuple(banker_cards)
    round_moment(player, banker)  # checks the cards
    if len(player) < 2 or len(banker) < 2:
        return ()
    made = insurance_offers(player[:2], banker[:2], table)
    if len(player) == 3:
        made += insurance_offers(player, banker[:2], table)
    return made


# ------------------------------------------------------------------------ settlement
@dataclass(frozen=True, slots=True)
class InsuranceSettlement:
    """How one insurance bet settles: ``verdict`` (win, lose or push); on a win the
    ``payout`` (odds to 1) and ``case`` (the row id)."""

    verdict: Verdict
    payout: float | None = None
    case: str | None = None

    @property
    def net(self) -> float:
        """Net result per unit staked, before the cap: ``payout`` on a win, -1 on a loss, 0 on a push."""
        if self.verdict is Verdict.WIN:
            return self.payout  # type: ignore[return-value]
        return -1.0 if self.verdict is Verdict.LOSE else 0.0

    def amount(self, stake: int | float | Fraction | Decimal,
               main_stake: int | float | Fraction | Decimal) -> Fraction:
        """Net amount the insurance bet returns, with the cap (docs/domain.md section 3a), in the
        stakes' unit.

        Win: ``min(stake x payout, main_stake)`` (the stake is returned besides); loss:
        ``-stake``; push: 0. ``main_stake`` is the main bet on the insured side. Exact
        (a :class:`fractions.Fraction`; floats are read as the binary value they hold, so
        pass integers, Fractions or Decimals for money). Raises :class:`InsuranceError`
        (``field`` ``"stake"`` or ``"main_stake"``) for a value that is not a number > 0.
        """
        s, m = _amount("stake", stake), _amount("main_stake", main_stake)
        if self.verdict is Verdict.WIN:
            return min(s * Fraction(repr(self.payout)), m)
        return -s if self.verdict is Verdict.LOSE else Fraction(0)

    def to_json(self) -> dict[str, Any]:
        """``{"verdict": "win", "payout": 10.0, "case": "player:after_player_third:9:0-6"}``
        (payout/case null unless a win)."""
        return {"verdict": self.verdict.value, "payout": self.payout, "case": self.case}


def settle_offer(row: InsuranceRow, player_total: int, banker_total: int) -> InsuranceSettlement:
    """Settle an insurance bet taken at ``row`` on the round's final totals (0-9 each).

    Raises :class:`InsuranceError` (``field`` ``"player_total"`` / ``"banker_total"``) for a
    total that is not an integer 0-9.
    """
    for name, t in (("player_total", player_total), ("banker_total", banker_total)):
        if isinstance(t, bool) or not isinstance(t, int) or not 0 <= t <= 9:
            raise InsuranceError(name, f"{name} must be an integer 0-9, got {t!r}")
    winner = Winner.of_totals(player_total, banker_total)
    if winner is Winner.TIE:
        return InsuranceSettlement(Verdict.WIN, row.payout, row.id) if row.tie_pays else _PUSH
    if winner is row.side:
        return _LOSE
    return InsuranceSettlement(Verdict.WIN, row.payout, row.id)


_LOSE = InsuranceSettlement(Verdict.LOSE)
_PUSH = InsuranceSettlement(Verdict.PUSH)


def insurance_open(side: Winner | str, player_stake: int | float | Fraction | Decimal,
                   banker_stake: int | float | Fraction | Decimal) -> bool:
    """Whether a seat with these main bets may take insurance on ``side``.

    Player insurance only with a bet on Player and none on Banker; Banker insurance mirrored
    (a tie bet plays no part; docs/insurance.md "The rules as modelled" 1). Stakes are amounts
    >= 0 (0 = no bet), in any one unit. Raises :class:`InsuranceError` (``field`` ``"side"``, ``"player_stake"``
    or ``"banker_stake"``) for a bad side or a stake that is not a number >= 0.
    """
    s = _check_side(side)
    p = _amount("player_stake", player_stake, zero=True)
    b = _amount("banker_stake", banker_stake, zero=True)
    mine, theirs = (p, b) if s is Winner.PLAYER else (b, p)
    return mine > 0 and theirs == 0


def _amount(name: str, value: Any, *, zero: bool = False) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction, Decimal)):
        raise InsuranceError(name, f"{name} must be a number, got {value!r}")
    try:
        f = Fraction(value)
    except (ValueError, OverflowError):  # nan, inf
        raise InsuranceError(name, f"{name} must be a finite number, got {value!r}") from None
    if f < 0 or (f == 0 and not zero):
        raise InsuranceError(name, f"{name} must be {'>= 0' if zero else '> 0'}, got {value!r}")
    return f

