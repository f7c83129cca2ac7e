"""The Angel Eye adapter on a pseudo-terminal at 4800 baud, posting into a running ``roads serve``:
the stored rounds are exactly those of the recorded stream; a pulled cable (the port and its name
gone, then back) loses nothing; and (slow) kill -9 of the adapter and of the service at random
bytes, many times, loses no round and records none twice."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
import requests

from shoes.recording import read_chunks
from support.serving import ServeProcess
from support.shoe_pty import AdapterProcess, ShoeLine
from support.shoe_streams import StreamWriter, dealt_rounds

DATA = Path(__file__).parent / "data"


def stored_rounds(url: str) -> list[tuple[int, int, list[str] | None, list[str] | None, bool]]:
    out = []
    shoes = requests.get(f"{url}/api/tables/T1/shoes?limit=500", timeout=5).json()["shoes"]
    for s in reversed(shoes):  # the list is newest first
        for r in requests.get(f"{url}/api/tables/T1/shoes/{s['shoe']}/rounds", timeout=5).json()["rounds"]:
            out.append((s["shoe"], r["round"], r["feed"].get("player"), r["feed"].get("banker"), r["void"] is not None))
    return out


def wait_for_rounds(url: str, count: int, timeout: float) -> list:
    deadline = time.monotonic() + timeout
    got: list = []
    while time.monotonic() < deadline:
        try:
            got = stored_rounds(url)
        except (requests.RequestException, ValueError, KeyError):
            got = got
        if len(got) >= count:
            return got
        time.sleep(0.2)
    return got


def test_a_stream_at_4800_baud_through_a_pulled_cable_lands_as_its_rounds(tmp_path):
    from test_shoe_replay import NEW_SHOE_ROUNDS

    data = b"".join(c for _, c in read_chunks(DATA / "angel_eye_new_shoe.aer"))
    # pull the cable after the 4th round's stand-by (a frame boundary: the shoe sends nothing then)
    cut = _after_stand_by(data, 5)
    server = ServeProcess(tmp_path / "data")
    line = ShoeLine(link=tmp_path / "shoe-T1")
    adapter = AdapterProcess(line.device, f"http://{server.base}", tmp_path / "spool", tmp_path / "adapter.log")
    try:
        adapter.wait_open()
        line.play(data[:cut])
        assert line.done.wait(30)
        time.sleep(0.3)
        line.unplug()
        time.sleep(1.5)
        line.plug()
        adapter.wait_open()
        line.done.clear()
        line.resume()
        line.play(data[cut:])
        assert line.done.wait(30)
        got = wait_for_rounds(f"http://{server.base}", 8, 30)
        assert [(p, b) for _, _, p, b, _ in got] == NEW_SHOE_ROUNDS
        assert [(s, r, v) for s, r, _, _, v in got] == [(1, k, False) for k in range(1, 9)]
        assert adapter.stop() == 0
        log = (tmp_path / "adapter.log").read_text()
        assert "lost " + str(tmp_path / "shoe-T1") in log and log.count("reading " + str(tmp_path / "shoe-T1")) == 2
    finally:
        adapter.kill()
        line.close()
        server.kill()


def _after_stand_by(data: bytes, n: int) -> int:
    """The offset just after the last copy of the n-th stand-by (``P``) frame."""
    seen = 0
    i = 0
    while True:
        i = data.index(b"P\x03", i) + 4
        while data[i:i + 6] == data[i - 6:i]:
            i += 6
        seen += 1
        if seen == n:
            return i


ROUNDS = 20
"""Rounds per shoe of the kill test's streams."""


def _long_stream(seed: int) -> tuple[bytes, list[tuple[int, list[str], list[str]]]]:
    """Two shoes of :data:`ROUNDS` rounds each, every frame sent 1-3 times, some cards face up."""
    rng = random.Random(seed)
    w = StreamWriter(rng=rng)
    w.start()
    expected = []
    for shoe, turned, burned in ((1, "2D", ["4C", "KS"]), (2, "AH", ["QC"])):
        w.new_shoe(turned, burned)
        w.frame("P")
        for player, banker in dealt_rounds(ROUNDS, seed * 10 + shoe):
            w.round(player, banker, face_down=rng.random() < 0.7)
            expected.append((shoe, player, banker))
    return bytes(w.data), expected


@pytest.mark.slow
def test_kill_9_of_the_adapter_and_the_service_at_random_bytes_loses_no_round_and_doubles_none(tmp_path):
    """About 55 kills over three 40-round streams at 4800 baud (50-70 s). Before an adapter is killed
    the line is paused at a random byte (often inside a frame) and the adapter has read what was
    written: what a dead adapter does not read is lost at a real port too (docs/shoes.md)."""
    rng = random.Random(20240601)
    total = {"adapter": 0, "service": 0}
    for run in range(3):
        data, expected = _long_stream(run + 1)
        folder = tmp_path / f"run{run}"
        folder.mkdir()
        server = ServeProcess(folder / "data")
        port = server.port
        url = f"http://127.0.0.1:{port}"
        line = ShoeLine()
        spool = folder / "spool"
        log_path = folder / "adapter.log"
        adapter = AdapterProcess(line.device, url, spool, log_path)
        kills = {"adapter": 0, "service": 0}
        try:
            adapter.wait_open()
            line.play(data)
            while not line.done.wait(rng.uniform(0.1, 0.6)):
                if rng.random() < 0.6:
                    line.pause()
                    deadline = time.monotonic() + 10
                    while line.unread() and time.monotonic() < deadline:
                        time.sleep(0.002)
                    time.sleep(rng.uniform(0, 0.03))
                    adapter.kill()
                    adapter = AdapterProcess(line.device, url, spool, log_path)
                    adapter.wait_open()
                    line.resume()
                    kills["adapter"] += 1
                else:
                    server.kill()
                    time.sleep(rng.uniform(0.05, 1.0))
                    server = ServeProcess(folder / "data", port=port)
                    kills["service"] += 1
            got = wait_for_rounds(url, len(expected), 120)
            assert [(s, p, b) for s, _, p, b, _ in got] == expected, kills
            assert [(s, r, v) for s, r, _, _, v in got] == \
                [(s, k, False) for s in (1, 2) for k in range(1, ROUNDS + 1)]
            for who in kills:
                total[who] += kills[who]
        finally:
            adapter.kill()
            line.close()
            server.kill()
    print(f"kill -9: {total}")
    assert total["adapter"] >= 15 and total["service"] >= 10, total
