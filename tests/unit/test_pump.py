"""The pump's batched bookkeeping and `barrier()`: read-your-writes holds even when the
pump thread has already taken a batch and is still writing it."""

from __future__ import annotations

import threading

from adapter.shim.memory_log import MemoryLog
from adapter.shim.memory_store import MemoryStore
from adapter.shim.pump import Pump


class _SlowStore:
    """A MemoryStore whose first depth write waits until the test lets it go."""

    def __init__(self, store: MemoryStore) -> None:
        self._store = store
        self.writing = threading.Event()
        self.release = threading.Event()

    def queue(self, name: str):
        q = self._store.queue(name)
        outer = self

        class _Slow:
            def add_depth(self, n: int, *stats: int) -> None:
                if not outer.writing.is_set():
                    outer.writing.set()
                    assert outer.release.wait(5)
                q.add_depth(n, *stats)

        return _Slow()


def test_barrier_waits_for_a_depth_batch_the_pump_thread_is_writing() -> None:
    store = MemoryStore("QM1")
    slow = _SlowStore(store)
    log = MemoryLog()
    pump = Pump("QM1", log.producer(), slow)  # type: ignore[arg-type]
    pump.count_put("Q1", 2)
    ticking = threading.Thread(target=pump.flush_depth)  # the pump thread's tick
    ticking.start()
    assert slow.writing.wait(5)
    seen: list[int] = []

    def reader() -> None:  # DISPLAY QSTATUS on the same connection
        pump.barrier()
        seen.append(store.queue("Q1").depth())

    waiting = threading.Thread(target=reader)
    waiting.start()
    waiting.join(0.3)
    assert waiting.is_alive(), "the barrier returned before the taken batch was written"
    slow.release.set()
    ticking.join(5)
    waiting.join(5)
    assert seen == [2]
