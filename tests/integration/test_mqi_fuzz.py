"""The MQI fuzz test's sample on the real stack (issue 19): 200 random call sequences
through the pymqi face on real Kafka and Redis raise only MQMIError, with reason codes
docs/mqi-reason-codes.md lists for the call (tests/unit/mqi_fuzz.py; the unit layer
runs 10,000 on the in-memory backends)."""

from __future__ import annotations

import time

from hypothesis import HealthCheck, given, settings

import adapter.pymqi as pymqi
from tests.unit import mqi_fuzz

SAMPLE = 200
CODES = mqi_fuzz.documented_codes()


def test_two_hundred_random_mqi_sequences_on_the_real_stack(qmgr, qmgr_name) -> None:
    mqi_fuzz.prepare(qmgr)
    seen = {"sequences": 0, "failed": 0}
    started = time.monotonic()

    @settings(
        max_examples=SAMPLE,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        database=None,
    )
    @given(calls=mqi_fuzz.SEQUENCE)
    def sequences(calls) -> None:
        out = mqi_fuzz.run(lambda: pymqi.connect(qmgr_name), calls, CODES)
        seen["sequences"] += 1
        seen["failed"] += sum(r is not None for r in out.reasons)
        assert not out.undocumented, out.undocumented

    sequences()
    print(
        f"{seen['sequences']} sequences on the real stack in "
        f"{time.monotonic() - started:.0f} s, {seen['failed']} calls failed with MQMIError"
    )
    assert seen["sequences"] >= SAMPLE
