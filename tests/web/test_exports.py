"""Round exports (roads.export, web.round_export, web.http.exports_api): a shoe, a table-day and a
floor-day as CSV and JSON Lines, checked row by row against the rounds this test posted (cards,
winner from the cards by hand, time, dealer, a void and a correction), streamed, and bad input."""

from __future__ import annotations

import csv
import io
import json

import pytest

from roads.export import COLUMNS
from support.feed import AUTH, close_app, make_app
from test_day_stats import DAY2, TZ, Floor, settle_history, utc, winner  # noqa: F401 - shared posting helper


@pytest.fixture
def floor(tmp_path):
    app = make_app(tmp_path / "data", ROADS_VENUE_TZ=TZ, ROADS_GAMING_DAY_START="06:00")
    f = Floor(app)
    f.deal("T1", 1, 30, utc("2026-03-10T22:40:00"), 60.0, seed=1, dealers=("Anna", "Bo"))  # across the cut-over
    f.deal("T1", 2, 20, utc("2026-03-11T01:00:00"), 40.0, seed=2, dealers=("Bo",))  # live
    f.deal("T2", 1, 10, utc("2026-03-11T02:00:00"), 30.0, seed=4)
    f.now[0] = utc("2026-03-11T04:00:00")
    assert f.feed.void(1, 5, "misdeal").status_code == 201
    settle_history(app)
    yield f
    close_app(app)


def csv_rows(resp):
    assert resp.status_code == 200 and resp.mimetype == "text/csv"
    rows = list(csv.reader(io.StringIO(resp.get_data(as_text=True))))
    assert tuple(rows[0]) == COLUMNS
    return [dict(zip(COLUMNS, r)) for r in rows[1:]]


def test_a_shoe_as_csv_is_the_posted_rounds_in_order(floor):
    rows = csv_rows(floor.client.get("/api/tables/T1/shoes/1/rounds.csv"))
    posted = [p for p in floor.posted if p[0] == "T1"][:30]
    assert [int(r["round"]) for r in rows] == list(range(1, 31))
    for r, (_, at, dealer, win) in zip(rows, posted):
        assert r["winner"] == win and r["dealer"] == dealer
        assert r["at"] == utc_iso(at)
        assert r["day"] == ("2026-03-10" if at < DAY2[0] else "2026-03-11")
        assert winner(r["player"].split(), r["banker"].split()) == win
    assert rows[4]["voided"] == "true" and rows[4]["void_reason"] == "misdeal"
    assert all(r["voided"] == "false" for i, r in enumerate(rows) if i != 4)
    assert floor.client.get("/api/tables/T1/shoes/1/rounds.csv").headers["Content-Disposition"] == \
        'attachment; filename="T1-shoe-1-rounds.csv"'


def utc_iso(at: float) -> str:
    from datetime import datetime, timezone
    return datetime.fromtimestamp(at, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def test_the_live_shoe_as_json_lines_with_a_correction(floor):
    posted = [p for p in floor.posted if p[0] == "T1"][30:]
    resp = floor.client.get("/api/tables/T1/shoes/2/rounds.jsonl")
    assert resp.status_code == 200 and resp.mimetype == "application/x-ndjson"
    rows = [json.loads(line) for line in resp.get_data(as_text=True).splitlines()]
    assert [r["round"] for r in rows] == list(range(1, 21))
    assert all(list(r) == list(COLUMNS) for r in rows)
    assert [r["winner"] for r in rows] == [p[3] for p in posted]
    assert all(isinstance(r["player"], list) and r["voided"] is False and r["corrections"] == 0 for r in rows)
    # a correction: the row is the round as it stands, with the count and time
    body = {"shoe": 2, "round": 20, "result": {"winner": "T", "player_total": 5, "banker_total": 5, "player_pair": False,
                                                 "banker_pair": False, "natural": False}, "reason": "typo"}
    floor.now[0] += 10
    r = floor.client.put("/api/tables/T1/shoes/2/rounds/20", json=body, headers=AUTH)
    assert r.status_code == 201, r.json
    last = json.loads(floor.client.get("/api/tables/T1/shoes/2/rounds.jsonl").get_data(as_text=True).splitlines()[-1])
    assert (last["winner"], last["player"], last["corrections"], last["corrected_at"]) == (
        "tie", None, 1, utc_iso(floor.now[0]))


def test_a_table_day_and_a_floor_day_hold_exactly_the_days_rounds(floor):
    rows = csv_rows(floor.client.get("/api/tables/T1/days/2026-03-11/rounds.csv"))
    mine = [p for p in floor.posted if p[0] == "T1" and DAY2[0] <= p[1] < DAY2[1]]
    assert [r["at"] for r in rows] == [utc_iso(p[1]) for p in mine]
    assert {r["day"] for r in rows} == {"2026-03-11"}
    assert rows[0]["shoe"] == "1" and rows[-1]["shoe"] == "2"
    lines = floor.client.get("/api/days/2026-03-11/rounds.jsonl").get_data(as_text=True).splitlines()
    got = [(r["table"], r["at"]) for r in map(json.loads, lines)]
    assert got == [(p[0], utc_iso(p[1])) for p in sorted(floor.posted, key=lambda p: p[0])
                   if DAY2[0] <= p[1] < DAY2[1]]
    assert csv_rows(floor.client.get("/api/days/2026-03-09/rounds.csv")) == []


@pytest.mark.parametrize("url, status, field", [
    ("/api/tables/T1/shoes/9/rounds.csv", 404, "shoe"),
    ("/api/tables/nope/shoes/1/rounds.jsonl", 404, "table_id"),
    ("/api/tables/T1/days/2026-02-30/rounds.csv", 400, "day"),
    ("/api/days/soon/rounds.jsonl", 400, "day"),
    ("/api/tables/nope/days/today/rounds.csv", 404, "table_id"),
])
def test_bad_exports_are_4xx_naming_the_field(floor, url, status, field):
    r = floor.client.get(url)
    assert r.status_code == status and r.json["error"]["field"] == field, r.data


def test_an_export_is_streamed_row_by_row_never_built_whole():
    import itertools

    from web.http.exports_api import streamed
    taken = []

    def endless():
        for i in itertools.count():
            taken.append(i)
            yield dict.fromkeys(COLUMNS, i)

    for fmt in ("csv", "jsonl"):
        taken.clear()
        resp = streamed(endless(), fmt, "x")
        assert resp.is_streamed
        chunks = iter(resp.response)
        first = [next(chunks) for _ in range(3 if fmt == "csv" else 2)]
        assert taken == [0, 1] and b"1" in first[-1]


def test_roads_export_writes_what_the_api_serves(floor, tmp_path, runner, monkeypatch):
    from web.cli import main
    api_shoe = floor.client.get("/api/tables/T1/shoes/1/rounds.csv").get_data(as_text=True)
    api_day = floor.client.get("/api/days/2026-03-11/rounds.jsonl").get_data(as_text=True)
    live = floor.client.get("/api/tables/T1/shoes/2/rounds.jsonl").get_data(as_text=True)
    close_app(floor.app)
    monkeypatch.setenv("ROADS_VENUE_TZ", TZ)
    data = str(tmp_path / "data")
    r = runner.invoke(main, ["export", "--data", data, "--table", "T1", "--shoe", "1", "--out", str(tmp_path / "s.csv")])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "s.csv").read_bytes().decode("utf-8") == api_shoe
    r = runner.invoke(main, ["export", "--data", data, "--day", "2026-03-11", "--format", "jsonl"])
    assert r.exit_code == 0 and r.output == api_day
    r = runner.invoke(main, ["export", "--data", data, "--table", "T1", "--shoe", "2", "--format", "jsonl"])
    assert r.exit_code == 0 and r.output == live
    assert runner.invoke(main, ["export", "--data", data, "--table", "T9", "--shoe", "1"]).exit_code == 4
    assert runner.invoke(main, ["export", "--data", data, "--table", "T1", "--shoe", "7"]).exit_code == 4
    assert runner.invoke(main, ["export", "--data", data, "--day", "2026-02-30"]).exit_code == 2
    assert runner.invoke(main, ["export", "--data", data, "--table", "T1"]).exit_code == 2


def test_roads_stats_warm_fills_the_disk_cache(floor, tmp_path, runner, monkeypatch):
    from web.cli import main
    from web.day_cache import DayCache
    close_app(floor.app)
    monkeypatch.setenv("ROADS_VENUE_TZ", TZ)
    data = tmp_path / "data"
    for suffix in ("", "-wal", "-shm"):  # the service's maintenance thread warmed today's: start empty
        (data / (DayCache.FILENAME + suffix)).unlink(missing_ok=True)
    r = runner.invoke(main, ["stats-warm", "--data", str(data), "--from", "2026-03-09", "--to", "2026-03-11"])
    assert r.exit_code == 0, r.output
    assert [line.split(":")[0] for line in r.output.splitlines()] == ["2026-03-09", "2026-03-10", "2026-03-11"]
    disk = DayCache(data / DayCache.FILENAME)
    assert set(disk.day(f"{TZ}|06:00", "2026-03-10")) == {"", "T1", "T2"}  # the floor's sum and each table
    assert runner.invoke(main, ["stats-warm", "--data", str(data), "--from", "2026-03-11", "--to",
                                "2026-03-10"]).exit_code == 2
