"""Render floods (issue 21 item 5): PNG painting never holds the event loop, a bounded number of
requests wait for it, and odd sizes cannot push the screens' images out of the cache.

The figures under a real flood (32 clients, gunicorn gevent) are bench/bench_render_flood.py's; here:
the event loop keeps ticking while a 4K lobby is painted (under gevent, in a subprocess), 429 past
the gate's queue, one drawing for requests that waited for the same image, the cache's odd-size pool.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from web.http import png, render_gate

ROOT = Path(__file__).resolve().parents[2]

LOOP_PROBE = textwrap.dedent("""
    from gevent import monkey; monkey.patch_all()
    import gevent, json, sys, tempfile, time
    sys.path[:0] = [sys.argv[1], sys.argv[1] + "/tests"]
    from support.feed import Feed, dealt_rounds, make_app
    app = make_app(tempfile.mkdtemp())
    feed = Feed(app.test_client())
    for t in range(6):
        for n, (p, b) in enumerate(dealt_rounds(30, seed=t), 1):
            assert feed.round(1, n, p, b, table=f"T{t}").status_code == 201
    client = app.test_client()
    client.get("/lobby.png?width=1920&height=1080")  # fonts loaded
    for width in (3840, 3000):
        gaps, done = [], []
        def ticker():
            last = time.perf_counter()
            while not done:
                gevent.sleep(0.002)
                now = time.perf_counter()
                gaps.append(now - last)
                last = now
        g = gevent.spawn(ticker)
        gevent.sleep(0.01)
        start = time.perf_counter()
        status = client.get(f"/lobby.png?width={width}&height=2160").status_code
        took = time.perf_counter() - start
        done.append(True)
        g.join()
        print(json.dumps({"status": status, "took": took, "max_gap": max(gaps)}))
""")


@pytest.mark.slow
def test_the_event_loop_keeps_running_while_a_png_is_painted_under_gevent():
    # Before: the paint ran in the request's greenlet and the loop stood still for all of it
    # (max gap = the request's time: 0.3-0.7 s for a 4K lobby); now it runs on a native thread.
    out = subprocess.run([sys.executable, "-c", LOOP_PROBE, str(ROOT)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    for line in out.stdout.splitlines():
        probe = json.loads(line)
        assert probe["status"] == 200
        assert probe["max_gap"] < probe["took"] / 2, probe  # the loop ran during the paint


def test_past_the_queue_a_png_request_is_a_429_at_once(app_factory):
    app = app_factory()
    gate = app.extensions[render_gate.EXTENSION] = render_gate.RenderGate(painters=1, waiting=0)
    client = app.test_client()
    held, release = threading.Event(), threading.Event()

    def hold():
        with gate.turn():
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert held.wait(10)
        resp = client.get("/lobby.png?width=1000&height=600")
        err = resp.json["error"]
        assert (resp.status_code, err["code"], err["field"], resp.headers["Retry-After"]) == (
            429, "too_many_renders", None, "1")
        assert gate.refused == 1
    finally:
        release.set()
        holder.join(10)
    assert client.get("/lobby.png?width=1000&height=600").status_code == 200  # the turn is free again


def test_requests_that_waited_for_the_same_image_get_one_drawing(app_factory, deal):
    app = app_factory()
    client = app.test_client()
    p, b = deal(1, seed=5)[0]
    assert client.post("/api/tables/T1/rounds", json={"shoe": 1, "round": 1, "player": p, "banker": b},
                       headers={"Authorization": "Bearer test-token"}).status_code == 201
    gate = app.extensions[render_gate.EXTENSION] = render_gate.RenderGate(painters=1, waiting=8)
    held, release = threading.Event(), threading.Event()

    def hold():
        with gate.turn():
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    assert held.wait(10)
    statuses = []
    waiters = [threading.Thread(target=lambda: statuses.append(
        app.test_client().get("/tables/T1/board.png?width=700&height=400").status_code)) for _ in range(4)]
    for w in waiters:
        w.start()
    time.sleep(0.3)  # all four wait for the painter
    release.set()
    for w in [holder, *waiters]:
        w.join(30)
    assert statuses == [200] * 4
    assert png.get_cache(app).renders == 1  # one drawing; the three others found it in the cache


def test_images_of_odd_sizes_cannot_push_the_screens_images_out():
    cache = png.PngCache(max_entries=40)
    for size in [(1920, 1080), (1080, 1920), (3840, 2160)]:
        cache.put(("T1", "current", 1, 5, "board", size), "e", b"x" * 10, odd_size=False)
    for width in range(1000, 1000 + 3 * png.ODD_SIZE_ENTRIES):  # a client asking for a new size each time
        cache.put(("T1", "current", 1, 5, "board", (width, 2160)), "e", b"y" * 10, odd_size=True)
    keys = cache.keys()
    assert [k[5] for k in keys[:3]] == [(1920, 1080), (1080, 1920), (3840, 2160)]
    assert [k[5][0] for k in keys[3:]] == list(range(1000 + 2 * png.ODD_SIZE_ENTRIES, 1000 + 3 * png.ODD_SIZE_ENTRIES))
    assert len(keys) == 3 + png.ODD_SIZE_ENTRIES and cache.size_bytes == 10 * len(keys)
