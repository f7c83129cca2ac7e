"""Feed files (``roads simulate``'s output, read by ``roads replay`` and ``roads render``): each line
checked with the request models of the HTTP feed itself, so a file and the feed share one set of
limits.

A line is a feed message (:mod:`roads.simulator`): the envelope (``"type"``, ``"table"``) and
the body the feed path of its type accepts, validated by that path's model:
:class:`web.http.schemas.ShoeIn` (``shoe``), :class:`web.http.schemas.CardRoundIn` or
:class:`web.http.schemas.ResultRoundIn` (``round``), :class:`web.http.schemas_live.StateIn`
(``state``, with its ``shoe_error``), :class:`web.http.schemas_live.CardsIn` or, for cards drawn
face down (``sides``, no ``cards``), :class:`web.http.schemas_live.DrawnIn`, and its
:class:`roads.dealing.DealCards` write (``cards``), :class:`web.http.schemas_live.HoldIn` and its
:class:`roads.table.HoldRound` write (``hold``); the shoe and round of ``cards`` and ``hold``, in
the URL path on the feed, are numbers of :data:`web.http.schemas.ShoeNumber` / ``RoundNumber``. Only the shape
is checked: the tableau and the order of rounds are checked by whoever applies the message (the
service, or ``roads render``). A line is returned as written (the feed canonicalises it).

Every refusal is a :class:`roads.simulator.FeedLineError` naming the line and the offending key,
in the file's terms (``"line 7: 'shoe' must be an integer >= 1, got 0"``).
"""

from __future__ import annotations

import functools
from typing import Any, Iterable, Iterator

from pydantic import BaseModel, ConfigDict, ValidationError

from roads import bounded_json
from roads.errors import TableError
from roads.simulator import CARDS, ENVELOPE_KEYS, HOLD, ROUND, SHOE, TYPES, FeedLineError
from web.http import schemas, schemas_live

MAX_LINE_CHARS = 64 * 1024
"""Longest feed-file line accepted, in characters (a round message is about 120)."""


class _CardsPath(BaseModel):
    """The shoe and round of a cards message (the numbers of the URL path on the feed)."""

    model_config = ConfigDict(strict=True, frozen=True)

    shoe: schemas.ShoeNumber
    round: schemas.RoundNumber


_NOUNS = {"variant": "a preset id", "dealer": "a name"}
"""What a text field holds, in words (other text fields: "text")."""


def parse_feed_line(text: str, line_number: int) -> dict[str, Any]:
    """Parse and check one feed-file line: the message as written (a JSON object).

    Raises :class:`FeedLineError` naming ``line_number`` and the key (``field``), e.g. for a line
    cut short (``"line 7: not valid JSON ..."``), a key the message's feed path does not take, or
    a value its model refuses.
    """
    if len(text) > MAX_LINE_CHARS:
        raise FeedLineError(line_number, f"line of {len(text)} characters; a feed message has at most "
                                         f"{MAX_LINE_CHARS}")
    try:
        data = bounded_json.loads(text)
    except bounded_json.JsonInputError as exc:
        snippet = text.strip()
        if len(snippet) > 60:
            snippet = snippet[:57] + "..."
        raise FeedLineError(line_number, f"not valid JSON (truncated or malformed line?): {exc}: {snippet!r}",
                            exc.field) from None
    if not isinstance(data, dict):
        raise FeedLineError(line_number, f"a feed message must be a JSON object, got {text.strip()[:60]!r}")
    kind = data.get("type")
    if kind not in TYPES:
        raise FeedLineError(line_number, f"'type' must be one of {', '.join(map(repr, TYPES))}, got {kind!r}",
                            "type")
    table = data.get("table")
    if not isinstance(table, str) or not table.strip():
        raise FeedLineError(line_number, f"'table' must be a non-empty table id, got {table!r}", "table")
    body = {k: v for k, v in data.items() if k not in ENVELOPE_KEYS}
    if kind in (CARDS, HOLD):
        path = _validate(_CardsPath, {k: body.pop(k, None) for k in ("shoe", "round")}, kind, line_number)
        if kind == HOLD:
            model: type[BaseModel] = schemas_live.HoldIn
        elif "sides" in body:
            if "cards" in body:
                raise FeedLineError(line_number, "a cards message carries either cards (faces) or sides (cards "
                                                 "drawn face down), not both: unknown key 'sides'", "sides")
            model = schemas_live.DrawnIn
        else:
            model = schemas_live.CardsIn
        written = _validate(model, body, kind, line_number)
        try:
            written.write(path.shoe, path.round)
        except TableError as exc:
            raise FeedLineError(line_number, exc.message, (exc.field or "").split("[")[0] or None) from None
    elif kind == ROUND:
        if "result" in body:
            for side in ("player", "banker"):
                if side in body:
                    raise FeedLineError(line_number, f"a round carries either cards or a result, not both: {side!r}",
                                        side)
        _validate(schemas.ResultRoundIn if "result" in body else schemas.CardRoundIn, body, kind, line_number)
    else:
        _validate(schemas.ShoeIn if kind == SHOE else schemas_live.StateIn, body, kind, line_number)
    return data


def read_feed(lines: Iterable[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Parse a feed file line by line: yields ``(line_number, message)``, 1-based.

    Blank lines are skipped. Raises :class:`FeedLineError` at the first bad line (messages
    before it have already been yielded, so a caller can stop cleanly).
    """
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        yield number, parse_feed_line(text, number)


# ----------------------------------------------------------------------------- messages
def _validate(model: type[BaseModel], body: dict[str, Any], kind: str, line_number: int) -> Any:
    try:
        return model.model_validate(body)
    except ValidationError as e:
        errors = e.errors(include_url=False)
        errors.sort(key=lambda er: er["type"] != "extra_forbidden")  # an unknown key explains the rest
        field, message = _problem(model, kind, errors[0])
        raise FeedLineError(line_number, message, field) from None


def _problem(model: type[BaseModel], kind: str, err: dict[str, Any]) -> tuple[str | None, str]:
    """``(key, message)`` of one pydantic error, in the file's words; the limits are the model's."""
    loc = tuple(err["loc"])
    key = str(loc[0]) if loc else None
    kind_of_error = err["type"]
    ctx = err.get("ctx") or {}
    if kind_of_error == "extra_forbidden":
        return key, f"unknown key {key!r} in a {kind!r} message"
    if kind_of_error == "value_error":
        return key, f"{key!r}: {ctx['error']}" if key else str(ctx["error"])
    given = None if kind_of_error == "missing" else err.get("input")
    wants = _wants(_spec(model, key), kind_of_error, key) if len(loc) == 1 else None
    if wants is None:
        return key, f"{schemas.field_path(loc)!r}: {err['msg']}, got {given!r}"
    return key, f"{key!r} must be {wants}, got {given!r}"


@functools.lru_cache(maxsize=None)
def _properties(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema()["properties"]


def _spec(model: type[BaseModel], key: str | None) -> dict[str, Any]:
    """The JSON Schema of field ``key`` (``null`` left out of an optional one)."""
    spec = _properties(model).get(key or "", {})
    options = [s for s in spec.get("anyOf", ()) if s.get("type") != "null"]
    if len(options) == 1:
        spec = {**spec, **options[0]}
    return spec


def _wants(spec: dict[str, Any], error: str, key: str | None) -> str | None:
    """What a field takes, in words, from its JSON Schema (``None`` when it says nothing plain)."""
    types = {s.get("type") for s in spec.get("anyOf", ())} | {spec.get("type")}
    low, high = spec.get("minimum", spec.get("ge")), spec.get("maximum", spec.get("le"))
    if "enum" in spec:
        return f"one of {', '.join(map(str, spec['enum']))}"
    if "array" in types:
        low, high = spec.get("minItems", 0), spec.get("maxItems")
        items = "cards" if spec.get("items", {}).get("pattern") == schemas.CARD_PATTERN else "items"
        count = f"{low} or {high}" if high == low + 1 else f"{low}-{high}"
        return f"a list of {count} {items}"
    if "number" in types:
        return f"a number {low}-{high}"
    if "integer" in types:
        if error == "less_than_equal":
            return f"an integer <= {high}"
        return f"an integer >= {low}" if low is not None else "an integer"
    if "boolean" in types:
        return "true or false"
    if "string" in types:
        return _NOUNS.get(key or "", "text")
    if "$ref" in spec:
        return "an object"
    return None
