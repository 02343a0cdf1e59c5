"""MQRFH2 and properties on the in-memory backends: the integration layer's scenarios
(tests/integration/test_mqi_rfh2.py), ibmmq's RFH2 structure, MQRC_HMSG_ERROR for
MQGMO_PROPERTIES_IN_HANDLE without a handle, and a property-based round trip: any set of
properties put in an MQRFH2 is got into a handle, and put through a handle comes back
in an MQRFH2, with its types."""

from __future__ import annotations

import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import adapter.pymqi as pymqi
from adapter.core.properties import MessageProperties
from adapter.core.rfh2 import folders_from_properties, parse_message
from tests.integration import test_mqi_rfh2 as scenarios
from tests.integration.conftest import drain, mqerror

# The integration layer's scenarios, run here on the in-memory backends.
from tests.integration.test_mqi_rfh2 import (  # noqa: F401
    IO,
    SYNC,
    get_in_handle,
    rfh2,
    rfh2_md,
    test_an_invalid_rfh2_is_2334_and_nothing_is_put,
    test_compat_getter_gets_chained_headers_back,
    test_compat_getter_without_handle_gets_the_header_back,
    test_force_mqrfh2_gives_the_properties_in_the_data_not_the_handle,
    test_handle_properties_come_back_through_get_rfh2,
    test_only_property_folders_leave_no_header,
    test_pmo_new_msg_handle_and_action,
    test_rfh2_folders_become_typed_properties_and_the_rest_stays,
    test_selector_sees_properties_put_in_an_rfh2,
    test_v6compat_keeps_the_application_rfh2_as_it_was_put,
)
from tests.unit.conftest import World
from tests.unit.test_properties import NAMES, typed_values

C = pymqi.CMQC

# -- ibmmq's RFH2 structure ---------------------------------------------------------------


def test_rfh2_structure_fields_padding_and_struc_length() -> None:
    header = pymqi.RFH2()
    assert header.get() == {
        "_StrucId": b"RFH ",
        "Version": 2,
        "StrucLength": 0,
        "Encoding": C.MQENC_NATIVE,
        "CodedCharSetId": 0,
        "Format": C.MQFMT_NONE,
        "Flags": 0,
        "NameValueCCSID": 0,
    }
    header["Format"] = C.MQFMT_STRING
    header.add_folder(b"<usr><a>1</a></usr>")  # 19 bytes: padded to 20
    assert header["usrLength"] == 20 and header["usr"] == b"<usr><a>1</a></usr> "
    assert header["StrucLength"] == header.get_length() == 36 + 4 + 20
    assert header.get_folders() == ["usr"]
    assert header.StrucId == header._StrucId == b"RFH "
    big = header.pack(C.MQENC_NORMAL)
    assert struct.unpack(">i", big[8:12])[0] == 60 and big[20:28] == b"MQSTR   "
    little = header.pack()
    assert struct.unpack("<i", little[8:12])[0] == 60
    back = pymqi.RFH2().unpack(big + b"tail", C.MQENC_NORMAL)
    assert back.get() == header.get()
    assert pymqi.RFH2().unpack(big).get() == header.get()  # encoding guessed
    fixed_only = pymqi.RFH2().unpack(big[:36])
    assert fixed_only["StrucLength"] == 60 and fixed_only.get_folders() == []
    with pytest.raises(AttributeError):
        header["NoSuchField"] = 1


def test_rfh2_structure_errors_are_pyiferrors() -> None:
    with pytest.raises(pymqi.PYIFError):
        pymqi.RFH2().unpack(b"XXXX" + b"\0" * 40)
    with pytest.raises(pymqi.PYIFError):
        pymqi.RFH2().unpack(b"RFH \0\0\0\x02")
    data = rfh2(b"<usr><a>1</a></usr>").pack(273)
    with pytest.raises(pymqi.PYIFError):
        pymqi.RFH2().unpack(data[:50], 273)  # StrucLength past the end
    with pytest.raises(pymqi.PYIFError):
        pymqi.RFH2().add_folder(b"no xml")
    with pytest.raises(TypeError):
        pymqi.RFH2().add_folder("<usr></usr>")


def test_put_rfh2_and_get_rfh2_argument_shapes(qmgr) -> None:
    qmgr.define_queue("Q.RFH2.ARGS")
    q = pymqi.Queue(qmgr, "Q.RFH2.ARGS", IO)
    with pytest.raises(TypeError):
        q.put_rfh2(b"x", rfh2_md(), pymqi.PMO(), rfh2())
    with pytest.raises(TypeError):
        q.put_rfh2("text", rfh2_md(), pymqi.PMO(), [rfh2()])
    q.put_rfh2(b"plain", pymqi.MD(), pymqi.PMO(Options=SYNC))  # no headers: a put
    with pytest.raises(AttributeError):
        q.get_rfh2(None, pymqi.MD(), pymqi.GMO(), None)
    with pytest.raises(TypeError):
        q.get_rfh2(None, pymqi.MD(), pymqi.GMO(), ())
    got: list = []
    assert q.get_rfh2(None, pymqi.MD(), pymqi.GMO(), got) == b"plain" and got == []


def test_chained_headers_keep_their_own_encodings(qmgr) -> None:
    qmgr.define_queue("Q.RFH2.CHAIN")
    q = pymqi.Queue(qmgr, "Q.RFH2.CHAIN", IO)
    first = rfh2(b"<psc><Command>x</Command></psc>", fmt=C.MQFMT_RF_HEADER_2, encoding=546)
    second = rfh2(scenarios.USR, encoding=273)  # its integers in the first one's 546
    q.put_rfh2(b"end", rfh2_md(273), pymqi.PMO(Options=SYNC), [first, second])
    data, md, handle = get_in_handle(qmgr, q)
    assert handle.properties.get("color") == "red"
    # The second header held properties only: it went, and the first now says what
    # follows it is the body.
    got: list = []
    assert md.Format == C.MQFMT_RF_HEADER_2 and md.Encoding == 273
    kept = pymqi.RFH2().unpack(data, 273)
    got.append(kept)
    assert kept.get_folders() == ["psc"] and kept["Format"] == C.MQFMT_STRING
    assert kept["Encoding"] == 273 and data[kept["StrucLength"] :] == b"end"


def test_api_property_wins_and_the_first_element_wins(qmgr) -> None:
    qmgr.define_queue("Q.RFH2.CONFLICT")
    q = pymqi.Queue(qmgr, "Q.RFH2.CONFLICT", IO)
    api = pymqi.MessageHandle(qmgr)
    api.properties.set("color", "from-api")
    pmo = pymqi.PMO(Options=SYNC)
    pmo.OriginalMsgHandle = api.msg_handle
    header = rfh2(b"<usr><color>rfh2</color><size>S</size></usr>", b"<usr><size>L</size></usr>")
    q.put_rfh2(b"c", rfh2_md(), pmo, [header])
    _data, _md, got = get_in_handle(qmgr, q)
    assert got.properties.get("color") == "from-api"  # IBM: the API's wins
    assert got.properties.get("size") == "S"  # the one closest to the head wins


def test_unreadable_or_unreachable_elements_stay_in_the_data(qmgr) -> None:
    qmgr.define_queue("Q.RFH2.ODD")
    q = pymqi.Queue(qmgr, "Q.RFH2.ODD", IO)
    broken = rfh2(b"<usr><a>1</usr>")  # not XML MQ can read: put as it is (2421 later)
    q.put_rfh2(b"b", rfh2_md(), pymqi.PMO(Options=SYNC), [broken])
    data, md, _handle = get_in_handle(qmgr, q)
    assert md.Format == C.MQFMT_RF_HEADER_2 and data == broken.pack(273) + b"b"
    # A usr element called JMS... or after an SQL keyword is no property: it stays.
    odd = rfh2(b"<usr><JMSX>1</JMSX><ok>2</ok><AND>3</AND></usr>")
    q.put_rfh2(b"o", rfh2_md(), pymqi.PMO(Options=SYNC), [odd])
    data, md, handle = get_in_handle(qmgr, q)
    assert handle.properties.get("ok") == "2"
    rest = pymqi.RFH2().unpack(data, md.Encoding)
    assert rest["usr"].rstrip() == b"<usr><JMSX>1</JMSX><AND>3</AND></usr>"


def test_in_handle_without_a_handle_is_2460(qmgr) -> None:
    qmgr.define_queue("Q.RFH2.NOHANDLE")
    q = pymqi.Queue(qmgr, "Q.RFH2.NOHANDLE", IO)
    q.put(b"m", pymqi.MD(), pymqi.PMO(Options=SYNC))
    with pytest.raises(pymqi.MQMIError) as info:
        q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_PROPERTIES_IN_HANDLE))
    assert mqerror(info) == (C.MQCC_FAILED, C.MQRC_HMSG_ERROR)
    assert [d for d, _md in drain(q)] == [b"m"]  # the message stayed


def test_a_plain_message_is_not_touched(qmgr) -> None:
    qmgr.define_queue("Q.RFH2.PLAIN")
    q = pymqi.Queue(qmgr, "Q.RFH2.PLAIN", IO)
    body = b"RFH \x00\x00\x00\x02 looks like a header but the MQMD says MQSTR"
    q.put(body, pymqi.MD(Format=C.MQFMT_STRING), pymqi.PMO(Options=SYNC))
    data, md, _handle = get_in_handle(qmgr, q)
    assert data == body and md.Format == C.MQFMT_STRING


# -- property-based round trips -----------------------------------------------------------

PROPS = st.dictionaries(NAMES, typed_values(), min_size=1, max_size=6)


def _store(props: dict) -> MessageProperties:
    out = MessageProperties()
    for name, (ptype, value) in props.items():
        out.set(name, value, ptype)
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PROPS, st.binary(max_size=16), st.sampled_from([273, 546]))
def test_any_properties_round_trip_between_rfh2_and_handle(props, body, encoding) -> None:
    world = World()
    qm = world.connect("QM.RFH2.PROP")
    try:
        qm.define_queue("Q")
        q = pymqi.Queue(qm, "Q", IO)
        expected = _store(props)
        # MQRFH2 in -> message handle out, with the types the dt attributes gave.
        header = rfh2(encoding=encoding)
        for folder in folders_from_properties(expected):
            header.add_folder(folder.xml.encode("utf-8"))
        q.put_rfh2(body, rfh2_md(encoding), pymqi.PMO(Options=SYNC), [header])
        data, _md, handle = get_in_handle(qm, q)
        assert data == body
        assert qm._msg_handles.properties(handle.msg_handle) == expected
        # Message handle in -> MQRFH2 out (PROPCTL ALL), read back to the same set.
        pmo = pymqi.PMO(Options=SYNC)
        pmo.OriginalMsgHandle = handle.msg_handle
        q.put(body, pymqi.MD(), pmo)
        md = pymqi.MD()
        gmo = pymqi.GMO(Options=C.MQGMO_PROPERTIES_FORCE_MQRFH2 | C.MQGMO_NO_SYNCPOINT)
        data = q.get(None, md, gmo)
        parsed = parse_message(data, md.Format, md.Encoding)
        assert parsed.body == body and parsed.properties == expected
    finally:
        qm.disconnect()


def test_maxmsgl_counts_the_mqrfh2_the_application_put(qmgr) -> None:
    """MAXMSGL against BufferLength: data that fits but an MQRFH2 in front that makes it
    too long is 2030, though the folders would travel as properties."""
    usr = b"<usr><colour>red</colour></usr>"
    header_length = len(rfh2(usr).pack(273))
    qmgr.define_queue("Q.RFH2.MAXMSGL", max_msg_length=header_length + 10)
    q = pymqi.Queue(qmgr, "Q.RFH2.MAXMSGL", IO)
    q.put_rfh2(b"0123456789", rfh2_md(), pymqi.PMO(Options=SYNC), [rfh2(usr)])  # fits
    with pytest.raises(pymqi.MQMIError) as exc:
        q.put_rfh2(b"0123456789X", rfh2_md(), pymqi.PMO(Options=SYNC), [rfh2(usr)])
    assert mqerror(exc) == (pymqi.CMQC.MQCC_FAILED, pymqi.CMQC.MQRC_MSG_TOO_BIG_FOR_Q)
    assert qmgr.queue_status("Q.RFH2.MAXMSGL")["current_depth"] == 1
