"""Helpers shared by the tests (not tests themselves): the test app and feed, loopback servers, Redis.

``feed`` (test app, token, legal rounds, feed client), ``serving`` (servers and subprocesses on
127.0.0.1), ``redis`` (shared and private Redis), ``variants`` (a hand-set stand-in variant).
Imported as ``support.<module>``: pytest puts ``tests/`` on ``sys.path`` (``pythonpath`` in
pyproject.toml); the fixtures built on them are in ``tests/conftest.py``.
"""
