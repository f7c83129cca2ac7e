"""kill -9 at random points of a shoe's close, of the compactor and of the v2 migration (a child
process writing the store, support.history_child, SIGKILLs itself as a random SQL statement
starts): nothing acknowledged is lost, nothing is doubled, every past shoe's document equals a
full replay of the events, and its summary equals a recomputation from its rounds."""

from __future__ import annotations
from support.all_shoes import all_shoes

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from roads.archive import archive, shoe_document
from roads.events import Event
from roads.table import Table
from support.history_child import plan
from web.stores import SqliteStore

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "release-v2" / "data"
SEED, TABLES, SHOES = 31, 3, 12
SPAN = {"close": 15, "compact": 25, "any": 300}
"""Kill points drawn among the first SPAN statements of the run: a few closes or compactions each."""


def child(*args: object) -> tuple[int, list[str]]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "tests"), str(ROOT)])}
    proc = subprocess.run([sys.executable, "-m", "support.history_child", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode in (0, -9), proc.stderr
    return proc.returncode, proc.stdout.split("\n")


def reference_events() -> dict[str, list[Event]]:
    """Every table's events as a reference table makes them from the same writes."""
    out = {}
    for i in range(TABLES):
        table_id = f"t{i}"
        ref = Table(table_id)
        events = []
        for at, w, seq in plan(SEED + i, table_id, SHOES):
            if seq is not None:
                ev = ref.decide(w, lambda: at)
                ref.apply(ev)
                events.append(ev)
        out[table_id] = events
    return out


def check(directory: Path, reference: dict[str, list[Event]], acked: dict[str, int]) -> dict[str, int]:
    """The store in ``directory`` holds a prefix of each table's reference events (every
    acknowledged one among them) exactly once, and rows that equal a replay of that prefix."""
    store = SqliteStore.in_dir(directory)
    try:
        db = store._db
        heads = {}
        for table_id, events in reference.items():
            logged = [r[0] for r in db.execute("SELECT seq FROM events WHERE table_id = ?", (table_id,))]
            detailed = []
            for shoe, blob in db.execute("SELECT shoe, detail FROM shoe_details WHERE table_id = ?", (table_id,)):
                from web.stores.codec import unpack_detail
                detailed += [e.seq for e in unpack_detail(table_id, shoe, blob)]
            assert not set(logged) & set(detailed), "an event both in the live log and a detail"
            assert len(detailed) == len(set(detailed)), "an event twice in the details"
            head = max(logged + detailed, default=0)
            assert sorted(logged + detailed) == list(range(1, head + 1)), "a gap"
            assert head >= acked.get(table_id, 0), "an acknowledged event is lost"
            heads[table_id] = head
            stored = [e for e in store.load() if e.table == table_id]
            assert stored == events[:head]
            full = Table.replay(table_id, events[:head])
            parts = {p.table: p for p in store.load_live()}
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


@pytest.mark.slow
@pytest.mark.parametrize("kill_in,kills", [("close", 12), ("compact", 12), ("any", 6)])
def test_kill_9_while_closing_shoes_and_compacting(tmp_path, kill_in, kills):
    reference = reference_events()
    rng = random.Random(f"kill:{kill_in}")
    acked: dict[str, int] = {}
    killed = 0
    for _ in range(kills + 20):
        code, out = child("write", tmp_path, SEED, TABLES, SHOES, kill_in, rng.randint(1, SPAN[kill_in]))
        for line in out:
            if line.startswith("ack "):
                _, table_id, seq = line.split()
                acked[table_id] = max(acked.get(table_id, 0), int(seq))
        check(tmp_path, reference, acked)
        if code == 0:
            assert "done" in out
            break
        killed += 1
        if killed >= kills:
            assert child("write", tmp_path, SEED, TABLES, SHOES, "any", 0)[0] == 0  # finish
            break
    assert killed >= kills // 2
    heads = check(tmp_path, reference, acked)
    assert heads == {t: len(e) for t, e in reference.items()}
    store = SqliteStore.in_dir(tmp_path)
    try:
        store.compact()  # what a kill left (a close whose compaction never ran, later edits)
        assert store.compact() == 0
        assert {r[0]: r[1] for r in store._db.execute("SELECT table_id, COUNT(DISTINCT shoe) FROM events GROUP BY 1")} \
            == {t: 1 for t in reference}  # only the live shoes stay in the live log
    finally:
        store.close()
    check(tmp_path, reference, acked)


def table_rows(path: Path) -> dict[str, list]:
    import sqlite3

    db = sqlite3.connect(path)
    try:
        return {name: db.execute(f"SELECT * FROM {name} ORDER BY 1, 2").fetchall()
                for name in ("events", "tables", "shoes", "shoe_docs", "shoe_details", "meta")}
    finally:
        db.close()


@pytest.mark.slow
def test_kill_9_during_the_v2_migration_resumes_to_the_same_file(tmp_path):
    clean = tmp_path / "clean"
    shutil.copytree(FIXTURE, clean)
    assert child("migrate", clean, "any", 0)[0] == 0
    expected = table_rows(clean / SqliteStore.FILENAME)
    assert expected["meta"] == [] and len(expected["shoes"]) == 7 and len(expected["shoe_details"]) == 8
    rng = random.Random("migrate")
    for trial in range(4):
        d = tmp_path / f"killed{trial}"
        shutil.copytree(FIXTURE, d)
        kills = 0
        while True:
            code, out = child("migrate", d, "any", rng.randint(1, 120))
            if code == 0:
                break
            kills += 1
        assert kills >= 1
        assert table_rows(d / SqliteStore.FILENAME) == expected
