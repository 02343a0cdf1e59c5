"""PNG plots for docs/benchmarks.md (matplotlib, no display needed)."""

from __future__ import annotations

from pathlib import Path

from ops.bench.model import Row
from ops.bench.timing import size_label

THROUGHPUT_PNG = "bench-throughput.png"
LATENCY_PNG = "bench-latency.png"


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def throughput(rows: list[Row], out: Path) -> Path | None:
    """MB/s by message size: every put and get case, MQ beside raw (log scale)."""
    cases = [r for r in rows if r.section in ("1 put", "2 get") and r.available]
    if not cases:
        return None
    plt = _pyplot()
    sizes = sorted({r.extra["size"] for r in cases})
    fig, axes = plt.subplots(1, len(sizes), figsize=(6 * len(sizes), 5), squeeze=False)
    for ax, size in zip(axes[0], sizes, strict=True):
        mine = [r for r in cases if r.extra["size"] == size]
        labels = [_short(r) for r in mine]
        xs = range(len(mine))
        ax.bar([x - 0.2 for x in xs], [r.extra["mb_s"] for r in mine], 0.4, label="MQ (shim)")
        ax.bar([x + 0.2 for x in xs], [r.extra["raw_mb_s"] for r in mine], 0.4, label="raw Kafka")
        ax.set_xticks(list(xs), labels, rotation=35, ha="right", fontsize=8)
        ax.set_yscale("log")
        ax.set_ylabel("MB/s (log)")
        ax.set_title(f"{size_label(size)} messages")
        ax.legend(fontsize=8)
    fig.tight_layout()
    path = out / THROUGHPUT_PNG
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _short(row: Row) -> str:
    if row.section == "1 put":
        return f"put {row.extra['mode']} {row.extra['persistence'][:3]}."
    return "get " + ("read-ahead" if "read-ahead" in row.pair else "persistent")


def latency(rows: list[Row], out: Path) -> Path | None:
    cases = [r for r in rows if r.section == "5 latency" and r.available]
    if not cases:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    xs = range(len(cases))
    ax.bar([x - 0.2 for x in xs], [r.value for r in cases], 0.4, label="MQPUT -> MQGET")
    ax.bar([x + 0.2 for x in xs], [r.raw for r in cases], 0.4, label="produce -> consume")
    ax.set_xticks(list(xs), [f"{r.extra['percentile']} @ {r.extra['rate']}/s" for r in cases])
    ax.set_yscale("log")
    ax.set_ylabel("ms (log)")
    ax.set_title("Put-to-get latency by offered rate, 1 KiB persistent")
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = out / LATENCY_PNG
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
