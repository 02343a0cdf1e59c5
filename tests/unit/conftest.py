"""The unit layer's queue managers: every connection a test makes runs on one fake
broker and one fake Redis (adapter.shim.memory_log / memory_store) with a manual clock;
the imported integration scenarios' own `time.sleep` moves that clock."""

from __future__ import annotations

import types

import pytest

import adapter.pymqi as pymqi
from adapter.shim.clock import ManualClock
from adapter.shim.memory_log import MemoryCluster, MemoryLog
from adapter.shim.memory_store import MemoryServer, MemoryStore
from tests.integration import (
    test_mqi_browse_expiry,
    test_mqi_groups,
    test_mqi_put_get,
    test_mqi_uow,
)

_SLEEPERS = (test_mqi_browse_expiry, test_mqi_groups, test_mqi_put_get, test_mqi_uow)


class World:
    """One fake broker and one fake Redis, shared by every connection of a test."""

    def __init__(self) -> None:
        self.clock = ManualClock()
        self.cluster = MemoryCluster(self.clock)
        self.server = MemoryServer()

    def connect(self, name: str, **kw) -> pymqi.QueueManager:
        return _REAL_CONNECT(
            name,
            log_backend=MemoryLog(self.clock, self.cluster),
            store=MemoryStore(name, self.clock.now_ms, self.server),
            clock=self.clock,
            **kw,
        )


_REAL_CONNECT = pymqi.connect


@pytest.fixture
def world(monkeypatch) -> World:
    w = World()
    # Every connection a scenario makes lands in this world, and its sleeps move the clock.
    monkeypatch.setattr(pymqi, "connect", lambda name, *a, **kw: w.connect(name, **kw))
    fake_time = types.SimpleNamespace(
        sleep=w.clock.advance, monotonic=w.clock.monotonic, time=lambda: w.clock.now_ms() / 1000
    )
    for module in _SLEEPERS:
        if hasattr(module, "time"):
            monkeypatch.setattr(module, "time", fake_time)
    return w


@pytest.fixture
def qmgr(world: World, qmgr_name: str):
    qm = pymqi.connect(qmgr_name)
    yield qm
    if qm._conn is not None:
        qm.disconnect()


@pytest.fixture
def other(world: World, qmgr_name: str):
    """A second connection to the same queue manager (another application)."""
    qm = pymqi.connect(qmgr_name)
    yield qm
    if qm._conn is not None:
        qm.disconnect()
