"""How many lobby tiles a good-road setting lights up (docs/frontend.md). Prints figures; asserts nothing.

    .venv/bin/python bench/bench_good_roads.py [--shoes 400] [--seed demo]

A lobby tile gets the gold frame while its table has a highlighted good road
(``ROADS_GOOD_ROADS``, web/render/tiles.py): one of those patterns at or over its threshold
(roads/good_roads.py) in the big road after the latest round. Tables deal independently, so
the share of a lobby's tiles lit at a given moment is, on average, the share of rounds after
which one table's board is lit. This deals ``--shoes`` rule-dealt shoes (roads.simulator, as
``roads demo`` does), replays each round into the roads (roads.shoe_roads) and counts, after
every round, which patterns are present. It prints that share for the default setting, for
each pattern alone and for every pattern together, with the mean length of a lit spell (in
rounds: how long a frame stays on). The target for the default: a quarter of the tiles or
fewer (a frame on most tiles says nothing).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from roads.good_roads import DEFAULT_GOOD_ROADS, HIGHLIGHTED_BY_DEFAULT  # noqa: E402
from roads.outcome import RoundResult  # noqa: E402
from roads.cards import parse_cards  # noqa: E402
from roads.shoe_roads import ShoeRoads  # noqa: E402
from roads.simulator import simulate  # noqa: E402


def states(shoes: int, seed: str):
    """Yield, after every dealt round, the set of pattern ids present (every pattern measured)."""
    roads = None
    for message in simulate("bench-good", seed=seed, shoes=shoes):
        if message["type"] == "shoe":
            roads = ShoeRoads(good_roads=DEFAULT_GOOD_ROADS)
            continue
        result = RoundResult.from_cards(parse_cards(message["player"]), parse_cards(message["banker"]))
        roads.record(message["round"], result)
        yield frozenset(g["pattern"] for g in roads.good_roads_json())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shoes", type=int, default=400)
    parser.add_argument("--seed", default="demo")
    args = parser.parse_args()
    started = time.perf_counter()
    seen = list(states(args.shoes, args.seed))
    elapsed = time.perf_counter() - started
    settings = [("default " + ",".join(HIGHLIGHTED_BY_DEFAULT), HIGHLIGHTED_BY_DEFAULT)]
    settings += [(g.id, (g.id,)) for g in DEFAULT_GOOD_ROADS]
    settings.append(("every pattern", tuple(g.id for g in DEFAULT_GOOD_ROADS)))
    print(f"{args.shoes} shoes, {len(seen)} rounds dealt and replayed in {elapsed:.1f} s (seed {args.seed!r})")
    print(f"{'setting':52} {'tiles lit':>10} {'mean spell':>11}")
    for name, patterns in settings:
        wanted = set(patterns)
        lit = [bool(s & wanted) for s in seen]
        spells = sum(1 for i, on in enumerate(lit) if on and (i == 0 or not lit[i - 1]))
        share = sum(lit) / len(lit)
        spell = sum(lit) / spells if spells else 0.0
        print(f"{name:52} {share:>9.1%} {spell:>8.1f} rds")


if __name__ == "__main__":
    main()
