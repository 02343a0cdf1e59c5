"""DISPLAY CHSTATUS(x) SAVED on the in-memory backends: the common status only, and
none before the channel moved its first batch (IBM: "saved status does not apply until
at least one batch of messages has been transmitted on the channel")."""

from __future__ import annotations

import pytest

import adapter.pymqi as pymqi
from tests.channelkit import CHANNEL, Pair, put_remote, setup_pair
from tests.unit.test_channels_memory import run_mqsc


@pytest.fixture
def pair(world) -> Pair:
    a, b = pymqi.connect("QMA"), pymqi.connect("QMB")
    yield setup_pair(a, b, "QMA", "QMB", batch_size=50)
    for qm in (a, b):
        if qm.is_connected:
            qm.disconnect()


def test_no_saved_status_before_the_first_batch(pair: Pair) -> None:
    agent = pair.agent()  # bound, RUNNING: current status, nothing saved yet
    rc, current = run_mqsc(pair.a, "QMA", f"DISPLAY CHSTATUS({CHANNEL})\n")
    assert rc == 0 and "STATUS(RUNNING)" in current
    rc, out = run_mqsc(pair.a, "QMA", f"DISPLAY CHSTATUS({CHANNEL}) SAVED\n")
    assert rc != 0 and "AMQ8420I: Channel Status not found." in out
    agent.close()


def test_saved_status_shows_the_common_fields_after_three_batches(pair: Pair) -> None:
    put_remote(pair.a, [b"s%03d" % i for i in range(120)])
    agent = pair.agent()
    while agent.step(0):
        pass
    luwid = agent.status.last_luwid
    agent.close()
    rc, out = run_mqsc(pair.a, "QMA", f"DISPLAY CHSTATUS({CHANNEL}) SAVED ALL\n")
    assert rc == 0 and "AMQ8417I: Display Channel Status details." in out
    for item in (f"CHANNEL({CHANNEL})", "CHLTYPE(SDR)", "LSTSEQNO(120)", "CURSEQNO(120)",
                 f"LSTLUWID({luwid})", f"CURLUWID({luwid})", "INDOUBT(NO)", "CURMSGS(0)",
                 "STATUS(STOPPED)", "XMITQ(QMB)"):  # fmt: skip
        assert item in out, (item, out)
    for current_only in ("BATCHES", " MSGS(", "NPMSPEED", "RQMNAME", "CURRENT", "STOPREQ"):
        assert current_only not in out, (current_only, out)
    rc, out = run_mqsc(pair.b, "QMB", f"DISPLAY CHSTATUS({CHANNEL}) SAVED LSTSEQNO BATCHES\n")
    assert "CHLTYPE(RCVR)" in out and "LSTSEQNO(120)" in out and "BATCHES" not in out
    rc, out = run_mqsc(pair.a, "QMA", f"DISPLAY CHSTATUS({CHANNEL}) CURRENT SAVED\n")
    assert rc != 0
