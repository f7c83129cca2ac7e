"""Push at studio and web-lobby scale, both tiers, each figure beside its anchor in the same run.

Scenarios (bounded in count and time, loopback only; ``--only`` picks some):

- ``embedded-tables``: the embedded tier (gunicorn gthread, one process, SQLite) with 200
  tables x 10 screens, each table dealing 1 round/s for ``--seconds``: rounds/s sustained,
  median and p99 feed-to-screen; anchor: Node ``ws`` broadcasting the same frames.
- ``embedded-4000``: 4,000 screens on one table connect; 20 rounds; every screen must get
  every update; anchor: Node ``ws``, same frames, same screens.
- ``nchan-one``: the production tier (the service publishing to nginx + nchan), 10,000
  screens on one table, 20 rounds; anchor: Node ``ws`` (the floor).
- ``nchan-tables``: the production tier, 200 tables x 50 screens, 1 round/s per table.
- ``bytes``: bytes per update per screen at round 80 (median over 50 shoes): the delta frame
  beside the whole snapshot a screen used to get; and the snapshot's encoding, orjson beside
  ``json.dumps`` (the same bytes).
- ``png``: a cached 1080p PNG re-served through nginx (wrk) beside the service itself and
  Node serving the same bytes.
- ``resync``: screens that missed the same version fetching the whole board model frame at
  once (``/push/full/...?since=N``) through nginx's cache and lock, beside the service
  answering each itself (wrk), with the service's CPU behind nginx.

Latency is from just before the feed POST is sent (or, for the floor, the frame's POST to
the Node server) to the moment a screen has the whole frame of that version or a newer one;
both ends read the same wall clock. Server CPU is read from ``/proc/<pid>/stat`` of the
service (the gunicorn worker), of nginx's workers and of the Node floor, separately from the
load generator's (the Node client process), whose share of the two cores is printed too: on
2 cores the client competes with the server, so every figure says what the client used.

The load generator is ``bench/node/clients.js`` (npm ``ws``, installed at bench time into the
git-ignored ``bench/.npm``). Usage::

    .venv/bin/python bench/bench_push.py                        # everything (~5 minutes)
    .venv/bin/python bench/bench_push.py --only bytes,png
    .venv/bin/python bench/bench_push.py --only nchan-one --screens 2000
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import resource
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

NPM_DIR = ROOT / "bench" / ".npm"
NODE_DIR = ROOT / "bench" / "node"
TOKEN = "bench-token"
CLK_TCK = os.sysconf("SC_CLK_TCK")


# ----------------------------------------------------------------------------- processes and CPU
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"nothing listens on 127.0.0.1:{port}") from None
            time.sleep(0.05)


def tree(pid: int) -> list[int]:
    """``pid`` and every descendant (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    ppid = int(f.read().rsplit(b")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, ()))
    return out


def own_cpu_seconds() -> float:
    """User + system CPU seconds of this process so far (the feeders' threads: load generator)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def rss_mb(pids: list[int]) -> float:
    """Resident memory of ``pids`` together, in MB (``VmRSS``; gone processes count 0)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status") as f:
                total += next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
        except (OSError, StopIteration, ValueError):
            pass
    return total / 1024


def cpu_seconds(pids: list[int]) -> float:
    """utime + stime of ``pids`` (seconds; gone processes count 0)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            pass
    return total / CLK_TCK


def loadavg() -> str:
    return open("/proc/loadavg").read().split()[0]


def stop(proc: subprocess.Popen | None) -> None:
    if proc is None or proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
    except (subprocess.TimeoutExpired, ProcessLookupError, PermissionError):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        proc.wait(timeout=10)


def ensure_node_ws() -> None:
    """npm ``ws`` in bench/.npm (git-ignored), installed with npm the first time."""
    if (NPM_DIR / "node_modules" / "ws").is_dir():
        return
    if not shutil.which("npm") or not shutil.which("node"):
        raise SystemExit("bench_push needs Node.js and npm (Debian packages nodejs, npm)")
    subprocess.run(["npm", "install", "--prefix", str(NPM_DIR), "--no-save", "--no-audit", "--no-fund", "ws@8"],
                   check=True, stdout=subprocess.DEVNULL)


def node_env() -> dict[str, str]:
    return {**os.environ, "NODE_PATH": str(NPM_DIR / "node_modules")}


class ThreadConnections:
    """One keep-alive HTTP connection to 127.0.0.1:``port`` per calling thread (each feeder
    its own); calling it with ``fresh=True`` replaces this thread's (after the server closed it)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self._local = threading.local()
        self._all: list[http.client.HTTPConnection] = []

    def __call__(self, fresh: bool = False) -> http.client.HTTPConnection:
        conn = getattr(self._local, "conn", None)
        if conn is None or fresh:
            if conn is not None:
                conn.close()
            conn = self._local.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            self._all.append(conn)
        return conn

    def close(self) -> None:
        for conn in self._all:
            conn.close()


WORKER = "gevent"
"""gunicorn's worker class for the service (``--worker``): ``gevent`` as deploy/gunicorn.conf.py
documents, or ``gthread`` (one OS thread per screen) for comparison."""


GC = "tuned"
"""The service's garbage-collector settings (``--gc``): ``tuned`` as deploy/gunicorn.conf.py
(:mod:`web.gc_tuning`, through bench/gunicorn_hooks.py), or Python's ``default``."""


class Service:
    """gunicorn (:data:`WORKER`), one worker, on a fresh data directory (``env`` adds settings).
    ``threads``: the screens and requests it must hold at once (gthread threads, gevent
    worker connections)."""

    def __init__(self, threads: int, env: dict[str, str] | None = None) -> None:
        self.dir = tempfile.mkdtemp(prefix="roads-bench-")
        self.port = free_port()
        gunicorn = str(Path(sys.executable).with_name("gunicorn"))
        full_env = {**os.environ, "ROADS_DATA_DIR": self.dir, "ROADS_FEED_TOKEN": TOKEN, **(env or {})}
        self.proc = subprocess.Popen(
            [gunicorn, "-k", WORKER, "-w", "1", "--threads", str(threads), "--worker-connections",
             str(threads + 200), "--backlog", "8192", "--keep-alive", "75", "-b", f"127.0.0.1:{self.port}", "--graceful-timeout", "2",
             "--log-level", "warning", *(["-c", str(ROOT / "bench" / "gunicorn_hooks.py")] if GC == "tuned" else []),
             "web:create_app()"],
            cwd=str(ROOT), env=full_env, start_new_session=True, stdout=subprocess.DEVNULL)
        wait_port(self.port)
        self._conn = ThreadConnections(self.port)
        self.durations: list[float] = []


    def pids(self) -> list[int]:
        return tree(self.proc.pid)

    def post(self, table: str, shoe: int, number: int, cards: tuple[list[str], list[str]]) -> tuple[float, int]:
        """POST one round; returns (wall time just before sending, new version)."""
        body = json.dumps({"shoe": shoe, "round": number, "player": cards[0], "banker": cards[1]})
        conn = self._conn()
        for attempt in (1, 2):
            t = time.time()
            try:
                conn.request("POST", f"/api/tables/{table}/rounds", body=body,
                             headers={"Content-Type": "application/json", "Authorization": f"Bearer {TOKEN}"})
                resp = conn.getresponse()
                data = resp.read()
                self.durations.append(time.time() - t)
                break
            except (OSError, http.client.HTTPException):  # an idle keep-alive connection the server closed
                conn = self._conn(fresh=True)
                if attempt == 2:
                    raise
        if resp.status != 201:
            raise RuntimeError(f"feed POST answered {resp.status}: {data[:200]!r}")
        return t, json.loads(data)["version"]

    def close(self) -> None:
        self._conn.close()
        stop(self.proc)
        shutil.rmtree(self.dir, ignore_errors=True)


class Nginx:
    """nginx + nchan from deploy/nginx-nchan.conf (rendered by deploy/render.py) in a temp folder."""

    def __init__(self, upstream_port: int | None, workers: str = "auto") -> None:
        self.dir = tempfile.mkdtemp(prefix="roads-bench-nginx-")
        os.chmod(self.dir, 0o777)
        self.port, self.publish_port = free_port(), free_port()
        self.upstream_port = upstream_port
        self.workers = workers
        self.proc: subprocess.Popen | None = None

    @property
    def publish_url(self) -> str:
        return f"http://127.0.0.1:{self.publish_port}/pub/"

    def start(self, upstream_port: int) -> None:
        values = {"RUN_DIR": self.dir, "WORKERS": self.workers, "CONNECTIONS": "32768",
                  "NOFILE": str(resource.getrlimit(resource.RLIMIT_NOFILE)[1]),
                  "LISTEN": f"127.0.0.1:{self.port}", "PUBLISH_LISTEN": f"127.0.0.1:{self.publish_port}",
                  "UPSTREAM": f"127.0.0.1:{upstream_port}", "STATIC_DIR": str(ROOT / "static")}
        conf = subprocess.run([sys.executable, str(ROOT / "deploy" / "render.py"), str(ROOT / "deploy" / "nginx-nchan.conf"),
                               *[f"{k}={v}" for k, v in values.items()]], check=True, capture_output=True, text=True).stdout
        Path(self.dir, "nginx.conf").write_text(conf)
        self.proc = subprocess.Popen([shutil.which("nginx") or "/usr/sbin/nginx", "-p", self.dir, "-c",
                                      str(Path(self.dir, "nginx.conf")), "-g", "daemon off;"],
                                     start_new_session=True, stderr=subprocess.DEVNULL)
        wait_port(self.port)
        wait_port(self.publish_port)

    def pids(self) -> list[int]:
        return [p for p in tree(self.proc.pid) if p != self.proc.pid] if self.proc else []

    def close(self) -> None:
        stop(self.proc)
        shutil.rmtree(self.dir, ignore_errors=True)


class Floor:
    """bench/node/ws_floor.js: Node ``ws`` broadcasting posted frames."""

    def __init__(self) -> None:
        self.port = free_port()
        self.proc = subprocess.Popen(["node", str(NODE_DIR / "ws_floor.js"), str(self.port)], env=node_env(),
                                     stdout=subprocess.PIPE, text=True, start_new_session=True)
        assert self.proc.stdout.readline().startswith("listening")
        self._conn = ThreadConnections(self.port)


    def pids(self) -> list[int]:
        return [self.proc.pid]

    def publish(self, channel: str, frame: bytes) -> float:
        conn = self._conn()
        for attempt in (1, 2):
            t = time.time()
            try:
                conn.request("POST", f"/pub/{channel}", body=frame)
                conn.getresponse().read()
                return t
            except (OSError, http.client.HTTPException):
                conn = self._conn(fresh=True)
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        self._conn.close()
        stop(self.proc)


class Clients:
    """bench/node/clients.js with ``per_url`` screens on each of ``urls``, spread over
    ``procs`` Node processes (one per core: each is one event loop)."""

    def __init__(self, urls: list[str], per_url: int, timeout: float = 180, procs: int = 0) -> None:
        self.dir = tempfile.mkdtemp(prefix="roads-bench-clients-")
        procs = procs or min(os.cpu_count() or 2, 2)
        self.outs, self.procs = [], []
        for shard in range(procs):
            out = os.path.join(self.dir, f"records{shard}.bin")
            cfg = os.path.join(self.dir, f"cfg{shard}.json")
            Path(cfg).write_text(json.dumps({"urls": urls, "perUrl": per_url, "concurrency": 128,
                                             "connectTimeoutMs": int(timeout * 1000), "out": out,
                                             "shard": shard, "shards": procs}))
            self.outs.append(out)
            self.procs.append(subprocess.Popen(["node", "--max-old-space-size=4096", str(NODE_DIR / "clients.js"), cfg],
                                               env=node_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                               text=True, start_new_session=True))
        self.connected = self.failed = 0
        self.connect_s = 0.0
        for proc in self.procs:
            _, ok, failed, seconds = self._line(proc, timeout).split()
            self.connected += int(ok)
            self.failed += int(failed)
            self.connect_s = max(self.connect_s, float(seconds))

    @staticmethod
    def _line(proc: subprocess.Popen, timeout: float) -> str:
        import selectors

        sel = selectors.DefaultSelector()
        sel.register(proc.stdout, selectors.EVENT_READ)
        try:
            if not sel.select(timeout):
                raise RuntimeError("load generator timed out")
        finally:
            sel.close()
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError("load generator exited")
        return line.strip()

    def command(self, cmd: str, timeout: float = 60) -> list[str]:
        for proc in self.procs:
            proc.stdin.write(cmd + "\n")
            proc.stdin.flush()
        return [self._line(proc, timeout) for proc in self.procs]

    def records(self) -> list[tuple[int, int, int, int, float]]:
        """(url, screen, version, size, time) of every frame since the last call."""
        self.command("dump", timeout=120)
        out = []
        for path in self.outs:
            out.extend(struct.iter_unpack("<iiiid", Path(path).read_bytes()))
        return out

    def pids(self) -> list[int]:
        return [proc.pid for proc in self.procs]

    def close(self) -> None:
        try:
            self.command("quit", timeout=5)
        except Exception:
            pass
        for proc in self.procs:
            stop(proc)
        shutil.rmtree(self.dir, ignore_errors=True)


# ----------------------------------------------------------------------------- rounds and frames
def dealt(count: int, seed: int) -> list[tuple[list[str], list[str]]]:
    """``count`` legal rounds dealt by the tableau from one shuffled 8-deck shoe (seeded)."""
    from roads.cards import full_deck
    from roads.tableau import deal_round

    cards = full_deck() * 8
    random.Random(seed).shuffle(cards)
    it = iter(cards)
    out = []
    for _ in range(count):
        p, b = deal_round(lambda: next(it))
        out.append(([str(c) for c in p], [str(c) for c in b]))
    return out


def recorded_frames(tables: list[str], rounds: int) -> dict[str, list[bytes]]:
    """The frames a table page of each table gets (its board model, web/push/page_models.py: first
    the whole document after round 1, then one delta per round), made by an in-process service
    fed the same rounds as the bench."""
    import orjson

    from web import create_app
    from web.push.frames import FrameCache
    from web.http import model_specs
    from web.push.hub import Hub

    with tempfile.TemporaryDirectory() as d:
        app = create_app({"TESTING": True, "ROADS_FEED_TOKEN": TOKEN, "ROADS_DATA_DIR": d})
        client, hub, frames = app.test_client(), Hub(), FrameCache()
        out: dict[str, list[bytes]] = {}
        for k, table in enumerate(tables):
            with app.test_request_context(f"/tables/{table}?orient=landscape"):  # a landscape screen's topic
                spec = model_specs.table_spec(table)
            have = None
            for i, cards in enumerate(dealt(rounds, seed=k), 1):
                client.post(f"/api/tables/{table}/rounds", json={"shoe": 1, "round": i, "player": cards[0],
                                                                  "banker": cards[1]},
                            headers={"Authorization": f"Bearer {TOKEN}"})
                with app.app_context():
                    doc = app.extensions["roads.push"].documents.build(spec)
                message = hub.publish(spec.topic, doc["version"], orjson.dumps(doc), document=doc)
                out.setdefault(table, []).append(frames.text_for(spec.topic, message, have))
                have = message.version
        app.extensions["roads.service"].close()
    return out


def model_channel(port: int, table: str) -> str:
    """The landscape model channel path of ``table``'s page (``/push/models/<digest>``), from its
    boot JSON; then, as the page does, its ``modelUrl?orient=landscape`` (the service follows
    that topic: it builds and publishes it on every change)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", f"/tables/{table}")
    html = conn.getresponse().read().decode()
    boot = json.loads(html.split('<script type="application/json" id="boot">', 1)[1].split("</script>", 1)[0])
    conn.request("GET", boot["modelUrl"] + ("&" if "?" in boot["modelUrl"] else "?") + "orient=landscape")
    conn.getresponse().read()
    conn.close()
    return boot["ws"]["landscape"]


# ----------------------------------------------------------------------------- measuring
def latencies(posts: dict[tuple[int, int], float], records, clients_per_url: int) -> dict[str, float]:
    """Feed-to-screen figures: for each posted (url, version) and each screen of that url,
    the first frame of that version or newer. ``posts``: (url, version) -> POST wall time."""
    by_client: dict[tuple[int, int], list[tuple[int, float]]] = {}
    sizes = []
    for url, client, version, size, t in records:
        by_client.setdefault((url, client), []).append((version, t))
        sizes.append(size)
    lat, missing, got = [], 0, 0
    per_url: dict[int, list[tuple[int, float]]] = {}
    for (url, version), t in posts.items():
        per_url.setdefault(url, []).append((version, t))
    for (url, client), frames in by_client.items():
        frames.sort(key=lambda f: f[1])
        for version, t_post in per_url.get(url, ()):
            arrival = next((t for v, t in frames if v >= version), None)
            if arrival is None:
                missing += 1
            else:
                got += 1
                lat.append(arrival - t_post * 1000.0)
    exact = sum(1 for (url, client), frames in by_client.items() for v, _ in frames
                if (url, v) in posts)
    lat.sort()
    pick = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))] if lat else float("nan")  # noqa: E731
    return {"median_ms": pick(0.5), "p99_ms": pick(0.99), "max_ms": lat[-1] if lat else float("nan"),
            "missing": missing, "got": got, "exact": exact, "screens": len(by_client),
            "frame_bytes_median": statistics.median(sizes) if sizes else 0}


def print_row(label: str, fig: dict, cpu_server: float, updates: int, client_cpu: float, window: float,
              extra: str = "") -> None:
    share = client_cpu / (window * (os.cpu_count() or 2)) if window > 0 else 0
    print(f"  {label:<34} median {fig['median_ms']:7.1f} ms  p99 {fig['p99_ms']:7.1f} ms  "
          f"server CPU {1000 * cpu_server / max(1, updates):6.2f} ms/update  "
          f"frames {fig['got']}/{fig['got'] + fig['missing']} ({fig['screens']} screens)  "
          f"client CPU {100 * share:4.1f}% of the cores{extra}", flush=True)


TABLES_PER_FEEDER = 1
"""Tables fed through one feed connection (its own thread and keep-alive connection) in the
many-table loads: each of 200 tables posts its own rounds, as a studio's tables do, never
one after another through one shared connection."""


def schedule(posts_per_s: float, count: int, fn, feeders: int = 1, tables: int = 1) -> float:
    """Call ``fn(i)`` for i in range(count), call i due at ``i / posts_per_s`` s after the start
    (late calls go at once), from ``feeders`` threads: call i goes to feeder
    ``(i % tables) % feeders``, so each table's calls stay in order on one feeder. Returns
    the achieved rate (calls / seconds until the last one returned)."""
    t0 = time.monotonic()
    errors: list[BaseException] = []

    def feed(j: int) -> None:
        try:
            for i in range(count):
                if (i % tables) % feeders != j:
                    continue
                delay = t0 + i / posts_per_s - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                fn(i)
        except BaseException as e:  # noqa: BLE001 (re-raised in the caller's thread)
            errors.append(e)

    threads = [threading.Thread(target=feed, args=(j,), name=f"feeder-{j}") for j in range(feeders)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    if errors:
        raise errors[0]
    return count / max(1e-9, time.monotonic() - t0)


def frame_version(frame: bytes) -> int:
    i = frame.index(b'"version":') + 10
    j = i
    while frame[j:j + 1].isdigit():
        j += 1
    return int(frame[i:j])


def run_tier(tier: str, tables: int, screens: int, rounds: int, rate: float, label: str) -> None:
    """One load: ``tables`` tables x ``screens`` screens, ``rounds`` rounds per table after the
    first, each table dealing ``rate`` rounds/s (so ``tables * rate`` posts per second)."""
    names = [f"B{k:03d}" for k in range(tables)]
    deals = {name: dealt(rounds + 1, seed=k) for k, name in enumerate(names)}
    svc = nginx = floor = clients = None
    try:
        if tier == "floor":
            frames = recorded_frames(names, rounds + 1)
            floor = Floor()
            for name in names:
                floor.publish(f"table:{name}", frames[name][0])
            urls = [f"ws://127.0.0.1:{floor.port}/table:{name}" for name in names]
            servers = {"node ws": floor.pids()}
        elif tier == "embedded":
            svc = Service(threads=tables * screens + 100)
            urls = [f"ws://127.0.0.1:{svc.port}/ws/models/tables/{name}?orient=landscape" for name in names]
            servers = {"service": svc.pids()}
        else:
            nginx = Nginx(None)
            svc = Service(threads=100, env={"ROADS_NCHAN_PUBLISH_URL": nginx.publish_url, "ROADS_PUSH_URL": "/push/"})
            nginx.start(svc.port)
            servers = {"nginx": nginx.pids(), "service": svc.pids()}
        if svc is not None:
            for name in names:
                svc.post(name, 1, 1, deals[name][0])
        if nginx is not None:
            urls = [f"ws://127.0.0.1:{nginx.port}{model_channel(svc.port, name)}" for name in names]
            time.sleep(1.0)  # the model channels get their first frame
        clients = Clients(urls, screens)
        print(f"  {label}: {clients.connected} of {tables * screens} screens connected in {clients.connect_s:.1f} s"
              f" ({clients.failed} failed), load {loadavg()}", flush=True)
        time.sleep(1.0)
        clients.records()  # the first frames
        posts: dict[tuple[int, int], float] = {}

        def post(i: int) -> None:
            k, r = i % tables, i // tables + 1
            if floor is not None:
                frame = frames[names[k]][r]
                posts[(k, frame_version(frame))] = floor.publish(f"table:{names[k]}", frame)
            else:
                t, v = svc.post(names[k], 1, r + 1, deals[names[k]][r])
                posts[(k, v)] = t

        if svc is not None:
            svc.durations.clear()
        cpu0 = {name: cpu_seconds(p) for name, p in servers.items()}
        client0, w0 = cpu_seconds(clients.pids()), time.monotonic()
        feed0 = own_cpu_seconds()
        feeders = max(1, tables // TABLES_PER_FEEDER)
        achieved = schedule(tables * rate, tables * rounds, post, feeders=feeders, tables=tables)
        feed_cpu = own_cpu_seconds() - feed0
        time.sleep(2.0)
        window = time.monotonic() - w0
        cpu = {name: cpu_seconds(p) - cpu0[name] for name, p in servers.items()}
        client_cpu = cpu_seconds(clients.pids()) - client0 + feed_cpu
        fig = latencies(posts, clients.records(), screens)
        main = "node ws" if tier == "floor" else ("nginx" if tier == "nchan" else "service")
        extra = "".join(f"  {name} CPU {1000 * c / len(posts):.2f} ms/update" for name, c in cpu.items() if name != main)
        extra += (f"  rounds/s {achieved:.0f} of {tables * rate:.0f} ({feeders} feeders,"
                  f" their CPU {100 * feed_cpu / (window * (os.cpu_count() or 2)):.1f}% of the cores, in the client's)"
                  f"  frame {fig['frame_bytes_median']:.0f} B")
        if svc is not None and svc.durations:
            d = sorted(svc.durations)
            extra += f"  feed POST median {1000 * d[len(d) // 2]:.1f} ms p99 {1000 * d[int(0.99 * len(d))]:.1f} ms"
        if svc is not None:
            extra += f"  service RSS {rss_mb(svc.pids()):.0f} MB"
        print_row(f"{label} [{main}]", fig, cpu[main], len(posts), client_cpu, window, extra)
    finally:
        for thing in (clients, svc, nginx, floor):
            if thing is not None:
                thing.close()


def bytes_at_round_80(shoes: int = 50) -> None:
    """Median bytes a screen gets for round 80 (the delta) beside the whole snapshot frame."""
    from web import create_app
    from web.push.frames import FrameCache
    from web.service import get_service

    deltas, fulls = [], []
    with tempfile.TemporaryDirectory() as d:
        app = create_app({"TESTING": True, "ROADS_FEED_TOKEN": TOKEN, "ROADS_DATA_DIR": d})
        client, hub, frames = app.test_client(), get_service(app).hub, FrameCache()
        for k in range(shoes):
            table = f"S{k:03d}"
            for i, cards in enumerate(dealt(80, seed=1000 + k), 1):
                client.post(f"/api/tables/{table}/rounds", json={"shoe": 1, "round": i, "player": cards[0],
                                                                  "banker": cards[1]},
                            headers={"Authorization": f"Bearer {TOKEN}"})
            message = hub.latest(f"table:{table}")
            deltas.append(len(frames.text_for(f"table:{table}", message, message.version - 1)))
            fulls.append(len(frames.text_for(f"table:{table}", message, None)))
        get_service(app).close()
    print(f"  snapshot topic (API clients) at round 80 (median of {shoes} shoes): delta {statistics.median(deltas):.0f} B"
          f" (max {max(deltas)}), whole snapshot {statistics.median(fulls):.0f} B", flush=True)


def model_bytes(shoes: int = 20) -> None:
    """Bytes a table page and a lobby page get per update (their board models, web/push/page_models.py:
    the table page's landscape topic, the lobby's both orientations) at rounds 76-80 of ``shoes`` shoes: the delta frame,
    and deflated as nchan sends it to a browser that negotiated permessage-deflate."""
    import zlib

    import orjson

    from web import create_app
    from web.push.frames import FrameCache
    from web.http import model_specs
    from web.push.hub import Hub

    def deflated(b: bytes) -> int:
        c = zlib.compressobj(6, zlib.DEFLATED, -15)
        return len(c.compress(b) + c.flush(zlib.Z_SYNC_FLUSH)) - 4

    sizes: dict[str, list[int]] = {"table": [], "lobby": [], "table80": [], "lobby80": []}
    packed: dict[str, list[int]] = {"table": [], "lobby": []}
    wholes: dict[str, list[int]] = {"table": [], "lobby": []}
    with tempfile.TemporaryDirectory() as d:
        app = create_app({"TESTING": True, "ROADS_FEED_TOKEN": TOKEN, "ROADS_DATA_DIR": d})
        client, frames = app.test_client(), FrameCache()
        auth = {"Authorization": f"Bearer {TOKEN}"}
        for k in range(8):  # the lobby's other tables
            cards = dealt(3, seed=900 + k)
            for i, c in enumerate(cards, 1):
                client.post(f"/api/tables/O{k}/rounds", json={"shoe": 1, "round": i, "player": c[0], "banker": c[1]},
                            headers=auth)
        for k in range(shoes):
            table, hub = f"S{k:03d}", Hub()
            with app.test_request_context(f"/tables/{table}?orient=landscape"):  # what a landscape screen follows
                specs = {"table": model_specs.table_spec(table), "lobby": model_specs.lobby_spec()[0]}
            for i, cards in enumerate(dealt(80, seed=1000 + k), 1):
                client.post(f"/api/tables/{table}/rounds", json={"shoe": 1, "round": i, "player": cards[0],
                                                                  "banker": cards[1]}, headers=auth)
                if i < 75:
                    continue
                with app.app_context():
                    for name, spec in specs.items():
                        doc = app.extensions["roads.push"].documents.build(spec)
                        m = hub.publish(spec.topic, i, orjson.dumps(doc), document=doc)
                        if i == 75:
                            continue
                        frame = frames.text_for(spec.topic, m, i - 1)
                        sizes[name].append(len(frame))
                        packed[name].append(deflated(frame))
                        if i == 80:
                            sizes[name + "80"].append(len(frame))
                            wholes[name].append(len(frames.text_for(spec.topic, m, None)))
        app.extensions["roads.service"].close()
    for name in ("table", "lobby"):
        v = sorted(sizes[name])
        print(f"  {name} page model delta, rounds 76-80 of {shoes} shoes: median {statistics.median(v):.0f} B,"
              f" p90 {v[int(0.9 * len(v))]} B, at round 80 median {statistics.median(sizes[name + '80']):.0f} B;"
              f" deflated (nchan permessage-deflate) median {statistics.median(packed[name]):.0f} B;"
              f" whole document {statistics.median(wholes[name]):.0f} B", flush=True)


def encoding(shoes: int = 20, repeat: int = 200) -> None:
    """Encoding an 80-round snapshot: orjson (web.snapshots.encode, same bytes) beside json.dumps."""
    from roads.shoe_roads import ShoeRoads
    from roads.outcome import RoundResult
    from roads.cards import parse_cards
    from roads.snapshot import build_snapshot
    from roads.variants import DEFAULT_VARIANT_ID, get_variant
    from web.snapshots import encode

    fast, slow = [], []
    for k in range(shoes):
        roads = ShoeRoads()
        for i, (p, b) in enumerate(dealt(80, seed=2000 + k), 1):
            roads.record(i, RoundResult.from_cards(parse_cards(p), parse_cards(b)))
        snap = build_snapshot(table="E", shoe=1, version=80, roads=roads, variant=get_variant(DEFAULT_VARIANT_ID))
        assert encode(snap) == json.dumps(snap, ensure_ascii=False, separators=(",", ":")).encode()
        for out, fn in ((fast, lambda: encode(snap)),
                        (slow, lambda: json.dumps(snap, ensure_ascii=False, separators=(",", ":")).encode())):
            t = time.perf_counter()
            for _ in range(repeat):
                fn()
            out.append((time.perf_counter() - t) / repeat)
    print(f"  encode an 80-round snapshot: orjson {1e6 * statistics.median(fast):.0f} us, json.dumps "
          f"{1e6 * statistics.median(slow):.0f} us (same bytes), load {loadavg()}", flush=True)


def wrk(url: str, seconds: int, connections: int) -> tuple[float, float]:
    """(requests/s, wrk's own CPU seconds) of ``wrk -t1`` on ``url``."""
    proc = subprocess.Popen(["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", url], stdout=subprocess.PIPE, text=True)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    rate = float(out.split("Requests/sec:")[1].split()[0])
    return rate, usage.ru_utime + usage.ru_stime


def _reserve(what: str, runs: list[tuple[str, str, list[int]]], seconds: int, also: list[int] | None = None) -> None:
    """``wrk`` on each ``(label, url, server pids)`` for ``seconds``: requests/s, the server's
    CPU per request, wrk's share of the cores, and (``also``) the CPU the service spent meanwhile."""
    for label, url, pids in runs:
        c0, a0 = cpu_seconds(pids), cpu_seconds(also or [])
        rate, client_cpu = wrk(url, seconds, 64)
        server, behind = cpu_seconds(pids) - c0, cpu_seconds(also or []) - a0
        extra = f"  service behind it {1000 * behind:.0f} ms CPU in {seconds} s" if also and pids != also else ""
        print(f"  {what}, {label:<24} {rate:8.0f} req/s  server CPU "
              f"{1e6 * server / max(1, rate * seconds):6.1f} us/req  wrk CPU {100 * client_cpu / (seconds * (os.cpu_count() or 2)):4.1f}%"
              f" of the cores{extra}, load {loadavg()}", flush=True)


def png_reserve(seconds: int = 5) -> None:
    if not shutil.which("wrk"):
        print("  png: skipped (wrk not installed: Debian package 'wrk')")
        return
    nginx = Nginx(None)
    svc = Service(threads=64)
    floor = Floor()
    try:
        nginx.start(svc.port)
        svc.post("T1", 1, 1, dealt(1, seed=3)[0])
        path = "/tables/T1/board.png"
        conn = http.client.HTTPConnection("127.0.0.1", svc.port, timeout=30)
        conn.request("GET", path)
        png = conn.getresponse().read()
        floor.publish("png", png)
        _reserve(f"png re-serve ({len(png) // 1024} KiB)",
                 [("nginx proxy_cache", f"http://127.0.0.1:{nginx.port}{path}", nginx.pids()),
                  ("the service itself", f"http://127.0.0.1:{svc.port}{path}", svc.pids()),
                  ("node serving the bytes", f"http://127.0.0.1:{floor.port}/bytes/png", floor.pids())], seconds)
    finally:
        floor.close()
        svc.close()
        nginx.close()


def resync_frames(seconds: int = 5) -> None:
    """Screens that missed the same version all fetching the whole board model frame at once
    (``/push/full/...?since=N``, web/http/full_frames.py): through nginx's one-second cache with
    its lock, beside the service answering each itself."""
    if not shutil.which("wrk"):
        print("  resync: skipped (wrk not installed: Debian package 'wrk')")
        return
    nginx = Nginx(None)
    svc = Service(threads=64)
    try:
        nginx.start(svc.port)
        version = 0
        for number, cards in enumerate(dealt(80, seed=5), start=1):
            version = svc.post("T1", 1, number, cards)[1]
        tail = f"models/tables/T1?lang=en&orient=landscape&since={version}"
        conn = http.client.HTTPConnection("127.0.0.1", svc.port, timeout=30)
        conn.request("GET", "/tables/T1/model.json?lang=en&orient=landscape")  # what the page asks first: followed
        conn.getresponse().read()
        conn.request("GET", "/frames/" + tail)
        size = len(conn.getresponse().read())
        _reserve(f"resync, board model frame ({size // 1024} KiB, round 80)",
                 [("nginx cache + lock", f"http://127.0.0.1:{nginx.port}/push/full/{tail}", nginx.pids()),
                  ("the service itself", f"http://127.0.0.1:{svc.port}/frames/{tail}", svc.pids())],
                 seconds, also=svc.pids())
    finally:
        svc.close()
        nginx.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="bytes,png,resync,embedded-4000,embedded-tables,nchan-one,nchan-tables")
    parser.add_argument("--screens", type=int, default=0, help="override the screen count of the one-table loads")
    parser.add_argument("--seconds", type=int, default=20, help="rounds per table of the many-table loads (1 round/s)")
    parser.add_argument("--worker", default=WORKER, choices=("gevent", "gthread"),
                        help="gunicorn worker class of the service (default: the documented gevent)")
    parser.add_argument("--tables-per-feeder", type=int, default=TABLES_PER_FEEDER,
                        help="tables posting through one feed connection in the many-table loads (default 1: each its own)")
    parser.add_argument("--gc", default=GC, choices=("tuned", "default"),
                        help="the service's garbage-collector settings (default: tuned, as deploy/gunicorn.conf.py)")
    args = parser.parse_args()
    globals()["WORKER"] = args.worker
    globals()["GC"] = args.gc
    globals()["TABLES_PER_FEEDER"] = max(1, args.tables_per_feeder)
    only = set(args.only.split(","))
    ensure_node_ws()
    print(f"bench_push on {os.cpu_count()} cores, gunicorn -k {WORKER}, gc {GC}, {TABLES_PER_FEEDER} table(s) per feed connection,"
          f" load {loadavg()} at start", flush=True)
    if "bytes" in only:
        encoding()
        bytes_at_round_80()
        model_bytes()
    if "png" in only:
        png_reserve()
    if "resync" in only:
        resync_frames()
    if "embedded-4000" in only:
        n = args.screens or 4000
        run_tier("embedded", 1, n, 20, 2.0, f"embedded, {n} screens, 1 table")
        run_tier("floor", 1, n, 20, 2.0, f"floor, {n} screens, 1 table")
    if "embedded-tables" in only:
        run_tier("embedded", 200, 10, args.seconds, 1.0, "embedded, 200 tables x 10 screens")
        run_tier("floor", 200, 10, args.seconds, 1.0, "floor, 200 tables x 10 screens")
    if "nchan-one" in only:
        n = args.screens or 10000
        run_tier("nchan", 1, n, 20, 2.0, f"nchan, {n} screens, 1 table")
        run_tier("floor", 1, n, 20, 2.0, f"floor, {n} screens, 1 table")
    if "nchan-tables" in only:
        run_tier("nchan", 200, 50, args.seconds, 1.0, "nchan, 200 tables x 50 screens")
        run_tier("floor", 200, 50, args.seconds, 1.0, "floor, 200 tables x 50 screens")
    print(f"load {loadavg()} at the end", flush=True)


if __name__ == "__main__":
    main()
