"""(10) Publish/subscribe fan-out against a raw Kafka fan-out, in the same run.

Issue 16's rows: one publisher to 1, 10 and 100 subscriptions, 1 KiB, non-persistent and
persistent; the figure is publications delivered per second, counted as copies got by
the subscribers (N subscriptions x n publications over the time from the first MQPUT
to the last MQGET). The MQ side publishes with MQPUT on a topic handle outside
syncpoint with MQPMO_ASYNC_RESPONSE, as the raw producer sends without waiting per
record (a synchronous put's broker round trip is row (1)'s), to N non-durable
subscriptions on N local queues (no transaction: shim/pubdelivery.py direct), then each
subscriber gets its n copies. Both sides' subscribers are ready before the clock starts:
the raw consumers assigned and fetching, each MQ subscription's queue open and got from
once (nothing there yet).
The raw side is Kafka's own fan-out: one producer writes n records to one topic and N
consumers, each assigned the whole topic as its own group would be, read all n. Target:
a ratio of at least 0.5. Raw and MQ alternate (ABBA, ops/bench/timing.py).
"""

from __future__ import annotations

import os
import time
import uuid
from functools import partial

from confluent_kafka import Consumer, Producer, TopicPartition

import adapter.pymqi as pymqi
from ops.bench.model import Row, Target
from ops.bench.mqside import MQSession, get_n, mq_session
from ops.bench.rawkafka import (
    consume_n,
    consumer_conf,
    produce,
    producer_conf,
    raw_topics,
    warm_producer,
)
from ops.bench.settings import KIB, BenchConfig
from ops.bench.timing import paired

C = pymqi.CMQC
SECTION = "10 pubsub"
TARGET = Target("ratio", ">=", 0.5)
FANOUTS = (1, 10, 100)
RAW_LABEL = "raw Kafka: one topic, N consumers each reading all"


def publications(cfg: BenchConfig, subs: int) -> int:
    """Publications per run: the copies (subs x n) stay near the mode's 1 KiB get count,
    at least 20 publications."""
    return max(20, min(cfg.get_count[KIB] // 5, cfg.get_count[KIB] * 2 // subs))


def _mq_run(
    mq: MQSession, queues: list[str], topic: str, payload: bytes, n: int, persistence: int
) -> float:
    """One run: n publications, then every subscriber takes its n: copies/s."""
    handles = [pymqi.Queue(mq.qm, q, C.MQOO_INPUT_SHARED) for q in queues]
    for q in handles:  # each subscriber ready, as the raw consumers are (_warm)
        _warm(q)
    pub = pymqi.Topic(mq.qm, topic_string=topic)
    pub.open(open_opts=C.MQOO_OUTPUT)
    pmo = pymqi.PMO(Options=C.MQPMO_NO_SYNCPOINT | C.MQPMO_ASYNC_RESPONSE)
    start = time.perf_counter()
    for _ in range(n):
        pub.pub(payload, pymqi.MD(Persistence=persistence), pmo)
    for q in handles:
        get_n(q, n)
    elapsed = time.perf_counter() - start
    pub.close()
    for q in handles:
        q.close()
    return len(queues) * n / elapsed


def _warm(q: pymqi.Queue) -> None:
    """A subscriber that is already getting: one MQGET without wait before the run (it
    finds nothing, 2033), so the handle's reader is connected and caught up, as a raw
    consumer is assigned and fetching before its run. Steady delivery is the figure,
    not a subscriber's start."""
    try:
        q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_NO_WAIT | C.MQGMO_NO_SYNCPOINT))
    except pymqi.MQMIError as err:
        if err.reason != C.MQRC_NO_MSG_AVAILABLE:
            raise
    else:
        raise RuntimeError("a subscription queue held a copy before the run")


def _raw_run(bootstrap: str, topic: str, payload: bytes, n: int, subs: int) -> float:
    """One run: n records produced, then each of `subs` consumers reads them all."""
    producer = Producer(producer_conf(bootstrap))
    warm_producer(producer, topic)
    consumers = []
    for _ in range(subs):
        consumer = Consumer(consumer_conf(bootstrap, **{"group.id": f"fan-{uuid.uuid4().hex}"}))
        consumers.append(consumer)
    _lo, hi = consumers[0].get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
    for consumer in consumers:
        consumer.assign([TopicPartition(topic, 0, hi)])
        consumer.consume(1, timeout=0.05)  # connected and fetching: nothing there yet
    start = time.perf_counter()
    for _ in range(n):
        produce(producer, topic, payload)
        producer.poll(0)
    producer.flush(60)
    for consumer in consumers:
        consume_n(consumer, n)
    elapsed = time.perf_counter() - start
    for consumer in consumers:
        consumer.close()
    return subs * n / elapsed


def run(cfg: BenchConfig, bootstrap: str, log=print) -> list[Row]:
    rows: list[Row] = []
    payload = os.urandom(KIB)
    with mq_session("pubsub") as mq, raw_topics(bootstrap) as raw:
        # 100 subscriptions, their queues' input handles and the publisher: over the
        # default MAXHANDS (256).
        fanouts = cfg.pubsub_fanouts or FANOUTS
        mq.qm.alter_qmgr(max_handles=4 * max(fanouts) + 64)
        for subs in fanouts:
            queues = [mq.define(f"FAN{subs}.S{i}") for i in range(subs)]
            topic = f"bench/fan{subs}"
            held = []
            for q in queues:  # non-durable subscriptions that live through the runs
                sub = pymqi.Subscription(mq.qm)
                sd = pymqi.SD(Options=C.MQSO_CREATE | C.MQSO_NON_DURABLE)
                sd.set_vs("ObjectString", topic)
                sub.sub(sub_desc=sd, sub_queue=pymqi.Queue(mq.qm, q, C.MQOO_OUTPUT))
                held.append(sub)
            raw_topic = raw.create(f"fan{subs}")
            n = publications(cfg, subs)
            for persistence, label in ((C.MQPER_NOT_PERSISTENT, "non-persistent"),
                                       (C.MQPER_PERSISTENT, "persistent")):  # fmt: skip
                pair = f"publish 1 KiB to {subs} subscription{'s' if subs > 1 else ''} ({label})"
                value, rawv = paired(
                    partial(_mq_run, mq, queues, topic, payload, n, persistence),
                    partial(_raw_run, bootstrap, raw_topic, payload, n, subs),
                    cfg.repeats,
                )
                rows.append(
                    Row(
                        pair,
                        SECTION,
                        "copies/s",
                        value,
                        rawv,
                        RAW_LABEL,
                        TARGET,
                        extra={"subscriptions": subs, "publications": n},
                    )  # fmt: skip
                )
                log(f"  {pair}: {value:,.0f} vs {rawv:,.0f} copies/s ({value / rawv:.2f})")
            for sub in held:
                sub.close()
    return rows
