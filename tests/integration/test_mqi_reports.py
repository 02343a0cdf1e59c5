"""Report messages (COA, COD, exception) and the dead-letter queue with its MQDLH,
through the pymqi face on the real stack (tests/unit/test_mqi_reports_memory.py runs
the same scenarios on the in-memory backends)."""

from __future__ import annotations

import time

import pytest

import adapter.pymqi as pymqi
from tests.integration.conftest import drain, mqerror

C = pymqi.CMQC
ALL = C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT | C.MQOO_BROWSE
WAIT = 5000


def put(q: pymqi.Queue, body: bytes, options: int = C.MQPMO_NO_SYNCPOINT, **md) -> pymqi.MD:
    m = pymqi.MD(**md)
    q.put(body, m, pymqi.PMO(Options=options))
    return m


def get(q: pymqi.Queue, options: int = C.MQGMO_NO_SYNCPOINT, wait_ms: int = WAIT) -> bytes:
    gmo = pymqi.GMO(Options=options | C.MQGMO_WAIT, WaitInterval=wait_ms)
    return q.get(None, pymqi.MD(), gmo)


def take(q: pymqi.Queue, n: int) -> list[tuple[bytes, pymqi.MD]]:
    """`n` messages, each waited for, then none more (a short look)."""
    out = []
    for _ in range(n):
        md = pymqi.MD()
        gmo = pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=WAIT)
        out.append((q.get(None, md, gmo), md))
    assert drain(q, wait_ms=200) == []
    return out


def reports_on(qmgr, name: str, wait_ms: int) -> list[tuple[bytes, pymqi.MD]]:
    return drain(pymqi.Queue(qmgr, name, C.MQOO_INPUT_SHARED), wait_ms=wait_ms)


def one_report(qmgr, name: str) -> tuple[bytes, pymqi.MD]:
    return take(pymqi.Queue(qmgr, name, C.MQOO_INPUT_SHARED), 1)[0]


def with_dlq(qmgr, name: str = "DLQ") -> pymqi.Queue:
    qmgr.define_queue(name)
    qmgr.alter_qmgr(dead_letter_q=name)
    return pymqi.Queue(qmgr, name, C.MQOO_INPUT_SHARED)


def test_coa_and_cod_arrive_with_their_feedback_and_correl_id(qmgr) -> None:
    qmgr.define_queue("Q.CONFIRM")
    qmgr.define_queue("REPLY.CONFIRM")
    q = pymqi.Queue(qmgr, "Q.CONFIRM", ALL)
    md = put(q, b"order", Report=C.MQRO_COA | C.MQRO_COD, ReplyToQ=b"REPLY.CONFIRM")
    data, coa = one_report(qmgr, "REPLY.CONFIRM")
    assert (coa.MsgType, coa.Feedback) == (C.MQMT_REPORT, C.MQFB_COA)
    assert coa.CorrelId == md.MsgId and coa.MsgId != md.MsgId  # the defaults
    assert data == b"" and coa.Format == C.MQFMT_NONE  # MQRO_COA: no data
    assert coa.Report == C.MQRO_NONE and coa.Expiry == C.MQEI_UNLIMITED
    assert coa.PutApplType == C.MQAT_QMGR
    assert coa.PutApplName.strip() == qmgr.get_name()[:28].encode()
    assert coa.UserIdentifier.strip() == md.UserIdentifier.strip(b" \0")  # the original's
    assert get(q) == b"order"
    data, cod = one_report(qmgr, "REPLY.CONFIRM")
    assert (cod.MsgType, cod.Feedback, cod.CorrelId) == (C.MQMT_REPORT, C.MQFB_COD, md.MsgId)
    assert data == b""


@pytest.mark.parametrize(
    ("report", "expect"),
    [
        (C.MQRO_COD, b""),
        (C.MQRO_COD_WITH_DATA, b"y" * 100),
        (C.MQRO_COD_WITH_FULL_DATA, b"y" * 300),
    ],
)
def test_cod_data_forms_even_when_the_get_truncates(qmgr, report, expect) -> None:
    qmgr.define_queue("Q.CODDATA")
    qmgr.define_queue("REPLY.CODDATA")
    q = pymqi.Queue(qmgr, "Q.CODDATA", ALL)
    put(q, b"y" * 300, Report=report, ReplyToQ=b"REPLY.CODDATA", Format=C.MQFMT_STRING)
    gmo = pymqi.GMO(Options=C.MQGMO_ACCEPT_TRUNCATED_MSG | C.MQGMO_WAIT, WaitInterval=WAIT)
    with pytest.raises(pymqi.MQMIError) as exc:
        q.get(10, pymqi.MD(), gmo)
    assert mqerror(exc) == (C.MQCC_WARNING, C.MQRC_TRUNCATED_MSG_ACCEPTED)
    data, cod = one_report(qmgr, "REPLY.CODDATA")
    assert data == expect  # the original's data, not the truncated copy (outside z/OS)
    assert cod.Format == (C.MQFMT_STRING if expect else C.MQFMT_NONE)


def test_pass_msg_id_and_pass_correl_id(qmgr) -> None:
    qmgr.define_queue("Q.PASS")
    qmgr.define_queue("REPLY.PASS")
    q = pymqi.Queue(qmgr, "Q.PASS", ALL)
    report = C.MQRO_COA | C.MQRO_PASS_MSG_ID | C.MQRO_PASS_CORREL_ID
    md = put(q, b"x", Report=report, ReplyToQ=b"REPLY.PASS", CorrelId=b"request-42".ljust(24))
    _, coa = one_report(qmgr, "REPLY.PASS")
    assert (coa.MsgId, coa.CorrelId) == (md.MsgId, b"request-42".ljust(24))


def test_coa_of_a_syncpoint_put_is_in_its_unit_of_work(qmgr) -> None:
    qmgr.define_queue("Q.COAUOW")
    qmgr.define_queue("REPLY.COAUOW")
    q = pymqi.Queue(qmgr, "Q.COAUOW", ALL)
    put(q, b"gone", C.MQPMO_SYNCPOINT, Report=C.MQRO_COA, ReplyToQ=b"REPLY.COAUOW")
    qmgr.backout()
    assert reports_on(qmgr, "REPLY.COAUOW", wait_ms=300) == []  # backed out with the put
    md = put(q, b"kept", C.MQPMO_SYNCPOINT, Report=C.MQRO_COA, ReplyToQ=b"REPLY.COAUOW")
    assert reports_on(qmgr, "REPLY.COAUOW", wait_ms=0) == []  # not before the commit
    qmgr.commit()
    _, coa = one_report(qmgr, "REPLY.COAUOW")
    assert (coa.Feedback, coa.CorrelId) == (C.MQFB_COA, md.MsgId)


def test_cod_of_a_syncpoint_get_is_backed_out_with_it_and_browse_makes_none(qmgr) -> None:
    qmgr.define_queue("Q.CODUOW")
    qmgr.define_queue("REPLY.CODUOW")
    q = pymqi.Queue(qmgr, "Q.CODUOW", ALL)
    md = put(q, b"deliver me", Report=C.MQRO_COD, ReplyToQ=b"REPLY.CODUOW")
    assert get(q, C.MQGMO_BROWSE_FIRST) == b"deliver me"
    assert get(q, C.MQGMO_SYNCPOINT) == b"deliver me"
    qmgr.backout()
    assert reports_on(qmgr, "REPLY.CODUOW", wait_ms=300) == []
    assert get(q, C.MQGMO_SYNCPOINT) == b"deliver me"
    qmgr.commit()
    _, cod = one_report(qmgr, "REPLY.CODUOW")
    assert (cod.Feedback, cod.CorrelId) == (C.MQFB_COD, md.MsgId)


def test_report_to_a_missing_reply_queue_goes_to_the_dlq_with_a_dlh(qmgr) -> None:
    dlq = with_dlq(qmgr)
    qmgr.define_queue("Q.LOST")
    q = pymqi.Queue(qmgr, "Q.LOST", ALL)
    md = put(q, b"payload", Report=C.MQRO_COA_WITH_DATA, ReplyToQ=b"NO.SUCH.Q", Format=b"MQSTR")
    data, dmd = take(dlq, 1)[0]
    assert dmd.Format == C.MQFMT_DEAD_LETTER_HEADER
    assert (dmd.MsgType, dmd.Feedback, dmd.CorrelId) == (C.MQMT_REPORT, C.MQFB_COA, md.MsgId)
    dlh = pymqi.DLH().get_header(data)
    assert dlh.Reason == C.MQRC_UNKNOWN_OBJECT_NAME
    assert dlh.DestQName.strip() == b"NO.SUCH.Q"
    assert dlh.DestQMgrName.strip() == qmgr.get_name().encode()
    assert dlh.Format == C.MQFMT_STRING  # the report's own Format (it carries data)
    assert dlh.PutApplType == C.MQAT_QMGR
    assert len(dlh.PutDate.strip()) == 8 and len(dlh.PutTime.strip()) == 8
    assert data[C.MQDLH_LENGTH_1 :] == b"payload"
    assert dlh.to_string().DestQName == "NO.SUCH.Q"
    assert get(q) == b"payload"  # the original was put as usual


def test_full_inhibited_and_remote_reply_queues_give_their_reasons(qmgr) -> None:
    dlq = with_dlq(qmgr)
    qmgr.define_queue("Q.WHY")
    qmgr.define_queue("REPLY.FULL", max_depth=1)
    qmgr.define_queue("REPLY.INHIBITED")
    qmgr.alter_queue("REPLY.INHIBITED", put_inhibited=True)
    put(pymqi.Queue(qmgr, "REPLY.FULL", ALL), b"filler")
    q = pymqi.Queue(qmgr, "Q.WHY", ALL)
    for reply_q, reply_qm in (
        (b"REPLY.FULL", b""),
        (b"REPLY.INHIBITED", b""),
        (b"REPLY.THERE", b"OTHER.QM"),
    ):
        put(q, b"m", Report=C.MQRO_COA, ReplyToQ=reply_q, ReplyToQMgr=reply_qm)
    got = take(dlq, 3)
    seen = {}
    for data, _ in got:
        dlh = pymqi.DLH().get_header(data).to_string()
        seen[dlh.DestQName] = (dlh.Reason, dlh.DestQMgrName)
    name = qmgr.get_name()
    assert seen == {
        "REPLY.FULL": (C.MQRC_Q_FULL, name),
        "REPLY.INHIBITED": (C.MQRC_PUT_INHIBITED, name),
        "REPLY.THERE": (C.MQRC_UNKNOWN_REMOTE_Q_MGR, "OTHER.QM"),
    }


def test_without_a_dlq_or_with_discard_msg_an_undeliverable_report_is_dropped(qmgr) -> None:
    qmgr.define_queue("Q.DROP")
    q = pymqi.Queue(qmgr, "Q.DROP", ALL)
    put(q, b"no dlq", Report=C.MQRO_COA, ReplyToQ=b"NO.SUCH.Q")  # the put itself succeeds
    assert get(q) == b"no dlq"
    dlq = with_dlq(qmgr, "DLQ.DROP")
    report = C.MQRO_COA | C.MQRO_PASS_DISCARD_AND_EXPIRY | C.MQRO_DISCARD_MSG
    put(q, b"discard", Report=report, ReplyToQ=b"NO.SUCH.Q")
    assert get(q) == b"discard"
    assert drain(dlq, wait_ms=500) == []


def test_expiration_report_to_a_missing_reply_queue_goes_to_the_dlq(qmgr) -> None:
    dlq = with_dlq(qmgr)
    qmgr.define_queue("Q.EXPDLQ")
    q = pymqi.Queue(qmgr, "Q.EXPDLQ", ALL)
    put(q, b"short", Expiry=2, Report=C.MQRO_EXPIRATION, ReplyToQ=b"NO.SUCH.Q")
    time.sleep(0.5)
    with pytest.raises(pymqi.MQMIError):
        get(q, wait_ms=0)
    data, dmd = take(dlq, 1)[0]
    assert dmd.Feedback == C.MQFB_EXPIRATION
    assert pymqi.DLH().get_header(data).Reason == C.MQRC_UNKNOWN_OBJECT_NAME


def test_backout_threshold_without_a_requeue_queue_goes_to_the_dlq(qmgr) -> None:
    dlq = with_dlq(qmgr)
    qmgr.define_queue("REPLY.POISON")
    qmgr.define_queue("Q.POISON.DLQ", backout_threshold=2)
    q = pymqi.Queue(qmgr, "Q.POISON.DLQ", ALL)
    md = put(
        q,
        b"poison",
        Report=C.MQRO_EXCEPTION,
        ReplyToQ=b"REPLY.POISON",
        Format=C.MQFMT_STRING,
        CodedCharSetId=1208,
    )
    put(q, b"healthy")
    for _ in range(2):
        assert get(q, C.MQGMO_SYNCPOINT) == b"poison"
        qmgr.backout()
    assert get(q, C.MQGMO_SYNCPOINT) == b"healthy"
    qmgr.commit()
    data, dmd = take(dlq, 1)[0]
    assert dmd.Format == C.MQFMT_DEAD_LETTER_HEADER
    assert (dmd.MsgId, dmd.BackoutCount) == (md.MsgId, 2)  # the original MQMD otherwise
    dlh = pymqi.DLH().get_header(data)
    assert dlh.Reason == C.MQRC_BACKOUT_THRESHOLD_REACHED
    assert dlh.DestQName.strip() == b"Q.POISON.DLQ"
    assert (dlh.Format, dlh.CodedCharSetId) == (C.MQFMT_STRING, 1208)
    assert data[C.MQDLH_LENGTH_1 :] == b"poison"
    _, exc_report = one_report(qmgr, "REPLY.POISON")
    assert (exc_report.MsgType, exc_report.Feedback) == (
        C.MQMT_REPORT,
        C.MQRC_BACKOUT_THRESHOLD_REACHED,
    )
    assert exc_report.CorrelId == md.MsgId


def test_backout_threshold_with_nowhere_to_go_keeps_the_message(qmgr) -> None:
    qmgr.define_queue("Q.POISON.STAYS", backout_threshold=1, backout_requeue_q="NO.SUCH.BOQ")
    q = pymqi.Queue(qmgr, "Q.POISON.STAYS", ALL)
    put(q, b"poison")
    assert get(q, C.MQGMO_SYNCPOINT) == b"poison"
    qmgr.backout()
    md = pymqi.MD()
    gmo = pymqi.GMO(Options=C.MQGMO_SYNCPOINT | C.MQGMO_WAIT, WaitInterval=WAIT)
    assert q.get(None, md, gmo) == b"poison"  # no DLQ: never lost, delivered again
    assert md.BackoutCount == 1
    qmgr.commit()


def test_backout_threshold_with_discard_msg_discards(qmgr) -> None:
    dlq = with_dlq(qmgr)
    qmgr.define_queue("Q.POISON.DISCARD", backout_threshold=1)
    q = pymqi.Queue(qmgr, "Q.POISON.DISCARD", ALL)
    put(q, b"poison", Report=C.MQRO_DISCARD_MSG)
    assert get(q, C.MQGMO_SYNCPOINT) == b"poison"
    qmgr.backout()
    with pytest.raises(pymqi.MQMIError) as exc:
        get(q, C.MQGMO_SYNCPOINT, wait_ms=300)
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE)
    qmgr.commit()
    assert drain(dlq, wait_ms=300) == []
    assert qmgr.queue_status("Q.POISON.DISCARD")["current_depth"] == 0


def test_pan_nan_are_the_applications_and_pass_through_unchanged(qmgr) -> None:
    qmgr.define_queue("Q.PAN")
    qmgr.define_queue("REPLY.PAN")
    q = pymqi.Queue(qmgr, "Q.PAN", ALL)
    put(q, b"act on me", Report=C.MQRO_PAN | C.MQRO_NAN, ReplyToQ=b"REPLY.PAN")
    md = pymqi.MD()
    assert q.get(None, md, pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=WAIT)) == b"act on me"
    assert md.Report == C.MQRO_PAN | C.MQRO_NAN
    assert reports_on(qmgr, "REPLY.PAN", wait_ms=300) == []  # the queue manager sends none
    # The receiving application answers itself, with Feedback MQFB_PAN.
    reply = pymqi.Queue(qmgr, "REPLY.PAN", C.MQOO_OUTPUT)
    put(reply, b"", MsgType=C.MQMT_REPORT, Feedback=C.MQFB_PAN, CorrelId=md.MsgId)
    _, pan = one_report(qmgr, "REPLY.PAN")
    assert (pan.MsgType, pan.Feedback, pan.CorrelId) == (C.MQMT_REPORT, C.MQFB_PAN, md.MsgId)


def test_a_poison_message_requeued_to_boqname_arrives_there_with_a_coa(qmgr) -> None:
    qmgr.define_queue("Q.BOQ.COA")
    qmgr.define_queue("REPLY.BOQ")
    qmgr.define_queue("Q.POISON.BOQ", backout_threshold=1, backout_requeue_q="Q.BOQ.COA")
    q = pymqi.Queue(qmgr, "Q.POISON.BOQ", ALL)
    md = put(q, b"poison", Report=C.MQRO_COA | C.MQRO_EXCEPTION, ReplyToQ=b"REPLY.BOQ")
    assert get(q, C.MQGMO_SYNCPOINT) == b"poison"
    qmgr.backout()
    with pytest.raises(pymqi.MQMIError):
        get(q, C.MQGMO_SYNCPOINT, wait_ms=300)
    qmgr.commit()
    boq = pymqi.Queue(qmgr, "Q.BOQ.COA", C.MQOO_INPUT_SHARED)
    data, moved = take(boq, 1)[0]
    assert (data, moved.Format, moved.BackoutCount) == (b"poison", C.MQFMT_NONE, 1)  # as it was
    reports = take(pymqi.Queue(qmgr, "REPLY.BOQ", C.MQOO_INPUT_SHARED), 2)
    # One COA when it arrived on Q.POISON.BOQ, one on Q.BOQ.COA; no exception report: it
    # was delivered to the requeue queue.
    assert [r.Feedback for _, r in reports] == [C.MQFB_COA, C.MQFB_COA]
    assert all(r.CorrelId == md.MsgId for _, r in reports)
