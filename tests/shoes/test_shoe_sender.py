"""What the adapter sends, seen by a stand-in service: the feed extensions (face-down draws,
shoe errors, held rounds) to a service that has them, the same messages again after a 503 or a
dropped connection, and a refused card voiding its round."""

from __future__ import annotations

import random
import threading

from shoes.angel_eye import AngelEyeDecoder
from shoes.pipeline import Adapter
from support.serving import FakeJSONService
from support.shoe_streams import StreamWriter


class FutureService(FakeJSONService):
    """Takes every write (201), after answering the first try of each ``flaky`` path with a 503;
    ``refuse``: path -> (status, error) answered instead."""

    def __init__(self, flaky: bool = False, refuse: dict | None = None, refuse_card: str | None = None) -> None:
        self.posts: list[tuple[str, dict]] = []
        self.tries: dict[str, int] = {}
        self.flaky, self.refuse, self.refuse_card = flaky, refuse or {}, refuse_card
        self.lock = threading.Lock()
        super().__init__()

    def answer(self, method, path, body, headers):
        if method == "GET":
            return 404, {"error": {"code": "unknown_table"}}
        with self.lock:
            key = f"{path} {body}"
            self.tries[key] = self.tries.get(key, 0) + 1
            if self.flaky and self.tries[key] == 1:
                return 503, {"error": {"code": "store_unavailable"}}
            refused = self.refuse.get(path) or (
                (422, "too_many_copies") if self.refuse_card in (body or {}).get("cards", ()) else None)
            if refused:
                status, code = refused
                self.posts.append((path, body))
                return status, {"error": {"status": status, "code": code, "message": f"{code} here", "field": None}}
            self.posts.append((path, body))
        result = {"winner": "B"} if path.endswith("/cards") and body.get("position") == 4 else None
        return 201, {"status": "recorded", "result": result}


def _stream() -> bytes:
    w = StreamWriter(rng=random.Random(5))
    w.start()
    # round 1: QC 4S AC (face down, then shown) 4H; an unreadable card on the way, cleared
    w.card("D", "player", 1, None)
    w.frame("E", bytes([0x81]))
    w.frame("e")
    w.card("I", "player", 1, "QC")
    for side, order, card in (("banker", 1, "4S"), ("player", 2, "AC"), ("banker", 2, "4H")):
        w.card("D", side, order, card)
    w.result("P")  # the cards give Banker with a banker pair: held
    w.frame("P")
    return bytes(w.data)


def _run(service: FutureService, tmp_path) -> Adapter:
    adapter = Adapter(tmp_path / "spool", "T1", service.url, "t", AngelEyeDecoder, expects_result=True)
    assert adapter.run_replay([(0.0, _stream())], "s")
    adapter.close()
    return adapter


BASE = "/api/tables/T1/shoes/1/rounds/1"
EXPECTED = [
    ("/api/tables/T1/state", {"state": "dealing"}),
    (BASE + "/cards", {"position": 1, "sides": ["player"]}),
    ("/api/tables/T1/state", {"shoe_error": {"code": 1, "name": "card_unreadable"}}),
    ("/api/tables/T1/state", {"shoe_error": None}),
    (BASE + "/cards", {"position": 1, "cards": ["QC"]}),
    (BASE + "/cards", {"position": 2, "cards": ["4S"]}),
    (BASE + "/cards", {"position": 3, "cards": ["AC"]}),
    (BASE + "/hold", {"reason": "result_mismatch",
                      "message": "the shoe says P; the cards (player QC AC = 1, banker 4S 4H = 8) give B, banker pair "
                                 "(shoe / cards: winner P / B; banker pair False / True)",
                      "shoe_result": {"winner": "P", "banker_six": False, "player_pair": False, "banker_pair": False},
                      "player": ["QC", "AC"], "banker": ["4S", "4H"]}),
]


def test_a_service_with_the_feed_extensions_gets_face_down_draws_shoe_errors_and_the_hold(tmp_path):
    service = FutureService()
    try:
        _run(service, tmp_path)
        assert service.posts == EXPECTED
    finally:
        service.close()


def test_every_message_is_sent_again_after_a_503_and_taken_once(tmp_path):
    service = FutureService(flaky=True)
    try:
        _run(service, tmp_path)
        assert service.posts == EXPECTED
        assert all(n == 2 for n in service.tries.values())
    finally:
        service.close()


def test_a_refused_card_voids_its_round_and_skips_the_rest_of_it(tmp_path):
    service = FutureService(refuse={BASE + "/cards": (422, "too_many_copies")})
    try:
        adapter = _run(service, tmp_path)
        # card 1 refused: nothing of the round is at the service, the rest of the round is skipped
        assert [p for p, _ in service.posts] == ["/api/tables/T1/state", BASE + "/cards", "/api/tables/T1/state",
                                                 "/api/tables/T1/state", BASE + "/cards"]
        counts = adapter.spool.counts()
    finally:
        service.close()
    assert (counts["refused"], counts["skipped"]) == (2, 3)


def test_a_wrong_token_refuses_nothing_the_spool_keeps_every_message(tmp_path):
    service = FutureService(refuse={p: (401, "unauthorized") for p in
                                    ("/api/tables/T1/state", BASE + "/cards", BASE + "/hold")})
    try:
        adapter = Adapter(tmp_path / "spool", "T1", service.url, "t", AngelEyeDecoder, expects_result=True)
        threading.Timer(1.5, adapter.stop.set).start()
        assert adapter.run_replay([(0.0, _stream())], "s") is False
        counts = adapter.spool.counts()
        adapter.close()
    finally:
        service.close()
    assert (counts["refused"], counts["skipped"], counts["sent"], counts["pending"]) == (0, 0, 0, len(EXPECTED))


def test_messages_sent_long_ago_are_pruned_the_others_kept(tmp_path):
    from shoes.spool import Spool

    spool = Spool(tmp_path / "spool", "T1")
    spool.commit({"offset": 0}, [{"type": "state", "table": "T1", "state": "dealing"}] * 3)
    first, second, _ = [r[0] for r in spool.rows()]
    spool.mark(first, "sent", {})
    spool.mark(second, "refused", {})
    spool._db().execute("UPDATE outbox SET sent_at = sent_at - 86400 * 15")
    assert spool.prune(14 * 86400) == 1
    assert [s for _, _, s, _, _ in spool.rows()] == ["refused", "pending"]
    spool.close()


def test_a_refused_third_card_voids_the_round_in_its_place_and_the_summary_says_so(tmp_path):
    service = FutureService(refuse_card="AC")
    try:
        adapter = _run(service, tmp_path)
        summary = adapter.summary()
        counts = adapter.spool.counts()
    finally:
        service.close()
    assert [p for p, _ in service.posts][-2:] == [BASE + "/cards", BASE + "/void"]
    assert service.posts[-1][1] == {"reason": "the feed refused card 3: too_many_copies here"}
    assert (counts["refused_rounds"], counts["skipped"]) == (1, 1)   # the hold after it is skipped
    assert "round 1-1: voided: refused (HTTP 422 too_many_copies: too_many_copies here); voided instead" in summary
