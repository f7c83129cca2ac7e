"""The PostgreSQL history (web/stores/postgres.py) on a throwaway cluster: its schema and version row,
a shoe's move (the version guard, the detail merged by seq, concurrent movers of one shoe),
retention, and an unreachable database. The independent source is a reference table fed
simulated writes (support.histories) with every shoe in memory."""

from __future__ import annotations

import json
import threading

import psycopg
import pytest

from roads.archive import archive, shoe_document
from support.all_shoes import all_shoes
from support.histories import run
from web.stores import StoreError, StoreUnavailable
from web.stores.postgres import SCHEMA_VERSION, PostgresHistory, ShoeRow


@pytest.fixture
def history(history_url):
    h = PostgresHistory(history_url, detail_retention_days=2)
    yield h
    h.close()


@pytest.fixture(scope="module")
def reference():
    """``(table, events)`` of a simulated table with several shoes, voids and corrections."""
    events = []
    table, _ = run(51, shoes=6, table_id="T1", on_event=lambda t, ev: events.append(ev))
    return table, events


def test_the_schema_is_created_once_with_its_version(history, history_url):
    with psycopg.connect(history_url) as conn:
        assert conn.execute("SELECT value FROM roads.meta WHERE key = 'schema_version'").fetchone() == (str(SCHEMA_VERSION),)
        tables = {r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'roads'")}
    assert tables == {"meta", "shoes", "shoe_docs", "shoe_details"}
    PostgresHistory(history_url).close()  # a second process finds it made


def test_a_newer_schema_is_refused(history, history_url):
    with psycopg.connect(history_url) as conn:
        conn.execute("UPDATE roads.meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(StoreError, match="schema version 99"):
        PostgresHistory(history_url)


def test_an_unreachable_database_is_store_unavailable(tmp_path):
    with pytest.raises(StoreUnavailable) as e:
        PostgresHistory(f"postgresql://nobody@/nothing?host={tmp_path}&port=1", timeout_s=1)
    assert "cannot be reached" in str(e.value) and "port=1" in e.value.detail
    with pytest.raises(StoreError, match="not a PostgreSQL URL"):
        PostgresHistory("host='unterminated")


def test_every_past_shoe_moves_exactly_and_reads_back(history, reference):
    table, events = reference
    past = [n for n in all_shoes(table) if n != table.current.number]
    for n in past:
        evs = [e for e in events if e.shoe == n]
        assert history.move_shoe("T1", n, ShoeRow.of("T1", archive(all_shoes(table)[n])), evs) == len(evs)
    assert history.shoe_numbers("T1") == past
    for n in past:
        assert shoe_document(history.past_shoe("T1", n)) == shoe_document(all_shoes(table)[n])
        row = history.shoe_summary("T1", n, stats=True)
        a = archive(all_shoes(table)[n])
        assert (json.loads(row.line), json.loads(row.stats), row.version) == (a.line, a.stats, a.version)
        assert row.line == json.dumps(a.line, ensure_ascii=False, separators=(",", ":"))
        assert history.shoe_detail("T1", n) == [e for e in events if e.shoe == n]
    moved = [e for e in events if e.shoe in past]
    assert history.detail_events("T1") == moved and history.detail_events("T1", 30) == [e for e in moved if e.seq > 30]
    assert [s.shoe for s in history.shoe_summaries("T1", limit=2)] == past[::-1][:2]
    assert [s.shoe for s in history.shoe_summaries("T1", before=past[-2], limit=10)] == past[:-2][::-1]


def test_a_move_is_idempotent_never_older_over_newer_and_merges_by_seq(history, reference):
    table, events = reference
    n = next(n for n in all_shoes(table) if n != table.current.number)
    evs = [e for e in events if e.shoe == n]
    new = ShoeRow.of("T1", archive(all_shoes(table)[n]))
    older = ShoeRow(new.table, n, new.version - 1, new.started_at, new.ended_at, 0, "{}", "{}", new.doc)
    assert history.move_shoe("T1", n, new, evs[::2]) == len(evs[::2])
    assert history.move_shoe("T1", n, older, evs[1::2]) == len(evs[1::2])  # the events still merge
    assert history.move_shoe("T1", n, new, evs) == 0  # nothing new
    assert history.shoe_summary("T1", n).version == new.version and history.shoe_summary("T1", n).rounds == new.rounds
    assert history.shoe_detail("T1", n) == evs


def test_concurrent_movers_of_one_shoe_lose_no_event(history, reference):
    table, events = reference
    n = [n for n in all_shoes(table) if n != table.current.number][1]
    evs = [e for e in events if e.shoe == n]
    parts = [evs[i::4] for i in range(4)] * 3
    barrier = threading.Barrier(len(parts))

    def move(part):
        barrier.wait()
        history.move_shoe("T1", n, None, part)

    threads = [threading.Thread(target=move, args=(p,)) for p in parts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert history.shoe_detail("T1", n) == evs


def test_retention_drops_old_details_and_keeps_every_round(history, reference):
    table, events = reference
    past = [n for n in all_shoes(table) if n != table.current.number]
    for n in past:
        history.move_shoe("T1", n, ShoeRow.of("T1", archive(all_shoes(table)[n])), [e for e in events if e.shoe == n])
    last = {n: max(e.at for e in events if e.shoe == n) for n in past}
    cutoff = sorted(last.values())[len(past) // 2]
    dropped = history.apply_retention(now=cutoff + 2 * 86_400)
    assert dropped == sum(1 for at in last.values() if at < cutoff) >= 1
    assert [history.shoe_detail("T1", n) is None for n in past] == [last[n] < cutoff for n in past]
    assert history.apply_retention(now=cutoff + 2 * 86_400) == 0
    with pytest.raises(StoreError, match="retention"):
        history.detail_events("T1")
    for n in past:
        assert shoe_document(history.past_shoe("T1", n)) == shoe_document(all_shoes(table)[n])
