"""Side-bet names in a board's panel break before a bet name, never before "·" (fresh-user review)."""

from __future__ import annotations

import pytest

from web.render import prims
from web.render.bets import _wrap_row


def w(t: str, s: int = 30) -> float:
    return prims.width(t, s, "en", "r")


def test_until_stays_with_the_last_name():
    # first line just wide enough for "Big, Small": the old wrap gave "Big, Small" / "· until round 30"
    lines = _wrap_row("Big, Small", "· until round 30", w("Big, Small"), w("Small · until round 30"), 30, "en")
    assert lines == ["Big,", "Small · until round 30"]


def test_a_two_word_name_is_not_split():
    # room for "Lucky Six, Either pair, Perfect": the old wrap left "pair" alone on the next line
    room = w("Lucky Six, Either pair, Perfect")
    lines = _wrap_row("Lucky Six, Either pair, Perfect pair", "", room, room, 30, "en")
    assert lines == ["Lucky Six, Either pair,", "Perfect pair"]


def test_names_that_fit_stay_on_one_line():
    assert _wrap_row("Big, Small", "· until round 30", 10_000, 10_000, 30, "en") == ["Big, Small · until round 30"]


@pytest.mark.parametrize("room", range(40, 700, 7))
def test_no_line_starts_with_the_dot(room):
    names = "Lucky Six, Either pair, Perfect pair, Big, Small"
    lines = _wrap_row(names, "· until round 30", room, room, 30, "en")
    assert " ".join(lines) == names + " · until round 30"
    assert not any(ln.startswith("·") for ln in lines)
    if room >= w("Perfect pair,"):  # every name fits a line of its own: none is split
        assert not any(ln in ("pair", "pair,", "Six,", "pair ·") for ln in lines)
