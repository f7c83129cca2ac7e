"""Slow clients against the documented production deployment: nginx (``deploy/nginx.conf``)
in front of gunicorn (``deploy/gunicorn.conf.py``), both started here on free loopback ports
in a temporary directory, with the deployment's own files (only ports and paths replaced).

- 200 "slowloris" connections send their request headers one line per second and never end
  them; meanwhile other clients' reads and feed writes are answered within 1 s, and nginx
  closes every slow connection once ``client_header_timeout`` (10 s) has passed.
- A POST whose ``Content-Length`` promises more bytes than it sends is closed by nginx within
  ``client_body_timeout`` (10 s) and never reaches gunicorn.
- Through nginx the only ``Server`` header is ``nginx`` (no version), and a token sent in a
  query string is refused and appears in neither access log (gunicorn's documented format,
  nginx's ``roads`` format).

Needs Debian's nginx; skips without it unless ``ROADS_TEST_REQUIRE_NGINX=1`` (CI), then
fails. Every wait is bounded; both servers are stopped at the end whatever happens.
"""

from __future__ import annotations

import os
import selectors
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import requests

from support.feed import FEED_TOKEN, dealt_rounds
from support.nginx import nginx_config, nginx_or_skip
from support.serving import free_port

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]

ROOT = Path(__file__).resolve().parents[2]
GUNICORN_CONF = ROOT / "deploy" / "gunicorn.conf.py"
SLOW_CONNECTIONS = 200
PROBE_LIMIT_S = 1.0
HEADER_TIMEOUT_S = 10   # client_header_timeout in deploy/nginx.conf
BODY_TIMEOUT_S = 10     # client_body_timeout in deploy/nginx.conf
SECRET = "query-token-must-not-be-logged-7f3a"


def _wait_http(url: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    last: object = None
    while time.monotonic() < deadline:
        try:
            if requests.get(url, timeout=1).status_code == 200:
                return
        except requests.RequestException as e:
            last = e
        time.sleep(0.1)
    raise AssertionError(f"{url} did not answer within {timeout} s: {last}")


def _stop(proc: subprocess.Popen, sig: int) -> None:
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@pytest.fixture(scope="module")
def deployment(tmp_path_factory):
    """gunicorn + nginx as documented; yields ``(base_url, tmp_dir)``."""
    nginx = nginx_or_skip()
    tmp = tmp_path_factory.mktemp("deploy")
    gport, nport = free_port(), free_port()
    env = {**os.environ, "ROADS_FEED_TOKEN": FEED_TOKEN, "ROADS_DATA_DIR": str(tmp / "data")}
    gunicorn = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", str(GUNICORN_CONF), "-b", f"127.0.0.1:{gport}",
         "--access-logfile", str(tmp / "gunicorn-access.log"), "--error-logfile", str(tmp / "gunicorn-error.log"),
         "web:create_app()"],
        cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    conf = tmp / "nginx.conf"
    conf.write_text(nginx_config(tmp, nport, gport), encoding="utf-8")
    proc = None
    try:
        _wait_http(f"http://127.0.0.1:{gport}/api/tables", 30)
        proc = subprocess.Popen([nginx, "-p", str(tmp), "-c", str(conf), "-e", str(tmp / "nginx-start.log"),
                                 "-g", "daemon off;"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        base = f"http://127.0.0.1:{nport}"
        try:
            _wait_http(base + "/api/tables", 15)
        except AssertionError:
            if proc.poll() is not None:
                raise AssertionError(f"nginx exited: {proc.stderr.read().decode(errors='replace')}") from None
            raise
        yield base, tmp
    finally:
        if proc is not None:
            _stop(proc, signal.SIGQUIT)   # nginx: graceful stop
        _stop(gunicorn, signal.SIGTERM)


class SlowClients:
    """``n`` connections that send a request line, then one header line per second, forever."""

    def __init__(self, port: int, n: int) -> None:
        self.socks: list[socket.socket] = []
        for i in range(n):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.setblocking(False)
            s.send(b"GET /lobby HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            self.socks.append(s)
        self.closed: dict[int, float] = {}   # index -> seconds after start when the server closed it
        self.started = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="slowloris", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        sel = selectors.DefaultSelector()
        for i, s in enumerate(self.socks):
            sel.register(s, selectors.EVENT_READ, i)
        line = 0
        next_send = time.monotonic() + 1
        while not self._stop.is_set() and len(self.closed) < len(self.socks):
            for key, _ in sel.select(timeout=0.1):
                i = key.data
                try:
                    data = key.fileobj.recv(4096)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    data = b""
                if not data or data.startswith(b"HTTP/1.1 408"):
                    self.closed.setdefault(i, time.monotonic() - self.started)
                    sel.unregister(key.fileobj)
            if time.monotonic() >= next_send:
                line += 1
                for i, s in enumerate(self.socks):
                    if i not in self.closed:
                        try:
                            s.send(b"X-Slow-%d: %d\r\n" % (line, i))
                        except (BlockingIOError, InterruptedError):
                            pass
                        except OSError:
                            self.closed.setdefault(i, time.monotonic() - self.started)
                next_send += 1
        sel.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        for s in self.socks:
            s.close()


def _slow_body(port: int) -> tuple[float, bytes]:
    """POST headers promising 200 bytes, send 10, then wait; ``(seconds until closed, answer)``."""
    with socket.create_connection(("127.0.0.1", port), timeout=BODY_TIMEOUT_S + 10) as s:
        s.sendall(b"POST /api/tables/T9/rounds HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + FEED_TOKEN.encode()
                  + b"\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n" + b'{"shoe": 1')
        start = time.monotonic()
        answer = b""
        try:
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    break
                answer += chunk
        except (ConnectionResetError, socket.timeout):
            pass
        return time.monotonic() - start, answer


def test_200_slowloris_connections_do_not_stall_other_clients_and_slow_bodies_time_out(deployment):
    base, tmp = deployment
    port = int(base.rsplit(":", 1)[1])
    feed = requests.Session()
    player, banker = dealt_rounds(1, seed=15)[0]
    resp = feed.post(base + "/api/tables/T1/rounds", json={"shoe": 1, "round": 1, "player": player, "banker": banker},
                     headers={"Authorization": f"Bearer {FEED_TOKEN}"}, timeout=5)
    assert resp.status_code == 201, resp.text

    body_result: list[tuple[float, bytes]] = []
    body_thread = threading.Thread(target=lambda: body_result.append(_slow_body(port)), daemon=True)
    body_thread.start()
    slow = SlowClients(port, SLOW_CONNECTIONS)
    latencies: list[float] = []
    failures: list[str] = []
    round_no = 1
    hands = iter(dealt_rounds(60, seed=15)[1:])
    try:
        deadline = slow.started + HEADER_TIMEOUT_S + 3
        i = 0
        while time.monotonic() < deadline:
            i += 1
            path = ("/api/tables", "/lobby", "/api/tables/T1", "/tables/T1")[i % 4]
            start = time.monotonic()
            try:
                if i % 5 == 0:   # a feed write through the same front door
                    round_no += 1
                    path = "POST /api/tables/T1/rounds"
                    player, banker = next(hands)
                    r = requests.post(base + "/api/tables/T1/rounds", timeout=5,
                                      json={"shoe": 1, "round": round_no, "player": player, "banker": banker},
                                      headers={"Authorization": f"Bearer {FEED_TOKEN}", "Connection": "close"})
                    ok = r.status_code == 201
                else:
                    r = requests.get(base + path, timeout=5, headers={"Connection": "close"})
                    ok = r.status_code == 200
            except requests.RequestException as e:
                ok, r = False, e
            elapsed = time.monotonic() - start
            latencies.append(elapsed)
            if not ok or elapsed >= PROBE_LIMIT_S:
                failures.append(f"{path}: {elapsed:.3f} s, {getattr(r, 'status_code', r)}")
            time.sleep(0.2)
        # nginx closed every slow connection once its header timeout passed
        wait_until = time.monotonic() + 5
        while len(slow.closed) < SLOW_CONNECTIONS and time.monotonic() < wait_until:
            time.sleep(0.1)
        closed_after = sorted(slow.closed.values())
    finally:
        slow.close()
    body_thread.join(timeout=BODY_TIMEOUT_S + 15)

    print(f"\nslowloris: {SLOW_CONNECTIONS} slow connections, {len(latencies)} probes: median "
          f"{statistics.median(latencies) * 1000:.1f} ms, max {max(latencies) * 1000:.1f} ms; slow connections "
          f"closed after {closed_after[0]:.1f}-{closed_after[-1]:.1f} s; slow body closed after "
          f"{body_result[0][0]:.1f} s" if body_result and closed_after else "")
    assert failures == [], failures
    assert len(latencies) >= 30
    assert len(closed_after) == SLOW_CONNECTIONS
    assert HEADER_TIMEOUT_S - 1 <= closed_after[0] and closed_after[-1] <= HEADER_TIMEOUT_S + 3
    assert body_result, "the slow-body connection was never closed"
    seconds, answer = body_result[0]
    assert BODY_TIMEOUT_S - 1 <= seconds <= BODY_TIMEOUT_S + 3, seconds
    assert answer == b"" or answer.startswith(b"HTTP/1.1 408"), answer[:200]
    assert "/api/tables/T9/rounds" not in (tmp / "gunicorn-access.log").read_text(), "the slow body reached gunicorn"


def test_through_nginx_no_banner_and_no_token_in_any_access_log(deployment):
    base, tmp = deployment
    for path in ("/lobby", "/api/tables", "/no/such/url"):
        resp = requests.get(base + path, timeout=5)
        assert resp.headers.get("Server") == "nginx", resp.headers
        assert resp.headers["X-Content-Type-Options"] == "nosniff"
    resp = requests.post(f"{base}/api/tables/T1/rounds?token={SECRET}", json={"shoe": 1, "round": 9}, timeout=5,
                         headers={"Content-Type": "application/json"})
    assert resp.status_code == 400 and resp.json()["error"]["code"] == "token_in_query", resp.text
    assert requests.get(f"{base}/api/tables?access_token={SECRET}", timeout=5).status_code == 200
    time.sleep(0.5)  # both servers write their access lines after answering
    gunicorn_log = (tmp / "gunicorn-access.log").read_text()
    nginx_log = (tmp / "nginx-access.log").read_text()
    assert "/api/tables/T1/rounds" in gunicorn_log and "/api/tables/T1/rounds" in nginx_log
    assert SECRET not in gunicorn_log
    assert SECRET not in nginx_log


def test_screens_through_the_documented_deployment_get_every_round_beside_one_that_never_reads(deployment):
    """The documented worker (gevent, deploy/gunicorn.conf.py) behind nginx pushes each round to
    every reading screen as a delta of the version it holds, with one more screen connected
    that never reads (that a stuck socket never makes the fan-out wait is
    tests/web/test_ws.py::test_the_fan_outs_send_never_waits_on_a_gevent_socket)."""
    import json

    import websocket

    base, _ = deployment
    ws_base = base.replace("http://", "ws://")
    auth = {"Authorization": f"Bearer {FEED_TOKEN}"}
    rounds = dealt_rounds(30, seed=7)

    def post(number: int) -> None:
        player, banker = rounds[number - 1]
        resp = requests.post(f"{base}/api/tables/G1/rounds", json={"shoe": 1, "round": number, "player": player,
                                                                  "banker": banker}, headers=auth, timeout=10)
        assert resp.status_code == 201, resp.text

    post(1)
    stuck = socket.create_connection(("127.0.0.1", int(base.rsplit(":", 1)[1])), timeout=5)
    stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    stuck.sendall(b"GET /ws/tables/G1 HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
    screens = [websocket.create_connection(f"{ws_base}/ws/tables/G1", timeout=10) for _ in range(3)]
    try:
        versions = []
        for ws in screens:
            first = json.loads(ws.recv())
            assert (first["type"], first["data"]["round"]) == ("snapshot", 1)
            versions.append(first["version"])
        for number in range(2, 31):
            post(number)
            for i, ws in enumerate(screens):
                msg = json.loads(ws.recv())
                while msg["type"] == "keepalive":
                    msg = json.loads(ws.recv())
                assert (msg["type"], msg["base"], msg["version"]) == ("delta", versions[i], versions[i] + 1), msg
                versions[i] = msg["version"]
        snapshot = requests.get(f"{base}/api/tables/G1", timeout=10).json()
        assert snapshot["round"] == 30 and snapshot["version"] == versions[0]
    finally:
        for ws in screens:
            ws.close()
        stuck.close()
