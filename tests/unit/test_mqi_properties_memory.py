"""Message properties through the pymqi/ibmmq face on the in-memory backends: message
handles on MQPUT and MQGET (ibmmq's own message_properties.py example, step by step),
every MQTYPE through a queue, PROPCTL and the GMO property options, selectors over
properties, and MQRC_HMSG_ERROR."""

from __future__ import annotations

import pytest

import adapter.pymqi as pymqi
from adapter.core.rfh2 import parse_message
from tests.integration.conftest import drain, mqerror

C = pymqi.CMQC
IN, OUT = C.MQOO_INPUT_SHARED, C.MQOO_OUTPUT


def put_with(qmgr, q, body: bytes, props: dict, **md) -> None:
    handle = pymqi.MessageHandle(qmgr)
    for name, (value, ptype) in props.items():
        handle.properties.set(name, value, property_type=ptype)
    pmo = pymqi.PMO(Version=C.MQPMO_VERSION_3, Options=C.MQPMO_NO_SYNCPOINT)
    pmo.OriginalMsgHandle = handle.msg_handle
    q.put(body, pymqi.MD(**md), pmo)
    handle.dlt()


def get_with(qmgr, q, options: int = C.MQGMO_PROPERTIES_IN_HANDLE, **gmo_fields):
    handle = pymqi.MessageHandle(qmgr)
    if not options & C.MQGMO_SYNCPOINT:
        options |= C.MQGMO_NO_SYNCPOINT
    gmo = pymqi.GMO(Options=options, **gmo_fields)
    gmo.MsgHandle = handle.msg_handle
    md = pymqi.MD()
    return q.get(None, md, gmo), md, handle


def all_usr(handle) -> dict:
    out, opts = {}, C.MQIMPO_INQ_FIRST
    while True:
        try:
            value, name = handle.properties.get("usr.%", impo_options=opts)
        except pymqi.MQMIError as err:
            assert err.reason == C.MQRC_PROPERTY_NOT_AVAILABLE
            return out
        out[name.decode()] = value
        opts = C.MQIMPO_INQ_NEXT


def test_ibmmqs_message_properties_example(qmgr) -> None:
    qmgr.define_queue("Q.PROPS")
    q = pymqi.Queue(qmgr, "Q.PROPS", IN | OUT)
    put_msg_h = pymqi.MessageHandle(qmgr)
    put_msg_h.properties.set("Property_0", "MyStringPropVal")
    put_msg_h.properties.set("Property_1", 42, property_type=C.MQTYPE_INT32)
    put_msg_h.properties.set("Property_2", 3.13, property_type=C.MQTYPE_FLOAT64)
    pmo = pymqi.PMO(Version=C.MQPMO_VERSION_3)
    pmo.OriginalMsgHandle = put_msg_h.msg_handle
    q.put(b"Property testing", pymqi.MD(Version=C.MQMD_CURRENT_VERSION), pmo)

    body, md, get_msg_h = get_with(qmgr, q, C.MQGMO_PROPERTIES_IN_HANDLE | C.MQGMO_SYNCPOINT)
    assert body == b"Property testing" and md.Format == C.MQFMT_NONE  # no MQRFH2 in the data
    assert all_usr(get_msg_h) == {
        "Property_0": "MyStringPropVal",
        "Property_1": 42,
        "Property_2": 3.13,
    }
    assert get_msg_h.properties.get("Property_1") == 42
    assert get_msg_h.properties["Property_0"] == "MyStringPropVal"
    get_msg_h.properties.dlt("Property_1")
    assert set(all_usr(get_msg_h)) == {"Property_0", "Property_2"}
    with pytest.raises(pymqi.MQMIError) as exc:
        get_msg_h.properties.get("Property_1", default="none")
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_PROPERTY_NOT_AVAILABLE)
    assert exc.value.value == "none"
    put_msg_h.dlt()
    get_msg_h.dlt()
    qmgr.commit()


TYPED = {
    "b": (True, C.MQTYPE_BOOLEAN),
    "bytes": (b"\x00\xff", C.MQTYPE_BYTE_STRING),
    "i8": (-5, C.MQTYPE_INT8),
    "i16": (300, C.MQTYPE_INT16),
    "i32": (70000, C.MQTYPE_INT32),
    "i64": (2**40, C.MQTYPE_INT64),
    "f32": (1.5, C.MQTYPE_FLOAT32),
    "f64": (2.25, C.MQTYPE_FLOAT64),
    "s": ("héllo", C.MQTYPE_STRING),
    "n": (None, C.MQTYPE_NULL),
}


def test_every_type_crosses_the_queue_with_its_type(qmgr) -> None:
    qmgr.define_queue("Q.PROPS.TYPES")
    q = pymqi.Queue(qmgr, "Q.PROPS.TYPES", IN | OUT)
    put_with(qmgr, q, b"x", TYPED)
    _body, _md, handle = get_with(qmgr, q)
    props = handle._handles.properties(handle.msg_handle)
    for name, (value, ptype) in TYPED.items():
        prop = props.get(name)
        assert prop.type == ptype, name
        expected = 1 if ptype == C.MQTYPE_BOOLEAN else value  # ibmmq returns 1/0
        assert handle.properties.get(name) == expected, name


def test_without_a_handle_propctl_compat_puts_an_mqrfh2_in_front(qmgr) -> None:
    qmgr.define_queue("Q.PROPS.COMPAT")
    q = pymqi.Queue(qmgr, "Q.PROPS.COMPAT", IN | OUT)
    put_with(qmgr, q, b"body", {"color": ("red", C.MQTYPE_STRING)}, Format=C.MQFMT_STRING)
    md = pymqi.MD()
    data = q.get(None, md)
    assert md.Format == C.MQFMT_RF_HEADER_2 and data[:4] == b"RFH "
    parsed = parse_message(data, md.Format, md.Encoding)
    assert parsed.body == b"body" and parsed.format == C.MQFMT_STRING
    assert [(p.name, p.value) for p in parsed.properties] == [("usr.color", "red")]


def test_propctl_none_and_no_properties_discard_them(qmgr) -> None:
    qmgr.define_queue("Q.PROPS.NONE", property_control=C.MQPROP_NONE)
    q = pymqi.Queue(qmgr, "Q.PROPS.NONE", IN | OUT)
    put_with(qmgr, q, b"one", {"color": ("red", C.MQTYPE_STRING)})
    md = pymqi.MD()
    assert q.get(None, md) == b"one" and md.Format == C.MQFMT_NONE
    put_with(qmgr, q, b"two", {"color": ("red", C.MQTYPE_STRING)})
    body, _md, handle = get_with(qmgr, q, C.MQGMO_NO_PROPERTIES)
    assert body == b"two" and all_usr(handle) == {}


def test_propctl_force_gives_an_mqrfh2_even_with_a_handle(qmgr) -> None:
    qmgr.define_queue("Q.PROPS.FORCE", property_control=C.MQPROP_FORCE_MQRFH2)
    q = pymqi.Queue(qmgr, "Q.PROPS.FORCE", IN | OUT)
    put_with(qmgr, q, b"x", {"n": (7, C.MQTYPE_INT32)})
    body, md, handle = get_with(qmgr, q, C.MQGMO_PROPERTIES_AS_Q_DEF)
    assert md.Format == C.MQFMT_RF_HEADER_2 and all_usr(handle) == {}
    parsed = parse_message(body, md.Format, md.Encoding)
    assert [(p.name, p.type, p.value) for p in parsed.properties] == [("usr.n", C.MQTYPE_INT32, 7)]


def test_a_get_replaces_what_the_handle_held(qmgr) -> None:
    qmgr.define_queue("Q.PROPS.REPLACE")
    q = pymqi.Queue(qmgr, "Q.PROPS.REPLACE", IN | OUT)
    put_with(qmgr, q, b"a", {"first": ("1", C.MQTYPE_STRING)})
    pymqi.Queue(qmgr, "Q.PROPS.REPLACE", OUT).put(b"b")  # no properties
    _b, _m, handle = get_with(qmgr, q)
    gmo = pymqi.GMO(Options=C.MQGMO_PROPERTIES_IN_HANDLE | C.MQGMO_NO_SYNCPOINT)
    gmo.MsgHandle = handle.msg_handle
    assert q.get(None, pymqi.MD(), gmo) == b"b"
    assert all_usr(handle) == {}


def test_selectors_read_message_properties(qmgr) -> None:
    qmgr.define_queue("Q.PROPS.SEL")
    q = pymqi.Queue(qmgr, "Q.PROPS.SEL", OUT)
    for i in range(10):
        put_with(
            qmgr,
            q,
            b"%d" % i,
            {
                "color": ("red" if i % 3 == 0 else "blue", C.MQTYPE_STRING),
                "size": (i, C.MQTYPE_INT32),
            },
        )
    od = pymqi.OD(ObjectName="Q.PROPS.SEL")
    od.set_vs("SelectionString", "color = 'red' AND size > 2 AND usr.size < 9")
    selecting = pymqi.Queue(qmgr, od, IN)
    got = [body for body, _md in drain(selecting, options=C.MQGMO_NO_PROPERTIES)]
    assert got == [b"3", b"6"]


def test_an_unknown_message_handle_is_2460_and_takes_nothing(qmgr) -> None:
    qmgr.define_queue("Q.PROPS.BAD")
    q = pymqi.Queue(qmgr, "Q.PROPS.BAD", IN | OUT)
    pmo = pymqi.PMO(Version=C.MQPMO_VERSION_3, OriginalMsgHandle=999)
    with pytest.raises(pymqi.MQMIError) as exc:
        q.put(b"x", pymqi.MD(), pmo)
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_HMSG_ERROR)
    q.put(b"kept")
    handle = pymqi.MessageHandle(qmgr)
    handle.dlt()  # MQDLTMH: its number is no longer a handle
    gmo = pymqi.GMO(Options=C.MQGMO_PROPERTIES_IN_HANDLE)
    gmo.MsgHandle = handle.msg_handle
    with pytest.raises(pymqi.MQMIError) as exc:
        q.get(None, pymqi.MD(), gmo)
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_HMSG_ERROR)
    assert q.get() == b"kept"  # the failed get took nothing


def test_each_put_carries_the_handle_as_it_is_at_that_put(qmgr) -> None:
    """MQPUT reuses the packed properties of an unchanged handle: a set, a delete or a
    get into the handle between two puts must show in the second message."""
    qmgr.define_queue("Q.HANDLE.CHANGES")
    q = pymqi.Queue(qmgr, "Q.HANDLE.CHANGES", IN | OUT)
    handle = pymqi.MessageHandle(qmgr)
    handle.properties.set("colour", "red")
    pmo = pymqi.PMO(Options=C.MQPMO_NO_SYNCPOINT)
    pmo.OriginalMsgHandle = handle.msg_handle
    q.put(b"1", pymqi.MD(), pmo)
    q.put(b"2", pymqi.MD(), pmo)  # unchanged: the same properties
    handle.properties.set("colour", "blue")
    q.put(b"3", pymqi.MD(), pmo)
    handle.properties.set("size", 7, property_type=C.MQTYPE_INT32)
    q.put(b"4", pymqi.MD(), pmo)
    handle.properties.dlt("colour")
    q.put(b"5", pymqi.MD(), pmo)
    seen = []
    for _ in range(5):
        _, _, got = get_with(qmgr, q)
        seen.append(all_usr(got))
    assert seen == [
        {"colour": "red"},
        {"colour": "red"},
        {"colour": "blue"},
        {"colour": "blue", "size": 7},
        {"size": 7},
    ]
