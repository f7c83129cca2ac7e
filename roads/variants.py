"""Table variants as data: the bets a table offers, their payouts and per-shoe windows.

A :class:`Variant` is a table's rule set: deck count, shoe procedure, and the tuple of
:class:`BetSpec` it offers. A bet is *data*: a stable id, an English label, the
:class:`Rule` that decides it, a pay table ("to 1" payouts per winning case) and a round
limit (open for the first N rounds of a shoe, ``None`` = the whole shoe). Commission,
no-commission and Super 6 tables differ only in the banker bet's pay table; 8:1 and 9:1
ties only in the tie bet's. :func:`settle` settles every bet of a variant for a round.

Presets (:data:`PRESETS`): one per source document's table, ``docs/domain.md`` section 5.1
(payouts, round limits, decks, burn); where a document differs from the common table of
section 3 the document is followed, section 5.2: no round limits at ``seed002``, four Pok bets
(:attr:`Rule.PLAYER_POK`), insurance outside the bets (:attr:`Variant.insurance_table`,
:mod:`roads.insurance`: it is offered mid-round, not a pre-round bet with a per-shoe window),
8 decks where a document states none.

Standard library only.
"""

from __future__ import annotations

import enum
import random
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Mapping

from roads.verdict import Verdict
from roads.outcome import RoundResult, Winner

if TYPE_CHECKING:  # pragma: no cover
    from roads.insurance import InsuranceTable
    from roads.shoe import Shoe


class VariantError(ValueError):
    """A bet or variant defined with bad data, or asked about with a bad argument."""


class UnknownVariantError(VariantError):
    """No preset variant has this id (the message quotes it and lists the known ids)."""


class UnknownBetError(VariantError):
    """The variant offers no bet with this id (the message quotes it and lists the bets)."""


class Rule(str, enum.Enum):
    """What decides a bet; each rule names the pay-table cases it can pay (:attr:`cases`).

    A bet loses whenever no case pays and the rule does not say push.
    """

    PLAYER = "player"
    """Player total higher: case ``"win"``; a tie pushes."""
    BANKER = "banker"
    """Banker total higher: case ``"win"``; with case ``"win_with_6"`` a banker win with a
    total of 6 pays that instead (no-commission / Super 6 tables); a tie pushes."""
    TIE = "tie"
    """Equal totals: case ``"win"``."""
    PLAYER_PAIR = "player_pair"
    """Player's first two cards share a rank: ``"win"``."""
    BANKER_PAIR = "banker_pair"
    """Banker's first two cards share a rank: ``"win"``."""
    EITHER_PAIR = "either_pair"
    """Either side's first two cards share a rank, paid once: ``"win"``."""
    PERFECT_PAIR = "perfect_pair"
    """Either side's first two cards share rank and suit, paid once: ``"win"``."""
    PLAYER_NATURAL = "player_natural"
    """Player's two-card total is 8 or 9, whoever wins (docs/domain.md section 3): ``"win"``."""
    BANKER_NATURAL = "banker_natural"
    """Banker's two-card total is 8 or 9, whoever wins (docs/domain.md section 3): ``"win"``."""
    PLAYER_POK = "player_pok"
    """Player wins with a natural (no banker natural, or a lower one; a natural tie or a
    higher banker natural loses; docs/domain.md section 5.2): case ``"natural_8"`` or ``"natural_9"`` by
    the player's total; a natural the pay table does not list loses."""
    BANKER_POK = "banker_pok"
    """Banker wins with a natural (docs/domain.md section 5.2), as :attr:`PLAYER_POK`."""
    BIG = "big"
    """5 or 6 cards dealt (docs/domain.md section 3): ``"win"``."""
    SMALL = "small"
    """4 cards dealt (docs/domain.md section 3): ``"win"``."""
    PLAYER_BONUS = "player_bonus"
    """Dragon bonus on the player (docs/domain.md section 3): ``"natural_win"`` when the player wins with a
    natural; a natural tie pushes; a win without a natural by ``m`` points pays case
    ``"margin_m"`` (``m`` 1-9) when the pay table has it, else loses."""
    BANKER_BONUS = "banker_bonus"
    """Dragon bonus on the banker, as :attr:`PLAYER_BONUS`."""
    BANKER_SIX = "banker_six"
    """Banker wins with a total of 6: case ``"two_cards"`` or ``"three_cards"`` by the
    banker's card count (Lucky Six, Super 6+: docs/domain.md section 3)."""

    @property
    def cases(self) -> frozenset[str]:
        """Pay-table cases this rule can pay."""
        return _RULE_CASES.get(self, frozenset({"win"}))

    @property
    def reads_pairs(self) -> bool:
        """True when only the first two cards' ranks/suits decide the bet (pair bets)."""
        return self in (Rule.PLAYER_PAIR, Rule.BANKER_PAIR, Rule.EITHER_PAIR, Rule.PERFECT_PAIR)


_MARGIN_CASES = frozenset({"natural_win"} | {f"margin_{m}" for m in range(1, 10)})
_RULE_CASES: dict[Rule, frozenset[str]] = {
    Rule.BANKER: frozenset({"win", "win_with_6"}),
    Rule.PLAYER_POK: frozenset({"natural_8", "natural_9"}),
    Rule.BANKER_POK: frozenset({"natural_8", "natural_9"}),
    Rule.PLAYER_BONUS: _MARGIN_CASES,
    Rule.BANKER_BONUS: _MARGIN_CASES,
    Rule.BANKER_SIX: frozenset({"two_cards", "three_cards"}),
}

MAIN_BETS: tuple[str, ...] = ("player", "banker", "tie")
"""Bet ids of the three main bets; every other bet is a side bet."""


@dataclass(frozen=True, slots=True)
class Settlement:
    """One bet's settlement: ``verdict``; for a win the ``payout`` (to 1) and pay-table ``case``."""

    verdict: Verdict
    payout: float | None = None
    case: str | None = None

    @property
    def net(self) -> float | None:
        """Net result per unit staked: ``payout`` on a win, -1 on a loss, 0 on a push,
        ``None`` when unknown."""
        if self.verdict is Verdict.WIN:
            return self.payout
        if self.verdict is Verdict.LOSE:
            return -1.0
        if self.verdict is Verdict.PUSH:
            return 0.0
        return None

    def to_json(self) -> dict[str, Any]:
        """``{"verdict": "win", "payout": 11.0, "case": "win"}`` (payout/case null unless a win)."""
        return {"verdict": self.verdict.value, "payout": self.payout, "case": self.case}


LOSE = Settlement(Verdict.LOSE)
PUSH = Settlement(Verdict.PUSH)
UNKNOWN = Settlement(Verdict.UNKNOWN)


@dataclass(frozen=True)
class BetSpec:
    """One bet a table offers.

    ``bet``: stable id (``"player_pair"``); ``label``: English label; ``round_limit``: the
    bet is open for the first N rounds of a shoe (``None`` = the whole shoe); ``rule``: what
    decides it; ``paytable``: ``((case, payout to 1), ...)`` with cases from ``rule.cases``
    (a ``{case: payout}`` mapping is accepted and stored as that tuple).
    ``source``: where the payout and limit come from (document and table, docs/domain.md
    section 5).

    Raises :class:`VariantError` for an empty id, a case the rule does not know, a payout
    that is not a positive number, or a round limit that is not an integer >= 1.
    """

    bet: str
    label: str
    round_limit: int | None
    rule: Rule
    paytable: tuple[tuple[str, float], ...]
    source: str = ""
    _pays: Mapping[str, float] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.paytable, Mapping):
            object.__setattr__(self, "paytable", tuple(self.paytable.items()))
        if not isinstance(self.bet, str) or not self.bet:
            raise VariantError(f"bet id must be a non-empty string, got {self.bet!r}")
        if not isinstance(self.rule, Rule):
            raise VariantError(f"bet {self.bet!r}: rule must be a Rule, got {self.rule!r}")
        rl = self.round_limit
        if rl is not None and (isinstance(rl, bool) or not isinstance(rl, int) or rl < 1):
            raise VariantError(f"bet {self.bet!r}: round_limit must be None or an integer >= 1, got {rl!r}")
        if not self.paytable:
            raise VariantError(f"bet {self.bet!r}: empty pay table")
        seen = set()
        for item in self.paytable:
            if not (isinstance(item, tuple) and len(item) == 2):
                raise VariantError(f"bet {self.bet!r}: pay-table entries are (case, payout) pairs, got {item!r}")
            case, pays = item
            if case not in self.rule.cases:
                raise VariantError(f"bet {self.bet!r}: rule {self.rule.value!r} has no case {case!r} "
                                   f"(cases: {', '.join(sorted(self.rule.cases))})")
            if case in seen:
                raise VariantError(f"bet {self.bet!r}: case {case!r} appears twice")
            seen.add(case)
            if isinstance(pays, bool) or not isinstance(pays, (int, float)) or not pays > 0:
                raise VariantError(f"bet {self.bet!r}: payout for {case!r} must be a number > 0, got {pays!r}")
        object.__setattr__(self, "_pays", MappingProxyType({c: float(p) for c, p in self.paytable}))

    @property
    def pays(self) -> Mapping[str, float]:
        """The pay table as a read-only mapping case -> payout to 1 (floats)."""
        return self._pays

    @property
    def is_side_bet(self) -> bool:
        """True for every bet but player, banker and tie."""
        return self.bet not in MAIN_BETS

    def is_open(self, round_number: int) -> bool:
        """Whether the bet can be placed on round ``round_number`` (1-based) of a shoe.

        Raises :class:`VariantError` when ``round_number`` is not an integer >= 1.
        """
        _check_round_number(round_number)
        return self.round_limit is None or round_number <= self.round_limit

    def rounds_left(self, round_number: int) -> int | None:
        """Rounds of the shoe, from ``round_number`` on, in which the bet is still open
        (0 once closed); ``None`` for a whole-shoe bet. Raises :class:`VariantError` like
        :meth:`is_open`."""
        _check_round_number(round_number)
        if self.round_limit is None:
            return None
        return max(0, self.round_limit - round_number + 1)

    def settle(self, result: RoundResult) -> Settlement:
        """Settle this bet for ``result``: win (payout, case), lose, push, or unknown."""
        return _SETTLERS[self.rule](self, result)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready description: bet, label, round_limit, rule, paytable {case: payout}, source."""
        return {"bet": self.bet, "label": self.label, "round_limit": self.round_limit,
                "rule": self.rule.value, "paytable": dict(self._pays), "source": self.source}


def _check_round_number(round_number: int) -> None:
    if isinstance(round_number, bool) or not isinstance(round_number, int) or round_number < 1:
        raise VariantError(f"round number must be an integer >= 1 (1 = first round of the shoe), "
                           f"got {round_number!r}")


# ------------------------------------------------------------------------ settlement
def _win(spec: BetSpec, case: str) -> Settlement:
    pays = spec.pays.get(case)
    if pays is None:
        return LOSE
    return Settlement(Verdict.WIN, pays, case)


def _when(flag: bool | None, spec: BetSpec) -> Settlement:
    if flag is None:
        return UNKNOWN
    return _win(spec, "win") if flag else LOSE


def _settle_player(spec: BetSpec, r: RoundResult) -> Settlement:
    if r.winner is Winner.TIE:
        return PUSH
    return _win(spec, "win") if r.winner is Winner.PLAYER else LOSE


def _settle_banker(spec: BetSpec, r: RoundResult) -> Settlement:
    if r.winner is Winner.TIE:
        return PUSH
    if r.winner is not Winner.BANKER:
        return LOSE
    if r.banker_total == 6 and "win_with_6" in spec.pays:
        return _win(spec, "win_with_6")
    return _win(spec, "win")


def _settle_pok(side: Winner):
    def settle(spec: BetSpec, r: RoundResult) -> Settlement:
        # A natural ends the round, so "this side's natural beats the other side" is
        # "this side wins a natural round" (docs/domain.md section 5.2: a natural tie or a higher
        # natural loses),
        # and the winner's final total is its natural, 8 or 9.
        if not (r.natural and r.winner is side):
            return LOSE
        return _win(spec, f"natural_{r.player_total if side is Winner.PLAYER else r.banker_total}")
    return settle


def _settle_bonus(side: Winner):
    def settle(spec: BetSpec, r: RoundResult) -> Settlement:
        if r.natural:
            if r.winner is Winner.TIE:
                return PUSH
            return _win(spec, "natural_win") if r.winner is side else LOSE
        if r.winner is not side:
            return LOSE
        return _win(spec, f"margin_{r.margin}")
    return settle


def _settle_banker_six(spec: BetSpec, r: RoundResult) -> Settlement:
    six = r.banker_six
    if six is None:
        return UNKNOWN
    if six == 0:
        return LOSE
    return _win(spec, "two_cards" if six == 2 else "three_cards")


_SETTLERS = {
    Rule.PLAYER: _settle_player,
    Rule.BANKER: _settle_banker,
    Rule.TIE: lambda spec, r: _when(r.winner is Winner.TIE, spec),
    Rule.PLAYER_PAIR: lambda spec, r: _when(r.player_pair, spec),
    Rule.BANKER_PAIR: lambda spec, r: _when(r.banker_pair, spec),
    Rule.EITHER_PAIR: lambda spec, r: _when(r.either_pair, spec),
    Rule.PERFECT_PAIR: lambda spec, r: _when(r.perfect_pair, spec),
    Rule.PLAYER_NATURAL: lambda spec, r: _when(r.side_natural(Winner.PLAYER), spec),
    Rule.BANKER_NATURAL: lambda spec, r: _when(r.side_natural(Winner.BANKER), spec),
    Rule.PLAYER_POK: _settle_pok(Winner.PLAYER),
    Rule.BANKER_POK: _settle_pok(Winner.BANKER),
    Rule.BIG: lambda spec, r: _when(r.big, spec),
    Rule.SMALL: lambda spec, r: _when(r.small, spec),
    Rule.PLAYER_BONUS: _settle_bonus(Winner.PLAYER),
    Rule.BANKER_BONUS: _settle_bonus(Winner.BANKER),
    Rule.BANKER_SIX: _settle_banker_six,
}


# ------------------------------------------------------------------------ variants
@dataclass(frozen=True)
class Variant:
    """A table's rule set.

    ``id``: stable id (``"seed000_live"``); ``name``: English name; ``decks``: decks in the
    shoe; ``bets``: every bet offered, main bets first; ``burn_between_rounds``: the shoe
    burns one card between rounds (docs/domain.md section 2); ``cut_card_position``: cut-card
    depth in cards from the back (``None`` = the shoe's default); ``source``: the document it
    comes from (docs/domain.md section 5); ``notes``: what the document leaves open;
    ``insurance_table``: id of the table's insurance pay tables in
    :data:`roads.insurance.INSURANCE_TABLES` (``None`` = no insurance; the ``seed001`` tables:
    ``"seed001"``).

    Raises :class:`VariantError` for an empty id, a deck count outside 1-16, duplicate bet
    ids, a missing player/banker/tie bet, or an ``insurance_table`` that is not ``None`` or
    a non-empty string (the id itself is looked up by :attr:`insurance`).
    """

    id: str
    name: str
    decks: int
    bets: tuple[BetSpec, ...]
    burn_between_rounds: bool = False
    cut_card_position: int | None = None
    source: str = ""
    notes: str = ""
    insurance_table: str | None = None
    _by_id: Mapping[str, BetSpec] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise VariantError(f"variant id must be a non-empty string, got {self.id!r}")
        if isinstance(self.decks, bool) or not isinstance(self.decks, int) or not 1 <= self.decks <= 16:
            raise VariantError(f"variant {self.id!r}: decks must be an integer 1-16, got {self.decks!r}")
        by_id: dict[str, BetSpec] = {}
        for spec in self.bets:
            if not isinstance(spec, BetSpec):
                raise VariantError(f"variant {self.id!r}: bets must be BetSpec, got {spec!r}")
            if spec.bet in by_id:
                raise VariantError(f"variant {self.id!r}: bet id {spec.bet!r} appears twice")
            by_id[spec.bet] = spec
        missing = [b for b in MAIN_BETS if b not in by_id]
        if missing:
            raise VariantError(f"variant {self.id!r}: missing main bet {missing[0]!r}")
        it = self.insurance_table
        if it is not None and (not isinstance(it, str) or not it):
            raise VariantError(f"variant {self.id!r}: insurance_table must be None or a non-empty string, got {it!r}")
        object.__setattr__(self, "_by_id", MappingProxyType(by_id))

    def bet(self, bet_id: str) -> BetSpec:
        """The bet with id ``bet_id``; raises :class:`UnknownBetError` quoting it."""
        try:
            return self._by_id[bet_id]
        except (KeyError, TypeError):
            raise UnknownBetError(f"variant {self.id!r} offers no bet {bet_id!r} "
                                  f"(bets: {', '.join(self._by_id)})") from None

    def has_bet(self, bet_id: str) -> bool:
        """Whether the variant offers a bet with id ``bet_id``."""
        return bet_id in self._by_id

    def is_open(self, bet_id: str, round_number: int) -> bool:
        """Whether bet ``bet_id`` can be placed on round ``round_number`` of a shoe.

        ``round_number`` is the 1-based number of the round about to be dealt, counting only
        counted (non-void) rounds: open iff the bet has no round limit or
        ``round_number <= round_limit`` (docs/domain.md section 3, "open for the first N rounds of
        a shoe"). Raises :class:`UnknownBetError` or :class:`VariantError`
        (round number not an integer >= 1).
        """
        return self.bet(bet_id).is_open(round_number)

    def rounds_left(self, bet_id: str, round_number: int) -> int | None:
        """Rounds left in which ``bet_id`` is open, from ``round_number`` on (0 = closed,
        ``None`` = whole shoe). Raises like :meth:`is_open`."""
        return self.bet(bet_id).rounds_left(round_number)

    @property
    def side_bets(self) -> tuple[BetSpec, ...]:
        """Every bet except player, banker and tie, in the variant's order."""
        return tuple(b for b in self.bets if b.is_side_bet)

    def open_bets(self, round_number: int) -> tuple[BetSpec, ...]:
        """The bets open on round ``round_number``; raises :class:`VariantError` for a bad number."""
        return tuple(b for b in self.bets if b.is_open(round_number))

    @property
    def banker_rule(self) -> str:
        """``"commission"`` when a banker win pays less than 1:1 throughout, ``"no_commission"``
        when a banker win with 6 is paid at its own rate (no-commission / Super 6 tables)."""
        return "no_commission" if "win_with_6" in self.bet("banker").pays else "commission"

    @property
    def insurance(self) -> "InsuranceTable | None":
        """The table's insurance pay tables (:class:`roads.insurance.InsuranceTable`), ``None``
        when the table offers no insurance. Raises :class:`VariantError` when
        ``insurance_table`` names no known table."""
        if self.insurance_table is None:
            return None
        from roads.insurance import InsuranceError, get_insurance_table

        try:
            return get_insurance_table(self.insurance_table)
        except InsuranceError as e:
            raise VariantError(f"variant {self.id!r}: {e}") from None

    @property
    def offers_insurance(self) -> bool:
        """Whether the table offers mid-round insurance (docs/domain.md section 3a)."""
        return self.insurance_table is not None

    @property
    def tie_pays(self) -> float:
        """What the tie bet pays, to 1 (8, or 9 at ``seed004_mini``: docs/domain.md section 5.1)."""
        return self.bet("tie").pays["win"]

    def new_shoe(self, rng: random.Random | None = None) -> "Shoe":
        """A fresh :class:`roads.shoe.Shoe` with this table's decks, cut-card position and
        between-rounds burn, shuffled by ``rng`` (``None`` = seeded by the OS)."""
        from roads.shoe import Shoe

        return Shoe(self.decks, rng=rng, cut_card_position=self.cut_card_position,
                    burn_between_rounds=self.burn_between_rounds)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready description of the variant and every bet (:meth:`BetSpec.to_json`);
        a table with insurance adds ``"insurance"`` (:meth:`roads.insurance.InsuranceTable.to_json`)."""
        d = {"id": self.id, "name": self.name, "decks": self.decks, "banker_rule": self.banker_rule,
             "tie_pays": self.tie_pays, "burn_between_rounds": self.burn_between_rounds,
             "cut_card_position": self.cut_card_position, "source": self.source, "notes": self.notes,
             "bets": [b.to_json() for b in self.bets]}
        table = self.insurance
        if table is not None:
            d["insurance"] = table.to_json()
        return d


def settle(variant: Variant, result: RoundResult) -> dict[str, Settlement]:
    """Settle every bet of ``variant`` for one round: ``{bet_id: Settlement}`` in bet order.

    A bet whose rule needs a fact the round does not carry (a result-level round without
    card counts for big/small or a banker six, without perfect-pair facts) settles as
    :attr:`Verdict.UNKNOWN`. Whether the bet was open (:meth:`Variant.is_open`) is the
    caller's concern: a closed bet simply had no stakes.
    """
    return {spec.bet: spec.settle(result) for spec in variant.bets}


# ------------------------------------------------------------------------ presets
def _bet(bet: str, label: str, rule: Rule, paytable: dict[str, float], round_limit: int | None,
         source: str) -> BetSpec:
    return BetSpec(bet=bet, label=label, round_limit=round_limit, rule=rule,
                   paytable=tuple(paytable.items()), source=source)


_BONUS_PAYS = {"natural_win": 1, "margin_9": 30, "margin_8": 10, "margin_7": 6, "margin_6": 4,
               "margin_5": 2, "margin_4": 1}
"""The player/banker bonus of ``seed000_live`` (docs/domain.md section 5.1): non-natural win by
9 30:1, 8 10:1, 7 6:1, 6 4:1, 5 2:1, 4 1:1; natural win 1:1; natural tie push."""


def _main_bets(*, commission: bool, tie: float, source: str) -> tuple[BetSpec, ...]:
    banker = {"win": 0.95} if commission else {"win": 1, "win_with_6": 0.5}
    return (
        _bet("player", "Player", Rule.PLAYER, {"win": 1}, None, source),
        _bet("banker", "Banker", Rule.BANKER, banker, None, source),
        _bet("tie", "Tie", Rule.TIE, {"win": tie}, None, source),
    )


def _seed000(commission: bool) -> Variant:
    src = "seed 000 payout table"
    return Variant(
        id="seed000_live" if commission else "seed000_live_no_commission",
        name="Live Baccarat" if commission else "Live Baccarat, no commission",
        decks=8,
        bets=_main_bets(commission=commission, tie=8, source=src) + (
            _bet("player_pair", "Player Pair", Rule.PLAYER_PAIR, {"win": 11}, 60, src),
            _bet("banker_pair", "Banker Pair", Rule.BANKER_PAIR, {"win": 11}, 60, src),
            _bet("either_pair", "Either Pair", Rule.EITHER_PAIR, {"win": 5}, 50, src),
            _bet("perfect_pair", "Perfect Pair", Rule.PERFECT_PAIR, {"win": 25}, 50, src),
            _bet("player_natural", "Player Natural", Rule.PLAYER_NATURAL, {"win": 3.5}, 50, src),
            _bet("banker_natural", "Banker Natural", Rule.BANKER_NATURAL, {"win": 3.5}, 50, src),
            _bet("player_bonus", "Player Bonus", Rule.PLAYER_BONUS, _BONUS_PAYS, None, src),
            _bet("banker_bonus", "Banker Bonus", Rule.BANKER_BONUS, _BONUS_PAYS, None, src),
            _bet("lucky_six", "Lucky Six", Rule.BANKER_SIX, {"two_cards": 12, "three_cards": 20}, 50, src),
            _bet("lucky_six_2", "Lucky Six 2-card", Rule.BANKER_SIX, {"two_cards": 22}, 50, src),
            _bet("lucky_six_3", "Lucky Six 3-card", Rule.BANKER_SIX, {"three_cards": 50}, 50, src),
        ),
        source="seed 000 (Burmese, live Baccarat house rules)",
        notes="Commission and no-commission are one game switched by an in-game toggle. "
              "The seed gives no round limit for the player/banker bonus and no cut-card depth.",
    )


def _seed001(commission: bool) -> Variant:
    src = "seed 001 payout table and side-bet rules"
    return Variant(
        id="seed001" if commission else "seed001_no_commission",
        name="Baccarat (seed 001)" if commission else "Baccarat, no commission (seed 001)",
        decks=8,
        bets=_main_bets(commission=commission, tie=8, source=src) + (
            _bet("player_pair", "Player Pair", Rule.PLAYER_PAIR, {"win": 11}, 60, src),
            _bet("banker_pair", "Banker Pair", Rule.BANKER_PAIR, {"win": 11}, 60, src),
            _bet("big", "Big", Rule.BIG, {"win": 0.5}, 30, src),
            _bet("small", "Small", Rule.SMALL, {"win": 1.5}, 30, src),
            _bet("player_pok_8", "Player Pok 8", Rule.PLAYER_POK, {"natural_8": 8}, 60, src),
            _bet("player_pok_9", "Player Pok 9", Rule.PLAYER_POK, {"natural_9": 8}, 60, src),
            _bet("banker_pok_8", "Banker Pok 8", Rule.BANKER_POK, {"natural_8": 8}, 60, src),
            _bet("banker_pok_9", "Banker Pok 9", Rule.BANKER_POK, {"natural_9": 8}, 60, src),
            _bet("super_six", "Super 6+", Rule.BANKER_SIX, {"two_cards": 12, "three_cards": 18}, 60, src),
        ),
        source="seed 001 (Thai, baccarat with insurance)",
        insurance_table="seed001",
        notes="Round limits do not apply to the seed's animation tables. The seed's mid-round "
              "insurance bets are offered and settled by roads.insurance (insurance table 'seed001'). "
              "Deck count not stated in the seed (8 assumed). "
              "The seed's blue-card rule speaks of a burn card dealt to start a new game; "
              "between-round burns are off here (set burn_between_rounds to follow that reading).",
    )


def _seed002(super_six: bool) -> Variant:
    src = "seed 002 payout table"
    return Variant(
        id="seed002" if super_six else "seed002_commission",
        name="Super 6 Baccarat (seed 002)" if super_six else "Baccarat, commission (seed 002)",
        decks=8,
        bets=_main_bets(commission=not super_six, tie=8, source=src) + (
            _bet("player_pair", "Player Pair", Rule.PLAYER_PAIR, {"win": 11}, None, src),
            _bet("banker_pair", "Banker Pair", Rule.BANKER_PAIR, {"win": 11}, None, src),
            _bet("big", "Big", Rule.BIG, {"win": 0.54}, None, src),
            _bet("small", "Small", Rule.SMALL, {"win": 1.5}, None, src),
        ),
        burn_between_rounds=True,
        source="seed 002 (Burmese, game rules)",
        notes="One card is burned between every two hands. The seed states no round limits "
              "and no deck count (8 assumed).",
    )


def _seed004() -> Variant:
    src = "seed 004 payout rates"
    return Variant(
        id="seed004_mini",
        name="Mini Baccarat (seed 004)",
        decks=8,
        bets=_main_bets(commission=True, tie=9, source=src),
        source="seed 004 (Thai, RNG mini baccarat)",
        notes="Deck count not stated in the seed; 8 decks reproduce its 97.62% average return "
              "of the three bets.",
    )


PRESETS: dict[str, Variant] = {v.id: v for v in (
    _seed000(True), _seed000(False), _seed001(True), _seed001(False),
    _seed002(True), _seed002(False), _seed004(),
)}
"""Preset variants by id: seed000_live, seed000_live_no_commission, seed001,
seed001_no_commission, seed002, seed002_commission, seed004_mini."""

DEFAULT_VARIANT_ID = "seed000_live"
"""The variant a table gets when none is configured: document 000's live table with commission
(docs/domain.md section 5.1)."""


def get_variant(variant_id: str) -> Variant:
    """The preset with id ``variant_id``; raises :class:`UnknownVariantError` quoting it."""
    try:
        return PRESETS[variant_id]
    except (KeyError, TypeError):
        raise UnknownVariantError(f"unknown variant {variant_id!r} (known: {', '.join(PRESETS)})") from None
