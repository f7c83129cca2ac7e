"""Fan-out of a topic's new versions to the WebSocket screens that watch it (:mod:`web.push.subscriber`).

A screen is a :class:`web.push.subscriber.Subscriber`: its ``offer(message)`` never blocks (the newest
message only, slow screens skip versions). :class:`Fanout` calls it for every subscriber of a
topic on every new version of that topic published on the :class:`web.push.hub.Hub`.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from web.push import topics
from web.push.hub import Hub, Message

log = logging.getLogger(__name__)

POLL_S = 1.0
"""Longest a fan-out thread waits on the hub before checking that its topic still has
subscribers, in seconds (its thread ends within this time after the last one leaves)."""


INLINE = topics.is_model
"""Topics whose new versions are offered to their screens in the publishing thread itself:
board models, which :mod:`web.push.page_models` publishes outside every table lock (a feed
request after its write, or the models' worker). Offers never block, so this only spares
the hand-over to a fan-out thread per topic. Snapshot topics (``table:``, ``lobby``) are
published under a table's lock: their fan-out threads take the offers out of it."""


class Fanout:
    """Offers each new version of a topic to every subscriber: model topics in the publishing
    thread (:data:`INLINE`), other topics from one sender thread per watched topic.

    Only a topic's fan-out thread waits on the :class:`web.push.hub.Hub`; the per-connection
    threads wait on their own :class:`web.push.subscriber.Subscriber`. A fan-out thread starts with the topic's
    first subscriber and ends (within :data:`POLL_S`) after its last one leaves, so threads
    are bounded by the number of watched tables plus the lobby. Thread-safe.
    """

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self._lock = threading.Lock()
        self._subs: dict[str, set[Any]] = {}
        hub.listen(self._on_publish)

    def _on_publish(self, topic: str, message: Message) -> None:
        if not INLINE(topic):
            return
        subs = self._subs.get(topic)
        if not subs or message is not self.hub.latest(topic):
            return  # (a newer version is out: its own publish offers it)
        with self._lock:
            subs = list(subs)
        for sub in subs:
            try:
                sub.offer(message)
            except Exception:  # noqa: BLE001 (one screen's failure never stops the others' offers)
                log.exception("offer to a screen of %s failed", topic)

    def subscribe(self, sub: Any) -> None:
        """Add ``sub``; offer it at once anything published since its first frame."""
        with self._lock:
            subs = self._subs.get(sub.topic)
            start = subs is None and not INLINE(sub.topic)
            if subs is None:
                subs = self._subs[sub.topic] = set()
            subs.add(sub)
        if start:
            threading.Thread(target=self._run, args=(sub.topic,), name=f"roads-fanout-{sub.topic}", daemon=True).start()
        latest = self.hub.latest(sub.topic)
        if latest is not None:
            sub.offer(latest)

    def unsubscribe(self, sub: Any) -> None:
        """Remove ``sub`` (idempotent)."""
        with self._lock:
            subs = self._subs.get(sub.topic)
            if subs is not None:
                subs.discard(sub)
                if not subs and INLINE(sub.topic):
                    del self._subs[sub.topic]  # (other topics: their fan-out thread lets go of it)

    def subscribers(self, topic: str) -> int:
        """How many connections watch ``topic`` now."""
        with self._lock:
            return len(self._subs.get(topic, ()))

    def _run(self, topic: str) -> None:
        # Start by offering whatever the topic holds now (a subscriber already holding it skips
        # it): a thread that read the latest version first, and only then waited for a newer one,
        # lost a version published between the subscriptions and its start.
        version = None
        while True:
            with self._lock:
                if not self._subs.get(topic):
                    self._subs.pop(topic, None)
                    return
            message = self.hub.wait(topic, version, timeout=POLL_S)  # type: ignore[arg-type]
            if message is None:
                continue
            version = message.version
            with self._lock:
                subs = list(self._subs.get(topic, ()))
            for sub in subs:
                sub.offer(message)
