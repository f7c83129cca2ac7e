"""The gaming day and its figures (roads.gaming_day): day bounds worked by hand, a shoe across the
cut-over split by its rounds' times against a brute-force count of the posted rounds, exact
expectations against the published figures (docs/domain.md section 1), deviations worked by hand,
and the improbable-day flag's false-alarm rate over simulated fair days."""

from __future__ import annotations

import math
from datetime import date, datetime, timezone

import pytest

from roads.archive import shoe_stats
from roads.events import Event
from roads.gaming_day import (
    FALSE_ALARM_RATE, MIN_FLAG_ROUNDS, DayTally, GamingDay, TableDay, event_p, fair_day_tests, parse_cutover,
    results_test, share_json, side_bet_p,
)
from roads.simulator import simulate_shoe
from roads.table import RecordRound, StartShoe, Table
from roads.table_state import SetState


def utc(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


# ----------------------------------------------------------------------------- bounds
def test_a_bangkok_day_runs_from_23_00_utc_the_evening_before():
    g = GamingDay.of("Asia/Bangkok", "06:00")  # UTC+7, no daylight saving
    assert g.bounds(date(2026, 3, 10)) == (utc("2026-03-09T23:00:00Z"), utc("2026-03-10T23:00:00Z"))
    assert g.day_of(utc("2026-03-10T22:59:59Z")) == date(2026, 3, 10)  # 05:59:59 local on the 11th
    assert g.day_of(utc("2026-03-10T23:00:00Z")) == date(2026, 3, 11)
    assert g.day_of(utc("2026-03-09T23:00:00Z")) == date(2026, 3, 10)


def test_a_day_across_daylight_saving_is_23_or_25_hours():
    g = GamingDay.of("Europe/London", "06:00")
    start, end = g.bounds(date(2026, 3, 28))  # clocks go forward at 01:00 UTC on the 29th, before 06:00
    assert (end - start) / 3600 == 23
    start, end = g.bounds(date(2026, 10, 24))  # and back at 01:00 UTC on the 25th of October
    assert (end - start) / 3600 == 25


def test_today_and_bad_days():
    g = GamingDay.of("UTC", "06:00")
    now = utc("2026-05-02T05:00:00Z")
    assert g.parse_day("today", now) == date(2026, 5, 1)
    assert g.parse_day("yesterday", now) == date(2026, 4, 30)
    assert g.parse_day("2026-02-28", now) == date(2026, 2, 28)
    for bad in ("2026-02-30", "2026-2-3", "tomorrow", "", "2026-02-28x"):
        with pytest.raises(ValueError):
            g.parse_day(bad, now)
    for bad in ("6:00", "24:00", "06:60", "noon"):
        with pytest.raises(ValueError):
            parse_cutover(bad)
    with pytest.raises(ValueError):
        GamingDay.of("Mars/Olympus")


# ----------------------------------------------------------------------------- a shoe split at the cut-over
def _winner(player: list[str], banker: list[str]) -> str:
    """Brute force from the cards: totals mod 10, higher wins."""
    def total(cards):
        return sum(min(10, "A23456789TJQK".index(c[0]) + 1) % 10 for c in cards) % 10
    p, b = total(player), total(banker)
    return "tie" if p == b else "banker" if b > p else "player"


def test_a_shoe_across_the_cut_over_splits_by_its_rounds_times():
    g = GamingDay.of("UTC", "06:00")
    cut = utc("2026-04-01T06:00:00Z")
    t = Table("T1")
    clock = [cut - 40 * 60.0]
    posted = []
    for m in simulate_shoe("T1", 1, seed=7):
        if m["type"] == "shoe":
            w = StartShoe(1, tuple(m["burn"]), m["cut_card_position"])
        else:
            dealer = "Anna" if clock[0] < cut + 600 else "Bo"
            ev = t.decide(SetState("dealing", dealer=dealer), lambda: clock[0])
            if isinstance(ev, Event):
                t.apply(ev)
            w = RecordRound(1, m["round"], {k: m[k] for k in ("player", "banker")})
            posted.append((clock[0], dealer, _winner(m["player"], m["banker"])))
        ev = t.decide(w, lambda: clock[0])
        assert isinstance(ev, Event)
        t.apply(ev)
        clock[0] += 37.0
    shoe = t.current
    assert posted[0][0] < cut < posted[-1][0]
    before, after = g.bounds(date(2026, 3, 31)), g.bounds(date(2026, 4, 1))
    for (start, end) in (before, after):
        part = shoe_stats(shoe, start, end)
        mine = [(at, d, w) for at, d, w in posted if start <= at < end]
        assert part["rounds"] == len(mine)
        for k in ("banker", "player", "tie"):
            assert part[k] == sum(w == k for _, _, w in mine)
        assert {d["dealer"]: d["rounds"] for d in part["dealers"]} == {
            name: sum(d == name for _, d, _ in mine) for name in {d for _, d, _ in mine}}
        assert part["first_round_at"] == mine[0][0] and part["last_round_at"] == mine[-1][0]
        # the longest streak of the part, brute force (ties neither extend nor break it)
        best = {"banker": 0, "player": 0}
        side, run = None, 0
        for _, _, w in mine:
            if w != "tie":
                run = run + 1 if w == side else 1
                side = w
                best[w] = max(best[w], run)
        assert (part["longest_banker_streak"], part["longest_player_streak"]) == (best["banker"], best["player"])
    whole = shoe_stats(shoe)
    a, b = shoe_stats(shoe, *before), shoe_stats(shoe, *after)
    assert a["rounds"] + b["rounds"] == whole["rounds"] == len(posted)
    # side-bet windows count from the shoe's first round, whatever the day
    assert all(a["side_bets"][bet]["open_rounds"] + b["side_bets"][bet]["open_rounds"]
               == whole["side_bets"][bet]["open_rounds"] for bet in whole["side_bets"])
    # the day's rounds per hour: 37 s between rounds
    day = TableDay()
    day.add(b, "seed000_live", 8)
    assert day.total.rounds_per_hour() == pytest.approx(3600 / 37)


# ----------------------------------------------------------------------------- exact expectations
def test_expected_shares_are_the_published_probabilities():
    p = event_p(8)
    assert p["banker"] == pytest.approx(0.458597, abs=5e-7)  # docs/domain.md section 1
    assert p["player"] == pytest.approx(0.446247, abs=5e-7)
    assert p["tie"] == pytest.approx(0.095156, abs=5e-7)
    # a player pair from 8 decks: the first two cards share a rank, (4*8-1)/(52*8-1) = 31/415
    assert p["player_pair"] == pytest.approx(31 / 415, rel=1e-12)
    # 6 decks: 23/311
    assert event_p(6)["banker_pair"] == pytest.approx(23 / 311, rel=1e-12)
    # a side bet of a variant: the pair bet pays when its pair comes
    assert side_bet_p("seed000_live", 8)["player_pair"] == pytest.approx(31 / 415, rel=1e-12)


def test_deviation_worked_by_hand():
    # 100 rounds, 60 banker wins: z = (60 - 45.8597) / sqrt(100 * 0.458597 * 0.541403) = 2.8378
    p = 0.458597
    s = share_json(60, 100, 100 * p, 100 * p * (1 - p))
    assert s["share"] == 0.6 and s["expected"] == pytest.approx(p)
    assert s["se"] == pytest.approx(math.sqrt(p * (1 - p) / 100))
    assert s["z"] == pytest.approx(2.8378, abs=1e-4)
    assert s["p_value"] == pytest.approx(0.004545, abs=2e-5)  # two-sided normal tail at 2.8378


def test_chi_square_worked_by_hand():
    # expected 50/40/10, observed 60/30/10: X2 = 100/50 + 100/40 + 0 = 4.5, p = exp(-2.25)
    t = results_test({"banker": 60, "player": 30, "tie": 10}, {"banker": 50.0, "player": 40.0, "tie": 10.0})
    assert t["statistic"] == pytest.approx(4.5) and t["p_value"] == pytest.approx(math.exp(-2.25))
    assert not t["flagged"]  # 100 rounds, p 0.105
    assert results_test({"banker": 200, "player": 250, "tie": 50},
                        {"banker": 200.0, "player": 200.0, "tie": 100.0})["flagged"]  # X2 = 37.5


def test_a_mixture_of_deck_counts_is_compared_with_the_mixture():
    t = DayTally()
    stats = {"rounds": 10, "voided": 0, **dict.fromkeys(
        ("banker", "player", "tie", "banker_pair", "player_pair", "either_pair", "perfect_pair", "natural",
         "banker_natural", "player_natural"), 0)}
    t.add(stats, "seed000_live", 8)
    t.add(stats, "seed000_live", 6)
    assert t.expected["tie"] == pytest.approx(10 * event_p(8)["tie"] + 10 * event_p(6)["tie"])
    assert t.shoes == 2 and t.rounds == 20


# ----------------------------------------------------------------------------- false alarms, simulated
def _binomial_interval(n: int, p: float, tail: float) -> tuple[int, int]:
    """The central interval holding all but ``tail`` of Binomial(n, p) on each side."""
    pmf = [math.exp(math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) + k * math.log(p)
                    + (n - k) * math.log1p(-p)) for k in range(n + 1)]
    low, acc = 0, 0.0
    while acc + pmf[low] < tail:
        acc += pmf[low]
        low += 1
    high, acc = n, 0.0
    while acc + pmf[high] < tail:
        acc += pmf[high]
        high -= 1
    return low, high


DAYS = 2000


@pytest.fixture(scope="module")
def fair_days():
    # 2,000 simulated fair table-days of 2 shoes each (about 155 rounds), fixed seed
    return list(fair_day_tests("false-alarms", DAYS, 2))


def test_fair_days_are_flagged_at_the_documented_rate(fair_days):
    assert all(t["df"] == 2 for t in fair_days)
    assert all(t["min_rounds"] == MIN_FLAG_ROUNDS for t in fair_days)
    flagged = sum(t["flagged"] for t in fair_days)
    low, high = _binomial_interval(DAYS, FALSE_ALARM_RATE, 1e-4)
    assert low <= flagged <= high, (flagged, low, high)
    # the p-value of a fair day is uniform: the share below each level is that level, within the binomial
    for level in (0.01, 0.05, 0.2, 0.5):
        below = sum(t["p_value"] < level for t in fair_days)
        low, high = _binomial_interval(DAYS, level, 1e-4)
        assert low <= below <= high, (level, below, low, high)


def test_a_table_day_survives_its_json_state():
    import json
    day = TableDay()
    t = Table("T1")
    clock = [1_700_000_000.0]
    for m in simulate_shoe("T1", 1, seed=3):
        w = StartShoe(1, tuple(m["burn"]), m["cut_card_position"]) if m["type"] == "shoe" else \
            RecordRound(1, m["round"], {k: m[k] for k in ("player", "banker")})
        ev = t.decide(w, lambda: clock[0])
        t.apply(ev)
        clock[0] += 30
    day.add(shoe_stats(t.current), "seed000_live", 8)
    again = TableDay.from_state(json.loads(json.dumps(day.state())))
    assert again.total.json() == day.total.json() and again.dealers_json() == day.dealers_json()
    with pytest.raises(ValueError):
        TableDay.from_state({"total": [1, 2], "dealers": []})
