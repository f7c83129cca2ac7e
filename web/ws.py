"""Placeholder: WebSocket endpoints (to be built)."""


def init_app(app):
    """Register WebSocket routes."""
