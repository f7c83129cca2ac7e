"""Request bodies of the live feed: cards of a round dealt card by card, and the table's state.

Same conventions as :mod:`web.http.schemas` (pydantic v2, strict types, unknown fields refused,
:func:`web.http.schemas.validate` names the offending field in a 400); the rules (deal order,
copies, states) are :mod:`roads.dealing`'s and :mod:`roads.table_state`'s. Each model turns
into its write with ``write()``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from roads.dealing import DealCards
from roads.table_state import KEEP, TABLE_STATES, SetState, parse_time
from roads.shoe import MAX_ROUND_CARDS
from web.display_text import DisplayText
from web.http.schemas import CardText

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
    """

    model_config = ConfigDict(**_Strict.model_config, json_schema_extra={"minProperties": 1})

    state: Literal[TABLE_STATES] | None = None  # type: ignore[valid-type]
    closes_at: Annotated[str, Field(max_length=64, json_schema_extra={"format": "date-time"}), AfterValidator(_utc_seconds)] | None = None
    seconds_left: Annotated[int | float, Field(ge=0, le=86_400)] | None = None
    dealer: DisplayText(100, "the dealer's name") | None = None
    limits: LimitsIn | None = None

    @model_validator(mode="after")
    def _something(self) -> "StateIn":
        if not self.model_fields_set:
            raise ValueError("nothing to set: give state, closes_at, seconds_left, dealer or limits")
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
        )
