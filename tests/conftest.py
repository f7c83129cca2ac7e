"""Shared fixtures: the Flask app on a temporary data directory, its client, the feed token."""

from __future__ import annotations

import pytest

FEED_TOKEN = "test-token"


@pytest.fixture
def app(tmp_path):
    """A fresh service on an empty data directory under ``tmp_path``."""
    from web import create_app

    app = create_app({"TESTING": True, "ROADS_FEED_TOKEN": FEED_TOKEN, "ROADS_DATA_DIR": str(tmp_path / "data")})
    yield app


@pytest.fixture
def client(app):
    """Flask test client."""
    return app.test_client()


@pytest.fixture
def auth():
    """Headers that carry the feed token."""
    return {"Authorization": f"Bearer {FEED_TOKEN}"}
