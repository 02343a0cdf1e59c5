"""Failures nothing expected never escape an MQI call as a Python exception: faults
injected deep in the engine (in-memory backends) come back as MQRC_UNEXPECTED_ERROR
(2195) or, for MemoryError, MQRC_STORAGE_NOT_AVAILABLE (2071), logged with their
traceback and counted; a unit of work they touched backs out rather than commit half a
call; server errors keep MQRC_CONNECTION_BROKEN; the face's own argument errors stay
what pymqi raises."""

from __future__ import annotations

import logging
import threading

import pytest

import adapter.pymqi as pymqi
from adapter.shim import catalog, records
from adapter.shim.memory_store import MemoryConnectionError, MemoryQueueState
from tests.integration.conftest import mqerror

C = pymqi.CMQC


def _fails(reason: int, call, *args, **kwargs) -> None:
    with pytest.raises(pymqi.MQMIError) as exc:
        call(*args, **kwargs)
    assert mqerror(exc) == (C.MQCC_FAILED, reason)


def _broken(exc: BaseException):
    def fault(*_a, **_k):
        raise exc

    return fault


@pytest.mark.parametrize(
    ("fault", "reason"),
    [
        (RuntimeError("a bug"), C.MQRC_UNEXPECTED_ERROR),
        (KeyError("env"), C.MQRC_UNEXPECTED_ERROR),
        (TypeError("deep down"), C.MQRC_UNEXPECTED_ERROR),  # not the face's own
        (MemoryError(), C.MQRC_STORAGE_NOT_AVAILABLE),
    ],
)
def test_an_unexpected_failure_in_put_is_an_mq_reason(qmgr, monkeypatch, caplog, fault, reason):
    qmgr.define_queue("Q")
    q = pymqi.Queue(qmgr, "Q", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    before = pymqi.internal_failures[reason]
    real = records.build
    monkeypatch.setattr(records, "build", _broken(fault))
    with caplog.at_level(logging.ERROR, logger="mqk.pymqi"):
        _fails(reason, q.put, b"x")
    assert pymqi.internal_failures[reason] == before + 1
    assert any(r.exc_info and r.exc_info[1] is fault for r in caplog.records)
    monkeypatch.setattr(records, "build", real)
    q.put(b"y")  # the connection goes on
    assert q.get() == b"y"


def test_a_unit_of_work_a_failed_call_touched_backs_out_whole(qmgr, monkeypatch) -> None:
    qmgr.define_queue("Q")
    q = pymqi.Queue(qmgr, "Q", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    sync = pymqi.PMO(Options=C.MQPMO_SYNCPOINT)
    q.put(b"first", pymqi.MD(), sync)
    real = records.build
    monkeypatch.setattr(records, "build", _broken(RuntimeError("mid-call")))
    _fails(C.MQRC_UNEXPECTED_ERROR, q.put, b"second", pymqi.MD(), sync)
    monkeypatch.setattr(records, "build", real)
    with pytest.raises(pymqi.MQMIError) as exc:
        qmgr.commit()
    assert exc.value.reason == C.MQRC_BACKED_OUT  # nothing of it is committed
    _fails(C.MQRC_NO_MSG_AVAILABLE, q.get)
    q.put(b"third", pymqi.MD(), sync)  # a new unit of work works
    qmgr.commit()
    assert q.get() == b"third"


def test_server_errors_keep_connection_broken_and_argument_errors_stay(world, qmgr) -> None:
    qmgr.define_queue("Q")
    q = pymqi.Queue(qmgr, "Q", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    world.server.down = True
    _fails(C.MQRC_CONNECTION_BROKEN, q.put, b"server down")
    world.server.down = False
    with pytest.raises(TypeError):  # pymqi's answer to a message that is not bytes
        q.put(12345)
    with pytest.raises(ValueError):  # DEFINE refusing a value is the command's answer
        qmgr.define_queue("BAD", def_priority=12)
    q.put(b"still fine")


def test_a_failure_mid_mqconn_is_an_mq_reason_and_leaves_nothing_running(
    world, qmgr_name, monkeypatch
) -> None:
    threads = threading.active_count()
    real_init = catalog.Catalog.__init__
    monkeypatch.setattr(catalog.Catalog, "__init__", _broken(RuntimeError("mid-MQCONN")))
    _fails(C.MQRC_UNEXPECTED_ERROR, pymqi.connect, qmgr_name)
    monkeypatch.setattr(catalog.Catalog, "__init__", _broken(MemoryError()))
    _fails(C.MQRC_STORAGE_NOT_AVAILABLE, pymqi.connect, qmgr_name)
    # a server failing after the reachability check: 2009 (2538 is for unreachable)
    monkeypatch.setattr(
        catalog.Catalog, "__init__", _broken(MemoryConnectionError("dropped mid-MQCONN"))
    )
    _fails(C.MQRC_CONNECTION_BROKEN, pymqi.connect, qmgr_name)
    assert threading.active_count() == threads  # no pump thread left behind
    # Only the catalog is put back: monkeypatch.undo() would also undo the world's
    # connect and reach for real servers from the unit layer.
    monkeypatch.setattr(catalog.Catalog, "__init__", real_init)
    pymqi.connect(qmgr_name).disconnect()


def test_a_fault_inside_the_state_backend_on_get_is_an_mq_reason(qmgr, monkeypatch) -> None:
    qmgr.define_queue("Q")
    q = pymqi.Queue(qmgr, "Q", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    q.put(b"kept")
    real = MemoryQueueState.claim
    monkeypatch.setattr(MemoryQueueState, "claim", _broken(MemoryError()))
    _fails(C.MQRC_STORAGE_NOT_AVAILABLE, q.get)
    monkeypatch.setattr(MemoryQueueState, "claim", real)
    assert q.get() == b"kept"  # the failed get took nothing
