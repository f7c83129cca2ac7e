"""One table's record: its shoes, rounds, card copies, voids and corrections, and their rules.

A :class:`Table` is judged and changed in two steps, so that a store can make each change
durable in between:

* :meth:`Table.decide` takes a *write* (:class:`RecordRound`, :class:`StartShoe`,
  :class:`VoidRound`, :class:`CorrectRound`, :class:`roads.dealing.DealCards`,
  :class:`roads.table_state.SetState`: small frozen dataclasses) and answers with the
  :class:`roads.events.Event` that would record it, or :class:`roads.events.Unchanged` when
  the record already holds it (every write is idempotent: feeds retry). It changes nothing,
  and raises a :mod:`roads.errors` error naming the field when the write is refused.
* :meth:`Table.apply` applies an event (decided here, or read back from a store). It is
  deterministic: the same events in the same order give the same record, so
  :meth:`Table.replay` of the stored events rebuilds a table version for version.

Both dispatch on the write's class / the event's kind through one table each, so a new
kind of write (a round dealt card by card, a table state) is one more entry, not a new path.
What the record holds (shoes, rounds, their exports) is :mod:`roads.record`.

The rules (``docs/api.md`` section "Feed (writes)"; ``docs/domain.md`` sections 1-2):

* round numbers start at 1 and are consecutive within a shoe (a voided round keeps its
  number); a round with a higher shoe number starts that shoe, at round 1; shoe numbers may
  skip but never go back;
* the same round again is unchanged, also the original content of a corrected round; another
  round under a taken number is a :class:`roads.errors.RoundConflict`;
* the round that carries the cut card is the shoe's last (``docs/domain.md`` section 2):
  later rounds of that shoe are refused (:class:`roads.errors.ShoeEnded`);
* a shoe of N decks holds N copies of each card: its burn cards and the cards of all its
  rounds, voided ones too (they left the shoe), count;
* the new-shoe burn is the turned card and as many more as it says
  (:attr:`roads.cards.Card.burn_count`);
* a voided round stays in the record and counts nowhere; a voided round is not corrected;
  a correction keeps the previous content in the round's history;
* a round may be dealt card by card (:mod:`roads.dealing`): while it is in progress no other
  round or shoe starts, and once complete it is recorded exactly as if posted whole;
* the table's state, dealer, limits and shoe error are set by :class:`roads.table_state.SetState`;
* the round in progress may be held for the supervisor (:class:`HoldRound`, ``docs/shoes.md``
  section "Feed extensions": a card-reading shoe's result disagrees with its cards): it leaves the
  in-progress slot with its cards so far (the next round may start), in no road, until a
  correction records it at its number's place or a void voids it.

Standard library only.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Union

from roads.cards import Card, CardError
from roads.errors import (
    AlreadyVoided, BadCardText, BurnCount, CutCardPosition, RoundConflict, RoundGap, RoundHeld, RoundVoided, ShoeBackwards,
    ShoeConflict, RoundInProgress, ShoeEnded, UnknownRound, UnknownShoe, UnknownVariant,
)
from roads import dealing, table_state
from roads.archive import Commit, LivePart, MemoryShoes, PastShoes, archive, shoe_document, shoe_from_document, variant_or_default
from roads.dealing import DealCards
from roads.events import CARD, CORRECT, HOLD, ROUND, SHOE, STATE, VOID, Event, Unchanged
from roads.record import (
    ordered_held, RoundRecord, ShoeRecord, check_copies, describe, ordered_round, result_of, round_cards,
)
from roads.shoe import ShoeError, check_cut_card_position
from roads.shoe_roads import ShoeRoads
from roads.table_state import SetState, TableStatus
from roads.variants import DEFAULT_VARIANT_ID, Variant, get_variant

# ----------------------------------------------------------------------------- writes
@dataclass(frozen=True, slots=True)
class RecordRound:
    """Record round ``round`` of shoe ``shoe``: ``data`` is a canonical round
    (:func:`ordered_round`; kept in that order).

    Construction checks the round on its own (tableau, result, cards) and raises
    :class:`roads.errors.TableauViolation`, :class:`roads.errors.ResultContradiction` or
    :class:`roads.errors.BadCardText`; the record's rules are :meth:`Table.decide`'s.
    """

    shoe: int
    round: int
    data: Mapping[str, Any]
    creates_table = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "data", ordered_round(self.data))
        result_of(self.data)


@dataclass(frozen=True, slots=True)
class StartShoe:
    """Start shoe ``shoe`` explicitly.

    ``burn``: the burn cards as canonical card strings, turned card first (empty when not
    known); ``cut_card_position``: cards from the back of the shoe (``None`` = not known);
    ``variant``: a preset id of :mod:`roads.variants` (``None`` = the table's). Raises
    :class:`roads.errors.BadCardText` for a burn card that does not parse.
    """

    shoe: int
    burn: tuple[str, ...] = ()
    cut_card_position: int | None = None
    variant: str | None = None
    creates_table = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "burn", tuple(self.burn))
        for i, text in enumerate(self.burn):
            try:
                Card.parse(text)
            except CardError as e:
                raise BadCardText(str(e), field=f"burn[{i}]") from None


@dataclass(frozen=True, slots=True)
class VoidRound:
    """Void round ``round`` of shoe ``shoe`` with ``reason`` (it stays in the record, counted nowhere)."""

    shoe: int
    round: int
    reason: str
    creates_table = False


@dataclass(frozen=True, slots=True)
class CorrectRound:
    """Replace round ``round`` of shoe ``shoe`` by ``data`` (a canonical round), with an
    optional ``reason`` kept in the round's history.

    Unlike :class:`RecordRound`, construction does not judge the round: a correction names a
    round that must exist, so :meth:`Table.decide` first refuses an unknown table, shoe or
    round (404), and only then the round's own rules (tableau, result, cards: 422)."""

    shoe: int
    round: int
    data: Mapping[str, Any]
    reason: str | None = None
    creates_table = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "data", ordered_round(self.data))


HOLD_REASONS: tuple[str, ...] = ("result_mismatch", "result_before_complete", "frames_lost")
"""Why a card-reading shoe's adapter holds a round (docs/shoes.md section "Rounds")."""


@dataclass(frozen=True, slots=True)
class HoldRound:
    """Hold round ``round`` of shoe ``shoe`` (the round in progress) for the supervisor:
    ``reason`` (:data:`HOLD_REASONS`), ``message`` (what the adapter saw, up to 500
    characters), ``shoe_result`` (the shoe's own result ``{"winner": "P" | "B" | "T",
    "banker_six", "player_pair", "banker_pair"}`` or ``None``), ``player`` / ``banker`` (the
    cards the adapter read, canonical strings, up to 3 a side).

    Construction raises :class:`roads.errors.BadCardText` (field ``"player[i]"`` /
    ``"banker[i]"``) for a card that does not parse; the shapes are the schema's
    (:class:`web.http.schemas_live.HoldIn`)."""

    shoe: int
    round: int
    reason: str
    message: str
    shoe_result: Mapping[str, Any] | None = None
    player: tuple[str, ...] = ()
    banker: tuple[str, ...] = ()
    creates_table = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "player", tuple(self.player))
        object.__setattr__(self, "banker", tuple(self.banker))
        for name in ("player", "banker"):
            for i, text in enumerate(getattr(self, name)):
                try:
                    Card.parse(text)
                except CardError as e:
                    raise BadCardText(str(e), field=f"{name}[{i}]") from None

    def data(self) -> dict[str, Any]:
        """The ``"hold"`` event payload (keys in one order)."""
        r = self.shoe_result
        result = None if r is None else {"winner": r["winner"], "banker_six": bool(r["banker_six"]),
                                         "player_pair": bool(r["player_pair"]), "banker_pair": bool(r["banker_pair"])}
        return {"reason": self.reason, "message": self.message, "shoe_result": result,
                "player": list(self.player), "banker": list(self.banker)}


Write = Union[RecordRound, StartShoe, VoidRound, CorrectRound, DealCards, SetState, HoldRound]
"""A write to a table's record (each class has ``creates_table``: whether it may be a new
table's first write)."""


class Table:
    """One table's record: ``id``, ``seq`` (events applied: the table's version), ``current``
    (the newest shoe, the only one kept here, or ``None`` before the first) and ``past`` (the
    other shoes, :class:`roads.archive.PastShoes`: in memory by default, a store's reader when
    given, so memory holds the live shoe whatever the history, docs/history.md).

    ``variant_id`` is the table's configured variant (``None`` = :data:`DEFAULT_VARIANT_ID`),
    given to shoes that do not name one; ``limits`` its configured table limits (raises
    :class:`roads.errors.BadTableState` / :class:`roads.errors.UnknownBet` for bad ones).
    Not thread-safe: the caller serialises :meth:`decide`, :meth:`commit` and :meth:`apply`
    (one lock per table).
    """

    def __init__(self, table_id: str, variant_id: str | None = None, *,
                 limits: Mapping[str, Any] | None = None, past: PastShoes | None = None) -> None:
        self.id = table_id
        self.variant_id = variant_id
        self.limits = None if limits is None else table_state.check_limits(limits, self.default_variant(), "limits")
        """The configured table limits (:func:`roads.table_state.check_limits` shape), or ``None``."""
        self.seq = 0
        self.past: PastShoes = past if past is not None else MemoryShoes()
        self.current: ShoeRecord | None = None
        self.status = TableStatus()
        """The table's state as the feed last set it (:class:`roads.table_state.TableStatus`)."""

    @classmethod
    def replay(cls, table_id: str, events: Iterable[Event], *, variant_id: str | None = None,
               limits: Mapping[str, Any] | None = None) -> "Table":
        """A table rebuilt from its events in ``seq`` order (:meth:`apply` each). Raises
        ``ValueError`` for an event that does not fit (a damaged store)."""
        table = cls(table_id, variant_id, limits=limits)
        for ev in events:
            table.apply(ev)
        return table

    @classmethod
    def restore(cls, part: LivePart, *, variant_id: str | None = None, limits: Mapping[str, Any] | None = None,
                past: PastShoes) -> "Table":
        """A table rebuilt from its live part (no history replayed): ``part.events`` applied in
        seq order from the state before the live shoe opened, then the version set to
        ``part.head`` and the state to ``part.status``; past shoes come through ``past``. Every
        read and every later decision equals a full :meth:`replay`'s (docs/history.md). Raises
        ``ValueError`` for events that do not fit (a damaged store)."""
        table = cls(part.table, variant_id, limits=limits, past=past)
        if part.status_at_open is not None:
            table.status = TableStatus.from_data(part.status_at_open)
        for ev in part.events:
            if ev.seq <= table.seq or ev.seq > part.head:
                raise ValueError(f"table {part.table!r}: live event seq {ev.seq} after {table.seq}, head {part.head}")
            table.seq = ev.seq - 1
            table.apply(ev)
        table.seq = part.head
        table.status = TableStatus() if part.status is None else TableStatus.from_data(part.status)
        return table

    def default_variant(self) -> Variant:
        """The variant of a shoe that names none: the configured one, else the default preset."""
        return get_variant(self.variant_id or DEFAULT_VARIANT_ID)

    def get_shoe(self, number: int) -> ShoeRecord | None:
        """Shoe ``number`` (the current one, or a past one through :attr:`past`), or ``None``."""
        cur = self.current
        if cur is not None and number == cur.number:
            return cur
        return self.past.get(number)

    def shoe(self, number: int) -> ShoeRecord:
        """Shoe ``number``; raises :class:`roads.errors.UnknownShoe` (field ``"shoe"``)."""
        s = self.get_shoe(number)
        if s is None:
            raise UnknownShoe(f"table {self.id!r} has no shoe {number}", field="shoe")
        return s

    def find(self, shoe: int, round_no: int) -> tuple[ShoeRecord, RoundRecord]:
        """Shoe ``shoe`` and its round ``round_no``; raises :class:`roads.errors.UnknownShoe`
        or :class:`roads.errors.UnknownRound` (field ``"round"``)."""
        s = self.shoe(shoe)
        r = s.round(round_no)
        if r is None:
            raise UnknownRound(f"shoe {shoe} of table {self.id!r} has no round {round_no}", field="round")
        return s, r

    # ------------------------------------------------------------------ deciding
    def decide(self, write: Write, clock: Callable[[], float]) -> Event | Unchanged:
        """The event that records ``write`` (next ``seq``), or :class:`Unchanged` when the record
        already holds it. Changes nothing.

        ``clock`` gives the write's time in Unix seconds: a round reads it as it is judged,
        other writes only once they produce an event. Raises the :mod:`roads.errors` error of
        the rule the write breaks (see each ``_decide_*`` method) and ``TypeError`` for an
        object that is not a write.
        """
        method = self._DECIDE.get(type(write))
        if method is None:
            raise TypeError(f"not a write to a table: {write!r}")
        return method(self, write, clock)

    def _event(self, kind: str, shoe: int, round_no: int | None, data: dict[str, Any], at: float) -> Event:
        return Event(self.id, self.seq + 1, kind, shoe, round_no, data, at)

    def _backwards(self, shoe: int) -> ShoeBackwards:
        cur = self.current
        assert cur is not None
        return ShoeBackwards(
            f"shoe {shoe} is before table {self.id!r}'s current shoe {cur.number}; shoe numbers never go back",
            field="shoe",
        )

    def _in_progress(self, shoe: ShoeRecord, what: str) -> RoundInProgress:
        ip = shoe.in_progress
        assert ip is not None
        return RoundInProgress(
            f"shoe {shoe.number} round {ip.number} of table {self.id!r} is in progress ({len(ip.cards)} card(s) "
            f"dealt); {what} waits until it is complete or voided",
            field="round", extra={"in_progress": ip.to_json()},
        )

    def _place(self, shoe_no: int, round_no: int) -> tuple[ShoeRecord | None, RoundRecord | None]:
        """Where round ``round_no`` of shoe ``shoe_no`` goes: ``(None, None)`` when it opens a new
        shoe, else ``(shoe, its stored round or None)``. Raises RoundInProgress (a new shoe while
        a round is being dealt), RoundGap (a new shoe not at round 1), ShoeBackwards."""
        cur = self.current
        if cur is None or shoe_no > cur.number:
            if cur is not None and cur.in_progress is not None:
                raise self._in_progress(cur, f"shoe {shoe_no}")
            if round_no != 1:
                where = f"after shoe {cur.number}" if cur else "as the table's first shoe"
                raise RoundGap(f"round {round_no} would start shoe {shoe_no} {where}; a shoe starts at round 1",
                               field="round")
            return None, None
        shoe = cur if shoe_no == cur.number else self.past.get(shoe_no)
        if shoe is None or (shoe is not cur and round_no > len(shoe.rounds)):
            raise self._backwards(shoe_no)
        return shoe, shoe.round(round_no)

    def _check_next(self, shoe: ShoeRecord, round_no: int) -> None:
        """Refuse a round that is not the shoe's next (RoundGap) or comes after its cut-card
        round (ShoeEnded)."""
        expected = len(shoe.rounds) + 1
        if round_no != expected:
            raise RoundGap(f"shoe {shoe.number} of table {self.id!r} expects round {expected} next, got {round_no}; "
                           "round numbers are consecutive", field="round")
        last = shoe.cut_card_round()
        if last is not None:
            raise ShoeEnded(f"shoe {shoe.number} ended with round {last} (the cut card came out); "
                            f"round {round_no} belongs to a new shoe", field="round")

    def _opens_shoe(self) -> dict[str, Any]:
        variant = self.default_variant()
        return {"variant": variant.id, "decks": variant.decks}

    def _decide_round(self, w: RecordRound, clock: Callable[[], float]) -> Event | Unchanged:
        """Raises RoundGap (a new shoe not at round 1, a skipped number), ShoeBackwards,
        RoundConflict (``extra["stored"]``), ShoeEnded (after the cut-card round), TooManyCopies;
        while a round is dealt card by card, RoundInProgress (another round or shoe) and
        CardConflict (this round with other cards than those dealt)."""
        at = clock()
        shoe_no, round_no, data = w.shoe, w.round, w.data
        shoe, stored = self._place(shoe_no, round_no)
        if shoe is None:
            opens = self._opens_shoe()
            check_copies(collections.Counter(), opens["decks"], round_cards(data), shoe_no)
            return self._event(ROUND, shoe_no, 1, {"round": data, "opens_shoe": opens}, at)
        if stored is not None:
            if data == stored.data or data == stored.original:
                return Unchanged(shoe_no, round_no)
            raise RoundConflict(
                f"shoe {shoe.number} round {stored.number} of table {self.id!r} is already stored as "
                f"{describe(stored.data)}; this round ({describe(data)}) differs.",
                table=self.id, shoe=shoe.number, round=stored.number, extra={"stored": stored.export(shoe.number)},
            )
        if shoe.in_progress is not None:
            if round_no != shoe.in_progress.number:
                raise self._in_progress(shoe, f"round {round_no}")
            dealing.check_whole(shoe, data)
            return self._event(ROUND, shoe_no, round_no, {"round": data}, at)
        self._check_next(shoe, round_no)
        check_copies(shoe.copies, shoe.decks, round_cards(data), shoe_no)
        return self._event(ROUND, shoe_no, round_no, {"round": data}, at)

    def _decide_shoe(self, w: StartShoe, clock: Callable[[], float]) -> Event | Unchanged:
        """Raises UnknownVariant, ShoeConflict (``extra["stored"]``: the shoe's summary),
        ShoeBackwards, BurnCount (the turned card's :attr:`roads.cards.Card.burn_count`,
        ``docs/domain.md`` section 2), CutCardPosition (outside :func:`roads.shoe.cut_card_range`
        of the variant's decks, section 2), TooManyCopies."""
        if w.variant is not None:
            try:
                variant = get_variant(w.variant)
            except ValueError as e:
                raise UnknownVariant(str(e), field="variant") from None
        else:
            variant = self.default_variant()
        burn = [Card.parse(c) for c in w.burn]
        cur = self.current
        if cur is not None and w.shoe <= cur.number:
            existing = self.get_shoe(w.shoe)
            if existing is not None:
                same = (existing.explicit and list(existing.burn) == list(w.burn)
                        and existing.cut_card_position == w.cut_card_position
                        and (w.variant is None or w.variant == existing.variant.id))
                if same:
                    return Unchanged(w.shoe)
                how = "explicitly with other burn cards, cut card or variant" if existing.explicit else "by its first round"
                raise ShoeConflict(f"shoe {w.shoe} of table {self.id!r} was already started {how}",
                                   field="shoe", extra={"stored": existing.summary(existing is cur)})
            raise self._backwards(w.shoe)
        if cur is not None and cur.in_progress is not None:
            raise self._in_progress(cur, f"shoe {w.shoe}")
        if burn:
            need = 1 + burn[0].burn_count
            if len(burn) != need:
                raise BurnCount(
                    f"turned card {burn[0]} burns {need - 1} more card(s), so burn holds {need} cards; got {len(burn)}",
                    field="burn",
                )
        if w.cut_card_position is not None:
            try:
                check_cut_card_position(w.cut_card_position, variant.decks)
            except ShoeError as e:
                raise CutCardPosition(str(e), field="cut_card_position") from None
        check_copies(collections.Counter(), variant.decks, [(f"burn[{i}]", c) for i, c in enumerate(burn)], w.shoe)
        return self._event(SHOE, w.shoe, None, {"burn": list(w.burn), "cut_card_position": w.cut_card_position,
                                                "variant": variant.id, "decks": variant.decks}, clock())

    def _decide_void(self, w: VoidRound, clock: Callable[[], float]) -> Event | Unchanged:
        """Raises UnknownShoe, UnknownRound, AlreadyVoided (another reason; ``extra["stored"]``).
        The round in progress may be voided too (a misdeal): it is recorded void with the cards
        dealt so far."""
        s = self.shoe(w.shoe)
        if s.in_progress is not None and s.in_progress.number == w.round:
            return self._event(VOID, w.shoe, w.round, {"reason": w.reason}, clock())
        _, r = self.find(w.shoe, w.round)
        if r.void is not None:
            if r.void["reason"] == w.reason:
                return Unchanged(w.shoe, w.round)
            raise AlreadyVoided(f"shoe {w.shoe} round {w.round} is already voided (reason {r.void['reason']!r})",
                                field="reason", extra={"stored": r.export(w.shoe)})
        return self._event(VOID, w.shoe, w.round, {"reason": w.reason}, clock())

    def _decide_correct(self, w: CorrectRound, clock: Callable[[], float]) -> Event | Unchanged:
        """Raises, in this order: UnknownShoe, UnknownRound (the correction names what the
        record lacks; the table is the caller's, see :meth:`roads.table.Table.decide`), then
        the round's own rules (TableauViolation, ResultContradiction, BadCardText:
        :func:`roads.record.result_of`), then the record's: RoundInProgress for the round
        being dealt card by card, RoundVoided (``extra["stored"]``), ShoeEnded (a cut card on a
        round before the shoe's last recorded one; field ``"cut_card"``), TooManyCopies (the
        round's previous cards are given back first)."""
        s = self.shoe(w.shoe)
        in_progress = s.in_progress is not None and s.in_progress.number == w.round
        if not in_progress:
            s, r = self.find(w.shoe, w.round)
        result_of(w.data)
        if in_progress:
            raise self._in_progress(s, "a correction of it")
        if r.on_hold:  # the supervisor's round: recorded now, at its number's place
            if w.data.get("cut_card") and w.round < len(s.rounds):
                raise ShoeEnded(f"round {w.round} cannot carry the cut card: shoe {w.shoe} has rounds up to "
                                f"{len(s.rounds)}", field="cut_card")
            check_copies(s.copies, s.decks, round_cards(w.data), w.shoe, removed=[c for _, c in round_cards(r.data)])
            return self._event(CORRECT, w.shoe, w.round, {"round": w.data, "reason": w.reason}, clock())
        if r.void is not None:
            raise RoundVoided(f"shoe {w.shoe} round {w.round} is voided ({r.void['reason']!r}); "
                              "a voided round is not corrected", field="round", extra={"stored": r.export(w.shoe)})
        if w.data == r.data:
            return Unchanged(w.shoe, w.round)
        if w.data.get("cut_card") and w.round < len(s.rounds):
            raise ShoeEnded(f"round {w.round} cannot carry the cut card: shoe {w.shoe} has rounds up to {len(s.rounds)}",
                            field="cut_card")
        check_copies(s.copies, s.decks, round_cards(w.data), w.shoe, removed=[c for _, c in round_cards(r.data)])
        return self._event(CORRECT, w.shoe, w.round, {"round": w.data, "reason": w.reason}, clock())

    def _decide_cards(self, w: DealCards, clock: Callable[[], float]) -> Event | Unchanged:
        """A ``"card"`` event while the round stays in progress, the whole round's ``"round"``
        event when these cards complete it (:func:`roads.dealing.deal`), or unchanged for cards
        already stored (also of a recorded round, against its content now or as first recorded:
        :func:`roads.dealing.check_recorded`).

        Raises, besides the round rules of :meth:`_decide_round` (RoundGap, ShoeBackwards,
        ShoeEnded, RoundInProgress for another round), what those two raise: CardGap,
        CardConflict, DealOrder, RoundVoided, TooManyCopies."""
        at = clock()
        shoe, stored = self._place(w.shoe, w.round)
        opens = None
        if shoe is None:
            opens = self._opens_shoe()
            dealt = dealing.deal(w, None, collections.Counter(), opens["decks"])
        elif stored is not None:
            dealing.check_recorded(shoe.number, stored, w)
            return Unchanged(w.shoe, w.round)
        else:
            ip = shoe.in_progress
            if ip is not None and ip.number != w.round:
                raise self._in_progress(shoe, f"round {w.round}")
            if ip is None:
                self._check_next(shoe, w.round)
            dealt = dealing.deal(w, ip, shoe.copies, shoe.decks)
        if dealt is None:
            return Unchanged(w.shoe, w.round)
        kind, data = dealt
        if opens is not None:
            data["opens_shoe"] = opens
        return self._event(kind, w.shoe, w.round, data, at)

    def _decide_hold(self, w: HoldRound, clock: Callable[[], float]) -> Event | Unchanged:
        """The ``"hold"`` event of the round in progress, or unchanged for the same hold again.
        Raises UnknownShoe, UnknownRound (neither in progress nor recorded), RoundHeld (held
        with another reason, message, result or cards; ``extra["stored"]``), RoundVoided,
        RoundConflict (a recorded round is not held)."""
        s = self.shoe(w.shoe)
        ip = s.in_progress
        if ip is not None and ip.number == w.round:
            return self._event(HOLD, w.shoe, w.round, w.data(), clock())
        r = s.round(w.round)
        if r is None:
            raise UnknownRound(f"shoe {w.shoe} of table {self.id!r} has no round {w.round} in progress or recorded",
                               field="round")
        if r.held is not None:
            stored = {k: r.held[k] for k in ("reason", "message", "shoe_result", "player", "banker")}
            if stored == w.data():
                return Unchanged(w.shoe, w.round)
            raise RoundHeld(f"shoe {w.shoe} round {w.round} is already held ({r.held['reason']}: "
                            f"{r.held['message']!r})"[:500], field="reason", extra={"stored": r.export(w.shoe)})
        if r.void is not None:
            raise RoundVoided(f"shoe {w.shoe} round {w.round} is voided ({r.void['reason']!r}); it is not held",
                              field="round", extra={"stored": r.export(w.shoe)})
        raise RoundConflict(f"shoe {w.shoe} round {w.round} of table {self.id!r} is recorded ({describe(r.data)}); "
                            "only the round in progress is held", table=self.id, shoe=w.shoe, round=w.round,
                            extra={"stored": r.export(w.shoe)})

    def _decide_state(self, w: SetState, clock: Callable[[], float]) -> Event | Unchanged:
        """The ``"state"`` event of the whole new state (:func:`roads.table_state.next_status`;
        its ``shoe`` is the current shoe's number, 0 before the first), or unchanged when ``w``
        sets nothing new. Raises BadTableState, UnknownBet."""
        at = clock()
        cur = self.current
        new = table_state.next_status(self.status, w, at,
                                      lambda: cur.variant if cur is not None else self.default_variant())
        shoe = cur.number if cur is not None else 0
        if new == self.status:
            return Unchanged(shoe)
        return self._event(STATE, shoe, None, new.data(), at)

    _DECIDE: dict[type, Callable[..., Event | Unchanged]] = {
        RecordRound: _decide_round,
        StartShoe: _decide_shoe,
        VoidRound: _decide_void,
        CorrectRound: _decide_correct,
        DealCards: _decide_cards,
        SetState: _decide_state,
        HoldRound: _decide_hold,
    }

    # ------------------------------------------------------------------ applying
    def apply(self, ev: Event) -> None:
        """Apply one event: the next ``seq`` of this table. Deterministic: the same events in
        the same order give the same record. Raises ``ValueError`` for an event that does not
        fit the record (a damaged store); the record is unchanged then."""
        if ev.seq != self.seq + 1:
            raise ValueError(f"table {self.id!r}: event seq {ev.seq} after {self.seq}")
        if ev.kind in _PAST_CHANGES and self._is_past(ev.shoe):
            s = self._past_shoe(ev)
            if s.version < ev.seq:  # a store-backed provider may give it as written with ev
                _PAST_CHANGES[ev.kind](s, ev)
                s.version, s.updated_at = ev.seq, ev.at
            self.past.put(s)
        else:
            s = self._APPLY[ev.kind](self, ev)
            if s is not None:
                s.version = ev.seq
                s.updated_at = ev.at
        self.seq = ev.seq

    def commit(self, ev: Event) -> Commit:
        """What a store writes in one transaction with ``ev``, the event :meth:`decide` gave
        (not applied yet): the shoe it closes (an event opening a newer shoe closes the current
        one as it stands) or the past shoe it changes (a void or correction: that shoe after
        ``ev``, computed on a copy), the state before a shoe it opens, its new state
        (:class:`roads.archive.Commit`). Changes nothing. Raises ``ValueError`` for an event that
        is not this table's next or names a past shoe it cannot read."""
        if ev.seq != self.seq + 1:
            raise ValueError(f"table {self.id!r}: event seq {ev.seq} after {self.seq}")
        cur = self.current
        if ev.kind == SHOE or (ev.kind in (ROUND, CARD) and "opens_shoe" in ev.data):
            return Commit(ev, archive(cur) if cur is not None else None, opens=True,
                          status_at_open=self.status.data())
        if ev.kind == STATE:
            return Commit(ev, status=ev.data)
        if ev.kind in _PAST_CHANGES and self._is_past(ev.shoe):
            s = shoe_from_document(shoe_document(self._past_shoe(ev)))  # an exact copy
            if s.version < ev.seq:
                _PAST_CHANGES[ev.kind](s, ev)
                s.version, s.updated_at = ev.seq, ev.at
            return Commit(ev, archive(s))
        return Commit(ev)

    def _is_past(self, number: int) -> bool:
        cur = self.current
        return cur is None or number != cur.number

    def _past_shoe(self, ev: Event) -> ShoeRecord:
        s = self.past.get(ev.shoe)
        if s is None:
            raise ValueError(f"table {self.id!r} event {ev.seq}: no shoe {ev.shoe}")
        return s

    def _open_shoe(self, number: int, info: Mapping[str, Any], at: float, explicit: bool) -> ShoeRecord:
        s = ShoeRecord(number=number, variant=variant_or_default(info["variant"]), decks=int(info["decks"]),
                       started_at=at, explicit=explicit, burn=tuple(info.get("burn") or ()),
                       cut_card_position=info.get("cut_card_position"))
        s.copies.update(Card.parse(c) for c in s.burn)
        s.roads = ShoeRoads()
        old = self.current
        if old is not None:
            old.roads = None  # past shoes are rebuilt from their ops on demand
            self.past.put(old)
        self.current = s
        return s

    def _stored_shoe(self, ev: Event) -> ShoeRecord:
        """The current shoe, which ``ev`` names (rounds and cards go to no other)."""
        s = self.current
        if s is None or s.number != ev.shoe:
            raise ValueError(f"table {self.id!r} event {ev.seq}: shoe {ev.shoe} is not the current shoe")
        return s

    def _event_shoe(self, ev: Event) -> ShoeRecord:
        """The shoe a ``"round"`` or ``"card"`` event goes to: opened by it (``"opens_shoe"``,
        round 1 only) or stored."""
        if "opens_shoe" in ev.data:
            if ev.round != 1:
                raise ValueError(f"table {self.id!r} shoe {ev.shoe}: round {ev.round} opens the shoe")
            return self._open_shoe(ev.shoe, ev.data["opens_shoe"], ev.at, explicit=False)
        return self._stored_shoe(ev)

    def _apply_shoe(self, ev: Event) -> ShoeRecord:
        return self._open_shoe(ev.shoe, ev.data, ev.at, explicit=True)

    def _apply_round(self, ev: Event) -> ShoeRecord:
        d = ev.data
        data = ordered_round(d["round"])
        result = result_of(data)
        s = self._event_shoe(ev)
        if "opens_shoe" not in d:
            if ev.round != len(s.rounds) + 1:
                raise ValueError(f"table {self.id!r} shoe {ev.shoe}: round {ev.round} after {len(s.rounds)}")
            ip = s.in_progress
            if ip is not None:  # the round dealt card by card is complete: its cards are in `data`
                s.copies.subtract(ip.taken())
                s.in_progress = None
        s.rounds.append(RoundRecord(ev.round, data, data, result, ev.at, dealer=self.status.dealer))
        s.copies.update(c for _, c in round_cards(data))
        s.ops.append(("record", ev.round, result))
        if s.roads is not None:
            s.roads.record(ev.round, result)
        return s

    def _apply_void(self, ev: Event) -> ShoeRecord:
        s = self._stored_shoe(ev)
        ip = s.in_progress
        if ip is not None and ip.number == ev.round:  # a misdeal: the cards stay out of the shoe
            data = ip.data()
            s.rounds.append(RoundRecord(ip.number, data, data, None, ip.started_at,
                                        void={"reason": ev.data["reason"], "at": ev.at}, dealer=self.status.dealer))
            s.in_progress = None
            return s
        _void_round(s, ev)
        return s

    def _apply_hold(self, ev: Event) -> ShoeRecord:
        """The round in progress leaves the slot, kept with its cards so far as held (no result,
        in no road; its cards stay out of the shoe)."""
        s = self._stored_shoe(ev)
        ip = s.in_progress
        if ip is None or ip.number != ev.round:
            raise ValueError(f"table {self.id!r} event {ev.seq}: hold of round {ev.round}, not in progress")
        data = ip.data()
        d = ev.data
        held = ordered_held({**d, "at": ev.at})
        s.rounds.append(RoundRecord(ip.number, data, data, None, ip.started_at, dealer=self.status.dealer, held=held))
        s.in_progress = None
        return s

    def _apply_correct(self, ev: Event) -> ShoeRecord:
        s = self._stored_shoe(ev)
        _correct_round(s, ev)
        return s

    def _apply_cards(self, ev: Event) -> ShoeRecord:
        """The round in progress gets the event's cards (:func:`roads.dealing.add_cards`; the
        shoe opened first when the event opens it), and they are out of the shoe."""
        s = self._event_shoe(ev)
        s.in_progress, taken = dealing.add_cards(s.in_progress, len(s.rounds), ev)
        s.copies.update(taken)
        return s

    def _apply_state(self, ev: Event) -> None:
        """The table's state becomes the event's payload (no shoe changes)."""
        self.status = TableStatus.from_data(ev.data)

    _APPLY: dict[str, Callable[["Table", Event], ShoeRecord | None]] = {
        SHOE: _apply_shoe,
        ROUND: _apply_round,
        VOID: _apply_void,
        CORRECT: _apply_correct,
        CARD: _apply_cards,
        STATE: _apply_state,
        HOLD: _apply_hold,
    }


def _stored_round(s: ShoeRecord, ev: Event) -> RoundRecord:
    r = s.round(ev.round or 0)
    if r is None:
        raise ValueError(f"event {ev.seq}: shoe {s.number} has no round {ev.round}")
    return r


def _void_round(s: ShoeRecord, ev: Event) -> None:
    """A ``"void"`` event on a recorded round of ``s`` (kept, counted nowhere)."""
    r = _stored_round(s, ev)
    held = r.on_hold
    r.void = {"reason": ev.data["reason"], "at": ev.at}
    if held:  # a held round was never counted: nothing leaves the roads
        return
    s.ops.append(("void", r.number, None))
    if s.roads is not None:
        s.roads.void(r.number)


def _correct_round(s: ShoeRecord, ev: Event) -> None:
    """A ``"correct"`` event on a recorded round of ``s``: new content, the previous kept in its
    history (a held round: recorded, counted at its number's place)."""
    r = _stored_round(s, ev)
    data = ordered_round(ev.data["round"])
    result = result_of(data)
    s.copies.subtract(c for _, c in round_cards(r.data))
    s.copies.update(c for _, c in round_cards(data))
    r.corrections.append({"at": ev.at, "reason": ev.data.get("reason"), "previous": r.data})
    held = r.on_hold
    r.data, r.result = data, result
    op = "insert" if held else "correct"  # a held round resolved: counted at its number's place
    s.ops.append((op, r.number, result))
    if s.roads is not None:
        if held:
            s.roads.insert(r.number, result)
        else:
            s.roads.correct(r.number, result)


_PAST_CHANGES: dict[str, Callable[[ShoeRecord, Event], None]] = {VOID: _void_round, CORRECT: _correct_round}
"""The events that may change a past shoe (a void or correction of one of its rounds)."""
