"""gunicorn hooks of the benches' service (``-c bench/gunicorn_hooks.py``): the same garbage-collector
settings as the documented deployment (``deploy/gunicorn.conf.py``, :mod:`web.gc_tuning`), without
that file's access log and binding, which the benches set on the command line."""


def post_worker_init(worker):  # noqa: ANN001, ANN201 (gunicorn's hook)
    from web.gc_tuning import tune_for_serving

    tune_for_serving()
