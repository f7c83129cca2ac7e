"""The documented deployment's gunicorn hook (deploy/gunicorn.conf.py ``post_worker_init``) applies
the garbage-collector settings of web/gc_tuning.py: what is loaded is frozen, the youngest
generation is collected after 50,000 allocations instead of Python's 700."""

from __future__ import annotations

import gc
import runpy
from pathlib import Path

CONF = Path(__file__).resolve().parents[2] / "deploy" / "gunicorn.conf.py"
BENCH_HOOKS = Path(__file__).resolve().parents[2] / "bench" / "gunicorn_hooks.py"


def test_the_worker_hooks_freeze_what_is_loaded_and_raise_the_thresholds():
    before = gc.get_threshold()
    try:
        for path in (CONF, BENCH_HOOKS):
            gc.unfreeze()
            gc.set_threshold(700, 10, 10)
            runpy.run_path(str(path))["post_worker_init"](None)
            assert gc.get_threshold() == (50_000, 20, 10), path
            assert gc.get_freeze_count() > 1000, path  # the modules and objects loaded so far
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
