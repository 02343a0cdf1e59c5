"""Message context (MQMD identity and origin fields) as the queue manager sets it, and
MQMD field values as MQ returns them (cached: the same few values recur on every call)."""

from __future__ import annotations

import datetime as dt
import functools
import getpass
import os
import sys
from typing import Any

from adapter.core import cmqc as C
from adapter.core.text import mqchar

_TEXT_FIELDS = ("UserIdentifier", "ApplIdentityData", "PutApplName", "ApplOriginData")

# Context the queue manager generates for a put without SET_*_CONTEXT: the same on
# every put of this process (MQ's own defaults: user, program name, MQAT_UNIX).
DEFAULT_CONTEXT = {
    "UserIdentifier": (getpass.getuser() or "")[:12],
    "AccountingToken": b"\0" * 32,
    "ApplIdentityData": "",
    "PutApplType": C.MQAT_UNIX,
    "PutApplName": os.path.basename(sys.argv[0] or "python")[-28:],
    "ApplOriginData": "",
}
NO_CONTEXT = {
    "UserIdentifier": "",
    "AccountingToken": b"\0" * 32,
    "ApplIdentityData": "",
    "PutApplType": C.MQAT_NO_CONTEXT,
    "PutApplName": "",
    "ApplOriginData": "",
}
CONTEXT_OPTIONS = (
    C.MQPMO_NO_CONTEXT
    | C.MQPMO_SET_IDENTITY_CONTEXT
    | C.MQPMO_SET_ALL_CONTEXT
    | C.MQPMO_PASS_IDENTITY_CONTEXT
    | C.MQPMO_PASS_ALL_CONTEXT
)
# What MQOO_SAVE_ALL_CONTEXT keeps of a message got (its context, with its put time).
SAVED_FIELDS = (*_TEXT_FIELDS, "PutApplType", "AccountingToken", "PutTimestamp")


def put_context(
    options: int, given: dict[str, Any] | None, saved: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Identity and origin context of a put: generated, none, the application's own
    (SET_IDENTITY / SET_ALL, from `given`), or passed from a message got on a handle
    opened with MQOO_SAVE_ALL_CONTEXT (PASS_IDENTITY / PASS_ALL, from `saved`)."""
    if options & C.MQPMO_NO_CONTEXT:
        return NO_CONTEXT
    source = None
    if options & (C.MQPMO_SET_IDENTITY_CONTEXT | C.MQPMO_SET_ALL_CONTEXT):
        source = given
    elif options & (C.MQPMO_PASS_IDENTITY_CONTEXT | C.MQPMO_PASS_ALL_CONTEXT):
        source = saved or NO_CONTEXT  # nothing got yet: no context to pass
    if not source:
        return DEFAULT_CONTEXT
    context = dict(DEFAULT_CONTEXT)
    context["UserIdentifier"] = source["UserIdentifier"]
    context["AccountingToken"] = bytes(source["AccountingToken"]).ljust(32, b"\0")[:32]
    context["ApplIdentityData"] = source["ApplIdentityData"]
    if options & (C.MQPMO_SET_ALL_CONTEXT | C.MQPMO_PASS_ALL_CONTEXT):
        context["PutApplType"] = source["PutApplType"]
        context["PutApplName"] = source["PutApplName"]
        context["ApplOriginData"] = source["ApplOriginData"]
    return context


def put_timestamp(
    options: int, given: dict[str, Any] | None, saved: dict[str, Any] | None, now_ms: int
) -> int:
    """The put time a message carries: the queue manager's clock, except that with
    SET_ALL_CONTEXT the application's PutDate/PutTime (when both are set and valid)
    and with PASS_ALL_CONTEXT the passed message's are kept, as MQ keeps them."""
    if options & C.MQPMO_SET_ALL_CONTEXT and given:
        parsed = parse_put_date_time(given.get("PutDate", ""), given.get("PutTime", ""))
        return now_ms if parsed is None else parsed
    if options & C.MQPMO_PASS_ALL_CONTEXT and saved:
        return saved["PutTimestamp"]
    return now_ms


@functools.lru_cache(maxsize=4096)
def parse_put_date_time(date: str, time_: str) -> int | None:
    """MQMD PutDate (YYYYMMDD) and PutTime (HHMMSSTH, UTC) as epoch milliseconds (the
    same few values recur: a channel's receiver puts a batch with its senders' times)."""
    if len(date) != 8 or len(time_) < 6 or not (date + time_).isdigit():
        return None
    try:
        stamp = dt.datetime.strptime(date + time_[:6], "%Y%m%d%H%M%S").replace(tzinfo=dt.UTC)
    except ValueError:
        return None
    hundredths = int(time_[6:8]) if len(time_) >= 8 else 0
    return int(stamp.timestamp() * 1000) + hundredths * 10


def md_context(context: dict[str, Any]) -> dict[str, Any]:
    """The context fields as they go back into the caller's MQMD."""
    out: dict[str, Any] = {f: context[f].encode() for f in _TEXT_FIELDS}
    out["PutApplType"] = context["PutApplType"]
    out["AccountingToken"] = context["AccountingToken"]
    return out


DEFAULT_MD_CONTEXT = md_context(DEFAULT_CONTEXT)


@functools.lru_cache(maxsize=4096)
def pad_mqchar(value: str, width: int) -> bytes:
    """MQCHAR field as MQ returns it: blank-padded (the same few values recur)."""
    return mqchar(value, width)


_HUNDREDTHS = tuple(b"%02d" % n for n in range(100))


@functools.lru_cache(maxsize=1024)
def _date_and_second(second: int) -> tuple[bytes, bytes]:
    stamp = dt.datetime.fromtimestamp(second, dt.UTC)
    return stamp.strftime("%Y%m%d").encode(), stamp.strftime("%H%M%S").encode()


def put_date_time(put_ms: int) -> tuple[bytes, bytes]:
    """MQMD PutDate (YYYYMMDD) and PutTime (HHMMSSTH, UTC) of a put timestamp. The date
    and the time to the second are cached per second (every put and get asks, a few
    thousand times a second; formatting them cost 6 us a call), the hundredths added."""
    date, second = _date_and_second(put_ms // 1000)
    return date, second + _HUNDREDTHS[put_ms % 1000 // 10]
