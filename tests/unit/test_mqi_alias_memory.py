"""Alias queues, MQOD ObjectQMgrName and the default ReplyToQMgr through the pymqi face
on the in-memory backends: DEFINE / ALTER / DELETE QALIAS (one object per name: 4001 /
4002; FORCE for a TARGET change while open: 3210), MQOPEN / MQPUT1 resolution (2082,
2001), the alias's defaults and either queue's inhibits (2051, 2016), the target's
limits and open counts, the Resolved names, MQINQ on an alias handle (2068), a forced
TARGET change seen by open handles (2041), ObjectQMgrName (2087, 2092), ReplyToQMgr,
and `mqk define --alias` / `mqk alter --target`."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import adapter.pymqi as pymqi
from adapter import cli
from adapter.core.resolution import ResolutionError, alias_base_error, resolve_remote
from adapter.shim import naming
from adapter.shim.catalog import QueueDef, through_alias
from tests.integration.conftest import mqerror

C = pymqi.CMQC
IN, OUT, INQ = C.MQOO_INPUT_SHARED, C.MQOO_OUTPUT, C.MQOO_INQUIRE
NOSYNC = C.MQPMO_NO_SYNCPOINT
ALIAS = C.MQQT_ALIAS


def fails(call, reason: int, comp: int = C.MQCC_FAILED) -> None:
    with pytest.raises(pymqi.MQMIError) as exc:
        call()
    assert mqerror(exc) == (comp, reason)


def put(q, body: bytes, md: pymqi.MD | None = None, pmo: pymqi.PMO | None = None) -> None:
    q.put(body, md or pymqi.MD(), pmo or pymqi.PMO(Options=NOSYNC))


def get(q, md: pymqi.MD | None = None, gmo: pymqi.GMO | None = None) -> bytes:
    return q.get(None, md or pymqi.MD(), gmo or pymqi.GMO(Options=C.MQGMO_NO_SYNCPOINT))


def blank48(name: str) -> bytes:
    return name.encode().ljust(48)


@pytest.fixture
def aliased(qmgr):
    """TARGET.Q (local) and ALIAS.Q -> TARGET.Q."""
    qmgr.define_queue("TARGET.Q")
    qmgr.define_queue("ALIAS.Q", queue_type=ALIAS, target="TARGET.Q")
    return qmgr


# -- definitions ---------------------------------------------------------------------


def test_alias_definitions_round_trip_and_older_records_have_no_target() -> None:
    alias = QueueDef(name="A", queue_type=ALIAS, target="Q", description="orders in")
    assert QueueDef.from_json(alias.to_json()) == alias
    assert alias.definition_type == C.MQQDT_PREDEFINED and not alias.has_storage
    old = QueueDef.from_json(b'{"name": "Q.OLD", "max_depth": 7}')
    assert (old.target, old.description, old.has_storage) == ("", "", True)


def test_an_alias_has_no_topics_and_only_the_attributes_mq_gives_an_alias(aliased) -> None:
    log = aliased.get_handle().log
    assert not log.topic_exists(naming.data_topic(aliased.get_name(), "ALIAS.Q", 0))
    assert log.topic_exists(naming.data_topic(aliased.get_name(), "TARGET.Q", 0))
    with pytest.raises(ValueError, match="max_depth"):  # MAXDEPTH is the target's
        aliased.define_queue("A2", queue_type=ALIAS, target="TARGET.Q", max_depth=5)
    with pytest.raises(ValueError, match="shareable"):
        aliased.alter_queue("ALIAS.Q", shareable=False)
    with pytest.raises(ValueError, match="target"):  # TARGET is an alias's only
        aliased.alter_queue("TARGET.Q", target="X")
    with pytest.raises(ValueError, match="target"):
        aliased.define_queue("L2", target="TARGET.Q")
    with pytest.raises(ValueError, match="description"):
        aliased.define_queue("A3", queue_type=ALIAS, target="T", description="x" * 65)


def test_a_name_is_one_object_whatever_its_type(aliased) -> None:
    # Without REPLACE: it exists (4001); with REPLACE as another type: wrong type (4002).
    for queue_type in (C.MQQT_LOCAL, C.MQQT_MODEL):
        fails(lambda t=queue_type: aliased.define_queue("ALIAS.Q", queue_type=t), 4001)
        fails(lambda t=queue_type: aliased.define_queue("ALIAS.Q", True, queue_type=t), 4002)
    fails(lambda: aliased.define_queue("TARGET.Q", queue_type=ALIAS, target="X"), 4001)
    fails(lambda: aliased.define_queue("TARGET.Q", True, queue_type=ALIAS, target="X"), 4002)
    aliased.define_queue("ALIAS.Q", True, queue_type=ALIAS, target="TARGET.Q", def_priority=3)
    assert aliased.get_handle().lookup_queue("ALIAS.Q", refresh=True).def_priority == 3
    assert aliased.get_handle().lookup_queue("TARGET.Q", refresh=True).queue_type == 1


# -- MQOPEN / MQPUT1 resolution ------------------------------------------------------


def test_put_through_the_alias_get_through_the_target_and_back(aliased) -> None:
    via_alias = pymqi.Queue(aliased, "ALIAS.Q", IN | OUT)
    target = pymqi.Queue(aliased, "TARGET.Q", IN | OUT)
    put(via_alias, b"in by the alias")
    assert get(target) == b"in by the alias"
    put(target, b"in by the target")
    assert get(via_alias) == b"in by the target"
    aliased.put1("ALIAS.Q", b"put1 by the alias")
    assert aliased.queue_status("TARGET.Q")["current_depth"] == 1
    assert get(target) == b"put1 by the alias"


def test_od_keeps_the_alias_and_the_resolved_names_are_the_target(aliased) -> None:
    qm_name = aliased.get_name()
    od = pymqi.OD(ObjectName=b"ALIAS.Q")
    q = pymqi.Queue(aliased, od, IN | OUT)
    assert pymqi.structs.mqstr(od.ObjectName) == "ALIAS.Q"
    assert (od.ResolvedQName, od.ResolvedQMgrName) == (blank48("TARGET.Q"), blank48(qm_name))
    pmo = pymqi.PMO(Options=NOSYNC)
    q.put(b"x", pymqi.MD(), pmo)
    assert (pmo.ResolvedQName, pmo.ResolvedQMgrName) == (blank48("TARGET.Q"), blank48(qm_name))
    gmo = pymqi.GMO(Options=C.MQGMO_NO_SYNCPOINT)
    get(q, gmo=gmo)
    assert gmo.ResolvedQName == blank48("TARGET.Q")
    pmo1 = pymqi.PMO(Options=NOSYNC)
    od1 = pymqi.OD(ObjectName=b"ALIAS.Q")
    aliased.put1(od1, b"y", pymqi.MD(), pmo1)
    assert pmo1.ResolvedQName == od1.ResolvedQName == blank48("TARGET.Q")
    assert pymqi.structs.mqstr(od1.ObjectName) == "ALIAS.Q"


def test_resolved_names_are_blank_for_inquire_only_and_left_alone_before_od_v3(aliased) -> None:
    od = pymqi.OD(ObjectName=b"ALIAS.Q", ResolvedQName=b"untouched?")
    pymqi.Queue(aliased, od, INQ)
    assert (od.ResolvedQName, od.ResolvedQMgrName) == (blank48(""), blank48(""))
    for version in (1, 2):
        od = pymqi.OD(ObjectName=b"ALIAS.Q", Version=version, ResolvedQName=b"kept")
        pymqi.Queue(aliased, od, OUT)
        assert od.ResolvedQName == b"kept"  # no such field before MQOD version 3


def test_an_alias_must_resolve_to_a_local_queue(qmgr) -> None:
    qmgr.define_queue("LOCAL.Q")
    qmgr.define_queue("MODEL.Q", queue_type=C.MQQT_MODEL)
    qmgr.define_queue("TO.NOTHING", queue_type=ALIAS, target="NO.SUCH.Q")
    qmgr.define_queue("TO.BLANK", queue_type=ALIAS)  # TARGET(' '), MQ's default
    qmgr.define_queue("TO.LOCAL", queue_type=ALIAS, target="LOCAL.Q")
    qmgr.define_queue("TO.ALIAS", queue_type=ALIAS, target="TO.LOCAL")
    qmgr.define_queue("TO.MODEL", queue_type=ALIAS, target="MODEL.Q")
    cases = {
        "TO.NOTHING": C.MQRC_UNKNOWN_ALIAS_BASE_Q,
        "TO.BLANK": C.MQRC_UNKNOWN_ALIAS_BASE_Q,
        "TO.ALIAS": C.MQRC_ALIAS_BASE_Q_TYPE_ERROR,
        "TO.MODEL": C.MQRC_ALIAS_BASE_Q_TYPE_ERROR,
    }
    for name, reason in cases.items():
        fails(lambda n=name: pymqi.Queue(qmgr, n, OUT), reason)
        fails(lambda n=name: qmgr.put1(n, b"x"), reason)
    fails(lambda: pymqi.Queue(qmgr, "NO.ALIAS.AT.ALL", OUT), C.MQRC_UNKNOWN_OBJECT_NAME)
    # The model was not used: no dynamic queue was created through the alias.
    assert [n for n in qmgr.get_handle().catalog.names() if n.startswith("AMQ.")] == []


# -- attributes: the alias's defaults, either queue's inhibits, the target's limits ----


def test_defaults_come_from_the_alias(qmgr) -> None:
    qmgr.define_queue("T", def_priority=2, def_persistence=C.MQPER_NOT_PERSISTENT)
    qmgr.define_queue(
        "A", queue_type=ALIAS, target="T", def_priority=7, def_persistence=C.MQPER_PERSISTENT
    )
    put(pymqi.Queue(qmgr, "A", OUT), b"by alias")
    put(pymqi.Queue(qmgr, "T", OUT), b"by target")
    target = pymqi.Queue(qmgr, "T", IN)
    md = pymqi.MD()
    assert get(target, md) == b"by alias"  # priority 7 first
    assert (md.Priority, md.Persistence) == (7, C.MQPER_PERSISTENT)
    md = pymqi.MD()
    assert get(target, md) == b"by target"
    assert (md.Priority, md.Persistence) == (2, C.MQPER_NOT_PERSISTENT)


def test_propctl_is_the_alias_s(qmgr) -> None:
    qmgr.define_queue("T")  # PROPCTL(COMPAT): the property would come as an MQRFH2
    qmgr.define_queue("A", queue_type=ALIAS, target="T", property_control=C.MQPROP_NONE)
    handle = pymqi.MessageHandle(qmgr)
    handle.properties.set("color", "red")
    pmo = pymqi.PMO(Version=C.MQPMO_VERSION_3, Options=NOSYNC)
    pmo.OriginalMsgHandle = handle.msg_handle
    for _ in range(2):
        put(pymqi.Queue(qmgr, "T", OUT), b"body", pmo=pmo)
    md = pymqi.MD()
    assert get(pymqi.Queue(qmgr, "A", IN), md) == b"body" and md.Format == C.MQFMT_NONE
    md = pymqi.MD()
    assert get(pymqi.Queue(qmgr, "T", IN), md) != b"body" and md.Format == C.MQFMT_RF_HEADER_2


def test_an_inhibit_on_either_queue_applies_through_the_alias(aliased, other) -> None:
    via_alias = pymqi.Queue(aliased, "ALIAS.Q", IN | OUT)
    target = pymqi.Queue(aliased, "TARGET.Q", IN | OUT)
    other.alter_queue("ALIAS.Q", put_inhibited=True)  # seen at once by the open handle
    fails(lambda: put(via_alias, b"x"), C.MQRC_PUT_INHIBITED)
    fails(lambda: aliased.put1("ALIAS.Q", b"x"), C.MQRC_PUT_INHIBITED)
    put(target, b"direct")  # the target itself is not inhibited
    assert get(via_alias) == b"direct"
    other.alter_queue("ALIAS.Q", put_inhibited=False)
    other.alter_queue("TARGET.Q", get_inhibited=True)
    put(via_alias, b"y")
    fails(lambda: get(via_alias), C.MQRC_GET_INHIBITED)
    other.alter_queue("TARGET.Q", get_inhibited=False)
    other.alter_queue("ALIAS.Q", get_inhibited=True)
    fails(lambda: get(via_alias), C.MQRC_GET_INHIBITED)
    assert get(target) == b"y"


def test_limits_and_sharing_come_from_the_target(qmgr) -> None:
    qmgr.define_queue("T", max_msg_length=10, max_depth=1, shareable=False)
    qmgr.define_queue("A", queue_type=ALIAS, target="T")
    out = pymqi.Queue(qmgr, "A", OUT)
    fails(lambda: put(out, b"x" * 11), C.MQRC_MSG_TOO_BIG_FOR_Q)
    put(out, b"one")
    fails(lambda: put(out, b"two"), C.MQRC_Q_FULL)
    getter = pymqi.Queue(qmgr, "A", IN)  # NOSHARE: exclusive, also through the alias
    fails(lambda: pymqi.Queue(qmgr, "T", IN), C.MQRC_OBJECT_IN_USE)
    fails(lambda: pymqi.Queue(qmgr, "A", IN), C.MQRC_OBJECT_IN_USE)
    counts = pymqi.Queue(qmgr, "T", INQ)
    assert counts.inquire(C.MQIA_OPEN_INPUT_COUNT) == 1  # the alias's open counts here
    assert counts.inquire(C.MQIA_OPEN_OUTPUT_COUNT) == 1
    getter.close()
    assert counts.inquire(C.MQIA_OPEN_INPUT_COUNT) == 0


# -- MQINQ on an alias handle ----------------------------------------------------------


def test_mqinq_of_an_alias_answers_for_the_alias(qmgr) -> None:
    qmgr.define_queue("T", def_priority=1, put_inhibited=True)
    qmgr.define_queue("A", queue_type=ALIAS, target="T", def_priority=6, description="d")
    q = pymqi.Queue(qmgr, "A", INQ)
    assert q.inquire(C.MQIA_Q_TYPE) == C.MQQT_ALIAS
    assert q.inquire(C.MQCA_Q_NAME) == blank48("A")
    assert q.inquire(C.MQCA_BASE_Q_NAME) == blank48("T")
    assert q.inquire(C.MQIA_BASE_TYPE) == C.MQOT_Q
    assert q.inquire(C.MQIA_DEF_PRIORITY) == 6
    assert q.inquire(C.MQIA_INHIBIT_PUT) == C.MQQA_PUT_ALLOWED  # the alias's own
    assert q.inquire(C.MQCA_Q_DESC) == b"d".ljust(64)
    for local_only in (C.MQIA_CURRENT_Q_DEPTH, C.MQIA_MAX_Q_DEPTH, C.MQIA_OPEN_INPUT_COUNT):
        fails(lambda s=local_only: q.inquire(s), C.MQRC_SELECTOR_NOT_FOR_TYPE, C.MQCC_WARNING)
    fails(lambda: q.inquire(99999), C.MQRC_SELECTOR_ERROR)
    local = pymqi.Queue(qmgr, "T", INQ)
    assert local.inquire(C.MQIA_INHIBIT_PUT) == C.MQQA_PUT_INHIBITED
    fails(lambda: local.inquire(C.MQCA_BASE_Q_NAME), 2068, C.MQCC_WARNING)
    # Once the alias's attributes changed, MQINQ of the handle fails (IBM: "Some cases
    # where the MQINQ call fails"); puts and gets go on with the new attributes.
    both = pymqi.Queue(qmgr, "A", INQ | OUT)
    qmgr.alter_queue("T", put_inhibited=False)  # the target's attributes: no matter
    assert both.inquire(C.MQIA_DEF_PRIORITY) == 6
    qmgr.alter_queue("A", def_priority=2)
    fails(lambda: both.inquire(C.MQIA_DEF_PRIORITY), C.MQRC_OBJECT_CHANGED)
    put(both, b"still goes")
    assert pymqi.Queue(qmgr, "A", INQ).inquire(C.MQIA_DEF_PRIORITY) == 2


# -- DELETE and ALTER of an alias while open -------------------------------------------


def test_delete_of_an_open_alias_or_of_its_target_is_refused(aliased, other) -> None:
    q = pymqi.Queue(other, "ALIAS.Q", INQ)  # any open counts, inquire-only too
    fails(lambda: aliased.delete_queue("ALIAS.Q"), C.MQRC_OBJECT_IN_USE)
    fails(lambda: aliased.delete_queue("TARGET.Q"), C.MQRC_OBJECT_IN_USE)
    q.close()
    aliased.delete_queue("ALIAS.Q")
    fails(lambda: pymqi.Queue(aliased, "ALIAS.Q", OUT), C.MQRC_UNKNOWN_OBJECT_NAME)
    aliased.delete_queue("TARGET.Q")


def test_a_target_change_while_open_needs_force_and_then_fails_open_handles(aliased, other):
    aliased.define_queue("TARGET.2")
    q = pymqi.Queue(other, "ALIAS.Q", IN | OUT)
    put(q, b"before")
    fails(lambda: aliased.alter_queue("ALIAS.Q", target="TARGET.2"), 3210)
    aliased.alter_queue("ALIAS.Q", def_priority=4)  # other attributes need no FORCE
    md = pymqi.MD()
    put(q, b"new default", md)
    aliased.alter_queue("ALIAS.Q", force=True, target="TARGET.2")
    fails(lambda: put(q, b"x"), C.MQRC_OBJECT_CHANGED)  # close and reopen
    fails(lambda: get(q), C.MQRC_OBJECT_CHANGED)
    q.close()
    fresh = pymqi.Queue(other, "ALIAS.Q", IN | OUT)
    put(fresh, b"after")
    assert aliased.queue_status("TARGET.2")["current_depth"] == 1
    md = pymqi.MD()
    old = pymqi.Queue(aliased, "TARGET.Q", IN)
    assert get(old) == b"new default" and get(old, md) == b"before"
    fresh.close()
    aliased.alter_queue("ALIAS.Q", target="TARGET.Q")  # closed: no FORCE needed


def test_mqco_delete_through_an_alias_is_not_valid(qmgr) -> None:
    qmgr.define_queue("PERM.MODEL", queue_type=C.MQQT_MODEL, definition_type=2)
    od = pymqi.OD(ObjectName=b"PERM.MODEL", DynamicQName=b"PERM.*")
    dyn = pymqi.Queue(qmgr, od, OUT)
    qmgr.define_queue("TO.DYN", queue_type=ALIAS, target=pymqi.structs.mqstr(od.ObjectName))
    via = pymqi.Queue(qmgr, "TO.DYN", OUT)
    fails(lambda: via.close(C.MQCO_DELETE), C.MQRC_OPTION_NOT_VALID_FOR_TYPE)
    via.close()
    dyn.close()


# -- MQOD ObjectQMgrName ---------------------------------------------------------------


def test_object_qmgr_name_blank_or_local_resolves_here_others_fail(aliased) -> None:
    me = aliased.get_name()
    for qm in (b"", me.encode(), me.encode() + b"\0junk", (me + "  ").encode()):
        od = pymqi.OD(ObjectName=b"ALIAS.Q", ObjectQMgrName=qm)
        pymqi.Queue(aliased, od, OUT).close()
        assert od.ResolvedQMgrName == blank48(me)
        aliased.put1(pymqi.OD(ObjectName=b"TARGET.Q", ObjectQMgrName=qm), b"x")
    remote = pymqi.OD(ObjectName=b"TARGET.Q", ObjectQMgrName=b"QM.ELSEWHERE")
    fails(lambda: pymqi.Queue(aliased, remote, OUT), C.MQRC_UNKNOWN_REMOTE_Q_MGR)
    fails(lambda: pymqi.Queue(aliased, remote, IN), C.MQRC_UNKNOWN_REMOTE_Q_MGR)
    fails(lambda: aliased.put1(remote, b"x"), C.MQRC_UNKNOWN_REMOTE_Q_MGR)
    # A local queue's name would be a transmission queue, which TARGET.Q is not.
    via_queue = pymqi.OD(ObjectName=b"X", ObjectQMgrName=b"TARGET.Q")
    fails(lambda: pymqi.Queue(aliased, via_queue, OUT), C.MQRC_XMIT_Q_USAGE_ERROR)
    assert aliased.queue_status("TARGET.Q")["current_depth"] == 4


@given(name=st.text("ABCQM.1", max_size=6), local=st.sampled_from(["QM1", "QM.A"]))
def test_object_qmgr_rule(name: str, local: str) -> None:
    """ObjectQMgrName without any remote definition: this queue manager, else 2087 (no
    DEFXMITQ), else 2092 when it names a local queue that is no transmission queue."""

    def reason(defs: dict[str, QueueDef]) -> int | None:
        try:
            resolve_remote("Q", name, local, "", defs.get)
        except ResolutionError as err:
            return err.reason
        return None

    plain, as_queue = reason({}), reason({name: QueueDef(name=name or "X")})
    if name in ("", local):
        assert plain is None and as_queue is None
    else:
        assert (plain, as_queue) == (C.MQRC_UNKNOWN_REMOTE_Q_MGR, C.MQRC_XMIT_Q_USAGE_ERROR)


# -- ReplyToQMgr -----------------------------------------------------------------------


def test_a_blank_reply_to_qmgr_is_this_queue_manager(aliased) -> None:
    me = aliased.get_name()
    q = pymqi.Queue(aliased, "ALIAS.Q", IN | OUT)
    sent = pymqi.MD(ReplyToQ=b"REPLY.Q")
    put(q, b"request", sent)
    assert sent.ReplyToQMgr == b""  # an input field: the caller's MD is not updated
    aliased.put1("ALIAS.Q", b"no reply queue")
    put(q, b"own", pymqi.MD(ReplyToQ=b"R", ReplyToQMgr=b"QM.OTHER"))
    got = [pymqi.MD() for _ in range(3)]
    for md in got:
        get(q, md)
    assert [(md.ReplyToQ.strip(), md.ReplyToQMgr) for md in got] == [
        (b"REPLY.Q", blank48(me)),
        (b"", blank48(me)),  # also without a ReplyToQ, as MQ stores it
        (b"R", blank48("QM.OTHER")),
    ]


# -- the rules and the attribute merge, for any inputs ----------------------------------

_flags = st.booleans()


@given(
    a_prty=st.integers(0, 9),
    t_prty=st.integers(0, 9),
    a_psist=st.sampled_from([0, 1]),
    a_get=_flags,
    a_put=_flags,
    t_get=_flags,
    t_put=_flags,
    t_depth=st.integers(0, 10_000),
    t_share=_flags,
    a_presp=st.sampled_from([1, 2]),
    a_reada=_flags,
    a_propctl=st.sampled_from([C.MQPROP_NONE, C.MQPROP_COMPATIBILITY, C.MQPROP_ALL]),
)
def test_through_alias_takes_defaults_from_the_alias_and_limits_from_the_target(
    a_prty,
    t_prty,
    a_psist,
    a_get,
    a_put,
    t_get,
    t_put,
    t_depth,
    t_share,
    a_presp,
    a_reada,
    a_propctl,
) -> None:
    alias = QueueDef(
        name="A",
        queue_type=ALIAS,
        target="T",
        def_priority=a_prty,
        def_persistence=a_psist,
        get_inhibited=a_get,
        put_inhibited=a_put,
        def_put_response=a_presp,
        def_read_ahead=a_reada,
        property_control=a_propctl,
    )
    target = QueueDef(
        name="T",
        def_priority=t_prty,
        get_inhibited=t_get,
        put_inhibited=t_put,
        max_depth=t_depth,
        shareable=t_share,
        incarnation="i1",
    )
    got = through_alias(alias, target)
    assert (got.name, got.incarnation, got.max_depth, got.shareable) == (
        "T",
        "i1",
        t_depth,
        t_share,
    )
    assert (got.def_priority, got.def_persistence) == (a_prty, a_psist)
    assert (got.get_inhibited, got.put_inhibited) == (a_get or t_get, a_put or t_put)
    assert (got.def_put_response, got.def_read_ahead) == (a_presp, a_reada)
    assert got.property_control == a_propctl


@given(base=st.sampled_from([None, C.MQQT_LOCAL, C.MQQT_MODEL, C.MQQT_ALIAS]))
def test_alias_base_rule(base) -> None:
    expected = {
        None: C.MQRC_UNKNOWN_ALIAS_BASE_Q,
        C.MQQT_LOCAL: None,
        C.MQQT_MODEL: C.MQRC_ALIAS_BASE_Q_TYPE_ERROR,
        C.MQQT_ALIAS: C.MQRC_ALIAS_BASE_Q_TYPE_ERROR,
    }
    assert alias_base_error(base) == expected[base]


# -- mqk define --alias / mqk alter --target ---------------------------------------------


def test_mqk_defines_alters_and_shows_an_alias(qmgr, other, qmgr_name, capsys) -> None:
    qmgr.define_queue("T1")
    qmgr.define_queue("T2")
    argv = ["define", qmgr_name, "A.CLI", "--alias", "--targq", "T1", "--def-priority", "5"]
    assert cli.main(argv) == 0
    assert "AMQ8006I: IBM MQ queue created." in capsys.readouterr().out
    assert cli.main(["status", qmgr_name, "A.CLI"]) == 0
    shown = capsys.readouterr().out.split()  # DISPLAY QUEUE's items, as runmqsc lays them out
    assert {"QUEUE(A.CLI)", "TYPE(QALIAS)", "TARGET(T1)", "DEFPRTY(5)"} <= set(shown)
    assert "AMQ8450I:" not in shown  # no DISPLAY QSTATUS for an alias
    q = pymqi.Queue(other, "A.CLI", OUT)
    assert cli.main(["alter", qmgr_name, "A.CLI", "--target", "T2"]) == 1
    err = capsys.readouterr().err
    assert "AMQ8148E: IBM MQ object in use." in err  # 3210 MQRCCF_OBJECT_OPEN_FORCE
    assert cli.main(["alter", qmgr_name, "A.CLI", "--target", "T2", "--force"]) == 0
    fails(lambda: put(q, b"x"), C.MQRC_OBJECT_CHANGED)
    q.close()
    assert cli.main(["alter", qmgr_name, "A.CLI", "--put", "DISABLED"]) == 0
    fails(lambda: put(pymqi.Queue(other, "A.CLI", OUT), b"x"), C.MQRC_PUT_INHIBITED)
    capsys.readouterr()
    bad = [
        ["define", qmgr_name, "A.X", "--alias", "--target", "T1", "--targq", "T1"],
        ["define", qmgr_name, "A.X", "--target", "T1"],  # not an alias
        ["define", qmgr_name, "A.X", "--alias", "--target", "T1", "--max-depth", "3"],
        ["alter", qmgr_name, "T1", "--target", "T2"],
    ]
    for argv in bad:
        assert cli.main(argv) == 2, argv
    assert cli.main(["delete", qmgr_name, "A.CLI"]) == 0
