"""A stand-in for ``roads.variants.Variant`` with only what road code reads:
``id``, ``name``, ``side_bets`` of ``bet``/``label``/``round_limit``. Lets road tests fix the
round limits by hand, independently of the engine's presets."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Spec:
    """A side bet: stable id, English label, open for the first ``round_limit`` rounds (None = whole shoe)."""

    bet: str
    label: str
    round_limit: int | None


@dataclass(frozen=True)
class StandIn:
    """A table variant: id, display name and its side bets."""

    id: str
    name: str
    side_bets: tuple
