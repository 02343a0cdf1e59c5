"""Queue definitions against open handles on the real stack, across processes: DELETE
QLOCAL refused while another process has the queue open (2042), allowed once that
process's lease ran out, after which its handle gets 2052 at once (not a Kafka timeout);
ALTER QLOCAL GET/PUT(DISABLED) in one process reaching the open handles of another on
their next call; an MQOPEN racing a DELETE; definition marks seen across connections.
(The full rules run on the in-memory backends: tests/unit/test_queue_lifecycle_memory.py.)"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
import uuid

import pytest

import adapter.pymqi as pymqi
from adapter.shim.redis_marks import CALL_S
from adapter.shim.redis_store import RedisStore, purge_queue_manager
from tests.integration.conftest import mqerror

pytestmark = pytest.mark.integration
C = pymqi.CMQC

# A child process holding one handle on a queue; it runs the calls named on its stdin and
# prints each one's reason code (0: completed) and how long it took.
_CHILD = """
import sys, time, adapter.pymqi as pymqi
C = pymqi.CMQC
qm = pymqi.connect({qmgr!r})
q = pymqi.Queue(qm, {queue!r}, C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED | C.MQOO_BROWSE)

def stat():  # MQSTAT: the first asynchronous put failure's reason, as the call's
    sts = qm.stat(C.MQSTAT_TYPE_ASYNC_ERROR)
    if sts.PutFailureCount:
        raise pymqi.MQMIError(sts.CompCode, sts.Reason)

calls = {{
    "stat": stat,
    "put": lambda: q.put(b"x", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_NO_SYNCPOINT)),
    "put_async": lambda: q.put(
        b"x", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_NO_SYNCPOINT | C.MQPMO_ASYNC_RESPONSE)
    ),
    "put1": lambda: qm.put1({queue!r}, b"x"),
    "get": lambda: q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_NO_SYNCPOINT)),
    "browse": lambda: q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_BROWSE_FIRST)),
    "close": q.close,
}}
print("ready", flush=True)
for line in sys.stdin:
    started = time.monotonic()
    try:
        calls[line.strip()]()
        reason = 0
    except pymqi.MQMIError as err:
        reason = err.reason
    print(reason, round(time.monotonic() - started, 3), flush=True)
"""


class Child:
    def __init__(self, qmgr_name: str, queue: str, **env: str) -> None:
        code = textwrap.dedent(_CHILD.format(qmgr=qmgr_name, queue=queue))
        self.proc = subprocess.Popen(
            [sys.executable, "-c", code],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=dict(os.environ, **env),
        )
        assert self.proc.stdout.readline().strip() == "ready"

    def call(self, name: str) -> tuple[int, float]:
        self.proc.stdin.write(name + "\n")
        self.proc.stdin.flush()
        reason, seconds = self.proc.stdout.readline().split()
        return int(reason), float(seconds)

    def end(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(30)


def _delete_when_allowed(qmgr, queue: str, within_s: float) -> float:
    """Retry DELETE QLOCAL while it is refused with 2042; seconds it took."""
    started = time.monotonic()
    while True:
        try:
            qmgr.delete_queue(queue, purge=True)
            return time.monotonic() - started
        except pymqi.MQMIError as err:
            assert err.reason == C.MQRC_OBJECT_IN_USE
            assert time.monotonic() - started < within_s, "the delete was never allowed"
            time.sleep(0.2)


def test_delete_waits_for_a_stopped_process_whose_handle_then_gets_2052_at_once(
    qmgr, qmgr_name
) -> None:
    qmgr.define_queue("Q.LIFE")
    child = Child(qmgr_name, "Q.LIFE", MQK_OPEN_LEASE_MS="3000")
    try:
        assert child.call("put") == (0, pytest.approx(0, abs=5))
        time.sleep(3.5)  # past one lease: the live process renews its handle
        with pytest.raises(pymqi.MQMIError) as exc:
            qmgr.delete_queue("Q.LIFE", purge=True)
        assert exc.value.reason == C.MQRC_OBJECT_IN_USE
        child.proc.send_signal(signal.SIGSTOP)  # stopped: nothing renews its lease
        waited = _delete_when_allowed(qmgr, "Q.LIFE", within_s=15)
        assert waited >= 1.0  # the lease, not the stop, let it through
        child.proc.send_signal(signal.SIGCONT)
        for name in ("put", "put_async", "put1", "get", "browse"):
            reason, seconds = child.call(name)
            expected = C.MQRC_UNKNOWN_OBJECT_NAME if name == "put1" else C.MQRC_Q_DELETED
            assert reason == expected, name
            assert seconds < 1.0, f"{name} took {seconds} s (a Kafka timeout?)"
        assert child.call("close")[0] == 0  # MQCLOSE succeeds on it
    finally:
        child.proc.send_signal(signal.SIGCONT)
        child.end()


def test_alter_in_one_process_reaches_the_open_handle_of_another(qmgr, qmgr_name) -> None:
    qmgr.define_queue("Q.ALTERED")
    child = Child(qmgr_name, "Q.ALTERED")
    try:
        assert child.call("put")[0] == 0
        assert child.call("browse")[0] == 0  # the definition is cached over there
        qmgr.alter_queue("Q.ALTERED", get_inhibited=True)
        assert child.call("get")[0] == C.MQRC_GET_INHIBITED
        assert child.call("browse")[0] == C.MQRC_GET_INHIBITED
        qmgr.alter_queue("Q.ALTERED", get_inhibited=False, put_inhibited=True)
        for name in ("put", "put1"):
            assert child.call(name)[0] == C.MQRC_PUT_INHIBITED, name
        # An asynchronous put completes, as an MQ client's; MQSTAT reports the refusal.
        assert child.call("put_async")[0] == 0
        assert child.call("stat")[0] == C.MQRC_PUT_INHIBITED
        assert child.call("get")[0] == 0
        qmgr.alter_queue("Q.ALTERED", put_inhibited=False)
        assert child.call("put_async")[0] == 0
        assert child.call("put1")[0] == 0
        assert child.call("close")[0] == 0
    finally:
        child.end()
    assert qmgr.queue_status("Q.ALTERED")["current_depth"] == 2


def test_an_open_racing_a_delete_either_wins_or_is_refused(qmgr, qmgr_name) -> None:
    """Never a handle on a deleted queue: the open registered first (the delete fails
    with 2042), or the delete marked the queue first (the open fails with 2085)."""
    other = pymqi.QueueManager(None)  # its opens run on another thread: a shared handle
    other.connect_with_options(qmgr_name, opts=C.MQCNO_HANDLE_SHARE_BLOCK)

    def open_it(name: str, start: threading.Barrier, opened: list) -> None:
        start.wait()
        try:
            opened.append(pymqi.Queue(other, name, C.MQOO_OUTPUT))
        except pymqi.MQMIError as err:
            opened.append(err.reason)

    try:
        for i in range(8):
            name = f"Q.RACE.{i}"
            qmgr.define_queue(name)
            pymqi.Queue(other, name, C.MQOO_INQUIRE).close()  # cached over there
            start = threading.Barrier(2)
            opened: list = []
            t = threading.Thread(target=open_it, args=(name, start, opened))
            t.start()
            start.wait()
            try:
                qmgr.delete_queue(name)
                deleted = 0
            except pymqi.MQMIError as err:
                deleted = err.reason
            t.join(30)
            got = opened[0] if isinstance(opened[0], int) else 0
            assert (got, deleted) in {
                (0, C.MQRC_OBJECT_IN_USE),
                (C.MQRC_UNKNOWN_OBJECT_NAME, 0),
            }
            if got == 0:
                opened[0].close()
                qmgr.delete_queue(name)
    finally:
        other.disconnect()


def test_definition_marks_written_on_one_connection_are_read_on_another_at_once(
    mqk_servers,
) -> None:
    qmgr_name = f"MARKS.{uuid.uuid4().hex[:8]}"
    url = os.environ["MQK_REDIS_URL"]
    reader, writer = RedisStore(url, qmgr_name), RedisStore(url, qmgr_name)
    try:
        seen = reader.queue("Q")
        stale = 0
        for i in range(1000):
            writer.queue("Q").set_definition(f"inc:{i}")
            stale += seen.definition() != f"inc:{i}"
        assert stale == 0
        # The tracking connection is cut: its pushes are lost, so is its cache.
        conn = reader.marks._conn
        conn.send_command("CLIENT", "ID")
        writer.client.client_kill_filter(_id=conn.read_response())
        writer.queue("Q").drop()
        assert seen.definition() == "deleted"
    finally:
        purge_queue_manager(reader.client, qmgr_name)
        reader.close()
        writer.close()


def test_a_call_reads_the_marks_as_of_its_start(mqk_servers) -> None:
    """Every MQI call starts with the run-state check, whose read polls the tracking
    socket; the engine's later reads in the call (`in_call`) take the marks as of that
    poll, with no system call of their own. Any other read, and the next call's start,
    sees a mark written meanwhile."""
    qmgr_name = f"MARKS.{uuid.uuid4().hex[:8]}"
    url = os.environ["MQK_REDIS_URL"]
    reader, writer = RedisStore(url, qmgr_name), RedisStore(url, qmgr_name)
    try:
        seen = reader.queue("Q")
        in_window = 0
        for i in range(200):
            writer.queue("Q").set_definition(f"inc:{i}")
            reader.run_state()  # a call starts
            started = time.perf_counter()
            assert seen.definition(in_call=True) == f"inc:{i}"
            writer.queue("Q").set_definition(f"inc:{i}b")  # written during the call
            during = seen.definition(in_call=True)
            if time.perf_counter() - started < CALL_S * 0.9:
                in_window += 1
                assert during == f"inc:{i}"  # the call's view: as of its start
            assert seen.definition() == f"inc:{i}b"  # a plain read polls
            reader.run_state()  # the next call sees it
            assert seen.definition(in_call=True) == f"inc:{i}b"
        if in_window == 0:
            pytest.skip("the machine never ran a call's reads within CALL_S")
        writer.queue("Q").set_definition("late")
        time.sleep(CALL_S * 2)  # a read long after the thread's last poll polls again
        assert seen.definition(in_call=True) == "late"
    finally:
        purge_queue_manager(reader.client, qmgr_name)
        reader.close()
        writer.close()


def test_delete_purge_is_refused_while_another_connection_has_an_open_transaction(
    qmgr, qmgr_name
) -> None:
    """Rule 40 on real Kafka: the other connection's uncommitted put is an open Kafka
    transaction on the queue's topic (last stable offset short of the high watermark),
    so DELETE QLOCAL PURGE gives 2055 until it commits. The record reaches the broker a
    few milliseconds after MQPUT returns (the transactional producer registers the
    partition, then sends): the wait below is that window, the one place where another
    connection cannot see the put yet."""
    qmgr.define_queue("Q.OPEN.TXN")
    other = pymqi.connect(qmgr_name)
    try:
        q = pymqi.Queue(other, "Q.OPEN.TXN", C.MQOO_OUTPUT)
        q.put(b"pending", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
        q.close()
        catalog = qmgr.get_handle().catalog
        qdef = catalog.lookup("Q.OPEN.TXN")
        deadline = time.monotonic() + 5
        while not catalog.has_uncommitted(qdef) and time.monotonic() < deadline:
            time.sleep(0.01)
        with pytest.raises(pymqi.MQMIError) as exc:
            qmgr.delete_queue("Q.OPEN.TXN", purge=True)
        assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_Q_NOT_EMPTY)
        other.commit()
        qmgr.delete_queue("Q.OPEN.TXN", purge=True)
    finally:
        other.disconnect()
