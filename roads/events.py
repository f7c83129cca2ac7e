"""The stored events of a table's record: one accepted feed write each.

A table's record (:class:`roads.table.Table`) is a pure function of its event sequence:
``seq`` = 1, 2, 3, ... per table with no gaps, and ``seq`` is the table's version once the
event is applied, so replaying the stored events rebuilds every table exactly, version for
version. Stores (``web.stores``) keep events and never look inside ``data``.

Kinds (:data:`EVENT_KINDS`) and their ``data`` (``round`` = a canonical round of
:func:`roads.table.ordered_round`: ``{"player": [...], "banker": [...]}`` or
``{"result": {...}}``, plus optional ``burn`` and ``cut_card``):

- ``"shoe"``: ``{"burn": [...], "cut_card_position": int | None, "variant": id, "decks": int}``
  (``round`` is ``None``)
- ``"round"``: ``{"round": {...}}``, plus ``"opens_shoe": {"variant": id, "decks": int}`` when
  the round's higher shoe number started the shoe
- ``"void"``: ``{"reason": str}`` (of a recorded round, or of the round in progress)
- ``"correct"``: ``{"round": {...}, "reason": str | None}``
- ``"card"``: ``{"position": int, "cards": [...]}`` (the new cards of the round in progress,
  ``position`` the 1-based deal position of the first), plus ``"burn": [...]`` (cards burned
  before the round, with its first card), ``"cut_card": true`` and ``"opens_shoe"`` (as for
  ``"round"``) when they apply. The card that completes a round is not a ``"card"`` event:
  the whole round is recorded by a ``"round"`` event, exactly as if it had been posted whole.
- ``"card"`` with ``"sides": [...]`` instead of ``"cards"``: cards that left the shoe face
  down at positions ``position``.. for those sides (``"player"`` / ``"banker"``); their faces
  come later as ordinary ``"card"`` events (or the ``"round"`` event)
- ``"hold"``: ``{"reason", "message", "shoe_result": {...} | None, "player": [...], "banker":
  [...]}``: the round in progress held for the supervisor (``docs/shoes.md``): it leaves the
  in-progress slot, kept with the cards dealt so far, in no road until resolved
- ``"state"``: ``{"state": str | None, "since": float | None, "closes_at": float | None,
  "dealer": str | None, "limits": {...} | None}`` plus ``"shoe_error": {"code", "name"}`` while
  the shoe reports an error (the whole state after the write; ``shoe``
  is the current shoe's number, 0 before the first; ``round`` is ``None``)

Standard library only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping

SHOE = "shoe"
"""Event kind: a shoe started explicitly (burn cards, cut-card position, variant)."""

ROUND = "round"
"""Event kind: a round recorded (it may open a new shoe)."""

VOID = "void"
"""Event kind: a recorded round voided (kept in the record, counted nowhere)."""

CORRECT = "correct"
"""Event kind: a recorded round replaced by its corrected content."""

CARD = "card"
"""Event kind: cards of the round in progress, dealt card by card (the round's completion is a
``"round"`` event)."""

HOLD = "hold"
"""Event kind: the round in progress held for the supervisor (the shoe's result disagrees with
its cards, docs/shoes.md); resolved by a ``"correct"`` or ``"void"`` event."""

STATE = "state"
"""Event kind: the table's state (betting, dealing, ...), dealer and limits."""

EVENT_KINDS: tuple[str, ...] = (SHOE, ROUND, VOID, CORRECT, CARD, STATE, HOLD)
"""The kinds of event: a shoe started explicitly, a round recorded, voided, corrected, cards
of the round in progress, the table's state, a round held for the supervisor."""


@dataclass(frozen=True, slots=True)
class Event:
    """One accepted feed write of one table (immutable).

    ``table``: table id. ``seq``: 1-based position in the table's event sequence, consecutive
    with no gaps; the table's version once the event is applied. ``kind``: one of
    :data:`EVENT_KINDS`. ``shoe``: shoe number. ``round``: round number within the shoe
    (``None`` for ``"shoe"``). ``data``: JSON-ready payload (shapes in this module's doc).
    ``at``: server clock when the write was accepted, Unix time in seconds.

    Raises ``ValueError`` for an unknown ``kind`` or a ``seq`` below 1.
    """

    table: str
    seq: int
    kind: str
    shoe: int
    round: int | None
    data: Mapping[str, Any] = field(hash=False)
    at: float = 0.0

    def __post_init__(self) -> None:
        if self.kind not in EVENT_KINDS:
            raise ValueError(f"event kind must be one of {EVENT_KINDS}, got {self.kind!r}")
        if self.seq < 1:
            raise ValueError(f"event seq must be >= 1, got {self.seq!r}")

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict with every field (the round trip of :meth:`from_json`)."""
        return {"table": self.table, "seq": self.seq, "kind": self.kind, "shoe": self.shoe,
                "round": self.round, "data": dict(self.data), "at": self.at}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "Event":
        """Inverse of :meth:`to_json`; raises ``KeyError``/``ValueError`` on a bad dict."""
        return cls(table=d["table"], seq=int(d["seq"]), kind=d["kind"], shoe=int(d["shoe"]),
                   round=None if d.get("round") is None else int(d["round"]),
                   data=d["data"], at=float(d["at"]))

    def data_json(self) -> str:
        """``data`` as compact JSON text with sorted keys (what the stores keep)."""
        return json.dumps(self.data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class Unchanged:
    """What a record answers to a write it already holds (no event to store): shoe ``shoe``
    and, for a write about a round, round ``round``."""

    shoe: int
    round: int | None = None
