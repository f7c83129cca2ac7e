"""Cost per write of the floor's good-roads topic at 200 tables, beside the lobby topic's in the same run.

    .venv/bin/python bench/bench_floor_good_roads.py [--tables 200] [--rounds 40] [--custom]

Every table deals rule-dealt shoes (roads.simulator); the writes go round-robin over the tables,
each decided and applied to the table's record and its view built (web/snapshots.py) as the
service does, then handed to the two floor-wide topics a write updates: the lobby
(web/push/lobby.py, the anchor: an existing per-write cost) and the good roads
(web/push/floor_good_roads.py). Each topic's ``update`` is timed alone. Also printed: the share
of writes after which the good-roads document changed (published) and the mean size of the
delta a following screen then gets (web/push/delta.py). ``--custom`` adds two operator's
patterns (docs/patterns.md), measured in the snapshot's build (web/snapshots.py) instead.
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import orjson  # noqa: E402

from roads.good_roads import CustomRoad  # noqa: E402
from roads.simulator import simulate  # noqa: E402
from roads.table import RecordRound, StartShoe  # noqa: E402
from web import snapshots  # noqa: E402
from web.push import topics  # noqa: E402
from web.push.delta import diff  # noqa: E402
from web.push.hub import Hub  # noqa: E402
from web.read_model import ReadModel  # noqa: E402

CUSTOM = (CustomRoad.of("banker_6", "Banker six", "streak B >= 6", 5),
          CustomRoad.of("one_two", "One-two", "columns 1,2,1,2", 95))


def writes(table: str, seed: int):
    """The table's writes, in order: a shoe start, then its rounds (two shoes)."""
    for m in simulate(table, seed=seed, shoes=2):
        if m["type"] == "shoe":
            yield StartShoe(m["shoe"], tuple(m.get("burn") or ()), m.get("cut_card_position"))
        else:
            yield RecordRound(m["shoe"], m["round"], {k: m[k] for k in ("player", "banker", "burn", "cut_card")
                                                      if k in m})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=40, help="measured writes per table")
    parser.add_argument("--custom", action="store_true", help="two operator's patterns too")
    args = parser.parse_args()
    read = ReadModel(Hub(), CUSTOM if args.custom else ())
    ids = [f"t{i:03d}" for i in range(args.tables)]
    feeds = {t: writes(t, seed=i) for i, t in enumerate(ids)}
    clock = iter(range(1_700_000_000, 1_800_000_000)).__next__
    lobby_s: list[float] = []
    floor_s: list[float] = []
    view_s: list[float] = []
    deltas: list[int] = []
    published = 0
    measured = 0

    def write(t_id: str, measure: bool) -> None:
        nonlocal published, measured
        t = read.tables.slot(t_id)
        try:
            w = next(feeds[t_id])
        except StopIteration:
            return
        t.table.apply(t.table.decide(w, clock))
        read.tables.add_to_order(t_id)
        a = time.perf_counter()
        view = snapshots.table_view(t)
        t.view = view
        read.hub.publish(topics.table(t_id), view.version, view.encoded, document=view.snapshot)
        b = time.perf_counter()
        read.lobby.update(read.tables.order_changes, t_id, view.version, view.lobby_entry, view.lobby_encoded,
                          read._lobby_rows)
        c = time.perf_counter()
        before = read.good_roads.publishes
        read.good_roads.update(read.tables.order_changes, t_id, view.version, view.lobby_entry, read._floor_rows)
        d = time.perf_counter()
        if measure:
            measured += 1
            view_s.append(b - a)
            lobby_s.append(c - b)
            floor_s.append(d - c)
            if read.good_roads.publishes != before:
                published += 1
                m = read.hub.latest(topics.GOOD_ROADS)
                deltas.append(len(orjson.dumps(diff(m.base.document, m.document))) if m.base is not None else 0)

    for _ in range(12):  # every table on the floor, a dozen rounds in (warm)
        for t_id in ids:
            write(t_id, False)
    read.publish_lobby()
    for _ in range(args.rounds):
        for t_id in ids:
            write(t_id, True)

    def us(xs: list[float]) -> str:
        xs = sorted(xs)
        return (f"median {statistics.median(xs) * 1e6:7.1f} us  p99 {xs[int(len(xs) * 0.99)] * 1e6:7.1f} us  "
                f"mean {statistics.fmean(xs) * 1e6:7.1f} us")

    doc = read.hub.latest(topics.GOOD_ROADS).document
    print(f"{args.tables} tables, {measured} measured writes (round-robin), custom patterns: {bool(args.custom)}")
    print(f"  view build (snapshot + lobby entry)   {us(view_s)}")
    print(f"  lobby topic update (anchor)           {us(lobby_s)}")
    print(f"  good-roads topic update               {us(floor_s)}")
    ratio = statistics.median(floor_s) / statistics.median(lobby_s)
    print(f"  good-roads / lobby (medians)          {ratio:.2f}")
    print(f"  writes that changed the floor's good roads: {published}/{measured} ({published / measured:.0%}); "
          f"mean delta {statistics.fmean(deltas) if deltas else 0:.0f} bytes")
    print(f"  now: {doc['with_good_road']} tables with a good road; document {len(orjson.dumps(doc))} bytes")


if __name__ == "__main__":
    main()
