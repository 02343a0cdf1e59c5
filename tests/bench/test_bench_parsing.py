"""Pure parts of the benchmark suite: Java tool output, percentiles, targets (no servers)."""

from __future__ import annotations

from ops.bench.javatools import parse_consumer, parse_producer
from ops.bench.latency import percentile
from ops.bench.model import Row, Target

PRODUCER_OUT = """Warmup first 20000 records. Steady state results will print after the complete test summary.
100000 records sent, 27329.871550 records/sec (26.69 MB/sec), 828.09 ms avg latency, 1252.00 ms max latency, 893 ms 50th, 1207 ms 95th, 1235 ms 99th, 1250 ms 99.9th.
80000 steady state records sent, 26507.620941 records/sec (25.89 MB/sec), 853.22 ms avg latency, 1252.00 ms max latency, 898 ms 50th, 1213 ms 95th, 1238 ms 99th, 1251 ms 99.9th.
"""  # noqa: E501 - verbatim tool output

CONSUMER_OUT = """start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec
2026-11-22 13:26:47:425, 2026-11-22 13:26:48:274, 97.6563, 115.0250, 100000, 117785.6302, 320, 529, 184.6054, 189035.9168
"""  # noqa: E501


def test_producer_summary_prefers_the_steady_state_line() -> None:
    assert parse_producer(PRODUCER_OUT) == (26507.620941, 25.89)


def test_consumer_csv_is_read_by_column_name() -> None:
    result = parse_consumer(CONSUMER_OUT)
    assert result["fetch.nMsg.sec"] == 189035.9168
    assert result["nMsg.sec"] == 117785.6302
    assert "start.time" not in result


def test_percentiles_of_a_sorted_sample() -> None:
    sample = [float(i) for i in range(1, 1001)]
    assert percentile(sample, 0.5) == 501.0
    assert percentile(sample, 0.99) == 991.0
    assert percentile(sample, 0.999) == 1000.0


def test_targets_on_ratio_and_value() -> None:
    row = Row("x", "1 put", "msg/s", 80.0, 100.0, "raw", Target("ratio", ">=", 0.8))
    assert row.ratio == 0.8 and row.met is True
    latency = Row("p99", "5 latency", "ms", 30.0, 10.0, "raw", Target("ratio", "<=", 2.0))
    assert latency.met is False
    missing = Row("uow", "4 uow", "msg/s", None, 50.0, "raw", Target("ratio", ">=", 0.8))
    assert missing.ratio is None and missing.met is None
