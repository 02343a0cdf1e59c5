"""The log backend: the seam to Kafka, the source of truth.

The engine needs little of Kafka: producers (plain and transactional) whose calls are
confluent-kafka's own, a reader with manual assignment that sees committed records
only (read_committed), and a handful of administrative calls. The protocols name that
subset, so the real backend hands out confluent-kafka's clients unwrapped (no cost on
the hot path) and the in-memory backend (memory_log.py) mimics exactly that subset.

Records read are confluent-kafka `Message`-shaped: topic(), partition(), offset(),
key(), value(), headers() -> [(name, value)] or None, timestamp() -> (type, ms),
error(). Partitions are
`confluent_kafka.TopicPartition`. Failures are `confluent_kafka.KafkaException`
(and `BufferError` from produce() when the local queue is full), from either backend.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from confluent_kafka import OFFSET_BEGINNING, TopicPartition

log = logging.getLogger("mqk.shim.log")

DeliveryCallback = Callable[[Any, Any], None]  # (KafkaError | None, Message)
Headers = list[tuple[str, bytes | None]]  # Kafka record headers, in order


class Producer(Protocol):
    def produce(
        self,
        topic: str,
        value: bytes | None = None,
        key: bytes | None = None,
        on_delivery: DeliveryCallback | None = None,
        headers: Headers | None = None,
    ) -> None: ...

    def poll(self, timeout: float = 0.0) -> int:
        """Serve delivery callbacks; how many were served."""
        ...

    def flush(self, timeout: float = -1) -> int:
        """Send and wait for delivery; how many are still undelivered."""
        ...

    def __len__(self) -> int:
        """Records produced and not yet delivered (or failed)."""
        ...


class TransactionalProducer(Producer, Protocol):
    def init_transactions(self, timeout: float = -1) -> None:
        """Fence earlier producers with this transactional id, aborting their open
        transaction."""
        ...

    def begin_transaction(self) -> None: ...

    def commit_transaction(self, timeout: float = -1) -> None: ...

    def abort_transaction(self, timeout: float = -1) -> None: ...


class Record(Protocol):
    def topic(self) -> str: ...
    def partition(self) -> int: ...
    def offset(self) -> int: ...
    def key(self) -> bytes | None: ...
    def value(self) -> bytes | None: ...
    def headers(self) -> Headers | None: ...
    def timestamp(self) -> tuple[int, int]: ...
    def error(self) -> Any: ...


class Reader(Protocol):
    """A consumer with manual assignment (never a group member), read_committed."""

    def assign(self, partitions: list[TopicPartition]) -> None: ...

    def poll(self, timeout: float = -1) -> Record | None: ...

    def consume(self, num_messages: int = 1, timeout: float = -1) -> list[Record]: ...

    def position(self, partitions: list[TopicPartition]) -> list[TopicPartition]: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class TopicSpec:
    partitions: int
    config: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class LogDir:
    """One log directory of one broker, as DescribeLogDirs v4 tells it (shim/logdirs.py):
    the volume's size and usable bytes (-1: the broker does not say), a Kafka error code
    (0; KAFKA_STORAGE_ERROR 56 for a directory the broker took offline), and which of
    the partitions asked about live in it (a replica, leader or follower)."""

    broker: int
    path: str
    total_bytes: int
    usable_bytes: int
    error: int = 0
    partitions: frozenset[tuple[str, int]] = frozenset()


class LogDirsOffError(Exception):
    """The log directories cannot be described for this client: a setting the library's
    own DescribeLogDirs client cannot honour (OAUTHBEARER, GSSAPI, a keystore), a
    principal without DESCRIBE on the cluster, a broker older than Kafka 3.3. Its text
    says which, never a secret; the disk guard switches itself off on it."""


class Log(Protocol):
    """Kafka as the engine uses it: clients and the administrative calls."""

    def producer(self) -> Producer:
        """An idempotent producer with acks=all (every put is hardened)."""
        ...

    def transactional_producer(self, transactional_id: str) -> TransactionalProducer: ...

    def reader(self) -> Reader: ...

    def create_topics(self, topics: dict[str, TopicSpec]) -> None:
        """Create what does not exist; return once every partition serves reads."""
        ...

    def delete_topics(self, topics: list[str]) -> None:
        """Delete the topics; ones already gone are ignored."""
        ...

    def topic_exists(self, topic: str) -> bool: ...

    def end_offsets(
        self, partitions: list[tuple[str, int]], *, committed: bool = True
    ) -> dict[tuple[str, int], int]:
        """Per partition the last stable offset (committed=True: what read_committed
        readers can reach) or the high watermark. Retriable errors are retried for
        MQK_BROKEN_AFTER_S, then KafkaException."""
        ...

    def check_reachable(self) -> None:
        """Raise KafkaException if the cluster does not answer (after retries), at once
        when it refuses the credentials (librdkafka's _AUTHENTICATION)."""
        ...

    def authorized_operations(self, topics: list[str]) -> dict[str, set[str]] | None:
        """Per topic, the Kafka operations (AclOperation names: READ, WRITE, ...) the
        client's principal holds; an empty set for a topic it may not even describe.
        None when the cluster enforces no ACLs (nothing to check)."""
        ...

    def log_dirs(self, topics: dict[str, int], timeout_s: float) -> tuple[list[LogDir], set[int]]:
        """Every broker's log directories, with the partitions of `topics` (name ->
        partition count) each holds; and the ids of the brokers that did not answer
        within `timeout_s`. Raises LogDirsOffError when it can never work (see there)."""
        ...

    def close(self) -> None: ...


def produce(
    producer: Producer,
    topic: str,
    key: bytes | None,
    value: bytes | None,
    on_delivery: DeliveryCallback | None = None,
    headers: Headers | None = None,
) -> None:
    """produce(), waiting out a full local queue (BufferError) by serving deliveries.
    `headers` only when there are some: passing even headers=None costs librdkafka's
    header path about a microsecond a record."""
    while True:
        try:
            if headers:
                producer.produce(
                    topic, value=value, key=key, on_delivery=on_delivery, headers=headers
                )
            else:
                producer.produce(topic, value=value, key=key, on_delivery=on_delivery)
            return
        except BufferError:
            producer.poll(0.05)


def read_range(
    log_backend: Log,
    ranges: dict[tuple[str, int], tuple[int, int]],
    on_record: Callable[[Record], None],
    timeout_s: float = 120.0,
) -> bool:
    """Read the committed records of offsets [start, end) of each partition, in offset
    order per partition, calling `on_record` for each. Under read_committed a reader's
    position passes transaction markers and aborted records too, so a partition is done
    when its position reaches `end` (offsets of committed records have gaps). False, and
    a warning, when the time ran out first."""
    ends = {tp: end for tp, (start, end) in ranges.items() if end > start}
    if not ends:
        return True
    pending = dict(ends)
    reader = log_backend.reader()
    try:
        reader.assign(
            [
                TopicPartition(t, p, start if start > 0 else OFFSET_BEGINNING)
                for (t, p), (start, end) in ranges.items()
                if end > start
            ]
        )
        deadline = time.monotonic() + timeout_s
        while pending and time.monotonic() < deadline:
            for msg in reader.consume(1000, timeout=0.1):
                if not msg.error() and msg.offset() < ends[(msg.topic(), msg.partition())]:
                    on_record(msg)
            for tp in reader.position([TopicPartition(t, p) for t, p in pending]):
                if tp.offset >= pending[(tp.topic, tp.partition)]:
                    del pending[(tp.topic, tp.partition)]
    finally:
        reader.close()
    if pending:
        log.warning("reading %s stopped at the time limit before its end", sorted(pending))
    return not pending
