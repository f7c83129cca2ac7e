"""Writing straight to a :class:`roads.table.Table` in domain tests: a stepping clock and
decide-then-apply."""

from __future__ import annotations

import itertools
from typing import Any

from roads.events import Event


class Clock:
    """``start``, ``start + 1``, ``start + 2``, ... seconds: one second per reading."""

    def __init__(self, start: float = 1000.0) -> None:
        self.ticks = itertools.count()
        self.start = start

    def __call__(self) -> float:
        return self.start + next(self.ticks)


def write(table: Any, w: Any, clock: Clock | None = None) -> Any:
    """``table.decide(w, clock)``, applied when it is an event; the outcome either way."""
    outcome = table.decide(w, clock or Clock())
    if isinstance(outcome, Event):
        table.apply(outcome)
    return outcome
