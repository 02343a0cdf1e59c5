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

from adapter.shim.redis_lua_claims import (
    _ADVANCE,
    _APPLY,
    _CLAIM,
    _CLAIM_MANY,
    _LOCK_MANY,
    _PEEK,
    _RECLAIM,
    _RELEASE,
    _SETTLE_LEASED,
    _VERIFY,
)
from adapter.shim.redis_lua_state import (
    _ADD_DEPTH,
    _ADD_ONCE,
    _BEGIN_DELETE,
    _CHECK_PRIMARY,
    _COUNT_NATIVE,
    _DEPTH_WITH_UNCOMMITTED,
    _END_DELETE,
    _HSET,
    _OPEN,
    _PUB_COUNTS,
    _RESET_STATS,
    _SET_UNCOMMITTED,
    _SUB_CHANGE,
    _SUB_LEASE,
    _SUB_RELEASE,
)


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
    "set_uncommitted": Spec(_SET_UNCOMMITTED, ("uncom",)),
    "depth_with_uncommitted": Spec(_DEPTH_WITH_UNCOMMITTED, ("depth", "uncom")),
    "reset_stats": Spec(_RESET_STATS, ("stats", "depth", "epoch")),
    "open": Spec(_OPEN, ("def", "deleting", "opens")),
    "begin_delete": Spec(_BEGIN_DELETE, ("deleting", "opens")),
    "end_delete": Spec(_END_DELETE, ("deleting",)),
    # The name claims (`defining`, shim/nameclaims.py) are leased hash fields as the
    # subscriptions' owners are: the same bodies.
    "name_claim": Spec(_SUB_LEASE, raw=True),
    "name_release": Spec(_SUB_RELEASE, raw=True),
    "check_primary": Spec(_CHECK_PRIMARY, ("epoch", "primary")),
    "sub_lease": Spec(_SUB_LEASE, raw=True),
    "sub_release": Spec(_SUB_RELEASE, raw=True),
    "pub_counts": Spec(_PUB_COUNTS, raw=True),
    "sub_change": Spec(_SUB_CHANGE, raw=True),
    "hset": Spec(_HSET, raw=True),
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
            "ZADD", "ZSCORE", "ZMSCORE", "ZREMRANGEBYSCORE", "RPUSH", "LTRIM",
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
