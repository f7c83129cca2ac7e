"""WebSocket push (web/http/ws.py): full snapshot on connect, every newer version after it,
latest-only for slow clients, keepalives, errors in the one error shape.

A real threaded Werkzeug server on 127.0.0.1 serves the test app; rounds go through the
real feed API; clients are ``websocket-client``. Every wait is bounded by a socket
timeout; nothing asserts how fast anything is (bench/bench_ws_latency.py measures that).
"""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest
import websocket

from conftest import make_app
from serving_support import recv_snapshot, serve_app
from web.hub import Hub, Message
from web.service import get_service
from web.http.ws import CLOSE_UNKNOWN_TABLE, MAX_CLIENT_FRAMES, POLL_S, FrameCache, SerialSocket, Subscriber, stream, text_frame

ROUND_B = {"player": ["4S", "KD", "9H"], "banker": ["7C", "JD"]}  # Banker 7-3 (P 4+0 draws 9 -> 3)
ROUND_P_NATURAL = {"player": ["9C", "KH"], "banker": ["5D", "2S"]}  # Player natural 9 beats 7
ROUND_TIE = {"player": ["9D", "KC"], "banker": ["9S", "QH"]}  # natural 9 each: tie

RECV_TIMEOUT_S = 10


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
    app.config["ROADS_WS_KEEPALIVE_S"] = 0.2
    post_round(client, auth, "T1", 1, 1, ROUND_B)
    ws = connect(server, "/ws/tables/T1")
    try:
        first = recv_snapshot(ws)
        ka = recv_json(ws)
        assert ka == {"type": "keepalive", "topic": "table:T1", "version": first["version"]}
    finally:
        ws.close()


def test_a_client_that_floods_the_server_is_closed_1008(app, server, client, auth):
    app.config["ROADS_WS_KEEPALIVE_S"] = 0.2
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
    app.config["ROADS_WS_KEEPALIVE_S"] = 0.2
    post_round(client, auth, "T1", 1, 1, ROUND_B)
    ws = connect(server, "/ws/tables/T1")
    try:
        first = recv_snapshot(ws)
        ws.send('{"type":"resync"}')
        post_round(client, auth, "T1", 1, 2, ROUND_B)
        assert recv_snapshot(ws)["version"] == first["version"] + 1
    finally:
        ws.close()


# ------------------------------------------------------------------ latest-only, without sockets
class FakeSocket:
    """A stand-in for simple-websocket's Server: records sends; the first send can block."""

    def __init__(self, block_first: threading.Event | None = None, stop_at_version: int = 10) -> None:
        self.sent: list[dict] = []
        self.connected = True
        self.block_first = block_first
        self.in_send = threading.Event()
        self.stop_at_version = stop_at_version

    def send(self, text: str) -> None:
        if self.block_first is not None and not self.sent:
            self.in_send.set()
            assert self.block_first.wait(timeout=RECV_TIMEOUT_S)
        msg = json.loads(text)
        self.sent.append(msg)
        if msg["version"] >= self.stop_at_version:
            self.connected = False

    def receive(self, timeout=None):
        return None

    def close(self, reason=None, message=None):
        self.connected = False


def run_stream(app, ws, topic):
    def target():
        with app.app_context():
            stream(ws, topic, lambda: (0, b"{}"))

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread


def test_a_slow_client_skips_to_the_newest_version_and_holds_up_no_one(app):
    hub: Hub = get_service(app).hub
    topic = "table:SLOW"
    hub.publish(topic, 1, b'{"v":1}')
    release = threading.Event()
    slow = FakeSocket(block_first=release)
    slow_thread = run_stream(app, slow, topic)
    assert slow.in_send.wait(timeout=RECV_TIMEOUT_S)  # stuck sending version 1
    fast = FakeSocket()
    fast_thread = run_stream(app, fast, topic)
    for version in range(2, 11):  # publishing never waits for the stuck client
        hub.publish(topic, version, b'{"v":%d}' % version)
    fast_thread.join(timeout=RECV_TIMEOUT_S)
    assert not fast_thread.is_alive()
    assert fast.sent[-1] == {"type": "snapshot", "topic": topic, "version": 10, "data": {"v": 10}}
    release.set()
    slow_thread.join(timeout=RECV_TIMEOUT_S)
    assert not slow_thread.is_alive()
    # After version 1 the slow client gets version 10 at once: nothing queued in between.
    assert [m["version"] for m in slow.sent] == [1, 10]
    assert slow.sent[1]["data"] == {"v": 10}


def test_stream_uses_the_initial_snapshot_when_the_hub_has_none(app):
    ws = FakeSocket(stop_at_version=7)
    with app.app_context():
        stream(ws, "table:EMPTY", lambda: (7, b'{"table":"EMPTY"}'))
    assert ws.sent == [{"type": "snapshot", "topic": "table:EMPTY", "version": 7, "data": {"table": "EMPTY"}}]


def test_frame_cache_builds_each_version_once():
    cache = FrameCache()
    m1 = Message(1, '{"name":"ไทย"}'.encode())
    first = cache.frame("table:T1", m1)
    assert cache.frame("table:T1", m1) is first
    assert json.loads(first) == {"type": "snapshot", "topic": "table:T1", "version": 1, "data": {"name": "ไทย"}}
    m2 = Message(2, b"[]")
    assert json.loads(cache.frame("table:T1", m2))["version"] == 2
    assert cache.frame("lobby", m2) != cache.frame("table:T1", m2)


def test_plain_http_get_on_a_socket_route_is_refused(client):
    resp = client.get("/ws/tables/T1", headers={"Accept": "application/json"})
    assert resp.status_code == 400
    assert resp.get_json()["error"]["status"] == 400


# ------------------------------------------------------------------ raw sockets: offers never block
class RawSocketConnection:
    """Looks like simple-websocket's Server to :class:`Subscriber`: a real socket, ``connected``."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.connected = True
        self.close_reason = None
        self.close_message = None

    def send(self, text: str) -> None:
        self.sock.sendall(text_frame(text.encode()))

    def receive(self, timeout=None):
        return None

    def close(self, reason=None, message=None):
        self.connected = False


def read_frames(sock: socket.socket, count: int) -> list[dict]:
    """Parse ``count`` server text frames from ``sock`` (unmasked, as the server sends them)."""
    buf = bytearray()
    out: list[dict] = []
    while len(out) < count:
        chunk = sock.recv(1 << 20)
        assert chunk, "server side closed early"
        buf += chunk
        while len(buf) >= 2:
            n, head = buf[1] & 0x7F, 2
            if n == 126:
                n, head = int.from_bytes(buf[2:4], "big"), 4
            elif n == 127:
                n, head = int.from_bytes(buf[2:10], "big"), 10
            if len(buf) < head + n:
                break
            assert buf[0] == 0x81  # final text frame
            out.append(json.loads(bytes(buf[head: head + n])))
            del buf[: head + n]
    return out


def big_message(version: int) -> Message:
    """A message far larger than a socket buffer, so writing it to a client that reads nothing blocks."""
    return Message(version, json.dumps({"version": version, "pad": "x" * 2_000_000}).encode())


def test_offer_to_a_client_that_reads_nothing_returns_at_once_and_keeps_only_the_newest():
    server_end, client_end = socket.socketpair()
    server_end.settimeout(RECV_TIMEOUT_S)
    client_end.settimeout(RECV_TIMEOUT_S)
    try:
        conn = RawSocketConnection(server_end)
        sub = Subscriber(conn, "table:T1", FrameCache(), version=0)
        offers = threading.Thread(target=lambda: [sub.offer(big_message(v)) for v in range(1, 6)], daemon=True)
        offers.start()
        offers.join(timeout=RECV_TIMEOUT_S)
        assert not offers.is_alive(), "offer() blocked on a full socket"
        # The first frame did not fit: its rest waits for the handler thread, with only the newest message.
        assert sub.rest and sub.pending is not None and sub.pending.version == 5
        runner = threading.Thread(target=sub.run, args=(60.0,), daemon=True)
        runner.start()
        frames = read_frames(client_end, 2)
        assert [f["version"] for f in frames] == [1, 5]
        assert frames[1]["data"]["version"] == 5
        conn.connected = False
        runner.join(timeout=POLL_S + RECV_TIMEOUT_S)
        assert not runner.is_alive()
    finally:
        server_end.close()
        client_end.close()


def test_offer_to_a_reading_client_writes_the_frame_itself():
    server_end, client_end = socket.socketpair()
    client_end.settimeout(RECV_TIMEOUT_S)
    try:
        sub = Subscriber(RawSocketConnection(server_end), "table:T1", FrameCache(), version=0)
        sub.offer(Message(1, b'{"round":1}'))
        assert sub.rest == b"" and sub.pending is None and sub.version == 1
        assert read_frames(client_end, 1) == [{"type": "snapshot", "topic": "table:T1", "version": 1, "data": {"round": 1}}]
        sub.offer(Message(1, b'{"round":1}'))  # the same version again: nothing sent
        client_end.settimeout(0.05)
        with pytest.raises(TimeoutError):
            client_end.recv(10)
    finally:
        server_end.close()
        client_end.close()


def test_offer_to_a_closed_peer_marks_the_subscriber_dead_and_run_returns():
    server_end, client_end = socket.socketpair()
    client_end.close()
    try:
        conn = RawSocketConnection(server_end)
        sub = Subscriber(conn, "table:T1", FrameCache(), version=0)
        for v in range(1, 4):  # the first send may still be buffered; a later one sees the broken pipe
            sub.offer(Message(v, b"{}" + b" " * 100_000))
        assert sub.dead
        done = threading.Thread(target=sub.run, args=(60.0,), daemon=True)
        done.start()
        done.join(timeout=RECV_TIMEOUT_S)
        assert not done.is_alive()
    finally:
        server_end.close()


def read_any_frames(sock: socket.socket, count: int) -> list[tuple[int, bytes]]:
    """``count`` whole unmasked final server frames from ``sock`` as ``(opcode, payload)``."""
    buf = bytearray()
    out: list[tuple[int, bytes]] = []
    while len(out) < count:
        chunk = sock.recv(1 << 20)
        assert chunk, "server side closed early"
        buf += chunk
        while len(buf) >= 2 and len(out) < count:
            assert buf[0] & 0xF0 == 0x80 and not buf[1] & 0x80, bytes(buf[:16])
            n, head = buf[1] & 0x7F, 2
            if n == 126:
                n, head = int.from_bytes(buf[2:4], "big"), 4
            elif n == 127:
                n, head = int.from_bytes(buf[2:10], "big"), 10
            if len(buf) < head + n:
                break
            out.append((buf[0] & 0x0F, bytes(buf[head: head + n])))
            del buf[: head + n]
    return out


def test_a_simple_websocket_write_waits_for_a_begun_frame_and_offer_never_waits_for_it():
    """simple-websocket writes through ws.sock: replaced by a SerialSocket, its ping goes out
    after the frame offer() began, never inside it; while that ping is being written, offers
    return at once and leave the newest message to the handler thread."""
    server_end, client_end = socket.socketpair()
    client_end.settimeout(RECV_TIMEOUT_S)
    try:
        conn = RawSocketConnection(server_end)
        sub = Subscriber(conn, "table:T1", FrameCache(), version=0)
        assert isinstance(conn.sock, SerialSocket) and sub.sock is server_end
        assert conn.sock.fileno() == server_end.fileno()  # reads, fileno, close... reach the socket
        sub.offer(big_message(1))
        assert sub.rest  # the client reads nothing: only part of frame 1 went out
        ping = threading.Thread(target=conn.sock.send, args=(b"\x89\x00",), daemon=True)  # as simple-websocket does
        ping.start()
        deadline = time.monotonic() + RECV_TIMEOUT_S
        while not sub.writing and time.monotonic() < deadline:
            time.sleep(0.001)
        assert sub.writing and ping.is_alive()  # the ping's writer holds the turn, finishing frame 1
        offers = threading.Thread(target=lambda: [sub.offer(big_message(v)) for v in (2, 3)], daemon=True)
        offers.start()
        offers.join(timeout=RECV_TIMEOUT_S)
        assert not offers.is_alive(), "offer() waited for another writer"
        assert sub.pending is not None and sub.pending.version == 3
        runner = threading.Thread(target=sub.run, args=(60.0,), daemon=True)
        runner.start()
        frames = read_any_frames(client_end, 3)
        assert [op for op, _ in frames] == [0x1, 0x9, 0x1]
        assert [json.loads(frames[i][1])["version"] for i in (0, 2)] == [1, 3]
        ping.join(timeout=RECV_TIMEOUT_S)
        conn.connected = False
        runner.join(timeout=POLL_S + RECV_TIMEOUT_S)
        assert not runner.is_alive()
    finally:
        server_end.close()
        client_end.close()


def test_fanout_thread_ends_after_the_last_viewer_leaves(app, server, client, auth):
    post_round(client, auth, "T1", 1, 1, ROUND_B)
    ws = connect(server, "/ws/tables/T1")
    recv_json(ws)
    fanout = app.extensions["roads.ws_fanout"]
    assert fanout.subscribers("table:T1") == 1
    ws.close()
    deadline = time.monotonic() + 3 * POLL_S + RECV_TIMEOUT_S
    while fanout.subscribers("table:T1") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert fanout.subscribers("table:T1") == 0
    while any(t.name == "roads-fanout-table:T1" for t in threading.enumerate()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(t.name == "roads-fanout-table:T1" for t in threading.enumerate())


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
        app.extensions["roads"].close()
    monkeypatch.setenv("ROADS_WS_KEEPALIVE_S", "soon")
    with pytest.raises(ConfigError, match=r"ROADS_WS_KEEPALIVE_S must be a number, got 'soon'"):
        create_app({**base, "ROADS_DATA_DIR": str(tmp_path / "b")})
    with pytest.raises(ConfigError, match=r"ROADS_WS_PING_S must be between 0 and 3600, got -1"):
        create_app({**base, "ROADS_DATA_DIR": str(tmp_path / "c"), "ROADS_WS_KEEPALIVE_S": 5, "ROADS_WS_PING_S": -1})


# ------------------------------------------------------------------ one writer per socket at a time
class FrameChecker:
    """A raw WebSocket client that reads slowly through a tiny receive buffer and checks every
    byte it gets: each server frame must be a whole, final, unmasked text, ping or close frame
    whose text is one of our JSON frames. Answers pings (masked pongs), as a browser does."""

    def __init__(self, server: str, path: str, rcvbuf: int = 4096) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(RECV_TIMEOUT_S)
        host, port = server.rsplit(":", 1)
        self.sock.connect((host, int(port)))
        key = "dGhlIHNhbXBsZSBub25jZQ=="
        self.sock.sendall((f"GET {path} HTTP/1.1\r\nHost: {server}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        self.buf = bytearray()
        while b"\r\n\r\n" not in self.buf:
            chunk = self.sock.recv(1024)
            assert chunk, "closed during the handshake"
            self.buf += chunk
        head, _, rest = bytes(self.buf).partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 101"), head
        self.buf = bytearray(rest)
        self.versions: list[int] = []
        self.pings = 0
        self.keepalives = 0
        self.close_code: int | None = None

    def _frame(self) -> tuple[int, bytes] | None:
        """The next whole frame in the buffer, checked, or ``None`` if it is still incomplete."""
        buf = self.buf
        if len(buf) < 2:
            return None
        b0, b1 = buf[0], buf[1]
        assert b0 & 0x80 and not b0 & 0x70, f"not a final frame without RSV bits: {bytes(buf[:16])!r}"
        assert not b1 & 0x80, f"masked server frame: {bytes(buf[:16])!r}"
        opcode, n, head = b0 & 0x0F, b1 & 0x7F, 2
        assert opcode in (0x1, 0x8, 0x9), f"unexpected opcode {opcode:#x}: {bytes(buf[:16])!r}"
        if n == 126:
            if len(buf) < 4:
                return None
            n, head = int.from_bytes(buf[2:4], "big"), 4
        elif n == 127:
            if len(buf) < 10:
                return None
            n, head = int.from_bytes(buf[2:10], "big"), 10
            assert n < 1 << 32, f"absurd frame length {n}"
        assert opcode == 0x1 or n <= 125, f"control frame of {n} bytes"
        if len(buf) < head + n:
            return None
        payload = bytes(buf[head: head + n])
        del buf[: head + n]
        return opcode, payload

    def _send_control(self, opcode: int, payload: bytes) -> None:
        mask = b"\x01\x02\x03\x04"
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(bytes((0x80 | opcode, 0x80 | len(payload))) + mask + masked)

    def read(self, deadline: float, chunk: int = 8192, pause_s: float = 0.0005) -> None:
        """Read and check frames until the server closes or ``deadline`` (time.monotonic())."""
        while time.monotonic() < deadline:
            while (frame := self._frame()) is not None:
                opcode, payload = frame
                if opcode == 0x9:
                    self.pings += 1
                    self._send_control(0xA, payload)
                elif opcode == 0x8:
                    self.close_code = int.from_bytes(payload[:2], "big") if payload else 1005
                    return
                else:
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

    def close(self) -> None:
        self.sock.close()


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
        app.extensions["roads"].close()
    stats = [(c.pings, len(c.versions), c.keepalives, c.close_code) for c in checked]  # per connection
    assert sum(c.pings for c in checked) >= 5, stats
    assert sum(len(c.versions) for c in checked) >= 10, stats
