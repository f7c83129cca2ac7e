"""Rounds from what a shoe reports: the events every shoe protocol is read into, and the
:class:`RoundFollower` that turns them into feed messages by the tableau.

A message is a JSON-ready dict with a ``"type"`` (sent by :mod:`shoes.sender`, docs/shoes.md):

* ``shoe``: a new shoe with its burn (``POST /api/tables/<id>/shoes``);
* ``cards``: one card of the round in deal position order (``POST .../rounds/<r>/cards``);
* ``drawn``: a card drawn face down at a position (feed extension, docs/shoes.md);
* ``state``: the table's state (``dealing``, ``result``) or the shoe's error (``shoe_error``,
  feed extension);
* ``void``: a round the tableau does not allow, voided with the reason (a misdeal);
* ``hold``: a round held for the supervisor (feed extension; the shoe's result disagrees
  with the cards).

Rules (docs/domain.md section 1, docs/shoes.md "Rounds"): the cards of a round come out P1, B1,
P2, B2, then the Player's third card, then the Banker's, as the tableau (:mod:`roads.tableau`)
deals them; a card posted never breaks it. The card that completes a round is held back until
the shoe's own result (when the shoe sends one) agrees with the result of the cards
(:meth:`roads.outcome.RoundResult.from_cards`); a disagreement holds the round and posts no
wrong round. A card the tableau does not deal voids the round (``misdeal: ...``).

The follower is plain data (:meth:`RoundFollower.state`), so a spool keeps it beside the
messages it made; it depends on nothing but its events (no clock, no answers), so reading the
same bytes again makes the same messages. Standard library and :mod:`roads` only.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, field
from typing import Any, Union

from roads.cards import Card, hand_total
from roads.outcome import RoundResult
from roads.tableau import TableauError, next_card

log = logging.getLogger("roads.shoe")

PLAYER, BANKER = "player", "banker"


# ----------------------------------------------------------------------------- events
@dataclass(frozen=True, slots=True)
class PowerOn:
    """The shoe started (Angel Eye ``S``): a round being dealt is over."""


@dataclass(frozen=True, slots=True)
class StandBy:
    """The shoe waits between rounds (Angel Eye ``P``)."""


@dataclass(frozen=True, slots=True)
class Drawn:
    """A card left the shoe for a round: ``side`` and ``order`` (1-3) as the shoe says, or both
    ``None`` when the shoe does not say (one-card shoes: the tableau decides); ``card`` its face
    (``"2S"``) or ``None`` when drawn face down; ``extra_used``: an extra card put into play
    (Angel Eye ``R``)."""

    side: str | None
    order: int | None
    card: str | None
    extra_used: bool = False


@dataclass(frozen=True, slots=True)
class Shown:
    """The face of a card drawn face down: ``side``, ``order`` (1-3), ``card`` (Angel Eye ``I``)."""

    side: str
    order: int
    card: str


@dataclass(frozen=True, slots=True)
class NewShoe:
    """A new shoe begins; the next card is the turned card (one-card shoes)."""


@dataclass(frozen=True, slots=True)
class ShoeCard:
    """A card of a new shoe's start: ``order`` 0 is the turned card that says how many cards to
    burn, then the burned cards; ``card`` ``None`` face down; ``shown``: the face of a card
    drawn before (Angel Eye ``D``/``I`` with position bit ``0x40``)."""

    order: int
    card: str | None
    shown: bool = False


@dataclass(frozen=True, slots=True)
class ShoeResult:
    """The shoe's own result of the round: ``winner`` ``"P"``, ``"B"`` or ``"T"``,
    ``banker_six`` (the Banker wins with 6), and the two pairs (Angel Eye ``G``)."""

    winner: str
    banker_six: bool
    player_pair: bool
    banker_pair: bool

    def text(self) -> str:
        """``"B (six), banker pair"``: for messages."""
        parts = [self.winner + (" (six)" if self.banker_six else "")]
        parts += [n for n, v in (("player pair", self.player_pair), ("banker pair", self.banker_pair)) if v]
        return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class ShoeFault:
    """The shoe reports an error: ``code`` and its ``name`` (Angel Eye ``E``)."""

    code: int
    name: str


@dataclass(frozen=True, slots=True)
class FaultCleared:
    """The shoe cleared its error (Angel Eye ``e``)."""


@dataclass(frozen=True, slots=True)
class ExtraDrawn:
    """A card drawn outside the round in progress (Angel Eye ``d``, after an overdraw)."""

    card: str | None


@dataclass(frozen=True, slots=True)
class ExtraRevoked:
    """The extra cards are taken out of play (Angel Eye ``i``): they count as burned."""


@dataclass(frozen=True, slots=True)
class FramesLost:
    """``count`` frames are missing by the shoe's sequence counter."""

    count: int


Event = Union[PowerOn, StandBy, Drawn, Shown, NewShoe, ShoeCard, ShoeResult, ShoeFault, FaultCleared,
              ExtraDrawn, ExtraRevoked, FramesLost]


# ----------------------------------------------------------------------------- the follower
@dataclass(slots=True)
class FollowerStats:
    """What the follower did: ``rounds_complete`` rounds whose last card was released,
    ``rounds_unchecked`` of them without a shoe result to check, ``rounds_voided`` and
    ``rounds_held`` with ``held_back`` (``[round text, reason]`` of each, for the summary)."""

    rounds_complete: int = 0
    rounds_unchecked: int = 0
    rounds_voided: int = 0
    rounds_held: int = 0
    held_back: list[list[str]] = field(default_factory=list)


@dataclass(slots=True)
class RoundFollower:
    """Follows one table: events in (:meth:`handle`), feed messages out.

    ``table``: the table id; ``shoe``/``round``: the current shoe number (``None`` before the
    first) and the last round number used in it; ``expects_result``: the shoe sends its own
    result (Angel Eye), so a complete round waits for it. The rest is the round being dealt:
    ``slots`` (``[side, order, card or None]`` in deal order), ``posted`` (cards posted),
    ``announced`` (positions posted face down), ``burn`` (``[order, card]`` of a new shoe's
    start, ``None`` outside one), ``next_burn`` (cards burned before the next round's first
    card), ``extras`` (extra cards drawn), ``fault`` (the shoe's error code), ``lost`` (frames
    lost during the round).
    """

    table: str
    shoe: int | None = None
    round: int = 0
    expects_result: bool = True
    open: bool = False
    slots: list[list[Any]] = field(default_factory=list)
    posted: int = 0
    announced: list[int] = field(default_factory=list)
    waiting_result: bool = False
    lost: int = 0
    burn: list[list[Any]] | None = None
    next_burn: list[str] = field(default_factory=list)
    extras: list[Any] = field(default_factory=list)
    fault: int | None = None
    stats: FollowerStats = field(default_factory=FollowerStats)

    # ------------------------------------------------------------------ state
    def state(self) -> dict[str, Any]:
        """The follower as JSON-ready data."""
        return asdict(self)

    @classmethod
    def from_state(cls, data: dict[str, Any]) -> "RoundFollower":
        """The follower :meth:`state` described."""
        data = dict(data)
        data["stats"] = FollowerStats(**data.get("stats", {}))
        return cls(**data)

    # ------------------------------------------------------------------ events
    def handle(self, event: Event) -> list[dict[str, Any]]:
        """The messages ``event`` makes, in the order they are to be sent."""
        out: list[dict[str, Any]] = []
        if isinstance(event, Drawn):
            self._drawn(event, out)
        elif isinstance(event, Shown):
            self._shown(event, out)
        elif isinstance(event, ShoeResult):
            self._result(event, out)
        elif isinstance(event, ShoeCard):
            self._shoe_card(event, out)
        elif isinstance(event, NewShoe):
            self._end_round("a new shoe began", out)
            self.burn = []
        elif isinstance(event, PowerOn):
            self._end_round("the shoe restarted", out)
        elif isinstance(event, StandBy):
            if self.open and self.waiting_result:
                self._release(None, out)
        elif isinstance(event, ShoeFault):
            self.fault = event.code
            out.append(self._msg("state", shoe_error={"code": event.code, "name": event.name}))
        elif isinstance(event, FaultCleared):
            if self.fault is not None:
                self.fault = None
                out.append(self._msg("state", shoe_error=None))
        elif isinstance(event, ExtraDrawn):
            self.extras.append(event.card)
        elif isinstance(event, ExtraRevoked):
            known = [c for c in self.extras if c is not None]
            if len(known) < len(self.extras):
                log.warning("table %s: %d revoked extra card(s) were never read; they leave the shoe unrecorded",
                            self.table, len(self.extras) - len(known))
            self.next_burn += known
            self.extras = []
        elif isinstance(event, FramesLost):  # counted against the round being dealt, or the next one
            self.lost += event.count
        return out

    # ------------------------------------------------------------------ cards
    def _drawn(self, e: Drawn, out: list[dict[str, Any]]) -> None:
        if e.extra_used and self.extras:
            self.extras.pop(0)
        if self.burn is not None:
            if e.side is None:  # one-card shoes: the cards of a new shoe's start come first
                self.burn.append([len(self.burn), e.card])
                self._shoe_ready(out, force=False)
                return
            self._shoe_ready(out, force=True)
        side, order = e.side, e.order
        if side is None or order is None:  # the tableau says whose card it is
            due = next_card(*self._hands()) if self.open and not self.waiting_result else None
            side, order = (PLAYER, 1) if due is None else (due, sum(1 for s in self.slots if s[0] == due) + 1)
        # P1 again while it is the round's only card (drawn face down, then drawn face up): the same card
        first = self.slots[0] if self.open and len(self.slots) == 1 else None
        again = first is not None and (first[2] is None or e.card is None or e.card == first[2])
        if side == PLAYER and order == 1 and not again:  # the next round's first card
            self._end_round("the next round began", out)
            self._start_round(out)
        elif not self.open:
            log.warning("table %s: %s card %s drawn with no round being dealt: ignored", self.table, side, order)
            return
        for slot in self.slots:
            if slot[0] == side and slot[1] == order:
                if e.card is not None and slot[2] is not None and slot[2] != e.card:
                    self._void(f"misdeal: the shoe reported the {side}'s card {order} as {slot[2]}, then {e.card}", out)
                    return
                if e.card is not None:
                    slot[2] = e.card
                self._advance(out)
                return
        problem = self._misplaced(side, order)
        if problem:
            self._void(f"misdeal: {problem}", out)
            return
        self.slots.append([side, order, e.card])
        if e.card is None:
            position = len(self.slots)
            if position not in self.announced:
                self.announced.append(position)
                drawn = self._msg("drawn", shoe=self.shoe, round=self.round, position=position, sides=[side])
                if position == 1 and self.next_burn:  # the burn goes with card 1 (again with its face)
                    drawn["burn"] = list(self.next_burn)
                out.append(drawn)
        self._advance(out)

    def _shown(self, e: Shown, out: list[dict[str, Any]]) -> None:
        if not self.open:
            log.info("table %s: %s card %d shown outside a round: ignored", self.table, e.side, e.order)
            return
        for slot in self.slots:
            if slot[0] == e.side and slot[1] == e.order:
                if slot[2] is not None and slot[2] != e.card:
                    self._void(f"misdeal: the shoe reported the {e.side}'s card {e.order} as {slot[2]}, then {e.card}",
                               out)
                    return
                slot[2] = e.card
                self._advance(out)
                return
        self._drawn(Drawn(e.side, e.order, e.card), out)

    def _misplaced(self, side: str, order: int) -> str | None:
        """Why a card at ``(side, order)`` cannot come next (deal order P1 B1 P2 B2, then the
        Player's third card, then the Banker's), or ``None``."""
        keys = [(s[0], s[1]) for s in self.slots]
        n = len(keys)
        first_four = [(PLAYER, 1), (BANKER, 1), (PLAYER, 2), (BANKER, 2)]
        if n < 4:
            ok = (side, order) == first_four[n]
        else:
            ok = order == 3 and (side, 3) not in keys and not (side == PLAYER and (BANKER, 3) in keys)
        if ok:
            return None
        return f"the {side}'s card {order} came out as card {n + 1} (dealt so far: {_keys_text(keys) or 'none'})"

    def _hands(self) -> tuple[list[Card], list[Card]]:
        player = [Card.parse(s[2]) for s in self.slots if s[0] == PLAYER and s[2] is not None]
        banker = [Card.parse(s[2]) for s in self.slots if s[0] == BANKER and s[2] is not None]
        return player, banker

    def _advance(self, out: list[dict[str, Any]]) -> None:
        """Check the faces known (in deal order) against the tableau, post the ones not posted
        yet, and hold back the card that completes the round until the shoe's result."""
        player: list[Card] = []
        banker: list[Card] = []
        known = 0
        for k, (side, order, text) in enumerate(self.slots, 1):
            if text is None:
                break
            due = next_card(player, banker)
            if due is None:
                self._void(f"misdeal: card {k} ({text}, the {side}'s) is not dealt: the round is complete after "
                           f"{k - 1} cards ({_hands_text(player, banker)})", out)
                return
            if due != side:
                self._void(f"misdeal: card {k} ({text}) is the {side}'s, but the tableau deals the {due}'s "
                           f"({_hands_text(player, banker)})", out)
                return
            (player if side == PLAYER else banker).append(Card.parse(text))
            known = k
        complete = known == len(self.slots) and known >= 4 and next_card(player, banker) is None
        last = known - 1 if complete else known
        while self.posted < last:
            self._post_card(out)
        if complete:
            if self.expects_result:
                self.waiting_result = True
            else:
                self._release(None, out)

    def _post_card(self, out: list[dict[str, Any]]) -> None:
        k = self.posted + 1
        msg = self._msg("cards", shoe=self.shoe, round=self.round, position=k, cards=[self.slots[k - 1][2]])
        if k == 1 and self.next_burn:
            msg["burn"] = list(self.next_burn)
            self.next_burn = []
        out.append(msg)
        self.posted = k

    def _result(self, r: ShoeResult, out: list[dict[str, Any]]) -> None:
        if not self.open:
            log.info("table %s: shoe result %s with no round being dealt: ignored", self.table, r.text())
            return
        if not self.waiting_result:
            self._hold("result_before_complete",
                       f"the shoe gave its result ({r.text()}) before the cards completed the round "
                       f"({_keys_text([(s[0], s[1]) for s in self.slots])})", r, out)
            return
        player, banker = self._hands()
        got = RoundResult.from_cards(player, banker)
        six = got.winner.value == "B" and got.banker_total == 6
        mismatch = []
        if r.winner != got.winner.value:
            mismatch.append(f"winner {r.winner} / {got.winner.value}")
        if r.banker_six and not six:
            mismatch.append("banker wins with 6 / not with 6")
        if r.player_pair != got.player_pair:
            mismatch.append(f"player pair {r.player_pair} / {got.player_pair}")
        if r.banker_pair != got.banker_pair:
            mismatch.append(f"banker pair {r.banker_pair} / {got.banker_pair}")
        if mismatch:
            self._hold("result_mismatch", f"the shoe says {r.text()}; the cards ({_hands_text(player, banker)}) "
                                          f"give {_result_text(got)} (shoe / cards: {'; '.join(mismatch)})", r, out)
            return
        self._release(r, out)

    def _release(self, r: ShoeResult | None, out: list[dict[str, Any]]) -> None:
        """Post the card that completes the round (checked against ``r``, or unchecked)."""
        if r is None and self.lost:
            player, banker = self._hands()
            self._hold("frames_lost", f"{self.lost} frame(s) were lost during the round and the shoe gave no "
                                      f"result to check the cards ({_hands_text(player, banker)}) against", None, out)
            return
        while self.posted < len(self.slots):
            self._post_card(out)
        self.stats.rounds_complete += 1
        if r is None:
            self.stats.rounds_unchecked += 1
        out.append(self._msg("state", state="result"))
        self._close()

    # ------------------------------------------------------------------ rounds
    def _start_round(self, out: list[dict[str, Any]]) -> None:
        if self.shoe is None:
            self.shoe, self.round = 1, 0
        self.round += 1
        self.open = True
        out.append(self._msg("state", state="dealing"))

    def _end_round(self, why: str, out: list[dict[str, Any]]) -> None:
        """The round being dealt is over (``why``): release it if complete, void it if not."""
        if not self.open:
            return
        if self.waiting_result:
            self._release(None, out)
        else:
            self._void(f"misdeal: {why} after {len(self.slots)} card(s) "
                       f"({_keys_text([(s[0], s[1]) for s in self.slots]) or 'none'}); the round was not complete", out)

    def _void(self, reason: str, out: list[dict[str, Any]]) -> None:
        log.error("table %s shoe %s round %s voided: %s", self.table, self.shoe, self.round, reason)
        self.stats.rounds_voided += 1
        self.stats.held_back.append([f"round {self.shoe}-{self.round}", f"voided: {reason}"])
        if self.posted:
            out.append(self._msg("void", shoe=self.shoe, round=self.round, reason=reason[:500]))
        else:
            self.round -= 1  # nothing of it reached the service: its number is free
        self._close()

    def _hold(self, reason: str, message: str, r: ShoeResult | None, out: list[dict[str, Any]]) -> None:
        log.error("table %s shoe %s round %s held for the supervisor: %s", self.table, self.shoe, self.round, message)
        self.stats.rounds_held += 1
        self.stats.held_back.append([f"round {self.shoe}-{self.round}", f"held: {message}"])
        player, banker = self._hands()
        out.append(self._msg("hold", shoe=self.shoe, round=self.round, reason=reason, message=message[:500],
                             shoe_result=None if r is None else asdict(r),
                             player=[str(c) for c in player], banker=[str(c) for c in banker], posted=self.posted))
        if not self.posted:
            self.round -= 1
        self._close()

    def _close(self) -> None:
        self.open = False
        self.slots, self.posted, self.announced = [], 0, []
        self.waiting_result = False
        self.lost = 0

    # ------------------------------------------------------------------ new shoe
    def _shoe_card(self, e: ShoeCard, out: list[dict[str, Any]]) -> None:
        if e.shown:
            for slot in self.burn or ():
                if slot[0] == e.order and slot[1] is None:
                    slot[1] = e.card
                    break
            self._shoe_ready(out, force=False)
            return
        if e.order == 0:
            self._end_round("a new shoe began", out)
            self.burn = [[0, e.card]]
        elif self.burn is None:
            log.warning("table %s: burn card %s with no turned card before it: ignored", self.table, e.card)
            return
        else:
            self.burn.append([e.order, e.card])
        self._shoe_ready(out, force=False)

    def _shoe_ready(self, out: list[dict[str, Any]], force: bool) -> None:
        """Post the new shoe once its burn is whole (the turned card's value, 10 for T/J/Q/K, cards
        after it), or now when ``force`` (a round's card came first: the burn as far as read)."""
        assert self.burn is not None
        cards = [c for _, c in self.burn]
        whole = bool(cards) and cards[0] is not None and None not in cards \
            and len(cards) == 1 + Card.parse(cards[0]).burn_count
        if not whole and not force:
            return
        self.shoe = (self.shoe or 0) + 1
        self.round = 0
        msg = self._msg("shoe", shoe=self.shoe)
        if whole:
            msg["burn"] = cards
        elif cards:
            log.warning("table %s: shoe %d starts without its burn (read: %s)", self.table, self.shoe,
                        " ".join(c or "??" for c in cards))
        out.append(msg)
        self.burn = None
        self.next_burn = []

    def _msg(self, kind: str, **fields: Any) -> dict[str, Any]:
        return {"type": kind, "table": self.table, **fields}


def _keys_text(keys: list[tuple[str, int]]) -> str:
    return " ".join(f"{side[0].upper()}{order}" for side, order in keys)


def _hands_text(player: list[Card], banker: list[Card]) -> str:
    p = " ".join(map(str, player)) or "-"
    b = " ".join(map(str, banker)) or "-"
    return f"player {p} = {hand_total(player)}, banker {b} = {hand_total(banker)}"


def _result_text(r: RoundResult) -> str:
    parts = [r.winner.value + (" (six)" if r.winner.value == "B" and r.banker_total == 6 else "")]
    parts += [n for n, v in (("player pair", r.player_pair), ("banker pair", r.banker_pair)) if v]
    return ", ".join(parts)
