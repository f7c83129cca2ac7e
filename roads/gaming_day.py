"""The venue's gaming day and what it adds up: per-table, per-dealer and floor figures from
per-shoe statistics (:func:`roads.archive.shoe_stats`), each share beside its exact expected
value, and the improbable-day flag (docs/domain.md section 6).

* :class:`GamingDay`: the venue's time zone and cut-over (``06:00``): a round belongs to the
  gaming day in which it was recorded (its own time), so a shoe dealt across the cut-over splits
  exactly by its rounds' times.
* :class:`DayTally`: counts added up from shoe statistics (whole shoes or a shoe's part in a day),
  with their exact expected counts and variances (:mod:`roads.probability`: a fresh shoe of the
  shoe's deck count; side bets by the shoe's variant) accumulated shoe by shoe, so a day of mixed
  deck counts or variants is compared with the mixture it was dealt from.
* :func:`results_test`: Pearson's chi-square of the Banker/Player/Tie counts against their
  expected counts (2 degrees of freedom: p = exp(-X²/2)); a table-day is flagged when p is below
  :data:`FALSE_ALARM_RATE` and it has at least :data:`MIN_FLAG_ROUNDS` counted rounds, so a fair
  table is flagged on that share of its days (shown by simulation: :func:`simulated_day_counts`,
  ``tests/roads/test_gaming_day.py``, ``bench/bench_false_alarms.py``).

Standard library only.
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, tzinfo
from functools import lru_cache
from typing import Any, Iterable, Mapping
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from roads.probability import event_probabilities, settlement_counts
from roads.record import iso_time
from roads.simulator import shoe_rng
from roads.shoe import Shoe
from roads.variants import Verdict
from roads.archive import variant_or_default

FALSE_ALARM_RATE = 0.001
"""A fair table-day is flagged improbable with this probability (one fair table in a thousand a
day: a 200-table floor sees a false alarm about every five days)."""

MIN_FLAG_ROUNDS = 100
"""A table-day with fewer counted rounds is never flagged (the chi-square tail is not accurate
with so few ties expected)."""

SHOE_LOOKBACK_S = 6 * 3600.0
"""A shoe is looked for among shoes that started up to this long before a day's start (a shoe of
an 8-deck shoe lasts about an hour; one open longer than this across a cut-over is missed)."""

EVENTS = ("banker", "player", "tie", "banker_pair", "player_pair", "either_pair", "perfect_pair", "natural",
          "banker_natural", "player_natural")
"""Counted facts of a round, named as :func:`roads.archive.shoe_stats` and
:data:`roads.probability.EVENTS` name them."""

RESULTS = EVENTS[:3]
"""Banker, Player, Tie: the facts of the improbable-day test."""

_DAY = re.compile(r"\d{4}-\d{2}-\d{2}\Z")
_CUTOVER = re.compile(r"([01]\d|2[0-3]):([0-5]\d)\Z")


# ----------------------------------------------------------------------------- the gaming day
@dataclass(frozen=True)
class GamingDay:
    """The venue's gaming day: ``tz`` (its time zone) and ``cutover`` (local time a day starts).

    Day ``d`` runs from ``d`` at the cut-over to ``d + 1`` at the cut-over, local time (23 or 25
    hours across a daylight-saving change); a time belongs to the day in whose range it falls."""

    tz: tzinfo
    cutover: time = time(6, 0)

    @classmethod
    def of(cls, tz_name: str, cutover: str = "06:00") -> "GamingDay":
        """From an IANA zone name and ``"HH:MM"``; raises ``ValueError`` naming what is wrong."""
        try:
            tz = ZoneInfo(tz_name)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"{tz_name!r} is not an IANA time zone name") from None
        return cls(tz, parse_cutover(cutover))

    def start(self, day: date) -> float:
        """Unix seconds at which gaming day ``day`` starts."""
        return datetime.combine(day, self.cutover, self.tz).timestamp()

    def bounds(self, day: date) -> tuple[float, float]:
        """``[start, end)`` of ``day`` in Unix seconds."""
        return self.start(day), self.start(day + timedelta(days=1))

    def day_of(self, at: float) -> date:
        """The gaming day that Unix time ``at`` belongs to."""
        local = datetime.fromtimestamp(at, self.tz)
        day = local.date()
        if self.start(day) > at:
            day -= timedelta(days=1)
        elif self.start(day + timedelta(days=1)) <= at:  # pragma: no cover - only around odd zone changes
            day += timedelta(days=1)
        return day

    def parse_day(self, text: str, now: float) -> date:
        """``"today"`` (the gaming day of ``now``), ``"yesterday"`` or ``YYYY-MM-DD``; raises
        ``ValueError`` for anything else."""
        if text == "today":
            return self.day_of(now)
        if text == "yesterday":
            return self.day_of(now) - timedelta(days=1)
        if not _DAY.match(text):
            raise ValueError(f"{text!r} is not a date (YYYY-MM-DD, today or yesterday)")
        try:
            return date.fromisoformat(text)
        except ValueError:
            raise ValueError(f"{text!r} is not a date of the calendar") from None


def parse_cutover(text: str) -> time:
    """``"HH:MM"`` (24-hour) -> :class:`datetime.time`; raises ``ValueError``."""
    m = _CUTOVER.match(text.strip()) if isinstance(text, str) else None
    if m is None:
        raise ValueError(f"{text!r} is not a time of day HH:MM (00:00-23:59)")
    return time(int(m.group(1)), int(m.group(2)))


# ----------------------------------------------------------------------------- exact expectations
@lru_cache(maxsize=None)
def event_p(decks: int) -> dict[str, float]:
    """Exact probability of each of :data:`EVENTS` for a round of a fresh ``decks``-deck shoe."""
    exact = event_probabilities(decks)
    return {name: float(exact[name]) for name in EVENTS}


@lru_cache(maxsize=256)
def side_bet_p(variant_id: str, decks: int) -> dict[str, float]:
    """Exact probability that each side bet of the variant wins (is paid) on a round of a fresh
    ``decks``-deck shoe: its winning card sequences over all (:func:`roads.probability.settlement_counts`)."""
    out = {}
    for spec in variant_or_default(variant_id).side_bets:
        counts, total = settlement_counts(spec, decks)
        out[spec.bet] = sum(n for (verdict, _), n in counts.items() if verdict is Verdict.WIN) / total
    return out


def normal_p(z: float) -> float:
    """Two-sided p-value of a standard normal deviate ``z``."""
    return math.erfc(abs(z) / math.sqrt(2.0))


def share_json(count: int, n: int, expected: float, variance: float) -> dict[str, Any]:
    """``{"count", "of", "share", "expected" (share), "se" (standard error of the share), "z"
    (deviation in standard errors), "p_value" (two-sided, normal)}``; share figures ``None``
    when ``n`` is 0."""
    if n <= 0:
        return {"count": count, "of": n, "share": None, "expected": None, "se": None, "z": None, "p_value": None}
    sd = math.sqrt(variance)
    z = (count - expected) / sd if sd > 0 else 0.0
    return {"count": count, "of": n, "share": count / n, "expected": expected / n, "se": sd / n, "z": z,
            "p_value": normal_p(z)}


def results_test(counts: Mapping[str, int], expected: Mapping[str, float]) -> dict[str, Any]:
    """Pearson's chi-square of the Banker/Player/Tie ``counts`` against ``expected`` counts:
    ``{"statistic", "df": 2, "p_value", "false_alarm_rate", "min_rounds", "flagged"}``."""
    n = sum(counts[k] for k in RESULTS)
    stat = sum((counts[k] - expected[k]) ** 2 / expected[k] for k in RESULTS if expected[k] > 0) if n else 0.0
    p = math.exp(-stat / 2.0)
    return {"statistic": stat, "df": 2, "p_value": p, "false_alarm_rate": FALSE_ALARM_RATE,
            "min_rounds": MIN_FLAG_ROUNDS, "flagged": n >= MIN_FLAG_ROUNDS and p < FALSE_ALARM_RATE}


# ----------------------------------------------------------------------------- adding up
_BET_KEYS = ("hits", "unknown", "open_rounds", "open_hits", "settled", "expected", "variance")
_NE = len(EVENTS)


class DayTally:
    """Figures added up over shoes (or shoes' parts in a day) of one table, dealer or floor.

    :meth:`add` takes one :func:`roads.archive.shoe_stats` (or one of its ``"dealers"`` entries)
    with the shoe's variant id and deck count; :meth:`merge` adds another tally; :meth:`json` is
    the API shape. Rounds per hour: a shoe's counted rounds after its first, per hour between its
    first and last counted round (shuffles and pauses between shoes do not count). Kept as flat
    lists (a floor adds up some 1,400 tallies per read)."""

    __slots__ = ("n", "ev", "shoes", "voided", "bets", "streaks", "first_at", "last_at", "intervals", "span")

    def __init__(self) -> None:
        self.n = [0] * (1 + _NE)  # rounds, then EVENTS
        self.ev = [0.0] * (2 * _NE)  # expected counts of EVENTS, then their variances
        self.shoes = 0
        self.voided = 0
        self.bets: dict[str, list[float]] = {}  # bet -> _BET_KEYS
        self.streaks = [0, 0]  # banker, player
        self.first_at: float | None = None
        self.last_at: float | None = None
        self.intervals = 0
        self.span = 0.0

    @property
    def counts(self) -> dict[str, int]:
        """``{"rounds", event: count}``."""
        return dict(zip(("rounds",) + EVENTS, self.n))

    @property
    def expected(self) -> dict[str, float]:
        """Expected count of each event."""
        return dict(zip(EVENTS, self.ev[:_NE]))

    @property
    def variance(self) -> dict[str, float]:
        """Variance of each event's count."""
        return dict(zip(EVENTS, self.ev[_NE:]))

    def add(self, stats: Mapping[str, Any], variant_id: str, decks: int) -> None:
        """Add one shoe's (or one dealer's part of a shoe's) statistics."""
        n = int(stats["rounds"])
        if n == 0 and not stats.get("voided"):
            return
        self.shoes += 1
        self.voided += int(stats.get("voided", 0))
        self.n[0] += n
        p = event_p(decks)
        for i, k in enumerate(EVENTS):
            self.n[1 + i] += int(stats[k])
            self.ev[i] += n * p[k]
            self.ev[_NE + i] += n * p[k] * (1.0 - p[k])
        bet_p = side_bet_p(variant_id, decks)
        for bet, t in stats.get("side_bets", {}).items():
            mine = self.bets.get(bet)
            if mine is None:
                mine = self.bets[bet] = [0] * len(_BET_KEYS)
            settled = n - int(t["unknown"])
            q = bet_p.get(bet, 0.0)
            mine[0] += int(t["hits"])
            mine[1] += int(t["unknown"])
            mine[2] += int(t["open_rounds"])
            mine[3] += int(t["open_hits"])
            mine[4] += settled
            mine[5] += settled * q
            mine[6] += settled * q * (1.0 - q)
        self.streaks[0] = max(self.streaks[0], int(stats.get("longest_banker_streak", 0)))
        self.streaks[1] = max(self.streaks[1], int(stats.get("longest_player_streak", 0)))
        first, last = stats.get("first_round_at"), stats.get("last_round_at")
        if first is not None and last is not None:
            self.first_at = first if self.first_at is None else min(self.first_at, first)
            self.last_at = last if self.last_at is None else max(self.last_at, last)
            if n >= 2:
                self.intervals += n - 1
                self.span += last - first

    def merge(self, other: "DayTally") -> None:
        """Add every figure of ``other``."""
        self.shoes += other.shoes
        self.voided += other.voided
        self.n = [a + b for a, b in zip(self.n, other.n)]
        self.ev = [a + b for a, b in zip(self.ev, other.ev)]
        for bet, t in other.bets.items():
            mine = self.bets.get(bet)
            self.bets[bet] = list(t) if mine is None else [a + b for a, b in zip(mine, t)]
        self.streaks = [max(self.streaks[0], other.streaks[0]), max(self.streaks[1], other.streaks[1])]
        if other.first_at is not None:
            self.first_at = other.first_at if self.first_at is None else min(self.first_at, other.first_at)
            self.last_at = other.last_at if self.last_at is None else max(self.last_at, other.last_at)  # type: ignore[type-var]
        self.intervals += other.intervals
        self.span += other.span

    @property
    def rounds(self) -> int:
        """Counted rounds."""
        return self.n[0]

    def state(self) -> list[Any]:
        """Everything it holds, JSON-ready (inverse: :meth:`from_state`)."""
        return [self.n, self.ev, self.shoes, self.voided, self.bets, self.streaks, self.first_at, self.last_at,
                self.intervals, self.span]

    @classmethod
    def from_state(cls, state: list[Any]) -> "DayTally":
        """The tally of :meth:`state`; raises ``ValueError`` for one that does not fit."""
        t = cls()
        try:
            (n, ev, t.shoes, t.voided, bets, streaks, t.first_at, t.last_at, t.intervals, t.span) = state
        except (TypeError, ValueError):
            raise ValueError("not a day tally's state") from None
        if len(n) != len(t.n) or len(ev) != len(t.ev) or len(streaks) != 2:
            raise ValueError("not a day tally's state")
        t.n, t.ev, t.streaks = list(n), list(ev), list(streaks)
        t.bets = {str(k): list(v) for k, v in bets.items()}
        return t

    def rounds_per_hour(self) -> float | None:
        """Dealing pace (class docstring), ``None`` without two rounds in a shoe."""
        return None if self.span <= 0 else self.intervals * 3600.0 / self.span

    def test(self) -> dict[str, Any]:
        """:func:`results_test` of this tally."""
        return results_test(self.counts, self.expected)

    def line_json(self) -> dict[str, Any]:
        """The floor's line of a table: ``{"rounds", "shoes", "rounds_per_hour",
        "longest_banker_streak", "longest_player_streak", "results", "test"}`` (as :meth:`json`)."""
        n = self.rounds
        return {"rounds": n, "shoes": self.shoes, "rounds_per_hour": self.rounds_per_hour(),
                "longest_banker_streak": self.streaks[0], "longest_player_streak": self.streaks[1],
                "results": {k: share_json(self.n[1 + i], n, self.ev[i], self.ev[_NE + i])
                            for i, k in enumerate(RESULTS)},
                "test": self.test()}

    def json(self, *, streaks: bool = True) -> dict[str, Any]:
        """``{"rounds", "shoes" (with a round in the range), "voided", "first_round_at",
        "last_round_at" (ISO 8601), "rounds_per_hour", "longest_banker_streak",
        "longest_player_streak" (big-road columns, ties neither extend nor break them; omitted
        for dealers), "results" and "events" ({name: :func:`share_json`}), "side_bets" ({bet:
        {"hits", "unknown", "open_rounds", "open_hits"} + :func:`share_json` over the rounds
        it was settled on}), "test" (:func:`results_test`)}``."""
        n = self.rounds
        out: dict[str, Any] = {
            "rounds": n, "shoes": self.shoes, "voided": self.voided, "first_round_at": iso_time(self.first_at),
            "last_round_at": iso_time(self.last_at), "rounds_per_hour": self.rounds_per_hour(),
        }
        if streaks:
            out["longest_banker_streak"] = self.streaks[0]
            out["longest_player_streak"] = self.streaks[1]
        shares = {k: share_json(self.n[1 + i], n, self.ev[i], self.ev[_NE + i]) for i, k in enumerate(EVENTS)}
        out["results"] = {k: shares[k] for k in RESULTS}
        out["events"] = {k: shares[k] for k in EVENTS[3:]}
        out["side_bets"] = {
            bet: {"hits": int(t[0]), "unknown": int(t[1]), "open_rounds": int(t[2]), "open_hits": int(t[3]),
                  **share_json(int(t[0]), int(t[4]), t[5], t[6])}
            for bet, t in self.bets.items()}
        out["test"] = self.test()
        return out


class TableDay:
    """One table's figures in one range (a gaming day): the table's :class:`DayTally` and one
    per dealer (rounds without a dealer under ``None``)."""

    __slots__ = ("total", "dealers")

    def __init__(self) -> None:
        self.total = DayTally()
        self.dealers: dict[str | None, DayTally] = {}

    def add(self, stats: Mapping[str, Any], variant_id: str, decks: int) -> None:
        """Add one shoe's :func:`roads.archive.shoe_stats` (whole or its part in the range)."""
        self.total.add(stats, variant_id, decks)
        for d in stats.get("dealers", ()):
            tally = self.dealers.get(d["dealer"])
            if tally is None:
                tally = self.dealers[d["dealer"]] = DayTally()
            tally.add(d, variant_id, decks)

    def merge(self, other: "TableDay") -> None:
        """Add ``other`` (another range, or another table for the floor)."""
        self.total.merge(other.total)
        for name, t in other.dealers.items():
            mine = self.dealers.get(name)
            if mine is None:
                mine = self.dealers[name] = DayTally()
            mine.merge(t)

    def state(self) -> dict[str, Any]:
        """Everything it holds, JSON-ready (inverse: :meth:`from_state`)."""
        return {"total": self.total.state(), "dealers": [[name, t.state()] for name, t in self.dealers.items()]}

    @classmethod
    def from_state(cls, state: Mapping[str, Any]) -> "TableDay":
        """The table-day of :meth:`state`; raises ``ValueError`` for one that does not fit."""
        out = cls()
        try:
            out.total = DayTally.from_state(state["total"])
            out.dealers = {name: DayTally.from_state(t) for name, t in state["dealers"]}
        except (KeyError, TypeError):
            raise ValueError("not a table-day's state") from None
        return out

    def dealers_json(self) -> list[dict[str, Any]]:
        """``[{"dealer", ...}]`` by dealer name (``None`` last)."""
        return [{"dealer": name, **t.json(streaks=False)}
                for name, t in sorted(self.dealers.items(), key=lambda kv: (kv[0] is None, kv[0] or ""))]


# ----------------------------------------------------------------------------- simulated fair days
def simulated_day_counts(seed: int | str, day: int, shoes: int, decks: int = 8) -> dict[str, int]:
    """Banker/Player/Tie counts (and ``"rounds"``) of ``shoes`` fair shoes dealt by the rules
    engine (:class:`roads.shoe.Shoe`, the simulator's dealer and random source: burn, cut card
    between a quarter of a deck and a deck from the back, tableau), as one simulated table-day."""
    counts = {"rounds": 0, "banker": 0, "player": 0, "tie": 0}
    for n in range(1, shoes + 1):
        rng = shoe_rng(seed, f"day-{day}", n)
        dealer = Shoe(decks, rng=rng, cut_card_position=rng.randint(14, 52))
        while not dealer.finished:
            w = dealer.deal_round().result.winner.value
            counts[_WINNER_KEY[w]] += 1
            counts["rounds"] += 1
    return counts


_WINNER_KEY = {"B": "banker", "P": "player", "T": "tie"}


def fair_day_tests(seed: int | str, days: int, shoes: int, decks: int = 8) -> Iterable[dict[str, Any]]:
    """:func:`results_test` of each of ``days`` simulated fair table-days of ``shoes`` shoes."""
    p = event_p(decks)
    for d in range(days):
        c = simulated_day_counts(seed, d, shoes, decks)
        yield results_test(c, {k: c["rounds"] * p[k] for k in RESULTS})
