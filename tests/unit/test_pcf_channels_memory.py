"""The PCF channel commands (adapter/tools/pcfchannel.py) through pymqi.PCFExecute on the
in-memory backends: CREATE / CHANGE / DELETE / INQUIRE_CHANNEL (and _NAMES) with MQ's
parameter ids and reason codes, INQUIRE_CHANNEL_STATUS (current and saved) after a
channel moved messages, START / STOP / RESET / RESOLVE_CHANNEL, and agreement with
DISPLAY CHANNEL / CHSTATUS."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import adapter.pymqi as pymqi
from adapter.channel import status as S
from adapter.channel.agent import channels
from adapter.channel.syncq import SENDER, SyncQueue
from adapter.core import cmqxc as X
from adapter.pymqi import pcfserver
from adapter.tools import mqsc, pcfchannel
from tests.channelkit import CHANNEL, Pair, put_remote, setup_pair
from tests.unit.test_channels_memory import _crash_after_receiver_commit

C, F = pymqi.CMQC, pymqi.CMQCFC
SDR, RCVR = X.MQCHT_SENDER, X.MQCHT_RECEIVER


@pytest.fixture(autouse=True)
def registered(monkeypatch):
    monkeypatch.setattr(pcfserver, "EXTENSIONS", {})
    pcfchannel.register()


@pytest.fixture
def pcf(qmgr):
    p = pymqi.PCFExecute(qmgr)
    yield p
    p.disconnect()


@pytest.fixture
def pair(world) -> Pair:
    a, b = pymqi.connect("QMA"), pymqi.connect("QMB")
    yield setup_pair(a, b, "QMA", "QMB", batch_size=50)
    for qm in (a, b):
        if qm.is_connected:
            qm.disconnect()


def reason_of(call, *args) -> int:
    with pytest.raises(pymqi.MQMIError) as info:
        call(*args)
    assert info.value.comp == C.MQCC_FAILED
    return info.value.reason


def sender(pcf, name: str = "TO.QMB", more: dict | None = None) -> None:
    pcf.MQCMD_CREATE_CHANNEL({
        F.MQCACH_CHANNEL_NAME: name, F.MQIACH_CHANNEL_TYPE: SDR,
        F.MQCACH_XMIT_Q_NAME: "QMB", F.MQCACH_CONNECTION_NAME: "host1(9092),host2(9093)",
        F.MQIACH_XMIT_PROTOCOL_TYPE: X.MQXPT_TCP, **(more or {}),
    })  # fmt: skip


def test_create_and_inquire_a_sender_and_a_receiver(pcf, qmgr) -> None:
    sender(pcf, "TO.QMB", {F.MQIACH_BATCH_SIZE: 20, F.MQCACH_DESC: "to B"})
    pcf.MQCMD_CREATE_CHANNEL({F.MQCACH_CHANNEL_NAME: "FROM.QMB", F.MQIACH_CHANNEL_TYPE: RCVR,
                              F.MQIACH_NPM_SPEED: X.MQNPMS_NORMAL})  # fmt: skip
    [sdr] = pcf.MQCMD_INQUIRE_CHANNEL({F.MQCACH_CHANNEL_NAME: "TO.QMB"})
    assert sdr[F.MQCACH_CHANNEL_NAME] == b"TO.QMB".ljust(20)
    assert sdr[F.MQIACH_CHANNEL_TYPE] == SDR and sdr[F.MQIACH_XMIT_PROTOCOL_TYPE] == X.MQXPT_TCP
    assert sdr[F.MQCACH_XMIT_Q_NAME] == b"QMB".ljust(48)
    assert sdr[F.MQCACH_CONNECTION_NAME].rstrip() == b"host1(9092),host2(9093)"
    assert len(sdr[F.MQCACH_CONNECTION_NAME]) == 264 and sdr[F.MQCACH_DESC].rstrip() == b"to B"
    assert (sdr[F.MQIACH_BATCH_SIZE], sdr[F.MQIACH_BATCH_INTERVAL]) == (20, 0)
    assert (sdr[F.MQIACH_BATCH_DATA_LIMIT], sdr[F.MQIACH_NPM_SPEED]) == (5000, X.MQNPMS_FAST)
    both = pcf.MQCMD_INQUIRE_CHANNEL({F.MQCACH_CHANNEL_NAME: "*"})
    assert [r[F.MQCACH_CHANNEL_NAME].rstrip() for r in both] == [b"FROM.QMB", b"TO.QMB"]
    rcvr = both[0]
    assert rcvr[F.MQIACH_NPM_SPEED] == X.MQNPMS_NORMAL and F.MQCACH_XMIT_Q_NAME not in rcvr
    only = pcf.MQCMD_INQUIRE_CHANNEL({F.MQCACH_CHANNEL_NAME: "*", F.MQIACH_CHANNEL_TYPE: RCVR,
                                      F.MQIACF_CHANNEL_ATTRS: [F.MQIACH_BATCH_SIZE]})  # fmt: skip
    assert only == [{F.MQCACH_CHANNEL_NAME: b"FROM.QMB".ljust(20), F.MQIACH_CHANNEL_TYPE: RCVR,
                     F.MQIACH_BATCH_SIZE: 50}]  # fmt: skip
    [names] = pcf.MQCMD_INQUIRE_CHANNEL_NAMES({F.MQCACH_CHANNEL_NAME: "*"})
    assert [n.rstrip() for n in names[F.MQCACH_CHANNEL_NAMES]] == [b"FROM.QMB", b"TO.QMB"]
    assert names[F.MQIACH_CHANNEL_TYPES] == [RCVR, SDR]
    # The same definition as MQSC shows it.
    out: list[str] = []
    mqsc.run(qmgr, "QM1", ["DISPLAY CHANNEL(TO.QMB) BATCHSZ"], out.append, echo=False)
    assert "BATCHSZ(20)" in "\n".join(out)


def test_create_change_delete_refuse_what_mq_refuses(pcf) -> None:
    sender(pcf)
    assert reason_of(sender, pcf) == F.MQRCCF_OBJECT_ALREADY_EXISTS
    sender(pcf, "TO.QMB", {F.MQIACF_REPLACE: F.MQRP_YES, F.MQIACH_BATCH_SIZE: 7})
    [got] = pcf.MQCMD_INQUIRE_CHANNEL({F.MQCACH_CHANNEL_NAME: "TO.QMB"})
    assert got[F.MQIACH_BATCH_SIZE] == 7
    assert reason_of(sender, pcf, "X", {F.MQIACH_BATCH_SIZE: 10_000}) == (F.MQRCCF_BATCH_SIZE_ERROR)
    assert reason_of(sender, pcf, "X", {F.MQIACH_CHANNEL_TYPE: X.MQCHT_SERVER}) == (
        F.MQRCCF_CHANNEL_TYPE_ERROR
    )
    assert reason_of(sender, pcf, "X", {F.MQIACH_XMIT_PROTOCOL_TYPE: X.MQXPT_LU62}) == (
        F.MQRCCF_XMIT_PROTOCOL_TYPE_ERR
    )
    assert reason_of(sender, pcf, "X" * 21) == F.MQRCCF_CHANNEL_NAME_ERROR
    receiver_with_xmitq = {F.MQCACH_CHANNEL_NAME: "R", F.MQIACH_CHANNEL_TYPE: RCVR,
                           F.MQCACH_XMIT_Q_NAME: "QMB"}  # fmt: skip
    assert reason_of(pcf.MQCMD_CREATE_CHANNEL, receiver_with_xmitq) == (
        F.MQRCCF_XMIT_Q_NAME_WRONG_TYPE
    )
    for parameter, value, reason in (
        (F.MQIACH_BATCH_INTERVAL, 5, F.MQRCCF_BATCH_INT_WRONG_TYPE),
        (F.MQCACH_CONNECTION_NAME, "h(1)", F.MQRCCF_WRONG_CHANNEL_TYPE),
        (F.MQIACH_BATCH_DATA_LIMIT, 9, F.MQRCCF_WRONG_CHANNEL_TYPE),
    ):
        rcvr = {F.MQCACH_CHANNEL_NAME: "R", F.MQIACH_CHANNEL_TYPE: RCVR, parameter: value}
        assert reason_of(pcf.MQCMD_CREATE_CHANNEL, rcvr) == reason
    missing_type = {F.MQCACH_CHANNEL_NAME: "R"}
    assert reason_of(pcf.MQCMD_CREATE_CHANNEL, missing_type) == F.MQRCCF_PARM_COUNT_TOO_SMALL
    change = {F.MQCACH_CHANNEL_NAME: "TO.QMB", F.MQIACH_CHANNEL_TYPE: SDR,
              F.MQIACH_NPM_SPEED: X.MQNPMS_NORMAL}  # fmt: skip
    pcf.MQCMD_CHANGE_CHANNEL(change)
    [got] = pcf.MQCMD_INQUIRE_CHANNEL({F.MQCACH_CHANNEL_NAME: "TO.QMB"})
    assert got[F.MQIACH_NPM_SPEED] == X.MQNPMS_NORMAL and got[F.MQIACH_BATCH_SIZE] == 7
    wrong = {**change, F.MQIACH_CHANNEL_TYPE: RCVR}
    assert reason_of(pcf.MQCMD_CHANGE_CHANNEL, wrong) == F.MQRCCF_OBJECT_WRONG_TYPE
    nosuch = {F.MQCACH_CHANNEL_NAME: "NOSUCH", F.MQIACH_CHANNEL_TYPE: SDR}
    assert reason_of(pcf.MQCMD_CHANGE_CHANNEL, nosuch) == F.MQRCCF_CHANNEL_NOT_FOUND
    pcf.MQCMD_DELETE_CHANNEL({F.MQCACH_CHANNEL_NAME: "TO.QMB"})
    for call in (pcf.MQCMD_DELETE_CHANNEL, pcf.MQCMD_INQUIRE_CHANNEL):
        assert reason_of(call, {F.MQCACH_CHANNEL_NAME: "TO.QMB"}) == F.MQRCCF_CHANNEL_NOT_FOUND
    [names] = pcf.MQCMD_INQUIRE_CHANNEL_NAMES({F.MQCACH_CHANNEL_NAME: "TO.*"})
    assert names[F.MQCACH_CHANNEL_NAMES] == []


def test_a_parameter_the_command_does_not_take_is_refused(pcf) -> None:
    sender(pcf)
    extra = {F.MQCACH_CHANNEL_NAME: "TO.QMB", F.MQIACH_BATCH_SIZE: 5}
    assert reason_of(pcf.MQCMD_DELETE_CHANNEL, extra) == F.MQRCCF_CFIN_PARM_ID_ERROR
    unknown_attr = {F.MQCACH_CHANNEL_NAME: "TO.QMB", F.MQIACF_CHANNEL_ATTRS: [F.MQIACH_MSGS]}
    assert reason_of(pcf.MQCMD_INQUIRE_CHANNEL, unknown_attr) == F.MQRCCF_CFIL_PARM_ID_ERROR


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    size=st.integers(1, 9999),
    interval=st.integers(0, 999_999_999),
    limit=st.integers(0, 999_999),
    desc=st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=64).map(str.strip),
)
def test_what_create_stores_inquire_answers(pcf, size, interval, limit, desc) -> None:
    sender(pcf, "TO.QMB", {F.MQIACF_REPLACE: F.MQRP_YES, F.MQIACH_BATCH_SIZE: size,
                   F.MQIACH_BATCH_INTERVAL: interval, F.MQIACH_BATCH_DATA_LIMIT: limit,
                   F.MQCACH_DESC: desc})  # fmt: skip
    [got] = pcf.MQCMD_INQUIRE_CHANNEL({F.MQCACH_CHANNEL_NAME: "TO.QMB"})
    assert (got[F.MQIACH_BATCH_SIZE], got[F.MQIACH_BATCH_INTERVAL]) == (size, interval)
    assert got[F.MQIACH_BATCH_DATA_LIMIT] == limit
    assert got[F.MQCACH_DESC] == desc.encode().ljust(64)


def test_inquire_channel_status_after_120_messages(pair: Pair) -> None:
    pcf = pymqi.PCFExecute(pair.a)
    name = {F.MQCACH_CHANNEL_NAME: CHANNEL}
    assert reason_of(pcf.MQCMD_INQUIRE_CHANNEL_STATUS, name) == F.MQRCCF_CHL_STATUS_NOT_FOUND
    put_remote(pair.a, [b"m%03d" % i for i in range(120)])
    agent = pair.agent()
    while agent.step(0):
        pass
    [st] = pcf.MQCMD_INQUIRE_CHANNEL_STATUS(name)
    assert st[F.MQCACH_CHANNEL_NAME] == CHANNEL.encode().ljust(20)
    assert st[F.MQIACH_CHANNEL_INSTANCE_TYPE] == C.MQOT_CURRENT_CHANNEL
    assert st[F.MQIACH_CHANNEL_STATUS] == F.MQCHS_RUNNING and st[F.MQIACH_CHANNEL_TYPE] == SDR
    assert st[F.MQCACH_XMIT_Q_NAME].rstrip() == b"QMB"
    assert st[C.MQCA_REMOTE_Q_MGR_NAME].rstrip() == b"QMB"
    assert st[F.MQIACH_STOP_REQUESTED] == F.MQCHSR_STOP_NOT_REQUESTED
    assert (st[F.MQIACH_BATCHES], st[F.MQIACH_MSGS], st[F.MQIACH_LAST_SEQ_NUMBER]) == (3, 120, 120)
    assert st[F.MQIACH_CURRENT_SEQ_NUMBER] == 120 and st[F.MQIACH_BATCH_SIZE] == 50
    assert st[F.MQIACH_INDOUBT_STATUS] == F.MQCHIDS_NOT_INDOUBT
    assert st[F.MQCACH_LAST_LUWID].decode() == agent.status.last_luwid
    assert st[F.MQIACH_NPM_SPEED] == X.MQNPMS_FAST
    [brief] = pcf.MQCMD_INQUIRE_CHANNEL_STATUS(
        {**name, F.MQIACH_CHANNEL_INSTANCE_ATTRS: [F.MQIACH_MSGS]}
    )
    assert brief[F.MQIACH_MSGS] == 120 and F.MQIACH_BATCHES not in brief
    assert F.MQIACH_CHANNEL_STATUS in brief  # always returned
    [saved] = pcf.MQCMD_INQUIRE_CHANNEL_STATUS(
        {**name, F.MQIACH_CHANNEL_INSTANCE_TYPE: C.MQOT_SAVED_CHANNEL}
    )
    assert saved[F.MQIACH_CHANNEL_INSTANCE_TYPE] == C.MQOT_SAVED_CHANNEL
    assert saved[F.MQIACH_LAST_SEQ_NUMBER] == 120
    # The receiving end's status, at QMB.
    [far] = pymqi.PCFExecute(pair.b).MQCMD_INQUIRE_CHANNEL_STATUS(name)
    assert far[F.MQIACH_CHANNEL_TYPE] == RCVR and far[F.MQIACH_LAST_SEQ_NUMBER] == 120
    assert far[F.MQCACH_XMIT_Q_NAME] == b" " * 48
    agent.close()
    [stopped] = pcf.MQCMD_INQUIRE_CHANNEL_STATUS(name)
    assert stopped[F.MQIACH_CHANNEL_STATUS] == F.MQCHS_STOPPED


def test_reset_resolve_and_stop(pair: Pair) -> None:
    pcf = pymqi.PCFExecute(pair.a)
    name = {F.MQCACH_CHANNEL_NAME: CHANNEL}
    assert reason_of(pcf.MQCMD_STOP_CHANNEL, name) == F.MQRCCF_CHANNEL_NOT_ACTIVE
    pcf.MQCMD_RESET_CHANNEL({**name, F.MQIACH_MSG_SEQUENCE_NUMBER: 42})
    rec = SyncQueue(pair.a, SENDER, CHANNEL).read()
    assert rec.seq == 41 and rec.reset  # the next message sent is number 42
    bad = {**name, F.MQIACH_MSG_SEQUENCE_NUMBER: 0}
    assert reason_of(pcf.MQCMD_RESET_CHANNEL, bad) == F.MQRCCF_MSG_SEQ_NUMBER_ERROR
    put_remote(pair.a, [b"x"])
    agent = pair.agent()
    agent.step(0)
    assert agent.status.last_seq == 42
    assert reason_of(pcf.MQCMD_RESET_CHANNEL, name) == F.MQRCCF_CHANNEL_IN_USE
    commit = {**name, F.MQIACH_IN_DOUBT: F.MQIDO_COMMIT}
    assert reason_of(pcf.MQCMD_RESOLVE_CHANNEL, commit) == F.MQRCCF_CHANNEL_IN_USE
    agent.close()
    pcf.MQCMD_RESOLVE_CHANNEL(commit)  # nothing in doubt: accepted, nothing done
    odd = {**name, F.MQIACH_IN_DOUBT: 7}
    assert reason_of(pcf.MQCMD_RESOLVE_CHANNEL, odd) == F.MQRCCF_INDOUBT_VALUE_ERROR
    at_b = pymqi.PCFExecute(pair.b)
    assert reason_of(at_b.MQCMD_RESOLVE_CHANNEL, commit) == F.MQRCCF_CHANNEL_TYPE_ERROR
    st = S.read(pair.a.get_handle().store, CHANNEL)
    assert st is not None and st.status == S.STOPPED and not st.indoubt


def test_resolve_commit_settles_an_in_doubt_batch(pair: Pair) -> None:
    """The receiver committed, the sender did not (killed between the two commits): PCF
    RESOLVE_CHANNEL MQIDO_COMMIT takes the batch off the transmission queue."""
    put_remote(pair.a, [b"a", b"b"])
    agent = pair.agent()
    _crash_after_receiver_commit(pair, agent)
    st = S.read(pair.a.get_handle().store, CHANNEL)
    assert st is not None and st.indoubt
    S.write(pair.a.get_handle().store, S.ChannelStatus(**{**st.__dict__, "pid": 0}))  # gone
    pcf = pymqi.PCFExecute(pair.a)
    [before] = pcf.MQCMD_INQUIRE_CHANNEL_STATUS({F.MQCACH_CHANNEL_NAME: CHANNEL})
    assert before[F.MQIACH_INDOUBT_STATUS] == F.MQCHIDS_INDOUBT
    assert before[F.MQIACH_CURRENT_MSGS] == 2
    pcf.MQCMD_RESOLVE_CHANNEL({F.MQCACH_CHANNEL_NAME: CHANNEL, F.MQIACH_IN_DOUBT: F.MQIDO_COMMIT})
    assert pair.a.queue_status("QMB")["current_depth"] == 0
    assert pair.b.queue_status("ORDERS")["current_depth"] == 2  # once, at the receiver
    [after] = pcf.MQCMD_INQUIRE_CHANNEL_STATUS({F.MQCACH_CHANNEL_NAME: CHANNEL})
    assert after[F.MQIACH_INDOUBT_STATUS] == F.MQCHIDS_NOT_INDOUBT
    assert after[F.MQIACH_LAST_SEQ_NUMBER] == 2


def test_start_channel_of_a_missing_channel_and_without_the_hook(pcf) -> None:
    name = {F.MQCACH_CHANNEL_NAME: "NOSUCH"}
    assert reason_of(pcf.MQCMD_START_CHANNEL, name) == F.MQRCCF_CHANNEL_NOT_FOUND
    pcfserver.EXTENSIONS.clear()  # not registered: as before the channel commands existed
    assert reason_of(pcf.MQCMD_START_CHANNEL, name) == F.MQRCCF_CFH_COMMAND_ERROR
    assert channels  # the catalog is untouched by either
