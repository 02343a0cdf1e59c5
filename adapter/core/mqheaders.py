"""MQPUT's check of the MQ header an application puts at the start of its data, named by
MQMD.Format: a header that is not valid fails the put with the header's reason code, as
MQ fails it, instead of travelling on to break the program that reads it (a DLQ
handler, a trigger monitor, a channel). Pure.

What is checked, per IBM's reason-code pages (StrucId, Version, CodedCharSetId where the
header has one, StrucLength where it has one, and the header fitting in the data):

- MQDLH, Format MQDEAD: 2141 MQRC_DLH_ERROR
  <https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q042020_.html>
- MQXQH, Format MQXMIT: 2260 MQRC_XQH_ERROR
  <https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.tro.doc/q042920_.html>
- MQTMC2, Format MQTRIG: 2191 MQRC_TMC_ERROR
  <https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q042330_.html>
- MQRMH, Format MQHREF: 2220 MQRC_RMH_ERROR
  <https://www.ibm.com/support/knowledgecenter/SSFKSJ_9.1.0/com.ibm.mq.ref.doc/q042570_.html>
- MQRFH (version 1), Format MQHRF: 2334 MQRC_RFH_ERROR; its CodedCharSetId describes
  the data after NameValueString and starts as MQCCSI_UNDEFINED, so it is not checked
  <https://www.ibm.com/docs/en/SSFKSJ_latest/refdev/q099070_.html>

(MQRFH2, Format MQHRF2, is read and checked on put by core/putprops.py: 2334.) A
header's CodedCharSetId must be a CCSID or MQCCSI_INHERIT: zero (MQCCSI_DEFAULT,
MQCCSI_Q_MGR, MQCCSI_UNDEFINED) and the other negative values are not valid there.
Integers are in the MQMD's Encoding, as the header's reader takes them.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from adapter.core import cmqc as C
from adapter.core.rfh2 import is_big_endian

MQFMT_TRIGGER = b"MQTRIG  "
MQFMT_REF_MSG_HEADER = b"MQHREF  "
MQRC_DLH_ERROR = 2141
MQRC_TMC_ERROR = 2191
MQRC_RMH_ERROR = 2220
MQRC_XQH_ERROR = 2260


@dataclass(frozen=True)
class _Header:
    reason: int
    struc_id: bytes
    length: int  # the fixed part
    version: bytes | int  # MQTMC2's Version is four characters, the others an MQLONG
    ccsid_at: int | None = None  # offset of CodedCharSetId, if the header has one
    struc_length_at: int | None = None  # offset of StrucLength, if the header has one


_HEADERS = {
    C.MQFMT_DEAD_LETTER_HEADER.decode(): _Header(MQRC_DLH_ERROR, b"DLH ", 172, 1, ccsid_at=112),
    C.MQFMT_XMIT_Q_HEADER.decode(): _Header(MQRC_XQH_ERROR, b"XQH ", 428, 1),
    MQFMT_TRIGGER.decode(): _Header(MQRC_TMC_ERROR, b"TMC ", 732, b"   2"),
    C.MQFMT_RF_HEADER.decode(): _Header(C.MQRC_RFH_ERROR, b"RFH ", 32, 1, struc_length_at=8),
    MQFMT_REF_MSG_HEADER.decode(): _Header(
        MQRC_RMH_ERROR, b"RMH ", 108, 1, ccsid_at=16, struc_length_at=8
    ),
}


def _long(data: bytes, at: int, encoding: int) -> int:
    return struct.unpack_from(">i" if is_big_endian(encoding) else "<i", data, at)[0]


def header_error(fmt: str, data: bytes, encoding: int) -> int | None:
    """The reason code MQPUT fails with for the header `fmt` names at the start of
    `data`; None when the format names no header checked here or the header is valid."""
    header = _HEADERS.get(fmt.ljust(8))
    if header is None:
        return None
    if len(data) < header.length or data[:4] != header.struc_id:
        return header.reason
    if isinstance(header.version, bytes):
        if data[4:8] != header.version:
            return header.reason
    elif _long(data, 4, encoding) != header.version:
        return header.reason
    if header.ccsid_at is not None:
        ccsid = _long(data, header.ccsid_at, encoding)
        if ccsid <= 0 and ccsid != C.MQCCSI_INHERIT:
            return header.reason
    if header.struc_length_at is not None:
        struc_length = _long(data, header.struc_length_at, encoding)
        if not header.length <= struc_length <= len(data):
            return header.reason
    return None
