"""Exactly-once output of each micro-batch: foreachBatch + one Kafka transaction.

Spark's Kafka sink is at-least-once. Here every micro-batch is written by one
transactional producer whose `transactional.id` is fixed by the query key (queue
manager, queue, checkpoint, and Spark's query id, which the checkpoint keeps), so a
restarted query fences its dead predecessor. The
transaction holds the logical messages, the complete-group events, the expiration
reports, the ack-log records of discarded messages and, last, a commit record (key =
query key) naming the batch id. On start the sink reads the last commit record: a batch
Spark replays after a crash that had already committed is skipped, so read_committed
readers see every output exactly once.

Redis is not part of a Kafka transaction. An expired message is first locked for this
query (a replay re-takes its own lock), the transaction commits, then the lock becomes
a consumption; the commit record lists those messages, and a restart re-applies the
last one (idempotent), so a crash between the two systems loses nothing.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaException, Producer, TopicPartition
from mqk_avro import codec, outputs

from adapter.config import kafka_settings
from adapter.logs import kafka_logger
from adapter.shim import acklog
from adapter.shim.connection import Connection
from adapter.shim.store import Candidate, lane
from streaming import reports, topics

log = logging.getLogger("mqk.reassemble")

# Librdkafka's default retry backoff (100 ms) makes each short transaction slow.
_PRODUCER_TUNING = {
    "linger.ms": 5,
    "batch.size": 1024 * 1024,
    "retry.backoff.ms": 10,
    "message.max.bytes": 100 * 1024 * 1024,
    "transaction.timeout.ms": 120_000,
    "queue.buffering.max.kbytes": 1024 * 1024,
}


def transactional_id(query_key: str) -> str:
    return "mqk-reassemble-" + hashlib.sha1(query_key.encode()).hexdigest()[:24]


@dataclass
class BatchStats:
    """What one micro-batch wrote (the progress line and the tests read it)."""

    batch_id: int
    skipped: bool = False
    messages: int = 0
    segments: int = 0  # physical messages joined into those logical messages
    groups: int = 0
    reports: int = 0
    discarded: int = 0
    duplicates: int = 0
    corrupt: int = 0  # records left out: not an envelope any MQPUT wrote (issue 19)
    open_units: int = 0
    latencies_ms: list[int] = field(default_factory=list)  # last piece -> commit
    collect_ms: int = 0
    python_ms: float = 0.0  # summed over the stateful calls (two tasks run at once)
    write_ms: int = 0
    committed_at: float = 0.0  # time.time() of the commit


class ExactlyOnceSink:
    """The foreachBatch function. Lives on the driver; one per running query.

    on_batch(stats) is called after each micro-batch, once everything is recorded.
    after_commit(batch_id) is called right after a batch's Kafka transaction committed,
    before Redis is updated and before Spark writes the batch to its checkpoint's commit
    log: the worst moment to die, which a restart must survive (the crash test kills
    the process there). An exception it raises fails the query like a failed write.
    """

    def __init__(
        self,
        *,
        qmgr: str,
        queue: str,
        bootstrap: str,
        redis_url: str | None,
        query_key: str,
        on_batch: Callable[[BatchStats], None] | None = None,
        after_commit: Callable[[int], None] | None = None,
    ) -> None:
        self.qmgr = qmgr
        self.queue = queue
        self.bootstrap = bootstrap
        self.redis_url = redis_url
        self.base_key = query_key
        self.query_key = query_key  # completed with Spark's query id once it is known
        self._query_id = threading.Event()
        self.owner = "reassemble:" + hashlib.sha1(query_key.encode()).hexdigest()[:16]
        self.on_batch = on_batch
        self.after_commit = after_commit
        self.logical_topic = topics.logical_topic(qmgr, queue)
        self.groups_topic = topics.groups_topic(qmgr, queue)
        self.commits_topic = topics.commits_topic(qmgr)
        self._producer: Producer | None = None
        self._conn: Connection | None = None
        self.last_committed = -1
        self.open_by_bucket: dict[str, int] = {}
        self.next_expiry_by_bucket: dict[int, int] = {}  # epoch ms; this run only
        self.totals = Counter()
        self.history: dict[int, BatchStats] = {}
        self.last_output_at = time.monotonic()
        self.between_batches = threading.Event()  # set while no micro-batch is in here
        self.between_batches.set()

    # -- start-up -------------------------------------------------------------------
    @property
    def conn(self) -> Connection:
        if self._conn is None:
            self._conn = Connection(self.qmgr, self.bootstrap, self.redis_url)
        return self._conn

    def set_query_id(self, query_id: str) -> None:
        """Spark's query id: stable for a checkpoint, new if the checkpoint is recreated,
        so a fresh checkpoint never mistakes an old query's commits for its own."""
        self.query_key = f"{self.base_key}#{query_id}"
        self.owner = "reassemble:" + hashlib.sha1(self.query_key.encode()).hexdigest()[:16]
        self._query_id.set()

    def _start(self) -> None:
        if not self._query_id.wait(120):
            raise RuntimeError("the query id never arrived from ReassemblyJob.start()")
        producer = Producer(
            {
                **kafka_settings(),
                "bootstrap.servers": self.bootstrap,
                "transactional.id": transactional_id(self.query_key),
                "logger": kafka_logger(),
                **_PRODUCER_TUNING,
            }
        )
        producer.init_transactions(60)  # fences a predecessor still holding the id
        self._producer = producer
        last = self._read_last_commit()
        if last is not None:
            self.last_committed = last["BatchId"]
            self.open_by_bucket = dict(last["OpenGroups"])
            for name in ("Messages", "Groups", "Reports", "Discarded"):
                self.totals[name.lower()] = last["Total" + name]
            self._apply_redis(last)  # in case the last run died before doing it
            log.info(
                "%s/%s: resuming after committed batch %d", self.qmgr, self.queue, last["BatchId"]
            )

    def _read_last_commit(self) -> dict[str, Any] | None:
        consumer = Consumer(
            {
                **kafka_settings(),
                "bootstrap.servers": self.bootstrap,
                "group.id": self.owner,  # never joined: assign()
                "enable.auto.commit": False,
                "isolation.level": "read_committed",
                "logger": kafka_logger(),
            }
        )
        try:
            tp = TopicPartition(self.commits_topic, 0)
            _low, high = consumer.get_watermark_offsets(tp, timeout=30)
            if high <= 0:
                return None
            consumer.assign([TopicPartition(self.commits_topic, 0, OFFSET_BEGINNING)])
            last = None
            key = self.query_key.encode()
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                for msg in consumer.consume(1000, timeout=0.5):
                    if msg.error() or msg.key() != key or msg.value() is None:
                        continue
                    last = outputs.decode_commit(msg.value())
                pos = consumer.position([TopicPartition(self.commits_topic, 0)])[0].offset
                if pos >= high:  # read_committed: the position passes markers too
                    return last
            raise TimeoutError(f"could not read {self.commits_topic} to its end")
        finally:
            consumer.close()

    # -- one micro-batch ----------------------------------------------------------------
    def __call__(self, df, batch_id: int) -> None:
        self.between_batches.clear()
        try:
            self._batch(df, batch_id)
        finally:
            self.between_batches.set()

    def _batch(self, df, batch_id: int) -> None:
        t0 = time.monotonic()
        # Collect first, even for a batch to skip: it runs the stateful step, which
        # commits the state this batch's replay must leave behind.
        table = df.toArrow()
        collected = time.monotonic()
        if self._producer is None:
            self._start()
        stats = BatchStats(batch_id, collect_ms=int((collected - t0) * 1000))
        if batch_id <= self.last_committed:
            stats.skipped = True
            log.info("batch %d: committed before the restart, skipped", batch_id)
            self._finish(stats)
            return
        if table.num_rows == 0:  # nothing touched: no transaction needed
            self._finish(stats)
            return
        cols = table.to_pydict()
        self._write(batch_id, cols, stats)
        stats.write_ms = int((time.monotonic() - collected) * 1000)
        self._finish(stats)

    def _finish(self, stats: BatchStats) -> None:
        self.history[stats.batch_id] = stats
        if len(self.history) > 1000:
            self.history.pop(min(self.history))
        if self.on_batch is not None:
            self.on_batch(stats)

    def _produce(self, topic: str, key: bytes, value: bytes, headers=None) -> None:
        while True:
            try:
                self._producer.produce(topic, value=value, key=key, headers=headers)
                return
            except BufferError:  # local queue full: let deliveries drain
                self._producer.poll(0.05)

    def _write(self, batch_id: int, cols: dict[str, list], stats: BatchStats) -> None:
        kinds = cols["kind"]
        now_ms = int(time.time() * 1000)
        # Decide the discards before the transaction: lock them for this query.
        discarded: list[str] = []  # Candidate.encode(): the commit record's spelling
        report_recs: list[reports.Record] = []
        reports_by_q: Counter = Counter()
        acks: dict[str, list[int]] = defaultdict(list)
        for i, kind in enumerate(kinds):
            if kind == "stat":
                self.open_by_bucket[str(cols["bucket"][i])] = cols["open"][i]
                self.next_expiry_by_bucket[cols["bucket"][i]] = cols["next_expiry"][i]
                stats.duplicates += cols["dups"][i]
                stats.corrupt += cols["corrupt"][i]
                stats.python_ms += cols["busy_ms"][i]
            elif kind == "expired":
                cand = Candidate(cols["prio"][i], cols["part"][i], cols["off"][i])
                if not reports.lock_expired(self.conn, self.queue, cand, self.owner):
                    continue  # consumed or discarded by someone else: not ours to report
                discarded.append(cand.encode())
                acks[lane(cand.priority, cand.partition)].append(cand.offset)
                reply_q, recs = reports.report_records(self.conn, codec.decode(cols["value"][i]))
                if recs:
                    report_recs.extend(recs)
                    reports_by_q[reply_q] += len(recs)
                    stats.reports += 1
        stats.discarded = len(discarded)
        if stats.corrupt:
            # Counted and logged, never reassembled: the queue's getters dead-letter
            # them (MQDLH reason 2364 or the field's MQPUT code, shim/corrupt.py).
            log.warning(
                "batch %d: %d record(s) on %s are not envelopes an MQPUT wrote; left out",
                batch_id,
                stats.corrupt,
                self.queue,
            )

        p = self._producer
        p.begin_transaction()
        try:
            for i, kind in enumerate(kinds):
                if kind == "msg":
                    pos = f"{cols['prio'][i]}.{cols['part'][i]}:{cols['off'][i]}".encode()
                    headers = [("mqk.pos", pos), ("mqk.last_ts", str(cols["last_ts"][i]).encode())]
                    self._produce(self.logical_topic, cols["key"][i], cols["value"][i], headers)
                    stats.messages += 1
                    stats.segments += cols["pieces"][i]
                    stats.latencies_ms.append(now_ms - cols["last_ts"][i])
                elif kind == "group":
                    self._produce(self.groups_topic, cols["key"][i], cols["value"][i])
                    stats.groups += 1
            for topic, key, value, headers in report_recs:
                self._produce(topic, key, value, headers)
            for topic, key, value in acklog.records(self.qmgr, self.queue, acks):
                self._produce(topic, key, value)
            self.totals.update(
                corrupt=stats.corrupt,
                messages=stats.messages,
                groups=stats.groups,
                reports=stats.reports,
                discarded=stats.discarded,
            )
            stats.open_units = self.open_units()
            commit = {
                "QueryKey": self.query_key,
                "BatchId": batch_id,
                "CommittedTimestamp": int(time.time() * 1000),
                "OpenGroups": dict(self.open_by_bucket),
                "Discarded": [{"QName": self.queue, "Candidate": c} for c in discarded],
                "ReportsPut": dict(reports_by_q),
                "TotalMessages": self.totals["messages"],
                "TotalGroups": self.totals["groups"],
                "TotalReports": self.totals["reports"],
                "TotalDiscarded": self.totals["discarded"],
            }
            self._produce(
                self.commits_topic, self.query_key.encode(), outputs.encode_commit(commit)
            )
            p.commit_transaction(120)
        except KafkaException as exc:
            err = exc.args[0] if exc.args else None
            if err is not None and err.txn_requires_abort():
                p.abort_transaction(60)
            # Fatal (fenced by a newer run) or aborted: fail the query; a restart replays
            # the batch from the checkpoint.
            self._producer = None if err is None or err.fatal() else p
            raise
        stats.committed_at = time.time()
        if self.after_commit is not None:
            self.after_commit(batch_id)
        self.last_committed = batch_id
        if stats.messages or stats.groups or stats.reports:
            self.last_output_at = time.monotonic()
        commit_now = int(time.time() * 1000)
        stats.latencies_ms = [lat + (commit_now - now_ms) for lat in stats.latencies_ms]
        self._apply_redis(commit)

    def _apply_redis(self, commit: dict[str, Any]) -> None:
        """After the commit: discards become consumption, reports count in their queue's
        depth. Both are idempotent, so a restart can apply the last commit again."""
        by_q: dict[str, list[Candidate]] = defaultdict(list)
        for d in commit["Discarded"]:
            by_q[d["QName"]].append(Candidate.decode(d["Candidate"]))
        for queue, cands in by_q.items():
            reports.consume_locked(self.conn, queue, cands, self.owner)
        if commit["ReportsPut"]:
            self.conn.store.add_depths_once(
                f"reassembly:{self.owner}", commit["BatchId"], dict(commit["ReportsPut"])
            )

    def open_units(self) -> int:
        """Groups and logical messages held in state, as last reported per bucket."""
        return sum(self.open_by_bucket.values())

    def next_expiry(self) -> int | None:
        """Earliest time (epoch ms) a unit held in state can expire, as last reported."""
        times = [t for t in self.next_expiry_by_bucket.values() if t >= 0]
        return min(times) if times else None

    def close(self) -> None:
        if self._producer is not None:
            self._producer.flush(10)
            self._producer = None
        if self._conn is not None:
            self._conn.close()
            self._conn = None
