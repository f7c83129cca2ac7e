"""The failure scenarios of ``lab.py run`` (docs/deploy.md, "Several hosts").

Each one: tables dealt by ``roads simulate`` are fed at ``--rate`` rounds/s per table through
the service hosts (:class:`labkit.load.Feeder`: failover and retries), screens follow the
tables' page models, their snapshots and the lobby page through the balancer, the fault is
injected, feeding goes on, stops, and once the screens settle every screen's document is
compared with the API of every service host. The last output line is one JSON object:

``scenario``, ``screens``, ``tables``, ``updates_sent`` (feed writes accepted), ``missed_updates``
(after resync: versions a screen lacks at the end against the API, plus one per screen whose
document differs at the same version; must be 0), ``equal_screens``, ``hosts_agree`` (every
service host answers the same documents), ``rounds_lost`` (messages never accepted),
``recover_median_s`` / ``recover_p99_s`` (per screen, the longest feed-to-screen delay of the
updates accepted from 2 s before the fault to the end of feeding: how long it stayed behind),
``affected_screens`` (those behind more than 1 s), ``latency_median_ms`` / ``latency_p99_ms``
(feed POST to screen, table and model topics, the whole run), ``reconnects``, ``resyncs``,
``feed_retries``, ``feed_outage_s`` (longest time no write was accepted), ``watchdog_restarts``,
``per_edge`` (screens per edge from the balancer before and after), ``ok`` (every exact outcome
held) and what the scenario adds. Exit code 0 when ``ok``, else 1.
"""

from __future__ import annotations

import argparse
import bisect
import json
import random
import string
import sys
import time
from pathlib import Path
from typing import Any, Callable

from labkit import hosts, net
from labkit.load import Feeder, Feeders, Screens, get_json, request, simulated

LB = hosts.addr("lb")


def log(*args: object) -> None:
    print(*args, file=sys.stderr, flush=True)


def pick(values: list[float], q: float) -> float:
    return values[min(len(values) - 1, int(q * len(values)))] if values else 0.0


class Run:
    """One scenario's tables, feeders and screens (options of :func:`options`)."""

    def __init__(self, opts: argparse.Namespace) -> None:
        self.opts = opts
        tag = "".join(random.choice(string.ascii_uppercase) for _ in range(3))
        self.tables = [f"{tag}{k}" for k in range(1, opts.tables + 1)]
        services = [hosts.addr(s) for s in hosts.SERVICES]
        self.feeders = Feeders([
            Feeder(t, simulated(t, 2, seed=k), services[k % 2:] + services[:k % 2])
            for k, t in enumerate(self.tables)])
        self.screens: Screens | None = None
        self.configs: list[dict] = []
        self.refs: dict[str, list[str]] = {}
        self.topic_of: list[tuple[str, str]] = []  # per screen: (kind, table or "")
        self.t_fault = self.t_feed_end = 0.0
        self.started = time.time()
        self.extra_screens: Screens | None = None

    # ------------------------------------------------------------------ setup
    def follow(self, svc: str) -> None:
        """What pages make a service host do: serve the table pages and the lobby (their topics
        registered) and answer each landscape model.json (that topic followed)."""
        address = hosts.addr(svc)
        for t in self.tables:
            request(address, "GET", f"/tables/{t}?lang=en", port=hosts.SERVICE_PORT)
            request(address, "GET", f"/tables/{t}/model.json?lang=en&orient=landscape", port=hosts.SERVICE_PORT)
        request(address, "GET", "/lobby?lang=en", port=hosts.SERVICE_PORT)

    def screen_configs(self) -> list[dict]:
        o, keepalive = self.opts, None
        configs: list[dict] = []
        for t in self.tables:
            html = request(LB, "GET", f"/tables/{t}?lang=en")[1].decode()
            boot = json.loads(html.split('<script type="application/json" id="boot">', 1)[1].split("</script>", 1)[0])
            keepalive = boot["keepaliveS"]
            model_url = boot["modelUrl"] + ("&" if "?" in boot["modelUrl"] else "?") + "orient=landscape"
            self.refs[f"model:{t}"] = [f"http://{hosts.addr(s)}:{hosts.SERVICE_PORT}{model_url}" for s in hosts.SERVICES]
            self.refs[f"table:{t}"] = [f"http://{hosts.addr(s)}:{hosts.SERVICE_PORT}/api/tables/{t}" for s in hosts.SERVICES]
            for _ in range(o.model_screens):
                configs.append({"kind": "model", "ws": f"ws://{LB}{boot['ws']['landscape']}",
                                "full": f"http://{LB}{boot['full']['landscape']}", "modelUrl": f"http://{LB}{model_url}",
                                "keepaliveS": keepalive, "ref": f"model:{t}"})
                self.topic_of.append(("model", t))
            for _ in range(o.table_screens):
                configs.append({"kind": "table", "ws": f"ws://{LB}/push/tables/{t}", "full": f"http://{LB}/push/full/tables/{t}",
                                "keepaliveS": keepalive, "ref": f"table:{t}"})
                self.topic_of.append(("table", t))
        html = request(LB, "GET", "/lobby?lang=en")[1].decode()
        boot = json.loads(html.split('<script type="application/json" id="boot">', 1)[1].split("</script>", 1)[0])
        self.refs["lobby"] = [f"http://{hosts.addr(s)}:{hosts.SERVICE_PORT}{boot['modelUrl']}" for s in hosts.SERVICES]
        for _ in range(o.lobby_screens):
            configs.append({"kind": "lobby", "ws": f"ws://{LB}{boot['ws']}", "full": f"http://{LB}{boot['full']}",
                            "modelUrl": f"http://{LB}{boot['modelUrl']}", "keepaliveS": boot["keepaliveS"], "ref": "lobby"})
            self.topic_of.append(("lobby", ""))
        return configs

    def setup(self) -> None:
        log(f"tables {', '.join(self.tables)}: shoe and first round")
        self.feeders.post_next(2)
        for svc in hosts.SERVICES:
            self.follow(svc)
        self.configs = self.screen_configs()
        log(f"{len(self.configs)} screens connecting through the balancer")
        self.screens = Screens(self.configs, procs=self.opts.node_procs)
        self.wait_docs(self.screens, len(self.configs))
        log(f"screens live; per edge {self.per_edge()}")

    @staticmethod
    def wait_docs(screens: Screens, count: int, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while True:
            s = screens.stats()
            if s["docs"] >= count and s["live"] >= count:
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"screens not live after {timeout} s: {s}")
            time.sleep(0.5)

    def per_edge(self) -> dict[str, int]:
        return {e: v["scur"] for e, v in hosts.edge_stats().items()}

    # ------------------------------------------------------------------ feeding and the fault
    def feed(self, seconds: float) -> None:
        time.sleep(seconds)

    def fault(self, what: str) -> None:
        self.t_fault = time.time()
        log(f"fault at +{self.t_fault - self.started:.1f} s: {what}")

    def settle(self, timeout: float) -> dict[str, Any]:
        """Wait (up to ``timeout`` s) until every screen equals the API; the last check."""
        deadline = time.monotonic() + timeout
        while True:
            result = self.all_screens().check(self.refs) if self.extra_screens is None else self.check_both()
            if not result["unequal"] or time.monotonic() > deadline:
                return result
            time.sleep(1.0)

    def all_screens(self) -> Screens:
        assert self.screens is not None
        return self.screens

    def check_both(self) -> dict[str, Any]:
        a = self.all_screens().check(self.refs)
        b = self.extra_screens.check(self.refs)  # type: ignore[union-attr]
        return {"equal": a["equal"] + b["equal"], "unequal": a["unequal"] + [(len(self.configs) + s, v, rv) for s, v, rv in b["unequal"]],
                "refs_agree": a["refs_agree"] and b["refs_agree"]}

    # ------------------------------------------------------------------ figures of the run
    def result(self, name: str, check: dict[str, Any], **extra: Any) -> dict[str, Any]:
        acks = self.feeders.acks()
        posted: dict[str, dict[int, float]] = {}
        for a in acks:
            posted.setdefault(a.table, {})[a.version] = a.sent
        lobby_end = get_json(hosts.addr(hosts.SERVICES[0]), "/api/tables", port=hosts.SERVICE_PORT)["version"] \
            if self.opts.lobby_screens else 0
        lobby_posted = {lobby_end - len(acks) + k + 1: a.sent for k, a in enumerate(acks)}
        records = self.all_screens().records()
        by_screen: dict[int, list[tuple[float, int]]] = {}
        for s, v, t in records:
            by_screen.setdefault(s, []).append((t, v))
        window = (self.t_fault - 2.0, self.t_feed_end)
        latencies, recover = [], []
        for s, (kind, table) in enumerate(self.topic_of):
            times = posted.get(table, {}) if kind != "lobby" else lobby_posted
            shown = sorted(by_screen.get(s, []))
            reached, high = [], -1  # the highest version held by each time
            for t, have in shown:
                high = max(high, have)
                reached.append(high)
            worst = 0.0
            for v, p in times.items():
                k = bisect.bisect_left(reached, v)
                if k == len(reached):
                    continue
                delay = max(0.0, shown[k][0] - p)
                if kind != "lobby":
                    latencies.append(delay)
                if window[0] <= p <= window[1]:
                    worst = max(worst, delay)
            recover.append(worst)
        latencies.sort()
        recover.sort()
        versions = {s: v for s, v, _ in check["unequal"]}
        missed = sum(max(1, rv - versions[s]) if rv >= 0 else 1 for s, _, rv in check["unequal"])
        stats = self.all_screens().stats()
        lost = sum(f.lost for f in self.feeders.feeders)
        outage = 0.0
        answered = [a.answered for a in acks if a.answered >= self.t_fault - 5]
        for x, y in zip(answered, answered[1:]):
            outage = max(outage, y - x)
        out = {
            "scenario": name, "screens": len(self.configs), "tables": len(self.tables), "edges": len(hosts.EDGES),
            "updates_sent": len(acks), "missed_updates": missed, "equal_screens": check["equal"],
            "hosts_agree": check["refs_agree"], "rounds_lost": lost,
            "recover_median_s": round(pick(recover, 0.5), 3), "recover_p99_s": round(pick(recover, 0.99), 3),
            "recover_max_s": round(recover[-1] if recover else 0.0, 3),
            "affected_screens": sum(1 for r in recover if r > 1.0),
            "latency_median_ms": round(1000 * pick(latencies, 0.5), 1), "latency_p99_ms": round(1000 * pick(latencies, 0.99), 1),
            "reconnects": stats["opens"] - stats["opened"], "resyncs": stats["resyncs"],
            "feed_retries": sum(f.failures for f in self.feeders.feeders), "feed_outage_s": round(outage, 2),
            "watchdog_restarts": watchdog_restarts(self.started), "duration_s": round(time.time() - self.started, 1),
            **extra,
        }
        out["ok"] = bool(out["missed_updates"] == 0 and out["hosts_agree"] and out["rounds_lost"] == 0
                         and out["equal_screens"] == out["screens"] + extra.get("new_screens", 0)
                         and extra.get("ok", True))
        return out

    def close(self) -> None:
        for s in (self.screens, self.extra_screens):
            if s is not None:
                s.close()


def watchdog_restarts(since: float) -> int:
    count = 0
    for edge in hosts.EDGES:
        path = hosts.STATE_DIR / "logs" / f"{edge}-watchdog.log"
        if path.exists():
            for line in path.read_text().splitlines():
                try:
                    event = json.loads(line)
                except ValueError:
                    continue
                if event.get("event") == "restart" and event.get("t", 0) >= since:
                    count += 1
    return count


# ----------------------------------------------------------------------------- the scenarios
def run_feeding(run: Run, inject: Callable[[], dict[str, Any]], after: float) -> dict[str, Any]:
    """Feed for ``--before`` s, ``inject`` the fault (its dict joins the result), feed ``after`` s, stop."""
    run.feeders.start(run.opts.rate)
    time.sleep(run.opts.before)
    info = inject()
    time.sleep(after)
    run.feeders.stop()
    run.t_feed_end = time.time()
    log(f"feeding stopped at +{run.t_feed_end - run.started:.1f} s")
    return info


def edge_kill(run: Run) -> dict[str, Any]:
    before = run.per_edge()
    victim = max(before, key=before.get)  # the edge holding the most screens

    def inject() -> dict[str, Any]:
        if run.opts.kill == "crash":
            run.fault(f"{victim} crashed (cable out, every process SIGKILLed)")
            net.set_link(victim, up=False)
            net.kill_all(net.ns(victim), crash=True)
        else:
            run.fault(f"{victim} shut down (processes stopped: SIGTERM, then cable out)")
            net.kill_all(net.ns(victim), timeout=2.0)
            net.set_link(victim, up=False)
        return {"kill": run.opts.kill}

    run_feeding(run, inject, run.opts.after)
    check = run.settle(run.opts.settle)
    log(f"screens after settling: {run.all_screens().stats()}")
    after = run.per_edge()
    status = hosts.edge_stats()[victim]["status"]
    stats = run.all_screens().stats()
    result = run.result("edge-kill", check, victim=victim, victim_status=status, per_edge_before=before,
                        per_edge_after=after, live_screens=stats["live"],
                        ok=after.get(victim, 0) == 0 and status.startswith("DOWN") and stats["live"] == len(run.configs))
    net.set_link(victim, up=True)
    data = hosts.state()
    data["procs"][f"{victim}-watchdog"] = hosts.start_edge(victim)["watchdog"]
    hosts.save_state(data)
    return result


def nginx_reload(run: Run) -> dict[str, Any]:
    before = run.per_edge()

    def inject() -> dict[str, Any]:
        run.fault("each edge's nginx reloaded with a new configuration (2 workers), 3 s apart")
        for edge in hosts.EDGES:
            hosts.reload_edge(edge, WORKERS="2")
            time.sleep(3)
        return {}

    run_feeding(run, inject, run.opts.after)
    check = run.settle(run.opts.settle)
    stats = run.all_screens().stats()
    return run.result("nginx-reload", check, per_edge_before=before, per_edge_after=run.per_edge(),
                      live_screens=stats["live"], offline_screens=stats["offline"],
                      ok=stats["live"] == len(run.configs) and stats["offline"] == 0)


def redis_restart(run: Run) -> dict[str, Any]:
    def inject() -> dict[str, Any]:
        data = hosts.state()
        run.fault(f"redis killed (SIGKILL), started again {run.opts.redis_down:g} s later")
        hosts.kill(data["procs"]["redis"])
        time.sleep(run.opts.redis_down)
        data["procs"]["redis"] = hosts.start_redis()
        hosts.save_state(data)
        return {"redis_down_s": run.opts.redis_down}

    info = run_feeding(run, inject, run.opts.after)
    check = run.settle(run.opts.settle)
    stats = run.all_screens().stats()
    return run.result("redis-restart", check, live_screens=stats["live"], offline_screens=stats["offline"],
                      ok=stats["live"] == len(run.configs), **info)


def service_kill(run: Run) -> dict[str, Any]:
    victim = hosts.SERVICES[0]

    def inject() -> dict[str, Any]:
        run.fault(f"{victim} crashed (cable out, every process SIGKILLed)")
        net.set_link(victim, up=False)
        hosts.kill_service(victim)
        return {"victim": victim}

    info = run_feeding(run, inject, run.opts.after)
    survivor = [s for s in hosts.SERVICES if s != victim]
    refs_all = run.refs
    run.refs = {k: [u for u in v if hosts.addr(victim) not in u] for k, v in refs_all.items()}
    check = run.settle(run.opts.settle)
    log(f"{victim} back: started again, it loads the streams and must serve what {', '.join(survivor)} serves")
    net.set_link(victim, up=True)
    hosts.start_service(victim)
    run.follow(victim)
    run.refs = refs_all
    rejoined = run.all_screens().check(run.refs)
    return run.result("service-kill", check, rejoined_agrees=rejoined["refs_agree"] and not rejoined["unequal"],
                      ok=rejoined["refs_agree"] and not rejoined["unequal"], **info)


def service_partition(run: Run) -> dict[str, Any]:
    victim = hosts.SERVICES[0]
    cut_s = run.opts.cut

    def inject() -> dict[str, Any]:
        run.fault(f"{victim} cut off from redis for {cut_s:g} s")
        net.partition(victim, hosts.addr(victim), "redis", hosts.addr("redis"), cut=True)
        time.sleep(cut_s)
        net.partition(victim, hosts.addr(victim), "redis", hosts.addr("redis"), cut=False)
        log(f"{victim} reconnected to redis at +{time.time() - run.started:.1f} s")
        return {"victim": victim, "cut_s": cut_s}

    info = run_feeding(run, inject, run.opts.after)
    check = run.settle(run.opts.settle)
    stats = run.all_screens().stats()
    return run.result("service-partition", check, live_screens=stats["live"], **info)


def slow_edge(run: Run) -> dict[str, Any]:
    before = run.per_edge()
    victim = min(before, key=before.get)  # least connections: the balancer's first choice
    detected: dict[str, Any] = {}

    def inject() -> dict[str, Any]:
        run.fault(f"{victim} starved of CPU (0.2% of a core, with a busy loop beside nginx)")
        stot = {e: v["stot"] for e, v in hosts.edge_stats().items()}
        hosts.starve(victim, on=True)
        t0, status = time.monotonic(), ""
        while time.monotonic() - t0 < 30:
            status = hosts.edge_stats()[victim]["status"]
            if status.startswith("DOWN"):
                break
            time.sleep(0.2)
        detected.update(detect_s=round(time.monotonic() - t0, 2), victim_status=status)
        log(f"balancer: {victim} {status} after {detected['detect_s']} s; {run.opts.new_screens} new screens")
        configs = [dict(run.configs[k % len(run.configs)]) for k in range(run.opts.new_screens)]
        run.extra_screens = Screens(configs, procs=1)
        Run.wait_docs(run.extra_screens, len(configs))
        stot_after = {e: v["stot"] for e, v in hosts.edge_stats().items()}
        detected["new_connections"] = {e: stot_after[e] - stot[e] for e in stot}
        return {}

    try:
        run_feeding(run, inject, run.opts.after)
    finally:
        hosts.starve(victim, on=False)
    check = run.settle(run.opts.settle)
    new = detected.get("new_connections", {})
    extra_stats = run.extra_screens.stats() if run.extra_screens else {"live": 0}
    result = run.result("slow-edge", check, victim=victim, per_edge_before=before, per_edge_after=run.per_edge(),
                        new_screens=run.opts.new_screens, new_live=extra_stats["live"], **detected,
                        ok=new.get(victim, -1) == 0 and str(detected.get("victim_status", "")).startswith("DOWN")
                        and extra_stats["live"] == run.opts.new_screens)
    return result


SCENARIOS: dict[str, Callable[[Run], dict[str, Any]]] = {
    "edge-kill": edge_kill, "nginx-reload": nginx_reload, "redis-restart": redis_restart,
    "service-kill": service_kill, "service-partition": service_partition, "slow-edge": slow_edge,
}


def options(name: str, argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog=f"lab.py run {name}", description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=6, help="tables fed (default 6)")
    parser.add_argument("--model-screens", type=int, default=12, help="table page screens per table (default 12)")
    parser.add_argument("--table-screens", type=int, default=6, help="snapshot API clients per table (default 6)")
    parser.add_argument("--lobby-screens", type=int, default=24, help="lobby page screens (default 24)")
    parser.add_argument("--rate", type=float, default=1.0, help="rounds per second per table (default 1)")
    parser.add_argument("--before", type=float, default=6.0, help="seconds fed before the fault (default 6)")
    parser.add_argument("--after", type=float, default=None, help="seconds fed after it (default per scenario)")
    parser.add_argument("--settle", type=float, default=45.0, help="longest wait for the screens to settle (s)")
    parser.add_argument("--redis-down", type=float, default=3.0, help="redis-restart: seconds Redis stays down")
    parser.add_argument("--cut", type=float, default=30.0, help="service-partition: seconds cut off from Redis")
    parser.add_argument("--new-screens", type=int, default=60, help="slow-edge: screens opened while it is slow")
    parser.add_argument("--kill", choices=("crash", "shutdown"), default="crash",
                        help="edge-kill: a crash (cable out, SIGKILL) or a shutdown (SIGTERM, then cable out)")
    parser.add_argument("--node-procs", type=int, default=1, help="Node processes running the screens")
    opts = parser.parse_args(argv)
    if opts.after is None:
        opts.after = {"service-kill": 20.0, "service-partition": 10.0, "slow-edge": 6.0}.get(name, 12.0)
    return opts


def main(name: str, argv: list[str]) -> int:
    if name == "figures":
        from labkit import figures

        return figures.main(argv)
    opts = options(name, argv)
    run = Run(opts)
    try:
        run.setup()
        result = SCENARIOS[name](run)
    finally:
        run.close()
    print(json.dumps(result), flush=True)
    return 0 if result["ok"] else 1
