"""The table's state as the feed sets it: betting, dealing, ..., the betting close time, the
dealer's name and the table limits.

A :class:`SetState` write sets any of them (``docs/api.md`` section "Feed (writes)");
:func:`next_status` is the :class:`TableStatus` it leads to, which
:class:`roads.table.Table` records as a ``"state"`` event. One of :data:`TABLE_STATES`
(``None`` = not known), since when, the time betting closes (Unix seconds, ``betting`` only),
the dealer's name, table limits (:func:`check_limits`) that override the configured ones, and the
card-reading shoe's error (:func:`check_shoe_error`, ``docs/shoes.md``) until the shoe clears it.

Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from collections.abc import Mapping
from typing import Any, Callable

from roads.errors import BadTableState, UnknownBet
from roads.record import iso_time
from roads.variants import Variant

TABLE_STATES: tuple[str, ...] = ("betting", "dealing", "result", "shuffling", "closed", "maintenance")
"""The states a table reports: bets open, cards coming out, result shown, shoe being shuffled,
table closed, out of service."""

CLOSE_TIME_SLACK_S = 1.0
"""A betting close time within this many seconds of the stored one is the same (a retry of a
``seconds_left`` write a moment later is unchanged)."""


class _Keep:
    __slots__ = ()

    def __repr__(self) -> str:
        return "KEEP"


KEEP: Any = _Keep()
"""A :class:`SetState` field left as it is."""

SHOE_ERROR_CODES = range(1, 64)
"""A shoe error's code: the Angel Eye ``E`` frame's ``byte & 0x3F`` (docs/shoes.md), 1-63."""

SHOE_ERROR_NAMES: tuple[str, ...] = (
    "card_unreadable", "overdraw", "button_mishandled", "card_returned_exit", "card_returned_inside",
    "card_code_error", "drawing_timeout",
)
"""The named shoe errors (codes 1-7 of docs/shoes.md section "Angel Eye"); boards show any other
name as "Shoe: error <code>"."""


def check_shoe_error(value: Any) -> dict[str, Any] | None:
    """A shoe error checked and in its one key order: ``{"code": int 1-63, "name": str}`` (name:
    1-40 of ``a-z``, ``0-9``, ``_``), or ``None`` (no error). Raises
    :class:`roads.errors.BadTableState` (field ``"shoe_error.code"`` / ``".name"``)."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise BadTableState(f"shoe_error must be an object {{code, name}} or null, got {value!r}"[:200],
                            field="shoe_error")
    unknown = set(value) - {"code", "name"}
    if unknown:
        raise BadTableState(f"shoe_error has unknown key(s) {', '.join(sorted(map(repr, unknown)))}"[:200],
                            field=f"shoe_error.{sorted(map(str, unknown))[0]}"[:80])
    code, name = value.get("code"), value.get("name")
    if isinstance(code, bool) or not isinstance(code, int) or code not in SHOE_ERROR_CODES:
        raise BadTableState(f"shoe_error.code must be an integer 1-63, got {code!r}"[:200], field="shoe_error.code")
    if (not isinstance(name, str) or not 1 <= len(name) <= 40
            or any(c not in "abcdefghijklmnopqrstuvwxyz0123456789_" for c in name)):
        raise BadTableState(f"shoe_error.name must be 1-40 of a-z, 0-9 and _, got {name!r}"[:200],
                            field="shoe_error.name")
    return {"code": code, "name": name}


# ----------------------------------------------------------------------------- the write
@dataclass(frozen=True, slots=True)
class SetState:
    """Set the table's state: any of ``state`` (one of :data:`TABLE_STATES` or ``None``),
    ``closes_at`` (Unix seconds) or ``seconds_left`` (from the write's time) while betting,
    ``dealer`` (a name or ``None``), ``limits`` (:func:`check_limits` shape, or ``None`` for the
    configured ones), ``shoe_error`` (:func:`check_shoe_error`; ``None`` clears it). Fields left
    :data:`KEEP` stay as they are.

    Construction raises :class:`roads.errors.BadTableState` for an unknown state, both a close
    time and seconds left, negative seconds, a bad shoe error, or nothing to set.
    """

    state: Any = KEEP
    closes_at: float | None = None
    seconds_left: float | None = None
    dealer: Any = KEEP
    limits: Any = KEEP
    shoe_error: Any = KEEP
    creates_table = True

    def __post_init__(self) -> None:
        if self.shoe_error is not KEEP:
            object.__setattr__(self, "shoe_error", check_shoe_error(self.shoe_error))
        if self.state is not KEEP and self.state is not None and self.state not in TABLE_STATES:
            raise BadTableState(f"state must be one of {', '.join(TABLE_STATES)} or null, got {self.state!r}",
                                field="state")
        if self.closes_at is not None and self.seconds_left is not None:
            raise BadTableState("give either closes_at or seconds_left, not both", field="seconds_left")
        if self.seconds_left is not None and self.seconds_left < 0:
            raise BadTableState(f"seconds_left must be 0 or more, got {self.seconds_left!r}", field="seconds_left")
        if (self.state is KEEP and self.dealer is KEEP and self.limits is KEEP and self.shoe_error is KEEP
                and self.closes_at is None and self.seconds_left is None):
            raise BadTableState("nothing to set: give state, closes_at, seconds_left, dealer, limits or shoe_error",
                                field=None)


# ----------------------------------------------------------------------------- the state
@dataclass(frozen=True, slots=True)
class TableStatus:
    """The table's state as the feed set it: ``state`` (:data:`TABLE_STATES` or ``None``),
    ``since`` (Unix seconds the state began), ``closes_at`` (Unix seconds betting closes, only
    while ``betting``), ``dealer``, ``limits`` (set by the feed; ``None`` = the configured ones),
    ``shoe_error`` (``{"code", "name"}`` while the card-reading shoe reports an error, else
    ``None``)."""

    state: str | None = None
    since: float | None = None
    closes_at: float | None = None
    dealer: str | None = None
    limits: Mapping[str, Any] | None = None
    shoe_error: Mapping[str, Any] | None = None

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> "TableStatus":
        """Inverse of :meth:`data`: the state a ``"state"`` event's payload records (limits in
        their one key order again, :func:`ordered_limits`)."""
        error = data.get("shoe_error")
        return cls(data.get("state"), data.get("since"), data.get("closes_at"), data.get("dealer"),
                   ordered_limits(data.get("limits")),
                   None if error is None else {"code": error["code"], "name": error["name"]})

    def data(self) -> dict[str, Any]:
        """The ``"state"`` event payload (``"shoe_error"`` only while there is one, so a table
        that never had a shoe error keeps its bytes)."""
        out = {"state": self.state, "since": self.since, "closes_at": self.closes_at,
               "dealer": self.dealer, "limits": None if self.limits is None else dict(self.limits)}
        if self.shoe_error is not None:
            out["shoe_error"] = dict(self.shoe_error)
        return out

    def to_json(self, configured_limits: Mapping[str, Any] | None) -> dict[str, Any]:
        """``{"state", "since", "closes_at" (ISO 8601 UTC or null), "dealer", "limits"}`` plus
        ``"shoe_error": {"code", "name"}`` while the shoe reports one; limits are the feed's,
        else ``configured_limits``."""
        limits = self.limits if self.limits is not None else configured_limits
        out = {"state": self.state, "since": iso_time(self.since), "closes_at": iso_time(self.closes_at),
               "dealer": self.dealer, "limits": None if limits is None else dict(limits)}
        if self.shoe_error is not None:
            out["shoe_error"] = dict(self.shoe_error)
        return out

    @property
    def blank(self) -> bool:
        """Nothing set (a table that never had a state write)."""
        return self == TableStatus()


def next_status(cur: TableStatus, w: SetState, at: float, variant_of: Callable[[], Variant]) -> TableStatus:
    """The state after ``w`` at ``at`` (Unix seconds) on top of ``cur`` (equal to ``cur`` when
    ``w`` sets nothing new). A betting close time survives writes that keep the state
    ``betting``; it is dropped when the state changes. ``variant_of`` gives the variant whose
    bets the limits may name (called only when ``w`` sets limits).

    Raises :class:`roads.errors.BadTableState` (a close time outside betting) and what
    :func:`check_limits` raises.
    """
    state = cur.state if w.state is KEEP else w.state
    if w.closes_at is not None or w.seconds_left is not None:
        if state != "betting":
            raise BadTableState(f"a betting close time needs the state 'betting'; the state is {state!r}",
                                field="closes_at" if w.closes_at is not None else "seconds_left")
        closes = w.closes_at if w.closes_at is not None else at + w.seconds_left
        if cur.closes_at is not None and cur.state == "betting" and abs(closes - cur.closes_at) < CLOSE_TIME_SLACK_S:
            closes = cur.closes_at
    else:
        closes = cur.closes_at if state == "betting" and cur.state == "betting" else None
    dealer = cur.dealer if w.dealer is KEEP else w.dealer
    limits = cur.limits
    if w.limits is not KEEP:
        limits = None if w.limits is None else check_limits(w.limits, variant_of())
    since = cur.since if state == cur.state else at
    shoe_error = cur.shoe_error if w.shoe_error is KEEP else w.shoe_error
    return TableStatus(state, since, closes, dealer, limits, shoe_error)


# ----------------------------------------------------------------------------- limits
def _amount(value: Any, where: str) -> float | int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or value < 0:
        raise BadTableState(f"{where} must be a number 0 or more, got {value!r}", field=where)
    return value


def _min_max(limits: Any, where: str) -> dict[str, Any]:
    if not isinstance(limits, Mapping):
        raise BadTableState(f"{where} must be an object with min and max, got {limits!r}", field=where)
    low, high = _amount(limits.get("min"), f"{where}.min"), _amount(limits.get("max"), f"{where}.max")
    if low > high:
        raise BadTableState(f"{where}.min {low!r} is above {where}.max {high!r}", field=f"{where}.max")
    return {"min": low, "max": high}


def check_limits(limits: Any, variant: Variant, where: str = "limits") -> dict[str, Any]:
    """Table limits checked and in one key order: ``{"min", "max"}`` (per bet, for the main
    bets) plus optional ``"bets": {bet id: {"min", "max"}}`` for bets of ``variant`` with their
    own limits (sorted by bet id). Amounts are numbers >= 0 in the table's currency, ``min <= max``.

    Raises :class:`roads.errors.BadTableState` (field the offending key, e.g. ``"limits.max"``)
    or :class:`roads.errors.UnknownBet` (field ``"limits.bets.<id>"``).
    """
    out = _min_max(limits, where)
    unknown = set(limits) - {"min", "max", "bets"}
    if unknown:
        raise BadTableState(f"{where} has unknown key(s) {', '.join(sorted(map(repr, unknown)))}",
                            field=f"{where}.{sorted(map(str, unknown))[0]}")
    bets = limits.get("bets")
    if bets is not None:
        if not isinstance(bets, Mapping):
            raise BadTableState(f"{where}.bets must be an object of bet ids, got {bets!r}", field=f"{where}.bets")
        for bet in bets:
            if not variant.has_bet(bet):
                raise UnknownBet(f"variant {variant.id!r} has no bet {bet!r} "
                                 f"(bets: {', '.join(b.bet for b in variant.bets)})", field=f"{where}.bets.{bet}")
        out["bets"] = {bet: _min_max(bets[bet], f"{where}.bets.{bet}") for bet in sorted(bets)}
    return out


def ordered_limits(limits: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Checked limits (:func:`check_limits`) in their one key order again, e.g. read back from a
    store that sorts keys, so they encode to the same bytes."""
    if limits is None:
        return None
    out: dict[str, Any] = {"min": limits["min"], "max": limits["max"]}
    if "bets" in limits:
        out["bets"] = {bet: {"min": b["min"], "max": b["max"]} for bet, b in sorted(limits["bets"].items())}
    return out


def parse_time(text: str) -> float:
    """ISO 8601 with a time zone (``"2024-06-15T12:00:15.000Z"``) -> Unix seconds (a betting
    close time); raises ``ValueError`` (quoting it) for text that is not one."""
    try:
        t = datetime.fromisoformat(text)
    except (TypeError, ValueError):
        raise ValueError(f"not an ISO 8601 time: {text!r}") from None
    if t.tzinfo is None:
        raise ValueError(f"time {text!r} has no time zone (add 'Z' for UTC)")
    try:
        return t.astimezone(timezone.utc).timestamp()
    except (OverflowError, ValueError):  # "0001-01-01T00:00:00+00:01" is before year 1 in UTC
        raise ValueError(f"time {text!r} is out of range") from None
