"""Frame-to-screen delay of the Angel Eye adapter, beside the same card posted straight to the
feed, in the same run; and the Angel Eye reader's throughput (docs/shoes.md "Figures").

Starts ``roads serve`` (subprocess, fresh data directory, tables SHOE and DIRECT configured)
and ``roads shoe angel-eye`` (subprocess) on the slave end of a pseudo-terminal. Two WebSocket
clients follow the table pages' models (``/ws/models/tables/<id>?orient=landscape``). For each
round, cards 1-3 (never the card that completes a round, which waits for the shoe's result):

* adapter: the card's ``D`` frame (8 bytes, face up, sent once) is written into the pty master
  at 4800 baud (one byte every 2.08 ms); the clock starts when its last byte has left and stops
  when the model frame of the table version that card makes arrives (the adapter's write:
  journal, spool commit with fsync, POST; the service's fsync, model build, push);
* direct: the same card POSTed to ``.../cards`` of table DIRECT; the clock starts before the
  POST and stops at its model frame.

Then the rest of the round goes through both paths unmeasured. Prints median and p99 of each.

Throughput: a 2,000-round stream (every frame three times, reads of 64 bytes) through
:class:`shoes.angel_eye.AngelEyeDecoder`, then through the decoder and the round follower.

Usage::

    .venv/bin/python bench/bench_shoe_latency.py [--rounds 40]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tty
from pathlib import Path

import requests
import websocket

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from roads.cards import Card  # noqa: E402
from roads.tableau import deal_round  # noqa: E402
from shoes.angel_eye import AngelEyeDecoder, encode_card, encode_frame, encode_position  # noqa: E402
from shoes.deal import RoundFollower  # noqa: E402

TOKEN = "bench-token"
BYTE_S = 10 / 4800


def rounds(count: int, seed: int) -> list[tuple[list[str], list[str]]]:
    rng = random.Random(seed)
    cards = [Card(r, s) for r in "A23456789TJQK" for s in "SHDC"] * 8
    rng.shuffle(cards)
    it = iter(cards)
    return [tuple([str(c) for c in side] for side in deal_round(lambda: next(it))) for _ in range(count)]  # type: ignore[misc]


def deal_keys(player: list[str], banker: list[str]) -> list[tuple[str, int, str]]:
    out = [("player", 1, player[0]), ("banker", 1, banker[0]), ("player", 2, player[1]), ("banker", 2, banker[1])]
    out += [("player", 3, player[2])] if len(player) == 3 else []
    out += [("banker", 3, banker[2])] if len(banker) == 3 else []
    return out


def result_byte(player: list[str], banker: list[str]) -> int:
    value = lambda c: {"A": 1, "T": 0, "J": 0, "Q": 0, "K": 0}.get(c[0]) if not c[0].isdigit() else int(c[0])  # noqa: E731
    pt, bt = sum(map(value, player)) % 10, sum(map(value, banker)) % 10
    code = 4 if bt > pt else 1 if pt > bt else 2
    if code == 4 and bt == 6:
        code = 5
    return 0x80 | code << 4 | (player[0][0] == player[1][0]) | (banker[0][0] == banker[1][0]) << 1


class ModelWatcher:
    """Notes the arrival time of every version of a table's landscape model."""

    def __init__(self, base: str, table: str) -> None:
        self.ws = websocket.create_connection(f"ws://{base}/ws/models/tables/{table}?orient=landscape", timeout=30)
        self.seen: dict[int, float] = {}
        self.version = 0
        self.cond = threading.Condition()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        while True:
            try:
                raw = self.ws.recv()
            except Exception:  # noqa: BLE001 (closed)
                return
            now = time.perf_counter()
            msg = json.loads(raw)
            if msg.get("type") in ("snapshot", "delta"):
                with self.cond:
                    self.seen.setdefault(msg["version"], now)
                    self.version = max(self.version, msg["version"])
                    self.cond.notify_all()

    def wait(self, version: int, timeout: float = 10) -> float:
        """Arrival time of ``version`` (or of the first later one)."""
        with self.cond:
            if not self.cond.wait_for(lambda: self.version >= version, timeout):
                raise TimeoutError(f"version {version} never came (have {self.version})")
            return min(t for v, t in self.seen.items() if v >= version)


def pctl(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def latency(n_rounds: int) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="bench-shoe-"))
    env = {**os.environ, "ROADS_FEED_TOKEN": TOKEN, "PYTHONUNBUFFERED": "1",
           "ROADS_TABLES": json.dumps({"SHOE": {}, "DIRECT": {}})}
    server = subprocess.Popen([sys.executable, "-m", "web.cli", "serve", "--port", "0", "--data", str(tmp / "data")],
                              cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = server.stdout.readline()
    base = line.split("http://")[1].split()[0].rstrip("/")
    master, slave = os.openpty()
    tty.setraw(slave)
    adapter = subprocess.Popen(
        [sys.executable, "-m", "web.cli", "shoe", "angel-eye", "--table", "SHOE", "--url", f"http://{base}",
         "--token", TOKEN, "--device", os.ttyname(slave), "--spool", str(tmp / "spool"), "-v"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=(tmp / "adapter.log").open("w"))
    session = requests.Session()
    session.headers.update({"Authorization": f"Bearer {TOKEN}"})
    try:
        deadline = time.monotonic() + 30
        while "numbering from" not in (tmp / "adapter.log").read_text():
            if time.monotonic() > deadline:
                raise SystemExit("the adapter did not start: " + (tmp / "adapter.log").read_text())
            time.sleep(0.05)
        shoe_w, direct_w = ModelWatcher(base, "SHOE"), ModelWatcher(base, "DIRECT")
        time.sleep(0.5)
        seq = 0

        def send(command: str, data: bytes = b"") -> float:
            nonlocal seq
            raw = encode_frame(seq, command, data)
            seq = (seq + 1) % 10
            for b in raw:
                os.write(master, bytes([b]))
                time.sleep(BYTE_S)
            return time.perf_counter() - BYTE_S  # when the last byte left (the sleep is the line's time)

        def version(table: str) -> int:
            return session.get(f"http://{base}/api/tables/{table}", timeout=5).json()["version"]

        send("S")
        via_adapter: list[float] = []
        direct: list[float] = []
        v_shoe, v_direct = version("SHOE"), version("DIRECT")
        for r, (player, banker) in enumerate(rounds(n_rounds, 7), 1):
            keys = deal_keys(player, banker)
            for k, (side, order, card) in enumerate(keys, 1):
                t0 = send("D", bytes([encode_position(side, order), encode_card(card)]))
                measured = k <= 3
                if measured:
                    target = v_shoe + (2 if k == 1 else 1)  # card 1 comes after the "dealing" state
                    via_adapter.append(shoe_w.wait(target) - t0)
                    v_shoe = target
                t1 = time.perf_counter()
                session.post(f"http://{base}/api/tables/DIRECT/shoes/1/rounds/{r}/cards",
                             json={"position": k, "cards": [card]}, timeout=5).raise_for_status()
                v_direct += 1
                if measured:
                    direct.append(direct_w.wait(v_direct) - t1)
            send("G", bytes([result_byte(player, banker)]))
            send("P")
            v_shoe += len(keys) - 3 + 1  # the rest of the cards, then the "result" state
            shoe_w.wait(v_shoe)
        ms = lambda xs: f"median {statistics.median(xs) * 1000:.1f} ms, p99 {pctl(xs, 0.99) * 1000:.1f} ms"  # noqa: E731
        print(f"frame-to-screen, {len(via_adapter)} cards over {n_rounds} rounds: adapter (last byte out of the pty at "
              f"4800 baud -> model frame) {ms(via_adapter)}; direct feed POST -> model frame {ms(direct)}")
    finally:
        adapter.terminate()
        adapter.wait(timeout=20)
        server.terminate()
        server.wait(timeout=20)


def throughput() -> None:
    data = bytearray()
    seq = 0
    for player, banker in _many_rounds(2000):
        frames = [("D", bytes([encode_position(s, o), 0x80])) for s, o, _ in deal_keys(player, banker)]
        frames += [("I", bytes([encode_position(s, o), encode_card(c)])) for s, o, c in deal_keys(player, banker)]
        frames += [("G", bytes([result_byte(player, banker)])), ("P", b"")]
        for command, payload in frames:
            data += encode_frame(seq, command, payload) * 3
            seq = (seq + 1) % 10
    data = bytes(data)
    chunks = [data[i:i + 64] for i in range(0, len(data), 64)]
    best_reader = best_all = float("inf")
    for _ in range(3):
        decoder = AngelEyeDecoder()
        t = time.perf_counter()
        for c in chunks:
            decoder.feed(c)
        best_reader = min(best_reader, time.perf_counter() - t)
        decoder, follower = AngelEyeDecoder(), RoundFollower("T", shoe=1, round=0)
        t = time.perf_counter()
        messages = 0
        for c in chunks:
            for e in decoder.feed(c):
                messages += len(follower.handle(e))
        best_all = min(best_all, time.perf_counter() - t)
    frames = decoder.reader.stats.frames
    print(f"reader throughput: {len(data) / 1e6:.2f} MB ({frames} frames, each sent 3 times, 2,000 rounds) in "
          f"{best_reader * 1000:.0f} ms = {len(data) / best_reader / 1e6:.2f} MB/s, {frames / best_reader:,.0f} frames/s "
          f"({len(data) / best_reader / 480:,.0f}x a 4800-baud line); with the round follower {best_all * 1000:.0f} ms "
          f"= {frames / best_all:,.0f} frames/s ({follower.stats.rounds_complete} rounds, {messages} messages)")


def _many_rounds(n: int) -> list[tuple[list[str], list[str]]]:
    out: list[tuple[list[str], list[str]]] = []
    seed = 0
    while len(out) < n:
        out += rounds(min(60, n - len(out)), seed)
        seed += 1
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--only", choices=("latency", "throughput"), default=None)
    args = parser.parse_args()
    if args.only != "latency":
        throughput()
    if args.only != "throughput":
        latency(args.rounds)


if __name__ == "__main__":
    main()
