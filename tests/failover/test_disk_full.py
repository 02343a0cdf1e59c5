"""A broker whose disk fills up under MQPUT (issue 19, "disk and memory limits").

Measured here (Kafka 4.3, one log directory): when an append fails for lack of space the
broker marks its only log directory offline and halts ("Shutdown broker because all log
dirs ... have failed"). A client cannot tell that from a crashed broker: nothing answers.
So the puts that were in flight end as any put to a vanished queue manager ends, with
MQRC_CONNECTION_BROKEN after MQK_BROKEN_AFTER_S, never a hang; once space returns and the
broker is started again, the same connection carries on by itself, and every put that
was acknowledged is still there, once. (MQ's own codes for a full disk, 2056
MQRC_Q_SPACE_NOT_AVAILABLE for a queue file and 2102 MQRC_RESOURCE_PROBLEM for a full
log, need a queue manager that survives its full disk; a Kafka broker does not.)

The broker's data lives on a tmpfs of its own, so the test needs root (mount); it starts
its own single node (ops/kafka.py's launcher) on 27092/27093 (MQK_DISKFULL_PORT), below
the kernel's ephemeral ports (32768 up), and shares the stack's Redis."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

import adapter.pymqi as pymqi
from adapter import config
from ops import kafka, procs

pytestmark = pytest.mark.failover
C = pymqi.CMQC
PORT = int(os.environ.get("MQK_DISKFULL_PORT", "27092"))  # and PORT + 1, its controller
SMALL, LARGE = "40m", "256m"
MIB = 1024 * 1024


def _mount(where: Path, size: str, remount: bool = False) -> subprocess.CompletedProcess:
    opts = f"remount,size={size}" if remount else f"size={size}"
    return subprocess.run(
        ["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(where)],
        capture_output=True,
        text=True,
    )


@pytest.fixture
def small_disk(tmp_path: Path):
    where = tmp_path / "node"
    where.mkdir()
    done = _mount(where, SMALL)
    if done.returncode != 0:
        pytest.skip(f"a tmpfs for the broker's disk needs root (mount said: {done.stderr})")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)
        shutil.rmtree(tmp_path, ignore_errors=True)


BOOTSTRAP = f"127.0.0.1:{PORT}"


def _start(where: Path) -> int:
    """The node on `where` (its data in where/kafka-data), up and answering; its pid."""
    deadline = time.monotonic() + 30
    while procs.port_in_use(PORT) and time.monotonic() < deadline:
        time.sleep(0.5)  # the halted node's sockets closing
    pid = kafka.start(where, PORT, PORT + 1)
    kafka.wait_ready(BOOTSTRAP, pid, where / "kafka.log")
    return pid


def _put(q: pymqi.Queue, i: int) -> None:
    body = i.to_bytes(4, "big") + b"\x5a" * (MIB - 4)
    q.put(body, pymqi.MD(Persistence=C.MQPER_PERSISTENT))


def test_full_disk_breaks_the_connection_and_puts_resume_after_space_returns(
    small_disk, monkeypatch
) -> None:
    where = small_disk
    monkeypatch.setattr(config, "BROKEN_AFTER_S", 6.0)  # the in-flight put's bound
    t0 = time.monotonic()
    pid = _start(where)
    print(f"broker up in {time.monotonic() - t0:.0f} s")
    qm = pymqi.connect(f"DISK{os.getpid()}", kafka_bootstrap=BOOTSTRAP)
    try:
        qm.define_queue("DISK.Q")
        q = pymqi.Queue(qm, "DISK.Q", C.MQOO_OUTPUT)
        acked: list[int] = []
        in_doubt: list[int] = []
        i = 0
        while True:  # 1 MiB persistent puts until the 40 MiB disk is full
            started = time.monotonic()
            try:
                _put(q, i)
                acked.append(i)
            except pymqi.MQMIError as err:
                took, reason = time.monotonic() - started, err.reason
                in_doubt.append(i)
                break
            i += 1
            assert i < 200, "40 MiB took 200 MiB of puts: is the tmpfs mounted?"
        print(f"disk full after {len(acked)} MiB acknowledged: reason {reason} in {took:.1f} s")
        assert reason == C.MQRC_CONNECTION_BROKEN
        assert took < config.BROKEN_AFTER_S + 5  # never a hang
        deadline = time.monotonic() + 60
        while procs.alive(pid, kafka.MARKER) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert not procs.alive(pid, kafka.MARKER), "the broker kept running, disk full"
        print(f"broker halted at {time.monotonic() - t0:.0f} s")
        assert "LogDirFailureChannel" in (where / "kafka.log").read_text(errors="replace")

        # Space returns; the broker is started again (a supervisor's job, as for MQ's
        # strmqm); the application's connection carries on without reconnecting.
        assert _mount(where, LARGE, remount=True).returncode == 0
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
            except pymqi.MQMIError as err:  # the client reconnecting to the new broker
                assert err.reason == C.MQRC_CONNECTION_BROKEN, err
                in_doubt.append(i)
                resumed_after += 1
                assert time.monotonic() < deadline, "puts never resumed"
        for _ in range(3):
            i += 1
            _put(q, i)
            acked.append(i)
        q.close()

        inq = pymqi.Queue(qm, "DISK.Q", C.MQOO_INPUT_SHARED)
        got: list[int] = []
        broken_gets, deadline = 0, time.monotonic() + 90
        while True:
            try:
                got.append(int.from_bytes(inq.get(None)[:4], "big"))
            except pymqi.MQMIError as err:
                if err.reason == C.MQRC_NO_MSG_AVAILABLE:
                    break
                # The restarted broker recovers its other partitions (the queue's other
                # priorities) after an unclean stop; until then a get may still see it
                # away, as an application does after any broker restart: it retries.
                assert err.reason == C.MQRC_CONNECTION_BROKEN, err
                broken_gets += 1
                assert time.monotonic() < deadline, "gets never resumed"
                time.sleep(1)
        inq.close()
        print(
            f"resumed after {resumed_after} failed puts and {broken_gets} failed gets; "
            f"got {len(got)}: "
            f"{len(acked)} acknowledged, {len(set(got) & set(in_doubt))} of "
            f"{len(in_doubt)} in doubt"
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
