"""The maintenance thread warms the gaming-day caches (web.day_stats.DayStats.warm): after a
shoe closes (or a past round is voided) the table-day and the floor day are in memory and on disk
before any read, with the figures of a hand count of the posted rounds, and the next read
computes nothing; a failing warm never fails a feed write."""

from __future__ import annotations

import logging
from datetime import date, datetime

from support.feed import Feed, close_app, dealt_rounds, make_app
from web.day_cache import DayCache
from web.http.day_stats_api import day_stats
from web.service import get_service

TZ = "Asia/Bangkok"  # UTC+7: gaming day 2026-03-11 (06:00) runs 2026-03-10 23:00 to 03-11 23:00 UTC
DAY = date(2026, 3, 11)


def utc(text: str) -> float:
    return datetime.fromisoformat(text + "+00:00").timestamp()


def winner(player, banker):
    def total(cards):
        return sum(min(10, "A23456789TJQK".index(c[0]) + 1) % 10 for c in cards) % 10
    p, b = total(player), total(banker)
    return "tie" if p == b else "banker" if b > p else "player"


def post_shoe(app, now, shoe, rounds, start, seed):
    feed = Feed(app.test_client(), "T1")
    cards = dealt_rounds(rounds, seed=seed)
    for i, (p, b) in enumerate(cards):
        if start:
            now[0] = start + 60.0 * i
        assert feed.round(shoe, i + 1, p, b).status_code == 201
    return [winner(p, b) for p, b in cards], feed


def test_a_closed_shoe_is_warmed_before_any_read_and_the_read_computes_nothing(tmp_path):
    app = make_app(tmp_path / "data", ROADS_VENUE_TZ=TZ, ROADS_GAMING_DAY_START="06:00")
    try:
        service, stats = get_service(app), day_stats(app)
        now = [utc("2026-03-11T01:00:00")]
        service.clock = lambda: now[0]
        m = service.maintenance
        assert m.idle()
        won, feed = post_shoe(app, now, 1, 30, utc("2026-03-11T01:00:00"), seed=7)
        assert stats.cached("T1", DAY) is None  # shoe 1 is live: no past part yet
        now[0] = utc("2026-03-11T02:00:00")
        assert feed.round(2, 1, *dealt_rounds(1, seed=8)[0]).status_code == 201  # closes shoe 1
        assert m.idle()
        warm = stats.cached("T1", DAY)
        assert warm is not None
        assert warm.total.rounds == 30 and warm.total.shoes == 1
        assert warm.total.counts["banker"] == won.count("banker")
        assert warm.total.counts["player"] == won.count("player")
        assert warm.total.counts["tie"] == won.count("tie")
        zone = f"{TZ}|06:00"
        assert stats.disk.get(zone, "2026-03-11", "T1") is not None and "" in stats.disk.day(zone, "2026-03-11")

        computed = []
        inner = stats._compute
        stats._compute = lambda *a: computed.append(a) or inner(*a)
        client = app.test_client()
        body = client.get("/api/tables/T1/stats/days/today").json
        floor = client.get("/api/stats/days/today").json
        assert computed == []  # both answers came from the warmed caches
        assert body["rounds"] == floor["floor"]["rounds"] == 31  # shoe 1 and the live shoe 2's round
        assert body["results"]["banker"]["count"] == won.count("banker") + (winner(*dealt_rounds(1, seed=8)[0]) == "banker")

        # a void of a past round: the thread recomputes the day, the figures lose the round
        assert feed.void(1, 3, "misdeal").status_code == 201
        assert m.idle()
        after = stats.cached("T1", DAY)
        assert (after.total.rounds, after.total.voided) == (29, 1)
        assert after.total.counts[won[2]] == won.count(won[2]) - 1
        assert len(computed) == 1  # by the thread, before the read below
        computed.clear()
        assert client.get("/api/tables/T1/stats/days/today").json["rounds"] == 30 and computed == []
    finally:
        close_app(app)


def test_a_start_warms_the_floor_of_today_and_yesterday(tmp_path):
    app = make_app(tmp_path / "data")  # the real clock: the start warms the gaming days of now
    try:
        _, feed = post_shoe(app, [0.0], 1, 20, 0.0, seed=3)
        assert feed.round(2, 1, *dealt_rounds(1, seed=4)[0]).status_code == 201
        posted = get_service(app).store.shoe_summary("T1", 1)
    finally:
        close_app(app)
    app = make_app(tmp_path / "data")
    try:
        service, stats = get_service(app), day_stats(app)
        assert service.maintenance.idle()
        warm = stats.cached("T1", stats.gaming_day.day_of(posted.started_at))
        assert warm is not None and warm.total.rounds == 20 and warm.total.shoes == 1
    finally:
        close_app(app)


def test_a_failing_warm_never_fails_a_write(tmp_path, caplog):
    app = make_app(tmp_path / "data")
    try:
        service, stats = get_service(app), day_stats(app)
        assert service.maintenance.idle()

        def broken(*_):
            raise RuntimeError("boom")
        stats.warm = broken
        feed = Feed(app.test_client(), "T1")
        with caplog.at_level(logging.ERROR):
            for n, (p, b) in enumerate(dealt_rounds(3, seed=1), 1):
                assert feed.round(1, n, p, b).status_code == 201
            assert feed.round(2, 1, *dealt_rounds(1, seed=2)[0]).status_code == 201
            assert service.maintenance.idle()
        assert any("maintenance task" in r.getMessage() for r in caplog.records)
    finally:
        close_app(app)
