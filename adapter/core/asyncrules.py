"""Asynchronous consume's rules: MQCB's and MQCTL's parameter checks and MQCTL's state
machine. Pure: the faces (adapter/pymqi/asyncconsume.py) apply them.

IBM pages:
- MQCB (https://www.ibm.com/docs/SSFKSJ_9.4.0/refdev/q101720_.html): Operation is
  MQOP_REGISTER, MQOP_DEREGISTER, MQOP_SUSPEND or MQOP_RESUME; REGISTER may be combined
  with SUSPEND or RESUME; anything else is MQRC_OPERATION_ERROR (2488).
- MQCBD CallbackType (https://ibm.com/docs/SSFKSJ_9.2.0/com.ibm.mq.ref.dev.doc/q094600_.html):
  MQCBT_MESSAGE_CONSUMER or MQCBT_EVENT_HANDLER, else MQRC_CALLBACK_TYPE_ERROR (2483);
  an event handler's Hobj "is not required ... and is ignored if specified".
- MQRC_CBD_OPTIONS_ERROR 2484 (https://setgetweb.com/p/MQ92/tro/q044910_.htm): an
  Options value that is not valid; MQRC_MAX_MSG_LENGTH_ERROR 2485 (MaxMsgLength neither
  MQCBD_FULL_MSG_LENGTH nor zero or more); MQRC_CALLBACK_ROUTINE_ERROR 2486
  (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q044930_.html): both
  CallbackName and CallbackFunction, or no function pointer.
- MQCTL (https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q101790_.html)
  and MQRC_OPERATION_NOT_ALLOWED 2534
  (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q045350_.html): RESUME and
  SUSPEND need a started connection, START and START_WAIT one that is not suspended,
  START_WAIT one that is not already started by MQOP_START.
"""

from __future__ import annotations

import enum

from adapter.core import cmqc as C

CB_OPERATIONS = frozenset(
    {
        C.MQOP_REGISTER,
        C.MQOP_DEREGISTER,
        C.MQOP_SUSPEND,
        C.MQOP_RESUME,
        C.MQOP_REGISTER | C.MQOP_SUSPEND,
        C.MQOP_REGISTER | C.MQOP_RESUME,
    }
)
CTL_OPERATIONS = frozenset(
    {C.MQOP_START, C.MQOP_START_WAIT, C.MQOP_STOP, C.MQOP_SUSPEND, C.MQOP_RESUME}
)
CBD_OPTIONS = (
    C.MQCBDO_START_CALL
    | C.MQCBDO_STOP_CALL
    | C.MQCBDO_REGISTER_CALL
    | C.MQCBDO_DEREGISTER_CALL
    | C.MQCBDO_FAIL_IF_QUIESCING
    | C.MQCBDO_EVENT_CALL
    | C.MQCBDO_MC_EVENT_CALL
)
CTLO_OPTIONS = C.MQCTLO_THREAD_AFFINITY | C.MQCTLO_FAIL_IF_QUIESCING


class Control(enum.Enum):
    """MQCTL's state of a connection."""

    STOPPED = "stopped"
    STARTED = "started"  # MQOP_START: delivery on a thread of the connection's
    STARTED_WAIT = "started-wait"  # MQOP_START_WAIT: delivery on the caller's thread
    SUSPENDED = "suspended"


def cb_operation_error(operation: int) -> int | None:
    return None if operation in CB_OPERATIONS else C.MQRC_OPERATION_ERROR


def cbd_error(
    struc_id: bytes,
    version: int,
    callback_type: int,
    options: int,
    max_msg_length: int,
    has_function: bool,
    has_name: bool,
) -> int | None:
    """MQCB REGISTER's checks of the MQCBD, in the order of its fields."""
    if struc_id != C.MQCBD_STRUC_ID or not 1 <= version <= C.MQCBD_CURRENT_VERSION:
        return C.MQRC_CBD_ERROR
    if callback_type not in (C.MQCBT_MESSAGE_CONSUMER, C.MQCBT_EVENT_HANDLER):
        return C.MQRC_CALLBACK_TYPE_ERROR
    if options & ~CBD_OPTIONS:
        return C.MQRC_CBD_OPTIONS_ERROR
    if not has_function or has_name:  # a name alone cannot be linked here; both: 2486
        return C.MQRC_CALLBACK_ROUTINE_ERROR
    if max_msg_length < 0 and max_msg_length != C.MQCBD_FULL_MSG_LENGTH:
        return C.MQRC_MAX_MSG_LENGTH_ERROR
    return None


def consumer_gmo_error(options: int, wait_interval: int) -> int | None:
    """A message consumer's MQGMO: MQGMO_SET_SIGNAL has no meaning for a callback
    (MQRC_OPTIONS_ERROR); a wait interval below MQWI_UNLIMITED is MQRC_WAIT_INTERVAL_ERROR
    as on MQGET. The other options are MQGET's own, checked on each delivery's get."""
    if options & C.MQGMO_SET_SIGNAL:
        return C.MQRC_OPTIONS_ERROR
    if options & C.MQGMO_WAIT and wait_interval < C.MQWI_UNLIMITED:
        return C.MQRC_WAIT_INTERVAL_ERROR
    return None


def ctlo_error(struc_id: bytes, version: int, options: int) -> int | None:
    if struc_id != C.MQCTLO_STRUC_ID or not 1 <= version <= C.MQCTLO_CURRENT_VERSION:
        return C.MQRC_CTLO_ERROR
    if options & ~CTLO_OPTIONS:
        return C.MQRC_OPTIONS_ERROR
    return None


def ctl_error(operation: int, state: Control, *, in_callback: bool, uow_open: bool) -> int | None:
    """MQCTL's answer before it acts (None: go ahead)."""
    if operation not in CTL_OPERATIONS:
        return C.MQRC_OPERATION_ERROR
    if operation == C.MQOP_START_WAIT and in_callback:
        return C.MQRC_ENVIRONMENT_ERROR  # not from a callback routine (MQCTL page)
    if operation in (C.MQOP_RESUME, C.MQOP_SUSPEND) and state is Control.STOPPED:
        return C.MQRC_OPERATION_NOT_ALLOWED
    if operation in (C.MQOP_START, C.MQOP_START_WAIT) and state is Control.SUSPENDED:
        return C.MQRC_OPERATION_NOT_ALLOWED
    if operation == C.MQOP_START_WAIT and state is not Control.STOPPED:
        return C.MQRC_OPERATION_NOT_ALLOWED
    if operation == C.MQOP_START and state is Control.STARTED_WAIT and not in_callback:
        return C.MQRC_OPERATION_NOT_ALLOWED
    if operation == C.MQOP_START and state is Control.STOPPED and uow_open:
        # 2529 (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.tro.doc/q045300_.html)
        return C.MQRC_ASYNC_UOW_CONFLICT
    return None
