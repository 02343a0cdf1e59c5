"""Two processes DEFINE the same new queue at the same moment, round after round, on the
real servers: one incarnation each time (shim/nameclaims.py). Without REPLACE one
DEFINE wins and the other gets MQRCCF_OBJECT_ALREADY_EXISTS (4001); with REPLACE both
succeed on the one queue. The handle each process opens right after its DEFINE keeps
working once both are done: nobody gets MQRC_Q_DELETED (2052)."""

from __future__ import annotations

import multiprocessing as mp
import queue
import time

import pytest

import adapter.pymqi as pymqi
from adapter.shim import naming
from adapter.shim.catalog import QueueDef
from adapter.shim.log import read_range

pytestmark = pytest.mark.integration
C = pymqi.CMQC
ROUNDS = 12  # odd rounds with REPLACE


def _name(i: int) -> str:
    return f"RACE.Q.{i}"


def _put(q: pymqi.Queue, body: bytes) -> int | None:
    try:
        q.put(body)
    except pymqi.MQMIError as err:
        return err.reason
    return None


def _definer(qmgr_name: str, who: str, barrier, out) -> None:
    rounds, error = [], None
    try:
        qm = pymqi.connect(qmgr_name)
        for i in range(ROUNDS):
            barrier.wait(120)  # both at the start line
            start = time.monotonic()
            try:
                qdef = qm.define_queue(_name(i), replace=i % 2 == 1, description=who)
                outcome: tuple = ("ok", qdef.incarnation)
            except pymqi.MQMIError as err:
                outcome = ("reason", err.reason)
            end = time.monotonic()
            q = pymqi.Queue(qm, _name(i), C.MQOO_OUTPUT)
            first = _put(q, f"{who} {i} first".encode())
            barrier.wait(120)  # both definitions done
            after = _put(q, f"{who} {i} after".encode())
            q.close()
            rounds.append((outcome, first, after, start, end))
        qm.disconnect()
    except BaseException as exc:  # noqa: BLE001 (reported to the test)
        error = repr(exc)
        barrier.abort()  # the other process stops waiting for this one
    out.put((who, rounds, error))


def _catalog_records(qmgr: pymqi.QueueManager, qmgr_name: str) -> dict[str, list[QueueDef]]:
    """Every definition written to the catalog topic, by queue name, in order."""
    log = qmgr.get_handle().log
    topic = naming.catalog_topic(qmgr_name)
    high = log.end_offsets([(topic, 0)])[(topic, 0)]
    found: dict[str, list[QueueDef]] = {}

    def on_record(msg) -> None:
        key = msg.key().decode()
        if key.startswith("RACE.Q.") and msg.value() is not None:
            found.setdefault(key, []).append(QueueDef.from_json(msg.value()))

    read_range(log, {(topic, 0): (0, high)}, on_record, timeout_s=60)
    return found


def test_two_processes_defining_one_queue_make_one_incarnation(qmgr, qmgr_name) -> None:
    ctx = mp.get_context("spawn")
    barrier = ctx.Barrier(2)
    out = ctx.Queue()
    procs = [ctx.Process(target=_definer, args=(qmgr_name, w, barrier, out)) for w in "AB"]
    for p in procs:
        p.start()
    got, errors = {}, {}
    deadline = time.monotonic() + 600
    while len(got) < len(procs):
        try:
            who, rounds, error = out.get(timeout=5)
        except queue.Empty:
            assert time.monotonic() < deadline, "the definers did not finish"
            assert any(p.is_alive() for p in procs), "a definer died without a word"
            continue
        got[who], errors[who] = rounds, error
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    assert errors == {"A": None, "B": None}, errors
    records = _catalog_records(qmgr, qmgr_name)
    overlapped = 0
    for i in range(ROUNDS):
        (a, a_first, a_after, a_start, a_end) = got["A"][i]
        (b, b_first, b_after, b_start, b_end) = got["B"][i]
        puts = (a_first, a_after, b_first, b_after)
        assert puts == (None,) * 4, f"round {i}: the puts' reasons {puts}"  # never 2052
        written = records[_name(i)]
        assert len({d.incarnation for d in written}) == 1, f"round {i}: {written}"
        oks = [o for o in (a, b) if o[0] == "ok"]
        if i % 2 == 1:  # REPLACE: both succeed, on the one queue
            assert len(oks) == 2 and len(written) == 2, (i, a, b)
        else:  # one wins, the other is told the queue exists
            assert len(oks) == 1 and len(written) == 1, (i, a, b)
            assert {a[0], b[0]} == {"ok", "reason"}
            assert C.MQRCCF_OBJECT_ALREADY_EXISTS in (a[1], b[1])
        assert {o[1] for o in oks} == {written[0].incarnation}
        assert qmgr.queue_status(_name(i))["current_depth"] == 4
        overlapped += max(a_start, b_start) < min(a_end, b_end)
    # The two DEFINEs really ran at once (the test has power): most rounds overlapped.
    print(f"{overlapped} of {ROUNDS} rounds had both DEFINEs running at once")
    assert overlapped >= ROUNDS // 2
