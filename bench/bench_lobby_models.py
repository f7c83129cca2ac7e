"""Service CPU per feed write at 300 tables with lobby screens followed: multi-table page models
as before this bench was written beside coalesced to MULTI_TABLE_BUILDS_PER_S per model with a
tile cache that holds the screens' tiles, alternating in the same run.

    .venv/bin/python bench/bench_lobby_models.py [--tables 300] [--rate 100] [--seconds 6] [--runs 2]

One in-process service (SQLite store, the Flask test client as the feed) with ``--tables`` tables,
each one round in; the page models follow every page registered (``follow_all``, as on the nchan
tier, where screens are nginx's and not visible here): the lobby (6 tiles a page), the lobby
portrait-only screen options and the built-in good-roads screen. Writes are one round at a time,
round-robin over the tables, paced at ``--rate`` writes/s for ``--seconds``. CPU is the process's
(every thread: feed requests, the models' worker) from the first write until the last write's
models are published, divided by the writes. Modes: ``old`` sets the coalescing interval to 0
(``web.push.page_models.MULTI_TABLE_INTERVAL_S``: the worker builds whatever is dirty as soon as
it can) and a tile cache of 512 (``web.push.documents.TileCache``: fewer than one screen's 600
tiles, so it misses on nearly every tile, as the old cache that emptied itself when full did);
``uncoalesced`` only the interval of 0; ``after`` neither. The anchor is a run of the same
writes with no page followed (the write path alone). Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from support.feed import AUTH, close_app, dealt_rounds, make_app  # noqa: E402
from web.extensions import get_push  # noqa: E402
from web.push import documents, page_models  # noqa: E402

PAGES = ("/lobby?rotate_s=0", "/lobby?per_page=4&rotate_s=0", "/good-roads")
"""The multi-table pages followed (each registers its model topic as followed)."""

INTERVAL = page_models.MULTI_TABLE_INTERVAL_S


def run(mode: str, tables: int, rate: float, seconds: float) -> dict[str, float]:
    """One service, ``mode`` in ``anchor`` | ``old`` | ``uncoalesced`` | ``after``: ``{"writes",
    "cpu_ms_per_write", "builds", "wall_s", "cpu_share"}``."""
    page_models.MULTI_TABLE_INTERVAL_S = 0.0 if mode in ("old", "uncoalesced") else INTERVAL
    documents._TILES = documents.TileCache(512 if mode == "old" else documents.TILE_CACHE_SIZE)
    with tempfile.TemporaryDirectory() as tmp:
        app = make_app(Path(tmp) / "data", ROADS_MAX_TABLES=max(500, tables))
        try:
            client = app.test_client()
            ids = [f"t{i:03d}" for i in range(tables)]
            rounds = {t: dealt_rounds(60, seed=i) for i, t in enumerate(ids)}
            for t in ids:
                p, b = rounds[t][0]
                assert client.post(f"/api/tables/{t}/rounds", json={"shoe": 1, "round": 1, "player": p, "banker": b},
                                   headers=AUTH).status_code == 201
            live = get_push(app).page_models
            if mode != "anchor":
                live.follow_all = True
                for page in PAGES:
                    assert client.get(page).status_code == 200
                for topic in live.topics():  # the first build of each, outside the measurement
                    live.ensure(live._specs[topic], watch=True)
            time.sleep(0.5)
            count = int(rate * seconds)
            builds = live.builds
            cpu0, t0 = time.process_time(), time.monotonic()
            for n in range(count):
                t = ids[n % tables]
                number = 2 + n // tables
                p, b = rounds[t][number - 1]
                r = client.post(f"/api/tables/{t}/rounds", json={"shoe": 1, "round": number, "player": p, "banker": b},
                                headers=AUTH)
                assert r.status_code == 201, r.get_data(as_text=True)
                wait = t0 + (n + 1) / rate - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
            lobby_version = app.extensions["roads.service"].read.lobby_version()
            deadline = time.monotonic() + 30
            while mode != "anchor" and time.monotonic() < deadline:  # until every model holds the last write
                if all((m := live.hub.latest(topic)) is not None and m.document.get("version") == lobby_version
                       for topic in live.topics()):
                    break
                time.sleep(0.005)
            cpu, wall = time.process_time() - cpu0, time.monotonic() - t0
            return {"writes": count, "cpu_ms_per_write": 1000 * cpu / count, "builds": live.builds - builds,
                    "wall_s": wall, "cpu_share": cpu / wall}
        finally:
            close_app(app)
            page_models.MULTI_TABLE_INTERVAL_S = INTERVAL


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=300)
    parser.add_argument("--rate", type=float, default=100.0, help="feed writes per second, all tables together")
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--runs", type=int, default=2, help="alternations of the modes")
    args = parser.parse_args()
    print(f"{args.tables} tables, {args.rate:g} writes/s for {args.seconds:g} s, pages followed: {', '.join(PAGES)}; "
          f"coalescing at {page_models.MULTI_TABLE_BUILDS_PER_S}/s per model")
    results: dict[str, list[dict[str, float]]] = {"anchor": [], "old": [], "uncoalesced": [], "after": []}
    for _ in range(args.runs):
        for mode in results:
            r = run(mode, args.tables, args.rate, args.seconds)
            results[mode].append(r)
            print(f"  {mode:11s} cpu/write {r['cpu_ms_per_write']:7.2f} ms  model builds {r['builds']:5d}  "
                  f"wall {r['wall_s']:5.1f} s  cpu share {r['cpu_share']:.2f} cores", flush=True)
    for mode, rs in results.items():
        print(f"{mode:11s} median cpu/write {statistics.median(r['cpu_ms_per_write'] for r in rs):7.2f} ms, "
              f"builds {statistics.median(r['builds'] for r in rs):g}")


if __name__ == "__main__":
    main()
