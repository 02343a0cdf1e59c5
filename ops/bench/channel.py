"""(9) A message channel between two Kafka clusters vs a raw cross-cluster copy.

MQ side: queue manager A on the stack's cluster, B on a second cluster
(MQK_KAFKA_BOOTSTRAP_B if set, else the launcher's named cluster BENCHB, `mqk stack up
--cluster BENCHB`, started here unless it runs and stopped after if started here); n
persistent 1 KiB messages put through a QREMOTE wait on A's transmission queue, then
the sender channel's agent (BATCHSZ 50, CONNAME naming cluster B) moves them: per
batch, gets under syncpoint at A, puts and its sync record committed at B, then A's
commit (adapter/channel/agent.py).

Raw side, the same copy done by hand between the same clusters: consume from a topic on
A (read_committed), produce each batch of 50 to a topic on B in a Kafka transaction
(idempotent, acks=all), then commit the consumed offsets on A synchronously. A Kafka
transaction cannot span two clusters, so send_offsets_to_transaction is out of reach:
the offsets are committed after the produce transaction, at-least-once as the channel's
"receiver first, sender after" order is (which the channel's sync records make exactly
once).

Both sides are timed from the end of their first batch (client start-up and the first
fetch excluded on both) to the last message committed; raw and MQ alternate (ABBA). If
the second cluster cannot be started, both run within the one cluster and the rows say
so.
"""

from __future__ import annotations

import os
import statistics
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from confluent_kafka import Consumer, Producer, TopicPartition

import adapter.pymqi as pymqi
from adapter import config
from adapter.channel import batchio
from adapter.channel.agent import Agent, channels
from adapter.shim.channeldef import RCVR, ChannelDef
from adapter.testing.servers import purge_queue_manager
from ops.bench import mqside, rawkafka
from ops.bench.model import Row, Target
from ops.bench.settings import KIB, BenchConfig
from ops.bench.timing import paired

C = pymqi.CMQC
SECTION = "9 channel"
TARGET = Target("ratio", ">=", 0.5)
BATCH = 50
CLUSTER = "BENCHB"
B_ENV = "MQK_KAFKA_BOOTSTRAP_B"
RAW_LABEL = (
    "consume from cluster A, produce to cluster B in transactions of 50, commit offsets "
    "on A after (no transaction spans two clusters)"
)


def _second_cluster(log) -> tuple[str | None, bool, str]:
    """Cluster B's bootstrap (None: unavailable), whether started here, and why not."""
    from ops import stack

    given = os.environ.get(B_ENV)  # a second cluster of the caller's (as the tests take)
    if given:
        return given, False, ""
    running = stack.cluster_bootstrap(CLUSTER)
    if running:
        return running, False, ""
    try:
        return stack.up_cluster(CLUSTER, log=lambda m: log(f"  {m}")), True, ""
    except Exception as exc:  # noqa: BLE001 - measured on one cluster instead, and said so
        log(f"  second cluster unavailable: {exc}")
        return None, False, f"{exc}"


def conn_name(bootstrap: str) -> str:
    return ",".join("{}({})".format(*hp.rsplit(":", 1)) for hp in bootstrap.split(","))


@contextmanager
def timed_commits(spent: list[float]) -> Iterator[None]:
    """Each end's batch commit (batchio.commit: the receiver's, then the sender's, as the
    agent calls them) timed into `spent`, seconds each: the part of a batch that MQ's
    protocol fixes (two Kafka transactions one after the other, where the raw copy
    commits one). Measurement only: the agent looks batchio.commit up at each call."""
    real = batchio.commit

    def commit(qm: pymqi.QueueManager) -> None:
        start = time.perf_counter()
        try:
            real(qm)
        finally:
            spent.append(time.perf_counter() - start)

    batchio.commit = commit
    try:
        yield
    finally:
        batchio.commit = real


class ChannelRun:
    """Queue managers A and B joined by sender channel TO.B; `run(n)` times a transfer."""

    def __init__(self, b_bootstrap: str, payload: bytes) -> None:
        self.payload, self.b_bootstrap = payload, b_bootstrap
        self.qma, self.qmb = mqside.qmgr_name("CHLA"), mqside.qmgr_name("CHLB")
        self.a = pymqi.connect(self.qma)
        self.b = pymqi.connect(self.qmb, kafka_bootstrap=b_bootstrap)
        depth = mqside.BENCH_MAX_DEPTH
        self.a.define_queue(self.qmb, usage=C.MQUS_TRANSMISSION, max_depth=depth)
        self.a.define_queue("R.ORDERS", queue_type=C.MQQT_REMOTE, remote_q_name="ORDERS",
                            remote_q_mgr_name=self.qmb, xmit_q_name=self.qmb)  # fmt: skip
        self.b.define_queue("ORDERS", max_depth=depth)
        channels(self.a).define(ChannelDef("TO.B", xmit_q_name=self.qmb, batch_size=BATCH,
                                           conn_name=conn_name(b_bootstrap)))  # fmt: skip
        channels(self.b).define(ChannelDef("TO.B", channel_type=RCVR, batch_size=BATCH))
        cdef = channels(self.a).lookup("TO.B")
        assert cdef is not None
        self.agent = Agent(self.a, self.qma, cdef)
        self.agent.bind()
        self.commit_ms: list[float] = []  # per timed run: both commits of a batch, median

    def run(self, n: int) -> float:
        q = pymqi.Queue(self.a, "R.ORDERS", C.MQOO_OUTPUT)
        mqside.put_n(q, self.payload, n, persistence=C.MQPER_PERSISTENT, async_response=True,
                     qm=self.a)  # fmt: skip
        q.close()
        first = self.agent.step(0)
        start, moved, spent = time.perf_counter(), first, []
        with timed_commits(spent):
            while moved < n:  # as run_channel moves them; readable at the far end by the end
                step = self.agent.step(1000, visible=False)
                if step == 0:
                    raise RuntimeError(f"the channel stalled after {moved} of {n} messages")
                moved += step
        batchio.await_committed(self.b)
        pairs = [spent[i] + spent[i + 1] for i in range(0, len(spent) - 1, 2)]
        if pairs:
            self.commit_ms.append(statistics.median(pairs) * 1000)
        # ORDERS keeps the moved messages (the agent's receiver has it open, so it cannot
        # be cleared; its depth limit is far away): every run puts and moves n afresh.
        return (n - first) / (time.perf_counter() - start)

    def close(self) -> None:
        self.agent.close()
        for qm in (self.a, self.b):
            if qm.is_connected:
                qm.disconnect()
        redis = config.endpoints().redis_url
        purge_queue_manager(config.endpoints(), self.qma)
        purge_queue_manager(config.Endpoints(self.b_bootstrap, redis), self.qmb)


def raw_copy(a: str, b: str, src: str, dst: str, start_offset: int, n: int) -> float:
    """n records from `src` on A (from `start_offset`) to `dst` on B: msg/s."""
    consumer = Consumer(rawkafka.consumer_conf(a))
    consumer.assign([TopicPartition(src, 0, start_offset)])
    producer = Producer(rawkafka.producer_conf(
        b, **{"transactional.id": f"bench-chl-{uuid.uuid4().hex}", "retry.backoff.ms": 5}
    ))  # fmt: skip
    producer.init_transactions(30)
    done, first, start = 0, 0, 0.0
    try:
        while done < n:
            want = min(BATCH, n - done)
            msgs: list = []
            while len(msgs) < want:
                msgs += [m for m in consumer.consume(want - len(msgs), 5.0) if not m.error()]
            producer.begin_transaction()
            for m in msgs:
                rawkafka.produce(producer, dst, m.value())
            producer.commit_transaction(30)
            consumer.commit(offsets=[TopicPartition(src, 0, msgs[-1].offset() + 1)],
                            asynchronous=False)  # fmt: skip
            done += len(msgs)
            if not first:
                first, start = done, time.perf_counter()
    finally:
        consumer.close()
    return (n - first) / (time.perf_counter() - start)


def run(cfg: BenchConfig, bootstrap: str, log=print) -> list[Row]:
    from ops import stack

    payload = os.urandom(KIB)
    n = cfg.channel_messages
    b_bootstrap, started_here, why = _second_cluster(log)
    where = "between two Kafka clusters"
    if b_bootstrap is None:
        b_bootstrap, where = bootstrap, f"within ONE cluster (second cluster failed: {why})"
    try:
        chl = ChannelRun(b_bootstrap, payload)
        try:
            with rawkafka.raw_topics(bootstrap) as src_topics, \
                    rawkafka.raw_topics(b_bootstrap) as dst_topics:  # fmt: skip
                src, dst = src_topics.create("chl-src"), dst_topics.create("chl-dst")
                rawkafka.fill(bootstrap, src, payload, n * cfg.repeats)
                runs = iter(range(cfg.repeats))

                def raw_fn() -> float:
                    return raw_copy(bootstrap, b_bootstrap, src, dst, next(runs) * n, n)

                value, raw = paired(lambda: chl.run(n), raw_fn, cfg.repeats)
                commit_ms = statistics.median(chl.commit_ms) if chl.commit_ms else None
        finally:
            chl.close()
    finally:
        if started_here:
            stack.down_cluster(CLUSTER, wipe=True, log=lambda m: log(f"  {m}"))
    row = Row(
        f"sender channel, persistent 1 KiB, BATCHSZ 50, {where}",
        SECTION,
        "msg/s",
        value,
        raw,
        RAW_LABEL,
        TARGET,
        note=where if why else "",
        extra={
            "size": KIB,
            "count": n,
            "batch": BATCH,
            "clusters": 2 if not why else 1,
            "commit_ms_per_batch": commit_ms,
        },
    )
    log(f"  {row.pair}: {value:,.0f} vs raw {raw:,.0f} msg/s (ratio {row.ratio:.2f})")
    return [row]
