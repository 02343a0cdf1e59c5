"""Once and once only under SIGKILL: a get-process-put worker killed at random moments,
and the spec's STATUS-queue restart patterns killed between units of work.

CI runs the short forms; `ops/run-tests.sh -m slow` runs the full ones (50+ kills,
5,000 persistent messages)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import adapter.pymqi as pymqi
from tests.integration.conftest import drain

C = pymqi.CMQC

WORKER = textwrap.dedent("""
    import sys, adapter.pymqi as pymqi
    C = pymqi.CMQC
    qmgr, src, dst, per_uow = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    # A stable transactional id: this process fences its killed predecessor.
    qm = pymqi.connect(qmgr, transactional_id=f"crash-worker-{qmgr}")
    inq = pymqi.Queue(qm, src, C.MQOO_INPUT_SHARED)
    outq = pymqi.Queue(qm, dst, C.MQOO_OUTPUT)
    # Longer than the lease, so messages locked by a killed predecessor come back first.
    gmo = pymqi.GMO(Options=C.MQGMO_SYNCPOINT | C.MQGMO_WAIT, WaitInterval=5000)
    pmo = pymqi.PMO(Options=C.MQPMO_SYNCPOINT)
    print("ready", flush=True)
    while True:
        n = 0
        try:
            while n < per_uow:
                data = inq.get(None, pymqi.MD(), gmo)
                outq.put(b"done:" + data, pymqi.MD(Persistence=C.MQPER_PERSISTENT), pmo)
                n += 1
        except pymqi.MQMIError as e:
            if e.reason != C.MQRC_NO_MSG_AVAILABLE:
                raise
        if n:
            qm.commit()
        else:
            break
    qm.disconnect()
    print("drained", flush=True)
""")


def _spawn(args: list[str], env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", WORKER, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _run_crash(qmgr, qmgr_name: str, messages: int, kills: int, seed: int) -> None:
    rng = random.Random(seed)
    qmgr.define_queue("CRASH.A", max_depth=messages)
    qmgr.define_queue("CRASH.B", max_depth=messages)
    src = pymqi.Queue(qmgr, "CRASH.A", C.MQOO_OUTPUT)
    sent = [f"m{i:05d}".encode() for i in range(messages)]
    pmo = pymqi.PMO(Options=C.MQPMO_ASYNC_RESPONSE)
    for body in sent:
        src.put(body, pymqi.MD(Persistence=C.MQPER_PERSISTENT), pmo)
    qmgr.get_handle().barrier()
    env = dict(os.environ, MQK_UOW_LEASE_MS="1500", MQK_TXN_TIMEOUT_MS="5000")
    args = [qmgr_name, "CRASH.A", "CRASH.B", "10"]
    killed = 0
    while killed < kills:
        worker = _spawn(args, env)
        assert worker.stdout.readline().strip() == "ready", worker.stderr.read()
        time.sleep(rng.uniform(0.05, 1.2))  # anywhere: mid-get, mid-put, mid-commit
        if worker.poll() is not None:
            break  # it finished everything before we could kill it
        worker.send_signal(signal.SIGKILL)
        worker.wait()
        killed += 1
    final = _spawn(args, env)
    out, err = final.communicate(timeout=600)
    assert final.returncode == 0 and "drained" in out, err
    st = qmgr.get_handle().state("CRASH.A")
    left = {
        "depth": st.depth(),
        "locks": st.r.hgetall(st.prefix + "lock"),
        "reconcile": st.r.get(st.prefix + "reconcile"),
    }
    assert killed >= min(kills, 1)
    got = [d for d, _ in drain(pymqi.Queue(qmgr, "CRASH.B", C.MQOO_INPUT_SHARED), wait_ms=2000)]
    assert len(got) == len(set(got)), f"{len(got) - len(set(got))} delivered twice"
    assert sorted(got) == [b"done:" + m for m in sent], f"{messages - len(set(got))} lost {left}"
    assert qmgr.queue_status("CRASH.A")["current_depth"] == 0


@pytest.mark.integration
def test_get_process_put_survives_sigkill_short(qmgr, qmgr_name) -> None:
    _run_crash(qmgr, qmgr_name, messages=600, kills=8, seed=1)


@pytest.mark.integration
@pytest.mark.slow
def test_get_process_put_survives_50_sigkills_5000_messages(qmgr, qmgr_name) -> None:
    _run_crash(qmgr, qmgr_name, messages=5000, kills=50, seed=7)


PUTTER = textwrap.dedent("""
    # spec/groups-across-units-of-work.txt, putting side, with a STATUS queue.
    import os, signal, sys, adapter.pymqi as pymqi
    C = pymqi.CMQC
    qmgr, total, die_after_uow = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    qm = pymqi.connect(qmgr)
    q = pymqi.Queue(qm, "GRP.Q", C.MQOO_OUTPUT)
    status = pymqi.Queue(qm, "GRP.STATUS", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    sp = C.MQPMO_SYNCPOINT
    try:  # restart processing: is a group half put?
        smd = pymqi.MD()
        info = status.get(None, smd, pymqi.GMO(Options=C.MQGMO_SYNCPOINT)).decode()
        gid, seq = bytes.fromhex(info.split(",")[0]), int(info.split(",")[1])
        md = pymqi.MD(GroupId=gid, MsgSeqNumber=seq + 1, MsgFlags=C.MQMF_MSG_IN_GROUP)
        q.put(f"msg{seq + 1}".encode(), md, pymqi.PMO(Options=sp))  # explicit, no LOGICAL_ORDER
        seq += 1
    except pymqi.MQMIError as e:
        if e.reason != C.MQRC_NO_MSG_AVAILABLE:
            raise
        md = pymqi.MD(MsgFlags=C.MQMF_MSG_IN_GROUP)
        q.put(b"msg1", md, pymqi.PMO(Options=C.MQPMO_LOGICAL_ORDER | sp))
        gid, seq = md.GroupId, 1
    uows = 0
    while True:
        for _ in range(2):  # normal processing: LOGICAL_ORDER from here on
            if seq + 1 >= total:
                break
            md = pymqi.MD(MsgFlags=C.MQMF_MSG_IN_GROUP)
            q.put(f"msg{seq + 1}".encode(), md, pymqi.PMO(Options=C.MQPMO_LOGICAL_ORDER | sp))
            seq = md.MsgSeqNumber
        if seq + 1 >= total:
            md = pymqi.MD(MsgFlags=C.MQMF_LAST_MSG_IN_GROUP)
            q.put(f"msg{total}".encode(), md, pymqi.PMO(Options=C.MQPMO_LOGICAL_ORDER | sp))
            try:  # the group is complete: the STATUS queue ends empty
                status.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_SYNCPOINT))
            except pymqi.MQMIError:
                pass
            qm.commit()
            print("complete", flush=True)
            break
        try:
            status.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_SYNCPOINT))
        except pymqi.MQMIError:
            pass
        status.put(f"{gid.hex()},{seq}".encode(), pymqi.MD(), pymqi.PMO(Options=sp))
        qm.commit()
        uows += 1
        if uows == die_after_uow:
            os.kill(os.getpid(), signal.SIGKILL)  # between units of work
""")


@pytest.mark.integration
def test_status_queue_restart_of_a_group_put_after_sigkill(qmgr, qmgr_name) -> None:
    qmgr.define_queue("GRP.Q")
    qmgr.define_queue("GRP.STATUS")
    total = 12
    first = subprocess.run(
        [sys.executable, "-c", PUTTER, qmgr_name, str(total), "2"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert first.returncode == -9, first.stderr  # killed between units of work
    second = subprocess.run(
        [sys.executable, "-c", PUTTER, qmgr_name, str(total), "99"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert second.returncode == 0 and "complete" in second.stdout, second.stderr
    q = pymqi.Queue(qmgr, "GRP.Q", C.MQOO_INPUT_SHARED)
    gmo = pymqi.GMO(
        Options=C.MQGMO_LOGICAL_ORDER | C.MQGMO_ALL_MSGS_AVAILABLE, MatchOptions=C.MQMO_NONE
    )
    got = [q.get(None, pymqi.MD(), gmo)]
    while gmo.GroupStatus == C.MQGS_MSG_IN_GROUP:
        got.append(q.get(None, pymqi.MD(), gmo))
    assert got == [f"msg{i}".encode() for i in range(1, total + 1)]  # once each, in order
    assert qmgr.queue_status("GRP.STATUS")["current_depth"] == 0


GETTER = textwrap.dedent("""
    # spec/groups-across-units-of-work.txt, getting side: up to 3 messages per UOW.
    import os, signal, sys, adapter.pymqi as pymqi
    C = pymqi.CMQC
    qmgr, die_after_uow = sys.argv[1], int(sys.argv[2])
    qm = pymqi.connect(qmgr)
    q = pymqi.Queue(qm, "GRP.IN", C.MQOO_INPUT_SHARED)
    out = pymqi.Queue(qm, "GRP.DONE", C.MQOO_OUTPUT)
    status = pymqi.Queue(qm, "GRP.GSTATUS", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    sp = C.MQGMO_SYNCPOINT
    msgs = 0
    try:  # restart: resume the group by GroupId and MsgSeqNumber + 1
        info = status.get(None, pymqi.MD(), pymqi.GMO(Options=sp)).decode()
        gid, seq = bytes.fromhex(info.split(",")[0]), int(info.split(",")[1])
        md = pymqi.MD(GroupId=gid, MsgSeqNumber=seq + 1)
        gmo = pymqi.GMO(Options=C.MQGMO_COMPLETE_MSG | sp | C.MQGMO_WAIT, WaitInterval=5000,
                        MatchOptions=C.MQMO_MATCH_GROUP_ID | C.MQMO_MATCH_MSG_SEQ_NUMBER)
    except pymqi.MQMIError as e:
        if e.reason != C.MQRC_NO_MSG_AVAILABLE:
            raise
        md = pymqi.MD()
        gmo = pymqi.GMO(Options=sp | C.MQGMO_WAIT | C.MQGMO_ALL_MSGS_AVAILABLE
                        | C.MQGMO_LOGICAL_ORDER, WaitInterval=5000, MatchOptions=C.MQMO_NONE)
    uows = 0
    while True:
        data = q.get(None, md, gmo)
        out.put(data, pymqi.MD(), pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
        msgs += 1
        in_group = gmo.GroupStatus == C.MQGS_MSG_IN_GROUP
        if msgs == 3 or not in_group:
            try:
                status.get(None, pymqi.MD(), pymqi.GMO(Options=sp))
            except pymqi.MQMIError:
                pass
            if in_group:
                status.put(f"{md.GroupId.hex()},{md.MsgSeqNumber}".encode(), pymqi.MD(),
                           pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
            qm.commit()
            msgs = 0
            uows += 1
            if not in_group:
                print("complete", flush=True)
                break
            if uows == die_after_uow:
                os.kill(os.getpid(), signal.SIGKILL)
        gmo = pymqi.GMO(Options=C.MQGMO_COMPLETE_MSG | sp | C.MQGMO_WAIT
                        | C.MQGMO_LOGICAL_ORDER, WaitInterval=5000, MatchOptions=C.MQMO_NONE)
        md = pymqi.MD()
""")


@pytest.mark.integration
def test_status_queue_restart_of_a_group_get_after_sigkill(qmgr, qmgr_name) -> None:
    for name in ("GRP.IN", "GRP.DONE", "GRP.GSTATUS"):
        qmgr.define_queue(name)
    q = pymqi.Queue(qmgr, "GRP.IN", C.MQOO_OUTPUT)
    total = 10
    pmo = pymqi.PMO(Options=C.MQPMO_LOGICAL_ORDER)
    for i in range(1, total + 1):
        flags = C.MQMF_LAST_MSG_IN_GROUP if i == total else C.MQMF_MSG_IN_GROUP
        q.put(f"g{i}".encode(), pymqi.MD(MsgFlags=flags), pmo)
    first = subprocess.run(
        [sys.executable, "-c", GETTER, qmgr_name, "2"], capture_output=True, text=True, timeout=120
    )
    assert first.returncode == -9, first.stderr
    second = subprocess.run(
        [sys.executable, "-c", GETTER, qmgr_name, "99"], capture_output=True, text=True, timeout=120
    )
    assert second.returncode == 0 and "complete" in second.stdout, second.stderr
    done = [d for d, _ in drain(pymqi.Queue(qmgr, "GRP.DONE", C.MQOO_INPUT_SHARED), 1000)]
    assert done == [f"g{i}".encode() for i in range(1, total + 1)]
    assert qmgr.queue_status("GRP.IN")["current_depth"] == 0
    assert qmgr.queue_status("GRP.GSTATUS")["current_depth"] == 0
