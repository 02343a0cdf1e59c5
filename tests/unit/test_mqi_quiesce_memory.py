"""endmqm / strmqm on the in-memory backends: while quiescing only calls with
*_FAIL_IF_QUIESCING fail (2161), a waiting MQGET with it is ended, new MQCONNs are
refused; ending immediately every call fails with 2162 and units of work are backed
out; strmqm makes the queue manager run again. Every connection sees the state at once."""

from __future__ import annotations

import pytest

import adapter.pymqi as pymqi
from adapter import cli
from adapter.shim.memory_store import MemoryStore
from tests.integration.conftest import mqerror

C = pymqi.CMQC
OUT, IN = C.MQOO_OUTPUT, C.MQOO_INPUT_SHARED
FIQ_PUT = pymqi.PMO(Options=C.MQPMO_FAIL_IF_QUIESCING)


@pytest.fixture
def control(world, monkeypatch, qmgr_name, capsys):
    """`mqk endmqm` / `mqk strmqm` on the world's fake Redis; returns what they print."""
    monkeypatch.setattr(
        cli, "_control_store", lambda qm: MemoryStore(qm, world.clock.now_ms, world.server)
    )

    def run(*argv: str) -> str:
        assert cli.main([*argv, qmgr_name]) == 0
        return capsys.readouterr().out

    return run


def _fails(reason: int, call, *args, **kwargs) -> None:
    with pytest.raises(pymqi.MQMIError) as exc:
        call(*args, **kwargs)
    assert mqerror(exc) == (C.MQCC_FAILED, reason)


def _gmo(options: int, wait_ms: int = 0) -> pymqi.GMO:
    return pymqi.GMO(Options=options, WaitInterval=wait_ms)


def test_quiescing_fails_only_the_calls_that_ask(control, qmgr, qmgr_name) -> None:
    qmgr.define_queue("Q")
    q = pymqi.Queue(qmgr, "Q", OUT | IN)
    q.put(b"before")
    out = control("endmqm", "-c")
    assert "Quiesce request accepted" in out
    _fails(C.MQRC_Q_MGR_QUIESCING, q.put, b"x", pymqi.MD(), FIQ_PUT)
    _fails(C.MQRC_Q_MGR_QUIESCING, qmgr.put1, "Q", b"x", pymqi.MD(), FIQ_PUT)
    _fails(C.MQRC_Q_MGR_QUIESCING, q.get, None, pymqi.MD(), _gmo(C.MQGMO_FAIL_IF_QUIESCING))
    _fails(C.MQRC_Q_MGR_QUIESCING, pymqi.Queue, qmgr, "Q", OUT | C.MQOO_FAIL_IF_QUIESCING)
    # without the options the application finishes its work, units of work included
    q.put(b"during", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
    qmgr.commit()
    assert q.get() == b"before"
    # pymqi's get_no_jms asks for MQGMO_FAIL_IF_QUIESCING
    _fails(C.MQRC_Q_MGR_QUIESCING, q.get_no_jms)
    pymqi.Queue(qmgr, "Q", C.MQOO_INQUIRE).inquire(C.MQIA_MAX_Q_DEPTH)
    # no new connection while quiescing
    _fails(C.MQRC_Q_MGR_QUIESCING, pymqi.connect, qmgr_name)
    assert "started" in control("strmqm")
    q.put(b"after", pymqi.MD(), FIQ_PUT)
    pymqi.connect(qmgr_name).disconnect()
    assert q.get() == b"during"
    assert q.get() == b"after"


def test_a_waiting_get_with_fail_if_quiescing_ends_promptly(control, world, qmgr) -> None:
    qmgr.define_queue("Q")
    q = pymqi.Queue(qmgr, "Q", IN)
    start = world.clock.monotonic()
    waits = []

    def quiesce_while_waiting(original):
        def pump(timeout):
            waits.append(timeout)
            if len(waits) == 3:  # the getter is waiting now: endmqm -c from elsewhere
                control("endmqm")
            return original(timeout)

        return pump

    reader = q.get_handle().getter.reader
    reader.pump = quiesce_while_waiting(reader.pump)
    wait = _gmo(C.MQGMO_WAIT | C.MQGMO_FAIL_IF_QUIESCING, 60_000)
    _fails(C.MQRC_Q_MGR_QUIESCING, q.get, None, pymqi.MD(), wait)
    assert world.clock.monotonic() - start < 1.0  # at its next 50 ms fetch, not at 60 s
    # without FAIL_IF_QUIESCING the get waits its whole interval
    _fails(C.MQRC_NO_MSG_AVAILABLE, q.get, None, pymqi.MD(), _gmo(C.MQGMO_WAIT, 2_000))


def test_ending_immediately_fails_every_call_and_backs_the_work_out(
    control, world, qmgr, qmgr_name
) -> None:
    qmgr.define_queue("Q")
    q = pymqi.Queue(qmgr, "Q", OUT | IN | C.MQOO_INQUIRE)
    q.put(b"committed")
    assert q.get(None, pymqi.MD(), _gmo(C.MQGMO_SYNCPOINT)) == b"committed"
    q.put(b"uncommitted", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
    other = pymqi.connect(qmgr_name)
    other_q = pymqi.Queue(other, "Q", OUT)
    try:
        out = control("endmqm", "-i")
        assert "ended" in out
        stopping = C.MQRC_Q_MGR_STOPPING
        _fails(stopping, q.put, b"x")  # the first call backs the unit of work out
        _fails(stopping, q.get, None, pymqi.MD(), _gmo(C.MQGMO_WAIT, 10_000))
        _fails(stopping, q.inquire, C.MQIA_MAX_Q_DEPTH)
        _fails(stopping, qmgr.inquire, C.MQIA_MAX_HANDLES)
        _fails(stopping, pymqi.Queue, qmgr, "Q", OUT)
        _fails(stopping, qmgr.put1, "Q", b"x")
        _fails(stopping, qmgr.commit)
        _fails(stopping, qmgr.begin)
        _fails(stopping, q.close)
        _fails(stopping, other_q.put, b"y")  # every connection of the queue manager
        _fails(stopping, pymqi.connect, qmgr_name)
        control("endmqm", "-c")  # a quiesce does not soften an immediate end
        _fails(stopping, pymqi.connect, qmgr_name)
    finally:
        other.disconnect()  # MQDISC still tidies up
    qmgr.disconnect()
    control("strmqm")
    again = pymqi.connect(qmgr_name)
    try:
        q2 = pymqi.Queue(again, "Q", IN)
        md = pymqi.MD()
        assert q2.get(None, md) == b"committed"  # the syncpoint get was backed out
        assert md.BackoutCount == 1
        _fails(C.MQRC_NO_MSG_AVAILABLE, q2.get)  # and the syncpoint put forgotten
    finally:
        again.disconnect()


def test_another_connection_sees_the_state_at_its_next_call(control, qmgr, qmgr_name) -> None:
    qmgr.define_queue("Q")
    other = pymqi.connect(qmgr_name)
    try:
        q = pymqi.Queue(other, "Q", OUT)
        q.put(b"x", pymqi.MD(), FIQ_PUT)
        control("endmqm")
        _fails(C.MQRC_Q_MGR_QUIESCING, q.put, b"y", pymqi.MD(), FIQ_PUT)
        control("strmqm")
        q.put(b"z", pymqi.MD(), FIQ_PUT)
    finally:
        other.disconnect()
