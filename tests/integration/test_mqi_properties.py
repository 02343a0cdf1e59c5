"""Message properties on the real broker and Redis: put through a message handle in one
connection, got into a handle, as an MQRFH2 and by a selector in another."""

from __future__ import annotations

import pytest

import adapter.pymqi as pymqi
from adapter.core.rfh2 import parse_message
from tests.integration.conftest import mqerror

pytestmark = pytest.mark.integration
C = pymqi.CMQC


def test_properties_cross_connections_as_handle_rfh2_and_selection(qmgr, qmgr_name) -> None:
    qmgr.define_queue("Q.PROPERTIES")
    out = pymqi.Queue(qmgr, "Q.PROPERTIES", C.MQOO_OUTPUT)
    handle = pymqi.MessageHandle(qmgr)
    for i in range(4):
        handle.properties.set("region", "EMEA" if i % 2 else "APAC")
        handle.properties.set("amount", 100 * i, property_type=C.MQTYPE_INT64)
        pmo = pymqi.PMO(Options=C.MQPMO_NO_SYNCPOINT | C.MQPMO_SYNC_RESPONSE)
        pmo.OriginalMsgHandle = handle.msg_handle
        out.put(b"order-%d" % i, pymqi.MD(Persistence=C.MQPER_PERSISTENT), pmo)
    other = pymqi.connect(qmgr_name)
    try:
        od = pymqi.OD(ObjectName="Q.PROPERTIES")
        od.set_vs("SelectionString", "region = 'EMEA' AND amount >= 300")
        got_h = pymqi.MessageHandle(other)
        gmo = pymqi.GMO(Options=C.MQGMO_PROPERTIES_IN_HANDLE | C.MQGMO_SYNCPOINT)
        gmo.MsgHandle = got_h.msg_handle
        assert pymqi.Queue(other, od, C.MQOO_INPUT_SHARED).get(None, pymqi.MD(), gmo) == b"order-3"
        assert got_h.properties.get("amount") == 300
        assert got_h.properties.get("region") == "EMEA"
        other.commit()
        md = pymqi.MD()
        data = pymqi.Queue(other, "Q.PROPERTIES", C.MQOO_INPUT_SHARED).get(None, md)
        parsed = parse_message(data, md.Format, md.Encoding)  # PROPCTL(COMPAT), no handle
        assert parsed.body == b"order-0"
        assert {p.name: p.value for p in parsed.properties} == {
            "usr.region": "APAC",
            "usr.amount": 0,
        }
        with pytest.raises(pymqi.MQMIError) as exc:
            got_h.properties.get("nosuch")
        assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_PROPERTY_NOT_AVAILABLE)
    finally:
        other.disconnect()
