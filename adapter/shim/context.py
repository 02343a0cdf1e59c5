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
CONTEXT_OPTIONS = C.MQPMO_NO_CONTEXT | C.MQPMO_SET_IDENTITY_CONTEXT | C.MQPMO_SET_ALL_CONTEXT
_TEXT_FIELDS = ("UserIdentifier", "ApplIdentityData", "PutApplName", "ApplOriginData")


def put_context(options: int, given: dict[str, Any] | None) -> dict[str, Any]:
    """Identity and origin context of a put: generated, none, or (SET_IDENTITY /
    SET_ALL) the application's own fields from `given`."""
    if options & C.MQPMO_NO_CONTEXT:
        return NO_CONTEXT
    if not options & (C.MQPMO_SET_IDENTITY_CONTEXT | C.MQPMO_SET_ALL_CONTEXT) or not given:
        return DEFAULT_CONTEXT
    context = dict(DEFAULT_CONTEXT)
    context["UserIdentifier"] = given["UserIdentifier"]
    context["AccountingToken"] = bytes(given["AccountingToken"]).ljust(32, b"\0")[:32]
    context["ApplIdentityData"] = given["ApplIdentityData"]
    if options & C.MQPMO_SET_ALL_CONTEXT:
        context["PutApplType"] = given["PutApplType"]
        context["PutApplName"] = given["PutApplName"]
        context["ApplOriginData"] = given["ApplOriginData"]
    return context


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


@functools.lru_cache(maxsize=4096)
def put_date_time(put_ms: int) -> tuple[bytes, bytes]:
    """MQMD PutDate (YYYYMMDD) and PutTime (HHMMSSTH, UTC) of a put timestamp."""
    stamp = dt.datetime.fromtimestamp(put_ms / 1000, dt.UTC)
    return stamp.strftime("%Y%m%d").encode(), (
        stamp.strftime("%H%M%S") + f"{stamp.microsecond // 10000:02d}"
    ).encode()
