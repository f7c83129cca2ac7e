"""The operator's good-road pattern language: a pattern text parsed into a :class:`Rule` that
measures the big road's logical columns (docs/patterns.md; big road: docs/domain.md section 4).

Grammar (keywords and sides in any case; spaces between words)::

    pattern     = streak | alternation | columns | results
    streak      = "streak" side ">=" N           side = "B" | "P" | "any"
    alternation = "alternation" ">=" N           (or "alternations")
    columns     = "columns" column { "," column }     column = [ "B" | "P" ] N [ "+" ]
    results     = "results" result { [","] result }   result = "B" | "P" (also run together: BPPB)

``N`` is an integer 1..99; ``columns`` takes at most :data:`MAX_ITEMS` columns and ``results``
at most :data:`MAX_ITEMS` results.

What each measures (``length``; the pattern is on when ``length >= threshold``). The results are
the big road's cells in order (ties take no cell):

- ``streak B >= 5``: the newest column's cells when Banker won it (``any``: whoever won it);
  threshold 5.
- ``alternation >= 4``: winner changes among the newest results in a row (the largest k such
  that the newest k + 1 results alternate B/P); threshold 4.
- ``columns 1,2,1,2`` (``B1,P2+``): k when the big road has at least k columns and its newest k,
  oldest first, have exactly those lengths (``2+``: at least 2) and winners (when given), else 0;
  threshold k. The newest column counts as it stands now (it may still grow).
- ``results B P P B``: k when the newest k results are those, oldest first, else 0; threshold k.

:func:`parse` raises :class:`PatternError` with the 1-based character position and what was
expected there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

MAX_N = 99
"""Largest count or column length a pattern may name."""

MAX_ITEMS = 24
"""Most columns (``columns``) or results (``results``) a pattern may list."""

KINDS: tuple[str, ...] = ("streak", "alternation", "columns", "results")
"""The pattern kinds, as their keywords."""

_TOKEN = re.compile(r"\s*(>=|,|\+|[A-Za-z]+|\d+|\S)")


class PatternError(ValueError):
    """A pattern text that does not parse: ``position`` (1-based character), ``expected`` (what
    the grammar allows there) and ``found`` (the text there, ``"end of pattern"`` at the end)."""

    def __init__(self, position: int, expected: str, found: str) -> None:
        self.position, self.expected, self.found = position, expected, found
        super().__init__(f"at position {position}: expected {expected}, found {found}")


@dataclass(frozen=True)
class Rule:
    """A parsed pattern (see the module docstring). ``kind`` one of :data:`KINDS`; ``side``
    (streak: ``"B"``/``"P"``/``None`` = any); ``count`` (streak, alternation: N); ``items``
    (columns: ``(side | None, length, at_least)`` each; results: ``"B"``/``"P"`` each)."""

    kind: str
    side: str | None = None
    count: int = 0
    items: tuple = ()

    @property
    def threshold(self) -> int:
        """The smallest ``length`` at which the pattern is on."""
        return self.count if self.kind in ("streak", "alternation") else len(self.items)

    def measure(self, lengths: Sequence[int], winners: Sequence[str]) -> int:
        """The pattern's length for big-road columns ``lengths`` (cells each, all >= 1) and
        ``winners`` (``"B"``/``"P"``, alternating), 0 when absent. O(threshold) at most, apart
        from ``alternation``'s scan of the newest single-cell columns."""
        c = len(lengths)
        if c == 0:
            return 0
        if self.kind == "streak":
            return lengths[-1] if self.side is None or winners[-1] == self.side else 0
        if self.kind == "alternation":
            if lengths[-1] > 1:
                return 0
            i = c - 1
            while i >= 0 and lengths[i] == 1:
                i -= 1
            singles = c - 1 - i
            return singles if i >= 0 else singles - 1  # a longer column before: its last cell alternates too
        if self.kind == "columns":
            k = len(self.items)
            if c < k:
                return 0
            for (side, n, at_least), length, w in zip(self.items, lengths[c - k:], winners[c - k:]):
                if (side is not None and side != w) or (length < n if at_least else length != n):
                    return 0
            return k
        # results: the newest cells, oldest first
        want = self.items
        k = len(want)
        i = k - 1
        col = c - 1
        left = lengths[col]
        while i >= 0:
            if col < 0 or winners[col] != want[i]:
                return 0
            i -= 1
            left -= 1
            if left == 0:
                col -= 1
                left = lengths[col] if col >= 0 else 0
        return k


def parse(text: str) -> Rule:
    """The :class:`Rule` of pattern ``text``. Raises :class:`PatternError` (position, expected)."""
    if not isinstance(text, str):
        raise PatternError(1, "a pattern text", repr(text))
    tokens = _tokens(text)
    p = _Parser(text, tokens)
    word = p.word(" or ".join(f'"{k}"' for k in KINDS))
    kind = {"alternations": "alternation"}.get(word, word)
    if kind not in KINDS:
        p.fail(" or ".join(f'"{k}"' for k in KINDS), back=1)
    if kind == "streak":
        side = p.word('a side ("B", "P" or "any")')
        if side not in ("b", "p", "any"):
            p.fail('a side ("B", "P" or "any")', back=1)
        p.symbol(">=")
        rule = Rule("streak", side=None if side == "any" else side.upper(), count=p.number())
    elif kind == "alternation":
        p.symbol(">=")
        rule = Rule("alternation", count=p.number())
    elif kind == "columns":
        items = [p.column()]
        while p.peek() == ",":
            p.take()
            if len(items) == MAX_ITEMS:
                p.fail(f"the end of the pattern (at most {MAX_ITEMS} columns)", back=1)
            items.append(p.column())
        rule = Rule("columns", items=tuple(items))
    else:
        items = p.results()
        rule = Rule("results", items=tuple(items))
    p.end()
    return rule


def _tokens(text: str) -> list[tuple[int, str]]:
    """``(1-based position, token)`` of each word, number or symbol of ``text``."""
    out = []
    pos = 0
    while True:
        m = _TOKEN.match(text, pos)
        if m is None:
            return out
        out.append((m.start(1) + 1, m.group(1)))
        pos = m.end()


class _Parser:
    """A cursor over the tokens with the error helpers of :func:`parse`."""

    def __init__(self, text: str, tokens: list[tuple[int, str]]) -> None:
        self.text, self.tokens, self.i = text, tokens, 0

    def peek(self) -> str | None:
        return self.tokens[self.i][1] if self.i < len(self.tokens) else None

    def take(self) -> str:
        tok = self.tokens[self.i][1]
        self.i += 1
        return tok

    def fail(self, expected: str, back: int = 0) -> None:
        self.i -= back
        if self.i < len(self.tokens):
            pos, tok = self.tokens[self.i]
            raise PatternError(pos, expected, repr(tok))
        raise PatternError(len(self.text.rstrip()) + 1, expected, "the end of the pattern")

    def word(self, expected: str) -> str:
        tok = self.peek()
        if tok is None or not tok.isalpha():
            self.fail(expected)
        return self.take().lower()

    def symbol(self, sym: str) -> None:
        if self.peek() != sym:
            self.fail(f'"{sym}"')
        self.take()

    def number(self) -> int:
        tok = self.peek()
        if tok is None or not tok.isdigit() or not 1 <= int(tok) <= MAX_N:
            self.fail(f"a whole number from 1 to {MAX_N}")
        return int(self.take())

    def column(self) -> tuple[str | None, int, bool]:
        side = None
        tok = self.peek()
        if tok is not None and tok.isalpha():
            if tok.lower() not in ("b", "p"):
                self.fail('a column: a length (1 to 99), after "B" or "P" if you like')
            side = self.take().upper()
        n = self.number()
        at_least = self.peek() == "+"
        if at_least:
            self.take()
        return side, n, at_least

    def results(self) -> list[str]:
        out: list[str] = []
        expected = 'a result ("B" or "P")'
        while True:
            tok = self.peek()
            if tok is None and out:
                return out
            if tok is None or not tok.isalpha() or any(ch not in "bBpP" for ch in tok):
                if tok is not None and tok.isalpha():  # point at the first letter that is not B or P
                    pos = self.tokens[self.i][0] + next(j for j, ch in enumerate(tok) if ch not in "bBpP")
                    raise PatternError(pos, expected, repr(self.text[pos - 1]))
                self.fail(expected)
            if len(out) + len(tok) > MAX_ITEMS:
                self.fail(f"the end of the pattern (at most {MAX_ITEMS} results)")
            out.extend(self.take().upper())
            if self.peek() == ",":
                self.take()
                if self.peek() is None:
                    self.fail(expected)

    def end(self) -> None:
        if self.i < len(self.tokens):
            self.fail("the end of the pattern")
