"""Path numbers with a bound: ``<int:shoe>`` and ``<int:round>`` take 1-10 ASCII digits, with
an optional minus sign.

Werkzeug's own ``int`` converter matches ``\\d+``: any number of digits, Unicode digits
included (``/shoes/١٢`` is shoe 12), so a path could carry a number far beyond what any
store holds (SQLite's integers are 64-bit). :func:`init_app` replaces it for the whole app;
a longer or non-ASCII number does not match the route and answers 404 ``not_found`` in the
one error shape. Ten digits hold every shoe number the feed accepts
(:data:`web.http.schemas.MAX_SHOE` = 10**9). A negative number (or zero) matches, so
``/shoes/-1`` is the 404 ``unknown_shoe`` (``field``: ``shoe``) of a shoe that does not
exist, like ``/shoes/0`` and ``/shoes/99``, never an unnamed ``not_found``.
"""

from __future__ import annotations

from flask import Flask
from werkzeug.routing import IntegerConverter

MAX_DIGITS = 10
"""Most digits of a number in a URL path."""


class BoundedInt(IntegerConverter):
    """``int`` path segments of 1 to :data:`MAX_DIGITS` ASCII digits (0-9 only), maybe after a
    ``-`` (the lookups answer that no such shoe or round exists)."""

    regex = r"-?[0-9]{1,%d}" % MAX_DIGITS


def init_app(app: Flask) -> None:
    """Make :class:`BoundedInt` the app's ``int`` converter (before any route is added), and
    leave doubled slashes alone: ``/tables/T1/roads//0.png`` (a road named ``%2F0``) is a 404 in
    the one error shape, not Werkzeug's 308 redirect to a different resource."""
    app.url_map.converters["int"] = BoundedInt
    app.url_map.merge_slashes = False
