"""The bead plate: one cell per counted round, ties included, 6 rows, filled column by column.

docs/domain.md section 4 ("Bead plate"). Bead ``i`` (0-based, counted rounds only,
voided rounds take no bead) sits at grid column ``x = i // 6``, row ``y = i % 6``.
"""

from __future__ import annotations

from roads.grid import ROWS
from roads.outcome import RoundResult, Winner

LETTER: dict[Winner, str] = {Winner.BANKER: "B", Winner.PLAYER: "P", Winner.TIE: "T"}
"""Winner -> its one-letter notation as a plain ``str`` (faster than ``Winner.value``)."""


def bead_position(index: int, rows: int = ROWS) -> tuple[int, int]:
    """Grid cell ``(x, y)`` of the bead for the ``index``-th counted round (0-based).

    Raises ``ValueError`` for a negative index.
    """
    if index < 0:
        raise ValueError(f"bead index must be >= 0, got {index!r}")
    return index // rows, index % rows


def bead_json(index: int, round_number: int, result: RoundResult, rows: int = ROWS) -> dict:
    """The snapshot dict of one bead.

    Keys: ``x``, ``y`` (grid cell), ``round`` (round number within the shoe), ``winner``
    (``"B"``/``"P"``/``"T"``), ``player_total``, ``banker_total`` (0-9), ``player_pair``,
    ``banker_pair``, ``natural`` (bools).
    """
    return {
        "x": index // rows,
        "y": index % rows,
        "round": round_number,
        "winner": LETTER[result.winner],
        "player_total": result.player_total,
        "banker_total": result.banker_total,
        "player_pair": result.player_pair,
        "banker_pair": result.banker_pair,
        "natural": result.natural,
    }


class BeadPlate:
    """The shoe's bead plate, built one round at a time (:meth:`push`, undo with :meth:`pop`).

    ``beads`` is the list of bead dicts (see :func:`bead_json`), oldest first. A bead dict is
    never changed once made, so snapshots may share them.
    """

    __slots__ = ("rows", "beads")

    def __init__(self, rows: int = ROWS) -> None:
        self.rows = rows
        self.beads: list[dict] = []

    def __len__(self) -> int:
        return len(self.beads)

    @property
    def width(self) -> int:
        """Grid columns used (0 when empty)."""
        return (len(self.beads) + self.rows - 1) // self.rows

    def push(self, round_number: int, result: RoundResult) -> dict:
        """Add the bead of the next counted round and return it."""
        bead = bead_json(len(self.beads), round_number, result, self.rows)
        self.beads.append(bead)
        return bead

    def pop(self) -> dict:
        """Remove and return the newest bead; ``IndexError`` when empty."""
        return self.beads.pop()
