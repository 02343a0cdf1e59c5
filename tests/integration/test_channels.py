"""Message channels on the real stack (Kafka + Redis): two queue managers on one
cluster joined by a sender channel; the agent run as MQ people run it (START CHANNEL
through `mqk mqsc`, which launches `mqk channel run`), DISPLAY CHSTATUS, the restart
comparison, NPMSPEED(FAST) and the dead-letter queue; and the agent SIGKILLed at random
moments while 1,000 persistent messages move: each arrives once, in order. (Every rule
also runs on the in-memory backends: tests/unit/test_channels_memory.py.)"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import sys
import time

import pytest

import adapter.pymqi as pymqi
from adapter.channel import status as S
from adapter.channel.agent import run_channel
from adapter.core import dlh
from adapter.testing.servers import purge_queue_manager
from tests.channelkit import CHANNEL, Pair, depth, put_remote, read_all, setup_pair

pytestmark = pytest.mark.integration
C = pymqi.CMQC
# Short leases: a killed agent's locks and exclusive open run out in seconds.
FAST_RECOVERY = {"MQK_UOW_LEASE_MS": "3000", "MQK_OPEN_LEASE_MS": "3000"}


@pytest.fixture
def pair(qmgr, qmgr_name, kafka_bootstrap, redis_url):
    qmb = qmgr_name + "B"
    b = pymqi.connect(qmb, kafka_bootstrap=kafka_bootstrap, redis_url=redis_url)
    yield setup_pair(qmgr, b, qmgr_name, qmb, batch_size=50)
    with contextlib.suppress(pymqi.Error):
        b.disconnect()
    from adapter import config

    purge_queue_manager(config.Endpoints(kafka_bootstrap, redis_url), qmb)


def mqsc(qmgr: str, script: str, env: dict | None = None) -> str:
    run = subprocess.run(
        [sys.executable, "-m", "adapter.cli", "mqsc", qmgr],
        input=script,
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, **(env or {})},
    )
    return run.stdout + run.stderr


def wait_for(check, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


def test_start_channel_moves_120_messages_in_3_batches(pair: Pair) -> None:
    put_remote(pair.a, [b"m%03d" % i for i in range(120)])
    assert depth(pair.a, pair.qmb) == 120  # no channel running: the xmitq's depth grows
    out = mqsc(pair.qma, f"START CHANNEL({CHANNEL})\n")
    assert "AMQ8018I: Start IBM MQ channel accepted." in out, out
    try:
        wait_for(lambda: depth(pair.b, "ORDERS") == 120, 90, "120 messages at QMB")
        out = mqsc(pair.qma, f"DISPLAY CHSTATUS({CHANNEL}) ALL\n")
        for item in ("STATUS(RUNNING)", "BATCHES(3)", "MSGS(120)", "LSTSEQNO(120)",
                     "INDOUBT(NO)", f"XMITQ({pair.qmb})", f"RQMNAME({pair.qmb})"):  # fmt: skip
            assert item in out, out
        luwid = out.split("LSTLUWID(")[1].split(")")[0]
        assert luwid != "0000000000000000"
        put_remote(pair.a, [b"late"])
        wait_for(lambda: depth(pair.b, "ORDERS") == 121, 30, "a fourth batch")
        out = mqsc(pair.qma, f"DISPLAY CHSTATUS({CHANNEL}) LSTLUWID LSTSEQNO BATCHES\n")
        assert "LSTSEQNO(121)" in out and "BATCHES(4)" in out and luwid not in out
    finally:
        out = mqsc(pair.qma, f"STOP CHANNEL({CHANNEL})\n")
    assert "AMQ8019I: Stop IBM MQ channel accepted." in out, out
    assert "STATUS(STOPPED)" in mqsc(pair.qma, f"DISPLAY CHSTATUS({CHANNEL})\n")
    put_remote(pair.a, [b"while stopped"] * 3)
    assert depth(pair.a, pair.qmb) == 3
    got = [d for d, _ in read_all(pair.b, "ORDERS")]
    assert got == [b"m%03d" % i for i in range(120)] + [b"late"]


def test_a_rewound_sequence_number_stops_the_channel_until_reset(pair: Pair) -> None:
    put_remote(pair.a, [b"a%d" % i for i in range(60)])
    agent = pair.agent()
    while agent.step(0):
        pass
    agent.close()
    assert "AMQ8023I" in mqsc(pair.qmb, f"RESET CHANNEL({CHANNEL}) SEQNUM(11)\n")
    put_remote(pair.a, [b"b%d" % i for i in range(7)])
    assert run_channel(pair.qma, CHANNEL, retry_s=0) == 1
    out = mqsc(pair.qma, f"DISPLAY CHSTATUS({CHANNEL}) ALL\n")
    assert "STATUS(STOPPED)" in out and "LSTSEQNO(60)" in out
    st = S.read(pair.a.get_handle().store, CHANNEL)
    assert st is not None and st.message.startswith("AMQ9526E: Message sequence number error")
    assert depth(pair.a, pair.qmb) == 7
    assert "AMQ8023I" in mqsc(pair.qma, f"RESET CHANNEL({CHANNEL}) SEQNUM(1)\n")
    agent = pair.agent()
    while agent.step(0):
        pass
    assert agent.status.last_seq == 7
    agent.close()
    got = [d for d, _ in read_all(pair.b, "ORDERS")]
    assert got == [b"a%d" % i for i in range(60)] + [b"b%d" % i for i in range(7)]


def test_fast_nonpersistent_messages_overtake_and_normal_ones_do_not(pair: Pair) -> None:
    def mixed() -> None:
        for i in range(3):
            put_remote(pair.a, [b"P%d" % i], persistent=True)
            put_remote(pair.a, [b"N%d" % i], persistent=False)

    mixed()
    agent = pair.agent()
    agent.step(0)
    agent.close()
    fast = [d for d, _ in read_all(pair.b, "ORDERS")]
    assert fast == [b"N0", b"N1", b"N2", b"P0", b"P1", b"P2"]
    mqsc(pair.qma, f"ALTER CHANNEL({CHANNEL}) CHLTYPE(SDR) NPMSPEED(NORMAL)\n")
    mixed()
    agent = pair.agent()
    assert agent.status.npm_speed == "NORMAL"
    agent.step(0)
    agent.close()
    normal = [d for d, _ in read_all(pair.b, "ORDERS")]
    assert normal == [b"P0", b"N0", b"P1", b"N1", b"P2", b"N2"]


def test_a_message_for_a_missing_queue_reaches_the_dlq_with_reason_2085(pair: Pair) -> None:
    od = pymqi.OD(
        Version=C.MQOD_VERSION_3, ObjectName=b"NO.SUCH.Q", ObjectQMgrName=pair.qmb.encode()
    )
    md = pymqi.MD(Persistence=C.MQPER_PERSISTENT, Format=C.MQFMT_STRING)
    pymqi.Queue(pair.a, od, C.MQOO_OUTPUT).put(b"lost?", md, pymqi.PMO())
    put_remote(pair.a, [b"fine"])
    agent = pair.agent()
    assert agent.step(0) == 2
    agent.close()
    [(data, got)] = read_all(pair.b, "DLQ")
    header, rest = dlh.unpack(data)
    assert header.reason == C.MQRC_UNKNOWN_OBJECT_NAME and rest == b"lost?"
    assert header.dest_q_name.rstrip() == "NO.SUCH.Q" and got.MsgId == md.MsgId
    assert [d for d, _ in read_all(pair.b, "ORDERS")] == [b"fine"]


def _agent(qma: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "adapter.cli", "channel", "run", qma, CHANNEL, "--poll-ms", "200"],
        env={**os.environ, **FAST_RECOVERY},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def _running(pair: Pair, pid: int) -> bool:
    st = S.read(pair.a.get_handle().store, CHANNEL)
    return st is not None and st.pid == pid and st.status == S.RUNNING


def _status(pair: Pair) -> S.ChannelStatus | None:
    return S.read(pair.a.get_handle().store, CHANNEL)


def _poll(check, timeout_s: float, what: str) -> None:
    """wait_for at a 5 ms pace: an in-doubt window lasts milliseconds."""
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.005)


def _batched(pair: Pair, mark: int) -> bool:
    """A batch committed since `mark` batches (or nothing left to move)."""
    st = _status(pair)
    return (st is not None and st.batches > mark) or depth(pair.a, pair.qmb) == 0


def _in_doubt(pair: Pair, pid: int) -> bool:
    """Agent `pid` has a batch in doubt (or nothing is left to move)."""
    st = _status(pair)
    return (st is not None and st.indoubt and st.pid == pid) or depth(pair.a, pair.qmb) == 0


def _kill_test(pair: Pair, count: int, kills: int, timeout_s: float) -> None:
    """`count` persistent messages fed in `kills` parts, each once the agent runs, all
    of a part at once (one unit of work); the agent SIGKILLed at a random moment of
    moving its part: half the time a moment after it committed a batch of it, half the
    time as soon as a batch is in doubt (sent, its confirmation awaited). A fixed pause
    would find the agent idle: it moves a part in a few hundred milliseconds."""
    bodies = [b"k%05d" % i for i in range(count)]
    rng = random.Random(17)
    moving = 0  # kills that landed while messages were on their way
    q = pymqi.Queue(pair.a, "R.ORDERS", C.MQOO_OUTPUT)
    part, fed = count // kills, 0
    try:
        for n in range(kills):
            agent = _agent(pair.qma)
            wait_for(lambda a=agent: _running(pair, a.pid), 60, "the agent to run")
            before = _status(pair)
            mark = before.batches if before else 0
            upto = count if n == kills - 1 else fed + part
            for body in bodies[fed:upto]:
                q.put(body, pymqi.MD(Persistence=C.MQPER_PERSISTENT),
                      pymqi.PMO(Options=C.MQPMO_SYNCPOINT))  # fmt: skip
            pair.a.commit()
            fed = upto
            if rng.random() < 0.5:
                _poll(lambda m=mark: _batched(pair, m), 60, "a batch")
                time.sleep(rng.uniform(0.0, 0.01))
            else:
                _poll(lambda a=agent: _in_doubt(pair, a.pid), 60, "a batch in doubt")
                time.sleep(rng.uniform(0.0, 0.02))
            os.kill(agent.pid, signal.SIGKILL)
            agent.wait()
            st = _status(pair)
            moving += depth(pair.a, pair.qmb) > 0 or bool(st and st.indoubt)
    finally:
        q.close()
    assert moving >= kills // 2, moving  # the kills hit transfers, not idle agents
    agent = _agent(pair.qma)
    try:
        wait_for(lambda: _running(pair, agent.pid), 60, "the last agent to run")
        wait_for(lambda: depth(pair.a, pair.qmb) == 0, timeout_s, "an empty transmission queue")
        agent.send_signal(signal.SIGTERM)
        assert agent.wait(60) == 0
    finally:
        if agent.poll() is None:
            agent.kill()
    got = [d for d, _ in read_all(pair.b, "ORDERS", wait_ms=2000)]
    assert len(got) == len(set(got)) == count, (len(got), len(set(got)))
    assert got == bodies
    st = S.read(pair.a.get_handle().store, CHANNEL)
    assert st is not None and st.last_seq == count and not st.indoubt


def test_agent_killed_at_random_moments_moves_each_message_once_in_order(pair: Pair) -> None:
    _kill_test(pair, 1000, 5, 120)


@pytest.mark.slow
@pytest.mark.soak
def test_soak_agent_killed_20_times_with_10000_messages(pair: Pair) -> None:
    _kill_test(pair, 10_000, 20, 900)


# The same scenarios as on the in-memory backends, on the real stack.
from tests.unit.test_channels_memory import (  # noqa: E402
    test_a_group_sent_over_the_channel_is_got_in_logical_order,
    test_request_and_reply_across_two_queue_managers,
    test_the_message_survives_the_hop,
)

__all__ = [
    "test_a_group_sent_over_the_channel_is_got_in_logical_order",
    "test_request_and_reply_across_two_queue_managers",
    "test_the_message_survives_the_hop",
]
