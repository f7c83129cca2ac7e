"""Playing cards and their text notation.

A card is written rank then suit: ``"AS"`` (ace of spades), ``"TD"`` (ten of diamonds),
``"KH"``, ``"9C"``. On input ``"10D"`` is accepted for the ten, lower case is folded,
surrounding blanks are ignored and the suit symbols ``♠ ♥ ♦ ♣`` are read as ``S H D C``; on
output the ten is always ``"T"``, so ``str(Card.parse(s))`` is the canonical form and
``Card.parse(str(card)) == card`` for every card.

Baccarat value (docs/domain.md section 1): ace counts 1, 2-9 count their face, 10/J/Q/K
count 0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K")
"""The thirteen ranks in notation order; ``T`` is the ten."""

SUITS: tuple[str, ...] = ("S", "H", "D", "C")
"""Spades, hearts, diamonds, clubs."""

CARDS_PER_DECK = 52
"""Cards in one standard deck (no jokers: docs/domain.md section 1)."""

_RANK_VALUE = {"A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
               "T": 0, "J": 0, "Q": 0, "K": 0}
_SUIT_SYMBOLS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C", "♤": "S", "♡": "H", "♢": "D", "♧": "C"}
_SEPARATORS = re.compile(r"[\s,]+")


class CardError(ValueError):
    """A card string that is not a rank followed by a suit (the message quotes it)."""


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One playing card.

    ``rank`` is one of :data:`RANKS`, ``suit`` one of :data:`SUITS`. Construct with
    :meth:`parse` from text; the constructor checks both fields and raises
    :class:`CardError` on anything else (``Card("10", "S")`` is refused: the ten is ``"T"``).
    """

    rank: str
    suit: str

    def __post_init__(self) -> None:
        if not isinstance(self.rank, str) or not isinstance(self.suit, str) \
                or self.rank not in _RANK_VALUE or self.suit not in SUITS:
            raise CardError(f"not a card: rank {self.rank!r}, suit {self.suit!r} "
                            f"(ranks {''.join(RANKS)}, suits {''.join(SUITS)})")

    @classmethod
    def parse(cls, text: str) -> "Card":
        """Parse ``"AS"``, ``"TD"``, ``"10D"``, ``"kh"``, ``"Q♥"`` into a card.

        Raises :class:`CardError` (quoting ``text``) when it is not a string of a rank
        (A, 2-9, T or 10, J, Q, K) followed by a suit (S, H, D, C).
        """
        card = _PARSED.get(text) if cls is Card and type(text) is str else None
        if card is not None:
            return card
        if not isinstance(text, str):
            raise CardError(f"card must be a string like 'AS' or 'TD', got {text!r}")
        s = text.strip()
        if s and s[-1] in _SUIT_SYMBOLS:
            s = s[:-1] + _SUIT_SYMBOLS[s[-1]]
        s = s.upper()
        if s.startswith("10"):
            s = "T" + s[2:]
        if len(s) != 2 or s[0] not in _RANK_VALUE or s[1] not in SUITS:
            raise CardError(f"not a card: {text!r} (expected rank A,2-9,T/10,J,Q,K then suit S,H,D,C)")
        card = cls(s[0], s[1])
        if cls is Card and len(text) <= 3:  # a bounded set of spellings ("AS", "as", "10S", "A♠")
            _PARSED[text] = card
        return card

    @property
    def value(self) -> int:
        """Baccarat value 0-9: A=1, 2-9 face value, T/J/Q/K=0."""
        return _RANK_VALUE[self.rank]

    @property
    def burn_count(self) -> int:
        """Cards this card burns when it is the turned card of a new shoe: its value, 10 for T/J/Q/K.

        ``docs/domain.md`` section 2 ("10, J, Q, K burn 10").
        """
        return self.value or 10

    def __str__(self) -> str:
        return self.rank + self.suit

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


_PARSED: dict[str, Card] = {}
"""Cards already parsed, by their text of at most 3 characters (a feed sends the same 52
spellings over and over; cards are immutable, so one instance serves every round)."""


def parse_cards(texts: Iterable[str] | str) -> tuple[Card, ...]:
    """Parse card strings into a tuple of cards, in order.

    ``texts`` is an iterable of card strings (``["AS", "10D"]``) or one string of cards
    separated by blanks or commas (``"AS 10D, kh"``). Raises :class:`CardError` quoting the
    first bad card.
    """
    if isinstance(texts, str):
        texts = [t for t in _SEPARATORS.split(texts) if t]
    return tuple(Card.parse(t) for t in texts)


def format_cards(cards: Iterable[Card]) -> str:
    """Cards in canonical notation separated by one blank: the inverse of :func:`parse_cards`."""
    return " ".join(str(c) for c in cards)


def hand_total(cards: Iterable[Card]) -> int:
    """Baccarat total of a hand: sum of card values mod 10 (0-9)."""
    return sum(c.value for c in cards) % 10


def full_deck() -> list[Card]:
    """One 52-card deck, no jokers, in rank-major order (ranks A..K, suits S,H,D,C)."""
    return [Card(r, s) for r in RANKS for s in SUITS]
