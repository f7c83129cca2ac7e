"""The outcome of one round: winner, totals, pairs, naturals, and everything bets read.

A :class:`RoundResult` is built either from the cards (:meth:`RoundResult.from_cards`,
checked against the tableau, every field known) or from a result-level feed that carries
only the result (:meth:`RoundResult.from_result`: winner, totals, pairs, natural; facts the
feed does not carry stay ``None`` = unknown, never guessed).

Sources: domain digest sections 1 and 3; seed 000 (pairs, naturals, Lucky Six),
seed 001 (Pok 8/9, Super 6), seed 002 (Big/Small by card count).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Sequence

from roads.cards import Card, hand_total
from roads.tableau import check_round, is_natural


class Winner(str, enum.Enum):
    """Who won a round. The value is the one-letter notation used everywhere (JSON too)."""

    BANKER = "B"
    """Banker total higher."""
    PLAYER = "P"
    """Player total higher."""
    TIE = "T"
    """Equal totals: Player and Banker bets push."""

    @classmethod
    def parse(cls, text: str) -> "Winner":
        """``"B"``, ``"P"`` or ``"T"`` (case-insensitive) -> Winner; ``ResultError`` otherwise."""
        try:
            return cls(str(text).strip().upper())
        except ValueError:
            raise ResultError("winner", f"winner must be 'B', 'P' or 'T', got {text!r}") from None

    @classmethod
    def of_totals(cls, player_total: int, banker_total: int) -> "Winner":
        """The winner that two final totals give."""
        if banker_total > player_total:
            return cls.BANKER
        if player_total > banker_total:
            return cls.PLAYER
        return cls.TIE


class ResultError(ValueError):
    """A result-level round that contradicts itself; ``field`` names the offending field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True, slots=True)
class RoundResult:
    """One round's outcome (immutable).

    Always known: ``winner``, ``player_total`` and ``banker_total`` (0-9), ``player_pair``,
    ``banker_pair`` (first two cards of that side share a rank), ``natural`` (either side's
    two-card total is 8 or 9).

    Known from cards, optional from a result-level feed (``None`` = unknown):
    ``player_cards`` / ``banker_cards`` (2-3 :class:`Card` each), ``player_card_count`` /
    ``banker_card_count`` (2 or 3), ``player_natural`` / ``banker_natural``,
    ``player_perfect_pair`` / ``banker_perfect_pair`` (same rank and suit).
    """

    winner: Winner
    player_total: int
    banker_total: int
    player_pair: bool
    banker_pair: bool
    natural: bool
    player_cards: tuple[Card, ...] | None = None
    banker_cards: tuple[Card, ...] | None = None
    player_card_count: int | None = None
    banker_card_count: int | None = None
    player_natural: bool | None = None
    banker_natural: bool | None = None
    player_perfect_pair: bool | None = None
    banker_perfect_pair: bool | None = None

    # ----------------------------------------------------------------- constructors
    @classmethod
    def from_cards(cls, player: Sequence[Card], banker: Sequence[Card]) -> "RoundResult":
        """Outcome of a card-level round, in deal order per side (first two, then the third).

        Raises :class:`roads.tableau.TableauError` when the cards break the tableau
        (wrong card count, a draw or a stand against the rules).
        """
        player, banker = tuple(player), tuple(banker)
        check_round(player, banker)
        pt, bt = hand_total(player), hand_total(banker)
        pn, bn = is_natural(hand_total(player[:2])), is_natural(hand_total(banker[:2]))
        return cls(
            winner=Winner.of_totals(pt, bt),
            player_total=pt,
            banker_total=bt,
            player_pair=player[0].rank == player[1].rank,
            banker_pair=banker[0].rank == banker[1].rank,
            natural=pn or bn,
            player_cards=player,
            banker_cards=banker,
            player_card_count=len(player),
            banker_card_count=len(banker),
            player_natural=pn,
            banker_natural=bn,
            player_perfect_pair=player[0] == player[1],
            banker_perfect_pair=banker[0] == banker[1],
        )

    @classmethod
    def from_result(
        cls,
        winner: Winner | str,
        player_total: int,
        banker_total: int,
        player_pair: bool = False,
        banker_pair: bool = False,
        natural: bool = False,
        *,
        player_card_count: int | None = None,
        banker_card_count: int | None = None,
        player_perfect_pair: bool | None = None,
        banker_perfect_pair: bool | None = None,
    ) -> "RoundResult":
        """Outcome of a result-level round (a feed that carries no cards).

        Raises :class:`ResultError` (``field`` set) when a total is outside 0-9, the winner
        contradicts the totals, ``natural`` is claimed with both totals below 8, a card
        count is not 2 or 3 (or is 3 on a natural round), or a perfect pair is claimed
        without the pair. Per-side naturals are derived where the facts allow it.
        """
        w = winner if isinstance(winner, Winner) else Winner.parse(winner)
        for name, t in (("player_total", player_total), ("banker_total", banker_total)):
            if isinstance(t, bool) or not isinstance(t, int) or not 0 <= t <= 9:
                raise ResultError(name, f"{name} must be an integer 0-9, got {t!r}")
        if Winner.of_totals(player_total, banker_total) is not w:
            raise ResultError(
                "winner",
                f"winner {w.value!r} contradicts totals player {player_total}, banker {banker_total}",
            )
        for name, c in (("player_card_count", player_card_count), ("banker_card_count", banker_card_count)):
            if c is not None and c not in (2, 3):
                raise ResultError(name, f"{name} must be 2 or 3, got {c!r}")
            if c == 3 and natural:
                raise ResultError(name, f"{name} is 3 but the round is a natural (both sides stand on two cards)")
        if natural and max(player_total, banker_total) < 8:
            raise ResultError("natural", "natural claimed but neither total is 8 or 9")
        for name, perfect, pair in (
            ("player_perfect_pair", player_perfect_pair, player_pair),
            ("banker_perfect_pair", banker_perfect_pair, banker_pair),
        ):
            if perfect and not pair:
                raise ResultError(name, f"{name} claimed without the pair")
        # On a natural round both hands have two cards, so a total of 8/9 is that side's natural.
        pn = (player_total >= 8) if natural else False
        bn = (banker_total >= 8) if natural else False
        return cls(
            winner=w,
            player_total=player_total,
            banker_total=banker_total,
            player_pair=bool(player_pair),
            banker_pair=bool(banker_pair),
            natural=bool(natural),
            player_card_count=2 if natural else player_card_count,
            banker_card_count=2 if natural else banker_card_count,
            player_natural=pn,
            banker_natural=bn,
            player_perfect_pair=player_perfect_pair,
            banker_perfect_pair=banker_perfect_pair,
        )

    # ----------------------------------------------------------------- derived facts
    @property
    def has_cards(self) -> bool:
        """True when the round was built from cards (every fact known)."""
        return self.player_cards is not None

    @property
    def either_pair(self) -> bool:
        """Either side's first two cards share a rank."""
        return self.player_pair or self.banker_pair

    @property
    def perfect_pair(self) -> bool | None:
        """Either side's first two cards are the same rank and suit (``None`` if unknown)."""
        if self.player_perfect_pair or self.banker_perfect_pair:
            return True
        if self.player_perfect_pair is None or self.banker_perfect_pair is None:
            return None
        return False

    @property
    def card_count(self) -> int | None:
        """Cards dealt in the round, 4-6 (``None`` if unknown)."""
        if self.player_card_count is None or self.banker_card_count is None:
            return None
        return self.player_card_count + self.banker_card_count

    @property
    def banker_six(self) -> int | None:
        """Banker won with a total of 6: the banker's card count (2 or 3); 0 if not.

        ``None`` when the banker won with 6 but the card count is unknown (seed 000 Lucky Six,
        seed 001 Super 6).
        """
        if self.winner is not Winner.BANKER or self.banker_total != 6:
            return 0
        return self.banker_card_count

    @property
    def margin(self) -> int:
        """Winning margin in points, 0-9 (0 on a tie): dragon-bonus bets read it."""
        return abs(self.player_total - self.banker_total)

    def to_json(self) -> dict:
        """JSON-ready dict: the result-level fields always, cards as strings when known."""
        d: dict = {
            "winner": self.winner.value,
            "player_total": self.player_total,
            "banker_total": self.banker_total,
            "player_pair": self.player_pair,
            "banker_pair": self.banker_pair,
            "natural": self.natural,
            "player_card_count": self.player_card_count,
            "banker_card_count": self.banker_card_count,
            "player_natural": self.player_natural,
            "banker_natural": self.banker_natural,
            "player_perfect_pair": self.player_perfect_pair,
            "banker_perfect_pair": self.banker_perfect_pair,
        }
        if self.has_cards:
            d["player"] = [str(c) for c in self.player_cards]  # type: ignore[union-attr]
            d["banker"] = [str(c) for c in self.banker_cards]  # type: ignore[union-attr]
        return d
