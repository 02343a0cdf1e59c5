"""The in-memory log backend: log.Log without a broker, for the fast tests.

It mimics the subset of confluent-kafka the engine uses, down to the behaviours the
engine must survive (each was checked against a real broker and librdkafka 2.16):

- Offsets: one per record, and one per transaction marker: a committed transaction's
  records are followed by a marker offset, so read_committed readers see gaps.
- Transactions: records of an open transaction take offsets at once but stay invisible;
  the last stable offset (LSO) of a partition sits at the first record of its oldest
  open transaction and read_committed readers stop there. Commit and abort each write a
  marker on every partition the transaction wrote to; aborted records are never seen.
  (A real broker writes markers a moment after commit_transaction returns; here the
  marker and the LSO move inside the call, unless the cluster's `marker_lag` holds
  them back for a few operations, to test code that waits for its commit to show.)
- Fencing: init_transactions with a transactional id already held aborts the holder's
  open transaction and fences the holder: its later calls raise a fatal
  KafkaException(_FENCED), and its next poll()/flush() raises it once too. A transaction
  open longer than the transaction timeout (by the cluster's clock, checked whenever
  the cluster is used) is aborted the same way and its producer fenced, as a broker
  bumping the producer epoch does.
- Delivery: produce() appends at once; the delivery callback runs only inside poll(),
  flush() or commit_transaction() on the calling thread, and len(producer) counts the
  records whose callback has not run. Produce to a missing topic does not raise: the
  callback gets UNKNOWN_TOPIC_OR_PART, with partition() and offset() None.
- Readers: manual assignment, read_committed, auto.offset.reset=earliest (an offset
  past the high watermark restarts at the beginning), position() OFFSET_INVALID (-1001)
  until a fetch passed something, and passing markers and aborted records once read.

Several MemoryLogs on one MemoryCluster share topics and transactional ids, as
processes on one broker do. Waits (poll and consume timeouts) use real time: the
injected clock only stamps records and times transactions out.
"""

from __future__ import annotations

import itertools
import threading
import time
import zlib
from collections import deque
from collections.abc import Callable
from typing import Any

from confluent_kafka import (
    OFFSET_END,
    OFFSET_INVALID,
    TIMESTAMP_CREATE_TIME,
    TIMESTAMP_LOG_APPEND_TIME,
    KafkaError,
    KafkaException,
    TopicPartition,
)

from adapter import config
from adapter.shim.clock import SYSTEM, Clock, ManualClock
from adapter.shim.log import DeliveryCallback, LogDir, LogDirsOffError, TopicSpec

# Entry states: visible once below the LSO; open (in a transaction); aborted.
_COMMITTED, _OPEN, _ABORTED = 0, 1, 2

# librdkafka's default queue.buffering.max.messages: produce() raises BufferError past it.
DEFAULT_MAX_PENDING = 100_000


def _error(code: int, reason: str | None = None, **flags: bool) -> KafkaError:
    return KafkaError(code, reason, **flags) if reason else KafkaError(code, **flags)


def _raise(code: int, reason: str | None = None, **flags: bool) -> None:
    raise KafkaException(_error(code, reason, **flags))


def _bytes(v: bytes | str | None) -> bytes | None:
    # confluent-kafka takes str too and sends its UTF-8 bytes.
    return v.encode() if isinstance(v, str) else v


Headers = list[tuple[str, bytes | None]]


def _headers(h: Any) -> Headers | None:
    """Record headers as a consumer sees them: confluent-kafka takes a list of (name,
    value) pairs or a dict, values bytes, str (sent as UTF-8) or None, and hands back a
    list of (str, bytes | None) in order, or None for a record without headers."""
    if not h:
        return None
    pairs = h.items() if isinstance(h, dict) else h
    return [(str(name), _bytes(value)) for name, value in pairs]


class MemoryMessage:
    """A record, or a delivery report: confluent_kafka.Message's accessors."""

    __slots__ = ("_topic", "_partition", "_offset", "_key", "_value", "_ts", "_error", "_headers")

    def __init__(
        self,
        topic: str,
        partition: int | None,
        offset: int | None,
        key: bytes | None,
        value: bytes | None,
        ts: tuple[int, int],
        error: KafkaError | None = None,
        headers: Headers | None = None,
    ) -> None:
        self._headers = headers
        self._topic = topic
        self._partition = partition
        self._offset = offset
        self._key = key
        self._value = value
        self._ts = ts
        self._error = error

    def topic(self) -> str:
        return self._topic

    def partition(self) -> int | None:
        return self._partition

    def offset(self) -> int | None:
        return self._offset

    def key(self) -> bytes | None:
        return self._key

    def value(self) -> bytes | None:
        return self._value

    def timestamp(self) -> tuple[int, int]:
        return self._ts

    def error(self) -> KafkaError | None:
        return self._error

    def headers(self) -> Headers | None:
        return list(self._headers) if self._headers else None

    def __len__(self) -> int:
        return len(self._value or b"")

    def __repr__(self) -> str:
        return (
            f"MemoryMessage({self._topic}[{self._partition}]@{self._offset}, "
            f"key={self._key!r}, error={self._error})"
        )


class _Entry:
    """One offset of a partition: a record or a transaction marker."""

    __slots__ = ("key", "value", "ts", "control", "state", "headers")

    def __init__(
        self,
        key: bytes | None,
        value: bytes | None,
        ts: tuple[int, int],
        control: bool,
        state: int,
        headers: Headers | None = None,
    ) -> None:
        self.headers = headers
        self.key = key
        self.value = value
        self.ts = ts
        self.control = control
        self.state = state


class _Partition:
    __slots__ = ("entries", "open_first")

    def __init__(self) -> None:
        self.entries: list[_Entry] = []
        # Open transactions writing here -> offset of their first record here.
        self.open_first: dict[_Txn, int] = {}

    def high(self) -> int:
        return len(self.entries)

    def stable(self) -> int:
        """The last stable offset: read_committed readers stop below it."""
        return min(self.open_first.values(), default=len(self.entries))


class _Topic:
    __slots__ = ("name", "spec", "partitions", "log_append_time")

    def __init__(self, spec: TopicSpec, name: str = "") -> None:
        self.name = name
        self.spec = spec
        self.partitions = [_Partition() for _ in range(spec.partitions)]
        self.log_append_time = spec.config.get("message.timestamp.type") == "LogAppendTime"


class _Txn:
    """One open transaction: where it wrote (for markers) and since when (timeout)."""

    __slots__ = ("producer", "entries", "parts", "start_ms", "timeout_ms")

    def __init__(self, producer: MemoryTransactionalProducer, timeout_ms: int) -> None:
        self.producer = producer
        self.entries: list[_Entry] = []
        self.parts: list[_Partition] = []
        self.start_ms: int | None = None  # set by the first record, as the broker does
        self.timeout_ms = timeout_ms


class MemoryDisk:
    """The fake broker's log directories as DescribeLogDirs tells them (the disk guard's
    tests, shim/diskguard.py). Each directory has a size; every record appended to a
    topic placed in it takes its key, value and headers plus RECORD_OVERHEAD bytes of
    its usable space, and a deleted topic gives its bytes back. A consumed record keeps
    its bytes, as on a Kafka log. The one fake broker (id 1) holds every directory; a
    topic lives in `placement[topic]`, else the first directory.

    `refused`: the text of a log.LogDirsOffError to raise (an ACL refusal, a setting the
    client cannot honour); `silent`: the broker does not answer."""

    RECORD_OVERHEAD = 70  # a record batch's header shared out, plus the record's own

    def __init__(self, sizes: dict[str, int], free: dict[str, int] | None = None) -> None:
        self.sizes = dict(sizes)
        self.usable = {path: (free or {}).get(path, size) for path, size in sizes.items()}
        self.placement: dict[str, str] = {}
        self.used_by: dict[str, int] = {}
        self.refused: str | None = None
        self.silent = False
        self.asked = 0  # DescribeLogDirs requests answered (or refused)
        self.delete_later = False
        self.pending: list[tuple[str, int]] = []

    def where(self, topic: str) -> str:
        return self.placement.get(topic) or next(iter(self.sizes))

    def take(self, topic: str, n: int) -> None:
        path = self.where(topic)
        self.usable[path] = max(0, self.usable[path] - n)
        self.used_by[topic] = self.used_by.get(topic, 0) + n

    def give_back(self, topic: str) -> None:
        """A deleted topic's bytes, back at once, or (`delete_later`, as a broker's
        `log.segment.delete.delay.ms`, 60 s by default) at `delete_files()`."""
        path = self.where(topic)
        n = self.used_by.pop(topic, 0)
        if self.delete_later:
            self.pending.append((path, n))
            return
        self.usable[path] = min(self.sizes[path], self.usable[path] + n)

    def delete_files(self) -> None:
        for path, n in self.pending:
            self.usable[path] = min(self.sizes[path], self.usable[path] + n)
        self.pending.clear()


class MemoryCluster:
    """One fake broker: topics, transactional ids, and the lock every client shares.
    Broker time (LogAppendTime, transaction timeouts) comes from `clock`."""

    def __init__(self, clock: Clock | None = None, marker_lag: int = 0) -> None:
        self.clock = clock or SYSTEM
        # A real broker writes the markers a moment after commit_transaction returns:
        # with marker_lag=n the next n operations on the cluster (produce, fetch,
        # end_offsets, transactional calls) still see the transaction undecided.
        self.marker_lag = marker_lag
        self._deciding: list[list] = []  # [operations left, txn, commit]
        self.lock = threading.RLock()
        self.changed = threading.Condition(self.lock)  # records or markers appended
        self.topics: dict[str, _Topic] = {}
        self.holders: dict[str, MemoryTransactionalProducer] = {}  # transactional id ->
        self.open_txns: set[_Txn] = set()
        # Kafka ACLs as MQOPEN's authority check sees them (topic -> operations the
        # principal holds); None: no authorizer (tests of 2035 set it).
        self.acls: dict[str, set[str]] | None = None
        # Unreachable: admin calls raise, deliveries fail, readers see nothing new.
        self.down = False
        # The broker's disk as the disk guard sees it; None: DescribeLogDirs answers no
        # directory (the guard then never refuses a put).
        self.disk: MemoryDisk | None = None

    # -- callers hold self.lock ------------------------------------------------------
    def _partition(self, topic: str, partition: int) -> _Partition | None:
        t = self.topics.get(topic)
        if t is None or not 0 <= partition < len(t.partitions):
            return None
        return t.partitions[partition]

    def _append(
        self,
        topic: _Topic,
        part: int,
        key: bytes | None,
        value: bytes | None,
        create_ms: int,
        txn: _Txn | None,
        headers: Headers | None = None,
    ) -> int:
        p = topic.partitions[part]
        ts = (
            (TIMESTAMP_LOG_APPEND_TIME, self.clock.now_ms())
            if topic.log_append_time
            else (TIMESTAMP_CREATE_TIME, create_ms)
        )
        e = _Entry(key, value, ts, False, _OPEN if txn else _COMMITTED, headers)
        if self.disk is not None:
            size = len(key or b"") + len(value or b"") + MemoryDisk.RECORD_OVERHEAD
            self.disk.take(topic.name, size + sum(len(k) + len(v or b"") for k, v in headers or ()))
        offset = len(p.entries)
        p.entries.append(e)
        if txn is not None:
            if txn.start_ms is None:
                txn.start_ms = self.clock.now_ms()
                self.open_txns.add(txn)
            if txn not in p.open_first:
                p.open_first[txn] = offset
                txn.parts.append(p)
            txn.entries.append(e)
        self.changed.notify_all()
        return offset

    def _end(self, txn: _Txn, commit: bool) -> None:
        """Decide a transaction: its markers now, or after marker_lag operations."""
        self.open_txns.discard(txn)  # decided: no longer subject to the timeout
        if self.marker_lag > 0:
            self._deciding.append([self.marker_lag, txn, commit])
        else:
            self._write_markers(txn, commit)

    def _write_markers(self, txn: _Txn, commit: bool) -> None:
        """Mark the transaction's records and write a marker where it wrote."""
        state = _COMMITTED if commit else _ABORTED
        for e in txn.entries:
            e.state = state
        now = self.clock.now_ms()
        for p in txn.parts:
            # A deleted topic's partition takes the marker harmlessly: nobody reads it.
            p.entries.append(_Entry(None, None, (TIMESTAMP_CREATE_TIME, now), True, _COMMITTED))
            p.open_first.pop(txn, None)
        txn.entries, txn.parts = [], []
        self.changed.notify_all()

    def _settle(self, which: Callable[[_Txn], bool] = lambda txn: True) -> None:
        """Write the held-back markers of the decided transactions `which` selects."""
        left = []
        for d in self._deciding:
            if which(d[1]):
                self._write_markers(d[1], d[2])
            else:
                left.append(d)
        self._deciding = left

    def settle(self) -> None:
        """Every held-back marker written now (the broker caught up)."""
        with self.lock:
            self._settle()

    def _step(self) -> None:
        """Every operation on the cluster starts here: held-back markers land, and
        transactions open past their timeout are aborted, their producers fenced (the
        broker bumps the epoch: the producer's next call fails fatally)."""
        if self._deciding:
            left = []
            for d in self._deciding:
                if d[0] <= 0:
                    self._write_markers(d[1], d[2])
                else:
                    d[0] -= 1
                    left.append(d)
            self._deciding = left
        if not self.open_txns:
            return
        now = self.clock.now_ms()
        for txn in list(self.open_txns):
            if txn.start_ms is not None and now - txn.start_ms >= txn.timeout_ms:
                txn.producer._fence_locked("transaction timed out")

    def _check_up(self) -> None:
        if self.down:
            _raise(KafkaError._TRANSPORT, "fake cluster unreachable", retriable=True)

    # -- tests -----------------------------------------------------------------------
    def records(self, topic: str, partition: int = 0) -> list[tuple[int, str, bytes | None]]:
        """Every offset of a partition as (offset, kind, value), kind one of 'record',
        'open', 'aborted', 'marker' (for tests that look under read_committed)."""
        with self.lock:
            p = self._partition(topic, partition)
            out = []
            for off, e in enumerate(p.entries if p else []):
                kind = "marker" if e.control else ("record", "open", "aborted")[e.state]
                out.append((off, kind, e.value))
            return out


class _Report:
    __slots__ = ("callback", "msg")

    def __init__(self, callback: DeliveryCallback | None, msg: MemoryMessage) -> None:
        self.callback = callback
        self.msg = msg


class MemoryProducer:
    """An idempotent producer (log.Producer)."""

    def __init__(self, log: MemoryLog) -> None:
        self._log = log
        self._cluster = log.cluster
        self._reports: deque[_Report] = deque()
        self._served = threading.Condition(self._cluster.lock)
        self._rr: dict[str, int] = {}  # round-robin position of keyless records per topic
        self._fatal: KafkaError | None = None
        self._fatal_raised = False

    def _txn_for_produce(self) -> _Txn | None:
        return None

    def _partition_for(self, name: str, topic: _Topic, key: bytes | None, partition: int) -> int:
        n = len(topic.partitions)
        if partition >= 0:
            return partition
        if key:
            # CRC32 of the key, as librdkafka's default partitioner: same key, same lane.
            return zlib.crc32(key) % n
        i = self._rr.get(name, 0)
        self._rr[name] = i + 1
        return i % n

    def produce(
        self,
        topic: str,
        value: bytes | None = None,
        key: bytes | None = None,
        on_delivery: DeliveryCallback | None = None,
        headers: Any = None,
        partition: int = -1,
        **kwargs: Any,
    ) -> None:
        on_delivery = on_delivery or kwargs.get("callback")
        value, key = _bytes(value), _bytes(key)
        hdrs = _headers(headers)
        c = self._cluster
        with c.lock:
            c._step()
            if self._fatal is not None:
                raise KafkaException(self._fatal)
            txn = self._txn_for_produce()
            if len(self._reports) >= self._log.max_pending:
                raise BufferError("Local: Queue full")
            t = c.topics.get(topic)
            create_ms = self._log.clock.now_ms()
            ts = (TIMESTAMP_CREATE_TIME, create_ms)
            err: KafkaError | None = None
            part: int | None = None
            offset: int | None = None
            if c.down:
                # What message.timeout.ms gives while the broker is away; a fake has no
                # reason to wait it out.
                err = _error(KafkaError._MSG_TIMED_OUT, "Local: Message timed out")
            elif t is None:
                err = _error(KafkaError.UNKNOWN_TOPIC_OR_PART, "Broker: Unknown topic or partition")
            else:
                part = self._partition_for(topic, t, key, partition)
                if part >= len(t.partitions):
                    err = _error(KafkaError._UNKNOWN_PARTITION, "Local: Unknown partition")
                    part = None
                else:
                    offset = c._append(t, part, key, value, create_ms, txn, hdrs)
                    if t.log_append_time:
                        ts = t.partitions[part].entries[offset].ts
            if err is not None:
                self._delivery_failed(err)
            self._reports.append(
                _Report(on_delivery, MemoryMessage(topic, part, offset, key, value, ts, err, hdrs))
            )
            self._served.notify_all()

    def _delivery_failed(self, err: KafkaError) -> None:
        """A failed delivery (the transactional producer's transaction cannot commit)."""

    def _serve(self) -> int:
        """Run pending delivery callbacks on this thread, outside the cluster's lock
        (a callback may produce again)."""
        n = 0
        while True:
            with self._cluster.lock:
                if not self._reports:
                    break
                r = self._reports.popleft()
            if r.callback is not None:
                r.callback(r.msg.error(), r.msg)
            n += 1
        return n

    def _raise_fatal_once(self) -> None:
        # confluent-kafka without an error_cb raises a fatal error from poll()/flush().
        if self._fatal is not None and not self._fatal_raised:
            self._fatal_raised = True
            raise KafkaException(self._fatal)

    def poll(self, timeout: float = 0.0) -> int:
        if timeout is None or timeout < 0:
            timeout = 1e9
        deadline = time.monotonic() + timeout
        with self._cluster.lock:
            while not self._reports and (self._fatal is None or self._fatal_raised):
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._served.wait(left)
        n = self._serve()
        self._raise_fatal_once()
        return n

    def flush(self, timeout: float = -1) -> int:
        self._serve()
        self._raise_fatal_once()
        return len(self)

    def __len__(self) -> int:
        with self._cluster.lock:
            return len(self._reports)

    def purge(self, *args: Any, **kwargs: Any) -> None:
        """Drop undelivered reports (nothing here is really in flight)."""
        with self._cluster.lock:
            self._reports.clear()


class MemoryTransactionalProducer(MemoryProducer):
    """A transactional producer (log.TransactionalProducer)."""

    def __init__(self, log: MemoryLog, transactional_id: str, timeout_ms: int) -> None:
        super().__init__(log)
        self.transactional_id = transactional_id
        self._timeout_ms = timeout_ms
        self._state = "init"  # init -> ready <-> in_txn; abortable; fenced
        self._txn: _Txn | None = None
        self._abortable: KafkaError | None = None

    # -- state -----------------------------------------------------------------------
    def _check(self, *allowed: str) -> None:
        """Callers hold the cluster lock."""
        self._cluster._step()
        if self._fatal is not None:
            raise KafkaException(self._fatal)
        if self._state not in allowed:
            _raise(KafkaError._STATE, f"Operation not valid in state {self._state}")

    def _fence_locked(self, why: str) -> None:
        """Fenced by a newer producer with this id, or timed out: abort the open
        transaction; every later call fails fatally."""
        if self._txn is not None and self._txn.start_ms is not None:
            self._cluster._end(self._txn, commit=False)
        self._txn = None
        self._state = "fenced"
        self._fatal = _error(
            KafkaError._FENCED,
            f"transactional producer {self.transactional_id} fenced: {why}",
            fatal=True,
        )
        if self._cluster.holders.get(self.transactional_id) is self:
            del self._cluster.holders[self.transactional_id]
        self._served.notify_all()

    def _txn_for_produce(self) -> _Txn | None:
        if self._state != "in_txn":
            # Outside a transaction, or after a failed delivery (abortable error).
            _raise(KafkaError._STATE, f"Operation not valid in state {self._state}")
        return self._txn

    def _delivery_failed(self, err: KafkaError) -> None:
        if self._state == "in_txn":
            self._state = "abortable"
            self._abortable = err

    # -- TransactionalProducer -------------------------------------------------------
    def init_transactions(self, timeout: float = -1) -> None:
        c = self._cluster
        with c.lock:
            self._check("init")
            c._check_up()
            old = c.holders.get(self.transactional_id)
            # A decided transaction of this id whose markers lag is completed first: the
            # coordinator answers InitProducerId with CONCURRENT_TRANSACTIONS while one is
            # in PrepareCommit / PrepareAbort (it reaches CompleteCommit once its markers
            # are written; apache/kafka, TransactionCoordinator.handleInitProducerId), and
            # librdkafka retries until it is done.
            c._settle(lambda txn: txn.producer.transactional_id == self.transactional_id)
            if old is not None and old is not self:
                old._fence_locked("a newer producer called init_transactions")
            c.holders[self.transactional_id] = self
            self._state = "ready"

    def begin_transaction(self) -> None:
        with self._cluster.lock:
            self._check("ready")
            self._txn = _Txn(self, self._timeout_ms)
            self._state = "in_txn"

    def commit_transaction(self, timeout: float = -1) -> None:
        # librdkafka flushes first: the delivery callbacks run here, on this thread.
        self._serve()
        c = self._cluster
        with c.lock:
            if self._state == "abortable" and self._fatal is None:
                err = self._abortable
                reason = err.str() if err is not None else "transaction failed"
                _raise(
                    err.code() if err is not None else KafkaError._STATE,
                    f"Failed to commit: {reason}",
                    txn_requires_abort=True,
                )
            self._check("in_txn")
            c._check_up()
            if self._txn is not None and self._txn.start_ms is not None:
                c._end(self._txn, commit=True)
            self._txn = None
            self._state = "ready"

    def abort_transaction(self, timeout: float = -1) -> None:
        c = self._cluster
        with c.lock:
            self._check("in_txn", "abortable")
            c._check_up()
            if self._txn is not None and self._txn.start_ms is not None:
                c._end(self._txn, commit=False)
            self._txn = None
            self._abortable = None
            self._state = "ready"


class _Assigned:
    __slots__ = ("fetch", "app")

    def __init__(self, fetch: int) -> None:
        self.fetch = fetch  # next offset to fetch; negative: a logical offset to resolve
        self.app: int = OFFSET_INVALID  # what position() reports


class MemoryReader:
    """A read_committed consumer with manual assignment (log.Reader)."""

    def __init__(self, log: MemoryLog) -> None:
        self._cluster = log.cluster
        self._assigned: dict[tuple[str, int], _Assigned] = {}
        self._order: list[tuple[str, int]] = []
        self._turn = itertools.count()
        self._closed = False

    def _open(self) -> None:
        if self._closed:
            raise RuntimeError("Consumer closed")

    def assign(self, partitions: list[TopicPartition]) -> None:
        self._open()
        c = self._cluster
        with c.lock:
            self._assigned = {}
            for tp in partitions:
                a = _Assigned(tp.offset)
                p = c._partition(tp.topic, tp.partition)
                if a.fetch == OFFSET_END and p is not None:
                    a.fetch = p.high()  # resolved at once, as the consumer's ListOffsets
                self._assigned[(tp.topic, tp.partition)] = a
            self._order = list(self._assigned)

    def _fetch(self, key: tuple[str, int], a: _Assigned, want: int, out: list) -> None:
        """Read up to `want` visible records of one partition into `out`; the position
        passes markers and aborted records read on the way. Caller holds the lock."""
        p = self._cluster._partition(*key)
        if p is None:
            return
        high = p.high()
        if a.fetch < 0:
            # OFFSET_END: the high watermark; BEGINNING, STORED (nothing is stored: never
            # a group member), INVALID: auto.offset.reset=earliest.
            a.fetch = high if a.fetch == OFFSET_END else 0
        elif a.fetch > high:
            a.fetch = 0  # out of range: auto.offset.reset=earliest
        end = p.stable()
        entries = p.entries
        # A batch stops once full: markers after its last record are passed by the next
        # call (a poll() returns its record at the position just after it).
        while a.fetch < end and len(out) < want:
            e = entries[a.fetch]
            if not e.control and e.state == _COMMITTED:
                out.append(
                    MemoryMessage(key[0], key[1], a.fetch, e.key, e.value, e.ts, None, e.headers)
                )
            a.fetch += 1
            a.app = a.fetch

    def _take(self, n: int) -> list[MemoryMessage]:
        out: list[MemoryMessage] = []
        c = self._cluster
        with c.lock:
            c._step()
            if c.down or not self._order:
                return out
            # Start at a different partition each call so none starves the others.
            k = next(self._turn) % len(self._order)
            for key in self._order[k:] + self._order[:k]:
                self._fetch(key, self._assigned[key], n, out)
                if len(out) >= n:
                    break
        return out

    def _wait(self, timeout: float | None) -> bool:
        """Wait (real time) until something may have arrived; False once timed out."""
        if timeout is None or timeout < 0:
            timeout = 3600.0
        with self._cluster.lock:
            return self._cluster.changed.wait(timeout)

    def _real(self, timeout: float) -> float:
        """How long to wait in real time: on a manual clock only a moment (another thread
        may be producing), the rest of the timeout passes on the clock (_waited)."""
        return min(timeout, 0.001) if isinstance(self._cluster.clock, ManualClock) else timeout

    def _waited(self, timeout: float) -> None:
        """A wait that timed out moves a manual clock by as much, so a getter waiting
        with MQGMO_WAIT on an injected clock reaches its deadline without sleeping. At
        least a millisecond: a getter's last sliver of wait (1e-17 s, float rounding of
        its deadline) would otherwise be lost in the clock's epoch milliseconds and the
        getter would never reach its deadline."""
        if timeout > 0 and isinstance(self._cluster.clock, ManualClock):
            self._cluster.clock.advance(max(timeout, 0.001))

    def poll(self, timeout: float = -1) -> MemoryMessage | None:
        self._open()
        forever = timeout is None or timeout < 0
        deadline = None if forever else time.monotonic() + self._real(timeout)
        while True:
            got = self._take(1)
            if got:
                return got[0]
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                self._waited(timeout)
                return None
            self._wait(left)

    def consume(self, num_messages: int = 1, timeout: float = -1) -> list[MemoryMessage]:
        """Records as soon as any are there (librdkafka waits for `num_messages` or the
        timeout; returning early saves the fast tests that wait, and no caller may rely
        on a short batch meaning the timeout passed)."""
        self._open()
        forever = timeout is None or timeout < 0
        deadline = None if forever else time.monotonic() + self._real(timeout)
        while True:
            got = self._take(num_messages)
            if got:
                return got
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                self._waited(timeout)
                return []
            self._wait(left)

    def position(self, partitions: list[TopicPartition]) -> list[TopicPartition]:
        self._open()
        with self._cluster.lock:
            out = []
            for tp in partitions:
                a = self._assigned.get((tp.topic, tp.partition))
                out.append(TopicPartition(tp.topic, tp.partition, a.app if a else OFFSET_INVALID))
            return out

    def close(self) -> None:
        self._closed = True
        self._assigned, self._order = {}, []


class MemoryLog:
    """log.Log on a MemoryCluster (a private one unless `server` is given)."""

    def __init__(
        self,
        clock: Clock | None = None,
        server: MemoryCluster | None = None,
        *,
        txn_timeout_ms: int = config.TXN_TIMEOUT_MS,
        max_pending: int = DEFAULT_MAX_PENDING,
    ) -> None:
        self.clock = clock or (server.clock if server else SYSTEM)
        self.cluster = server or MemoryCluster(self.clock)
        self.txn_timeout_ms = txn_timeout_ms
        self.max_pending = max_pending

    # -- clients ---------------------------------------------------------------------
    def producer(self) -> MemoryProducer:
        return MemoryProducer(self)

    def transactional_producer(self, transactional_id: str) -> MemoryTransactionalProducer:
        return MemoryTransactionalProducer(self, transactional_id, self.txn_timeout_ms)

    def reader(self) -> MemoryReader:
        return MemoryReader(self)

    # -- administration --------------------------------------------------------------
    def create_topics(self, topics: dict[str, TopicSpec]) -> None:
        c = self.cluster
        with c.lock:
            c._check_up()
            for name, spec in topics.items():
                if spec.partitions < 1:
                    _raise(KafkaError.INVALID_PARTITIONS, f"{name}: {spec.partitions} partitions")
            for name, spec in topics.items():
                if name not in c.topics:  # TOPIC_ALREADY_EXISTS is ignored, as KafkaLog does
                    c.topics[name] = _Topic(spec, name)

    def delete_topics(self, topics: list[str]) -> None:
        c = self.cluster
        with c.lock:
            c._check_up()
            for name in topics:
                t = c.topics.pop(name, None)
                if t is None:
                    continue
                if c.disk is not None:
                    c.disk.give_back(name)
                for p in t.partitions:
                    for txn in p.open_first:
                        # The transaction goes on elsewhere; this partition no longer counts.
                        if p in txn.parts:
                            txn.parts.remove(p)
                    p.open_first.clear()
            c.changed.notify_all()

    def topic_exists(self, topic: str) -> bool:
        with self.cluster.lock:
            self.cluster._check_up()
            return topic in self.cluster.topics

    def end_offsets(
        self, partitions: list[tuple[str, int]], *, committed: bool = True, timeout: float = 2.0
    ) -> dict[tuple[str, int], int]:
        c = self.cluster
        with c.lock:
            c._check_up()
            c._step()
            out = {}
            for topic, part in partitions:
                p = c._partition(topic, part)
                if p is None:
                    _raise(KafkaError.UNKNOWN_TOPIC_OR_PART, f"{topic} [{part}]")
                out[(topic, part)] = p.stable() if committed else p.high()
            return out

    def check_reachable(self) -> None:
        with self.cluster.lock:
            self.cluster._check_up()

    def authorized_operations(self, topics: list[str]) -> dict[str, set[str]] | None:
        """The cluster's `acls` (topic -> operations the principal holds) when a test set
        them, else None: the fake cluster enforces nothing by default."""
        acls = self.cluster.acls
        return None if acls is None else {t: set(acls.get(t, ())) for t in topics}

    def log_dirs(self, topics: dict[str, int], timeout_s: float) -> tuple[list[LogDir], set[int]]:
        """The cluster's MemoryDisk as DescribeLogDirs v4 answers it (none: no directory)."""
        c = self.cluster
        with c.lock:
            c._check_up()
            disk = c.disk
            if disk is None:
                return [], set()
            disk.asked += 1
            if disk.refused is not None:
                raise LogDirsOffError(disk.refused)
            if disk.silent:
                return [], {1}
            out = []
            for path, size in disk.sizes.items():
                held = frozenset(
                    (name, p)
                    for name in topics
                    if name in c.topics and disk.where(name) == path
                    for p in range(len(c.topics[name].partitions))
                )
                out.append(LogDir(1, path, size, disk.usable[path], 0, held))
            return out, set()

    def close(self) -> None:
        """Clients are closed by their owners; nothing is held here."""
