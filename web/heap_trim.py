"""Giving freed memory back to the system.

glibc keeps the pages of freed blocks inside its arenas (one per thread that allocated, up to 8 a
core). A service that paints images of many sizes on request threads leaves free pages scattered
through them, and the process's RSS grew while the memory in use stayed flat (20 tables in one
process, 30 minutes: in use +0.4 MB a minute, free inside the arenas +2 MB a minute;
``bench/soak_history.py``, docs/history.md "Memory"). ``malloc_trim(0)`` hands every whole free
page of every arena back (``madvise``), a few milliseconds for a heap of ~100 MB. The service calls
:meth:`HeapTrim.maybe` on its maintenance thread after each pass (a shoe closed somewhere), at most
once per :data:`TRIM_INTERVAL_S`. Without glibc (musl, macOS) it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)

TRIM_INTERVAL_S = 60.0
"""Seconds between two trims at least."""


def _malloc_trim() -> Callable[[int], int] | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        fn = libc.malloc_trim
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_size_t]
    fn.restype = ctypes.c_int
    return fn


class HeapTrim:
    """Rate-limited ``malloc_trim(0)``; thread-safe. ``clock``: seconds (monotonic)."""

    def __init__(self, interval_s: float = TRIM_INTERVAL_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.interval_s = interval_s
        self.clock = clock
        self.trims = 0
        """Trims done so far."""
        self._fn = _malloc_trim()
        self._last: float | None = None
        self._lock = threading.Lock()

    @property
    def available(self) -> bool:
        """Whether the C library has ``malloc_trim`` (glibc)."""
        return self._fn is not None

    def maybe(self, *_: object) -> bool:
        """Trim now unless the last trim was under :attr:`interval_s` ago (or there is no
        ``malloc_trim``); True when it trimmed. Takes and ignores any arguments (a maintenance task)."""
        if self._fn is None:
            return False
        now = self.clock()
        with self._lock:
            if self._last is not None and now - self._last < self.interval_s:
                return False
            self._last = now
        self._fn(0)
        self.trims += 1
        return True
