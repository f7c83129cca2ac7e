"""The "If Banker" / "If Player" preview (``/tables/<id>/model.json?ask=banker|player``): the board
as if that side won the next round, which is what the snapshot's own ask road names.

Hand-worked (docs/domain.md section 4): B (player 3, banker 7), T (5-5), P (7-3). A Banker next:
big road columns [B with one tie] [P] [B]; the big eye boy starts at column 2 row 0 and columns
1 and 0 hold one cell each: red ("repeat"), its only entry. A Player next: [B with one tie]
[P P]; column 0 holds exactly one cell: blue ("break").
"""

from __future__ import annotations

import pytest

from web.render.cells import DERIVED_COLOURS

DERIVED = ("big_eye_boy", "small_road", "cockroach_pig")


def result(winner: str, player: int, banker: int) -> dict:
    return {"winner": winner, "player_total": player, "banker_total": banker, "player_pair": False,
            "banker_pair": False, "natural": False}


def preview(client, side: str, table: str = "T1") -> dict:
    resp = client.get(f"/tables/{table}/model.json?ask={side}&orient=landscape")
    assert resp.status_code == 200, resp.get_data(as_text=True)
    return resp.get_json()["models"]["landscape"]


def cells(model: dict, road: str) -> list[dict]:
    return next(r for r in model["roads"] if r["id"] == road)["cells"]


def test_the_preview_counts_a_tie_on_its_cell_as_the_ask_road_does(client, feed):
    for n, (w, p, b) in enumerate([("B", 3, 7), ("T", 5, 5), ("P", 7, 3)], 1):
        assert feed.round(1, n, result=result(w, p, b)).status_code == 201
    banker = preview(client, "banker")
    assert [(c["k"], c["c"], c.get("ties", 0)) for c in cells(banker, "big_road")] == [
        ("0.0", "banker", 1), ("1.0", "player", 0), ("2.0", "banker", 0)]
    assert [(c["k"], c["c"]) for c in cells(banker, "big_eye_boy")] == [(0, "repeat")]
    assert cells(banker, "small_road") == [] and cells(banker, "cockroach_pig") == []
    player = preview(client, "player")
    assert [(c["k"], c["c"], c.get("ties", 0)) for c in cells(player, "big_road")] == [
        ("0.0", "banker", 1), ("1.0", "player", 0), ("1.1", "player", 0)]
    assert [(c["k"], c["c"]) for c in cells(player, "big_eye_boy")] == [(0, "break")]
    ask = client.get("/api/tables/T1").get_json()["ask"]
    assert (ask["banker"]["big_eye_boy"], ask["player"]["big_eye_boy"]) == ("red", "blue")


@pytest.mark.parametrize("seed", [3, 11, 19])
def test_the_preview_adds_the_ask_roads_entries_in_shoes_with_leading_ties_ties_and_voids(client, feed, deal, seed):
    rounds = [{"result": result("T", 4, 4)}, {"result": result("T", 6, 6)}]  # leading ties
    rounds += [{"player": p, "banker": b} for p, b in deal(30, seed=seed)]
    for n, body in enumerate(rounds, 1):
        assert feed.round(1, n, **({"result": body["result"]} if "result" in body else body)).status_code == 201
    for n in (7, 30):
        assert feed.void(1, n, "misdeal").status_code == 201
    snap = client.get("/api/tables/T1").get_json()
    assert any(b["winner"] == "T" for b in snap["bead_plate"][2:])  # ties after the first cell too
    columns = snap["big_road"]["columns"]
    for side, letter in (("banker", "B"), ("player", "P")):
        model = preview(client, side)
        newest = cells(model, "big_road")[-1]
        where = (f"{len(columns) - 1}.{len(columns[-1])}" if columns[-1][0]["winner"] == letter
                 else f"{len(columns)}.0")
        assert (newest["k"], newest["c"]) == (where, side)
        for road in DERIVED:
            entry = snap["ask"][side][road]
            before = len(snap[road]["sequence"])
            last = cells(model, road)[-1]
            if entry is None:
                assert last["k"] == before - 1
            else:
                assert (last["k"], last["c"]) == (before, DERIVED_COLOURS[entry])
