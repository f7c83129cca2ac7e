"""Page-model topics: each page's board-model document pushed over the same hub, frames and
deltas as the snapshots, so a screen gets the model it paints (or what changed in it), never an
HTTP fetch per update.

A page's :class:`web.push.documents.ModelSpec` names its topic (``model:<digest>``). A topic is
registered when a page, its model JSON route or its socket asks for it (:meth:`PageModels.register`).
When the spec's source (``table:<id>`` or ``lobby``) changes, the service says so: a feed
write rebuilds its table's models in its own thread once the write is durable and the table's
lock released (:meth:`PageModels.rebuild`), and one worker thread rebuilds the lobby's models
and those of writes that come another way (another process's, :meth:`PageModels.changed`).
The document (:meth:`web.push.documents.Documents.build`) is published on the model topic with
the source's version, once for every screen that shares the spec: the frame cache
(:mod:`web.push.frames`) then sends a screen holding the previous version only the changed parts
(:mod:`web.push.delta`; a new shoe is a new epoch: a full frame). A document equal to the last one
is not published again.

Only topics somebody watches are rebuilt: a socket of this process (the fan-out's subscribers)
or, when this process publishes to nchan (``follow_all``), every topic registered as followed
there (``watch=True``: nchan's subscribers are not visible here; a lobby or embed page when it
is served, a table page's orientation when the page asks for it). A topic nobody watched at its
source's last change is rebuilt when it is next asked for (:meth:`PageModels.ensure`).

Models of multi-table pages (source ``lobby``: the lobby, named screens, the good-roads screen)
are coalesced: every feed write changes the lobby, and at 300 tables rebuilding them per write
was a service host's bottleneck. The worker builds such a model at once when it was not built in
the last :data:`MULTI_TABLE_INTERVAL_S` (leading edge), else once that interval has passed since
its last build, from the state then (trailing edge): at most :data:`MULTI_TABLE_BUILDS_PER_S`
builds per model per second, and the last write is always published. Per-table models are
rebuilt on every write. At most
:data:`MAX_TOPICS` topics are kept (least recently asked for dropped first). The worker ends
after :data:`IDLE_EXIT_S` without work and starts again with the next change.

A model that cannot be built never freezes a screen silently: the failure is logged with the
table (or screen) and topic (at most once per :data:`LOG_EVERY_S` per topic, with the count
since the last line), counted (:meth:`PageModels.health`, served as ``GET /api/health``), and
the topic's last good document is published again marked ``"held": {"since": Unix seconds of
the first failure, "text": "Not updating since {time}" in the page's language}``, which the
page shows as a band over its dimmed board (``static/js/push_socket.js``). The next change of
the source builds again; the first good document (without ``held``) ends it. A page's first
build that fails on an option no model can be drawn with raises (the request's 400).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import orjson

from roads.record import iso_time
from web import i18n
from web.push import topics
from web.push.fanout import Fanout
from web.push.hub import Hub, Message
from web.render.layout import LayoutError
from web.render.model import ModelError

log = logging.getLogger(__name__)

MAX_TOPICS = 1024
"""Most model topics kept per process (distinct page options and orientations across all screens)."""

IDLE_EXIT_S = 30.0
"""Seconds the worker waits for work before its thread ends (it restarts on the next change)."""

MULTI_TABLE_BUILDS_PER_S = 5
"""Most rebuilds per second of one multi-table page model (source ``lobby``; module docstring)."""

MULTI_TABLE_INTERVAL_S = 1.0 / MULTI_TABLE_BUILDS_PER_S
"""Shortest time between the starts of two builds of one multi-table page model, in seconds."""

LOG_EVERY_S = 60.0
"""Shortest time between two log lines about one topic's failing builds, in seconds."""

OPTION_ERRORS = (ModelError, LayoutError)
"""What a page's option no model can be drawn with raises (the page's request answers 400)."""


@dataclass
class _Failing:
    """A topic whose builds fail: since when (Unix seconds), how many in a row, how many since
    the last log line, and when that was (``time.monotonic()``)."""

    spec: Any
    since: float
    failures: int = 0
    unlogged: int = 0
    logged_at: float | None = None


class PageModels:
    """The model topics of one app and their worker. Thread-safe.

    ``documents`` builds a spec's document (:class:`web.push.documents.Documents`); ``fanout``
    tells which topics this process's sockets watch; ``follow_all``: rebuild every topic
    registered as followed on a change (the nchan tier), not only watched ones. Counters for
    tests and benches: ``builds``, ``published``, ``unchanged``, ``failed_builds``.
    """

    def __init__(self, hub: Hub, documents: Any, fanout: Fanout, *, follow_all: bool = False) -> None:
        self.hub, self.documents, self.fanout, self.follow_all = hub, documents, fanout, follow_all
        self._lock = threading.Condition(threading.Lock())
        self._specs: OrderedDict[str, Any] = OrderedDict()  # topic -> spec, least recently asked first
        self._by_source: dict[str, set[str]] = {}
        self._dirty: set[str] = set()
        self._stale: set[str] = set()
        self._followed: set[str] = set()  # topics nchan subscribers follow (follow_all)
        self._build_locks: dict[str, threading.Lock] = {}
        self._built_from: dict[str, int | None] = {}  # topic -> source version its message was built at
        self._worker: threading.Thread | None = None
        self._failing: dict[str, _Failing] = {}
        self._started: dict[str, float] = {}  # multi-table topic -> clock() at its last build's start
        self.clock = time.monotonic
        self.builds = self.published = self.unchanged = self.failed_builds = 0

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
                self._failing.pop(old, None)
                self._started.pop(old, None)
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
        change. Raises what :meth:`web.push.documents.Documents.build` raises."""
        topic = self.register(spec, watch=watch)
        latest = self.hub.latest(topic)
        source = self.hub.latest(spec.source)
        with self._lock:
            stale = topic in self._stale or self._built_from.get(topic) != (source.version if source else None)
        if latest is None or stale:
            latest = self._rebuild(topic, spec) or self.hub.latest(topic)
        return latest  # type: ignore[return-value]

    # ------------------------------------------------------------------ a source changed
    def rebuild(self, source: str) -> None:
        """Rebuild, in this thread, the watched models of ``source`` (``table:<id>``): a feed
        write's, after its record is durable and its table lock released. One write of a table
        makes one build of each of its pages' models, so nothing is gained by handing them to
        the worker; under gevent's cooperative scheduling a worker that built every table's
        models in one batch took turns with the queued feed requests in chunks of about a
        second (bench/bench_push.py, 200 tables)."""
        with self._lock:
            work = [(t, self._specs[t]) for t in self._by_source.get(source, ()) if t in self._specs]
        if work:
            self._build_all(work)

    def changed(self, source: str) -> None:
        """Have the worker rebuild the watched models of ``source`` (``table:<id>`` or ``lobby``;
        never blocks): the lobby, which every write changes (at most MULTI_TABLE_BUILDS_PER_S builds
        a second of each model, the last write always built), and
        tables written by another process."""
        with self._lock:
            dependants = self._by_source.get(source)
            if not dependants:
                return
            self._dirty.update(dependants)
            self._lock.notify()
            if self._worker is None:  # (the worker clears it, under this lock, as it ends)
                worker = threading.Thread(target=self._run, name="roads-page-models", daemon=True)
                worker.start()
                self._worker = worker

    # ------------------------------------------------------------------ building
    def _rebuild(self, topic: str, spec: Any) -> Message | None:
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
                if spec.source == topics.LOBBY:
                    self._started[topic] = self.clock()
            try:
                doc = self.documents.build(spec)
            except Exception as exc:
                if latest is None and isinstance(exc, OPTION_ERRORS):
                    raise  # a page asked for options no model can be drawn with: its 400
                return self._hold(topic, spec, latest, exc)
            self.builds += 1
            if topic in self._failing:
                self._recovered(topic, spec)
            latest = self.hub.latest(topic)
            if latest is not None and latest.document == doc:
                self.unchanged += 1
                return latest
            version = int(doc.get("version") or 0)
            if latest is not None and latest.version >= version:
                version = latest.version + 1  # same source version, new content (a release, held before): still newer
            self.published += 1
            return self.hub.publish(topic, version, lambda: orjson.dumps(doc), document=doc)

    def _hold(self, topic: str, spec: Any, latest: Message | None, exc: Exception) -> Message:
        """The build of ``topic`` raised ``exc``: count it, log it (rate-limited), and publish the
        last good document again marked ``held`` (once: a held one stays as it is). Raises
        ``exc`` when the topic has no document yet (the request that asked for it fails)."""
        with self._lock:
            self.failed_builds += 1
            failing = self._failing.get(topic)
            if failing is None:
                failing = self._failing[topic] = _Failing(spec, time.time())
            failing.failures += 1
            failing.unlogged += 1
            now = time.monotonic()
            report = failing.logged_at is None or now - failing.logged_at >= LOG_EVERY_S
            if report:
                count, failing.unlogged, failing.logged_at = failing.unlogged, 0, now
        if report:
            log.error("the page model of %s (topic %s) cannot be built (%d failed build(s) since the last report): "
                      "%s; its screens keep their last good model, marked not updating", spec.where, topic, count,
                      exc, exc_info=exc)
        if latest is None:
            raise exc
        doc = latest.document
        if "held" in doc:
            return latest
        held = {**doc, "held": {"since": round(failing.since, 3),
                                "text": i18n.translate("ui.not_updating_since", spec.lang, time="{time}")}}
        return self.hub.publish(topic, latest.version + 1, lambda: orjson.dumps(held), document=held)

    def _recovered(self, topic: str, spec: Any) -> None:
        with self._lock:
            failing = self._failing.pop(topic, None)
        if failing is not None:
            log.warning("the page model of %s (topic %s) is built again after %d failed build(s)", spec.where, topic,
                        failing.failures)

    def health(self) -> dict[str, Any]:
        """``{"topics": registered, "builds", "failed_builds": since the start, "failing": [{"topic",
        "shows": "table T1" | "lobby" | "screen <name>", "since": ISO time of the first failure in a
        row, "failed_builds": in a row}]}``: the topics whose last build failed (their screens show
        their last good model, marked not updating)."""
        with self._lock:
            failing = [{"topic": topic, "shows": f.spec.where, "since": iso_time(f.since), "failed_builds": f.failures}
                       for topic, f in self._failing.items()]
            return {"topics": len(self._specs), "builds": self.builds, "failed_builds": self.failed_builds,
                    "failing": failing}

    def _watched(self, topic: str) -> bool:
        if self.follow_all and topic in self._followed:
            return True
        return self.fanout.subscribers(topic) > 0

    def _run(self) -> None:
        try:
            self._work()
        finally:
            with self._lock:
                if self._worker is threading.current_thread():
                    self._worker = None

    def due(self, topic: str) -> float:
        """When (:attr:`clock` seconds) the worker may build ``topic`` next: at once (0.0) for a
        per-table model, :data:`MULTI_TABLE_INTERVAL_S` after its last build's start for a
        multi-table one (caller holds the lock)."""
        started = self._started.get(topic)
        return 0.0 if started is None else started + MULTI_TABLE_INTERVAL_S

    def _work(self) -> None:
        while True:
            with self._lock:
                deadline = time.monotonic() + IDLE_EXIT_S
                while True:
                    now = self.clock()
                    ready = [t for t in self._dirty if self.due(t) <= now]
                    if ready:
                        break
                    if self._dirty:  # only coalesced models, each waiting for its interval to pass
                        self._lock.wait(max(0.0, min(self.due(t) for t in self._dirty) - now))
                        continue
                    left = deadline - time.monotonic()
                    if left <= 0:
                        self._worker = None
                        return
                    self._lock.wait(left)
                self._dirty.difference_update(ready)
                work = [(t, self._specs[t]) for t in ready if t in self._specs]
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
                self._rebuild(topic, spec)
            except Exception:  # noqa: BLE001 (a table gone or unreadable now: the next change retries)
                with self._lock:
                    self._stale.add(topic)
