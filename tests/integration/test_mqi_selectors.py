"""MQOD SelectionString on the real broker and Redis: a selecting getter in one
connection and a plain one in another share a queue (IBM: Selectors, MQOPEN)."""

from __future__ import annotations

import pytest

import adapter.pymqi as pymqi
from tests.integration.conftest import drain, mqerror

pytestmark = pytest.mark.integration
C = pymqi.CMQC


def test_one_in_ten_selected_across_connections(qmgr, qmgr_name) -> None:
    qmgr.define_queue("Q.SELECT")
    out = pymqi.Queue(qmgr, "Q.SELECT", C.MQOO_OUTPUT)
    for i in range(50):
        md = pymqi.MD(Priority=7 if i % 10 == 0 else 2)
        out.put(b"m%d" % i, md, pymqi.PMO(Options=C.MQPMO_NO_SYNCPOINT))
    other = pymqi.connect(qmgr_name)
    try:
        od = pymqi.OD(ObjectName="Q.SELECT")
        od.set_vs("SelectionString", "Root.MQMD.Priority = 7")
        selecting = pymqi.Queue(other, od, C.MQOO_INPUT_SHARED)
        got = drain(selecting, options=C.MQGMO_SYNCPOINT)
        other.commit()
        assert [body for body, _md in got] == [b"m0", b"m10", b"m20", b"m30", b"m40"]
        assert all(md.Priority == 7 for _body, md in got)
        bad = pymqi.OD(ObjectName="Q.SELECT")
        bad.set_vs("SelectionString", "Root.MQMD.Priority = = 7")
        with pytest.raises(pymqi.MQMIError) as exc:
            pymqi.Queue(other, bad, C.MQOO_BROWSE)
        assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_SELECTOR_SYNTAX_ERROR)
    finally:
        other.disconnect()
    rest = drain(pymqi.Queue(qmgr, "Q.SELECT", C.MQOO_INPUT_SHARED))
    assert len(rest) == 45 and all(md.Priority == 2 for _body, md in rest)
