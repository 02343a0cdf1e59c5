"""MQRFH2 bytes and folders, properties through MQRFH2, and properties as Kafka headers."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapter.core import cmqc as C  # noqa: N812
from adapter.core.errors import MQMIError
from adapter.core.kafkaheaders import TYPES_HEADER, from_headers, to_headers
from adapter.core.properties import MessageProperties, descriptor_properties
from adapter.core.rfh2 import (
    Folder,
    Rfh2,
    build_message,
    decode_chain,
    decode_header,
    encode_header,
    folders_from_properties,
    parse_message,
    properties_from_folders,
)
from tests.unit.test_properties import NAMES, typed_values


def reason(fn, *args, **kw) -> int:
    with pytest.raises(MQMIError) as info:
        fn(*args, **kw)
    return info.value.reason


# -- byte layout ----------------------------------------------------------------------


@pytest.mark.parametrize("int_encoding,order", [(C.MQENC_NATIVE, "<"), (C.MQENC_NORMAL, ">")])
def test_layout_padding_and_struc_length(int_encoding, order):
    header = Rfh2([Folder("<usr><a>1</a></usr>")], C.MQENC_NATIVE, 1208, C.MQFMT_STRING)
    data = encode_header(header, int_encoding)
    folder = b"<usr><a>1</a></usr>"  # 19 bytes, padded to 20 with a blank
    assert len(data) == 36 + 4 + 20
    assert data[:36] == struct.pack(
        order + "4siiii8sii", b"RFH ", 2, 60, C.MQENC_NATIVE, 1208, b"MQSTR   ", 0, 1208
    )
    assert data[36:40] == struct.pack(order + "i", 20)
    assert data[40:] == folder + b" "
    back, length = decode_header(data, int_encoding)
    assert length == 60 and back == header
    assert decode_header(data)[0] == header  # endianness guessed from Version


def test_folders_already_a_multiple_of_4_are_not_padded():
    data = encode_header(Rfh2([Folder("<usr></usr>"), Folder("<jms><a>1</a></jms>x")]))
    assert struct.unpack("<i", data[36:40])[0] == 12  # 11 -> 12
    assert struct.unpack("<i", data[52:56])[0] == 20  # 20 stays 20
    assert struct.unpack("<i", data[8:12])[0] == len(data) == 36 + 16 + 24


def _big_endian_header(folders: list[bytes], fmt: bytes) -> bytes:
    """An MQRFH2 built field by field, big-endian (MQENC_NORMAL 273) as a z/OS or AIX
    sender writes it: each folder padded with blanks to a multiple of 4."""
    body = b""
    for folder in folders:
        padded = folder + b" " * (-len(folder) % 4)
        body += struct.pack(">i", len(padded)) + padded
    fixed = struct.pack(">4siiii8sii", b"RFH ", 2, 36 + len(body), 273, 1208, fmt, 0, 1208)
    return fixed + body


BODY = b"<order><id>7</id></order>"
PSC = b"<psc><Command>RegSub</Command><Topic>prices/eur</Topic></psc>"
APP_FOLDER = b"<appFolder><step>2</step></appFolder>"
MCD = b"<mcd><Msd>xmlnsc</Msd></mcd>"


def test_a_big_endian_header_with_non_property_folders():
    data = _big_endian_header([PSC, APP_FOLDER, MCD], b"MQSTR   ") + BODY
    header, length = decode_header(data, C.MQENC_NORMAL)
    assert length == len(data) - len(BODY) and header.encoding == 273 and header.ccsid == 1208
    assert header.format == b"MQSTR   " and header.name_value_ccsid == 1208
    assert [f.name for f in header.folders] == ["psc", "appFolder", "mcd"]
    msg = parse_message(data, C.MQFMT_RF_HEADER_2, C.MQENC_NORMAL)
    assert [(p.name, p.type, p.value) for p in msg.properties] == [
        ("mcd.Msd", C.MQTYPE_STRING, "xmlnsc")
    ]
    assert [f.name for f in msg.headers[0].folders] == ["psc", "appFolder"]  # not properties
    assert msg.format == b"MQSTR   "
    assert msg.body == BODY
    assert encode_header(header, C.MQENC_NORMAL) == data[:length]  # byte for byte


def test_chained_big_endian_headers():
    first = _big_endian_header([PSC], C.MQFMT_RF_HEADER_2)
    second = _big_endian_header([APP_FOLDER, MCD], b"MQSTR   ")
    data = first + second + BODY
    headers, fmt, encoding, rest = decode_chain(data, C.MQFMT_RF_HEADER_2, C.MQENC_NORMAL)
    assert len(headers) == 2 and headers[0].format == C.MQFMT_RF_HEADER_2
    assert fmt == b"MQSTR   " and encoding == 273
    assert rest == BODY
    again = b"".join(encode_header(h, C.MQENC_NORMAL) for h in headers) + rest
    assert again == data


def test_chain_with_mixed_encodings():
    inner = Rfh2([Folder("<usr><b dt='i4'>2</b></usr>")], C.MQENC_NATIVE, 1208, C.MQFMT_STRING)
    outer = Rfh2([Folder("<usr><a>x</a></usr>")], C.MQENC_NORMAL, 1208, C.MQFMT_RF_HEADER_2)
    data = encode_header(outer, C.MQENC_NATIVE) + encode_header(inner, C.MQENC_NORMAL) + b"hi"
    msg = parse_message(data, C.MQFMT_RF_HEADER_2, C.MQENC_NATIVE)
    assert [(p.name, p.value) for p in msg.properties] == [("usr.a", "x"), ("usr.b", 2)]
    assert (msg.format, msg.encoding, msg.body) == (C.MQFMT_STRING, C.MQENC_NATIVE, b"hi")


def test_not_an_rfh2_body_is_left_alone():
    msg = parse_message(b"plain", C.MQFMT_STRING)
    assert len(msg.properties) == 0 and msg.headers == [] and msg.body == b"plain"


@pytest.mark.parametrize(
    "mangle",
    [
        lambda d: b"RFX " + d[4:],  # StrucId
        lambda d: d[:4] + struct.pack("<i", 1) + d[8:],  # Version 1
        lambda d: d[:8] + struct.pack("<i", 20) + d[12:],  # StrucLength < 36
        lambda d: d[:8] + struct.pack("<i", len(d) + 4) + d[12:],  # past the end
        lambda d: d[:36] + struct.pack("<i", 400) + d[40:],  # NameValueLength past the end
        lambda d: d[:20],  # too short
    ],
)
def test_malformed_headers_give_2334(mangle):
    data = encode_header(Rfh2([Folder("<usr><a>1</a></usr>")]))
    assert reason(decode_header, mangle(data), C.MQENC_NATIVE) == C.MQRC_RFH_ERROR


@pytest.mark.parametrize(
    "xml",
    [
        "<usr><a>1</usr>",
        "<usr><a dt='i4'>one</a></usr>",
        "<usr><a dt='i1'>300</a></usr>",
        "<usr><a dt='boolean'>maybe</a></usr>",
        "<usr><a dt='bin.hex'>zz</a></usr>",
        "<usr><a>&nope;</a></usr>",
        "usr",
        "<usr></usr><jms></jms>",
    ],
)
def test_unreadable_folders_give_2421(xml):
    assert reason(properties_from_folders, [Folder(xml)]) == C.MQRC_RFH_FORMAT_ERROR


# -- folders as MQ writes them ----------------------------------------------------------


def test_folders_from_properties():
    p = MessageProperties()
    p.set("Color", "red & <blue>")
    p.set("Count", 5, C.MQTYPE_INT32)
    p.set("JMSCorrelationID", "abc")
    p.set("JMSType", "t")
    p.set("app.grp.x", b"\x01\xab", C.MQTYPE_BYTE_STRING)
    p.set("mq_usr.flag", True, C.MQTYPE_BOOLEAN)
    p.set("n", None, C.MQTYPE_NULL)
    p.set("f", 1.5, C.MQTYPE_FLOAT32)
    p.set("d", 2.25, C.MQTYPE_FLOAT64)
    p.set("s", -3, C.MQTYPE_INT16)
    p.set("t", -4, C.MQTYPE_INT8)
    p.set("l", 1 << 40, C.MQTYPE_INT64)
    p.set("Root.MQMD.Priority", 4, C.MQTYPE_INT32)  # a descriptor field: no folder
    assert [f.xml for f in folders_from_properties(p)] == [
        "<mcd><Type>t</Type></mcd>",
        "<jms><Cid>abc</Cid></jms>",
        "<usr><Color>red &amp; &lt;blue&gt;</Color><Count dt='i4'>5</Count>"
        "<n xsi:nil='true'></n><f dt='r4'>1.5</f><d dt='r8'>2.25</d><s dt='i2'>-3</s>"
        "<t dt='i1'>-4</t><l dt='i8'>1099511627776</l></usr>",
        "<app content='properties'><grp><x dt='bin.hex'>01AB</x></grp></app>",
        "<mq_usr><flag dt='boolean'>1</flag></mq_usr>",
    ]


def test_reading_folders_other_writers_produce():
    folders = [
        Folder('<usr><a dt="int">7</a><b dt="boolean">true</b><c/><d dt="r8">NaN</d></usr>'),
        Folder("<jms><Dst>queue:///Q</Dst><Tms>1700000000000</Tms><Dlv>2</Dlv></jms>"),
        Folder("<other content='properties'><g><h>&#65;&#x42;&quot;</h></g></other>"),
        Folder("<psc><Command>RegSub</Command></psc>"),
        Folder("<usr><e dt='weird'>w</e></usr>"),
    ]
    props, others = properties_from_folders(folders)
    got = {p.name: (p.type, p.value) for p in props}
    assert got["usr.a"] == (C.MQTYPE_INT64, 7)  # int is i8
    assert got["usr.b"] == (C.MQTYPE_BOOLEAN, True)
    assert got["usr.c"] == (C.MQTYPE_STRING, "")
    assert got["usr.d"][1] != got["usr.d"][1]  # NaN
    assert got["jms.Dst"] == (C.MQTYPE_STRING, "queue:///Q")
    assert got["jms.Tms"] == (C.MQTYPE_STRING, "1700000000000")  # no dt: a string
    assert got["other.g.h"] == (C.MQTYPE_STRING, 'AB"')
    assert got["usr.e"] == (C.MQTYPE_STRING, "w")  # unknown dt: its text
    assert [f.name for f in others] == ["psc"]
    assert props.inquire("JMSDestination").value == "queue:///Q"


def test_build_message_then_parse():
    p = MessageProperties()
    p.set("Color", "red")
    p.set("Count", 5, C.MQTYPE_INT32)
    data = build_message(p, b"body", C.MQFMT_STRING, C.MQENC_NATIVE, 1208, C.MQENC_NORMAL)
    assert data[:8] == b"RFH \x00\x00\x00\x02"  # big-endian as asked
    msg = parse_message(data, C.MQFMT_RF_HEADER_2, C.MQENC_NORMAL)
    assert msg.properties == p and msg.body == b"body" and msg.format == C.MQFMT_STRING


# -- Kafka headers ----------------------------------------------------------------------


def test_to_headers_names_and_values():
    p = MessageProperties()
    p.set("Color", "red")
    p.set("Count", 5, C.MQTYPE_INT32)
    p.set("Flag", True, C.MQTYPE_BOOLEAN)
    p.set("JMSCorrelationID", "mine")
    p.set("JMSXGroupSeq", 2, C.MQTYPE_INT32)
    p.set("raw", b"\xff\x00", C.MQTYPE_BYTE_STRING)
    p.set("nothing", None, C.MQTYPE_NULL)
    p.set("app.x", 1.5, C.MQTYPE_FLOAT64)
    md = {"Priority": 4, "Persistence": 1, "CorrelId": b"c", "UserIdentifier": b"u"}
    headers = to_headers(p, descriptor_properties(md))
    assert headers == [
        ("JMSDeliveryMode", b"2"),
        ("JMSPriority", b"4"),
        ("JMSXUserID", b"u"),
        ("Color", b"red"),
        ("Count", b"5"),
        ("Flag", b"true"),
        ("JMSCorrelationID", b"mine"),  # the property wins over the MQMD's
        ("JMSXGroupSeq", b"2"),
        ("raw", b"\xff\x00"),
        ("nothing", None),
        ("app.x", b"1.5"),
        (
            TYPES_HEADER,
            b"Count=i4;Flag=boolean;JMSXGroupSeq=i4;raw=bin.hex;nothing=null;app.x=r8",
        ),
    ]
    back = from_headers(headers)
    assert back.properties == p
    assert back.descriptor == {"JMSDeliveryMode": "2", "JMSPriority": "4", "JMSXUserID": "u"}
    assert back.skipped == []


def test_plain_kafka_headers():
    got = from_headers(
        [
            ("traceparent", b"00-abc"),
            (b"blob", b"\xff\xfe"),
            ("empty", None),
            ("content-type", b"json"),  # not an MQ property name
            ("JMSXGroupSeq", b"7"),  # a JMS name with a fixed type
            ("JMSXGroupID", "g1"),
            ("JMSPriority", b"3"),
            ("JMSXGroupSeq2", b"x"),  # JMS prefix, unknown
            ("again", b"1"),
            ("again", b"2"),
        ]
    )
    p = {x.name: (x.type, x.value) for x in got.properties}
    assert p == {
        "usr.traceparent": (C.MQTYPE_STRING, "00-abc"),
        "usr.blob": (C.MQTYPE_BYTE_STRING, b"\xff\xfe"),
        "usr.empty": (C.MQTYPE_NULL, None),
        "jms.Seq": (C.MQTYPE_INT32, 7),
        "jms.Gid": (C.MQTYPE_STRING, "g1"),
        "usr.again": (C.MQTYPE_STRING, "2"),
    }
    assert got.descriptor == {"JMSPriority": "3"}
    assert got.skipped == ["content-type", "JMSXGroupSeq2"]


def test_a_header_that_does_not_read_as_its_type_is_skipped():
    got = from_headers([("n", b"abc"), (TYPES_HEADER, b"n=i4")])
    assert len(got.properties) == 0 and got.skipped == ["n"]


# -- property-based round trips ---------------------------------------------------------

PROPS = st.dictionaries(NAMES, typed_values(), max_size=8)


def _store(props) -> MessageProperties:
    p = MessageProperties()
    for name, (ptype, value) in props.items():
        p.set(name, value, ptype)
    return p


@given(PROPS, st.sampled_from([C.MQENC_NATIVE, C.MQENC_NORMAL]), st.binary(max_size=20))
def test_properties_round_trip_through_rfh2(props, int_encoding, body):
    p = _store(props)
    data = build_message(p, body, C.MQFMT_NONE, int_encoding=int_encoding)
    assert len(data) % 4 == len(body) % 4  # the header is a multiple of 4 bytes
    msg = parse_message(data, C.MQFMT_RF_HEADER_2, int_encoding)
    assert msg.properties == p and msg.body == body


@given(PROPS)
def test_properties_round_trip_through_kafka_headers(props):
    p = _store(props)
    got = from_headers(to_headers(p))
    assert got.properties == p and got.skipped == []


@given(st.text(max_size=30).filter(lambda s: "\0" not in s))
def test_any_string_survives_xml_escaping(text):
    p = MessageProperties()
    p.set("s", text)
    props, _ = properties_from_folders(folders_from_properties(p))
    assert props.inquire("s").value == text
