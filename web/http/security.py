"""Browser security headers on every response, and the frame policy of the embed.

Every response (pages, embed, JSON, PNG, static files, errors, and the WebSocket handshake,
which :mod:`web.http.ws` writes itself) carries:

- ``Content-Security-Policy``: :data:`PAGE_POLICY` (scripts, styles, fonts and images from
  this origin only; WebSocket and fetch to this origin; no plugins, no ``<base>``), ending
  in ``frame-ancestors``;
- ``X-Content-Type-Options: nosniff``;
- ``Referrer-Policy: no-referrer`` (page URLs carry table ids and options; nothing needs them
  elsewhere);
- the frame policy: ``/embed/<table>`` may be framed by the origins of
  ``ROADS_EMBED_ORIGINS`` (``frame-ancestors`` with that list; no ``X-Frame-Options``, which
  cannot name several origins); every other path ``frame-ancestors 'none'`` and
  ``X-Frame-Options: DENY``.

The pages have no inline script or style (their JSON data blocks, ``<script
type="application/json">``, are not executed and need no CSP source), so the policy needs no
nonce or hash; a change that adds inline code must move it to ``static/``.

Setting (``app.config``, else the environment, else the default):

``ROADS_EMBED_ORIGINS`` (space- or comma-separated origins, default ``*``)
    The sites that may put ``/embed/<table>`` in an ``<iframe>``: ``*`` (any site),
    ``'self'``, or origins such as ``https://lobby.example.com`` or ``https://*.example.com``
    (scheme, host with an optional leading ``*.``, optional port). Raises
    :class:`web.settings.ConfigError` naming the setting for anything else.
"""

from __future__ import annotations

import os
import re
from typing import Any

from flask import Flask, Response, request

EMBED_PREFIX = "/embed/"
"""Paths that may be framed (by ``ROADS_EMBED_ORIGINS``); no other path may be."""

PAGE_POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
               "font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'")
"""The Content-Security-Policy of every response, before its ``frame-ancestors`` part.
``connect-src 'self'`` covers the pages' own ``ws:``/``wss:`` URL (CSP Level 3)."""

_ORIGIN_RE = re.compile(r"^https?://(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*"
                        r"(:[0-9]{1,5})?$")

DEFAULT_EMBED_ORIGINS = "*"
"""Default ``ROADS_EMBED_ORIGINS``: any site may frame the embed."""


def parse_origins(value: Any) -> tuple[str, ...]:
    """``ROADS_EMBED_ORIGINS`` as a tuple of CSP source expressions.

    ``value`` is text (space- or comma-separated) or a list of strings. Raises
    :class:`web.settings.ConfigError` for an empty list or an entry that is not ``*``,
    ``'self'`` or an ``http(s)://host[:port]`` origin (host optionally ``*.``-prefixed).
    """
    from web.settings import ConfigError

    items = value if isinstance(value, (list, tuple)) else re.split(r"[\s,]+", str(value or "").strip())
    items = [str(i).strip() for i in items if str(i).strip()]
    if not items:
        raise ConfigError(f"ROADS_EMBED_ORIGINS must list at least one origin or '*', got {value!r}")
    for item in items:
        if item not in ("*", "'self'") and not _ORIGIN_RE.match(item):
            raise ConfigError(f"ROADS_EMBED_ORIGINS: {item!r} is not '*', 'self' or an origin such as "
                              "https://lobby.example.com")
    return tuple(items)


def headers_for(path: str, embed_origins: tuple[str, ...]) -> list[tuple[str, str]]:
    """The security headers of a response to ``path``, as ``(name, value)`` pairs."""
    if path.startswith(EMBED_PREFIX):
        frame = [("Content-Security-Policy", f"{PAGE_POLICY}; frame-ancestors {' '.join(embed_origins)}")]
    else:
        frame = [("Content-Security-Policy", f"{PAGE_POLICY}; frame-ancestors 'none'"), ("X-Frame-Options", "DENY")]
    return [*frame, ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer")]


def embed_origins(app: Flask) -> tuple[str, ...]:
    """The parsed ``ROADS_EMBED_ORIGINS`` of ``app`` (see :func:`init_app`)."""
    return app.extensions["roads.embed_origins"]


def init_app(app: Flask) -> None:
    """Read ``ROADS_EMBED_ORIGINS`` (raising :class:`web.settings.ConfigError` for a bad one)
    and add the headers of :func:`headers_for` to every response the app makes."""
    raw = app.config.get("ROADS_EMBED_ORIGINS", os.environ.get("ROADS_EMBED_ORIGINS", DEFAULT_EMBED_ORIGINS))
    app.config["ROADS_EMBED_ORIGINS"] = raw
    origins = app.extensions["roads.embed_origins"] = parse_origins(raw)

    @app.after_request
    def _security_headers(resp: Response) -> Response:
        for name, value in headers_for(request.path, origins):
            resp.headers[name] = value
        return resp
