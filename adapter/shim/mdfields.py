"""MQMD fields as MQ returns them, cached: the same few values recur on every get."""

from __future__ import annotations

import datetime as dt
import functools
import getpass
import os
import sys

from adapter.core import cmqc as C  # noqa: N812 (the project-wide alias)
from adapter.pymqi.structs import mqchar

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
