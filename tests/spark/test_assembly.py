"""The job's per-unit step (streaming.assembly) and bucket bookkeeping, without Spark.

No servers: these run in a second. The unit's state survives micro-batches as a Spark
row, so every multi-batch case goes through unit_to_row / unit_from_row.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from mqk_avro import codec

from adapter.core import cmqc as C  # noqa: N812
from streaming import keyindex
from streaming.assembly import OpenUnit, Piece, advance
from streaming.processor import unit_from_row, unit_to_row

MIG, LMIG = C.MQMF_MSG_IN_GROUP, C.MQMF_LAST_MSG_IN_GROUP
SEG, LSEG = C.MQMF_SEGMENT, C.MQMF_LAST_SEGMENT
GID = b"G" * 24
NOW = 1_800_000_000_000


def piece(off: int, seq: int, offset: int, data: bytes, flags: int, **fields) -> Piece:
    env = codec.new_envelope(
        GroupId=fields.pop("group_id", GID),
        MsgId=off.to_bytes(24, "big"),
        MsgSeqNumber=seq,
        Offset=offset,
        MsgFlags=flags,
        Payload=data,
        PutTimestamp=fields.pop("put_ms", NOW - 1000),
        **fields,
    )
    value = codec.encode(env)
    return Piece(0, 0, off, NOW - 500, value, codec.decode(value))


def across_batches(batches: list[list[Piece]], now: int = NOW):
    """Feed batches through advance, the kept unit round-tripping through a state row."""
    kept, results = None, []
    for batch in batches:
        out = advance(kept, batch, now)
        results.append(out)
        kept = unit_from_row(unit_to_row(out.keep)) if out.keep is not None else None
    return results


def test_spec_group_y_with_gapped_offsets_and_segments_out_of_order() -> None:
    # Kafka offsets 3, 10, 11, 40: gaps (transaction markers) mean nothing to the rules.
    y3s2 = piece(40, 3, 5, b"world", LMIG | LSEG)
    y1 = piece(3, 1, 0, b"one", MIG)
    y3s1 = piece(11, 3, 0, b"hello", LMIG | SEG)
    y2 = piece(10, 2, 0, b"two", MIG)
    first, second, third = across_batches([[y3s2, y2], [y3s1], [y1]])
    assert first.messages == [] or [m.env["MsgSeqNumber"] for m in first.messages] == [2]
    assert [m.env["Payload"] for m in second.messages] == [b"helloworld"]
    done = second.messages[0]
    assert done.env["MsgFlags"] == LMIG | MIG | SEG | LSEG and done.first == (0, 0, 11)
    assert done.env["MsgId"] == (11).to_bytes(24, "big")  # MQMD of the first segment
    assert third.group is not None and third.finished and third.keep is None
    assert third.group.member_count == 3 and third.group.first == (0, 0, 3)


def test_duplicates_are_ignored_and_a_message_is_emitted_once() -> None:
    a = piece(1, 1, 0, b"ab", SEG)
    b = piece(2, 1, 2, b"cd", LSEG)
    b_again = piece(3, 1, 2, b"cd", LSEG)
    first, second = across_batches([[a, a], [b, b_again]])
    assert first.messages == []
    assert [m.env["Payload"] for m in second.messages] == [b"abcd"]
    assert second.finished and second.group is None  # a segmented message: no group event


def test_plain_message_needs_no_state() -> None:
    (out,) = across_batches([[piece(5, 1, 0, b"plain", 0, group_id=C.MQGI_NONE)]])
    assert [m.env["Payload"] for m in out.messages] == [b"plain"]
    assert out.keep is None and not out.reassembled


def test_expiry_drops_the_unit_and_hands_back_expired_members_only() -> None:
    live = piece(1, 1, 0, b"live", MIG)  # unlimited, complete: emitted
    dying = piece(2, 2, 0, b"seg", MIG | SEG, Expiry=10, put_ms=NOW - 500)  # 1 s lifetime
    (first,) = across_batches([[live, dying]])
    assert [m.env["Payload"] for m in first.messages] == [b"live"]
    assert first.keep is not None and first.keep.expires_at() == NOW + 500
    kept = unit_from_row(unit_to_row(first.keep))
    assert advance(kept, [], NOW + 499).expired == []
    kept = unit_from_row(unit_to_row(first.keep))
    later = advance(kept, [], NOW + 500)
    assert [p.off for p in later.expired] == [2]
    assert later.finished and later.keep is None and later.group is None


def test_expired_piece_never_joins_a_message() -> None:
    old = piece(1, 1, 0, b"ab", SEG, Expiry=1, put_ms=NOW - 5000)
    last = piece(2, 1, 2, b"cd", LSEG)
    (out,) = across_batches([[old, last]])
    assert out.messages == [] and [p.off for p in out.expired] == [1]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), st.lists(st.integers(1, 3), min_size=4, max_size=4), st.randoms())
def test_any_arrival_order_and_batching_gives_the_same_group(members, segs, rnd) -> None:
    pieces, off, want = [], 0, {}
    for seq in range(1, members + 1):
        gflag = LMIG if seq == members else MIG
        n = segs[seq - 1]
        data = [f"{seq}.{s}|".encode() for s in range(n)]
        want[seq] = b"".join(data)
        pos = 0
        for s, d in enumerate(data):
            flags = gflag | ((LSEG if s == n - 1 else SEG) if n > 1 else 0)
            off += rnd.randint(1, 3)  # offsets with gaps
            pieces.append(piece(off, seq, pos, d, flags))
            pos += len(d)
    rnd.shuffle(pieces)
    cuts = sorted(rnd.sample(range(len(pieces) + 1), k=min(3, len(pieces) + 1)))
    bounds = zip([0, *cuts], [*cuts, len(pieces)], strict=True)
    batches = [pieces[a:b] for a, b in bounds if b > a]
    results = across_batches(batches)
    got = [(m.env["MsgSeqNumber"], m.env["Payload"]) for r in results for m in r.messages]
    assert sorted(got) == sorted(want.items())  # each logical message exactly once
    assert [r.group is not None for r in results].count(True) == 1
    assert results[-1].finished


def test_index_and_tombstone_codecs_round_trip() -> None:
    rng = random.Random(3)
    index = {rng.randbytes(24): rng.choice([-1, rng.randrange(1 << 40)]) for _ in range(50)}
    index[b"short"] = 7
    assert keyindex.decode_index(keyindex.encode_index(index)) == index
    assert keyindex.earliest({b"a": -1, b"b": 9, b"c": 4}) == 4
    assert keyindex.earliest({b"a": -1}) is None
    keys = [rng.randbytes(24) for _ in range(20)] + [b"x" * 5]
    blobs = keyindex.encode_keys(keys)
    assert set().union(*(keyindex.decode_keys(b) for b in blobs)) == set(keys)


def test_open_unit_row_keeps_everything() -> None:
    unit = OpenUnit(
        done={1, 2},
        last_seq=4,
        in_group=True,
        first=(3, 0, 17),
        first_put_ms=123,
        pieces=[piece(9, 3, 0, b"x", MIG | SEG)],
    )
    back = unit_from_row(unit_to_row(unit))
    assert (back.done, back.last_seq, back.in_group, back.first, back.first_put_ms) == (
        {1, 2},
        4,
        True,
        (3, 0, 17),
        123,
    )
    assert [p.env for p in back.pieces] == [p.env for p in unit.pieces]
