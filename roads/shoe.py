"""The shoe: shuffled decks, the burn at a new shoe, the cut card, dealing rounds.

Shoe procedure (docs/domain.md section 2):

* **Burn at a new shoe**: the first card is turned face up; its value says how many more
  cards are burned, and 10/J/Q/K burn 10. The turned card and the burned cards play no part:
  :attr:`Shoe.burn_cards` holds them, turned card first (2 to 11 cards).
* **Cut card** (the blue card), placed before play at
  :attr:`Shoe.cut_card_position` cards from the back of the shoe:

  - it comes out *during* a round (any card of the round but its first, or the first card
    when a between-rounds burn card opened the round): that round is the last of the shoe;
  - it comes out as *the first card after a finished round* (the next round's first card,
    or the between-rounds burn card): the shoe ends there, the finished round was the last;
  - cards after the last round are void: they are never dealt.

  The dealer sets the cut card aside and carries on with the next card, so a round in
  which the cut card comes out is dealt in full.
* **Burn between rounds** (one card between every two hands): a table setting,
  ``burn_between_rounds``.

The shoe reports which round is the last: :attr:`DealtRound.is_last` on that round and
:attr:`Shoe.cut_card_round` once the cut card has come out. Dealing follows the tableau
(:func:`roads.tableau.deal_round`).

Standard library only.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Iterable, Iterator

from roads.cards import CARDS_PER_DECK, Card, full_deck, parse_cards
from roads.outcome import RoundResult
from roads.tableau import deal_round

MAX_DECKS = 16
"""Largest deck count a shoe accepts (real shoes hold 1-8 decks)."""

MAX_BURN = 11
"""Most cards the new-shoe burn can take: the turned card plus 10."""

MAX_ROUND_CARDS = 6
"""Most cards one round can use (three a side)."""

MIN_CUT_CARD_POSITION = MAX_ROUND_CARDS
"""Fewest cards a shuffled shoe accepts behind the cut card: a round in which the cut card
comes out (at worst as its first card, after a between-rounds burn) can still be dealt in
full."""


def cut_card_range(decks: int) -> tuple[int, int]:
    """Where the cut card may go in a shuffled shoe of ``decks`` decks: ``(low, high)`` in cards
    from the back of the shoe, both included.

    ``docs/domain.md`` section 2 (the blue card): the dealer places the cut card in
    the shoe before play, and the round in which it comes out (or the finished round just
    before it) is the last. So it must lie inside the cards that can be dealt: at least
    :data:`MIN_CUT_CARD_POSITION` cards behind it (that last round is dealt in full), and in
    front of it room for the new-shoe burn (at most :data:`MAX_BURN` cards) and one round
    (:data:`MAX_ROUND_CARDS`). No source fixes a depth inside that range. For 8 decks:
    ``(6, 399)``. ``decks`` is not checked here (see :class:`Shoe`).
    """
    return MIN_CUT_CARD_POSITION, CARDS_PER_DECK * decks - MAX_BURN - MAX_ROUND_CARDS


def check_cut_card_position(position: object, decks: int) -> int:
    """``position`` when it is an integer inside :func:`cut_card_range` of ``decks``; raises
    :class:`ShoeError` otherwise, quoting it and the range ("must be an integer 6-399 (cards
    from the back of a shoe of 8 decks), got 500"). The one rule for a dealt shoe, the feed's
    explicit shoe start (:class:`roads.table.Table`) and ``roads simulate --cut-card``."""
    low, high = cut_card_range(decks)
    if isinstance(position, bool) or not isinstance(position, int) or not low <= position <= high:
        noun = "deck" if decks == 1 else "decks"
        raise ShoeError(f"cut_card_position must be an integer {low}-{high} "
                        f"(cards from the back of a shoe of {decks} {noun}), got {position!r}")
    return position


def default_cut_card_position(decks: int) -> int:
    """Where a shuffled shoe places the cut card when none is given, in cards from the back.

    One deck (52 cards) from the back for 6-8 decks (an 8-deck shoe then lasts about 70-75
    rounds, past the 60-round side-bet windows of docs/domain.md section 3); a quarter of the
    shoe for smaller shoes (13 cards for a single deck). No source fixes a depth (section 2).
    """
    return min(CARDS_PER_DECK, CARDS_PER_DECK * decks // 4)


class ShoeError(ValueError):
    """A shoe set up with bad arguments (deck count, cut-card position, card order).

    The message quotes the bad input.
    """


class ShoeFinishedError(RuntimeError):
    """:meth:`Shoe.deal_round` was called after the last round of the shoe."""


class ShoeExhaustedError(RuntimeError):
    """A shoe built from a given card order ran out of cards in the middle of a round."""


@dataclass(frozen=True, slots=True)
class DealtRound:
    """One round dealt from a shoe.

    ``number`` is 1-based within the shoe; ``player`` / ``banker`` are the cards of each
    side in deal order (2-3 each); ``result`` is their :class:`RoundResult`; ``is_last`` is
    True on the last round of the shoe (the cut card came out during it or right after it).
    ``burned`` holds the between-rounds burn card dealt just before this round (docs/domain.md
    section 2; empty otherwise).
    """

    number: int
    player: tuple[Card, ...]
    banker: tuple[Card, ...]
    result: RoundResult
    is_last: bool
    burned: tuple[Card, ...] = ()

    @property
    def cards(self) -> tuple[Card, ...]:
        """The round's cards in the order they left the shoe: P1 B1 P2 B2, then P3, B3."""
        p, b = self.player, self.banker
        return (p[0], b[0], p[1], b[1]) + p[2:] + b[2:]


class Shoe:
    """A shoe of ``decks`` shuffled decks, burned and cut, dealing rounds by the tableau.

    ``Shoe(decks=8, *, rng=None, cut_card_position=None, burn_between_rounds=False)``:

    * ``decks``: 1 to :data:`MAX_DECKS` standard 52-card decks;
    * ``rng``: the ``random.Random`` that shuffles (inject a seeded one for reproducible
      shoes; ``None`` = a fresh ``random.Random()`` seeded by the OS);
    * ``cut_card_position``: cards behind the cut card, counted from the back of the shoe,
      :func:`cut_card_range` (6 to ``52 * decks - 17``: room for the burn and one round);
      ``None`` = :func:`default_cut_card_position`;
    * ``burn_between_rounds``: burn one card before every round but the first (docs/domain.md section 2).

    The new-shoe burn happens in the constructor. Raises :class:`ShoeError` for a bad deck
    count or cut-card position. Use :meth:`from_cards` to start from a given card order.

    State (read-only attributes): :attr:`burn_cards`, :attr:`rounds_dealt`,
    :attr:`finished`, :attr:`cut_card_round`, :attr:`cards_remaining`.
    """

    def __init__(
        self,
        decks: int = 8,
        *,
        rng: random.Random | None = None,
        cut_card_position: int | None = None,
        burn_between_rounds: bool = False,
    ) -> None:
        if isinstance(decks, bool) or not isinstance(decks, int) or not 1 <= decks <= MAX_DECKS:
            raise ShoeError(f"decks must be an integer 1-{MAX_DECKS}, got {decks!r}")
        if cut_card_position is None:
            cut_card_position = default_cut_card_position(decks)
        check_cut_card_position(cut_card_position, decks)
        cards = full_deck() * decks
        (rng if rng is not None else random.Random()).shuffle(cards)
        self._start(cards, decks=decks, cut_card_position=cut_card_position,
                    burn_between_rounds=burn_between_rounds, burn=True)

    @classmethod
    def from_cards(
        cls,
        cards: Iterable[Card | str] | str,
        *,
        cut_card_position: int | None = None,
        burn_between_rounds: bool = False,
        burn: bool = True,
    ) -> "Shoe":
        """A shoe whose cards come out in the given order (top of the shoe first; for tests).

        ``cards`` are :class:`Card` objects or card strings (or one string of cards, see
        :func:`roads.cards.parse_cards`); with ``burn`` (default) the first card is the
        turned card of the new-shoe burn. ``cut_card_position`` counts cards from the back,
        0 to ``len(cards)``; ``None`` = no cut card: the shoe ends when its last card has
        been dealt by a finished round (as if the cut card sat behind the last card).
        ``decks`` is the number of whole decks the order holds (0 for a short order).

        Raises :class:`ShoeError` for a card that does not parse, a bad cut-card position,
        or an order whose burn does not fit or leaves no room for a round before the cut
        card. Dealing raises :class:`ShoeExhaustedError` when the order runs out mid-round.
        """
        try:
            parsed = list(parse_cards(cards) if isinstance(cards, str)
                          else (c if isinstance(c, Card) else Card.parse(c) for c in cards))
        except ValueError as exc:
            raise ShoeError(f"bad card order: {exc}") from None
        size = len(parsed)
        if cut_card_position is None:
            cut_card_position = 0
        if isinstance(cut_card_position, bool) or not isinstance(cut_card_position, int) \
                or not 0 <= cut_card_position <= size:
            raise ShoeError(f"cut_card_position must be an integer 0-{size} (cards from the back "
                            f"of a {size}-card order), got {cut_card_position!r}")
        shoe = cls.__new__(cls)
        shoe._start(parsed, decks=size // CARDS_PER_DECK, cut_card_position=cut_card_position,
                    burn_between_rounds=burn_between_rounds, burn=burn)
        return shoe

    def _start(self, cards: list[Card], *, decks: int, cut_card_position: int,
               burn_between_rounds: bool, burn: bool) -> None:
        self.decks: int = decks
        """Decks in the shoe (whole decks of a given order for :meth:`from_cards`)."""
        self.cut_card_position: int = cut_card_position
        """Cards behind the cut card, counted from the back of the shoe."""
        self.burn_between_rounds: bool = bool(burn_between_rounds)
        """Whether one card is burned before every round but the first (docs/domain.md section 2)."""
        self._cards = cards
        self._next = 0
        self._cut_index = len(cards) - cut_card_position
        self._cut_out = False
        self._finished = False
        self._rounds = 0
        self._cut_round: int | None = None
        self._round_burns: list[Card] = []
        burned: tuple[Card, ...] = ()
        if burn:
            if not cards:
                raise ShoeError("an empty card order cannot be burned")
            count = 1 + cards[0].burn_count
            if count > self._cut_index:
                raise ShoeError(f"the burn ({count} cards, turned card {cards[0]}) reaches the cut card "
                                f"{cut_card_position} cards from the back of a {len(cards)}-card shoe")
            burned = tuple(cards[:count])
            self._next = count
        self.burn_cards: tuple[Card, ...] = burned
        """The new-shoe burn, turned card first (empty when started without burn)."""
        if self._next >= self._cut_index:
            raise ShoeError(f"the cut card ({cut_card_position} cards from the back of a {len(cards)}-card "
                            f"shoe) would come out before the first round")

    # ------------------------------------------------------------------ state
    @property
    def finished(self) -> bool:
        """True once the last round of the shoe has been dealt."""
        return self._finished

    @property
    def rounds_dealt(self) -> int:
        """Rounds dealt so far (starts at 0)."""
        return self._rounds

    @property
    def cut_card_round(self) -> int | None:
        """Number of the last round, set when the cut card comes out (during that round or
        right after it); ``None`` before."""
        return self._cut_round

    @property
    def cards_remaining(self) -> int:
        """Cards not dealt or burned yet, including those behind the cut card."""
        return len(self._cards) - self._next

    @property
    def round_burn_cards(self) -> tuple[Card, ...]:
        """Cards burned between rounds so far (docs/domain.md section 2), in order."""
        return tuple(self._round_burns)

    # ------------------------------------------------------------------ dealing
    def _draw(self) -> Card:
        if self._next == self._cut_index and not self._cut_out:
            self._cut_out = True
            self._cut_round = self._rounds + 1
        if self._next >= len(self._cards):
            raise ShoeExhaustedError(
                f"the shoe ran out of cards in round {self._rounds + 1} after {len(self._cards)} cards")
        card = self._cards[self._next]
        self._next += 1
        return card

    def deal_round(self) -> DealtRound:
        """Deal the next round (mutates the shoe) and return it.

        Burns one card first when ``burn_between_rounds`` and this is not the first round.
        The returned round has ``is_last`` True when the cut card came out during it or is
        the next card to come out; the shoe is then :attr:`finished`. Raises
        :class:`ShoeFinishedError` when the shoe is finished and
        :class:`ShoeExhaustedError` when a given card order runs out mid-round.
        """
        if self._finished:
            raise ShoeFinishedError(f"the shoe is finished: round {self._rounds} was its last round")
        burned: tuple[Card, ...] = ()
        if self.burn_between_rounds and self._rounds > 0:
            burned = (self._draw(),)
            self._round_burns.extend(burned)
        player, banker = deal_round(self._draw)
        self._rounds += 1
        if not self._cut_out and self._next == self._cut_index:
            # The cut card is the first card after this finished round: the shoe ends here.
            self._cut_out = True
            self._cut_round = self._rounds
        is_last = self._cut_out
        self._finished = is_last
        return DealtRound(
            number=self._rounds,
            player=player,
            banker=banker,
            result=RoundResult.from_cards(player, banker),
            is_last=is_last,
            burned=burned,
        )

    def deal_all(self) -> list[DealtRound]:
        """Deal every remaining round up to and including the last one (mutates the shoe)."""
        return list(self.rounds())

    def rounds(self) -> Iterator[DealtRound]:
        """Deal the remaining rounds one by one as they are asked for (mutates the shoe)."""
        while not self._finished:
            yield self.deal_round()

    def __repr__(self) -> str:
        state = "finished" if self._finished else "dealing"
        return (f"<Shoe decks={self.decks} cut_card_position={self.cut_card_position} "
                f"rounds_dealt={self._rounds} cards_remaining={self.cards_remaining} {state}>")
