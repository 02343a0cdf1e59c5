"""MQRFH2 headers written by the application (ibmmq's RFH2, put_rfh2 / get_rfh2) and
message properties, interchangeable as on MQ: an MQRFH2's property folders are the
message's properties (to a message handle, to a selector), a handle's properties come
back as an MQRFH2; PROPCTL V6COMPAT, MQGMO_PROPERTIES_FORCE_MQRFH2, 2334, and PMO
version 3's Action / NewMsgHandle. tests/unit/test_mqi_rfh2_memory.py runs the same
scenarios on the in-memory backends."""

from __future__ import annotations

import pytest

import adapter.pymqi as pymqi
from adapter.core.rfh2 import parse_message
from tests.integration.conftest import mqerror

pytestmark = pytest.mark.integration
C = pymqi.CMQC
IO = C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT
SYNC = C.MQPMO_NO_SYNCPOINT | C.MQPMO_SYNC_RESPONSE

PSC = b"<psc><Command>RegSub</Command><Topic>a/b</Topic></psc>"
USR = b"<usr><color>red</color><count dt='i4'>7</count><big dt='i8'>-9</big></usr>"
JMS = b"<jms><Dst>queue:///Q</Dst><Cid>c-1</Cid></jms>"
MCD = b"<mcd><Msd>jms_text</Msd></mcd>"


def rfh2(*folders: bytes, fmt: bytes = C.MQFMT_STRING, encoding: int = 273) -> pymqi.RFH2:
    header = pymqi.RFH2(Encoding=encoding, CodedCharSetId=1208, Format=fmt, NameValueCCSID=1208)
    for folder in folders:
        header.add_folder(folder)
    return header


def rfh2_md(encoding: int = 273) -> pymqi.MD:
    return pymqi.MD(Format=C.MQFMT_RF_HEADER_2, Encoding=encoding, CodedCharSetId=1208)


def get_in_handle(qmgr, q, options: int = C.MQGMO_PROPERTIES_IN_HANDLE):
    handle = pymqi.MessageHandle(qmgr)
    gmo = pymqi.GMO(Options=options | C.MQGMO_NO_SYNCPOINT)
    gmo.MsgHandle = handle.msg_handle
    md = pymqi.MD()
    return q.get(None, md, gmo), md, handle


def test_rfh2_folders_become_typed_properties_and_the_rest_stays(qmgr) -> None:
    qmgr.define_queue("Q.RFH2.PROPS")
    q = pymqi.Queue(qmgr, "Q.RFH2.PROPS", IO)
    q.put_rfh2(b"hello", rfh2_md(), pymqi.PMO(Options=SYNC), [rfh2(MCD, JMS, PSC, USR)])
    data, md, handle = get_in_handle(qmgr, q)
    props = handle.properties
    assert props.get("color") == "red"
    assert props.get("count") == 7 and props.get("big") == -9
    stored = qmgr._msg_handles.properties(handle.msg_handle)  # the types the dt gave
    assert stored.get("usr.count").type == C.MQTYPE_INT32
    assert stored.get("usr.big").type == C.MQTYPE_INT64
    assert props.get("JMSCorrelationID") == "c-1"
    assert props.get("mcd.Msd") == "jms_text"
    # The psc folder is no property: it stays, alone, in the MQRFH2 before the body.
    assert md.Format == C.MQFMT_RF_HEADER_2
    rest = pymqi.RFH2().unpack(data)
    assert rest.get_folders() == ["psc"]
    assert rest["psc"].rstrip() == PSC
    assert rest["Format"] == C.MQFMT_STRING
    assert data[rest["StrucLength"] :] == b"hello"


def test_only_property_folders_leave_no_header(qmgr) -> None:
    qmgr.define_queue("Q.RFH2.ONLY")
    q = pymqi.Queue(qmgr, "Q.RFH2.ONLY", IO)
    q.put_rfh2(b"body", rfh2_md(), pymqi.PMO(Options=SYNC), [rfh2(MCD, USR)])
    data, md, handle = get_in_handle(qmgr, q)
    assert data == b"body"
    assert md.Format == C.MQFMT_STRING and md.Encoding == 273 and md.CodedCharSetId == 1208
    assert handle.properties.get("color") == "red"


def test_compat_getter_without_handle_gets_the_header_back(qmgr) -> None:
    """ibmmq's own test_get_rfh2_single: psc, an application folder, then mcd; a getter
    with no handle on a PROPCTL(COMPAT) queue reads the same header."""
    qmgr.define_queue("Q.RFH2.COMPAT")
    q = pymqi.Queue(qmgr, "Q.RFH2.COMPAT", IO)
    folders = (PSC, b"<testFolder><testVar>testValue</testVar></testFolder>", MCD)
    sent = rfh2(*folders)
    q.put_rfh2(b"payload", rfh2_md(), pymqi.PMO(Options=SYNC), [sent])
    got: list = []
    md = pymqi.MD()
    body = q.get_rfh2(None, md, pymqi.GMO(), got)
    assert body == b"payload"
    assert len(got) == 1
    assert got[0].get() == sent.get()
    assert got[0].pack(273) == sent.pack(273)


def test_compat_getter_gets_chained_headers_back(qmgr) -> None:
    """ibmmq's test_get_rfh2_multiple: two chained headers, the second holding mcd."""
    qmgr.define_queue("Q.RFH2.MULTI")
    q = pymqi.Queue(qmgr, "Q.RFH2.MULTI", IO)
    test_folder = b"<testFolder><testVar>testValue</testVar></testFolder>"
    sent = [rfh2(PSC, test_folder, fmt=C.MQFMT_RF_HEADER_2), rfh2(PSC, test_folder, MCD)]
    q.put_rfh2(b"payload", rfh2_md(), pymqi.PMO(Options=SYNC), sent)
    got: list = []
    assert q.get_rfh2(None, pymqi.MD(), pymqi.GMO(), got) == b"payload"
    assert [h.get() for h in got] == [h.get() for h in sent]


def test_handle_properties_come_back_through_get_rfh2(qmgr) -> None:
    qmgr.define_queue("Q.RFH2.BACK")
    q = pymqi.Queue(qmgr, "Q.RFH2.BACK", IO)
    handle = pymqi.MessageHandle(qmgr)
    handle.properties.set("region", "EMEA")
    handle.properties.set("amount", 42, property_type=C.MQTYPE_INT16)
    handle.properties.set("flag", True, property_type=C.MQTYPE_BOOLEAN)
    pmo = pymqi.PMO(Options=SYNC)
    pmo.OriginalMsgHandle = handle.msg_handle
    q.put(b"data", pymqi.MD(Format=C.MQFMT_STRING), pmo)
    got: list = []
    md = pymqi.MD()
    assert q.get_rfh2(None, md, pymqi.GMO(), got) == b"data"
    assert md.Format == C.MQFMT_RF_HEADER_2
    assert [h.get_folders() for h in got] == [["usr"]]
    assert got[0]["Format"] == C.MQFMT_STRING
    usr = got[0]["usr"]
    assert b"<region>EMEA</region>" in usr and b"<amount dt='i2'>42</amount>" in usr
    # ... and that MQRFH2 put again is the same properties, read into a handle.
    q.put_rfh2(b"again", rfh2_md(md.Encoding), pymqi.PMO(Options=SYNC), got)
    data, _md, back = get_in_handle(qmgr, q)
    assert data == b"again"
    stored = qmgr._msg_handles.properties(back.msg_handle)
    assert stored.get("usr.amount").type == C.MQTYPE_INT16 and stored.get("amount").value == 42
    assert stored.get("usr.flag").type == C.MQTYPE_BOOLEAN and stored.get("flag").value is True


def test_selector_sees_properties_put_in_an_rfh2(qmgr, qmgr_name) -> None:
    qmgr.define_queue("Q.RFH2.SEL")
    q = pymqi.Queue(qmgr, "Q.RFH2.SEL", C.MQOO_OUTPUT)
    for color, n in (("blue", 1), ("red", 2), ("red", 30)):
        usr = b"<usr><color>%s</color><n dt='i4'>%d</n></usr>" % (color.encode(), n)
        q.put_rfh2(b"m%d" % n, rfh2_md(), pymqi.PMO(Options=SYNC), [rfh2(usr)])
    other = pymqi.connect(qmgr_name)
    try:
        od = pymqi.OD(ObjectName="Q.RFH2.SEL")
        od.set_vs("SelectionString", "color = 'red' AND n > 10")
        getter = pymqi.Queue(other, od, C.MQOO_INPUT_SHARED)
        md = pymqi.MD()
        gmo = pymqi.GMO(Options=C.MQGMO_NO_SYNCPOINT | C.MQGMO_NO_PROPERTIES)
        assert getter.get(None, md, gmo) == b"m30"
        assert md.Format == C.MQFMT_STRING  # no property asked for: no header
    finally:
        other.disconnect()


def test_v6compat_keeps_the_application_rfh2_as_it_was_put(qmgr) -> None:
    qmgr.define_queue("Q.RFH2.V6", property_control=C.MQPROP_V6COMPAT)
    q = pymqi.Queue(qmgr, "Q.RFH2.V6", IO)
    sent = rfh2(USR, PSC)
    handle = pymqi.MessageHandle(qmgr)
    handle.properties.set("api", "yes")
    pmo = pymqi.PMO(Options=SYNC)
    pmo.OriginalMsgHandle = handle.msg_handle
    q.put_rfh2(b"v6", rfh2_md(), pmo, [sent])
    data, md, got = get_in_handle(qmgr, q, C.MQGMO_PROPERTIES_AS_Q_DEF)
    assert md.Format == C.MQFMT_RF_HEADER_2
    assert data == sent.pack(273) + b"v6"  # received as it was sent
    assert got.properties.get("api") == "yes"  # MQSETMP's: by MQINQMP
    with pytest.raises(pymqi.MQMIError) as info:
        got.properties.get("color")  # the MQRFH2's: not by MQINQMP
    assert mqerror(info) == (C.MQCC_FAILED, C.MQRC_PROPERTY_NOT_AVAILABLE)


def test_force_mqrfh2_gives_the_properties_in_the_data_not_the_handle(qmgr) -> None:
    qmgr.define_queue("Q.RFH2.FORCE")
    q = pymqi.Queue(qmgr, "Q.RFH2.FORCE", IO)
    q.put_rfh2(b"f", rfh2_md(), pymqi.PMO(Options=SYNC), [rfh2(PSC, USR)])
    data, md, handle = get_in_handle(qmgr, q, C.MQGMO_PROPERTIES_FORCE_MQRFH2)
    assert md.Format == C.MQFMT_RF_HEADER_2
    parsed = parse_message(data, md.Format, md.Encoding)
    assert parsed.body == b"f"
    assert parsed.properties.get("usr.count").value == 7
    assert [f.name for f in parsed.headers[0].folders] == ["psc"]
    with pytest.raises(pymqi.MQMIError) as info:
        handle.properties.get("color")
    assert mqerror(info)[1] == C.MQRC_PROPERTY_NOT_AVAILABLE


def test_an_invalid_rfh2_is_2334_and_nothing_is_put(qmgr) -> None:
    qmgr.define_queue("Q.RFH2.BAD")
    q = pymqi.Queue(qmgr, "Q.RFH2.BAD", IO)
    no_ccsid = rfh2(USR)
    no_ccsid["CodedCharSetId"] = 0  # MQCCSI_UNDEFINED, RFH2()'s initial value
    wrong_length = rfh2(USR)
    wrong_length["StrucLength"] = 400
    for header in (no_ccsid, wrong_length):
        with pytest.raises(pymqi.MQMIError) as info:
            q.put_rfh2(b"x", rfh2_md(), pymqi.PMO(Options=SYNC), [header])
        assert mqerror(info) == (C.MQCC_FAILED, C.MQRC_RFH_ERROR)
    with pytest.raises(pymqi.MQMIError) as info:
        q.put(b"RFH \x02", rfh2_md())
    assert mqerror(info) == (C.MQCC_FAILED, C.MQRC_RFH_ERROR)
    with pytest.raises(pymqi.MQMIError) as info:
        q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_NO_SYNCPOINT))
    assert mqerror(info)[1] == C.MQRC_NO_MSG_AVAILABLE


def test_pmo_new_msg_handle_and_action(qmgr) -> None:
    qmgr.define_queue("Q.RFH2.ACTION")
    q = pymqi.Queue(qmgr, "Q.RFH2.ACTION", IO)
    original = pymqi.MessageHandle(qmgr)
    original.properties.set("trace", "t-1")
    original.properties.set("shared", "original")

    def put(action: int, body: bytes, *rfh2_headers: pymqi.RFH2) -> pymqi.MessageHandle:
        new = pymqi.MessageHandle(qmgr)
        new.properties.set("shared", "new")
        pmo = pymqi.PMO(Options=SYNC, Action=action)
        pmo.OriginalMsgHandle, pmo.NewMsgHandle = original.msg_handle, new.msg_handle
        if rfh2_headers:
            q.put_rfh2(body, rfh2_md(), pmo, list(rfh2_headers))
        else:
            q.put(body, pymqi.MD(), pmo)
        return new

    put(C.MQACTP_FORWARD, b"forwarded")
    _data, _md, got = get_in_handle(qmgr, q)
    assert got.properties.get("trace") == "t-1"  # MQCOPY_DEFAULT includes FORWARD
    assert got.properties.get("shared") == "new"  # NewMsgHandle overrides the original
    put(C.MQACTP_REPLY, b"reply")
    _data, _md, got = get_in_handle(qmgr, q)
    assert got.properties.get("shared") == "new"
    with pytest.raises(pymqi.MQMIError) as info:
        got.properties.get("trace")  # MQCOPY_DEFAULT leaves REPLY out
    assert mqerror(info)[1] == C.MQRC_PROPERTY_NOT_AVAILABLE
    # NewMsgHandle shows the message put, MQRFH2 properties included; the original
    # handle is not altered.
    new = put(C.MQACTP_NEW, b"with rfh2", rfh2(USR))
    assert new.properties.get("trace") == "t-1"
    assert new.properties.get("color") == "red" and new.properties.get("shared") == "new"
    with pytest.raises(pymqi.MQMIError) as info:
        original.properties.get("color")
    assert mqerror(info)[1] == C.MQRC_PROPERTY_NOT_AVAILABLE
    with pytest.raises(pymqi.MQMIError) as info:
        put(9, b"bad action")
    assert mqerror(info) == (C.MQCC_FAILED, C.MQRC_ACTION_ERROR)
