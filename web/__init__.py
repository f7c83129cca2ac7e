"""The scoreboard service: table feed, storage, JSON API, HTML and PNG scoreboards, WebSocket push.

Built by :func:`create_app` (the Flask application factory); nothing is created at import.
``create_app`` is looked up when first asked for (``from web import create_app``,
``gunicorn 'web:create_app()'``), so importing a Flask-free part such as ``web.render`` does not
import Flask.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from web.app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from web.app import create_app

        return create_app
    raise AttributeError(f"module 'web' has no attribute {name!r}")
