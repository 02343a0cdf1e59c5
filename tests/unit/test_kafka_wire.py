"""The disk guard's Kafka wire messages (adapter/shim/kafka_wire.py) against bytes a real
broker sent: recorded once from a private Apache Kafka 4.3.1 node (one log directory,
/tmp/hdisk/node/kafka-data, topics rec.a with 2 partitions and 3 records of 100 bytes,
rec.b with 1 partition and none), by sending the requests below over a plain socket.
Requests are whole frames (size prefix included); responses are frames without their
size prefix, as `response_body` takes them."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapter.shim import kafka_wire as w

# ApiVersions v3 (header v2), correlation id 1, client "mqk-diskguard".
API_VERSIONS_REQ = bytes.fromhex(
    "000000290012000300000001000d6d716b2d6469736b6775617264000e6d716b2d6469736b6775617264023100"
)
API_VERSIONS_RESP = bytes.fromhex(
    "0000000100004c00000000000d000001000400120000020001000b0000030000000d0000080002000a0000"
    "090001000a00000a0000000600000b0000000900000c0000000400000d0000000500000e0000000500000f"
    "000000060000100000000500001100000001000012000000040000130002000700001400010006000015000"
    "000020000160000000500001700020004000018000000050000190000000400001a0000000500001b0001000"
    "200001c0000000500001d0001000300001e0001000300001f0001000300002000010004000021000000020000"
    "22000100020000230001000500002400000002000025000000030000260001000300002700010002000028"
    "000100020000290001000300002a0000000200002b0000000200002c0000000100002d0000000100002e0000"
    "000000002f0000000000003000000001000031000000010000320000000000003300000000000037000000020"
    "000390000000200003c0000000200003d00000000000040000000000000410000000000004200000002000044"
    "000000010000450000000100004a0000000100004b0000000000004c0001000100004d0001000100004e000100"
    "0200004f0001000200005000000001000051000000000000530000000000005400000000000055000000010000"
    "560000000000005700000001000058000000000000590000000000005a0000000100005b0000000000005c00"
    "000000000000000003001702116d657461646174612e76657273696f6e0007001e000108000000000000001702"
    "9101070e67726f75702e76657273696f6e00010001001073747265616d732e76657273696f6e000100010014"
    "7472616e73616374696f6e2e76657273696f6e000200020021656c696769626c652e6c65616465722e726570"
    "6c696361732e76657273696f6e00010001000e73686172652e76657273696f6e0001000100116d6574616461"
    "74612e76657273696f6e001e001e00"
)
# DescribeLogDirs v4, correlation id 2: rec.a [0, 1], rec.b [0], rec.none [0].
DLD_REQ = bytes.fromhex(
    "000000450023000400000002000d6d716b2d6469736b67756172640004067265632e6103000000000000000100"
    "067265632e62020000000000097265632e6e6f6e6502000000000000"
)
DLD_RESP = bytes.fromhex(
    "00000002000000000000000200001b2f746d702f686469736b2f6e6f64652f6b61666b612d6461746103067265"
    "632e62020000000000000000000000000000000000000000000000067265632e61030000000000000000000001"
    "17000000000000000000000000000100000000000000aa00000000000000000000000000003efe39d000000000"
    "11832810000000"
)
# DescribeLogDirs v4, correlation id 3, no topics: the directories alone.
DLD_EMPTY_REQ = bytes.fromhex("0000001a0023000400000003000d6d716b2d6469736b6775617264000100")
DLD_EMPTY_RESP = bytes.fromhex(
    "00000003000000000000000200001b2f746d702f686469736b2f6e6f64652f6b61666b612d6461746101000000"
    "3efe39d00000000011832810000000"
)
# SaslHandshake v1 (header v1) on the PLAINTEXT listener, correlation id 4: refused with
# ILLEGAL_SASL_STATE (34), no mechanisms.
SASL_HANDSHAKE_REQ = bytes.fromhex(
    "000000260011000100000004000d6d716b2d6469736b6775617264000d534352414d2d5348412d353132"
)
SASL_HANDSHAKE_RESP = bytes.fromhex("00000004002200000000")

TOTAL, USABLE = 0x3EFE39D000, 0x1183281000
DIR = "/tmp/hdisk/node/kafka-data"


def test_requests_encode_as_the_broker_took_them() -> None:
    body = w.api_versions_request("mqk-diskguard", "1")
    assert w.request(18, 3, 1, "mqk-diskguard", body, flexible=True) == API_VERSIONS_REQ
    topics = {"rec.a": [0, 1], "rec.b": [0], "rec.none": [0]}
    body = w.describe_log_dirs_request(topics)
    assert w.request(35, 4, 2, "mqk-diskguard", body, flexible=True) == DLD_REQ
    body = w.describe_log_dirs_request({})
    assert w.request(35, 4, 3, "mqk-diskguard", body, flexible=True) == DLD_EMPTY_REQ
    body = w.sasl_handshake_request("SCRAM-SHA-512")
    assert w.request(17, 1, 4, "mqk-diskguard", body, flexible=False) == SASL_HANDSHAKE_REQ


def test_api_versions_response_is_read_with_header_v0_and_its_tagged_features() -> None:
    error, keys = w.api_versions_response(w.response_body(API_VERSIONS_RESP, 1, flexible=False))
    assert error == 0
    assert len(keys) == 75
    assert keys[w.DESCRIBE_LOG_DIRS] == (1, 5)  # 4.3.1: v0 gone (KIP-896), v4 there
    assert keys[w.SASL_HANDSHAKE] == (0, 1)
    assert keys[w.SASL_AUTHENTICATE] == (0, 2)
    assert keys[w.API_VERSIONS] == (0, 4)


def test_describe_log_dirs_response_places_the_partitions_asked_for() -> None:
    got = w.describe_log_dirs_response(w.response_body(DLD_RESP, 2, flexible=True))
    assert (got.throttle_ms, got.error) == (0, 0)
    [d] = got.results
    assert (d.error, d.path, d.total_bytes, d.usable_bytes) == (0, DIR, TOTAL, USABLE)
    # 3 records of 100 bytes: two batches in partition 0 (279 bytes), one in 1 (170);
    # rec.none does not exist and is simply absent.
    assert d.partitions == {("rec.a", 0): 279, ("rec.a", 1): 170, ("rec.b", 0): 0}


def test_describe_log_dirs_without_topics_gives_the_directory_alone() -> None:
    got = w.describe_log_dirs_response(w.response_body(DLD_EMPTY_RESP, 3, flexible=True))
    assert [(d.path, d.total_bytes, d.usable_bytes, d.partitions) for d in got.results] == [
        (DIR, TOTAL, USABLE, {})
    ]


def test_sasl_handshake_response_not_flexible() -> None:
    error, mechanisms = w.sasl_handshake_response(
        w.response_body(SASL_HANDSHAKE_RESP, 4, flexible=False)
    )
    assert (error, mechanisms) == (w.ILLEGAL_SASL_STATE, [])


def test_a_response_to_another_request_is_refused() -> None:
    with pytest.raises(w.WireError, match="expected 7"):
        w.response_body(DLD_RESP, 7, flexible=True)


@pytest.mark.parametrize(
    "frame,corr,read",
    [
        (DLD_RESP, 2, w.describe_log_dirs_response),
        (DLD_EMPTY_RESP, 3, w.describe_log_dirs_response),
        (API_VERSIONS_RESP, 1, w.api_versions_response),
    ],
)
def test_every_truncation_of_a_recorded_response_is_a_wire_error(frame, corr, read) -> None:
    flexible = read is w.describe_log_dirs_response
    for cut in range(4, len(frame)):
        with pytest.raises(w.WireError):
            read(w.response_body(frame[:cut], corr, flexible=flexible))
    with pytest.raises(w.WireError, match="left over"):
        read(w.response_body(frame + b"\x00", corr, flexible=flexible))


@given(st.integers(0, 2**35))
def test_unsigned_varints_round_trip(n: int) -> None:
    r = w.Reader(w.Writer().uvarint(n).bytes())
    assert r.uvarint() == n
    r.done()


# ------------------------------------------------------------- a broker's encoder, for
# the property below: written from DescribeLogDirsResponse.json as a broker would send
# it, with tagged fields the reader does not know (it must skip them).
def _tags(wr: w.Writer, tags: list[bytes]) -> None:
    wr.uvarint(len(tags))
    for i, data in enumerate(tags):
        wr.uvarint(i + 7).uvarint(len(data))
        wr.buf += data


_dirs = st.lists(
    st.tuples(
        st.integers(-1, 2**15 - 1),  # error
        st.text(min_size=1, max_size=30),
        st.integers(-1, 2**62),
        st.integers(-1, 2**62),
        st.dictionaries(
            st.tuples(st.text(min_size=1, max_size=20), st.integers(0, 2**31 - 1)),
            st.integers(0, 2**62),
            max_size=5,
        ),
        st.lists(st.binary(max_size=6), max_size=2),  # unknown tagged fields
    ),
    max_size=4,
)


@settings(max_examples=200)
@given(_dirs, st.integers(0, 2**31 - 1), st.lists(st.binary(max_size=6), max_size=2))
def test_any_describe_log_dirs_response_decodes_to_what_was_encoded(dirs, throttle, tags):
    wr = w.Writer().int32(5).uvarint(0)  # response header v1: correlation id, no tags
    wr.int32(throttle).int16(0).compact_array_length(len(dirs))
    for error, path, total, usable, parts, dir_tags in dirs:
        wr.int16(error).compact_string(path)
        by_topic: dict[str, list[tuple[int, int]]] = {}
        for (topic, index), size in parts.items():
            by_topic.setdefault(topic, []).append((index, size))
        wr.compact_array_length(len(by_topic))
        for topic, entries in by_topic.items():
            wr.compact_string(topic).compact_array_length(len(entries))
            for index, size in entries:
                wr.int32(index).int64(size).int64(0).int8(0)
                _tags(wr, [])
            _tags(wr, [])
        wr.int64(total).int64(usable)
        _tags(wr, dir_tags)
    _tags(wr, tags)
    got = w.describe_log_dirs_response(w.response_body(wr.bytes(), 5, flexible=True))
    assert got.throttle_ms == throttle
    assert [
        (d.error, d.path, d.total_bytes, d.usable_bytes, d.partitions) for d in got.results
    ] == [(e, p, t, u, parts) for e, p, t, u, parts, _ in dirs]
