"""Reassembly of segments into logical messages, and of logical messages into groups.

Used by MQGMO_COMPLETE_MSG in the shim and by the Spark job. Segments may arrive in
any order and more than once; nothing is assumed beyond each segment's Offset, its
length and whether it is the last segment: a logical message is complete when a run
of segments leads from Offset 0, each starting where the previous one ended, to a
segment flagged LAST_SEGMENT.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from adapter.core import cmqc as C  # noqa: N812 (the project-wide alias)
from adapter.core.model import GROUP_FLAGS, SEGMENT_FLAGS, normalise_flags

T = TypeVar("T")


def find_chain(
    start: int, pieces_at: Callable[[int], Iterable[tuple[int, bool, T]]]
) -> list[T] | None:
    """Values of a gap-free run of pieces from `start` to a last piece, or None.

    `pieces_at(offset)` gives (length, is_last, value) for the pieces at an offset
    (empty when none). Depth-first, so differing duplicates at one offset are all
    tried; offsets only grow (zero-length non-last pieces are skipped), so it ends.
    """
    failed: set[int] = set()
    stack = [(start, iter(pieces_at(start)))]
    path: list[T] = []
    while stack:
        off, options = stack[-1]
        piece = next(options, None)
        if piece is None:
            stack.pop()
            failed.add(off)
            if path:
                path.pop()
            continue
        length, last, value = piece
        if last:
            return [*path, value]
        nxt = off + length
        if length <= 0 or nxt in failed:
            continue
        path.append(value)
        stack.append((nxt, iter(pieces_at(nxt))))
    return None


def reassembled_flags(first_segment_flags: int) -> int:
    """MsgFlags of a message reassembled by MQGMO_COMPLETE_MSG.

    MQ returns the MQMD of the first segment except MsgFlags, which it sets to say the
    reassembled message is the only segment: a logical message of one segment, i.e.
    LAST_SEGMENT (and SEGMENT, which LAST_SEGMENT turns on when stored), so
    SegmentStatus reads MQSS_LAST_SEGMENT. Group flags and SEGMENTATION_ALLOWED belong
    to the logical message and are kept. A message that was never segmented keeps its
    flags.
    """
    flags = normalise_flags(first_segment_flags)
    if not flags & SEGMENT_FLAGS:
        return flags
    return (flags & ~SEGMENT_FLAGS) | C.MQMF_SEGMENT | C.MQMF_LAST_SEGMENT


def consistent_segments(codings: Sequence[tuple[int, int]]) -> tuple[int, int | None]:
    """MQGMO_COMPLETE_MSG over segments whose (CodedCharSetId, Encoding) are `codings`,
    in Offset order: how many leading segments share the first one's values, and the
    warning when that is not all of them, MQRC_INCONSISTENT_CCSIDS (2243) if the first
    segment that differs has another CodedCharSetId, else MQRC_INCONSISTENT_ENCODINGS
    (2244).

    IBM (2243, https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q042760_.html; 2244,
    q042770_): "The call succeeds with a completion code of MQCC_WARNING, but only the
    first few segments that have identical character-set identifiers [encodings] are
    returned"; the programmer retrieves "the remaining message segments one by one", so
    they stay on the queue.
    """
    first = codings[0]
    for n, (ccsid, encoding) in enumerate(codings):
        if ccsid != first[0]:
            return n, C.MQRC_INCONSISTENT_CCSIDS
        if encoding != first[1]:
            return n, C.MQRC_INCONSISTENT_ENCODINGS
    return len(codings), None


class LogicalMessageAssembler:
    """Collects the segments of one logical message until they join up."""

    def __init__(self) -> None:
        # offset -> (length, is_last) -> data; one entry per distinct shape
        self._parts: dict[int, dict[tuple[int, bool], bytes]] = {}
        self._meta: dict[int, Any] = {}
        # Fast path while every offset has one shape: the walk from 0 advances as
        # segments arrive (amortised O(1) per add); otherwise fall back to a search.
        self._frontier = 0
        self._ended = False
        self._ambiguous = False

    def add(self, offset: int, data: bytes, last: bool, meta: Any = None) -> bool:
        """Add a segment; returns False for a duplicate (same offset, length and last)."""
        if offset < 0:
            raise ValueError("offset must not be negative")
        shapes = self._parts.setdefault(offset, {})
        shape = (len(data), bool(last))
        if shape in shapes:
            return False
        shapes[shape] = bytes(data)
        self._meta.setdefault(offset, meta)
        if len(shapes) > 1:
            self._ambiguous = True
        self._advance()
        return True

    def _advance(self) -> None:
        while not self._ended and not self._ambiguous:
            shapes = self._parts.get(self._frontier)
            if not shapes:
                return
            ((length, last),) = shapes
            if last:
                self._ended = True
            elif length == 0:
                return  # an empty non-last segment leads nowhere
            else:
                self._frontier += length

    def _chain(self) -> list[bytes] | None:
        if not self._ambiguous:
            if not self._ended:
                return None
            out, off = [], 0
            while True:
                (((length, last), data),) = self._parts[off].items()
                out.append(data)
                if last:
                    return out
                off += length
        return find_chain(
            0,
            lambda off: [(n, last, d) for (n, last), d in self._parts.get(off, {}).items()],
        )

    @property
    def complete(self) -> bool:
        if not self._ambiguous:
            return self._ended
        return self._chain() is not None

    @property
    def segment_count(self) -> int:
        return sum(len(shapes) for shapes in self._parts.values())

    @property
    def first_meta(self) -> Any:
        """The `meta` given with the segment at Offset 0 (the MQMD the message reports)."""
        return self._meta.get(0)

    def join(self) -> bytes:
        chain = self._chain()
        if chain is None:
            raise ValueError("logical message is incomplete")
        return b"".join(chain)


class GroupAssembler:
    """Collects the logical messages of one group (or one segmented message not in a
    group, which is a group of one) and reports each logical message once complete."""

    def __init__(self) -> None:
        self._partial: dict[int, LogicalMessageAssembler] = {}
        self._done: dict[int, bytes] = {}
        self._meta: dict[int, Any] = {}
        self._last_seq: int | None = None

    def add(
        self, seq: int, offset: int, data: bytes, flags: int, meta: Any = None
    ) -> list[tuple[int, bytes]]:
        """Add a physical message; returns the logical messages it completed, as
        (MsgSeqNumber, data): empty, or one message the first time it is complete."""
        flags = normalise_flags(flags)
        if flags & C.MQMF_LAST_MSG_IN_GROUP:
            self._last_seq = seq if self._last_seq is None else min(self._last_seq, seq)
        elif not flags & GROUP_FLAGS:
            self._last_seq = 1  # not in a group: the logical message is the whole "group"
        if seq in self._done:
            return []
        if not flags & SEGMENT_FLAGS:
            data = bytes(data)
            self._meta.setdefault(seq, meta)
        else:
            asm = self._partial.setdefault(seq, LogicalMessageAssembler())
            asm.add(offset, data, bool(flags & C.MQMF_LAST_SEGMENT), meta)
            if not asm.complete:
                return []
            data = asm.join()
            self._meta.setdefault(seq, asm.first_meta)
            del self._partial[seq]
        self._done[seq] = data
        return [(seq, data)]

    @property
    def member_count(self) -> int | None:
        """Number of logical messages in the group (the last one's MsgSeqNumber), once
        the last message has been seen; None before."""
        return self._last_seq

    @property
    def complete(self) -> bool:
        """The last message is known and it and every message before it are complete."""
        n = self._last_seq
        return n is not None and all(seq in self._done for seq in range(1, n + 1))

    def message(self, seq: int) -> bytes | None:
        return self._done.get(seq)

    def meta(self, seq: int) -> Any:
        """`meta` of the first segment (or the message) of logical message `seq`."""
        return self._meta.get(seq)

    def messages(self) -> list[tuple[int, bytes]]:
        """The complete logical messages so far, by MsgSeqNumber."""
        return sorted(self._done.items())
