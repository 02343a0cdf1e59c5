"""Asynchronous consume, the delivery half: the registrations and the loop that drives
them (a mixin of adapter/pymqi/asyncconsume.py's AsyncConsume, which owns MQCB and
MQCTL and the state this loop reads).

Delivery is MQGET, the face's own (`Queue.get`, so the engine's adapter/shim/get.py is
the one owner of get semantics): the consumer thread gets with the registered MQMD and
MQGMO (copied afresh for every get, so a MsgId or CorrelId to match stays the one
registered), waiting at most SLICE_MS at a time so that MQOP_STOP / MQOP_SUSPEND are
seen within that time, and calls the consumer with what the get returned:

- a message: MQCBCT_MSG_REMOVED (MQCBCT_MSG_NOT_REMOVED when browsing), with the get's
  warning (2079 truncated accepted, conversion) as CompCode / Reason; DataLength is the
  message's full data length, BufferLength the bytes passed;
- a message longer than MaxMsgLength without MQGMO_ACCEPT_TRUNCATED_MSG: stays on the
  queue, MQCBCT_MSG_NOT_REMOVED with MQRC_TRUNCATED_MSG_FAILED (2080); the consumer is
  not tried again before the next pass;
- MQGMO_WAIT with a WaitInterval, and no message within it: MQCBCT_EVENT_CALL with
  MQRC_NO_MSG_AVAILABLE (2033), as ibmmq's async_consume example expects; without
  MQGMO_WAIT (or with MQWI_UNLIMITED) the consumer simply waits for messages;
- the queue GET(DISABLED): MQCBCT_EVENT_CALL, MQCC_FAILED, MQRC_GET_INHIBITED (2016),
  State MQCS_SUSPENDED_TEMPORARY; when gets are allowed again MQRC_GET_ENABLED (2494,
  https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q044990_.html, MQCC_WARNING) and
  delivery resumes. The event handler is not told ("not called for conditions that are
  specific to a single message consumer, for example MQRC_GET_INHIBITED");
- the queue deleted (2052), quiescing with MQGMO_FAIL_IF_QUIESCING /
  MQCBDO_FAIL_IF_QUIESCING (2161), or any other failure of the consumer's get:
  MQCBCT_EVENT_CALL with that reason, State MQCS_SUSPENDED_USER_ACTION, and the
  consumer is not driven again until it is registered again (no retry loop).

Connection-wide conditions go to the event handler (MQCBCT_EVENT_CALL): the queue
manager quiescing (MQRC_Q_MGR_QUIESCING, once), ending (MQRC_Q_MGR_STOPPING) or the
connection broken (MQRC_CONNECTION_BROKEN); the last two also stop the connection, the
consumers' STOP calls carrying the reason. They are seen while the connection is
started (the consumer thread watches the run state); a stopped connection has no thread.

A callback that raises: MQ has no exceptions; the C equivalent is a callback that "does
not end normally", for which MQ calls the event handler. Here the exception is logged
with its traceback (logger mqk.pymqi.async), counted in `callback_failures`, the event
handler (if any, and not the one that raised) is called with MQRC_UNEXPECTED_ERROR
(2195), and delivery goes on: the exception never reaches the application's threads.
"""

from __future__ import annotations

import collections
import copy
import logging
import threading
from typing import Any

from adapter.core import cmqc as C
from adapter.core.asyncrules import Control
from adapter.core.errors import MQMIError
from adapter.core.qmgrrules import RunState
from adapter.pymqi.structs import GMO, MD
from adapter.pymqi.structs_ext import CBC
from adapter.shim.connection import BACKEND_ERRORS

log = logging.getLogger("mqk.pymqi.async")

SLICE_MS = 100
"""The longest one get of the consumer thread waits: MQOP_STOP / SUSPEND latency."""

callback_failures: collections.Counter[str] = collections.Counter()
"""Callbacks that raised, by the function's qualified name."""

BROWSING = C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT | C.MQGMO_BROWSE_MSG_UNDER_CURSOR
# Reasons that end the connection's delivery (the event handler is told, all stop).
_CONNECTION_ENDED = (C.MQRC_CONNECTION_BROKEN, C.MQRC_Q_MGR_STOPPING, C.MQRC_HCONN_ERROR)


class Registration:
    """One MQCB registration: a message consumer (queue set) or the event handler."""

    def __init__(self, queue: Any, cbd: Any, md: Any, gmo: Any, kind: int) -> None:
        self.queue = queue
        self.kind = kind
        self.function = cbd.CallbackFunction
        self.area = cbd.CallbackArea
        self.options = cbd.Options
        self.max_length = None if cbd.MaxMsgLength == C.MQCBD_FULL_MSG_LENGTH else cbd.MaxMsgLength
        self.md = copy.copy(md) if md is not None else None
        self.gmo = copy.copy(gmo) if gmo is not None else None
        self.suspended = False  # MQOP_SUSPEND
        self.state = C.MQCS_NONE  # MQCS_SUSPENDED_TEMPORARY / _USER_ACTION: the system's
        self.started = False  # its START call made (a STOP call is owed)
        self.rest = False  # skip one pass (a 2080 message stays at the front)
        self.waited_from: float | None = None  # clock time its current wait began

    @property
    def hobj(self) -> int:
        if self.kind == C.MQCBT_EVENT_HANDLER:
            return C.MQHO_NONE
        handle = getattr(self.queue, "_handle", None)
        return handle.hobj if handle is not None else C.MQHO_NONE

    @property
    def deliverable(self) -> bool:
        return not self.suspended and self.state != C.MQCS_SUSPENDED_USER_ACTION


class Delivery:
    """The delivery loop and the calls back, over AsyncConsume's state (consumers,
    handler, state, the condition, the stop and suspend requests)."""

    qmgr: Any
    guard: Any
    consumers: dict[int, Registration]
    handler: Registration | None
    state: Control
    mode: Control
    connection_area: Any
    fail_if_quiescing: bool
    _cond: threading.Condition
    _loop_ident: int | None
    _stop_reason: int | None
    _suspend_asked: bool
    _local: threading.local
    _stopped_starting: bool
    _pending: list[tuple[Registration, int, int, int]]
    _quiesce_told: bool
    _started_ok: threading.Event

    # -- delivery ----------------------------------------------------------------------
    def _any_active(self) -> bool:
        return any(reg.deliverable for reg in self.consumers.values())

    def _loop(self, wait_mode: bool) -> int | None:
        """Deliver until stopped; in wait mode the reason START_WAIT returns (None: OK)."""
        self._stopped_starting = False
        self._start_calls()
        if self._stop_reason is not None:  # a consumer stopped it in its START call
            self._stopped_starting = True
            self._finish_stop(self._stop_reason)
            self._started_ok.set()
            return C.MQRC_CONNECTION_STOPPED
        self._started_ok.set()
        while True:
            with self._cond:
                if self._stop_reason is not None:
                    break
                if self._suspend_asked:
                    self._suspend_asked = False
                    self.state = Control.SUSPENDED
                    self.guard.consumer = None
                    self._cond.notify_all()
                    if wait_mode:
                        self._loop_ident = None
                        return C.MQRC_CONNECTION_SUSPENDED
                    while self.state is Control.SUSPENDED and self._stop_reason is None:
                        self._cond.wait()
                    if self._stop_reason is not None:
                        self.guard.consumer = self._loop_ident
                        break
            ended = self._watch_run_state()
            if ended is not None:
                self._stop_reason = ended
                break
            if wait_mode and not self._any_active():
                self._stop_reason = C.MQRC_NO_CALLBACKS_ACTIVE
                break
            self._start_calls()
            if not self._pass():
                with self._cond:  # nothing to wait in a get for: wait here, woken by MQCTL
                    if self._stop_reason is None and not self._suspend_asked:
                        self._cond.wait(SLICE_MS / 1000)
        reason = self._stop_reason
        self._finish_stop(reason if reason != C.MQRC_NO_CALLBACKS_ACTIVE else C.MQRC_NONE)
        if wait_mode and reason not in (None, C.MQRC_NONE):
            return reason
        return None

    def _finish_stop(self, reason: int | None) -> None:
        """The STOP calls (with the reason), then the connection is stopped."""
        for reg in list(self.consumers.values()):
            if reg.started:
                reg.started = False
                if reg.options & C.MQCBDO_STOP_CALL:
                    self._call(reg, C.MQCBCT_STOP_CALL, reason or C.MQRC_NONE)
        with self._cond:
            self.state = self.mode = Control.STOPPED
            self.guard.consumer = None
            self._loop_ident = None
            self._suspend_asked = False
            self._cond.notify_all()

    def _start_calls(self) -> None:
        for reg in list(self.consumers.values()):
            if not reg.started and reg.deliverable and self._stop_reason is None:
                reg.started = True
                if reg.options & C.MQCBDO_START_CALL:
                    self._call(reg, C.MQCBCT_START_CALL, C.MQRC_NONE)

    def _watch_run_state(self) -> int | None:
        """Tell the event handler of a quiescing or ending queue manager or a broken
        connection; the reason to stop delivery with, if any."""
        conn = self.qmgr._conn
        if conn is None:
            return C.MQRC_HCONN_ERROR
        try:
            state = conn.run.current()
        except BACKEND_ERRORS:
            state = None
            reason = C.MQRC_CONNECTION_BROKEN
        else:
            reason = {
                RunState.QUIESCING: C.MQRC_Q_MGR_QUIESCING,
                RunState.ENDING_IMMEDIATELY: C.MQRC_Q_MGR_STOPPING,
            }.get(state)
        if reason is None:
            self._quiesce_told = False
            return None
        if reason == C.MQRC_Q_MGR_QUIESCING:
            if not self._quiesce_told:
                self._quiesce_told = True
                self._event(C.MQRC_Q_MGR_QUIESCING)
                for reg in list(self.consumers.values()):
                    if reg.options & C.MQCBDO_FAIL_IF_QUIESCING and reg.deliverable:
                        reg.state = C.MQCS_SUSPENDED_USER_ACTION
                        self._call(reg, C.MQCBCT_EVENT_CALL, reason, C.MQCC_FAILED)
            return reason if self.fail_if_quiescing else None
        self._event(reason)
        return reason

    def _event(self, reason: int) -> None:
        handler = self.handler
        if handler is not None and not handler.suspended:
            self._call(handler, C.MQCBCT_EVENT_CALL, reason, C.MQCC_FAILED)

    def _pass(self) -> bool:
        """One get per deliverable consumer; whether any of them waited in its get."""
        regs = [r for r in self.consumers.values() if r.deliverable]
        if not regs:
            return False
        wait_ms = max(10, SLICE_MS // len(regs))
        waited = False
        for reg in regs:
            if self._stop_reason is not None or self._suspend_asked:
                return True
            if self.consumers.get(id(reg.queue)) is not reg or not reg.deliverable:
                continue
            if reg.rest:
                reg.rest = False
                continue
            waited = self._serve(reg, wait_ms) or waited
        return waited

    def _serve(self, reg: Registration, wait_ms: int) -> bool:
        """One get for `reg` and the call it leads to; whether the get waited."""
        md, gmo = copy.copy(reg.md), copy.copy(reg.gmo)
        app_wait = reg.gmo.Options & C.MQGMO_WAIT and reg.gmo.WaitInterval != C.MQWI_UNLIMITED
        clock = reg.queue._handle.svc.clock
        if reg.waited_from is None:
            reg.waited_from = clock.monotonic()
        if app_wait:
            left = reg.gmo.WaitInterval - (clock.monotonic() - reg.waited_from) * 1000
            wait_ms = max(0, min(wait_ms, int(left)))
        gmo.Options |= C.MQGMO_WAIT
        gmo.WaitInterval = wait_ms
        browsing = bool(reg.gmo.Options & BROWSING)
        try:
            data = reg.queue.get(reg.max_length, md, gmo)
        except MQMIError as err:
            told = self._failed_get(reg, err, md, gmo, browsing, app_wait, clock)
            return told and (wait_ms > 0 or err.reason != C.MQRC_NO_MSG_AVAILABLE)
        self._enabled_again(reg)
        reg.waited_from = None
        removed = C.MQCBCT_MSG_NOT_REMOVED if browsing else C.MQCBCT_MSG_REMOVED
        self._call(reg, removed, C.MQRC_NONE, C.MQCC_OK, md, gmo, data, len(data))
        return True

    def _failed_get(self, reg, err: MQMIError, md, gmo, browsing, app_wait, clock) -> bool:
        reason = err.reason
        if reason == C.MQRC_NO_MSG_AVAILABLE:
            self._enabled_again(reg)
            if app_wait and (clock.monotonic() - reg.waited_from) * 1000 >= reg.gmo.WaitInterval:
                reg.waited_from = None
                self._call(reg, C.MQCBCT_EVENT_CALL, reason, C.MQCC_FAILED)
            return True
        if reason == C.MQRC_GET_INHIBITED:
            if reg.state != C.MQCS_SUSPENDED_TEMPORARY:
                reg.state = C.MQCS_SUSPENDED_TEMPORARY
                self._call(reg, C.MQCBCT_EVENT_CALL, reason, C.MQCC_FAILED)
            return False
        if reason in _CONNECTION_ENDED:
            self._event(reason)
            self._stop_reason = reason
            return True
        message = getattr(err, "message", None)
        result = getattr(err, "result", None)
        if err.comp == C.MQCC_WARNING and (message is not None or result is not None):
            self._enabled_again(reg)
            reg.waited_from = None
            if result is not None:  # 2080: the message stays on the queue
                reg.rest = True
                data, length = result.data, result.original_length
                kind = C.MQCBCT_MSG_NOT_REMOVED
            else:
                data = message
                length = getattr(err, "original_length", None) or len(message)
                kind = C.MQCBCT_MSG_NOT_REMOVED if browsing else C.MQCBCT_MSG_REMOVED
            self._call(reg, kind, reason, C.MQCC_WARNING, md, gmo, data, length)
            return True
        # The queue deleted, quiescing for a FAIL_IF_QUIESCING get, or a get that cannot
        # succeed: the consumer is told and left alone until registered again.
        reg.state = C.MQCS_SUSPENDED_USER_ACTION
        self._call(reg, C.MQCBCT_EVENT_CALL, reason, err.comp or C.MQCC_FAILED)
        return False

    def _enabled_again(self, reg: Registration) -> None:
        if reg.state == C.MQCS_SUSPENDED_TEMPORARY:
            reg.state = C.MQCS_NONE
            self._call(reg, C.MQCBCT_EVENT_CALL, C.MQRC_GET_ENABLED, C.MQCC_WARNING)

    # -- calling back ------------------------------------------------------------------
    def _depth(self) -> int:
        return getattr(self._local, "depth", 0)

    def _control_call(self, reg: Registration, call_type: int, reason: int, hobj: int) -> None:
        """A REGISTER / STOP / DEREGISTER call: at once, or when the callback running on
        this thread returns ("If any of these operations is performed within the
        callback function itself, the call is invoked once the callback returns")."""
        if self._depth() and threading.get_ident() == self._loop_ident:
            self._pending.append((reg, call_type, reason, hobj))
        else:
            self._call(reg, call_type, reason, hobj=hobj)

    def _call(
        self,
        reg: Registration,
        call_type: int,
        reason: int,
        comp: int = C.MQCC_OK,
        md: Any = None,
        gmo: Any = None,
        msg: bytes | None = None,
        length: int = 0,
        hobj: int | None = None,
    ) -> None:
        cbc = CBC(
            CallType=call_type,
            Hobj=reg.hobj if hobj is None else hobj,
            CompCode=comp,
            Reason=reason,
            State=C.MQCS_SUSPENDED if reg.suspended else reg.state,
            DataLength=length,
            BufferLength=len(msg) if msg is not None else 0,
        )
        cbc.CallbackArea = reg.area
        cbc.CallbackFunction = reg.function
        cbc.ConnectionArea = self.connection_area
        depth = self._depth()
        self._local.depth = depth + 1
        try:
            reg.function(
                queue_manager=self.qmgr,
                queue=reg.queue,
                md=md if md is not None else MD(),
                gmo=gmo if gmo is not None else GMO(),
                msg=msg,
                cbc=cbc,
            )
        except Exception as exc:  # noqa: BLE001 - the application's bug: logged, told
            name = getattr(reg.function, "__qualname__", repr(reg.function))
            callback_failures[name] += 1
            log.error("callback %s raised: delivery goes on", name, exc_info=exc)
            if reg is not self.handler:
                self._event(C.MQRC_UNEXPECTED_ERROR)
        finally:
            self._local.depth = depth
        if not depth:
            while self._pending:
                pending, self._pending = self._pending, []
                for args in pending:
                    self._call(args[0], args[1], args[2], hobj=args[3])
