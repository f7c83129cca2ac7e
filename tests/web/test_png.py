"""PNG scoreboards (docs/frontend.md): structure checks on decoded images, query errors, caching.

No pixel goldens: the tests decode the PNG, locate cells with the shared layout
(web.render.layout, the same geometry the HTML board uses) and check the colour at points of
each cell that the snapshot says is filled (red Banker, blue Player, green tie slash)
and at cells it says are empty. Symbols are hollow rings (big road, big eye boy), solid
discs (bead plate, small road) and slashes (cockroach pig, ties): the sample points are
the ring's west side, the disc's top, the slash's middle.
"""

from __future__ import annotations

import io

import pytest
from PIL import Image

from roads.window import bead_plate_offset, road_offset
from web.render.layout import LayoutError, ROAD_NAMES, board_layout

# A hand-made shoe (result notation, domain.md §4): two ties before the first result (shown
# on the first cell), eight Banker in a row (dragon tail: rows 0-5, then right along row 5),
# a Player column of six blocked by that tail at row 5 (turns right at row 4), a tie on a
# Player cell, two ties on another, pairs and a natural.
SEQUENCE = "TTBBBBBBBBPPTPPPPBPPPTTBBPBPB"
BANKER_PAIR_ROUNDS = {4, 18}
PLAYER_PAIR_ROUNDS = {11, 26}
NATURAL_ROUNDS = {12, 27}


def result_for(round_number: int, winner: str) -> dict:
    """A self-consistent result-level round for ``winner`` (totals from the tableau's sense)."""
    natural = round_number in NATURAL_ROUNDS
    if winner == "B":
        totals = (2, 9) if natural else (3, 7)
    elif winner == "P":
        totals = (8, 1) if natural else (6, 2)
    else:
        totals = (5, 5)
    return {
        "winner": winner,
        "player_total": totals[0],
        "banker_total": totals[1],
        "player_pair": round_number in PLAYER_PAIR_ROUNDS,
        "banker_pair": round_number in BANKER_PAIR_ROUNDS,
        "natural": natural,
    }


def post_results(client, auth, table: str, sequence: str, shoe: int = 1, first: int = 1) -> None:
    for i, winner in enumerate(sequence, start=first):
        r = client.post(f"/api/tables/{table}/rounds", headers=auth,
                        json={"shoe": shoe, "round": i, "result": result_for(i, winner)})
        assert r.status_code in (200, 201), r.get_data(as_text=True)


def decode(resp) -> Image.Image:
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert resp.mimetype == "image/png"
    img = Image.open(io.BytesIO(resp.data))
    img.load()
    return img.convert("RGB")


# Colour classes. Road colours are red / blue / green by convention; the cell background of
# both themes is far from all three (dark: near-black, light: near-white).
def is_red(p):
    return p[0] > 170 and p[1] < 120 and p[2] < 120


def is_blue(p):
    return p[2] > 180 and p[0] < 120 and p[1] < 170


def is_green(p):
    return p[1] > 130 and p[0] < 110 and p[2] < 150


def is_background(p, theme: str):
    if theme == "dark":
        return max(p) < 70
    return min(p) > 235


def is_repeat(p):
    """The derived roads' red (web/render/theme.py "repeat"): red-dominant, not Banker's pure red."""
    return p[0] > 170 and p[0] > p[1] + 40


def is_break(p):
    """The derived roads' blue ("break")."""
    return p[2] > 160 and p[2] > p[0] + 40


COLOUR = {"B": is_red, "P": is_blue, "red": is_repeat, "blue": is_break, "T": is_green}


def at(img, region, col, row, fx, fy):
    c = region["cell"]
    return img.getpixel((int(region["x"] + col * c + fx * c), int(region["y"] + row * c + fy * c)))


def check_roads(img, regions, snap, theme):
    """Every filled cell has its colour; every empty cell of every road shows the background."""
    checked = 0
    big = snap["big_road"]
    if "big_road" in regions:
        r = regions["big_road"]
        assert max(c["x"] for c in big["cells"]) < r["cols"], "shoe must fit the window for this test"
        filled = set()
        for c in big["cells"]:
            entry = big["columns"][c["column"]][c["row"]]
            filled.add((c["x"], c["y"]))
            assert COLOUR[entry["winner"]](at(img, r, c["x"], c["y"], 0.15, 0.5)), (c, entry)
            ties = entry["ties"] + (big["leading_ties"] if (c["column"], c["row"]) == (0, 0) else 0)
            if ties:
                # the slash's end outside the ring (a tie count may sit on its middle)
                assert is_green(at(img, r, c["x"], c["y"], 0.18, 0.82)), (c, "tie slash")
            else:
                assert is_background(at(img, r, c["x"], c["y"], 0.5, 0.5), theme), (c, "hollow centre")
            checked += 1
        for x in range(r["cols"]):
            for y in range(6):
                if (x, y) not in filled:
                    assert is_background(at(img, r, x, y, 0.5, 0.5), theme), ("big road empty", x, y)
                    assert is_background(at(img, r, x, y, 0.15, 0.5), theme), ("big road empty", x, y)
    if "bead_plate" in regions:
        r = regions["bead_plate"]
        filled = set()
        for b in snap["bead_plate"]:
            filled.add((b["x"], b["y"]))
            assert COLOUR[b["winner"]](at(img, r, b["x"], b["y"], 0.5, 0.12)), b
            checked += 1
        for x in range(r["cols"]):
            for y in range(6):
                if (x, y) not in filled:
                    assert is_background(at(img, r, x, y, 0.5, 0.5), theme), ("bead plate empty", x, y)
    points = {"big_eye_boy": (0.19, 0.5), "small_road": (0.5, 0.5), "cockroach_pig": (0.5, 0.5)}
    for name, (fx, fy) in points.items():
        if name not in regions:
            continue
        r = regions[name]
        filled = set()
        for c in snap[name]["cells"]:
            filled.add((c["x"], c["y"]))
            assert COLOUR[c["color"]](at(img, r, c["x"], c["y"], fx, fy)), (name, c)
            checked += 1
        for x in range(r["cols"]):
            for y in range(6):
                if (x, y) not in filled:
                    assert is_background(at(img, r, x, y, 0.5, 0.5), theme), (name, "empty", x, y)
    return checked


def snapshot(app, table="T1", shoe=None):
    from web.service import get_service

    return get_service(app).read.snapshot(table, shoe)


def test_the_hand_made_shoe_has_leading_ties_tails_ties_and_a_blocked_column(app, client, auth):
    post_results(client, auth, "T1", SEQUENCE)
    big = snapshot(app)["big_road"]
    assert big["leading_ties"] == 2
    assert [len(c) for c in big["columns"]][:2] == [8, 6]
    # dragon tail of column 0 along row 5; column 1 turns right at row 4 (blocked by that tail)
    assert {(c["x"], c["y"]) for c in big["cells"] if c["column"] == 0 and c["row"] >= 6} == {(1, 5), (2, 5)}
    assert {(c["x"], c["y"]) for c in big["cells"] if c["column"] == 1 and c["row"] == 5} == {(2, 4)}
    assert sum(1 for col in big["columns"] for e in col if e["ties"]) == 2


@pytest.mark.parametrize(
    "width,height,theme,lang",
    [(1920, 1080, "dark", "en"), (1080, 1920, "dark", "zh"), (1280, 720, "light", "th"), (3840, 2160, "light", "my")],
)
def test_board_cells_show_what_the_snapshot_says(app, client, auth, width, height, theme, lang):
    post_results(client, auth, "T1", SEQUENCE)
    img = decode(client.get(f"/tables/T1/board.png?width={width}&height={height}&theme={theme}&lang={lang}"))
    assert img.size == (width, height)
    regions = board_layout(width, height, kind="board")["regions"]
    assert set(ROAD_NAMES) <= set(regions)
    checked = check_roads(img, regions, snapshot(app), theme)
    assert checked > 60


def test_a_real_dealt_shoe_renders_every_visible_cell(app, client, auth):
    """A full rule-dealt shoe (simulator) through the feed; the window shows the newest columns."""
    from roads.simulator import feed_request, simulate_shoe

    for m in simulate_shoe("T9", 1, seed=5):
        fr = feed_request(m)
        assert client.post(fr.path, json=fr.body, headers=auth).status_code in (200, 201)
    snap = snapshot(app, "T9")
    assert snap["round"] >= 60
    img = decode(client.get("/tables/T9/board.png"))
    r = board_layout(1920, 1080)["regions"]["big_road"]
    cells = snap["big_road"]["cells"]
    offset = road_offset(cells, r["cols"])  # the domain's display window (roads/window.py)
    seen = 0
    for c in cells:
        if c["x"] >= offset:
            entry = snap["big_road"]["columns"][c["column"]][c["row"]]
            assert COLOUR[entry["winner"]](at(img, r, c["x"] - offset, c["y"], 0.15, 0.5)), c
            seen += 1
    assert seen >= r["cols"]  # at least one cell per visible column
    regions = board_layout(1920, 1080)["regions"]
    beads = snap["bead_plate"]
    b = regions["bead_plate"]
    first = bead_plate_offset(len(beads), b["cols"])
    assert first > 0  # the shoe is longer than the window: whole columns of 6 dropped
    shown = [x for x in beads if x["x"] >= first]
    assert len(shown) > (b["cols"] - 1) * 6
    for bead in shown:
        assert COLOUR[bead["winner"]](at(img, b, bead["x"] - first, bead["y"], 0.5, 0.12)), bead
    for name, (fx, fy) in {"big_eye_boy": (0.19, 0.5), "small_road": (0.5, 0.5), "cockroach_pig": (0.5, 0.5)}.items():
        rr = regions[name]
        off = road_offset(snap[name]["cells"], rr["cols"])
        for c in snap[name]["cells"]:
            if off <= c["x"] < off + rr["cols"]:
                assert COLOUR[c["color"]](at(img, rr, c["x"] - off, c["y"], fx, fy)), (name, c)
    # the newest result's word is painted in its colour in the last-result box
    last = snap["last"]
    box = board_layout(1920, 1080)["regions"]["last_result"]
    pixels = [img.getpixel((x, y)) for x in range(box["x"], box["x"] + box["w"], 2)
              for y in range(box["y"], box["y"] + box["h"] // 2, 2)]
    assert sum(1 for p in pixels if COLOUR[last["winner"]](p)) > 50


@pytest.mark.parametrize("road", ROAD_NAMES)
def test_one_road_fills_the_image(app, client, auth, road):
    """One road under a header strip (table name, shoe, round): the road fills the width."""
    from web.render.model import BoardOptions, board_model

    post_results(client, auth, "T1", SEQUENCE)
    img = decode(client.get(f"/tables/T1/roads/{road}.png?width=900&height=240"))
    assert img.size == (900, 240)
    model = board_model(snapshot(app), BoardOptions(kind="embed", width=900, height=240, roads=(road,)))
    regions = {r["id"]: r for r in model["roads"]}
    assert list(regions) == [road]
    assert regions[road]["cell"] >= 30 and regions[road]["w"] >= 900 - regions[road]["cell"]
    assert [p["id"] for p in model["panels"]][:2] == ["header", "last_result"]
    assert check_roads(img, regions, snapshot(app), "dark") > 0


def test_past_shoe_board_and_unknown_shoe(app, client, auth):
    post_results(client, auth, "T1", SEQUENCE)
    post_results(client, auth, "T1", "PPB", shoe=2)
    img = decode(client.get("/tables/T1/shoes/1/board.png?width=1600&height=900"))
    check_roads(img, board_layout(1600, 900)["regions"], snapshot(app, "T1", 1), "dark")
    r = client.get("/tables/T1/shoes/1/board.png")
    assert "max-age=60" in r.headers["Cache-Control"]
    r = client.get("/tables/T1/shoes/7/board.png")
    assert r.status_code == 404
    assert r.get_json()["error"]["field"] == "shoe"


def test_empty_shoe_and_configured_table_without_rounds(tmp_path):
    from web import create_app

    app = create_app({"TESTING": True, "ROADS_FEED_TOKEN": "x", "ROADS_DATA_DIR": str(tmp_path),
                      "ROADS_TABLES": {"VIP": {"name": "百家乐 贵宾厅"}}})
    client = app.test_client()
    img = decode(client.get("/tables/VIP/board.png?width=1280&height=720"))
    regions = board_layout(1280, 720)["regions"]
    r = regions["big_eye_boy"]
    for x in range(r["cols"]):
        for y in range(6):
            assert is_background(at(img, r, x, y, 0.5, 0.5), "dark")
    decode(client.get("/lobby.png?width=800&height=450"))


def test_unknown_table_and_road_are_404_in_the_shared_error_shape(client):
    r = client.get("/tables/nope/board.png")
    assert r.status_code == 404
    err = r.get_json()["error"]
    assert err["status"] == 404 and err["field"] == "table_id"
    r = client.get("/tables/nope/roads/big_road.png")
    assert r.status_code == 404


def test_unknown_road_name_is_404_naming_road(client, auth):
    post_results(client, auth, "T1", "BP")
    r = client.get("/tables/T1/roads/dragon.png")
    assert r.status_code == 404
    assert r.get_json()["error"] == {
        "status": 404, "code": "unknown_road", "field": "road",
        "message": "no road 'dragon'; expected one of bead_plate, big_road, big_eye_boy, small_road, cockroach_pig",
    }


@pytest.mark.parametrize(
    "query,field",
    [
        ("width=0", "width"),
        ("width=63", "width"),
        ("width=3841", "width"),
        ("height=5000", "height"),
        ("width=abc", "width"),
        ("height=1.5", "height"),
        ("width=3840&height=3840", "height"),  # more pixels than one 4K frame: a 4K width, too tall
        ("width=3840&height=2500", "height"),  # landscape: taller than 2160
        ("width=2500&height=3840", "width"),  # portrait: wider than 2160
        ("width=2160&height=3841", "height"),
        ("columns=0", "columns"),
        ("columns=201", "columns"),
        ("columns=x", "columns"),
        ("cols=0", "cols"),  # the pages' name for columns
        ("cols=9999", "cols"),
        ("cols=x", "cols"),
        ("cols=9&columns=10", "cols"),
        ("theme=pink", "theme"),
        ("lang=xx", "lang"),
        ("kind=poster", "kind"),
        ("width=64&height=64", "height"),  # valid size, but too small for a full board
    ],
)
def test_out_of_range_options_are_400_naming_the_parameter(client, auth, query, field):
    post_results(client, auth, "T1", "BP")
    r = client.get(f"/tables/T1/board.png?{query}")
    assert r.status_code == 400, query
    err = r.get_json()["error"]
    assert err["status"] == 400 and err["field"] == field, err
    assert err["code"] == "bad_parameter"


@pytest.mark.parametrize("query,field", [("columns=17", "columns"), ("cols=17", "cols"), ("width=99999", "width"), ("theme=", "theme")])
def test_lobby_options_are_checked(client, query, field):
    r = client.get(f"/lobby.png?{query}")
    assert r.status_code == 400
    assert r.get_json()["error"]["field"] == field


@pytest.mark.parametrize("size,field,most", [("3840x3840", "height", 2160), ("2000x4000", "height", None),
                                             ("3000x3500", "width", 2369), ("3000x2800", "height", 2764)])
def test_too_many_pixels_names_the_side_out_of_the_4k_frame(client, auth, size, field, most):
    post_results(client, auth, "T1", "BP")
    w, h = size.split("x")
    err = client.get(f"/tables/T1/board.png?width={w}&height={h}").get_json()["error"]
    assert err["field"] == field, err
    if most:  # 8294400 // 3840 = 2160, // 3500 = 2369, // 3000 = 2764
        assert f"width × height {w}×{h} is more than 8294400 pixels" in err["message"]
        assert err["message"].endswith(f"reduce {field} to at most {most}")


def test_png_routes_take_cols_as_the_pages_do(client, auth):
    post_results(client, auth, "T1", "BPBPBPBPBP")
    for path in ("/tables/T1/roads/big_road.png", "/tables/T1/board.png"):
        by_cols = client.get(f"{path}?cols=9")
        assert by_cols.status_code == 200
        assert by_cols.data == client.get(f"{path}?columns=9").data == client.get(f"{path}?cols=9&columns=9").data
        assert by_cols.data != client.get(f"{path}?cols=30").data
        assert client.get(f"{path}?cols=9999").get_json()["error"]["field"] == "cols"


def test_unknown_query_options_are_ignored(client, auth):
    # signage players add cache-busting parameters (docs/api.md)
    post_results(client, auth, "T1", "BP")
    assert client.get("/tables/T1/board.png?t=123").data == client.get("/tables/T1/board.png").data
    assert client.get("/tables/T1?t=123").status_code == 200


def test_largest_sizes_are_accepted(client, auth):
    post_results(client, auth, "T1", "BPT")
    assert decode(client.get("/tables/T1/board.png?width=3840&height=2160")).size == (3840, 2160)
    assert decode(client.get("/tables/T1/board.png?width=2160&height=3840")).size == (2160, 3840)
    assert decode(client.get("/tables/T1/roads/bead_plate.png?width=3840&height=200")).size == (3840, 200)


def test_etag_and_if_none_match_gives_304(client, auth):
    post_results(client, auth, "T1", "BPB")
    r1 = client.get("/tables/T1/board.png?width=800&height=450")
    etag = r1.headers["ETag"]
    assert etag.startswith('"') and etag.endswith('"')
    assert r1.headers["Cache-Control"] == "public, max-age=2"
    r2 = client.get("/tables/T1/board.png?width=800&height=450", headers={"If-None-Match": etag})
    assert r2.status_code == 304
    assert r2.data == b""
    assert r2.headers["ETag"] == etag
    # other options are other images
    r3 = client.get("/tables/T1/board.png?width=800&height=450&theme=light", headers={"If-None-Match": etag})
    assert r3.status_code == 200 and r3.headers["ETag"] != etag
    # a new round changes the ETag: the old one no longer matches
    post_results(client, auth, "T1", "P", first=4)
    r4 = client.get("/tables/T1/board.png?width=800&height=450", headers={"If-None-Match": etag})
    assert r4.status_code == 200 and r4.headers["ETag"] != etag


def test_each_image_is_rendered_once_per_version(app, client, auth):
    from web.http.png import get_cache

    post_results(client, auth, "T1", "BPB")
    cache = get_cache(app)
    a = client.get("/tables/T1/board.png?width=800&height=450")
    b = client.get("/tables/T1/board.png?width=800&height=450")
    assert a.data == b.data
    assert cache.renders == 1 and cache.hits == 1


def test_a_new_round_invalidates_only_that_tables_images(app, client, auth):
    from web.http.png import get_cache

    post_results(client, auth, "A", "BPB")
    post_results(client, auth, "B", "PPB")
    cache = get_cache(app)
    a1 = client.get("/tables/A/board.png?width=800&height=450")
    b1 = client.get("/tables/B/board.png?width=800&height=450")
    client.get("/tables/A/roads/big_road.png")
    assert len(cache) == 3
    post_results(client, auth, "A", "T", first=4)
    a2 = client.get("/tables/A/board.png?width=800&height=450")
    assert a2.headers["ETag"] != a1.headers["ETag"]
    tables = sorted(k[0] for k in cache.keys())
    assert tables == ["A", "B"]  # A's two old images are gone, B's stays
    renders = cache.renders
    b2 = client.get("/tables/B/board.png?width=800&height=450")
    assert b2.headers["ETag"] == b1.headers["ETag"] and cache.renders == renders


def test_a_late_older_version_does_not_evict_newer_images():
    from web.http.png import PngCache

    cache = PngCache(10, 10**6)
    cache.note_current("A", 1, 5)
    cache.put(("A", "current", 1, 5, "board", ()), "e5", b"x" * 10)
    cache.note_current("A", 1, 4)  # a slow request that read version 4 before round 5 arrived
    assert len(cache) == 1 and cache.size_bytes == 10
    cache.note_current("A", 2, 1)  # a new shoe (its versions restart)
    assert len(cache) == 0 and cache.size_bytes == 0


def test_the_cache_is_bounded(tmp_path):
    from web import create_app
    from web.http.png import get_cache

    app = create_app({"TESTING": True, "ROADS_FEED_TOKEN": "x", "ROADS_DATA_DIR": str(tmp_path),
                      "ROADS_PNG_CACHE_ENTRIES": 3})
    client = app.test_client()
    post_results(client, {"Authorization": "Bearer x"}, "T1", "BP")
    for w in (400, 500, 600, 700, 800):
        decode(client.get(f"/tables/T1/board.png?width={w}&height=300"))
    cache = get_cache(app)
    assert len(cache) == 3
    assert [k[5] for k in cache.keys()][0] == tuple(sorted(
        {"width": 600, "height": 300, "columns": None, "theme": "dark", "lang": "en", "kind": "board",
         "bead": "letters", "patterns": ("long_banker", "long_player", "ping_pong")}.items()))


def test_png_settings_come_from_the_environment_and_are_checked(tmp_path, monkeypatch):
    from web import create_app
    from web.settings import ConfigError

    monkeypatch.setenv("ROADS_PNG_MAX_AGE_S", "7")
    app = create_app({"TESTING": True, "ROADS_FEED_TOKEN": "x", "ROADS_DATA_DIR": str(tmp_path / "a")})
    client = app.test_client()
    post_results(client, {"Authorization": "Bearer x"}, "T1", "B")
    assert client.get("/tables/T1/board.png?width=320&height=180").headers["Cache-Control"] == "public, max-age=7"
    monkeypatch.setenv("ROADS_PNG_CACHE_ENTRIES", "0")
    with pytest.raises(ConfigError, match="ROADS_PNG_CACHE_ENTRIES must be an integer >= 1, got '0'"):
        create_app({"TESTING": True, "ROADS_FEED_TOKEN": "x", "ROADS_DATA_DIR": str(tmp_path / "b")})
    monkeypatch.delenv("ROADS_PNG_CACHE_ENTRIES")
    with pytest.raises(ConfigError, match="ROADS_PNG_CACHE_BYTES must be an integer, got 'lots'"):
        create_app({"TESTING": True, "ROADS_FEED_TOKEN": "x", "ROADS_DATA_DIR": str(tmp_path / "c"),
                    "ROADS_PNG_CACHE_BYTES": "lots"})


def test_lobby_tiles_show_each_tables_big_road(app, client, auth):
    post_results(client, auth, "A", "BBBPPB")
    post_results(client, auth, "B", "PPPPPPPPB")
    img = decode(client.get("/lobby.png?width=1600&height=900&lang=lo"))
    from web.service import get_service

    tables = get_service(app).read.list_tables()
    with app.test_request_context("/lobby.png?width=1600&height=900&lang=lo"):
        from web.http import screen_options
        from web.push.documents import lobby_page_model
        from web.settings import get_settings
        from web.render.model import BoardOptions

        model = lobby_page_model(get_service(app).read, BoardOptions(
            kind="tile", width=1600, height=900, lang="lo", min_text=24, extra={"screen": True}),
            screen_options.paging({}), title=None, tz=get_settings(app).venue_tz, stale_s=get_settings(app).stale_s)
    assert [t["id"] for t in model["tiles"]] == ["A", "B"]
    for tile, table in zip(model["tiles"], tables):
        r = dict(next(x for x in tile["model"]["roads"] if x["id"] == "big_road"))
        r["x"] += tile["x"]
        r["y"] += tile["y"]
        for c in table["big_road"]["cells"]:
            entry = table["big_road"]["columns"][c["column"]][c["row"]]
            assert COLOUR[entry["winner"]](at(img, r, c["x"], c["y"], 0.15, 0.5)), (table["id"], c)
    # a new round changes the wall's ETag
    e1 = client.get("/lobby.png?width=1600&height=900").headers["ETag"]
    post_results(client, auth, "B", "P", first=10)
    assert client.get("/lobby.png?width=1600&height=900").headers["ETag"] != e1


def test_lobby_with_no_tables(client):
    img = decode(client.get("/lobby.png"))
    assert img.size == (1920, 1080)


# ------------------------------------------------------------------ layout (web/render/layout.py)

SIZES = [(1920, 1080), (1080, 1920), (1280, 720), (3840, 2160), (2160, 3840), (800, 600), (640, 360),
         (1366, 768), (1024, 1024), (3840, 1080), (600, 1400)]


@pytest.mark.parametrize("width,height", SIZES)
@pytest.mark.parametrize("kind", ["board", "embed", "tile"])
def test_layout_regions_are_inside_the_image_and_cells_are_square_whole_pixels(width, height, kind):
    lay = board_layout(width, height, kind=kind)
    assert lay["cell"] % 2 == 0 and lay["cell"] >= 4
    boxes = []
    for name, r in lay["regions"].items():
        assert 0 <= r["x"] and r["x"] + r["w"] <= width, (name, r)
        assert 0 <= r["y"] and r["y"] + r["h"] <= height, (name, r)
        if name in ROAD_NAMES:
            assert r["rows"] == 6
            assert r["w"] == r["cols"] * r["cell"] and r["h"] == 6 * r["cell"]
            assert r["cell"] in (lay["cell"], lay["cell"] // 2)
            boxes.append((name, r))
    # road grids never overlap
    for i, (n1, a) in enumerate(boxes):
        for n2, b in boxes[i + 1:]:
            disjoint = (a["x"] + a["w"] <= b["x"] or b["x"] + b["w"] <= a["x"]
                        or a["y"] + a["h"] <= b["y"] or b["y"] + b["h"] <= a["y"])
            assert disjoint, (n1, a, n2, b)


def test_layout_of_random_sizes_and_columns_keeps_regions_inside_and_roads_whole():
    import random

    rng = random.Random(6)
    for _ in range(600):
        w, h = rng.randint(64, 3840), rng.randint(64, 3840)
        if w * h > 3840 * 2160:
            continue
        kind = rng.choice(["board", "embed", "tile"])
        columns = rng.choice([None, 1, 2, 5, 16, 50, 200])
        try:
            lay = board_layout(w, h, kind=kind, columns=columns)
        except LayoutError as e:
            assert e.field in ("width", "height", "columns")
            continue
        for name, r in lay["regions"].items():
            assert r["w"] >= 1 and r["h"] >= 1, (w, h, kind, columns, name, r)
            assert 0 <= r["x"] and r["x"] + r["w"] <= w and 0 <= r["y"] and r["y"] + r["h"] <= h, (name, r)
            if name in ROAD_NAMES:
                assert r["w"] == r["cols"] * r["cell"] and r["rows"] == 6


def test_layout_1080p_landscape_has_every_region_and_readable_cells():
    lay = board_layout(1920, 1080)
    assert set(lay["regions"]) == {"header", "last_result", "bead_plate", "big_road", "big_eye_boy", "small_road",
                                   "cockroach_pig", "ask", "stats", "side_bets", "good_roads"}
    assert lay["orientation"] == "landscape"
    assert lay["cell"] >= 60  # about 3 cm on a 55-inch screen: readable from 5 m
    assert lay["regions"]["big_eye_boy"]["cell"] == lay["cell"] // 2


def test_layout_columns_sets_the_big_road_width():
    lay = board_layout(1920, 1080, columns=40)
    assert lay["regions"]["big_road"]["cols"] == 40
    assert lay["cell"] == 1920 // (40 + 6.85) // 2 * 2


@pytest.mark.parametrize(
    "kwargs,field",
    [
        ({"width": 63, "height": 100}, "width"),
        ({"width": 100, "height": 3841}, "height"),
        ({"width": True, "height": 100}, "width"),
        ({"width": 800, "height": 600, "columns": 0}, "columns"),
        ({"width": 800, "height": 600, "kind": "poster"}, "kind"),
        ({"width": 800, "height": 600, "kind": "embed", "roads": ["big_road", "dragon"]}, "roads"),
        ({"width": 800, "height": 600, "kind": "embed", "roads": []}, "roads"),
        ({"width": 800, "height": 600, "kind": "embed", "roads": ["big_road", "big_road"]}, "roads"),
    ],
)
def test_layout_errors_name_the_parameter(kwargs, field):
    width, height = kwargs.pop("width"), kwargs.pop("height")
    with pytest.raises(LayoutError) as e:
        board_layout(width, height, **kwargs)
    assert e.value.field == field


@pytest.mark.parametrize("lang", ["en", "zh", "th", "my", "lo", "zh-Hant", "vi", "ko"])
@pytest.mark.parametrize("width,height", [(1920, 1080), (1080, 1920)])
def test_last_result_reads_like_the_web_page(lang, width, height):
    """The winner's word (largest, its colour) and the marks, then "Player 8 · Banker 6" with
    each side in its colour: the words web/i18n gives, inside the panel."""
    from web import i18n
    from web.render.model import BoardOptions, board_model

    snap = {"table": "T1", "name": "T1", "shoe": 1, "round": 1, "bead_plate": [], "big_road": {}, "last": {
        "round": 1, "winner": "P", "player_total": 8, "banker_total": 6,
        "player_pair": False, "banker_pair": True, "natural": True}}
    model = board_model(snap, BoardOptions(width=width, height=height, lang=lang))
    panel = next(p for p in model["panels"] if p["id"] == "last_result")
    texts = [(i["t"], i["c"], i["s"]) for i in panel["items"] if i["p"] == "t"]
    tr = lambda key: i18n.translate(key, lang)  # noqa: E731
    assert texts[0][:2] == (tr("winner.P"), "player")
    assert texts[0][2] == max(s for *_, s in texts)
    marks = tr("ui.banker_pair") + " · " + tr("ui.natural")
    assert texts[1][1] == "badge_text" and marks.startswith(texts[1][0].rstrip("\u2026").rstrip())  # may be cut
    assert [t[:2] for t in texts[2:5]] == [(tr("winner.P") + " 8", "player"), (" · ", "muted"),
                                          (tr("winner.B") + " 6", "banker")]


def _symbol_pixels(img, cell, colour) -> frozenset[tuple[int, int]]:
    """Pixels of the inner half of a bead cell within 60 of ``colour`` (the text painted on it)."""
    s = cell["s"]
    x0, y0 = int(cell["x"] + s * 0.25), int(cell["y"] + s * 0.25)
    out = set()
    for y in range(y0, int(y0 + s * 0.5)):
        for x in range(x0, int(x0 + s * 0.5)):
            if max(abs(a - b) for a, b in zip(img.getpixel((x, y)), colour)) <= 60:
                out.add((x - x0, y - y0))
    return frozenset(out)


def test_bead_option_paints_letters_totals_or_colour_only(app, client, auth):
    """Banker 7-3, then Player 9-2: ``letters`` and ``total`` paint white text on each bead
    (different glyphs: B vs 7), ``colour`` none; the disc colour stays the winner's."""
    from web.render.cells import probe
    from web.render.theme import THEMES

    def close(a, b, tol=40):
        return all(abs(x - y) <= tol for x, y in zip(a, b))

    for i, (winner, p, b) in enumerate((("B", 3, 7), ("P", 9, 2)), 1):
        r = client.post("/api/tables/T1/rounds", headers=auth, json={"shoe": 1, "round": i, "result": {
            "winner": winner, "player_total": p, "banker_total": b, "player_pair": False, "banker_pair": False,
            "natural": False}})
        assert r.status_code == 201
    white = THEMES["dark"]["on_symbol"]
    seen = {}
    for bead in ("letters", "total", "colour"):
        img = decode(client.get(f"/tables/T1/board.png?bead={bead}"))
        model = client.get(f"/tables/T1/model.json?bead={bead}").get_json()["models"]["landscape"]
        cells = next(r for r in model["roads"] if r["id"] == "bead_plate")["cells"]
        assert [c.get("t") for c in cells] == {"letters": ["B", "P"], "total": ["7", "9"], "colour": [None, None]}[bead]
        seen[bead] = [_symbol_pixels(img, c, white) for c in cells]
        for c, colour in zip(cells, ("banker", "player")):
            assert close(img.getpixel(tuple(int(v) for v in probe(c))), THEMES["dark"][colour])
    assert all(len(px) > 20 for px in seen["letters"] + seen["total"])
    assert seen["colour"] == [frozenset(), frozenset()]
    assert seen["letters"][0] != seen["total"][0] and seen["letters"][1] != seen["total"][1]
