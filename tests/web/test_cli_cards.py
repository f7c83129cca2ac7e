"""``roads simulate --cards`` and ``roads replay`` of card-level feed files: a live table's table
states and cards, replayed into the service, record exactly the rounds of the whole-round file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import requests
from click.testing import CliRunner

from support.feed import FEED_TOKEN, close_app
from support.serving import serve_app
from web import create_app
from web.cli import main


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False, prog_name="roads")


def lines_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def deal_order(player: list[str], banker: list[str]) -> list[str]:
    """P1 B1 P2 B2, the player's third card, the banker's (docs/domain.md section 1)."""
    return [player[0], banker[0], player[1], banker[1]] + player[2:] + banker[2:]


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> tuple[Path, Path]:
    """``(whole, cards)``: two shoes of table T1, seed 5, with a burn between rounds (seed 002),
    as whole rounds and card by card."""
    folder = tmp_path_factory.mktemp("feeds")
    out = []
    for name, extra in (("whole", ()), ("cards", ("--cards",))):
        path = folder / f"{name}.jsonl"
        result = run("simulate", "--shoes", "2", "--seed", "5", "--table", "T1", "--burn-between-rounds",
                     "--out", str(path), "--no-progress", *extra)
        assert result.exit_code == 0, result.output
        out.append(path)
    return out[0], out[1]


def test_simulate_cards_writes_each_round_as_a_live_table_sends_it(files):
    whole, cards = (lines_of(p) for p in files)
    it = iter(cards)
    for m in whole:
        if m["type"] == "shoe":
            assert next(it) == {"type": "state", "table": "T1", "state": "shuffling"}
            assert next(it) == m   # the shoe start with its burn cards, unchanged
            continue
        assert next(it) == {"type": "state", "table": "T1", "state": "betting", "seconds_left": 15}
        assert next(it) == {"type": "state", "table": "T1", "state": "dealing"}
        for k, card in enumerate(deal_order(m["player"], m["banker"]), 1):
            expected = {"type": "cards", "table": "T1", "shoe": m["shoe"], "round": m["round"], "position": k,
                        "cards": [card]}
            if k == 1 and "burn" in m:
                expected["burn"] = m["burn"]
            if k == len(m["player"]) + len(m["banker"]) and m.get("cut_card"):
                expected["cut_card"] = True
            assert next(it) == expected
        assert next(it) == {"type": "state", "table": "T1", "state": "result"}
    assert next(it, None) is None
    assert sum(1 for m in cards if "burn" in m and m["type"] == "cards") > 50   # seed 002 burns between rounds


def test_render_of_a_cards_file_draws_the_roads_of_the_whole_rounds(files, tmp_path):
    from web.cli.commands import shoe_roads_from_file

    for shoe in (1, 2):
        _, whole, n, _ = shoe_roads_from_file(files[0], shoe, None)
        _, cards, m, _ = shoe_roads_from_file(files[1], shoe, None)
        assert (m, cards.bead_plate_json(), cards.big_road_json()) == (n, whole.bead_plate_json(),
                                                                         whole.big_road_json())
        assert n > 40


@pytest.fixture
def live_service(tmp_path):
    app = create_app({"ROADS_FEED_TOKEN": FEED_TOKEN, "ROADS_DATA_DIR": str(tmp_path / "data")})
    try:
        with serve_app(app) as server:
            yield f"http://127.0.0.1:{server.port}"
    finally:
        close_app(app)


def comparable(snapshot: dict) -> dict:
    return {k: v for k, v in snapshot.items() if k not in ("table", "name", "version", "state")}


def test_replayed_card_by_card_the_file_records_exactly_the_rounds_of_the_whole_file(files, live_service):
    """The whole file to table W, the cards file to table C: every shoe's snapshot and stored
    round are identical (the state, which only C has, and the event count aside)."""
    for table, path in (("W", files[0]), ("C", files[1])):
        result = run("replay", str(path), "--url", live_service, "--token", FEED_TOKEN, "--table", table,
                     "--no-progress")
        assert result.exit_code == 0, result.output
    get = lambda path: requests.get(f"{live_service}/api/tables/{path}", timeout=5).json()  # noqa: E731
    w, c = get("W"), get("C")
    assert comparable(c) == comparable(w) and "in_progress" not in c
    assert "state" not in w and c["state"]["state"] == "result" and c["state"]["closes_at"] is None
    for shoe in (1, 2):
        w, c = get(f"W/shoes/{shoe}"), get(f"C/shoes/{shoe}")
        assert comparable(c) == comparable(w)
        w, c = get(f"W/shoes/{shoe}/rounds"), get(f"C/shoes/{shoe}/rounds")
        assert [{k: v for k, v in r.items() if k != "at"} for r in c["rounds"]] == \
            [{k: v for k, v in r.items() if k != "at"} for r in w["rounds"]]
        assert len(c["rounds"]) > 40
    assert [s["burn"] for s in get("C/shoes")["shoes"]] == [s["burn"] for s in get("W/shoes")["shoes"]]


def test_replaying_a_cards_file_again_records_nothing_new(files, live_service):
    for _ in range(2):
        result = run("replay", str(files[1]), "--url", live_service, "--token", FEED_TOKEN, "--no-progress")
        assert result.exit_code == 0, result.output
    shoes = requests.get(f"{live_service}/api/tables/T1/shoes", timeout=5).json()["shoes"][::-1]  # oldest first
    whole = lines_of(files[0])
    assert [s["rounds"] for s in shoes] == [sum(1 for m in whole if m["type"] == "round" and m["shoe"] == n)
                                            for n in (1, 2)]
    assert [s["voided"] for s in shoes] == [0, 0]


@pytest.mark.parametrize("line, field", [
    ('{"type":"state","table":"T1","state":"napping"}', "'state' must be one of"),
    ('{"type":"state","table":"T1","state":"betting","seconds_left":-1}', "'seconds_left' must be"),
    ('{"type":"cards","table":"T1","shoe":1,"round":1,"position":0,"cards":["AS"]}', "'position' must be"),
    ('{"type":"cards","table":"T1","shoe":1,"round":1,"position":6,"cards":["AS","2S"]}', "a round has cards 1-6"),
    ('{"type":"cards","table":"T1","shoe":1,"round":1,"position":1,"cards":["XX"]}', "'cards'"),
    ('{"type":"cards","table":"T1","shoe":1,"round":1,"position":1,"cards":["AS"],"dealer":"A"}',
     "unknown key 'dealer'"),
])
def test_a_bad_card_level_line_exits_3_naming_the_line_before_anything_is_sent(tmp_path, line, field):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"type":"state","table":"T1","state":"shuffling"}\n' + line + "\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["replay", str(path), "--url", "http://127.0.0.1:9", "--token", "t",
                                       "--no-progress"], prog_name="roads")
    assert result.exit_code == 3, result.output
    assert "line 2" in result.output and field in result.output


def test_render_names_the_line_of_a_card_the_tableau_does_not_deal(files, tmp_path):
    lines = files[1].read_text(encoding="utf-8").splitlines(keepends=True)
    first = next(i for i, t in enumerate(lines) if '"type":"state","table":"T1","state":"result"' in t)
    msg = json.loads(lines[first - 1])   # the card that completed round 1: one more is not dealt
    bad = dict(msg, position=msg["position"] + 1, cards=["AS"])
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(lines[:first]) + json.dumps(bad) + "\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["render", str(path), "--shoe", "1", "--out", str(tmp_path / "b.png")],
                                prog_name="roads")
    assert result.exit_code == 3, result.output
    assert f"line {first + 1}" in result.output and "is not dealt" in result.output
