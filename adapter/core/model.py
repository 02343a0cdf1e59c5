"""The physical message as the rules core sees it, and the GMO status it reports.

An `Item` carries only what MQ's selection, grouping and expiry rules look at; the
payload and the other MQMD fields stay with the caller. Pure data, no I/O.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

from adapter.core import cmqc as C  # noqa: N812 (the project-wide alias)

# MsgFlags bits that say "in a group" / "a segment"; LAST_* imply the plain bit.
GROUP_FLAGS = C.MQMF_MSG_IN_GROUP | C.MQMF_LAST_MSG_IN_GROUP
SEGMENT_FLAGS = C.MQMF_SEGMENT | C.MQMF_LAST_SEGMENT
# Every MsgFlags value the queue manager understands.
KNOWN_FLAGS = C.MQMF_SEGMENTATION_ALLOWED | GROUP_FLAGS | SEGMENT_FLAGS

# MsgSeqNumber and Offset range (MQMD field pages).
MAX_SEQ = 999_999_999
MAX_OFFSET = 999_999_999

ID_LENGTH = 24


def id24(value: bytes | None) -> bytes:
    """A 24-byte MQBYTE24 value: pymqi packs short values padded with NULs, so b'' is NONE."""
    if not value:
        return C.MQGI_NONE
    return bytes(value[:ID_LENGTH]).ljust(ID_LENGTH, b"\x00")


def normalise_flags(flags: int) -> int:
    """The MsgFlags the queue manager stores: LAST_MSG_IN_GROUP turns on MSG_IN_GROUP and
    LAST_SEGMENT turns on SEGMENT in the copy of the MQMD sent with the message."""
    if flags & C.MQMF_LAST_MSG_IN_GROUP:
        flags |= C.MQMF_MSG_IN_GROUP
    if flags & C.MQMF_LAST_SEGMENT:
        flags |= C.MQMF_SEGMENT
    return flags


@dataclass(slots=True)
class Item:
    """One physical message on a queue.

    `key` is the caller's opaque identity (e.g. (topic, partition, offset)); `pos` is
    the physical-order sort key (smaller = delivered earlier), so priority ordering is
    the caller's business: it encodes it in `pos`.
    """

    key: Hashable
    pos: tuple
    priority: int
    msg_id: bytes
    correl_id: bytes
    group_id: bytes
    seq: int
    offset: int
    flags: int
    length: int
    persistence: int
    put_ms: int
    expiry: int
    report: int = 0

    @property
    def in_group(self) -> bool:
        return bool(self.flags & GROUP_FLAGS)

    @property
    def last_in_group(self) -> bool:
        return bool(self.flags & C.MQMF_LAST_MSG_IN_GROUP)

    @property
    def is_segment(self) -> bool:
        return bool(self.flags & SEGMENT_FLAGS)

    @property
    def last_segment(self) -> bool:
        return bool(self.flags & C.MQMF_LAST_SEGMENT)

    @property
    def is_first(self) -> bool:
        """First item of its group / logical message: what logical order may start on."""
        return self.seq == 1 and self.offset == 0

    @property
    def logical_key(self) -> tuple[bytes, int]:
        return (self.group_id, self.seq)


def flag_statuses(flags: int) -> tuple[int, int, int]:
    """(GroupStatus, SegmentStatus, Segmentation) shown for a message with these MsgFlags.
    A one-message group is 'last' too; a segmented message that is not in a group is
    NOT_IN_GROUP (it only has a GroupId); LAST_SEGMENT also for a single segment."""
    if not flags & GROUP_FLAGS:
        group = C.MQGS_NOT_IN_GROUP
    elif flags & C.MQMF_LAST_MSG_IN_GROUP:
        group = C.MQGS_LAST_MSG_IN_GROUP
    else:
        group = C.MQGS_MSG_IN_GROUP
    if not flags & SEGMENT_FLAGS:
        segment = C.MQSS_NOT_A_SEGMENT
    elif flags & C.MQMF_LAST_SEGMENT:
        segment = C.MQSS_LAST_SEGMENT
    else:
        segment = C.MQSS_SEGMENT
    allowed = C.MQSEG_ALLOWED if flags & C.MQMF_SEGMENTATION_ALLOWED else C.MQSEG_INHIBITED
    return group, segment, allowed


def group_status(item: Item) -> int:
    """GMO GroupStatus for a retrieved item."""
    return flag_statuses(item.flags)[0]


def segment_status(item: Item) -> int:
    """GMO SegmentStatus for a retrieved item."""
    return flag_statuses(item.flags)[1]


def segmentation_status(item: Item) -> int:
    """GMO Segmentation: whether further segmentation is allowed for the item."""
    return flag_statuses(item.flags)[2]
