"""A reader whose lanes were all consumed catches up at once: the consumer's position
stays OFFSET_INVALID on a partition assigned at its end (the lane's low mark), and
catch_up must not wait for it (it used to spend its whole timeout there on every get)."""

from __future__ import annotations

from confluent_kafka import TopicPartition

import adapter.pymqi as pymqi

C = pymqi.CMQC


def test_catch_up_on_lanes_assigned_at_their_end_is_immediate(qmgr) -> None:
    qmgr.define_queue("Q.CAUGHT")
    q = pymqi.Queue(qmgr, "Q.CAUGHT", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    for prio in (9, 5, 0):
        q.put(b"p%d" % prio, pymqi.MD(Priority=prio), pymqi.PMO(Options=C.MQPMO_NO_SYNCPOINT))
    got = [q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_NO_SYNCPOINT)) for _ in range(3)]
    assert got == [b"p9", b"p5", b"p0"]
    q.close()
    # A new handle: its reader is assigned at each lane's low mark, the lanes' ends.
    again = pymqi.Queue(qmgr, "Q.CAUGHT", C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT)
    reader = again.get_handle().getter.reader
    positions = reader.consumer.position([TopicPartition(t, p) for t, p in reader._parts])
    assert any(p.offset < 0 for p in positions)  # OFFSET_INVALID: nothing fetched there
    assert reader.catch_up(timeout=30.0) is True
    assert reader.clock.monotonic() - reader.caught_up_at < 1.0  # no timeout waited out
    again.put(b"late", pymqi.MD(Priority=5), pymqi.PMO(Options=C.MQPMO_NO_SYNCPOINT))
    assert again.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_NO_SYNCPOINT)) == b"late"
    again.close()
