"""Helpers of the tests that talk to a real server over loopback: the test app on a threaded
Werkzeug server (:func:`serve_app`), ``roads serve`` in a subprocess (:class:`ServeProcess`), a
fake JSON service answering from a script (:class:`FakeJSONService`), a free port
(:func:`free_port`) and reading WebSocket snapshots (:func:`recv_snapshot`).

Everything listens on 127.0.0.1 only; every wait is bounded.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import threading
import time
import weakref
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator, Mapping

from werkzeug.serving import BaseWSGIServer, make_server

from support.feed import FEED_TOKEN
from web.push.delta import apply as delta_apply

ROOT = Path(__file__).resolve().parents[2]  # the repository


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now (nothing listens on it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve_app(app: Any, name: str = "test-server") -> Iterator[BaseWSGIServer]:
    """Serve ``app`` with Werkzeug's threaded server and ``roads serve``'s request handler
    (WebSockets need a thread per connection)
    on a free port of 127.0.0.1 for the ``with`` block; yields the server (``server_port``).
    The app is the caller's to close."""
    from web.cli.serving import RequestHandler

    server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=RequestHandler)  # as `roads serve`
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, name=name, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


class ServeProcess:
    """``python -m web.cli serve`` on a free loopback port, in a subprocess, with the test feed token.

    ``env`` adds environment variables (a ``None`` value removes one); ``port`` (default any free
    one) lets a test start the service again where its pages were connected. Waits (bounded by
    ``timeout`` seconds) for the line that names the port; :attr:`port` and :attr:`base`
    (``"127.0.0.1:<port>"``) tell where it listens; ``stderr_path`` keeps its standard error (the
    request log) in that file. :meth:`kill` SIGKILLs it.
    """

    def __init__(self, data_dir: Path, env: Mapping[str, str | None] | None = None, *, timeout: float = 30,
                 stderr_path: Path | None = None, port: int = 0) -> None:
        full_env = {**os.environ, "ROADS_FEED_TOKEN": FEED_TOKEN, "PYTHONUNBUFFERED": "1"}
        for key, value in (env or {}).items():
            if value is None:
                full_env.pop(key, None)
            else:
                full_env[key] = value
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "web.cli", "serve", "--host", "127.0.0.1", "--port", str(port), "--data", str(data_dir)],
            cwd=ROOT, env=full_env, stdout=subprocess.PIPE, text=True,
            stderr=subprocess.DEVNULL if stderr_path is None else stderr_path.open("w", encoding="utf-8"),
        )
        self.port = self._wait_for_port(timeout)
        self.base = f"127.0.0.1:{self.port}"

    def _wait_for_port(self, timeout: float) -> int:
        sel = selectors.DefaultSelector()
        sel.register(self.proc.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                if not sel.select(timeout=max(0.0, deadline - time.monotonic())):
                    break
                line = self.proc.stdout.readline()
                if not line:
                    break
                if "serving on http://127.0.0.1:" in line:
                    return int(line.split("http://127.0.0.1:")[1].split()[0].rstrip("/"))
        finally:
            sel.close()
        self.kill()
        raise AssertionError(f"roads serve did not start (exit code {self.proc.poll()})")

    def kill(self) -> None:
        """SIGKILL the process (if it still runs) and reap it."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


class FakeJSONService:
    """A loopback HTTP server standing in for the service: every GET or POST goes to
    :meth:`answer`, whose ``(status, JSON-ready answer)`` is sent back. :attr:`url` is its root."""

    def __init__(self) -> None:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def _reply(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length)) if length else None
                status, answer = owner.answer(self.command, self.path, body, self.headers)
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = _reply  # noqa: N815 (the names http.server calls)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def answer(self, method: str, path: str, body: Any, headers: Mapping[str, str]) -> tuple[int, Any]:
        """``(status, answer)`` for one request (``body``: the decoded JSON, ``None`` if empty)."""
        raise NotImplementedError

    def close(self) -> None:
        """Stop serving and close the listening socket."""
        self.server.shutdown()
        self.server.server_close()


_DOCS: "weakref.WeakKeyDictionary[Any, dict]" = weakref.WeakKeyDictionary()


def recv_snapshot(ws: Any) -> dict:
    """The next document frame of a ``websocket-client`` connection, skipping keepalives, as a
    snapshot frame: a delta frame is applied (``web.push.delta.apply``) to the connection's last
    document and returned as ``{"type": "snapshot", ..., "data": <the whole document>}`` with
    ``"delta": True`` added. A delta whose base is not the connection's last version fails the
    test. Error frames come back as they are."""
    for _ in range(100):
        msg = json.loads(ws.recv())
        if msg["type"] == "keepalive":
            continue
        if msg["type"] == "delta":
            last = _DOCS.get(ws)
            assert last is not None and last["version"] == msg["base"], (
                f"delta from {msg['base']} but the client holds {last and last['version']}")
            data = delta_apply(copy.deepcopy(last["data"]), msg["ops"])
            msg = {"type": "snapshot", "topic": msg["topic"], "version": msg["version"], "data": data, "delta": True}
        if msg["type"] == "snapshot":
            _DOCS[ws] = msg
        return msg
    raise AssertionError("only keepalives")
