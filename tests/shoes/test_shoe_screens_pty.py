"""What an Angel Eye shoe reports reaches the screens (issue 24, docs/shoes.md): the adapter on a
pseudo-terminal at 4800 baud posts into a running ``roads serve`` (a separate process), and the
table's snapshot and page model show, as the bytes arrive: cards drawn face down as card backs
("Banker's 1st card drawn"), the shoe's error until the shoe clears it, and a round whose shoe
result disagrees with its cards held for the supervisor, out of the roads, until a correction.

Rounds worked by hand (docs/domain.md section 1): round 1 player 4S 4D = 8 natural against
banker 3C 2H = 5 -> Player, player pair; round 2 player 2C 3D = 5 draws 4S -> 9, banker 5S 2C =
7 stands -> Player, sent by the shoe as a Banker win (held); round 3 player KS 7H = 7 stands,
banker 6D KC = 6 stands (player stood) -> Player.
"""

from __future__ import annotations

import time

import requests

from support.serving import ServeProcess
from support.shoe_pty import AdapterProcess, ShoeLine
from support.shoe_streams import StreamWriter

from support.feed import AUTH as TOKEN  # noqa: E402


def words(model):
    out = [i["t"] for p in model["panels"] for i in p["items"] if i.get("p") == "t"]
    return out + [w for t in model.get("tiles", []) for w in words(t["model"])]


def backs(model):
    return sum(1 for p in model["panels"] for i in p["items"] if i.get("p") == "r" and i.get("c") == "player")


def wait_for(url: str, test, timeout: float = 20):
    """The snapshot once ``test(snapshot)`` holds (polling), else the last one."""
    deadline = time.monotonic() + timeout
    snap: dict = {}
    while time.monotonic() < deadline:
        try:
            snap = requests.get(f"{url}/api/tables/T1", timeout=5).json()
            if test(snap):
                return snap
        except (requests.RequestException, ValueError):
            pass
        time.sleep(0.1)
    raise AssertionError(f"the screens never showed it: {snap}")


def model(url: str, lang: str = "en") -> dict:
    return requests.get(f"{url}/tables/T1/model.json?lang={lang}", timeout=5).json()["models"]["landscape"]


def test_face_down_draws_shoe_errors_and_a_held_round_reach_the_screens(tmp_path):
    server = ServeProcess(tmp_path / "data")
    line = ShoeLine(link=tmp_path / "shoe-T1")
    adapter = AdapterProcess(line.device, f"http://{server.base}", tmp_path / "spool", tmp_path / "adapter.log")
    url = f"http://{server.base}"

    def play(w: StreamWriter, start: int) -> int:
        line.done.clear()
        line.play(bytes(w.data[start:]))
        assert line.done.wait(30)
        return len(w.data)

    try:
        adapter.wait_open()
        w = StreamWriter()
        w.start()
        w.new_shoe("2D", ["4C", "KS"])
        w.frame("P")
        w.card("D", "player", 1, None)
        w.card("D", "banker", 1, None)
        sent = play(w, 0)
        snap = wait_for(url, lambda s: len(s.get("in_progress", {}).get("drawn", ())) == 2)
        assert snap["in_progress"]["cards"] == [{"side": "player", "card": None}, {"side": "banker", "card": None}]
        m = model(url)
        assert backs(m) == 2 and "Banker's 1st card drawn" in words(m)
        assert "庄第1张牌已发出" in words(model(url, "zh"))
        # the shoe cannot read a card: the error shows until the shoe clears it
        w.frame("E", bytes([0x80 | 1]))
        sent = play(w, sent)
        snap = wait_for(url, lambda s: s.get("state", {}).get("shoe_error") is not None)
        assert snap["state"]["shoe_error"] == {"code": 1, "name": "card_unreadable"}
        assert "Shoe: card cannot be read" in words(model(url))
        assert "ขอนไพ่: อ่านไพ่ไม่ได้" in words(model(url, "th"))
        w.frame("e")
        for side, order, card in (("player", 1, "4S"), ("banker", 1, "3C")):
            w.card("I", side, order, card)
        w.card("D", "player", 2, "4D")
        w.card("D", "banker", 2, "2H")
        w.result("P", player_pair=True)
        w.frame("P")
        sent = play(w, sent)
        snap = wait_for(url, lambda s: s["round"] == 1 and "shoe_error" not in s.get("state", {}))
        assert [(b["round"], b["winner"], b["player_pair"]) for b in snap["bead_plate"]] == [(1, "P", True)]
        assert "Shoe: card cannot be read" not in words(model(url))
        # round 2: the shoe says Banker; the cards give Player 9 to 7: held, never recorded wrong
        w.round(["2C", "3D", "4S"], ["5S", "2C"], face_down=False, wrong_result="B")
        sent = play(w, sent)
        snap = wait_for(url, lambda s: "alarm" in s)
        assert (snap["alarm"]["round"], snap["alarm"]["reason"]) == (2, "result_mismatch")
        assert "Round 2 held for the supervisor" in words(model(url))
        # the next round goes on; the supervisor's correction puts round 2 in its place
        w.round(["KS", "7H"], ["6D", "KC"], face_down=True)
        play(w, sent)
        snap = wait_for(url, lambda s: s["round"] == 3 and "in_progress" not in s)
        assert [b["round"] for b in snap["bead_plate"]] == [1, 3] and snap["alarm"]["round"] == 2
        r = requests.put(f"{url}/api/tables/T1/shoes/1/rounds/2", headers=TOKEN, timeout=5,
                         json={"player": ["2C", "3D", "4S"], "banker": ["5S", "2C"], "reason": "supervisor"})
        assert r.status_code == 201, r.text
        snap = wait_for(url, lambda s: "alarm" not in s)
        assert [(b["round"], b["winner"]) for b in snap["bead_plate"]] == [(1, "P"), (2, "P"), (3, "P")]
        held = requests.get(f"{url}/api/tables/T1/shoes/1/rounds", timeout=5).json()["rounds"][1]
        assert held["held"]["shoe_result"]["winner"] == "B" and held["held"]["resolved"] is True
        assert adapter.stop() == 0
        log = (tmp_path / "adapter.log").read_text()
        assert "held for the supervisor" in log and "degraded 0, pending 0" in log and "degraded:" not in log
    finally:
        adapter.kill()
        line.close()
        server.kill()
