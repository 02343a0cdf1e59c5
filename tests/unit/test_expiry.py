"""Expiry arithmetic and expiration report fields."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapter.core import cmqc as C  # noqa: N812
from adapter.core.expiry import (
    expires_at_ms,
    expiry_report_fields,
    is_expired,
    remaining_tenths,
    report_data,
    report_data_limit,
    validate_expiry,
    wants_expiry_report,
)
from adapter.core.model import Item, id24

PUT = 1_700_000_000_000


@pytest.mark.parametrize(
    "now,expired,left",
    [
        (PUT, False, 10),
        (PUT + 1, False, 10),  # 9.99 tenths left rounds up: never reads 0 while alive
        (PUT + 900, False, 1),
        (PUT + 901, False, 1),
        (PUT + 999, False, 1),
        (PUT + 1000, True, 0),
        (PUT + 5000, True, 0),
        (PUT - 5000, False, 10),  # a clock behind the put never lengthens the lifetime
    ],
)
def test_expiry_arithmetic(now, expired, left):
    assert is_expired(PUT, 10, now) is expired
    assert remaining_tenths(PUT, 10, now) == left


def test_unlimited():
    assert expires_at_ms(PUT, C.MQEI_UNLIMITED) is None
    assert not is_expired(PUT, C.MQEI_UNLIMITED, PUT + 10**12)
    assert remaining_tenths(PUT, C.MQEI_UNLIMITED, PUT + 10**12) == C.MQEI_UNLIMITED
    assert expires_at_ms(PUT, 600) == PUT + 60_000  # 600 tenths is one minute


@pytest.mark.parametrize(
    "expiry,reason",
    [
        (0, C.MQRC_EXPIRY_ERROR),
        (-2, C.MQRC_EXPIRY_ERROR),
        (-1, None),
        (1, None),
        (999_999_999, None),
    ],
)
def test_validate_expiry(expiry, reason):
    assert validate_expiry(expiry) == reason


@given(st.integers(1, 10**6), st.integers(-(10**6), 10**9))
def test_property_remaining_is_positive_exactly_while_alive(expiry, elapsed):
    left = remaining_tenths(PUT, expiry, PUT + elapsed)
    alive = not is_expired(PUT, expiry, PUT + elapsed)
    assert (left > 0) is alive
    assert 0 <= left <= expiry
    if alive and elapsed >= 0:
        # Rounded up to whole tenths: never more than 100 ms beyond the real remainder.
        assert 0 <= left * 100 - (expiry * 100 - elapsed) < 100


@pytest.mark.parametrize(
    "report,wanted,limit",
    [
        (C.MQRO_NONE, False, 0),
        (C.MQRO_COA | C.MQRO_COD, False, 0),
        (C.MQRO_EXPIRATION, True, 0),
        (C.MQRO_EXPIRATION_WITH_DATA, True, 100),
        (C.MQRO_EXPIRATION_WITH_FULL_DATA, True, None),
        (C.MQRO_EXPIRATION_WITH_DATA | C.MQRO_PASS_MSG_ID, True, 100),
    ],
)
def test_report_options(report, wanted, limit):
    assert wants_expiry_report(report) is wanted
    assert report_data_limit(report) == limit
    payload = bytes(range(150))
    expected = payload if limit is None else payload[:limit]
    assert report_data(payload, report) == expected


ORIGINAL = {
    "MsgId": id24(b"original-msg"),
    "CorrelId": id24(b"original-correl"),
    "GroupId": id24(b"grp"),
    "MsgSeqNumber": 3,
    "Offset": 32,
    "MsgFlags": C.MQMF_MSG_IN_GROUP | C.MQMF_SEGMENT,
    "Priority": 7,
    "Persistence": C.MQPER_PERSISTENT,
    "ReplyToQ": b"REPLY.Q",
    "ReplyToQMgr": b"QM2",
    "Format": C.MQFMT_STRING,
    "OriginalLength": 16,
}


def test_report_defaults_new_msg_id_and_msg_id_as_correl_id():
    fields = expiry_report_fields(ORIGINAL, C.MQRO_EXPIRATION)
    assert fields["MsgType"] == C.MQMT_REPORT
    assert fields["Feedback"] == C.MQFB_EXPIRATION
    assert fields["MsgId"] == C.MQMI_NONE  # the put generates a new one
    assert fields["CorrelId"] == ORIGINAL["MsgId"]
    assert fields["data_limit"] == 0 and fields["Format"] == C.MQFMT_NONE
    assert fields["destination"] == (b"REPLY.Q", b"QM2")
    assert (fields["Priority"], fields["Persistence"]) == (7, C.MQPER_PERSISTENT)
    assert (fields["GroupId"], fields["MsgSeqNumber"], fields["Offset"]) == (id24(b"grp"), 3, 32)
    assert fields["MsgFlags"] == ORIGINAL["MsgFlags"]
    assert fields["Expiry"] == C.MQEI_UNLIMITED and fields["Report"] == C.MQRO_NONE
    given_id = expiry_report_fields(ORIGINAL, C.MQRO_EXPIRATION, new_msg_id=id24(b"fresh"))
    assert given_id["MsgId"] == id24(b"fresh")


def test_report_pass_options():
    report = C.MQRO_EXPIRATION_WITH_FULL_DATA | C.MQRO_PASS_MSG_ID | C.MQRO_PASS_CORREL_ID
    fields = expiry_report_fields(ORIGINAL, report)
    assert fields["MsgId"] == ORIGINAL["MsgId"]
    assert fields["CorrelId"] == ORIGINAL["CorrelId"]
    assert fields["data_limit"] is None and fields["Format"] == C.MQFMT_STRING
    passed = expiry_report_fields(
        ORIGINAL, C.MQRO_EXPIRATION | C.MQRO_PASS_DISCARD_AND_EXPIRY | C.MQRO_DISCARD_MSG
    )
    assert passed["Report"] == C.MQRO_DISCARD_MSG


def test_report_from_item_uses_its_report_options():
    item = Item(
        key="k", pos=(1,), priority=4, msg_id=id24(b"m"), correl_id=id24(b"c"),
        group_id=C.MQGI_NONE, seq=1, offset=0, flags=0, length=500,
        persistence=C.MQPER_NOT_PERSISTENT, put_ms=PUT, expiry=10,
        report=C.MQRO_EXPIRATION_WITH_DATA | C.MQRO_PASS_CORREL_ID,
    )  # fmt: skip
    fields = expiry_report_fields(item)
    assert fields["data_limit"] == 100
    assert (fields["MsgId"], fields["CorrelId"]) == (C.MQMI_NONE, id24(b"c"))
    assert (fields["Priority"], fields["OriginalLength"]) == (4, 500)
