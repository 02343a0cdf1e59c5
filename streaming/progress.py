"""Progress of a running reassembly query: one log line per micro-batch.

Spark's progress event (rows in, rate, batch duration, state rows) is joined with what
the sink wrote for the same batch id (messages, groups, reports, discards, open groups,
latency from the last piece's arrival to the commit that made its message visible).
"""

from __future__ import annotations

import json
import logging
from typing import Any

from pyspark.sql.streaming import StreamingQueryListener

from streaming.sink import BatchStats, ExactlyOnceSink

log = logging.getLogger("mqk.reassemble")


def percentile(values: list[int], q: float) -> int | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def format_line(progress: dict[str, Any] | None, stats: BatchStats | None) -> str:
    parts = []
    if progress is not None:
        rate = progress.get("processedRowsPerSecond") or 0.0
        state_rows = sum(op.get("numRowsTotal", 0) for op in progress.get("stateOperators", []))
        parts.append(
            f"batch={progress['batchId']} in={progress['numInputRows']} "
            f"rate={rate:.0f}/s duration_ms={progress['durationMs'].get('triggerExecution', 0)} "
            f"state_rows={state_rows}"
        )
    if stats is not None:
        if progress is None:
            parts.append(f"batch={stats.batch_id}")
        if stats.skipped:
            parts.append("skipped (committed before restart)")
        else:
            p50, p99 = percentile(stats.latencies_ms, 0.5), percentile(stats.latencies_ms, 0.99)
            parts.append(
                f"out: messages={stats.messages} segments={stats.segments} "
                f"groups={stats.groups} reports={stats.reports} expired={stats.discarded} "
                f"duplicates={stats.duplicates} corrupt={stats.corrupt} "
                f"open_groups={stats.open_units} "
                f"latency_ms p50={p50} p99={p99}"
            )
    return " ".join(parts)


class ProgressLogger(StreamingQueryListener):
    """Logs each finished micro-batch of one query."""

    def __init__(self, query_name: str, sink: ExactlyOnceSink, prefix: str) -> None:
        self.query_name = query_name
        self.sink = sink
        self.prefix = prefix

    def onQueryStarted(self, event) -> None:
        if event.name == self.query_name:
            log.info("%s: query %s started (run %s)", self.prefix, event.id, event.runId)

    def onQueryProgress(self, event) -> None:
        progress = event.progress
        if progress.name != self.query_name:
            return
        data = json.loads(progress.json)
        stats = self.sink.history.get(progress.batchId)
        if data.get("numInputRows", 0) == 0 and (stats is None or stats.messages == 0):
            return  # idle no-data batches (timers) would flood the log
        log.info("%s %s", self.prefix, format_line(data, stats))

    def onQueryIdle(self, event) -> None:
        pass

    def onQueryTerminated(self, event) -> None:
        if event.exception:
            log.error("%s: query stopped: %s", self.prefix, event.exception)
