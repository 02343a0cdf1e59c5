"""One queue's state on Redis (store.QueueState): the scripts of redis_scripts.py bound to
the queue's declared keys (redis_keys.queue_prefix), plus the plain reads and writes.

Every call first settles the write-behind connection (_Settled), so no state call
overtakes a consumption marker this process sent before it.
"""

from __future__ import annotations

import logging

from adapter import config
from adapter.shim.redis_keys import queue_prefix
from adapter.shim.redis_parts import StoreParts
from adapter.shim.redis_scripts import SPECS
from adapter.shim.store import (
    DELETED,
    LEASE_PREFIX,
    QTIME_WEIGHTS,
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

    def __init__(self, store: StoreParts, queue: str) -> None:
        self._behind = store.behind
        self.r = _Settled(store.client, store.behind)
        self.prefix = queue_prefix(store.qmgr, queue)
        self._now_ms = store.now_ms
        self._settle_leased = store.scripts["settle_leased"]
        self._add_depth = store.scripts["add_depth"]  # sent write-behind, not settled
        self._set_uncommitted = store.scripts["set_uncommitted"]  # write-behind too
        self._apply_behind = store.scripts["apply"]  # apply_consumed_later's
        s = {name: _Settled(script, store.behind) for name, script in store.scripts.items()}
        self._claim, self._peek, self._release = s["claim"], s["peek"], s["release"]
        self._advance, self._claim_many, self._lock_many = (
            s["advance"],
            s["claim_many"],
            s["lock_many"],
        )
        self._verify, self._apply, self._reclaim = s["verify"], s["apply"], s["reclaim"]
        self._open = s["open"]
        self._depth_with_uncommitted = s["depth_with_uncommitted"]
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

    def apply_consumed_later(self, cands: list[tuple[int, int, int]]) -> None:
        # Write-behind (writebehind.py): a commit's consumption is in the ack log
        # already; every later state call of this process settles it first.
        if cands:
            keys = self._lane_keys("apply", cands)
            self._behind.send(self._apply_behind, keys, list(map(encode, cands)), _ignore_reply)

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

    def set_uncommitted(self, owner: str, puts: int, gets: int, lease_ms: int) -> None:
        now = self._now_ms()
        args = [owner, puts, gets, now + lease_ms, now]
        self._behind.send(self._set_uncommitted, self._keys["set_uncommitted"], args, _ignore_reply)

    def depth_with_uncommitted(self, exclude_owner: str = "") -> int:
        return self._uncommitted(exclude_owner, puts_only=False)

    def uncommitted_puts(self, exclude_owner: str = "") -> int:
        return self._uncommitted(exclude_owner, puts_only=True)

    def _uncommitted(self, exclude_owner: str, *, puts_only: bool) -> int:
        keys = self._keys["depth_with_uncommitted"]
        args = [exclude_owner, self._now_ms(), "1" if puts_only else "0"]
        return int(self._depth_with_uncommitted(keys=keys, args=args))

    def has_epoch(self) -> bool:
        return bool(self.r.exists(self.prefix + "epoch"))

    def epoch_mark(self, *, in_call: bool = False) -> str | None:
        # Through the client-tracking cache: a FLUSHALL or a rebuild invalidates it.
        raw = self._marks.get(self.prefix + "epoch", in_call=in_call)
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

    def definition(self, *, in_call: bool = False) -> str | None:
        raw = self._marks.get(self.prefix + "def", in_call=in_call)
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
        # One DEL of every key: all in the queue's slot (a cluster pipeline refuses a
        # many-key DEL; a single command needs no pipeline).
        keys = list(self.r.scan_iter(match=self.prefix + "done:*", count=500))
        keys += [self.prefix + k for k in ("low", "lock", "bo", "depth", "native", "ackpos")]
        self.r.delete(*keys, self.prefix + "epoch")

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
