"""A broker whose disk fills up (issue 19, "disk and memory limits").

Measured here (Kafka 4.3, one log directory): when an append fails for lack of space the
broker marks its only log directory offline and halts ("Shutdown broker because all log
dirs ... have failed"); a client can then only see a vanished broker. IBM MQ keeps
running and answers the put it has no space for with 2056 MQRC_Q_SPACE_NOT_AVAILABLE
(https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041260_.html).

1. The disk guard (adapter/shim/diskguard.py): with every producer an mqk application,
   MQPUT answers 2056 once the broker's log directory has less usable space than the
   reserve, the broker keeps running, every acknowledged put is got back once, and puts
   go on once space returns. Getting the messages frees nothing on a Kafka log (a
   consumed record stays in its segment; queue topics keep retention -1): the test
   shows it, then deletes the drained queue (DELETE QLOCAL, as an operator would; the
   broker removes its topics' files after `log.segment.delete.delay.ms`, 60 s by
   default) and defines it again.
2. A producer that is not mqk (nothing refuses its appends) fills the disk anyway: the
   broker halts; the application's calls end with 2056 or 2009, never a hang; once space
   returns and the broker is restarted (a supervisor's job, as strmqm's for MQ) the same
   connection carries on and every acknowledged put is there, once.

The broker's data lives on a tmpfs of its own, so the tests need root (mount); each
starts its own single node (ops/kafka.py's launcher) on 27092/27093 (MQK_DISKFULL_PORT),
below the kernel's ephemeral ports (32768 up), and shares the stack's Redis."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

import adapter.pymqi as pymqi
from adapter import config
from adapter.shim import diskguard
from ops import kafka, procs

pytestmark = pytest.mark.failover
C = pymqi.CMQC
PORT = int(os.environ.get("MQK_DISKFULL_PORT", "27092"))  # and PORT + 1, its controller
BOOTSTRAP = f"127.0.0.1:{PORT}"
MIB = 1024 * 1024
HALTED = ("LogDirFailureChannel", "all log dirs")
PRESSURE_S = 8.0


def _mount(where: Path, size: str, remount: bool = False) -> subprocess.CompletedProcess:
    opts = f"remount,size={size}" if remount else f"size={size}"
    return subprocess.run(
        ["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(where)],
        capture_output=True,
        text=True,
    )


def _disk(tmp_path: Path, size: str):
    where = tmp_path / "node"
    where.mkdir()
    done = _mount(where, size)
    if done.returncode != 0:
        pytest.skip(f"a tmpfs for the broker's disk needs root (mount said: {done.stderr})")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)
        shutil.rmtree(tmp_path, ignore_errors=True)


@pytest.fixture
def small_disk(tmp_path: Path):
    yield from _disk(tmp_path, "40m")


@pytest.fixture
def guarded_disk(tmp_path: Path):
    yield from _disk(tmp_path, "64m")


def _start(where: Path, extra: str = "") -> int:
    """The node on `where` (its data in where/kafka-data), up and answering; its pid."""
    deadline = time.monotonic() + 30
    while procs.port_in_use(PORT) and time.monotonic() < deadline:
        time.sleep(0.5)  # the halted node's sockets closing
    props = kafka.server_properties(where / "kafka-data", PORT, PORT + 1) + extra
    pid = kafka.start(where, PORT, PORT + 1, properties=props)
    kafka.wait_ready(BOOTSTRAP, pid, where / "kafka.log")
    return pid


def _usable(where: Path) -> int:
    st = os.statvfs(where)
    return st.f_bavail * st.f_frsize


def _put(q: pymqi.Queue, i: int, size: int = MIB) -> None:
    body = i.to_bytes(4, "big") + b"\x5a" * (size - 4)
    q.put(body, pymqi.MD(Persistence=C.MQPER_PERSISTENT))


def _get_all(inq: pymqi.Queue, deadline_s: float = 90) -> tuple[list[int], int]:
    """Every message's number, in the order got, and how many gets saw the broker away
    (a restarted broker recovers its other partitions after an unclean stop)."""
    got: list[int] = []
    broken, deadline = 0, time.monotonic() + deadline_s
    while True:
        try:
            got.append(int.from_bytes(inq.get(None)[:4], "big"))
        except pymqi.MQMIError as err:
            if err.reason == C.MQRC_NO_MSG_AVAILABLE:
                return got, broken
            assert err.reason == C.MQRC_CONNECTION_BROKEN, err
            broken += 1
            assert time.monotonic() < deadline, "gets never resumed"
            time.sleep(1)


def test_puts_get_2056_before_the_disk_fills_and_go_on_once_space_returns(
    guarded_disk, monkeypatch
) -> None:
    where = guarded_disk
    reserve = 16 * MIB
    monkeypatch.setattr(config, "DISK_CHECK_S", 0.25)
    monkeypatch.setattr(config, "DISK_RESERVE_MB", reserve / MIB)
    monkeypatch.setattr(config, "DISK_RESERVE_PCT", 0.0)
    # The refusals here come from the fill rate (usable 38 MiB, 25 MiB expected before
    # the next check, a 16 MiB reserve), and that rate halves each RATE_HALF_LIFE_S: at
    # 60 s it drops under the 22 MiB that keeps puts out about 11 s after the first
    # 2056, which is when this test deletes the queue (8 s of pressure, the drain, the
    # checks), so puts could go on because the rate decayed, not because DELETE freed
    # the space (CI at 9010008: "freed" -368 KiB). What is tested is the latter.
    monkeypatch.setattr(diskguard, "RATE_HALF_LIFE_S", 600.0)
    t0 = time.monotonic()
    # A deleted topic's files go after a second, not Kafka's default minute (the broker
    # setting; file.delete.delay.ms is its per-topic name and means nothing in server.properties).
    pid = _start(where, "log.segment.delete.delay.ms=1000\n")
    print(f"broker up in {time.monotonic() - t0:.0f} s; {_usable(where) / MIB:.1f} MiB usable")
    qm = pymqi.connect(f"GUARD{os.getpid()}", kafka_bootstrap=BOOTSTRAP)
    guard = qm._conn.services.disk
    try:
        qm.define_queue("DISK.Q")
        q = pymqi.Queue(qm, "DISK.Q", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
        size = 256 * 1024
        acked = 0
        started = time.monotonic()
        first = None
        pressure_until = float("inf")
        while True:
            # 256 KiB persistent puts as fast as one putter goes; after the first 2056 the
            # putter keeps trying every 50 ms for PRESSURE_S: the disk must never fill.
            try:
                _put(q, acked, size)
                acked += 1
                assert acked < 1000, "64 MiB took 250 MiB of puts: is the tmpfs mounted?"
            except pymqi.MQMIError as err:
                assert err.reason == C.MQRC_Q_SPACE_NOT_AVAILABLE, err
                if first is None:
                    [seen] = guard.dirs
                    filling = guard.filling.get((seen.broker, seen.path), 0.0)
                    first = (acked, time.monotonic() - started, _usable(where))
                    pressure_until = time.monotonic() + PRESSURE_S
                    print(
                        f"first 2056 after {acked} puts, {acked * size / MIB:.1f} MiB "
                        f"acknowledged in {first[1]:.1f} s; usable then {first[2] / MIB:.1f} "
                        f"MiB; the guard's last check: {seen.usable_bytes / MIB:.1f} of "
                        f"{seen.total_bytes / MIB:.1f} MiB usable, {filling / MIB:.1f} MiB "
                        f"expected by the next check; reserve {reserve / MIB:.0f} MiB, a check "
                        f"every {config.DISK_CHECK_S} s"
                    )
                    assert seen.usable_bytes - filling < reserve
                if time.monotonic() > pressure_until:
                    break
                time.sleep(0.05)
        at_end = _usable(where)
        print(
            f"after {PRESSURE_S:.0f} s more of putting: {acked} puts, "
            f"{acked * size / MIB:.1f} MiB acknowledged; usable {at_end / MIB:.1f} MiB"
        )
        assert at_end > 0
        assert procs.alive(pid, kafka.MARKER), "the broker halted"

        got, broken = _get_all(q)
        assert broken == 0
        assert got == list(range(acked)), "every acknowledged put, once, in order"
        time.sleep(3 * config.DISK_CHECK_S)
        print(
            f"drained {len(got)} messages: usable {_usable(where) / MIB:.1f} MiB "
            "(a consumed record keeps its bytes)"
        )
        with pytest.raises(pymqi.MQMIError) as still:
            _put(q, 9999, size)
        assert still.value.reason == C.MQRC_Q_SPACE_NOT_AVAILABLE
        q.close()

        # Space returns: the drained queue is deleted (the broker removes its topics'
        # files a second later here) and defined again; puts go on at the next check.
        before = _usable(where)
        deleted = time.monotonic()
        qm.delete_queue("DISK.Q")
        qm.define_queue("DISK.Q")
        q = pymqi.Queue(qm, "DISK.Q", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
        refused = 0
        while True:
            try:
                _put(q, 0, size)
                break
            except pymqi.MQMIError as err:
                assert err.reason == C.MQRC_Q_SPACE_NOT_AVAILABLE, err
                refused += 1
                assert time.monotonic() - deleted < 60, "space never came back"
                time.sleep(0.05)
        recovered = time.monotonic() - deleted
        freed = _usable(where) - before
        assert freed > 20 * MIB, "puts went on before the space came back"
        for i in range(1, 4):
            _put(q, i, size)
        print(
            f"DELETE QLOCAL + DEFINE: {freed / MIB:.1f} MiB freed; puts go on {recovered:.1f} s "
            f"after the DELETE ({refused} refused meanwhile); usable {_usable(where) / MIB:.1f} MiB"
        )
        assert _get_all(q)[0] == [0, 1, 2, 3]
        q.close()
        assert procs.alive(pid, kafka.MARKER), "the broker halted"
        log_text = (where / "kafka.log").read_text(errors="replace")
        assert not any(h in log_text for h in HALTED), "a log directory failed"
    finally:
        try:
            qm.disconnect()
        finally:
            procs.stop(pid, kafka.MARKER, timeout=20)


def _fill_with_a_foreign_producer(topic: str) -> int:
    """A Kafka producer that is not mqk: nothing refuses its appends. 512 KiB records
    until the broker stops acknowledging (its disk full, its log directory failed); the
    MiB it had acknowledged."""
    admin = AdminClient({"bootstrap.servers": BOOTSTRAP})
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(30)
    producer = Producer(
        {
            "bootstrap.servers": BOOTSTRAP,
            "acks": "all",
            "message.timeout.ms": 8000,
            "log_level": 0,
        }  # fmt: skip
    )
    results: list = []
    for _ in range(400):
        producer.produce(topic, b"\x00" * (MIB // 2), on_delivery=lambda e, _m: results.append(e))
        producer.flush(10)
        if results[-1] is not None:
            break
    producer.flush(10)
    return sum(1 for e in results if e is None) // 2


def test_a_foreign_producer_fills_the_disk_the_broker_halts_and_mqk_resumes(
    small_disk, monkeypatch
) -> None:
    where = small_disk
    monkeypatch.setattr(config, "BROKEN_AFTER_S", 6.0)  # the in-flight put's bound
    monkeypatch.setattr(config, "DISK_CHECK_S", 0.25)
    monkeypatch.setattr(config, "DISK_RESERVE_MB", 8.0)
    monkeypatch.setattr(config, "DISK_RESERVE_PCT", 0.0)
    t0 = time.monotonic()
    pid = _start(where)
    print(f"broker up in {time.monotonic() - t0:.0f} s")
    qm = pymqi.connect(f"DISK{os.getpid()}", kafka_bootstrap=BOOTSTRAP)
    try:
        qm.define_queue("DISK.Q")
        q = pymqi.Queue(qm, "DISK.Q", C.MQOO_OUTPUT)
        acked: list[int] = []
        in_doubt: list[int] = []
        for i in range(5):
            _put(q, i)
            acked.append(i)
        filled = _fill_with_a_foreign_producer("not.mqk")
        i = len(acked)
        started = time.monotonic()
        try:
            _put(q, i)
            acked.append(i)
            reason = None
        except pymqi.MQMIError as err:
            reason = err.reason
            in_doubt.append(i)
        took = time.monotonic() - started
        print(f"a foreign producer wrote {filled} MiB; the next MQPUT: reason {reason} "
              f"in {took:.1f} s")  # fmt: skip
        assert reason in (C.MQRC_Q_SPACE_NOT_AVAILABLE, C.MQRC_CONNECTION_BROKEN)
        assert took < config.BROKEN_AFTER_S + 5  # never a hang
        deadline = time.monotonic() + 60
        while procs.alive(pid, kafka.MARKER) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert not procs.alive(pid, kafka.MARKER), "the broker kept running, disk full"
        print(f"broker halted at {time.monotonic() - t0:.0f} s")
        assert "LogDirFailureChannel" in (where / "kafka.log").read_text(errors="replace")

        # Space returns; the broker is started again (a supervisor's job, as for MQ's
        # strmqm); the application's connection carries on without reconnecting.
        assert _mount(where, "256m", remount=True).returncode == 0
        monkeypatch.setattr(config, "BROKEN_AFTER_S", 15.0)  # calls from here: the default
        pid = _start(where)
        print(f"broker restarted at {time.monotonic() - t0:.0f} s")
        resumed_after, deadline = 0, time.monotonic() + 90
        while True:
            i += 1
            try:
                _put(q, i)
                acked.append(i)
                break
            except pymqi.MQMIError as err:  # reconnecting, or the guard's next check
                assert err.reason in (
                    C.MQRC_CONNECTION_BROKEN,
                    C.MQRC_Q_SPACE_NOT_AVAILABLE,
                ), err
                if err.reason == C.MQRC_CONNECTION_BROKEN:
                    in_doubt.append(i)
                resumed_after += 1
                assert time.monotonic() < deadline, "puts never resumed"
                time.sleep(0.2)
        for _ in range(3):
            i += 1
            _put(q, i)
            acked.append(i)
        q.close()

        inq = pymqi.Queue(qm, "DISK.Q", C.MQOO_INPUT_SHARED)
        got, broken_gets = _get_all(inq)
        inq.close()
        print(
            f"resumed after {resumed_after} refused puts and {broken_gets} failed gets; "
            f"got {len(got)}: {len(acked)} acknowledged, "
            f"{len(set(got) & set(in_doubt))} of {len(in_doubt)} in doubt"
        )
        assert len(got) == len(set(got)), "a message was delivered twice"
        assert set(acked) <= set(got), f"acknowledged puts lost: {set(acked) - set(got)}"
        assert set(got) <= set(acked) | set(in_doubt)
        assert got == sorted(got)  # one putter, one priority: in order
    finally:
        try:
            qm.disconnect()
        finally:
            if procs.alive(pid, kafka.MARKER):
                procs.stop(pid, kafka.MARKER, timeout=20)
