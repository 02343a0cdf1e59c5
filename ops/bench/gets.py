"""(2) Destructive MQGET in physical order vs a consumer reading as many records.

Persistent messages are got outside syncpoint through get leases (adapter/shim/
getlease.py: one claim locks a run, each get sends its consumption write-behind);
non-persistent ones on a DEFREADA(YES) queue are consumed in batches by read-ahead.
Each MQ run refills the queue (untimed) and opens a new handle; each raw run is a new
consumer reading the same number of records of the same size from offset 0. Both are
timed from the first message delivered (a warm-up message/record precedes the timed
ones), so start-up (assign, first fetch) is left out on both sides. The consumer takes
one record per poll(), as MQGET returns one message per call.

The persistent case is also paired with a share-group consumer acknowledging each
record (sharegroup.py): Kafka's own "exactly one consumer gets it" queue semantics.
"""

from __future__ import annotations

import os
from functools import partial

import adapter.pymqi as pymqi
from ops.bench import mqside, rawkafka, sharegroup
from ops.bench.model import Row, Target
from ops.bench.settings import BenchConfig
from ops.bench.timing import mb_per_s, paired, size_label

C = pymqi.CMQC
TARGET = Target("ratio", ">=", 0.5)
CASES = {
    "persistent": (C.MQPER_PERSISTENT, False),
    "non-persistent, read-ahead": (C.MQPER_NOT_PERSISTENT, True),
}


def _mq_run(qm, queue: str, payload: bytes, n: int, persistence: int) -> float:
    mqside.fill(qm, queue, payload, n + 1, persistence)  # untimed
    return mqside.drain_rate(qm, queue, n + 1)[1]


def _raw_run(bootstrap: str, topic: str, n: int) -> float:
    return rawkafka.read_back(bootstrap, topic, n + 1)[1]


def run(cfg: BenchConfig, bootstrap: str, log=print) -> list[Row]:
    rows: list[Row] = []
    with mqside.mq_session("get") as mq, rawkafka.raw_topics(bootstrap) as topics:
        for size in cfg.sizes:
            n = cfg.get_count[size]
            payload = os.urandom(size)
            topic = topics.create(f"get{size}")
            rawkafka.fill(bootstrap, topic, payload, n + 1)
            for label, (persistence, read_ahead) in CASES.items():
                queue = mq.define(f"GET.{size}.{persistence}", def_read_ahead=read_ahead)
                value, raw = paired(
                    partial(_mq_run, mq.qm, queue, payload, n, persistence),
                    partial(_raw_run, bootstrap, topic, n),
                    cfg.repeats,
                )
                rows.append(
                    Row(
                        pair=f"MQGET physical order {size_label(size)} {label}",
                        section="2 get",
                        unit="msg/s",
                        value=value,
                        raw=raw,
                        raw_label="consumer, same records",
                        target=TARGET,
                        extra={
                            "size": size,
                            "persistence": label,
                            "count": n,
                            "mb_s": mb_per_s(value, size),
                            "raw_mb_s": mb_per_s(raw, size),
                        },
                    )
                )
                log(f"  {rows[-1].pair}: {value:,.0f} vs raw {raw:,.0f} msg/s")
                if persistence == C.MQPER_PERSISTENT:
                    rows.append(_share_row(cfg, mq, queue, payload, n, bootstrap, topic))
                    log(f"  {rows[-1].pair}: {rows[-1].value:,.0f} vs {rows[-1].raw:,.0f} msg/s")
    return rows


def _share_row(cfg, mq, queue: str, payload: bytes, n: int, bootstrap: str, topic: str) -> Row:
    size = len(payload)
    value, raw = paired(
        partial(_mq_run, mq.qm, queue, payload, n, C.MQPER_PERSISTENT),
        partial(sharegroup.share_read, bootstrap, topic, n + 1),
        cfg.repeats,
    )
    return Row(
        pair=f"MQGET physical order {size_label(size)} persistent vs a share group",
        section="2 get",
        unit="msg/s",
        value=value,
        raw=raw,
        raw_label="share-group consumer, explicit acks",
        target=Target("ratio", ">=", 0.3),
        extra={
            "size": size,
            "count": n,
            "mb_s": mb_per_s(value, size),
            "raw_mb_s": mb_per_s(raw, size),
        },
    )
