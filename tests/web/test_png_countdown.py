"""A betting countdown on the PNG boards and lobby (web/http/png.py): an image cannot tick and a
signage player shows it until its next refresh, so it says the venue time betting closes, then
"Bets closed" once the service's clock has passed it (docs/frontend.md, "Countdowns on images").

The service's clock is fixed by the test (``service.clock``), the venue zone is Asia/Bangkok
(UTC+7, no daylight saving): betting set at 12:00:00 UTC with 15 s left closes at 12:00:15 UTC,
19:00:15 in Bangkok.
"""

from __future__ import annotations

import pytest

from support.feed import close_app, make_app

START = 1_718_452_800.0   # 2024-06-15T12:00:00Z
ROUND_B = {"player": ["4S", "KD", "9H"], "banker": ["7C", "JD"]}  # Banker 7-3 (tableau: player draws on 4)
AUTH = {"Authorization": "Bearer test-token"}


class Clock:
    def __init__(self, t: float) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def betting(tmp_path):
    """An app whose service clock the test moves; table T1 with one round, betting for 15 s from START."""
    from web.service import get_service

    app = make_app(tmp_path / "data", ROADS_VENUE_TZ="Asia/Bangkok", ROADS_STALE_S=86_400)
    clock = Clock(START)
    get_service(app).clock = clock
    client = app.test_client()
    assert client.post("/api/tables/T1/rounds", json={"shoe": 1, "round": 1, **ROUND_B}, headers=AUTH).status_code == 201
    r = client.post("/api/tables/T1/state", json={"state": "betting", "seconds_left": 15}, headers=AUTH)
    assert r.status_code in (200, 201), r.get_data(as_text=True)
    yield app, client, clock
    close_app(app)


def painted_words(monkeypatch, client, url):
    """``(response, every text item of the model the PNG was painted from)``."""
    from web.render import paint_png

    seen = []
    real = paint_png.paint
    monkeypatch.setattr(paint_png, "paint", lambda model, **kw: seen.append(model) or real(model, **kw))
    resp = client.get(url)
    assert resp.status_code == 200, resp.get_data(as_text=True)

    def texts(m):
        out = [i["t"] for p in m["panels"] for i in p["items"] if i.get("p") == "t"]
        for tile in m.get("tiles", []):
            out += texts(tile["model"])
        return out

    return resp, (texts(seen[-1]) if seen else None)


@pytest.mark.parametrize("url", ["/tables/T1/board.png", "/lobby.png?tables=T1"])
def test_an_image_says_when_betting_closes_and_then_that_it_closed(betting, monkeypatch, url):
    app, client, clock = betting
    resp, words = painted_words(monkeypatch, client, url)
    assert "Bets close at 19:00:15" in words
    assert not any("Bets close in" in w for w in words)       # no frozen ticking number
    assert resp.headers["Cache-Control"] == "public, max-age=2"  # ROADS_PNG_MAX_AGE_S, 15 s ahead
    etag = resp.headers["ETag"]

    clock.t = START + 7                                         # the same image for 7 s: it still says the truth
    again, words = painted_words(monkeypatch, client, url)
    assert words is None and again.headers["ETag"] == etag      # served from the cache, not drawn again

    clock.t = START + 14.2                                      # 0.8 s before closing
    near, _ = painted_words(monkeypatch, client, url)
    assert near.headers["ETag"] == etag and near.headers["Cache-Control"] == "public, max-age=1"

    clock.t = START + 15                                        # the close time reached, no new state yet
    closed, words = painted_words(monkeypatch, client, url)
    assert closed.headers["ETag"] != etag
    assert "Bets closed" in words and not any("19:00:15" in w for w in words)
    assert closed.headers["Cache-Control"] == "public, max-age=2"
    assert client.get(url, headers={"If-None-Match": etag}).status_code == 200   # the old image is not revalidated


def test_the_page_model_keeps_its_ticking_countdown(betting):
    app, client, clock = betting
    model = client.get("/tables/T1/model.json").get_json()["models"]["landscape"]
    cd = [i for p in model["panels"] for i in p["items"] if i.get("cd")]
    assert [(i["cd"], i["fmt"]) for i in cd] == [(START + 15, "Bets close in {s} s")]


@pytest.mark.parametrize(("lang", "words"), [
    ("zh", "19:00:15 停止下注"), ("th", "ปิดรับเดิมพันเวลา 19:00:15"),
    ("my", "19:00:15 တွင် လောင်းကြေးပိတ်မည်"), ("lo", "ປິດຮັບເດີມພັນເວລາ 19:00:15"),
])
def test_the_close_time_in_every_language(betting, monkeypatch, lang, words):
    _, client, _ = betting
    _, said = painted_words(monkeypatch, client, f"/lobby.png?tables=T1&lang={lang}")
    assert words in said


@pytest.mark.parametrize("closes_at", ["9999-12-31T23:59:59Z", "0001-01-01T00:00:01Z"])
def test_a_close_time_at_the_edge_of_the_calendar_still_draws(tmp_path, closes_at):
    # In UTC+14 (Kiritimati) 9999-12-31T23:59:59Z is in year 10000: /tables/T1/board.png and
    # /lobby.png were a 500 (OverflowError) while the page and the API answered.
    app = make_app(tmp_path / "data", ROADS_VENUE_TZ="Pacific/Kiritimati")
    try:
        client = app.test_client()
        r = client.post("/api/tables/T1/state", json={"state": "betting", "closes_at": closes_at}, headers=AUTH)
        assert r.status_code in (200, 201), r.get_data(as_text=True)
        for url in ("/tables/T1/board.png", "/lobby.png", "/embed/T1", "/tables/T1", "/lobby/model.json"):
            assert client.get(url).status_code == 200, url
    finally:
        close_app(app)
