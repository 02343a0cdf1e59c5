"""Queue-manager limits and endmqm on the real stack (Kafka + Redis): MAXUMSGS inside a
real Kafka transaction, and a quiesce reaching a getter waiting in another process."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

import adapter.pymqi as pymqi
from adapter import cli
from tests.integration.conftest import mqerror

C = pymqi.CMQC
OUT_IN = C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED
SYNC = pymqi.PMO(Options=C.MQPMO_SYNCPOINT)


def test_maxumsgs_in_a_kafka_transaction_and_the_uow_still_commits(qmgr) -> None:
    qmgr.define_queue("LIMITS.Q")
    qmgr.alter_qmgr(max_uncommitted_msgs=3)
    q = pymqi.Queue(qmgr, "LIMITS.Q", OUT_IN)
    q.put(b"stock")
    gmo = pymqi.GMO(Options=C.MQGMO_SYNCPOINT | C.MQGMO_WAIT, WaitInterval=5000)
    assert q.get(None, pymqi.MD(), gmo) == b"stock"
    q.put(b"a", pymqi.MD(), SYNC)
    q.put(b"b", pymqi.MD(), SYNC)
    with pytest.raises(pymqi.MQMIError) as exc:
        q.put(b"c", pymqi.MD(), SYNC)
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_SYNCPOINT_LIMIT_REACHED)
    qmgr.commit()  # the refused put is not part of it; the rest commits
    wait = pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=5000)
    assert sorted(q.get(None, pymqi.MD(), wait) for _ in range(2)) == [b"a", b"b"]
    with pytest.raises(pymqi.MQMIError) as exc:
        q.get()
    assert exc.value.reason == C.MQRC_NO_MSG_AVAILABLE  # "stock" was consumed


_GETTER = """
import sys, time
import adapter.pymqi as pymqi
C = pymqi.CMQC
qm = pymqi.connect(sys.argv[1])
q = pymqi.Queue(qm, "QUIESCE.Q", C.MQOO_INPUT_SHARED)
print("waiting", flush=True)
started = time.monotonic()
gmo = pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_FAIL_IF_QUIESCING, WaitInterval=60000)
try:
    q.get(None, pymqi.MD(), gmo)
    print("got a message", flush=True)
except pymqi.MQMIError as e:
    print(e.reason, round(time.monotonic() - started, 2), flush=True)
qm.disconnect()
"""


def test_a_getter_waiting_in_another_process_gets_2161_when_the_qmgr_quiesces(
    qmgr, qmgr_name, capsys
) -> None:
    qmgr.define_queue("QUIESCE.Q")
    child = subprocess.Popen(
        [sys.executable, "-c", _GETTER, qmgr_name],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )
    try:
        assert child.stdout.readline().strip() == "waiting"
        time.sleep(1.0)  # inside its MQGET now
        quiesced_at = time.monotonic()
        assert cli.main(["endmqm", "-c", qmgr_name]) == 0
        assert "Quiesce request accepted" in capsys.readouterr().out
        out, err = child.communicate(timeout=30)
        reason, _waited = out.split()
        assert int(reason) == C.MQRC_Q_MGR_QUIESCING, err
        assert time.monotonic() - quiesced_at < 5  # promptly, not at the 60 s interval
        # this process's connection, without the option, goes on
        q = pymqi.Queue(qmgr, "QUIESCE.Q", OUT_IN)
        q.put(b"still allowed")
    finally:
        if child.poll() is None:
            child.kill()
        assert cli.main(["strmqm", qmgr_name]) == 0
    assert pymqi.Queue(qmgr, "QUIESCE.Q", C.MQOO_INPUT_SHARED).get() == b"still allowed"
