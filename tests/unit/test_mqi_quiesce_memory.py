"""endmqm / strmqm on the in-memory backends: while quiescing only calls with
*_FAIL_IF_QUIESCING fail (2161), a waiting MQGET with it is ended, new MQCONNs are
refused; ending immediately every call fails with 2162 and units of work are backed
out; strmqm makes the queue manager run again. Every connection sees the state at once."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import adapter.pymqi as pymqi
from adapter import cli
from adapter.core.qmgrrules import RunState, call_error, connect_error
from adapter.shim.memory_store import MemoryStore
from adapter.shim.runstate import end_queue_manager, start_queue_manager
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


_STEPS = st.sampled_from(["quiesce", "end", "start", "put", "put_fiq", "get", "get_fiq", "conn"])


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=st.lists(_STEPS, max_size=12))
def test_every_call_gets_what_the_run_state_allows(world, qmgr_name, steps) -> None:
    store = MemoryStore(qmgr_name, world.clock.now_ms, world.server)
    start_queue_manager(store)
    qm = pymqi.connect(qmgr_name)
    qm.define_queue("Q", replace=True)
    q = pymqi.Queue(qm, "Q", OUT | IN)
    state = RunState.RUNNING
    try:
        for step in steps:
            if step in ("quiesce", "end", "start"):
                if step == "start":
                    start_queue_manager(store)
                else:
                    end_queue_manager(store, immediate=step == "end")
                state = RunState.of(store.run_state())
                continue
            fiq = step.endswith("_fiq")
            if step == "conn":
                expected = connect_error(state)
                call = lambda: pymqi.connect(qmgr_name).disconnect()  # noqa: E731
            elif step.startswith("put"):
                expected = call_error(state, fiq)
                pmo = pymqi.PMO(Options=C.MQPMO_FAIL_IF_QUIESCING if fiq else 0)
                call = lambda pmo=pmo: q.put(b"m", pymqi.MD(), pmo)  # noqa: E731
            else:
                expected = call_error(state, fiq)
                gmo = _gmo(C.MQGMO_FAIL_IF_QUIESCING if fiq else 0)
                call = lambda gmo=gmo: q.get(None, pymqi.MD(), gmo)  # noqa: E731
            try:
                call()
                answer = None
            except pymqi.MQMIError as err:
                answer = err.reason
            if answer == C.MQRC_NO_MSG_AVAILABLE:  # a get on an empty queue: it ran
                answer = None
            assert answer == expected, (step, state)
    finally:
        start_queue_manager(store)
        qm.disconnect()
