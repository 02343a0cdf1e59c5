"""The reassembly job: a queue's segments and group members in, complete logical
messages, complete-group events and expiration reports out, exactly once.

    mqk reassemble QM Q [options]                 # the CLI (streaming/cli.py)
    python -m streaming.job QM Q [options]        # the same, as a module
    spark-submit --jars "$(python -m streaming.jars)" streaming/job.py QM Q [options]

Pipeline: source.packed_queue_stream (ten priority topics, read_committed; rows packed
per bucket by streaming.packing) -> groupBy(bucket)
.transformWithStateInPandas(processor.ReassemblyProcessor) -> foreachBatch(sink.
ExactlyOnceSink). The checkpoint holds Spark's offsets and state; the sink's commit
records in Kafka hold what was written. Both must be kept together (same query key).
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from adapter import config
from adapter.config import kafka_settings
from adapter.logs import kafka_logger
from adapter.logs import setup_logging as _setup_logging
from adapter.shim import naming

if TYPE_CHECKING:
    from streaming.sink import BatchStats

log = logging.getLogger("mqk.reassemble")


FS_CHECKPOINTS = (
    "org.apache.spark.sql.execution.streaming.checkpointing.FileSystemBasedCheckpointFileManager"
)


def local_path(location: str) -> bool:
    """A checkpoint on the local disk (a plain path or a file: URL)."""
    return "://" not in location or location.startswith("file:")


@dataclass
class JobConfig:
    qmgr: str
    queue: str
    bootstrap: str | None = None  # default: MQK_KAFKA_BOOTSTRAP or the local stack
    redis_url: str | None = None
    checkpoint: str | None = None  # default: ~/.cache/mqk/checkpoints/<QM>/<Q>
    trigger_ms: int = 500
    available_now: bool = False
    buckets: int = 16  # state keys; fixed per checkpoint, like the shuffle partitions
    starting_offsets: str = "earliest"
    max_offsets_per_trigger: int | None = None
    min_partitions: int | None = None
    state_ttl_s: float = 7 * 24 * 3600  # an incomplete unit untouched this long is dropped
    dedupe_s: float = 60.0  # late duplicates of a finished unit are ignored this long
    query_key: str | None = None  # identity of the query's outputs (default from checkpoint)
    shuffle_partitions: int | None = None  # stateful tasks; fixed when the checkpoint is new
    pack: bool = True  # rows packed per bucket before the shuffle (streaming.packing)

    def resolved(self) -> JobConfig:
        eps = config.endpoints(self.bootstrap, self.redis_url)
        checkpoint = self.checkpoint or str(
            config.mqk_home() / "checkpoints" / naming.escape(self.qmgr) / naming.escape(self.queue)
        )
        checkpoint = (
            str(Path(checkpoint).expanduser().resolve()) if "://" not in checkpoint else checkpoint
        )
        key = self.query_key or f"{self.qmgr}/{self.queue}@{checkpoint}"
        return dataclasses.replace(
            self,
            bootstrap=eps.kafka_bootstrap,
            redis_url=eps.redis_url,
            checkpoint=checkpoint,
            query_key=key,
        )


class ReassemblyJob:
    """One running query. Use as a context manager, or start() / stop().

    on_batch(stats): after each micro-batch (see sink.BatchStats).
    after_commit(batch_id): right after a batch's Kafka transaction committed, before
    Redis and Spark's checkpoint record it (see sink.ExactlyOnceSink).
    """

    def __init__(
        self,
        spark,
        cfg: JobConfig,
        on_batch: Callable[[BatchStats], None] | None = None,
        after_commit: Callable[[int], None] | None = None,
    ) -> None:
        self.spark = spark
        self.cfg = cfg.resolved()
        self.on_batch = on_batch
        self.after_commit = after_commit
        self.query = None
        self.sink = None
        self._listener = None

    @property
    def name(self) -> str:
        return f"mqk-reassemble-{naming.escape(self.cfg.qmgr)}-{naming.escape(self.cfg.queue)}"

    def start(self) -> ReassemblyJob:
        from streaming.processor import OUTPUT_SCHEMA, ReassemblyProcessor
        from streaming.progress import ProgressLogger
        from streaming.sink import ExactlyOnceSink
        from streaming.source import packed_queue_stream
        from streaming.topics import ensure_topics

        cfg = self.cfg
        ensure_topics(cfg.bootstrap, cfg.qmgr, cfg.queue)
        stream = packed_queue_stream(
            self.spark,
            cfg.bootstrap,
            cfg.qmgr,
            cfg.queue,
            buckets=cfg.buckets,
            starting_offsets=cfg.starting_offsets,
            max_offsets_per_trigger=cfg.max_offsets_per_trigger,
            min_partitions=cfg.min_partitions,
            pack=cfg.pack,
        )
        processor = ReassemblyProcessor(
            cfg.qmgr,
            cfg.queue,
            state_ttl_ms=int(cfg.state_ttl_s * 1000),
            dedupe_ms=int(cfg.dedupe_s * 1000),
        )
        out = stream.groupBy("bucket").transformWithStateInPandas(
            statefulProcessor=processor,
            outputStructType=OUTPUT_SCHEMA,
            outputMode="Append",
            timeMode="ProcessingTime",  # MQ expiry runs on the wall clock
        )
        self.sink = ExactlyOnceSink(
            qmgr=cfg.qmgr,
            queue=cfg.queue,
            bootstrap=cfg.bootstrap,
            redis_url=cfg.redis_url,
            query_key=cfg.query_key,
            on_batch=self.on_batch,
            after_commit=self.after_commit,
        )
        self._listener = ProgressLogger(self.name, self.sink, f"{cfg.qmgr}/{cfg.queue}")
        self.spark.streams.addListener(self._listener)
        writer = (
            out.writeStream.foreachBatch(self.sink)
            .queryName(self.name)
            .option("checkpointLocation", cfg.checkpoint)
        )
        # Per-query settings: the query keeps the session's conf as it was at start.
        query_conf: dict[str, str] = {}
        if local_path(cfg.checkpoint):
            # Without Hadoop's native library (pyspark ships none), the default
            # FileContext-based manager's renames fork a `readlink` per path and file
            # creations a `chmod`: ~20 processes forked from the driver JVM every
            # micro-batch (offset log, commit log, each state store's changelog). The
            # FileSystem-based one renames through java.io.File (an atomic rename on a
            # local disk): ~5 forks, and a no-data micro-batch 470 -> 370 ms here.
            query_conf["spark.sql.streaming.checkpointFileManagerClass"] = FS_CHECKPOINTS
        if cfg.shuffle_partitions:
            query_conf["spark.sql.shuffle.partitions"] = str(cfg.shuffle_partitions)
        if cfg.available_now:
            # availableNow never ends while processing-time timers exist if no-data
            # batches run; without them, expiry is only noticed in batches with data.
            query_conf["spark.sql.streaming.noDataMicroBatches.enabled"] = "false"
            writer = writer.trigger(availableNow=True)
        else:
            writer = writer.trigger(processingTime=f"{cfg.trigger_ms} milliseconds")
        previous = {k: self.spark.conf.get(k, None) for k in query_conf}
        try:
            for key, value in query_conf.items():
                self.spark.conf.set(key, value)
            self.query = writer.start()
            self.sink.set_query_id(self.query.id)
        finally:
            for key, value in previous.items():
                if value is None:
                    self.spark.conf.unset(key)
                else:
                    self.spark.conf.set(key, value)
        log.info(
            "%s/%s: reassembly started (checkpoint %s, query key %s)",
            cfg.qmgr,
            cfg.queue,
            cfg.checkpoint,
            cfg.query_key,
        )
        return self

    # -- waiting ----------------------------------------------------------------------
    def _check(self) -> None:
        exc = self.query.exception() if self.query is not None else None
        if exc is not None:
            raise RuntimeError(f"reassembly query failed: {exc}") from None

    def wait_until(self, predicate: Callable[[], bool], timeout: float, poll: float = 0.2) -> bool:
        """Wait for `predicate` (True) or the timeout (False); raises if the query failed."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._check()
            if predicate():
                return True
            if self.query is not None and not self.query.isActive:
                self._check()
                return predicate()
            time.sleep(poll)
        return False

    def caught_up(self) -> bool:
        """Every record committed to the queue's topics before this call was processed."""
        from confluent_kafka import IsolationLevel, TopicPartition
        from confluent_kafka.admin import AdminClient, OffsetSpec

        from streaming.topics import source_topics

        progress = self.query.lastProgress if self.query is not None else None
        if not progress:
            return False
        import json

        done: dict[tuple[str, int], int] = {}
        for src in progress["sources"]:
            end = src.get("endOffset")
            end = json.loads(end) if isinstance(end, str) else end
            for topic, parts in (end or {}).items():
                for part, off in parts.items():
                    done[(topic, int(part))] = off
        admin = AdminClient(
            {**kafka_settings(), "bootstrap.servers": self.cfg.bootstrap, "logger": kafka_logger()}
        )
        specs = {
            TopicPartition(t, p): OffsetSpec.latest()
            for (t, p) in done
            if t in source_topics(self.cfg.qmgr, self.cfg.queue)
        }
        if not specs:
            return False
        futures = admin.list_offsets(specs, isolation_level=IsolationLevel.READ_COMMITTED)
        for tp, fut in futures.items():
            if done[(tp.topic, tp.partition)] < fut.result(30).offset:
                return False
        return True

    def run_until_idle(self, idle_s: float, timeout: float) -> bool:
        """Bounded run: until caught up and nothing was written for `idle_s` seconds."""

        def idle() -> bool:
            if time.monotonic() - self.sink.last_output_at < idle_s:
                return False
            # A held unit about to expire still has a report to give: wait for it.
            due = self.sink.next_expiry()
            if due is not None and due <= time.time() * 1000 + idle_s * 1000:
                return False
            return self.caught_up()

        if self.cfg.available_now:
            self.query.awaitTermination(timeout)
            self._check()
            return not self.query.isActive
        return self.wait_until(idle, timeout, poll=0.5)

    def stop(self) -> None:
        from streaming.session import errors_only

        if self.query is not None:
            try:
                # Right after a micro-batch if we can: stopping inside one cancels its
                # Spark job mid-collect, which Spark reports noisily (harmless: the
                # batch is replayed from the checkpoint).
                if self.sink is not None and self.query.isActive:
                    self.sink.between_batches.clear()
                    self.sink.between_batches.wait(5.0)
                # Interrupting the query makes Hadoop log a WARN with a Java stack trace
                # (a checkpoint write cut short, replayed on restart): not for the user.
                with errors_only(self.spark):
                    self.query.stop()
            finally:
                if self._listener is not None:
                    self.spark.streams.removeListener(self._listener)
                    self._listener = None
                if self.sink is not None:
                    self.sink.close()

    def __enter__(self) -> ReassemblyJob:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


# -- command line ---------------------------------------------------------------------


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("qmgr", help="queue manager name")
    p.add_argument("queue", help="queue name")
    p.add_argument("--checkpoint", help="checkpoint folder or URL (default under ~/.cache/mqk)")
    p.add_argument("--trigger-ms", type=int, default=500, help="micro-batch interval")
    p.add_argument(
        "--available-now",
        action="store_true",
        help="process what is on the queue, then stop (expiry only noticed in data batches)",
    )
    p.add_argument(
        "--until-idle",
        type=float,
        metavar="S",
        help="stop once caught up and nothing was written for S seconds",
    )
    p.add_argument("--timeout", type=float, help="stop after this many seconds in any case")
    p.add_argument("--buckets", type=int, default=16, help="state keys (fixed per checkpoint)")
    p.add_argument("--starting-offsets", default="earliest", choices=["earliest", "latest"])
    p.add_argument("--max-offsets-per-trigger", type=int)
    p.add_argument("--min-partitions", type=int, help="split topic partitions for reading")
    p.add_argument("--state-ttl-s", type=float, default=7 * 24 * 3600)
    p.add_argument("--dedupe-s", type=float, default=60.0, help="late-duplicate window (0 off)")
    p.add_argument("--query-key", help="identity of the outputs (default from the checkpoint)")
    p.add_argument(
        "--shuffle-partitions", type=int, help="stateful tasks (fixed once the checkpoint exists)"
    )
    p.add_argument(
        "--no-pack",
        dest="pack",
        action="store_false",
        help="one row per record into the stateful step (slower; for comparison)",
    )
    p.add_argument("--master", help="Spark master (default local[2], or spark-submit's)")
    p.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="also Spark's warnings, librdkafka's log and logger names",
    )


def config_from_args(args: argparse.Namespace) -> JobConfig:
    return JobConfig(
        qmgr=args.qmgr,
        queue=args.queue,
        checkpoint=args.checkpoint,
        trigger_ms=args.trigger_ms,
        available_now=args.available_now,
        buckets=args.buckets,
        starting_offsets=args.starting_offsets,
        max_offsets_per_trigger=args.max_offsets_per_trigger,
        min_partitions=args.min_partitions,
        state_ttl_s=args.state_ttl_s,
        dedupe_s=args.dedupe_s,
        query_key=args.query_key,
        shuffle_partitions=args.shuffle_partitions,
        pack=args.pack,
    )


def setup_logging(verbose: bool = False, level: str = "INFO") -> None:
    """The job's terminal output: its own progress lines (MQK_LOG_LEVEL, default INFO),
    warnings and errors; `verbose` adds librdkafka's log (see adapter.logs)."""
    _setup_logging(verbose, level)


def run_from_args(
    args: argparse.Namespace, *, after_commit: Callable[[int], None] | None = None
) -> int:
    """Handler of `mqk reassemble` and of the spark-submit entry point.

    `after_commit` is handed to the job (see ReassemblyJob); the CLI passes none."""
    from streaming.session import build_session

    verbose = getattr(args, "verbose", False)
    setup_logging(verbose)
    if "PYSPARK_GATEWAY_PORT" in os.environ:  # launched by spark-submit: keep its master
        os.environ.setdefault("SPARK_MASTER_SET_BY_SUBMIT", "1")
    spark = build_session("mqk-reassemble", master=args.master, verbose=verbose)
    job = ReassemblyJob(spark, config_from_args(args), after_commit=after_commit)
    job.start()
    try:
        if args.available_now or args.until_idle is not None:
            idle = args.until_idle if args.until_idle is not None else 0.0
            finished = job.run_until_idle(idle, args.timeout or float("inf"))
            return 0 if finished else 1
        job.query.awaitTermination(args.timeout)
        job._check()
        return 0
    except KeyboardInterrupt:
        return 130
    finally:
        job.stop()
        totals = dict(job.sink.totals) if job.sink else {}
        log.info("%s/%s: stopped; totals %s", args.qmgr, args.queue, totals)
        time.sleep(0.5)  # let the listener bus deliver the termination event
        spark.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="streaming.job", description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    add_arguments(parser)
    return run_from_args(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
