"""MQSUB's rules on the MQSD (no I/O): which option combinations MQ refuses, what a
durable subscription needs, and what CREATE / RESUME / ALTER do with an existing one.

IBM: MQSD Options <https://ibm.com/docs/SSFKSJ_9.3.0/refdev/q100080_.html>, MQSUB
<https://www.ibm.com/docs/en/SSFKSJ_9.0.0/com.ibm.mq.ref.dev.doc/q101930_.html>, the
option rules as the IBM i page lists them
<https://www.ibm.com/docs/en/SSFKSJ_9.0.0/com.ibm.mq.ref.dev.doc/q107620_.html>, 2428
<https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.tro.doc/q044500_.html>, 2429
<https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q044510_.html>, 2432
<https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q044540_.html>.

- At least one of MQSO_CREATE, MQSO_RESUME, MQSO_ALTER (else MQRC_OPTIONS_ERROR).
- Not both wildcard schemes, not both MQSO_FIXED_USERID and MQSO_ANY_USERID, not
  MQSO_GROUP_SUB with MQSO_MANAGED, not MQSO_NEW_PUBLICATIONS_ONLY with
  MQSO_PUBLICATIONS_ON_REQUEST, MQSO_NEW_PUBLICATIONS_ONLY only with MQSO_CREATE
  (MQRC_OPTIONS_ERROR); MQSO_GROUP_SUB needs MQSO_SET_CORREL_ID.
- A durable subscription, and any MQSO_RESUME / MQSO_ALTER, needs a SubName
  (MQRC_SUB_NAME_ERROR).
- Managed: Hobj must be MQHO_NONE on input; unmanaged MQSO_CREATE: Hobj must be a
  queue opened by the application (MQRC_HOBJ_ERROR either way).
- MQSO_CREATE alone on an existing name: MQRC_SUB_ALREADY_EXISTS; MQSO_RESUME or
  MQSO_ALTER without one: MQRC_NO_SUBSCRIPTION; one another handle has open:
  MQRC_SUBSCRIPTION_IN_USE.
"""

from __future__ import annotations

from enum import Enum

from adapter.core import cmqc as C

ACCESS = C.MQSO_CREATE | C.MQSO_RESUME | C.MQSO_ALTER

KNOWN = (
    ACCESS
    | C.MQSO_DURABLE
    | C.MQSO_GROUP_SUB
    | C.MQSO_MANAGED
    | C.MQSO_SET_IDENTITY_CONTEXT
    | C.MQSO_NO_MULTICAST
    | C.MQSO_FIXED_USERID
    | C.MQSO_ANY_USERID
    | C.MQSO_PUBLICATIONS_ON_REQUEST
    | C.MQSO_NEW_PUBLICATIONS_ONLY
    | C.MQSO_FAIL_IF_QUIESCING
    | C.MQSO_ALTERNATE_USER_AUTHORITY
    | C.MQSO_WILDCARD_CHAR
    | C.MQSO_WILDCARD_TOPIC
    | C.MQSO_SET_CORREL_ID
    | C.MQSO_SCOPE_QMGR
    | C.MQSO_NO_READ_AHEAD
    | C.MQSO_READ_AHEAD
)

# Options an MQSO_ALTER may change, and the ones that must match the subscription's.
ALTERABLE = C.MQSO_PUBLICATIONS_ON_REQUEST | C.MQSO_SET_CORREL_ID


class Access(Enum):
    CREATED = "created"
    RESUMED = "resumed"
    ALTERED = "altered"


def _both(options: int, a: int, b: int) -> bool:
    return bool(options & a) and bool(options & b)


def sub_options_error(options: int, sub_name: str, *, has_queue: bool) -> int | None:
    """MQ's reason for an MQSD it refuses before looking at subscriptions (None: none)."""
    if options & ~KNOWN or not options & ACCESS:
        return C.MQRC_OPTIONS_ERROR
    if (
        _both(options, C.MQSO_WILDCARD_CHAR, C.MQSO_WILDCARD_TOPIC)
        or _both(options, C.MQSO_FIXED_USERID, C.MQSO_ANY_USERID)
        or _both(options, C.MQSO_GROUP_SUB, C.MQSO_MANAGED)
        or _both(options, C.MQSO_NEW_PUBLICATIONS_ONLY, C.MQSO_PUBLICATIONS_ON_REQUEST)
        or _both(options, C.MQSO_READ_AHEAD, C.MQSO_NO_READ_AHEAD)
        or (options & C.MQSO_NEW_PUBLICATIONS_ONLY and not options & C.MQSO_CREATE)
        or (options & C.MQSO_GROUP_SUB and not options & C.MQSO_SET_CORREL_ID)
    ):
        return C.MQRC_OPTIONS_ERROR
    named = bool(sub_name.strip())
    if not named and (options & C.MQSO_DURABLE or options & (C.MQSO_RESUME | C.MQSO_ALTER)):
        return C.MQRC_SUB_NAME_ERROR
    managed = bool(options & C.MQSO_MANAGED)
    if managed and has_queue:
        return C.MQRC_HOBJ_ERROR
    if (
        not managed
        and not has_queue
        and options & C.MQSO_CREATE
        and not options & (C.MQSO_RESUME | C.MQSO_ALTER)
    ):
        return C.MQRC_HOBJ_ERROR
    return None


def access(options: int, *, exists: bool, in_use: bool) -> Access | int:
    """What MQSUB does with the subscription of its SubName: an Access, or MQ's reason
    for refusing."""
    if exists and in_use:
        return C.MQRC_SUBSCRIPTION_IN_USE
    if not exists:
        return Access.CREATED if options & C.MQSO_CREATE else C.MQRC_NO_SUBSCRIPTION
    if options & C.MQSO_ALTER:
        return Access.ALTERED
    if options & C.MQSO_RESUME:
        return Access.RESUMED
    return C.MQRC_SUB_ALREADY_EXISTS


_SUB_CLOSE = C.MQCO_KEEP_SUB | C.MQCO_REMOVE_SUB


def sub_close_options_error(options: int, *, durable: bool) -> int | None:
    """MQCLOSE of a subscription handle (MQCLOSE,
    <https://www.ibm.com/docs/SSFKSJ_9.4.0/refdev/q101740_.html>): one of MQCO_KEEP_SUB
    and MQCO_REMOVE_SUB at most (2046); MQCO_KEEP_SUB only for a durable subscription,
    and no dynamic-queue option, which a subscription handle cannot take (2045)."""
    if options & ~(_SUB_CLOSE | C.MQCO_DELETE | C.MQCO_DELETE_PURGE | C.MQCO_QUIESCE):
        return C.MQRC_OPTIONS_ERROR
    if options & _SUB_CLOSE == _SUB_CLOSE:
        return C.MQRC_OPTIONS_ERROR
    if options & (C.MQCO_DELETE | C.MQCO_DELETE_PURGE):
        return C.MQRC_OPTION_NOT_VALID_FOR_TYPE
    if options & C.MQCO_KEEP_SUB and not durable:
        return C.MQRC_OPTION_NOT_VALID_FOR_TYPE
    return None


def removes_subscription(options: int, *, durable: bool) -> bool:
    """Whether MQCLOSE of the handle ends the subscription: a non-durable one always,
    a durable one with MQCO_REMOVE_SUB."""
    return not durable or bool(options & C.MQCO_REMOVE_SUB)
