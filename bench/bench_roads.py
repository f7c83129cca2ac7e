"""Benchmark: cost of one round update of every road, plus the snapshot dict.

Deals rule-dealt 80-round shoes (roads.tableau.deal_round from a seeded shuffle of 8
decks, no cut card, so every shoe has 80 rounds; the rare shoe that needs more than 416
cards gets a second shuffled pack), then times, per recorded round:

* update   = ShoeRoads.record (bead plate, big road, 3 derived roads, stats) followed by
             build_snapshot (ask, stats, good roads, side bets and every road piece as a
             JSON-ready dict; JSON encoding excluded): the README's performance
             table targets median <= 10 us;
* record   = ShoeRoads.record alone;
* snapshot = build_snapshot alone, right after a record;
* update measured three ways: wall clock per round in one pass; wall clock per round, the
  fastest of --repeats passes; thread CPU time of whole shoes (fastest of --repeats passes)
  divided by 80, median over shoes (the machine may be shared: the last two resist noise);
* also: void of a round in the middle of a full shoe, correct of the newest round, and
  a from-scratch rebuild of an 80-round shoe, for comparison; and json.dumps of a full
  snapshot (what the web layer does once per version).

Prints figures in microseconds; asserts nothing. Usage:

    .venv/bin/python bench/bench_roads.py [--shoes 300] [--seed 1]
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from roads.cards import full_deck  # noqa: E402
from roads.outcome import RoundResult  # noqa: E402
from roads.shoe_roads import ShoeRoads  # noqa: E402
from roads.snapshot import build_snapshot  # noqa: E402
from roads.tableau import deal_round  # noqa: E402
from roads.variants import DEFAULT_VARIANT_ID, get_variant  # noqa: E402

ROUNDS_PER_SHOE = 80


def deal_shoe(rng: random.Random, rounds: int = ROUNDS_PER_SHOE) -> list[RoundResult]:
    """``rounds`` results dealt by the tableau from a shuffled 8-deck shoe."""
    cards: list = []
    out = []
    for _ in range(rounds):
        if len(cards) < 6:  # 80 rounds can need a few more than 416 cards: add a fresh pack
            pack = full_deck() * 8
            rng.shuffle(pack)
            cards = pack + cards
        player, banker = deal_round(cards.pop)
        out.append(RoundResult.from_cards(player, banker))
    return out


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def show(name: str, us: list[float]) -> None:
    print(f"{name:<34} n={len(us):>6}  median {statistics.median(us):8.2f} us  "
          f"p99 {pct(us, 99):8.2f} us  max {max(us):9.2f} us")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shoes", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=5, help="passes per shoe for the best-of figure")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    shoes = [deal_shoe(rng) for _ in range(args.shoes)]
    variant = get_variant(DEFAULT_VARIANT_ID)
    clock = time.perf_counter_ns

    # Warm-up (imports, caches, allocator).
    for results in shoes[:5]:
        roads = ShoeRoads()
        for n, r in enumerate(results, 1):
            roads.record(n, r)
            build_snapshot(table="T1", shoe=1, version=n, roads=roads, variant=variant)

    update: list[float] = []
    record: list[float] = []
    snapshot: list[float] = []
    for results in shoes:
        roads = ShoeRoads()
        for n, r in enumerate(results, 1):
            t0 = clock()
            roads.record(n, r)
            t1 = clock()
            build_snapshot(table="T1", shoe=1, version=n, roads=roads, variant=variant)
            t2 = clock()
            update.append((t2 - t0) / 1000)
            record.append((t1 - t0) / 1000)
            snapshot.append((t2 - t1) / 1000)

    # Noise-robust figure (the machine may be shared): each shoe replayed REPEATS times on
    # a fresh ShoeRoads, the fastest of the passes kept per round, then median/p99 over rounds.
    best_update: list[float] = []
    for results in shoes:
        per_round = [float("inf")] * len(results)
        for _ in range(args.repeats):
            roads = ShoeRoads()
            for n, r in enumerate(results, 1):
                t0 = clock()
                roads.record(n, r)
                build_snapshot(table="T1", shoe=1, version=n, roads=roads, variant=variant)
                dt = (clock() - t0) / 1000
                if dt < per_round[n - 1]:
                    per_round[n - 1] = dt
        best_update.extend(per_round)

    # CPU time of the whole 80-round update loop of each shoe (thread time: not inflated when
    # the process is preempted), as a mean per round; median and p99 over shoes.
    cpu_per_round: list[float] = []
    cpu = time.thread_time_ns
    for results in shoes:
        best = float("inf")
        for _ in range(args.repeats):
            roads = ShoeRoads()
            c0 = cpu()
            for n, r in enumerate(results, 1):
                roads.record(n, r)
                build_snapshot(table="T1", shoe=1, version=n, roads=roads, variant=variant)
            best = min(best, (cpu() - c0) / 1000 / len(results))
        cpu_per_round.append(best)

    void_mid: list[float] = []
    correct_last: list[float] = []
    rebuild: list[float] = []
    encode: list[float] = []
    for i, results in enumerate(shoes):
        roads = ShoeRoads.from_rounds(results)
        t0 = clock()
        roads.void(ROUNDS_PER_SHOE // 2)
        build_snapshot(table="T1", shoe=1, version=1, roads=roads, variant=variant)
        void_mid.append((clock() - t0) / 1000)
        other = shoes[(i + 1) % len(shoes)][-1]
        t0 = clock()
        roads.correct(ROUNDS_PER_SHOE, other)
        build_snapshot(table="T1", shoe=1, version=2, roads=roads, variant=variant)
        correct_last.append((clock() - t0) / 1000)
        t0 = clock()
        fresh = ShoeRoads.from_rounds(results)
        snap = build_snapshot(table="T1", shoe=1, version=3, roads=fresh, variant=variant)
        rebuild.append((clock() - t0) / 1000)
        t0 = clock()
        json.dumps(snap, separators=(",", ":"))
        encode.append((clock() - t0) / 1000)

    print(f"Python {sys.version.split()[0]}; {args.shoes} shoes x {ROUNDS_PER_SHOE} rounds; "
          f"variant {variant.id}; gc {'on' if gc.isenabled() else 'off'}")
    show("update = record + snapshot / round", update)
    show(f"update, best of {args.repeats} passes / round", best_update)
    show("update, CPU time, shoe mean / round", cpu_per_round)
    show("record / round", record)
    show("snapshot / round", snapshot)
    show("void round 40 of 80 (+ snapshot)", void_mid)
    show("correct round 80 of 80 (+ snapshot)", correct_last)
    show("rebuild 80 rounds (+ snapshot)", rebuild)
    show("json.dumps of an 80-round snapshot", encode)
    print(f"target: update median <= 10 us: single pass {statistics.median(update):.2f} us, "
          f"best of {args.repeats} {statistics.median(best_update):.2f} us, "
          f"CPU time {statistics.median(cpu_per_round):.2f} us")


if __name__ == "__main__":
    main()
