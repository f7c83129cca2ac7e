"""Hand-worked road examples (tests/roads/golden/*.json) against ShoeRoads and its snapshot.

Each golden file was worked out by hand from the rules in domain.md section 4 (sources in
its "source" field), not from the code. Format (every key but "name", "source" and
"rounds" is optional; only what a file gives is checked):

* ``rounds``: the shoe in roads.notation (``"TTBPPBTB"``, ``"Pp"`` = player pair, ...),
  numbered 1, 2, ...;
* ``bead_plate``: ``[[x, y, winner], ...]`` in round order;
* ``big_road``: ``leading_ties``; ``columns`` as winner strings (``["BB", "PPP"]``);
  ``rounds``: each column's round numbers; ``ties``: ``[[column, row, count], ...]`` for
  every cell with ties (all others must have 0); ``marks``: ``[[column, row, "pbn"], ...]``
  for cells with a player pair / banker pair / natural (all others have none);
  ``cells``: ``[[x, y], ...]`` in result order;
* derived roads: ``sequence`` and ``columns`` as strings of ``r`` (red) / ``b`` (blue),
  ``cells`` ``[[x, y], ...]`` in entry order;
* ``ask``: ``{"banker": [big eye boy, small road, cockroach pig], "player": [...]}`` with
  ``"r"``, ``"b"`` or null;
* ``stats``: a subset of the stats piece; ``current_streak`` as ``[winner, length]`` or null;
* ``good_roads``: ``[[pattern id, length], ...]`` in order (the complete list).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from roads.notation import parse_rounds
from roads.shoe_roads import ShoeRoads

GOLDEN = sorted((Path(__file__).parent / "golden").glob("*.json"))
COLOR = {"r": "red", "b": "blue", None: None}
DERIVED = ("big_eye_boy", "small_road", "cockroach_pig")


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_golden_set_covers_every_road_case():
    names = {load(p)["name"] for p in GOLDEN}
    assert {
        "worked_example", "empty_shoe", "only_ties", "leading_ties_and_ties_on_cells",
        "dragon_tail_longer_than_six", "column_blocked_by_earlier_tail", "column_start_moved_past_tail",
        "straight_fall",
        "big_eye_boy_starts_at_row_1", "big_eye_boy_starts_at_new_column",
        "small_road_starts_at_row_1", "small_road_starts_at_new_column",
        "cockroach_pig_starts_at_row_1", "cockroach_pig_starts_at_new_column",
    } <= names
    assert len(names) == len(GOLDEN), "golden names must be unique"


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden(path: Path):
    case = load(path)
    roads = ShoeRoads.from_rounds(parse_rounds(case["rounds"]))
    where = f"{case['name']}: rounds {case['rounds']!r}"

    if "bead_plate" in case:
        got = [[b["x"], b["y"], b["winner"]] for b in roads.bead_plate_json()]
        assert got == case["bead_plate"], where
        assert [b["round"] for b in roads.bead_plate_json()] == list(range(1, len(got) + 1)), where

    if "big_road" in case:
        exp = case["big_road"]
        big = roads.big_road_json()
        assert big["leading_ties"] == exp["leading_ties"], where
        assert ["".join(c["winner"] for c in col) for col in big["columns"]] == exp["columns"], where
        if "rounds" in exp:
            assert [[c["round"] for c in col] for col in big["columns"]] == exp["rounds"], where
        ties = [[ci, ri, cell["ties"]] for ci, col in enumerate(big["columns"])
                for ri, cell in enumerate(col) if cell["ties"]]
        assert ties == exp["ties"], where
        marks = [[ci, ri, ("p" if cell["player_pair"] else "") + ("b" if cell["banker_pair"] else "")
                  + ("n" if cell["natural"] else "")]
                 for ci, col in enumerate(big["columns"]) for ri, cell in enumerate(col)]
        assert [m for m in marks if m[2]] == exp.get("marks", []), where
        assert [[c["x"], c["y"]] for c in big["cells"]] == exp["cells"], where
        # cells enumerate the logical columns in result order
        assert [(c["column"], c["row"]) for c in big["cells"]] == [
            (ci, ri) for ci, col in enumerate(big["columns"]) for ri in range(len(col))], where

    for name, k in zip(DERIVED, (1, 2, 3)):
        if name not in case:
            continue
        exp = case[name]
        road = roads.derived_json(k)
        assert road["sequence"] == [COLOR[c] for c in exp["sequence"]], f"{where}: {name} sequence"
        assert road["columns"] == [[COLOR[c] for c in col] for col in exp["columns"]], f"{where}: {name} columns"
        assert [[c["x"], c["y"]] for c in road["cells"]] == exp["cells"], f"{where}: {name} cells"
        assert [c["color"] for c in road["cells"]] == road["sequence"], where

    if "ask" in case:
        ask = roads.ask_json()
        for side in ("banker", "player"):
            assert [ask[side][n] for n in DERIVED] == [COLOR[c] for c in case["ask"][side]], f"{where}: ask {side}"

    if "stats" in case:
        stats = roads.stats_json()
        for key, value in case["stats"].items():
            if key == "current_streak" and value is not None:
                value = {"winner": value[0], "length": value[1]}
            assert stats[key] == value, f"{where}: stats {key}"

    if "good_roads" in case:
        got = [[g["pattern"], g["length"]] for g in roads.good_roads_json()]
        assert got == case["good_roads"], where
