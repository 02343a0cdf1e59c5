"""A unit of work's puts wait for MQCMIT (adapter/shim/uow.py): they hide no other
message and their unit of work outlives Kafka's transaction timeout.

MQ: a message another application puts outside syncpoint, or commits, "is made
available to other applications" at once (MQCMIT,
https://www.ibm.com/docs/en/SSFKSJ_latest/refdev/q101750_.html), whatever other units
of work are open; a unit of work lasts as long as its application wants. Order: IBM
promises one application's order only for puts "all ... from the same unit of work, or
all ... outside of a unit of work", and "messages from other tasks and units of work
might be interspersed with the sequence" (spec/sequential-retrieval.txt): a unit of
work's messages, in their order, take their place when it commits.

On the memory broker, as on Kafka, read_committed readers stop at a partition's first
open transaction and a transaction open longer than the timeout is aborted: with the
transaction opened at the first MQPUT, each test below fails (2033 for the message
behind, 2003 at MQCMIT).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import adapter.pymqi as pymqi
from adapter import config
from adapter.core import cmqc as C
from tests.integration.conftest import drain
from tests.unit.conftest import World

ALL = C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT


def _open(qm: pymqi.QueueManager, name: str = "Q.DEFER") -> pymqi.Queue:
    return pymqi.Queue(qm, name, ALL)


def _put(q: pymqi.Queue, data: bytes, syncpoint: bool) -> None:
    options = C.MQPMO_SYNCPOINT if syncpoint else C.MQPMO_NO_SYNCPOINT
    q.put(data, pymqi.MD(Persistence=C.MQPER_PERSISTENT), pymqi.PMO(Options=options))


def _get(q: pymqi.Queue) -> bytes | int:
    """The next message (outside syncpoint, no wait), or the reason the MQGET failed."""
    try:
        return q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_NO_SYNCPOINT))
    except pymqi.MQMIError as err:
        return err.reason


def _drain(q: pymqi.Queue) -> list[bytes]:
    return [data for data, _ in drain(q, options=C.MQGMO_NO_SYNCPOINT)]


@pytest.fixture
def three(world: World, qmgr_name: str):
    """A putter in a unit of work, another application, and a getter."""
    conns = [pymqi.connect(qmgr_name) for _ in range(3)]
    conns[0].define_queue("Q.DEFER")
    yield [_open(qm) for qm in conns], conns
    for qm in conns:
        qm.disconnect()


def test_a_message_put_outside_syncpoint_behind_an_open_unit_of_work_is_got_at_once(
    three,
) -> None:
    (uow_q, plain_q, getter), (uow_qm, _, _) = three
    _put(uow_q, b"in the unit of work", syncpoint=True)
    _put(plain_q, b"plain", syncpoint=False)
    assert _get(getter) == b"plain"
    assert _get(getter) == C.MQRC_NO_MSG_AVAILABLE  # uncommitted: not there yet
    uow_qm.commit()
    assert _drain(getter) == [b"in the unit of work"]


def test_a_unit_of_work_committed_behind_an_open_one_is_got_at_once(three) -> None:
    (long_q, short_q, getter), (long_qm, short_qm, _) = three
    _put(long_q, b"long 1", syncpoint=True)
    _put(short_q, b"short 1", syncpoint=True)
    _put(long_q, b"long 2", syncpoint=True)
    _put(short_q, b"short 2", syncpoint=True)
    short_qm.commit()
    assert _drain(getter) == [b"short 1", b"short 2"]
    long_qm.commit()
    assert _drain(getter) == [b"long 1", b"long 2"]


def test_a_unit_of_work_with_puts_outlives_the_transaction_timeout(world: World, three) -> None:
    (uow_q, _, getter), (uow_qm, _, _) = three
    _put(uow_q, b"first", syncpoint=True)
    world.clock.advance(config.TXN_TIMEOUT_MS / 1000 + 10)  # the broker would abort it
    _put(uow_q, b"second", syncpoint=True)
    uow_qm.commit()  # no MQRC_BACKED_OUT
    assert _drain(getter) == [b"first", b"second"]


def test_backout_leaves_nothing_of_the_waiting_puts(three) -> None:
    (uow_q, plain_q, getter), (uow_qm, _, _) = three
    for i in range(3):
        _put(uow_q, f"backed out {i}".encode(), syncpoint=True)
    uow_qm.backout()
    _put(plain_q, b"after", syncpoint=False)
    uow_qm.commit()  # nothing left to commit
    assert _drain(getter) == [b"after"]
    assert uow_qm.queue_status("Q.DEFER")["current_depth"] == 0


def test_puts_past_the_buffer_go_to_the_transaction_as_they_are_put(three, monkeypatch) -> None:
    """Past config.UOW_BUFFER_BYTES the unit of work sends what it holds and goes on
    sending: its transaction is open from then on, and a message put outside syncpoint
    behind it waits for its end, as Kafka's readers do (the documented limit); the
    order stays the order of the puts."""
    monkeypatch.setattr(config, "UOW_BUFFER_BYTES", 2500)
    (uow_q, plain_q, getter), (uow_qm, _, _) = three
    payload = b"x" * 1000
    _put(uow_q, b"u0" + payload, syncpoint=True)
    _put(uow_q, b"u1" + payload, syncpoint=True)
    _put(plain_q, b"early", syncpoint=False)
    assert _get(getter) == b"early"  # 2 KiB held in memory: nothing in Kafka yet
    _put(uow_q, b"u2" + payload, syncpoint=True)  # past 2,500 bytes: all three sent
    _put(plain_q, b"late", syncpoint=False)
    assert _get(getter) == C.MQRC_NO_MSG_AVAILABLE  # behind the open transaction
    _put(uow_q, b"u3" + payload, syncpoint=True)
    uow_qm.commit()
    assert [d[:2] for d in _drain(getter)] == [b"u0", b"u1", b"u2", b"la", b"u3"]


# One step of two applications on one queue: a put in or outside a unit of work, a
# commit or a backout, or a getter's MQGET.
_STEP = st.one_of(
    st.tuples(st.just("put"), st.integers(0, 1), st.booleans()),
    st.tuples(st.just("commit"), st.integers(0, 1)),
    st.tuples(st.just("backout"), st.integers(0, 1)),
    st.tuples(st.just("get")),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.lists(_STEP, max_size=30))
def test_every_message_is_got_once_committed_in_mqs_order(steps) -> None:
    """IBM's model: a message put outside syncpoint is on the queue at once, a unit of
    work's messages when it commits (in their order), a backed-out one's never; each
    MQGET gets the first of them, never 2033 while one is there."""
    world = World()
    conns = [world.connect("QM.DEFER") for _ in range(3)]
    try:
        conns[0].define_queue("Q.DEFER")
        queues = [_open(qm) for qm in conns]
        model: list[bytes] = []
        pending: list[list[bytes]] = [[], []]
        for n, step in enumerate(steps):
            if step[0] == "put":
                _, who, sync = step
                data = f"{n}:{who}:{'u' if sync else 'p'}".encode()
                _put(queues[who], data, sync)
                (pending[who] if sync else model).append(data)
            elif step[0] == "commit":
                conns[step[1]].commit()
                model += pending[step[1]]
                pending[step[1]] = []
            elif step[0] == "backout":
                conns[step[1]].backout()
                pending[step[1]] = []
            else:
                want = model.pop(0) if model else C.MQRC_NO_MSG_AVAILABLE
                assert _get(queues[2]) == want
        for who in (0, 1):
            conns[who].commit()
            model += pending[who]
        assert _drain(queues[2]) == model
    finally:
        for qm in conns:
            qm.disconnect()
