"""Remote queues through the pymqi face on the in-memory backends: QREMOTE definitions,
transmission queues (USAGE(XMITQ)), DEFXMITQ and queue-manager aliases; MQOPEN name
resolution and its reasons (2045, 2087, 2091, 2092, 2184, 2196-2199); the message on the
transmission queue (MQXQH with the embedded MQMD, MQMDE for version-2 fields, the
separate descriptor); the Resolved names; MQINQ of the definition; PUT(DISABLED) and
DEFPRTY of the definition; syncpoint."""

from __future__ import annotations

import pytest

import adapter.pymqi as pymqi
from adapter.core import xqh
from adapter.core.text import mqstr
from tests.integration.conftest import mqerror

C = pymqi.CMQC
OUT = C.MQOO_OUTPUT
REMOTE, XMIT = C.MQQT_REMOTE, C.MQUS_TRANSMISSION


def fails(call, reason: int) -> None:
    with pytest.raises(pymqi.MQMIError) as exc:
        call()
    assert mqerror(exc) == (C.MQCC_FAILED, reason)


def od(name: str, qmgr: str = "") -> pymqi.OD:
    return pymqi.OD(
        Version=C.MQOD_VERSION_3, ObjectName=name.encode(), ObjectQMgrName=qmgr.encode()
    )


def take(qmgr, queue: str) -> tuple[bytes, pymqi.MD]:
    """The next message of a (transmission) queue, with its separate descriptor."""
    q = pymqi.Queue(qmgr, queue, C.MQOO_INPUT_SHARED)
    md = pymqi.MD()
    data = q.get(None, md, pymqi.GMO(Options=C.MQGMO_NO_SYNCPOINT))
    q.close()
    return data, md


@pytest.fixture
def remote(qmgr):
    """QM2.XMIT, a transmission queue, and R.ORDERS, ORDERS at QM2 through it."""
    qmgr.define_queue("QM2.XMIT", usage=XMIT)
    qmgr.define_queue(
        "R.ORDERS",
        queue_type=REMOTE,
        remote_q_name="ORDERS",
        remote_q_mgr_name="QM2",
        xmit_q_name="QM2.XMIT",
        def_priority=6,
    )
    return qmgr


def test_a_put_to_a_remote_queue_waits_on_its_transmission_queue_behind_an_mqxqh(
    remote, qmgr_name
) -> None:
    desc = od("R.ORDERS")
    q = pymqi.Queue(remote, desc, OUT)
    assert (mqstr(desc.ResolvedQName), mqstr(desc.ResolvedQMgrName)) == ("ORDERS", "QM2")
    md = pymqi.MD(Report=C.MQRO_COA | C.MQRO_COD, ReplyToQ=b"REPLIES", Format=C.MQFMT_STRING)
    pmo = pymqi.PMO(Options=C.MQPMO_NO_SYNCPOINT)
    q.put(b"order 1", md, pmo)
    assert (mqstr(pmo.ResolvedQName), mqstr(pmo.ResolvedQMgrName)) == ("ORDERS", "QM2")
    assert remote.queue_status("QM2.XMIT")["open_output_count"] == 1  # the xmitq's OPPROCS

    data, sep = take(remote, "QM2.XMIT")
    got = xqh.unwrap(data)
    assert (got.remote_q_name, got.remote_q_mgr_name, got.data) == ("ORDERS", "QM2", b"order 1")
    # The embedded MQMD is the application's message.
    assert got.md["MsgId"] == md.MsgId and got.md["Format"] == "MQSTR"
    assert got.md["Priority"] == 6  # the QREMOTE definition's DEFPRTY
    assert got.md["Report"] == C.MQRO_COA | C.MQRO_COD and got.md["ReplyToQ"] == "REPLIES"
    assert got.md["ReplyToQMgr"] == qmgr_name and got.mde is None
    # The separate descriptor is the queue manager's.
    assert sep.Format == C.MQFMT_XMIT_Q_HEADER and sep.CorrelId == md.MsgId
    assert sep.MsgId != md.MsgId and sep.Report == 0  # no COA / COD for the xmitq
    assert sep.PutApplType == C.MQAT_QMGR and mqstr(sep.PutApplName) == qmgr_name
    assert sep.Priority == 6 and sep.ReplyToQ.rstrip() == b"REPLIES"
    # No COA was made here: the destination queue manager confirms arrival.
    assert remote.queue_status("QM2.XMIT")["current_depth"] == 0
    q.close()
    # pymqi's XQH reads the same bytes.
    header = pymqi.XQH().get_header(data)
    assert header.RemoteQName.rstrip() == b"ORDERS"
    assert pymqi.XQH.get_embedded_md(data).MsgId == md.MsgId


def test_version_2_fields_travel_in_an_mqmde(remote) -> None:
    q = pymqi.Queue(remote, "R.ORDERS", OUT)
    pmo = pymqi.PMO(Options=C.MQPMO_NO_SYNCPOINT | C.MQPMO_LOGICAL_ORDER)
    md = pymqi.MD(Version=C.MQMD_VERSION_2, MsgFlags=C.MQMF_MSG_IN_GROUP, Format=C.MQFMT_STRING)
    q.put(b"first", md, pmo)
    md2 = pymqi.MD(Version=C.MQMD_VERSION_2, MsgFlags=C.MQMF_LAST_MSG_IN_GROUP)
    q.put(b"second", md2, pmo)
    q.close()
    first = xqh.unwrap(take(remote, "QM2.XMIT")[0])
    second = xqh.unwrap(take(remote, "QM2.XMIT")[0])
    assert first.md["Format"] == mqstr(C.MQFMT_MD_EXTENSION)
    assert first.mde["Format"] == "MQSTR" and first.mde["GroupId"] == md.GroupId
    assert (first.mde["MsgSeqNumber"], second.mde["MsgSeqNumber"]) == (1, 2)
    assert second.mde["MsgFlags"] & C.MQMF_LAST_MSG_IN_GROUP and second.data == b"second"


def test_transmission_queue_by_object_qmgr_name_default_xmitq_and_qmgr_alias(remote) -> None:
    # ObjectQMgrName naming a transmission queue: the queue manager of that name.
    remote.put1(od("INVOICES", "QM2.XMIT"), b"a")
    # Any other queue manager goes through DEFXMITQ.
    remote.define_queue("DEFAULT.XMIT", usage=XMIT)
    remote.alter_qmgr(def_xmit_q="DEFAULT.XMIT")
    remote.put1(od("PAYMENTS", "QM9"), b"b")
    # A queue-manager alias (RNAME blank): QM.ALIAS means QM2, through its XMITQ.
    remote.define_queue(
        "QM.ALIAS", queue_type=REMOTE, remote_q_mgr_name="QM2", xmit_q_name="QM2.XMIT"
    )
    remote.put1(od("STOCK", "QM.ALIAS"), b"c")
    # A queue-manager alias of this queue manager resolves here.
    remote.define_queue("LOCAL.Q")
    remote.define_queue("HERE", queue_type=REMOTE, remote_q_mgr_name=remote.get_name())
    remote.put1(od("LOCAL.Q", "HERE"), b"d")
    routes = [xqh.unwrap(take(remote, "QM2.XMIT")[0]) for _ in range(2)]
    assert [(r.remote_q_name, r.remote_q_mgr_name, r.data) for r in routes] == [
        ("INVOICES", "QM2.XMIT", b"a"),
        ("STOCK", "QM2", b"c"),
    ]
    via_default = xqh.unwrap(take(remote, "DEFAULT.XMIT")[0])
    assert (via_default.remote_q_name, via_default.remote_q_mgr_name) == ("PAYMENTS", "QM9")
    assert take(remote, "LOCAL.Q")[0] == b"d"


def test_resolution_reasons(remote) -> None:
    qm = remote
    qm.define_queue("PLAIN")  # a local queue that is no transmission queue
    qm.define_queue("AN.ALIAS", queue_type=C.MQQT_ALIAS, target="PLAIN")
    cases = {
        "NO.RNAME": ({"remote_q_mgr_name": "QM2"}, C.MQRC_REMOTE_Q_NAME_ERROR),  # 2184
        "NO.RQM": ({"remote_q_name": "X"}, C.MQRC_UNKNOWN_REMOTE_Q_MGR),  # 2087
        "NO.XMITQ": (
            {"remote_q_name": "X", "remote_q_mgr_name": "QM2", "xmit_q_name": "NONE"},
            C.MQRC_UNKNOWN_XMIT_Q,  # 2196
        ),
        "ALIAS.XMITQ": (
            {"remote_q_name": "X", "remote_q_mgr_name": "QM2", "xmit_q_name": "AN.ALIAS"},
            C.MQRC_XMIT_Q_TYPE_ERROR,  # 2091
        ),
        "NORMAL.XMITQ": (
            {"remote_q_name": "X", "remote_q_mgr_name": "QM2", "xmit_q_name": "PLAIN"},
            C.MQRC_XMIT_Q_USAGE_ERROR,  # 2092
        ),
        "NO.ROUTE": ({"remote_q_name": "X", "remote_q_mgr_name": "QM7"}, 2087),
    }
    for name, (attrs, reason) in cases.items():
        qm.define_queue(name, queue_type=REMOTE, **attrs)
        fails(lambda n=name: pymqi.Queue(qm, n, OUT), reason)
        fails(lambda n=name: qm.put1(n, b"x"), reason)
    # DEFXMITQ: missing (2197), not a local queue (2198), not a transmission queue (2199).
    for default, reason in (
        ("MISSING", C.MQRC_UNKNOWN_DEF_XMIT_Q),
        ("AN.ALIAS", C.MQRC_DEF_XMIT_Q_TYPE_ERROR),
        ("PLAIN", C.MQRC_DEF_XMIT_Q_USAGE_ERROR),
    ):
        qm.alter_qmgr(def_xmit_q=default)
        fails(lambda: pymqi.Queue(qm, od("Q", "QM7"), OUT), reason)
        fails(lambda: pymqi.Queue(qm, "NO.ROUTE", OUT), reason)
    # Only output (and MQINQ of a local definition) for a remote queue.
    for options in (C.MQOO_INPUT_SHARED, C.MQOO_BROWSE, C.MQOO_SET, OUT | C.MQOO_INPUT_AS_Q_DEF):
        fails(lambda o=options: pymqi.Queue(qm, "R.ORDERS", o), C.MQRC_OPTION_NOT_VALID_FOR_TYPE)
    fails(
        lambda: pymqi.Queue(qm, od("X", "QM2.XMIT"), OUT | C.MQOO_INQUIRE),
        C.MQRC_OPTION_NOT_VALID_FOR_TYPE,
    )


def test_mqinq_answers_the_definition_and_put_disabled_applies(remote) -> None:
    q = pymqi.Queue(remote, "R.ORDERS", OUT | C.MQOO_INQUIRE)
    assert q.inquire(C.MQIA_Q_TYPE) == REMOTE
    assert q.inquire(C.MQCA_REMOTE_Q_NAME).rstrip() == b"ORDERS"
    assert q.inquire(C.MQCA_REMOTE_Q_MGR_NAME).rstrip() == b"QM2"
    assert q.inquire(C.MQCA_XMIT_Q_NAME).rstrip() == b"QM2.XMIT"
    xmit = pymqi.Queue(remote, "QM2.XMIT", C.MQOO_INQUIRE)
    assert xmit.inquire(C.MQIA_USAGE) == C.MQUS_TRANSMISSION
    fails(lambda: remote.delete_queue("R.ORDERS"), C.MQRC_OBJECT_IN_USE)  # it is open
    remote.alter_queue("R.ORDERS", put_inhibited=True)
    fails(lambda: q.put(b"no"), C.MQRC_PUT_INHIBITED)
    q.close()
    xmit.close()
    remote.delete_queue("R.ORDERS")


def test_a_remote_put_under_syncpoint_reaches_the_xmitq_at_commit(remote) -> None:
    q = pymqi.Queue(remote, "R.ORDERS", OUT)
    q.put(b"held", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
    # On the transmission queue for MQ's CurrentQDepth, which counts uncommitted puts,
    # but no getter can have it before the commit.
    assert remote.queue_status("QM2.XMIT")["current_depth"] == 1
    fails(lambda: take(remote, "QM2.XMIT"), C.MQRC_NO_MSG_AVAILABLE)
    remote.commit()
    assert xqh.unwrap(take(remote, "QM2.XMIT")[0]).data == b"held"
    q.close()


def test_the_definition_model_takes_remote_attributes() -> None:
    from adapter.core import queueattrs as QA  # noqa: N812

    got = QA.fields_from_mqsc(
        REMOTE, [("RNAME", "ORDERS"), ("RQMNAME", "QM2"), ("XMITQ", "QM2.XMIT"), ("DEFPRTY", "4")]
    )
    assert got == {
        "remote_q_name": "ORDERS",
        "remote_q_mgr_name": "QM2",
        "xmit_q_name": "QM2.XMIT",
        "def_priority": 4,
    }
    assert QA.fields_from_mqsc(C.MQQT_LOCAL, [("USAGE", "XMITQ")]) == {"usage": XMIT}
    with pytest.raises(ValueError, match="MAXDEPTH is not an attribute"):
        QA.fields_from_mqsc(REMOTE, [("MAXDEPTH", "10")])
