"""One group's reassembly between micro-batches, on the rules core. Pure: no Spark, no I/O.

A *unit* is what one key of the job collects: a message group (GroupId), a segmented
message outside any group (its GroupId), or a plain message (its MsgId). `advance`
takes what was kept of the unit, the physical messages that arrived since, and the
clock; it returns the complete logical messages, the complete-group event, the expired
messages to discard, and what to keep. The same function serves the Spark processor
and the single-process reassembler, so both give the same answers as the shim's
MQGMO_COMPLETE_MSG (all three call adapter.core.reassembly).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from adapter.core import cmqc as C  # noqa: N812 (the project-wide alias)
from adapter.core import expiry as exp
from adapter.core.model import GROUP_FLAGS, SEGMENT_FLAGS
from adapter.core.reassembly import GroupAssembler, reassembled_flags

Position = tuple[int, int, int]  # (priority, partition, Kafka offset): physical position


@dataclass(slots=True)
class Piece:
    """One physical message as read from a priority topic: its position and envelope."""

    prio: int
    part: int
    off: int
    ts: int  # Kafka timestamp (LogAppendTime: when the put reached the queue)
    value: bytes  # the record value, kept so a discard can report from it
    env: dict[str, Any]

    @property
    def pos(self) -> Position:
        return (self.prio, self.part, self.off)

    @property
    def cand(self) -> str:
        """The shim's claim candidate: '<priority>.<partition>:<offset>'."""
        return f"{self.prio}.{self.part}:{self.off}"

    @property
    def flags(self) -> int:
        return self.env["MsgFlags"]

    @property
    def standalone(self) -> bool:
        """Neither in a group nor a segment: complete on its own."""
        return not self.flags & (GROUP_FLAGS | SEGMENT_FLAGS)

    def expires_at(self) -> int | None:
        return exp.expires_at_ms(self.env["PutTimestamp"], self.env["Expiry"])

    def expired(self, now_ms: int) -> bool:
        return exp.is_expired(self.env["PutTimestamp"], self.env["Expiry"], now_ms)


@dataclass(slots=True)
class OpenUnit:
    """What the job keeps of an incomplete unit between micro-batches."""

    done: set[int] = field(default_factory=set)  # MsgSeqNumbers already written out
    last_seq: int | None = None  # MsgSeqNumber of the last message, once seen
    in_group: bool = False
    first: Position | None = None  # where the first item (seq 1, offset 0) sits
    first_put_ms: int = 0
    pieces: list[Piece] = field(default_factory=list)  # of logical messages not yet complete

    def expires_at(self) -> int | None:
        """When the earliest held piece expires (None: nothing held can expire)."""
        times = [t for t in (p.expires_at() for p in self.pieces) if t is not None]
        return min(times) if times else None


@dataclass(slots=True)
class LogicalMessage:
    """A complete logical message: MQMD of its first segment, flags as one last segment."""

    env: dict[str, Any]
    first: Position  # physical position of its first segment
    last_ts: int  # Kafka timestamp of the newest piece: when it became complete
    pieces: int


@dataclass(slots=True)
class GroupComplete:
    group_id: bytes
    member_count: int
    first: Position
    first_put_ms: int


@dataclass(slots=True)
class Outcome:
    messages: list[LogicalMessage]
    group: GroupComplete | None
    expired: list[Piece]  # to discard from the queue (and report where asked)
    keep: OpenUnit | None  # None: nothing left to keep (finished or dropped)
    finished: bool  # the unit ended (complete or dropped): later pieces are duplicates
    reassembled: bool  # grouped or segmented (a plain message never needs a tombstone)


def _replay_done(asm: GroupAssembler, unit: OpenUnit) -> None:
    """Tell a fresh assembler which logical messages were already complete (their data is
    gone): as empty messages of the group, the last one flagged so."""
    for seq in sorted(unit.done):
        flags = C.MQMF_MSG_IN_GROUP
        if seq == unit.last_seq:
            flags |= C.MQMF_LAST_MSG_IN_GROUP
        asm.add(seq, 0, b"", flags)


def advance(unit: OpenUnit | None, new: list[Piece], now_ms: int) -> Outcome:
    """Add the pieces that arrived to what was kept; see the module docstring.

    Expired pieces never join a logical message (MQ never returns an expired message).
    If any piece held or arriving has expired, the unit can no longer complete: it is
    dropped, and the expired pieces are handed back for discarding.
    """
    if unit is None and not new:
        return Outcome([], None, [], None, finished=False, reassembled=False)
    unit = unit or OpenUnit()
    held = unit.pieces + new
    expired: list[Piece] = []
    live: list[Piece] = []
    for p in held:  # one expiry test per piece (this loop runs for every segment)
        (expired if p.expired(now_ms) else live).append(p)
    # Physical order, so the same pieces always give the same answer.
    live.sort(key=lambda p: (p.env["MsgSeqNumber"], p.env["Offset"], p.pos))

    asm = GroupAssembler()
    _replay_done(asm, unit)
    completed: list[int] = []
    for p in live:
        env = p.env
        if env["MsgFlags"] & GROUP_FLAGS:
            unit.in_group = True
        if env["MsgSeqNumber"] == 1 and env["Offset"] == 0 and unit.first is None:
            unit.first, unit.first_put_ms = p.pos, env["PutTimestamp"]
        for seq, _data in asm.add(
            env["MsgSeqNumber"], env["Offset"], env["Payload"], env["MsgFlags"], meta=p
        ):
            completed.append(seq)
    unit.last_seq = asm.member_count

    messages = []
    for seq in sorted(completed):
        first: Piece = asm.meta(seq)
        members = [p for p in live if p.env["MsgSeqNumber"] == seq]
        env = dict(first.env)
        env["Payload"] = asm.message(seq)
        env["MsgFlags"] = reassembled_flags(first.env["MsgFlags"])
        messages.append(LogicalMessage(env, first.pos, max(p.ts for p in members), len(members)))
        unit.done.add(seq)
    unit.pieces = [p for p in live if p.env["MsgSeqNumber"] not in unit.done]

    reassembled = any(not p.standalone for p in held)
    group = None
    if unit.in_group and asm.complete and unit.first is not None:
        gid = held[0].env["GroupId"]
        group = GroupComplete(gid, asm.member_count or 0, unit.first, unit.first_put_ms)
    finished = asm.complete or bool(expired)
    return Outcome(
        messages=messages,
        group=group,
        expired=expired,
        keep=None if finished else unit,
        finished=finished,
        reassembled=reassembled,
    )
