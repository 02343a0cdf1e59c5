"""The in-memory state backend: store.StateStore without a server, for the fast tests.

Every transition is a transcription of the Lua script of the same name in
redis_store.py (the scripts are the specification): the same status codes, the same
order of checks, the same return shapes, the same scripts checking the epoch and the
same ones not checking it, down to the quirks (an all-or-nothing consuming claim
counts a repeated candidate twice, as the script does). tests/integration/
test_store_parity.py runs random sequences against both and compares the results.
Locks are kept as (owner, lease end) pairs where Redis keeps `owner|lease_end` and its
scripts split at the first '|': owners containing '|' work here and break there.

A `MemoryServer` plays the Redis server: it holds the data and one lock, so several
`MemoryStore`s on one server (connections of one process, or of several simulated
processes) see each other's claims, and each transition is atomic across threads as a
script is. The server can lose everything (`flushall`, Redis restarted without
persistence) and can be made unreachable (`down`, `fail_next`) to test broken
connections.
"""

from __future__ import annotations

import builtins
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import redis

from adapter.shim.store import (
    DELETED,
    LEASE_PREFIX,
    NO_STATS,
    QTIME_WEIGHTS,
    SUB_CHANGES_KEPT,
    BatchClaim,
    Candidate,
    ClaimResult,
    ClaimStatus,
    NoEpochError,
    QueueDeletedError,
    QueueStats,
    fold_qtime,
    lane,
)

Cand = tuple[int, int, int]

_OPEN_KINDS = ("input", "output", "browse")


class MemoryConnectionError(redis.exceptions.ConnectionError, builtins.ConnectionError):
    """What a call on an unreachable fake server raises: both redis-py's ConnectionError
    (what RedisStore's callers see from a real server) and the builtin one (what the
    protocol names), so either `except` in the engine catches it."""


@dataclass
class _QueueData:
    """The keys of one queue (redis_store's key table, one field per key)."""

    low: dict[str, int] = field(default_factory=dict)
    done: dict[str, set[int]] = field(default_factory=dict)
    lock: dict[Cand, tuple[str, int]] = field(default_factory=dict)  # -> (owner, until)
    bo: dict[Cand, int] = field(default_factory=dict)
    depth: int = 0
    native: dict[str, int] = field(default_factory=dict)  # lane -> last native counted
    opens: dict[str, tuple[str, int]] = field(default_factory=dict)  # -> (kinds, until)
    uncom: dict[str, tuple[int, int, int]] = field(default_factory=dict)  # -> (puts, gets, until)
    epoch: str | None = None
    ackpos: int = 0
    mutex: dict[str, tuple[str, int]] = field(default_factory=dict)  # -> (owner, until)
    once: dict[str, int] = field(default_factory=dict)  # token -> last seq applied
    definition: str | None = None  # the definition mark (`def`)
    deleting: tuple[str, int] | None = None  # a DELETE QLOCAL in progress: (owner, until)
    stats: dict[str, int] = field(default_factory=dict)  # `stats`: in, out, high, reset, ...


@dataclass
class _PubSubData:
    """The memory twin of redis_store's `subs`, `subs.owner`, `subs.version`, `retained`,
    `topics.version`, `subs.stats`, `topics.stats`, `subs.changes`."""

    subs: dict[str, bytes] = field(default_factory=dict)
    owners: dict[str, tuple[str, int]] = field(default_factory=dict)
    version: int | None = None
    retained: dict[str, bytes] = field(default_factory=dict)
    topics_version: int | None = None
    changes: list[tuple[int, str]] = field(default_factory=list)
    sub_stats: dict[str, list[int]] = field(default_factory=dict)
    topic_stats: dict[str, list[int]] = field(default_factory=dict)


class MemoryServer:
    """One fake Redis: the data of every queue manager and the lock that makes each
    transition atomic. Share one between stores that should see one state."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.queues: dict[tuple[str, str], _QueueData] = {}
        self.catalogs: dict[str, dict[str, bytes]] = {}
        self.run_states: dict[str, str] = {}  # qmgr -> run state (`status`)
        self.pubsub: dict[str, _PubSubData] = {}  # qmgr -> subscriptions, retained
        self.channel_statuses: dict[str, dict[str, bytes]] = {}  # qmgr -> `chstatus`
        self.channel_stops: dict[str, set[str]] = {}  # qmgr -> `chstop`
        # qmgr -> `defining`: catalog key -> (owner, lease end) (RedisStore.claim_name)
        self.name_claims: dict[str, dict[str, tuple[str, int]]] = {}
        # Unreachable: every call of every store on this server raises.
        self.down = False

    def flushall(self) -> None:
        """Lose everything, as a Redis restarted without persistence does: every queue
        is then without its epoch, so claims raise NoEpochError until a rebuild."""
        with self.lock:
            self.queues.clear()
            self.catalogs.clear()
            self.run_states.clear()
            self.pubsub.clear()
            self.channel_statuses.clear()
            self.channel_stops.clear()
            self.name_claims.clear()

    def data(self, qmgr: str, queue: str) -> _QueueData:
        """The queue's keys (created empty on first use, as Redis keys appear on write)."""
        key = (qmgr, queue)
        d = self.queues.get(key)
        if d is None:
            d = self.queues[key] = _QueueData()
        return d


def _parse(c: Any) -> Cand:
    # Candidates come as item keys (plain tuples) or Candidates; normalise to ints so
    # equal candidates are equal dict keys, as their encoded spelling is in Redis.
    return (int(c[0]), int(c[1]), int(c[2]))


class MemoryQueueState:
    """store.QueueState of one queue on a MemoryServer. Each method takes the server's
    lock once: one script, one transition."""

    def __init__(self, store: MemoryStore, queue: str) -> None:
        self._store = store
        self._server = store.server
        self.qmgr = store.qmgr
        self.name = queue
        self._now_ms = store.now_ms
        self.lease_conflicts = 0

    # -- helpers ---------------------------------------------------------------------
    def _d(self) -> _QueueData:
        """The queue's data; the caller holds the server lock (and has passed _check)."""
        return self._server.data(self.qmgr, self.name)

    def _require_epoch(self, d: _QueueData) -> None:
        if d.epoch is None:
            raise NoEpochError(f"{self.qmgr}/{self.name}")

    @staticmethod
    def _status(d: _QueueData, c: Cand, owner: str, now: int) -> int:
        """_STATUS: 1 consumed, 3 mine, 2 locked by another whose lease runs, 4 locked
        by an owner whose lease ran out, 0 free (checked in this order)."""
        ln = lane(c[0], c[1])
        if c[2] < d.low.get(ln, 0) or c[2] in d.done.get(ln, ()):
            return ClaimStatus.CONSUMED
        held = d.lock.get(c)
        if held is not None:
            if held[0] == owner:
                return ClaimStatus.MINE
            lease = held[0].startswith(LEASE_PREFIX)
            if held[1] > now:
                return ClaimStatus.LEASED if lease else ClaimStatus.LOCKED
            if lease:  # a run-out get lease: free (_STATUS)
                return ClaimStatus.FREE
            return ClaimStatus.STALE
        return ClaimStatus.FREE

    @staticmethod
    def _taken_stats(d: _QueueData, flags: str, n: int, now: int) -> None:
        """_STATS_TAKEN: MSGSOUT + n ('c'), the last get time too ('m')."""
        if n > 0 and "c" in flags:
            d.stats["out"] = d.stats.get("out", 0) + n
            if "m" in flags:
                d.stats["lget"] = now

    @staticmethod
    def _raise_high(d: _QueueData) -> None:
        if d.depth > d.stats.get("high", 0):
            d.stats["high"] = d.depth

    @staticmethod
    def _consume(d: _QueueData, c: Cand) -> None:
        """Mark consumed and drop any lock (the 'consume' branch of take, without the
        depth change, which callers do per take or per batch as their scripts do)."""
        d.done.setdefault(lane(c[0], c[1]), set()).add(c[2])
        d.lock.pop(c, None)

    # -- claims ----------------------------------------------------------------------
    def claim(
        self,
        cands: list[tuple[int, int, int]],
        owner: str,
        *,
        consume: bool,
        lease_ms: int = 60_000,
        all_or_nothing: bool = False,
        stats: str = NO_STATS,
    ) -> ClaimResult:
        cs = [_parse(c) for c in cands]
        with self._store._call():
            d = self._d()
            self._require_epoch(d)
            now = self._now_ms()

            def take(c: Cand) -> None:
                if consume:
                    self._consume(d, c)
                    d.depth -= 1
                else:
                    d.lock[c] = (owner, now + lease_ms)
                self._taken_stats(d, stats, 1, now)

            if all_or_nothing:
                if not cs:
                    # The script reads the BackoutCount of a first candidate that is
                    # not there and fails; no caller means to claim nothing.
                    raise ValueError("an all-or-nothing claim needs candidates")
                for i, c in enumerate(cs):
                    s = self._status(d, c, owner, now)
                    if s == ClaimStatus.CONSUMED:
                        return ClaimResult(None, 0, [i], [])
                    if s in (ClaimStatus.LOCKED, ClaimStatus.STALE, ClaimStatus.LEASED):
                        return ClaimResult(None, 0, [], [i], leased=s == ClaimStatus.LEASED)
                # Statuses are all read before any take, as in the script: a repeated
                # candidate is taken (and, consuming, counted off the depth) twice.
                for c in cs:
                    take(c)
                return ClaimResult(0, d.bo.get(cs[0], 0), [], [])

            gone: list[int] = []
            locked: list[int] = []
            for i, c in enumerate(cs):
                s = self._status(d, c, owner, now)
                if s in (ClaimStatus.FREE, ClaimStatus.MINE):
                    take(c)
                    return ClaimResult(i, d.bo.get(c, 0), gone, locked)
                if s == ClaimStatus.CONSUMED:
                    gone.append(i)
                elif s == ClaimStatus.STALE:
                    locked.append(i)
                elif s == ClaimStatus.LEASED:  # about to be got: not overtaken
                    return ClaimResult(None, 0, gone, locked, leased=True)
                # A live lock of another owner is passed over silently.
            return ClaimResult(None, 0, gone, locked)

    def consume_many(
        self, cands: list[tuple[int, int, int]], owner: str, stats: str = NO_STATS
    ) -> BatchClaim:
        def consume(d: _QueueData, c: Cand, now: int) -> None:
            self._consume(d, c)
            d.depth -= 1  # the script's DECRBY #taken, in the same transition

        return self._take_many(cands, owner, consume, stats)

    def lock_many(
        self, cands: list[tuple[int, int, int]], owner: str, lease_ms: int, stats: str = NO_STATS
    ) -> BatchClaim:
        def lock(d: _QueueData, c: Cand, now: int) -> None:
            d.lock[c] = (owner, now + lease_ms)

        return self._take_many(cands, owner, lock, stats)

    def _take_many(
        self, cands: list[tuple[int, int, int]], owner: str, take, stats: str
    ) -> BatchClaim:
        """_CLAIM_MANY / _LOCK_MANY: take every free candidate (or one of owner's)."""
        cs = [_parse(c) for c in cands]
        with self._store._call():
            d = self._d()
            self._require_epoch(d)
            now = self._now_ms()
            taken: list[int] = []
            backouts: list[int] = []
            gone: list[int] = []
            for i, c in enumerate(cs):
                s = self._status(d, c, owner, now)
                if s in (ClaimStatus.FREE, ClaimStatus.MINE):
                    take(d, c, now)
                    taken.append(i)
                    backouts.append(d.bo.get(c, 0))
                elif s == ClaimStatus.CONSUMED:
                    gone.append(i)
                elif s == ClaimStatus.LEASED:  # about to be got: nothing behind it first
                    break
            self._taken_stats(d, stats, len(taken), now)
            return BatchClaim(taken, backouts, gone)

    def settle_leased(
        self,
        cands: list[tuple[int, int, int]],
        owner: str,
        stats: str = NO_STATS,
        to_owner: str = "",
        lease_ms: int = 0,
    ) -> None:
        cs = [_parse(c) for c in cands]
        with self._store._call():
            d = self._d()
            if d.epoch is None:  # the script's {-2}: the rebuild takes it from the ack log
                return
            now = self._now_ms()
            n = 0
            for c in cs:
                if self._status(d, c, owner, now) not in (ClaimStatus.FREE, ClaimStatus.MINE):
                    self.lease_conflicts += 1
                    continue
                if to_owner:
                    d.lock[c] = (to_owner, now + lease_ms)
                else:
                    self._consume(d, c)
                    d.depth -= 1
                n += 1
            self._taken_stats(d, stats, n, now)

    def peek(self, cands: list[tuple[int, int, int]], owner: str) -> list[ClaimStatus]:
        cs = [_parse(c) for c in cands]
        with self._store._call():
            d = self._d()
            self._require_epoch(d)
            now = self._now_ms()
            return [ClaimStatus(self._status(d, c, owner, now)) for c in cs]

    # -- locks -----------------------------------------------------------------------
    def release(
        self, cands: list[tuple[int, int, int]], owner: str, *, backout: bool = False
    ) -> int:
        if not cands:
            return 0
        cs = [_parse(c) for c in cands]
        with self._store._call():
            d = self._d()  # no epoch check: a backout after a flush must not fail
            n = 0
            for c in cs:
                held = d.lock.get(c)
                if held is not None and held[0] == owner:
                    del d.lock[c]
                    if backout:
                        d.bo[c] = d.bo.get(c, 0) + 1
                    n += 1
            return n

    def verify(self, cands: list[tuple[int, int, int]], owner: str, lease_ms: int) -> int:
        if not cands:
            return 0
        cs = [_parse(c) for c in cands]
        with self._store._call():
            d = self._d()
            # Checked: a commit must not trust locks of a state that was lost.
            self._require_epoch(d)
            now = self._now_ms()
            lost = 0
            for c in cs:
                held = d.lock.get(c)
                if held is not None and held[0] == owner:
                    d.lock[c] = (owner, now + lease_ms)
                else:
                    lost += 1
            return lost

    def apply_consumed_later(self, cands: list[tuple[int, int, int]]) -> None:
        self.apply_consumed(cands)

    def apply_consumed(self, cands: list[tuple[int, int, int]]) -> int:
        if not cands:
            return 0
        cs = [_parse(c) for c in cands]
        with self._store._call():
            d = self._d()  # no epoch check: recovery replays the ack log through this
            n = 0
            for c in cs:
                d.lock.pop(c, None)
                ln = lane(c[0], c[1])
                if c[2] >= d.low.get(ln, 0):
                    done = d.done.setdefault(ln, set())
                    if c[2] not in done:
                        done.add(c[2])
                        n += 1
            d.depth -= n
            return n

    def reclaim(self, cands: list[tuple[int, int, int]]) -> int:
        if not cands:
            return 0
        cs = [_parse(c) for c in cands]
        with self._store._call():
            d = self._d()
            now = self._now_ms()
            n = 0
            for c in cs:
                held = d.lock.get(c)
                if held is not None and held[1] <= now:
                    del d.lock[c]
                    d.bo[c] = d.bo.get(c, 0) + 1
                    n += 1
            return n

    def stale_locks(self) -> list[Candidate]:
        with self._store._call():
            d = self._d()
            now = self._now_ms()
            return [
                Candidate(*c)
                for c, (owner, until) in d.lock.items()
                if until <= now and not owner.startswith(LEASE_PREFIX)
            ]

    def live_locks(self, owner_prefix: str = "") -> int:
        with self._store._call():
            now = self._now_ms()
            return sum(
                1
                for owner, until in self._d().lock.values()
                if until > now and owner.startswith(owner_prefix)
            )

    # -- watermarks and counters -----------------------------------------------------
    def advance(self, lane_name: str, low: int) -> None:
        with self._store._call():
            d = self._d()
            cur = d.low.get(lane_name, 0)
            new = int(low)
            # Any lock in the lane holds the watermark below it, live or expired: a
            # backout (or a reclaim) must find the message above the watermark.
            for c in d.lock:
                if lane(c[0], c[1]) == lane_name and c[2] < new:
                    new = c[2]
            if new > cur:
                d.low[lane_name] = new
                done = d.done.get(lane_name)
                if done:
                    done.difference_update([o for o in done if o < new])

    def lows(self) -> dict[str, int]:
        with self._store._call():
            return dict(self._d().low)

    def add_depth(
        self,
        delta: int,
        enqueued: int = 0,
        put_ms: int = 0,
        qtime_sum_ms: int = 0,
        qtime_n: int = 0,
    ) -> None:
        with self._store._call():
            d = self._d()
            d.depth += int(delta)
            if enqueued > 0:
                d.stats["in"] = d.stats.get("in", 0) + int(enqueued)
            self._raise_high(d)
            if put_ms > 0 and put_ms > d.stats.get("lput", 0):
                d.stats["lput"] = int(put_ms)
            if qtime_n > 0:
                for f, weight in zip(("qshort", "qlong"), QTIME_WEIGHTS, strict=True):
                    old = d.stats.get(f, -1)
                    d.stats[f] = fold_qtime(old, int(qtime_sum_ms), int(qtime_n), weight)

    def stats(self) -> QueueStats:
        with self._store._call():
            return QueueStats.of(dict(self._d().stats))

    def reset_stats(self) -> tuple[int, int, int, int]:
        with self._store._call():
            d = self._d()
            now = self._now_ms()
            st = d.stats
            high = max(st.get("high", 0), d.depth)
            since = st.get("reset") or (int(d.epoch) if d.epoch is not None else now)
            out = (st.get("in", 0), st.get("out", 0), high, since)
            st.update({"in": 0, "out": 0, "high": d.depth, "reset": now})
            return out

    def count_native(self, lane_name: str, offsets: list[int]) -> int:
        with self._store._call():
            d = self._d()
            self._require_epoch(d)
            mark = d.native.get(lane_name, -1)
            above = [int(o) for o in offsets if int(o) > mark]
            if above:
                d.native[lane_name] = max(above)
                d.depth += len(above)
                d.stats["in"] = d.stats.get("in", 0) + len(above)
                self._raise_high(d)
            return len(above)

    def set_native_marks(self, marks: dict[str, int]) -> None:
        with self._store._call():
            self._d().native.update({k: int(v) - 1 for k, v in marks.items()})

    def depth(self) -> int:
        with self._store._call():
            return self._d().depth

    def set_uncommitted(self, owner: str, puts: int, gets: int, lease_ms: int) -> None:
        with self._store._call():
            d, now = self._d(), self._now_ms()
            if puts == 0 and gets == 0:
                d.uncom.pop(owner, None)
            else:
                d.uncom[owner] = (int(puts), int(gets), now + lease_ms)
            old = now - 60_000  # entries of processes that died a minute ago go
            for other in [o for o, (_, _, until) in d.uncom.items() if until < old]:
                del d.uncom[other]

    def depth_with_uncommitted(self, exclude_owner: str = "") -> int:
        with self._store._call():
            d, now = self._d(), self._now_ms()
            live = [
                puts - gets
                for owner, (puts, gets, until) in d.uncom.items()
                if owner != exclude_owner and until > now
            ]
            return d.depth + sum(live)

    def uncommitted_puts(self, exclude_owner: str = "") -> int:
        with self._store._call():
            d, now = self._d(), self._now_ms()
            return sum(
                puts
                for owner, (puts, _, until) in d.uncom.items()
                if owner != exclude_owner and until > now
            )

    def has_epoch(self) -> bool:
        with self._store._call():
            return self._d().epoch is not None

    def epoch_mark(self, *, in_call: bool = False) -> str | None:
        with self._store._call():
            return self._d().epoch

    def ack_position(self) -> int:
        with self._store._call():
            return self._d().ackpos

    def set_ack_position(self, pos: int) -> None:
        with self._store._call():
            self._d().ackpos = int(pos)

    # -- open handles ----------------------------------------------------------------
    @staticmethod
    def _deleting(d: _QueueData, now: int) -> bool:
        return d.deleting is not None and d.deleting[1] > now

    def register_open(self, handle: str, kinds: str, lease_ms: int = 120_000) -> bool:
        with self._store._call():
            d = self._d()
            now = self._now_ms()
            if d.definition == DELETED or self._deleting(d, now):
                raise QueueDeletedError(f"{self.qmgr}/{self.name}")
            wanted = kinds.split(",")
            if "input" in wanted:
                for other_handle, (other, until) in d.opens.items():
                    others = other.split(",")
                    if other_handle == handle or until <= now or "input" not in others:
                        continue
                    if "exclusive" in wanted or "exclusive" in others:
                        return False
            d.opens[handle] = (kinds, now + lease_ms)
            return True

    def unregister_open(self, handle: str) -> None:
        with self._store._call():
            self._d().opens.pop(handle, None)

    def open_live(self, handle: str) -> bool:
        with self._store._call():
            held = self._d().opens.get(handle)
            return held is not None and held[1] > self._now_ms()

    def open_counts(self) -> dict[str, int]:
        with self._store._call():
            now = self._now_ms()
            counts = dict.fromkeys((*_OPEN_KINDS, "handles"), 0)
            for kinds, until in self._d().opens.values():
                if until > now:
                    counts["handles"] += 1
                    for k in kinds.split(","):
                        if k in counts:
                            counts[k] += 1
            return counts

    # -- definition and DELETE QLOCAL ------------------------------------------------
    def definition(self, *, in_call: bool = False) -> str | None:
        with self._store._call():
            return self._d().definition

    def set_definition(self, mark: str) -> None:
        with self._store._call():
            self._d().definition = mark

    def begin_delete(self, owner: str, lease_ms: int) -> bool:
        with self._store._call():
            d = self._d()
            now = self._now_ms()
            if self._deleting(d, now) or any(until > now for _, until in d.opens.values()):
                return False
            d.deleting = (owner, now + lease_ms)
            return True

    def end_delete(self, owner: str) -> None:
        with self._store._call():
            d = self._d()
            if d.deleting is not None and d.deleting[0] == owner:
                d.deleting = None

    # -- mutexes ---------------------------------------------------------------------
    def try_mutex(self, purpose: str, owner: str, ttl_s: float) -> bool:
        ttl_ms = int(ttl_s * 1000)
        if ttl_ms <= 0:
            # SET ... PX 0 is an error in Redis; keep the same contract.
            raise ValueError(f"mutex ttl must be at least 1 ms, got {ttl_s} s")
        with self._store._call():
            d = self._d()
            now = self._now_ms()
            held = d.mutex.get(purpose)
            # Expiry by the injected clock (Redis uses its own): tests move time at will.
            if held is not None and held[1] > now:
                return False
            d.mutex[purpose] = (owner, now + ttl_ms)
            return True

    def drop_mutex(self, purpose: str) -> None:
        with self._store._call():
            self._d().mutex.pop(purpose, None)

    def mutex_owner(self, purpose: str) -> str | None:
        """Who holds the mutex now (None: nobody). Tests only; Redis keeps it a string."""
        with self._store._call():
            held = self._d().mutex.get(purpose)
            return held[0] if held is not None and held[1] > self._now_ms() else None

    # -- lifecycle -------------------------------------------------------------------
    def wipe(self) -> None:
        with self._store._call():
            d = self._d()
            # Open handles stay (live processes still hold them); so do the mutexes (the
            # rebuild that wipes holds one).
            d.low.clear()
            d.done.clear()
            d.lock.clear()
            d.bo.clear()
            d.depth = 0
            d.native.clear()
            d.ackpos = 0
            d.epoch = None

    def mark_complete(self) -> bool:
        with self._store._call():
            d = self._d()
            if d.epoch is not None:
                return False
            d.epoch = str(self._now_ms())
            return True

    def drop(self) -> None:
        with self._store._call():
            # Every key but the mark, which says the queue was deleted.
            self._server.queues[(self.qmgr, self.name)] = _QueueData(definition=DELETED)

    # -- inspection (tests) ------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        """Every key's content in plain values, spelled as redis_store's keys, so a test
        can compare it with a dump of the Redis keys (mutexes left out: Redis expires
        them by its own clock)."""
        with self._store._call():
            d = self._d()
            return {
                "low": dict(d.low),
                "done": {ln: sorted(offs) for ln, offs in d.done.items() if offs},
                "lock": {_enc(c): f"{o}|{u}" for c, (o, u) in d.lock.items()},
                "bo": {_enc(c): n for c, n in d.bo.items()},
                "depth": d.depth,
                "native": dict(d.native),
                "opens": {h: f"{k}|{u}" for h, (k, u) in d.opens.items()},
                "uncom": {o: f"{p}|{g}|{u}" for o, (p, g, u) in d.uncom.items()},
                "epoch": d.epoch is not None,
                "ackpos": d.ackpos,
                "def": d.definition,
                "deleting": None if d.deleting is None else f"{d.deleting[0]}|{d.deleting[1]}",
            }


def _enc(c: Cand) -> str:
    return f"{c[0]}.{c[1]}:{c[2]}"


class MemoryStore:
    """store.StateStore on a MemoryServer (a private one unless `server` is given)."""

    def __init__(
        self,
        qmgr: str,
        now_ms: Callable[[], int] | None = None,
        server: MemoryServer | None = None,
    ) -> None:
        self.qmgr = qmgr
        self.now_ms = now_ms or (lambda: int(time.time() * 1000))
        self.server = server or MemoryServer()
        self._queues: dict[str, MemoryQueueState] = {}
        self._fail = 0  # calls left that fail (fail_next)
        self.down = False  # this connection is broken: every call fails
        self.closed = False

    # -- fault injection -------------------------------------------------------------
    def fail_next(self, n: int = 1) -> None:
        """The next `n` calls on this store raise MemoryConnectionError (a dropped
        connection that the next call re-establishes)."""
        with self.server.lock:
            self._fail = n

    def _broken(self) -> bool:
        return self.down or self.server.down

    def _call(self) -> _Call:
        return _Call(self)

    # -- StateStore --------------------------------------------------------------------
    def queue(self, name: str) -> MemoryQueueState:
        st = self._queues.get(name)
        if st is None:
            st = self._queues[name] = MemoryQueueState(self, name)
        return st

    def catalog_get(self, name: str) -> bytes | None:
        with self._call_retried():
            return self.server.catalogs.get(self.qmgr, {}).get(name)

    def catalog_put(self, name: str, definition: bytes) -> None:
        with self._call():
            # redis-py stores a str as its UTF-8 bytes; reads give bytes either way.
            raw = definition.encode() if isinstance(definition, str) else bytes(definition)
            self.server.catalogs.setdefault(self.qmgr, {})[name] = raw

    def catalog_delete(self, name: str) -> None:
        with self._call():
            self.server.catalogs.get(self.qmgr, {}).pop(name, None)

    def catalog_all(self) -> dict[str, bytes]:
        with self._call_retried():
            return dict(self.server.catalogs.get(self.qmgr, {}))

    def claim_name(self, key: str, owner: str, lease_ms: int) -> bool:
        # The `name_claim` script (redis_lua_state._SUB_LEASE): free, ours or run out.
        with self._call():
            claims = self.server.name_claims.setdefault(self.qmgr, {})
            now = self.now_ms()
            cur = claims.get(key)
            if cur is not None and cur[0] != owner and cur[1] > now:
                return False
            claims[key] = (owner, now + lease_ms)
            return True

    def release_name(self, key: str, owner: str) -> None:
        with self._call():
            claims = self.server.name_claims.get(self.qmgr, {})
            cur = claims.get(key)
            if cur is not None and cur[0] == owner:
                del claims[key]

    def name_claims(self) -> dict[str, tuple[str, int]]:
        with self._call_retried():
            return dict(self.server.name_claims.get(self.qmgr, {}))

    def add_depths_once(self, token: str, seq: int, deltas: dict[str, int]) -> bool:
        applied = False
        with self._call():
            for queue, delta in deltas.items():
                d = self.server.data(self.qmgr, queue)
                if d.once.get(token, -1) < seq:
                    d.depth += int(delta)
                    d.once[token] = seq
                    applied = True
        return applied

    def run_state(self) -> str | None:
        # RedisStore reads it from its client-tracking cache: no call that fault
        # injection (fail_next) could hit.
        with self.server.lock:
            return self.server.run_states.get(self.qmgr)

    def set_run_state(self, state: str | None) -> None:
        with self._call():
            if state is None:
                self.server.run_states.pop(self.qmgr, None)
            else:
                self.server.run_states[self.qmgr] = state

    def restart_stats(self) -> int:
        with self._call():
            n = 0
            for (qmgr, _), d in self.server.queues.items():
                if qmgr == self.qmgr and d.epoch is not None:
                    d.stats = {"reset": self.now_ms()}
                    n += 1
            return n

    def channel_status(self, name: str) -> bytes | None:
        with self._call_retried():
            return self.server.channel_statuses.get(self.qmgr, {}).get(name)

    def set_channel_status(self, name: str, status: bytes | None, later: bool = False) -> None:
        with self._call():
            table = self.server.channel_statuses.setdefault(self.qmgr, {})
            if status is None:
                table.pop(name, None)
            else:
                table[name] = bytes(status)

    def channel_statuses(self) -> dict[str, bytes]:
        with self._call_retried():
            return dict(self.server.channel_statuses.get(self.qmgr, {}))

    def request_channel_stop(self, name: str, stop: bool) -> None:
        with self._call():
            stops = self.server.channel_stops.setdefault(self.qmgr, set())
            if stop:
                stops.add(name)
            else:
                stops.discard(name)

    def channel_stop_requested(self, name: str) -> bool:
        with self._call_retried():
            return name in self.server.channel_stops.get(self.qmgr, set())

    def ping(self) -> None:
        with self._call_retried():
            pass

    def pubsub(self) -> MemoryPubSubState:
        return MemoryPubSubState(self)

    def close(self) -> None:
        # Like redis-py's close(): the next call simply reconnects.
        self.closed = True

    def _call_retried(self) -> _Call:
        # RedisStore retries ping and catalog reads on connection errors for
        # BROKEN_AFTER_S: a dropped connection (fail_next) is retried away at once
        # here, a server that is down fails at once (waiting it out proves nothing).
        return _Call(self, retried=True)


class _Call:
    """One call on the fake server: the server's lock held, the fault switches checked."""

    __slots__ = ("_store", "_retried")

    def __init__(self, store: MemoryStore, retried: bool = False) -> None:
        self._store = store
        self._retried = retried

    def __enter__(self) -> None:
        st = self._store
        st.server.lock.acquire()
        try:
            if st._broken():
                raise MemoryConnectionError(f"fake Redis of {st.qmgr} unreachable")
            if st._fail > 0:
                if self._retried:
                    st._fail = 0
                else:
                    st._fail -= 1
                    raise MemoryConnectionError(f"fake Redis connection of {st.qmgr} dropped")
        except BaseException:
            st.server.lock.release()
            raise

    def __exit__(self, *exc: object) -> None:
        self._store.server.lock.release()


class MemoryPubSubState:
    """store.PubSubState on a MemoryServer."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    def _data(self) -> _PubSubData:
        server = self.store.server
        d = server.pubsub.get(self.store.qmgr)
        if d is None:
            d = server.pubsub[self.store.qmgr] = _PubSubData()
        return d

    def subs_all(self) -> dict[str, bytes]:
        with self.store._call_retried():
            return dict(self._data().subs)

    def sub_get(self, key: str) -> bytes | None:
        with self.store._call_retried():
            return self._data().subs.get(key)

    def sub_put(self, key: str, definition: bytes) -> None:
        with self.store._call():
            d = self._data()
            d.subs[key] = bytes(definition)
            d.version = (d.version or 0) + 1
            self._logged(d, key)

    def sub_delete(self, key: str) -> None:
        with self.store._call():
            d = self._data()
            d.subs.pop(key, None)
            d.owners.pop(key, None)
            d.sub_stats.pop(key, None)
            d.version = (d.version or 0) + 1
            self._logged(d, key)

    @staticmethod
    def _logged(d: _PubSubData, key: str) -> None:
        d.changes.append((d.version or 0, key))
        del d.changes[:-SUB_CHANGES_KEPT]

    def sub_changes(self, since: int) -> list[tuple[int, str]] | None:
        with self.store._call_retried():
            entries = list(self._data().changes)
        if not entries or entries[0][0] > since + 1:
            return None
        return [(v, k) for v, k in entries if v > since]

    def version(self, *, in_call: bool = False) -> str | None:
        with self.store.server.lock:  # RedisStore: the client-tracking cache
            v = self._data().version
            return None if v is None else str(v)

    def init_version(self) -> bool:
        with self.store._call():
            d = self._data()
            if d.version is not None:
                return False
            d.version = 1
            return True

    def lease(self, key: str, owner: str, lease_ms: int) -> bool:
        with self.store._call():
            d = self._data()
            now = self.store.now_ms()
            cur = d.owners.get(key)
            if cur is not None and cur[0] != owner and cur[1] > now:
                return False
            d.owners[key] = (owner, now + lease_ms)
            return True

    def release(self, key: str, owner: str) -> None:
        with self.store._call():
            d = self._data()
            cur = d.owners.get(key)
            if cur is not None and cur[0] == owner:
                del d.owners[key]

    def leases(self) -> dict[str, tuple[str, int]]:
        with self.store._call_retried():
            return dict(self._data().owners)

    def retained_get(self, topic: str) -> bytes | None:
        with self.store._call_retried():
            return self._data().retained.get(topic)

    def retained_all(self) -> dict[str, bytes]:
        with self.store._call_retried():
            return dict(self._data().retained)

    def retained_put(self, topic: str, envelope: bytes | None) -> None:
        with self.store._call():
            d = self._data()
            if envelope is None:
                d.retained.pop(topic, None)
            else:
                d.retained[topic] = bytes(envelope)

    def topics_version(self, *, in_call: bool = False) -> str | None:
        with self.store.server.lock:  # RedisStore: the client-tracking cache
            v = self._data().topics_version
            return None if v is None else str(v)

    def bump_topics_version(self) -> None:
        with self.store._call():
            d = self._data()
            d.topics_version = (d.topics_version or 0) + 1

    def add_pub_counts(
        self, subs: dict[str, tuple[int, int]], topics: dict[str, tuple[int, int]]
    ) -> None:
        with self.store._call():
            d = self._data()
            for stats, items in ((d.sub_stats, subs), (d.topic_stats, topics)):
                for name, (count, last) in items.items():
                    slot = stats.setdefault(name, [0, 0])
                    slot[0] += count
                    slot[1] = max(slot[1], last)

    def pub_counts(self) -> tuple[dict[str, tuple[int, int]], dict[str, tuple[int, int]]]:
        with self.store._call_retried():
            d = self._data()
            subs = {k: (v[0], v[1]) for k, v in d.sub_stats.items()}
            return subs, {k: (v[0], v[1]) for k, v in d.topic_stats.items()}
