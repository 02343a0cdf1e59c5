"""Get leases on the real stack: competing getter processes draining persistent
messages with each delivered exactly once and each getter's share in queue order, and
getters SIGKILLed right after MQGET returned whose messages are never delivered again
(the consumption marker is in Redis even though MQGET did not wait for it)."""

from __future__ import annotations

import multiprocessing as mp
import os
import random
import signal
import subprocess
import sys
import textwrap

import pytest

import adapter.pymqi as pymqi
from adapter.testing.servers import admin_redis

pytestmark = pytest.mark.integration
C = pymqi.CMQC


def _fill(qmgr, queue: str, n: int) -> list[bytes]:
    q = pymqi.Queue(qmgr, queue, C.MQOO_OUTPUT)
    sent = [f"m{i:06d}".encode() + b"." * 1000 for i in range(n)]
    pmo = pymqi.PMO(Options=C.MQPMO_ASYNC_RESPONSE)
    for body in sent:
        q.put(body, pymqi.MD(Persistence=C.MQPER_PERSISTENT), pmo)
    q.close()
    qmgr.get_handle().barrier()
    return sent


def _getter(qmgr_name: str, queue: str, out) -> None:
    qm = pymqi.connect(qmgr_name)
    q = pymqi.Queue(qm, queue, C.MQOO_INPUT_SHARED)
    got = []
    gmo = pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=2000)
    while True:
        try:
            got.append(q.get(None, pymqi.MD(), gmo)[:7])
        except pymqi.MQMIError as err:
            if err.reason != C.MQRC_NO_MSG_AVAILABLE:
                raise
            break
    q.close()
    qm.disconnect()
    out.put(got)


def _drain_in_processes(qmgr_name: str, queue: str, processes: int) -> list[list[bytes]]:
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    getters = [ctx.Process(target=_getter, args=(qmgr_name, queue, out)) for _ in range(processes)]
    for p in getters:
        p.start()
    shares = [out.get(timeout=600) for _ in getters]
    for p in getters:
        p.join(30)
        assert p.exitcode == 0
    return shares


def _check_shares(shares: list[list[bytes]], sent: list[bytes]) -> None:
    every = [m for share in shares for m in share]
    assert len(every) == len(sent), f"{len(every)} delivered of {len(sent)}"
    assert sorted(every) == [s[:7] for s in sent]  # none lost, none twice
    for share in shares:
        assert share == sorted(share), "a getter's messages out of queue order"
    assert all(share for share in shares), "a getter got nothing: no competition tested"


def test_four_getter_processes_get_each_persistent_message_once(qmgr, qmgr_name) -> None:
    n = 8_000
    qmgr.define_queue("Q.LEASE.FOUR", max_depth=n)
    sent = _fill(qmgr, "Q.LEASE.FOUR", n)
    shares = _drain_in_processes(qmgr_name, "Q.LEASE.FOUR", 4)
    print(f"4 getters: {[len(s) for s in shares]} of {n}")
    _check_shares(shares, sent)
    assert qmgr.queue_status("Q.LEASE.FOUR")["current_depth"] == 0


@pytest.mark.slow
def test_four_getter_processes_drain_100000(qmgr, qmgr_name) -> None:
    """The issue's form: 100,000 messages, 4 competing getter processes."""
    n = 100_000
    qmgr.define_queue("Q.LEASE.BIG", max_depth=n)
    sent = _fill(qmgr, "Q.LEASE.BIG", n)
    shares = _drain_in_processes(qmgr_name, "Q.LEASE.BIG", 4)
    print(f"4 getters: {[len(s) for s in shares]} of {n}")
    _check_shares(shares, sent)


_KILLED_GETTER = textwrap.dedent(
    """
    import os, signal, sys
    import adapter.pymqi as pymqi
    C = pymqi.CMQC
    qm = pymqi.connect(sys.argv[1])
    q = pymqi.Queue(qm, sys.argv[2], C.MQOO_INPUT_SHARED)
    gmo = pymqi.GMO(Options=C.MQGMO_NO_SYNCPOINT)
    for _ in range(int(sys.argv[3])):
        body = q.get(None, pymqi.MD(), gmo)
        sys.stdout.write(body[:7].decode() + "\\n")
        sys.stdout.flush()
    # Dies the moment its last MQGET returned: no MQCLOSE, no MQDISC, no flush.
    os.kill(os.getpid(), signal.SIGKILL)
    """
)


def test_a_getter_killed_after_mqget_returned_never_gets_it_again(qmgr, qmgr_name) -> None:
    n, rounds = 400, 8
    qmgr.define_queue("Q.LEASE.KILL", max_depth=n)
    sent = _fill(qmgr, "Q.LEASE.KILL", n)
    rng = random.Random(7)
    delivered: list[bytes] = []
    env = dict(os.environ)
    for _ in range(rounds):
        count = rng.randint(3, 40)
        proc = subprocess.run(
            [sys.executable, "-c", _KILLED_GETTER, qmgr_name, "Q.LEASE.KILL", str(count)],
            capture_output=True,
            timeout=120,
            env=env,
        )
        assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()[-2000:]
        got = proc.stdout.decode().split()
        assert len(got) == count
        delivered.extend(g.encode() for g in got)
    # What the killed getters leased and never handed out comes back when their leases
    # run out; what they handed out never does.
    q = pymqi.Queue(qmgr, "Q.LEASE.KILL", C.MQOO_INPUT_SHARED)
    gmo = pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=5000)
    rest = []
    while True:
        try:
            rest.append(q.get(None, pymqi.MD(), gmo)[:7])
        except pymqi.MQMIError as err:
            assert err.reason == C.MQRC_NO_MSG_AVAILABLE
            break
    print(f"{rounds} getters killed after {len(delivered)} gets; {len(rest)} got after")
    every = delivered + rest
    assert len(every) == n, f"{len(every)} delivered of {n}"
    assert sorted(every) == [s[:7] for s in sent]
    assert qmgr.queue_status("Q.LEASE.KILL")["current_depth"] == 0


_WORKER = textwrap.dedent(
    """
    import sys
    import adapter.pymqi as pymqi
    C = pymqi.CMQC
    qm = pymqi.connect(sys.argv[1])
    src = pymqi.Queue(qm, sys.argv[2], C.MQOO_INPUT_SHARED)
    dst = pymqi.Queue(qm, sys.argv[3], C.MQOO_OUTPUT)
    gmo = pymqi.GMO(Options=C.MQGMO_SYNCPOINT | C.MQGMO_WAIT, WaitInterval=3000)
    pmo = pymqi.PMO(Options=C.MQPMO_SYNCPOINT)
    backed_out = 0
    while True:
        try:
            for _ in range(10):
                body = src.get(None, pymqi.MD(), gmo)
                dst.put(body, pymqi.MD(Persistence=C.MQPER_PERSISTENT), pmo)
            qm.commit()
        except pymqi.MQMIError as err:
            if err.reason == C.MQRC_NO_MSG_AVAILABLE:
                qm.commit()  # the last, partial unit of work
                break
            if err.reason != C.MQRC_BACKED_OUT:  # the state was lost under it: redo
                raise
            backed_out += 1
    qm.disconnect()
    print("backed out", backed_out)
    """
)


def test_redis_flushall_mid_run_loses_and_duplicates_nothing(qmgr, qmgr_name) -> None:
    """Two get-process-put workers (units of work of 10, syncpoint gets served by get
    leases) while the Redis state is flushed twice: every message moves exactly once."""
    import time

    n = 3000
    qmgr.define_queue("Q.LEASE.FLUSH.IN", max_depth=n)
    qmgr.define_queue("Q.LEASE.FLUSH.OUT", max_depth=n)
    sent = _fill(qmgr, "Q.LEASE.FLUSH.IN", n)
    args = [qmgr_name, "Q.LEASE.FLUSH.IN", "Q.LEASE.FLUSH.OUT"]
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", _WORKER, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(2)
    ]
    # As the harness's administrator (the application's ACL user may be refused
    # FLUSHALL: the secure stack's is); any MQK_REDIS_URL form: on a Redis Cluster,
    # FLUSHALL goes to every primary.
    client = admin_redis(qmgr_name)
    for _ in range(2):
        time.sleep(3)
        client.flushall()
    client.close()
    outputs = [w.communicate(timeout=600) for w in workers]
    for w, (_out, err) in zip(workers, outputs, strict=True):
        assert w.returncode == 0, err.decode()[-3000:]
    print([out.decode().strip() for out, _ in outputs])
    q = pymqi.Queue(qmgr, "Q.LEASE.FLUSH.OUT", C.MQOO_INPUT_SHARED)
    gmo = pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=3000)
    moved = []
    while True:
        try:
            moved.append(q.get(None, pymqi.MD(), gmo)[:7])
        except pymqi.MQMIError as err:
            assert err.reason == C.MQRC_NO_MSG_AVAILABLE
            break
    assert len(moved) == n, f"{len(moved)} moved of {n}"
    assert sorted(moved) == [s[:7] for s in sent]
