"""Helpers of the Redis tests (docs/deploy.md): reaching the shared Redis (a fresh key prefix per test,
:func:`shared_prefix`), a private Redis that can be stopped and restarted, and ``roads serve``
subprocesses over Redis.

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
import subprocess
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
    """

    def __init__(self, data_dir: Path, redis_url: str, prefix: str) -> None:
        super().__init__(data_dir, {"ROADS_REDIS_URL": redis_url, "ROADS_REDIS_PREFIX": prefix,
                                    "ROADS_REDIS_TIMEOUT_S": "1"})

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
            for s in self.get(f"/api/tables/{t['id']}/shoes")[1]["shoes"]:
                export = self.get(f"/api/tables/{t['id']}/shoes/{s['shoe']}/rounds")[1]
                stored += [(t["id"], r["feed"]) for r in export["rounds"]]
        return stored
