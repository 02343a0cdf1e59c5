"""Browse cursors, locks, expiry and administration against the real stack."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

import adapter.pymqi as pymqi
from tests.integration.conftest import drain, mqerror

pytestmark = pytest.mark.integration
C = pymqi.CMQC
ALL = C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT | C.MQOO_BROWSE


def _browse(q, options) -> bytes:
    return q.get(None, pymqi.MD(), pymqi.GMO(Options=options))


def test_browse_first_next_leaves_messages_and_cursor_is_per_handle(qmgr) -> None:
    qmgr.define_queue("Q.BROWSE")
    q = pymqi.Queue(qmgr, "Q.BROWSE", ALL)
    for body in (b"1", b"2", b"3"):
        q.put(body)
    assert _browse(q, C.MQGMO_BROWSE_FIRST) == b"1"
    assert _browse(q, C.MQGMO_BROWSE_NEXT) == b"2"
    other = pymqi.Queue(qmgr, "Q.BROWSE", C.MQOO_BROWSE)
    assert _browse(other, C.MQGMO_BROWSE_NEXT) == b"1"  # a new cursor starts before the first
    assert _browse(q, C.MQGMO_BROWSE_NEXT) == b"3"
    with pytest.raises(pymqi.MQMIError) as exc:
        _browse(q, C.MQGMO_BROWSE_NEXT)
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE)
    q.put(b"4")  # on a FIFO-within-priority queue new arrivals are seen by BROWSE_NEXT
    assert _browse(q, C.MQGMO_BROWSE_NEXT) == b"4"
    assert _browse(q, C.MQGMO_BROWSE_FIRST) == b"1"
    assert qmgr.queue_status("Q.BROWSE")["current_depth"] == 4


def test_msg_under_cursor_removes_browsed_message_then_2034(qmgr) -> None:
    qmgr.define_queue("Q.CURSOR")
    q = pymqi.Queue(qmgr, "Q.CURSOR", ALL)
    for body in (b"a", b"b", b"c"):
        q.put(body)
    _browse(q, C.MQGMO_BROWSE_FIRST)
    assert _browse(q, C.MQGMO_BROWSE_NEXT) == b"b"
    assert _browse(q, C.MQGMO_BROWSE_MSG_UNDER_CURSOR) == b"b"  # re-reads, removes nothing
    assert q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_MSG_UNDER_CURSOR)) == b"b"
    with pytest.raises(pymqi.MQMIError) as exc:
        q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_MSG_UNDER_CURSOR))
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NO_MSG_UNDER_CURSOR)
    assert [d for d, _ in drain(q)] == [b"a", b"c"]


def test_message_got_by_another_handle_is_gone_from_under_the_cursor(qmgr) -> None:
    qmgr.define_queue("Q.GONE")
    browser = pymqi.Queue(qmgr, "Q.GONE", C.MQOO_BROWSE | C.MQOO_INPUT_SHARED)
    getter = pymqi.Queue(qmgr, "Q.GONE", ALL)
    getter.put(b"only")
    assert _browse(browser, C.MQGMO_BROWSE_FIRST) == b"only"
    assert getter.get() == b"only"
    with pytest.raises(pymqi.MQMIError) as exc:
        browser.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_MSG_UNDER_CURSOR))
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NO_MSG_UNDER_CURSOR)


def test_browse_lock_hides_message_from_others_until_unlock(qmgr) -> None:
    qmgr.define_queue("Q.LOCK")
    a = pymqi.Queue(qmgr, "Q.LOCK", ALL)
    b = pymqi.Queue(qmgr, "Q.LOCK", ALL)
    a.put(b"first")
    a.put(b"second")
    assert _browse(a, C.MQGMO_BROWSE_FIRST | C.MQGMO_LOCK) == b"first"
    assert b.get() == b"second"  # the locked message is skipped
    with pytest.raises(pymqi.MQMIError) as exc:
        b.get()
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE)
    a.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_UNLOCK))
    assert b.get() == b"first"


def test_locked_message_can_be_got_under_cursor_by_its_owner(qmgr) -> None:
    qmgr.define_queue("Q.LOCK2")
    a = pymqi.Queue(qmgr, "Q.LOCK2", ALL)
    a.put(b"mine")
    _browse(a, C.MQGMO_BROWSE_FIRST | C.MQGMO_LOCK)
    assert a.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_MSG_UNDER_CURSOR)) == b"mine"
    assert qmgr.queue_status("Q.LOCK2")["current_depth"] == 0


def test_expiry_zero_is_an_error(qmgr) -> None:
    qmgr.define_queue("Q.EXP0")
    with pytest.raises(pymqi.MQMIError) as exc:
        pymqi.Queue(qmgr, "Q.EXP0").put(b"x", pymqi.MD(Expiry=0))
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_EXPIRY_ERROR)


def test_returned_expiry_is_the_remaining_time(qmgr) -> None:
    qmgr.define_queue("Q.EXPLEFT")
    q = pymqi.Queue(qmgr, "Q.EXPLEFT", ALL)
    q.put(b"x", pymqi.MD(Expiry=600))  # one minute
    time.sleep(0.5)
    md = pymqi.MD()
    q.get(None, md)
    assert 0 < md.Expiry < 600
    assert md.Expiry >= 590


def test_expired_message_counts_in_depth_until_a_get_discards_it(qmgr) -> None:
    qmgr.define_queue("Q.EXPIRED")
    q = pymqi.Queue(qmgr, "Q.EXPIRED", ALL)
    q.put(b"short-lived", pymqi.MD(Expiry=3))  # 0.3 s
    q.put(b"long-lived", pymqi.MD(Expiry=C.MQEI_UNLIMITED))
    time.sleep(0.6)
    assert qmgr.queue_status("Q.EXPIRED")["current_depth"] == 2  # still counted
    md = pymqi.MD()
    assert q.get(None, md) == b"long-lived"  # the get discarded the expired one on its way
    assert md.Expiry == C.MQEI_UNLIMITED
    assert qmgr.queue_status("Q.EXPIRED")["current_depth"] == 0


def test_browse_never_returns_an_expired_message(qmgr) -> None:
    qmgr.define_queue("Q.EXPBROWSE")
    q = pymqi.Queue(qmgr, "Q.EXPBROWSE", ALL)
    q.put(b"gone soon", pymqi.MD(Expiry=2))
    time.sleep(0.5)
    with pytest.raises(pymqi.MQMIError) as exc:
        _browse(q, C.MQGMO_BROWSE_FIRST)
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE)


@pytest.mark.parametrize(
    ("report", "expect_data"),
    [
        (C.MQRO_EXPIRATION, b""),
        (C.MQRO_EXPIRATION_WITH_DATA, b"x" * 100),
        (C.MQRO_EXPIRATION_WITH_FULL_DATA, b"x" * 300),
    ],
)
def test_expiration_report_goes_to_reply_to_queue(qmgr, report, expect_data) -> None:
    qmgr.define_queue("Q.EXPREP")
    qmgr.define_queue("REPLY.Q")
    q = pymqi.Queue(qmgr, "Q.EXPREP", ALL)
    md = pymqi.MD(Expiry=2, Report=report, ReplyToQ=b"REPLY.Q")
    q.put(b"x" * 300, md)
    time.sleep(0.5)
    with pytest.raises(pymqi.MQMIError) as exc:
        q.get()
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE)
    reports = drain(pymqi.Queue(qmgr, "REPLY.Q", C.MQOO_INPUT_SHARED), wait_ms=3000)
    assert len(reports) == 1
    data, rmd = reports[0]
    assert rmd.MsgType == C.MQMT_REPORT and rmd.Feedback == C.MQFB_EXPIRATION
    assert rmd.CorrelId == md.MsgId  # MQRO_COPY_MSG_ID_TO_CORREL_ID, the default
    assert data == expect_data


def test_no_report_without_expiration_report_option(qmgr) -> None:
    qmgr.define_queue("Q.NOREP")
    qmgr.define_queue("REPLY.NONE")
    q = pymqi.Queue(qmgr, "Q.NOREP", ALL)
    q.put(b"quiet", pymqi.MD(Expiry=2, ReplyToQ=b"REPLY.NONE"))
    time.sleep(0.5)
    with pytest.raises(pymqi.MQMIError):
        q.get()
    assert drain(pymqi.Queue(qmgr, "REPLY.NONE", C.MQOO_INPUT_SHARED), wait_ms=500) == []


def test_define_status_delete_and_open_counts(qmgr) -> None:
    qdef = qmgr.define_queue("Q.ADMIN", max_depth=10, def_persistence=C.MQPER_PERSISTENT)
    assert qdef.max_depth == 10
    with pytest.raises(pymqi.MQMIError) as exc:
        qmgr.define_queue("Q.ADMIN")
    assert exc.value.reason == C.MQRCCF_OBJECT_ALREADY_EXISTS
    inq = pymqi.Queue(qmgr, "Q.ADMIN", C.MQOO_INPUT_SHARED)
    out = pymqi.Queue(qmgr, "Q.ADMIN", C.MQOO_OUTPUT)
    out.put(b"1")
    out.put(b"2")
    status = qmgr.queue_status("Q.ADMIN")
    assert status["current_depth"] == 2
    assert status["open_input_count"] == 1 and status["open_output_count"] == 1
    md = pymqi.MD()
    inq.get(None, md)
    assert md.Persistence == C.MQPER_PERSISTENT  # PERSISTENCE_AS_Q_DEF resolved
    with pytest.raises(pymqi.MQMIError) as exc:
        qmgr.delete_queue("Q.ADMIN", purge=True)
    assert exc.value.reason == C.MQRC_OBJECT_IN_USE  # open: not even with purge
    inq.close()
    out.close()
    assert qmgr.queue_status("Q.ADMIN")["open_input_count"] == 0
    with pytest.raises(pymqi.MQMIError) as exc:
        qmgr.delete_queue("Q.ADMIN")
    assert exc.value.reason == C.MQRC_Q_NOT_EMPTY
    qmgr.delete_queue("Q.ADMIN", purge=True)
    with pytest.raises(pymqi.MQMIError) as exc:
        pymqi.Queue(qmgr, "Q.ADMIN", C.MQOO_INPUT_SHARED)
    assert exc.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME


def test_cli_define_status_delete(mqk_servers, qmgr_name) -> None:
    def mqk(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "adapter.cli", *args],
            capture_output=True,
            text=True,
            timeout=120,
        )

    made = mqk("define", qmgr_name, "CLI.Q", "--max-depth", "7", "--partitions", "2")
    assert made.returncode == 0, made.stderr
    status = mqk("status", qmgr_name, "CLI.Q")
    assert status.returncode == 0, status.stderr
    shown = set(status.stdout.split())  # DISPLAY QSTATUS and DISPLAY QUEUE, as runmqsc
    # MQ's defaults on Multiplatforms: SHARE, DEFSOPT(SHARED)
    assert {"CURDEPTH(0)", "MAXDEPTH(7)", "SHARE", "DEFSOPT(SHARED)"} <= shown
    excl = mqk("define", qmgr_name, "CLI.S", "--noshare", "--defsopt", "EXCL")
    assert excl.returncode == 0, excl.stderr
    assert {"NOSHARE", "DEFSOPT(EXCL)"} <= set(mqk("status", qmgr_name, "CLI.S").stdout.split())
    again = mqk("define", qmgr_name, "CLI.Q")
    assert again.returncode == 1 and "Traceback" not in again.stderr
    assert "AMQ8150E: IBM MQ object already exists." in again.stderr  # 4001
    gone = mqk("delete", qmgr_name, "CLI.Q")
    assert gone.returncode == 0, gone.stderr
    missing = mqk("status", qmgr_name, "CLI.Q")
    assert missing.returncode == 1 and "AMQ8147E: IBM MQ object CLI.Q not found." in missing.stderr


def test_expiry_report_on_a_segment_carries_no_data_and_its_original_length(qmgr) -> None:
    """A get that discards an expired first segment reports it: a report that is a
    segment may be empty, with OriginalLength telling the segment's length."""
    qmgr.define_queue("Q.SEGEXP")
    qmgr.define_queue("REPLY.SEG")
    q = pymqi.Queue(qmgr, "Q.SEGEXP", ALL)
    gid = b"SEGEXP".ljust(24, b"\0")
    q.put(
        b"x" * 50,
        pymqi.MD(
            GroupId=gid,
            Offset=0,
            MsgFlags=C.MQMF_SEGMENT,
            Expiry=2,
            Report=C.MQRO_EXPIRATION,
            ReplyToQ=b"REPLY.SEG",
        ),
    )
    time.sleep(0.5)
    with pytest.raises(pymqi.MQMIError) as exc:
        q.get(None, pymqi.MD(), pymqi.GMO(MatchOptions=C.MQMO_NONE))
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE)
    reports = drain(pymqi.Queue(qmgr, "REPLY.SEG", C.MQOO_INPUT_SHARED), wait_ms=3000)
    assert len(reports) == 1
    data, md = reports[0]
    assert data == b"" and md.OriginalLength == 50 and md.MsgFlags & C.MQMF_SEGMENT
    assert md.Feedback == C.MQFB_EXPIRATION and md.GroupId == gid
