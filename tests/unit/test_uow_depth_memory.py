"""CurrentQDepth and MAXDEPTH with a unit of work, as IBM defines them: the depth "is
incremented during an MQPUT call, and during backout of an MQGET call. It is
decremented during a nonbrowse MQGET call, and during backout of an MQPUT call", so it
"includes messages that have been put on the queue within a unit of work, but which
have not yet been committed" and "excludes messages that have been retrieved within a
unit of work" (CurrentQDepth,
https://www.ibm.com/support/knowledgecenter/SSFKSJ_9.0.0/com.ibm.mq.ref.dev.doc/q106410_.htm);
"an attempt to put a message on a queue that already contains MaxQDepth messages fails
with reason code MQRC_Q_FULL" (MaxQDepth,
https://www.ibm.com/support/knowledgecenter/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q103290_.html).

The connection whose unit of work it is counts it at once (UnitsOfWork.depth_change);
the others once its pump published it to the state (shim/uncommitted.py)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import adapter.pymqi as pymqi
from adapter import config
from adapter.core import cmqc as C
from adapter.shim.uncommitted import PUBLISH_AFTER_S
from tests.unit.conftest import World

ALL = C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT | C.MQOO_INQUIRE | C.MQOO_BROWSE
SP, NO_SP = C.MQPMO_SYNCPOINT, C.MQPMO_NO_SYNCPOINT
FULL = C.MQRC_Q_FULL


def _put(q: pymqi.Queue, options: int) -> int:
    """0, or the reason the MQPUT failed with."""
    try:
        q.put(b"m", pymqi.MD(), pymqi.PMO(Options=options))
        return 0
    except pymqi.MQMIError as err:
        return err.reason


def _get(q: pymqi.Queue, options: int) -> int:
    try:
        q.get(None, pymqi.MD(), pymqi.GMO(Options=options))
        return 0
    except pymqi.MQMIError as err:
        return err.reason


def _depth(q: pymqi.Queue) -> int:
    return q.inquire(C.MQIA_CURRENT_Q_DEPTH)


def _queue(qm: pymqi.QueueManager, max_depth: int) -> pymqi.Queue:
    qm.define_queue("Q.UOWDEPTH", max_depth=max_depth)
    return pymqi.Queue(qm, "Q.UOWDEPTH", ALL)


def test_a_unit_of_work_cannot_put_past_maxdepth(qmgr) -> None:
    q = _queue(qmgr, 5)
    assert [_put(q, SP) for _ in range(8)] == [0] * 5 + [FULL] * 3
    assert _depth(q) == 5  # the uncommitted puts count
    assert qmgr.queue_status("Q.UOWDEPTH")["current_depth"] == 5
    qmgr.commit()
    assert _depth(q) == 5
    assert _put(q, NO_SP) == FULL


def test_a_backout_gives_the_room_back(qmgr) -> None:
    q = _queue(qmgr, 5)
    assert [_put(q, SP) for _ in range(5)] == [0] * 5
    assert _put(q, NO_SP) == FULL  # outside the unit of work too
    qmgr.backout()
    assert _depth(q) == 0
    assert [_put(q, NO_SP) for _ in range(6)] == [0] * 5 + [FULL]


def test_gets_in_the_unit_of_work_make_room_until_backout(qmgr) -> None:
    q = _queue(qmgr, 5)
    assert [_put(q, NO_SP) for _ in range(5)] == [0] * 5
    assert _get(q, C.MQGMO_SYNCPOINT) == 0
    assert _depth(q) == 4  # the message got is out of the count
    assert _put(q, SP) == 0
    assert _put(q, SP) == FULL
    qmgr.backout()  # the get's message is back, the put is gone
    assert _depth(q) == 5
    assert _put(q, NO_SP) == FULL


def test_a_run_of_syncpoint_puts_stops_at_maxdepth(qmgr) -> None:
    """The channel receiver's path (QueueHandle.put_run) counts as MQPUT does."""
    from tests.unit.test_put_run_memory import SP as RUN_SP
    from tests.unit.test_put_run_memory import _request

    qmgr.define_queue("Q.UOWDEPTH", max_depth=5)
    q = pymqi.Queue(qmgr, "Q.UOWDEPTH", ALL | C.MQOO_SET_ALL_CONTEXT)
    outcomes = q.get_handle().put_run([_request(i, options=RUN_SP) for i in range(8)])
    assert [None if e is None else e.reason for e in outcomes] == [None] * 5 + [FULL] * 3
    qmgr.commit()
    assert _depth(q) == 5


_STEPS = st.lists(
    st.sampled_from(["put", "put_sp", "get", "get_sp", "commit", "backout"]),
    min_size=1,
    max_size=40,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=_STEPS, max_depth=st.integers(0, 6))
def test_depth_and_2053_follow_mqs_count(steps: list[str], max_depth: int) -> None:
    """Any mix of puts and gets in and out of a unit of work, commits and backouts:
    MQINQ's CurrentQDepth is MQ's count after each call, and a put fails with 2053
    exactly when that count has reached MAXDEPTH. (MAXDEPTH under DEPTH_MARGIN: every
    estimate is exact.) Every committed message not got in the unit of work can be got,
    one put outside it after its uncommitted puts too (rule 52: they wait for MQCMIT
    in memory, not in an open Kafka transaction)."""
    assert max_depth < config.DEPTH_MARGIN
    world = World()
    qm = world.connect("QM.UOWDEPTH")
    try:
        q = _queue(qm, max_depth)
        committed, uow_puts, uow_gets = 0, 0, 0
        for step in steps:
            depth = committed + uow_puts - uow_gets
            if step.startswith("put"):
                expected = FULL if depth >= max_depth else 0
                assert _put(q, SP if step == "put_sp" else NO_SP) == expected, (step, depth)
                if not expected:
                    if step == "put_sp":
                        uow_puts += 1
                    else:
                        committed += 1
            elif step.startswith("get"):
                # Only committed messages not yet got in the unit of work can be got.
                expected = 0 if committed - uow_gets > 0 else C.MQRC_NO_MSG_AVAILABLE
                sync = C.MQGMO_SYNCPOINT if step == "get_sp" else C.MQGMO_NO_SYNCPOINT
                assert _get(q, sync) == expected, (step, depth)
                if not expected:
                    if step == "get_sp":
                        uow_gets += 1
                    else:
                        committed -= 1
            elif step == "commit":
                qm.commit()
                committed, uow_puts, uow_gets = committed + uow_puts - uow_gets, 0, 0
            else:
                qm.backout()
                uow_puts, uow_gets = 0, 0
            assert _depth(q) == committed + uow_puts - uow_gets, step
    finally:
        qm.disconnect()


def test_other_connections_count_a_unit_of_work_from_its_pumps_tick(
    qmgr, other, world: World
) -> None:
    """The puts and gets of one connection's unit of work count in every connection's
    CURDEPTH and MAXDEPTH check once it has published them (its first put to the queue
    at once, then its pump's ticks, every 5 ms, once the unit of work is
    PUBLISH_AFTER_S old), and no more once it ends: a commit
    does not count them twice, a backout puts a message got back (past MAXDEPTH, as MQ
    allows a backout to)."""
    q = _queue(qmgr, 3)
    theirs = pymqi.Queue(other, "Q.UOWDEPTH", ALL)
    assert [_put(q, SP) for _ in range(2)] == [0, 0]
    qmgr.get_handle().txn.renew()  # a tick before PUBLISH_AFTER_S: the first put only
    assert _depth(theirs) == 1
    world.clock.advance(PUBLISH_AFTER_S)
    qmgr.get_handle().txn.renew()
    assert _depth(theirs) == 2
    assert other.queue_status("Q.UOWDEPTH")["current_depth"] == 2
    assert _put(theirs, NO_SP) == 0
    assert _put(theirs, NO_SP) == FULL
    assert _depth(q) == 3
    qmgr.commit()
    assert _depth(theirs) == 3 and _depth(q) == 3
    assert _get(theirs, C.MQGMO_SYNCPOINT) == 0
    world.clock.advance(PUBLISH_AFTER_S)
    other.get_handle().txn.renew()
    assert _depth(q) == 2
    assert _put(q, NO_SP) == 0
    assert _put(q, NO_SP) == FULL
    other.backout()
    assert _depth(q) == 4 and _depth(theirs) == 4


def test_a_dead_processs_counts_end_with_their_lease(world: World) -> None:
    """An entry nobody renews (its process died; Kafka aborts its transaction) counts
    until its lease ends, then no more; one whose lease ended a minute ago is removed by
    the next write."""
    from adapter.shim.memory_store import MemoryStore

    store = MemoryStore("QM.DEAD", world.clock.now_ms, world.server)
    state = store.queue("Q")
    state.add_depth(4)
    state.set_uncommitted("dead-uow", 3, 1, 1_000)
    state.set_uncommitted("live-uow", 0, 2, 120_000)
    assert state.depth_with_uncommitted() == 4 + 3 - 1 - 2
    assert state.depth_with_uncommitted("live-uow") == 4 + 3 - 1
    world.clock.advance(1.001)
    assert state.depth_with_uncommitted() == 4 - 2
    world.clock.advance(60)
    state.set_uncommitted("live-uow", 0, 0, 120_000)  # that unit of work ended
    assert state.snapshot()["uncom"] == {}
    assert state.depth_with_uncommitted() == 4
