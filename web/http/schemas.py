"""Request bodies of the table feed, validated by pydantic v2 (strict types, unknown fields refused).

Every model forbids fields it does not name (``extra="forbid"``) and takes JSON types as they
are (``strict``: ``"3"`` is not a shoe number, ``1`` is not ``true``). Card strings are parsed
by :meth:`roads.cards.Card.parse` and kept in canonical form (``"10d"`` -> ``"TD"``).

:func:`load_json` turns the raw body into a JSON object, then :func:`parse_round`,
:func:`parse_correction` or :func:`validate` into a model; each raises
:class:`web.http.errors.BadRequest` whose ``field`` is the path of the offending field
(``"player[2]"``, ``"result.winner"``).
The rules of the game (tableau, totals, card copies) are checked by :mod:`web.service`,
not here.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, WithJsonSchema

from roads import bounded_json
from roads.cards import Card
from roads.text import DisplayTextError
from web.display_text import DisplayText
from web.http.errors import BadRequest

MAX_ROUND = 999
"""Highest round number accepted: an 8-deck shoe (416 cards, 4-6 per round) has at most 104."""

MAX_SHOE = 10**9
"""Highest shoe number accepted (shoes may be numbered by date, e.g. 2024061501)."""


def _canonical_card(text: str) -> str:
    return str(Card.parse(text))


CARD_PATTERN = r"^\s*([AaJjQqKkTt2-9]|10)[SsHhDdCc]\s*$"
"""The card notation as a regular expression (for the OpenAPI document; parsing is
:meth:`roads.cards.Card.parse`)."""

CardText = Annotated[
    str,
    AfterValidator(_canonical_card),
    WithJsonSchema({"type": "string", "pattern": CARD_PATTERN, "examples": ["AS", "TD", "10D", "kh"],
                    "description": "rank A,2-9,T/10,J,Q,K then suit S,H,D,C"}),
]
"""A card string (``"AS"``, ``"TD"``, ``"10D"``, ``"kh"``), canonicalised to ``"AS"``/``"TD"``."""

Hand = Annotated[list[CardText], Field(min_length=2, max_length=3)]
"""One side's cards in deal order: 2 or 3 (the third card last)."""

ShoeNumber = Annotated[int, Field(ge=1, le=MAX_SHOE)]
RoundNumber = Annotated[int, Field(ge=1, le=MAX_ROUND)]
Total = Annotated[int, Field(ge=0, le=9)]
Reason = DisplayText(500, "why the round was voided or corrected")
"""A void or correction reason: 1-500 characters of display text (:mod:`roads.text`)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, use_attribute_docstrings=True)


class ResultIn(_Strict):
    """A round's result for feeds that carry no cards (``"result"`` of :class:`ResultRoundIn`).

    ``winner``, both totals, both pairs and ``natural`` are required: a fact the feed does not
    send is unknown, and an unknown pair is not guessed to be ``false``. Card counts (2 or 3)
    and perfect pairs are optional; left out they stay unknown.
    """

    winner: Literal["B", "P", "T"]
    player_total: Total
    banker_total: Total
    player_pair: bool
    banker_pair: bool
    natural: bool
    player_card_count: Literal[2, 3] | None = None
    banker_card_count: Literal[2, 3] | None = None
    player_perfect_pair: bool | None = None
    banker_perfect_pair: bool | None = None


class _RoundFields(_Strict):
    burn: Annotated[list[CardText], Field(max_length=16)] | None = None
    """Cards burned before this round (one between rounds on some tables, docs/domain.md section
    2; or a card the dealer drew by mistake). Counted against the shoe's decks; no part of the
    result."""
    cut_card: bool = False
    """The cut card came out during this round or right after it: this is the shoe's last round
    (domain digest section 2). Later rounds of the shoe are refused."""

    def canonical(self) -> dict[str, Any]:
        """The round as stored and compared for idempotency: no shoe/round, no unknowns."""
        d = self.model_dump(exclude={"shoe", "round", "reason"}, exclude_none=True)
        if not d.get("burn"):
            d.pop("burn", None)
        if not d.get("cut_card"):
            d.pop("cut_card", None)
        return d


class CardRoundIn(_RoundFields):
    """``POST /api/tables/<table>/rounds``, card-level: ``{"shoe", "round", "player", "banker"}``.

    ``player`` and ``banker`` are the cards in deal order (first two, then the third).
    """

    shoe: ShoeNumber
    round: RoundNumber
    player: Hand
    banker: Hand


class ResultRoundIn(_RoundFields):
    """``POST /api/tables/<table>/rounds``, result-level: ``{"shoe", "round", "result": {...}}``."""

    shoe: ShoeNumber
    round: RoundNumber
    result: ResultIn


class CardCorrectionIn(_RoundFields):
    """``PUT /api/tables/<table>/shoes/<shoe>/rounds/<round>`` with cards: the round as it should be.

    ``shoe`` and ``round`` may be repeated (they must match the path); ``reason`` is kept in
    the round's correction history.
    """

    shoe: ShoeNumber | None = None
    round: RoundNumber | None = None
    player: Hand
    banker: Hand
    reason: Reason | None = None


class ResultCorrectionIn(_RoundFields):
    """``PUT /api/tables/<table>/shoes/<shoe>/rounds/<round>`` with a result-level round."""

    shoe: ShoeNumber | None = None
    round: RoundNumber | None = None
    result: ResultIn
    reason: Reason | None = None


class ShoeIn(_Strict):
    """``POST /api/tables/<table>/shoes``: start shoe ``shoe`` explicitly.

    ``burn``: the burn cards, turned card first (its value says how many more are burned:
    A = 1 ... 9 = 9, 10/J/Q/K = 10; docs/domain.md section 2), so the list holds 1 + that many
    cards; empty when the feed does not know them. ``cut_card_position``: where the cut card was
    placed, in cards from the back of the shoe (``None`` = not known; the record refuses one
    outside :func:`roads.shoe.cut_card_range`, 422 ``cut_card_position``). ``variant``: a preset
    id of :mod:`roads.variants` for this shoe (default: the table's configured variant).
    """

    shoe: ShoeNumber
    burn: Annotated[list[CardText], Field(max_length=11)] = []
    cut_card_position: int | None = None  # its range depends on the decks: roads.shoe.cut_card_range
    variant: Annotated[str, Field(min_length=1, max_length=64)] | None = None


class VoidIn(_Strict):
    """``POST /api/tables/<table>/shoes/<shoe>/rounds/<round>/void``: ``{"reason": "misdeal"}``."""

    reason: Reason


RoundIn = Union[CardRoundIn, ResultRoundIn]
CorrectionIn = Union[CardCorrectionIn, ResultCorrectionIn]


# ----------------------------------------------------------------------------- parsing
def load_json(raw: bytes) -> dict[str, Any]:
    """Decode a JSON object from ``raw`` (UTF-8) within the bounds of :mod:`roads.bounded_json`.

    Raises :class:`BadRequest` ``malformed_json`` (empty body, bad UTF-8, bad JSON with
    line/column, nesting deeper than :data:`roads.bounded_json.MAX_DEPTH` levels, a number
    literal too long to be any field's value or not finite, ``NaN``/``Infinity``, a duplicate
    key, an unpaired surrogate escape) or ``not_an_object`` (valid JSON that is not an object).
    The size of ``raw`` is bounded before this by ``ROADS_MAX_BODY_BYTES`` (413).
    """
    if not raw.strip():
        raise BadRequest("empty body; expected a JSON object", code="malformed_json")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadRequest(f"body is not UTF-8 (byte {e.start})", code="malformed_json") from None
    try:
        data = bounded_json.loads(text)
    except bounded_json.JsonInputError as e:
        raise BadRequest(f"malformed JSON: {e}", field=e.field, code="malformed_json") from None
    if not isinstance(data, dict):
        raise BadRequest(f"expected a JSON object, got {type(data).__name__}", code="not_an_object")
    return data


def field_path(loc: tuple[Any, ...]) -> str | None:
    """``("player", 2)`` -> ``"player[2]"``; ``("result", "winner")`` -> ``"result.winner"``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or None


def _message(err: dict[str, Any], field: str | None) -> tuple[str, str]:
    """(code, message) for one pydantic error, in the field's terms."""
    kind = err["type"]
    where = field or "body"
    given = err.get("input")
    if kind == "extra_forbidden":
        return "unknown_field", f"unknown field {field!r}"
    if kind == "missing":
        return "missing_field", f"{where} is required"
    if kind in ("too_short", "too_long") and field in ("player", "banker"):
        n = len(given) if isinstance(given, list) else given
        return "card_count", f"{field} has {n} card(s); a hand has 2 or 3 (tableau)"
    if kind == "value_error":
        ctx_err = err.get("ctx", {}).get("error")
        if isinstance(ctx_err, DisplayTextError):
            return "bad_text", f"{where} {ctx_err}"
        text = str(ctx_err) if ctx_err is not None else err["msg"]
        cards = field and ("player" in field or "banker" in field or "burn" in field or field.startswith("cards"))
        code = "bad_card" if cards else "invalid_value"
        return code, f"{where}: {text}"
    return "invalid_value", f"{where}: {err['msg']}, got {given!r}"


def validate(model: type[BaseModel], data: dict[str, Any], *, prefix: str | None = None) -> Any:
    """``model.model_validate(data)``; raises :class:`BadRequest` naming the first bad field."""
    try:
        return model.model_validate(data)
    except ValidationError as e:
        errors = e.errors(include_url=False)
        # Report an unknown field first: it usually explains the other errors.
        errors.sort(key=lambda er: er["type"] != "extra_forbidden")
        first = errors[0]
        loc = tuple(first["loc"])
        if prefix:
            loc = (prefix, *loc)
        field = field_path(loc)
        code, message = _message(first, field)
        if len(errors) > 1:
            message += f" (and {len(errors) - 1} more error(s))"
        raise BadRequest(message, field=field, code=code) from None


def _one_form(data: dict[str, Any], cards_model: type[BaseModel], result_model: type[BaseModel]) -> Any:
    """Validate ``data`` as ``result_model`` when it has ``"result"``, else as ``cards_model``;
    cards and a result together are refused as an unknown field (:class:`BadRequest`)."""
    if "result" in data:
        if "player" in data or "banker" in data:
            field = "player" if "player" in data else "banker"
            raise BadRequest(
                f"a round carries either cards (player, banker) or a result, not both: unknown field {field!r}",
                field=field,
                code="unknown_field",
            )
        return validate(result_model, data)
    return validate(cards_model, data)


def parse_round(data: dict[str, Any]) -> RoundIn:
    """A round body: result-level when it has ``"result"``, card-level otherwise.

    Raises :class:`BadRequest` naming the field (both forms at once is an unknown-field error).
    """
    return _one_form(data, CardRoundIn, ResultRoundIn)


def parse_correction(data: dict[str, Any]) -> CorrectionIn:
    """A correction body (same two forms as :func:`parse_round`, shoe/round optional, plus reason).

    Raises :class:`BadRequest` naming the field, like :func:`parse_round`.
    """
    return _one_form(data, CardCorrectionIn, ResultCorrectionIn)
