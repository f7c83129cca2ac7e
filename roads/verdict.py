"""How a bet settles for one round: win, lose, push, or unknown (a fact the feed did not send).

Shared by the main and side bets (:mod:`roads.variants`) and insurance (:mod:`roads.insurance`).
"""

from __future__ import annotations

import enum


class Verdict(str, enum.Enum):
    """How a bet settles for one round."""

    WIN = "win"
    """The bet wins its ``payout`` to 1."""
    LOSE = "lose"
    """The stake is lost."""
    PUSH = "push"
    """The stake is returned."""
    UNKNOWN = "unknown"
    """The round (result-level feed) lacks a fact the bet needs; nothing is guessed."""
