"""Expiry: the job drops an incomplete group whose members expire and reports each
member that asked; the EXPRYINT scan discards expired messages without any MQGET."""

from __future__ import annotations

import time

import pytest

import adapter.pymqi as pymqi
from streaming import workloads
from streaming.expiry_scan import ExpiryScanner
from tests.spark.conftest import drain, outputs, run_job

pytestmark = [pytest.mark.integration, pytest.mark.spark]
C = pymqi.CMQC
SEG, MIG, LMIG = C.MQMF_SEGMENT, C.MQMF_MSG_IN_GROUP, C.MQMF_LAST_MSG_IN_GROUP


def _expiring_group(tenths: int = 20) -> list[workloads.PhysicalPut]:
    """Group G: message 1 has two of its three segments, message 2 one of two. Two of
    the three pieces ask for an expiration report."""
    put = workloads.PhysicalPut
    report, data = C.MQRO_EXPIRATION, C.MQRO_EXPIRATION_WITH_DATA
    return [
        put("G1s0", b"g1-s0" * 40, "G", 1, 0, MIG | SEG, tenths, report, "REPLY"),
        put("G1s1", b"g1-s1", "G", 1, 200, MIG | SEG, tenths, C.MQRO_NONE, "REPLY"),
        put("G2s0", b"g2-s0" * 40, "G", 2, 0, LMIG | SEG, tenths, data, "REPLY"),
    ]


def test_incomplete_group_expires_with_one_report_per_member_that_asked(
    spark, qm, qmgr_name, kafka_bootstrap, tmp_path
) -> None:
    qm.define_queue("Q.EXP")
    qm.define_queue("REPLY")
    workloads.put_all(qm, "Q.EXP", [workloads.PhysicalPut("KEEP", b"keep me")])
    mds: dict[str, pymqi.MD] = {}
    ids: dict[str, bytes] = {}
    seen: dict[str, int] = {}

    def held_then_expired(job) -> None:
        # Put while the job runs, with a lifetime that outlasts a micro-batch: the group
        # is held in state first, and its processing-time timer expires it.
        assert job.wait_until(lambda: job.sink.totals["messages"] == 1, 120)
        ids.update(workloads.put_all(qm, "Q.EXP", _expiring_group(50), mds=mds))
        assert qm.queue_status("Q.EXP")["current_depth"] == 4
        assert job.wait_until(lambda: job.sink.open_units() == 1, 30), "G was never held"

    def reported_then_quiet(job) -> bool:
        # Two reports, then three more micro-batches in which nothing is reported again.
        if job.sink.totals["reports"] < 2:
            return False
        seen.setdefault("at", len(job.sink.history))
        return len(job.sink.history) >= seen["at"] + 3

    job = run_job(
        spark,
        qmgr_name,
        "Q.EXP",
        tmp_path / "ckpt",
        during=held_then_expired,
        until=reported_then_quiet,
    )
    assert job.sink.totals["reports"] == 2 and job.sink.totals["discarded"] == 3

    msgs, groups = outputs(kafka_bootstrap, qmgr_name, "Q.EXP")
    assert [m.value["Payload"] for m in msgs] == [b"keep me"]  # nothing of G
    assert groups == []
    # The discards went through the queue's consumption state: depth down, no MQGET.
    assert qm.queue_status("Q.EXP")["current_depth"] == 1
    reports = drain(pymqi.Queue(qm, "REPLY", C.MQOO_INPUT_SHARED), wait_ms=2000)
    assert len(reports) == 2
    by_correl = {bytes(md.CorrelId): (data, md) for data, md in reports}
    for label, expect_data in (("G1s0", b""), ("G2s0", (b"g2-s0" * 40)[:100])):
        data, md = by_correl[bytes(mds[label].MsgId)]  # CorrelId = the original MsgId
        assert md.MsgType == C.MQMT_REPORT and md.Feedback == C.MQFB_EXPIRATION
        assert bytes(md.GroupId) == ids["G"]
        assert data == expect_data
    # Nobody discards (or reports) them again: the scan finds nothing left.
    with ExpiryScanner(qmgr_name, ["Q.EXP"]) as scanner:
        assert scanner.scan_queue("Q.EXP").expired == 0
    assert [d for d, _ in drain(pymqi.Queue(qm, "Q.EXP", C.MQOO_INPUT_SHARED))] == [b"keep me"]


def test_expiry_scan_discards_without_any_get_and_reports_once(qm, qmgr_name) -> None:
    qm.define_queue("Q.SCAN")
    qm.define_queue("REPLY.SCAN")
    q = pymqi.Queue(qm, "Q.SCAN", C.MQOO_OUTPUT)
    originals = []
    for i, report in enumerate((C.MQRO_EXPIRATION, C.MQRO_NONE, C.MQRO_EXPIRATION_WITH_FULL_DATA)):
        md = pymqi.MD(Expiry=3, Report=report, ReplyToQ=b"REPLY.SCAN")
        q.put(f"short {i}".encode(), md)
        originals.append(md)
    q.put(b"forever", pymqi.MD(Expiry=C.MQEI_UNLIMITED))
    q.close()
    # A first segment: its report carries no data (OriginalLength tells its length).
    seg_md: dict[str, pymqi.MD] = {}
    segment = workloads.PhysicalPut(
        "S", b"segment", "S", 1, 0, MIG | SEG, 3, C.MQRO_EXPIRATION, "REPLY.SCAN"
    )
    workloads.put_all(qm, "Q.SCAN", [segment], mds=seg_md)
    originals.append(seg_md["S"])
    time.sleep(0.5)
    assert qm.queue_status("Q.SCAN")["current_depth"] == 5  # expired, still counted

    with ExpiryScanner(qmgr_name) as scanner:  # every queue of the queue manager
        first = {r.queue: r for r in scanner.scan()}
        assert (first["Q.SCAN"].expired, first["Q.SCAN"].reports) == (4, 3)
        assert qm.queue_status("Q.SCAN")["current_depth"] == 1  # without any MQGET
        again = {r.queue: r for r in scanner.scan()}
        assert again["Q.SCAN"].expired == 0

    reports = drain(pymqi.Queue(qm, "REPLY.SCAN", C.MQOO_INPUT_SHARED), wait_ms=2000)
    assert sorted(bytes(md.CorrelId) for _, md in reports) == sorted(
        bytes(originals[i].MsgId) for i in (0, 2, 3)
    )
    assert sorted(data for data, _ in reports) == [b"", b"", b"short 2"]
    (seg_report,) = [md for _, md in reports if bytes(md.CorrelId) == bytes(seg_md["S"].MsgId)]
    assert seg_report.MsgFlags & SEG and seg_report.OriginalLength == len(b"segment")
    # Discarded messages are never returned by a later MQGET.
    assert [d for d, _ in drain(pymqi.Queue(qm, "Q.SCAN", C.MQOO_INPUT_SHARED))] == [b"forever"]
