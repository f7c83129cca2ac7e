"""One error shape for every endpoint, and the exceptions that map to it.

Every error response body is::

    {"error": {"status": 409, "code": "round_conflict", "message": "...", "field": "round"}}

``status`` repeats the HTTP status, ``code`` is a stable machine-readable id, ``message`` says
what was wrong in words (quoting the bad input), ``field`` names the offending request field
as a path (``"player[2]"``, ``"result.winner"``) or is ``null``. Some errors add keys (a 409
for a taken round number adds ``"stored"``: the round stored under that number).

Views raise :class:`ApiError` subclasses for what is wrong with a request; the rules of the
game and of a table's record raise :mod:`roads.errors` errors, which :data:`DOMAIN_STATUS`
(the one table of them) maps to a status (:func:`from_domain_error`). :func:`init_app` turns
both, and every Werkzeug HTTP error (404 for an unknown URL, 405, 413 for an oversize body,
...), into that shape. A browser asking for HTML outside ``/api/`` gets a small HTML page
with the same text.
"""

from __future__ import annotations

import html
import json
from typing import Any

from flask import Flask, Response, current_app, request
from werkzeug.exceptions import HTTPException

from roads import errors as domain
from web.stores.base import StoreUnavailable
from web.settings import get_settings


class ApiError(Exception):
    """An error with an HTTP status, a stable ``code`` and the request ``field`` it is about.

    ``extra`` holds additional JSON-ready keys for the error object (e.g. ``stored``).
    """

    status: int = 400
    code: str = "bad_request"

    def __init__(
        self,
        message: str,
        *,
        field: str | None = None,
        code: str | None = None,
        status: int | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status
        self.extra = extra or {}

    def to_json(self) -> dict[str, Any]:
        """The response body: ``{"error": {status, code, message, field, **extra}}``."""
        body = {"status": self.status, "code": self.code, "message": self.message, "field": self.field}
        body.update(self.extra)
        return {"error": body}


class BadRequest(ApiError):
    """400: the request is malformed (bad JSON, unknown or mistyped fields, bad card strings)."""

    status = 400
    code = "bad_request"


class Unauthorized(ApiError):
    """401: a feed write without the right bearer token."""

    status = 401
    code = "unauthorized"


class NotFound(ApiError):
    """404: unknown table, shoe or round."""

    status = 404
    code = "not_found"


class Conflict(ApiError):
    """409: the request contradicts the stored record (a taken round number, a gap, a shoe going back)."""

    status = 409
    code = "conflict"


class Unprocessable(ApiError):
    """422: well-formed, but against the rules of the game (tableau, totals, card copies, burn)."""

    status = 422
    code = "unprocessable"


class Unavailable(ApiError):
    """503: the store cannot take writes right now; nothing was recorded."""

    status = 503
    code = "store_unavailable"


DOMAIN_STATUS: dict[type[domain.TableError], int] = {
    # the write contradicts the stored record
    domain.RoundConflict: 409,
    domain.RoundGap: 409,
    domain.ShoeEnded: 409,
    domain.ShoeBackwards: 409,
    domain.ShoeConflict: 409,
    domain.AlreadyVoided: 409,
    domain.RoundVoided: 409,
    domain.RoundInProgress: 409,
    domain.RoundHeld: 409,
    domain.CardConflict: 409,
    domain.CardGap: 409,
    # well formed, but against the rules of the game
    domain.TableauViolation: 422,
    domain.ResultContradiction: 422,
    domain.TooManyCopies: 422,
    domain.BurnCount: 422,
    domain.CutCardPosition: 422,
    domain.UnknownVariant: 422,
    domain.DealOrder: 422,
    domain.BadTableState: 422,
    domain.UnknownBet: 422,
    # names what the record does not have
    domain.UnknownTable: 404,
    domain.UnknownShoe: 404,
    domain.UnknownRound: 404,
    # not a card, not a table id at all
    domain.BadCardText: 400,
    domain.BadTableId: 400,
    # a deployment's bound on its tables
    domain.TableNotAllowed: 403,
    domain.TooManyTables: 403,
}
"""The HTTP status of every :mod:`roads.errors` class (a test checks that none is missing).
The answer's ``code``, ``message``, ``field`` and extra keys are the error's own."""


_BY_STATUS: dict[int, type[ApiError]] = {400: BadRequest, 404: NotFound, 409: Conflict, 422: Unprocessable}



def from_domain_error(e: domain.TableError) -> ApiError:
    """The :class:`ApiError` of a :mod:`roads.errors` error: status from :data:`DOMAIN_STATUS`
    (the nearest mapped class of ``e``; 422 for an unmapped one) and the :class:`ApiError`
    subclass of that status, with the error's code, field and extra keys. A
    :class:`roads.errors.RoundConflict` also says where to send a correction."""
    status = next((DOMAIN_STATUS[c] for c in type(e).__mro__ if c in DOMAIN_STATUS), 422)
    message = e.message
    if isinstance(e, domain.RoundConflict):
        message += f" To correct the stored round, PUT it to /api/tables/{e.table}/shoes/{e.shoe}/rounds/{e.round}"
    return _BY_STATUS.get(status, ApiError)(message, field=e.field, code=e.code, status=status, extra=dict(e.extra))


def error_response(err: ApiError) -> Response:
    """Render ``err`` as JSON (or a small HTML page for a browser outside ``/api/``)."""
    body = err.to_json()
    if _wants_html():
        resp = Response(_html_page(err).encode("utf-8", "replace"), status=err.status, mimetype="text/html")
    else:
        # "replace": a message quoting an unpaired surrogate still encodes (never a 500).
        text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))  # compact, as success bodies
        resp = Response(text.encode("utf-8", "replace"), status=err.status, mimetype="application/json")
    if err.status == 401:
        resp.headers["WWW-Authenticate"] = 'Bearer realm="roads feed"'
    if err.status == 429:
        resp.headers["Retry-After"] = "1"
    return resp


def _html_page(err: ApiError) -> str:
    """The themed, translated page of :mod:`web.http.error_pages`; a bare page if that fails
    (an error while showing an error must not become a 500)."""
    try:
        from web.http.error_pages import render_error_page

        return render_error_page(err)
    except Exception:  # noqa: BLE001 - last resort, the status and message still reach the browser
        current_app.logger.exception("error page for %s %s failed", err.status, err.code)
        return (
            "<!doctype html><meta charset=utf-8><title>{s} {c}</title>"
            "<h1>{s} {c}</h1><p>{m}</p><p><a href=\"/lobby\">Lobby</a></p>"
        ).format(s=err.status, c=html.escape(err.code), m=html.escape(err.message))


def _wants_html() -> bool:
    if request.path.startswith("/api/"):
        return False
    accept = request.accept_mimetypes
    return accept.best_match(["application/json", "text/html"]) == "text/html" and accept["text/html"] > accept["application/json"]


_HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "body_too_large",
    415: "unsupported_media_type",
    429: "too_many_requests",
    500: "internal_error",
    503: "unavailable",
}


def from_http_exception(e: HTTPException) -> ApiError:
    """The :class:`ApiError` equivalent of a Werkzeug HTTP error (same status)."""
    status = e.code or 500
    message = e.description or e.name
    if status == 413:
        limit = get_settings().max_body_bytes
        message = f"request body larger than the limit of {limit} bytes (ROADS_MAX_BODY_BYTES)"
    if status == 405 and getattr(e, "valid_methods", None):
        message = f"method {request.method} not allowed here; allowed: {', '.join(sorted(e.valid_methods))}"
    return ApiError(message, status=status, code=_HTTP_CODES.get(status, "http_error"))


def init_app(app: Flask) -> None:
    """Register the handlers that give every error the shape described in this module."""

    @app.errorhandler(ApiError)
    def _api_error(e: ApiError) -> Response:
        return error_response(e)

    @app.errorhandler(domain.TableError)
    def _domain_error(e: domain.TableError) -> Response:
        return error_response(from_domain_error(e))

    @app.errorhandler(StoreUnavailable)
    def _store_unavailable(e: StoreUnavailable) -> Response:
        # Where the store is (Redis host, port, db) and the driver's words go to the log only.
        current_app.logger.warning("%s %s: 503 %s (%s)", request.method, request.path, e, e.detail or "no detail")
        return error_response(Unavailable(str(e)))

    @app.errorhandler(HTTPException)
    def _http_error(e: HTTPException) -> Response | HTTPException:
        if e.code is None or e.code < 400:  # redirects and the like pass through
            return e
        resp = error_response(from_http_exception(e))
        if e.code == 405 and getattr(e, "valid_methods", None):
            resp.headers["Allow"] = ", ".join(sorted(e.valid_methods))
        return resp
