"""(3b) One 64 MiB message: put with MQMF_SEGMENTATION_ALLOWED + get with
MQGMO_COMPLETE_MSG, vs raw produce + consume of the same bytes in 1 MiB records.

Each measurement runs in a fresh child process (`python -m ops.bench.bigmsg mq|raw
SIZE`), so the peak-RSS figure starts from a clean heap and is not flattered by memory
an earlier run left mapped. The payload exists before the measurement starts; the
returned message is part of the peak on both sides.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time

from ops.bench.memory import PeakRSS
from ops.bench.model import Row, Target
from ops.bench.settings import MIB, BenchConfig
from ops.bench.timing import size_label

RATE_TARGET = Target("ratio", ">=", 0.7)
MEMORY_TARGET = Target("value", "<=", 3.0)
RAW_RECORD = MIB


def mq_once(size: int) -> dict:
    import adapter.pymqi as pymqi
    from ops.bench.mqside import mq_session

    C = pymqi.CMQC
    payload = os.urandom(size)
    with mq_session("big") as mq:
        queue = mq.define("BIG")
        q = pymqi.Queue(mq.qm, queue, C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
        q.put(b"warm-up")
        q.get()  # the handle's reader exists before the clock starts
        md = pymqi.MD(MsgFlags=C.MQMF_SEGMENTATION_ALLOWED, Persistence=C.MQPER_PERSISTENT)
        gmo = pymqi.GMO(
            Options=C.MQGMO_COMPLETE_MSG | C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT,
            WaitInterval=30_000,
            MatchOptions=C.MQMO_NONE,
        )
        with PeakRSS() as peak:
            t0 = time.perf_counter()
            q.put(payload, md)
            t1 = time.perf_counter()
            got = q.get(None, pymqi.MD(), gmo)
            t2 = time.perf_counter()
        ok = got == payload
        del got
        q.close()
    return {"put_s": t1 - t0, "get_s": t2 - t1, "peak": peak.delta, "ok": ok}


def raw_once(size: int, bootstrap: str) -> dict:
    from confluent_kafka import Consumer, Producer, TopicPartition

    from ops.bench import rawkafka

    payload = os.urandom(size)
    with rawkafka.raw_topics(bootstrap) as topics:
        topic = topics.create("big")
        producer = Producer(rawkafka.producer_conf(bootstrap))
        rawkafka.warm_producer(producer, topic)
        consumer = Consumer(rawkafka.consumer_conf(bootstrap))
        consumer.assign([TopicPartition(topic, 0, 0)])
        rawkafka.consume_n(consumer, 1)  # the warm-up record: consumer connected
        n = -(-size // RAW_RECORD)
        with PeakRSS() as peak:
            t0 = time.perf_counter()
            for i in range(n):
                rawkafka.produce(producer, topic, payload[i * RAW_RECORD : (i + 1) * RAW_RECORD])
                producer.poll(0)
            producer.flush(120)
            t1 = time.perf_counter()
            msgs, _ = rawkafka.consume_n(consumer, n)
            got = b"".join(m.value() for m in msgs)
            del msgs
            t2 = time.perf_counter()
        ok = got == payload
        del got
        consumer.close()
    return {"put_s": t1 - t0, "get_s": t2 - t1, "peak": peak.delta, "ok": ok}


def _child(side: str, size: int, bootstrap: str, timeout: float = 600) -> dict:
    proc = subprocess.run(
        [sys.executable, "-m", "ops.bench.bigmsg", side, str(size), bootstrap],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"bigmsg {side} failed:\n{proc.stderr[-2000:]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    if not result["ok"]:
        raise RuntimeError(f"bigmsg {side}: the message read back differs from the one put")
    return result


def run(cfg: BenchConfig, bootstrap: str, log=print) -> list[Row]:
    size = cfg.big_size
    runs: dict[str, list[dict]] = {"mq": [], "raw": []}
    for i in range(cfg.big_repeats):
        for side in ("raw", "mq") if i % 2 == 0 else ("mq", "raw"):
            runs[side].append(_child(side, size, bootstrap))

    def med(side: str, key: str) -> float:
        return statistics.median(r[key] for r in runs[side])

    def rate(side: str) -> float:
        return statistics.median(size / (r["put_s"] + r["get_s"]) / 1e6 for r in runs[side])

    label = size_label(size)
    extra = {
        "size": size,
        "mq_put_s": med("mq", "put_s"),
        "mq_get_s": med("mq", "get_s"),
        "raw_put_s": med("raw", "put_s"),
        "raw_get_s": med("raw", "get_s"),
        "mq_peak_mib": med("mq", "peak") / MIB,
        "raw_peak_mib": med("raw", "peak") / MIB,
    }
    rows = [
        Row(
            pair=f"{label} message put+get (SEGMENTATION_ALLOWED, COMPLETE_MSG)",
            section="3 big",
            unit="MB/s",
            value=rate("mq"),
            raw=rate("raw"),
            raw_label=f"produce+consume, {size_label(RAW_RECORD)} records",
            target=RATE_TARGET,
            extra=extra,
        ),
        Row(
            pair=f"{label} message peak memory (RSS above start)",
            section="3 big",
            unit="x msg size",
            value=med("mq", "peak") / size,
            raw=med("raw", "peak") / size,
            raw_label="raw produce+consume peak",
            target=MEMORY_TARGET,
            extra=extra,
        ),
    ]
    for row in rows:
        log(f"  {row.pair}: {row.value:,.2f} vs raw {row.raw:,.2f} {row.unit}")
    return rows


def main(argv: list[str]) -> int:
    side, size, bootstrap = argv[0], int(argv[1]), argv[2]
    result = mq_once(size) if side == "mq" else raw_once(size, bootstrap)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
