"""The connection's pump: the one thread that serves the plain producer's delivery
reports and pushes batched bookkeeping out (put counts into the queues' depth, consumed
offsets into the queues' ack logs), plus the asynchronous-put status MQSTAT reports.

Why batched: a put or a get that wrote its bookkeeping itself would pay a Redis or
Kafka round trip each; the pump does it every PUMP_INTERVAL_S for all of them, and
`barrier()` forces it where a caller needs read-your-writes.
"""

from __future__ import annotations

import logging
import threading
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from confluent_kafka import KafkaError

from adapter import config
from adapter.core import cmqc as C
from adapter.core.errors import fail
from adapter.shim import acklog
from adapter.shim.log import Producer, produce
from adapter.shim.records import Record
from adapter.shim.store import StateStore, lane

log = logging.getLogger("mqk.shim.pump")

# What a failed delivery means to the application, in MQ's reason codes.
_REASONS = {
    KafkaError.UNKNOWN_TOPIC_OR_PART: C.MQRC_Q_DELETED,  # the queue went while open
    KafkaError._UNKNOWN_TOPIC: C.MQRC_Q_DELETED,
    KafkaError.MSG_SIZE_TOO_LARGE: C.MQRC_MSG_TOO_BIG_FOR_Q,
}


def delivery_reason(err: KafkaError) -> int:
    """The MQ reason of a failed delivery (anything unnamed: the connection broke)."""
    return _REASONS.get(err.code(), C.MQRC_CONNECTION_BROKEN)


@dataclass
class AsyncStatus:
    """MQSTS for MQSTAT_TYPE_ASYNC_ERROR: counts of asynchronous puts since the last
    MQSTAT, and the first failure (or, failing none, the first warning)."""

    comp: int = C.MQCC_OK
    reason: int = C.MQRC_NONE
    put_success: int = 0
    put_warning: int = 0
    put_failure: int = 0
    object_type: int = 0
    object_name: str = ""


class _AsyncPut:
    """Delivery reports of one asynchronous MQPUT of several segments: it counts once,
    as MQ counts an MQPUT call, when its last piece settles."""

    __slots__ = ("pump", "queue", "left", "error")

    def __init__(self, pump: Pump, queue: str, pieces: int) -> None:
        self.pump, self.queue, self.left, self.error = pump, queue, pieces, None

    def __call__(self, err, _msg) -> None:
        self.pump._settled(self.queue, err)
        if err is not None and self.error is None:
            self.error = err
        self.left -= 1
        if self.left == 0:
            self.pump._outcome(self.queue, self.error)


class Pump:
    def __init__(
        self,
        qmgr: str,
        producer: Producer,
        store: StateStore,
        on_tick: Callable[[], None] = lambda: None,
    ) -> None:
        self.qmgr = qmgr
        self.producer = producer
        self.store = store
        self._on_tick = on_tick
        self._lock = threading.Lock()
        self._depth: dict[str, int] = defaultdict(int)
        # Every depth change this connection counted, cumulative (never reset): a depth
        # read from the state and kept a while is brought up to date with what this
        # connection counted since, flushed meanwhile or not (depth_mark, counted_since).
        self._counted: dict[str, int] = defaultdict(int)
        # Queue statistics folded into the depth flush (no round trip of their own):
        # MSGSIN beyond the depth counted (+ a syncpoint put at put time, - its count
        # at commit and give-backs, which are not new messages), and the last put time
        # of a monitored queue (LPUTDATE / LPUTTIME).
        self._enq_adjust: dict[str, int] = defaultdict(int)
        self._last_put: dict[str, int] = {}
        self._qtime: dict[str, list[int]] = {}  # queue -> [sum of ms on queue, gets]
        self._acks: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
        self._acks_lock = threading.Lock()
        # Held from taking a batch until it is written: a barrier that found the batch
        # already taken by the pump thread must wait for that write, or it would read
        # the depth (or the ack log) before this connection's own work is in it.
        self._depth_flushing = threading.Lock()
        self._acks_flushing = threading.Lock()
        self._in_flight = 0
        # Async puts made since the last barrier began: acknowledged or not, this
        # connection's next get makes them visible first (read-your-writes).
        self._unbarriered = False
        # Held by whoever serves the producer's delivery reports. librdkafka's flush()
        # polls in 10 ms slices: a report another thread's poll() takes from under it
        # leaves it asleep for the rest of its slice (a sync MQPUT or a barrier then
        # costs 10 ms). The pump only polls when no flush holds it, and never waits.
        self._serving = threading.Lock()
        self._status = AsyncStatus()
        self._callbacks: dict[tuple[str, bool], Callable] = {}
        self.loop_failures = 0
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="mqk-pump", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._closed.set()
        if self._thread.is_alive():
            self._thread.join(2)  # the tick renews leases under the unit of work's lock

    def _loop(self) -> None:
        while not self._closed.is_set():
            try:
                self._serve_reports()
                self.flush_depth()
                self.flush_acks()
                self._on_tick()
                self._closed.wait(config.PUMP_INTERVAL_S)
            except Exception:  # the work is kept and retried on the next tick
                self.loop_failures += 1
                log.warning(
                    "pump tick failed (%d so far); retrying",
                    self.loop_failures,
                    exc_info=self.loop_failures == 1,
                )
                self._closed.wait(0.1)

    # -- puts ------------------------------------------------------------------------
    def send_async(self, queue: str, records: list[Record], *, status: bool = True) -> None:
        """An MQPUT with asynchronous response: counted on the queue when delivered,
        and (`status`: an application's put, not a report) in MQSTAT's figures."""
        if len(records) == 1 or not status:
            cb = self._callbacks.get((queue, status))
            if cb is None:
                settle = self._settled_put if status else self._settled_report
                cb = self._callbacks[(queue, status)] = lambda err, _m, q=queue: settle(q, err)
        else:
            cb = _AsyncPut(self, queue, len(records))
        with self._lock:
            self._in_flight += len(records)
        self._unbarriered = True
        producer = self.producer
        for topic, key, value, headers in records:
            try:  # the hot path: no helper call per record, no headers argument unless some
                if headers:
                    producer.produce(topic, value, key, on_delivery=cb, headers=headers)
                else:
                    producer.produce(topic, value, key, on_delivery=cb)
            except BufferError:
                produce(producer, topic, key, value, cb, headers)
        # The delivery reports of earlier puts, served here while nobody else serves
        # them: left to the pump thread, each report's callback needs the interpreter
        # lock while this thread goes on with the next MQPUT, and takes it at this
        # thread's next system call, one hand-over (two thread switches) per message.
        # Measured with 30,000-50,000 async 1 KiB MQPUTs, alternating runs: 39-53 us a
        # call with the pump serving every report (median 45.7), 34-46 us served here
        # (median 37.7).
        self._serve_reports()

    def _serve_reports(self) -> None:
        """The delivery reports waiting now, unless another thread serves them. Never
        blocks inside poll() (a flush waits for it), and never while a flush runs (it
        would take the flush's delivery report)."""
        if self._serving.acquire(blocking=False):
            try:
                self.producer.poll(0)
            finally:
                self._serving.release()

    def send_sync(self, queue: str, records: list[Record]) -> None:
        """An MQPUT with synchronous response: returns once the broker acknowledged
        every piece and the depth counts them; MQRC_CONNECTION_BROKEN (or the
        delivery's own reason) otherwise."""
        results: list = []
        for topic, key, value, headers in records:
            produce(self.producer, topic, key, value, lambda err, _m: results.append(err), headers)
        # flush() sends at once (no linger) and serves the delivery reports.
        if not self.wait_delivered(config.BROKEN_AFTER_S) or len(results) < len(records):
            raise fail(C.MQRC_CONNECTION_BROKEN)
        for err in results:
            if err is not None:
                raise fail(delivery_reason(err))
        self.count_put(queue, len(records))
        self.flush_depth()

    def send_now(self, records: list[Record]) -> None:
        """Message records that need no delivery bookkeeping (give-backs); a barrier
        makes them durable."""
        for topic, key, value, headers in records:
            produce(self.producer, topic, key, value, None, headers)

    def _settled(self, queue: str, err) -> None:
        with self._lock:
            self._in_flight -= 1
            if err is None:
                self._depth[queue] += 1
                self._counted[queue] += 1

    def _settled_put(self, queue: str, err) -> None:
        self._settled(queue, err)
        self._outcome(queue, err)

    def _settled_report(self, queue: str, err) -> None:
        self._settled(queue, err)
        if err is not None:
            log.warning("a report for %s was not delivered: %s", queue, err)

    def _outcome(self, queue: str, err) -> None:
        with self._lock:
            st = self._status
            if err is None:
                st.put_success += 1
                return
        self._failed(queue, delivery_reason(err), err)

    def refuse_async(self, queue: str, reason: int) -> None:
        """An asynchronous MQPUT the queue manager refused after the call returned
        (PUT(DISABLED)): the application learns it from MQSTAT, as an MQ client does, and
        the log says so."""
        self._failed(queue, reason, "refused by the queue manager")

    def _failed(self, queue: str, reason: int, detail: object) -> None:
        with self._lock:
            st = self._status
            st.put_failure += 1
            if st.comp != C.MQCC_FAILED:  # a failure replaces an earlier warning
                st.comp, st.reason = C.MQCC_FAILED, reason
                st.object_type, st.object_name = C.MQOT_Q, queue
            failures = st.put_failure
        log.warning(
            "asynchronous MQPUT to %s failed: reason %d (%s); %d failure(s) since the last MQSTAT",
            queue,
            reason,
            detail,
            failures,
        )

    def async_status(self, reset: bool = True) -> AsyncStatus:
        """MQSTAT(MQSTAT_TYPE_ASYNC_ERROR): the figures since the last call; a call that
        returns them resets them, as MQ's does."""
        with self._serving:
            self.producer.poll(0)
        with self._lock:
            status = self._status
            if reset:
                self._status = AsyncStatus()
            else:
                status = AsyncStatus(**vars(status))
        return status

    def wait_delivered(self, timeout: float) -> bool:
        """Block until everything produced is acknowledged (the pump stands aside
        meanwhile). False on timeout."""
        with self._serving:
            return self.producer.flush(timeout) == 0

    @property
    def puts_in_flight(self) -> bool:
        """Async puts not yet acknowledged, or made since the last barrier began: a get
        on this connection waits for them and reads them (read-your-writes); acks and
        reports need not."""
        return self._in_flight > 0 or self._unbarriered

    # -- depth and statistics ---------------------------------------------------------
    def count_put(self, queue: str, n: int = 1, *, enqueued: bool = True) -> None:
        """`n` messages more on `queue`; `enqueued`: new ones for MSGSIN (a unit of
        work's commit and a read-ahead give-back are not: counted at put, or never)."""
        with self._lock:
            self._depth[queue] += n
            self._counted[queue] += n
            if not enqueued:
                self._enq_adjust[queue] -= n

    def count_enqueued(self, queue: str, n: int) -> None:
        """MSGSIN counts a syncpoint put at once, committed or not (MQ's MsgEnqCount)."""
        with self._lock:
            self._enq_adjust[queue] += n

    def note_put(self, queue: str, put_ms: int) -> None:
        """The last put time of a queue whose monitoring is on."""
        with self._lock:
            if put_ms > self._last_put.get(queue, 0):
                self._last_put[queue] = put_ms

    def note_qtime(self, queue: str, on_queue_ms: int) -> None:
        """A message of a monitored queue got after `on_queue_ms` on it (QTIME)."""
        with self._lock:
            acc = self._qtime.setdefault(queue, [0, 0])
            acc[0] += max(0, on_queue_ms)
            acc[1] += 1

    def pending_depth(self, queue: str) -> int:
        """Counted here, not yet in the state, plus puts still in flight."""
        return self._depth.get(queue, 0) + len(self.producer)

    def depth_mark(self, queue: str) -> int:
        """What this connection counted on `queue` and wrote to the state, taken just
        before the state's depth is read: that read plus counted_since(queue, mark) is
        then never short of this connection's own puts, however long it is kept (a
        flush running now is waited for: its counts are in neither place meanwhile)."""
        with self._depth_flushing, self._lock:
            return self._counted.get(queue, 0) - self._depth.get(queue, 0)

    def counted_since(self, queue: str, mark: int) -> int:
        """This connection's depth changes on `queue` since `mark` (depth_mark), flushed
        or not, plus puts still in flight."""
        return self._counted.get(queue, 0) - mark + len(self.producer)

    def flush_depth(self) -> None:
        with self._depth_flushing:
            with self._lock:
                if not (self._depth or self._enq_adjust or self._last_put or self._qtime):
                    return
                deltas, self._depth = self._depth, defaultdict(int)
                adjust, self._enq_adjust = self._enq_adjust, defaultdict(int)
                puts, self._last_put = self._last_put, {}
                qtimes, self._qtime = self._qtime, {}
            done: set[str] = set()
            queues = {*deltas, *adjust, *puts, *qtimes}
            try:
                for queue in queues:
                    n = deltas.get(queue, 0)
                    enq, put_ms = n + adjust.get(queue, 0), puts.get(queue, 0)
                    q_sum, q_n = qtimes.get(queue, (0, 0))
                    if n or enq or put_ms or q_n:
                        self.store.queue(queue).add_depth(n, enq, put_ms, q_sum, q_n)
                    done.add(queue)
            except Exception:
                with self._lock:  # not lost: the next flush writes them
                    for queue in queues - done:
                        self._depth[queue] += deltas.get(queue, 0)
                        self._enq_adjust[queue] += adjust.get(queue, 0)
                        if puts.get(queue, 0) > self._last_put.get(queue, 0):
                            self._last_put[queue] = puts[queue]
                        if queue in qtimes:
                            acc = self._qtime.setdefault(queue, [0, 0])
                            acc[0] += qtimes[queue][0]
                            acc[1] += qtimes[queue][1]
                raise

    # -- consumption -----------------------------------------------------------------
    def record_ack(self, queue: str, key: tuple[int, int, int]) -> None:
        """A message left the queue outside a unit of work: log it (batched) to Kafka."""
        with self._acks_lock:
            self._acks[queue][lane(key[0], key[1])].append(key[2])

    def flush_acks(self) -> None:
        with self._acks_flushing:
            with self._acks_lock:
                if not self._acks:
                    return
                acks, self._acks = self._acks, defaultdict(lambda: defaultdict(list))
            for queue, lanes in acks.items():
                for topic, key, value in acklog.records(self.qmgr, queue, lanes):
                    produce(self.producer, topic, key, value)

    def barrier(self) -> None:
        """Read-your-writes: every put of this connection is on Kafka and counted, and
        every consumption is in the ack logs."""
        self._unbarriered = False  # first: a put made meanwhile asks for the next barrier
        self.flush_acks()
        if not self.wait_delivered(config.BROKEN_AFTER_S):
            raise fail(C.MQRC_CONNECTION_BROKEN)
        self.flush_depth()
