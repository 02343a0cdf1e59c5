"""Counts per mode. `quick` fits in 10 minutes on 2 cores; `tiny` is the CI smoke run."""

from __future__ import annotations

from dataclasses import dataclass, field

KIB = 1024
MIB = 1024 * KIB


@dataclass(frozen=True)
class BenchConfig:
    mode: str
    repeats: int  # raw and MQ alternate (ABBA); the median of each side is reported
    sizes: tuple[int, ...] = (KIB, 64 * KIB)
    put_async: dict[int, int] = field(default_factory=dict)  # size -> messages per run
    put_sync: dict[int, int] = field(default_factory=dict)
    get_count: dict[int, int] = field(default_factory=dict)
    groups: int = 100  # groups of 10 for logical order
    group_size: int = 10
    segment_parts: int = 4  # segments per group member in the segmented case
    big_size: int = 64 * MIB
    big_repeats: int = 3
    uow_messages: dict[int, int] = field(default_factory=dict)  # batch -> messages
    latency_rate: int = 500  # offered msg/s (the target applies here)
    latency_low_rate: int = 100  # a rate every side sustains: latency without backlog
    latency_seconds: float = 8.0
    latency_repeats: int = 1
    spark_segments: int = 20_000
    java_records: dict[int, int] = field(default_factory=dict)
    profile_messages: int = 3000
    pair_count: int = 2000  # (11) put+get pairs per run
    # (10) subscriptions per publisher; empty: pubsub.FANOUTS (1, 10, 100)
    pubsub_fanouts: tuple[int, ...] = ()
    channel_messages: int = 2000  # per run of the channel pair (persistent, 1 KiB)
    settle_s: float = 30.0  # before each section: wait up to this long for idle CPUs


MODES: dict[str, BenchConfig] = {
    "tiny": BenchConfig(
        mode="tiny",
        repeats=1,
        put_async={KIB: 200, 64 * KIB: 20},
        put_sync={KIB: 20, 64 * KIB: 5},
        get_count={KIB: 200, 64 * KIB: 20},
        groups=5,
        big_size=4 * MIB,
        big_repeats=1,
        uow_messages={1: 10, 100: 200},
        latency_rate=200,
        latency_low_rate=50,
        latency_seconds=1.5,
        spark_segments=1000,
        java_records={KIB: 2000, 64 * KIB: 100},
        profile_messages=200,
        pair_count=200,
        pubsub_fanouts=(1, 10),  # 100 managed queues (1,000 topics) are too much for CI
        channel_messages=200,
        settle_s=2.0,
    ),
    "quick": BenchConfig(
        mode="quick",
        repeats=3,
        # Raw async produce runs at 100k+ msg/s: fewer messages would time only noise.
        put_async={KIB: 20_000, 64 * KIB: 1_000},
        put_sync={KIB: 200, 64 * KIB: 50},
        get_count={KIB: 5_000, 64 * KIB: 500},
        groups=100,
        big_repeats=5,
        uow_messages={1: 100, 100: 2000},
        latency_rate=500,
        latency_seconds=8.0,
        spark_segments=20_000,
        java_records={KIB: 200_000, 64 * KIB: 5_000},
    ),
    "full": BenchConfig(
        mode="full",
        repeats=5,
        put_async={KIB: 100_000, 64 * KIB: 5_000},
        put_sync={KIB: 1_000, 64 * KIB: 300},
        get_count={KIB: 20_000, 64 * KIB: 2_000},
        groups=500,
        big_repeats=5,
        uow_messages={1: 500, 100: 10_000},
        latency_rate=500,
        latency_seconds=30.0,
        latency_repeats=2,
        spark_segments=200_000,
        java_records={KIB: 1_000_000, 64 * KIB: 20_000},
        profile_messages=10_000,
        pair_count=10_000,
        channel_messages=10_000,
        settle_s=60.0,
    ),
}
