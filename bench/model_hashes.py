"""Hashes of the board-model documents pages get (web/http/model_specs.py) over many snapshots.

A speed-up of the model build (caches of text fitting, legends, layouts) must leave every
document byte-identical. This script feeds seeded shoes (the tableau's deals, with voids and
new shoes) to an in-process app (Flask test client, SQLite in a temporary directory, a fixed clock) and after
every write builds the documents of many page options (table pages in both orientations and
one at a time, the five languages, both themes, bead contents, good roads, columns, embeds of
several sizes and roads, the lobby) and prints the sha256 of each document's orjson bytes with
every ``"now"`` (the server clock each model carries) and ``"release"`` (a digest of the
render code itself) removed.

Usage (compare the output of two versions with ``diff``)::

    .venv/bin/python bench/model_hashes.py [--rounds 80] > /tmp/model_hashes.txt

The last line is one sha256 over all the lines before it.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TOKEN = "hash-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}

PAGES = (
    "/tables/{t}", "/tables/{t}?orient=landscape", "/tables/{t}?orient=portrait&lang=zh",
    "/tables/{t}?lang=th&theme=light&bead=total", "/tables/{t}?lang=my&bead=colour&good=long_banker,ping_pong,side_by_side",
    "/tables/{t}?lang=lo&cols=20&orient=portrait", "/tables/{t}?cols=60&good=none",
    "/embed/{t}", "/embed/{t}?roads=big_road,bead_plate&w=900&h=500&lang=zh",
    "/embed/{t}?w=600&h=300&theme=dark&lang=th", "/embed/{t}?roads=big_eye_boy,small_road,cockroach_pig&w=320&h=480",
    "/lobby", "/lobby?lang=lo&theme=light&per_page=1",
)


def timeless(value):
    if isinstance(value, dict):
        return {k: timeless(v) for k, v in value.items() if k not in ("now", "release")}
    if isinstance(value, list):
        return [timeless(v) for v in value]
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=80, help="rounds per shoe of the main table")
    args = parser.parse_args()
    import orjson

    from bench.bench_push import dealt
    from web import create_app
    from web.http import model_specs

    lines: list[str] = []
    with tempfile.TemporaryDirectory() as d:
        app = create_app({"TESTING": True, "ROADS_FEED_TOKEN": TOKEN, "ROADS_DATA_DIR": d})
        client, rng = app.test_client(), random.Random(7)
        main, ticks = threading.get_ident(), [0]

        def clock() -> float:
            """A fixed clock, a quarter second on at each read by this thread: the maintenance
            thread's reads (its timing varies) neither move it nor see it move."""
            if threading.get_ident() == main:
                ticks[0] += 1
            return 1_718_452_800.0 + 0.25 * ticks[0]

        app.extensions["roads.service"].clock = clock
        for k in range(3):  # the lobby's other tables
            for i, (p, b) in enumerate(dealt(4, seed=50 + k), 1):
                client.post(f"/api/tables/L{k}/rounds", json={"shoe": 1, "round": i, "player": p, "banker": b}, headers=AUTH)
        specs = []
        for path in PAGES:
            url = path.format(t="H1")
            for_app = url.split("?")[0]
            with app.test_request_context(url):
                if for_app.startswith("/lobby"):
                    specs.append((url, model_specs.lobby_spec()[0]))
                elif for_app.startswith("/embed"):
                    specs.append((url, model_specs.embed_spec("H1")))
                else:
                    specs.append((url, model_specs.table_spec("H1")))
        step = 0
        for shoe, count in ((1, args.rounds), (2, 12)):
            for i, (p, b) in enumerate(dealt(count, seed=shoe), 1):
                resp = client.post("/api/tables/H1/rounds", json={"shoe": shoe, "round": i, "player": p, "banker": b},
                                   headers=AUTH)
                assert resp.status_code == 201, resp.get_data(as_text=True)
                if i > 3 and rng.random() < 0.08:
                    client.post(f"/api/tables/H1/rounds/{i - 1}/void", json={"reason": "misdeal"}, headers=AUTH)
                step += 1
                with app.app_context():
                    for url, spec in specs:
                        if spec.page == "lobby" and step % 5:
                            continue
                        doc = orjson.dumps(timeless(app.extensions["roads.push"].documents.build(spec)), option=orjson.OPT_SORT_KEYS)
                        lines.append(f"{shoe}.{i} {url} {hashlib.sha256(doc).hexdigest()}")
        app.extensions["roads.service"].close()
    for line in lines:
        print(line)
    print(hashlib.sha256("\n".join(lines).encode()).hexdigest())


if __name__ == "__main__":
    main()
