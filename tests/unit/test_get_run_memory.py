"""Runs of gets (Getter.get_run, adapter/shim/get.py) on the in-memory backends: up to n
MQGETs with one state call return what that many single MQGETs would, in the same
order, with every rule of MQGET (syncpoint, MAXUMSGS, expiry, locks of other units of
work, other handles' get leases, BOTHRESH, statistics)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import adapter.pymqi as pymqi
from adapter.core import cmqc as C
from adapter.core.calls import GetRequest
from tests.unit.conftest import World

ALL = C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT | C.MQOO_BROWSE | C.MQOO_INQUIRE
SP, SPIP, NO_SP = C.MQGMO_SYNCPOINT, C.MQGMO_SYNCPOINT_IF_PERSISTENT, C.MQGMO_NO_SYNCPOINT
_QUEUES = itertools.count()


def _req(options: int) -> GetRequest:
    return pymqi.get_request(pymqi.MD(), pymqi.GMO(Options=options))


def _run(q: pymqi.Queue, options: int, limit: int, max_bytes: int = 0, wait: int = 0):
    """One run through the engine's handle: [(data, MQMD)]."""
    return [(r.data, r.md) for r in q.get_handle().get_run(_req(options), limit, max_bytes, wait)]


def _reason(call) -> int:
    with pytest.raises(pymqi.MQMIError) as exc:
        call()
    return exc.value.reason


def _put(q: pymqi.Queue, body: bytes, **md) -> None:
    q.put(body, pymqi.MD(Persistence=md.pop("Persistence", C.MQPER_PERSISTENT), **md))


def _single(q: pymqi.Queue, options: int) -> bytes | None:
    try:
        return q.get(None, pymqi.MD(), pymqi.GMO(Options=options))
    except pymqi.MQMIError as err:
        if err.reason == C.MQRC_NO_MSG_AVAILABLE:
            return None
        raise


def test_a_run_takes_the_next_messages_in_priority_order(qmgr) -> None:
    qmgr.define_queue("Q.RUN.ORDER")
    q = pymqi.Queue(qmgr, "Q.RUN.ORDER", ALL)
    for i, prio in enumerate([1, 5, 1, 9, 5]):
        _put(q, b"m%d" % i, Priority=prio)
    got = _run(q, SP, 4)
    assert [d for d, _ in got] == [b"m3", b"m1", b"m4", b"m0"]
    assert [md["Priority"] for _, md in got] == [9, 5, 5, 1]
    assert [d for d, _ in _run(q, SP, 4)] == [b"m2"]
    assert _reason(lambda: _run(q, SP, 4)) == C.MQRC_NO_MSG_AVAILABLE
    qmgr.commit()
    assert qmgr.queue_status("Q.RUN.ORDER")["current_depth"] == 0


def test_a_run_under_syncpoint_backs_out_as_single_gets_do(qmgr) -> None:
    qmgr.define_queue("Q.RUN.BACK")
    q = pymqi.Queue(qmgr, "Q.RUN.BACK", ALL)
    for i in range(6):
        _put(q, b"b%d" % i)
    assert [d for d, _ in _run(q, SP, 6)] == [b"b%d" % i for i in range(6)]
    # MQ's CurrentQDepth leaves out what a unit of work got and puts it back at backout
    assert qmgr.queue_status("Q.RUN.BACK")["current_depth"] == 0
    qmgr.backout()
    assert qmgr.queue_status("Q.RUN.BACK")["current_depth"] == 6
    again = _run(q, SP, 10)
    assert [d for d, _ in again] == [b"b%d" % i for i in range(6)]
    assert [md["BackoutCount"] for _, md in again] == [1] * 6
    qmgr.commit()
    assert qmgr.queue_status("Q.RUN.BACK")["current_depth"] == 0


def test_max_bytes_ends_the_run_once_reached(qmgr) -> None:
    """BATCHLIM's rule: a message is taken while the data got before it is under the
    limit, so the run may pass it by one message."""
    qmgr.define_queue("Q.RUN.BYTES")
    q = pymqi.Queue(qmgr, "Q.RUN.BYTES", ALL)
    for i in range(5):
        _put(q, bytes([65 + i]) * 100)
    assert len(_run(q, SP, 10, max_bytes=250)) == 3
    assert len(_run(q, SP, 10, max_bytes=100)) == 1
    assert len(_run(q, SP, 10, max_bytes=1)) == 1
    qmgr.commit()


def test_maxumsgs_stops_the_run_and_2024_only_when_nothing_fits(qmgr) -> None:
    qmgr.alter_qmgr(max_uncommitted_msgs=4)
    qmgr.define_queue("Q.RUN.UMSGS")
    q = pymqi.Queue(qmgr, "Q.RUN.UMSGS", ALL)
    for i in range(6):
        _put(q, b"u%d" % i)
    assert len(_run(q, SP, 3)) == 3
    assert len(_run(q, SP, 3)) == 1  # one more fits
    assert _reason(lambda: _run(q, SP, 3)) == C.MQRC_SYNCPOINT_LIMIT_REACHED
    qmgr.commit()
    assert [d for d, _ in _run(q, SP, 3)] == [b"u4", b"u5"]
    qmgr.commit()


def test_syncpoint_if_persistent_gets_one_run_one_way(qmgr, other) -> None:
    qmgr.define_queue("Q.RUN.SPIP")
    q = pymqi.Queue(qmgr, "Q.RUN.SPIP", ALL)
    _put(q, b"p0")
    _put(q, b"p1")
    _put(q, b"n2", Persistence=C.MQPER_NOT_PERSISTENT)
    _put(q, b"p3")
    assert [d for d, _ in _run(q, SPIP, 10)] == [b"p0", b"p1"]
    assert [d for d, _ in _run(q, SPIP, 10)] == [b"n2"]  # gone at once, outside the UOW
    assert [d for d, _ in _run(q, SPIP, 10)] == [b"p3"]
    qmgr.backout()
    o = pymqi.Queue(other, "Q.RUN.SPIP", ALL)
    assert [_single(o, NO_SP) for _ in range(4)] == [b"p0", b"p1", b"p3", None]


def test_expired_messages_are_discarded_and_reported(world, qmgr) -> None:
    qmgr.define_queue("Q.RUN.EXP")
    qmgr.define_queue("Q.RUN.EXP.REPLY")
    q = pymqi.Queue(qmgr, "Q.RUN.EXP", ALL)
    _put(q, b"e0", Expiry=5, Report=C.MQRO_EXPIRATION, ReplyToQ=b"Q.RUN.EXP.REPLY")
    _put(q, b"k1")
    _put(q, b"e2", Expiry=5)
    _put(q, b"k3")
    world.clock.advance(1.0)
    assert [d for d, _ in _run(q, SP, 10)] == [b"k1", b"k3"]
    qmgr.commit()
    assert qmgr.queue_status("Q.RUN.EXP")["current_depth"] == 0
    reply = pymqi.Queue(qmgr, "Q.RUN.EXP.REPLY", ALL)
    md = pymqi.MD()
    assert reply.get(None, md, pymqi.GMO(Options=NO_SP)) == b""  # MQRO_EXPIRATION: no data
    assert md.Feedback == C.MQFB_EXPIRATION


def test_messages_another_unit_of_work_holds_are_passed(qmgr, other) -> None:
    qmgr.define_queue("Q.RUN.LOCKED")
    q = pymqi.Queue(qmgr, "Q.RUN.LOCKED", ALL)
    for i in range(4):
        _put(q, b"l%d" % i)
    o = pymqi.Queue(other, "Q.RUN.LOCKED", ALL)
    assert _single(o, SP) == b"l0"  # in the other's unit of work
    assert [d for d, _ in _run(q, SP, 10)] == [b"l1", b"l2", b"l3"]
    qmgr.commit()
    other.backout()
    assert [d for d, _ in _run(q, SP, 10)] == [b"l0"]
    qmgr.commit()


def test_a_run_does_not_overtake_another_handles_get_lease(world, qmgr, other) -> None:
    """Messages a get lease holds are about to be got: a run stops in front of them (a
    single get would wait for them), and takes them once the holder gives them back."""
    qmgr.define_queue("Q.RUN.LEASE")
    o = pymqi.Queue(other, "Q.RUN.LEASE", ALL)
    for i in range(12):
        _put(o, b"g%02d" % i)
    assert [_single(o, NO_SP) for _ in range(4)] == [b"g00", b"g01", b"g02", b"g03"]
    data = world.server.data(qmgr.get_handle().qmgr, "Q.RUN.LEASE")
    leased = sorted(c for c, (owner, _) in data.lock.items() if owner.startswith("~"))
    assert leased  # the other handle holds a run ahead
    q = pymqi.Queue(qmgr, "Q.RUN.LEASE", ALL)
    got = [r.data for r in q.get_handle().get_run(_req(SP), 20)]
    # Whatever was got, nothing came from behind the leased run while it was held.
    assert got == [b"g%02d" % i for i in range(4, 4 + len(got))]
    qmgr.commit()


def test_a_run_waits_for_its_first_message(world, qmgr, other) -> None:
    qmgr.define_queue("Q.RUN.WAIT")
    q = pymqi.Queue(qmgr, "Q.RUN.WAIT", ALL)
    o = pymqi.Queue(other, "Q.RUN.WAIT", ALL)
    assert _reason(lambda: _run(q, SP | C.MQGMO_WAIT, 5, wait=200)) == C.MQRC_NO_MSG_AVAILABLE
    _put(o, b"w0")
    _put(o, b"w1")
    assert [d for d, _ in _run(q, SP | C.MQGMO_WAIT, 5, wait=200)] == [b"w0", b"w1"]
    qmgr.commit()


def test_get_inhibited_and_not_open_for_input(qmgr) -> None:
    qmgr.define_queue("Q.RUN.INH")
    q = pymqi.Queue(qmgr, "Q.RUN.INH", ALL)
    _put(q, b"x")
    out = pymqi.Queue(qmgr, "Q.RUN.INH", C.MQOO_OUTPUT)
    assert _reason(lambda: _run(out, SP, 5)) == C.MQRC_NOT_OPEN_FOR_INPUT
    qmgr.alter_queue("Q.RUN.INH", get_inhibited=True)
    assert _reason(lambda: _run(q, SP, 5)) == C.MQRC_GET_INHIBITED


def test_backout_threshold_requeues_poison_messages_in_the_run(qmgr) -> None:
    qmgr.define_queue("Q.RUN.BOQ")
    qmgr.define_queue("Q.RUN.POISON", backout_threshold=2, backout_requeue_q="Q.RUN.BOQ")
    q = pymqi.Queue(qmgr, "Q.RUN.POISON", ALL)
    for i in range(3):
        _put(q, b"p%d" % i)
    for _ in range(2):
        assert len(_run(q, SP, 10)) == 3
        qmgr.backout()
    assert _reason(lambda: _run(q, SP, 10)) == C.MQRC_NO_MSG_AVAILABLE
    qmgr.commit()
    boq = pymqi.Queue(qmgr, "Q.RUN.BOQ", ALL)
    assert [_single(boq, NO_SP) for _ in range(4)] == [b"p0", b"p1", b"p2", None]


def test_gets_a_run_cannot_serve_are_one_mqget(qmgr) -> None:
    """Matching (here by CorrelId) is not a run: one message, the one asked for."""
    qmgr.define_queue("Q.RUN.MATCH")
    q = pymqi.Queue(qmgr, "Q.RUN.MATCH", ALL)
    _put(q, b"a")
    _put(q, b"b", CorrelId=b"WANTED")
    _put(q, b"c")
    req = pymqi.get_request(
        pymqi.MD(CorrelId=b"WANTED"), pymqi.GMO(Options=SP, MatchOptions=C.MQMO_MATCH_CORREL_ID)
    )
    assert [r.data for r in q.get_handle().get_run(req, 10)] == [b"b"]
    qmgr.commit()


_MESSAGES = st.lists(
    st.tuples(st.integers(0, 9), st.booleans(), st.integers(1, 300), st.booleans()),
    min_size=1,
    max_size=30,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    messages=_MESSAGES,
    options=st.sampled_from([SP, SPIP, NO_SP]),
    limit=st.integers(1, 12),
    max_bytes=st.sampled_from([0, 1, 200, 1000]),
    commit_every=st.integers(1, 4),
)
def test_runs_return_what_single_gets_return(messages, options, limit, max_bytes, commit_every):
    """Two identical queues: one drained by runs, the other by single MQGETs with the
    same options. Same messages, same order, same MQMD; both end empty after commit."""
    outcomes = []
    for by_run in (True, False):
        world = World()
        qm = world.connect("QMRUN")
        name = f"Q.RUN.P{next(_QUEUES)}"
        qm.define_queue(name)
        q = pymqi.Queue(qm, name, ALL)
        for i, (prio, persistent, size, short) in enumerate(messages):
            md = pymqi.MD(
                Priority=prio,
                Persistence=C.MQPER_PERSISTENT if persistent else C.MQPER_NOT_PERSISTENT,
                Expiry=3 if short else C.MQEI_UNLIMITED,
            )
            q.put(b"%03d" % i + b"x" * size, md)
        world.clock.advance(0.5)  # the short-lived ones expire
        got: list[tuple[bytes, int, int]] = []
        calls = 0
        while True:
            if by_run:
                try:
                    run = q.get_handle().get_run(_req(options), limit, max_bytes)
                except pymqi.MQMIError as err:
                    assert err.reason == C.MQRC_NO_MSG_AVAILABLE
                    break
                got += [(r.data, r.md["Priority"], r.md["Persistence"]) for r in run]
            else:
                md = pymqi.MD()
                try:
                    data = q.get(None, md, pymqi.GMO(Options=options))
                except pymqi.MQMIError as err:
                    assert err.reason == C.MQRC_NO_MSG_AVAILABLE
                    break
                got.append((data, md.Priority, md.Persistence))
            calls += 1
            if calls % commit_every == 0:
                qm.commit()
        qm.commit()
        assert qm.queue_status(name)["current_depth"] == 0
        outcomes.append(got)
        qm.disconnect()
    assert outcomes[0] == outcomes[1]
