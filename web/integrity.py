"""Integrity flags of the service: the feed writes refused as exact impossibilities
(:mod:`roads.integrity`), kept in memory (the newest :data:`KEPT`) and logged at WARNING as they
happen. Flask-free; the HTTP side records them (``web.http.integrity_api``)."""

from __future__ import annotations

import logging
import threading
from collections import deque
from typing import Any, Mapping

log = logging.getLogger(__name__)

KEPT = 1000
"""Flags kept (the oldest go first); every flag is in the log."""


class IntegrityFlags:
    """The newest :data:`KEPT` flags, thread-safe."""

    def __init__(self, kept: int = KEPT) -> None:
        self._flags: deque[dict[str, Any]] = deque(maxlen=kept)
        self._lock = threading.Lock()

    def add(self, flag: Mapping[str, Any]) -> None:
        """Keep and log one flag (:func:`roads.integrity.flag` shape)."""
        with self._lock:
            self._flags.append(dict(flag))
        log.warning("integrity flag: table %r shoe %s round %s: %s (%s)", flag["table"], flag["shoe"], flag["round"],
                    flag["what"], flag["message"])

    def list(self, *, table: str | None = None, start: float | None = None, end: float | None = None) -> list[dict[str, Any]]:
        """Flags newest first, of ``table`` (``None``: every table), at times in ``[start, end)``."""
        with self._lock:
            flags = list(self._flags)
        return [f for f in reversed(flags) if (table is None or f["table"] == table)
                and (start is None or f["at"] >= start) and (end is None or f["at"] < end)]
