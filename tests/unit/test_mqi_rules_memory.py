"""MQI validation and context rules through the pymqi face on the in-memory backends:
open options, context authority and the put context options, PASS_*_CONTEXT, exclusive
input with leases, MQINQ, GET(DISABLED), a closed handle, ResolvedQName."""

from __future__ import annotations

import pytest

import adapter.pymqi as pymqi
from adapter import config
from tests.integration.conftest import drain, mqerror

C = pymqi.CMQC
IN, OUT = C.MQOO_INPUT_SHARED, C.MQOO_OUTPUT
APP = {
    "UserIdentifier": b"alice",
    "AccountingToken": b"token-1",
    "ApplIdentityData": b"ident",
    "PutApplType": C.MQAT_JAVA,
    "PutApplName": b"billing",
    "ApplOriginData": b"orig",
}


def fails(call, reason: int, comp: int = C.MQCC_FAILED) -> None:
    with pytest.raises(pymqi.MQMIError) as exc:
        call()
    assert mqerror(exc) == (comp, reason)


def put(q, body: bytes, options: int = C.MQPMO_NO_SYNCPOINT, **md) -> pymqi.MD:
    m = pymqi.MD(**md)
    q.put(body, m, pymqi.PMO(Options=options))
    return m


def get(q, md: pymqi.MD | None = None, options: int = C.MQGMO_NO_SYNCPOINT) -> bytes:
    return q.get(None, md or pymqi.MD(), pymqi.GMO(Options=options))


# -- MQOPEN --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        C.MQOO_FAIL_IF_QUIESCING,  # no access option
        C.MQOO_INPUT_SHARED | C.MQOO_INPUT_EXCLUSIVE,
        C.MQOO_OUTPUT | C.MQOO_READ_AHEAD | C.MQOO_NO_READ_AHEAD,
        C.MQOO_OUTPUT | C.MQOO_SAVE_ALL_CONTEXT,  # SAVE_ALL needs input
        C.MQOO_INPUT_SHARED | C.MQOO_SET_IDENTITY_CONTEXT,  # SET_* needs OUTPUT
        C.MQOO_BROWSE | C.MQOO_PASS_ALL_CONTEXT,
    ],
)
def test_invalid_open_options_are_2046(qmgr, options: int) -> None:
    qmgr.define_queue("Q.OPT")
    fails(lambda: pymqi.Queue(qmgr, "Q.OPT", options), C.MQRC_OPTIONS_ERROR)


def test_options_are_checked_before_the_object(qmgr) -> None:
    fails(lambda: pymqi.Queue(qmgr, "NO.SUCH.Q", IN | C.MQOO_INPUT_EXCLUSIVE), 2046)
    fails(lambda: pymqi.Queue(qmgr, "NO.SUCH.Q", IN), C.MQRC_UNKNOWN_OBJECT_NAME)


# -- context -------------------------------------------------------------------------


def test_set_context_needs_the_matching_open_option(qmgr) -> None:
    qmgr.define_queue("Q.CTX")
    out = pymqi.Queue(qmgr, "Q.CTX", OUT)
    fails(lambda: put(out, b"x", C.MQPMO_SET_IDENTITY_CONTEXT, **APP), 2096)
    fails(lambda: put(out, b"x", C.MQPMO_SET_ALL_CONTEXT, **APP), 2095)
    fails(lambda: put(out, b"x", C.MQPMO_PASS_IDENTITY_CONTEXT), 2094)
    fails(lambda: put(out, b"x", C.MQPMO_PASS_ALL_CONTEXT), 2093)
    ident = pymqi.Queue(qmgr, "Q.CTX", OUT | C.MQOO_SET_IDENTITY_CONTEXT)
    fails(lambda: put(ident, b"x", C.MQPMO_SET_ALL_CONTEXT, **APP), 2095)
    both = C.MQPMO_SET_IDENTITY_CONTEXT | C.MQPMO_NO_CONTEXT
    fails(lambda: put(ident, b"x", both, **APP), C.MQRC_OPTIONS_ERROR)
    put(ident, b"ok", C.MQPMO_SET_IDENTITY_CONTEXT, **APP)
    reader = pymqi.Queue(qmgr, "Q.CTX", IN)
    md = pymqi.MD()
    assert get(reader, md) == b"ok"  # nothing forged got through before it
    assert pymqi.structs.mqstr(md.UserIdentifier) == "alice"


def test_an_application_without_authority_cannot_change_its_identity(
    world, qmgr_name, monkeypatch
) -> None:
    monkeypatch.setenv(config.CONTEXT_AUTHORITY_ENV, "somebody-else")
    qm = pymqi.connect(qmgr_name)
    qm.define_queue("Q.AUTH")
    for option in (C.MQOO_SET_IDENTITY_CONTEXT, C.MQOO_SET_ALL_CONTEXT,
                   C.MQOO_PASS_ALL_CONTEXT):  # fmt: skip
        fails(lambda o=option: pymqi.Queue(qm, "Q.AUTH", OUT | o), C.MQRC_NOT_AUTHORIZED)
    fails(  # MQPUT1 asks for the same authority
        lambda: qm.put1(
            "Q.AUTH", b"x", pymqi.MD(**APP), pymqi.PMO(Options=C.MQPMO_SET_IDENTITY_CONTEXT)
        ),  # fmt: skip
        C.MQRC_NOT_AUTHORIZED,
    )
    out = pymqi.Queue(qm, "Q.AUTH", OUT)  # a plain output handle cannot set it either
    fails(lambda: put(out, b"x", C.MQPMO_SET_IDENTITY_CONTEXT, **APP), 2096)
    put(out, b"mine", **APP)  # default context: the fields given are ignored
    md = pymqi.MD()
    assert get(pymqi.Queue(qm, "Q.AUTH", IN), md) == b"mine"
    assert pymqi.structs.mqstr(md.UserIdentifier) != "alice"
    qm.disconnect()
    # The policy names this user: now it may.
    monkeypatch.setenv(config.CONTEXT_AUTHORITY_ENV, pymqi.structs.mqstr(md.UserIdentifier))
    allowed = pymqi.connect(qmgr_name)
    q = pymqi.Queue(allowed, "Q.AUTH", OUT | C.MQOO_SET_IDENTITY_CONTEXT)
    put(q, b"set", C.MQPMO_SET_IDENTITY_CONTEXT, **APP)
    md = pymqi.MD()
    assert get(pymqi.Queue(allowed, "Q.AUTH", IN), md) == b"set"
    assert pymqi.structs.mqstr(md.UserIdentifier) == "alice"
    allowed.disconnect()


def test_set_all_context_keeps_the_applications_put_time_but_not_its_lifetime(world, qmgr) -> None:
    qmgr.define_queue("Q.WHEN")
    q = pymqi.Queue(qmgr, "Q.WHEN", IN | OUT | C.MQOO_BROWSE | C.MQOO_SET_ALL_CONTEXT)
    put(q, b"old", C.MQPMO_SET_ALL_CONTEXT, PutDate=b"20200102", PutTime=b"03040506",
        Expiry=600, **APP)  # fmt: skip
    world.clock.advance(30)
    md = pymqi.MD()
    assert get(q, md, C.MQGMO_BROWSE_FIRST) == b"old"
    assert (md.PutDate, md.PutTime) == (b"20200102", b"03040506")
    assert 290 <= md.Expiry <= 300  # 60 s from the real put, 30 s ago
    world.clock.advance(31)
    fails(lambda: get(q), C.MQRC_NO_MSG_AVAILABLE)


def test_pass_all_context_carries_the_got_messages_context(qmgr) -> None:
    qmgr.define_queue("Q.IN")
    qmgr.define_queue("Q.OUT")
    src = pymqi.Queue(qmgr, "Q.IN", OUT | C.MQOO_SET_ALL_CONTEXT)
    sent = put(src, b"request", C.MQPMO_SET_ALL_CONTEXT, **APP)
    inq = pymqi.Queue(qmgr, "Q.IN", IN | C.MQOO_SAVE_ALL_CONTEXT)
    assert get(inq) == b"request"
    out = pymqi.Queue(qmgr, "Q.OUT", IN | OUT | C.MQOO_PASS_ALL_CONTEXT)
    pmo = pymqi.PMO(Options=C.MQPMO_PASS_ALL_CONTEXT | C.MQPMO_NO_SYNCPOINT)
    pmo.Context = inq.get_handle()  # the Hobj, as MQI programs pass it
    out.put(b"forwarded", pymqi.MD(), pmo)
    md = pymqi.MD()
    assert get(out, md) == b"forwarded"
    for field in ("UserIdentifier", "ApplIdentityData", "PutApplName", "ApplOriginData",
                  "PutDate", "PutTime"):  # fmt: skip
        assert pymqi.structs.mqstr(getattr(md, field)) == pymqi.structs.mqstr(
            getattr(sent, field)
        ), field
    assert md.PutApplType == C.MQAT_JAVA
    # PASS_IDENTITY passes identity only: the origin is this application's.
    pmo.Options = C.MQPMO_PASS_IDENTITY_CONTEXT | C.MQPMO_NO_SYNCPOINT
    out.put(b"ident", pymqi.MD(), pmo)
    md = pymqi.MD()
    assert get(out, md) == b"ident"
    assert pymqi.structs.mqstr(md.UserIdentifier) == "alice" and md.PutApplType == C.MQAT_UNIX
    # A handle that does not save context cannot be passed from.
    plain = pymqi.Queue(qmgr, "Q.IN", IN)
    pmo.Context = plain.get_handle()
    fails(lambda: out.put(b"x", pymqi.MD(), pmo), C.MQRC_CONTEXT_HANDLE_ERROR)


# -- exclusive and shared input ------------------------------------------------------


def test_exclusive_input_keeps_others_out_until_close(qmgr, qmgr_name) -> None:
    qmgr.define_queue("Q.EXCL", def_input_exclusive=False)
    holder = pymqi.Queue(qmgr, "Q.EXCL", C.MQOO_INPUT_EXCLUSIVE)
    other = pymqi.connect(qmgr_name)
    for options in (C.MQOO_INPUT_SHARED, C.MQOO_INPUT_EXCLUSIVE, C.MQOO_INPUT_AS_Q_DEF):
        fails(lambda o=options: pymqi.Queue(other, "Q.EXCL", o), C.MQRC_OBJECT_IN_USE)
    pymqi.Queue(other, "Q.EXCL", C.MQOO_OUTPUT | C.MQOO_BROWSE)  # not input: fine
    assert qmgr.queue_status("Q.EXCL")["open_input_count"] == 1
    holder.close()
    shared = [pymqi.Queue(other, "Q.EXCL", C.MQOO_INPUT_SHARED) for _ in range(2)]
    assert qmgr.queue_status("Q.EXCL")["open_input_count"] == 2
    fails(lambda: pymqi.Queue(qmgr, "Q.EXCL", C.MQOO_INPUT_EXCLUSIVE), C.MQRC_OBJECT_IN_USE)
    for q in shared:
        q.close()
    other.disconnect()


def test_noshare_and_defsopt_decide_what_shared_and_as_q_def_mean(qmgr) -> None:
    held = []  # a Queue object that is dropped closes its handle
    qmgr.define_queue("Q.NOSHARE", shareable=False, def_input_exclusive=False)
    held.append(pymqi.Queue(qmgr, "Q.NOSHARE", C.MQOO_INPUT_SHARED))
    fails(lambda: pymqi.Queue(qmgr, "Q.NOSHARE", C.MQOO_INPUT_SHARED), 2042)
    qmgr.define_queue("Q.DEFEXCL", def_input_exclusive=True)  # DEFSOPT(EXCL)
    held.append(pymqi.Queue(qmgr, "Q.DEFEXCL", C.MQOO_INPUT_AS_Q_DEF))
    fails(lambda: pymqi.Queue(qmgr, "Q.DEFEXCL", C.MQOO_INPUT_SHARED), 2042)
    qmgr.define_queue("Q.DEFSHARED")  # DEFSOPT(SHARED): a local queue's default
    held += [pymqi.Queue(qmgr, "Q.DEFSHARED", C.MQOO_INPUT_AS_Q_DEF) for _ in range(2)]
    assert qmgr.queue_status("Q.DEFSHARED")["open_input_count"] == 2


def test_defsopt_defaults_are_shared_for_a_local_queue_and_excl_for_a_model(qmgr) -> None:
    """DEFINE QLOCAL: DEFSOPT(SHARED) on Multiplatforms; DEFINE QMODEL: DEFSOPT(EXCL),
    which the dynamic queues made from it inherit (IBM's DEFINE QLOCAL / QMODEL)."""
    qmgr.define_queue("Q.PLAIN")
    q = pymqi.Queue(qmgr, "Q.PLAIN", C.MQOO_INQUIRE)
    assert q.inquire(C.MQIA_DEF_INPUT_OPEN_OPTION) == C.MQOO_INPUT_SHARED
    held = [pymqi.Queue(qmgr, "Q.PLAIN", C.MQOO_INPUT_AS_Q_DEF) for _ in range(2)]
    assert qmgr.queue_status("Q.PLAIN")["open_input_count"] == 2
    qmgr.define_queue("Q.MODEL.EXCL", queue_type=C.MQQT_MODEL)
    od = pymqi.OD(ObjectName=b"Q.MODEL.EXCL", DynamicQName=b"DYN.*")
    dyn = pymqi.Queue(qmgr, od, C.MQOO_INPUT_AS_Q_DEF | C.MQOO_INQUIRE)
    assert dyn.inquire(C.MQIA_DEF_INPUT_OPEN_OPTION) == C.MQOO_INPUT_EXCLUSIVE
    name = od.ObjectName.rstrip(b"\0 ").decode()
    fails(lambda: pymqi.Queue(qmgr, name, C.MQOO_INPUT_SHARED), C.MQRC_OBJECT_IN_USE)
    dyn.close()
    for h in held:
        h.close()


def test_a_dead_exclusive_holder_releases_the_queue_after_its_lease(world, qmgr, qmgr_name) -> None:
    qmgr.define_queue("Q.DEAD")
    dead = pymqi.connect(qmgr_name)
    holder = pymqi.Queue(dead, "Q.DEAD", C.MQOO_INPUT_EXCLUSIVE)
    dead.get_handle().pump.stop()  # the process died: no more renewals
    fails(lambda: pymqi.Queue(qmgr, "Q.DEAD", C.MQOO_INPUT_SHARED), 2042)
    world.clock.advance(config.OPEN_LEASE_MS / 1000 - 1)
    fails(lambda: pymqi.Queue(qmgr, "Q.DEAD", C.MQOO_INPUT_SHARED), 2042)
    world.clock.advance(2)
    assert pymqi.Queue(qmgr, "Q.DEAD", C.MQOO_INPUT_EXCLUSIVE) and holder


# -- MQINQ, GET(DISABLED), MQCLOSE, output fields ------------------------------------


def test_inquire_needs_mqoo_inquire(qmgr) -> None:
    qmgr.define_queue("Q.INQ")
    q = pymqi.Queue(qmgr, "Q.INQ", OUT)
    fails(lambda: q.inquire(C.MQIA_MAX_Q_DEPTH), C.MQRC_NOT_OPEN_FOR_INQUIRE)
    assert pymqi.Queue(qmgr, "Q.INQ", C.MQOO_INQUIRE).inquire(C.MQIA_MAX_Q_DEPTH) == 5000


def test_get_inhibited_refuses_browse_too(qmgr) -> None:
    qmgr.define_queue("Q.GETINH", get_inhibited=True)
    q = pymqi.Queue(qmgr, "Q.GETINH", C.MQOO_BROWSE | C.MQOO_INPUT_SHARED)
    fails(lambda: get(q, options=C.MQGMO_BROWSE_FIRST), C.MQRC_GET_INHIBITED)
    fails(lambda: get(q), C.MQRC_GET_INHIBITED)


def test_a_closed_queue_handle_is_invalid(qmgr) -> None:
    qmgr.define_queue("Q.CLOSED")
    q = pymqi.Queue(qmgr, "Q.CLOSED", OUT | IN)
    q.close()
    fails(lambda: put(q, b"x"), C.MQRC_HOBJ_ERROR)
    fails(lambda: get(q), C.MQRC_HOBJ_ERROR)
    fails(q.close, C.MQRC_HOBJ_ERROR)
    assert drain(pymqi.Queue(qmgr, "Q.CLOSED", IN)) == []  # nothing was put by a reopen


def test_put_and_get_name_the_resolved_queue(qmgr) -> None:
    qmgr.define_queue("Q.RESOLVED")
    q = pymqi.Queue(qmgr, "Q.RESOLVED", OUT | IN)
    pmo, gmo = pymqi.PMO(), pymqi.GMO()
    q.put(b"x", pymqi.MD(), pmo)
    assert pymqi.structs.mqstr(pmo.ResolvedQName) == "Q.RESOLVED"
    assert pymqi.structs.mqstr(pmo.ResolvedQMgrName) == qmgr.get_name()
    q.get(None, pymqi.MD(), gmo)
    assert pymqi.structs.mqstr(gmo.ResolvedQName) == "Q.RESOLVED"


# -- MQMD validation, MQGMO_UNLOCK, a disconnected handle ----------------------------


def test_request_or_report_without_reply_queue_is_2027(qmgr) -> None:
    qmgr.define_queue("Q.MD")
    q = pymqi.Queue(qmgr, "Q.MD", OUT)
    fails(lambda: put(q, b"x", MsgType=C.MQMT_REQUEST), C.MQRC_MISSING_REPLY_TO_Q)
    fails(lambda: put(q, b"x", Report=C.MQRO_COA), C.MQRC_MISSING_REPLY_TO_Q)
    fails(lambda: put(q, b"x", Report=C.MQRO_EXPIRATION, Expiry=100), 2027)
    put(q, b"ok", Report=C.MQRO_PASS_MSG_ID)  # shapes a report, asks for none
    put(q, b"ok", MsgType=C.MQMT_REQUEST, ReplyToQ=b"Q.MD")


@pytest.mark.parametrize("msg_type", [0, 3, 9, 65535, 1_000_000_000])
def test_undefined_system_message_types_are_2029(qmgr, msg_type: int) -> None:
    qmgr.define_queue("Q.MT")
    q = pymqi.Queue(qmgr, "Q.MT", OUT)
    fails(lambda: put(q, b"x", MsgType=msg_type), C.MQRC_MSG_TYPE_ERROR)
    put(q, b"app", MsgType=C.MQMT_APPL_FIRST)  # the application range is the application's


def test_unlock_without_a_lock_warns_2209_and_takes_only_its_options(qmgr) -> None:
    qmgr.define_queue("Q.UNLOCK")
    q = pymqi.Queue(qmgr, "Q.UNLOCK", C.MQOO_BROWSE | OUT)
    fails(lambda: get(q, options=C.MQGMO_UNLOCK), C.MQRC_NO_MSG_LOCKED, C.MQCC_WARNING)
    both = C.MQGMO_UNLOCK | C.MQGMO_SYNCPOINT
    fails(lambda: get(q, options=both), C.MQRC_OPTIONS_ERROR)
    put(q, b"m")
    assert get(q, options=C.MQGMO_BROWSE_FIRST | C.MQGMO_LOCK) == b"m"
    assert get(q, options=C.MQGMO_UNLOCK) == b""  # a browse-only handle may unlock


def test_no_context_leaves_the_put_time_blank(qmgr) -> None:
    qmgr.define_queue("Q.NOCTX")
    q = pymqi.Queue(qmgr, "Q.NOCTX", IN | OUT)
    sent = put(q, b"x", C.MQPMO_NO_CONTEXT | C.MQPMO_NO_SYNCPOINT)
    md = pymqi.MD()
    assert get(q, md) == b"x"
    for m in (sent, md):
        assert (m.PutDate.strip(), m.PutTime.strip()) == (b"", b"")
        assert m.PutApplType == C.MQAT_NO_CONTEXT


def test_handles_of_a_disconnected_queue_manager_are_2018(qmgr, qmgr_name) -> None:
    qm = pymqi.connect(qmgr_name)
    qm.define_queue("Q.DISC")
    q = pymqi.Queue(qm, "Q.DISC", IN | OUT)
    inq = pymqi.Queue(qm, "Q.DISC", C.MQOO_INQUIRE)
    qm.disconnect()
    fails(lambda: pymqi.Queue(qm, "Q.DISC", IN), C.MQRC_HCONN_ERROR)  # MQOPEN
    fails(lambda: inq.inquire(C.MQIA_MAX_Q_DEPTH), C.MQRC_HCONN_ERROR)  # MQINQ
    fails(lambda: put(q, b"lost?"), C.MQRC_HCONN_ERROR)
    fails(lambda: get(q), C.MQRC_HCONN_ERROR)
    fails(q.close, C.MQRC_HCONN_ERROR)
    assert qmgr.queue_status("Q.DISC")["current_depth"] == 0  # nothing went anywhere


def test_a_browse_that_accepts_truncation_is_2079_and_moves_on(qmgr) -> None:
    """MQGMO_ACCEPT_TRUNCATED_MSG on a browse: MQRC_TRUNCATED_MSG_ACCEPTED, the cursor past
    the message; without it MQRC_TRUNCATED_MSG_FAILED, the cursor on it (so that
    BROWSE_MSG_UNDER_CURSOR with a larger buffer returns it whole)."""
    qmgr.define_queue("Q.BROWSE.TRUNC")
    q = pymqi.Queue(qmgr, "Q.BROWSE.TRUNC", OUT | C.MQOO_BROWSE)
    put(q, b"first message")
    put(q, b"second")
    browse = C.MQGMO_BROWSE_FIRST | C.MQGMO_NO_WAIT
    with pytest.raises(pymqi.MQMIError) as exc:
        q.get(4, pymqi.MD(), pymqi.GMO(Options=browse))
    assert mqerror(exc) == (C.MQCC_WARNING, C.MQRC_TRUNCATED_MSG_FAILED)
    under = C.MQGMO_BROWSE_MSG_UNDER_CURSOR | C.MQGMO_NO_WAIT
    assert q.get(None, pymqi.MD(), pymqi.GMO(Options=under)) == b"first message"
    accept = browse | C.MQGMO_ACCEPT_TRUNCATED_MSG
    with pytest.raises(pymqi.MQMIError) as exc:
        q.get(4, pymqi.MD(), pymqi.GMO(Options=accept))
    assert mqerror(exc) == (C.MQCC_WARNING, C.MQRC_TRUNCATED_MSG_ACCEPTED)
    nxt = C.MQGMO_BROWSE_NEXT | C.MQGMO_NO_WAIT
    assert q.get(None, pymqi.MD(), pymqi.GMO(Options=nxt)) == b"second"


def test_a_negative_buffer_length_is_2005_and_takes_nothing(qmgr) -> None:
    qmgr.define_queue("Q.BUFLEN")
    q = pymqi.Queue(qmgr, "Q.BUFLEN", IN | OUT)
    put(q, b"kept")
    fails(lambda: q.get(-1, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_NO_WAIT)), 2005)
    assert get(q) == b"kept"
