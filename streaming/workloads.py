"""Queue workloads put through the pymqi-compatible shim: the spec's example and
generated groups in scrambled physical order (for the demo, tests and benchmark).

Puts go without MQPMO_LOGICAL_ORDER, with GroupId / MsgSeqNumber / Offset / MsgFlags
set by hand (MQPUT Table 1, 'No' rows): the first put of each group leaves GroupId as
MQGI_NONE and takes the GroupId the queue manager generated from the returned MD.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import adapter.pymqi as pymqi
from adapter.core import cmqc as C  # noqa: N812 (the project-wide alias)

MIG = C.MQMF_MSG_IN_GROUP
LMIG = C.MQMF_LAST_MSG_IN_GROUP
SEG = C.MQMF_SEGMENT
LSEG = C.MQMF_LAST_SEGMENT


@dataclass(frozen=True)
class PhysicalPut:
    """One MQPUT: a message, a group member or a segment."""

    label: str
    data: bytes
    group: str | None = None  # symbolic group name; its GroupId comes from its first put
    seq: int = 1
    offset: int = 0
    flags: int = C.MQMF_NONE
    expiry: int = C.MQEI_UNLIMITED
    report: int = C.MQRO_NONE
    reply_to: str = ""
    priority: int = C.MQPRI_PRIORITY_AS_Q_DEF


def spec_example() -> list[PhysicalPut]:
    """Figure 2 of 'Logical and physical ordering', in its physical order:
    A, Y1, Z2, Y2, Y3 segment 1, Y3 segment 2, Z1, B."""
    y3s1 = b"group Y message 3, segment 1; "
    return [
        PhysicalPut("A", b"message A"),
        PhysicalPut("Y1", b"group Y message 1", "Y", 1, 0, MIG),
        PhysicalPut("Z2", b"group Z message 2", "Z", 2, 0, LMIG),
        PhysicalPut("Y2", b"group Y message 2", "Y", 2, 0, MIG),
        PhysicalPut("Y3.s1", y3s1, "Y", 3, 0, LMIG | SEG),
        PhysicalPut("Y3.s2", b"segment 2", "Y", 3, len(y3s1), LMIG | LSEG),
        PhysicalPut("Z1", b"group Z message 1", "Z", 1, 0, MIG),
        PhysicalPut("B", b"message B"),
    ]


def put_all(
    qm: pymqi.QueueManager,
    queue: str,
    puts: list[PhysicalPut],
    group_ids: dict[str, bytes] | None = None,
    mds: dict[str, pymqi.MD] | None = None,
) -> dict[str, bytes]:
    """Put in list order (the physical order); returns each symbolic group's GroupId
    (`group_ids` gives the ids of groups begun earlier, and is extended). `mds`, if
    given, receives each put's returned MD by label."""
    ids: dict[str, bytes] = group_ids if group_ids is not None else {}
    q = pymqi.Queue(qm, queue, C.MQOO_OUTPUT)
    pmo = pymqi.PMO(Options=C.MQPMO_NO_SYNCPOINT | C.MQPMO_NEW_MSG_ID)
    try:
        for p in puts:
            md = pymqi.MD(
                MsgFlags=p.flags,
                MsgSeqNumber=p.seq,
                Offset=p.offset,
                Expiry=p.expiry,
                Report=p.report,
                ReplyToQ=p.reply_to.encode(),
                Priority=p.priority,
            )
            if p.group is not None:
                md.GroupId = ids.get(p.group, C.MQGI_NONE)
            q.put(p.data, md, pmo)
            if mds is not None:
                mds[p.label] = md
            if p.group is not None:
                ids.setdefault(p.group, bytes(md.GroupId))
    finally:
        q.close()
    qm.commit()  # MQCMIT: every put is on Kafka and counted (read-your-writes)
    return ids


@dataclass
class Unit:
    """What a generated logical unit should come out as: its logical messages' data."""

    name: str
    messages: dict[int, bytes] = field(default_factory=dict)  # seq -> data
    in_group: bool = False
    complete: bool = True  # every piece was put


def unit_pieces(
    name: str,
    members: list[list[bytes]],
    *,
    in_group: bool,
    expiry: int = C.MQEI_UNLIMITED,
    report: int = C.MQRO_NONE,
    reply_to: str = "",
) -> list[PhysicalPut]:
    """The physical messages of one unit in logical order. `members[i]` are the segments
    of logical message i + 1 (one element: not segmented)."""
    pieces = []
    for i, segments in enumerate(members):
        seq = i + 1
        last_msg = seq == len(members)
        offset = 0
        for j, data in enumerate(segments):
            flags = 0
            if in_group:
                flags |= LMIG if last_msg else MIG
            if len(segments) > 1:
                flags |= LSEG if j == len(segments) - 1 else SEG
            group = name if (in_group or len(segments) > 1) else None
            pieces.append(
                PhysicalPut(
                    f"{name}.{seq}.{j}", data, group, seq, offset, flags, expiry, report, reply_to
                )
            )
            offset += len(data)
    return pieces


def scrambled_workload(
    rng: random.Random,
    units: int,
    *,
    max_members: int = 4,
    max_segments: int = 3,
    segment_size: int = 64,
    incomplete: float = 0.15,
) -> tuple[list[PhysicalPut], list[Unit]]:
    """Random groups, segmented messages and plain messages, their pieces shuffled into
    one physical order; some units lose a piece (they must never come out complete)."""
    puts: list[PhysicalPut] = []
    expect: list[Unit] = []
    for u in range(units):
        name = f"U{u}"
        kind = rng.choice(["plain", "segmented", "group"])
        n_members = rng.randint(1, max_members) if kind == "group" else 1
        members = []
        for seq in range(1, n_members + 1):
            n_seg = 1 if kind == "plain" else rng.randint(1, max_segments)
            if kind == "segmented":
                n_seg = max(n_seg, 2)
            members.append(
                [
                    f"{name}/{seq}/{s}:".encode() + rng.randbytes(rng.randint(0, segment_size))
                    for s in range(n_seg)
                ]
            )
        pieces = unit_pieces(name, members, in_group=kind == "group")
        unit = Unit(name, {i + 1: b"".join(m) for i, m in enumerate(members)}, kind == "group")
        if kind != "plain" and rng.random() < incomplete:
            lost = pieces.pop(rng.randrange(len(pieces)))
            unit.complete = False
            unit.messages.pop(lost.seq)  # that logical message can never be complete
        puts.extend(pieces)
        expect.append(unit)
    rng.shuffle(puts)
    return puts, expect
