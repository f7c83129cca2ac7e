"""The render gate: PNG painting never holds up the feed (issue 21 item 5).

Painting and encoding a board is CPU work of 25-400 ms (1080p to 4K) that never waits on I/O. Under
the documented gunicorn gevent worker every request is a greenlet of one OS thread, so a paint run
in the request's greenlet stops the whole event loop for its length: with 32 clients asking for
PNGs of distinct sizes, feed writes waited 4 s (bench/bench_render_flood.py). The gate:

- runs every paint on a native OS thread (under gevent: the hub's thread pool; the greenlet waits
  cooperatively, the event loop keeps serving feed writes, pages and sockets while Pillow paints,
  the interpreter switching between them every few milliseconds), elsewhere on the request's thread;
- lets at most :data:`PAINTERS` images be drawn at once (each paint holds the interpreter most of
  its time: more would only slow each other and the loop) and at most :data:`WAITING` more requests
  wait for their turn, before any work of theirs; one more is refused at once with 429
  ``too_many_renders`` (``Retry-After: 1``), nothing drawn. A waiting request looks in the cache
  again when its turn comes: screens asking for the same new image get one drawing.

The board model is built in the request during its turn (on the loop, as every page builds one);
the paint and the encoding run off the loop. ``app.extensions["roads.render_gate"]``.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from typing import Callable, Iterator, TypeVar

from flask import Flask, current_app

from web import extensions
from web.http.errors import ApiError

T = TypeVar("T")

EXTENSION = extensions.RENDER_GATE
"""The ``app.extensions`` key of the app's :class:`RenderGate`."""

PAINTERS = 1
"""Paints at once per process."""

WAITING = 64
"""Requests that may wait for a painter (each a parked greenlet or thread holding no model yet);
one more is a 429."""

RETRY_AFTER_S = 1
"""``Retry-After`` of a 429 ``too_many_renders``, seconds."""


class TooManyRenders(ApiError):
    """429: every painter is busy and :data:`WAITING` requests already wait (field ``null``)."""

    status = 429
    code = "too_many_renders"


def _native_pool():  # noqa: ANN202 (gevent's ThreadPool, or None)
    """gevent's pool of native threads when gevent has patched ``threading`` (gunicorn's gevent
    worker, which loads gevent first), else ``None`` (threads are threads already). gevent is
    looked up among the loaded modules, never imported: an install without it has no patching."""
    monkey = sys.modules.get("gevent.monkey")
    if monkey is None or not monkey.is_module_patched("threading"):
        return None
    return sys.modules["gevent"].get_hub().threadpool


class RenderGate:
    """At most ``painters`` images drawn at once, at most ``waiting`` more requests queued (module
    docstring); thread- and greenlet-safe. :attr:`refused` counts the 429s, :attr:`drawn` the turns."""

    def __init__(self, painters: int = PAINTERS, waiting: int = WAITING) -> None:
        self.painters = painters
        self.waiting = waiting
        self._slots = threading.BoundedSemaphore(painters)
        self._lock = threading.Lock()
        self._inside = 0
        self.refused = 0
        self.drawn = 0

    @contextlib.contextmanager
    def turn(self) -> Iterator[None]:
        """Wait (cooperatively) for a painter, then hold it for the ``with`` block: build the
        model, then :meth:`off_loop` its paint. Raises :class:`TooManyRenders` at once, before any
        work, when ``painters + waiting`` requests are already inside."""
        with self._lock:
            if self._inside >= self.painters + self.waiting:
                self.refused += 1
                raise TooManyRenders(f"{self._inside} images are being drawn or wait to be; try again in "
                                     f"{RETRY_AFTER_S} s (cached images are served at once)")
            self._inside += 1
        try:
            with self._slots:
                self.drawn += 1
                yield
        finally:
            with self._lock:
                self._inside -= 1

    @staticmethod
    def off_loop(work: Callable[[], T]) -> T:
        """``work()`` (a paint and its encoding) on a native thread of gevent's pool when gevent
        runs the process (the event loop serves others meanwhile), else right here."""
        pool = _native_pool()
        return pool.apply(work) if pool is not None else work()


def init_app(app: Flask) -> None:
    """Give ``app`` its :class:`RenderGate`."""
    app.extensions[EXTENSION] = RenderGate()


def get_gate(app: Flask | None = None) -> RenderGate:
    """The :class:`RenderGate` of ``app`` (default: the current app)."""
    return (app or current_app).extensions[EXTENSION]
