"""Helpers shared by the tests (not tests themselves): the test app and feed, loopback servers, Redis.

``feed`` (test app, token, legal rounds, feed client), ``serving`` (servers and subprocesses on
127.0.0.1), ``websocket`` (a raw, slow-reading WebSocket client), ``redis`` (shared and private
Redis, and a proxy that loses replies or cuts the network on purpose), ``variants`` (a
hand-set stand-in variant), ``html`` (reading pages back and checking them against a strict
Content-Security-Policy).
Imported as ``support.<module>``: pytest puts ``tests/`` on ``sys.path`` (``pythonpath`` in
pyproject.toml); the fixtures built on them are in ``tests/conftest.py``.
"""
