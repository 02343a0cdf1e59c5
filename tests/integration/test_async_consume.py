"""Asynchronous consume (MQCB / MQCTL, adapter/pymqi/asyncconsume.py) on real Kafka and
Redis, through the ibmmq face: a consumer receives 100 messages in order on the
connection's thread and stops cleanly on MQOP_STOP (issue 15's check); a syncpoint
consumer's MQCMIT from the callback commits what it got."""

from __future__ import annotations

import threading
import time

import pytest

import adapter.ibmmq as ibmmq

C = ibmmq.CMQC


@pytest.fixture
def mq(qmgr_name: str):
    qm = ibmmq.connect(qmgr_name)
    yield qm
    if qm.is_connected:
        qm.disconnect()
    assert not [t for t in threading.enumerate() if t.name.startswith("mqk-async")]


def _until(predicate, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_a_consumer_gets_100_messages_in_order_and_stops_cleanly(qmgr, mq) -> None:
    qmgr.define_queue("ACONS.Q")
    sender = ibmmq.Queue(qmgr, "ACONS.Q", C.MQOO_OUTPUT)
    for i in range(100):
        sender.put(b"message %03d" % i)
    sender.close()
    got: list[bytes] = []
    calls: list[int] = []
    threads: set[int] = set()

    def on_message(**kw) -> None:
        cbc = kw["cbc"]
        calls.append(cbc.CallType)
        threads.add(threading.get_ident())
        if cbc.CallType == C.MQCBCT_MSG_REMOVED:
            assert kw["queue"] is queue and kw["queue_manager"] is mq
            assert cbc.DataLength == len(kw["msg"]) == 11
            got.append(kw["msg"])

    queue = ibmmq.Queue(mq, "ACONS.Q", C.MQOO_INPUT_AS_Q_DEF)
    cbd = ibmmq.CBD()
    cbd.CallbackFunction = on_message
    cbd.Options = C.MQCBDO_START_CALL | C.MQCBDO_STOP_CALL
    gmo = ibmmq.GMO(Options=C.MQGMO_NO_SYNCPOINT | C.MQGMO_WAIT, WaitInterval=C.MQWI_UNLIMITED)
    queue.cb(operation=C.MQOP_REGISTER, cbd=cbd, md=ibmmq.MD(), gmo=gmo)
    mq.ctl(C.MQOP_START, ibmmq.CTLO())
    _until(lambda: len(got) == 100)
    began = time.monotonic()
    mq.ctl(C.MQOP_STOP, ibmmq.CTLO())
    assert time.monotonic() - began < 5  # within a wait slice, not a get's whole wait
    assert got == [b"message %03d" % i for i in range(100)]
    assert calls[0] == C.MQCBCT_START_CALL and calls[-1] == C.MQCBCT_STOP_CALL
    assert len(threads) == 1 and threading.get_ident() not in threads
    assert qmgr.queue_status("ACONS.Q")["current_depth"] == 0
    queue.cb(operation=C.MQOP_DEREGISTER)
    queue.close()


def test_a_syncpoint_consumer_commits_from_its_callback(qmgr, mq) -> None:
    qmgr.define_queue("ACONS.UOW")
    sender = ibmmq.Queue(qmgr, "ACONS.UOW", C.MQOO_OUTPUT)
    for i in range(5):
        sender.put(b"%d" % i)
    sender.close()
    got: list[bytes] = []

    def work(**kw) -> None:
        if kw["cbc"].CallType != C.MQCBCT_MSG_REMOVED:
            return
        got.append(kw["msg"])
        if len(got) == 5:
            kw["queue_manager"].commit()
            kw["queue_manager"].ctl(C.MQOP_STOP, ibmmq.CTLO())

    queue = ibmmq.Queue(mq, "ACONS.UOW", C.MQOO_INPUT_AS_Q_DEF)
    cbd = ibmmq.CBD()
    cbd.CallbackFunction = work
    queue.cb(operation=C.MQOP_REGISTER, cbd=cbd, gmo=ibmmq.GMO(Options=C.MQGMO_SYNCPOINT))
    mq.ctl(C.MQOP_START_WAIT, ibmmq.CTLO())  # returns when the callback stops it
    assert got == [b"%d" % i for i in range(5)]
    assert qmgr.queue_status("ACONS.UOW")["current_depth"] == 0
    queue.close()
