"""MQCONNX's handle sharing (adapter/pymqi/sharing.py): a nonshared handle belongs to
its thread (2018 elsewhere); a shared one serialises calls (BLOCK) or refuses a call
while another thread's is in progress (NO_BLOCK: 2219); ibmmq asks for BLOCK itself."""

from __future__ import annotations

import threading

import pytest

import adapter.ibmmq as ibmmq
import adapter.pymqi as pymqi
from tests.integration.conftest import mqerror

C = pymqi.CMQC


def _in_thread(fn) -> list:
    """Run `fn` on another thread; its result or its MQ reason."""
    out: list = []

    def run() -> None:
        try:
            out.append(fn())
        except pymqi.MQMIError as err:
            out.append(err.reason)

    t = threading.Thread(target=run)
    t.start()
    t.join(10)
    assert not t.is_alive()
    return out


def _connect(world, options: int, face=pymqi) -> pymqi.QueueManager:
    qm = face.QueueManager(None, log_backend=None)
    qm._targets.update(world.connect("QM1")._targets)  # the test's fake servers
    qm.connect_with_options("QM1", opts=options)
    return qm


def _hold_a_call(qm) -> tuple[threading.Event, threading.Event, threading.Thread]:
    """Another thread inside an MQI call of `qm` (DISPLAY QSTATUS, held open) until
    `release` is set."""
    inside, release = threading.Event(), threading.Event()
    engine = qm.get_handle()
    real = engine.queue_status

    def slow(name: str) -> dict:
        inside.set()
        assert release.wait(10)
        return real(name)

    engine.queue_status = slow
    t = threading.Thread(target=qm.queue_status, args=("Q.SHARE",))
    t.start()
    assert inside.wait(10)
    return inside, release, t


def test_a_nonshared_handle_refuses_other_threads_with_2018(world, qmgr) -> None:
    qmgr.define_queue("Q.SHARE")
    q = pymqi.Queue(qmgr, "Q.SHARE", C.MQOO_OUTPUT)
    assert _in_thread(lambda: q.put(b"from another thread")) == [C.MQRC_HCONN_ERROR]
    assert _in_thread(lambda: pymqi.Queue(qmgr, "Q.SHARE", C.MQOO_INPUT_SHARED)) == [
        C.MQRC_HCONN_ERROR
    ]
    assert _in_thread(qmgr.disconnect) == [C.MQRC_HCONN_ERROR]
    q.put(b"from its own thread")
    assert qmgr.queue_status("Q.SHARE")["current_depth"] == 1  # nothing else was put


def test_mqconnx_without_a_sharing_option_is_nonshared_as_mq(world) -> None:
    qm = _connect(world, C.MQCNO_NONE)
    assert _in_thread(lambda: qm.inquire(C.MQCA_Q_MGR_NAME)) == [C.MQRC_HCONN_ERROR]
    qm.disconnect()


def test_no_block_refuses_a_call_while_another_threads_call_runs(world) -> None:
    qm = _connect(world, C.MQCNO_HANDLE_SHARE_NO_BLOCK)
    qm.define_queue("Q.SHARE")
    q = pymqi.Queue(qm, "Q.SHARE", C.MQOO_OUTPUT)
    _, release, holder = _hold_a_call(qm)
    with pytest.raises(pymqi.MQMIError) as exc:
        q.put(b"refused")
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_CALL_IN_PROGRESS)
    release.set()
    holder.join(10)
    q.put(b"now")  # the other call ended: the handle is free again
    assert _in_thread(lambda: q.put(b"from elsewhere")) == [None]  # shared: any thread
    assert qm.queue_status("Q.SHARE")["current_depth"] == 2
    qm.disconnect()


def test_block_makes_a_call_wait_for_another_threads_call(world) -> None:
    qm = _connect(world, C.MQCNO_HANDLE_SHARE_BLOCK)
    qm.define_queue("Q.SHARE")
    q = pymqi.Queue(qm, "Q.SHARE", C.MQOO_OUTPUT)
    _, release, holder = _hold_a_call(qm)
    done = threading.Event()
    putter = threading.Thread(target=lambda: (q.put(b"waited"), done.set()))
    putter.start()
    assert not done.wait(0.3), "the put ran while another thread's call was in progress"
    release.set()
    assert done.wait(10)
    holder.join(10)
    putter.join(10)
    assert qm.queue_status("Q.SHARE")["current_depth"] == 1
    qm.disconnect()


def test_ibmmq_makes_mqconnx_handles_shared_unless_told(world) -> None:
    qm = _connect(world, C.MQCNO_NONE, face=ibmmq)
    assert qm._sharing.mode == C.MQCNO_HANDLE_SHARE_BLOCK
    assert _in_thread(lambda: qm.inquire(C.MQIA_COMMAND_LEVEL)) == [940]
    qm.disconnect()
    qm = _connect(world, C.MQCNO_HANDLE_SHARE_NO_BLOCK, face=ibmmq)
    assert qm._sharing.mode == C.MQCNO_HANDLE_SHARE_NO_BLOCK
    qm.disconnect()
    # ibmmq adds BLOCK to an explicit SHARE_NONE, and MQ refuses the pair (2046)
    with pytest.raises(ibmmq.MQMIError) as exc:
        _connect(world, C.MQCNO_HANDLE_SHARE_NONE, face=ibmmq)
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_OPTIONS_ERROR)
    # MQCONN stays nonshared in ibmmq too
    plain = ibmmq.QueueManager(None)
    plain._targets.update(world.connect("QM1")._targets)
    plain.connect("QM1")
    assert _in_thread(lambda: plain.inquire(C.MQIA_COMMAND_LEVEL)) == [C.MQRC_HCONN_ERROR]
    plain.disconnect()
