"""MQOPEN's option rules, the MQPUT context rules that depend on them, and MQCLOSE's
option rules. Pure.

From IBM's "Rules for validating MQI options" (MQOPEN, MQPUT and MQCLOSE sections), the
MQOPEN Options page (what each context option implies, which bits are options) and the
reason codes 2093-2097:
https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=reference-rules-validating-mqi-options
https://www.ibm.com/docs/en/SSFKSJ_9.3.0/refdev/q101870_.html (MQOPEN Options)
https://www.ibm.com/docs/SSFKSJ_9.3.0/refdev/q101740_.html (MQCLOSE Options)
"""

from __future__ import annotations

from adapter.core import cmqc as C

INPUT = C.MQOO_INPUT_AS_Q_DEF | C.MQOO_INPUT_SHARED | C.MQOO_INPUT_EXCLUSIVE
_ACCESS = INPUT | C.MQOO_BROWSE | C.MQOO_INQUIRE | C.MQOO_OUTPUT | C.MQOO_SET
_BIND = C.MQOO_BIND_ON_OPEN | C.MQOO_BIND_NOT_FIXED | C.MQOO_BIND_ON_GROUP
_READ_AHEAD = C.MQOO_READ_AHEAD | C.MQOO_NO_READ_AHEAD
_OPEN_CONTEXT = (
    C.MQOO_PASS_IDENTITY_CONTEXT
    | C.MQOO_PASS_ALL_CONTEXT
    | C.MQOO_SET_IDENTITY_CONTEXT
    | C.MQOO_SET_ALL_CONTEXT
)
# Every bit MQOPEN defines (MQOO_* constants page: MQOO_RESOLVE_NAMES is listed as "used
# in C++ only", so MQOPEN itself does not take it); any other bit is MQRC_OPTIONS_ERROR.
VALID_OPEN_OPTIONS = (
    _ACCESS
    | _BIND
    | _READ_AHEAD
    | _OPEN_CONTEXT
    | C.MQOO_SAVE_ALL_CONTEXT
    | C.MQOO_ALTERNATE_USER_AUTHORITY
    | C.MQOO_FAIL_IF_QUIESCING
    | C.MQOO_CO_OP
    | C.MQOO_RESOLVE_LOCAL_Q
    | C.MQOO_NO_MULTICAST
)
PUT_CONTEXT = (
    C.MQPMO_NO_CONTEXT
    | C.MQPMO_PASS_IDENTITY_CONTEXT
    | C.MQPMO_PASS_ALL_CONTEXT
    | C.MQPMO_SET_IDENTITY_CONTEXT
    | C.MQPMO_SET_ALL_CONTEXT
)

# What an open option lets a put do, with the options it implies (MQOPEN Options page:
# SET_ALL implies SET_IDENTITY, PASS_ALL and PASS_IDENTITY; SET_IDENTITY and PASS_ALL
# imply PASS_IDENTITY).
_IMPLIED = {
    C.MQOO_SET_ALL_CONTEXT: C.MQOO_SET_ALL_CONTEXT
    | C.MQOO_SET_IDENTITY_CONTEXT
    | C.MQOO_PASS_ALL_CONTEXT
    | C.MQOO_PASS_IDENTITY_CONTEXT,
    C.MQOO_SET_IDENTITY_CONTEXT: C.MQOO_SET_IDENTITY_CONTEXT | C.MQOO_PASS_IDENTITY_CONTEXT,
    C.MQOO_PASS_ALL_CONTEXT: C.MQOO_PASS_ALL_CONTEXT | C.MQOO_PASS_IDENTITY_CONTEXT,
    C.MQOO_PASS_IDENTITY_CONTEXT: C.MQOO_PASS_IDENTITY_CONTEXT,
}

# A put context option, the open option it needs, and the reason when it is missing.
_PUT_NEEDS = (
    (C.MQPMO_SET_ALL_CONTEXT, C.MQOO_SET_ALL_CONTEXT, C.MQRC_NOT_OPEN_FOR_SET_ALL),
    (C.MQPMO_SET_IDENTITY_CONTEXT, C.MQOO_SET_IDENTITY_CONTEXT, C.MQRC_NOT_OPEN_FOR_SET_IDENT),
    (C.MQPMO_PASS_ALL_CONTEXT, C.MQOO_PASS_ALL_CONTEXT, C.MQRC_NOT_OPEN_FOR_PASS_ALL),
    (C.MQPMO_PASS_IDENTITY_CONTEXT, C.MQOO_PASS_IDENTITY_CONTEXT, C.MQRC_NOT_OPEN_FOR_PASS_IDENT),
)


def _more_than_one(bits: int) -> bool:
    return bits & (bits - 1) != 0


def open_options_error(options: int) -> int | None:
    """MQRC_OPTIONS_ERROR (or None) for MQOPEN's options on a queue."""
    if options & ~VALID_OPEN_OPTIONS:  # bits MQ does not define (negative MQLONGs too)
        return C.MQRC_OPTIONS_ERROR
    if not options & (_ACCESS | _BIND):
        return C.MQRC_OPTIONS_ERROR
    if _more_than_one(options & INPUT) or _more_than_one(options & _BIND):
        return C.MQRC_OPTIONS_ERROR
    if _more_than_one(options & _READ_AHEAD):
        return C.MQRC_OPTIONS_ERROR
    if options & C.MQOO_SAVE_ALL_CONTEXT and not options & INPUT:
        return C.MQRC_OPTIONS_ERROR
    if options & _OPEN_CONTEXT and not options & C.MQOO_OUTPUT:
        return C.MQRC_OPTIONS_ERROR
    if options & C.MQOO_CO_OP and not options & C.MQOO_BROWSE:
        return C.MQRC_OPTIONS_ERROR
    if options & C.MQOO_NO_MULTICAST and not options & C.MQOO_OUTPUT:
        return C.MQRC_OPTIONS_ERROR
    return None


def needs_alternate_user_authority(options: int) -> bool:
    """MQOPEN (or the open an MQPUT1 implies) asks to be checked as AlternateUserId."""
    return bool(options & C.MQOO_ALTERNATE_USER_AUTHORITY)


def effective_context_options(options: int) -> int:
    """The context options an open grants, with the ones they imply."""
    granted = 0
    for option, implied in _IMPLIED.items():
        if options & option:
            granted |= implied
    return granted


def needs_context_authority(options: int) -> bool:
    """MQOPEN asks for authority to set or pass context (the queue manager checks it)."""
    return bool(options & _OPEN_CONTEXT)


def put_context_error(put_options: int, open_options: int, *, put1: bool = False) -> int | None:
    """The reason an MQPUT's context options fail on a handle opened with
    `open_options` (MQPUT1 opens with what its put options need, so only the
    combination is checked there)."""
    if _more_than_one(put_options & PUT_CONTEXT):
        return C.MQRC_OPTIONS_ERROR
    if put1:
        return None
    granted = effective_context_options(open_options)
    for put_option, open_option, reason in _PUT_NEEDS:
        if put_options & put_option and not granted & open_option:
            return reason
    return None


def put1_open_options(put_options: int) -> int:
    """The open options an MQPUT1 implies (its authority is checked as for these)."""
    options = C.MQOO_OUTPUT
    if put_options & C.MQPMO_ALTERNATE_USER_AUTHORITY:
        options |= C.MQOO_ALTERNATE_USER_AUTHORITY
    for put_option, open_option, _ in _PUT_NEEDS:
        if put_options & put_option:
            options |= open_option
    return options


def input_exclusive(options: int, shareable: bool, default_exclusive: bool) -> bool | None:
    """None without input; else whether the open takes the queue exclusively:
    INPUT_AS_Q_DEF follows DEFSOPT, and a NOSHARE queue makes every input open
    exclusive (MQOPEN Options: MQOO_INPUT_AS_Q_DEF, MQOO_INPUT_SHARED)."""
    if not options & INPUT:
        return None
    if options & C.MQOO_INPUT_EXCLUSIVE or not shareable:
        return True
    if options & C.MQOO_INPUT_AS_Q_DEF:
        return default_exclusive
    return False


# What MQOPEN of a remote queue may ask: a message goes to a transmission queue, so
# only putting (and its context), and MQINQ of the local definition when one was opened.
_REMOTE_OPTIONS = (
    C.MQOO_OUTPUT
    | _OPEN_CONTEXT
    | _BIND
    | C.MQOO_ALTERNATE_USER_AUTHORITY
    | C.MQOO_FAIL_IF_QUIESCING
    | C.MQOO_RESOLVE_LOCAL_Q
)


def remote_open_error(options: int, *, by_definition: bool) -> int | None:
    """MQOPEN of a remote queue: MQRC_OPTION_NOT_VALID_FOR_TYPE (2045) for input,
    browse, set or read-ahead options ("MQOPEN options", the queue types each option
    applies to: https://www.ibm.com/docs/SSFKSJ_9.4.0/refdev/q101040_.html); MQOO_INQUIRE
    only when the application opened a local definition of the remote queue (QREMOTE)
    rather than naming another queue manager in ObjectQMgrName."""
    allowed = _REMOTE_OPTIONS | (C.MQOO_INQUIRE if by_definition else 0)
    return C.MQRC_OPTION_NOT_VALID_FOR_TYPE if options & ~allowed else None
