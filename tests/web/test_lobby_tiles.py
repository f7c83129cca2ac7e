"""Lobby tiles (web/render/tiles.py, web/render/bets.py): the side-bet line worded as the board's,
naming the next bet to close, in all five languages and identical in the page's and the PNG's
model; tall (portrait) tiles use the height under the big road (bead plate, a second side-bet
line, the game); the game's name from the catalogue.

Side bets are written by hand: seed 000's live table at round 38 (docs/domain.md section 3, seed
000 payout table): pairs open for 60 rounds (22 left); either pair, perfect pair, naturals and
the three Lucky Six bets for 50 (12 left); the player/banker bonus the whole shoe.
"""

from __future__ import annotations

import pytest

from roads.variants import PRESETS
from web.render import bets, tiles
from web.render.model import BoardOptions

ROUND = 38


def side_bets_at(round_number: int, variant: str = "seed000_live") -> list[dict]:
    out = []
    for b in PRESETS[variant].side_bets:
        lim = b.round_limit
        out.append({"bet": b.bet, "label": b.label, "limit": lim, "open": lim is None or round_number < lim,
                    "rounds_left": None if lim is None else max(0, lim - round_number)})
    return out


SNAP = {"side_bets": side_bets_at(ROUND)}


@pytest.mark.parametrize(("lang", "words"), [
    ("en", "Naturals and 3 more close at round 50 · 12 left"),
    ("zh", "天牌及其他 3 项 第 50 局截止 · 剩 12 局"),
    ("th", "ไพ่ป๊อก และอีก 3 รายการ ปิดรอบที่ 50 · เหลือ 12 รอบ"),
    ("my", "တန်းဒိုများ နှင့် နောက်ထပ် 3 မျိုး အလှည့် 50 တွင် ပိတ် · 12 အလှည့် ကျန်"),
    ("lo", "ໄພ່ປ໋ອງ ແລະ ອີກ 3 ລາຍການ ປິດຮອບທີ 50 · ເຫຼືອ 12 ຮອບ"),
])
def test_the_tile_names_the_next_bet_to_close_as_the_board_says_it(lang, words):
    assert bets.next_bet_line(SNAP, lang) == (words, "text")


def test_a_narrower_tile_says_less_in_the_same_words():
    en = [bets.next_bet_line(SNAP, "en", width=w, size=36)[0] for w in (10_000, 0)]
    assert en == ["Naturals and 3 more close at round 50 · 12 left", "Naturals · 12 left"]
    from web.render import prims

    for words in ("Naturals +3 close at round 50 · 12 left", "Naturals +3 · 12 left"):
        w = prims.width(words, 36, "en")
        assert bets.next_bet_line(SNAP, "en", width=w, size=36)[0] == words
    after = {"side_bets": side_bets_at(55)}  # the 50-round bets closed: the pairs close next, alone
    assert bets.next_bet_line(after, "en") == ("Pairs close at round 60 · 5 left", "warn")  # 5 left: SOON_LEFT
    whole = {"side_bets": side_bets_at(10, "seed002")}  # seed 002: every side bet open the whole shoe
    assert bets.next_bet_line(whole, "en")[0] == "Pairs and 2 more · Open all shoe"


def _regions(w: int, h: int) -> dict:
    return tiles.tile_geometry(w, h, min_text=24, screen=True)


@pytest.mark.parametrize(("width", "height", "count"), [(1080, 1920, 6), (1080, 1920, 4), (1920, 1080, 6),
                                                        (3840, 2160, 6), (1080, 1920, 12)])
def test_tile_regions_stack_inside_the_tile_without_overlap(width, height, count):
    geo = tiles.page_tiles(width, height, count, min_text=24 * min(width, height) // 1080)
    g = tiles.tile_geometry(geo["tw"], geo["th"], min_text=24 * min(width, height) // 1080, screen=True)
    rs = sorted(g["regions"].items(), key=lambda kv: (kv[1]["y"], kv[1]["x"]))
    for name, r in rs:
        assert 0 <= r["x"] and r["x"] + r["w"] <= geo["tw"] and 0 <= r["y"] and r["y"] + r["h"] <= geo["th"], name
    for (a, ra), (b, rb) in zip(rs, rs[1:]):
        if ra["x"] + ra["w"] > rb["x"] and rb["x"] + rb["w"] > ra["x"]:  # same column: one under the other
            assert ra["y"] + ra["h"] <= rb["y"], (a, b)


def test_portrait_tiles_use_the_height_under_the_big_road():
    four = tiles.page_tiles(1080, 1920, 4, min_text=24)
    g4 = _regions(four["tw"], four["th"])["regions"]
    bead, big = g4["bead_plate"], g4["big_road"]
    assert bead["cell"] == big["cell"] >= tiles.SCREEN_MIN_CELL and bead["y"] > big["y"] + big["h"]
    six = tiles.page_tiles(1080, 1920, 6, min_text=24)
    g6 = _regions(six["tw"], six["th"])["regions"]
    assert g6["side_bet"]["lines"] == 2          # no room for a 40 px bead plate: two side-bet lines
    land = tiles.page_tiles(1920, 1080, 6, min_text=24)
    assert _regions(land["tw"], land["th"])["regions"]["side_bet"]["lines"] == 1


def _tile(snap: dict, w: int, h: int, lang: str = "en") -> dict:
    return tiles.tile_model(snap, BoardOptions(kind="tile", width=w, height=h, lang=lang, min_text=24,
                                                extra={"screen": True}), now=0.0)


def _words(model: dict, pid: str) -> list[str]:
    return [i["t"] for p in model["panels"] if p["id"] == pid for i in p["items"] if i.get("p") == "t"]


BASE = {"table": "T1", "name": "Table 1", "shoe": 1, "round": ROUND, "version": ROUND,
        "variant": {"id": "seed001", "name": "Baccarat (seed 001)"}, "bead_plate": [],
        "big_road": {"columns": [], "leading_ties": 0}, "big_eye_boy": [], "small_road": [], "cockroach_pig": [],
        "stats": {}, "good_roads": [], "last": None, "side_bets": side_bets_at(ROUND)}


def test_a_portrait_tile_breaks_the_side_bet_line_at_the_dot_and_names_the_game():
    six = tiles.page_tiles(1080, 1920, 6, min_text=24)
    m = _tile(BASE, six["tw"], six["th"])
    lines = _words(m, "side_bet")
    width = tiles.tile_geometry(six["tw"], six["th"], min_text=24, screen=True)["regions"]["side_bet"]["w"]
    from web.render import prims

    assert len(lines) == 2 and " ".join(lines) == "Naturals and 3 more close at round 50 · 12 left"
    assert all(prims.width(t, 36, "en") <= width for t in lines)
    zh = _tile(BASE, six["tw"], six["th"], "zh")
    assert "保险百家乐" in _words(zh, "game") + _words(zh, "badges")   # variant.seed001 in Chinese


def test_a_landscape_tile_names_the_game_where_the_good_roads_go_when_there_are_none():
    land = tiles.page_tiles(1920, 1080, 6, min_text=24)
    m = _tile(BASE, land["tw"], land["th"], "th")
    assert _words(m, "badges") == ["บาคาร่าประกันภัย"]   # seed 001's own name for its game


@pytest.mark.parametrize("lang", ["en", "zh", "th", "my", "lo", "zh-Hant", "vi", "ko"])
def test_page_and_png_tiles_say_the_same_side_bet_line(client, feed, monkeypatch, lang):
    from support.feed import dealt_rounds
    from web.render import paint_png

    for i, (p, b) in enumerate(dealt_rounds(ROUND, seed=3), 1):
        assert feed.round(1, i, p, b).status_code == 201
    page = client.get(f"/lobby/model.json?tables=T1&lang={lang}").get_json()
    seen = []
    real = paint_png.paint
    monkeypatch.setattr(paint_png, "paint", lambda model, **kw: seen.append(model) or real(model, **kw))
    assert client.get(f"/lobby.png?tables=T1&lang={lang}").status_code == 200
    html_tile = page["pages"]["landscape"][0]["tiles"][0]["model"]
    png_tile = seen[0]["tiles"][0]["model"]
    from web import i18n

    said = _words(png_tile, "side_bet")
    assert _words(html_tile, "side_bet") == said
    joined = " ".join(said)
    assert i18n.translate("side.group.naturals", lang) in joined and "12" in joined and "50" in joined


@pytest.mark.parametrize("orient", ["landscape", "portrait"])
def test_a_listed_table_without_rounds_is_a_tile_waiting_for_its_first_round(client, feed, monkeypatch, orient):
    # a signage URL naming a table before its first round (or misspelt) shows its name, not "No tables yet"
    from support.feed import dealt_rounds
    from web.render import paint_png

    for i, (p, b) in enumerate(dealt_rounds(3, seed=3), 1):
        assert feed.round(1, i, p, b).status_code == 201
    doc = client.get("/lobby/model.json?tables=nope,T1").get_json()
    tiles = doc["pages"][orient][0]["tiles"]
    assert [t["id"] for t in tiles] == ["nope", "T1"]
    assert _words(tiles[0]["model"], "line1") == ["nope"]
    assert _words(tiles[0]["model"], "note") == ["Waiting for the first round"]
    assert "No tables yet" not in client.get("/lobby?tables=nope").get_data(as_text=True)
    seen = []
    real = paint_png.paint
    monkeypatch.setattr(paint_png, "paint", lambda model, **kw: seen.append(model) or real(model, **kw))
    assert client.get("/lobby.png?tables=nope").status_code == 200
    assert _words(seen[0]["tiles"][0]["model"], "line1") == ["nope"]


def test_the_lobby_without_tables_still_says_no_tables_yet(client):
    doc = client.get("/lobby/model.json").get_json()
    page = doc["pages"]["landscape"][0]
    assert page["tiles"] == []
    assert [i["t"] for p in page["panels"] if p["id"] == "note" for i in p["items"]] == ["No tables yet"]
