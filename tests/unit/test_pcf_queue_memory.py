"""PCFExecute through SYSTEM.ADMIN.COMMAND.QUEUE on the in-memory backends: with a
command server running the commands travel through the queues and give the same
answers as the in-process path; with a command queue held open but nobody answering,
MQ's 2033 after response_wait_interval."""

from __future__ import annotations

import threading

import pytest

import adapter.pymqi as pymqi
from adapter.core import cmdreplies as R
from adapter.pymqi import pcfserver
from adapter.tools import cmdserver

C, F = pymqi.CMQC, pymqi.CMQCFC


def script(pcf) -> list:
    """The same PCF commands, answers and failures as data."""
    out = []
    calls = [
        ("MQCMD_CREATE_Q", {C.MQCA_Q_NAME: b"PX.A", C.MQIA_Q_TYPE: C.MQQT_LOCAL,
                            C.MQIA_MAX_Q_DEPTH: 42}),
        ("MQCMD_CREATE_Q", {C.MQCA_Q_NAME: b"PX.B", C.MQIA_Q_TYPE: C.MQQT_LOCAL}),
        ("MQCMD_INQUIRE_Q", {C.MQCA_Q_NAME: b"PX.*"}),
        ("MQCMD_INQUIRE_Q_NAMES", {C.MQCA_Q_NAME: b"PX.*"}),
        ("MQCMD_CHANGE_Q", {C.MQCA_Q_NAME: b"PX.A", C.MQIA_Q_TYPE: C.MQQT_LOCAL,
                            C.MQIA_MAX_Q_DEPTH: 7}),
        ("MQCMD_INQUIRE_Q", {C.MQCA_Q_NAME: b"PX.A", F.MQIACF_Q_ATTRS: [C.MQIA_MAX_Q_DEPTH]}),
        ("MQCMD_CREATE_Q", {C.MQCA_Q_NAME: b"PX.A", C.MQIA_Q_TYPE: C.MQQT_LOCAL}),
        ("MQCMD_INQUIRE_Q", {C.MQCA_Q_NAME: b"NO.SUCH"}),
        ("MQCMD_DELETE_Q", {C.MQCA_Q_NAME: b"PX.B"}),
        ("MQCMD_INQUIRE_Q_STATUS", {C.MQCA_Q_NAME: b"PX.A"}),
    ]  # fmt: skip
    for name, params in calls:
        try:
            out.append((name, getattr(pcf, name)(params)))
        except pymqi.MQMIError as err:
            out.append((name, ("error", err.comp, err.reason)))
    return out


def serve_in_thread(world, qmgr_name: str, stop: threading.Event) -> threading.Thread:
    ready = threading.Event()

    def loop() -> None:
        qm = world.connect(qmgr_name)
        server = cmdserver.CommandServer(qm)
        ready.set()
        try:
            while not stop.is_set():
                if server.serve_one(0) == "empty":
                    stop.wait(0.001)
        finally:
            server.close()
            qm.disconnect()

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    assert ready.wait(10)
    return thread


def test_both_paths_give_the_same_answers(world, qmgr_name, monkeypatch):
    direct_qm = world.connect(qmgr_name)
    in_process = script(pymqi.PCFExecute(direct_qm))
    for name in ("PX.A",):
        direct_qm.delete_queue(name)
    assert not cmdserver.is_running(direct_qm)

    calls = []
    real = pcfserver.serve
    main = threading.current_thread()

    def counted(*args):
        calls.append(threading.current_thread() is not main)  # True: the server's thread
        return real(*args)

    monkeypatch.setattr(pcfserver, "serve", counted)
    stop = threading.Event()
    thread = serve_in_thread(world, qmgr_name, stop)
    try:
        pcf = pymqi.PCFExecute(direct_qm, response_wait_interval=10**9)
        through_queue = script(pcf)
        pcf.disconnect()
    finally:
        stop.set()
        thread.join(10)
    assert through_queue == in_process
    assert calls == [True] * len(through_queue)  # every command went to the server
    direct_qm.disconnect()


def test_2033_when_nobody_answers(qmgr, other):
    cmdserver.ensure_system_queues(qmgr)
    held = pymqi.Queue(other, R.COMMAND_QUEUE, C.MQOO_INPUT_EXCLUSIVE)  # "running"
    pcf = pymqi.PCFExecute(qmgr, response_wait_interval=200)
    with pytest.raises(pymqi.MQMIError) as info:
        pcf.MQCMD_INQUIRE_Q({C.MQCA_Q_NAME: b"*"})
    assert (info.value.comp, info.value.reason) == (C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE)
    held.close()
    pcf.disconnect()
    # the request waits on the command queue, expiring as pymqi asks (3 x the wait)
    assert qmgr.queue_status(R.COMMAND_QUEUE)["current_depth"] == 1
