"""The scoreboard service: table feed, storage, JSON API, HTML and PNG scoreboards, WebSocket push.

Built by :func:`create_app` (the Flask application factory); nothing is created at import.
"""

from web.app import create_app

__all__ = ["create_app"]
