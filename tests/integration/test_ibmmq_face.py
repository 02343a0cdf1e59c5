"""The ibmmq 2.x face on real Kafka and Redis: MQINQ with selector lists, MQSET seen by
another connection's open handle at once, PUT(DISABLED) refusing an open handle with
2051 while its asynchronous puts are counted as failures by MQSTAT, and a program
written for ibmmq run with only its import changed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import adapter.ibmmq as ibmmq
from adapter import config

C = ibmmq.CMQC


@pytest.fixture
def mq(qmgr_name: str):
    """A second connection to the test's queue manager, through ibmmq.connect with a
    user id and password: the client settings' SASL user on a SASL cluster (there they
    are checked: ops/run-secure-tests.sh), any on a plaintext one (accepted, unused)."""
    settings = config.kafka_settings()
    user = settings.get("sasl.username", "app")
    qm = ibmmq.connect(qmgr_name, user=user, password=settings.get("sasl.password", ""))
    yield qm
    if qm.is_connected:
        qm.disconnect()


def test_inquire_lists_on_the_queue_manager_and_a_queue(qmgr, mq) -> None:
    qmgr.define_queue("INQ.Q", max_depth=77, description="the orders", def_priority=4)
    q = ibmmq.Queue(mq, "INQ.Q", C.MQOO_INQUIRE | C.MQOO_OUTPUT)
    q.put(b"one")
    got = q.inq(
        [C.MQIA_MAX_Q_DEPTH, C.MQCA_Q_DESC, C.MQIA_DEF_PRIORITY, C.MQIA_CURRENT_Q_DEPTH]
        + [C.MQIA_OPEN_OUTPUT_COUNT, C.MQCA_Q_NAME]
    )
    assert got[C.MQIA_MAX_Q_DEPTH] == 77 and got[C.MQIA_DEF_PRIORITY] == 4
    assert got[C.MQCA_Q_DESC] == b"the orders".ljust(C.MQ_Q_DESC_LENGTH)
    assert got[C.MQIA_CURRENT_Q_DEPTH] == 1 and got[C.MQIA_OPEN_OUTPUT_COUNT] == 1
    assert ibmmq.to_string(got[C.MQCA_Q_NAME]) == "INQ.Q"
    info = mq.inquire([C.MQCA_Q_MGR_NAME, C.MQCA_VERSION, C.MQIA_COMMAND_LEVEL])
    assert ibmmq.to_string(info[C.MQCA_Q_MGR_NAME]) == mq.get_name()
    assert (info[C.MQCA_VERSION], info[C.MQIA_COMMAND_LEVEL]) == (b"09040000", 940)
    with pytest.raises(ibmmq.MQMIError) as err:
        q.inq([C.MQIA_MAX_Q_DEPTH, C.MQIA_COMMAND_LEVEL])  # a queue manager attribute
    assert (err.value.comp, err.value.reason) == (C.MQCC_FAILED, C.MQRC_SELECTOR_ERROR)
    q.close()


def test_mqset_reaches_another_connections_open_handle_and_mqstat_counts(qmgr, mq) -> None:
    qmgr.define_queue("SET.Q")
    putter = ibmmq.Queue(qmgr, "SET.Q", C.MQOO_OUTPUT)  # the other connection's handle
    putter.put(b"before")
    admin = ibmmq.Queue(mq, "SET.Q", C.MQOO_SET | C.MQOO_INQUIRE)
    admin.set({C.MQIA_INHIBIT_PUT: C.MQQA_PUT_INHIBITED, C.MQIA_TRIGGER_DEPTH: 5})
    assert admin.inq([C.MQIA_INHIBIT_PUT, C.MQIA_TRIGGER_DEPTH]) == {
        C.MQIA_INHIBIT_PUT: C.MQQA_PUT_INHIBITED,
        C.MQIA_TRIGGER_DEPTH: 5,
    }
    with pytest.raises(ibmmq.MQMIError) as err:
        putter.put(b"refused")
    assert err.value.reason == C.MQRC_PUT_INHIBITED
    for _ in range(3):  # asynchronous: the calls complete, MQSTAT tells
        putter.put(b"async", ibmmq.MD(), ibmmq.PMO(Options=C.MQPMO_ASYNC_RESPONSE))
    sts = qmgr.stat(C.MQSTAT_TYPE_ASYNC_ERROR)
    assert (sts.CompCode, sts.Reason, sts.PutFailureCount, sts.PutSuccessCount) == (
        C.MQCC_FAILED,
        C.MQRC_PUT_INHIBITED,
        3,
        0,
    )
    assert ibmmq.to_string(sts.ObjectName) == "SET.Q"
    assert qmgr.stat(C.MQSTAT_TYPE_ASYNC_ERROR).PutFailureCount == 0  # MQSTAT resets
    admin.set(C.MQIA_INHIBIT_PUT, C.MQQA_PUT_ALLOWED)
    putter.put(b"async", ibmmq.MD(), ibmmq.PMO(Options=C.MQPMO_ASYNC_RESPONSE))
    assert qmgr.stat(C.MQSTAT_TYPE_ASYNC_ERROR).PutSuccessCount == 1
    assert qmgr.queue_status("SET.Q")["current_depth"] == 2  # nothing refused was put
    with pytest.raises(ibmmq.MQMIError) as err:
        ibmmq.Queue(mq, "SET.Q", C.MQOO_INQUIRE).set(C.MQIA_INHIBIT_GET, C.MQQA_GET_INHIBITED)
    assert err.value.reason == C.MQRC_NOT_OPEN_FOR_SET
    for q in (putter, admin):
        q.close()


def test_ibmmq_program_runs_with_only_its_import_changed(qmgr, qmgr_name) -> None:
    qmgr.define_queue("APP.REQUEST", def_input_exclusive=False)
    qmgr.define_queue("APP.MODEL", queue_type=C.MQQT_MODEL)
    program = Path(__file__).parent / "programs" / "ibmmq_app.py"
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).parents[2]))
    run = subprocess.run(
        [sys.executable, str(program), qmgr_name, "APP.REQUEST", "APP.MODEL"],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
    )
    assert run.returncode == 0, run.stderr
    out = run.stdout.splitlines()
    assert out == [
        "versions: ['MQ', 'module']",
        "qmgr: True",
        "level: True",
        "dynamic: True",
        "served: True",
        "replies: ['reply to ping 2', 'reply to ping 1', 'reply to ping 0']",
        "inq: 0 0",
        "set: 1 app",
        "put: MQRC_PUT_INHIBITED",
        "stat: 0 2 MQRC_PUT_INHIBITED APP.REQUEST",
        "stat: 2 0 MQCC_OK",
        "truncated: True 5",
    ], run.stderr
    # The temporary reply queue went with the program's MQCLOSE.
    assert not [n for n in qmgr.get_handle().catalog.names() if n.startswith("APP.REPLY.")]
