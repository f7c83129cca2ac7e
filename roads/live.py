"""A table followed live: the round dealt card by card, and the table's state, dealer and limits.

Card by card (``docs/api.md`` section "Feed (writes)"; deal order and drawing rules of
``docs/domain.md`` section 1, seed 004 and seed 001 tables 1-2):

* a :class:`DealCards` write carries one or more cards of a round in deal order from a
  1-based ``position``; the tableau (:func:`roads.tableau.next_card`) says whose card each one
  is: P, B, P, B, then the player's third card, then the banker's;
* a card the tableau does not deal now (after the round is complete, past the sixth card) is
  a :class:`roads.errors.DealOrder`; a position that skips ahead a
  :class:`roads.errors.CardGap`; card k again is unchanged, another card at k a
  :class:`roads.errors.CardConflict` naming the stored card;
* the cards of the round in progress are stored (``"card"`` events) and count as copies out
  of the shoe; the card that completes the round records it with a ``"round"`` event whose
  data is exactly the whole round's (so the roads, the idempotency and the export are those
  of a round posted whole, and posting the whole round afterwards is unchanged);
* a round in progress may be voided (a misdeal): it is recorded void with its cards so far
  and no result; it never reaches the roads.

Table state (:class:`SetState`, :class:`TableStatus`): one of :data:`TABLE_STATES` (``None`` =
not known), since when, the time betting closes (Unix seconds, ``betting`` only), the
dealer's name, and table limits (:func:`check_limits`) that override the configured ones.

These are :class:`roads.table.Table`'s rules for those writes: it dispatches to
:func:`decide_cards`, :func:`decide_state`, :func:`apply_cards` and :func:`apply_state`.
Standard library only.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass
from datetime import datetime, timezone
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Callable

from roads.cards import Card, CardError
from roads.errors import (
    BadCardText, BadTableState, CardConflict, CardGap, DealOrder, RoundVoided, UnknownBet,
)
from roads.events import CARD, ROUND, STATE, Event, Unchanged
from roads.record import (
    InProgressRound, RoundRecord, ShoeRecord, check_copies, deal_order, describe, iso_time, ordered_round,
    position_field, split_deal,
)
from roads.shoe import MAX_ROUND_CARDS
from roads.variants import Variant

if TYPE_CHECKING:  # pragma: no cover
    from roads.table import RecordRound, Table

TABLE_STATES: tuple[str, ...] = ("betting", "dealing", "result", "shuffling", "closed", "maintenance")
"""The states a table reports: bets open, cards coming out, result shown, shoe being shuffled,
table closed, out of service."""

CLOSE_TIME_SLACK_S = 1.0
"""A betting close time within this many seconds of the stored one is the same (a retry of a
``seconds_left`` write a moment later is unchanged)."""


class _Keep:
    __slots__ = ()

    def __repr__(self) -> str:
        return "KEEP"


KEEP: Any = _Keep()
"""A :class:`SetState` field left as it is."""


# ----------------------------------------------------------------------------- writes
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


@dataclass(frozen=True, slots=True)
class SetState:
    """Set the table's state: any of ``state`` (one of :data:`TABLE_STATES` or ``None``),
    ``closes_at`` (Unix seconds) or ``seconds_left`` (from the write's time) while betting,
    ``dealer`` (a name or ``None``), ``limits`` (:func:`check_limits` shape, or ``None`` for the
    configured ones). Fields left :data:`KEEP` stay as they are.

    Construction raises :class:`roads.errors.BadTableState` for an unknown state, both a close
    time and seconds left, negative seconds, or nothing to set.
    """

    state: Any = KEEP
    closes_at: float | None = None
    seconds_left: float | None = None
    dealer: Any = KEEP
    limits: Any = KEEP
    creates_table = True

    def __post_init__(self) -> None:
        if self.state is not KEEP and self.state is not None and self.state not in TABLE_STATES:
            raise BadTableState(f"state must be one of {', '.join(TABLE_STATES)} or null, got {self.state!r}",
                                field="state")
        if self.closes_at is not None and self.seconds_left is not None:
            raise BadTableState("give either closes_at or seconds_left, not both", field="seconds_left")
        if self.seconds_left is not None and self.seconds_left < 0:
            raise BadTableState(f"seconds_left must be 0 or more, got {self.seconds_left!r}", field="seconds_left")
        if (self.state is KEEP and self.dealer is KEEP and self.limits is KEEP
                and self.closes_at is None and self.seconds_left is None):
            raise BadTableState("nothing to set: give state, closes_at, seconds_left, dealer or limits", field=None)


# ----------------------------------------------------------------------------- table state
@dataclass(frozen=True, slots=True)
class TableStatus:
    """The table's state as the feed set it: ``state`` (:data:`TABLE_STATES` or ``None``),
    ``since`` (Unix seconds the state began), ``closes_at`` (Unix seconds betting closes, only
    while ``betting``), ``dealer``, ``limits`` (set by the feed; ``None`` = the configured ones)."""

    state: str | None = None
    since: float | None = None
    closes_at: float | None = None
    dealer: str | None = None
    limits: Mapping[str, Any] | None = None

    def data(self) -> dict[str, Any]:
        """The ``"state"`` event payload."""
        return {"state": self.state, "since": self.since, "closes_at": self.closes_at,
                "dealer": self.dealer, "limits": None if self.limits is None else dict(self.limits)}

    def to_json(self, configured_limits: Mapping[str, Any] | None) -> dict[str, Any]:
        """``{"state", "since", "closes_at" (ISO 8601 UTC or null), "dealer", "limits"}``; limits
        are the feed's, else ``configured_limits``."""
        limits = self.limits if self.limits is not None else configured_limits
        return {"state": self.state, "since": iso_time(self.since), "closes_at": iso_time(self.closes_at),
                "dealer": self.dealer, "limits": None if limits is None else dict(limits)}

    @property
    def blank(self) -> bool:
        """Nothing set (a table that never had a state write)."""
        return self == TableStatus()


def _amount(value: Any, where: str) -> float | int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or value < 0:
        raise BadTableState(f"{where} must be a number 0 or more, got {value!r}", field=where)
    return value


def _min_max(limits: Any, where: str) -> dict[str, Any]:
    if not isinstance(limits, Mapping):
        raise BadTableState(f"{where} must be an object with min and max, got {limits!r}", field=where)
    low, high = _amount(limits.get("min"), f"{where}.min"), _amount(limits.get("max"), f"{where}.max")
    if low > high:
        raise BadTableState(f"{where}.min {low!r} is above {where}.max {high!r}", field=f"{where}.max")
    return {"min": low, "max": high}


def check_limits(limits: Any, variant: Variant, where: str = "limits") -> dict[str, Any]:
    """Table limits checked and in one key order: ``{"min", "max"}`` (per bet, for the main
    bets) plus optional ``"bets": {bet id: {"min", "max"}}`` for bets of ``variant`` with their
    own limits (sorted by bet id). Amounts are numbers >= 0 in the table's currency, ``min <= max``.

    Raises :class:`roads.errors.BadTableState` (field the offending key, e.g. ``"limits.max"``)
    or :class:`roads.errors.UnknownBet` (field ``"limits.bets.<id>"``).
    """
    out = _min_max(limits, where)
    unknown = set(limits) - {"min", "max", "bets"}
    if unknown:
        raise BadTableState(f"{where} has unknown key(s) {', '.join(sorted(map(repr, unknown)))}",
                            field=f"{where}.{sorted(map(str, unknown))[0]}")
    bets = limits.get("bets")
    if bets is not None:
        if not isinstance(bets, Mapping):
            raise BadTableState(f"{where}.bets must be an object of bet ids, got {bets!r}", field=f"{where}.bets")
        for bet in bets:
            if not variant.has_bet(bet):
                raise UnknownBet(f"variant {variant.id!r} has no bet {bet!r} "
                                 f"(bets: {', '.join(b.bet for b in variant.bets)})", field=f"{where}.bets.{bet}")
        out["bets"] = {bet: _min_max(bets[bet], f"{where}.bets.{bet}") for bet in sorted(bets)}
    return out


def ordered_limits(limits: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Checked limits (:func:`check_limits`) in their one key order again, e.g. read back from a
    store that sorts keys, so they encode to the same bytes."""
    if limits is None:
        return None
    out: dict[str, Any] = {"min": limits["min"], "max": limits["max"]}
    if "bets" in limits:
        out["bets"] = {bet: {"min": b["min"], "max": b["max"]} for bet, b in sorted(limits["bets"].items())}
    return out


def decide_state(table: "Table", w: SetState, clock: Callable[[], float]) -> Event | Unchanged:
    """The ``"state"`` event of ``w`` (the whole new state), or unchanged when it sets nothing
    new. A betting close time survives writes that keep the state ``betting``; it is dropped
    when the state changes. Raises :class:`roads.errors.BadTableState` (a close time outside
    betting) and what :func:`check_limits` raises."""
    at = clock()
    cur = table.status
    state = cur.state if w.state is KEEP else w.state
    if w.closes_at is not None or w.seconds_left is not None:
        if state != "betting":
            raise BadTableState(f"a betting close time needs the state 'betting'; the state is {state!r}",
                                field="closes_at" if w.closes_at is not None else "seconds_left")
        closes = w.closes_at if w.closes_at is not None else at + w.seconds_left
        if cur.closes_at is not None and cur.state == "betting" and abs(closes - cur.closes_at) < CLOSE_TIME_SLACK_S:
            closes = cur.closes_at
    else:
        closes = cur.closes_at if state == "betting" and cur.state == "betting" else None
    dealer = cur.dealer if w.dealer is KEEP else w.dealer
    limits = cur.limits
    if w.limits is not KEEP:
        variant = table.current.variant if table.current is not None else table.default_variant()
        limits = None if w.limits is None else check_limits(w.limits, variant)
    since = cur.since if state == cur.state else at
    new = TableStatus(state, since, closes, dealer, limits)
    shoe = table.current.number if table.current is not None else 0
    if new == cur:
        return Unchanged(shoe)
    return table._event(STATE, shoe, None, new.data(), at)


def apply_state(table: "Table", ev: Event) -> None:
    """Apply a ``"state"`` event: the table's state becomes its payload (no shoe changes)."""
    d = ev.data
    table.status = TableStatus(d.get("state"), d.get("since"), d.get("closes_at"), d.get("dealer"),
                               ordered_limits(d.get("limits")))


# ----------------------------------------------------------------------------- cards
def _where(shoe: int, round_no: int) -> str:
    return f"shoe {shoe} round {round_no}"


def decide_cards(table: "Table", w: DealCards, clock: Callable[[], float]) -> Event | Unchanged:
    """The event of a card write: a ``"card"`` event while the round stays in progress, the
    whole round's ``"round"`` event when these cards complete it, or unchanged for cards
    already stored (also of a recorded round, against its content now or as first recorded).

    Raises, besides the round rules of :meth:`roads.table.Table.decide` (RoundGap,
    ShoeBackwards, ShoeEnded, RoundInProgress for another round): CardGap, CardConflict
    (``extra["stored"]``: ``{"position", "card"}``), DealOrder (field ``"cards[i]"``),
    RoundVoided (cards for a round voided in progress beyond its cards), TooManyCopies.
    """
    at = clock()
    shoe, stored = table._place(w.shoe, w.round)
    if shoe is None:
        opens = table._opens_shoe()
        return _deal(table, w.shoe, collections.Counter(), opens["decks"], None, w, at, opens)
    if stored is not None:
        return _check_recorded(shoe, stored, w)
    ip = shoe.in_progress
    if ip is not None and ip.number != w.round:
        raise table._in_progress(shoe, f"round {w.round}")
    if ip is None:
        table._check_next(shoe, w.round)
    return _deal(table, w.shoe, shoe.copies, shoe.decks, ip, w, at, None)


def _deal(table: "Table", shoe_no: int, copies: Mapping[Card, int], decks: int, ip: InProgressRound | None,
          w: DealCards, at: float, opens: dict[str, Any] | None) -> Event | Unchanged:
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
        return Unchanged(shoe_no, w.round)
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
        payload: dict[str, Any] = {"round": ordered_round(whole)}
        if opens is not None:
            payload["opens_shoe"] = opens
        return table._event(ROUND, shoe_no, w.round, payload, at)
    payload = {"position": len(dealt) + 1, "cards": new}
    if new_burn:
        payload["burn"] = new_burn
    if new_cut:
        payload["cut_card"] = True
    if opens is not None:
        payload["opens_shoe"] = opens
    return table._event(CARD, shoe_no, w.round, payload, at)


def _check_recorded(shoe: ShoeRecord, stored: RoundRecord, w: DealCards) -> Unchanged:
    """Cards for a recorded round: unchanged when they are its cards (now or as first
    recorded), else the error of its content now."""
    errors = []
    for data in (stored.data, stored.original):
        try:
            _match(shoe, stored, data, w)
            return Unchanged(w.shoe, w.round)
        except (CardConflict, DealOrder, RoundVoided) as e:
            errors.append(e)
    raise errors[0]


def _match(shoe: ShoeRecord, stored: RoundRecord, data: Mapping[str, Any], w: DealCards) -> None:
    where = _where(shoe.number, stored.number)
    dealt = deal_order(data)
    if dealt is None:
        raise CardConflict(f"{where} is recorded result-level ({describe(data)}): it has no cards to compare",
                           field="cards", extra={"stored": stored.export(shoe.number)})
    for i, card in enumerate(w.cards):
        k = w.position + i
        if k > len(dealt):
            if stored.result is None:
                raise RoundVoided(f"{where} was voided in progress after {len(dealt)} card(s) "
                                  f"({stored.void['reason']!r}); card {k} is not dealt", field=f"cards[{i}]",
                                  extra={"stored": stored.export(shoe.number)})
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
                           field="cut_card", extra={"stored": stored.export(shoe.number)})


def complete_whole(table: "Table", shoe: ShoeRecord, w: "RecordRound", at: float) -> Event:
    """The ``"round"`` event of a whole round posted while it is in progress card by card: its
    cards must begin with the cards dealt, with the same burn (and the cut card if flagged).
    Raises RoundInProgress (another round), CardConflict (field: the whole round's field of
    the first differing card, ``"burn"``, ``"cut_card"`` or ``"result"``), TooManyCopies."""
    ip = shoe.in_progress
    assert ip is not None
    if w.round != ip.number:
        raise table._in_progress(shoe, f"round {w.round}")
    where = _where(shoe.number, w.round)
    data = w.data
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
    return table._event(ROUND, shoe.number, w.round, {"round": data}, at)


def apply_cards(table: "Table", ev: Event) -> ShoeRecord:
    """Apply a ``"card"`` event: the round in progress gets its new cards (started by its first
    card; the shoe opened first when the event opens it). Raises ``ValueError`` for a card
    event that does not fit (a damaged store)."""
    d = ev.data
    if "opens_shoe" in d:
        if ev.round != 1:
            raise ValueError(f"table {table.id!r} shoe {ev.shoe}: round {ev.round} opens the shoe")
        s = table._open_shoe(ev.shoe, d["opens_shoe"], ev.at, explicit=False)
    else:
        s = table._stored_shoe(ev)
    ip = s.in_progress
    if ip is None:
        if ev.round != len(s.rounds) + 1 or d["position"] != 1:
            raise ValueError(f"table {table.id!r} shoe {ev.shoe}: card {d['position']} of round {ev.round} "
                             f"after round {len(s.rounds)}")
        ip = InProgressRound(ev.round, ev.at)
    elif ev.round != ip.number or d["position"] != len(ip.cards) + 1:
        raise ValueError(f"table {table.id!r} shoe {ev.shoe}: card {d['position']} of round {ev.round} while "
                         f"round {ip.number} has {len(ip.cards)} card(s)")
    burn = list(d.get("burn") or ())
    ip.burn.extend(burn)
    ip.cards.extend(d["cards"])
    ip.cut_card = ip.cut_card or bool(d.get("cut_card"))
    s.copies.update(Card.parse(c) for c in burn + list(d["cards"]))
    s.in_progress = ip
    return s


def parse_time(text: str) -> float:
    """ISO 8601 with a time zone (``"2024-06-15T12:00:15.000Z"``) -> Unix seconds; raises
    ``ValueError`` (quoting it) for text that is not one."""
    try:
        t = datetime.fromisoformat(text)
    except (TypeError, ValueError):
        raise ValueError(f"not an ISO 8601 time: {text!r}") from None
    if t.tzinfo is None:
        raise ValueError(f"time {text!r} has no time zone (add 'Z' for UTC)")
    try:
        return t.astimezone(timezone.utc).timestamp()
    except (OverflowError, ValueError):  # "0001-01-01T00:00:00+00:01" is before year 1 in UTC
        raise ValueError(f"time {text!r} is out of range") from None
