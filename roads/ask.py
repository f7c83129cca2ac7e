"""The ask road: what each derived road would add if the next result were Banker, or Player.

docs/domain.md section 4 ("Ask road"). A hypothetical Banker (or Player) result
continues the newest big-road column when that column has the same winner, else starts a
new column; the colour each derived road would add for that cell follows
:func:`roads.derived.derived_color`. ``None`` when that road would not have started at
that cell (and for every road while the big road is empty: the first cell never has one).
A tie adds nothing to any road, so it has no ask entry.

The hypothetical round itself is :func:`next_round`; the whole board as if it were the next
round (the "If Banker" / "If Player" preview) is :meth:`roads.shoe_roads.ShoeRoads.with_next`,
whose derived roads gain exactly the entries :func:`ask` names.
"""

from __future__ import annotations

from typing import Sequence

from roads.derived import BLUE, DERIVED_ROADS, RED, derived_color
from roads.outcome import RoundResult, Winner


def _asked(winner: Winner | str) -> Winner:
    """``winner`` as a :class:`Winner` when the ask road asks about it: Banker or Player
    (``"B"`` / ``"P"``); ``ValueError`` otherwise (a tie takes no cell)."""
    if winner not in ("B", "P"):
        raise ValueError(f"the ask road asks about 'B' or 'P', got {winner!r}")
    return Winner(winner)


def next_round(winner: Winner | str) -> RoundResult:
    """The hypothetical next round the ask road asks about: ``winner`` (Banker or Player, or
    ``"B"`` / ``"P"``) wins 1-0, with no pair and no natural (the roads read only its winner;
    the bead plate shows its totals). Raises ``ValueError`` for a tie or anything else."""
    w = _asked(winner)
    return RoundResult.from_result(w, *((0, 1) if w is Winner.BANKER else (1, 0)))


def next_cell(lengths: Sequence[int], winners: Sequence[str], winner: Winner | str) -> tuple[int, int]:
    """Logical ``(column, row)`` the next ``winner`` (``"B"`` or ``"P"``) result would take.

    Raises ``ValueError`` for any other winner (a tie takes no cell).
    """
    _asked(winner)
    if not winners:
        return 0, 0
    if winners[-1] == winner:
        return len(lengths) - 1, lengths[-1]
    return len(lengths), 0


def ask_one(lengths: Sequence[int], winners: Sequence[str], winner: str) -> dict[str, str | None]:
    """``{"big_eye_boy": colour|None, "small_road": ..., "cockroach_pig": ...}`` for a
    hypothetical next ``winner`` (``"B"`` or ``"P"``); ``ValueError`` otherwise."""
    c, r = next_cell(lengths, winners, winner)
    return {name: derived_color(lengths, c, r, k) for name, k in DERIVED_ROADS}


def ask(lengths: Sequence[int], winners: Sequence[str]) -> dict[str, dict[str, str | None]]:
    """The ask road snapshot piece: ``{"banker": {road: colour|None}, "player": {...}}`` for
    the big road's logical column ``lengths`` and column ``winners`` (letters).

    Same result as :func:`ask_one` for ``"B"`` and ``"P"``, written out for speed: one
    result continues the newest column (row ``n``), the other starts column ``c + 1``. The
    answer depends only on the newest column and the three before it, so it is cached on
    those (module-level, bounded); the returned dicts are shared: read-only.
    """
    if not winners:
        return {"banker": dict(_NONE), "player": dict(_NONE)}
    c = len(lengths) - 1
    n = lengths[c]
    # The answer depends only on these: look it up (the dicts are shared, read-only).
    key = (winners[c], n, lengths[c - 1] if c >= 1 else 0, lengths[c - 2] if c >= 2 else 0,
           lengths[c - 3] if c >= 3 else 0)
    hit = _cache.get(key)
    if hit is not None:
        return hit
    if len(_cache) >= _CACHE_MAX:
        _cache.clear()
    hit = _cache[key] = _ask(lengths, winners, c, n)
    return hit


_CACHE_MAX = 4096
_cache: dict[tuple, dict] = {}


def _ask(lengths: Sequence[int], winners: Sequence[str], c: int, n: int) -> dict[str, dict[str, str | None]]:
    # Continue the newest column: cell (c, n), n >= 1; red unless column c-k has exactly n cells.
    same = {
        "big_eye_boy": (BLUE if lengths[c - 1] == n else RED) if c >= 1 else None,
        "small_road": (BLUE if lengths[c - 2] == n else RED) if c >= 2 else None,
        "cockroach_pig": (BLUE if lengths[c - 3] == n else RED) if c >= 3 else None,
    }
    # Start column c + 1: cell (c + 1, 0); red when columns c and c-k have equal length.
    new = {
        "big_eye_boy": (RED if lengths[c - 1] == n else BLUE) if c >= 1 else None,
        "small_road": (RED if lengths[c - 2] == n else BLUE) if c >= 2 else None,
        "cockroach_pig": (RED if lengths[c - 3] == n else BLUE) if c >= 3 else None,
    }
    if winners[c] == "B":
        return {"banker": same, "player": new}
    return {"banker": new, "player": same}


_NONE: dict[str, None] = {name: None for name, _ in DERIVED_ROADS}
