"""MQPUT group and segment rules: Table 1 and Table 2 of the MQPUT description.

`plan_put` decides the GroupId, MsgSeqNumber and Offset the queue manager uses, the
completion and reason codes, and the handle's new group/segment state. The caller
generates ids (`new_group_id`) so this stays deterministic.

`put_options_error` holds the MQPUT / MQPUT1 rows of IBM's "Rules for validating MQI
options" that do not depend on the handle (the context options, which do, are in
`openrules.put_context_error`):
https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=reference-rules-validating-mqi-options
and the MQPMO Options page, for which bits are options:
https://www.ibm.com/docs/zh/SSFKSJ_8.0.0/refdev/q098730_.html
"""

from __future__ import annotations

from dataclasses import dataclass

from adapter.core import cmqc as C  # noqa: N812 (the project-wide alias)
from adapter.core.model import (
    GROUP_FLAGS,
    KNOWN_FLAGS,
    MAX_OFFSET,
    MAX_SEQ,
    SEGMENT_FLAGS,
    id24,
    normalise_flags,
)
from adapter.core.openrules import PUT_CONTEXT

# Every bit MQPUT defines in MQPMO.Options (the topic-only ones included: MQ accepts
# them on a queue and they have no effect there). Any other bit is MQRC_OPTIONS_ERROR.
VALID_PUT_OPTIONS = (
    C.MQPMO_SYNCPOINT
    | C.MQPMO_NO_SYNCPOINT
    | C.MQPMO_DEFAULT_CONTEXT
    | C.MQPMO_NEW_MSG_ID
    | C.MQPMO_NEW_CORREL_ID
    | C.MQPMO_PASS_IDENTITY_CONTEXT
    | C.MQPMO_PASS_ALL_CONTEXT
    | C.MQPMO_SET_IDENTITY_CONTEXT
    | C.MQPMO_SET_ALL_CONTEXT
    | C.MQPMO_ALTERNATE_USER_AUTHORITY
    | C.MQPMO_FAIL_IF_QUIESCING
    | C.MQPMO_NO_CONTEXT
    | C.MQPMO_LOGICAL_ORDER
    | C.MQPMO_ASYNC_RESPONSE
    | C.MQPMO_SYNC_RESPONSE
    | C.MQPMO_RESOLVE_LOCAL_Q
    | C.MQPMO_WARN_IF_NO_SUBS_MATCHED
    | C.MQPMO_RETAIN
    | C.MQPMO_MD_FOR_OUTPUT_ONLY
    | C.MQPMO_SCOPE_QMGR
    | C.MQPMO_SUPPRESS_REPLYTO
    | C.MQPMO_NOT_OWN_SUBS
)

# At most one context option (rule list: DEFAULT_CONTEXT counts too).
_CONTEXT_CHOICES = PUT_CONTEXT | C.MQPMO_DEFAULT_CONTEXT


def put_options_error(options: int, *, put1: bool = False) -> int | None:
    """MQRC_OPTIONS_ERROR (or None) for MQPMO.Options: bits MQ does not define,
    SYNCPOINT with NO_SYNCPOINT, ASYNC_RESPONSE with SYNC_RESPONSE (RESPONSE_AS_Q_DEF is
    0), more than one context option, and MQPMO_ALTERNATE_USER_AUTHORITY on MQPUT
    (MQPUT1 only: an MQPUT's authority was settled at MQOPEN)."""
    if options & ~VALID_PUT_OPTIONS:
        return C.MQRC_OPTIONS_ERROR
    if options & C.MQPMO_SYNCPOINT and options & C.MQPMO_NO_SYNCPOINT:
        return C.MQRC_OPTIONS_ERROR
    if options & C.MQPMO_ASYNC_RESPONSE and options & C.MQPMO_SYNC_RESPONSE:
        return C.MQRC_OPTIONS_ERROR
    context = options & _CONTEXT_CHOICES
    if context & (context - 1):
        return C.MQRC_OPTIONS_ERROR
    if options & C.MQPMO_ALTERNATE_USER_AUTHORITY and not put1:
        return C.MQRC_OPTIONS_ERROR
    return None


@dataclass(slots=True, frozen=True)
class PutCursor:
    """Group and segment information the queue manager keeps per queue handle for MQPUT."""

    group_id: bytes = C.MQGI_NONE
    seq: int = 1
    offset: int = 0
    length: int = 0  # data length of the previous put: the next segment's offset step
    group_open: bool = False
    msg_open: bool = False
    persistence: int = C.MQPER_NOT_PERSISTENT  # of the open group / logical message
    in_uow: bool = False  # the open group / logical message was started in a unit of work
    last_logical_order: bool = False  # previous MQPUT on the handle used LOGICAL_ORDER
    # MSG_IN_GROUP/LAST_MSG_IN_GROUP of the open logical message: every segment must repeat it.
    msg_group_flags: int = 0


@dataclass(slots=True, frozen=True)
class PutPlan:
    """Outcome of an MQPUT. On MQCC_FAILED `cursor` is the unchanged old cursor."""

    group_id: bytes
    seq: int
    offset: int
    comp: int
    reason: int
    cursor: PutCursor
    msg_flags: int = 0  # MsgFlags as stored with the message (LAST_* imply the plain bit)

    @property
    def ok(self) -> bool:
        return self.comp != C.MQCC_FAILED


def _signed32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def flags_error(msg_flags: int) -> int | None:
    """MQRC_MSG_FLAGS_ERROR for flags the queue manager must reject.

    Unknown bits in the reject sub-field fail; the transmission-queue sub-field is only
    accepted on a transmission queue, which this product has none of; the accept
    sub-field is passed through untouched.
    """
    unknown = (msg_flags & 0xFFFFFFFF) & ~KNOWN_FLAGS
    if unknown & (C.MQMF_REJECT_UNSUP_MASK | C.MQMF_ACCEPT_UNSUP_IF_XMIT_MASK):
        return C.MQRC_MSG_FLAGS_ERROR
    return None


def _inconsistency(
    cursor: PutCursor,
    flags: int,
    group_id: bytes,
    seq: int,
    offset: int,
    persistence: int,
    in_uow: bool,
    logical_order: bool,
) -> int | None:
    """Reason why this put does not continue the open group / logical message, if so.

    With LOGICAL_ORDER the queue manager supplies the ids, so only the flags matter.
    Without it the app's ids must be exactly the next item for the put to count as a
    continuation (otherwise it abandons the group: Table 2's "not consistent" case).
    INCOMPLETE_MSG is checked first because it wins over INCOMPLETE_GROUP.
    """
    if cursor.msg_open:
        if not flags & SEGMENT_FLAGS or (flags & GROUP_FLAGS) != cursor.msg_group_flags:
            return C.MQRC_INCOMPLETE_MSG
        if not logical_order and (
            group_id != cursor.group_id
            or seq != cursor.seq
            or offset != cursor.offset + cursor.length
        ):
            return C.MQRC_INCOMPLETE_MSG
    elif cursor.group_open:
        if not flags & GROUP_FLAGS:
            return C.MQRC_INCOMPLETE_GROUP
        if not logical_order and (
            group_id != cursor.group_id or seq != cursor.seq + 1 or offset != 0
        ):
            return C.MQRC_INCOMPLETE_GROUP
    if persistence != cursor.persistence:
        return C.MQRC_INCONSISTENT_PERSISTENCE
    if in_uow != cursor.in_uow:
        return C.MQRC_INCONSISTENT_UOW
    return None


def plan_put(
    cursor: PutCursor,
    *,
    msg_flags: int,
    group_id: bytes,
    seq: int,
    offset: int,
    persistence: int,
    length: int,
    md_version: int,
    logical_order: bool,
    in_uow: bool,
    put1: bool = False,
    new_group_id: bytes,
    msg_type: int = C.MQMT_DATAGRAM,
    original_length: int = C.MQOL_UNDEFINED,
) -> PutPlan:
    """Apply MQPUT Table 1 (values used) and Table 2 (outcome when inconsistent).

    `persistence` must be resolved already (no MQPER_PERSISTENCE_AS_Q_DEF); `length` is
    the application data length of this put (before any queue-manager segmentation);
    `md_version` is 2 when an MQMDE came with a version-1 MQMD.
    """
    group_id = id24(group_id)

    def fail(reason: int) -> PutPlan:
        return PutPlan(group_id, seq, offset, C.MQCC_FAILED, reason, cursor, msg_flags)

    if put1 and logical_order:
        return fail(C.MQRC_OPTIONS_ERROR)  # LOGICAL_ORDER is not valid on MQPUT1
    if logical_order and md_version < C.MQMD_VERSION_2:
        return fail(C.MQRC_WRONG_MD_VERSION)

    if md_version < C.MQMD_VERSION_2:
        # Version-1 MQMD: GroupId, MsgSeqNumber, Offset and MsgFlags do not exist.
        flags, group_id, seq, offset = C.MQMF_NONE, C.MQGI_NONE, 1, 0
    else:
        reason = flags_error(msg_flags)
        if reason is not None:
            return fail(reason)
        flags = _signed32(normalise_flags(msg_flags & 0xFFFFFFFF))

    in_grp = bool(flags & GROUP_FLAGS)
    is_seg = bool(flags & SEGMENT_FLAGS)
    last_seg = bool(flags & C.MQMF_LAST_SEGMENT)
    seg_ok = bool(flags & C.MQMF_SEGMENTATION_ALLOWED)

    if is_seg and msg_type == C.MQMT_REPORT:
        # A report on a segment says how long the segment it reports on was; it may
        # carry no data (MQRO_EXPIRATION without data), even when it is not the last.
        if original_length < 0 or (not last_seg and length == 0 and original_length == 0):
            return fail(C.MQRC_ORIGINAL_LENGTH_ERROR)
    elif is_seg and not last_seg and length == 0:
        return fail(C.MQRC_SEGMENT_LENGTH_ZERO)  # only the last segment may be empty

    comp, reason = C.MQCC_OK, C.MQRC_NONE
    if not logical_order:
        # Table 1, rows without LOG ORD: the application's values.
        if not (in_grp or is_seg or seg_ok):
            new_gid, new_seq, new_off = C.MQGI_NONE, 1, 0
        else:
            if in_grp and not 1 <= seq <= MAX_SEQ:
                return fail(C.MQRC_MSG_SEQ_NUMBER_ERROR)
            if is_seg and not 0 <= offset <= MAX_OFFSET:
                return fail(C.MQRC_OFFSET_ERROR)
            new_gid = id24(new_group_id) if group_id == C.MQGI_NONE else group_id
            new_seq = seq if in_grp else 1
            new_off = offset if is_seg else 0
        if put1:
            # MQPUT1 has no handle: nothing to check against, nothing to keep.
            return PutPlan(new_gid, new_seq, new_off, comp, reason, cursor, flags)
        if cursor.group_open or cursor.msg_open:
            why = _inconsistency(
                cursor, flags, new_gid, new_seq, new_off, persistence, in_uow, False
            )
            if why is not None and cursor.last_logical_order:
                comp, reason = C.MQCC_WARNING, why  # Table 2: previous put used LOG ORD
        # Restart technique: a put without LOGICAL_ORDER replaces the handle's state.
        started_persistence, started_uow = persistence, in_uow
    else:
        continuing = cursor.group_open or cursor.msg_open
        if continuing:
            why = _inconsistency(cursor, flags, group_id, seq, offset, persistence, in_uow, True)
            if why is not None:
                return fail(why)  # Table 2: LOG ORD put is always FAILED
        # Table 1, rows with LOG ORD: the queue manager's values.
        if cursor.msg_open:
            new_gid, new_seq = cursor.group_id, cursor.seq
            new_off = cursor.offset + cursor.length
        elif cursor.group_open:
            new_gid, new_seq, new_off = cursor.group_id, cursor.seq + 1, 0
        elif in_grp or is_seg or seg_ok:
            new_gid, new_seq, new_off = id24(new_group_id), 1, 0
        else:
            new_gid, new_seq, new_off = C.MQGI_NONE, 1, 0
        if new_seq > MAX_SEQ:
            return fail(C.MQRC_MSG_SEQ_NUMBER_ERROR)
        if new_off > MAX_OFFSET:
            return fail(C.MQRC_OFFSET_ERROR)
        if continuing:
            started_persistence, started_uow = cursor.persistence, cursor.in_uow
        else:
            started_persistence, started_uow = persistence, in_uow

    msg_open = is_seg and not last_seg
    group_open = in_grp and (not flags & C.MQMF_LAST_MSG_IN_GROUP or msg_open)
    new_cursor = PutCursor(  # every field: cheaper than dataclasses.replace per put
        group_id=new_gid,
        seq=new_seq,
        offset=new_off,
        length=length,
        group_open=group_open,
        msg_open=msg_open,
        persistence=started_persistence,
        in_uow=started_uow,
        last_logical_order=logical_order,
        msg_group_flags=flags & GROUP_FLAGS,
    )
    return PutPlan(new_gid, new_seq, new_off, comp, reason, new_cursor, flags)


def close_outcome(cursor: PutCursor) -> tuple[int, int]:
    """MQCLOSE of a handle with an unterminated group or logical message (Table 2)."""
    if cursor.last_logical_order and (cursor.msg_open or cursor.group_open):
        reason = C.MQRC_INCOMPLETE_MSG if cursor.msg_open else C.MQRC_INCOMPLETE_GROUP
        return C.MQCC_WARNING, reason
    return C.MQCC_OK, C.MQRC_NONE
