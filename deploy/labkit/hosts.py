"""The lab's hosts and the processes each runs, configured from the deploy/ templates.

Topology (addresses ``10.27.0.x``, :data:`HOSTS`):

- ``lb``: HAProxy (``deploy/haproxy.cfg``), least connections over the edges, port 80;
- ``edge1..3``: nginx + nchan (``deploy/nginx-nchan.conf`` with ``NCHAN_REDIS``) on port 80,
  its publisher server on 127.0.0.1:8081, and ``deploy/edge_watchdog.py``;
- ``svc1``, ``svc2``: gunicorn -k gevent (``deploy/gunicorn.conf.py``) on port 8000 on the Redis
  store, publishing through a local nginx + nchan (``deploy/nginx-nchan-publish.conf``);
- ``redis``: redis-server (``deploy/redis.conf``), port 6379: the event streams, the publish
  leases and nchan's channels;
- ``cli``: where screens and feeders run.

Everything the lab writes lives under :data:`STATE_DIR` (configs, logs, Redis's data, the
state file); :func:`down` removes it with the namespaces and cgroups.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from labkit import net

ROOT = Path(__file__).resolve().parents[2]
STATE_DIR = Path(os.environ.get("ROADS_LAB_DIR", "/tmp/roads-lab"))
HOSTS = {"lb": "2", "redis": "10", "svc1": "21", "svc2": "22", "edge1": "31", "edge2": "32", "edge3": "33",
         "cli": "100"}
EDGES = ("edge1", "edge2", "edge3")
SERVICES = ("svc1", "svc2")
TOKEN = "lab-feed-token"
REDIS_PORT, SERVICE_PORT, EDGE_PORT, LB_PORT = 6379, 8000, 80, 80
PUBLISH = "127.0.0.1:8081"
# The machine's cgroups: `ip netns exec` mounts a sysfs of its own over /sys, so the scenarios
# (run in the client host's namespace) reach them through the root of `lab.py run` itself.
_CGROUPS = Path(os.environ.get("ROADS_LAB_HOST_ROOT", "/")) / "sys" / "fs" / "cgroup"
CGROUP_V1 = _CGROUPS / "cpu"
CGROUP_V2 = _CGROUPS


def addr(host: str) -> str:
    """``host``'s address."""
    return f"{net.SUBNET}.{HOSTS[host]}"


def redis_url() -> str:
    return f"redis://{addr('redis')}:{REDIS_PORT}"


# ----------------------------------------------------------------------------- what the lab needs
def tools() -> dict[str, str | None]:
    """Path of each program the lab runs (``None``: not found)."""
    venv_bin = ROOT / ".venv" / "bin"
    gunicorn = Path(sys.executable).with_name("gunicorn")
    if not gunicorn.exists():
        gunicorn = venv_bin / "gunicorn"
    return {
        "nginx": shutil.which("nginx") or ("/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None),
        "haproxy": shutil.which("haproxy") or ("/usr/sbin/haproxy" if os.access("/usr/sbin/haproxy", os.X_OK) else None),
        "redis-server": shutil.which("redis-server"),
        "node": shutil.which("node"),
        "gunicorn": str(gunicorn) if gunicorn.exists() else shutil.which("gunicorn"),
        "python": sys.executable,
    }


NCHAN_MODULE = Path("/usr/lib/nginx/modules/ngx_nchan_module.so")


def missing() -> list[str]:
    """What this machine lacks for ``lab.py up``, each with how to get it (empty: nothing)."""
    out = net.missing()
    found = tools()
    hints = {"nginx": "apt-get install nginx", "haproxy": "apt-get install haproxy",
             "redis-server": "apt-get install redis-server", "node": "Node.js 20 or later (apt-get install nodejs)",
             "gunicorn": "pip install -e '.[production]' (gunicorn[gevent])"}
    for name, hint in hints.items():
        if found[name] is None:
            out.append(f"{name} ({hint})")
    if not NCHAN_MODULE.exists():
        out.append(f"nchan at {NCHAN_MODULE} (apt-get install libnginx-mod-nchan)")
    if found["node"]:
        probe = subprocess.run([found["node"], "--experimental-websocket", "-e",
                                "process.exit(typeof WebSocket === 'function' ? 0 : 1)"], capture_output=True)
        if probe.returncode != 0:
            out.append("a Node.js with a WebSocket client (20.10 or later: --experimental-websocket)")
    return out


def cgroup_cpu() -> str | None:
    """``"v1"`` or ``"v2"``: the cgroup CPU controller the slow-edge check starves an edge with, or
    ``None`` when neither is writable."""
    if (CGROUP_V1 / "cpu.cfs_quota_us").exists() and os.access(CGROUP_V1, os.W_OK):
        return "v1"
    controllers = CGROUP_V2 / "cgroup.controllers"
    if controllers.exists() and "cpu" in controllers.read_text().split() and os.access(CGROUP_V2, os.W_OK):
        return "v2"
    return None


# ----------------------------------------------------------------------------- state and processes
def state() -> dict[str, Any]:
    """The state file (``{}`` when the lab is down)."""
    path = STATE_DIR / "state.json"
    return json.loads(path.read_text()) if path.exists() else {}


def save_state(data: dict[str, Any]) -> None:
    (STATE_DIR / "state.json").write_text(json.dumps(data, indent=1))


def is_up() -> bool:
    return bool(net.existing()) and (STATE_DIR / "state.json").exists()


def spawn(host: str, name: str, argv: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> int:
    """Start ``argv`` in ``host``'s namespace in its own session, output to ``logs/<name>.log``;
    returns its pid (``ip netns exec`` execs the program in place)."""
    logs = STATE_DIR / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    with open(logs / f"{name}.log", "ab") as log:
        proc = subprocess.Popen(["ip", "netns", "exec", net.ns(host), *argv], stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True, cwd=str(cwd or ROOT),
                                env={**os.environ, **(env or {})})
    return proc.pid


def in_ns(host: str, argv: list[str], timeout: float = 60) -> subprocess.CompletedProcess:
    """Run ``argv`` in ``host``'s namespace to its end (text output captured)."""
    return subprocess.run(["ip", "netns", "exec", net.ns(host), *argv], capture_output=True, text=True, timeout=timeout)


_PROBE = """
import socket, sys, time
deadline = time.monotonic() + float(sys.argv[3])
while True:
    try:
        socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=0.5).close()
        break
    except OSError:
        if time.monotonic() > deadline:
            sys.exit(1)
        time.sleep(0.05)
"""


def wait_port(host: str, address: str, port: int, timeout: float = 30, what: str = "") -> None:
    """Wait until ``address:port`` accepts a connection from ``host``; ``RuntimeError`` naming
    ``what`` and its log after ``timeout`` s."""
    if in_ns(host, [sys.executable, "-c", _PROBE, address, str(port), str(timeout)], timeout=timeout + 10).returncode:
        log = STATE_DIR / "logs" / f"{what}.log"
        tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
        raise RuntimeError(f"{what or address} did not listen on {address}:{port} within {timeout} s\n{tail}")


def alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def kill(pid: int | None, sig: int = signal.SIGKILL) -> None:
    if pid:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def _render():
    spec = importlib.util.spec_from_file_location("roads_deploy_render", ROOT / "deploy" / "render.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module.render


def render(template: str, dest: Path, values: dict[str, str]) -> Path:
    """``deploy/<template>`` filled with ``values`` (deploy/render.py) into ``dest``."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(_render()((ROOT / "deploy" / template).read_text(encoding="utf-8"), values), encoding="utf-8")
    return dest


def run_dir(name: str) -> Path:
    """A folder nginx's workers (user nobody) may write in."""
    path = STATE_DIR / name
    path.mkdir(parents=True, exist_ok=True)
    os.chmod(STATE_DIR, 0o755)
    os.chmod(path, 0o777)
    return path


# ----------------------------------------------------------------------------- redis
def start_redis() -> int:
    data = run_dir("redis")
    conf = render("redis.conf", data / "redis.conf", {"BIND": addr("redis"), "PORT": str(REDIS_PORT), "DATA_DIR": str(data)})
    pid = spawn("redis", "redis", [tools()["redis-server"], str(conf)])
    wait_port("cli", addr("redis"), REDIS_PORT, what="redis")
    return pid


# ----------------------------------------------------------------------------- service hosts
def publisher_conf(svc: str) -> Path:
    rd = run_dir(f"{svc}-nginx")
    return render("nginx-nchan-publish.conf", rd / "nginx.conf",
                  {"RUN_DIR": str(rd), "PUBLISH_LISTEN": PUBLISH, "NCHAN_REDIS": redis_url(),
                   "NCHAN_MODULE": str(NCHAN_MODULE)})


def nginx_cmd(conf: Path) -> list[str]:
    return [tools()["nginx"], "-p", str(conf.parent), "-c", str(conf)]  # type: ignore[list-item]


def nginx_master(conf: Path) -> int | None:
    """The pid in the pid file next to ``conf``, if that process lives."""
    try:
        pid = int((conf.parent / "nginx.pid").read_text().strip())
    except (OSError, ValueError):
        return None
    return pid if alive(pid) else None


def start_nginx(host: str, conf: Path, what: str) -> None:
    """Start a daemonizing nginx on ``conf`` in ``host`` and wait for its pid file."""
    out = in_ns(host, nginx_cmd(conf))
    if out.returncode:
        raise RuntimeError(f"{what}: nginx did not start: {out.stderr.strip()}")
    deadline = time.monotonic() + 10
    while nginx_master(conf) is None:
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what}: no nginx pid file in {conf.parent}")
        time.sleep(0.05)


def service_env() -> dict[str, str]:
    return {"ROADS_REDIS_URL": redis_url() + "/0", "ROADS_FEED_TOKEN": TOKEN,
            "ROADS_NCHAN_PUBLISH_URL": f"http://{PUBLISH}/pub/", "ROADS_PUSH_URL": "/push/",
            "ROADS_DATA_DIR": str(run_dir("svc-data")), "PYTHONUNBUFFERED": "1"}


def start_service(svc: str) -> dict[str, int]:
    """The host's publisher nginx, then gunicorn; waits until the service answers."""
    conf = publisher_conf(svc)
    start_nginx(svc, conf, f"{svc} publisher")
    pid = spawn(svc, svc, [tools()["gunicorn"], "-c", str(ROOT / "deploy" / "gunicorn.conf.py"),  # type: ignore[list-item]
                           "-b", f"{addr(svc)}:{SERVICE_PORT}", "-w", "1", "--access-logfile", "/dev/null",
                           "--forwarded-allow-ips", ",".join(addr(e) for e in EDGES), "web:create_app()"],
                env=service_env())
    wait_port("cli", addr(svc), SERVICE_PORT, timeout=60, what=svc)
    return {"gunicorn": pid}


def kill_service(svc: str) -> None:
    """SIGKILL the host's gunicorn (master and worker) and publisher nginx: a host that died."""
    net.kill_all(net.ns(svc), crash=True)


# ----------------------------------------------------------------------------- edge hosts
def edge_values(edge: str, **overrides: str) -> dict[str, str]:
    rd = run_dir(edge)
    values = {"RUN_DIR": str(rd), "WORKERS": "1", "CONNECTIONS": "16384", "NOFILE": "20000",
              "LISTEN": f"{addr(edge)}:{EDGE_PORT}", "PUBLISH_LISTEN": PUBLISH,
              "UPSTREAM": ",".join(f"{addr(s)}:{SERVICE_PORT} max_fails=1 fail_timeout=5s" for s in SERVICES),
              "STATIC_DIR": str(ROOT / "static"), "NCHAN_REDIS": redis_url(), "NCHAN_MODULE": str(NCHAN_MODULE)}
    values.update(overrides)
    return values


def edge_conf(edge: str, **overrides: str) -> Path:
    values = edge_values(edge, **overrides)
    return render("nginx-nchan.conf", Path(values["RUN_DIR"]) / "nginx.conf", values)


def restart_command(conf: Path) -> str:
    """The shell command the watchdog restarts ``conf``'s nginx with (stop, wait, start)."""
    cmd = " ".join(nginx_cmd(conf))
    pid = conf.parent / "nginx.pid"
    return (f"{cmd} -s stop; i=0; while [ -e {pid} ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done; {cmd}")


def start_edge(edge: str, watchdog: bool = True) -> dict[str, int]:
    conf = edge_conf(edge)
    start_nginx(edge, conf, edge)
    wait_port("cli", addr(edge), EDGE_PORT, what=edge)
    pids = {}
    if watchdog:
        pids["watchdog"] = spawn(edge, f"{edge}-watchdog", [tools()["python"], str(ROOT / "deploy" / "edge_watchdog.py"),  # type: ignore[list-item]
                                                           "--name", edge, "--nchan", f"http://{PUBLISH}",
                                                           "--restart", restart_command(conf)])
    return pids


def reload_edge(edge: str, **overrides: str) -> None:
    """Write ``edge``'s configuration again with ``overrides`` and reload its nginx (SIGHUP)."""
    conf = edge_conf(edge, **overrides)
    test = in_ns(edge, [*nginx_cmd(conf), "-t"])
    if test.returncode:
        raise RuntimeError(f"{edge}: the new configuration fails nginx -t: {test.stderr}")
    kill(nginx_master(conf), signal.SIGHUP)


def edge_master(edge: str) -> int | None:
    return nginx_master(STATE_DIR / edge / "nginx.conf")


# ----------------------------------------------------------------------------- balancer
def start_balancer() -> int:
    rd = run_dir("lb")
    conf = render("haproxy.cfg", rd / "haproxy.cfg",
                  {"RUN_DIR": str(rd), "LISTEN": f"{addr('lb')}:{LB_PORT}", "MAXCONN": "9000",
                   "EDGES": ",".join(f"{e} {addr(e)}:{EDGE_PORT}" for e in EDGES)})
    check = subprocess.run([tools()["haproxy"], "-c", "-f", str(conf)], capture_output=True, text=True)  # type: ignore[list-item]
    if check.returncode:
        raise RuntimeError(f"haproxy -c: {check.stdout}{check.stderr}")
    pid = spawn("lb", "lb", [tools()["haproxy"], "-db", "-f", str(conf)])  # type: ignore[list-item]
    wait_port("cli", addr("lb"), LB_PORT, what="lb")
    wait_edges_up()
    return pid


def wait_edges_up(timeout: float = 20) -> None:
    """Wait until HAProxy has every edge fully UP (``RuntimeError`` naming the others)."""
    deadline = time.monotonic() + timeout
    while True:
        stats = edge_stats()
        if len(stats) == len(EDGES) and all(s["status"] == "UP" for s in stats.values()):
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"the balancer does not see every edge up: {stats}")
        time.sleep(0.2)


def haproxy(command: str, run: str = "lb") -> str:
    """One command on the stats socket of the HAProxy in ``STATE_DIR/<run>`` (``show stat``...)."""
    out = in_ns("lb", [tools()["python"], "-c",  # type: ignore[list-item]
                       "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]);"
                       "s.sendall(sys.argv[2].encode()+b'\\n'); b=b''\n"
                       "while True:\n c=s.recv(65536)\n if not c: break\n b+=c\nsys.stdout.write(b.decode())",
                       str(STATE_DIR / run / "haproxy.sock"), command], timeout=10)
    return out.stdout


def edge_stats(run: str = "lb") -> dict[str, dict[str, Any]]:
    """Per edge, from HAProxy: ``status`` (UP/DOWN...), ``scur`` (connections now), ``stot``
    (connections so far)."""
    lines = haproxy("show stat", run).splitlines()
    if not lines:
        return {}
    head = lines[0].lstrip("# ").split(",")
    out = {}
    for line in lines[1:]:
        row = dict(zip(head, line.split(",")))
        if row.get("pxname") == "edges" and row.get("svname") in EDGES:
            out[row["svname"]] = {"status": row["status"], "scur": int(row["scur"] or 0), "stot": int(row["stot"] or 0)}
    return out


# ----------------------------------------------------------------------------- CPU starvation (slow edge)
def starve(edge: str, on: bool, quota_us: int = 2_000, period_us: int = 1_000_000) -> None:
    """Put ``edge``'s nginx (and a CPU hog beside it) in a cgroup of ``quota_us`` per
    ``period_us`` of CPU (``on``), or take them out and stop the hog. ``RuntimeError`` without
    a cgroup CPU controller."""
    kind = cgroup_cpu()
    if kind is None:
        raise RuntimeError("no writable cgroup CPU controller (/sys/fs/cgroup/cpu or cgroup2 with cpu)")
    group = (CGROUP_V1 if kind == "v1" else CGROUP_V2) / f"{net.PREFIX}-{edge}"
    procs = "tasks" if kind == "v1" else "cgroup.procs"
    data = state()
    if on:
        group.mkdir(exist_ok=True)
        if kind == "v1":
            (group / "cpu.cfs_period_us").write_text(str(period_us))
            (group / "cpu.cfs_quota_us").write_text(str(quota_us))
        else:
            (group / "cpu.max").write_text(f"{quota_us} {period_us}")
        hog = spawn(edge, f"{edge}-hog", ["sh", "-c", "while :; do :; done"])
        data.setdefault("hogs", {})[edge] = hog
        save_state(data)
        master = edge_master(edge)
        for pid in [hog, *(net.pids(net.ns(edge)) if master else [])]:
            if pid != data.get("procs", {}).get(f"{edge}-watchdog"):
                try:
                    (group / procs).write_text(str(pid))
                except OSError:
                    pass
    else:
        kill(data.get("hogs", {}).pop(edge, None))
        save_state(data)
        release_cgroup(group, procs, (CGROUP_V1 if kind == "v1" else CGROUP_V2) / procs)


def release_cgroup(group: Path, procs: str, parent_procs: Path) -> None:
    """Move what is left in ``group`` to its parent and remove it."""
    if not group.exists():
        return
    for _ in range(50):
        left = [p for p in (group / procs).read_text().split() if p]
        for pid in left:
            try:
                parent_procs.write_text(pid)
            except OSError:
                pass
        try:
            group.rmdir()
            return
        except OSError:
            time.sleep(0.1)


def release_cgroups() -> None:
    """Remove every cgroup the lab made."""
    for base, procs in ((CGROUP_V1, "tasks"), (CGROUP_V2, "cgroup.procs")):
        if base.is_dir():
            for group in base.glob(f"{net.PREFIX}-*"):
                release_cgroup(group, procs, base / procs)


# ----------------------------------------------------------------------------- up and down
def up(log=print) -> dict[str, Any]:
    """Build the network and start every host (each waits until it answers); returns the state.
    ``RuntimeError`` when something is missing or the lab is up already."""
    problems = missing()
    if problems:
        raise RuntimeError("the lab needs: " + "; ".join(problems))
    if net.existing():
        raise RuntimeError(f"the lab is up already ({', '.join(net.existing())}): python3 deploy/lab.py down")
    shutil.rmtree(STATE_DIR, ignore_errors=True)
    STATE_DIR.mkdir(parents=True)
    data: dict[str, Any] = {"started": time.time(), "procs": {}}
    save_state(data)
    started = time.monotonic()
    net.build(HOSTS)
    log(f"network: {len(HOSTS)} hosts on {net.SUBNET}.0/24 ({time.monotonic() - started:.1f} s)")
    data["procs"]["redis"] = start_redis()
    log(f"redis    {addr('redis')}:{REDIS_PORT}")
    for svc in SERVICES:
        data["procs"][svc] = start_service(svc)["gunicorn"]
        log(f"{svc:<8} {addr(svc)}:{SERVICE_PORT} (gunicorn -k gevent + publisher nginx on {PUBLISH})")
    for edge in EDGES:
        data["procs"][f"{edge}-watchdog"] = start_edge(edge)["watchdog"]
        log(f"{edge:<8} {addr(edge)}:{EDGE_PORT} (nginx + nchan on Redis, watchdog)")
    data["procs"]["lb"] = start_balancer()
    log(f"lb       {addr('lb')}:{LB_PORT} (HAProxy, leastconn over {len(EDGES)} edges)")
    save_state(data)
    log(f"up in {time.monotonic() - started:.1f} s; state in {STATE_DIR}")
    return data


def down(log=print) -> None:
    """Stop every process of the lab, delete its namespaces (and veths), cgroups and files."""
    data = state()
    for pid in data.get("hogs", {}).values():
        kill(pid)
    removed = net.destroy()
    release_cgroups()
    shutil.rmtree(STATE_DIR, ignore_errors=True)
    log(f"down: removed {len(removed)} namespaces" + (f" ({', '.join(removed)})" if removed else "")
        + f", {STATE_DIR}")
