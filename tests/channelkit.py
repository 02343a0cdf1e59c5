"""What the channel tests share (unit and integration): two queue managers joined by a
sender channel QMA -> QMB, puts through a QREMOTE, and reading a queue to its end."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import adapter.pymqi as pymqi
from adapter.channel import batchio
from adapter.channel.agent import Agent, channels
from adapter.shim.channeldef import RCVR, ChannelDef

C = pymqi.CMQC
CHANNEL = "TO.QMB"


@dataclass
class Pair:
    """QMA (sending) and QMB (receiving) connections and their names."""

    a: pymqi.QueueManager
    b: pymqi.QueueManager
    qma: str
    qmb: str

    def agent(self) -> Agent:
        """A new agent for the channel (bound: records compared, RUNNING)."""
        cdef = channels(self.a).lookup(CHANNEL)
        assert cdef is not None
        agent = Agent(self.a, self.qma, cdef)
        agent.bind()
        return agent


def setup_pair(
    a: pymqi.QueueManager, b: pymqi.QueueManager, qma: str, qmb: str, **sdr: object
) -> Pair:
    """Transmission queue `qmb` at QMA, R.ORDERS there for ORDERS at QMB, the SDR / RCVR
    channel TO.QMB (`sdr`: its attributes), ORDERS and DLQ (the DEADQ) at QMB."""
    a.define_queue(qmb, usage=C.MQUS_TRANSMISSION)
    a.define_queue(
        "R.ORDERS",
        queue_type=C.MQQT_REMOTE,
        remote_q_name="ORDERS",
        remote_q_mgr_name=qmb,
        xmit_q_name=qmb,
    )
    b.define_queue("ORDERS", max_depth=100_000)
    b.define_queue("DLQ", max_depth=100_000)
    b.alter_qmgr(dead_letter_q="DLQ")
    rcvr = {k: v for k, v in sdr.items() if k in ("batch_size", "npm_speed")}
    channels(a).define(ChannelDef(CHANNEL, xmit_q_name=qmb, **sdr))  # type: ignore[arg-type]
    channels(b).define(ChannelDef(CHANNEL, channel_type=RCVR, **rcvr))  # type: ignore[arg-type]
    return Pair(a, b, qma, qmb)


def put_remote(
    qm: pymqi.QueueManager, bodies: list[bytes], persistent: bool = True, **md
) -> list[bytes]:
    """Put `bodies` to R.ORDERS (outside syncpoint); their MsgIds."""
    q = pymqi.Queue(qm, "R.ORDERS", C.MQOO_OUTPUT)
    ids = []
    for body in bodies:
        d = pymqi.MD(Persistence=C.MQPER_PERSISTENT if persistent else C.MQPER_NOT_PERSISTENT, **md)
        q.put(body, d, pymqi.PMO(Options=C.MQPMO_NO_SYNCPOINT))
        ids.append(d.MsgId)
    q.close()
    return ids


def read_all(qm: pymqi.QueueManager, queue: str, wait_ms: int = 0) -> list[tuple[bytes, pymqi.MD]]:
    """Every message of `queue`, got in order (outside syncpoint)."""
    q = pymqi.Queue(qm, queue, C.MQOO_INPUT_SHARED)
    out = []
    try:
        while True:
            md = pymqi.MD()
            opts = C.MQGMO_NO_SYNCPOINT | (C.MQGMO_WAIT if wait_ms else 0)
            try:
                out.append((q.get(None, md, pymqi.GMO(Options=opts, WaitInterval=wait_ms)), md))
            except pymqi.MQMIError as err:
                if err.reason == C.MQRC_NO_MSG_AVAILABLE:
                    return out
                raise
    finally:
        q.close()


def depth(qm: pymqi.QueueManager, queue: str) -> int:
    return qm.queue_status(queue)["current_depth"]


@contextmanager
def commit_failing(qm: pymqi.QueueManager, die: Callable[[], None]) -> Iterator[None]:
    """The agent's MQCMIT of `qm`'s end runs `die` instead (a process killed, or a
    commit refused, at that point; the agent commits through batchio.commit)."""
    real = batchio.commit

    def commit(target: pymqi.QueueManager) -> None:
        if target is qm:
            die()
        real(target)

    batchio.commit = commit  # type: ignore[assignment]
    try:
        yield
    finally:
        batchio.commit = real  # type: ignore[assignment]
