"""Simulated table histories for property tests of the record's history (roads.archive,
Table.restore, the stores' documents and summaries).

:func:`table_writes` deals short real shoes (:class:`roads.shoe.Shoe` with the cut card near the
front, so a shoe lasts a few rounds and ends with the cut card, or is left early for a higher shoe
number) and yields every kind of write a feed sends: shoes started explicitly (burn, cut card,
variant) or by their first round, rounds card by card with table states and dealer changes (cards
one at a time or several, some sent twice), whole card rounds, result-level rounds, misdeals
voided in progress; and, between rounds, voids and corrections of rounds of the live and of past
shoes, repeats of past rounds, cards and shoe starts (unchanged or refused), rounds going back.
It reads the table it writes to (the reference: writes are chosen from what the table holds), so
run it against one table and keep the writes (:func:`run`). With ``shoe_extensions`` it also
sends what card-reading shoes add (docs/shoes.md): cards drawn face down before their faces,
rounds held for the supervisor (resolved later by a correction or a void, some in past shoes),
and shoe errors set and cleared.
"""

from __future__ import annotations

import random
from typing import Any, Iterator

from roads import errors
from roads.dealing import DealCards
from roads.events import Event, Unchanged
from roads.outcome import RoundResult
from roads.record import deal_order
from roads.shoe import Shoe
from roads.table import CorrectRound, HoldRound, RecordRound, StartShoe, Table, VoidRound
from roads.table_state import SetState
from roads.variants import get_variant
from support.all_shoes import all_shoes

DEALERS = ("Anna", "Bo", "Chai", "Dara", None)
VARIANTS = (None, None, None, "seed001", "seed002", "seed004_mini")
START = 1_764_000_000.0


def result_level(result: RoundResult, rng: random.Random) -> dict[str, Any]:
    """The result-level round of ``result``: the required fields, sometimes card counts too."""
    out = {"winner": result.winner.value, "player_total": result.player_total, "banker_total": result.banker_total,
           "player_pair": result.player_pair, "banker_pair": result.banker_pair, "natural": result.natural}
    if rng.random() < 0.3:
        out["player_card_count"] = result.player_card_count
        out["banker_card_count"] = result.banker_card_count
    return {"result": out}


def _recorded(table: Table) -> list[tuple[int, int]]:
    """``(shoe, round)`` of recorded rounds of the current shoe and the last two past ones."""
    out = []
    numbers = sorted(all_shoes(table))[-3:]
    for n in numbers:
        s = all_shoes(table)[n]
        out += [(n, r.number) for r in s.rounds]
    return out


def _edit(rng: random.Random, table: Table) -> Iterator[Any]:
    """One write about what the table holds: void, correction, repeat, stale cards or shoe start."""
    rounds = _recorded(table)
    if not rounds:
        return
    shoe_no, round_no = rng.choice(rounds)
    s = all_shoes(table)[shoe_no]
    r = s.round(round_no)
    kind = rng.random()
    if kind < 0.25:
        yield VoidRound(shoe_no, round_no, rng.choice(("dealer error", "camera fault", "misread")))
    elif kind < 0.5:
        if r.result is not None:
            data = result_level(r.result, rng) if rng.random() < 0.7 else dict(r.original)
            if rng.random() < 0.1:
                data["cut_card"] = True
            yield CorrectRound(shoe_no, round_no, data, rng.choice((None, "operator check")))
    elif kind < 0.65 and r.result is not None:
        yield RecordRound(shoe_no, round_no, r.original if rng.random() < 0.7 else
                          {"result": {"winner": "T", "player_total": 5, "banker_total": 5, "player_pair": False,
                                      "banker_pair": False, "natural": False}})
    elif kind < 0.75:
        cards = deal_order(r.data)
        if cards:
            k = rng.randint(1, len(cards))
            yield DealCards(shoe_no, round_no, k, (cards[k - 1],))
    elif kind < 0.85:
        yield StartShoe(shoe_no, tuple(s.burn), s.cut_card_position)
    elif r.result is not None:
        yield RecordRound(max(1, shoe_no - 1), 1, r.original)


def table_writes(rng: random.Random, table: Table, *, shoes: int = 4, edits: float = 0.15,
                 shoe_extensions: bool = False) -> Iterator[Any]:
    """The writes of a simulated table (module doc), about ``shoes`` shoes; ``edits`` is the
    chance of an edit (void, correction, repeat) after each round; ``shoe_extensions``: also
    face-down draws, holds and their resolutions, shoe errors."""
    number = table.current.number if table.current is not None else 0
    held: list[tuple[int, int, dict[str, Any]]] = []
    for _ in range(shoes):
        number += 1 if rng.random() < 0.8 else rng.randint(2, 4)
        variant_id = rng.choice(VARIANTS)
        explicit = rng.random() < 0.5
        variant = get_variant(variant_id) if explicit and variant_id else table.default_variant()
        decks = variant.decks
        cut = rng.randint(52 * decks - 60, 52 * decks - 17)
        physical = Shoe(decks, rng=rng, cut_card_position=cut, burn_between_rounds=rng.random() < 0.3)
        if rng.random() < 0.6:
            yield SetState(state="shuffling", dealer=rng.choice(DEALERS))
        if explicit:
            yield StartShoe(number, tuple(map(str, physical.burn_cards)), cut if rng.random() < 0.7 else None, variant_id)
        leave_after = rng.randint(2, 9) if rng.random() < 0.4 else None
        round_no = 0
        while not physical.finished and (leave_after is None or round_no < leave_after):
            dealt = physical.deal_round()
            round_no += 1
            data: dict[str, Any] = {"player": list(map(str, dealt.player)), "banker": list(map(str, dealt.banker))}
            if dealt.burned:
                data["burn"] = list(map(str, dealt.burned))
            if dealt.is_last:
                data["cut_card"] = True
            style = rng.random()
            if shoe_extensions and style < 0.45:
                yield from _shoe_round(rng, number, round_no, data, held)
            elif style < 0.45:
                yield from _card_by_card(rng, number, round_no, data)
            elif style < 0.55:  # a misdeal: some cards, then the round is voided in progress
                cards = deal_order(data)[: rng.randint(1, 3)]
                yield DealCards(number, round_no, 1, tuple(cards), tuple(data.get("burn", ())))
                yield VoidRound(number, round_no, "misdeal")
            elif style < 0.8:
                yield RecordRound(number, round_no, data)
            else:
                level = result_level(dealt.result, rng)
                if "cut_card" in data:
                    level["cut_card"] = True
                yield RecordRound(number, round_no, level)
            while rng.random() < edits:
                yield from _edit(rng, table)
            while held and rng.random() < 0.3:  # the supervisor resolves a held round
                shoe_no, held_no, whole = held.pop(rng.randrange(len(held)))
                if rng.random() < 0.7:
                    yield CorrectRound(shoe_no, held_no, whole, rng.choice((None, "supervisor")))
                else:
                    yield VoidRound(shoe_no, held_no, "supervisor: misdeal")


def _shoe_round(rng: random.Random, shoe: int, round_no: int, data: dict[str, Any],
                held: list[tuple[int, int, dict[str, Any]]]) -> Iterator[Any]:
    """A round as a card-reading shoe's adapter sends it: each card drawn face down (sometimes)
    then shown; a shoe error now and then; one round in four held for the supervisor before its
    last card (kept in ``held`` for a later resolution)."""
    cards = deal_order(data)
    player, banker = data["player"], data["banker"]
    sides = [s for pair in zip(["player", "player"], ["banker", "banker"]) for s in pair] + \
        ["player"] * (len(player) == 3) + ["banker"] * (len(banker) == 3)
    burn = tuple(data.get("burn", ()))
    hold_at = rng.randint(1, len(cards) - 1) if rng.random() < 0.25 else None
    if rng.random() < 0.1:
        yield SetState(shoe_error={"code": rng.choice((1, 2, 7, 12)), "name": rng.choice(("card_unreadable",
                                                                                          "overdraw", "lamp"))})
    for k, card in enumerate(cards, 1):
        if hold_at is not None and k > hold_at:
            break
        last = k == len(cards)
        if rng.random() < 0.6:
            yield DealCards(shoe, round_no, k, (), burn if k == 1 and rng.random() < 0.5 else (), sides=(sides[k - 1],))
            if rng.random() < 0.1:
                yield DealCards(shoe, round_no, k, (), sides=(sides[k - 1],))       # again: unchanged
        yield DealCards(shoe, round_no, k, (card,), burn if k == 1 else (), bool(data.get("cut_card")) and last)
    if hold_at is not None:
        yield HoldRound(shoe, round_no, "result_mismatch", f"the shoe says B; the cards: {' '.join(cards)}",
                        {"winner": "B", "banker_six": False, "player_pair": False, "banker_pair": False},
                        tuple(player), tuple(banker))
        held.append((shoe, round_no, data))
    if rng.random() < 0.15:
        yield SetState(shoe_error=None)


def _card_by_card(rng: random.Random, shoe: int, round_no: int, data: dict[str, Any]) -> Iterator[Any]:
    yield SetState(state="betting", seconds_left=15, **({"dealer": rng.choice(DEALERS)} if rng.random() < 0.1 else {}))
    yield SetState(state="dealing")
    cards = deal_order(data)
    k = 0
    while k < len(cards):
        n = 1 if rng.random() < 0.7 else rng.randint(1, len(cards) - k)
        chunk = tuple(cards[k:k + n])
        last = k + n == len(cards)
        yield DealCards(shoe, round_no, k + 1, chunk, tuple(data.get("burn", ())) if k == 0 else (),
                        bool(data.get("cut_card")) and last)
        if rng.random() < 0.05:  # sent again (a retry): unchanged
            yield DealCards(shoe, round_no, k + 1, chunk)
        k += n
    yield SetState(state="result")


class Clock:
    """Simulated time: each write a few seconds after the previous one."""

    def __init__(self, rng: random.Random, start: float = START) -> None:
        self.rng = rng
        self.now = start

    def tick(self) -> float:
        self.now += round(self.rng.uniform(0.2, 40.0), 3)
        return self.now


def outcome(table: Table, write: Any, at: float) -> Event | Unchanged | tuple[str, str]:
    """``table.decide(write)`` at ``at``: the event, unchanged, or ``(error class, message)``."""
    try:
        return table.decide(write, lambda: at)
    except errors.TableError as e:
        return type(e).__name__, str(e)


def run(seed: int, *, shoes: int = 4, table_id: str = "T1", variant_id: str | None = None,
        on_event=None, shoe_extensions: bool = False) -> tuple[Table, list[tuple[float, Any]]]:
    """A reference table (past shoes in memory) fed ``table_writes``: ``(table, [(time, write)])``.
    ``on_event(table, event)`` is called for every event before it is applied (a store commits it)."""
    rng = random.Random(seed)
    table = Table(table_id, variant_id)
    clock = Clock(rng)
    done = []
    for write in table_writes(rng, table, shoes=shoes, shoe_extensions=shoe_extensions):
        at = clock.tick()
        done.append((at, write))
        out = outcome(table, write, at)
        if isinstance(out, Event):
            if on_event is not None:
                on_event(table, out)
            table.apply(out)
    return table, done
