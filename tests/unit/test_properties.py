"""Message properties: MQSETMP / MQINQMP / MQDLTMP rules, conversions, the MQMD's JMS view."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapter.core import cmqc as C  # noqa: N812
from adapter.core.errors import MQMIError
from adapter.core.properties import (
    MessageProperties,
    convert,
    descriptor_properties,
    normalise_value,
    validate_name,
)


def reason(fn, *args, **kw) -> int:
    with pytest.raises(MQMIError) as info:
        fn(*args, **kw)
    return info.value.reason


# -- every type, as ibmmq's test_message_property.py sets and gets them ----------------

IBMMQ_VALUES = [
    (C.MQTYPE_STRING, "test_valuetest_value", "test_valuetest_value", 20),
    (C.MQTYPE_BYTE_STRING, b"test_value\x00\xff", b"test_value\x00\xff", 12),
    (C.MQTYPE_BOOLEAN, True, 1, 4),
    (C.MQTYPE_BOOLEAN, False, 0, 4),
    (C.MQTYPE_INT8, -127, -127, 1),
    (C.MQTYPE_INT16, -32768, -32768, 2),
    (C.MQTYPE_INT32, -2147483647, -2147483647, 4),
    (C.MQTYPE_INT64, -9223372036854775808, -9223372036854775808, 8),
    (C.MQTYPE_FLOAT32, 1.1754943508222875e-38, 1.1754943508222875e-38, 4),
    (C.MQTYPE_FLOAT64, 2.2250738585072014e-308, 2.2250738585072014e-308, 8),
    (C.MQTYPE_NULL, None, None, 0),
]


@pytest.mark.parametrize("ptype,value,got,length", IBMMQ_VALUES)
def test_every_type_round_trips_as_ibmmq_returns_it(ptype, value, got, length):
    p = MessageProperties()
    p.set("test_name", value, ptype)
    r = p.inquire("test_name")
    assert (r.name, r.type, r.value, r.data_length) == ("test_name", ptype, got, length)
    assert type(r.value) is type(got)


def test_set_takes_values_as_the_c_layer_does():
    assert normalise_value(C.MQTYPE_INT8, 200) == -56  # (MQINT8) cast keeps the low bits
    assert normalise_value(C.MQTYPE_INT16, 65535) == -1
    assert normalise_value(C.MQTYPE_BOOLEAN, 2.5) is True
    assert normalise_value(C.MQTYPE_FLOAT32, 3.13) == pytest.approx(3.13, rel=1e-7)
    assert normalise_value(C.MQTYPE_FLOAT32, 3.13) != 3.13  # nearest single precision
    assert math.isinf(normalise_value(C.MQTYPE_FLOAT32, 1e40))
    assert normalise_value(C.MQTYPE_STRING, "ab\0cd", C.MQVL_NULL_TERMINATED) == "ab"
    assert normalise_value(C.MQTYPE_STRING, "abcdef", 3) == "abc"
    assert normalise_value(C.MQTYPE_BYTE_STRING, b"abcdef", 2) == b"ab"
    with pytest.raises(TypeError):
        normalise_value(C.MQTYPE_BYTE_STRING, "str")
    with pytest.raises(TypeError):
        normalise_value(C.MQTYPE_STRING, b"bytes")
    with pytest.raises(TypeError):
        normalise_value(C.MQTYPE_INT32, "1")
    with pytest.raises(OverflowError):
        normalise_value(C.MQTYPE_INT64, 1 << 64)
    assert reason(normalise_value, C.MQTYPE_BYTE_STRING, b"x", -1) == C.MQRC_BUFFER_LENGTH_ERROR


def test_set_replaces_in_place_and_keeps_order():
    p = MessageProperties()
    p.set("a", "1")
    p.set("b", "2")
    p.set("usr.a", 3, C.MQTYPE_INT32)  # usr.a is a
    assert [(x.name, x.value) for x in p] == [("usr.a", 3), ("usr.b", "2")]
    assert len(p) == 2 and "a" in p and "usr.b" in p and "c" not in p


# -- names ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "Color",
        "usr.Color",
        "_x",
        "$cost",
        "café",
        "a.b",
        "a.b.c",
        "mq_usr.a.b",
        "mq.x",
        "Root.MQMD.Priority",
        "JMSCorrelationID",
        "JMSReplyTo",
        "JMSType",
        "JMSXGroupID",
        "JMSXGroupSeq",
        "Bodyguard",
        "x" * 4095,
    ],
)
def test_valid_names(name):
    validate_name(name)


@pytest.mark.parametrize(
    "name",
    [
        "JMSFoo",  # JMS prefix, not a known synonym
        "JMSPriority",  # a synonym the MQI cannot set
        "JMSMessageID",
        "usr.JMSCorrelationID",
        "NULL",
        "true",
        "Between",
        "usr.escape",
        "mq.a.b",  # mq prefix: one '.' at most
        "MQx.a.b",
        "Body",
        "Body.x",
        "Root",
        "Root.x",
        "Root.MQMD.NoSuchField",
        ".a",
        "a.",
        "a..b",
        "1abc",
        "a b",
        "a=b",
        "a<b",
        "a-b",
        "a%",
        "a\U0001f600",  # beyond the BMP
    ],
)
def test_invalid_names_give_2442(name):
    assert reason(MessageProperties().set, name, "v") == C.MQRC_PROPERTY_NAME_ERROR


@pytest.mark.parametrize("name", ["", "x" * 4096])
def test_name_length_gives_2513(name):
    p = MessageProperties()
    assert reason(p.set, name, "v") == C.MQRC_PROPERTY_NAME_LENGTH_ERR
    assert reason(p.inquire, name) == C.MQRC_PROPERTY_NAME_LENGTH_ERR
    assert reason(p.delete, name) == C.MQRC_PROPERTY_NAME_LENGTH_ERR


def test_no_validation_checks_only_the_length():
    p = MessageProperties()
    p.set("a-b", "v", validate=False)
    assert p.inquire("a-b").value == "v"
    assert reason(p.set, "", "v", validate=False) == C.MQRC_PROPERTY_NAME_LENGTH_ERR


def test_names_are_case_sensitive():
    p = MessageProperties()
    p.set("Color", "red")
    p.set("color", "blue")
    assert p.inquire("Color").value == "red"
    assert p.inquire("color").value == "blue"
    assert reason(p.inquire, "COLOR") == C.MQRC_PROPERTY_NOT_AVAILABLE


def test_mixed_content_gives_2498():
    p = MessageProperties()
    p.set("a.b", "1")
    assert reason(p.set, "a.b.c", "2") == C.MQRC_MIXED_CONTENT_NOT_ALLOWED
    q = MessageProperties()
    q.set("a.b.c", "1")
    assert reason(q.set, "a.b", "2") == C.MQRC_MIXED_CONTENT_NOT_ALLOWED
    q.set("a.bc", "3")  # a sibling, not a level
    q.set("a.b.d", "4")


def test_type_errors_give_2473():
    p = MessageProperties()
    assert reason(p.set, "x", "v", 3) == C.MQRC_PROPERTY_TYPE_ERROR
    assert reason(p.set, "x", "v", C.MQTYPE_AS_SET) == C.MQRC_PROPERTY_TYPE_ERROR
    assert reason(p.set, "JMSXGroupSeq", "1", C.MQTYPE_STRING) == C.MQRC_PROPERTY_TYPE_ERROR
    assert reason(p.set, "JMSCorrelationID", 1, C.MQTYPE_INT32) == C.MQRC_PROPERTY_TYPE_ERROR
    assert reason(p.set, "Root.MQMD.Priority", "1") == C.MQRC_PROPERTY_TYPE_ERROR
    assert reason(p.set, "Root.MQMD.CorrelId", "x") == C.MQRC_PROPERTY_TYPE_ERROR
    p.set("Root.MQMD.Priority", 5, C.MQTYPE_INT32)
    p.set("Root.MQMD.CorrelId", b"x", C.MQTYPE_BYTE_STRING)
    p.set("JMSXGroupSeq", 3, C.MQTYPE_INT32)
    assert reason(p.inquire, "x", ptype=3) == C.MQRC_PROPERTY_TYPE_ERROR


def test_jms_synonyms_are_one_property():
    p = MessageProperties()
    p.set("JMSCorrelationID", "abc")
    assert p.inquire("jms.Cid").value == "abc"
    assert p.inquire("jms.Cid").name == "JMSCorrelationID"
    p.set("jms.Cid", "def")
    assert len(p) == 1 and p.inquire("JMSCorrelationID").value == "def"
    p.set("JMSType", "t")
    assert p.get("mcd.Type").value == "t"


# -- inquiry: cursor and wildcards -----------------------------------------------------


def _example() -> MessageProperties:
    p = MessageProperties()
    p.set("Property_0", "MyStringPropVal")
    p.set("Property_1", 42, C.MQTYPE_INT32)
    p.set("JMSCorrelationID", "cid")
    p.set("app.x", 1.5, C.MQTYPE_FLOAT64)
    p.set("Property_2", 3.13, C.MQTYPE_FLOAT64)
    return p


def _all(p: MessageProperties, pattern: str) -> list[str]:
    names, opts = [], C.MQIMPO_INQ_FIRST
    while True:
        try:
            names.append(p.inquire(pattern, opts).name)
        except MQMIError as e:
            assert e.reason == C.MQRC_PROPERTY_NOT_AVAILABLE
            return names
        opts = C.MQIMPO_INQ_NEXT


@pytest.mark.parametrize(
    "pattern,names",
    [
        ("%", ["Property_0", "Property_1", "JMSCorrelationID", "app.x", "Property_2"]),
        ("usr.%", ["Property_0", "Property_1", "Property_2"]),
        ("Prop%", ["Property_0", "Property_1", "Property_2"]),
        ("Property_1%", ["Property_1"]),
        ("jms.%", ["JMSCorrelationID"]),
        ("JMS%", ["JMSCorrelationID"]),
        ("app.%", ["app.x"]),
        ("a%", ["app.x"]),
        ("nothing%", []),
        ("Property_1", ["Property_1"]),
        ("Prop%erty", []),  # '%' is a wildcard only at the end
    ],
)
def test_wildcard_iteration_order_and_returned_names(pattern, names):
    assert _all(_example(), pattern) == names


def test_inq_next_with_another_name_starts_again():
    p = _example()
    assert p.inquire("usr.%").name == "Property_0"
    assert p.inquire("usr.%", C.MQIMPO_INQ_NEXT).name == "Property_1"
    assert p.inquire("%", C.MQIMPO_INQ_NEXT).name == "Property_0"  # name changed: first
    assert p.inquire("%", C.MQIMPO_INQ_NEXT).name == "Property_1"


def test_inq_next_without_a_cursor_is_first():
    assert _example().inquire("%", C.MQIMPO_INQ_NEXT).name == "Property_0"


def test_end_leaves_the_cursor_and_under_cursor_reads_it_again():
    p = _example()
    p.inquire("usr.%")
    p.inquire("usr.%", C.MQIMPO_INQ_NEXT)
    p.inquire("usr.%", C.MQIMPO_INQ_NEXT)
    assert reason(p.inquire, "usr.%", C.MQIMPO_INQ_NEXT) == C.MQRC_PROPERTY_NOT_AVAILABLE
    assert p.inquire("usr.%", C.MQIMPO_INQ_PROP_UNDER_CURSOR).name == "Property_2"
    fresh = MessageProperties()
    assert (
        reason(fresh.inquire, "x", C.MQIMPO_INQ_PROP_UNDER_CURSOR) == C.MQRC_PROPERTY_NOT_AVAILABLE
    )


def test_unknown_name_gives_2471():
    assert reason(_example().inquire, "Property_9") == C.MQRC_PROPERTY_NOT_AVAILABLE


def test_bad_inquire_options():
    p = _example()
    opts = C.MQIMPO_INQ_NEXT | C.MQIMPO_INQ_PROP_UNDER_CURSOR
    assert reason(p.inquire, "%", opts) == C.MQRC_IMPO_ERROR
    assert reason(p.inquire, "%", 0x1000) == C.MQRC_IMPO_ERROR


def test_value_too_big_gives_2469_with_what_fits_and_moves_the_cursor():
    p = MessageProperties()
    p.set("s", "test_value" * 5)
    p.set("n", 1, C.MQTYPE_INT32)
    with pytest.raises(MQMIError) as info:
        p.inquire("%", max_length=25)
    e = info.value
    assert (e.comp, e.reason) == (C.MQCC_WARNING, C.MQRC_PROPERTY_VALUE_TOO_BIG)
    assert (e.value, e.data_length, e.name) == ("test_value" * 2 + "test_", 50, "s")
    whole = p.inquire("%", C.MQIMPO_INQ_PROP_UNDER_CURSOR, max_length=50)
    assert whole.value == "test_value" * 5
    assert p.inquire("%", C.MQIMPO_INQ_NEXT).name == "n"
    with pytest.raises(MQMIError) as info:
        p.inquire("n", max_length=2)
    assert info.value.value is None and info.value.data_length == 4


def test_query_length():
    r = _example().inquire("Property_0", C.MQIMPO_QUERY_LENGTH)
    assert (r.type, r.value, r.data_length) == (C.MQTYPE_STRING, None, 15)


# -- MQIMPO_CONVERT_TYPE ----------------------------------------------------------------

T = C


@pytest.mark.parametrize(
    "ptype,value,target,expected",
    [
        (T.MQTYPE_BOOLEAN, True, T.MQTYPE_STRING, "TRUE"),
        (T.MQTYPE_BOOLEAN, False, T.MQTYPE_STRING, "FALSE"),
        (T.MQTYPE_BOOLEAN, True, T.MQTYPE_INT8, 1),
        (T.MQTYPE_BOOLEAN, False, T.MQTYPE_INT64, 0),
        (T.MQTYPE_BYTE_STRING, b"\xf1\x12\x00\xff", T.MQTYPE_STRING, "F11200FF"),
        (T.MQTYPE_INT8, 65, T.MQTYPE_STRING, "65"),
        (T.MQTYPE_INT8, -5, T.MQTYPE_INT16, -5),
        (T.MQTYPE_INT8, -5, T.MQTYPE_INT64, -5),
        (T.MQTYPE_INT16, 300, T.MQTYPE_INT32, 300),
        (T.MQTYPE_INT32, 7, T.MQTYPE_INT64, 7),
        (T.MQTYPE_INT64, 1 << 40, T.MQTYPE_STRING, str(1 << 40)),
        (T.MQTYPE_FLOAT32, 1.5, T.MQTYPE_FLOAT64, 1.5),
        (T.MQTYPE_FLOAT32, normalise_value(T.MQTYPE_FLOAT32, 3.13), T.MQTYPE_STRING, "3.13"),
        (T.MQTYPE_FLOAT64, 3.13, T.MQTYPE_STRING, "3.13"),
        (T.MQTYPE_STRING, "  -42abc", T.MQTYPE_INT32, -42),
        (T.MQTYPE_STRING, "+7", T.MQTYPE_INT8, 7),
        (T.MQTYPE_STRING, "true", T.MQTYPE_BOOLEAN, True),
        (T.MQTYPE_STRING, "0", T.MQTYPE_BOOLEAN, False),
        (T.MQTYPE_STRING, " 1.5e3x", T.MQTYPE_FLOAT64, 1500.0),
        (T.MQTYPE_STRING, "-2", T.MQTYPE_FLOAT32, -2.0),
        (T.MQTYPE_STRING, "s", T.MQTYPE_STRING, "s"),
    ],
)
def test_supported_conversions(ptype, value, target, expected):
    assert convert(ptype, value, target) == expected


@pytest.mark.parametrize(
    "ptype,value,target",
    [
        (T.MQTYPE_INT32, 1, T.MQTYPE_INT16),  # would lose data
        (T.MQTYPE_INT64, 1, T.MQTYPE_INT32),
        (T.MQTYPE_FLOAT64, 1.0, T.MQTYPE_FLOAT32),
        (T.MQTYPE_INT32, 1, T.MQTYPE_FLOAT64),
        (T.MQTYPE_STRING, "ab", T.MQTYPE_BYTE_STRING),
        (T.MQTYPE_BYTE_STRING, b"a", T.MQTYPE_INT32),
        (T.MQTYPE_BOOLEAN, True, T.MQTYPE_FLOAT64),
    ],
)
def test_unsupported_conversions_give_2470(ptype, value, target):
    assert reason(convert, ptype, value, target) == C.MQRC_PROP_CONV_NOT_SUPPORTED


@pytest.mark.parametrize(
    "text,target",
    [
        ("abc", T.MQTYPE_INT32),
        ("", T.MQTYPE_INT64),
        ("128", T.MQTYPE_INT8),  # out of range
        ("yes", T.MQTYPE_BOOLEAN),
        (".5", T.MQTYPE_FLOAT64),
        ("1e400", T.MQTYPE_FLOAT64),
        ("1e39", T.MQTYPE_FLOAT32),
    ],
)
def test_badly_formatted_strings_give_2472(text, target):
    assert reason(convert, T.MQTYPE_STRING, text, target) == C.MQRC_PROP_NUMBER_FORMAT_ERROR


def test_convert_type_on_inquire_and_cursor_on_failure():
    p = _example()
    r = p.inquire("Property_1", C.MQIMPO_CONVERT_TYPE, C.MQTYPE_STRING)
    assert (r.type, r.value, r.data_length) == (C.MQTYPE_STRING, "42", 2)
    # Without CONVERT_TYPE the requested type is not applied.
    r = p.inquire("Property_1", C.MQIMPO_INQ_FIRST, C.MQTYPE_STRING)
    assert (r.type, r.value) == (C.MQTYPE_INT32, 42)
    p.inquire("usr.%")  # cursor on Property_0
    opts = C.MQIMPO_INQ_NEXT | C.MQIMPO_CONVERT_TYPE
    assert reason(p.inquire, "usr.%", opts, C.MQTYPE_INT16) == C.MQRC_PROP_CONV_NOT_SUPPORTED
    assert p.inquire("usr.%", C.MQIMPO_INQ_NEXT).name == "Property_1"  # cursor did not move
    p.set("n", None, C.MQTYPE_NULL)
    r = p.inquire("n", C.MQIMPO_CONVERT_TYPE, C.MQTYPE_STRING)
    assert (r.type, r.value) == (C.MQTYPE_NULL, None)


# -- MQDLTMP ----------------------------------------------------------------------------


def test_delete():
    p = _example()
    assert p.delete("Property_1") == "Property_1"
    assert reason(p.delete, "Property_1") == C.MQRC_PROPERTY_NOT_AVAILABLE
    assert _all(p, "usr.%") == ["Property_0", "Property_2"]
    assert p.delete("JMS%") == "JMSCorrelationID"
    p.inquire("usr.%")
    assert p.delete("usr.%", C.MQDMPO_DEL_PROP_UNDER_CURSOR) == "Property_0"
    assert reason(p.delete, "usr.%", 8) == C.MQRC_DMPO_ERROR
    assert (
        reason(p.delete, "usr.%", C.MQDMPO_DEL_PROP_UNDER_CURSOR) == C.MQRC_PROPERTY_NOT_AVAILABLE
    )


def test_delete_under_cursor_then_next():
    p = _example()
    p.inquire("usr.%")
    p.inquire("usr.%", C.MQIMPO_INQ_NEXT)  # Property_1
    p.delete("usr.%", C.MQDMPO_DEL_PROP_UNDER_CURSOR)
    assert reason(p.inquire, "usr.%", C.MQIMPO_INQ_NEXT) == C.MQRC_PROPERTY_NOT_AVAILABLE
    assert _all(p, "usr.%") == ["Property_0", "Property_2"]


def test_copy_and_equality():
    p = _example()
    q = p.copy()
    assert p == q
    q.set("Property_0", "other")
    assert p != q


# -- the message descriptor -------------------------------------------------------------


def test_descriptor_properties():
    md = {
        "Priority": 7,
        "Persistence": C.MQPER_PERSISTENT,
        "MsgId": b"\x01" * 24,
        "CorrelId": b"AB",
        "ReplyToQ": b"REPLY.Q" + b" " * 41,
        "ReplyToQMgr": b"QM1",
        "Expiry": 50,
        "PutDate": b"20240102",
        "PutTime": b"03040506",
        "BackoutCount": 2,
        "UserIdentifier": b"app         ",
        "PutApplName": "prog.py",
        "GroupId": b"G" * 24,
        "MsgSeqNumber": 3,
        "MsgFlags": C.MQMF_MSG_IN_GROUP,
        "Format": b"MQSTR   ",
    }
    d = {k: (v.type, v.value) for k, v in descriptor_properties(md).items()}
    stamp = 1704164645060  # 2024-01-02T03:04:05.06Z
    assert d["JMSPriority"] == (C.MQTYPE_INT32, 7)
    assert d["JMSDeliveryMode"] == (C.MQTYPE_INT32, 2)
    assert d["JMSMessageID"] == (C.MQTYPE_STRING, "ID:" + "01" * 24)
    assert d["JMSCorrelationID"] == (C.MQTYPE_STRING, "ID:4142" + "00" * 22)
    assert d["JMSReplyTo"] == (C.MQTYPE_STRING, "queue://QM1/REPLY.Q")
    assert d["JMSTimestamp"] == (C.MQTYPE_INT64, stamp)
    assert d["JMSExpiration"] == (C.MQTYPE_INT64, stamp + 5000)
    assert d["JMSRedelivered"] == (C.MQTYPE_BOOLEAN, True)
    assert d["JMSXDeliveryCount"] == (C.MQTYPE_INT32, 3)
    assert d["JMSXUserID"] == (C.MQTYPE_STRING, "app")
    assert d["JMSXAppID"] == (C.MQTYPE_STRING, "prog.py")
    assert d["JMSXGroupID"] == (C.MQTYPE_STRING, "ID:" + "47" * 24)
    assert d["JMSXGroupSeq"] == (C.MQTYPE_INT32, 3)
    assert d["Root.MQMD.Priority"] == (C.MQTYPE_INT32, 7)
    assert d["Root.MQMD.Format"] == (C.MQTYPE_STRING, "MQSTR")
    assert d["Root.MQMD.CorrelId"] == (C.MQTYPE_BYTE_STRING, b"AB")


def test_descriptor_properties_defaults():
    md = {
        "Persistence": C.MQPER_NOT_PERSISTENT,
        "CorrelId": C.MQCI_NONE,
        "Expiry": C.MQEI_UNLIMITED,
        "GroupId": b"G" * 24,
        "MsgFlags": 0,
        "BackoutCount": 0,
    }
    d = descriptor_properties(md)
    assert d["JMSDeliveryMode"].value == 1
    assert "JMSCorrelationID" not in d  # null in JMS
    assert d["JMSExpiration"].value == 0
    assert "JMSXGroupID" not in d and "JMSXGroupSeq" not in d  # not in a group
    assert d["JMSRedelivered"].value is False
    assert "JMSTimestamp" not in d


# -- property-based --------------------------------------------------------------------

_START = st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIKLMOPQRSUVWXYZ_$é")
_PART = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_0123456789$", max_size=8)
NAMES = st.builds(lambda a, b: a + b, _START, _PART).filter(
    lambda n: (
        n.upper() not in {"NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "IN", "IS", "LIKE"}
        and n.upper() not in {"BETWEEN", "ESCAPE"}
        and not n.startswith(("JMS", "Body", "Root"))
    )
)


def typed_values():
    return st.one_of(
        st.tuples(st.just(C.MQTYPE_NULL), st.none()),
        st.tuples(st.just(C.MQTYPE_BOOLEAN), st.booleans()),
        st.tuples(st.just(C.MQTYPE_BYTE_STRING), st.binary(max_size=40)),
        st.tuples(st.just(C.MQTYPE_INT8), st.integers(-(2**7), 2**7 - 1)),
        st.tuples(st.just(C.MQTYPE_INT16), st.integers(-(2**15), 2**15 - 1)),
        st.tuples(st.just(C.MQTYPE_INT32), st.integers(-(2**31), 2**31 - 1)),
        st.tuples(st.just(C.MQTYPE_INT64), st.integers(-(2**63), 2**63 - 1)),
        st.tuples(st.just(C.MQTYPE_FLOAT32), st.floats(width=32, allow_nan=False)),
        st.tuples(st.just(C.MQTYPE_FLOAT64), st.floats(allow_nan=False)),
        st.tuples(st.just(C.MQTYPE_STRING), st.text(max_size=40).filter(lambda s: "\0" not in s)),
    )


@given(st.dictionaries(NAMES, typed_values(), max_size=8))
def test_set_then_inquire_round_trips(props):
    p = MessageProperties()
    for name, (ptype, value) in props.items():
        p.set(name, value, ptype)
    for name, (ptype, value) in props.items():
        r = p.inquire(name)
        assert r.type == ptype
        expected = int(value) if ptype == C.MQTYPE_BOOLEAN else value
        assert r.value == expected
    assert _all(p, "%") == list(props)
