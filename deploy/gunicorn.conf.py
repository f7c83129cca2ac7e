"""gunicorn settings of the documented production deployment (docs/deploy.md).

Run: ``gunicorn -c deploy/gunicorn.conf.py 'web:create_app()'`` behind nginx
(``deploy/nginx.conf``), which alone faces the clients: gunicorn listens on loopback only.
The gevent worker runs every request and every open WebSocket screen as a greenlet of one OS
thread: no thread per screen, no thread hand-off per request (the gthread worker cost 8.4 ms
of CPU per round at 200 tables x 10 screens, gevent 5.0 ms: bench/bench_push.py
``--worker``). A client that sends its headers or body slowly holds only its greenlet; nginx
reads every request whole first anyway, so slow clients never reach gunicorn
(tests/web/test_slowloris.py).

Command-line options override these (``-b``, ``-k``, ``--access-logfile``...).
"""

bind = "127.0.0.1:8000"
"""Loopback only: nginx is the one front door."""

worker_class = "gevent"
"""gunicorn monkey-patches the standard library (threads, locks, sockets, sleeps) before it
loads the app, so the service's own threads (fan-out, live models, nchan publisher) are
greenlets too. ``-k gthread`` still works (then set ``threads`` above the screens)."""

workers = 1
"""One process on the embedded SQLite store (its live hub is in-process); with
ROADS_REDIS_URL, one per core (docs/deploy.md)."""

worker_connections = 10000
"""Open connections (screens plus requests in flight) the worker holds at once."""

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

control_socket_disable = True
"""No control socket (gunicorn 27 opens one at ``~/.gunicorn/gunicorn.ctl`` by default, outside
the deployment's folders); the documented controls are signals (TERM stops, HUP reloads).
Older gunicorn ignores the name."""


def post_worker_init(worker):  # noqa: ANN001, ANN201 (gunicorn's hook)
    """Once the app is loaded in the worker: shorter, rarer garbage-collector pauses of the
    event loop (:mod:`web.gc_tuning`: p99 feed-to-screen 6-10 ms instead of 131-164 ms at 200
    tables x 10 screens)."""
    from web.gc_tuning import tune_for_serving

    tune_for_serving()
