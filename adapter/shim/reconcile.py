"""Bring a queue's Redis state up to date with its ack log in Kafka.

Needed when a lock's lease ran out: its owner may have died after committing its unit
of work (consumption durable in the ack log, never applied to Redis) or before (the
transaction is, or will be, aborted). The ack log is read, with read_committed, from
the last position applied to the last stable offset; while a transaction on the ack
log is still undecided (last stable offset below the high watermark) nothing stale is
released. Then every consumption found is applied, and the remaining expired locks are
released with BackoutCount + 1.
"""

from __future__ import annotations

import time

from confluent_kafka import Consumer, IsolationLevel, TopicPartition
from confluent_kafka.admin import OffsetSpec

from adapter.shim import naming

# Short: a process killed while reconciling must not block everyone else for long.
LOCK_TTL_S = 5


def _ends(admin, tp: TopicPartition) -> tuple[int, int]:
    """(last stable offset, high watermark) of one partition."""
    out = []
    for level in (IsolationLevel.READ_COMMITTED, IsolationLevel.READ_UNCOMMITTED):
        fut = admin.list_offsets({tp: OffsetSpec.latest()}, isolation_level=level)[tp]
        out.append(fut.result(10).offset)
    return out[0], out[1]


def read_acks(conn, queue: str, start: int, end: int) -> dict[str, set[int]]:
    """Consumed offsets per lane in ack-log records [start, end), read_committed."""
    from adapter.shim.connection import decode_ack

    consumed: dict[str, set[int]] = {}
    if end <= start:
        return consumed
    tp = TopicPartition(naming.ack_topic(conn.qmgr, queue), 0, start)
    consumer = Consumer(conn.consumer_conf())
    try:
        consumer.assign([tp])
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            for msg in consumer.consume(1000, timeout=0.1):
                if not msg.error() and msg.offset() < end:
                    consumed.setdefault(msg.key().decode(), set()).update(decode_ack(msg.value()))
            pos = consumer.position([TopicPartition(tp.topic, 0)])[0].offset
            if pos >= end:
                break
    finally:
        consumer.close()
    return consumed


def reconcile(conn, queue: str) -> int:
    """Returns how many messages changed state (consumed or released); 0 also when
    another process is at it or a transaction on the ack log is undecided (the caller
    tries again later)."""
    r = conn.redis
    st = conn.state(queue)
    lock_key = naming.key_prefix(conn.qmgr, queue) + "reconcile"
    if not r.set(lock_key, conn.conn_id, nx=True, ex=LOCK_TTL_S):
        return 0
    try:
        stale = st.stale_locks()
        tp = TopicPartition(naming.ack_topic(conn.qmgr, queue), 0)
        lso, hw = _ends(conn.admin, tp)
        if lso < hw:
            return 0  # someone's commit or abort is in flight: decide later
        start = st.ack_position()
        changed = 0
        for lane, offsets in read_acks(conn, queue, start, lso).items():
            changed += st.apply_consumed([f"{lane}:{o}" for o in sorted(offsets)])
        st.set_ack_position(max(start, lso))
        return changed + st.reclaim(stale)
    finally:
        r.delete(lock_key)
