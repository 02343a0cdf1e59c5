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
from adapter.core.convert_headers import LAYOUTS
from adapter.core.rfh2 import is_big_endian

MQFMT_TRIGGER = b"MQTRIG  "
MQFMT_REF_MSG_HEADER = b"MQHREF  "
MQRC_DLH_ERROR = 2141
MQRC_TMC_ERROR = 2191
MQRC_RMH_ERROR = 2220
MQRC_XQH_ERROR = 2260


@dataclass(frozen=True)
class _Check:
    reason: int
    ccsid: bool = False  # whether the header's CodedCharSetId is checked (module text)


# Format -> what MQPUT checks; the layouts themselves are convert_headers.LAYOUTS'.
_CHECKS = {
    C.MQFMT_DEAD_LETTER_HEADER.decode(): _Check(MQRC_DLH_ERROR, ccsid=True),
    C.MQFMT_XMIT_Q_HEADER.decode(): _Check(MQRC_XQH_ERROR),
    MQFMT_TRIGGER.decode(): _Check(MQRC_TMC_ERROR),
    MQFMT_REF_MSG_HEADER.decode(): _Check(MQRC_RMH_ERROR, ccsid=True),
    C.MQFMT_RF_HEADER.decode(): _Check(C.MQRC_RFH_ERROR),
}


def _long(data: bytes, at: int, encoding: int) -> int:
    return struct.unpack_from(">i" if is_big_endian(encoding) else "<i", data, at)[0]


def header_error(fmt: str, data: bytes, encoding: int) -> int | None:
    """The reason code MQPUT fails with for the header `fmt` names at the start of
    `data`; None when the format names no header checked here or the header is valid."""
    fmt = fmt.ljust(8)
    check = _CHECKS.get(fmt)
    if check is None:
        return None
    layout = LAYOUTS[fmt]
    struc_id = layout.struc_id.encode("ascii")
    if len(data) < layout.length or data[:4] != struc_id:
        return check.reason
    if isinstance(layout.version, str):  # MQTMC2's Version is four characters
        if data[4:8] != layout.version.encode("ascii"):
            return check.reason
    elif _long(data, 4, encoding) != layout.version:
        return check.reason
    if check.ccsid and layout.chain is not None:
        ccsid = _long(data, layout.chain[1], encoding)
        if ccsid <= 0 and ccsid != C.MQCCSI_INHERIT:
            return check.reason
    if layout.struc_length_at is not None:
        struc_length = _long(data, layout.struc_length_at, encoding)
        if not layout.length <= struc_length <= len(data):
            return check.reason
    return None
