"""The OpenAPI 3.1 document of the JSON API (served at ``GET /api/openapi.json``).

Request bodies come from the pydantic models of :mod:`web.http.schemas` (so the document and the
validation cannot drift), the snapshot from ``roads/schema/snapshot.schema.json`` when it is
present, the rest is written here. ``tests/web/test_openapi.py`` checks that every ``/api``
route of the app is documented with its methods and parameters, and nothing else is.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from pydantic.json_schema import models_json_schema

from roads.ids import TABLE_ID_PATTERN
from web.http import schemas, schemas_live

SNAPSHOT_SCHEMA = Path(__file__).resolve().parents[2] / "roads" / "schema" / "snapshot.schema.json"
"""The road helper's JSON Schema of a snapshot, embedded as ``components.schemas.Snapshot``."""

REF = "#/components/schemas/"

_ERROR = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["status", "code", "message", "field"],
            "properties": {
                "status": {"type": "integer", "description": "the HTTP status again"},
                "code": {"type": "string", "description": "stable id, e.g. round_conflict, tableau, unknown_field"},
                "message": {"type": "string", "description": "what was wrong, quoting the input"},
                "field": {"type": ["string", "null"], "description": "path of the offending field, e.g. player[2], result.winner"},
                "stored": {"description": "409 only: the stored round or shoe the request conflicts with"},
            },
        }
    },
}

_VOID = {
    "type": ["object", "null"],
    "properties": {"reason": {"type": "string"}, "at": {"type": "string", "format": "date-time"}},
}

_ACK = {
    "type": "object",
    "required": ["status", "table", "version", "shoe"],
    "properties": {
        "status": {"enum": ["recorded", "unchanged"], "description": "recorded (201) or a repeat that changed nothing (200)"},
        "table": {"type": "string"},
        "version": {"type": "integer", "description": "the table's version after the write"},
        "shoe": {"type": "integer"},
        "round": {"type": "integer"},
        "result": {"type": "object", "description": "the stored round's outcome (roads.outcome.RoundResult.to_json)"},
        "void": _VOID,
        "in_progress": {"type": "object", "description": "cards: the round in progress (the snapshot's in_progress key)"},
    },
}

_STATE_ACK = {
    "type": "object",
    "required": ["status", "table", "version", "state"],
    "properties": {
        "status": {"enum": ["recorded", "unchanged"]},
        "table": {"type": "string"},
        "version": {"type": "integer"},
        "state": {"type": "object", "description": "the table's state now (the snapshot's state key)"},
    },
}

_VARIANT = {"type": "object", "required": ["id", "name"], "properties": {"id": {"type": "string"}, "name": {"type": "string"}}}

_TABLE = {
    "type": "object",
    "required": ["id", "name", "variant", "shoe", "round", "last", "good_roads", "side_bets", "version", "big_road"],
    "properties": {
        "id": {"type": "string"},
        "name": {"type": "string"},
        "variant": {"$ref": REF + "Variant"},
        "shoe": {"type": "integer", "description": "current shoe number (1, with round 0, before the first shoe)"},
        "round": {"type": "integer"},
        "last": {"type": ["object", "null"], "description": "the last counted round's result"},
        "good_roads": {"type": "array"},
        "side_bets": {"type": "array"},
        "version": {"type": "integer"},
        "big_road": {"type": ["object", "null"]},
    },
}

_SHOE = {
    "type": "object",
    "required": ["shoe", "live", "variant", "decks", "rounds", "counted", "voided", "started_at", "ended_at"],
    "properties": {
        "shoe": {"type": "integer"},
        "live": {"type": "boolean", "description": "the table's current shoe"},
        "variant": {"$ref": REF + "Variant"},
        "decks": {"type": "integer"},
        "rounds": {"type": "integer", "description": "rounds recorded, voided ones included"},
        "counted": {"type": "integer", "description": "rounds that count in the roads"},
        "voided": {"type": "integer"},
        "started_at": {"type": "string", "format": "date-time"},
        "ended_at": {"type": ["string", "null"], "format": "date-time", "description": "time of the last round; null while live"},
        "last_round_at": {"type": ["string", "null"], "format": "date-time"},
        "burn": {"type": "array", "items": {"type": "string"}},
        "cut_card_position": {"type": ["integer", "null"], "description": "cards from the back of the shoe"},
        "cut_card_round": {"type": ["integer", "null"], "description": "the round flagged cut_card (the shoe's last)"},
        "version": {"type": "integer", "description": "table version of the shoe's last change"},
    },
}

_ROUND = {
    "type": "object",
    "required": ["round", "at", "feed", "result", "void", "corrections"],
    "properties": {
        "round": {"type": "integer"},
        "at": {"type": "string", "format": "date-time"},
        "feed": {"type": "object", "description": "the feed body that records this round (as it stands after corrections)"},
        "result": {"type": "object"},
        "void": _VOID,
        "corrections": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "at": {"type": "string", "format": "date-time"},
                    "reason": {"type": ["string", "null"]},
                    "previous": {"type": "object", "description": "the round before this correction"},
                },
            },
        },
    },
}


def _snapshot_schemas() -> dict[str, Any]:
    """``Snapshot`` (and its ``$defs`` hoisted as ``Snapshot_<name>``) from the roads schema file."""
    generic = {"Snapshot": {"type": "object", "description": "the road-map snapshot (roads.snapshot.build_snapshot) plus name and live",
                            "required": ["table", "shoe", "round", "version"]}}
    try:
        schema = json.loads(SNAPSHOT_SCHEMA.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return generic
    defs = schema.pop("$defs", {}) or schema.pop("definitions", {})
    for key in ("$schema", "$id"):
        schema.pop(key, None)

    def fix(node: Any) -> Any:
        if isinstance(node, dict):
            out = {}
            for k, v in node.items():
                if k == "$ref" and isinstance(v, str):
                    for prefix in ("#/$defs/", "#/definitions/"):
                        if v.startswith(prefix):
                            v = REF + "Snapshot_" + v[len(prefix):]
                    if v == "#":
                        v = REF + "Snapshot"
                out[k] = fix(v)
            return out
        if isinstance(node, list):
            return [fix(v) for v in node]
        return node

    out = {"Snapshot": fix(schema)}
    for name, d in defs.items():
        out["Snapshot_" + name] = fix(d)
    return out


def _json_body(ref: str | list[str], description: str) -> dict[str, Any]:
    schema = {"$ref": REF + ref} if isinstance(ref, str) else {"oneOf": [{"$ref": REF + r} for r in ref]}
    return {"required": True, "description": description, "content": {"application/json": {"schema": schema}}}


def _resp(description: str, ref: str | None = None, *, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"description": description}
    if ref or schema:
        out["content"] = {"application/json": {"schema": schema or {"$ref": REF + ref}}}
    return out


def _errors(*statuses: int) -> dict[str, Any]:
    words = {
        400: "malformed JSON, unknown or mistyped field, bad card string, wrong card count",
        401: "missing or wrong bearer token",
        404: "unknown table, shoe or round",
        409: "conflicts with the record (round number taken by another round, gap, shoe going back, shoe ended)",
        413: "body larger than ROADS_MAX_BODY_BYTES",
        415: "the body is not sent as Content-Type: application/json",
        422: "against the game's rules (tableau, totals vs winner, too many copies of a card, burn count)",
        503: "the store cannot take writes now; nothing was recorded",
    }
    return {str(s): _resp(words[s], "Error") for s in statuses}


_TABLE_ID = {"name": "table_id", "in": "path", "required": True,
             "schema": {"type": "string", "pattern": TABLE_ID_PATTERN}, "description": "table id (slug)"}
_SHOE_NO = {"name": "shoe", "in": "path", "required": True, "schema": {"type": "integer", "minimum": 0}, "description": "shoe number"}
_ROUND_NO = {"name": "round", "in": "path", "required": True, "schema": {"type": "integer", "minimum": 0},
             "description": "round number within the shoe (1-based)"}
_DEAL_SHOE_NO = {**_SHOE_NO, "schema": {"type": "integer", "minimum": 1, "maximum": schemas.MAX_SHOE}}
_DEAL_ROUND_NO = {**_ROUND_NO, "schema": {"type": "integer", "minimum": 1, "maximum": schemas.MAX_ROUND}}
"""A card is dealt only into a real shoe and round number (400 ``invalid_value`` otherwise)."""
_ETAG = {"name": "If-None-Match", "in": "header", "required": False, "schema": {"type": "string"},
         "description": "an ETag from an earlier answer: 304 when the snapshot has not changed"}
_WRITE = [{"feedToken": []}]
_WRITE_ERRORS = (400, 401, 409, 413, 415, 422, 503)


def _paths() -> dict[str, Any]:
    return {
        "/api/tables": {
            "get": {
                "operationId": "listTables", "tags": ["read"], "summary": "Every table (the lobby)",
                "responses": {"200": _resp("tables", schema={
                    "type": "object", "required": ["version", "tables"],
                    "properties": {"version": {"type": "integer", "description": "lobby version (sum of table versions)"},
                                   "tables": {"type": "array", "items": {"$ref": REF + "TableSummary"}}}})},
            }
        },
        "/api/tables/{table_id}": {
            "get": {
                "operationId": "getTable", "tags": ["read"], "summary": "Snapshot of the table's current shoe",
                "parameters": [_TABLE_ID, _ETAG],
                "responses": {"200": _resp("snapshot (ETag header set)", "Snapshot"), "304": _resp("not modified"),
                              **_errors(404)},
            }
        },
        "/api/tables/{table_id}/rounds": {
            "post": {
                "operationId": "postRound", "tags": ["feed"], "summary": "Record one round (card-level or result-level)",
                "description": "A round with a higher shoe number than the current shoe starts that shoe (as round 1). "
                               "The same round again is a no-op (200, status unchanged); another round under a taken "
                               "number is a 409 naming the stored round.",
                "security": _WRITE, "parameters": [_TABLE_ID],
                "requestBody": _json_body(["CardRoundIn", "ResultRoundIn"], "the round"),
                "responses": {"201": _resp("recorded", "Ack"), "200": _resp("already recorded: nothing changed", "Ack"),
                              **_errors(*_WRITE_ERRORS)},
            }
        },
        "/api/tables/{table_id}/shoes": {
            "get": {
                "operationId": "listShoes", "tags": ["read"], "summary": "Every shoe of the table, oldest first",
                "parameters": [_TABLE_ID],
                "responses": {"200": _resp("shoes", schema={
                    "type": "object", "required": ["table", "name", "shoes"],
                    "properties": {"table": {"type": "string"}, "name": {"type": "string"},
                                   "shoes": {"type": "array", "items": {"$ref": REF + "ShoeSummary"}}}}),
                    **_errors(404)},
            },
            "post": {
                "operationId": "postShoe", "tags": ["feed"], "summary": "Start a shoe (burn cards, cut-card position)",
                "security": _WRITE, "parameters": [_TABLE_ID],
                "requestBody": _json_body("ShoeIn", "the new shoe"),
                "responses": {"201": _resp("started", "Ack"), "200": _resp("already started like this: nothing changed", "Ack"),
                              **_errors(*_WRITE_ERRORS)},
            },
        },
        "/api/tables/{table_id}/shoes/{shoe}": {
            "get": {
                "operationId": "getShoe", "tags": ["read"], "summary": "Snapshot of any shoe (live or past)",
                "parameters": [_TABLE_ID, _SHOE_NO, _ETAG],
                "responses": {"200": _resp("snapshot (ETag header set)", "Snapshot"), "304": _resp("not modified"),
                              **_errors(404)},
            }
        },
        "/api/tables/{table_id}/shoes/{shoe}/rounds": {
            "get": {
                "operationId": "exportRounds", "tags": ["read"], "summary": "Raw rounds of a shoe for export",
                "parameters": [_TABLE_ID, _SHOE_NO],
                "responses": {"200": _resp("rounds", schema={
                    "type": "object", "required": ["table", "shoe", "rounds"],
                    "properties": {"table": {"type": "string"}, "shoe": {"$ref": REF + "ShoeSummary"},
                                   "rounds": {"type": "array", "items": {"$ref": REF + "RoundRecord"}}}}),
                    **_errors(404)},
            }
        },
        "/api/tables/{table_id}/shoes/{shoe}/rounds/{round}": {
            "put": {
                "operationId": "correctRound", "tags": ["feed"], "summary": "Correct a recorded round",
                "security": _WRITE, "parameters": [_TABLE_ID, _SHOE_NO, _ROUND_NO],
                "requestBody": _json_body(["CardCorrectionIn", "ResultCorrectionIn"], "the round as it should be"),
                "responses": {"201": _resp("corrected", "Ack"), "200": _resp("already like this: nothing changed", "Ack"),
                              **_errors(*_WRITE_ERRORS, 404)},
            }
        },
        "/api/tables/{table_id}/shoes/{shoe}/rounds/{round}/void": {
            "post": {
                "operationId": "voidRound", "tags": ["feed"], "summary": "Void a round (kept in the record, counted nowhere)",
                "security": _WRITE, "parameters": [_TABLE_ID, _SHOE_NO, _ROUND_NO],
                "requestBody": _json_body("VoidIn", "why"),
                "responses": {"201": _resp("voided", "Ack"), "200": _resp("already voided for this reason", "Ack"),
                              **_errors(*_WRITE_ERRORS, 404)},
            }
        },
        "/api/tables/{table_id}/shoes/{shoe}/rounds/{round}/cards": {
            "post": {
                "operationId": "postCards", "tags": ["feed"], "summary": "Cards of a round dealt card by card",
                "description": "Cards in deal order from a 1-based position (P, B, P, B, then third cards as the "
                               "tableau deals them). Card k again is a no-op; another card at k is a 409 naming the "
                               "stored card; the card that completes the round records it as if posted whole.",
                "security": _WRITE, "parameters": [_TABLE_ID, _DEAL_SHOE_NO, _DEAL_ROUND_NO],
                "requestBody": _json_body("CardsIn", "the cards"),
                "responses": {"201": _resp("recorded (ack with in_progress, or with result once complete)", "Ack"),
                              "200": _resp("already stored: nothing changed", "Ack"), **_errors(*_WRITE_ERRORS, 404)},
            }
        },
        "/api/tables/{table_id}/state": {
            "post": {
                "operationId": "postState", "tags": ["feed"], "summary": "The table's state, dealer and limits",
                "security": _WRITE, "parameters": [_TABLE_ID],
                "requestBody": _json_body("StateIn", "what changed (fields left out stay as they are)"),
                "responses": {"201": _resp("recorded", "StateAck"), "200": _resp("nothing changed", "StateAck"),
                              **_errors(*_WRITE_ERRORS)},
            }
        },
        "/api/openapi.json": {
            "get": {
                "operationId": "openapi", "tags": ["read"], "summary": "This document",
                "responses": {"200": _resp("the OpenAPI document", schema={"type": "object"})},
            }
        },
    }


def document() -> dict[str, Any]:
    """The whole OpenAPI 3.1 document as a JSON-ready dict (a fresh copy on each call)."""
    models = [schemas.CardRoundIn, schemas.ResultRoundIn, schemas.CardCorrectionIn, schemas.ResultCorrectionIn,
              schemas.ShoeIn, schemas.VoidIn, schemas_live.CardsIn, schemas_live.StateIn]
    _, defs = models_json_schema([(m, "validation") for m in models], ref_template=REF + "{model}")
    components = dict(defs.get("$defs", {}))
    components.update({"Error": _ERROR, "Ack": _ACK, "Variant": _VARIANT, "TableSummary": _TABLE,
                       "ShoeSummary": _SHOE, "RoundRecord": _ROUND, "StateAck": _STATE_ACK})
    components.update(_snapshot_schemas())
    return copy.deepcopy({
        "openapi": "3.1.0",
        "info": {
            "title": "Baccarat roads: table feed and road-map API",
            "version": "1",
            "description": "Feed writes need `Authorization: Bearer <ROADS_FEED_TOKEN>`; reads are public. "
                           "Every error has the shape of the Error schema. See docs/api.md.",
        },
        "tags": [{"name": "feed", "description": "authenticated writes from a table"},
                 {"name": "read", "description": "public, read-only"}],
        "paths": _paths(),
        "components": {
            "schemas": components,
            "securitySchemes": {"feedToken": {"type": "http", "scheme": "bearer",
                                              "description": "the ROADS_FEED_TOKEN setting"}},
        },
    })
