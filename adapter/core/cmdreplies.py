"""The command server's rules for a request got from SYSTEM.ADMIN.COMMAND.QUEUE and for
the MQMD of its responses. Pure: adapter/tools/cmdserver.py applies them.

IBM MQ 9.4 (pages under https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.adm.doc/
unless said):

- "PCF command messages" (q020010_.html): a command is one message on
  SYSTEM.ADMIN.COMMAND.QUEUE; the command server sends the replies to the queue named by
  the request's ReplyToQ and ReplyToQMgr.
- "PCF responses in IBM MQ" (q020030_.html): the response's MQCFH carries the command's
  identifier; "the message identifier and correlation identifier are set according to
  the report options of the request"; an MQCFT_COMMAND gets standard responses
  (MQCFT_RESPONSE); an MQCFT_COMMAND_XR gets "either extended or standard responses"
  outside z/OS: mqk gives standard ones to both.
- "Retrieving replies to your commands"
  (https://www.ibm.com/support/knowledgecenter/SSFKSJ_8.0.0/com.ibm.mq.adm.doc/q022310_.htm):
  "The command server sends the reply messages with the same persistence as the
  command message it received"; the ids to match a reply by: with MQRO_NONE the
  CorrelId is the command's MsgId, with MQRO_PASS_CORREL_ID the command's CorrelId,
  with MQRO_PASS_MSG_ID the MsgId is the command's.
- "MQMD settings in command messages to the queue manager"
  (https://www.ibm.com/docs/SSFKSJ_9.2.0/com.ibm.mq.ref.dev.doc/q103920_.htm): an
  MQMT_REQUEST is always answered; an MQMT_DATAGRAM only as its MQRO_PAN (answer a
  success) / MQRO_NAN (answer a failure) say; a warning is answered if either is set.
- The MQCFH of a command (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q049400_.html):
  Type MQCFT_COMMAND or MQCFT_COMMAND_XR, MsgSeqNumber 1 and Control MQCFC_LAST (a
  command is one message); the "PCF reason codes" name what is wrong:
  MQRCCF_CFH_TYPE_ERROR 3001, _LENGTH_ 3002, _VERSION_ 3003, _MSG_SEQ_NUMBER_ERR 3004,
  _CONTROL_ 3005, _PARM_COUNT_ 3006, and MQRCCF_MD_FORMAT_ERROR 3023 for a Format that
  is not MQFMT_ADMIN.

Expiry is not in those pages: as for report messages (core/reports.py), the response
keeps the request's remaining Expiry (and MQRO_DISCARD_MSG) only with
MQRO_PASS_DISCARD_AND_EXPIRY, else it lives unlimited. Priority is the request's.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from adapter.core import cmqc as C  # noqa: N812
from adapter.core import cmqcfc as F  # noqa: N812
from adapter.core.rfh2 import is_big_endian

COMMAND_QUEUE = "SYSTEM.ADMIN.COMMAND.QUEUE"
REPLY_MODEL = "SYSTEM.ADMIN.COMMAND.REPLY.MODEL"
DEFAULT_MODEL = "SYSTEM.DEFAULT.MODEL.QUEUE"
COMMAND_TYPES = frozenset((F.MQCFT_COMMAND, F.MQCFT_COMMAND_XR))


@dataclass(frozen=True)
class BadRequest:
    """A request the command server answers with one failure response, unrun."""

    command: int  # the MQCFH's Command when there is an MQCFH, else MQCMD_NONE
    reason: int


def request_error(fmt: bytes | str, data: bytes, encoding: int) -> BadRequest | None:
    """What is wrong with a command message before its parameters are read (those are
    pcfserver's to judge), or None."""
    if isinstance(fmt, str):
        fmt = fmt.encode()
    if fmt.ljust(8)[:8] != C.MQFMT_ADMIN:
        return BadRequest(F.MQCMD_NONE, F.MQRCCF_MD_FORMAT_ERROR)
    if len(data) < F.MQCFH_STRUC_LENGTH:
        return BadRequest(F.MQCMD_NONE, F.MQRCCF_CFH_LENGTH_ERROR)
    order = ">" if is_big_endian(encoding) else "<"
    kind, length, version, command, seq, control, _, _, count = struct.unpack_from(
        order + "9i", data
    )
    checks = (
        (kind in COMMAND_TYPES, F.MQRCCF_CFH_TYPE_ERROR),
        (length == F.MQCFH_STRUC_LENGTH, F.MQRCCF_CFH_LENGTH_ERROR),
        (F.MQCFH_VERSION_1 <= version <= F.MQCFH_VERSION_3, F.MQRCCF_CFH_VERSION_ERROR),
        (seq == 1, F.MQRCCF_CFH_MSG_SEQ_NUMBER_ERR),
        (control == F.MQCFC_LAST, F.MQRCCF_CFH_CONTROL_ERROR),
        (count >= 0, F.MQRCCF_CFH_PARM_COUNT_ERROR),
    )
    for ok, reason in checks:
        if not ok:
            return BadRequest(command, reason)
    return None


def answered(msg_type: int, report: int, comp_code: int) -> bool:
    """Whether the command server sends the responses of a command that ended with
    `comp_code` (its first failure's, else MQCC_OK)."""
    if msg_type != C.MQMT_DATAGRAM:
        return True  # MQMT_REQUEST (and anything else MQPUT let through): answered
    pan, nan = bool(report & C.MQRO_PAN), bool(report & C.MQRO_NAN)
    if comp_code == C.MQCC_OK:
        return pan
    if comp_code == C.MQCC_WARNING:
        return pan or nan
    return nan


@dataclass(frozen=True)
class ReplyFields:
    """The MQMD fields of every response to one request (MsgId None: a new one)."""

    msg_id: bytes | None
    correl_id: bytes
    persistence: int
    priority: int
    expiry: int
    report: int
    msg_type: int = C.MQMT_REPLY
    format: bytes = C.MQFMT_ADMIN


def reply_fields(
    report: int, msg_id: bytes, correl_id: bytes, persistence: int, priority: int, expiry: int
) -> ReplyFields:
    """The responses' MQMD from the request's Report, MsgId, CorrelId, Persistence,
    Priority and remaining Expiry (as MQGET gave them)."""
    passes = bool(report & C.MQRO_PASS_DISCARD_AND_EXPIRY)
    return ReplyFields(
        msg_id=msg_id if report & C.MQRO_PASS_MSG_ID else None,
        correl_id=correl_id if report & C.MQRO_PASS_CORREL_ID else msg_id,
        persistence=persistence,
        priority=priority,
        expiry=expiry if passes else C.MQEI_UNLIMITED,
        report=report & C.MQRO_DISCARD_MSG if passes else C.MQRO_NONE,
    )
