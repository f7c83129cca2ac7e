"""Shared fixtures: the Flask app on a temporary data directory, its client, the feed token,
a feed client, an app factory for tests that need their own settings, the ``roads`` command
runner, and legal rounds for feeding the service. The helpers behind them live in
``tests/support/`` (imported as ``support.*``)."""

from __future__ import annotations

import pytest

from support import openapi_check
from support.feed import AUTH, Feed, close_app, dealt_rounds, make_app

openapi_check.install()  # every JSON answer of the test client is checked against /api/openapi.json


@pytest.fixture
def app(tmp_path):
    """A fresh service on an empty data directory under ``tmp_path``."""
    app = make_app(tmp_path / "data")
    yield app
    close_app(app)


@pytest.fixture
def client(app):
    """Flask test client."""
    return app.test_client()


@pytest.fixture
def app_factory(tmp_path):
    """``app_factory(name="data", **settings)``: another service on ``tmp_path / name`` with the
    test token and ``settings``; every app made is closed after the test."""
    made = []

    def factory(name: str = "data", **settings):
        made.append(make_app(tmp_path / name, **settings))
        return made[-1]

    yield factory
    for app in made:
        close_app(app)


@pytest.fixture
def runner():
    """Invoke the ``roads`` command line in-process: ``runner.invoke(main, [...])`` (click)."""
    from click.testing import CliRunner

    return CliRunner()


@pytest.fixture
def auth():
    """Headers that carry the feed token."""
    return dict(AUTH)


@pytest.fixture
def deal():
    """:func:`support.feed.dealt_rounds` as a fixture: ``deal(count, seed=0)``."""
    return dealt_rounds


@pytest.fixture
def feed(client):
    """A :class:`support.feed.Feed` on the test client, table ``T1``."""
    return Feed(client)


@pytest.fixture(scope="session")
def postgres_cluster():
    """A throwaway PostgreSQL cluster for the whole run (:class:`support.postgres.Cluster`);
    skips without PostgreSQL unless ``ROADS_TEST_REQUIRE_POSTGRES=1``."""
    from support.postgres import cluster_or_skip

    cluster = cluster_or_skip()
    yield cluster
    cluster.stop()


@pytest.fixture
def history_url(postgres_cluster):
    """A fresh empty database of :func:`postgres_cluster` for one test: its ``postgresql://`` URL."""
    url = postgres_cluster.new_database()
    yield url
    postgres_cluster.drop_database(url)
