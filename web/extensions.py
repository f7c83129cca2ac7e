"""The ``app.extensions`` keys of the service, one scheme (``"roads.<what>"``), one constant each,
and the accessor of the push wing (which, being Flask-free, has none of its own)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from flask import Flask, current_app

if TYPE_CHECKING:
    from web.push.wing import PushWing

SETTINGS = "roads.settings"
"""The validated :class:`web.settings.Settings`."""

SERVICE = "roads.service"
"""The :class:`web.service.Service` (writes, and the read model ``service.read``)."""

PUSH = "roads.push"
"""The :class:`web.push.wing.PushWing` (hub, frames, fan-out, page models, nchan publishers)."""

PNG_CACHE = "roads.png_cache"
"""The :class:`web.http.png.PngCache`."""

PNG_FRESHNESS = "roads.png_freshness"
"""The PNG routes' :class:`web.http.png_freshness.Freshness` (each image's ``Last-Modified``)."""

RENDER_GATE = "roads.render_gate"
"""The :class:`web.http.render_gate.RenderGate` (PNG painting off the event loop, bounded)."""

DAY_STATS = "roads.day_stats"
"""The :class:`web.day_stats.DayStats` (gaming-day figures; made on first use)."""

ROUND_EXPORT = "roads.round_export"
"""The :class:`web.round_export.RoundExport` (CSV and JSON Lines exports; made on first use)."""

INTEGRITY = "roads.integrity"
"""The :class:`web.integrity.IntegrityFlags` (feed writes refused as impossibilities)."""

OPENAPI = "roads.openapi"
"""The encoded OpenAPI document (built on first request)."""


def get_push(app: Flask | None = None) -> PushWing:
    """The :class:`web.push.wing.PushWing` of ``app`` (default: the current app)."""
    return (app or current_app).extensions[PUSH]
