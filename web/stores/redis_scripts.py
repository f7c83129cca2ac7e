"""The Lua scripts of the Redis live stream with a PostgreSQL history
(:mod:`web.stores.redis_history`, docs/history.md). Redis runs one script at a time, so each is
one transaction: what it checks still holds when it writes.

A ``closed`` hash value is ``"<version>:<JSON>"`` (:func:`closed_value`):
the scripts compare versions without decoding the JSON.
"""

from __future__ import annotations

import base64
import json

from web.stores.postgres import ShoeRow

_VERSION_OF = """
local function version_of(value)
  if not value then return -1 end
  return tonumber(string.match(value, '^(%d+):'))
end
local function keep_closed(key, field, version, value)
  if version_of(redis.call('HGET', key, field)) < tonumber(version) then
    redis.call('HSET', key, field, version .. ':' .. value)
  end
end
"""

COMMIT_SCRIPT = _VERSION_OF + """
-- KEYS: heads, table events stream, table rounds hash, shared log, table head hash, closed hash
-- ARGV: 1 table, 2 seq, 3 round key ("<shoe>:<round>" or ""), 4 event JSON, 5 write token, 6 log maxlen,
--       7 most tables, 8 shoe, 9 opens ("1" or ""), 10 state at open JSON, 11 state JSON ("" = unchanged),
--       12 closed field ("" = none), 13 its version, 14 its value, 15... configured table ids
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
local caught = tonumber(redis.call('HGET', KEYS[5], 'seq') or '0')
if caught ~= head then
  return {'lagging', caught, ''}
end
if head == 0 then
  local count = redis.call('HLEN', KEYS[1])
  local configured = false
  for i = 15, #ARGV do
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
redis.call('HSET', KEYS[5], 'seq', ARGV[2])
if ARGV[9] == '1' then
  redis.call('HSET', KEYS[5], 'live_shoe', ARGV[8], 'live_from', ARGV[2], 'state_at_open', ARGV[10])
end
if ARGV[11] ~= '' then
  redis.call('HSET', KEYS[5], 'state', ARGV[11])
end
if ARGV[12] ~= '' then
  keep_closed(KEYS[6], ARGV[12], ARGV[13], ARGV[14])
end
local last = redis.call('XREVRANGE', KEYS[4], '+', '-', 'COUNT', 1)
local prev = '0-0'
if last[1] then prev = last[1][1] end
redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[6], '*', 'e', ARGV[4], 'p', prev)
return {'ok', seq, ''}
"""
"""One event with what it closes or changes and the table's head (:meth:`RedisHistoryStore.commit`):
the release's append (:data:`web.stores.redis.APPEND_SCRIPT`: seq, round and table-count checks,
the stream, the rounds hash, ``heads``, the shared log) plus the head hash (``seq``, the live shoe,
the state) and the ``closed`` entry (never an older version over a newer). Replies as the append
script, and ``lagging`` (``number`` = the head hash's seq) when the head hash does not reflect
every stored event yet (an event appended through the old interface: catch up first)."""

CATCH_UP_SCRIPT = _VERSION_OF + """
-- KEYS: table head hash, closed hash
-- ARGV: 1 expected seq, 2 new seq, 3 live shoe ("" = unchanged), 4 live from, 5 state at open,
--       6 state ("" = unchanged), then (closed field, version, value) triples
local caught = tonumber(redis.call('HGET', KEYS[1], 'seq') or '0')
if caught ~= tonumber(ARGV[1]) then
  return {'moved', caught}
end
redis.call('HSET', KEYS[1], 'seq', ARGV[2])
if ARGV[3] ~= '' then
  redis.call('HSET', KEYS[1], 'live_shoe', ARGV[3], 'live_from', ARGV[4], 'state_at_open', ARGV[5])
end
if ARGV[6] ~= '' then
  redis.call('HSET', KEYS[1], 'state', ARGV[6])
end
for i = 7, #ARGV, 3 do
  keep_closed(KEYS[2], ARGV[i], ARGV[i + 1], ARGV[i + 2])
end
return {'ok', tonumber(ARGV[2])}
"""
"""The head hash and ``closed`` entries of events already stored (catch-up), only if the head
hash is still at the expected seq (``moved``: another process caught up first)."""

LIVE_SCRIPT = """
-- KEYS: heads, table head hash, table events stream; ARGV: table
-- Returns {stored head, head hash fields, the event JSON (field e) of each stream entry from the live
-- shoe's opening to the head hash's seq}
local head = redis.call('HGET', KEYS[1], ARGV[1]) or '0'
local fields = redis.call('HGETALL', KEYS[2])
local seq, from = nil, nil
for i = 1, #fields, 2 do
  if fields[i] == 'seq' then seq = fields[i + 1] end
  if fields[i] == 'live_from' then from = fields[i + 1] end
end
local events = {}
if seq and from then
  local entries = redis.call('XRANGE', KEYS[3], from .. '-0', seq .. '-0')
  for i = 1, #entries do
    local f = entries[i][2]
    for j = 1, #f, 2 do
      if f[j] == 'e' then events[i] = f[j + 1] end
    end
    if not events[i] then
      return redis.error_reply('stream entry ' .. entries[i][1] .. ' of ' .. KEYS[3] .. ' has no event')
    end
  end
end
return {head, fields, events}
"""
"""A table's head and live shoe, read at one instant (a move cannot fall between the reads). The
events come back as their JSON strings alone, one flat list, not as whole stream entries (id,
fields, write token): a restart reads every table's live shoe, and decoding the nested entries
(seven values each) was most of a restart of 200 tables near the end of their shoes
(docs/history.md, the 6,000 table-day figures)."""

FORGET_SCRIPT = _VERSION_OF + """
-- KEYS: closed hash, table events stream; ARGV: closed field ("" = none), moved version
local forgot = 0
if ARGV[1] ~= '' then
  local v = version_of(redis.call('HGET', KEYS[1], ARGV[1]))
  if v >= 0 and v <= tonumber(ARGV[2]) then
    redis.call('HDEL', KEYS[1], ARGV[1])
    forgot = 1
  end
end
local first = redis.call('XRANGE', KEYS[2], '-', '+', 'COUNT', 1)
if first[1] then
  redis.call('XTRIM', KEYS[2], 'MINID', first[1][1])
end
return forgot
"""
"""After a shoe's move committed in PostgreSQL: delete its ``closed`` entry only when the stored
version is the moved one (or older: PostgreSQL holds a newer), and trim the stream below its
first remaining entry (frees the nodes of deleted entries; never a live entry)."""

LOCK_RENEW_SCRIPT = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""
"""Extend the mover lock's expiry (ARGV: token, ms) only while this process holds it."""

LOCK_RELEASE_SCRIPT = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""
"""Release the mover lock (ARGV: token) only while this process holds it."""


def closed_value(row: ShoeRow) -> tuple[str, str]:
    """``(version, JSON)`` of a ``closed`` entry (the scripts store ``version + ":" + JSON``)."""
    body = {"s": row.started_at, "e": row.ended_at, "r": row.rounds, "l": row.line, "st": row.stats,
            "d": base64.b64encode(row.doc).decode("ascii")}
    return str(row.version), json.dumps(body, separators=(",", ":"), ensure_ascii=False)


def parse_closed(field: str, value: str) -> ShoeRow:
    """The :class:`ShoeRow` of a ``closed`` entry."""
    table, _, shoe = field.rpartition(":")
    version, _, text = value.partition(":")
    b = json.loads(text)
    return ShoeRow(table, int(shoe), int(version), b["s"], b["e"], b["r"], b["l"], b["st"], base64.b64decode(b["d"]))
