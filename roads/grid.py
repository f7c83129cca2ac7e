"""Placement of a road's logical columns on a 6-row grid, with dragon tails.

Shared by the big road and the three derived roads (docs/domain.md section 4, "Dragon tail").
Coordinates are grid cells, 0-based: ``x`` is the grid column from the left, ``y`` the row
from the top (0-5).

The rule, for each new entry of a road:

* a new logical column starts at row 0, one step right of the grid column where the
  previous logical column *started*, moving further right past any row-0 cell already
  taken (by an earlier tail); the first column starts at x = 0;
* a further entry of the same logical column goes one row down, unless the cell below is
  past the last row or already taken: then the column turns right along its current row
  and keeps going right (it never drops back down, even when a lower cell frees up).

Why a tail going right never runs into an earlier tail: logical columns start strictly
left to right, so an earlier column's tail on row ``y`` begins at or left of the current
column's start; the current column reached row ``y`` at its start column only because that
cell was free, so the earlier tail ended before it. :meth:`TailGrid.place` still skips
taken cells defensively.
"""

from __future__ import annotations

ROWS: int = 6
"""Rows of every road (docs/domain.md section 4)."""


class TailGrid:
    """The cells a road's entries occupy, placed one entry at a time; undo with :meth:`pop`.

    ``width`` is the number of grid columns used (max x + 1; 0 when empty);
    :meth:`cells` lists every entry's ``(x, y)`` in placement order. Placing and popping
    are O(1) apart from the rare skip past a taken row-0 cell.
    """

    __slots__ = ("rows", "width", "_x", "_y", "_sx", "_taken", "_keys", "_starts")

    def __init__(self, rows: int = ROWS) -> None:
        if isinstance(rows, bool) or not isinstance(rows, int) or rows < 1:
            raise ValueError(f"rows must be a positive integer, got {rows!r}")
        self.rows = rows
        self.width = 0
        self._x = -1  # newest entry's cell
        self._y = -1
        self._sx = -1  # grid column where the newest logical column starts
        self._taken: set[int] = set()  # x * rows + y of every placed entry
        self._keys: list[int] = []  # x * rows + y per entry, in order
        # per logical column: (index of its first entry, start x, width before it started)
        self._starts: list[tuple[int, int, int]] = []

    def __len__(self) -> int:
        return len(self._keys)

    @property
    def column_start_x(self) -> int | None:
        """Grid column where the newest logical column starts (``None`` when empty)."""
        return self._sx if self._keys else None

    def is_taken(self, x: int, y: int) -> bool:
        """Whether grid cell (x, y) holds an entry."""
        return 0 <= y < self.rows and x * self.rows + y in self._taken

    def cells(self) -> list[tuple[int, int]]:
        """``(x, y)`` of every entry, in placement order (a new list)."""
        rows = self.rows
        return [divmod(k, rows) for k in self._keys]

    def place(self, new_column: bool) -> tuple[int, int]:
        """Place the next entry and return its grid cell ``(x, y)``: :meth:`start` when
        ``new_column`` is True (or the grid is empty), else :meth:`extend`."""
        if new_column or self._x < 0:
            return self.start()
        return self.extend()

    def start(self) -> tuple[int, int]:
        """Place the first entry of a new logical column; return its cell ``(x, 0)``."""
        rows = self.rows
        taken = self._taken
        x = self._sx + 1
        while x * rows in taken:
            x += 1
        key = x * rows
        taken.add(key)
        keys = self._keys
        width = self.width
        self._starts.append((len(keys), x, width))
        keys.append(key)
        if x >= width:
            self.width = x + 1
        self._sx = self._x = x
        self._y = 0
        return x, 0

    def extend(self) -> tuple[int, int]:
        """Place the next entry of the newest logical column (down, or right along a dragon
        tail); return its cell. The grid must not be empty (``IndexError`` otherwise)."""
        x = self._x
        if x < 0:
            raise IndexError("extend on an empty road grid: start a column first")
        rows = self.rows
        taken = self._taken
        y = self._y + 1
        if x != self._sx or y == rows or x * rows + y in taken:
            # Dragon tail: turn right along the current row (and stay turned).
            y -= 1
            x += 1
            while x * rows + y in taken:  # cannot happen (module docstring); defensive
                x += 1
            if x >= self.width:  # only a step right can widen the grid
                self.width = x + 1
        key = x * rows + y
        taken.add(key)
        self._keys.append(key)
        self._x = x
        self._y = y
        return x, y

    def pop(self) -> tuple[int, int]:
        """Remove the newest entry and return the cell it occupied.

        Raises ``IndexError`` when the grid is empty.
        """
        keys = self._keys
        if not keys:
            raise IndexError("pop from an empty road grid")
        rows = self.rows
        key = keys.pop()
        self._taken.discard(key)
        first, _sx, width = self._starts[-1]
        if first == len(keys):  # it was the first entry of its logical column
            self._starts.pop()
            self.width = width
        else:
            # The column's entries run down then right, so its newest is its rightmost.
            self.width = max(width, keys[-1] // rows + 1)
        self._sx = self._starts[-1][1] if self._starts else -1
        if keys:
            self._x, self._y = divmod(keys[-1], rows)
        else:
            self._x = self._y = -1
        return divmod(key, rows)


def place_columns(lengths: list[int] | tuple[int, ...], rows: int = ROWS) -> list[list[tuple[int, int]]]:
    """Grid cells of whole logical columns of the given lengths: ``[[(x, y), ...], ...]``.

    A convenience for tests, docs and renderers. Raises ``ValueError`` for a length < 1.
    """
    grid = TailGrid(rows)
    out: list[list[tuple[int, int]]] = []
    for n in lengths:
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"a logical column has at least one cell, got length {n!r}")
        out.append([grid.place(i == 0) for i in range(n)])
    return out
