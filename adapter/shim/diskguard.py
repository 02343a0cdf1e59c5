"""The disk guard: MQPUT answers 2056 MQRC_Q_SPACE_NOT_AVAILABLE before a broker's disk
fills, and puts again once space returns, so the broker never halts for want of space
while every producer is mqk.

Why: a Kafka broker whose log directory cannot take an append takes the directory
offline and, when it was its only one, halts (measured: tests/failover/test_disk_full.py);
its clients can then only see a vanished broker (2009). IBM MQ keeps running and answers
the put it has no space for: "An MQPUT or MQPUT1 call was issued, but there is no space
available for the queue on disk or other storage device" (2056 (0808) (RC2056):
MQRC_Q_SPACE_NOT_AVAILABLE, https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041260_.html).

How: every MQK_DISK_CHECK_S (default 2 s) the connection's pump asks each broker for its
log directories (DescribeLogDirs v4, shim/logdirs.py through log.Log.log_dirs): the
volume's TotalBytes and UsableBytes, and which partitions of the queues this connection
puts to live in each directory. A directory is low when its usable bytes, less what it
is expected to take before the next check, are under the reserve. The expectation is
the directory's fill rate (its usable bytes at successive checks, whoever wrote them:
every connection, every process, other producers; the fastest rate seen, halving every
minute, FillRate) times the time to the next check. Every topic with a replica (leader
or follower: a follower's append fills its disk as surely) in a low directory is in
`blocked`, and MQPUT / MQPUT1 to it, a publication's
own record, a subscription's copy, a channel's put at the receiving end and the queue
manager's dead-letter moves are refused with 2056. An MQPUT pays one set lookup for this
(the topic it would write to `in blocked`); the request is never on the MQPUT path.

What still writes while a directory is low, on purpose: gets (their ack records),
MQCMIT / MQBACK of work already written (transaction markers, the commit's ack records),
read-ahead give-backs, reports the queue manager generates (small, one per message got
or put). The reserve must hold those, and what producers write between two checks.

The reserve: the larger of MQK_DISK_RESERVE_MB (default 1024 MiB) and
MQK_DISK_RESERVE_PCT per cent of the volume (default 5). An absolute floor because what
must fit is a rate times a time, not a share of the disk: the puts accepted between two
checks (the cluster's put rate, in bytes, times MQK_DISK_CHECK_S plus a refresh's own
time) when the fill rate is not yet known (the first two checks) or jumps above the
fastest seen, plus what the producers' buffers hold and have not yet sent (librdkafka's
`queue.buffering.max.kbytes`, 1 GiB per producer at most, filled only by asynchronous
puts), plus the commits' markers and ack records and Kafka's own writes (the KRaft
metadata log's records, __consumer_offsets, __transaction_state, a rolled segment's
index files). Measured here, one synchronous putter of 256 KiB persistent messages
wrote 80 MiB/s to a tmpfs-backed broker: 160 MiB in a 2 s interval. A percentage on top
because a large volume is usually fed faster. Set either to 0 to use the other alone.

Space on a Kafka log returns only when whole segments are deleted, never when a message
is got: a consumed record stays in its segment. Queue topics keep `retention.ms=-1`
(an MQ message never expires unread), so here it returns when a queue is deleted
(DELETE QLOCAL: the broker removes its topics' directories, after its
`log.segment.delete.delay.ms`, 60 s by default), or when an operator adds space. The
guard notices at its next check and puts go on.

When the guard cannot work it switches itself off, once, with one warning: settings the
library's own DescribeLogDirs client cannot honour, a principal without DESCRIBE on the
cluster, a broker older than Kafka 3.3 (log.LogDirsOffError); or MQK_DISK_CHECK_S=0. Puts are
then never refused for space, as before.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from confluent_kafka import KafkaException

from adapter import config
from adapter.redact import redact
from adapter.shim import naming
from adapter.shim.clock import Clock
from adapter.shim.log import Log, LogDir, LogDirsOffError

log = logging.getLogger("mqk.shim.diskguard")

MIB = 1024 * 1024
# A queue newly put to is placed (its partitions' directories found) this soon, however
# long MQK_DISK_CHECK_S is; never sooner after the last check.
NEW_TOPIC_GAP_S = 0.25
# A broker that stopped answering keeps its last answer this long (a pause must not
# let puts through to a directory known to be low), then it no longer counts.
STALE_AFTER_S = 30.0
RATE_HALF_LIFE_S = 60.0


@dataclass(frozen=True)
class Reserve:
    """The usable bytes a log directory keeps back from puts."""

    floor_bytes: int
    percent: float

    @classmethod
    def configured(cls) -> Reserve:
        return cls(int(config.DISK_RESERVE_MB * MIB), config.DISK_RESERVE_PCT)

    def of(self, total_bytes: int) -> int:
        return max(self.floor_bytes, int(total_bytes * self.percent / 100))


def is_low(d: LogDir, reserve: Reserve, filling: float = 0.0) -> bool:
    """Whether puts must stay out of `d`: an online directory whose volume's usable
    bytes, less `filling` (what is expected to be written before the next check), are
    under the reserve (a directory the broker does not size is not judged)."""
    if d.error or d.total_bytes < 0 or d.usable_bytes < 0:
        return False
    return d.usable_bytes - filling < reserve.of(d.total_bytes)


Place = tuple[int, str]  # (broker, log directory)


def blocked_topics(
    dirs: Iterable[LogDir],
    reserve: Reserve,
    filling: Mapping[Place, float] | None = None,
    placed: Mapping[str, frozenset[Place]] | None = None,
    watched: Iterable[str] = (),
) -> frozenset[str]:
    """The topics puts must stay out of: those with a replica in a low directory
    (`filling`: bytes expected before the next check, by directory). `placed`: where
    each topic was last seen, for topics the answer does not show (deleted and being
    defined again, or their broker's answer late); a `watched` topic never seen yet is
    refused only when every directory is low (it can be nowhere else)."""
    dirs = list(dirs)
    expected = filling or {}
    low = {
        (d.broker, d.path)
        for d in dirs
        if is_low(d, reserve, expected.get((d.broker, d.path), 0.0))
    }
    if not low:
        return frozenset()
    where: dict[str, set[Place]] = {}
    for d in dirs:
        for t, _p in d.partitions:
            where.setdefault(t, set()).add((d.broker, d.path))
    blocked = {t for t, at in where.items() if at & low}
    blocked.update(t for t, at in (placed or {}).items() if t not in where and at & low)
    judged = {(d.broker, d.path) for d in dirs if not d.error and d.total_bytes >= 0}
    if judged and judged <= low:
        blocked.update(t for t in watched if t not in where and t not in (placed or {}))
    return frozenset(blocked)


class FillRate:
    """How fast one directory fills, from its usable bytes at successive checks: the
    fastest rate seen, decaying with a half-life of RATE_HALF_LIFE_S, so that a
    directory that filled fast and then stopped (because puts were refused) is still
    expected to fill fast the moment they are let in again."""

    __slots__ = ("at", "usable", "rate")

    def __init__(self, at: float, usable: int) -> None:
        self.at, self.usable, self.rate = at, usable, 0.0

    def update(self, at: float, usable: int) -> float:
        """Bytes per second, after the answer `usable` at time `at`."""
        dt = at - self.at
        if dt > 0:
            seen = (self.usable - usable) / dt  # negative when space came back
            self.rate = max(seen, self.rate * 0.5 ** (dt / RATE_HALF_LIFE_S), 0.0)
            self.at, self.usable = at, usable
        return self.rate


class DiskGuard:
    """One connection's view of its brokers' disks. `blocked` is read by every put;
    `tick` (the pump's) refreshes it."""

    def __init__(
        self,
        qmgr: str,
        log_backend: Log,
        clock: Clock,
        *,
        interval_s: float | None = None,
        reserve: Reserve | None = None,
    ) -> None:
        self._qmgr = qmgr
        self._log = log_backend
        self._clock = clock
        self.interval_s = config.DISK_CHECK_S if interval_s is None else interval_s
        self.reserve = reserve or Reserve.configured()
        # The topics puts go to that are on a low directory (a frozenset replaced whole,
        # so a put reads it without a lock).
        self.blocked: frozenset[str] = frozenset()
        self.dirs: list[LogDir] = []  # the last picture, every broker's directories
        self.checked_at: float | None = None  # monotonic time of the last answer
        self.off: str | None = None if self.interval_s > 0 else "MQK_DISK_CHECK_S is 0"
        self._lock = threading.Lock()
        self._watched: dict[str, int] = {}  # topic -> partitions
        self._queues: set[str] = set()
        self._due = 0.0
        self._last = -1e9
        self._answers: dict[int, tuple[float, list[LogDir]]] = {}  # broker -> (when, dirs)
        self._low: set[tuple[int, str]] = set()
        self._rates: dict[tuple[int, str], FillRate] = {}
        # Where each watched topic's replicas were last seen: a topic missing from an
        # answer (its queue deleted and being defined again) keeps its directory.
        self._placed: dict[str, frozenset[Place]] = {}
        self.filling: dict[tuple[int, str], float] = {}  # bytes expected by the next check
        self._failing = False
        self._refreshing = threading.Lock()  # the pump's tick and a caller's refresh

    # -- what to look at --------------------------------------------------------------
    def watch_queue(self, queue: str, partitions: int) -> None:
        """Puts will go to `queue`: place its priority topics from the next check on."""
        if queue in self._queues or self.off:
            return
        self._queues.add(queue)
        self.watch([naming.data_topic(self._qmgr, queue, p) for p in naming.PRIORITIES], partitions)

    def watch(self, topics: Iterable[str], partitions: int) -> None:
        if self.off:
            return
        with self._lock:
            new = {t: partitions for t in topics if t not in self._watched}
            if not new:
                return
            self._watched.update(new)
            self._due = min(self._due, self._last + NEW_TOPIC_GAP_S)

    def refuses(self, queue: str, partitions: int, priority: int) -> bool:
        """Whether a message the queue manager moves or copies to `queue` at `priority`
        must stay out (a subscription's copy, a dead-letter move): the put path's own
        check, for callers that have no topic name at hand."""
        self.watch_queue(queue, partitions)
        if not self.blocked:
            return False
        return naming.data_topic(self._qmgr, queue, min(max(priority, 0), 9)) in self.blocked

    # -- the pump's tick ----------------------------------------------------------------
    def tick(self) -> None:
        if self.off is None and self._watched and self._clock.monotonic() >= self._due:
            self.refresh()

    def refresh(self) -> None:
        """Ask the brokers now (the pump's thread; tests call it directly)."""
        with self._refreshing:
            self._refresh()

    def _refresh(self) -> None:
        now = self._clock.monotonic()
        self._last, self._due = now, now + self.interval_s
        with self._lock:
            topics = dict(self._watched)
        try:
            fresh, silent = self._log.log_dirs(topics, timeout_s=min(self.interval_s, 5.0))
        except LogDirsOffError as exc:
            self.off, self.blocked, self.dirs = str(exc), frozenset(), []
            log.warning("the disk guard is off (%s): puts are not refused when a broker's "
                        "disk runs low", redact(str(exc)))  # fmt: skip
            return
        except (KafkaException, OSError) as exc:
            if not self._failing:
                log.info("the disk guard could not ask the brokers (%s); it keeps its last "
                         "picture", redact(str(exc)))  # fmt: skip
            self._failing = True
            return
        self._failing = False
        # The next check comes an interval plus a refresh's own time from now.
        self._absorb(now, fresh, silent, self.interval_s + self._clock.monotonic() - now)

    def _absorb(self, now: float, fresh: list[LogDir], silent: set[int], horizon: float) -> None:
        answered: dict[int, list[LogDir]] = {}
        for d in fresh:
            answered.setdefault(d.broker, []).append(d)
            key = (d.broker, d.path)
            trend = self._rates.get(key)
            if trend is None:
                self._rates[key] = FillRate(now, d.usable_bytes)
            else:
                self.filling[key] = trend.update(now, d.usable_bytes) * horizon
        for broker, dirs in answered.items():
            self._answers[broker] = (now, dirs)
        for broker in list(self._answers):
            if broker in answered:
                continue
            at = self._answers[broker][0]
            if broker not in silent or now - at > STALE_AFTER_S:
                del self._answers[broker]  # left the cluster, or silent too long
        self.dirs = [d for _at, dirs in self._answers.values() for d in dirs]
        self.checked_at = now
        self._report(self.dirs)
        with self._lock:
            watched = list(self._watched)
        self.blocked = blocked_topics(self.dirs, self.reserve, self.filling, self._placed, watched)
        seen: dict[str, set[Place]] = {}
        for d in self.dirs:
            for t, _p in d.partitions:
                seen.setdefault(t, set()).add((d.broker, d.path))
        self._placed.update((t, frozenset(at)) for t, at in seen.items())

    def _report(self, dirs: list[LogDir]) -> None:
        """One line when a directory becomes low, one when it has room again."""
        low = set()
        for d in dirs:
            key = (d.broker, d.path)
            filling = self.filling.get(key, 0.0)
            if not is_low(d, self.reserve, filling):
                continue
            low.add(key)
            if key not in self._low:
                log.warning(
                    "broker %d's log directory %s has %d MiB usable of %d MiB and may take "
                    "%d MiB more before the next check, which leaves less than the reserve "
                    "of %d MiB: puts to the queues it holds get 2056 "
                    "(MQRC_Q_SPACE_NOT_AVAILABLE) until space returns",
                    d.broker, d.path, d.usable_bytes // MIB, d.total_bytes // MIB,
                    filling // MIB, self.reserve.of(d.total_bytes) // MIB,
                )  # fmt: skip
        for broker, path in self._low - low:
            log.warning("broker %d's log directory %s has room again: puts go on", broker, path)
        self._low = low
