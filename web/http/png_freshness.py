"""Caching headers of the PNG boards for image-only players (docs/signage.md): ``Last-Modified``
with ``If-Modified-Since`` answered by a 304 (players that keep dates, not ETags), and a
``max-age`` no longer than the next change the service can foresee.

``Last-Modified`` is when this process first served the image's current drawing (its ETag), per
image (its identity: the table, image and options of the URL, without what changes with the
drawing), never earlier than the previous
drawing's date plus one second: the dates of one image only grow, so a player holding an older
drawing always has an older date and gets the new one. A process started later dates its
first answer later (a 200 where a 304 would have done, never the reverse); behind several
processes the ETag, the same in every one, is the reliable validator (nginx's cache in front
answers with one date).

Changes the service foresees (:func:`seconds_until`): a betting close time ("Bets closed"), and
the moment a silent feed becomes stale (the image then says "No new result since"); a new round
may come any time, which the ``ROADS_PNG_MAX_AGE_S`` setting already bounds.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Hashable, Iterable
from email.utils import formatdate

from werkzeug.datastructures import ETags


class Freshness:
    """``identity -> (etag, Last-Modified in Unix seconds)`` of the images served, the newest
    ``max_entries`` (least recently used dropped). Thread-safe."""

    def __init__(self, max_entries: int = 4096) -> None:
        self.max_entries = max(1, int(max_entries))
        self._seen: "OrderedDict[Hashable, tuple[str, int]]" = OrderedDict()
        self._lock = threading.Lock()

    def last_modified(self, identity: Hashable, etag: str, now: float | None = None) -> int:
        """The ``Last-Modified`` (whole Unix seconds) of drawing ``etag`` of image ``identity``."""
        now = time.time() if now is None else now
        with self._lock:
            seen = self._seen.get(identity)
            if seen is not None and seen[0] == etag:
                self._seen.move_to_end(identity)
                return seen[1]
            stamp = int(math.floor(now))
            if seen is not None:
                stamp = max(stamp, seen[1] + 1)
            self._seen[identity] = (etag, stamp)
            self._seen.move_to_end(identity)
            while len(self._seen) > self.max_entries:
                self._seen.popitem(last=False)
            return stamp


def http_date(stamp: float) -> str:
    """``stamp`` (Unix seconds) as an HTTP date (RFC 9110, GMT)."""
    return formatdate(stamp, usegmt=True)


def not_modified(etag: str, stamp: int, if_none_match: ETags | None, if_modified_since) -> bool:
    """Whether a conditional GET may be answered 304: ``If-None-Match`` decides when it is sent
    (RFC 9110 13.2.2), else ``If-Modified-Since`` at or after ``stamp``."""
    if if_none_match:
        return if_none_match.contains(etag)
    if if_modified_since is not None:
        return if_modified_since.timestamp() >= stamp
    return False


def seconds_until(times: Iterable[float | None], now: float) -> int | None:
    """Whole seconds until the first of ``times`` still ahead (at least 1), ``None`` if none is."""
    ahead = [t - now for t in times if t is not None and t > now]
    return max(1, math.ceil(min(ahead))) if ahead else None
