"""MQPUT Table 1 (values used) and Table 2 (outcome when inconsistent), row by row."""

from __future__ import annotations

import itertools

import pytest

from adapter.core import cmqc as C  # noqa: N812
from adapter.core.putrules import PutCursor, close_outcome, flags_error, plan_put

MIG = C.MQMF_MSG_IN_GROUP
LMIG = C.MQMF_LAST_MSG_IN_GROUP
SEG = C.MQMF_SEGMENT
LSEG = C.MQMF_LAST_SEGMENT
SEG_OK = C.MQMF_SEGMENTATION_ALLOWED


def gid(name: str) -> bytes:
    return name.encode().ljust(24, b"\x00")


G_PREV, G_NEW, G_APP = gid("previous"), gid("generated"), gid("app")
PREV_SEQ, PREV_OFF, PREV_LEN = 3, 100, 50
APP_SEQ, APP_OFF = 7, 300


def put(cursor: PutCursor, flags: int = 0, *, lo: bool = True, **kw):
    args = dict(
        msg_flags=flags,
        group_id=C.MQGI_NONE,
        seq=1,
        offset=0,
        persistence=C.MQPER_PERSISTENT,
        length=10,
        md_version=C.MQMD_VERSION_2,
        logical_order=lo,
        in_uow=True,
        put1=False,
        new_group_id=G_NEW,
    )
    args.update(kw)
    return plan_put(cursor, **args)


def state(cur_grp: bool, cur_log: bool, *, prev_lo: bool) -> PutCursor:
    """Handle state with (or without) a current group and logical message."""
    return PutCursor(
        group_id=G_PREV if (cur_grp or cur_log) else C.MQGI_NONE,
        seq=PREV_SEQ if cur_grp else 1,
        offset=PREV_OFF if cur_log else 0,
        length=PREV_LEN,
        group_open=cur_grp,
        msg_open=cur_log,
        persistence=C.MQPER_PERSISTENT,
        in_uow=True,
        last_logical_order=prev_lo,
        msg_group_flags=MIG if cur_grp else 0,
    )


# Table 1 exactly as printed: LOG ORD, MIG, SEG, SEG OK, Cur grp, Cur log msg ->
# GroupId, MsgSeqNumber, Offset. "E" is "Either".
TABLE_1 = [
    ("Y", "N", "N", "N", "N", "N", "none", "1", "0"),
    ("Y", "N", "N", "Y", "N", "N", "new", "1", "0"),
    ("Y", "N", "Y", "E", "N", "N", "new", "1", "0"),
    ("Y", "N", "Y", "E", "N", "Y", "previous", "1", "previous+length"),
    ("Y", "Y", "E", "E", "N", "N", "new", "1", "0"),
    ("Y", "Y", "E", "E", "Y", "N", "previous", "previous+1", "0"),
    ("Y", "Y", "Y", "E", "Y", "Y", "previous", "previous", "previous+length"),
    ("N", "N", "N", "N", "E", "E", "none", "1", "0"),
    ("N", "N", "N", "Y", "E", "E", "new-if-none", "1", "0"),
    ("N", "N", "Y", "E", "E", "E", "new-if-none", "1", "field"),
    ("N", "Y", "N", "E", "E", "E", "new-if-none", "field", "0"),
    ("N", "Y", "Y", "E", "E", "E", "new-if-none", "field", "field"),
]


def _choices(cell: str) -> list[bool]:
    return [False, True] if cell == "E" else [cell == "Y"]


def _expand():
    for row_no, row in enumerate(TABLE_1, start=1):
        lo, mig, seg, seg_ok, grp, log, *expect = row
        for combo in itertools.product(*map(_choices, (mig, seg, seg_ok, grp, log))):
            for app_gid in (C.MQGI_NONE, G_APP) if lo == "N" else (C.MQGI_NONE,):
                yield pytest.param(
                    lo == "Y", *combo, app_gid, *expect, id=f"row{row_no}-{combo}-{app_gid[:3]!r}"
                )


def _expand_values():
    for p in _expand():
        yield p.values[:6]


@pytest.mark.parametrize(
    "lo,mig,seg,seg_ok,cur_grp,cur_log,app_gid,want_gid,want_seq,want_off", list(_expand())
)
def test_table_1_row(lo, mig, seg, seg_ok, cur_grp, cur_log, app_gid, want_gid, want_seq, want_off):
    flags = (MIG if mig else 0) | (SEG if seg else 0) | (SEG_OK if seg_ok else 0)
    # Previous put without LOGICAL_ORDER, so Table 2 gives MQCC_OK to every row.
    cursor = state(cur_grp, cur_log, prev_lo=False)
    plan = put(cursor, flags, lo=lo, group_id=app_gid, seq=APP_SEQ, offset=APP_OFF)

    assert (plan.comp, plan.reason) == (C.MQCC_OK, C.MQRC_NONE)
    expected_gid = {
        "none": C.MQGI_NONE,
        "new": G_NEW,
        "previous": G_PREV,
        "new-if-none": G_NEW if app_gid == C.MQGI_NONE else app_gid,
    }[want_gid]
    expected_seq = {"1": 1, "previous+1": PREV_SEQ + 1, "previous": PREV_SEQ, "field": APP_SEQ}
    expected_off = {"0": 0, "previous+length": PREV_OFF + PREV_LEN, "field": APP_OFF}
    assert plan.group_id == expected_gid
    assert plan.seq == expected_seq[want_seq]
    assert plan.offset == expected_off[want_off]
    # The handle now remembers what was used, ready for the next LOGICAL_ORDER put.
    assert (plan.cursor.group_id, plan.cursor.seq, plan.cursor.offset) == (
        plan.group_id,
        plan.seq,
        plan.offset,
    )
    assert plan.cursor.last_logical_order is lo


def _invalid_logical_combos():
    covered = {tuple(v[:1]) + tuple(v[1:3]) + tuple(v[4:6]) for v in _expand_values()}
    for mig, seg, grp, log in itertools.product([False, True], repeat=4):
        if (True, mig, seg, grp, log) not in covered:
            yield pytest.param(mig, seg, grp, log, id=f"mig={mig}-seg={seg}-grp={grp}-log={log}")


@pytest.mark.parametrize("mig,seg,cur_grp,cur_log", list(_invalid_logical_combos()))
@pytest.mark.parametrize("seg_ok", [False, True])
def test_table_1_combinations_not_shown_fail(mig, seg, cur_grp, cur_log, seg_ok):
    cursor = state(cur_grp, cur_log, prev_lo=True)
    flags = (MIG if mig else 0) | (SEG if seg else 0) | (SEG_OK if seg_ok else 0)
    plan = put(cursor, flags)
    expected = C.MQRC_INCOMPLETE_MSG if cur_log else C.MQRC_INCOMPLETE_GROUP
    assert (plan.comp, plan.reason) == (C.MQCC_FAILED, expected)
    assert plan.cursor == cursor  # kept, so the application can finish the group


def test_failed_put_keeps_group_so_it_can_be_terminated():
    c0 = PutCursor()
    first = put(c0, MIG)
    refused = put(first.cursor, 0)  # not in a group while the group is open
    assert (refused.comp, refused.reason) == (C.MQCC_FAILED, C.MQRC_INCOMPLETE_GROUP)
    last = put(refused.cursor, LMIG, length=0)  # terminate it, possibly with no data
    assert (last.comp, last.group_id, last.seq) == (C.MQCC_OK, G_NEW, 2)
    again = put(last.cursor, 0)
    assert (again.comp, again.group_id, again.seq) == (C.MQCC_OK, C.MQGI_NONE, 1)


def test_incomplete_msg_wins_over_incomplete_group():
    cursor = put(put(PutCursor(), MIG).cursor, MIG | SEG).cursor  # group and message open
    plan = put(cursor, 0)
    assert (plan.comp, plan.reason) == (C.MQCC_FAILED, C.MQRC_INCOMPLETE_MSG)


def test_segment_with_different_last_msg_in_group_flag_is_incomplete_msg():
    cursor = put(PutCursor(), MIG | SEG).cursor
    plan = put(cursor, LMIG | LSEG)
    assert (plan.comp, plan.reason) == (C.MQCC_FAILED, C.MQRC_INCOMPLETE_MSG)
    ok = put(cursor, MIG | LSEG)
    assert (ok.comp, ok.seq, ok.offset) == (C.MQCC_OK, 1, 10)


def test_application_segmentation_example_values():
    """IBM's "Application segmentation of logical messages" put sequence."""
    flags_sequence = [
        MIG | SEG, MIG | SEG, MIG | LSEG,
        MIG | SEG, MIG | LSEG,
        MIG,
        LMIG | SEG, LMIG | SEG, LMIG | LSEG,
    ]  # fmt: skip
    cursor, got = PutCursor(), []
    for flags in flags_sequence:
        plan = put(cursor, flags, length=10)
        assert plan.comp == C.MQCC_OK
        got.append((plan.group_id, plan.seq, plan.offset))
        cursor = plan.cursor
    assert got == [
        (G_NEW, 1, 0), (G_NEW, 1, 10), (G_NEW, 1, 20),
        (G_NEW, 2, 0), (G_NEW, 2, 10),
        (G_NEW, 3, 0),
        (G_NEW, 4, 0), (G_NEW, 4, 10), (G_NEW, 4, 20),
    ]  # fmt: skip
    assert not cursor.group_open and not cursor.msg_open
    assert close_outcome(cursor) == (C.MQCC_OK, C.MQRC_NONE)


def test_restart_technique_then_logical_order():
    restart = put(PutCursor(), MIG, lo=False, group_id=G_APP, seq=5)
    assert (restart.comp, restart.group_id, restart.seq) == (C.MQCC_OK, G_APP, 5)
    nxt = put(restart.cursor, MIG)
    assert (nxt.group_id, nxt.seq, nxt.offset) == (G_APP, 6, 0)
    last = put(nxt.cursor, LMIG)
    assert (last.group_id, last.seq) == (G_APP, 7)
    assert not last.cursor.group_open


# -- Table 2 ---------------------------------------------------------------------

KINDS = {
    # reason: (flags of the opening put, flags and overrides of the inconsistent put)
    C.MQRC_INCOMPLETE_GROUP: (MIG, 0, {}),
    C.MQRC_INCOMPLETE_MSG: (MIG | SEG, MIG, {"seq": 2}),
    C.MQRC_INCONSISTENT_PERSISTENCE: (MIG, MIG, {"persistence": C.MQPER_NOT_PERSISTENT}),
    C.MQRC_INCONSISTENT_UOW: (MIG, MIG, {"in_uow": False}),
}
TABLE_2 = {
    # (current put uses LOGICAL_ORDER, previous put used it) -> completion code
    (True, True): C.MQCC_FAILED,
    (True, False): C.MQCC_FAILED,
    (False, True): C.MQCC_WARNING,
    (False, False): C.MQCC_OK,
}


@pytest.mark.parametrize("reason", list(KINDS), ids=lambda r: str(r))
@pytest.mark.parametrize(
    "current_lo,previous_lo", list(TABLE_2), ids=lambda v: "LO" if v else "noLO"
)
def test_table_2_cell(reason, current_lo, previous_lo):
    open_flags, flags, overrides = KINDS[reason]
    opened = put(PutCursor(), open_flags, lo=previous_lo)
    assert opened.comp == C.MQCC_OK and opened.group_id == G_NEW
    # Without LOGICAL_ORDER the app names the next item itself (seq 2 of the group).
    fields = {"group_id": G_NEW, "seq": 2} if not current_lo else {}
    fields.update(overrides)
    plan = put(opened.cursor, flags, lo=current_lo, **fields)
    comp = TABLE_2[(current_lo, previous_lo)]
    assert plan.comp == comp
    assert plan.reason == (C.MQRC_NONE if comp == C.MQCC_OK else reason)
    if comp == C.MQCC_FAILED:
        assert plan.cursor == opened.cursor
    else:  # the put happened and replaced the handle's state with the app's values
        assert plan.cursor.last_logical_order is False
        assert plan.cursor.seq == plan.seq


@pytest.mark.parametrize(
    "open_flags,reason",
    [
        (MIG, C.MQRC_INCOMPLETE_GROUP),
        (MIG | SEG, C.MQRC_INCOMPLETE_MSG),
        (SEG, C.MQRC_INCOMPLETE_MSG),
    ],
)
@pytest.mark.parametrize("previous_lo", [True, False])
def test_table_2_close_cell(open_flags, reason, previous_lo):
    cursor = put(PutCursor(), open_flags, lo=previous_lo).cursor
    expected = (C.MQCC_WARNING, reason) if previous_lo else (C.MQCC_OK, C.MQRC_NONE)
    assert close_outcome(cursor) == expected


def test_close_after_complete_group_is_ok():
    cursor = put(put(PutCursor(), MIG).cursor, LMIG).cursor
    assert close_outcome(cursor) == (C.MQCC_OK, C.MQRC_NONE)


def test_uow_rule_lets_group_span_units_of_work_but_not_leave_them():
    first = put(PutCursor(), MIG, in_uow=True)
    second = put(first.cursor, MIG, in_uow=True)  # a later UOW on the same handle
    assert second.comp == C.MQCC_OK
    outside = put(second.cursor, LMIG, in_uow=False)
    assert (outside.comp, outside.reason) == (C.MQCC_FAILED, C.MQRC_INCONSISTENT_UOW)


# -- field validation -------------------------------------------------------------


@pytest.mark.parametrize(
    "flags,expected",
    [
        (32, C.MQRC_MSG_FLAGS_ERROR),  # undefined bit in the reject sub-field
        (1 << 11, C.MQRC_MSG_FLAGS_ERROR),
        (1 << 12, C.MQRC_MSG_FLAGS_ERROR),  # transmission-queue-only sub-field
        (1 << 20, None),  # accept sub-field: passed through
        (-(1 << 31), None),  # bit 31 as a negative MQLONG is in the accept sub-field
        (MIG | SEG | SEG_OK, None),
    ],
)
def test_msg_flags_validation(flags, expected):
    assert flags_error(flags) == expected
    plan = put(PutCursor(), flags, lo=False)
    if expected is None:
        assert plan.comp == C.MQCC_OK
        assert plan.msg_flags & flags == flags
    else:
        assert (plan.comp, plan.reason) == (C.MQCC_FAILED, expected)


@pytest.mark.parametrize(
    "flags,stored", [(LMIG, MIG | LMIG), (LSEG, SEG | LSEG), (LMIG | LSEG, MIG | LMIG | SEG | LSEG)]
)
def test_last_flags_imply_the_plain_flag(flags, stored):
    plan = put(PutCursor(), flags)
    assert plan.msg_flags == stored
    assert not plan.cursor.group_open and not plan.cursor.msg_open


def test_md_version_1_with_logical_order_fails():
    plan = put(PutCursor(), MIG, md_version=C.MQMD_VERSION_1)
    assert (plan.comp, plan.reason) == (C.MQCC_FAILED, C.MQRC_WRONG_MD_VERSION)


def test_md_version_1_ignores_group_fields():
    plan = put(
        PutCursor(),
        MIG | SEG,
        lo=False,
        md_version=C.MQMD_VERSION_1,
        group_id=G_APP,
        seq=4,
        offset=40,
    )
    assert (plan.comp, plan.group_id, plan.seq, plan.offset) == (C.MQCC_OK, C.MQGI_NONE, 1, 0)
    assert plan.msg_flags == C.MQMF_NONE
    assert not plan.cursor.group_open


@pytest.mark.parametrize("lo", [True, False])
def test_zero_length_segment_only_allowed_last(lo):
    bad = put(PutCursor(), SEG, lo=lo, length=0)
    assert (bad.comp, bad.reason) == (C.MQCC_FAILED, C.MQRC_SEGMENT_LENGTH_ZERO)
    good = put(PutCursor(), LSEG, lo=lo, length=0)
    assert good.comp == C.MQCC_OK


def test_logical_order_on_put1_is_options_error():
    plan = put(PutCursor(), MIG, put1=True)
    assert (plan.comp, plan.reason) == (C.MQCC_FAILED, C.MQRC_OPTIONS_ERROR)


def test_put1_is_not_checked_against_group_state():
    cursor = put(PutCursor(), MIG).cursor  # group open, previous put used LOGICAL_ORDER
    plan = put(cursor, 0, lo=False, put1=True, persistence=C.MQPER_NOT_PERSISTENT)
    assert (plan.comp, plan.reason) == (C.MQCC_OK, C.MQRC_NONE)
    assert plan.cursor == cursor


@pytest.mark.parametrize("seq", [0, -1, 1_000_000_000])
def test_bad_sequence_number(seq):
    plan = put(PutCursor(), MIG, lo=False, group_id=G_APP, seq=seq)
    assert (plan.comp, plan.reason) == (C.MQCC_FAILED, C.MQRC_MSG_SEQ_NUMBER_ERROR)
    ignored = put(PutCursor(), 0, lo=False, seq=seq)  # not in a group: field not used
    assert (ignored.comp, ignored.seq) == (C.MQCC_OK, 1)


@pytest.mark.parametrize("offset", [-1, 1_000_000_000])
def test_bad_offset(offset):
    plan = put(PutCursor(), SEG, lo=False, group_id=G_APP, offset=offset)
    assert (plan.comp, plan.reason) == (C.MQCC_FAILED, C.MQRC_OFFSET_ERROR)


def test_logical_order_sequence_number_overflow():
    cursor = PutCursor(
        group_id=G_PREV, seq=999_999_999, group_open=True, persistence=1, in_uow=True
    )
    plan = put(cursor, MIG)
    assert (plan.comp, plan.reason) == (C.MQCC_FAILED, C.MQRC_MSG_SEQ_NUMBER_ERROR)


def _report_segment(flags: int, length: int, original_length: int):
    return plan_put(
        PutCursor(),
        msg_flags=flags,
        group_id=b"G".ljust(24, b"\0"),
        seq=1,
        offset=0,
        persistence=C.MQPER_NOT_PERSISTENT,
        length=length,
        md_version=2,
        logical_order=False,
        in_uow=False,
        new_group_id=b"N".ljust(24, b"\0"),
        msg_type=C.MQMT_REPORT,
        original_length=original_length,
    )


def test_report_on_a_non_last_segment_may_carry_no_data() -> None:
    """MQRO_EXPIRATION (no data) on segment 1 of 2: OriginalLength gives its length."""
    assert _report_segment(C.MQMF_SEGMENT, 0, 900).ok


@pytest.mark.parametrize(
    ("flags", "length", "original_length"),
    [
        (C.MQMF_SEGMENT, 0, C.MQOL_UNDEFINED),
        (C.MQMF_LAST_SEGMENT, 10, C.MQOL_UNDEFINED),
        (C.MQMF_SEGMENT, 0, 0),
    ],
)
def test_report_segment_needs_a_valid_original_length(flags, length, original_length) -> None:
    plan = _report_segment(flags, length, original_length)
    assert (plan.comp, plan.reason) == (C.MQCC_FAILED, C.MQRC_ORIGINAL_LENGTH_ERROR)


def test_zero_length_non_last_segment_of_a_datagram_is_still_2253() -> None:
    plan = plan_put(
        PutCursor(),
        msg_flags=C.MQMF_SEGMENT,
        group_id=b"G".ljust(24, b"\0"),
        seq=1,
        offset=0,
        persistence=C.MQPER_NOT_PERSISTENT,
        length=0,
        md_version=2,
        logical_order=False,
        in_uow=False,
        new_group_id=b"N".ljust(24, b"\0"),
    )
    assert (plan.comp, plan.reason) == (C.MQCC_FAILED, C.MQRC_SEGMENT_LENGTH_ZERO)
