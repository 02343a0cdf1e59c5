"""Reassembly of segments and groups, with duplicates and out-of-order arrival."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapter.core import cmqc as C  # noqa: N812
from adapter.core.reassembly import (
    GroupAssembler,
    LogicalMessageAssembler,
    find_chain,
    reassembled_flags,
)

MIG = C.MQMF_MSG_IN_GROUP
LMIG = C.MQMF_LAST_MSG_IN_GROUP
SEG = C.MQMF_SEGMENT
LSEG = C.MQMF_LAST_SEGMENT


def test_out_of_order_with_duplicates():
    asm = LogicalMessageAssembler()
    assert asm.add(6, b"ghi", True)
    assert not asm.complete
    assert asm.add(0, b"abc", False, meta="first-md")
    assert not asm.add(6, b"ghi", True)  # duplicate ignored
    assert not asm.complete
    with pytest.raises(ValueError):
        asm.join()
    assert asm.add(3, b"def", False)
    assert asm.complete
    assert asm.join() == b"abcdefghi"
    assert asm.first_meta == "first-md"
    assert asm.segment_count == 3


def test_gap_is_incomplete_and_empty_last_segment_completes():
    asm = LogicalMessageAssembler()
    asm.add(0, b"ab", False)
    asm.add(3, b"cd", True)  # offset 2 missing: 3 is not reachable
    assert not asm.complete
    asm.add(2, b"x", False)
    assert asm.join() == b"abxcd"
    empty = LogicalMessageAssembler()
    empty.add(0, b"only", False)
    empty.add(4, b"", True)
    assert empty.join() == b"only"


def test_zero_length_non_last_segment_never_completes():
    asm = LogicalMessageAssembler()
    asm.add(0, b"", False)
    assert not asm.complete


def test_resegmented_duplicates_still_join():
    # Same data cut two ways (e.g. re-segmented on one route): any full path will do.
    asm = LogicalMessageAssembler()
    asm.add(0, b"abcdef", False)
    asm.add(0, b"abc", False)
    asm.add(3, b"def", False)
    assert not asm.complete
    asm.add(6, b"gh", True)
    assert asm.join() == b"abcdefgh"


def test_find_chain_backtracks():
    pieces = {0: [(5, False, "long"), (2, False, "short")], 2: [(1, True, "end")]}
    assert find_chain(0, lambda off: pieces.get(off, [])) == ["short", "end"]
    assert find_chain(1, lambda off: pieces.get(off, [])) is None


def test_group_assembler_yields_each_message_once():
    grp = GroupAssembler()
    assert grp.add(2, 0, b"two-a", MIG | SEG) == []
    assert grp.member_count is None
    assert grp.add(3, 0, b"three", LMIG) == [(3, b"three")]
    assert grp.member_count == 3
    assert grp.add(3, 0, b"three", LMIG) == []  # duplicate of a finished message
    assert grp.add(2, 5, b"-b", MIG | LSEG) == [(2, b"two-a-b")]
    assert grp.add(2, 5, b"-b", MIG | LSEG) == []
    assert not grp.complete
    assert grp.add(1, 0, b"one", MIG, meta={"MsgId": b"m1"}) == [(1, b"one")]
    assert grp.complete
    assert grp.messages() == [(1, b"one"), (2, b"two-a-b"), (3, b"three")]
    assert grp.message(2) == b"two-a-b" and grp.meta(1) == {"MsgId": b"m1"}


def test_segmented_message_not_in_a_group_is_a_group_of_one():
    grp = GroupAssembler()
    assert grp.add(1, 4, b"tail", LSEG) == []
    assert grp.member_count == 1 and not grp.complete
    assert grp.add(1, 0, b"head", SEG, meta="md") == [(1, b"headtail")]
    assert grp.complete and grp.meta(1) == "md"


@pytest.mark.parametrize(
    "first,expected",
    [
        (SEG, SEG | LSEG),
        (MIG | SEG, MIG | SEG | LSEG),
        (LMIG | SEG, MIG | LMIG | SEG | LSEG),
        (SEG | C.MQMF_SEGMENTATION_ALLOWED, SEG | LSEG | C.MQMF_SEGMENTATION_ALLOWED),
        (LSEG, SEG | LSEG),  # a one-segment logical message already says so
        (MIG, MIG),  # never segmented: unchanged
        (0, 0),
    ],
)
def test_reassembled_flags(first, expected):
    assert reassembled_flags(first) == expected


@st.composite
def segmented(draw):
    payload = draw(st.binary(min_size=0, max_size=200))
    cuts = sorted(draw(st.sets(st.integers(1, max(1, len(payload) - 1)), max_size=10)))
    cuts = [c for c in cuts if 0 < c < len(payload)]
    bounds = [0, *cuts, len(payload)]
    pieces = [
        (bounds[i], payload[bounds[i] : bounds[i + 1]], i == len(bounds) - 2)
        for i in range(len(bounds) - 1)
    ]
    return payload, pieces


@settings(max_examples=300, deadline=None)
@given(segmented(), st.data())
def test_property_reassembly_gives_back_the_payload(case, data):
    payload, pieces = case
    # Random order, random duplicates; complete exactly when the last distinct piece lands.
    arrivals = data.draw(st.permutations(pieces + data.draw(st.lists(st.sampled_from(pieces)))))
    asm, seen = LogicalMessageAssembler(), set()
    for offset, chunk, last in arrivals:
        asm.add(offset, chunk, last)
        seen.add(offset)
        assert asm.complete == (len(seen) == len(pieces))
    assert asm.join() == payload


@settings(max_examples=200, deadline=None)
@given(st.lists(segmented(), min_size=1, max_size=5), st.data())
def test_property_group_reassembly(messages, data):
    physical = []
    for seq, (_payload, pieces) in enumerate(messages, start=1):
        gflags = LMIG if seq == len(messages) else MIG
        for offset, chunk, last in pieces:
            sflags = (LSEG if last else SEG) if len(pieces) > 1 else 0
            physical.append((seq, offset, chunk, gflags | sflags))
    order = data.draw(st.permutations(physical))
    grp, emitted = GroupAssembler(), []
    for i, (seq, offset, chunk, flags) in enumerate(order):
        emitted += grp.add(seq, offset, chunk, flags)
        assert grp.complete == (i == len(order) - 1)
    assert sorted(emitted) == [(seq, p) for seq, (p, _) in enumerate(messages, start=1)]
    assert grp.member_count == len(messages)
