"""nginx with ``deploy/nginx.conf`` for the tests that run the documented front server: find the
binary (skip without it, fail under ``ROADS_TEST_REQUIRE_NGINX=1``) and move the file's ports, pid
file, logs and temp folders into a test's folder."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from support.serving import ROOT

NGINX_CONF = ROOT / "deploy" / "nginx.conf"


def nginx_or_skip() -> str:
    """The nginx binary; skips the test without one (fails under ``ROADS_TEST_REQUIRE_NGINX=1``)."""
    found = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx", "/usr/bin/nginx") if os.path.exists(p)), None)
    if found is None:
        reason = "nginx not found (Debian package 'nginx'; .ci/run installs it)"
        if os.environ.get("ROADS_TEST_REQUIRE_NGINX") == "1":
            pytest.fail(f"ROADS_TEST_REQUIRE_NGINX=1 but {reason}")
        pytest.skip(reason)
    return found


def _replace_once(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, f"deploy/nginx.conf no longer has exactly one {old!r}"
    return text.replace(old, new)


def nginx_config(tmp: Path, listen: int, upstream: int) -> str:
    """deploy/nginx.conf with its ports, pid file, logs and temp folders moved to ``tmp``."""
    text = NGINX_CONF.read_text(encoding="utf-8")
    text = _replace_once(text, "listen 80;", f"listen 127.0.0.1:{listen};")
    text = _replace_once(text, "server 127.0.0.1:8000;", f"server 127.0.0.1:{upstream};")
    text = _replace_once(text, "pid /run/nginx-roads.pid;", f"pid {tmp}/nginx.pid;")
    text = _replace_once(text, "error_log /var/log/nginx/roads-error.log", f"error_log {tmp}/nginx-error.log")
    text = _replace_once(text, "access_log /var/log/nginx/roads-access.log", f"access_log {tmp}/nginx-access.log")
    temp = "".join(f"    {kind}_temp_path {tmp}/{kind};\n" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    return _replace_once(text, "http {\n", "http {\n" + temp)
