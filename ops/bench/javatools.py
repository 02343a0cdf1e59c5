"""(7) The broker's own ceiling: Kafka's Java ProducerPerformance and ConsumerPerformance
(kafka-tools 4.3.1) beside the Python raw client, same record counts, sizes and topic
settings. The Java producer gets the shim's acks/idempotence/linger and librdkafka's
default batch size (1,000,000 bytes; Java's own default of 16 KiB would make it the
slower client and hide the broker's ceiling)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

from confluent_kafka import Producer

from ops.bench import rawkafka
from ops.bench.model import Row, unavailable
from ops.bench.settings import MIB, BenchConfig
from ops.bench.timing import mb_per_s, size_label

_PRODUCED = re.compile(
    r"(\d+) (?:steady state )?records sent, ([\d.]+) records/sec \(([\d.]+) MB/sec\)"
)
PRODUCER_PROPS = ("acks=all", "linger.ms=2", "enable.idempotence=true", "batch.size=1000000")


def _java(main: str, args: list[str], timeout: float = 600) -> str:
    from ops.jars import kafka_jars_dir

    cp = f"{kafka_jars_dir()}/*"
    proc = subprocess.run(
        ["java", "-Xmx512m", "-cp", cp, f"org.apache.kafka.tools.{main}", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{main} failed:\n{(proc.stdout + proc.stderr)[-2000:]}")
    return proc.stdout


def parse_producer(out: str) -> tuple[float, float]:
    """(records/s, MB/s) of the last summary line: steady state when warm-up was asked."""
    found = _PRODUCED.findall(out)
    if not found:
        raise ValueError(f"no ProducerPerformance summary in:\n{out[-1000:]}")
    _, rps, mbs = found[-1]
    return float(rps), float(mbs)


def parse_consumer(out: str) -> dict[str, float]:
    """The CSV line under ConsumerPerformance's header, by column name."""
    lines = [ln for ln in out.splitlines() if ln.strip()]
    for i, line in enumerate(lines):
        if line.startswith("start.time"):
            names = [c.strip() for c in line.split(",")]
            values = [c.strip() for c in lines[i + 1].split(",")]
            return {n: float(v) for n, v in zip(names, values, strict=True) if "time" not in n}
    raise ValueError(f"no ConsumerPerformance result in:\n{out[-1000:]}")


def java_produce(bootstrap: str, topic: str, n: int, size: int) -> tuple[float, float]:
    out = _java(
        "ProducerPerformance",
        [
            "--bootstrap-server", bootstrap,
            "--topic", topic,
            "--num-records", str(n),
            "--warmup-records", str(n // 10),
            "--record-size", str(size),
            "--throughput", "-1",
            "--command-property", *PRODUCER_PROPS,
        ],
    )  # fmt: skip
    return parse_producer(out)


def java_consume(bootstrap: str, topic: str, n: int) -> dict[str, float]:
    out = _java(
        "ConsumerPerformance",
        [
            "--bootstrap-server", bootstrap,
            "--topic", topic,
            "--num-records", str(n),
            "--timeout", "120000",
            "--command-property", "isolation.level=read_committed",
        ],
    )  # fmt: skip
    return parse_consumer(out)


def run(cfg: BenchConfig, bootstrap: str, log=print) -> list[Row]:
    rows: list[Row] = []
    if shutil.which("java") is None:
        for size in cfg.sizes:
            for verb in ("produce", "consume"):
                rows.append(
                    unavailable(
                        f"Kafka ceiling {verb} {size_label(size)}: Python raw vs Java tool",
                        "7 ceiling",
                        "msg/s",
                        "(java is not on PATH)",
                    )
                )
        return rows
    with rawkafka.raw_topics(bootstrap) as topics:
        for size in cfg.sizes:
            n = cfg.java_records[size]
            java_topic, py_topic = topics.create(f"java{size}"), topics.create(f"py{size}")
            producer = Producer(rawkafka.producer_conf(bootstrap))
            rawkafka.warm_producer(producer, py_topic)
            py_prod = rawkafka.produce_async(producer, py_topic, os.urandom(size), n)
            java_prod, java_prod_mb = java_produce(bootstrap, java_topic, n, size)
            java_cons = java_consume(bootstrap, java_topic, n)
            py_cons = rawkafka.batch_rate(bootstrap, java_topic, n)
            for verb, py, java, java_mb, note in (
                ("produce", py_prod, java_prod, java_prod_mb, "steady state after 10% warm-up"),
                (
                    "consume",
                    py_cons,
                    java_cons["fetch.nMsg.sec"],
                    java_cons["fetch.MB.sec"],
                    "fetch rate, group join excluded "
                    f"(with it: {java_cons['nMsg.sec']:,.0f} msg/s)",
                ),
            ):
                rows.append(
                    Row(
                        pair=f"Kafka ceiling {verb} {size_label(size)}: Python raw vs Java tool",
                        section="7 ceiling",
                        unit="msg/s",
                        value=py,
                        raw=java,
                        raw_label=f"Java {'Producer' if verb == 'produce' else 'Consumer'}"
                        "Performance",
                        note=note,
                        extra={
                            "size": size,
                            "count": n,
                            "verb": verb,
                            "mb_s": mb_per_s(py, size),
                            "raw_mb_s": java_mb * MIB / 1e6,  # Java's "MB" is MiB
                        },
                    )
                )
                log(f"  {rows[-1].pair}: {py:,.0f} vs Java {java:,.0f} msg/s")
    return rows
