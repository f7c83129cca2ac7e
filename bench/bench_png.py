"""Benchmark of the PNG scoreboards (docs/frontend.md). Prints figures; asserts nothing.

    .venv/bin/python bench/bench_png.py [--runs 30] [--no-browser]
    .venv/bin/python bench/bench_png.py --write-docs docs/board.png   # the README's example board

Measures, for a rule-dealt 80-round shoe fed through the service (simulator -> feed):

1. time of a full 1920x1080 board: the board model (web.render.model), its Pillow paint
   (web.render.paint_png), both with the painter's caches warm (what every new round costs) and
   cold (median / p90 ms);
2. PNG encoding by setting: 24-bit RGB at zlib compress_level 0-3, 6 (Pillow's default) and 9,
   an adaptive 256-colour palette, and the theme's fixed palette (web.render.board.theme_palette)
   at levels 0-3 and 6 and with the zlib strategies Pillow takes (``compress_type``: filtered,
   RLE, fixed Huffman): median ms and size; ``DEFAULT_ENCODING`` / ``PNG_COMPRESS_LEVEL`` are
   chosen from this; and the routes' path, painting straight onto the palette (``paint(...,
   indexed=True)``) and writing that image;
3. cached re-serve throughput (requests/s) through the Flask test client and through a real
   threaded server on 127.0.0.1 (full 200 responses, and 304 revalidations);
4. side by side, a headless-Chromium screenshot of the HTML board (``/tables/<id>``) at the
   same size (``/usr/bin/chromium`` via Playwright; skipped with a note when unavailable).
   Target: model + paint + encode <= 1/10 of the screenshot time (the anchor, same run).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PIL import Image  # noqa: E402

TABLE = "bench-1"
ROUNDS = 80


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def p90_ms(samples: list[float]) -> float:
    s = sorted(samples)
    return s[min(len(s) - 1, int(len(s) * 0.9))] * 1000


def build_app():
    """An app on a temporary store with one table holding an 80-round, rule-dealt shoe."""
    from roads.simulator import feed_request, simulate_shoe
    from web import create_app

    app = create_app({"TESTING": True, "ROADS_FEED_TOKEN": "bench", "ROADS_DATA_DIR": tempfile.mkdtemp(),
                      "ROADS_TABLES": {TABLE: {"name": "Macau VIP 8"}}})
    client = app.test_client()
    auth = {"Authorization": "Bearer bench"}
    for seed in range(200):  # first seed whose shoe reaches 80 rounds (most do)
        messages = list(simulate_shoe(TABLE, 1, seed=seed))
        rounds = [m for m in messages if m["type"] == "round"]
        if len(rounds) >= ROUNDS:
            break
    for m in messages[: 1 + ROUNDS]:
        m = dict(m)
        m.pop("cut_card", None)
        fr = feed_request(m)
        r = client.post(fr.path, json=fr.body, headers=auth)
        assert r.status_code in (200, 201), r.get_data(as_text=True)
    return app, client, seed


DOCS_SEED = 157
"""Simulator seed of the README's example board: a rule-dealt 78-round shoe with a dragon tail,
a cell with two ties and a live good road (long Banker)."""


def write_docs_board(path: Path) -> None:
    """Deal the example shoe through the feed and write its 1920x1080 board (dark, English) to ``path``."""
    from roads.simulator import feed_request, simulate_shoe
    from web import create_app
    from web.render import board as render
    from web.service import get_service

    app = create_app({"TESTING": True, "ROADS_FEED_TOKEN": "docs", "ROADS_DATA_DIR": tempfile.mkdtemp(),
                      "ROADS_TABLES": {"T1": {"name": "Table 1"}}})
    client = app.test_client()
    for m in simulate_shoe("T1", 1, seed=DOCS_SEED):
        fr = feed_request(m)
        r = client.post(fr.path, json=fr.body, headers={"Authorization": "Bearer docs"})
        assert r.status_code in (200, 201), r.get_data(as_text=True)
    snap = get_service(app).read.snapshot("T1")
    img = render.render_board(snap, width=1920, height=1080, theme="dark", lang="en")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(render.encode_png(img, theme="dark", compress_level=9))
    print(f"wrote {path} ({path.stat().st_size // 1024} KiB): shoe of seed {DOCS_SEED}, {snap['round']} rounds")


def bench_render(app, runs: int) -> dict:
    """Board model (web.render.model) and Pillow paint (web.render.paint_png) of the shoe's
    1920x1080 board: warm (the painter's symbol and text caches filled, as for every new round)
    and cold (every cache of the painter and of the fonts emptied first)."""
    from web.render import fonts, paint_png
    from web.render.model import BoardOptions, board_model
    from web.service import get_service

    snap = get_service(app).read.snapshot(TABLE)
    assert snap["round"] == ROUNDS, snap["round"]
    opts = BoardOptions(width=1920, height=1080)
    paint_png.paint(board_model(snap, opts))  # warm fonts and masks
    model_t, paint_t = [], []
    for _ in range(runs):
        t = time.perf_counter()
        model = board_model(snap, opts)
        t1 = time.perf_counter()
        img = paint_png.paint(model)
        t2 = time.perf_counter()
        model_t.append(t1 - t)
        paint_t.append(t2 - t1)
    cold = []
    for _ in range(max(5, runs // 3)):
        for cache in (paint_png._mask, paint_png._text_mask, paint_png._sprite):
            cache.cache_clear()
        fonts.reset_caches()
        t = time.perf_counter()
        paint_png.paint(board_model(snap, opts))
        cold.append(time.perf_counter() - t)
    warm = [m + p for m, p in zip(model_t, paint_t)]
    # what the PNG routes do: paint straight onto the theme's palette ("P"), then write it
    model = board_model(snap, opts)
    indexed, save = [], []
    for _ in range(runs):
        t = time.perf_counter()
        p_img = paint_png.paint(model, indexed=True)
        t1 = time.perf_counter()
        paint_png.encode_png(p_img, theme="dark")
        save.append(time.perf_counter() - t1)
        indexed.append(t1 - t)
    return {"img": img, "model": model_t, "paint": paint_t, "warm": warm, "cold": cold, "snap": snap,
            "indexed": indexed, "save": save}


def bench_encode(img: Image.Image, runs: int) -> list[tuple[str, float, int]]:
    """Median ms and bytes of each PNG setting for ``img`` (a dark-theme board)."""
    from web.render.board import encode_png, theme_palette

    theme_palette("dark")  # built once per theme per process
    rows = []
    settings = [("rgb", 0, None), ("rgb", 1, None), ("rgb", 2, None), ("rgb", 3, None), ("rgb", 6, None),
                ("rgb", 9, None), ("adaptive", 1, None), ("adaptive", 6, None), ("palette", 0, None),
                ("palette", 1, None), ("palette", 1, zlib.Z_FILTERED), ("palette", 1, zlib.Z_RLE),
                ("palette", 1, zlib.Z_FIXED), ("palette", 2, None), ("palette", 3, None), ("palette", 6, None)]
    strategy = {None: "", zlib.Z_FILTERED: " Z_FILTERED", zlib.Z_RLE: " Z_RLE", zlib.Z_FIXED: " Z_FIXED"}
    for encoding, level, ctype in settings:
        times = []
        data = b""
        for _ in range(max(5, runs // 2)):
            t = time.perf_counter()
            data = encode_png(img, theme="dark", encoding=encoding, compress_level=level, compress_type=ctype)
            times.append(time.perf_counter() - t)
        rows.append((f"{encoding:8s} compress_level={level}{strategy[ctype]}{' (Pillow default)' if level == 6 else ''}",
                     median_ms(times), len(data)))
    return rows


def bench_reserve(client, n: int) -> dict:
    url = f"/tables/{TABLE}/board.png?width=1920&height=1080"
    first = client.get(url)
    etag = first.headers["ETag"]
    t = time.perf_counter()
    for _ in range(n):
        r = client.get(url)
        assert r.status_code == 200
    full = n / (time.perf_counter() - t)
    t = time.perf_counter()
    for _ in range(n):
        r = client.get(url, headers={"If-None-Match": etag})
        assert r.status_code == 304
    revalidate = n / (time.perf_counter() - t)
    return {"bytes": len(first.data), "full": full, "304": revalidate}


class Server:
    """The app on a real threaded WSGI server on 127.0.0.1 (random port), in a thread."""

    def __init__(self, app) -> None:
        from werkzeug.serving import WSGIRequestHandler, make_server

        class Quiet(WSGIRequestHandler):
            def log_request(self, *args, **kwargs) -> None:  # no access log lines in the figures
                pass

        self.httpd = make_server("127.0.0.1", 0, app, threaded=True, request_handler=Quiet)
        self.port = self.httpd.server_port
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> "Server":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.thread.join(timeout=5)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def bench_http(server: Server, n: int) -> dict:
    import requests

    url = f"{server.url}/tables/{TABLE}/board.png?width=1920&height=1080"
    with requests.Session() as s:
        etag = s.get(url, timeout=10).headers["ETag"]
        t = time.perf_counter()
        for _ in range(n):
            assert s.get(url, timeout=10).status_code == 200
        full = n / (time.perf_counter() - t)
        t = time.perf_counter()
        for _ in range(n):
            assert s.get(url, headers={"If-None-Match": etag}, timeout=10).status_code == 304
        revalidate = n / (time.perf_counter() - t)
    return {"full": full, "304": revalidate}


def bench_browser(server: Server, runs: int) -> dict | str:
    """Screenshot times of the HTML board in headless Chromium, or a note saying why skipped."""
    import shutil

    exe = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
    if exe is None:
        return "skipped: no chromium on this machine"
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return "skipped: playwright (python) not installed"
    import requests

    page_url = f"{server.url}/tables/{TABLE}"
    if requests.get(page_url, timeout=10).status_code != 200:
        return f"skipped: the HTML board {page_url} is not there yet"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, headless=True, args=["--no-sandbox"])
        try:
            loads, shots, fulls = [], [], []
            page = browser.new_page(viewport={"width": 1920, "height": 1080})
            page.goto(page_url, wait_until="load")
            page.evaluate("document.fonts.ready.then(() => true)")
            page.wait_for_timeout(300)
            page.screenshot(type="png")  # warm
            for _ in range(runs):
                t = time.perf_counter()
                page.screenshot(type="png")
                shots.append(time.perf_counter() - t)
            page.close()
            for _ in range(max(3, runs // 3)):
                page = browser.new_page(viewport={"width": 1920, "height": 1080})
                t = time.perf_counter()
                page.goto(page_url, wait_until="load")
                page.evaluate("document.fonts.ready.then(() => true)")
                loads.append(time.perf_counter() - t)
                page.screenshot(type="png")
                fulls.append(time.perf_counter() - t)
                page.close()
        finally:
            browser.close()
    return {"shot": shots, "load": loads, "full": fulls}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=30, help="repetitions per timing (default 30)")
    ap.add_argument("--requests", type=int, default=1000, help="requests per throughput figure (default 1000)")
    ap.add_argument("--no-browser", action="store_true", help="skip the Chromium comparison")
    ap.add_argument("--write-docs", type=Path, metavar="PNG", help="only write the README's example board there")
    args = ap.parse_args(argv)
    if args.write_docs:
        write_docs_board(args.write_docs)
        return 0
    runs = max(3, min(args.runs, 1000))
    n = max(10, min(args.requests, 100000))

    from PIL import features

    import web.render.board as render

    print(f"Pillow {Image.__version__ if hasattr(Image, '__version__') else ''} raqm={features.check('raqm')}  "
          f"runs={runs}")
    app, client, seed = build_app()
    print(f"shoe: table {TABLE}, simulator seed {seed}, {ROUNDS} rounds, board 1920x1080\n")

    r = bench_render(app, runs)
    print("1. board model + Pillow paint (no encoding)")
    print(f"   model (web.render.model):       median {median_ms(r['model']):6.1f} ms   p90 {p90_ms(r['model']):6.1f} ms")
    print(f"   paint (web.render.paint_png):   median {median_ms(r['paint']):6.1f} ms   p90 {p90_ms(r['paint']):6.1f} ms")
    print(f"   model + paint, caches warm:     median {median_ms(r['warm']):6.1f} ms   p90 {p90_ms(r['warm']):6.1f} ms")
    print(f"   model + paint, caches cold:     median {median_ms(r['cold']):6.1f} ms   p90 {p90_ms(r['cold']):6.1f} ms")

    print("\n2. PNG encoding of that board")
    enc = bench_encode(r["img"], runs)
    used = f"{render.DEFAULT_ENCODING:8s} compress_level={render.PNG_COMPRESS_LEVEL}"
    for name, ms, size in enc:
        mark = "  <- used" if name == used else ""
        print(f"   {name:42s} {ms:6.1f} ms  {size / 1024:7.1f} KiB{mark}")
    used_ms = next(ms for name, ms, _ in enc if name == used)
    print(f"   model + RGB paint + map onto the palette + encode: {median_ms(r['warm']) + used_ms:.1f} ms")
    print(f"   paint onto the palette (paint(indexed=True), the routes): median {median_ms(r['indexed']):6.1f} ms,"
          f" then encode {median_ms(r['save']):6.1f} ms")
    native = median_ms(r["model"]) + median_ms(r["indexed"]) + median_ms(r["save"])
    print(f"   model + paint + encode per new round (the routes): {native:.1f} ms")

    print("\n3. cached re-serve throughput (same image, same version)")
    rs = bench_reserve(client, n)
    print(f"   Flask test client: {rs['full']:8.0f} req/s (200, {rs['bytes'] / 1024:.0f} KiB)   "
          f"{rs['304']:8.0f} req/s (304 If-None-Match)")
    with Server(app) as server:
        hs = bench_http(server, max(10, n // 2))
        print(f"   threaded server over 127.0.0.1 (requests, 1 connection): {hs['full']:6.0f} req/s (200)   "
              f"{hs['304']:6.0f} req/s (304)")

        print("\n4. headless Chromium screenshot of the HTML board, same size (1920x1080)")
        if args.no_browser:
            print("   skipped (--no-browser)")
        else:
            b = bench_browser(server, max(5, runs // 3))
            if isinstance(b, str):
                print("   " + b)
            else:
                shot = median_ms(b["shot"])
                print(f"   screenshot of a loaded page:     median {shot:7.1f} ms")
                print(f"   page load (goto + fonts ready):  median {median_ms(b['load']):7.1f} ms")
                print(f"   load + screenshot (fresh page):  median {median_ms(b['full']):7.1f} ms")
                print(f"   model + paint + encode / screenshot = {native / shot:.3f} "
                      f"(target <= 0.100: {'met' if native <= shot / 10 else 'NOT met'})")
                print(f"   model + paint + encode / (load + screenshot) = {native / median_ms(b['full']):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
