"""Units of work on Kafka transactions: syncpoint puts and gets, commit, backout, commit
failure, dead connections, backout threshold, groups across units of work."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time

import pytest
from confluent_kafka import Producer

import adapter.pymqi as pymqi
from adapter import config
from adapter.config import kafka_settings
from adapter.testing.servers import admin_redis
from tests.integration.conftest import drain, mqerror

pytestmark = pytest.mark.integration
C = pymqi.CMQC
ALL = C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT | C.MQOO_BROWSE
SP_PUT = C.MQPMO_SYNCPOINT
SP_GET = C.MQGMO_SYNCPOINT


def put(q, body: bytes, options: int = SP_PUT, **md) -> pymqi.MD:
    desc = pymqi.MD(**md)
    q.put(body, desc, pymqi.PMO(Options=options))
    return desc


def get(q, options: int = SP_GET, md: pymqi.MD | None = None, wait_ms: int = 0) -> bytes:
    gmo = pymqi.GMO(Options=options | (C.MQGMO_WAIT if wait_ms else 0), WaitInterval=wait_ms)
    return q.get(None, md if md is not None else pymqi.MD(), gmo)


def test_syncpoint_put_is_invisible_until_commit_and_gone_on_backout(qmgr, qmgr_name) -> None:
    qmgr.define_queue("Q.UOWPUT")
    q = pymqi.Queue(qmgr, "Q.UOWPUT", ALL)
    other = pymqi.connect(qmgr_name)
    try:
        theirs = pymqi.Queue(other, "Q.UOWPUT", ALL)
        put(q, b"kept")
        with pytest.raises(pymqi.MQMIError) as exc:
            get(theirs, C.MQGMO_NO_SYNCPOINT)
        assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE)
        qmgr.commit()
        assert get(theirs, C.MQGMO_NO_SYNCPOINT) == b"kept"  # visible when MQCMIT returns
        put(q, b"dropped")
        qmgr.backout()
        assert drain(theirs, wait_ms=300) == []
    finally:
        other.disconnect()


def test_an_open_unit_of_works_puts_hide_no_other_message(qmgr, qmgr_name) -> None:
    """MQ makes a message put outside syncpoint, or committed by another unit of work,
    available at once (rule 52). A unit of work's Kafka transaction opened at its first
    MQPUT would hide both from read_committed readers until it ends (2033 here)."""
    qmgr.define_queue("Q.UOWHOL")
    mine = pymqi.Queue(qmgr, "Q.UOWHOL", ALL)
    others = [pymqi.connect(qmgr_name) for _ in range(2)]
    try:
        plain, getter = (pymqi.Queue(qm, "Q.UOWHOL", ALL) for qm in others)
        put(mine, b"open 1")
        put(plain, b"plain", C.MQPMO_NO_SYNCPOINT)
        assert get(getter, C.MQGMO_NO_SYNCPOINT) == b"plain"
        put(plain, b"committed")
        others[0].commit()
        put(mine, b"open 2")
        assert get(getter, C.MQGMO_NO_SYNCPOINT) == b"committed"
        qmgr.commit()
        assert [d for d, _ in drain(getter, wait_ms=300)] == [b"open 1", b"open 2"]
    finally:
        for qm in others:
            qm.disconnect()


def test_a_unit_of_work_with_puts_outlives_kafkas_transaction_timeout(
    qmgr, qmgr_name, monkeypatch
) -> None:
    """A unit of work lasts as long as its application wants (rule 52). The broker
    aborts a transaction older than transaction.timeout.ms (here 1 s, checked every
    10 s by its default transaction.abort.timed.out.transaction.cleanup.interval.ms):
    opened at the first MQPUT, this MQCMIT answered 2003."""
    monkeypatch.setattr(config, "TXN_TIMEOUT_MS", 1000)  # this connection's producer
    qm = pymqi.connect(qmgr_name)
    try:
        qm.define_queue("Q.UOWLONG")
        q = pymqi.Queue(qm, "Q.UOWLONG", ALL)
        put(q, b"before")
        time.sleep(12)
        put(q, b"after")
        qm.commit()
    finally:
        qm.disconnect()
    reader = pymqi.Queue(qmgr, "Q.UOWLONG", ALL)
    assert [d for d, _ in drain(reader, wait_ms=300)] == [b"before", b"after"]


def test_syncpoint_get_hides_message_until_commit_backout_restores_it_in_place(
    qmgr, qmgr_name
) -> None:
    qmgr.define_queue("Q.UOWGET")
    q = pymqi.Queue(qmgr, "Q.UOWGET", ALL)
    for body in (b"first", b"second"):
        put(q, body, C.MQPMO_NO_SYNCPOINT)
    other = pymqi.connect(qmgr_name)
    try:
        theirs = pymqi.Queue(other, "Q.UOWGET", ALL)
        assert get(q) == b"first"
        # CurrentQDepth "excludes messages that have been retrieved within a unit of
        # work" (IBM's CurrentQDepth page), as its own connection sees it
        assert qmgr.queue_status("Q.UOWGET")["current_depth"] == 1
        browsed = theirs.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_BROWSE_FIRST))
        assert browsed == b"second"  # the message in our unit of work is invisible
        qmgr.backout()
        md = pymqi.MD()
        assert get(theirs, C.MQGMO_NO_SYNCPOINT, md) == b"first"  # its original position
        assert md.BackoutCount == 1
        assert get(q) == b"second"
        qmgr.commit()
        assert qmgr.queue_status("Q.UOWGET")["current_depth"] == 0
    finally:
        other.disconnect()


def test_a_getter_passes_however_many_messages_another_unit_of_work_holds(qmgr, qmgr_name) -> None:
    """Messages got in a unit of work are "not available to be retrieved by other
    programs" (IBM's "Committing and backing out units of work"): another getter gets
    the first free one behind them, however many they are (2033 came back once a full
    claim batch of them stood at the head), and 2033 only when none is free."""
    qmgr.define_queue("Q.UOWPAST")
    q = pymqi.Queue(qmgr, "Q.UOWPAST", ALL)
    for i in range(60):
        put(q, f"m{i}".encode(), C.MQPMO_NO_SYNCPOINT, Persistence=C.MQPER_PERSISTENT)
    other = pymqi.connect(qmgr_name)
    try:
        theirs = pymqi.Queue(other, "Q.UOWPAST", ALL)
        assert [get(q) for _ in range(40)] == [f"m{i}".encode() for i in range(40)]
        assert get(theirs, wait_ms=2000) == b"m40"
        assert [get(q) for _ in range(19)] == [f"m{i}".encode() for i in range(41, 60)]
        with pytest.raises(pymqi.MQMIError) as none_free:
            get(theirs, wait_ms=500)
        assert mqerror(none_free) == (C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE)
        qmgr.backout()
        assert get(theirs) == b"m0"  # backed out: in its place again
        other.backout()
    finally:
        other.disconnect()


def test_a_unit_of_work_counts_in_curdepth_and_maxdepth_as_mq_counts_it(qmgr, qmgr_name) -> None:
    """CurrentQDepth "includes messages that have been put on the queue within a unit of
    work" and "excludes messages that have been retrieved within a unit of work"
    (https://www.ibm.com/support/knowledgecenter/SSFKSJ_9.0.0/com.ibm.mq.ref.dev.doc/q106410_.htm),
    and a put to a queue holding MaxQDepth messages fails with 2053: 8 syncpoint puts on
    a MAXDEPTH(5) queue put 5. Before, all 8 were put and CURDEPTH read 0 until MQCMIT."""
    qmgr.define_queue("Q.UOWDEPTH", max_depth=5)
    q = pymqi.Queue(qmgr, "Q.UOWDEPTH", ALL | C.MQOO_INQUIRE)
    reasons = []
    for i in range(8):
        try:
            put(q, b"m%d" % i)
            reasons.append(0)
        except pymqi.MQMIError as err:
            reasons.append(err.reason)
    assert reasons == [0] * 5 + [C.MQRC_Q_FULL] * 3
    assert q.inquire(C.MQIA_CURRENT_Q_DEPTH) == 5
    qmgr.commit()
    get(q)  # one out, in a unit of work: room for one
    assert q.inquire(C.MQIA_CURRENT_Q_DEPTH) == 4
    put(q, b"again")
    with pytest.raises(pymqi.MQMIError) as exc:
        put(q, b"one too many")
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_Q_FULL)
    qmgr.commit()
    other = pymqi.connect(qmgr_name)
    try:
        assert other.queue_status("Q.UOWDEPTH")["current_depth"] == 5
        theirs = pymqi.Queue(other, "Q.UOWDEPTH", ALL)
        assert [d for d, _ in drain(theirs, wait_ms=300)] == [b"m1", b"m2", b"m3", b"m4", b"again"]
    finally:
        other.disconnect()


def test_backout_count_grows_with_each_backout(qmgr) -> None:
    qmgr.define_queue("Q.BOCOUNT")
    q = pymqi.Queue(qmgr, "Q.BOCOUNT", ALL)
    put(q, b"poison", C.MQPMO_NO_SYNCPOINT)
    counts = []
    for _ in range(3):
        md = pymqi.MD()
        get(q, md=md)
        counts.append(md.BackoutCount)
        qmgr.backout()
    assert counts == [0, 1, 2]


def test_syncpoint_if_persistent(qmgr) -> None:
    qmgr.define_queue("Q.SPIFP")
    q = pymqi.Queue(qmgr, "Q.SPIFP", ALL)
    put(q, b"persistent", C.MQPMO_NO_SYNCPOINT, Persistence=C.MQPER_PERSISTENT)
    put(q, b"transient", C.MQPMO_NO_SYNCPOINT, Persistence=C.MQPER_NOT_PERSISTENT)
    assert get(q, C.MQGMO_SYNCPOINT_IF_PERSISTENT) == b"persistent"  # in the unit of work
    assert get(q, C.MQGMO_SYNCPOINT_IF_PERSISTENT) == b"transient"  # removed at once
    qmgr.backout()
    assert [d for d, _ in drain(q)] == [b"persistent"]


def test_get_process_put_is_atomic(qmgr) -> None:
    qmgr.define_queue("Q.IN")
    qmgr.define_queue("Q.OUT")
    src = pymqi.Queue(qmgr, "Q.IN", ALL)
    dst = pymqi.Queue(qmgr, "Q.OUT", ALL)
    for i in range(5):
        put(src, f"m{i}".encode(), C.MQPMO_NO_SYNCPOINT)
    for _ in range(5):
        data = get(src)
        put(dst, data.upper())
        qmgr.commit()
    assert qmgr.queue_status("Q.IN")["current_depth"] == 0
    assert [d for d, _ in drain(dst)] == [f"M{i}".encode() for i in range(5)]


def test_commit_failure_backs_out_with_2003_and_doomed_uow_fails_2003(
    qmgr, kafka_bootstrap
) -> None:
    qmgr.define_queue("Q.FENCED")
    q = pymqi.Queue(qmgr, "Q.FENCED", ALL)
    put(q, b"in", C.MQPMO_NO_SYNCPOINT)
    assert get(q) == b"in"
    put(q, b"out")
    # A second producer with the same transactional id fences ours: it cannot commit.
    zombie_killer = Producer(
        {
            **kafka_settings(),  # the secure slice's TLS / SASL (adapter/config.py)
            "bootstrap.servers": kafka_bootstrap,
            "transactional.id": qmgr.get_handle().txn.transactional_id,
        }
    )
    zombie_killer.init_transactions(30)
    with pytest.raises(pymqi.MQMIError) as exc:
        qmgr.commit()
    assert mqerror(exc) == (C.MQCC_WARNING, C.MQRC_BACKED_OUT)
    # Backed out: the get is undone, the put is gone.
    assert [d for d, _ in drain(q)] == [b"in"]
    # The connection recovers: a new unit of work works (a new producer).
    put(q, b"again")
    qmgr.commit()
    assert [d for d, _ in drain(q)] == [b"again"]


def test_unit_of_work_that_lost_its_locks_cannot_commit(qmgr) -> None:
    """Locks reclaimed while the unit of work was open: commit must back out, never
    deliver the message twice."""
    qmgr.define_queue("Q.LOST")
    q = pymqi.Queue(qmgr, "Q.LOST", ALL)
    put(q, b"contended", C.MQPMO_NO_SYNCPOINT)
    assert get(q) == b"contended"
    st = qmgr.get_handle().state("Q.LOST")
    st.r.delete(st.prefix + "lock")  # as if its lease ran out and another took it
    with pytest.raises(pymqi.MQMIError) as exc:
        qmgr.commit()
    assert mqerror(exc) == (C.MQCC_WARNING, C.MQRC_BACKED_OUT)


def _run_until_killed(body: str, **env: str) -> None:
    """Run a worker (Python source `body`, environment `env` added) that says "holding"
    and SIGKILLs itself with its unit of work open."""
    run = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(body)],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, **env),
    )
    assert "holding" in run.stdout and run.returncode == -9, run.stderr


def test_dead_connection_backs_out_and_its_gets_return_after_the_lease(qmgr, qmgr_name) -> None:
    qmgr.define_queue("Q.DEAD")
    q = pymqi.Queue(qmgr, "Q.DEAD", ALL)
    put(q, b"orphan", C.MQPMO_NO_SYNCPOINT)
    _run_until_killed(
        f"""
        import os, signal, adapter.pymqi as pymqi
        C = pymqi.CMQC
        qm = pymqi.connect({qmgr_name!r})
        q = pymqi.Queue(qm, "Q.DEAD", C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT)
        q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_SYNCPOINT))
        q.put(b"half-done", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
        qm.get_handle().txn.producer().flush(10)
        print("holding", flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    """,
        MQK_UOW_LEASE_MS="1500",
        MQK_TXN_TIMEOUT_MS="3000",
    )
    with pytest.raises(pymqi.MQMIError) as exc:  # still locked by the dead unit of work
        get(q, C.MQGMO_NO_SYNCPOINT)
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE)
    md = pymqi.MD()
    assert get(q, C.MQGMO_NO_SYNCPOINT, md, wait_ms=30_000) == b"orphan"
    assert md.BackoutCount == 1
    assert drain(q, wait_ms=500) == []  # the dead unit of work's put never appears


def test_another_process_counts_a_unit_of_work_and_a_dead_ones_counts_end_with_its_lease(
    qmgr, qmgr_name
) -> None:
    """CURDEPTH and MAXDEPTH count every connection's unit of work as MQ does, not only
    the caller's: a process holds one get and three puts under syncpoint (its pump
    publishes them within a tick), then dies. Here that is 1 - 1 + 3 on the queue, so two
    more puts fill MAXDEPTH(5); once the dead unit of work's lease ends it counts no
    more (Kafka aborts its transaction, its get's lock is reconciled)."""
    qmgr.define_queue("Q.UNCOM", max_depth=5)
    q = pymqi.Queue(qmgr, "Q.UNCOM", ALL | C.MQOO_INQUIRE)
    put(q, b"committed", C.MQPMO_NO_SYNCPOINT)
    _run_until_killed(
        f"""
        import os, signal, time, adapter.pymqi as pymqi
        C = pymqi.CMQC
        qm = pymqi.connect({qmgr_name!r})
        q = pymqi.Queue(qm, "Q.UNCOM", C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT)
        q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_SYNCPOINT))
        for _ in range(3):
            q.put(b"uncommitted", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
        qm.get_handle().txn.producer().flush(10)
        time.sleep(0.2)  # the pump's ticks publish the counts
        print("holding", flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    """,
        MQK_UOW_LEASE_MS="4000",
        MQK_TXN_TIMEOUT_MS="5000",
    )
    assert q.inquire(C.MQIA_CURRENT_Q_DEPTH) == 3
    put(q, b"four", C.MQPMO_NO_SYNCPOINT)
    put(q, b"five", C.MQPMO_NO_SYNCPOINT)
    with pytest.raises(pymqi.MQMIError) as exc:
        put(q, b"six", C.MQPMO_NO_SYNCPOINT)
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_Q_FULL)
    deadline = time.monotonic() + 20
    while q.inquire(C.MQIA_CURRENT_Q_DEPTH) != 3 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert q.inquire(C.MQIA_CURRENT_Q_DEPTH) == 3  # "committed", "four", "five"
    put(q, b"six", C.MQPMO_NO_SYNCPOINT)


def test_backout_threshold_moves_poison_message_to_requeue_queue(qmgr) -> None:
    qmgr.define_queue("Q.BOQ")
    qmgr.define_queue("Q.POISON", backout_threshold=2, backout_requeue_q="Q.BOQ")
    q = pymqi.Queue(qmgr, "Q.POISON", ALL)
    put(q, b"poison", C.MQPMO_NO_SYNCPOINT)
    put(q, b"healthy", C.MQPMO_NO_SYNCPOINT)
    for _ in range(2):
        assert get(q) == b"poison"
        qmgr.backout()
    assert get(q) == b"healthy"  # the poison message no longer blocks the queue
    qmgr.commit()
    boq = drain(pymqi.Queue(qmgr, "Q.BOQ", ALL), wait_ms=2000)
    assert [d for d, _ in boq] == [b"poison"] and boq[0][1].BackoutCount == 2
    assert qmgr.queue_status("Q.POISON")["current_depth"] == 0


def test_disconnect_commits_an_open_unit_of_work(mqk_servers, qmgr_name) -> None:
    qm = pymqi.connect(qmgr_name)
    qm.define_queue("Q.DISC")
    put(pymqi.Queue(qm, "Q.DISC", ALL), b"committed by MQDISC")
    qm.disconnect()
    reader = pymqi.connect(qmgr_name)
    try:
        assert (
            get(pymqi.Queue(reader, "Q.DISC", ALL), C.MQGMO_NO_SYNCPOINT, wait_ms=3000)
            == b"committed by MQDISC"
        )
    finally:
        reader.disconnect()


def test_group_put_in_one_unit_of_work_and_got_with_all_msgs_available(qmgr) -> None:
    """spec/groups-across-units-of-work.txt: four logical messages put in one UOW."""
    qmgr.define_queue("Q.GRPUOW")
    q = pymqi.Queue(qmgr, "Q.GRPUOW", ALL)
    pmo = pymqi.PMO(Options=C.MQPMO_LOGICAL_ORDER | C.MQPMO_SYNCPOINT)
    for i, flags in enumerate([C.MQMF_MSG_IN_GROUP] * 3 + [C.MQMF_LAST_MSG_IN_GROUP]):
        q.put(f"part{i + 1}".encode(), pymqi.MD(MsgFlags=flags), pmo)
    qmgr.commit()
    gmo = pymqi.GMO(
        Options=C.MQGMO_SYNCPOINT
        | C.MQGMO_WAIT
        | C.MQGMO_ALL_MSGS_AVAILABLE
        | C.MQGMO_LOGICAL_ORDER,
        WaitInterval=2000,
        MatchOptions=C.MQMO_NONE,
    )
    got = [q.get(None, pymqi.MD(), gmo)]
    while gmo.GroupStatus == C.MQGS_MSG_IN_GROUP:
        got.append(q.get(None, pymqi.MD(), gmo))
    qmgr.commit()
    assert got == [b"part1", b"part2", b"part3", b"part4"]


def test_inconsistent_uow_within_a_logical_order_group(qmgr) -> None:
    qmgr.define_queue("Q.INCUOW")
    q = pymqi.Queue(qmgr, "Q.INCUOW", ALL)
    q.put(
        b"1",
        pymqi.MD(MsgFlags=C.MQMF_MSG_IN_GROUP),
        pymqi.PMO(Options=C.MQPMO_LOGICAL_ORDER | C.MQPMO_SYNCPOINT),
    )
    with pytest.raises(pymqi.MQMIError) as exc:  # started in a UOW, continued outside
        q.put(
            b"2",
            pymqi.MD(MsgFlags=C.MQMF_LAST_MSG_IN_GROUP),
            pymqi.PMO(Options=C.MQPMO_LOGICAL_ORDER | C.MQPMO_NO_SYNCPOINT),
        )
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_INCONSISTENT_UOW)
    q.put(
        b"2",
        pymqi.MD(MsgFlags=C.MQMF_LAST_MSG_IN_GROUP),
        pymqi.PMO(Options=C.MQPMO_LOGICAL_ORDER | C.MQPMO_SYNCPOINT),
    )
    qmgr.commit()  # a group may span consecutive units of work on the same handle


def test_redis_wipe_loses_nothing_and_delivers_nothing_twice(qmgr) -> None:
    qmgr.define_queue("Q.WIPE")
    q = pymqi.Queue(qmgr, "Q.WIPE", ALL)
    for i in range(40):
        put(q, f"m{i:02d}".encode(), C.MQPMO_NO_SYNCPOINT)
    first = [get(q, C.MQGMO_NO_SYNCPOINT) for _ in range(15)]
    in_uow = get(q)  # m15, held by an open unit of work
    qmgr.get_handle().barrier()
    wiper = admin_redis(qmgr.get_name())  # FLUSHALL: the harness's own Redis user
    wiper.flushall()
    wiper.close()
    with pytest.raises(pymqi.MQMIError) as exc:  # its locks died with Redis
        qmgr.commit()
    assert mqerror(exc) == (C.MQCC_WARNING, C.MQRC_BACKED_OUT)
    fresh = pymqi.Queue(qmgr, "Q.WIPE", ALL)  # the definition comes back from Kafka too
    rest = [d for d, _ in drain(fresh)]
    assert in_uow == b"m15"
    assert first + rest == [f"m{i:02d}".encode() for i in range(40)]
    assert qmgr.queue_status("Q.WIPE")["current_depth"] == 0


def test_watermark_never_passes_a_message_held_by_a_unit_of_work(qmgr) -> None:
    """Many gets advance the low watermark; a message still held under syncpoint must
    stay above it, so that a backout puts it back on the queue."""
    from adapter import config as handle_mod

    qmgr.define_queue("Q.HELD", max_depth=2000)
    q = pymqi.Queue(qmgr, "Q.HELD", ALL)
    for i in range(handle_mod.ADVANCE_EVERY + 50):
        put(q, f"m{i:04d}".encode(), C.MQPMO_NO_SYNCPOINT)
    held = get(q)  # m0000, in the unit of work
    rest = [get(q, C.MQGMO_NO_SYNCPOINT) for _ in range(handle_mod.ADVANCE_EVERY + 10)]
    assert held == b"m0000" and len(rest) == handle_mod.ADVANCE_EVERY + 10
    qmgr.backout()
    fresh = pymqi.Queue(qmgr, "Q.HELD", C.MQOO_INPUT_SHARED)
    assert get(fresh, C.MQGMO_NO_SYNCPOINT) == b"m0000"
    remaining = len(drain(fresh))
    assert remaining == 50 - 10 - 1  # put: EVERY + 50; got: held + EVERY + 10
    assert qmgr.queue_status("Q.HELD")["current_depth"] == 0


def test_syncpoint_read_ahead_locks_a_run_and_releases_what_was_not_got(qmgr, qmgr_name) -> None:
    """With read-ahead, syncpoint gets lock a run of messages in one call: still once
    only, the undelivered ones go back (without a backout count) when the UOW ends."""
    qmgr.define_queue("Q.SPAHEAD", def_read_ahead=True)
    q = pymqi.Queue(qmgr, "Q.SPAHEAD", ALL)
    for i in range(30):
        put(q, f"m{i:02d}".encode(), C.MQPMO_NO_SYNCPOINT, Persistence=C.MQPER_PERSISTENT)
    assert [get(q) for _ in range(5)] == [f"m{i:02d}".encode() for i in range(5)]
    qmgr.commit()
    assert [get(q) for _ in range(3)] == [f"m{i:02d}".encode() for i in range(5, 8)]
    qmgr.backout()  # 5..7 were got: backout count 1; the rest were only locked ahead
    other = pymqi.connect(qmgr_name)
    try:
        theirs = pymqi.Queue(other, "Q.SPAHEAD", C.MQOO_INPUT_SHARED | C.MQOO_NO_READ_AHEAD)
        got = drain(theirs)
        assert [d for d, _ in got] == [f"m{i:02d}".encode() for i in range(5, 30)]
        assert [m.BackoutCount for _, m in got] == [1, 1, 1] + [0] * 22
    finally:
        other.disconnect()
    assert qmgr.queue_status("Q.SPAHEAD")["current_depth"] == 0


def test_selective_get_sees_messages_locked_ahead_by_its_own_handle(qmgr) -> None:
    qmgr.define_queue("Q.SPSEL", def_read_ahead=True)
    q = pymqi.Queue(qmgr, "Q.SPSEL", ALL)
    for i in range(5):
        put(q, f"m{i}".encode(), C.MQPMO_NO_SYNCPOINT, CorrelId=f"C{i}".encode().ljust(24, b"\0"))
    assert get(q) == b"m0"  # locks m1..m4 ahead
    assert get(q, md=pymqi.MD(CorrelId=b"C3".ljust(24, b"\0"))) == b"m3"
    qmgr.commit()
    assert [d for d, _ in drain(q)] == [b"m1", b"m2", b"m4"]
