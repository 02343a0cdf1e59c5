"""Message channels on the in-memory backends: SDR / RCVR definitions and their MQSC,
the agent's batches (BATCHSZ, LUWIDs, sequence numbers counted as MQ counts them), the
sync records compared at start (in-doubt batch committed, sequence-number mismatch,
RESET / RESOLVE CHANNEL), NPMSPEED(FAST) overtaking, the dead-letter queue with an
MQDLH, and what survives the hop (MsgId, CorrelId, context, expiry, groups)."""

from __future__ import annotations

import pytest

import adapter.pymqi as pymqi
from adapter.channel import control
from adapter.channel import status as S
from adapter.channel.agent import ChannelError, channels, run_channel
from adapter.channel.syncq import RECEIVER, SENDER, SyncQueue
from adapter.core import cmqxc as X
from adapter.core import dlh
from adapter.tools import mqsc
from tests.channelkit import (
    CHANNEL,
    Pair,
    commit_failing,
    depth,
    put_remote,
    read_all,
    setup_pair,
)

C = pymqi.CMQC


@pytest.fixture
def pair(world) -> Pair:
    a, b = pymqi.connect("QMA"), pymqi.connect("QMB")
    yield setup_pair(a, b, "QMA", "QMB", batch_size=50)
    for qm in (a, b):
        if qm.is_connected:
            qm.disconnect()


def run_mqsc(qm, name: str, text: str) -> tuple[int, str]:
    out: list[str] = []
    rc = mqsc.run(qm, name, text.splitlines(), out.append, echo=False)
    return rc, "\n".join(out)


def drain_channel(agent) -> int:
    moved = 0
    while n := agent.step(0):
        moved += n
    return moved


# -- definitions ------------------------------------------------------------------------
def test_define_channel_takes_ibm_defaults_and_refuses_what_mq_refuses(world) -> None:
    qm = pymqi.connect("QMA")
    rc, out = run_mqsc(
        qm,
        "QMA",
        "DEFINE CHANNEL(QMA.QMB) CHLTYPE(SDR) TRPTYPE(TCP) XMITQ(QMB) +\n"
        "       CONNAME('h1(9092),h2(9093)')\n"
        "DISPLAY CHANNEL(QMA.QMB)\n"
        "DEFINE CHANNEL(QMA.QMB) CHLTYPE(SDR) XMITQ(QMB)\n"
        "DEFINE CHANNEL(QMA.QMB) CHLTYPE(RCVR) REPLACE\n"
        "DEFINE CHANNEL(X1) CHLTYPE(SDR) XMITQ(QMB) BATCHSZ(10000)\n"
        "DEFINE CHANNEL(X2) CHLTYPE(RCVR) XMITQ(QMB)\n"
        "DEFINE CHANNEL(X3) CHLTYPE(SDR)\n"
        "DEFINE CHANNEL(FROM.QMB) CHLTYPE(RCVR) BATCHSZ(20) NPMSPEED(NORMAL)\n"
        "DISPLAY CHANNEL(*) CHLTYPE(RCVR) ALL\n",
    )
    assert rc == 10
    assert out.count("AMQ8014I: IBM MQ channel created.") == 2
    assert "AMQ8414I: Display Channel details." in out
    for item in ("CHLTYPE(SDR)", "BATCHSZ(50)", "BATCHINT(0)", "BATCHLIM(5000)",
                 "NPMSPEED(FAST)", "XMITQ(QMB)", "CONNAME(h1(9092),h2(9093))"):  # fmt: skip
        assert item in out, item
    assert "AMQ8150E: IBM MQ object already exists." in out
    assert "AMQ8151E: IBM MQ object has different type." in out
    assert "mqk: BATCHSZ must be 1-9999." in out
    assert "receiver channel does not have" in out and "XMITQ is required" in out
    rcvr = out.split("AMQ8414I")[-1]
    assert "CHANNEL(FROM.QMB)" in rcvr and "BATCHSZ(20)" in rcvr and "NPMSPEED(NORMAL)" in rcvr
    assert "XMITQ" not in rcvr and "CHANNEL(QMA.QMB)" not in rcvr
    cdef = channels(qm).lookup("QMA.QMB")
    assert cdef is not None and cdef.batch_size == 50 and cdef.npm_speed == X.MQNPMS_FAST


def test_alter_and_delete_channel(world) -> None:
    qm = pymqi.connect("QMA")
    rc, out = run_mqsc(
        qm,
        "QMA",
        "DEFINE CHANNEL(C1) CHLTYPE(SDR) XMITQ(QMB)\n"
        "ALTER CHANNEL(C1) CHLTYPE(SDR) BATCHSZ(7) DESCR('to B')\n"
        "ALTER CHANNEL(C1) CHLTYPE(RCVR) BATCHSZ(7)\n"
        "DISPLAY CHANNEL(C1) BATCHSZ DESCR\n"
        "DELETE CHANNEL(C1)\n"
        "DISPLAY CHANNEL(C1)\n"
        "DELETE CHANNEL(C1)\n",
    )
    assert "AMQ8016I: IBM MQ channel changed." in out
    assert "AMQ8151E: IBM MQ object has different type." in out
    assert "BATCHSZ(7)" in out and "DESCR(to B)" in out and "XMITQ" not in out
    assert "AMQ8015I: IBM MQ channel deleted." in out
    assert out.count("AMQ8147E: IBM MQ object C1 not found.") == 2
    assert channels(qm).lookup("C1") is None and rc == 10


def test_a_channel_name_cannot_clash_with_a_queue_name(world) -> None:
    qm = pymqi.connect("QMA")
    qm.define_queue("SAME")
    rc, out = run_mqsc(qm, "QMA", "DEFINE CHANNEL(SAME) CHLTYPE(SDR) XMITQ(SAME)\n")
    assert rc == 0 and qm.queue_status("SAME")["attributes"]["queue_type"] == C.MQQT_LOCAL
    assert channels(qm).names() == ["SAME"] and "SAME" in qm.get_handle().catalog.names()


# -- batches, sequence numbers, status ---------------------------------------------------
def test_120_messages_with_batchsz_50_make_three_batches(pair: Pair) -> None:
    put_remote(pair.a, [b"m%03d" % i for i in range(120)])
    assert depth(pair.a, "QMB") == 120  # the channel is not running: they wait
    agent = pair.agent()
    luwids = []
    while agent.step(0):
        luwids.append(agent.status.last_luwid)
    assert len(luwids) == 3 and len(set(luwids)) == 3
    got = [data for data, _ in read_all(pair.b, "ORDERS")]
    assert got == [b"m%03d" % i for i in range(120)]
    assert depth(pair.a, "QMB") == 0
    st = S.read(pair.a.get_handle().store, CHANNEL)
    assert st is not None
    assert (st.batches, st.msgs, st.last_seq, st.cur_seq) == (3, 120, 120, 120)
    assert st.last_luwid == luwids[-1] and not st.indoubt and st.status == S.RUNNING
    rc, out = run_mqsc(pair.a, "QMA", f"DISPLAY CHSTATUS({CHANNEL}) ALL\n")
    assert rc == 0 and "AMQ8417I: Display Channel Status details." in out
    for item in ("CHLTYPE(SDR)", "STATUS(RUNNING)", "BATCHES(3)", "MSGS(120)", "LSTSEQNO(120)",
                 "CURSEQNO(120)", f"LSTLUWID({luwids[-1]})", "INDOUBT(NO)", "BATCHSZ(50)",
                 "NPMSPEED(FAST)", "XMITQ(QMB)", "RQMNAME(QMB)"):  # fmt: skip
        assert item in out, item
    rc, out = run_mqsc(pair.b, "QMB", f"DISPLAY CHSTATUS({CHANNEL}) ALL\n")
    assert "CHLTYPE(RCVR)" in out and "LSTSEQNO(120)" in out and "XMITQ" not in out
    # Both ends' sync records name the last batch.
    for qm, end in ((pair.a, SENDER), (pair.b, RECEIVER)):
        rec = SyncQueue(qm, end, CHANNEL).read()
        assert (rec.seq, rec.luwid) == (120, luwids[-1])
    agent.close()


def test_batches_follow_each_other_while_commit_markers_lag(pair: Pair, world) -> None:
    """The agent commits without waiting for its puts to become readable: with the
    broker writing each transaction's markers a few operations later, the next batch's
    sync-record get still finds the record its predecessor committed (it waits for it)
    and nothing is lost, doubled or reordered."""
    world.cluster.marker_lag = 4
    put_remote(pair.a, [b"l%03d" % i for i in range(130)])
    agent = pair.agent()
    assert drain_channel(agent) == 130
    assert agent.status.last_seq == 130 and agent.status.batches == 3
    world.cluster.marker_lag = 0
    assert [d for d, _ in read_all(pair.b, "ORDERS")] == [b"l%03d" % i for i in range(130)]
    assert depth(pair.a, "QMB") == 0
    agent.close()
    again = pair.agent()  # a restart compares the records the lagging commits wrote
    assert again.status.last_seq == 130 and drain_channel(again) == 0
    again.close()


def test_a_channel_started_again_in_process_reads_its_lagging_record(pair: Pair, world) -> None:
    """run_channel starts a new agent on the same local connection after a failure: the
    record the last batch committed (without waiting) may still be on its way; the new
    agent waits for it rather than compare the zero state (AMQ9526E)."""
    put_remote(pair.a, [b"s%02d" % i for i in range(20)])
    world.cluster.marker_lag = 50
    agent = pair.agent()
    assert drain_channel(agent) == 20
    agent.close()
    again = pair.agent()  # same local connection, its last commit's markers held back
    assert again.status.last_seq == 20 and again.status.status == S.RUNNING
    again.close()


def test_the_negotiated_batch_size_is_the_lower_of_the_two_ends(pair: Pair) -> None:
    rc, _ = run_mqsc(pair.b, "QMB", f"ALTER CHANNEL({CHANNEL}) CHLTYPE(RCVR) BATCHSZ(8)\n")
    assert rc == 0
    put_remote(pair.a, [b"x"] * 20)
    agent = pair.agent()
    sizes = []
    while n := agent.step(0):
        sizes.append(n)
    assert sizes == [8, 8, 4] and agent.status.batch_size == 8


def test_batchlim_ends_a_batch_after_the_message_that_reached_it(pair: Pair) -> None:
    run_mqsc(pair.a, "QMA", f"ALTER CHANNEL({CHANNEL}) CHLTYPE(SDR) BATCHLIM(1)\n")
    # 300 bytes + the 428 of the MQXQH: the second message of a batch passes 1 KB.
    put_remote(pair.a, [b"y" * 300] * 5)
    agent = pair.agent()
    sizes = []
    while n := agent.step(0):
        sizes.append(n)
    assert sizes == [2, 2, 1]


def test_the_message_survives_the_hop(pair: Pair) -> None:
    q = pymqi.Queue(pair.a, "R.ORDERS", C.MQOO_OUTPUT)
    md = pymqi.MD(
        Persistence=C.MQPER_PERSISTENT, Priority=7, CorrelId=b"C" * 24, Expiry=36000,
        ReplyToQ=b"REPLIES", Format=C.MQFMT_STRING, MsgType=C.MQMT_REQUEST,
        Report=C.MQRO_COA,
    )  # fmt: skip
    q.put(b"hello", md, pymqi.PMO(Options=C.MQPMO_NO_SYNCPOINT))
    agent = pair.agent()
    assert agent.step(0) == 1
    [(data, got)] = read_all(pair.b, "ORDERS")
    assert data == b"hello"
    assert (got.MsgId, got.CorrelId, got.Priority, got.Persistence) == (
        md.MsgId, b"C" * 24, 7, C.MQPER_PERSISTENT,
    )  # fmt: skip
    assert (got.PutDate, got.PutTime) == (md.PutDate, md.PutTime)
    assert got.PutApplName.rstrip() == md.PutApplName.rstrip() and got.PutApplType == md.PutApplType
    assert got.UserIdentifier.rstrip() == md.UserIdentifier.rstrip()
    assert got.AccountingToken == md.AccountingToken
    assert got.ReplyToQ.rstrip() == b"REPLIES" and got.ReplyToQMgr.rstrip() == pair.qma.encode()
    assert got.Format == C.MQFMT_STRING and got.MsgType == C.MQMT_REQUEST
    assert 0 < got.Expiry <= 36000


def _put_with_property(qm: pymqi.QueueManager, queue: str, body: bytes) -> None:
    q = pymqi.Queue(qm, queue, C.MQOO_OUTPUT)
    handle = pymqi.MessageHandle(qm)
    handle.properties.set("usr.colour", "blue")
    pmo = pymqi.PMO(Options=C.MQPMO_NO_SYNCPOINT, OriginalMsgHandle=handle.msg_handle)
    q.put(body, pymqi.MD(Persistence=C.MQPER_PERSISTENT), pmo)
    q.close()


def _get_with_properties(qm: pymqi.QueueManager, queue: str) -> tuple[bytes, str]:
    q = pymqi.Queue(qm, queue, C.MQOO_INPUT_SHARED)
    handle = pymqi.MessageHandle(qm)
    gmo = pymqi.GMO(
        Options=C.MQGMO_PROPERTIES_IN_HANDLE | C.MQGMO_NO_SYNCPOINT, MsgHandle=handle.msg_handle
    )
    data = q.get(None, pymqi.MD(), gmo)
    return data, handle.properties.get("usr.colour")


def test_message_properties_survive_the_hop(pair: Pair) -> None:
    """The MCA gets with a message handle and puts with it: the properties arrive as
    properties (left to the transmission queue's PROPCTL they came as an MQRFH2 in front
    of the MQXQH, and the channel stopped with AMQ9544E)."""
    _put_with_property(pair.a, "R.ORDERS", b"coloured")
    agent = pair.agent()
    assert agent.step(0) == 1
    assert _get_with_properties(pair.b, "ORDERS") == (b"coloured", "blue")


def test_a_dead_lettered_message_keeps_its_properties(pair: Pair) -> None:
    pair.a.define_queue(
        "R.NOWHERE",
        queue_type=C.MQQT_REMOTE,
        remote_q_name="NOWHERE",
        remote_q_mgr_name=pair.qmb,
        xmit_q_name=pair.qmb,
    )
    _put_with_property(pair.a, "R.NOWHERE", b"lost")
    agent = pair.agent()
    assert agent.step(0) == 1
    data, colour = _get_with_properties(pair.b, "DLQ")
    header, rest = dlh.unpack(data)
    assert (header.reason, rest, colour) == (C.MQRC_UNKNOWN_OBJECT_NAME, b"lost", "blue")


def test_expiry_goes_down_by_the_time_on_the_transmission_queue(pair: Pair, world) -> None:
    put_remote(pair.a, [b"e"], Expiry=600)  # 60 s
    world.clock.advance(20)  # 20 s on the transmission queue
    agent = pair.agent()
    agent.step(0)
    [(_, got)] = read_all(pair.b, "ORDERS")
    assert 380 <= got.Expiry <= 400


def test_a_group_sent_over_the_channel_is_got_in_logical_order(pair: Pair) -> None:
    q = pymqi.Queue(pair.a, "R.ORDERS", C.MQOO_OUTPUT)
    pmo = pymqi.PMO(Options=C.MQPMO_LOGICAL_ORDER | C.MQPMO_NO_SYNCPOINT)
    for i, flag in enumerate((C.MQMF_MSG_IN_GROUP,) * 2 + (C.MQMF_LAST_MSG_IN_GROUP,)):
        md = pymqi.MD(Version=C.MQMD_VERSION_2, MsgFlags=flag, Persistence=C.MQPER_PERSISTENT)
        q.put(b"part%d" % i, md, pmo)
    agent = pair.agent()
    agent.step(0)
    r = pymqi.Queue(pair.b, "ORDERS", C.MQOO_INPUT_SHARED)
    got = []
    for _ in range(3):
        md = pymqi.MD(Version=C.MQMD_VERSION_2)
        gmo = pymqi.GMO(
            Version=C.MQGMO_VERSION_2,
            Options=C.MQGMO_LOGICAL_ORDER | C.MQGMO_ALL_MSGS_AVAILABLE | C.MQGMO_NO_SYNCPOINT,
        )
        got.append((r.get(None, md, gmo), md.MsgSeqNumber, md.MsgFlags))
    assert [g[0] for g in got] == [b"part0", b"part1", b"part2"]
    assert [g[1] for g in got] == [1, 2, 3] and got[2][2] & C.MQMF_LAST_MSG_IN_GROUP


# -- start: channel not defined remotely, in doubt, mismatch, RESET, RESOLVE ------------
def test_a_channel_not_defined_remotely_retries(pair: Pair) -> None:
    channels(pair.b).delete(CHANNEL)
    with pytest.raises(ChannelError) as exc:
        pair.agent()
    assert exc.value.message.startswith("AMQ9520E: Channel not defined remotely.")
    assert exc.value.status == S.RETRYING


def _crash_after_receiver_commit(pair: Pair, agent) -> None:
    """The batch reaches the receiver and commits there; the agent dies before the
    sender's commit (its gets back out, as when a dead agent's locks run out)."""

    def die() -> None:
        raise RuntimeError("killed")

    with commit_failing(agent.local, die), pytest.raises(RuntimeError):
        agent.step(0)
    pair.a.backout()
    agent.close()


def test_an_in_doubt_batch_is_committed_at_start_not_sent_again(pair: Pair) -> None:
    put_remote(pair.a, [b"d%d" % i for i in range(30)])
    agent = pair.agent()
    _crash_after_receiver_commit(pair, agent)
    st = S.read(pair.a.get_handle().store, CHANNEL)
    assert st is not None and st.indoubt and st.cur_seq == 30 and st.last_seq == 0
    assert depth(pair.a, "QMB") == 30  # back on the transmission queue
    again = pair.agent()  # the receiver is one batch ahead: commit, do not resend
    assert depth(pair.a, "QMB") == 0 and again.status.last_seq == 30
    assert drain_channel(again) == 0
    assert [d for d, _ in read_all(pair.b, "ORDERS")] == [b"d%d" % i for i in range(30)]


def test_a_batch_that_failed_before_the_receiver_committed_is_sent_again(pair: Pair) -> None:
    put_remote(pair.a, [b"r%d" % i for i in range(10)])
    agent = pair.agent()

    def die() -> None:
        raise RuntimeError("killed")

    with commit_failing(agent.remote, die), pytest.raises(RuntimeError):
        agent.step(0)
    agent.remote.backout()
    pair.a.backout()
    agent.close()
    assert depth(pair.b, "ORDERS") == 0 and depth(pair.a, "QMB") == 10
    again = pair.agent()
    assert drain_channel(again) == 10
    assert [d for d, _ in read_all(pair.b, "ORDERS")] == [b"r%d" % i for i in range(10)]
    assert again.status.last_seq == 10


def test_a_rewound_sequence_number_stops_the_channel_until_reset(pair: Pair) -> None:
    put_remote(pair.a, [b"a%d" % i for i in range(5)])
    agent = pair.agent()
    drain_channel(agent)
    agent.close()
    # The receiving end's number is reset on its own (MQ does not reset the sender then).
    rc, out = run_mqsc(pair.b, "QMB", f"RESET CHANNEL({CHANNEL}) SEQNUM(3)\n")
    assert rc == 0 and "AMQ8023I: IBM MQ channel reset." in out
    put_remote(pair.a, [b"b%d" % i for i in range(5)])
    assert run_channel("QMA", CHANNEL, retry_s=0) == 1  # runmqchl's 20 (cli)
    st = S.read(pair.a.get_handle().store, CHANNEL)
    assert st is not None and st.status == S.STOPPED
    assert st.message.startswith(
        f"AMQ9526E: Message sequence number error for channel '{CHANNEL}'."
    )
    assert "sequence number 6 has been sent when sequence number 3 was expected" in st.message
    rc, out = run_mqsc(pair.a, "QMA", f"DISPLAY CHSTATUS({CHANNEL})\n")
    assert "STATUS(STOPPED)" in out
    assert depth(pair.a, "QMB") == 5  # nothing moved
    rc, out = run_mqsc(pair.a, "QMA", f"RESET CHANNEL({CHANNEL}) SEQNUM(100)\n")
    assert rc == 0
    again = pair.agent()  # the receiver takes the sender's number at start
    assert drain_channel(again) == 5 and again.status.last_seq == 104
    got = [d for d, _ in read_all(pair.b, "ORDERS")]
    assert got == [b"a%d" % i for i in range(5)] + [b"b%d" % i for i in range(5)]


def test_run_channel_leaves_a_mismatched_channel_stopped_with_amq9526e(pair: Pair) -> None:
    agent = pair.agent()
    agent.close()
    SyncQueue(pair.b, RECEIVER, CHANNEL).write(
        SyncQueue(pair.b, RECEIVER, CHANNEL).read().__class__(seq=42, luwid="AB" * 8)
    )
    assert run_channel("QMA", CHANNEL, retry_s=0) == 1
    rc, out = run_mqsc(pair.a, "QMA", f"DISPLAY CHSTATUS({CHANNEL})\n")
    assert "STATUS(STOPPED)" in out
    st = S.read(pair.a.get_handle().store, CHANNEL)
    assert st is not None and st.message.startswith("AMQ9526E")


@pytest.mark.parametrize("action", ["COMMIT", "BACKOUT"])
def test_resolve_channel_settles_an_in_doubt_batch(pair: Pair, action: str) -> None:
    put_remote(pair.a, [b"v%d" % i for i in range(4)])
    agent = pair.agent()
    _crash_after_receiver_commit(pair, agent)
    st = S.read(pair.a.get_handle().store, CHANNEL)
    assert st is not None
    S.write(pair.a.get_handle().store, st.__class__(**{**st.__dict__, "pid": 0}))  # agent gone
    rc, out = run_mqsc(pair.a, "QMA", f"RESOLVE CHANNEL({CHANNEL}) ACTION({action})\n")
    assert rc == 0, out
    st = S.read(pair.a.get_handle().store, CHANNEL)
    assert st is not None and not st.indoubt
    if action == "COMMIT":  # the receiver had them: nothing lost, nothing twice
        assert depth(pair.a, "QMB") == 0
        again = pair.agent()
        assert again.status.last_seq == 4 and drain_channel(again) == 0
        assert len(read_all(pair.b, "ORDERS")) == 4
    else:  # BACKOUT against a receiver that committed: sent twice, as IBM warns
        assert depth(pair.a, "QMB") == 4
        again = pair.agent()
        assert drain_channel(again) == 4
        assert len(read_all(pair.b, "ORDERS")) == 8


def test_reset_and_resolve_are_refused_while_the_channel_runs(pair: Pair) -> None:
    agent = pair.agent()  # RUNNING with this process's pid
    rc, out = run_mqsc(
        pair.a, "QMA", f"RESET CHANNEL({CHANNEL})\nRESOLVE CHANNEL({CHANNEL}) ACTION(COMMIT)\n"
    )
    assert out.count(f"AMQ9514E: Channel '{CHANNEL}' is in use.") == 2
    agent.close()
    rc, out = run_mqsc(pair.a, "QMA", f"STOP CHANNEL({CHANNEL})\n")  # now STOPPED
    assert rc == 10 and f"AMQ9533E: Channel '{CHANNEL}' is not currently active." in out
    with pytest.raises(control.ControlError):
        control.resolve_channel(pair.b, CHANNEL, True)  # a receiver has nothing to resolve


# -- NPMSPEED -----------------------------------------------------------------------------
def _mixed(pair: Pair) -> None:
    for i in range(3):
        put_remote(pair.a, [b"P%d" % i], persistent=True)
        put_remote(pair.a, [b"N%d" % i], persistent=False)


def test_fast_nonpersistent_messages_overtake_persistent_ones(pair: Pair) -> None:
    _mixed(pair)
    agent = pair.agent()
    assert agent.step(0) == 6
    got = [d for d, _ in read_all(pair.b, "ORDERS")]
    assert got == [b"N0", b"N1", b"N2", b"P0", b"P1", b"P2"]
    assert agent.status.last_seq == 6  # every message sent has its sequence number


def test_fast_nonpersistent_messages_are_visible_before_the_batch_commits(pair: Pair) -> None:
    _mixed(pair)
    agent = pair.agent()
    seen: list[int] = []

    def watch() -> None:
        seen.append(depth(pair.b, "ORDERS"))
        raise RuntimeError("the channel fails before the batch ends")

    with commit_failing(agent.remote, watch), pytest.raises(RuntimeError):
        agent.step(0)
    assert seen == [3]  # the three non-persistent ones, at once
    agent.remote.backout()  # as a failed MQCMIT leaves it
    # They are not on the transmission queue any more (not sent twice); the persistent
    # ones are back there.
    assert [d for d, _ in read_all(pair.b, "ORDERS")] == [b"N0", b"N1", b"N2"]
    assert depth(pair.a, "QMB") == 3


def test_normal_speed_keeps_every_message_in_the_batch(pair: Pair) -> None:
    for qm, ctype in ((pair.a, "SDR"), (pair.b, "RCVR")):
        run_mqsc(qm, qm.get_name(), f"ALTER CHANNEL({CHANNEL}) CHLTYPE({ctype}) NPMSPEED(NORMAL)\n")
    _mixed(pair)
    agent = pair.agent()
    assert agent.status.npm_speed == "NORMAL"
    agent.step(0)
    assert [d for d, _ in read_all(pair.b, "ORDERS")] == [b"P0", b"N0", b"P1", b"N1", b"P2", b"N2"]


def test_either_end_normal_makes_the_channel_normal(pair: Pair) -> None:
    run_mqsc(pair.b, "QMB", f"ALTER CHANNEL({CHANNEL}) CHLTYPE(RCVR) NPMSPEED(NORMAL)\n")
    _mixed(pair)
    agent = pair.agent()
    seen: list[int] = []

    def watch(*args, **kw) -> None:
        seen.append(depth(pair.b, "ORDERS"))
        raise RuntimeError("fails")

    agent.rsync.replace = watch
    with pytest.raises(RuntimeError):
        agent.step(0)
    assert seen == [0] and depth(pair.a, "QMB") == 6


# -- undeliverable --------------------------------------------------------------------------
def _put_to(pair: Pair, queue: str, body: bytes) -> bytes:
    od = pymqi.OD(Version=C.MQOD_VERSION_3, ObjectName=queue.encode(), ObjectQMgrName=b"QMB")
    md = pymqi.MD(Persistence=C.MQPER_PERSISTENT, Format=C.MQFMT_STRING)
    pymqi.Queue(pair.a, od, C.MQOO_OUTPUT).put(body, md, pymqi.PMO(Options=C.MQPMO_NO_SYNCPOINT))
    return md.MsgId


@pytest.mark.parametrize(
    ("prepare", "reason"),
    [
        (lambda b: None, C.MQRC_UNKNOWN_OBJECT_NAME),
        (lambda b: b.define_queue("TARGET", put_inhibited=True), C.MQRC_PUT_INHIBITED),
        (lambda b: b.define_queue("TARGET", max_depth=0), C.MQRC_Q_FULL),
    ],
)
def test_an_undeliverable_message_goes_to_the_dlq_with_an_mqdlh(
    pair: Pair, prepare, reason
) -> None:
    prepare(pair.b)
    msgid = _put_to(pair, "TARGET", b"lost?")
    _put_to(pair, "ORDERS", b"fine")
    agent = pair.agent()
    assert agent.step(0) == 2  # the channel keeps running
    [(data, md)] = read_all(pair.b, "DLQ")
    header, rest = dlh.unpack(data)
    assert header.reason == reason and rest == b"lost?"
    assert header.dest_q_name.rstrip() == "TARGET" and header.dest_q_mgr_name.rstrip() == "QMB"
    assert header.format.rstrip() == C.MQFMT_STRING.rstrip()
    assert md.Format == C.MQFMT_DEAD_LETTER_HEADER and md.MsgId == msgid
    assert [d for d, _ in read_all(pair.b, "ORDERS")] == [b"fine"]


def test_a_batch_fills_its_target_to_maxdepth_and_dead_letters_the_rest(pair: Pair) -> None:
    """The receiving end puts a batch in one unit of work, whose puts count in the
    target's depth as they are made (as MQ counts them): with room for 4, the batch's
    5th and later messages get 2053 and go to the DLQ. (Before, all 12 went in.)"""
    pair.b.define_queue("TARGET", max_depth=4)
    bodies = [b"m%02d" % i for i in range(12)]
    for body in bodies:
        _put_to(pair, "TARGET", body)
    assert pair.agent().step(0) == 12  # one batch
    assert [d for d, _ in read_all(pair.b, "TARGET")] == bodies[:4]
    dead = [dlh.unpack(data) for data, _ in read_all(pair.b, "DLQ")]
    assert [rest for _, rest in dead] == bodies[4:]
    assert {header.reason for header, _ in dead} == {C.MQRC_Q_FULL}


def test_without_a_dlq_the_batch_fails_and_stays_on_the_transmission_queue(pair: Pair) -> None:
    pair.b.alter_qmgr(dead_letter_q="")
    _put_to(pair, "NOWHERE", b"x")
    agent = pair.agent()
    with pytest.raises(pymqi.MQMIError) as exc:
        agent.step(0)
    assert exc.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME
    assert depth(pair.a, "QMB") == 1 and agent.status.last_seq == 0


# -- request / reply ----------------------------------------------------------------------
def test_request_and_reply_across_two_queue_managers(pair: Pair) -> None:
    """The request goes by the QREMOTE, the reply comes back by ReplyToQMgr (the
    transmission queue named after QMA at QMB), matched by CorrelId."""
    from adapter.channel.agent import Agent
    from adapter.shim.channeldef import RCVR, ChannelDef

    pair.a.define_queue("REPLIES")
    pair.b.define_queue(pair.qma, usage=C.MQUS_TRANSMISSION)
    channels(pair.b).define(ChannelDef("TO.QMA", xmit_q_name=pair.qma))
    channels(pair.a).define(ChannelDef("TO.QMA", channel_type=RCVR))
    [request_id] = put_remote(pair.a, [b"price?"], MsgType=C.MQMT_REQUEST, ReplyToQ=b"REPLIES")
    forth = pair.agent()
    forth.step(0)
    [(data, req)] = read_all(pair.b, "ORDERS")
    assert data == b"price?" and req.ReplyToQMgr.rstrip(b" \0") == pair.qma.encode()
    od = pymqi.OD(Version=C.MQOD_VERSION_3, ObjectName=req.ReplyToQ, ObjectQMgrName=req.ReplyToQMgr)
    reply = pymqi.MD(MsgType=C.MQMT_REPLY, CorrelId=req.MsgId, Persistence=C.MQPER_PERSISTENT)
    pymqi.Queue(pair.b, od, C.MQOO_OUTPUT).put(b"42", reply, pymqi.PMO())
    back_def = channels(pair.b).lookup("TO.QMA")
    assert back_def is not None
    back = Agent(pair.b, pair.qmb, back_def)
    back.bind()
    assert back.step(0) == 1
    q = pymqi.Queue(pair.a, "REPLIES", C.MQOO_INPUT_SHARED)
    md = pymqi.MD(CorrelId=request_id)
    gmo = pymqi.GMO(Options=C.MQGMO_NO_SYNCPOINT, MatchOptions=C.MQMO_MATCH_CORREL_ID)
    assert q.get(None, md, gmo) == b"42" and md.MsgType == C.MQMT_REPLY
    back.close()
    forth.close()
