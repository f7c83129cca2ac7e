"""``roads demo``: the service plus simulated tables dealing live through the real HTTP feed.

The end-to-end test runs ``roads demo --fast`` as a subprocess on a free loopback port
(``--port 0``: the OS picks one, the demo prints it) for a few seconds, and checks that the
lobby, a table page, a PNG and the API answer, that rounds advanced and that a table moved
on to its next shoe after the cut card. The subprocess is always killed.
"""

from __future__ import annotations

import io
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import requests
from click.testing import CliRunner

from support.serving import FakeJSONService, free_port
from web.cli import main
from web.cli.demo import DEALERS, Demo, DemoTable, Pace, demo_tables, tables_setting

DEADLINE_S = 40.0
"""Upper bound for any wait in the end-to-end test (bounded loops; it normally takes ~6 s)."""


def _roads_command() -> list[str]:
    script = Path(sys.executable).with_name("roads")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "web.cli"]


class Output:
    """Reads a subprocess's merged stdout/stderr on a thread (so the pipe never fills)."""

    def __init__(self, stream) -> None:
        self.lines: "queue.Queue[str]" = queue.Queue()
        self.seen: list[str] = []
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream) -> None:
        for line in iter(stream.readline, ""):
            self.lines.put(line)
        self.lines.put("")

    def wait_for(self, pattern: str, timeout: float) -> re.Match:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                line = self.lines.get(timeout=max(0.01, end - time.monotonic()))
            except queue.Empty:
                break
            self.seen.append(line)
            match = re.search(pattern, line)
            if match:
                return match
            if line == "":
                break
        raise AssertionError(f"no line matching {pattern!r} in:\n{''.join(self.seen)}")

    def rest(self, timeout: float = 5.0) -> str:
        self._thread.join(timeout)
        while not self.lines.empty():
            self.seen.append(self.lines.get())
        return "".join(self.seen)


def poll(fn, what: str, timeout: float = DEADLINE_S, every: float = 0.1):
    """Call ``fn`` until it returns something truthy (bounded by ``timeout`` seconds)."""
    end = time.monotonic() + timeout
    last = None
    while time.monotonic() < end:
        last = fn()
        if last:
            return last
        time.sleep(every)
    raise AssertionError(f"timed out waiting for {what} (last: {last!r})")


@pytest.mark.slow
def test_roads_demo_fast_serves_lobby_table_png_and_api_while_tables_deal(tmp_path):
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("ROADS_FEED_TOKEN", None)
    proc = subprocess.Popen(
        [*_roads_command(), "demo", "--fast", "--port", "0", "--tables", "4", "--seed", "3"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, encoding="utf-8", env=env, cwd=tmp_path,
        start_new_session=True)
    out = Output(proc.stdout)
    try:
        base = out.wait_for(r"lobby\s+(http://127\.0\.0\.1:\d+)/lobby", DEADLINE_S).group(1)
        table_url = out.wait_for(r"table\s+(http://\S+)", 5).group(1)
        png_url = out.wait_for(r"PNG\s+(http://\S+)", 5).group(1)
        api_url = out.wait_for(r"API\s+(http://\S+)", 5).group(1)
        token = out.wait_for(r"feed token (\S+)", 5).group(1)
        assert table_url == f"{base}/tables/t1"
        assert png_url == f"{base}/tables/t1/board.png"
        assert api_url == f"{base}/api/tables"

        def dealing():
            tables = requests.get(api_url, timeout=5).json()["tables"]
            return tables if len(tables) == 4 and all(t["round"] > 0 for t in tables) else None

        tables = poll(dealing, "all four tables to deal a round")
        names = {t["id"]: t["name"] for t in tables}
        assert names["t2"] == "超级6 百家乐 2"   # seed 002: the Super 6 table
        assert len(set(names.values())) == 4
        assert len({t["variant"]["id"] for t in tables}) == 4   # each table its own preset
        first = {t["id"]: (t["shoe"], t["round"]) for t in tables}

        def advanced():
            now = {t["id"]: (t["shoe"], t["round"]) for t in requests.get(api_url, timeout=5).json()["tables"]}
            return now if all(now[i] > first[i] for i in first) else None

        poll(advanced, "rounds to advance on every table")

        # At the end of a shoe the table burns, shuffles and starts the next one.
        def two_shoes():
            shoes = requests.get(f"{base}/api/tables/t1/shoes", timeout=5).json()["shoes"]
            return shoes if len(shoes) >= 2 else None

        shoes = poll(two_shoes, "table t1 to start its second shoe")
        ended = min(shoes, key=lambda s: s["shoe"])
        assert ended["shoe"] == 1
        assert ended["cut_card_round"] == ended["rounds"] > 40
        assert 2 <= len(ended["burn"]) <= 11

        lobby = requests.get(f"{base}/lobby", timeout=5)
        assert lobby.status_code == 200 and lobby.headers["Content-Type"].startswith("text/html")
        page = requests.get(table_url, timeout=5)
        assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
        png = requests.get(png_url, timeout=10)
        assert png.status_code == 200 and png.headers["Content-Type"] == "image/png"
        from PIL import Image

        image = Image.open(io.BytesIO(png.content))
        image.load()
        assert image.width > 100 and image.height > 100
        snap = requests.get(f"{base}/api/tables/t1", timeout=5).json()
        assert snap["table"] == "t1" and snap["name"] == "Live Baccarat 1" and snap["round"] >= 0

        # The tables write through the token-protected feed: without the token it is closed.
        bare = requests.post(f"{base}/api/tables/t1/rounds", json={"shoe": 99, "round": 1,
                                                                   "player": ["AS", "2S"], "banker": ["3S", "4S"]},
                             timeout=5)
        assert bare.status_code == 401
        assert token

        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
        rest = out.rest()
        assert re.search(r"stopped: \d+ rounds dealt", rest), rest
        temp = re.search(r"data: (.+), temporary\)", rest)
        assert temp and not Path(temp.group(1)).exists()   # the temporary data directory is gone
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


# --------------------------------------------------------------------------- in process
# What each preset is, from roads/variants.py's docstring (the seeds): the words a table's
# name must carry for the game it deals.
GAME_WORDS = {
    "seed000_live": ("Live", "ສົດ"),                       # seed 000's live table (ສົດ: Lao "live")
    "seed000_live_no_commission": ("No Commission",),
    "seed001": ("ประกัน",),                                 # seed 001: Thai, baccarat with insurance
    "seed001_no_commission": ("Insurance No Commission",),
    "seed002": ("超级6",),                                   # seed 002's Super 6 table ("Super 6")
    "seed002_commission": ("ကော်မရှင်",),                  # seed 002's commission table (Burmese)
    "seed004_mini": ("Mini",),
}


def test_demo_tables_are_named_for_the_game_they_deal():
    tables = demo_tables(8)
    assert [t.id for t in tables] == [f"t{i}" for i in range(1, 9)]
    assert [(t.name, t.variant) for t in tables] == [
        ("Live Baccarat 1", "seed000_live"),
        ("超级6 百家乐 2", "seed002"),
        ("บาคาร่าประกัน 3", "seed001"),
        ("Mini Baccarat 4", "seed004_mini"),
        ("No Commission 5", "seed000_live_no_commission"),
        ("ဘက်ကာရက် ကော်မရှင် 6", "seed002_commission"),
        ("Insurance No Commission 7", "seed001_no_commission"),
        ("ບາຄາຣາສົດ 8", "seed000_live"),
    ]
    for t in demo_tables(30):
        assert any(word in t.name for word in GAME_WORDS[t.variant]), (t.name, t.variant)
        assert t.name.endswith(f" {t.id[1:]}")


def test_demo_tables_have_their_own_names_and_presets():
    tables = demo_tables(4)
    assert len({t.variant for t in tables}) == 4
    super_six = next(t for t in tables if t.variant == "seed002")
    assert super_six.burn_between_rounds is True   # seed 002 burns one card between rounds
    many = demo_tables(20)
    assert len({t.name for t in many}) == 20 and len({t.id for t in many}) == 20
    with pytest.raises(ValueError, match="got 0"):
        demo_tables(0)


def test_tables_setting_is_the_services_roads_tables_shape():
    from web.settings import table_configs

    tables = [DemoTable("t1", "百家乐 8", "seed002"), DemoTable("t2", "Mini", "seed004_mini")]
    assert table_configs(tables_setting(tables)) == {
        "t1": {"name": "百家乐 8", "variant": "seed002"}, "t2": {"name": "Mini", "variant": "seed004_mini"}}


def test_the_default_pace_is_a_real_tables_a_round_every_25_to_45_seconds():
    import random

    pace = Pace()
    rng = random.Random(1)
    delays = [pace.round_delay(rng) for _ in range(2000)]
    assert 25.0 <= min(delays) < 26.0 and 44.0 < max(delays) <= 45.0
    assert 34.0 < sum(delays) / len(delays) < 36.0
    assert pace.shoe_seconds == 120.0   # two minutes to shuffle between shoes


def test_the_fast_pace_deals_a_shoe_in_a_few_seconds():
    import random

    fast = Pace.fast()
    rng = random.Random(2)
    shoe = sum(fast.round_delay(rng) for _ in range(80)) + fast.shoe_seconds   # 80 rounds: a long shoe
    assert shoe < 10.0


def test_demo_pace_option_and_help_say_the_real_pace():
    result = CliRunner().invoke(main, ["demo", "--help"])
    assert result.exit_code == 0
    assert "--host" in result.output and "25-45 s" in result.output and "--fast" in result.output


def test_a_reused_data_directory_goes_on_with_the_next_shoe(tmp_path):
    data = tmp_path / "data"
    pace = Pace(round_seconds=0.0, jitter=0.0, shoe_seconds=0.0, prefill=0)
    with Demo(port=0, tables=1, data_dir=data, pace=pace, seed=1) as demo:
        poll(lambda: demo.rounds_sent() > 0, "a round")
        url = demo.url
    assert data.is_dir() and any(data.iterdir())   # a given data directory is kept
    with pytest.raises(requests.ConnectionError):
        requests.get(url + "/api/tables", timeout=2)
    with Demo(port=0, tables=1, data_dir=data, pace=Pace(round_seconds=60, prefill=0), seed=1) as demo:
        client = demo.runners[0].client

        def shoes():
            listing = client.get("/api/tables/t1/shoes")["shoes"]
            return listing if len(listing) >= 2 else None

        listing = poll(shoes, "a new shoe after restart")
    first_run_last = max(s["shoe"] for s in listing[1:])  # newest first: the new shoe leads
    assert max(s["shoe"] for s in listing) == first_run_last + 1


def test_a_temporary_data_directory_is_removed_at_stop():
    with Demo(port=0, tables=1, pace=Pace.fast()) as demo:
        poll(lambda: demo.rounds_sent() > 0, "a round")
        data = demo.data_dir
        assert data is not None and data.is_dir()
    assert not data.exists()


def test_demo_on_every_interface_posts_and_links_through_loopback():
    with Demo(host="0.0.0.0", port=0, tables=1, pace=Pace.fast()) as demo:
        assert demo.every_interface
        assert demo.url == f"http://127.0.0.1:{demo.port}"
        assert demo._server.server_address[0] == "0.0.0.0"
        poll(lambda: demo.rounds_sent() > 0, "a round")
        assert requests.get(demo.urls()["lobby"], timeout=5).status_code == 200
    assert Demo(host="::", port=8123, tables=1).url == "http://[::1]:8123"
    assert Demo(host="127.0.0.2", port=8123, tables=1).url == "http://127.0.0.2:8123"


def test_demo_host_option_binds_that_address_and_says_so(tmp_path):
    result = CliRunner().invoke(main, ["demo", "--fast", "--host", "0.0.0.0", "--port", "0", "--tables", "1",
                                       "--duration", "1", "--data", str(tmp_path / "d")])
    assert result.exit_code == 0, result.output
    assert "listening on every interface (0.0.0.0 port" in result.output
    assert re.search(r"lobby\s+http://127\.0\.0\.1:\d+/lobby", result.output)


def test_demo_on_an_address_it_cannot_bind_exits_1_naming_it(tmp_path):
    result = CliRunner().invoke(main, ["demo", "--host", "192.0.2.1", "--port", "0", "--data", str(tmp_path / "d")])
    assert result.exit_code == 1
    assert "cannot serve on 192.0.2.1:0" in result.output


def test_demo_on_a_taken_port_exits_1_and_says_so(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(main, ["demo", "--port", str(port), "--data", str(tmp_path / "d")])
    assert result.exit_code == 1
    assert f"cannot serve on 127.0.0.1:{port}" in result.output
    assert "--port 0" in result.output


def test_demo_runs_for_a_given_duration_and_prints_the_urls(tmp_path):
    result = CliRunner().invoke(main, ["demo", "--fast", "--port", "0", "--tables", "1", "--duration", "1",
                                       "--data", str(tmp_path / "d"), "--token", "tok"])
    assert result.exit_code == 0, result.output
    base = re.search(r"on (http://127\.0\.0\.1:\d+) ", result.output).group(1)
    for path in ("/lobby", "/tables/t1", "/tables/t1/board.png", "/api/tables"):
        assert base + path in result.output
    assert "feed token tok" in result.output
    assert re.search(r"stopped: [1-9]\d* rounds dealt", result.output)


@pytest.mark.parametrize("args, words", [
    (["--tables", "0"], "--tables"),
    (["--port", "70000"], "--port"),
    (["--pace", "-1"], "--pace"),
])
def test_demo_bad_arguments_exit_2(args, words):
    result = CliRunner().invoke(main, ["demo", *args])
    assert result.exit_code == 2
    assert words in result.output


# --------------------------------------------------------------------------- a table's faults
class ShoeFeed(FakeJSONService):
    """A loopback fake of the feed that refuses the messages listed in ``refuse`` (call indexes)
    with 409 and answers ``GET .../shoes`` with the shoes it accepted."""

    def __init__(self, refuse: set[int]) -> None:
        self.refuse = refuse
        self.accepted: list[dict] = []
        self.calls = 0
        super().__init__()

    def answer(self, method, path, body, headers):
        if method == "GET":
            shoes = sorted({b["shoe"] for b in self.accepted})
            return 200, {"shoes": [{"shoe": n} for n in shoes]}
        index = self.calls
        self.calls += 1
        if index in self.refuse:
            return 409, {"error": {"status": 409, "code": "round_conflict", "message": "stored differently",
                                   "field": "round"}}
        self.accepted.append(body)
        return 201, {"status": "recorded"}


def test_a_rejected_round_makes_the_table_move_on_to_a_fresh_shoe():
    from web.cli.demo import FeedClient, SimulatedTable

    feed = ShoeFeed(refuse={3})   # the shoe start and rounds 1-2 pass, round 3 is refused
    stop = threading.Event()
    table = SimulatedTable(DemoTable("t1", "T", "seed000_live"), FeedClient(feed.url, "tok"),
                           Pace(round_seconds=0.0, jitter=0.0, shoe_seconds=0.0, prefill=0), stop, seed=4)
    table.start()
    try:
        poll(lambda: any(b["shoe"] == 2 and b.get("round") == 2 for b in feed.accepted), "shoe 2 to deal")
    finally:
        stop.set()
        table.join(5)
        feed.close()
    assert not table.is_alive()
    assert len(table.errors) == 1 and "HTTP 409" in table.errors[0]
    shoe1 = [b.get("round") for b in feed.accepted if b["shoe"] == 1]
    assert shoe1 == [None, 1, 2]   # nothing of shoe 1 was sent after the refused round
    assert [b.get("round") for b in feed.accepted if b["shoe"] == 2][:2] == [None, 1]


def test_a_table_stops_when_the_service_is_gone():
    from web.cli.demo import FeedClient, SimulatedTable

    stop = threading.Event()
    table = SimulatedTable(DemoTable("t1", "T", "seed000_live"),
                           FeedClient(f"http://127.0.0.1:{free_port()}", "tok", retries=0), Pace(), stop)
    table.start()
    table.join(10)
    assert not table.is_alive()
    assert table.rounds_sent == 0 and len(table.errors) == 1


# --------------------------------------------------------------------------- a live table, card by card
def _phase(doc: dict) -> str:
    """What a screen shows of a table snapshot: its state, and while dealing the cards out."""
    state = (doc.get("state") or {}).get("state")
    ip = doc.get("in_progress")
    return f"{state}+{len(ip['player']) + len(ip['banker'])}" if ip else str(state)


def test_a_demo_table_bets_deals_card_by_card_shows_the_result_and_shuffles_between_shoes():
    """Every snapshot the table publishes, in order: betting (a countdown), dealing with 1, 2, 3,
    4 (5, 6) cards in progress and no roads change, the round recorded, result; between shoes
    shuffling with a new dealer, then the next shoe. One-deck shoes so a shoe ends quickly."""
    pace = Pace(round_seconds=0.25, jitter=0.0, shoe_seconds=0.3, prefill=0, card_by_card=True)
    demo = Demo(port=0, tables=1, pace=pace, seed=7)
    demo.tables = [DemoTable("t1", "Live 1", "seed000_live", decks=1)]
    docs: list[dict] = []
    lock = threading.Lock()

    def heard(topic, message):
        if topic == "table:t1":
            with lock:
                docs.append(message.document)

    from web.service import get_service

    with demo:
        get_service(demo._app).hub.listen(heard)
        poll(lambda: any(d["shoe"] >= 3 for d in list(docs)), "table t1 to reach its third shoe")
        stored = demo.runners[0].client.get("/api/tables/t1/shoes/2/rounds")["rounds"][0]["feed"]
    with lock:
        seen = list(docs)
    p, b = stored["player"], stored["banker"]
    dealt = [p[0], b[0], p[1], b[1]] + p[2:] + b[2:]   # deal order: P B P B, then third cards
    # Round 1 of shoe 2, from the betting that opened it to its result.
    shoe2 = [d for d in seen if d["shoe"] == 2]
    start = next(i for i, d in enumerate(shoe2) if _phase(d) == "betting")
    end = next(i for i, d in enumerate(shoe2) if d["round"] == 1 and _phase(d) == "result")
    round1 = shoe2[start:end + 1]
    assert [_phase(d) for d in round1] == (["betting", "dealing"] + [f"dealing+{k}" for k in range(1, len(dealt))]
                                          + ["dealing", "result"])
    for k, d in enumerate(round1[2:-2], 1):   # the cards dealt so far, face up on their side
        ip = d["in_progress"]
        assert [ip["player"][i // 2] if i % 2 == 0 else ip["banker"][i // 2] for i in range(min(k, 4))] \
            == dealt[:min(k, 4)]
    betting = round1[0]["state"]
    assert betting["closes_at"] is not None and betting["closes_at"] > betting["since"]
    assert all(d["bead_plate"] == [] and d["round"] == 0 for d in round1[:-2])   # roads wait for the result
    assert len(round1[-2]["bead_plate"]) == 1 and round1[-2]["round"] == 1
    # Between shoes 1 and 2: shuffling (shoe 1 still on the board) with a dealer, then shoe 2.
    first_of_2 = next(i for i, d in enumerate(seen) if d["shoe"] == 2)
    before = seen[first_of_2 - 1]
    assert before["shoe"] == 1 and _phase(before) == "shuffling" and before["state"]["dealer"] in DEALERS
    assert _phase(seen[first_of_2]) == "shuffling" and seen[first_of_2]["round"] == 0


def test_the_fast_pace_still_shows_a_countdown_and_a_shuffle_of_a_few_seconds():
    """--fast: 3 s of betting on rounds 1, 26, 51, 76 of a shoe (the rest as short as before),
    3 s of shuffling, and an 80-round shoe still under 20 s."""
    import random

    fast = Pace.fast()
    rng = random.Random(2)
    plans = {n: fast.round_plan(rng, 4, n) for n in range(1, 81)}
    assert [n for n, p in plans.items() if p[0] == 3.0] == [1, 26, 51, 76]
    assert all(p[0] < 0.1 for n, p in plans.items() if n not in (1, 26, 51, 76))
    assert fast.shoe_seconds == 3.0
    assert sum(sum(p[:1]) + p[1] * 4 + p[2] for p in plans.values()) + fast.shoe_seconds < 20.0
