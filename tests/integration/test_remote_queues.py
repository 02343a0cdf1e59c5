"""Remote queues on the real stack (Kafka + Redis): defined through `mqk mqsc` as a
team's script would, opened by another connection, the messages waiting on the
transmission queue behind an MQXQH, committed with the putter's unit of work, and the
transmission queue's own Kafka topic holding them (every resolution rule runs on the
in-memory backends in tests/unit/test_remote_queues_memory.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest

import adapter.pymqi as pymqi
from adapter.core import xqh
from adapter.core.text import mqstr
from tests.integration.conftest import mqerror

pytestmark = pytest.mark.integration
C = pymqi.CMQC
SCRIPT = """\
* The routes of an application that sends to QM2
DEFINE QLOCAL(QM2) USAGE(XMITQ) DESCR('to QM2') REPLACE
DEFINE QREMOTE(ORDERS.AT.QM2) RNAME(ORDERS) RQMNAME(QM2) +
       DEFPSIST(YES) DEFPRTY(4) REPLACE
DEFINE QREMOTE(NOWHERE) RNAME(X) RQMNAME(QM9) REPLACE
DISPLAY QREMOTE(ORDERS.AT.QM2) RNAME RQMNAME XMITQ
"""


def take(qm, queue: str) -> tuple[bytes, pymqi.MD]:
    q = pymqi.Queue(qm, queue, C.MQOO_INPUT_SHARED)
    md = pymqi.MD()
    gmo = pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=5000)
    data = q.get(None, md, gmo)
    q.close()
    return data, md


def test_mqsc_defines_a_route_and_puts_reach_the_transmission_queue(qmgr, qmgr_name) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "adapter.cli", "mqsc", qmgr_name],
        input=SCRIPT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "RQMNAME(QM2)" in run.stdout and "RNAME(ORDERS)" in run.stdout

    app = pymqi.connect(qmgr_name)  # another application uses the definitions
    try:
        od = pymqi.OD(Version=C.MQOD_VERSION_3, ObjectName=b"ORDERS.AT.QM2")
        q = pymqi.Queue(app, od, C.MQOO_OUTPUT)
        assert (mqstr(od.ResolvedQName), mqstr(od.ResolvedQMgrName)) == ("ORDERS", "QM2")
        md = pymqi.MD()
        q.put(b"under syncpoint", md, pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
        # Counted at once, as MQ's CURDEPTH counts an uncommitted put (rule 49), and
        # not there to browse or get before the commit.
        assert qmgr.queue_status("QM2")["current_depth"] == 1
        xmitq = pymqi.Queue(qmgr, "QM2", C.MQOO_BROWSE)
        with pytest.raises(pymqi.MQMIError) as exc:
            xmitq.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_BROWSE_FIRST))
        assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE)
        xmitq.close()
        app.commit()
        q.put(b"outside", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_NO_SYNCPOINT))
        q.close()
        with pytest.raises(pymqi.MQMIError) as exc:
            pymqi.Queue(app, "NOWHERE", C.MQOO_OUTPUT)  # no QM9 and no DEFXMITQ
        assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_UNKNOWN_REMOTE_Q_MGR)
    finally:
        app.disconnect()

    data, sep = take(qmgr, "QM2")
    first = xqh.unwrap(data)
    assert (first.remote_q_name, first.remote_q_mgr_name, first.data) == (
        "ORDERS",
        "QM2",
        b"under syncpoint",
    )
    assert first.md["MsgId"] == md.MsgId and sep.CorrelId == md.MsgId
    assert first.md["Persistence"] == sep.Persistence == C.MQPER_PERSISTENT  # DEFPSIST(YES)
    assert sep.Priority == 4 and sep.Format == C.MQFMT_XMIT_Q_HEADER
    assert xqh.unwrap(take(qmgr, "QM2")[0]).data == b"outside"
