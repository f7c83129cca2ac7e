"""The big road: logical columns of Banker/Player results, ties counted on cells, dragon tails.

docs/domain.md section 4 ("Big road", "Dragon tail").

* One cell per Banker or Player round. The same winner as the previous cell goes on the
  next row of the same logical column; a change starts a new logical column.
* Ties take no cell. A tie is counted on the newest cell (its ``ties``). Ties before the
  first Banker/Player round of the shoe are kept as ``leading_ties`` (renderers show them on
  the first cell); they are *not* added to that cell's ``ties``, so
  ``leading_ties + sum(cell ties) == tie rounds``.
* Pairs and naturals are marks on the cell (of the cell's own round; a tie's pairs show on
  the bead plate only).
* The logical columns are placed on the 6-row grid by :class:`roads.grid.TailGrid`.

Derived roads read the *logical* columns (``lengths``), never the grid.
"""

from __future__ import annotations

from roads.bead_plate import LETTER
from roads.grid import ROWS, TailGrid
from roads.outcome import RoundResult, Winner

_TIE = Winner.TIE


def cell_json(round_number: int, result: RoundResult, ties: int = 0) -> dict:
    """The snapshot dict of one big-road cell (an entry of ``big_road.columns[c]``).

    Keys: ``round`` (round number of the cell's own Banker/Player round), ``winner``
    (``"B"`` or ``"P"``), ``ties`` (tie rounds counted on the cell), ``player_pair``,
    ``banker_pair``, ``natural`` (of the cell's round).
    """
    return {
        "round": round_number,
        "winner": LETTER[result.winner],
        "ties": ties,
        "player_pair": result.player_pair,
        "banker_pair": result.banker_pair,
        "natural": result.natural,
    }


class BigRoad:
    """The big road of one shoe, built one counted round at a time.

    Attributes (read them, do not change them):

    * ``leading_ties``: ties before the first Banker/Player round (int, starts at 0);
    * ``columns``: logical columns, ``list[list[cell dict]]`` (see :func:`cell_json`);
    * ``lengths``: cells per logical column (``list[int]``), ``winners``: each column's
      winner letter (``list[str]``);
    * ``cells``: grid placement of every cell, in order: dicts ``{"x", "y", "column",
      "row"}``;
    * ``grid``: the :class:`TailGrid` (``grid.width`` = grid columns used).

    Cell dicts and placement dicts are never changed once made (a tie replaces the newest
    cell dict with a new one), and the newest column's list is never shared with a
    snapshot (:meth:`columns_json` copies it), so snapshots can share everything else.
    """

    __slots__ = ("leading_ties", "columns", "lengths", "winners", "cells", "grid")

    def __init__(self, rows: int = ROWS) -> None:
        self.leading_ties = 0
        self.columns: list[list[dict]] = []
        self.lengths: list[int] = []
        self.winners: list[str] = []
        self.cells: list[dict] = []
        self.grid = TailGrid(rows)

    def __len__(self) -> int:
        """Number of cells (Banker/Player rounds)."""
        return len(self.cells)

    @property
    def last_winner(self) -> str | None:
        """Winner letter of the newest column, ``None`` before the first Banker/Player round."""
        return self.winners[-1] if self.winners else None

    def push(self, round_number: int, result: RoundResult) -> tuple[int, int] | None:
        """Add one counted round. Returns the new cell's logical ``(column, row)``, or ``None``
        for a tie (counted on the newest cell or as a leading tie)."""
        winner = result.winner
        if winner is _TIE:
            if not self.columns:
                self.leading_ties += 1
            else:
                col = self.columns[-1]
                old = col[-1]
                new = old.copy()
                new["ties"] = old["ties"] + 1
                col[-1] = new
            return None
        w = LETTER[winner]
        cell = {
            "round": round_number,
            "winner": w,
            "ties": 0,
            "player_pair": result.player_pair,
            "banker_pair": result.banker_pair,
            "natural": result.natural,
        }
        if self.winners and self.winners[-1] == w:
            c = len(self.columns) - 1
            r = self.lengths[c]
            self.columns[c].append(cell)
            self.lengths[c] = r + 1
            x, y = self.grid.extend()
        else:
            c = len(self.columns)
            r = 0
            self.columns.append([cell])
            self.lengths.append(1)
            self.winners.append(w)
            x, y = self.grid.start()
        self.cells.append({"x": x, "y": y, "column": c, "row": r})
        return c, r

    def pop(self, result: RoundResult) -> tuple[int, int] | None:
        """Undo the newest :meth:`push`, which was for ``result``. Returns what that push
        returned. Raises ``IndexError`` when there is nothing to undo."""
        if result.winner is _TIE:
            if not self.columns:
                if self.leading_ties == 0:
                    raise IndexError("no tie to undo on the big road")
                self.leading_ties -= 1
            else:
                col = self.columns[-1]
                old = col[-1]
                if old["ties"] == 0:
                    raise IndexError("no tie to undo on the newest big-road cell")
                new = old.copy()
                new["ties"] = old["ties"] - 1
                col[-1] = new
            return None
        if not self.cells:
            raise IndexError("no cell to undo on the big road")
        placed = self.cells.pop()
        self.grid.pop()
        c = len(self.columns) - 1
        if self.lengths[c] == 1:
            self.columns.pop()
            self.lengths.pop()
            self.winners.pop()
            if self.columns:
                # The previous column becomes the newest again; a snapshot may hold its list.
                self.columns[-1] = self.columns[-1][:]
        else:
            self.columns[c].pop()
            self.lengths[c] -= 1
        return placed["column"], placed["row"]

    def columns_json(self) -> list[list[dict]]:
        """A snapshot copy of ``columns``: new outer list, newest column copied, rest shared."""
        cols = self.columns[:]
        if cols:
            cols[-1] = cols[-1][:]
        return cols

    def json(self) -> dict:
        """Snapshot piece: ``{"leading_ties", "columns", "cells", "width"}`` (``width`` = grid
        columns used)."""
        cols = self.columns[:]
        if cols:
            cols[-1] = cols[-1][:]
        return {
            "leading_ties": self.leading_ties,
            "columns": cols,
            "cells": self.cells[:],
            "width": self.grid.width,
        }
