"""Helpers of the Redis tests (docs/deploy.md): reaching the shared Redis (a fresh key prefix per test,
:func:`shared_prefix`), a private Redis that can be stopped and restarted, ``roads serve``
subprocesses over Redis, and a proxy that loses replies, cuts connections or holds the log
(:class:`RedisProxy`).

The shared Redis is ``ROADS_TEST_REDIS_URL`` (default ``redis://127.0.0.1:6379/0``); every test
uses its own key prefix and deletes its keys afterwards. Without a reachable Redis the tests
skip with the reason, unless ``ROADS_TEST_REQUIRE_REDIS=1`` (set by ``.ci/run`` in CI), which
turns the skip into a failure. Everything listens on 127.0.0.1 only; every wait is bounded.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
import uuid
from pathlib import Path
from typing import Any, Iterator

import pytest

from support.feed import FEED_TOKEN
from support.serving import ServeProcess, free_port

SHARED_REDIS_URL = os.environ.get("ROADS_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def redis_or_skip(url: str = SHARED_REDIS_URL) -> None:
    """Skip the test (fail under ``ROADS_TEST_REQUIRE_REDIS=1``) when ``url`` does not answer PING."""
    import redis

    try:
        client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
        try:
            client.ping()
        finally:
            client.close()
    except (redis.RedisError, OSError) as e:
        reason = (f"no Redis reachable at {url} ({e}); start one with "
                  "`redis-server --bind 127.0.0.1 --port 6379 --save '' --appendonly no --daemonize yes`")
        if os.environ.get("ROADS_TEST_REQUIRE_REDIS") == "1":
            pytest.fail(reason + " [ROADS_TEST_REQUIRE_REDIS=1]")
        pytest.skip(reason)


def redis_server_or_skip() -> str:
    """The path of ``redis-server`` (to run a private one); skip/fail like :func:`redis_or_skip`."""
    path = shutil.which("redis-server")
    if path is None:
        reason = "redis-server is not installed (apt-get install redis-server)"
        if os.environ.get("ROADS_TEST_REQUIRE_REDIS") == "1":
            pytest.fail(reason + " [ROADS_TEST_REQUIRE_REDIS=1]")
        pytest.skip(reason)
    return path


def new_prefix() -> str:
    """A key prefix no other test uses: ``"roads-test-<hex>:"``."""
    return f"roads-test-{uuid.uuid4().hex[:12]}:"


def shared_prefix() -> Iterator[str]:
    """Body of a ``prefix`` fixture (``yield from shared_prefix()``): a fresh key prefix on the
    shared Redis (skips without Redis, see :func:`redis_or_skip`); its keys are deleted after."""
    redis_or_skip()
    prefix = new_prefix()
    yield prefix
    delete_prefix(SHARED_REDIS_URL, prefix)


def delete_prefix(url: str, prefix: str) -> None:
    """Delete every key under ``prefix`` (best effort: a stopped Redis has nothing to clean)."""
    import redis

    try:
        client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
        try:
            keys = list(client.scan_iter(match=prefix + "*", count=1000))
            if keys:
                client.delete(*keys)
        finally:
            client.close()
    except (redis.RedisError, OSError):
        pass


class PrivateRedis:
    """A ``redis-server`` of the test's own on a free loopback port, data in ``directory``, with
    ``appendonly yes`` and ``appendfsync always`` (a write is on disk before its reply), so it
    can be killed and started again without touching the shared Redis."""

    def __init__(self, directory: Path) -> None:
        self.binary = redis_server_or_skip()
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen | None = None
        self.start()

    def start(self) -> None:
        """Start the server (loads its append-only file) and wait until it answers (<= 15 s)."""
        import redis

        log = open(self.directory / "redis.log", "ab")
        self.proc = subprocess.Popen(
            [self.binary, "--bind", "127.0.0.1", "--port", str(self.port), "--dir", str(self.directory),
             "--appendonly", "yes", "--appendfsync", "always", "--save", "", "--daemonize", "no"],
            stdout=log, stderr=subprocess.STDOUT,
        )
        log.close()
        client = redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=1, socket_connect_timeout=1)
        deadline = time.monotonic() + 15
        try:
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    break
                try:
                    if client.ping():
                        return
                except (redis.RedisError, OSError):
                    time.sleep(0.05)
        finally:
            client.close()
        self.kill()
        raise AssertionError(f"private redis-server on port {self.port} did not start; "
                             f"see {self.directory / 'redis.log'}")

    def kill(self) -> None:
        """SIGKILL the server (no shutdown save: only what was fsynced survives) and reap it."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        if self.proc is not None:
            self.proc.wait(timeout=10)


class Server(ServeProcess):
    """``python -m web.cli serve`` on a free loopback port over Redis, in a subprocess.

    ``redis_url``/``prefix``: the shared log. ``data_dir``: the (unused) SQLite directory.
    ``history_url``: the PostgreSQL history (``ROADS_HISTORY_URL``), or none.
    """

    def __init__(self, data_dir: Path, redis_url: str, prefix: str, history_url: str | None = None) -> None:
        super().__init__(data_dir, {"ROADS_REDIS_URL": redis_url, "ROADS_REDIS_PREFIX": prefix,
                                    "ROADS_REDIS_TIMEOUT_S": "1", "ROADS_HISTORY_URL": history_url})

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, bytes]:
        """``(status, body bytes)`` of one request (feed token attached to writes)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            headers = {}
            data = None
            if body is not None:
                data = json.dumps(body)
                headers = {"Authorization": f"Bearer {FEED_TOKEN}", "Content-Type": "application/json"}
            conn.request(method, path, body=data, headers=headers)
            resp = conn.getresponse()
            return resp.status, resp.read()
        finally:
            conn.close()

    def get(self, path: str) -> tuple[int, Any]:
        status, data = self.request("GET", path)
        return status, json.loads(data)

    def post_round(self, table: str, body: dict) -> tuple[int, Any]:
        status, data = self.request("POST", f"/api/tables/{table}/rounds", body)
        return status, json.loads(data)

    def version(self, table: str) -> int:
        """The table's current version here (0 while this process does not know the table)."""
        status, snap = self.get(f"/api/tables/{table}")
        return snap["version"] if status == 200 else 0

    def wait_version(self, table: str, version: int, timeout: float = 15) -> None:
        """Wait (bounded) until this process serves ``table`` at ``version`` or later."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.version(table) >= version:
                return
            time.sleep(0.02)
        raise AssertionError(f"{self.base}: table {table!r} still at version {self.version(table)}, expected {version}")

    def everything(self) -> dict[str, bytes]:
        """Every read-API answer of every table and shoe, as raw bytes (for comparing processes)."""
        out = {"/api/tables": self.request("GET", "/api/tables")[1]}
        for t in json.loads(out["/api/tables"])["tables"]:
            base = f"/api/tables/{t['id']}"
            for url in (base, base + "/shoes"):
                out[url] = self.request("GET", url)[1]
            for s in json.loads(out[base + "/shoes"])["shoes"]:
                for suffix in ("", "/rounds"):
                    url = f"{base}/shoes/{s['shoe']}{suffix}"
                    out[url] = self.request("GET", url)[1]
        return out

    def stored_rounds(self) -> list[tuple[str, dict]]:
        """Every stored round as ``(table, feed body)``, tables and shoes in order."""
        stored = []
        for t in self.get("/api/tables")[1]["tables"]:
            shoes, url = [], f"/api/tables/{t['id']}/shoes"
            while url is not None:  # every page (newest first), then oldest first
                page = self.get(url)[1]
                shoes += page["shoes"]
                url = page["next"]
            for s in reversed(shoes):
                export = self.get(f"/api/tables/{t['id']}/shoes/{s['shoe']}/rounds")[1]
                stored += [(t["id"], r["feed"]) for r in export["rounds"]]
        return stored


class RedisProxy:
    """A TCP proxy on a free loopback port in front of the Redis at ``target`` (a ``redis://``
    URL): what a process sees of Redis over a network that can fail. :attr:`url` is the proxy's
    URL (same database number). Byte for byte in both directions, except:

    * :meth:`lose_next_reply` ``(command)``: the next request of that command (e.g.
      ``b"EVALSHA"``) reaches Redis and runs, and its reply is lost: the connection is closed
      instead (:attr:`lost` counts them);
    * :meth:`cut` closes every connection and refuses new ones until :meth:`restore`;
    * :meth:`hold_log_readers` makes a process deaf to the shared log: from then on, no
      answer reaches a connection that ever sent ``XREAD``, nor any connection opened after
      the call, until :meth:`restore`; connections already open that never read the log (a
      process's request connection) work on.

    Commands are recognised by their name as redis-py sends it (a RESP bulk string, upper
    case). :meth:`close` stops it.
    """

    def __init__(self, target: str) -> None:
        from urllib.parse import urlparse

        u = urlparse(target)
        self.upstream = (u.hostname or "127.0.0.1", u.port or 6379)
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}{u.path or '/0'}"
        self.lock = threading.Lock()
        self.conns: list[dict] = []
        self.lose: bytes | None = None
        self.lost = 0
        self.refusing = False
        self.holding = False
        self.closed = False
        threading.Thread(target=self._accept, name="redis-proxy", daemon=True).start()

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            with self.lock:
                if self.refusing or self.closed:
                    client.close()
                    continue
                try:
                    upstream = socket.create_connection(self.upstream, timeout=5)
                except OSError:
                    client.close()
                    continue
                upstream.settimeout(None)
                conn = {"client": client, "upstream": upstream, "reads_log": False,
                        "held": self.holding, "lose": False}
                self.conns.append(conn)
            threading.Thread(target=self._requests, args=(conn,), daemon=True).start()
            threading.Thread(target=self._replies, args=(conn,), daemon=True).start()

    def _requests(self, conn: dict) -> None:
        while True:
            try:
                data = conn["client"].recv(1 << 16)
            except OSError:
                data = b""
            if not data:
                return self._drop(conn)
            with self.lock:
                if b"\r\nXREAD\r\n" in data:
                    conn["reads_log"] = True
                    if self.holding:
                        conn["held"] = True
                if self.lose is not None and b"\r\n" + self.lose + b"\r\n" in data:
                    self.lose, conn["lose"] = None, True
            try:
                conn["upstream"].sendall(data)
            except OSError:
                return self._drop(conn)

    def _replies(self, conn: dict) -> None:
        while True:
            try:
                data = conn["upstream"].recv(1 << 16)
            except OSError:
                data = b""
            if not data:
                return self._drop(conn)
            with self.lock:
                lose, held = conn["lose"], conn["held"]
                if lose:
                    self.lost += 1
            if lose:
                return self._drop(conn)
            if held:
                continue
            try:
                conn["client"].sendall(data)
            except OSError:
                return self._drop(conn)

    def _drop(self, conn: dict) -> None:
        for key in ("client", "upstream"):
            try:
                conn[key].shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            conn[key].close()
        with self.lock:
            if conn in self.conns:
                self.conns.remove(conn)

    def _drop_all(self, which=lambda conn: True) -> None:
        with self.lock:
            doomed = [c for c in self.conns if which(c)]
        for conn in doomed:
            self._drop(conn)

    def lose_next_reply(self, command: bytes) -> None:
        """Lose the reply to the next ``command`` request (it still runs in Redis)."""
        with self.lock:
            self.lose = command

    def cut(self) -> None:
        """Close every connection and refuse new ones until :meth:`restore`."""
        with self.lock:
            self.refusing = True
        self._drop_all()

    def hold_log_readers(self) -> None:
        """No answer reaches the log's readers (nor new connections) until :meth:`restore`."""
        with self.lock:
            self.holding = True
            for conn in self.conns:
                if conn["reads_log"]:
                    conn["held"] = True

    def restore(self) -> None:
        """Back to normal: new connections are accepted; connections held are closed."""
        with self.lock:
            self.refusing = self.holding = False
        self._drop_all(lambda conn: conn["held"])

    def close(self) -> None:
        """Stop accepting and close every connection."""
        self.closed = True
        self.listener.close()
        self._drop_all()
