"""One-card shoes: a serial line scanner (one card code a line) and the HTTP receiver
(``{"card": "H10"}``) get their deal positions from the tableau; a retried HTTP delivery with
its key is one card; both land in a running service as the rounds their cards make."""

from __future__ import annotations

import threading

import pytest
import requests
from click.testing import CliRunner

from shoes.line_scanner import LineDecoder, parse_card_code
from shoes.one_card_http import CardReceiver
from shoes.pipeline import Adapter
from support.feed import FEED_TOKEN, close_app
from support.serving import serve_app
from web import create_app
from web.cli import main


@pytest.fixture
def service(tmp_path):
    app = create_app({"ROADS_FEED_TOKEN": FEED_TOKEN, "ROADS_DATA_DIR": str(tmp_path / "data")})
    try:
        with serve_app(app) as server:
            yield f"http://127.0.0.1:{server.port}"
    finally:
        close_app(app)


def rounds(url: str, shoe: int = 1) -> list[tuple[list[str], list[str], str]]:
    data = requests.get(f"{url}/api/tables/T1/shoes/{shoe}/rounds", timeout=5).json()["rounds"]
    return [(r["feed"]["player"], r["feed"]["banker"], r["result"]["winner"]) for r in data]


@pytest.mark.parametrize("code, card", [("H10", "TH"), ("10h", "TH"), ("TH", "TH"), ("SA", "AS"), ("as", "AS"),
                                        (" dk ", "KD"), ("C2", "2C")])
def test_card_codes_in_either_order(code, card):
    assert parse_card_code(code) == card


def test_lines_split_anywhere_and_bad_lines_are_counted():
    d = LineDecoder()
    events = d.feed(b"H1") + d.feed(b"0\r\nXX\nNEWSH") + d.feed(b"OE\r") + d.flush()
    assert [type(e).__name__ for e in events] == ["Drawn", "NewShoe"]
    assert d.counters() == {"cards": 1, "bad_lines": 1, "new_shoes": 1}


def test_a_line_scanner_recording_lands_as_its_rounds(service, tmp_path):
    # new shoe: 2D burns 2 (5S 6S); round 1: player 2S 3H = 5 draws 9C -> 4, banker KD 5C = 5 stands on 9:
    # Banker 5-4; round 2: player 8H AC = 9, a natural, banker 7D 7S = 4: Player
    path = tmp_path / "scan.txt"
    path.write_bytes(b"NEWSHOE\r\nD2\r\nS5\r\nS6\r\nS2\r\nDK\r\nH3\r\nC5\r\nC9\r\nbad code\r\nH8\r\nD7\r\nCA\r\nS7\r\n")
    result = CliRunner().invoke(main, ["shoe", "line-scanner", "--table", "T1", "--url", service, "--token",
                                       FEED_TOKEN, "--replay", str(path), "--spool", str(tmp_path / "spool")],
                                prog_name="roads", catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert result.output.strip() == ("cards 12, bad lines 1, new shoes 1, rounds posted 2, rounds held back 0, "
                                     "messages refused 0, skipped 0, degraded 0, pending 0")
    assert rounds(service) == [(["2S", "3H", "9C"], ["KD", "5C"], "B"), (["8H", "AC"], ["7D", "7S"], "P")]
    shoes = requests.get(f"{service}/api/tables/T1/shoes", timeout=5).json()["shoes"]
    assert shoes[0]["burn"] == ["2D", "5S", "6S"]


def test_the_http_receiver_takes_each_card_once_even_when_a_delivery_is_retried(service, tmp_path):
    adapter = Adapter(tmp_path / "spool", "T1", service, FEED_TOKEN, None, expects_result=False)
    receiver = CardReceiver(adapter, "127.0.0.1", 0)
    serving = threading.Thread(target=receiver.serve, args=(adapter.stop,), daemon=True)
    serving.start()
    adapter.begin()
    base = f"http://127.0.0.1:{receiver.port}"
    try:
        for _ in range(100):
            if adapter.pipeline.ready:
                break
            threading.Event().wait(0.05)
        # player 4S KD = 4 draws 9H -> 3; banker 7C JD = 7 stands: Banker (docs/api.md's example)
        cards = ["S4", "C7", "DK", "DJ", "H9"]
        for k, card in enumerate(cards, 1):
            first = requests.post(f"{base}/card", json={"card": card, "id": k}, timeout=5)
            assert first.json()["status"] == "spooled"
            if k in (2, 5):  # the shoe lost the answer and sends again
                again = requests.post(f"{base}/card", json={"card": card, "id": k}, timeout=5)
                assert (again.status_code, again.json()["status"]) == (200, "unchanged")
        # the same card again under a header key: a second copy of the same card is a new card
        assert requests.post(f"{base}/card", json={"card": "S4"}, headers={"Idempotency-Key": "r2-1"},
                             timeout=5).json()["status"] == "spooled"
        assert requests.post(f"{base}/card", json={"card": "S4"}, headers={"Idempotency-Key": "r2-1"},
                             timeout=5).json()["status"] == "unchanged"
        bad = requests.post(f"{base}/card", json={"card": "Z9"}, timeout=5)
        assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_card"
        for _ in range(100):
            if adapter.spool.next_pending() is None:
                break
            threading.Event().wait(0.05)
        assert rounds(service) == [(["4S", "KD", "9H"], ["7C", "JD"], "B")]
        ip = requests.get(f"{service}/api/tables/T1", timeout=5).json()["in_progress"]
        assert (ip["round"], ip["player"], ip["banker"]) == (2, ["4S"], [])
        status = requests.get(f"{base}/status", timeout=5).json()
        assert status["recorded"] == 1 and status["pending"] == 0
    finally:
        adapter.close()
