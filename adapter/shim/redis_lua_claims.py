"""Lua bodies of the claims: what getters, browsers and units of work do to a queue's
consumption state (`low`, `done:<lane>`, `lock`, `bo`, `depth`, `stats`, `epoch`).

Keys are `K.<name>` and `done(lane)`, bound by redis_scripts.source's prelude to the
script's declared KEYS (redis_scripts.SPECS); no key is built here.
"""

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
local function cand(c)  -- 'lane:offset' -> lane, offset
  local sep = string.find(c, ':', 1, true)
  return string.sub(c, 1, sep - 1), tonumber(string.sub(c, sep + 1))
end
local function lock_status(l, owner, now)
  if not l then return 0 end
  local bar = string.find(l, '|', 1, true)
  if string.sub(l, 1, bar - 1) == owner then return 3 end
  local lease = string.sub(l, 1, 1) == '~'
  if tonumber(string.sub(l, bar + 1)) > now then return lease and 5 or 2 end
  -- A get lease (owner '~...') consumes in Redis itself before MQGET returns: run out,
  -- it leaves nothing to reconcile, the message is free.
  if lease then return 0 end
  -- The owner's lease ran out: it may have died after committing, so the ack log
  -- must be reconciled before the message is offered again.
  return 4
end
local function status(c, owner, now)
  local ln, off = cand(c)
  local low = tonumber(redis.call('HGET', K.low, ln) or '0')
  if off < low or redis.call('ZSCORE', done(ln), off) then return 1, ln, off end
  return lock_status(redis.call('HGET', K.lock, c), owner, now), ln, off
end
"""

# status() of every candidate ARGV[first..#ARGV] at once: one HMGET of the locks and, per
# lane, one HGET of its low watermark and one ZMSCORE of its done set, instead of three
# calls per candidate (a call from a script costs Redis more than the command itself:
# INFO commandstats gave 140-150 us of Redis time to lock 16 candidates with status()
# each, 93 us this way). The answers are status()'s as of the script's start: a caller
# whose own writes could change a later candidate's (the same candidate listed twice)
# says so itself. Returns statuses, lanes and offsets, by position from `first`.
_STATUSES = """
local function chunked(cmd, key, items, out)
  for j = 1, #items, 500 do  -- unpack's C stack holds a few thousand values at most
    local part = redis.call(cmd, key, unpack(items, j, math.min(j + 499, #items)))
    if type(part) == 'table' then
      for m = 1, #part do out[j + m - 1] = part[m] end
    end
  end
  return out
end
local function statuses(first, owner, now)
  local cands, lns, offs, lanes = {}, {}, {}, {}
  for i = first, #ARGV do
    local k, c = i - first + 1, ARGV[i]
    local ln, off = cand(c)
    cands[k], lns[k], offs[k] = c, ln, off
    local lane = lanes[ln]
    if not lane then lane = {}; lanes[ln] = lane end
    lane[#lane + 1] = k
  end
  local st = {}
  if #cands == 0 then return st, lns, offs end
  local locks = chunked('HMGET', K.lock, cands, {})
  for ln, idx in pairs(lanes) do
    local low = tonumber(redis.call('HGET', K.low, ln) or '0')
    local members = {}
    for m, k in ipairs(idx) do members[m] = offs[k] end
    local scores = chunked('ZMSCORE', done(ln), members, {})
    for m, k in ipairs(idx) do
      if offs[k] < low or scores[m] then
        st[k] = 1
      else
        st[k] = lock_status(locks[k], owner, now)
      end
    end
  end
  return st, lns, offs
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
    + _STATUSES
    + _STATS_TAKEN
    + """
if redis.call('EXISTS', K.epoch) == 0 then return {-2} end
local now, owner = tonumber(ARGV[1]), ARGV[2]
local st, lns, offs = statuses(4, owner, now)
local taken, gone, fields, by_lane, here = {}, {}, {}, {}, {}
for k = 1, #ARGV - 3 do
  local c = ARGV[k + 3]
  local s = here[c] and 1 or st[k]  -- listed twice: taken the first time, gone now
  if s == 0 or s == 3 then
    here[c] = true
    table.insert(taken, k)
    table.insert(fields, c)
    local zs = by_lane[lns[k]]
    if not zs then zs = {}; by_lane[lns[k]] = zs end
    table.insert(zs, offs[k]); table.insert(zs, offs[k])
  elseif s == 1 then
    table.insert(gone, k)
  elseif s == 5 then
    break  -- another handle's get lease: nothing behind it is taken first
  end
end
local backouts = {}
if #taken > 0 then
  for ln, zs in pairs(by_lane) do chunked('ZADD', done(ln), zs, {}) end
  chunked('HDEL', K.lock, fields, {})
  chunked('HMGET', K.bo, fields, backouts)
  for m = 1, #backouts do backouts[m] = tonumber(backouts[m] or '0') end
  redis.call('DECRBY', K.depth, #taken)
end
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
  -- Still the owner's lock (the common case): not consumed, since every consumption
  -- drops the lock in the same script; low and done need not be read.
  local s = lock_status(redis.call('HGET', K.lock, ARGV[i]), owner, now)
  local ln, off
  if s == 3 then
    ln, off = cand(ARGV[i])
  else
    s, ln, off = status(ARGV[i], owner, now)
  end
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
    + _STATUSES
    + _STATS_TAKEN
    + """
if redis.call('EXISTS', K.epoch) == 0 then return {-2} end
local now, owner, lease = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3])
local st = statuses(5, owner, now)
local value = owner .. '|' .. (now + lease)
local taken, gone, fields, pairs_ = {}, {}, {}, {}
for k = 1, #ARGV - 4 do
  local c = ARGV[k + 4]
  local s = st[k]  -- listed twice: locked the first time, mine now (3), as it would read
  if s == 0 or s == 3 then
    table.insert(taken, k)
    table.insert(fields, c)
    table.insert(pairs_, c); table.insert(pairs_, value)
  elseif s == 1 then
    table.insert(gone, k)
  elseif s == 5 then
    break  -- another handle's get lease: nothing behind it is taken first
  end
end
local backouts = {}
if #taken > 0 then
  chunked('HSET', K.lock, pairs_, {})
  chunked('HMGET', K.bo, fields, backouts)
  for m = 1, #backouts do backouts[m] = tonumber(backouts[m] or '0') end
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
