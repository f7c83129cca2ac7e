"""The production push tier: pages subscribe to nginx + nchan, this process publishes to it.

``docs/deploy.md`` ("Production tier") explains the deployment, ``deploy/nginx-nchan.conf``
is the nginx configuration. Two settings (``app.config``, else the environment):

``ROADS_NCHAN_PUBLISH_URL`` (URL, default unset)
    The nchan publisher location, on loopback, e.g. ``http://127.0.0.1:8081/pub/``; the
    channel id is appended. Set: the publisher threads of this process POST every new
    version of every topic there (:class:`NchanPublishers`: :data:`PUBLISH_CONNECTIONS`
    shards of the topics, each a :class:`NchanPublisher` with its own connection). Unset:
    nothing is published.
``ROADS_PUSH_URL`` (URL or path prefix, default unset)
    Where pages subscribe, e.g. ``/push/`` (same host, ``ws://`` or ``wss://`` as the page)
    or ``wss://push.example.com/push/``. A table page then connects to
    ``<prefix>models/<digest>`` (its board model topic), the lobby's snapshot socket is
    ``<prefix>lobby``, and a page that misses a version fetches the current frame from
    ``<prefix>full/`` + the path of its topic's WebSocket route without ``/ws/``
    (``<prefix>full/models/tables/<id>?<the page's options>``, ``<prefix>full/tables/<id>``,
    ``<prefix>full/lobby``): nginx passes those to this service's :mod:`web.http.full_frames`
    routes through a one-second cache (:func:`web.push.topics.push_urls`). Unset: the
    service's own WebSocket routes (``/ws/tables/<id>``, ``/ws/lobby``, ``/ws/models/...``),
    where a reconnect is the resync.

Channels: topic ``table:T1`` is channel ``table:T1`` (every frame: deltas, the snapshot after
a new shoe or a gap, keepalives); the lobby and the model topics likewise. nchan keeps the
newest message of each channel (``nchan_message_buffer_length 1``) and gives it to each new
subscriber. Whole documents are not posted to nchan: a page that needs one (a gap) fetches
it from the service (above), so a round costs one post per channel, of a delta.

The publisher never blocks the feed's write path: :meth:`Hub.publish` calls
:meth:`NchanPublisher.offer`, which only records the topic's newest message; the thread
publishes the newest message of every topic that changed, so a slow nchan makes the
publisher skip versions (then the channel gets the snapshot frame, not a delta), never queue.

Several processes on the Redis store: each POST is first claimed through
:mod:`web.push.leases` (a lease per channel and the channel's last posted version in Redis),
so one process publishes each channel and nchan gets each version once, in version order.
"""

from __future__ import annotations

import http.client
import logging
import threading
import time
import zlib
from typing import Any
from urllib.parse import quote, urlsplit

from web.push.delta import diff
from web.push.frames import FrameCache, delta_text, epoch, keepalive_text
from web.push.hub import Hub, Message

log = logging.getLogger(__name__)

KEEPALIVE_S = 20.0
"""Seconds between keepalive frames on a channel whose topic publishes nothing (pages close
a connection silent for 75 s: ``static/js/push_socket.js``)."""

MIN_POST_INTERVAL_S = 0.2
"""Shortest time between two posts to one channel, in seconds: versions published faster
(the lobby changes with every table's write: 200 a second at 200 tables) go out as one
delta of the newest, at most 5 a second. A table's channels change once a round; only when
a feed sends two changes within 0.2 s (a state and a card) does the second wait up to
0.2 s. Each post costs the service about 0.35 ms of CPU (bench/bench_push.py)."""

RETRY_S = (0.05, 0.5)
"""Backoff after a failed POST or lease claim: first and longest wait, in seconds (doubling).
A retry is one loopback POST or one Redis call that fails at once while its peer is down, so
the cap is short: with 2 s, a publisher that backed off through a Redis outage waited up to
2 s more once Redis and nchan were back (deploy/lab.py ``redis-restart``)."""

TIMEOUT_S = 1.0
"""Connect and read timeout of a POST to nchan, in seconds. nchan answers a loopback POST in
well under a millisecond, even with Redis in between (a few ms), but a POST it takes while
reconnecting to a restarted Redis is never answered (nchan 1.3.6, measured in the lab's
``redis-restart``): each publisher stuck in one waited the whole timeout (5 s before) before
retrying. A POST that times out is retried as after any failure (the channel then gets the
snapshot frame: harmless if nchan did take the first one)."""


class NchanPublisher:
    """One thread that publishes the hub's messages to nchan (``ROADS_NCHAN_PUBLISH_URL``).

    :meth:`offer` (called by :meth:`web.push.hub.Hub.publish`, in the writer's thread) only swaps
    the topic's newest message into a dict and wakes the thread. The thread POSTs, for each
    topic with a new message, to channel ``<topic>`` the delta from the version it last
    published there (also when versions were skipped in between), or the snapshot frame after
    a new shoe or when the channel may hold something else (the first post, after a failure). Failed POSTs are retried with backoff (the newest message then, not each one);
    every idle channel gets a keepalive frame every :data:`KEEPALIVE_S`. Counters:
    ``posts``, ``failures``, ``skipped`` (versions never published because a newer one came).
    """

    def __init__(self, hub: Hub, frames: FrameCache, url: str, *, keepalive_s: float = KEEPALIVE_S,
                 gate: Any = None, shard: tuple[int, int] = (0, 1), listen: bool = True) -> None:
        self._shard = shard  # (i, n): this publisher posts the topics t with shard_of(t, n) == i
        parts = urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError(f"ROADS_NCHAN_PUBLISH_URL must be an http:// URL, got {url!r}")
        self.url = url
        self._host, self._port = parts.hostname, parts.port or 80
        self._path = parts.path if parts.path.endswith("/") else parts.path + "/"
        self.hub, self.frames, self.keepalive_s = hub, frames, keepalive_s
        self.gate = gate  # web.push.leases.ChannelLeases (several processes) or None
        self._unsent: dict[str, int] = {}  # channel -> version claimed whose POST has not succeeded
        self._cond = threading.Condition()
        self._pending: dict[str, Message] = {}
        self._deferred: dict[str, Message] = {}  # newest message of a topic posted too recently
        self._published: dict[str, Message] = {}  # topic -> the message the delta channel holds
        self._sent_at: dict[str, float] = {}
        self._stopped = False
        self._conn: http.client.HTTPConnection | None = None
        self.posts = self.failures = self.skipped = 0
        for topic in hub.topics():  # what was published before we started
            latest = hub.latest(topic)
            if latest is not None and self.posts_topic(topic):
                self._pending[topic] = latest
        if listen:  # (a shard of NchanPublishers: that routes each publish to its shard)
            hub.listen(self.offer)
        self._thread = threading.Thread(target=self._run, name=f"roads-nchan-publisher-{shard[0]}", daemon=True)
        self._thread.start()

    def held(self, topic: str) -> Message | None:
        """The message ``topic``'s channel holds from this publisher (its last post there), or
        ``None`` when it has posted nothing there (or another process publishes the channel)."""
        return self._published.get(topic)

    def posts_topic(self, topic: str) -> bool:
        """Whether ``topic``'s channels are this publisher's (its shard of the topics)."""
        i, n = self._shard
        return n == 1 or shard_of(topic, n) == i

    def offer(self, topic: str, message: Message) -> None:
        """Note ``message`` as ``topic``'s newest (O(1), never blocks on the network); only
        for this publisher's topics (:meth:`posts_topic`)."""
        with self._cond:
            if topic in self._pending or self._deferred.pop(topic, None) is not None:
                self.skipped += 1
            self._pending[topic] = message
            self._cond.notify()

    def idle(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s until nothing is left to publish; ``True`` if so (tests)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._cond:
                if not self._pending and not self._deferred and not self._busy:
                    return True
            time.sleep(0.01)
        return False

    _busy = False

    def close(self) -> None:
        """Stop the thread (within :data:`TIMEOUT_S`) and close the connection."""
        with self._cond:
            self._stopped = True
            self._cond.notify()
        self._thread.join(timeout=TIMEOUT_S + 1)

    # ------------------------------------------------------------------ the thread
    def _run(self) -> None:
        delay = RETRY_S[0]
        while True:
            with self._cond:
                self._busy = False
                self._cond.wait_for(lambda: self._stopped or self._pending, timeout=self._next_wake_in())
                if self._stopped:
                    break
                batch = self._due_batch(time.monotonic())
                self._busy = True
            try:
                for topic, message in batch.items():
                    self._publish(topic, message)
                    batch[topic] = None  # type: ignore[assignment]
                self._keepalives()
                delay = RETRY_S[0]
            except (OSError, http.client.HTTPException, _Refused) as exc:
                self.failures += 1
                self._drop_connection()
                with self._cond:  # retry what is left, unless a newer message came meanwhile
                    for topic, message in batch.items():
                        if message is not None:
                            self._pending.setdefault(topic, message)
                            self._published.pop(topic, None)  # the channel may have missed a version
                if self.failures in (1, 10, 100) or self.failures % 1000 == 0:
                    log.warning("nchan publish to %s failed (%s failures so far): %s", self.url, self.failures, exc)
                with self._cond:
                    self._cond.wait_for(lambda: self._stopped, timeout=delay)
                delay = min(delay * 2, RETRY_S[1])
        self._drop_connection()

    def _due_batch(self, now: float) -> dict[str, Message]:
        """The newest message of each topic whose channel may take a post now (caller holds
        ``_cond``); a topic posted less than :data:`MIN_POST_INTERVAL_S` ago waits in
        ``_deferred`` (a newer offer replaces it there)."""
        for topic, message in list(self._deferred.items()):
            if now - self._sent_at.get(topic, -MIN_POST_INTERVAL_S) >= MIN_POST_INTERVAL_S:
                del self._deferred[topic]
                self._pending.setdefault(topic, message)
        batch: dict[str, Message] = {}
        for topic, message in self._pending.items():
            if now - self._sent_at.get(topic, -MIN_POST_INTERVAL_S) >= MIN_POST_INTERVAL_S:
                batch[topic] = message
            else:
                self._deferred[topic] = message
        self._pending = {}
        return batch

    def _next_wake_in(self) -> float:
        now = time.monotonic()
        wake = min(self._sent_at.values()) + self.keepalive_s if self._sent_at else now + self.keepalive_s
        for topic in self._deferred:
            wake = min(wake, self._sent_at.get(topic, now) + MIN_POST_INTERVAL_S)
        return max(0.01, wake - now)

    def _publish(self, topic: str, message: Message) -> None:
        have = self._published.get(topic)
        if have is not None and have.version == message.version:
            return
        last = self._claim(topic, message.version)
        if last is None:  # another process publishes this channel (or already posted this version)
            self._published.pop(topic, None)
            self._sent_at.pop(topic, None)
            return
        if self.gate is not None and have is not None and last != have.version:
            have = None  # another process posted since: what the channel holds is not ours
        if have is None:
            body = self.frames.text_for(topic, message, None)
        elif have is not message.base and have.version != message.base_version:
            body = self._skip_delta(topic, have, message)  # versions were skipped in between
        else:
            body = self.frames.text_for(topic, message, have.version if have is not None else None)
        self._post(topic, body)
        self._published[topic] = message
        self._sent_at[topic] = time.monotonic()

    def _skip_delta(self, topic: str, have: Message, message: Message) -> bytes:
        """The frame from ``have`` (what the channel holds) to ``message`` when versions in
        between were never published: a delta of the two documents, or the snapshot frame."""
        if epoch(have) == epoch(message):
            ops = diff(have.document, message.document)
            text = delta_text(topic, message, ops, base=have.version)
            if len(text) < len(message.payload):
                return text
        return self.frames.text_for(topic, message, None)

    def _keepalives(self) -> None:
        now = time.monotonic()
        for topic, at in list(self._sent_at.items()):
            if now - at >= self.keepalive_s:
                held = self._published.get(topic)
                if held is not None and self._claim(topic, None) is None:
                    self._published.pop(topic, None)
                    self._sent_at.pop(topic, None)
                    continue
                if held is not None:
                    self._post(topic, keepalive_text(topic, held.version))
                self._sent_at[topic] = now

    def _claim(self, channel: str, version: int | None) -> int | None:
        """:meth:`web.push.leases.ChannelLeases.claim` (-1 without a gate: one process)."""
        if self.gate is None:
            return -1
        last = self.gate.claim(channel, version, retry=version is not None and self._unsent.get(channel) == version)
        if last is not None and version is not None:
            self._unsent[channel] = version  # until its POST succeeds (_post)
        return last

    def _post(self, channel: str, body: bytes) -> None:
        if self._conn is None:
            self._conn = http.client.HTTPConnection(self._host, self._port, timeout=TIMEOUT_S)
        self._conn.request("POST", self._path + quote(channel, safe=":"), body=body,
                           headers={"Content-Type": "application/json", "Accept": "text/json"})
        resp = self._conn.getresponse()
        resp.read()
        self.posts += 1
        if resp.status not in (200, 201, 202):
            raise _Refused(f"nchan answered {resp.status} for channel {channel!r}")
        self._unsent.pop(channel, None)

    def _drop_connection(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            finally:
                self._conn = None


PUBLISH_CONNECTIONS = 4
"""Publishers (threads, each with its own keep-alive connection to nchan) of one process;
each posts a fixed share of the topics, so a channel's versions still go in order through
one connection while the round trips of different channels overlap (a round at 200 tables
posts several channels: one connection, waiting for each answer, fell seconds behind)."""


def shard_of(topic: str, shards: int) -> int:
    """Which of ``shards`` publishers posts ``topic``'s channels (the same in every process)."""
    return zlib.crc32(topic.encode()) % shards


class NchanPublishers:
    """:data:`PUBLISH_CONNECTIONS` :class:`NchanPublisher` shards of one app, as one
    (:attr:`web.push.wing.PushWing.nchan`): the same arguments, summed counters. One hub
    listener hands each publish to the shard of its topic."""

    def __init__(self, hub: Hub, frames: FrameCache, url: str, *, connections: int = PUBLISH_CONNECTIONS,
                 keepalive_s: float = KEEPALIVE_S, gate: Any = None) -> None:
        self.url = url
        self.shards = [NchanPublisher(hub, frames, url, keepalive_s=keepalive_s, gate=gate, shard=(i, connections),
                                      listen=False) for i in range(connections)]
        hub.listen(self.offer)

    def held(self, topic: str) -> Message | None:
        """:meth:`NchanPublisher.held` of the shard that posts ``topic``: what a page that
        missed a version must start from (:mod:`web.http.full_frames`)."""
        return self.shards[shard_of(topic, len(self.shards))].held(topic)

    def offer(self, topic: str, message: Message) -> None:
        """:meth:`NchanPublisher.offer` of the shard that posts ``topic``."""
        self.shards[shard_of(topic, len(self.shards))].offer(topic, message)

    @property
    def posts(self) -> int:
        """POSTs that nchan accepted, over all shards."""
        return sum(p.posts for p in self.shards)

    @property
    def failures(self) -> int:
        """Failed POSTs (each retried), over all shards."""
        return sum(p.failures for p in self.shards)

    @property
    def skipped(self) -> int:
        """Versions never posted because a newer one came first, over all shards."""
        return sum(p.skipped for p in self.shards)

    def idle(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s until no shard has anything left to publish (tests)."""
        deadline = time.monotonic() + timeout
        return all(p.idle(max(0.0, deadline - time.monotonic())) for p in self.shards)

    def close(self) -> None:
        """Stop every shard's thread."""
        for p in self.shards:
            p.close()


class _Refused(Exception):
    """nchan answered a POST with an error status."""
