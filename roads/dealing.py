"""A round dealt card by card: the cards of a card write checked against the round in progress,
and what they add to it.

The rules (``docs/api.md`` section "Feed (writes)"; deal order and drawing rules of
``docs/domain.md`` section 1):

* a :class:`DealCards` write carries one or more cards of a round in deal order from a
  1-based ``position``; the tableau (:func:`roads.tableau.next_card`) says whose card each one
  is: P, B, P, B, then the player's third card, then the banker's;
* a card the tableau does not deal now (after the round is complete, past the sixth card) is
  a :class:`roads.errors.DealOrder`; a position that skips ahead a
  :class:`roads.errors.CardGap`; card k again is unchanged, another card at k a
  :class:`roads.errors.CardConflict` naming the stored card;
* the cards of the round in progress (:class:`roads.record.InProgressRound`) are stored
  (``"card"`` events) and count as copies out of the shoe; the card that completes the round
  records it with a ``"round"`` event whose data is exactly the whole round's (so the roads,
  the idempotency and the export are those of a round posted whole, and posting the whole
  round afterwards is unchanged);
* a round in progress may be voided (a misdeal): it is recorded void with its cards so far
  and no result; it never reaches the roads.

The functions here read the record's own types (:class:`roads.record.ShoeRecord`,
:class:`roads.record.RoundRecord`, :class:`roads.record.InProgressRound`) and return what
:class:`roads.table.Table` records or applies; where the round goes in the record (a new shoe,
the next round, another round in progress) is the table's rule. Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Mapping
from typing import Any

from roads.cards import Card, CardError
from roads.errors import BadCardText, CardConflict, CardGap, DealOrder, RoundVoided
from roads.events import CARD, ROUND, Event
from roads.record import (
    InProgressRound, RoundRecord, ShoeRecord, check_copies, deal_order, describe, ordered_round, position_field,
    split_deal,
)
from roads.shoe import MAX_ROUND_CARDS


# ----------------------------------------------------------------------------- the write
@dataclass(frozen=True, slots=True)
class DealCards:
    """Cards of round ``round`` of shoe ``shoe`` dealt from deal position ``position`` (1-based):
    ``cards`` in deal order (canonical strings); ``burn``: cards burned before the round (only
    with card 1); ``cut_card``: the cut card came out during the round (or right after it).

    Construction raises :class:`roads.errors.BadCardText` (field ``"cards[i]"`` /
    ``"burn[i]"``) and :class:`roads.errors.DealOrder` (no cards, past the sixth card, burn
    after card 1).
    """

    shoe: int
    round: int
    position: int
    cards: tuple[str, ...]
    burn: tuple[str, ...] = ()
    cut_card: bool = False
    creates_table = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", tuple(self.cards))
        object.__setattr__(self, "burn", tuple(self.burn))
        for name, texts in (("cards", self.cards), ("burn", self.burn)):
            for i, text in enumerate(texts):
                try:
                    Card.parse(text)
                except CardError as e:
                    raise BadCardText(str(e), field=f"{name}[{i}]") from None
        if not self.cards:
            raise DealOrder("a card write carries at least one card", field="cards")
        last = self.position + len(self.cards) - 1
        if self.position < 1 or last > MAX_ROUND_CARDS:
            raise DealOrder(f"cards {self.position}-{last} of a round: a round has cards 1-{MAX_ROUND_CARDS} "
                            "(three a side at most)", field="position")
        if self.burn and self.position != 1:
            raise DealOrder(f"burn cards come out before the round's first card: send them with card 1, "
                            f"not card {self.position}", field="burn")


def _where(shoe: int, round_no: int) -> str:
    return f"shoe {shoe} round {round_no}"


# ----------------------------------------------------------------------------- deciding
def deal(w: DealCards, ip: InProgressRound | None, copies: Mapping[Card, int],
         decks: int) -> tuple[str, dict[str, Any]] | None:
    """The event kind and data of card write ``w`` on ``ip``, the round in progress (``None``:
    ``w`` starts the round), in a shoe of ``decks`` decks with ``copies`` out of it:
    ``("card", {"position", "cards", "burn"?, "cut_card"?})`` while the round stays in progress,
    ``("round", {"round": the whole round})`` when these cards complete it, ``None`` when every
    card is already stored (unchanged).

    Raises CardConflict (``extra["stored"]``: ``{"position", "card"}`` or ``{"burn"}``), CardGap,
    DealOrder (field ``"cards[i]"``), TooManyCopies.
    """
    shoe_no = w.shoe
    dealt = ip.cards if ip is not None else []
    for i, card in enumerate(w.cards):
        k = w.position + i
        if k <= len(dealt) and dealt[k - 1] != card:
            raise CardConflict(f"card {k} of {_where(shoe_no, w.round)} is stored as {dealt[k - 1]}; got {card}",
                               field=f"cards[{i}]", extra={"stored": {"position": k, "card": dealt[k - 1]}})
    if w.position > len(dealt) + 1:
        raise CardGap(f"{_where(shoe_no, w.round)} has {len(dealt)} card(s); the next is card {len(dealt) + 1}, "
                      f"got card {w.position}", field="position")
    stored_burn = ip.burn if ip is not None else []
    new_burn = list(w.burn) if ip is None else []
    if ip is not None and w.burn and list(w.burn) != stored_burn:
        raise CardConflict(f"the burn of {_where(shoe_no, w.round)} is stored as {stored_burn}; got {list(w.burn)}",
                           field="burn", extra={"stored": {"burn": stored_burn}})
    skip = len(dealt) - w.position + 1
    new = list(w.cards[skip:]) if skip > 0 else list(w.cards)
    new_cut = w.cut_card and not (ip is not None and ip.cut_card)
    if not new and not new_cut:
        return None
    try:
        _, _, side = split_deal(dealt + new)
    except DealOrder as e:
        k = int(e.extra.get("position", 0))
        raise DealOrder(e.message, field=f"cards[{k - w.position}]") from None
    check_copies(copies, decks, [(f"burn[{i}]", Card.parse(c)) for i, c in enumerate(new_burn)]
                 + [(f"cards[{len(w.cards) - len(new) + i}]", Card.parse(c)) for i, c in enumerate(new)], shoe_no)
    if side is None:  # complete: the round as if posted whole
        player, banker, _ = split_deal(dealt + new)
        whole: dict[str, Any] = {"player": player, "banker": banker}
        if stored_burn or new_burn:
            whole["burn"] = stored_burn or new_burn
        if new_cut or (ip is not None and ip.cut_card):
            whole["cut_card"] = True
        return ROUND, {"round": ordered_round(whole)}
    payload: dict[str, Any] = {"position": len(dealt) + 1, "cards": new}
    if new_burn:
        payload["burn"] = new_burn
    if new_cut:
        payload["cut_card"] = True
    return CARD, payload


def check_recorded(shoe_no: int, stored: RoundRecord, w: DealCards) -> None:
    """Cards for a recorded round of shoe ``shoe_no``: nothing when they are its cards (now or
    as first recorded: the write is unchanged), else the error of its content now:
    CardConflict, DealOrder, RoundVoided (cards beyond those of a round voided in progress)."""
    errors = []
    for data in (stored.data, stored.original):
        try:
            _match(shoe_no, stored, data, w)
            return
        except (CardConflict, DealOrder, RoundVoided) as e:
            errors.append(e)
    raise errors[0]


def _match(shoe_no: int, stored: RoundRecord, data: Mapping[str, Any], w: DealCards) -> None:
    where = _where(shoe_no, stored.number)
    dealt = deal_order(data)
    if dealt is None:
        raise CardConflict(f"{where} is recorded result-level ({describe(data)}): it has no cards to compare",
                           field="cards", extra={"stored": stored.export(shoe_no)})
    for i, card in enumerate(w.cards):
        k = w.position + i
        if k > len(dealt):
            if stored.result is None:
                raise RoundVoided(f"{where} was voided in progress after {len(dealt)} card(s) "
                                  f"({stored.void['reason']!r}); card {k} is not dealt", field=f"cards[{i}]",
                                  extra={"stored": stored.export(shoe_no)})
            raise DealOrder(f"{where} is complete with {len(dealt)} cards; card {k} ({card}) is not dealt",
                            field=f"cards[{i}]")
        if dealt[k - 1] != card:
            raise CardConflict(f"card {k} of {where} is stored as {dealt[k - 1]}; got {card}", field=f"cards[{i}]",
                               extra={"stored": {"position": k, "card": dealt[k - 1]}})
    if w.burn and list(w.burn) != list(data.get("burn", [])):
        raise CardConflict(f"the burn of {where} is stored as {list(data.get('burn', []))}; got {list(w.burn)}",
                           field="burn", extra={"stored": {"burn": list(data.get("burn", []))}})
    if w.cut_card and not data.get("cut_card"):
        raise CardConflict(f"{where} is recorded without the cut card; to flag it, correct the round (PUT)",
                           field="cut_card", extra={"stored": stored.export(shoe_no)})


def check_whole(shoe: ShoeRecord, data: Mapping[str, Any]) -> None:
    """Whether ``data``, a whole canonical round, completes ``shoe``'s round in progress: its cards
    must begin with the cards dealt, with the same burn (and the cut card if flagged).

    Raises CardConflict (field: the whole round's field of the first differing card, ``"burn"``,
    ``"cut_card"`` or ``"result"``), TooManyCopies (its cards not dealt yet)."""
    ip = shoe.in_progress
    assert ip is not None
    where = _where(shoe.number, ip.number)
    dealt = deal_order(data)
    if dealt is None:
        raise CardConflict(f"{where} is in progress card by card ({len(ip.cards)} card(s)); a result-level round "
                           "cannot complete it", field="result", extra={"in_progress": ip.to_json()})
    player_cards = len(data["player"])
    for k, card in enumerate(ip.cards, 1):
        if k > len(dealt) or dealt[k - 1] != card:
            got = dealt[k - 1] if k <= len(dealt) else "no card"
            raise CardConflict(f"card {k} of {where} is stored as {card}; this round has {got} there",
                               field=position_field(k, player_cards), extra={"stored": {"position": k, "card": card}})
    if list(data.get("burn", [])) != ip.burn:
        raise CardConflict(f"the burn of {where} is stored as {ip.burn}; this round has {list(data.get('burn', []))}",
                           field="burn", extra={"stored": {"burn": list(ip.burn)}})
    if ip.cut_card and not data.get("cut_card"):
        raise CardConflict(f"{where} is in progress with the cut card out; this round does not flag it",
                           field="cut_card", extra={"in_progress": ip.to_json()})
    new = [(position_field(k, player_cards), Card.parse(c)) for k, c in enumerate(dealt, 1) if k > len(ip.cards)]
    check_copies(shoe.copies, shoe.decks, new, shoe.number)


# ----------------------------------------------------------------------------- applying
def add_cards(ip: InProgressRound | None, recorded: int, ev: Event) -> tuple[InProgressRound, list[Card]]:
    """A ``"card"`` event applied to ``ip``, the round in progress (``None``: the event's first
    card starts it) of a shoe with ``recorded`` rounds: ``(the round in progress with the new
    cards, the cards that left the shoe: burn, then dealt)``. ``ip`` is not changed.

    Raises ``ValueError`` for a card event that does not fit (a damaged store).
    """
    d = ev.data
    if ip is None:
        if ev.round != recorded + 1 or d["position"] != 1:
            raise ValueError(f"table {ev.table!r} shoe {ev.shoe}: card {d['position']} of round {ev.round} "
                             f"after round {recorded}")
        ip = InProgressRound(ev.round, ev.at)
    elif ev.round != ip.number or d["position"] != len(ip.cards) + 1:
        raise ValueError(f"table {ev.table!r} shoe {ev.shoe}: card {d['position']} of round {ev.round} while "
                         f"round {ip.number} has {len(ip.cards)} card(s)")
    burn = list(d.get("burn") or ())
    cards = list(d["cards"])
    after = InProgressRound(ip.number, ip.started_at, ip.cards + cards, ip.burn + burn,
                            ip.cut_card or bool(d.get("cut_card")))
    return after, [Card.parse(c) for c in burn + cards]
