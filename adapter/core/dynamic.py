"""Model and dynamic queues: the pure rules (no I/O).

- DynamicQName (MQOD): the characters of an object name plus an asterisk; blank is not
  valid when a model queue is opened; an asterisk may only be the last nonblank
  character, in positions 1 to 33, and the queue manager replaces it with characters
  that make the name unique (an asterisk in position 1 is valid: the whole name is then
  generated). Anything else gives MQRC_DYNAMIC_Q_NAME_ERROR (2011).
  <https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q098150_.htm>
  Object-name characters: <https://www.ibm.com/docs/en/SSFKSJ_9.3.0/refdev/q098180_.html>
- MQCLOSE options: one dynamic-queue option (MQCO_DELETE, MQCO_DELETE_PURGE) and one
  subscription option (MQCO_KEEP_SUB, MQCO_REMOVE_SUB) at most, nothing but MQCO_*
  bits (2046, Rules for validating MQI options); a delete option is valid only on a
  permanent dynamic queue, or on a temporary dynamic queue through the handle whose
  MQOPEN created it (else 2045); the subscription options are for subscription
  handles, which a queue handle never is (2045).
  <https://www.ibm.com/docs/SSFKSJ_9.4.0/refdev/q101740_.html>
  <https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=reference-rules-validating-mqi-options>
"""

from __future__ import annotations

import re

from adapter.core import cmqc as C

DEFAULT_DYNAMIC_Q_NAME = "AMQ.*"  # MQOD's initial DynamicQName outside z/OS
# The asterisk may stand in positions 1-33: the generated part fills the rest of the 48.
LAST_ASTERISK_POSITION = 33
_NAME_CHARS = re.compile(r"[A-Za-z0-9./_%]*")

_CLOSE_OPTIONS = (
    C.MQCO_DELETE | C.MQCO_DELETE_PURGE | C.MQCO_KEEP_SUB | C.MQCO_REMOVE_SUB | C.MQCO_QUIESCE
)
DELETE_OPTIONS = C.MQCO_DELETE | C.MQCO_DELETE_PURGE
_SUB_OPTIONS = C.MQCO_KEEP_SUB | C.MQCO_REMOVE_SUB


def dynamic_q_name_error(name: str) -> int | None:
    """MQRC_DYNAMIC_Q_NAME_ERROR for a DynamicQName MQ refuses, else None. `name` is the
    field's value up to its first NUL, trailing blanks removed."""
    if not name or len(name) > C.MQ_Q_NAME_LENGTH:
        return C.MQRC_DYNAMIC_Q_NAME_ERROR
    stem = name[:-1] if name.endswith("*") else name
    if name.endswith("*") and len(name) > LAST_ASTERISK_POSITION:
        return C.MQRC_DYNAMIC_Q_NAME_ERROR
    if not _NAME_CHARS.fullmatch(stem):  # blanks inside, a second asterisk, other chars
        return C.MQRC_DYNAMIC_Q_NAME_ERROR
    return None


def dynamic_name(pattern: str, unique: str) -> str:
    """The dynamic queue's name: `pattern` with its trailing asterisk replaced by the
    queue manager's unique characters (at most 48 in all), or `pattern` itself."""
    if not pattern.endswith("*"):
        return pattern
    return (pattern[:-1] + unique)[: C.MQ_Q_NAME_LENGTH]


def close_options_error(options: int, definition_type: int, by_creator: bool) -> int | None:
    """The MQCLOSE options' reason for a queue handle: 2046 for options MQ does not
    allow together or does not know, 2045 for an option this queue or handle cannot
    take; None when the close may go on."""
    if options & ~_CLOSE_OPTIONS:
        return C.MQRC_OPTIONS_ERROR
    if options & DELETE_OPTIONS == DELETE_OPTIONS or options & _SUB_OPTIONS == _SUB_OPTIONS:
        return C.MQRC_OPTIONS_ERROR
    if options & _SUB_OPTIONS:
        return C.MQRC_OPTION_NOT_VALID_FOR_TYPE  # a queue handle is no subscription
    if options & DELETE_OPTIONS:
        if definition_type == C.MQQDT_PERMANENT_DYNAMIC:
            return None
        if definition_type == C.MQQDT_TEMPORARY_DYNAMIC and by_creator:
            return None
        return C.MQRC_OPTION_NOT_VALID_FOR_TYPE
    return None
