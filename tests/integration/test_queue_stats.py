"""Queue statistics on the real Kafka and Redis: a monitoring loop in the style of IBM's
`dis_queues.py` (MQCMD_INQUIRE_Q_STATUS reading the last put / get dates and times),
runmqsc's DISPLAY QSTATUS block, RESET QSTATS twice (the second shows what came since),
counts from connections in other threads adding up, and the figures surviving a new
connection because the state (Redis) keeps them."""

from __future__ import annotations

import re
import threading
import time

import pytest

import adapter.pymqi as pymqi
from adapter.core import qstats as QS  # noqa: N812
from adapter.shim.runstate import start_queue_manager
from adapter.tools import mqsc

pytestmark = pytest.mark.integration
C, F = pymqi.CMQC, pymqi.CMQCFC
DATE, CLOCK = rb"\d{4}-\d\d-\d\d  ", rb"\d\d\.\d\d\.\d\d"


def put(qm, name: str, n: int, opts: int = 0) -> None:
    q = pymqi.Queue(qm, name, C.MQOO_OUTPUT)
    for i in range(n):
        q.put(b"m%d" % i, pymqi.MD(), pymqi.PMO(Options=opts))
    q.close()


def get(qm, name: str, n: int) -> None:
    q = pymqi.Queue(qm, name, C.MQOO_INPUT_SHARED)
    for _ in range(n):
        q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_NO_SYNCPOINT | C.MQGMO_WAIT,
                                          WaitInterval=5000))  # fmt: skip
    q.close()


def test_a_dis_queues_style_monitoring_loop_reads_the_times(qmgr) -> None:
    pcf = pymqi.PCFExecute(qmgr)
    qmgr.alter_qmgr(monitoring_q=C.MQMON_MEDIUM)
    for name in ("MON.A", "MON.B"):
        pcf.MQCMD_CREATE_Q({C.MQCA_Q_NAME: name, C.MQIA_Q_TYPE: C.MQQT_LOCAL})
    put(qmgr, "MON.A", 3)
    get(qmgr, "MON.A", 1)
    time.sleep(1.2)
    # The loop of IBM's dis_queues.py sample: every matching queue's status, read by name.
    seen = {}
    for info in pcf.MQCMD_INQUIRE_Q_STATUS({C.MQCA_Q_NAME: b"MON.*"}):
        name = info[C.MQCA_Q_NAME].strip().decode()
        seen[name] = (
            info[C.MQIA_CURRENT_Q_DEPTH],
            info[F.MQCACF_LAST_PUT_DATE],
            info[F.MQCACF_LAST_PUT_TIME],
            info[F.MQCACF_LAST_GET_DATE],
            info[F.MQCACF_LAST_GET_TIME],
            info[F.MQIACF_OLDEST_MSG_AGE],
            info[F.MQIACF_Q_TIME_INDICATOR],
        )
    depth, put_date, put_time, get_date, get_time, age, qtime = seen["MON.A"]
    assert depth == 2 and age >= 1
    assert len(qtime) == 2 and all(0 <= t < 60_000_000 for t in qtime)  # one get measured
    assert seen["MON.B"][6] == [C.MQMON_NOT_AVAILABLE] * 2  # nothing got from it
    for value, form in ((put_date, DATE), (put_time, CLOCK), (get_date, DATE), (get_time, CLOCK)):
        assert re.fullmatch(form, value), value
    assert put_date.strip().decode() == time.strftime("%Y-%m-%d")
    assert seen["MON.B"][1:5] == (b" " * 12, b" " * 8, b" " * 12, b" " * 8)  # never used
    assert seen["MON.B"][5] == 0  # monitored and empty: age 0
    pcf.disconnect()


def test_display_qstatus_as_runmqsc_prints_it(qmgr, qmgr_name) -> None:
    out: list[str] = []
    assert mqsc.run(qmgr, qmgr_name, ["DEFINE QLOCAL(DQ.Q) MONQ(LOW)\n"], out.append) == 0
    put(qmgr, "DQ.Q", 2)
    out.clear()
    assert mqsc.run(qmgr, qmgr_name, ["DIS QSTATUS(DQ.Q)\n"], out.append) == 0
    start = out.index("AMQ8450I: Display queue status details.")
    block = out[start + 1 : start + 8]
    assert block[0] == "   QUEUE(DQ.Q)                             TYPE(QUEUE)"
    assert block[1] == "   CURDEPTH(2)                             IPPROCS(0)"
    assert block[2] == "   LGETDATE( )                             LGETTIME( )"
    assert re.fullmatch(r"   LPUTDATE\(\S{10}\)\s+LPUTTIME\(\d\d\.\d\d\.\d\d\)", block[3])
    assert block[4] == "   MEDIALOG( )                             MONQ(LOW)"
    assert re.fullmatch(r"   MSGAGE\(\d+\)\s+OPPROCS\(0\)", block[5])
    assert block[6] == "   QTIME( , )                              UNCOM(NO)"


def test_reset_twice_counts_from_two_connections_and_survives_a_new_connection(
    qmgr, qmgr_name
) -> None:
    qmgr.define_queue("RST.Q")
    qmgr.alter_qmgr(perf_events=1, monitoring_q=C.MQMON_LOW)
    failures: list[BaseException] = []

    def application(opts: int) -> None:  # another application: its own connection
        try:
            qm = pymqi.connect(qmgr_name)
            try:
                put(qm, "RST.Q", 20, opts)
            finally:
                qm.disconnect()  # MQDISC flushes the connection's counts (its pump)
        except BaseException as err:  # reported by the test, not lost in the thread
            failures.append(err)

    threads = [
        threading.Thread(target=application, args=(opts,)) for opts in (0, C.MQPMO_ASYNC_RESPONSE)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not failures, failures
    get(qmgr, "RST.Q", 5)
    figures = qmgr.queue_figures("RST.Q")
    assert figures.depth == 35 and figures.last_put_ms and figures.last_get_ms
    # A new connection (the old one gone) sees what Redis kept.
    qmgr.disconnect()
    again = pymqi.connect(qmgr_name)
    try:
        assert again.queue_figures("RST.Q").last_put_ms == figures.last_put_ms
        out: list[str] = []
        rc = mqsc.run(again, qmgr_name, ["RESET QSTATS(RST.*)\n"], out.append)
        assert rc == 0
        block = " ".join(out)
        assert "HIQDEPTH(40)" in block and "MSGSIN(40)" in block and "MSGSOUT(5)" in block
        put(again, "RST.Q", 1)
        pcf = pymqi.PCFExecute(again)
        [second] = pcf.MQCMD_RESET_Q_STATS({C.MQCA_Q_NAME: b"RST.Q"})
        assert (second[C.MQIA_MSG_ENQ_COUNT], second[C.MQIA_MSG_DEQ_COUNT]) == (1, 0)
        assert second[C.MQIA_HIGH_Q_DEPTH] == 36  # from the depth at the first reset
        assert 0 <= second[C.MQIA_TIME_SINCE_RESET] < 60
        [third] = pcf.MQCMD_RESET_Q_STATS({C.MQCA_Q_NAME: b"RST.Q"})
        assert QS.ResetFigures("RST.Q", 36, 0, 0, 0).pcf_values()[C.MQIA_MSG_ENQ_COUNT] == 0
        assert (third[C.MQIA_MSG_ENQ_COUNT], third[C.MQIA_HIGH_Q_DEPTH]) == (0, 36)
        pcf.disconnect()
    finally:
        again.disconnect()


def test_strmqm_restarts_the_statistics_kept_in_redis(qmgr) -> None:
    qmgr.define_queue("SQ.Q", monitoring_q=C.MQMON_HIGH)
    qmgr.alter_qmgr(perf_events=1)
    put(qmgr, "SQ.Q", 3)
    assert qmgr.queue_figures("SQ.Q").last_put_ms is not None
    assert start_queue_manager(qmgr.get_handle().store) is None  # strmqm
    fig = qmgr.queue_figures("SQ.Q")
    assert (fig.last_put_ms, fig.depth) == (None, 3)
    reset = qmgr.reset_queue_stats("SQ.Q")
    assert (reset.enqueued, reset.high_depth) == (0, 3) and reset.since_reset_s < 30
