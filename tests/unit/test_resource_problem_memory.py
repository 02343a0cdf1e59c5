"""The state store out of memory (Redis's OOM refusal, raised here by the in-memory store
on demand): MQGET answers MQRC_RESOURCE_PROBLEM (2102), not 2009 or a redis-py
exception; the unit of work the failed call belonged to backs out; the call works again
once memory returns (the real Redis at `maxmemory`: tests/integration/test_resource_limits.py)."""

from __future__ import annotations

import pytest
import redis

import adapter.pymqi as pymqi
from adapter.pymqi import failures
from adapter.shim.memory_store import MemoryQueueState

C = pymqi.CMQC


def test_an_out_of_memory_state_store_gives_2102_then_recovers(qmgr, monkeypatch) -> None:
    qmgr.define_queue("Q.OOM")
    q = pymqi.Queue(qmgr, "Q.OOM", C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT)
    q.put(b"kept")
    real_claim, real_lock_many = MemoryQueueState.claim, MemoryQueueState.lock_many

    def refused(*args, **kwargs):
        raise redis.exceptions.OutOfMemoryError(
            "command not allowed when used memory > 'maxmemory'"
        )

    # A get claims one message, or, in a burst, leases a run (shim/getlease.py).
    monkeypatch.setattr(MemoryQueueState, "claim", refused)
    monkeypatch.setattr(MemoryQueueState, "lock_many", refused)
    before = failures.resource_problems["Queue.get"]
    for options in (C.MQGMO_NO_SYNCPOINT, C.MQGMO_SYNCPOINT):
        with pytest.raises(pymqi.MQMIError) as exc:
            q.get(None, pymqi.MD(), pymqi.GMO(Options=options))
        assert exc.value.reason == C.MQRC_RESOURCE_PROBLEM
    assert failures.resource_problems["Queue.get"] == before + 2
    with pytest.raises(pymqi.MQMIError) as exc:
        qmgr.commit()
    assert exc.value.reason == C.MQRC_BACKED_OUT
    monkeypatch.setattr(MemoryQueueState, "claim", real_claim)
    monkeypatch.setattr(MemoryQueueState, "lock_many", real_lock_many)
    assert q.get() == b"kept"
