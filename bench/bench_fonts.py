"""Benchmark of the renderer's font character maps (web/render/fonts.py). Prints figures; asserts nothing.

    .venv/bin/python bench/bench_fonts.py [--runs 5] [--against OTHER_CHECKOUT]

1. reading each shipped face's Unicode cmap (fontTools ``getBestCmap``; done once per face per
   process, then cached), side by side with the anchor: Pillow loading the same face
   (``ImageFont.truetype``, which every face costs anyway);
2. the first 1920x1080 board of a fresh process (font discovery, cmaps, FreeType faces, glyph
   masks) and the next ones (median of 10: what every further board costs; cmaps are no longer read),
   medians over ``--runs`` fresh processes. ``--against`` runs the same measurement on another
   checkout in the same run (e.g. ``git archive <commit> | tar -x -C /tmp/old``), alternating,
   for a before/after comparison.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

FIRST_BOARD = r"""
import json, sys, tempfile, time
sys.path.insert(0, sys.argv[1])
from roads.simulator import feed_request, simulate_shoe
from web import create_app
from web.service import get_service
app = create_app({"TESTING": True, "ROADS_FEED_TOKEN": "b", "ROADS_DATA_DIR": tempfile.mkdtemp(),
                  "ROADS_TABLES": {"T1": {"name": "百家乐 VIP 8"}}})
client = app.test_client()
for m in list(simulate_shoe("T1", 1, seed=4))[:81]:
    m = dict(m); m.pop("cut_card", None)
    fr = feed_request(m)
    client.post(fr.path, json=fr.body, headers={"Authorization": "Bearer b"})
snap = get_service(app).read.snapshot("T1")
from web.render import board
t0 = time.perf_counter(); board.render_board(snap, width=1920, height=1080, theme="dark", lang="zh")
t1 = time.perf_counter()
nexts = []
for _ in range(10):
    t = time.perf_counter(); board.render_board(snap, width=1920, height=1080, theme="dark", lang="zh")
    nexts.append(time.perf_counter() - t)
print(json.dumps({"first_ms": (t1 - t0) * 1e3, "next_ms": sorted(nexts)[5] * 1e3}))
"""


def cmap_figures(runs: int) -> None:
    sys.path.insert(0, str(ROOT))
    from PIL import ImageFont

    from web.render import fonts

    faces = sorted({f for lang in fonts.LANGUAGES for w in fonts.WEIGHTS for f in fonts.font_chain(lang, w)},
                   key=lambda f: Path(f.path).name)
    print("1. cmap read per face (once per process), median of", runs)
    total_cmap = total_pil = 0.0
    for face in faces:
        cm, pil = [], []
        for _ in range(runs):
            t = time.perf_counter()
            points = fonts._read_cmap(face.path, face.index)
            cm.append(time.perf_counter() - t)
            t = time.perf_counter()
            ImageFont.truetype(face.path, 40, index=face.index)
            pil.append(time.perf_counter() - t)
        c, p = statistics.median(cm) * 1e3, statistics.median(pil) * 1e3
        total_cmap, total_pil = total_cmap + c, total_pil + p
        print(f"   {Path(face.path).name:30s} {len(points):6d} code points   cmap {c:6.2f} ms   "
              f"anchor Pillow truetype {p:6.2f} ms")
    print(f"   all faces: cmap {total_cmap:.1f} ms, anchor {total_pil:.1f} ms")


def first_board(tree: Path) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-c", FIRST_BOARD, str(tree)], capture_output=True, text=True,
                         check=True, cwd=tree)
    return json.loads(out.stdout.strip().splitlines()[-1])


def board_figures(runs: int, against: Path | None) -> None:
    trees = [("this checkout", ROOT)] + ([(f"against {against}", against)] if against else [])
    samples: dict[str, list[dict[str, float]]] = {name: [] for name, _ in trees}
    for _ in range(runs):
        for name, tree in trees:  # alternating, so both see the same machine load
            samples[name].append(first_board(tree))
    print(f"2. 1920x1080 board (zh) in a fresh process, median of {runs} processes")
    for name, got in samples.items():
        first = statistics.median(s["first_ms"] for s in got)
        nxt = statistics.median(s["next_ms"] for s in got)
        print(f"   {name:40s} first board {first:7.1f} ms   next board {nxt:6.1f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--against", type=Path, default=None, help="another checkout to measure side by side")
    args = ap.parse_args()
    cmap_figures(args.runs)
    board_figures(args.runs, args.against)


if __name__ == "__main__":
    main()
