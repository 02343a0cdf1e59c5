"""The benchmark suite's short form: every pair runs with tiny counts and reports."""

from __future__ import annotations

import pytest

from ops.bench import suite
from ops.bench.model import NOT_AVAILABLE
from ops.bench.plots import LATENCY_PNG, THROUGHPUT_PNG
from ops.bench.report import console_table
from ops.bench.settings import MODES

pytestmark = pytest.mark.integration

# Rows per section: (1) 2 sizes x 2 persistences x 2 responses, (2) 2 sizes x 2 kinds
# + the persistent ones against a share group,
# (3) 3 group cases + 2 for the big message, (4) 2 batch sizes + the larger with
# MQOO_READ_AHEAD, (5) 3 percentiles x 2 rates, (6) rate + latency, (7) 2 sizes x
# produce/consume, (9) the channel between two clusters (the second one started by the
# launcher), (10) 2 fan-outs (tiny) x 2 persistences, (11) put+get pairs, (costs) put, call
# shape, encode, decode, Redis call.
EXPECTED = {
    "1 put": 8,
    "2 get": 6,
    "3 logical": 3,
    "3 big": 2,
    "4 uow": 3,
    "5 latency": 6,
    "6 spark": 2,
    "7 ceiling": 4,
    "9 channel": 1,
    "10 pubsub": 4,
    "11 pairs": 1,
    "costs": 8,
}


def test_tiny_run_reports_every_pair_with_positive_figures(mqk_servers, tmp_path) -> None:
    # Spark needs a session (10 s and more to start): its rows say "not available" here.
    rows, info = suite.run_suite(
        MODES["tiny"], skip=["spark"], out=tmp_path, command="pytest", log=lambda *_: None
    )
    table = console_table(rows)
    counts = {s: sum(r.section == s for r in rows) for s in EXPECTED}
    assert counts == EXPECTED, table
    assert len({r.pair for r in rows}) == len(rows), "pair names must be unique"
    for row in rows:
        assert not row.note.startswith("failed"), f"{row.pair}: {row.note}"
        if row.section == "6 spark":
            assert row.note.startswith(NOT_AVAILABLE)
            continue
        if row.section == "costs":  # microseconds per call; only some have a raw side
            assert row.available and row.value > 0, row.pair
            continue
        assert row.available and row.value > 0, f"{row.pair}: {row.note or row.value}"
        assert row.raw is not None and row.raw > 0, row.pair
        assert row.ratio is not None and row.ratio > 0, row.pair
        if row.target is not None:
            assert row.met is not None
    doc = (tmp_path / "benchmarks.md").read_text()
    for row in rows:
        assert row.pair in doc
    # Every missed pair has its bottleneck worked out from the run's figures.
    for row in rows:
        if row.met is False:
            assert f"- **{row.pair}**" in doc, row.pair
    assert "no analysis for this pair" not in doc
    assert "nan" not in doc.split("## Bottleneck")[-1].split("##")[0]
    assert (tmp_path / THROUGHPUT_PNG).stat().st_size > 0
    assert (tmp_path / LATENCY_PNG).stat().st_size > 0
    assert info.machine["CPUs (nproc)"].isdigit()
