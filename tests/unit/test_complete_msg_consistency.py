"""MQGMO_COMPLETE_MSG over segments whose CodedCharSetId or Encoding differ: the leading
run that shares the first segment's values is returned with MQCC_WARNING and 2243
MQRC_INCONSISTENT_CCSIDS / 2244 MQRC_INCONSISTENT_ENCODINGS, the rest stays on the
queue to be got segment by segment (core/reassembly.py consistent_segments,
shim/get.py Getter._consistent)."""

from __future__ import annotations

import pytest

import adapter.pymqi as pymqi
from adapter.core.reassembly import consistent_segments
from tests.integration.conftest import mqerror

C = pymqi.CMQC
ALL = C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT | C.MQOO_BROWSE
SEG, LSEG = C.MQMF_SEGMENT, C.MQMF_LAST_SEGMENT
GROUP = b"LOGICAL".ljust(24, b"\0")
NATIVE = C.MQENC_NATIVE


@pytest.mark.parametrize(
    ("codings", "expected"),
    [
        ([(1208, NATIVE)], (1, None)),
        ([(1208, NATIVE)] * 3, (3, None)),
        ([(1208, NATIVE), (1208, NATIVE), (819, NATIVE)], (2, C.MQRC_INCONSISTENT_CCSIDS)),
        ([(1208, NATIVE), (1208, 273), (819, NATIVE)], (1, C.MQRC_INCONSISTENT_ENCODINGS)),
        ([(1208, NATIVE), (819, 273)], (1, C.MQRC_INCONSISTENT_CCSIDS)),  # both: CCSIDS
        ([(1208, NATIVE), (1208, NATIVE), (1208, NATIVE), (1208, 273)], (3, 2244)),
    ],
)
def test_the_leading_run_that_shares_the_first_segments_values(codings, expected) -> None:
    assert consistent_segments(codings) == expected


def put_segments(q, parts: list[tuple[bytes, int, int]]) -> None:
    """One logical message: segments (data, CodedCharSetId, Encoding) in order."""
    offset = 0
    for i, (data, ccsid, encoding) in enumerate(parts):
        flags = LSEG if i == len(parts) - 1 else SEG
        md = pymqi.MD(
            GroupId=GROUP,
            MsgSeqNumber=1,
            Offset=offset,
            MsgFlags=flags,
            Format=C.MQFMT_STRING,
            CodedCharSetId=ccsid,
            Encoding=encoding,
        )
        q.put(data, md)
        offset += len(data)


def get(q, options: int, md: pymqi.MD | None = None):
    md = md or pymqi.MD()
    gmo = pymqi.GMO(Options=C.MQGMO_NO_WAIT | options, MatchOptions=C.MQMO_NONE)
    return q.get(None, md, gmo), md, gmo


def test_complete_msg_returns_the_segments_up_to_the_first_other_ccsid_and_warns_2243(
    qmgr,
) -> None:
    qmgr.define_queue("Q.SEGCCSID")
    q = pymqi.Queue(qmgr, "Q.SEGCCSID", ALL)
    put_segments(q, [(b"abc", 1208, NATIVE), (b"def", 1208, NATIVE), (b"ghi", 819, NATIVE)])
    md, gmo = pymqi.MD(), pymqi.GMO(Options=C.MQGMO_NO_WAIT | C.MQGMO_COMPLETE_MSG)
    with pytest.raises(pymqi.MQMIError) as exc:
        q.get(None, md, gmo)
    assert mqerror(exc) == (C.MQCC_WARNING, C.MQRC_INCONSISTENT_CCSIDS)
    assert exc.value.message == b"abcdef"
    # the MQMD describes what came back: a segment at Offset 0, not the last one
    assert (md.CodedCharSetId, md.Offset, md.MsgFlags & (SEG | LSEG)) == (1208, 0, SEG)
    assert (gmo.SegmentStatus, gmo.ReturnedLength) == (C.MQSS_SEGMENT, 6)
    # the rest stays on the queue, to be got segment by segment (in logical order here)
    data, md, gmo = get(q, C.MQGMO_LOGICAL_ORDER)
    assert (data, md.Offset, md.CodedCharSetId) == (b"ghi", 6, 819)
    assert gmo.SegmentStatus == C.MQSS_LAST_SEGMENT
    with pytest.raises(pymqi.MQMIError) as exc:
        get(q, 0)
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE)


def test_complete_msg_warns_2244_for_segments_of_another_encoding(qmgr) -> None:
    qmgr.define_queue("Q.SEGENC")
    q = pymqi.Queue(qmgr, "Q.SEGENC", ALL)
    put_segments(q, [(b"12", 1208, NATIVE), (b"34", 1208, 273), (b"56", 1208, 273)])
    with pytest.raises(pymqi.MQMIError) as exc:
        get(q, C.MQGMO_COMPLETE_MSG)
    assert mqerror(exc) == (C.MQCC_WARNING, C.MQRC_INCONSISTENT_ENCODINGS)
    assert exc.value.message == b"12"
    # the two that remain share their values: COMPLETE_MSG cannot start mid-message, so
    # they are got one by one
    assert get(q, 0)[0] == b"34" and get(q, 0)[0] == b"56"


def test_consistent_segments_join_without_a_warning(qmgr) -> None:
    qmgr.define_queue("Q.SEGSAME")
    q = pymqi.Queue(qmgr, "Q.SEGSAME", ALL)
    put_segments(q, [(b"ab", 819, 273), (b"cd", 819, 273)])
    data, md, gmo = get(q, C.MQGMO_COMPLETE_MSG)
    assert data == b"abcd" and md.CodedCharSetId == 819 and md.Encoding == 273
    assert gmo.SegmentStatus == C.MQSS_LAST_SEGMENT


def test_a_browse_with_complete_msg_warns_and_leaves_every_segment(qmgr) -> None:
    qmgr.define_queue("Q.SEGBROWSE")
    q = pymqi.Queue(qmgr, "Q.SEGBROWSE", ALL)
    put_segments(q, [(b"ab", 1208, NATIVE), (b"cd", 37, NATIVE)])
    with pytest.raises(pymqi.MQMIError) as exc:
        get(q, C.MQGMO_BROWSE_FIRST | C.MQGMO_COMPLETE_MSG)
    assert mqerror(exc) == (C.MQCC_WARNING, C.MQRC_INCONSISTENT_CCSIDS)
    assert exc.value.message == b"ab"
    assert get(q, 0)[0] == b"ab" and get(q, 0)[0] == b"cd"


def test_the_consistent_run_is_what_conversion_converts(qmgr) -> None:
    qmgr.define_queue("Q.SEGCONV")
    q = pymqi.Queue(qmgr, "Q.SEGCONV", ALL)
    put_segments(q, [("é".encode(), 1208, NATIVE), (b"\xe9", 819, NATIVE)])
    md = pymqi.MD(CodedCharSetId=819)
    with pytest.raises(pymqi.MQMIError) as exc:
        get(q, C.MQGMO_COMPLETE_MSG | C.MQGMO_CONVERT, md)
    assert mqerror(exc) == (C.MQCC_WARNING, C.MQRC_INCONSISTENT_CCSIDS)
    assert exc.value.message == b"\xe9" and md.CodedCharSetId == 819
