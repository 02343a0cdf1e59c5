"""MQXQH, the transmission-queue header: a message put to a remote queue waits on a
transmission queue with this header (and an MQMDE when it needs one) in front of its
data, and a separate message descriptor the queue manager makes. Pure.

IBM: "MQXQH - Transmission-queue header"
(https://www.ibm.com/docs/SSFKSJ_9.2.0/com.ibm.mq.ref.dev.doc/q101500_.html) and its
overview (https://www.ibm.com/docs/it/SSFKSJ_8.0.0/com.ibm.mq.ref.dev.doc/q101510_.html,
https://www.ibm.com/docs/SSFKSJ_9.4.0/refdev/q106000_.html):

- StrucId 'XQH ', Version 1, RemoteQName and RemoteQMgrName (the destination), MsgDesc:
  the *embedded* message descriptor, a version-1 MQMD copied from the one the
  application put with. When the message's version-2 fields (GroupId, MsgSeqNumber,
  Offset, MsgFlags, OriginalLength) are not all at their defaults, an MQMDE follows the
  MQXQH and the embedded MQMD's Format is MQFMT_MD_EXTENSION; the MQMDE then carries the
  data's Format, Encoding and CodedCharSetId ("MQMDE - Message descriptor extension",
  https://ibm.com/docs/SSFKSJ_9.3.0/refdev/q097780_.html).
- The header is in the queue manager's character set and MQENC_NATIVE, which the
  separate descriptor's CodedCharSetId and Encoding say.
- The *separate* descriptor (what MQGET of the transmission queue returns): Format
  MQFMT_XMIT_Q_HEADER; Report as the embedded one's with the MQRO_ACCEPT_UNSUP_IF_XMIT_MASK
  bits cleared (no COA / COD when the message reaches or leaves the transmission
  queue); a new MsgId; CorrelId the embedded MsgId; BackoutCount 0; MsgType, Expiry,
  Feedback, Priority, Persistence, ReplyToQ, ReplyToQMgr and the identity context
  copied; PutApplType MQAT_QMGR, PutApplName the queue manager's name, the put time of
  the transmission message, ApplOriginData blank; the version-2 fields at their
  defaults.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

from adapter.core import cmqc as C  # noqa: N812 (the project-wide alias)
from adapter.core.text import mqchar, mqstr

# MQMD version 1: StrucId .. ApplOriginData (324 bytes).
_MD1 = "4s i i i i i i i 8s i i 24s 24s i 48s 48s 12s 32s 32s i 28s 8s 8s 4s"
_XQH = struct.Struct("<4s i 48s 48s " + _MD1)
# MQMDE: StrucId, Version, StrucLength, Encoding, CodedCharSetId, Format, Flags, GroupId,
# MsgSeqNumber, Offset, MsgFlags, OriginalLength (72 bytes).
_MDE = struct.Struct("<4s i i i i 8s i 24s i i i i")
assert _XQH.size == C.MQXQH_CURRENT_LENGTH and _MDE.size == C.MQMDE_LENGTH_2

_MD_V2_DEFAULTS = {
    "GroupId": C.MQGI_NONE,
    "MsgSeqNumber": 1,
    "Offset": 0,
    "MsgFlags": C.MQMF_NONE,
    "OriginalLength": C.MQOL_UNDEFINED,
}
_IDENTITY = ("UserIdentifier", "AccountingToken", "ApplIdentityData")
_COPIED = ("MsgType", "Expiry", "Feedback", "Priority", "Persistence", "ReplyToQ", "ReplyToQMgr")


class XQHError(ValueError):
    """Bytes that do not start with a version-1 MQXQH."""


@dataclass(frozen=True)
class TransmissionHeader:
    """An MQXQH as read back: the destination, the embedded MQMD (field name -> value,
    MQCHAR fields as str without padding, byte fields as bytes), the MQMDE's fields when
    one follows, and the application data after both."""

    remote_q_name: str
    remote_q_mgr_name: str
    md: dict[str, Any]
    mde: dict[str, Any] | None
    data: bytes


def needs_mde(env: dict[str, Any]) -> bool:
    """Whether a message's version-2 MQMD fields need an MQMDE on the transmission queue."""
    return any(env.get(k, v) != v for k, v in _MD_V2_DEFAULTS.items())


def wrap(
    env: dict[str, Any],
    remote_q: str,
    remote_qmgr: str,
    put_date: bytes,
    put_time: bytes,
) -> bytes:
    """The transmission message's data: MQXQH (+ MQMDE) + the application data of the
    envelope `env` (the message as it would have been stored on its destination), whose
    PutDate / PutTime (from its PutTimestamp) the caller gives."""
    mde = needs_mde(env)
    fmt = C.MQFMT_MD_EXTENSION if mde else mqchar(env.get("Format", ""), 8)
    md = (
        b"MD  ",
        C.MQMD_VERSION_1,
        env.get("Report", 0),
        env.get("MsgType", C.MQMT_DATAGRAM),
        env.get("Expiry", C.MQEI_UNLIMITED),
        env.get("Feedback", 0),
        C.MQENC_NATIVE if mde else env.get("Encoding", C.MQENC_NATIVE),
        C.MQCCSI_Q_MGR if mde else env.get("CodedCharSetId", C.MQCCSI_Q_MGR),
        fmt,
        env.get("Priority", 0),
        env.get("Persistence", 0),
        bytes(env["MsgId"]),
        bytes(env.get("CorrelId", C.MQCI_NONE)),
        env.get("BackoutCount", 0),
        mqchar(env.get("ReplyToQ", ""), C.MQ_Q_NAME_LENGTH),
        mqchar(env.get("ReplyToQMgr", ""), C.MQ_Q_MGR_NAME_LENGTH),
        mqchar(env.get("UserIdentifier", ""), 12),
        bytes(env.get("AccountingToken", b"\0" * 32)),
        mqchar(env.get("ApplIdentityData", ""), 32),
        env.get("PutApplType", 0),
        mqchar(env.get("PutApplName", ""), 28),
        put_date,
        put_time,
        mqchar(env.get("ApplOriginData", ""), 4),
    )
    header = _XQH.pack(
        C.MQXQH_STRUC_ID,
        C.MQXQH_VERSION_1,
        mqchar(remote_q, C.MQ_Q_NAME_LENGTH),
        mqchar(remote_qmgr, C.MQ_Q_MGR_NAME_LENGTH),
        *md,
    )
    if mde:
        header += _MDE.pack(
            C.MQMDE_STRUC_ID,
            2,
            C.MQMDE_LENGTH_2,
            env.get("Encoding", C.MQENC_NATIVE),
            env.get("CodedCharSetId", C.MQCCSI_Q_MGR),
            mqchar(env.get("Format", ""), 8),
            0,
            bytes(env.get("GroupId", C.MQGI_NONE)),
            env.get("MsgSeqNumber", 1),
            env.get("Offset", 0),
            env.get("MsgFlags", C.MQMF_NONE),
            env.get("OriginalLength", C.MQOL_UNDEFINED),
        )
    return header + bytes(env.get("Payload", b""))


def separate_descriptor(
    env: dict[str, Any], qmgr: str, msg_id: bytes, put_ms: int, qmgr_ccsid: int
) -> dict[str, Any]:
    """The separate message descriptor's envelope fields (everything but Payload and
    Properties) of the transmission message for the message `env`."""
    out: dict[str, Any] = {k: env[k] for k in _COPIED if k in env}
    out.update({k: env[k] for k in _IDENTITY if k in env})
    out.update(_MD_V2_DEFAULTS)
    out.update(
        Report=env.get("Report", 0) & ~C.MQRO_ACCEPT_UNSUP_IF_XMIT_MASK,
        Encoding=C.MQENC_NATIVE,
        CodedCharSetId=qmgr_ccsid,
        Format=C.MQFMT_XMIT_Q_HEADER.decode(),
        MsgId=msg_id,
        CorrelId=bytes(env["MsgId"]),
        BackoutCount=0,
        PutApplType=C.MQAT_QMGR,
        PutApplName=qmgr[:28],
        PutTimestamp=put_ms,
        ApplOriginData="",
    )
    return out


def unwrap(data: bytes) -> TransmissionHeader:
    """An MQXQH (and the MQMDE after it, when its MsgDesc's Format says so) read from
    the start of a transmission message's data (MQENC_NATIVE, as `wrap` writes it)."""
    if len(data) < _XQH.size or data[:4] != C.MQXQH_STRUC_ID:
        raise XQHError("the data does not start with an MQXQH")
    f = _XQH.unpack_from(data)
    if f[1] != C.MQXQH_VERSION_1:
        raise XQHError(f"MQXQH Version {f[1]}: only version 1 exists")
    md = dict(zip(_MD1_NAMES, f[4:], strict=True))
    for name in _TEXT:  # as mqstr reads them: cut at a NUL, UTF-8, trailing blanks gone
        md[name] = md[name].split(b"\0", 1)[0].decode("utf-8", "replace").rstrip(" ")
    rest, mde = data[_XQH.size :], None
    if md["Format"] == mqstr(C.MQFMT_MD_EXTENSION):
        if len(rest) < _MDE.size or rest[:4] != C.MQMDE_STRUC_ID:
            raise XQHError("the MQXQH's Format says an MQMDE follows, and none does")
        m = _MDE.unpack_from(rest)
        mde = {
            "Encoding": m[3],
            "CodedCharSetId": m[4],
            "Format": mqstr(m[5]),
            "GroupId": m[7],
            "MsgSeqNumber": m[8],
            "Offset": m[9],
            "MsgFlags": m[10],
            "OriginalLength": m[11],
        }
        rest = rest[m[2] :]
    return TransmissionHeader(mqstr(f[2]), mqstr(f[3]), md, mde, rest)


_BYTES = frozenset({"MsgId", "CorrelId", "AccountingToken"})
_MD1_NAMES = (
    "StrucId", "Version", "Report", "MsgType", "Expiry", "Feedback", "Encoding",
    "CodedCharSetId", "Format", "Priority", "Persistence", "MsgId", "CorrelId",
    "BackoutCount", "ReplyToQ", "ReplyToQMgr", "UserIdentifier", "AccountingToken",
    "ApplIdentityData", "PutApplType", "PutApplName", "PutDate", "PutTime", "ApplOriginData",
)  # fmt: skip
# The MQCHAR fields of the embedded MQMD (read back as str); the others are MQLONG or
# MQBYTE (_BYTES).
_TEXT = tuple(
    n
    for n, code in zip(_MD1_NAMES, _MD1.split(), strict=True)
    if code.endswith("s") and n not in _BYTES
)
