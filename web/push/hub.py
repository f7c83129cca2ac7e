"""The hub: the latest message of each topic, and waits for a newer one (snapshots, lobby, page models).

Each topic (:mod:`web.push.topics`) keeps only its newest message. A subscriber
waits for a version newer than the one it has seen and gets the newest message, never a
queue: a slow or dead client skips intermediate versions and never holds up the publisher
or the other clients ("latest-only per client; slow clients skip", ``docs/frontend.md``).

Every topic has its own condition variable, so a publish wakes only the waiters of its own
topic: with 200 tables, one round wakes the one fan-out thread of that table, not 200.
Publishing is O(1) in the number of topics and of waiters elsewhere.

A message knows the JSON-able ``document`` its ``payload`` encodes (given by the publisher,
or decoded once on demand), its ``epoch`` (for a table: the shoe) and the topic's previous
message (``base``), so the frame builder (:mod:`web.push.frames`) can send a client that holds
the previous version only what changed (:mod:`web.push.delta`).
"""

from __future__ import annotations

import threading
from typing import Any, Callable

import orjson


class Message:
    """One published message of a topic. Immutable once published (as seen from outside).

    ``version`` (int, per topic, increasing), :attr:`payload` (UTF-8 JSON bytes; the publisher
    may give a zero-argument function instead, called once when the bytes are first needed),
    ``epoch`` (deltas exist only between messages of one epoch; ``None``: see
    :mod:`web.push.frames`), :attr:`document`, the object ``payload`` encodes (given by the
    publisher, or decoded from ``payload`` once, when first asked for) and ``ops``, the
    :mod:`web.push.delta` operations from the previous message's document to this one when the
    publisher knows them (else ``None``: the frame builder diffs the documents; a zero-argument
    function giving them is called once, when they are first needed). :attr:`base`
    is the topic's previous message (``None`` for the first one, and once two newer messages
    exist: the hub keeps at most three messages of a topic alive). Two messages are equal
    when their version and payload are.
    """

    __slots__ = ("version", "_payload", "epoch", "base", "_ops", "_document")

    def __init__(self, version: int, payload: "bytes | Callable[[], bytes]", document: Any = None,
                 epoch: Any = None, base: "Message | None" = None,
                 ops: "list | Callable[[], list] | None" = None) -> None:
        self.version = version
        self._payload = payload
        self.epoch = epoch
        self.base = base
        self._ops = ops if base is not None else None
        self._document = document

    @property
    def ops(self) -> list | None:
        """The operations from the base's document to this one, when the publisher gave them
        (a function given is called at most once, when first asked for), else ``None``."""
        ops = self._ops
        if ops is not None and not isinstance(ops, list):
            ops = self._ops = ops()
        return ops

    @property
    def payload(self) -> bytes:
        """The message's JSON bytes (built at most once when the publisher gave a function)."""
        payload = self._payload
        if not isinstance(payload, bytes):
            payload = self._payload = payload()
        return payload

    @property
    def document(self) -> Any:
        """The JSON-able object of ``payload`` (decoded at most once; do not mutate it)."""
        doc = self._document
        if doc is None:
            doc = self._document = orjson.loads(self.payload)
        return doc

    @property
    def base_version(self) -> int | None:
        """The previous message's version, or ``None`` (see :attr:`base`)."""
        base = self.base
        return base.version if base is not None else None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Message):
            return NotImplemented
        return self.version == other.version and self.payload == other.payload

    def __hash__(self) -> int:
        return hash((self.version, self.payload))

    def __repr__(self) -> str:
        return f"Message(version={self.version}, base={self.base_version})"


class _Topic:
    __slots__ = ("cond", "latest")

    def __init__(self) -> None:
        self.cond = threading.Condition(threading.Lock())
        self.latest: Message | None = None


class Hub:
    """Topics of latest messages with blocking, timeout-bounded waits. Thread-safe.

    One condition per topic; a topic's state is created on first use and lives as long as
    the hub (topics are bounded by the tables plus the lobby).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._topics: dict[str, _Topic] = {}
        self._listeners: list[Any] = []

    def _topic(self, topic: str) -> _Topic:
        t = self._topics.get(topic)
        if t is None:
            with self._lock:
                t = self._topics.setdefault(topic, _Topic())
        return t

    def publish(self, topic: str, version: int, payload: "bytes | Callable[[], bytes]", document: Any = None,
                epoch: Any = None, ops: "list | Callable[[], list] | None" = None) -> Message:
        """Replace ``topic``'s latest message and wake that topic's waiters (no other topic's).

        ``document``/``epoch``/``ops`` (``ops`` from the topic's current latest message): see
        :class:`Message`. O(1); never blocks on clients. Every
        listener added with :meth:`listen` is then called with ``(topic, message)`` in this
        thread: listeners must return at once (hand work to their own thread). Returns the
        new message.
        """
        t = self._topic(topic)
        with t.cond:
            previous = t.latest
            if previous is not None and previous.base is not None:
                previous.base.base = None  # keep at most three messages of the topic alive
            message = Message(version, payload, document, epoch, previous, ops)
            t.latest = message
            t.cond.notify_all()
        for listener in self._listeners:
            listener(topic, message)
        return message

    def listen(self, listener: Any) -> None:
        """Call ``listener(topic, message)`` after every publish (the nchan publisher, :mod:`web.push.nchan`)."""
        with self._lock:
            self._listeners = [*self._listeners, listener]

    def latest(self, topic: str) -> Message | None:
        """The newest message on ``topic``, or ``None`` if nothing was published yet."""
        t = self._topics.get(topic)
        return t.latest if t is not None else None

    def latest_or(self, topic: str, initial: Callable[[], tuple[int, bytes]]) -> Message:
        """:meth:`latest`, or, when ``topic`` has published nothing yet, a message (not
        published) of ``initial()``'s ``(version, payload)``."""
        message = self.latest(topic)
        return message if message is not None else Message(*initial())

    def topics(self) -> list[str]:
        """Every topic published so far (any order)."""
        with self._lock:
            return [name for name, t in self._topics.items() if t.latest is not None]

    def wait(self, topic: str, after_version: int | None, timeout: float) -> Message | None:
        """Block up to ``timeout`` seconds for a message on ``topic`` other than ``after_version``.

        Returns the newest message (which may be several versions ahead; or lower, after a
        new shoe resets a counter) or ``None`` on timeout. Only a publish on ``topic`` wakes it.
        """
        t = self._topic(topic)
        with t.cond:
            ok = t.cond.wait_for(lambda: t.latest is not None and t.latest.version != after_version, timeout=timeout)
            return t.latest if ok else None
