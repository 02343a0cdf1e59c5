"""MQGET selection: logical and physical order, browse, availability options, match
options and the group state a handle keeps."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapter.core import cmqc as C  # noqa: N812
from adapter.core.getrules import (
    GetCursor,
    GetRequest,
    advance,
    candidates,
    check_item,
    check_match,
    check_request,
    check_uow,
    close_outcome,
    complete_message,
    get_warning,
    gmo_status,
    no_message,
    returned_flags,
)
from adapter.core.model import Item, group_status, id24, segment_status
from adapter.core.putrules import PutCursor, plan_put
from adapter.core.reassembly import GroupAssembler
from adapter.core.segmentation import segment_message
from adapter.core.view import QueueView

MIG = C.MQMF_MSG_IN_GROUP
LMIG = C.MQMF_LAST_MSG_IN_GROUP | C.MQMF_MSG_IN_GROUP
SEG = C.MQMF_SEGMENT
LSEG = C.MQMF_LAST_SEGMENT | C.MQMF_SEGMENT
LO = C.MQGMO_LOGICAL_ORDER
ANY = C.MQMO_NONE


def gid(name: str) -> bytes:
    return name.encode().ljust(24, b"\x00")


def mk(
    key: str,
    pos: int,
    group: str | None = None,
    seq: int = 1,
    offset: int = 0,
    flags: int = 0,
    length: int = 10,
    correl: bytes = b"",
    persistence: int = C.MQPER_NOT_PERSISTENT,
) -> Item:
    return Item(
        key=key,
        pos=(pos,),
        priority=0,
        msg_id=id24(key.encode()),
        correl_id=id24(correl),
        group_id=gid(group) if group else C.MQGI_NONE,
        seq=seq,
        offset=offset,
        flags=flags,
        length=length,
        persistence=persistence,
        put_ms=0,
        expiry=C.MQEI_UNLIMITED,
    )


def spec_example() -> list[Item]:
    """Figure 2 of "Logical and physical ordering": the physical order on the queue."""
    return [
        mk("A", 1),
        mk("Y1", 2, "Y", 1, flags=MIG),
        mk("Z2", 3, "Z", 2, flags=LMIG),
        mk("Y2", 4, "Y", 2, flags=MIG),
        mk("Y3s1", 5, "Y", 3, 0, flags=LMIG | SEG),
        mk("Y3s2", 6, "Y", 3, 10, flags=LMIG | LSEG),
        mk("Z1", 7, "Z", 1, flags=MIG),
        mk("B", 8),
    ]


def view_of(items) -> QueueView:
    view = QueueView()
    for item in items:
        view.add(item)
    return view


def req(options: int = 0, match: int = ANY, **kw) -> GetRequest:
    return GetRequest(options=options, match_options=match, **kw)


def get(view: QueueView, cursor: GetCursor, request: GetRequest):
    """One destructive MQGET as the shell would do it: (item or None, new cursor)."""
    assert check_request(cursor, request) is None
    for item in candidates(view, cursor, request):
        assert check_item(item, cursor, request) is None
        view.discard(item.key)
        return item, advance(cursor, item, request)
    return None, cursor


def drain(view: QueueView, request: GetRequest, cursor: GetCursor | None = None) -> list[str]:
    cursor = cursor or GetCursor()
    out = []
    while True:
        item, cursor = get(view, cursor, request)
        if item is None:
            return out
        out.append(item.key)


def browse_all(view: QueueView, logical: bool) -> list[str]:
    cursor, out = GetCursor(), []
    options = C.MQGMO_BROWSE_FIRST | (LO if logical else 0)
    while True:
        request = req(options)
        assert check_request(cursor, request) is None
        item = next(candidates(view, cursor, request), None)
        if item is None:
            return out
        out.append(item.key)
        cursor = advance(cursor, item, request)
        options = C.MQGMO_BROWSE_NEXT | (LO if logical else 0)


# -- logical and physical order ---------------------------------------------------


def test_spec_example_logical_order():
    view = view_of(spec_example())
    assert drain(view, req(LO)) == ["A", "Y1", "Y2", "Y3s1", "Y3s2", "Z1", "Z2", "B"]
    assert len(view) == 0


def test_spec_example_physical_order():
    view = view_of(spec_example())
    assert drain(view, req()) == ["A", "Y1", "Z2", "Y2", "Y3s1", "Y3s2", "Z1", "B"]


def test_group_whose_first_item_is_absent_is_not_entered():
    view = view_of([mk("A", 1), mk("Z2", 3, "Z", 2, flags=LMIG), mk("B", 8)])
    assert drain(view, req(LO)) == ["A", "B"]
    view.add(mk("Z1", 9, "Z", 1, flags=MIG))  # the first item arrives: now it can start
    assert drain(view, req(LO)) == ["Z1", "Z2"]


def test_inside_a_group_the_next_item_is_the_only_choice():
    view = view_of([mk("Y1", 1, "Y", 1, flags=MIG), mk("B", 2)])
    item, cursor = get(view, GetCursor(), req(LO))
    assert item.key == "Y1" and cursor.group_open
    # Y2 has not arrived: B is physically available but not eligible.
    assert list(candidates(view, cursor, req(LO))) == []
    view.add(mk("Y2", 3, "Y", 2, flags=LMIG))
    assert drain(view, req(LO), cursor) == ["Y2", "B"]


def test_browse_inside_group_continues_after_first_item_removed():
    view = view_of(spec_example())
    request = req(C.MQGMO_BROWSE_FIRST | LO)
    cursor = advance(GetCursor(), next(candidates(view, GetCursor(), request)), request)
    request = req(C.MQGMO_BROWSE_NEXT | LO)
    cursor = advance(cursor, next(candidates(view, cursor, request)), request)
    assert cursor.last_key == "Y1" and cursor.group_open
    view.discard("Y1")  # someone else removes the group's first item
    seen = []
    while (item := next(candidates(view, cursor, request), None)) is not None:
        seen.append(item.key)
        cursor = advance(cursor, item, request)
    assert seen == ["Y2", "Y3s1", "Y3s2", "Z1", "Z2", "B"]


def test_restart_pattern_get_by_group_and_sequence_then_logical_order():
    g = [mk(f"G{n}", n, "G", n, flags=LMIG if n == 4 else MIG) for n in range(1, 5)]
    view = view_of([*g, mk("B", 5)])
    restart = req(
        C.MQGMO_SYNCPOINT,
        C.MQMO_MATCH_GROUP_ID | C.MQMO_MATCH_MSG_SEQ_NUMBER,
        group_id=gid("G"),
        seq=3,
    )
    item, cursor = get(view, GetCursor(), restart)
    assert item.key == "G3" and cursor.group_open and cursor.in_uow
    assert get_warning(GetCursor(), restart, item) is None
    # G4 ends the group. G1 is still on the queue, so logical order starts G again and,
    # G3 being gone, then waits inside it: B stays behind the unfinished group.
    assert drain(view, req(LO | C.MQGMO_SYNCPOINT), cursor) == ["G4", "G1", "G2"]


def test_restart_pattern_with_complete_msg():
    items = [
        mk("G1", 1, "G", 1, flags=MIG),
        mk("G2a", 2, "G", 2, 0, flags=MIG | SEG),
        mk("G2b", 3, "G", 2, 10, flags=MIG | LSEG),
        mk("G3", 4, "G", 3, flags=LMIG),
    ]
    view = view_of(items)
    restart = req(
        C.MQGMO_COMPLETE_MSG | C.MQGMO_SYNCPOINT,
        C.MQMO_MATCH_GROUP_ID | C.MQMO_MATCH_MSG_SEQ_NUMBER,
        group_id=gid("G"),
        seq=2,
    )
    item = next(candidates(view, GetCursor(), restart))
    assert [i.key for i in complete_message(view, item)] == ["G2a", "G2b"]
    cursor = advance(GetCursor(), item, restart)
    assert cursor.group_open and not cursor.msg_open
    nxt = next(candidates(view, cursor, req(LO | C.MQGMO_COMPLETE_MSG | C.MQGMO_SYNCPOINT)))
    assert nxt.key == "G3"


def test_logical_order_across_priorities_keeps_group_together():
    # pos = (-priority, arrival): a high-priority single message jumps ahead of groups,
    # but never into the middle of a group already being retrieved.
    view = QueueView()
    view.add(mk("Y1", 1, "Y", 1, flags=MIG))
    view.add(mk("Y2", 2, "Y", 2, flags=LMIG))
    item, cursor = get(view, GetCursor(), req(LO))
    urgent = mk("HI", 3)
    urgent.pos = (-9, 3)
    view.add(urgent)
    assert drain(view, req(LO), cursor) == ["Y2", "HI"]


# -- browse -------------------------------------------------------------------------


def test_browse_physical_and_logical():
    view = view_of(spec_example())
    assert browse_all(view, logical=False) == ["A", "Y1", "Z2", "Y2", "Y3s1", "Y3s2", "Z1", "B"]
    assert browse_all(view, logical=True) == ["A", "Y1", "Y2", "Y3s1", "Y3s2", "Z1", "Z2", "B"]
    assert len(view) == 8  # browse removes nothing


def test_browse_next_on_fresh_cursor_starts_at_first_message_and_sees_new_arrivals():
    view = view_of([mk("A", 1)])
    request = req(C.MQGMO_BROWSE_NEXT)
    cursor = advance(GetCursor(), next(candidates(view, GetCursor(), request)), request)
    assert cursor.last_key == "A"
    assert list(candidates(view, cursor, request)) == []  # end of queue; cursor stays
    view.add(mk("B", 2))
    assert [i.key for i in candidates(view, cursor, request)] == ["B"]


def test_browse_first_resets_cursor():
    view = view_of(spec_example())
    cursor = GetCursor(group_id=gid("Y"), seq=1, group_open=True, browse_logical=True)
    first = next(candidates(view, cursor, req(C.MQGMO_BROWSE_FIRST | LO)))
    assert first.key == "A"


@pytest.mark.parametrize("first_lo,next_lo", [(True, False), (False, True)])
def test_inconsistent_browse(first_lo, next_lo):
    view = view_of(spec_example())
    start = req(C.MQGMO_BROWSE_FIRST | (LO if first_lo else 0))
    cursor = advance(GetCursor(), next(candidates(view, GetCursor(), start)), start)
    bad = req(C.MQGMO_BROWSE_NEXT | (LO if next_lo else 0))
    assert check_request(cursor, bad) == (C.MQCC_FAILED, C.MQRC_INCONSISTENT_BROWSE)
    same = req(C.MQGMO_BROWSE_NEXT | (LO if first_lo else 0))
    assert check_request(cursor, same) is None
    switch = req(C.MQGMO_BROWSE_FIRST | (LO if next_lo else 0))  # a new scan may switch
    assert check_request(cursor, switch) is None


def test_browse_first_that_finds_nothing_still_sets_the_scan_order():
    cursor = no_message(GetCursor(), req(C.MQGMO_BROWSE_FIRST | LO))
    assert cursor.browse_logical is True
    assert check_request(cursor, req(C.MQGMO_BROWSE_NEXT))[1] == C.MQRC_INCONSISTENT_BROWSE


def test_browse_and_get_cursors_are_separate():
    view = view_of(spec_example())
    browse = req(C.MQGMO_BROWSE_FIRST | LO)
    browse_cursor = GetCursor()
    for _ in range(3):
        item = next(candidates(view, browse_cursor, browse))
        browse_cursor = advance(browse_cursor, item, browse)
        browse = req(C.MQGMO_BROWSE_NEXT | LO)
    assert browse_cursor.last_key == "Y2"
    assert drain(view, req(LO))[:2] == ["A", "Y1"]  # the get cursor starts from the top


def test_msg_under_cursor():
    view = view_of(spec_example())
    browse = req(C.MQGMO_BROWSE_FIRST)
    cursor = advance(GetCursor(), next(candidates(view, GetCursor(), browse)), browse)
    under = req(C.MQGMO_MSG_UNDER_CURSOR, C.MQMO_MATCH_MSG_ID, msg_id=b"nothing")
    assert [i.key for i in candidates(view, cursor, under)] == ["A"]  # MatchOptions ignored
    reread = req(C.MQGMO_BROWSE_MSG_UNDER_CURSOR)
    assert advance(cursor, view.get("A"), reread) == cursor
    view.discard("A")
    assert list(candidates(view, cursor, under)) == []


def test_complete_msg_under_cursor_on_later_segment():
    view = view_of(spec_example())
    cursor = GetCursor(last_key="Y3s2", last_pos=(6,), browse_logical=False)
    request = req(C.MQGMO_MSG_UNDER_CURSOR | C.MQGMO_COMPLETE_MSG)
    item = next(candidates(view, cursor, request))
    assert check_item(item, cursor, request) == (C.MQCC_FAILED, C.MQRC_INVALID_MSG_UNDER_CURSOR)


# -- availability options -----------------------------------------------------------


def incomplete_y() -> list[Item]:
    return [i for i in spec_example() if i.key != "Y2"]


def test_all_msgs_available_skips_incomplete_groups():
    view = view_of(incomplete_y())
    assert drain(view, req(LO | C.MQGMO_ALL_MSGS_AVAILABLE)) == ["A", "Z1", "Z2", "B"]
    assert sorted(i.key for i in view) == ["Y1", "Y3s1", "Y3s2"]


def test_all_msgs_available_physical_order():
    view = view_of(incomplete_y())
    # Z is complete, so Z2 may go first; after that Z is incomplete and Z1 is not eligible.
    assert drain(view, req(C.MQGMO_ALL_MSGS_AVAILABLE)) == ["A", "Z2", "B"]
    assert "Z1" in view


def test_all_msgs_available_ignored_inside_group():
    view = view_of(spec_example())
    request = req(LO | C.MQGMO_ALL_MSGS_AVAILABLE)
    item, cursor = get(view, GetCursor(), req(LO))
    item, cursor = get(view, cursor, request)
    assert item.key == "Y1"
    # Y is no longer complete (Y1 is gone), but inside the group the option is ignored...
    assert [i.key for i in candidates(view, cursor, request)] == ["Y2"]
    # ...whereas without LOGICAL_ORDER it always applies, so it must be turned off.
    physical = req(C.MQGMO_ALL_MSGS_AVAILABLE)
    assert "Y2" not in [i.key for i in candidates(view, GetCursor(), physical)]


def test_all_segments_available():
    view = view_of([i for i in spec_example() if i.key != "Y3s2"])
    physical = [i.key for i in candidates(view, GetCursor(), req(C.MQGMO_ALL_SEGMENTS_AVAILABLE))]
    assert physical == ["A", "Y1", "Z2", "Y2", "Z1", "B"]
    # Logical: Y3 is incomplete, so the group stalls before it.
    got = drain(view, req(LO | C.MQGMO_ALL_SEGMENTS_AVAILABLE))
    assert got == ["A", "Y1", "Y2"]


def test_all_segments_available_ignored_inside_logical_message():
    view = view_of(spec_example())
    cursor = GetCursor(
        group_id=gid("Y"), seq=3, offset=0, length=10, group_open=True, msg_open=True
    )
    view.discard("Y3s1")
    request = req(LO | C.MQGMO_ALL_SEGMENTS_AVAILABLE)
    assert [i.key for i in candidates(view, cursor, request)] == ["Y3s2"]


def test_complete_msg_returns_first_segments_of_complete_messages_only():
    items = [*spec_example(), mk("Ks1", 9, "K", 1, 0, flags=SEG, length=16)]
    view = view_of(items)  # K is a segmented message (not in a group) missing its end
    request = req(C.MQGMO_COMPLETE_MSG)
    keys = [i.key for i in candidates(view, GetCursor(), request)]
    assert keys == ["A", "Y1", "Z2", "Y2", "Y3s1", "Z1", "B"]
    y3 = view.get("Y3s1")
    assert [i.key for i in complete_message(view, y3)] == ["Y3s1", "Y3s2"]
    assert complete_message(view, view.get("Ks1")) == []
    assert complete_message(view, view.get("A")) == [view.get("A")]
    view.add(mk("Ks2", 10, "K", 1, 16, flags=LSEG, length=3))
    assert "Ks1" in [i.key for i in candidates(view, GetCursor(), request)]


def test_complete_msg_logical_order_and_status():
    view = view_of(spec_example())
    request = req(LO | C.MQGMO_COMPLETE_MSG)
    cursor, got = GetCursor(), []
    while (item := next(candidates(view, cursor, request), None)) is not None:
        parts = complete_message(view, item)
        got.append([p.key for p in parts])
        for p in parts:
            view.discard(p.key)
        if item.key == "Y3s1":
            assert returned_flags(item, request) == LMIG | LSEG
            assert gmo_status(item, request) == (
                C.MQGS_LAST_MSG_IN_GROUP,
                C.MQSS_LAST_SEGMENT,
                C.MQSEG_INHIBITED,
            )
        cursor = advance(cursor, item, request)
    assert got == [["A"], ["Y1"], ["Y2"], ["Y3s1", "Y3s2"], ["Z1"], ["Z2"], ["B"]]
    assert not cursor.current


def test_duplicates_do_not_break_selection_or_completeness():
    items = spec_example()
    dup = mk("Y2dup", 20, "Y", 2, flags=MIG)
    view = view_of([*items, dup])
    assert view.group_complete(gid("Y"))
    item, cursor = get(view, GetCursor(), req(LO))
    item, cursor = get(view, cursor, req(LO))
    assert [i.key for i in candidates(view, cursor, req(LO))] == ["Y2", "Y2dup"]


# -- match options --------------------------------------------------------------------


def test_physical_match_options():
    items = spec_example()
    items[3] = mk("Y2", 4, "Y", 2, flags=MIG, correl=b"corr")
    view = view_of(items)

    def keys(**kw):
        return [i.key for i in candidates(view, GetCursor(), req(**kw))]

    assert keys(match=C.MQMO_MATCH_CORREL_ID, correl_id=b"corr") == ["Y2"]
    assert keys(match=C.MQMO_MATCH_MSG_ID, msg_id=b"Z1") == ["Z1"]
    assert keys(match=C.MQMO_MATCH_MSG_ID | C.MQMO_MATCH_CORREL_ID) == [i.key for i in items]
    assert keys(
        match=C.MQMO_MATCH_GROUP_ID | C.MQMO_MATCH_MSG_SEQ_NUMBER, group_id=gid("Z"), seq=2
    ) == ["Z2"]
    assert keys(
        match=C.MQMO_MATCH_GROUP_ID | C.MQMO_MATCH_OFFSET, group_id=gid("Y"), offset=10
    ) == ["Y3s2"]


def test_gmo_version_1_matches_on_msg_id_and_correl_id_only():
    view = view_of(spec_example())
    v1 = req(match=C.MQMO_MATCH_GROUP_ID, group_id=gid("Z"), msg_id=b"Y2", gmo_version=1)
    assert [i.key for i in candidates(view, GetCursor(), v1)] == ["Y2"]


def test_logical_order_without_current_group_selects_among_first_items():
    items = spec_example()
    items[3] = mk("Y2", 4, "Y", 2, flags=MIG, correl=b"c")
    items[6] = mk("Z1", 7, "Z", 1, flags=MIG, correl=b"c")
    view = view_of(items)
    request = req(LO, C.MQMO_MATCH_CORREL_ID, correl_id=b"c")
    # Y2 matches the CorrelId but is not a first item; Z1 is.
    assert [i.key for i in candidates(view, GetCursor(), request)] == ["Z1"]
    by_group = req(LO, C.MQMO_MATCH_GROUP_ID, group_id=gid("Y"))
    assert [i.key for i in candidates(view, GetCursor(), by_group)] == ["Y1"]


def test_match_options_error_inside_group():
    view = view_of(spec_example())
    item, cursor = get(view, GetCursor(), req(LO))
    item, cursor = get(view, cursor, req(LO))  # Y1: now inside group Y
    nxt = view.get("Y2")
    wrong_id = req(LO, C.MQMO_MATCH_MSG_ID, msg_id=b"B")
    assert [i.key for i in candidates(view, cursor, wrong_id)] == ["Y2"]  # cannot steer
    assert check_match(nxt, cursor, wrong_id) == C.MQRC_MATCH_OPTIONS_ERROR
    assert check_item(nxt, cursor, wrong_id) == (C.MQCC_FAILED, C.MQRC_MATCH_OPTIONS_ERROR)
    right_id = req(LO, C.MQMO_MATCH_MSG_ID, msg_id=b"Y2")
    assert check_match(nxt, cursor, right_id) is None
    wildcard = req(LO, C.MQMO_MATCH_MSG_ID | C.MQMO_MATCH_CORREL_ID)
    assert check_match(nxt, cursor, wildcard) is None
    other_group = req(LO, C.MQMO_MATCH_GROUP_ID, group_id=gid("Z"))
    assert check_request(cursor, other_group) == (C.MQCC_FAILED, C.MQRC_MATCH_OPTIONS_ERROR)
    wrong_seq = req(LO, C.MQMO_MATCH_MSG_SEQ_NUMBER, seq=3)
    assert check_request(cursor, wrong_seq) == (C.MQCC_FAILED, C.MQRC_MATCH_OPTIONS_ERROR)
    right_seq = req(LO, C.MQMO_MATCH_MSG_SEQ_NUMBER | C.MQMO_MATCH_OFFSET, seq=2)
    assert check_request(cursor, right_seq) is None
    assert check_match(nxt, cursor, right_seq) is None


def test_match_options_error_without_current_group():
    fresh = GetCursor()
    bad_seq = req(LO, C.MQMO_MATCH_MSG_SEQ_NUMBER, seq=2)
    assert check_request(fresh, bad_seq) == (C.MQCC_FAILED, C.MQRC_MATCH_OPTIONS_ERROR)
    bad_off = req(LO, C.MQMO_MATCH_OFFSET, offset=10)
    assert check_request(fresh, bad_off) == (C.MQCC_FAILED, C.MQRC_MATCH_OPTIONS_ERROR)
    ok = req(LO, C.MQMO_MATCH_MSG_SEQ_NUMBER | C.MQMO_MATCH_OFFSET, seq=1, offset=0)
    assert check_request(fresh, ok) is None
    # Without LOGICAL_ORDER the same selectors simply select.
    assert check_request(fresh, req(0, C.MQMO_MATCH_MSG_SEQ_NUMBER, seq=2)) is None


def test_undefined_match_option():
    assert check_request(GetCursor(), req(0, 64)) == (C.MQCC_FAILED, C.MQRC_MATCH_OPTIONS_ERROR)


# -- option validation ----------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        C.MQGMO_SYNCPOINT | C.MQGMO_NO_SYNCPOINT,
        C.MQGMO_SYNCPOINT_IF_PERSISTENT | C.MQGMO_NO_SYNCPOINT,
        C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT,
        C.MQGMO_BROWSE_NEXT | C.MQGMO_MSG_UNDER_CURSOR,
        C.MQGMO_SYNCPOINT | C.MQGMO_BROWSE_FIRST,
        C.MQGMO_SYNCPOINT_IF_PERSISTENT | C.MQGMO_COMPLETE_MSG,
        C.MQGMO_MARK_SKIP_BACKOUT,
        C.MQGMO_WAIT | C.MQGMO_SET_SIGNAL,
        C.MQGMO_LOCK,
        C.MQGMO_UNLOCK | C.MQGMO_WAIT,
    ],
)
def test_contradictory_options(options):
    assert check_request(GetCursor(), req(options)) == (C.MQCC_FAILED, C.MQRC_OPTIONS_ERROR)


@pytest.mark.parametrize(
    "options",
    [
        C.MQGMO_SYNCPOINT | C.MQGMO_MARK_SKIP_BACKOUT | C.MQGMO_WAIT,
        C.MQGMO_BROWSE_FIRST | C.MQGMO_LOCK | C.MQGMO_WAIT,
        C.MQGMO_UNLOCK | C.MQGMO_NO_SYNCPOINT,
        C.MQGMO_NO_SYNCPOINT | LO | C.MQGMO_ALL_MSGS_AVAILABLE | C.MQGMO_COMPLETE_MSG,
    ],
)
def test_valid_options(options):
    assert check_request(GetCursor(), req(options)) is None


def test_logical_order_needs_version_2_structures():
    assert check_request(GetCursor(), req(LO, gmo_version=1)) == (
        C.MQCC_FAILED,
        C.MQRC_WRONG_GMO_VERSION,
    )
    assert check_request(GetCursor(), req(LO, md_version=1)) == (
        C.MQCC_FAILED,
        C.MQRC_WRONG_MD_VERSION,
    )


# -- Table 2 for MQGET, units of work, close ----------------------------------------


def test_get_without_logical_order_after_logical_order_warns():
    view = view_of(spec_example())
    _, cursor = get(view, GetCursor(), req(LO))
    item, cursor = get(view, cursor, req(LO))  # Y1, group open
    assert get_warning(cursor, req()) == (C.MQCC_WARNING, C.MQRC_INCOMPLETE_GROUP)
    other = view.get("B")
    assert get_warning(cursor, req(), other) == (C.MQCC_WARNING, C.MQRC_INCOMPLETE_GROUP)
    assert get_warning(cursor, req(LO)) is None
    assert get_warning(cursor, req(C.MQGMO_BROWSE_FIRST)) is None  # browse: never checked
    # Exactly the next item, got by GroupId + MsgSeqNumber: consistent, no warning.
    assert get_warning(cursor, req(), view.get("Y2")) is None
    _, cursor = get(view, cursor, req(LO))
    _, cursor = get(view, cursor, req(LO))  # Y3s1: logical message open
    assert get_warning(cursor, req()) == (C.MQCC_WARNING, C.MQRC_INCOMPLETE_MSG)
    assert close_outcome(cursor) == (C.MQCC_WARNING, C.MQRC_INCOMPLETE_MSG)


def test_get_warning_needs_previous_logical_order():
    view = view_of(spec_example())
    request = req(0, C.MQMO_MATCH_MSG_ID, msg_id=b"Y1")
    item, cursor = get(view, GetCursor(), request)
    assert cursor.group_open and not cursor.last_logical_order
    assert get_warning(cursor, req()) is None
    assert close_outcome(cursor) == (C.MQCC_OK, C.MQRC_NONE)


def test_inconsistent_uow_on_get():
    view = view_of(spec_example())
    _, cursor = get(view, GetCursor(), req(LO | C.MQGMO_SYNCPOINT))
    item, cursor = get(view, cursor, req(LO | C.MQGMO_SYNCPOINT))  # Y1 in a UOW
    nxt = view.get("Y2")
    outside = req(LO | C.MQGMO_NO_SYNCPOINT)
    assert check_uow(nxt, cursor, outside) == (C.MQCC_FAILED, C.MQRC_INCONSISTENT_UOW)
    assert check_uow(nxt, cursor, req(LO | C.MQGMO_SYNCPOINT)) is None
    assert get_warning(cursor, req(C.MQGMO_NO_SYNCPOINT), nxt) == (
        C.MQCC_WARNING,
        C.MQRC_INCONSISTENT_UOW,
    )


def test_syncpoint_if_persistent_follows_the_message():
    view = view_of(
        [
            mk("P1", 1, "P", 1, flags=MIG, persistence=1),
            mk("P2", 2, "P", 2, flags=LMIG, persistence=1),
        ]
    )
    request = req(LO | C.MQGMO_SYNCPOINT_IF_PERSISTENT)
    item, cursor = get(view, GetCursor(), request)
    assert cursor.in_uow
    assert check_uow(view.get("P2"), cursor, req(LO | C.MQGMO_SYNCPOINT)) is None


# -- status fields --------------------------------------------------------------------


@pytest.mark.parametrize(
    "flags,gs,ss",
    [
        (0, C.MQGS_NOT_IN_GROUP, C.MQSS_NOT_A_SEGMENT),
        (MIG, C.MQGS_MSG_IN_GROUP, C.MQSS_NOT_A_SEGMENT),
        (LMIG, C.MQGS_LAST_MSG_IN_GROUP, C.MQSS_NOT_A_SEGMENT),
        (C.MQMF_LAST_MSG_IN_GROUP, C.MQGS_LAST_MSG_IN_GROUP, C.MQSS_NOT_A_SEGMENT),
        (SEG, C.MQGS_NOT_IN_GROUP, C.MQSS_SEGMENT),
        (LSEG, C.MQGS_NOT_IN_GROUP, C.MQSS_LAST_SEGMENT),
        (C.MQMF_LAST_SEGMENT, C.MQGS_NOT_IN_GROUP, C.MQSS_LAST_SEGMENT),
        (MIG | SEG, C.MQGS_MSG_IN_GROUP, C.MQSS_SEGMENT),
        (LMIG | LSEG, C.MQGS_LAST_MSG_IN_GROUP, C.MQSS_LAST_SEGMENT),
    ],
)
def test_group_and_segment_status(flags, gs, ss):
    item = mk("X", 1, "X", flags=flags)
    assert (group_status(item), segment_status(item)) == (gs, ss)


# -- whole pipeline: put rules -> view -> logical gets -> reassembly --------------------


def test_put_segment_get_reassemble_round_trip():
    payloads = [bytes(range(n % 256)) * 3 for n in (40, 7, 90)]
    cursor, items, data = PutCursor(), [], {}
    for n, payload in enumerate(payloads, start=1):
        flags = (LMIG if n == len(payloads) else MIG) | C.MQMF_SEGMENTATION_ALLOWED
        plan = plan_put(
            cursor, msg_flags=flags, group_id=b"", seq=1, offset=0, persistence=1,
            length=len(payload), md_version=2, logical_order=True, in_uow=False,
            new_group_id=gid("R"),
        )  # fmt: skip
        assert plan.comp == C.MQCC_OK
        cursor = plan.cursor
        for piece in segment_message(plan.msg_flags, plan.offset, len(payload), 32):
            key = f"{n}@{piece.offset}"
            chunk = payload[piece.start : piece.start + piece.length]
            items.append(mk(key, 0, "R", plan.seq, piece.offset, piece.flags, len(chunk)))
            data[key] = (chunk, piece.flags)
    random.Random(7).shuffle(items)
    for arrival, item in enumerate(items):
        item.pos = (arrival,)
    view = view_of(items)
    assembler = GroupAssembler()
    done = []
    for key in drain(view, req(LO)):
        item_seq = int(key.split("@")[0])
        chunk, flags = data[key]
        done += assembler.add(item_seq, int(key.split("@")[1]), chunk, flags)
    assert assembler.complete and assembler.member_count == 3
    assert [d for _, d in done] == payloads


# -- properties ---------------------------------------------------------------------


@st.composite
def queues(draw):
    """Random groups (random segmentation) and loose messages, randomly interleaved:
    returns (physical list of items, {group: [keys in logical order]})."""
    groups: dict[str, list[Item]] = {}
    n_groups = draw(st.integers(0, 5))
    for g in range(n_groups):
        name = f"g{g}"
        n_msgs = draw(st.integers(1, 4))
        in_group = draw(st.booleans()) or n_msgs > 1
        members = []
        for seq in range(1, n_msgs + 1):
            gflags = (LMIG if seq == n_msgs else MIG) if in_group else 0
            n_segs = draw(st.integers(1, 3))
            segmented = n_segs > 1 or draw(st.booleans()) or not in_group
            off = 0
            for s in range(n_segs):
                length = draw(st.integers(1, 5))
                sflags = (LSEG if s == n_segs - 1 else SEG) if segmented else 0
                members.append(
                    mk(f"{name}.{seq}.{off}", 0, name, seq, off, gflags | sflags, length)
                )
                off += length
        groups[name] = members
    loose = [mk(f"m{i}", 0) for i in range(draw(st.integers(0, 4)))]
    streams = [list(draw(st.permutations(m))) for m in groups.values()] + [[x] for x in loose]
    physical = []
    while streams:
        i = draw(st.integers(0, len(streams) - 1))
        physical.append(streams[i].pop(0))
        if not streams[i]:
            streams.pop(i)
    for arrival, item in enumerate(physical):
        item.pos = (arrival,)
    logical = {
        name: [i.key for i in sorted(m, key=lambda i: (i.seq, i.offset))]
        for name, m in groups.items()
    }
    return physical, logical


def unit_of(key: str) -> str:
    return key.split(".")[0]


def expected_logical_order(physical: list[Item], logical: dict[str, list[str]]) -> list[str]:
    out = []
    for item in physical:  # units in the order their first item arrived
        if item.is_first:
            out += logical.get(unit_of(item.key), [item.key])
    return out


@settings(max_examples=300, deadline=None)
@given(queues())
def test_property_logical_order_of_a_full_queue(queue):
    physical, logical = queue
    got = drain(view_of(physical), req(LO))
    assert got == expected_logical_order(physical, logical)


@settings(max_examples=300, deadline=None)
@given(queues(), st.data())
def test_property_logical_order_while_messages_arrive(queue, data):
    """Gets interleaved with arrivals: each group comes out contiguous and in sequence,
    groups in the order their first items arrived."""
    physical, logical = queue
    view, cursor, got = QueueView(), GetCursor(), []
    pending = list(physical)
    while pending or len(view):
        if pending and data.draw(st.booleans()):
            view.add(pending.pop(0))
            continue
        item, cursor = get(view, cursor, req(LO))
        if item is not None:
            got.append(item.key)
        elif pending:
            view.add(pending.pop(0))  # nothing eligible yet: wait for the next arrival
        else:
            break
    assert sorted(got) == sorted(i.key for i in physical)
    assert got == expected_logical_order(physical, logical)


def test_large_queue_is_fast():
    """Tens of thousands of items: interleaved groups of three, drained in logical order."""
    n = 10_000
    items = []
    for g in range(n):
        for seq in range(1, 4):
            items.append(mk(f"{g}.{seq}", 0, f"G{g}", seq, flags=LMIG if seq == 3 else MIG))
    # Interleave neighbouring groups: seq 2 and 3 of group g arrive after seq 1 of g + 1.
    order = sorted(range(len(items)), key=lambda i: (i // 3 + (i % 3 > 0), i))
    view = QueueView()
    for arrival, i in enumerate(order):
        items[i].pos = (arrival,)
        view.add(items[i])
    got = drain(view, req(LO | C.MQGMO_ALL_MSGS_AVAILABLE))
    assert got == [f"{g}.{seq}" for g in range(n) for seq in range(1, 4)]


# -- the view itself --------------------------------------------------------------------


def test_view_iteration_survives_discards_and_inserts():
    view = view_of(mk(f"k{n}", n * 10) for n in range(2000))
    seen = []
    for item in view:
        seen.append(item.key)
        if item.key == "k5":
            for n in range(6, 1500):  # enough to force a compaction mid-iteration
                view.discard(f"k{n}")
            view.add(mk("late-early", 1))  # physically before the iterator: not revisited
            view.add(mk("between", 15005))  # between k1500 (15000) and k1501 (15010)
    expected = [f"k{n}" for n in range(6)] + ["k1500", "between"]
    expected += [f"k{n}" for n in range(1501, 2000)]
    assert seen == expected
    assert len(view) == 2000 - 1494 + 2
    assert [i.key for i in view][:3] == ["k0", "late-early", "k1"]


def test_view_replaces_item_with_same_key_and_iterates_after_pos():
    view = view_of([mk("a", 1), mk("b", 2), mk("c", 3)])
    view.add(mk("a", 4))
    assert [i.key for i in view] == ["b", "c", "a"]
    assert [i.key for i in view.iter_after((2,))] == ["c", "a"]
    assert view.discard("missing") is None
    assert view.discard("b").key == "b" and "b" not in view and view.get("b") is None


def test_view_completeness():
    view = view_of(
        [
            mk("s0", 1, "M", 1, 0, SEG, length=4),
            mk("s2", 2, "M", 1, 8, LSEG, length=4),
            mk("g1", 3, "G", 1, flags=MIG),
            mk("g3", 4, "G", 3, flags=LMIG),
        ]
    )
    assert not view.message_complete(gid("M"), 1)  # gap at 4
    assert not view.group_complete(gid("M"))  # a segmented message alone: group of one
    view.add(mk("s1", 5, "M", 1, 4, SEG, length=4))
    assert view.message_complete(gid("M"), 1) and view.group_complete(gid("M"))
    assert [i.key for i in view.logical_message(gid("M"), 1)] == ["s0", "s1", "s2"]
    assert not view.group_complete(gid("G"))  # seq 2 missing
    view.add(mk("g2", 6, "G", 2, flags=MIG))
    assert view.group_complete(gid("G"))
    assert [i.key for i in view.members(gid("G"))] == ["g1", "g2", "g3"]
    view.discard("g3")
    assert not view.group_complete(gid("G"))  # no last message any more
    view.add(mk("zero", 7, "E", 1, 0, SEG, length=0))
    view.add(mk("end", 8, "E", 1, 0, LSEG, length=0))
    assert view.message_complete(gid("E"), 1)  # via the empty last segment only
    assert view.group_complete(C.MQGI_NONE)  # messages not in a group: groups of one


def test_view_completeness_with_resegmented_duplicates():
    # The same message present twice, cut differently (e.g. re-segmented on a route).
    view = view_of(
        [
            mk("a0", 1, "M", 1, 0, SEG, length=6),
            mk("b0", 2, "M", 1, 0, SEG, length=3),
            mk("b3", 3, "M", 1, 3, SEG, length=3),
            mk("b6", 4, "M", 1, 6, LSEG, length=2),
        ]
    )
    assert view.message_complete(gid("M"), 1)
    chain = view.segment_chain(gid("M"), 1)
    assert sum(i.length for i in chain) == 8 and chain[-1].key == "b6"
