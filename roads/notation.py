"""A compact text notation for a shoe's results, parsed and printed (round-trips).

One round is written as its winner letter, optionally followed by the two final totals
(player then banker, one digit each), then optional lower-case marks::

    B        banker win (default totals: player 2, banker 7)
    P        player win (default totals: player 7, banker 2)
    T        tie        (default totals: 5 - 5)
    B36      banker win, player total 3, banker total 6
    Pp       player win with a player pair
    Bbn      banker win with a banker pair on a natural (default natural totals: 2 - 8)
    T88pn    tie at 8 - 8, player pair, natural

Marks: ``p`` player pair, ``b`` banker pair, ``n`` natural (either side's two-card total is
8 or 9), each at most once, printed in that order. Whitespace between rounds is ignored.
A shoe is a run of rounds: ``"TTBPPBTB"``, ``"B B P P P B"`` (docs/domain.md
section 4 worked example).

:func:`format_rounds` prints totals only when they differ from the defaults for that
winner and natural flag, so ``parse_rounds(format_rounds(rs)) == rs`` for every list of
result-level rounds (:meth:`RoundResult.from_result` without card counts), and a failing
road test can print one line that reproduces its shoe.
"""

from __future__ import annotations

from typing import Iterable

from roads.outcome import ResultError, RoundResult, Winner

# (winner letter, natural) -> (player_total, banker_total) when the notation gives none.
DEFAULT_TOTALS: dict[tuple[str, bool], tuple[int, int]] = {
    ("B", False): (2, 7),
    ("P", False): (7, 2),
    ("T", False): (5, 5),
    ("B", True): (2, 8),
    ("P", True): (8, 2),
    ("T", True): (8, 8),
}
"""Totals used for a round written without digits, by (winner letter, natural mark)."""

MARKS: str = "pbn"
"""The marks in print order: player pair, banker pair, natural."""


class NotationError(ValueError):
    """Text that is not a result string; ``position`` is the 0-based index of the bad character.

    The message quotes the text and the offending character.
    """

    def __init__(self, text: str, position: int, message: str) -> None:
        super().__init__(f"{message} at position {position} in {text!r}")
        self.text = text
        self.position = position


def parse_rounds(text: str) -> list[RoundResult]:
    """Parse a result string such as ``"TTBPPBTB"`` or ``"B36p Pn T"`` into rounds, in order.

    Returns one :class:`RoundResult` (result-level, built by :meth:`RoundResult.from_result`)
    per winner letter. Raises :class:`NotationError` for a character that is not a winner
    letter, a digit pair after a letter, a mark or whitespace; for a mark given twice or
    before any round; for a single digit; and for totals that contradict the winner or the
    natural mark (the :class:`ResultError` is chained).
    """
    if not isinstance(text, str):
        raise NotationError(repr(text), 0, "result string must be a str")
    out: list[RoundResult] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        if ch not in "BPT":
            if ch in MARKS:
                raise NotationError(text, i, f"mark {ch!r} before any round")
            raise NotationError(text, i, f"unexpected character {ch!r} (rounds are B, P or T)")
        start = i
        i += 1
        totals: tuple[int, int] | None = None
        if i < n and text[i].isdigit():
            if i + 1 >= n or not text[i + 1].isdigit():
                raise NotationError(text, i, "totals need two digits (player then banker)")
            totals = (int(text[i]), int(text[i + 1]))
            i += 2
        marks = ""
        while i < n and text[i] in MARKS:
            if text[i] in marks:
                raise NotationError(text, i, f"mark {text[i]!r} given twice")
            marks += text[i]
            i += 1
        natural = "n" in marks
        pt, bt = totals if totals is not None else DEFAULT_TOTALS[(ch, natural)]
        try:
            out.append(
                RoundResult.from_result(ch, pt, bt, player_pair="p" in marks, banker_pair="b" in marks, natural=natural)
            )
        except ResultError as exc:
            raise NotationError(text, start, f"round {text[start:i]!r}: {exc}") from exc
    return out


def format_round(result: RoundResult) -> str:
    """One round in the notation: winner letter, totals when not the defaults, marks ``pbn``."""
    w = result.winner.value
    s = w
    if (result.player_total, result.banker_total) != DEFAULT_TOTALS[(w, result.natural)]:
        s += f"{result.player_total}{result.banker_total}"
    if result.player_pair:
        s += "p"
    if result.banker_pair:
        s += "b"
    if result.natural:
        s += "n"
    return s


def format_rounds(results: Iterable[RoundResult]) -> str:
    """A shoe's rounds in the notation, no separators: the inverse of :func:`parse_rounds`."""
    return "".join(format_round(r) for r in results)


def winners(text: str) -> list[Winner]:
    """Just the winners of a result string (convenience for tests and docs)."""
    return [r.winner for r in parse_rounds(text)]
