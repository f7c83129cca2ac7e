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
  and no result; it never reaches the roads;
* cards may leave the shoe face down (``sides`` instead of ``cards``, ``docs/shoes.md`` section
  "Feed extensions"): each is kept as a card back of its side at its deal position
  (:attr:`roads.record.InProgressRound.backs`, checked by :func:`roads.record.check_backs`); its
  face comes later at that position as an ordinary card (not a conflict), checked against the
  tableau then (another side: :class:`roads.errors.DealOrder`), and only then counts as a copy
  out of the shoe; the same back again is unchanged, another side at a position a
  :class:`roads.errors.CardConflict`; the round's burn may come with the face of card 1 when
  its back came without one.

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
from roads.errors import BadCardText, CardConflict, CardGap, DealOrder, RoundHeld, RoundVoided
from roads.events import CARD, ROUND, Event
from roads.record import (
    InProgressRound, RoundRecord, ShoeRecord, check_backs, check_copies, deal_order, describe, face_sides,
    ordered_round, position_field, split_deal,
)

SIDES = ("player", "banker")
"""The sides a card drawn face down may be dealt to."""
from roads.shoe import MAX_ROUND_CARDS


# ----------------------------------------------------------------------------- the write
@dataclass(frozen=True, slots=True)
class DealCards:
    """Cards of round ``round`` of shoe ``shoe`` dealt from deal position ``position`` (1-based):
    ``cards`` in deal order (canonical strings); ``burn``: cards burned before the round (only
    with card 1); ``cut_card``: the cut card came out during the round (or right after it);
    ``sides`` instead of ``cards``: cards drawn face down at ``position``.. for these sides
    (:data:`SIDES`), their faces to come.

    Construction raises :class:`roads.errors.BadCardText` (field ``"cards[i]"`` /
    ``"burn[i]"``) and :class:`roads.errors.DealOrder` (no cards, both cards and sides, a side
    that is not one, past the sixth card, burn after card 1).
    """

    shoe: int
    round: int
    position: int
    cards: tuple[str, ...]
    burn: tuple[str, ...] = ()
    cut_card: bool = False
    sides: tuple[str, ...] = ()
    creates_table = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", tuple(self.cards))
        object.__setattr__(self, "burn", tuple(self.burn))
        object.__setattr__(self, "sides", tuple(self.sides))
        for i, side in enumerate(self.sides):
            if side not in SIDES:
                raise DealOrder(f"a card drawn face down goes to 'player' or 'banker', got {side!r}"[:200],
                                field=f"sides[{i}]")
        if self.cards and self.sides:
            raise DealOrder("give either cards (faces) or sides (cards drawn face down), not both", field="sides")
        for name, texts in (("cards", self.cards), ("burn", self.burn)):
            for i, text in enumerate(texts):
                try:
                    Card.parse(text)
                except CardError as e:
                    raise BadCardText(str(e), field=f"{name}[{i}]") from None
        if not self.cards and not self.sides:
            raise DealOrder("a card write carries at least one card", field="cards")
        last = self.position + len(self.cards or self.sides) - 1
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
    if w.sides:
        return _deal_backs(w, ip, copies, decks)
    shoe_no = w.shoe
    dealt = ip.cards if ip is not None else []
    backs = ip.backs if ip is not None else []
    for i, card in enumerate(w.cards):
        k = w.position + i
        if k <= len(dealt) and dealt[k - 1] != card:
            raise CardConflict(f"card {k} of {_where(shoe_no, w.round)} is stored as {dealt[k - 1]}; got {card}",
                               field=f"cards[{i}]", extra={"stored": {"position": k, "card": dealt[k - 1]}})
    if w.position > len(dealt) + 1:
        raise CardGap(f"{_where(shoe_no, w.round)} has {len(dealt)} card(s); the next is card {len(dealt) + 1}, "
                      f"got card {w.position}", field="position")
    stored_burn = ip.burn if ip is not None else []
    # the burn comes with card 1: with its face when only its back came before (docs/shoes.md)
    burn_open = ip is None or (not ip.cards and not ip.burn and w.position == 1)
    new_burn = list(w.burn) if burn_open else []
    if not burn_open and w.burn and list(w.burn) != stored_burn:
        raise CardConflict(f"the burn of {_where(shoe_no, w.round)} is stored as {stored_burn}; got {list(w.burn)}",
                           field="burn", extra={"stored": {"burn": stored_burn}})
    skip = len(dealt) - w.position + 1
    new = list(w.cards[skip:]) if skip > 0 else list(w.cards)
    new_cut = w.cut_card and not (ip is not None and ip.cut_card)
    if not new and not new_cut and not new_burn:
        return None
    try:
        _, _, side = split_deal(dealt + new)
    except DealOrder as e:
        k = int(e.extra.get("position", 0))
        raise DealOrder(e.message, field=f"cards[{k - w.position}]") from None
    if backs and new:  # faces of cards drawn face down: each on the side its back was drawn for
        sides = face_sides(dealt + new)
        for j, back in enumerate(backs[:len(new)]):
            k = len(dealt) + 1 + j
            if sides[k - 1] != back:
                raise DealOrder(f"card {k} of {_where(shoe_no, w.round)} was drawn face down as the {back}'s; by the "
                                f"tableau card {k} ({new[j]}) is the {sides[k - 1]}'s", field=f"cards[{k - w.position}]")
        if side is None and len(backs) > len(new):
            k = len(dealt) + len(new) + 1
            raise DealOrder(f"card {k} of {_where(shoe_no, w.round)} was drawn face down (the {backs[len(new)]}'s), but "
                            f"the round is complete after {k - 1} cards", field=f"cards[{len(w.cards) - 1}]")
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


def _deal_backs(w: DealCards, ip: InProgressRound | None, copies: Mapping[Card, int],
                decks: int) -> tuple[str, dict[str, Any]] | None:
    """:func:`deal` for cards drawn face down (``w.sides``): ``("card", {"position", "sides",
    "burn"?, "cut_card"?})`` with the new backs, ``None`` when every one is stored (as a back, or
    already with its face, on the same side). Raises CardConflict (another side; ``extra["stored"]``
    ``{"position", "card"}`` or ``{"position", "side"}``), CardGap, DealOrder (field
    ``"sides[i]"``: a side the deal order does not allow), TooManyCopies (the burn)."""
    where = _where(w.shoe, w.round)
    faces = ip.cards if ip is not None else []
    backs = ip.backs if ip is not None else []
    known = face_sides(faces) + list(backs)
    for i, side in enumerate(w.sides):
        k = w.position + i
        if k <= len(known) and known[k - 1] != side:
            stored = {"position": k, "card": faces[k - 1]} if k <= len(faces) else {"position": k, "side": known[k - 1]}
            raise CardConflict(f"card {k} of {where} is stored as the {known[k - 1]}'s; got the {side}'s",
                               field=f"sides[{i}]", extra={"stored": stored})
    if w.position > len(known) + 1:
        raise CardGap(f"{where} has {len(known)} card(s) drawn; the next is card {len(known) + 1}, got card {w.position}",
                      field="position")
    stored_burn = ip.burn if ip is not None else []
    burn_open = ip is None or (not ip.cards and not ip.burn and w.position == 1)
    if not burn_open and w.burn and list(w.burn) != stored_burn:
        raise CardConflict(f"the burn of {where} is stored as {stored_burn}; got {list(w.burn)}",
                           field="burn", extra={"stored": {"burn": stored_burn}})
    new_burn = list(w.burn) if burn_open else []
    skip = len(known) - w.position + 1
    new = list(w.sides[skip:]) if skip > 0 else list(w.sides)
    new_cut = w.cut_card and not (ip is not None and ip.cut_card)
    if not new and not new_cut and not new_burn:
        return None
    bad = check_backs(faces, list(backs) + new)
    if bad is not None:
        k = len(faces) + 1 + bad
        raise DealOrder(f"card {k} of {where} cannot be the {(list(backs) + new)[bad]}'s (deal order P, B, P, B, then "
                        f"the player's third card, then the banker's; cards so far: "
                        f"{' '.join(faces) or 'none'} face up, {len(backs)} face down)",
                        field=f"sides[{k - w.position}]")
    check_copies(copies, decks, [(f"burn[{i}]", Card.parse(c)) for i, c in enumerate(new_burn)], w.shoe)
    payload: dict[str, Any] = {"position": len(known) + 1, "sides": new}
    if new_burn:
        payload["burn"] = new_burn
    if new_cut:
        payload["cut_card"] = True
    return CARD, payload


def check_recorded(shoe_no: int, stored: RoundRecord, w: DealCards) -> None:
    """Cards for a recorded round of shoe ``shoe_no``: nothing when they are its cards (now or
    as first recorded: the write is unchanged), else the error of its content now:
    CardConflict, DealOrder, RoundVoided (cards beyond those of a round voided in progress)."""
    if stored.on_hold:
        raise RoundHeld(f"{_where(shoe_no, stored.number)} is held for the supervisor ({stored.held['reason']}); "
                        "it is resolved by a correction (PUT) or a void", field="round",
                        extra={"stored": stored.export(shoe_no)})
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
    sides = face_sides(dealt)
    for i, side in enumerate(w.sides):  # cards drawn face down: the same sides as recorded
        k = w.position + i
        if k > len(dealt):
            if stored.result is None:
                raise RoundVoided(f"{where} was voided in progress after {len(dealt)} card(s) "
                                  f"({stored.void['reason']!r}); card {k} is not dealt", field=f"sides[{i}]",
                                  extra={"stored": stored.export(shoe_no)})
            raise DealOrder(f"{where} is complete with {len(dealt)} cards; card {k} is not dealt", field=f"sides[{i}]")
        if sides[k - 1] != side:
            raise CardConflict(f"card {k} of {where} is the {sides[k - 1]}'s ({dealt[k - 1]}); got the {side}'s",
                               field=f"sides[{i}]", extra={"stored": {"position": k, "card": dealt[k - 1]}})
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
    sides = face_sides(dealt)
    for j, back in enumerate(ip.backs):
        k = len(ip.cards) + 1 + j
        if k > len(sides) or sides[k - 1] != back:
            raise CardConflict(f"card {k} of {where} was drawn face down as the {back}'s; this round has "
                               f"{'no card' if k > len(sides) else 'the ' + sides[k - 1] + chr(39) + 's'} there",
                               field=position_field(k, player_cards) if k <= len(dealt) else "cards",
                               extra={"stored": {"position": k, "side": back}})
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
    if "sides" in d:
        return _add_backs(ip, recorded, ev), [Card.parse(c) for c in d.get("burn") or ()]
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
                            ip.cut_card or bool(d.get("cut_card")), ip.backs[len(cards):])
    return after, [Card.parse(c) for c in burn + cards]


def _add_backs(ip: InProgressRound | None, recorded: int, ev: Event) -> InProgressRound:
    """A ``"card"`` event of cards drawn face down (``"sides"``) applied to ``ip``."""
    d = ev.data
    if ip is None:
        if ev.round != recorded + 1 or d["position"] != 1:
            raise ValueError(f"table {ev.table!r} shoe {ev.shoe}: card {d['position']} of round {ev.round} "
                             f"after round {recorded}")
        ip = InProgressRound(ev.round, ev.at)
    elif ev.round != ip.number or d["position"] != len(ip.cards) + len(ip.backs) + 1:
        raise ValueError(f"table {ev.table!r} shoe {ev.shoe}: card {d['position']} of round {ev.round} (face down) "
                         f"while round {ip.number} has {len(ip.cards) + len(ip.backs)} card(s)")
    return InProgressRound(ip.number, ip.started_at, list(ip.cards), ip.burn + list(d.get("burn") or ()),
                           ip.cut_card or bool(d.get("cut_card")), ip.backs + list(d["sides"]))
