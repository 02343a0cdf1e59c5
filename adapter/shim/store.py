"""The state backend: a queue manager's hot, rebuildable state (the seam to Redis).

Shaped after Kafka's share-group state. Per lane (one partition of one priority topic)
a low watermark below which everything is consumed, the consumed offsets above it, and
in-flight locks with leases (syncpoint gets, browse locks, discards in flight); per
queue a depth counter, the open handles, an `epoch` that marks the state complete, and
the definition mark (which definition of the queue is current, or that it was deleted).
Every transition is atomic; every claim refuses to run without the epoch
(`NoEpochError`), so state lost with the server is rebuilt from Kafka before it is
trusted (recovery.py replays the ack log through these same transitions).

Implementations: `redis_store.RedisStore` (the real one: Lua scripts) and
`memory_store.MemoryStore` (the fast test layer). Both are driven by an injected clock,
so lease tests need no sleeping.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import NamedTuple, Protocol


class Candidate(NamedTuple):
    """A physical message as the state knows it: where it sits on Kafka.

    The rules core's `Item.key` has the same shape, so an item's key is its candidate.
    """

    priority: int
    partition: int
    offset: int

    @property
    def lane(self) -> str:
        return lane(self.priority, self.partition)

    def encode(self) -> str:
        return encode(self)

    @classmethod
    def decode(cls, text: str) -> Candidate:
        lane_text, off = text.split(":")
        prio, part = lane_text.split(".")
        return cls(int(prio), int(part), int(off))


def lane(priority: int, partition: int) -> str:
    """A (priority topic, partition) pair: the unit of physical order and of watermarks,
    spelled as the ack log's record key and the state's field names."""
    return f"{priority}.{partition}"


def encode(key: tuple[int, int, int]) -> str:
    """The one spelling of a candidate ('priority.partition:offset'), for any tuple of
    that shape (item keys are plain tuples on the hot path)."""
    return f"{key[0]}.{key[1]}:{key[2]}"


class ClaimStatus(enum.IntEnum):
    FREE = 0
    CONSUMED = 1  # gone for good
    LOCKED = 2  # locked by another owner whose lease runs
    MINE = 3  # locked by the asking owner
    STALE = 4  # locked by an owner whose lease ran out: reconcile with the ack log first
    LEASED = 5  # held by another handle's get lease (getlease.py): about to be got


@dataclass(frozen=True)
class ClaimResult:
    index: int | None  # index into the candidate list of the claimed one
    backout: int  # its BackoutCount in the state (units of work backed out since its put)
    gone: list[int]  # indexes of candidates consumed by someone else
    locked: list[int]  # indexes whose lock outlived its owner (all-or-nothing: any lock)
    # The claim stopped at a candidate another handle's get lease holds (getlease.py):
    # it is only about to be got, so the getter waits for it rather than overtake it.
    leased: bool = False


@dataclass(frozen=True)
class BatchClaim:
    taken: list[int]  # indexes taken, in candidate order
    backouts: list[int]  # their BackoutCounts
    gone: list[int]  # indexes consumed by someone else


@dataclass(frozen=True)
class QueueStats:
    """A queue's statistics as the state keeps them (the `stats` key): MSGSIN / MSGSOUT
    since the last reset, the highest depth since then (HIGHQDEPTH), when that reset
    was (ms; 0: never), and the last put / get times (ms; 0: none while monitored)."""

    enqueued: int = 0
    dequeued: int = 0
    high_depth: int = 0
    reset_ms: int = 0
    last_put_ms: int = 0
    last_get_ms: int = 0
    qtime_short_us: int = -1  # QTIME's indicators (-1: none measured yet)
    qtime_long_us: int = -1

    @classmethod
    def of(cls, raw: dict[str, int]) -> QueueStats:
        """From the stored fields (`in`, `out`, `high`, `reset`, `lput`, `lget`)."""
        return cls(
            raw.get("in", 0),
            raw.get("out", 0),
            raw.get("high", 0),
            raw.get("reset", 0),
            raw.get("lput", 0),
            raw.get("lget", 0),
            raw.get("qshort", -1),
            raw.get("qlong", -1),
        )


# QTIME's indicators: exponentially weighted means of the time messages spent on the
# queue, in microseconds, each got message weighing this much (short term: recent ones
# count more; long term: less). IBM publishes no formula; these weights are mqk's.
QTIME_WEIGHTS = (0.125, 0.0078125)


def fold_qtime(old: int, sum_ms: int, n: int, weight: float) -> int:
    """`old` (-1: none yet) after `n` messages whose times on queue sum to `sum_ms`: as
    if each weighed `weight` in turn at the batch's mean (the Lua script does the same)."""
    mean_us = sum_ms * 1000 / n
    if old < 0:
        return int(mean_us)
    keep = (1 - weight) ** n
    return int(old * keep + mean_us * (1 - keep))


# The `stats` argument of the claims: what the state records of the messages taken.
# COUNT: MSGSOUT counts them (a destructive get, under syncpoint or not); MONITORED:
# also the last get time (monitoring on for the queue). Browse locks and expired
# messages discarded pass NO_STATS.
NO_STATS, COUNT, MONITORED = "", "c", "cm"


class NoEpochError(RuntimeError):
    """The queue's state is missing (the server lost or flushed it): rebuild it first."""


class QueueDeletedError(RuntimeError):
    """register_open on a queue that is deleted or being deleted (DELETE QLOCAL)."""


# The definition mark a deleted queue leaves behind: handles still open on it learn from
# it that their queue is gone (MQRC_Q_DELETED), opens racing the delete are refused.
DELETED = "deleted"
# Lock owners of get leases (shim/getlease.py) start with this: such a lock, run out, is
# free at once (its holder consumed in the state itself what it handed out).
LEASE_PREFIX = "~"

# Lock owners that are units of work (uow.py names them so): their locks are uncommitted
# gets, where a handle's own locks (browse locks) are not.
UOW_LOCK_OWNER = "uow."


class QueueState(Protocol):
    """One queue's state. Every method is one atomic transition or read."""

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
        """Take the first free candidate (all of them, all_or_nothing): consumed at
        once, or locked for `owner` for `lease_ms`; `stats` (COUNT, MONITORED) records
        what was taken in the queue's statistics in the same transition."""
        ...

    def consume_many(
        self, cands: list[tuple[int, int, int]], owner: str, stats: str = NO_STATS
    ) -> BatchClaim:
        """Consume every free candidate (read-ahead)."""
        ...

    def lock_many(
        self, cands: list[tuple[int, int, int]], owner: str, lease_ms: int, stats: str = NO_STATS
    ) -> BatchClaim:
        """Lock every free candidate for `owner` (syncpoint read-ahead)."""
        ...

    def settle_leased(
        self,
        cands: list[tuple[int, int, int]],
        owner: str,
        stats: str = NO_STATS,
        to_owner: str = "",
        lease_ms: int = 0,
    ) -> None:
        """Candidates a get lease handed out, each that is `owner`'s or free: consumed,
        or given to the unit of work `to_owner` (a lock for `lease_ms`). May be applied
        after it returns (write-behind), but before any later call of this process on
        the state; one no longer held is counted in `lease_conflicts` and logged."""
        ...

    def peek(self, cands: list[tuple[int, int, int]], owner: str) -> list[ClaimStatus]: ...

    def release(
        self, cands: list[tuple[int, int, int]], owner: str, *, backout: bool = False
    ) -> int:
        """Drop `owner`'s locks (BackoutCount + 1 with backout); how many were mine."""
        ...

    def verify(self, cands: list[tuple[int, int, int]], owner: str, lease_ms: int) -> int:
        """Extend `owner`'s locks; how many are no longer its own."""
        ...

    def apply_consumed(self, cands: list[tuple[int, int, int]]) -> int:
        """Consumption durable in the ack log becomes state; how many were new."""
        ...

    def apply_consumed_later(self, cands: list[tuple[int, int, int]]) -> None:
        """apply_consumed without waiting for it (write-behind where the backend has
        it): for a commit's consumption, which the ack log already holds and reconcile
        would apply; it is applied before any later state call of this process."""
        ...

    def reclaim(self, cands: list[tuple[int, int, int]]) -> int:
        """Release locks whose lease ran out, with BackoutCount + 1; how many."""
        ...

    def stale_locks(self) -> list[Candidate]: ...

    def live_locks(self, owner_prefix: str = "") -> int:
        """How many messages are locked by a lease still running, by owners whose id
        starts with `owner_prefix` (UOW_LOCK_OWNER: got under syncpoint and not yet
        committed or backed out)."""
        ...

    def advance(self, lane_name: str, low: int) -> None:
        """Raise a lane's low watermark (never past a locked offset)."""
        ...

    def lows(self) -> dict[str, int]: ...

    def add_depth(
        self,
        delta: int,
        enqueued: int = 0,
        put_ms: int = 0,
        qtime_sum_ms: int = 0,
        qtime_n: int = 0,
    ) -> None:
        """Add `delta` to the depth and, in the same transition, `enqueued` to MSGSIN,
        raise HIGHQDEPTH to the new depth, keep `put_ms` as the last put time if later
        (0: nothing to record) and fold `qtime_n` times on queue (their sum in ms) into
        QTIME's indicators (QTIME_WEIGHTS)."""
        ...

    def stats(self) -> QueueStats:
        """The queue's statistics (one read)."""
        ...

    def reset_stats(self) -> tuple[int, int, int, int]:
        """RESET QSTATS: (MSGSIN, MSGSOUT, HIGHQDEPTH, ms of the previous reset, else of
        the epoch) read and zeroed atomically; HIGHQDEPTH starts again at the depth."""
        ...

    def count_native(self, lane_name: str, offsets: list[int]) -> int:
        """Count into the depth, once, the native records (a Kafka producer's, never
        MQPUT's, so nothing else counts them) at `offsets` (ascending) of a lane: the
        ones above the lane's native mark, which rises to the last. Every reader reports
        what it reads in offset order, and a reader starts at the low watermark, below
        which its consumer reported everything, so no native record is missed or
        counted twice. Returns how many were counted; NoEpochError without the epoch
        (a rebuild counts them then)."""
        ...

    def set_native_marks(self, marks: dict[str, int]) -> None:
        """A rebuild counted every record below these offsets (per lane): raise the
        native marks to just below them."""
        ...

    def depth(self) -> int: ...

    def set_uncommitted(self, owner: str, puts: int, gets: int, lease_ms: int) -> None:
        """Unit of work `owner`'s uncommitted puts to and gets from the queue, which MQ's
        CurrentQDepth counts at once while `depth` counts them at commit; leased, so
        that an entry of a process that died counts no more once its lease ends. Puts
        and gets both 0 remove it. Write-behind: other processes see it a round trip
        later, as they see a depth update."""
        ...

    def depth_with_uncommitted(self, exclude_owner: str = "") -> int:
        """MQ's CurrentQDepth: `depth` plus every live unit of work's puts less its gets
        (set_uncommitted), except `exclude_owner`'s (its caller counts its own unit of
        work itself). One round trip."""
        ...

    def uncommitted_puts(self, exclude_owner: str = "") -> int:
        """The puts of every live unit of work on the queue (set_uncommitted), except
        `exclude_owner`'s: messages on their way that are not yet in Kafka (shim/uow.py
        keeps a unit of work's puts until MQCMIT). One round trip."""
        ...

    def has_epoch(self) -> bool: ...

    def epoch_mark(self, *, in_call: bool = False) -> str | None:
        """The state's epoch (None: lost), cheap enough for every get: a change means
        the state was lost and rebuilt, with every lock in it. `in_call`: read later in
        an MQI call, as of the call's start (RedisStore: redis_marks.py)."""
        ...

    def ack_position(self) -> int:
        """The ack-log offset up to which consumption has been applied."""
        ...

    def set_ack_position(self, pos: int) -> None: ...

    def register_open(self, handle: str, kinds: str, lease_ms: int = 120_000) -> bool:
        """Register (or renew) an open handle; `kinds` is a comma list of 'input',
        'exclusive', 'output', 'browse', 'inquire', 'set', 'alias' (a handle opened
        through this alias queue). Refused (False, nothing
        written) when it asks for input and another live handle holds the queue
        exclusively, or when it asks for exclusive input and another live handle has
        input (MQRC_OBJECT_IN_USE). Raises QueueDeletedError (nothing written) while the
        queue is being deleted or once it was (begin_delete, drop)."""
        ...

    def unregister_open(self, handle: str) -> None: ...

    def open_live(self, handle: str) -> bool:
        """Whether `handle` is registered and its lease runs (a dynamic queue's creator
        that stopped renewing has died: dynamic.py sweeps its temporary queue)."""
        ...

    def open_counts(self) -> dict[str, int]:
        """{'input': n, 'output': n, 'browse': n} of the live handles, and 'handles':
        how many live handles there are, whatever they opened it for."""
        ...

    def definition(self, *, in_call: bool = False) -> str | None:
        """The definition mark: which definition is current ('<incarnation>:<digest>',
        written by the catalog at DEFINE / ALTER), DELETED after DELETE QLOCAL, None when
        unknown (never written, or the state was lost). Read on every MQPUT and MQGET, so
        it costs no round trip while it is unchanged (RedisStore: client tracking).
        `in_call`: read later in an MQI call, as of the call's start (redis_marks.py)."""
        ...

    def set_definition(self, mark: str) -> None: ...

    def begin_delete(self, owner: str, lease_ms: int) -> bool:
        """DELETE QLOCAL's first step, atomic with register_open: refused (False,
        nothing written) while any live handle is registered or another delete is in
        progress; else the queue is marked as being deleted for `lease_ms`, and
        register_open refuses it from then on."""
        ...

    def end_delete(self, owner: str) -> None:
        """A delete that did not happen (the queue was not empty, a server failed):
        drop `owner`'s mark, opens are allowed again."""
        ...

    def try_mutex(self, purpose: str, owner: str, ttl_s: float) -> bool:
        """A short exclusive right ('rebuild', 'reconcile') that expires by itself."""
        ...

    def drop_mutex(self, purpose: str) -> None: ...

    def wipe(self) -> None:
        """Forget everything but the open handles (the start of a rebuild)."""
        ...

    def mark_complete(self) -> bool:
        """Set the epoch if absent: the state is complete from here on. True if set."""
        ...

    def drop(self) -> None:
        """DELETE QLOCAL: every key of the queue, leaving the definition mark DELETED
        (written first, so no open can register in between)."""
        ...


# The subscriptions' change log keeps this many entries: a reader further behind rebuilds.
SUB_CHANGES_KEPT = 10_000


class PubSubState(Protocol):
    """Subscriptions (key -> definition), the leases of the handles that have them open,
    and retained publications (topic string -> envelope); shim/subscriptions.py and
    shim/publish.py own what the values mean."""

    def subs_all(self) -> dict[str, bytes]: ...

    def sub_get(self, key: str) -> bytes | None: ...

    def sub_put(self, key: str, definition: bytes) -> None:
        """Write and bump the version: every publisher's next `version()` differs."""
        ...

    def sub_delete(self, key: str) -> None:
        """Delete the definition and its lease, and bump the version."""
        ...

    def version(self, *, in_call: bool = False) -> str | None:
        """Changes with every sub_put / sub_delete; None when never set (or lost). Read
        on every publication, so it costs no round trip while unchanged (`in_call`: as
        QueueState.definition's)."""
        ...

    def sub_changes(self, since: int) -> list[tuple[int, str]] | None:
        """(version, key) of every sub_put / sub_delete after version `since`, oldest
        first; None when the store no longer holds them all (the reader rebuilds)."""
        ...

    def init_version(self) -> bool:
        """Set a first version where there is none: True if this call set it."""
        ...

    def lease(self, key: str, owner: str, lease_ms: int) -> bool:
        """Take or renew the subscription for `owner` (False: another owner holds a
        lease that has not run out)."""
        ...

    def release(self, key: str, owner: str) -> None: ...

    def leases(self) -> dict[str, tuple[str, int]]:
        """key -> (owner, lease until, ms)."""
        ...

    def retained_get(self, topic: str) -> bytes | None: ...

    def retained_all(self) -> dict[str, bytes]: ...

    def retained_put(self, topic: str, envelope: bytes | None) -> None: ...

    # Topic objects' version (shim/topics.py): the publishers' cached topic tree.
    def topics_version(self, *, in_call: bool = False) -> str | None:
        """Changes with every bump_topics_version; None when never set (or lost). Read
        on every publication, so it costs no round trip while unchanged (`in_call`: as
        QueueState.definition's)."""
        ...

    def bump_topics_version(self) -> None:
        """A topic object was defined, altered or deleted."""
        ...

    # Delivery counters (shim/pubstats.py): DISPLAY SBSTATUS NUMMSGS / LMSGDATE and
    # DISPLAY TPSTATUS PUBCOUNT / LPUBDATE. Written in batches, never per publication.
    def add_pub_counts(
        self, subs: dict[str, tuple[int, int]], topics: dict[str, tuple[int, int]]
    ) -> None:
        """Add (count, last ms) to each subscription's and topic string's counters (the
        last time kept when it is later)."""
        ...

    def pub_counts(self) -> tuple[dict[str, tuple[int, int]], dict[str, tuple[int, int]]]:
        """(subscription key -> (messages, last ms), topic string -> (publications,
        last ms))."""
        ...


class StateStore(Protocol):
    """A queue manager's state: per-queue state and the catalog cache."""

    def queue(self, name: str) -> QueueState: ...

    def catalog_get(self, name: str) -> bytes | None: ...

    def catalog_put(self, name: str, definition: bytes) -> None: ...

    def catalog_delete(self, name: str) -> None: ...

    def catalog_all(self) -> dict[str, bytes]:
        """Every cached definition (name -> definition)."""
        ...

    def claim_name(self, key: str, owner: str, lease_ms: int) -> bool:
        """Claim the catalog key `key` (a queue's name, `*TOPIC:<name>`, ...) for
        `owner` until `lease_ms` from now: taken when free, already `owner`'s (renewed),
        or held by an owner whose lease ran out (a definer that died); False, nothing
        written, while another owner's lease runs (shim/nameclaims.py)."""
        ...

    def release_name(self, key: str, owner: str) -> None:
        """Drop the claim of `key` if it is `owner`'s."""
        ...

    def name_claims(self) -> dict[str, tuple[str, int]]:
        """Every claim held: key -> (owner, lease end in ms), run-out ones included."""
        ...

    def add_depths_once(self, token: str, seq: int, deltas: dict[str, int]) -> bool:
        """Add `deltas` to the queues' depths unless `token` already applied a `seq` this
        high (a writer that may replay its last step, as the Spark job's sink does).
        Atomic per queue; True if applied to any."""
        ...

    def run_state(self) -> str | None:
        """The queue manager's run state as endmqm / strmqm left it (None: running;
        adapter/core/qmgrrules.RunState names the values). Read on every MQI call, so
        it costs no round trip while it is unchanged (RedisStore: client tracking)."""
        ...

    def set_run_state(self, state: str | None) -> None:
        """endmqm (a state) / strmqm (None): every connection's next call sees it."""
        ...

    def pubsub(self) -> PubSubState:
        """The queue manager's publish/subscribe state."""
        ...

    def restart_stats(self) -> int:
        """strmqm: every queue's statistics start again (MQ keeps them since the queue
        manager started): counters and last put / get times gone, the reset interval
        counted from now. Returns how many queues."""
        ...

    def channel_status(self, name: str) -> bytes | None:
        """The status a channel agent last wrote for channel `name` (DISPLAY CHSTATUS;
        adapter/channel/status.py says what it holds), None if it never ran."""
        ...

    def set_channel_status(self, name: str, status: bytes | None, later: bool = False) -> None:
        """Write (None: delete) channel `name`'s status; `later`: write-behind where
        the backend has it (the agent's per-batch figures), read back by this process
        as written."""
        ...

    def channel_statuses(self) -> dict[str, bytes]:
        """Every channel's status, by channel name."""
        ...

    def request_channel_stop(self, name: str, stop: bool) -> None:
        """STOP CHANNEL asks the agent to stop (True); START CHANNEL withdraws it."""
        ...

    def channel_stop_requested(self, name: str) -> bool:
        """Whether STOP CHANNEL asked channel `name`'s agent to stop (polled by it)."""
        ...

    def ping(self) -> None:
        """Raise ConnectionError if the server cannot be reached (after retries)."""
        ...

    def close(self) -> None: ...
