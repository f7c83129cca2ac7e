"""The test service and its feed: the one test token, an app on a data directory
(:func:`make_app`), legal rounds dealt by the tableau (:func:`dealt_rounds`) and a feed client
that posts with the token (:class:`Feed`)."""

from __future__ import annotations

import random
from typing import Any

FEED_TOKEN = "test-token"
"""The feed token every test app and test server is configured with."""

AUTH = {"Authorization": f"Bearer {FEED_TOKEN}"}
"""Request headers that carry :data:`FEED_TOKEN`."""


def make_app(data_dir, **overrides: Any):
    """A service on ``data_dir`` with the test token (``overrides`` win; a ``None`` value is passed
    as is, e.g. ``ROADS_FEED_TOKEN=None``); close it with :func:`close_app`."""
    from web import create_app

    config = {"TESTING": True, "ROADS_FEED_TOKEN": FEED_TOKEN, "ROADS_DATA_DIR": str(data_dir)}
    config.update(overrides)
    return create_app(config)


def close_app(app) -> None:
    """Close the service of ``app`` (its store and threads), if it has one."""
    service = app.extensions.get("roads.service")
    if service is not None and hasattr(service, "close"):
        service.close()


def dealt_rounds(count: int, seed: int = 0, decks: int = 8) -> list[tuple[list[str], list[str]]]:
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


class Feed:
    """Posts to the feed of a test client with the token; every method returns the response."""

    def __init__(self, client, table: str = "T1") -> None:
        self.client = client
        self.table = table
        self.headers = dict(AUTH)

    def round(self, shoe, number, player=None, banker=None, *, result=None, table=None, **extra):
        """``POST /api/tables/<table>/rounds``: cards, or ``result=`` for a result-level round."""
        body = {"shoe": shoe, "round": number, **extra}
        if result is not None:
            body["result"] = result
        else:
            body["player"], body["banker"] = player, banker
        return self.client.post(f"/api/tables/{table or self.table}/rounds", json=body, headers=self.headers)

    def shoe(self, shoe, *, table=None, **extra):
        """``POST /api/tables/<table>/shoes``."""
        return self.client.post(f"/api/tables/{table or self.table}/shoes", json={"shoe": shoe, **extra},
                                headers=self.headers)

    def void(self, shoe, number, reason, *, table=None):
        """``POST /api/tables/<table>/shoes/<shoe>/rounds/<number>/void``."""
        return self.client.post(f"/api/tables/{table or self.table}/shoes/{shoe}/rounds/{number}/void",
                                json={"reason": reason}, headers=self.headers)

    def correct(self, shoe, number, body, *, table=None):
        """``PUT /api/tables/<table>/shoes/<shoe>/rounds/<number>``."""
        return self.client.put(f"/api/tables/{table or self.table}/shoes/{shoe}/rounds/{number}",
                               json=body, headers=self.headers)


def record_lobby(client) -> dict:
    """``GET /api/tables`` as the record shows it: an impossible write's integrity flag marks the
    lobby by design (docs/api.md "Integrity flags": the entry's ``"integrity"``, the lobby version
    one up per flag of a listed table), so the marks are taken out; the flags are tested apart."""
    lobby = client.get("/api/tables").json
    shown = {t["id"] for t in lobby["tables"]}
    lobby["version"] -= sum(1 for f in client.get("/api/integrity").json["flags"] if f["table"] in shown)
    lobby["tables"] = [{k: v for k, v in t.items() if k != "integrity"} for t in lobby["tables"]]
    return lobby
