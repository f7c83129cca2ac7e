"""Bounds on tables: ROADS_MAX_TABLES caps how many tables writes may create, and with
ROADS_ONLY_CONFIGURED_TABLES only the ids of ROADS_TABLES may be written. A refusal is a 403
in the one error shape and stores nothing; tables already kept stay writable."""

from __future__ import annotations

import threading

from support.feed import Feed

P1, B1 = ["4S", "KD", "9H"], ["7C", "JD"]   # player 3, banker 7: a legal round (tableau)
P2, B2 = ["9C", "KH"], ["5D", "2S"]


def events(app):
    return [ev.to_json() for ev in app.extensions["roads.service"].store.load()]


def error_of(resp, status, code):
    assert resp.status_code == status, resp.data
    err = resp.json["error"]
    assert (err["status"], err["code"], err["field"]) == (status, code, "table_id")
    assert err["message"]
    return err


def test_the_table_after_the_last_allowed_one_is_refused_and_nothing_is_stored(app_factory):
    app = app_factory(ROADS_MAX_TABLES=2)
    client = app.test_client()
    feed = Feed(client)
    assert feed.round(1, 1, P1, B1, table="A").status_code == 201
    assert feed.shoe(1, table="B").status_code == 201
    before, lobby = events(app), client.get("/api/tables").data
    err = error_of(feed.round(1, 1, P1, B1, table="C"), 403, "too_many_tables")
    assert "2 tables" in err["message"]
    error_of(feed.shoe(1, table="D"), 403, "too_many_tables")
    assert events(app) == before and client.get("/api/tables").data == lobby
    assert client.get("/api/tables/C").status_code == 404
    # the tables kept stay writable
    assert feed.round(1, 2, P2, B2, table="A").status_code == 201
    assert feed.round(1, 1, P2, B2, table="B").status_code == 201


def test_configured_tables_count_and_are_always_writable(app_factory):
    app = app_factory(ROADS_MAX_TABLES=2, ROADS_TABLES={"T1": {"name": "One"}, "T2": {}})
    feed = Feed(app.test_client())
    error_of(feed.round(1, 1, P1, B1, table="X"), 403, "too_many_tables")
    assert feed.round(1, 1, P1, B1, table="T2").status_code == 201
    assert feed.round(1, 1, P1, B1, table="T1").status_code == 201


def test_a_refused_first_round_does_not_take_a_place(app_factory):
    app = app_factory(ROADS_MAX_TABLES=1)
    feed = Feed(app.test_client())
    assert feed.round(1, 1, ["4S", "KD"], B1, table="A").status_code == 422  # player 4 must draw (tableau)
    assert feed.round(1, 1, P1, B1, table="B").status_code == 201
    error_of(feed.round(1, 1, P1, B1, table="A"), 403, "too_many_tables")


def test_the_limit_holds_under_concurrent_creation(app_factory):
    app = app_factory(ROADS_MAX_TABLES=3)
    statuses: list[int] = []
    lock = threading.Lock()

    def create(i):
        resp = Feed(app.test_client()).round(1, 1, P1, B1, table=f"N{i}")
        with lock:
            statuses.append(resp.status_code)

    threads = [threading.Thread(target=create, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert sorted(statuses) == [201] * 3 + [403] * 9
    assert len(app.test_client().get("/api/tables").json["tables"]) == 3


def test_only_configured_tables_may_be_written(app_factory):
    app = app_factory(ROADS_TABLES={"T1": {}}, ROADS_ONLY_CONFIGURED_TABLES="true")
    client = app.test_client()
    feed = Feed(client)
    before = events(app)
    for resp in (feed.round(1, 1, P1, B1, table="T9"), feed.shoe(1, table="T9"), feed.void(1, 1, "x", table="T9"),
                 feed.correct(1, 1, {"player": P1, "banker": B1}, table="T9")):
        error_of(resp, 403, "table_not_allowed")
    assert events(app) == before
    assert feed.round(1, 1, P1, B1, table="T1").status_code == 201


def test_the_limits_are_settings_with_ranges(app_factory, tmp_path):
    import pytest

    from support.feed import make_app
    from web.settings import ConfigError

    for value in ("0", "-1", "x", "100001"):
        with pytest.raises(ConfigError, match="ROADS_MAX_TABLES"):
            make_app(tmp_path / value, ROADS_MAX_TABLES=value)
    assert app_factory().extensions["roads.settings"].max_tables == 500


def shown(app):
    """Everything a reader sees of the tables, and how many table slots the service keeps in memory."""
    client = app.test_client()
    service = app.extensions["roads.service"]
    return (client.get("/api/tables").data, client.get("/lobby/model.json").data, service.read.lobby_json(),
            len(service.tables.slots))


def refused_first_writes(feed, i):
    """One refused write of each kind to a new id ``N<i>-<k>``: (response, status, code) triples."""
    return [
        (feed.round(1, 1, ["4S", "KD"], B1, table=f"N{i}-a"), 422, "tableau"),  # player 4 must draw
        (feed.round(1, 2, P1, B1, table=f"N{i}-b"), 409, "round_gap"),  # a new table starts at round 1
        (feed.round(1, 1, ["4S", "ZZ"], B1, table=f"N{i}-c"), 400, "bad_card"),  # no such card
        (feed.shoe(1, table=f"N{i}-d", burn=["5H"]), 422, "burn_count"),  # the turned 5 burns five more
        (feed.void(1, 1, "misdeal", table=f"N{i}-e"), 404, "unknown_table"),
        (feed.correct(1, 1, {"player": P1, "banker": B1}, table=f"N{i}-f"), 404, "unknown_table"),
    ]


def test_refused_first_writes_to_new_ids_leave_no_table_in_the_listing_the_lobby_or_memory(app_factory):
    app = app_factory(ROADS_MAX_TABLES=3)
    feed = Feed(app.test_client())
    assert feed.round(1, 1, P1, B1, table="A").status_code == 201
    before = shown(app)
    assert before[3] == 1
    for i in range(20):
        for resp, status, code in refused_first_writes(feed, i):
            assert (resp.status_code, resp.json["error"]["code"]) == (status, code), resp.json
    assert shown(app) == before
    # the 120 refused ids took no place: two more tables fit under ROADS_MAX_TABLES=3, then the limit
    assert feed.round(1, 1, P1, B1, table="B").status_code == 201
    assert feed.shoe(1, table="N0-a").status_code == 201
    error_of(feed.round(1, 1, P1, B1, table="D"), 403, "too_many_tables")
    assert len(app.extensions["roads.service"].tables.slots) == 3
    assert [t["id"] for t in app.test_client().get("/api/tables").json["tables"]] == ["A", "B", "N0-a"]


def test_writes_refused_by_the_table_rules_keep_nothing_in_memory(app_factory):
    limited = app_factory("limited", ROADS_MAX_TABLES=1)
    feed = Feed(limited.test_client())
    assert feed.round(1, 1, P1, B1, table="A").status_code == 201
    configured = app_factory("configured", ROADS_TABLES={"T1": {}}, ROADS_ONLY_CONFIGURED_TABLES="true")
    cases = [(limited, "too_many_tables"), (configured, "table_not_allowed")]
    for app, code in cases:
        before = shown(app)
        feed = Feed(app.test_client())
        for i in range(10):
            error_of(feed.round(1, 1, P1, B1, table=f"X{i}"), 403, code)
            error_of(feed.shoe(1, table=f"Y{i}"), 403, code)
        assert shown(app) == before
