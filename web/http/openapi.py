"""The OpenAPI 3.1 document of the service (served at ``GET /api/openapi.json``).

Generated, not written: request bodies from the pydantic models that validate them
(:mod:`web.http.schemas`: card pattern, number ranges, exactly one of cards or result since
each form forbids the other's fields), JSON answers from the typed models of
:mod:`web.http.responses`, the snapshot from ``roads/schema/snapshot.schema.json``, and the
pages, PNGs and WebSockets with their query options from :mod:`web.http.openapi_pages`.
``tests/web/test_openapi.py`` checks that every route of the app is in the document with its
methods and path parameters (and nothing else is) and that real answers validate against it;
``tests/web/test_schemathesis.py`` calls the ``/api`` operations with what the document allows.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from pydantic.json_schema import models_json_schema

from roads.ids import TABLE_ID_PATTERN
from roads.variants import PRESETS
from web.http import openapi_pages, openapi_stats, responses, schemas, schemas_live
from web.read_model import SHOE_PAGE, SHOE_PAGE_MAX

SNAPSHOT_SCHEMA = Path(__file__).resolve().parents[2] / "roads" / "schema" / "snapshot.schema.json"
"""The road helper's JSON Schema of a snapshot, embedded as ``components.schemas.Snapshot``."""

REF = "#/components/schemas/"

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


ERROR_WORDS = {
    400: "malformed JSON, unknown or mistyped field, bad card string, wrong card count, a credential in the URL, a bad query option (`limit`, `before`)",
    401: "missing or wrong bearer token",
    403: "the table may not be created (ROADS_MAX_TABLES) or written (ROADS_ONLY_CONFIGURED_TABLES)",
    404: "unknown table, shoe or round",
    409: "conflicts with the record (round number taken by another round, gap, shoe going back, shoe ended)",
    413: "body larger than ROADS_MAX_BODY_BYTES",
    415: "the body is not sent as Content-Type: application/json",
    422: "against the game's rules (tableau, totals vs winner, too many copies of a card, burn count)",
    503: "the store cannot take writes now; nothing was recorded",
}
"""What each error status means, for the document's response descriptions."""


def _errors(*statuses: int) -> dict[str, Any]:
    return {str(s): _resp(ERROR_WORDS[s], "Error") for s in statuses}


_TABLE_ID = {"name": "table_id", "in": "path", "required": True,
             "schema": {"type": "string", "pattern": TABLE_ID_PATTERN}, "description": "table id (slug)"}
_SHOE_NO = {"name": "shoe", "in": "path", "required": True,
            "schema": {"type": "integer", "minimum": 1, "maximum": schemas.MAX_SHOE}, "description": "shoe number"}
_ROUND_NO = {"name": "round", "in": "path", "required": True,
             "schema": {"type": "integer", "minimum": 1, "maximum": schemas.MAX_ROUND},
             "description": "round number within the shoe (1-based)"}
_DEAL_SHOE_NO = {**_SHOE_NO, "schema": {"type": "integer", "minimum": 1, "maximum": schemas.MAX_SHOE}}
_DEAL_ROUND_NO = {**_ROUND_NO, "schema": {"type": "integer", "minimum": 1, "maximum": schemas.MAX_ROUND}}
"""A card is dealt only into a real shoe and round number (400 ``invalid_value`` otherwise)."""
_ETAG = {"name": "If-None-Match", "in": "header", "required": False, "schema": {"type": "string"},
         "description": "an ETag from an earlier answer: 304 when the snapshot has not changed"}
_BEFORE = {"name": "before", "in": "query", "required": False,
           "schema": {"type": "integer", "minimum": 1, "maximum": 999_999_999},
           "description": "list the shoes numbered below this one (the cursor a page's `next` carries); absent: the newest"}
_LIMIT = {"name": "limit", "in": "query", "required": False,
          "schema": {"type": "integer", "minimum": 1, "maximum": SHOE_PAGE_MAX, "default": SHOE_PAGE},
          "description": "most shoes on the page"}
_WRITE = [{"feedToken": []}]
_WRITE_ERRORS = (400, 401, 403, 409, 413, 415, 422, 503)


def _paths() -> dict[str, Any]:
    return {
        "/api/tables": {
            "get": {
                "operationId": "listTables", "tags": ["read"], "summary": "Every table (the lobby)",
                "responses": {"200": _resp("tables", "TableList")},
            }
        },
        "/api/good-roads": {
            "get": {
                "operationId": "floorGoodRoads", "tags": ["read"],
                "summary": "Every table with a good road now, its patterns by priority, counts per pattern",
                "description": "The same document as the live topic good-roads (/ws/good-roads, nchan channel "
                               "good-roads); docs/api.md \"Good roads across the floor\", docs/patterns.md.",
                "responses": {"200": _resp("the floor's good roads", "GoodRoads")},
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
                "operationId": "listShoes", "tags": ["read"], "summary": "The table's shoes, newest first, a page at a time",
                "description": "The live shoe first (`live` true), then past shoes by number, descending. A page holds "
                               "at most `limit` shoes; `next` is the URL of the next (older) page, `null` on the last. "
                               "Each line is the shoe's summary as stored when it closed or last changed (a void or "
                               "correction): the cost is the same at any history length.",
                "parameters": [_TABLE_ID, _BEFORE, _LIMIT],
                "responses": {"200": _resp("one page of shoes", "ShoeList"), **_errors(400, 404)},
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
                "responses": {"200": _resp("rounds", "RoundExport"), **_errors(404)},
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
                               "stored card; the card that completes the round records it as if posted whole. "
                               "A card-reading shoe's cards drawn face down come as `sides` (no `cards`): each "
                               "shows as a card back until its face comes at the same position.",
                "security": _WRITE, "parameters": [_TABLE_ID, _DEAL_SHOE_NO, _DEAL_ROUND_NO],
                "requestBody": _json_body(["CardsIn", "DrawnIn"], "the cards (faces), or the sides of cards "
                                          "drawn face down"),
                "responses": {"201": _resp("recorded (ack with in_progress, or with result once complete)", "Ack"),
                              "200": _resp("already stored: nothing changed", "Ack"), **_errors(*_WRITE_ERRORS, 404)},
            }
        },
        "/api/tables/{table_id}/shoes/{shoe}/rounds/{round}/hold": {
            "post": {
                "operationId": "holdRound", "tags": ["feed"], "summary": "Hold the round in progress for the supervisor",
                "description": "A card-reading shoe's result disagrees with its cards (docs/shoes.md): the round "
                               "leaves the round in progress, counts in no road, and every board shows it held "
                               "until a correction (PUT) records it or a void voids it. The same hold again is a "
                               "no-op; another hold of a held round is a 409 round_held.",
                "security": _WRITE, "parameters": [_TABLE_ID, _DEAL_SHOE_NO, _DEAL_ROUND_NO],
                "requestBody": _json_body("HoldIn", "why, and what the adapter read"),
                "responses": {"201": _resp("held", "Ack"), "200": _resp("already held like this: nothing changed", "Ack"),
                              **_errors(*_WRITE_ERRORS, 404)},
            }
        },
        "/api/tables/{table_id}/state": {
            "post": {
                "operationId": "postState", "tags": ["feed"], "summary": "The table's state, dealer, limits and shoe error",
                "security": _WRITE, "parameters": [_TABLE_ID],
                "requestBody": _json_body("StateIn", "what changed (fields left out stay as they are)"),
                "responses": {"201": _resp("recorded", "StateAck"), "200": _resp("nothing changed", "StateAck"),
                              **_errors(*_WRITE_ERRORS)},
            }
        },
        "/api/health": {
            "get": {
                "operationId": "health", "tags": ["read"], "summary": "The push path's health figures",
                "description": "degraded while a page model cannot be built: its screens show their last good "
                               "model, marked not updating (docs/api.md, Health)",
                "responses": {"200": _resp("the figures", "Health")},
            }
        },
        "/api/openapi.json": {
            "get": {
                "operationId": "openapi", "tags": ["read"], "summary": "This document",
                "responses": {"200": _resp("the OpenAPI document", schema={"type": "object"})},
            }
        },
    }


def _components() -> dict[str, Any]:
    """Every schema of the document: request models, answer models, the snapshot."""
    requests = [schemas.CardRoundIn, schemas.ResultRoundIn, schemas.CardCorrectionIn, schemas.ResultCorrectionIn,
                schemas.ShoeIn, schemas.VoidIn, schemas_live.CardsIn, schemas_live.DrawnIn, schemas_live.HoldIn,
                schemas_live.StateIn]
    answers = list(responses.MODELS.values())
    _, defs = models_json_schema([(m, "validation") for m in requests + answers], ref_template=REF + "{model}")
    components = dict(defs.get("$defs", {}))
    for name, model in responses.MODELS.items():  # the answers under their short names
        components[name] = components.pop(model.__name__)
    for name in list(components):
        if name.endswith("Out") and name not in responses.MODELS:
            components[name[:-3]] = components.pop(name)
    # A variant is one of the presets (an unknown one would be a 422 unknown_variant).
    variant = components["ShoeIn"]["properties"]["variant"]
    variant["anyOf"] = [{"enum": sorted(PRESETS)}, {"type": "null"}]
    components.update(_snapshot_schemas())
    components.update(openapi_stats.schemas())
    return _rename_refs(components)


def _rename_refs(node: Any) -> Any:
    """``#/components/schemas/TableSummaryOut`` -> ``...TableSummary`` (and the MODELS names)."""
    short = {m.__name__: n for n, m in responses.MODELS.items()}
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if k == "$ref" and isinstance(v, str) and v.startswith(REF):
                name = v[len(REF):]
                name = short.get(name, name[:-3] if name.endswith("Out") else name)
                v = REF + name
            out[k] = _rename_refs(v)
        return out
    if isinstance(node, list):
        return [_rename_refs(v) for v in node]
    return node


def document() -> dict[str, Any]:
    """The whole OpenAPI 3.1 document as a JSON-ready dict (a fresh copy on each call)."""
    return copy.deepcopy({
        "openapi": "3.1.0",
        "info": {
            "title": "Baccarat roads: table feed, road-map API, pages, PNG boards and live push",
            "version": "1",
            "description": "Feed writes need `Authorization: Bearer <ROADS_FEED_TOKEN>`; reads are public. "
                           "Every error has the shape of the Error schema (a browser asking for HTML outside "
                           "/api/ gets an error page with the same status). See docs/api.md and docs/frontend.md.",
        },
        "tags": [{"name": "feed", "description": "authenticated writes from a table"},
                 {"name": "read", "description": "public, read-only JSON"},
                 *openapi_pages.TAGS],
        "paths": {**_paths(), **openapi_stats.paths(), **openapi_pages.paths()},
        "components": {
            "schemas": _components(),
            "securitySchemes": {"feedToken": {"type": "http", "scheme": "bearer",
                                              "description": "the ROADS_FEED_TOKEN setting"}},
        },
    })
