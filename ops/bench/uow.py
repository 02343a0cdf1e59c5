"""(4) Get-process-put units of work vs consume-transform-produce Kafka transactions.

The MQ side gets k messages under syncpoint, puts each transformed message under
syncpoint to another queue, then MQCMIT. The raw side consumes k records, produces the
transformed ones in a transaction with send_offsets_to_transaction, and commits. Until
the shim has units of work (MQGMO_SYNCPOINT gives MQRC_SYNCPOINT_NOT_AVAILABLE, 2072) the
MQ side reports "not available yet (reason 2072)"; the probe lights it up by itself.
"""

from __future__ import annotations

import os
import statistics
import time
import uuid

from confluent_kafka import Consumer, Producer, TopicPartition

import adapter.pymqi as pymqi
from ops.bench import mqside, rawkafka
from ops.bench.model import Row, Target, unavailable
from ops.bench.settings import KIB, BenchConfig
from ops.bench.timing import paired

C = pymqi.CMQC
TARGET = Target("ratio", ">=", 0.8)
RAW_LABEL = "consume-transform-produce, send_offsets_to_transaction"


def transform(data: bytes) -> bytes:
    return data[::-1]


def syncpoint_reason(qm: pymqi.QueueManager, queue: str) -> int | None:
    """None if gets and puts under syncpoint work, else the reason code they give."""
    q = pymqi.Queue(qm, queue, C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT)
    try:
        q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_SYNCPOINT | C.MQGMO_NO_WAIT))
    except pymqi.MQMIError as err:
        if err.reason != C.MQRC_NO_MSG_AVAILABLE:
            return err.reason
    try:
        q.put(b"probe", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
        qm.backout()
    except pymqi.MQMIError as err:
        return err.reason
    finally:
        q.close()
    return None


def mq_uow(
    qm: pymqi.QueueManager, q_in: str, q_out: str, n: int, batch: int, open_options: int = 0
) -> float:
    """n messages in units of `batch` get+put pairs: msg/s from the first get's return.
    `open_options` may add MQOO_READ_AHEAD: syncpoint gets lock messages in batches."""
    src = pymqi.Queue(qm, q_in, C.MQOO_INPUT_SHARED | open_options)
    dst = pymqi.Queue(qm, q_out, C.MQOO_OUTPUT)
    gmo_opts = C.MQGMO_SYNCPOINT | C.MQGMO_WAIT
    put_opts = pymqi.PMO(Options=C.MQPMO_SYNCPOINT)
    start = None
    try:
        for done in range(0, n, batch):
            for _ in range(min(batch, n - done)):
                md = pymqi.MD()
                gmo = pymqi.GMO(Options=gmo_opts, WaitInterval=5000, MatchOptions=C.MQMO_NONE)
                data = src.get(None, md, gmo)
                start = start or time.perf_counter()
                dst.put(transform(data), pymqi.MD(Persistence=md.Persistence), put_opts)
            qm.commit()
    finally:
        src.close()
        dst.close()
    return (n - 1) / (time.perf_counter() - start)


def raw_uow(bootstrap: str, src: str, dst: str, n: int, batch: int) -> float:
    """n records in transactions of `batch`: msg/s from the first batch in hand."""
    consumer = Consumer(rawkafka.consumer_conf(bootstrap))
    consumer.assign([TopicPartition(src, 0, 0)])
    # Short retry backoff: librdkafka's default 100 ms throttles back-to-back transactions.
    producer = Producer(
        rawkafka.producer_conf(
            bootstrap, **{"transactional.id": f"bench-{uuid.uuid4().hex}", "retry.backoff.ms": 5}
        )
    )
    producer.init_transactions(30)
    start = None
    done = 0
    try:
        while done < n:
            want = min(batch, n - done)
            msgs: list = []
            while len(msgs) < want:
                msgs += [m for m in consumer.consume(want - len(msgs), 5.0) if not m.error()]
            start = start or time.perf_counter()
            producer.begin_transaction()
            for m in msgs:
                rawkafka.produce(producer, dst, transform(m.value()))
            offsets = [TopicPartition(src, 0, msgs[-1].offset() + 1)]
            producer.send_offsets_to_transaction(offsets, consumer.consumer_group_metadata(), 30)
            producer.commit_transaction(30)
            done += len(msgs)
    finally:
        consumer.close()
    return (n - 1) / (time.perf_counter() - start)


def run(cfg: BenchConfig, bootstrap: str, log=print) -> list[Row]:
    rows: list[Row] = []
    payload = os.urandom(KIB)
    with mqside.mq_session("uow") as mq, rawkafka.raw_topics(bootstrap) as topics:
        q_in, q_out = mq.define("UOW.IN"), mq.define("UOW.OUT")
        reason = syncpoint_reason(mq.qm, q_in)
        src, dst = topics.create("uow-in"), topics.create("uow-out")
        rawkafka.fill(bootstrap, src, payload, max(cfg.uow_messages.values()))
        # The largest batch once more with MQOO_READ_AHEAD: syncpoint gets lock their
        # messages in batches (one Redis call per batch instead of one per get).
        runs = [(b, n, 0) for b, n in sorted(cfg.uow_messages.items())]
        batch, n = max(cfg.uow_messages.items())
        runs.append((batch, n, C.MQOO_READ_AHEAD))
        for batch, n, open_options in runs:
            pair = f"get-process-put units of work, {batch} message{'s' if batch > 1 else ''} each"
            if open_options:
                pair += ", MQOO_READ_AHEAD"
            raw_fn = lambda n=n, b=batch: raw_uow(bootstrap, src, dst, n, b)  # noqa: E731
            if reason is not None:
                raw = statistics.median(raw_fn() for _ in range(cfg.repeats))
                row = unavailable(
                    pair,
                    "4 uow",
                    "msg/s",
                    f"yet (reason {reason})",
                    raw=raw,
                    raw_label=RAW_LABEL,
                    target=TARGET,
                    extra={"batch": batch, "count": n},
                )
            else:

                def mq_fn(n=n, b=batch, o=open_options) -> float:
                    mqside.fill(mq.qm, q_in, payload, n, C.MQPER_PERSISTENT)
                    return mq_uow(mq.qm, q_in, q_out, n, b, o)

                value, raw = paired(mq_fn, raw_fn, cfg.repeats)
                row = Row(
                    pair,
                    "4 uow",
                    "msg/s",
                    value,
                    raw,
                    RAW_LABEL,
                    TARGET,
                    extra={"batch": batch, "count": n, "read_ahead": bool(open_options)},
                )
            rows.append(row)
            shown = f"{row.value:,.0f}" if row.available else row.note
            log(f"  {row.pair}: {shown} vs raw {row.raw:,.0f} msg/s")
    return rows
