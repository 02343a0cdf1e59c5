"""Rules of the queue manager as a whole: its run state (endmqm / strmqm) and what each
MQI call gets in it, and its limits MAXHANDS, MAXUMSGS and MAXMSGL. Pure: the engine
reads the state and the attributes and asks these functions for the reason code.

IBM's texts followed:

- endmqm: -c (controlled, the default) lets applications go on and stops once they
  have disconnected; -i (immediate) lets the MQI calls in progress complete and makes
  every later request fail, units of work backed out
  (https://www.ibm.com/docs/SS5K6E_9.3.0/mqa/reference/controlcmd/endmqm.html).
- 2161 MQRC_Q_MGR_QUIESCING: while quiescing MQOPEN, MQPUT, MQPUT1 and MQGET still
  complete unless they ask to fail with MQOO_/MQPMO_/MQGMO_FAIL_IF_QUIESCING; MQCONN
  lists it among its reasons
  (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q042200_.html). A waiting
  MQGET with MQGMO_FAIL_IF_QUIESCING is ended by the quiesce; without it, it waits on
  ("Waiting for messages", https://www.ibm.com/support/knowledgecenter/SSFKSJ_7.5.0/com.ibm.mq.dev.doc/q026420_.htm).
- 2162 MQRC_Q_MGR_STOPPING: every MQI call fails, a waiting MQGET is ended, no more
  calls can be issued, the queue manager's unit of work is backed out
  (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q042210_.html).
- 2017 MQRC_HANDLE_NOT_AVAILABLE: MQOPEN or MQPUT1 when the connection already has
  MaxHandles handles open (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q040900_.html).
- 2024 MQRC_SYNCPOINT_LIMIT_REACHED: an MQGET, MQPUT or MQPUT1 that would take the
  unit of work's uncommitted messages past MaxUncommittedMsgs; a put counts one
  whatever number of segments the queue manager makes of it
  (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q040970_.html,
  https://www.ibm.com/docs/en/ibm-mq/9.1.x?topic=manager-maxuncommittedmsgs-mqlong).
- 2030 / 2031: a message longer than the queue's MaxMsgLength is MQRC_MSG_TOO_BIG_FOR_Q;
  one that fits the queue but not the queue manager's MaxMsgLength is
  MQRC_MSG_TOO_BIG_FOR_Q_MGR (queue attribute MaxMsgLength,
  https://www.ibm.com/docs/zh/SSFKSJ_8.0.0/com.ibm.mq.ref.dev.doc/q106540_.html;
  https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041030_.html). With
  MQMF_SEGMENTATION_ALLOWED the segments must fit the lesser of the two.
"""

from __future__ import annotations

import enum

from adapter.core import cmqc as C

MIN_QMGR_MAX_MSG_LENGTH = 32_768
"""The smallest MAXMSGL ALTER QMGR accepts: a shorter message never needs the lookup."""


class RunState(enum.Enum):
    """DISPLAY QMSTATUS STATUS, as endmqm and strmqm set it."""

    RUNNING = "RUNNING"
    QUIESCING = "QUIESCING"  # endmqm -c
    ENDING_IMMEDIATELY = "ENDING IMMEDIATELY"  # endmqm -i

    @classmethod
    def of(cls, value: str | None) -> RunState:
        """The state a stored value names (none stored: running)."""
        return cls.RUNNING if value is None else cls(value)


def call_error(state: RunState, fail_if_quiescing: bool = False) -> int | None:
    """The reason an MQI call on an existing connection gets in `state` (None: it runs).
    `fail_if_quiescing`: the call's *_FAIL_IF_QUIESCING option."""
    if state is RunState.ENDING_IMMEDIATELY:
        return C.MQRC_Q_MGR_STOPPING
    if state is RunState.QUIESCING and fail_if_quiescing:
        return C.MQRC_Q_MGR_QUIESCING
    return None


def connect_error(state: RunState) -> int | None:
    """MQCONN's reason in `state`: no new connection while the queue manager quiesces
    (2161) or ends (2162)."""
    if state is RunState.QUIESCING:
        return C.MQRC_Q_MGR_QUIESCING
    if state is RunState.ENDING_IMMEDIATELY:
        return C.MQRC_Q_MGR_STOPPING
    return None


def handle_error(open_handles: int, max_handles: int) -> int | None:
    """MQOPEN / MQPUT1 with `open_handles` already open on the connection (MAXHANDS)."""
    return C.MQRC_HANDLE_NOT_AVAILABLE if open_handles >= max_handles else None


def syncpoint_error(uncommitted: int, max_uncommitted: int) -> int | None:
    """A syncpoint MQPUT / MQPUT1 / MQGET adding one message to a unit of work that
    holds `uncommitted` (MAXUMSGS)."""
    return C.MQRC_SYNCPOINT_LIMIT_REACHED if uncommitted + 1 > max_uncommitted else None


def msg_length_error(length: int, queue_max: int, qmgr_max: int) -> int | None:
    """A physical message of `length` bytes against the queue's and the queue
    manager's MAXMSGL: the queue's is checked first."""
    if length > queue_max:
        return C.MQRC_MSG_TOO_BIG_FOR_Q
    if length > qmgr_max:
        return C.MQRC_MSG_TOO_BIG_FOR_Q_MGR
    return None
