"""Full frames over HTTP (web/http/full_frames.py): what a page on the production tier fetches after
a gap. The frame is the topic's current snapshot frame, named by the page's options so that a
process that never served the page answers it too; bad options and unknown tables are 4xx in
the one error shape and change nothing.

Expected values are worked by hand from the cards (docs/domain.md section 1): round 1 is
Player 4-K-9 (3) against Banker 7-J (7), a Banker win; round 2 is Player 9-K (natural 9)
against Banker 5-2 (7).
"""

from __future__ import annotations

import time

import pytest

from web.http.full_frames import CACHE_CONTROL

ROUND_B = {"player": ["4S", "KD", "9H"], "banker": ["7C", "JD"]}
ROUND_P_NATURAL = {"player": ["9C", "KH"], "banker": ["5D", "2S"]}
JSON = {"Accept": "application/json"}


def post(client, auth, number, cards):
    resp = client.post("/api/tables/T1/rounds", json={"shoe": 1, "round": number, **cards}, headers=auth)
    assert resp.status_code == 201, resp.get_data(as_text=True)
    return resp.get_json()["version"]


def test_a_tables_frame_is_its_current_snapshot_frame(client, auth):
    post(client, auth, 1, ROUND_B)
    version = post(client, auth, 2, ROUND_P_NATURAL)
    resp = client.get(f"/frames/tables/T1?since={version}")
    assert resp.status_code == 200 and resp.headers["Cache-Control"] == CACHE_CONTROL == "public, max-age=1"
    frame = resp.get_json()
    assert (frame["type"], frame["topic"], frame["version"]) == ("snapshot", "table:T1", 2)
    beads = [(c["round"], c["winner"], c["player_total"], c["banker_total"], c["natural"])
             for c in frame["data"]["bead_plate"]]
    assert beads == [(1, "B", 3, 7, False), (2, "P", 9, 7, True)]
    assert frame["data"] == client.get("/api/tables/T1").get_json()


def test_the_lobby_frame_lists_every_table(client, auth):
    post(client, auth, 1, ROUND_B)
    frame = client.get("/frames/lobby").get_json()
    assert (frame["type"], frame["topic"], frame["version"]) == ("snapshot", "lobby", 1)
    assert [(t["id"], t["round"], t["last"]["winner"]) for t in frame["data"]] == [("T1", 1, "B")]


def test_a_model_frame_is_named_by_the_pages_options_so_another_process_answers_it(app, client, auth, app_factory):
    post(client, auth, 1, ROUND_B)
    post(client, auth, 2, ROUND_P_NATURAL)
    page_doc = client.get("/tables/T1/model.json?orient=portrait&lang=th").get_json()
    # a second service on the same store, which never served that page (no such topic registered)
    other = app_factory("data").test_client()
    resp = other.get("/frames/models/tables/T1?orient=portrait&lang=th&since=2")
    assert resp.status_code == 200 and resp.headers["Cache-Control"] == CACHE_CONTROL
    frame = resp.get_json()
    assert frame["type"] == "snapshot" and frame["version"] == 2 and frame["topic"].startswith("model:")
    assert list(frame["data"]["models"]) == ["portrait"]
    for doc in (frame["data"], page_doc):  # the server's clock when each was built (countdowns)
        doc["models"]["portrait"].pop("now")
    assert frame["data"] == page_doc
    mine = client.get("/frames/models/tables/T1?orient=portrait&lang=th").get_json()
    assert mine["topic"] == frame["topic"]  # the same options: the same topic in every process
    assert client.get("/frames/models/tables/T1?orient=landscape&lang=th").get_json()["topic"] != frame["topic"]


@pytest.mark.parametrize("path, status, code, field", [
    ("/frames/tables/NOPE", 404, "unknown_table", "table_id"),
    ("/frames/models/tables/NOPE?orient=landscape", 404, "unknown_table", "table_id"),
    ("/frames/models/embed/NOPE", 404, "unknown_table", "table_id"),
    ("/frames/models/screens/nope", 404, "unknown_screen", "screen"),
    ("/frames/tables/T1?since=-1", 400, "bad_parameter", "since"),
    ("/frames/tables/T1?since=x", 400, "bad_parameter", "since"),
    ("/frames/lobby?since=1e3", 400, "bad_parameter", "since"),
    ("/frames/models/lobby?since=%EF%BC%91", 400, "bad_parameter", "since"),  # a full-width digit
    ("/frames/models/tables/T1?orient=up", 400, "bad_parameter", "orient"),
    ("/frames/models/embed/T1?w=9", 400, "bad_parameter", "w"),
])
def test_bad_frame_requests_are_4xx_in_the_error_shape_and_change_nothing(client, auth, path, status, code, field):
    post(client, auth, 1, ROUND_B)
    before = [client.get(p).get_data() for p in ("/api/tables", "/api/tables/T1", "/frames/lobby")]
    resp = client.get(path, headers=JSON)
    assert resp.status_code == status, resp.get_data(as_text=True)
    error = resp.get_json()["error"]
    assert (error["status"], error["code"], error["field"]) == (status, code, field)
    assert [client.get(p).get_data() for p in ("/api/tables", "/api/tables/T1", "/frames/lobby")] == before


def test_the_board_models_last_result_time_is_its_own_shoes(app, client, auth):
    """The board model's ``last_at`` (and the stale flag behind the "Offline since" band) comes
    from the shown shoe's last round, not another shoe's: shoe 1 ended at 12:00:00 UTC, shoe 2's
    first round came at 12:05:00."""
    from web.service import get_service

    times = iter([1_781_784_000.0, 1_781_784_300.0])  # 2026-06-18 12:00:00 and 12:05:00 UTC
    get_service(app).clock = lambda: next(times)
    post(client, auth, 1, ROUND_B)
    resp = client.post("/api/tables/T1/rounds", json={"shoe": 2, "round": 1, **ROUND_P_NATURAL}, headers=auth)
    assert resp.status_code == 201, resp.get_data(as_text=True)
    frame = client.get("/frames/models/tables/T1?orient=landscape").get_json()
    assert frame["data"]["models"]["landscape"]["last_at"] == "2026-06-18T12:05:00.000Z"
    past = client.get("/tables/T1/model.json?orient=landscape&shoe=1").get_json()
    assert past["models"]["landscape"]["last_at"] == "2026-06-18T12:00:00.000Z"


def test_on_the_nchan_tier_a_busy_lobbys_frame_is_the_version_its_channel_holds(app_factory):
    """The lobby changes with every table's write but its channel is posted at most every
    web.push.nchan.MIN_POST_INTERVAL_S: the frame a page resyncs from must be the version the
    channel's next delta builds on (what was last posted), not the newest one, which the
    publisher may skip (a page holding a skipped version would find every delta a gap)."""
    from support.feed import AUTH, dealt_rounds
    from support.nchan import publisher_stand_in

    with publisher_stand_in() as (url, posts):
        client = app_factory("pub", ROADS_NCHAN_PUBLISH_URL=url).test_client()
        deal = dealt_rounds(12, seed=8)
        started = time.monotonic()
        for number, (player, banker) in enumerate(deal, start=1):  # 24 lobby versions in a burst
            for table in ("A1", "A2"):
                resp = client.post(f"/api/tables/{table}/rounds", headers=AUTH,
                                   json={"shoe": 1, "round": number, "player": player, "banker": banker})
                assert resp.status_code == 201
        frame = client.get("/frames/lobby").get_json()
        burst_s = time.monotonic() - started
        posted = [f for ch, f, _ in posts if ch == "lobby"]
        assert posted, "the publisher posted the lobby"
        assert "posted" not in frame  # this process publishes the lobby channel
        assert frame["version"] == posted[-1]["version"]  # what the channel holds, whatever is newer here
        if burst_s < 0.15:  # (the first post went at version 1; the next may not go before 0.2 s)
            assert frame["version"] < 24
        deadline = time.monotonic() + 5
        while not any(ch == "lobby" and f["version"] == 24 for ch, f, _ in posts) and time.monotonic() < deadline:
            time.sleep(0.05)  # the publisher sends the burst's newest within 0.2 s
        following = [f for ch, f, _ in posts if ch == "lobby" and f["version"] > frame["version"]]
        # the next frame on the channel builds on the frame's version (or is whole: the skipped
        # versions made a delta longer than the document)
        assert following and following[-1]["version"] == 24
        assert following[0]["type"] == "snapshot" or following[0]["base"] == frame["version"]
