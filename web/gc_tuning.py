"""Garbage-collector settings for a serving process: shorter and rarer pauses of the event loop.

Under gunicorn's gevent worker every screen, feed and thread of the service shares one OS
thread, so a collection of the oldest generation stops them all for as long as it takes to
walk every object the process holds: at 200 tables x 10 screens (about 2,000 sockets and
their greenlets, the tables' roads, the page models) Python's default thresholds gave 7
full collections in 30 s of 65-207 ms each, which set the feed-to-screen p99 at 131-164 ms
while the median was 2.3 ms (``bench/bench_push.py``, a gc callback timing each collection).

:func:`tune_for_serving` (called once the app is loaded: ``deploy/gunicorn.conf.py``
``post_worker_init``, and the bench's service the same way):

1. ``gc.freeze()``: what exists once the app is loaded (modules, settings, fonts, the
   records loaded from the store) moves to the permanent generation, which collections no
   longer walk. Those objects are still freed by reference counting; only reference cycles
   among them that become garbage later would stay (the loaded app holds none that do).
2. ``gc.set_threshold(GEN0_THRESHOLD, 20, 10)``: the youngest generation is collected after
   50,000 net allocations instead of 700, the older ones after 20 and 10 of those.

``roads serve`` calls it too, once the app is created (``web.cli``). And :func:`paused` keeps the
collector off while the service loads the live shoes: a load of 200 tables near the end of their
shoes makes about two million long-lived objects, and the collections it set off walked them again
and again (844 young, 76 middle and 5 full collections: 0.3 s of a 1.5 s load; a full collection
in the first requests after the start delayed a past shoe's first read to 60-80 ms,
``bench/bench_service_history.py``).

Measured in the same bench: p99 6-10 ms instead of 131-164 ms, service CPU per round 8 % lower
(2.15 against 2.35 ms), 14 young collections of 8 ms (at most 42-77 ms) in 30 s instead of
966 + 87 + 7. The young generation may hold up to 50,000 more objects before it is collected.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

GEN0_THRESHOLD = 50_000
"""Net allocations between two collections of the youngest generation (Python's default: 700)."""


def tune_for_serving() -> None:
    """Freeze what is allocated so far and raise the thresholds (module docstring). Idempotent
    enough to call once per process after the app is loaded; call it after loading, not before."""
    gc.freeze()
    gc.set_threshold(GEN0_THRESHOLD, 20, 10)


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """The collector off inside the block (as it was after it): for loading many long-lived
    objects at once (module docstring). Reference counting still frees everything else."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
