"""MQGET looks past the messages other units of work hold, however many: "when a program
gets a message from a queue within a unit of work, that message remains on the queue
until the program commits the unit of work, but the message is not available to be
retrieved by other programs" (Committing and backing out units of work,
https://ibm.com/docs/SSFKSJ_9.2.0/com.ibm.mq.dev.doc/q026790_.html). A getter that
found a full claim batch (config.CLAIM_BATCH) of held messages at the head of the queue
answered 2033 with free messages behind them."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import adapter.pymqi as pymqi
from adapter import config
from adapter.core import cmqc as C
from tests.unit.conftest import World

INPUT = C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT | C.MQOO_BROWSE
TOTAL = 3 * config.CLAIM_BATCH + 5


def _fill(qm: pymqi.QueueManager, n: int) -> pymqi.Queue:
    qm.define_queue("Q.PAST")
    q = pymqi.Queue(qm, "Q.PAST", INPUT)
    for i in range(n):
        q.put(f"m{i}".encode(), pymqi.MD(Persistence=C.MQPER_PERSISTENT))
    return q


def _get(q: pymqi.Queue, options: int = C.MQGMO_SYNCPOINT) -> bytes | int:
    """The message's data, or the reason the MQGET failed with."""
    try:
        return q.get(None, pymqi.MD(), pymqi.GMO(Options=options))
    except pymqi.MQMIError as err:
        return err.reason


def _run(q: pymqi.Queue, limit: int) -> list[bytes]:
    """A channel agent's batch: runs of gets under syncpoint (QueueHandle.get_run, up
    to what is asked each) until `limit` messages or none left."""
    req = pymqi.get_request(pymqi.MD(), pymqi.GMO(Options=C.MQGMO_SYNCPOINT))
    got: list[bytes] = []
    while len(got) < limit:
        try:
            run = q.get_handle().get_run(req, limit - len(got))
        except pymqi.MQMIError as err:
            assert err.reason == C.MQRC_NO_MSG_AVAILABLE
            break
        assert run, "an empty run without 2033"
        got += [r.data for r in run]
    return got


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    held=st.integers(0, TOTAL),
    options=st.sampled_from([C.MQGMO_SYNCPOINT, C.MQGMO_NO_SYNCPOINT]),
    run=st.integers(1, 2 * config.CLAIM_BATCH),
)
def test_another_unit_of_works_messages_are_passed_whatever_their_number(
    held: int, options: int, run: int
) -> None:
    """One connection holds the first `held` messages in its unit of work: another's
    MQGET gets the next one (2033 only when it holds them all), and its run of gets
    the ones after that, in order."""
    world = World()
    mine, theirs = world.connect("QM.PAST"), world.connect("QM.PAST")
    try:
        q = _fill(mine, TOTAL)
        other = pymqi.Queue(theirs, "Q.PAST", INPUT)
        assert [_get(q) for _ in range(held)] == [f"m{i}".encode() for i in range(held)]
        want = f"m{held}".encode() if held < TOTAL else C.MQRC_NO_MSG_AVAILABLE
        assert _get(other, options) == want
        start = held + (held < TOTAL)
        assert _run(other, run) == [f"m{i}".encode() for i in range(start, min(TOTAL, start + run))]
    finally:
        mine.disconnect()
        theirs.disconnect()


def test_a_run_of_gets_passes_a_held_head_longer_than_itself(qmgr, other) -> None:
    """A channel agent's batch (a run of gets) behind a unit of work holding more
    messages than the run asks for gets the free ones after them."""
    q = _fill(qmgr, TOTAL)
    held = 2 * config.CLAIM_BATCH + 3
    assert len([_get(q) for _ in range(held)]) == held
    theirs = pymqi.Queue(other, "Q.PAST", INPUT)
    assert _run(theirs, 4) == [f"m{i}".encode() for i in range(held, held + 4)]


def test_messages_backed_out_are_got_first_again(qmgr, other) -> None:
    """What another unit of work held and backed out is back in its place: the next
    MQGET after the backout gets the first of them, not what it got past before."""
    q = _fill(qmgr, TOTAL)
    held = config.CLAIM_BATCH + 1
    for _ in range(held):
        _get(q)
    theirs = pymqi.Queue(other, "Q.PAST", INPUT)
    assert _get(theirs) == f"m{held}".encode()
    qmgr.backout()
    assert _get(theirs) == b"m0"


def test_a_browse_passes_them_too(qmgr, other) -> None:
    """Browsing does not show a message another unit of work got, however many there
    are before the first free one."""
    q = _fill(qmgr, TOTAL)
    held = 2 * config.CLAIM_BATCH
    for _ in range(held):
        _get(q)
    theirs = pymqi.Queue(other, "Q.PAST", INPUT)
    assert _get(theirs, C.MQGMO_BROWSE_FIRST) == f"m{held}".encode()
    assert _get(theirs, C.MQGMO_BROWSE_NEXT) == f"m{held + 1}".encode()
    for _ in range(TOTAL - held):
        _get(q)
    assert _get(theirs, C.MQGMO_BROWSE_FIRST) == C.MQRC_NO_MSG_AVAILABLE


_STEPS = st.lists(
    st.tuples(
        st.integers(0, 2),
        st.sampled_from(["get", "get", "browse", "commit", "backout"]),
        st.integers(1, config.CLAIM_BATCH + 4),  # gets in a row
    ),
    min_size=1,
    max_size=30,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=_STEPS)
def test_three_units_of_work_interleaved_get_what_mq_would_give(steps) -> None:
    """Three connections get under syncpoint, browse, commit and back out in any order.
    Each MQGET gets the first message in queue order that no unit of work holds (a
    message backed out is back in its place), 2033 only when there is none; a browse
    shows that same message; what is committed is gone for good. The model is IBM's
    text: a message got in a unit of work is unavailable to others until commit,
    restored on backout."""
    total = 2 * config.CLAIM_BATCH + 8
    world = World()
    conns = [world.connect("QM.PAST") for _ in range(3)]
    try:
        _fill(conns[0], total)
        queues = [pymqi.Queue(qm, "Q.PAST", INPUT) for qm in conns]
        free = list(range(total))  # queue order of the messages nobody holds
        held: list[list[int]] = [[], [], []]
        for who, action, count in steps:
            if action == "get":
                for _ in range(count):
                    want = f"m{free[0]}".encode() if free else C.MQRC_NO_MSG_AVAILABLE
                    assert _get(queues[who]) == want, (who, held)
                    if free:
                        held[who].append(free.pop(0))
            elif action == "browse":
                want = f"m{free[0]}".encode() if free else C.MQRC_NO_MSG_AVAILABLE
                assert _get(queues[who], C.MQGMO_BROWSE_FIRST) == want, (who, held)
            elif action == "commit":
                conns[who].commit()
                held[who] = []
            else:
                conns[who].backout()
                free = sorted(free + held[who])
                held[who] = []
    finally:
        for qm in conns:
            qm.disconnect()


def test_getting_past_many_held_messages_takes_few_state_calls(qmgr, other) -> None:
    """Each round that finds a full selection held doubles the next one, so a getter
    behind another unit of work's 40 claim batches of messages asks the state about
    log2(40) times, not 40 times (measured on the real stack behind 1,000 held
    messages: 12 ms a get instead of 55)."""
    held = 40 * config.CLAIM_BATCH
    q = _fill(qmgr, held + 3)
    for _ in range(held):
        _get(q)
    q.close()  # gives back the run its burst of gets leased (getlease.py)
    theirs = pymqi.Queue(other, "Q.PAST", INPUT)
    state = theirs.get_handle().getter.state
    calls = []
    real = state.claim
    state.claim = lambda keys, *a, **k: calls.append(len(keys)) or real(keys, *a, **k)
    assert _get(theirs) == f"m{held}".encode()
    # 16, 32, ..., 256 held, then the rest and the first free one: 6 claims, not 40
    assert len(calls) <= 7, calls
