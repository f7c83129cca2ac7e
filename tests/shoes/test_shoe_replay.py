"""``roads shoe angel-eye --replay``: recorded Angel Eye streams (tests/shoes/data, written from
the protocol) land in a running service as exactly the rounds their cards make, in order,
across a new shoe with its burn; errors, extra cards, a misdeal and a disagreeing shoe result
are handled as docs/shoes.md says; replaying again records nothing twice."""

from __future__ import annotations

from pathlib import Path

import pytest
import requests
from click.testing import CliRunner

from roads.cards import parse_cards
from roads.outcome import RoundResult
from shoes.recording import read_chunks
from support.feed import FEED_TOKEN, close_app
from support.serving import serve_app
from web import create_app
from web.cli import main

DATA = Path(__file__).parent / "data"

NEW_SHOE_ROUNDS = [
    (["2C", "8H", "3C"], ["6S", "8C", "7H"]), (["5C", "9D", "6S"], ["5D", "2S"]),
    (["TH", "2D", "6H"], ["JD", "5H", "2H"]), (["6H", "QS"], ["QD", "QD", "7D"]),
    (["7D", "JD"], ["KS", "5C", "5D"]), (["2H", "6H"], ["6S", "QD"]),
    (["6D", "5C", "6D"], ["3S", "3D", "JC"]), (["QD", "8H"], ["8D", "5S"]),
]
"""The rounds of angel_eye_new_shoe.aer, dealt by the rules engine (seed 2024) when it was written."""


@pytest.fixture
def service(tmp_path):
    app = create_app({"ROADS_FEED_TOKEN": FEED_TOKEN, "ROADS_DATA_DIR": str(tmp_path / "data")})
    try:
        with serve_app(app) as server:
            yield f"http://127.0.0.1:{server.port}"
    finally:
        close_app(app)


def replay(url: str, spool: Path, name: str, *extra: str):
    return CliRunner().invoke(main, ["shoe", "angel-eye", "--table", "T1", "--url", url, "--token", FEED_TOKEN,
                                     "--replay", str(DATA / name), "--spool", str(spool), *extra],
                              prog_name="roads", catch_exceptions=False)


def clean_frames(name: str) -> tuple[int, int]:
    """``(frames, repeats)`` of a recording by slicing its bytes at each 0x05 (every frame of
    the protocol starts there; its data bytes are above 0x80), ignoring a copy with a bad BCC
    digit only as the caller says."""
    data = b"".join(c for _, c in read_chunks(DATA / name))
    parts = [p for p in data.split(b"\x05")[1:]]
    frames = [p for k, p in enumerate(parts) if k == 0 or p != parts[k - 1]]
    return len(frames), len(parts) - len(frames)


def rounds(url: str, shoe: int) -> list[dict]:
    return requests.get(f"{url}/api/tables/T1/shoes/{shoe}/rounds", timeout=5).json()["rounds"]


def test_a_new_shoe_and_its_rounds_land_as_the_tableau_gives_them(service, tmp_path):
    result = replay(service, tmp_path / "spool", "angel_eye_new_shoe.aer")
    assert result.exit_code == 0, result.output
    frames, repeats = clean_frames("angel_eye_new_shoe.aer")
    # six bytes of power-up noise (00 ff fe 00 80 13), one error raised and cleared, eight rounds
    assert result.output.strip() == (
        f"frames {frames}, repeats {repeats}, noise bytes 6, BCC errors 0, bad frames 0, frames lost 0, "
        "rounds posted 8, rounds held back 0, messages refused 0, skipped 0, degraded 0, pending 0")
    stored = rounds(service, 1)
    assert [(r["feed"]["player"], r["feed"]["banker"]) for r in stored] == NEW_SHOE_ROUNDS
    for r, (player, banker) in zip(stored, NEW_SHOE_ROUNDS):
        expected = RoundResult.from_cards(parse_cards(player), parse_cards(banker))
        assert (r["result"]["winner"], r["result"]["player_total"], r["result"]["banker_total"]) == \
            (expected.winner.value, expected.player_total, expected.banker_total)
    # worked by hand: round 4 is QD QD 7D = 7 against 6H QS = 6, a banker win with a banker pair
    assert stored[3]["result"]["winner"] == "B" and stored[3]["result"]["banker_pair"] is True
    shoes = requests.get(f"{service}/api/tables/T1/shoes", timeout=5).json()["shoes"]
    assert [(s["shoe"], s["burn"], s["rounds"], s["voided"]) for s in shoes] == \
        [(1, ["5H", "QS", "2D", "9C", "KH", "4S"], 8, 0)]   # 5 burns five
    state = requests.get(f"{service}/api/tables/T1", timeout=5).json()["state"]
    assert state["state"] == "result" and "shoe_error" not in state   # the error was cleared


def test_replaying_again_through_the_same_spool_records_nothing_twice(service, tmp_path):
    for _ in range(2):
        result = replay(service, tmp_path / "spool", "angel_eye_new_shoe.aer")
        assert result.exit_code == 0, result.output
    shoes = requests.get(f"{service}/api/tables/T1/shoes", timeout=5).json()["shoes"]
    assert [(s["shoe"], s["rounds"]) for s in shoes] == [(1, 8)]
    version = requests.get(f"{service}/api/tables/T1", timeout=5).json()["version"]
    # a fresh spool sending the same messages again: the feed answers each one "unchanged"
    result = replay(service, tmp_path / "spool2", "capture_natural.aer", "--shoe", "1", "--round", "8")
    assert result.exit_code == 0, result.output
    assert requests.get(f"{service}/api/tables/T1", timeout=5).json()["version"] > version


def test_errors_extra_cards_a_misdeal_and_a_wrong_shoe_result(service, tmp_path):
    result = replay(service, tmp_path / "spool", "angel_eye_faults.aer")
    assert result.exit_code == 0, result.output
    line = result.output.strip()
    assert "BCC errors 1," in line and "frames lost 0," in line and "rounds posted 4," in line
    assert "rounds held back 2 (round 1-3: held: the shoe says B; the cards (player 2C 3D 4S = 9, banker 5S 2C = 7) " \
           "give P (shoe / cards: winner B / P); round 1-4: voided: misdeal: card 5 (4C, the banker's) is not dealt: " \
           "the round is complete after 4 cards (player 9H KD = 9, banker 2S 3S = 5))" in line
    stored = rounds(service, 1)
    assert [(r["round"], r["feed"].get("player"), r["feed"].get("banker"), r["feed"].get("burn")) for r in stored] == [
        (1, ["4S", "4D"], ["3C", "2H"], None),
        (2, ["KS", "7H"], ["6D", "KC"], None),
        # held with the cards posted (the fifth, 4S, completed the round: never posted) and the
        # extra 7C revoked in round 2, burned before card 1
        (3, ["2C", "3D"], ["5S", "2C"], ["7C"]),
        # misdeal: voided with the cards posted (the fourth completed the natural: held back for the result)
        (4, ["9H", "KD"], ["2S"], None),
        (5, ["6S", "JH"], ["3H", "3D"], None),
        (6, ["9S", "8D"], ["5H", "5C", "6H"], None),   # the extra 9S, used as card 1
    ]
    assert [r["result"] and r["result"]["winner"] for r in stored] == ["P", "P", None, None, "T", "P"]
    assert stored[2]["void"] is None and stored[2]["held"]["message"].startswith("the shoe says B;")
    assert (stored[2]["held"]["reason"], stored[2]["held"]["player"], stored[2]["held"]["banker"]) == \
        ("result_mismatch", ["2C", "3D", "4S"], ["5S", "2C"])
    assert stored[3]["void"]["reason"].startswith("misdeal: card 5 (4C, the banker's) is not dealt")
    shoe = requests.get(f"{service}/api/tables/T1/shoes", timeout=5).json()["shoes"][0]
    assert (shoe["rounds"], shoe["counted"], shoe["voided"], shoe["held"]) == (6, 4, 1, 1)
    alarm = requests.get(f"{service}/api/tables/T1", timeout=5).json()["alarm"]
    assert (alarm["round"], alarm["reason"]) == (3, "result_mismatch")


def test_a_real_capture_lands_as_one_round(service, tmp_path):
    result = replay(service, tmp_path / "spool", "capture_natural.aer")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("frames 10, repeats 20, noise bytes 0, BCC errors 0,")
    assert [(r["feed"]["player"], r["feed"]["banker"], r["result"]["winner"]) for r in rounds(service, 1)] == \
        [(["QC", "AC"], ["4S", "4H"], "B")]


def test_an_unreachable_service_keeps_everything_in_the_spool_until_it_is_back(tmp_path):
    """The replay is stopped (SIGTERM-like) while the service is down; the spool keeps every
    message, and the next run delivers them in order."""
    import threading

    from shoes.pipeline import Adapter
    from shoes.angel_eye import AngelEyeDecoder

    chunks = read_chunks(DATA / "angel_eye_new_shoe.aer")
    adapter = Adapter(tmp_path / "spool", "T1", "http://127.0.0.1:9", FEED_TOKEN, AngelEyeDecoder,
                      expects_result=True, start=(None, 0))
    threading.Timer(1.0, adapter.stop.set).start()
    assert adapter.run_replay(chunks, "x") is False
    pending = adapter.spool.counts()["pending"]
    adapter.close()
    assert pending > 40
    app = create_app({"ROADS_FEED_TOKEN": FEED_TOKEN, "ROADS_DATA_DIR": str(tmp_path / "data")})
    try:
        with serve_app(app) as server:
            url = f"http://127.0.0.1:{server.port}"
            result = replay(url, tmp_path / "spool", "angel_eye_new_shoe.aer")
            assert result.exit_code == 0, result.output
            assert [(r["feed"]["player"], r["feed"]["banker"]) for r in rounds(url, 1)] == NEW_SHOE_ROUNDS
    finally:
        close_app(app)


def test_status_lists_what_the_spool_holds(service, tmp_path):
    assert replay(service, tmp_path / "spool", "angel_eye_faults.aer").exit_code == 0
    result = CliRunner().invoke(main, ["shoe", "status", "--spool", str(tmp_path / "spool")], prog_name="roads")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("table T1: shoe 1, round 6; pending 0, sent ")
    assert lines[1].startswith("  round 1-3: held: the shoe says B;")
    assert lines[2].startswith("  round 1-4: voided: misdeal: card 5 (4C, the banker's) is not dealt")
    everything = CliRunner().invoke(main, ["shoe", "status", "--spool", str(tmp_path / "spool"), "--all"],
                                    prog_name="roads").output
    # the hold went out as a hold (the service holds rounds for the supervisor)
    assert '"type":"hold"' in everything.replace(" ", "") and "degraded" not in everything.replace("degraded 0", "")
