"""Exclusive input across processes and context passing, on the real stack (the full
rule tables run on the in-memory backends in tests/unit/test_mqi_rules_memory.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import adapter.pymqi as pymqi
from tests.integration.conftest import mqerror

pytestmark = pytest.mark.integration
C = pymqi.CMQC


def _open_shared(qmgr, queue: str):
    return pymqi.Queue(qmgr, queue, C.MQOO_INPUT_SHARED)


def test_a_second_process_gets_2042_until_the_killed_holders_lease_ends(qmgr, qmgr_name) -> None:
    qmgr.define_queue("Q.EXCLUSIVE", def_input_exclusive=False)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
                import time, adapter.pymqi as pymqi
                C = pymqi.CMQC
                qm = pymqi.connect({qmgr_name!r})
                q = pymqi.Queue(qm, "Q.EXCLUSIVE", C.MQOO_INPUT_EXCLUSIVE)
                print("holding", flush=True)
                time.sleep(600)
            """),
        ],
        stdout=subprocess.PIPE,
        text=True,
        env=dict(os.environ, MQK_OPEN_LEASE_MS="3000"),
    )
    try:
        assert holder.stdout.readline().strip() == "holding"
        time.sleep(4)  # past one lease: the live holder renews it
        with pytest.raises(pymqi.MQMIError) as exc:
            _open_shared(qmgr, "Q.EXCLUSIVE")
        assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_OBJECT_IN_USE)
        holder.send_signal(signal.SIGKILL)
        holder.wait(30)
        killed_at = time.monotonic()
        while True:
            try:
                q = _open_shared(qmgr, "Q.EXCLUSIVE")
                break
            except pymqi.MQMIError as err:
                assert err.reason == C.MQRC_OBJECT_IN_USE
                assert time.monotonic() - killed_at < 15, "the lease never ran out"
                time.sleep(0.2)
        assert qmgr.queue_status("Q.EXCLUSIVE")["open_input_count"] == 1
        q.close()
    finally:
        if holder.poll() is None:
            holder.kill()


def test_pass_all_context_on_the_real_stack(qmgr) -> None:
    qmgr.define_queue("Q.REQ")
    qmgr.define_queue("Q.FWD")
    src = pymqi.Queue(qmgr, "Q.REQ", C.MQOO_OUTPUT | C.MQOO_SET_ALL_CONTEXT)
    sent = pymqi.MD(UserIdentifier=b"alice", PutApplName=b"billing", ApplIdentityData=b"id")
    src.put(b"request", sent, pymqi.PMO(Options=C.MQPMO_SET_ALL_CONTEXT))
    inq = pymqi.Queue(qmgr, "Q.REQ", C.MQOO_INPUT_SHARED | C.MQOO_SAVE_ALL_CONTEXT)
    assert inq.get() == b"request"
    fwd = pymqi.Queue(qmgr, "Q.FWD", C.MQOO_OUTPUT | C.MQOO_PASS_ALL_CONTEXT)
    pmo = pymqi.PMO(Options=C.MQPMO_PASS_ALL_CONTEXT)
    pmo.Context = inq.get_handle()
    fwd.put(b"forwarded", pymqi.MD(), pmo)
    md = pymqi.MD()
    assert pymqi.Queue(qmgr, "Q.FWD", C.MQOO_INPUT_SHARED).get(None, md) == b"forwarded"
    assert (md.UserIdentifier.strip(), md.PutApplName.strip()) == (b"alice", b"billing")
    assert (md.PutDate, md.PutTime) == (sent.PutDate, sent.PutTime)
