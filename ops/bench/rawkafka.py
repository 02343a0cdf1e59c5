"""Raw confluent-kafka: the baseline side of every pair.

The clients use the shim's own tuning (adapter/shim/kafka_log.py: idempotent acks=all
producer with linger.ms=2; read_committed consumer with a 20 ms fetch wait) and topics
the settings of a queue's priority topic, so a ratio measures the MQ layer, not a
difference in Kafka configuration.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from adapter.config import kafka_settings
from adapter.shim.catalog import QueueDef


def producer_conf(bootstrap: str, **extra: object) -> dict:
    return {
        **kafka_settings(),
        "bootstrap.servers": bootstrap,
        "enable.idempotence": True,
        "acks": "all",
        "linger.ms": 2,
        "message.max.bytes": 100 * 1024 * 1024,
        "retry.backoff.ms": 10,
        **extra,
    }


def consumer_conf(bootstrap: str, **extra: object) -> dict:
    return {
        **kafka_settings(),
        "bootstrap.servers": bootstrap,
        "group.id": f"bench-{uuid.uuid4().hex[:10]}",
        "enable.auto.commit": False,
        "isolation.level": "read_committed",
        "fetch.wait.max.ms": 20,
        "fetch.queue.backoff.ms": 1,
        "auto.offset.reset": "earliest",
        **extra,
    }


def topic_configs() -> dict[str, str]:
    """A queue's priority-topic settings (LogAppendTime, retention, record size)."""
    return QueueDef(name="BENCH").topic_configs()


class RawTopics:
    """Creates uniquely named topics and deletes them all at the end."""

    def __init__(self, bootstrap: str) -> None:
        self.bootstrap = bootstrap
        self.admin = AdminClient({**kafka_settings(), "bootstrap.servers": bootstrap})
        self.created: list[str] = []

    def create(self, label: str, partitions: int = 1) -> str:
        name = f"bench-{label}-{uuid.uuid4().hex[:10]}"
        futs = self.admin.create_topics(
            [NewTopic(name, partitions, 1, config=topic_configs())], operation_timeout=30
        )
        for fut in futs.values():
            fut.result(60)
        self.created.append(name)
        self._await_leader(name)
        return name

    def _await_leader(self, name: str, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            md = self.admin.list_topics(name, timeout=5).topics.get(name)
            if md and md.error is None and all(p.leader >= 0 for p in md.partitions.values()):
                return
            time.sleep(0.05)
        raise TimeoutError(f"no leader for {name}")

    def delete_all(self) -> None:
        if not self.created:
            return
        for fut in self.admin.delete_topics(self.created, operation_timeout=30).values():
            try:
                fut.result(60)
            except KafkaException:
                pass  # already gone
        self.created.clear()


@contextmanager
def raw_topics(bootstrap: str) -> Iterator[RawTopics]:
    topics = RawTopics(bootstrap)
    try:
        yield topics
    finally:
        topics.delete_all()


def warm_producer(producer: Producer, topic: str) -> None:
    """Connection, metadata and idempotent producer id before the clock starts."""
    producer.produce(topic, b"warm-up")
    producer.flush(30)


def produce(producer: Producer, topic: str, payload: bytes) -> None:
    """produce() that waits for room when librdkafka's local queue is full."""
    while True:
        try:
            producer.produce(topic, payload, on_delivery=_check)
            return
        except BufferError:
            producer.poll(0.05)


def _check(err, _msg) -> None:
    if err is not None:
        raise KafkaException(err)


def produce_async(producer: Producer, topic: str, payload: bytes, n: int) -> float:
    """n produces (serving callbacks as they come) and a final flush: msg/s."""
    start = time.perf_counter()
    for _ in range(n):
        produce(producer, topic, payload)
        producer.poll(0)
    if producer.flush(60):
        raise TimeoutError("raw produce: records still in flight after 60 s")
    return n / (time.perf_counter() - start)


def produce_sync(producer: Producer, topic: str, payload: bytes, n: int) -> float:
    """Each produce waits for its delivery (the confluent-kafka idiom: flush): msg/s."""
    start = time.perf_counter()
    for _ in range(n):
        produce(producer, topic, payload)
        if producer.flush(60):
            raise TimeoutError("raw produce: no delivery within 60 s")
    return n / (time.perf_counter() - start)


def fill(bootstrap: str, topic: str, payload: bytes, n: int) -> None:
    producer = Producer(producer_conf(bootstrap))
    for _ in range(n):
        produce(producer, topic, payload)
        producer.poll(0)
    producer.flush(120)


def consume_n(consumer: Consumer, n: int, timeout: float = 60.0) -> tuple[list, float]:
    """Consume n records in batches: (records, seconds from the first batch to the end)."""
    got: list = []
    first = 0.0
    deadline = time.monotonic() + timeout
    while len(got) < n:
        if time.monotonic() > deadline:
            raise TimeoutError(f"raw consume: {len(got)} of {n} records in {timeout} s")
        for msg in consumer.consume(min(500, n - len(got)), timeout=0.5):
            if msg.error():
                continue
            if not got:
                first = time.perf_counter()
            got.append(msg)
    return got, time.perf_counter() - first


def poll_n(consumer: Consumer, n: int, timeout: float = 60.0) -> tuple[int, float]:
    """n records, one poll() each (one message per call, like MQGET); the first is a
    warm-up and not timed. Returns (bytes of the timed records, their msg/s)."""
    size = 0
    start = 0.0
    deadline = time.monotonic() + timeout
    got = 0
    while got < n:
        if time.monotonic() > deadline:
            raise TimeoutError(f"raw poll: {got} of {n} records in {timeout} s")
        msg = consumer.poll(0.5)
        if msg is None or msg.error():
            continue
        got += 1
        if got == 1:
            start = time.perf_counter()
        else:
            size += len(msg.value())
    seconds = time.perf_counter() - start
    return size, (n - 1) / seconds if seconds > 0 else float("nan")


def read_back(bootstrap: str, topic: str, n: int, offset: int = 0) -> tuple[int, float]:
    """A fresh consumer polls n records from `offset` (the first untimed): (bytes, msg/s)."""
    consumer = Consumer(consumer_conf(bootstrap))
    try:
        consumer.assign([TopicPartition(topic, 0, offset)])
        return poll_n(consumer, n)
    finally:
        consumer.close()


def batch_rate(bootstrap: str, topic: str, n: int) -> float:
    """A fresh consumer reads n records with consume() batches (the client's fastest
    path): msg/s from the first batch to the n-th record."""
    consumer = Consumer(consumer_conf(bootstrap))
    try:
        consumer.assign([TopicPartition(topic, 0, 0)])
        _, seconds = consume_n(consumer, n)
        return n / seconds if seconds > 0 else float("nan")
    finally:
        consumer.close()
