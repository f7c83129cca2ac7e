"""The ``roads simulate``, ``replay`` and ``render`` commands: files, errors, exit codes.

Exit codes (web/cli/commands.py, each command's own): 0 success, 1 failure, 2 bad arguments, 3 bad input file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from roads import simulator
from roads.cards import parse_cards
from roads.tableau import check_round
from support.feed import FEED_TOKEN, close_app
from support.serving import FakeJSONService, free_port, serve_app
from web import create_app
from web.cli import main


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False, prog_name="roads")


def lines_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# --------------------------------------------------------------------------- help
@pytest.mark.parametrize("command", ["demo", "simulate", "replay", "render"])
def test_every_command_has_help_with_its_exit_codes(command):
    result = run(command, "--help")
    assert result.exit_code == 0
    assert result.output.startswith(f"Usage: roads {command} [OPTIONS]")
    assert "Exit codes: 0 " in result.output and "2 bad arguments" in result.output


def test_the_group_lists_the_demo_commands():
    result = run("--help")
    assert result.exit_code == 0
    for command in ("demo", "simulate", "replay", "render"):
        assert command in result.output


# --------------------------------------------------------------------------- simulate
@pytest.fixture(scope="module")
def feed_file(tmp_path_factory) -> Path:
    """Two shoes of table T1, seed 5, as ``roads simulate`` writes them."""
    out = tmp_path_factory.mktemp("feed") / "two.jsonl"
    result = run("simulate", "--shoes", "2", "--seed", "5", "--table", "T1", "--out", str(out), "--no-progress")
    assert result.exit_code == 0, result.output
    return out


def test_simulate_writes_shoe_starts_and_legal_rounds_one_message_a_line(feed_file):
    messages = lines_of(feed_file)
    starts = [m for m in messages if m["type"] == "shoe"]
    rounds = [m for m in messages if m["type"] == "round"]
    assert [s["shoe"] for s in starts] == [1, 2]
    assert messages[0]["type"] == "shoe"
    assert {m["table"] for m in messages} == {"T1"}
    for r in rounds:
        check_round(parse_cards(r["player"]), parse_cards(r["banker"]))
    assert sum(1 for r in rounds if r.get("cut_card")) == 2
    assert feed_file.read_text(encoding="utf-8").endswith("}\n")


def test_simulate_is_deterministic_for_a_seed(feed_file, tmp_path):
    again = tmp_path / "again.jsonl"
    other = tmp_path / "other.jsonl"
    assert run("simulate", "--shoes", "2", "--seed", "5", "--table", "T1", "--out", str(again),
               "--no-progress").exit_code == 0
    assert run("simulate", "--shoes", "2", "--seed", "6", "--table", "T1", "--out", str(other),
               "--no-progress").exit_code == 0
    assert again.read_bytes() == feed_file.read_bytes()
    assert other.read_bytes() != feed_file.read_bytes()


def test_simulate_options_set_decks_cut_card_and_first_shoe(tmp_path):
    out = tmp_path / "six.jsonl"
    result = run("simulate", "--shoes", "1", "--decks", "6", "--cut-card", "20", "--first-shoe", "4",
                 "--out", str(out), "--no-progress")
    assert result.exit_code == 0, result.output
    messages = lines_of(out)
    assert messages[0] == {**messages[0], "type": "shoe", "table": "table-1", "shoe": 4, "cut_card_position": 20}
    used = len(messages[0]["burn"]) + sum(len(m["player"]) + len(m["banker"]) for m in messages[1:-1])
    last = len(messages[-1]["player"]) + len(messages[-1]["banker"])
    # Seed 000-002 cut-card rule on a 6-deck shoe: 312 - 20 cards lie in front of the cut card.
    assert used < 312 - 20 <= used + last


def test_simulate_shows_a_progress_bar_on_stderr(tmp_path):
    out = tmp_path / "p.jsonl"
    result = CliRunner().invoke(main, ["simulate", "--shoes", "2", "--out", str(out)])
    assert result.exit_code == 0
    assert "2/2" in result.stderr and "shoe" in result.stderr


@pytest.mark.parametrize("args, words", [
    (["--shoes", "0"], "--shoes"),
    (["--decks", "9"], "--decks"),
    (["--cut-card", "0"], "--cut-card"),
    (["--shoes", "x"], "'x' is not a valid integer"),
])
def test_simulate_refuses_bad_arguments_with_exit_2_and_writes_nothing(tmp_path, args, words):
    out = tmp_path / "bad.jsonl"
    result = run("simulate", "--out", str(out), "--no-progress", *args)
    assert result.exit_code == 2
    assert words in result.output
    assert list(tmp_path.iterdir()) == []


def test_simulate_refuses_a_missing_output_directory(tmp_path):
    result = run("simulate", "--out", str(tmp_path / "nope" / "f.jsonl"), "--no-progress")
    assert result.exit_code == 2
    assert "does not exist" in result.output


@pytest.mark.parametrize("error", [RuntimeError("disk on fire"), KeyboardInterrupt()])
def test_simulate_never_leaves_a_half_written_file(tmp_path, monkeypatch, feed_file, error):
    out = tmp_path / "keep.jsonl"
    out.write_bytes(feed_file.read_bytes())
    real = simulator.simulate

    def failing(*args, **kwargs):
        for i, m in enumerate(real(*args, **kwargs)):
            if i == 50:
                raise error
            yield m

    monkeypatch.setattr(simulator, "simulate", failing)
    result = CliRunner().invoke(main, ["simulate", "--shoes", "1", "--out", str(out), "--no-progress"])
    assert result.exit_code != 0
    assert out.read_bytes() == feed_file.read_bytes()   # the old file is untouched
    assert [p.name for p in tmp_path.iterdir()] == ["keep.jsonl"]   # no temporary file left


# --------------------------------------------------------------------------- replay (fake service)
class FakeFeed(FakeJSONService):
    """A loopback HTTP server recording feed POSTs; ``script`` maps a call index to a status."""

    def __init__(self) -> None:
        self.received: list[tuple[str, dict, str]] = []
        self.script: dict[int, tuple[int, dict]] = {}
        self.calls = 0
        super().__init__()

    def answer(self, method, path, body, headers):
        index = self.calls
        self.calls += 1
        status, answer = self.script.get(index, (201, {"ok": True}))
        if status < 300:
            self.received.append((path, body, headers.get("Authorization")))
        return status, answer


@pytest.fixture
def fake_feed():
    feed = FakeFeed()
    yield feed
    feed.close()


def small_feed(tmp_path: Path, rounds: int = 3) -> Path:
    messages = []
    for m in simulator.simulate("T1", seed=1, shoes=1):
        messages.append(m)
        if len(messages) == rounds + 1:
            break
    path = tmp_path / "small.jsonl"
    path.write_text("".join(simulator.to_line(m) for m in messages), encoding="utf-8")
    return path


def test_replay_posts_every_message_in_order_with_the_token(tmp_path, fake_feed):
    path = small_feed(tmp_path)
    result = run("replay", str(path), "--url", fake_feed.url, "--token", FEED_TOKEN, "--no-progress")
    assert result.exit_code == 0, result.output
    expected = [simulator.feed_request(json.loads(line)) for line in path.read_text().splitlines()]
    assert [(p, b) for p, b, _ in fake_feed.received] == [(r.path, r.body) for r in expected]
    assert fake_feed.received[0][0] == "/api/tables/T1/shoes"
    assert fake_feed.received[1][1] == {k: v for k, v in json.loads(path.read_text().splitlines()[1]).items()
                                        if k not in ("type", "table")}
    assert {auth for _, _, auth in fake_feed.received} == {f"Bearer {FEED_TOKEN}"}


def test_replay_can_send_to_another_table(tmp_path, fake_feed):
    path = small_feed(tmp_path, rounds=1)
    result = run("replay", str(path), "--url", fake_feed.url, "--token", FEED_TOKEN, "--table", "T7", "--no-progress")
    assert result.exit_code == 0, result.output
    assert [p for p, _, _ in fake_feed.received] == ["/api/tables/T7/shoes", "/api/tables/T7/rounds"]


def test_replay_reads_the_token_from_the_environment(tmp_path, fake_feed):
    path = small_feed(tmp_path, rounds=1)
    result = CliRunner(env={"ROADS_FEED_TOKEN": "from-env"}).invoke(
        main, ["replay", str(path), "--url", fake_feed.url, "--no-progress"])
    assert result.exit_code == 0, result.output
    assert {auth for _, _, auth in fake_feed.received} == {"Bearer from-env"}


def test_replay_retries_a_busy_service_and_delivers_each_message_once(tmp_path, fake_feed):
    path = small_feed(tmp_path, rounds=2)
    fake_feed.script = {1: (503, {}), 2: (503, {}), 4: (502, {})}
    result = run("replay", str(path), "--url", fake_feed.url, "--token", FEED_TOKEN, "--no-progress")
    assert result.exit_code == 0, result.output
    assert [b.get("round") for _, b, _ in fake_feed.received] == [None, 1, 2]
    assert fake_feed.calls == 6


def test_replay_stops_at_a_rejected_message_naming_its_line_and_the_service_error(tmp_path, fake_feed):
    path = small_feed(tmp_path, rounds=3)
    fake_feed.script = {2: (409, {"error": {"status": 409, "code": "round_conflict",
                                            "message": "round 2 of shoe 1 is already stored with other cards",
                                            "field": "round"}})}
    result = run("replay", str(path), "--url", fake_feed.url, "--token", FEED_TOKEN, "--no-progress")
    assert result.exit_code == 1
    assert "line 3" in result.output
    assert "HTTP 409" in result.output and "already stored with other cards" in result.output
    assert "'round'" in result.output
    assert fake_feed.calls == 3   # nothing sent after the rejected line


def test_replay_checks_the_whole_file_before_sending_anything(tmp_path, fake_feed):
    path = small_feed(tmp_path, rounds=3)
    text = path.read_text()
    path.write_text(text + text.splitlines()[1][:30], encoding="utf-8")   # a truncated 6th line
    result = run("replay", str(path), "--url", fake_feed.url, "--token", FEED_TOKEN, "--no-progress")
    assert result.exit_code == 3
    assert "line 5" in result.output and "not valid JSON" in result.output
    assert fake_feed.calls == 0


def test_replay_of_a_file_that_is_not_text_exits_3(tmp_path, fake_feed):
    path = tmp_path / "bin.jsonl"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    result = run("replay", str(path), "--url", fake_feed.url, "--token", FEED_TOKEN, "--no-progress")
    assert result.exit_code == 3
    assert "not UTF-8" in result.output


def test_replay_of_an_empty_file_exits_3(tmp_path, fake_feed):
    path = tmp_path / "empty.jsonl"
    path.write_text("\n", encoding="utf-8")
    result = run("replay", str(path), "--url", fake_feed.url, "--token", FEED_TOKEN, "--no-progress")
    assert result.exit_code == 3
    assert "no feed messages" in result.output


def test_replay_to_a_service_that_is_not_there_exits_1(tmp_path):
    path = small_feed(tmp_path, rounds=1)
    result = run("replay", str(path), "--url", f"http://127.0.0.1:{free_port()}", "--token", FEED_TOKEN,
                 "--retries", "1", "--no-progress")
    assert result.exit_code == 1
    assert "line 1" in result.output


@pytest.mark.parametrize("args, code, words", [
    (["--url", "ftp://x"], 2, "not an http"),
    ([], 2, "Missing option '--url'"),
])
def test_replay_bad_arguments_exit_2(tmp_path, args, code, words):
    path = small_feed(tmp_path, rounds=1)
    result = CliRunner(env={"ROADS_FEED_TOKEN": "t"}).invoke(main, ["replay", str(path), "--no-progress", *args])
    assert result.exit_code == code
    assert words in result.output


def test_replay_of_a_missing_file_exits_2(tmp_path):
    result = run("replay", str(tmp_path / "none.jsonl"), "--url", "http://127.0.0.1:1", "--token", "t")
    assert result.exit_code == 2
    assert "does not exist" in result.output


# --------------------------------------------------------------------------- render
def _winner(player: list[str], banker: list[str]) -> str:
    """Winner by the rule of docs/domain.md section 1 (totals mod 10; A=1, T-K=0), not by roads code."""
    value = {"A": 1, "T": 0, "J": 0, "Q": 0, "K": 0}
    p = sum(value.get(c[0], int(c[0]) if c[0].isdigit() else 0) for c in player) % 10
    b = sum(value.get(c[0], int(c[0]) if c[0].isdigit() else 0) for c in banker) % 10
    return "B" if b > p else "P" if p > b else "T"


def test_the_roads_of_a_shoe_are_built_from_its_lines_in_order(feed_file):
    from roads.snapshot import build_snapshot
    from roads.variants import get_variant
    from web.cli.commands import shoe_roads_from_file

    table, roads, rounds, variant = shoe_roads_from_file(feed_file, 2, None)
    shoe2 = [m for m in lines_of(feed_file) if m["type"] == "round" and m["shoe"] == 2]
    assert (table, rounds, variant) == ("T1", len(shoe2), None)
    snap = build_snapshot(table=table, shoe=2, version=rounds, roads=roads, variant=get_variant("seed000_live"))
    assert [cell["winner"] for cell in snap["bead_plate"]] == [_winner(m["player"], m["banker"]) for m in shoe2]


def test_render_draws_one_shoe_as_a_png_of_the_asked_size(feed_file, tmp_path):
    from PIL import Image

    out = tmp_path / "board.png"
    result = run("render", str(feed_file), "--shoe", "1", "--out", str(out), "--width", "960", "--height", "540")
    assert result.exit_code == 0, result.output
    with Image.open(out) as image:
        assert image.format == "PNG" and image.size == (960, 540)
    assert [p.name for p in tmp_path.iterdir()] == ["board.png"]


def test_render_draws_a_chinese_name_in_chinese_on_the_light_theme(feed_file, tmp_path):
    from PIL import Image

    out = tmp_path / "zh.png"
    result = run("render", str(feed_file), "--shoe", "2", "--out", str(out), "--name", "百家乐 8", "--lang", "zh",
                 "--theme", "light", "--width", "1080", "--height", "1920")
    assert result.exit_code == 0, result.output
    with Image.open(out) as image:
        assert image.size == (1080, 1920)


def test_render_reads_result_level_rounds_too(tmp_path):
    path = tmp_path / "results.jsonl"
    lines = [{"type": "shoe", "table": "R1", "shoe": 1},
             {"type": "round", "table": "R1", "shoe": 1, "round": 1,
              "result": {"winner": "B", "player_total": 3, "banker_total": 7, "player_pair": False,
                         "banker_pair": True, "natural": False}},
             {"type": "round", "table": "R1", "shoe": 1, "round": 2,
              "result": {"winner": "T", "player_total": 9, "banker_total": 9, "player_pair": False,
                         "banker_pair": False, "natural": True}}]
    path.write_text("".join(simulator.to_line(m) for m in lines), encoding="utf-8")
    from web.cli.commands import shoe_roads_from_file

    _, roads, rounds, _ = shoe_roads_from_file(path, 1, None)
    assert rounds == 2
    result = run("render", str(path), "--shoe", "1", "--out", str(tmp_path / "r.png"), "--width", "640",
                 "--height", "360")
    assert result.exit_code == 0, result.output


def _write(path: Path, messages: list[dict]) -> Path:
    path.write_text("".join(simulator.to_line(m) for m in messages), encoding="utf-8")
    return path


def test_render_names_the_line_of_a_round_that_breaks_the_tableau(feed_file, tmp_path):
    messages = lines_of(feed_file)[:6]
    # Player 9 + K = natural 9: both sides stand, so a banker third card breaks the tableau.
    messages[3] = {**messages[3], "player": ["9S", "KD"], "banker": ["2C", "3D", "4H"]}
    path = _write(tmp_path / "bad.jsonl", messages)
    result = run("render", str(path), "--shoe", "1", "--out", str(tmp_path / "x.png"))
    assert result.exit_code == 3
    assert "line 4" in result.output and "natural" in result.output
    assert not (tmp_path / "x.png").exists()


def test_render_names_the_line_of_a_round_out_of_order(feed_file, tmp_path):
    messages = lines_of(feed_file)[:6]
    del messages[2]   # round 2 missing: round 3 follows round 1
    path = _write(tmp_path / "gap.jsonl", messages)
    result = run("render", str(path), "--shoe", "1", "--out", str(tmp_path / "x.png"))
    assert result.exit_code == 3
    assert "line 3: round 3 of shoe 1 where round 2 was expected" in result.output


def test_render_of_a_shoe_not_in_the_file_lists_the_shoes(feed_file, tmp_path):
    result = run("render", str(feed_file), "--shoe", "9", "--out", str(tmp_path / "x.png"))
    assert result.exit_code == 3
    assert "no shoe 9 of table 'T1' in the file (shoes: 1, 2)" in result.output


def test_render_of_a_file_with_several_tables_needs_a_table(feed_file, tmp_path):
    messages = lines_of(feed_file)[:4]
    other = [{**m, "table": "T2"} for m in messages]
    path = _write(tmp_path / "two.jsonl", messages + other)
    result = run("render", str(path), "--shoe", "1", "--out", str(tmp_path / "x.png"))
    assert result.exit_code == 3
    assert "several tables (T1, T2): choose one with --table" in result.output
    result = run("render", str(path), "--shoe", "1", "--table", "T3", "--out", str(tmp_path / "x.png"))
    assert result.exit_code == 3
    assert "no table 'T3'" in result.output
    result = run("render", str(path), "--shoe", "1", "--table", "T2", "--out", str(tmp_path / "x.png"),
                 "--width", "320", "--height", "180")
    assert result.exit_code == 0, result.output


def test_render_of_a_truncated_file_names_the_line(feed_file, tmp_path):
    text = feed_file.read_text(encoding="utf-8")
    path = tmp_path / "cut.jsonl"
    path.write_text(text[: text.index("\n", 500) + 20], encoding="utf-8")
    number = path.read_text(encoding="utf-8").count("\n") + 1
    result = run("render", str(path), "--shoe", "1", "--out", str(tmp_path / "x.png"))
    assert result.exit_code == 3
    assert f"line {number}: not valid JSON" in result.output


@pytest.mark.parametrize("args, option", [
    (["--lang", "xx"], "--lang"),
    (["--theme", "neon"], "--theme"),
    (["--variant", "nope"], "--variant"),
    (["--width", "10"], "--width"),
])
def test_render_bad_options_exit_2_naming_the_option(feed_file, tmp_path, args, option):
    result = run("render", str(feed_file), "--shoe", "1", "--out", str(tmp_path / "x.png"), *args)
    assert result.exit_code == 2
    assert option in result.output
    assert not (tmp_path / "x.png").exists()


def test_simulate_with_a_variant_takes_its_decks_and_burns_and_writes_it_on_each_shoe(tmp_path):
    out = tmp_path / "s6.jsonl"
    result = run("simulate", "--variant", "seed002", "--out", str(out), "--no-progress")
    assert result.exit_code == 0, result.output
    messages = lines_of(out)
    assert messages[0]["variant"] == "seed002"
    assert all(len(m["burn"]) == 1 for m in messages[2:])   # seed 002 burns between rounds
    bad = run("simulate", "--variant", "nope", "--out", str(out), "--no-progress")
    assert bad.exit_code == 2 and "unknown variant 'nope'" in bad.output


def test_simulate_refuses_a_cut_card_deeper_than_the_shoe(tmp_path):
    result = run("simulate", "--decks", "1", "--cut-card", "45", "--out", str(tmp_path / "f.jsonl"), "--no-progress")
    assert result.exit_code == 2
    assert "cut_card_position must be an integer 6-35 (cards from the back of a shoe of 1 deck), got 45" \
        in result.output
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("position", ["0", "3", "400", "900"])
def test_simulate_refuses_the_cut_cards_the_feed_refuses(tmp_path, position):
    # the same rule as the feed's 422 cut_card_position (roads.shoe.cut_card_range): 6-399 for 8 decks
    result = CliRunner().invoke(main, ["simulate", "--cut-card", position, "--out", str(tmp_path / "f.jsonl")])
    assert result.exit_code == 2
    assert f"cut_card_position must be an integer 6-399 (cards from the back of a shoe of 8 decks), got {position}" \
        in result.stderr
    assert "shoes" not in result.stderr.replace("Usage", "")  # no progress bar before the refusal
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------- replay (real service)
@pytest.fixture
def live_service(tmp_path):
    """The real service on a free loopback port (werkzeug's threaded server)."""
    app = create_app({"ROADS_FEED_TOKEN": FEED_TOKEN, "ROADS_DATA_DIR": str(tmp_path / "data")})
    try:
        with serve_app(app) as server:
            yield f"http://127.0.0.1:{server.port}"
    finally:
        close_app(app)


def test_replaying_a_file_into_the_service_gives_every_round_and_replaying_again_changes_nothing(
        feed_file, live_service):
    import requests

    result = run("replay", str(feed_file), "--url", live_service, "--token", FEED_TOKEN, "--no-progress")
    assert result.exit_code == 0, result.output
    messages = lines_of(feed_file)
    shoes = requests.get(f"{live_service}/api/tables/T1/shoes", timeout=5).json()["shoes"]
    for shoe in (1, 2):
        rounds = [m for m in messages if m["type"] == "round" and m["shoe"] == shoe]
        start = next(m for m in messages if m["type"] == "shoe" and m["shoe"] == shoe)
        stored = next(s for s in shoes if s["shoe"] == shoe)
        assert stored["rounds"] == len(rounds)
        assert stored["burn"] == start["burn"]
        assert stored["cut_card_position"] == start["cut_card_position"]
        assert stored["cut_card_round"] == len(rounds)
    snap = requests.get(f"{live_service}/api/tables/T1", timeout=5).json()
    shoe2 = [m for m in messages if m["type"] == "round" and m["shoe"] == 2]
    assert [c["winner"] for c in snap["bead_plate"]] == [_winner(m["player"], m["banker"]) for m in shoe2]
    version = snap["version"]

    again = run("replay", str(feed_file), "--url", live_service, "--token", FEED_TOKEN, "--no-progress")
    assert again.exit_code == 0, again.output
    assert requests.get(f"{live_service}/api/tables/T1", timeout=5).json()["version"] == version


def test_replay_with_a_wrong_token_exits_1_at_the_first_line(feed_file, live_service):
    result = run("replay", str(feed_file), "--url", live_service, "--token", "wrong", "--no-progress")
    assert result.exit_code == 1
    assert "line 1" in result.output and "HTTP 401" in result.output and "wrong feed token" in result.output


@pytest.mark.parametrize("command", ["simulate", "replay"])
def test_a_table_id_the_service_would_refuse_exits_2(tmp_path, command, fake_feed):
    args = {"simulate": ["simulate", "--out", str(tmp_path / "f.jsonl"), "--no-progress"],
            "replay": ["replay", str(small_feed(tmp_path, rounds=1)), "--url", fake_feed.url, "--token", "t"]}[command]
    result = run(*args, "--table", "bad table/id")
    assert result.exit_code == 2
    assert "table id 'bad table/id' is not a slug" in result.output
    assert fake_feed.calls == 0


def test_replay_waits_the_pace_between_messages_and_not_after_the_last(tmp_path, fake_feed, monkeypatch):
    import web.cli.commands

    slept = []
    monkeypatch.setattr(web.cli.commands.time, "sleep", slept.append)
    path = small_feed(tmp_path, rounds=2)
    result = run("replay", str(path), "--url", fake_feed.url, "--token", FEED_TOKEN, "--pace", "0.25", "--no-progress")
    assert result.exit_code == 0, result.output
    assert slept == [0.25, 0.25]


@pytest.mark.parametrize("bad, words", [
    ("[" * 1000 + "]" * 1000, "nested deeper than 32 levels"),
    ('{"type":"round","table":"T1","shoe":1,"round":' + "2" * 4301 + ',"player":["AS","2S"],"banker":["3S","4S"]}',
     "integer literal of 4301 characters"),
    ('{"type":"round","table":"T1","shoe":1,"round":2,"result":{"winner":"B","player_total":1e999}}',
     "too large to represent"),
])
@pytest.mark.parametrize("command", ["replay", "render"])
def test_a_hostile_line_exits_3_naming_the_line_without_a_traceback(tmp_path, fake_feed, command, bad, words):
    path = small_feed(tmp_path, rounds=3)
    path.write_text(path.read_text(encoding="utf-8") + bad + "\n", encoding="utf-8")
    if command == "replay":
        args = ["replay", str(path), "--url", fake_feed.url, "--token", FEED_TOKEN, "--no-progress"]
    else:
        args = ["render", str(path), "--shoe", "1", "--out", str(tmp_path / "b.png")]
    result = CliRunner().invoke(main, args, prog_name="roads")  # exceptions caught: a traceback would show
    assert result.exit_code == 3, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "line 5" in result.output and words in result.output
    assert "Traceback" not in result.output
    assert fake_feed.calls == 0


def test_each_subcommand_lists_its_own_exit_codes():
    epilogs = {}
    for name in ("simulate", "replay", "render", "demo"):
        result = CliRunner().invoke(main, [name, "--help"])
        assert result.exit_code == 0
        epilogs[name] = " ".join(result.output[result.output.index("Exit codes:"):].split())
    assert len(set(epilogs.values())) == 4
    assert "3 bad input file" not in epilogs["simulate"] and "3 bad input file" not in epilogs["demo"]
    assert "3 bad input file" in epilogs["replay"] and "3 bad input file" in epilogs["render"]
    assert "port taken" in epilogs["demo"] and "port taken" not in epilogs["simulate"]
