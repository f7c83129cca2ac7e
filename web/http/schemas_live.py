"""Request bodies of the live feed: cards of a round dealt card by card (faces, or cards drawn
face down), a round held for the supervisor, and the table's state (with the shoe's error).

Same conventions as :mod:`web.http.schemas` (pydantic v2, strict types, unknown fields refused,
:func:`web.http.schemas.validate` names the offending field in a 400); the rules (deal order,
copies, states) are :mod:`roads.dealing`'s and :mod:`roads.table_state`'s. Each model turns
into its write with ``write()``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from typing import Any

from roads.dealing import SIDES, DealCards
from roads.table import HOLD_REASONS, HoldRound
from roads.table_state import KEEP, TABLE_STATES, SetState, parse_time
from roads.shoe import MAX_ROUND_CARDS
from web.display_text import DisplayText
from web.http.schemas import BadRequest, CardText, validate

Amount = Annotated[int | float, Field(ge=0, le=10**12)]
"""A bet limit in the table's currency (a number >= 0)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, use_attribute_docstrings=True)


class CardsIn(_Strict):
    """``POST /api/tables/<table>/shoes/<shoe>/rounds/<round>/cards``: cards in deal order.

    ``position`` is the 1-based deal position of the first card (1 = the player's first, 2 =
    the banker's first, 3, 4, then third cards as the tableau deals them). Sending card k again
    is a no-op; the card that completes the round records it.
    """

    position: Annotated[int, Field(ge=1, le=MAX_ROUND_CARDS)]
    cards: Annotated[list[CardText], Field(min_length=1, max_length=MAX_ROUND_CARDS)]
    burn: Annotated[list[CardText], Field(max_length=16)] = []
    """Cards burned before this round (tables that burn between rounds, docs/domain.md section 2),
    sent with card 1."""
    cut_card: bool = False
    """The cut card came out during this round (or comes out right after it): the shoe's last."""

    def write(self, shoe: int, round_no: int) -> DealCards:
        """The :class:`roads.dealing.DealCards` write of this body for ``shoe``/``round_no``."""
        return DealCards(shoe, round_no, self.position, tuple(self.cards), tuple(self.burn), self.cut_card)


class DrawnIn(_Strict):
    """``POST /api/tables/<table>/shoes/<shoe>/rounds/<round>/cards`` with ``sides`` instead of
    ``cards``: cards drawn face down at ``position``.. (a card-reading shoe, docs/shoes.md). Each
    shows as a card back of its side until its face comes at the same position (an ordinary
    cards write, not a conflict); the same back again is a no-op."""

    position: Annotated[int, Field(ge=1, le=MAX_ROUND_CARDS)]
    sides: Annotated[list[Literal[SIDES]], Field(min_length=1, max_length=MAX_ROUND_CARDS)]  # type: ignore[valid-type]
    """The side of each card drawn face down, in deal order: ``"player"`` or ``"banker"``."""
    burn: Annotated[list[CardText], Field(max_length=16)] = []
    """Cards burned before this round, sent with card 1 (as for ``cards``)."""
    cut_card: bool = False
    """The cut card came out during this round (or comes out right after it): the shoe's last."""

    def write(self, shoe: int, round_no: int) -> DealCards:
        """The :class:`roads.dealing.DealCards` write of this body (``sides``, no faces)."""
        return DealCards(shoe, round_no, self.position, (), tuple(self.burn), self.cut_card, tuple(self.sides))


def parse_cards(data: dict[str, Any]) -> CardsIn | DrawnIn:
    """A cards body: :class:`DrawnIn` when it has ``"sides"`` and no ``"cards"``, else
    :class:`CardsIn`; both at once is refused (400 ``unknown_field`` naming ``sides``)."""
    if "sides" in data:
        if "cards" in data:
            raise BadRequest("a card write carries either cards (faces) or sides (cards drawn face down), not both: "
                             "unknown field 'sides'", field="sides", code="unknown_field")
        return validate(DrawnIn, data)
    return validate(CardsIn, data)


class ShoeResultIn(_Strict):
    """The card-reading shoe's own result of a round (Angel Eye ``G``, docs/shoes.md)."""

    winner: Literal["P", "B", "T"]
    banker_six: bool
    player_pair: bool
    banker_pair: bool


class HoldIn(_Strict):
    """``POST /api/tables/<table>/shoes/<shoe>/rounds/<round>/hold``: the round in progress held
    for the supervisor (docs/shoes.md section "Rounds"): it leaves the round in progress (the next
    round may start), counts in no road, and every board shows "Round 12 held for the supervisor"
    until a correction (PUT) records it or a void voids it. The same hold again is a no-op."""

    reason: Literal[HOLD_REASONS]  # type: ignore[valid-type]
    """``result_mismatch`` (the shoe's result disagrees with the cards), ``result_before_complete``
    (a result before the cards completed the round), ``frames_lost`` (frames lost, no result)."""
    message: DisplayText(500, "what the adapter saw")
    shoe_result: ShoeResultIn | None = None
    player: Annotated[list[CardText], Field(max_length=3)] = []
    """The Player's cards as the adapter read them (deal order)."""
    banker: Annotated[list[CardText], Field(max_length=3)] = []
    """The Banker's cards as the adapter read them (deal order)."""

    def write(self, shoe: int, round_no: int) -> HoldRound:
        """The :class:`roads.table.HoldRound` write of this body."""
        result = None if self.shoe_result is None else self.shoe_result.model_dump()
        return HoldRound(shoe, round_no, self.reason, self.message, result, tuple(self.player), tuple(self.banker))


class ShoeErrorIn(_Strict):
    """A card-reading shoe's error (docs/shoes.md): ``code`` 1-63 (Angel Eye ``E``: ``byte &
    0x3F``) and its ``name`` (``card_unreadable``, ``overdraw``, ``button_mishandled``,
    ``card_returned_exit``, ``card_returned_inside``, ``card_code_error``, ``drawing_timeout``,
    or another: boards say "Shoe: error <code>")."""

    code: Annotated[int, Field(ge=1, le=63)]
    name: Annotated[str, Field(min_length=1, max_length=40, pattern=r"^[a-z0-9_]+$")]


class LimitRangeIn(_Strict):
    """Minimum and maximum stake of one bet."""

    min: Amount
    max: Amount


class LimitsIn(_Strict):
    """Table limits: ``min``/``max`` per bet for the main bets, ``bets`` for bets with their own."""

    min: Amount
    max: Amount
    bets: dict[Annotated[str, Field(min_length=1, max_length=64)], LimitRangeIn] | None = None


def _utc_seconds(text: str) -> float:
    return parse_time(text)


class StateIn(_Strict):
    """``POST /api/tables/<table>/state``: any of the fields; those left out stay as they are.

    ``state``: one of ``betting``, ``dealing``, ``result``, ``shuffling``, ``closed``,
    ``maintenance`` (``null``: not known). While betting, ``closes_at`` (ISO 8601 with a time
    zone) or ``seconds_left`` gives the time betting closes. ``dealer``: the dealer's name
    (``null`` clears it). ``limits``: the table limits (``null``: back to the configured ones).
    ``shoe_error``: the card-reading shoe's error, shown on every board until ``null`` clears it.
    """

    model_config = ConfigDict(**_Strict.model_config, json_schema_extra={"minProperties": 1})

    state: Literal[TABLE_STATES] | None = None  # type: ignore[valid-type]
    closes_at: Annotated[str, Field(max_length=64, json_schema_extra={"format": "date-time"}), AfterValidator(_utc_seconds)] | None = None
    seconds_left: Annotated[int | float, Field(ge=0, le=86_400)] | None = None
    dealer: DisplayText(100, "the dealer's name") | None = None
    limits: LimitsIn | None = None
    shoe_error: ShoeErrorIn | None = None

    @model_validator(mode="after")
    def _something(self) -> "StateIn":
        if not self.model_fields_set:
            raise ValueError("nothing to set: give state, closes_at, seconds_left, dealer, limits or shoe_error")
        return self

    def write(self) -> SetState:
        """The :class:`roads.table_state.SetState` write of this body (fields not sent are kept)."""
        given = self.model_fields_set

        def keep(name: str, value: object) -> object:
            return value if name in given else KEEP

        limits = None if self.limits is None else self.limits.model_dump(exclude_none=True)
        return SetState(
            state=keep("state", self.state),
            closes_at=self.closes_at,  # type: ignore[arg-type]  # the validator made it seconds
            seconds_left=self.seconds_left,
            dealer=keep("dealer", self.dealer),
            limits=keep("limits", limits),
            shoe_error=keep("shoe_error", None if self.shoe_error is None else self.shoe_error.model_dump()),
        )
