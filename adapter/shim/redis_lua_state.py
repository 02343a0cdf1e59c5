"""Lua bodies of the rest of a queue's state (depth counting, statistics, opens,
deletes, the failover check) and of the queue manager's publish/subscribe hashes.

Keys are `K.<name>`, bound by redis_scripts.source's prelude to the declared KEYS
(redis_scripts.SPECS); the publish/subscribe scripts read KEYS[i] directly.
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

# KEYS: a hash of leased fields (subs.owner; also `defining`, the name claims of
# shim/nameclaims.py); ARGV: field, owner, now, until. 1: taken (free, expired or ours).
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

# KEYS: subs.owner (or `defining`); ARGV: field, owner. Drops the lease only if it is
# the owner's.
_SUB_RELEASE = """
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if cur and string.sub(cur, 1, string.find(cur, '|', 1, true) - 1) == ARGV[2] then
  redis.call('HDEL', KEYS[1], ARGV[1])
end
return 1
"""
# A unit of work's uncommitted puts and gets on the queue (store.set_uncommitted), sent
# write-behind. ARGV: owner, puts, gets, lease end (ms), now (ms). Both 0 removes the
# entry; entries whose lease ended more than a minute ago (their process died) go too.
_SET_UNCOMMITTED = """
if ARGV[2] == '0' and ARGV[3] == '0' then
  redis.call('HDEL', K.uncom, ARGV[1])
else
  redis.call('HSET', K.uncom, ARGV[1], ARGV[2] .. '|' .. ARGV[3] .. '|' .. ARGV[4])
end
local old = tonumber(ARGV[5]) - 60000
local flat = redis.call('HGETALL', K.uncom)
for i = 1, #flat, 2 do
  local untl = tonumber(string.match(flat[i + 1], '|(%d+)$'))
  if untl < old then
    redis.call('HDEL', K.uncom, flat[i])
  end
end
return 1
"""
# MQ's CurrentQDepth (store.depth_with_uncommitted): the committed depth plus every live
# unit of work's puts less its gets, but ARGV[1]'s (the caller counts its own); with
# ARGV[3] '1', only the live units of work's puts (store.uncommitted_puts).
# ARGV: owner to leave out, now (ms), puts only ('1' or '0').
_DEPTH_WITH_UNCOMMITTED = """
local puts_only = ARGV[3] == '1'
local total = 0
if not puts_only then
  total = tonumber(redis.call('GET', K.depth) or '0')
end
local now = tonumber(ARGV[2])
local flat = redis.call('HGETALL', K.uncom)
for i = 1, #flat, 2 do
  if flat[i] ~= ARGV[1] then
    local puts, gets, untl = string.match(flat[i + 1], '^(%d+)|(%d+)|(%d+)$')
    if tonumber(untl) > now then
      total = total + tonumber(puts)
      if not puts_only then
        total = total - tonumber(gets)
      end
    end
  end
end
return total
"""
# KEYS: one hash; ARGV: field, value. A plain HSET as a script, so that it can be sent
# write-behind (writebehind.py sends scripts): a channel agent's per-batch status.
_HSET = """
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""
