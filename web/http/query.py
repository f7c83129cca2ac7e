"""Query options shared by the HTML pages and the PNG routes, refused in one way.

A bad value is a :class:`web.http.errors.BadRequest` (400) with code ``bad_parameter`` and
``field`` = the name of the query option, whichever route it came to: ``/tables/T1?theme=x``
and ``/tables/T1/board.png?theme=x`` answer alike. An integer option that is absent or
empty (``?cols=``) takes its default.
"""

from __future__ import annotations

import re
from typing import Sequence

from flask import request

from web.http.errors import BadRequest

BAD_PARAMETER = "bad_parameter"
"""The error ``code`` of a bad query option."""

MAX_DIGITS = 9
"""Most digits of an integer query option (sizes and counts are at most 4 digits)."""

_INTEGER = re.compile(r"[+-]?[0-9]{1,%d}" % MAX_DIGITS)


PAGE_OPTIONS: frozenset[str] = frozenset({
    "lang", "theme", "bead", "good", "cols", "roads", "w", "h", "tables", "per_page", "rotate_s", "page", "state",
    "sort", "orient", "ask", "shoe", "motion", "good_road"})
"""Query options the pages know (docs/frontend.md); the only ones a page carries over into the
URLs it builds (:func:`page_query`)."""


def page_query(*, drop: Sequence[str] = ()) -> dict[str, str]:
    """The request's query options to carry into a URL built with ``url_for``: only
    :data:`PAGE_OPTIONS`, none named like a path value of the route (``table_id``, ``shoe``,
    ``name``) and none of ``drop``. Anything else (``_external``, ``_method``, ``endpoint``, a
    cache-buster) never reaches ``url_for``, where it would be a 500 or an absolute URL to the
    ``Host`` the client sent."""
    path_values = request.view_args or {}
    return {k: v for k, v in request.args.items() if k in PAGE_OPTIONS and k not in path_values and k not in drop}


def int_arg(name: str, default: int | None) -> int | None:
    """Query option ``name`` as a base-10 integer, or ``default`` when absent or empty.

    Accepts an optional sign and 1 to :data:`MAX_DIGITS` ASCII digits, nothing else (no
    ``1_000``, no Unicode digits, no spaces). Raises :class:`BadRequest` (``bad_parameter``,
    field ``name``) otherwise; ranges are the caller's to check.
    """
    raw = request.args.get(name)
    if raw is None or raw == "":
        return default
    if not _INTEGER.fullmatch(raw):
        raise BadRequest(f"{name} must be an integer of at most {MAX_DIGITS} digits, got {quoted(raw)}",
                         field=name, code=BAD_PARAMETER)
    return int(raw, 10)


def quoted(value: str, limit: int = 40) -> str:
    """``repr(value)``, cut to about ``limit`` characters (``'xxxx...'``) for error messages."""
    if len(value) <= limit:
        return repr(value)
    return repr(value[:limit]) + f"... ({len(value)} characters)"


def choice_arg(name: str, choices: Sequence[str], default: str, *, blank_is_default: bool = False) -> str:
    """Query option ``name``, one of ``choices``, or ``default`` when absent (or, with
    ``blank_is_default``, empty: the pages take ``?theme=`` as no choice; the PNG routes refuse it).

    Raises :class:`BadRequest` (``bad_parameter``, field ``name``) for any other value.
    """
    value = request.args.get(name)
    if value is None or (blank_is_default and value == ""):
        return default
    if value not in choices:
        raise BadRequest(f"unknown {name} {quoted(value)}; expected one of {', '.join(choices)}", field=name,
                         code=BAD_PARAMETER)
    return value


def bad_parameter(err: ValueError, field: str | None = None) -> BadRequest:
    """The 400 for a :class:`web.render.layout.LayoutError` or :class:`web.render.board.RenderError` (both
    carry the offending option in ``field``); ``field`` overrides it where the query option
    has another name than the layout's parameter."""
    return BadRequest(str(err), field=field or getattr(err, "field", None), code=BAD_PARAMETER)


def shoe_page_args() -> tuple[int | None, int]:
    """``(before, limit)`` of a shoe-list page (``?before=<shoe>&limit=<n>``): ``before`` a shoe
    number >= 1 or ``None`` (the newest page), ``limit`` 1 to
    :data:`web.read_model.SHOE_PAGE_MAX` (default :data:`web.read_model.SHOE_PAGE`). Raises
    :class:`BadRequest` (``bad_parameter``, field ``before`` / ``limit``) otherwise."""
    from web.read_model import SHOE_PAGE, SHOE_PAGE_MAX

    before = int_arg("before", None)
    if before is not None and before < 1:
        raise BadRequest(f"before must be a shoe number of at least 1, got {before}", field="before", code=BAD_PARAMETER)
    limit = int_arg("limit", SHOE_PAGE)
    assert limit is not None
    if not 1 <= limit <= SHOE_PAGE_MAX:
        raise BadRequest(f"limit must be 1 to {SHOE_PAGE_MAX}, got {limit}", field="limit", code=BAD_PARAMETER)
    return before, limit
