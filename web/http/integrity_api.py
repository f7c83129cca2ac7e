"""Integrity flags over HTTP (docs/api.md "Integrity flags"; :mod:`roads.integrity`).

Every feed write the service refuses as an exact impossibility (a card more often than the shoe
holds, a round the tableau does not allow, a card out of deal order) raises a flag at once: kept
by :class:`web.integrity.IntegrityFlags`, logged, listed by ``GET /api/integrity`` (newest first;
``?table=`` for one table) and shown on the trends pages and in the day statistics.
"""

from __future__ import annotations

import json

from flask import Blueprint, Flask, Response, current_app, g, request

from roads.integrity import KINDS, flag
from roads.record import iso_time
from web import extensions
from web.integrity import IntegrityFlags
from web.service import get_service
from web.snapshots import encode

bp = Blueprint("integrity", __name__, url_prefix="/api")


def flags(app: Flask | None = None) -> IntegrityFlags:
    """The app's :class:`web.integrity.IntegrityFlags`."""
    app = app or current_app
    made = app.extensions.get(extensions.INTEGRITY)
    if made is None:
        made = app.extensions[extensions.INTEGRITY] = IntegrityFlags()
    return made


def _number(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@bp.after_app_request
def _record(resp: Response) -> Response:
    """A 422 of a feed write whose code is an impossibility becomes a flag."""
    if resp.status_code != 422 or request.method not in ("POST", "PUT") or resp.mimetype != "application/json":
        return resp
    table = (request.view_args or {}).get("table_id")
    if not isinstance(table, str):
        return resp
    try:
        error = json.loads(resp.get_data())["error"]
    except (ValueError, KeyError, TypeError):
        return resp
    if error.get("code") not in KINDS:
        return resp
    body = g.get("feed_body")  # the feed's parsed body (web.http.feed._body)
    body = body if isinstance(body, dict) else {}
    args = request.view_args or {}
    f = flag(table, error["code"], str(error.get("message", "")), get_service().clock(),
             shoe=_number(args.get("shoe", body.get("shoe"))), round_no=_number(args.get("round", body.get("round"))),
             field=error.get("field"))
    if f is not None:
        flags().add(f)
    return resp


def day_flags(table: str | None, start: float, end: float) -> list[dict]:
    """The flags of ``table`` (``None``: every table) raised in ``[start, end)``, times ISO 8601."""
    return [{**f, "at": iso_time(f["at"])} for f in flags().list(table=table, start=start, end=end)]


@bp.get("/integrity")
def integrity() -> Response:
    """``{"flags": [{"table", "shoe", "round", "code", "what", "field", "message", "at"}]}``,
    newest first (``at`` ISO 8601 UTC); ``?table=`` for one table."""
    table = request.args.get("table") or None
    out = [{**f, "at": iso_time(f["at"])} for f in flags().list(table=table)]
    resp = Response(encode({"flags": out}), mimetype="application/json")
    resp.headers["Cache-Control"] = "no-cache"
    return resp
