"""The Redis state backend: owner of every Redis key name and every Lua script.

Keys of queue Q of queue manager QM share the prefix `mqk:{QM/Q}:` (the hash tag keeps
a queue's keys in one cluster slot, so one script may touch all of them):

| key | type | holds |
|---|---|---|
| `low` | hash lane -> offset | low watermark: below it everything is consumed |
| `done:<lane>` | sorted set | consumed offsets at or above the low watermark |
| `lock` | hash candidate -> `owner|until_ms` | syncpoint gets, browse locks, discards, get leases |
| `bo` | hash candidate -> n | BackoutCount added by backouts and reclaims |
| `depth` | counter | CURDEPTH: committed messages on the queue |
| `native` | hash lane -> offset | last native (Kafka producer's) record counted in `depth` |
| `stats` | hash | queue statistics: `in` `out` `high` `reset` `lput` `lget` `qshort` `qlong` |
| `opens` | hash handle -> `kinds|lease_until_ms` | open handles (IPPROCS / OPPROCS) |
| `epoch` | string | present = the state is complete; every claim refuses without it |
| `def` | string | definition mark `<incarnation>:<digest>`, or `deleted` (store.DELETED) |
| `deleting` | string `owner|until_ms` | a DELETE QLOCAL in progress: opens are refused |
| `ackpos` | integer | ack-log offset up to which consumption is applied |
| `rebuild`, `reconcile` | string with TTL | short exclusive rights |

(`stats` is written only inside the depth script and the claims, never with a round trip
of its own, and read-and-zeroed by RESET QSTATS's script; `lput` / `lget` (ms) and
`qshort` / `qlong` (QTIME, µs) only while queue monitoring is on for the queue;
adapter/shim/qstats.py reads it.)
plus `once:<token>` (the last sequence number a replaying writer applied to the depth,
add_depths_once), and per queue manager `mqk:{QM}:catalog` (hash name -> definition),
the cache of the catalog topic, `mqk:{QM}:chstatus` (hash channel -> the status its
agent wrote, JSON) and `mqk:{QM}:chstop` (set of channels STOP CHANNEL asked to stop),
and `mqk:{QM}:status` (the run state endmqm left:
`QUIESCING` or `ENDING IMMEDIATELY`; absent while running, strmqm deletes it; written
only by shim/runstate.py). No script touches two queues (Redis Cluster slots).
Publish/subscribe (shim/subscriptions.py, shim/publish.py), per queue manager:
`mqk:{QM}:subs` (hash subscription key -> definition, JSON), `mqk:{QM}:subs.owner` (hash
subscription key -> `owner|lease_until_ms`: the handle that has it open, which keeps a
non-durable one alive and makes a durable one in use, 2429), `mqk:{QM}:subs.version`
(counter bumped by every change of `subs`, read through the client-tracking cache so a
publisher learns of a new subscription at no round trip) and `mqk:{QM}:retained` (hash
topic string -> the retained publication's envelope); `mqk:{QM}:topics.version` (counter
bumped by every DEFINE / ALTER / DELETE TOPIC, read through the client-tracking cache:
the publishers' topic tree, shim/topics.py); `mqk:{QM}:subs.stats` / `topics.stats`
(hashes `<key>|n` -> messages delivered, `<key>|t` -> the last one's time in ms, per
subscription key / topic string: DISPLAY SBSTATUS / TPSTATUS, written in batches by
shim/pubstats.py); `mqk:{QM}:subs.changes` (list of `version|key`, the last
SUB_CHANGES_KEPT changes of `subs`: publishers update their index by the keys changed
since the version they hold instead of reading every subscription).
A candidate is spelled `priority.partition:offset` (store.encode); the scripts parse it.

Definition marks and the run state are read on every MQPUT and MQGET, so they are
cached in the process and kept current by Redis itself: `_DefinitionMarks` reads them on
its own RESP3 connection with CLIENT TRACKING on, and Redis pushes an invalidation on that
connection whenever a mark it read changes (or the database is flushed). A check is then a
poll of that socket (~0.5 µs), not a round trip. (redis-py's own client-side cache needs Redis 7.4;
CLIENT TRACKING itself is Redis 6.)
"""

from __future__ import annotations

import logging
import select
import threading
import time
from collections.abc import Callable

import redis
from tenacity import (
    retry,
    retry_if_exception_type,
    retry_if_not_exception_type,
    stop_after_delay,
    wait_exponential,
)

from adapter import config
from adapter.shim.store import (
    DELETED,
    LEASE_PREFIX,
    QTIME_WEIGHTS,
    SUB_CHANGES_KEPT,
    BatchClaim,
    Candidate,
    ClaimResult,
    ClaimStatus,
    NoEpochError,
    QueueDeletedError,
    QueueStats,
    encode,
)
from adapter.shim.writebehind import WriteBehind

log = logging.getLogger("mqk.shim.redis_store")
_LEASE = LEASE_PREFIX.encode()

NO_EPOCH = -2
GONE = 2  # _OPEN: the queue is deleted or being deleted

# Statistics of messages a get took (the `stats` hash): flags 'c' count them into MSGSOUT
# (MQIA_MSG_DEQ_COUNT: uncommitted gets count, backouts do not uncount), 'm' also stamp
# the last get time (LGETDATE / LGETTIME, only while monitoring is on for the queue).
_STATS_TAKEN = """
local function taken_stats(p, flags, n, now)
  if n > 0 and string.find(flags, 'c', 1, true) then
    redis.call('HINCRBY', p .. 'stats', 'out', n)
    if string.find(flags, 'm', 1, true) then redis.call('HSET', p .. 'stats', 'lget', now) end
  end
end
"""

_STATUS = """
local p = KEYS[1]
local function status(c, owner, now)
  local sep = string.find(c, ':', 1, true)
  local ln = string.sub(c, 1, sep - 1)
  local off = tonumber(string.sub(c, sep + 1))
  local low = tonumber(redis.call('HGET', p .. 'low', ln) or '0')
  if off < low or redis.call('ZSCORE', p .. 'done:' .. ln, off) then return 1, ln, off end
  local l = redis.call('HGET', p .. 'lock', c)
  if l then
    local bar = string.find(l, '|', 1, true)
    if string.sub(l, 1, bar - 1) == owner then return 3, ln, off end
    local lease = string.sub(l, 1, 1) == '~'
    if tonumber(string.sub(l, bar + 1)) > now then return lease and 5 or 2, ln, off end
    -- A get lease (owner '~...') consumes in Redis itself before MQGET returns: run out,
    -- it leaves nothing to reconcile, the message is free.
    if lease then return 0, ln, off end
    -- The owner's lease ran out: it may have died after committing, so the ack log
    -- must be reconciled before the message is offered again.
    return 4, ln, off
  end
  return 0, ln, off
end
"""

# ARGV: now_ms, owner, lease_ms, mode ('consume'|'lock'), all_or_nothing ('0'|'1'), stats
# flags (_STATS_TAKEN: '' none, 'c' count, 'cm' count and stamp the last get), cands...
# Returns {taken_index (1-based, 0 = none), its BackoutCount, codes...} or {-2} without an
# epoch; a code i > 0: candidate i is consumed, -i: locked (stale, or held); a code 0: a
# candidate is held by another handle's get lease (the scan stops there).
# Status 1 = consumed (gone for good), 2 = locked by another owner, 3 = locked by me,
# 4 = locked by an owner whose lease ran out (reconcile with the ack log first).
_CLAIM = (
    _STATUS
    + _STATS_TAKEN
    + """
if redis.call('EXISTS', p .. 'epoch') == 0 then return {-2} end
local now, owner, lease, mode = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3]), ARGV[4]
local function take(c, ln, off)
  if mode == 'consume' then
    redis.call('ZADD', p .. 'done:' .. ln, off, off)
    redis.call('HDEL', p .. 'lock', c)
    redis.call('DECR', p .. 'depth')
  else
    redis.call('HSET', p .. 'lock', c, owner .. '|' .. (now + lease))
  end
  taken_stats(p, ARGV[6], 1, now)
end
local res = {0, 0}
local function bo(c) return tonumber(redis.call('HGET', p .. 'bo', c) or '0') end
if ARGV[5] == '1' then
  local seen = {}
  for i = 7, #ARGV do
    local s, ln, off = status(ARGV[i], owner, now)
    if s == 1 or s == 2 or s == 4 or s == 5 then
      res[1] = 0
      table.insert(res, (s == 1) and (i - 6) or -(i - 6))
      if s == 5 then table.insert(res, 0) end
      return res
    end
    seen[i] = {ln, off}
  end
  for i = 7, #ARGV do take(ARGV[i], seen[i][1], seen[i][2]) end
  res[1] = 1
  res[2] = bo(ARGV[7])
  return res
end
for i = 7, #ARGV do
  local s, ln, off = status(ARGV[i], owner, now)
  if s == 0 or s == 3 then
    take(ARGV[i], ln, off)
    res[1] = i - 6
    res[2] = bo(ARGV[i])
    return res
  end
  if s == 1 then table.insert(res, i - 6) end
  if s == 4 then table.insert(res, -(i - 6)) end
  -- Another handle's get lease is about to get it: nothing behind it is taken first
  -- (a getter's messages stay in queue order).
  if s == 5 then table.insert(res, 0); return res end
end
return res
"""
)

# Read-ahead: consume every free candidate at once. ARGV: now_ms, owner, stats flags, cands...
# Returns {{taken_index...}, {their BackoutCounts...}, {gone_index...}} or {-2}.
_CLAIM_MANY = (
    _STATUS
    + _STATS_TAKEN
    + """
if redis.call('EXISTS', p .. 'epoch') == 0 then return {-2} end
local now, owner = tonumber(ARGV[1]), ARGV[2]
local taken, backouts, gone = {}, {}, {}
for i = 4, #ARGV do
  local s, ln, off = status(ARGV[i], owner, now)
  if s == 0 or s == 3 then
    redis.call('ZADD', p .. 'done:' .. ln, off, off)
    redis.call('HDEL', p .. 'lock', ARGV[i])
    table.insert(taken, i - 3)
    table.insert(backouts, tonumber(redis.call('HGET', p .. 'bo', ARGV[i]) or '0'))
  elseif s == 1 then
    table.insert(gone, i - 3)
  elseif s == 5 then
    break  -- another handle's get lease: nothing behind it is taken first
  end
end
if #taken > 0 then redis.call('DECRBY', p .. 'depth', #taken) end
taken_stats(p, ARGV[3], #taken, now)
return {taken, backouts, gone}
"""
)

# A get lease's hand-out (shim/getlease.py), sent write-behind: each candidate that is
# the owner's or free (a lost state rebuilt meanwhile) is consumed, or, for a get in a
# unit of work, locked for that unit of work; stats counted here.
# ARGV: now_ms, owner, stats flags, to_owner ('' = consume), lease_ms, cands...
# Returns {taken, codes...} or {-2}: code i, candidate i was consumed by someone else;
# -i, locked by another live owner.
_SETTLE_LEASED = (
    _STATUS
    + _STATS_TAKEN
    + """
if redis.call('EXISTS', p .. 'epoch') == 0 then return {-2} end
local now, owner, to = tonumber(ARGV[1]), ARGV[2], ARGV[4]
local until_ms = now + tonumber(ARGV[5])
local res, n = {0}, 0
for i = 6, #ARGV do
  local s, ln, off = status(ARGV[i], owner, now)
  if s == 0 or s == 3 then
    if to == '' then
      redis.call('ZADD', p .. 'done:' .. ln, off, off)
      redis.call('HDEL', p .. 'lock', ARGV[i])
    else
      redis.call('HSET', p .. 'lock', ARGV[i], to .. '|' .. until_ms)
    end
    n = n + 1
  elseif s == 1 then
    table.insert(res, i - 5)
  else
    table.insert(res, -(i - 5))
  end
end
if n > 0 and to == '' then redis.call('DECRBY', p .. 'depth', n) end
taken_stats(p, ARGV[3], n, now)
res[1] = n
return res
"""
)

# Syncpoint read-ahead: lock every free candidate for a unit of work at once.
# ARGV: now_ms, owner, lease_ms, stats flags, cands...
# Returns {{taken...}, {backouts...}, {gone...}}.
_LOCK_MANY = (
    _STATUS
    + _STATS_TAKEN
    + """
if redis.call('EXISTS', p .. 'epoch') == 0 then return {-2} end
local now, owner, lease = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3])
local taken, backouts, gone = {}, {}, {}
for i = 5, #ARGV do
  local s, ln, off = status(ARGV[i], owner, now)
  if s == 0 or s == 3 then
    redis.call('HSET', p .. 'lock', ARGV[i], owner .. '|' .. (now + lease))
    table.insert(taken, i - 4)
    table.insert(backouts, tonumber(redis.call('HGET', p .. 'bo', ARGV[i]) or '0'))
  elseif s == 1 then
    table.insert(gone, i - 4)
  elseif s == 5 then
    break  -- another handle's get lease: nothing behind it is taken first
  end
end
taken_stats(p, ARGV[4], #taken, now)
return {taken, backouts, gone}
"""
)

# ARGV: now_ms, owner, cands... -> statuses (0 free, 1 gone, 2 locked by other, 3 mine,
# 4 stale, 5 held by another handle's get lease).
_PEEK = (
    _STATUS
    + """
if redis.call('EXISTS', p .. 'epoch') == 0 then return {-2} end
local out = {}
for i = 3, #ARGV do local s = status(ARGV[i], ARGV[2], tonumber(ARGV[1])); out[i - 2] = s end
return out
"""
)

# ARGV: owner, bump_backout ('0'|'1'), cands... Releases my locks; returns how many.
_RELEASE = """
local p = KEYS[1]
local n = 0
for i = 3, #ARGV do
  local l = redis.call('HGET', p .. 'lock', ARGV[i])
  if l and string.sub(l, 1, string.find(l, '|', 1, true) - 1) == ARGV[1] then
    redis.call('HDEL', p .. 'lock', ARGV[i])
    if ARGV[2] == '1' then redis.call('HINCRBY', p .. 'bo', ARGV[i], 1) end
    n = n + 1
  end
end
return n
"""

# ARGV: now_ms, owner, lease_ms, cands... Extends my locks; returns how many are no
# longer mine (a unit of work holding such a get must not commit).
_VERIFY = """
local p = KEYS[1]
if redis.call('EXISTS', p .. 'epoch') == 0 then return -2 end
local now, owner, lease = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3])
local lost = 0
for i = 4, #ARGV do
  local l = redis.call('HGET', p .. 'lock', ARGV[i])
  if l and string.sub(l, 1, string.find(l, '|', 1, true) - 1) == ARGV[2] then
    redis.call('HSET', p .. 'lock', ARGV[i], owner .. '|' .. (now + lease))
  else
    lost = lost + 1
  end
end
return lost
"""

# ARGV: cands... Consumption that is durable in the ack log (a committed unit of work,
# or reconciliation): drop any lock, record the offset, count it once.
_APPLY = """
local p = KEYS[1]
local n = 0
for i = 1, #ARGV do
  local c = ARGV[i]
  redis.call('HDEL', p .. 'lock', c)
  local sep = string.find(c, ':', 1, true)
  local ln, off = string.sub(c, 1, sep - 1), tonumber(string.sub(c, sep + 1))
  local low = tonumber(redis.call('HGET', p .. 'low', ln) or '0')
  if off >= low and redis.call('ZADD', p .. 'done:' .. ln, off, off) == 1 then n = n + 1 end
end
if n > 0 then redis.call('DECRBY', p .. 'depth', n) end
return n
"""

# ARGV: now_ms, cands... Locks whose lease ran out, checked against an ack log read to
# its last stable offset: not consumed, so the dead owner's unit of work was backed out.
# The message is released with BackoutCount + 1.
_RECLAIM = """
local p = KEYS[1]
local now = tonumber(ARGV[1])
local n = 0
for i = 2, #ARGV do
  local c = ARGV[i]
  local l = redis.call('HGET', p .. 'lock', c)
  if l and tonumber(string.sub(l, string.find(l, '|', 1, true) + 1)) <= now then
    redis.call('HDEL', p .. 'lock', c)
    redis.call('HINCRBY', p .. 'bo', c, 1)
    n = n + 1
  end
end
return n
"""

# ARGV: lane, new_low. Raises the lane's low watermark and forgets offsets below it,
# but never past a locked offset (a message in a unit of work, a browse lock): a
# backout must find it above the watermark, available again.
_ADVANCE = """
local p = KEYS[1]
local cur = tonumber(redis.call('HGET', p .. 'low', ARGV[1]) or '0')
local new = tonumber(ARGV[2])
local prefix = ARGV[1] .. ':'
for _, c in ipairs(redis.call('HKEYS', p .. 'lock')) do
  if string.sub(c, 1, #prefix) == prefix then
    local off = tonumber(string.sub(c, #prefix + 1))
    if off < new then new = off end
  end
end
if new > cur then
  redis.call('HSET', p .. 'low', ARGV[1], new)
  redis.call('ZREMRANGEBYSCORE', p .. 'done:' .. ARGV[1], '-inf', '(' .. new)
end
return new > cur and 1 or 0
"""

# ARGV: lane, offsets (ascending). Counts into the depth the native records above the
# lane's native mark and raises the mark to the last; NO_EPOCH without the epoch.
_COUNT_NATIVE = """
local p = KEYS[1]
if redis.call('EXISTS', p .. 'epoch') == 0 then return -2 end
local mark = tonumber(redis.call('HGET', p .. 'native', ARGV[1]) or '-1')
local n, top = 0, mark
for i = 2, #ARGV do
  local off = tonumber(ARGV[i])
  if off > mark then
    n = n + 1
    if off > top then top = off end
  end
end
if n > 0 then
  redis.call('HSET', p .. 'native', ARGV[1], top)
  local d = redis.call('INCRBY', p .. 'depth', n)
  redis.call('HINCRBY', p .. 'stats', 'in', n)
  if d > tonumber(redis.call('HGET', p .. 'stats', 'high') or '0') then
    redis.call('HSET', p .. 'stats', 'high', d)
  end
end
return n
"""

# ARGV: delta, enqueued, put_ms, qtime_sum_ms, qtime_n, short weight, long weight. The
# pump's batched depth count, with the statistics folded into the same call: MSGSIN
# (MQIA_MSG_ENQ_COUNT) + enqueued, HIGHQDEPTH raised to the new depth, the last put time
# (0: none to record, monitoring off) kept if later, QTIME's indicators (store.fold_qtime).
_ADD_DEPTH = """
local p = KEYS[1]
local s = p .. 'stats'
local d = redis.call('INCRBY', p .. 'depth', ARGV[1])
if tonumber(ARGV[2]) > 0 then redis.call('HINCRBY', s, 'in', ARGV[2]) end
if d > tonumber(redis.call('HGET', s, 'high') or '0') then redis.call('HSET', s, 'high', d) end
local put = tonumber(ARGV[3])
if put > 0 and put > tonumber(redis.call('HGET', s, 'lput') or '0') then
  redis.call('HSET', s, 'lput', put)
end
local qn = tonumber(ARGV[5])
if qn > 0 then
  local mean = tonumber(ARGV[4]) * 1000 / qn
  for i, f in ipairs({'qshort', 'qlong'}) do
    local old = tonumber(redis.call('HGET', s, f) or '-1')
    local v = mean
    if old >= 0 then
      local keep = (1 - tonumber(ARGV[5 + i])) ^ qn
      v = old * keep + mean * (1 - keep)
    end
    redis.call('HSET', s, f, math.floor(v))
  end
end
return d
"""

# ARGV: now_ms. RESET QSTATS: read and zero in one step, so no count falls between:
# returns {in, out, high, since_ms}; HIGHQDEPTH starts again from the current depth, the
# interval from now (before any reset: from the state's epoch, when the queue began).
_RESET_STATS = """
local p = KEYS[1]
local s = p .. 'stats'
local v = redis.call('HMGET', s, 'in', 'out', 'high', 'reset')
local depth = tonumber(redis.call('GET', p .. 'depth') or '0')
local high = math.max(tonumber(v[3] or '0'), depth)
local since = tonumber(v[4] or redis.call('GET', p .. 'epoch') or ARGV[1])
redis.call('HSET', s, 'in', 0, 'out', 0, 'high', depth, 'reset', ARGV[1])
return {tonumber(v[1] or '0'), tonumber(v[2] or '0'), high, since}
"""

# ARGV: token, seq, delta. Adds delta to the depth once per (token, seq) and queue.
_ADD_ONCE = """
local p = KEYS[1]
local mark = p .. 'once:' .. ARGV[1]
if tonumber(redis.call('GET', mark) or '-1') >= tonumber(ARGV[2]) then return 0 end
redis.call('INCRBY', p .. 'depth', ARGV[3])
redis.call('SET', mark, ARGV[2])
return 1
"""

# A DELETE QLOCAL in progress (`deleting`, `owner|until_ms`) whose lease runs at `now`.
_DELETING = """
local function deleting(p, now)
  local d = redis.call('GET', p .. 'deleting')
  return d and tonumber(string.sub(d, string.find(d, '|', 1, true) + 1)) > now
end
"""

# ARGV: handle, kinds, until_ms, now_ms. An input open is refused (0) while another live
# handle holds the queue exclusively; an exclusive one while another has input. Any open
# is refused (2) once the queue is deleted or while it is being deleted.
_OPEN = (
    _DELETING
    + """
local p = KEYS[1]
local handle, kinds, now = ARGV[1], ARGV[2], tonumber(ARGV[4])
if redis.call('GET', p .. 'def') == 'deleted' or deleting(p, now) then return 2 end
local function has(list, kind)
  return string.find(',' .. list .. ',', ',' .. kind .. ',', 1, true)
end
if has(kinds, 'input') then
  local entries = redis.call('HGETALL', p .. 'opens')
  for i = 1, #entries, 2 do
    if entries[i] ~= handle then
      local v = entries[i + 1]
      local bar = string.find(v, '|', 1, true)
      local other, lease_end = string.sub(v, 1, bar - 1), tonumber(string.sub(v, bar + 1))
      if lease_end > now and has(other, 'input') then
        if has(kinds, 'exclusive') or has(other, 'exclusive') then return 0 end
      end
    end
  end
end
redis.call('HSET', p .. 'opens', handle, kinds .. '|' .. ARGV[3])
return 1
"""
)

# ARGV: owner, until_ms, now_ms, expire_ms. DELETE QLOCAL's first step, atomic with
# _OPEN: refused (0) while any live handle is registered or another delete runs;
# else the queue is marked as being deleted (the key's own expiry only collects it).
_BEGIN_DELETE = (
    _DELETING
    + """
local p = KEYS[1]
local now = tonumber(ARGV[3])
if deleting(p, now) then return 0 end
for _, v in ipairs(redis.call('HVALS', p .. 'opens')) do
  if tonumber(string.sub(v, string.find(v, '|', 1, true) + 1)) > now then return 0 end
end
redis.call('SET', p .. 'deleting', ARGV[1] .. '|' .. ARGV[2], 'PX', ARGV[4])
return 1
"""
)

# ARGV: owner. Drops the owner's delete mark (a delete that did not happen).
_END_DELETE = """
local p = KEYS[1]
local d = redis.call('GET', p .. 'deleting')
if d and string.sub(d, 1, string.find(d, '|', 1, true) - 1) == ARGV[1] then
  redis.call('DEL', p .. 'deleting')
end
return 0
"""


def queue_prefix(qmgr: str, queue: str) -> str:
    """Redis prefix of one queue (a hash tag: one cluster slot per queue)."""
    return f"mqk:{{{qmgr}/{queue}}}:"


def catalog_key(qmgr: str) -> str:
    return f"mqk:{{{qmgr}}}:catalog"


def status_key(qmgr: str) -> str:
    return f"mqk:{{{qmgr}}}:status"


def pubsub_key(qmgr: str, part: str) -> str:
    """`subs`, `subs.owner`, `subs.version`, `subs.changes`, `retained`, `topics.version`, ... of a
    queue manager."""
    return f"mqk:{{{qmgr}}}:{part}"


_PUBSUB_PARTS = (
    "subs",
    "subs.owner",
    "subs.version",
    "retained",
    "topics.version",
    "subs.stats",
    "topics.stats",
    "subs.changes",
)

# KEYS: subs, subs.owner, subs.version, subs.changes, subs.stats; ARGV: 'put' or 'del',
# key, definition, entries kept. The change and its entry in the log go together, so a
# reader that saw version v finds every key changed after it (or a gap: rebuild).
_SUB_CHANGE = """
if ARGV[1] == 'put' then
  redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
else
  redis.call('HDEL', KEYS[1], ARGV[2])
  redis.call('HDEL', KEYS[2], ARGV[2])
  redis.call('HDEL', KEYS[5], ARGV[2] .. '|n', ARGV[2] .. '|t')
end
local v = redis.call('INCR', KEYS[3])
redis.call('RPUSH', KEYS[4], v .. '|' .. ARGV[2])
redis.call('LTRIM', KEYS[4], -tonumber(ARGV[4]), -1)
return v
"""

# KEYS: subs.stats, topics.stats; ARGV: n subs, then (key, count, last) per subscription,
# then (topic, count, last) per topic string. Counters add, last times only move on.
_PUB_COUNTS = """
local n = tonumber(ARGV[1])
local function add(hash, base)
  local field = ARGV[base]
  redis.call('HINCRBY', hash, field .. '|n', ARGV[base + 1])
  local last = tonumber(redis.call('HGET', hash, field .. '|t') or '0')
  if tonumber(ARGV[base + 2]) > last then
    redis.call('HSET', hash, field .. '|t', ARGV[base + 2])
  end
end
local i = 2
for _ = 1, n do add(KEYS[1], i); i = i + 3 end
while i <= #ARGV do add(KEYS[2], i); i = i + 3 end
return 1
"""

# KEYS: subs.owner; ARGV: key, owner, now, until. 1: taken (free, expired or ours).
_SUB_LEASE = """
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if cur then
  local bar = string.find(cur, '|', 1, true)
  local who = string.sub(cur, 1, bar - 1)
  if who ~= ARGV[2] and tonumber(string.sub(cur, bar + 1)) > tonumber(ARGV[3]) then
    return 0
  end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. '|' .. ARGV[4])
return 1
"""

# KEYS: subs.owner; ARGV: key, owner. Drops the lease only if it is the owner's.
_SUB_RELEASE = """
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if cur and string.sub(cur, 1, string.find(cur, '|', 1, true) - 1) == ARGV[2] then
  redis.call('HDEL', KEYS[1], ARGV[1])
end
return 1
"""


def channel_status_key(qmgr: str) -> str:
    return f"mqk:{{{qmgr}}}:chstatus"


def channel_stop_key(qmgr: str) -> str:
    return f"mqk:{{{qmgr}}}:chstop"


def purge_queue_manager(client: redis.Redis, qmgr: str) -> None:
    """Delete every key of a queue manager (test clean-up)."""
    keys = list(client.scan_iter(match=f"mqk:{{{qmgr}/*", count=1000))
    keys.extend((catalog_key(qmgr), status_key(qmgr)))
    keys.extend(pubsub_key(qmgr, part) for part in _PUBSUB_PARTS)
    keys.extend((channel_status_key(qmgr), channel_stop_key(qmgr)))
    client.delete(*keys)


def _batch(res) -> BatchClaim:
    if res and res[0] == NO_EPOCH:
        raise NoEpochError("no epoch")
    taken, backouts, gone = res
    return BatchClaim(
        [int(x) - 1 for x in taken], [int(b) for b in backouts], [int(x) - 1 for x in gone]
    )


class _DefinitionMarks:
    """Definition marks read through one RESP3 connection with CLIENT TRACKING on:
    Redis remembers which keys this connection read and pushes an invalidation on it
    when one changes, so a cached mark is current once the pushes waiting on the socket
    are applied (a non-blocking poll). Writers of marks make one more round trip after
    the write (set_definition, drop), by which time Redis has sent the pushes, so any
    call that follows an ALTER or a DELETE in time sees it. A lost connection loses the
    pushes: the cache is dropped with it."""

    def __init__(self, client: redis.Redis) -> None:
        pool = client.connection_pool
        self._kwargs = {**pool.connection_kwargs, "protocol": 3}
        self._connection_class = pool.connection_class
        self._conn = None
        self._poller = None  # a select.poll() on the connection's socket, once connected
        self._cache: dict[str, bytes | None] = {}
        # The application's threads and the pump may ask at once; one socket.
        self._lock = threading.Lock()

    def _invalidated(self, message) -> None:
        keys = message[1] if len(message) > 1 else None
        if keys is None:  # FLUSHALL / FLUSHDB: everything
            self._cache.clear()
            return
        for key in keys:
            self._cache.pop(key.decode() if isinstance(key, bytes) else key, None)

    def _connection(self):
        if self._conn is None:
            conn = self._connection_class(**self._kwargs)
            conn.connect()
            # redis-py's own cache registers its handler on the parser the same way.
            conn._parser.set_invalidation_push_handler(self._invalidated)
            conn.send_command("CLIENT", "TRACKING", "ON")
            conn.read_response()
            self._drain(conn)
            # poll(0) on the socket is the hot path's whole cost (~0.5 µs; redis-py's
            # can_read takes ~2 µs): the parser's buffer is empty after every call here.
            self._poller = select.poll()
            self._poller.register(conn._sock, select.POLLIN)
            self._conn = conn
        return self._conn

    @staticmethod
    def _drain(conn) -> None:
        """Apply every push waiting in the parser's buffer or on the socket."""
        while conn.can_read(timeout=0):
            conn.read_response(push_request=True)

    def get(self, key: str) -> bytes | None:
        with self._lock:
            for attempt in (1, 2):
                try:
                    conn = self._connection()
                    if self._poller.poll(0):  # pushes arrived (or the server hung up)
                        self._drain(conn)
                    if key in self._cache:
                        return self._cache[key]
                    conn.send_command("GET", key)
                    value = conn.read_response()
                    self._cache[key] = value
                    # Pushes that came with the reply: one for this key pops it again.
                    self._drain(conn)
                    return value
                except (redis.ConnectionError, redis.TimeoutError, OSError):
                    self._drop()
                    if attempt == 2:
                        raise
                    log.info("definition marks: connection lost, reconnecting")
        raise AssertionError("unreachable")

    def _drop(self) -> None:
        self._cache.clear()
        self._poller = None
        if self._conn is not None:
            try:
                self._conn.disconnect()
            finally:
                self._conn = None

    def close(self) -> None:
        with self._lock:
            self._drop()


def _ignore_reply(reply, resent: bool) -> None:
    """A depth update's reply carries nothing (its errors are WriteBehind's)."""


class _Settled:
    """A client or script whose every call first settles the write-behind connection,
    so a state call never overtakes a consumption marker this process sent before it."""

    def __init__(self, target, behind: WriteBehind) -> None:
        self._target, self._behind = target, behind

    def __call__(self, *args, **kwargs):
        self._behind.settle()
        return self._target(*args, **kwargs)

    def __getattr__(self, name: str):
        attr = getattr(self._target, name)
        return _Settled(attr, self._behind) if callable(attr) else attr


class RedisQueueState:
    """Scripts bound to one queue's key prefix (store.QueueState)."""

    def __init__(self, store: RedisStore, queue: str) -> None:
        self._behind = store.behind
        self.r = _Settled(store.client, store.behind)
        self.prefix = queue_prefix(store.qmgr, queue)
        self._now_ms = store.now_ms
        self._settle_leased = store.scripts["settle_leased"]
        self._add_depth = store.scripts["add_depth"]  # sent write-behind, not settled
        s = {name: _Settled(script, store.behind) for name, script in store.scripts.items()}
        self._claim, self._peek, self._release = s["claim"], s["peek"], s["release"]
        self._advance, self._claim_many, self._lock_many = (
            s["advance"],
            s["claim_many"],
            s["lock_many"],
        )
        self._verify, self._apply, self._reclaim = s["verify"], s["apply"], s["reclaim"]
        self._open = s["open"]
        self._count_native = s["count_native"]
        self._reset_stats = s["reset_stats"]
        self._begin_delete, self._end_delete = s["begin_delete"], s["end_delete"]
        self._marks = store.marks
        self._keys = [self.prefix]
        self.lease_conflicts = 0

    def claim(
        self,
        cands: list[tuple[int, int, int]],
        owner: str,
        *,
        consume: bool,
        lease_ms: int = 60_000,
        all_or_nothing: bool = False,
        stats: str = "",
    ) -> ClaimResult:
        res = self._claim(
            keys=self._keys,
            args=[
                self._now_ms(),
                owner,
                lease_ms,
                "consume" if consume else "lock",
                "1" if all_or_nothing else "0",
                stats,
                *map(encode, cands),
            ],
        )
        if res and res[0] == NO_EPOCH:
            raise NoEpochError(self.prefix)
        taken, backout = int(res[0]), int(res[1])
        rest = [int(x) for x in res[2:]]
        index = (0 if taken else None) if all_or_nothing else (taken - 1 if taken else None)
        return ClaimResult(
            index=index,
            backout=backout,
            gone=[x - 1 for x in rest if x > 0],
            locked=[-x - 1 for x in rest if x < 0],
            leased=0 in rest,
        )

    def consume_many(
        self, cands: list[tuple[int, int, int]], owner: str, stats: str = ""
    ) -> BatchClaim:
        args = [self._now_ms(), owner, stats, *map(encode, cands)]
        return _batch(self._claim_many(keys=self._keys, args=args))

    def lock_many(
        self, cands: list[tuple[int, int, int]], owner: str, lease_ms: int, stats: str = ""
    ) -> BatchClaim:
        args = [self._now_ms(), owner, lease_ms, stats, *map(encode, cands)]
        return _batch(self._lock_many(keys=self._keys, args=args))

    def settle_leased(
        self,
        cands: list[tuple[int, int, int]],
        owner: str,
        stats: str = "",
        to_owner: str = "",
        lease_ms: int = 0,
    ) -> None:
        # Write-behind: MQGET returns without waiting (writebehind.py says why the
        # marker still reaches Redis if the process dies right after).
        args = [self._now_ms(), owner, stats, to_owner, lease_ms, *map(encode, cands)]
        self._behind.send(self._settle_leased, self._keys, args, self._leased_reply)

    def _leased_reply(self, res, resent: bool) -> None:
        if res and int(res[0]) == NO_EPOCH:
            # The state was lost; its rebuild takes the consumption from the ack log.
            log.warning("%s: a get lease's consumption found no state (rebuilt)", self.prefix)
            return
        # After a lost connection the marker may have run once already: 'consumed' is
        # then its own first run, not another getter.
        lost = [int(x) for x in res[1:] if not (resent and int(x) > 0)]
        if lost:
            self.lease_conflicts += len(lost)
            log.error(
                "%s: %d message(s) handed out under a get lease were no longer held "
                "(%d so far): delivered to another getter too",
                self.prefix,
                len(lost),
                self.lease_conflicts,
            )

    def peek(self, cands: list[tuple[int, int, int]], owner: str) -> list[ClaimStatus]:
        res = self._peek(keys=self._keys, args=[self._now_ms(), owner, *map(encode, cands)])
        if res and res[0] == NO_EPOCH:
            raise NoEpochError(self.prefix)
        return [ClaimStatus(int(x)) for x in res]

    def release(
        self, cands: list[tuple[int, int, int]], owner: str, *, backout: bool = False
    ) -> int:
        if not cands:
            return 0
        args = [owner, "1" if backout else "0", *map(encode, cands)]
        return int(self._release(keys=self._keys, args=args))

    def verify(self, cands: list[tuple[int, int, int]], owner: str, lease_ms: int) -> int:
        if not cands:
            return 0
        args = [self._now_ms(), owner, lease_ms, *map(encode, cands)]
        lost = int(self._verify(keys=self._keys, args=args))
        if lost == NO_EPOCH:
            raise NoEpochError(self.prefix)
        return lost

    def apply_consumed(self, cands: list[tuple[int, int, int]]) -> int:
        if not cands:
            return 0
        return int(self._apply(keys=self._keys, args=list(map(encode, cands))))

    def reclaim(self, cands: list[tuple[int, int, int]]) -> int:
        if not cands:
            return 0
        return int(self._reclaim(keys=self._keys, args=[self._now_ms(), *map(encode, cands)]))

    def stale_locks(self) -> list[Candidate]:
        now = self._now_ms()
        out = []
        for c, raw in self.r.hgetall(self.prefix + "lock").items():
            # A run-out get lease is simply free (_STATUS): nothing to reconcile.
            if int(raw.rsplit(b"|", 1)[1]) <= now and not raw.startswith(_LEASE):
                out.append(Candidate.decode(c.decode()))
        return out

    def live_locks(self, owner_prefix: str = "") -> int:
        now, prefix = self._now_ms(), owner_prefix.encode()
        held = (raw.rsplit(b"|", 1) for raw in self.r.hvals(self.prefix + "lock"))
        return sum(1 for owner, until in held if int(until) > now and owner.startswith(prefix))

    def advance(self, lane_name: str, low: int) -> None:
        self._advance(keys=self._keys, args=[lane_name, low])

    def lows(self) -> dict[str, int]:
        return {k.decode(): int(v) for k, v in self.r.hgetall(self.prefix + "low").items()}

    def add_depth(
        self,
        delta: int,
        enqueued: int = 0,
        put_ms: int = 0,
        qtime_sum_ms: int = 0,
        qtime_n: int = 0,
    ) -> None:
        # Write-behind (writebehind.py): a sync MQPUT waits for the broker's ack, not
        # for this. Every later state call of this process settles it first, so its own
        # MAXDEPTH checks and MQINQ see it; other processes see it a round trip later,
        # as they would have anyway.
        args = [delta, enqueued, put_ms, qtime_sum_ms, qtime_n, *QTIME_WEIGHTS]
        self._behind.send(self._add_depth, self._keys, args, _ignore_reply)

    def stats(self) -> QueueStats:
        raw = self.r.hgetall(self.prefix + "stats")
        return QueueStats.of({k.decode(): int(v) for k, v in raw.items()})

    def reset_stats(self) -> tuple[int, int, int, int]:
        inn, out, high, since = self._reset_stats(keys=self._keys, args=[self._now_ms()])
        return int(inn), int(out), int(high), int(since)

    def count_native(self, lane_name: str, offsets: list[int]) -> int:
        n = int(self._count_native(keys=self._keys, args=[lane_name, *offsets]))
        if n == NO_EPOCH:
            raise NoEpochError(self.prefix)
        return n

    def set_native_marks(self, marks: dict[str, int]) -> None:
        if marks:
            self.r.hset(self.prefix + "native", mapping={k: v - 1 for k, v in marks.items()})

    def depth(self) -> int:
        return int(self.r.get(self.prefix + "depth") or 0)

    def has_epoch(self) -> bool:
        return bool(self.r.exists(self.prefix + "epoch"))

    def epoch_mark(self) -> str | None:
        # Through the client-tracking cache: a FLUSHALL or a rebuild invalidates it.
        raw = self._marks.get(self.prefix + "epoch")
        return None if raw is None else raw.decode()

    def ack_position(self) -> int:
        return int(self.r.get(self.prefix + "ackpos") or 0)

    def set_ack_position(self, pos: int) -> None:
        self.r.set(self.prefix + "ackpos", pos)

    def register_open(self, handle: str, kinds: str, lease_ms: int = 120_000) -> bool:
        now = self._now_ms()
        res = int(self._open(keys=self._keys, args=[handle, kinds, now + lease_ms, now]))
        if res == GONE:
            raise QueueDeletedError(self.prefix)
        return bool(res)

    def unregister_open(self, handle: str) -> None:
        self.r.hdel(self.prefix + "opens", handle)

    def open_live(self, handle: str) -> bool:
        raw = self.r.hget(self.prefix + "opens", handle)
        return raw is not None and int(raw.rsplit(b"|", 1)[1]) > self._now_ms()

    def open_counts(self) -> dict[str, int]:
        now = self._now_ms()
        counts = {"input": 0, "output": 0, "browse": 0, "handles": 0}
        for raw in self.r.hvals(self.prefix + "opens"):
            kinds, until = raw.decode().split("|")
            if int(until) > now:
                counts["handles"] += 1
                for k in kinds.split(","):
                    if k in counts:
                        counts[k] += 1
        return counts

    def definition(self) -> str | None:
        raw = self._marks.get(self.prefix + "def")
        return None if raw is None else raw.decode()

    def set_definition(self, mark: str) -> None:
        self.r.set(self.prefix + "def", mark)
        # Redis writes a reply before the invalidations its command caused (measured:
        # 18 of 2000 reads right after a SET still saw the old mark). They go out before
        # Redis reads its next command, so once a second round trip returns, every
        # tracking reader has them: a call made after this returns sees the new mark.
        self.r.ping()

    def begin_delete(self, owner: str, lease_ms: int) -> bool:
        now = self._now_ms()
        # The key's own expiry (by Redis's clock) only collects it: the lease is judged
        # by the injected clock, as every lease here, well before that.
        args = [owner, now + lease_ms, now, lease_ms + 60_000]
        return bool(self._begin_delete(keys=self._keys, args=args))

    def end_delete(self, owner: str) -> None:
        self._end_delete(keys=self._keys, args=[owner])

    def try_mutex(self, purpose: str, owner: str, ttl_s: float) -> bool:
        return bool(self.r.set(self.prefix + purpose, owner, nx=True, px=int(ttl_s * 1000)))

    def drop_mutex(self, purpose: str) -> None:
        self.r.delete(self.prefix + purpose)

    def wipe(self) -> None:
        pipe = self.r.pipeline()
        for key in self.r.scan_iter(match=self.prefix + "done:*", count=500):
            pipe.delete(key)
        pipe.delete(
            *(self.prefix + k for k in ("low", "lock", "bo", "depth", "native", "ackpos", "epoch"))
        )
        pipe.execute()

    def mark_complete(self) -> bool:
        return bool(self.r.set(self.prefix + "epoch", str(self._now_ms()), nx=True))

    def drop(self) -> None:
        mark = self.prefix + "def"
        # The mark first: from here on no open can register on the queue. (The scan's
        # round trip after it also gets the invalidation out, as in set_definition.)
        self.r.set(mark, DELETED, px=config.DELETED_MARK_TTL_MS)
        keys = [
            k for k in self.r.scan_iter(match=self.prefix + "*", count=500) if k != mark.encode()
        ]
        if keys:
            self.r.delete(*keys)


class RedisStore:
    """store.StateStore on one Redis client. Transient connection errors are retried
    for MQK_BROKEN_AFTER_S where a call is safe to repeat (ping, catalog reads)."""

    def __init__(self, url: str, qmgr: str, now_ms: Callable[[], int] | None = None) -> None:
        self.qmgr = qmgr
        self.now_ms = now_ms or (lambda: int(time.time() * 1000))
        self.client = redis.Redis.from_url(
            url, socket_connect_timeout=5, socket_timeout=10, health_check_interval=30
        )
        self.scripts = {name: self.client.register_script(src) for name, src in _SCRIPTS.items()}
        self.marks = _DefinitionMarks(self.client)
        self.behind = WriteBehind(self.client)
        self._queues: dict[str, RedisQueueState] = {}
        self._catalog = catalog_key(qmgr)
        self._status = status_key(qmgr)
        self._transient = retry(
            # Refused credentials are a ConnectionError to redis-py, and final: no retry.
            retry=retry_if_exception_type((redis.ConnectionError, redis.TimeoutError))
            & retry_if_not_exception_type(redis.AuthenticationError),
            stop=stop_after_delay(config.BROKEN_AFTER_S),
            wait=wait_exponential(multiplier=0.05, max=1.0),
            reraise=True,
        )

    def queue(self, name: str) -> RedisQueueState:
        st = self._queues.get(name)
        if st is None:
            st = self._queues[name] = RedisQueueState(self, name)
        return st

    def catalog_get(self, name: str) -> bytes | None:
        return self._transient(self.client.hget)(self._catalog, name)

    def catalog_put(self, name: str, definition: bytes) -> None:
        self.client.hset(self._catalog, name, definition)

    def catalog_delete(self, name: str) -> None:
        self.client.hdel(self._catalog, name)

    def catalog_all(self) -> dict[str, bytes]:
        raw = self._transient(self.client.hgetall)(self._catalog)
        return {k.decode(): v for k, v in raw.items()}

    def add_depths_once(self, token: str, seq: int, deltas: dict[str, int]) -> bool:
        applied = False
        for queue, delta in deltas.items():
            keys = [queue_prefix(self.qmgr, queue)]
            applied |= bool(self.scripts["add_once"](keys=keys, args=[token, seq, delta]))
        return applied

    def run_state(self) -> str | None:
        raw = self.marks.get(self._status)
        return None if raw is None else raw.decode()

    def set_run_state(self, state: str | None) -> None:
        if state is None:
            self.client.delete(self._status)
        else:
            self.client.set(self._status, state)
        self.client.ping()  # the invalidations are out before this returns (set_definition)

    def restart_stats(self) -> int:
        # Queues with a state (an epoch); one slot per queue, so one key at a time.
        now, n = self.now_ms(), 0
        for key in self.client.scan_iter(match=f"mqk:{{{self.qmgr}/*}}:epoch", count=1000):
            stats = key.decode()[: -len("epoch")] + "stats"
            pipe = self.client.pipeline()
            pipe.delete(stats)
            pipe.hset(stats, "reset", now)
            pipe.execute()
            n += 1
        return n

    def channel_status(self, name: str) -> bytes | None:
        return self._transient(self.client.hget)(channel_status_key(self.qmgr), name)

    def set_channel_status(self, name: str, status: bytes | None) -> None:
        if status is None:
            self.client.hdel(channel_status_key(self.qmgr), name)
        else:
            self.client.hset(channel_status_key(self.qmgr), name, status)

    def channel_statuses(self) -> dict[str, bytes]:
        raw = self._transient(self.client.hgetall)(channel_status_key(self.qmgr))
        return {k.decode(): v for k, v in raw.items()}

    def request_channel_stop(self, name: str, stop: bool) -> None:
        if stop:
            self.client.sadd(channel_stop_key(self.qmgr), name)
        else:
            self.client.srem(channel_stop_key(self.qmgr), name)

    def channel_stop_requested(self, name: str) -> bool:
        key = channel_stop_key(self.qmgr)
        return bool(self._transient(self.client.sismember)(key, name))

    def ping(self) -> None:
        self._transient(self.client.ping)()

    def pubsub(self) -> RedisPubSubState:
        return RedisPubSubState(self)

    def close(self) -> None:
        self.marks.close()
        self.behind.close()
        self.client.close()


class RedisPubSubState:
    """store.PubSubState: subscriptions, their owners' leases and retained publications."""

    def __init__(self, store: RedisStore) -> None:
        self.store = store
        self.r = store.client
        self._subs = pubsub_key(store.qmgr, "subs")
        self._owner = pubsub_key(store.qmgr, "subs.owner")
        self._version = pubsub_key(store.qmgr, "subs.version")
        self._retained = pubsub_key(store.qmgr, "retained")
        self._topics_version = pubsub_key(store.qmgr, "topics.version")
        self._sub_stats = pubsub_key(store.qmgr, "subs.stats")
        self._changes = pubsub_key(store.qmgr, "subs.changes")
        self._topic_stats = pubsub_key(store.qmgr, "topics.stats")

    def subs_all(self) -> dict[str, bytes]:
        raw = self.store._transient(self.r.hgetall)(self._subs)
        return {k.decode(): v for k, v in raw.items()}

    def sub_get(self, key: str) -> bytes | None:
        return self.store._transient(self.r.hget)(self._subs, key)

    def _sub_change(self, op: str, key: str, definition: bytes = b"") -> None:
        keys = [self._subs, self._owner, self._version, self._changes, self._sub_stats]
        args = [op, key, definition, SUB_CHANGES_KEPT]
        self.store.scripts["sub_change"](keys=keys, args=args)
        self.r.ping()  # the invalidations are out before this returns (set_definition)

    def sub_put(self, key: str, definition: bytes) -> None:
        self._sub_change("put", key, definition)

    def sub_delete(self, key: str) -> None:
        self._sub_change("del", key)

    def sub_changes(self, since: int) -> list[tuple[int, str]] | None:
        raw = self.store._transient(self.r.lrange)(self._changes, 0, -1)
        entries = []
        for item in raw:
            v, _, key = item.decode().partition("|")
            entries.append((int(v), key))
        if not entries or entries[0][0] > since + 1:
            return None  # the log does not reach back to `since`
        return [(v, k) for v, k in entries if v > since]

    def version(self) -> str | None:
        raw = self.store.marks.get(self._version)
        return None if raw is None else raw.decode()

    def init_version(self) -> bool:
        """Set the version where there is none (after a loss of Redis): True if set."""
        return bool(self.r.set(self._version, 1, nx=True))

    def lease(self, key: str, owner: str, lease_ms: int) -> bool:
        now = self.store.now_ms()
        args = [key, owner, now, now + lease_ms]
        return bool(self.store.scripts["sub_lease"](keys=[self._owner], args=args))

    def release(self, key: str, owner: str) -> None:
        self.store.scripts["sub_release"](keys=[self._owner], args=[key, owner])

    def leases(self) -> dict[str, tuple[str, int]]:
        out = {}
        for k, v in self.store._transient(self.r.hgetall)(self._owner).items():
            who, _, until = v.decode().partition("|")
            out[k.decode()] = (who, int(until))
        return out

    def retained_get(self, topic: str) -> bytes | None:
        return self.r.hget(self._retained, topic)

    def retained_all(self) -> dict[str, bytes]:
        raw = self.store._transient(self.r.hgetall)(self._retained)
        return {k.decode(): v for k, v in raw.items()}

    def retained_put(self, topic: str, envelope: bytes | None) -> None:
        if envelope is None:
            self.r.hdel(self._retained, topic)
        else:
            self.r.hset(self._retained, topic, envelope)

    def topics_version(self) -> str | None:
        raw = self.store.marks.get(self._topics_version)
        return None if raw is None else raw.decode()

    def bump_topics_version(self) -> None:
        self.r.incr(self._topics_version)
        self.r.ping()  # the invalidations are out before this returns (set_definition)

    def add_pub_counts(
        self, subs: dict[str, tuple[int, int]], topics: dict[str, tuple[int, int]]
    ) -> None:
        args: list = [len(subs)]
        for items in (subs, topics):
            for field, (count, last) in items.items():
                args.extend((field, count, last))
        keys = [self._sub_stats, self._topic_stats]
        self.store.scripts["pub_counts"](keys=keys, args=args)

    def pub_counts(self) -> tuple[dict[str, tuple[int, int]], dict[str, tuple[int, int]]]:
        def read(hash_key: str) -> dict[str, tuple[int, int]]:
            raw = self.store._transient(self.r.hgetall)(hash_key)
            out: dict[str, list[int]] = {}
            for k, v in raw.items():
                field, _, part = k.decode().rpartition("|")
                slot = out.setdefault(field, [0, 0])
                slot[0 if part == "n" else 1] = int(v)
            return {f: (c, t) for f, (c, t) in out.items()}

        return read(self._sub_stats), read(self._topic_stats)


_SCRIPTS = {
    "claim": _CLAIM,
    "peek": _PEEK,
    "release": _RELEASE,
    "advance": _ADVANCE,
    "claim_many": _CLAIM_MANY,
    "lock_many": _LOCK_MANY,
    "settle_leased": _SETTLE_LEASED,
    "verify": _VERIFY,
    "apply": _APPLY,
    "reclaim": _RECLAIM,
    "add_once": _ADD_ONCE,
    "count_native": _COUNT_NATIVE,
    "add_depth": _ADD_DEPTH,
    "reset_stats": _RESET_STATS,
    "open": _OPEN,
    "begin_delete": _BEGIN_DELETE,
    "end_delete": _END_DELETE,
    "sub_lease": _SUB_LEASE,
    "sub_release": _SUB_RELEASE,
    "pub_counts": _PUB_COUNTS,
    "sub_change": _SUB_CHANGE,
}
