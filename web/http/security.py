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

Setting: ``ROADS_EMBED_ORIGINS`` (``embed_origins`` of :class:`web.settings.Settings`, ``*`` by
default): the sites that may frame the embed, checked there.
"""

from __future__ import annotations

from flask import Flask, Response, request

from web.settings import get_settings

EMBED_PREFIX = "/embed/"
"""Paths that may be framed (by ``ROADS_EMBED_ORIGINS``); no other path may be."""

PAGE_POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
               "font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'")
"""The Content-Security-Policy of every response, before its ``frame-ancestors`` part.
``connect-src 'self'`` covers the pages' own ``ws:``/``wss:`` URL (CSP Level 3)."""

def headers_for(path: str, embed_origins: tuple[str, ...]) -> list[tuple[str, str]]:
    """The security headers of a response to ``path``, as ``(name, value)`` pairs."""
    if path.startswith(EMBED_PREFIX):
        frame = [("Content-Security-Policy", f"{PAGE_POLICY}; frame-ancestors {' '.join(embed_origins)}")]
    else:
        frame = [("Content-Security-Policy", f"{PAGE_POLICY}; frame-ancestors 'none'"), ("X-Frame-Options", "DENY")]
    return [*frame, ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer")]


def embed_origins(app: Flask) -> tuple[str, ...]:
    """The origins of ``app``'s ``ROADS_EMBED_ORIGINS``, as CSP source expressions."""
    return tuple(get_settings(app).embed_origins.split())


def init_app(app: Flask) -> None:
    """Add the headers of :func:`headers_for` to every response the app makes."""
    origins = embed_origins(app)

    @app.after_request
    def _security_headers(resp: Response) -> Response:
        for name, value in headers_for(request.path, origins):
            resp.headers[name] = value
        return resp
