"""One publisher per nchan channel when several processes share the Redis store (docs/deploy.md).

Every process of a deployment applies every event (the Redis store's follower), so every
process has every table's frames; without this gate each would POST them to nchan, and a
lagging process could post an older version after a newer one. Before each POST the
publisher (:class:`web.push.nchan.NchanPublisher`) asks :meth:`ChannelLeases.claim`, one Redis
script call (:data:`CLAIM_SCRIPT`, atomic in Redis) that:

1. takes the channel's lease if nobody holds it (``SET NX PX``), or renews it if this process
   holds it, else refuses (another process publishes that channel);
2. refuses a version not newer than the last one posted to the channel by any process, and
   otherwise records it.

So each channel has one publisher at a time, and nchan never receives a version of a channel
at or below one it already received. A process that stops publishing (it died, or a table
it published went quiet) loses the lease after :data:`LEASE_MS`; the next process that has a
newer version takes it. A POST starts right after its claim renewed the lease, so it runs
while the lease is still held unless it takes longer than :data:`LEASE_MS` (nchan answers a
loopback POST in well under a millisecond; :data:`web.push.nchan.TIMEOUT_S` is 1 s).

Keys (``P`` = ``ROADS_REDIS_PREFIX``): ``P + "nchan:lease:<channel>"`` (string: the holder's
id, expiring), ``P + "nchan:posted"`` (hash: channel -> last version posted). Keepalives
(``version`` ``None``) only renew a lease this process holds.
"""

from __future__ import annotations

import os
import socket
import uuid
from typing import Any

LEASE_MS = 10_000
"""How long a channel's lease lasts without a publish or keepalive from its holder (ms)."""

CLAIM_SCRIPT = """
local lease, posted = KEYS[1], KEYS[2]
local me, ms, channel, version, retry = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4], ARGV[5]
local holder = redis.call('GET', lease)
if holder == false then
  if version == '' then return 0 end
  redis.call('SET', lease, me, 'PX', ms)
elseif holder == me then
  redis.call('PEXPIRE', lease, ms)
else
  return 0
end
if version == '' then return 1 end
local last = tonumber(redis.call('HGET', posted, channel) or '-1')
if tonumber(version) < last or (tonumber(version) == last and not (retry == '1' and holder == me)) then return -1 end
redis.call('HSET', posted, channel, version)
return {1, last}
"""
"""KEYS: lease key, posted hash; ARGV: holder id, lease ms, channel, version ('' = keepalive),
retry ('1': this holder claimed this version and its POST failed: it may claim it again).
Returns ``{1, last}`` (post it; ``last``: the version posted to the channel before, -1 none),
1 (a keepalive: post it), 0 (another process holds the channel) or -1 (not newer than posted)."""


class ChannelLeases:
    """The gate of one process (``db``: a ``redis.Redis`` with ``decode_responses``).

    Counters: ``refused`` (another holder), ``stale`` (version not newer than posted).
    A Redis failure (one of ``errors``) raises :class:`LeaseUnavailable`: the publisher
    retries as after a failed POST.
    """

    def __init__(self, db: Any, prefix: str, *, lease_ms: int = LEASE_MS, errors: tuple = ()) -> None:
        self.db, self.prefix, self.lease_ms, self.errors = db, prefix, lease_ms, errors
        self.me = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._script = db.register_script(CLAIM_SCRIPT)
        self._posted = prefix + "nchan:posted"
        self.refused = self.stale = 0

    def claim(self, channel: str, version: int | None, retry: bool = False) -> int | None:
        """May this process POST ``version`` of ``channel`` now? ``None``: no. Else the version
        the channel got last from any process (-1: none; for a keepalive, ``version`` ``None``,
        allowed only to the current holder: -1). ``retry``: this process claimed ``version``
        before and its POST failed (allowed again while it still holds the lease)."""
        try:
            result = self._script(keys=[self.prefix + "nchan:lease:" + channel, self._posted],
                                  args=[self.me, self.lease_ms, channel, "" if version is None else int(version),
                                        "1" if retry else "0"])
        except self.errors as exc:
            raise LeaseUnavailable(f"Redis cannot grant the lease of {channel!r}: {exc}") from None
        if isinstance(result, list):
            return int(result[1])
        if result == 1:
            return -1
        if result == 0:
            self.refused += 1
        else:
            self.stale += 1
        return None


class LeaseUnavailable(OSError):
    """Redis could not be asked for a channel's lease (the POST waits and is retried)."""


def for_store(store: Any) -> ChannelLeases | None:
    """The gate for a Redis store (:class:`web.stores.redis.RedisStore`), ``None`` for any other
    store (one process: nothing to share)."""
    db = getattr(store, "db", None)
    prefix = getattr(store, "prefix", None)
    if db is None or prefix is None:
        return None
    return ChannelLeases(db, prefix, errors=tuple(getattr(store, "db_errors", ())))
