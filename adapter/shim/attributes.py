"""MQINQ and MQSET in the engine: the values of a queue's and of the queue manager's
attributes, and MQSET of a queue's settable ones through the catalog, so every handle of
every process sees the change on its next call (GET(DISABLED) / PUT(DISABLED) at once).

The selector rules (which selector, which object, 2067 / 2068 / 2040 / value errors)
are adapter/core/attributes.py's; this module reads and writes the definitions
(catalog.QueueDef, qmgrdef.QMgrDef) and the queue's state. Character values are bytes
blank-padded to their MQ length, as MQINQ returns them.

The queue manager's fixed answers, chosen for MQ 9.4 behaviour on a Unix platform:
MQCA_VERSION '09040000' (VVRRMMFF, IBM MQ 9.4.0.0), MQIA_COMMAND_LEVEL
MQCMDL_LEVEL_940, MQIA_PLATFORM MQPL_UNIX, MQIA_CODED_CHAR_SET_ID 1208 (UTF-8, what
pymqi and ibmmq put str messages in), MQIA_MAX_PRIORITY 9, MQIA_SYNCPOINT
MQSP_AVAILABLE, MQIA_DIST_LISTS MQDL_NOT_SUPPORTED (no distribution lists here).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from adapter.core import attributes as rules
from adapter.core import cmqc as C
from adapter.core.errors import fail
from adapter.shim.catalog import QueueDef
from adapter.shim.handle import QueueHandle
from adapter.shim.qmgrdef import QMgrDef

log = logging.getLogger("mqk.shim.attributes")

VERSION = b"09040000"
COMMAND_LEVEL = C.MQCMDL_LEVEL_940
PLATFORM = C.MQPL_UNIX
CODED_CHAR_SET_ID = 1208
MAX_PRIORITY = 9


@dataclass(frozen=True, slots=True)
class Inquired:
    """MQINQ's answer: {selector: int or blank-padded bytes}, in the order asked, and
    MQRC_SELECTOR_NOT_FOR_TYPE when some selectors did not apply (MQCC_WARNING)."""

    values: dict[int, int | bytes]
    warning: int | None = None


def _char(text: str, selector: int) -> bytes:
    return text.encode().ljust(rules.ATTRIBUTES[selector].length)


def _answer(kind: int, selectors: Iterable[int], value: Callable[[int], Any]) -> Inquired:
    plan = rules.inquire_plan(kind, selectors)
    if plan.reason is not None:
        raise fail(plan.reason)
    values: dict[int, int | bytes] = {}
    for s in selectors:
        if s in values:
            continue
        values[s] = rules.not_applicable(s) if s in plan.not_applicable else value(s)
    return Inquired(values, plan.warning)


def _definition_values(q: QueueDef) -> dict[int, Any]:
    """The queue attributes its definition holds, by selector (text unpadded)."""
    return {
        C.MQIA_BACKOUT_THRESHOLD: q.backout_threshold,
        C.MQIA_DEF_INPUT_OPEN_OPTION: C.MQOO_INPUT_EXCLUSIVE
        if q.def_input_exclusive
        else C.MQOO_INPUT_SHARED,
        C.MQIA_DEF_PERSISTENCE: q.def_persistence,
        C.MQIA_DEF_PRIORITY: q.def_priority,
        C.MQIA_DEF_PUT_RESPONSE_TYPE: q.def_put_response,
        C.MQIA_DEF_READ_AHEAD: C.MQREADA_YES if q.def_read_ahead else C.MQREADA_NO,
        C.MQIA_DEFINITION_TYPE: q.definition_type,
        C.MQIA_DIST_LISTS: q.dist_lists,
        # Backout counts live in Kafka and survive restarts: what HARDENBO promises.
        C.MQIA_HARDEN_GET_BACKOUT: C.MQQA_BACKOUT_HARDENED,
        C.MQIA_INHIBIT_GET: C.MQQA_GET_INHIBITED if q.get_inhibited else C.MQQA_GET_ALLOWED,
        C.MQIA_INHIBIT_PUT: C.MQQA_PUT_INHIBITED if q.put_inhibited else C.MQQA_PUT_ALLOWED,
        C.MQIA_MAX_MSG_LENGTH: q.max_msg_length,
        C.MQIA_MAX_Q_DEPTH: q.max_depth,
        C.MQIA_MSG_DELIVERY_SEQUENCE: q.msg_delivery_sequence,
        C.MQIA_PROPERTY_CONTROL: q.property_control,
        C.MQIA_Q_TYPE: q.queue_type,
        C.MQIA_SHAREABILITY: C.MQQA_SHAREABLE if q.shareable else C.MQQA_NOT_SHAREABLE,
        C.MQIA_TRIGGER_CONTROL: q.trigger_control,
        C.MQIA_TRIGGER_DEPTH: q.trigger_depth,
        C.MQIA_TRIGGER_MSG_PRIORITY: q.trigger_msg_priority,
        C.MQIA_TRIGGER_TYPE: q.trigger_type,
        C.MQIA_USAGE: q.usage,
        C.MQIA_BASE_TYPE: C.MQOT_Q,  # TARGTYPE(QUEUE): topics come later
        C.MQCA_BASE_Q_NAME: q.target,
        C.MQCA_Q_NAME: q.name,
        C.MQCA_Q_DESC: q.description,
        C.MQCA_BACKOUT_REQ_Q_NAME: q.backout_requeue_q,
        C.MQCA_INITIATION_Q_NAME: q.initiation_q_name,
        C.MQCA_PROCESS_NAME: q.process_name,
        C.MQCA_TRIGGER_DATA: q.trigger_data,
        C.MQCA_REMOTE_Q_NAME: q.remote_q_name,
        C.MQCA_REMOTE_Q_MGR_NAME: q.remote_q_mgr_name,
        C.MQCA_XMIT_Q_NAME: q.xmit_q_name,
    }


def _state_value(handle: QueueHandle, s: int) -> int:
    """CurrentQDepth and the open counts: the queue's state, not its definition."""
    if s == C.MQIA_CURRENT_Q_DEPTH:
        handle.svc.pump.barrier()  # this connection's puts counted (read-your-writes)
        # with the units of work's puts and gets, which MQ counts at once
        return handle.svc.txn.current_depth(handle.state, handle.name)
    counts = handle.state.open_counts()
    return counts["input" if s == C.MQIA_OPEN_INPUT_COUNT else "output"]


_FROM_STATE = frozenset({C.MQIA_CURRENT_Q_DEPTH, C.MQIA_OPEN_INPUT_COUNT, C.MQIA_OPEN_OUTPUT_COUNT})


def inquire_queue(handle: QueueHandle, selectors: Iterable[int]) -> Inquired:
    """MQINQ on an open queue: MQRC_NOT_OPEN_FOR_INQUIRE without MQOO_INQUIRE, the
    selector rules, then the values of the definition as it is now (after any ALTER or
    MQSET of any process)."""
    if not handle.options & C.MQOO_INQUIRE:
        raise fail(C.MQRC_NOT_OPEN_FOR_INQUIRE)
    selectors = list(selectors)
    handle.inquired()  # the run state; ALTERs seen; a deleted queue fails here
    if handle.alias is not None and handle.alias.changed:
        # An alias whose attributes changed since MQOPEN ("Some cases where the MQINQ
        # call fails", https://www.ibm.com/docs/en/SSFKSJ_9.2.0/develop/q026770_.html).
        raise fail(C.MQRC_OBJECT_CHANGED)
    # The object opened answers: an alias its own attributes, not its target's.
    q = handle.alias.qdef if handle.alias is not None else handle.base
    defined = _definition_values(q)

    def value(s: int) -> int | bytes:
        if s in _FROM_STATE:
            return _state_value(handle, s)
        if s not in defined:  # in the table for this queue type, but no value kept yet
            log.warning("MQINQ: no value of %s for %s", rules.ATTRIBUTES[s].name, q.name)
            raise fail(C.MQRC_SELECTOR_ERROR)
        v = defined[s]
        return _char(v, s) if isinstance(v, str) else v

    return _answer(rules.object_kind(q.queue_type), selectors, value)


def inquire_qmgr(qmgr: str, qm: QMgrDef, selectors: Iterable[int]) -> Inquired:
    """MQINQ on the queue manager object `qmgr` with attributes `qm`."""
    selectors = list(selectors)
    values: dict[int, Any] = {
        C.MQIA_CODED_CHAR_SET_ID: CODED_CHAR_SET_ID,
        C.MQIA_COMMAND_LEVEL: COMMAND_LEVEL,
        C.MQIA_DIST_LISTS: C.MQDL_NOT_SUPPORTED,
        C.MQIA_MAX_HANDLES: qm.max_handles,
        C.MQIA_MAX_MSG_LENGTH: qm.max_msg_length,
        C.MQIA_MAX_PRIORITY: MAX_PRIORITY,
        C.MQIA_MAX_UNCOMMITTED_MSGS: qm.max_uncommitted_msgs,
        C.MQIA_PLATFORM: PLATFORM,
        C.MQIA_SYNCPOINT: C.MQSP_AVAILABLE,
        C.MQCA_Q_MGR_NAME: qmgr,
        C.MQCA_Q_MGR_DESC: qm.description,
        C.MQCA_DEAD_LETTER_Q_NAME: qm.dead_letter_q,
        C.MQCA_DEF_XMIT_Q_NAME: qm.def_xmit_q,
        C.MQCA_VERSION: VERSION.decode(),
    }

    def value(s: int) -> int | bytes:
        v = values[s]
        return _char(v, s) if isinstance(v, str) else v

    return _answer(rules.QMGR, selectors, value)


# MQSET selector -> (QueueDef field, how an MQI value becomes the field's value).
_SETTERS: dict[int, tuple[str, Callable[[Any], Any]]] = {
    C.MQIA_INHIBIT_GET: ("get_inhibited", lambda v: v == C.MQQA_GET_INHIBITED),
    C.MQIA_INHIBIT_PUT: ("put_inhibited", lambda v: v == C.MQQA_PUT_INHIBITED),
    C.MQIA_TRIGGER_CONTROL: ("trigger_control", int),
    C.MQIA_TRIGGER_TYPE: ("trigger_type", int),
    C.MQIA_TRIGGER_DEPTH: ("trigger_depth", int),
    C.MQIA_TRIGGER_MSG_PRIORITY: ("trigger_msg_priority", int),
    C.MQIA_DIST_LISTS: ("dist_lists", int),
    # MQ stores what it is given up to the first null, blank-padded: keep the text.
    C.MQCA_TRIGGER_DATA: ("trigger_data", lambda v: v.split(b"\0", 1)[0].decode().rstrip()),
}


def set_queue(handle: QueueHandle, values: Mapping[int, int | bytes]) -> QueueDef:
    """MQSET on an open queue: every rule is checked before anything changes (MQ has no
    partial completion), then one ALTER through the catalog, which every open handle,
    in any process, sees on its next call."""
    handle.current()
    # The object opened is set: through an alias, the alias's own InhibitGet / InhibitPut.
    q = handle.alias.qdef if handle.alias is not None else handle.base
    reason = rules.set_error(rules.object_kind(q.queue_type), handle.options, values, MAX_PRIORITY)
    if reason is not None:
        raise fail(reason)
    if not values:
        return q
    changes = {}
    for selector, value in values.items():
        field, convert = _SETTERS[selector]
        changes[field] = convert(value)
    return handle.svc.catalog.alter(q.name, **changes)
