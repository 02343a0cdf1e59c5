"""Queue statistics on the in-memory backends: MONQ on the queue and the queue manager,
the last put / get times and MSGAGE only while monitoring is on, MSGSIN / MSGSOUT /
HIGHQDEPTH counted from every connection, RESET QSTATS reading and zeroing them, and
the MQSC and PCF faces of all of it (adapter/core/qstats.py, adapter/shim/qstats.py)."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

import adapter.pymqi as pymqi
from adapter.core import cmqc as C  # noqa: N812
from adapter.core import cmqcfc as F  # noqa: N812
from adapter.core import qstats as QS  # noqa: N812
from adapter.shim.runstate import start_queue_manager
from adapter.shim.uncommitted import PUBLISH_AFTER_S
from adapter.tools import mqsc

LOW, OFF, NONE, QMGR = C.MQMON_LOW, C.MQMON_OFF, C.MQMON_NONE, C.MQMON_Q_MGR


def run(qm, name: str, text: str) -> tuple[int, list[str]]:
    out: list[str] = []
    return mqsc.run(qm, name, text.splitlines(True), out.append), out


def put(qm, name: str, n: int, opts: int = 0) -> None:
    q = pymqi.Queue(qm, name, C.MQOO_OUTPUT)
    for i in range(n):
        q.put(b"m%d" % i, pymqi.MD(), pymqi.PMO(Options=opts))
    q.close()


def get(qm, name: str, n: int, opts: int = C.MQGMO_NO_SYNCPOINT) -> None:
    q = pymqi.Queue(qm, name, C.MQOO_INPUT_SHARED)
    for _ in range(n):
        q.get(None, pymqi.MD(), pymqi.GMO(Options=opts))
    q.close()


def reason_of(call, *args) -> int:
    with pytest.raises(pymqi.MQMIError) as info:
        call(*args)
    return info.value.reason


def test_times_are_kept_only_while_monitoring_is_on(qmgr, world) -> None:
    qmgr.define_queue("ST.Q")
    put(qmgr, "ST.Q", 2)
    get(qmgr, "ST.Q", 1)
    fig = qmgr.queue_figures("ST.Q")  # MONQ(QMGR) and the queue manager's OFF: off
    assert fig.monitoring == OFF and (fig.last_put_ms, fig.last_get_ms) == (None, None)
    assert fig.oldest_put_ms is None and fig.depth == 1
    qmgr.alter_qmgr(monitoring_q=LOW)
    world.clock.advance(3)
    put_at = world.clock.now_ms()
    put(qmgr, "ST.Q", 1)
    world.clock.advance(2)
    get_at = world.clock.now_ms()
    get(qmgr, "ST.Q", 1)
    fig = qmgr.queue_figures("ST.Q")
    assert fig.monitoring == LOW
    assert (fig.last_put_ms, fig.last_get_ms) == (put_at, get_at)
    shown = QS.mqsc_items(fig)
    day = time.strftime("%Y-%m-%d", time.localtime(put_at / 1000))
    assert shown["LPUTDATE"] == f"LPUTDATE({day})"
    assert re.fullmatch(r"LGETTIME\(\d\d\.\d\d\.\d\d\)", shown["LGETTIME"])
    # The queue's own OFF wins over the queue manager's LOW; NONE there over the queue's.
    qmgr.alter_queue("ST.Q", monitoring_q=OFF)
    put(qmgr, "ST.Q", 1)
    assert qmgr.queue_figures("ST.Q").monitoring == OFF
    qmgr.alter_queue("ST.Q", monitoring_q=C.MQMON_HIGH)
    qmgr.alter_qmgr(monitoring_q=NONE)
    world.clock.advance(5)
    put(qmgr, "ST.Q", 1)
    fig = qmgr.queue_figures("ST.Q")
    assert fig.monitoring == OFF and fig.last_put_ms == put_at  # no stamp while off
    assert QS.mqsc_items(fig)["LPUTDATE"] == "LPUTDATE( )"


def test_msgage_grows_and_follows_the_oldest_message(qmgr, world) -> None:
    qmgr.define_queue("AGE.Q", monitoring_q=LOW)
    assert QS.mqsc_items(qmgr.queue_figures("AGE.Q"))["MSGAGE"] == "MSGAGE( )"  # empty
    put(qmgr, "AGE.Q", 1)
    world.clock.advance(7)
    put(qmgr, "AGE.Q", 1)
    world.clock.advance(5)
    assert QS.message_age(qmgr.queue_figures("AGE.Q")) == 12
    world.clock.advance(30)
    fig = qmgr.queue_figures("AGE.Q")
    assert QS.message_age(fig) == 42 and QS.mqsc_items(fig)["MSGAGE"] == "MSGAGE(42)"
    get(qmgr, "AGE.Q", 1)  # the oldest goes: the age is the second's
    assert QS.message_age(qmgr.queue_figures("AGE.Q")) == 35


def test_counts_from_two_connections_add_up_and_reset_zeroes_them(qmgr, other, world) -> None:
    qmgr.define_queue("CNT.Q")
    qmgr.alter_qmgr(perf_events=1)
    put(qmgr, "CNT.Q", 3)
    put(other, "CNT.Q", 4, C.MQPMO_ASYNC_RESPONSE)
    get(other, "CNT.Q", 2)
    put(qmgr, "CNT.Q", 1)
    world.clock.advance(30)
    first = qmgr.reset_queue_stats("CNT.Q")
    assert (first.high_depth, first.enqueued, first.dequeued) == (7, 8, 2)
    assert first.since_reset_s >= 30
    world.clock.advance(4)
    second = qmgr.reset_queue_stats("CNT.Q")  # nothing since: zeros, the depth as high
    assert (second.high_depth, second.enqueued, second.dequeued) == (6, 0, 0)
    assert second.since_reset_s == 4
    get(qmgr, "CNT.Q", 6)
    third = other.reset_queue_stats("CNT.Q")
    assert (third.high_depth, third.enqueued, third.dequeued) == (6, 0, 6)


def test_syncpoint_work_counts_at_once_and_shows_as_uncommitted(qmgr, other, world) -> None:
    qmgr.define_queue("UOW.Q")
    qmgr.alter_qmgr(perf_events=1)
    put(other, "UOW.Q", 2, C.MQPMO_SYNCPOINT)
    # Known at the first put; the count as the putter's pump publishes it (uncommitted.py)
    assert qmgr.queue_figures("UOW.Q").uncommitted == 1
    world.clock.advance(PUBLISH_AFTER_S)
    other.get_handle().txn.renew()
    assert qmgr.queue_figures("UOW.Q").uncommitted == 2
    other.backout()  # MQ's MsgEnqCount is not decremented by a backout
    assert qmgr.queue_figures("UOW.Q").uncommitted == 0
    put(qmgr, "UOW.Q", 1)
    get(other, "UOW.Q", 1, C.MQGMO_SYNCPOINT)
    assert qmgr.queue_figures("UOW.Q").uncommitted == 1
    assert QS.mqsc_items(qmgr.queue_figures("UOW.Q"))["UNCOM"] == "UNCOM(1)"
    other.commit()
    reset = qmgr.reset_queue_stats("UOW.Q")
    assert (reset.enqueued, reset.dequeued, reset.high_depth) == (3, 1, 1)


def test_reset_needs_perfmev_and_a_local_queue(qmgr) -> None:
    qmgr.define_queue("RS.Q")
    qmgr.define_queue("RS.AL", queue_type=C.MQQT_ALIAS, target="RS.Q")
    assert reason_of(qmgr.reset_queue_stats, "RS.Q") == F.MQRCCF_EVENTS_DISABLED
    qmgr.alter_qmgr(perf_events=1)
    assert reason_of(qmgr.reset_queue_stats, "RS.NONE") == C.MQRC_UNKNOWN_OBJECT_NAME
    assert reason_of(qmgr.reset_queue_stats, "RS.AL") == F.MQRCCF_OBJECT_WRONG_TYPE


def test_pcf_inquire_q_status_and_reset_q_stats(qmgr, world) -> None:
    pcf = pymqi.PCFExecute(qmgr)
    pcf.MQCMD_CREATE_Q({C.MQCA_Q_NAME: "PS.A", C.MQIA_Q_TYPE: C.MQQT_LOCAL,
                        C.MQIA_MONITORING_Q: LOW})  # fmt: skip
    pcf.MQCMD_CREATE_Q({C.MQCA_Q_NAME: "PS.B", C.MQIA_Q_TYPE: C.MQQT_LOCAL})
    [q] = pcf.MQCMD_INQUIRE_Q({C.MQCA_Q_NAME: "PS.A", F.MQIACF_Q_ATTRS: [C.MQIA_MONITORING_Q]})
    assert q[C.MQIA_MONITORING_Q] == LOW
    put(qmgr, "PS.A", 2)
    put(qmgr, "PS.B", 1)
    asked = [F.MQCACF_LAST_PUT_DATE, F.MQCACF_LAST_PUT_TIME, F.MQIACF_OLDEST_MSG_AGE]
    got = pcf.MQCMD_INQUIRE_Q_STATUS({C.MQCA_Q_NAME: "PS.*", F.MQIACF_Q_STATUS_ATTRS: asked})
    a, b = got
    assert set(a) == {C.MQCA_Q_NAME, F.MQIACF_Q_STATUS_TYPE, *asked}
    assert re.fullmatch(rb"\d{4}-\d\d-\d\d  ", a[F.MQCACF_LAST_PUT_DATE])
    assert re.fullmatch(rb"\d\d\.\d\d\.\d\d", a[F.MQCACF_LAST_PUT_TIME])
    assert a[F.MQIACF_OLDEST_MSG_AGE] == 0
    assert b[F.MQCACF_LAST_PUT_DATE] == b" " * 12  # PS.B: MONQ(QMGR), the QM's OFF
    assert b[F.MQIACF_OLDEST_MSG_AGE] == C.MQMON_NOT_AVAILABLE
    [full] = pcf.MQCMD_INQUIRE_Q_STATUS({C.MQCA_Q_NAME: "PS.A"})
    assert full[F.MQIACF_Q_TIME_INDICATOR] == [C.MQMON_NOT_AVAILABLE] * 2
    assert full[F.MQIACF_UNCOMMITTED_MSGS] == F.MQQSUM_NO and full[C.MQIA_MONITORING_Q] == LOW
    reset = {C.MQCA_Q_NAME: "PS.*"}
    assert reason_of(pcf.MQCMD_RESET_Q_STATS, reset) == F.MQRCCF_EVENTS_DISABLED
    qmgr.alter_qmgr(perf_events=1)
    [qm] = pcf.MQCMD_INQUIRE_Q_MGR()
    assert (qm[C.MQIA_MONITORING_Q], qm[C.MQIA_PERFORMANCE_EVENT]) == (OFF, F.MQEVR_ENABLED)
    [qm] = pcf.MQCMD_INQUIRE_Q_MGR({F.MQIACF_Q_MGR_ATTRS: [C.MQIA_MONITORING_Q]})
    assert list(qm) == [C.MQIA_MONITORING_Q]
    first = pcf.MQCMD_RESET_Q_STATS(reset)
    assert [(r[C.MQCA_Q_NAME].strip(), r[C.MQIA_MSG_ENQ_COUNT], r[C.MQIA_HIGH_Q_DEPTH])
            for r in first] == [(b"PS.A", 2, 2), (b"PS.B", 1, 1)]  # fmt: skip
    assert all(r[C.MQIA_MSG_DEQ_COUNT] == 0 and C.MQIA_TIME_SINCE_RESET in r for r in first)
    second = pcf.MQCMD_RESET_Q_STATS(reset)
    assert [r[C.MQIA_MSG_ENQ_COUNT] for r in second] == [0, 0]
    pcf.disconnect()


def test_mqsc_monq_display_qstatus_and_reset_qstats(qmgr, qmgr_name, world) -> None:
    rc, out = run(qmgr, qmgr_name, "DEFINE QLOCAL(MS.Q) MONQ(MEDIUM)\nDIS QL(MS.Q) MONQ\n")
    assert rc == 0 and "   MONQ(MEDIUM)" in " ".join(out)
    put(qmgr, "MS.Q", 3)
    world.clock.advance(9)
    rc, out = run(qmgr, qmgr_name, "DIS QSTATUS(MS.Q) MONITOR\n")
    block = " ".join(out)
    assert rc == 0 and "MSGAGE(9)" in block and "MONQ(MEDIUM)" in block
    assert re.search(r"LPUTDATE\(\d{4}-\d\d-\d\d\)", block) and "LGETDATE( )" in block
    assert "IPPROCS" not in block  # MONITOR: the monitoring figures, CURDEPTH always
    rc, out = run(qmgr, qmgr_name, "RESET QSTATS(MS.*)\n")
    assert rc == 10 and "AMQ8101S: IBM MQ error (C98) has occurred." in out  # PERFMEV
    rc, out = run(qmgr, qmgr_name, "ALTER QMGR PERFMEV(ENABLED) MONQ(NONE)\nDIS QMGR MONQ\n")
    assert rc == 0 and "   QMNAME(" in out[-4] and "MONQ(NONE)" in " ".join(out)
    rc, out = run(qmgr, qmgr_name, "RESET QSTATS(MS.*)\nRESET QSTATS(MS.Q)\n")
    first = out.index("CSQM201I: RESET QSTATS DETAILS")
    assert out[first + 1 : first + 4] == [
        "   QSTATS(MS.Q)                            RESETINT(9)",
        "   HIQDEPTH(3)                             MSGSIN(3)",
        "   MSGSOUT(0)",
    ]
    second = out.index("CSQM201I: RESET QSTATS DETAILS", first + 1)
    assert out[second + 2] == "   HIQDEPTH(3)                             MSGSIN(0)"
    rc, out = run(qmgr, qmgr_name, "DEFINE QLOCAL(MS.BAD) MONQ(NONE)\n")
    assert rc != 0  # NONE is the queue manager's word only


@given(st.sampled_from([QMGR, OFF, LOW, C.MQMON_MEDIUM, C.MQMON_HIGH]),
       st.sampled_from([OFF, NONE, LOW, C.MQMON_MEDIUM, C.MQMON_HIGH]))  # fmt: skip
def test_the_effective_level_follows_ibms_rules(queue: int, qm: int) -> None:
    level = QS.effective_monitoring(queue, qm)
    if qm == NONE:
        assert level == OFF
    elif queue == QMGR:
        assert level == qm
    else:
        assert level == queue
    assert level in QS.LEVEL_WORDS


@given(st.integers(min_value=1, max_value=4_102_444_800_000))
def test_dates_and_times_are_mqs_formats(ms: int) -> None:
    date, clock = QS.date_time(ms)
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", date) and re.fullmatch(r"\d\d\.\d\d\.\d\d", clock)
    assert QS.date_time(None) == ("", "") == QS.date_time(0)


@given(st.integers(min_value=0, max_value=10**13), st.integers(min_value=0, max_value=10**13))
def test_the_age_is_whole_seconds_capped_at_mqs_maximum(put_ms: int, later: int) -> None:
    fig = QS.QueueFigures(1, 0, 0, LOW, None, None, put_ms, 0, put_ms + later)
    assert QS.message_age(fig) == min(later // 1000, QS.MAX_SHOWN)


def test_strmqm_starts_every_queues_statistics_again(qmgr, world) -> None:
    qmgr.define_queue("RS.ONE", monitoring_q=LOW)
    qmgr.alter_qmgr(perf_events=1)
    put(qmgr, "RS.ONE", 2)
    assert qmgr.queue_figures("RS.ONE").last_put_ms is not None
    world.clock.advance(100)
    start_queue_manager(qmgr.get_handle().store)  # strmqm: "since the QM started"
    world.clock.advance(3)
    fig = qmgr.queue_figures("RS.ONE")
    assert (fig.last_put_ms, fig.depth) == (None, 2)  # the messages stay, the times go
    after = qmgr.reset_queue_stats("RS.ONE")
    assert (after.enqueued, after.high_depth, after.since_reset_s) == (0, 2, 3)


def test_qtime_weighs_the_time_from_put_to_get_while_monitored(qmgr, world) -> None:
    qmgr.define_queue("QT.Q", monitoring_q=LOW)
    qmgr.define_queue("QT.OFF", monitoring_q=OFF)
    assert QS.mqsc_items(qmgr.queue_figures("QT.Q"))["QTIME"] == "QTIME( , )"  # none yet
    for name in ("QT.Q", "QT.OFF"):
        put(qmgr, name, 1)
    world.clock.advance(2)
    for name in ("QT.Q", "QT.OFF"):
        get(qmgr, name, 1)
    assert qmgr.queue_figures("QT.Q").qtime_us == (2_000_000, 2_000_000)  # the first
    assert qmgr.queue_figures("QT.OFF").qtime_us is None  # not measured while off
    put(qmgr, "QT.Q", 1)
    world.clock.advance(4)
    get(qmgr, "QT.Q", 1)
    fig = qmgr.queue_figures("QT.Q")
    # short term: 1/8 to the new time; long term: 1/128
    assert fig.qtime_us == (2_250_000, 2_015_625)
    assert QS.mqsc_items(fig)["QTIME"] == "QTIME(2250000,2015625)"
    assert QS.pcf_values(fig)[F.MQIACF_Q_TIME_INDICATOR] == [2_250_000, 2_015_625]
