"""Live model topics: each page's board model pushed over the same hub, frames and deltas as
the snapshots, so a screen gets the model it paints (or what changed in it), never an HTTP
fetch per update.

A page's :class:`web.http.model_specs.ModelSpec` names its topic (``model:<digest>``). A topic is
registered when a page, its model JSON route or its socket asks for it (:meth:`LiveModels.register`).
When the spec's source topic (``table:<id>`` or ``lobby``) publishes, the feed write's own
thread (a table, :meth:`LiveModels.built_here`) or one worker thread of the app (the lobby,
and writes that come another way) rebuilds the document (:func:`web.http.model_specs.build`) and publishes it on the model
topic with the source's version, once for every screen that shares the spec: the frame cache
(:mod:`web.push.frames`) then sends a screen holding the previous version only the changed parts
(:mod:`web.push.delta`; a new shoe is a new epoch: a full frame). A document equal to the last one
is not published again.

Only topics somebody watches are rebuilt: a socket of this process (the fan-out's subscribers)
or, when this process publishes to nchan (``ROADS_NCHAN_PUBLISH_URL``), every topic registered
as followed there (``watch=True``: nchan's subscribers are not visible here; a lobby or embed
page when it is served, a table page's orientation when the page asks for it, see
:func:`web.http.model_specs.orient_arg`). A topic nobody watched at its source's last
change is rebuilt when it is next asked for (:meth:`LiveModels.ensure`). At most
:data:`MAX_TOPICS` topics are kept (least recently asked for dropped first). The worker ends
after :data:`IDLE_EXIT_S` without work and starts again with the next change.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import OrderedDict
from typing import Any, Iterator

import orjson
from flask import Flask, current_app

from web.push import topics
from web.push.hub import Message

EXTENSION = "roads.live_models"
"""The ``app.extensions`` key of the app's :class:`LiveModels`."""

MAX_TOPICS = 1024
"""Most model topics kept per process (distinct page options and orientations across all screens)."""

INLINE = topics.is_table
"""Sources whose model topics a feed write rebuilds in its own thread, after its record is
durable and its table lock released (:meth:`LiveModels.built_here`): one write of a table
makes one build of each of its pages' models, so nothing is gained by coalescing, and under
gevent's cooperative scheduling a worker that built every table's models in one batch took
turns with the queued feed requests in chunks of about a second (bench/bench_push.py, 200
tables). The lobby, which every write changes, stays with the worker: one build per batch."""

IDLE_EXIT_S = 30.0
"""Seconds the worker waits for work before its thread ends (it restarts on the next change)."""


class LiveModels:
    """The model topics of one app and their worker. Thread-safe.

    ``publish_all``: rebuild every registered topic on a change (the nchan tier), not only
    watched ones. Counters for tests and benches: ``builds``, ``published``, ``unchanged``.
    """

    def __init__(self, app: Flask, hub: Any, *, publish_all: bool = False) -> None:
        self.app, self.hub, self.publish_all = app, hub, publish_all
        self._lock = threading.Condition(threading.Lock())
        self._specs: OrderedDict[str, Any] = OrderedDict()  # topic -> spec, least recently asked first
        self._by_source: dict[str, set[str]] = {}
        self._dirty: set[str] = set()
        self._stale: set[str] = set()
        self._followed: set[str] = set()  # topics nchan subscribers follow (publish_all)
        self._build_locks: dict[str, threading.Lock] = {}
        self._built_from: dict[str, int | None] = {}  # topic -> source version its message was built at
        self._worker: threading.Thread | None = None
        self.builds = self.published = self.unchanged = 0
        self._local = threading.local()  # per thread: the builds queued by built_here
        hub.listen(self._on_publish)

    # ------------------------------------------------------------------ registry
    def register(self, spec: Any, *, watch: bool = False) -> str:
        """Keep ``spec``'s topic (marked recently asked for); returns the topic. ``watch``: the
        topic is followed outside this process (nchan), so it is rebuilt on every change."""
        topic = spec.topic
        with self._lock:
            if watch:
                self._followed.add(topic)
            if topic in self._specs:
                self._specs.move_to_end(topic)
                return topic
            self._specs[topic] = spec
            self._by_source.setdefault(spec.source, set()).add(topic)
            self._build_locks[topic] = threading.Lock()
            while len(self._specs) > MAX_TOPICS:
                old, old_spec = self._specs.popitem(last=False)
                self._by_source.get(old_spec.source, set()).discard(old)
                self._build_locks.pop(old, None)
                self._built_from.pop(old, None)
                self._stale.discard(old)
                self._followed.discard(old)
        return topic

    def known(self, topic: str) -> bool:
        """Whether ``topic`` is registered (some page, model route or socket asked for it)."""
        return topic in self._specs

    def topics(self) -> list[str]:
        """Registered topics, least recently asked for first."""
        with self._lock:
            return list(self._specs)

    def ensure(self, spec: Any, *, watch: bool = False) -> Message:
        """Register ``spec`` (``watch`` as :meth:`register`) and return its topic's message, built
        now if the topic has none, its source has moved on since, or nobody watched it at the last
        change. Raises what :func:`web.http.model_specs.build` raises (needs an app context)."""
        topic = self.register(spec, watch=watch)
        latest = self.hub.latest(topic)
        source = self.hub.latest(spec.source)
        with self._lock:
            stale = topic in self._stale or self._built_from.get(topic) != (source.version if source else None)
        if latest is None or stale:
            latest = self._rebuild(topic, spec) or self.hub.latest(topic)
        return latest  # type: ignore[return-value]

    # ------------------------------------------------------------------ building
    def _rebuild(self, topic: str, spec: Any) -> Message | None:
        from web.http.model_specs import build

        with self._lock:  # (a topic dropped from the registry meanwhile gets a lock again)
            lock = self._build_locks.setdefault(topic, threading.Lock())
        with lock:
            source = self.hub.latest(spec.source)
            built = source.version if source is not None else None
            latest = self.hub.latest(topic)
            with self._lock:
                if latest is not None and topic not in self._stale and self._built_from.get(topic, -1) == built:
                    return latest  # another thread built it from this version meanwhile (e.g. many sockets at once)
                self._stale.discard(topic)
                self._built_from[topic] = built
            doc = build(spec)
            self.builds += 1
            latest = self.hub.latest(topic)
            if latest is not None and latest.document == doc:
                self.unchanged += 1
                return latest
            version = int(doc.get("version") or 0)
            if latest is not None and latest.version == version:
                version = latest.version + 1  # same source version, new content (e.g. a release): still newer
            self.published += 1
            return self.hub.publish(topic, version, lambda: orjson.dumps(doc), document=doc)

    def _watched(self, topic: str) -> bool:
        if self.publish_all and topic in self._followed:
            return True
        fanout = self.app.extensions.get("roads.ws_fanout")
        return fanout is not None and fanout.subscribers(topic) > 0

    @contextlib.contextmanager
    def built_here(self) -> Iterator[None]:
        """Within the block, a publish of a table topic (:data:`INLINE`) in this thread
        queues its pages' model builds, and they run in this thread as the (outermost) block
        ends, outside any table lock; other sources, and publishes outside such a block, go to
        the worker as before. The feed wraps each write in it (:mod:`web.http.feed`)."""
        depth = getattr(self._local, "depth", 0)
        self._local.depth = depth + 1
        if depth == 0:
            self._local.work = {}
        try:
            yield
        finally:
            self._local.depth = depth
            if depth == 0:
                work, self._local.work = self._local.work, None
                if work:
                    self._build_all(list(work.items()))

    def _on_publish(self, topic: str, message: Message) -> None:
        with self._lock:
            dependants = self._by_source.get(topic)
            if not dependants:
                return
            here = getattr(self._local, "work", None)
            if here is not None and INLINE(topic):
                here.update((t, self._specs[t]) for t in dependants if t in self._specs)
                return
            self._dirty.update(dependants)
            self._lock.notify()
            if self._worker is None:  # (the worker clears it, under this lock, as it ends)
                worker = threading.Thread(target=self._run, name="roads-live-models", daemon=True)
                worker.start()
                self._worker = worker

    def _run(self) -> None:
        try:
            self._work()
        finally:
            with self._lock:
                if self._worker is threading.current_thread():
                    self._worker = None

    def _work(self) -> None:
        while True:
            with self._lock:
                deadline = time.monotonic() + IDLE_EXIT_S
                while not self._dirty:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        self._worker = None
                        return
                    self._lock.wait(left)
                work = [(t, self._specs[t]) for t in self._dirty if t in self._specs]
                self._dirty.clear()
            self._build_all(work)

    def _build_all(self, work: list[tuple[str, Any]]) -> None:
        """Rebuild and publish each ``(topic, spec)`` somebody watches; mark the others stale."""
        for topic, spec in work:
            if not self._watched(topic):
                source = self.hub.latest(spec.source)
                with self._lock:  # (unless a request built it from the source's latest meanwhile)
                    if self._built_from.get(topic, -1) != (source.version if source is not None else None):
                        self._stale.add(topic)
                continue
            try:
                with self.app.app_context():
                    self._rebuild(topic, spec)
            except Exception:  # noqa: BLE001 (a table gone or unreadable now: the next change retries)
                with self._lock:
                    self._stale.add(topic)


def init_app(app: Flask, hub: Any) -> LiveModels:
    """Give ``app`` its :class:`LiveModels` (``app.extensions["roads.live_models"]``) on ``hub``."""
    from web.settings import get_settings

    live = LiveModels(app, hub, publish_all=bool(get_settings(app).nchan_publish_url))
    app.extensions[EXTENSION] = live
    return live


def get_live_models(app: Flask | None = None) -> LiveModels:
    """The app's :class:`LiveModels`."""
    return (app or current_app).extensions[EXTENSION]
