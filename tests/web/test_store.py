"""The storage interface and the SQLite store: durability settings, ordering, refusals, and
the service's behaviour when another writer takes a sequence number first (the contract the
Redis store, web.stores.redis, relies on)."""

from __future__ import annotations

import sqlite3

import pytest

from roads.archive import LivePart
from roads.table import Table
from support.feed import Feed
from web.service import Service
from web.stores import Event, SeqTaken, SqliteStore, Store, StoreError, StoreUnavailable, open_store

P1, B1 = ["4S", "KD", "9H"], ["7C", "JD"]  # B 7-3
P2, B2 = ["9C", "KH"], ["5D", "2S"]  # P 9-7


def ev(seq, kind="round", shoe=1, rnd=None, data=None, table="T1", at=1000.0):
    if rnd is None and kind != "shoe":
        rnd = seq
    return Event(table, seq, kind, shoe, rnd, data if data is not None else {"round": {"player": P1, "banker": B1}}, at)


@pytest.fixture
def store(tmp_path):
    s = SqliteStore.in_dir(tmp_path)
    yield s
    s.close()


def test_events_round_trip_in_order_per_table(store):
    events = [ev(1), ev(2), ev(1, table="A"), ev(3, kind="void", rnd=2, data={"reason": "misdeal ✓"}), ev(2, table="A")]
    for e in events:
        store.append(e)
    loaded = list(store.load())
    assert [(e.table, e.seq) for e in loaded] == [("A", 1), ("A", 2), ("T1", 1), ("T1", 2), ("T1", 3)]
    assert loaded[4] == events[3] and loaded[4].data == {"reason": "misdeal ✓"}
    assert [e.seq for e in store.events_after("T1", 1)] == [2, 3]
    assert store.events_after("T1", 3) == [] and store.events_after("nobody", 0) == []


def test_a_taken_seq_or_a_taken_round_number_is_refused_and_nothing_written(store):
    store.append(ev(1))
    with pytest.raises(SeqTaken, match="seq 1"):
        store.append(ev(1, data={"round": {"player": P2, "banker": B2}}))
    with pytest.raises(SeqTaken):  # another seq, but round 1 of shoe 1 already has a round
        store.append(ev(2, rnd=1))
    # voids and corrections of a round are not new rounds
    store.append(ev(2, kind="correct", rnd=1))
    assert [e.seq for e in store.load()] == [1, 2]


def test_events_are_checked(tmp_path):
    with pytest.raises(ValueError, match="kind"):
        Event("T1", 1, "delete", 1, 1, {}, 0.0)
    with pytest.raises(ValueError, match="seq"):
        Event("T1", 0, "round", 1, 1, {}, 0.0)
    e = ev(4, kind="shoe", data={"burn": [], "cut_card_position": None, "variant": "seed000_live", "decks": 8})
    assert Event.from_json(e.to_json()) == e and e.round is None


@pytest.fixture
def opened(monkeypatch):
    """Every sqlite3 connection opened during the test, in order (the store's own among them)."""
    connections = []
    connect = sqlite3.connect

    def spy(*args, **kwargs):
        connections.append(connect(*args, **kwargs))
        return connections[-1]

    monkeypatch.setattr(sqlite3, "connect", spy)
    return connections


def test_the_file_uses_wal_and_full_sync(tmp_path, opened):
    store = SqliteStore.in_dir(tmp_path)
    try:
        [own] = opened  # synchronous is a setting of the connection that writes
        assert own.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        db = sqlite3.connect(store.path)
        try:
            assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        finally:
            db.close()
    finally:
        store.close()


def test_a_file_of_another_schema_version_is_refused(tmp_path):
    path = tmp_path / SqliteStore.FILENAME
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version=99")
    db.close()
    with pytest.raises(StoreError, match="schema version 99"):
        SqliteStore(path)


def test_write_errors_become_store_unavailable(tmp_path, opened):
    store = SqliteStore.in_dir(tmp_path)
    [own] = opened
    own.close()  # any sqlite3 error on write
    with pytest.raises(StoreUnavailable):
        store.append(ev(1))


def test_open_store_picks_sqlite_by_default_and_refuses_redis_without_its_module(tmp_path, monkeypatch):
    s = open_store({"ROADS_DATA_DIR": str(tmp_path), "ROADS_REDIS_URL": None})
    assert isinstance(s, SqliteStore) and s.path == tmp_path / "roads.sqlite3"
    s.close()
    import sys

    monkeypatch.setitem(sys.modules, "web.stores.redis", None)  # import fails
    with pytest.raises(StoreError, match="ROADS_REDIS_URL"):
        open_store({"ROADS_DATA_DIR": str(tmp_path), "ROADS_REDIS_URL": "redis://127.0.0.1:6379/0"})


# ----------------------------------------------------------------------------- service over a shared store
# Another process writing the same table is a second store on the same file: its events take
# the sequence numbers (and round numbers) this service thinks are free, so the service's next
# append loses the race (SeqTaken); it then catches up from the store and judges again.
@pytest.fixture
def shared(app_factory, tmp_path):
    """``(other, client, feed)``: the other process's store on the file of a test service, the
    service's test client and a :class:`support.feed.Feed` on it."""
    app = app_factory("data")
    other_store = SqliteStore.in_dir(tmp_path / "data")
    yield other_store, app.test_client(), Feed(app.test_client())
    other_store.close()


def other(seq, p, b):
    """Round ``seq`` of shoe 1 as another process stores it (round 1 opens the shoe)."""
    data = {"round": {"player": p, "banker": b}}
    if seq == 1:
        data["opens_shoe"] = {"variant": "seed000_live", "decks": 8}
    return Event("T1", seq, "round", 1, seq, data, 2000.0 + seq)


def commit_other(store, event):
    """Store ``event`` as another process would: its table restored from the store's live part,
    ``store.commit(table.commit(event))``."""
    part = {p.table: p for p in store.load_live()}.get(event.table) or LivePart(event.table, 0)
    store.commit(Table.restore(part, past=store.past_shoes(event.table)).commit(event))


def test_the_same_round_stored_first_by_another_process_is_a_no_op(shared):
    store, client, feed = shared
    commit_other(store, other(1, P1, B1))
    resp = feed.round(1, 1, P1, B1)
    assert resp.status_code == 200 and resp.json["status"] == "unchanged" and resp.json["version"] == 1
    assert [e.seq for e in store.load()] == [1]


def test_a_different_round_stored_first_by_another_process_is_a_409(shared):
    store, client, feed = shared
    commit_other(store, other(1, P2, B2))
    resp = feed.round(1, 1, P1, B1)
    assert resp.status_code == 409 and resp.json["error"]["code"] == "round_conflict"
    assert resp.json["error"]["stored"]["feed"]["player"] == P2
    assert client.get("/api/tables/T1").json["last"]["winner"] == "P"


def test_after_losing_the_race_our_round_is_validated_again_and_stored_next(shared):
    store, client, feed = shared
    assert feed.round(1, 1, P1, B1).status_code == 201
    commit_other(store, Event("T1", 2, "void", 1, 1, {"reason": "misdeal"}, 3000.0))  # takes seq 2
    resp = feed.round(1, 2, P2, B2)
    assert resp.status_code == 201 and resp.json["version"] == 3
    assert [(e.seq, e.kind) for e in store.load()] == [(1, "round"), (2, "void"), (3, "round")]
    snap = client.get("/api/tables/T1").json
    assert snap["voided"] == [1] and [b["winner"] for b in snap["bead_plate"]] == ["P"]


class Followed(Store):
    """A store whose events of other processes the test delivers by hand: :meth:`start` keeps
    the service's callback as :attr:`on_event`."""

    def __init__(self, inner: SqliteStore) -> None:
        self.inner = inner
        self.on_event = None

    def load(self):
        return self.inner.load()

    def append(self, event):
        self.inner.append(event)

    def events_after(self, table, seq):
        return self.inner.events_after(table, seq)

    def start(self, on_event):
        self.on_event = on_event

    def close(self):
        self.inner.close()


@pytest.fixture
def followed(tmp_path):
    """``(store, service)``: a :class:`web.service.Service` over a :class:`Followed` store."""
    store = Followed(SqliteStore.in_dir(tmp_path))
    service = Service(store)
    yield store, service
    service.close()


def test_events_from_other_processes_are_applied_once_in_order(followed):
    store, service = followed
    e1, e2, e3 = other(1, P1, B1), other(2, P2, B2), other(3, P1, B1)
    for e in (e1, e2, e3):
        store.inner.append(e)
    store.on_event(e1)
    store.on_event(e1)  # a repeat is ignored
    assert service.read.snapshot("T1")["version"] == 1
    store.on_event(e3)  # skips ahead: the service catches up from the store
    snap = service.read.snapshot("T1")
    assert snap["version"] == 3 and snap["round"] == 3
    assert [b["winner"] for b in snap["bead_plate"]] == ["B", "P", "B"]
    assert service.hub.latest("table:T1").version == 3
    assert service.hub.latest("lobby").version == 3
