"""Read the job's outputs back (read_committed), decoded: for the demo, tests and bench."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition
from mqk_avro import codec, outputs

from adapter.config import kafka_settings
from adapter.core.model import GROUP_FLAGS
from adapter.logs import kafka_logger
from streaming import topics


@dataclass
class Output:
    """One record of an output topic."""

    key: bytes
    value: dict[str, Any]
    offset: int
    headers: dict[str, bytes] = field(default_factory=dict)
    received_ms: int = 0

    @property
    def pos(self) -> tuple[int, int, int] | None:
        """(priority, partition, offset) of the first item, from the message header."""
        raw = self.headers.get("mqk.pos")
        if raw is None:
            return None
        lane, off = raw.decode().split(":")
        prio, part = lane.split(".")
        return (int(prio), int(part), int(off))


def read_topic(bootstrap: str, topic: str, decode, *, timeout: float = 30.0) -> list[Output]:
    """Every committed record of a one-partition output topic, in offset order."""
    consumer = Consumer(
        {
            **kafka_settings(),
            "bootstrap.servers": bootstrap,
            "group.id": f"mqk-readback-{time.monotonic_ns()}",
            "enable.auto.commit": False,
            "isolation.level": "read_committed",
            "fetch.wait.max.ms": 50,
            "logger": kafka_logger(),
        }
    )
    try:
        tp = TopicPartition(topic, 0)
        md = consumer.list_topics(topic, timeout=10)
        if topic not in md.topics or md.topics[topic].error is not None:
            return []
        _low, high = consumer.get_watermark_offsets(tp, timeout=10)
        out: list[Output] = []
        if high <= 0:
            return out
        consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for msg in consumer.consume(1000, timeout=0.2):
                if msg.error():
                    continue
                out.append(
                    Output(
                        msg.key(),
                        decode(msg.value()),
                        msg.offset(),
                        dict(msg.headers() or []),
                        int(time.time() * 1000),
                    )
                )
            if consumer.position([TopicPartition(topic, 0)])[0].offset >= high:
                return out
        raise TimeoutError(f"could not read {topic} to its end")
    finally:
        consumer.close()


def logical_messages(bootstrap: str, qmgr: str, queue: str) -> list[Output]:
    return read_topic(bootstrap, topics.logical_topic(qmgr, queue), codec.decode)


def complete_groups(bootstrap: str, qmgr: str, queue: str) -> list[Output]:
    return read_topic(bootstrap, topics.groups_topic(qmgr, queue), outputs.decode_group_event)


def logical_order(messages: list[Output], groups: list[Output]) -> list[Output]:
    """MQ's logical order of the reassembled messages: each group (or message outside a
    group) at the physical position of its first item, its messages by MsgSeqNumber.
    Only complete groups and messages outside groups have a place."""
    first_of = {
        g.value["GroupId"]: (
            g.value["FirstPriority"],
            g.value["FirstPartition"],
            g.value["FirstOffset"],
        )
        for g in groups
    }
    placed = []
    for m in messages:
        env = m.value
        if env["MsgFlags"] & GROUP_FLAGS:
            first = first_of.get(env["GroupId"])
            if first is None:
                continue
        else:
            first = m.pos
        # Higher priority first; within a priority, physical (offset) order.
        placed.append(((-first[0], first[1], first[2], env["MsgSeqNumber"]), m))
    return [m for _, m in sorted(placed, key=lambda x: x[0])]
