"""Board models pushed to pages (web/push/page_models.py, /ws/models/...): the first frame is the page's
whole document (its model JSON route's answer), then deltas that turn it into the next one; one
build per update for every screen with the same options; a new shoe is a whole frame; a lobby
change touches only that table's tile; errors as the snapshot sockets.

A real threaded Werkzeug server serves the test app; rounds go through the feed API. Expected
cells are worked by hand from the cards (docs/domain.md section 1), never read from the code.
"""

from __future__ import annotations

import copy
import json
import time

import pytest
import websocket

from support.serving import serve_app
from web.push.delta import apply as delta_apply, flatten
from web.extensions import get_push

ROUND_B = {"player": ["4S", "KD", "9H"], "banker": ["7C", "JD"]}  # Banker 7-3 (P 4+0 draws 9 -> 3)
ROUND_P_NATURAL = {"player": ["9C", "KH"], "banker": ["5D", "2S"]}  # Player natural 9 beats 7
ROUND_TIE = {"player": ["9D", "KC"], "banker": ["9S", "QH"]}  # natural 9 each: tie


@pytest.fixture
def server(app):
    with serve_app(app, "test-model-push") as srv:
        yield f"127.0.0.1:{srv.server_port}"


def post(client, auth, table, shoe, number, cards):
    resp = client.post(f"/api/tables/{table}/rounds", json={"shoe": shoe, "round": number, **cards}, headers=auth)
    assert resp.status_code == 201, resp.get_data(as_text=True)


def connect(server, path):
    return websocket.create_connection(f"ws://{server}{path}", timeout=10)


def frame(ws):
    while True:
        msg = json.loads(ws.recv())
        if msg["type"] != "keepalive":
            return msg


def beads(doc, orient="landscape"):
    road = next(r for r in doc["models"][orient]["roads"] if r["id"] == "bead_plate")
    return [(c["k"], c["c"]) for c in road["cells"]]


def test_table_page_gets_its_model_then_deltas_that_make_the_next_one(app, server, client, auth):
    post(client, auth, "T1", 1, 1, ROUND_B)
    ws = connect(server, "/ws/models/tables/T1?lang=th&orient=portrait")  # what a portrait table page subscribes to
    try:
        first = frame(ws)
        assert first["type"] == "snapshot" and first["topic"].startswith("model:")
        assert first["data"] == client.get("/tables/T1/model.json?lang=th&orient=portrait").get_json()
        assert list(first["data"]["models"]) == ["portrait"]  # the orientation it shows, not both
        assert beads(first["data"], "portrait") == [(1, "banker")]
        post(client, auth, "T1", 1, 2, ROUND_P_NATURAL)
        delta = frame(ws)
        assert delta["type"] == "delta" and delta["base"] == first["version"] and delta["version"] == first["version"] + 1
        doc = delta_apply(copy.deepcopy(first["data"]), delta["ops"])
        assert doc == client.get("/tables/T1/model.json?lang=th&orient=portrait").get_json()
        assert beads(doc, "portrait") == [(1, "banker"), (2, "player")]
        size = lambda m: len(json.dumps(m, ensure_ascii=False).encode())  # noqa: E731 (bytes on the wire)
        assert size(delta) < size(first) / 2  # the changed parts, not the board (round 2: little board yet)
    finally:
        ws.close()


def test_only_the_orientations_screens_show_are_built(app, server, client, auth):
    post(client, auth, "T1", 1, 1, ROUND_B)
    live = get_push(app).page_models
    client.get("/tables/T1")  # the page registers both orientation topics, its screen follows one
    ws = connect(server, "/ws/models/tables/T1?orient=landscape")
    try:
        frame(ws)
        before = live.builds
        post(client, auth, "T1", 1, 2, ROUND_TIE)
        assert frame(ws)["type"] == "delta"
        time.sleep(0.3)  # the worker would have built the portrait topic by now, were it watched
        assert live.builds - before == 1
    finally:
        ws.close()


def test_screens_with_the_same_options_share_one_build_per_update(app, server, client, auth):
    post(client, auth, "T1", 1, 1, ROUND_B)
    live = get_push(app).page_models
    a, b = connect(server, "/ws/models/tables/T1"), connect(server, "/ws/models/tables/T1")
    th = connect(server, "/ws/models/tables/T1?lang=th")
    try:
        firsts = [frame(ws) for ws in (a, b, th)]
        assert firsts[0]["topic"] == firsts[1]["topic"] != firsts[2]["topic"]
        before = live.builds
        post(client, auth, "T1", 1, 2, ROUND_TIE)
        got = [frame(ws) for ws in (a, b, th)]
        assert got[0] == got[1] and got[0]["type"] == got[2]["type"] == "delta"
        assert live.builds - before == 2  # one per set of options, whatever the number of screens
    finally:
        for ws in (a, b, th):
            ws.close()


def test_a_new_shoe_is_a_whole_document(app, server, client, auth):
    post(client, auth, "T1", 1, 1, ROUND_B)
    ws = connect(server, "/ws/models/tables/T1")
    try:
        frame(ws)
        post(client, auth, "T1", 2, 1, ROUND_P_NATURAL)
        msg = frame(ws)
        assert msg["type"] == "snapshot" and msg["data"]["shoe"] == 2
        assert beads(msg["data"]) == [(1, "player")]
    finally:
        ws.close()


def test_a_round_changes_only_its_own_tile_of_the_lobby(app, server, client, auth):
    post(client, auth, "T1", 1, 1, ROUND_B)
    post(client, auth, "T2", 1, 1, ROUND_B)
    ws = connect(server, "/ws/models/lobby?per_page=1&rotate_s=0")
    try:
        first = frame(ws)
        pages = first["data"]["pages"]
        assert [[t["id"] for p in pages[o] for t in p["tiles"]] for o in ("landscape", "portrait")] == [["T1", "T2"]] * 2
        post(client, auth, "T2", 1, 2, ROUND_P_NATURAL)
        delta = frame(ws)
        assert delta["type"] == "delta"
        for op in flatten(delta["ops"]):
            path = op[1]
            if op[0] == "m" and set(op[2]) <= {"version", "now"}:
                continue  # the document's version, and the server clock each model carries
            assert path[0] == "pages" and path[2] == 1, op  # page 2 holds T2
        doc = delta_apply(copy.deepcopy(first["data"]), delta["ops"])
        assert doc == client.get("/lobby/model.json?per_page=1&rotate_s=0").get_json()
    finally:
        ws.close()


def test_a_topic_nobody_watches_is_built_when_next_asked_for(app, client, auth):
    post(client, auth, "T1", 1, 1, ROUND_B)
    live = get_push(app).page_models
    assert beads(client.get("/tables/T1/model.json?orient=landscape").get_json()) == [(1, "banker")]
    builds = live.builds
    post(client, auth, "T1", 1, 2, ROUND_P_NATURAL)
    post(client, auth, "T1", 1, 3, ROUND_TIE)
    assert live.builds == builds  # no socket: nothing rebuilt
    assert beads(client.get("/tables/T1/model.json?orient=landscape").get_json()) == [(1, "banker"), (2, "player"), (3, "tie")]
    assert live.builds == builds + 1
    client.get("/tables/T1/model.json")  # both orientations: the portrait topic is built too
    assert live.builds == builds + 2


@pytest.mark.parametrize("path, status, code, close", [
    ("/ws/models/tables/NOPE", 404, "unknown_table", 4404),
    ("/ws/models/embed/NOPE", 404, "unknown_table", 4404),
    ("/ws/models/screens/nowhere", 404, "unknown_screen", 4404),
    ("/ws/models/tables/T1?theme=pink", 400, "bad_parameter", 1008),
    ("/ws/models/lobby?per_page=99", 400, "bad_parameter", 1008),
])
def test_bad_model_sockets_get_an_error_frame_then_close(app, server, client, auth, path, status, code, close):
    post(client, auth, "T1", 1, 1, ROUND_B)
    ws = connect(server, path)
    try:
        msg = json.loads(ws.recv())
        assert msg["type"] == "error" and (msg["error"]["status"], msg["error"]["code"]) == (status, code)
        opcode, data = ws.recv_data(control_frame=True)
        assert opcode == websocket.ABNF.OPCODE_CLOSE and int.from_bytes(data[:2], "big") == close
    finally:
        ws.close()


def test_a_delta_frame_carries_the_servers_time_of_every_model_it_changes(app, server, client, auth):
    """The page corrects its countdown's clock from each model's "now" (static/js/paint.js,
    observeClock): a delta changes it with the rest, so it stays the build time between full frames."""
    import time

    post(client, auth, "T1", 1, 1, ROUND_B)
    ws = connect(server, "/ws/models/tables/T1")
    try:
        doc = frame(ws)["data"]
        before = time.time()
        resp = client.post("/api/tables/T1/state", json={"state": "betting", "seconds_left": 15}, headers=auth)
        assert resp.status_code == 201
        msg = frame(ws)
        after = time.time()
        assert msg["type"] == "delta"
        assert json.dumps(msg["ops"]).count('"now"') == 2   # one per orientation, in the delta itself
        doc = delta_apply(copy.deepcopy(doc), msg["ops"])
        nows = [doc["models"][o]["now"] for o in ("landscape", "portrait")]
        assert all(before - 0.001 <= t <= after + 0.001 for t in nows), (before, nows, after)
    finally:
        ws.close()


def test_a_feed_write_builds_its_tables_page_models_before_it_answers(app, server, client, auth):
    """The table's watched page models are rebuilt in the feed request itself, after the write
    is durable (Service.write): when the POST has answered, the model topic already
    holds the new version, so no screen waits for a worker that takes its turn later. The
    lobby's models stay with the worker."""
    post(client, auth, "T1", 1, 1, ROUND_B)
    ws = connect(server, "/ws/models/tables/T1?orient=landscape")
    try:
        first = frame(ws)
        hub, live = app.extensions["roads.service"].hub, get_push(app).page_models
        builds = live.builds
        for number, cards in ((2, ROUND_P_NATURAL), (3, ROUND_TIE)):
            post(client, auth, "T1", 1, number, cards)
            assert hub.latest(first["topic"]).version == first["version"] + number - 1  # at once, no waiting
            msg = frame(ws)
            assert (msg["type"], msg["version"]) == ("delta", first["version"] + number - 1)
        assert live.builds == builds + 2  # one build per write for the one watched page model
        assert live._worker is None  # built by the feed requests: the models' worker never started
    finally:
        ws.close()
