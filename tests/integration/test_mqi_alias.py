"""Alias queues, MQOD ObjectQMgrName and the default ReplyToQMgr on the real stack
(Kafka + Redis), with two connections where MQ's rules span applications (every rule
runs on the in-memory backends in tests/unit/test_mqi_alias_memory.py)."""

from __future__ import annotations

import pytest

import adapter.pymqi as pymqi
from adapter.shim import naming
from tests.integration.conftest import mqerror

pytestmark = pytest.mark.integration
C = pymqi.CMQC
IN, OUT, INQ = C.MQOO_INPUT_SHARED, C.MQOO_OUTPUT, C.MQOO_INQUIRE
NOSYNC = C.MQPMO_NO_SYNCPOINT
WAIT = pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=5000)


def fails(call, reason: int, comp: int = C.MQCC_FAILED) -> None:
    with pytest.raises(pymqi.MQMIError) as exc:
        call()
    assert mqerror(exc) == (comp, reason)


def blank48(name: str) -> bytes:
    return name.encode().ljust(48)


def get(q, md: pymqi.MD | None = None) -> bytes:
    gmo = pymqi.GMO(Options=WAIT.Options, WaitInterval=WAIT.WaitInterval)
    return q.get(None, md or pymqi.MD(), gmo)


@pytest.fixture
def other(qmgr, qmgr_name):
    """A second connection to the same queue manager (another application)."""
    qm = pymqi.connect(qmgr_name)
    yield qm
    if qm._conn is not None:
        qm.disconnect()


@pytest.fixture
def aliased(qmgr):
    qmgr.define_queue("ORDERS", def_priority=1)
    qmgr.define_queue(
        "ORDERS.IN",
        queue_type=C.MQQT_ALIAS,
        target="ORDERS",
        def_priority=8,
        def_persistence=C.MQPER_PERSISTENT,
    )
    return qmgr


def test_put_through_the_alias_get_through_the_target_and_back(aliased, other) -> None:
    od = pymqi.OD(ObjectName=b"ORDERS.IN")
    via_alias = pymqi.Queue(aliased, od, IN | OUT)
    assert pymqi.structs.mqstr(od.ObjectName) == "ORDERS.IN"
    assert od.ResolvedQName == blank48("ORDERS")
    assert od.ResolvedQMgrName == blank48(aliased.get_name())
    pmo = pymqi.PMO(Options=NOSYNC)
    via_alias.put(b"order 1", pymqi.MD(), pmo)
    assert pmo.ResolvedQName == blank48("ORDERS")
    target = pymqi.Queue(other, "ORDERS", IN | OUT)
    md = pymqi.MD()
    assert get(target, md) == b"order 1"
    # The defaults are the alias's (DEFPRTY 8, DEFPSIST YES), not the target's.
    assert (md.Priority, md.Persistence) == (8, C.MQPER_PERSISTENT)
    target.put(b"reply", pymqi.MD(), pymqi.PMO(Options=NOSYNC))
    gmo = pymqi.GMO(Options=WAIT.Options, WaitInterval=5000)
    md = pymqi.MD()
    assert via_alias.get(None, md, gmo) == b"reply"
    assert gmo.ResolvedQName == blank48("ORDERS") and md.Priority == 1
    # The alias is a definition: no topics of its own.
    log = aliased.get_handle().log
    assert not log.topic_exists(naming.data_topic(aliased.get_name(), "ORDERS.IN", 0))


def test_put_inhibited_on_the_alias_only(aliased, other) -> None:
    via_alias = pymqi.Queue(aliased, "ORDERS.IN", OUT)
    other.alter_queue("ORDERS.IN", put_inhibited=True)  # another application's ALTER
    fails(lambda: via_alias.put(b"x"), C.MQRC_PUT_INHIBITED)
    fails(lambda: aliased.put1("ORDERS.IN", b"x"), C.MQRC_PUT_INHIBITED)
    aliased.put1("ORDERS", b"direct")  # the target is not inhibited
    assert get(pymqi.Queue(other, "ORDERS", IN)) == b"direct"
    inq = pymqi.Queue(aliased, "ORDERS.IN", INQ)
    assert inq.inquire(C.MQIA_INHIBIT_PUT) == C.MQQA_PUT_INHIBITED
    assert inq.inquire(C.MQIA_Q_TYPE) == C.MQQT_ALIAS
    assert inq.inquire(C.MQCA_BASE_Q_NAME) == blank48("ORDERS")
    fails(lambda: inq.inquire(C.MQIA_CURRENT_Q_DEPTH), 2068, C.MQCC_WARNING)


def test_an_alias_to_a_missing_queue_or_to_another_alias_fails(aliased) -> None:
    aliased.define_queue("TO.NOWHERE", queue_type=C.MQQT_ALIAS, target="NO.SUCH.QUEUE")
    aliased.define_queue("TO.ALIAS", queue_type=C.MQQT_ALIAS, target="ORDERS.IN")
    fails(lambda: pymqi.Queue(aliased, "TO.NOWHERE", OUT), C.MQRC_UNKNOWN_ALIAS_BASE_Q)
    fails(lambda: aliased.put1("TO.NOWHERE", b"x"), C.MQRC_UNKNOWN_ALIAS_BASE_Q)
    fails(lambda: pymqi.Queue(aliased, "TO.ALIAS", OUT), C.MQRC_ALIAS_BASE_Q_TYPE_ERROR)
    fails(lambda: aliased.put1("TO.ALIAS", b"x"), C.MQRC_ALIAS_BASE_Q_TYPE_ERROR)


def test_an_open_alias_keeps_delete_out_and_a_forced_target_change_fails_its_handles(
    aliased, other
) -> None:
    aliased.define_queue("ORDERS.NEW")
    q = pymqi.Queue(other, "ORDERS.IN", OUT)
    fails(lambda: aliased.delete_queue("ORDERS.IN"), C.MQRC_OBJECT_IN_USE)
    fails(lambda: aliased.alter_queue("ORDERS.IN", target="ORDERS.NEW"), 3210)
    aliased.alter_queue("ORDERS.IN", force=True, target="ORDERS.NEW")
    fails(lambda: q.put(b"x"), C.MQRC_OBJECT_CHANGED)
    q.close()
    other.put1("ORDERS.IN", b"to the new target")
    assert get(pymqi.Queue(aliased, "ORDERS.NEW", IN)) == b"to the new target"
    aliased.delete_queue("ORDERS.IN")
    fails(lambda: other.put1("ORDERS.IN", b"x"), C.MQRC_UNKNOWN_OBJECT_NAME)


def test_object_qmgr_name_local_resolves_and_unknown_is_2087(aliased) -> None:
    me = aliased.get_name()
    od = pymqi.OD(ObjectName=b"ORDERS.IN", ObjectQMgrName=me.encode())
    q = pymqi.Queue(aliased, od, OUT)
    q.put(b"local", pymqi.MD(), pymqi.PMO(Options=NOSYNC))
    assert od.ResolvedQMgrName == blank48(me)
    far = pymqi.OD(ObjectName=b"ORDERS", ObjectQMgrName=b"QM.FAR.AWAY")
    fails(lambda: pymqi.Queue(aliased, far, OUT), C.MQRC_UNKNOWN_REMOTE_Q_MGR)
    fails(lambda: aliased.put1(far, b"x"), C.MQRC_UNKNOWN_REMOTE_Q_MGR)
    assert get(pymqi.Queue(aliased, "ORDERS", IN)) == b"local"


def test_reply_to_qmgr_defaults_to_this_queue_manager(aliased, other) -> None:
    sent = pymqi.MD(MsgType=C.MQMT_REQUEST, ReplyToQ=b"MY.REPLIES")
    aliased.put1("ORDERS.IN", b"request", sent, pymqi.PMO(Options=NOSYNC))
    assert sent.ReplyToQMgr == b""  # MQPUT does not write it back
    md = pymqi.MD()
    assert get(pymqi.Queue(other, "ORDERS", IN), md) == b"request"
    assert md.ReplyToQ == blank48("MY.REPLIES")
    assert md.ReplyToQMgr == blank48(aliased.get_name())
