"""A Kafka share-group consumer (KIP-932) with explicit acknowledgements: the raw side
of competing destructive gets, the broker arbitrating which consumer gets a record.

confluent-kafka 2.16's `ShareConsumer` (a preview client): one `acknowledge` per record
and one `commit_async` per poll, as a getter that must not lose a record would use it.
A new share group starts at the log's end unless its `share.auto.offset.reset` group
config says `earliest`, so each run sets that on its own group first.
"""

from __future__ import annotations

import time
import uuid

from confluent_kafka import ShareConsumer
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    ResourceType,
)

from adapter.config import kafka_settings


def _new_group(bootstrap: str) -> str:
    group = f"bench-share-{uuid.uuid4().hex[:10]}"
    earliest = ConfigEntry(
        "share.auto.offset.reset", "earliest", incremental_operation=AlterConfigOpType.SET
    )
    res = ConfigResource(ResourceType.GROUP, group, incremental_configs=[earliest])
    # alive until the result is in
    admin = AdminClient({**kafka_settings(), "bootstrap.servers": bootstrap})
    admin.incremental_alter_configs([res])[res].result(30)
    return group


def share_read(bootstrap: str, topic: str, n: int, timeout: float = 120.0) -> float:
    """A new share group's consumer takes n records (the first untimed): msg/s."""
    consumer = ShareConsumer(
        {
            **kafka_settings(),
            "bootstrap.servers": bootstrap,
            "group.id": _new_group(bootstrap),
            "share.acknowledgement.mode": "explicit",
            "log_level": 3,  # the client warns on every start that it is a preview
        }
    )
    try:
        consumer.subscribe([topic])
        count, first = 0, None
        deadline = time.monotonic() + timeout
        while count < n:
            if time.monotonic() > deadline:
                raise TimeoutError(f"share consumer read {count} of {n} records")
            for msg in consumer.poll(1.0):
                if msg.error() is None:
                    consumer.acknowledge(msg)
                    count += 1
                    if first is None:
                        first = time.perf_counter()
            consumer.commit_async()
        elapsed = time.perf_counter() - first
        return (count - 1) / elapsed if elapsed > 0 else float("nan")
    finally:
        consumer.close()
