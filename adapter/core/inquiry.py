"""MQINQ on a queue handle: which selectors apply to which queue type. Pure.

A selector of a queue attribute that the opened queue's type does not have (the open
input count of an alias, the base queue name of a local queue) completes with
MQCC_WARNING and MQRC_SELECTOR_NOT_FOR_TYPE (2068); a selector that is no queue
attribute at all (or one this project does not know yet) is MQRC_SELECTOR_ERROR (2067).
An alias handle answers with the alias's own attributes, not its target's. IBM: "Some
cases where the MQINQ call fails"
<https://www.ibm.com/docs/en/SSFKSJ_9.2.0/develop/q026770_.html>, MQINQ usage notes
<https://www.ibm.com/support/knowledgecenter/SSFKSJ_9.3.0/refdev/q106160_.html>, and the
attributes by queue type (ALTER queues, Table 1)
<https://www.ibm.com/docs/zh/SSFKSJ_9.4.0/refadmin/q085330_.html>.
"""

from __future__ import annotations

from adapter.core import cmqc as C

# Attributes an alias queue has (of those MQINQ here knows).
ALIAS_SELECTORS = frozenset(
    {
        C.MQCA_Q_NAME,
        C.MQCA_Q_DESC,
        C.MQCA_BASE_Q_NAME,
        C.MQIA_BASE_TYPE,
        C.MQIA_Q_TYPE,
        C.MQIA_DEF_PERSISTENCE,
        C.MQIA_DEF_PRIORITY,
        C.MQIA_DEF_PUT_RESPONSE_TYPE,
        C.MQIA_DEF_READ_AHEAD,
        C.MQIA_INHIBIT_GET,
        C.MQIA_INHIBIT_PUT,
        C.MQIA_PROPERTY_CONTROL,
    }
)
# Attributes a local queue has (of those MQINQ here knows).
LOCAL_SELECTORS = (ALIAS_SELECTORS - {C.MQCA_BASE_Q_NAME, C.MQIA_BASE_TYPE}) | {
    C.MQIA_CURRENT_Q_DEPTH,
    C.MQIA_MAX_Q_DEPTH,
    C.MQIA_MAX_MSG_LENGTH,
    C.MQIA_MSG_DELIVERY_SEQUENCE,
    C.MQIA_BACKOUT_THRESHOLD,
    C.MQCA_BACKOUT_REQ_Q_NAME,
    C.MQIA_OPEN_INPUT_COUNT,
    C.MQIA_OPEN_OUTPUT_COUNT,
    C.MQIA_DEFINITION_TYPE,
}
KNOWN_SELECTORS = ALIAS_SELECTORS | LOCAL_SELECTORS
_BY_TYPE = {C.MQQT_LOCAL: LOCAL_SELECTORS, C.MQQT_ALIAS: ALIAS_SELECTORS}


def selector_outcome(queue_type: int, selector: int) -> tuple[int, int] | None:
    """(CompCode, Reason) when MQINQ of `selector` on a queue of `queue_type` does not
    simply return the value; None when it does."""
    if selector not in KNOWN_SELECTORS:
        return C.MQCC_FAILED, C.MQRC_SELECTOR_ERROR
    if selector not in _BY_TYPE.get(queue_type, frozenset()):
        return C.MQCC_WARNING, C.MQRC_SELECTOR_NOT_FOR_TYPE
    return None
