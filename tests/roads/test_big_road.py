"""roads.big_road: logical columns, ties on cells, leading ties, marks (domain.md section 4)."""

from __future__ import annotations

import pytest

from roads.big_road import BigRoad, cell_json
from roads.notation import parse_rounds


def build(text: str) -> BigRoad:
    road = BigRoad()
    for n, r in enumerate(parse_rounds(text), 1):
        road.push(n, r)
    return road


def shape(road: BigRoad) -> list[str]:
    return ["".join(c["winner"] for c in col) for col in road.columns]


def test_same_winner_goes_down_a_change_starts_a_new_column():
    road = build("BBPPPB")
    assert shape(road) == ["BB", "PPP", "B"]
    assert road.lengths == [2, 3, 1] and road.winners == ["B", "P", "B"]
    assert road.last_winner == "B" and len(road) == 6


def test_push_returns_the_logical_cell_or_none_for_a_tie():
    road = BigRoad()
    b, p, t = parse_rounds("BPT")
    assert road.push(1, t) is None
    assert road.push(2, b) == (0, 0)
    assert road.push(3, b) == (0, 1)
    assert road.push(4, p) == (1, 0)
    assert road.push(5, t) is None


def test_leading_ties_are_kept_apart_and_later_ties_count_on_the_newest_cell():
    road = build("TTBTTTPT")
    assert road.leading_ties == 2
    assert [[c["ties"] for c in col] for col in road.columns] == [[3], [1]]


def test_a_tie_never_breaks_a_column():
    assert shape(build("BTBTTB")) == ["BBB"]


def test_marks_belong_to_the_cells_own_round_and_tie_marks_stay_off_the_road():
    road = build("Bpn Tpb Pb")
    (b,), (p,) = road.columns
    assert (b["player_pair"], b["banker_pair"], b["natural"], b["ties"]) == (True, False, True, 1)
    assert (p["player_pair"], p["banker_pair"], p["natural"]) == (False, True, False)


def test_cell_json_shape():
    r = parse_rounds("P")[0]
    assert cell_json(9, r, 2) == {"round": 9, "winner": "P", "ties": 2, "player_pair": False,
                                  "banker_pair": False, "natural": False}


def test_only_ties_leave_the_road_empty():
    road = build("TTTT")
    assert road.leading_ties == 4 and road.columns == [] and road.cells == [] and road.last_winner is None


def test_json_copies_lists_so_later_pushes_do_not_change_it():
    road = build("BBT")
    piece = road.json()
    road.push(4, parse_rounds("T")[0])
    road.push(5, parse_rounds("B")[0])
    road.push(6, parse_rounds("P")[0])
    assert [[c["ties"] for c in col] for col in piece["columns"]] == [[0, 1]]
    assert len(piece["cells"]) == 2 and piece["width"] == 1


def test_pop_undoes_each_kind_of_push():
    results = parse_rounds("TBTBPTP")
    road = BigRoad()
    states = []
    for n, r in enumerate(results, 1):
        states.append((road.leading_ties, shape(road), [[c["ties"] for c in col] for col in road.columns],
                       [(c["x"], c["y"]) for c in road.cells]))
        road.push(n, r)
    for r, state in zip(reversed(results), reversed(states)):
        road.pop(r)
        assert (road.leading_ties, shape(road), [[c["ties"] for c in col] for col in road.columns],
                [(c["x"], c["y"]) for c in road.cells]) == state


def test_pop_without_matching_push_raises_index_error():
    t, b = parse_rounds("TB")
    with pytest.raises(IndexError, match="no tie"):
        BigRoad().pop(t)
    with pytest.raises(IndexError, match="no cell"):
        BigRoad().pop(b)
    road = BigRoad()
    road.push(1, b)
    with pytest.raises(IndexError, match="no tie"):
        road.pop(t)
