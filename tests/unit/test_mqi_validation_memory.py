"""MQI field and option validation through the pymqi face on the in-memory backends:
unknown option bits (MQOO, MQPMO, MQGMO, MQCO), the MQMD Feedback and Report fields,
structure ids and versions, PMO.Context without saved context, alternate user authority,
MQCONNX's MQCNO, and MQCONN against servers that cannot be reached."""

from __future__ import annotations

import pytest
import redis
from confluent_kafka import KafkaException

import adapter.pymqi as pymqi
from adapter import config
from adapter.core.dynamic import close_options_error
from adapter.shim.context import DEFAULT_CONTEXT
from adapter.shim.memory_log import MemoryLog
from adapter.shim.memory_store import MemoryStore
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
        (C.MQCO_KEEP_SUB | C.MQCO_QUIESCE, 2045),  # a queue handle is no subscription
        (C.MQCO_DELETE | C.MQCO_DELETE_PURGE, 2046),
        (C.MQCO_KEEP_SUB | C.MQCO_REMOVE_SUB, 2046),
        (0x10, 2046),  # no MQCO_* has this bit
        (-1, 2046),
    ],
)
def test_close_options_rule(options: int, reason: int | None) -> None:
    # the option rules, on a permanent dynamic queue (where both delete options apply)
    assert close_options_error(options, C.MQQDT_PERMANENT_DYNAMIC, True) == reason


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


# -- MQPMO.Context: 2098 --------------------------------------------------------------


def test_pass_context_from_a_handle_with_nothing_got_is_2098(qmgr, queue: str) -> None:
    qmgr.define_queue("Q.FWD")
    put(pymqi.Queue(qmgr, queue, OUT), b"request")
    src = pymqi.Queue(qmgr, queue, IN | C.MQOO_BROWSE | C.MQOO_SAVE_ALL_CONTEXT)
    out = pymqi.Queue(qmgr, "Q.FWD", OUT | C.MQOO_PASS_ALL_CONTEXT)
    for option in (C.MQPMO_PASS_ALL_CONTEXT, C.MQPMO_PASS_IDENTITY_CONTEXT):
        pmo = pymqi.PMO(Options=option | NOSYNC, Context=src.get_handle())
        fails(lambda p=pmo: out.put(b"x", pymqi.MD(), p), C.MQRC_CONTEXT_NOT_AVAILABLE)
        fails(lambda p=pmo: qmgr.put1("Q.FWD", b"x", pymqi.MD(), p), 2098)
    pmo = pymqi.PMO(Options=C.MQPMO_PASS_ALL_CONTEXT | NOSYNC, Context=src.get_handle())
    # A browse saves no context either.
    assert get(src, options=C.MQGMO_BROWSE_FIRST) == b"request"
    fails(lambda: out.put(b"x", pymqi.MD(), pmo), 2098)
    # A removing get does; a later browse leaves none again (2098's page).
    assert get(src) == b"request"
    out.put(b"forwarded", pymqi.MD(), pmo)
    put(pymqi.Queue(qmgr, queue, OUT), b"next")
    assert get(src, options=C.MQGMO_BROWSE_FIRST) == b"next"
    fails(lambda: out.put(b"x", pymqi.MD(), pmo), 2098)
    assert qmgr.queue_status("Q.FWD")["current_depth"] == 1


# -- alternate user authority ---------------------------------------------------------


def _od(queue: str, user: str = "bob") -> pymqi.OD:
    return pymqi.OD(ObjectName=queue, AlternateUserId=user)


def test_alternate_user_authority_needs_the_policy(qmgr, queue: str, monkeypatch) -> None:
    # Default: nobody may act as another user (MQ's +altusr), for MQOPEN and MQPUT1.
    monkeypatch.delenv(config.ALTERNATE_USER_AUTHORITY_ENV, raising=False)
    opts = OUT | C.MQOO_ALTERNATE_USER_AUTHORITY
    fails(lambda: pymqi.Queue(qmgr, _od(queue), opts), C.MQRC_NOT_AUTHORIZED)
    pmo = pymqi.PMO(Options=NOSYNC | C.MQPMO_ALTERNATE_USER_AUTHORITY)
    fails(lambda: qmgr.put1(_od(queue), b"x", pymqi.MD(), pmo), C.MQRC_NOT_AUTHORIZED)
    # Options are checked before authority, the object before authority.
    fails(lambda: pymqi.Queue(qmgr, _od(queue), opts | 0x00800000), 2046)
    fails(lambda: pymqi.Queue(qmgr, _od("NO.SUCH.Q"), opts), C.MQRC_UNKNOWN_OBJECT_NAME)
    pymqi.Queue(qmgr, _od(queue), OUT).close()  # without the option nothing is asked


@pytest.mark.parametrize("policy", ["*", "nobody-else, {user}"])
def test_a_user_the_policy_lists_may_use_alternate_user_authority(
    world, qmgr_name: str, monkeypatch, policy: str
) -> None:
    user = DEFAULT_CONTEXT["UserIdentifier"]  # the connecting user
    monkeypatch.setenv(config.ALTERNATE_USER_AUTHORITY_ENV, policy.format(user=user))
    qm = world.connect(qmgr_name)  # the policy is read at MQCONN
    try:
        qm.define_queue("Q.ALT")
        q = pymqi.Queue(qm, _od("Q.ALT"), OUT | C.MQOO_ALTERNATE_USER_AUTHORITY)
        put(q, b"as bob")
        # On MQPUT the option is not allowed: the authority was settled at MQOPEN.
        pmo = pymqi.PMO(Options=NOSYNC | C.MQPMO_ALTERNATE_USER_AUTHORITY)
        fails(lambda: q.put(b"x", pymqi.MD(), pmo), C.MQRC_OPTIONS_ERROR)
        qm.put1(_od("Q.ALT"), b"put1 as bob", pymqi.MD(), pmo)  # MQPUT1 takes it
        assert qm.queue_status("Q.ALT")["current_depth"] == 2
    finally:
        qm.disconnect()


# -- StrucId and Version ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value"),
    [("StrucId", b"XX  "), ("StrucId", b"MD"), ("Version", 0), ("Version", 3)],
)
def test_bad_md_is_2026_on_put_put1_and_get(qmgr, queue: str, field: str, value) -> None:
    out, inq = pymqi.Queue(qmgr, queue, OUT), pymqi.Queue(qmgr, queue, IN)
    bad = pymqi.MD(**{field: value})
    fails(lambda: out.put(b"x", bad, pymqi.PMO(Options=NOSYNC)), C.MQRC_MD_ERROR)
    fails(lambda: qmgr.put1(queue, b"x", bad, pymqi.PMO(Options=NOSYNC)), 2026)
    put(out, b"stays")
    fails(lambda: inq.get(None, bad, pymqi.GMO()), C.MQRC_MD_ERROR)
    assert get(inq) == b"stays"


@pytest.mark.parametrize(("field", "value"), [("StrucId", b"GMO"), ("Version", 0), ("Version", 5)])
def test_bad_gmo_is_2186(qmgr, queue: str, field: str, value) -> None:
    put(pymqi.Queue(qmgr, queue, OUT), b"stays")
    inq = pymqi.Queue(qmgr, queue, IN)
    fails(lambda: inq.get(None, pymqi.MD(), pymqi.GMO(**{field: value})), C.MQRC_GMO_ERROR)
    assert get(inq) == b"stays"


@pytest.mark.parametrize(("field", "value"), [("StrucId", b"PMO!"), ("Version", 0), ("Version", 4)])
def test_bad_pmo_is_2173_on_put_and_put1(qmgr, queue: str, field: str, value) -> None:
    out = pymqi.Queue(qmgr, queue, OUT)
    bad = pymqi.PMO(Options=NOSYNC, **{field: value})
    fails(lambda: out.put(b"x", pymqi.MD(), bad), C.MQRC_PMO_ERROR)
    fails(lambda: qmgr.put1(queue, b"x", pymqi.MD(), bad), C.MQRC_PMO_ERROR)
    assert qmgr.queue_status(queue)["current_depth"] == 0


@pytest.mark.parametrize(("field", "value"), [("StrucId", b"OB  "), ("Version", 0), ("Version", 5)])
def test_bad_od_is_2044_on_open_and_put1(qmgr, queue: str, field: str, value) -> None:
    od = pymqi.OD(ObjectName=queue, **{field: value})
    fails(lambda: pymqi.Queue(qmgr, od, OUT), C.MQRC_OD_ERROR)
    fails(lambda: qmgr.put1(od, b"x", pymqi.MD(), pymqi.PMO(Options=NOSYNC)), 2044)
    # MQPUT1 checks its parameters in order: the OD before the MD.
    fails(lambda: qmgr.put1(od, b"x", pymqi.MD(Version=9), pymqi.PMO()), 2044)


def test_every_version_mq_defines_is_accepted(qmgr, queue: str) -> None:
    for v in (1, 2, 3, 4):
        od = pymqi.OD(ObjectName=queue, Version=v)
        q = pymqi.Queue(qmgr, od, OUT | IN)
        put(q, b"v", Version=min(v, 2))
        q.put(b"p", pymqi.MD(), pymqi.PMO(Options=NOSYNC, Version=min(v, 3)))
        assert q.get(None, pymqi.MD(Version=min(v, 2)), pymqi.GMO(Version=v)) == b"v"
        assert get(q) == b"p"
        q.close()


def test_structure_checks_come_after_the_handle_checks(qmgr, queue: str) -> None:
    q = pymqi.Queue(qmgr, queue, OUT | IN)
    q.close()
    fails(lambda: q.put(b"x", pymqi.MD(Version=9)), C.MQRC_HOBJ_ERROR)
    live = pymqi.Queue(qmgr, queue, OUT | IN)
    qmgr.disconnect()
    fails(lambda: live.put(b"x", pymqi.MD(Version=9)), C.MQRC_HCONN_ERROR)
    fails(lambda: live.get(None, pymqi.MD(), pymqi.GMO(Version=9)), C.MQRC_HCONN_ERROR)


# -- MQCONNX: MQCNO and MQCSP ----------------------------------------------------------


def test_connect_with_options_validates_the_cno(world, qmgr_name: str) -> None:
    def connx(**kw) -> pymqi.QueueManager:
        qm = pymqi.QueueManager(  # name=None: not connected yet (pymqi's deferred form)
            None,
            log_backend=MemoryLog(world.clock, world.cluster),
            store=MemoryStore(qmgr_name, world.clock.now_ms, world.server),
            clock=world.clock,
        )
        qm.connect_with_options(qmgr_name, **kw)
        return qm

    for bad in (pymqi.CNO(StrucId=b"CNX "), pymqi.CNO(Version=0), pymqi.CNO(Version=9)):
        fails(lambda b=bad: connx(cno=b), C.MQRC_CNO_ERROR)
    both_bindings = C.MQCNO_FASTPATH_BINDING | C.MQCNO_SHARED_BINDING
    two_shares = C.MQCNO_HANDLE_SHARE_BLOCK | C.MQCNO_HANDLE_SHARE_NO_BLOCK
    reconnects = C.MQCNO_RECONNECT | C.MQCNO_RECONNECT_DISABLED
    for options in (both_bindings, two_shares, reconnects, 0x00020000, -0x80000000):
        fails(lambda o=options: connx(cno=pymqi.CNO(Options=o)), C.MQRC_OPTIONS_ERROR)
        fails(lambda o=options: connx(opts=o), C.MQRC_OPTIONS_ERROR)  # pymqi v1's form
    fails(lambda: connx(csp=pymqi.CSP(Version=4)), C.MQRC_CSP_ERROR)
    with pytest.raises(TypeError):
        connx(cno=C.MQCNO_NONE)
    with pytest.raises(ValueError):
        connx(user="app")  # pymqi: a user needs a password (an empty one will do)
    good = C.MQCNO_HANDLE_SHARE_BLOCK | C.MQCNO_CLIENT_BINDING | C.MQCNO_RECONNECT_Q_MGR
    csp = pymqi.CSP(
        AuthenticationType=C.MQCSP_AUTH_USER_ID_AND_PWD, CSPUserId="app", CSPPassword="pw"
    )
    qm = connx(cno=pymqi.CNO(Options=good), csp=csp, user="app", password="")
    assert qm.is_connected and "pw" not in repr(csp)
    qm.disconnect()
    connx(opts=C.MQCNO_NONE).disconnect()


# -- MQCONN when the servers cannot be reached ----------------------------------------


class _DeadStore(MemoryStore):
    def ping(self) -> None:
        raise redis.ConnectionError("Connection refused")


class _DeadLog(MemoryLog):
    def check_reachable(self) -> None:
        raise KafkaException("Failed to resolve broker")


def test_unreachable_servers_at_mqconn_are_2538(world, qmgr_name: str) -> None:
    clock = world.clock
    for log, store in (
        (MemoryLog(clock, world.cluster), _DeadStore(qmgr_name, clock.now_ms, world.server)),
        (_DeadLog(clock, world.cluster), MemoryStore(qmgr_name, clock.now_ms, world.server)),
    ):
        fails(
            lambda lg=log, st=store: pymqi.QueueManager(
                qmgr_name, log_backend=lg, store=st, clock=clock
            ),
            C.MQRC_HOST_NOT_AVAILABLE,
        )
