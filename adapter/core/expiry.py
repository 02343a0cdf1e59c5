"""Message expiry: the arithmetic of MQMD.Expiry and the expiration report.

Expiry is a lifetime in tenths of a second counted from the put; MQEI_UNLIMITED (-1)
never expires. The caller passes the clock (epoch milliseconds) in.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from adapter.core import cmqc as C  # noqa: N812 (the project-wide alias)
from adapter.core import reports
from adapter.core.model import Item

MS_PER_TENTH = 100


def validate_expiry(expiry: int) -> int | None:
    """MQRC_EXPIRY_ERROR for an Expiry MQPUT/MQPUT1 must reject: zero, or negative
    other than MQEI_UNLIMITED. (No report is generated for that failure.)"""
    if expiry == 0 or expiry < C.MQEI_UNLIMITED:
        return C.MQRC_EXPIRY_ERROR
    return None


def expires_at_ms(put_ms: int, expiry_tenths: int) -> int | None:
    """Epoch ms at which the message expires, None for an unlimited lifetime."""
    if expiry_tenths < 0:
        return None
    return put_ms + expiry_tenths * MS_PER_TENTH


def lifetime_from(arrived_ms: int, put_ms: int, expiry_tenths: int) -> int | None:
    """The Expiry to store with a message whose recorded put time `put_ms` is not when it
    arrived (MQPMO_SET_ALL_CONTEXT / PASS_ALL_CONTEXT keep the given PutDate/PutTime):
    counted from `put_ms` it ends where `expiry_tenths` from arrival ends. None when
    that does not fit an MQLONG or would already be over."""
    adjusted = expiry_tenths + (arrived_ms - put_ms) // 100
    if not 0 < adjusted <= 0x7FFFFFFF:
        return None
    return adjusted


def is_expired(put_ms: int, expiry_tenths: int, now_ms: int) -> bool:
    """The lifetime has elapsed: the message must never be returned again."""
    at = expires_at_ms(put_ms, expiry_tenths)
    return at is not None and now_ms >= at


def remaining_tenths(put_ms: int, expiry_tenths: int, now_ms: int) -> int:
    """MQMD.Expiry as MQGET returns it: the remaining lifetime in tenths.

    MQEI_UNLIMITED stays -1. For a live message the value is rounded up, so it is
    always > 0 (MQ never returns a message whose Expiry reads 0); an expired message
    gives 0. A clock behind the put time never makes the lifetime grow.
    """
    at = expires_at_ms(put_ms, expiry_tenths)
    if at is None:
        return C.MQEI_UNLIMITED
    left_ms = at - now_ms
    if left_ms <= 0:
        return 0
    return min(expiry_tenths, -(-left_ms // MS_PER_TENTH))


def wants_expiry_report(report: int) -> bool:
    """One of the MQRO_EXPIRATION* options is set (they all contain MQRO_EXPIRATION)."""
    return reports.wants(report, reports.Kind.EXPIRATION)


def report_data_limit(report: int) -> int | None:
    """Bytes of the original's data the expiration report carries: 0, 100, or None
    for all of it (MQRO_EXPIRATION / _WITH_DATA / _WITH_FULL_DATA)."""
    return reports.data_limit(report, reports.Kind.EXPIRATION)


def report_data(payload: bytes, report: int) -> bytes:
    """The part of the original payload to put in the expiration report."""
    return reports.report_data(payload, report, reports.Kind.EXPIRATION)


def _as_md(original: Item | Mapping[str, Any]) -> Mapping[str, Any]:
    if isinstance(original, Item):
        return {
            "MsgId": original.msg_id,
            "CorrelId": original.correl_id,
            "GroupId": original.group_id,
            "MsgSeqNumber": original.seq,
            "Offset": original.offset,
            "MsgFlags": original.flags,
            "Priority": original.priority,
            "Persistence": original.persistence,
            "Report": original.report,
            "OriginalLength": original.length,
        }
    return original


def expiry_report_fields(
    original: Item | Mapping[str, Any],
    report: int | None = None,
    *,
    new_msg_id: bytes | None = None,
) -> dict[str, Any]:
    """MQMD fields of the expiration report for `original` (an Item or a dict with
    MQMD field names): `adapter.core.reports.report_fields` for Kind.EXPIRATION (the
    original has no lifetime left to pass, so the report's Expiry is unlimited)."""
    return reports.report_fields(
        _as_md(original), reports.Kind.EXPIRATION, report, new_msg_id=new_msg_id
    )
