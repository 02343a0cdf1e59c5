"""(5) Put-to-get latency at a fixed offered rate vs raw produce-to-consume latency.

A putter thread sends 1 KiB messages at `rate` msg/s, stamping each with its intended
send time (so a putter that falls behind shows up as latency: no coordinated omission);
a getter thread (MQGET with MQGMO_WAIT on its own connection / a consumer) takes them
and records the delay. Puts use MQPMO_ASYNC_RESPONSE (a sync put waits for the broker's
ack, which alone would cap the rate), matched by produce() + poll(0) on the raw side.
The first 10% of each run is warm-up and not counted. A second, low rate shows the
latency without any backlog.
"""

from __future__ import annotations

import os
import statistics
import struct
import threading
import time
from collections.abc import Callable

from confluent_kafka import Consumer, Producer, TopicPartition

import adapter.pymqi as pymqi
from ops.bench import mqside, rawkafka
from ops.bench.model import Row, Target
from ops.bench.settings import KIB, BenchConfig

C = pymqi.CMQC
P99_TARGET = Target("ratio", "<=", 2.0)
PERCENTILES = (("p50", 0.50), ("p99", 0.99), ("p999", 0.999))
_STAMP = struct.Struct(">d")


def percentile(sorted_ms: list[float], q: float) -> float:
    return sorted_ms[min(len(sorted_ms) - 1, int(q * len(sorted_ms)))]


def paced(rate: int, n: int, send: Callable[[bytes], None], filler: bytes) -> float:
    """Call send() n times at `rate` per second; returns the achieved rate."""
    start = time.perf_counter()
    for i in range(n):
        due = start + i / rate
        delay = due - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        send(_STAMP.pack(due) + filler)
    return n / (time.perf_counter() - start)


def _measure(
    rate: int,
    n: int,
    send: Callable[[bytes], None],
    receive: Callable[[], list[bytes]],
    ready: threading.Event,
) -> tuple[list[float], float]:
    """Run receive() in a thread until n messages arrived; (latencies ms, achieved rate)."""
    latencies: list[float] = []
    failure: list[BaseException] = []

    def getter() -> None:
        try:
            deadline = time.monotonic() + n / rate + 60
            while len(latencies) < n and time.monotonic() < deadline:
                for data in receive():
                    latencies.append((time.perf_counter() - _STAMP.unpack_from(data)[0]) * 1e3)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller
            failure.append(exc)
            ready.set()

    thread = threading.Thread(target=getter, daemon=True)
    thread.start()
    ready.wait(30)
    filler = os.urandom(KIB - _STAMP.size)
    achieved = paced(rate, n, send, filler)
    thread.join()
    if failure:
        raise failure[0]
    if len(latencies) < n:
        raise TimeoutError(f"latency: {len(latencies)} of {n} messages arrived")
    return latencies[n // 10 :], achieved


def mq_latency(session: mqside.MQSession, queue: str, rate: int, n: int):
    # The getter's connection is used by the getter thread: a shared handle, as MQ wants.
    put_qm, get_qm = session.connect_again(), session.connect_again(shared=True)
    out = pymqi.Queue(put_qm, queue, C.MQOO_OUTPUT)
    inp = pymqi.Queue(get_qm, queue, C.MQOO_INPUT_SHARED)
    out.put(b"\0" * KIB)  # warm-up: producer connected, then the getter's reader too
    inp.get()
    ready = threading.Event()
    md_persistent = C.MQPER_PERSISTENT
    pmo_opts = C.MQPMO_ASYNC_RESPONSE | C.MQPMO_NO_SYNCPOINT

    def send(data: bytes) -> None:
        out.put(data, pymqi.MD(Persistence=md_persistent), pymqi.PMO(Options=pmo_opts))

    def receive() -> list[bytes]:
        ready.set()
        gmo = pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=500, MatchOptions=C.MQMO_NONE)
        try:
            return [inp.get(None, pymqi.MD(), gmo)]
        except pymqi.MQMIError as err:
            if err.reason == C.MQRC_NO_MSG_AVAILABLE:
                return []
            raise

    try:
        return _measure(rate, n, send, receive, ready)
    finally:
        out.close()
        inp.close()


def raw_latency(bootstrap: str, topic: str, rate: int, n: int):
    producer = Producer(rawkafka.producer_conf(bootstrap))
    rawkafka.warm_producer(producer, topic)
    consumer = Consumer(rawkafka.consumer_conf(bootstrap))
    consumer.assign([TopicPartition(topic, 0, 0)])
    rawkafka.consume_n(consumer, 1)  # the warm-up record
    ready = threading.Event()

    def send(data: bytes) -> None:
        rawkafka.produce(producer, topic, data)
        producer.poll(0)

    def receive() -> list[bytes]:
        ready.set()
        msg = consumer.poll(0.1)  # consume(n, t) would wait out t for a full batch
        return [] if msg is None or msg.error() else [msg.value()]

    try:
        return _measure(rate, n, send, receive, ready)
    finally:
        producer.flush(30)
        consumer.close()


def run(cfg: BenchConfig, bootstrap: str, log=print) -> list[Row]:
    """The target rate (with the p99 target), then a low rate: latency without backlog."""
    rows: list[Row] = []
    with mqside.mq_session("latency") as mq, rawkafka.raw_topics(bootstrap) as topics:
        queue = mq.define("LATENCY")
        for rate in (cfg.latency_rate, cfg.latency_low_rate):
            rows += _at_rate(cfg, bootstrap, mq, queue, topics, rate, log)
    return rows


def _at_rate(cfg, bootstrap, mq, queue, topics, rate: int, log) -> list[Row]:
    n = int(rate * cfg.latency_seconds)
    mq_runs: list[dict] = []
    raw_runs: list[dict] = []
    for i in range(cfg.latency_repeats):
        sides = [("raw", raw_runs), ("mq", mq_runs)]
        for side, runs in sides if i % 2 == 0 else sides[::-1]:
            if side == "mq":
                lat, achieved = mq_latency(mq, queue, rate, n)
            else:
                lat, achieved = raw_latency(bootstrap, topics.create("latency"), rate, n)
            lat.sort()
            runs.append({k: percentile(lat, q) for k, q in PERCENTILES} | {"rate": achieved})
    rows = []
    for key, _ in PERCENTILES:
        value = statistics.median(r[key] for r in mq_runs)
        raw = statistics.median(r[key] for r in raw_runs)
        rows.append(
            Row(
                pair=f"put-to-get latency {key} at {rate} msg/s (1 KiB, persistent)",
                section="5 latency",
                unit="ms",
                value=value,
                raw=raw,
                raw_label="produce-to-consume latency, same rate",
                target=P99_TARGET if key == "p99" and rate == cfg.latency_rate else None,
                extra={
                    "percentile": key,
                    "rate": rate,
                    "count": n,
                    "mq_rate": statistics.median(r["rate"] for r in mq_runs),
                    "raw_rate": statistics.median(r["rate"] for r in raw_runs),
                },
            )
        )
        log(f"  {rows[-1].pair}: {value:,.2f} vs raw {raw:,.2f} ms")
    return rows
