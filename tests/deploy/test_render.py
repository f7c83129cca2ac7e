"""deploy/render.py and the several-host templates: list values, optional lines, and every
template rendered as the lab renders it is accepted by its engine (``nginx -t``, ``haproxy -c``)
where the engine is installed; the one-host rendering of nginx-nchan.conf has no Redis line."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("roads_deploy_render", ROOT / "deploy" / "render.py")
render_module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
spec.loader.exec_module(render_module)  # type: ignore[union-attr]
render = render_module.render


def test_a_list_value_writes_its_line_once_per_item():
    out = render("upstream x {\n    server @UPSTREAM@;\n}\n", {"UPSTREAM": "10.0.0.1:80 max_fails=1, 10.0.0.2:80"})
    assert out == "upstream x {\n    server 10.0.0.1:80 max_fails=1;\n    server 10.0.0.2:80;\n}\n"


def test_two_lists_on_one_line_are_refused():
    with pytest.raises(ValueError, match="A, B"):
        render("@A@ @B@\n", {"A": "1,2", "B": "3,4"})


def test_optional_lines_are_kept_only_when_their_token_is_set():
    template = "a\n    @?R@redis @R@;\n  @?R@more\nb\n"
    assert render(template, {}) == "a\nb\n"
    assert render(template, {"R": ""}) == "a\nb\n"
    assert render(template, {"R": "redis://h:1"}) == "a\n    redis redis://h:1;\n  more\nb\n"


def test_a_token_without_a_value_is_named():
    with pytest.raises(KeyError, match="NOPE"):
        render("x @NOPE@\n", {})


def edge_values(tmp_path: Path, **more: str) -> dict[str, str]:
    return {"RUN_DIR": str(tmp_path), "LISTEN": "127.0.0.1:18080", "PUBLISH_LISTEN": "127.0.0.1:18081",
            "UPSTREAM": "127.0.0.1:18000", "STATIC_DIR": str(ROOT / "static"), "NOFILE": "1024", "CONNECTIONS": "512",
            **more}


def test_one_host_nginx_has_no_redis_and_several_hosts_pass_redis_in_every_nchan_location(tmp_path):
    template = (ROOT / "deploy" / "nginx-nchan.conf").read_text()
    one = render(template, edge_values(tmp_path))
    assert "redis" not in "\n".join(line for line in one.splitlines() if not line.lstrip().startswith("#"))
    several = render(template, edge_values(tmp_path, NCHAN_REDIS="redis://10.0.0.5:6379",
                                            UPSTREAM="10.0.0.11:8000,10.0.0.12:8000"))
    assert "nchan_redis_server redis://10.0.0.5:6379;" in several
    assert several.count("server 10.0.0.1") == 2
    # nchan does not inherit nchan_redis_pass: every location with a channel names it
    assert several.count("nchan_channel_id") == several.count("nchan_redis_pass roads_nchan_redis;") == 6


def test_the_service_hosts_publisher_location_is_the_edges(tmp_path):
    def publisher(text: str) -> list[str]:
        start = text.index("location ~ ^/pub/(.+)$ {")
        block = text[start:text.index("}", start)]
        return [line.split("#")[0].strip() for line in block.splitlines() if line.split("#")[0].strip()]

    edge = render((ROOT / "deploy" / "nginx-nchan.conf").read_text(), edge_values(tmp_path, NCHAN_REDIS="redis://r:6379"))
    service = render((ROOT / "deploy" / "nginx-nchan-publish.conf").read_text(),
                     {"RUN_DIR": str(tmp_path), "PUBLISH_LISTEN": "127.0.0.1:18081", "NCHAN_REDIS": "redis://r:6379"})
    assert publisher(edge) == publisher(service)


@pytest.mark.parametrize("template", ["nginx-nchan.conf", "nginx-nchan-publish.conf"])
def test_nginx_accepts_the_several_host_templates(tmp_path, template):
    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if nginx is None or not Path("/usr/lib/nginx/modules/ngx_nchan_module.so").exists():
        pytest.skip("nginx with nchan is not installed")
    conf = tmp_path / "nginx.conf"
    conf.write_text(render((ROOT / "deploy" / template).read_text(),
                           edge_values(tmp_path, NCHAN_REDIS="redis://127.0.0.1:6379",
                                       UPSTREAM="127.0.0.1:18000 max_fails=1,127.0.0.1:18001")))
    done = subprocess.run([nginx, "-t", "-p", str(tmp_path), "-c", str(conf)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_haproxy_accepts_its_template(tmp_path):
    haproxy = shutil.which("haproxy") or ("/usr/sbin/haproxy" if Path("/usr/sbin/haproxy").exists() else None)
    if haproxy is None:
        pytest.skip("haproxy is not installed")
    conf = tmp_path / "haproxy.cfg"
    conf.write_text(render((ROOT / "deploy" / "haproxy.cfg").read_text(),
                           {"RUN_DIR": str(tmp_path), "LISTEN": "127.0.0.1:18090", "MAXCONN": "1000",
                            "EDGES": "edge1 127.0.0.1:18080,edge2 127.0.0.1:18082"}))
    done = subprocess.run([haproxy, "-c", "-f", str(conf)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "server edge1 127.0.0.1:18080 check" in conf.read_text()
    assert "balance leastconn" in conf.read_text()
