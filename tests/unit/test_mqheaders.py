"""MQPUT's check of the MQ header at the start of the data (adapter/core/mqheaders.py):
the pure rules over every field IBM's reason pages name, and the put refusing a bad
MQDLH / MQXQH / MQTMC2 / MQRMH while a good one (a DLH read back by the DLH struct)
goes through."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

import adapter.pymqi as pymqi
from adapter.core import cmqc as C
from adapter.core import mqheaders as H
from adapter.core.dlh import DeadLetterHeader
from tests.integration.conftest import mqerror

LITTLE, BIG = C.MQENC_NATIVE, 273  # MQENC_INTEGER_REVERSED in NATIVE; NORMAL in 273


def dlh(encoding: int = LITTLE, **fields) -> bytes:
    header = DeadLetterHeader(
        reason=C.MQRC_Q_FULL,
        dest_q_name=b"Q",
        dest_q_mgr_name=b"QM",
        encoding=C.MQENC_NATIVE,
        coded_char_set_id=fields.pop("ccsid", 1208),
        format=C.MQFMT_STRING,
        put_appl_type=C.MQAT_QMGR,
        put_appl_name=b"QM",
        put_date=b"20261123",
        put_time=b"19300000",
    )
    return header.pack(encoding)


def test_a_valid_dlh_passes_in_either_byte_order() -> None:
    for enc in (LITTLE, BIG):
        assert H.header_error("MQDEAD  ", dlh(enc) + b"data", enc) is None
    assert H.header_error("MQDEAD", dlh(), LITTLE) is None  # an unpadded Format too


@pytest.mark.parametrize(
    ("mutate", "why"),
    [
        (lambda b: b"XXX " + b[4:], "StrucId"),
        (lambda b: b[:4] + struct.pack("<i", 2) + b[8:], "Version"),
        (lambda b: b[:112] + struct.pack("<i", 0) + b[116:], "CCSID zero"),
        (lambda b: b[:112] + struct.pack("<i", C.MQCCSI_EMBEDDED) + b[116:], "CCSID -1"),
        (lambda b: b[:100], "shorter than the structure"),
    ],
)
def test_an_invalid_dlh_is_2141(mutate, why: str) -> None:
    assert H.header_error("MQDEAD  ", mutate(dlh()), LITTLE) == H.MQRC_DLH_ERROR, why


def test_inherit_is_a_valid_header_ccsid() -> None:
    data = dlh()
    data = data[:112] + struct.pack("<i", C.MQCCSI_INHERIT) + data[116:]
    assert H.header_error("MQDEAD  ", data, LITTLE) is None


def test_xqh_tmc2_and_rmh() -> None:
    xqh = b"XQH " + struct.pack("<i", 1) + b" " * 420
    assert H.header_error("MQXMIT  ", xqh, LITTLE) is None
    assert H.header_error("MQXMIT  ", xqh[:400], LITTLE) == H.MQRC_XQH_ERROR
    tmc = b"TMC    2" + b" " * 724
    assert H.header_error("MQTRIG  ", tmc, LITTLE) is None
    assert H.header_error("MQTRIG  ", b"TMC    1" + tmc[8:], LITTLE) == H.MQRC_TMC_ERROR
    rmh = b"RMH " + struct.pack("<iiii", 1, 108, C.MQENC_NATIVE, 1208) + b"\0" * 88
    assert H.header_error("MQHREF  ", rmh, LITTLE) is None
    too_long = rmh[:8] + struct.pack("<i", 200) + rmh[12:]  # StrucLength past the data
    assert H.header_error("MQHREF  ", too_long, LITTLE) == H.MQRC_RMH_ERROR


def test_an_mqrfh_version_1_is_checked_as_mq_checks_it() -> None:
    nvs = b"OPT_APP_GRP Payroll "  # NameValueString, 20 bytes
    rfh = b"RFH " + struct.pack("<iiii", 1, 52, C.MQENC_NATIVE, 0) + b"MQSTR   "
    rfh += struct.pack("<i", 0) + nvs
    assert H.header_error("MQHRF   ", rfh + b"data", LITTLE) is None  # CCSID 0 allowed
    assert H.header_error("MQHRF   ", b"RFH " + struct.pack("<i", 2) + rfh[8:], LITTLE) == (
        C.MQRC_RFH_ERROR
    )
    past_the_end = rfh[:8] + struct.pack("<i", 90) + rfh[12:]
    assert H.header_error("MQHRF   ", past_the_end, LITTLE) == C.MQRC_RFH_ERROR
    under_fixed = rfh[:8] + struct.pack("<i", 28) + rfh[12:]
    assert H.header_error("MQHRF   ", under_fixed, LITTLE) == C.MQRC_RFH_ERROR
    assert H.header_error("MQHRF   ", rfh[:20], LITTLE) == C.MQRC_RFH_ERROR


@given(fmt=st.text(max_size=8), data=st.binary(max_size=64))
def test_formats_that_name_no_checked_header_are_never_refused(fmt: str, data: bytes) -> None:
    known = {"MQDEAD", "MQXMIT", "MQTRIG", "MQHREF", "MQHRF"}
    if fmt.strip() not in known:
        assert H.header_error(fmt, data, LITTLE) is None


def test_mqput_refuses_a_bad_dlh_and_keeps_a_good_one(qmgr) -> None:
    qmgr.define_queue("Q.HEADERS")
    q = pymqi.Queue(qmgr, "Q.HEADERS", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    md = pymqi.MD(Format=C.MQFMT_DEAD_LETTER_HEADER)
    with pytest.raises(pymqi.MQMIError) as exc:
        q.put(b"DLH " + b"\0" * 20, md)
    assert mqerror(exc) == (C.MQCC_FAILED, H.MQRC_DLH_ERROR)
    q.put(dlh() + b"payload", pymqi.MD(Format=C.MQFMT_DEAD_LETTER_HEADER))
    got = q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_NO_WAIT))
    assert pymqi.DLH().get_header(got).Reason == C.MQRC_Q_FULL
