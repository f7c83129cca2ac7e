"""A data directory written by the current release (schema v2: every event in one log) migrates by
itself on first open, and the migrated store yields exactly what that release served: every
table's snapshot, shoe list, past shoe's snapshot and rounds, and the lobby, byte for byte
(tests/fixtures/release-v2: make.py made it; expected/ holds the bytes the release served).

The bytes are built here from the restored tables with the record's own functions
(roads.snapshot.build_snapshot, ShoeRecord.summary, RoundRecord.export) and the stored shoe-list
lines as they are; the few keys the service's read model adds (``name``, ``live``, the live
shoe's ``state`` and ``in_progress``, the lobby entry) are added as it adds them (web/snapshots.py).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from roads.snapshot import build_snapshot
from roads.table import Table
from web.stores import SqliteStore

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "release-v2"
CONFIGURED = {"T3": {"name": "Table 3", "variant": "seed001"}}  # the release's ROADS_TABLES (README)
LOBBY_ORDER = ["T3", "T1", "T2"]  # configured tables first, then the others by id


def text(obj) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def expected(name: str) -> bytes:
    return (FIXTURE / "expected" / name).read_bytes()


def v2_events(path: Path) -> list[tuple]:
    db = sqlite3.connect(path)
    try:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 2
        return db.execute("SELECT table_id, seq, kind, shoe, round, data, at FROM events ORDER BY table_id, seq").fetchall()
    finally:
        db.close()


@pytest.fixture
def migrated(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(FIXTURE / "data", data)
    before = v2_events(data / SqliteStore.FILENAME)
    store = SqliteStore.in_dir(data)
    yield store, before
    store.close()


def live_snapshot(table: Table, name: str) -> dict:
    s = table.current
    snap = build_snapshot(table=table.id, shoe=s.number, version=table.seq, roads=s.roads, variant=s.variant)
    snap["name"], snap["live"] = name, True
    if s.in_progress is not None:
        snap["in_progress"] = s.in_progress.to_json()
    if not table.status.blank or table.limits is not None:
        snap["state"] = table.status.to_json(table.limits)
    return snap


def lobby_entry(table: Table, name: str, snap: dict) -> dict:
    v = table.current.variant
    entry = {"id": table.id, "name": name, "variant": {"id": v.id, "name": v.name}, "shoe": snap["shoe"],
             "round": snap["round"], "last": snap["last"], "good_roads": snap["good_roads"],
             "side_bets": snap["side_bets"], "version": table.seq, "big_road": snap["big_road"]}
    for key in ("in_progress", "state"):
        if key in snap:
            entry[key] = snap[key]
    return entry


def test_the_migrated_store_serves_the_releases_bytes(migrated):
    store, _ = migrated
    parts = {p.table: p for p in store.load_live()}
    assert sorted(parts) == ["T1", "T2", "T3"]
    entries = {}
    checked = 0
    for table_id, part in parts.items():
        cfg = CONFIGURED.get(table_id, {})
        name = cfg.get("name", table_id)
        table = Table.restore(part, variant_id=cfg.get("variant"), past=store.past_shoes(table_id))
        snap = live_snapshot(table, name)
        assert text(snap) == expected(f"{table_id}.json")
        entries[table_id] = lobby_entry(table, name, snap)
        # the shoe list: the stored lines as they are, then the live shoe's
        numbers = store.shoe_numbers(table_id)
        rows = {r.shoe: r.line for r in store.shoe_summaries(table_id, limit=1000)}
        lines = [rows[n].encode() for n in numbers] + [text(table.current.summary(True))]
        body = b'{"table":' + text(table_id) + b',"name":' + text(name) + b',"shoes":[' + b",".join(lines) + b"]}"
        assert body == expected(f"{table_id}_shoes.json")
        listed = [s["shoe"] for s in json.loads(expected(f"{table_id}_shoes.json"))["shoes"]]
        assert listed == numbers + [table.current.number]
        for n in numbers:  # past shoes: from their documents
            s = store.past_shoe(table_id, n)
            past = build_snapshot(table=table_id, shoe=n, version=s.version, roads=s.replay_roads(), variant=s.variant)
            past["name"], past["live"] = name, False
            assert text(past) == expected(f"{table_id}_shoe{n}.json")
            rounds = [r.export(n) for r in s.rounds]
            assert b'{"table":' + text(table_id) + b',"shoe":' + rows[n].encode() + b',"rounds":' + text(rounds) + b"}" \
                == expected(f"{table_id}_shoe{n}_rounds.json")
            checked += 1
        n = table.current.number
        assert text(snap) == expected(f"{table_id}_shoe{n}.json")
        assert text({"table": table_id, "shoe": table.current.summary(True),
                     "rounds": [r.export(n) for r in table.current.rounds]}) == expected(f"{table_id}_shoe{n}_rounds.json")
    version = sum(e["version"] for e in entries.values())
    assert b'{"version":%d,"tables":[' % version + b",".join(text(entries[t]) for t in LOBBY_ORDER) + b"]}" \
        == expected("api_tables.json")
    assert checked == len(list((FIXTURE / "expected").glob("*_rounds.json"))) - 3  # every past shoe


def test_migration_keeps_every_event_and_moves_closed_shoes_out_of_the_live_log(migrated):
    store, before = migrated
    assert [(e.table, e.seq, e.kind, e.shoe, e.round, e.data_json(), e.at) for e in store.load()] == before
    live = {p.table: p.live_shoe for p in store.load_live()}
    rows = store._db.execute("SELECT table_id, shoe FROM events").fetchall()
    assert {shoe for table, shoe in rows if shoe != live[table]} == set()
    assert len(rows) < len(before) / 5
    assert store._db.execute("SELECT COUNT(*) FROM meta").fetchone()[0] == 0
    assert store._db.execute("PRAGMA user_version").fetchone()[0] == 3


def test_opening_again_changes_nothing(migrated, tmp_path):
    store, _ = migrated
    dump = list(store._db.iterdump())
    store.close()
    again = SqliteStore.in_dir(tmp_path / "data")
    try:
        assert list(again._db.iterdump()) == dump
    finally:
        again.close()


def release_listing(table_id: str) -> list[bytes]:
    """The release's shoe-list lines of ``table_id`` (oldest first), as bytes: its body is exactly
    these lines in its envelope (checked), so comparing lines compares the release's bytes."""
    want = json.loads(expected(f"{table_id}_shoes.json"))
    lines = [text(s) for s in want["shoes"]]
    assert b'{"table":' + text(want["table"]) + b',"name":' + text(want["name"]) + b',"shoes":[' \
        + b",".join(lines) + b"]}" == expected(f"{table_id}_shoes.json")
    return lines


def test_the_service_serves_the_same_bytes_from_the_migrated_file(tmp_path, app_factory):
    """The service restores each table from its live part and reads past shoes from their
    documents and the shoe list from the stored lines: the release's bytes, the shoe list newest
    first a page at a time, each line the release's."""
    shutil.copytree(FIXTURE / "data", tmp_path / "data")
    app = app_factory("data", ROADS_TABLES=json.dumps(CONFIGURED))
    client = app.test_client()
    assert client.get("/api/tables").get_data() == expected("api_tables.json")
    for table_id in ("T1", "T2", "T3"):
        assert client.get(f"/api/tables/{table_id}").get_data() == expected(f"{table_id}.json")
        lines = release_listing(table_id)
        name = json.loads(expected(f"{table_id}_shoes.json"))["name"]
        head = b'{"table":' + text(table_id) + b',"name":' + text(name) + b',"shoes":['
        shoes = client.get(f"/api/tables/{table_id}/shoes")
        assert shoes.get_data() == head + b",".join(reversed(lines)) + b'],"next":null}'
        got, url = [], f"/api/tables/{table_id}/shoes?limit=1"  # one line a page, following "next"
        while url is not None:
            page = client.get(url)
            got += [text(s) for s in page.get_json()["shoes"]]
            assert page.get_data().startswith(head)
            url = page.get_json()["next"]
        assert got == lines[::-1]
        for s in shoes.get_json()["shoes"]:
            n = s["shoe"]
            assert client.get(f"/api/tables/{table_id}/shoes/{n}").get_data() == expected(f"{table_id}_shoe{n}.json")
            assert client.get(f"/api/tables/{table_id}/shoes/{n}/rounds").get_data() == \
                expected(f"{table_id}_shoe{n}_rounds.json")
