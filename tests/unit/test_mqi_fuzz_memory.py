"""The MQI fuzz test on the in-memory backends (issue 19, "Hostile and foreign input"):
random call sequences through the pymqi face raise nothing but MQMIError, and only
reason codes docs/mqi-reason-codes.md lists for the call (tests/unit/mqi_fuzz.py).

The CI form runs FAST sequences; the `slow` form the full 10,000
(`python3 -m pytest tests/unit/test_mqi_fuzz_memory.py -m slow`)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from tests.unit import mqi_fuzz
from tests.unit.conftest import World

FAST = 1_500
FULL = 10_000
CODES = mqi_fuzz.documented_codes()
_SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck), database=None)


class _Fuzz:
    """One world for every sequence of a run (a new connection per sequence)."""

    def __init__(self) -> None:
        self.world = World()
        qmgr = self.world.connect("QMFUZZ")
        mqi_fuzz.prepare(qmgr)
        qmgr.disconnect()
        self.sequences = 0
        self.failed_calls = 0

    def check(self, calls) -> None:
        out = mqi_fuzz.run(lambda: self.world.connect("QMFUZZ"), calls, CODES)
        self.sequences += 1
        self.failed_calls += sum(r is not None for r in out.reasons)
        assert not out.undocumented, out.undocumented


def _fuzz(examples: int) -> _Fuzz:
    fuzz = _Fuzz()

    @settings(max_examples=examples, **_SETTINGS)
    @given(calls=mqi_fuzz.SEQUENCE)
    def sequences(calls) -> None:
        fuzz.check(calls)

    sequences()
    return fuzz


def test_random_mqi_sequences_raise_only_documented_mqmierrors() -> None:
    fuzz = _fuzz(FAST)
    print(f"{fuzz.sequences} sequences, {fuzz.failed_calls} calls failed with MQMIError")
    assert fuzz.sequences >= FAST
    assert fuzz.failed_calls > 0  # the sequences reach MQ's checks


@pytest.mark.slow
def test_ten_thousand_random_mqi_sequences() -> None:
    fuzz = _fuzz(FULL)
    print(f"{fuzz.sequences} sequences, {fuzz.failed_calls} calls failed with MQMIError")
    assert fuzz.sequences >= FULL
