"""Kafka topics of the reassembly job, named like the shim's queue topics.

`mqk.<QM>.<Q>.logical` holds complete logical messages (envelopes), `mqk.<QM>.<Q>.groups`
complete-group events, and `mqk.<QM>._reassembly` (compacted) each query's last
committed micro-batch. Names are escaped as in adapter.shim.naming.
"""

from __future__ import annotations

import hashlib

from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient, NewTopic

from adapter.config import kafka_settings
from adapter.logs import kafka_logger
from adapter.shim import naming

_MAX_TOPIC = 249


def _topic(*parts: str) -> str:
    # Same rule as the shim's names: very long escaped names keep a unique hashed tail.
    name = ".".join(["mqk", *parts])
    if len(name) > _MAX_TOPIC:
        digest = hashlib.sha1(name.encode()).hexdigest()[:16]
        name = name[: _MAX_TOPIC - 17] + "." + digest
    return name


def logical_topic(qmgr: str, queue: str) -> str:
    """Complete logical messages of the queue (segments joined), as envelopes."""
    return _topic(naming.escape(qmgr), naming.escape(queue), "logical")


def groups_topic(qmgr: str, queue: str) -> str:
    """Complete-group events of the queue."""
    return _topic(naming.escape(qmgr), naming.escape(queue), "groups")


def commits_topic(qmgr: str) -> str:
    """Compacted: per reassembly query, its last committed micro-batch."""
    return _topic(naming.escape(qmgr), "_reassembly")


def source_topics(qmgr: str, queue: str) -> dict[str, int]:
    """The queue's ten priority topics -> priority."""
    return {naming.data_topic(qmgr, queue, p): p for p in naming.PRIORITIES}


def ensure_topics(bootstrap: str, qmgr: str, queue: str, partitions: int = 1) -> None:
    """Create the output topics if they are missing (idempotent)."""
    admin = AdminClient(
        {**kafka_settings(), "bootstrap.servers": bootstrap, "logger": kafka_logger()}
    )
    big = {"max.message.bytes": str(64 * 1024 * 1024), "retention.ms": "-1"}
    wanted = [
        NewTopic(logical_topic(qmgr, queue), partitions, -1, config=big),
        NewTopic(groups_topic(qmgr, queue), partitions, -1, config={"retention.ms": "-1"}),
        NewTopic(commits_topic(qmgr), 1, -1, config={"cleanup.policy": "compact"}),
    ]
    for fut in admin.create_topics(wanted, operation_timeout=30).values():
        try:
            fut.result(60)
        except KafkaException as exc:
            if exc.args[0].name() != "TOPIC_ALREADY_EXISTS":
                raise
