"""Kafka failover under MQ applications (issue 19): a broker of a 3-node cluster (RF 3,
min.insync.replicas 2) SIGKILLed while a putter and a getter run persistent messages
under syncpoint, then restarted. Every message arrives exactly once and in order (one
putter, one getter, one priority: IBM's conditions for sequential retrieval), MQPUT and
MQGET carry on by themselves, and whatever an application saw meanwhile is an MQ reason
code it can act on, never an unexpected failure (2195).

Get-process-put units of work (MQGET from one queue and MQPUT to another under one
unit of work, then MQCMIT) through kills of the queues' leaders: every input message
ends on the output queue exactly once, none is left on the input queue, and none ends on
both (a unit of work is committed or backed out, never half).

The short form (one kill) runs in CI; the long form (`-m slow`: several kills, each
node in turn) is the soak."""

from __future__ import annotations

import threading
import time

import pytest

import adapter.pymqi as pymqi
from adapter.shim import naming
from tests.failover.conftest import Cluster

pytestmark = pytest.mark.failover
C = pymqi.CMQC
BATCH = 10
# What an application may see while a leader is elected: the unit of work backed out,
# or the connection to the queue manager broken; it backs out and tries again.
RECOVERABLE = {C.MQRC_BACKED_OUT, C.MQRC_CONNECTION_BROKEN}


def _recover(qm, reasons: list[tuple[str, int]], who: str, err: pymqi.MQMIError) -> None:
    """What an application does with a reason code during an election: note it, back
    out, pause, go on."""
    reasons.append((who, err.reason))
    try:
        qm.backout()
    except pymqi.MQMIError as again:
        reasons.append((who + " backout", again.reason))
    time.sleep(0.2)


class Run:
    def __init__(self, cluster: Cluster, qmgr_name: str, total: int, putters: int = 1) -> None:
        self.kw = {"kafka_bootstrap": cluster.bootstrap}
        self.qmgr_name, self.total, self.putters = qmgr_name, total, putters
        self.got: list[bytes] = []
        self.put_done = 0  # by all putters: the kills are timed by it
        self._count = threading.Lock()
        self.reasons: list[tuple[str, int]] = []
        self.failed: list[BaseException] = []

    def connect(self) -> pymqi.QueueManager:
        return pymqi.connect(self.qmgr_name, **self.kw)

    def _recover(self, qm, who: str, err: pymqi.MQMIError) -> None:
        _recover(qm, self.reasons, who, err)

    def body(self, putter: int, n: int) -> bytes:
        return b"%07d" % n if self.putters == 1 else b"%d:%07d" % (putter, n)

    def putter(self, me: int = 0) -> None:
        try:
            qm = self.connect()
            q = pymqi.Queue(qm, "FO.Q", C.MQOO_OUTPUT)
            done, mine = 0, self.total // self.putters
            while done < mine:
                try:
                    for j in range(BATCH):
                        md = pymqi.MD(Persistence=C.MQPER_PERSISTENT)
                        q.put(self.body(me, done + j), md, pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
                    qm.commit()
                    done += BATCH
                    with self._count:
                        self.put_done += BATCH
                except pymqi.MQMIError as err:
                    self._recover(qm, "put", err)
            q.close()
            qm.disconnect()
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.failed.append(exc)

    def getter(self) -> None:
        try:
            qm = self.connect()
            q = pymqi.Queue(qm, "FO.Q", C.MQOO_INPUT_SHARED)
            deadline = time.monotonic() + 240 + self.total / 100
            while len(self.got) < self.total and time.monotonic() < deadline:
                batch: list[bytes] = []
                try:
                    for _ in range(BATCH):
                        gmo = pymqi.GMO(Options=C.MQGMO_SYNCPOINT | C.MQGMO_WAIT, WaitInterval=1000)
                        batch.append(q.get(None, pymqi.MD(), gmo))
                except pymqi.MQMIError as err:
                    if err.reason != C.MQRC_NO_MSG_AVAILABLE:
                        self._recover(qm, "get", err)
                        continue
                try:
                    qm.commit()
                    self.got.extend(batch)
                except pymqi.MQMIError as err:
                    self._recover(qm, "commit", err)
            q.close()
            qm.disconnect()
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.failed.append(exc)


def _run(
    replicated: Cluster, qmgr_name: str, total: int, kills: int, putters: int = 1, getters: int = 1
) -> Run:
    admin = pymqi.connect(qmgr_name, kafka_bootstrap=replicated.bootstrap)
    admin.define_queue("FO.Q", def_persistence=C.MQPER_PERSISTENT, max_depth=total * 2)
    run = Run(replicated, qmgr_name, total, putters)
    threads = [threading.Thread(target=run.putter, args=(p,)) for p in range(putters)]
    threads += [threading.Thread(target=run.getter) for _ in range(getters)]
    for t in threads:
        t.start()
    topic = naming.data_topic(qmgr_name, "FO.Q", 0)
    for k in range(kills):
        target = (k + 1) * total // (kills + 1)
        while run.put_done < target and not run.failed and threads[0].is_alive():
            time.sleep(0.05)
        victim = replicated.leader_of(topic)  # the leader of the queue's topic
        replicated.kill(victim)
        time.sleep(5)  # an election, and both applications working through it
        replicated.restart(victim)
    for t in threads:
        t.join(timeout=300)
    admin.disconnect()
    return run


def _check(run: Run, in_order: bool = True) -> None:
    assert not run.failed, run.failed
    mine = run.total // run.putters
    expected = [run.body(p, i) for p in range(run.putters) for i in range(mine)]
    assert len(set(run.got)) == len(run.got), "duplicates"
    if in_order:  # one putter, one getter: all, once each, in the order put
        assert run.got == expected
    else:  # competing getters: a backed-out batch may come back after later ones
        assert sorted(run.got) == sorted(expected), "lost"
    print(f"{len(run.got)} of {len(expected)} got once each")
    unexpected = [r for r in run.reasons if r[1] not in RECOVERABLE]
    assert not unexpected, run.reasons
    print(f"reasons seen during the elections: {run.reasons}")


def test_a_leader_killed_mid_run_loses_and_duplicates_nothing(replicated, qmgr_name) -> None:
    _check(_run(replicated, qmgr_name, 600, kills=1))


@pytest.mark.slow
def test_every_node_killed_in_turn(replicated, qmgr_name) -> None:
    _check(_run(replicated, qmgr_name + "S", 3000, kills=3))


@pytest.mark.slow
def test_two_putters_two_getters_through_five_kills(replicated, qmgr_name) -> None:
    """Issue 19's figure: 20,000 persistent messages, 2 putters and 2 getters, the queue
    topic's leader SIGKILLed and restarted 5 times: 0 lost, 0 duplicated."""
    run = _run(replicated, qmgr_name + "P", 20_000, kills=5, putters=2, getters=2)
    _check(run, in_order=False)


class Relay:
    """A get-process-put application: MQGET a batch from FO.IN and MQPUT each message,
    transformed, to FO.OUT under one unit of work, then MQCMIT; on any reason code,
    MQBACK and go on (the messages come back to FO.IN)."""

    def __init__(self, cluster: Cluster, qmgr_name: str, total: int) -> None:
        self.kw = {"kafka_bootstrap": cluster.bootstrap}
        self.qmgr_name, self.total = qmgr_name, total
        self.committed = 0  # messages in units of work whose MQCMIT returned OK
        self.reasons: list[tuple[str, int]] = []
        self.failed: list[BaseException] = []

    def run(self) -> None:
        try:
            qm = pymqi.connect(self.qmgr_name, **self.kw)
            inq = pymqi.Queue(qm, "FO.IN", C.MQOO_INPUT_SHARED)
            outq = pymqi.Queue(qm, "FO.OUT", C.MQOO_OUTPUT)
            deadline = time.monotonic() + 240 + self.total / 50
            idle = 0
            while time.monotonic() < deadline and idle < 3:
                n = 0
                try:
                    for _ in range(BATCH):
                        gmo = pymqi.GMO(Options=C.MQGMO_SYNCPOINT | C.MQGMO_WAIT, WaitInterval=1000)
                        try:
                            body = inq.get(None, pymqi.MD(), gmo)
                        except pymqi.MQMIError as err:
                            if err.reason != C.MQRC_NO_MSG_AVAILABLE:
                                raise
                            break
                        md = pymqi.MD(Persistence=C.MQPER_PERSISTENT)
                        outq.put(b"out:" + body, md, pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
                        n += 1
                    qm.commit()
                except pymqi.MQMIError as err:
                    _recover(qm, self.reasons, "relay", err)
                    continue
                self.committed += n
                idle = idle + 1 if n == 0 else 0
            inq.close()
            outq.close()
            qm.disconnect()
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.failed.append(exc)


def _relay_through_kills(replicated: Cluster, qmgr_name: str, total: int, kills: int) -> None:
    admin = pymqi.connect(qmgr_name, kafka_bootstrap=replicated.bootstrap)
    for name in ("FO.IN", "FO.OUT"):
        admin.define_queue(name, def_persistence=C.MQPER_PERSISTENT, max_depth=total * 2)
    feed = pymqi.Queue(admin, "FO.IN", C.MQOO_OUTPUT)
    for i in range(total):
        feed.put(b"%07d" % i, pymqi.MD(Persistence=C.MQPER_PERSISTENT))
    feed.close()
    relay = Relay(replicated, qmgr_name, total)
    worker = threading.Thread(target=relay.run)
    worker.start()
    victims = []
    for k in range(kills):
        target = (k + 1) * total // (kills + 1)
        while relay.committed < target and worker.is_alive():
            time.sleep(0.02)
        # In turn: the leader of the output queue's topic (the unit of work's puts and
        # its transaction's partitions), then of the input queue's (its consumption).
        queue = "FO.OUT" if k % 2 == 0 else "FO.IN"
        victim = replicated.leader_of(naming.data_topic(qmgr_name, queue, 0))
        victims.append((queue, victim, relay.committed))
        replicated.kill(victim)
        time.sleep(5)  # an election, and the relay working through it
        replicated.restart(victim)
    worker.join(timeout=600)
    assert not worker.is_alive(), "the relay never finished"
    assert not relay.failed, relay.failed
    unexpected = [r for r in relay.reasons if r[1] not in RECOVERABLE]
    assert not unexpected, relay.reasons

    def drain(name: str) -> list[bytes]:
        q = pymqi.Queue(admin, name, C.MQOO_INPUT_SHARED)
        got: list[bytes] = []
        while True:
            try:
                got.append(q.get(None))
            except pymqi.MQMIError as err:
                assert err.reason == C.MQRC_NO_MSG_AVAILABLE, err
                break
        q.close()
        return got

    left, out = drain("FO.IN"), drain("FO.OUT")
    admin.disconnect()
    assert left == [], f"{len(left)} input messages never relayed"
    assert len(set(out)) == len(out), "a message relayed twice"
    # One relay, one priority: the output keeps the input's order (a backed-out batch
    # returns to the front of FO.IN).
    assert out == [b"out:%07d" % i for i in range(total)]
    print(
        f"{len(out)} of {total} relayed exactly once, in order, through kills of "
        f"{victims} (queue, node, committed before the kill); reasons seen: {relay.reasons}"
    )


def test_get_process_put_units_of_work_through_a_leader_kill(replicated, qmgr_name) -> None:
    _relay_through_kills(replicated, qmgr_name + "R", 400, kills=1)


@pytest.mark.slow
def test_get_process_put_units_of_work_through_four_kills(replicated, qmgr_name) -> None:
    _relay_through_kills(replicated, qmgr_name + "RS", 4000, kills=4)
