"""The report rules (adapter/core/reports.py) and the MQDLH codec (adapter/core/dlh.py),
with the pymqi face's DLH structure."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import adapter.pymqi as pymqi
from adapter.core import cmqc as C
from adapter.core import reports as rules
from adapter.core.dlh import DeadLetterHeader, DLHError, unpack
from adapter.core.reports import Kind

ORIGINAL = {
    "MsgId": b"original-msg-id".ljust(24, b"\0"),
    "CorrelId": b"original-correl".ljust(24, b"\0"),
    "GroupId": C.MQGI_NONE,
    "MsgSeqNumber": 1,
    "Offset": 0,
    "MsgFlags": C.MQMF_NONE,
    "OriginalLength": C.MQOL_UNDEFINED,
    "Persistence": C.MQPER_PERSISTENT,
    "Priority": 6,
    "Expiry": 600,
    "PutTimestamp": 1_000,
    "Format": "MQSTR   ",
    "CodedCharSetId": 1208,
    "Encoding": C.MQENC_NATIVE,
    "MsgType": C.MQMT_DATAGRAM,
    "Report": C.MQRO_NONE,
    "Feedback": C.MQFB_NONE,
    "ReplyToQ": "REPLY",
    "ReplyToQMgr": "QM1",
    "BackoutCount": 0,
    "UserIdentifier": "alice",
    "AccountingToken": b"\1" * 32,
    "ApplIdentityData": "ident",
    "PutApplType": C.MQAT_UNIX,
    "PutApplName": "app.py",
    "ApplOriginData": "orig",
    "Payload": b"",
}
NEW_ID = b"fresh-report-id".ljust(24, b"\0")
_FEEDBACK = {
    Kind.COA: C.MQFB_COA,
    Kind.COD: C.MQFB_COD,
    Kind.EXPIRATION: C.MQFB_EXPIRATION,
    Kind.EXCEPTION: C.MQRC_BACKOUT_THRESHOLD_REACHED,
}


@pytest.mark.parametrize("kind", list(Kind))
def test_each_kind_is_asked_for_by_any_of_its_forms(kind) -> None:
    plain, with_data, full = kind.value
    assert [rules.wants(r, kind) for r in (C.MQRO_NONE, plain, with_data, full)] == [
        False,
        True,
        True,
        True,
    ]
    assert [rules.data_limit(r, kind) for r in (plain, with_data, full)] == [0, 100, None]
    others = [k for k in Kind if k is not kind]
    assert not any(rules.wants(full, other) for other in others)


def test_coa_and_cod_are_not_made_for_transmission_or_dead_letter_formats() -> None:
    assert rules.wants_coa(C.MQRO_COA, "MQSTR   ")
    assert not rules.wants_coa(C.MQRO_COA, C.MQFMT_XMIT_Q_HEADER)
    assert not rules.wants_coa(C.MQRO_COA, "MQDEAD  ")
    assert not rules.wants_coa(C.MQRO_COD, "MQSTR   ")
    assert rules.wants_cod(C.MQRO_COD_WITH_DATA, b"MQSTR")
    assert rules.wants_cod(C.MQRO_COD, C.MQFMT_XMIT_Q_HEADER)  # only MQDEAD stops a COD
    assert not rules.wants_cod(C.MQRO_COD, C.MQFMT_DEAD_LETTER_HEADER)


def test_an_exception_report_needs_its_reason() -> None:
    with pytest.raises(ValueError):
        rules.report_fields(ORIGINAL, Kind.EXCEPTION, C.MQRO_EXCEPTION)
    fields = rules.report_fields(ORIGINAL, Kind.EXCEPTION, C.MQRO_EXCEPTION, feedback=2053)
    assert fields["Feedback"] == 2053


def test_pan_and_nan_are_never_generated_by_the_queue_manager() -> None:
    report = C.MQRO_PAN | C.MQRO_NAN
    assert report == rules.APPLICATION_REPORTS
    assert not any(rules.wants(report, kind) for kind in Kind)


_DATA_FORM = st.sampled_from([0, 1, 2])  # the report, WITH_DATA, WITH_FULL_DATA


@given(
    kind=st.sampled_from(list(Kind)),
    form=_DATA_FORM,
    pass_msg_id=st.booleans(),
    pass_correl_id=st.booleans(),
    pass_discard=st.booleans(),
    discard=st.booleans(),
    payload=st.binary(max_size=400),
    expiry_left=st.one_of(st.just(C.MQEI_UNLIMITED), st.integers(1, 10_000)),
)
def test_report_envelope_follows_the_report_options(
    kind, form, pass_msg_id, pass_correl_id, pass_discard, discard, payload, expiry_left
) -> None:
    report = kind.value[form]
    report |= C.MQRO_PASS_MSG_ID if pass_msg_id else C.MQRO_NEW_MSG_ID
    report |= C.MQRO_PASS_CORREL_ID if pass_correl_id else C.MQRO_COPY_MSG_ID_TO_CORREL_ID
    report |= (C.MQRO_PASS_DISCARD_AND_EXPIRY if pass_discard else 0) | (
        C.MQRO_DISCARD_MSG if discard else 0
    )
    original = dict(ORIGINAL, Report=report, Payload=payload)
    env = rules.report_envelope(
        original,
        kind,
        "QUEUE.MANAGER.WITH.A.RATHER.LONG.NAME",
        NEW_ID,
        5_000,
        feedback=_FEEDBACK[kind] if kind is Kind.EXCEPTION else None,
        expiry_left=expiry_left,
    )
    assert env["MsgType"] == C.MQMT_REPORT and env["Feedback"] == _FEEDBACK[kind]
    assert env["MsgId"] == (ORIGINAL["MsgId"] if pass_msg_id else NEW_ID)
    assert env["CorrelId"] == (ORIGINAL["CorrelId"] if pass_correl_id else ORIGINAL["MsgId"])
    assert env["Payload"] == [b"", payload[:100], payload][form]
    assert env["Format"] == ("        " if form == 0 else "MQSTR   ")
    assert env["OriginalLength"] == len(payload)
    assert env["Report"] == (C.MQRO_DISCARD_MSG if pass_discard and discard else C.MQRO_NONE)
    passes_expiry = pass_discard and kind is not Kind.EXPIRATION
    assert env["Expiry"] == (expiry_left if passes_expiry else C.MQEI_UNLIMITED)
    assert (env["Priority"], env["Persistence"]) == (6, C.MQPER_PERSISTENT)
    assert (env["ReplyToQ"], env["ReplyToQMgr"]) == ("", "")
    # The queue manager's origin context, the original's identity.
    assert env["PutApplType"] == C.MQAT_QMGR
    assert env["PutApplName"] == "QUEUE.MANAGER.WITH.A.RATHER."  # 28 characters
    assert (env["UserIdentifier"], env["ApplIdentityData"]) == ("alice", "ident")
    assert env["ApplOriginData"] == "" and env["PutTimestamp"] == 5_000


def test_a_report_on_a_segment_keeps_its_group_fields() -> None:
    original = dict(
        ORIGINAL,
        Report=C.MQRO_COD,
        GroupId=b"G" * 24,
        MsgSeqNumber=3,
        Offset=100,
        MsgFlags=C.MQMF_LAST_SEGMENT,
        Payload=b"z" * 50,
    )
    env = rules.report_envelope(original, Kind.COD, "QM1", NEW_ID, 0)
    assert (env["GroupId"], env["MsgSeqNumber"], env["Offset"]) == (b"G" * 24, 3, 100)
    assert env["MsgFlags"] == C.MQMF_LAST_SEGMENT | C.MQMF_SEGMENT
    assert env["Payload"] == b"" and env["OriginalLength"] == 50


# -- MQDLH ------------------------------------------------------------------------------

_MQCHAR = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/%", max_size=48)


@given(
    reason=st.integers(-(2**31), 2**31 - 1),
    dest_q=_MQCHAR,
    dest_qm=_MQCHAR,
    ccsid=st.integers(0, 65535),
    fmt=st.sampled_from([b"MQSTR   ", b"        ", b"MQHRF2  "]),
    name=st.text(alphabet="abcXYZ.-", max_size=40),
    encoding=st.sampled_from([C.MQENC_NATIVE, C.MQENC_NORMAL]),
    data=st.binary(max_size=64),
)
def test_dlh_round_trip(reason, dest_q, dest_qm, ccsid, fmt, name, encoding, data) -> None:
    header = DeadLetterHeader(
        reason, dest_q, dest_qm, C.MQENC_NATIVE, ccsid, fmt, C.MQAT_QMGR, name, b"20261123",
        b"18301234",
    )  # fmt: skip
    packed = header.pack(encoding)
    assert len(packed) == C.MQDLH_LENGTH_1 and packed[:4] == b"DLH "
    back, rest = unpack(packed + data, encoding)
    assert rest == data
    assert back == DeadLetterHeader(
        reason, dest_q, dest_qm, C.MQENC_NATIVE, ccsid, fmt, C.MQAT_QMGR, name[:28], b"20261123",
        b"18301234",
    )  # fmt: skip


def test_dlh_integers_follow_the_encoding() -> None:
    header = DeadLetterHeader(2085, "Q", "QM", 546, 1208, b"MQSTR   ", 7, "QM", b"", b"")
    assert header.pack(C.MQENC_NATIVE)[8:12] == (2085).to_bytes(4, "little")
    assert header.pack(C.MQENC_NORMAL)[8:12] == (2085).to_bytes(4, "big")


def test_dlh_unpack_refuses_what_is_not_one() -> None:
    good = DeadLetterHeader(1, "Q", "QM", 546, 0, b"", 7, "QM", b"", b"").pack()
    with pytest.raises(DLHError):
        unpack(good[:100])
    with pytest.raises(DLHError):
        unpack(b"RFH " + good[4:])
    with pytest.raises(DLHError):
        unpack(good[:4] + (2).to_bytes(4, "little") + good[8:])


def test_pymqi_dlh_reads_what_the_queue_manager_writes() -> None:
    header = DeadLetterHeader(2053, "REPLY.Q", "QM1", 546, 1208, b"MQSTR   ", 7, "QM1", b"20261123",
                              b"18300000")  # fmt: skip
    message = header.pack() + b"the original data"
    dlh = pymqi.DLH().get_header(message)
    assert (dlh.Version, dlh.Reason, dlh.CodedCharSetId) == (1, 2053, 1208)
    assert dlh.DestQName == b"REPLY.Q".ljust(48) and dlh.Format == b"MQSTR   "
    assert dlh.PutApplType == C.MQAT_QMGR and dlh.get_length() == C.MQDLH_LENGTH_1
    assert dlh.pack() == header.pack()  # the same bytes both ways
    dlh.to_string()
    assert (dlh.DestQName, dlh.DestQMgrName, dlh.Format) == ("REPLY.Q", "QM1", "MQSTR")
    assert (dlh.PutDate, dlh.Reason) == ("20261123", 2053)  # integers stay integers
    assert dlh.pack() == header.pack()  # packs again after to_string


def test_pymqi_dlh_defaults_are_mqi_defaults() -> None:
    dlh = pymqi.DLH()
    assert (dlh.Version, dlh.Reason, dlh.Encoding, dlh.CodedCharSetId) == (1, 0, 0, 0)
    assert dlh.Format == C.MQFMT_NONE and dlh.pack()[:4] == b"DLH "
    built = pymqi.DLH(Reason=2362, DestQName="Q.IN", Format=C.MQFMT_STRING)
    back, rest = unpack(built.pack() + b"x")
    assert (back.reason, back.dest_q_name, back.format, rest) == (2362, "Q.IN", b"MQSTR   ", b"x")
