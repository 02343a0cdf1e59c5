"""Benchmark of the reassembly job on the local stack: `run(...) -> dict`.

1. Throughput: a queue is filled with `segments` physical messages of `size` bytes
   (logical messages of `per_message` segments, split by the shim's MQPUT
   segmentation), then the job reassembles them; segments per second are counted over
   the micro-batches after the first (which includes query start-up).
2. Latency: with the job caught up (500 ms trigger), logical messages are put at a
   steady rate; latency runs from the arrival of a message's last segment (its Kafka
   LogAppendTime) to the moment a read_committed consumer receives the output.
3. Where the time goes: the rules' own Python cost on one core (decode, advance,
   encode), and the framework floor: the same Spark pipeline with a processor that
   only joins values (no rules, no state calls, no Kafka writes).
4. The same segments through streaming.pyreassembler (one Python process, same rules),
   throughput and latency.

    python -m streaming.bench [--segments N] [--size B]
"""

from __future__ import annotations

import argparse
import json
import threading
import time
import uuid
from typing import Any

from confluent_kafka import OFFSET_END, Consumer, TopicPartition
from pyspark.sql.streaming import StatefulProcessor

import adapter.pymqi as pymqi
from adapter import config
from adapter.config import kafka_settings
from adapter.logs import kafka_logger
from streaming import packing, topics
from streaming.job import FS_CHECKPOINTS, JobConfig, ReassemblyJob
from streaming.progress import percentile

C = pymqi.CMQC


def _fill(qm, queue: str, messages: int, payload: bytes) -> float:
    q = pymqi.Queue(qm, queue, C.MQOO_OUTPUT)
    pmo = pymqi.PMO(Options=C.MQPMO_NO_SYNCPOINT | C.MQPMO_ASYNC_RESPONSE)
    started = time.monotonic()
    for _ in range(messages):
        q.put(payload, pymqi.MD(MsgFlags=C.MQMF_SEGMENTATION_ALLOWED), pmo)
    q.close()
    qm.commit()
    return time.monotonic() - started


class _Receiver(threading.Thread):
    """Receives the logical topic from its end: (receive ms, last-piece ms) per record."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        super().__init__(daemon=True)
        self.consumer = Consumer(
            {
                **kafka_settings(),
                "bootstrap.servers": bootstrap,
                "group.id": f"mqk-bench-{uuid.uuid4().hex[:8]}",
                "isolation.level": "read_committed",
                "fetch.wait.max.ms": 10,
                "enable.auto.commit": False,
                "logger": kafka_logger(),
            }
        )
        self.consumer.assign([TopicPartition(topic, 0, OFFSET_END)])
        self.samples: list[int] = []
        self.stop = threading.Event()
        self.ready = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            msgs = self.consumer.consume(1000, timeout=0.05)
            self.ready.set()
            now = int(time.time() * 1000)
            for msg in msgs:
                if msg.error():
                    continue
                headers = dict(msg.headers() or [])
                self.samples.append(now - int(headers["mqk.last_ts"]))
        self.consumer.close()


class _JoinOnly(StatefulProcessor):
    """The framework floor: same input, shuffle, state store and output volume as the
    job, but no rules, no decoding and no state calls: each bucket's records read into
    numpy (streaming.packing.Chunk) and their values handed back as one row."""

    def init(self, handle) -> None:
        pass

    def handleInputRows(self, key, rows, timerValues):
        import pandas as pd

        chunk = packing.Chunk.of_frames(rows)
        # The bytes back in rows of 10 KiB, the size of the job's logical messages (one
        # row of megabytes also made Spark overflow its stack formatting it at stop).
        data = chunk.value
        values = [data[i : i + 10240] for i in range(0, len(data), 10240)] or [b""]
        counts = [len(chunk)] + [0] * (len(values) - 1)
        yield pd.DataFrame({"unit": [b""] * len(values), "value": values, "n": counts})

    def close(self) -> None:
        pass


def _framework_floor(spark, cfg: JobConfig, segments: int) -> int:
    """Segments/s of _JoinOnly over the same queue, micro-batches after the first."""
    from streaming.source import packed_queue_stream

    cfg = cfg.resolved()
    stream = packed_queue_stream(
        spark,
        cfg.bootstrap,
        cfg.qmgr,
        cfg.queue,
        buckets=cfg.buckets,
        max_offsets_per_trigger=cfg.max_offsets_per_trigger,
        min_partitions=cfg.min_partitions,
        pack=cfg.pack,
    )
    out = stream.groupBy("bucket").transformWithStateInPandas(
        _JoinOnly(), "unit binary, value binary, n int", "Append", "ProcessingTime"
    )
    done: list[tuple[float, int]] = []

    def collect(df, batch_id: int) -> None:
        table = df.toArrow()
        done.append((time.monotonic(), sum(table.column("n").to_pylist())))

    key = "spark.sql.streaming.checkpointFileManagerClass"  # as the job sets it
    previous = spark.conf.get(key, None)
    spark.conf.set(key, FS_CHECKPOINTS)
    try:
        query = (
            out.writeStream.foreachBatch(collect)
            .option("checkpointLocation", f"{cfg.checkpoint}-floor")
            .trigger(processingTime=f"{cfg.trigger_ms} milliseconds")
            .start()
        )
    finally:
        if previous is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, previous)
    try:
        deadline = time.monotonic() + 1800
        while sum(n for _, n in done) < segments and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        query.stop()
    data = [(t, n) for t, n in done if n]
    if len(data) < 2:
        return 0
    return round(sum(n for _, n in data[1:]) / (data[-1][0] - data[0][0]))


def _rules_cost(size: int, per_message: int, units: int = 2000) -> int:
    """Segments/s of decode + advance + encode on one core: the job's own Python work."""
    from mqk_avro import codec

    from streaming.assembly import Piece, advance

    now = int(time.time() * 1000)
    batches = []
    for u in range(units):
        gid = u.to_bytes(24, "big")
        values = []
        for s in range(per_message):
            last = s == per_message - 1
            env = codec.new_envelope(
                GroupId=gid,
                MsgId=(u * per_message + s).to_bytes(24, "big"),
                Offset=s * size,
                MsgFlags=C.MQMF_LAST_SEGMENT if last else C.MQMF_SEGMENT,
                Payload=b"x" * size,
                PutTimestamp=now,
            )
            values.append(codec.encode(env))
        batches.append(values)
    started = time.monotonic()
    for values in batches:
        pieces = [Piece(0, 0, i, now, v, codec.decode(v)) for i, v in enumerate(values)]
        for m in advance(None, pieces, now).messages:
            codec.encode(m.env)
    return round(units * per_message / (time.monotonic() - started))


def _measure_latency(
    qm, queue: str, payload: bytes, bootstrap: str, topic: str, messages: int, rate: float
) -> list[int]:
    """Put `messages` logical messages at `rate` a second; latency of each output record
    from its last segment's arrival (header mqk.last_ts) to its receipt.

    Paced on an absolute schedule (message i is due at start + i/rate), so the time a put
    takes does not lower the offered load; the puts' responses are asynchronous."""
    receiver = _Receiver(bootstrap, topic)
    receiver.start()
    receiver.ready.wait(10)
    q = pymqi.Queue(qm, queue, C.MQOO_OUTPUT)
    pmo = pymqi.PMO(Options=C.MQPMO_NO_SYNCPOINT | C.MQPMO_ASYNC_RESPONSE)
    start = time.monotonic()
    for i in range(messages):
        delay = start + i / rate - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        q.put(payload, pymqi.MD(MsgFlags=C.MQMF_SEGMENTATION_ALLOWED), pmo)
    q.close()
    qm.commit()
    deadline = time.monotonic() + 120
    while len(receiver.samples) < messages and time.monotonic() < deadline:
        time.sleep(0.1)
    receiver.stop.set()
    receiver.join(5)
    return receiver.samples


def latency_load(segments_per_s: float | None, per_message: int, share: float = 0.5) -> float:
    """Logical messages a second for the latency phase: `share` of the measured
    throughput (a steady load the job keeps up with), at least 10."""
    if not segments_per_s:
        return 10.0
    return max(10.0, share * segments_per_s / per_message)


def run(
    segments: int = 300_000,
    size: int = 1024,
    *,
    per_message: int = 10,
    spark=None,
    qmgr: str | None = None,
    trigger_ms: int = 500,
    buckets: int = 16,
    max_offsets_per_trigger: int = 60_000,
    min_partitions: int | None = 2,
    latency_s: float = 20.0,
    latency_rate: float | None = None,
    shuffle_partitions: int | None = None,
    pack: bool = True,
    python_reassembler: bool = True,
    framework_floor: bool = True,
    log=print,
) -> dict[str, Any]:
    """Run the three phases; returns the figures (see the module docstring)."""
    from streaming.pyreassembler import PyReassembler
    from streaming.session import build_session

    qmgr = qmgr or f"BENCH{uuid.uuid4().hex[:6].upper()}"
    bootstrap = config.endpoints().kafka_bootstrap
    own_spark = spark is None
    spark = spark or build_session("mqk-bench")
    qm = pymqi.connect(qmgr)
    queue = "BENCH.SEGMENTS"
    # A queue's MAXMSGL may not exceed the queue manager's (DEFINE QLOCAL MAXMSGL).
    qm.alter_qmgr(max_msg_length=100 * 1024 * 1024)
    qm.define_queue(
        queue, max_depth=100_000_000, segment_size=size, max_msg_length=100 * 1024 * 1024
    )
    messages = max(1, segments // per_message)
    segments = messages * per_message
    payload = bytes(range(256)) * (size * per_message // 256 + 1)
    payload = payload[: size * per_message]
    log(f"filling {queue}: {messages} messages of {per_message} x {size} B segments")
    fill_s = _fill(qm, queue, messages, payload)
    result: dict[str, Any] = {
        "segments": segments,
        "segment_bytes": size,
        "segments_per_message": per_message,
        "put_segments_per_s": round(segments / fill_s),
        "trigger_ms": trigger_ms,
        "buckets": buckets,
        "max_offsets_per_trigger": max_offsets_per_trigger,
        "pack": pack,
    }

    cfg = JobConfig(
        qmgr,
        queue,
        checkpoint=f"/tmp/mqk-bench-{qmgr}",
        trigger_ms=trigger_ms,
        buckets=buckets,
        max_offsets_per_trigger=max_offsets_per_trigger,
        min_partitions=min_partitions,
        shuffle_partitions=shuffle_partitions,
        pack=pack,
    )
    job = ReassemblyJob(spark, cfg).start()
    try:
        started = time.monotonic()

        def joined() -> int:
            return sum(s.segments for s in job.sink.history.values())

        assert job.wait_until(lambda: joined() >= segments, 1800), "job did not finish"
        total_s = time.monotonic() - started
        batches = sorted(job.sink.history.values(), key=lambda s: s.batch_id)
        data = [b for b in batches if b.segments]
        steady = data[1:]
        if steady:
            span = steady[-1].committed_at - data[0].committed_at
            result["spark_segments_per_s"] = round(sum(b.segments for b in steady) / span)
            result["spark_batch_collect_ms_avg"] = round(
                sum(b.collect_ms for b in steady) / len(steady)
            )
            result["spark_batch_write_ms_avg"] = round(
                sum(b.write_ms for b in steady) / len(steady)
            )
            result["spark_batch_processor_python_ms_avg"] = round(
                sum(b.python_ms for b in steady) / len(steady)
            )
        result["spark_segments_per_s_with_startup"] = round(segments / total_s)
        result["spark_first_batch_s"] = round(data[0].collect_ms / 1000, 1) if data else None
        progress = [p for p in job.query.recentProgress if p["numInputRows"]]
        result["spark_batch_durations_ms"] = {
            str(p["batchId"]): dict(p["durationMs"]) for p in progress[-4:]
        }
        if progress and progress[-1]["stateOperators"]:
            op = progress[-1]["stateOperators"][0]
            result["spark_state_operator_ms"] = {
                k: op.get(k) for k in ("allUpdatesTimeMs", "allRemovalsTimeMs", "commitTimeMs")
            }
        log(f"throughput: {json.dumps({k: v for k, v in result.items() if 'spark' in k})}")

        # Latency: the job is caught up; messages now arrive at a steady rate, by default
        # half the throughput just measured.
        first_latency_batch = max(job.sink.history) + 1
        rate = latency_rate or latency_load(result.get("spark_segments_per_s"), per_message)
        latency_messages = max(1, round(rate * latency_s))
        result["latency_offered_segments_per_s"] = round(rate * per_message)
        lat = _measure_latency(
            qm,
            queue,
            payload,
            bootstrap,
            topics.logical_topic(qmgr, queue),
            latency_messages,
            rate,
        )
        result["latency_messages"] = len(lat)
        result["latency_ms_p50"] = percentile(lat, 0.50)
        result["latency_ms_p99"] = percentile(lat, 0.99)
        result["latency_ms_max"] = max(lat) if lat else None
        result["spark_latency_ms"] = result["latency_ms_p99"]  # what ops/bench reads
        # Micro-batches of the latency phase: their length is the latency floor.
        phase = [p for p in job.query.recentProgress if p["batchId"] >= first_latency_batch]
        if phase:
            keys = ("triggerExecution", "addBatch", "queryPlanning", "walCommit", "commitOffsets")
            result["latency_phase_batch_ms_avg"] = {
                k: round(sum(p["durationMs"].get(k, 0) for p in phase) / len(phase)) for k in keys
            }
            sink_batches = [s for b, s in job.sink.history.items() if b >= first_latency_batch]
            result["latency_phase_sink_ms_avg"] = {
                "collect (stateful stage)": round(
                    sum(s.collect_ms for s in sink_batches) / max(1, len(sink_batches))
                ),
                "write (Kafka transaction)": round(
                    sum(s.write_ms for s in sink_batches) / max(1, len(sink_batches))
                ),
            }
        log(f"latency: p50={result['latency_ms_p50']} p99={result['latency_ms_p99']} ms")
    finally:
        job.stop()

    result["rules_core_segments_per_s_one_core"] = _rules_cost(size, per_message)
    if framework_floor:
        result["spark_framework_floor_segments_per_s"] = _framework_floor(spark, cfg, segments)
        log(f"framework floor: {result['spark_framework_floor_segments_per_s']} segments/s")
    if python_reassembler:
        total = segments + latency_messages * per_message
        py = PyReassembler(qmgr, queue, bootstrap)
        t0 = time.monotonic()
        stats = py.run(total)
        elapsed = time.monotonic() - t0
        result["single_process_segments_per_s"] = round(stats.segments / elapsed)
        stop = threading.Event()
        live = threading.Thread(target=py.run_until, args=(stop,), daemon=True)
        live.start()
        lat = _measure_latency(qm, queue, payload, bootstrap, py.out_topic, latency_messages, rate)
        stop.set()
        live.join(10)
        py.close()
        result["single_process_latency_ms_p50"] = percentile(lat, 0.50)
        result["single_process_latency_ms"] = percentile(lat, 0.99)
        log(
            f"single-process Python reassembler: {result['single_process_segments_per_s']} "
            f"segments/s, latency p99 {result['single_process_latency_ms']} ms"
        )
    qm.disconnect()
    if own_spark:
        spark.stop()
    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="streaming.bench", description=__doc__)
    p.add_argument("--segments", type=int, default=300_000)
    p.add_argument("--size", type=int, default=1024)
    p.add_argument("--per-message", type=int, default=10)
    p.add_argument("--buckets", type=int, default=16)
    p.add_argument("--max-offsets-per-trigger", type=int, default=60_000)
    p.add_argument("--shuffle-partitions", type=int)
    p.add_argument("--latency-s", type=float, default=20.0, help="latency phase length")
    p.add_argument(
        "--latency-rate", type=float, help="logical messages/s (default: half the measured max)"
    )
    p.add_argument("--no-pack", dest="pack", action="store_false", help="one row per record")
    p.add_argument("--no-python", action="store_true")
    p.add_argument("--no-floor", action="store_true", help="skip the framework-floor run")
    args = p.parse_args(argv)
    result = run(
        args.segments,
        args.size,
        per_message=args.per_message,
        buckets=args.buckets,
        max_offsets_per_trigger=args.max_offsets_per_trigger,
        shuffle_partitions=args.shuffle_partitions,
        pack=args.pack,
        latency_s=args.latency_s,
        latency_rate=args.latency_rate,
        python_reassembler=not args.no_python,
        framework_floor=not args.no_floor,
    )
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
