"""Side-by-side timing: raw and MQ runs alternate so load from other work hits both."""

from __future__ import annotations

import statistics
from collections.abc import Callable


def paired(mq: Callable[[], float], raw: Callable[[], float], repeats: int) -> tuple[float, float]:
    """Run both `repeats` times in ABBA order (raw, mq, mq, raw, ...); medians."""
    mq_runs: list[float] = []
    raw_runs: list[float] = []
    for i in range(repeats):
        order = ((raw, raw_runs), (mq, mq_runs))
        for fn, runs in order if i % 2 == 0 else order[::-1]:
            runs.append(fn())
    return statistics.median(mq_runs), statistics.median(raw_runs)


def mb_per_s(msgs_per_s: float, size: int) -> float:
    return msgs_per_s * size / 1e6


def size_label(size: int) -> str:
    if size >= 1024 * 1024 and size % (1024 * 1024) == 0:
        return f"{size // (1024 * 1024)} MiB"
    if size >= 1024 and size % 1024 == 0:
        return f"{size // 1024} KiB"
    return f"{size} B"
