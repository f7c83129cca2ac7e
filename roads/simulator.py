"""Simulated table feed: real shoes dealt by the rules engine, as feed messages.

A simulated table deals shoe after shoe with :class:`roads.shoe.Shoe` (burn cards, cut
card, tableau; docs/domain.md sections 1-2) and describes what happens as
*feed messages*, the same messages a live table's shoe reader sends to the service
(docs/api.md, "Feed"). One message is a JSON object made of two parts:

* the **envelope** (:data:`ENVELOPE_KEYS`): ``"type"`` (:data:`SHOE` or :data:`ROUND`)
  and ``"table"`` (the table id);
* the **body**: exactly the JSON the HTTP feed accepts at the path of
  :func:`feed_request`. A shoe start goes to ``POST /api/tables/<table>/shoes``:
  ``{"shoe": 3, "burn": ["5H", "KD", "2C", "9S", "4D", "QH"], "cut_card_position": 30}``
  (the new-shoe burn, turned card first; the cut card's place in cards from the back of
  the shoe; optionally ``"variant"``, a preset id). A round goes to
  ``POST /api/tables/<table>/rounds``:
  ``{"shoe": 3, "round": 42, "player": ["4S", "KD", "9H"], "banker": ["7C", "JD"]}``,
  with ``"burn": ["8C"]`` when a card was burned before it (tables that burn between rounds,
  docs/domain.md section 2) and
  ``"cut_card": true`` on the last round of the shoe (the cut card came out during it or
  right after it).

A table followed live (``roads simulate --cards``, the demo) sends more: :func:`card_level`
turns each message into what a card-reading shoe and a dealer terminal send instead. A shoe
start is preceded by the state ``shuffling``; a round becomes the state ``betting`` (with
``seconds_left``), the state ``dealing``, its cards one by one in deal order (P1 B1 P2 B2, the
player's third card, the banker's; :func:`roads.record.deal_order`) and the state ``result``.
Two more message types carry them: :data:`STATE` goes to ``POST /api/tables/<table>/state``
(``{"state": "betting", "seconds_left": 15}``, optionally ``"dealer"``), :data:`CARDS` to
``POST /api/tables/<table>/shoes/<shoe>/rounds/<round>/cards`` (``{"position": 3, "cards":
["KD"]}``, with the round's ``"burn"`` on card 1 and ``"cut_card": true`` on its last card);
``"shoe"`` and ``"round"`` of a cards message are in the path. :func:`whole_rounds` folds such
a stream back into whole rounds (what the roads record). A card-reading shoe also sends cards
drawn face down (a :data:`CARDS` message with ``"sides"``, no ``"cards"``), ``"shoe_error"`` in
a :data:`STATE` message and :data:`HOLD` (``POST .../shoes/<shoe>/rounds/<round>/hold``).

A feed file (``roads simulate``) holds one message per line (JSON Lines), so replaying it
is a plain loop: ``web.cli.feed_file.read_feed`` parses and checks it line by line with the
feed's own request models (a bad line is a :class:`FeedLineError`), :func:`feed_request`
maps each message to its HTTP path and body. Result-level rounds
(``{"shoe", "round", "result": {...}}``, docs/api.md) are accepted in files too, for
recordings of feeds that carry no cards.

Deterministic: the same ``seed``, table id and shoe number always give the same shoe
(each shoe draws from its own ``random.Random`` seeded from the three), so shoe 7 of a
file does not depend on how shoes 1-6 were dealt.

Standard library only (the domain core).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Mapping
from urllib.parse import quote

from roads.errors import DealOrder
from roads.record import deal_order, split_deal
from roads.shoe import Shoe

SHOE = "shoe"
"""Message type: a new shoe starts (burn cards, cut-card position)."""

ROUND = "round"
"""Message type: one dealt round with its cards."""

STATE = "state"
"""Message type: the table's state (``betting`` with ``seconds_left``, ``dealing``, ...)."""

CARDS = "cards"
"""Message type: cards of a round in progress from a deal position (card-level feeds); with
``"sides"`` instead of ``"cards"``, cards drawn face down."""

HOLD = "hold"
"""Message type: the round in progress held for the supervisor (a card-reading shoe's adapter)."""

TYPES: tuple[str, ...] = (SHOE, ROUND, STATE, CARDS, HOLD)
"""Every message type, in the order a table first sends them."""

BETTING_SECONDS = 15
"""Seconds betting stays open on a card-level file's ``betting`` message (a live table's countdown)."""

ENVELOPE_KEYS: frozenset[str] = frozenset({"type", "table"})
"""Keys of a message that are not part of the HTTP body (:func:`feed_body` strips them)."""

DEFAULT_TABLE = "table-1"
"""Table id of a simulated table when none is given."""

DEFAULT_DECKS = 8
"""Decks in a simulated shoe when none is given (docs/domain.md section 1)."""

CUT_CARD_RANGE: tuple[int, int] = (14, 52)
"""Inclusive range, in cards from the back of the shoe, from which a simulated dealer
places the cut card when no fixed position is given (between about a quarter of a deck
and one deck: an 8-deck shoe then lasts about 70-80 rounds)."""


class FeedLineError(ValueError):
    """A feed-file line that is not a valid feed message.

    ``line_number`` is 1-based; ``field`` names the offending key (``None`` when the line is
    not a JSON object at all). The message starts with ``"line N: "`` and quotes the input.
    """

    def __init__(self, line_number: int, message: str, field: str | None = None) -> None:
        super().__init__(f"line {line_number}: {message}")
        self.line_number = line_number
        self.field = field


@dataclass(frozen=True, slots=True)
class FeedRequest:
    """Where and what to send for one message: ``POST <path>`` with JSON ``body``.

    ``path`` is relative to the service root, e.g. ``"/api/tables/table-1/rounds"``.
    """

    path: str
    body: dict[str, Any]


# --------------------------------------------------------------------------- dealing
def shoe_rng(seed: int | str, table: str, shoe: int) -> random.Random:
    """The random source of one simulated shoe: a function of ``(seed, table, shoe)`` only."""
    return random.Random(f"roads.simulator:{seed}:{table}:{shoe}")


def simulate_shoe(
    table: str,
    shoe: int,
    *,
    seed: int | str = 0,
    decks: int = DEFAULT_DECKS,
    cut_card_position: int | None = None,
    burn_between_rounds: bool = False,
    variant: str | None = None,
) -> Iterator[dict[str, Any]]:
    """Deal one shoe and yield its messages: one :data:`SHOE` message, then every round.

    ``shoe`` is the shoe number (>= 1); ``cut_card_position`` is in cards from the back of
    the shoe, ``None`` = drawn from :data:`CUT_CARD_RANGE` (capped for 1-deck shoes);
    ``burn_between_rounds`` burns one card between every two rounds (docs/domain.md section 2;
    the round after it carries it as ``"burn"``). ``variant`` (a preset id) is written on the shoe
    message when given. The last round carries ``"cut_card": true``. Raises
    ``ValueError`` for a shoe number below 1 and :class:`roads.shoe.ShoeError` (a
    ``ValueError``) for a bad deck count or cut-card position.
    """
    if isinstance(shoe, bool) or not isinstance(shoe, int) or shoe < 1:
        raise ValueError(f"shoe number must be an integer >= 1, got {shoe!r}")
    rng = shoe_rng(seed, table, shoe)
    if cut_card_position is None:
        low, high = CUT_CARD_RANGE
        # Small shoes (1-2 decks) must keep room for the burn and a round before the cut card.
        cut_card_position = rng.randint(low, max(low, min(high, 52 * decks - 17)))
    dealer = Shoe(decks, rng=rng, cut_card_position=cut_card_position,
                  burn_between_rounds=burn_between_rounds)
    start: dict[str, Any] = {
        "type": SHOE,
        "table": table,
        "shoe": shoe,
        "burn": [str(c) for c in dealer.burn_cards],
        "cut_card_position": cut_card_position,
    }
    if variant is not None:
        start["variant"] = variant
    yield start
    while not dealer.finished:
        dealt = dealer.deal_round()
        message: dict[str, Any] = {
            "type": ROUND,
            "table": table,
            "shoe": shoe,
            "round": dealt.number,
            "player": [str(c) for c in dealt.player],
            "banker": [str(c) for c in dealt.banker],
        }
        if dealt.burned:
            message["burn"] = [str(c) for c in dealt.burned]
        if dealt.is_last:
            message["cut_card"] = True
        yield message


def simulate(
    table: str = DEFAULT_TABLE,
    *,
    seed: int | str = 0,
    shoes: int | None = 1,
    first_shoe: int = 1,
    decks: int = DEFAULT_DECKS,
    cut_card_position: int | None = None,
    burn_between_rounds: bool = False,
    variant: str | None = None,
) -> Iterator[dict[str, Any]]:
    """Deal ``shoes`` consecutive shoes (``None`` = without end) numbered from ``first_shoe``.

    Yields the messages of :func:`simulate_shoe` shoe after shoe, as a table does: at the
    end of a shoe the next one is shuffled, burned and started. Raises ``ValueError`` for a
    negative shoe count.
    """
    if shoes is not None and (isinstance(shoes, bool) or not isinstance(shoes, int) or shoes < 0):
        raise ValueError(f"shoe count must be an integer >= 0, got {shoes!r}")
    number = first_shoe
    while shoes is None or number < first_shoe + shoes:
        yield from simulate_shoe(table, number, seed=seed, decks=decks,
                                 cut_card_position=cut_card_position,
                                 burn_between_rounds=burn_between_rounds, variant=variant)
        number += 1


# --------------------------------------------------------------------------- card level
def live_messages(message: Mapping[str, Any], *, betting_seconds: float = BETTING_SECONDS,
                  dealer: str | None = None) -> list[dict[str, Any]]:
    """What a live table sends for one whole-round ``message`` (see the module docstring).

    A :data:`SHOE` start -> ``[shuffling state, the shoe start]`` (``dealer``, when given, on the
    shuffling state: a new dealer takes the new shoe); a card-level :data:`ROUND` -> ``[betting
    state (seconds_left = betting_seconds), dealing state, one cards message per card, result
    state]``. Any other message (a result-level round, a state, cards) is returned as it is.
    """
    table, kind = message["table"], message.get("type")
    if kind == SHOE:
        shuffling: dict[str, Any] = {"type": STATE, "table": table, "state": "shuffling"}
        if dealer is not None:
            shuffling["dealer"] = dealer
        return [shuffling, dict(message)]
    cards = deal_order(message) if kind == ROUND else None
    if cards is None:
        return [dict(message)]
    out: list[dict[str, Any]] = [{"type": STATE, "table": table, "state": "betting", "seconds_left": betting_seconds},
                                 {"type": STATE, "table": table, "state": "dealing"}]
    for k, card in enumerate(cards, 1):
        one: dict[str, Any] = {"type": CARDS, "table": table, "shoe": message["shoe"], "round": message["round"],
                               "position": k, "cards": [card]}
        if k == 1 and message.get("burn"):
            one["burn"] = list(message["burn"])
        if k == len(cards) and message.get("cut_card"):
            one["cut_card"] = True
        out.append(one)
    out.append({"type": STATE, "table": table, "state": "result"})
    return out


def card_level(messages: Iterable[Mapping[str, Any]], *,
               betting_seconds: float = BETTING_SECONDS) -> Iterator[dict[str, Any]]:
    """``messages`` (e.g. :func:`simulate`'s) as a live table sends them: :func:`live_messages` of each."""
    for message in messages:
        yield from live_messages(message, betting_seconds=betting_seconds)


def whole_rounds(numbered: Iterable[tuple[int, Mapping[str, Any]]]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Fold a feed (``(line_number, message)`` pairs, :func:`read_feed`) into shoe starts and whole
    rounds, as the service records them: states are dropped, the :data:`CARDS` messages of a
    round become one :data:`ROUND` message (line number of the card that completed it; a card
    sent again or drawn face down is skipped). A round left incomplete (a misdeal, a file cut
    short) or held (:data:`HOLD`) is left out.
    Raises :class:`FeedLineError` naming the line for a card the tableau does not deal, a card
    out of place or a card other than the one already at its position.
    """
    pending: dict[str, Any] | None = None
    for number, m in numbered:
        kind = m.get("type")
        if kind == STATE:
            continue
        if kind == HOLD:
            if pending is not None and pending["key"] == (m["table"], m["shoe"], m["round"]):
                pending = None   # held: recorded only by a correction, not by its cards
            continue
        if kind != CARDS:
            yield number, dict(m)
            continue
        if "cards" not in m:
            continue   # drawn face down: the face follows at the same position
        key = (m["table"], m["shoe"], m["round"])
        if pending is None or pending["key"] != key:
            pending = {"key": key, "cards": [], "burn": [], "cut_card": False}
        dealt = pending["cards"]
        if m["position"] > len(dealt) + 1:
            raise FeedLineError(number, f"card {m['position']} of shoe {m['shoe']} round {m['round']} after "
                                        f"{len(dealt)} card(s)", "position")
        for k, card in enumerate(m["cards"], m["position"]):
            if k <= len(dealt):
                if dealt[k - 1] != card:
                    raise FeedLineError(number, f"card {k} is {dealt[k - 1]} already, got {card}", "cards")
                continue
            dealt.append(card)
        pending["burn"] = pending["burn"] or list(m.get("burn", ()))
        pending["cut_card"] = pending["cut_card"] or bool(m.get("cut_card"))
        try:
            player, banker, side = split_deal(dealt)
        except DealOrder as e:
            raise FeedLineError(number, str(e), "cards") from None
        if side is None and "done" not in pending:
            pending["done"] = True
            whole: dict[str, Any] = {"type": ROUND, "table": m["table"], "shoe": m["shoe"], "round": m["round"],
                                     "player": player, "banker": banker}
            if pending["burn"]:
                whole["burn"] = pending["burn"]
            if pending["cut_card"]:
                whole["cut_card"] = True
            yield number, whole


# --------------------------------------------------------------------------- messages
def feed_body(message: Mapping[str, Any]) -> dict[str, Any]:
    """The HTTP body of a message: the message without its envelope keys."""
    return {k: v for k, v in message.items() if k not in ENVELOPE_KEYS}


def feed_request(message: Mapping[str, Any]) -> FeedRequest:
    """The feed path and body of a message (a shoe start, a round, a state, cards or a hold); the
    table id is percent-encoded in the path, and a cards or hold message's shoe and round go in
    the path.

    Raises ``ValueError`` naming the type when ``message["type"]`` is not one of :data:`TYPES`.
    """
    kind = message.get("type")
    table = quote(str(message["table"]), safe="")
    if kind == SHOE:
        return FeedRequest(f"/api/tables/{table}/shoes", feed_body(message))
    if kind == ROUND:
        return FeedRequest(f"/api/tables/{table}/rounds", feed_body(message))
    if kind == STATE:
        return FeedRequest(f"/api/tables/{table}/state", feed_body(message))
    if kind in (CARDS, HOLD):
        body = {k: v for k, v in feed_body(message).items() if k not in ("shoe", "round")}
        return FeedRequest(f"/api/tables/{table}/shoes/{message['shoe']}/rounds/{message['round']}/{kind}", body)
    raise ValueError(f"unknown message type {kind!r} (expected one of {', '.join(map(repr, TYPES))})")


def to_line(message: Mapping[str, Any]) -> str:
    """One JSON Lines line (with its newline), keys in a stable order, non-ASCII kept."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n"
