"""The history generator of the benchmarks (bench/history_gen.py) writes what the feed path
writes: a table's pace (about 2,400 rounds and 32 shoes a day, 8 events a round dealt card by
card), the same events in the v2 file as in the store, and a store whose live parts restore the
tables a full replay of those events gives."""

from __future__ import annotations
from support.all_shoes import all_shoes

import sqlite3
import sys
from pathlib import Path

from roads.archive import shoe_document
from roads.table import Table
from web.stores import SqliteStore

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from history_gen import generate  # noqa: E402


def test_the_generator_writes_a_real_tables_pace_as_the_feed_path_would(tmp_path):
    totals = generate(tmp_path / "v3", 2, 0.5, v2=tmp_path / "v2", quiet=True)
    per_day = totals.rounds / (2 * 0.5)
    assert 2_200 <= per_day <= 2_600 and 7.5 <= totals.events / totals.rounds <= 8.5
    assert 28 <= totals.shoes / (2 * 0.5) <= 36
    store = SqliteStore.in_dir(tmp_path / "v3")
    try:
        events = list(store.load())
        old = sqlite3.connect(tmp_path / "v2" / SqliteStore.FILENAME)
        rows = old.execute("SELECT table_id, seq, kind, shoe, round, data, at FROM events ORDER BY 1, 2").fetchall()
        old.close()
        assert [(e.table, e.seq, e.kind, e.shoe, e.round, e.data_json(), e.at) for e in events] == rows
        assert len(events) == totals.events
        for part in store.load_live():
            full = Table.replay(part.table, [e for e in events if e.table == part.table])
            t = Table.restore(part, past=store.past_shoes(part.table))
            assert t.seq == full.seq and t.status == full.status
            assert shoe_document(t.current) == shoe_document(full.current)
            assert [shoe_document(store.past_shoe(part.table, n)) for n in store.shoe_numbers(part.table)] == \
                [shoe_document(all_shoes(full)[n]) for n in all_shoes(full) if n != full.current.number]
            assert {d["dealer"] for n in store.shoe_numbers(part.table)
                    for d in store.past_document(part.table, n)["rounds"]} <= {"Anna", "Bo", "Chai", "Dara", "Ein", "Fon"}
        live = store._db.execute("SELECT COUNT(DISTINCT table_id || ':' || shoe) FROM events").fetchone()[0]
        assert live == 2  # every closed shoe was compacted as it closed
    finally:
        store.close()


def test_the_generator_writes_redis_with_postgresql_and_the_release_layout_alike(history_url):
    from history_gen import generate_redis
    from support.redis import SHARED_REDIS_URL, delete_prefix, new_prefix, redis_or_skip
    from web.stores.postgres import PostgresHistory
    from web.stores.redis import RedisStore
    from web.stores.redis_history import RedisHistoryStore

    redis_or_skip()
    prefix, release = new_prefix(), new_prefix()
    try:
        totals = generate_redis(SHARED_REDIS_URL, prefix, history_url, 2, 0.25, release_prefix=release, quiet=True)
        old = RedisStore(SHARED_REDIS_URL, prefix=release, timeout_s=2.0, max_tables=1000)
        events = list(old.load())
        old.close()
        assert len(events) == totals.events
        store = RedisHistoryStore(SHARED_REDIS_URL, PostgresHistory(history_url), prefix=prefix)
        try:
            assert list(store.load()) == events and store.closed_rows() == []
            for part in store.load_live():
                full = Table.replay(part.table, [e for e in events if e.table == part.table])
                t = Table.restore(part, past=store.past_shoes(part.table))
                assert t.seq == full.seq and shoe_document(t.current) == shoe_document(full.current)
                assert [shoe_document(store.past_shoe(part.table, n)) for n in store.shoe_numbers(part.table)] == \
                    [shoe_document(all_shoes(full)[n]) for n in all_shoes(full) if n != full.current.number]
                import json
                assert {json.loads(f["e"])["shoe"] for _, f in store.db.xrange(store.events_key(part.table))} == \
                    {full.current.number}  # moved as they closed: Redis keeps the live shoe
        finally:
            store.close()
    finally:
        delete_prefix(SHARED_REDIS_URL, prefix)
        delete_prefix(SHARED_REDIS_URL, release)
