"""The read API: tables (lobby), snapshots of live and past shoes, shoe lists, round export,
ETags; configured tables; snapshots valid against the roads' JSON Schema."""

from __future__ import annotations

import itertools

import jsonschema
import pytest

from support.feed import Feed, close_app, dealt_rounds, make_app
from roads.snapshot import schema as snapshot_schema
from web.service import get_service

P1, B1 = ["4S", "KD", "9H"], ["7C", "JD"]  # B 7-3
P2, B2 = ["9C", "KH"], ["5D", "2S"]  # P 9-7 (player natural)
TABLES = {"baccarat-1": {"name": "百家乐 1", "variant": "seed001"}, "T2": {"name": "Table Two"}}


@pytest.fixture
def configured(tmp_path):
    app = make_app(tmp_path / "data", ROADS_TABLES=TABLES)
    yield app
    close_app(app)


def fixed_clock(app, start=1_718_452_800.0, step=1.5):
    """Make the service's clock tick ``step`` seconds per write from 2024-06-15T12:00:00Z."""
    ticks = itertools.count()
    get_service(app).clock = lambda: start + step * next(ticks)


def test_tables_lists_configured_tables_before_any_round_with_names_and_variants(configured):
    client = configured.test_client()
    body = client.get("/api/tables").json
    assert body["version"] == 0
    tables = body["tables"]
    assert [(t["id"], t["name"], t["variant"]["id"]) for t in tables] == [
        ("baccarat-1", "百家乐 1", "seed001"), ("T2", "Table Two", "seed000_live")]
    t = tables[0]
    assert set(t) == {"id", "name", "variant", "shoe", "round", "last", "good_roads", "side_bets", "version", "big_road"}
    assert (t["shoe"], t["round"], t["last"], t["good_roads"], t["version"]) == (1, 0, None, [], 0)
    assert t["big_road"]["columns"] == []
    # the raw body keeps non-ASCII names as UTF-8
    assert "百家乐 1".encode() in client.get("/api/tables").data
    snap = client.get("/api/tables/baccarat-1").json
    assert (snap["name"], snap["round"], snap["version"], snap["live"]) == ("百家乐 1", 0, 0, True)
    assert client.get("/api/tables/baccarat-1/shoes").json == {"table": "baccarat-1", "name": "百家乐 1", "shoes": [], "next": None}


def test_tables_created_by_the_feed_follow_configured_ones_in_id_order(configured):
    client = configured.test_client()
    feed = Feed(client)
    feed.round(1, 1, P1, B1, table="zz")
    feed.round(1, 1, P1, B1, table="aa")
    assert feed.round(1, 2, P2, B2, table="T2").status_code == 409  # a shoe starts at round 1
    body = client.get("/api/tables").json
    assert [t["id"] for t in body["tables"]] == ["baccarat-1", "T2", "aa", "zz"]
    assert body["version"] == 2  # the lobby version: one per accepted write
    t2 = next(t for t in body["tables"] if t["id"] == "T2")
    assert (t2["round"], t2["version"]) == (0, 0)
    aa = next(t for t in body["tables"] if t["id"] == "aa")
    assert (aa["shoe"], aa["round"], aa["version"], aa["last"]["winner"]) == (1, 1, 1, "B")


def test_a_configured_table_gets_its_variant_on_each_new_shoe(configured):
    client = configured.test_client()
    Feed(client).round(1, 1, P1, B1, table="baccarat-1")
    assert client.get("/api/tables/baccarat-1").json["variant"]["id"] == "seed001"
    assert client.get("/api/tables/baccarat-1/shoes").json["shoes"][0]["variant"]["id"] == "seed001"


def test_snapshot_has_etag_and_answers_304_while_unchanged(feed, client):
    feed.round(1, 1, P1, B1)
    first = client.get("/api/tables/T1")
    assert first.status_code == 200 and first.headers["ETag"] == '"T1-v1"'
    assert first.headers["Cache-Control"] == "no-cache"
    again = client.get("/api/tables/T1", headers={"If-None-Match": '"T1-v1"'})
    assert again.status_code == 304 and again.data == b""
    feed.round(1, 2, P2, B2)
    changed = client.get("/api/tables/T1", headers={"If-None-Match": '"T1-v1"'})
    assert changed.status_code == 200 and changed.headers["ETag"] == '"T1-v2"'


def test_snapshots_are_valid_against_the_roads_json_schema(configured, deal):
    client = configured.test_client()
    feed = Feed(client, table="baccarat-1")
    for n, (p, b) in enumerate(deal(30, seed=7), 1):
        assert feed.round(1, n, p, b).status_code == 201
    feed.void(1, 4, "misdeal")
    feed.round(2, 1, P1, B1)
    validator = jsonschema.Draft202012Validator(snapshot_schema())
    for url in ("/api/tables/baccarat-1", "/api/tables/baccarat-1/shoes/1", "/api/tables/baccarat-1/shoes/2",
                "/api/tables/T2"):
        validator.validate(client.get(url).json)


def test_past_shoe_snapshot_is_the_shoe_as_it_ended(feed, client, deal):
    rounds = deal(12, seed=3)
    for n, (p, b) in enumerate(rounds, 1):
        feed.round(1, n, p, b)
    live_at_end = client.get("/api/tables/T1").json
    feed.round(2, 1, P1, B1)
    past = client.get("/api/tables/T1/shoes/1")
    assert past.status_code == 200 and past.headers["ETag"] == '"T1-v12"'
    past = past.json
    assert past["live"] is False and live_at_end["live"] is True
    assert {k: v for k, v in past.items() if k != "live"} == {k: v for k, v in live_at_end.items() if k != "live"}
    # the live shoe is also reachable by number
    assert client.get("/api/tables/T1/shoes/2").data == client.get("/api/tables/T1").data


def test_past_shoe_snapshots_are_rebuilt_when_evicted_from_the_cache(app, feed, client, monkeypatch, deal):
    monkeypatch.setattr("web.read_model.PAST_SHOE_CACHE", 1)
    for shoe in (1, 2, 3):
        for n, (p, b) in enumerate(deal(5, seed=shoe), 1):
            feed.round(shoe, n, p, b)
    first = {s: client.get(f"/api/tables/T1/shoes/{s}").data for s in (1, 2)}
    second = {s: client.get(f"/api/tables/T1/shoes/{s}").data for s in (2, 1)}
    assert first == second


def test_shoes_list_round_counts_and_start_end_times(app, feed, client):
    fixed_clock(app)  # writes at 12:00:00.000, 12:00:01.500, 12:00:03.000, ...
    feed.shoe(1, burn=["2C", "KD", "4H"], cut_card_position=20)  # t0
    feed.round(1, 1, P1, B1)  # t1
    feed.round(1, 2, P2, B2, cut_card=True)  # t2
    feed.void(1, 1, "misdeal")  # t3
    feed.round(2, 1, P1, B1)  # t4
    shoes = client.get("/api/tables/T1/shoes").json["shoes"][::-1]  # newest first
    assert shoes == [
        {"shoe": 1, "live": False, "variant": {"id": "seed000_live", "name": "Live Baccarat"}, "decks": 8,
         "rounds": 2, "counted": 1, "voided": 1,
         "started_at": "2024-06-15T12:00:00.000Z", "ended_at": "2024-06-15T12:00:03.000Z",
         "last_round_at": "2024-06-15T12:00:03.000Z", "burn": ["2C", "KD", "4H"], "cut_card_position": 20,
         "cut_card_round": 2, "version": 4},
        {"shoe": 2, "live": True, "variant": {"id": "seed000_live", "name": "Live Baccarat"}, "decks": 8,
         "rounds": 1, "counted": 1, "voided": 0,
         "started_at": "2024-06-15T12:00:06.000Z", "ended_at": None,
         "last_round_at": "2024-06-15T12:00:06.000Z", "burn": [], "cut_card_position": None,
         "cut_card_round": None, "version": 5},
    ]


def test_round_export_holds_feed_bodies_results_voids_and_corrections(app, feed, client):
    fixed_clock(app)
    feed.round(1, 1, P1, B1, burn=["QS"])
    feed.round(1, 2, P2, B2)
    feed.void(1, 2, "card exposed")
    feed.correct(1, 1, {"player": ["9C", "KH"], "banker": ["5D", "2S"], "reason": "misread"})
    body = client.get("/api/tables/T1/shoes/1/rounds").json
    assert body["table"] == "T1" and body["shoe"]["shoe"] == 1
    r1, r2 = body["rounds"]
    assert r1["round"] == 1 and r1["at"] == "2024-06-15T12:00:00.000Z"
    assert r1["feed"] == {"shoe": 1, "round": 1, "player": ["9C", "KH"], "banker": ["5D", "2S"]}
    assert r1["result"]["winner"] == "P" and r1["result"]["player_total"] == 9
    assert r1["corrections"] == [{"at": "2024-06-15T12:00:04.500Z", "reason": "misread",
                                  "previous": {"player": P1, "banker": B1, "burn": ["QS"]}}]
    assert r1["void"] is None
    assert r2["void"] == {"reason": "card exposed", "at": "2024-06-15T12:00:03.000Z"}
    assert r2["feed"] == {"shoe": 1, "round": 2, "player": P2, "banker": B2}


def test_exported_rounds_replayed_into_a_new_service_give_the_same_roads(feed, client, tmp_path, deal):
    for n, (p, b) in enumerate(deal(40, seed=11), 1):
        feed.round(1, n, p, b)
    exported = client.get("/api/tables/T1/shoes/1/rounds").json["rounds"]
    other = make_app(tmp_path / "other")
    try:
        other_client = other.test_client()
        replay = Feed(other_client)
        for r in exported:
            body = dict(r["feed"])
            assert other_client.post("/api/tables/T1/rounds", json=body, headers=replay.headers).status_code == 201
        assert other_client.get("/api/tables/T1").data == client.get("/api/tables/T1").data
    finally:
        close_app(other)


@pytest.mark.parametrize("url, code, field", [
    ("/api/tables/nope", "unknown_table", "table_id"),
    ("/api/tables/nope/shoes", "unknown_table", "table_id"),
    ("/api/tables/T1/shoes/2", "unknown_shoe", "shoe"),
    ("/api/tables/T1/shoes/0", "unknown_shoe", "shoe"),
    ("/api/tables/T1/shoes/2/rounds", "unknown_shoe", "shoe"),
])
def test_unknown_tables_and_shoes_are_404(feed, client, url, code, field):
    feed.round(1, 1, P1, B1)
    resp = client.get(url)
    assert resp.status_code == 404
    assert resp.json["error"]["code"] == code and resp.json["error"]["field"] == field


def test_reads_need_no_token(feed, client):
    feed.round(1, 1, P1, B1)
    for url in ("/api/tables", "/api/tables/T1", "/api/tables/T1/shoes", "/api/tables/T1/shoes/1",
                "/api/tables/T1/shoes/1/rounds", "/api/openapi.json"):
        assert client.get(url).status_code == 200, url


def test_a_browser_outside_the_api_gets_an_html_error_page(client):
    resp = client.get("/no-such-page", headers={"Accept": "text/html"})
    assert resp.status_code == 404 and resp.mimetype == "text/html"
    # the API stays JSON whatever the browser asks for
    resp = client.get("/api/tables/nope", headers={"Accept": "text/html"})
    assert resp.status_code == 404 and resp.mimetype == "application/json"


def test_service_reads_match_the_api(app, feed):
    feed.round(1, 1, P1, B1)
    service = get_service(app)
    assert service.read.table("T1") == {"id": "T1", "name": "T1", "variant": {"id": "seed000_live", "name": "Live Baccarat"}}
    assert service.read.snapshot("T1")["version"] == 1
    assert service.read.snapshot("T1", 1) is service.read.snapshot("T1")
    assert [t["id"] for t in service.read.list_tables()] == ["T1"]
    assert service.read.lobby_json()[0] == 1
    from roads.errors import UnknownShoe, UnknownTable

    with pytest.raises(UnknownShoe):
        service.read.snapshot("T1", 7)
    with pytest.raises(UnknownTable):
        service.read.table("T9")


def test_dealt_rounds_helper_deals_legal_rounds():
    from roads.cards import parse_cards
    from roads.tableau import check_round

    for p, b in dealt_rounds(80, seed=5):
        check_round(parse_cards(p), parse_cards(b))
