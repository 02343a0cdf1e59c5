"""Publish/subscribe through the pymqi face (Topic, Subscription, SD) on the real stack;
tests/unit/test_pubsub_memory.py runs the same scenarios on the in-memory backends.

Fan-out to wildcard and exact subscriptions (each matching one gets each publication
once, in order; a non-matching one gets none), under syncpoint (visible at MQCMIT),
2550 on request, non-durable subscriptions ending with their handle, durable ones
resumed after their application left (2428 / 2429 / 2432, MQCO_REMOVE_SUB), retained
publications (MQIsRetained, NEW_PUBLICATIONS_ONLY, MQSUBRQ), SelectionString,
SubCorrelId, topic objects, unmanaged subscriptions, and the `_pub` Kafka topic."""

from __future__ import annotations

import pytest

import adapter.pymqi as pymqi
from tests.integration.conftest import mqerror

C = pymqi.CMQC


def _sd(topic: str, options: int = 0, name: str = "", **fields) -> pymqi.SD:
    sd = pymqi.SD()
    sd.Options = options or (C.MQSO_CREATE | C.MQSO_NON_DURABLE | C.MQSO_MANAGED)
    sd.set_vs("ObjectString", topic)
    if name:
        sd.set_vs("SubName", name)
    for key, value in fields.items():
        if key in ("SelectionString", "SubUserData"):
            sd.set_vs(key, value)
        else:
            setattr(sd, key, value)
    return sd


def _sub(qm, topic: str, options: int = 0, name: str = "", **fields) -> pymqi.Subscription:
    sub = pymqi.Subscription(qm)
    sub.sub(sub_desc=_sd(topic, options, name, **fields))
    return sub


def _drain(sub: pymqi.Subscription) -> list[tuple[bytes, pymqi.MD]]:
    got = []
    while True:
        md = pymqi.MD()
        gmo = pymqi.GMO(Options=C.MQGMO_NO_WAIT | C.MQGMO_NO_SYNCPOINT)
        try:
            got.append((sub.get(None, md, gmo), md))
        except pymqi.MQMIError as err:
            assert err.reason == C.MQRC_NO_MSG_AVAILABLE
            return got


def _fails(call, reason: int, comp: int = C.MQCC_FAILED) -> None:
    with pytest.raises(pymqi.MQMIError) as exc:
        call()
    assert mqerror(exc) == (comp, reason)


def test_fan_out_exactly_once_in_order(qmgr):
    wild = _sub(qmgr, "price/#")
    exact = _sub(qmgr, "price/fruit/apple")
    plus = _sub(qmgr, "price/+/pear")
    other = _sub(qmgr, "news/#")
    apple = pymqi.Topic(qmgr, topic_string="price/fruit/apple")
    pear = pymqi.Topic(qmgr, topic_string="price/fruit/pear")
    for i in range(100):
        (apple if i % 2 == 0 else pear).pub(f"m{i}".encode())
    apple.close()
    pear.close()
    assert [m for m, _ in _drain(wild)] == [f"m{i}".encode() for i in range(100)]
    got = _drain(exact)
    assert [m for m, _ in got] == [f"m{i}".encode() for i in range(0, 100, 2)]
    assert [m for m, _ in _drain(plus)] == [f"m{i}".encode() for i in range(1, 100, 2)]
    assert _drain(other) == []
    # Each copy carries its subscription's CorrelId (the generated one MQSUB returned).
    assert {md.CorrelId for _, md in got} == {exact.sub_desc.SubCorrelId}
    assert exact.sub_desc.SubCorrelId != C.MQCI_NONE
    assert {md.MsgType for _, md in got} == {C.MQMT_DATAGRAM}
    assert len({md.MsgId for _, md in got}) == 50
    for sub in (wild, exact, plus, other):
        sub.close(close_sub_queue=True)


def test_managed_queue_names_and_resolved_topic(qmgr):
    sub = _sub(qmgr, "a/b")
    assert sub.get_sub_queue().get_handle().name.startswith("SYSTEM.MANAGED.NDURABLE.")
    assert sub.sub_desc.get_vs("ResObjectString") == b"a/b"
    durable = _sub(qmgr, "a/b", C.MQSO_CREATE | C.MQSO_DURABLE | C.MQSO_MANAGED, "D.NAMES")
    assert durable.get_sub_queue().get_handle().name.startswith("SYSTEM.MANAGED.DURABLE.")
    durable.close(C.MQCO_REMOVE_SUB, close_sub_queue=True)
    sub.close(close_sub_queue=True)


def test_publish_under_syncpoint_appears_at_commit(qmgr):
    sub = _sub(qmgr, "uow/#")
    topic = pymqi.Topic(qmgr, topic_string="uow/x")
    pmo = pymqi.PMO(Options=C.MQPMO_SYNCPOINT)
    topic.pub(b"one", pymqi.MD(), pmo)
    topic.pub(b"two", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
    assert _drain(sub) == []
    qmgr.commit()
    assert [m for m, _ in _drain(sub)] == [b"one", b"two"]
    topic.pub(b"gone", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
    qmgr.backout()
    assert _drain(sub) == []
    sub.close(close_sub_queue=True)


def test_put1_to_a_topic(qmgr):
    sub = _sub(qmgr, "p1/#")
    od = pymqi.OD(ObjectType=C.MQOT_TOPIC)
    od.set_vs("ObjectString", "p1/x")
    qmgr.put1(od, b"once")
    assert [m for m, _ in _drain(sub)] == [b"once"]
    sub.close(close_sub_queue=True)


def test_no_subscriber(qmgr):
    topic = pymqi.Topic(qmgr, topic_string="nobody/here")
    topic.pub(b"x")  # MQRC_NONE: MQ gives no warning unless asked
    pmo = pymqi.PMO(Options=C.MQPMO_WARN_IF_NO_SUBS_MATCHED)
    _fails(lambda: topic.pub(b"y", pymqi.MD(), pmo), C.MQRC_NO_SUBS_MATCHED, C.MQCC_WARNING)


def test_non_durable_ends_with_its_handle(qmgr):
    sub = _sub(qmgr, "nd/t")
    queue_name = sub.get_sub_queue().get_handle().name
    topic = pymqi.Topic(qmgr, topic_string="nd/t")
    topic.pub(b"before")
    sub.close()  # the subscription goes; its queue stays until its handle closes
    topic.pub(b"after")
    assert [m for m, _ in _drain(sub)] == [b"before"]
    sub.get_sub_queue().close()
    assert qmgr.get_handle().lookup_queue(queue_name, refresh=True) is None


def test_durable_resume_in_use_and_remove(qmgr, qmgr_name):
    durable = C.MQSO_DURABLE | C.MQSO_MANAGED
    sub = _sub(qmgr, "dur/t", C.MQSO_CREATE | durable, "DUR.1")
    _fails(
        lambda: _sub(qmgr, "dur/t", C.MQSO_CREATE | durable, "DUR.1"), C.MQRC_SUBSCRIPTION_IN_USE
    )
    sub.close(C.MQCO_KEEP_SUB, close_sub_queue=True)
    _fails(lambda: _sub(qmgr, "dur/t", C.MQSO_CREATE | durable, "DUR.1"), C.MQRC_SUB_ALREADY_EXISTS)
    _fails(lambda: _sub(qmgr, "dur/t", C.MQSO_RESUME | durable, "NO.SUCH"), C.MQRC_NO_SUBSCRIPTION)
    topic = pymqi.Topic(qmgr, topic_string="dur/t")
    for i in range(5):
        topic.pub(f"kept{i}".encode())
    qmgr.disconnect()
    qm2 = pymqi.connect(qmgr_name)
    try:
        back = pymqi.Subscription(qm2)
        sd = pymqi.SD(Options=C.MQSO_RESUME | durable)
        sd.set_vs("SubName", "DUR.1")
        back.sub(sub_desc=sd)
        assert sd.get_vs("ResObjectString") == b"dur/t"
        assert [m for m, _ in _drain(back)] == [f"kept{i}".encode() for i in range(5)]
        back.close(C.MQCO_REMOVE_SUB, close_sub_queue=True)
        _fails(lambda: _sub(qm2, "dur/t", C.MQSO_RESUME | durable, "DUR.1"), C.MQRC_NO_SUBSCRIPTION)
    finally:
        qm2.disconnect()


def test_option_errors(qmgr):
    _fails(lambda: _sub(qmgr, "x", C.MQSO_MANAGED), C.MQRC_OPTIONS_ERROR)  # no access option
    _fails(
        lambda: _sub(qmgr, "x", C.MQSO_CREATE | C.MQSO_DURABLE | C.MQSO_MANAGED),
        C.MQRC_SUB_NAME_ERROR,
    )
    _fails(lambda: _sub(qmgr, "x", C.MQSO_CREATE), C.MQRC_HOBJ_ERROR)  # unmanaged, no queue
    both = C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_WILDCARD_CHAR | C.MQSO_WILDCARD_TOPIC
    _fails(lambda: _sub(qmgr, "x", both), C.MQRC_OPTIONS_ERROR)
    _fails(
        lambda: _sub(qmgr, "a%b", C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_WILDCARD_CHAR),
        C.MQRC_TOPIC_STRING_ERROR,
    )
    _fails(lambda: _sub(qmgr, "", C.MQSO_CREATE | C.MQSO_MANAGED), C.MQRC_UNKNOWN_OBJECT_NAME)
    _fails(
        lambda: pymqi.Topic(qmgr, topic_string="t", open_opts=C.MQOO_INPUT_SHARED),
        C.MQRC_OPTION_NOT_VALID_FOR_TYPE,
    )
    # MQINQ takes a queue manager, queue, namelist or process handle, never a topic's
    # (MQINQ, "The following types of object are valid"): MQOO_INQUIRE on a topic too.
    _fails(
        lambda: pymqi.Topic(qmgr, topic_string="t", open_opts=C.MQOO_OUTPUT | C.MQOO_INQUIRE),
        C.MQRC_OPTION_NOT_VALID_FOR_TYPE,
    )


def test_retained_publications(qmgr):
    topic = pymqi.Topic(qmgr, topic_string="ret/t")
    topic.pub(b"old", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_RETAIN))
    topic.pub(b"latest", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_RETAIN))
    sub = _sub(qmgr, "ret/#")
    got = _drain(sub)
    assert [m for m, _ in got] == [b"latest"]
    fresh = _sub(qmgr, "ret/t", C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_NEW_PUBLICATIONS_ONLY)
    assert _drain(fresh) == []
    sro = pymqi.SRO()
    fresh.subrq(C.MQSR_ACTION_PUBLICATION, sro)
    assert sro.NumPubs == 1
    assert [m for m, _ in _drain(fresh)] == [b"latest"]
    none = _sub(qmgr, "ret/none", C.MQSO_CREATE | C.MQSO_MANAGED)
    _fails(lambda: none.subrq(C.MQSR_ACTION_PUBLICATION), C.MQRC_NO_RETAINED_MSG)
    # The retained copy says so in MQIsRetained (read through a message handle).
    again = _sub(qmgr, "ret/t")
    hmsg = pymqi.MessageHandle(qmgr)
    gmo = pymqi.GMO(Options=C.MQGMO_NO_WAIT | C.MQGMO_PROPERTIES_IN_HANDLE)
    gmo.MsgHandle = hmsg.msg_handle
    assert again.get(None, pymqi.MD(), gmo) == b"latest"
    assert hmsg.properties.get("MQIsRetained") in (True, 1)
    assert hmsg.properties.get("MQTopicString") in ("ret/t", b"ret/t")
    for s in (sub, fresh, none, again):
        s.close(close_sub_queue=True)


def test_on_request_only_gets_what_it_asks(qmgr):
    topic = pymqi.Topic(qmgr, topic_string="req/t")
    topic.pub(b"r1", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_RETAIN))
    sub = _sub(qmgr, "req/t", C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_PUBLICATIONS_ON_REQUEST)
    topic.pub(b"r2")
    assert _drain(sub) == []
    sub.subrq()
    assert [m for m, _ in _drain(sub)] == [b"r1"]
    sub.close(close_sub_queue=True)


def test_selection_string_and_correl_id(qmgr):
    correl = b"MYCORREL".ljust(24, b"\0")
    sub = _sub(
        qmgr,
        "sel/t",
        C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_SET_CORREL_ID,
        SelectionString="Root.MQMD.Priority > 4",
        SubCorrelId=correl,
        PubPriority=C.MQPRI_PRIORITY_AS_PUBLISHED,
    )
    # The SD's initial PubPriority (IBM's Python SD: MQPRI_PRIORITY_AS_Q_DEF) gives the
    # queue's default priority to every copy.
    as_q_def = _sub(qmgr, "sel/t")
    topic = pymqi.Topic(qmgr, topic_string="sel/t")
    topic.pub(b"low", pymqi.MD(Priority=1))
    topic.pub(b"high", pymqi.MD(Priority=7))
    got = _drain(sub)
    assert [m for m, _ in got] == [b"high"]
    assert got[0][1].CorrelId == correl
    assert got[0][1].Priority == 7
    assert [md.Priority for _, md in _drain(as_q_def)] == [0, 0]
    sub.close(close_sub_queue=True)
    as_q_def.close(close_sub_queue=True)


def test_topic_object_and_unmanaged_subscription(qmgr):
    qmgr.define_topic("SPORTS", "sports")
    qmgr.define_queue("SPORTS.Q")
    q = pymqi.Queue(qmgr, "SPORTS.Q", C.MQOO_INPUT_AS_Q_DEF)
    sub = pymqi.Subscription(qmgr)
    sd = pymqi.SD(Options=C.MQSO_CREATE)
    sd.ObjectName = "SPORTS"
    sd.set_vs("ObjectString", "#")
    sub.sub(sub_desc=sd, sub_queue=q)
    assert sd.get_vs("ResObjectString") == b"sports/#"
    topic = pymqi.Topic(qmgr, topic_name="SPORTS", topic_string="football")
    topic.pub(b"goal")
    md = pymqi.MD()
    assert q.get(None, md, pymqi.GMO(Options=C.MQGMO_NO_WAIT)) == b"goal"
    sub.close()
    topic.pub(b"later")
    _fails(
        lambda: q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_NO_WAIT)), C.MQRC_NO_MSG_AVAILABLE
    )
    _fails(
        lambda: pymqi.Topic(qmgr, topic_name="NO.SUCH", open_opts=C.MQOO_OUTPUT),
        C.MQRC_UNKNOWN_OBJECT_NAME,
    )
    _fails(
        lambda: pymqi.Topic(qmgr, topic_name="SYSTEM.BASE.TOPIC", open_opts=C.MQOO_OUTPUT),
        C.MQRC_TOPIC_STRING_ERROR,
    )
    q.close()


def test_subscription_seen_by_another_connection(qmgr, qmgr_name):
    """A subscription made by one connection is matched by another's next publication
    (the publisher's index follows the subscriptions version)."""
    qm2 = pymqi.connect(qmgr_name)
    try:
        topic = pymqi.Topic(qm2, topic_string="x/y")
        topic.pub(b"none yet")
        sub = _sub(qmgr, "x/#")
        topic.pub(b"seen")
        assert [m for m, _ in _drain(sub)] == [b"seen"]
        sub.close(close_sub_queue=True)
        topic.pub(b"after close")
    finally:
        qm2.disconnect()


def test_alter_changes_user_data_and_correl_id(qmgr):
    durable = C.MQSO_DURABLE | C.MQSO_MANAGED
    sub = _sub(qmgr, "alt/t", C.MQSO_CREATE | durable, "ALT.1", SubUserData="first")
    sub.close(C.MQCO_KEEP_SUB, close_sub_queue=True)
    correl = b"ALTERED".ljust(24, b"\0")
    altered = _sub(
        qmgr,
        "alt/t",
        C.MQSO_ALTER | C.MQSO_SET_CORREL_ID | durable,
        "ALT.1",
        SubUserData="second",
        SubCorrelId=correl,
    )
    pymqi.Topic(qmgr, topic_string="alt/t").pub(b"p")
    hmsg = pymqi.MessageHandle(qmgr)
    gmo = pymqi.GMO(Options=C.MQGMO_NO_WAIT | C.MQGMO_PROPERTIES_IN_HANDLE)
    gmo.MsgHandle = hmsg.msg_handle
    md = pymqi.MD()
    assert altered.get(None, md, gmo) == b"p"
    assert md.CorrelId == correl
    assert hmsg.properties.get("MQSubUserData") in ("second", b"second")
    altered.close(C.MQCO_REMOVE_SUB, close_sub_queue=True)


def test_suppress_replyto_and_not_own_subs(qmgr, qmgr_name):
    mine = _sub(qmgr, "own/t")
    qm2 = pymqi.connect(qmgr_name)
    try:
        theirs = _sub(qm2, "own/t")
        topic = pymqi.Topic(qmgr, topic_string="own/t")
        md = pymqi.MD(MsgType=C.MQMT_REQUEST, ReplyToQ=b"REPLY.Q")
        topic.pub(b"ask", md, pymqi.PMO(Options=C.MQPMO_NOT_OWN_SUBS))
        assert _drain(mine) == []
        [(msg, got)] = _drain(theirs)
        assert msg == b"ask" and got.ReplyToQ.strip() == b"REPLY.Q"
        assert got.MsgType == C.MQMT_REQUEST  # the publisher's MQMD, reply-to and all
        md = pymqi.MD(MsgType=C.MQMT_REQUEST, ReplyToQ=b"REPLY.Q")
        topic.pub(b"tell", md, pymqi.PMO(Options=C.MQPMO_SUPPRESS_REPLYTO))
        for sub in (mine, theirs):
            [(msg, got)] = _drain(sub)
            assert msg == b"tell" and got.ReplyToQ.strip(b" \0") == b""
        theirs.close(close_sub_queue=True)
    finally:
        qm2.disconnect()
    mine.close(close_sub_queue=True)
