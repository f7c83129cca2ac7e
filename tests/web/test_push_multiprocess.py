"""Two service processes on one Redis store publishing to one nginx + nchan (docs/deploy.md):
each channel has one publisher at a time (web/push/leases.py), so nchan gets every version of a
channel once, in version order, whichever process took the write.

A subscriber on nchan counts the frames of each version it receives (nchan forwards every
message it is given). Rounds go alternately to the two processes; the first twenty one at a
time (each awaited on nchan: every version must arrive exactly once), then twenty at once
(the publisher may skip versions then, latest-only, but never repeats one or goes back).
Every wait is bounded; every process is stopped at the end.
"""

from __future__ import annotations

import json
import threading
import time

import pytest
import requests
import websocket

from support.feed import FEED_TOKEN, dealt_rounds
from support.nchan import NginxNchan
from support.redis import SHARED_REDIS_URL, shared_prefix
from support.serving import ServeProcess
from web.push.nchan import MIN_POST_INTERVAL_S

pytestmark = [pytest.mark.redis, pytest.mark.slow]

AUTH = {"Authorization": f"Bearer {FEED_TOKEN}"}
WAIT_S = 20


@pytest.fixture
def prefix():
    yield from shared_prefix()


class Counter:
    """Every non-keepalive frame of one nchan channel, in arrival order: ``(type, version)``."""

    def __init__(self, url: str) -> None:
        self.ws = websocket.create_connection(url, timeout=WAIT_S)
        self.frames: list[tuple[str, int]] = []
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            while True:
                msg = json.loads(self.ws.recv())
                if msg.get("type") != "keepalive":
                    with self.lock:
                        self.frames.append((msg["type"], msg["version"]))
        except (websocket.WebSocketException, OSError, ValueError):
            pass

    def versions(self) -> list[int]:
        with self.lock:
            return [v for _, v in self.frames]

    def wait_for(self, version: int) -> None:
        deadline = time.monotonic() + WAIT_S
        while not any(v >= version for v in self.versions()):
            if time.monotonic() > deadline:
                raise AssertionError(f"nchan never sent version {version}: {self.versions()[-5:]}")
            time.sleep(0.02)

    def close(self) -> None:
        self.ws.close()


def test_two_processes_publish_each_version_once_in_order(tmp_path, prefix):
    nginx = NginxNchan()
    env = {"ROADS_REDIS_URL": SHARED_REDIS_URL, "ROADS_REDIS_PREFIX": prefix,
           "ROADS_NCHAN_PUBLISH_URL": nginx.publish_url, "ROADS_PUSH_URL": "/push/"}
    a = b = None
    counters: list[Counter] = []
    try:
        a = ServeProcess(tmp_path / "a", env=env)
        b = ServeProcess(tmp_path / "b", env=env)
        nginx.start(a.base)
        deal = dealt_rounds(40, seed=14)
        http = requests.Session()

        def post(n: int) -> int:
            server = (a, b)[n % 2]
            p, bk = deal[n - 1]
            resp = http.post(f"http://{server.base}/api/tables/K1/rounds", headers=AUTH, timeout=10,
                             json={"shoe": 1, "round": n, "player": p, "banker": bk})
            assert resp.status_code == 201, resp.text
            return resp.json()["version"]

        # The processes post the lobby's first frame on start, retried until nginx is up; a first
        # write within MIN_POST_INTERVAL_S of that post waits and may go out with the next one.
        first = Counter(f"ws://{nginx.base}/push/lobby")
        first.wait_for(0)
        first.close()
        time.sleep(MIN_POST_INTERVAL_S)
        assert post(1) == 1
        # both processes know the table page's model topic (a page was served by each)
        boots = []
        for server in (a, b):
            html = http.get(f"http://{server.base}/tables/K1", timeout=10).text
            boots.append(json.loads(html.split('<script type="application/json" id="boot">', 1)[1].split("</script>", 1)[0]))
        assert boots[0]["ws"] == boots[1]["ws"]
        for server in (a, b):  # what each page does before it subscribes: its orientation is followed
            assert http.get(f"http://{server.base}{boots[0]['modelUrl']}?orient=landscape", timeout=10).status_code == 200
        table = Counter(f"ws://{nginx.base}/push/tables/K1")
        model = Counter(f"ws://{nginx.base}{boots[0]['ws']['landscape']}")
        lobby = Counter(f"ws://{nginx.base}/push/lobby")
        counters = [table, model, lobby]
        table.wait_for(1)
        for n in range(2, 21):
            version = post(n)
            table.wait_for(version)
            model.wait_for(version)
            lobby.wait_for(version)
        time.sleep(0.5)
        for counter in counters:
            versions = counter.versions()
            # the newest frame on subscribing, then each version 2..20 exactly once
            assert versions == list(range(versions[0], 21)), versions
        for n in range(21, 41):
            post(n)
        for counter in counters:
            counter.wait_for(40)
        time.sleep(0.5)
        for counter in counters:
            versions = counter.versions()
            assert versions == sorted(set(versions)) and versions[-1] == 40, versions
        full = http.get(f"http://{nginx.base}/push/full/tables/K1", timeout=10).json()
        assert full["version"] <= 40 and full["data"]["version"] == full["version"]
    finally:
        for counter in counters:
            counter.close()
        nginx.stop()
        for server in (a, b):
            if server is not None:
                server.kill()
