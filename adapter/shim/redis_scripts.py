"""Every Lua script of the Redis state backend, with the keys each one declares.

Every key a script reads or writes reaches it in KEYS, never built inside Lua from a
prefix or from ARGV: Redis's scripting guide says a script "should never access keys
with programmatically-generated names", Redis Cluster routes and slot-checks a call by
its declared keys, and managed services (and Redis 7's shebang scripts) refuse access to
undeclared ones (https://redis.io/docs/latest/develop/interact/programmability/eval-intro/,
https://github.com/redis/redis/pull/10615). A queue's keys share its hash tag
(redis_keys.queue_prefix), so a call's keys are one slot.

Each script is a `Spec`: the names of the queue keys it touches, in KEYS order, and
whether it also takes one `done:<lane>` key per lane of its candidates (after the fixed
ones). `source` puts a prelude in front of the body that binds them: `K.<name>` is the
declared key, `done(lane)` the declared sorted set of a lane (an error if the caller did
not declare it). tests/integration/test_redis_keys.py runs the scripts with CHECK_PRELUDE
in front, which rejects any command on a key not in KEYS.
"""

from __future__ import annotations

from dataclasses import dataclass

# Statistics of messages a get took (the `stats` hash): flags 'c' count them into MSGSOUT
# (MQIA_MSG_DEQ_COUNT: uncommitted gets count, backouts do not uncount), 'm' also stamp
# the last get time (LGETDATE / LGETTIME, only while monitoring is on for the queue).
_STATS_TAKEN = """
local function taken_stats(flags, n, now)
  if n > 0 and string.find(flags, 'c', 1, true) then
    redis.call('HINCRBY', K.stats, 'out', n)
    if string.find(flags, 'm', 1, true) then redis.call('HSET', K.stats, 'lget', now) end
  end
end
"""

_STATUS = """
local function status(c, owner, now)
  local sep = string.find(c, ':', 1, true)
  local ln = string.sub(c, 1, sep - 1)
  local off = tonumber(string.sub(c, sep + 1))
  local low = tonumber(redis.call('HGET', K.low, ln) or '0')
  if off < low or redis.call('ZSCORE', done(ln), off) then return 1, ln, off end
  local l = redis.call('HGET', K.lock, c)
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
if redis.call('EXISTS', K.epoch) == 0 then return {-2} end
local now, owner, lease, mode = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3]), ARGV[4]
local function take(c, ln, off)
  if mode == 'consume' then
    redis.call('ZADD', done(ln), off, off)
    redis.call('HDEL', K.lock, c)
    redis.call('DECR', K.depth)
  else
    redis.call('HSET', K.lock, c, owner .. '|' .. (now + lease))
  end
  taken_stats(ARGV[6], 1, now)
end
local res = {0, 0}
local function bo(c) return tonumber(redis.call('HGET', K.bo, c) or '0') end
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
if redis.call('EXISTS', K.epoch) == 0 then return {-2} end
local now, owner = tonumber(ARGV[1]), ARGV[2]
local taken, backouts, gone = {}, {}, {}
for i = 4, #ARGV do
  local s, ln, off = status(ARGV[i], owner, now)
  if s == 0 or s == 3 then
    redis.call('ZADD', done(ln), off, off)
    redis.call('HDEL', K.lock, ARGV[i])
    table.insert(taken, i - 3)
    table.insert(backouts, tonumber(redis.call('HGET', K.bo, ARGV[i]) or '0'))
  elseif s == 1 then
    table.insert(gone, i - 3)
  elseif s == 5 then
    break  -- another handle's get lease: nothing behind it is taken first
  end
end
if #taken > 0 then redis.call('DECRBY', K.depth, #taken) end
taken_stats(ARGV[3], #taken, now)
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
if redis.call('EXISTS', K.epoch) == 0 then return {-2} end
local now, owner, to = tonumber(ARGV[1]), ARGV[2], ARGV[4]
local until_ms = now + tonumber(ARGV[5])
local res, n = {0}, 0
for i = 6, #ARGV do
  local s, ln, off = status(ARGV[i], owner, now)
  if s == 0 or s == 3 then
    if to == '' then
      redis.call('ZADD', done(ln), off, off)
      redis.call('HDEL', K.lock, ARGV[i])
    else
      redis.call('HSET', K.lock, ARGV[i], to .. '|' .. until_ms)
    end
    n = n + 1
  elseif s == 1 then
    table.insert(res, i - 5)
  else
    table.insert(res, -(i - 5))
  end
end
if n > 0 and to == '' then redis.call('DECRBY', K.depth, n) end
taken_stats(ARGV[3], n, now)
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
if redis.call('EXISTS', K.epoch) == 0 then return {-2} end
local now, owner, lease = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3])
local taken, backouts, gone = {}, {}, {}
for i = 5, #ARGV do
  local s, ln, off = status(ARGV[i], owner, now)
  if s == 0 or s == 3 then
    redis.call('HSET', K.lock, ARGV[i], owner .. '|' .. (now + lease))
    table.insert(taken, i - 4)
    table.insert(backouts, tonumber(redis.call('HGET', K.bo, ARGV[i]) or '0'))
  elseif s == 1 then
    table.insert(gone, i - 4)
  elseif s == 5 then
    break  -- another handle's get lease: nothing behind it is taken first
  end
end
taken_stats(ARGV[4], #taken, now)
return {taken, backouts, gone}
"""
)

# ARGV: now_ms, owner, cands... -> statuses (0 free, 1 gone, 2 locked by other, 3 mine,
# 4 stale, 5 held by another handle's get lease).
_PEEK = (
    _STATUS
    + """
if redis.call('EXISTS', K.epoch) == 0 then return {-2} end
local out = {}
for i = 3, #ARGV do local s = status(ARGV[i], ARGV[2], tonumber(ARGV[1])); out[i - 2] = s end
return out
"""
)

# ARGV: owner, bump_backout ('0'|'1'), cands... Releases my locks; returns how many.
_RELEASE = """
local n = 0
for i = 3, #ARGV do
  local l = redis.call('HGET', K.lock, ARGV[i])
  if l and string.sub(l, 1, string.find(l, '|', 1, true) - 1) == ARGV[1] then
    redis.call('HDEL', K.lock, ARGV[i])
    if ARGV[2] == '1' then redis.call('HINCRBY', K.bo, ARGV[i], 1) end
    n = n + 1
  end
end
return n
"""

# ARGV: now_ms, owner, lease_ms, cands... Extends my locks; returns how many are no
# longer mine (a unit of work holding such a get must not commit).
_VERIFY = """
if redis.call('EXISTS', K.epoch) == 0 then return -2 end
local now, owner, lease = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3])
local lost = 0
for i = 4, #ARGV do
  local l = redis.call('HGET', K.lock, ARGV[i])
  if l and string.sub(l, 1, string.find(l, '|', 1, true) - 1) == ARGV[2] then
    redis.call('HSET', K.lock, ARGV[i], owner .. '|' .. (now + lease))
  else
    lost = lost + 1
  end
end
return lost
"""

# ARGV: cands... Consumption that is durable in the ack log (a committed unit of work,
# or reconciliation): drop any lock, record the offset, count it once.
_APPLY = """
local n = 0
for i = 1, #ARGV do
  local c = ARGV[i]
  redis.call('HDEL', K.lock, c)
  local sep = string.find(c, ':', 1, true)
  local ln, off = string.sub(c, 1, sep - 1), tonumber(string.sub(c, sep + 1))
  local low = tonumber(redis.call('HGET', K.low, ln) or '0')
  if off >= low and redis.call('ZADD', done(ln), off, off) == 1 then n = n + 1 end
end
if n > 0 then redis.call('DECRBY', K.depth, n) end
return n
"""

# ARGV: now_ms, cands... Locks whose lease ran out, checked against an ack log read to
# its last stable offset: not consumed, so the dead owner's unit of work was backed out.
# The message is released with BackoutCount + 1.
_RECLAIM = """
local now = tonumber(ARGV[1])
local n = 0
for i = 2, #ARGV do
  local c = ARGV[i]
  local l = redis.call('HGET', K.lock, c)
  if l and tonumber(string.sub(l, string.find(l, '|', 1, true) + 1)) <= now then
    redis.call('HDEL', K.lock, c)
    redis.call('HINCRBY', K.bo, c, 1)
    n = n + 1
  end
end
return n
"""

# ARGV: lane, new_low. Raises the lane's low watermark and forgets offsets below it,
# but never past a locked offset (a message in a unit of work, a browse lock): a
# backout must find it above the watermark, available again.
_ADVANCE = """
local cur = tonumber(redis.call('HGET', K.low, ARGV[1]) or '0')
local new = tonumber(ARGV[2])
local prefix = ARGV[1] .. ':'
for _, c in ipairs(redis.call('HKEYS', K.lock)) do
  if string.sub(c, 1, #prefix) == prefix then
    local off = tonumber(string.sub(c, #prefix + 1))
    if off < new then new = off end
  end
end
if new > cur then
  redis.call('HSET', K.low, ARGV[1], new)
  redis.call('ZREMRANGEBYSCORE', done(ARGV[1]), '-inf', '(' .. new)
end
return new > cur and 1 or 0
"""

# ARGV: lane, offsets (ascending). Counts into the depth the native records above the
# lane's native mark and raises the mark to the last; NO_EPOCH without the epoch.
_COUNT_NATIVE = """
if redis.call('EXISTS', K.epoch) == 0 then return -2 end
local mark = tonumber(redis.call('HGET', K.native, ARGV[1]) or '-1')
local n, top = 0, mark
for i = 2, #ARGV do
  local off = tonumber(ARGV[i])
  if off > mark then
    n = n + 1
    if off > top then top = off end
  end
end
if n > 0 then
  redis.call('HSET', K.native, ARGV[1], top)
  local d = redis.call('INCRBY', K.depth, n)
  redis.call('HINCRBY', K.stats, 'in', n)
  if d > tonumber(redis.call('HGET', K.stats, 'high') or '0') then
    redis.call('HSET', K.stats, 'high', d)
  end
end
return n
"""

# ARGV: delta, enqueued, put_ms, qtime_sum_ms, qtime_n, short weight, long weight. The
# pump's batched depth count, with the statistics folded into the same call: MSGSIN
# (MQIA_MSG_ENQ_COUNT) + enqueued, HIGHQDEPTH raised to the new depth, the last put time
# (0: none to record, monitoring off) kept if later, QTIME's indicators (store.fold_qtime).
_ADD_DEPTH = """
local s = K.stats
local d = redis.call('INCRBY', K.depth, ARGV[1])
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
local s = K.stats
local v = redis.call('HMGET', s, 'in', 'out', 'high', 'reset')
local depth = tonumber(redis.call('GET', K.depth) or '0')
local high = math.max(tonumber(v[3] or '0'), depth)
local since = tonumber(v[4] or redis.call('GET', K.epoch) or ARGV[1])
redis.call('HSET', s, 'in', 0, 'out', 0, 'high', depth, 'reset', ARGV[1])
return {tonumber(v[1] or '0'), tonumber(v[2] or '0'), high, since}
"""

# ARGV: token, seq, delta. Adds delta to the depth once per (token, seq) and queue.
_ADD_ONCE = """
local mark = K.once
if tonumber(redis.call('GET', mark) or '-1') >= tonumber(ARGV[2]) then return 0 end
redis.call('INCRBY', K.depth, ARGV[3])
redis.call('SET', mark, ARGV[2])
return 1
"""

# A DELETE QLOCAL in progress (`deleting`, `owner|until_ms`) whose lease runs at `now`.
_DELETING = """
local function deleting(now)
  local d = redis.call('GET', K.deleting)
  return d and tonumber(string.sub(d, string.find(d, '|', 1, true) + 1)) > now
end
"""

# ARGV: handle, kinds, until_ms, now_ms. An input open is refused (0) while another live
# handle holds the queue exclusively; an exclusive one while another has input. Any open
# is refused (2) once the queue is deleted or while it is being deleted.
_OPEN = (
    _DELETING
    + """
local handle, kinds, now = ARGV[1], ARGV[2], tonumber(ARGV[4])
if redis.call('GET', K.def) == 'deleted' or deleting(now) then return 2 end
local function has(list, kind)
  return string.find(',' .. list .. ',', ',' .. kind .. ',', 1, true)
end
if has(kinds, 'input') then
  local entries = redis.call('HGETALL', K.opens)
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
redis.call('HSET', K.opens, handle, kinds .. '|' .. ARGV[3])
return 1
"""
)

# ARGV: owner, until_ms, now_ms, expire_ms. DELETE QLOCAL's first step, atomic with
# _OPEN: refused (0) while any live handle is registered or another delete runs;
# else the queue is marked as being deleted (the key's own expiry only collects it).
_BEGIN_DELETE = (
    _DELETING
    + """
local now = tonumber(ARGV[3])
if deleting(now) then return 0 end
for _, v in ipairs(redis.call('HVALS', K.opens)) do
  if tonumber(string.sub(v, string.find(v, '|', 1, true) + 1)) > now then return 0 end
end
redis.call('SET', K.deleting, ARGV[1] .. '|' .. ARGV[2], 'PX', ARGV[4])
return 1
"""
)

# ARGV: owner. Drops the owner's delete mark (a delete that did not happen).
_END_DELETE = """
local d = redis.call('GET', K.deleting)
if d and string.sub(d, 1, string.find(d, '|', 1, true) - 1) == ARGV[1] then
  redis.call('DEL', K.deleting)
end
return 0
"""


# ARGV: the primary's replication id (INFO replication's master_replid). Run on every new
# connection of a Sentinel-managed client, before it serves anything (redis_conn.py): a
# state last written under another primary may miss what the old primary had not yet
# replicated, so its epoch goes and the next claim rebuilds it from Kafka. A state with
# no primary recorded adopts this one. Returns 1 if the epoch was dropped.
_CHECK_PRIMARY = """
local was = redis.call('GET', K.primary)
redis.call('SET', K.primary, ARGV[1])
if was and was ~= ARGV[1] and redis.call('EXISTS', K.epoch) == 1 then
  redis.call('DEL', K.epoch)
  return 1
end
return 0
"""
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


@dataclass(frozen=True)
class Spec:
    """A script's body and its keys: `keys` name queue keys (`<prefix><name>`) in KEYS
    order; `lanes`: one `<prefix>done:<lane>` per lane follows them; `raw`: the body
    reads KEYS itself (queue-manager-wide keys, redis_store passes them)."""

    body: str
    keys: tuple[str, ...] = ()
    lanes: bool = False
    raw: bool = False


SPECS: dict[str, Spec] = {
    "claim": Spec(_CLAIM, ("epoch", "low", "lock", "bo", "depth", "stats"), lanes=True),
    "claim_many": Spec(_CLAIM_MANY, ("epoch", "low", "lock", "bo", "depth", "stats"), lanes=True),
    "lock_many": Spec(_LOCK_MANY, ("epoch", "low", "lock", "bo", "stats"), lanes=True),
    "settle_leased": Spec(_SETTLE_LEASED, ("epoch", "low", "lock", "depth", "stats"), lanes=True),
    "peek": Spec(_PEEK, ("epoch", "low", "lock"), lanes=True),
    "release": Spec(_RELEASE, ("lock", "bo")),
    "verify": Spec(_VERIFY, ("epoch", "lock")),
    "apply": Spec(_APPLY, ("lock", "low", "depth"), lanes=True),
    "reclaim": Spec(_RECLAIM, ("lock", "bo")),
    "advance": Spec(_ADVANCE, ("low", "lock"), lanes=True),
    "add_once": Spec(_ADD_ONCE, ("depth", "once")),  # `once` = once:<token>
    "count_native": Spec(_COUNT_NATIVE, ("epoch", "native", "depth", "stats")),
    "add_depth": Spec(_ADD_DEPTH, ("depth", "stats")),
    "reset_stats": Spec(_RESET_STATS, ("stats", "depth", "epoch")),
    "open": Spec(_OPEN, ("def", "deleting", "opens")),
    "begin_delete": Spec(_BEGIN_DELETE, ("deleting", "opens")),
    "end_delete": Spec(_END_DELETE, ("deleting",)),
    "check_primary": Spec(_CHECK_PRIMARY, ("epoch", "primary")),
    "sub_lease": Spec(_SUB_LEASE, raw=True),
    "sub_release": Spec(_SUB_RELEASE, raw=True),
    "pub_counts": Spec(_PUB_COUNTS, raw=True),
    "sub_change": Spec(_SUB_CHANGE, raw=True),
}


def _prelude(spec: Spec) -> str:
    if spec.raw:
        return ""
    names = ", ".join(f'["{k}"] = KEYS[{i}]' for i, k in enumerate(spec.keys, 1))
    out = f"local K = {{{names}}}\n"
    if spec.lanes:
        # The lane of a declared `...:done:<lane>` key is read off the key itself (names
        # of queues and queue managers hold no ':'), so done(lane) finds only declared keys.
        out += (
            "local D = {}\n"
            f"for j = {len(spec.keys) + 1}, #KEYS do\n"
            "  D[string.match(KEYS[j], ':done:([^:]*)$')] = KEYS[j]\n"
            "end\n"
            "local function done(ln)\n"
            "  return D[ln] or error('undeclared key: done:' .. tostring(ln))\n"
            "end\n"
        )
    return out


# Commands the scripts use and which of their arguments are keys: 'first', or 'all'.
_KEY_POSITIONS = {
    **dict.fromkeys(("DEL", "EXISTS"), "all"),
    **dict.fromkeys(
        (
            "GET", "SET", "INCR", "INCRBY", "DECR", "DECRBY",
            "HGET", "HSET", "HDEL", "HINCRBY", "HGETALL", "HKEYS", "HVALS", "HMGET",
            "ZADD", "ZSCORE", "ZREMRANGEBYSCORE", "RPUSH", "LTRIM",
        ),
        "first",
    ),
}  # fmt: skip

# Put in front of a script (tests only): a local `redis` whose call/pcall refuse a key
# that is not in KEYS, and a command whose key positions are unknown (so a new command
# in a script fails the test until it is added here).
CHECK_PRELUDE = (
    "local R = redis\n"
    "local declared = {}\n"
    "for _, k in ipairs(KEYS) do declared[k] = true end\n"
    "local positions = {"
    + ", ".join(f'["{c}"] = "{p}"' for c, p in sorted(_KEY_POSITIONS.items()))
    + "}\n"
    """local function check(cmd, ...)
  local args = {...}
  local pos = positions[string.upper(cmd)]
  if not pos then error('key check: unknown command ' .. cmd) end
  local last = (pos == 'all') and #args or 1
  for i = 1, last do
    if not declared[args[i]] then error('undeclared key: ' .. tostring(args[i])) end
  end
end
local redis = setmetatable({
  call = function(cmd, ...) check(cmd, ...); return R.call(cmd, ...) end,
  pcall = function(cmd, ...) check(cmd, ...); return R.pcall(cmd, ...) end,
}, {__index = R})
"""
)


def source(name: str, check: bool = False) -> str:
    """The full text of script `name`: (the key check,) its key prelude, its body."""
    spec = SPECS[name]
    return (CHECK_PRELUDE if check else "") + _prelude(spec) + spec.body
