"""Unit tests for the Avro message envelope (avro/mq_envelope.avsc, mqk_avro.codec)."""

from __future__ import annotations

import contextlib
import copy
import datetime as dt
import io
import json

import fastavro
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mqk_avro import codec

from adapter.core import cmqc as C  # noqa: N812

INT32 = st.integers(min_value=-(2**31), max_value=2**31 - 1)
INT64 = st.integers(min_value=-(2**63), max_value=2**63 - 1)
BOUNDARY_INT32 = st.sampled_from(
    [-(2**31), -(2**31) + 1, -65, -64, -1, 0, 1, 63, 64, 8191, 8192, 2**31 - 2, 2**31 - 1]
)
MQ_INT = st.one_of(BOUNDARY_INT32, INT32)
MQ_STR = st.text(max_size=60)  # any unicode, including NUL and astral characters

EXPECTED_FIELDS = [
    "MsgId",
    "CorrelId",
    "GroupId",
    "AccountingToken",
    "MsgSeqNumber",
    "Offset",
    "MsgFlags",
    "OriginalLength",
    "Persistence",
    "Priority",
    "Expiry",
    "PutTimestamp",
    "Format",
    "CodedCharSetId",
    "Encoding",
    "MsgType",
    "Report",
    "Feedback",
    "ReplyToQ",
    "ReplyToQMgr",
    "UserIdentifier",
    "ApplIdentityData",
    "PutApplType",
    "PutApplName",
    "ApplOriginData",
    "BackoutCount",
    "Payload",
    "Properties",
]


@st.composite
def envelopes(draw: st.DrawFn) -> dict:
    return {
        "MsgId": draw(st.binary(min_size=24, max_size=24)),
        "CorrelId": draw(st.binary(min_size=24, max_size=24)),
        "GroupId": draw(st.binary(min_size=24, max_size=24)),
        "AccountingToken": draw(st.binary(min_size=32, max_size=32)),
        "MsgSeqNumber": draw(MQ_INT),
        "Offset": draw(MQ_INT),
        "MsgFlags": draw(MQ_INT),
        "OriginalLength": draw(MQ_INT),
        "Persistence": draw(MQ_INT),
        "Priority": draw(MQ_INT),
        "Expiry": draw(MQ_INT),
        "PutTimestamp": draw(st.one_of(st.sampled_from([-(2**63), 0, 2**63 - 1]), INT64)),
        "Format": draw(MQ_STR),
        "CodedCharSetId": draw(MQ_INT),
        "Encoding": draw(MQ_INT),
        "MsgType": draw(MQ_INT),
        "Report": draw(MQ_INT),
        "Feedback": draw(MQ_INT),
        "ReplyToQ": draw(MQ_STR),
        "ReplyToQMgr": draw(MQ_STR),
        "UserIdentifier": draw(MQ_STR),
        "ApplIdentityData": draw(MQ_STR),
        "PutApplType": draw(MQ_INT),
        "PutApplName": draw(MQ_STR),
        "ApplOriginData": draw(MQ_STR),
        "BackoutCount": draw(MQ_INT),
        "Payload": draw(
            st.one_of(
                st.binary(max_size=300),
                st.sampled_from([b"", b"\x00", b"\x00" * 1000, bytes(range(256)) * 70]),
            )
        ),
        "Properties": draw(st.binary(max_size=40)),
    }


def fastavro_encode(env: dict) -> bytes:
    bio = io.BytesIO()
    bio.write(bytes([codec.SCHEMA_VERSION]))
    fastavro.schemaless_writer(bio, codec.SCHEMAS[codec.SCHEMA_VERSION], env, strict=True)
    return bio.getvalue()


# ---------------------------------------------------------------------------------------
# Schema


def test_schema_shape_names_and_docs() -> None:
    schema = json.loads(codec.SCHEMA_PATH.read_text(encoding="utf-8"))
    assert schema["type"] == "record"
    assert schema["namespace"] == "io.mqk.envelope"
    assert schema["name"] == "MQMessage"
    assert schema["doc"].strip()
    assert [f["name"] for f in schema["fields"]] == EXPECTED_FIELDS
    assert list(codec.FIELD_NAMES) == EXPECTED_FIELDS
    for field in schema["fields"]:
        assert field.get("doc", "").strip(), f"{field['name']} has no doc"
        assert "default" in field, f"{field['name']} has no default"
    fastavro.parse_schema(schema)  # valid Avro, defaults included


def test_schema_types() -> None:
    schema = json.loads(codec.SCHEMA_PATH.read_text(encoding="utf-8"))
    types = {f["name"]: f["type"] for f in schema["fields"]}
    assert types["MsgId"] == {
        "type": "fixed",
        "name": "MQBYTE24",
        "size": 24,
        "doc": types["MsgId"]["doc"],
    }
    assert types["CorrelId"] == "MQBYTE24"
    assert types["GroupId"] == "MQBYTE24"
    assert types["AccountingToken"]["type"] == "fixed"
    assert types["AccountingToken"]["name"] == "MQBYTE32"
    assert types["AccountingToken"]["size"] == 32
    assert types["PutTimestamp"] == {"type": "long", "logicalType": "timestamp-millis"}
    assert types["Payload"] == "bytes"
    assert types["Properties"] == "bytes"
    for name in ("Format", "ReplyToQ", "ReplyToQMgr", "UserIdentifier", "ApplIdentityData"):
        assert types[name] == "string"
    for name in ("PutApplName", "ApplOriginData"):
        assert types[name] == "string"
    ints = set(EXPECTED_FIELDS) - {
        "MsgId",
        "CorrelId",
        "GroupId",
        "AccountingToken",
        "PutTimestamp",
        "Payload",
        "Properties",
        "Format",
        "ReplyToQ",
        "ReplyToQMgr",
        "UserIdentifier",
        "ApplIdentityData",
        "PutApplName",
        "ApplOriginData",
    }
    assert all(types[n] == "int" for n in ints)


def test_schema_defaults_are_mq_defaults() -> None:
    d = codec.DEFAULTS
    assert d["MsgId"] == C.MQMI_NONE
    assert d["CorrelId"] == C.MQCI_NONE
    assert d["GroupId"] == C.MQGI_NONE
    assert d["AccountingToken"] == b"\0" * 32
    assert d["MsgSeqNumber"] == 1
    assert d["Offset"] == 0
    assert d["MsgFlags"] == C.MQMF_NONE
    assert d["OriginalLength"] == C.MQOL_UNDEFINED
    assert d["Expiry"] == C.MQEI_UNLIMITED
    assert d["Format"] == C.MQFMT_NONE.decode()
    assert d["CodedCharSetId"] == C.MQCCSI_Q_MGR
    assert d["Encoding"] == C.MQENC_NATIVE
    assert d["MsgType"] == C.MQMT_DATAGRAM
    assert d["Report"] == C.MQRO_NONE
    assert d["Feedback"] == C.MQFB_NONE
    assert d["PutApplType"] == C.MQAT_NO_CONTEXT
    assert d["BackoutCount"] == 0
    assert d["Priority"] == 0
    assert d["Persistence"] == C.MQPER_NOT_PERSISTENT
    assert d["Payload"] == b""
    assert d["PutTimestamp"] == 0


def test_schema_evolution_defaults_fill_missing_fields(monkeypatch: pytest.MonkeyPatch) -> None:
    """Data from an (older) writer schema that lacked fields reads with the MQ defaults."""
    old = copy.deepcopy(codec.SCHEMA)
    old["fields"] = [f for f in old["fields"] if f["name"] in ("MsgId", "Priority", "Payload")]
    parsed_old = fastavro.parse_schema(old)
    monkeypatch.setitem(codec.SCHEMAS, 9, parsed_old)
    bio = io.BytesIO()
    bio.write(b"\x09")
    fastavro.schemaless_writer(
        bio, parsed_old, {"MsgId": b"M" * 24, "Priority": 4, "Payload": b"d"}
    )
    rec = codec.decode(bio.getvalue())
    assert rec == codec.new_envelope(MsgId=b"M" * 24, Priority=4, Payload=b"d")
    assert type(rec["GroupId"]) is bytes and type(rec["AccountingToken"]) is bytes


# ---------------------------------------------------------------------------------------
# new_envelope


def test_new_envelope_defaults() -> None:
    env = codec.new_envelope()
    assert set(env) == set(EXPECTED_FIELDS)
    assert env["MsgId"] == env["CorrelId"] == env["GroupId"] == b"\0" * 24
    assert env["MsgSeqNumber"] == 1
    assert env["Offset"] == 0
    assert env["Format"] == "        "
    assert env["Priority"] == 0
    assert env["Persistence"] == 0
    assert env["Expiry"] == -1
    assert env["MsgType"] == 8
    assert env["Encoding"] == 546
    assert env["CodedCharSetId"] == 0
    assert env["OriginalLength"] == -1
    assert env["Payload"] == b""


def test_new_envelope_overrides_and_independence() -> None:
    a = codec.new_envelope(Priority=5, Payload=b"x")
    b = codec.new_envelope()
    assert a["Priority"] == 5 and a["Payload"] == b"x"
    assert b["Priority"] == 0
    a["Format"] = "MQSTR   "
    assert codec.new_envelope()["Format"] == "        "


def test_new_envelope_unknown_field() -> None:
    with pytest.raises(TypeError, match="MsgID"):
        codec.new_envelope(MsgID=b"x" * 24)


# ---------------------------------------------------------------------------------------
# Round trips

FIXED_EXAMPLES = [
    codec.new_envelope(),
    codec.new_envelope(
        MsgId=b"AMQ QM1         \x01\x02\x03\x04\x05\x06\x07\x08",
        CorrelId=b"\x00" * 23 + b"\x01",
        GroupId=b"G" * 24,
        MsgSeqNumber=3,
        Offset=4096,
        MsgFlags=C.MQMF_MSG_IN_GROUP | C.MQMF_SEGMENT,
        Persistence=C.MQPER_PERSISTENT,
        Priority=9,
        Expiry=600,
        PutTimestamp=1_700_000_000_123,
        Format="MQSTR   ",
        CodedCharSetId=1208,
        MsgType=C.MQMT_REQUEST,
        Report=C.MQRO_COA,
        ReplyToQ="REPLY.Q",
        ReplyToQMgr="QM1",
        UserIdentifier="app",
        ApplIdentityData="idata",
        PutApplType=6,
        PutApplName="python3",
        ApplOriginData="orig",
        BackoutCount=2,
        Payload="héllo wörld €".encode(),
    ),
    codec.new_envelope(Payload=b"\x00" * 5, ReplyToQ="Q\x00WITH\x00NUL", Format="日本語"),
    codec.new_envelope(Payload=bytes(range(256)) * 4096),  # 1 MiB
    codec.new_envelope(
        MsgSeqNumber=2**31 - 1,
        Offset=-(2**31),
        Expiry=2**31 - 1,
        Feedback=-(2**31),
        PutTimestamp=-(2**63),
    ),
    codec.new_envelope(PutTimestamp=2**63 - 1, Encoding=8191, CodedCharSetId=8192),
]


@pytest.mark.parametrize("env", FIXED_EXAMPLES, ids=range(len(FIXED_EXAMPLES)))
def test_round_trip_fixed_examples(env: dict) -> None:
    data = codec.encode(env)
    assert data[0] == codec.SCHEMA_VERSION == 2
    assert codec.decode(data) == env
    assert data == fastavro_encode(env)


def test_encoded_size_small() -> None:
    env = codec.new_envelope(Payload=b"x" * 1024)
    # 1 version byte + 104 fixed bytes + mostly 1-byte varints + payload.
    assert len(codec.encode(env)) < 1024 + 160


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(envelopes())
def test_round_trip_property(env: dict) -> None:
    data = codec.encode(env)
    assert data[0] == codec.SCHEMA_VERSION
    out = codec.decode(data)
    assert out == env
    assert list(out) == EXPECTED_FIELDS
    for name in ("MsgId", "CorrelId", "GroupId", "AccountingToken", "Payload"):
        assert type(out[name]) is bytes


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(envelopes())
def test_encoder_is_byte_identical_to_fastavro(env: dict) -> None:
    assert codec.encode(env) == fastavro_encode(env)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(envelopes())
def test_reader_with_published_schema_reads_field_for_field(env: dict) -> None:
    """Data written by the codec reads back with the .avsc itself (logical types on)."""
    data = codec.encode(env)
    if not -62_135_596_800_000 <= env["PutTimestamp"] <= 253_402_300_799_999:
        env["PutTimestamp"] = 0  # outside datetime's range (years 1-9999): int tests cover it
        data = codec.encode(env)
    bio = io.BytesIO(data[1:])
    rec = fastavro.schemaless_reader(bio, codec.PARSED_SCHEMA)
    assert bio.tell() == len(data) - 1
    for name in EXPECTED_FIELDS:
        if name == "PutTimestamp":
            continue
        assert rec[name] == env[name], name
    # fastavro's fallback path of the codec agrees with the generated decoder.
    assert codec._decode_fastavro(codec.SCHEMA_VERSION, data) == codec.decode(data)


def test_put_timestamp_logical_type_value() -> None:
    millis = 1_700_000_000_123
    data = codec.encode(codec.new_envelope(PutTimestamp=millis))
    rec = fastavro.schemaless_reader(io.BytesIO(data[1:]), codec.PARSED_SCHEMA)
    assert rec["PutTimestamp"] == dt.datetime(2023, 11, 14, 22, 13, 20, 123000, tzinfo=dt.UTC)


def test_encode_accepts_datetime_timestamp() -> None:
    when = dt.datetime(2024, 2, 29, 12, 0, 0, 5000, tzinfo=dt.UTC)
    millis = int(when.timestamp() * 1000)
    out = codec.decode(codec.encode(codec.new_envelope(PutTimestamp=when)))
    assert out["PutTimestamp"] == millis
    naive = when.replace(tzinfo=None)
    assert (
        codec.decode(codec.encode(codec.new_envelope(PutTimestamp=naive)))["PutTimestamp"] == millis
    )


def test_encode_fills_missing_fields_with_defaults() -> None:
    out = codec.decode(codec.encode({"Payload": b"abc", "Priority": 7}))
    assert out == codec.new_envelope(Payload=b"abc", Priority=7)


def test_encode_accepts_bytearray_and_memoryview() -> None:
    env = codec.new_envelope(MsgId=bytearray(b"m" * 24), Payload=memoryview(b"pay"))
    out = codec.decode(codec.encode(env))
    assert out["MsgId"] == b"m" * 24 and out["Payload"] == b"pay"


def test_decode_accepts_bytearray_and_memoryview() -> None:
    env = codec.new_envelope(Payload=b"x")
    data = codec.encode(env)
    assert codec.decode(bytearray(data)) == env
    assert codec.decode(memoryview(data)) == env


def test_bool_and_intenum_values_encode_as_ints() -> None:
    import enum

    class P(enum.IntEnum):
        HIGH = 9

    out = codec.decode(codec.encode(codec.new_envelope(Priority=P.HIGH, Persistence=True)))
    assert out["Priority"] == 9 and out["Persistence"] == 1


# ---------------------------------------------------------------------------------------
# Encode errors


@pytest.mark.parametrize(
    ("field", "value", "match"),
    [
        ("MsgId", b"short", "MsgId.*exactly 24 bytes"),
        ("MsgId", b"x" * 25, "MsgId.*exactly 24 bytes"),
        ("CorrelId", "a str of 24 characters!!", "CorrelId.*expected 24 bytes"),
        ("AccountingToken", b"\0" * 24, "AccountingToken.*exactly 32 bytes"),
        ("Priority", 2**31, "Priority.*32-bit"),
        ("Expiry", -(2**31) - 1, "Expiry.*32-bit"),
        ("PutTimestamp", 2**63, "PutTimestamp.*64-bit"),
        ("Priority", 1.0, "Priority.*int"),
        ("Priority", "5", "Priority.*int"),
        ("Priority", None, "Priority.*int"),
        ("Format", b"MQSTR   ", "Format.*str"),
        ("ReplyToQ", None, "ReplyToQ.*str"),
        ("Payload", "text", "Payload.*bytes"),
        ("Payload", None, "Payload.*bytes"),
        ("UserIdentifier", "\ud800", "UserIdentifier.*UTF-8"),
    ],
)
def test_encode_rejects_bad_values(field: str, value: object, match: str) -> None:
    env = codec.new_envelope()
    env[field] = value
    with pytest.raises(codec.EnvelopeError, match=match):
        codec.encode(env)


def test_encode_rejects_unknown_fields_and_non_dicts() -> None:
    with pytest.raises(codec.EnvelopeError, match="MsgID"):
        codec.encode({**codec.new_envelope(), "MsgID": b"x"})
    env = codec.new_envelope()
    del env["MsgId"]
    env["Msgid"] = b"\0" * 24  # typo with the same number of keys
    with pytest.raises(codec.EnvelopeError, match="Msgid"):
        codec.encode(env)
    with pytest.raises(codec.EnvelopeError, match="dict"):
        codec.encode(None)  # type: ignore[arg-type]


def test_envelope_error_is_value_error() -> None:
    assert issubclass(codec.EnvelopeError, ValueError)


# ---------------------------------------------------------------------------------------
# Version byte and garbage


def test_version_byte() -> None:
    data = codec.encode(codec.new_envelope())
    assert codec.version_of(data) == 2
    assert set(codec.SCHEMAS) == {1, 2}
    with pytest.raises(codec.EnvelopeError):
        codec.version_of(b"")


@pytest.mark.parametrize("version", [0, 3, 99, 255])
def test_unknown_version_byte(version: int) -> None:
    data = bytes([version]) + codec.encode(codec.new_envelope())[1:]
    with pytest.raises(codec.EnvelopeError, match=f"unknown envelope schema version {version}"):
        codec.decode(data)


def test_registered_older_version_reads_through_fastavro(monkeypatch: pytest.MonkeyPatch) -> None:
    """A version in the registry other than the current one goes through schema resolution."""
    monkeypatch.setitem(codec.SCHEMAS, 7, codec.SCHEMAS[codec.SCHEMA_VERSION])
    env = codec.new_envelope(Payload=b"old", Priority=3)
    data = bytes([7]) + codec.encode(env)[1:]
    assert codec.decode(data) == env
    with pytest.raises(codec.EnvelopeError, match="truncated or corrupt"):
        codec.decode(data[:-2])
    with pytest.raises(codec.EnvelopeError, match="trailing"):
        codec.decode(data + b"\0")


def test_a_version_1_envelope_reads_with_no_properties() -> None:
    """Records written before schema version 2 (no Properties field) still decode."""
    env = codec.new_envelope(Payload=b"old", Priority=4)
    v1 = {k: v for k, v in env.items() if k != "Properties"}
    bio = io.BytesIO()
    bio.write(b"\x01")
    fastavro.schemaless_writer(bio, codec.SCHEMAS[1], v1, strict=True)
    out = codec.decode(bio.getvalue())
    assert out == env and out["Properties"] == b""
    assert list(out) == list(env)


def test_empty_input() -> None:
    with pytest.raises(codec.EnvelopeError, match="empty"):
        codec.decode(b"")


def test_non_bytes_input() -> None:
    with pytest.raises(codec.EnvelopeError, match="bytes"):
        codec.decode("\x01abc")  # type: ignore[arg-type]
    with pytest.raises(codec.EnvelopeError, match="bytes"):
        codec.decode(None)  # type: ignore[arg-type]


def test_every_truncation_is_an_envelope_error() -> None:
    data = codec.encode(FIXED_EXAMPLES[1])
    for cut in range(1, len(data)):
        with pytest.raises(codec.EnvelopeError):
            codec.decode(data[:cut])


def test_trailing_bytes_rejected() -> None:
    data = codec.encode(codec.new_envelope(Payload=b"abc"))
    with pytest.raises(codec.EnvelopeError, match="trailing"):
        codec.decode(data + b"\x00")


def test_negative_length_rejected() -> None:
    env = codec.new_envelope()
    data = bytearray(codec.encode(env))
    # The last byte is the Payload length (0 -> b"\x00"); make it -1 (zigzag 1).
    assert data[-1] == 0
    data[-1] = 1
    with pytest.raises(codec.EnvelopeError, match="negative length"):
        codec.decode(bytes(data))


def test_invalid_utf8_rejected() -> None:
    env = codec.new_envelope(Format="ABCDEFGH")
    data = codec.encode(env)
    bad = data.replace(b"ABCDEFGH", b"ABCDEFG\xff")
    with pytest.raises(codec.EnvelopeError, match="UnicodeDecodeError"):
        codec.decode(bad)


def test_overlong_varint_rejected() -> None:
    prefix = codec.encode(codec.new_envelope())[:105]  # version + 104 fixed bytes
    with pytest.raises(codec.EnvelopeError):
        codec.decode(prefix + b"\xff" * 20)
    # An int field holding a value outside the 32-bit range.
    big = codec._zigzag_varint(2**40)
    with pytest.raises(codec.EnvelopeError, match="out of int range"):
        codec.decode(prefix + big + b"\0" * 40)


@settings(max_examples=500)
@given(st.binary(max_size=400))
def test_garbage_never_escapes_as_other_exception(blob: bytes) -> None:
    for data in (blob, b"\x01" + blob):
        try:
            out = codec.decode(data)
        except codec.EnvelopeError:
            continue
        # Whatever decodes must be a well-formed envelope (non-canonical varints may
        # re-encode shorter, so compare values, not bytes).
        assert codec.decode(codec.encode(out)) == out


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(envelopes(), st.data())
def test_corrupted_envelopes_never_escape_as_other_exception(
    env: dict, data: st.DataObject
) -> None:
    raw = bytearray(codec.encode(env))
    i = data.draw(st.integers(min_value=1, max_value=len(raw) - 1))
    raw[i] = data.draw(st.integers(min_value=0, max_value=255))
    with contextlib.suppress(codec.EnvelopeError):
        codec.decode(bytes(raw))
