"""Redis Sentinel failover under MQ applications (issue 19): a primary, one replica and
three Sentinels of the test's own (ops/redis_ha.py, ports MQK_REDIS_HA_PORT.. +4,
26000 by default); Kafka is the stack's. A putter and two getters move persistent
messages outside syncpoint (get leases and write-behind markers on) while the primary
is SIGKILLed and the Sentinels promote the replica.

The replica is made to lag first (SIGSTOPped while the getters consume for a moment,
then SIGCONTed as the primary dies): the promoted state lacks consumption the old
primary had. Each process notices the new primary on its first connection
(redis_conn.PrimaryCheck), drops the queue's epoch, and the next claim rebuilds the
state from Kafka's ack log: the epoch mark differs before and after, and every message
is got once: 0 lost, 0 duplicated.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

import adapter.pymqi as pymqi
from adapter.shim.redis_keys import queue_prefix
from ops import redis_ha

pytestmark = [pytest.mark.failover, pytest.mark.redis_ha]
C = pymqi.CMQC
BASE = int(os.environ.get("MQK_REDIS_HA_PORT", "26000"))
QUEUE = "RFO.Q"
# What an application may see while no primary is elected for longer than the client's
# retries (MQK_BROKEN_AFTER_S): the connection broken; it connects again.
RECOVERABLE = {C.MQRC_CONNECTION_BROKEN}


@pytest.fixture
def sentinel(tmp_path_factory) -> Iterator[redis_ha.Topology]:
    run_dir = Path(tmp_path_factory.mktemp("sentinel"))
    started = time.monotonic()
    topo = redis_ha.start_sentinel(run_dir, BASE)
    print(f"sentinel topology up in {time.monotonic() - started:.1f} s: {topo.url}")
    try:
        yield topo
    finally:
        redis_ha.stop(topo)


class Run:
    def __init__(self, qmgr_name: str, redis_url: str, total: int) -> None:
        self.kw = {"redis_url": redis_url}
        self.qmgr_name, self.total = qmgr_name, total
        self.got: list[bytes] = []
        self.put_done = 0
        self.reasons: list[tuple[str, int]] = []
        self.failed: list[BaseException] = []
        self.stop = False
        self._lock = threading.Lock()

    def connect(self) -> pymqi.QueueManager:
        return pymqi.connect(self.qmgr_name, **self.kw)

    def putter(self) -> None:
        try:
            qm = self.connect()
            q = pymqi.Queue(qm, QUEUE, C.MQOO_OUTPUT)
            while self.put_done < self.total and not self.stop:
                md = pymqi.MD(Persistence=C.MQPER_PERSISTENT)
                try:
                    q.put(b"%07d" % self.put_done, md)
                except pymqi.MQMIError as err:
                    # A put that failed is not counted: it is put again under the same
                    # body only if it did not reach Kafka (MQ's own ambiguity; not seen).
                    self.reasons.append(("put", err.reason))
                    raise
                self.put_done += 1
            q.close()
            qm.disconnect()
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.failed.append(exc)

    def getter(self) -> None:
        try:
            qm = self.connect()
            q = pymqi.Queue(qm, QUEUE, C.MQOO_INPUT_SHARED)
            deadline = time.monotonic() + 150
            while len(self.got) < self.total and time.monotonic() < deadline and not self.stop:
                gmo = pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=500)
                try:
                    body = q.get(None, pymqi.MD(), gmo)
                except pymqi.MQMIError as err:
                    if err.reason == C.MQRC_NO_MSG_AVAILABLE:
                        continue
                    if err.reason not in RECOVERABLE:
                        raise
                    self.reasons.append(("get", err.reason))
                    time.sleep(0.5)
                    continue
                with self._lock:
                    self.got.append(body)
            q.close()
            qm.disconnect()
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.failed.append(exc)


def _replica_lag(primary: redis.Redis) -> int:
    """Bytes of the replication stream the primary has and its replica has not acked."""
    info = primary.info("replication")
    acked = min(int(v["offset"]) for k, v in info.items() if k.startswith("slave"))
    return int(info["master_repl_offset"]) - acked


def test_primary_killed_mid_run_loses_and_duplicates_nothing(sentinel, qmgr_name) -> None:
    total = int(os.environ.get("MQK_REDIS_FAILOVER_MSGS", "3000"))
    started = time.monotonic()
    admin = pymqi.connect(qmgr_name, redis_url=sentinel.url)
    admin.define_queue(QUEUE, def_persistence=C.MQPER_PERSISTENT, max_depth=total * 2)
    run = Run(qmgr_name, sentinel.url, total)
    threads = [threading.Thread(target=run.putter)]
    threads += [threading.Thread(target=run.getter) for _ in range(2)]
    for t in threads:
        t.start()
    primary_port, replica_port = sentinel.ports[0], sentinel.ports[1]
    primary = redis.Redis(port=primary_port)
    epoch_key = queue_prefix(qmgr_name, QUEUE) + "epoch"
    try:
        while len(run.got) < total // 3 and not run.failed and threads[1].is_alive():
            time.sleep(0.05)
        epoch_before = primary.get(epoch_key)
        # The replica falls behind: stopped while the getters go on consuming.
        os.kill(sentinel.pids[replica_port], signal.SIGSTOP)
        got_at_stop = len(run.got)
        time.sleep(0.6)
        lag = _replica_lag(primary)
        got_unreplicated = len(run.got) - got_at_stop
        killed_at = time.monotonic()
        os.kill(sentinel.pids[primary_port], signal.SIGKILL)
        os.kill(sentinel.pids[replica_port], signal.SIGCONT)
        new_primary = redis.Redis(port=replica_port)
        while new_primary.info("replication")["role"] != "master":
            assert time.monotonic() - killed_at < 30, "no failover within 30 s"
            time.sleep(0.1)
        promoted_after = time.monotonic() - killed_at
        for t in threads:
            t.join(timeout=150)
    finally:
        run.stop = True
        for t in threads:
            t.join(timeout=30)
    epoch_after = new_primary.get(epoch_key)
    admin.disconnect()
    assert not run.failed, run.failed
    lost = total - len(set(run.got))
    duplicated = len(run.got) - len(set(run.got))
    print(
        f"redis sentinel failover: {total} persistent messages, 1 putter + 2 getters; "
        f"the replica lagged {lag} bytes ({got_unreplicated} gets not replicated) when the "
        f"primary was killed; promoted after {promoted_after:.1f} s; epoch mark "
        f"{epoch_before!r} -> {epoch_after!r}; lost {lost}, duplicated {duplicated}; "
        f"reasons seen {run.reasons}; {time.monotonic() - started:.0f} s in all"
    )
    assert lag > 0 and got_unreplicated > 0, "the replica did not lag: nothing shown"
    assert epoch_after is not None and epoch_after != epoch_before, "state not rebuilt"
    assert lost == 0 and duplicated == 0
    assert sorted(run.got) == [b"%07d" % i for i in range(total)]
    assert not [r for r in run.reasons if r[1] not in RECOVERABLE], run.reasons
