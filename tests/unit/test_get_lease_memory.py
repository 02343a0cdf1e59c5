"""Get leases (adapter/shim/getlease.py) on the in-memory backends: a burst of gets
outside syncpoint locks a run ahead and consumes write-behind, and still every message
goes to exactly one getter, nothing is hidden from another getter for longer than the
holder takes to get it, and a dead holder's run comes back by itself."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import adapter.pymqi as pymqi
from adapter import config
from adapter.core import cmqc as C
from tests.unit.conftest import World

ALL = C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT | C.MQOO_BROWSE | C.MQOO_INQUIRE
NO_SP = C.MQGMO_NO_SYNCPOINT
_QUEUES = itertools.count()


def _put_all(q, n: int, persistence: int = C.MQPER_PERSISTENT) -> None:
    for i in range(n):
        q.put(f"m{i:03d}".encode(), pymqi.MD(Persistence=persistence))


def _get(q, options: int = NO_SP) -> bytes:
    return q.get(None, pymqi.MD(), pymqi.GMO(Options=options))


def _leased(world: World, qmgr_name: str, queue: str) -> list[tuple]:
    """The queue's locks held by get leases (owner '~...')."""
    data = world.server.data(qmgr_name, queue)
    return sorted(c for c, (owner, _) in data.lock.items() if owner.startswith("~"))


def test_a_burst_leases_a_run_and_consumes_what_it_hands_out(world, qmgr, qmgr_name) -> None:
    qmgr.define_queue("Q.LEASE.RUN")
    q = pymqi.Queue(qmgr, "Q.LEASE.RUN", ALL)
    _put_all(q, 20)
    assert [_get(q) for _ in range(4)] == [b"m000", b"m001", b"m002", b"m003"]
    # The first get claimed alone, the next ones in runs (of 2, then 4): some are
    # locked ahead now.
    assert _leased(world, qmgr_name, "Q.LEASE.RUN")
    # What was handed out is consumed in the state (CURDEPTH counts it).
    assert qmgr.queue_status("Q.LEASE.RUN")["current_depth"] == 16
    got = [_get(q) for _ in range(16)]
    assert got == [f"m{i:03d}".encode() for i in range(4, 20)]
    assert not _leased(world, qmgr_name, "Q.LEASE.RUN")
    assert qmgr.queue_status("Q.LEASE.RUN")["current_depth"] == 0


def test_another_getter_is_not_told_2033_while_a_lease_holds_messages(
    world, qmgr, other, qmgr_name
) -> None:
    """MQ would offer those messages: the second getter waits until the holder (idle)
    gives its run back, and gets them, in order."""
    qmgr.define_queue("Q.LEASE.SHARE")
    mine = pymqi.Queue(qmgr, "Q.LEASE.SHARE", ALL)
    _put_all(mine, 10)
    assert [_get(mine) for _ in range(4)] == [b"m000", b"m001", b"m002", b"m003"]
    assert _leased(world, qmgr_name, "Q.LEASE.SHARE")  # the holder now stops getting
    theirs = pymqi.Queue(other, "Q.LEASE.SHARE", ALL)
    assert [_get(theirs) for _ in range(6)] == [f"m{i:03d}".encode() for i in range(4, 10)]
    with pytest.raises(pymqi.MQMIError) as exc:
        _get(theirs)
    assert exc.value.reason == C.MQRC_NO_MSG_AVAILABLE


def test_a_handle_of_the_same_connection_gets_a_held_run_at_once(world, qmgr) -> None:
    qmgr.define_queue("Q.LEASE.SAME")
    first = pymqi.Queue(qmgr, "Q.LEASE.SAME", ALL)
    _put_all(first, 7)
    assert [_get(first) for _ in range(4)] == [b"m000", b"m001", b"m002", b"m003"]
    second = pymqi.Queue(qmgr, "Q.LEASE.SAME", ALL)
    before = world.clock.monotonic()
    assert [_get(second) for _ in range(3)] == [b"m004", b"m005", b"m006"]
    assert world.clock.monotonic() - before < config.GET_LEASE_MS / 1000


def test_mqclose_gives_the_run_back(world, qmgr, other, qmgr_name) -> None:
    qmgr.define_queue("Q.LEASE.CLOSE")
    q = pymqi.Queue(qmgr, "Q.LEASE.CLOSE", ALL)
    _put_all(q, 10)
    assert [_get(q) for _ in range(4)] == [b"m000", b"m001", b"m002", b"m003"]
    q.close()
    assert not _leased(world, qmgr_name, "Q.LEASE.CLOSE")
    theirs = pymqi.Queue(other, "Q.LEASE.CLOSE", ALL)
    md = pymqi.MD()
    assert theirs.get(None, md, pymqi.GMO(Options=NO_SP)) == b"m004"
    assert md.BackoutCount == 0  # a lease given back is no backout


def test_a_dead_holders_run_is_free_when_its_lease_runs_out(world, qmgr_name) -> None:
    """No reconcile, no backout count: a lease consumes in the state what it hands out,
    so what is still locked when it runs out was never delivered."""
    dead = pymqi.connect(qmgr_name)
    dead.define_queue("Q.LEASE.DEAD")
    q = pymqi.Queue(dead, "Q.LEASE.DEAD", ALL)
    _put_all(q, 10)
    assert [_get(q) for _ in range(4)] == [b"m000", b"m001", b"m002", b"m003"]
    dead.get_handle().pump.stop()  # it gives nothing back any more
    held = _leased(world, qmgr_name, "Q.LEASE.DEAD")
    assert held
    world.clock.advance(config.GET_LEASE_MS / 1000 + 0.1)
    alive = pymqi.connect(qmgr_name)
    theirs = pymqi.Queue(alive, "Q.LEASE.DEAD", ALL)
    got = []
    for _ in range(6):
        md = pymqi.MD()
        got.append((theirs.get(None, md, pymqi.GMO(Options=NO_SP)), md.BackoutCount))
    assert got == [(f"m{i:03d}".encode(), 0) for i in range(4, 10)]
    alive.disconnect()


def test_a_higher_priority_message_overtakes_the_leased_run(world, qmgr) -> None:
    qmgr.define_queue("Q.LEASE.PRIO")
    q = pymqi.Queue(qmgr, "Q.LEASE.PRIO", ALL)
    _put_all(q, 10)
    assert [_get(q) for _ in range(4)] == [b"m000", b"m001", b"m002", b"m003"]
    q.put(b"urgent", pymqi.MD(Priority=9, Persistence=C.MQPER_PERSISTENT))
    world.clock.advance(config.STALE_VIEW_S)  # a get trusts a view this fresh
    assert _get(q) == b"urgent"
    assert [_get(q) for _ in range(6)] == [f"m{i:03d}".encode() for i in range(4, 10)]


def test_a_lost_state_drops_the_run_and_delivers_nothing_twice(world, qmgr, other) -> None:
    qmgr.define_queue("Q.LEASE.LOST")
    q = pymqi.Queue(qmgr, "Q.LEASE.LOST", ALL)
    _put_all(q, 10)
    first = [_get(q) for _ in range(4)]
    qmgr.get_handle().barrier()
    world.server.flushall()  # the run's locks are gone with the state
    theirs = pymqi.Queue(other, "Q.LEASE.LOST", ALL)
    second = [_get(theirs) for _ in range(2)]
    rest = []
    for handle in (q, theirs):
        while True:
            try:
                rest.append(_get(handle))
            except pymqi.MQMIError as e:
                assert e.reason == C.MQRC_NO_MSG_AVAILABLE
                break
    got = first + second + rest
    assert sorted(got) == [f"m{i:03d}".encode() for i in range(10)]


def test_syncpoint_and_browse_gets_see_a_released_run(world, qmgr) -> None:
    qmgr.define_queue("Q.LEASE.MIX")
    q = pymqi.Queue(qmgr, "Q.LEASE.MIX", ALL)
    _put_all(q, 10)
    assert [_get(q) for _ in range(4)] == [b"m000", b"m001", b"m002", b"m003"]
    assert _get(q, C.MQGMO_SYNCPOINT) == b"m004"  # the run is given back first
    browse = q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_BROWSE_FIRST))
    assert browse == b"m005"
    qmgr.backout()
    assert [_get(q) for _ in range(6)] == [f"m{i:03d}".encode() for i in range(4, 10)]


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    script=st.lists(
        st.tuples(st.integers(0, 2), st.sampled_from(["get", "get", "get", "idle", "close"])),
        min_size=5,
        max_size=60,
    ),
    n=st.integers(1, 30),
)
def test_interleaved_getters_get_each_message_exactly_once(world, qmgr_name, script, n) -> None:
    """Three getters on two connections, in any interleaving of gets, idle spells and
    reopens: every message once, each getter's share in queue order."""
    queue = f"Q.LEASE.PROP{next(_QUEUES)}"
    conns = [pymqi.connect(qmgr_name), pymqi.connect(qmgr_name)]
    try:
        conns[0].define_queue(queue)
        putter = pymqi.Queue(conns[0], queue, C.MQOO_OUTPUT)
        _put_all(putter, n)
        handles = [pymqi.Queue(conns[i % 2], queue, ALL) for i in range(3)]
        got: list[list[bytes]] = [[], [], []]
        for who, what in script:
            if what == "get":
                try:
                    got[who].append(_get(handles[who]))
                except pymqi.MQMIError as e:
                    assert e.reason == C.MQRC_NO_MSG_AVAILABLE
            elif what == "idle":
                world.clock.advance(config.GET_LEASE_IDLE_MS / 1000 * 2)
            else:
                handles[who].close()
                handles[who] = pymqi.Queue(conns[who % 2], queue, ALL)
        for who in range(3):  # then everyone drains what is left
            while True:
                try:
                    got[who].append(_get(handles[who]))
                except pymqi.MQMIError as e:
                    assert e.reason == C.MQRC_NO_MSG_AVAILABLE
                    break
        every = [m for share in got for m in share]
        assert sorted(every) == [f"m{i:03d}".encode() for i in range(n)]
        for share in got:
            assert share == sorted(share)
    finally:
        for c in conns:
            c.disconnect()


def test_syncpoint_gets_in_a_burst_hand_their_leases_to_the_unit_of_work(
    world, qmgr, qmgr_name
) -> None:
    qmgr.define_queue("Q.LEASE.UOW")
    q = pymqi.Queue(qmgr, "Q.LEASE.UOW", ALL)
    _put_all(q, 12)
    got = [_get(q, C.MQGMO_SYNCPOINT) for _ in range(8)]
    assert got == [f"m{i:03d}".encode() for i in range(8)]
    data = world.server.data(qmgr_name, "Q.LEASE.UOW")
    uow_locks = [c for c, (owner, _) in data.lock.items() if not owner.startswith("~")]
    assert len(uow_locks) == 8  # every got one is the unit of work's, leased or not
    qmgr.backout()
    again = []
    for _ in range(12):
        md = pymqi.MD()
        again.append((q.get(None, md, pymqi.GMO(Options=C.MQGMO_SYNCPOINT)), md.BackoutCount))
    assert again == [(f"m{i:03d}".encode(), 1 if i < 8 else 0) for i in range(12)]
    qmgr.commit()
    assert qmgr.queue_status("Q.LEASE.UOW")["current_depth"] == 0
    assert not world.server.data(qmgr_name, "Q.LEASE.UOW").lock


def test_a_complete_message_get_waits_for_a_leased_message_too(world, qmgr, other) -> None:
    """MQGMO_COMPLETE_MSG claims all or nothing: one stopped by another handle's get
    lease waits for it as a plain get does, rather than answer 2033."""
    qmgr.define_queue("Q.LEASE.COMPLETE")
    mine = pymqi.Queue(qmgr, "Q.LEASE.COMPLETE", ALL)
    _put_all(mine, 10)
    assert [_get(mine) for _ in range(4)] == [b"m000", b"m001", b"m002", b"m003"]
    theirs = pymqi.Queue(other, "Q.LEASE.COMPLETE", ALL)
    gmo = pymqi.GMO(Options=NO_SP | C.MQGMO_COMPLETE_MSG)
    assert theirs.get(None, pymqi.MD(), gmo) == b"m004"


def _logical(options: int = NO_SP) -> pymqi.GMO:
    return pymqi.GMO(Options=options | C.MQGMO_LOGICAL_ORDER, MatchOptions=C.MQMO_NONE)


def _groups_in_physical_disorder(qmgr, queue: str, groups: int, size: int) -> pymqi.Queue:
    """`groups` groups of `size` members, each on its own putting handle in logical
    order, the puts interleaved (member 1 of every group, then member 2, ...): physical
    order differs from logical order. Bodies 'g<group>s<seq>'."""
    qmgr.define_queue(queue)
    putters = [pymqi.Queue(qmgr, queue, C.MQOO_OUTPUT) for _ in range(groups)]
    pmo = C.MQPMO_NO_SYNCPOINT | C.MQPMO_LOGICAL_ORDER
    for seq in range(1, size + 1):
        for g, p in enumerate(putters):
            flags = C.MQMF_LAST_MSG_IN_GROUP if seq == size else C.MQMF_MSG_IN_GROUP
            md = pymqi.MD(Version=C.MQMD_VERSION_2, MsgFlags=flags)
            p.put(f"g{g}s{seq:02d}".encode(), md, pymqi.PMO(Options=pmo))
    for p in putters:
        p.close()
    return pymqi.Queue(qmgr, queue, ALL)


def test_logical_order_gets_in_a_burst_are_served_from_a_lease(world, qmgr, qmgr_name) -> None:
    """A group got member by member in logical order: its later members are locked
    ahead in one claim (getrules.logical_run), each handed out when it is the next."""
    q = _groups_in_physical_disorder(qmgr, "Q.LEASE.LOGICAL", 3, 6)
    got = [q.get(None, pymqi.MD(Version=C.MQMD_VERSION_2), _logical()) for _ in range(4)]
    assert got == [b"g0s01", b"g0s02", b"g0s03", b"g0s04"]
    # The runs grow (2, then 4): the group's next members are locked ahead of the gets,
    # and no member of another group among them.
    leased = _leased(world, qmgr_name, "Q.LEASE.LOGICAL")
    assert leased
    data = world.server.data(qmgr_name, "Q.LEASE.LOGICAL")
    assert len(leased) == 3 and data is not None
    rest = [q.get(None, pymqi.MD(Version=C.MQMD_VERSION_2), _logical()) for _ in range(14)]
    assert got + rest == [f"g{g}s{s:02d}".encode() for g in range(3) for s in range(1, 7)]
    assert not _leased(world, qmgr_name, "Q.LEASE.LOGICAL")
    assert qmgr.queue_status("Q.LEASE.LOGICAL")["current_depth"] == 0


def test_a_logical_order_get_never_skips_a_member_locked_by_another(world, qmgr, other) -> None:
    """The group's next member is in another application's unit of work: the logical
    getter, whose lease locks ahead, must not hand out a later member instead. It finds
    no message (2033) until the other backs out, then gets the rest in order."""
    q = _groups_in_physical_disorder(qmgr, "Q.LEASE.NOSKIP", 1, 6)
    assert q.get(None, pymqi.MD(Version=C.MQMD_VERSION_2), _logical()) == b"g0s01"
    theirs = pymqi.Queue(other, "Q.LEASE.NOSKIP", ALL)
    assert theirs.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_BROWSE_FIRST)) == b"g0s02"
    md = pymqi.MD(Version=C.MQMD_VERSION_2)
    assert theirs.get(None, md, pymqi.GMO(Options=C.MQGMO_BROWSE_NEXT)) == b"g0s03"
    by_id = pymqi.GMO(Options=C.MQGMO_SYNCPOINT, MatchOptions=C.MQMO_MATCH_MSG_ID)
    assert theirs.get(None, pymqi.MD(Version=C.MQMD_VERSION_2, MsgId=md.MsgId), by_id) == b"g0s03"
    assert q.get(None, pymqi.MD(Version=C.MQMD_VERSION_2), _logical()) == b"g0s02"
    for _ in range(3):  # member 3 is locked: never member 4 in its place
        with pytest.raises(pymqi.MQMIError) as exc:
            q.get(None, pymqi.MD(Version=C.MQMD_VERSION_2), _logical())
        assert exc.value.reason == C.MQRC_NO_MSG_AVAILABLE
    other.backout()
    rest = [q.get(None, pymqi.MD(Version=C.MQMD_VERSION_2), _logical()) for _ in range(4)]
    assert rest == [b"g0s03", b"g0s04", b"g0s05", b"g0s06"]


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    script=st.lists(
        st.tuples(st.integers(0, 2), st.sampled_from(["get", "get", "get", "idle"])),
        min_size=5,
        max_size=60,
    ),
    groups=st.integers(1, 5),
    size=st.integers(1, 6),
)
def test_logical_getters_each_get_whole_groups_in_order(
    world, qmgr_name, script, groups, size
) -> None:
    """Three getters in logical order on two connections, leases locking ahead, in any
    interleaving of gets and idle spells: every message once, and each getter's share
    is whole groups, each member after member."""
    queue = f"Q.LEASE.LPROP{next(_QUEUES)}"
    conns = [pymqi.connect(qmgr_name), pymqi.connect(qmgr_name)]
    try:
        _groups_in_physical_disorder(conns[0], queue, groups, size).close()
        handles = [pymqi.Queue(conns[i % 2], queue, ALL) for i in range(3)]
        got: list[list[bytes]] = [[], [], []]

        def get(who: int) -> bool:
            try:
                got[who].append(
                    handles[who].get(None, pymqi.MD(Version=C.MQMD_VERSION_2), _logical())
                )
                return True
            except pymqi.MQMIError as e:
                assert e.reason == C.MQRC_NO_MSG_AVAILABLE
                return False

        for who, what in script:
            if what == "get":
                get(who)
            else:
                world.clock.advance(config.GET_LEASE_IDLE_MS / 1000 * 2)
        for _ in range(groups * size + 3):  # then all drain, in turns
            if not any([get(0), get(1), get(2)]):
                break
        every = [m for share in got for m in share]
        assert sorted(every) == sorted(f"g{g}s{s:02d}".encode() for g in range(groups)
                                       for s in range(1, size + 1))  # fmt: skip
        for share in got:
            assert len(share) % size == 0
            for start in range(0, len(share), size):
                group = share[start : start + size]
                g = group[0][:2]
                assert group == [g + b"s%02d" % s for s in range(1, size + 1)]
    finally:
        for c in conns:
            c.disconnect()
