"""Security headers on every kind of response (pages, embed, JSON, PNG, static files, errors,
the WebSocket handshake), the embed's frame policy from ROADS_EMBED_ORIGINS, no server banner
from ``roads serve``, and in headless Chromium: the pages run under their policy without a
violation, the embed can be framed by another site and the table page cannot.

Expected header values are the policy as docs/api.md ("Security headers") states it.
"""

from __future__ import annotations

import contextlib
import json
import http.server
import socket
import threading
import time

import pytest
import requests

from support.feed import FEED_TOKEN, close_app, make_app
from support.serving import ServeProcess, serve_app

AUTH = {"Authorization": f"Bearer {FEED_TOKEN}"}
POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
          "connect-src 'self'; base-uri 'none'; form-action 'self'")


@pytest.fixture
def table(client, auth):
    resp = client.post("/api/tables/T1/rounds", json={"shoe": 1, "round": 1, "player": ["4S", "KD", "9H"],
                                                     "banker": ["7C", "JD"]}, headers=auth)
    assert resp.status_code == 201


def assert_locked(headers):
    """Not frameable at all."""
    assert headers["Content-Security-Policy"] == POLICY + "; frame-ancestors 'none'"
    assert headers["X-Frame-Options"] == "DENY"
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "no-referrer"


@pytest.mark.parametrize("path, mimetype", [
    ("/lobby", "text/html"),
    ("/tables/T1", "text/html"),
    ("/tables/T1/shoes/1", "text/html"),
    ("/api/tables", "application/json"),
    ("/api/tables/T1", "application/json"),
    ("/api/openapi.json", "application/json"),
    ("/tables/T1/board.png?width=640&height=360", "image/png"),
    ("/lobby.png?width=640&height=360", "image/png"),
    ("/static/css/roads.css", "text/css"),
    ("/static/js/paint.js", "text/javascript"),
    ("/api/tables/nope", "application/json"),            # an error
    ("/tables/nope", "application/json"),                # an error outside /api/
    ("/no/such/url", "application/json"),
])
def test_every_response_but_the_embed_is_locked(client, table, path, mimetype):
    resp = client.get(path)
    assert resp.mimetype == mimetype
    assert_locked(resp.headers)


def test_a_redirect_and_a_304_carry_the_headers_too(client, table):
    assert_locked(client.get("/").headers)
    etag = client.get("/api/tables/T1").headers["ETag"]
    resp = client.get("/api/tables/T1", headers={"If-None-Match": etag})
    assert resp.status_code == 304
    assert_locked(resp.headers)


def test_the_embed_may_be_framed_by_any_site_by_default(client, table):
    resp = client.get("/embed/T1")
    assert resp.status_code == 200 and resp.mimetype == "text/html"
    assert resp.headers["Content-Security-Policy"] == POLICY + "; frame-ancestors *"
    assert "X-Frame-Options" not in resp.headers
    assert resp.headers["X-Content-Type-Options"] == "nosniff"
    assert resp.headers["Referrer-Policy"] == "no-referrer"
    # The embed's 404 is still an embed path: same frame policy.
    assert client.get("/embed/nope").headers["Content-Security-Policy"].endswith("frame-ancestors *")


def test_embed_origins_come_from_the_setting(tmp_path):
    app = make_app(tmp_path, ROADS_EMBED_ORIGINS="https://lobby.example.com, https://*.casino.example:8443 'self'")
    try:
        client = app.test_client()
        csp = client.get("/embed/T1").headers["Content-Security-Policy"]
        assert csp.endswith("; frame-ancestors https://lobby.example.com https://*.casino.example:8443 'self'")
        assert_locked(client.get("/lobby").headers)
    finally:
        close_app(app)


@pytest.mark.parametrize("value", ["", "lobby.example.com", "https://", "javascript:alert(1)", "https://a.b/path",
                                   "'none'", "https://a b"])
def test_a_bad_embed_origin_is_a_config_error_naming_the_setting(tmp_path, value):
    from web.settings import ConfigError

    with pytest.raises(ConfigError, match="ROADS_EMBED_ORIGINS"):
        make_app(tmp_path, ROADS_EMBED_ORIGINS=value)


def _handshake(port: int, path: str, key: bytes = b"dGhlIHNhbXBsZSBub25jZQ==") -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(b"GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  b"Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % (path.encode(), key))
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    return data.split(b"\r\n\r\n", 1)[0]


def _headers(head: bytes) -> dict[str, str]:
    lines = head.decode("latin-1").split("\r\n")
    return {k.strip(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}


def test_the_websocket_handshake_carries_the_headers(app, table):
    with serve_app(app) as srv:
        for path in ("/ws/lobby", "/ws/tables/T1"):
            head = _handshake(srv.server_port, path)
            assert head.startswith(b"HTTP/1.1 101 "), head
            headers = _headers(head)
            # RFC 6455 section 1.3 example: key dGhlIHNhbXBsZSBub25jZQ== -> s3pPLMBiTxaQ9kYGzzhZRbK+xOo=
            assert headers["Sec-WebSocket-Accept"] == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
            assert_locked(headers)


@pytest.mark.parametrize("extra", [
    b"",                                                    # no Sec-WebSocket-Key
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n",     # no Sec-WebSocket-Version
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 8\r\n",
])
def test_a_broken_handshake_is_a_400_in_the_error_shape(app, table, extra):
    with serve_app(app) as srv, socket.create_connection(("127.0.0.1", srv.server_port), timeout=5) as s:
        s.sendall(b"GET /ws/lobby HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" + extra + b"\r\n")
        data = b""
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 "), data[:300]
    assert json.loads(body)["error"]["code"] == "bad_handshake"
    assert_locked(_headers(head))


def test_roads_serve_sends_no_server_banner(tmp_path):
    proc = ServeProcess(tmp_path / "data")
    try:
        for path in ("/lobby", "/api/tables", "/no/such/url"):
            resp = requests.get(f"http://{proc.base}{path}", timeout=10)
            assert "Server" not in resp.headers, resp.headers
            assert_locked(resp.headers)
        head = _handshake(proc.port, "/ws/lobby")
        assert head.startswith(b"HTTP/1.1 101 ") and b"Server:" not in head
    finally:
        proc.kill()


def test_roads_serve_answers_huge_headers_in_the_error_shape(tmp_path):
    # the standard library refuses a header line over 65,536 bytes (431) before the app sees it
    proc = ServeProcess(tmp_path / "data")
    try:
        resp = requests.get(f"http://{proc.base}/api/tables", headers={"X-Big": "a" * 70_000}, timeout=10)
        assert resp.status_code == 431 and resp.headers["Content-Type"] == "application/json"
        err = resp.json()["error"]
        assert (err["status"], err["code"], err["field"]) == (431, "headers_too_large", None)
        assert "Server" not in resp.headers
        assert requests.get(f"http://{proc.base}/api/tables", timeout=10).status_code == 200
    finally:
        proc.kill()


def test_roads_serve_refuses_a_token_in_the_url_and_never_logs_query_strings(tmp_path):
    secret = "query-token-never-logged-91c2"
    log = tmp_path / "serve.log"
    proc = ServeProcess(tmp_path / "data", stderr_path=log)
    try:
        resp = requests.post(f"http://{proc.base}/api/tables/T1/rounds?token={secret}", timeout=10,
                             json={"shoe": 1, "round": 1, "player": ["4S", "KD", "9H"], "banker": ["7C", "JD"]})
        err = resp.json()["error"]
        assert (resp.status_code, err["code"], err["field"]) == (400, "token_in_query", "token")
        assert secret not in resp.text
        resp = requests.post(f"http://{proc.base}/api/tables/T1/rounds?x={FEED_TOKEN}", headers=AUTH, timeout=10,
                             json={"shoe": 1, "round": 1, "player": ["4S", "KD", "9H"], "banker": ["7C", "JD"]})
        assert (resp.status_code, resp.json()["error"]["code"]) == (400, "token_in_query")
        assert requests.get(f"http://{proc.base}/lobby?theme=light&k={secret}", timeout=10).status_code == 200
        time.sleep(0.3)
    finally:
        proc.kill()
    text = log.read_text(encoding="utf-8")
    assert "/api/tables/T1/rounds?\u2026" in text   # the path, and only a mark for the query
    assert "/lobby?…" in text
    assert secret not in text and FEED_TOKEN not in text


# ----------------------------------------------------------------------------- in a browser
@contextlib.contextmanager
def _host_page(html: str):
    """Serve ``html`` at ``/`` of another origin (http://localhost:<port>) for the block."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (the standard library's name)
            body = html.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://localhost:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def _poll(page, expression: str, timeout_s: float = 10.0) -> None:
    """Wait until ``expression`` is true in the page. Playwright's wait_for_function evaluates a
    string predicate with eval, which the pages' CSP (rightly) refuses; evaluate() is not."""
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, (page.url, expression, page.evaluate("JSON.stringify(window.__roads)")[:300])
        page.wait_for_timeout(50)


@pytest.mark.browser
@pytest.mark.slow
def test_in_chromium_pages_obey_their_policy_and_only_the_embed_can_be_framed(app, table):
    from test_browser import _browser_or_skip, CHROMIUM, CHROMIUM_ARGS

    _browser_or_skip()
    from playwright.sync_api import sync_playwright

    with serve_app(app) as srv, sync_playwright() as pw:
        base = f"http://127.0.0.1:{srv.server_port}"
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for path in ("/lobby", "/tables/T1", "/embed/T1", "/tables/T1/shoes/1"):
                page = browser.new_page()
                violations: list[str] = []
                page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
                page.on("pageerror", lambda e: violations.append(str(e)))
                page.goto(base + path)
                _poll(page, "!!(window.__roads && window.__roads.renders >= 1)")
                if path != "/tables/T1/shoes/1":  # past shoes are not live
                    _poll(page, "window.__roads.status === 'live' || !!document.querySelector('[data-live=live]')")  # connect-src 'self'
                assert violations == [], (path, violations)
                page.close()

            host = ('<!doctype html><iframe id="embed" src="{b}/embed/T1"></iframe>'
                    '<iframe id="board" src="{b}/tables/T1"></iframe>').format(b=base)
            with _host_page(host) as url:
                page = browser.new_page()
                blocked: list[str] = []
                page.on("console", lambda m: blocked.append(m.text))
                page.goto(url)
                embed = page.frame_locator("#embed")
                embed.locator("svg").first.wait_for(timeout=10_000)   # the embed drew inside the other site
                page.wait_for_timeout(500)
                board = next(f for f in page.frames if f.url.startswith(base + "/tables/") or "chrome-error" in f.url)
                assert board.evaluate("typeof window.__roads") == "undefined"   # never ran
                assert any("frame-ancestors" in m for m in blocked), blocked
                page.close()
        finally:
            browser.close()
