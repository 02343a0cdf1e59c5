"""The queue manager's limits on the in-memory backends: MAXHANDS (2017 on MQOPEN and
MQPUT1), MAXUMSGS (2024 on syncpoint MQPUT / MQPUT1 / MQGET, the unit of work still
usable) and MAXMSGL (2031 beside the queue's 2030; DEFINE / ALTER QLOCAL MAXMSGL at most
the queue manager's)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import adapter.pymqi as pymqi
from adapter.core.qmgrrules import msg_length_error, syncpoint_error
from tests.integration.conftest import mqerror

C = pymqi.CMQC
OUT = C.MQOO_OUTPUT
IN = C.MQOO_INPUT_SHARED


def _fails(reason: int, call, *args, **kwargs) -> None:
    with pytest.raises(pymqi.MQMIError) as exc:
        call(*args, **kwargs)
    assert mqerror(exc) == (C.MQCC_FAILED, reason)


def _sync_put(q, body: bytes, **md) -> None:
    q.put(body, pymqi.MD(**md), pymqi.PMO(Options=C.MQPMO_SYNCPOINT))


def _sync_get(q, options: int = C.MQGMO_SYNCPOINT) -> bytes:
    return q.get(None, pymqi.MD(), pymqi.GMO(Options=options | C.MQGMO_NO_WAIT))


# -- MAXHANDS --------------------------------------------------------------------------
def test_maxhands_limits_the_handles_of_one_connection(world, qmgr, qmgr_name) -> None:
    for name in ("A", "B", "C"):
        qmgr.define_queue(name)
    qmgr.alter_qmgr(max_handles=2)
    a = pymqi.Queue(qmgr, "A", OUT)
    b = pymqi.Queue(qmgr, "B", OUT)
    _fails(C.MQRC_HANDLE_NOT_AVAILABLE, pymqi.Queue, qmgr, "C", OUT)
    # MQPUT1 needs a handle for the length of the call (IBM lists 2017 for it)
    _fails(C.MQRC_HANDLE_NOT_AVAILABLE, qmgr.put1, "C", b"x")
    # another connection has its own handles
    other = pymqi.connect(qmgr_name)
    try:
        pymqi.Queue(other, "C", OUT).put(b"from the other connection")
    finally:
        other.disconnect()
    a.close()
    c = pymqi.Queue(qmgr, "C", OUT)  # a closed handle no longer counts
    c.close()
    qmgr.put1("A", b"y")  # one handle free again for MQPUT1
    b.close()


def test_maxhands_zero_refuses_every_open_and_a_failed_open_takes_no_handle(qmgr) -> None:
    qmgr.define_queue("Q")
    qmgr.alter_qmgr(max_handles=1)
    q = pymqi.Queue(qmgr, "Q", OUT)
    _fails(C.MQRC_HANDLE_NOT_AVAILABLE, pymqi.Queue, qmgr, "Q", IN)
    q.close()
    qmgr.alter_qmgr(max_handles=0)
    _fails(C.MQRC_HANDLE_NOT_AVAILABLE, pymqi.Queue, qmgr, "Q", OUT)
    qmgr.alter_qmgr(max_handles=1)
    pymqi.Queue(qmgr, "Q", OUT).close()


# -- MAXUMSGS --------------------------------------------------------------------------
def test_maxumsgs_stops_the_put_that_would_exceed_it_and_the_uow_still_commits(qmgr) -> None:
    qmgr.define_queue("Q")
    qmgr.alter_qmgr(max_uncommitted_msgs=3)
    q = pymqi.Queue(qmgr, "Q", OUT | IN)
    for i in range(3):
        _sync_put(q, b"m%d" % i)
    _fails(C.MQRC_SYNCPOINT_LIMIT_REACHED, _sync_put, q, b"m3")
    _fails(
        C.MQRC_SYNCPOINT_LIMIT_REACHED,
        qmgr.put1,
        "Q",
        b"p1",
        pymqi.MD(),
        pymqi.PMO(Options=C.MQPMO_SYNCPOINT),
    )
    q.put(b"outside")  # outside syncpoint: not counted
    qmgr.commit()
    got = [q.get() for _ in range(4)]
    assert sorted(got) == [b"m0", b"m1", b"m2", b"outside"]
    for i in range(3):  # a new unit of work starts from zero
        _sync_put(q, b"n%d" % i)
    qmgr.backout()


def test_syncpoint_gets_count_and_the_refused_get_takes_nothing(qmgr) -> None:
    qmgr.define_queue("Q")
    q = pymqi.Queue(qmgr, "Q", OUT | IN)
    for i in range(3):
        q.put(b"m%d" % i)
    qmgr.alter_qmgr(max_uncommitted_msgs=2)
    assert _sync_get(q) == b"m0"
    _sync_put(q, b"new")  # puts and gets add up
    _fails(C.MQRC_SYNCPOINT_LIMIT_REACHED, _sync_get, q)
    assert q.get() == b"m1"  # the refused get left it; a get outside syncpoint is free
    qmgr.backout()
    assert q.get() == b"m0"  # backed out: back on the queue
    assert q.get() == b"m2"


def test_a_segmented_put_counts_one_and_if_persistent_counts_only_persistent(qmgr) -> None:
    qmgr.define_queue("Q", segment_size=16)
    q = pymqi.Queue(qmgr, "Q", OUT | IN)
    qmgr.alter_qmgr(max_uncommitted_msgs=2)
    # 64 bytes in 16-byte segments: four physical messages, one uncommitted message
    _sync_put(q, b"s" * 64, MsgFlags=C.MQMF_SEGMENTATION_ALLOWED)
    _sync_put(q, b"second")
    _fails(C.MQRC_SYNCPOINT_LIMIT_REACHED, _sync_put, q, b"third")
    qmgr.backout()
    q.put(b"np", pymqi.MD(Persistence=C.MQPER_NOT_PERSISTENT))
    q.put(b"p", pymqi.MD(Persistence=C.MQPER_PERSISTENT))
    _sync_put(q, b"one")
    _sync_put(q, b"two")  # the unit of work is full
    # SYNCPOINT_IF_PERSISTENT: a non-persistent message is got outside it, so it fits
    assert _sync_get(q, C.MQGMO_SYNCPOINT_IF_PERSISTENT) == b"np"
    _fails(C.MQRC_SYNCPOINT_LIMIT_REACHED, _sync_get, q, C.MQGMO_SYNCPOINT_IF_PERSISTENT)
    qmgr.commit()
    assert _sync_get(q, C.MQGMO_SYNCPOINT_IF_PERSISTENT) == b"p"
    qmgr.commit()


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    limit=st.integers(1, 4),
    ops=st.lists(st.sampled_from(["put", "get", "put_out", "commit", "backout"]), max_size=14),
)
def test_exactly_the_call_that_would_exceed_maxumsgs_gets_2024(world, qmgr_name, limit, ops):
    qm = pymqi.connect(qmgr_name + "P")
    try:
        qm.define_queue("Q", replace=True)
        qm.alter_qmgr(max_uncommitted_msgs=limit)
        q = pymqi.Queue(qm, "Q", OUT | IN)
        for _ in range(20):
            q.put(b"stock")
        count = 0
        for op in ops:
            if op in ("commit", "backout"):
                getattr(qm, op)()
                count = 0
                continue
            if op == "put_out":
                q.put(b"free")
                continue
            expected = syncpoint_error(count, limit)
            call = (lambda: _sync_put(q, b"x")) if op == "put" else (lambda: _sync_get(q))
            if expected is None:
                call()
                count += 1
            else:
                _fails(expected, call)
        qm.commit()  # the unit of work is usable whatever was refused
    finally:
        qm.disconnect()


# -- MAXMSGL ---------------------------------------------------------------------------
def test_the_queue_managers_maxmsgl_gives_2031_and_the_queues_2030_first(qmgr) -> None:
    qmgr.define_queue("BIG")  # MAXMSGL 4 MiB
    qmgr.define_queue("SMALL", max_msg_length=35_000)
    qmgr.alter_qmgr(max_msg_length=40_000)  # below BIG's: allowed, no queue is checked
    big = pymqi.Queue(qmgr, "BIG", OUT | IN)
    small = pymqi.Queue(qmgr, "SMALL", OUT)
    big.put(b"a" * 40_000)
    _fails(C.MQRC_MSG_TOO_BIG_FOR_Q_MGR, big.put, b"a" * 40_001)
    _fails(C.MQRC_MSG_TOO_BIG_FOR_Q_MGR, qmgr.put1, "BIG", b"a" * 50_000)
    _fails(C.MQRC_MSG_TOO_BIG_FOR_Q, small.put, b"a" * 36_000)  # too big for the queue
    _fails(C.MQRC_MSG_TOO_BIG_FOR_Q, small.put, b"a" * 50_000)  # for both: the queue's
    # segmentation allowed: segments fit the lesser limit, the logical message goes
    big.put(b"z" * 100_000, pymqi.MD(MsgFlags=C.MQMF_SEGMENTATION_ALLOWED))
    assert big.get() == b"a" * 40_000
    gmo = pymqi.GMO(Options=C.MQGMO_COMPLETE_MSG | C.MQGMO_NO_WAIT)
    assert big.get(200_000, pymqi.MD(), gmo) == b"z" * 100_000
    assert qmgr.inquire(C.MQIA_MAX_MSG_LENGTH) == 40_000


def test_define_and_alter_keep_a_queues_maxmsgl_within_the_queue_managers(qmgr) -> None:
    qmgr.alter_qmgr(max_msg_length=1_000_000)
    with pytest.raises(ValueError, match="MAXMSGL"):
        qmgr.define_queue("Q", max_msg_length=1_000_001)
    with pytest.raises(ValueError, match="MAXMSGL"):
        qmgr.define_queue("M", queue_type=C.MQQT_MODEL, max_msg_length=2_000_000)
    qmgr.define_queue("Q", max_msg_length=1_000_000)
    with pytest.raises(ValueError, match="MAXMSGL"):
        qmgr.alter_queue("Q", max_msg_length=1_000_001)
    qmgr.alter_queue("Q", max_msg_length=999)
    qmgr.alter_queue("Q", put_inhibited=True)  # other attributes: no MAXMSGL check


@given(length=st.integers(0, 200), queue_max=st.integers(0, 200), qmgr_max=st.integers(0, 200))
def test_msg_length_rule(length, queue_max, qmgr_max) -> None:
    reason = msg_length_error(length, queue_max, qmgr_max)
    if length <= min(queue_max, qmgr_max):
        assert reason is None
    elif length > queue_max:
        assert reason == C.MQRC_MSG_TOO_BIG_FOR_Q
    else:
        assert reason == C.MQRC_MSG_TOO_BIG_FOR_Q_MGR
