"""MemoryLog: the subset of Kafka the engine uses, with its traps (offset gaps from
transaction markers, the last stable offset, fencing, delivery callbacks only inside
poll/flush), no broker. The expectations were taken from a real broker with
librdkafka 2.16 (read_committed, auto.offset.reset=earliest)."""

from __future__ import annotations

import inspect
import threading
import time
import zlib

import pytest
from confluent_kafka import (
    OFFSET_BEGINNING,
    OFFSET_END,
    OFFSET_INVALID,
    TIMESTAMP_CREATE_TIME,
    TIMESTAMP_LOG_APPEND_TIME,
    KafkaError,
    KafkaException,
    TopicPartition,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from adapter.shim.clock import ManualClock
from adapter.shim.log import Log, Producer, Reader, Record, TopicSpec, TransactionalProducer
from adapter.shim.memory_log import (
    MemoryCluster,
    MemoryLog,
    MemoryMessage,
    MemoryProducer,
    MemoryReader,
    MemoryTransactionalProducer,
)

LAT = {"message.timestamp.type": "LogAppendTime"}


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def log(clock) -> MemoryLog:
    log = MemoryLog(clock, txn_timeout_ms=20_000)
    log.create_topics({"t": TopicSpec(1, LAT), "p3": TopicSpec(3, LAT)})
    return log


def values(msgs) -> list:
    return [(m.offset(), m.value()) for m in msgs]


def position(reader, topic: str = "t", partition: int = 0) -> int:
    return reader.position([TopicPartition(topic, partition)])[0].offset


def read_all(log: MemoryLog, topic: str = "t", partition: int = 0) -> list:
    r = log.reader()
    r.assign([TopicPartition(topic, partition, OFFSET_BEGINNING)])
    out = r.consume(10_000, 0)
    r.close()
    return values(out)


class Reports:
    """A delivery callback that records (error code, topic, partition, offset, thread)."""

    def __init__(self) -> None:
        self.got: list[tuple] = []

    def __call__(self, err, msg) -> None:
        code = err.code() if err is not None else None
        self.got.append(
            (code, msg.topic(), msg.partition(), msg.offset(), threading.current_thread())
        )


# ---------------------------------------------------------------------------- admin
def test_topics_create_idempotent_delete_ignores_missing(log):
    assert log.topic_exists("t") and not log.topic_exists("u")
    log.create_topics({"t": TopicSpec(5), "u": TopicSpec(2)})
    ends = log.end_offsets([("t", 0), ("u", 0), ("u", 1)])
    assert ends == {("t", 0): 0, ("u", 0): 0, ("u", 1): 0}
    with pytest.raises(KafkaException) as exc:
        log.end_offsets([("t", 1)])  # still one partition: the second create was a no-op
    assert exc.value.args[0].code() == KafkaError.UNKNOWN_TOPIC_OR_PART
    log.delete_topics(["u", "never-there"])
    assert not log.topic_exists("u")
    with pytest.raises(KafkaException):
        log.create_topics({"v": TopicSpec(0)})
    log.check_reachable()
    log.close()


def test_two_logs_on_one_cluster_share_topics(clock):
    cluster = MemoryCluster(clock)
    a, b = MemoryLog(server=cluster), MemoryLog(clock, cluster)
    a.create_topics({"shared": TopicSpec(1)})
    p = a.producer()
    p.produce("shared", b"x")
    p.flush()
    assert read_all(b, "shared") == [(0, b"x")]
    assert read_all(MemoryLog(clock), "shared") == []  # another cluster


def test_down_cluster(log):
    log.cluster.down = True
    for call in (
        log.check_reachable,
        lambda: log.end_offsets([("t", 0)]),
        lambda: log.topic_exists("t"),
        lambda: log.create_topics({"x": TopicSpec(1)}),
    ):
        with pytest.raises(KafkaException) as exc:
            call()
        assert exc.value.args[0].code() == KafkaError._TRANSPORT
    p, rep = log.producer(), Reports()
    p.produce("t", b"lost", on_delivery=rep)  # never raises: the delivery fails
    assert p.flush(1) == 0 and rep.got[0][:4] == (KafkaError._MSG_TIMED_OUT, "t", None, None)
    log.cluster.down = False
    assert read_all(log) == []


# ---------------------------------------------------------------------------- producer
def test_delivery_callbacks_run_only_in_poll_or_flush_on_the_caller(log):
    p, rep = log.producer(), Reports()
    p.produce("t", value=b"a", key=b"k", on_delivery=rep)
    p.produce("t", value="b", on_delivery=rep)  # str is sent as UTF-8
    assert len(p) == 2 and rep.got == []
    assert read_all(log) == [(0, b"a"), (1, b"b")]  # appended at once, reported later
    assert p.poll(0) == 2
    assert len(p) == 0
    assert [g[:4] for g in rep.got] == [(None, "t", 0, 0), (None, "t", 0, 1)]
    worker = threading.Thread(target=lambda: p.flush())
    p.produce("t", b"c", on_delivery=rep)
    worker.start()
    worker.join()
    assert rep.got[-1][4] is worker  # served on the thread that flushed
    assert p.poll(0.01) == 0  # nothing pending: waits out its (real) timeout


def test_produce_to_a_missing_topic_fails_in_the_callback(log):
    p, rep = log.producer(), Reports()
    p.produce("missing", b"x", on_delivery=rep)  # does not raise
    assert len(p) == 1
    assert p.flush() == 0
    assert rep.got[0][:4] == (KafkaError.UNKNOWN_TOPIC_OR_PART, "missing", None, None)


def test_delivery_message_is_record_shaped(log, clock):
    got = []
    p = log.producer()
    p.produce("t", b"v", b"k", on_delivery=lambda err, msg: got.append(msg))
    p.flush()
    m = got[0]
    assert (m.topic(), m.partition(), m.offset(), m.key(), m.value(), m.error()) == (
        "t",
        0,
        0,
        b"k",
        b"v",
        None,
    )
    assert m.timestamp() == (TIMESTAMP_LOG_APPEND_TIME, clock.now_ms())


def test_timestamps_from_the_clock(log, clock):
    log.create_topics({"ct": TopicSpec(1)})
    p = log.producer()
    p.produce("t", b"1")
    clock.advance(2.5)
    p.produce("t", b"2")
    p.produce("ct", b"3")
    r = log.reader()
    r.assign([TopicPartition("t", 0, 0), TopicPartition("ct", 0, 0)])
    got = {(m.topic(), m.offset()): m.timestamp() for m in r.consume(10, 0)}
    start = clock.now_ms() - 2500
    assert got[("t", 0)] == (TIMESTAMP_LOG_APPEND_TIME, start)
    assert got[("t", 1)] == (TIMESTAMP_LOG_APPEND_TIME, start + 2500)
    assert got[("ct", 0)] == (TIMESTAMP_CREATE_TIME, start + 2500)


def test_keyed_partitioning_is_stable_keyless_round_robin(log):
    p, rep = log.producer(), Reports()
    keys = [f"{i}.0".encode() for i in range(12)]
    for k in keys + keys:
        p.produce("p3", b"x", key=k, on_delivery=rep)
    for _ in range(6):
        p.produce("p3", b"y", on_delivery=rep)
    p.produce("p3", b"z", partition=1, on_delivery=rep)
    p.flush()
    parts = [g[2] for g in rep.got]
    # The same key, the same partition: CRC32 modulo partitions, as librdkafka.
    assert parts[:12] == parts[12:24] == [zlib.crc32(k) % 3 for k in keys]
    assert parts[24:30] == [0, 1, 2, 0, 1, 2]
    assert parts[30] == 1


def test_buffer_full_raises_buffer_error(clock):
    log = MemoryLog(clock, max_pending=2)
    log.create_topics({"t": TopicSpec(1)})
    p = log.producer()
    p.produce("t", b"1")
    p.produce("t", b"2")
    with pytest.raises(BufferError):
        p.produce("t", b"3")
    p.poll(0)
    p.produce("t", b"3")


# ---------------------------------------------------------------------------- transactions
def test_transactions_markers_and_last_stable_offset(log):
    p, tp = log.producer(), log.transactional_producer("tx")
    tp.init_transactions()
    p.produce("t", b"a0")
    tp.begin_transaction()
    tp.produce("t", b"t1")
    tp.produce("t", b"t2")
    assert log.end_offsets([("t", 0)]) == {("t", 0): 1}  # LSO at the open transaction
    assert log.end_offsets([("t", 0)], committed=False) == {("t", 0): 3}
    assert read_all(log) == [(0, b"a0")]
    tp.commit_transaction()
    tp.begin_transaction()
    tp.produce("t", b"t3")
    tp.abort_transaction()
    p.produce("t", b"a4")
    tp.begin_transaction()
    tp.commit_transaction()  # an empty transaction writes no marker
    assert log.cluster.records("t") == [
        (0, "record", b"a0"),
        (1, "record", b"t1"),
        (2, "record", b"t2"),
        (3, "marker", None),
        (4, "aborted", b"t3"),
        (5, "marker", None),
        (6, "record", b"a4"),
    ]
    # Offsets of committed records have gaps: never assume contiguous offsets.
    assert read_all(log) == [(0, b"a0"), (1, b"t1"), (2, b"t2"), (6, b"a4")]
    assert log.end_offsets([("t", 0)]) == log.end_offsets([("t", 0)], committed=False)


def test_transaction_spanning_partitions_writes_a_marker_on_each(log):
    tp = log.transactional_producer("tx")
    tp.init_transactions()
    tp.begin_transaction()
    for part in (0, 2):
        tp.produce("p3", b"x", partition=part)
    tp.produce("t", b"y")
    tp.commit_transaction()
    ends = log.end_offsets([("p3", 0), ("p3", 1), ("p3", 2), ("t", 0)])
    assert ends == {("p3", 0): 2, ("p3", 1): 0, ("p3", 2): 2, ("t", 0): 2}


def test_lso_is_the_first_record_of_the_oldest_open_transaction(log):
    a, b, p = log.transactional_producer("A"), log.transactional_producer("B"), log.producer()
    a.init_transactions()
    b.init_transactions()
    p.produce("t", b"0")
    b.begin_transaction()
    b.produce("t", b"b1")
    a.begin_transaction()
    a.produce("t", b"a2")
    p.produce("t", b"3")
    assert log.end_offsets([("t", 0)]) == {("t", 0): 1}
    a.commit_transaction()  # B still holds the LSO
    assert log.end_offsets([("t", 0)]) == {("t", 0): 1}
    assert read_all(log) == [(0, b"0")]
    b.abort_transaction()
    assert log.end_offsets([("t", 0)]) == {("t", 0): 6}
    assert read_all(log) == [(0, b"0"), (2, b"a2"), (3, b"3")]


def test_commit_serves_delivery_callbacks(log):
    tp, rep = log.transactional_producer("tx"), Reports()
    tp.init_transactions()
    tp.begin_transaction()
    tp.produce("t", b"x", on_delivery=rep)
    assert len(tp) == 1 and rep.got == []
    tp.commit_transaction()
    assert len(tp) == 0 and rep.got[0][:4] == (None, "t", 0, 0)


def test_transactional_state_errors(log):
    tp = log.transactional_producer("tx")
    with pytest.raises(KafkaException) as exc:
        tp.begin_transaction()  # before init_transactions
    assert exc.value.args[0].code() == KafkaError._STATE
    tp.init_transactions()
    for call in (
        lambda: tp.produce("t", b"outside a transaction"),
        tp.commit_transaction,
        tp.abort_transaction,
        tp.init_transactions,
    ):
        with pytest.raises(KafkaException) as exc:
            call()
        assert exc.value.args[0].code() == KafkaError._STATE
    tp.begin_transaction()
    with pytest.raises(KafkaException):
        tp.begin_transaction()
    tp.abort_transaction()
    assert read_all(log) == []


def test_failed_delivery_in_a_transaction_requires_abort(log):
    tp, rep = log.transactional_producer("tx"), Reports()
    tp.init_transactions()
    tp.begin_transaction()
    tp.produce("t", b"kept back")
    tp.produce("missing", b"x", on_delivery=rep)
    with pytest.raises(KafkaException) as exc:
        tp.produce("t", b"more")
    assert exc.value.args[0].code() == KafkaError._STATE
    with pytest.raises(KafkaException) as exc:
        tp.commit_transaction()
    err = exc.value.args[0]
    assert err.txn_requires_abort() and not err.fatal()
    assert rep.got[0][0] == KafkaError.UNKNOWN_TOPIC_OR_PART
    tp.abort_transaction()
    tp.begin_transaction()
    tp.produce("t", b"next")
    tp.commit_transaction()
    assert read_all(log) == [(2, b"next")]


def test_init_transactions_fences_the_older_producer(log, clock):
    old = log.transactional_producer("tx")
    old.init_transactions()
    old.begin_transaction()
    old.produce("t", b"undecided")
    # A restarted process: another MemoryLog on the same cluster, the same id.
    new = MemoryLog(clock, log.cluster).transactional_producer("tx")
    new.init_transactions()
    assert log.cluster.records("t") == [(0, "aborted", b"undecided"), (1, "marker", None)]
    assert log.end_offsets([("t", 0)]) == {("t", 0): 2}
    for call in (
        lambda: old.produce("t", b"zombie"),
        old.commit_transaction,
        old.abort_transaction,
        old.begin_transaction,
    ):
        with pytest.raises(KafkaException) as exc:
            call()
        assert exc.value.args[0].code() == KafkaError._FENCED
        assert exc.value.args[0].fatal()
    with pytest.raises(KafkaException):
        old.poll(0)  # the fatal error surfaces once from poll/flush too
    assert old.poll(0) == 0
    new.begin_transaction()
    new.produce("t", b"fresh")
    new.commit_transaction()
    assert read_all(log) == [(2, b"fresh")]
    # Other ids are not fenced.
    other = log.transactional_producer("other")
    other.init_transactions()
    new.begin_transaction()
    new.abort_transaction()


def test_transaction_timeout_aborts_and_fences(log, clock):
    tp = log.transactional_producer("tx")
    tp.init_transactions()
    tp.begin_transaction()
    clock.advance(30)  # the clock runs from the first record, not from begin
    tp.produce("t", b"slow")
    clock.advance(19.999)
    assert log.end_offsets([("t", 0)]) == {("t", 0): 0}
    clock.advance(0.001)
    assert log.end_offsets([("t", 0)]) == {("t", 0): 2}
    assert log.cluster.records("t")[0] == (0, "aborted", b"slow")
    with pytest.raises(KafkaException) as exc:
        tp.commit_transaction()
    assert exc.value.args[0].code() == KafkaError._FENCED
    # The id is free again for a new producer.
    tp2 = log.transactional_producer("tx")
    tp2.init_transactions()


def test_marker_lag_holds_a_decided_transaction_back(clock):
    """As a real broker: commit_transaction returns before the markers are written, so
    the LSO (and read_committed readers) catch up a moment later."""
    log = MemoryLog(clock, MemoryCluster(clock, marker_lag=3))
    log.create_topics({"t": TopicSpec(1)})
    tp = log.transactional_producer("tx")
    tp.init_transactions()
    tp.begin_transaction()
    tp.produce("t", b"x")
    tp.commit_transaction()
    tp.begin_transaction()  # the next unit of work may start meanwhile (operation 1)
    assert log.end_offsets([("t", 0)]) == {("t", 0): 0}
    assert log.end_offsets([("t", 0)]) == {("t", 0): 0}
    assert log.end_offsets([("t", 0)]) == {("t", 0): 2}
    assert read_all(log) == [(0, b"x")]
    tp.produce("t", b"y")
    tp.abort_transaction()
    r = log.reader()
    r.assign([TopicPartition("t", 0, 0)])
    assert values(r.consume(10, 0)) == [(0, b"x")]
    assert position(r) == 2  # the aborted record is undecided: the reader waits there
    r.consume(10, 0)
    r.consume(10, 0)
    assert position(r) == 2
    r.consume(10, 0)
    assert position(r) == 4


# ---------------------------------------------------------------------------- readers
def _log_with_gaps(log: MemoryLog) -> None:
    """a0 @0, t1 @1 aborted, marker @2, a3 @3, t4 @4 committed, marker @5."""
    p, tp = log.producer(), log.transactional_producer("gaps")
    tp.init_transactions()
    p.produce("t", b"a0")
    tp.begin_transaction()
    tp.produce("t", b"t1")
    tp.abort_transaction()
    p.produce("t", b"a3")
    tp.begin_transaction()
    tp.produce("t", b"t4")
    tp.commit_transaction()


def test_position_is_invalid_until_a_fetch_passes_something(log):
    _log_with_gaps(log)
    r = log.reader()
    r.assign([TopicPartition("t", 0, 6)])  # at the end: nothing to pass
    assert r.poll(0) is None and position(r) == OFFSET_INVALID
    r.assign([TopicPartition("t", 0, 1)])  # only an aborted record and a marker, then a3
    assert values([r.poll(0)]) == [(3, b"a3")]
    assert position(r) == 4


def test_poll_stops_after_its_record_consume_reads_on(log):
    _log_with_gaps(log)
    r = log.reader()
    r.assign([TopicPartition("t", 0, 0)])
    assert position(r) == OFFSET_INVALID
    assert values([r.poll(0)]) == [(0, b"a0")]
    assert position(r) == 1  # the marker after it is passed by the next fetch
    assert values([r.poll(0)]) == [(3, b"a3")]
    assert values([r.poll(0)]) == [(4, b"t4")]
    assert position(r) == 5
    assert r.poll(0) is None
    assert position(r) == 6  # past the last marker: caught up with the LSO
    r.assign([TopicPartition("t", 0, OFFSET_BEGINNING)])
    assert values(r.consume(100, 0)) == [(0, b"a0"), (3, b"a3"), (4, b"t4")]
    assert position(r) == 6
    r.assign([TopicPartition("t", 0, 0)])
    assert values(r.consume(2, 0)) == [(0, b"a0"), (3, b"a3")]
    assert position(r) == 4


def test_position_stops_at_an_open_transaction(log):
    p, tp = log.producer(), log.transactional_producer("tx")
    tp.init_transactions()
    p.produce("t", b"a0")
    tp.begin_transaction()
    tp.produce("t", b"open")
    p.produce("t", b"a2")
    r = log.reader()
    r.assign([TopicPartition("t", 0, 0)])
    assert values(r.consume(10, 0)) == [(0, b"a0")]
    assert position(r) == 1 and log.end_offsets([("t", 0)]) == {("t", 0): 1}
    tp.commit_transaction()
    assert values(r.consume(10, 0)) == [(1, b"open"), (2, b"a2")]
    assert position(r) == 4


def test_offsets_beyond_the_end_restart_at_the_beginning(log):
    _log_with_gaps(log)
    r = log.reader()
    r.assign([TopicPartition("t", 0, 100)])  # out of range: auto.offset.reset=earliest
    assert [m.offset() for m in r.consume(10, 0)] == [0, 3, 4]
    r.assign([TopicPartition("t", 0, OFFSET_END)])
    assert r.consume(10, 0) == []
    p = log.producer()
    p.produce("t", b"new")
    assert values(r.consume(10, 0)) == [(6, b"new")]
    r.assign([TopicPartition("t", 0)])  # OFFSET_INVALID: nothing stored, so earliest
    assert len(r.consume(10, 0)) == 4


def test_records_of_several_partitions_in_offset_order_each(log):
    p = log.producer()
    for i in range(30):
        p.produce("p3", str(i).encode(), partition=i % 3)
    r = log.reader()
    r.assign([TopicPartition("p3", part, 0) for part in range(3)])
    got = []
    while m := r.poll(0):
        got.append((m.partition(), m.offset()))
    assert sorted(got) == [(part, o) for part in range(3) for o in range(10)]
    for part in range(3):
        offs = [o for pp, o in got if pp == part]
        assert offs == sorted(offs)
    # Partitions take turns: none waits for another to be drained.
    assert {pp for pp, _ in got[:3]} == {0, 1, 2}


def test_poll_timeout_passes_on_the_manual_clock_and_wakes_on_a_record(log, clock):
    """On a manual clock a poll's timeout passes on that clock (a getter waiting with
    MQGMO_WAIT needs no real sleep); a record produced meanwhile still wakes it."""
    r = log.reader()
    r.assign([TopicPartition("t", 0, 0)])
    t0, c0 = time.monotonic(), clock.monotonic()
    assert r.poll(0.5) is None
    assert clock.monotonic() - c0 == pytest.approx(0.5) and time.monotonic() - t0 < 0.4
    p = log.producer()
    timer = threading.Timer(0.05, lambda: p.produce("t", b"late"))
    timer.start()
    m = None
    while m is None:  # each empty poll moves the clock; the record arrives in real time
        m = r.poll(5)
    assert m.value() == b"late"
    timer.join()
    p.produce("t", b"later")
    assert values(r.consume(100, 5)) == [(1, b"later")]  # returns once records are there


def test_deleted_topic_reads_nothing_recreated_starts_over(log):
    p = log.producer()
    p.produce("t", b"old")
    p.produce("t", b"old2")
    r = log.reader()
    r.assign([TopicPartition("t", 0, 0)])
    assert len(r.consume(10, 0)) == 2
    log.delete_topics(["t"])
    assert r.consume(10, 0) == []
    log.create_topics({"t": TopicSpec(1)})
    p.produce("t", b"new")
    p.produce("t", b"new2")
    p.produce("t", b"new3")
    assert values(r.consume(10, 0)) == [(2, b"new3")]  # position 2 is in range again
    r.close()
    with pytest.raises(RuntimeError):
        r.poll(0)


# ---------------------------------------------------------------------------- property
ACTIONS = st.lists(
    st.tuples(
        st.sampled_from(["plain", "txn", "begin", "commit", "abort", "fence", "tick"]),
        st.integers(0, 1),  # which transactional id / which partition
    ),
    max_size=60,
)


@settings(max_examples=150, deadline=None)
@given(actions=ACTIONS)
def test_readers_see_exactly_the_committed_records(actions):
    """Whatever interleaving of plain records and transactions (committed, aborted,
    fenced, timed out), a read_committed reader sees exactly the committed records,
    in offset order per partition, and stops at the last stable offset."""
    clock = ManualClock()
    log = MemoryLog(clock, txn_timeout_ms=5_000)
    log.create_topics({"t": TopicSpec(2)})
    where: dict[bytes, tuple[int, int]] = {}  # value -> (partition, offset), from reports

    def delivered(err, msg) -> None:
        assert err is None
        where[msg.value()] = (msg.partition(), msg.offset())

    plain = log.producer()
    producers = [log.transactional_producer(f"tx{i}") for i in range(2)]
    for tp in producers:
        tp.init_transactions()
    pending: list[list[bytes]] = [[], []]  # per transactional id
    visible: list[bytes] = []
    # A reader following along: it must wait at open transactions, never skip them.
    follower = log.reader()
    follower.assign([TopicPartition("t", part, 0) for part in range(2)])
    followed = []
    for n, (action, i) in enumerate(actions):
        tp = producers[i]
        try:
            if action == "plain":
                plain.produce("t", b"p%d" % n, partition=i, on_delivery=delivered)
                visible.append(b"p%d" % n)
            elif action == "begin":
                tp.begin_transaction()
            elif action == "txn":
                tp.produce("t", b"t%d" % n, partition=n % 2, on_delivery=delivered)
                pending[i].append(b"t%d" % n)
            elif action == "commit":
                tp.commit_transaction()
                visible.extend(pending[i])
                pending[i] = []
            elif action == "abort":
                tp.abort_transaction()
                pending[i] = []
            elif action == "fence":  # a restarted process with the same id
                producers[i] = MemoryLog(clock, log.cluster).transactional_producer(f"tx{i}")
                producers[i].init_transactions()
                pending[i] = []
            else:
                clock.advance(3)
        except KafkaException as exc:
            code = exc.args[0].code()
            assert code in (KafkaError._STATE, KafkaError._FENCED)
            if code == KafkaError._FENCED:  # timed out: aborted; recreate the producer
                pending[i] = []
                producers[i] = log.transactional_producer(f"tx{i}")
                producers[i].init_transactions()
        plain.poll(0)
        for tp in producers:
            try:
                tp.poll(0)
            except KafkaException:  # fenced by a timeout: reported once, handled above
                pass
        followed += follower.consume(1 + n % 3, 0)
    followed += follower.consume(10_000, 0)
    open_txn = any(p._txn is not None and p._txn.start_ms is not None for p in producers)
    r = log.reader()
    r.assign([TopicPartition("t", part, 0) for part in range(2)])
    got = r.consume(10_000, 0)
    key = lambda m: (m.partition(), m.offset())  # noqa: E731
    assert sorted(map(key, followed)) == sorted(map(key, got))
    lso = log.end_offsets([("t", 0), ("t", 1)])
    for part in range(2):
        # Committed records behind a transaction still open wait for it (the LSO).
        end = lso[("t", part)]
        expect = sorted((where[v][1], v) for v in visible if where[v][0] == part)
        mine = [(m.offset(), m.value()) for m in got if m.partition() == part]
        assert mine == [(o, v) for o, v in expect if o < end]
        if not open_txn:
            hw = log.end_offsets([("t", part)], committed=False)[("t", part)]
            assert lso[("t", part)] == hw
            assert position(r, "t", part) in (OFFSET_INVALID, hw)


# ---------------------------------------------------------------------------- protocol
@pytest.mark.parametrize(
    ("proto", "impl"),
    [
        (Log, MemoryLog),
        (Producer, MemoryProducer),
        (TransactionalProducer, MemoryTransactionalProducer),
        (Reader, MemoryReader),
        (Record, MemoryMessage),
    ],
)
def test_implements_the_protocol(proto, impl):
    """Every protocol method, with the protocol's parameter names (callers pass them
    by keyword): a guard against the protocol moving on without the fake."""
    for name, fn in vars(proto).items():
        if callable(fn) and (not name.startswith("_") or name == "__len__"):
            want = list(inspect.signature(fn).parameters)
            have = list(inspect.signature(getattr(impl, name)).parameters)
            assert have[: len(want)] == want, name
