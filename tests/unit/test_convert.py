"""MQGMO_CONVERT (adapter/core/convert.py and the get path): IBM's conversion
processing steps, the warnings that return the data unconverted, and MQGET's MQMD
describing what it returns."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import adapter.pymqi as pymqi
from adapter.core import convert as V
from tests.integration.conftest import mqerror

C = pymqi.CMQC
NATIVE = C.MQENC_NATIVE
STR = C.MQFMT_STRING.decode()


def test_nothing_to_convert_returns_the_message_as_it_is() -> None:
    same = V.convert(b"abc", STR, 1208, NATIVE, 1208, NATIVE)
    assert same == V.Converted(b"abc", 1208, NATIVE)
    # MQCCSI_Q_MGR on either side is the queue manager's CCSID
    assert V.convert(b"abc", STR, 0, NATIVE, 1208, NATIVE).reason is None
    assert V.convert(b"", STR, 1208, NATIVE, 37, NATIVE) == V.Converted(b"", 1208, NATIVE)


def test_a_string_converts_between_character_sets() -> None:
    got = V.convert("héllo".encode(), STR, 1208, NATIVE, 819, 273)
    assert got == V.Converted("héllo".encode("latin-1"), 819, 273)
    ebcdic = V.convert(b"HELLO", STR, 819, NATIVE, 37, NATIVE)
    assert ebcdic.data == "HELLO".encode("cp037") and ebcdic.ccsid == 37


@pytest.mark.parametrize(
    ("data", "fmt", "ccsid", "want", "reason"),
    [
        (b"\x00\x01", "MQNONE", 1208, 819, V.MQRC_FORMAT_ERROR),
        (b"\x00\x01", "        ", 1208, 819, V.MQRC_FORMAT_ERROR),  # MQFMT_NONE
        (b"data", "MYFMT", 1208, 819, V.MQRC_FORMAT_ERROR),  # needs an exit
        (b"data", "MQHDIST", 1208, 819, V.MQRC_NOT_CONVERTED),  # built in, not here
        (b"data", "MQHRF2", 1208, 819, V.MQRC_NOT_CONVERTED),  # not an MQRFH2
        (b"data", STR, 4242, 819, V.MQRC_SOURCE_CCSID_ERROR),
        (b"data", STR, 1208, 4242, V.MQRC_TARGET_CCSID_ERROR),
        ("€".encode(), STR, 1208, 819, V.MQRC_NOT_CONVERTED),  # no € in ISO 8859-1
        (b"\xff\xfe", STR, 1208, 819, V.MQRC_NOT_CONVERTED),  # not UTF-8
    ],
)
def test_what_cannot_convert_comes_back_unconverted_with_its_reason(
    data: bytes, fmt: str, ccsid: int, want: int, reason: int
) -> None:
    got = V.convert(data, fmt, ccsid, NATIVE, want, NATIVE)
    assert got == V.Converted(data, ccsid, NATIVE, reason)


@given(text=st.text(alphabet=st.characters(max_codepoint=255), max_size=40))
def test_latin1_text_round_trips_through_utf8(text: str) -> None:
    there = V.convert(text.encode("latin-1"), STR, 819, NATIVE, 1208, NATIVE)
    back = V.convert(there.data, STR, there.ccsid, NATIVE, 819, NATIVE)
    assert back.reason is None and back.data == text.encode("latin-1")


def _get(q, ccsid: int, options: int = 0, max_length=None):
    md = pymqi.MD(CodedCharSetId=ccsid)
    gmo = pymqi.GMO(Options=C.MQGMO_NO_WAIT | C.MQGMO_CONVERT | options)
    return q.get(max_length, md, gmo), md


def test_mqget_converts_and_its_mqmd_says_to_what(qmgr) -> None:
    qmgr.define_queue("Q.CONVERT")
    q = pymqi.Queue(qmgr, "Q.CONVERT", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    q.put("grüße".encode(), pymqi.MD(Format=C.MQFMT_STRING, CodedCharSetId=1208))
    data, md = _get(q, 819)
    assert data == "grüße".encode("latin-1") and md.CodedCharSetId == 819
    # without MQGMO_CONVERT nothing changes
    q.put("grüße".encode(), pymqi.MD(Format=C.MQFMT_STRING, CodedCharSetId=1208))
    md = pymqi.MD(CodedCharSetId=819)
    assert q.get(None, md, pymqi.GMO(Options=C.MQGMO_NO_WAIT)) == "grüße".encode()
    assert md.CodedCharSetId == 1208


def test_mqget_warns_2110_for_binary_data_and_the_message_is_got(qmgr) -> None:
    qmgr.define_queue("Q.CONVERT.NONE")
    q = pymqi.Queue(qmgr, "Q.CONVERT.NONE", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    q.put(b"\x00\x01\x02", pymqi.MD(Format=C.MQFMT_NONE, CodedCharSetId=1208))
    with pytest.raises(pymqi.MQMIError) as exc:
        _get(q, 37)
    assert mqerror(exc) == (C.MQCC_WARNING, V.MQRC_FORMAT_ERROR)
    with pytest.raises(pymqi.MQMIError) as exc:  # removed: the warning came with it
        _get(q, 37)
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE)


def test_a_truncated_message_is_not_converted_unless_truncation_is_accepted(qmgr) -> None:
    qmgr.define_queue("Q.CONVERT.TRUNC")
    q = pymqi.Queue(qmgr, "Q.CONVERT.TRUNC", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    q.put(b"ABCDEFGH", pymqi.MD(Format=C.MQFMT_STRING, CodedCharSetId=819))
    with pytest.raises(pymqi.MQMIError) as exc:
        _get(q, 37, max_length=4)
    assert mqerror(exc) == (C.MQCC_WARNING, C.MQRC_TRUNCATED_MSG_FAILED)
    assert exc.value.message == b"ABCD"  # unconverted
    with pytest.raises(pymqi.MQMIError) as exc:
        _get(q, 37, C.MQGMO_ACCEPT_TRUNCATED_MSG, max_length=4)
    assert mqerror(exc) == (C.MQCC_WARNING, C.MQRC_TRUNCATED_MSG_ACCEPTED)
    assert exc.value.message == "ABCD".encode("cp037")


def test_mqccsi_q_mgr_on_put_is_stored_as_the_queue_managers_ccsid(qmgr) -> None:
    """MQMD CodedCharSetId: MQCCSI_Q_MGR on MQPUT becomes the queue manager's CCSID, so
    MQGET never returns MQCCSI_Q_MGR."""
    qmgr.define_queue("Q.CCSID")
    q = pymqi.Queue(qmgr, "Q.CCSID", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    q.put(b"text", pymqi.MD(Format=C.MQFMT_STRING, CodedCharSetId=C.MQCCSI_Q_MGR))
    md = pymqi.MD()
    q.get(None, md, pymqi.GMO(Options=C.MQGMO_NO_WAIT))
    assert md.CodedCharSetId == V.QMGR_CCSID == 1208
