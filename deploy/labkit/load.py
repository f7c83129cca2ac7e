"""What loads the lab: feeders posting each table's shoe and rounds to the service hosts, and
screens (``screens.js``) following table, model and lobby topics through the balancer.

Runs inside the client host's namespace (``lab.py run`` puts it there).
"""

from __future__ import annotations

import http.client
import json
import os
import selectors
import struct
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from labkit import hosts

RETRY_S = (0.2, 2.0)
"""A failed post is sent again after the first wait, doubling up to the second (seconds)."""
ATTEMPT_TIMEOUT_S = 5.0
"""One attempt's connect + answer timeout, in seconds (a Redis-less service answers 503 within ~4 s)."""
GIVE_UP_S = 120.0
"""A message not accepted within this many seconds is lost (counted in ``lost``)."""


def request(host: str, method: str, path: str, body: Any = None, port: int | None = None,
            timeout: float = 10.0) -> tuple[int, bytes]:
    """One HTTP request to ``host`` (an address), ``(status, body)``; raises ``OSError`` /
    ``http.client.HTTPException``."""
    conn = http.client.HTTPConnection(host, port or 80, timeout=timeout)
    try:
        headers = {"Authorization": f"Bearer {hosts.TOKEN}"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        conn.request(method, path, body=data, headers=headers)
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def get_json(host: str, path: str, port: int | None = None) -> Any:
    """GET ``path`` as JSON (``RuntimeError`` on a status other than 200)."""
    status, data = request(host, "GET", path, port=port)
    if status != 200:
        raise RuntimeError(f"GET http://{host}:{port or 80}{path} answered {status}: {data[:200]!r}")
    return json.loads(data)


_DEALT: dict[tuple[int, int], list[tuple[str, dict]]] = {}
DEALS = 8
"""Distinct deals: table k gets deal ``k % DEALS`` (one ``roads simulate`` each, however many tables)."""


def simulated(table: str, shoes: int, seed: int) -> list[tuple[str, dict]]:
    """``(path, body)`` of every feed message of ``shoes`` dealt shoes (``roads simulate``, seed
    ``seed % DEALS``) for ``table``."""
    key = (shoes, seed % DEALS)
    if key not in _DEALT:
        _DEALT[key] = _simulate(shoes, key[1])
    return [(f"/api/tables/{table}/{kind}", dict(body)) for kind, body in _DEALT[key]]


def _simulate(shoes: int, seed: int) -> list[tuple[str, dict]]:
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "feed.jsonl"
        roads = Path(hosts.tools()["gunicorn"] or "").with_name("roads")
        subprocess.run([str(roads), "simulate", "--shoes", str(shoes), "--seed", str(seed), "--out", str(out)],
                       check=True, capture_output=True)
        messages = []
        for line in out.read_text().splitlines():
            m = json.loads(line)
            kind = m.pop("type")
            m.pop("table", None)
            messages.append(("shoes" if kind == "shoe" else "rounds", m))
        return messages


@dataclass
class Ack:
    """One accepted feed message: the table, its version after the write, when the accepted
    attempt was sent and answered (wall clock, s), how many attempts it took, on which host."""
    table: str
    version: int
    sent: float
    answered: float
    attempts: int
    host: str


@dataclass
class Feeder:
    """Posts one table's messages in order, as an adapter would: each message to the service
    host that took the last one (first ``hosts[0]``), and after a failure (connection error,
    timeout, 5xx) again after a backoff, alternating hosts, until accepted (2xx) or
    :data:`GIVE_UP_S`."""
    table: str
    messages: list[tuple[str, dict]]
    hosts: list[str]
    acks: list[Ack] = field(default_factory=list)
    lost: int = 0
    failures: int = 0
    next: int = 0

    def post(self, index: int) -> Ack | None:
        path, body = self.messages[index]
        started, attempt, delay = time.monotonic(), 0, RETRY_S[0]
        while True:
            host = self.hosts[attempt % len(self.hosts)]
            attempt += 1
            sent = time.time()
            try:
                status, data = request(host, "POST", path, body, port=hosts.SERVICE_PORT, timeout=ATTEMPT_TIMEOUT_S)
            except (OSError, http.client.HTTPException):
                status, data = 0, b""
            if 200 <= status < 300:
                k = self.hosts.index(host)  # the next messages go first where this one went
                self.hosts = self.hosts[k:] + self.hosts[:k]
                ack = Ack(self.table, json.loads(data)["version"], sent, time.time(), attempt, host)
                self.acks.append(ack)
                return ack
            if 400 <= status < 500:
                raise RuntimeError(f"{path} refused ({status}): {data[:300]!r}")
            self.failures += 1
            if time.monotonic() - started > GIVE_UP_S:
                self.lost += 1
                return None
            time.sleep(delay)
            delay = min(delay * 2, RETRY_S[1])


class Feeders:
    """One thread per :class:`Feeder`; :meth:`run` posts the next ``count`` messages of each, at
    ``rate`` messages per second per table (phases spread over the tables), until :meth:`stop`."""

    def __init__(self, feeders: list[Feeder]) -> None:
        self.feeders = feeders
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def post_next(self, count: int) -> None:
        """Post the next ``count`` messages of every table now, tables in parallel; waits."""
        def one(f: Feeder) -> None:
            for _ in range(count):
                f.post(f.next)
                f.next += 1
        threads = [threading.Thread(target=one, args=(f,)) for f in self.feeders]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    def start(self, rate: float) -> None:
        self._stop.clear()
        t0 = time.monotonic()

        def run(k: int, f: Feeder) -> None:
            i = 0
            while not self._stop.is_set() and f.next < len(f.messages):
                due = t0 + (k / len(self.feeders) + i) / rate
                if self._stop.wait(max(0.0, due - time.monotonic())):
                    break
                f.post(f.next)
                f.next += 1
                i += 1

        self._threads = [threading.Thread(target=run, args=(k, f), daemon=True) for k, f in enumerate(self.feeders)]
        for t in self._threads:
            t.start()

    def stop(self) -> None:
        """Stop after each table's post in progress (which goes on until accepted or given up)."""
        self._stop.set()
        for t in self._threads:
            t.join(timeout=GIVE_UP_S + 10)

    def acks(self) -> list[Ack]:
        return sorted((a for f in self.feeders for a in f.acks), key=lambda a: a.answered)


class Screens:
    """``screens.js`` with ``configs`` (dicts of its ``screens`` list), ``procs`` Node processes
    sharing them; commands as in screens.js. Waits (up to ``timeout`` s) until every screen opened."""

    def __init__(self, configs: list[dict], procs: int = 1, rate: int = 200, timeout: float = 120) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="screens-", dir=hosts.STATE_DIR))  # gone with `down` too
        self.configs = configs
        self.procs: list[subprocess.Popen] = []
        self.shares: list[list[int]] = []
        node = hosts.tools()["node"]
        for p in range(procs):
            mine = list(range(p, len(configs), procs))
            self.shares.append(mine)
            cfg = self.dir / f"cfg{p}.json"
            cfg.write_text(json.dumps({"static": str(hosts.ROOT / "static" / "js"), "rate": max(1, rate // procs),
                                       "screens": [configs[i] for i in mine]}))
            self.procs.append(subprocess.Popen([node, "--experimental-websocket", "--no-warnings",  # type: ignore[list-item]
                                                "--max-old-space-size=4096", str(Path(__file__).with_name("screens.js")),
                                                str(cfg)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True))
        for proc in self.procs:
            self._line(proc, timeout)

    @staticmethod
    def _line(proc: subprocess.Popen, timeout: float) -> dict:
        sel = selectors.DefaultSelector()
        sel.register(proc.stdout, selectors.EVENT_READ)  # type: ignore[arg-type]
        try:
            if not sel.select(timeout):
                raise RuntimeError("screens.js did not answer within %.0f s" % timeout)
        finally:
            sel.close()
        line = proc.stdout.readline()  # type: ignore[union-attr]
        if not line:
            raise RuntimeError(f"screens.js exited ({proc.poll()})")
        return json.loads(line)

    def command(self, cmd: str, timeout: float = 60) -> list[dict]:
        for proc in self.procs:
            proc.stdin.write(cmd + "\n")  # type: ignore[union-attr]
            proc.stdin.flush()  # type: ignore[union-attr]
        return [self._line(proc, timeout) for proc in self.procs]

    def stats(self) -> dict[str, int]:
        """Counters summed over the processes (screens.js ``stats``)."""
        total: dict[str, int] = {}
        for part in self.command("stats"):
            for k, v in part.items():
                total[k] = total.get(k, 0) + v
        return total

    def records(self) -> list[tuple[int, int, float]]:
        """``(screen, version, time in s)`` of every document shown since the last call."""
        out = []
        for p, proc in enumerate(self.procs):
            path = self.dir / f"rec{p}.bin"
            proc.stdin.write(f"dump {path}\n")  # type: ignore[union-attr]
            proc.stdin.flush()  # type: ignore[union-attr]
            self._line(proc, 60)
            share = self.shares[p]
            out.extend((share[s], v, t / 1000.0) for s, v, t in struct.iter_unpack("<iid", path.read_bytes()))
        return out

    def check(self, refs: dict[str, list[str]]) -> dict[str, Any]:
        """Every screen's document against ``refs`` (screens.js ``check``): ``equal`` (count),
        ``unequal`` [(screen, version, reference version)], ``refs_agree``."""
        path = self.dir / "refs.json"
        path.write_text(json.dumps(refs))
        equal, unequal, agree, disagree = 0, [], True, set()
        for p, part in enumerate(self.command(f"check {path}", timeout=120)):
            if "error" in part:
                raise RuntimeError(f"screens.js check: {part['error']}")
            equal += part["equal"]
            agree = agree and part["refsAgree"]
            disagree.update(part["disagree"])
            unequal.extend((self.shares[p][s], v, rv) for s, v, rv, _ in part["results"])
        return {"equal": equal, "unequal": unequal, "refs_agree": agree, "disagree": sorted(disagree)}

    def close(self) -> None:
        for proc in self.procs:
            try:
                proc.stdin.write("quit\n")  # type: ignore[union-attr]
                proc.stdin.flush()  # type: ignore[union-attr]
            except OSError:
                pass
        for proc in self.procs:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for child in self.dir.iterdir():
            child.unlink()
        os.rmdir(self.dir)
