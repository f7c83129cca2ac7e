"""Playing cards and their text notation.

A card is written rank then suit: ``"AS"`` (ace of spades), ``"TD"`` (ten of diamonds),
``"KH"``, ``"9C"``. On input ``"10D"`` is accepted for the ten and lower case is
folded; on output the ten is always ``"T"``, so ``str(Card.parse(s))`` is the canonical
form and ``Card.parse(str(card)) == card``.

Baccarat value (domain digest section 1; seed 003 "card values"): ace counts 1, 2-9 count
their face, 10/J/Q/K count 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K")
"""The thirteen ranks in notation order; ``T`` is the ten."""

SUITS: tuple[str, ...] = ("S", "H", "D", "C")
"""Spades, hearts, diamonds, clubs."""

_RANK_VALUE = {"A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
               "T": 0, "J": 0, "Q": 0, "K": 0}


class CardError(ValueError):
    """A card string that is not a rank followed by a suit (the message quotes it)."""


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One playing card.

    ``rank`` is one of :data:`RANKS`, ``suit`` one of :data:`SUITS`. Construct with
    :meth:`parse` from text; the constructor checks both fields and raises
    :class:`CardError` on anything else.
    """

    rank: str
    suit: str

    def __post_init__(self) -> None:
        if self.rank not in _RANK_VALUE or self.suit not in SUITS:
            raise CardError(f"not a card: rank {self.rank!r}, suit {self.suit!r}")

    @classmethod
    def parse(cls, text: str) -> "Card":
        """Parse ``"AS"``, ``"TD"``, ``"10D"``, ``"kh"`` into a card.

        Raises :class:`CardError` (quoting ``text``) when it is not a string of a rank
        (A, 2-9, T or 10, J, Q, K) followed by a suit (S, H, D, C).
        """
        if not isinstance(text, str):
            raise CardError(f"card must be a string like 'AS' or 'TD', got {text!r}")
        s = text.strip().upper()
        if s.startswith("10"):
            s = "T" + s[2:]
        if len(s) != 2 or s[0] not in _RANK_VALUE or s[1] not in SUITS:
            raise CardError(f"not a card: {text!r} (expected rank A,2-9,T/10,J,Q,K then suit S,H,D,C)")
        return cls(s[0], s[1])

    @property
    def value(self) -> int:
        """Baccarat value 0-9: A=1, 2-9 face value, T/J/Q/K=0."""
        return _RANK_VALUE[self.rank]

    def __str__(self) -> str:
        return self.rank + self.suit

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


def parse_cards(texts: Iterable[str]) -> tuple[Card, ...]:
    """Parse a sequence of card strings; raises :class:`CardError` on the first bad one."""
    return tuple(Card.parse(t) for t in texts)


def hand_total(cards: Iterable[Card]) -> int:
    """Baccarat total of a hand: sum of card values mod 10 (0-9)."""
    return sum(c.value for c in cards) % 10


def full_deck() -> list[Card]:
    """One 52-card deck, no jokers, in rank-major order (ranks A..K, suits S,H,D,C)."""
    return [Card(r, s) for r in RANKS for s in SUITS]
