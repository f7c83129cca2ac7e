"""WebSocket push (web/http/ws.py): full snapshot on connect, every newer version after it,
latest-only for slow clients, keepalives, errors in the one error shape.

A real threaded Werkzeug server on 127.0.0.1 serves the test app; rounds go through the
real feed API; clients are ``websocket-client``, or :class:`support.websocket.RawClient` for
screens that read slowly, get stuck or vanish. Only what a client sees is checked, never the
socket module's internals. Every wait is bounded by a socket timeout; nothing asserts how
fast anything is (bench/bench_ws_latency.py measures that).
"""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest
import websocket

from support.feed import close_app, dealt_rounds, make_app
from support.serving import recv_snapshot, serve_app
from support.websocket import RawClient
from web.push.hub import Hub
from web.service import get_service
from web.settings import get_settings

ROUND_B = {"player": ["4S", "KD", "9H"], "banker": ["7C", "JD"]}  # Banker 7-3 (P 4+0 draws 9 -> 3)
ROUND_P_NATURAL = {"player": ["9C", "KH"], "banker": ["5D", "2S"]}  # Player natural 9 beats 7
ROUND_TIE = {"player": ["9D", "KC"], "banker": ["9S", "QH"]}  # natural 9 each: tie

RECV_TIMEOUT_S = 10
CLOSE_UNKNOWN_TABLE = 4404  # docs/frontend.md "Live updates"
MAX_CLIENT_FRAMES = 64  # docs/frontend.md: more client frames than this between two checks close the connection


@pytest.fixture
def server(app):
    """The app served by a threaded Werkzeug server on a free loopback port; yields ``host:port``."""
    with serve_app(app, "test-ws-server") as srv:
        yield f"127.0.0.1:{srv.server_port}"


def post_round(client, auth, table, shoe, number, cards):
    resp = client.post(f"/api/tables/{table}/rounds", json={"shoe": shoe, "round": number, **cards}, headers=auth)
    assert resp.status_code == 201, resp.get_data(as_text=True)


def connect(server, path):
    return websocket.create_connection(f"ws://{server}{path}", timeout=RECV_TIMEOUT_S)


def recv_json(ws):
    return json.loads(ws.recv())


def test_connect_sends_the_full_current_snapshot_first(server, client, auth):
    post_round(client, auth, "T1", 1, 1, ROUND_B)
    ws = connect(server, "/ws/tables/T1")
    try:
        msg = recv_snapshot(ws)
        assert msg["type"] == "snapshot"
        assert msg["topic"] == "table:T1"
        assert msg["data"] == client.get("/api/tables/T1").get_json()
        assert msg["version"] == msg["data"]["version"]
        assert (msg["data"]["last"]["winner"], msg["data"]["last"]["banker_total"], msg["data"]["last"]["player_total"]) == ("B", 7, 3)
    finally:
        ws.close()


def test_each_round_posted_to_the_feed_is_pushed_with_the_next_version(server, client, auth):
    post_round(client, auth, "T1", 1, 1, ROUND_B)
    ws = connect(server, "/ws/tables/T1")
    try:
        first = recv_snapshot(ws)
        post_round(client, auth, "T1", 1, 2, ROUND_P_NATURAL)
        second = recv_snapshot(ws)
        assert second["version"] == first["version"] + 1
        assert second["data"]["round"] == 2
        # Hand-worked: B then P -> two big-road columns; bead plate goes down column 0.
        assert [(c["x"], c["y"]) for c in second["data"]["big_road"]["cells"]] == [(0, 0), (1, 0)]
        assert [(b["x"], b["y"]) for b in second["data"]["bead_plate"]] == [(0, 0), (0, 1)]
        post_round(client, auth, "T1", 1, 3, ROUND_TIE)
        third = recv_snapshot(ws)
        assert third["version"] == first["version"] + 2
        assert third["data"]["big_road"]["columns"][1][0]["ties"] == 1  # the tie sits on the last cell
    finally:
        ws.close()


def test_a_new_shoe_is_pushed_with_its_shoe_number(server, client, auth):
    post_round(client, auth, "T1", 1, 1, ROUND_B)
    post_round(client, auth, "T1", 1, 2, ROUND_B)
    ws = connect(server, "/ws/tables/T1")
    try:
        assert recv_snapshot(ws)["data"]["shoe"] == 1
        post_round(client, auth, "T1", 2, 1, ROUND_P_NATURAL)
        msg = recv_snapshot(ws)
        assert (msg["data"]["shoe"], msg["data"]["round"]) == (2, 1)
        assert [(c["x"], c["y"]) for c in msg["data"]["big_road"]["cells"]] == [(0, 0)]
    finally:
        ws.close()


def test_void_and_correction_are_pushed(server, client, auth):
    post_round(client, auth, "T1", 1, 1, ROUND_B)
    post_round(client, auth, "T1", 1, 2, ROUND_P_NATURAL)
    ws = connect(server, "/ws/tables/T1")
    try:
        first = recv_snapshot(ws)
        assert [c["x"] for c in first["data"]["big_road"]["cells"]] == [0, 1]
        resp = client.put("/api/tables/T1/shoes/1/rounds/2", json=ROUND_B, headers=auth)
        assert resp.status_code in (200, 201), resp.get_data(as_text=True)
        corrected = recv_snapshot(ws)
        assert corrected["version"] == first["version"] + 1
        # Round 2 is now a second Banker: it goes down the first column.
        assert [(c["x"], c["y"]) for c in corrected["data"]["big_road"]["cells"]] == [(0, 0), (0, 1)]
        resp = client.post("/api/tables/T1/shoes/1/rounds/2/void", json={"reason": "misdeal"}, headers=auth)
        assert resp.status_code in (200, 201), resp.get_data(as_text=True)
        voided = recv_snapshot(ws)
        assert voided["version"] == first["version"] + 2
        assert [(c["x"], c["y"]) for c in voided["data"]["big_road"]["cells"]] == [(0, 0)]
        assert [b["round"] for b in voided["data"]["bead_plate"]] == [1]
    finally:
        ws.close()


def test_unknown_table_gets_an_error_frame_then_close_4404(server):
    ws = connect(server, "/ws/tables/NOPE")
    try:
        msg = recv_json(ws)
        assert msg["type"] == "error"
        assert msg["error"]["status"] == 404
        assert msg["error"]["code"] == "unknown_table"
        assert "'NOPE'" in msg["error"]["message"]
        opcode, data = ws.recv_data(control_frame=True)
        assert opcode == websocket.ABNF.OPCODE_CLOSE
        assert int.from_bytes(data[:2], "big") == CLOSE_UNKNOWN_TABLE
    finally:
        ws.close()


def test_lobby_socket_pushes_the_table_list_and_new_tables(server, client, auth):
    post_round(client, auth, "T1", 1, 1, ROUND_B)
    ws = connect(server, "/ws/lobby")
    try:
        first = recv_snapshot(ws)
        assert first["topic"] == "lobby"
        assert first["data"] == client.get("/api/tables").get_json()["tables"]
        assert [t["id"] for t in first["data"]] == ["T1"]
        post_round(client, auth, "T2", 1, 1, ROUND_P_NATURAL)
        msg = recv_snapshot(ws)
        assert sorted(t["id"] for t in msg["data"]) == ["T1", "T2"]
        assert msg["version"] > first["version"]
        t2 = next(t for t in msg["data"] if t["id"] == "T2")
        assert (t2["last"]["winner"], t2["last"]["natural"]) == ("P", True)
    finally:
        ws.close()


def test_idle_connection_gets_keepalives_with_the_current_version(app, server, client, auth):
    get_settings(app).ws_keepalive_s = 0.2
    post_round(client, auth, "T1", 1, 1, ROUND_B)
    ws = connect(server, "/ws/tables/T1")
    try:
        first = recv_snapshot(ws)
        ka = recv_json(ws)
        assert ka == {"type": "keepalive", "topic": "table:T1", "version": first["version"]}
    finally:
        ws.close()


def test_a_screen_that_gets_a_frame_every_round_gets_no_keepalives(app, server, client, auth):
    """Keepalives count from the last frame written, also one the fan-out wrote straight to the
    socket: rounds every 0.1 s with a 0.4 s keepalive give only deltas; once idle, a keepalive
    (regression: 2,000 busy screens got 100 needless keepalive frames a second)."""
    get_settings(app).ws_keepalive_s = 0.4
    rounds = dealt_rounds(15, seed=14)
    client.post("/api/tables/T1/rounds", json={"shoe": 1, "round": 1, "player": rounds[0][0], "banker": rounds[0][1]},
                headers=auth)
    ws = connect(server, "/ws/tables/T1")
    try:
        first = recv_snapshot(ws)
        kinds = []
        for number in range(2, 16):  # 1.4 s of rounds: 3 keepalive periods
            time.sleep(0.1)
            player, banker = rounds[number - 1]
            resp = client.post("/api/tables/T1/rounds", json={"shoe": 1, "round": number, "player": player,
                                                              "banker": banker}, headers=auth)
            assert resp.status_code == 201, resp.get_data(as_text=True)
            msg = recv_json(ws)
            kinds.append((msg["type"], msg["version"]))
        assert kinds == [("delta", first["version"] + i) for i in range(1, 15)]
        idle = time.monotonic()
        assert recv_json(ws) == {"type": "keepalive", "topic": "table:T1", "version": first["version"] + 14}
        assert 0.3 <= time.monotonic() - idle < 2.0
    finally:
        ws.close()


def test_a_client_that_floods_the_server_is_closed_1008(app, server, client, auth):
    get_settings(app).ws_keepalive_s = 0.2
    post_round(client, auth, "T1", 1, 1, ROUND_B)
    ws = connect(server, "/ws/tables/T1")
    try:
        recv_json(ws)
        for _ in range(MAX_CLIENT_FRAMES + 10):
            ws.send("hello")
        for _ in range(50):
            opcode, data = ws.recv_data(control_frame=True)
            if opcode == websocket.ABNF.OPCODE_CLOSE:
                assert int.from_bytes(data[:2], "big") == 1008
                break
        else:
            raise AssertionError("not closed")
    finally:
        ws.close()


def test_client_messages_within_the_limit_are_ignored(app, server, client, auth):
    get_settings(app).ws_keepalive_s = 0.2
    post_round(client, auth, "T1", 1, 1, ROUND_B)
    ws = connect(server, "/ws/tables/T1")
    try:
        first = recv_snapshot(ws)
        ws.send('{"type":"resync"}')
        post_round(client, auth, "T1", 1, 2, ROUND_B)
        assert recv_snapshot(ws)["version"] == first["version"] + 1
    finally:
        ws.close()


# ------------------------------------------------------------------ slow, stuck and vanished screens
# The server's accepted sockets get a small send buffer and RawClient a small receive buffer,
# so a frame of a few megabytes cannot be written whole until the client reads: a stuck screen.
# Test messages are published on the hub (what the service does for every write) at versions
# far above anything the service publishes itself.
V = 1_000_000


def big_payload(version: int) -> bytes:
    """A snapshot-like payload far larger than the socket buffers (a client reading nothing blocks it)."""
    return json.dumps({"version": version, "pad": "x" * 1_000_000}).encode()


@pytest.fixture
def slow_server(app_factory):
    """``(host:port, hub)`` of a served app whose sockets send through an 8 KiB buffer; no
    protocol pings and no keepalives (a screen that reads nothing is not closed for it)."""
    app = app_factory(ROADS_WS_PING_S=0, ROADS_WS_KEEPALIVE_S=60)
    with serve_app(app, "test-ws-slow") as srv:
        srv.socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8192)  # accepted sockets inherit it
        yield f"127.0.0.1:{srv.server_port}", get_service(app).hub


def wait_for_threads(before: set, timeout: float) -> set:
    """Wait (bounded) until every live thread is one of ``before``; returns the extra ones left."""
    deadline = time.monotonic() + timeout
    while (extra := set(threading.enumerate()) - before) and time.monotonic() < deadline:
        time.sleep(0.05)
    return extra


def test_a_slow_client_skips_to_the_newest_version_and_holds_up_no_one(slow_server):
    server, hub = slow_server
    hub.publish("lobby", V + 1, big_payload(V + 1))
    slow = RawClient(server, "/ws/lobby")
    fast = connect(server, "/ws/lobby")
    try:
        assert slow.peek(16)  # the server began writing version V+1 to the slow screen: it is stuck there
        assert recv_snapshot(fast)["version"] == V + 1
        for version in range(V + 2, V + 11):  # publishing never waits for the stuck client
            hub.publish("lobby", version, big_payload(version))
        seen = [recv_snapshot(fast)["version"]]
        while seen[-1] != V + 10:
            seen.append(recv_snapshot(fast)["version"])
        assert seen == sorted(set(seen))  # the fast screen got the newest while the slow one was stuck
        # After version V+1 the slow client gets V+10 at once: nothing queued in between.
        frames = slow.messages(2)
        assert [m["version"] for m in frames] == [V + 1, V + 10]
        assert frames[1]["data"]["version"] == V + 10
        assert slow.silent_for(0.3)
    finally:
        fast.close()
        slow.close()


def test_a_reading_client_gets_each_new_version_once(slow_server):
    server, hub = slow_server
    hub.publish("lobby", V + 1, b'{"round":1}')
    client = RawClient(server, "/ws/lobby")
    try:
        assert client.messages(1) == [{"type": "snapshot", "topic": "lobby", "version": V + 1, "data": {"round": 1}}]
        hub.publish("lobby", V + 2, b'{"round":2}')  # a client at the previous version gets the delta
        assert client.messages(1) == [{"type": "delta", "topic": "lobby", "base": V + 1, "version": V + 2,
                                       "ops": [["m", [], {"round": 2}]]}]
        hub.publish("lobby", V + 2, b'{"round":2}')  # the same version again: nothing sent
        assert client.silent_for(0.3)
    finally:
        client.close()


def test_every_client_of_a_topic_gets_the_same_frame_with_the_payload_as_published(slow_server):
    server, hub = slow_server
    payload = '{"name": "ไทย",  "round": 1}'.encode()  # spacing and Thai kept: inserted as is, not re-encoded
    hub.publish("lobby", V + 1, payload)
    a, b = RawClient(server, "/ws/lobby"), RawClient(server, "/ws/lobby")
    try:
        expected = '{"type":"snapshot","topic":"lobby","version":%d,"data":%s}' % (V + 1, payload.decode())
        assert a.texts(1) == b.texts(1) == [expected.encode()]
        assert json.loads(expected)["data"] == {"name": "ไทย", "round": 1}
        hub.publish("lobby", V + 2, b"[]")
        assert [json.loads(t)["version"] for t in a.texts(1) + b.texts(1)] == [V + 2, V + 2]
    finally:
        a.close()
        b.close()


def test_a_table_socket_frame_names_its_own_topic(server, client, auth):
    post_round(client, auth, "T1", 1, 1, ROUND_B)
    table = RawClient(server, "/ws/tables/T1")
    lobby = RawClient(server, "/ws/lobby")
    try:
        t, lob = table.messages(1)[0], lobby.messages(1)[0]
        assert (t["topic"], lob["topic"]) == ("table:T1", "lobby")
        assert t["data"] == client.get("/api/tables/T1").get_json()
    finally:
        table.close()
        lobby.close()


def test_a_table_nothing_was_pushed_for_yet_starts_with_its_current_snapshot(app_factory):
    app = app_factory(ROADS_TABLES={"T9": {"name": "Nine"}})  # configured, no round yet
    with serve_app(app, "test-ws-fresh") as srv:
        server = f"127.0.0.1:{srv.server_port}"
        client = app.test_client()
        for path, api in (("/ws/tables/T9", "/api/tables/T9"), ("/ws/lobby", "/api/tables")):
            ws = connect(server, path)
            try:
                msg = recv_json(ws)
                expected = client.get(api).get_json()
                assert msg["type"] == "snapshot"
                assert msg["data"] == (expected if path != "/ws/lobby" else expected["tables"])
                assert msg["version"] == expected["version"]
            finally:
                ws.close()


def test_a_closed_connection_frees_its_threads(slow_server):
    server, hub = slow_server
    hub.publish("lobby", V + 1, b"{}")
    before = set(threading.enumerate())
    ws = connect(server, "/ws/lobby")
    assert recv_json(ws)["version"] == V + 1
    ws.close()
    # A closed connection frees its thread within 1 s (docs/frontend.md), the topic's fan-out
    # thread ends after its last viewer left.
    assert not wait_for_threads(before, 3 + RECV_TIMEOUT_S)


def test_a_screen_that_vanishes_mid_frame_frees_its_threads_and_holds_up_no_one(slow_server):
    server, hub = slow_server
    hub.publish("lobby", V + 1, b"{}")
    before = set(threading.enumerate())
    gone = RawClient(server, "/ws/lobby")
    other = RawClient(server, "/ws/lobby")
    try:
        assert gone.messages(1)[0]["version"] == other.messages(1)[0]["version"] == V + 1
        hub.publish("lobby", V + 2, big_payload(V + 2))
        assert gone.peek(16)  # half of version V+2 is on its way
        gone.abort()
        for version in range(V + 3, V + 6):  # later versions find a broken pipe
            hub.publish("lobby", version, big_payload(version))
        versions = [m["version"] for m in other.messages(1)]
        while versions[-1] != V + 5:
            versions += [m["version"] for m in other.messages(1)]
        assert versions == sorted(set(versions))
    finally:
        other.close()
    assert not wait_for_threads(before, 3 + RECV_TIMEOUT_S)


def test_a_protocol_ping_waits_for_a_begun_frame_and_the_newest_version_still_wins(app_factory):
    """simple-websocket writes its pings to the same socket: a ping that comes due while a
    snapshot frame is half written goes out after it, never inside it; meanwhile newer versions
    replace each other, and the screen gets only the newest after the frame it was stuck on."""
    ping_s = 0.5
    app = app_factory(ROADS_WS_PING_S=ping_s, ROADS_WS_KEEPALIVE_S=60)
    with serve_app(app, "test-ws-ping-turn") as srv:
        srv.socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8192)
        hub = get_service(app).hub
        hub.publish("lobby", V + 1, big_payload(V + 1))
        client = RawClient(f"127.0.0.1:{srv.server_port}", "/ws/lobby")
        try:
            assert client.peek(16)  # the server began writing version V+1 and is stuck in it
            hub.publish("lobby", V + 2, big_payload(V + 2))
            hub.publish("lobby", V + 3, big_payload(V + 3))
            time.sleep(ping_s + 0.25)  # a ping comes due while version V+1 is half written
            frames = client.messages(2)  # every frame read is checked whole (RawClient)
            assert [m["version"] for m in frames] == [V + 1, V + 3]
            deadline = time.monotonic() + RECV_TIMEOUT_S
            while not client.pings and time.monotonic() < deadline:
                assert client.frame()[0] != 0x8, "closed"
            assert client.pings >= 1
        finally:
            client.close()


def test_plain_http_get_on_a_socket_route_is_refused(client):
    resp = client.get("/ws/tables/T1", headers={"Accept": "application/json"})
    assert resp.status_code == 400
    assert resp.get_json()["error"]["status"] == 400


def test_settings_come_from_the_environment_and_bad_ones_are_refused(tmp_path, monkeypatch):
    from web import create_app
    from web.settings import ConfigError

    base = {"TESTING": True, "ROADS_FEED_TOKEN": "t"}
    monkeypatch.setenv("ROADS_WS_KEEPALIVE_S", "7.5")
    monkeypatch.setenv("ROADS_WS_PING_S", "0")
    app = create_app({**base, "ROADS_DATA_DIR": str(tmp_path / "a")})
    try:
        assert app.config["ROADS_WS_KEEPALIVE_S"] == 7.5
        assert app.config["SOCK_SERVER_OPTIONS"]["ping_interval"] is None
        assert app.config["SOCK_SERVER_OPTIONS"]["max_message_size"] == 4096
    finally:
        close_app(app)
    monkeypatch.setenv("ROADS_WS_KEEPALIVE_S", "soon")
    with pytest.raises(ConfigError, match=r"ROADS_WS_KEEPALIVE_S must be a number, got 'soon'"):
        create_app({**base, "ROADS_DATA_DIR": str(tmp_path / "b")})
    with pytest.raises(ConfigError, match=r"ROADS_WS_PING_S must be between 0 and 3600, got -1"):
        create_app({**base, "ROADS_DATA_DIR": str(tmp_path / "c"), "ROADS_WS_KEEPALIVE_S": 5, "ROADS_WS_PING_S": -1})


# ------------------------------------------------------------------ one writer per socket at a time
class FrameChecker(RawClient):
    """A raw WebSocket client that reads slowly through a tiny receive buffer and checks every
    byte it gets (:class:`support.websocket.RawClient`): each server frame must be a whole,
    final, unmasked text, ping or close frame whose text is one of our JSON frames. Answers
    pings (masked pongs), as a browser does."""

    def __init__(self, server: str, path: str, rcvbuf: int = 4096) -> None:
        super().__init__(server, path, rcvbuf=rcvbuf)
        self.versions: list[int] = []
        self.keepalives = 0

    def read(self, deadline: float, chunk: int = 8192, pause_s: float = 0.0005) -> None:
        """Read and check frames until the server closes or ``deadline`` (time.monotonic())."""
        while time.monotonic() < deadline:
            while (frame := self._frame()) is not None:
                opcode, payload = frame
                self._handle(frame)  # answers a ping, notes a close code
                if opcode == 0x8:
                    return
                if opcode == 0x1:
                    msg = json.loads(payload.decode("utf-8"))  # a byte from another frame breaks this
                    assert msg["type"] in ("snapshot", "delta", "keepalive"), msg
                    if msg["type"] in ("snapshot", "delta"):
                        if msg["type"] == "snapshot":
                            assert msg["data"]["version"] == msg["version"], "payload of another version"
                        else:  # every version changes the whole pad: the delta is as big
                            assert msg["ops"] == [["m", [], {"version": msg["version"],
                                                             "pad": str(msg["version"] % 10) * 100_000}]]
                        assert not self.versions or msg["version"] > self.versions[-1]
                        self.versions.append(msg["version"])
                    else:
                        self.keepalives += 1
            try:
                data = self.sock.recv(chunk)
            except (ConnectionResetError, TimeoutError):
                return
            if not data:
                return
            self.buf += data
            time.sleep(pause_s)


def test_protocol_pings_never_land_inside_a_snapshot_frame_of_a_slow_client(tmp_path):
    """Regression: offer() and the handler thread wrote snapshot frames to the raw socket while
    simple-websocket wrote pings (and pongs, close frames, keepalives) to the same socket from
    its own thread; a ping sent while a big frame was half written landed inside it."""
    app = make_app(tmp_path / "data", ROADS_WS_PING_S=0.05, ROADS_WS_KEEPALIVE_S=0.05)
    try:
        with serve_app(app, "test-ws-server-pings") as srv:
            srv.socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8192)  # accepted sockets inherit it
            server = f"127.0.0.1:{srv.server_port}"
            hub: Hub = get_service(app).hub
            topic = "lobby"
            stop = threading.Event()

            def publish() -> None:  # big frames, fast, with short idle gaps so keepalives go out too
                version = 1_000_000
                while not stop.is_set():
                    for _ in range(20):
                        version += 1
                        hub.publish(topic, version, json.dumps({"version": version, "pad": str(version % 10) * 100_000}).encode())
                        time.sleep(0.002)
                    time.sleep(0.08)

            hub.publish(topic, 1_000_000, json.dumps({"version": 1_000_000, "pad": ""}).encode())
            publisher = threading.Thread(target=publish, daemon=True)
            publisher.start()
            checked = []
            try:
                deadline = time.monotonic() + 2.5
                while time.monotonic() < deadline:  # a connection ends when a late pong gets it closed
                    client = FrameChecker(server, "/ws/lobby")
                    try:
                        client.read(deadline)
                    finally:
                        client.close()
                    checked.append(client)
                    assert client.close_code in (None, 1000, 1008), client.close_code
            finally:
                stop.set()
                publisher.join(timeout=RECV_TIMEOUT_S)
    finally:
        close_app(app)
    stats = [(c.pings, len(c.versions), c.keepalives, c.close_code) for c in checked]  # per connection
    assert sum(c.pings for c in checked) >= 5, stats
    assert sum(len(c.versions) for c in checked) >= 10, stats


def test_the_fan_outs_send_never_waits_on_a_gevent_socket():
    """Under ``gunicorn -k gevent`` (deploy/gunicorn.conf.py) sockets are gevent's: a plain
    ``send(data, MSG_DONTWAIT)`` there waits until the peer drains, so one screen that stopped
    reading would hold the fan-out of every screen of its table. ``_nonblocking_send`` gives
    up at once instead (BlockingIOError), as on a stdlib socket."""
    gevent = pytest.importorskip("gevent")
    from gevent import socket as gsocket

    from web.push.subscriber import _nonblocking_send

    for make in (socket.socketpair, gsocket.socketpair):
        writer, reader = make()  # the reader never reads: a stuck screen
        try:
            send = _nonblocking_send(writer)
            chunk = b"x" * 65536
            with gevent.Timeout(5, AssertionError(f"{make.__module__} send waited for the peer")):
                with pytest.raises(BlockingIOError):
                    for _ in range(10_000):  # far more than any socket buffer holds
                        send(chunk)
        finally:
            writer.close()
            reader.close()


def test_a_version_published_before_the_fan_out_thread_runs_still_reaches_its_screens(monkeypatch):
    """Regression (CI, loaded machine): the topic's fan-out thread read the topic's latest version
    when it started and waited for a newer one, so a version published between a screen's
    subscription and the thread's start was never offered. The thread is held here until
    after that publish."""
    import web.push.fanout as fanout_module

    held: list[threading.Thread] = []

    class HeldThread(threading.Thread):
        def start(self) -> None:
            held.append(self)

    class Screen:
        topic = "lobby"

        def __init__(self) -> None:
            self.offered: list[int] = []

        def offer(self, message) -> None:
            self.offered.append(message.version)

    hub = Hub()
    hub.publish("lobby", V + 1, b"[]")
    monkeypatch.setattr(fanout_module.threading, "Thread", HeldThread)
    fanout = fanout_module.Fanout(hub)
    screen = Screen()
    fanout.subscribe(screen)  # the screen holds V+1 (offered at once); its thread is not running yet
    hub.publish("lobby", V + 2, b"[1]")
    monkeypatch.undo()
    threading.Thread.start(held[0])
    deadline = time.monotonic() + RECV_TIMEOUT_S
    while V + 2 not in screen.offered and time.monotonic() < deadline:
        time.sleep(0.01)
    fanout.unsubscribe(screen)
    assert screen.offered[-1] == V + 2, screen.offered
