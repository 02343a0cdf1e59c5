"""A subscription queue that cannot take a publication (full, PUT(DISABLED), gone), on
the real stack (tests/unit/test_pubsub_delivery_memory.py runs the same on the
in-memory backends): USEDLQ sends the copy to the dead-letter queue with an MQDLH;
without it PMSGDLV / NPMSGDLV decide: ALLAVAIL delivers to the others, ALL fails the
publication (2502, nobody gets it), ALLDUR fails it for a durable subscription only."""

from __future__ import annotations

import pytest

import adapter.pymqi as pymqi
from tests.integration.conftest import mqerror
from tests.integration.test_pubsub import _drain, _sd, _sub
from tests.integration.test_pubsub_subadmin import _get_all

C = pymqi.CMQC
NO_DLQ = {"use_dlq": C.MQUSEDLQ_NO}
PERSISTENT = pymqi.MD(Persistence=C.MQPER_PERSISTENT)


def _full_queue(qmgr, name: str) -> pymqi.Queue:
    """A queue with MAXDEPTH(1) holding one message, opened for input."""
    qmgr.define_queue(name, max_depth=1)
    q = pymqi.Queue(qmgr, name, C.MQOO_INPUT_AS_Q_DEF | C.MQOO_OUTPUT)
    q.put(b"filler")
    return q


def _onto(qmgr, topic: str, queue: pymqi.Queue, durable_name: str = "") -> pymqi.Subscription:
    """An unmanaged subscription on `queue` (durable when named)."""
    options = C.MQSO_CREATE | (C.MQSO_DURABLE if durable_name else 0)
    sub = pymqi.Subscription(qmgr)
    sub.sub(sub_desc=_sd(topic, options, durable_name), sub_queue=queue)
    return sub


def _fails_2502(call) -> None:
    with pytest.raises(pymqi.MQMIError) as exc:
        call()
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_PUBLICATION_FAILURE)


def test_allavail_delivers_to_the_others(qmgr):
    qmgr.define_topic("DLV.A", "dlv/a", **NO_DLQ)  # NPMSGDLV(ALLAVAIL) from the base
    full = _full_queue(qmgr, "DLV.A.FULL")
    stuck = _onto(qmgr, "dlv/a", full)
    other = _sub(qmgr, "dlv/a")
    pymqi.Topic(qmgr, topic_string="dlv/a").pub(b"np")
    assert [m for m, _ in _drain(other)] == [b"np"]
    assert [m for m, _ in _get_all(qmgr, "DLV.A.FULL")] == [b"filler"]
    stuck.close()
    other.close(close_sub_queue=True)


def test_all_fails_the_publication_for_everyone(qmgr):
    qmgr.define_topic("DLV.B", "dlv/b", npm_delivery=C.MQDLV_ALL, **NO_DLQ)
    full = _full_queue(qmgr, "DLV.B.FULL")
    stuck = _onto(qmgr, "dlv/b", full)
    other = _sub(qmgr, "dlv/b")
    topic = pymqi.Topic(qmgr, topic_string="dlv/b")
    _fails_2502(lambda: topic.pub(b"np"))
    assert _drain(other) == []  # nobody got it
    full.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_NO_WAIT))  # room again
    topic.pub(b"np2")
    assert [m for m, _ in _drain(other)] == [b"np2"]
    stuck.close()
    other.close(close_sub_queue=True)


def test_alldur_fails_only_for_a_durable_subscription(qmgr):
    qmgr.define_topic("DLV.C", "dlv/c", **NO_DLQ)  # PMSGDLV(ALLDUR) from the base
    full = _full_queue(qmgr, "DLV.C.FULL")
    stuck = _onto(qmgr, "dlv/c", full)  # non-durable
    other = _sub(qmgr, "dlv/c")
    topic = pymqi.Topic(qmgr, topic_string="dlv/c")
    topic.pub(b"p1", PERSISTENT)
    assert [m for m, _ in _drain(other)] == [b"p1"]
    stuck.close()
    durable = _onto(qmgr, "dlv/c", full, "DLV.C.DUR")
    _fails_2502(lambda: topic.pub(b"p2", pymqi.MD(Persistence=C.MQPER_PERSISTENT)))
    assert _drain(other) == []
    topic.pub(b"np")  # non-persistent: NPMSGDLV(ALLAVAIL)
    assert [m for m, _ in _drain(other)] == [b"np"]
    durable.close(C.MQCO_REMOVE_SUB)
    other.close(close_sub_queue=True)


def test_usedlq_moves_the_copy_to_the_dead_letter_queue(qmgr):
    qmgr.define_queue("DLV.DLQ")
    qmgr.alter_qmgr(dead_letter_q="DLV.DLQ")
    qmgr.define_topic("DLV.D", "dlv/d", npm_delivery=C.MQDLV_ALL)  # USEDLQ(YES) from base
    qmgr.define_queue("DLV.D.OFF", put_inhibited=True)
    off = pymqi.Queue(qmgr, "DLV.D.OFF", C.MQOO_INPUT_AS_Q_DEF)
    stuck = _onto(qmgr, "dlv/d", off)
    other = _sub(qmgr, "dlv/d")
    pymqi.Topic(qmgr, topic_string="dlv/d").pub(b"to the dlq")  # ALL, yet it succeeds
    assert [m for m, _ in _drain(other)] == [b"to the dlq"]
    [(data, md)] = _get_all(qmgr, "DLV.DLQ")
    dlh = pymqi.DLH().get_header(data)
    assert dlh.Reason == C.MQRC_PUT_INHIBITED
    assert dlh.DestQName.strip() == b"DLV.D.OFF" and md.Format == C.MQFMT_DEAD_LETTER_HEADER
    assert data[C.MQDLH_LENGTH_1 :] == b"to the dlq"
    # The dead-letter queue cannot take it either: ALL fails the publication.
    qmgr.alter_queue("DLV.DLQ", put_inhibited=True)
    _fails_2502(lambda: pymqi.Topic(qmgr, topic_string="dlv/d").pub(b"nowhere"))
    assert _drain(other) == []
    qmgr.alter_queue("DLV.DLQ", put_inhibited=False)
    stuck.close()
    other.close(close_sub_queue=True)


def test_retained_publication_that_cannot_be_delivered_is_2526(qmgr):
    """MQSUB (without MQSO_NEW_PUBLICATIONS_ONLY) and MQSUBRQ: a retained publication
    that neither the subscription's queue (PUT(DISABLED)) nor a dead-letter queue (none
    defined) takes is MQRC_RETAINED_NOT_DELIVERED, and the MQSUB creates nothing."""
    retain = pymqi.PMO(Options=C.MQPMO_RETAIN | C.MQPMO_NO_SYNCPOINT)
    pymqi.Topic(qmgr, topic_string="ret526/a").pub(b"kept", pymqi.MD(), retain)
    qmgr.define_queue("RET526.Q", put_inhibited=True)
    queue = pymqi.Queue(qmgr, "RET526.Q", C.MQOO_OUTPUT | C.MQOO_INPUT_AS_Q_DEF)
    sub = pymqi.Subscription(qmgr)
    with pytest.raises(pymqi.MQMIError) as exc:
        sub.sub(sub_desc=_sd("ret526/#", C.MQSO_CREATE | C.MQSO_DURABLE, "RET526.S"),
                sub_queue=queue)  # fmt: skip
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_RETAINED_NOT_DELIVERED)
    gone = pymqi.Subscription(qmgr)
    with pytest.raises(pymqi.MQMIError) as exc:
        gone.sub(sub_desc=_sd("", C.MQSO_RESUME | C.MQSO_DURABLE, "RET526.S"))
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NO_SUBSCRIPTION)

    # Asking for new publications only, it is made; asking again is 2526 too.
    options = C.MQSO_CREATE | C.MQSO_DURABLE | C.MQSO_NEW_PUBLICATIONS_ONLY
    made = pymqi.Subscription(qmgr)
    made.sub(sub_desc=_sd("ret526/#", options, "RET526.S"), sub_queue=queue)
    with pytest.raises(pymqi.MQMIError) as exc:
        made.subrq()
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_RETAINED_NOT_DELIVERED)
    made.close(sub_close_options=C.MQCO_REMOVE_SUB)
