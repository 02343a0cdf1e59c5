"""MQMD PutDate / PutTime of a put timestamp (adapter/shim/context.put_date_time): UTC,
YYYYMMDD and HHMMSSTH (TH: hundredths, truncated), whatever the cache has seen."""

from __future__ import annotations

import datetime as dt

from hypothesis import given
from hypothesis import strategies as st

from adapter.shim.context import put_date_time


def _formatted(put_ms: int) -> tuple[bytes, bytes]:
    """The same fields from datetime arithmetic on whole milliseconds."""
    stamp = dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(milliseconds=put_ms)
    hundredths = stamp.microsecond // 10_000
    return stamp.strftime("%Y%m%d").encode(), f"{stamp:%H%M%S}{hundredths:02d}".encode()


@given(st.integers(min_value=0, max_value=4_102_444_799_999))  # to the end of 2099
def test_fields_of_any_timestamp(put_ms):
    assert put_date_time(put_ms) == _formatted(put_ms)


def test_hundredths_are_truncated_and_the_second_carries():
    second = 1_700_000_000_000  # 2023-11-14 22:13:20 UTC
    assert put_date_time(second + 999) == (b"20231114", b"22132099")
    assert put_date_time(second + 1000) == (b"20231114", b"22132100")
    assert put_date_time(second + 9) == (b"20231114", b"22132000")
    # A cached second does not leak into the next day.
    midnight = 1_700_006_400_000  # 2023-11-15 00:00:00 UTC
    assert put_date_time(midnight - 1) == (b"20231114", b"23595999")
    assert put_date_time(midnight) == (b"20231115", b"00000000")
