"""Who may use a connection handle, and when: MQCONNX's handle-sharing options
(adapter/core/connrules.py:handle_sharing).

IBM, "Shared (thread independent) connections with MQCONNX"
(https://www.ibm.com/docs/SSFKSJ_7.5.0/com.ibm.mq.dev.doc/q025940_.html):

- MQCNO_HANDLE_SHARE_NONE (MQCONN, and MQCONNX's default): only the thread that made
  the connection may use it; another thread's call fails with MQRC_HCONN_ERROR (2018's
  page: "a nonshared handle that is being used [by] a thread that did not create the
  handle").
- MQCNO_HANDLE_SHARE_BLOCK: any thread; calls are serialised, a call waits while another
  thread's call (a waiting MQGET too) is in progress.
- MQCNO_HANDLE_SHARE_NO_BLOCK: any thread; a call made while another thread's call is in
  progress fails at once with MQRC_CALL_IN_PROGRESS (2219).

The engine connection is thread-safe either way: this enforces MQ's contract, so that a
program that works here works on MQ.

While MQCTL has started asynchronous consume (adapter/pymqi/asyncconsume.py), the
connection belongs to its consumer thread: that thread (the callbacks' MQI calls) is let
in whatever the sharing mode, without the lock, and any other thread's call fails with
MQRC_HCONN_ASYNC_ACTIVE (2500), except MQCTL STOP / SUSPEND and MQDISC, which do not
pass through this guard then (MQCTL, https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q101790_.html:
"The only MQI calls which can be issued by a thread other than the consumer thread are").
"""

from __future__ import annotations

import threading

from adapter.core import cmqc as C
from adapter.core.errors import MQMIError


class HandleSharing:
    """The guard every MQI call of one connection passes through (`enter` / `leave`)."""

    __slots__ = ("consumer", "mode", "owner", "_lock")

    def __init__(self, mode: int) -> None:
        self.mode = mode
        self.owner = threading.get_ident()
        # The consumer thread while asynchronous consume is started (None otherwise).
        self.consumer: int | None = None
        # Re-entrant: a call made inside another call of the same thread (MQPUT1's open,
        # a put that sends a report) is part of that call.
        self._lock = threading.RLock()

    def enter(self) -> bool:
        """Let this thread's call in (or raise MQ's reason); True if it took the lock,
        to be given back to `leave`."""
        consumer = self.consumer
        if consumer is not None:
            if threading.get_ident() != consumer:
                raise MQMIError(C.MQCC_FAILED, C.MQRC_HCONN_ASYNC_ACTIVE)
            return False  # the consumer thread: the only one in, no lock taken
        if self.mode == C.MQCNO_HANDLE_SHARE_NONE:
            if threading.get_ident() != self.owner:
                raise MQMIError(C.MQCC_FAILED, C.MQRC_HCONN_ERROR)
            return False
        if not self._lock.acquire(blocking=self.mode == C.MQCNO_HANDLE_SHARE_BLOCK):
            raise MQMIError(C.MQCC_FAILED, C.MQRC_CALL_IN_PROGRESS)
        return True

    def leave(self, locked: bool) -> None:
        if locked:
            self._lock.release()


def sharing_of(face: object) -> HandleSharing | None:
    """The guard of the connection behind a QueueManager or Queue (None: not connected,
    or an object without a connection)."""
    guard = getattr(face, "_sharing", None)
    if guard is None:
        qmgr = getattr(face, "_qmgr", None)
        guard = getattr(qmgr, "_sharing", None)
    return guard
