"""Lobby-screen tiles keep every word whole (web/render/tiles.py): for each language, 6 and 12
tables, portrait 1080x1920 and landscape 1920x1080, no text of a tile model is wider than its
panel, nor cut with an ellipsis, measured with the model's own metrics (the bundled fonts,
web/render/fonts.py); the table name is always whole (the demo's 12 names, the longest
"Insurance No Commission 7", 500 px at 36 px bold); a tile with a good road still says its
dealer and limits where the band has room.

Tables as the demo deals them (web/cli/demo.py DEMO_TABLES): each preset's side bets at round 38
(docs/domain.md section 3), table 1 before its first result, one table per state: betting with a close time (said on images as
"Bets close at hh:mm:ss", on pages as a countdown), dealing with cards on the table, the result.
"""

from __future__ import annotations

import pytest

from roads.variants import PRESETS
from web import i18n
from web.cli.demo import demo_tables
from web.render import prims, tiles
from web.render.model import BoardOptions

ROUND = 38
NOW = 1000.0
STATE = {"since": "1970-01-01T00:16:30Z", "dealer": "Mei Ling", "limits": {"min": 100, "max": 10000}}


def _side_bets(variant: str) -> list[dict]:
    out = []
    for b in PRESETS[variant].side_bets:
        lim = b.round_limit
        out.append({"bet": b.bet, "label": b.label, "limit": lim, "open": lim is None or ROUND < lim,
                    "rounds_left": None if lim is None else max(0, lim - ROUND)})
    return out


def _snapshot(i: int, t) -> dict:
    kind = i % 3
    state = [dict(STATE, state="betting", closes_at="1970-01-01T00:17:52Z"),   # 10:17:52 in Bangkok
             dict(STATE, state="dealing"), dict(STATE, state="result")][kind]
    snap = {"table": t.id, "name": t.name, "shoe": 12, "round": ROUND, "version": ROUND,
            "variant": {"id": t.variant, "name": PRESETS[t.variant].name}, "bead_plate": [],
            "big_road": {"columns": [], "leading_ties": 1 if i else 0}, "big_eye_boy": [], "small_road": [],
            "cockroach_pig": [], "stats": {}, "side_bets": _side_bets(t.variant), "state": state,
            "good_roads": [{"pattern": "long_banker", "length": 7}] if i % 2 else [],
            "last": {"round": ROUND, "winner": "B", "player_total": 6, "banker_total": 7, "player_pair": True,
                     "banker_pair": False, "natural": False}}
    if kind == 1:
        snap["in_progress"] = {"round": ROUND + 1, "player": ["4S", "2H"], "banker": ["KD", "5C"], "burn": [],
                               "cut_card": False, "player_total": 6, "banker_total": 5, "next": "banker"}
    return snap


def _lobby(lang: str, w: int, h: int, count: int, still: bool) -> dict:
    opts = BoardOptions(kind="tile", width=w, height=h, lang=lang, min_text=24 * min(w, h) // 1080, still=still,
                        extra={"screen": True}).check()
    entries = [(_snapshot(i, t), "1970-01-01T00:16:00Z", False) for i, t in enumerate(demo_tables(count))]
    return tiles.lobby_model(entries, opts, title=None, page=1, pages=1, tz="Asia/Bangkok")


def _span(item: dict, lang: str) -> tuple[float, float]:
    wd = prims.width(item["t"], item["s"], lang, item["w"])
    x = item["x"] - {"l": 0.0, "m": wd / 2, "r": wd}[item["a"]]
    return x, x + wd


CASES = [(lang, w, h, n, still) for lang in i18n.LANGUAGES for w, h in ((1080, 1920), (1920, 1080))
         for n in (6, 12) for still in (False, True)]


@pytest.mark.parametrize(("lang", "w", "h", "count", "still"), CASES)
def test_no_tile_text_is_wider_than_its_panel_or_cut(lang, w, h, count, still):
    m = _lobby(lang, w, h, count, still)
    bad = []
    for tile in m["tiles"]:
        tm = tile["model"]
        for p in tm["panels"]:
            if p["id"] in ("banner",):
                continue
            for it in p["items"]:
                if it.get("p") != "t":
                    continue
                x0, x1 = _span(it, lang)
                if "\u2026" in it["t"] or x0 < p["x"] - 0.5 or x1 > p["x"] + p["w"] + 0.5 or x1 > tm["w"]:
                    bad.append((tile["id"], p["id"], it["t"], round(x0), round(x1), p["x"], p["x"] + p["w"]))
    assert bad == []


@pytest.mark.parametrize(("lang", "w", "h", "count"), [(lang, w, h, n) for lang in ("en", "my")
                                                       for w, h in ((1080, 1920), (1920, 1080)) for n in (6, 12)])
def test_every_table_name_is_whole(lang, w, h, count):
    m = _lobby(lang, w, h, count, True)
    for tile, t in zip(m["tiles"], demo_tables(count)):
        heads = [i["t"] for p in tile["model"]["panels"] if p["id"] in ("line1", "result") for i in p["items"]
                 if i.get("p") == "t" and i["c"] == "text"]
        assert " ".join(heads).startswith(t.name), (t.name, heads)


def test_twelve_portrait_tiles_are_three_by_four_with_the_name_line_whole():
    geo = tiles.page_tiles(1080, 1920, 12, min_text=24)
    assert (len({t["x"] for t in geo["tiles"]}), len({t["y"] for t in geo["tiles"]})) == (3, 4)
    assert (geo["tw"], geo["th"]) == (342, 451)   # (1080 - 2*13 - 2*13) / 3, (1920 - 50 - 2*13 - 3*13) // 4
    g = tiles.tile_geometry(342, 451, min_text=24, screen=True)
    r = g["regions"]
    assert (r["line1"]["w"], r["result"]["y"], r["line2"]["y"]) == (320, 60, 109)   # 342 - 2*11; 11 + 49; + 49
    six = tiles.page_tiles(1080, 1920, 6, min_text=24)
    assert "result" not in tiles.tile_geometry(six["tw"], six["th"], min_text=24, screen=True)["regions"]


def test_a_tile_with_a_good_road_still_names_its_dealer():
    m = _lobby("en", 1920, 1080, 6, False)
    t2 = m["tiles"][1]["model"]      # table 2: a good road and the dealing state
    words = [i["t"] for p in t2["panels"] if p["id"] == "badges" for i in p["items"] if i.get("p") == "t"]
    assert words[0] == "Long Banker 7" and words[-1] in ("Dealer Mei Ling  ·  Limits 100-10,000", "Dealer Mei Ling",
                                                          "Limits 100-10,000")
    assert "Dealer Mei Ling" in words[-1]
