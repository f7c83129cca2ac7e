"""Per-shoe side-bet availability counters: which side bets are still open, and for how long.

docs/domain.md section 3 ("open for the first N rounds of a shoe"); the limits come
from the table variant (``roads.variants``: ``variant.side_bets``, each a ``BetSpec`` with
``bet``, ``label`` and ``round_limit``; ``None`` = open for the whole shoe).

A bet with limit N is open for rounds 1..N of the shoe, counting counted rounds only
(voided rounds do not count). With ``rounds`` counted rounds played, the next round is
number ``rounds + 1``, so the bet is open when ``rounds < N`` and has ``N - rounds``
rounds left (never below 0). This matches ``variant.is_open(bet, rounds + 1)``.
"""

from __future__ import annotations

import threading
from typing import Any

_CACHE_MAX_VARIANTS = 64
_cache: dict[int, tuple[Any, dict[int, list[dict]]]] = {}
_cache_lock = threading.Lock()


class SideBetError(ValueError):
    """A bad argument to the side-bet counters (the message quotes it)."""


def side_bet_state(spec: Any, rounds: int) -> dict:
    """State of one side bet after ``rounds`` counted rounds of the shoe.

    ``spec`` has ``bet`` (id), ``label`` and ``round_limit`` (int or ``None``). Returns
    ``{"bet", "label", "open", "limit", "rounds_left"}`` (``limit``/``rounds_left`` ``None``
    for a bet open the whole shoe). Raises :class:`SideBetError` for a negative or
    non-integer ``rounds``.
    """
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 0:
        raise SideBetError(f"rounds must be an integer >= 0, got {rounds!r}")
    limit = spec.round_limit
    if limit is None:
        return {"bet": spec.bet, "label": spec.label, "open": True, "limit": None, "rounds_left": None}
    left = limit - rounds
    return {"bet": spec.bet, "label": spec.label, "open": left > 0, "limit": limit, "rounds_left": left if left > 0 else 0}


def side_bet_states(variant: Any, rounds: int) -> list[dict]:
    """Snapshot piece: :func:`side_bet_state` for every bet in ``variant.side_bets``, in order.

    The lists are cached per (variant object, rounds) and shared between snapshots: treat
    them as read-only. Raises :class:`SideBetError` for a bad ``rounds``.
    """
    if type(rounds) is not int or rounds < 0:
        if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 0:
            raise SideBetError(f"rounds must be an integer >= 0, got {rounds!r}")
    entry = _cache.get(id(variant))
    if entry is None or entry[0] is not variant:
        with _cache_lock:
            if len(_cache) >= _CACHE_MAX_VARIANTS:
                _cache.clear()
            entry = (variant, {})  # holding the variant keeps its id() from being reused
            _cache[id(variant)] = entry
    per_round = entry[1]
    states = per_round.get(rounds)
    if states is None:
        states = [side_bet_state(spec, rounds) for spec in variant.side_bets]
        # Cap the table (shoes have far fewer rounds); past the cap states are rebuilt per call.
        if len(per_round) < 512:
            per_round[rounds] = states
    return states
