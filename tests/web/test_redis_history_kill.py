"""kill -9 at random points of a shoe's close, of a move to PostgreSQL and of the migration of the
release's Redis data (a child process, support.redis_history_child, SIGKILLs itself before or after
a random Redis command or PostgreSQL statement): nothing acknowledged is lost, nothing is doubled,
every past shoe's document equals a full replay of the events, its summary equals a recomputation
from its rounds, and once a mover pass runs to the end Redis holds the live shoes only."""

from __future__ import annotations

from support.all_shoes import all_shoes

import json
import os
import random
import subprocess
import sys
import uuid
from pathlib import Path

import psycopg
import pytest

from roads.archive import archive, shoe_document
from roads.events import Event
from roads.table import Table
from support.history_child import plan
from support.redis import SHARED_REDIS_URL, delete_prefix, redis_or_skip
from web.stores import codec
from web.stores.postgres import PostgresHistory
from web.stores.redis import RedisStore
from web.stores.redis_history import RedisHistoryStore

ROOT = Path(__file__).resolve().parents[2]
SEED, TABLES, SHOES = 41, 3, 10
SPAN = {"close": 3, "move": 60, "any": 200}
"""Kill points drawn among the first SPAN statements counted (a whole run counts about 30 in
closes, 500 in moves and 1,200 in all; a migration 270): a few closes or moves each."""

pytestmark = [pytest.mark.redis, pytest.mark.slow]


def child(*args: object) -> tuple[int, list[str]]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "tests"), str(ROOT)])}
    proc = subprocess.run([sys.executable, "-m", "support.redis_history_child", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode in (0, -9), proc.stderr
    return proc.returncode, proc.stdout.split("\n")


@pytest.fixture
def prefix():
    redis_or_skip()
    p = f"roads-test-{uuid.uuid4().hex[:12]}:"
    yield p
    delete_prefix(SHARED_REDIS_URL, p)


def reference_events(seed: int = SEED, tables: int = TABLES, shoes: int = SHOES) -> dict[str, list[Event]]:
    out = {}
    for i in range(tables):
        table_id = f"t{i}"
        ref = Table(table_id)
        events = []
        for at, w, seq in plan(seed + i, table_id, shoes):
            if seq is not None:
                ev = ref.decide(w, lambda: at)
                ref.apply(ev)
                events.append(ev)
        out[table_id] = events
    return out


def open_store(prefix: str, url: str) -> RedisHistoryStore:
    return RedisHistoryStore(SHARED_REDIS_URL, PostgresHistory(url, pool_size=2), prefix=prefix)


def stream_seqs(store, table_id):
    return [int(i.partition("-")[0]) for i, _ in store.db.xrange(store.events_key(table_id))]


def check(prefix: str, url: str, reference: dict[str, list[Event]], acked: dict[str, int]) -> dict[str, int]:
    """The store holds a prefix of each table's reference events (every acknowledged one among
    them), each once in PostgreSQL's details, with no gap between them and Redis's stream, and
    reads that equal a replay of that prefix."""
    store = open_store(prefix, url)
    try:
        heads = {}
        parts = {p.table: p for p in store.load_live()}  # may finish a migration or a catch-up
        for table_id, events in reference.items():
            streamed = stream_seqs(store, table_id)
            details = store.history.detail_seqs(table_id)
            detailed = [s for seqs in details.values() for s in seqs]
            assert len(detailed) == len(set(detailed)), "an event twice in the details"
            head = int(store.db.hget(store._heads_key, table_id) or 0)
            assert sorted(set(streamed) | set(detailed)) == list(range(1, head + 1)), "a gap"
            assert head >= acked.get(table_id, 0), "an acknowledged event is lost"
            heads[table_id] = head
            assert store.events_after(table_id, 0) == events[:head]
            full = Table.replay(table_id, events[:head])
            if head:
                t = Table.restore(parts[table_id], past=store.past_shoes(table_id))
                assert t.seq == head and t.status == full.status
                assert (None if t.current is None else shoe_document(t.current)) == \
                    (None if full.current is None else shoe_document(full.current))
            past = [n for n in all_shoes(full) if full.current is None or n != full.current.number]
            assert store.shoe_numbers(table_id) == past
            for row in store.shoe_summaries(table_id, limit=10**6, stats=True):
                s = store.past_shoe(table_id, row.shoe)
                assert shoe_document(s) == shoe_document(all_shoes(full)[row.shoe])  # the document is the replay's
                recomputed = archive(s)  # and the summary is recomputed from its rounds
                assert (json.loads(row.line), json.loads(row.stats)) == (recomputed.line, recomputed.stats)
                assert (row.version, row.rounds, row.started_at, row.ended_at) == \
                    (recomputed.version, recomputed.rounds, recomputed.started_at, recomputed.ended_at)
        return heads
    finally:
        store.close()


def assert_trimmed(prefix: str, url: str, reference: dict[str, list[Event]]) -> None:
    store = open_store(prefix, url)
    try:
        store.compact()
        assert store.compact() == 0 and store.closed_rows() == []
        for table_id, events in reference.items():
            full = Table.replay(table_id, events)
            live = full.current.number
            opened = next(e.seq for e in events if e.shoe == live)
            assert stream_seqs(store, table_id) == [e.seq for e in events if e.shoe == live and e.seq >= opened]
            detailed = sorted(s for seqs in store.history.detail_seqs(table_id).values() for s in seqs)
            assert detailed == [e.seq for e in events if not (e.shoe == live and e.seq >= opened)]
    finally:
        store.close()


@pytest.mark.parametrize("kill_in,kills", [("close", 15), ("move", 25), ("any", 12)])
def test_kill_9_while_closing_shoes_and_moving_them(prefix, history_url, kill_in, kills):
    reference = reference_events()
    rng = random.Random(f"redis-kill:{kill_in}")
    acked: dict[str, int] = {}
    killed = 0
    for _ in range(kills + 20):
        code, out = child("write", SHARED_REDIS_URL, prefix, history_url, SEED, TABLES, SHOES, kill_in,
                          rng.randint(1, SPAN[kill_in]))
        for line in out:
            if line.startswith("ack "):
                _, table_id, seq = line.split()
                acked[table_id] = max(acked.get(table_id, 0), int(seq))
        check(prefix, history_url, reference, acked)
        if code == 0:
            assert any(line.startswith("done") for line in out)
            break
        killed += 1
        if killed >= kills:
            assert child("write", SHARED_REDIS_URL, prefix, history_url, SEED, TABLES, SHOES, "any", 0)[0] == 0
            break
    assert killed >= kills // 2
    print(f"kill -9 in {kill_in}: {killed} kills")
    heads = check(prefix, history_url, reference, acked)
    assert heads == {t: len(e) for t, e in reference.items()}
    assert_trimmed(prefix, history_url, reference)
    check(prefix, history_url, reference, acked)


def release_data(prefix: str, reference: dict[str, list[Event]]) -> None:
    """The release's Redis data of ``reference``: every event appended with its store."""
    old = RedisStore(SHARED_REDIS_URL, prefix=prefix, timeout_s=2.0, max_tables=1000)
    try:
        for events in reference.values():
            for ev in events:
                old.append(ev)
    finally:
        old.close()


def everything(prefix: str, url: str, tables) -> dict:
    """What a migration leaves: the history's rows (documents and details decoded) and Redis's keys."""
    store = open_store(prefix, url)
    try:
        db = store.db
        out = {"heads": db.hgetall(store._heads_key), "closed": db.hgetall(store.closed_key),
               "layout": db.get(store.layout_key)}
        for t in tables:
            out[t] = (db.hgetall(store.head_key(t)), [(i, f["e"]) for i, f in db.xrange(store.events_key(t))],
                      db.hgetall(store.rounds_key(t)))
    finally:
        store.close()
    with psycopg.connect(url) as conn:
        out["shoes"] = conn.execute("SELECT * FROM roads.shoes ORDER BY 1, 2").fetchall()
        out["docs"] = [(t, n, v, codec.unpack_doc(d)) for t, n, v, d in
                       conn.execute("SELECT * FROM roads.shoe_docs ORDER BY 1, 2")]
        out["details"] = [(t, n, k, f, last, at, [e.seq for e in codec.unpack_detail(t, n, d)], dropped)
                          for t, n, k, f, last, at, d, dropped in
                          conn.execute("SELECT * FROM roads.shoe_details ORDER BY 1, 2")]
    return out


def test_kill_9_during_the_migration_of_release_data_resumes_to_the_same_state(postgres_cluster):
    redis_or_skip()
    reference = reference_events(SEED + 10, 2, 8)
    clean_prefix, clean_url = f"roads-test-{uuid.uuid4().hex[:12]}:", postgres_cluster.new_database()
    prefixes, urls = [clean_prefix], [clean_url]
    try:
        release_data(clean_prefix, reference)
        assert child("migrate", SHARED_REDIS_URL, clean_prefix, clean_url, "any", 0)[0] == 0
        expected = everything(clean_prefix, clean_url, reference)
        assert expected["layout"] == "1" and expected["closed"] == {} and len(expected["shoes"]) >= 12
        check(clean_prefix, clean_url, reference, {t: len(e) for t, e in reference.items()})
        rng = random.Random("redis-migrate")
        for trial in range(5):
            prefix, url = f"roads-test-{uuid.uuid4().hex[:12]}:", postgres_cluster.new_database()
            prefixes.append(prefix)
            urls.append(url)
            release_data(prefix, reference)
            kills = 0
            while True:
                code, _ = child("migrate", SHARED_REDIS_URL, prefix, url, "any", rng.randint(1, 250))
                if code == 0:
                    break
                kills += 1
            assert kills >= 1
            print(f"migration trial {trial}: {kills} kills")
            assert everything(prefix, url, reference) == expected
    finally:
        for p in prefixes:
            delete_prefix(SHARED_REDIS_URL, p)
        for u in urls:
            postgres_cluster.drop_database(u)
