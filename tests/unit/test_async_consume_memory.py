"""Asynchronous consume (adapter/pymqi/asyncconsume.py, adapter/core/asyncrules.py):
MQCB's and MQCTL's reason codes, delivery on the connection's thread (MQOP_START) and on
the caller's (MQOP_START_WAIT), STOP / SUSPEND / RESUME, callbacks making MQI calls
(MQCTL STOP, MQCMIT, MQPUT), the control calls, and the events a consumer and the event
handler are told of. The callbacks receive ibmmq 2.x's keyword arguments."""

from __future__ import annotations

import threading
import time

import pytest

import adapter.ibmmq as mq
import adapter.pymqi as pymqi
from adapter.shim.memory_log import MemoryLog
from adapter.shim.memory_store import MemoryStore
from adapter.shim.runstate import end_queue_manager, start_queue_manager

C = mq.CMQC
QM = "QM1"


def _connect(world, face=mq):
    if face is pymqi:  # the world fixture's own connect (MQCONN: a nonshared handle)
        return pymqi.connect(QM)
    return face.connect(
        QM,
        log_backend=MemoryLog(world.clock, world.cluster),
        store=MemoryStore(QM, world.clock.now_ms, world.server),
        clock=world.clock,
    )


def _until(predicate, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def _reason(fn, *args, **kwargs) -> int:
    with pytest.raises(mq.MQMIError) as err:
        fn(*args, **kwargs)
    return err.value.reason


class Recorder:
    """A callback that records (CallType, CompCode, Reason, msg) and the kwargs."""

    def __init__(self, then=None) -> None:
        self.calls: list[tuple[int, int, int, bytes | None]] = []
        self.kwargs: list[dict] = []
        self.threads: set[int] = set()
        self.then = then

    def __call__(self, **kw) -> None:
        cbc = kw["cbc"]
        self.calls.append((cbc.CallType, cbc.CompCode, cbc.Reason, kw["msg"]))
        self.kwargs.append(kw)
        self.threads.add(threading.get_ident())
        if self.then is not None:
            self.then(**kw)

    def messages(self) -> list[bytes]:
        return [c[3] for c in self.calls if c[0] == C.MQCBCT_MSG_REMOVED]

    def of(self, call_type: int) -> list[tuple]:
        return [c for c in self.calls if c[0] == call_type]


def _cbd(function, options: int = C.MQCBDO_NONE, **kw) -> mq.CBD:
    cbd = mq.CBD(**kw)
    cbd.CallbackFunction = function
    cbd.Options = options
    return cbd


@pytest.fixture
def qm(world):
    qm = _connect(world)
    qm.define_queue("Q.A")
    qm.define_queue("Q.B")
    yield qm
    if qm._conn is not None:
        qm.disconnect()
    assert not [t for t in threading.enumerate() if t.name.startswith("mqk-async")]


def _queue(qm, name: str = "Q.A", options: int = C.MQOO_INPUT_AS_Q_DEF | C.MQOO_OUTPUT):
    return mq.Queue(qm, name, options)


# -- MQCB and MQCTL parameter checks ------------------------------------------------------
def test_mqcb_registration_errors_have_mqs_reason_codes(qm) -> None:
    q = _queue(qm)
    rec = Recorder()
    assert _reason(q.cb, operation=C.MQOP_START, cbd=_cbd(rec)) == C.MQRC_OPERATION_ERROR
    bad = _cbd(rec)
    bad._StrucId = b"XXXX"
    assert _reason(q.cb, cbd=bad) == C.MQRC_CBD_ERROR
    assert _reason(q.cb, cbd=_cbd(rec, Version=2)) == C.MQRC_CBD_ERROR
    assert _reason(q.cb, cbd=_cbd(rec, CallbackType=3)) == C.MQRC_CALLBACK_TYPE_ERROR
    assert _reason(q.cb, cbd=_cbd(rec, options=0x2)) == C.MQRC_CBD_OPTIONS_ERROR
    assert _reason(q.cb, cbd=_cbd(None)) == C.MQRC_CALLBACK_ROUTINE_ERROR
    assert _reason(q.cb, cbd=_cbd(rec, CallbackName=b"f")) == C.MQRC_CALLBACK_ROUTINE_ERROR
    assert _reason(q.cb, cbd=_cbd(rec, MaxMsgLength=-2)) == C.MQRC_MAX_MSG_LENGTH_ERROR
    signal = mq.GMO(Options=C.MQGMO_SET_SIGNAL)
    assert _reason(q.cb, cbd=_cbd(rec), gmo=signal) == C.MQRC_OPTIONS_ERROR
    wait = mq.GMO(Options=C.MQGMO_WAIT, WaitInterval=-5)
    assert _reason(q.cb, cbd=_cbd(rec), gmo=wait) == C.MQRC_WAIT_INTERVAL_ERROR
    bad_md = mq.MD()
    bad_md._StrucId = b"XXXX"
    assert _reason(q.cb, cbd=_cbd(rec), md=bad_md) == C.MQRC_MD_ERROR
    # a consumer needs a queue handle; DEREGISTER / SUSPEND need a registration
    assert _reason(qm.cb, cbd=_cbd(rec)) == C.MQRC_HOBJ_ERROR
    for op in (C.MQOP_DEREGISTER, C.MQOP_SUSPEND, C.MQOP_RESUME):
        assert _reason(q.cb, operation=op) == C.MQRC_CALLBACK_NOT_REGISTERED
    assert _reason(qm.cb, operation=C.MQOP_DEREGISTER) == C.MQRC_CALLBACK_NOT_REGISTERED
    with pytest.raises(TypeError):
        q.cb(cbd=mq.CTLO())
    assert rec.calls == []


def test_mqcb_checks_the_queue_is_open_for_the_get_it_asks_for(qm) -> None:
    rec = Recorder()
    out = _queue(qm, options=C.MQOO_OUTPUT)
    assert _reason(out.cb, cbd=_cbd(rec)) == C.MQRC_NOT_OPEN_FOR_INPUT
    browse = mq.GMO(Options=C.MQGMO_BROWSE_NEXT)
    assert _reason(out.cb, cbd=_cbd(rec), gmo=browse) == C.MQRC_NOT_OPEN_FOR_BROWSE
    closed = _queue(qm)
    closed.close()
    assert _reason(closed.cb, cbd=_cbd(rec)) == C.MQRC_HOBJ_ERROR
    deferred = mq.Queue(qm, "Q.B")  # opened now, for input, as MQGET's deferred open
    deferred.cb(cbd=_cbd(rec))
    assert deferred.get_handle().options & C.MQOO_INPUT_AS_Q_DEF


def test_mqctl_errors_have_mqs_reason_codes(qm) -> None:
    with pytest.raises(TypeError):
        qm.ctl(C.MQOP_START, mq.CBD())
    bad = mq.CTLO()
    bad._StrucId = b"XXXX"
    assert _reason(qm.ctl, C.MQOP_START, bad) == C.MQRC_CTLO_ERROR
    assert _reason(qm.ctl, C.MQOP_START, mq.CTLO(Options=0x4)) == C.MQRC_OPTIONS_ERROR
    assert _reason(qm.ctl, C.MQOP_REGISTER, mq.CTLO()) == C.MQRC_OPERATION_ERROR
    assert _reason(qm.ctl, C.MQOP_RESUME, mq.CTLO()) == C.MQRC_OPERATION_NOT_ALLOWED
    assert _reason(qm.ctl, C.MQOP_SUSPEND, mq.CTLO()) == C.MQRC_OPERATION_NOT_ALLOWED
    assert _reason(qm.ctl, C.MQOP_START_WAIT, mq.CTLO()) == C.MQRC_NO_CALLBACKS_ACTIVE
    qm.ctl(C.MQOP_STOP, mq.CTLO())  # stopping a stopped connection: nothing to do
    # A unit of work in progress: MQOP_START would hand it to another thread (2529).
    q = _queue(qm)
    q.cb(cbd=_cbd(Recorder()))
    q.put(b"x", mq.MD(), mq.PMO(Options=C.MQPMO_SYNCPOINT))
    assert _reason(qm.ctl, C.MQOP_START, mq.CTLO()) == C.MQRC_ASYNC_UOW_CONFLICT
    qm.backout()
    qm.disconnect()
    assert _reason(qm.ctl, C.MQOP_START, mq.CTLO()) == C.MQRC_HCONN_ERROR
    assert _reason(q.cb, cbd=_cbd(Recorder())) == C.MQRC_HCONN_ERROR


# -- MQOP_START ------------------------------------------------------------------------
def test_start_delivers_in_order_on_its_own_thread_in_ibmmqs_shape(qm) -> None:
    q = _queue(qm)
    for i in range(20):
        q.put(b"msg-%02d" % i, mq.MD(CorrelId=b"C" * 24))
    rec = Recorder()
    cbd = _cbd(rec, C.MQCBDO_START_CALL | C.MQCBDO_STOP_CALL)
    cbd.CallbackArea = {"mine": 1}
    q.cb(operation=C.MQOP_REGISTER, cbd=cbd, md=mq.MD(), gmo=mq.GMO())
    ctlo = mq.CTLO()
    ctlo.ConnectionArea = "conn-area"
    qm.ctl(C.MQOP_START, ctlo)
    _until(lambda: len(rec.messages()) == 20)
    assert rec.messages() == [b"msg-%02d" % i for i in range(20)]
    assert threading.get_ident() not in rec.threads and len(rec.threads) == 1
    first = rec.kwargs[1]
    assert set(first) == {"queue_manager", "queue", "md", "gmo", "msg", "cbc"}
    assert first["queue_manager"] is qm and first["queue"] is q
    assert first["md"].CorrelId == b"C" * 24
    cbc = first["cbc"]
    assert (cbc.DataLength, cbc.BufferLength, cbc.Hobj) == (6, 6, q.get_handle().hobj)
    assert cbc.CallbackArea == {"mine": 1} and cbc.ConnectionArea == "conn-area"
    assert cbc.CallbackFunction is rec
    # The connection belongs to the consumer thread: the application's calls get 2500.
    assert _reason(q.put, b"late") == C.MQRC_HCONN_ASYNC_ACTIVE
    assert _reason(qm.commit) == C.MQRC_HCONN_ASYNC_ACTIVE
    assert _reason(q.cb, operation=C.MQOP_SUSPEND) == C.MQRC_HCONN_ASYNC_ACTIVE
    assert _reason(qm.ctl, C.MQOP_START_WAIT, mq.CTLO()) == C.MQRC_HCONN_ASYNC_ACTIVE
    qm.ctl(C.MQOP_STOP, mq.CTLO())
    assert rec.calls[0][:3] == (C.MQCBCT_START_CALL, C.MQCC_OK, C.MQRC_NONE)
    assert rec.calls[-1][:3] == (C.MQCBCT_STOP_CALL, C.MQCC_OK, C.MQRC_NONE)
    q.put(b"after")  # stopped: the application's again
    assert q.get() == b"after"


def test_a_message_put_while_started_is_delivered_and_stop_is_prompt(qm, world) -> None:
    q = _queue(qm)
    rec = Recorder()
    q.cb(cbd=_cbd(rec))
    qm.ctl(C.MQOP_START, mq.CTLO())
    other = _connect(world)
    _until(lambda: world.clock.monotonic() > 1.0)  # the consumer is waiting in its get
    mq.Queue(other, "Q.A", C.MQOO_OUTPUT).put(b"late")
    _until(lambda: rec.messages() == [b"late"])
    began = time.monotonic()
    qm.ctl(C.MQOP_STOP, mq.CTLO())
    assert time.monotonic() - began < 2
    other.disconnect()


def test_callbacks_make_mqi_calls_on_a_nonshared_connection(world) -> None:
    """pymqi's MQCONN: a nonshared handle, yet the consumer thread may use it."""
    qm = _connect(world, face=pymqi)
    qm.define_queue("Q.IN")
    qm.define_queue("Q.OUT")
    q = pymqi.Queue(qm, "Q.IN", C.MQOO_INPUT_AS_Q_DEF | C.MQOO_OUTPUT)
    out = pymqi.Queue(qm, "Q.OUT", C.MQOO_OUTPUT)
    for i in range(3):
        q.put(b"%d" % i)

    def forward(**kw) -> None:
        if kw["cbc"].CallType == C.MQCBCT_MSG_REMOVED:
            out.put(b"re:" + kw["msg"])

    rec = Recorder(then=forward)
    q.cb(cbd=_cbd(rec))
    qm.ctl(C.MQOP_START, pymqi.CTLO())
    _until(lambda: len(rec.messages()) == 3)
    qm.ctl(C.MQOP_STOP, pymqi.CTLO())
    back = pymqi.Queue(qm, "Q.OUT")
    assert [back.get() for _ in range(3)] == [b"re:0", b"re:1", b"re:2"]
    qm.disconnect()


# -- MQOP_START_WAIT -------------------------------------------------------------------
def test_start_wait_returns_when_the_callback_stops_the_connection(qm) -> None:
    q = _queue(qm)
    for i in range(5):
        q.put(b"%d" % i)

    nested: list[int] = []

    def stop_at_three(**kw) -> None:
        if kw["msg"] == b"2":
            kw["queue_manager"].ctl(C.MQOP_STOP, mq.CTLO())
        if kw["cbc"].CallType == C.MQCBCT_MSG_REMOVED:  # START_WAIT from a callback: 2012
            nested.append(_reason(kw["queue_manager"].ctl, C.MQOP_START_WAIT, mq.CTLO()))

    rec = Recorder(then=stop_at_three)
    q.cb(cbd=_cbd(rec, C.MQCBDO_STOP_CALL))
    qm.ctl(C.MQOP_START_WAIT, mq.CTLO())  # returns once stopped
    assert rec.messages() == [b"0", b"1", b"2"]
    assert nested == [C.MQRC_ENVIRONMENT_ERROR] * 3
    assert rec.threads == {threading.get_ident()}
    assert rec.calls[-1][0] == C.MQCBCT_STOP_CALL
    assert [q.get(), q.get()] == [b"3", b"4"]


def test_start_wait_ends_with_2446_when_its_consumers_are_deregistered(qm) -> None:
    q = _queue(qm)
    q.put(b"only")

    def leave(**kw) -> None:
        if kw["cbc"].CallType == C.MQCBCT_MSG_REMOVED:
            kw["queue"].cb(operation=C.MQOP_DEREGISTER)

    rec = Recorder(then=leave)
    q.cb(cbd=_cbd(rec, C.MQCBDO_DEREGISTER_CALL))
    assert _reason(qm.ctl, C.MQOP_START_WAIT, mq.CTLO()) == C.MQRC_NO_CALLBACKS_ACTIVE
    # the DEREGISTER call came after the consumer returned, not inside it
    assert [c[0] for c in rec.calls] == [C.MQCBCT_MSG_REMOVED, C.MQCBCT_DEREGISTER_CALL]


def test_suspending_a_start_wait_returns_2521_and_resume_blocks_again(qm, world) -> None:
    q = _queue(qm)
    q.put(b"a")
    q.put(b"b")
    state: dict = {}

    def steer(**kw) -> None:
        if kw["msg"] == b"a":
            kw["queue_manager"].ctl(C.MQOP_SUSPEND, mq.CTLO())
        if kw["msg"] == b"b":
            kw["queue_manager"].ctl(C.MQOP_STOP, mq.CTLO())

    rec = Recorder(then=steer)
    q.cb(cbd=_cbd(rec))
    with pytest.raises(mq.MQMIError) as err:
        qm.ctl(C.MQOP_START_WAIT, mq.CTLO())
    assert (err.value.comp, err.value.reason) == (C.MQCC_WARNING, C.MQRC_CONNECTION_SUSPENDED)
    assert rec.messages() == [b"a"]
    state["suspended"] = qm.queue_status("Q.A")  # suspended: the application may call
    assert _reason(qm.ctl, C.MQOP_START, mq.CTLO()) == C.MQRC_OPERATION_NOT_ALLOWED
    qm.ctl(C.MQOP_RESUME, mq.CTLO())  # blocks, delivering, until the STOP
    assert rec.messages() == [b"a", b"b"]


# -- SUSPEND / RESUME ------------------------------------------------------------------
def test_suspend_and_resume_the_connection_from_the_application(qm, world) -> None:
    q = _queue(qm)
    rec = Recorder()
    q.cb(cbd=_cbd(rec))
    qm.ctl(C.MQOP_START, mq.CTLO())
    qm.ctl(C.MQOP_SUSPEND, mq.CTLO())
    q.put(b"while-suspended")  # the connection is the application's again
    time.sleep(0.3)
    assert rec.messages() == []
    qm.ctl(C.MQOP_RESUME, mq.CTLO())
    _until(lambda: rec.messages() == [b"while-suspended"])
    qm.ctl(C.MQOP_STOP, mq.CTLO())


def test_suspend_and_resume_one_consumer(qm, world) -> None:
    qa, qb = _queue(qm, "Q.A"), _queue(qm, "Q.B")
    qa.put(b"a1")
    qb.put(b"b1")
    ra, rb = Recorder(), Recorder()
    qa.cb(cbd=_cbd(ra))
    qb.cb(operation=C.MQOP_REGISTER | C.MQOP_SUSPEND, cbd=_cbd(rb))
    qm.ctl(C.MQOP_START, mq.CTLO())
    _until(lambda: ra.messages() == [b"a1"])
    time.sleep(0.2)
    assert rb.calls == []
    qm.ctl(C.MQOP_SUSPEND, mq.CTLO())
    qb.cb(operation=C.MQOP_RESUME)
    qa.cb(operation=C.MQOP_SUSPEND)
    qa.put(b"a2")
    qm.ctl(C.MQOP_RESUME, mq.CTLO())
    _until(lambda: rb.messages() == [b"b1"])
    time.sleep(0.2)
    assert ra.messages() == [b"a1"]
    qm.ctl(C.MQOP_STOP, mq.CTLO())


# -- control calls, close, disconnect -----------------------------------------------------
def test_register_deregister_and_close_calls(qm) -> None:
    q = _queue(qm)
    rec = Recorder()
    options = C.MQCBDO_REGISTER_CALL | C.MQCBDO_DEREGISTER_CALL
    q.cb(cbd=_cbd(rec, options))
    assert rec.calls == [(C.MQCBCT_REGISTER_CALL, C.MQCC_OK, C.MQRC_NONE, None)]
    q.cb(cbd=_cbd(rec, options))  # a replacement: no second REGISTER call
    assert len(rec.calls) == 1
    q.cb(operation=C.MQOP_DEREGISTER)
    assert rec.calls[-1][0] == C.MQCBCT_DEREGISTER_CALL
    assert rec.kwargs[-1]["cbc"].Hobj == q.get_handle().hobj
    q.cb(cbd=_cbd(rec, options))
    q.close()  # an implicit deregistration: the handle is no longer usable
    assert rec.calls[-1][0] == C.MQCBCT_DEREGISTER_CALL
    assert rec.kwargs[-1]["cbc"].Hobj == C.MQHO_UNUSABLE_HOBJ


def test_disconnect_from_the_application_stops_delivery_first(world) -> None:
    qm = _connect(world)
    qm.define_queue("Q.D")
    q = mq.Queue(qm, "Q.D", C.MQOO_INPUT_AS_Q_DEF)
    rec, events = Recorder(), Recorder()
    q.cb(cbd=_cbd(rec, C.MQCBDO_STOP_CALL | C.MQCBDO_DEREGISTER_CALL))
    qm.cb(cbd=_cbd(events, CallbackType=C.MQCBT_EVENT_HANDLER))
    qm.ctl(C.MQOP_START, mq.CTLO())
    qm.disconnect()
    assert [c[0] for c in rec.calls] == [C.MQCBCT_STOP_CALL, C.MQCBCT_DEREGISTER_CALL]
    assert rec.kwargs[-1]["cbc"].Hobj == C.MQHO_UNUSABLE_HOBJ
    assert not [t for t in threading.enumerate() if t.name.startswith("mqk-async")]


def test_a_consumer_stopping_the_connection_in_its_start_call_fails_mqctl(qm) -> None:
    q = _queue(qm)

    def stop(**kw) -> None:
        kw["queue_manager"].ctl(C.MQOP_STOP, mq.CTLO())

    q.cb(cbd=_cbd(Recorder(then=stop), C.MQCBDO_START_CALL))
    assert _reason(qm.ctl, C.MQOP_START, mq.CTLO()) == C.MQRC_CONNECTION_STOPPED
    q.put(b"stopped")  # the connection is stopped: the application's


# -- syncpoint -------------------------------------------------------------------------
def test_syncpoint_gets_are_committed_or_backed_out_by_the_callback(qm) -> None:
    q = _queue(qm)
    for body in (b"keep", b"retry", b"last"):
        q.put(body)
    seen: list[tuple[bytes, int]] = []

    def work(**kw) -> None:
        if kw["cbc"].CallType != C.MQCBCT_MSG_REMOVED:
            return
        seen.append((kw["msg"], kw["md"].BackoutCount))
        qmgr = kw["queue_manager"]
        if kw["msg"] == b"retry" and kw["md"].BackoutCount == 0:
            qmgr.backout()
        else:
            qmgr.commit()

    gmo = mq.GMO(Options=C.MQGMO_SYNCPOINT)
    q.cb(cbd=_cbd(Recorder(then=work)), gmo=gmo)
    qm.ctl(C.MQOP_START, mq.CTLO())
    _until(lambda: len(seen) == 4)
    qm.ctl(C.MQOP_STOP, mq.CTLO())
    assert seen[0] == (b"keep", 0) and (b"retry", 0) in seen and (b"retry", 1) in seen
    assert qm.queue_status("Q.A")["current_depth"] == 0


def test_an_uncommitted_get_is_backed_out_by_disconnect(qm, world) -> None:
    q = _queue(qm)
    q.put(b"held")
    rec = Recorder()
    q.cb(cbd=_cbd(rec), gmo=mq.GMO(Options=C.MQGMO_SYNCPOINT))
    qm.ctl(C.MQOP_START, mq.CTLO())
    _until(lambda: rec.messages() == [b"held"])
    qm.ctl(C.MQOP_STOP, mq.CTLO())
    qm.backout()
    assert q.get() == b"held"


# -- what a consumer is told -----------------------------------------------------------
def test_wait_interval_without_a_message_is_an_event_call_with_2033(qm) -> None:
    q = _queue(qm)
    rec = Recorder()
    gmo = mq.GMO(Options=C.MQGMO_WAIT, WaitInterval=500)
    q.cb(cbd=_cbd(rec), gmo=gmo)
    qm.ctl(C.MQOP_START, mq.CTLO())
    _until(lambda: rec.of(C.MQCBCT_EVENT_CALL))
    qm.ctl(C.MQOP_STOP, mq.CTLO())
    assert rec.of(C.MQCBCT_EVENT_CALL)[0] == (
        C.MQCBCT_EVENT_CALL,
        C.MQCC_FAILED,
        C.MQRC_NO_MSG_AVAILABLE,
        None,
    )


def test_get_inhibited_suspends_the_consumer_until_get_enabled(qm, world) -> None:
    q = _queue(qm)
    rec, events = Recorder(), Recorder()
    q.cb(cbd=_cbd(rec))
    qm.cb(cbd=_cbd(events, CallbackType=C.MQCBT_EVENT_HANDLER))
    admin = _connect(world)
    qm.ctl(C.MQOP_START, mq.CTLO())
    admin.alter_queue("Q.A", get_inhibited=True)
    _until(lambda: rec.of(C.MQCBCT_EVENT_CALL))
    assert rec.calls[0][:3] == (C.MQCBCT_EVENT_CALL, C.MQCC_FAILED, C.MQRC_GET_INHIBITED)
    assert rec.kwargs[0]["cbc"].State == C.MQCS_SUSPENDED_TEMPORARY
    mq.Queue(admin, "Q.A", C.MQOO_OUTPUT).put(b"after")
    time.sleep(0.3)
    assert rec.messages() == []
    admin.alter_queue("Q.A", get_inhibited=False)
    _until(lambda: rec.messages() == [b"after"])
    qm.ctl(C.MQOP_STOP, mq.CTLO())
    assert rec.calls[1][:3] == (C.MQCBCT_EVENT_CALL, C.MQCC_WARNING, C.MQRC_GET_ENABLED)
    assert events.calls == []  # a condition of one consumer: not the event handler's
    admin.disconnect()


def test_truncation_follows_max_msg_length(qm) -> None:
    q = _queue(qm)
    q.put(b"0123456789")
    rec = Recorder()
    q.cb(cbd=_cbd(rec, MaxMsgLength=4))
    qm.ctl(C.MQOP_START, mq.CTLO())
    _until(lambda: rec.calls)
    qm.ctl(C.MQOP_STOP, mq.CTLO())
    kind, comp, reason, msg = rec.calls[0]
    assert (kind, comp, reason) == (
        C.MQCBCT_MSG_NOT_REMOVED,
        C.MQCC_WARNING,
        C.MQRC_TRUNCATED_MSG_FAILED,
    )
    assert rec.kwargs[0]["cbc"].DataLength == 10
    assert q.get(100) == b"0123456789"  # it stayed on the queue
    q.put(b"abcdefgh")
    accept = Recorder()
    q.cb(cbd=_cbd(accept, MaxMsgLength=4), gmo=mq.GMO(Options=C.MQGMO_ACCEPT_TRUNCATED_MSG))
    qm.ctl(C.MQOP_START, mq.CTLO())
    _until(lambda: accept.calls)
    qm.ctl(C.MQOP_STOP, mq.CTLO())
    assert accept.calls == [
        (C.MQCBCT_MSG_REMOVED, C.MQCC_WARNING, C.MQRC_TRUNCATED_MSG_ACCEPTED, b"abcd")
    ]
    last = accept.calls[-1]
    assert last[:3] == (C.MQCBCT_MSG_REMOVED, C.MQCC_WARNING, C.MQRC_TRUNCATED_MSG_ACCEPTED)
    assert (accept.kwargs[-1]["cbc"].DataLength, accept.kwargs[-1]["cbc"].BufferLength) == (8, 4)


def test_a_browsing_consumer_leaves_the_messages(qm) -> None:
    q = _queue(qm, options=C.MQOO_BROWSE | C.MQOO_INPUT_AS_Q_DEF | C.MQOO_OUTPUT)
    q.put(b"one")
    q.put(b"two")
    rec = Recorder()
    q.cb(cbd=_cbd(rec), gmo=mq.GMO(Options=C.MQGMO_BROWSE_NEXT))
    qm.ctl(C.MQOP_START, mq.CTLO())
    _until(lambda: len(rec.of(C.MQCBCT_MSG_NOT_REMOVED)) == 2)
    qm.ctl(C.MQOP_STOP, mq.CTLO())
    assert [c[3] for c in rec.of(C.MQCBCT_MSG_NOT_REMOVED)] == [b"one", b"two"]
    assert q.get() == b"one"


# -- the event handler -----------------------------------------------------------------
def test_quiesce_and_immediate_end_reach_the_event_handler(qm) -> None:
    q = _queue(qm)
    rec, events = Recorder(), Recorder()
    q.cb(cbd=_cbd(rec, C.MQCBDO_STOP_CALL))
    qm.cb(cbd=_cbd(events, CallbackType=C.MQCBT_EVENT_HANDLER))
    qm.ctl(C.MQOP_START, mq.CTLO())
    store = qm.get_handle().store
    try:
        end_queue_manager(store)
        _until(lambda: events.calls)
        assert events.calls[0][:3] == (C.MQCBCT_EVENT_CALL, C.MQCC_FAILED, C.MQRC_Q_MGR_QUIESCING)
        assert events.kwargs[0]["queue"] is None
        end_queue_manager(store, immediate=True)
        _until(lambda: rec.of(C.MQCBCT_STOP_CALL))
        assert events.calls[-1][2] == C.MQRC_Q_MGR_STOPPING
        assert rec.of(C.MQCBCT_STOP_CALL)[0][2] == C.MQRC_Q_MGR_STOPPING
        _until(lambda: qm._async.state.value == "stopped")
    finally:
        start_queue_manager(store)


def test_a_callback_that_raises_is_logged_and_the_event_handler_told(qm, caplog) -> None:
    from adapter.pymqi.asyncconsume import callback_failures

    q = _queue(qm)
    q.put(b"bad")
    q.put(b"good")

    def explode(**kw) -> None:
        if kw["msg"] == b"bad":
            raise RuntimeError("application bug")

    rec, events = Recorder(then=explode), Recorder()
    q.cb(cbd=_cbd(rec))
    qm.cb(cbd=_cbd(events, CallbackType=C.MQCBT_EVENT_HANDLER))
    before = sum(callback_failures.values())
    qm.ctl(C.MQOP_START, mq.CTLO())
    _until(lambda: rec.messages() == [b"bad", b"good"])
    qm.ctl(C.MQOP_STOP, mq.CTLO())
    assert events.calls[0][:3] == (C.MQCBCT_EVENT_CALL, C.MQCC_FAILED, C.MQRC_UNEXPECTED_ERROR)
    assert sum(callback_failures.values()) == before + 1
    assert "application bug" in caplog.text


def test_disconnect_from_inside_a_callback_ends_delivery(world) -> None:
    qm = _connect(world)
    qm.define_queue("Q.D")
    q = mq.Queue(qm, "Q.D", C.MQOO_INPUT_AS_Q_DEF | C.MQOO_OUTPUT)
    q.put(b"last")
    q.put(b"never")

    def leave(**kw) -> None:
        if kw["cbc"].CallType == C.MQCBCT_MSG_REMOVED:
            kw["queue_manager"].disconnect()

    rec = Recorder(then=leave)
    q.cb(cbd=_cbd(rec, C.MQCBDO_DEREGISTER_CALL))
    qm.ctl(C.MQOP_START, mq.CTLO())
    _until(lambda: not [t for t in threading.enumerate() if t.name.startswith("mqk-async")])
    assert rec.messages() == [b"last"]
    assert rec.calls[-1][0] == C.MQCBCT_DEREGISTER_CALL  # after the consumer returned
    assert qm._conn is None


def test_stop_from_another_thread_on_a_shared_connection(world) -> None:
    qm = _connect(world)  # ibmmq's MQCONNX: MQCNO_HANDLE_SHARE_BLOCK
    qm.define_queue("Q.S")
    q = mq.Queue(qm, "Q.S", C.MQOO_INPUT_AS_Q_DEF | C.MQOO_OUTPUT)
    rec = Recorder()
    q.cb(cbd=_cbd(rec, C.MQCBDO_STOP_CALL))
    qm.ctl(C.MQOP_START, mq.CTLO())
    out: list = []
    helper = threading.Thread(target=lambda: out.append(qm.ctl(C.MQOP_STOP, mq.CTLO())))
    helper.start()
    helper.join(10)
    assert out == [None] and rec.of(C.MQCBCT_STOP_CALL)
    q.put(b"mine again")
    qm.disconnect()
