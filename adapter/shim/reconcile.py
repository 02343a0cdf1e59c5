"""Bring a queue's state up to date with its ack log in Kafka.

Needed when a lock's lease ran out: its owner may have died after committing its unit
of work (consumption durable in the ack log, never applied to the state) or before (the
transaction is, or will be, aborted). The ack log is read, with read_committed, from
the last position applied to the last stable offset; while a transaction on the ack
log is still undecided (last stable offset below the high watermark) nothing stale is
released. Then every consumption found is applied, and the remaining expired locks are
released with BackoutCount + 1.
"""

from __future__ import annotations

from adapter import config
from adapter.shim import acklog
from adapter.shim.log import Log
from adapter.shim.store import QueueState, StateStore


def apply_acks(state: QueueState, consumed: dict[str, set[int]]) -> int:
    """Consumption read from the ack log becomes state, through the live path's own
    transition (apply_consumed); returns how many messages were new."""
    changed = 0
    for ln, offsets in consumed.items():
        prio, part = (int(x) for x in ln.split("."))
        changed += state.apply_consumed([(prio, part, o) for o in sorted(offsets)])
    return changed


def reconcile(log: Log, store: StateStore, qmgr: str, queue: str, owner: str) -> int:
    """Returns how many messages changed state (consumed or released); 0 also when
    another process is at it or a transaction on the ack log is undecided (the caller
    tries again later)."""
    st = store.queue(queue)
    if not st.try_mutex("reconcile", owner, config.RECONCILE_LOCK_S):
        return 0
    try:
        stale = st.stale_locks()
        lso, hw = acklog.ends(log, qmgr, queue)
        if lso < hw:
            return 0  # someone's commit or abort is in flight: decide later
        start = st.ack_position()
        changed = apply_acks(st, acklog.read(log, qmgr, queue, start, lso))
        st.set_ack_position(max(start, lso))
        return changed + st.reclaim(stale)
    finally:
        st.drop_mutex("reconcile")
