"""MQINQ / MQSET: which selector names which attribute of which object, and the rules
the two calls apply to a list of selectors before any value is read or written.

Pure: no I/O. The engine (adapter/shim/attributes.py) answers the values; both API faces
(adapter.pymqi, adapter.ibmmq) only format them.

IBM's pages followed (IBM MQ 9.4):

* MQINQ - Inquire object attributes (selectors per object and queue type; character
  attributes blank-padded to their MQ_*_LENGTH):
  https://www.ibm.com/docs/SSFKSJ_9.4.0/refdev/q101800_.html
* MQSET - Set object attributes: "The object must be a queue"; at most 256 selectors;
  the settable ones are InhibitGet (not for remote queues), DistLists, InhibitPut,
  TriggerControl, TriggerType, TriggerDepth, TriggerMsgPriority and TriggerData;
  "There are no partial-completion situations":
  https://www.ibm.com/docs/SSFKSJ_9.4.0/refdev/q101900_.html and
  https://www.ibm.com/docs/en/SSFKSJ_9.2.0/develop/q026780_.html
* 2067 MQRC_SELECTOR_ERROR (FAILED): the selector is not supported, "not applicable to
  the type of object", or "for an attribute that cannot be set":
  https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041350_.html
* 2068 MQRC_SELECTOR_NOT_FOR_TYPE (MQINQ only, WARNING): a queue selector "not
  applicable to the type of the queue"; its integer comes back as MQIAV_NOT_APPLICABLE
  and its characters as asterisks:
  https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041360_.html
* 2065 MQRC_SELECTOR_COUNT_ERROR / 2066 MQRC_SELECTOR_LIMIT_EXCEEDED (more than 256):
  https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041340_.html
* MQSET values: 2020 MQRC_INHIBIT_VALUE_ERROR, 2075 MQRC_TRIGGER_CONTROL_ERROR,
  2076 MQRC_TRIGGER_DEPTH_ERROR ("greater than zero"), 2077
  MQRC_TRIGGER_MSG_PRIORITY_ERR, 2078 MQRC_TRIGGER_TYPE_ERROR, 2006
  MQRC_CHAR_ATTR_LENGTH_ERROR (a character value longer than its attribute).

So 2068 is about queue *types* (an alias queue's BaseQName asked of a local queue),
2067 about object types (a queue manager attribute asked of a queue, or the reverse).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from adapter.core import cmqc as C  # noqa: N812

__all__ = [
    "ATTRIBUTES",
    "MAX_SELECTORS",
    "QUEUE_KINDS",
    "Attribute",
    "InquirePlan",
    "inquire_plan",
    "not_applicable",
    "object_kind",
    "set_error",
]

MAX_SELECTORS = 256
"""The most selectors one MQINQ or MQSET takes (2066 beyond it)."""

# The objects an attribute belongs to, in MQ's MQOT_* values: the queue manager, and a
# queue by its type (MQINQ tells those apart with 2068).
QMGR = C.MQOT_Q_MGR
LOCAL, MODEL, ALIAS, REMOTE = C.MQOT_LOCAL_Q, C.MQOT_MODEL_Q, C.MQOT_ALIAS_Q, C.MQOT_REMOTE_Q
QUEUE_KINDS = frozenset({LOCAL, MODEL, ALIAS, REMOTE})
_KIND_OF_QUEUE_TYPE = {
    C.MQQT_LOCAL: LOCAL,
    C.MQQT_MODEL: MODEL,
    C.MQQT_ALIAS: ALIAS,
    C.MQQT_REMOTE: REMOTE,
}


def object_kind(queue_type: int | None) -> int:
    """The MQOT_* kind of a queue of MQIA_Q_TYPE `queue_type`, or MQOT_Q_MGR for None
    (the queue manager object)."""
    if queue_type is None:
        return QMGR
    return _KIND_OF_QUEUE_TYPE[queue_type]


@dataclass(frozen=True, slots=True)
class Attribute:
    """One MQINQ/MQSET selector: MQ's attribute name, the objects it belongs to, its
    length (0: an integer attribute) and the queue kinds MQSET may change it on."""

    selector: int
    name: str
    objects: frozenset[int]
    length: int = 0
    settable_on: frozenset[int] = frozenset()

    @property
    def is_char(self) -> bool:
        return self.length > 0


_LM = frozenset({LOCAL, MODEL})
_LMA = frozenset({LOCAL, MODEL, ALIAS})
_ALLQ = QUEUE_KINDS


def _a(selector: int, name: str, objects, length: int = 0, settable=frozenset()) -> Attribute:
    return Attribute(selector, name, frozenset(objects), length, frozenset(settable))


ATTRIBUTES: dict[int, Attribute] = {
    a.selector: a
    for a in (
        # -- queues: integers --------------------------------------------------------
        _a(C.MQIA_BACKOUT_THRESHOLD, "BackoutThreshold", _LM),
        _a(C.MQIA_CURRENT_Q_DEPTH, "CurrentQDepth", {LOCAL}),
        _a(C.MQIA_DEF_INPUT_OPEN_OPTION, "DefInputOpenOption", _LM),
        _a(C.MQIA_DEF_PERSISTENCE, "DefPersistence", _ALLQ),
        _a(C.MQIA_DEF_PRIORITY, "DefPriority", _ALLQ),
        _a(C.MQIA_DEF_PUT_RESPONSE_TYPE, "DefPutResponse", _ALLQ),
        _a(C.MQIA_DEF_READ_AHEAD, "DefReadAhead", _ALLQ),
        _a(C.MQIA_DEFINITION_TYPE, "DefinitionType", _LM),
        _a(C.MQIA_DIST_LISTS, "DistLists", {*_LM, QMGR}, settable=_LM),
        _a(C.MQIA_HARDEN_GET_BACKOUT, "HardenGetBackout", _LM),
        _a(C.MQIA_INHIBIT_GET, "InhibitGet", _LMA, settable=_LMA),
        _a(C.MQIA_INHIBIT_PUT, "InhibitPut", _ALLQ, settable=_ALLQ),
        _a(C.MQIA_MAX_MSG_LENGTH, "MaxMsgLength", {*_LM, QMGR}),
        _a(C.MQIA_MAX_Q_DEPTH, "MaxQDepth", _LM),
        _a(C.MQIA_MSG_DELIVERY_SEQUENCE, "MsgDeliverySequence", _LM),
        _a(C.MQIA_OPEN_INPUT_COUNT, "OpenInputCount", {LOCAL}),
        _a(C.MQIA_OPEN_OUTPUT_COUNT, "OpenOutputCount", {LOCAL}),
        _a(C.MQIA_PROPERTY_CONTROL, "PropertyControl", _LMA),
        _a(C.MQIA_Q_TYPE, "QType", _ALLQ),
        _a(C.MQIA_SHAREABILITY, "Shareability", _LM),
        _a(C.MQIA_TRIGGER_CONTROL, "TriggerControl", _LM, settable=_LM),
        _a(C.MQIA_TRIGGER_DEPTH, "TriggerDepth", _LM, settable=_LM),
        _a(C.MQIA_TRIGGER_MSG_PRIORITY, "TriggerMsgPriority", _LM, settable=_LM),
        _a(C.MQIA_TRIGGER_TYPE, "TriggerType", _LM, settable=_LM),
        _a(C.MQIA_USAGE, "Usage", _LM),
        _a(C.MQIA_BASE_TYPE, "BaseType", {ALIAS}),
        # -- queues: characters ------------------------------------------------------
        _a(C.MQCA_Q_NAME, "QName", _ALLQ, C.MQ_Q_NAME_LENGTH),
        _a(C.MQCA_Q_DESC, "QDesc", _ALLQ, C.MQ_Q_DESC_LENGTH),
        _a(C.MQCA_BACKOUT_REQ_Q_NAME, "BackoutRequeueQName", _LM, C.MQ_Q_NAME_LENGTH),
        _a(C.MQCA_INITIATION_Q_NAME, "InitiationQName", _LM, C.MQ_Q_NAME_LENGTH),
        _a(C.MQCA_PROCESS_NAME, "ProcessName", _LM, C.MQ_PROCESS_NAME_LENGTH),
        _a(C.MQCA_TRIGGER_DATA, "TriggerData", _LM, C.MQ_TRIGGER_DATA_LENGTH, _LM),
        _a(C.MQCA_BASE_Q_NAME, "BaseQName", {ALIAS}, C.MQ_Q_NAME_LENGTH),
        _a(C.MQCA_REMOTE_Q_NAME, "RemoteQName", {REMOTE}, C.MQ_Q_NAME_LENGTH),
        _a(C.MQCA_REMOTE_Q_MGR_NAME, "RemoteQMgrName", {REMOTE}, C.MQ_Q_MGR_NAME_LENGTH),
        _a(C.MQCA_XMIT_Q_NAME, "XmitQName", {REMOTE}, C.MQ_Q_NAME_LENGTH),
        # -- the queue manager -------------------------------------------------------
        _a(C.MQIA_CODED_CHAR_SET_ID, "CodedCharSetId", {QMGR}),
        _a(C.MQIA_COMMAND_LEVEL, "CommandLevel", {QMGR}),
        _a(C.MQIA_MAX_HANDLES, "MaxHandles", {QMGR}),
        _a(C.MQIA_MAX_PRIORITY, "MaxPriority", {QMGR}),
        _a(C.MQIA_MAX_UNCOMMITTED_MSGS, "MaxUncommittedMsgs", {QMGR}),
        _a(C.MQIA_PLATFORM, "Platform", {QMGR}),
        _a(C.MQIA_SYNCPOINT, "SyncPoint", {QMGR}),
        _a(C.MQCA_Q_MGR_NAME, "QMgrName", {QMGR}, C.MQ_Q_MGR_NAME_LENGTH),
        _a(C.MQCA_Q_MGR_DESC, "QMgrDesc", {QMGR}, C.MQ_Q_MGR_DESC_LENGTH),
        _a(C.MQCA_DEAD_LETTER_Q_NAME, "DeadLetterQName", {QMGR}, C.MQ_Q_NAME_LENGTH),
        _a(C.MQCA_DEF_XMIT_Q_NAME, "DefXmitQName", {QMGR}, C.MQ_Q_NAME_LENGTH),
        _a(C.MQCA_VERSION, "Version", {QMGR}, C.MQ_VERSION_LENGTH),
    )
}
"""Every selector MQINQ answers here, by selector value."""


@dataclass(frozen=True, slots=True)
class InquirePlan:
    """What MQINQ does with a selector list on an object of one kind: fail with
    `reason`, or answer `applicable` selectors and mark the others not applicable
    (MQCC_WARNING + MQRC_SELECTOR_NOT_FOR_TYPE)."""

    reason: int | None
    applicable: tuple[int, ...] = ()
    not_applicable: tuple[int, ...] = ()

    @property
    def warning(self) -> int | None:
        return C.MQRC_SELECTOR_NOT_FOR_TYPE if self.not_applicable else None


def _count_error(n: int) -> int | None:
    if n < 0:
        return C.MQRC_SELECTOR_COUNT_ERROR
    if n > MAX_SELECTORS:
        return C.MQRC_SELECTOR_LIMIT_EXCEEDED
    return None


def _belongs(attr: Attribute, kind: int) -> bool:
    """Whether `attr` is an attribute of this *object type* (queue or queue manager)."""
    if kind == QMGR:
        return QMGR in attr.objects
    return bool(attr.objects & QUEUE_KINDS)


def inquire_plan(kind: int, selectors: Iterable[int]) -> InquirePlan:
    """MQINQ's checks on `selectors` for an object of `kind` (object_kind()): 2065/2066
    for the count, 2067 for a selector unknown here or of another object type; a queue
    selector of another queue type is answered as not applicable (2068)."""
    selectors = list(selectors)
    reason = _count_error(len(selectors))
    if reason is not None:
        return InquirePlan(reason)
    applicable: list[int] = []
    other: list[int] = []
    for s in selectors:
        attr = ATTRIBUTES.get(s)
        if attr is None or not _belongs(attr, kind):
            return InquirePlan(C.MQRC_SELECTOR_ERROR)
        (applicable if kind in attr.objects else other).append(s)
    return InquirePlan(None, tuple(applicable), tuple(other))


def not_applicable(selector: int) -> int | bytes:
    """The value MQINQ gives a selector not applicable to the queue's type."""
    attr = ATTRIBUTES[selector]
    return b"*" * attr.length if attr.is_char else C.MQIAV_NOT_APPLICABLE


_VALUE_CHECKS = {
    C.MQIA_INHIBIT_GET: (
        (C.MQQA_GET_INHIBITED, C.MQQA_GET_ALLOWED),
        C.MQRC_INHIBIT_VALUE_ERROR,
    ),
    C.MQIA_INHIBIT_PUT: (
        (C.MQQA_PUT_INHIBITED, C.MQQA_PUT_ALLOWED),
        C.MQRC_INHIBIT_VALUE_ERROR,
    ),
    C.MQIA_TRIGGER_CONTROL: ((C.MQTC_OFF, C.MQTC_ON), C.MQRC_TRIGGER_CONTROL_ERROR),
    C.MQIA_TRIGGER_TYPE: (
        (C.MQTT_NONE, C.MQTT_FIRST, C.MQTT_EVERY, C.MQTT_DEPTH),
        C.MQRC_TRIGGER_TYPE_ERROR,
    ),
    # No reason code of its own in IBM's list: a DistLists value that is neither is a
    # selector value MQSET cannot take.
    C.MQIA_DIST_LISTS: ((C.MQDL_SUPPORTED, C.MQDL_NOT_SUPPORTED), C.MQRC_SELECTOR_ERROR),
}


def set_error(
    kind: int, open_options: int, values: Mapping[int, int | bytes], max_priority: int = 9
) -> int | None:
    """MQSET's reason for setting `values` ({selector: value}; character values as
    bytes without padding) on an object of `kind` opened with `open_options`, or None:
    2040 without MQOO_SET, 2065/2066 for the count, 2067 for a selector that is not
    settable on this kind of object, then the value checks. All are made before
    anything is set: MQSET never completes partly."""
    if not open_options & C.MQOO_SET:
        return C.MQRC_NOT_OPEN_FOR_SET
    reason = _count_error(len(values))
    if reason is not None:
        return reason
    for selector in values:
        attr = ATTRIBUTES.get(selector)
        if attr is None or kind not in attr.settable_on:
            return C.MQRC_SELECTOR_ERROR
    for selector, value in values.items():
        attr = ATTRIBUTES[selector]
        if attr.is_char:
            if not isinstance(value, bytes) or len(value) > attr.length:
                return C.MQRC_CHAR_ATTR_LENGTH_ERROR
            continue
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"{attr.name} takes an integer, not {value!r}")
        if selector in _VALUE_CHECKS:
            allowed, reason = _VALUE_CHECKS[selector]
            if value not in allowed:
                return reason
        elif selector == C.MQIA_TRIGGER_DEPTH and value <= 0:
            return C.MQRC_TRIGGER_DEPTH_ERROR
        elif selector == C.MQIA_TRIGGER_MSG_PRIORITY and not 0 <= value <= max_priority:
            return C.MQRC_TRIGGER_MSG_PRIORITY_ERR
    return None
