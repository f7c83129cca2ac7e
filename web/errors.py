"""Placeholder (to be built)."""


def init_app(app):
    """Register with the app."""
