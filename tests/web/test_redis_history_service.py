"""``roads serve`` processes over Redis with the PostgreSQL history (ROADS_HISTORY_URL), end to end,
(each process restores its tables from the live part and commits with ``Table.commit``):
two processes written alternately through one Redis and one PostgreSQL, closed shoes moved to
PostgreSQL and Redis trimmed, a restarted process, and a release deployment's Redis data migrated
at the first start. Every read (tables, snapshots, shoe lists, past shoes and their rounds) is
compared byte for byte with the SQLite path fed the same events (an independent store) and with
a full replay of every write."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from roads.table import Table
from support.feed import AUTH, close_app, make_app
from support.feed_writes import request_of, writes
from support.redis import SHARED_REDIS_URL, Server, shared_prefix
from web.stores import SqliteStore
from web.stores.postgres import PostgresHistory
from web.stores.redis import RedisStore
from web.stores.redis_history import RedisHistoryStore

pytestmark = [pytest.mark.redis, pytest.mark.slow]


@pytest.fixture
def prefix():
    yield from shared_prefix()


@pytest.fixture
def servers(tmp_path):
    started: list[Server] = []

    def start(prefix: str, history_url: str | None) -> Server:
        started.append(Server(tmp_path / f"data{len(started)}", SHARED_REDIS_URL, prefix, history_url))
        return started[-1]

    yield start
    for s in started:
        s.kill()


def everything(get) -> dict[str, bytes]:
    """Every read of every table and shoe, as bytes: ``get(path) -> bytes``."""
    out = {"/api/tables": get("/api/tables")}
    for t in json.loads(out["/api/tables"])["tables"]:
        base = f"/api/tables/{t['id']}"
        for url in (base, base + "/shoes"):
            out[url] = get(url)
        for s in json.loads(out[base + "/shoes"])["shoes"]:
            for suffix in ("", "/rounds"):
                out[f"{base}/shoes/{s['shoe']}{suffix}"] = get(f"{base}/shoes/{s['shoe']}{suffix}")
    return out


def sqlite_everything(tmp_path: Path, events) -> dict[str, bytes]:
    """What the SQLite path serves for ``events`` (stored through its own store, loaded by a fresh app)."""
    d = tmp_path / "sqlite"
    store = SqliteStore.in_dir(d)
    for ev in events:
        store.append(ev)
    store.close()
    app = make_app(d)
    try:
        client = app.test_client()
        return everything(lambda path: client.get(path).data)
    finally:
        close_app(app)


def post_all(targets, mixed) -> None:
    """Send each write to the next process in turn, once the other has seen the table's version."""
    for i, (table, w) in enumerate(mixed):
        server = targets[i % len(targets)]
        before = targets[(i - 1) % len(targets)].version(table)
        server.wait_version(table, before)
        method, path, body = request_of(table, w)
        status, data = server.request(method, path, body)
        assert status < 500, (status, data, method, path, body)


def test_two_processes_alternating_on_redis_and_postgresql_serve_the_sqlite_paths_bytes(
        prefix, history_url, servers, tmp_path):
    a, b = servers(prefix, history_url), servers(prefix, history_url)
    post_all([a, b], writes({"K1": 3, "K2": 4}, shoes=5))
    store = RedisHistoryStore(SHARED_REDIS_URL, PostgresHistory(history_url), prefix=prefix)
    try:
        store.compact()
        events = list(store.load())
        assert store.closed_rows() == [] and len(store.history.shoe_numbers("K1")) >= 3
        for table in ("K1", "K2"):
            b.wait_version(table, a.version(table))
            live = Table.replay(table, [e for e in events if e.table == table]).current.number
            assert {json.loads(f["e"])["shoe"] for _, f in store.db.xrange(store.events_key(table))} == {live}
    finally:
        store.close()
    expected = sqlite_everything(tmp_path, events)
    assert len(expected) > 20
    assert everything(lambda p: a.request("GET", p)[1]) == expected
    assert everything(lambda p: b.request("GET", p)[1]) == expected
    c = servers(prefix, history_url)  # a restart: reads the moved shoes from PostgreSQL
    assert everything(lambda p: c.request("GET", p)[1]) == expected


def test_a_release_deployment_migrates_at_first_start_and_serves_the_same_bytes(prefix, history_url, servers,
                                                                                 tmp_path):
    old = servers(prefix, None)  # the release: every event stays in Redis
    post_all([old], writes({"M1": 5}, shoes=6))
    before = everything(lambda p: old.request("GET", p)[1])
    old.kill()
    release = RedisStore(SHARED_REDIS_URL, prefix=prefix, timeout_s=2.0, max_tables=1000)
    events = list(release.load())
    release.close()
    new = servers(prefix, history_url)  # migrates at start
    assert everything(lambda p: new.request("GET", p)[1]) == before == sqlite_everything(tmp_path, events)
    store = RedisHistoryStore(SHARED_REDIS_URL, PostgresHistory(history_url), prefix=prefix)
    try:
        assert store.db.get(store.layout_key) == "1" and store.closed_rows() == []
        assert store.history.shoe_numbers("M1") == sorted(
            s["shoe"] for s in json.loads(before["/api/tables/M1/shoes"])["shoes"] if not s.get("live"))
        live = Table.replay("M1", events).current.number
        opened = next(e.seq for e in events if e.shoe == live)
        kept = [e.seq for e in events if e.shoe == live and e.seq >= opened]
        assert [int(i.partition("-")[0]) for i, _ in store.db.xrange(store.events_key("M1"))] == kept
        assert sorted(s for seqs in store.history.detail_seqs("M1").values() for s in seqs) == \
            [e.seq for e in events if e.seq not in kept]
    finally:
        store.close()
