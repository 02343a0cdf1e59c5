"""The channel agent killed between any two durable writes (in-memory backends): the
dead process's connections are abandoned as a SIGKILL leaves them (no backout, no
MQDISC, its Kafka transaction open, its locks and exclusive open held until their leases
run out); a new agent with the same transactional ids then starts, compares the sync
records and moves the rest. Whatever the point, every persistent message arrives once,
in order, both ends' records end at the number sent, and the channel never stops with a
sequence-number mismatch (the soak's exit code 20)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import adapter.pymqi as pymqi
from adapter import config
from adapter.channel import status as S
from adapter.channel.agent import Agent, ChannelError, channels, transactional_id
from adapter.channel.syncq import RECEIVER, SENDER, SYNCQ, SyncQueue
from adapter.shim import naming
from adapter.shim.memory_log import MemoryLog
from tests.channelkit import CHANNEL, depth, put_remote, read_all, setup_pair
from tests.unit.conftest import World

C = pymqi.CMQC


class Killed(BaseException):
    """SIGKILL: nothing after it runs in the dead process (no backout, no close)."""


# The dead processes' objects, kept so that no finaliser of theirs (MQDISC commits, a
# Queue's MQCLOSE) runs: a SIGKILLed process runs none.
CORPSES: list[object] = []


def _abandon(qm: pymqi.QueueManager) -> None:
    """What a SIGKILL leaves of a connection: its pump renews nothing any more, and no
    later call of the dead process reaches the servers."""
    qm.get_handle().pump.stop()
    qm._disconnect_on_exit = False
    CORPSES.append(qm)
    for name in ("backout", "commit", "disconnect", "close"):
        setattr(qm, name, lambda *a, **k: None)


class Process:
    """One incarnation of the agent's process: its own connections with the channel's
    stable transactional ids, and a tripwire that kills it at a named point."""

    def __init__(
        self, world, point: str = "", nth: int = 1, before_compare: Callable[[], None] | None = None
    ) -> None:
        self.world, self.point, self.nth, self.dead = world, point, nth, False
        self.before_compare = before_compare
        txn = transactional_id("QMA", CHANNEL, SENDER)
        self.local = pymqi.connect("QMA", transactional_id=txn)
        self.agent: Agent | None = None
        self.armed = False
        self.thread = threading.current_thread()

    def kill(self) -> None:
        self.dead = True
        CORPSES.append(self.agent)
        for qm in (self.local, self.agent.remote if self.agent else None):
            if qm is not None:
                _abandon(qm)
        raise Killed(self.point)

    def trip(self, name: str, obj: Any, attr: str, when: str) -> None:
        """Kill the process `when` ("before" / "after") the `nth` call of obj.attr,
        if `name` is the point chosen."""
        if name != self.point:
            return
        real: Callable[..., Any] = getattr(obj, attr)
        calls = [0]

        def wrapper(*a: Any, **k: Any) -> Any:
            if not self.armed or threading.current_thread() is not self.thread:
                return real(*a, **k)  # not the agent's own thread (a pump's tick)
            calls[0] += 1
            if calls[0] == self.nth and when == "before":
                self.kill()
            out = real(*a, **k)
            if calls[0] == self.nth and when == "after":
                self.kill()
            return out

        setattr(obj, attr, wrapper)

    def start(self) -> Agent:
        cdef = channels(self.local).lookup(CHANNEL)
        assert cdef is not None
        agent = self.agent = Agent(self.local, "QMA", cdef)
        real_bind = agent.bind

        def bind() -> None:
            # The remote connection exists only once bind made it: arm the remote's
            # wires then (a kill inside bind's own in-doubt commit is a local one).
            self._arm_local(agent)
            self.armed = self.point.startswith("bind.")
            real_bind()

        agent.bind = bind  # type: ignore[method-assign]
        if self.before_compare is not None:
            real_compare, hook = agent._compare, self.before_compare

            def compare() -> None:
                hook()
                real_compare()

            agent._compare = compare  # type: ignore[method-assign]
        agent.bind()
        self._arm_remote(agent)
        self.armed = True
        return agent

    def _lazy_producer(self, conn: Any, wires: Callable[[Any], None]) -> None:
        """Wire the connection's transactional producer when it is first made, as the
        agent makes it (making it here would fence the dead predecessor too early)."""
        real = conn.txn.producer

        def producer() -> Any:
            made = conn.txn._producer is None
            out = real()
            if made:
                wires(out)
            return out

        conn.txn.producer = producer

    def _arm_local(self, agent: Agent) -> None:
        conn = self.local.get_handle()

        def wires(producer: Any) -> None:
            for point, when in (
                ("bind.commit_indoubt.before_commit", "before"),
                ("bind.commit_indoubt.after_kafka_commit", "after"),
                ("step.local.before_commit", "before"),
                ("step.local.after_kafka_commit", "after"),
            ):
                self.trip(point, producer, "commit_transaction", when)

        self._lazy_producer(conn, wires)
        self.trip("step.gather", agent, "_gather", "after")
        self.trip("step.local.after_commit", agent, "set_status", "before")

    def _arm_remote(self, agent: Agent) -> None:
        assert agent.remote is not None and agent.receiver is not None
        assert agent.rsync is not None and agent.ssync is not None
        conn = agent.remote.get_handle()
        self.trip("step.send", agent.receiver, "put_batch", "after")
        self.trip("step.rsync.after_replace", agent.rsync, "replace", "after")

        def wires(producer: Any) -> None:
            self.trip("step.remote.before_commit", producer, "commit_transaction", "before")
            self.trip("step.remote.after_kafka_commit", producer, "commit_transaction", "after")

        self._lazy_producer(conn, wires)
        if conn.txn._producer is not None:  # made in bind (the records were read)
            wires(conn.txn._producer)
        self.trip("step.ssync.before_replace", agent.ssync, "replace", "before")
        self.trip("step.ssync.after_replace", agent.ssync, "replace", "after")


STEP_POINTS = [
    "step.gather",
    "step.send",
    "step.rsync.after_replace",
    "step.remote.before_commit",
    "step.remote.after_kafka_commit",
    "step.ssync.before_replace",
    "step.ssync.after_replace",
    "step.local.before_commit",
    "step.local.after_kafka_commit",
    "step.local.after_commit",
]
BIND_POINTS = ["bind.commit_indoubt.before_commit", "bind.commit_indoubt.after_kafka_commit"]


@pytest.fixture
def world_pair(world):
    a, b = pymqi.connect("QMA"), pymqi.connect("QMB")
    return world, setup_pair(a, b, "QMA", "QMB", batch_size=5)


def _after_death(world, rest_s: float) -> None:
    """Time passes after the kill: the dead process's leases run out."""
    world.clock.advance(rest_s)


def _run(
    world,
    point: str,
    *,
    rest_s: float,
    nth: int = 1,
    before_compare: Callable[[], None] | None = None,
) -> bool:
    """One incarnation that moves batches until it is killed at `point` (True) or the
    transmission queue is empty (False). As run_channel does, a start refused for a
    transient reason (RETRYING: the dead agent's exclusive open or locks still held) is
    tried again 2 s later; any other ChannelError (AMQ9526E: exit code 20) fails."""
    proc = Process(world, point, nth, before_compare)
    try:
        for _ in range(200):
            try:
                agent = proc.start()
                break
            except ChannelError as err:
                assert err.status == S.RETRYING, err.message
                assert proc.agent is not None
                proc.agent.close()
                world.clock.advance(2.0)
        else:
            raise AssertionError("the agent never started")
        while agent.step(0):
            pass
    except Killed:
        _after_death(world, rest_s)
        return True
    proc.armed = False  # the point was not reached: the agent ends as it ends
    agent.close()
    proc.local.disconnect()
    return False


def _check(pair, sent: list[bytes]) -> None:
    got = [d for d, _ in read_all(pair.b, "ORDERS")]
    assert got == sent, (len(got), len(set(got)), len(sent))
    assert depth(pair.a, "QMB") == 0
    for qm, end in ((pair.a, SENDER), (pair.b, RECEIVER)):
        assert SyncQueue(qm, end, CHANNEL).read().seq == len(sent)


# Rests after a kill: the dead agent's locks still live (the successor waits them out),
# just run out (its getters meet stale locks), long gone (past the transaction timeout).
RESTS = [0.5, config.LEASE_MS / 1000 + 0.5, config.TXN_TIMEOUT_MS / 1000 + 5]


@pytest.mark.parametrize("rest_s", RESTS, ids=["live", "stale", "timed_out"])
@pytest.mark.parametrize("point", STEP_POINTS)
def test_an_agent_killed_in_a_batch_loses_and_doubles_nothing(world_pair, point, rest_s) -> None:
    world, pair = world_pair
    sent = [b"k%02d" % i for i in range(12)]
    put_remote(pair.a, sent)
    assert _run(world, point, rest_s=rest_s)
    assert not _run(world, "", rest_s=rest_s)
    _check(pair, sent)


@pytest.mark.parametrize("rest_s", RESTS, ids=["live", "stale", "timed_out"])
@pytest.mark.parametrize("point", BIND_POINTS)
def test_an_agent_killed_resolving_an_in_doubt_batch_loses_and_doubles_nothing(
    world_pair, point, rest_s
) -> None:
    world, pair = world_pair
    sent = [b"d%02d" % i for i in range(12)]
    put_remote(pair.a, sent)
    assert _run(world, "step.local.before_commit", rest_s=rest_s)  # the batch in doubt
    assert _run(world, point, rest_s=rest_s)
    assert not _run(world, "", rest_s=rest_s)
    _check(pair, sent)


@pytest.mark.parametrize("point", STEP_POINTS)
def test_killed_in_the_second_batch(world_pair, point) -> None:
    """The kill falls in a batch after the first (records exist on both ends)."""
    world, pair = world_pair
    sent = [b"s%02d" % i for i in range(12)]
    put_remote(pair.a, sent)
    rest = config.LEASE_MS / 1000 + 0.5
    assert _run(world, point, rest_s=rest, nth=2)
    assert not _run(world, "", rest_s=rest)
    _check(pair, sent)


def _undecided_commit_on_syncq_acks(world, qmgr: str) -> None:
    """Another producer's commit on SYSTEM.CHANNEL.SYNCQ's ack log, still undecided (as
    the other channel's agent sharing the queue leaves it for a moment, its commit
    markers not yet written, or its dead predecessor until fenced): the ack log's last
    stable offset stays behind, and reconcile decides nothing meanwhile."""
    producer = MemoryLog(world.clock, world.cluster).transactional_producer("other.agent")
    producer.init_transactions()
    producer.begin_transaction()
    producer.produce(naming.ack_topic(qmgr, SYNCQ), b"0.0", b'{"c": []}')
    CORPSES.append(producer)


@pytest.mark.parametrize("point", ["step.rsync.after_replace", "step.ssync.after_replace"])
def test_a_record_hidden_by_a_stale_lock_is_not_taken_for_none(world_pair, point) -> None:
    """The soak's exit code 20: the agent dies holding its sync record (got under
    syncpoint to be replaced); its successor finds the lock run out (stale) and no live
    lock on SYNCQ, while an undecided commit on SYNCQ's ack log keeps reconcile from
    releasing it. The record is there, only out of sight: the successor must wait for
    it, not compare the zero state with the other end's (AMQ9526E, channel stopped)."""
    world, pair = world_pair
    sent = [b"h%02d" % i for i in range(12)]
    put_remote(pair.a, sent)
    assert not _run(world, "", rest_s=0)  # records on both ends
    more = [b"m%02d" % i for i in range(12)]
    put_remote(pair.a, more)
    assert _run(world, point, rest_s=config.LEASE_MS / 1000 + 0.5)
    qmgr = "QMB" if "rsync" in point else "QMA"
    hide = lambda: _undecided_commit_on_syncq_acks(world, qmgr)  # noqa: E731
    assert not _run(world, "", rest_s=0, before_compare=hide)
    _check(pair, sent + more)


@settings(max_examples=20, deadline=None)
@given(
    kills=st.lists(
        st.tuples(
            st.sampled_from(STEP_POINTS + BIND_POINTS), st.integers(1, 3), st.sampled_from(RESTS)
        ),
        min_size=1,
        max_size=5,
    ),
    batch_size=st.integers(1, 6),
    marker_lag=st.integers(0, 3),
)
def test_any_run_of_kills_loses_and_doubles_nothing(kills, batch_size, marker_lag) -> None:
    """Several agents in a row, each killed at a random point of a random batch (or
    running to the end when the point is not reached), with random rests after; the
    broker writes each transaction's markers `marker_lag` operations after its commit
    (the agent does not wait for them)."""
    world, real = World(), pymqi.connect
    pymqi.connect = lambda name, *a, **kw: world.connect(name, **kw)
    try:
        a, b = pymqi.connect("QMA"), pymqi.connect("QMB")
        pair = setup_pair(a, b, "QMA", "QMB", batch_size=batch_size)
        world.cluster.marker_lag = marker_lag
        sent: list[bytes] = []
        for round_, (point, nth, rest_s) in enumerate(kills):
            bodies = [b"p%d.%d" % (round_, i) for i in range(7)]
            put_remote(pair.a, bodies)
            sent += bodies
            _run(world, point, rest_s=rest_s, nth=nth)
        assert not _run(world, "", rest_s=0)
        world.cluster.marker_lag = 0
        world.cluster.settle()
        _check(pair, sent)
    finally:
        pymqi.connect = real
