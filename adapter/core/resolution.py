"""MQOPEN / MQPUT1 name resolution: the queue-manager name in the MQOD and alias
queues. Pure.

- ObjectQMgrName is resolved before ObjectName. Blank (up to the first NUL) or the name
  of the queue manager the application is connected to means this queue manager. Any
  other name has to be a transmission queue, a queue-manager alias or, with a default
  transmission queue, any remote queue manager (`resolve_remote`): a name that is a
  local queue which is not a transmission queue is MQRC_XMIT_Q_USAGE_ERROR (2092), and
  a name none of those resolves MQRC_UNKNOWN_REMOTE_Q_MGR (2087).
- A local definition of a remote queue (QREMOTE) resolves to RNAME at RQMNAME through
  XMITQ, else the transmission queue named RQMNAME, else DEFXMITQ ("Opening remote
  queues", https://www.ibm.com/docs/SSFKSJ_9.4.0/develop/q026110_.html; the reasons:
  the Unknown Remote Queue Manager event q050110_ for 2087, 2091 q041520_, 2092
  q041530_, 2184 (RNAME blank), 2196 (XMITQ names no queue), 2197 / 2198 / 2199 (the
  same three for DEFXMITQ), IBM's reason-code pages).
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

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from adapter.core import cmqc as C


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


class Definition(Protocol):
    """What name resolution reads of a queue definition (shim/catalog.py's QueueDef)."""

    queue_type: int
    usage: int
    remote_q_name: str
    remote_q_mgr_name: str
    xmit_q_name: str


@dataclass(frozen=True)
class RemoteRoute:
    """Where a message for a remote queue goes: RemoteQName at RemoteQMgrName (the
    MQXQH's and MQOD's Resolved names), through the local transmission queue `xmit_q`."""

    remote_q: str
    remote_qmgr: str
    xmit_q: str


class ResolutionError(Exception):
    def __init__(self, reason: int) -> None:
        super().__init__(reason)
        self.reason = reason


Lookup = Callable[[str], "Definition | None"]


def _transmission_queue(named: str, remote_qmgr: str, def_xmit_q: str, lookup: Lookup) -> str:
    """The transmission queue for `remote_qmgr`: `named` (a definition's XMITQ), else
    a queue named like the remote queue manager, else DEFXMITQ."""
    if named:
        d = lookup(named)
        if d is None:
            raise ResolutionError(C.MQRC_UNKNOWN_XMIT_Q)
        _check_xmit_q(d, C.MQRC_XMIT_Q_TYPE_ERROR, C.MQRC_XMIT_Q_USAGE_ERROR)
        return named
    d = lookup(remote_qmgr) if len(remote_qmgr) <= C.MQ_Q_NAME_LENGTH else None
    if d is not None:
        _check_xmit_q(d, C.MQRC_XMIT_Q_TYPE_ERROR, C.MQRC_XMIT_Q_USAGE_ERROR)
        return remote_qmgr
    if not def_xmit_q:
        raise ResolutionError(C.MQRC_UNKNOWN_REMOTE_Q_MGR)
    d = lookup(def_xmit_q)
    if d is None:
        raise ResolutionError(C.MQRC_UNKNOWN_DEF_XMIT_Q)
    _check_xmit_q(d, C.MQRC_DEF_XMIT_Q_TYPE_ERROR, C.MQRC_DEF_XMIT_Q_USAGE_ERROR)
    return def_xmit_q


def _check_xmit_q(d: Definition, type_error: int, usage_error: int) -> None:
    if d.queue_type != C.MQQT_LOCAL:
        raise ResolutionError(type_error)
    if d.usage != C.MQUS_TRANSMISSION:
        raise ResolutionError(usage_error)


def resolve_remote(
    object_name: str, object_qmgr: str, local_qmgr: str, def_xmit_q: str, lookup: Lookup
) -> RemoteRoute | None:
    """MQOPEN / MQPUT1 name resolution for remote destinations: the route, or None when
    the object is this queue manager's own (a local, model or alias queue, resolved as
    before). Raises ResolutionError with MQ's reason otherwise."""
    if not object_qmgr or object_qmgr == local_qmgr:
        d = lookup(object_name)
        if d is None or d.queue_type != C.MQQT_REMOTE:
            return None
        if not d.remote_q_name:
            raise ResolutionError(C.MQRC_REMOTE_Q_NAME_ERROR)
        if not d.remote_q_mgr_name or d.remote_q_mgr_name == local_qmgr:
            raise ResolutionError(C.MQRC_UNKNOWN_REMOTE_Q_MGR)  # even with an XMITQ
        xmit = _transmission_queue(d.xmit_q_name, d.remote_q_mgr_name, def_xmit_q, lookup)
        return RemoteRoute(d.remote_q_name, d.remote_q_mgr_name, xmit)
    d = lookup(object_qmgr) if len(object_qmgr) <= C.MQ_Q_NAME_LENGTH else None
    if d is not None and d.queue_type == C.MQQT_REMOTE:  # a queue-manager alias
        if d.remote_q_name:
            raise ResolutionError(C.MQRC_UNKNOWN_REMOTE_Q_MGR)
        target = d.remote_q_mgr_name or object_qmgr
        if target == local_qmgr:
            return resolve_remote(object_name, "", local_qmgr, def_xmit_q, lookup)
        xmit = _transmission_queue(d.xmit_q_name, target, def_xmit_q, lookup)
        return RemoteRoute(object_name, target, xmit)
    if d is not None and d.queue_type == C.MQQT_LOCAL:
        if d.usage != C.MQUS_TRANSMISSION:
            raise ResolutionError(C.MQRC_XMIT_Q_USAGE_ERROR)
        return RemoteRoute(object_name, object_qmgr, object_qmgr)
    return RemoteRoute(object_name, object_qmgr, _transmission_queue("", "", def_xmit_q, lookup))
