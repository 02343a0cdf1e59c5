"""One MQ connection (MQCONN) on Kafka + Redis: clients, queue administration, MsgIds.

Transient broker or Redis errors are retried with tenacity for a bounded time; servers
that stay unreachable give MQRC_CONNECTION_BROKEN (2009), never a hang.
"""

from __future__ import annotations

import atexit
import itertools
import json
import os
import threading
import time
import uuid
import weakref
from collections import defaultdict

import redis
from confluent_kafka import KafkaException, Producer
from confluent_kafka.admin import AdminClient, NewTopic
from tenacity import retry, retry_if_exception_type, stop_after_delay, wait_exponential

from adapter import config
from adapter.core import cmqc as C
from adapter.pymqi.errors import MQMIError
from adapter.shim import naming
from adapter.shim.catalog import QueueDef
from adapter.shim.state import QueueState

# How long a server may stay unreachable before a call gives MQRC_CONNECTION_BROKEN.
BROKEN_AFTER_S = float(os.environ.get("MQK_BROKEN_AFTER_S", "15"))  # read at import

_transient = retry(
    retry=retry_if_exception_type((redis.ConnectionError, redis.TimeoutError)),
    stop=stop_after_delay(BROKEN_AFTER_S),
    wait=wait_exponential(multiplier=0.05, max=1.0),
    reraise=True,
)


def encode_ack(offsets: list[int]) -> bytes:
    """An ack-log record value: the offsets of one lane that left the queue."""
    return json.dumps({"c": offsets}, separators=(",", ":")).encode()


def decode_ack(value: bytes) -> list[int]:
    return json.loads(value)["c"]


def broken(exc: BaseException) -> MQMIError:
    err = MQMIError(C.MQCC_FAILED, C.MQRC_CONNECTION_BROKEN)
    err.__cause__ = exc
    return err


def _quiet_logger():
    import logging

    log = logging.getLogger("mqk.kafka")
    log.addHandler(logging.NullHandler())
    log.propagate = False
    return log


_LIVE: weakref.WeakSet = weakref.WeakSet()


@atexit.register
def _application_ended() -> None:
    """The application ends without MQDISC: its puts and consumption reach Kafka, and
    its unit of work is backed out, as MQ does for an application that ends normally
    without disconnecting. (Runs before interpreter finalisation, threads still alive.)"""
    for conn in list(_LIVE):
        try:
            conn.end_without_disconnect()
        except Exception:  # noqa: BLE001 - best effort at exit; leases cover the rest
            pass


# The pump's period: delivery reports of async puts, depth counts and acks batch up to it.
PUMP_INTERVAL_S = 0.005


class Connection:
    """Kafka producer/admin and Redis client of one queue-manager connection."""

    _ids = itertools.count(1)

    def __init__(
        self,
        qmgr: str,
        kafka_bootstrap: str | None = None,
        redis_url: str | None = None,
        transactional_id: str | None = None,
    ):
        if not qmgr or len(qmgr) > C.MQ_Q_MGR_NAME_LENGTH:
            raise MQMIError(C.MQCC_FAILED, C.MQRC_Q_MGR_NAME_ERROR)
        self.qmgr = qmgr
        self.endpoints = config.endpoints(kafka_bootstrap, redis_url)
        self.conn_id = f"{uuid.uuid4().hex[:12]}"
        # MsgId: 'MQK ' + 12 bytes unique to this connection + 8-byte counter (MQ's own
        # ids are likewise a fixed prefix plus a counter).
        self._id_prefix = b"MQK " + uuid.uuid4().bytes[:12]
        self._id_counter = itertools.count(int(time.time() * 1000) << 16)
        self._log = _quiet_logger()
        self.redis = redis.Redis.from_url(
            self.endpoints.redis_url,
            socket_connect_timeout=5,
            socket_timeout=10,
            health_check_interval=30,
        )
        self.kafka_conf = {
            "bootstrap.servers": self.endpoints.kafka_bootstrap,
            "logger": self._log,
        }
        self.producer = Producer(
            {
                **self.kafka_conf,
                # Persistent messages: idempotent, acks=all (MQ hardens persistent puts).
                "enable.idempotence": True,
                "acks": "all",
                "linger.ms": 2,
                "message.max.bytes": 100 * 1024 * 1024,
                "message.timeout.ms": int(BROKEN_AFTER_S * 1000),
                "retry.backoff.ms": 10,
            }
        )
        self.admin = AdminClient(self.kafka_conf)
        self._states: dict[str, QueueState] = {}
        self._defs: dict[str, QueueDef] = {}
        self._depth_deltas: dict[str, int] = defaultdict(int)
        self._depth_lock = threading.Lock()
        self._in_flight = 0
        self._sync_waiters = 0
        self.async_errors: list[Exception] = []
        # Consumption not yet written to the queues' ack logs: {queue: {lane: [offsets]}}.
        self._acks: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
        self._acks_lock = threading.Lock()
        self._closed = threading.Event()
        self._check_reachable()
        from adapter.shim.uow import Transactions

        # A stable transactional id (argument or MQK_TRANSACTIONAL_ID) lets a restarted
        # process fence its dead predecessor and abort its open transaction at once.
        self.txn = Transactions(self, transactional_id or os.environ.get("MQK_TRANSACTIONAL_ID"))
        self._pump = threading.Thread(target=self._pump_loop, name="mqk-pump", daemon=True)
        self._pump.start()
        _LIVE.add(self)

    # ------------------------------------------------------------------ plumbing
    def _check_reachable(self) -> None:
        try:
            _transient(self.redis.ping)()
        except redis.RedisError as exc:
            raise broken(exc) from exc
        deadline = time.monotonic() + BROKEN_AFTER_S
        while True:
            try:
                self.admin.list_topics(timeout=min(5.0, BROKEN_AFTER_S))
                return
            except KafkaException as exc:
                if time.monotonic() > deadline:
                    raise broken(exc) from exc

    def _pump_loop(self) -> None:
        """Serve delivery reports and push put counts into the queues' depth counters."""
        while not self._closed.is_set():
            try:
                if self._sync_waiters:
                    # A sync MQPUT is flushing: if this thread polled too, it could take
                    # that put's delivery report and make it wait out a polling slice.
                    time.sleep(0.005)
                    continue
                # Never block inside poll(): a sync MQPUT starting meanwhile would find
                # its delivery report taken here, and its flush() would sleep out a 10 ms
                # polling slice (that cost every sync put ~1 ms on average).
                self.producer.poll(0)
                self.flush_depth()
                self.flush_acks()
                self.txn.renew()
                self._closed.wait(PUMP_INTERVAL_S)
            except Exception as exc:  # noqa: BLE001 - reported to the app on its next call
                self.async_errors.append(exc)
                time.sleep(0.1)

    def wait_delivered(self, timeout: float) -> bool:
        """Block until everything this connection produced is acknowledged (the pump
        stands aside meanwhile). False on timeout."""
        with self._depth_lock:
            self._sync_waiters += 1
        try:
            return self.producer.flush(timeout) == 0
        finally:
            with self._depth_lock:
                self._sync_waiters -= 1

    def put_sent(self) -> None:
        with self._depth_lock:
            self._in_flight += 1

    def put_settled(self) -> None:
        with self._depth_lock:
            self._in_flight -= 1

    @property
    def puts_in_flight(self) -> bool:
        """Async puts of this connection not yet acknowledged by the broker: a get on
        this connection must wait for them (read-your-writes), acks and reports need not."""
        return self._in_flight > 0

    def count_put(self, queue: str, n: int = 1) -> None:
        with self._depth_lock:
            self._depth_deltas[queue] += n

    def flush_depth(self) -> None:
        with self._depth_lock:
            if not self._depth_deltas:
                return
            deltas, self._depth_deltas = self._depth_deltas, defaultdict(int)
        pipe = self.redis.pipeline(transaction=False)
        for queue, n in deltas.items():
            pipe.incrby(naming.key_prefix(self.qmgr, queue) + "depth", n)
        pipe.execute()

    def record_ack(self, queue: str, lane: str, offset: int) -> None:
        """A message left the queue outside a unit of work: log it (batched) to Kafka."""
        with self._acks_lock:
            self._acks[queue][lane].append(offset)

    def flush_acks(self) -> None:
        with self._acks_lock:
            if not self._acks:
                return
            acks, self._acks = self._acks, defaultdict(lambda: defaultdict(list))
        for queue, lanes in acks.items():
            topic = naming.ack_topic(self.qmgr, queue)
            for lane, offsets in lanes.items():
                self.producer.produce(topic, key=lane.encode(), value=encode_ack(offsets))

    def barrier(self) -> None:
        """Read-your-writes: every put of this connection is on Kafka and counted, and
        every consumption is in the ack logs."""
        self.flush_acks()
        remaining = self.producer.flush(BROKEN_AFTER_S)
        if remaining:
            raise MQMIError(C.MQCC_FAILED, C.MQRC_CONNECTION_BROKEN)
        self.flush_depth()

    def report_expiry(self, original: dict) -> bool:
        """A discarded expired message asked for an MQRO_EXPIRATION* report: send it
        (outside any unit of work). True if a report was put."""
        from adapter.core.expiry import expiry_report_fields, wants_expiry_report

        if not wants_expiry_report(original["Report"]):
            return False
        self.put_report(original, expiry_report_fields(original, new_msg_id=self.new_msg_id()))
        return True

    def put_report(self, original: dict, fields: dict) -> None:
        """Put a report message (expiry) to the original's ReplyToQ, outside any unit of
        work. A reply queue that does not exist here drops the report, as MQ would send
        it to a dead-letter queue this queue manager does not have."""
        from adapter.core.expiry import report_data
        from adapter.pymqi.structs import MD, PMO
        from adapter.shim.handle import QueueHandle

        reply_q = original.get("ReplyToQ", "").strip()
        reply_qm = original.get("ReplyToQMgr", "").strip()
        if not reply_q or (reply_qm and reply_qm != self.qmgr):
            return
        qdef = self.lookup_queue(reply_q)
        if qdef is None:
            return
        md = MD()
        for name in (
            "MsgType",
            "Feedback",
            "MsgId",
            "CorrelId",
            "Priority",
            "Persistence",
            "GroupId",
            "MsgSeqNumber",
            "Offset",
            "MsgFlags",
            "Report",
            "Expiry",
        ):
            if name in fields:
                md[name] = fields[name]
        md.Format = original.get("Format", "").encode()
        md.CodedCharSetId = original.get("CodedCharSetId", 0)
        md.Encoding = original.get("Encoding", C.MQENC_NATIVE)
        md.OriginalLength = len(original.get("Payload", b""))
        data = report_data(original.get("Payload", b""), original.get("Report", 0))
        handle = QueueHandle(self, qdef, C.MQOO_OUTPUT)
        try:
            handle.put(data, md, PMO(Options=C.MQPMO_NO_SYNCPOINT), put1=True)
        finally:
            handle.close()

    def new_msg_id(self) -> bytes:
        return self._id_prefix + next(self._id_counter).to_bytes(8, "big")

    def new_handle_id(self) -> str:
        return f"{self.conn_id}.{next(self._ids)}"

    def state(self, queue: str) -> QueueState:
        st = self._states.get(queue)
        if st is None:
            st = self._states[queue] = QueueState(self.redis, self.qmgr, queue)
        return st

    def consumer_conf(self) -> dict:
        return {
            **self.kafka_conf,
            "group.id": f"mqk-reader-{self.conn_id}",  # never joined or committed: assign()
            "enable.auto.commit": False,
            "enable.auto.offset.store": False,
            "isolation.level": "read_committed",
            "fetch.wait.max.ms": 20,
            "fetch.error.backoff.ms": 20,
            "fetch.queue.backoff.ms": 1,
            "enable.partition.eof": False,
            # Offset 0 of a topic whose log start moved on: start at the oldest record.
            "auto.offset.reset": "earliest",
            # Prefetch bound: big segmented messages need not sit in memory twice.
            "queued.max.messages.kbytes": 8192,
        }

    def close(self) -> None:
        """MQDISC: an open unit of work is committed (backed out if it cannot be, with
        MQRC_BACKED_OUT), as the queue manager does for a coordinated unit of work."""
        if self._closed.is_set():
            return
        self._closed.set()
        self._pump.join(2)  # the pump renews leases under the unit of work's lock
        try:
            self.producer.poll(0)
            self.barrier()
            self.txn.commit()
        finally:
            self.redis.close()

    def end_without_disconnect(self) -> None:
        if self._closed.is_set():
            return
        self._closed.set()
        self._pump.join(2)
        try:
            self.barrier()
        finally:
            self.txn.backout()
            self.redis.close()

    # ------------------------------------------------------------------ catalog
    def _catalog_producer_send(self, name: str, value: bytes | None) -> None:
        topic = naming.catalog_topic(self.qmgr)
        done: list = []
        self.producer.produce(
            topic, key=name.encode(), value=value, on_delivery=lambda e, m: done.append(e)
        )
        self.producer.flush(BROKEN_AFTER_S)
        if not done or done[0] is not None:
            raise broken(RuntimeError(f"catalog write failed: {done}"))

    def _ensure_topics(self, topics: dict[str, tuple[int, dict[str, str]]]) -> None:
        new = [
            NewTopic(t, num_partitions=n, replication_factor=-1, config=cfg)
            for t, (n, cfg) in topics.items()
        ]
        for fut in self.admin.create_topics(new, operation_timeout=30).values():
            try:
                fut.result(60)
            except KafkaException as exc:
                if exc.args[0].name() != "TOPIC_ALREADY_EXISTS":
                    raise broken(exc) from exc

    def _await_leaders(self, topics: list[str], timeout: float = 30.0) -> None:
        """A new topic is usable once every partition has a leader the broker reports."""
        deadline = time.monotonic() + timeout
        pending = set(topics)
        while pending:
            md = self.admin.list_topics(timeout=5)
            for t in list(pending):
                tmd = md.topics.get(t)
                if (
                    tmd
                    and tmd.error is None
                    and tmd.partitions
                    and all(p.leader >= 0 and p.error is None for p in tmd.partitions.values())
                ):
                    pending.discard(t)
            if pending:
                if time.monotonic() > deadline:
                    raise broken(RuntimeError(f"no partition leader for {sorted(pending)}"))
                time.sleep(0.05)

    def _await_offsets(self, topics: dict[str, tuple[int, dict[str, str]]]) -> None:
        """A new partition is usable once the broker answers ListOffsets for it (its
        leader epoch settles a moment after metadata names the leader)."""
        from confluent_kafka import TopicPartition
        from confluent_kafka.admin import OffsetSpec

        from adapter.shim.reader import QueueReader

        specs = {
            TopicPartition(t, p): OffsetSpec.latest()
            for t, (parts, _) in topics.items()
            for p in range(parts)
        }
        QueueReader._end_offsets(self.admin, specs, timeout=5.0)

    def define_queue(self, qdef: QueueDef, replace: bool = False) -> QueueDef:
        qdef.validate()
        if not replace and self.lookup_queue(qdef.name, refresh=True) is not None:
            raise MQMIError(C.MQCC_FAILED, C.MQRCCF_OBJECT_ALREADY_EXISTS)
        self._ensure_topics({naming.catalog_topic(self.qmgr): (1, {"cleanup.policy": "compact"})})
        topics = {
            naming.data_topic(self.qmgr, qdef.name, p): (qdef.partitions, qdef.topic_configs())
            for p in naming.PRIORITIES
        }
        topics[naming.ack_topic(self.qmgr, qdef.name)] = (1, {"retention.ms": "-1"})
        self._ensure_topics(topics)
        self._await_leaders(list(topics))
        self._await_offsets(topics)
        self._catalog_producer_send(qdef.name, qdef.to_json())
        pipe = self.redis.pipeline()
        pipe.hset(naming.catalog_key(self.qmgr), qdef.name, qdef.to_json())
        # A new queue's state is complete (and empty) from the start.
        pipe.setnx(naming.key_prefix(self.qmgr, qdef.name) + "epoch", uuid.uuid4().hex)
        pipe.execute()
        self._defs[qdef.name] = qdef
        return qdef

    def delete_queue(self, name: str, purge: bool = False) -> None:
        qdef = self.lookup_queue(name, refresh=True)
        if qdef is None:
            raise MQMIError(C.MQCC_FAILED, C.MQRC_UNKNOWN_OBJECT_NAME)
        st = self.state(name)
        if not purge and st.depth() > 0:
            raise MQMIError(C.MQCC_FAILED, C.MQRC_Q_NOT_EMPTY)
        self._catalog_producer_send(name, None)
        topics = [naming.data_topic(self.qmgr, name, p) for p in naming.PRIORITIES]
        topics.append(naming.ack_topic(self.qmgr, name))
        for fut in self.admin.delete_topics(topics, operation_timeout=30).values():
            try:
                fut.result(60)
            except KafkaException:
                pass  # already gone
        keys = list(self.redis.scan_iter(match=naming.key_prefix(self.qmgr, name) + "*", count=500))
        if keys:
            self.redis.delete(*keys)
        self.redis.hdel(naming.catalog_key(self.qmgr), name)
        self._defs.pop(name, None)

    def lookup_queue(self, name: str, refresh: bool = False) -> QueueDef | None:
        if not refresh and name in self._defs:
            return self._defs[name]
        try:
            raw = _transient(self.redis.hget)(naming.catalog_key(self.qmgr), name)
        except redis.RedisError as exc:
            raise broken(exc) from exc
        if raw is None:
            raw = self._catalog_from_kafka().get(name)
            if raw is not None:  # Redis lost its cache: put the definition back
                self.redis.hset(naming.catalog_key(self.qmgr), name, raw)
        if raw is None:
            self._defs.pop(name, None)
            return None
        qdef = QueueDef.from_json(raw)
        self._defs[name] = qdef
        return qdef

    def _catalog_from_kafka(self) -> dict[str, bytes]:
        """Read the compacted catalog topic to its end (the durable definitions)."""
        from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

        topic = naming.catalog_topic(self.qmgr)
        md = self.admin.list_topics(topic=topic, timeout=10)
        if topic not in md.topics or md.topics[topic].error is not None:
            return {}
        consumer = Consumer(self.consumer_conf())
        try:
            _, high = consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
            consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
            out: dict[str, bytes] = {}
            deadline = time.monotonic() + 30
            pos = 0
            while pos < high and time.monotonic() < deadline:
                for msg in consumer.consume(500, timeout=0.5):
                    if msg.error():
                        continue
                    pos = msg.offset() + 1
                    name = msg.key().decode()
                    if msg.value() is None:
                        out.pop(name, None)
                    else:
                        out[name] = msg.value()
            return out
        finally:
            consumer.close()

    def queue_status(self, name: str) -> dict:
        qdef = self.lookup_queue(name, refresh=True)
        if qdef is None:
            raise MQMIError(C.MQCC_FAILED, C.MQRC_UNKNOWN_OBJECT_NAME)
        self.barrier()
        st = self.state(name)
        opens = st.open_counts()
        return {
            "queue": name,
            "current_depth": st.depth(),
            "open_input_count": opens["input"],  # IPPROCS: browse-only handles do not count
            "open_output_count": opens["output"],
            "attributes": json.loads(qdef.to_json()),
        }
