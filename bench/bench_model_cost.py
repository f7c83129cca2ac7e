"""CPU per round of a page's live model: building its document and its delta, beside an anchor.

Every round posted to a table makes the live model topics (web/push/page_models.py) rebuild each
watched page's document (:meth:`web.push.documents.Documents.build`) and the push tier diff it against
the previous one (:func:`web.push.delta.diff`). This bench feeds seeded shoes (bench/bench_push.py's
``dealt``) to an in-process app (Flask test client, SQLite in a temporary directory) and, at
rounds ``--from``..``--to`` of each shoe, measures the thread CPU of both for the pages a screen
shows: the table page in landscape and in portrait (one orientation each, as a table screen
subscribes), the default embed, and the lobby (rebuilt after every table's round). ``--warm``
deals the same shoes on other tables first, so the words measured with the fonts (counts,
shares, round numbers) are cached as in a server that has run a while: a fresh process spends
most of a build measuring new words (``getlength`` of Pillow), which both codes share.

The anchor is the same measurement run by the code of another commit (``--anchor``, default the
commit before the model-cost work; ``git archive`` into a temporary directory, run in a
subprocess) in the same invocation, the two interleaved ``--repeat`` times; the medians and the
ratio (this tree / anchor) are printed per page and for the table page's build + diff.

Usage::

    .venv/bin/python bench/bench_model_cost.py [--tables 6] [--from 20] [--to 80] [--repeat 2] [--warm]
                                               [--anchor 74ebc23]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[0]
ANCHOR = "74ebc23"
"""The commit before the model-cost work (issue 14): reused cells, cached panels, a cheaper diff."""

PAGES = {"landscape": "/tables/{t}?orient=landscape", "portrait": "/tables/{t}?orient=portrait",
         "embed": "/embed/{t}"}


def measure(root: Path, tables: int, first: int, last: int, warm: bool) -> dict[str, dict[str, float]]:
    """``{page: {"build": median µs, "diff": median µs}}`` of the code under ``root``."""
    sys.path.insert(0, str(HERE))
    from bench_push import TOKEN, dealt  # puts this tree's root first on sys.path: the anchor's goes before it

    sys.path.insert(0, str(root))

    import web
    from web import create_app
    from web.push.delta import diff
    from web.http import model_specs

    assert Path(web.__file__).resolve().is_relative_to(root.resolve()), web.__file__
    data = tempfile.mkdtemp(prefix="bench-model-cost-")
    app = create_app({"TESTING": True, "ROADS_FEED_TOKEN": TOKEN, "ROADS_DATA_DIR": data})
    client = app.test_client()
    auth = {"Authorization": f"Bearer {TOKEN}"}
    names = [f"C{k:03d}" for k in range(tables)]
    deals = {n: dealt(last, seed=k) for k, n in enumerate(names)}
    specs: dict[tuple[str, str], object] = {}
    prev: dict[tuple[str, str], object] = {}
    took: dict[str, dict[str, list[float]]] = {p: {"build": [], "diff": []} for p in [*PAGES, "lobby"]}

    def step(key: tuple[str, str], page: str, i: int) -> None:
        with app.app_context():
            t0 = time.thread_time()
            doc = app.extensions["roads.push"].documents.build(specs[key])
            t1 = time.thread_time()
        before = prev.get(key)
        if before is not None and first <= i <= last:
            t2 = time.thread_time()
            diff(before, doc)
            t3 = time.thread_time()
            took[page]["build"].append(t1 - t0)
            took[page]["diff"].append(t3 - t2)
        prev[key] = doc

    if warm:  # the same shoes on other tables first: the text measures a long-running server has cached
        for i in range(1, last + 1):
            for k, n in enumerate(names):
                player, banker = deals[n][i - 1]
                client.post(f"/api/tables/W{k:03d}/rounds", headers=auth,
                            json={"shoe": 1, "round": i, "player": player, "banker": banker})
                for page, url in PAGES.items():
                    with app.test_request_context(url.format(t=f"W{k:03d}")), app.app_context():
                        spec = model_specs.embed_spec(f"W{k:03d}") if page == "embed" else model_specs.table_spec(f"W{k:03d}")
                        app.extensions["roads.push"].documents.build(spec)
    for i in range(1, last + 1):
        for n in names:
            player, banker = deals[n][i - 1]
            client.post(f"/api/tables/{n}/rounds", json={"shoe": 1, "round": i, "player": player, "banker": banker},
                        headers=auth)
            for page, url in PAGES.items():
                key = (n, page)
                if key not in specs:
                    with app.test_request_context(url.format(t=n)):
                        specs[key] = (model_specs.embed_spec(n) if page == "embed" else model_specs.table_spec(n))
                step(key, page, i)
        key = ("", "lobby")
        if key not in specs:
            with app.test_request_context("/lobby"), app.app_context():
                specs[key] = model_specs.lobby_spec()[0]
        step(key, "lobby", i)
    return {p: {k: 1e6 * statistics.median(v) for k, v in d.items()} for p, d in took.items()}


def _child(root: Path, args: argparse.Namespace) -> dict[str, dict[str, float]]:
    out = subprocess.run([sys.executable, __file__, "--child", str(root), "--tables", str(args.tables),
                          "--from", str(args.first), "--to", str(args.last), *(["--warm"] if args.warm else [])],
                         check=True, capture_output=True, text=True, cwd=str(root))
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", type=int, default=6)
    ap.add_argument("--from", dest="first", type=int, default=20)
    ap.add_argument("--to", dest="last", type=int, default=80)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--anchor", default=ANCHOR, help="git commit of the anchor run")
    ap.add_argument("--warm", action="store_true",
                    help="deal the same shoes on other tables first (text measures cached, as in a long-running server)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(measure(Path(args.child), args.tables, args.first, args.last, args.warm)))
        return
    with tempfile.TemporaryDirectory(prefix="bench-model-anchor-") as anchor_dir:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.anchor], check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", anchor_dir], input=archive.stdout, check=True)
        runs: dict[str, list[dict[str, dict[str, float]]]] = {"anchor": [], "this": []}
        for k in range(args.repeat):
            for who in (("anchor", "this") if k % 2 == 0 else ("this", "anchor")):
                runs[who].append(_child(Path(anchor_dir) if who == "anchor" else ROOT, args))
    med = {who: {p: {k: statistics.median(r[p][k] for r in rs) for k in ("build", "diff")} for p in rs[0]}
           for who, rs in runs.items()}
    print(f"model build + delta CPU per round (µs, median of rounds {args.first}-{args.last} over {args.tables} "
          f"tables, {args.repeat} interleaved runs{', warm text caches' if args.warm else ''}); anchor = {args.anchor}")
    print(f"{'page':<10} {'build':>8} {'anchor':>8} {'diff':>8} {'anchor':>8} {'total':>8} {'anchor':>8} {'ratio':>6}")
    for p in med["this"]:
        a, b = med["anchor"][p], med["this"][p]
        ta, tb = a["build"] + a["diff"], b["build"] + b["diff"]
        print(f"{p:<10} {b['build']:>8.0f} {a['build']:>8.0f} {b['diff']:>8.0f} {a['diff']:>8.0f} "
              f"{tb:>8.0f} {ta:>8.0f} {tb / ta:>6.2f}")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
