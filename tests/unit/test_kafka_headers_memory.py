"""Message properties as Kafka record headers, and Kafka-native records got as MQ
messages, on the in-memory backends: what a plain Kafka consumer sees of an MQPUT, what
an MQ getter sees of a plain Kafka producer's record, and the rule that tells the two
apart."""

from __future__ import annotations

import datetime as dt

import pytest
from confluent_kafka import OFFSET_BEGINNING, TopicPartition
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mqk_avro import codec

import adapter.pymqi as pymqi
from adapter.core import kafkaheaders, nativerecord, propwire
from adapter.core.properties import MessageProperties
from adapter.shim import naming, records
from adapter.shim.memory_log import MemoryLog
from tests.integration.conftest import drain

C = pymqi.CMQC
IN, OUT = C.MQOO_INPUT_SHARED, C.MQOO_OUTPUT
CORREL = bytes(range(1, 25))


def read_all(world, topic: str) -> list:
    reader = MemoryLog(world.clock, world.cluster).reader()
    reader.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    out = reader.consume(100, timeout=0)
    reader.close()
    return out


def produce_native(world, topic: str, value, headers=None, key=None) -> None:
    producer = MemoryLog(world.clock, world.cluster).producer()
    producer.produce(topic, value, key, headers=headers)
    assert producer.flush() == 0


def get_props(qmgr, q, options: int = 0):
    handle = pymqi.MessageHandle(qmgr)
    gmo = pymqi.GMO(Options=C.MQGMO_PROPERTIES_IN_HANDLE | C.MQGMO_NO_SYNCPOINT | options)
    gmo.MsgHandle = handle.msg_handle
    md = pymqi.MD()
    data = q.get(None, md, gmo)
    return data, md, qmgr._msg_handles.properties(handle.msg_handle)


def put_props(qmgr, q, body: bytes, props: dict, **md) -> pymqi.MD:
    handle = pymqi.MessageHandle(qmgr)
    for name, (value, ptype) in props.items():
        handle.properties.set(name, value, property_type=ptype)
    pmo = pymqi.PMO(Version=C.MQPMO_VERSION_3, Options=C.MQPMO_NO_SYNCPOINT)
    pmo.OriginalMsgHandle = handle.msg_handle
    mqmd = pymqi.MD(**md)
    q.put(body, mqmd, pmo)
    return mqmd


FIVE = {
    "Color": ("red", C.MQTYPE_STRING),
    "Count": (42, C.MQTYPE_INT32),
    "Big": (-(2**40), C.MQTYPE_INT64),
    "Urgent": (True, C.MQTYPE_BOOLEAN),
    "Ratio": (0.25, C.MQTYPE_FLOAT64),
}


# -- the in-memory broker carries headers as Kafka does --------------------------------


def test_memory_log_carries_headers_in_order_as_a_consumer_sees_them(world) -> None:
    log = MemoryLog(world.clock, world.cluster)
    from adapter.shim.log import TopicSpec

    log.create_topics({"t": TopicSpec(1)})
    p = log.producer()
    p.produce("t", b"a", headers=[("x", b"1"), ("y", "two"), ("x", None)])
    p.produce("t", b"b", headers={"k": b"v"})
    p.produce("t", b"c")
    p.produce("t", b"d", headers=[])
    assert p.flush() == 0
    got = read_all(world, "t")
    assert [m.headers() for m in got] == [
        [("x", b"1"), ("y", b"two"), ("x", None)],
        [("k", b"v")],
        None,
        None,
    ]


# -- MQPUT -> headers ------------------------------------------------------------------


def test_put_with_typed_properties_writes_connector_headers(world, qmgr, qmgr_name) -> None:
    qmgr.define_queue("Q.H")
    q = pymqi.Queue(qmgr, "Q.H", IN | OUT)
    put_props(qmgr, q, b"body", FIVE, Priority=4, CorrelId=CORREL)
    [rec] = read_all(world, naming.data_topic(qmgr_name, "Q.H", 4))
    headers = rec.headers()
    seen = dict(headers)
    assert seen["Color"] == b"red"
    assert seen["Count"] == b"42"
    assert seen["Big"] == str(-(2**40)).encode()
    assert seen["Urgent"] == b"true"
    assert seen["Ratio"] == b"0.25"
    assert seen["JMSCorrelationID"] == b"ID:" + CORREL.hex().encode()
    # JMS header fields IBM's source connector never makes headers: the priority is the
    # topic's (.p4 above), the put time the record's timestamp.
    assert not {"JMSPriority", "JMSDeliveryMode", "JMSTimestamp"} & set(seen)
    hints = dict(p.split("=") for p in seen[kafkaheaders.TYPES_HEADER].decode().split(";"))
    assert hints == {"Count": "i4", "Big": "i8", "Urgent": "boolean", "Ratio": "r8"}
    # The getter still gets exactly the typed properties that were put.
    data, _md, props = get_props(qmgr, q)
    assert data == b"body"
    assert {p.name: (p.value, p.type) for p in props} == {"usr." + k: v for k, v in FIVE.items()}


def test_put_without_properties_writes_no_header(world, qmgr, qmgr_name) -> None:
    qmgr.define_queue("Q.NOH")
    q = pymqi.Queue(qmgr, "Q.NOH", OUT)
    q.put(b"plain", pymqi.MD(CorrelId=CORREL))
    [rec] = read_all(world, naming.data_topic(qmgr_name, "Q.NOH", 0))
    assert rec.headers() is None


def test_group_member_headers_name_the_group(world, qmgr, qmgr_name) -> None:
    qmgr.define_queue("Q.GH")
    q = pymqi.Queue(qmgr, "Q.GH", IN | OUT)
    handle = pymqi.MessageHandle(qmgr)
    handle.properties.set("Kind", "member")
    pmo = pymqi.PMO(Version=C.MQPMO_VERSION_3, Options=C.MQPMO_LOGICAL_ORDER)
    pmo.OriginalMsgHandle = handle.msg_handle
    md = pymqi.MD(Version=C.MQMD_VERSION_2, MsgFlags=C.MQMF_MSG_IN_GROUP)
    q.put(b"one", md, pmo)
    qmgr.commit()
    [rec] = read_all(world, naming.data_topic(qmgr_name, "Q.GH", 0))
    seen = dict(rec.headers())
    assert seen["JMSXGroupID"] == b"ID:" + md.GroupId.hex().encode()
    assert seen["JMSXGroupSeq"] == b"1"
    assert seen["Kind"] == b"member"


def test_requeued_message_keeps_its_headers(world, qmgr, qmgr_name) -> None:
    """A BOTHRESH requeue writes the envelope again: its headers come with it."""
    qmgr.define_queue("Q.BODLQ")
    qmgr.define_queue("Q.BO", backout_threshold=1, backout_requeue_q="Q.BODLQ")
    q = pymqi.Queue(qmgr, "Q.BO", IN | OUT)
    put_props(qmgr, q, b"poison", {"Color": ("blue", C.MQTYPE_STRING)})
    q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_SYNCPOINT))
    qmgr.backout()
    with pytest.raises(pymqi.MQMIError):
        q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_SYNCPOINT))
    qmgr.commit()
    [rec] = read_all(world, naming.data_topic(qmgr_name, "Q.BODLQ", 0))
    assert dict(rec.headers())["Color"] == b"blue"


# -- native records -> MQGET -----------------------------------------------------------


def test_native_record_is_got_as_an_mq_message(world, qmgr, qmgr_name) -> None:
    qmgr.define_queue("Q.N")
    topic = naming.data_topic(qmgr_name, "Q.N", 7)
    produce_native(
        world,
        topic,
        b"from kafka",
        [
            ("JMSCorrelationID", b"ID:" + CORREL.hex().encode()),
            ("Color", b"green"),
            ("Count", b"7"),
            ("JMSPriority", b"7"),
            ("JMSDeliveryMode", b"2"),
            ("JMSXUserID", b"kafkauser"),
            (kafkaheaders.TYPES_HEADER, b"Count=i2"),
            ("content-type", b"text/plain"),  # not a property name: left out
        ],
    )
    q = pymqi.Queue(qmgr, "Q.N", IN)
    data, md, props = get_props(qmgr, q)
    assert data == b"from kafka"
    assert md.CorrelId == CORREL
    assert md.Priority == 7
    assert md.Persistence == C.MQPER_PERSISTENT
    assert md.Format == C.MQFMT_NONE
    assert md.CodedCharSetId == nativerecord.NATIVE_CCSID
    assert md.MsgType == C.MQMT_DATAGRAM
    assert md.UserIdentifier.rstrip() == b"kafkauser"
    assert md.MsgId == nativerecord.msg_id(topic, 0, 0)
    now = dt.datetime.fromtimestamp(world.clock.now_ms() / 1000, dt.UTC)
    assert md.PutDate.decode() == now.strftime("%Y%m%d")
    assert md.PutTime.decode()[:4] == now.strftime("%H%M")
    typed = {p.name: (p.value, p.type) for p in props}
    assert typed["usr.Color"] == ("green", C.MQTYPE_STRING)
    assert typed["usr.Count"] == (7, C.MQTYPE_INT16)
    assert "usr.content-type" not in typed
    with pytest.raises(pymqi.MQMIError) as exc:
        q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_NO_SYNCPOINT))
    assert exc.value.reason == C.MQRC_NO_MSG_AVAILABLE
    qmgr.get_handle().barrier()
    assert qmgr.queue_status("Q.N")["current_depth"] == 0


def test_native_records_count_into_the_depth_once(world, qmgr, qmgr_name) -> None:
    """Nothing counted a native record at put: the first reader that reads it does,
    once, however many handles read it."""
    qmgr.define_queue("Q.ND")
    topic = naming.data_topic(qmgr_name, "Q.ND", 0)
    for i in range(3):
        produce_native(world, topic, b"n%d" % i)
    readers = [pymqi.Queue(qmgr, "Q.ND", IN | C.MQOO_BROWSE) for _ in range(2)]
    other = pymqi.connect(qmgr_name)
    readers.append(pymqi.Queue(other, "Q.ND", C.MQOO_BROWSE))
    for q in readers:
        q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_BROWSE_FIRST))
    assert qmgr.queue_status("Q.ND")["current_depth"] == 3
    q = pymqi.Queue(qmgr, "Q.ND", OUT)
    q.put(b"mq")
    got = drain(readers[0])
    assert [d for d, _ in got] == [b"n0", b"n1", b"n2", b"mq"]
    qmgr.get_handle().barrier()
    assert qmgr.queue_status("Q.ND")["current_depth"] == 0
    other.disconnect()


def test_native_record_without_headers_or_key_is_plain_data(world, qmgr, qmgr_name) -> None:
    qmgr.define_queue("Q.NP", def_persistence=C.MQPER_PERSISTENT)
    # A first byte that is an envelope version byte does not make an envelope.
    produce_native(world, naming.data_topic(qmgr_name, "Q.NP", 0), b"\x02hello")
    produce_native(world, naming.data_topic(qmgr_name, "Q.NP", 0), None)  # a tombstone
    got = drain(pymqi.Queue(qmgr, "Q.NP", IN))
    assert [d for d, _ in got] == [b"\x02hello", b""]
    assert got[0][1].Persistence == C.MQPER_PERSISTENT  # the queue's DEFPSIST
    assert got[0][1].CorrelId == C.MQCI_NONE


def test_an_envelope_under_a_foreign_key_is_a_native_record(world, qmgr, qmgr_name) -> None:
    """A producer copying an envelope's bytes under another key writes data, not an MQ
    message: the key rule is the marker."""
    qmgr.define_queue("Q.F")
    env = codec.new_envelope(MsgId=b"M" * 24, Payload=b"inner")
    value = codec.encode(env)
    topic = naming.data_topic(qmgr_name, "Q.F", 0)
    produce_native(world, topic, value, key=b"K" * 24)
    produce_native(world, topic, value, key=b"M" * 24)  # the key rule holds: an envelope
    got = drain(pymqi.Queue(qmgr, "Q.F", IN))
    assert [d for d, _ in got] == [value, b"inner"]
    assert got[0][1].MsgId == nativerecord.msg_id(topic, 0, 0)
    assert got[1][1].MsgId == b"M" * 24


def test_old_v1_envelope_records_still_decode(world, qmgr, qmgr_name) -> None:
    qmgr.define_queue("Q.V1")
    value = bytes([1]) + _v1_body(MsgId=b"1" * 24, CorrelId=CORREL, Payload=b"old")
    produce_native(world, naming.data_topic(qmgr_name, "Q.V1", 0), value, key=b"1" * 24)
    [(data, md)] = drain(pymqi.Queue(qmgr, "Q.V1", IN))
    assert (data, md.MsgId, md.CorrelId) == (b"old", b"1" * 24, CORREL)


def _v1_body(**fields) -> bytes:
    import io

    import fastavro

    env = {k: v for k, v in codec.new_envelope(**fields).items() if k != "Properties"}
    bio = io.BytesIO()
    fastavro.schemaless_writer(bio, codec.SCHEMAS[1], env, strict=True)
    return bio.getvalue()


def test_native_record_is_selected_by_its_header_properties(world, qmgr, qmgr_name) -> None:
    qmgr.define_queue("Q.SEL")
    topic = naming.data_topic(qmgr_name, "Q.SEL", 0)
    produce_native(world, topic, b"red one", [("Color", b"red")])
    produce_native(world, topic, b"blue one", [("Color", b"blue")])
    od = pymqi.OD(ObjectName=b"Q.SEL")
    od.set_vs("SelectionString", "Color = 'blue'")
    q = pymqi.Queue(qmgr, od, IN)
    assert [d for d, _ in drain(q, options=C.MQGMO_NO_PROPERTIES)] == [b"blue one"]


def test_native_record_browsed_then_got_keeps_its_msg_id(world, qmgr, qmgr_name) -> None:
    qmgr.define_queue("Q.BR")
    produce_native(world, naming.data_topic(qmgr_name, "Q.BR", 3), b"x", [("a", b"b")])
    q = pymqi.Queue(qmgr, "Q.BR", IN | C.MQOO_BROWSE)
    md = pymqi.MD()
    q.get(None, md, pymqi.GMO(Options=C.MQGMO_BROWSE_FIRST))
    _data, md2, props = get_props(qmgr, q, C.MQGMO_MSG_UNDER_CURSOR)
    assert md2.MsgId == md.MsgId and md2.Priority == 3
    assert props.get("a").value == "b"


def test_native_record_survives_a_state_rebuild_with_the_same_msg_id(
    world, qmgr, qmgr_name, caplog
) -> None:
    qmgr.define_queue("Q.RB")
    topic = naming.data_topic(qmgr_name, "Q.RB", 0)
    for i in range(3):
        produce_native(world, topic, b"n%d" % i, [("i", str(i).encode())])
    q = pymqi.Queue(qmgr, "Q.RB", IN | C.MQOO_BROWSE)
    first = pymqi.MD()
    plain = C.MQGMO_NO_SYNCPOINT | C.MQGMO_NO_PROPERTIES
    assert q.get(None, first, pymqi.GMO(Options=plain)) == b"n0"
    before = pymqi.MD()
    q.get(None, before, pymqi.GMO(Options=C.MQGMO_BROWSE_FIRST))
    qmgr.get_handle().barrier()
    qmgr.get_handle().store.queue("Q.RB").wipe()  # the state is lost: rebuilt from Kafka
    fresh = pymqi.Queue(qmgr, "Q.RB", IN)
    with caplog.at_level("WARNING", logger="mqk.shim.recovery"):
        got = drain(fresh, options=C.MQGMO_NO_PROPERTIES)
    assert "rebuilding" in caplog.text
    assert [d for d, _ in got] == [b"n1", b"n2"]
    assert got[0][1].MsgId == before.MsgId == nativerecord.msg_id(topic, 0, 1)
    qmgr.get_handle().barrier()
    assert qmgr.queue_status("Q.RB")["current_depth"] == 0


def test_a_record_that_cannot_be_read_is_counted_and_skipped(
    world, qmgr, qmgr_name, monkeypatch, caplog
) -> None:
    qmgr.define_queue("Q.BAD")
    topic = naming.data_topic(qmgr_name, "Q.BAD", 0)
    produce_native(world, topic, b"broken")
    produce_native(world, topic, b"fine")
    real = records.native_envelope

    def native_envelope(msg, priority, persistence):
        if msg.value() == b"broken":
            raise ValueError("a defect")
        return real(msg, priority, persistence)

    monkeypatch.setattr(records, "native_envelope", native_envelope)
    q = pymqi.Queue(qmgr, "Q.BAD", IN)
    with caplog.at_level("ERROR", logger="mqk.shim.reader"):
        assert [d for d, _ in drain(q)] == [b"fine"]
    assert "cannot be read" in caplog.text


# -- the pure parts --------------------------------------------------------------------


def test_envelope_rule_needs_the_key_of_the_envelope() -> None:
    env = codec.new_envelope(MsgId=b"A" * 24, GroupId=b"G" * 24, Payload=b"p")
    value = codec.encode(env)
    assert records.envelope_of(b"G" * 24, value)["Payload"] == b"p"
    assert records.envelope_of(b"A" * 24, value) is None  # in a group: keyed by GroupId
    assert records.envelope_of(None, value) is None
    assert records.envelope_of(b"G" * 24, value + b"x") is None


def test_correl_id_from_jms_correlation_ids() -> None:
    assert nativerecord.correl_id("ID:" + CORREL.hex()) == CORREL
    assert nativerecord.correl_id("ID:0102") == b"\x01\x02" + b"\0" * 22
    assert nativerecord.correl_id("order-17") == b"order-17" + b"\0" * 16
    assert nativerecord.correl_id("x" * 30) == b"x" * 24


def test_native_msg_ids_differ_by_position() -> None:
    ids = {nativerecord.msg_id(t, p, o) for t in ("a", "b") for p in (0, 1) for o in (0, 1)}
    assert len(ids) == 8 and all(len(i) == 24 for i in ids)


names = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,11}", fullmatch=True).filter(
    lambda n: (
        not n.upper().startswith(("JMS", "NULL", "TRUE", "FALSE", "NOT", "AND", "OR"))
        and n.upper() not in ("IS", "IN", "LIKE", "BETWEEN", "ESCAPE")
    )
)
values = st.one_of(
    st.tuples(st.text(max_size=20).filter(lambda s: "\0" not in s), st.just(C.MQTYPE_STRING)),
    st.tuples(st.integers(-(2**31), 2**31 - 1), st.just(C.MQTYPE_INT32)),
    st.tuples(st.integers(-(2**63), 2**63 - 1), st.just(C.MQTYPE_INT64)),
    st.tuples(st.integers(-128, 127), st.just(C.MQTYPE_INT8)),
    st.tuples(st.booleans(), st.just(C.MQTYPE_BOOLEAN)),
    st.tuples(st.floats(allow_nan=False), st.just(C.MQTYPE_FLOAT64)),
    st.tuples(st.binary(max_size=10), st.just(C.MQTYPE_BYTE_STRING)),
    st.tuples(st.none(), st.just(C.MQTYPE_NULL)),
)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(names, values, max_size=6))
def test_headers_give_back_the_typed_properties_put(props: dict) -> None:
    """What a Kafka-native service reading the headers (and mqk.types) gets is exactly
    what was put, so the headers can stand alone for a consumer."""
    mp = MessageProperties()
    for name, (value, ptype) in props.items():
        try:
            mp.set(name, value, ptype)
        except pymqi.MQMIError:
            return  # a name MQ refuses (a keyword): nothing to put
    env = codec.new_envelope(MsgId=b"m" * 24, Properties=propwire.pack(mp), PutTimestamp=1)
    headers = records.headers_of(env)
    if not mp:
        assert headers is None
        return
    back = kafkaheaders.from_headers(headers)
    assert back.skipped == []
    assert {p.name: (p.value, p.type) for p in back.properties} == {
        p.name: (p.value, p.type) for p in mp
    }


ids = st.one_of(st.just(C.MQCI_NONE), st.binary(min_size=24, max_size=24))


@settings(max_examples=200)
@given(
    correl=ids,
    group=st.binary(min_size=24, max_size=24),
    priority=st.integers(0, 9),
    persistence=st.sampled_from([0, 1]),
    stamp=st.integers(-5, 2**45),
    user=st.text(max_size=12).filter(lambda s: "\0" not in s),
    appl=st.text(max_size=28).filter(lambda s: "\0" not in s),
    flags=st.sampled_from([0, C.MQMF_MSG_IN_GROUP, C.MQMF_LAST_MSG_IN_GROUP, C.MQMF_SEGMENT]),
    seq=st.integers(1, 1000),
    own=st.sets(st.sampled_from(kafkaheaders.PUT_DESCRIPTOR_NAMES), max_size=2),
)
def test_descriptor_headers_are_what_the_general_mapping_writes(
    correl, group, priority, persistence, stamp, user, appl, flags, seq, own
) -> None:
    """MQPUT's direct descriptor headers equal `to_headers(props, put_descriptor(env))`
    (the general path through every MQMD field as a property)."""
    env = {
        "CorrelId": correl,
        "GroupId": group,
        "Priority": priority,
        "Persistence": persistence,
        "PutTimestamp": stamp,
        "UserIdentifier": user,
        "PutApplName": appl,
        "MsgFlags": flags,
        "MsgSeqNumber": seq,
    }
    mp = MessageProperties()
    for name in sorted(own):
        if name in ("JMSXGroupID", "JMSCorrelationID"):
            mp.set(name, "mine")
    names, prop_headers = kafkaheaders.property_headers(mp)
    direct = kafkaheaders.descriptor_headers(env, names) + prop_headers
    assert direct == kafkaheaders.to_headers(mp, kafkaheaders.put_descriptor(env))


def test_native_record_expires_by_its_jms_expiration(world, qmgr, qmgr_name) -> None:
    qmgr.define_queue("Q.NX")
    topic = naming.data_topic(qmgr_name, "Q.NX", 0)
    now = world.clock.now_ms()
    produce_native(world, topic, b"stale", [("JMSExpiration", str(now + 500).encode())])
    produce_native(world, topic, b"fresh", [("JMSExpiration", str(now + 60_000).encode())])
    produce_native(world, topic, b"forever", [("JMSExpiration", b"0")])
    world.clock.advance(1.0)  # the first one's lifetime (0.5 s) is over
    got = drain(pymqi.Queue(qmgr, "Q.NX", IN), options=C.MQGMO_NO_PROPERTIES)
    assert [d for d, _ in got] == [b"fresh", b"forever"]
    assert 0 < got[0][1].Expiry <= 600 - 10  # tenths of a second left, as MQ returns it
    assert got[1][1].Expiry == C.MQEI_UNLIMITED
