"""Rebuild a queue's state from Kafka, the source of truth.

Run when a claim finds no `epoch` (the state server lost or flushed it). One process
rebuilds under a short exclusive right while the others wait; claims are refused
meanwhile, so no getter can take a message whose consumption is still on its way to the
ack log. The rebuild replays, through the same transitions the live path uses: the
messages on the priority topics are counted in (add_depth, as puts are), the ack log's
committed consumption is applied (apply_consumed, as a commit does), each lane's low
watermark is raised to its first message still on the queue (advance), and the state
is marked complete.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from adapter import config
from adapter.shim import acklog, naming
from adapter.shim.catalog import QueueDef
from adapter.shim.clock import Clock
from adapter.shim.log import Log, read_range
from adapter.shim.reconcile import apply_acks
from adapter.shim.store import StateStore, lane

log = logging.getLogger("mqk.shim.recovery")


def _await_decided(log_backend: Log, qmgr: str, queue: str, clock: Clock) -> int:
    """Wait (up to the transaction timeout) until no transaction on the ack log is
    undecided, so every committed consumption is readable; returns that end offset."""
    deadline = clock.monotonic() + config.TXN_TIMEOUT_MS / 1000 + 5
    while True:
        lso, hw = acklog.ends(log_backend, qmgr, queue)
        if lso >= hw or clock.monotonic() > deadline:
            return lso
        clock.sleep(0.1)


def _offsets_on_topics(
    log_backend: Log, qmgr: str, qdef: QueueDef
) -> tuple[dict[str, list[int]], dict[str, int]]:
    """Every record offset of the queue's priority topics, per lane (committed only;
    envelopes and native records alike), and each lane's end offset read to."""
    prio_of = {naming.data_topic(qmgr, qdef.name, p): p for p in naming.PRIORITIES}
    ends = log_backend.end_offsets([(t, p) for t in prio_of for p in range(qdef.partitions)])
    out: dict[str, list[int]] = {}

    def on_record(msg) -> None:
        out.setdefault(lane(prio_of[msg.topic()], msg.partition()), []).append(msg.offset())

    read_range(log_backend, {tp: (0, end) for tp, end in ends.items()}, on_record)
    return out, {lane(prio_of[t], p): end for (t, p), end in ends.items()}


def rebuild(
    log_backend: Log,
    store: StateStore,
    qmgr: str,
    qdef: QueueDef,
    owner: str,
    barrier: Callable[[], None],
    clock: Clock,
) -> bool:
    """Rebuild unless another process is doing it; returns True if this call rebuilt."""
    st = store.queue(qdef.name)
    if st.has_epoch():
        return False
    if not st.try_mutex("rebuild", owner, config.REBUILD_LOCK_S):
        deadline = clock.monotonic() + config.REBUILD_LOCK_S
        while not st.has_epoch() and clock.monotonic() < deadline:
            clock.sleep(0.1)
        return False
    try:
        log.warning("state of queue %s/%s is missing: rebuilding it from Kafka", qmgr, qdef.name)
        barrier()  # this connection's own puts and acks first
        clock.sleep(config.ACK_GRACE_S)  # and the other live connections' batched acks
        applied_to = _await_decided(log_backend, qmgr, qdef.name, clock)
        consumed = acklog.read(log_backend, qmgr, qdef.name, 0, applied_to)
        on_topics, ends = _offsets_on_topics(log_backend, qmgr, qdef)
        st.wipe()
        st.add_depth(sum(len(offs) for offs in on_topics.values()))
        st.set_native_marks(ends)  # native records below the ends are counted now
        apply_acks(st, consumed)
        for ln, offsets in on_topics.items():
            gone = consumed.get(ln, set())
            left = [o for o in offsets if o not in gone]
            # Below the first message still there everything is consumed (or a marker).
            st.advance(ln, min(left) if left else max(offsets) + 1)
        st.set_ack_position(applied_to)  # reconcile continues from here
        st.mark_complete()
        return True
    finally:
        st.drop_mutex("rebuild")
