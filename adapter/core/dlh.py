"""MQDLH, the dead-letter header: its 172 bytes, built and read. Pure.

IBM: "MQDLH - Dead letter header"
(https://www.ibm.com/docs/en/SSFKSJ_latest/refdev/q096110_.html) and "Field details
for MQDLH" (https://www.ibm.com/docs/ja/SSFKSJ_latest/refdev/q096115_.html): StrucId
'DLH ', Version 1, Reason (an MQFB_* or MQRC_* value), DestQName and DestQMgrName (the
original destination), Encoding, CodedCharSetId and Format of the data that follows
the header, PutApplType / PutApplName / PutDate / PutTime of whoever put the message on
the dead-letter queue (the queue manager: MQAT_QMGR and the first 28 characters of its
name, "PutApplType (MQLONG) for MQDLH" q096200_, "PutApplName (MQCHAR28) for MQDLH"
q096190_). The header's integers are in the encoding of the MQMD in front of it
(MQENC_NATIVE here: little-endian), its characters in the MQMD's character set (queue
names are single-byte: written as UTF-8, as the project writes every MQCHAR).

The message on the dead-letter queue keeps the original MQMD except Format (then
MQFMT_DEAD_LETTER_HEADER), Encoding and CodedCharSetId, which the header carries so a
DLQ handler can put them back ("Dead-letter queue processing", q029190_).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from adapter.core import cmqc as C  # noqa: N812 (the project-wide alias)
from adapter.core.rfh2 import is_big_endian
from adapter.core.text import mqchar

# StrucId, Version, Reason, DestQName, DestQMgrName, Encoding, CodedCharSetId, Format,
# PutApplType, PutApplName, PutDate, PutTime.
_LAYOUT = "4s i i 48s 48s i i 8s i 28s 8s 8s"
_BIG = struct.Struct(">" + _LAYOUT)
_LITTLE = struct.Struct("<" + _LAYOUT)
assert _BIG.size == C.MQDLH_LENGTH_1


class DLHError(ValueError):
    """Bytes that do not start with a version-1 MQDLH."""


def _order(encoding: int) -> struct.Struct:
    return _BIG if is_big_endian(encoding) else _LITTLE


@dataclass(frozen=True)
class DeadLetterHeader:
    """The MQDLH fields (MQCHAR fields as blank-padded bytes once packed)."""

    reason: int
    dest_q_name: str
    dest_q_mgr_name: str
    encoding: int
    coded_char_set_id: int
    format: bytes
    put_appl_type: int
    put_appl_name: str
    put_date: bytes
    put_time: bytes

    def pack(self, encoding: int = C.MQENC_NATIVE) -> bytes:
        """The 172 bytes, integers in `encoding` (the MQMD's in front of them)."""
        return _order(encoding).pack(
            C.MQDLH_STRUC_ID,
            C.MQDLH_VERSION_1,
            self.reason,
            mqchar(self.dest_q_name, C.MQ_Q_NAME_LENGTH),
            mqchar(self.dest_q_mgr_name, C.MQ_Q_MGR_NAME_LENGTH),
            self.encoding,
            self.coded_char_set_id,
            mqchar(self.format, 8),
            self.put_appl_type,
            mqchar(self.put_appl_name[: C.MQ_PUT_APPL_NAME_LENGTH], C.MQ_PUT_APPL_NAME_LENGTH),
            mqchar(self.put_date, 8),
            mqchar(self.put_time, 8),
        )


def unpack(data: bytes, encoding: int = C.MQENC_NATIVE) -> tuple[DeadLetterHeader, bytes]:
    """(the header, the data after it) of a message whose Format is MQFMT_DEAD_LETTER_HEADER;
    DLHError if it does not start with one."""
    if len(data) < C.MQDLH_LENGTH_1 or data[:4] != C.MQDLH_STRUC_ID:
        raise DLHError("the data does not start with an MQDLH")
    fields = _order(encoding).unpack_from(data)
    if fields[1] != C.MQDLH_VERSION_1:
        raise DLHError(f"MQDLH version {fields[1]} is not 1")
    header = DeadLetterHeader(
        reason=fields[2],
        dest_q_name=fields[3].decode("utf-8", "replace").rstrip(" \0"),
        dest_q_mgr_name=fields[4].decode("utf-8", "replace").rstrip(" \0"),
        encoding=fields[5],
        coded_char_set_id=fields[6],
        format=fields[7],
        put_appl_type=fields[8],
        put_appl_name=fields[9].decode("utf-8", "replace").rstrip(" \0"),
        put_date=fields[10],
        put_time=fields[11],
    )
    return header, bytes(data[C.MQDLH_LENGTH_1 :])
