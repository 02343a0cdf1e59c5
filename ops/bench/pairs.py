"""(11) Persistent put+get pairs per second: one putter process and one getter process on
one queue, 1 KiB persistent messages, sync MQPUTs and destructive MQGETs outside
syncpoint, the measure IBM's performance reports give per core (its MQ 9.3 report:
about 5,300 persistent round trips a second per core). The raw side is the same shape
on Kafka: a producer process that waits for each record's delivery and a consumer
process reading them. Pairs/s = messages / (first put to last get), both processes
started and connected before the clock starts.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
from functools import partial

import adapter.pymqi as pymqi
from ops.bench import mqside, rawkafka
from ops.bench.model import Row, Target
from ops.bench.settings import KIB, BenchConfig
from ops.bench.timing import paired

C = pymqi.CMQC
SIZE = KIB
IBM_PER_CORE = 5_300


def _mq_putter(qmgr: str, queue: str, n: int, go, out) -> None:
    qm = pymqi.connect(qmgr)
    q = pymqi.Queue(qm, queue, C.MQOO_OUTPUT)
    payload = os.urandom(SIZE)
    pmo = pymqi.PMO(Options=C.MQPMO_NO_SYNCPOINT | C.MQPMO_SYNC_RESPONSE)
    q.put(b"warm-up", pymqi.MD(Persistence=C.MQPER_PERSISTENT), pmo)
    go.wait()
    out.put(("start", time.time()))
    for _ in range(n):
        q.put(payload, pymqi.MD(Persistence=C.MQPER_PERSISTENT), pmo)
    q.close()
    qm.disconnect()


def _mq_getter(qmgr: str, queue: str, n: int, ready, out) -> None:
    qm = pymqi.connect(qmgr)
    q = pymqi.Queue(qm, queue, C.MQOO_INPUT_SHARED)
    gmo = pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=30_000)
    q.get(None, pymqi.MD(), gmo)  # the putter's warm-up message
    ready.set()
    for _ in range(n):
        q.get(None, pymqi.MD(), gmo)
    out.put(("end", time.time()))
    q.close()
    qm.disconnect()


def _raw_producer(bootstrap: str, topic: str, n: int, go, out) -> None:
    from confluent_kafka import Producer

    producer = Producer(rawkafka.producer_conf(bootstrap))
    rawkafka.warm_producer(producer, topic)
    payload = os.urandom(SIZE)
    go.wait()
    out.put(("start", time.time()))
    rawkafka.produce_sync(producer, topic, payload, n)


def _raw_consumer(bootstrap: str, topic: str, n: int, ready, out) -> None:
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer(rawkafka.consumer_conf(bootstrap))
    consumer.assign([TopicPartition(topic, 0, 0)])
    got = 0
    while got < 1:  # the producer's warm-up record
        msg = consumer.poll(1.0)
        got += msg is not None and msg.error() is None
    ready.set()
    got = 0
    while got < n:
        msg = consumer.poll(1.0)
        got += msg is not None and msg.error() is None
    out.put(("end", time.time()))
    consumer.close()


def _two_processes(put_fn, get_fn, n: int) -> float:
    """Start the getter, then the putter; both ready before the clock: pairs/s."""
    ctx = mp.get_context("spawn")
    ready, go, out = ctx.Event(), ctx.Event(), ctx.Queue()
    getter = ctx.Process(target=get_fn, args=(n, ready, out))
    putter = ctx.Process(target=put_fn, args=(n, go, out))
    getter.start()
    putter.start()
    if not ready.wait(120):
        raise TimeoutError("the getter did not start")
    go.set()
    marks = dict(out.get(timeout=600) for _ in range(2))
    for p in (putter, getter):
        p.join(60)
        if p.exitcode != 0:
            raise RuntimeError(f"{p.name} exited with {p.exitcode}")
    return n / (marks["end"] - marks["start"])


def run(cfg: BenchConfig, bootstrap: str, log=print) -> list[Row]:
    n = cfg.pair_count
    with mqside.mq_session("pairs") as mq, rawkafka.raw_topics(bootstrap) as topics:
        runs = iter(range(1_000_000))

        def mq_run() -> float:
            queue = mq.define(f"PAIRS.{next(runs)}")  # a fresh queue: no backlog carried
            return _two_processes(
                partial(_mq_putter, mq.name, queue), partial(_mq_getter, mq.name, queue), n
            )

        def raw_run() -> float:
            fresh = topics.create(f"pairs{next(runs)}")
            return _two_processes(
                partial(_raw_producer, bootstrap, fresh),
                partial(_raw_consumer, bootstrap, fresh),
                n,
            )

        value, raw = paired(mq_run, raw_run, cfg.repeats)
    row = Row(
        pair="persistent put+get pairs/s, 1 KiB, one putter and one getter process",
        section="11 pairs",
        unit="pairs/s",
        value=value,
        raw=raw,
        raw_label="producer (delivery awaited) + consumer processes",
        target=Target("value", ">=", 2 * IBM_PER_CORE),
        extra={"count": n, "ibm_per_core": IBM_PER_CORE},
    )
    log(f"  {row.pair}: {value:,.0f} vs raw {raw:,.0f} pairs/s")
    return [row]
