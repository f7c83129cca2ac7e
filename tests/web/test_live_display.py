"""The live table in the board model (web.render.status_panel): hands worked from the tableau
(docs/domain.md section 1: the player draws on 0-5, stands on 6-7) and seed 001's insurance
table (docs/insurance.md: player 6 standing against banker 5 -> Player insurance 2.5:1)."""

from __future__ import annotations

from web import i18n
from web.render import status_panel
from web.render.model import BoardOptions, board_model

BASE = {"table": "T1", "shoe": 1, "round": 0, "version": 3, "variant": {"id": "seed001", "name": "Seed 001"},
        "bead_plate": [], "big_road": {"columns": [], "leading_ties": 0}, "big_eye_boy": [], "small_road": [],
        "cockroach_pig": [], "stats": {}, "side_bets": [], "last": None}


def ip(player, banker, pt, bt, nxt):
    return {"round": 1, "player": player, "banker": banker, "burn": [], "cut_card": False,
            "player_total": pt, "banker_total": bt, "next": nxt}


def words(model):
    return [i["t"] for p in model["panels"] for i in p["items"] if i.get("p") == "t"]


def test_next_step_in_words_from_the_tableau():
    assert status_panel.next_words(ip(["4S"], ["KD"], 4, 0, "player"), "en") == "Dealing"
    assert status_panel.next_words(ip(["4S", "2H"], ["KD", "5C"], 6, 5, "banker"), "en") == "Player stands · Banker draws"
    assert status_panel.next_words(ip(["4S", "KH"], ["KD", "5C"], 4, 5, "player"), "en") == "Player draws"
    assert status_panel.next_words(ip(["4S", "KH", "2D"], ["KD", "5C"], 6, 5, "banker"), "en") == "Banker draws"
    assert status_panel.next_words(ip(["4S", "KH"], ["KD", "5C"], 4, 5, "player"), "zh") == "闲补牌"


def test_board_mid_round_shows_cards_totals_next_step_and_seed001_insurance():
    snap = dict(BASE, in_progress=ip(["4S", "2H"], ["KD", "5C"], 6, 5, "banker"))
    m = board_model(snap, BoardOptions(), now=1000.0)
    live = next(p for p in m["panels"] if p["id"] == "live")
    texts = [i["t"] for i in live["items"] if i.get("p") == "t"]
    assert {"4", "2", "K", "5", "6"} <= set(texts)
    assert "Player stands · Banker draws" in texts and "Player insurance 2.5:1" in texts
    assert sum(1 for i in live["items"] if i.get("p") == "g") >= 4      # the suits are drawn
    assert not any(p["id"] == "stats" for p in m["panels"])            # the live panel takes its place
    tile = board_model(snap, BoardOptions(kind="tile", width=640, height=360), now=1000.0)
    assert "Player insurance 2.5:1" in words(tile)


def test_betting_countdown_at_render_time_and_for_the_page():
    state = {"state": "betting", "since": "1970-01-01T00:16:30Z", "closes_at": "1970-01-01T00:16:52Z",
             "dealer": "Anna", "limits": {"min": 100, "max": 10000}}
    m = board_model(dict(BASE, state=state), BoardOptions(), now=1000.0)   # closes at 1012 s
    cd = [i for p in m["panels"] for i in p["items"] if i.get("cd")]
    assert [(i["t"], i["cd"], i["fmt"]) for i in cd] == [("Bets close in 12 s", 1012.0, "Bets close in {s} s")]
    assert "Dealer Anna  ·  Limits 100-10,000" in words(m) and m["now"] == 1000.0
    assert status_panel.seconds_left(state, 1011.5) == 1 and status_panel.seconds_left(state, 1013) == 0
    closed = board_model(dict(BASE, state=dict(state, state="shuffling", closes_at=None)), BoardOptions(), now=1000.0)
    assert "Shuffling" in words(closed)


def test_a_table_without_live_keys_draws_as_before():
    a = board_model(BASE, BoardOptions(), now=1.0)
    b = board_model(BASE, BoardOptions(), now=2.0)
    assert a["panels"] == b["panels"] and not any(p["id"] == "live" for p in a["panels"])


STATE = {"state": "betting", "since": "1970-01-01T00:16:30Z", "closes_at": "1970-01-01T00:16:52Z",
         "dealer": "Anna", "limits": {"min": 100, "max": 10000}}


def texts(model, pid=None):
    return [i for p in model["panels"] if pid in (None, p["id"]) for i in p["items"] if i.get("p") == "t"]


def test_an_embed_shows_the_round_in_progress_in_a_band_with_nothing_below_12_px_at_600x300():
    snap = dict(BASE, state=dict(STATE, state="dealing", closes_at=None),
                in_progress=ip(["4S", "2H"], ["KD", "5C"], 6, 5, "banker"))
    m = board_model(snap, BoardOptions(kind="embed", width=600, height=300), now=1000.0)
    band = [i["t"] for i in texts(m, "live")]
    assert band[:3] == ["P", "4", "2"] and "K" in band and "Player insurance 2.5:1" in band   # seed 001: 6 v 5
    assert "6" in band and "5" in band                                    # running totals
    assert min(i["s"] for i in texts(m)) >= 12
    live = next(p for p in m["panels"] if p["id"] == "live")
    assert all(live["y"] + live["h"] <= r["y"] for r in m["roads"])      # above the roads, not over them
    betting = board_model(dict(BASE, state=STATE), BoardOptions(kind="embed", width=600, height=300), now=1000.0)
    assert [i["t"] for i in texts(betting, "live")] == ["Bets close in 12 s", "Dealer Anna  ·  Limits 100-10,000"]
    assert [(r["id"], r["y"], r["cell"]) for r in betting["roads"]] == [(r["id"], r["y"], r["cell"]) for r in m["roads"]]
    plain = board_model(BASE, BoardOptions(kind="embed", width=600, height=300), now=1000.0)
    assert not any(p["id"] == "live" for p in plain["panels"])           # a result-only feed: as before


def test_dealer_and_limits_never_overlap_the_header_words_of_a_portrait_board():
    from web.render import prims

    for w, h in ((1920, 1080), (1080, 1920)):
        snap = dict(BASE, name="บาคาร่าประกัน 3", state=STATE, variant={"id": "seed001", "name": "Baccarat (seed 001)"})
        m = board_model(snap, BoardOptions(width=w, height=h), now=1000.0)
        head = texts(m, "header")
        sub = head[1]
        right_of_sub = sub["x"] + prims.width(sub["t"], sub["s"], "en", "r")
        beside = [i for i in head[2:] if abs(i["y"] - sub["y"]) < 2]
        for i in beside:
            assert i["x"] - prims.width(i["t"], i["s"], "en", "r") > right_of_sub, (w, h, i["t"])
        if w > h:
            assert [i["t"] for i in beside] == ["Dealer Anna  ·  Limits 100-10,000"]
        else:   # no room beside the header's words: the last line of the statistics instead
            stats = texts(m, "stats")
            assert not beside and stats[-1]["t"] == "Dealer Anna  ·  Limits 100-10,000"
            assert stats[-1]["y"] - stats[-1]["s"] > max(i["y"] for i in stats[:-1])


LANGS5 = i18n.LANGUAGES  # every language (the name stays from when there were five)


def test_a_ticking_countdown_fits_its_box_for_every_count_it_ticks_through():
    """The page replaces the count as it ticks (static/js/paint.js): the model fits the words for
    the widest count ("99"), cutting the template the way it cuts the words, so no count the page
    writes is wider than the box; "Bets closed" at 0 fits it too."""
    from web.render import prims

    state = {"state": "betting", "closes_at": "1970-01-01T00:16:53Z"}   # 13 s after now = 1000
    for lang in LANGS5:
        words, colour, extra = status_panel.state_words(state, lang, 1000.0)
        assert colour == "open" and "13" in words
        for room in (400, 240, 160, 120):
            t, s, out = status_panel.fit_state(words, extra, room, 40, lang, min_px=24)
            if "fmt" not in out:   # the cut took the count: "Betting" without one, not ticking
                assert "cd" not in out and prims.width(t, s, lang) <= room
                continue
            assert "{s}" in out["fmt"] and t == out["fmt"].replace("{s}", "13")
            for n in range(100):
                assert prims.width(out["fmt"].replace("{s}", str(n)), s, lang) <= room + 0.5, (lang, room, n)
            assert prims.width(out["done"], out["ds"], lang) <= room + 0.5 and out["ds"] <= s


def test_at_zero_the_countdown_says_bets_closed_in_a_neutral_colour():
    state = {"state": "betting", "closes_at": "1970-01-01T00:16:40Z"}   # closed at 1000 s
    words, colour, extra = status_panel.state_words(state, "en", 1000.0)
    assert (words, colour) == ("Bets closed", "muted")
    t, s, out = status_panel.fit_state(words, extra, 400, 40, "en", min_px=24)
    assert t == "Bets closed" and out["done"] == "Bets closed"


def test_the_countdown_of_a_portrait_lobby_tile_never_covers_the_round_number():
    """1080x1920 lobby tiles (two columns), Burmese words longest: the round number and the
    countdown's widest value ("99") side by side without overlapping, in all five languages."""
    from web.render import prims

    state = {"state": "betting", "closes_at": "1970-01-01T00:16:53Z"}
    for lang in LANGS5:
        for shoe, rnd in ((2, 39), (12, 0)):
            snap = dict(BASE, name="Live Baccarat 1", shoe=shoe, round=rnd, state=state)
            m = board_model(snap, BoardOptions(kind="tile", width=530, height=470, lang=lang), now=1000.0)
            sub = texts(m, "line2")[0]
            cd = texts(m, "time")[0]
            assert cd["fmt"]
            right_of_sub = sub["x"] + prims.width(sub["t"], sub["s"], lang)
            widest = cd["fmt"].replace("{s}", "99")
            assert cd["x"] - prims.width(widest, cd["s"], lang) >= right_of_sub, (lang, rnd, sub["t"], widest)
            assert ("Round 0" not in sub["t"]) and (rnd or sub["t"].endswith(prims.label("ui.new_shoe", lang)))


def test_a_new_shoe_says_so_and_waits_for_its_first_round_once():
    m = board_model(dict(BASE, shoe=2, round=0), BoardOptions(), now=1000.0)
    assert "Shoe 2  ·  New shoe  ·  Insurance Baccarat" in words(m) and not any("Round 0" in w for w in words(m))
    assert words(m).count("Waiting for the first round") == 1


def test_a_portrait_board_mid_round_keeps_the_dealer_beside_the_round_of_its_live_panel():
    """1080x1920 while dealing: the header has no room for the dealer, the live panel no free
    line; the dealer goes on the live panel's "Round 1" line, right-aligned, on its baseline."""
    from web.render import prims

    snap = dict(BASE, name="บาคาร่าประกัน 3", state=dict(STATE, state="dealing", closes_at=None),
                in_progress=ip(["4S", "2H"], ["KD", "5C"], 6, 5, "banker"))
    m = board_model(snap, BoardOptions(width=1080, height=1920), now=1000.0)
    live = next(p for p in m["panels"] if p["id"] == "live")
    said = texts(m, "live")
    dealer = [i for i in said if i["t"].startswith("Dealer Anna")]
    assert len(dealer) == 1 and dealer[0]["y"] == said[0]["y"] and said[0]["t"] == "Round 1"
    assert dealer[0]["a"] == "r" and dealer[0]["x"] <= live["x"] + live["w"]
    left_end = said[0]["x"] + prims.width("Round 1", said[0]["s"], "en", "r")
    assert dealer[0]["x"] - prims.width(dealer[0]["t"], dealer[0]["s"], "en", "r") > left_end
    assert not any("Dealer" in i["t"] for i in texts(m, "header"))
