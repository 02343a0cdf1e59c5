"""Kafka topic names of a queue manager's queues (Redis keys: redis_store.py).

MQ names may hold '/', '%' and '.', which Kafka forbids or uses as our separator, so
every character outside [A-Za-z0-9-] is escaped as _XX (hex). Two different (QM, Q)
pairs therefore never map to one topic.
"""

from __future__ import annotations

import hashlib
import re

PRIORITIES = range(10)
_SAFE = re.compile(r"[A-Za-z0-9-]")
_MAX_TOPIC = 249


def escape(name: str) -> str:
    return "".join(
        c if _SAFE.fullmatch(c) else "".join(f"_{b:02X}" for b in c.encode()) for c in name
    )


def _topic(*parts: str) -> str:
    name = ".".join(["mqk", *parts])
    if len(name) > _MAX_TOPIC:  # only for very long escaped names: keep them unique
        digest = hashlib.sha1(name.encode()).hexdigest()[:16]
        name = name[: _MAX_TOPIC - 17] + "." + digest
    return name


def data_topic(qmgr: str, queue: str, priority: int) -> str:
    """The topic holding the queue's messages of one priority (0-9)."""
    return _topic(escape(qmgr), escape(queue), f"p{priority}")


def ack_topic(qmgr: str, queue: str) -> str:
    """The queue's consumption log: what was removed, committed with the unit of work."""
    return _topic(escape(qmgr), escape(queue), "acks")


def catalog_topic(qmgr: str) -> str:
    """Compacted: one record per queue definition (tombstone on DELETE QLOCAL)."""
    return _topic(escape(qmgr), "_catalog")


def pub_topic(qmgr: str) -> str:
    """Every publication of the queue manager (key = its full topic string), for
    Kafka-native consumers; MQ subscribers get their copies on their queues."""
    return _topic(escape(qmgr), "_pub")


def retained_topic(qmgr: str) -> str:
    """Compacted: the retained publication of each topic string (key = topic string)."""
    return _topic(escape(qmgr), "_retained")
