"""The outcome of one round: winner, totals, pairs, naturals, and everything bets read.

A :class:`RoundResult` is built either from the cards (:meth:`RoundResult.from_cards`,
checked against the tableau, every field known) or from a result-level feed that carries
only the result (:meth:`RoundResult.from_result`: winner, totals, pairs, natural; facts the
feed does not carry stay ``None`` = unknown, never guessed; facts the rules force are
derived, e.g. no pair -> no perfect pair, a natural round -> two cards a side).

Sources: docs/domain.md sections 1 and 3 (pairs, perfect pair, naturals, dragon bonus
margins, Lucky Six, Pok 8/9, Super 6+, big/small by card count: 5 or 6 cards big, 4 small).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from collections.abc import Mapping
from typing import Any, Sequence

from roads.cards import Card, hand_total, parse_cards
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

    Always known: ``winner``, ``player_total`` and ``banker_total`` (final totals 0-9),
    ``player_pair``, ``banker_pair`` (first two cards of that side share a rank),
    ``natural`` (either side's two-card total is 8 or 9, so both stood on two cards).

    Known from cards, optional from a result-level feed (``None`` = unknown):
    ``player_cards`` / ``banker_cards`` (2-3 :class:`Card` each, deal order),
    ``player_card_count`` / ``banker_card_count`` (2 or 3), ``player_natural`` /
    ``banker_natural`` (that side's two-card total is 8 or 9), ``player_perfect_pair`` /
    ``banker_perfect_pair`` (first two cards of that side share rank and suit).
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
        (wrong card count, a draw or a stand against the rules, an item that is not a Card).
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

        Raises :class:`ResultError` (``field`` set, message quoting the value) when:

        * a total is not an integer 0-9, a flag is not a bool, a card count is not 2 or 3;
        * the winner contradicts the totals;
        * ``natural`` is claimed with both totals below 8, or with a 3-card side;
        * a card count the tableau forbids: a player who stood on two cards (no natural)
          ends on 6 or 7; a banker who stood on two cards ends on 3-7, on 6 or 7 when the
          player stood too (docs/domain.md section 1);
        * a pair on a side whose final total is its two-card total (two cards known, or a
          natural round) with an odd total: two cards of one rank total 0, 2, 4, 6 or 8;
        * a perfect pair claimed without the pair.

        Derived, never guessed: on a natural round both sides have two cards and a side's
        natural is its total >= 8; without a natural no side has one; without a pair a
        side has no perfect pair. What stays unknown is ``None``.
        """
        w = winner if isinstance(winner, Winner) else Winner.parse(winner)
        for name, t in (("player_total", player_total), ("banker_total", banker_total)):
            if isinstance(t, bool) or not isinstance(t, int) or not 0 <= t <= 9:
                raise ResultError(name, f"{name} must be an integer 0-9, got {t!r}")
        for name, flag in (("player_pair", player_pair), ("banker_pair", banker_pair), ("natural", natural),
                           ("player_perfect_pair", player_perfect_pair),
                           ("banker_perfect_pair", banker_perfect_pair)):
            if flag is not None and not isinstance(flag, bool):
                raise ResultError(name, f"{name} must be true or false, got {flag!r}")
        if Winner.of_totals(player_total, banker_total) is not w:
            raise ResultError(
                "winner",
                f"winner {w.value!r} contradicts totals player {player_total}, banker {banker_total}",
            )
        for name, c in (("player_card_count", player_card_count), ("banker_card_count", banker_card_count)):
            if c is not None and (isinstance(c, bool) or c not in (2, 3)):
                raise ResultError(name, f"{name} must be 2 or 3, got {c!r}")
            if c == 3 and natural:
                raise ResultError(name, f"{name} is 3 but the round is a natural (both sides stand on two cards)")
        if natural and max(player_total, banker_total) < 8:
            raise ResultError("natural", "natural claimed but neither total is 8 or 9")
        if natural:
            player_card_count = banker_card_count = 2
        else:
            if player_card_count == 2 and player_total not in (6, 7):
                raise ResultError("player_card_count",
                                  f"player_card_count 2 without a natural means the player stood on 6 or 7, "
                                  f"but player_total is {player_total}")
            if banker_card_count == 2:
                allowed = (6, 7) if player_card_count == 2 else (3, 4, 5, 6, 7)
                if banker_total not in allowed:
                    after = "the player stood" if player_card_count == 2 else "a player draw"
                    raise ResultError("banker_card_count",
                                      f"banker_card_count 2 without a natural: the banker stands only on "
                                      f"{allowed[0]}-{allowed[-1]} after {after}, but banker_total is {banker_total}")
        for side, pair, count, total in (("player", player_pair, player_card_count, player_total),
                                         ("banker", banker_pair, banker_card_count, banker_total)):
            if pair and count == 2 and total % 2:
                raise ResultError(f"{side}_pair",
                                  f"{side}_pair claimed but the {side}'s two-card total {total} is odd "
                                  f"(a pair totals 0, 2, 4, 6 or 8)")
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
            player_pair=player_pair,
            banker_pair=banker_pair,
            natural=natural,
            player_card_count=player_card_count,
            banker_card_count=banker_card_count,
            player_natural=pn,
            banker_natural=bn,
            player_perfect_pair=False if not player_pair else player_perfect_pair,
            banker_perfect_pair=False if not banker_pair else banker_perfect_pair,
        )

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "RoundResult":
        """Inverse of :meth:`to_json`: cards when ``"player"``/``"banker"`` are present, else the result.

        With cards, any result fields also present must agree with them; without cards the
        per-side naturals, when present, must agree with ``natural`` and the totals. Raises
        :class:`ResultError` (missing or contradicting field), :class:`roads.cards.CardError`
        (bad card string) or :class:`roads.tableau.TableauError` (cards against the tableau).
        """
        if not isinstance(data, Mapping):
            raise ResultError("round", f"a round must be a JSON object, got {data!r}")
        if "player" in data or "banker" in data:
            for key in ("player", "banker"):
                if not isinstance(data.get(key), (list, tuple)):
                    raise ResultError(key, f"{key!r} must be a list of 2-3 cards, got {data.get(key)!r}")
            result = cls.from_cards(parse_cards(data["player"]), parse_cards(data["banker"]))
            mine = result.to_json()
            for key, value in data.items():
                if key in mine and key not in ("player", "banker") and value != mine[key]:
                    raise ResultError(key, f"{key} {value!r} contradicts the cards, which give {mine[key]!r}")
            return result
        for key in ("winner", "player_total", "banker_total"):
            if key not in data:
                raise ResultError(key, f"missing {key!r}")
        result = cls.from_result(
            data["winner"], data["player_total"], data["banker_total"],
            data.get("player_pair", False), data.get("banker_pair", False), data.get("natural", False),
            player_card_count=data.get("player_card_count"), banker_card_count=data.get("banker_card_count"),
            player_perfect_pair=data.get("player_perfect_pair"), banker_perfect_pair=data.get("banker_perfect_pair"),
        )
        for key in ("player_natural", "banker_natural"):
            given, derived = data.get(key), getattr(result, key)
            if given is not None and given != derived:
                raise ResultError(key, f"{key} {given!r} contradicts natural {result.natural!r} "
                                       f"and the totals, which give {derived!r}")
        return result

    # ----------------------------------------------------------------- derived facts
    @property
    def has_cards(self) -> bool:
        """True when the round was built from cards (every fact known)."""
        return self.player_cards is not None

    @property
    def either_pair(self) -> bool:
        """Either side's first two cards share a rank ("either pair", paid once: docs/domain.md
        section 3)."""
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
    def big(self) -> bool | None:
        """5 or 6 cards dealt ("Big", docs/domain.md section 3); ``None`` if unknown.

        Known as soon as one side is known to have 3 cards, even if the other count is not.
        """
        if self.player_card_count == 3 or self.banker_card_count == 3:
            return True
        if self.player_card_count == 2 and self.banker_card_count == 2:
            return False
        return None

    @property
    def small(self) -> bool | None:
        """Exactly 4 cards dealt ("Small", docs/domain.md section 3); ``None`` if unknown."""
        big = self.big
        return None if big is None else not big

    @property
    def banker_six(self) -> int | None:
        """Banker won with a total of 6: the banker's card count (2 or 3); 0 if not.

        ``None`` when the banker won with 6 but the card count is unknown (Lucky Six, Super 6+:
        docs/domain.md section 3).
        """
        if self.winner is not Winner.BANKER or self.banker_total != 6:
            return 0
        return self.banker_card_count

    @property
    def banker_wins_with_six(self) -> bool:
        """Banker won with a final total of 6 (no-commission / Super 6 tables pay banker 0.5:1)."""
        return self.winner is Winner.BANKER and self.banker_total == 6

    @property
    def margin(self) -> int:
        """Winning margin in points, 0-9 (0 on a tie): dragon-bonus bets read it."""
        return abs(self.player_total - self.banker_total)

    @property
    def player_margin(self) -> int:
        """Points by which the player won, 1-9; 0 when the player did not win (dragon bonus)."""
        return max(0, self.player_total - self.banker_total)

    @property
    def banker_margin(self) -> int:
        """Points by which the banker won, 1-9; 0 when the banker did not win (dragon bonus)."""
        return max(0, self.banker_total - self.player_total)

    def side_natural(self, side: Winner) -> bool | None:
        """Whether ``side`` (``Winner.PLAYER`` or ``Winner.BANKER``) had a two-card 8 or 9.

        Uses the stored per-side fact, else derives it from ``natural`` and the totals (on a
        natural round the final total is the two-card total). Raises ``ValueError`` for
        ``Winner.TIE``.
        """
        if side is Winner.PLAYER:
            stored, total = self.player_natural, self.player_total
        elif side is Winner.BANKER:
            stored, total = self.banker_natural, self.banker_total
        else:
            raise ValueError(f"side must be Winner.PLAYER or Winner.BANKER, got {side!r}")
        if stored is not None:
            return stored
        return self.natural and total >= 8

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

