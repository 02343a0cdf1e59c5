"""MQOPEN / MQPUT1 name resolution: the queue-manager name in the MQOD and alias
queues. Pure.

- ObjectQMgrName is resolved before ObjectName. Blank (up to the first NUL) or the name
  of the queue manager the application is connected to means this queue manager. Any
  other name has to be a transmission queue, a queue-manager alias or, with a default
  transmission queue, any remote queue manager; none of those exist yet here, so a name
  that is a local queue (which is not a transmission queue) is
  MQRC_XMIT_Q_USAGE_ERROR (2092) and any other name MQRC_UNKNOWN_REMOTE_Q_MGR (2087).
  IBM, "Name resolution" <https://www.ibm.com/docs/SSFKSJ_9.4.0/develop/q025990_.html>;
  MQOD ObjectQMgrName <https://ibm.com/support/knowledgecenter/SSFKSJ_9.3.0/refdev/q098190_.html>;
  the Unknown Remote Queue Manager event (2087)
  <https://ibm.com/docs/SSFKSJ_9.3.0/reference/q050110_.html>; 2092
  <https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041530_.html>.
- An alias queue resolves at MQOPEN to its TARGET (BaseQName), which must be a queue
  defined here that is not another alias (nor a model): else
  MQRC_ALIAS_BASE_Q_TYPE_ERROR (2001); a TARGET that names no queue is
  MQRC_UNKNOWN_ALIAS_BASE_Q (2082). "Working with alias queues"
  <https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=objects-working-alias-queues>, 2001
  <https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q040750_.html> and the Alias Base
  Queue Type Error event (base type alias or model)
  <https://www.ibm.com/support/knowledgecenter/SSFKSJ_9.4.0/reference/q049660_.html>,
  the Unknown Alias Base Queue event (2082).
- Which attributes an alias gives and which the target gives: "How are destination
  object attributes resolved for aliases, remote queues and cluster queues?"
  <https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.con.doc/q132960_.html>: an
  attribute the alias can carry (the DEF* defaults, PROPCTL, DEFREADA) is the alias's;
  the limits it cannot carry (MAXDEPTH, MAXMSGL, SHARE, DEFSOPT, ...) are the target's;
  GET/PUT(DISABLED) on either inhibits (2016 / 2051: "for the queue, or for the queue to
  which this queue resolves").
"""

from __future__ import annotations

from adapter.core import cmqc as C


def object_qmgr_error(object_qmgr: str, local_qmgr: str, *, is_local_queue: bool) -> int | None:
    """The reason an MQOD's ObjectQMgrName cannot be resolved here, or None when it
    names this queue manager. `object_qmgr` is the field up to its first NUL, trailing
    blanks removed; `is_local_queue`: it is the name of a local queue."""
    if not object_qmgr or object_qmgr == local_qmgr:
        return None
    if is_local_queue:
        return C.MQRC_XMIT_Q_USAGE_ERROR  # used as a transmission queue, which it is not
    return C.MQRC_UNKNOWN_REMOTE_Q_MGR


def alias_base_error(base_type: int | None) -> int | None:
    """The reason MQOPEN / MQPUT1 of an alias fails for its target's queue type (None:
    no queue of that name), or None when the target is a local queue."""
    if base_type is None:
        return C.MQRC_UNKNOWN_ALIAS_BASE_Q
    if base_type != C.MQQT_LOCAL:
        return C.MQRC_ALIAS_BASE_Q_TYPE_ERROR
    return None


def target_changed_error(opened_target: str, current_target: str | None) -> int | None:
    """An alias handle's MQPUT / MQGET / MQINQ after the alias changed: the definitions
    that made its resolution changed since MQOPEN (ALTER QALIAS TARGET with FORCE, or the
    alias deleted and defined anew) is MQRC_OBJECT_CHANGED (2041: close and reopen,
    <https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041120_.html>). `current_target`
    None: the alias is gone."""
    if current_target is None or current_target != opened_target:
        return C.MQRC_OBJECT_CHANGED
    return None
