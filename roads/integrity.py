"""Exact impossibilities: what no fair shoe can do, so never noise (docs/domain.md sections 1-2
and 6). The record refuses each of them (nothing is stored); the refusal itself is the signal a
floor wants at once, so each becomes an integrity flag (:func:`flag`).

* ``too_many_copies``: a card seen more often in a shoe than the shoe holds (``decks`` copies of
  each card); a shoe dealing more cards than it has is one of these (more than ``52 x decks``
  cards means some card came more often than ``decks`` times);
* ``tableau``: a round the third-card rules do not allow (section 1);
* ``deal_order``: a card the tableau does not deal at that point of a round.

Standard library only.
"""

from __future__ import annotations

from typing import Any, Mapping

KINDS: Mapping[str, str] = {
    "too_many_copies": "a card seen more often in the shoe than the shoe holds",
    "tableau": "a round the tableau does not allow",
    "deal_order": "a card the tableau does not deal at this point",
}
"""Error code of a refused feed write -> what it means as an integrity flag."""


def flag(table: str, code: str, message: str, at: float, *, shoe: int | None = None,
         round_no: int | None = None, field: str | None = None) -> dict[str, Any] | None:
    """The integrity flag of a feed write refused with ``code`` (``None`` when the code is not an
    impossibility): ``{"table", "shoe", "round", "code", "what", "field", "message", "at"}``
    (``at``: Unix seconds)."""
    what = KINDS.get(code)
    if what is None:
        return None
    return {"table": table, "shoe": shoe, "round": round_no, "code": code, "what": what, "field": field,
            "message": message, "at": at}
