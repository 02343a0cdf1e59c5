"""The reassembly rules in one Python process, for comparison with the Spark job.

Same rules (streaming.assembly.advance over the rules core), same input (a queue's ten
priority topics, read_committed) and same output records (envelopes to the logical
topic, group events to the groups topic), but no Spark: one consumer, a dict of open
units, one producer. It keeps its state in memory only and its output is at-least-once,
so it is a yardstick for the job's overhead, not a replacement for it.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from mqk_avro import codec, outputs

from adapter.config import kafka_settings
from adapter.logs import kafka_logger
from adapter.shim import records
from streaming import topics
from streaming.assembly import OpenUnit, Piece, advance
from streaming.processor import record_key


@dataclass
class PyStats:
    segments: int = 0
    messages: int = 0
    groups: int = 0
    expired: int = 0
    started: float = field(default_factory=time.monotonic)
    latencies_ms: list[int] = field(default_factory=list)


class PyReassembler:
    def __init__(self, qmgr: str, queue: str, bootstrap: str, output_suffix: str = "py") -> None:
        self.qmgr, self.queue = qmgr, queue
        self.prio_of = topics.source_topics(qmgr, queue)
        self.consumer = Consumer(
            {
                **kafka_settings(),
                "bootstrap.servers": bootstrap,
                "group.id": f"mqk-pyreassembler-{time.monotonic_ns()}",
                "enable.auto.commit": False,
                "isolation.level": "read_committed",
                "fetch.max.bytes": 64 * 1024 * 1024,
                "max.partition.fetch.bytes": 16 * 1024 * 1024,
                "logger": kafka_logger(),
            }
        )
        self.consumer.assign([TopicPartition(t, 0, OFFSET_BEGINNING) for t in self.prio_of])
        self.producer = Producer(
            {
                **kafka_settings(),
                "bootstrap.servers": bootstrap,
                "linger.ms": 5,
                "message.max.bytes": 100 * 1024 * 1024,
                "queue.buffering.max.kbytes": 1024 * 1024,
                "logger": kafka_logger(),
            }
        )
        self.out_topic = f"{topics.logical_topic(qmgr, queue)}.{output_suffix}"
        self.groups_topic = f"{topics.groups_topic(qmgr, queue)}.{output_suffix}"
        admin = AdminClient(
            {**kafka_settings(), "bootstrap.servers": bootstrap, "logger": kafka_logger()}
        )
        new = [NewTopic(self.out_topic, 1, -1), NewTopic(self.groups_topic, 1, -1)]
        for fut in admin.create_topics(new, operation_timeout=30).values():
            try:
                fut.result(60)
            except KafkaException as exc:
                if exc.args[0].name() != "TOPIC_ALREADY_EXISTS":
                    raise
        self.open: dict[bytes, OpenUnit] = {}
        self.stats = PyStats()

    def _produce(self, topic: str, key: bytes, value: bytes, headers=None) -> None:
        while True:
            try:
                self.producer.produce(topic, value=value, key=key, headers=headers)
                return
            except BufferError:
                self.producer.poll(0.05)

    def step(self, timeout: float = 0.5) -> int:
        """One poll: every unit that received pieces advances once."""
        msgs = self.consumer.consume(10_000, timeout=timeout)
        if not msgs:
            self.producer.poll(0)
            return 0
        now = int(time.time() * 1000)
        by_unit: dict[bytes, list[Piece]] = defaultdict(list)
        for msg in msgs:
            if msg.error():
                continue
            env = records.envelope_of(msg.key(), msg.value())
            if env is None:
                continue  # a native record: a whole message already, nothing to reassemble
            piece = Piece(
                self.prio_of[msg.topic()],
                msg.partition(),
                msg.offset(),
                msg.timestamp()[1],
                msg.value(),
                env,
            )
            by_unit[record_key(env)].append(piece)
        for key, pieces in by_unit.items():
            outcome = advance(self.open.pop(key, None), pieces, now)
            for m in outcome.messages:
                headers = [("mqk.last_ts", str(m.last_ts).encode())]
                self._produce(self.out_topic, record_key(m.env), codec.encode(m.env), headers)
                self.stats.messages += 1
                self.stats.segments += m.pieces
                self.stats.latencies_ms.append(now - m.last_ts)
            if outcome.group is not None:
                g = outcome.group
                event = outputs.group_event(self.qmgr, self.queue, g, now)
                self._produce(self.groups_topic, g.group_id, outputs.encode_group_event(event))
                self.stats.groups += 1
            self.stats.expired += len(outcome.expired)
            if outcome.keep is not None:
                self.open[key] = outcome.keep
        self.producer.flush(10)  # what is complete goes out now: latency matters here
        return len(msgs)

    def run_until(self, stop, poll: float = 0.05) -> None:
        """Keep going (live) until the `stop` event is set."""
        while not stop.is_set():
            self.step(poll)

    def run(self, segments: int, timeout: float = 300.0) -> PyStats:
        """Until `segments` physical messages were joined into output messages."""
        self.stats = PyStats()
        deadline = time.monotonic() + timeout
        while self.stats.segments < segments and time.monotonic() < deadline:
            self.step()
        self.producer.flush(60)
        return self.stats

    def close(self) -> None:
        self.consumer.close()
        self.producer.flush(10)
