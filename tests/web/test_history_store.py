"""The SQLite store's history (schema v3, docs/history.md): events committed with the shoes they
close or change, the live part a table is restored from, past shoes and paged summaries, the
compactor, retention, the old event-log interface on the same file. The independent source is a
reference table fed the same writes with every shoe in memory (support.histories)."""

from __future__ import annotations

import json
import sqlite3

import pytest

from roads.archive import archive, shoe_document
from roads.events import Event
from roads.table import Table
from support.all_shoes import all_shoes
from support.histories import run
from web.stores import SeqTaken, SqliteStore, StoreError
from web.stores.sqlite_history import catch_up


def state(s):
    return (s.number, s.variant, s.decks, s.started_at, s.explicit, s.burn, s.cut_card_position,
            [(r.number, r.data, r.original, r.result, r.at, r.void, r.corrections, r.dealer, r.held) for r in s.rounds],
            +s.copies, s.ops, s.in_progress, s.version, s.updated_at)


def text(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


class Fed:
    """Tables fed simulated writes, committed to ``store`` in batches (one transaction each)."""

    def __init__(self, store: SqliteStore, seeds: dict[str, int], shoes: int = 6, batch: int = 50,
                 shoe_extensions: bool = False) -> None:
        self.store = store
        self.tables: dict[str, Table] = {}
        self.events: dict[str, list[Event]] = {}
        pending = []

        def on_event(t, ev):
            pending.append(t.commit(ev))
            self.events.setdefault(t.id, []).append(ev)
            if len(pending) >= batch:
                store.commit_many(pending)
                pending.clear()

        for table_id, seed in seeds.items():
            self.tables[table_id], _ = run(seed, shoes=shoes, table_id=table_id, on_event=on_event,
                                           shoe_extensions=shoe_extensions)
        store.commit_many(pending)


@pytest.fixture
def store(tmp_path):
    s = SqliteStore.in_dir(tmp_path)
    yield s
    s.close()


@pytest.fixture
def fed(store):
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
        assert [json.loads(x.line) for x in lines] == [all_shoes(ref)[x.shoe].summary(False) for x in lines]
        assert [x.line for x in lines] == [text(all_shoes(ref)[x.shoe].summary(False)) for x in lines]
        assert [json.loads(x.stats) for x in lines] == [archive(all_shoes(ref)[x.shoe]).stats for x in lines]


def test_a_restored_store_gives_every_table_past_shoe_and_line_of_the_reference(store, fed):
    assert_like_reference(store, fed)
    assert store.past_shoe("A", fed.tables["A"].current.number) is None  # the live shoe is not a past one
    assert store.past_shoe("nobody", 1) is None and store.shoe_summaries("nobody") == []


def test_shoe_tables_backs_holds_and_shoe_errors_survive_the_store(store):
    """Card-reading shoes' tables (docs/shoes.md: face-down draws, held rounds resolved in live and
    past shoes, shoe errors): restored from the store, every shoe, line and event as the reference."""
    fed = Fed(store, {"A": 31, "B": 32, "C": 33}, shoe_extensions=True)
    assert_like_reference(store, fed)
    kinds = {e.kind for evs in fed.events.values() for e in evs}
    assert "hold" in kinds
    assert list(store.load()) == [e for t in sorted(fed.events) for e in fed.events[t]]
    for table_id, ref in fed.tables.items():   # a full replay of the stored events too
        again = Table.replay(table_id, store.events_after(table_id, 0))
        assert [state(s) for s in all_shoes(again).values()] == [state(s) for s in all_shoes(ref).values()]
        assert again.status == ref.status


def test_every_event_is_stored_once_in_order_and_the_old_interface_still_reads_them(store, fed):
    loaded = list(store.load())
    assert loaded == [e for t in sorted(fed.events) for e in fed.events[t]]
    assert store.events_after("B", 5) == fed.events["B"][5:]


def test_the_live_part_holds_the_live_shoe_only(store, fed):
    for part in store.load_live():
        ref = fed.tables[part.table]
        assert part.head == ref.seq and part.live_shoe == ref.current.number
        opened = next(e.seq for e in fed.events[part.table] if e.shoe == part.live_shoe)
        assert part.events == [e for e in fed.events[part.table] if e.shoe == part.live_shoe and e.seq >= opened]
        assert part.status == (None if ref.status.blank and not any(e.kind == "state" for e in fed.events[part.table])
                               else ref.status.data())


def test_summaries_are_paged_newest_first_with_a_cursor(store, fed):
    numbers = store.shoe_numbers("A")
    assert len(numbers) >= 4
    page1 = store.shoe_summaries("A", limit=2)
    page2 = store.shoe_summaries("A", before=page1[-1].shoe, limit=2)
    assert [s.shoe for s in page1 + page2] == sorted(numbers, reverse=True)[:4]
    assert all(s.stats is None for s in page1)
    ref = fed.tables["A"]
    assert [(s.version, s.rounds, s.started_at) for s in page1] == \
        [(all_shoes(ref)[s.shoe].version, len(all_shoes(ref)[s.shoe].rounds), all_shoes(ref)[s.shoe].started_at) for s in page1]


def test_one_summary(store, fed):
    ref = fed.tables["B"]
    n = store.shoe_numbers("B")[1]
    one = store.shoe_summary("B", n, stats=True)
    assert one == next(x for x in store.shoe_summaries("B", limit=100, stats=True) if x.shoe == n)
    assert json.loads(one.line) == all_shoes(ref)[n].summary(False) and json.loads(one.stats) == archive(all_shoes(ref)[n]).stats
    assert store.shoe_summary("B", ref.current.number) is None and store.shoe_summary("B", n).stats is None


def test_summaries_by_time_range(store, fed):
    everything = store.shoe_summaries_between(0, 2e9)
    assert [(s.table, s.shoe) for s in everything] == [(t, n) for t in sorted(fed.tables) for n in store.shoe_numbers(t)]
    a = store.shoe_summaries("A", limit=100)
    middle = sorted(s.started_at for s in a)[1:3]
    got = store.shoe_summaries_between(middle[0], middle[1], table="A")
    assert [s.started_at for s in got] == [middle[0]] and json.loads(got[0].stats)["recorded"] == got[0].rounds


def test_rounds_are_streamed_shoe_by_shoe(store, fed):
    ref = fed.tables["C"]
    numbers = store.shoe_numbers("C")
    got = [(n, r.export(n)) for n, r in store.stream_rounds("C", numbers)]
    assert got == [(n, r.export(n)) for n in numbers for r in all_shoes(ref)[n].rounds]


def test_a_commit_that_is_not_the_tables_next_changes_nothing(store, fed):
    t = fed.tables["A"]
    ev = Event("A", t.seq, "state", t.current.number, None, t.status.data(), 1.0)
    from roads.archive import Commit
    with pytest.raises(SeqTaken, match="not its next"):
        store.commit(Commit(ev, status=ev.data))
    with pytest.raises(SeqTaken, match="not its next"):
        store.commit(Commit(Event("A", t.seq + 2, "state", 0, None, {}, 1.0)))
    with pytest.raises(SeqTaken):
        store.commit(Commit(Event("new", 2, "state", 0, None, {}, 1.0)))
    assert list(store.load()) == [e for k in sorted(fed.events) for e in fed.events[k]]
    assert_like_reference(store, fed)


# ----------------------------------------------------------------------------- compactor
def live_log(store):
    return store._db.execute("SELECT table_id, seq FROM events ORDER BY table_id, seq").fetchall()


def test_the_compactor_moves_closed_shoes_once_and_keeps_every_event(store, fed):
    before = len(live_log(store))
    moved = store.compact()
    assert moved >= 10 and store.compact() == 0  # idempotent
    left = live_log(store)
    live = {t: fed.tables[t].current.number for t in fed.tables}
    assert len(left) < before / 3
    by_seq = {(e.table, e.seq): e for t in fed.events for e in fed.events[t]}
    assert all(by_seq[row].shoe == live[row[0]] for row in left)  # only live shoes stay in the log
    assert list(store.load()) == [e for t in sorted(fed.events) for e in fed.events[t]]
    for t in fed.tables:
        for n in store.shoe_numbers(t):
            assert store.shoe_detail(t, n) == [e for e in fed.events[t] if e.shoe == n]
    assert_like_reference(store, fed)


def test_a_past_shoe_edited_after_compaction_is_merged_into_its_detail(store, fed):
    from roads.table import VoidRound
    store.compact()
    t = fed.tables["B"]
    n = store.shoe_numbers("B")[-1]
    number = next(r.number for r in all_shoes(t)[n].rounds if r.void is None)
    ev = t.decide(VoidRound(n, number, "late review"), lambda: 2e9)
    store.commit(t.commit(ev))
    t.apply(ev)
    fed.events["B"].append(ev)
    [row] = [x for x in store.shoe_summaries("B", limit=100) if x.shoe == n]
    assert row.version == ev.seq and json.loads(row.line) == all_shoes(t)[n].summary(False)
    assert store.past_shoe("B", n).round(number).void == {"reason": "late review", "at": 2e9}
    assert store.compact() == 1 and store.compact() == 0
    assert store.shoe_detail("B", n) == [e for e in fed.events["B"] if e.shoe == n]
    assert_like_reference(store, fed)


# ----------------------------------------------------------------------------- retention
def test_retention_drops_old_details_and_keeps_every_round(tmp_path, store, fed):
    store.compact()
    ends = sorted(r[0] for r in store._db.execute("SELECT last_at FROM shoe_details WHERE shoe > 0"))
    cutoff = ends[len(ends) // 2]  # the older half of the details goes
    store.close()
    kept = SqliteStore.in_dir(tmp_path, detail_retention_days=2)
    try:
        dropped = kept.apply_retention(now=cutoff + 2 * 86_400)
        details = kept._db.execute("SELECT table_id, shoe, last_at, detail IS NULL, dropped_at FROM shoe_details").fetchall()
        assert dropped == sum(1 for d in details if d[2] < cutoff) >= len(ends) // 2
        assert all(gone == (at < cutoff) and (dropped_at is not None) == gone for _, _, at, gone, dropped_at in details)
        gone = [(t, n) for t, n, _, g, _ in details if g and n > 0]
        assert gone and all(kept.shoe_detail(t, n) is None for t, n in gone)
        assert kept.apply_retention(now=cutoff + 2 * 86_400) == 0
        with pytest.raises(StoreError, match="retention"):
            list(kept.load())
        assert_like_reference(kept, fed)  # documents and summaries are kept forever
        other = SqliteStore.in_dir(tmp_path / "other")
        assert other.apply_retention() == 0  # unset: nothing is dropped
        other.close()
    finally:
        kept.close()


# ----------------------------------------------------------------------------- the old interface
def test_events_appended_through_the_old_interface_are_caught_up_at_load(store):
    events = []
    ref, _ = run(21, shoes=5, table_id="T1", on_event=lambda t, ev: events.append(ev))
    for ev in events[:40]:
        store.append(ev)
    assert store.load_live() and [p.head for p in store.load_live()] == [40]
    for ev in events[40:]:
        store.append(ev)
    part = next(store.load_live())
    assert part.head == ref.seq
    t = Table.restore(part, past=store.past_shoes("T1"))
    assert state(t.current) == state(ref.current)
    assert [state(store.past_shoe("T1", n)) for n in store.shoe_numbers("T1")] == \
        [state(all_shoes(ref)[n]) for n in all_shoes(ref) if n != ref.current.number]


def test_a_table_that_cannot_be_caught_up_is_named(store):
    store.append(Event("T9", 1, "round", 1, 1, {"round": {"player": ["4S", "KD", "9H"], "banker": ["7C", "JD"]}}, 1.0))
    with pytest.raises(StoreError, match="'T9' event 1 does not fit"):
        list(store.load_live())
    assert [e.seq for e in store.load()] == [1]  # the log is untouched


def test_catch_up_is_resumable_in_batches(store):
    events = []
    ref, _ = run(22, shoes=5, table_id="T1", on_event=lambda t, ev: events.append(ev))
    for ev in events:
        store.append(ev)
    with store._lock:
        assert catch_up(store._db, "T1", batch=7) == len(events)
        assert catch_up(store._db, "T1", batch=7) == 0
    assert [state(store.past_shoe("T1", n)) for n in store.shoe_numbers("T1")] == \
        [state(all_shoes(ref)[n]) for n in all_shoes(ref) if n != ref.current.number]


def test_documents_are_compressed_and_exact(store, fed):
    rows = store._db.execute("SELECT table_id, shoe, version, length(doc) FROM shoe_docs").fetchall()
    plain = 0
    for table_id, n, version, size in rows:
        doc = store.past_document(table_id, n)
        assert doc == json.loads(text(shoe_document(all_shoes(fed.tables[table_id])[n]))) and version == doc["version"]
        plain += len(text(doc).encode())
    assert sum(r[3] for r in rows) < plain / 2


def test_a_new_file_is_version_3_and_reclaims_dropped_details(tmp_path, store):
    db = sqlite3.connect(store.path)
    try:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 3
        assert db.execute("PRAGMA auto_vacuum").fetchone()[0] == 2  # incremental
    finally:
        db.close()


def test_open_store_gives_the_store_its_retention_setting(tmp_path):
    from web.stores import open_store

    s = open_store({"ROADS_DATA_DIR": str(tmp_path), "ROADS_REDIS_URL": None, "ROADS_DETAIL_RETENTION_DAYS": "30"})
    try:
        assert s.detail_retention_days == 30.0
    finally:
        s.close()
