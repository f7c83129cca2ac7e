"""nginx with the nchan module, started by a test on free loopback ports (the production push tier).

:class:`NginxNchan` renders ``deploy/nginx-nchan.conf`` (through ``deploy/render.py``) into a
temporary folder, starts ``nginx -g 'daemon off;'`` on it and stops it (SIGQUIT, then SIGKILL)
when the ``with`` block ends; every wait is bounded. :func:`publisher_stand_in` is an HTTP
server standing in for nchan's publisher location (it records every POST). :func:`nchan_or_skip` skips a test when
nginx or the module is missing, unless ``ROADS_TEST_REQUIRE_NCHAN=1`` (``.ci/run`` sets it in
CI, and installs Debian's ``nginx`` and ``libnginx-mod-nchan``), which makes that a failure.
"""

from __future__ import annotations

import contextlib
import http.server
import importlib.util
import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Iterator

import pytest

from support.serving import ROOT, free_port

NCHAN_MODULE = Path("/usr/lib/nginx/modules/ngx_nchan_module.so")
TEMPLATE = ROOT / "deploy" / "nginx-nchan.conf"


@contextlib.contextmanager
def publisher_stand_in() -> Iterator[tuple[str, list[tuple[str, dict, float]]]]:
    """``(publish URL, posts)`` of a loopback HTTP server answering every POST 202 like nchan's
    publisher location; ``posts`` lists ``(channel, frame dict, monotonic time)`` in order."""
    posts: list[tuple[str, dict, float]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):  # noqa: N802 (http.server's name)
            body = self.rfile.read(int(self.headers["Content-Length"]))
            posts.append((self.path.rsplit("/", 1)[1], json.loads(body), time.monotonic()))
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/pub/", posts
    finally:
        server.shutdown()
        server.server_close()


def nginx_binary() -> str | None:
    """The nginx executable (``PATH``, else ``/usr/sbin/nginx``), or ``None``."""
    found = shutil.which("nginx")
    if found:
        return found
    return "/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None


def nchan_or_skip() -> str:
    """The nginx executable; skips (fails under ``ROADS_TEST_REQUIRE_NCHAN=1``) when nginx or
    the nchan module is missing."""
    binary = nginx_binary()
    reason = None
    if binary is None:
        reason = "nginx not found (Debian package 'nginx'; .ci/run installs it)"
    elif not NCHAN_MODULE.exists():
        reason = f"nchan module not found at {NCHAN_MODULE} (Debian package 'libnginx-mod-nchan')"
    if reason:
        if os.environ.get("ROADS_TEST_REQUIRE_NCHAN") == "1":
            pytest.fail(f"ROADS_TEST_REQUIRE_NCHAN=1 but {reason}")
        pytest.skip(reason)
    return binary  # type: ignore[return-value]


def _render():
    spec = importlib.util.spec_from_file_location("roads_deploy_render", ROOT / "deploy" / "render.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module.render


def wait_port(port: int, timeout: float) -> None:
    """Wait until 127.0.0.1:``port`` accepts a connection (``TimeoutError`` after ``timeout`` s)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {timeout} s") from None
            time.sleep(0.05)


class NginxNchan:
    """nginx + nchan in front of ``upstream`` (``"127.0.0.1:<port>"``), run from a fresh
    temporary folder that every user may enter (nginx's workers run as ``nobody`` under a
    root master) and that :meth:`stop` removes.

    Attributes once started: :attr:`port` (public server), :attr:`publish_port`,
    :attr:`base` (``"127.0.0.1:<port>"``), :attr:`publish_url` (the
    ``ROADS_NCHAN_PUBLISH_URL`` value). Ports are chosen before the service starts
    (:meth:`choose_ports`) so the service can be told where to publish.
    """

    def __init__(self, *, workers: int = 1, connections: int = 4096) -> None:
        self.binary = nchan_or_skip()
        self.run_dir = Path(tempfile.mkdtemp(prefix="roads-nginx-"))
        self.workers, self.connections = workers, connections
        self.port = free_port()
        self.publish_port = free_port()
        while self.publish_port == self.port:
            self.publish_port = free_port()
        self.base = f"127.0.0.1:{self.port}"
        self.publish_url = f"http://127.0.0.1:{self.publish_port}/pub/"
        self.proc: subprocess.Popen | None = None

    def config(self, upstream: str) -> str:
        """The rendered configuration for ``upstream``."""
        return _render()(TEMPLATE.read_text(encoding="utf-8"), {
            "NCHAN_MODULE": str(NCHAN_MODULE), "RUN_DIR": str(self.run_dir), "WORKERS": str(self.workers),
            "CONNECTIONS": str(self.connections), "NOFILE": str(resource.getrlimit(resource.RLIMIT_NOFILE)[1]),
            "LISTEN": f"127.0.0.1:{self.port}",
            "PUBLISH_LISTEN": f"127.0.0.1:{self.publish_port}", "UPSTREAM": upstream,
            "STATIC_DIR": str(ROOT / "static"),
        })

    def start(self, upstream: str, timeout: float = 15) -> "NginxNchan":
        """Write the configuration and start nginx; returns once both ports accept."""
        os.chmod(self.run_dir, 0o777)  # workers run as nobody when the master is root
        conf = self.run_dir / "nginx.conf"
        conf.write_text(self.config(upstream), encoding="utf-8")
        self.proc = subprocess.Popen(
            [self.binary, "-p", str(self.run_dir), "-c", str(conf), "-g", "daemon off;"],
            stdout=subprocess.DEVNULL, stderr=open(self.run_dir / "stderr.log", "wb"),
            start_new_session=True)
        try:
            wait_port(self.port, timeout)
            wait_port(self.publish_port, timeout)
        except TimeoutError:
            self.stop()
            raise AssertionError("nginx did not start: " + self.log())
        return self

    def log(self) -> str:
        """The error log and nginx's stderr (for failure messages)."""
        out = []
        for name in ("error.log", "stderr.log"):
            path = self.run_dir / name
            if path.exists():
                out.append(path.read_text(encoding="utf-8", errors="replace")[-4000:])
        return "\n".join(out)

    def stop(self, timeout: float = 10) -> None:
        """SIGQUIT (graceful), then SIGKILL of nginx's process group after ``timeout`` s."""
        if self.proc is None:
            return
        proc, self.proc = self.proc, None
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGQUIT)
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=timeout)
            except ProcessLookupError:
                pass
        # Workers of a killed master die with their group; make sure none is left behind.
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        shutil.rmtree(self.run_dir, ignore_errors=True)

    def __enter__(self) -> "NginxNchan":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
