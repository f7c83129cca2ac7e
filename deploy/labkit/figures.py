"""``lab.py run figures``: what the several-host deployment carries, beside the Node ``ws``
floor in the same run (docs/deploy.md, "Several hosts").

Two phases on the same lab, the same screens (``bench/node/clients.js``: raw WebSocket
clients, one frame record each: channel, version, size, time) and the same frames:

1. nchan: tables fed at ``--rate`` rounds/s through the service hosts; screens on each
   table's page model channel and snapshot channel (and the lobby page's) through the
   balancer; a recorder on edge1
   keeps every frame each channel got, with its time.
2. floor: ``bench/node/ws_floor.js`` (Node ``ws``, one on each edge host) behind a second
   HAProxy made from the same template; the recorded frames posted to every floor host at
   their recorded times (as nchan on each edge gets each message through Redis).

Figures per phase: screens per edge host, writes/s and frames delivered/s, feed-to-screen
latency (nchan: from the feed POST; floor: from the frame's POST to the floors) median and
p99, frame bytes (payload) and wire bytes per delivered frame (edge hosts' sent bytes), CPU
per host (% of a core and per write or per delivered frame), Redis commands/s. Prints a
table, then one JSON line with everything.
"""

from __future__ import annotations

import argparse
import bisect
import http.client
import json
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from labkit import hosts, net
from labkit.load import Feeder, Feeders, request, simulated

CLK_TCK = os.sysconf("SC_CLK_TCK")
NPM_DIR = hosts.ROOT / "bench" / ".npm"
NODE_DIR = hosts.ROOT / "bench" / "node"
FLOOR_PORT = 9000
LB = hosts.addr("lb")


def log(*args: object) -> None:
    print(*args, file=sys.stderr, flush=True)


def pick(values: list[float], q: float) -> float:
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


# ----------------------------------------------------------------------------- measuring hosts
def cpu_seconds(host: str, only: set[int] | None = None) -> float:
    """CPU seconds (user + system) of the processes in ``host``'s namespace (``only``: those pids)."""
    total = 0
    for pid in net.pids(net.ns(host)):
        if only is not None and pid not in only:
            continue
        try:
            fields = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            pass
    return total / CLK_TCK


def rss_kb(host: str, only: set[int] | None = None) -> int:
    """Resident memory (KB) of the processes in ``host``'s namespace (``only``: those pids)."""
    total = 0
    for pid in net.pids(net.ns(host)):
        if only is not None and pid not in only:
            continue
        try:
            total += next(int(line.split()[1]) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                          if line.startswith("VmRSS:"))
        except (OSError, StopIteration, ValueError):
            pass
    return total


def redis_commands() -> tuple[int, dict[str, int]]:
    """Redis's commands so far: the total, and the calls of each command (``INFO commandstats``:
    commands run inside scripts count there too)."""
    out = hosts.in_ns("redis", ["redis-cli", "-h", hosts.addr("redis"), "INFO", "all"]).stdout
    total, calls = 0, {}
    for line in out.splitlines():
        if line.startswith("total_commands_processed:"):
            total = int(line.split(":")[1])
        elif line.startswith("cmdstat_"):
            name, _, rest = line[len("cmdstat_"):].partition(":")
            calls[name] = int(rest.split(",")[0].split("=")[1])
    return total, calls


class Sample:
    """CPU seconds and network bytes of every host, and Redis's command count, at one moment."""

    def __init__(self, floor_pids: dict[str, set[int]] | None = None) -> None:
        self.t = time.monotonic()
        names = [h for h in hosts.HOSTS if h != "cli"]
        self.cpu = {h: cpu_seconds(h, (floor_pids or {}).get(h)) for h in names}
        self.net = {h: net.net_bytes(h) for h in names}
        self.redis, self.redis_calls = redis_commands()

    def since(self, before: "Sample") -> dict[str, Any]:
        window = self.t - before.t
        calls = {k: v - before.redis_calls.get(k, 0) for k, v in self.redis_calls.items()}
        return {"window_s": window,
                "cpu_s": {h: self.cpu[h] - before.cpu[h] for h in self.cpu},
                "tx": {h: self.net[h][1] - before.net[h][1] for h in self.net},
                "rx": {h: self.net[h][0] - before.net[h][0] for h in self.net},
                "redis_commands": self.redis - before.redis,
                "redis_calls": dict(sorted(((k, v) for k, v in calls.items() if v), key=lambda kv: -kv[1])[:8])}


# ----------------------------------------------------------------------------- load generator
def ensure_node_ws() -> dict[str, str]:
    """npm ``ws`` in bench/.npm (git-ignored; installed with npm the first time, as bench_push does);
    the environment that lets Node find it."""
    if not (NPM_DIR / "node_modules" / "ws").is_dir():
        if not shutil.which("npm"):
            raise RuntimeError("the floor needs npm's `ws` package: install npm, or run bench/bench_push.py once")
        subprocess.run(["npm", "install", "--prefix", str(NPM_DIR), "--no-save", "--no-audit", "--no-fund", "ws@8"],
                       check=True, stdout=subprocess.DEVNULL)
    return {**os.environ, "NODE_PATH": str(NPM_DIR / "node_modules")}


class Clients:
    """bench/node/clients.js on ``urls`` (``per_url`` screens each), in this host."""

    def __init__(self, urls: list[str], per_url: int, env: dict[str, str], timeout: float = 180) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="clients-", dir=hosts.STATE_DIR))  # gone with `down` too
        self.out = self.dir / "records.bin"
        cfg = self.dir / "cfg.json"
        cfg.write_text(json.dumps({"urls": urls, "perUrl": per_url, "concurrency": 64, "connectTimeoutMs": 60000,
                                   "out": str(self.out), "shard": 0, "shards": 1}))
        self.proc = subprocess.Popen([hosts.tools()["node"], "--max-old-space-size=4096", str(NODE_DIR / "clients.js"),  # type: ignore[list-item]
                                      str(cfg)], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        _, ok, failed, seconds = self._line(timeout).split()
        self.connected, self.failed, self.connect_s = int(ok), int(failed), float(seconds)

    def _line(self, timeout: float) -> str:
        import selectors

        sel = selectors.DefaultSelector()
        sel.register(self.proc.stdout, selectors.EVENT_READ)  # type: ignore[arg-type]
        try:
            if not sel.select(timeout):
                raise RuntimeError("clients.js timed out")
        finally:
            sel.close()
        line = self.proc.stdout.readline()  # type: ignore[union-attr]
        if not line:
            raise RuntimeError("clients.js exited")
        return line.strip()

    def command(self, cmd: str) -> str:
        self.proc.stdin.write(cmd + "\n")  # type: ignore[union-attr]
        self.proc.stdin.flush()  # type: ignore[union-attr]
        return self._line(120)

    def records(self) -> list[tuple[int, int, int, int, float]]:
        """``(url, screen, version, size, time ms)`` of every frame since the last call."""
        self.command("dump")
        return list(struct.iter_unpack("<iiiid", self.out.read_bytes()))

    def close(self) -> None:
        try:
            self.proc.stdin.write("quit\n")  # type: ignore[union-attr]
            self.proc.stdin.flush()  # type: ignore[union-attr]
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


class Recorder:
    """One subscriber per channel straight on an edge (``host``), keeping every frame's bytes and
    arrival time: what the floor is fed."""

    def __init__(self, host: str, paths: dict[str, str]) -> None:
        sys.path.insert(0, str(hosts.ROOT / "deploy"))
        import edge_watchdog

        self.frames: list[tuple[float, str, bytes]] = []
        self._lock = threading.Lock()
        self._socks = []
        for channel, path in paths.items():
            sock, reader = edge_watchdog.open_websocket(host, hosts.EDGE_PORT, path)
            self._socks.append(sock)
            threading.Thread(target=self._read, args=(channel, reader), daemon=True).start()

    def _read(self, channel: str, reader: Any) -> None:
        try:
            while True:
                opcode, payload = reader.next()
                if opcode == 1:
                    with self._lock:
                        self.frames.append((time.time(), channel, payload))
                elif opcode == 8:
                    return
        except (OSError, ValueError):
            return

    def take(self) -> list[tuple[float, str, bytes]]:
        with self._lock:
            out, self.frames = self.frames, []
        return out

    def close(self) -> None:
        for sock in self._socks:
            sock.close()


def version_of(frame: bytes) -> int:
    head = frame[:200]
    i = head.find(b'"version":')
    if i < 0:
        return -1
    j, v = i + 10, 0
    while j < len(head) and 48 <= head[j] <= 57:
        v, j = v * 10 + head[j] - 48, j + 1
    return v


def latencies(records, url_channel: list[str], posted: dict[str, dict[int, float]]) -> tuple[list[float], int]:
    """Per screen, for each posted version of its channel, the first frame of that version or
    newer: delay in s; and how many (screen, version) pairs never arrived."""
    by_screen: dict[tuple[int, int], list[tuple[float, int]]] = {}
    for url, client, version, _, t in records:
        by_screen.setdefault((url, client), []).append((t / 1000.0, version))
    out, missing = [], 0
    for (url, _), frames in by_screen.items():
        frames.sort()
        high, reached = -1, []
        for _, v in frames:
            high = max(high, v)
            reached.append(high)
        for version, p in posted.get(url_channel[url], {}).items():
            k = bisect.bisect_left(reached, version)
            if k == len(reached):
                missing += 1
            else:
                out.append(max(0.0, frames[k][0] - p))
    out.sort()
    return out, missing


def figures_of(phase: str, delta: dict[str, Any], lat: list[float], missing: int, records, writes: int,
               screens: int, per_edge: dict[str, int], edge_names: list[str]) -> dict[str, Any]:
    frames = len(records)
    sizes = sorted(r[3] for r in records)
    w = delta["window_s"]
    edge_cpu = sum(delta["cpu_s"][e] for e in edge_names)
    edge_tx = sum(delta["tx"][e] for e in edge_names)
    out = {
        "phase": phase, "screens": screens, "screens_per_edge": per_edge, "window_s": round(w, 1),
        "writes": writes, "writes_per_s": round(writes / w, 1), "frames": frames, "frames_per_s": round(frames / w, 1),
        "latency_median_ms": round(1000 * pick(lat, 0.5), 1), "latency_p99_ms": round(1000 * pick(lat, 0.99), 1),
        "missing": missing, "frame_bytes_median": statistics.median(sizes) if sizes else 0,
        "edge_wire_bytes_per_frame": round(edge_tx / frames, 1) if frames else 0,
        "edge_cpu_pct_of_core": {e: round(100 * delta["cpu_s"][e] / w, 1) for e in edge_names},
        "edge_cpu_us_per_frame": round(1e6 * edge_cpu / frames, 1) if frames else 0,
        "cpu_pct_of_core": {h: round(100 * c / w, 1) for h, c in delta["cpu_s"].items()},
        "tx_kbytes_per_s": {h: round(b / w / 1000, 1) for h, b in delta["tx"].items()},
        "rx_kbytes_per_s": {h: round(b / w / 1000, 1) for h, b in delta["rx"].items()},
    }
    if writes:
        out["service_cpu_ms_per_write"] = round(1000 * sum(delta["cpu_s"][s] for s in hosts.SERVICES) / writes, 2)
        out["redis_cpu_ms_per_write"] = round(1000 * delta["cpu_s"]["redis"] / writes, 3)
        out["redis_commands_per_write"] = round(delta["redis_commands"] / writes, 1)
        out["redis_commands_per_s"] = round(delta["redis_commands"] / w, 1)
        out["redis_calls_per_write"] = {k: round(v / writes, 1) for k, v in delta["redis_calls"].items()}
    return out


def hops(recorded: list[tuple[float, str, bytes]], posted: dict[str, dict[int, float]], records,
         url_channel: list[str]) -> dict[str, float]:
    """The nchan path in two hops: feed POST to the frame at edge1's recorder (service, its
    publisher, Redis, edge1), and that moment to the screens (an edge and the balancer), ms."""
    at_edge: dict[tuple[str, int], float] = {}
    for t, name, frame in recorded:
        at_edge.setdefault((name, version_of(frame)), t)
    first = [t - posted[name][v] for (name, v), t in at_edge.items() if v in posted.get(name, {})]
    second = []
    for url, _, version, _, t in records:
        seen = at_edge.get((url_channel[url], version))
        if seen is not None:
            second.append(t / 1000.0 - seen)
    first.sort()
    second.sort()
    return {"post_to_edge_median_ms": round(1000 * pick(first, 0.5), 1), "post_to_edge_p99_ms": round(1000 * pick(first, 0.99), 1),
            "edge_to_screen_median_ms": round(1000 * pick(second, 0.5), 1),
            "edge_to_screen_p99_ms": round(1000 * pick(second, 0.99), 1)}


# ----------------------------------------------------------------------------- the run
def options(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="lab.py run figures", description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=30)
    parser.add_argument("--model-screens", type=int, default=40, help="screens on each table's page model channel")
    parser.add_argument("--table-screens", type=int, default=10, help="screens on each table's snapshot channel")
    parser.add_argument("--lobby-screens", type=int, default=0,
                        help="screens on the lobby page's model channel (at most 5 frames/s each; not in the latency)")
    parser.add_argument("--seconds", type=float, default=30.0, help="seconds fed (each phase)")
    parser.add_argument("--rate", type=float, default=1.0, help="rounds per second per table")
    parser.add_argument("--idle", type=float, default=8.0, help="seconds measured with the screens on and nothing fed")
    return parser.parse_args(argv)


def per_edge() -> dict[str, int]:
    return {e: v["scur"] for e, v in hosts.edge_stats().items()}


def main(argv: list[str]) -> int:
    o = options(argv)
    env = ensure_node_ws()
    import random
    import string

    tag = "".join(random.choice(string.ascii_uppercase) for _ in range(3))
    tables = [f"{tag}{k}" for k in range(1, o.tables + 1)]
    services = [hosts.addr(s) for s in hosts.SERVICES]
    feeders = Feeders([Feeder(t, simulated(t, 2, seed=k), services[k % 2:] + services[:k % 2])
                       for k, t in enumerate(tables)])
    log(f"figures: {o.tables} tables x ({o.model_screens} model + {o.table_screens} snapshot screens), "
        f"{o.rate:g} round/s per table, {o.seconds:g} s per phase, load {os.getloadavg()[0]:.2f}")
    feeders.post_next(2)
    channels: dict[str, str] = {}  # channel -> subscriber path
    for svc in hosts.SERVICES:
        for t in tables:
            request(hosts.addr(svc), "GET", f"/tables/{t}?lang=en", port=hosts.SERVICE_PORT)
            request(hosts.addr(svc), "GET", f"/tables/{t}/model.json?lang=en&orient=landscape", port=hosts.SERVICE_PORT)
    if o.lobby_screens:
        for svc in hosts.SERVICES:  # a lobby page served: the process follows the lobby's model topic
            request(hosts.addr(svc), "GET", "/lobby?lang=en", port=hosts.SERVICE_PORT)
        html = request(LB, "GET", "/lobby?lang=en")[1].decode()
        boot = json.loads(html.split('<script type="application/json" id="boot">', 1)[1].split("</script>", 1)[0])
        channels[f"lobby:{boot['ws'].rsplit('/', 1)[1]}"] = boot["ws"]
    for t in tables:
        html = request(LB, "GET", f"/tables/{t}?lang=en")[1].decode()
        boot = json.loads(html.split('<script type="application/json" id="boot">', 1)[1].split("</script>", 1)[0])
        path = boot["ws"]["landscape"]
        channels[f"model:{path.rsplit('/', 1)[1]}:{t}"] = path
        channels[f"table:{t}"] = f"/push/tables/{t}"
    # URLs repeat so clients.js opens model_screens per model channel, table_screens per snapshot one
    counts = {"model": o.model_screens, "table": o.table_screens, "lobby": o.lobby_screens}
    unit = max(1, min(c for c in counts.values() if c))
    urls_of: list[str] = []
    for name, path in channels.items():
        urls_of.extend([name] * (counts[name.split(":", 1)[0]] // unit))
    screens = len(urls_of) * unit

    def table_of(name: str) -> str:
        return name.rsplit(":", 1)[1] if name.startswith("model:") else name.split(":", 1)[1]

    lobby_names = [n for n in channels if n.startswith("lobby:")]

    results: dict[str, Any] = {}
    recorder = Recorder(hosts.addr("edge1"), channels)
    rss0 = {e: rss_kb(e) for e in hosts.EDGES}
    clients = Clients([f"ws://{LB}{channels[n]}" for n in urls_of], unit, env)
    log(f"nchan: {clients.connected} screens connected in {clients.connect_s:.1f} s ({clients.failed} failed); "
        f"per edge {per_edge()}")
    time.sleep(2)
    clients.records()
    recorder.take()
    edges_seen = per_edge()
    rss1 = {e: rss_kb(e) for e in hosts.EDGES}
    results["edge_rss_kb_per_screen"] = round(sum(rss1[e] - rss0[e] for e in hosts.EDGES) / max(1, screens), 1)
    idle0 = Sample()
    time.sleep(o.idle)
    before = Sample()
    idle = before.since(idle0)
    results["idle_cpu_pct_of_core"] = {h: round(100 * c / idle["window_s"], 2) for h, c in idle["cpu_s"].items()}
    results["idle_redis_commands_per_s"] = round(idle["redis_commands"] / idle["window_s"], 1)
    t_start = time.time()
    feeders.start(o.rate)
    time.sleep(o.seconds)
    feeders.stop()
    time.sleep(2)
    after = Sample()
    records = clients.records()
    recorded = recorder.take()
    acks = [a for a in feeders.acks() if a.sent >= t_start]
    posted_by_table: dict[str, dict[int, float]] = {}
    for a in acks:
        posted_by_table.setdefault(a.table, {})[a.version] = a.sent
    posted = {name: posted_by_table.get(table_of(name), {}) for name in channels if name not in lobby_names}
    lat, missing = latencies(records, urls_of, posted)
    results["nchan"] = figures_of("nchan", after.since(before), lat, missing, records, len(acks), screens, edges_seen,
                                  list(hosts.EDGES))
    results["nchan"].update(hops(recorded, posted, records, urls_of))
    # per write, without what the hosts spend with nothing fed (keepalives, heartbeats, timers)
    busy = after.since(before)
    w, writes = busy["window_s"], max(1, len(acks))
    idle_rate = {h: c / idle["window_s"] for h, c in idle["cpu_s"].items()}
    results["nchan"]["service_cpu_ms_per_write_above_idle"] = round(
        1000 * sum(busy["cpu_s"][h] - idle_rate[h] * w for h in hosts.SERVICES) / writes, 2)
    results["nchan"]["redis_cpu_ms_per_write_above_idle"] = round(1000 * (busy["cpu_s"]["redis"] - idle_rate["redis"] * w) / writes, 3)
    results["nchan"]["redis_commands_per_write_above_idle"] = round(
        (busy["redis_commands"] - idle["redis_commands"] / idle["window_s"] * w) / writes, 1)
    clients.close()
    recorder.close()

    # ------------------------------------------------------------------ the floor
    floors, floor_pids = {}, {}
    lb_floor = None
    try:
        for e in hosts.EDGES:
            proc = subprocess.Popen(["ip", "netns", "exec", net.ns(e), hosts.tools()["node"], str(NODE_DIR / "ws_floor.js"),  # type: ignore[list-item]
                                     str(FLOOR_PORT), hosts.addr(e)], env=env, stdout=subprocess.PIPE, text=True)
            assert proc.stdout.readline().startswith("listening")  # type: ignore[union-attr]
            floors[e], floor_pids[e] = proc, {proc.pid}
        rd = hosts.run_dir("lb-floor")
        conf = hosts.render("haproxy.cfg", rd / "haproxy.cfg",
                            {"RUN_DIR": str(rd), "LISTEN": f"{LB}:{FLOOR_PORT}", "MAXCONN": "9000",
                             "EDGES": ",".join(f"{e} {hosts.addr(e)}:{FLOOR_PORT}" for e in hosts.EDGES)})
        # ws_floor.js has no /healthz: any answer of its (404 for an unknown channel's bytes) will do
        conf.write_text(conf.read_text().replace("http-check send meth GET uri /healthz", "http-check send meth GET uri /bytes/none")
                        .replace("http-check expect status 200", "http-check expect status 404"))
        lb_floor = subprocess.Popen(["ip", "netns", "exec", net.ns("lb"), hosts.tools()["haproxy"], "-db", "-f", str(conf)],  # type: ignore[list-item]
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        hosts.wait_port("cli", LB, FLOOR_PORT, what="lb-floor")
        time.sleep(1.5)
        frss0 = {e: rss_kb(e, floor_pids[e]) for e in hosts.EDGES}
        clients = Clients([f"ws://{LB}:{FLOOR_PORT}/{n}" for n in urls_of], unit, env)
        results["floor_rss_kb_per_screen"] = round(
            sum(rss_kb(e, floor_pids[e]) - frss0[e] for e in hosts.EDGES) / max(1, screens), 1)
        floor_edges = {e: v["scur"] for e, v in hosts.edge_stats("lb-floor").items()}
        log(f"floor: {clients.connected} screens connected in {clients.connect_s:.1f} s ({clients.failed} failed); "
            f"per edge {floor_edges}")
        time.sleep(2)
        clients.records()
        conns = {e: http.client.HTTPConnection(hosts.addr(e), FLOOR_PORT, timeout=10) for e in hosts.EDGES}
        floor_posted: dict[str, dict[int, float]] = {}
        before = Sample(floor_pids)
        t0 = time.time()
        first = recorded[0][0] if recorded else t0
        for t, name, frame in recorded:
            delay = t0 + (t - first) - time.time()
            if delay > 0:
                time.sleep(delay)
            sent = time.time()
            for conn in conns.values():
                conn.request("POST", f"/pub/{name}", body=frame)
                conn.getresponse().read()
            floor_posted.setdefault(name, {}).setdefault(version_of(frame), sent)
        time.sleep(2)
        after = Sample(floor_pids)
        records = clients.records()
        lat, missing = latencies(records, urls_of, {k: v for k, v in floor_posted.items() if k not in lobby_names})
        delta = after.since(before)
        results["floor"] = figures_of("floor", delta, lat, missing, records, 0, screens, floor_edges, list(hosts.EDGES))
        clients.close()
        for conn in conns.values():
            conn.close()
    finally:
        for proc in floors.values():
            proc.terminate()
            proc.wait(timeout=10)
        if lb_floor is not None:
            lb_floor.terminate()
            lb_floor.wait(timeout=10)
    n, f = results["nchan"], results["floor"]
    results["ratios"] = {
        "edge_cpu_per_frame_nchan_over_floor": round(n["edge_cpu_us_per_frame"] / f["edge_cpu_us_per_frame"], 2)
        if f["edge_cpu_us_per_frame"] else None,
        "latency_median_nchan_over_floor": round(n["latency_median_ms"] / f["latency_median_ms"], 2) if f["latency_median_ms"] else None,
        "latency_p99_nchan_over_floor": round(n["latency_p99_ms"] / f["latency_p99_ms"], 2) if f["latency_p99_ms"] else None,
    }
    print_table(results)
    print(json.dumps({"scenario": "figures", "load_at_end": round(os.getloadavg()[0], 2), **results}), flush=True)
    return 0


def print_table(r: dict[str, Any]) -> None:
    n, f = r["nchan"], r["floor"]
    rows = [("screens (per edge)", f"{n['screens']} {n['screens_per_edge']}", f"{f['screens']}"),
            ("writes/s", n["writes_per_s"], "-"),
            ("frames delivered/s", n["frames_per_s"], f["frames_per_s"]),
            ("latency median / p99 ms", f"{n['latency_median_ms']} / {n['latency_p99_ms']}",
             f"{f['latency_median_ms']} / {f['latency_p99_ms']}"),
            ("  feed POST to edge1 median / p99 ms", f"{n['post_to_edge_median_ms']} / {n['post_to_edge_p99_ms']}", "-"),
            ("  edge to screen median / p99 ms", f"{n['edge_to_screen_median_ms']} / {n['edge_to_screen_p99_ms']}", "-"),
            ("frames missing", n["missing"], f["missing"]),
            ("frame bytes (median payload)", n["frame_bytes_median"], f["frame_bytes_median"]),
            ("edge wire bytes per frame", n["edge_wire_bytes_per_frame"], f["edge_wire_bytes_per_frame"]),
            ("edge CPU us per frame", n["edge_cpu_us_per_frame"], f["edge_cpu_us_per_frame"]),
            ("edge CPU % of a core", n["edge_cpu_pct_of_core"], f["edge_cpu_pct_of_core"]),
            ("service CPU ms per write", n.get("service_cpu_ms_per_write"), "-"),
            ("redis CPU ms / commands per write", f"{n.get('redis_cpu_ms_per_write')} / {n.get('redis_commands_per_write')}", "-"),
            ("redis calls per write", n.get("redis_calls_per_write"), "-"),
            ("above idle: service ms / redis ms / redis commands per write",
             f"{n.get('service_cpu_ms_per_write_above_idle')} / {n.get('redis_cpu_ms_per_write_above_idle')} / "
             f"{n.get('redis_commands_per_write_above_idle')}", "-"),
            ("idle CPU % of a core (nothing fed)", r.get("idle_cpu_pct_of_core"), "-"),
            ("edge memory per screen, KB (RSS)", r.get("edge_rss_kb_per_screen"), r.get("floor_rss_kb_per_screen")),
            ("CPU % of a core, every host", n["cpu_pct_of_core"], f["cpu_pct_of_core"])]
    for label, a, b in rows:
        print(f"  {label:<36} nchan: {a}   floor: {b}", file=sys.stderr, flush=True)
