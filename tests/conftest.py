"""Shared fixtures: the Flask app on a temporary data directory, its client, the feed token,
and helpers that deal legal rounds for feeding the service."""

from __future__ import annotations

import random

import pytest

FEED_TOKEN = "test-token"


def make_app(data_dir, **overrides):
    """A service on ``data_dir`` with the test token (``overrides`` win); close it with
    ``app.extensions["roads.service"].close()``."""
    from web import create_app

    config = {"TESTING": True, "ROADS_FEED_TOKEN": FEED_TOKEN, "ROADS_DATA_DIR": str(data_dir)}
    config.update(overrides)
    return create_app(config)


@pytest.fixture
def app(tmp_path):
    """A fresh service on an empty data directory under ``tmp_path``."""
    app = make_app(tmp_path / "data")
    yield app
    service = app.extensions.get("roads.service")
    if service is not None and hasattr(service, "close"):
        service.close()


@pytest.fixture
def client(app):
    """Flask test client."""
    return app.test_client()


@pytest.fixture
def auth():
    """Headers that carry the feed token."""
    return {"Authorization": f"Bearer {FEED_TOKEN}"}


def dealt_rounds(count, seed=0, decks=8):
    """``count`` legal card-level rounds ``(player, banker)`` (card strings), dealt by the
    tableau from one shuffled ``decks``-deck shoe seeded by ``seed`` (no burn)."""
    from roads.cards import full_deck
    from roads.tableau import deal_round

    cards = full_deck() * decks
    random.Random(seed).shuffle(cards)
    it = iter(cards)
    out = []
    for _ in range(count):
        player, banker = deal_round(lambda: next(it))
        out.append(([str(c) for c in player], [str(c) for c in banker]))
    return out


@pytest.fixture
def deal():
    """:func:`dealt_rounds` as a fixture: ``deal(count, seed=0)``."""
    return dealt_rounds


class Feed:
    """Posts to the feed of a test client with the token; every method returns the response."""

    def __init__(self, client, table="T1"):
        self.client = client
        self.table = table
        self.headers = {"Authorization": f"Bearer {FEED_TOKEN}"}

    def round(self, shoe, number, player=None, banker=None, *, result=None, table=None, **extra):
        body = {"shoe": shoe, "round": number, **extra}
        if result is not None:
            body["result"] = result
        else:
            body["player"], body["banker"] = player, banker
        return self.client.post(f"/api/tables/{table or self.table}/rounds", json=body, headers=self.headers)

    def shoe(self, shoe, *, table=None, **extra):
        return self.client.post(f"/api/tables/{table or self.table}/shoes", json={"shoe": shoe, **extra},
                                headers=self.headers)

    def void(self, shoe, number, reason, *, table=None):
        return self.client.post(f"/api/tables/{table or self.table}/shoes/{shoe}/rounds/{number}/void",
                                json={"reason": reason}, headers=self.headers)

    def correct(self, shoe, number, body, *, table=None):
        return self.client.put(f"/api/tables/{table or self.table}/shoes/{shoe}/rounds/{number}",
                               json=body, headers=self.headers)


@pytest.fixture
def feed(client):
    """A :class:`Feed` on the test client, table ``T1``."""
    return Feed(client)
