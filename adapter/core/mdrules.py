"""MQMD fields MQPUT validates before it plans the put. Pure.

IBM: MsgType (https://www.ibm.com/docs/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q097570_.html)
and ReplyToQ (https://www.ibm.com/docs/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q097660_.html):
ReplyToQ must not be blank for a request message or when the Report field asks for any
report message; a MsgType in the system range that MQ does not define is an error.
"""

from __future__ import annotations

from adapter.core import cmqc as C

_SYSTEM_TYPES = frozenset({C.MQMT_REQUEST, C.MQMT_REPLY, C.MQMT_REPORT, C.MQMT_DATAGRAM})
# Report options that ask for a report message (the others only shape one: PASS_*,
# NEW_MSG_ID, COPY_MSG_ID_TO_CORREL_ID, DISCARD_MSG, PASS_DISCARD_AND_EXPIRY).
REPORTS_REQUESTED = (
    C.MQRO_EXCEPTION
    | C.MQRO_EXPIRATION
    | C.MQRO_COA
    | C.MQRO_COD
    | C.MQRO_PAN
    | C.MQRO_NAN
    | C.MQRO_ACTIVITY
)


def msg_type_error(msg_type: int) -> int | None:
    if msg_type in _SYSTEM_TYPES or C.MQMT_APPL_FIRST <= msg_type <= C.MQMT_APPL_LAST:
        return None
    return C.MQRC_MSG_TYPE_ERROR


def reply_to_error(msg_type: int, report: int, reply_to_q: str) -> int | None:
    """MQRC_MISSING_REPLY_TO_Q for a request, or a message asking for reports, that
    names no reply queue."""
    if reply_to_q.strip():
        return None
    if msg_type == C.MQMT_REQUEST or report & REPORTS_REQUESTED:
        return C.MQRC_MISSING_REPLY_TO_Q
    return None
