"""MQI field and option validation through the pymqi face on the in-memory backends:
unknown option bits (MQOO, MQPMO, MQGMO, MQCO), the MQMD Feedback and Report fields,
structure ids and versions, PMO.Context without saved context, alternate user authority,
MQCONNX's MQCNO, and MQCONN against servers that cannot be reached."""

from __future__ import annotations

import pytest

import adapter.pymqi as pymqi
from adapter.core.openrules import close_options_error
from tests.integration.conftest import mqerror

C = pymqi.CMQC
IN, OUT = C.MQOO_INPUT_SHARED, C.MQOO_OUTPUT
NOSYNC = C.MQPMO_NO_SYNCPOINT


def fails(call, reason: int, comp: int = C.MQCC_FAILED) -> None:
    with pytest.raises(pymqi.MQMIError) as exc:
        call()
    assert mqerror(exc) == (comp, reason)


def put(q, body: bytes = b"x", options: int = NOSYNC, **md) -> pymqi.MD:
    m = pymqi.MD(**md)
    q.put(body, m, pymqi.PMO(Options=options))
    return m


def get(q, md: pymqi.MD | None = None, options: int = C.MQGMO_NO_SYNCPOINT) -> bytes:
    return q.get(None, md or pymqi.MD(), pymqi.GMO(Options=options))


@pytest.fixture
def queue(qmgr) -> str:
    qmgr.define_queue("Q.VAL")
    return "Q.VAL"


# -- unknown option bits and the remaining option rules -------------------------------


@pytest.mark.parametrize(
    "options",
    [
        OUT | C.MQOO_RESOLVE_NAMES,  # "used in C++ only": not an MQOPEN option
        OUT | 0x00800000,  # no MQOO_* has this bit
        IN | 0x40000000,
        OUT | -0x80000000,  # the sign bit of a negative MQLONG
        IN | C.MQOO_CO_OP,  # CO_OP needs BROWSE
        IN | C.MQOO_NO_MULTICAST,  # NO_MULTICAST needs OUTPUT
    ],
)
def test_undefined_open_options_are_2046(qmgr, queue: str, options: int) -> None:
    fails(lambda: pymqi.Queue(qmgr, queue, options), C.MQRC_OPTIONS_ERROR)


@pytest.mark.parametrize(
    "options",
    [
        C.MQOO_BROWSE | C.MQOO_CO_OP,
        OUT | C.MQOO_NO_MULTICAST,
        IN | C.MQOO_RESOLVE_LOCAL_Q | C.MQOO_FAIL_IF_QUIESCING,
        OUT | C.MQOO_BIND_ON_GROUP | C.MQOO_NO_READ_AHEAD,
    ],
)
def test_defined_open_options_open(qmgr, queue: str, options: int) -> None:
    pymqi.Queue(qmgr, queue, options).close()


@pytest.mark.parametrize("bits", [0x00100000, 0x00400000, 0x20000000, -0x80000000])
def test_undefined_put_options_are_2046_on_put_and_put1(qmgr, queue: str, bits: int) -> None:
    out = pymqi.Queue(qmgr, queue, OUT)
    fails(lambda: put(out, options=NOSYNC | bits), C.MQRC_OPTIONS_ERROR)
    pmo = pymqi.PMO(Options=NOSYNC | bits)
    fails(lambda: qmgr.put1(queue, b"x", pymqi.MD(), pmo), C.MQRC_OPTIONS_ERROR)
    assert qmgr.queue_status(queue)["current_depth"] == 0


def test_topic_only_put_options_are_accepted_on_a_queue(qmgr, queue: str) -> None:
    out = pymqi.Queue(qmgr, queue, OUT)
    topic_only = C.MQPMO_RETAIN | C.MQPMO_SUPPRESS_REPLYTO | C.MQPMO_WARN_IF_NO_SUBS_MATCHED
    put(out, b"kept", NOSYNC | topic_only | C.MQPMO_FAIL_IF_QUIESCING)
    assert get(pymqi.Queue(qmgr, queue, IN)) == b"kept"


def test_default_context_with_another_context_option_is_2046(qmgr, queue: str) -> None:
    out = pymqi.Queue(qmgr, queue, OUT | C.MQOO_SET_ALL_CONTEXT)
    for other in (C.MQPMO_NO_CONTEXT, C.MQPMO_SET_ALL_CONTEXT, C.MQPMO_PASS_IDENTITY_CONTEXT):
        fails(lambda o=other: put(out, options=C.MQPMO_DEFAULT_CONTEXT | o), 2046)
    put(out, options=C.MQPMO_DEFAULT_CONTEXT)  # alone it is the default


@pytest.mark.parametrize("bits", [0x00080000, 0x20000000, -0x80000000])
def test_undefined_get_options_are_2046(qmgr, queue: str, bits: int) -> None:
    put(pymqi.Queue(qmgr, queue, OUT), b"stays")
    q = pymqi.Queue(qmgr, queue, IN | C.MQOO_BROWSE)
    fails(lambda: get(q, options=C.MQGMO_NO_SYNCPOINT | bits), C.MQRC_OPTIONS_ERROR)
    fails(lambda: get(q, options=C.MQGMO_BROWSE_FIRST | bits), C.MQRC_OPTIONS_ERROR)
    assert get(q) == b"stays"


def test_get_options_mq_defines_but_does_not_act_on_are_accepted(qmgr, queue: str) -> None:
    put(pymqi.Queue(qmgr, queue, OUT), b"one")
    q = pymqi.Queue(qmgr, queue, IN | C.MQOO_BROWSE)
    quiet = C.MQGMO_NO_PROPERTIES | C.MQGMO_FAIL_IF_QUIESCING | C.MQGMO_CONVERT
    assert get(q, options=C.MQGMO_BROWSE_FIRST | C.MQGMO_MARK_BROWSE_HANDLE | quiet) == b"one"
    assert get(q, options=C.MQGMO_NO_SYNCPOINT | quiet) == b"one"


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        (C.MQCO_NONE, None),
        (C.MQCO_DELETE, None),
        (C.MQCO_DELETE_PURGE, None),
        (C.MQCO_KEEP_SUB | C.MQCO_QUIESCE, None),
        (C.MQCO_DELETE | C.MQCO_DELETE_PURGE, 2046),
        (C.MQCO_KEEP_SUB | C.MQCO_REMOVE_SUB, 2046),
        (0x10, 2046),  # no MQCO_* has this bit
        (-1, 2046),
    ],
)
def test_close_options_rule(options: int, reason: int | None) -> None:
    assert close_options_error(options) == reason


# -- MQMD Feedback and Report ---------------------------------------------------------


@pytest.mark.parametrize("feedback", [-1, C.MQFB_APPL_LAST + 1, -0x80000000])
def test_feedback_outside_both_ranges_is_2014(qmgr, queue: str, feedback: int) -> None:
    out = pymqi.Queue(qmgr, queue, OUT)
    fails(lambda: put(out, Feedback=feedback), C.MQRC_FEEDBACK_ERROR)
    # Checked whatever the MsgType (Feedback page), and on MQPUT1 too.
    fails(lambda: put(out, MsgType=C.MQMT_REPORT, Feedback=feedback), 2014)
    md = pymqi.MD(Feedback=feedback)
    fails(lambda: qmgr.put1(queue, b"x", md, pymqi.PMO(Options=NOSYNC)), 2014)


@pytest.mark.parametrize(
    "feedback",
    [C.MQFB_NONE, C.MQFB_SYSTEM_FIRST, C.MQFB_QUIT, 65535, C.MQFB_APPL_FIRST, C.MQFB_APPL_LAST],
)
def test_feedback_in_a_range_is_carried(qmgr, queue: str, feedback: int) -> None:
    put(pymqi.Queue(qmgr, queue, OUT), MsgType=C.MQMT_REPORT, Feedback=feedback)
    md = pymqi.MD()
    get(pymqi.Queue(qmgr, queue, IN), md)
    assert md.Feedback == feedback


@pytest.mark.parametrize(
    "report",
    [
        C.MQRO_EXCEPTION + C.MQRO_EXCEPTION_WITH_DATA,  # one type asked for twice
        C.MQRO_COA + C.MQRO_COA_WITH_DATA,
        C.MQRO_COD_WITH_DATA - C.MQRO_COD,  # the WITH_DATA bit alone
        C.MQRO_EXPIRATION_WITH_FULL_DATA - C.MQRO_EXPIRATION,
        0x10000000,  # unknown, in MQRO_REJECT_UNSUP_MASK
        0x00040000,  # unknown, in MQRO_REJECT_UNSUP_MASK
        0x00008000,  # unknown, in MQRO_ACCEPT_UNSUP_IF_XMIT_MASK: the queue is local
        -1,
    ],
)
def test_invalid_report_options_are_2061(qmgr, queue: str, report: int) -> None:
    out = pymqi.Queue(qmgr, queue, OUT)
    fails(lambda: put(out, Report=report, ReplyToQ="R"), C.MQRC_REPORT_OPTIONS_ERROR)
    md = pymqi.MD(Report=report, ReplyToQ="R")
    fails(lambda: qmgr.put1(queue, b"x", md, pymqi.PMO(Options=NOSYNC)), 2061)
    assert qmgr.queue_status(queue)["current_depth"] == 0


@pytest.mark.parametrize("unknown", [0x00000008, 0x00000020, 0x80000000 - (1 << 32)])
def test_unknown_accepted_report_option_warns_2104_and_puts(qmgr, queue: str, unknown: int) -> None:
    out = pymqi.Queue(qmgr, queue, OUT)
    report = C.MQRO_COA_WITH_DATA | C.MQRO_PASS_MSG_ID | unknown
    md = pymqi.MD(Report=report, ReplyToQ="R")
    fails(lambda: out.put(b"sent", md, pymqi.PMO(Options=NOSYNC)), 2104, C.MQCC_WARNING)
    got = pymqi.MD()
    assert get(pymqi.Queue(qmgr, queue, IN), got) == b"sent"
    assert got.Report == report  # the option is kept for whoever makes the report


def test_every_defined_report_option_together_is_accepted(qmgr, queue: str) -> None:
    report = (
        C.MQRO_EXCEPTION_WITH_FULL_DATA
        | C.MQRO_EXPIRATION_WITH_DATA
        | C.MQRO_COA
        | C.MQRO_COD_WITH_FULL_DATA
        | C.MQRO_PAN
        | C.MQRO_NAN
        | C.MQRO_ACTIVITY
        | C.MQRO_PASS_MSG_ID
        | C.MQRO_PASS_CORREL_ID
        | C.MQRO_DISCARD_MSG
        | C.MQRO_PASS_DISCARD_AND_EXPIRY
    )
    put(pymqi.Queue(qmgr, queue, OUT), Report=report, ReplyToQ="R")
    assert qmgr.queue_status(queue)["current_depth"] == 1
