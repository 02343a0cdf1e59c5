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
"""

from __future__ import annotations

import threading

from adapter.core import cmqc as C
from adapter.core.errors import MQMIError


class HandleSharing:
    """The guard every MQI call of one connection passes through (`with sharing:`)."""

    __slots__ = ("mode", "owner", "_lock")

    def __init__(self, mode: int) -> None:
        self.mode = mode
        self.owner = threading.get_ident()
        # Re-entrant: a call made inside another call of the same thread (MQPUT1's open,
        # a put that sends a report) is part of that call.
        self._lock = threading.RLock()

    def __enter__(self) -> None:
        if self.mode == C.MQCNO_HANDLE_SHARE_NONE:
            if threading.get_ident() != self.owner:
                raise MQMIError(C.MQCC_FAILED, C.MQRC_HCONN_ERROR)
            return
        if not self._lock.acquire(blocking=self.mode == C.MQCNO_HANDLE_SHARE_BLOCK):
            raise MQMIError(C.MQCC_FAILED, C.MQRC_CALL_IN_PROGRESS)

    def __exit__(self, *_exc: object) -> None:
        if self.mode != C.MQCNO_HANDLE_SHARE_NONE:
            self._lock.release()


def sharing_of(face: object) -> HandleSharing | None:
    """The guard of the connection behind a QueueManager or Queue (None: not connected,
    or an object without a connection)."""
    guard = getattr(face, "_sharing", None)
    if guard is None:
        qmgr = getattr(face, "_qmgr", None)
        guard = getattr(qmgr, "_sharing", None)
    return guard
