"""A page model that cannot be built never freezes a screen (web/push/page_models.py; issue 21):
the failure is logged with the table and topic (once per LOG_EVERY_S per topic), counted in
``GET /api/health``, the screen gets its last good model marked ``held`` (the page shows a "Not
updating since" band over its dimmed board), and the next change that builds recovers it.

The model build is made to fail by a painter that raises as Pillow's text measuring did for a
dealer name holding a carriage return (``OSError: raqm_layout() failed``). A real threaded
Werkzeug server serves the app; rounds go through the feed API. Expected cells are worked by
hand from the cards (docs/domain.md section 1).
"""

from __future__ import annotations

import copy
import json
import logging
import time

import pytest
import requests
import websocket

from support.openapi_check import unchecked
from support.serving import serve_app
from test_browser import browser, open_page, playwright, shot  # noqa: F401 (fixtures)
from web.push import documents
from web.push.delta import apply as delta_apply

ROUND_B = {"player": ["4S", "KD", "9H"], "banker": ["7C", "JD"]}  # Banker 7-3 (P 4+0 draws 9 -> 3)
ROUND_P_NATURAL = {"player": ["9C", "KH"], "banker": ["5D", "2S"]}  # Player natural 9 beats 7
ROUND_TIE = {"player": ["9D", "KC"], "banker": ["9S", "QH"]}  # natural 9 each: tie

HELD_TEXT = "Not updating since {time}"


@pytest.fixture
def server(app):
    with serve_app(app, "test-model-held") as srv:
        yield f"127.0.0.1:{srv.server_port}"


@pytest.fixture
def broken(monkeypatch):
    """``broken["board"]`` / ``broken["lobby"]`` true: painting a board / a lobby page raises."""
    state = {"board": False, "lobby": False}
    board_model, lobby_model = documents.board_model, documents.lobby_model

    def board(*args, **kwargs):
        if state["board"]:
            raise OSError("raqm_layout() failed")
        return board_model(*args, **kwargs)

    def lobby(*args, **kwargs):
        if state["lobby"]:
            raise OSError("raqm_layout() failed")
        return lobby_model(*args, **kwargs)

    monkeypatch.setattr(documents, "board_model", board)
    monkeypatch.setattr(documents, "lobby_model", lobby)
    return state


def post(client, auth, number, cards, table="T1"):
    resp = client.post(f"/api/tables/{table}/rounds", json={"shoe": 1, "round": number, **cards}, headers=auth)
    assert resp.status_code == 201, resp.get_data(as_text=True)


def frame(ws):
    while True:
        msg = json.loads(ws.recv())
        if msg["type"] != "keepalive":
            return msg


def beads(doc):
    road = next(r for r in doc["models"]["landscape"]["roads"] if r["id"] == "bead_plate")
    return [(c["k"], c["c"]) for c in road["cells"]]


def failure_lines(caplog):
    return [r.getMessage() for r in caplog.records if r.name == "web.push.page_models" and r.levelno == logging.ERROR]


def test_a_table_model_that_cannot_be_built_is_held_marked_counted_logged_and_recovers(
        app, server, client, auth, broken, caplog):
    post(client, auth, 1, ROUND_B)
    ws = websocket.create_connection(f"ws://{server}/ws/models/tables/T1?orient=landscape", timeout=10)
    try:
        first = frame(ws)
        good, topic = first["data"], first["topic"]
        assert beads(good) == [(1, "banker")] and "held" not in good
        assert client.get("/api/health").get_json() == {
            "status": "ok", "page_models": {"topics": 1, "builds": 1, "failed_builds": 0, "failing": []}, "nchan": None}

        broken["board"] = True
        caplog.set_level(logging.ERROR, logger="web.push.page_models")
        before = time.time()
        post(client, auth, 2, ROUND_P_NATURAL)
        msg = frame(ws)
        assert (msg["type"], msg["base"], msg["version"]) == ("delta", first["version"], first["version"] + 1)
        held = delta_apply(copy.deepcopy(good), msg["ops"])
        assert before - 0.01 <= held["held"]["since"] <= time.time()
        assert held == {**good, "held": {"since": held["held"]["since"], "text": HELD_TEXT}}  # the last good model
        assert client.get("/tables/T1/model.json?orient=landscape").get_json() == held
        [line] = failure_lines(caplog)
        assert "table T1" in line and topic in line and "raqm_layout() failed" in line
        health = client.get("/api/health").get_json()
        assert health["status"] == "degraded"
        assert health["page_models"]["failed_builds"] == 1
        assert [{k: v for k, v in f.items() if k != "since"} for f in health["page_models"]["failing"]] == [
            {"topic": topic, "shows": "table T1", "failed_builds": 1}]

        post(client, auth, 3, ROUND_TIE)  # still failing: counted, not logged again, no new frame
        ws.settimeout(0.5)
        with pytest.raises(websocket.WebSocketTimeoutException):
            frame(ws)
        ws.settimeout(10)
        assert len(failure_lines(caplog)) == 1
        health = client.get("/api/health").get_json()
        assert health["page_models"]["failed_builds"] == 2 and health["page_models"]["failing"][0]["failed_builds"] == 2

        broken["board"] = False  # the next change builds: the screen is live again, with every round
        post(client, auth, 4, ROUND_B)
        msg = frame(ws)
        assert (msg["type"], msg["base"], msg["version"]) == ("delta", first["version"] + 1, first["version"] + 3)
        doc = delta_apply(copy.deepcopy(held), msg["ops"])
        assert "held" not in doc
        assert beads(doc) == [(1, "banker"), (2, "player"), (3, "tie"), (4, "banker")]
        assert doc == client.get("/tables/T1/model.json?orient=landscape").get_json()
        health = client.get("/api/health").get_json()
        assert (health["status"], health["page_models"]["failed_builds"], health["page_models"]["failing"]) == (
            "ok", 2, [])
    finally:
        ws.close()


def test_a_lobby_model_built_by_the_worker_is_held_too_and_recovers(app, server, client, auth, broken):
    post(client, auth, 1, ROUND_B)
    ws = websocket.create_connection(f"ws://{server}/ws/models/lobby?lang=th", timeout=10)
    try:
        first = frame(ws)
        broken["lobby"] = True
        post(client, auth, 1, ROUND_P_NATURAL, table="T2")
        msg = frame(ws)
        held = delta_apply(copy.deepcopy(first["data"]), msg["ops"])
        assert held == {**first["data"], "held": {"since": held["held"]["since"], "text": "ไม่อัปเดตตั้งแต่ {time}"}}
        failing = client.get("/api/health").get_json()["page_models"]["failing"]
        assert [(f["topic"], f["shows"]) for f in failing] == [(first["topic"], "lobby")]
        broken["lobby"] = False
        post(client, auth, 2, ROUND_TIE, table="T2")
        doc = delta_apply(copy.deepcopy(held), frame(ws)["ops"])
        assert "held" not in doc
        assert [t["id"] for t in doc["pages"]["landscape"][0]["tiles"]] == ["T1", "T2"]
        assert client.get("/api/health").get_json()["status"] == "ok"
    finally:
        ws.close()


def test_a_page_whose_first_model_cannot_be_built_fails_and_is_counted(app, client, auth, broken):
    app.config["PROPAGATE_EXCEPTIONS"] = False  # answer as in production
    post(client, auth, 1, ROUND_B)
    broken["board"] = True
    with unchecked():  # a forced renderer failure: the 500 no operation documents
        assert client.get("/tables/T1/model.json?orient=portrait").status_code == 500
    health = client.get("/api/health").get_json()
    assert health["status"] == "degraded" and health["page_models"]["failed_builds"] == 1
    broken["board"] = False
    assert beads_of(client.get("/tables/T1/model.json?orient=portrait").get_json()) == [(1, "banker")]


def beads_of(doc):
    road = next(r for r in doc["models"]["portrait"]["roads"] if r["id"] == "bead_plate")
    return [(c["k"], c["c"]) for c in road["cells"]]


def test_the_health_answer_has_its_documented_shape(app, client, auth, broken):
    import jsonschema

    from web.http.openapi import document

    doc = document()
    check = jsonschema.Draft202012Validator({"$ref": "#/components/schemas/Health", "components": doc["components"]})
    post(client, auth, 1, ROUND_B)
    client.get("/tables/T1/model.json?orient=landscape")
    broken["board"] = True
    post(client, auth, 2, ROUND_TIE)
    client.get("/tables/T1/model.json?orient=landscape")  # asked again: built, fails, held
    body = client.get("/api/health").get_json()
    assert body["page_models"]["failing"][0]["shows"] == "table T1"
    check.validate(body)
    with pytest.raises(jsonschema.ValidationError):
        check.validate({**body, "status": "fine"})


@pytest.mark.browser
@pytest.mark.slow
def test_the_page_shows_the_not_updating_band_and_drops_it_when_the_model_builds_again(app, auth, broken, browser):
    """In Chromium: a table page whose model cannot be rebuilt keeps its board, dimmed, with a
    band "Not updating since hh:mm:ss" (the venue time of the first failure; not the offline
    band), and the next good model clears it and paints the new rounds."""
    client = app.test_client()
    post(client, auth, 1, ROUND_B)
    with serve_app(app, "test-model-held-browser") as srv:
        base = f"http://127.0.0.1:{srv.server_port}"
        page = open_page(browser, base + "/tables/T1")
        broken["board"] = True
        requests.post(f"{base}/api/tables/T1/rounds", headers=auth, timeout=10,
                      json={"shoe": 1, "round": 2, **ROUND_P_NATURAL}).raise_for_status()
        page.wait_for_function("document.documentElement.classList.contains('held')", timeout=10_000)
        text = page.evaluate("document.querySelector('svg .held-text').textContent")
        assert text.startswith("Not updating since ") and len(text.split()[-1]) == 8
        assert page.evaluate("getComputedStyle(document.querySelector('svg .held-band')).display") == "inline"
        assert page.evaluate("getComputedStyle(document.querySelector('svg .offline-band')).display") == "none"
        assert page.evaluate("getComputedStyle(document.querySelector('svg .model')).opacity") == "0.35"
        assert page.evaluate("document.querySelectorAll('[data-road=bead_plate] [data-k]').length") == 1
        shot(page, "board_not_updating.png")
        broken["board"] = False
        requests.post(f"{base}/api/tables/T1/rounds", headers=auth, timeout=10,
                      json={"shoe": 1, "round": 3, **ROUND_TIE}).raise_for_status()
        page.wait_for_function("!document.documentElement.classList.contains('held')", timeout=10_000)
        assert page.evaluate("getComputedStyle(document.querySelector('svg .held-band')).display") == "none"
        assert page.evaluate("getComputedStyle(document.querySelector('svg .model')).opacity") == "1"
        assert page.evaluate("document.querySelectorAll('[data-road=bead_plate] [data-k]').length") == 3
        assert page.js_errors == []  # type: ignore[attr-defined]
        page.close()
