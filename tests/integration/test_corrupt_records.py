"""A foreign, corrupt record on a queue's topic, on the real stack: a plain
confluent-kafka producer writes it between two MQPUTs; MQGET returns the two good
messages and the dead-letter queue holds the record's bytes behind an MQDLH whose
Reason says why (issue 19, "Hostile and foreign input")."""

from __future__ import annotations

import uuid

import pytest
from confluent_kafka import Producer
from mqk_avro import codec

import adapter.pymqi as pymqi
from adapter import config
from adapter.core import dlh as core_dlh
from adapter.core import recordrules
from adapter.shim import naming
from tests.integration.conftest import drain

C = pymqi.CMQC
IN, OUT, BROWSE = C.MQOO_INPUT_SHARED, C.MQOO_OUTPUT, C.MQOO_BROWSE
MSGID = b"J" * 24


def produce(bootstrap: str, topic: str, value: bytes, key: bytes) -> None:
    producer = Producer(config.kafka_client(bootstrap))
    producer.produce(topic, value, key)
    assert producer.flush(30) == 0


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (codec.encode(codec.new_envelope(MsgId=MSGID, Payload=b"p" * 50))[:-20], None),
        (codec.encode(codec.new_envelope(MsgId=MSGID, Persistence=7)), C.MQRC_PERSISTENCE_ERROR),
    ],
    ids=["truncated", "persistence-7"],
)
def test_corrupt_record_goes_to_the_dlq_between_two_good_messages(
    qmgr, qmgr_name, kafka_bootstrap, value, reason
) -> None:
    reason = reason or recordrules.UNREADABLE
    name = f"Q.CORRUPT.{uuid.uuid4().hex[:6].upper()}"
    dlq = f"{name}.DLQ"
    qmgr.define_queue(name)
    qmgr.define_queue(dlq)
    qmgr.alter_qmgr(dead_letter_q=dlq)
    try:
        q = pymqi.Queue(qmgr, name, IN | OUT | BROWSE)
        q.put(b"first")
        produce(kafka_bootstrap, naming.data_topic(qmgr_name, name, 0), value, MSGID)
        q.put(b"second")
        browsed = []
        gmo = pymqi.GMO(Options=C.MQGMO_BROWSE_FIRST)
        while True:
            try:
                browsed.append(q.get(None, pymqi.MD(), gmo))
            except pymqi.MQMIError:
                break
            gmo = pymqi.GMO(Options=C.MQGMO_BROWSE_NEXT)
        assert browsed == [b"first", b"second"]  # browse skips it
        assert [d for d, _ in drain(q)] == [b"first", b"second"]
        [(data, md)] = drain(pymqi.Queue(qmgr, dlq, IN))
        header, rest = core_dlh.unpack(data)
        assert header.reason == reason
        assert header.dest_q_name.rstrip() == name
        assert header.format == C.MQFMT_NONE
        assert rest == value
        assert md.Format == C.MQFMT_DEAD_LETTER_HEADER
        qmgr.get_handle().barrier()
        assert qmgr.queue_status(name)["current_depth"] == 0
    finally:
        qmgr.alter_qmgr(dead_letter_q="")
