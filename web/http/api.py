"""The public read-only JSON API, and its OpenAPI document.

- ``GET /api/tables``: every table (lobby data) with the lobby version
- ``GET /api/good-roads``: every table with a good road now, by priority, with counts per pattern
- ``GET /api/tables/<id>``: the current shoe's snapshot (shape: ``roads/schema/snapshot.schema.json``)
- ``GET /api/tables/<id>/shoes``: the shoes with round counts and start/end times, newest first, a page at a time
- ``GET /api/tables/<id>/shoes/<shoe>``: the snapshot of any shoe
- ``GET /api/tables/<id>/shoes/<shoe>/rounds``: the raw rounds of a shoe for export
- ``GET /api/openapi.json``: the OpenAPI 3.1 document of the whole API
- ``GET /api/health``: the push path's health figures (page models that cannot be built, nchan posts)

Snapshots carry ``ETag: "<table>-v<version>"`` and answer ``If-None-Match`` with 304, so
polling clients cost one header comparison. Bodies are the snapshot JSON encoded once per
version by the service.
"""

from __future__ import annotations

import hashlib

from flask import Blueprint, Response, current_app, request, stream_with_context, url_for

from roads.ids import is_table_id
from web import extensions
from web.extensions import get_push
from web.http.openapi import document
from web.http.query import shoe_page_args
from web.service import get_service
from web.snapshots import encode

bp = Blueprint("api", __name__, url_prefix="/api")


def _json(obj: object) -> Response:
    return Response(encode(obj), mimetype="application/json")


def snapshot_etag(table_id: str, version: int) -> str:
    """``"<table>-v<version>"``; a table id that is not a slug (stored by a release before
    ids were matched whole, e.g. ``"a\\n"``) is replaced by a digest of it, so the header stays valid."""
    if not is_table_id(table_id):
        table_id = "x" + hashlib.blake2b(table_id.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()
    return f"{table_id}-v{version}"


def _snapshot_response(table_id: str, version: int, payload: bytes) -> Response:
    return _versioned_json(snapshot_etag(table_id, version), payload)


def _versioned_json(etag: str, payload: bytes) -> Response:
    """``payload`` (JSON bytes) with ``etag``, ``Cache-Control: no-cache``; 304 when the request
    already holds it (``If-None-Match``)."""
    if request.if_none_match.contains(etag):
        resp = Response(status=304)
    else:
        resp = Response(payload, mimetype="application/json")
    resp.set_etag(etag)
    resp.headers["Cache-Control"] = "no-cache"
    return resp


@bp.get("/tables")
def tables() -> Response:
    """``{"version": lobby version, "tables": [...]}`` (each: id, name, variant, shoe, round,
    last, good_roads, side_bets, version, big_road)."""
    version, payload = get_service().read.lobby_json()
    body = b'{"version":%d,"tables":%s}' % (version, payload)
    resp = Response(body, mimetype="application/json")
    resp.headers["Cache-Control"] = "no-cache"
    return resp


@bp.get("/good-roads")
def good_roads() -> Response:
    """The floor's good roads (:mod:`web.push.floor_good_roads`; ETag ``"good-roads-v<version>"``)."""
    version, payload = get_service().read.good_roads_json()
    return _versioned_json(f"good-roads-v{version}", payload)


@bp.get("/tables/<table_id>")
def table(table_id: str) -> Response:
    """The snapshot of the table's current shoe; 404 for an unknown table."""
    version, payload = get_service().read.snapshot_json(table_id)
    return _snapshot_response(table_id, version, payload)


@bp.get("/tables/<table_id>/shoes")
def shoes(table_id: str) -> Response:
    """``{"table", "name", "shoes": [...], "next"}``: one page of the table's shoes, newest first
    (``?limit=`` 1-500, default 50; ``?before=<shoe>``: shoes numbered below it), each line as the
    store keeps it; ``next`` is the URL of the next (older) page or ``null``. 404 for an unknown
    table, 400 (``bad_parameter``) for a bad ``limit`` or ``before``."""
    before, limit = shoe_page_args()
    service = get_service()
    info = service.read.table(table_id)
    lines, after = service.read.shoes_page(table_id, before=before, limit=limit)
    nxt = b"null" if after is None else encode(url_for("api.shoes", table_id=table_id, before=after, limit=limit))
    body = (b'{"table":' + encode(info["id"]) + b',"name":' + encode(info["name"]) + b',"shoes":['
            + b",".join(lines) + b'],"next":' + nxt + b"}")
    return Response(body, mimetype="application/json")


@bp.get("/tables/<table_id>/shoes/<int:shoe>")
def shoe(table_id: str, shoe: int) -> Response:
    """The snapshot of shoe ``shoe`` (live or past); 404 for an unknown table or shoe."""
    version, payload = get_service().read.snapshot_json(table_id, shoe)
    return _snapshot_response(table_id, version, payload)


@bp.get("/tables/<table_id>/shoes/<int:shoe>/rounds")
def rounds(table_id: str, shoe: int) -> Response:
    """``{"table", "shoe": {...summary}, "rounds": [...]}``: every recorded round of the shoe,
    voided ones included, each with the feed body that would record it again; streamed a round
    at a time from the shoe's document (a past shoe) or record (the live one). 404 for an
    unknown table or shoe (answered before the first byte)."""
    pieces = get_service().read.export(table_id, shoe)
    return Response(stream_with_context(pieces), mimetype="application/json")


@bp.get("/openapi.json")
def openapi() -> Response:
    """The OpenAPI 3.1 document of the API (built once per app from the routes' descriptions)."""
    cached = current_app.extensions.get(extensions.OPENAPI)
    if cached is None:
        cached = current_app.extensions[extensions.OPENAPI] = encode(document())
    return Response(cached, mimetype="application/json")


@bp.get("/health")
def health() -> Response:
    """``{"status": "ok" | "degraded", "page_models": {"topics", "builds", "failed_builds",
    "failing": [{"topic", "shows", "since", "failed_builds"}]}, "nchan": {"posts", "failures",
    "skipped"} | null}`` (:meth:`web.push.wing.PushWing.health`); ``degraded`` while a page's model
    cannot be built and its screens show their last good one, marked not updating. Always 200:
    the service itself answers."""
    resp = _json(get_push().health())
    resp.headers["Cache-Control"] = "no-store"
    return resp
