"""The reassembly job on the spec's example, a 10 MiB segmented message and duplicates."""

from __future__ import annotations

import os

import pytest

import adapter.pymqi as pymqi
from streaming import readback, workloads
from tests.spark.conftest import drain, outputs, run_job

pytestmark = [pytest.mark.integration, pytest.mark.spark]
C = pymqi.CMQC
LO_COMPLETE = C.MQGMO_LOGICAL_ORDER | C.MQGMO_COMPLETE_MSG


def unit_id(env: dict) -> bytes:
    return env["GroupId"] if env["GroupId"] != C.MQGI_NONE else env["MsgId"]


def test_spec_example_gives_logical_messages_groups_and_logical_order(
    spark, qm, qmgr_name, kafka_bootstrap, tmp_path
) -> None:
    qm.define_queue("Q.SPEC")
    puts = workloads.spec_example()
    ids = workloads.put_all(qm, "Q.SPEC", puts)

    job = run_job(spark, qmgr_name, "Q.SPEC", tmp_path / "ckpt")
    msgs, groups = outputs(kafka_bootstrap, qmgr_name, "Q.SPEC")

    got = {(unit_id(m.value), m.value["MsgSeqNumber"]): m for m in msgs}
    assert len(msgs) == len(got) == 7  # each logical message once; Y3's segments joined
    y3 = got[(ids["Y"], 3)].value
    assert y3["Payload"] == b"group Y message 3, segment 1; segment 2"
    # MQMD of the first segment; MsgFlags as one last segment of the last message.
    assert y3["Offset"] == 0
    assert y3["MsgFlags"] == (
        C.MQMF_LAST_MSG_IN_GROUP | C.MQMF_MSG_IN_GROUP | C.MQMF_SEGMENT | C.MQMF_LAST_SEGMENT
    )
    assert got[(ids["Z"], 2)].value["MsgFlags"] == C.MQMF_LAST_MSG_IN_GROUP | C.MQMF_MSG_IN_GROUP

    events = {g.value["GroupId"]: g.value for g in groups}
    assert len(groups) == 2
    # The first item's physical position places the group: Y1 is record 1, Z1 record 6.
    assert events[ids["Y"]]["MemberCount"] == 3
    assert (events[ids["Y"]]["FirstPriority"], events[ids["Y"]]["FirstOffset"]) == (0, 1)
    assert events[ids["Z"]]["MemberCount"] == 2
    assert events[ids["Z"]]["FirstOffset"] == 6

    order = [m.value["Payload"] for m in readback.logical_order(msgs, groups)]
    assert order == [
        b"message A",
        b"group Y message 1",
        b"group Y message 2",
        b"group Y message 3, segment 1; segment 2",
        b"group Z message 1",
        b"group Z message 2",
        b"message B",
    ]
    # The shim's MQGET in logical order with COMPLETE_MSG agrees, message by message.
    q = pymqi.Queue(qm, "Q.SPEC", C.MQOO_INPUT_SHARED)
    got_by_get = drain(q, options=LO_COMPLETE)
    assert [d for d, _ in got_by_get] == order
    assert [md.MsgFlags for _, md in got_by_get] == [
        m.value["MsgFlags"] for m in readback.logical_order(msgs, groups)
    ]
    assert job.sink.totals["messages"] == 7 and job.sink.totals["groups"] == 2


def test_segmented_10_mib_message_and_duplicates(
    spark, qm, qmgr_name, kafka_bootstrap, tmp_path
) -> None:
    qm.define_queue("Q.BIG", max_depth=100_000)
    q = pymqi.Queue(qm, "Q.BIG", C.MQOO_OUTPUT)
    big = os.urandom(10 * 1024 * 1024)
    md = pymqi.MD(MsgFlags=C.MQMF_SEGMENTATION_ALLOWED)
    q.put(big, md, pymqi.PMO(Options=C.MQPMO_NO_SYNCPOINT))
    big_group = bytes(md.GroupId)
    assert qm.queue_status("Q.BIG")["current_depth"] == 12  # ~900 KiB segments
    # A group whose second message is put twice (a duplicate in the same batch).
    dup_puts = workloads.unit_pieces("D", [[b"d1"], [b"d2a", b"d2b"]], in_group=True)
    ids = workloads.put_all(qm, "Q.BIG", dup_puts + [dup_puts[1]])

    def late_duplicate(job) -> None:
        # Once D is complete, the same segment again: a late duplicate, ignored.
        assert job.wait_until(lambda: job.sink.totals["groups"] == 1, 120)
        workloads.put_all(qm, "Q.BIG", [dup_puts[2]], ids)

    run_job(
        spark,
        qmgr_name,
        "Q.BIG",
        tmp_path / "ckpt",
        during=late_duplicate,
        until=lambda j: sum(s.duplicates for s in j.sink.history.values()) >= 1,
    )
    msgs, groups = outputs(kafka_bootstrap, qmgr_name, "Q.BIG")
    by_group = {}
    for m in msgs:
        by_group.setdefault(m.value["GroupId"], []).append(m.value)
    (whole,) = by_group[big_group]
    assert whole["Payload"] == big
    assert whole["MsgFlags"] & C.MQMF_LAST_SEGMENT and whole["Offset"] == 0
    assert sorted(v["Payload"] for v in by_group[ids["D"]]) == [b"d1", b"d2ad2b"]
    assert len(groups) == 1 and groups[0].value["GroupId"] == ids["D"]
    assert len(msgs) == 3  # the duplicates never made a message twice


def test_native_and_corrupt_records_on_a_queue_topic_are_not_reassembled(
    spark, qm, qmgr_name, kafka_bootstrap, tmp_path
) -> None:
    """A Kafka producer's records on the queue's topic (no key; an envelope's bytes under
    a foreign key) are whole messages for MQGET, never pieces for the job. Corrupt ones
    (a truncated envelope, an envelope with an MQMD no MQPUT could store) are left out
    and counted: never a logical message (issue 19)."""
    from confluent_kafka import Producer
    from mqk_avro import codec

    from adapter.shim import naming

    qm.define_queue("Q.NATIVE")
    q = pymqi.Queue(qm, "Q.NATIVE", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    q.put(b"from MQ")
    forged = codec.encode(codec.new_envelope(MsgId=b"F" * 24, Payload=b"inner"))
    producer = Producer({"bootstrap.servers": kafka_bootstrap})
    topic = naming.data_topic(qmgr_name, "Q.NATIVE", 0)
    producer.produce(topic, b"plain", headers=[("Color", b"red")])
    producer.produce(topic, forged, b"K" * 24)
    truncated = codec.encode(codec.new_envelope(MsgId=b"T" * 24, Payload=b"t" * 50))[:-20]
    producer.produce(topic, truncated, b"T" * 24)
    impossible = codec.encode(codec.new_envelope(MsgId=b"P" * 24, Persistence=7))
    producer.produce(topic, impossible, b"P" * 24)
    assert producer.flush(30) == 0

    job = run_job(spark, qmgr_name, "Q.NATIVE", tmp_path / "ckpt")
    msgs, groups = outputs(kafka_bootstrap, qmgr_name, "Q.NATIVE")
    assert [m.value["Payload"] for m in msgs] == [b"from MQ"] and groups == []
    assert job.sink.totals["messages"] == 1
    assert job.sink.totals["corrupt"] == 2
    got = drain(q, options=C.MQGMO_NO_PROPERTIES)
    assert [d for d, _ in got] == [b"from MQ", b"plain", forged]
