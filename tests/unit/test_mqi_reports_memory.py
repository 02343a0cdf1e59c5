"""The report and dead-letter scenarios of tests/integration/test_mqi_reports.py on the
in-memory backends (a ManualClock: the scenarios' sleeps move it)."""

from __future__ import annotations

import types

import pytest

from tests.integration import test_mqi_reports
from tests.unit.conftest import World

for _name in dir(test_mqi_reports):
    if _name.startswith("test_"):
        globals()[_name] = getattr(test_mqi_reports, _name)


@pytest.fixture(autouse=True)
def _sleeps_move_the_clock(world: World, monkeypatch) -> None:
    fake_time = types.SimpleNamespace(sleep=world.clock.advance, monotonic=world.clock.monotonic)
    monkeypatch.setattr(test_mqi_reports, "time", fake_time)
