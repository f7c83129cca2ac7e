"""Property tests: incremental roads == a rebuild from the round list == a naive reference.

The reference below is written from the wording of domain.md section 4, independently of
roads/: a from-scratch big road, dragon-tail placement with an occupancy dict, derived
roads read off the logical column matrix ("the cell beside is empty but the one above it
is not"), and the ask road computed by actually appending the hypothetical result and
rebuilding. Failing examples print the shoe in roads.notation, so they can be replayed with
``ShoeRoads.from_rounds(parse_rounds(...))``.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from roads.good_roads import good_roads
from roads.notation import format_rounds, parse_rounds
from roads.outcome import RoundResult
from roads.shoe_roads import ShoeRoads

# ----------------------------------------------------------------------------- reference
ROWS = 6
DERIVED = (("big_eye_boy", 1), ("small_road", 2), ("cockroach_pig", 3))


def ref_place(column_lengths: list[int]) -> list[tuple[int, int]]:
    """Dragon-tail placement straight from the wording: occupancy dict, one column at a time."""
    taken: dict[tuple[int, int], bool] = {}
    out = []
    start = -1
    for length in column_lengths:
        x = start + 1
        while (x, 0) in taken:
            x += 1
        start = x
        y = 0
        turned = False
        taken[(x, y)] = True
        out.append((x, y))
        for _ in range(length - 1):
            if not turned and y + 1 < ROWS and (x, y + 1) not in taken:
                y += 1
            else:
                turned = True
                x += 1
            taken[(x, y)] = True
            out.append((x, y))
    return out


def ref_big_road(results: list[tuple[int, RoundResult]]) -> dict:
    leading = 0
    columns: list[list[dict]] = []
    for number, r in results:
        w = r.winner.value
        if w == "T":
            if columns:
                columns[-1][-1]["ties"] += 1
            else:
                leading += 1
            continue
        cell = {"round": number, "winner": w, "ties": 0, "player_pair": r.player_pair,
                "banker_pair": r.banker_pair, "natural": r.natural}
        if columns and columns[-1][0]["winner"] == w:
            columns[-1].append(cell)
        else:
            columns.append([cell])
    return {"leading_ties": leading, "columns": columns}


def ref_derived(columns: list[list], k: int) -> list[str]:
    def filled(c: int, r: int) -> bool:
        return 0 <= c < len(columns) and 0 <= r < len(columns[c])

    cells = [(c, r) for c, col in enumerate(columns) for r in range(len(col))]
    started = False
    seq = []
    for c, r in cells:
        if not started:
            started = (c >= k and r >= 1) or c >= k + 1
            if not started:
                continue
        if r == 0:
            seq.append("red" if len(columns[c - 1]) == len(columns[c - 1 - k]) else "blue")
        else:
            beside_empty = not filled(c - k, r)
            above_beside = filled(c - k, r - 1)
            seq.append("blue" if beside_empty and above_beside else "red")
    return seq


def ref_runs(seq: list[str]) -> list[int]:
    runs: list[int] = []
    for i, s in enumerate(seq):
        if i and seq[i - 1] == s:
            runs[-1] += 1
        else:
            runs.append(1)
    return runs


def reference(results: list[tuple[int, RoundResult]]) -> dict:
    """Every road of the shoe, from scratch, in the snapshot's terms."""
    big = ref_big_road(results)
    cols = big["columns"]
    lengths = [len(c) for c in cols]
    out = {
        "bead_plate": [[i // ROWS, i % ROWS, n, r.winner.value] for i, (n, r) in enumerate(results)],
        "big_road": {
            "leading_ties": big["leading_ties"],
            "columns": cols,
            "cells": [list(xy) for xy in ref_place(lengths)],
        },
    }
    for name, k in DERIVED:
        seq = ref_derived(cols, k)
        out[name] = {"sequence": seq, "cells": [list(xy) for xy in ref_place(ref_runs(seq))]}
    ask: dict = {"banker": {}, "player": {}}
    for side, letter in (("banker", "B"), ("player", "P")):
        hypo = ref_big_road(results + [(10**6, RoundResult.from_result(letter, *((2, 7) if letter == "B" else (7, 2))))])
        for name, k in DERIVED:
            before, after = out[name]["sequence"], ref_derived(hypo["columns"], k)
            ask[side][name] = after[-1] if len(after) > len(before) else None
    out["ask"] = ask
    wins = [r.winner.value for _, r in results]
    b_cols = [len(c) for c in cols if c[0]["winner"] == "B"]
    p_cols = [len(c) for c in cols if c[0]["winner"] == "P"]
    out["stats"] = {
        "rounds": len(results), "banker": wins.count("B"), "player": wins.count("P"), "tie": wins.count("T"),
        "banker_pair": sum(r.banker_pair for _, r in results), "player_pair": sum(r.player_pair for _, r in results),
        "natural": sum(r.natural for _, r in results),
        "current_streak": {"winner": cols[-1][0]["winner"], "length": len(cols[-1])} if cols else None,
        "longest_banker_streak": max(b_cols, default=0), "longest_player_streak": max(p_cols, default=0),
    }
    out["good_roads"] = good_roads(lengths, [c[0]["winner"] for c in cols])
    return out


def view(roads: ShoeRoads) -> dict:
    """The parts of a ShoeRoads that the reference computes, in the reference's terms."""
    big = roads.big_road_json()
    out = {
        "bead_plate": [[b["x"], b["y"], b["round"], b["winner"]] for b in roads.bead_plate_json()],
        "big_road": {"leading_ties": big["leading_ties"], "columns": big["columns"],
                     "cells": [[c["x"], c["y"]] for c in big["cells"]]},
    }
    for name, k in DERIVED:
        d = roads.derived_json(k)
        out[name] = {"sequence": d["sequence"], "cells": [[c["x"], c["y"]] for c in d["cells"]]}
    out["ask"] = roads.ask_json()
    stats = dict(roads.stats_json())
    stats.pop("shares")
    out["stats"] = stats
    out["good_roads"] = roads.good_roads_json()
    return out


# ----------------------------------------------------------------------------- strategies
TOKENS = ["B", "P", "T", "B", "P", "B", "P", "Bp", "Pb", "Bn", "Pn", "Tn", "Bpb", "T88pbn", "B36", "P70"]
RESULTS = [parse_rounds(t)[0] for t in TOKENS]
result = st.sampled_from(RESULTS)


@st.composite
def streaky(draw) -> list[RoundResult]:
    """Long runs of one winner (dragon tails, blocked columns), a few ties in between."""
    out: list[RoundResult] = []
    for _ in range(draw(st.integers(1, 12))):
        side = draw(st.sampled_from("BP"))
        for _ in range(draw(st.integers(1, 14))):
            out.append(parse_rounds(side)[0])
            if draw(st.integers(0, 9)) == 0:
                out.append(parse_rounds("T")[0])
    return out


op = st.one_of(
    st.tuples(st.just("record"), result, st.integers(1, 2)),
    st.tuples(st.just("void"), st.floats(0, 1, exclude_max=True)),
    st.tuples(st.just("correct"), st.floats(0, 1, exclude_max=True), result),
)


def check(roads: ShoeRoads) -> None:
    counted = roads.counted_rounds()
    note(f"counted rounds: {format_rounds(r for _, r in counted)!r} numbers {[n for n, _ in counted]}")
    rebuilt = ShoeRoads.from_rounds(counted)
    assert view(roads) == view(rebuilt)
    ours, theirs = dict(roads.pieces()), dict(rebuilt.pieces())
    # history the round list does not carry ("round" is the shoe's round number, voids included)
    for key in ("round", "last_round_number", "voided"):
        ours.pop(key), theirs.pop(key)
    assert ours == theirs
    assert view(roads) == reference(counted)


# ----------------------------------------------------------------------------- properties
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.lists(result, max_size=70))
def test_recorded_random_shoe_matches_reference(results):
    note(f"shoe: {format_rounds(results)!r}")
    check(ShoeRoads.from_rounds(results))


@SETTINGS
@given(streaky())
def test_recorded_streaky_shoe_matches_reference(results):
    note(f"shoe: {format_rounds(results)!r}")
    check(ShoeRoads.from_rounds(results))


def run_ops(start: list[RoundResult], ops: list) -> ShoeRoads:
    roads = ShoeRoads.from_rounds(start)
    number = roads.last_round_number
    snapshots = []
    for item in ops:
        counted = roads.counted_rounds()
        if item[0] == "record":
            number += item[2]
            roads.record(number, item[1])
        elif not counted:
            continue
        elif item[0] == "void":
            roads.void(counted[int(item[1] * len(counted))][0])
        else:
            roads.correct(counted[int(item[2 - 1] * len(counted))][0], item[2])
        snapshots.append((roads.pieces(), json.dumps(roads.pieces(), sort_keys=True)))
    # Pieces handed out earlier never change afterwards.
    for pieces, encoded in snapshots:
        assert json.dumps(pieces, sort_keys=True) == encoded
    return roads


@SETTINGS
@given(st.lists(result, max_size=40), st.lists(op, max_size=25))
def test_record_void_correct_random_equals_rebuild(start, ops):
    note(f"start: {format_rounds(start)!r}; ops: {[(o[0],) + tuple(format_rounds([x]) if isinstance(x, RoundResult) else x for x in o[1:]) for o in ops]}")
    check(run_ops(start, ops))


@SETTINGS
@given(streaky(), st.lists(op, max_size=25))
def test_record_void_correct_streaky_equals_rebuild(start, ops):
    note(f"start: {format_rounds(start)!r}")
    check(run_ops(start, ops))


# ----------------------------------------------------------------------------- the ask preview
def hypothetical(letter: str) -> RoundResult:
    """The round the preview adds, as the ask road describes it: that side wins 1-0, nothing else."""
    return RoundResult.from_result(letter, *((0, 1) if letter == "B" else (1, 0)))


def check_preview(roads: ShoeRoads) -> None:
    """``with_next`` is the reference's roads of the counted rounds plus the hypothetical round,
    and each derived road gains exactly the snapshot's ask entry for that side."""
    counted = roads.counted_rounds()
    note(f"counted rounds: {format_rounds(r for _, r in counted)!r} numbers {[n for n, _ in counted]}")
    before = reference(counted)
    for side, letter in (("banker", "B"), ("player", "P")):
        preview = roads.with_next(letter)
        expected = reference(counted + [(roads.last_round_number + 1, hypothetical(letter))])
        assert view(preview) == expected
        for name, _ in DERIVED:
            entry = roads.ask_json()[side][name]
            grown = expected[name]["sequence"]
            assert grown == before[name]["sequence"] + ([entry] if entry is not None else [])
        assert preview.voided_json() == roads.voided_json()


@st.composite
def leading_ties(draw) -> list[RoundResult]:
    """A shoe that opens with ties (kept on the first cell), then anything, ties included."""
    return [parse_rounds("T")[0]] * draw(st.integers(1, 4)) + draw(st.lists(result, max_size=40))


@SETTINGS
@given(st.lists(result, max_size=70))
def test_preview_of_a_random_shoe_matches_the_reference_and_the_ask_road(results):
    note(f"shoe: {format_rounds(results)!r}")
    check_preview(ShoeRoads.from_rounds(results))


@SETTINGS
@given(leading_ties())
def test_preview_of_a_shoe_opening_with_ties_matches_the_reference_and_the_ask_road(results):
    note(f"shoe: {format_rounds(results)!r}")
    check_preview(ShoeRoads.from_rounds(results))


@SETTINGS
@given(streaky(), st.lists(op, max_size=25))
def test_preview_after_voids_and_corrections_matches_the_reference_and_the_ask_road(start, ops):
    note(f"start: {format_rounds(start)!r}")
    check_preview(run_ops(start, ops))
