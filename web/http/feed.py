"""The table feed: authenticated JSON writes of rounds, shoes, voids and corrections.

Every view is thin: check the token, parse the body (:mod:`web.http.schemas`) into a write
of :mod:`roads.table`, give it to :meth:`web.service.Service.write`, map the outcome to a
status. Statuses: 201 for a write that changed the record, 200 for a repeat that changed
nothing (feeds retry; the body says ``"status": "unchanged"``), 415 for a body not sent as
``application/json``, 4xx with the error shape of
:mod:`web.http.errors` for anything refused (nothing is stored then; the rules' refusals are
:mod:`roads.errors` errors mapped there), 503 when the store cannot take writes.

Routes (all under ``/api``, all need ``Authorization: Bearer <ROADS_FEED_TOKEN>``):

- ``POST /tables/<table_id>/rounds``: one round, card-level or result-level
- ``POST /tables/<table_id>/shoes``: start a shoe explicitly (burn cards, cut-card position)
- ``POST /tables/<table_id>/shoes/<shoe>/rounds/<round>/void``: void a round with a reason
- ``PUT /tables/<table_id>/shoes/<shoe>/rounds/<round>``: correct a round
- ``POST /tables/<table_id>/shoes/<shoe>/rounds/<round>/cards``: cards of a round dealt card
  by card (:mod:`roads.dealing`)
- ``POST /tables/<table_id>/shoes/<shoe>/rounds/<round>/hold``: hold the round in progress for
  the supervisor (a card-reading shoe's result disagrees with its cards, docs/shoes.md)
- ``POST /tables/<table_id>/state``: the table's state, dealer, limits and shoe error
"""

from __future__ import annotations

import hmac
from typing import Any
from urllib.parse import unquote_plus

from flask import Blueprint, Response, g, request

from roads.table import CorrectRound, RecordRound, StartShoe, VoidRound
from web.http import schemas
from web.http.errors import ApiError, BadRequest, Unauthorized
from web.http.schemas_live import HoldIn, StateIn, parse_cards
from web.service import Ack, get_service
from web.settings import get_settings
from web.snapshots import encode

bp = Blueprint("feed", __name__, url_prefix="/api")


def _write(table_id: str, write: Any) -> Ack:
    """:meth:`web.service.Service.write` (which also rebuilds the table's watched page models
    in this request, once the write is durable and its lock released)."""
    return get_service().write(table_id, write)


@bp.before_request
def require_token() -> None:
    """Refuse (401) a write without ``Authorization: Bearer <token>`` or with a wrong token.

    Runs before the body is read; compares in constant time (``hmac.compare_digest``). With
    no ``ROADS_FEED_TOKEN`` configured every write is refused. A credential in the query
    string is refused first (400 ``token_in_query``, :func:`_refuse_token_in_query`).
    """
    expected = get_settings().feed_token or ""
    _refuse_token_in_query(expected)
    header = request.headers.get("Authorization", "")
    scheme, _, given = header.partition(" ")
    if not expected:
        raise Unauthorized("the feed is closed: no ROADS_FEED_TOKEN is configured", field="Authorization")
    if scheme.lower() != "bearer" or not given.strip():
        raise Unauthorized("missing 'Authorization: Bearer <token>' header", field="Authorization")
    if not hmac.compare_digest(given.strip().encode("utf-8"), str(expected).encode("utf-8")):
        raise Unauthorized("wrong feed token", field="Authorization")


TOKEN_QUERY_KEYS = frozenset({"token", "access_token", "auth", "authorization", "bearer", "key", "api_key",
                              "apikey", "feed_token", "password", "secret"})
"""Query option names that carry a credential; a feed write with one is refused."""


def _refuse_token_in_query(expected: str) -> None:
    """400 ``token_in_query`` for a write whose URL carries a credential (a
    :data:`TOKEN_QUERY_KEYS` option, or the feed token itself anywhere in the query string):
    URLs are written to logs and proxies' histories. The message never repeats the value."""
    for key in request.args:
        if key.lower() in TOKEN_QUERY_KEYS:
            raise BadRequest(f"credentials go in the 'Authorization: Bearer <token>' header, never in the URL "
                             f"(query option {key[:40]!r}; URLs are logged)", field=key[:40], code="token_in_query")
    if expected and expected in unquote_plus(request.query_string.decode("latin-1")):
        raise BadRequest("credentials go in the 'Authorization: Bearer <token>' header, never in the URL "
                         "(the query string holds the feed token; URLs are logged)", code="token_in_query")


def _body() -> dict:
    """The request's JSON object: 415 unless ``Content-Type: application/json`` (any
    parameters, e.g. ``; charset=utf-8``), 413 past ``MAX_CONTENT_LENGTH``, 400 for a body
    :func:`web.http.schemas.load_json` refuses."""
    if request.mimetype != "application/json":
        given = request.headers.get("Content-Type")
        raise ApiError(f"a feed body is JSON: send 'Content-Type: application/json', got {given!r}"[:200],
                       status=415, code="unsupported_media_type", field="Content-Type")
    # get_data raises RequestEntityTooLarge (413) past MAX_CONTENT_LENGTH.
    body = g.feed_body = schemas.load_json(request.get_data(cache=False))  # integrity flags read it (integrity_api)
    return body


def _reply(ack: Ack) -> Response:
    return Response(encode(ack.body), status=201 if ack.created else 200, mimetype="application/json")


@bp.post("/tables/<table_id>/rounds")
def post_round(table_id: str) -> Response:
    """Record one round: ``{"shoe", "round", "player", "banker"}`` or ``{"shoe", "round", "result"}``."""
    body = schemas.parse_round(_body())
    write = RecordRound(body.shoe, body.round, body.canonical())
    return _reply(_write(table_id, write))


@bp.post("/tables/<table_id>/shoes")
def post_shoe(table_id: str) -> Response:
    """Start a shoe: ``{"shoe", "burn"?, "cut_card_position"?, "variant"?}``."""
    body = schemas.validate(schemas.ShoeIn, _body())
    write = StartShoe(body.shoe, tuple(body.burn), body.cut_card_position, body.variant)
    return _reply(_write(table_id, write))


@bp.post("/tables/<table_id>/shoes/<int:shoe>/rounds/<int:round>/void")
def post_void(table_id: str, shoe: int, round: int) -> Response:  # noqa: A002 (the URL's word)
    """Void a round: ``{"reason": "..."}``; it stays in the record and counts nowhere."""
    body = schemas.validate(schemas.VoidIn, _body())
    return _reply(_write(table_id, VoidRound(shoe, round, body.reason)))


@bp.put("/tables/<table_id>/shoes/<int:shoe>/rounds/<int:round>")
def put_round(table_id: str, shoe: int, round: int) -> Response:  # noqa: A002
    """Correct a round: the round as it should be (either form), optional ``reason``; a
    ``shoe``/``round`` repeated in the body must match the path (400 ``path_mismatch``)."""
    body = schemas.parse_correction(_body())
    for name, given, path in (("shoe", body.shoe, shoe), ("round", body.round, round)):
        if given is not None and given != path:
            raise BadRequest(f"{name} {given} in the body differs from {name} {path} in the path",
                             field=name, code="path_mismatch")
    write = CorrectRound(shoe, round, body.canonical(), body.reason)
    return _reply(_write(table_id, write))


@bp.post("/tables/<table_id>/shoes/<int:shoe>/rounds/<int:round>/cards")
def post_cards(table_id: str, shoe: int, round: int) -> Response:  # noqa: A002
    """Cards of a round in deal order: ``{"position", "cards", "burn"?, "cut_card"?}``, or
    ``{"position", "sides"}`` for cards drawn face down; the card that completes the round
    records it as if posted whole."""
    _check_path(shoe, round)
    body = parse_cards(_body())
    return _reply(_write(table_id, body.write(shoe, round)))


def _check_path(shoe: int, round_no: int) -> None:
    """400 ``invalid_value`` for a shoe or round number in the path outside 1-MAX."""
    for name, value, high in (("shoe", shoe, schemas.MAX_SHOE), ("round", round_no, schemas.MAX_ROUND)):
        if not 1 <= value <= high:
            raise BadRequest(f"{name} {value} in the path is not a {name} number 1-{high}", field=name,
                             code="invalid_value")


@bp.post("/tables/<table_id>/shoes/<int:shoe>/rounds/<int:round>/hold")
def post_hold(table_id: str, shoe: int, round: int) -> Response:  # noqa: A002
    """Hold the round in progress for the supervisor: ``{"reason", "message", "shoe_result"?,
    "player"?, "banker"?}`` (resolved by PUT of the round or its void)."""
    _check_path(shoe, round)
    body = schemas.validate(HoldIn, _body())
    return _reply(_write(table_id, body.write(shoe, round)))


@bp.post("/tables/<table_id>/state")
def post_state(table_id: str) -> Response:
    """The table's state: ``{"state"?, "closes_at"? | "seconds_left"?, "dealer"?, "limits"?,
    "shoe_error"?}``."""
    body = schemas.validate(StateIn, _body())
    return _reply(_write(table_id, body.write()))
