"""Integrity flags on the floor screens and across a restart (web.integrity, web.http.integrity_api,
web.render.tiles.integrity_band): a refused ninth ace of spades in an 8-deck shoe marks its table's
lobby entry, the lobby document (published live, version up), the lobby screen's tile and
header and the lobby PNG; a table without flags has none; the flag survives a restart on the
same data directory."""

from __future__ import annotations

import io
import json

import pytest
from PIL import Image

from support.feed import Feed, close_app, dealt_rounds, make_app
from web.push import topics
from web.service import get_service


def nine_aces(feed: Feed, table: str = "T9"):
    """Four rounds of two aces of spades each (8: all the shoe holds), then a ninth: refused."""
    for i in range(4):
        assert feed.round(1, i + 1, ["AS", "AS"], ["9C", "KD"], table=table).status_code == 201
    return feed.round(1, 5, ["AS", "9H"], ["9C", "KD"], table=table)


@pytest.fixture
def app(tmp_path):
    app = make_app(tmp_path / "data")
    feed = Feed(app.test_client())
    for i, (p, b) in enumerate(dealt_rounds(3, seed=7)):
        assert feed.round(1, i + 1, p, b, table="T1").status_code == 201
    yield app
    close_app(app)


def entries(client):
    return {t["id"]: t for t in client.get("/api/tables").json["tables"]}


def tiles(client):
    model = client.get("/lobby/model.json").json
    page = model["pages"]["landscape"][0] if "pages" in model else model["models"]["landscape"]
    return page, {t["id"]: t["model"] for t in page["tiles"]}


def banners(tile):
    return [" ".join(i["t"] for i in p["items"]) for p in tile["panels"] if p.get("flag") == "integrity"]


def test_a_refused_impossible_write_marks_the_lobby_tile_live(app, monkeypatch):
    client = app.test_client()
    hub = get_service(app).hub
    told = []
    monkeypatch.setattr(get_service(app).page_models, "changed", told.append)
    assert "integrity" not in entries(client)["T1"]
    feed = Feed(client)
    for i in range(4):  # two aces of spades a round: the 8 the shoe holds
        assert feed.round(1, i + 1, ["AS", "AS"], ["9C", "KD"], table="T9").status_code == 201
    before = hub.latest(topics.LOBBY).version
    told.clear()
    r = feed.round(1, 5, ["AS", "9H"], ["9C", "KD"], table="T9")
    assert (r.status_code, r.json["error"]["code"]) == (422, "too_many_copies")
    # the lobby topic's document changed (screens update without a reload), version up
    msg = hub.latest(topics.LOBBY)
    assert msg.version > before
    assert told == [topics.LOBBY]  # the lobby screens' page models are rebuilt
    doc = {t["id"]: t for t in msg.document}
    assert doc["T9"]["integrity"] == 1 and "integrity" not in doc["T1"]
    assert entries(client)["T9"]["integrity"] == 1 and "integrity" not in entries(client)["T1"]
    page, by_id = tiles(client)
    assert banners(by_id["T9"]) == ["Integrity flag"] and by_id["T9"]["integrity"] == 1
    assert banners(by_id["T1"]) == [] and "integrity" not in by_id["T1"]
    title = [i["t"] for p in page["panels"] if p["id"] == "title" for i in p["items"]]
    assert "Flagged tables: 1" in title
    # a second flag: the count
    assert Feed(client).round(1, 5, ["AS", "8H"], ["9C", "KD"], table="T9").status_code == 422
    _, by_id = tiles(client)
    assert banners(by_id["T9"]) == ["Integrity flags: 2"]


def test_the_marker_is_in_every_language(app):
    client = app.test_client()
    nine_aces(Feed(client))
    model = client.get("/lobby/model.json?lang=th").json
    page = model["pages"]["landscape"][0] if "pages" in model else model["models"]["landscape"]
    t9 = next(t["model"] for t in page["tiles"] if t["id"] == "T9")
    assert banners(t9) == ["แจ้งเตือนความผิดปกติ"]


def red_rows(png: bytes, box) -> int:
    """Pixels of the theme's ``offline`` red (dark: 120, 20, 20) inside ``box`` of the picture."""
    im = Image.open(io.BytesIO(png)).convert("RGB").crop(box)
    return sum(1 for px in im.get_flattened_data() if abs(px[0] - 120) < 12 and px[1] < 40 and px[2] < 40)


def test_the_lobby_png_shows_the_marker_on_the_flagged_tile_only(app, tmp_path):
    client = app.test_client()
    nine_aces(Feed(client))
    page, by_id = tiles(client)
    png = client.get("/lobby.png").data
    (tmp_path / "lobby.png").write_bytes(png)
    rect = {t["id"]: t for t in page["tiles"]}
    band = next(p for p in by_id["T9"]["panels"] if p.get("flag") == "integrity")

    def box(tid, p):
        t = rect[tid]
        return (t["x"] + p["x"], t["y"] + p["y"], t["x"] + p["x"] + p["w"], t["y"] + p["y"] + p["h"])

    assert red_rows(png, box("T9", band)) > band["w"] * band["h"] * 0.5  # the red band, words on it
    assert red_rows(png, box("T1", band)) == 0  # the same place on the other tile: no band


def test_flags_survive_a_restart(tmp_path):
    data = tmp_path / "data"
    app = make_app(data)
    try:
        assert nine_aces(Feed(app.test_client())).status_code == 422
        assert (data / "integrity.jsonl").exists()  # written before the 422 was answered
    finally:
        close_app(app)
    app = make_app(data)
    try:
        client = app.test_client()
        flags = client.get("/api/integrity").json["flags"]
        assert [(f["table"], f["shoe"], f["round"], f["code"]) for f in flags] == [("T9", 1, 5, "too_many_copies")]
        assert entries(client)["T9"]["integrity"] == 1  # and the lobby marker with it
    finally:
        close_app(app)


def test_a_damaged_line_is_skipped_and_the_file_is_bounded(tmp_path):
    from web.integrity import IntegrityFlags

    path = tmp_path / "flags.jsonl"
    flag = {"table": "T1", "shoe": 1, "round": 2, "code": "tableau", "what": "w", "field": None, "message": "m"}
    path.write_text("not json\n" + json.dumps({**flag, "at": 5.0}) + "\n{\"table\": 3}\n")
    kept = IntegrityFlags(kept=3, path=path)
    assert [f["at"] for f in kept.list()] == [5.0]
    for n in range(6, 12):
        kept.add({**flag, "at": float(n)})
    again = IntegrityFlags(kept=3, path=path)
    assert [f["at"] for f in again.list()] == [11.0, 10.0, 9.0]
    assert len(path.read_text().splitlines()) < 6  # rewritten to the newest when twice the kept


def trends_model_of(page: bytes) -> dict:
    import re
    return json.loads(re.search(rb'id="trends-model">(.*?)</script>', page, re.S).group(1))


def words_of(model: dict) -> list[str]:
    return [it["t"] for p in model["panels"] for it in p["items"] if it.get("p") == "t"]


@pytest.mark.parametrize("lang, title, rounds_word", [
    ("en", "T1 · trends", "Rounds"), ("zh", "T1 · 走势", "局数"), ("zh-Hant", "T1 · 走勢", "局數"),
    ("th", "T1 · แนวโน้ม", "รอบ"), ("ko", "T1 · 추세", "회차"), ("vi", "T1 · xu hướng", "Số ván")])
def test_the_trends_pages_speak_the_asked_language(app, lang, title, rounds_word):
    client = app.test_client()
    page = client.get(f"/tables/T1/trends?lang={lang}")
    assert page.status_code == 200 and f'<html lang="{lang}"'.encode() in page.data
    assert f"{title}</title>".encode() in page.data or f"<title>{title}".encode() in page.data
    model = trends_model_of(page.data)
    assert model["lang"] == lang
    words = words_of(model)
    assert words[0] == title and rounds_word in words


def test_the_trends_pictures_take_a_language_and_refuse_an_unknown_one(app):
    client = app.test_client()
    nine_aces(Feed(client))
    for url in ("/trends.png?lang=zh", "/tables/T9/trends.png?lang=th", "/trends.png?lang=my"):
        r = client.get(url)
        assert r.status_code == 200 and r.mimetype == "image/png", url
    r = client.get("/trends.png?lang=xx")
    assert r.status_code == 400 and r.json["error"]["field"] == "lang"
    floor = trends_model_of(client.get("/trends?lang=th").data)
    assert "ผิดปกติ 1 ครั้ง" in words_of(floor)  # the day's integrity flag, in Thai
    # no word of any language is cut on the pictures (every label fits its box at >= 36 px)
    for lang in ("en", "zh", "zh-Hant", "th", "my", "lo", "vi", "ko"):
        for url in (f"/trends?lang={lang}", f"/tables/T9/trends?lang={lang}", f"/tables/T1/trends?lang={lang}"):
            cut = [w for w in words_of(trends_model_of(client.get(url).data)) if "…" in w]
            assert cut == [], (url, cut)


def test_every_catalogue_has_the_trends_and_marker_words():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "web" / "i18n"
    en = {k for k in json.loads((root / "en.json").read_text(encoding="utf-8")) if k.startswith(("trends.", "ui.integrity"))}
    assert len(en) == 30
    for lang in ("zh", "zh-Hant", "th", "my", "lo", "vi", "ko"):
        cat = json.loads((root / f"{lang}.json").read_text(encoding="utf-8"))
        assert en <= set(cat), lang
        assert all(cat[k] != "" for k in en)
