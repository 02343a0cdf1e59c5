"""PCFExecute on the in-memory backends: each queue command's answer and MQ's reason
codes, in pymqi's and ibmmq's shape (a list of dicts keyed by selector, strings as
blank-padded bytes, failures as MQMIError(MQCC_FAILED, reason)), and agreement with
`mqk mqsc` DISPLAY and queue_status."""

from __future__ import annotations

import io

import pytest

import adapter.ibmmq as ibmmq
import adapter.pymqi as pymqi
from adapter.core import pcf as wire
from adapter.pymqi import pcfserver
from adapter.tools import mqsc

C, F = pymqi.CMQC, pymqi.CMQCFC
LOCAL, ALIAS, MODEL = C.MQQT_LOCAL, C.MQQT_ALIAS, C.MQQT_MODEL


@pytest.fixture
def pcf(qmgr):
    p = pymqi.PCFExecute(qmgr)
    yield p
    p.disconnect()


def reason_of(call, *args) -> int:
    with pytest.raises(pymqi.MQMIError) as info:
        call(*args)
    assert info.value.comp == C.MQCC_FAILED
    return info.value.reason


def create(pcf, name: str, qtype: int = LOCAL, more: dict | None = None) -> None:
    pcf.MQCMD_CREATE_Q({C.MQCA_Q_NAME: name, C.MQIA_Q_TYPE: qtype, **(more or {})})


def put(qmgr, name: str, count: int) -> None:
    q = pymqi.Queue(qmgr, name, C.MQOO_OUTPUT)
    for i in range(count):
        q.put(b"m%d" % i)
    q.close()


def test_inquire_q_with_a_generic_name_gives_the_matching_queues_and_their_values(
    pcf, qmgr
) -> None:
    create(pcf, "APP.A", LOCAL, {C.MQIA_MAX_Q_DEPTH: 77, C.MQCA_Q_DESC: "first"})
    create(pcf, "APP.B", LOCAL, {C.MQIA_DEF_PERSISTENCE: C.MQPER_PERSISTENT})
    create(pcf, "APP.AL", ALIAS, {C.MQCA_BASE_OBJECT_NAME: "APP.A"})
    create(pcf, "OTHER.Q")
    put(qmgr, "APP.A", 3)

    every = pcf.MQCMD_INQUIRE_Q({C.MQCA_Q_NAME: b"APP.*"})
    names = [q[C.MQCA_Q_NAME] for q in every]
    assert names == [b"APP.A".ljust(48), b"APP.AL".ljust(48), b"APP.B".ljust(48)]
    a = every[0]
    assert a[C.MQIA_Q_TYPE] == LOCAL and a[C.MQIA_MAX_Q_DEPTH] == 77
    assert a[C.MQCA_Q_DESC] == b"first".ljust(64)  # MQ pads MQCHAR attributes
    assert (a[C.MQIA_CURRENT_Q_DEPTH], a[C.MQIA_OPEN_INPUT_COUNT], a[C.MQIA_OPEN_OUTPUT_COUNT]) == (
        3,
        0,
        0,
    )
    assert every[1][C.MQCA_BASE_OBJECT_NAME].strip() == b"APP.A"
    assert C.MQIA_CURRENT_Q_DEPTH not in every[1]  # an alias has no depth
    assert every[2][C.MQIA_DEF_PERSISTENCE] == C.MQPER_PERSISTENT

    locals_only = pcf.MQCMD_INQUIRE_Q(
        {C.MQCA_Q_NAME: "APP.*", C.MQIA_Q_TYPE: LOCAL, F.MQIACF_Q_ATTRS: [C.MQIA_CURRENT_Q_DEPTH]}
    )
    assert locals_only == [
        {C.MQCA_Q_NAME: b"APP.A".ljust(48), C.MQIA_Q_TYPE: LOCAL, C.MQIA_CURRENT_Q_DEPTH: 3},
        {C.MQCA_Q_NAME: b"APP.B".ljust(48), C.MQIA_Q_TYPE: LOCAL, C.MQIA_CURRENT_Q_DEPTH: 0},
    ]


def test_inquire_q_filters_and_unknown_names(pcf, qmgr) -> None:
    create(pcf, "F.ONE")
    create(pcf, "F.TWO")
    put(qmgr, "F.TWO", 2)
    deep = pymqi.Filter(C.MQIA_CURRENT_Q_DEPTH).greater(0)
    found = pcf.MQCMD_INQUIRE_Q({C.MQCA_Q_NAME: "F.*", C.MQIA_Q_TYPE: LOCAL}, [deep])
    assert [q[C.MQCA_Q_NAME].strip() for q in found] == [b"F.TWO"]
    like = pymqi.Filter(C.MQCA_Q_NAME).like(b"F.O*")
    assert len(pcf.MQCMD_INQUIRE_Q({C.MQCA_Q_NAME: "F.*"}, [like])) == 1
    odd = pymqi.Filter(C.MQCA_BASE_OBJECT_NAME).like(b"X*")  # no local queue has one
    assert reason_of(pcf.MQCMD_INQUIRE_Q, {C.MQCA_Q_NAME: "F.*"}, [odd]) == 3247
    assert reason_of(pcf.MQCMD_INQUIRE_Q, {C.MQCA_Q_NAME: "NO.SUCH"}) == 2085
    assert reason_of(pcf.MQCMD_INQUIRE_Q, {C.MQCA_Q_NAME: "NOTHING.*"}) == 2085
    assert reason_of(pcf.MQCMD_INQUIRE_Q, {}) == F.MQRCCF_PARM_COUNT_TOO_SMALL
    asked = {C.MQCA_Q_NAME: "F.*", F.MQIACF_Q_ATTRS: [43]}  # QDPHIEV: not mqk's
    assert reason_of(pcf.MQCMD_INQUIRE_Q, asked) == F.MQRCCF_CFIL_PARM_ID_ERROR


def test_inquire_q_names(pcf) -> None:
    create(pcf, "N.B")
    create(pcf, "N.A", MODEL)
    [answer] = pcf.MQCMD_INQUIRE_Q_NAMES({C.MQCA_Q_NAME: "N.*"})
    assert answer[F.MQCACF_Q_NAMES] == [b"N.A".ljust(48), b"N.B".ljust(48)]
    assert answer[F.MQIACF_Q_TYPES] == [MODEL, LOCAL]
    [none] = pcf.MQCMD_INQUIRE_Q_NAMES({C.MQCA_Q_NAME: "ZZ.*"})
    assert none[F.MQCACF_Q_NAMES] == [] and none[F.MQIACF_Q_TYPES] == []


def test_create_change_delete_round_trip_agrees_with_mqsc_and_queue_status(
    pcf, qmgr, qmgr_name
) -> None:
    create(pcf, "RT.Q", LOCAL, {C.MQIA_MAX_Q_DEPTH: 500, C.MQIA_INHIBIT_PUT: C.MQQA_PUT_INHIBITED})
    attrs = qmgr.queue_status("RT.Q")["attributes"]
    assert attrs["max_depth"] == 500 and attrs["put_inhibited"] is True
    change = {C.MQCA_Q_NAME: "RT.Q", C.MQIA_Q_TYPE: LOCAL, C.MQCA_Q_DESC: "changed"}
    assert pcf.MQCMD_CHANGE_Q({**change, C.MQIA_INHIBIT_PUT: C.MQQA_PUT_ALLOWED}) == []
    out: list[str] = []
    assert mqsc.run(qmgr, qmgr_name, io.StringIO("DISPLAY QLOCAL(RT.Q) ALL\n"), out.append) == 0
    shown = " ".join(out)
    assert "DESCR(changed)" in shown and "MAXDEPTH(500)" in shown and "PUT(ENABLED)" in shown

    assert reason_of(create, pcf, "RT.Q") == F.MQRCCF_OBJECT_ALREADY_EXISTS
    create(pcf, "RT.Q", LOCAL, {F.MQIACF_REPLACE: 1, C.MQIA_MAX_Q_DEPTH: 9})
    assert qmgr.queue_status("RT.Q")["attributes"]["max_depth"] == 9

    put(qmgr, "RT.Q", 1)
    gone = {C.MQCA_Q_NAME: "RT.Q"}
    assert reason_of(pcf.MQCMD_DELETE_Q, gone) == C.MQRC_Q_NOT_EMPTY
    pcf.MQCMD_DELETE_Q({**gone, F.MQIACF_PURGE: 1})
    assert reason_of(qmgr.queue_status, "RT.Q") == C.MQRC_UNKNOWN_OBJECT_NAME
    assert reason_of(pcf.MQCMD_DELETE_Q, gone) == C.MQRC_UNKNOWN_OBJECT_NAME


def test_create_and_change_refuse_what_mq_refuses(pcf, qmgr) -> None:
    assert reason_of(create, pcf, "BAD.Q", LOCAL, {C.MQIA_MAX_Q_DEPTH: -1}) == 4005
    # MQIA_RETENTION_INTERVAL (21): an MQ attribute mqk does not implement
    assert reason_of(create, pcf, "BAD.Q", LOCAL, {21: 5}) == F.MQRCCF_CFIN_PARM_ID_ERROR
    # TARGET is an alias's attribute: not a local queue's
    wrong = {C.MQCA_BASE_OBJECT_NAME: "X"}
    assert reason_of(create, pcf, "BAD.Q", LOCAL, wrong) == F.MQRCCF_CFST_PARM_ID_ERROR
    assert reason_of(create, pcf, "BAD.Q", 99) == F.MQRCCF_Q_TYPE_ERROR
    assert reason_of(pcf.MQCMD_CREATE_Q, {C.MQCA_Q_NAME: "BAD.Q"}) == 3019
    assert reason_of(qmgr.queue_status, "BAD.Q") == C.MQRC_UNKNOWN_OBJECT_NAME

    create(pcf, "AL.T")
    create(pcf, "AL.A", ALIAS, {C.MQCA_BASE_OBJECT_NAME: "AL.T"})
    as_local = {C.MQCA_Q_NAME: "AL.A", C.MQIA_Q_TYPE: LOCAL, C.MQIA_MAX_Q_DEPTH: 3}
    assert reason_of(pcf.MQCMD_CHANGE_Q, as_local) == F.MQRCCF_OBJECT_WRONG_TYPE
    missing = {C.MQCA_Q_NAME: "NO.Q", C.MQIA_Q_TYPE: LOCAL, C.MQIA_MAX_Q_DEPTH: 3}
    assert reason_of(pcf.MQCMD_CHANGE_Q, missing) == C.MQRC_UNKNOWN_OBJECT_NAME


def test_copy_q_copies_the_attributes_and_applies_the_changes(pcf, qmgr) -> None:
    create(pcf, "CP.FROM", LOCAL, {C.MQIA_MAX_Q_DEPTH: 42, C.MQIA_BACKOUT_THRESHOLD: 4})
    copy = {F.MQCACF_FROM_Q_NAME: "CP.FROM", F.MQCACF_TO_Q_NAME: "CP.TO", C.MQIA_Q_TYPE: LOCAL}
    pcf.MQCMD_COPY_Q({**copy, C.MQCA_Q_DESC: "copied"})
    attrs = qmgr.queue_status("CP.TO")["attributes"]
    assert (attrs["max_depth"], attrs["backout_threshold"], attrs["description"]) == (
        42,
        4,
        "copied",
    )
    assert reason_of(pcf.MQCMD_COPY_Q, copy) == F.MQRCCF_OBJECT_ALREADY_EXISTS
    pcf.MQCMD_COPY_Q({**copy, F.MQIACF_REPLACE: 1})
    assert qmgr.queue_status("CP.TO")["attributes"]["description"] == ""
    nowhere = {**copy, F.MQCACF_FROM_Q_NAME: "CP.NONE"}
    assert reason_of(pcf.MQCMD_COPY_Q, nowhere) == C.MQRC_UNKNOWN_OBJECT_NAME


def test_clear_q_and_inquire_q_status(pcf, qmgr) -> None:
    create(pcf, "CL.Q")
    put(qmgr, "CL.Q", 4)
    reader = pymqi.Queue(qmgr, "CL.Q", C.MQOO_INPUT_SHARED)
    [status] = pcf.MQCMD_INQUIRE_Q_STATUS({C.MQCA_Q_NAME: "CL.*"})
    assert status[C.MQCA_Q_NAME] == b"CL.Q".ljust(48)
    assert status[F.MQIACF_Q_STATUS_TYPE] == F.MQIACF_Q_STATUS
    assert (status[C.MQIA_CURRENT_Q_DEPTH], status[C.MQIA_OPEN_INPUT_COUNT]) == (4, 1)
    # monitoring off (MONQ(QMGR), the queue manager's OFF): no age, blank times
    assert status[F.MQIACF_OLDEST_MSG_AGE] == C.MQMON_NOT_AVAILABLE
    assert status[F.MQCACF_LAST_PUT_DATE] == b" " * 12 and status[C.MQIA_MONITORING_Q] == 0
    assert reason_of(pcf.MQCMD_CLEAR_Q, {C.MQCA_Q_NAME: "CL.Q"}) == C.MQRC_OBJECT_IN_USE
    reader.close()
    assert pcf.MQCMD_CLEAR_Q({C.MQCA_Q_NAME: "CL.Q"}) == []
    assert qmgr.queue_status("CL.Q")["current_depth"] == 0
    assert reason_of(pcf.MQCMD_CLEAR_Q, {C.MQCA_Q_NAME: "CL.NONE"}) == 2085
    handles = {C.MQCA_Q_NAME: "CL.Q", F.MQIACF_Q_STATUS_TYPE: F.MQIACF_Q_HANDLE}
    assert reason_of(pcf.MQCMD_INQUIRE_Q_STATUS, handles) == F.MQRCCF_PARM_VALUE_ERROR


def test_inquire_q_mgr_and_commands_mqk_lacks(pcf, qmgr, qmgr_name) -> None:
    [qm] = pcf.MQCMD_INQUIRE_Q_MGR()
    assert qm[C.MQCA_Q_MGR_NAME].strip() == qmgr_name.encode()
    assert qm[C.MQIA_MAX_PRIORITY] == 9 and qm[C.MQIA_COMMAND_LEVEL] == qmgr.inquire(
        C.MQIA_COMMAND_LEVEL
    )
    [one] = pcf.MQCMD_INQUIRE_Q_MGR({F.MQIACF_Q_MGR_ATTRS: [C.MQIA_MAX_HANDLES]})
    assert list(one) == [C.MQIA_MAX_HANDLES]
    assert reason_of(pcf.MQCMD_REFRESH_Q_MGR, {}) == F.MQRCCF_CFH_COMMAND_ERROR
    with pytest.raises(AttributeError):
        pcf.NOT_A_COMMAND  # noqa: B018


def test_the_wire_form_a_command_server_would_see(qmgr) -> None:
    """serve() takes the PCF bytes MQ would put on SYSTEM.ADMIN.COMMAND.QUEUE and answers
    with MQCFT_RESPONSE messages; a failure carries MQIACF_PARAMETER_ID."""
    enc = C.MQENC_NATIVE
    header = wire.Header(F.MQCFT_COMMAND, F.MQCFH_VERSION_3, F.MQCMD_CREATE_Q)
    params = [
        wire.Param(F.MQCFT_STRING, C.MQCA_Q_NAME, b"W.Q"),
        wire.Param(F.MQCFT_INTEGER, C.MQIA_Q_TYPE, LOCAL),
        wire.Param(F.MQCFT_INTEGER, C.MQIA_MAX_Q_DEPTH, -5),
    ]
    [raw] = pcfserver.serve(qmgr, wire.encode(header, params, enc), enc)
    answer = wire.parse(raw, enc)
    assert not isinstance(answer, int)
    assert answer.header.type == F.MQCFT_RESPONSE and answer.header.control == F.MQCFC_LAST
    assert (answer.header.comp_code, answer.header.reason) == (C.MQCC_FAILED, 4005)
    assert answer.params == (
        wire.Param(F.MQCFT_INTEGER, F.MQIACF_PARAMETER_ID, C.MQIA_MAX_Q_DEPTH),
    )
    [bad] = pcfserver.serve(qmgr, b"\0" * 8, enc)  # not a PCF message at all
    assert wire.parse(bad, enc).header.reason == C.MQRC_CFH_ERROR  # type: ignore[union-attr]


def test_the_ibmmq_face_and_the_constructor_arguments(qmgr_name) -> None:
    qm = ibmmq.connect(qmgr_name)
    try:
        pcf = ibmmq.PCFExecute(
            qm, response_wait_interval=2000, convert=False, model_queue_name=b"MY.MODEL"
        )
        assert pcf.response_wait_interval == 2000 and pcf.convert is False
        pcf.MQCMD_CREATE_Q({ibmmq.CMQC.MQCA_Q_NAME: b"IB.Q", ibmmq.CMQC.MQIA_Q_TYPE: LOCAL})
        [q] = pcf.MQCMD_INQUIRE_Q({ibmmq.CMQC.MQCA_Q_NAME: b"IB.*"})
        assert pcf.stringify_keys(q)["MQCA_Q_NAME"] == b"IB.Q".ljust(48)
        with pytest.raises(ibmmq.MQMIError) as info:
            pcf.MQCMD_DELETE_Q({ibmmq.CMQC.MQCA_Q_NAME: b"IB.NONE"})
        assert info.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME
        with pytest.raises(ibmmq.PYIFError):
            pcf.MQCMD_INQUIRE_Q({C.MQCA_Q_NAME: 1.5})
        pcf.disconnect()
        assert qm.is_connected  # the caller's connection stays
    finally:
        qm.disconnect()
    own = pymqi.PCFExecute(qmgr_name)  # a name: PCFExecute connects, and disconnects
    assert own.MQCMD_INQUIRE_Q_NAMES({C.MQCA_Q_NAME: "IB.*"})[0][F.MQIACF_Q_TYPES] == [LOCAL]
    own.disconnect()
    assert not own.qm.is_connected


def test_ibms_examples_shapes_structures_and_responses_list(qmgr_name) -> None:
    """def_queue.py's list of CFST / CFIN with MQRP_YES, dis_queues.py's CFIL of
    MQIACF_Q_STATUS_ATTRS, dis_queues_extended.py's `responses=` (pairs with the CFH,
    the error raised after the list is filled)."""
    qm = ibmmq.connect(qmgr_name)
    try:
        pcf = ibmmq.PCFExecute(qm)
        args = [
            ibmmq.CFST(Parameter=C.MQCA_Q_NAME, String="MYQUEUE.1"),
            ibmmq.CFIN(Parameter=C.MQIA_Q_TYPE, Value=LOCAL),
            ibmmq.CFIN(Parameter=C.MQIA_MAX_Q_DEPTH, Value=12300),
            ibmmq.CFIN(Parameter=F.MQIACF_REPLACE, Value=F.MQRP_YES),
        ]
        pcf.MQCMD_CREATE_Q(args)
        pcf.MQCMD_CREATE_Q(args)  # REPLACE: no 4001
        status = [
            ibmmq.CFST(Parameter=C.MQCA_Q_NAME, String="MYQUEUE.*"),
            ibmmq.CFIL(Parameter=F.MQIACF_Q_STATUS_ATTRS, Values=[F.MQIACF_ALL]),
        ]
        [st] = pcf.MQCMD_INQUIRE_Q_STATUS(status)
        assert st[C.MQIA_CURRENT_Q_DEPTH] == 0
        depth = ibmmq.CFIF(Parameter=C.MQIA_MAX_Q_DEPTH, Operator=F.MQCFOP_EQUAL, FilterValue=12300)
        assert len(pcf.MQCMD_INQUIRE_Q({C.MQCA_Q_NAME: "MYQUEUE.*"}, [depth])) == 1
        order = "big" if C.MQENC_NATIVE & C.MQENC_INTEGER_NORMAL else "little"
        assert args[0].pack()[:4] == F.MQCFT_STRING.to_bytes(4, order)  # an MQCFST

        collected: list = ["stale"]
        pcf.MQCMD_INQUIRE_Q({C.MQCA_Q_NAME: "MYQUEUE.*"}, responses=collected)
        [(values, cfh)] = collected
        assert values[C.MQIA_MAX_Q_DEPTH] == 12300
        assert (cfh.CompCode, cfh.Reason, cfh.Control) == (0, 0, F.MQCFC_LAST)
        with pytest.raises(ibmmq.MQMIError) as info:
            pcf.MQCMD_INQUIRE_Q({C.MQCA_Q_NAME: "NONE.*"}, responses=collected)
        assert info.value.reason == 2085
        assert collected == []  # MQ's failure response carries no parameters here

        bad = [args[0], args[1], ibmmq.CFIN(Parameter=F.MQIACF_REPLACE, Value=7)]
        with pytest.raises(ibmmq.MQMIError) as info:
            pcf.MQCMD_CREATE_Q(bad)
        assert info.value.reason == F.MQRCCF_REPLACE_VALUE_ERROR
        purge = {C.MQCA_Q_NAME: "MYQUEUE.1", F.MQIACF_PURGE: 2}
        with pytest.raises(ibmmq.MQMIError) as info:
            pcf.MQCMD_DELETE_Q(purge)
        assert info.value.reason == F.MQRCCF_PURGE_VALUE_ERROR
        with pytest.raises(ibmmq.PYIFError):
            pcf.MQCMD_CREATE_Q([("not", "a structure")])
    finally:
        qm.disconnect()


def test_a_parameter_in_the_wrong_structure_is_refused_not_a_traceback(qmgr, pcf) -> None:
    enc = C.MQENC_NATIVE
    header = wire.Header(F.MQCFT_COMMAND, F.MQCFH_VERSION_3, F.MQCMD_INQUIRE_Q)
    for params, reason in (
        ([wire.Param(F.MQCFT_INTEGER, C.MQCA_Q_NAME, 5)], F.MQRCCF_CFIN_PARM_ID_ERROR),
        (
            [
                wire.Param(F.MQCFT_STRING, C.MQCA_Q_NAME, b"X*"),
                wire.Param(F.MQCFT_INTEGER, F.MQIACF_Q_ATTRS, C.MQIA_MAX_Q_DEPTH),
            ],
            F.MQRCCF_CFIN_PARM_ID_ERROR,
        ),
        (
            [
                wire.Param(F.MQCFT_STRING, C.MQCA_Q_NAME, b"X*"),
                wire.Param(F.MQCFT_STRING, C.MQIA_Q_TYPE, b"1"),
            ],
            F.MQRCCF_CFST_PARM_ID_ERROR,
        ),
    ):
        [raw] = pcfserver.serve(qmgr, wire.encode(header, params, enc), enc)
        answer = wire.parse(raw, enc)
        assert answer.header.reason == reason  # type: ignore[union-attr]
    with pytest.raises(pymqi.PYIFError):
        pcf.MQCMD_CREATE_Q([pymqi.CFIN(Parameter=C.MQIA_Q_TYPE, Value="local")])
