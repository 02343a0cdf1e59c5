"""MQINQ of a queue handle's attributes (pymqi's `Queue.inquire`).

The handle answers for the object it opened: a local queue's own attributes, or, when
it was opened through an alias, the alias's (MQIA_Q_TYPE MQQT_ALIAS, MQCA_BASE_Q_NAME
its target, its own DEFPRTY, GET and PUT, ...), not the target's. Which selectors apply
to which queue type is adapter/core/inquiry.py (2068 as a warning, 2067); values are
at MQ's types and widths (MQCHARs blank-padded). IBM: MQINQ usage notes
<https://www.ibm.com/support/knowledgecenter/SSFKSJ_9.3.0/refdev/q106160_.html>.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from adapter.core import cmqc as C
from adapter.core.inquiry import selector_outcome
from adapter.core.text import mqchar
from adapter.pymqi.errors import MQMIError
from adapter.shim.catalog import QueueDef

_Value = Callable[[QueueDef, Any], Any]  # (the object's definition, the handle) -> value

_VALUES: dict[int, _Value] = {
    C.MQIA_MAX_Q_DEPTH: lambda q, h: q.max_depth,
    C.MQIA_MAX_MSG_LENGTH: lambda q, h: q.max_msg_length,
    C.MQIA_DEF_PERSISTENCE: lambda q, h: q.def_persistence,
    C.MQIA_DEF_PRIORITY: lambda q, h: q.def_priority,
    C.MQIA_DEF_PUT_RESPONSE_TYPE: lambda q, h: q.def_put_response,
    C.MQIA_DEF_READ_AHEAD: lambda q, h: C.MQREADA_YES if q.def_read_ahead else C.MQREADA_NO,
    C.MQIA_INHIBIT_GET: lambda q, h: (
        C.MQQA_GET_INHIBITED if q.get_inhibited else C.MQQA_GET_ALLOWED
    ),
    C.MQIA_INHIBIT_PUT: lambda q, h: (
        C.MQQA_PUT_INHIBITED if q.put_inhibited else C.MQQA_PUT_ALLOWED
    ),
    C.MQIA_PROPERTY_CONTROL: lambda q, h: q.property_control,
    C.MQIA_MSG_DELIVERY_SEQUENCE: lambda q, h: q.msg_delivery_sequence,
    C.MQIA_BACKOUT_THRESHOLD: lambda q, h: q.backout_threshold,
    C.MQIA_OPEN_INPUT_COUNT: lambda q, h: h.state.open_counts()["input"],
    C.MQIA_OPEN_OUTPUT_COUNT: lambda q, h: h.state.open_counts()["output"],
    C.MQIA_Q_TYPE: lambda q, h: q.queue_type,
    C.MQIA_DEFINITION_TYPE: lambda q, h: q.definition_type,
    C.MQIA_BASE_TYPE: lambda q, h: C.MQOT_Q,  # TARGTYPE(QUEUE): topics come later
    C.MQCA_Q_NAME: lambda q, h: mqchar(q.name, C.MQ_Q_NAME_LENGTH),
    C.MQCA_Q_DESC: lambda q, h: mqchar(q.description, C.MQ_Q_DESC_LENGTH),
    C.MQCA_BASE_Q_NAME: lambda q, h: mqchar(q.target, C.MQ_Q_NAME_LENGTH),
    C.MQCA_BACKOUT_REQ_Q_NAME: lambda q, h: mqchar(q.backout_requeue_q, C.MQ_Q_NAME_LENGTH),
}


def queue_attribute(handle: Any, attribute: int, queue_status: Callable[[str], dict]) -> Any:
    """The value of `attribute` for the object `handle` opened (after any ALTER: the
    current definitions). `queue_status`: DISPLAY QSTATUS of a queue (its depth)."""
    handle.inquired()  # run state; ALTERs seen; a changed alias or a deleted queue fails
    if handle.alias is not None and handle.alias.changed:
        # MQINQ of an alias whose attributes changed since MQOPEN (shim/alias.py).
        raise MQMIError(C.MQCC_FAILED, C.MQRC_OBJECT_CHANGED)
    obj = handle.alias.qdef if handle.alias is not None else handle.base
    outcome = selector_outcome(obj.queue_type, attribute)
    if outcome is not None:
        raise MQMIError(*outcome)
    if attribute == C.MQIA_CURRENT_Q_DEPTH:
        return queue_status(handle.name)["current_depth"]
    return _VALUES[attribute](obj, handle)
