"""A throwaway PostgreSQL cluster for the tests (and the benchmarks: a kept one in a given directory) of the history of several processes
(docs/history.md): Debian's binaries, ``initdb`` into a temporary directory, the server on a
free port listening on a unix socket in that directory only (no TCP), ``fsync=off`` (the tests
kill clients, never the server), one fresh database per test (:meth:`Cluster.new_database`).

The binaries are ``ROADS_TEST_PG_BIN`` when set, else the newest ``/usr/lib/postgresql/*/bin``,
else ``initdb`` on ``PATH``. Without them the tests skip with the reason, unless
``ROADS_TEST_REQUIRE_POSTGRES=1`` (set by ``.ci/run`` in CI), which turns the skip into a
failure. As root the server runs as the ``postgres`` user (PostgreSQL refuses to run as root).
Every wait is bounded.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import quote

import pytest

from support.serving import free_port

START_TIMEOUT_S = 60.0


def _fail_or_skip(reason: str) -> None:
    if os.environ.get("ROADS_TEST_REQUIRE_POSTGRES") == "1":
        pytest.fail(reason + " [ROADS_TEST_REQUIRE_POSTGRES=1]")
    pytest.skip(reason)


def pg_bin_dir() -> Path | None:
    """The directory of ``initdb`` and ``postgres``, or ``None``."""
    env = os.environ.get("ROADS_TEST_PG_BIN")
    if env:
        return Path(env)
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[-3]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


class Cluster:
    """A running throwaway cluster. ``url(dbname)``: a ``postgresql://`` URL of one of its
    databases (unix socket, user ``postgres``, no password). :meth:`stop` shuts it down and
    deletes its directory."""

    def __init__(self, bin_dir: Path, base: Path | None = None) -> None:
        self.bin_dir = bin_dir
        self.keep = base is not None
        if base is not None:
            base.mkdir(parents=True, exist_ok=True)
        self.base = Path(tempfile.mkdtemp(prefix="roads-pg-")) if base is None else base
        self.data = self.base / "data"
        self.port = free_port()
        self.user = "postgres"
        self.proc: subprocess.Popen | None = None
        self._as = None
        if os.geteuid() == 0:
            try:
                pw = pwd.getpwnam("postgres")
            except KeyError:
                raise RuntimeError("running as root and there is no `postgres` user to run PostgreSQL as") from None
            os.chown(self.base, pw.pw_uid, pw.pw_gid)
            self._as = pw.pw_name
        os.chmod(self.base, 0o755)  # the socket is in here; the data directory itself stays 0700
        if not (self.data / "PG_VERSION").exists():
            self._run([str(bin_dir / "initdb"), "-D", str(self.data), "-U", self.user, "--auth=trust", "-E", "UTF8",
                       "--locale=C", "--no-sync"])
        self.start()

    def _run(self, argv: list[str]) -> None:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=120, user=self._as, cwd=self.base)
        if out.returncode:
            raise RuntimeError(f"{argv[0]} failed ({out.returncode}): {out.stderr or out.stdout}")

    def start(self) -> None:
        """Start the server and wait until it answers (<= :data:`START_TIMEOUT_S`)."""
        log = open(self.base / "postgres.log", "ab")
        self.proc = subprocess.Popen(
            [str(self.bin_dir / "postgres"), "-D", str(self.data), "-p", str(self.port), "-k", str(self.base),
             "-c", "listen_addresses=", "-c", "fsync=off", "-c", "synchronous_commit=off",
             "-c", "full_page_writes=off", "-c", "max_connections=200", "-c", "shared_buffers=64MB"],
            stdout=log, stderr=subprocess.STDOUT, user=self._as, cwd=self.base, start_new_session=True)
        log.close()
        import psycopg

        deadline = time.monotonic() + START_TIMEOUT_S
        last: Exception | None = None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                break
            try:
                psycopg.connect(self.url("postgres"), connect_timeout=2).close()
                return
            except psycopg.OperationalError as e:
                last = e
                time.sleep(0.1)
        tail = (self.base / "postgres.log").read_text(errors="replace")[-2000:]
        self.stop()
        raise RuntimeError(f"PostgreSQL did not start on port {self.port} ({last}): {tail}")

    def url(self, dbname: str) -> str:
        """``postgresql://`` URL of database ``dbname`` over the unix socket."""
        return f"postgresql://{self.user}@/{dbname}?host={quote(str(self.base), safe='')}&port={self.port}"

    def execute(self, sql: str, dbname: str = "postgres") -> None:
        """Run ``sql`` in autocommit mode (CREATE/DROP DATABASE)."""
        import psycopg

        with psycopg.connect(self.url(dbname), autocommit=True, connect_timeout=5) as conn:
            conn.execute(sql)

    def new_database(self) -> str:
        """A fresh empty database; its URL."""
        name = f"roads_test_{uuid.uuid4().hex[:12]}"
        self.execute(f'CREATE DATABASE "{name}" TEMPLATE template0')
        return self.url(name)

    def drop_database(self, url: str) -> None:
        """Drop the database of ``url`` (closing its connections); best effort."""
        name = url.split("/")[3].split("?")[0]
        try:
            self.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        except Exception:  # noqa: BLE001 - a stopped cluster has nothing to drop
            pass

    def stop(self) -> None:
        """Fast shutdown (SIGINT), SIGKILL after 20 s, then delete the directory (unless it was
        given: a kept cluster, ``base``, starts again on its data)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        if not self.keep:
            shutil.rmtree(self.base, ignore_errors=True)


def cluster_or_skip() -> Cluster:
    """A started :class:`Cluster`; skips (or fails under ``ROADS_TEST_REQUIRE_POSTGRES=1``) when
    the binaries or psycopg are missing."""
    try:
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError as e:
        _fail_or_skip(f"psycopg 3 is not installed ({e}); pip install -e '.[test]'")
    bin_dir = pg_bin_dir()
    if bin_dir is None or not (bin_dir / "postgres").exists():
        _fail_or_skip("PostgreSQL's binaries are not installed (apt-get install postgresql; "
                      "or set ROADS_TEST_PG_BIN to the directory of initdb and postgres)")
    try:
        return Cluster(bin_dir)
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
        _fail_or_skip(f"cannot start a throwaway PostgreSQL from {bin_dir}: {e}")
        raise
