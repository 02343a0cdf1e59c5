"""MQMD fields MQPUT validates before it plans the put. Pure.

IBM: MsgType (https://www.ibm.com/docs/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q097570_.html)
and ReplyToQ (https://www.ibm.com/docs/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q097660_.html):
ReplyToQ must not be blank for a request message or when the Report field asks for any
report message; a MsgType in the system range that MQ does not define is an error.

Feedback (https://www.ibm.com/docs/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q097510_.html,
2014 https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q040880_.html): MQFB_NONE or a
value in the system or application range, whatever the MsgType.

Report ("Structure of the report field",
https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=flags-structure-report-field; 2061
https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.tro.doc/q041300_.html and 2104
https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.tro.doc/q041650_.html): a report
type asked for twice in different forms (e.g. MQRO_EXCEPTION added to
MQRO_EXCEPTION_WITH_DATA, which leaves a bit pattern that is none of the type's values)
is MQRC_REPORT_OPTIONS_ERROR; bits this queue manager does not recognise are rejected
(2061) in MQRO_REJECT_UNSUP_MASK, accepted with MQRC_UNKNOWN_REPORT_OPTION (a warning)
in MQRO_ACCEPT_UNSUP_MASK, and in MQRO_ACCEPT_UNSUP_IF_XMIT_MASK accepted only for a
message bound for a remote queue manager through a transmission queue: never here,
every queue is local, so 2061.
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


def feedback_error(feedback: int) -> int | None:
    """MQRC_FEEDBACK_ERROR for a Feedback outside MQFB_NONE and both ranges."""
    if feedback == C.MQFB_NONE:
        return None
    if C.MQFB_SYSTEM_FIRST <= feedback <= C.MQFB_SYSTEM_LAST:
        return None
    if C.MQFB_APPL_FIRST <= feedback <= C.MQFB_APPL_LAST:
        return None
    return C.MQRC_FEEDBACK_ERROR


# Each report type's field and the values it may hold (none, or one of its forms).
_REPORT_TYPES = (
    (
        C.MQRO_EXCEPTION_WITH_FULL_DATA,
        (C.MQRO_EXCEPTION, C.MQRO_EXCEPTION_WITH_DATA, C.MQRO_EXCEPTION_WITH_FULL_DATA),
    ),
    (
        C.MQRO_EXPIRATION_WITH_FULL_DATA,
        (C.MQRO_EXPIRATION, C.MQRO_EXPIRATION_WITH_DATA, C.MQRO_EXPIRATION_WITH_FULL_DATA),
    ),
    (C.MQRO_COA_WITH_FULL_DATA, (C.MQRO_COA, C.MQRO_COA_WITH_DATA, C.MQRO_COA_WITH_FULL_DATA)),
    (C.MQRO_COD_WITH_FULL_DATA, (C.MQRO_COD, C.MQRO_COD_WITH_DATA, C.MQRO_COD_WITH_FULL_DATA)),
)
# Every bit of a report option MQ defines (the *_WITH_FULL_DATA values cover their forms).
KNOWN_REPORT_BITS = (
    C.MQRO_EXCEPTION_WITH_FULL_DATA
    | C.MQRO_EXPIRATION_WITH_FULL_DATA
    | C.MQRO_COA_WITH_FULL_DATA
    | C.MQRO_COD_WITH_FULL_DATA
    | C.MQRO_PAN
    | C.MQRO_NAN
    | C.MQRO_ACTIVITY
    | C.MQRO_PASS_MSG_ID
    | C.MQRO_PASS_CORREL_ID
    | C.MQRO_DISCARD_MSG
    | C.MQRO_PASS_DISCARD_AND_EXPIRY
)


def report_outcome(report: int) -> tuple[int, int] | None:
    """(completion code, reason) the Report field gives an MQPUT / MQPUT1:
    MQRC_REPORT_OPTIONS_ERROR (failed), MQRC_UNKNOWN_REPORT_OPTION (a warning: the put
    goes ahead), or None."""
    report &= 0xFFFFFFFF  # an MQLONG: a negative value sets the high bits
    for field, forms in _REPORT_TYPES:
        value = report & field
        if value and value not in forms:
            return C.MQCC_FAILED, C.MQRC_REPORT_OPTIONS_ERROR
    unknown = report & ~KNOWN_REPORT_BITS
    if not unknown:
        return None
    if unknown & (C.MQRO_REJECT_UNSUP_MASK | C.MQRO_ACCEPT_UNSUP_IF_XMIT_MASK):
        return C.MQCC_FAILED, C.MQRC_REPORT_OPTIONS_ERROR
    return C.MQCC_WARNING, C.MQRC_UNKNOWN_REPORT_OPTION
