"""Latest-only fan-out of snapshots to live clients (WebSocket pushers).

Each topic (a table id, or ``"lobby"``) keeps only its newest message. A subscriber waits
for a version newer than the one it has seen and gets the newest message, never a queue:
a slow or dead client skips intermediate versions and never holds up the publisher or
the other clients (latest-only per client; docs/frontend.md "Live updates").
"""

from __future__ import annotations

import threading
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Message:
    """One published message: ``version`` (per topic, increasing) and the encoded ``payload``."""

    version: int
    payload: bytes


class Hub:
    """Topics of latest messages with blocking, timeout-bounded waits. Thread-safe."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._latest: dict[str, Message] = {}

    def publish(self, topic: str, version: int, payload: bytes) -> None:
        """Replace ``topic``'s latest message and wake every waiter. O(1), never blocks on clients."""
        with self._cond:
            self._latest[topic] = Message(version, payload)
            self._cond.notify_all()

    def latest(self, topic: str) -> Message | None:
        """The newest message on ``topic``, or ``None`` if nothing was published yet."""
        with self._cond:
            return self._latest.get(topic)

    def wait(self, topic: str, after_version: int, timeout: float) -> Message | None:
        """Block up to ``timeout`` seconds for a message on ``topic`` other than ``after_version``.

        Returns the newest message (which may be several versions ahead; or lower, after a
        new shoe resets a counter) or ``None`` on timeout.
        """
        with self._cond:
            ok = self._cond.wait_for(
                lambda: (m := self._latest.get(topic)) is not None and m.version != after_version,
                timeout=timeout,
            )
            return self._latest.get(topic) if ok else None
