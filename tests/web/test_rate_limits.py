"""nginx's request-rate limits of the documented deployment (deploy/nginx.conf; issue 21 item 5):
PNG images and pages are limited per client address (429 in the service's error shape), the feed
and the JSON API never are, loopback is not counted.

nginx runs the deployment's own file (ports and paths moved) in front of ``roads serve``; the
limited client connects from 127.0.0.2 (another loopback address), the unlimited one from 127.0.0.1.
"""

from __future__ import annotations

import http.client
import json
import signal
import subprocess
import time

import pytest

from support.feed import AUTH, dealt_rounds
from support.nginx import nginx_config, nginx_or_skip
from support.serving import ServeProcess, free_port

pytestmark = pytest.mark.timeout(120)

BURST = {"png": 40, "page": 60}
"""The ``burst`` of deploy/nginx.conf's two zones (10 requests/s each)."""


@pytest.fixture(scope="module")
def front(tmp_path_factory):
    nginx = nginx_or_skip()
    tmp = tmp_path_factory.mktemp("limits")
    service = ServeProcess(tmp / "data")
    port = free_port()
    conf = tmp / "nginx.conf"
    conf.write_text(nginx_config(tmp, port, service.port), encoding="utf-8")
    proc = subprocess.Popen([nginx, "-p", str(tmp), "-c", str(conf), "-e", str(tmp / "nginx-start.log"),
                             "-g", "daemon off;"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                if get(port, "/api/tables", "127.0.0.1")[0] == 200:
                    break
            except OSError:
                time.sleep(0.1)
        else:
            raise AssertionError(f"nginx did not start: {proc.stderr.read().decode(errors='replace')}")
        p, b = dealt_rounds(1, seed=3)[0]
        assert request(port, "POST", "/api/tables/T1/rounds", "127.0.0.1",
                       {"shoe": 1, "round": 1, "player": p, "banker": b})[0] == 201
        yield port
    finally:
        proc.send_signal(signal.SIGQUIT)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        service.kill()


def request(port: int, method: str, path: str, source: str, body: dict | None = None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
    try:
        headers = {**AUTH, "Content-Type": "application/json"} if body is not None else {}
        conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
        resp = conn.getresponse()
        return resp.status, dict(resp.getheaders()), resp.read()
    finally:
        conn.close()


def get(port: int, path: str, source: str):
    return request(port, "GET", path, source)


@pytest.mark.parametrize("kind, path, source", [("png", "/tables/T1/board.png?width=640&height=360", "127.0.0.2"),
                                                ("page", "/lobby", "127.0.0.3")])
def test_pngs_and_pages_past_the_rate_get_a_429_in_the_error_shape(front, kind, path, source):
    answers = [get(front, path, source) for _ in range(BURST[kind] + 30)]
    statuses = [a[0] for a in answers]
    assert statuses[: BURST[kind] + 1] == [200] * (BURST[kind] + 1)  # the burst passes at once
    refused = [a for a in answers if a[0] == 429]
    assert refused and set(statuses) == {200, 429}
    _, headers, body = refused[0]
    assert json.loads(body) == {"error": {"status": 429, "code": "too_many_requests", "field": None,
                                          "message": "too many requests from this address; try again in 1 s"}}
    assert headers["Retry-After"] == "1" and headers["X-Frame-Options"] == "DENY"


def test_the_feed_and_the_json_api_are_never_limited(front):
    states = ["betting", "dealing"] * 50
    for state in states:
        status, _, body = request(front, "POST", "/api/tables/T1/state", "127.0.0.4", {"state": state})
        assert status == 201, body
    assert {get(front, "/api/tables/T1", "127.0.0.4")[0] for _ in range(120)} == {200}


def test_loopback_is_not_counted(front):
    assert {get(front, "/tables/T1/board.png?width=640&height=360", "127.0.0.1")[0] for _ in range(120)} == {200}
