"""Queue-manager segmentation on MQPUT."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapter.core import cmqc as C  # noqa: N812
from adapter.core.segmentation import (
    MIN_SEGMENT,
    segment_flags,
    segment_message,
    split_segments,
)

MIG = C.MQMF_MSG_IN_GROUP
LMIG = C.MQMF_LAST_MSG_IN_GROUP
SEG = C.MQMF_SEGMENT
LSEG = C.MQMF_LAST_SEGMENT
SEG_OK = C.MQMF_SEGMENTATION_ALLOWED


def test_split_examples():
    assert split_segments(40, 16) == [(0, 16, False), (16, 16, False), (32, 8, True)]
    assert split_segments(32, 16) == [(0, 16, False), (16, 16, True)]
    assert split_segments(10, 16) == [(0, 10, True)]
    assert split_segments(0, 16) == [(0, 0, True)]
    assert split_segments(20, 16, base_offset=100) == [(100, 16, False), (116, 4, True)]


@pytest.mark.parametrize("args", [(10, 15), (-1, 16), (10, 16, -1)])
def test_split_rejects_bad_arguments(args):
    with pytest.raises(ValueError):
        split_segments(*args)


@pytest.mark.parametrize(
    "original,last_piece,expected",
    [
        (SEG_OK, False, SEG_OK | SEG),
        (SEG_OK, True, SEG_OK | SEG | LSEG),
        (SEG_OK | MIG, True, SEG_OK | MIG | SEG | LSEG),
        (SEG_OK | LMIG, False, SEG_OK | MIG | LMIG | SEG),  # every piece keeps group flags
        (SEG_OK | LMIG, True, SEG_OK | MIG | LMIG | SEG | LSEG),
        (SEG_OK | SEG, True, SEG_OK | SEG),  # a middle segment: its end is not the end
        (SEG_OK | LSEG, False, SEG_OK | SEG),
        (SEG_OK | LSEG, True, SEG_OK | SEG | LSEG),
    ],
)
def test_segment_flags(original, last_piece, expected):
    assert segment_flags(original, last_piece) == expected


def test_segment_message():
    assert segment_message(MIG, 0, 100, 32) is None  # too big, segmentation inhibited
    assert segment_message(SEG_OK, 0, 100, 8) is None  # cannot cut under 16 bytes
    whole = segment_message(LMIG, 0, 10, 32)
    assert [(p.offset, p.length, p.flags, p.start) for p in whole] == [(0, 10, MIG | LMIG, 0)]
    pieces = segment_message(SEG_OK | MIG | LSEG, 64, 40, 16)
    assert [(p.offset, p.length, p.start) for p in pieces] == [
        (64, 16, 0),
        (80, 16, 16),
        (96, 8, 32),
    ]
    assert [p.flags & LSEG for p in pieces] == [0, 0, LSEG]
    assert all(p.flags & MIG and p.flags & SEG for p in pieces)


@settings(max_examples=300, deadline=None)
@given(
    st.binary(max_size=300),
    st.integers(MIN_SEGMENT, 80),
    st.integers(0, 1000),
    st.sampled_from([0, MIG, LMIG, SEG, LSEG, MIG | SEG, LMIG | LSEG]),
)
def test_property_split_round_trips(payload, max_segment, base, group_seg_flags):
    pieces = split_segments(len(payload), max_segment, base)
    assert b"".join(payload[o - base : o - base + n] for o, n, _ in pieces) == payload
    offsets = [o for o, _, _ in pieces]
    assert offsets == [base + sum(n for _, n, _ in pieces[:i]) for i in range(len(pieces))]
    assert [last for *_, last in pieces] == [False] * (len(pieces) - 1) + [True]
    assert all(n == max_segment >= MIN_SEGMENT for _, n, last in pieces if not last)
    assert pieces[-1][1] <= max_segment and (pieces[-1][1] > 0 or not payload)

    plans = segment_message(SEG_OK | group_seg_flags, base, len(payload), max_segment)
    assert b"".join(payload[p.start : p.start + p.length] for p in plans) == payload
    if len(payload) > max_segment:
        ends = not group_seg_flags & SEG or bool(group_seg_flags & LSEG)
        assert [bool(p.flags & LSEG) for p in plans] == [False] * (len(plans) - 1) + [ends]
        group_bits = {p.flags & (MIG | LMIG) for p in plans}
        assert len(group_bits) == 1
