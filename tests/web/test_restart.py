"""Restarts rebuild every table exactly; a server killed with SIGKILL mid-stream keeps every
acknowledged round and nothing else."""

from __future__ import annotations

import http.client
import json
import signal
import threading
import time
from pathlib import Path

import pytest

from support.feed import FEED_TOKEN, Feed, dealt_rounds, make_app
from support.serving import ServeProcess
from web.service import get_service


def everything(client):
    """Every read-API answer of every table and shoe, as raw bytes."""
    out = {"/api/tables": client.get("/api/tables").data}
    for t in client.get("/api/tables").json["tables"]:
        base = f"/api/tables/{t['id']}"
        out[base] = client.get(base).data
        out[base + "/shoes"] = client.get(base + "/shoes").data
        for s in client.get(base + "/shoes").json["shoes"]:
            for suffix in ("", "/rounds"):
                url = f"{base}/shoes/{s['shoe']}{suffix}"
                out[url] = client.get(url).data
    return out


def test_restart_rebuilds_identical_roads_counters_versions_and_records(tmp_path):
    data = tmp_path / "data"
    tables = {"T1": {"name": "Table 1"}, "idle": {"name": "Idle", "variant": "seed002"}}
    app = make_app(data, ROADS_TABLES=tables)
    client = app.test_client()
    t1, t2 = Feed(client, "T1"), Feed(client, "T2")
    t1.shoe(1, burn=["5H", "KD", "2C", "9S", "4D", "QH"], cut_card_position=30)
    for n, (p, b) in enumerate(dealt_rounds(25, seed=1), 1):
        assert t1.round(1, n, p, b).status_code == 201
    t1.void(1, 7, "misdeal")
    t1.correct(1, 9, {"player": ["9C", "KH"], "banker": ["5D", "2S"], "reason": "misread"})
    for n, (p, b) in enumerate(dealt_rounds(10, seed=2), 1):
        assert t1.round(2, n, p, b).status_code == 201
    t1.void(1, 3, "late audit")  # a past shoe changes too
    result = {"winner": "T", "player_total": 4, "banker_total": 4, "player_pair": False, "banker_pair": False,
              "natural": False}
    t2.round(1, 1, result=result)
    for n, (p, b) in enumerate(dealt_rounds(5, seed=3), 2):
        t2.round(1, n, p, b)
    before = everything(client)
    hub = get_service(app).hub
    published = {topic: hub.latest(topic) for topic in ("lobby", "table:T1", "table:T2", "table:idle")}
    assert published["table:T1"].version == 1 + 25 + 2 + 10 + 1
    get_service(app).close()

    again = make_app(data, ROADS_TABLES=tables)
    try:
        assert everything(again.test_client()) == before
        hub2 = get_service(again).hub
        assert {topic: hub2.latest(topic) for topic in published} == published
        # and it goes on from where it was
        feed = Feed(again.test_client(), "T1")
        p, b = dealt_rounds(11, seed=2)[10]
        resp = feed.round(2, 11, p, b)
        assert resp.status_code == 201 and resp.json["version"] == published["table:T1"].version + 1
    finally:
        get_service(again).close()


# ----------------------------------------------------------------------------- SIGKILL
class Server(ServeProcess):
    """``python -m web.cli serve`` on a free loopback port on the SQLite store, in a subprocess."""

    def __init__(self, data_dir: Path) -> None:
        super().__init__(data_dir, {"ROADS_REDIS_URL": None})

    def connection(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)

    def get(self, path: str) -> tuple[int, dict]:
        conn = self.connection()
        try:
            conn.request("GET", path)
            resp = conn.getresponse()
            return resp.status, json.loads(resp.read())
        finally:
            conn.close()


def stream():
    """Feed messages for two tables, interleaved: (table, body) with full shoes of 60 rounds."""
    messages = []
    per_table = {t: [(s, n, p, b) for s in (1, 2) for n, (p, b) in enumerate(dealt_rounds(60, seed=s * 7 + i), 1)]
                 for i, t in enumerate(("K1", "K2"))}
    for a, b in zip(per_table["K1"], per_table["K2"]):
        for table, (shoe, n, p, bk) in (("K1", a), ("K2", b)):
            messages.append((table, {"shoe": shoe, "round": n, "player": p, "banker": bk}))
    return messages


@pytest.mark.slow
def test_sigkill_during_a_stream_loses_no_acknowledged_round_and_invents_none(tmp_path):
    data = tmp_path / "data"
    messages = stream()
    server = Server(data)
    acked: list[int] = []
    in_flight: list[int] = []
    kill_after = 70
    killed = threading.Event()

    def killer():
        deadline = time.monotonic() + 30
        while len(acked) < kill_after and time.monotonic() < deadline:
            time.sleep(0.001)
        server.proc.send_signal(signal.SIGKILL)
        killed.set()

    threading.Thread(target=killer, daemon=True).start()
    conn = server.connection()
    headers = {"Authorization": f"Bearer {FEED_TOKEN}", "Content-Type": "application/json"}
    try:
        for i, (table, body) in enumerate(messages):
            in_flight[:] = [i]
            try:
                conn.request("POST", f"/api/tables/{table}/rounds", body=json.dumps(body), headers=headers)
                resp = conn.getresponse()
                resp.read()
            except (OSError, http.client.HTTPException):
                break
            assert resp.status == 201, (i, resp.status)
            acked.append(i)
            in_flight.clear()
    finally:
        conn.close()
    assert killed.wait(10)
    server.kill()
    assert kill_after <= len(acked) < len(messages)

    server = Server(data)
    try:
        stored: list[tuple[str, dict]] = []
        status, tables = server.get("/api/tables")
        assert status == 200
        for t in tables["tables"]:
            _, shoes = server.get(f"/api/tables/{t['id']}/shoes")
            for s in shoes["shoes"]:
                _, export = server.get(f"/api/tables/{t['id']}/shoes/{s['shoe']}/rounds")
                stored += [(t["id"], r["feed"]) for r in export["rounds"]]
            # the table's version is its number of stored events: one per stored round here
            assert t["version"] == sum(1 for table, _ in stored if table == t["id"])
        sent = {i: messages[i] for i in acked + in_flight}
        # every acknowledged round is there, exactly as sent
        for i in acked:
            assert messages[i] in stored, f"acknowledged round lost: {messages[i]}"
        # and nothing else: at most the one round in flight when the server died
        unexpected = [m for m in stored if m not in sent.values()]
        assert unexpected == []
        assert len(stored) in (len(acked), len(acked) + len(in_flight))
        # the feed resumes: the round in flight is accepted again (or is a no-op repeat)
        conn = server.connection()
        try:
            for i in range(len(acked), min(len(acked) + 4, len(messages))):
                table, body = messages[i]
                conn.request("POST", f"/api/tables/{table}/rounds", body=json.dumps(body), headers=headers)
                resp = conn.getresponse()
                resp.read()
                assert resp.status in (200, 201)
        finally:
            conn.close()
    finally:
        server.kill()
