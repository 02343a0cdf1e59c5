"""MQINQ with selector lists, MQSET and MQSTAT through both faces (adapter.pymqi and
adapter.ibmmq) on the in-memory backends, and the rest of the ibmmq face's shape."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import adapter.ibmmq as ibmmq
import adapter.pymqi as pymqi
from adapter.core import attributes as A
from adapter.shim.memory_log import MemoryLog
from adapter.shim.memory_store import MemoryStore

C = pymqi.CMQC
INQ_SET = C.MQOO_INQUIRE | C.MQOO_SET


def _ibmmq(world, name: str, **kw):
    return ibmmq.connect(
        name,
        log_backend=MemoryLog(world.clock, world.cluster),
        store=MemoryStore(name, world.clock.now_ms, world.server),
        clock=world.clock,
        **kw,
    )


@pytest.fixture
def mq(world, qmgr_name):
    qm = _ibmmq(world, qmgr_name)
    yield qm
    if qm._conn is not None:
        qm.disconnect()


def _reason(call) -> tuple[int, int]:
    with pytest.raises(pymqi.MQMIError) as err:
        call()
    return err.value.comp, err.value.reason


def test_one_selector_gives_the_value_a_list_gives_a_dict(qmgr) -> None:
    qmgr.define_queue("Q.INQ", max_depth=9, backout_requeue_q="Q.BACK", def_read_ahead=True)
    q = pymqi.Queue(qmgr, "Q.INQ")  # deferred open: MQINQ opens it for MQOO_INQUIRE
    assert q.inquire(C.MQIA_MAX_Q_DEPTH) == 9
    got = q.inquire(
        [C.MQIA_Q_TYPE, C.MQIA_DEF_READ_AHEAD, C.MQCA_BACKOUT_REQ_Q_NAME, C.MQIA_TRIGGER_TYPE]
    )
    assert got == {
        C.MQIA_Q_TYPE: C.MQQT_LOCAL,
        C.MQIA_DEF_READ_AHEAD: C.MQREADA_YES,
        C.MQCA_BACKOUT_REQ_Q_NAME: b"Q.BACK".ljust(48),
        C.MQIA_TRIGGER_TYPE: C.MQTT_FIRST,  # MQ's default TRIGTYPE(FIRST)
    }
    assert q.inq([]) == {}  # zero selectors is a valid MQINQ


def test_a_selector_of_another_queue_type_is_a_warning_with_mqs_placeholders(qmgr) -> None:
    qmgr.define_queue("Q.TYPE")
    q = pymqi.Queue(qmgr, "Q.TYPE", C.MQOO_INQUIRE)
    with pytest.raises(pymqi.MQMIError) as err:
        q.inquire([C.MQIA_DEF_PRIORITY, C.MQCA_BASE_Q_NAME, C.MQIA_BASE_TYPE])
    assert (err.value.comp, err.value.reason) == (C.MQCC_WARNING, C.MQRC_SELECTOR_NOT_FOR_TYPE)
    assert err.value.get("values") == {
        C.MQIA_DEF_PRIORITY: 0,
        C.MQCA_BASE_Q_NAME: b"*" * 48,
        C.MQIA_BASE_TYPE: C.MQIAV_NOT_APPLICABLE,
    }
    assert _reason(lambda: q.inquire(C.MQIA_PLATFORM)) == (C.MQCC_FAILED, C.MQRC_SELECTOR_ERROR)
    assert _reason(lambda: q.inquire(99999)) == (C.MQCC_FAILED, C.MQRC_SELECTOR_ERROR)
    many = [C.MQIA_Q_TYPE] * 257
    assert _reason(lambda: q.inquire(many))[1] == C.MQRC_SELECTOR_LIMIT_EXCEEDED
    out = pymqi.Queue(qmgr, "Q.TYPE", C.MQOO_OUTPUT)
    assert _reason(lambda: out.inquire(C.MQIA_Q_TYPE))[1] == C.MQRC_NOT_OPEN_FOR_INQUIRE


def test_queue_manager_inquire_lists_and_its_chosen_values(qmgr, mq) -> None:
    qmgr.alter_qmgr(description="test qm", dead_letter_q="DLQ")
    got = mq.inquire(
        [C.MQCA_Q_MGR_NAME, C.MQCA_Q_MGR_DESC, C.MQCA_DEAD_LETTER_Q_NAME, C.MQCA_VERSION]
        + [C.MQIA_COMMAND_LEVEL, C.MQIA_PLATFORM, C.MQIA_CODED_CHAR_SET_ID, C.MQIA_MAX_PRIORITY]
    )
    assert ibmmq.to_string(got[C.MQCA_Q_MGR_NAME]) == mq.get_name()
    assert got[C.MQCA_Q_MGR_DESC] == b"test qm".ljust(64)
    assert got[C.MQCA_DEAD_LETTER_Q_NAME] == b"DLQ".ljust(48)
    assert (got[C.MQCA_VERSION], got[C.MQIA_COMMAND_LEVEL]) == (b"09040000", 940)
    assert (got[C.MQIA_PLATFORM], got[C.MQIA_CODED_CHAR_SET_ID]) == (C.MQPL_UNIX, 1208)
    assert got[C.MQIA_MAX_PRIORITY] == 9
    assert mq.inq(C.MQIA_SYNCPOINT) == C.MQSP_AVAILABLE
    assert _reason(lambda: mq.inquire([C.MQIA_CURRENT_Q_DEPTH]))[1] == C.MQRC_SELECTOR_ERROR


def test_mqset_then_mqinq_from_another_connection_and_get_put_disabled(qmgr, mq) -> None:
    qmgr.define_queue("Q.SET")
    getter = pymqi.Queue(qmgr, "Q.SET", C.MQOO_INPUT_SHARED | C.MQOO_INQUIRE)
    putter = pymqi.Queue(qmgr, "Q.SET", C.MQOO_OUTPUT)
    putter.put(b"one")
    admin = ibmmq.Queue(mq, "Q.SET", INQ_SET)
    admin.set(
        {
            C.MQIA_INHIBIT_GET: C.MQQA_GET_INHIBITED,
            C.MQIA_INHIBIT_PUT: C.MQQA_PUT_INHIBITED,
            C.MQIA_TRIGGER_CONTROL: C.MQTC_ON,
            C.MQIA_TRIGGER_TYPE: C.MQTT_DEPTH,
            C.MQIA_TRIGGER_DEPTH: 10,
            C.MQIA_TRIGGER_MSG_PRIORITY: 4,
            C.MQCA_TRIGGER_DATA: "start the app",
            C.MQIA_DIST_LISTS: C.MQDL_SUPPORTED,
        }
    )
    seen = getter.inquire(
        [C.MQIA_INHIBIT_GET, C.MQIA_INHIBIT_PUT, C.MQIA_TRIGGER_CONTROL, C.MQIA_TRIGGER_TYPE]
        + [C.MQIA_TRIGGER_DEPTH, C.MQIA_TRIGGER_MSG_PRIORITY, C.MQCA_TRIGGER_DATA]
        + [C.MQIA_DIST_LISTS]
    )
    assert list(seen.values()) == [
        1,
        1,
        C.MQTC_ON,
        C.MQTT_DEPTH,
        10,
        4,
        b"start the app".ljust(64),
        1,
    ]
    assert _reason(lambda: getter.get()) == (C.MQCC_FAILED, C.MQRC_GET_INHIBITED)
    assert _reason(lambda: putter.put(b"two")) == (C.MQCC_FAILED, C.MQRC_PUT_INHIBITED)
    # pymqi's old spelling: set(selector, value)
    pymqi.Queue(qmgr, "Q.SET", C.MQOO_SET).set(C.MQIA_INHIBIT_GET, C.MQQA_GET_ALLOWED)
    assert getter.get() == b"one"
    assert qmgr.queue_status("Q.SET")["attributes"]["trigger_data"] == "start the app"


def test_mqset_rules_through_the_face(qmgr) -> None:
    qmgr.define_queue("Q.RULES")
    inq_only = pymqi.Queue(qmgr, "Q.RULES", C.MQOO_INQUIRE)
    assert _reason(lambda: inq_only.set(C.MQIA_INHIBIT_PUT, 1))[1] == C.MQRC_NOT_OPEN_FOR_SET
    q = pymqi.Queue(qmgr, "Q.RULES", INQ_SET)
    assert _reason(lambda: q.set(C.MQIA_MAX_Q_DEPTH, 5))[1] == C.MQRC_SELECTOR_ERROR
    assert _reason(lambda: q.set({C.MQIA_TRIGGER_DEPTH: 0}))[1] == C.MQRC_TRIGGER_DEPTH_ERROR
    bad = {C.MQIA_INHIBIT_PUT: 1, C.MQIA_TRIGGER_TYPE: 9}
    assert _reason(lambda: q.set(bad))[1] == C.MQRC_TRIGGER_TYPE_ERROR
    assert q.inquire(C.MQIA_INHIBIT_PUT) == 0  # nothing set: no partial completion
    too_long = "x" * 65
    assert _reason(lambda: q.set(C.MQCA_TRIGGER_DATA, too_long))[1] == (
        C.MQRC_CHAR_ATTR_LENGTH_ERROR
    )
    with pytest.raises(TypeError):
        q.set(C.MQIA_TRIGGER_DEPTH, "3")
    with pytest.raises(TypeError):
        q.set()


def test_mqstat_counts_async_puts_refused_by_put_disabled(qmgr, mq) -> None:
    qmgr.define_queue("Q.STAT")
    q = ibmmq.Queue(mq, "Q.STAT", C.MQOO_OUTPUT)
    pmo = ibmmq.PMO(Options=C.MQPMO_ASYNC_RESPONSE)
    q.put(b"ok", ibmmq.MD(), pmo)
    qmgr.alter_queue("Q.STAT", put_inhibited=True)
    q.put(b"refused 1", ibmmq.MD(), pmo)
    q.put(b"refused 2", ibmmq.MD(), pmo)
    sts = mq.stat(C.MQSTAT_TYPE_ASYNC_ERROR)
    assert isinstance(sts, ibmmq.STS) and sts.Version == C.MQSTS_VERSION_2
    assert (sts.PutSuccessCount, sts.PutWarningCount, sts.PutFailureCount) == (1, 0, 2)
    assert (sts.CompCode, sts.Reason) == (C.MQCC_FAILED, C.MQRC_PUT_INHIBITED)
    assert (sts.ObjectType, ibmmq.to_string(sts.ObjectName)) == (C.MQOT_Q, "Q.STAT")
    assert ibmmq.to_string(sts.ObjectQMgrName) == mq.get_name()
    again = mq.stat(C.MQSTAT_TYPE_ASYNC_ERROR)  # MQSTAT reset the figures
    assert (again.PutSuccessCount, again.PutFailureCount, again.Reason) == (0, 0, C.MQRC_NONE)
    mq.get_handle().barrier()  # its pump counted the delivered put into the depth
    assert qmgr.queue_status("Q.STAT")["current_depth"] == 1
    assert _reason(lambda: mq.stat(C.MQSTAT_TYPE_RECONNECTION))[1] == C.MQRC_ENVIRONMENT_ERROR
    assert _reason(lambda: mq.stat(7))[1] == C.MQRC_STAT_TYPE_ERROR


def test_async_consume_answers_as_mq_not_2298(mq) -> None:
    """MQCB / MQCTL exist now (tests/unit/test_async_consume_memory.py): their first
    parameter errors, not MQRC_FUNCTION_NOT_SUPPORTED."""
    cbd = ibmmq.CBD(CallbackFunction=lambda **kw: None)
    assert callable(cbd.CallbackFunction)
    # a message consumer on the queue manager has no object handle
    assert _reason(lambda: mq.cb(operation=C.MQOP_REGISTER, cbd=cbd))[1] == C.MQRC_HOBJ_ERROR
    assert _reason(lambda: mq.ctl(C.MQOP_START_WAIT, ibmmq.CTLO()))[1] == (
        C.MQRC_NO_CALLBACKS_ACTIVE
    )
    mq.define_queue("Q.CB")
    # CBD() names no function: MQRC_CALLBACK_ROUTINE_ERROR
    assert _reason(lambda: ibmmq.Queue(mq, "Q.CB").cb(operation=C.MQOP_REGISTER))[1] == (
        C.MQRC_CALLBACK_ROUTINE_ERROR
    )


def test_ibmmq_connect_takes_its_client_arguments(world, qmgr_name) -> None:
    qm = _ibmmq(world, qmgr_name, channel="DEV.APP.SVRCONN", conn_info="host(1414)")
    qm.disconnect()
    csp = ibmmq.CSP(CSPUserId="app", CSPPassword="secret")
    cno = ibmmq.CNO(Options=C.MQCNO_CLIENT_BINDING)
    qm = _ibmmq(world, qmgr_name, user="app", password="pw", cd=ibmmq.CD(), csp=csp, cno=cno)
    assert qm.get_name() == qmgr_name
    qm.disconnect()
    bad = ibmmq.CNO()
    bad.Version = 99
    assert _reason(lambda: _ibmmq(world, qmgr_name, cno=bad))[1] == C.MQRC_CNO_ERROR
    with pytest.raises(ValueError):
        _ibmmq(world, qmgr_name, user="app")  # a user needs a password, as ibmmq says
    with pytest.raises(TypeError):
        ibmmq.connect(None)


def test_ibmmq_names_strings_versions_and_errors(mq) -> None:
    assert ibmmq.CMQSTRC.MQRC_DICT[C.MQRC_NO_MSG_AVAILABLE] == "MQRC_NO_MSG_AVAILABLE"
    assert ibmmq.CMQSTRC.MQCC_DICT[C.MQCC_WARNING] == "MQCC_WARNING"
    assert ibmmq.CMQSTRC.MQOT_DICT[C.MQOT_Q_MGR] == "MQOT_Q_MGR"
    assert ibmmq.CMQSTRC.MQQA_GET_DICT == {0: "MQQA_GET_ALLOWED", 1: "MQQA_GET_INHIBITED"}
    assert ibmmq.CMQSTRC.MQCMD_DICT[ibmmq.CMQCFC.MQCMD_INQUIRE_Q] == "MQCMD_INQUIRE_Q"
    assert ibmmq.CMQXC.MQCHT_CLNTCONN == 6 and ibmmq.CMQXC.MQXPT_TCP == 2
    # Every dictionary maps a value back to a constant that has it.
    for name, table in vars(ibmmq.CMQSTRC).items():
        if name.endswith("_DICT"):
            for value, constant in table.items():
                module = next(
                    m for m in (ibmmq.CMQC, ibmmq.CMQCFC, ibmmq.CMQXC) if hasattr(m, constant)
                )
                assert getattr(module, constant) == value
    assert ibmmq.to_string(b"QM1\0garbage") == "QM1"
    assert ibmmq.to_string(b"Q.NAME   ") == "Q.NAME"
    assert ibmmq.to_string(42) == 42
    assert ibmmq.get_versions() == {"module": ibmmq.__version__, "MQ": 940}
    mq.define_queue("Q.TRUNC")
    q = ibmmq.Queue(mq, "Q.TRUNC", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    q.put(b"a longer message")
    gmo = ibmmq.GMO(Options=C.MQGMO_ACCEPT_TRUNCATED_MSG)
    with pytest.raises(ibmmq.MQMIError) as err:
        q.get(6, ibmmq.MD(), gmo)
    assert err.value.reason == C.MQRC_TRUNCATED_MSG_ACCEPTED
    assert (err.value.get("message"), err.value.get("original_length")) == (b"a long", 16)
    assert q.get_name() == "Q.TRUNC" and q.get_queue_manager() is mq


def test_every_selector_of_the_table_is_answered_for_its_object(qmgr) -> None:
    qmgr.define_queue("Q.ALL")
    local = [s for s, a in A.ATTRIBUTES.items() if A.LOCAL in a.objects]
    got = pymqi.Queue(qmgr, "Q.ALL", C.MQOO_INQUIRE).inquire(local)
    assert list(got) == local
    for s, value in got.items():
        attr = A.ATTRIBUTES[s]
        assert (
            isinstance(value, bytes) and len(value) == attr.length
            if attr.is_char
            else (isinstance(value, int))
        ), attr.name
    on_qmgr = [s for s, a in A.ATTRIBUTES.items() if A.QMGR in a.objects]
    assert list(qmgr.inquire(on_qmgr)) == on_qmgr


# Every example runs on the test's one queue manager (the fixture is not reset between them).
_SAME_QUEUE_MANAGER = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@_SAME_QUEUE_MANAGER
@given(selectors=st.lists(st.sampled_from(sorted(A.ATTRIBUTES)), max_size=12))
def test_mqinq_of_any_selector_list_on_a_local_queue(qmgr, selectors) -> None:
    if qmgr.get_handle().lookup_queue("Q.HYPO") is None:
        qmgr.define_queue("Q.HYPO")
    q = pymqi.Queue(qmgr, "Q.HYPO", C.MQOO_INQUIRE)
    queue_selectors = [s for s in selectors if A.ATTRIBUTES[s].objects & A.QUEUE_KINDS]
    elsewhere = [s for s in queue_selectors if A.LOCAL not in A.ATTRIBUTES[s].objects]
    try:
        got = q.inquire(selectors)
    except pymqi.MQMIError as err:
        if len(queue_selectors) < len(selectors):  # a queue manager attribute: 2067
            assert (err.comp, err.reason) == (C.MQCC_FAILED, C.MQRC_SELECTOR_ERROR)
        else:  # an alias or remote queue's attribute: 2068, the others answered
            assert elsewhere and err.reason == C.MQRC_SELECTOR_NOT_FOR_TYPE
            assert list(err.values) == list(dict.fromkeys(selectors))
            assert all(err.values[s] == A.not_applicable(s) for s in elsewhere)
    else:
        assert not elsewhere and len(queue_selectors) == len(selectors)
        assert list(got) == list(dict.fromkeys(selectors))
    finally:
        q.close()


SETTABLE = {
    C.MQIA_INHIBIT_GET: st.sampled_from([0, 1]),
    C.MQIA_INHIBIT_PUT: st.sampled_from([0, 1]),
    C.MQIA_TRIGGER_CONTROL: st.sampled_from([C.MQTC_OFF, C.MQTC_ON]),
    C.MQIA_TRIGGER_TYPE: st.sampled_from([0, 1, 2, 3]),
    C.MQIA_TRIGGER_DEPTH: st.integers(1, 999_999_999),
    C.MQIA_TRIGGER_MSG_PRIORITY: st.integers(0, 9),
    C.MQIA_DIST_LISTS: st.sampled_from([C.MQDL_SUPPORTED, C.MQDL_NOT_SUPPORTED]),
    C.MQCA_TRIGGER_DATA: st.text("ABCxyz 0123.", max_size=64).map(str.rstrip),
}


@_SAME_QUEUE_MANAGER
@given(values=st.fixed_dictionaries({}, optional=SETTABLE))
def test_mqset_then_mqinq_gives_back_what_was_set(qmgr, values) -> None:
    if qmgr.get_handle().lookup_queue("Q.HYPOSET") is None:
        qmgr.define_queue("Q.HYPOSET")
    q = pymqi.Queue(qmgr, "Q.HYPOSET", INQ_SET)
    q.set(values)
    got = q.inquire(list(values))
    for selector, value in values.items():
        if A.ATTRIBUTES[selector].is_char:
            assert got[selector] == value.encode().ljust(A.ATTRIBUTES[selector].length)
        else:
            assert got[selector] == value
    q.close()


def test_an_alias_handle_answers_and_sets_for_the_alias(qmgr) -> None:
    """Through an alias, MQINQ answers the alias's attributes (its BaseQName, its DESCR;
    the depth, which an alias has not, is the 2068 warning with MQ's placeholder) and
    MQSET sets the alias's InhibitPut, not the target's."""
    qmgr.define_queue("Q.BASE", description="base")
    qmgr.define_queue("Q.AS.ALIAS", queue_type=C.MQQT_ALIAS, target="Q.BASE", description="alias")
    q = pymqi.Queue(qmgr, "Q.AS.ALIAS", INQ_SET)
    with pytest.raises(pymqi.MQMIError) as err:
        q.inquire([C.MQIA_CURRENT_Q_DEPTH, C.MQCA_Q_DESC, C.MQCA_BASE_Q_NAME])
    assert err.value.reason == C.MQRC_SELECTOR_NOT_FOR_TYPE
    assert err.value.values == {
        C.MQIA_CURRENT_Q_DEPTH: C.MQIAV_NOT_APPLICABLE,
        C.MQCA_Q_DESC: b"alias".ljust(64),
        C.MQCA_BASE_Q_NAME: b"Q.BASE".ljust(48),
    }
    assert q.inquire(C.MQIA_Q_TYPE) == C.MQQT_ALIAS
    q.set(C.MQIA_INHIBIT_PUT, C.MQQA_PUT_INHIBITED)
    conn = qmgr.get_handle()
    assert conn.lookup_queue("Q.AS.ALIAS").put_inhibited
    assert not conn.lookup_queue("Q.BASE").put_inhibited
    q.close()
