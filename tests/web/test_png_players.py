"""PNG boards for image-only players (docs/signage.md): Last-Modified and If-Modified-Since,
max-age no longer than the next change the service foresees, and an image (not an error body)
for a client that asks for images when the board cannot be drawn."""

from __future__ import annotations

import io
import time
from email.utils import formatdate, parsedate_to_datetime

import pytest
from PIL import Image

from support.feed import AUTH, dealt_rounds
from web.http import png_freshness

IMAGE = {"Accept": "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"}  # Chromium's <img>


def post(client, table, count, start=1, seed=0):
    for i, (p, b) in enumerate(dealt_rounds(count, seed=seed), start):
        r = client.post(f"/api/tables/{table}/rounds", json={"shoe": 1, "round": i, "player": p, "banker": b},
                        headers=AUTH)
        assert r.status_code == 201, r.get_json()


def stamp(resp) -> int:
    return int(parsedate_to_datetime(resp.headers["Last-Modified"]).timestamp())


def test_last_modified_answers_if_modified_since_with_304_and_grows_with_each_drawing(client):
    post(client, "T1", 3)
    first = client.get("/tables/T1/board.png?width=640&height=360")
    assert first.status_code == 200 and 0 <= time.time() - stamp(first) <= 5
    lm = first.headers["Last-Modified"]
    again = client.get("/tables/T1/board.png?width=640&height=360", headers={"If-Modified-Since": lm})
    assert again.status_code == 304 and again.data == b"" and again.headers["ETag"] == first.headers["ETag"]
    earlier = formatdate(stamp(first) - 1, usegmt=True)
    assert client.get("/tables/T1/board.png?width=640&height=360",
                      headers={"If-Modified-Since": earlier}).status_code == 200
    post(client, "T1", 1, start=4, seed=9)                       # a new drawing within the same second
    newer = client.get("/tables/T1/board.png?width=640&height=360", headers={"If-Modified-Since": lm})
    assert newer.status_code == 200 and stamp(newer) == stamp(first) + 1 or stamp(newer) > stamp(first)
    assert newer.headers["ETag"] != first.headers["ETag"]
    # If-None-Match decides when both are sent (RFC 9110 13.2.2): an old ETag with a current date is a 200
    both = client.get("/tables/T1/board.png?width=640&height=360",
                      headers={"If-None-Match": first.headers["ETag"], "If-Modified-Since": newer.headers["Last-Modified"]})
    assert both.status_code == 200


def test_dates_of_one_image_only_grow_and_other_images_keep_theirs():
    f = png_freshness.Freshness()
    assert f.last_modified("a", "e1", now=100.7) == 100
    assert f.last_modified("a", "e1", now=140.0) == 100          # the same drawing keeps its date
    assert f.last_modified("a", "e2", now=100.9) == 101          # a new drawing in the same second: one later
    assert f.last_modified("a", "e3", now=100.95) == 102
    assert f.last_modified("b", "e9", now=100.95) == 100
    assert png_freshness.seconds_until((None, 105.2, 99.0), 100.0) == 6
    assert png_freshness.seconds_until((None, 99.0), 100.0) is None


def test_max_age_stops_when_the_feed_turns_stale(app_factory):
    app = app_factory(ROADS_STALE_S=60, ROADS_PNG_MAX_AGE_S=600)
    client = app.test_client()
    post(client, "T1", 2)
    resp = client.get("/tables/T1/board.png?width=640&height=360")
    age = int(resp.headers["Cache-Control"].split("max-age=")[1])
    assert 57 <= age <= 60, resp.headers["Cache-Control"]         # the image says "No new result since" then
    past = client.get("/tables/T1/shoes/1/board.png?width=640&height=360")
    assert "max-age=60" in past.headers["Cache-Control"]           # ROADS_PNG_PAST_MAX_AGE_S, not cut for a past image


def _image(resp) -> Image.Image:
    assert resp.mimetype == "image/png" and resp.data[:8] == b"\x89PNG\r\n\x1a\n"
    return Image.open(io.BytesIO(resp.data)).convert("RGB")


def _ink_rows(img: Image.Image) -> int:
    """Rows of the image with something drawn on the background colour of its corner."""
    bg = img.getpixel((0, 0))
    return sum(1 for y in range(img.height) if any(img.getpixel((x, y)) != bg for x in range(0, img.width, 4)))


@pytest.mark.parametrize("path, status, code, size", [
    ("/tables/T9/board.png?width=800&height=450", 404, "unknown_table", (800, 450)),
    ("/tables/T1/shoes/7/board.png", 404, "unknown_shoe", (1920, 1080)),
    ("/tables/T1/roads/crystal_ball.png", 404, "unknown_road", (1200, 300)),
    ("/tables/T1/board.png?width=5&height=450", 400, "bad_parameter", (1920, 1080)),
    ("/screens/nowhere.png", 404, "unknown_screen", (1920, 1080)),
])
def test_an_image_client_gets_an_image_of_the_error(client, path, status, code, size):
    post(client, "T1", 2)
    resp = client.get(path, headers=IMAGE)
    assert resp.status_code == status and resp.headers["X-Roads-Error"] == code
    img = _image(resp)
    assert img.size == size and _ink_rows(img) > size[1] // 10
    assert resp.headers["Cache-Control"] == "public, max-age=10"
    json_answer = client.get(path, headers={"Accept": "application/json"})  # API clients keep the one shape
    assert json_answer.status_code == status and json_answer.json["error"]["code"] == code


def test_the_error_image_speaks_the_screens_language(client):
    from flask import request  # noqa: F401
    from web.http import errors, png_notice

    with client.application.test_request_context("/tables/T9/board.png?lang=zh-HK"):
        from flask import request as req
        req.view_args = {"table_id": "T9"}
        lines = png_notice.notice_lines(errors.NotFound("no", code="unknown_table"), "zh-Hant")
    assert lines[0] == ("沒有賭枱 T9。", "title", "zh-Hant")
    assert lines[-1] == ("404 · /tables/T9/board.png?lang=zh-HK", "muted", "zh-Hant")


def test_a_store_that_does_not_answer_gives_a_waiting_image(client, monkeypatch):
    from web.service import get_service
    from web.stores import StoreUnavailable

    post(client, "T1", 1)
    service = get_service(client.application)

    def down(*args, **kwargs):
        raise StoreUnavailable("redis is starting")

    monkeypatch.setattr(service.read, "snapshot", down)
    resp = client.get("/tables/T1/board.png?width=960&height=540&lang=vi", headers=IMAGE)
    assert resp.status_code == 503 and resp.headers["Retry-After"] == "5" and resp.headers["Cache-Control"] == "no-cache"
    assert _image(resp).size == (960, 540)
    assert client.get("/tables/T1/board.png").status_code == 503   # JSON for the others, as before
