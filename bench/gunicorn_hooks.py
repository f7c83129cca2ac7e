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
service's past-shoe cache. Each line walks every object once (``gc.get_objects()``, no forced
collection unless ``ROADS_SOAK_CENSUS_COLLECT=1``): the event loop stops for that long
(``census_s`` in the line). Without the variable nothing of this runs."""

import os
import sys


def post_worker_init(worker):  # noqa: ANN001, ANN201 (gunicorn's hook)
    from web.gc_tuning import tune_for_serving

    tune_for_serving()
    path = os.environ.get("ROADS_SOAK_CENSUS")
    if path:
        _start_census(worker, path, float(os.environ.get("ROADS_SOAK_CENSUS_EVERY", "60")),
                      os.environ.get("ROADS_SOAK_CENSUS_COLLECT") == "1")


def _start_census(worker, path: str, every: float, collect: bool) -> None:  # noqa: ANN001
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

    def asked() -> bool:
        try:
            os.remove(path + ".now")
            return True
        except OSError:
            return False

    def run() -> None:
        due = time.monotonic()
        while True:
            if not (asked() or (every > 0 and time.monotonic() >= due)):
                time.sleep(0.2)
                continue
            due = time.monotonic() + every
            try:
                line = {"t": round(time.monotonic() - began, 1), "pid": os.getpid(), **snapshot(collect),
                        "past_cached": past_cached()}
                with open(path, "a", encoding="utf-8") as f:
                    f.write(json.dumps(line) + "\n")
            except Exception as e:  # noqa: BLE001
                worker.log.warning("soak census failed: %r", e)

    threading.Thread(target=run, name="soak-census", daemon=True).start()
