"""Does a screen left open for days grow? The Chromium heap of a board and a lobby page over
thousands of updates, the feed accelerated (docs/signage.md). Prints figures; asserts nothing.

    .venv/bin/python bench/bench_page_heap.py [--updates 3000] [--rate 25] [--tables 12]

``roads serve`` runs in a subprocess (its own data folder, the test feed token); this process
posts, at ``--rate`` updates a second, for each round: the table's state "betting" with a 15 s
countdown, then the round (card level, rule-dealt), round-robin over ``--tables`` tables, a new
shoe after 80 rounds (the board is cleared and rebuilt as on the floor). A board page
(``/tables/T1``, 1920x1080; T1 gets every other update, so its page sees about half of them) and a
lobby page (``/lobby``, every table, one page, every update) are open in one headless Chromium
(Debian's /usr/bin/chromium through Playwright). Every ``--every`` updates, for each page: a
forced garbage collection (DevTools ``HeapProfiler.collectGarbage``), then the JS heap in use
(``Runtime.getHeapUsage``), the DOM nodes and JS event listeners (``Memory.getDOMCounters``), the
frames it received and its renders. The service worker runs too (each page gives it its newest
document every 3 s). Growth = last sample / the first sample after warm-up.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import requests  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--updates", type=int, default=3000, help="feed writes in all (state + rounds)")
    ap.add_argument("--rate", type=float, default=25.0, help="feed writes a second")
    ap.add_argument("--tables", type=int, default=12)
    ap.add_argument("--every", type=int, default=250, help="sample every N updates")
    args = ap.parse_args()

    from playwright.sync_api import sync_playwright

    from roads.cards import full_deck
    from roads.tableau import deal_round
    from support.feed import FEED_TOKEN
    from support.serving import ServeProcess

    auth = {"Authorization": f"Bearer {FEED_TOKEN}"}
    data = Path(tempfile.mkdtemp(prefix="roads-heap-")) / "data"
    service = ServeProcess(data, env={"ROADS_WS_KEEPALIVE_S": "20"})
    http = requests.Session()
    base = f"http://{service.base}"
    tables = [f"T{i}" for i in range(1, args.tables + 1)]
    rng = random.Random(7)
    shoes = {t: [1, 0, None] for t in tables}  # shoe, rounds dealt, card iterator

    def write(path: str, body: dict) -> None:
        r = http.post(f"{base}/api/tables/{path}", json=body, headers=auth, timeout=10)
        assert r.status_code in (200, 201), r.text

    def next_round(t: str) -> list[tuple[str, dict]]:
        s = shoes[t]
        if s[2] is None or s[1] >= 80:
            if s[2] is not None:
                s[0], s[1] = s[0] + 1, 0
            cards = full_deck() * 8
            rng.shuffle(cards)
            s[2] = iter(cards)
        s[1] += 1
        p, b = deal_round(lambda: next(s[2]))
        return [(f"{t}/state", {"state": "betting", "seconds_left": 15}),
                (f"{t}/rounds", {"shoe": s[0], "round": s[1], "player": [str(c) for c in p],
                                 "banker": [str(c) for c in b]})]

    for t in tables:  # every table on the lobby from the start
        for path, body in next_round(t):
            write(path, body)

    order = []  # T1 gets every other update (its board page), the others share the rest
    i = 0
    while len(order) < args.updates:
        order += next_round("T1") if i % 2 == 0 else next_round(tables[1 + (i // 2) % (len(tables) - 1)])
        i += 1
    order = order[:args.updates]

    samples: dict[str, list[tuple]] = {"board": [], "lobby": []}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = browser.new_context(viewport={"width": 1920, "height": 1080})
        pages = {}
        for name, path in (("board", "/tables/T1"), ("lobby", "/lobby")):
            page = context.new_page()
            page.goto(base + path)
            page.wait_for_function("() => window.__roads && window.__roads.status === 'live'", timeout=15000)
            pages[name] = (page, context.new_cdp_session(page))
        for _, cdp in pages.values():
            cdp.send("Memory.getDOMCounters")

        def sample(done: int) -> None:
            time.sleep(1.0)  # let the pages paint what was sent
            for name, (page, cdp) in pages.items():
                cdp.send("HeapProfiler.collectGarbage")
                heap = cdp.send("Runtime.getHeapUsage")
                dom = cdp.send("Memory.getDOMCounters")
                st = page.evaluate("() => ({m: window.__roads.messages, r: window.__roads.renders, o: window.__roads.offline})")
                samples[name].append((done, heap["usedSize"], heap["totalSize"], dom["nodes"], dom["jsEventListeners"],
                                      st["m"], st["r"], st["o"]))

        sample(0)
        started = time.monotonic()
        for n, (path, body) in enumerate(order, 1):
            write(path, body)
            wait = started + n / args.rate - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            if n % args.every == 0 or n == len(order):
                sample(n)
                started += 1.0 + 0.3  # the sampling pause is not feed time
        elapsed = time.monotonic() - started
        browser.close()
    service.kill()

    print(f"{len(order)} feed writes in {elapsed:.0f} s ({len(order) / elapsed:.1f}/s), {args.tables} tables; "
          f"heap after a forced GC (MB), DOM nodes, listeners, frames received, renders")
    for name, rows in samples.items():
        print(f"\n{name}:")
        print(f"{'updates':>8} {'heap MB':>8} {'total MB':>9} {'nodes':>7} {'listeners':>9} {'frames':>7} {'renders':>8} offline")
        for done, used, total, nodes, listeners, frames, renders, off in rows:
            print(f"{done:>8} {used / 1e6:>8.2f} {total / 1e6:>9.2f} {nodes:>7} {listeners:>9} {frames:>7} {renders:>8} {off}")
        warm = rows[1] if len(rows) > 2 else rows[0]
        used = [r[1] for r in rows[1:]] or [rows[0][1]]
        print(f"{name}: heap {warm[1] / 1e6:.2f} MB after {warm[0]} updates -> {rows[-1][1] / 1e6:.2f} MB after "
              f"{rows[-1][0]} ({(rows[-1][1] / warm[1] - 1) * 100:+.1f} %); max {max(used) / 1e6:.2f}, median "
              f"{statistics.median(used) / 1e6:.2f}; DOM nodes {warm[3]} -> {rows[-1][3]}, listeners {warm[4]} -> {rows[-1][4]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
