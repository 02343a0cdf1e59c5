"""The Redis state backend (store.StateStore): a queue's scripts bound to its keys, the
queue manager's catalog, run state, channel status and publish/subscribe state.

Key names: redis_keys.py; the Lua scripts and the keys each declares: redis_scripts.py;
the cached definition marks: redis_marks.py; connecting (a URL, Sentinel, Cluster):
redis_conn.py; write-behind calls: writebehind.py.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import redis
from tenacity import retry, retry_if_exception_type, stop_after_delay, wait_exponential

from adapter import config
from adapter.shim import redis_conn
from adapter.shim.redis_keys import (
    catalog_key,
    channel_status_key,
    channel_stop_key,
    pubsub_key,
    purge_queue_manager,
    queue_prefix,
    status_key,
)
from adapter.shim.redis_marks import DefinitionMarks, PlainMarks
from adapter.shim.redis_scripts import SPECS, source
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
from adapter.shim.writebehind import Direct, WriteBehind

__all__ = [
    "RedisPubSubState",
    "RedisQueueState",
    "RedisStore",
    "purge_queue_manager",
    "queue_prefix",
]

log = logging.getLogger("mqk.shim.redis_store")
_LEASE = LEASE_PREFIX.encode()

NO_EPOCH = -2
GONE = 2  # the open script: the queue is deleted or being deleted


def _batch(res) -> BatchClaim:
    if res and res[0] == NO_EPOCH:
        raise NoEpochError("no epoch")
    taken, backouts, gone = res
    return BatchClaim(
        [int(x) - 1 for x in taken], [int(b) for b in backouts], [int(x) - 1 for x in gone]
    )


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
        # Each script's declared keys (redis_scripts.SPECS), fixed per queue; the scripts
        # that take candidates add one `done:<lane>` per lane (_lane_keys).
        self._keys = {
            name: [self.prefix + k for k in spec.keys]
            for name, spec in SPECS.items()
            if not spec.raw
        }
        self.lease_conflicts = 0

    def _done(self, lane_name: str) -> str:
        return f"{self.prefix}done:{lane_name}"

    def _lane_keys(self, script: str, cands: list[tuple[int, int, int]]) -> list[str]:
        """The script's fixed keys and the `done` set of every lane among the candidates."""
        lanes = dict.fromkeys(f"{c[0]}.{c[1]}" for c in cands)
        return [*self._keys[script], *map(self._done, lanes)]

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
            keys=self._lane_keys("claim", cands),
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
        return _batch(self._claim_many(keys=self._lane_keys("claim_many", cands), args=args))

    def lock_many(
        self, cands: list[tuple[int, int, int]], owner: str, lease_ms: int, stats: str = ""
    ) -> BatchClaim:
        args = [self._now_ms(), owner, lease_ms, stats, *map(encode, cands)]
        return _batch(self._lock_many(keys=self._lane_keys("lock_many", cands), args=args))

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
        keys = self._lane_keys("settle_leased", cands)
        self._behind.send(self._settle_leased, keys, args, self._leased_reply)

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
        res = self._peek(
            keys=self._lane_keys("peek", cands), args=[self._now_ms(), owner, *map(encode, cands)]
        )
        if res and res[0] == NO_EPOCH:
            raise NoEpochError(self.prefix)
        return [ClaimStatus(int(x)) for x in res]

    def release(
        self, cands: list[tuple[int, int, int]], owner: str, *, backout: bool = False
    ) -> int:
        if not cands:
            return 0
        args = [owner, "1" if backout else "0", *map(encode, cands)]
        return int(self._release(keys=self._keys["release"], args=args))

    def verify(self, cands: list[tuple[int, int, int]], owner: str, lease_ms: int) -> int:
        if not cands:
            return 0
        args = [self._now_ms(), owner, lease_ms, *map(encode, cands)]
        lost = int(self._verify(keys=self._keys["verify"], args=args))
        if lost == NO_EPOCH:
            raise NoEpochError(self.prefix)
        return lost

    def apply_consumed(self, cands: list[tuple[int, int, int]]) -> int:
        if not cands:
            return 0
        return int(self._apply(keys=self._lane_keys("apply", cands), args=list(map(encode, cands))))

    def reclaim(self, cands: list[tuple[int, int, int]]) -> int:
        if not cands:
            return 0
        return int(
            self._reclaim(keys=self._keys["reclaim"], args=[self._now_ms(), *map(encode, cands)])
        )

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
        self._advance(keys=[*self._keys["advance"], self._done(lane_name)], args=[lane_name, low])

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
        self._behind.send(self._add_depth, self._keys["add_depth"], args, _ignore_reply)

    def stats(self) -> QueueStats:
        raw = self.r.hgetall(self.prefix + "stats")
        return QueueStats.of({k.decode(): int(v) for k, v in raw.items()})

    def reset_stats(self) -> tuple[int, int, int, int]:
        inn, out, high, since = self._reset_stats(
            keys=self._keys["reset_stats"], args=[self._now_ms()]
        )
        return int(inn), int(out), int(high), int(since)

    def count_native(self, lane_name: str, offsets: list[int]) -> int:
        n = int(self._count_native(keys=self._keys["count_native"], args=[lane_name, *offsets]))
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
        res = int(self._open(keys=self._keys["open"], args=[handle, kinds, now + lease_ms, now]))
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
        return bool(self._begin_delete(keys=self._keys["begin_delete"], args=args))

    def end_delete(self, owner: str) -> None:
        self._end_delete(keys=self._keys["end_delete"], args=[owner])

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
        self.client = redis_conn.connect(url, qmgr)
        # MQK_REDIS_CHECK_KEYS=1 (tests): every script refuses a key it did not declare.
        check = config.REDIS_CHECK_KEYS
        self.scripts = {name: self.client.register_script(source(name, check)) for name in SPECS}
        self.marks: DefinitionMarks | PlainMarks
        self.behind: WriteBehind | Direct
        if redis_conn.is_cluster(url):
            # Tracking and the write-behind socket are per connection, a cluster's keys
            # on many nodes: their plain forms (PlainMarks, Direct say why).
            self.marks, self.behind = PlainMarks(self.client), Direct()
        else:
            self.marks, self.behind = DefinitionMarks(self.client), WriteBehind(self.client)
        self._queues: dict[str, RedisQueueState] = {}
        self._catalog = catalog_key(qmgr)
        self._status = status_key(qmgr)
        self._transient = retry(
            retry=retry_if_exception_type((redis.ConnectionError, redis.TimeoutError)),
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
            prefix = queue_prefix(self.qmgr, queue)
            keys = [prefix + "depth", f"{prefix}once:{token}"]
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
