"""Foreign and corrupt records on a queue's topic, on the in-memory backends: a record
shaped like an envelope that cannot be read, or an envelope with an MQMD no MQPUT could
have stored, goes to the dead-letter queue with an MQDLH saying why, exactly once, and
the getter serves the next message; browse never shows it; without a dead-letter queue
it stays (counted, logged) and the getter still goes on."""

from __future__ import annotations

import logging

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mqk_avro import codec

import adapter.pymqi as pymqi
from adapter.core import dlh as core_dlh
from adapter.core import nativerecord, recordrules
from adapter.shim import naming, records
from adapter.shim.memory_log import MemoryLog
from tests.integration.conftest import drain

C = pymqi.CMQC
IN, OUT, BROWSE = C.MQOO_INPUT_SHARED, C.MQOO_OUTPUT, C.MQOO_BROWSE
MSGID = b"M" * 24


def produce(world, topic: str, value, key=None) -> None:
    producer = MemoryLog(world.clock, world.cluster).producer()
    producer.produce(topic, value, key)
    assert producer.flush() == 0


def envelope(**fields) -> bytes:
    return codec.encode(codec.new_envelope(MsgId=MSGID, **fields))


def with_bad_field(**fields) -> bytes:
    """An envelope whose MQMD holds values its encoder accepts and MQPUT refuses."""
    return envelope(**fields)


TRUNCATED = envelope(Payload=b"x" * 40)[:-30]
UNKNOWN_VERSION = bytes([9]) + envelope(Payload=b"v9")[1:]

CORRUPT = {
    "truncated": (TRUNCATED, recordrules.UNREADABLE),
    "unknown schema version": (UNKNOWN_VERSION, recordrules.UNREADABLE),
    "negative priority": (with_bad_field(Priority=-3), C.MQRC_PRIORITY_ERROR),
    "persistence 7": (with_bad_field(Persistence=7), C.MQRC_PERSISTENCE_ERROR),
    "msg type 0": (with_bad_field(MsgType=0), C.MQRC_MSG_TYPE_ERROR),
    "seq number 0": (with_bad_field(MsgSeqNumber=0), C.MQRC_MSG_SEQ_NUMBER_ERROR),
    "unknown flags": (with_bad_field(MsgFlags=1 << 9), C.MQRC_MSG_FLAGS_ERROR),
    "long reply queue": (with_bad_field(ReplyToQ="R" * 49), C.MQRC_MD_ERROR),
}


@pytest.fixture
def setup(world, qmgr, qmgr_name):
    qmgr.define_queue("Q.C")
    qmgr.define_queue("DLQ")
    qmgr.alter_qmgr(dead_letter_q="DLQ")
    return world, qmgr, qmgr_name, naming.data_topic(qmgr_name, "Q.C", 0)


def dead_letters(qmgr) -> list[tuple[core_dlh.DeadLetterHeader, bytes, pymqi.MD]]:
    out = []
    for data, md in drain(pymqi.Queue(qmgr, "DLQ", IN)):
        header, rest = core_dlh.unpack(data)
        out.append((header, rest, md))
    return out


@pytest.mark.parametrize("case", sorted(CORRUPT))
def test_corrupt_record_goes_to_the_dlq_and_the_getter_serves_the_next(setup, case) -> None:
    world, qmgr, qmgr_name, topic = setup
    value, reason = CORRUPT[case]
    q = pymqi.Queue(qmgr, "Q.C", IN | OUT)
    q.put(b"first")
    produce(world, topic, value, key=MSGID)
    q.put(b"second")
    assert [d for d, _ in drain(q)] == [b"first", b"second"]
    [(header, data, md)] = dead_letters(qmgr)
    assert header.reason == reason
    assert header.dest_q_name.rstrip() == "Q.C"
    assert header.format == C.MQFMT_NONE
    assert data == value  # the record's bytes, as they were
    assert md.Format == C.MQFMT_DEAD_LETTER_HEADER
    assert md.MsgId == nativerecord.msg_id(topic, 0, 1)
    qmgr.get_handle().barrier()
    assert qmgr.queue_status("Q.C")["current_depth"] == 0


def test_browse_skips_a_corrupt_record_and_a_get_then_moves_it(setup) -> None:
    world, qmgr, _name, topic = setup
    q = pymqi.Queue(qmgr, "Q.C", IN | OUT | BROWSE)
    produce(world, topic, TRUNCATED, key=MSGID)
    q.put(b"good")
    md = pymqi.MD()
    assert q.get(None, md, pymqi.GMO(Options=C.MQGMO_BROWSE_FIRST)) == b"good"
    with pytest.raises(pymqi.MQMIError) as exc:
        q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_BROWSE_NEXT))
    assert exc.value.reason == C.MQRC_NO_MSG_AVAILABLE
    assert dead_letters(qmgr) == []  # browsing moves nothing
    assert [d for d, _ in drain(q)] == [b"good"]
    assert len(dead_letters(qmgr)) == 1


def test_native_records_stay_messages(setup) -> None:
    """The rule for corrupt records leaves a Kafka producer's records alone: a JSON
    value under an ObjectId-like 24-character key, a value starting with a version byte,
    an envelope under a foreign key."""
    world, qmgr, _name, topic = setup
    oid = b"65f1c0ffee0123456789abcd"
    values = [
        (b'{"_id":"' + oid + b'"}', oid),
        (b"\x02" + b"z" * 60, b"K" * 24),
        (envelope(Payload=b"inner"), b"K" * 24),
    ]
    for value, key in values:
        produce(world, topic, value, key=key)
    got = drain(pymqi.Queue(qmgr, "Q.C", IN))
    assert [d for d, _ in got] == [v for v, _ in values]
    assert dead_letters(qmgr) == []


def test_exactly_once_with_two_getters(setup, other) -> None:
    world, qmgr, _name, topic = setup
    mine = pymqi.Queue(qmgr, "Q.C", IN | OUT)
    theirs = pymqi.Queue(other, "Q.C", IN)
    produce(world, topic, UNKNOWN_VERSION, key=MSGID)
    mine.put(b"a")
    mine.put(b"b")
    got = [mine.get(), theirs.get()]
    assert sorted(got) == [b"a", b"b"]
    for q in (mine, theirs):
        with pytest.raises(pymqi.MQMIError):
            q.get()
    assert len(dead_letters(qmgr)) == 1


def test_corrupt_record_in_the_callers_unit_of_work_is_moved_on_its_own(setup) -> None:
    """The move is the queue manager's own unit of work: the application's backout
    does not bring the record back, its commit is not needed for the move."""
    world, qmgr, _name, topic = setup
    q = pymqi.Queue(qmgr, "Q.C", IN | OUT)
    q.put(b"one")
    produce(world, topic, TRUNCATED, key=MSGID)
    q.put(b"two")
    sync = pymqi.GMO(Options=C.MQGMO_SYNCPOINT)
    assert q.get(None, pymqi.MD(), sync) == b"one"
    assert q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_SYNCPOINT)) == b"two"
    qmgr.backout()
    assert [d for d, _ in drain(q)] == [b"one", b"two"]
    assert len(dead_letters(qmgr)) == 1


def test_without_a_dead_letter_queue_it_stays_and_the_getter_goes_on(
    world, qmgr, qmgr_name, caplog
) -> None:
    qmgr.define_queue("Q.N")
    topic = naming.data_topic(qmgr_name, "Q.N", 0)
    q = pymqi.Queue(qmgr, "Q.N", IN | OUT)
    produce(world, topic, TRUNCATED, key=MSGID)
    q.put(b"next")
    with caplog.at_level(logging.WARNING, logger="mqk.shim"):
        assert q.get() == b"next"
        with pytest.raises(pymqi.MQMIError) as exc:
            q.get()
    assert exc.value.reason == C.MQRC_NO_MSG_AVAILABLE
    stays = [r for r in caplog.records if "stays on the queue" in r.getMessage()]
    assert len(stays) == 1  # logged once, however many gets pass it
    services = qmgr.get_handle().services
    assert services.dead_letters.counts.undeliverable == 1
    qmgr.get_handle().barrier()
    assert qmgr.queue_status("Q.N")["current_depth"] == 1  # still there
    # A dead-letter queue defined later takes it at the next get.
    qmgr.define_queue("DLQ")
    qmgr.alter_qmgr(dead_letter_q="DLQ")
    with pytest.raises(pymqi.MQMIError):
        q.get()
    assert [h.reason for h, _, _ in dead_letters(qmgr)] == [recordrules.UNREADABLE]
    qmgr.get_handle().barrier()
    assert qmgr.queue_status("Q.N")["current_depth"] == 0


def test_the_records_rule() -> None:
    assert records.unreadable(MSGID, TRUNCATED) is not None
    assert records.unreadable(MSGID, UNKNOWN_VERSION) is not None
    assert records.unreadable(b"K" * 24, TRUNCATED) is None  # not its key: native data
    assert records.unreadable(None, TRUNCATED) is None
    assert records.unreadable(MSGID, envelope()) is None  # readable
    grouped = codec.encode(codec.new_envelope(MsgId=MSGID, GroupId=b"G" * 24))
    assert records.unreadable(b"G" * 24, grouped[:-5]) is not None  # keyed by GroupId


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(value=st.binary(max_size=200), key=st.one_of(st.none(), st.binary(max_size=30)))
def test_any_record_is_an_envelope_a_native_message_or_corrupt(value, key) -> None:
    """Whatever a producer writes, the reader's classification raises nothing."""
    env = records.envelope_of(key, value)
    if env is None:
        records.unreadable(key, value)
    else:
        recordrules.impossible_field(env)


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    priority=st.integers(-(2**31), 2**31 - 1),
    persistence=st.integers(-(2**31), 2**31 - 1),
    msg_type=st.integers(-(2**31), 2**31 - 1),
    flags=st.integers(-(2**31), 2**31 - 1),
)
def test_impossible_fields_are_exactly_what_mqput_refuses(
    priority, persistence, msg_type, flags
) -> None:
    env = codec.new_envelope(
        Priority=priority, Persistence=persistence, MsgType=msg_type, MsgFlags=flags
    )
    got = recordrules.impossible_field(env)
    from adapter.core.mdrules import msg_type_error
    from adapter.core.putrules import flags_error

    expected = (
        C.MQRC_PRIORITY_ERROR
        if priority < 0
        else C.MQRC_PERSISTENCE_ERROR
        if persistence not in (0, 1)
        else msg_type_error(msg_type)
        if msg_type_error(msg_type)
        else flags_error(flags)
    )
    assert (got[0] if got else None) == expected
