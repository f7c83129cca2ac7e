"""roads.notation: the compact result-string notation parses, prints and round-trips."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roads.notation import DEFAULT_TOTALS, NotationError, format_round, format_rounds, parse_rounds, winners
from roads.outcome import ResultError, RoundResult, Winner


def test_example_string_parses_to_its_winners():
    assert [r.winner.value for r in parse_rounds("TTBPPBTB")] == list("TTBPPBTB")


def test_whitespace_between_rounds_is_ignored():
    assert winners(" B B\tP\nP ") == [Winner.BANKER, Winner.BANKER, Winner.PLAYER, Winner.PLAYER]


def test_empty_string_is_an_empty_shoe():
    assert parse_rounds("") == []
    assert format_rounds([]) == ""


def test_default_totals_are_consistent_with_the_winner():
    for (letter, natural), (pt, bt) in DEFAULT_TOTALS.items():
        assert Winner.of_totals(pt, bt).value == letter
        assert (max(pt, bt) >= 8) == natural


def test_defaults_marks_and_explicit_totals():
    b, pp, bbn, t = parse_rounds("B Pp Bbn T88pn")
    assert b == RoundResult.from_result("B", 2, 7)
    assert pp == RoundResult.from_result("P", 7, 2, player_pair=True)
    assert bbn == RoundResult.from_result("B", 2, 8, banker_pair=True, natural=True)
    assert t == RoundResult.from_result("T", 8, 8, player_pair=True, natural=True)
    assert parse_rounds("B36")[0] == RoundResult.from_result("B", 3, 6)


def test_format_prints_totals_only_when_not_the_default_and_marks_in_pbn_order():
    assert format_round(RoundResult.from_result("B", 2, 7)) == "B"
    assert format_round(RoundResult.from_result("B", 3, 6)) == "B36"
    assert format_round(RoundResult.from_result("T", 6, 6, True, True, False)) == "T66pb"
    assert format_round(RoundResult.from_result("T", 8, 8, True, True, True)) == "Tpbn"
    assert format_round(RoundResult.from_result("P", 8, 2, banker_pair=True, natural=True)) == "Pbn"


@pytest.mark.parametrize(
    "text, position, fragment",
    [
        ("BXP", 1, "unexpected character 'X'"),
        ("p", 0, "mark 'p' before any round"),
        ("Bpp", 2, "mark 'p' given twice"),
        ("B3", 1, "two digits"),
        ("B3P", 1, "two digits"),
        ("B72", 0, "contradicts totals"),
        ("Bn", -1, None),  # valid: the natural default 2-8
        ("B27n", 0, "natural claimed but neither total is 8 or 9"),
        ("b", 0, "mark 'b' before any round"),
    ],
)
def test_bad_strings_raise_notation_error_with_position(text, position, fragment):
    if fragment is None:
        assert parse_rounds(text)[0].natural
        return
    with pytest.raises(NotationError) as info:
        parse_rounds(text)
    assert info.value.position == position
    assert fragment in str(info.value)
    assert repr(text) in str(info.value)


def test_contradicting_totals_chain_the_result_error():
    with pytest.raises(NotationError) as info:
        parse_rounds("P27")
    assert isinstance(info.value.__cause__, ResultError)
    assert info.value.__cause__.field == "winner"


def test_non_string_is_rejected():
    with pytest.raises(NotationError):
        parse_rounds(None)  # type: ignore[arg-type]


totals = st.tuples(st.integers(0, 9), st.integers(0, 9))


@st.composite
def result_level_round(draw) -> RoundResult:
    pt, bt = draw(totals)
    natural = max(pt, bt) >= 8 and draw(st.booleans())
    # A pair's two cards total 0, 2, 4, 6 or 8; on a natural round that is the final total.
    pp = draw(st.booleans()) and (not natural or pt % 2 == 0)
    bp = draw(st.booleans()) and (not natural or bt % 2 == 0)
    return RoundResult.from_result(Winner.of_totals(pt, bt), pt, bt, pp, bp, natural)


@settings(max_examples=150, deadline=None)
@given(st.lists(result_level_round(), max_size=30))
def test_format_then_parse_round_trips(results):
    assert parse_rounds(format_rounds(results)) == results
