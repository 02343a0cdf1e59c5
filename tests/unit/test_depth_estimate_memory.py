"""MAXDEPTH against one connection's own bursts of puts. A put does not read the depth
from the state each time: it keeps a read for 0.1 s and adds what the connection has
counted since. Counted puts leave the connection's pending figures when the pump flushes
them into the state, so the estimate must go on counting them until the next read, or
a burst put faster than one read per 0.1 s lands past MAXDEPTH (the MQPUT page: "the
queue already contains the maximum number of messages allowed" is 2053, MQRC_Q_FULL).

The manual clock never moves here: the first read is the only one."""

from __future__ import annotations

import pytest

import adapter.pymqi as pymqi
from adapter import config

C = pymqi.CMQC
MAX_DEPTH = 3 * config.DEPTH_MARGIN  # the margin's exact count starts at 2/3 of it


def _fill(qm: pymqi.QueueManager, pmo_options: int, extra: int = 50) -> tuple[int, int]:
    """Puts until MAXDEPTH + `extra`, the pump flushing the depth after every 10 (as its
    thread does every tick): (accepted, refused with 2053)."""
    qm.define_queue("Q.DEPTH", max_depth=MAX_DEPTH)
    q = pymqi.Queue(qm, "Q.DEPTH", C.MQOO_OUTPUT)
    pump = qm.get_handle().pump
    accepted = refused = 0
    for i in range(MAX_DEPTH + extra):
        try:
            q.put(b"m%d" % i, pymqi.MD(), pymqi.PMO(Options=pmo_options))
            accepted += 1
        except pymqi.MQMIError as err:
            assert err.reason == C.MQRC_Q_FULL
            refused += 1
        if i % 10 == 9:
            pump.barrier()  # delivered, counted and flushed into the state
    q.close()
    return accepted, refused


@pytest.mark.parametrize(
    "options",
    [C.MQPMO_NO_SYNCPOINT, C.MQPMO_NO_SYNCPOINT | C.MQPMO_ASYNC_RESPONSE],
    ids=["sync-response", "async-response"],
)
def test_one_connections_burst_stops_at_maxdepth(qmgr, options) -> None:
    accepted, refused = _fill(qmgr, options)
    assert (accepted, refused) == (MAX_DEPTH, 50)
    assert qmgr.queue_status("Q.DEPTH")["current_depth"] == MAX_DEPTH


def test_the_estimate_still_sees_other_connections_within_its_freshness(world, qmgr, other):
    """What the estimate keeps is this connection's own count: another connection's puts
    show once the read is older than 0.1 s, and the exact count near the limit."""
    qmgr.define_queue("Q.DEPTH", max_depth=MAX_DEPTH)
    mine = pymqi.Queue(qmgr, "Q.DEPTH", C.MQOO_OUTPUT)
    theirs = pymqi.Queue(other, "Q.DEPTH", C.MQOO_OUTPUT)
    mine.put(b"first")  # the read is taken
    for i in range(MAX_DEPTH - 1):
        theirs.put(b"t%d" % i)
    world.clock.advance(0.2)
    with pytest.raises(pymqi.MQMIError) as err:
        mine.put(b"one too many")
    assert err.value.reason == C.MQRC_Q_FULL
