"""Multi-table page models (lobby, named screens, the good-roads screen) are rebuilt at most
MULTI_TABLE_BUILDS_PER_S times a second each, and always once after the last write (trailing
edge); a write after a quiet spell is built at once (leading edge); per-table models are built
on every write (web/push/page_models.py).

The bound on builds follows from the pacing alone: builds of one model start at least
1/MULTI_TABLE_BUILDS_PER_S apart, and one starts after the last write only if a write came after
the previous start, so a burst lasting D seconds makes at most ceil(D * rate) + 1 builds however
slow or fast the machine is. The expected documents are built afresh from the read model, never
taken from the pushed frames.
"""

from __future__ import annotations

import copy
import json
import math
import time

import pytest
import websocket

from support.feed import dealt_rounds
from support.serving import serve_app
from web.extensions import get_push
from web.push import page_models
from web.push.delta import apply as delta_apply

RATE = 5  # the brief's figure, checked against the module's constant below


@pytest.fixture
def server(app):
    with serve_app(app, "test-model-coalesce") as srv:
        yield f"127.0.0.1:{srv.server_port}"


def frame(ws):
    while True:
        msg = json.loads(ws.recv())
        if msg["type"] != "keepalive":
            return msg


def cards(dealt):
    """The round body's cards of one of :func:`support.feed.dealt_rounds`."""
    return {"player": dealt[0], "banker": dealt[1]}


def without_now(doc):
    """``doc`` without the build-time clock every model carries (``now``: seconds, differs per build)."""
    if isinstance(doc, dict):
        return {k: without_now(v) for k, v in doc.items() if k != "now"}
    if isinstance(doc, list):
        return [without_now(v) for v in doc]
    return doc


def follow(ws, doc, version, until):
    """Apply frames from ``ws`` to ``doc`` (at ``version``) until ``until(doc)`` or 10 s pass;
    returns ``(doc, version)``."""
    deadline = time.monotonic() + 10
    ws.settimeout(0.5)
    while not until(doc) and time.monotonic() < deadline:
        try:
            msg = frame(ws)
        except websocket.WebSocketTimeoutException:
            continue
        if msg["type"] == "delta":
            assert msg["base"] == version
            doc = delta_apply(copy.deepcopy(doc), msg["ops"])
        else:
            doc = msg["data"]
        version = msg["version"]
    return doc, version


def fresh(app, topic):
    """The document of ``topic``'s spec built now from the read model (not the hub's)."""
    live = get_push(app).page_models
    return live.documents.build(live._specs[topic])


def test_the_constants_say_five_builds_a_second():
    assert page_models.MULTI_TABLE_BUILDS_PER_S == RATE
    assert page_models.MULTI_TABLE_INTERVAL_S == pytest.approx(1 / RATE)


@pytest.mark.parametrize("path", ["/ws/models/lobby?per_page=4&rotate_s=0", "/ws/models/screens/good-roads"])
def test_a_burst_of_writes_makes_few_builds_and_ends_equal_to_a_fresh_build(app, server, client, auth, path):
    tables = [f"T{n}" for n in range(1, 13)]
    rounds = dealt_rounds(8, seed=3)
    for table in tables:  # every table exists before the screen connects
        r = client.post(f"/api/tables/{table}/rounds", json={"shoe": 1, "round": 1, **cards(rounds[0])}, headers=auth)
        assert r.status_code == 201
    ws = websocket.create_connection(f"ws://{server}{path}", timeout=10)
    try:
        first = frame(ws)
        topic, live = first["topic"], get_push(app).page_models
        builds = live.builds
        start = time.monotonic()
        for number in range(2, 9):  # 7 rounds on each of 12 tables, interleaved: 84 writes
            for table in tables:
                r = client.post(f"/api/tables/{table}/rounds", json={"shoe": 1, "round": number, **cards(rounds[number - 1])},
                                headers=auth)
                assert r.status_code == 201
        duration = time.monotonic() - start
        expected = without_now(fresh(app, topic))
        doc, _ = follow(ws, first["data"], first["version"], lambda d: without_now(d) == expected)
        assert without_now(doc) == expected  # the last write is on the screen
        time.sleep(2 * page_models.MULTI_TABLE_INTERVAL_S)  # no build still pending after that
        made = live.builds - builds
        assert 1 <= made <= math.ceil(duration * RATE) + 1, (made, duration)
        assert without_now(live.hub.latest(topic).document) == expected
    finally:
        ws.close()


def test_the_lobby_screen_ends_showing_every_tables_last_round(app, server, client, auth):
    """Independent of the document builder: the tiles' round numbers after a burst are the
    rounds posted."""
    rounds = dealt_rounds(5, seed=5)
    tables = ["A1", "A2", "A3"]
    for table in tables:
        client.post(f"/api/tables/{table}/rounds", json={"shoe": 1, "round": 1, **cards(rounds[0])}, headers=auth)
    ws = websocket.create_connection(f"ws://{server}/ws/models/lobby?per_page=3&rotate_s=0", timeout=10)
    try:
        first = frame(ws)
        last = {"A1": 5, "A2": 3, "A3": 4}
        for number in range(2, 6):
            for table in tables:
                if number <= last[table]:
                    client.post(f"/api/tables/{table}/rounds", json={"shoe": 1, "round": number, **cards(rounds[number - 1])},
                                headers=auth)
        want = sum(last.values())  # the lobby's version: the sum of its tables' versions (one per round here)
        doc, _ = follow(ws, first["data"], first["version"], lambda d: d["version"] == want)
        assert doc["version"] == want
    finally:
        ws.close()


def test_a_single_write_after_a_quiet_spell_is_built_at_once(app, server, client, auth):
    rounds = dealt_rounds(2, seed=7)
    client.post("/api/tables/T1/rounds", json={"shoe": 1, "round": 1, **cards(rounds[0])}, headers=auth)
    ws = websocket.create_connection(f"ws://{server}/ws/models/lobby?rotate_s=0", timeout=10)
    try:
        first = frame(ws)
        topic, live = first["topic"], get_push(app).page_models
        time.sleep(page_models.MULTI_TABLE_INTERVAL_S)  # the quiet spell: the connection's build is old enough
        with live._lock:
            assert live.due(topic) <= live.clock()  # the next write is not held back
        written = live.clock()
        client.post("/api/tables/T1/rounds", json={"shoe": 1, "round": 2, **cards(rounds[1])}, headers=auth)
        msg = frame(ws)
        assert msg["type"] == "delta" and msg["version"] == first["version"] + 1
        # The pacer did not delay it: its build started well within the interval (250 ms, the brief's bound).
        assert live._started[topic] - written < 0.25
    finally:
        ws.close()


def test_per_table_models_are_built_on_every_write(app, server, client, auth):
    rounds = dealt_rounds(4, seed=9)
    client.post("/api/tables/T1/rounds", json={"shoe": 1, "round": 1, **cards(rounds[0])}, headers=auth)
    ws = websocket.create_connection(f"ws://{server}/ws/models/tables/T1?orient=landscape", timeout=10)
    try:
        first = frame(ws)
        live = get_push(app).page_models
        builds = live.builds
        for number in (2, 3, 4):
            client.post("/api/tables/T1/rounds", json={"shoe": 1, "round": number, **cards(rounds[number - 1])}, headers=auth)
            assert live.hub.latest(first["topic"]).version == first["version"] + number - 1  # no pacing
        assert live.builds == builds + 3
        with live._lock:
            assert live.due(first["topic"]) == 0.0
    finally:
        ws.close()


def test_the_tile_cache_keeps_every_tile_of_a_large_lobby_and_drops_the_least_recently_used(monkeypatch):
    """A lobby build touches every shown table's tile in both orientations (600 at 300 tables):
    the cache must hold them all (a cache that emptied itself when full missed on nearly every
    tile), and once full it drops the tile asked for least recently."""
    from web.push import documents

    built = []
    monkeypatch.setattr(documents, "tile_model", lambda snap, opts, **kw: built.append(snap["table"]) or {"t": snap["table"]})
    opts = documents.ModelSpec(page="lobby", table=None, lang="en", theme="dark", bead="result", patterns=()).options(
        "tile", (1920, 1080))
    cache = documents.TileCache()
    snaps = [{"table": f"t{i:03d}", "shoe": 1, "version": 5} for i in range(300)]
    for _ in range(2):  # two builds of one lobby: every tile asked for twice in each (600 look-ups)
        for snap in snaps + snaps:
            cache(snap, opts, None, False, "UTC")
    assert len(built) == 300  # each tile built once
    assert documents.TILE_CACHE_SIZE >= 3 * 600  # three sets of screen options at 300 tables

    small = documents.TileCache(size=3)
    for name in ("a", "b", "c"):
        small({"table": name, "shoe": 1, "version": 1}, opts, None, False, "UTC")
    small({"table": "a", "shoe": 1, "version": 1}, opts, None, False, "UTC")  # a: recently used again
    small({"table": "d", "shoe": 1, "version": 1}, opts, None, False, "UTC")  # full: b goes
    built.clear()
    for name in ("a", "c", "d", "b"):
        small({"table": name, "shoe": 1, "version": 1}, opts, None, False, "UTC")
    assert built == ["b"]
