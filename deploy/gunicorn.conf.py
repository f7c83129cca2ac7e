"""gunicorn settings of the documented production deployment (docs/deploy.md).

Run: ``gunicorn -c deploy/gunicorn.conf.py 'web:create_app()'`` behind nginx
(``deploy/nginx.conf``), which alone faces the clients: gunicorn listens on loopback only.
gunicorn's gthread worker reads a request on one of its threads, so a client that sends its
headers or body slowly holds that thread; nginx reads every request whole first, so slow
clients never reach gunicorn (tests/web/test_slowloris.py).

Command-line options override these (``-b``, ``--threads``, ``--access-logfile``...).
"""

bind = "127.0.0.1:8000"
"""Loopback only: nginx is the one front door."""

worker_class = "gthread"
workers = 1
"""One process on the embedded SQLite store (its live hub is in-process); with
ROADS_REDIS_URL, one per core (docs/deploy.md)."""

threads = 1050
"""One per open WebSocket screen for its whole life, plus HTTP requests in flight."""

worker_connections = 1150
"""At least ``threads``: gthread refuses connections beyond it."""

graceful_timeout = 10
keepalive = 75
"""Seconds an idle keep-alive connection from nginx stays open: longer than nginx keeps an idle
upstream connection (60 s), so nginx never sends a request on a connection gunicorn is closing."""

forwarded_allow_ips = "127.0.0.1"
"""Trust X-Forwarded-* from the local nginx only."""

accesslog = "-"
access_log_format = '%(h)s %(t)s "%(m)s %(U)s %(H)s" %(s)s %(B)s %(M)sms'
"""The request path without its query string (``%(U)s``; ``%(r)s`` and ``%(q)s`` would write
query strings, and a feed that puts its token in the URL must not have it logged)."""
