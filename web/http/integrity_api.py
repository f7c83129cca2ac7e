"""Integrity flags over HTTP (docs/api.md "Integrity flags"; :mod:`roads.integrity`).

Every feed write the service refuses as an exact impossibility (a card more often than the shoe
holds, a round the tableau does not allow, a card out of deal order) raises a flag at once: kept
by :class:`web.integrity.IntegrityFlags` (and its file, ``<ROADS_DATA_DIR>/integrity.jsonl``,
written before the 422 is answered), logged, listed by ``GET /api/integrity`` (newest first;
``?table=`` for one table), shown on the trends pages and in the day statistics, and marked on
the lobby tiles of the tables flagged in the current gaming day (the lobby entry's
``"integrity"``, :meth:`web.read_model.ReadModel.set_integrity`: the lobby is republished, so
screens show the marker without a reload).
"""

from __future__ import annotations

import json

from flask import Blueprint, Flask, Response, current_app, g, request

from roads.gaming_day import GamingDay
from roads.integrity import KINDS, flag
from roads.record import iso_time
from web import extensions
from web.integrity import FILENAME, IntegrityFlags
from web.push import topics
from web.read_model import ReadModel
from web.service import get_service
from web.snapshots import encode

bp = Blueprint("integrity", __name__, url_prefix="/api")


def init_app(app: Flask, read: ReadModel) -> IntegrityFlags:
    """Open the flags kept in the data directory, and mark the lobby with them now and after
    every new flag (the current gaming day of the service's clock, ``ROADS_VENUE_TZ`` and
    ``ROADS_GAMING_DAY_START``). Call after the service is made."""
    from web.settings import get_settings

    settings = get_settings(app)
    made = app.extensions[extensions.INTEGRITY] = IntegrityFlags(path=settings.data_dir / FILENAME)
    day = GamingDay.of(settings.venue_tz, settings.gaming_day_start)
    service = get_service(app)
    read.clock = lambda: service.clock()

    def mark() -> None:
        start, end = day.bounds(day.day_of(service.clock()))
        read.set_integrity(made.counts(start, end), dict(made.raised), end)
        if service.page_models is not None:  # the lobby screens' page models (their worker rebuilds them)
            service.page_models.changed(topics.LOBBY)

    made.listeners.append(mark)
    if made.raised:
        mark()
    return made


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
