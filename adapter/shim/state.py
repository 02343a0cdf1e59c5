"""A queue's hot consumption state in Redis, changed only by atomic Lua scripts.

Shaped after Kafka's share-group state: per lane (priority topic partition) a low
watermark below which everything is consumed, the consumed offsets above it (a sorted
set), and in-flight locks with leases (syncpoint gets, browse locks). A destructive get
is one script call that claims the first free candidate, so a message goes to exactly
one getter however many processes compete. Durable truth is the queue's ack log in
Kafka (see recovery.py); an `epoch` key marks state that is complete, and every script
refuses to run without it, so state lost with Redis is rebuilt before it is trusted.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import redis

from adapter.shim import naming

NO_EPOCH = -2

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
    if tonumber(string.sub(l, bar + 1)) > now then return 2, ln, off end
    -- The owner's lease ran out: it may have died after committing, so the ack log
    -- must be reconciled before the message is offered again.
    return 4, ln, off
  end
  return 0, ln, off
end
"""

# ARGV: now_ms, owner, lease_ms, mode ('consume'|'lock'), all_or_nothing ('0'|'1'), cands...
# Returns {taken_index (1-based, 0 = none), its BackoutCount, codes...} or {-2} without an
# epoch; a code i > 0: candidate i is consumed, -i: locked (stale, or held).
# Status 1 = consumed (gone for good), 2 = locked by another owner, 3 = locked by me,
# 4 = locked by an owner whose lease ran out (reconcile with the ack log first).
_CLAIM = (
    _STATUS
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
end
local res = {0, 0}
local function bo(c) return tonumber(redis.call('HGET', p .. 'bo', c) or '0') end
if ARGV[5] == '1' then
  local seen = {}
  for i = 6, #ARGV do
    local s, ln, off = status(ARGV[i], owner, now)
    if s == 1 or s == 2 or s == 4 then
      res[1] = 0
      table.insert(res, (s == 1) and (i - 5) or -(i - 5))
      return res
    end
    seen[i] = {ln, off}
  end
  for i = 6, #ARGV do take(ARGV[i], seen[i][1], seen[i][2]) end
  res[1] = 1
  res[2] = bo(ARGV[6])
  return res
end
for i = 6, #ARGV do
  local s, ln, off = status(ARGV[i], owner, now)
  if s == 0 or s == 3 then
    take(ARGV[i], ln, off)
    res[1] = i - 5
    res[2] = bo(ARGV[i])
    return res
  end
  if s == 1 then table.insert(res, i - 5) end
  if s == 4 then table.insert(res, -(i - 5)) end
end
return res
"""
)

# Read-ahead: consume every free candidate at once. ARGV: now_ms, owner, cands...
# Returns {{taken_index...}, {their BackoutCounts...}, {gone_index...}} or {-2}.
_CLAIM_MANY = (
    _STATUS
    + """
if redis.call('EXISTS', p .. 'epoch') == 0 then return {-2} end
local now, owner = tonumber(ARGV[1]), ARGV[2]
local taken, backouts, gone = {}, {}, {}
for i = 3, #ARGV do
  local s, ln, off = status(ARGV[i], owner, now)
  if s == 0 or s == 3 then
    redis.call('ZADD', p .. 'done:' .. ln, off, off)
    redis.call('HDEL', p .. 'lock', ARGV[i])
    table.insert(taken, i - 2)
    table.insert(backouts, tonumber(redis.call('HGET', p .. 'bo', ARGV[i]) or '0'))
  elseif s == 1 then
    table.insert(gone, i - 2)
  end
end
if #taken > 0 then redis.call('DECRBY', p .. 'depth', #taken) end
return {taken, backouts, gone}
"""
)

# Syncpoint read-ahead: lock every free candidate for a unit of work at once.
# ARGV: now_ms, owner, lease_ms, cands... Returns {{taken...}, {backouts...}, {gone...}}.
_LOCK_MANY = (
    _STATUS
    + """
if redis.call('EXISTS', p .. 'epoch') == 0 then return {-2} end
local now, owner, lease = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3])
local taken, backouts, gone = {}, {}, {}
for i = 4, #ARGV do
  local s, ln, off = status(ARGV[i], owner, now)
  if s == 0 or s == 3 then
    redis.call('HSET', p .. 'lock', ARGV[i], owner .. '|' .. (now + lease))
    table.insert(taken, i - 3)
    table.insert(backouts, tonumber(redis.call('HGET', p .. 'bo', ARGV[i]) or '0'))
  elseif s == 1 then
    table.insert(gone, i - 3)
  end
end
return {taken, backouts, gone}
"""
)

# ARGV: now_ms, owner, cands... -> statuses (0 free, 1 gone, 2 locked by other, 3 mine).
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
if n > 0 then redis.call('PUBLISH', p .. 'avail', n) end
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
if n > 0 then redis.call('PUBLISH', p .. 'avail', n) end
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


def cand(lane: str, offset: int) -> str:
    return f"{lane}:{offset}"


@dataclass
class ClaimResult:
    index: int | None  # index into the candidate list of the claimed one
    backout: int  # its BackoutCount in Redis (units of work backed out since it was put)
    gone: list[int]  # indexes of candidates consumed by someone else
    locked: list[int]  # indexes locked by another owner (all-or-nothing mode only)


class NoEpochError(RuntimeError):
    """The queue's Redis state is missing (Redis lost or flushed): rebuild it first."""


class QueueState:
    """Scripts bound to one queue's key prefix."""

    def __init__(self, client: redis.Redis, qmgr: str, queue: str) -> None:
        self.r = client
        self.prefix = naming.key_prefix(qmgr, queue)
        self._claim = client.register_script(_CLAIM)
        self._peek = client.register_script(_PEEK)
        self._release = client.register_script(_RELEASE)
        self._advance = client.register_script(_ADVANCE)
        self._claim_many = client.register_script(_CLAIM_MANY)
        self._lock_many = client.register_script(_LOCK_MANY)
        self._verify = client.register_script(_VERIFY)
        self._apply = client.register_script(_APPLY)
        self._reclaim = client.register_script(_RECLAIM)

    @staticmethod
    def now_ms() -> int:
        return int(time.time() * 1000)

    def claim(
        self,
        cands: list[str],
        owner: str,
        *,
        consume: bool,
        lease_ms: int = 60_000,
        all_or_nothing: bool = False,
    ) -> ClaimResult:
        mode = "consume" if consume else "lock"
        res = self._claim(
            keys=[self.prefix],
            args=[self.now_ms(), owner, lease_ms, mode, "1" if all_or_nothing else "0", *cands],
        )
        if res and res[0] == NO_EPOCH:
            raise NoEpochError(self.prefix)
        taken, backout = int(res[0]), int(res[1])
        rest = [int(x) for x in res[2:]]
        if all_or_nothing:
            return ClaimResult(
                index=0 if taken else None,
                backout=backout,
                gone=[x - 1 for x in rest if x > 0],
                locked=[-x - 1 for x in rest if x < 0],
            )
        return ClaimResult(
            index=taken - 1 if taken else None,
            backout=backout,
            gone=[x - 1 for x in rest if x > 0],
            locked=[-x - 1 for x in rest if x < 0],  # lease ran out: reconcile, then retry
        )

    def consume_many(self, cands: list[str], owner: str) -> tuple[list[int], list[int], list[int]]:
        """Consume every free candidate: (taken indexes, their BackoutCounts, gone indexes)."""
        res = self._claim_many(keys=[self.prefix], args=[self.now_ms(), owner, *cands])
        if res and res[0] == NO_EPOCH:
            raise NoEpochError(self.prefix)
        taken, backouts, gone = res
        return [int(x) - 1 for x in taken], [int(b) for b in backouts], [int(x) - 1 for x in gone]

    def lock_many(
        self, cands: list[str], owner: str, lease_ms: int
    ) -> tuple[list[int], list[int], list[int]]:
        """Lock every free candidate: (taken indexes, their BackoutCounts, gone indexes)."""
        res = self._lock_many(keys=[self.prefix], args=[self.now_ms(), owner, lease_ms, *cands])
        if res and res[0] == NO_EPOCH:
            raise NoEpochError(self.prefix)
        taken, backouts, gone = res
        return [int(x) - 1 for x in taken], [int(b) for b in backouts], [int(x) - 1 for x in gone]

    def verify(self, cands: list[str], owner: str, lease_ms: int) -> int:
        """Extend my locks; the number that are no longer mine."""
        if not cands:
            return 0
        lost = int(self._verify(keys=[self.prefix], args=[self.now_ms(), owner, lease_ms, *cands]))
        if lost == NO_EPOCH:
            raise NoEpochError(self.prefix)
        return lost

    def apply_consumed(self, cands: list[str]) -> int:
        """Consumption durable in Kafka becomes Redis state; returns how many were new."""
        if not cands:
            return 0
        return int(self._apply(keys=[self.prefix], args=cands))

    def reclaim(self, cands: list[str]) -> int:
        if not cands:
            return 0
        return int(self._reclaim(keys=[self.prefix], args=[self.now_ms(), *cands]))

    def stale_locks(self) -> list[str]:
        now = self.now_ms()
        out = []
        for c, raw in self.r.hgetall(self.prefix + "lock").items():
            until = int(raw.rsplit(b"|", 1)[1])
            if until <= now:
                out.append(c.decode())
        return out

    def ack_position(self) -> int:
        return int(self.r.get(self.prefix + "ackpos") or 0)

    def set_ack_position(self, pos: int) -> None:
        self.r.set(self.prefix + "ackpos", pos)

    def peek(self, cands: list[str], owner: str) -> list[int]:
        res = self._peek(keys=[self.prefix], args=[self.now_ms(), owner, *cands])
        if res and res[0] == NO_EPOCH:
            raise NoEpochError(self.prefix)
        return [int(x) for x in res]

    def release(self, cands: list[str], owner: str, *, backout: bool = False) -> int:
        if not cands:
            return 0
        return int(self._release(keys=[self.prefix], args=[owner, "1" if backout else "0", *cands]))

    def advance(self, lane: str, low: int) -> None:
        self._advance(keys=[self.prefix], args=[lane, low])

    def lows(self) -> dict[str, int]:
        return {k.decode(): int(v) for k, v in self.r.hgetall(self.prefix + "low").items()}

    def add_depth(self, delta: int) -> None:
        self.r.incrby(self.prefix + "depth", delta)

    def depth(self) -> int:
        return int(self.r.get(self.prefix + "depth") or 0)

    def has_epoch(self) -> bool:
        return bool(self.r.exists(self.prefix + "epoch"))

    def wake_channel(self) -> str:
        return self.prefix + "avail"

    def register_open(self, handle: str, kind: str, lease_ms: int = 120_000) -> None:
        self.r.hset(self.prefix + "opens", handle, f"{kind}|{self.now_ms() + lease_ms}")

    def unregister_open(self, handle: str) -> None:
        self.r.hdel(self.prefix + "opens", handle)

    def open_counts(self) -> dict[str, int]:
        now = self.now_ms()
        counts = {"input": 0, "output": 0, "browse": 0}
        for raw in self.r.hvals(self.prefix + "opens"):
            kinds, until = raw.decode().split("|")
            if int(until) > now:
                for k in kinds.split(","):
                    if k in counts:
                        counts[k] += 1
        return counts
