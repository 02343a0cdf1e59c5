"""Mirror of a queue's priority topics in a handle's memory, indexed by the rules core.

A Kafka consumer with manual assignment (no group: consumption is ours to track) reads
every lane from its low watermark with read_committed, so uncommitted and aborted
records never appear. Each record becomes a core `Item` in a `QueueView`; the decoded
envelope (MQMD fields + payload) is kept beside it until the item leaves the view.
"""

from __future__ import annotations

import time

from confluent_kafka import Consumer, IsolationLevel, KafkaError, KafkaException, TopicPartition
from confluent_kafka.admin import OffsetSpec
from mqk_avro import codec

from adapter.core import cmqc as C
from adapter.core.model import Item
from adapter.core.view import QueueView
from adapter.shim import naming
from adapter.shim.catalog import QueueDef
from adapter.shim.state import QueueState

# A topic just created: metadata names its leader a moment before the broker serves it.
_TRANSIENT = {
    KafkaError.NOT_LEADER_FOR_PARTITION,
    KafkaError.UNKNOWN_LEADER_EPOCH,
    KafkaError.FENCED_LEADER_EPOCH,
    KafkaError.OFFSET_NOT_AVAILABLE,
    KafkaError.REPLICA_NOT_AVAILABLE,
    KafkaError.BROKER_NOT_AVAILABLE,
    KafkaError.LEADER_NOT_AVAILABLE,
    KafkaError.UNKNOWN_TOPIC_OR_PART,
    KafkaError.REQUEST_TIMED_OUT,
    KafkaError._TRANSPORT,
    KafkaError._TIMED_OUT,
}

Key = tuple[int, int, int]  # (priority, partition, offset)


def lane_of(key: Key) -> str:
    return naming.lane(key[0], key[1])


def cand_of(key: Key) -> str:
    return f"{key[0]}.{key[1]}:{key[2]}"


class QueueReader:
    def __init__(self, conf: dict, qmgr: str, qdef: QueueDef, state: QueueState) -> None:
        self.qdef = qdef
        self.state = state
        self.view = QueueView()
        self.envelopes: dict[Key, dict] = {}
        self.bad_records = 0
        self._fifo = qdef.msg_delivery_sequence == C.MQMDS_FIFO
        self._single = qdef.partitions == 1
        self._topic_prio = {naming.data_topic(qmgr, qdef.name, p): p for p in naming.PRIORITIES}
        # Next offset to read per lane: everything below it is in the view or consumed.
        self.position: dict[str, int] = {}
        self.caught_up_at = 0.0  # monotonic time of the last catch_up
        self.consumer = Consumer(conf)
        lows = state.lows()
        parts = []
        for topic, prio in self._topic_prio.items():
            for part in range(qdef.partitions):
                low = lows.get(naming.lane(prio, part))
                parts.append(TopicPartition(topic, part, low or 0))
                self.position[naming.lane(prio, part)] = low or 0
        self.consumer.assign(parts)

    def _pos(self, prio: int, part: int, offset: int, ts: int) -> tuple:
        # One partition per priority: offset order is physical order, exactly.
        if self._fifo:
            return (ts, -prio, part, offset)
        if self._single:
            return (-prio, offset)
        return (-prio, ts, part, offset)

    def pump(self, timeout: float = 0.0, max_records: int = 2000) -> int:
        """Move newly committed records into the view; returns how many arrived."""
        n = 0
        # consume(n, timeout) waits out its whole timeout unless n records arrive, so
        # wait in poll() for the first record and then take what is already there.
        first = self.consumer.poll(timeout) if timeout > 0 else None
        msgs = self.consumer.consume(max_records, timeout=0)
        if first is not None:
            msgs.insert(0, first)
        for msg in msgs:
            if msg.error():
                continue
            prio = self._topic_prio[msg.topic()]
            part, offset = msg.partition(), msg.offset()
            ln = naming.lane(prio, part)
            self.position[ln] = max(self.position.get(ln, 0), offset + 1)
            try:
                env = codec.decode(msg.value())
            except codec.EnvelopeError:
                # Not one of our envelopes (written by someone else): never an MQ message.
                self.bad_records += 1
                continue
            key: Key = (prio, part, offset)
            self.envelopes[key] = env
            self.view.add(
                Item(
                    key=key,
                    pos=self._pos(prio, part, offset, msg.timestamp()[1]),
                    priority=env["Priority"],
                    msg_id=env["MsgId"],
                    correl_id=env["CorrelId"],
                    group_id=env["GroupId"],
                    seq=env["MsgSeqNumber"],
                    offset=env["Offset"],
                    flags=env["MsgFlags"],
                    length=len(env["Payload"]),
                    persistence=env["Persistence"],
                    put_ms=env["PutTimestamp"],
                    expiry=env["Expiry"],
                    report=env["Report"],
                )
            )
            n += 1
        return n

    def catch_up(self, admin, timeout: float = 2.0) -> bool:
        """Read every record committed before this call. One ListOffsets request (from
        the AdminClient: about 1 ms, where the consumer's own call waits on its fetch
        loop) gives each lane's last stable offset as read_committed sees it."""
        specs = {
            TopicPartition(t, p): OffsetSpec.latest()
            for t in self._topic_prio
            for p in range(self.qdef.partitions)
        }
        want = [tp for tp in self._end_offsets(admin, specs, timeout) if tp.offset > 0]
        self.caught_up_at = time.monotonic()
        deadline = self.caught_up_at + timeout
        while want:
            positions = self.consumer.position(
                [TopicPartition(tp.topic, tp.partition) for tp in want]
            )
            want = [tp for tp, pos in zip(want, positions, strict=True) if pos.offset < tp.offset]
            if not want:
                break
            if time.monotonic() > deadline:
                return False
            self.pump(0.005)
        return True

    @staticmethod
    def _end_offsets(admin, specs: dict, timeout: float) -> list[TopicPartition]:
        """Last stable offsets; retriable broker errors (a leader moving, a topic just
        created) are retried until MQK_BROKEN_AFTER_S, then MQRC_CONNECTION_BROKEN."""
        from adapter.shim.connection import BROKEN_AFTER_S, broken

        deadline = time.monotonic() + BROKEN_AFTER_S
        while True:
            try:
                futures = admin.list_offsets(
                    specs, isolation_level=IsolationLevel.READ_COMMITTED, request_timeout=timeout
                )
                return [
                    TopicPartition(tp.topic, tp.partition, fut.result(timeout).offset)
                    for tp, fut in futures.items()
                ]
            except KafkaException as exc:
                err = exc.args[0] if exc.args else None
                retriable = err is not None and (err.retriable() or err.code() in _TRANSIENT)
                if not retriable or time.monotonic() > deadline:
                    raise broken(exc) from exc
                time.sleep(0.05)

    def forget(self, key: Key) -> None:
        """The item left the queue (consumed by anyone, or expired)."""
        self.view.discard(key)
        self.envelopes.pop(key, None)

    def low_watermarks(self) -> dict[str, int]:
        """Per lane, the smallest offset still in the view (or the read position): every
        offset below it is consumed, an aborted record or a transaction marker."""
        lows = dict(self.position)
        for item in self.view:
            ln = lane_of(item.key)
            if item.key[2] < lows.get(ln, 1 << 62):
                lows[ln] = item.key[2]
        return lows

    def close(self) -> None:
        self.consumer.close()
