"""MQGET selection: which messages a get or browse may return, and the handle's state.

The core chooses, the shell claims: `candidates` yields, in order, the items the call
may return; the shell tries to claim each (skipping expired ones) until one succeeds,
checks it with `check_item`, then keeps `advance(...)` as the handle's new cursor.

The shell keeps two cursors per handle, as MQ does: one for gets that remove messages
and one for browse. For MQGMO_MSG_UNDER_CURSOR it locates the item with the browse
cursor (`candidates(view, browse_cursor, req)`) and advances the get cursor.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, replace

from adapter.core import cmqc as C  # noqa: N812 (the project-wide alias)
from adapter.core.match import ALL_MATCH_OPTIONS, matches
from adapter.core.model import Item, flag_statuses, id24
from adapter.core.reassembly import reassembled_flags
from adapter.core.view import QueueView

_BROWSE = C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT
_UNDER_CURSOR = C.MQGMO_MSG_UNDER_CURSOR | C.MQGMO_BROWSE_MSG_UNDER_CURSOR
_ANY_BROWSE = _BROWSE | C.MQGMO_BROWSE_MSG_UNDER_CURSOR
_SYNC_CHOICES = (C.MQGMO_SYNCPOINT, C.MQGMO_NO_SYNCPOINT, C.MQGMO_SYNCPOINT_IF_PERSISTENT)
_CURSOR_CHOICES = (
    C.MQGMO_BROWSE_FIRST,
    C.MQGMO_BROWSE_NEXT,
    C.MQGMO_BROWSE_MSG_UNDER_CURSOR,
    C.MQGMO_MSG_UNDER_CURSOR,
)
# Every bit MQGET defines in MQGMO.Options (MQGMO Options page; the browse-handle and
# co-operative browse marks and the properties options have no effect here). Any other
# bit is MQRC_OPTIONS_ERROR ("Rules for validating MQI options", 2046's explanation).
VALID_GET_OPTIONS = (
    C.MQGMO_WAIT
    | C.MQGMO_SYNCPOINT
    | C.MQGMO_NO_SYNCPOINT
    | C.MQGMO_SET_SIGNAL
    | C.MQGMO_BROWSE_FIRST
    | C.MQGMO_BROWSE_NEXT
    | C.MQGMO_ACCEPT_TRUNCATED_MSG
    | C.MQGMO_MARK_SKIP_BACKOUT
    | C.MQGMO_MSG_UNDER_CURSOR
    | C.MQGMO_LOCK
    | C.MQGMO_UNLOCK
    | C.MQGMO_BROWSE_MSG_UNDER_CURSOR
    | C.MQGMO_SYNCPOINT_IF_PERSISTENT
    | C.MQGMO_FAIL_IF_QUIESCING
    | C.MQGMO_CONVERT
    | C.MQGMO_LOGICAL_ORDER
    | C.MQGMO_COMPLETE_MSG
    | C.MQGMO_ALL_MSGS_AVAILABLE
    | C.MQGMO_ALL_SEGMENTS_AVAILABLE
    | C.MQGMO_MARK_BROWSE_HANDLE
    | C.MQGMO_MARK_BROWSE_CO_OP
    | C.MQGMO_UNMARK_BROWSE_CO_OP
    | C.MQGMO_UNMARK_BROWSE_HANDLE
    | C.MQGMO_UNMARKED_BROWSE_MSG
    | C.MQGMO_PROPERTIES_FORCE_MQRFH2
    | C.MQGMO_NO_PROPERTIES
    | C.MQGMO_PROPERTIES_IN_HANDLE
    | C.MQGMO_PROPERTIES_COMPATIBILITY
)
_V2_MATCH_OPTIONS = C.MQMO_MATCH_GROUP_ID | C.MQMO_MATCH_MSG_SEQ_NUMBER | C.MQMO_MATCH_OFFSET


@dataclass(slots=True, frozen=True)
class GetCursor:
    """Group and segment information MQ keeps per handle for MQGET (one for removing
    gets, a separate one for browse), plus the browse position."""

    group_id: bytes = C.MQGI_NONE
    seq: int = 0
    offset: int = 0
    length: int = 0  # data length of the last item returned: the next segment's step
    group_open: bool = False
    msg_open: bool = False
    group_first_pos: tuple | None = None  # where the current group sits in logical order
    last_pos: tuple | None = None  # browse cursor: position of the last item browsed
    last_key: Hashable | None = None  # the item under the browse cursor
    last_logical_order: bool = False  # previous get on this cursor used LOGICAL_ORDER
    browse_logical: bool | None = None  # LOGICAL_ORDER of the browse sequence; None: none yet
    in_uow: bool = False  # the current group / logical message is being got in a UOW

    @property
    def current(self) -> bool:
        """There is a current group or logical message."""
        return self.group_open or self.msg_open

    def next_position(self) -> tuple[bytes, int, int] | None:
        """(GroupId, MsgSeqNumber, Offset) logical order must return next, if inside a
        group or logical message: the next segment, else the next message."""
        if self.msg_open:
            return (self.group_id, self.seq, self.offset + self.length)
        if self.group_open:
            return (self.group_id, self.seq + 1, 0)
        return None


_FRESH = GetCursor()


@dataclass(slots=True, frozen=True)
class GetRequest:
    """The inputs of one MQGET: GMO options and match options, and the MQMD selectors.

    With a version-1 GMO, MQ ignores MatchOptions and matches on MsgId and CorrelId;
    with a version-1 MQMD the GroupId, MsgSeqNumber and Offset selectors do not exist.
    `match` applies both rules, so callers may pass the structures' versions as-is.
    """

    options: int = C.MQGMO_NO_WAIT
    match_options: int = C.MQMO_MATCH_MSG_ID | C.MQMO_MATCH_CORREL_ID
    msg_id: bytes = C.MQMI_NONE
    correl_id: bytes = C.MQCI_NONE
    group_id: bytes = C.MQGI_NONE
    seq: int = 1
    offset: int = 0
    gmo_version: int = C.MQGMO_VERSION_2
    md_version: int = C.MQMD_VERSION_2
    msg_handle: bool = False  # GMO.MsgHandle given (version 4): where properties may go
    # The MQMD's CodedCharSetId and Encoding on input: what MQGMO_CONVERT converts to.
    ccsid: int = C.MQCCSI_Q_MGR
    encoding: int = C.MQENC_NATIVE

    @property
    def match(self) -> int:
        if self.gmo_version < C.MQGMO_VERSION_2:
            return C.MQMO_MATCH_MSG_ID | C.MQMO_MATCH_CORREL_ID
        if self.md_version < C.MQMD_VERSION_2:
            return self.match_options & ~_V2_MATCH_OPTIONS
        return self.match_options

    @property
    def in_physical_order(self) -> bool:
        """The get takes the next message in physical order: no logical order, no
        message under a cursor, no MsgId/CorrelId/GroupId/MsgSeqNumber/Offset matching
        (the read-ahead buffer serves such gets; a selector's rejected run is skipped)."""
        return not self.logical and self._unmatched

    @property
    def in_plain_logical_order(self) -> bool:
        """LOGICAL_ORDER with nothing to match and no message under a cursor: the next
        message of the current group or logical message, else the first of the next
        (what logical_run looks ahead at)."""
        return self.logical and self._unmatched

    @property
    def _unmatched(self) -> bool:
        mo = self.match
        return (
            not self.under_cursor
            and not (mo & C.MQMO_MATCH_MSG_ID and self.msg_id != C.MQMI_NONE)
            and not (mo & C.MQMO_MATCH_CORREL_ID and self.correl_id != C.MQCI_NONE)
            and not mo & _V2_MATCH_OPTIONS
        )

    @property
    def logical(self) -> bool:
        return bool(self.options & C.MQGMO_LOGICAL_ORDER)

    @property
    def browse(self) -> bool:
        """BROWSE_FIRST or BROWSE_NEXT: moves the browse cursor."""
        return bool(self.options & _BROWSE)

    @property
    def under_cursor(self) -> bool:
        return bool(self.options & _UNDER_CURSOR)

    @property
    def removes(self) -> bool:
        """The call removes the message (no browse option)."""
        return not self.options & _ANY_BROWSE

    @property
    def complete_msg(self) -> bool:
        return bool(self.options & C.MQGMO_COMPLETE_MSG)


def _effective(cursor: GetCursor, req: GetRequest) -> GetCursor:
    """The state the call runs against: BROWSE_FIRST scans as though there were no
    current group; a browse cursor never used sits before the first message."""
    if req.options & C.MQGMO_BROWSE_FIRST:
        return _FRESH
    if req.options & C.MQGMO_BROWSE_NEXT and cursor.browse_logical is None:
        return _FRESH
    return cursor


def get_in_uow(req: GetRequest, item: Item) -> bool:
    """Whether removing `item` with these options happens inside a unit of work.
    (Neither SYNCPOINT option: outside, the Multiplatforms default.)"""
    if not req.removes:
        return False
    if req.options & C.MQGMO_SYNCPOINT:
        return True
    if req.options & C.MQGMO_SYNCPOINT_IF_PERSISTENT:
        return item.persistence == C.MQPER_PERSISTENT
    return False


# -- checks before selection ---------------------------------------------------------


def _options_error(options: int) -> bool:
    """The MQGET rows of IBM's "Rules for validating MQI options"."""
    if options & ~VALID_GET_OPTIONS:
        return True
    if sum(1 for o in _SYNC_CHOICES if options & o) > 1:
        return True
    if sum(1 for o in _CURSOR_CHOICES if options & o) > 1:
        return True
    browse = options & _ANY_BROWSE
    if options & C.MQGMO_SYNCPOINT and (browse or options & (C.MQGMO_LOCK | C.MQGMO_UNLOCK)):
        return True
    if options & C.MQGMO_SYNCPOINT_IF_PERSISTENT and (
        browse or options & (C.MQGMO_COMPLETE_MSG | C.MQGMO_UNLOCK)
    ):
        return True
    if options & C.MQGMO_MARK_SKIP_BACKOUT and not options & C.MQGMO_SYNCPOINT:
        return True
    if options & C.MQGMO_WAIT and options & C.MQGMO_SET_SIGNAL:
        return True
    if options & C.MQGMO_LOCK and not browse:
        return True
    return bool(
        options & C.MQGMO_UNLOCK
        and options & ~(C.MQGMO_UNLOCK | C.MQGMO_NO_SYNCPOINT | C.MQGMO_NO_WAIT)
    )


def check_request(cursor: GetCursor, req: GetRequest) -> tuple[int, int] | None:
    """Errors decided before any message is looked at: (MQCC_FAILED, reason) or None.

    `cursor` is the browse cursor for browse calls, the get cursor otherwise.
    """

    def fail(reason: int) -> tuple[int, int]:
        return C.MQCC_FAILED, reason

    if _options_error(req.options):
        return fail(C.MQRC_OPTIONS_ERROR)
    if req.options & C.MQGMO_PROPERTIES_IN_HANDLE and not req.msg_handle:
        # "If no message handle is provided the call fails with reason MQRC_HMSG_ERROR."
        return fail(C.MQRC_HMSG_ERROR)
    if req.logical:
        if req.gmo_version < C.MQGMO_VERSION_2:
            return fail(C.MQRC_WRONG_GMO_VERSION)
        if req.md_version < C.MQMD_VERSION_2:
            return fail(C.MQRC_WRONG_MD_VERSION)
    if req.gmo_version >= C.MQGMO_VERSION_2 and req.match_options & ~ALL_MATCH_OPTIONS:
        return fail(C.MQRC_MATCH_OPTIONS_ERROR)  # undefined match option
    if (
        req.options & C.MQGMO_BROWSE_NEXT
        and cursor.browse_logical is not None
        and req.logical != cursor.browse_logical
    ):
        return fail(C.MQRC_INCONSISTENT_BROWSE)
    if req.logical and not req.under_cursor:
        # The selectors that cannot change the choice are known from the cursor alone.
        mo, nxt = req.match, _effective(cursor, req).next_position()
        if nxt is None:
            want_gid, want_seq, want_off = None, 1, 0
        else:
            want_gid, want_seq, want_off = nxt
        if (
            want_gid is not None
            and mo & C.MQMO_MATCH_GROUP_ID
            and id24(req.group_id) not in (C.MQGI_NONE, want_gid)
        ):
            return fail(C.MQRC_MATCH_OPTIONS_ERROR)
        if mo & C.MQMO_MATCH_MSG_SEQ_NUMBER and req.seq != want_seq:
            return fail(C.MQRC_MATCH_OPTIONS_ERROR)
        if mo & C.MQMO_MATCH_OFFSET and req.offset != want_off:
            return fail(C.MQRC_MATCH_OPTIONS_ERROR)
    return None


# -- selection ---------------------------------------------------------------------


def _logical_complete(view: QueueView, item: Item) -> bool:
    return not item.is_segment or view.message_complete(item.group_id, item.seq)


def _group_complete(view: QueueView, item: Item) -> bool:
    if item.in_group:
        return view.group_complete(item.group_id)
    return _logical_complete(view, item)  # not in a group: a group of one


def _rest_complete(view: QueueView, item: Item) -> bool:
    """The segments from `item` to the end of its logical message are all present."""
    return bool(complete_message(view, item))


def candidates(
    view: QueueView,
    cursor: GetCursor,
    req: GetRequest,
    selects: Callable[[Item], bool] | None = None,
    start_after: tuple | None = None,
) -> Iterator[Item]:
    """The items this MQGET may return, best first. Run `check_request` first.

    `selects` is the handle's message selector (MQOD SelectionString): it decides where
    a message, a group or a logical message starts, as the match options do; the rest
    of a group or logical message under way follows in logical order, and the message
    under the browse cursor was selected when the browse found it. `start_after`: a
    position before which a destructive get in physical order need not look (every
    message there is one the selector rejected)."""
    if req.under_cursor:
        # MatchOptions are ignored; the item is the one the browse cursor is on.
        item = view.get(cursor.last_key) if cursor.last_key is not None else None
        if item is not None:
            yield item
        return
    state = _effective(cursor, req)
    opts = req.options
    all_msgs = bool(opts & C.MQGMO_ALL_MSGS_AVAILABLE)
    all_segs = bool(opts & (C.MQGMO_ALL_SEGMENTS_AVAILABLE | C.MQGMO_COMPLETE_MSG))
    mo = req.match

    if req.logical:
        nxt = state.next_position()
        if nxt is not None:
            # Only the next item of the current group / logical message; match options
            # cannot change that (check_item reports a mismatch). ALL_MSGS_AVAILABLE is
            # ignored inside a group, ALL_SEGMENTS_AVAILABLE inside a logical message.
            for item in view.items_at(*nxt):
                if state.msg_open:
                    if not item.is_segment:
                        continue
                    if req.complete_msg and not _rest_complete(view, item):
                        continue
                elif not item.in_group or (all_segs and not _logical_complete(view, item)):
                    continue
                yield item
            return
        # No current group: only first items, in physical order; a browse continues
        # after the group it was in (logically, its first item's position).
        after = state.group_first_pos if req.browse else None
        for item in view.first_items(after):
            if not matches(
                item,
                mo & ~(C.MQMO_MATCH_MSG_SEQ_NUMBER | C.MQMO_MATCH_OFFSET),
                req.msg_id,
                req.correl_id,
                req.group_id,
            ):
                continue
            if selects is not None and not selects(item):
                continue
            if all_msgs and not _group_complete(view, item):
                continue
            if all_segs and not _logical_complete(view, item):
                continue
            yield item
        return

    after = state.last_pos if req.browse else start_after
    for item in view.iter_after(after):
        if not matches(item, mo, req.msg_id, req.correl_id, req.group_id, req.seq, req.offset):
            continue
        if selects is not None and not selects(item):
            continue
        if req.complete_msg and item.offset != 0:
            continue  # a reassembled message is returned from its first segment
        if all_msgs and not _group_complete(view, item):
            continue
        if all_segs and not _logical_complete(view, item):
            continue
        yield item


def logical_run(
    view: QueueView,
    cursor: GetCursor,
    req: GetRequest,
    first: Item,
    n: int,
    selects: Callable[[Item], bool] | None = None,
) -> list[Item]:
    """`first` and the items the next gets with the same request would take after it,
    in logical order, as the view stands (at most n in all): the rest of its group
    member by member, then the next group's. A destructive get in logical order takes
    exactly the next one, so a get lease may lock these ahead (shim/getlease.py) but
    hand out only the first candidate of each get."""
    run = [first]
    taken = {first.key}
    cur = advance(cursor, first, req)
    while len(run) < n:
        nxt = next((i for i in candidates(view, cur, req, selects) if i.key not in taken), None)
        if nxt is None or check_item(nxt, cur, req) is not None:
            break
        run.append(nxt)
        taken.add(nxt.key)
        cur = advance(cur, nxt, req)
    return run


def complete_message(view: QueueView, item: Item) -> list[Item]:
    """The segments that make up the logical message from `item` on, in Offset order:
    [item] for a message that is not a segment, [] if some segment is missing."""
    if not item.is_segment or item.last_segment:
        return [item]
    rest = view.segment_chain(item.group_id, item.seq, item.offset + item.length)
    return [item, *rest] if rest else []


# -- checks on the chosen item -------------------------------------------------------


def check_match(item: Item, cursor: GetCursor, req: GetRequest) -> int | None:
    """MQRC_MATCH_OPTIONS_ERROR when LOGICAL_ORDER leaves no choice (or allows only
    first items) and a selector the choice ignores differs from the item's value."""
    if not req.logical or req.under_cursor:
        return None
    mo = req.match
    if _effective(cursor, req).current:
        mismatch = not matches(
            item, mo, req.msg_id, req.correl_id, req.group_id, req.seq, req.offset
        )
    else:
        mismatch = (mo & C.MQMO_MATCH_MSG_SEQ_NUMBER and item.seq != req.seq) or (
            mo & C.MQMO_MATCH_OFFSET and item.offset != req.offset
        )
    return C.MQRC_MATCH_OPTIONS_ERROR if mismatch else None


def check_uow(item: Item, cursor: GetCursor, req: GetRequest) -> tuple[int, int] | None:
    """MQRC_INCONSISTENT_UOW (FAILED) for a logical-order removal that continues a group
    or logical message begun with the other syncpoint setting."""
    if req.logical and req.removes and cursor.current and get_in_uow(req, item) != cursor.in_uow:
        return C.MQCC_FAILED, C.MQRC_INCONSISTENT_UOW
    return None


def check_item(item: Item, cursor: GetCursor, req: GetRequest) -> tuple[int, int] | None:
    """All failures that depend on the chosen item: 2246, 2247, 2245."""
    if req.complete_msg and req.under_cursor and item.offset > 0:
        return C.MQCC_FAILED, C.MQRC_INVALID_MSG_UNDER_CURSOR
    reason = check_match(item, cursor, req)
    if reason is not None:
        return C.MQCC_FAILED, reason
    return check_uow(item, cursor, req)


def get_warning(
    cursor: GetCursor, req: GetRequest, item: Item | None = None
) -> tuple[int, int] | None:
    """Table 2 for MQGET: a removing get without LOGICAL_ORDER after one with it, while
    a group / logical message is unterminated, completes with MQCC_WARNING.

    Given the item returned, a get that happens to be exactly the next item is
    consistent and only its syncpoint setting is checked. Browse is never checked.
    """
    if req.logical or not req.removes or not cursor.last_logical_order or not cursor.current:
        return None
    if item is not None and (item.group_id, item.seq, item.offset) == cursor.next_position():
        if get_in_uow(req, item) != cursor.in_uow:
            return C.MQCC_WARNING, C.MQRC_INCONSISTENT_UOW
        return None
    return C.MQCC_WARNING, C.MQRC_INCOMPLETE_MSG if cursor.msg_open else C.MQRC_INCOMPLETE_GROUP


# -- state after a successful call ---------------------------------------------------


def advance(cursor: GetCursor, item: Item, req: GetRequest) -> GetCursor:
    """The cursor after `item` was returned by this call.

    Every successful get sets the group state from the item returned; without
    LOGICAL_ORDER that is what lets an application restart a group in the middle (get
    by GroupId + MsgSeqNumber, then continue with LOGICAL_ORDER). With COMPLETE_MSG the
    whole logical message was returned, so no logical message stays open.
    """
    if req.options & C.MQGMO_BROWSE_MSG_UNDER_CURSOR:
        return cursor  # re-reads the message under the cursor; nothing moves
    state = _effective(cursor, req)
    continuing = req.logical and state.current
    msg_open = item.is_segment and not item.last_segment and not req.complete_msg
    group_open = item.in_group and (not item.last_in_group or msg_open)
    browse_logical = req.logical if req.browse else cursor.browse_logical
    return replace(
        cursor,
        group_id=item.group_id,
        seq=item.seq,
        offset=item.offset,
        length=item.length,
        group_open=group_open,
        msg_open=msg_open,
        group_first_pos=state.group_first_pos if continuing else item.pos,
        last_pos=item.pos,
        last_key=item.key,
        last_logical_order=req.logical,
        browse_logical=browse_logical,
        in_uow=state.in_uow if continuing else get_in_uow(req, item),
    )


def no_message(cursor: GetCursor, req: GetRequest) -> GetCursor:
    """The cursor after a call that found nothing (MQRC_NO_MSG_AVAILABLE).

    The browse cursor stays where it is, except that BROWSE_FIRST has reset it to
    before the first message and started a browse sequence in its own order.
    """
    if req.options & C.MQGMO_BROWSE_FIRST:
        return replace(_FRESH, browse_logical=req.logical)
    return cursor


def close_outcome(cursor: GetCursor) -> tuple[int, int]:
    """MQCLOSE with an unterminated group or logical message on the get cursor. (A
    handle opened for browse only is not checked: pass a fresh cursor.)"""
    if cursor.last_logical_order and cursor.current:
        return C.MQCC_WARNING, C.MQRC_INCOMPLETE_MSG if cursor.msg_open else C.MQRC_INCOMPLETE_GROUP
    return C.MQCC_OK, C.MQRC_NONE


def returned_flags(item: Item, req: GetRequest) -> int:
    """MsgFlags in the MQMD returned: reassembled with COMPLETE_MSG, else as stored."""
    return reassembled_flags(item.flags) if req.complete_msg else item.flags


def gmo_status(item: Item, req: GetRequest) -> tuple[int, int, int]:
    """(GroupStatus, SegmentStatus, Segmentation) for the GMO of a successful get."""
    return flag_statuses(returned_flags(item, req))
