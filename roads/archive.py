"""A table's history as a store keeps it: past shoes as exact documents with summaries, and the
live part a table is restored from (docs/history.md).

A shoe that is no longer the table's current one (a newer shoe opened) is kept as

* its **document** (:func:`shoe_document`, JSON-ready): everything :class:`ShoeRecord` holds, so
  :func:`shoe_from_document` rebuilds the record exactly (rounds with their content now and as
  first recorded, results, times, voids, corrections, dealer; road operations in order; burn,
  cut card, variant, decks, copies out of the shoe, version); the roads are rebuilt from the
  operations on demand (:meth:`ShoeRecord.replay_roads`), never replayed from events;
* its **summary**: the shoe-list line (:meth:`ShoeRecord.summary` with ``live`` false, byte for
  byte) and :func:`shoe_stats` (what per-day statistics add up).

:class:`ArchivedShoe` is the pair; :class:`Commit` is what a store writes with one event in the
same transaction (the event, the shoe it closes or changes, the table's head);
:class:`LivePart` is what a store gives back to restore a table without its history
(:meth:`roads.table.Table.restore`); :class:`PastShoes` is how a table reaches its past shoes
(:class:`MemoryShoes` keeps them in memory, a store reads them from disk).

Standard library only.
"""

from __future__ import annotations

import collections
import logging
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Protocol, Sequence

from roads.cards import Card
from roads.events import Event
from roads.outcome import Winner
from roads.record import InProgressRound, ordered_held, RoundRecord, ShoeRecord, result_of, round_cards
from roads.variants import DEFAULT_VARIANT_ID, Variant, get_variant
from roads.verdict import Verdict

log = logging.getLogger(__name__)

DOCUMENT_FORMAT = 1
"""``"format"`` of a shoe document; :func:`shoe_from_document` refuses any other."""

_OP_NAMES = {"record": "r", "void": "v", "correct": "c", "insert": "i"}
_OP_BY_NAME = {v: k for k, v in _OP_NAMES.items()}


def variant_or_default(variant_id: str) -> Variant:
    """The preset ``variant_id``; a stored id that is no longer a preset gives the default
    preset (with a warning), so old records still load."""
    try:
        return get_variant(variant_id)
    except ValueError:
        log.warning("stored variant %r is no longer a preset; using %r", variant_id, DEFAULT_VARIANT_ID)
        return get_variant(DEFAULT_VARIANT_ID)


# ----------------------------------------------------------------------------- documents
def shoe_document(shoe: ShoeRecord) -> dict[str, Any]:
    """The exact, JSON-ready document of ``shoe`` (inverse: :func:`shoe_from_document`).

    ``{"format": 1, "shoe", "variant" (id), "decks", "started_at", "explicit", "burn",
    "cut_card_position", "version", "updated_at", "rounds": [round...]}`` plus ``"edits"`` when
    the shoe has road operations other than recording its rounds in order, and
    ``"in_progress"`` while a round is being dealt (only a current shoe). A round is ``{"at",
    "round" (its content now)}`` plus, when they apply, ``"dealer"``, ``"void": {"reason",
    "at"}``, ``"corrections": [{"at", "reason", "previous"}]`` and ``"incomplete": true`` (voided
    while dealt card by card: no result) and ``"held": {"reason", "message", "shoe_result",
    "player", "banker", "at"}`` (held for the supervisor; ``"incomplete"`` until resolved). Times
    are Unix seconds. What is derived is left out:
    results (from the content), the content as first recorded (the first correction's
    ``previous``), the copies out of the shoe (burn and every round's cards), and the recording
    operations (one per complete round, in order); ``"edits"`` holds the void and correct
    operations as ``[position in the operations, "v" | "c", round number]``.
    """
    rounds = []
    for r in shoe.rounds:
        one: dict[str, Any] = {"at": r.at, "round": r.data}
        if r.dealer is not None:
            one["dealer"] = r.dealer
        if r.void is not None:
            one["void"] = {"reason": r.void["reason"], "at": r.void["at"]}
        if r.corrections:
            one["corrections"] = [{"at": c["at"], "reason": c["reason"], "previous": c["previous"]}
                                  for c in r.corrections]
        if r.result is None:
            one["incomplete"] = True
        if r.held is not None:
            one["held"] = ordered_held(r.held)
        rounds.append(one)
    doc: dict[str, Any] = {
        "format": DOCUMENT_FORMAT, "shoe": shoe.number, "variant": shoe.variant.id, "decks": shoe.decks,
        "started_at": shoe.started_at, "explicit": shoe.explicit, "burn": list(shoe.burn),
        "cut_card_position": shoe.cut_card_position, "version": shoe.version, "updated_at": shoe.updated_at,
        "rounds": rounds,
    }
    edits = [[i, _OP_NAMES[op], number] for i, (op, number, _) in enumerate(shoe.ops) if op != "record"]
    if edits:
        doc["edits"] = edits
    ip = shoe.in_progress
    if ip is not None:
        doc["in_progress"] = {"number": ip.number, "started_at": ip.started_at, "cards": list(ip.cards),
                              "burn": list(ip.burn), "cut_card": ip.cut_card}
        if ip.backs:
            doc["in_progress"]["backs"] = list(ip.backs)
    return doc


def shoe_from_document(doc: Mapping[str, Any]) -> ShoeRecord:
    """The :class:`ShoeRecord` of a :func:`shoe_document` (``roads`` left ``None``: rebuilt from
    the operations on demand). Raises ``ValueError`` for a document of another format or one that
    does not fit (a damaged store), and the :mod:`roads.errors` error of a round it cannot read."""
    if doc.get("format") != DOCUMENT_FORMAT:
        raise ValueError(f"shoe document format {doc.get('format')!r}, this code reads {DOCUMENT_FORMAT}")
    shoe = ShoeRecord(number=int(doc["shoe"]), variant=variant_or_default(doc["variant"]), decks=int(doc["decks"]),
                      started_at=doc["started_at"], explicit=bool(doc["explicit"]), burn=tuple(doc["burn"]),
                      cut_card_position=doc["cut_card_position"], version=int(doc["version"]),
                      updated_at=doc["updated_at"])
    copies = shoe.copies
    copies.update(Card.parse(c) for c in shoe.burn)
    recorded = []  # the "record" operations, in order
    for number, one in enumerate(doc["rounds"], 1):
        data = one["round"]
        corrections = [{"at": c["at"], "reason": c["reason"], "previous": c["previous"]}
                       for c in one.get("corrections", ())]
        original = corrections[0]["previous"] if corrections else data
        incomplete = bool(one.get("incomplete"))
        result = None if incomplete else result_of(data)
        void = one.get("void")
        held = one.get("held")
        r = RoundRecord(number, data, original, result, one["at"],
                        void=None if void is None else {"reason": void["reason"], "at": void["at"]},
                        corrections=corrections, dealer=one.get("dealer"),
                        held=None if held is None else ordered_held(held))
        shoe.rounds.append(r)
        copies.update(c for _, c in round_cards(data))
        if not incomplete and held is None:  # a resolved held round is counted by its "i" edit
            recorded.append(("record", number, result if original is data else result_of(original)))
    edits = doc.get("edits", ())
    ops: list[tuple[str, int, Any]] = []
    corrected: collections.Counter = collections.Counter()
    records = iter(recorded)
    for position, name, number in edits:
        while len(ops) < position:
            ops.append(next(records))
        op = _OP_BY_NAME[name]
        if op == "void":
            ops.append(("void", number, None))
        else:  # "correct", or "insert" (a held round resolved by its first correction)
            r = shoe.rounds[number - 1]
            k = corrected[number] = corrected[number] + 1  # this is the round's k-th correction
            after = r.corrections[k]["previous"] if k < len(r.corrections) else r.data
            ops.append((op, number, r.result if after is r.data and r.result is not None else result_of(after)))
    ops.extend(records)
    shoe.ops = ops
    ip = doc.get("in_progress")
    if ip is not None:
        shoe.in_progress = InProgressRound(int(ip["number"]), ip["started_at"], list(ip["cards"]), list(ip["burn"]),
                                           bool(ip["cut_card"]), list(ip.get("backs", ())))
        copies.update(shoe.in_progress.taken())
    return shoe


# ----------------------------------------------------------------------------- statistics
class _Tally:
    """Counts of counted rounds (one shoe, or one dealer's rounds of it)."""

    __slots__ = ("counts", "side_bets", "first_at", "last_at")

    KEYS = ("rounds", "banker", "player", "tie", "banker_pair", "player_pair", "either_pair", "perfect_pair",
            "natural", "banker_natural", "player_natural")

    def __init__(self, bets: Sequence[str]) -> None:
        self.counts = dict.fromkeys(self.KEYS, 0)
        self.side_bets = {bet: {"hits": 0, "unknown": 0, "open_rounds": 0, "open_hits": 0} for bet in bets}
        self.first_at: float | None = None
        self.last_at: float | None = None

    def add(self, r: RoundRecord, facts: Sequence[int], bets: Sequence[tuple[str, bool, Verdict]]) -> None:
        """Count round ``r``: ``facts`` in :attr:`KEYS` order after ``rounds``, ``bets`` each side
        bet's ``(id, open, verdict)``."""
        c = self.counts
        c["rounds"] += 1
        for key, n in zip(self.KEYS[1:], facts):
            c[key] += n
        for bet, is_open, verdict in bets:
            tally = self.side_bets[bet]
            tally["open_rounds"] += is_open
            if verdict is Verdict.WIN:
                tally["hits"] += 1
                tally["open_hits"] += is_open
            elif verdict is Verdict.UNKNOWN:
                tally["unknown"] += 1
        if self.first_at is None:
            self.first_at = r.at
        self.last_at = r.at

    def json(self) -> dict[str, Any]:
        return {**self.counts, "side_bets": self.side_bets, "first_round_at": self.first_at,
                "last_round_at": self.last_at}


def shoe_stats(shoe: ShoeRecord, start: float | None = None, end: float | None = None) -> dict[str, Any]:
    """What gaming-day statistics add up for one shoe (docs/domain.md sections 3-4), over its
    counted rounds (recorded, not voided) in round order; with ``start``/``end`` (Unix seconds),
    only the rounds recorded in ``[start, end)`` (the part of a shoe in one gaming day: a side
    bet's window still counts from the shoe's first round; streaks start inside the part).

    ``{"recorded", "voided", "rounds" (counted), "banker", "player", "tie", "banker_pair",
    "player_pair", "either_pair", "perfect_pair" (rounds known to have one), "natural",
    "banker_natural", "player_natural", "longest_banker_streak", "longest_player_streak" (the
    longest big-road column of each side: ties neither extend nor break a streak),
    "side_bets": {bet id: {"hits", "unknown" (the round lacks a fact the bet needs),
    "open_rounds", "open_hits" (rounds within the bet's window: the first N counted rounds,
    section 3)}} for every side bet of the shoe's variant, "first_round_at", "last_round_at"
    (Unix seconds of the first and last counted round, ``None`` when none), "dealers": [{"dealer",
    the same counts, side bets and times}] in order of first appearance}``.
    """
    specs = shoe.variant.side_bets
    names = [spec.bet for spec in specs]
    total = _Tally(names)
    dealers: dict[str | None, _Tally] = {}
    longest = {Winner.BANKER: 0, Winner.PLAYER: 0}
    run_side, run = None, 0
    voided = recorded = index = 0
    for r in shoe.rounds:
        res = r.result
        in_part = (start is None or r.at >= start) and (end is None or r.at < end)
        if r.on_hold:  # waits for the supervisor: recorded, neither counted nor voided yet
            recorded += in_part
            continue
        counted = r.void is None and res is not None
        index += counted
        if not in_part:
            continue
        recorded += 1
        if not counted:
            voided += 1
            continue
        w = res.winner
        facts = (w is Winner.BANKER, w is Winner.PLAYER, w is Winner.TIE, res.banker_pair, res.player_pair,
                 res.either_pair, res.perfect_pair is True, res.natural, res.side_natural(Winner.BANKER) is True,
                 res.side_natural(Winner.PLAYER) is True)
        bets = [(spec.bet, spec.round_limit is None or index <= spec.round_limit, spec.settle(res).verdict)
                for spec in specs]
        total.add(r, facts, bets)
        tally = dealers.get(r.dealer)
        if tally is None:
            tally = dealers[r.dealer] = _Tally(names)
        tally.add(r, facts, bets)
        if w is not Winner.TIE:
            run = run + 1 if w is run_side else 1
            run_side = w
            longest[w] = max(longest[w], run)
    out = {"recorded": recorded, "voided": voided, **total.json()}
    out["longest_banker_streak"] = longest[Winner.BANKER]
    out["longest_player_streak"] = longest[Winner.PLAYER]
    out["dealers"] = [{"dealer": name, **t.json()} for name, t in dealers.items()]
    return out


# ----------------------------------------------------------------------------- what stores keep
@dataclass(frozen=True, slots=True)
class ArchivedShoe:
    """A past shoe as a store keeps it: ``number``, ``version`` (table version of the last
    event that changed it), ``started_at`` and ``ended_at`` (Unix seconds; the end is the last
    round's time, or the start when it has none: the shoe-list line's ``ended_at``),
    ``rounds`` (recorded, voided included), ``document`` (:func:`shoe_document`), ``line`` (the
    shoe-list line, :meth:`ShoeRecord.summary` with ``live`` false) and ``stats``
    (:func:`shoe_stats`). JSON-ready; do not mutate."""

    number: int
    version: int
    started_at: float
    ended_at: float
    rounds: int
    document: dict[str, Any]
    line: dict[str, Any]
    stats: dict[str, Any]


def archive(shoe: ShoeRecord) -> ArchivedShoe:
    """The :class:`ArchivedShoe` of ``shoe`` as it stands."""
    last = shoe.rounds[-1].at if shoe.rounds else None
    line = dict(shoe.summary(False))
    line["variant"] = dict(line["variant"])
    line["burn"] = list(line["burn"])
    return ArchivedShoe(shoe.number, shoe.version, shoe.started_at, last if last is not None else shoe.started_at,
                        len(shoe.rounds), shoe_document(shoe), line, shoe_stats(shoe))


@dataclass(frozen=True, slots=True)
class Commit:
    """What a store writes for one event, in one transaction with it
    (:meth:`roads.table.Table.commit`).

    ``event``; ``archive``: the shoe the event closes (it opens a newer one: the current shoe as
    it stands) or changes (a void or correction of a past shoe: that shoe after the event), else
    ``None``; ``opens``: the event opens shoe ``event.shoe``, the table's new live shoe, and
    ``status_at_open`` is the table's state just before it (:meth:`TableStatus.data` shape);
    ``status``: the table's whole new state for a ``"state"`` event, else ``None``. The table's
    head (its version) becomes ``event.seq``."""

    event: Event
    archive: ArchivedShoe | None = None
    opens: bool = False
    status_at_open: Mapping[str, Any] | None = None
    status: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class LivePart:
    """What a store gives back to restore one table without its history
    (:meth:`roads.table.Table.restore`): ``table``; ``head`` (its version: the seq of its last
    event); ``status`` (its latest state, :meth:`TableStatus.data` shape; ``None`` = never set);
    ``live_shoe`` (``None`` before the first shoe); ``status_at_open`` (the state just before the
    event that opened the live shoe); ``events``: the live shoe's events in seq order from the
    one that opened it (seq gaps where other shoes' events were)."""

    table: str
    head: int
    status: Mapping[str, Any] | None = None
    live_shoe: int | None = None
    status_at_open: Mapping[str, Any] | None = None
    events: Sequence[Event] = field(default_factory=tuple)


class PastShoes(Protocol):
    """How a table reaches its past shoes (every shoe but the current one)."""

    def get(self, number: int) -> ShoeRecord | None:
        """Past shoe ``number`` as it stands, or ``None``. The table may change the record it
        is given (a void or correction) and then hands it back with :meth:`put`."""

    def put(self, shoe: ShoeRecord) -> None:
        """``shoe`` became past (a newer shoe opened) or changed; a store-backed provider has
        already written it with the event (:class:`Commit`) and may only cache it."""

    def numbers(self) -> Iterable[int]:
        """Every past shoe's number, ascending."""


class MemoryShoes:
    """Past shoes kept in memory (a table on its own, tests, a full replay)."""

    def __init__(self) -> None:
        self._shoes: dict[int, ShoeRecord] = {}

    def get(self, number: int) -> ShoeRecord | None:
        """Shoe ``number`` or ``None``."""
        return self._shoes.get(number)

    def put(self, shoe: ShoeRecord) -> None:
        """Keep ``shoe`` (replacing the one of that number)."""
        self._shoes[shoe.number] = shoe

    def numbers(self) -> list[int]:
        """Every kept shoe's number, ascending."""
        return sorted(self._shoes)
