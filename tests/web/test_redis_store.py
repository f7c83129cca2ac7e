"""The Redis store (docs/deploy.md) against a real Redis: the Store contract, the atomic conditional
append under races, the follower thread, Redis going away and coming back, and the service's
catch-up-and-revalidate path when another process took a round first.

Uses the shared Redis (``support.redis.SHARED_REDIS_URL``) under a fresh key prefix per test,
deleted afterwards, and, for the outage test, a private ``redis-server`` of its own. Skips with
the reason when no Redis is reachable, fails instead under ``ROADS_TEST_REQUIRE_REDIS=1``.
"""

from __future__ import annotations

import threading
import time

import pytest
import redis
from click.testing import CliRunner

from support.feed import Feed, dealt_rounds, make_app
from support.redis import SHARED_REDIS_URL, PrivateRedis, RedisProxy, shared_prefix
from support.serving import free_port
from web import cli
from web.settings import ConfigError
from web.stores.redis import RedisStore, StoreDiverged
from web.service import get_service
from web.stores import Event, SeqTaken, Store, StoreError, StoreUnavailable, open_store

P1, B1 = ["4S", "KD", "9H"], ["7C", "JD"]  # Banker 7-3: player 4 draws 9 -> 3, banker stands on 7
P2, B2 = ["9C", "KH"], ["5D", "2S"]  # Player natural 9 beats 7

pytestmark = pytest.mark.redis

WAIT_S = 10
"""Longest wait for another thread or process (bounded loops; never a timing assert)."""


def ev(seq, kind="round", shoe=1, rnd=None, data=None, table="T1", at=1000.0):
    if rnd is None and kind != "shoe":
        rnd = seq
    return Event(table, seq, kind, shoe, rnd, data if data is not None else {"round": {"player": P1, "banker": B1}}, at)


def wait_until(predicate, what):
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.01)
    raise AssertionError(f"gave up waiting for {what}")


@pytest.fixture
def prefix():
    """A fresh key prefix on the shared Redis (skips without Redis); its keys are deleted after."""
    yield from shared_prefix()


@pytest.fixture
def stores(prefix):
    """``make(url=SHARED_REDIS_URL)`` -> a RedisStore on the test's prefix (as if in its own
    process); all closed after."""
    made = []

    def make(url=SHARED_REDIS_URL):
        s = RedisStore(url, prefix=prefix, timeout_s=2, max_tables=500)
        made.append(s)
        return s

    yield make
    for s in made:
        s.close()


@pytest.fixture
def proxy(prefix):
    """A :class:`support.redis.RedisProxy` in front of the shared Redis (a network that can fail)."""
    p = RedisProxy(SHARED_REDIS_URL)
    yield p
    p.close()


@pytest.fixture
def raw(prefix):
    """A plain redis client for looking at the keys."""
    client = redis.Redis.from_url(SHARED_REDIS_URL, decode_responses=True)
    yield client
    client.close()


def redis_apps(tmp_path, url, prefix, names=("a", "b"), urls=None, **extra):
    """One in-process app per name, all over the same Redis log (as separate processes would be);
    ``urls`` (one per name) reach that Redis by other ways (a :class:`RedisProxy`)."""
    return [make_app(tmp_path / n, ROADS_REDIS_URL=u, ROADS_REDIS_PREFIX=prefix, ROADS_REDIS_TIMEOUT_S=0.5, **extra)
            for n, u in zip(names, urls or [url] * len(names))]


def version(app, table="T1"):
    """The table's version served by ``app`` (0 while that process does not know the table)."""
    resp = app.test_client().get(f"/api/tables/{table}")
    return resp.json["version"] if resp.status_code == 200 else 0


def close_apps(apps):
    for app in apps:
        get_service(app).close()


# ----------------------------------------------------------------------------- the Store contract
def test_events_round_trip_in_order_per_table(stores):
    store = stores()
    events = [ev(1), ev(2), ev(1, table="A"), ev(3, kind="void", rnd=2, data={"reason": "misdeal ✓"}), ev(2, table="A"),
              ev(4, kind="shoe", shoe=2, data={"burn": ["5H"], "cut_card_position": None, "variant": "v", "decks": 8},
                 at=1718452800.123)]
    for e in events:
        store.append(e)
    loaded = list(stores().load())  # another process sees the same log
    assert [(e.table, e.seq) for e in loaded] == [("A", 1), ("A", 2), ("T1", 1), ("T1", 2), ("T1", 3), ("T1", 4)]
    assert loaded[4] == events[3] and loaded[4].data == {"reason": "misdeal ✓"}
    assert loaded[5] == events[5] and loaded[5].round is None and loaded[5].at == 1718452800.123
    assert [e.seq for e in store.events_after("T1", 1)] == [2, 3, 4]
    assert store.events_after("T1", 4) == [] and store.events_after("nobody", 0) == []


def test_a_taken_seq_or_a_taken_round_number_is_refused_and_nothing_written(stores, raw, prefix):
    store = stores()
    store.append(ev(1))
    with pytest.raises(SeqTaken, match="seq 1 is taken"):
        store.append(ev(1, data={"round": {"player": P2, "banker": B2}}))
    with pytest.raises(SeqTaken, match="shoe 1 round 1 is taken"):  # a free seq, but round 1 of shoe 1 has a round
        store.append(ev(2, rnd=1))
    store.append(ev(2, kind="correct", rnd=1))  # corrections (and voids) of a round are not new rounds
    assert [(e.seq, e.kind) for e in store.load()] == [(1, "round"), (2, "correct")]
    assert raw.hgetall(prefix + "heads") == {"T1": "2"}
    assert raw.hgetall(prefix + "t:T1:rounds") == {"1:1": "1"}
    assert raw.xlen(prefix + "t:T1:events") == 2 and raw.xlen(prefix + "log") == 2


def test_a_seq_beyond_the_head_means_redis_lost_events_and_is_refused(stores, raw, prefix):
    store = stores()
    store.append(ev(1))
    with pytest.raises(StoreDiverged, match="Redis holds only 1 events") as info:
        store.append(ev(3))
    assert isinstance(info.value, StoreUnavailable)  # the service answers 503
    assert [e.seq for e in store.load()] == [1] and raw.xlen(prefix + "log") == 1


def test_a_retried_append_whose_reply_was_lost_is_stored_once(stores, proxy):
    # A lost reply is retried with the same write token; finding that token stored is success.
    store = stores(proxy.url)
    store.append(ev(1, table="WARM"))  # the append script is in Redis now (a NOSCRIPT answer is no lost reply)
    proxy.lose_next_reply(b"EVALSHA")
    store.append(ev(1))  # stored, the reply lost on the way back; the retry is a no-op success
    assert proxy.lost == 1
    with pytest.raises(SeqTaken):  # another write (another token) of the same seq still loses
        store.append(ev(1))
    with pytest.raises(SeqTaken):
        stores().append(ev(1))
    assert [e.seq for e in store.load() if e.table == "T1"] == [1]


@pytest.mark.parametrize("same_round", [True, False], ids=["same round", "different rounds"])
def test_two_stores_racing_for_each_seq_store_exactly_one_event(stores, same_round):
    first, second = stores(), stores()
    rounds = {first: {"player": P1, "banker": B1},
              second: {"player": P1, "banker": B1} if same_round else {"player": P2, "banker": B2}}
    outcomes: dict[int, dict] = {}
    barrier = threading.Barrier(2, timeout=WAIT_S)

    def writer(store):
        for seq in range(1, 31):
            barrier.wait()
            try:
                store.append(ev(seq, data={"round": rounds[store]}))
                outcomes.setdefault(seq, {})[store] = "stored"
            except SeqTaken:
                outcomes.setdefault(seq, {})[store] = "taken"

    threads = [threading.Thread(target=writer, args=(s,)) for s in (first, second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=WAIT_S * 3)
    assert not any(t.is_alive() for t in threads)
    stored = first.events_after("T1", 0)
    assert [e.seq for e in stored] == list(range(1, 31))
    for e in stored:
        results = outcomes[e.seq]
        assert sorted(results.values()) == ["stored", "taken"]
        winner = next(s for s, r in results.items() if r == "stored")
        assert e.data == {"round": rounds[winner]}


# ----------------------------------------------------------------------------- following other processes
def test_the_follower_delivers_every_later_event_of_every_process_in_order(stores):
    early = ev(1, table="OLD")
    stores().append(early)
    follower = stores()
    assert list(follower.load()) == [early]
    got: list[Event] = []
    follower.start(got.append)
    with pytest.raises(RuntimeError, match="already"):
        follower.start(got.append)
    other = stores()
    sent = [ev(1), ev(2), ev(1, table="NEW"), ev(2, table="OLD"), ev(3, kind="void", rnd=2, data={"reason": "r"})]
    for e in sent:
        other.append(e)
    own = ev(4, kind="correct", rnd=1)
    follower.append(own)  # this process's own writes come back too (the service ignores seqs it has)
    wait_until(lambda: len(got) == 6, "six events")
    assert got == sent + [own]


def test_after_an_outage_the_follower_catches_up_from_each_tables_stream(stores, raw, prefix, proxy):
    # The shared log may have been trimmed (or Redis restarted) while this process was away:
    # the resync compares every table's head with what it delivered and fills the difference.
    follower = stores(proxy.url)
    assert list(follower.load()) == []
    got: list[Event] = []
    follower.start(got.append)
    proxy.cut()  # this process loses Redis
    wait_until(lambda: not follower.connected, "the follower to notice")
    other = stores()
    sent = [ev(1), ev(2), ev(1, table="T2"), ev(3), ev(2, table="T2")]
    for e in sent:
        other.append(e)
    raw.delete(prefix + "log")
    proxy.restore()
    wait_until(lambda: follower.connected and len(got) >= 5, "the follower to catch up")
    assert got == [sent[0], sent[1], sent[3], sent[2], sent[4]]  # per table in seq order (T1, then T2)
    proxy.cut()  # a second outage with nothing new
    wait_until(lambda: not follower.connected, "the follower to notice again")
    proxy.restore()
    wait_until(lambda: follower.connected, "the follower to catch up again")
    assert len(got) == 5  # nothing twice


def test_a_follower_that_lagged_past_the_trimmed_log_notices_and_catches_up(stores, raw, prefix):
    follower = stores()
    assert list(follower.load()) == []
    other = stores()
    sent = [ev(1), ev(1, table="T2"), ev(2), ev(3), ev(2, table="T2")]
    for e in sent:
        other.append(e)
    raw.xtrim(prefix + "log", maxlen=2, approximate=False)  # entries 1-3 gone before the follower read them
    got: list[Event] = []
    follower.start(got.append)
    wait_until(lambda: len(got) == 5, "five events")
    assert got == [sent[0], sent[2], sent[3], sent[1], sent[4]]  # from the tables' streams, each in order
    later = ev(4)
    other.append(later)
    wait_until(lambda: len(got) == 6, "the next event from the log")
    assert got[-1] == later


# ----------------------------------------------------------------------------- Redis unreachable
def test_an_unreachable_redis_fails_loads_and_writes_with_store_unavailable(tmp_path):
    url = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    store = RedisStore(url, prefix="roads:", timeout_s=0.5, max_tables=500)  # connecting is lazy: no error yet
    try:
        with pytest.raises(StoreUnavailable, match="^the Redis store cannot be reached while loading the event log$") as e:
            store.load()
        assert e.value.detail.startswith(f"Redis at {url}: ")  # for the operator's log, never for a client
        with pytest.raises(StoreUnavailable, match=r"cannot be reached while appending table 'T1' seq 1$"):
            store.append(ev(1))
        with pytest.raises(StoreUnavailable, match="cannot be reached while reading table 'T1' after seq 0$"):
            store.events_after("T1", 0)
    finally:
        store.close()
    with pytest.raises(StoreUnavailable):
        make_app(tmp_path / "data", ROADS_REDIS_URL=url, ROADS_REDIS_TIMEOUT_S=0.5)
    # `roads serve` refuses to start with the reason instead of serving an empty service
    result = CliRunner().invoke(cli.main, ["serve", "--port", "0", "--data", str(tmp_path / "data")],
                                env={"ROADS_REDIS_URL": url, "ROADS_REDIS_TIMEOUT_S": "0.5", "ROADS_FEED_TOKEN": "x"})
    assert result.exit_code == 1 and f"Redis at {url}: " in result.output


@pytest.mark.parametrize("config, message", [
    ({"url": "http://127.0.0.1:6379"}, "ROADS_REDIS_URL 'http://127.0.0.1:6379' is not a Redis URL"),
    ({"ROADS_REDIS_PREFIX": "my roads:"}, "ROADS_REDIS_PREFIX must be non-empty text without spaces, got 'my roads:'"),
    ({"ROADS_REDIS_TIMEOUT_S": "soon"}, "ROADS_REDIS_TIMEOUT_S must be a number of seconds, got 'soon'"),
    ({"ROADS_REDIS_TIMEOUT_S": "0"}, r"ROADS_REDIS_TIMEOUT_S must be seconds in \(0, 300\], got '0'"),
])
def test_bad_settings_are_refused_naming_the_setting_and_value(tmp_path, config, message):
    config = dict(config)
    url = config.pop("url", "redis://127.0.0.1:6379/0")
    with pytest.raises(ConfigError, match=message):
        open_store({"ROADS_DATA_DIR": str(tmp_path), "ROADS_REDIS_URL": url, **config})


def test_the_redis_url_selects_the_redis_store_and_settings_fall_back_to_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("ROADS_REDIS_PREFIX", "from-env:")
    monkeypatch.setenv("ROADS_REDIS_TIMEOUT_S", "1.5")
    store = open_store({"ROADS_DATA_DIR": str(tmp_path), "ROADS_REDIS_URL": "redis://127.0.0.1:6379/3"})
    try:
        assert isinstance(store, RedisStore) and isinstance(store, Store)
        assert store.prefix == "from-env:" and store.timeout_s == 1.5
        assert repr(store) == "RedisStore('redis://127.0.0.1:6379/3', prefix='from-env:')"
        assert not (tmp_path / "roads.sqlite3").exists()  # no SQLite file with Redis
    finally:
        store.close()
    assert issubclass(StoreDiverged, StoreError)


# ----------------------------------------------------------------------------- the service over Redis
def test_a_process_behind_the_log_catches_up_and_revalidates_its_write(tmp_path, prefix, proxy):
    a, b = apps = redis_apps(tmp_path, SHARED_REDIS_URL, prefix, urls=[SHARED_REDIS_URL, proxy.url])
    try:
        proxy.hold_log_readers()  # B stops following: it only learns of A's writes when its own append loses
        feed_a, feed_b = Feed(a.test_client()), Feed(b.test_client())
        assert feed_a.round(1, 1, P1, B1).status_code == 201
        repeat = feed_b.round(1, 1, P1, B1)  # the same round: B's seq 1 is taken, B catches up, a no-op
        assert repeat.status_code == 200 and repeat.json["status"] == "unchanged" and repeat.json["version"] == 1
        assert feed_a.round(1, 2, P2, B2).status_code == 201
        other = feed_b.round(1, 2, P1, B1)  # another round under number 2: 409 naming the stored round
        assert other.status_code == 409
        err = other.json["error"]
        assert err["code"] == "round_conflict" and err["field"] == "round"
        assert err["stored"]["feed"] == {"shoe": 1, "round": 2, "player": P2, "banker": B2}
        assert a.test_client().get("/api/tables/T1").data == b.test_client().get("/api/tables/T1").data

        # What only the log knows is not refused as a gap, an unknown round or an unknown table:
        # B catches up and judges the write again.
        rounds = dealt_rounds(3, seed=4)
        assert feed_a.round(1, 3, *rounds[0]).status_code == 201
        assert feed_a.round(1, 4, *rounds[1]).status_code == 201
        nxt = feed_b.round(1, 5, *rounds[2])  # B last saw round 2: round 5 is still the next one
        assert nxt.status_code == 201 and nxt.json["version"] == 5
        assert feed_a.round(1, 6, P2, B2).status_code == 201
        voided = feed_b.void(1, 6, "misdeal")  # round 6 exists only in the log as far as B knows
        assert voided.status_code == 201 and voided.json["version"] == 7
        assert feed_a.round(1, 1, P1, B1, table="NEW").status_code == 201
        assert feed_b.void(1, 1, "card exposed", table="NEW").status_code == 201  # a table B never saw
        assert feed_b.void(1, 1, "x", table="NONE").status_code == 404  # and a table nobody has
        assert feed_b.round(1, 9, P1, B1).json["error"]["code"] == "round_gap"  # a real gap stays a 409
        for table in ("T1", "NEW"):
            assert a.test_client().get(f"/api/tables/{table}").status_code == 200  # A follows
            wait_until(lambda: version(a, table) == version(b, table), f"A at B's {table} version")
            assert a.test_client().get(f"/api/tables/{table}/shoes/1/rounds").data == \
                b.test_client().get(f"/api/tables/{table}/shoes/1/rounds").data
    finally:
        close_apps(apps)


def test_the_table_limit_holds_across_processes_sharing_redis(tmp_path, prefix, proxy, raw):
    a, b = apps = redis_apps(tmp_path, SHARED_REDIS_URL, prefix, urls=[SHARED_REDIS_URL, proxy.url],
                             ROADS_MAX_TABLES=3, ROADS_TABLES={"C1": {}})
    try:
        proxy.hold_log_readers()  # B never hears of A's tables: only Redis can count them
        feed_a, feed_b = Feed(a.test_client()), Feed(b.test_client())
        assert feed_a.round(1, 1, P1, B1, table="A1").status_code == 201
        assert feed_a.shoe(1, table="A2").status_code == 201
        # B knows one table (C1, configured, no round yet); Redis holds A1 and A2: 3 in all
        for resp in (feed_b.round(1, 1, P1, B1, table="B1"), feed_b.shoe(1, table="B2")):
            assert resp.status_code == 403, resp.json
            err = resp.json["error"]
            assert (err["code"], err["field"]) == ("too_many_tables", "table_id") and "3 tables" in err["message"]
        assert sorted(raw.hkeys(prefix + "heads")) == ["A1", "A2"]
        assert set(get_service(b).tables.slots) == {"C1"}
        assert feed_b.round(1, 1, P1, B1, table="C1").status_code == 201  # a configured table always may
        assert feed_b.round(1, 2, P2, B2, table="A1").status_code == 201  # so may a table that exists
        assert sorted(raw.hkeys(prefix + "heads")) == ["A1", "A2", "C1"]
        assert feed_a.round(1, 1, P1, B1, table="A3").status_code == 403
    finally:
        proxy.restore()
        close_apps(apps)


def test_processes_creating_tables_at_once_create_no_more_than_the_limit(tmp_path, prefix, raw):
    apps = redis_apps(tmp_path, SHARED_REDIS_URL, prefix, ROADS_MAX_TABLES=3)
    statuses: list[int] = []
    lock = threading.Lock()
    start = threading.Barrier(12)

    def create(i):
        client = apps[i % 2].test_client()
        start.wait(timeout=WAIT_S)
        resp = Feed(client).round(1, 1, P1, B1, table=f"N{i}")
        with lock:
            statuses.append(resp.status_code)

    try:
        threads = [threading.Thread(target=create, args=(i,)) for i in range(12)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=WAIT_S)
        assert sorted(statuses) == [201] * 3 + [403] * 9
        assert raw.hlen(prefix + "heads") == 3
        for app in apps:
            wait_until(lambda: len(app.test_client().get("/api/tables").json["tables"]) == 3, "every table shown")
    finally:
        close_apps(apps)


def test_the_same_round_or_two_rounds_under_one_number_posted_to_two_processes_at_once(tmp_path, prefix):
    a, b = apps = redis_apps(tmp_path, SHARED_REDIS_URL, prefix)
    rounds = dealt_rounds(24, seed=5)
    statuses: dict[int, list[int]] = {}
    barrier = threading.Barrier(2, timeout=WAIT_S)

    def poster(app, index):
        feed = Feed(app.test_client())
        for n in range(1, 13):  # rounds 1-12: both post the same round
            barrier.wait()
            statuses.setdefault(n, []).append(feed.round(1, n, *rounds[n - 1]).status_code)
        for n in range(13, 19):  # rounds 13-18: each posts a different round under the number
            barrier.wait()
            statuses.setdefault(n, []).append(feed.round(1, n, *rounds[n - 1 + 6 * index]).status_code)

    try:
        threads = [threading.Thread(target=poster, args=(app, i)) for i, app in enumerate(apps)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=WAIT_S * 3)
        assert not any(t.is_alive() for t in threads)
        assert all(sorted(statuses[n]) == [200, 201] for n in range(1, 13)), statuses
        assert all(sorted(statuses[n]) == [201, 409] for n in range(13, 19)), statuses
        export = a.test_client().get("/api/tables/T1/shoes/1/rounds").json["rounds"]
        assert [r["round"] for r in export] == list(range(1, 19))
        assert [r["feed"]["player"] for r in export[:12]] == [p for p, _ in rounds[:12]]
        wait_until(lambda: version(b) == 18, "B at version 18")
        export_url = "/api/tables/T1/shoes/1/rounds"
        assert a.test_client().get(export_url).data == b.test_client().get(export_url).data
    finally:
        close_apps(apps)


@pytest.mark.slow
def test_while_redis_is_down_writes_get_503_reads_go_on_and_everyone_catches_up_after(tmp_path):
    private = PrivateRedis(tmp_path / "redis")
    apps = []
    try:
        a, b = apps = redis_apps(tmp_path, private.url, "roads:")
        feed = Feed(a.test_client())
        rounds = dealt_rounds(6, seed=9)
        for n in (1, 2, 3):
            assert feed.round(1, n, *rounds[n - 1]).status_code == 201
        wait_until(lambda: version(b) == 3, "B at version 3")
        before = a.test_client().get("/api/tables/T1").data

        private.kill()
        down = feed.round(1, 4, *rounds[3])
        assert down.status_code == 503
        err = down.json["error"]
        assert err["status"] == 503 and err["code"] == "store_unavailable" and err["field"] is None
        assert "nothing was recorded" in err["message"]
        assert "the Redis store cannot be reached" in err["message"]
        assert "127.0.0.1" not in err["message"] and str(private.port) not in err["message"]
        for app in apps:  # reads keep serving the last known state
            got = app.test_client().get("/api/tables/T1")
            assert got.status_code == 200 and got.data == before
        wait_until(lambda: not get_service(b).store.connected, "B's follower to notice")

        private.start()  # the append-only file brings back rounds 1-3
        assert feed.round(1, 4, *rounds[3]).status_code == 201
        assert feed.round(1, 5, *rounds[4]).status_code == 201
        wait_until(lambda: version(b) == 5, "B back at version 5")
        wait_until(lambda: get_service(b).store.connected, "B to report Redis back")
        assert a.test_client().get("/api/tables/T1").data == b.test_client().get("/api/tables/T1").data
        fresh = redis_apps(tmp_path, private.url, "roads:", names=("c",))
        apps.extend(fresh)
        assert fresh[0].test_client().get("/api/tables/T1/shoes/1/rounds").data == \
            a.test_client().get("/api/tables/T1/shoes/1/rounds").data
    finally:
        close_apps(apps)
        private.kill()


def test_a_state_write_is_judged_unchanged_only_against_what_redis_holds(tmp_path, prefix):
    # issue 21 item 3: A stored "result", B (behind) still saw "dealing" and answered B's "dealing"
    # with 200 unchanged, storing nothing. Both processes deaf to the log: each learns of the
    # other's writes only from Redis itself, when it judges a write.
    proxies = [RedisProxy(SHARED_REDIS_URL), RedisProxy(SHARED_REDIS_URL)]
    apps = redis_apps(tmp_path, SHARED_REDIS_URL, prefix, urls=[p.url for p in proxies])
    try:
        for p in proxies:
            p.hold_log_readers()
        feeds = [Feed(app.test_client()) for app in apps]
        assert feeds[0].round(1, 1, P1, B1).status_code == 201
        states = ["dealing", "result"] * 6
        for i, state in enumerate(states):
            client = feeds[i % 2].client
            resp = client.post("/api/tables/T1/state", json={"state": state}, headers=feeds[0].headers)
            assert (resp.status_code, resp.json["status"], resp.json["version"]) == (201, "recorded", i + 2), (i, state)
        again = feeds[1].client.post("/api/tables/T1/state", json={"state": "result"}, headers=feeds[0].headers)
        assert (again.status_code, again.json["status"], again.json["version"]) == (200, "unchanged", 13)
        for p in proxies:
            p.restore()  # the followers read the log again and catch up
        for app in apps:
            wait_until(lambda: version(app) == 13, "both processes at version 13")
            assert app.test_client().get("/api/tables/T1").json["state"]["state"] == "result"
    finally:
        close_apps(apps)
        for p in proxies:
            p.close()


def test_a_503_never_shows_where_redis_is(tmp_path, prefix, proxy):
    # issue 21 item 7: Redis 503 messages showed the Redis host, port and db to feed clients
    (app,) = redis_apps(tmp_path, SHARED_REDIS_URL, prefix, names=("a",), urls=[proxy.url])
    try:
        proxy.cut()
        resp = Feed(app.test_client()).round(1, 1, P1, B1)
        err = resp.json["error"]
        assert (resp.status_code, err["code"]) == (503, "store_unavailable")
        assert err["message"] == ("the store cannot take writes now; nothing was recorded (the Redis store cannot be "
                                  "reached while appending table 'T1' seq 1)")
        for secret in ("127.0.0.1", str(proxy.port), "redis://", "/0"):
            assert secret not in err["message"]
    finally:
        close_apps([app])
