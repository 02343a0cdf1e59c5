"""The MQ side: a queue manager of its own per benchmark, queues, put and get loops."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import adapter.pymqi as pymqi
from adapter.shim import naming

C = pymqi.CMQC
# Deep enough that no benchmark is ever refused with MQRC_Q_FULL.
BENCH_MAX_DEPTH = 50_000_000


def qmgr_name(label: str) -> str:
    """A queue-manager name no other run uses (topics and Redis keys never collide)."""
    return f"BENCH{label[:10].upper()}{uuid.uuid4().hex[:12].upper()}"


class MQSession:
    """One queue manager (its own name) with the queues a benchmark defined."""

    def __init__(self, label: str) -> None:
        self.name = qmgr_name(label)
        self.qm = pymqi.connect(self.name)
        self.queues: list[str] = []
        self._others: list[pymqi.QueueManager] = []

    def define(self, queue: str, **attrs: object) -> str:
        attrs.setdefault("max_depth", BENCH_MAX_DEPTH)
        self.qm.define_queue(queue, **attrs)
        self.queues.append(queue)
        return queue

    def connect_again(self, shared: bool = False) -> pymqi.QueueManager:
        """A second connection to the same queue manager (another application); `shared`:
        a handle other threads may use (MQCNO_HANDLE_SHARE_BLOCK), else only this one."""
        if shared:
            qm = pymqi.QueueManager(None)
            qm.connect_with_options(self.name, opts=pymqi.CMQC.MQCNO_HANDLE_SHARE_BLOCK)
        else:
            qm = pymqi.connect(self.name)
        self._others.append(qm)
        return qm

    def close(self) -> None:
        """Delete the queues (their topics and Redis keys) and the catalog topic."""
        for qm in self._others:
            if qm.is_connected:
                qm.disconnect()
        conn = self.qm.get_handle()
        for queue in self.queues:
            try:
                self.qm.delete_queue(queue, purge=True)
            except pymqi.MQMIError:
                pass
        try:
            conn.log.delete_topics([naming.catalog_topic(self.name)])
        except Exception:  # noqa: BLE001 - best effort: the topic may not exist
            pass
        self.qm.disconnect()


@contextmanager
def mq_session(label: str) -> Iterator[MQSession]:
    session = MQSession(label)
    try:
        yield session
    finally:
        session.close()


def put_n(
    q: pymqi.Queue,
    payload: bytes,
    n: int,
    *,
    persistence: int,
    async_response: bool,
    qm: pymqi.QueueManager,
) -> float:
    """n MQPUTs outside syncpoint (async ones end with the barrier): msg/s."""
    opts = C.MQPMO_NO_SYNCPOINT | (
        C.MQPMO_ASYNC_RESPONSE if async_response else C.MQPMO_SYNC_RESPONSE
    )
    start = time.perf_counter()
    for _ in range(n):
        q.put(payload, pymqi.MD(Persistence=persistence), pymqi.PMO(Options=opts))
    if async_response:
        qm.get_handle().barrier()
    return n / (time.perf_counter() - start)


def fill(qm: pymqi.QueueManager, queue: str, payload: bytes, n: int, persistence: int) -> None:
    q = pymqi.Queue(qm, queue, C.MQOO_OUTPUT)
    put_n(q, payload, n, persistence=persistence, async_response=True, qm=qm)
    q.close()


def get_n(q: pymqi.Queue, n: int, options: int = 0, *, wait_ms: int = 5000) -> tuple[int, float]:
    """n destructive MQGETs, the first a warm-up (the handle's reader starts and reads
    what is committed): (bytes of the other n-1, seconds from the first get's return)."""
    total = 0
    first = 0.0
    gmo_opts = options | C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT
    for i in range(n):
        md = pymqi.MD()
        gmo = pymqi.GMO(Options=gmo_opts, WaitInterval=wait_ms, MatchOptions=C.MQMO_NONE)
        data = q.get(None, md, gmo)
        if i == 0:
            first = time.perf_counter()
        else:
            total += len(data)
    return total, time.perf_counter() - first


def drain_rate(qm: pymqi.QueueManager, queue: str, n: int, options: int = 0) -> tuple[int, float]:
    """Open a handle and take n messages: (bytes, gets/s after the first, untimed)."""
    q = pymqi.Queue(qm, queue, C.MQOO_INPUT_SHARED)
    try:
        size, seconds = get_n(q, n, options)
    finally:
        q.close()
    return size, (n - 1) / seconds if seconds > 0 else float("nan")
