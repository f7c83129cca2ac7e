"""The derived roads: big eye boy (k = 1), small road (k = 2), cockroach pig (k = 3).

docs/domain.md section 4 ("Derived roads"). They are computed from the big road's
*logical* columns (before dragon tails), one entry per big-road cell from their starting
cell on. For the big-road cell at logical column ``c``, row ``r`` (0-based), with
``L[i]`` the number of cells in logical column ``i``:

* the road has an entry for the cell once ``c >= k and r >= 1``, or ``c >= k + 1``
  (so the first entry is either row 1 of column k, or row 0 of column k + 1 when column k
  has a single cell);
* ``r == 0`` (the cell starts a new column): red when ``L[c-1] == L[c-1-k]``, else blue;
* ``r >= 1``: blue when ``L[c-k] == r`` (the cell beside is empty but the one above it is
  not), else red; this includes the "straight fall" case ``L[c-k] < r`` (red).

Only finished columns are read (``c-1``, ``c-1-k`` and ``c-k`` are all left of ``c``), so
an entry never changes once made. Each derived road is laid out like the big road: same
colour goes down, a change starts a new column, dragon tails (:class:`roads.grid.TailGrid`).
"""

from __future__ import annotations

from typing import Sequence

from roads.grid import ROWS, TailGrid

RED: str = "red"
"""Entry colour: the big road repeats the earlier pattern (Banker colour on the board)."""
BLUE: str = "blue"
"""Entry colour: the big road breaks the earlier pattern (Player colour on the board)."""

DERIVED_ROADS: tuple[tuple[str, int], ...] = (("big_eye_boy", 1), ("small_road", 2), ("cockroach_pig", 3))
"""Snapshot name and offset k of each derived road, in board order."""


def has_entry(column: int, row: int, k: int) -> bool:
    """Whether the road with offset ``k`` has an entry for big-road cell (column, row)."""
    return column >= k + 1 or (row >= 1 and column >= k)


def derived_color(lengths: Sequence[int], column: int, row: int, k: int) -> str | None:
    """Colour (:data:`RED`/:data:`BLUE`) the road with offset ``k`` adds for big-road cell
    (column, row), or ``None`` when that road has not started at this cell.

    ``lengths[i]`` is the cell count of logical column ``i``; only columns left of
    ``column`` are read, so ``lengths`` may or may not include the column being filled.
    Raises ``IndexError`` when ``lengths`` lacks a column the rule reads.
    """
    if row == 0:
        if column < k + 1:
            return None
        return RED if lengths[column - 1] == lengths[column - 1 - k] else BLUE
    if column < k:
        return None
    return BLUE if lengths[column - k] == row else RED


def derived_sequence(lengths: Sequence[int], k: int) -> list[str]:
    """The whole entry sequence of the road with offset ``k`` for finished logical columns of
    the given lengths (a from-scratch helper for docs and tests)."""
    out: list[str] = []
    for c, n in enumerate(lengths):
        for r in range(n):
            color = derived_color(lengths, c, r, k)
            if color is not None:
                out.append(color)
    return out


_RUNS_MAX = 64
_RUNS: dict[str, tuple[list[str], ...]] = {
    color: tuple([color] * n for n in range(_RUNS_MAX)) for color in (RED, BLUE)
}


def _run(color: str, n: int) -> list[str]:
    """A column of ``n`` entries of ``color``: ``[color] * n``, one shared list per colour and
    length below :data:`_RUNS_MAX` (a new list for longer ones). A derived road's columns
    are these lists, replaced rather than appended to, so snapshots share them: read-only."""
    return _RUNS[color][n] if n < _RUNS_MAX else [color] * n


class DerivedRoad:
    """One derived road, extended one big-road cell at a time (:meth:`push`, undo :meth:`pop`).

    Attributes (read them, do not change them): ``k`` (1, 2 or 3), ``name``;
    ``sequence`` (entry colours in order); ``columns`` (the road's own columns of equal
    colour, ``list[list[str]]``; each column list is shared and never changed: a longer
    column replaces it); ``cells`` (grid placement of every entry, dicts ``{"x", "y",
    "column", "row", "color"}``, never changed once made); ``grid`` (:class:`TailGrid`).
    """

    __slots__ = ("k", "name", "sequence", "columns", "cells", "grid")

    def __init__(self, k: int, name: str | None = None, rows: int = ROWS) -> None:
        if k not in (1, 2, 3):
            raise ValueError(f"derived road offset k must be 1, 2 or 3, got {k!r}")
        self.k = k
        self.name = name if name is not None else DERIVED_ROADS[k - 1][0]
        self.sequence: list[str] = []
        self.columns: list[list[str]] = []
        self.cells: list[dict] = []
        self.grid = TailGrid(rows)

    def __len__(self) -> int:
        return len(self.sequence)

    def push(self, lengths: Sequence[int], column: int, row: int) -> str | None:
        """Extend the road for the new big-road cell (column, row). Returns the colour added,
        or ``None`` when the road has no entry for that cell."""
        k = self.k
        if row:
            if column < k:
                return None
            color = BLUE if lengths[column - k] == row else RED
        else:
            if column <= k:
                return None
            color = RED if lengths[column - 1] == lengths[column - 1 - k] else BLUE
        seq = self.sequence
        columns = self.columns
        if seq and seq[-1] == color:
            c = len(columns) - 1
            r = len(columns[c])
            columns[c] = _run(color, r + 1)
            x, y = self.grid.extend()
        else:
            c = len(columns)
            r = 0
            columns.append(_run(color, 1))
            x, y = self.grid.start()
        seq.append(color)
        self.cells.append({"x": x, "y": y, "column": c, "row": r, "color": color})
        return color

    def pop(self, column: int, row: int) -> str | None:
        """Undo the :meth:`push` for big-road cell (column, row), the newest one pushed.
        Returns the colour removed (``None`` when that cell added nothing)."""
        if not has_entry(column, row, self.k):
            return None
        color = self.sequence.pop()
        self.cells.pop()
        self.grid.pop()
        n = len(self.columns[-1]) - 1
        if n:
            self.columns[-1] = _run(color, n)
        else:
            self.columns.pop()
        return color

    def json(self) -> dict:
        """Snapshot piece: ``{"sequence", "columns", "cells", "width"}`` (copies of the
        lists; cell dicts and column lists shared)."""
        return {"sequence": self.sequence[:], "columns": self.columns[:], "cells": self.cells[:],
                "width": self.grid.width}
