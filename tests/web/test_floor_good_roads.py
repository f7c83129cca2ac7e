"""Good roads across the floor (``GET /api/good-roads``, topic ``good-roads`` on ``/ws/good-roads``,
``/frames/good-roads``) and the operator's patterns (``ROADS_GOOD_ROAD_PATTERNS``) end to end.

Expected values are worked by hand from the big road of the posted results (docs/domain.md
section 4) and the pattern definitions (roads/good_roads.py, docs/patterns.md); the delta a
live client gets is applied with ``web.push.delta.apply`` and compared with the next document."""

from __future__ import annotations

import json

import pytest
import websocket

from support.feed import Feed
from support.serving import serve_app
from web.push.delta import apply
from web.settings import ConfigError

B = {"winner": "B", "player_total": 3, "banker_total": 7, "player_pair": False, "banker_pair": False, "natural": False}
P = {**B, "winner": "P", "player_total": 7, "banker_total": 3}
PATTERNS = {
    "banker_3": {"pattern": "streak B >= 3", "names": {"en": "Banker three", "zh": "庄三连", "th": "แบงเกอร์สามตา"},
                 "priority": 5},
    "zigzag": {"pattern": "alternation >= 3", "names": {"en": "Zigzag"}, "priority": 95, "highlight": False},
}


def post(feed, table, seq, start=1):
    for i, w in enumerate(seq, start):
        resp = feed.round(1, i, result=B if w == "B" else P, table=table)
        assert resp.status_code == 201, resp.get_data(as_text=True)


@pytest.fixture
def floor(app_factory):
    app = app_factory(ROADS_GOOD_ROAD_PATTERNS=json.dumps(PATTERNS))
    return app, app.test_client(), Feed(app.test_client())


def test_the_floor_lists_tables_with_a_good_road_by_priority(floor):
    _, client, feed = floor
    post(feed, "T1", "BBBB")  # one column of 4 Banker: long_banker (10) and banker_3 (5)
    post(feed, "T2", "BP")  # columns [1, 1]: nothing (ping pong needs 4, zigzag 3 changes)
    post(feed, "T3", "PBPB")  # columns [1, 1, 1, 1]: ping_pong 4, two equal pairs (side by side 2), 3 changes
    body = client.get("/api/good-roads").json
    assert [t["id"] for t in body["tables"]] == ["T1", "T3"]
    t1, t3 = body["tables"]
    assert t1["top"] == "banker_3"
    assert [(g["pattern"], g["length"], g["threshold"]) for g in t1["good_roads"]] == [
        ("banker_3", 4, 3), ("long_banker", 4, 4)]
    assert t3["top"] == "ping_pong"
    assert [(g["pattern"], g["length"]) for g in t3["good_roads"]] == [("ping_pong", 4), ("side_by_side", 2),
                                                                      ("zigzag", 3)]
    assert body["with_good_road"] == 2
    assert {k: v for k, v in body["counts"].items() if v} == {"banker_3": 1, "long_banker": 1, "ping_pong": 1,
                                                                "side_by_side": 1, "zigzag": 1}
    assert [p["id"] for p in body["patterns"]][:3] == ["banker_3", "long_banker", "long_player"]
    assert body["patterns"][-1] == {"id": "zigzag", "label": "Zigzag", "priority": 95}
    assert list(body["counts"]) == [p["id"] for p in body["patterns"]]
    # ETag: the same version answers 304
    etag = client.get("/api/good-roads").headers["ETag"]
    assert client.get("/api/good-roads", headers={"If-None-Match": etag}).status_code == 304


def test_a_write_that_changes_no_good_road_publishes_nothing(floor):
    app, client, feed = floor
    topic = app.extensions["roads.service"].read.good_roads
    post(feed, "T1", "BBBB")
    before = topic.publishes
    post(feed, "T2", "BP")  # T2 (new table) rebuilds, but its document is the same
    post(feed, "T2", "B", start=3)  # [1, 2]: no pattern
    assert topic.publishes == before
    post(feed, "T1", "B", start=5)  # long_banker 5: a change
    assert topic.publishes == before + 1
    assert client.get("/api/good-roads").json["tables"][0]["good_roads"][0]["length"] == 5
    post(feed, "T1", "P", start=6)  # Banker column ends: T1 leaves the list
    assert client.get("/api/good-roads").json["tables"] == []


def test_the_live_topic_sends_deltas_onto_the_document(floor):
    app, client, feed = floor
    post(feed, "T1", "BBB")
    with serve_app(app, "test-floor") as srv:
        ws = websocket.create_connection(f"ws://127.0.0.1:{srv.server_port}/ws/good-roads", timeout=10)
        try:
            first = json.loads(ws.recv())
            assert first["type"] == "snapshot" and first["topic"] == "good-roads"
            doc = first["data"]
            assert [t["top"] for t in doc["tables"]] == ["banker_3"]
            post(feed, "T1", "B", start=4)
            frame = json.loads(ws.recv())
            assert frame["type"] == "delta" and frame["base"] == first["version"]
            doc = apply(doc, frame["ops"])
            assert doc == client.get("/api/good-roads").json
            assert [g["pattern"] for g in doc["tables"][0]["good_roads"]] == ["banker_3", "long_banker"]
        finally:
            ws.close()
    frame = client.get("/frames/good-roads").json
    assert frame["type"] == "snapshot" and frame["data"] == client.get("/api/good-roads").json


def test_custom_names_per_language_reach_the_boards(floor):
    _, client, feed = floor
    post(feed, "T1", "BBB")
    model = client.get("/tables/T1/model.json?lang=zh").get_data(as_text=True)
    assert "庄三连" in json.dumps(json.loads(model), ensure_ascii=False)
    model = client.get("/tables/T1/model.json?lang=vi").get_data(as_text=True)  # no Vietnamese name: English
    assert "Banker three" in json.dumps(json.loads(model), ensure_ascii=False)
    assert client.get("/tables/T1?good=zigzag").status_code == 200
    bad = client.get("/tables/T1?good=nope")
    assert bad.status_code == 400 and bad.json["error"]["field"] == "good"


@pytest.mark.parametrize("patterns,words", [
    ({"b": {"pattern": "streak Q >= 3", "names": {"en": "B"}}},
     ['ROADS_GOOD_ROAD_PATTERNS["b"].pattern', "position 8", 'expected a side ("B", "P" or "any")']),
    ({"b": {"pattern": "columns 1,2,", "names": {"en": "B"}}},
     ['ROADS_GOOD_ROAD_PATTERNS["b"].pattern', "position 13", "expected a whole number from 1 to 99"]),
    ({"b": {"pattern": "streak B >= 3", "names": {"xx": "B"}}}, ['ROADS_GOOD_ROAD_PATTERNS["b"].names', "'xx'"]),
    ({"ping_pong": {"pattern": "streak B >= 3", "names": {"en": "B"}}}, ["'ping_pong'", "built-in"]),
])
def test_a_bad_pattern_is_a_clear_startup_error(app_factory, patterns, words):
    with pytest.raises(ConfigError) as e:
        app_factory(ROADS_GOOD_ROAD_PATTERNS=json.dumps(patterns))
    for w in words:
        assert w in str(e.value)


def test_without_custom_patterns_the_floor_has_the_built_ins(client, feed):
    post(feed, "T1", "PPPP")
    body = client.get("/api/good-roads").json
    assert [p["id"] for p in body["patterns"]] == ["long_banker", "long_player", "ping_pong", "double_jump",
                                                   "one_banker_two_player", "two_banker_one_player", "banker_jump",
                                                   "player_jump", "side_by_side"]
    assert [p["priority"] for p in body["patterns"]] == [10, 20, 30, 40, 50, 60, 70, 80, 90]
    assert body["tables"][0]["top"] == "long_player"


def test_the_topic_kept_in_place_equals_the_floor_read_afresh():
    # random lobby entries written one table at a time (lobby order t0..t9, a new table now and
    # then): after every write the document equals the one computed from every entry afresh
    import random

    from web.push import topics
    from web.push.floor_good_roads import GoodRoadsTopic
    from web.push.hub import Hub

    patterns = [{"id": p, "label": p, "priority": 10 * (i + 1)} for i, p in enumerate("abcd")]
    hub = Hub()
    topic = GoodRoadsTopic(hub, patterns)
    rng = random.Random(7)
    entries: dict[str, dict] = {}
    versions: dict[str, int] = {}
    layout = 0

    def rows():
        return [(t, versions[t], entries[t]) for t in sorted(entries)]

    for step in range(600):
        t = f"t{rng.randrange(10)}"
        if t not in entries:
            layout += 1  # a new table changes the lobby order
        versions[t] = versions.get(t, 0) + 1
        good = [{"pattern": p, "label": p, "length": rng.randint(1, 9), "threshold": 1}
                for p in "abcd" if rng.random() < 0.2]
        entries[t] = {"id": t, "name": t.upper(), "shoe": 1, "good_roads": good}
        topic.update(layout, t, versions[t], entries[t], rows)
        doc = hub.latest(topics.GOOD_ROADS).document
        shown = [entries[x] for x in sorted(entries) if entries[x]["good_roads"]]
        assert [x["id"] for x in doc["tables"]] == [x["id"] for x in shown], step
        assert [x["good_roads"] for x in doc["tables"]] == [x["good_roads"] for x in shown]
        assert [x["top"] for x in doc["tables"]] == [x["good_roads"][0]["pattern"] for x in shown]
        assert doc["counts"] == {p: sum(1 for x in shown for g in x["good_roads"] if g["pattern"] == p) for p in "abcd"}
        assert doc["with_good_road"] == len(shown)


def _title_words(model):
    return [i["t"] for p in model["panels"] if p.get("id") == "title" for i in p["items"] if "t" in i]


def test_lobby_filters_tiles_and_counts_good_roads_in_its_header(floor):
    _, client, feed = floor
    post(feed, "T1", "BBBB")  # banker_3, long_banker
    post(feed, "T2", "BP")  # nothing
    post(feed, "T3", "PBPB")  # ping_pong, side_by_side, zigzag (not highlighted)
    post(feed, "T4", "PPB")  # [2, 1]: nothing
    page = client.get("/lobby/model.json?page=1&orient=landscape").json["models"]["landscape"]
    assert [t["id"] for t in page["tiles"]] == ["T1", "T2", "T3", "T4"]
    # highlighted by default: long_banker, long_player, ping_pong (ROADS_GOOD_ROADS) and banker_3
    assert _title_words(page) == ["Tables", "Good roads: 2"]
    page = client.get("/lobby/model.json?page=1&orient=landscape&good_road=any&lang=zh").json["models"]["landscape"]
    assert [t["id"] for t in page["tiles"]] == ["T1", "T3"]
    assert _title_words(page) == ["当前好路", "好路：2 桌"]
    page = client.get("/lobby/model.json?page=1&orient=landscape&good_road=zigzag").json["models"]["landscape"]
    assert [t["id"] for t in page["tiles"]] == ["T3"]
    assert _title_words(page)[0] == "Good roads now"
    page = client.get("/screens/good-roads/model.json?page=1&orient=portrait").json["models"]["portrait"]
    assert [t["id"] for t in page["tiles"]] == ["T1", "T3"]
    assert client.get("/good-roads").status_code == 200
    png = client.get("/good-roads.png?w=1080&h=1920")
    assert png.status_code == 200 and png.headers["Content-Type"] == "image/png"
    bad = client.get("/lobby?good_road=nope")
    assert bad.status_code == 400 and bad.json["error"]["field"] == "good_road"
    assert client.get("/lobby.png?good_road=long_banker,nope").json["error"]["field"] == "good_road"


def test_one_badge_when_space_is_short_is_the_highest_priority_pattern():
    from web.render import panels

    names = ["Banker three 4", "Long Banker 4"]
    wide = [i["t"] for i in panels.badges(0, 2000, 20, names, "en", 24) if "t" in i]
    assert wide == names
    pill = round(24 * 1.6)  # a badge is its words plus half a pill height each side (docs/frontend.md)
    room = panels.prims.width("Banker three 4", 24, "en") + pill + 5
    narrow = [i["t"] for i in panels.badges(0, room, 20, names, "en", 24) if "t" in i]
    assert narrow == ["Banker three 4"]  # the second no longer fits
    bare = [i["t"] for i in panels.badges(0, room - 10, 20, names, "en", 24) if "t" in i]
    assert bare == ["Banker three"]  # its length goes first
    tiny = [i["t"] for i in panels.badges(0, 120, 20, names, "en", 24) if "t" in i]
    assert len(tiny) == 1 and tiny[0].startswith("Bank") and tiny[0].endswith("…")  # never dropped: cut


def test_the_floor_survives_a_restart_with_the_same_figures(tmp_path):
    from support.feed import close_app, make_app

    settings = {"ROADS_GOOD_ROAD_PATTERNS": json.dumps(PATTERNS)}
    app = make_app(tmp_path / "data", **settings)
    try:
        feed = Feed(app.test_client())
        post(feed, "T1", "BBBB")
        post(feed, "T2", "PBPB")
        before = app.test_client().get("/api/good-roads").json
    finally:
        close_app(app)
    again = make_app(tmp_path / "data", **settings)
    try:
        after = again.test_client().get("/api/good-roads").json
    finally:
        close_app(again)
    assert after == before and [t["top"] for t in after["tables"]] == ["banker_3", "ping_pong"]
