"""How often do image-only players get a 304? PNG boards polled as signage players poll them
(docs/signage.md). Prints figures; asserts nothing.

    .venv/bin/python bench/bench_png_players.py [--duration 90] [--poll-s 2] [--round-s 8] [--players 6]

``roads serve`` in a subprocess; a feeder plays one table at an accelerated pace: every
``--round-s`` seconds the table opens betting for a third of the round ("Bets close at ..." on
the image, then "Bets closed"), then the round's result is posted. ``--players`` threads poll the
table's board PNG every ``--poll-s`` seconds each, started evenly apart: half revalidate with
``If-None-Match`` (browsers, Chromium-based players), half with ``If-Modified-Since`` only (players
that keep dates, ``curl -z``); a player that gets a 200 keeps that image's validator. Counts 200s
and 304s and the bytes sent, for each kind of player, and the changes of the image (ETags seen).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import requests  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--duration", type=float, default=90.0)
    ap.add_argument("--poll-s", type=float, default=2.0)
    ap.add_argument("--round-s", type=float, default=8.0)
    ap.add_argument("--players", type=int, default=6)
    args = ap.parse_args()

    from support.feed import FEED_TOKEN, dealt_rounds
    from support.serving import ServeProcess

    auth = {"Authorization": f"Bearer {FEED_TOKEN}"}
    service = ServeProcess(Path(tempfile.mkdtemp(prefix="roads-png-")) / "data")
    base = f"http://{service.base}"
    rounds = iter(dealt_rounds(75, seed=21))  # one 8-deck shoe: 20 before, one per --round-s after
    number = [0]

    def post_round() -> None:
        p, b = next(rounds)
        number[0] += 1
        r = requests.post(f"{base}/api/tables/T1/rounds", headers=auth, timeout=10,
                          json={"shoe": 1, "round": number[0], "player": p, "banker": b})
        assert r.status_code == 201, r.text

    for _ in range(20):
        post_round()
    stop = time.monotonic() + args.duration
    url = f"{base}/tables/T1/board.png?width=1920&height=1080"
    stats = {"etag": [0, 0, 0], "date": [0, 0, 0]}  # 200s, 304s, bytes
    etags: set[str] = set()
    lock = threading.Lock()

    def feeder() -> None:
        while time.monotonic() < stop:
            r = requests.post(f"{base}/api/tables/T1/state", headers=auth, timeout=10,
                              json={"state": "betting", "seconds_left": max(1, round(args.round_s / 3))})
            assert r.status_code == 201, r.text
            time.sleep(args.round_s / 2)
            post_round()
            time.sleep(args.round_s / 2)

    def player(kind: str, delay: float) -> None:
        time.sleep(delay)
        http = requests.Session()
        held: dict[str, str] = {}
        while time.monotonic() < stop:
            headers = {}
            if kind == "etag" and "ETag" in held:
                headers["If-None-Match"] = held["ETag"]
            if kind == "date" and "Last-Modified" in held:
                headers["If-Modified-Since"] = held["Last-Modified"]
            r = http.get(url, headers=headers, timeout=30)
            with lock:
                if r.status_code == 200:
                    stats[kind][0] += 1
                    stats[kind][2] += len(r.content)
                    held = {k: r.headers[k] for k in ("ETag", "Last-Modified")}
                    etags.add(r.headers["ETag"])
                elif r.status_code == 304:
                    stats[kind][1] += 1
            time.sleep(args.poll_s)

    threads = [threading.Thread(target=feeder, daemon=True)]
    threads += [threading.Thread(target=player, args=("etag" if i % 2 == 0 else "date", i * args.poll_s / args.players),
                                 daemon=True) for i in range(args.players)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=args.duration + 60)
    service.kill()

    print(f"{args.duration:.0f} s, a round every {args.round_s:g} s (betting for a third of it), "
          f"{args.players} players polling every {args.poll_s:g} s; {len(etags)} drawings of the board")
    for kind, (ok, nm, size) in stats.items():
        total = ok + nm
        words = "If-None-Match" if kind == "etag" else "If-Modified-Since only"
        print(f"{words:>24}: {total} requests, {ok} x 200 ({size / 1e3:.0f} kB), {nm} x 304 = "
              f"{nm / max(1, total) * 100:.0f} % answered 304")
    return 0


if __name__ == "__main__":
    sys.exit(main())
