"""Redis as the live stream with a PostgreSQL history (docs/history.md, "Several processes"), on a real
Redis (shared, a fresh key prefix per test) and a real PostgreSQL (a throwaway cluster, a fresh
database per test): commits with the shoes they close or change, the live part, reads of past shoes
before and after the mover, the mover (once, trimmed), the release's interface on the same keys,
the migration of the release's Redis data, and two writers. The independent source is a reference
table fed the same writes with every shoe in memory (support.histories) and a full replay."""

from __future__ import annotations
from support.all_shoes import all_shoes

import json
import logging

import pytest

from roads.archive import archive, shoe_document
from roads.events import Event
from roads.table import Table, VoidRound
from support.histories import run
from support.redis import SHARED_REDIS_URL, shared_prefix
from web.stores import SeqTaken, StoreError, StoreUnavailable, open_store
from web.stores.postgres import PostgresHistory
from web.stores.redis import RedisStore
from web.stores.redis_history import RedisHistoryStore

pytestmark = pytest.mark.redis


def state(s):
    return (s.number, s.variant, s.decks, s.started_at, s.explicit, s.burn, s.cut_card_position,
            [(r.number, r.data, r.original, r.result, r.at, r.void, r.corrections, r.dealer) for r in s.rounds],
            +s.copies, s.ops, s.in_progress, s.version, s.updated_at)


def text(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


@pytest.fixture
def prefix():
    yield from shared_prefix()


@pytest.fixture
def make(prefix, history_url):
    """``make(**options)``: a RedisHistoryStore on the test's prefix and database (closed after)."""
    made = []

    def factory(**options):
        made.append(RedisHistoryStore(SHARED_REDIS_URL, PostgresHistory(history_url), prefix=prefix, **options))
        return made[-1]

    yield factory
    for s in made:
        s.close()


@pytest.fixture
def store(make):
    return make()


class Fed:
    """Tables fed simulated writes, each event committed to ``store`` as the service will."""

    def __init__(self, store, seeds, shoes=6, on_commit=None):
        self.tables, self.events = {}, {}

        def on_event(t, ev):
            c = t.commit(ev)
            store.commit(c)
            self.events.setdefault(t.id, []).append(ev)
            if on_commit is not None:
                on_commit(c)

        for table_id, seed in seeds.items():
            self.tables[table_id], _ = run(seed, shoes=shoes, table_id=table_id, on_event=on_event)

    def everything(self):
        return [e for t in sorted(self.events) for e in self.events[t]]


@pytest.fixture
def fed(store):
    assert list(store.load_live()) == []  # a process starts on an empty Redis, then writes
    return Fed(store, {"A": 11, "B": 12, "C": 13})


def restored(store):
    return {p.table: Table.restore(p, past=store.past_shoes(p.table)) for p in store.load_live()}


def assert_like_reference(store, fed):
    tables = restored(store)
    assert sorted(tables) == sorted(fed.tables)
    for table_id, ref in fed.tables.items():
        t = tables[table_id]
        assert (t.seq, t.status) == (ref.seq, ref.status)
        assert state(t.current) == state(ref.current)
        assert store.shoe_numbers(table_id) == [n for n in all_shoes(ref) if n != ref.current.number]
        for n in store.shoe_numbers(table_id):
            assert state(store.past_shoe(table_id, n)) == state(all_shoes(ref)[n])
        lines = store.shoe_summaries(table_id, limit=10**6, stats=True)
        assert [x.shoe for x in lines] == store.shoe_numbers(table_id)[::-1]
        assert [x.line for x in lines] == [text(all_shoes(ref)[x.shoe].summary(False)) for x in lines]
        assert [json.loads(x.stats) for x in lines] == [archive(all_shoes(ref)[x.shoe]).stats for x in lines]
        assert [(x.version, x.rounds, x.started_at) for x in lines] == \
            [(all_shoes(ref)[x.shoe].version, len(all_shoes(ref)[x.shoe].rounds), all_shoes(ref)[x.shoe].started_at) for x in lines]


def live_events(fed, table_id):
    """The reference events a trimmed stream holds: the live shoe's, from its opening."""
    ref = fed.tables[table_id]
    opened = next(e.seq for e in fed.events[table_id] if e.shoe == ref.current.number)
    return [e for e in fed.events[table_id] if e.shoe == ref.current.number and e.seq >= opened]


def stream(store, table_id):
    return [Event.from_json(json.loads(f["e"])) for _, f in store.db.xrange(store.events_key(table_id))]


def assert_trimmed(store, fed):
    """Redis holds the live shoes only: their events, their rounds, the heads; no closed entry."""
    assert store.closed_rows() == [] and not store.db.exists(store.closed_key)
    for table_id in fed.tables:
        live = live_events(fed, table_id)
        assert stream(store, table_id) == live
        assert store.db.hgetall(store.rounds_key(table_id)) == \
            {f"{e.shoe}:{e.round}": str(e.seq) for e in live if e.kind == "round"}
        details = store.history.detail_seqs(table_id)
        moved = [e for e in fed.events[table_id] if e not in live]
        assert sorted(s for seqs in details.values() for s in seqs) == [e.seq for e in moved]
        assert all(e.seq in details[e.shoe] for e in moved)


# ----------------------------------------------------------------------------- the live part and reads
def test_before_and_after_the_move_every_table_past_shoe_and_line_is_the_references(store, fed):
    assert len(store.closed_rows()) >= 12 and store.history.shoe_numbers("A") == []
    assert_like_reference(store, fed)  # from Redis's closed entries
    assert store.compact() >= 12
    assert store.history.shoe_numbers("A") == store.shoe_numbers("A")
    assert_like_reference(store, fed)  # from PostgreSQL
    assert_trimmed(store, fed)
    assert store.compact() == 0  # idempotent


def test_the_live_part_holds_the_live_shoe_only(store, fed):
    store.compact()
    for part in store.load_live():
        ref = fed.tables[part.table]
        assert part.head == ref.seq and part.live_shoe == ref.current.number
        assert list(part.events) == live_events(fed, part.table)
        assert part.status == ref.status.data()


def test_the_live_part_comes_back_as_the_events_json_alone(store, fed):
    """A restart reads every table's live shoe: the script replies with each entry's event JSON (the
    stored bytes), one flat list, not whole stream entries (docs/history.md, 6,000 table-days); an
    entry without an event is refused, never skipped."""
    store.compact()
    for table_id in fed.tables:
        _, _, texts = store._live_script(keys=[store._heads_key, store.head_key(table_id), store.events_key(table_id)],
                                         args=[table_id])
        assert texts == [f["e"] for _, f in store.db.xrange(store.events_key(table_id))]
        assert [Event.from_json(json.loads(t)) for t in texts] == live_events(fed, table_id)
    head = store.db.hgetall(store.head_key("A"))
    store.db.xadd(store.events_key("A"), {"w": "no event"}, id=f"{int(head['seq']) + 1}-0")
    store.db.hset(store.head_key("A"), "seq", int(head["seq"]) + 1)
    with pytest.raises(Exception, match="has no event"):
        list(store.load_live())


def test_summaries_merge_the_shoes_not_moved_yet_with_postgresql(store, fed):
    store.compact()
    t = fed.tables["A"]
    more = Fed.__new__(Fed)
    more.tables, more.events = {}, {}
    n_before = len(store.shoe_numbers("A"))
    # two more shoes on A, closed in Redis and not moved
    from support.histories import Clock, outcome, table_writes
    import random
    rng = random.Random(5)
    clock = Clock(rng, start=t.current.updated_at + 100)
    for w in table_writes(rng, t, shoes=3):
        ev = outcome(t, w, clock.tick())
        if isinstance(ev, Event):
            store.commit(t.commit(ev))
            t.apply(ev)
            fed.events["A"].append(ev)
    pending = {r.shoe for r in store.closed_rows("A")}
    assert pending and len(store.shoe_numbers("A")) > n_before
    numbers = store.shoe_numbers("A")
    assert numbers == [n for n in all_shoes(t) if n != t.current.number]
    page1 = store.shoe_summaries("A", limit=3)
    page2 = store.shoe_summaries("A", before=page1[-1].shoe, limit=3)
    assert [s.shoe for s in page1 + page2] == sorted(numbers, reverse=True)[:6]
    assert all(s.stats is None for s in page1)
    one = store.shoe_summary("A", max(pending), stats=True)
    assert one.line == text(all_shoes(t)[max(pending)].summary(False)) and json.loads(one.stats)["recorded"] == one.rounds
    moved = min(numbers)
    assert store.shoe_summary("A", moved).line == text(all_shoes(t)[moved].summary(False))
    everything = store.shoe_summaries_between(0, 2e9)
    assert [(s.table, s.shoe) for s in everything] == [(x, n) for x in sorted(fed.tables) for n in store.shoe_numbers(x)]
    starts = sorted(s.started_at for s in store.shoe_summaries("A", limit=100))
    got = store.shoe_summaries_between(starts[-2], starts[-1], table="A")
    assert [s.started_at for s in got] == [starts[-2]]
    rounds = [(n, r.export(n)) for n, r in store.stream_rounds("A", numbers)]
    assert rounds == [(n, r.export(n)) for n in numbers for r in all_shoes(t)[n].rounds]
    assert_like_reference(store, fed)


def test_a_past_shoe_edited_after_its_move_is_merged_into_its_detail(store, fed):
    store.compact()
    t = fed.tables["B"]
    n = store.shoe_numbers("B")[-1]
    number = next(r.number for r in all_shoes(t)[n].rounds if r.void is None)
    ev = t.decide(VoidRound(n, number, "late review"), lambda: 2e9)
    store.commit(t.commit(ev))
    t.apply(ev)
    fed.events["B"].append(ev)
    assert [r.shoe for r in store.closed_rows()] == [n]
    assert store.shoe_summary("B", n).version == ev.seq and store.history.shoe_summary("B", n).version < ev.seq
    assert store.past_shoe("B", n).round(number).void == {"reason": "late review", "at": 2e9}
    assert store.shoe_detail("B", n) == [e for e in fed.events["B"] if e.shoe == n]  # Redis's event + PostgreSQL's
    assert store.compact() == 1 and store.compact() == 0
    assert store.history.shoe_summary("B", n).version == ev.seq
    assert store.shoe_detail("B", n) == [e for e in fed.events["B"] if e.shoe == n]
    assert_trimmed(store, fed)
    assert_like_reference(store, fed)


def test_a_commit_that_is_not_the_tables_next_changes_nothing(store, fed):
    from roads.archive import Commit
    t = fed.tables["A"]
    with pytest.raises(SeqTaken, match="not its next"):
        store.commit(Commit(Event("A", t.seq, "state", t.current.number, None, t.status.data(), 1.0)))
    with pytest.raises(StoreUnavailable, match="lost events"):
        store.commit(Commit(Event("A", t.seq + 2, "state", 0, None, {}, 1.0)))
    assert list(store.load()) == fed.everything()
    assert_like_reference(store, fed)


def test_a_restarted_store_on_the_same_redis_and_database_gives_the_same(make, fed, store):
    store.compact()
    assert_like_reference(make(), fed)


# ----------------------------------------------------------------------------- the release's interface
def test_the_release_interface_reads_moved_events_from_postgresql(store, fed):
    assert list(store.load()) == fed.everything()
    store.compact()
    assert list(store.load()) == fed.everything()
    for table_id, events in fed.events.items():
        for after in (0, 5, len(events) // 2, len(events) - 1, len(events)):
            assert store.events_after(table_id, after) == events[after:]


def test_events_appended_through_the_release_interface_are_caught_up(store, make):
    events = []
    ref, _ = run(21, shoes=6, table_id="T1", on_event=lambda t, ev: events.append(ev))
    for ev in events[:40]:
        store.append(ev)
    assert [p.head for p in store.load_live()] == [40]
    for ev in events[40:]:
        store.append(ev)
    assert store.compact() >= 4  # caught up, then moved
    part = next(store.load_live())
    assert part.head == ref.seq
    t = Table.restore(part, past=store.past_shoes("T1"))
    assert state(t.current) == state(ref.current)
    assert [state(store.past_shoe("T1", n)) for n in store.shoe_numbers("T1")] == \
        [state(all_shoes(ref)[n]) for n in all_shoes(ref) if n != ref.current.number]
    assert list(store.load()) == events


def test_a_commit_after_release_appends_catches_the_table_up_first(store):
    events = []
    ref, writes = run(23, shoes=4, table_id="T1", on_event=lambda t, ev: events.append(ev))
    for ev in events[:-10]:
        store.append(ev)
    t = Table.replay("T1", events[:-10])
    for ev in events[-10:]:
        store.commit(t.commit(ev))
        t.apply(ev)
    part = next(store.load_live())
    assert part.head == ref.seq and state(Table.restore(part, past=store.past_shoes("T1")).current) == state(ref.current)


def test_a_table_that_cannot_be_caught_up_is_named(store):
    store.append(Event("T9", 1, "round", 1, 1, {"round": {"player": ["4S", "KD", "9H"], "banker": ["7C", "JD"]}}, 1.0))
    with pytest.raises(StoreError, match="'T9' event 1 does not fit"):
        list(store.load_live())
    assert [e.seq for e in store.load()] == [1]  # the stream is untouched


# ----------------------------------------------------------------------------- migration of the release's data
def test_the_release_redis_data_migrates_at_the_first_start(prefix, make, monkeypatch):
    from web.stores import redis_mover

    monkeypatch.setattr(redis_mover, "CATCH_UP_BATCH", 37)  # many batches: each one moves what it closed
    old = RedisStore(SHARED_REDIS_URL, prefix=prefix, timeout_s=2.0, max_tables=1000)
    fed = Fed.__new__(Fed)
    fed.tables, fed.events = {}, {}
    for table_id, seed in {"A": 31, "B": 32}.items():
        fed.tables[table_id], _ = run(seed, shoes=7, table_id=table_id,
                                      on_event=lambda t, ev: (old.append(ev), fed.events.setdefault(t.id, []).append(ev)))
    old.close()
    store = make()
    assert not store.db.exists(store.layout_key)
    assert_like_reference(store, fed)  # load_live migrated first
    assert store.db.get(store.layout_key) == "1"
    assert_trimmed(store, fed)
    assert list(store.load()) == fed.everything()
    assert_like_reference(make(), fed)


# ----------------------------------------------------------------------------- two writers
def test_two_writers_alternating_through_one_redis_and_one_database(make):
    """Two stores (two processes) take turns; a writer whose table is behind gets SeqTaken, catches
    up from the store (events_after, as the service does) and decides again."""
    import random
    from support.histories import Clock, outcome, table_writes

    a, b = make(), make()
    ref = Table("T1")
    rng = random.Random(7)
    clock = Clock(rng)
    writes = []
    for w in table_writes(rng, ref, shoes=8):
        at = clock.tick()
        o = outcome(ref, w, at)
        if isinstance(o, Event):
            ref.apply(o)
        writes.append((at, w))
    views = {a: Table("T1", past=a.past_shoes("T1")), b: Table("T1", past=b.past_shoes("T1"))}

    def catch_up(s, t):
        behind = s.events_after("T1", t.seq)
        for ev in behind:
            t.apply(ev)
        return bool(behind)

    taken = 0
    pick = random.Random(8)
    for i, (at, w) in enumerate(writes):
        s = pick.choice((a, b))
        t = views[s]
        if pick.random() < 0.5:  # the follower delivered the other's writes (or not yet)
            catch_up(s, t)
        for _ in range(3):
            o = outcome(t, w, at)
            if isinstance(o, Event):
                try:
                    s.commit(t.commit(o))
                except SeqTaken:
                    taken += 1
                    catch_up(s, t)
                    continue
                t.apply(o)
                break
            if not catch_up(s, t):  # unchanged or refused by an up-to-date table: so it is
                break
        if i % 50 == 0:
            (a if i % 100 else b).compact()
    for s, t in views.items():
        for ev in s.events_after("T1", t.seq):
            t.apply(ev)
    assert taken > 10
    a.compact()
    for s in (a, b, make()):
        [part] = list(s.load_live())
        t = Table.restore(part, past=s.past_shoes("T1"))
        assert t.seq == ref.seq and state(t.current) == state(ref.current)
        assert [state(s.past_shoe("T1", n)) for n in s.shoe_numbers("T1")] == \
            [state(all_shoes(ref)[n]) for n in all_shoes(ref) if n != ref.current.number]


# ----------------------------------------------------------------------------- memory and the mover thread
def test_redis_memory_stays_bounded_by_the_live_shoe(store):
    """After each shoe closes and moves, the table's keys hold its live shoe only."""
    sizes = []

    def on_commit(c):
        if c.opens and c.archive is not None:
            store.compact()
            sizes.append((store.db.xlen(store.events_key("T1")), sum(store.memory("T1").values())))

    store.ensure_layout()
    fed = Fed(store, {"T1": 41}, shoes=30, on_commit=on_commit)
    store.compact()
    assert_trimmed(store, fed)
    assert len(sizes) >= 25 and max(n for n, _ in sizes) <= 3  # a closing event and the states before it
    keys = set(store.db.scan_iter(match=store.prefix + "*"))
    assert keys == {store.prefix + k for k in ("heads", "log", "history", "t:T1:events", "t:T1:rounds", "t:T1:head")}


def test_the_mover_thread_moves_after_a_closing_commit(make):
    store = make(move_interval_s=3600)
    store.load_live()
    store.start(lambda ev: None)
    fed = Fed(store, {"T1": 43}, shoes=4)
    import time
    deadline = time.monotonic() + 20
    while store.closed_rows() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert store.closed_rows() == [] and store.mover.moved >= 3
    assert store.history.shoe_numbers("T1") == [n for n in all_shoes(fed.tables["T1"]) if n != fed.tables["T1"].current.number]


# ----------------------------------------------------------------------------- settings
def test_open_store_picks_redis_with_postgresql(prefix, history_url, tmp_path, caplog):
    s = open_store({"ROADS_DATA_DIR": str(tmp_path), "ROADS_REDIS_URL": SHARED_REDIS_URL, "ROADS_REDIS_PREFIX": prefix,
                    "ROADS_HISTORY_URL": history_url, "ROADS_DETAIL_RETENTION_DAYS": "30", "ROADS_MAX_TABLES": "7"})
    try:
        assert type(s) is RedisHistoryStore and s.prefix == prefix and s.max_tables == 7
        assert s.history.detail_retention_days == 30.0
    finally:
        s.close()
    with caplog.at_level(logging.WARNING, logger="web.stores"):
        s = open_store({"ROADS_DATA_DIR": str(tmp_path), "ROADS_REDIS_URL": SHARED_REDIS_URL, "ROADS_HISTORY_URL": None})
    s.close()
    assert type(s) is RedisStore and "without ROADS_HISTORY_URL" in caplog.text


def test_a_history_url_that_is_not_postgresql_is_refused(tmp_path):
    from web.settings import ConfigError

    with pytest.raises(ConfigError, match="ROADS_HISTORY_URL"):
        open_store({"ROADS_DATA_DIR": str(tmp_path), "ROADS_REDIS_URL": SHARED_REDIS_URL,
                    "ROADS_HISTORY_URL": "redis://127.0.0.1:6379/0"})


def test_commit_many_is_one_round_trip_and_stops_at_a_refusal(store):
    store.ensure_layout()
    commits, events = [], []
    ref, _ = run(61, shoes=8, table_id="T1",
                 on_event=lambda t, ev: (commits.append(t.commit(ev)), events.append(ev)))
    half = len(commits) // 2
    assert half > 50
    store.commit_many(commits[:half])
    stale = commits[half - 1]  # already stored: refused on its own, the others are stored
    with pytest.raises(SeqTaken):
        store.commit_many([stale, *commits[half:half + 10]])
    assert list(store.load()) == events[:half + 10]
    store.commit_many(commits[half + 10:])
    store.compact()
    [part] = list(store.load_live())
    t = Table.restore(part, past=store.past_shoes("T1"))
    assert state(t.current) == state(ref.current)
    assert [state(store.past_shoe("T1", n)) for n in store.shoe_numbers("T1")] == \
        [state(all_shoes(ref)[n]) for n in all_shoes(ref) if n != ref.current.number]
