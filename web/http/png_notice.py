"""The PNG routes' errors as images, for image-only screens (docs/signage.md).

A signage player's image widget shows what it gets; an error body in JSON is a broken image, a
dark screen. So a PNG route that cannot draw its board (an unknown table, shoe, road or screen, a
bad option, a store that does not answer yet) answers, to a client that asks for images
(``Accept`` names an ``image/`` type, as every browser's ``<img>`` and Chromium-based player does),
a clear image of the same status: the sentence of the error page (``error.*``, or "Waiting for the
service" for a 503) in the screen's language, its address in small print, the brand's beads; the
error's code is in the ``X-Roads-Error`` header. Other clients (``Accept: application/json``,
``*/*``, none) keep the one JSON error shape (:mod:`web.http.errors`).

The image has the asked size when that size is valid (else the route's default), the asked theme
(else dark), ``lang`` or Accept-Language. ``Cache-Control``: ``no-cache`` and ``Retry-After: 5`` for
a 5xx (ask again soon), ``max-age=10`` for a 4xx (a table may be added to the feed).
"""

from __future__ import annotations

from flask import Response, request
from werkzeug.exceptions import HTTPException

from roads import errors as domain
from web import i18n
from web.http import errors
from web.render import layout
from web.render.notice import notice_png
from web.render.theme import THEMES
from web.stores import StoreUnavailable

DEFAULT_SIZES: dict[str, tuple[int, int]] = {"png.road_png": (1200, 300)}
"""Routes whose default image size is not 1920x1080."""


def wants_image() -> bool:
    """Whether the client names an image type in ``Accept`` (with a quality above 0)."""
    return any(mime.startswith("image/") and quality > 0 for mime, quality in request.accept_mimetypes)


def as_api_error(e: Exception) -> errors.ApiError:
    """The :class:`web.http.errors.ApiError` the app would answer ``e`` with."""
    if isinstance(e, errors.ApiError):
        return e
    if isinstance(e, domain.TableError):
        return errors.from_domain_error(e)
    if isinstance(e, StoreUnavailable):
        return errors.Unavailable(str(e))
    if isinstance(e, HTTPException):
        return errors.from_http_exception(e)
    raise e


def _size() -> tuple[int, int]:
    try:
        return layout.check_size(int(request.args["width"]), int(request.args["height"]))
    except (KeyError, ValueError, layout.LayoutError):
        return DEFAULT_SIZES.get(request.endpoint or "", (1920, 1080))


def notice_lines(err: errors.ApiError, lang: str) -> list[tuple[str, str, str]]:
    """``[(words, role, language)]`` of the image of ``err`` (roles of :mod:`web.render.notice`)."""
    t = lambda key, **kw: i18n.translate(key, lang, **kw)  # noqa: E731
    view = request.view_args or {}
    if err.status >= 500:
        lines = [(t("waiting.title"), "title")]
    elif err.code == "unknown_table":
        lines = [(t("error.unknown_table", table=view.get("table_id", "")), "title")]
    elif err.code == "unknown_shoe":
        lines = [(t("error.unknown_shoe", table=view.get("table_id", ""), shoe=view.get("shoe", "")), "title")]
    elif err.status == 400:
        lines = [(t("error.title_400"), "title")]
        if err.field:
            lines.append((t("error.bad_parameter", field=err.field, value=request.args.get(err.field, "")[:40]), "text"))
    elif err.status == 404:
        lines = [(t("error.title_404"), "title"), (t("error.not_found"), "text")]
    else:
        lines = [(t("error.title_other"), "title")]
    where = request.full_path.rstrip("?")
    lines.append((f"{err.status} · {where[:80]}", "muted"))
    return [(words, role, lang) for words, role in lines]


def error_image(e: Exception) -> Response:
    """The answer to an error raised by a PNG route: an image for image clients, else the JSON
    (or HTML) error of :func:`web.http.errors.error_response`."""
    err = as_api_error(e)
    if not wants_image():
        return errors.error_response(err)
    lang = i18n.pick_language(request)
    theme = request.args.get("theme") if request.args.get("theme") in THEMES else "dark"
    width, height = _size()
    data = notice_png(notice_lines(err, lang), width=width, height=height, theme=theme)
    headers = {"X-Roads-Error": err.code, "Vary": "Accept, Accept-Language",
               "Cache-Control": "no-cache" if err.status >= 500 else "public, max-age=10"}
    if err.status >= 500:
        headers["Retry-After"] = "5"
    elif err.status == 429:
        headers["Retry-After"] = "1"
    return Response(data, status=err.status, mimetype="image/png", headers=headers)


HANDLED: tuple[type[Exception], ...] = (errors.ApiError, domain.TableError, StoreUnavailable)
"""The errors the PNG routes answer with :func:`error_image` (registered by :mod:`web.http.png`)."""
