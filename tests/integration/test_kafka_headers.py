"""Message properties as Kafka record headers, on the real stack: what a plain
confluent-kafka consumer sees of an MQPUT, and what an MQ getter sees of a plain
confluent-kafka producer's record (issue 14, "Properties on Kafka")."""

from __future__ import annotations

import io
import uuid

import fastavro
import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from mqk_avro import codec

import adapter.pymqi as pymqi
from adapter import config
from adapter.core import kafkaheaders, nativerecord
from adapter.shim import naming
from tests.integration.conftest import drain

C = pymqi.CMQC
IN, OUT = C.MQOO_INPUT_SHARED, C.MQOO_OUTPUT
CORREL = bytes(range(101, 125))


def consume_all(bootstrap: str, topic: str, n: int, timeout: float = 20.0) -> list:
    """A plain confluent-kafka consumer, as a Kafka-native service would run it."""
    consumer = Consumer(
        config.kafka_client(
            bootstrap,
            **{
                "group.id": f"native-{uuid.uuid4().hex[:8]}",
                "auto.offset.reset": "earliest",
                "enable.auto.commit": False,
            },
        )
    )
    consumer.assign([TopicPartition(topic, 0, 0)])
    out = []
    try:
        while len(out) < n:
            msgs = consumer.consume(n - len(out), timeout=timeout)
            if not msgs:
                break
            out += [m for m in msgs if not m.error()]
    finally:
        consumer.close()
    return out


def produce(bootstrap: str, topic: str, value, headers=None, key=None) -> None:
    """A plain confluent-kafka producer."""
    producer = Producer(config.kafka_client(bootstrap))
    if headers is None:
        producer.produce(topic, value, key)
    else:
        producer.produce(topic, value, key, headers=headers)
    assert producer.flush(30) == 0


def get_with_handle(qmgr, q):
    handle = pymqi.MessageHandle(qmgr)
    gmo = pymqi.GMO(
        Options=C.MQGMO_PROPERTIES_IN_HANDLE | C.MQGMO_NO_SYNCPOINT | C.MQGMO_WAIT,
        WaitInterval=10_000,
    )
    gmo.MsgHandle = handle.msg_handle
    md = pymqi.MD()
    return q.get(None, md, gmo), md, handle


def test_mq_put_with_five_typed_properties_is_read_by_a_plain_consumer(
    qmgr, qmgr_name, kafka_bootstrap
) -> None:
    qmgr.define_queue("Q.KH")
    q = pymqi.Queue(qmgr, "Q.KH", OUT)
    handle = pymqi.MessageHandle(qmgr)
    handle.properties.set("Color", "red")
    handle.properties.set("Count", 42, property_type=C.MQTYPE_INT32)
    handle.properties.set("Urgent", True, property_type=C.MQTYPE_BOOLEAN)
    handle.properties.set("Ratio", 1.5, property_type=C.MQTYPE_FLOAT64)
    handle.properties.set("JMSXGroupID", "orders")
    pmo = pymqi.PMO(Version=C.MQPMO_VERSION_3)
    pmo.OriginalMsgHandle = handle.msg_handle
    q.put(b"payload", pymqi.MD(Priority=6, CorrelId=CORREL), pmo)
    qmgr.get_handle().barrier()

    [rec] = consume_all(kafka_bootstrap, naming.data_topic(qmgr_name, "Q.KH", 6), 1)
    headers = dict(rec.headers())
    assert headers["Color"] == b"red"
    assert headers["Count"] == b"42"
    assert headers["Urgent"] == b"true"
    assert headers["Ratio"] == b"1.5"
    assert headers["JMSXGroupID"] == b"orders"
    assert headers["JMSCorrelationID"] == b"ID:" + CORREL.hex().encode()
    # Not headers (IBM's source connector copies no JMS header field): the priority is
    # the topic's, the put time the record's timestamp.
    assert not {"JMSPriority", "JMSDeliveryMode", "JMSTimestamp"} & set(headers)
    assert rec.topic().endswith(".p6")
    assert headers[kafkaheaders.TYPES_HEADER] == b"Count=i4;Urgent=boolean;Ratio=r8"

    # ... and the MQ getter still gets exactly what was put, types included.
    getter = pymqi.Queue(qmgr, "Q.KH", IN)
    data, _md, got = get_with_handle(qmgr, getter)
    props = qmgr._msg_handles.properties(got.msg_handle)
    assert data == b"payload"
    assert [(p.name, p.type, p.value) for p in props] == [
        ("usr.Color", C.MQTYPE_STRING, "red"),
        ("usr.Count", C.MQTYPE_INT32, 42),
        ("usr.Urgent", C.MQTYPE_BOOLEAN, True),
        ("usr.Ratio", C.MQTYPE_FLOAT64, 1.5),
        ("jms.Gid", C.MQTYPE_STRING, "orders"),
    ]


def test_plain_producer_with_headers_is_got_by_an_mq_getter(
    qmgr, qmgr_name, kafka_bootstrap
) -> None:
    qmgr.define_queue("Q.KN")
    topic = naming.data_topic(qmgr_name, "Q.KN", 5)
    produce(
        kafka_bootstrap,
        topic,
        b"hello from kafka",
        [
            ("JMSCorrelationID", b"ID:" + CORREL.hex().encode()),
            ("Region", b"emea"),
            ("Attempts", b"3"),
            ("JMSPriority", b"5"),
            (kafkaheaders.TYPES_HEADER, b"Attempts=i4"),
        ],
    )
    q = pymqi.Queue(qmgr, "Q.KN", IN)
    data, md, handle = get_with_handle(qmgr, q)
    assert data == b"hello from kafka"
    assert md.CorrelId == CORREL
    assert md.Priority == 5
    assert md.Format == C.MQFMT_NONE
    assert md.MsgId == nativerecord.msg_id(topic, 0, 0)
    assert handle.properties.get("Region") == "emea"
    assert handle.properties.get("Attempts") == 3
    props = qmgr._msg_handles.properties(handle.msg_handle)
    assert props.get("Attempts").type == C.MQTYPE_INT32
    assert props.get("Region").type == C.MQTYPE_STRING
    assert props.get("JMSCorrelationID").value == "ID:" + CORREL.hex()
    qmgr.get_handle().barrier()
    assert qmgr.queue_status("Q.KN")["current_depth"] == 0


def test_old_v1_envelope_records_still_decode(qmgr, qmgr_name, kafka_bootstrap) -> None:
    """A record an mqk from before properties wrote (schema version 1, no Properties
    field, no headers) is still an MQ message with its MQMD."""
    qmgr.define_queue("Q.KV1")
    env = {
        k: v
        for k, v in codec.new_envelope(
            MsgId=b"V" * 24, CorrelId=CORREL, Priority=2, Payload=b"from v1"
        ).items()
        if k != "Properties"
    }
    bio = io.BytesIO()
    bio.write(b"\x01")
    fastavro.schemaless_writer(bio, codec.SCHEMAS[1], env, strict=True)
    produce(
        kafka_bootstrap, naming.data_topic(qmgr_name, "Q.KV1", 2), bio.getvalue(), key=b"V" * 24
    )
    q = pymqi.Queue(qmgr, "Q.KV1", IN)
    md = pymqi.MD()
    data = q.get(None, md, pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=10_000))
    assert (data, md.MsgId, md.CorrelId, md.Priority) == (b"from v1", b"V" * 24, CORREL, 2)


def test_native_record_survives_a_redis_state_rebuild_with_the_same_msg_id(
    qmgr, qmgr_name, kafka_bootstrap, caplog
) -> None:
    qmgr.define_queue("Q.KRB")
    topic = naming.data_topic(qmgr_name, "Q.KRB", 0)
    for i in range(3):
        produce(kafka_bootstrap, topic, b"n%d" % i, [("i", str(i).encode())])
    q = pymqi.Queue(qmgr, "Q.KRB", IN | C.MQOO_BROWSE)
    plain = C.MQGMO_NO_SYNCPOINT | C.MQGMO_NO_PROPERTIES | C.MQGMO_WAIT
    assert q.get(None, pymqi.MD(), pymqi.GMO(Options=plain, WaitInterval=10_000)) == b"n0"
    before = pymqi.MD()
    q.get(None, before, pymqi.GMO(Options=C.MQGMO_BROWSE_FIRST))
    qmgr.get_handle().barrier()
    qmgr.get_handle().store.queue("Q.KRB").wipe()  # this queue's Redis state is lost
    fresh = pymqi.Queue(qmgr, "Q.KRB", IN)
    with caplog.at_level("WARNING", logger="mqk.shim.recovery"):
        got = drain(fresh, options=C.MQGMO_NO_PROPERTIES)
    assert "rebuilding" in caplog.text
    assert [d for d, _ in got] == [b"n1", b"n2"]
    assert got[0][1].MsgId == before.MsgId == nativerecord.msg_id(topic, 0, 1)
    qmgr.get_handle().barrier()
    assert qmgr.queue_status("Q.KRB")["current_depth"] == 0


@pytest.mark.parametrize("value", [b"\x02" + bytes(200), b"\x01garbage", b""])
def test_any_bytes_from_a_producer_are_data(qmgr, qmgr_name, kafka_bootstrap, value) -> None:
    """Bytes that start like an envelope's version byte are still a producer's data."""
    qmgr.define_queue("Q.KB")
    produce(kafka_bootstrap, naming.data_topic(qmgr_name, "Q.KB", 0), value, key=b"k" * 24)
    q = pymqi.Queue(qmgr, "Q.KB", IN)
    data = q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=10_000))
    assert data == value
