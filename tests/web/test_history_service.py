"""The service over a history store (docs/history.md, phase 2): tables restored from their live part,
writes committed with ``Table.commit``, past shoes read from their documents through a bounded
cache, shoe lists paged newest first from the stored lines, round exports streamed, the compactor
off the request path.

The independent source is the release's path: the same stored events loaded by a service whose
store is only an event log (:class:`Plain`: every event replayed, every past shoe kept in memory,
listings built from the records). Simulated tables (``support.feed_writes``: card-by-card rounds
with states, misdeals, voids and corrections of past shoes, skipped shoe numbers, variants) go
through the HTTP feed; every read of every table and shoe (every page of every shoe list) must
be byte-identical before a restart, after it, and to the release's path, on SQLite and on Redis +
PostgreSQL.
"""

from __future__ import annotations

import json

import pytest

from support.feed import FEED_TOKEN, Feed, close_app, dealt_rounds, make_app
from support.feed_writes import request_of, writes
from web.service import Maintenance, get_service
from web.stores import SqliteStore, Store


class Plain(Store):
    """Only the event log of a store (``load``/``append``/``events_after``): the service takes the
    release's path over it (every event replayed, past shoes in memory)."""

    def __init__(self, inner) -> None:
        self.inner = inner

    def load(self):
        return self.inner.load()

    def append(self, event):
        self.inner.append(event)

    def events_after(self, table, seq):
        return self.inner.events_after(table, seq)

    def close(self):
        self.inner.close()


def everything(client, limit: int = 3) -> dict[str, bytes]:
    """Every read of every table and shoe as bytes: the lobby, each snapshot, every page of each
    shoe list (``limit`` shoes a page, following ``next``) and the default page, every shoe's
    snapshot and round export."""
    out = {"/api/tables": client.get("/api/tables").data}
    for t in json.loads(out["/api/tables"])["tables"]:
        base = f"/api/tables/{t['id']}"
        out[base] = client.get(base).data
        out[base + "/shoes"] = client.get(base + "/shoes").data
        shoes, url = [], f"{base}/shoes?limit={limit}"
        while url is not None:
            resp = client.get(url)
            assert resp.status_code == 200, url
            out[url] = resp.data
            shoes += resp.json["shoes"]
            url = resp.json["next"]
        numbers = [s["shoe"] for s in shoes]
        assert numbers == sorted(numbers, reverse=True) and len(set(numbers)) == len(numbers)
        assert [json.dumps(s) for s in shoes] == [json.dumps(s) for s in client.get(base + "/shoes?limit=500").json["shoes"]]
        for n in numbers:
            for suffix in ("", "/rounds"):
                url = f"{base}/shoes/{n}{suffix}"
                resp = client.get(url)
                assert resp.status_code == 200, url
                out[url] = resp.data
    return out


def past_edits(mixed) -> int:
    """How many of the writes void or correct a round of a shoe older than its table's newest."""
    from roads.table import CorrectRound, VoidRound

    newest: dict[str, int] = {}
    edits = 0
    for table, w in mixed:
        if isinstance(w, (VoidRound, CorrectRound)) and w.shoe < newest.get(table, 0):
            edits += 1
        newest[table] = max(newest.get(table, 0), getattr(w, "shoe", 0) or 0)
    return edits


def release_path(monkeypatch, data_dir) -> dict[str, bytes]:
    """Every read as the release's path serves it for the events stored in ``data_dir``."""
    import web.service

    monkeypatch.setattr(web.service, "open_store", lambda settings: Plain(SqliteStore.in_dir(settings.data_dir)))
    app = make_app(data_dir)
    try:
        assert get_service(app).history is None
        return everything(app.test_client())
    finally:
        close_app(app)
        monkeypatch.undo()


def test_sqlite_restart_equals_before_and_the_releases_full_replay(tmp_path, monkeypatch):
    data = tmp_path / "data"
    app = make_app(data)
    client = app.test_client()
    mixed = writes({"S1": 11, "S2": 12, "S3": 13}, shoes=5)
    for table, w in mixed:
        method, path, body = request_of(table, w)
        resp = client.open(path, method=method, json=body, headers={"Authorization": f"Bearer {FEED_TOKEN}"})
        assert resp.status_code < 500, (resp.status_code, resp.data)
    service = get_service(app)
    assert service.history is not None and service.maintenance is not None
    before = everything(client)
    assert sum(1 for url in before if url.endswith("/rounds")) >= 15
    assert past_edits(mixed) >= 3  # voids and corrections of past shoes are in it
    close_app(app)

    again = make_app(data)
    try:
        assert everything(again.test_client()) == before
    finally:
        close_app(again)
    # the file holds the live shoes in its log only once the compactor ran (off the request path)
    store = SqliteStore.in_dir(data)
    try:
        live = {p.table: p.live_shoe for p in store.load_live()}
        rows = store._db.execute("SELECT table_id, shoe FROM events").fetchall()
        assert {(t, s) for t, s in rows if s != live[t]} == set()
    finally:
        store.close()
    assert release_path(monkeypatch, data) == before


def test_a_void_or_correction_of_a_cached_past_shoe_is_seen_at_once(tmp_path, monkeypatch):
    data = tmp_path / "data"
    app = make_app(data)
    client = app.test_client()
    feed = Feed(client, "T1")
    for shoe in (1, 2):
        for n, (p, b) in enumerate(dealt_rounds(12, seed=shoe), 1):
            assert feed.round(shoe, n, p, b).status_code == 201
    read = get_service(app).read
    first = client.get("/api/tables/T1/shoes/1").json
    assert read.past_cached() == 1 and first["version"] == 12
    assert client.get("/api/tables/T1/shoes/1").json == first  # from the cache
    assert feed.void(1, 4, "late audit").status_code == 201
    voided = client.get("/api/tables/T1/shoes/1").json
    assert voided["version"] == 25 and voided["voided"] == [4]
    assert feed.correct(1, 6, {"player": ["9C", "KH"], "banker": ["5D", "2S"], "reason": "misread"}).status_code == 201
    corrected = client.get("/api/tables/T1/shoes/1").json
    assert corrected["version"] == 26
    assert client.get("/api/tables/T1/shoes?limit=1&before=2").json["shoes"][0]["version"] == 26
    before = everything(client)
    close_app(app)
    assert release_path(monkeypatch, data) == before


def test_the_past_shoe_cache_is_bounded(tmp_path):
    app = make_app(tmp_path / "data", ROADS_PAST_SHOE_CACHE="3")
    client = app.test_client()
    feed = Feed(client, "T1")
    for shoe in range(1, 8):
        for n, (p, b) in enumerate(dealt_rounds(3, seed=shoe), 1):
            assert feed.round(shoe, n, p, b).status_code == 201
    read = get_service(app).read
    try:
        for shoe in range(1, 7):
            assert client.get(f"/api/tables/T1/shoes/{shoe}").status_code == 200
            assert read.past_cached() == min(shoe, 3)
        assert client.get("/api/tables/T1/shoes/8").status_code == 404
        assert client.get("/api/tables/T1/shoes/8/rounds").status_code == 404
    finally:
        close_app(app)


@pytest.mark.parametrize("query, field", [("limit=0", "limit"), ("limit=501", "limit"), ("limit=x", "limit"),
                                          ("before=0", "before"), ("before=-3", "before"), ("before=1e3", "before")])
def test_bad_paging_is_a_400_on_the_api_and_the_page(tmp_path, query, field):
    app = make_app(tmp_path / "data")
    try:
        client = app.test_client()
        Feed(client, "T1").round(1, 1, *dealt_rounds(1)[0])
        for base in ("/api/tables/T1/shoes", "/tables/T1/shoes"):
            resp = client.get(f"{base}?{query}")
            assert resp.status_code == 400
            if base.startswith("/api"):
                assert resp.json["error"]["code"] == "bad_parameter" and resp.json["error"]["field"] == field
    finally:
        close_app(app)


def test_the_shoes_page_is_paged_newest_first_with_links(tmp_path):
    from support.html import Page

    def page(url):
        return Page(client.get(url).get_data(as_text=True))

    def shoes(p):
        return [el.attrs["data-shoe"] for el in p.find_all("tr") if "data-shoe" in el.attrs]

    app = make_app(tmp_path / "data")
    try:
        client = app.test_client()
        feed = Feed(client, "T1")
        for shoe in range(1, 6):
            assert feed.round(shoe, 1, *dealt_rounds(1, seed=shoe)[0]).status_code == 201
        first = page("/tables/T1/shoes?limit=2")
        assert shoes(first) == ["5", "4"] and first.find_all("a", data_link="newest") == []
        second = page(first.find("a", data_link="older").attrs["href"])
        assert shoes(second) == ["3", "2"]
        assert second.find("a", data_link="newest").attrs["href"] == "/tables/T1/shoes?limit=2"
        last = page(second.find("a", data_link="older").attrs["href"])
        assert shoes(last) == ["1"] and last.find_all("a", data_link="older") == []
    finally:
        close_app(app)


def test_the_maintenance_thread_compacts_after_a_close_off_the_request_path(tmp_path):
    app = make_app(tmp_path / "data")
    try:
        client = app.test_client()
        feed = Feed(client, "T1")
        service = get_service(app)
        m: Maintenance = service.maintenance
        assert m.idle()
        for n, (p, b) in enumerate(dealt_rounds(5, seed=1), 1):
            feed.round(1, n, p, b)
        feed.round(2, 1, *dealt_rounds(1, seed=2)[0])  # closes shoe 1: wakes the thread
        assert m.idle()
        rows = service.store._db.execute("SELECT shoe, COUNT(*) FROM events GROUP BY shoe").fetchall()
        assert rows == [(2, 1)] and m.moved >= 1
    finally:
        close_app(app)


@pytest.mark.redis
def test_redis_and_postgresql_restart_equals_before_and_the_releases_full_replay(tmp_path, monkeypatch,
                                                                                  history_url):
    from support.redis import SHARED_REDIS_URL, shared_prefix
    from web.stores.postgres import PostgresHistory
    from web.stores.redis_history import RedisHistoryStore

    gen = shared_prefix()
    prefix = next(gen)  # skips without Redis
    try:
        settings = {"ROADS_REDIS_URL": SHARED_REDIS_URL, "ROADS_REDIS_PREFIX": prefix, "ROADS_HISTORY_URL": history_url}
        app = make_app(tmp_path / "a", **settings)
        client = app.test_client()
        for table, w in writes({"R1": 21, "R2": 22}, shoes=5):
            method, path, body = request_of(table, w)
            resp = client.open(path, method=method, json=body, headers={"Authorization": f"Bearer {FEED_TOKEN}"})
            assert resp.status_code < 500, (resp.status_code, resp.data)
        assert isinstance(get_service(app).store, RedisHistoryStore)
        before = everything(client)
        get_service(app).store.compact()  # every closed shoe to PostgreSQL
        assert everything(client) == before
        close_app(app)
        again = make_app(tmp_path / "b", **settings)
        try:
            assert everything(again.test_client()) == before
        finally:
            close_app(again)
        # the release's path: the same events (PostgreSQL's details and Redis's stream) replayed
        store = RedisHistoryStore(SHARED_REDIS_URL, PostgresHistory(history_url), prefix=prefix)
        sqlite = SqliteStore.in_dir(tmp_path / "release")
        try:
            for ev in store.load():
                sqlite.append(ev)
        finally:
            store.close()
            sqlite.close()
        assert release_path(monkeypatch, tmp_path / "release") == before
    finally:
        for _ in gen:
            pass


def test_an_event_of_another_process_that_changes_a_cached_past_shoe_drops_it(tmp_path):
    """The follower path (``Service.apply_external``): the other process committed the void (its
    document is in the store); this process applies the event and must not serve its cached copy."""
    from roads.archive import LivePart
    from roads.events import Event
    from roads.table import Table

    app = make_app(tmp_path / "data")
    try:
        client = app.test_client()
        feed = Feed(client, "T1")
        for shoe in (1, 2):
            for n, (p, b) in enumerate(dealt_rounds(6, seed=shoe), 1):
                assert feed.round(shoe, n, p, b).status_code == 201
        service = get_service(app)
        assert client.get("/api/tables/T1/shoes/1").json["voided"] == []
        other = SqliteStore.in_dir(tmp_path / "data")  # another writer of the same records
        try:
            part = {p.table: p for p in other.load_live()}.get("T1") or LivePart("T1", 0)
            table = Table.restore(part, past=other.past_shoes("T1"))
            ev = Event("T1", table.seq + 1, "void", 1, 3, {"reason": "audit"}, 5000.0)
            other.commit(table.commit(ev))
        finally:
            other.close()
        assert client.get("/api/tables/T1/shoes/1").json["voided"] == []  # cached; not applied here yet
        service.apply_external(ev)
        snap = client.get("/api/tables/T1/shoes/1").json
        assert snap["voided"] == [3] and snap["version"] == 13
        assert client.get("/api/tables/T1").json["version"] == 13
    finally:
        close_app(app)
