"""MQMD fields as MQ returns them, cached: the same few values recur on every get."""

from __future__ import annotations

import datetime as dt
import functools

from adapter.pymqi.structs import mqchar


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
