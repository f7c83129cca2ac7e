"""The third-card tableau of punto banco: who draws, dealing a round, checking a round.

Source: docs/domain.md section 1 (every source document agrees):

* Natural: either side's two-card total is 8 or 9 -> both stand.
* Player draws on 0-5, stands on 6-7.
* Banker, when the player stood: draws on 0-5, stands on 6-7.
* Banker, when the player drew a third card of value v:
  0-2 always draws; 3 draws unless v = 8; 4 draws on v 2-7; 5 on v 4-7; 6 on v 6-7; 7 stands.
"""

from __future__ import annotations

from typing import Callable, Sequence

from roads.cards import Card, hand_total

# Banker total -> player-third-card values on which the banker draws (docs/domain.md section 1).
BANKER_DRAWS_ON: dict[int, frozenset[int]] = {
    0: frozenset(range(10)),
    1: frozenset(range(10)),
    2: frozenset(range(10)),
    3: frozenset({0, 1, 2, 3, 4, 5, 6, 7, 9}),
    4: frozenset({2, 3, 4, 5, 6, 7}),
    5: frozenset({4, 5, 6, 7}),
    6: frozenset({6, 7}),
    7: frozenset(),
}


class TableauError(ValueError):
    """A card-level round whose cards break the third-card rules.

    ``rule`` names the rule broken (e.g. ``"natural"``, ``"player_draws_0_5"``,
    ``"banker_stands"``); the message says it in words.
    """

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule


def is_natural(two_card_total: int) -> bool:
    """True when a two-card total (0-9) is 8 or 9: both hands then stand."""
    return two_card_total >= 8


def player_draws(player_total: int) -> bool:
    """Whether the player draws a third card on a two-card total 0-7 (no natural on the table).

    Player draws on 0-5, stands on 6-7.
    """
    return player_total <= 5


def banker_draws(banker_total: int, player_third: int | None) -> bool:
    """Whether the banker draws on a two-card total 0-7 (no natural on the table).

    ``player_third`` is the value (0-9) of the player's third card, or ``None`` when the
    player stood. Raises :class:`TableauError` (a ``ValueError``; rule ``"banker_total"`` or
    ``"player_third"``) for a total outside 0-7 or a value outside 0-9.
    """
    if isinstance(banker_total, bool) or not isinstance(banker_total, int) or not 0 <= banker_total <= 7:
        raise TableauError("banker_total",
                           f"banker two-card total must be an integer 0-7 without a natural, got {banker_total!r}")
    if player_third is None:
        return banker_total <= 5
    if isinstance(player_third, bool) or not isinstance(player_third, int) or not 0 <= player_third <= 9:
        raise TableauError("player_third", f"player third-card value must be an integer 0-9, got {player_third!r}")
    return player_third in BANKER_DRAWS_ON[banker_total]


def deal_round(draw: Callable[[], Card]) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    """Deal one round from ``draw`` (called once per card): P, B, P, B, then third cards.

    Deal order (docs/domain.md section 1): player, banker, player, banker, then the player's
    and the banker's third cards when the drawing rules call for them. Returns
    ``(player_cards, banker_cards)``, each 2 or 3 cards; whatever ``draw`` raises passes through.
    """
    p1, b1, p2, b2 = draw(), draw(), draw(), draw()
    player = [p1, p2]
    banker = [b1, b2]
    pt, bt = hand_total(player), hand_total(banker)
    if is_natural(pt) or is_natural(bt):
        return tuple(player), tuple(banker)
    third: int | None = None
    if player_draws(pt):
        card = draw()
        player.append(card)
        third = card.value
    if banker_draws(bt, third):
        banker.append(draw())
    return tuple(player), tuple(banker)


def check_round(player: Sequence[Card], banker: Sequence[Card]) -> None:
    """Check a dealt round against the tableau; return ``None`` when it is legal.

    ``player`` and ``banker`` are the cards of each side in deal order (first two, then
    the third). Raises :class:`TableauError` naming the rule broken (``rule`` attribute):

    * ``"not_a_card"``: an item is not a :class:`roads.cards.Card`;
    * ``"card_count"``: a side with fewer than 2 or more than 3 cards;
    * ``"natural"``: a third card after a natural 8/9 on either side;
    * ``"player_draws_0_5"`` / ``"player_stands_6_7"``: the player stood on 0-5 or drew on 6-7;
    * ``"banker_draws"`` / ``"banker_stands"``: the banker stood or drew against the banker
      table (docs/domain.md section 1; after a player who stood: draws on 0-5, stands on 6-7).

    Repeated cards are not refused: an 8-deck shoe holds 8 copies of each card.
    """
    for side, cards in (("player", player), ("banker", banker)):
        for card in cards:
            if not isinstance(card, Card):
                raise TableauError("not_a_card", f"{side} card {card!r} is not a Card (parse it with Card.parse)")
        if not 2 <= len(cards) <= 3:
            raise TableauError("card_count", f"{side} has {len(cards)} cards; a hand has 2 or 3")
    cards = f" (player {' '.join(map(str, player))}; banker {' '.join(map(str, banker))})"
    pt, bt = hand_total(player[:2]), hand_total(banker[:2])
    if is_natural(pt) or is_natural(bt):
        if len(player) == 3 or len(banker) == 3:
            who, total = ("player", pt) if is_natural(pt) else ("banker", bt)
            raise TableauError("natural", f"{who} has a natural {total}: both hands stand on two cards{cards}")
        return
    if player_draws(pt) and len(player) == 2:
        raise TableauError("player_draws_0_5",
                           f"player total {pt} must draw a third card (player draws on 0-5){cards}")
    if not player_draws(pt) and len(player) == 3:
        raise TableauError("player_stands_6_7", f"player total {pt} must stand (player stands on 6-7){cards}")
    third = player[2].value if len(player) == 3 else None
    must_draw = banker_draws(bt, third)
    after = "player stood" if third is None else f"player third card {third}"
    if must_draw and len(banker) == 2:
        raise TableauError("banker_draws", f"banker total {bt} must draw after {after}{cards}")
    if not must_draw and len(banker) == 3:
        raise TableauError("banker_stands", f"banker total {bt} must stand after {after}{cards}")


PLAYER = "player"
BANKER = "banker"


def next_card(player: Sequence[Card], banker: Sequence[Card]) -> str | None:
    """Whose card the next one out of the shoe is, for a round dealt so far: ``"player"``,
    ``"banker"``, or ``None`` when the round is complete.

    ``player`` and ``banker`` are the cards each side has so far, in deal order; they must be
    a prefix of a legal deal (P, B, P, B, then the player's third card when the player draws,
    then the banker's when the banker draws: the deal order and drawing rules of
    docs/domain.md section 1). Raises :class:`TableauError` (rule ``"deal_order"``) when they
    are not: a side ahead of the deal order, or a third card the tableau does not deal.
    """
    np, nb = len(player), len(banker)
    if np < 2 or nb < 2:
        if nb > np or np > nb + 1:
            raise TableauError("deal_order", f"cards are dealt P, B, P, B: player has {np}, banker {nb}")
        return PLAYER if np == nb else BANKER
    pt, bt = hand_total(player[:2]), hand_total(banker[:2])
    natural = is_natural(pt) or is_natural(bt)
    player_more = not natural and player_draws(pt)
    if np > 2 + player_more or (nb > 2 and np < 2 + player_more):
        raise TableauError("deal_order", f"player has {np} cards; the tableau deals {2 + player_more}")
    if player_more and np == 2:
        return PLAYER
    banker_more = not natural and banker_draws(bt, player[2].value if np == 3 else None)
    if nb > 2 + banker_more:
        raise TableauError("deal_order", f"banker has {nb} cards; the tableau deals {2 + banker_more}")
    if banker_more and nb == 2:
        return BANKER
    return None
