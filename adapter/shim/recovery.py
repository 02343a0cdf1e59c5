"""Rebuild a queue's Redis state from Kafka, the source of truth.

Run when a script finds no `epoch` (Redis lost or flushed). One process rebuilds under
a Redis lock while the others wait; claims are refused meanwhile, so no getter can take
a message whose consumption is still on its way to the ack log. Consumed offsets come
from the ack log (read_committed: aborted units of work do not count); depth and low
watermarks come from a scan of the priority topics.
"""

from __future__ import annotations

import time
import uuid

from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

from adapter.shim import naming
from adapter.shim.catalog import QueueDef
from adapter.shim.connection import Connection, decode_ack

# Long enough for live connections' batched acks (flushed every ~20 ms) to land.
ACK_GRACE_S = 1.0
LOCK_TTL_S = 120


def _read_to_end(consumer: Consumer, parts: list[TopicPartition], on_record) -> None:
    ends = {}
    for tp in parts:
        _, high = consumer.get_watermark_offsets(tp, timeout=10)
        if high > 0:
            ends[(tp.topic, tp.partition)] = high
    if not ends:
        return
    consumer.assign([TopicPartition(t, p, OFFSET_BEGINNING) for (t, p) in ends])
    done: set = set()
    deadline = time.monotonic() + 120
    while len(done) < len(ends) and time.monotonic() < deadline:
        for msg in consumer.consume(1000, timeout=0.2):
            if msg.error():
                continue
            on_record(msg)
        for (t, p), high in ends.items():
            pos = consumer.position([TopicPartition(t, p)])[0].offset
            # Under read_committed the position passes transaction markers too.
            if pos >= high:
                done.add((t, p))


def _await_decided(conn: Connection, queue: str) -> int:
    """Wait (up to the transaction timeout) until no transaction on the ack log is
    undecided, so every committed consumption is readable; returns that end offset."""
    from adapter.shim.reconcile import _ends
    from adapter.shim.uow import TXN_TIMEOUT_MS

    tp = TopicPartition(naming.ack_topic(conn.qmgr, queue), 0)
    deadline = time.monotonic() + TXN_TIMEOUT_MS / 1000 + 5
    while True:
        lso, hw = _ends(conn.admin, tp)
        if lso >= hw or time.monotonic() > deadline:
            return lso
        time.sleep(0.1)


def rebuild(conn: Connection, qdef: QueueDef) -> bool:
    """Rebuild unless another process is doing it; returns True if this call rebuilt."""
    r = conn.redis
    prefix = naming.key_prefix(conn.qmgr, qdef.name)
    if r.exists(prefix + "epoch"):
        return False
    if not r.set(prefix + "rebuild", conn.conn_id, nx=True, ex=LOCK_TTL_S):
        deadline = time.monotonic() + LOCK_TTL_S
        while not r.exists(prefix + "epoch") and time.monotonic() < deadline:
            time.sleep(0.1)
        return False
    try:
        conn.barrier()
        time.sleep(ACK_GRACE_S)
        applied_to = _await_decided(conn, qdef.name)
        consumed: dict[str, set[int]] = {}

        def on_ack(msg) -> None:
            consumed.setdefault(msg.key().decode(), set()).update(decode_ack(msg.value()))

        consumer = Consumer(conn.consumer_conf())
        try:
            _read_to_end(
                consumer, [TopicPartition(naming.ack_topic(conn.qmgr, qdef.name), 0)], on_ack
            )
            lows: dict[str, int] = {}
            depth = 0
            prio_of = {naming.data_topic(conn.qmgr, qdef.name, p): p for p in naming.PRIORITIES}

            def on_data(msg) -> None:
                nonlocal depth
                lane = naming.lane(prio_of[msg.topic()], msg.partition())
                if msg.offset() in consumed.get(lane, ()):
                    return
                depth += 1
                lows[lane] = min(lows.get(lane, msg.offset()), msg.offset())

            parts = [TopicPartition(t, p) for t in prio_of for p in range(qdef.partitions)]
            consumer.close()
            consumer = Consumer(conn.consumer_conf())
            _read_to_end(consumer, parts, on_data)
        finally:
            consumer.close()
        pipe = r.pipeline()
        for key in r.scan_iter(match=prefix + "done:*", count=500):
            pipe.delete(key)
        pipe.delete(prefix + "low", prefix + "lock")
        for lane, offsets in consumed.items():
            low = lows.get(lane, max(offsets) + 1)
            pipe.hset(prefix + "low", lane, low)
            above = [o for o in offsets if o >= low]
            if above:
                pipe.zadd(prefix + "done:" + lane, {str(o): o for o in above})
        pipe.set(prefix + "depth", depth)
        pipe.set(prefix + "ackpos", applied_to)  # reconcile continues from here
        pipe.set(prefix + "epoch", uuid.uuid4().hex)
        pipe.execute()
        return True
    finally:
        r.delete(prefix + "rebuild")
