"""Queue-manager segmentation on MQPUT (MQMF_SEGMENTATION_ALLOWED, message too big).

Every segment keeps the group flags of its logical message; only the segment that ends
the logical message carries LAST_SEGMENT. A message that already is a segment is split
into smaller segments whose offsets continue from its own Offset.
"""

from __future__ import annotations

from dataclasses import dataclass

from adapter.core import cmqc as C  # noqa: N812 (the project-wide alias)
from adapter.core.model import SEGMENT_FLAGS, normalise_flags

# The queue manager cannot make segments smaller than this (except the last one).
MIN_SEGMENT = 16


def split_segments(
    length: int, max_segment: int, base_offset: int = 0
) -> list[tuple[int, int, bool]]:
    """Cut `length` bytes into (offset, segment length, is_last_piece) pieces.

    Every piece but the last is exactly `max_segment` bytes; offsets start at
    `base_offset` and have no gaps. A message that fits is one piece.
    """
    if length < 0:
        raise ValueError("length must not be negative")
    if max_segment < MIN_SEGMENT:
        raise ValueError(f"segments cannot be smaller than {MIN_SEGMENT} bytes")
    if base_offset < 0:
        raise ValueError("offset must not be negative")
    pieces: list[tuple[int, int, bool]] = []
    done = 0
    while length - done > max_segment:
        pieces.append((base_offset + done, max_segment, False))
        done += max_segment
    pieces.append((base_offset + done, length - done, True))
    return pieces


def segment_flags(original_flags: int, is_last_piece: bool) -> int:
    """MsgFlags of one piece of a split message.

    Group flags (and SEGMENTATION_ALLOWED) are kept on every piece. The last piece is
    LAST_SEGMENT only if the original ended its logical message: it was not a segment,
    or it was the last segment.
    """
    flags = normalise_flags(original_flags)
    ends_message = not flags & SEGMENT_FLAGS or bool(flags & C.MQMF_LAST_SEGMENT)
    flags = (flags & ~SEGMENT_FLAGS) | C.MQMF_SEGMENT
    if is_last_piece and ends_message:
        flags |= C.MQMF_LAST_SEGMENT
    return flags


@dataclass(slots=True, frozen=True)
class SegmentPlan:
    """One physical message to write: payload[start:start + length] with these fields."""

    offset: int
    length: int
    flags: int
    start: int


def segment_message(
    flags: int, offset: int, length: int, max_length: int
) -> list[SegmentPlan] | None:
    """The physical messages for a put of `length` bytes at `offset` (0 unless a segment).

    A message that fits is returned as a single piece, unchanged. None means it is too
    big and may not be split (SEGMENTATION_INHIBITED, or a limit under MIN_SEGMENT):
    the caller answers MQRC_MSG_TOO_BIG_FOR_Q / _Q_MGR.
    """
    if length <= max_length:
        return [SegmentPlan(offset, length, normalise_flags(flags), 0)]
    if not flags & C.MQMF_SEGMENTATION_ALLOWED or max_length < MIN_SEGMENT:
        return None
    return [
        SegmentPlan(off, seg_len, segment_flags(flags, last), off - offset)
        for off, seg_len, last in split_segments(length, max_length, offset)
    ]
