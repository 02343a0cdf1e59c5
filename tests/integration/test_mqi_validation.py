"""A sample of MQI field and option validation on the real stack (the full tables run on
the in-memory backends in tests/unit/test_mqi_validation_memory.py and the property
tests in tests/unit/test_mqi_option_properties.py)."""

from __future__ import annotations

import pytest

import adapter.pymqi as pymqi
from adapter import config
from tests.integration.conftest import drain, mqerror

pytestmark = pytest.mark.integration
C = pymqi.CMQC
NOSYNC = pymqi.PMO(Options=C.MQPMO_NO_SYNCPOINT)


def fails(call, reason: int, comp: int = C.MQCC_FAILED) -> None:
    with pytest.raises(pymqi.MQMIError) as exc:
        call()
    assert mqerror(exc) == (comp, reason)


def test_bad_options_fields_and_structures_leave_the_queue_untouched(qmgr) -> None:
    qmgr.define_queue("Q.VALID")
    fails(lambda: pymqi.Queue(qmgr, "Q.VALID", C.MQOO_OUTPUT | 0x00800000), 2046)
    out = pymqi.Queue(qmgr, "Q.VALID", C.MQOO_OUTPUT)
    fails(lambda: out.put(b"x", pymqi.MD(), pymqi.PMO(Options=0x00100000)), 2046)
    fails(lambda: out.put(b"x", pymqi.MD(Feedback=-5), NOSYNC), C.MQRC_FEEDBACK_ERROR)
    report = C.MQRO_COA + C.MQRO_COA_WITH_DATA  # one report type asked for twice
    md = pymqi.MD(Report=report, ReplyToQ="Q.VALID")
    fails(lambda: out.put(b"x", md, NOSYNC), C.MQRC_REPORT_OPTIONS_ERROR)
    fails(lambda: out.put(b"x", pymqi.MD(Version=3), NOSYNC), C.MQRC_MD_ERROR)
    fails(lambda: qmgr.put1(pymqi.OD(ObjectName="Q.VALID", Version=9), b"x"), 2044)
    inq = pymqi.Queue(qmgr, "Q.VALID", C.MQOO_INPUT_SHARED)
    fails(lambda: inq.get(None, pymqi.MD(), pymqi.GMO(Options=0x20000000)), 2046)
    fails(lambda: inq.get(None, pymqi.MD(), pymqi.GMO(Version=7)), C.MQRC_GMO_ERROR)
    assert qmgr.queue_status("Q.VALID")["current_depth"] == 0


def test_unknown_report_option_warns_and_the_message_arrives(qmgr) -> None:
    qmgr.define_queue("Q.REPORT")
    out = pymqi.Queue(qmgr, "Q.REPORT", C.MQOO_OUTPUT)
    report = C.MQRO_PASS_MSG_ID | 0x00000020  # an unknown bit MQ accepts
    md = pymqi.MD(Report=report, ReplyToQ="Q.REPORT")
    fails(lambda: out.put(b"sent", md, NOSYNC), C.MQRC_UNKNOWN_REPORT_OPTION, C.MQCC_WARNING)
    got = drain(pymqi.Queue(qmgr, "Q.REPORT", C.MQOO_INPUT_SHARED))
    assert [(data, m.Report) for data, m in got] == [(b"sent", report)]


def test_pass_context_needs_a_got_message_and_alternate_user_needs_the_policy(
    qmgr, qmgr_name, mqk_servers, monkeypatch
) -> None:
    qmgr.define_queue("Q.CTX.IN")
    qmgr.define_queue("Q.CTX.OUT")
    src = pymqi.Queue(qmgr, "Q.CTX.IN", C.MQOO_INPUT_SHARED | C.MQOO_SAVE_ALL_CONTEXT)
    out = pymqi.Queue(qmgr, "Q.CTX.OUT", C.MQOO_OUTPUT | C.MQOO_PASS_ALL_CONTEXT)
    pmo = pymqi.PMO(Options=C.MQPMO_PASS_ALL_CONTEXT | C.MQPMO_NO_SYNCPOINT)
    pmo.Context = src.get_handle()
    fails(lambda: out.put(b"x", pymqi.MD(), pmo), C.MQRC_CONTEXT_NOT_AVAILABLE)
    qmgr.put1("Q.CTX.IN", b"request", pymqi.MD(), NOSYNC)
    assert src.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=5000))
    out.put(b"forwarded", pymqi.MD(), pmo)

    alternate = pymqi.OD(ObjectName="Q.CTX.OUT", AlternateUserId="bob")
    opts = C.MQOO_OUTPUT | C.MQOO_ALTERNATE_USER_AUTHORITY
    monkeypatch.delenv(config.ALTERNATE_USER_AUTHORITY_ENV, raising=False)
    fails(lambda: pymqi.Queue(qmgr, alternate, opts), C.MQRC_NOT_AUTHORIZED)
    monkeypatch.setenv(config.ALTERNATE_USER_AUTHORITY_ENV, "*")
    allowed = pymqi.connect(
        qmgr_name, kafka_bootstrap=mqk_servers.kafka_bootstrap, redis_url=mqk_servers.redis_url
    )
    try:
        pymqi.Queue(allowed, alternate, opts).put(b"as bob", pymqi.MD(), NOSYNC)
    finally:
        allowed.disconnect()
    got = drain(pymqi.Queue(qmgr, "Q.CTX.OUT", C.MQOO_INPUT_SHARED), wait_ms=2000)
    assert sorted(data for data, _ in got) == [b"as bob", b"forwarded"]
