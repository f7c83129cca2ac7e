"""The Redis store: every process of a deployment shares one event log in Redis (docs/deploy.md).

Selected by ``ROADS_REDIS_URL`` (:func:`web.stores.open_store`); implements :class:`web.stores.Store`,
so the service is the same with SQLite or Redis. The Redis log is the source of truth: a
process keeps only what it rebuilt from the log, and a new or restarted process rebuilds
every table from it, version for version.

Keys (``P`` = ``ROADS_REDIS_PREFIX``, default ``"roads:"``; table ids are slugs without ``:``):

``P + "t:<table>:events"`` (stream)
    The table's events, entry id ``"<seq>-0"`` so entries are addressed by ``seq``; fields
    ``e`` (the event as JSON, :meth:`web.stores.Event.to_json`) and ``w`` (the write token
    of the append that stored it). Never trimmed: this is the round log.
``P + "t:<table>:rounds"`` (hash)
    ``"<shoe>:<round>"`` -> ``seq`` of the ``"round"`` event that recorded that round.
``P + "heads"`` (hash)
    ``<table>`` -> the table's last ``seq`` (its version). Lists the tables, so the append
    script counts them for ``ROADS_MAX_TABLES`` across every process.
``P + "log"`` (stream)
    Every event of every table in commit order (field ``e``; field ``p``: the id of the
    entry before it, so a follower notices entries it never saw), trimmed to about
    :data:`LOG_MAXLEN` entries: what processes follow to learn about each other's writes.

Writes: :meth:`RedisStore.append` runs one Lua script (:data:`APPEND_SCRIPT`; Redis runs a
script atomically), which stores the event only when ``seq`` is the table's head + 1 and, for a
round, when ``(shoe, round)`` has no round yet; so two processes appending at once, the
same round or two rounds under one number, end with exactly one stored event, and the
other gets :class:`web.stores.SeqTaken` (the service then catches up with
:meth:`RedisStore.events_after`, validates again: an identical round is a no-op success,
a different one a 409). The first event of a new table is refused
(:class:`web.stores.TableLimitReached`) when the tables in ``heads``, with the configured ones
(``ROADS_TABLES``) not in it yet, are already ``ROADS_MAX_TABLES``: the check and the add are one
script, so the limit holds for all processes together. A lost reply (Redis reached,
connection dropped before the answer) is retried with the same write token, and a retry that finds its own token stored counts as
success, so a retried append is never stored twice.

Following: :meth:`RedisStore.start` runs a daemon thread that ``XREAD``\\ s the log and hands
each event to the service (events this process wrote come back too; the service ignores
versions it already has). When Redis is unreachable, appends raise
:class:`web.stores.StoreUnavailable` (the service answers 503; nothing is acknowledged),
reads keep serving the last state in memory, and the thread retries with exponential
backoff (:data:`BACKOFF_MIN_S` .. :data:`BACKOFF_MAX_S`), then catches up by itself: it
compares every table's head with what it has delivered and delivers the missing events.

Durability: an append returns once Redis has executed the script. Whether that survives a
crash of Redis itself is Redis's persistence setting: run it with ``appendonly yes`` and
``appendfsync always`` so an acknowledged round is on disk before the 2xx (docs/deploy.md).
A Redis that lost events a process has applied (restarted without persistence) is detected
on the next write of that table and refused with :class:`StoreDiverged` (503).

Settings: ``ROADS_REDIS_URL`` (the server; set = this store instead of SQLite),
``ROADS_REDIS_PREFIX`` and ``ROADS_REDIS_TIMEOUT_S`` (fields ``redis_*`` of
:class:`web.settings.Settings`, with their defaults and ranges); ``ROADS_MAX_TABLES`` and
``ROADS_TABLES`` for the table count (every process must be given the same).

Redis Cluster is not supported (the append script touches keys of several tables' slots);
use one Redis server, with a replica and Sentinel for failover.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from typing import Any, Callable, Iterator, Mapping

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from web.settings import ConfigError, Settings
from web.stores import Event, SeqTaken, Store, StoreUnavailable, TableLimitReached

log = logging.getLogger(__name__)

LOG_MAXLEN = 100_000
"""Approximate length the shared log stream is trimmed to (entries). A process that falls
further behind than this (a long outage) catches up from the tables' own streams instead."""

FOLLOW_BLOCK_MS = 500
"""How long one ``XREAD`` of the follower thread blocks, milliseconds; also bounds how long
:meth:`RedisStore.close` waits for the thread."""

FOLLOW_BATCH = 512
"""Log entries read per ``XREAD``."""

RANGE_BATCH = 1000
"""Events read per ``XRANGE`` when loading or catching up a table."""

APPEND_ATTEMPTS = 3
"""Tries of one append when the connection fails (a pooled connection to a restarted Redis
fails once before reconnecting); each retry reuses the write token, so it is safe."""

BACKOFF_MIN_S = 0.05
"""First wait of the follower thread after losing Redis, seconds; doubles per failure."""

BACKOFF_MAX_S = 2.0
"""Longest wait between the follower thread's reconnection attempts, seconds."""

_CONNECTION_ERRORS = (redis.ConnectionError, redis.TimeoutError, OSError)

APPEND_SCRIPT = """
-- KEYS: heads, table events stream, table rounds hash, shared log stream
-- ARGV: table, seq, round key ("<shoe>:<round>" or ""), event JSON, write token, log maxlen,
--       most tables, configured table ids...
local head = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
local seq = tonumber(ARGV[2])
if seq <= head then
  local token = ''
  local stored = redis.call('XRANGE', KEYS[2], ARGV[2] .. '-0', ARGV[2] .. '-0')
  if stored[1] then
    local f = stored[1][2]
    for i = 1, #f, 2 do
      if f[i] == 'w' then token = f[i + 1] end
    end
  end
  return {'seq_taken', head, token}
end
if seq > head + 1 then
  return {'gap', head, ''}
end
if head == 0 then
  local count = redis.call('HLEN', KEYS[1])
  local configured = false
  for i = 8, #ARGV do
    if ARGV[i] == ARGV[1] then
      configured = true
    elseif redis.call('HEXISTS', KEYS[1], ARGV[i]) == 0 then
      count = count + 1
    end
  end
  if not configured and count >= tonumber(ARGV[7]) then
    return {'too_many_tables', count, ''}
  end
end
if ARGV[3] ~= '' then
  local other = redis.call('HGET', KEYS[3], ARGV[3])
  if other then
    return {'round_taken', tonumber(other), ''}
  end
  redis.call('HSET', KEYS[3], ARGV[3], ARGV[2])
end
redis.call('XADD', KEYS[2], ARGV[2] .. '-0', 'e', ARGV[4], 'w', ARGV[5])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
local last = redis.call('XREVRANGE', KEYS[4], '+', '-', 'COUNT', 1)
local prev = '0-0'
if last[1] then prev = last[1][1] end
redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[6], '*', 'e', ARGV[4], 'p', prev)
return {'ok', seq, ''}
"""
"""The conditional write of :meth:`RedisStore.append` (atomic: Redis runs one script at a
time). Replies ``{status, number, token}``: ``ok``; ``seq_taken`` (``number`` = the table's
head, ``token`` = the write token stored under that seq); ``gap`` (``seq`` is beyond head + 1:
Redis lost events); ``round_taken`` (``number`` = the seq holding that shoe's round);
``too_many_tables`` (``number`` = the tables counted: a new table's first event past the limit)."""


class StoreDiverged(StoreUnavailable):
    """Redis holds fewer events of a table than this process has applied (Redis lost data,
    e.g. restarted without persistence). Nothing was written; the service answers 503.
    Restart the processes once Redis's data is restored (or accepted as it is)."""


def _event_json(event: Event) -> str:
    return json.dumps(event.to_json(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _id_tuple(entry_id: str) -> tuple[int, int]:
    ms, _, n = entry_id.partition("-")
    return int(ms), int(n or 0)


class RedisStore(Store):
    """Events of every table in Redis Streams, shared by every process (see module doc).

    ``url``: ``ROADS_REDIS_URL``. ``settings``: a :class:`web.settings.Settings` (its
    ``redis_prefix``, ``redis_timeout_s``, and ``max_tables`` with the ``tables`` it counts), or
    a mapping of ``ROADS_*`` overrides validated over the environment
    (:meth:`web.settings.Settings.load`). Connects lazily: construction does no I/O. Raises :class:`web.settings.ConfigError` for a URL redis-py cannot parse, an
    empty or spaced prefix, or a timeout that is not a positive number.
    """

    shared = True
    """Every process of the deployment appends here (:attr:`web.stores.Store.shared`)."""

    def __init__(self, url: str, settings: Settings | Mapping[str, Any] | None = None) -> None:
        if not isinstance(settings, Settings):
            settings = Settings.load(settings)
        self._setup(url, prefix=settings.redis_prefix, timeout_s=settings.redis_timeout_s,
                    max_tables=settings.max_tables, tables=tuple(settings.tables or ()))

    def _setup(self, url: str, *, prefix: str, timeout_s: float, max_tables: int, tables: tuple[str, ...]) -> None:
        """The store from plain values (what :meth:`__init__` reads from the settings); no I/O.
        Raises :class:`web.settings.ConfigError` for a URL redis-py cannot parse."""
        self.prefix = prefix
        self.timeout_s = timeout_s
        self.max_tables = max_tables
        self._configured = tables
        self.url = url
        common = dict(decode_responses=True, socket_connect_timeout=self.timeout_s,
                      retry=Retry(NoBackoff(), 0), health_check_interval=0)
        try:
            self._db = redis.Redis.from_url(url, socket_timeout=self.timeout_s, **common)
            # The follower blocks in XREAD for FOLLOW_BLOCK_MS, so its socket waits longer.
            self._follow_db = redis.Redis.from_url(
                url, socket_timeout=self.timeout_s + FOLLOW_BLOCK_MS / 1000, **common)
        except ValueError as e:
            raise ConfigError(f"ROADS_REDIS_URL {url!r} is not a Redis URL: {e}") from None
        self._append_script = self._db.register_script(APPEND_SCRIPT)
        self._heads_key = self.prefix + "heads"
        self._log_key = self.prefix + "log"
        self._seen: dict[str, int] = {}
        """Highest seq per table that this process stored, loaded or delivered."""
        self._seen_lock = threading.Lock()
        self._log_id: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._on_event: Callable[[Event], None] | None = None
        self.connected = True
        """False while the follower thread cannot reach Redis (for health reporting)."""

    @property
    def db(self) -> redis.Redis:
        """The client of this store's Redis (``decode_responses``; for :mod:`web.push_lease`)."""
        return self._db

    db_errors = (redis.RedisError,)
    """What calls on :attr:`db` raise when Redis fails (for :mod:`web.push_lease`)."""

    def __repr__(self) -> str:
        return f"RedisStore({self._safe_url()!r}, prefix={self.prefix!r})"

    def _safe_url(self) -> str:
        kw = self._db.connection_pool.connection_kwargs
        if "path" in kw:
            return f"unix://{kw['path']}"
        return f"redis://{kw.get('host')}:{kw.get('port')}/{kw.get('db', 0)}"

    # ------------------------------------------------------------------ keys
    def _events_key(self, table: str) -> str:
        return f"{self.prefix}t:{table}:events"

    def _rounds_key(self, table: str) -> str:
        return f"{self.prefix}t:{table}:rounds"

    def _unavailable(self, what: str, err: BaseException) -> StoreUnavailable:
        return StoreUnavailable(f"the Redis store cannot be reached while {what}",
                                detail=f"Redis at {self._safe_url()}: {err}")

    def _note_seen(self, table: str, seq: int) -> None:
        with self._seen_lock:
            if seq > self._seen.get(table, 0):
                self._seen[table] = seq

    # ------------------------------------------------------------------ Store
    def load(self) -> Iterator[Event]:
        """Every stored event, tables in id order, each in ``seq`` order (read eagerly).

        Also marks where in the shared log the follower thread starts, so nothing appended
        during or after the load is missed. Raises :class:`StoreUnavailable` when Redis
        cannot be reached.
        """
        try:
            tail = self._db.xrevrange(self._log_key, count=1)
            heads = self._db.hgetall(self._heads_key)
            events: list[Event] = []
            for table in sorted(heads):
                events += self._range(self._db, table, 0)
        except _CONNECTION_ERRORS as e:
            raise self._unavailable("loading the event log", e) from None
        self._log_id = tail[0][0] if tail else "0-0"
        for ev in events:
            self._note_seen(ev.table, ev.seq)
        return iter(events)

    def append(self, event: Event) -> None:
        """Store ``event`` if ``seq`` is the table's next and (for a round) its round number is
        free and (for a new table) the tables are fewer than ``ROADS_MAX_TABLES``; atomic across
        processes. Raises :class:`SeqTaken` (another writer was first), :class:`TableLimitReached`,
        :class:`StoreDiverged` (Redis lost events) or :class:`StoreUnavailable` (unreachable
        after :data:`APPEND_ATTEMPTS` tries); nothing new is stored when it raises, except
        that a write whose reply was lost on every try may have been stored (the follower
        then delivers it, and the feed's retry of it is a no-op success)."""
        self._append(event, uuid.uuid4().hex)

    def _append(self, event: Event, token: str) -> None:
        round_key = f"{event.shoe}:{event.round}" if event.kind == "round" else ""
        keys = [self._heads_key, self._events_key(event.table), self._rounds_key(event.table), self._log_key]
        args = [event.table, event.seq, round_key, _event_json(event), token, LOG_MAXLEN, self.max_tables,
                *self._configured]
        deadline = time.monotonic() + 2 * self.timeout_s
        for attempt in range(APPEND_ATTEMPTS):
            try:
                status, number, stored_token = self._append_script(keys=keys, args=args)
                break
            except _CONNECTION_ERRORS as e:
                if attempt + 1 == APPEND_ATTEMPTS or time.monotonic() >= deadline:
                    raise self._unavailable(f"appending table {event.table!r} seq {event.seq}", e) from None
                time.sleep(0.05 * attempt)
            except redis.RedisError as e:  # e.g. OOM, READONLY replica, NOSCRIPT storms
                raise StoreUnavailable(f"the Redis store refused the append of table {event.table!r} seq {event.seq}",
                                       detail=f"Redis at {self._safe_url()}: {e}") from None
        if status == "ok" or (status == "seq_taken" and stored_token == token):
            self._note_seen(event.table, event.seq)
            return
        if status == "seq_taken":
            raise SeqTaken(f"table {event.table!r} seq {event.seq} is taken (Redis holds up to seq {number})")
        if status == "too_many_tables":
            raise TableLimitReached(f"the processes sharing this Redis already keep {number} tables", number)
        if status == "round_taken":
            raise SeqTaken(f"table {event.table!r} shoe {event.shoe} round {event.round} is taken "
                           f"(by seq {number})")
        raise StoreDiverged(
            f"table {event.table!r}: this process is at seq {event.seq - 1} but Redis holds only "
            f"{number} events; Redis lost events (restarted without persistence?)")

    def events_after(self, table: str, seq: int) -> list[Event]:
        """``table``'s events with ``seq`` above ``seq``, in order. Raises :class:`StoreUnavailable`."""
        for attempt in range(2):
            try:
                events = self._range(self._db, table, seq)
                break
            except _CONNECTION_ERRORS as e:
                if attempt:
                    raise self._unavailable(f"reading table {table!r} after seq {seq}", e) from None
        for ev in events[-1:]:
            self._note_seen(table, ev.seq)
        return events

    def _range(self, db: redis.Redis, table: str, after: int) -> list[Event]:
        out: list[Event] = []
        key = self._events_key(table)
        start = after + 1
        while True:
            entries = db.xrange(key, min=f"{start}-0", max="+", count=RANGE_BATCH)
            out += [Event.from_json(json.loads(fields["e"])) for _, fields in entries]
            if len(entries) < RANGE_BATCH:
                return out
            start = out[-1].seq + 1

    def start(self, on_event: Callable[[Event], None]) -> None:
        """Deliver every event appended after :meth:`load` (by any process, this one included)
        to ``on_event``, in log order, from a daemon thread; ``on_event`` must ignore seqs it
        has. Raises ``RuntimeError`` when already started."""
        if self._thread is not None:
            raise RuntimeError("RedisStore.start() was already called")
        self._on_event = on_event
        self._thread = threading.Thread(target=self._follow, name=f"roads-redis-follower {self.prefix}", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop the follower thread (within about :data:`FOLLOW_BLOCK_MS`) and close connections."""
        self._stop.set()
        try:  # wakes the follower from its blocking XREAD at once
            self._follow_db.connection_pool.disconnect()
        except Exception:  # pragma: no cover - closing a dead connection
            pass
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=FOLLOW_BLOCK_MS / 1000 + self.timeout_s + 1)
        for db in (self._db, self._follow_db):
            try:
                db.close()
                db.connection_pool.disconnect()
            except Exception:  # pragma: no cover - closing a dead connection
                pass

    # ------------------------------------------------------------------ follower thread
    def _follow(self) -> None:
        backoff = BACKOFF_MIN_S
        resync = False
        while not self._stop.is_set():
            try:
                if self._log_id is None:  # started without load(): follow from now
                    tail = self._follow_db.xrevrange(self._log_key, count=1)
                    self._log_id = tail[0][0] if tail else "0-0"
                if resync:
                    self._resync()
                    resync = False
                    if not self.connected:
                        log.warning("Redis at %s is back; caught up", self._safe_url())
                    self.connected = True
                reply = self._follow_db.xread({self._log_key: self._log_id}, count=FOLLOW_BATCH, block=FOLLOW_BLOCK_MS)
                backoff = BACKOFF_MIN_S
                for _key, entries in reply or ():
                    for entry_id, fields in entries:
                        if self._stop.is_set():
                            return
                        if fields.get("p", self._log_id) != self._log_id:
                            log.warning("Redis log entries between %s and %s are gone (trimmed while this "
                                        "process lagged, or Redis lost data); catching up table by table",
                                        self._log_id, fields["p"])
                            resync = True
                            break
                        self._follow_entry(entry_id, fields)
            except (*_CONNECTION_ERRORS, StoreUnavailable) as e:
                if self._stop.is_set():
                    return
                if self.connected:
                    log.warning("lost Redis at %s (%s); retrying with backoff", self._safe_url(), e)
                self.connected = False
                resync = True
                self._stop.wait(backoff)
                backoff = min(backoff * 2, BACKOFF_MAX_S)
            except Exception:  # a bug: log it, start over from a resync
                if self._stop.is_set():
                    return
                log.exception("Redis follower failed after log entry %s", self._log_id)
                resync = True
                self._stop.wait(backoff)
                backoff = min(backoff * 2, BACKOFF_MAX_S)

    def _follow_entry(self, entry_id: str, fields: Mapping[str, str]) -> None:
        """Deliver one log entry and move past it. An entry that cannot be decoded or applied
        (a corrupt entry, an event that does not fit) is logged and skipped; a lost connection
        propagates and the entry is read again after the resync."""
        try:
            self._deliver(Event.from_json(json.loads(fields["e"])))
        except (*_CONNECTION_ERRORS, StoreUnavailable):
            raise
        except Exception:
            log.exception("Redis follower: skipping log entry %s %r", entry_id, fields)
        self._log_id = entry_id

    def _deliver(self, event: Event) -> None:
        assert self._on_event is not None
        self._on_event(event)
        self._note_seen(event.table, event.seq)

    def _resync(self) -> None:
        """After an outage: deliver every table's events past what was seen, then follow the
        log from its current end (entries appended before that end are covered by the heads,
        which are read after it)."""
        tail = self._follow_db.xrevrange(self._log_key, count=1)
        tail_id = tail[0][0] if tail else "0-0"
        heads = self._follow_db.hgetall(self._heads_key)
        for table, head in sorted(heads.items()):
            with self._seen_lock:
                seen = self._seen.get(table, 0)
            if int(head) < seen:
                log.error("Redis holds %s events of table %r but this process has seen %d: Redis lost events",
                          head, table, seen)
            elif int(head) > seen:
                for ev in self._range(self._follow_db, table, seen):
                    if self._stop.is_set():
                        return
                    self._deliver(ev)
        if self._log_id is not None and _id_tuple(tail_id) < _id_tuple(self._log_id):
            log.error("the Redis log went back from %s to %s (Redis lost data?)", self._log_id, tail_id)
        self._log_id = tail_id
