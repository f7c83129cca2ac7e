"""The several-host lab (deploy/lab.py, docs/deploy.md "Several hosts"): every failure scenario
end to end, each on a lab of its own that ``lab.py run`` brings up and takes down.

Each scenario's last output line is its JSON object; the outcomes asserted are exact: every
screen ends equal to the API of every service host (``equal_screens`` = ``screens``,
``missed_updates`` 0 after resync), the service hosts agree, no fed message is lost, plus
what the scenario is about (the killed edge holds no screen and every screen is live again,
writes were refused and then accepted, the slow edge took none of the new screens...).
Recovery times are bounded at 30 s: under the pages' 60 s idle timeout, so a recovery that
only came from the idle timeout fails. Afterwards nothing is left: no namespace, no state folder.

Needs root (network namespaces) and what ``lab.py up`` lists (nginx with nchan, HAProxy,
redis-server, Node 20, gunicorn in the venv). Without root the tests skip; with root, a
missing tool skips with its name, or fails under ``ROADS_TEST_REQUIRE_LAB=1`` (``.ci/run``
sets it in CI when it runs as root). CI runs edge-kill and redis-restart; the other four run
with ``ROADS_TEST_LAB_ALL=1`` (about 4 minutes more).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAB = ROOT / "deploy" / "lab.py"
sys.path.insert(0, str(ROOT / "deploy"))

from labkit import hosts, net  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]
BOUND_S = 30.0


def lab_or_skip() -> None:
    if os.geteuid() != 0:
        pytest.skip("the lab needs root (network namespaces, veths, a bridge): run as root")
    problems = hosts.missing()
    if problems:
        reason = "the lab needs: " + "; ".join(problems)
        if os.environ.get("ROADS_TEST_REQUIRE_LAB") == "1":
            pytest.fail(reason + " [ROADS_TEST_REQUIRE_LAB=1]")
        pytest.skip(reason)
    if net.existing():
        pytest.fail(f"a lab is up already ({', '.join(net.existing())}): python3 deploy/lab.py down")


def all_scenarios_or_skip() -> None:
    if os.environ.get("ROADS_TEST_LAB_ALL") != "1":
        pytest.skip("set ROADS_TEST_LAB_ALL=1 to run this lab scenario (CI runs edge-kill and redis-restart)")


def run(scenario: str, *options: str) -> dict:
    """``lab.py run scenario`` on a lab of its own: its JSON line; checks nothing is left."""
    lab_or_skip()
    done = subprocess.run([sys.executable, str(LAB), "run", scenario, *options], capture_output=True, text=True,
                          timeout=540)
    try:
        lines = done.stdout.strip().splitlines()
        assert lines, f"no output (exit {done.returncode}):\n{done.stderr[-4000:]}"
        result = json.loads(lines[-1])
        assert result["scenario"] == scenario
        exact(result, done.stderr)
        assert done.returncode == 0, done.stderr[-4000:]
        return result
    finally:
        assert net.existing() == [], "namespaces left behind"
        assert not hosts.STATE_DIR.exists(), f"{hosts.STATE_DIR} left behind"


def exact(result: dict, log: str) -> None:
    """What every scenario must end with."""
    context = f"{json.dumps(result)}\n{log[-3000:]}"
    assert result["screens"] > 0, context
    assert result["missed_updates"] == 0, context
    assert result["equal_screens"] == result["screens"] + result.get("new_screens", 0), context
    assert result["hosts_agree"] is True, context
    assert result["rounds_lost"] == 0, context
    assert result["updates_sent"] > 0, context
    assert result["recover_p99_s"] < BOUND_S, context
    assert result["ok"] is True, context


def test_up_and_down_leave_nothing_behind():
    lab_or_skip()
    up = subprocess.run([sys.executable, str(LAB), "up"], capture_output=True, text=True, timeout=180)
    try:
        assert up.returncode == 0, up.stderr
        assert sorted(net.existing()) == sorted(net.ns(h) for h in [*hosts.HOSTS, net.SWITCH])
        stats = hosts.edge_stats()
        assert sorted(stats) == list(hosts.EDGES)
        assert all(s["status"] == "UP" for s in stats.values()), stats
        status = subprocess.run([sys.executable, str(LAB), "status"], capture_output=True, text=True, timeout=60)
        assert '"balancer"' in status.stdout
    finally:
        down = subprocess.run([sys.executable, str(LAB), "down"], capture_output=True, text=True, timeout=120)
    assert down.returncode == 0, down.stderr
    assert net.existing() == []
    assert not hosts.STATE_DIR.exists()
    assert not list(hosts.CGROUP_V1.glob("roadslab-*")) if hosts.CGROUP_V1.is_dir() else True


def test_edge_kill_screens_move_to_the_other_edges_and_resync():
    result = run("edge-kill")
    victim = result["victim"]
    assert result["victim_status"].startswith("DOWN"), result
    assert result["per_edge_after"][victim] == 0, result
    assert sum(result["per_edge_after"].values()) >= result["screens"], result
    assert result["live_screens"] == result["screens"], result
    assert result["reconnects"] > 0 and result["affected_screens"] > 0, result


def test_redis_restart_publishing_and_subscriptions_resume():
    result = run("redis-restart")
    assert result["feed_retries"] > 0, result  # writes were refused while Redis was down...
    assert result["feed_outage_s"] >= result["redis_down_s"] * 0.8, result  # ...for about as long
    assert result["live_screens"] == result["screens"], result


def test_nginx_reload_leaves_no_screen_frozen():
    all_scenarios_or_skip()
    result = run("nginx-reload")
    assert result["live_screens"] == result["screens"], result
    assert result["offline_screens"] == 0, result


def test_service_kill_the_other_host_publishes_and_the_restarted_one_agrees():
    all_scenarios_or_skip()
    result = run("service-kill")
    assert result["feed_retries"] > 0, result  # the adapters failed over
    assert result["rejoined_agrees"] is True, result


def test_service_partition_the_cut_host_catches_up():
    all_scenarios_or_skip()
    result = run("service-partition")
    assert result["cut_s"] == 30.0
    assert result["feed_retries"] > 0, result
    assert result["live_screens"] == result["screens"], result


def test_slow_edge_new_screens_go_elsewhere():
    all_scenarios_or_skip()
    if hosts.cgroup_cpu() is None:
        pytest.skip("no writable cgroup CPU controller to starve an edge with")
    result = run("slow-edge")
    victim = result["victim"]
    assert result["victim_status"].startswith("DOWN"), result
    assert result["new_connections"][victim] == 0, result
    assert sum(result["new_connections"].values()) >= result["new_screens"], result
    assert result["new_live"] == result["new_screens"], result
