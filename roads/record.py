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
import itertools
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Iterable, Mapping

from roads.cards import Card, CardError, hand_total, parse_cards
from roads.errors import BadCardText, DealOrder, ResultContradiction, TableauViolation, TooManyCopies
from roads.outcome import ResultError, RoundResult
from roads.shoe_roads import ShoeRoads
from roads.tableau import TableauError, next_card
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
    """The :class:`RoundResult` of a canonical round (cards or result-level), with the rule a
    round breaks raised as a domain error.

    Raises :class:`roads.errors.TableauViolation` (``field`` the side whose card breaks the
    tableau, :func:`roads.tableau.check_round`: the third card after a natural belongs to the
    side that drew it), :class:`roads.errors.ResultContradiction` (``field``
    ``"result.<name>"``) or :class:`roads.errors.BadCardText`.
    """
    try:
        if "result" in round_data:
            r = dict(round_data["result"])
            return RoundResult.from_result(
                r.pop("winner"), r.pop("player_total"), r.pop("banker_total"),
                r.pop("player_pair"), r.pop("banker_pair"), r.pop("natural"), **r,
            )
        return RoundResult.from_cards(parse_cards(round_data["player"]), parse_cards(round_data["banker"]))
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


def deal_order(round_data: Mapping[str, Any]) -> list[str] | None:
    """The cards of a card-level round in the order they left the shoe: P1 B1 P2 B2, then the
    player's third card, then the banker's (the deal order, docs/domain.md section 1); ``None``
    for a result-level round."""
    if "player" not in round_data:
        return None
    p, b = list(round_data["player"]), list(round_data["banker"])
    return [c for pair in itertools.zip_longest(p[:2], b[:2]) for c in pair if c is not None] + p[2:] + b[2:]


def split_deal(cards: Iterable[str]) -> tuple[list[str], list[str], str | None]:
    """Give each card (in deal order) to its side by the tableau: ``(player, banker, next)``,
    ``next`` being the side of the next card or ``None`` once the round is complete
    (:func:`roads.tableau.next_card`). Raises :class:`roads.errors.DealOrder` for a card dealt
    after the round was complete (``extra["position"]``: its 1-based position)."""
    player: list[Card] = []
    banker: list[Card] = []
    side = next_card(player, banker)
    for k, text in enumerate(cards, 1):
        if side is None:
            raise DealOrder(f"the round is complete after {k - 1} cards ({_hands(player, banker)}); "
                            f"card {k} ({text}) is not dealt", field=None, extra={"position": k})
        (player if side == "player" else banker).append(Card.parse(text))
        side = next_card(player, banker)
    return [str(c) for c in player], [str(c) for c in banker], side


def _hands(player: list[Card], banker: list[Card]) -> str:
    return (f"player {' '.join(map(str, player))} = {hand_total(player)}, "
            f"banker {' '.join(map(str, banker))} = {hand_total(banker)}")


def position_field(position: int, player_cards: int) -> str:
    """The field of a card-level round that holds the card at deal position ``position``
    (1-based) when the player has ``player_cards`` cards: 1 -> ``"player[0]"``, 2 ->
    ``"banker[0]"``, 3 -> ``"player[1]"``, 4 -> ``"banker[1]"``, 5 -> ``"player[2]"`` (or
    ``"banker[2]"`` when the player stood), 6 -> ``"banker[2]"``."""
    if position <= 4:
        return f"{'player' if position % 2 else 'banker'}[{(position - 1) // 2}]"
    return "player[2]" if position == 5 and player_cards == 3 else "banker[2]"


SHOE_RESULT_KEYS: tuple[str, ...] = ("winner", "banker_six", "player_pair", "banker_pair")
"""The keys of a card-reading shoe's own result of a round (a held round's ``shoe_result``), in
their one order."""


def ordered_held(held: Mapping[str, Any]) -> dict[str, Any]:
    """A held round's record ``{"reason", "message", "shoe_result", "player", "banker", "at"}``
    in its one key order (``shoe_result`` in :data:`SHOE_RESULT_KEYS` order), e.g. read back from
    a store that sorts keys, so it encodes to the same bytes."""
    r = held.get("shoe_result")
    return {"reason": held["reason"], "message": held["message"],
            "shoe_result": None if r is None else {k: r[k] for k in SHOE_RESULT_KEYS},
            "player": list(held["player"]), "banker": list(held["banker"]), "at": held["at"]}


def face_sides(cards: Iterable[str]) -> list[str]:
    """The side (``"player"`` / ``"banker"``) of each card of a round in deal order, by the
    tableau (:func:`roads.tableau.next_card`); stops at the round's end."""
    player: list[Card] = []
    banker: list[Card] = []
    out: list[str] = []
    for text in cards:
        side = next_card(player, banker)
        if side is None:
            break
        out.append(side)
        (player if side == "player" else banker).append(Card.parse(text))
    return out


def check_backs(faces: list[str], backs: list[str]) -> int | None:
    """Whether cards drawn face down at positions ``len(faces)+1``.. with sides ``backs`` can be
    dealt after the faces ``faces`` (docs/domain.md section 1: cards 1-4 go P, B, P, B; the
    card right after the faces is the tableau's next; a sixth card is the banker's and comes
    only after the player's third): the 0-based index in ``backs`` of the first that cannot,
    or ``None``. Raises nothing."""
    player, banker, due = split_deal(faces)
    for i, side in enumerate(backs):
        k = len(faces) + 1 + i
        if k > 6:
            return i
        if i == 0 and side != due:  # the next card: the tableau says whose (None: complete)
            return i
        if k <= 4 and side != ("player" if k % 2 else "banker"):
            return i
        if k == 6 and (side != "banker" or (k - 2 >= len(faces) and backs[i - 1] != "player")):
            return i
    return None


@dataclass(slots=True)
class InProgressRound:
    """The round being dealt card by card (at most one per table, in its current shoe).

    ``number``: its round number; ``cards``: the faces dealt so far in deal order (canonical
    strings, 1-5: the sixth, or the one that completes the round, records it whole); ``burn``:
    cards burned before it; ``cut_card``: the cut card came out; ``started_at``: Unix seconds
    of its first card; ``backs``: the sides (``"player"`` / ``"banker"``) of cards drawn face
    down after ``cards``, at positions ``len(cards)+1``.. (docs/shoes.md, face-down draws:
    each takes its face later, in deal order).
    """

    number: int
    started_at: float
    cards: list[str] = field(default_factory=list)
    burn: list[str] = field(default_factory=list)
    cut_card: bool = False
    backs: list[str] = field(default_factory=list)

    def hands(self) -> tuple[list[str], list[str], str | None]:
        """``(player, banker, next side)`` of the faces so far (:func:`split_deal`)."""
        return split_deal(self.cards)

    def data(self, cards: Iterable[str] = ()) -> dict[str, Any]:
        """The canonical round of the cards so far plus ``cards`` (a whole round once the
        tableau says it is complete; partial otherwise), with burn and cut card."""
        player, banker, _ = split_deal(self.cards + list(cards))
        out: dict[str, Any] = {"player": player, "banker": banker}
        if self.burn:
            out["burn"] = list(self.burn)
        if self.cut_card:
            out["cut_card"] = True
        return out

    def taken(self) -> list[Card]:
        """Every card this round took out of the shoe so far with its face known: burn, then dealt
        (cards drawn face down count once their face comes)."""
        return [Card.parse(c) for c in self.burn + self.cards]

    def sides(self) -> list[str]:
        """The side of every card drawn so far, faces then backs, in deal order."""
        return face_sides(self.cards) + list(self.backs)

    def to_json(self) -> dict[str, Any]:
        """``{"round", "player", "banker", "burn", "cut_card", "player_total", "banker_total",
        "next"}``: the cards face up on each side, running totals (sum of values mod 10), and
        whose card comes next by those faces (``"player"`` / ``"banker"``). While cards are face
        down, also ``"cards": [{"side", "card" (``None``: face down)}]`` (every card drawn, deal
        order) and ``"drawn": [{"position", "side", "nth"}]`` (the face-down ones: deal position,
        side, the side's 1st-3rd card)."""
        player, banker, side = self.hands()
        out = {
            "round": self.number,
            "player": player,
            "banker": banker,
            "burn": list(self.burn),
            "cut_card": self.cut_card,
            "player_total": hand_total(parse_cards(player)),
            "banker_total": hand_total(parse_cards(banker)),
            "next": side,
        }
        if self.backs:
            sides = self.sides()
            faces: list[str | None] = [*self.cards, *([None] * len(self.backs))]
            out["cards"] = [{"side": s, "card": c} for s, c in zip(sides, faces)]
            out["drawn"] = [{"position": k, "side": s, "nth": sides[:k].count(s)}
                            for k, s in enumerate(sides, 1) if k > len(self.cards)]
        return out


# ----------------------------------------------------------------------------- record
@dataclass(slots=True)
class RoundRecord:
    """One recorded round of a shoe."""

    number: int
    data: dict[str, Any]
    """The canonical round as it stands now (after corrections)."""
    original: dict[str, Any]
    """The canonical round as first recorded (a retry of it is still unchanged)."""
    result: RoundResult | None
    """``None`` only for a round voided while in progress (its cards do not make a round)."""
    at: float
    void: dict[str, Any] | None = None
    """``{"reason", "at"}`` once voided: kept in the record, counted in no road or counter."""
    corrections: list[dict[str, Any]] = field(default_factory=list)
    """``[{"at", "reason", "previous"}]``, oldest first."""
    dealer: str | None = None
    """The table's dealer (:attr:`roads.table_state.TableStatus.dealer`) when the round was
    recorded; not part of :meth:`export` (the gaming-day statistics read it)."""
    held: dict[str, Any] | None = None
    """``{"reason", "message", "shoe_result", "player", "banker", "at"}`` once held for the
    supervisor (a ``"hold"`` event, docs/shoes.md); kept after it is resolved (a correction
    records the round, a void voids it)."""

    @property
    def on_hold(self) -> bool:
        """Held for the supervisor and not resolved yet (no result, not voided)."""
        return self.held is not None and self.result is None and self.void is None

    def held_json(self) -> dict[str, Any] | None:
        """``{"reason", "message", "shoe_result", "player", "banker", "at" (ISO 8601),
        "resolved"}`` once held, else ``None``."""
        h = self.held
        if h is None:
            return None
        return {"reason": h["reason"], "message": h["message"], "shoe_result": h["shoe_result"],
                "player": list(h["player"]), "banker": list(h["banker"]), "at": iso_time(h["at"]),
                "resolved": not self.on_hold}

    def void_json(self) -> dict[str, Any] | None:
        """``{"reason", "at"}`` (ISO 8601) once voided, else ``None``."""
        return None if self.void is None else {"reason": self.void["reason"], "at": iso_time(self.void["at"])}

    def export(self, shoe: int) -> dict[str, Any]:
        """JSON-ready record: ``{"round", "at", "feed" (the feed body that records it again),
        "result", "void", "corrections"}``; a round voided while in progress has ``"result"``
        ``None``, the cards dealt so far as ``"feed"`` and ``"incomplete": True``."""
        out = {
            "round": self.number,
            "at": iso_time(self.at),
            "feed": {"shoe": shoe, "round": self.number, **self.data},
            "result": None if self.result is None else self.result.to_json(),
            "void": self.void_json(),
            "corrections": [
                {"at": iso_time(c["at"]), "reason": c["reason"], "previous": c["previous"]} for c in self.corrections
            ],
        }
        if self.result is None:
            out["incomplete"] = True
        if self.held is not None:
            out["held"] = self.held_json()
        return out


@dataclass(slots=True)
class ShoeRecord:
    """One shoe of a table.

    ``ops`` is the sequence of road operations applied to this shoe (``("record" | "void" |
    "correct" | "insert", round number, result or None)``; ``"insert"``: a held round resolved,
    counted at its number's place), so a past shoe's roads can be rebuilt exactly
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
    in_progress: InProgressRound | None = None
    """The round being dealt card by card, if any (only in the table's current shoe)."""
    version: int = 0
    updated_at: float = 0.0
    _summary: tuple[int, bool, dict[str, Any]] | None = field(default=None, repr=False, compare=False)

    def round(self, number: int) -> RoundRecord | None:
        """The recorded round ``number`` (1-based) or ``None``."""
        return self.rounds[number - 1] if 1 <= number <= len(self.rounds) else None

    def held_rounds(self) -> list[RoundRecord]:
        """The rounds held for the supervisor and not resolved yet, in round order."""
        return [r for r in self.rounds if r.on_hold]

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
            elif op == "insert":
                roads.insert(number, result)
            elif op == "void":
                roads.void(number)
            else:
                roads.correct(number, result)
        return roads

    def summary(self, live: bool) -> dict[str, Any]:
        """JSON-ready line of a table's shoe listing: ``{"shoe", "live", "variant": {"id",
        "name"}, "decks", "rounds" (recorded, voided and held included), "counted", "voided",
        "held" (only when rounds wait for the supervisor: their number), "started_at", "ended_at" (ISO 8601 UTC; ``None`` while live), "last_round_at", "burn",
        "cut_card_position", "cut_card_round", "version"}``. Built once per ``(version, live)``;
        shared: do not mutate."""
        cached = self._summary
        if cached is not None and cached[0] == self.version and cached[1] == live:
            return cached[2]
        voided = sum(1 for r in self.rounds if r.void is not None)
        held = sum(1 for r in self.rounds if r.on_hold)
        last_at = self.rounds[-1].at if self.rounds else None
        out = {
            "shoe": self.number,
            "live": live,
            "variant": {"id": self.variant.id, "name": self.variant.name},
            "decks": self.decks,
            "rounds": len(self.rounds),
            "counted": len(self.rounds) - voided - held,
            "voided": voided,
            "started_at": iso_time(self.started_at),
            "ended_at": None if live else iso_time(last_at if last_at is not None else self.started_at),
            "last_round_at": iso_time(last_at),
            "burn": list(self.burn),
            "cut_card_position": self.cut_card_position,
            "cut_card_round": self.cut_card_round(),
            "version": self.version,
        }
        if held:
            out["held"] = held
        self._summary = (self.version, live, out)
        return out
