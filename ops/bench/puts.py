"""(1) MQPUT outside syncpoint vs confluent-kafka produce of the same bytes.

Async response (MQPMO_ASYNC_RESPONSE, then the connection barrier) is paired with
produce() + a final flush; sync response (the default, DEFPRESP(SYNC)) with a produce
that waits for its delivery. Persistence changes nothing on the raw side: the same raw
figure is measured again beside each MQ run.
"""

from __future__ import annotations

import os
from functools import partial

from confluent_kafka import Producer

import adapter.pymqi as pymqi
from ops.bench import rawkafka
from ops.bench.model import Row, Target
from ops.bench.mqside import mq_session, put_n
from ops.bench.settings import BenchConfig
from ops.bench.timing import mb_per_s, paired, size_label

C = pymqi.CMQC
TARGET = Target("ratio", ">=", 0.8)
PERSISTENCE = {"persistent": C.MQPER_PERSISTENT, "non-persistent": C.MQPER_NOT_PERSISTENT}


def run(cfg: BenchConfig, bootstrap: str, log=print) -> list[Row]:
    rows: list[Row] = []
    with mq_session("put") as mq, rawkafka.raw_topics(bootstrap) as topics:
        producer = Producer(rawkafka.producer_conf(bootstrap))
        for size in cfg.sizes:
            payload = os.urandom(size)
            topic = topics.create(f"put{size}")
            rawkafka.warm_producer(producer, topic)
            queue = mq.define(f"PUT.{size}")
            q = pymqi.Queue(mq.qm, queue, C.MQOO_OUTPUT)
            q.put(b"warm-up")  # handle open, depth read, producer connected
            for label, persistence in PERSISTENCE.items():
                for mode, counts in (("async", cfg.put_async), ("sync", cfg.put_sync)):
                    n = counts[size]
                    is_async = mode == "async"
                    mq_fn = partial(
                        put_n,
                        q,
                        payload,
                        n,
                        persistence=persistence,
                        async_response=is_async,
                        qm=mq.qm,
                    )
                    raw_put = rawkafka.produce_async if is_async else rawkafka.produce_sync
                    raw_fn = partial(raw_put, producer, topic, payload, n)
                    value, raw = paired(mq_fn, raw_fn, cfg.repeats)
                    rows.append(
                        Row(
                            pair=f"MQPUT {mode}-response {size_label(size)} {label}",
                            section="1 put",
                            unit="msg/s",
                            value=value,
                            raw=raw,
                            raw_label="produce + final flush"
                            if is_async
                            else "produce, wait for each delivery",
                            target=TARGET,
                            extra={
                                "size": size,
                                "mode": mode,
                                "persistence": label,
                                "count": n,
                                "mb_s": mb_per_s(value, size),
                                "raw_mb_s": mb_per_s(raw, size),
                            },
                        )
                    )
                    log(f"  {rows[-1].pair}: {value:,.0f} vs raw {raw:,.0f} msg/s")
            q.close()
        producer.flush(30)
    return rows
