"""Runs of gets and puts (Getter.get_run, shim/putrun.py) on the real stack: a run takes
the messages single MQGETs would, in priority order, under the unit of work (backed out
and got again with BackoutCount 1, then committed), with one lock_many for the run; a
run of complete puts stores messages that MQGET returns with every MQMD field and
property as given, and refuses past MAXDEPTH message by message."""

from __future__ import annotations

import pytest

import adapter.pymqi as pymqi
from adapter.core import propwire
from adapter.core.calls import PutRequest
from adapter.core.properties import MessageProperties

pytestmark = pytest.mark.integration
C = pymqi.CMQC
ALL = C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT


def _req(options: int):
    return pymqi.get_request(pymqi.MD(), pymqi.GMO(Options=options))


def test_a_run_gets_in_priority_order_under_the_unit_of_work(qmgr) -> None:
    qmgr.define_queue("Q.RUNS.GET")
    q = pymqi.Queue(qmgr, "Q.RUNS.GET", ALL)
    sent = []
    for i in range(120):
        prio = (i * 7) % 10
        q.put(b"g%03d" % i, pymqi.MD(Priority=prio, Persistence=C.MQPER_PERSISTENT))
        sent.append((prio, i))
    expected = [b"g%03d" % i for _, i in sorted(sent, key=lambda p: (-p[0], p[1]))]
    handle = q.get_handle()
    store = qmgr.get_handle().store.queue("Q.RUNS.GET")
    got = []
    while len(got) < 120:
        got += [r.data for r in handle.get_run(_req(C.MQGMO_SYNCPOINT), 50)]
    assert got == expected
    assert store.live_locks() == 120  # locked for the unit of work, not yet consumed
    qmgr.backout()
    again = []
    while len(again) < 120:
        again += handle.get_run(_req(C.MQGMO_SYNCPOINT), 50)
    assert [r.data for r in again] == expected
    assert {r.md["BackoutCount"] for r in again} == {1}
    qmgr.commit()
    assert qmgr.queue_status("Q.RUNS.GET")["current_depth"] == 0
    with pytest.raises(pymqi.MQMIError) as exc:
        handle.get_run(_req(C.MQGMO_SYNCPOINT), 50)
    assert exc.value.reason == C.MQRC_NO_MSG_AVAILABLE


def _put_request(i: int, props: bytes) -> PutRequest:
    return PutRequest(
        options=C.MQPMO_SYNCPOINT | C.MQPMO_SET_ALL_CONTEXT,
        msg_id=b"RUN%021d" % i,
        correl_id=b"CORREL%018d" % i,
        persistence=C.MQPER_PERSISTENT,
        priority=i % 10,
        expiry=C.MQEI_UNLIMITED,
        format="MQSTR",
        ccsid=819,
        msg_type=C.MQMT_DATAGRAM,
        reply_to_q="REPLIES",
        context={
            "UserIdentifier": "alice",
            "AccountingToken": b"\x07" * 32,
            "ApplIdentityData": "ident",
            "PutApplType": C.MQAT_UNIX,
            "PutApplName": "far-app",
            "ApplOriginData": "orig",
            "PutDate": "20261127",
            "PutTime": "19000042",
        },
        properties=props,
    )


def test_a_run_of_complete_puts_keeps_every_field_and_maxdepth(qmgr) -> None:
    qmgr.get_handle().may_set_context = True  # as a receiving MCA
    qmgr.define_queue("Q.RUNS.PUT", max_depth=30)
    props = MessageProperties()
    props.set("usr.colour", "blue")
    packed = propwire.pack(props)
    q = pymqi.Queue(qmgr, "Q.RUNS.PUT", C.MQOO_OUTPUT | C.MQOO_SET_ALL_CONTEXT)
    items = [(_put_request(i, packed), b"p%03d" % i) for i in range(20)]
    assert q.get_handle().put_run(items) == [None] * 20
    qmgr.commit()
    outside = C.MQPMO_NO_SYNCPOINT | C.MQPMO_SET_ALL_CONTEXT
    more = [_put_request(100 + i, b"") for i in range(15)]
    for req in more:
        req.options = outside
    full = q.get_handle().put_run([(req, b"x") for req in more])
    # Puts outside syncpoint count at once: the 20 there leave room for 10.
    assert [e is None for e in full] == [True] * 10 + [False] * 5
    assert {e.reason for e in full if e is not None} == {C.MQRC_Q_FULL}
    reader = pymqi.Queue(qmgr, "Q.RUNS.PUT", C.MQOO_INPUT_SHARED)
    got = {}
    for _ in range(30):
        md, handle = pymqi.MD(), pymqi.MessageHandle(qmgr)
        gmo = pymqi.GMO(
            Options=C.MQGMO_NO_SYNCPOINT | C.MQGMO_PROPERTIES_IN_HANDLE,
            MsgHandle=handle.msg_handle,
        )
        data = reader.get(None, md, gmo)
        if data.startswith(b"p"):  # the others were put without properties
            got[data] = (md, handle.properties.get("usr.colour"))
    for i in range(20):
        md, colour = got[b"p%03d" % i]
        assert (md.MsgId, md.CorrelId) == (b"RUN%021d" % i, b"CORREL%018d" % i)
        assert (md.Priority, md.Persistence, md.CodedCharSetId) == (i % 10, 1, 819)
        assert (md.PutDate, md.PutTime) == (b"20261127", b"19000042")
        assert md.PutApplName.rstrip() == b"far-app" and md.UserIdentifier.rstrip() == b"alice"
        assert md.AccountingToken == b"\x07" * 32 and md.ReplyToQ.rstrip() == b"REPLIES"
        assert colour == "blue"
