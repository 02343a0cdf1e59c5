"""Queue definitions (DEFINE QLOCAL / DELETE QLOCAL): durable in a compacted Kafka topic,
cached in Redis. Creating a queue creates its ten priority topics and its ack log."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields

from adapter.core import cmqc as C

# Kafka's default record limit is ~1 MB; a segment plus its envelope must fit under it.
DEFAULT_SEGMENT_SIZE = 900 * 1024
_TOPIC_HEADROOM = 64 * 1024  # envelope, key and batch overhead above the payload


@dataclass
class QueueDef:
    """Queue attributes, with MQ's names in the comments and MQ's defaults."""

    name: str
    max_msg_length: int = 4 * 1024 * 1024  # MAXMSGL
    max_depth: int = 5000  # MAXDEPTH
    def_persistence: int = C.MQPER_NOT_PERSISTENT  # DEFPSIST
    def_priority: int = 0  # DEFPRTY
    msg_delivery_sequence: int = C.MQMDS_PRIORITY  # MSGDLVSQ
    partitions: int = 1  # per priority topic; 1 gives MQ's strict FIFO
    segment_size: int = DEFAULT_SEGMENT_SIZE  # largest physical message on Kafka
    backout_threshold: int = 0  # BOTHRESH
    backout_requeue_q: str = ""  # BOQNAME
    def_put_response: int = 1  # DEFPRESP: MQPRT_SYNC_RESPONSE (1) or ASYNC (2)
    def_read_ahead: bool = False  # DEFREADA: send non-persistent messages ahead of gets
    get_inhibited: bool = False  # GET(DISABLED)
    put_inhibited: bool = False  # PUT(DISABLED)

    def to_json(self) -> bytes:
        return json.dumps(asdict(self), sort_keys=True).encode()

    @classmethod
    def from_json(cls, data: bytes) -> QueueDef:
        raw = json.loads(data)
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in raw.items() if k in known})

    def validate(self) -> None:
        if not self.name or len(self.name) > C.MQ_Q_NAME_LENGTH:
            raise ValueError(f"queue name must be 1-{C.MQ_Q_NAME_LENGTH} characters: {self.name!r}")
        if self.msg_delivery_sequence not in (C.MQMDS_PRIORITY, C.MQMDS_FIFO):
            raise ValueError("msg_delivery_sequence must be MQMDS_PRIORITY or MQMDS_FIFO")
        if not 0 <= self.def_priority <= 9:
            raise ValueError("def_priority must be 0-9")
        if self.def_persistence not in (C.MQPER_NOT_PERSISTENT, C.MQPER_PERSISTENT):
            raise ValueError("def_persistence must be MQPER_NOT_PERSISTENT or MQPER_PERSISTENT")
        if self.partitions < 1 or self.max_depth < 0 or self.max_msg_length < 0:
            raise ValueError("partitions must be >= 1, max_depth and max_msg_length >= 0")
        if not self.segment_size >= 16:
            raise ValueError("segment_size must be at least 16 bytes")

    def topic_configs(self) -> dict[str, str]:
        largest = max(self.segment_size, self.max_msg_length) + _TOPIC_HEADROOM
        return {
            # Broker-assigned timestamps give one arrival clock across a queue's topics.
            "message.timestamp.type": "LogAppendTime",
            "max.message.bytes": str(largest),
            "retention.ms": "-1",
            "retention.bytes": "-1",
        }
