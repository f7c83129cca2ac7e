"""The record of a table's shoes and rounds as data, and the pure functions on rounds.

A canonical round (:func:`ordered_round`) is ``{"player": [cards], "banker": [cards]}`` (card
strings in canonical notation, deal order) or ``{"result": {...}}`` (:data:`RESULT_KEYS`),
plus ``"burn": [cards]`` when cards were burned before it and ``"cut_card": True`` on the
shoe's last round. :class:`RoundRecord` and :class:`ShoeRecord` are what a
:class:`roads.table.Table` keeps of them (mutated only by ``Table.apply``), with their
JSON-ready exports and summaries.

Standard library only.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Iterable, Mapping

from roads.cards import Card, CardError, parse_cards
from roads.errors import BadCardText, ResultContradiction, TableauViolation, TooManyCopies
from roads.outcome import ResultError, RoundResult
from roads.shoe_roads import ShoeRoads
from roads.tableau import TableauError
from roads.variants import Variant

ROUND_KEYS: tuple[str, ...] = ("player", "banker", "result", "burn", "cut_card")
"""The keys of a canonical round, in their one order."""

RESULT_KEYS: tuple[str, ...] = (
    "winner", "player_total", "banker_total", "player_pair", "banker_pair", "natural",
    "player_card_count", "banker_card_count", "player_perfect_pair", "banker_perfect_pair",
)
"""The keys of a result-level round's ``"result"``, in their one order (the feed's order,
``docs/api.md`` section "Feed (writes)")."""


# ----------------------------------------------------------------------------- rounds as data
def iso_time(at: float | None) -> str | None:
    """Unix seconds -> ISO 8601 UTC with milliseconds (``"2024-06-15T12:00:00.000Z"``), ``None`` kept."""
    if at is None:
        return None
    return datetime.fromtimestamp(at, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def ordered_round(round_data: Mapping[str, Any]) -> dict[str, Any]:
    """A canonical round with its keys in one fixed order (:data:`ROUND_KEYS`; result fields in
    :data:`RESULT_KEYS` order), so a round read back from a store that sorts keys encodes to
    the same bytes as when it was recorded.

    A canonical round is ``{"player": [cards], "banker": [cards]}`` (card strings in canonical
    notation, deal order) or ``{"result": {...}}``, plus ``"burn": [cards]`` when cards were
    burned before it and ``"cut_card": True`` on the shoe's last round.
    """
    out: dict[str, Any] = {}
    for key in ROUND_KEYS:
        if key in round_data:
            value = round_data[key]
            if key == "result":
                value = {k: value[k] for k in RESULT_KEYS if k in value}
            out[key] = value
    return out


def result_of(round_data: Mapping[str, Any]) -> RoundResult:
    """The :class:`RoundResult` of a canonical round (cards or result-level).

    Raises :class:`roads.cards.CardError`, :class:`roads.tableau.TableauError` or
    :class:`roads.outcome.ResultError` when it breaks the rules (:func:`check_round` names them
    as domain errors).
    """
    if "result" in round_data:
        r = dict(round_data["result"])
        return RoundResult.from_result(
            r.pop("winner"), r.pop("player_total"), r.pop("banker_total"),
            r.pop("player_pair"), r.pop("banker_pair"), r.pop("natural"), **r,
        )
    return RoundResult.from_cards(parse_cards(round_data["player"]), parse_cards(round_data["banker"]))


def check_round(round_data: Mapping[str, Any]) -> RoundResult:
    """:func:`result_of`, with the rule broken raised as a domain error.

    Raises :class:`roads.errors.TableauViolation` (``field`` the side whose card breaks the
    tableau: the third card after a natural belongs to the side that drew it),
    :class:`roads.errors.ResultContradiction` (``field`` ``"result.<name>"``) or
    :class:`roads.errors.BadCardText`.
    """
    try:
        return result_of(round_data)
    except TableauError as e:
        side = "banker" if e.rule.startswith("banker") else "player"
        if e.rule == "natural":
            side = "player" if len(round_data.get("player", ())) == 3 else "banker"
        raise TableauViolation(f"{e} (rule {e.rule})", field=side) from None
    except ResultError as e:
        raise ResultContradiction(str(e), field=f"result.{e.field}") from None
    except CardError as e:
        raise BadCardText(str(e)) from None


def round_cards(round_data: Mapping[str, Any]) -> list[tuple[str, Card]]:
    """``(field, card)`` for every card a round took out of the shoe: burn, player, banker."""
    out: list[tuple[str, Card]] = []
    for side in ("burn", "player", "banker"):
        for i, text in enumerate(round_data.get(side) or ()):
            out.append((f"{side}[{i}]", Card.parse(text)))
    return out


def describe(round_data: Mapping[str, Any]) -> str:
    """Short text of a canonical round for messages: ``"player 4S KD 9H, banker 7C JD"``."""
    if "result" in round_data:
        r = round_data["result"]
        return f"result {r['winner']} (player {r['player_total']}, banker {r['banker_total']})"
    return f"player {' '.join(round_data['player'])}, banker {' '.join(round_data['banker'])}"


def check_copies(copies: Mapping[Card, int], decks: int, cards: Iterable[tuple[str, Card]], shoe: int,
                 removed: Iterable[Card] = ()) -> None:
    """Refuse one copy of a card more than a ``decks``-deck shoe holds (``docs/api.md`` section
    "Feed (writes)": burn cards and every round's cards count, voided rounds too).

    ``copies``: cards out of shoe ``shoe`` so far; ``cards``: ``(field, card)`` about to come
    out; ``removed``: cards given back first (the previous content of a corrected round).
    Raises :class:`roads.errors.TooManyCopies` naming the first card's field that overflows.
    """
    counts = collections.Counter(copies)
    counts.subtract(removed)
    for where, card in cards:
        counts[card] += 1
        if counts[card] > decks:
            raise TooManyCopies(
                f"{card} would be copy {counts[card]} of {card} in shoe {shoe}, "
                f"but a {decks}-deck shoe holds {decks}",
                field=where,
            )


# ----------------------------------------------------------------------------- record
@dataclass(slots=True)
class RoundRecord:
    """One recorded round of a shoe."""

    number: int
    data: dict[str, Any]
    """The canonical round as it stands now (after corrections)."""
    original: dict[str, Any]
    """The canonical round as first recorded (a retry of it is still unchanged)."""
    result: RoundResult
    at: float
    void: dict[str, Any] | None = None
    """``{"reason", "at"}`` once voided: kept in the record, counted in no road or counter."""
    corrections: list[dict[str, Any]] = field(default_factory=list)
    """``[{"at", "reason", "previous"}]``, oldest first."""

    def void_json(self) -> dict[str, Any] | None:
        """``{"reason", "at"}`` (ISO 8601) once voided, else ``None``."""
        return None if self.void is None else {"reason": self.void["reason"], "at": iso_time(self.void["at"])}

    def export(self, shoe: int) -> dict[str, Any]:
        """JSON-ready record: ``{"round", "at", "feed" (the feed body that records it again),
        "result", "void", "corrections"}``."""
        return {
            "round": self.number,
            "at": iso_time(self.at),
            "feed": {"shoe": shoe, "round": self.number, **self.data},
            "result": self.result.to_json(),
            "void": self.void_json(),
            "corrections": [
                {"at": iso_time(c["at"]), "reason": c["reason"], "previous": c["previous"]} for c in self.corrections
            ],
        }


@dataclass(slots=True)
class ShoeRecord:
    """One shoe of a table.

    ``ops`` is the sequence of road operations applied to this shoe (``("record" | "void" |
    "correct", round number, result or None)``), so a past shoe's roads can be rebuilt exactly
    (:meth:`replay_roads`); ``roads`` is kept only while the shoe is the table's current one.
    ``copies`` counts the cards out of the shoe (burn and rounds, voided ones too).
    ``version`` is the table version of the last event that changed the shoe.
    """

    number: int
    variant: Variant
    decks: int
    started_at: float
    explicit: bool
    """Started by a shoe write (else by its first round)."""
    burn: tuple[str, ...] = ()
    cut_card_position: int | None = None
    rounds: list[RoundRecord] = field(default_factory=list)
    copies: collections.Counter = field(default_factory=collections.Counter)
    ops: list[tuple[str, int, RoundResult | None]] = field(default_factory=list)
    roads: ShoeRoads | None = None
    version: int = 0
    updated_at: float = 0.0
    _summary: tuple[int, bool, dict[str, Any]] | None = field(default=None, repr=False, compare=False)

    def round(self, number: int) -> RoundRecord | None:
        """The recorded round ``number`` (1-based) or ``None``."""
        return self.rounds[number - 1] if 1 <= number <= len(self.rounds) else None

    def cut_card_round(self) -> int | None:
        """The number of the counted round flagged ``cut_card`` (the shoe's last), if any."""
        for r in self.rounds:
            if r.void is None and r.data.get("cut_card"):
                return r.number
        return None

    def replay_roads(self) -> ShoeRoads:
        """A new :class:`ShoeRoads` with every operation of :attr:`ops` applied in order."""
        roads = ShoeRoads()
        for op, number, result in self.ops:
            if op == "record":
                roads.record(number, result)
            elif op == "void":
                roads.void(number)
            else:
                roads.correct(number, result)
        return roads

    def summary(self, live: bool) -> dict[str, Any]:
        """JSON-ready line of a table's shoe listing: ``{"shoe", "live", "variant": {"id",
        "name"}, "decks", "rounds" (recorded, voided included), "counted", "voided",
        "started_at", "ended_at" (ISO 8601 UTC; ``None`` while live), "last_round_at", "burn",
        "cut_card_position", "cut_card_round", "version"}``. Built once per ``(version, live)``;
        shared: do not mutate."""
        cached = self._summary
        if cached is not None and cached[0] == self.version and cached[1] == live:
            return cached[2]
        voided = sum(1 for r in self.rounds if r.void is not None)
        last_at = self.rounds[-1].at if self.rounds else None
        out = {
            "shoe": self.number,
            "live": live,
            "variant": {"id": self.variant.id, "name": self.variant.name},
            "decks": self.decks,
            "rounds": len(self.rounds),
            "counted": len(self.rounds) - voided,
            "voided": voided,
            "started_at": iso_time(self.started_at),
            "ended_at": None if live else iso_time(last_at if last_at is not None else self.started_at),
            "last_round_at": iso_time(last_at),
            "burn": list(self.burn),
            "cut_card_position": self.cut_card_position,
            "cut_card_round": self.cut_card_round(),
            "version": self.version,
        }
        self._summary = (self.version, live, out)
        return out
