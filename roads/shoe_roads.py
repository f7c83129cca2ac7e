"""All the road maps of one shoe, kept up to date one round at a time.

docs/domain.md section 4. :class:`ShoeRoads` holds the bead plate, big road, big eye
boy, small road, cockroach pig, statistics, ask road and good roads of one shoe and updates
them incrementally:

* :meth:`ShoeRoads.record` adds a round: O(1) work per road (dragon-tail placement,
  derived entries, counters) and for the good roads (a memo lookup; O(patterns) when the
  situation is new);
* :meth:`ShoeRoads.void` / :meth:`ShoeRoads.correct` change a recorded round: every road
  is rolled back (undone round by round, newest first) to just before that round and the
  later counted rounds are replayed: O(rounds after it), so changing the newest round
  costs one undo and one redo, never a rebuild from scratch.

The JSON-ready pieces for :func:`roads.snapshot.build_snapshot` are built once per change
and cached (a tie leaves the derived roads, ask road and good roads as they were), so a
snapshot costs a dict copy. Pieces handed out are never changed afterwards: a later round
builds new lists (copies) instead of appending to lists a snapshot holds. Some parts are
shared with other shoes too (the ask road and good-road answers, derived-road column lists:
module-level memos), read-only like the rest.

Round numbers are the feed's numbers within the shoe (1-based). They must increase with
every :meth:`ShoeRoads.record` (gaps are allowed: a feed may number a voided round that
never reached us). A voided round keeps its number and is left out of every road and
count.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Iterable, Sequence

from roads.ask import ask, next_round
from roads.bead_plate import BeadPlate
from roads.big_road import BigRoad
from roads.derived import DerivedRoad
from roads.good_roads import DEFAULT_GOOD_ROADS, GoodRoad, GoodRoadTracker
from roads.outcome import RoundResult, Winner
from roads.stats import ShoeStats


SNAPSHOT_CALLER_KEYS: frozenset[str] = frozenset({"table", "shoe", "version", "variant", "side_bets"})
"""Snapshot keys that :meth:`ShoeRoads.snapshot_template` leaves ``None`` for the caller."""

_BLANK_SNAPSHOT: dict = dict.fromkeys((
    "table", "shoe", "round", "version", "variant", "bead_plate", "big_road", "big_eye_boy",
    "small_road", "cockroach_pig", "ask", "stats", "side_bets", "good_roads", "last",
    "last_round_number", "voided",
))
"""Every snapshot key, in snapshot order, all ``None``: what a snapshot template is copied from."""


class RoundNumberError(ValueError):
    """A round number that cannot be used: not a positive integer, not above the last
    recorded round (``record``), or not a recorded round (``void``/``correct``).

    ``round_number`` is the offending value; the message quotes it.
    """

    def __init__(self, round_number: object, message: str) -> None:
        super().__init__(message)
        self.round_number = round_number
        self.field = "round"


class VoidRoundError(RoundNumberError):
    """``void`` or ``correct`` of a round that is already void."""


def _check_number(n: object) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise RoundNumberError(n, f"round number must be a positive integer, got {n!r}")
    return n


def _check_result(result: object) -> RoundResult:
    if not isinstance(result, RoundResult):
        raise TypeError(f"result must be a RoundResult, got {type(result).__name__}: {result!r}")
    return result


class ShoeRoads:
    """The road maps of one shoe (mutable; not thread-safe: one writer, under the table lock).

    Construct empty, then :meth:`record` rounds; or :meth:`from_rounds`. ``good_roads``
    is the pattern list for the good-road alerts (default
    :data:`roads.good_roads.DEFAULT_GOOD_ROADS`; :class:`roads.good_roads.GoodRoadError`
    for a bad list).

    Read-only attributes: ``bead_plate`` (:class:`roads.bead_plate.BeadPlate`),
    ``big_road`` (:class:`roads.big_road.BigRoad`), ``big_eye_boy``, ``small_road``,
    ``cockroach_pig`` (:class:`roads.derived.DerivedRoad`), ``stats``
    (:class:`roads.stats.ShoeStats`), ``patterns``; properties :attr:`rounds`,
    :attr:`last_round_number`, :attr:`voided`, :attr:`changes`.

    The ``*_json`` methods return the snapshot pieces (shapes in
    ``roads/schema/snapshot.schema.json``). Pieces are cached and shared between calls
    until the next change: treat them as read-only.
    """

    __slots__ = (
        "patterns", "bead_plate", "big_road", "big_eye_boy", "small_road", "cockroach_pig", "stats",
        "_good", "_derived", "_numbers", "_results", "_void", "_last_number", "_changes",
        "_j_template", "_j_derived", "_j_ask", "_j_good", "_j_voided",
    )

    def __init__(self, *, good_roads: Sequence[GoodRoad] = DEFAULT_GOOD_ROADS) -> None:
        self._good = GoodRoadTracker(good_roads)
        self.patterns: tuple[GoodRoad, ...] = self._good.patterns
        self.bead_plate = BeadPlate()
        self.big_road = BigRoad()
        self.big_eye_boy = DerivedRoad(1)
        self.small_road = DerivedRoad(2)
        self.cockroach_pig = DerivedRoad(3)
        self._derived = (self.big_eye_boy, self.small_road, self.cockroach_pig)
        self.stats = ShoeStats()
        self._numbers: list[int] = []  # counted round numbers, increasing
        self._results: list[RoundResult] = []  # counted rounds' results, parallel to _numbers
        self._void: dict[int, RoundResult] = {}  # voided round number -> its result
        self._last_number = 0
        self._changes = 0
        self._drop_all_json()

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_rounds(cls, rounds: Iterable[tuple[int, RoundResult]] | Iterable[RoundResult],
                    *, good_roads: Sequence[GoodRoad] = DEFAULT_GOOD_ROADS) -> "ShoeRoads":
        """Build from ``(round_number, result)`` pairs, or from bare results numbered 1, 2, ...

        Raises what :meth:`record` raises.
        """
        roads = cls(good_roads=good_roads)
        for i, item in enumerate(rounds, 1):
            if isinstance(item, RoundResult):
                roads.record(i, item)
            else:
                number, result = item
                roads.record(number, result)
        return roads

    def with_next(self, winner: Winner | str) -> "ShoeRoads":
        """The roads as they would be if ``winner`` (Banker or Player, or ``"B"`` / ``"P"``) won
        the next round (the "If Banker" / "If Player" preview): a new :class:`ShoeRoads` with
        these rounds (voided ones voided) and then :func:`roads.ask.next_round` as round
        :attr:`last_round_number` + 1. Its derived roads gain exactly the entries of
        :meth:`ask_json` for that side. This one is unchanged.

        Raises ``ValueError`` for a tie or anything else (a tie takes no cell: nothing to ask).
        """
        hypothetical = next_round(winner)
        roads = ShoeRoads(good_roads=self.patterns)
        voided = self._void
        for number, result in sorted([*zip(self._numbers, self._results), *voided.items()], key=lambda nr: nr[0]):
            roads.record(number, result)
            if number in voided:
                roads.void(number)
        roads.record(self._last_number + 1, hypothetical)
        return roads

    # ------------------------------------------------------------------ state
    @property
    def rounds(self) -> int:
        """Counted (non-void) rounds recorded; starts at 0."""
        return len(self._numbers)

    @property
    def last_round_number(self) -> int:
        """Highest round number recorded, void or not; 0 before the first round."""
        return self._last_number

    @property
    def voided(self) -> tuple[int, ...]:
        """Numbers of the voided rounds, increasing."""
        return tuple(sorted(self._void))

    @property
    def changes(self) -> int:
        """Counts every successful record/void/correct; starts at 0 (a change counter)."""
        return self._changes

    def counted_rounds(self) -> list[tuple[int, RoundResult]]:
        """The counted rounds in order: ``[(round_number, result), ...]`` (a new list)."""
        return list(zip(self._numbers, self._results))

    def result(self, round_number: int) -> RoundResult:
        """The result recorded for ``round_number`` (voided or not); :class:`RoundNumberError`
        when no such round was recorded."""
        i = self._index(round_number)
        if i is not None:
            return self._results[i]
        if round_number in self._void:
            return self._void[round_number]
        raise RoundNumberError(round_number, f"round {round_number!r} was not recorded in this shoe")

    # ------------------------------------------------------------------ changes
    def record(self, round_number: int, result: RoundResult) -> None:
        """Add the next round of the shoe and update every road.

        Raises :class:`RoundNumberError` when ``round_number`` is not a positive integer
        greater than :attr:`last_round_number`, and ``TypeError`` when ``result`` is not a
        :class:`RoundResult`. Nothing changes when it raises.
        """
        if type(round_number) is not int or round_number <= self._last_number:
            _check_number(round_number)
            raise RoundNumberError(
                round_number,
                f"round {round_number!r} is not after the last recorded round {self._last_number}",
            )
        if type(result) is not RoundResult:
            _check_result(result)
        self._numbers.append(round_number)
        self._results.append(result)
        self._last_number = round_number
        self._apply(round_number, result)
        self._changes += 1

    def insert(self, round_number: int, result: RoundResult) -> None:
        """Count a round recorded late at its number's place (a round held for the supervisor,
        then resolved, docs/shoes.md): later rounds move down in every road, as if it had been
        recorded in order. After the last round it is :meth:`record`.

        Raises :class:`RoundNumberError` for a number already recorded (void or not) or not a
        positive integer, ``TypeError`` for a result that is not a :class:`RoundResult`.
        Nothing changes when it raises.
        """
        _check_number(round_number)
        _check_result(result)
        if round_number > self._last_number:
            self.record(round_number, result)
            return
        if self._index(round_number) is not None or round_number in self._void:
            raise RoundNumberError(round_number, f"round {round_number!r} is already recorded in this shoe")
        i = bisect_left(self._numbers, round_number)
        tail = self._rewind(i)
        self._numbers.insert(i, round_number)
        self._results.insert(i, result)
        self._j_voided = None
        self._replay([(round_number, result)] + tail)
        self._changes += 1

    def void(self, round_number: int) -> None:
        """Void a recorded round: it leaves every road and count; later rounds move up.

        Raises :class:`VoidRoundError` when it is already void and :class:`RoundNumberError`
        when it was never recorded (or is not a positive integer). Nothing changes when it
        raises.
        """
        i = self._counted_index(round_number)
        tail = self._rewind(i)
        number, result = self._numbers.pop(i), self._results.pop(i)
        self._void[number] = result
        self._j_voided = None
        self._replay(tail[1:])
        self._changes += 1

    def correct(self, round_number: int, result: RoundResult) -> None:
        """Replace the result of a recorded, counted round and update every road.

        Raises :class:`VoidRoundError` for a voided round, :class:`RoundNumberError` for an
        unknown one, ``TypeError`` when ``result`` is not a :class:`RoundResult`. Nothing
        changes when it raises.
        """
        _check_result(result)
        i = self._counted_index(round_number)
        tail = self._rewind(i)
        self._results[i] = result
        self._replay([(round_number, result)] + tail[1:])
        self._changes += 1

    # ------------------------------------------------------------------ snapshot pieces
    def pieces(self) -> dict:
        """Every road piece of the snapshot in one new dict: ``round``, ``bead_plate``,
        ``big_road``, ``big_eye_boy``, ``small_road``, ``cockroach_pig``, ``ask``, ``stats``,
        ``good_roads``, ``last``, ``last_round_number``, ``voided``. Shapes: the ``*_json``
        methods; the values are the cached pieces (read-only)."""
        return {k: v for k, v in self.snapshot_template().items() if k not in SNAPSHOT_CALLER_KEYS}

    def snapshot_template(self) -> dict:
        """The snapshot dict with ``None`` in the keys only the caller knows
        (:data:`SNAPSHOT_CALLER_KEYS`), cached until the next change; copy it before filling
        them in (:func:`roads.snapshot.build_snapshot` does). Read-only.

        Pieces that every round changes (bead plate, big road, stats, last) are built here;
        the derived roads, ask road and good roads keep their own caches, which a tie does
        not drop.
        """
        p = self._j_template
        if p is None:
            jd = self._j_derived
            d = self._derived
            if jd[0] is None:
                jd[0] = d[0].json()
            if jd[1] is None:
                jd[1] = d[1].json()
            if jd[2] is None:
                jd[2] = d[2].json()
            big = self.big_road
            lengths = big.lengths
            beads = self.bead_plate.beads
            ja = self._j_ask
            if ja is None:
                ja = self._j_ask = ask(lengths, big.winners)
            jg = self._j_good
            if jg is None:
                jg = self._j_good = self._good.json(lengths, big.winners)
            # A copy of the key-ordered blank, filled in: cheaper than a 17-key dict display.
            p = _BLANK_SNAPSHOT.copy()
            # ``round`` is the round number within the shoe (the feed's numbering,
            # voided rounds included), not the count of counted rounds (``stats.rounds``).
            p["round"] = p["last_round_number"] = self._last_number
            p["bead_plate"] = beads[:]
            p["big_road"] = big.json()
            p["big_eye_boy"] = jd[0]
            p["small_road"] = jd[1]
            p["cockroach_pig"] = jd[2]
            p["ask"] = ja
            p["stats"] = self.stats.json(big.winners[-1] if lengths else None, lengths[-1] if lengths else 0)
            p["good_roads"] = jg
            p["last"] = beads[-1] if beads else None
            p["voided"] = self._j_voided if self._j_voided is not None else self.voided_json()
            self._j_template = p
        return p

    def bead_plate_json(self) -> list[dict]:
        """``[{"x", "y", "round", "winner", "player_total", "banker_total", "player_pair",
        "banker_pair", "natural"}, ...]``, oldest first."""
        return self.snapshot_template()["bead_plate"]

    def big_road_json(self) -> dict:
        """``{"leading_ties", "columns": [[cell, ...], ...], "cells": [{"x", "y", "column",
        "row"}, ...], "width"}`` (see :mod:`roads.big_road`)."""
        return self.snapshot_template()["big_road"]

    def derived_json(self, k: int) -> dict:
        """Derived road ``k`` (1 big eye boy, 2 small road, 3 cockroach pig): ``{"sequence",
        "columns", "cells": [{"x", "y", "column", "row", "color"}], "width"}``. Raises
        ``ValueError`` for another ``k``."""
        if k not in (1, 2, 3):
            raise ValueError(f"derived road k must be 1, 2 or 3, got {k!r}")
        j = self._j_derived[k - 1]
        if j is None:
            j = self._j_derived[k - 1] = self._derived[k - 1].json()
        return j

    def ask_json(self) -> dict:
        """``{"banker": {"big_eye_boy", "small_road", "cockroach_pig"}, "player": {...}}``,
        each a colour or ``None`` (see :mod:`roads.ask`)."""
        j = self._j_ask
        if j is None:
            j = self._j_ask = ask(self.big_road.lengths, self.big_road.winners)
        return j

    def stats_json(self) -> dict:
        """Statistics piece (see :meth:`roads.stats.ShoeStats.json`)."""
        return self.snapshot_template()["stats"]

    def good_roads_json(self) -> list[dict]:
        """``[{"pattern", "label", "length", "threshold"}, ...]`` (see :mod:`roads.good_roads`)."""
        j = self._j_good
        if j is None:
            j = self._j_good = self._good.json(self.big_road.lengths, self.big_road.winners)
        return j

    def last_json(self) -> dict | None:
        """The newest counted round, or ``None`` before the first one: its bead dict
        (``round``, ``winner``, ``player_total``, ``banker_total``, ``player_pair``,
        ``banker_pair``, ``natural``, and the bead's ``x``, ``y``)."""
        beads = self.bead_plate.beads
        return beads[-1] if beads else None

    def voided_json(self) -> list[int]:
        """Voided round numbers, increasing."""
        j = self._j_voided
        if j is None:
            j = self._j_voided = sorted(self._void)
        return j

    # ------------------------------------------------------------------ internals
    def _drop_all_json(self) -> None:
        self._j_template: dict | None = None
        self._j_derived: list[dict | None] = [None, None, None]
        self._j_ask: dict | None = None
        self._j_good: list[dict] | None = None
        self._j_voided: list[int] | None = None

    def _apply(self, number: int, result: RoundResult) -> None:
        self.bead_plate.push(number, result)
        big = self.big_road
        cell = big.push(number, result)
        self._j_template = None
        if cell is None:
            self.stats.push(result, 0)
            return
        c, r = cell
        lengths = big.lengths
        if r == 0:
            self._good.column_started(lengths, big.winners)
        self.stats.push(result, lengths[c])
        jd = self._j_derived
        d = self._derived
        if d[0].push(lengths, c, r) is not None:
            jd[0] = None
        if d[1].push(lengths, c, r) is not None:
            jd[1] = None
        if d[2].push(lengths, c, r) is not None:
            jd[2] = None
        self._j_ask = self._j_good = None

    def _unapply(self, result: RoundResult) -> None:
        self.stats.pop(result)
        cell = self.big_road.pop(result)
        if cell is not None:
            c, r = cell
            for road in self._derived:
                road.pop(c, r)
            if r == 0:
                self._good.column_removed()
        self.bead_plate.pop()

    def _index(self, round_number: object) -> int | None:
        if isinstance(round_number, bool) or not isinstance(round_number, int):
            return None
        i = bisect_left(self._numbers, round_number)
        if i < len(self._numbers) and self._numbers[i] == round_number:
            return i
        return None

    def _counted_index(self, round_number: int) -> int:
        _check_number(round_number)
        i = self._index(round_number)
        if i is None:
            if round_number in self._void:
                raise VoidRoundError(round_number, f"round {round_number!r} is already void")
            raise RoundNumberError(round_number, f"round {round_number!r} was not recorded in this shoe")
        return i

    def _rewind(self, i: int) -> list[tuple[int, RoundResult]]:
        """Undo counted rounds i.. (newest first); returns them, oldest first."""
        tail = list(zip(self._numbers[i:], self._results[i:]))
        for _, result in reversed(tail):
            self._unapply(result)
        self._drop_all_json()
        return tail

    def _replay(self, rounds: list[tuple[int, RoundResult]]) -> None:
        for number, result in rounds:
            self._apply(number, result)
        self._drop_all_json()

