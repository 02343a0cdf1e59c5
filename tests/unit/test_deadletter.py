"""The dead-letter queue's rules (adapter/shim/deadletter.py) without a queue manager:
which queue may take a message the queue manager moves, and the DLQ envelope."""

from __future__ import annotations

from mqk_avro import codec

from adapter.core import cmqc as C
from adapter.core.dlh import unpack
from adapter.shim.catalog import QueueDef
from adapter.shim.clock import ManualClock
from adapter.shim.deadletter import DeadLetterQueue, dead_letter_envelope
from adapter.shim.qmgrdef import QMgrDef

ENV = codec.new_envelope(
    MsgId=b"m" * 24,
    CorrelId=b"c" * 24,
    Persistence=C.MQPER_PERSISTENT,
    Priority=4,
    Format="MQSTR   ",
    Encoding=273,
    CodedCharSetId=1208,
    Report=C.MQRO_COA,
    BackoutCount=3,
    Payload=b"x" * 10,
)


def _dlq(defs: dict[str, QueueDef], depths: dict[str, int], deadq: str = "DLQ"):
    return DeadLetterQueue(
        "QM1", defs.get, lambda: QMgrDef(dead_letter_q=deadq), lambda q: depths.get(q, 0),
        ManualClock(),
    )  # fmt: skip


def test_refusal_gives_the_reason_an_mqput_would() -> None:
    defs = {
        "OK": QueueDef("OK"),
        "MODEL": QueueDef("MODEL", queue_type=C.MQQT_MODEL),
        "OFF": QueueDef("OFF", put_inhibited=True),
        "SMALL": QueueDef("SMALL", max_msg_length=5),
        "FULL": QueueDef("FULL", max_depth=2),
    }
    dlq = _dlq(defs, {"FULL": 2})
    assert dlq.refusal("OK", ENV) is None
    assert dlq.refusal("NONE", ENV) == C.MQRC_UNKNOWN_OBJECT_NAME
    assert dlq.refusal("MODEL", ENV) == C.MQRC_UNKNOWN_OBJECT_NAME
    assert dlq.refusal("OFF", ENV) == C.MQRC_PUT_INHIBITED
    assert dlq.refusal("SMALL", ENV) == C.MQRC_MSG_TOO_BIG_FOR_Q
    assert dlq.refusal("FULL", ENV) == C.MQRC_Q_FULL


def test_the_dead_letter_envelope_keeps_the_mqmd_and_wraps_the_data() -> None:
    dead = dead_letter_envelope(ENV, C.MQRC_Q_FULL, "REPLY", "QM1", "QM1", 0)
    assert dead["Format"] == "MQDEAD  " and dead["Encoding"] == C.MQENC_NATIVE
    for same in ("MsgId", "CorrelId", "Persistence", "Priority", "Report", "BackoutCount"):
        assert dead[same] == ENV[same]
    header, data = unpack(dead["Payload"])
    assert data == ENV["Payload"]
    assert (header.reason, header.dest_q_name, header.dest_q_mgr_name) == (2053, "REPLY", "QM1")
    assert (header.format, header.encoding, header.coded_char_set_id) == (b"MQSTR   ", 273, 1208)
    assert (header.put_appl_type, header.put_appl_name) == (C.MQAT_QMGR, "QM1")
    assert (header.put_date, header.put_time) == (b"19700101", b"00000000")


def test_put_goes_to_deadq_or_nowhere_and_counts() -> None:
    dlq = _dlq({"DLQ": QueueDef("DLQ")}, {})
    delivery = dlq.put(ENV, C.MQRC_Q_FULL, "REPLY")
    assert delivery is not None and delivery.queue == "DLQ" and delivery.dead_lettered
    (topic, _key, value, _headers), = delivery.records  # fmt: skip
    assert topic.endswith(".DLQ.p4") and codec.decode(value)["Format"] == "MQDEAD  "
    assert dlq.counts.dead_lettered == 1 and dlq.counts.by_reason == {2053: 1}
    nowhere = _dlq({}, {}, deadq="")
    assert nowhere.put(ENV, C.MQRC_Q_FULL, "REPLY") is None
    assert nowhere.counts.undeliverable == 1
    full = _dlq({"DLQ": QueueDef("DLQ", max_depth=1)}, {"DLQ": 1})
    assert full.put(ENV, C.MQRC_Q_FULL, "REPLY") is None
    assert _dlq({"DLQ": QueueDef("DLQ")}, {}).put(ENV, 2053, "DLQ") is None  # not into itself
