"""MQGMO_CONVERT against the application's buffer: a message that fitted before
conversion but not after (IBM's "Processing conventions", 1, and reason 2120)."""

from __future__ import annotations

import pytest

import adapter.pymqi as pymqi
from tests.integration.conftest import mqerror

C = pymqi.CMQC


def _queue(qmgr, name: str) -> pymqi.Queue:
    qmgr.define_queue(name)
    return pymqi.Queue(qmgr, name, C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED | C.MQOO_BROWSE)


def test_a_message_that_grows_past_the_buffer_is_removed_and_returned_unconverted(qmgr) -> None:
    q = _queue(qmgr, "Q.GROWS")
    q.put("ÄÖÜ!".encode("latin-1"), pymqi.MD(Format=C.MQFMT_STRING, CodedCharSetId=819))
    md = pymqi.MD(CodedCharSetId=1208)
    gmo = pymqi.GMO(Options=C.MQGMO_NO_WAIT | C.MQGMO_CONVERT)
    with pytest.raises(pymqi.MQMIError) as exc:  # 4 bytes in latin-1, 7 in UTF-8
        q.get(4, md, gmo)
    assert mqerror(exc) == (C.MQCC_WARNING, C.MQRC_CONVERTED_MSG_TOO_BIG)
    assert exc.value.message == "ÄÖÜ!".encode("latin-1")
    assert md.CodedCharSetId == 819  # the MQMD describes what came back
    with pytest.raises(pymqi.MQMIError) as exc:  # it was removed
        q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_NO_WAIT))
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE)


def test_accepting_truncation_truncates_the_converted_message(qmgr) -> None:
    q = _queue(qmgr, "Q.GROWS.ACCEPT")
    q.put("ÄÖÜ!".encode("latin-1"), pymqi.MD(Format=C.MQFMT_STRING, CodedCharSetId=819))
    md = pymqi.MD(CodedCharSetId=1208)
    options = C.MQGMO_NO_WAIT | C.MQGMO_CONVERT | C.MQGMO_ACCEPT_TRUNCATED_MSG
    with pytest.raises(pymqi.MQMIError) as exc:
        q.get(4, md, pymqi.GMO(Options=options))
    assert mqerror(exc) == (C.MQCC_WARNING, C.MQRC_TRUNCATED_MSG_ACCEPTED)
    assert exc.value.message == "ÄÖÜ!".encode()[:4] and md.CodedCharSetId == 1208


def test_a_message_that_still_fits_after_conversion_converts(qmgr) -> None:
    q = _queue(qmgr, "Q.FITS")
    q.put("ÄÖ".encode("latin-1"), pymqi.MD(Format=C.MQFMT_STRING, CodedCharSetId=819))
    md = pymqi.MD(CodedCharSetId=1208)
    got = q.get(4, md, pymqi.GMO(Options=C.MQGMO_NO_WAIT | C.MQGMO_CONVERT))
    assert got == "ÄÖ".encode() and md.CodedCharSetId == 1208
