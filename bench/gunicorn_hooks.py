"""gunicorn hooks of the benches' service (``-c bench/gunicorn_hooks.py``): the same garbage-collector
settings as the documented deployment (``deploy/gunicorn.conf.py``, :mod:`web.gc_tuning`), without
that file's access log and binding, which the benches set on the command line.

Memory census for ``bench/soak_serving.py``: with ``ROADS_SOAK_CENSUS=/path/file.jsonl`` in the
environment, the worker also runs a background thread (a greenlet under ``-k gevent``) that
appends one JSON line to that file every ``ROADS_SOAK_CENSUS_EVERY`` seconds (default 60; the
first at once), and at once whenever the file ``<path>.now`` appears (it deletes it; with
``ROADS_SOAK_CENSUS_EVERY=0`` only then: the soak asks at each of its own lines): ``t`` (seconds
since the worker started), ``pid`` and :func:`heap_census.snapshot` (RSS, malloc in use and
free, Pillow image pixels, live objects by type, the fill of every bounded cache), and the
service's past-shoe cache. Each line is counted by a forked child of the worker in its
copy-on-write copy of the worker's heap (``census_s``: how long that took): the worker's event
loop is not stopped and the census's own allocations stay out of the worker (the child briefly
needs about the worker's RSS again, as it touches every object). ``ROADS_SOAK_CENSUS_COLLECT=1``:
the child runs a full collection before counting (only what the worker's next full collection
would keep; the worker itself is untouched). ``ROADS_SOAK_CENSUS_DEEP=1``: each line also has ``sizes``, every type's
count and bytes including objects the collector does not track (str, bytes, ...; a walk of every
reference, longer). ``ROADS_SOAK_TRACEMALLOC=N``: tracemalloc traces the worker's allocations from
once the app is loaded (N frames), and each line has ``traced``, the source lines holding most
traced memory (slow: the worker's CPU per request rises). Without ``ROADS_SOAK_CENSUS`` nothing
of this runs."""

import os
import sys


def post_worker_init(worker):  # noqa: ANN001, ANN201 (gunicorn's hook)
    from web.gc_tuning import tune_for_serving

    tune_for_serving()
    path = os.environ.get("ROADS_SOAK_CENSUS")
    if path:
        if os.environ.get("ROADS_SOAK_TRACEMALLOC"):
            import tracemalloc

            tracemalloc.start(int(os.environ["ROADS_SOAK_TRACEMALLOC"]))
        _start_census(worker, path, float(os.environ.get("ROADS_SOAK_CENSUS_EVERY", "60")),
                      os.environ.get("ROADS_SOAK_CENSUS_COLLECT") == "1", os.environ.get("ROADS_SOAK_CENSUS_DEEP") == "1")


def _start_census(worker, path: str, every: float, collect: bool, deep: bool) -> None:  # noqa: ANN001
    import json
    import threading
    import time

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from heap_census import snapshot

    began = time.monotonic()

    def past_cached() -> int | None:
        try:
            return worker.wsgi.extensions["roads.service"].read.past_cached()
        except Exception:  # noqa: BLE001 (a figure for the soak; never stop the worker for it)
            return None

    def png_cached() -> tuple[int, float] | None:
        try:
            png = worker.wsgi.extensions["roads.png_cache"]
            return len(png), round(png.size_bytes / 2**20, 1)
        except Exception:  # noqa: BLE001 (as past_cached)
            return None

    def asked() -> bool:
        try:
            os.remove(path + ".now")
            return True
        except OSError:
            return False

    def take() -> None:
        """One line, counted by a forked child in its copy of the worker's heap: the worker's loop
        goes on serving meanwhile, and the census's own allocations never land in the worker."""
        parent = os.getpid()
        t = round(time.monotonic() - began, 1)
        child = os.fork()
        if child == 0:
            code = 1
            try:
                import signal

                signal.signal(signal.SIGALRM, signal.SIG_DFL)
                signal.alarm(110)   # a census that hangs ends anyway
                line = {"t": t, "pid": parent, **snapshot(collect, deep, pid=parent), "past_cached": past_cached(),
                        "png_cached": png_cached()}
                with open(path, "a", encoding="utf-8") as f:
                    f.write(json.dumps(line) + "\n")
                code = 0
            finally:
                os._exit(code)
        _, status = os.waitpid(child, 0)   # cooperative under gevent's monkey-patching
        if status:
            worker.log.warning("soak census child failed: status %d", status)

    def run() -> None:
        due = time.monotonic()
        while True:
            if not (asked() or (every > 0 and time.monotonic() >= due)):
                time.sleep(0.2)
                continue
            due = time.monotonic() + every
            try:
                take()
            except Exception as e:  # noqa: BLE001
                worker.log.warning("soak census failed: %r", e)

    threading.Thread(target=run, name="soak-census", daemon=True).start()
