"""The disk guard (adapter/shim/diskguard.py) on the in-memory backends: the fake broker's
disk (memory_log.MemoryDisk) loses usable bytes as records are appended and gets them
back only when a topic is deleted, as a Kafka log does. MQPUT, MQPUT1, asynchronous
puts, publications and dead-letter moves get 2056 MQRC_Q_SPACE_NOT_AVAILABLE once a
check found the directory under the reserve; gets and commits go on; puts go on again
once a check finds space. The real broker is tests/failover/test_disk_full.py."""

from __future__ import annotations

import logging
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

import adapter.pymqi as pymqi
from adapter import config
from adapter.core.calls import PutRequest
from adapter.shim import diskguard, naming
from adapter.shim.diskguard import DiskGuard, Reserve, blocked_topics, is_low
from adapter.shim.log import LogDir
from adapter.shim.memory_log import MemoryDisk

C = pymqi.CMQC
MIB = 1024 * 1024
BODY = b"m" * 100_000
PUT = pymqi.PMO(Options=C.MQPMO_NO_SYNCPOINT)
SYNC_PUT = pymqi.PMO(Options=C.MQPMO_SYNCPOINT)


@given(st.integers(0, 2**50), st.integers(0, 2**50), st.integers(0, 2**40), st.floats(0, 100))
def test_a_directory_is_low_exactly_when_its_usable_bytes_are_under_the_reserve(
    total, usable, floor, pct
) -> None:
    r = Reserve(floor, pct)
    d = LogDir(1, "/d", total, usable, 0, frozenset({("t", 0)}))
    assert is_low(d, r) == (usable < max(floor, int(total * pct / 100)))
    assert blocked_topics([d], r) == (frozenset({"t"}) if is_low(d, r) else frozenset())
    # Offline (KAFKA_STORAGE_ERROR) or unsized directories are not judged.
    assert not is_low(LogDir(1, "/d", total, usable, 56), r)
    assert not is_low(LogDir(1, "/d", -1, -1), r)


def test_where_a_topic_was_last_seen_counts_until_it_is_seen_again() -> None:
    r = Reserve(100, 0)
    low = LogDir(1, "/low", 1000, 50, 0, frozenset({("a", 0)}))
    roomy = LogDir(2, "/roomy", 1000, 900, 0, frozenset({("b", 0)}))
    # "c" was on the low directory and is missing from this answer (deleted, defined
    # again): still refused. "d" was last seen on the roomy one: not.
    placed = {"c": frozenset({(1, "/low")}), "d": frozenset({(2, "/roomy")})}
    got = blocked_topics([low, roomy], r, None, placed, ["a", "b", "c", "d", "new"])
    assert got == {"a", "c"}
    # A topic never seen yet is refused only when it can be nowhere but a low directory.
    assert blocked_topics([low], r, None, {}, ["new"]) == {"a", "new"}
    assert blocked_topics([low, roomy], r, None, {}, ["new"]) == {"a"}
    assert blocked_topics([roomy], r, None, placed, ["c", "new"]) == frozenset()


def _connect(world, name: str, reserve_mib: int = 20):
    qm = world.connect(name)
    guard: DiskGuard = qm._conn.services.disk
    guard.reserve = Reserve(reserve_mib * MIB, 0)
    return qm, guard


def _until(cond, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "never happened"
        time.sleep(0.005)


def _checked(guard: DiskGuard, disk: MemoryDisk, n: int) -> None:
    """Wait for the guard's n-th question to the brokers and for the refresh that asked
    it to finish: the disk counts the question before the guard has its new picture
    (filling, blocked), and an assertion in between would read the old one."""
    _until(lambda: disk.asked == n)
    with guard._refreshing:  # held by the refresh for its whole length
        pass


def _reason(call) -> int:
    with pytest.raises(pymqi.MQMIError) as err:
        call()
    return err.value.reason


def test_puts_get_2056_before_the_disk_fills_and_go_on_once_space_returns(
    world, qmgr_name, caplog
) -> None:
    caplog.set_level(logging.WARNING, "mqk.shim.diskguard")
    world.cluster.disk = disk = MemoryDisk({"/data": 100 * MIB}, {"/data": 45 * MIB})
    qm, guard = _connect(world, qmgr_name)
    qm.define_queue("OTHER")
    qm.define_queue("ORDERS")
    other = pymqi.Queue(qm, "OTHER", C.MQOO_OUTPUT)
    for _ in range(150):  # 15 MB that a DELETE will give back
        other.put(BODY, pymqi.MD(), PUT)
    other.close()
    q = pymqi.Queue(qm, "ORDERS", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    acknowledged = 0
    while True:  # a check every 20 puts (2 MB): what producers write between checks
        if acknowledged % 20 == 0:
            guard.refresh()
        try:
            q.put(acknowledged.to_bytes(4, "big") + BODY, pymqi.MD(), PUT)
        except pymqi.MQMIError as err:
            assert err.reason == C.MQRC_Q_SPACE_NOT_AVAILABLE
            break
        acknowledged += 1
        assert acknowledged < 1000
    usable = disk.usable["/data"]
    assert 18 * MIB < usable < 20 * MIB  # stopped within one check of the reserve
    assert [d.path for d in guard.dirs] == ["/data"]
    assert caplog.text.count("less than the reserve of 20 MiB") == 1

    # Gets (and their ack records) go on; a consumed record keeps its bytes on a Kafka log.
    got = []
    while True:
        try:
            got.append(int.from_bytes(q.get(None, pymqi.MD())[:4], "big"))
        except pymqi.MQMIError as err:
            assert err.reason == C.MQRC_NO_MSG_AVAILABLE
            break
    assert got == list(range(acknowledged))
    guard.refresh()
    assert disk.usable["/data"] <= usable  # ack records took a little more
    assert _reason(lambda: q.put(BODY, pymqi.MD(), PUT)) == C.MQRC_Q_SPACE_NOT_AVAILABLE

    # Space returns when a queue's topics are deleted; the next check lets puts in.
    qm.delete_queue("OTHER", purge=True)
    assert _reason(lambda: q.put(BODY, pymqi.MD(), PUT)) == C.MQRC_Q_SPACE_NOT_AVAILABLE
    guard.refresh()
    q.put(b"again", pymqi.MD(), PUT)
    assert q.get(None, pymqi.MD()) == b"again"
    assert caplog.text.count("has room again") == 1
    q.close()


def test_a_queue_deleted_and_defined_again_waits_for_its_files_to_go(world, qmgr_name):
    world.cluster.disk = disk = MemoryDisk({"/data": 100 * MIB}, {"/data": 40 * MIB})
    disk.delete_later = True  # the broker's log.segment.delete.delay.ms
    # No reserve while the queue fills: the pump's own first check (due at once for a
    # new queue) may run at any moment of the loop, and must not refuse a put of it.
    qm, guard = _connect(world, qmgr_name, reserve_mib=0)
    qm.define_queue("Q")
    q = pymqi.Queue(qm, "Q", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    for _ in range(250):
        q.put(BODY)
    guard.reserve = Reserve(20 * MIB, 0)
    guard.refresh()
    assert _reason(lambda: q.put(BODY)) == C.MQRC_Q_SPACE_NOT_AVAILABLE
    while True:
        try:
            q.get(None)
        except pymqi.MQMIError:
            break
    q.close()
    qm.delete_queue("Q")
    guard.refresh()  # the topics are gone from the answer, their files not yet
    qm.define_queue("Q")
    q = pymqi.Queue(qm, "Q", C.MQOO_OUTPUT)
    assert _reason(lambda: q.put(BODY)) == C.MQRC_Q_SPACE_NOT_AVAILABLE
    guard.refresh()
    assert _reason(lambda: q.put(BODY)) == C.MQRC_Q_SPACE_NOT_AVAILABLE
    disk.delete_files()
    guard.refresh()
    q.put(BODY)
    q.close()


def test_mqput1_async_puts_and_units_of_work_when_the_disk_is_low(world, qmgr_name) -> None:
    world.cluster.disk = MemoryDisk({"/data": 100 * MIB}, {"/data": 30 * MIB})
    qm, guard = _connect(world, qmgr_name)
    qm.define_queue("Q")
    q = pymqi.Queue(qm, "Q", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    q.put(b"in the unit of work", pymqi.MD(), SYNC_PUT)  # written before the disk ran low
    guard.reserve = Reserve(40 * MIB, 0)
    guard.refresh()
    assert guard.blocked

    assert _reason(lambda: q.put(b"x", pymqi.MD(), SYNC_PUT)) == C.MQRC_Q_SPACE_NOT_AVAILABLE
    qm.commit()  # the work already written commits (its markers fit in the reserve)
    put1 = lambda: qm.put1("Q", b"x", pymqi.MD(), PUT)  # noqa: E731
    assert _reason(put1) == C.MQRC_Q_SPACE_NOT_AVAILABLE

    # An asynchronous put completes; MQSTAT tells the failure, with the queue.
    qm.stat(C.MQSTAT_TYPE_ASYNC_ERROR)
    q.put(b"x", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_ASYNC_RESPONSE | C.MQPMO_NO_SYNCPOINT))
    sts = qm.stat(C.MQSTAT_TYPE_ASYNC_ERROR)
    assert (sts.CompCode, sts.Reason, sts.PutFailureCount, sts.PutSuccessCount) == (
        C.MQCC_FAILED, C.MQRC_Q_SPACE_NOT_AVAILABLE, 1, 0,
    )  # fmt: skip
    assert sts.ObjectName.strip() == b"Q"

    # A get under syncpoint and its commit (ack records, markers) go on.
    assert q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_SYNCPOINT)) == b"in the unit of work"
    qm.commit()
    assert _reason(lambda: q.get(None, pymqi.MD())) == C.MQRC_NO_MSG_AVAILABLE
    q.close()


def test_a_receiving_mcas_run_of_puts_is_refused_message_by_message(world, qmgr_name) -> None:
    """QueueHandle.put_run (a channel's receiving end) builds plain messages' records
    itself: each gets 2056 as its MQPUT would, and nothing reaches the low directory."""
    world.cluster.disk = MemoryDisk({"/data": 100 * MIB}, {"/data": 30 * MIB})
    qm, guard = _connect(world, qmgr_name, reserve_mib=40)
    qm.define_queue("Q.RECV")
    q = pymqi.Queue(qm, "Q.RECV", C.MQOO_OUTPUT | C.MQOO_SET_ALL_CONTEXT)
    guard.refresh()
    assert guard.blocked
    context = {
        "UserIdentifier": "alice",
        "AccountingToken": b"\x01" * 32,
        "ApplIdentityData": "ident",
        "PutApplType": C.MQAT_UNIX,
        "PutApplName": "sender",
        "ApplOriginData": "orig",
        "PutDate": "20261127",
        "PutTime": "19000000",
    }
    for options in (C.MQPMO_NO_SYNCPOINT, C.MQPMO_SYNCPOINT):
        items = [
            (
                PutRequest(
                    options=options | C.MQPMO_SET_ALL_CONTEXT,
                    msg_id=b"R%023d" % i,
                    persistence=C.MQPER_PERSISTENT,
                    priority=4,
                    format="MQSTR",
                    context=context,
                ),
                b"x" * 100,
            )  # fmt: skip
            for i in range(3)
        ]
        outcomes = q.get_handle().put_run(items)
        assert [e and e.reason for e in outcomes] == [C.MQRC_Q_SPACE_NOT_AVAILABLE] * 3
    qm.commit()
    assert qm.queue_status("Q.RECV")["current_depth"] == 0
    q.close()


def test_only_queues_on_the_low_directory_are_refused(world, qmgr_name) -> None:
    disk = MemoryDisk({"/small": 100 * MIB, "/big": 1000 * MIB}, {"/small": 5 * MIB})
    world.cluster.disk = disk
    qm, guard = _connect(world, qmgr_name)
    qm.define_queue("ON.SMALL")
    qm.define_queue("ON.BIG")
    for p in range(10):
        disk.placement[f"mqk.{qmgr_name}.ON_2EBIG.p{p}"] = "/big"
    small = pymqi.Queue(qm, "ON.SMALL", C.MQOO_OUTPUT)
    big = pymqi.Queue(qm, "ON.BIG", C.MQOO_OUTPUT)
    guard.refresh()
    assert _reason(lambda: small.put(b"x")) == C.MQRC_Q_SPACE_NOT_AVAILABLE
    big.put(b"x")
    # Only the priority put to is refused when only its topic is low (a topic can be
    # moved to another directory: AlterReplicaLogDirs).
    for p in range(10):
        disk.placement[f"mqk.{qmgr_name}.ON_2ESMALL.p{p}"] = "/big" if p != 7 else "/small"
    guard.refresh()
    small.put(b"x", pymqi.MD(Priority=3))
    assert _reason(lambda: small.put(b"x", pymqi.MD(Priority=7))) == C.MQRC_Q_SPACE_NOT_AVAILABLE


def _subscribe(qm, topic: str) -> pymqi.Subscription:
    sd = pymqi.SD(Options=C.MQSO_CREATE | C.MQSO_NON_DURABLE | C.MQSO_MANAGED)
    sd.set_vs("ObjectString", topic)
    sub = pymqi.Subscription(qm)
    sub.sub(sub_desc=sd)
    return sub


def _drain(sub: pymqi.Subscription) -> list[bytes]:
    got = []
    while True:
        try:
            got.append(sub.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_NO_WAIT)))
        except pymqi.MQMIError as err:
            assert err.reason == C.MQRC_NO_MSG_AVAILABLE
            return got


def test_publications_the_pub_stream_and_subscription_copies(world, qmgr_name) -> None:
    disk = MemoryDisk({"/small": 100 * MIB, "/big": 1000 * MIB}, {"/small": 5 * MIB})
    world.cluster.disk = disk
    qm, guard = _connect(world, qmgr_name)
    big, small = _subscribe(qm, "price/fruit"), _subscribe(qm, "price/fruit")
    name = big.get_sub_queue().get_handle().name
    for p in range(10):
        disk.placement[naming.data_topic(qmgr_name, name, p)] = "/big"
    for own in (naming.pub_topic(qmgr_name), naming.retained_topic(qmgr_name)):
        disk.placement[own] = "/big"
    topic = pymqi.Topic(qm, topic_string="price/fruit")
    topic.open(open_opts=C.MQOO_OUTPUT)
    topic.pub(b"before")  # before any check: both get it
    guard.refresh()
    # Non-persistent: NPMSGDLV ALLAVAIL, so the subscription whose queue can take its
    # copy gets it, the one on the low directory does not (logged), as for a full queue.
    topic.pub(b"after", pymqi.MD(Persistence=C.MQPER_NOT_PERSISTENT))
    assert (_drain(big), _drain(small)) == ([b"before", b"after"], [b"before"])
    # Persistent: PMSGDLV ALLDUR, a non-durable subscription's failure does not fail it.
    topic.pub(b"persistent", pymqi.MD(Persistence=C.MQPER_PERSISTENT))
    assert (_drain(big), _drain(small)) == ([b"persistent"], [])
    # The publication's own record (`mqk.<QM>._pub`) on the low directory: 2056.
    disk.placement[naming.pub_topic(qmgr_name)] = "/small"
    guard.refresh()
    assert _reason(lambda: topic.pub(b"1.30")) == C.MQRC_Q_SPACE_NOT_AVAILABLE
    assert (_drain(big), _drain(small)) == ([], [])
    topic.close()
    for sub in (big, small):
        sub.close(close_sub_queue=True)


def test_the_dead_letter_queue_refuses_a_move_to_a_low_directory(world, qmgr_name) -> None:
    world.cluster.disk = MemoryDisk({"/data": 100 * MIB}, {"/data": 5 * MIB})
    qm, guard = _connect(world, qmgr_name)
    qm.define_queue("DLQ")
    qm.alter_qmgr(dead_letter_q="DLQ")
    dead = qm._conn.services.dead_letters
    env = {"Priority": 4, "Persistence": 0, "Payload": b"x"}
    assert dead.refusal("DLQ", env) is None  # not yet checked: nothing known
    guard.refresh()
    assert dead.refusal("DLQ", env) == C.MQRC_Q_SPACE_NOT_AVAILABLE


def test_the_pump_checks_every_mqk_disk_check_s_and_never_on_the_put_path(world, qmgr_name) -> None:
    world.cluster.disk = disk = MemoryDisk({"/data": 100 * MIB})
    qm, guard = _connect(world, qmgr_name)
    assert guard.interval_s == config.DISK_CHECK_S
    assert disk.asked == 0  # nothing put to yet: nothing asked
    qm.define_queue("Q")
    q = pymqi.Queue(qm, "Q", C.MQOO_OUTPUT)
    _until(lambda: disk.asked == 1)  # a queue newly opened for output is placed at once
    for _ in range(200):
        q.put(b"x")
    time.sleep(0.05)
    assert disk.asked == 1
    world.clock.advance(config.DISK_CHECK_S)
    _until(lambda: disk.asked == 2)
    # The reserve is passed while nobody checks: the next check refuses.
    disk.usable["/data"] = MIB
    q.put(b"x")
    world.clock.advance(config.DISK_CHECK_S)
    _until(lambda: guard.blocked)
    assert _reason(lambda: q.put(b"x")) == C.MQRC_Q_SPACE_NOT_AVAILABLE
    q.close()


def test_a_guard_that_cannot_work_switches_off_once_with_one_line(world, qmgr_name, caplog):
    caplog.set_level(logging.INFO, "mqk.shim.diskguard")
    world.cluster.disk = disk = MemoryDisk({"/data": 100 * MIB}, {"/data": MIB})
    disk.refused = "the principal may not DESCRIBE the cluster (CLUSTER_AUTHORIZATION_FAILED)"
    qm, guard = _connect(world, qmgr_name)
    qm.define_queue("Q")
    q = pymqi.Queue(qm, "Q", C.MQOO_OUTPUT)
    _until(lambda: guard.off is not None)
    for _ in range(3):
        world.clock.advance(config.DISK_CHECK_S)
        time.sleep(0.02)
    q.put(b"not refused: nobody knows the disk")
    assert disk.asked == 1
    assert guard.blocked == frozenset()
    lines = [r for r in caplog.records if r.name == "mqk.shim.diskguard"]
    assert len(lines) == 1 and "CLUSTER_AUTHORIZATION_FAILED" in lines[0].getMessage()
    q.close()


def test_mqk_disk_check_s_0_turns_it_off(world, qmgr_name, monkeypatch) -> None:
    monkeypatch.setattr(config, "DISK_CHECK_S", 0.0)
    world.cluster.disk = disk = MemoryDisk({"/data": 100 * MIB}, {"/data": 0})
    qm, guard = _connect(world, qmgr_name)
    qm.define_queue("Q")
    pymqi.Queue(qm, "Q", C.MQOO_OUTPUT).put(b"x")
    guard.tick()
    assert (guard.off, disk.asked) == ("MQK_DISK_CHECK_S is 0", 0)


def test_a_directory_filling_fast_is_low_before_it_reaches_the_reserve(world, qmgr_name):
    world.cluster.disk = disk = MemoryDisk({"/data": 100 * MIB}, {"/data": 80 * MIB})
    qm, guard = _connect(world, qmgr_name, reserve_mib=15)
    qm.define_queue("Q")
    q = pymqi.Queue(qm, "Q", C.MQOO_OUTPUT)
    _checked(guard, disk, 1)
    first = guard.dirs[0].usable_bytes
    interval = guard.interval_s
    # 30 MiB in one interval (written by anyone: another process, another producer).
    disk.usable["/data"] = first - 30 * MIB
    world.clock.advance(interval)
    _checked(guard, disk, 2)
    # About 50 MiB usable, 30 more expected by the next check: 20 left, the reserve 15.
    assert guard.filling[(1, "/data")] == pytest.approx(30 * MIB)
    assert not guard.blocked
    disk.usable["/data"] = first - 40 * MIB  # 10 MiB more: 40 - 30 < 15
    world.clock.advance(interval)
    _checked(guard, disk, 3)
    assert guard.blocked
    assert guard.dirs[0].usable_bytes > 35 * MIB  # far above the reserve still
    assert _reason(lambda: q.put(b"x")) == C.MQRC_Q_SPACE_NOT_AVAILABLE
    # Refused puts write nothing: the fastest rate seen still counts (halving each
    # minute), so the next check does not let the same burst in again.
    world.clock.advance(interval)
    _checked(guard, disk, 4)
    assert guard.blocked
    # Space comes back (a queue deleted elsewhere): puts go on.
    disk.usable["/data"] = 95 * MIB
    world.clock.advance(interval)
    _checked(guard, disk, 5)
    assert not guard.blocked
    q.put(b"x")
    q.close()


def test_fill_rate_is_the_fastest_seen_halving_each_minute() -> None:
    rate = diskguard.FillRate(0.0, 1000 * MIB)
    assert rate.update(2.0, 980 * MIB) == 10 * MIB
    assert rate.update(4.0, 979 * MIB) == pytest.approx(10 * MIB * 0.5 ** (2 / 60))
    assert rate.update(4.0, 0) == pytest.approx(10 * MIB * 0.5 ** (2 / 60))  # no time: no news
    assert rate.update(64.0, 2000 * MIB) == pytest.approx(10 * MIB * 0.5 ** (62 / 60))


def test_a_silent_broker_keeps_its_last_picture_for_a_while(world, qmgr_name) -> None:
    world.cluster.disk = disk = MemoryDisk({"/data": 100 * MIB}, {"/data": MIB})
    qm, guard = _connect(world, qmgr_name)
    qm.define_queue("Q")
    q = pymqi.Queue(qm, "Q", C.MQOO_OUTPUT)
    guard.refresh()
    assert guard.blocked
    disk.silent = True  # a long GC pause, a network blip: not a reason to let puts in
    world.clock.advance(diskguard.STALE_AFTER_S / 2)
    guard.refresh()
    assert guard.blocked
    world.clock.advance(diskguard.STALE_AFTER_S)
    guard.refresh()  # silent too long: its directories no longer count
    assert not guard.blocked and guard.dirs == []
    q.put(b"x")
    q.close()
