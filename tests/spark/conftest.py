"""Helpers for the reassembly job's tests: a queue manager, a bounded job run, outputs."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

import adapter.pymqi as pymqi
from streaming import readback
from streaming.job import JobConfig, ReassemblyJob
from tests.integration.conftest import drain  # noqa: F401 (shared helper)

C = pymqi.CMQC


@pytest.fixture
def qm(qmgr):
    """The plugin's connected queue manager, under the name these tests use."""
    return qmgr


def run_job(
    spark,
    qmgr: str,
    queue: str,
    checkpoint,
    *,
    until: Callable[[ReassemblyJob], bool] | None = None,
    idle_s: float = 1.0,
    timeout: float = 120.0,
    during: Callable[[ReassemblyJob], None] | None = None,
    **options,
) -> ReassemblyJob:
    """Run the job on the shared session until `until(job)` (or caught up and idle)."""
    job = ReassemblyJob(spark, JobConfig(qmgr, queue, checkpoint=str(checkpoint), **options))
    job.start()
    try:
        if during is not None:
            during(job)
        if until is not None:
            assert job.wait_until(lambda: until(job), timeout), _where(job, "get there")
        else:
            assert job.run_until_idle(idle_s, timeout), _where(job, "catch up")
    finally:
        job.stop()
    return job


def _where(job: ReassemblyJob, what: str) -> str:
    """The failure's message: what the job had done when the wait ran out (a CI run once
    stalled here with nothing to say why)."""
    sink = job.sink
    batches = sorted(sink.history)
    last = sink.history[batches[-1]] if batches else None
    progress = job.query.lastProgress if job.query is not None else None
    return (
        f"job did not {what} in time: totals {dict(sink.totals)}, {len(batches)} "
        f"micro-batches (last {last}), open units {sink.open_units()}, next expiry "
        f"{sink.next_expiry()}, last progress {progress}"
    )


def outputs(bootstrap: str, qmgr: str, queue: str):
    return (
        readback.logical_messages(bootstrap, qmgr, queue),
        readback.complete_groups(bootstrap, qmgr, queue),
    )


def wait_for(predicate: Callable[[], bool], timeout: float, poll: float = 0.2) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(poll)
    return predicate()
