"""Asynchronous consume: MQCB (register a message consumer on a queue handle, or the
connection's event handler) and MQCTL (start, stop, suspend, resume delivery), with the
callback called as ibmmq 2.x calls it: `function(queue_manager=, queue=, md=, gmo=,
msg=, cbc=)` (ibm-messaging/mq-mqi-python, code/ibmmq/mqcallback.py).

IBM: "MQCB - Manage callback" (https://www.ibm.com/docs/SSFKSJ_9.4.0/refdev/q101720_.html),
"MQCTL - Control callbacks"
(https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q101790_.html),
MQCBC CallType (https://www.ibm.com/docs/zh/SSFKSJ_9.0.0/com.ibm.mq.ref.dev.doc/q094380_.html),
MQCBD CallbackType (https://ibm.com/docs/SSFKSJ_9.2.0/com.ibm.mq.ref.dev.doc/q094600_.html).
The parameter checks and MQCTL's states are adapter/core/asyncrules.py's.

Threads: MQOP_START runs delivery on one daemon thread per connection, which exits on
MQOP_STOP, MQDISC or a broken connection (MQDISC stops it first, so none outlives its
connection); MQOP_START_WAIT runs it on the caller's thread.
"""

from __future__ import annotations

import threading
from typing import Any

from adapter.core import asyncrules as rules
from adapter.core import cmqc as C
from adapter.core.asyncrules import Control
from adapter.core.errors import MQMIError
from adapter.pymqi.asyncdelivery import (
    BROWSING,
    SLICE_MS,
    Delivery,
    Registration,
    callback_failures,
    log,
)

__all__ = ["SLICE_MS", "AsyncConsume", "Registration", "callback_failures"]

_INPUT = C.MQOO_INPUT_AS_Q_DEF | C.MQOO_INPUT_SHARED | C.MQOO_INPUT_EXCLUSIVE


class AsyncConsume(Delivery):
    """One connection's callbacks and MQCTL state (QueueManager._async)."""

    def __init__(self, qmgr: Any) -> None:
        self.qmgr = qmgr
        self.guard = qmgr._sharing
        self.consumers: dict[int, Registration] = {}  # by id() of the Queue object
        self.handler: Registration | None = None
        self.state = Control.STOPPED
        self.mode = Control.STOPPED  # STARTED or STARTED_WAIT while started / suspended
        self.connection_area: Any = None
        self.fail_if_quiescing = False
        self._cond = threading.Condition(threading.RLock())
        self._thread: threading.Thread | None = None
        self._loop_ident: int | None = None  # the thread running delivery
        self._stop_reason: int | None = None  # a stop asked for (MQRC_NONE: by MQCTL)
        self._suspend_asked = False
        self._local = threading.local()  # .depth: callbacks running on this thread
        self._stopped_starting = False  # stopped by a consumer's START call
        self._pending: list[tuple[Registration, int, int, int]] = []
        self._quiesce_told = False
        self._started_ok = threading.Event()

    # -- MQCB --------------------------------------------------------------------------
    def cb(self, obj: Any, queue: Any, operation: int, cbd: Any, md: Any, gmo: Any) -> None:
        """MQCB on a QueueManager (queue None) or a Queue (opened already)."""
        reason = rules.cb_operation_error(operation)
        if reason is not None:
            raise MQMIError(C.MQCC_FAILED, reason)
        if operation & C.MQOP_REGISTER:
            self._register(obj, queue, operation, cbd, md, gmo)
            return
        reg = self._registration(queue, cbd)
        if reg is None:
            raise MQMIError(C.MQCC_FAILED, C.MQRC_CALLBACK_NOT_REGISTERED)
        if operation == C.MQOP_DEREGISTER:
            self._deregister(reg, C.MQHO_NONE)
        else:
            with self._cond:
                reg.suspended = operation == C.MQOP_SUSPEND
                self._cond.notify_all()

    def _registration(self, queue: Any, cbd: Any) -> Registration | None:
        """The registration an MQCB DEREGISTER / SUSPEND / RESUME is about."""
        if queue is None:
            return self.handler
        handler = self.handler
        if cbd.CallbackType == C.MQCBT_EVENT_HANDLER and handler and handler.queue is queue:
            return handler
        return self.consumers.get(id(queue))

    def _register(self, obj, queue, operation: int, cbd, md, gmo) -> None:
        reason = rules.cbd_error(
            cbd._StrucId,
            cbd.Version,
            cbd.CallbackType,
            cbd.Options,
            cbd.MaxMsgLength,
            callable(cbd.CallbackFunction),
            bool(bytes(cbd.CallbackName).strip(b" \0")),
        )
        if reason is not None:
            raise MQMIError(C.MQCC_FAILED, reason)
        kind = cbd.CallbackType
        if kind == C.MQCBT_MESSAGE_CONSUMER:
            if queue is None:  # a consumer needs an object handle
                raise MQMIError(C.MQCC_FAILED, C.MQRC_HOBJ_ERROR)
            reason = rules.consumer_gmo_error(gmo.Options, gmo.WaitInterval)
            if reason is not None:
                raise MQMIError(C.MQCC_FAILED, reason)
            opened = queue._handle.options
            if gmo.Options & BROWSING and not opened & C.MQOO_BROWSE:
                raise MQMIError(C.MQCC_FAILED, C.MQRC_NOT_OPEN_FOR_BROWSE)
            if not gmo.Options & BROWSING and not opened & _INPUT:
                raise MQMIError(C.MQCC_FAILED, C.MQRC_NOT_OPEN_FOR_INPUT)
        reg = Registration(queue, cbd, md, gmo, kind)
        reg.suspended = bool(operation & C.MQOP_SUSPEND)
        with self._cond:
            old = self.handler if kind == C.MQCBT_EVENT_HANDLER else self.consumers.get(id(queue))
            if kind == C.MQCBT_EVENT_HANDLER:
                self.handler = reg
            else:
                self.consumers[id(queue)] = reg
            if old is not None:  # a replacement: no first call, the state carries over
                reg.started = old.started
                self._cond.notify_all()
                return
            self._cond.notify_all()
        if reg.options & C.MQCBDO_REGISTER_CALL:
            self._control_call(reg, C.MQCBCT_REGISTER_CALL, C.MQRC_NONE, reg.hobj)

    def _deregister(self, reg: Registration, hobj: int) -> None:
        with self._cond:
            if reg is self.handler:
                self.handler = None
            else:
                self.consumers.pop(id(reg.queue), None)
            self._cond.notify_all()
        if reg.started and reg.options & C.MQCBDO_STOP_CALL:
            self._control_call(reg, C.MQCBCT_STOP_CALL, C.MQRC_NONE, hobj or reg.hobj)
        reg.started = False
        if reg.options & C.MQCBDO_DEREGISTER_CALL:
            self._control_call(reg, C.MQCBCT_DEREGISTER_CALL, C.MQRC_NONE, hobj or reg.hobj)

    def closed(self, queue: Any) -> None:
        """MQCLOSE: the queue's consumer is deregistered (its handle is unusable now)."""
        reg = self.consumers.get(id(queue))
        if reg is not None:
            self._deregister(reg, C.MQHO_UNUSABLE_HOBJ)
        if self.handler is not None and self.handler.queue is queue:
            self._deregister(self.handler, C.MQHO_UNUSABLE_HOBJ)

    # -- MQCTL -------------------------------------------------------------------------
    def ctl(self, operation: int, ctlo: Any) -> None:
        reason = rules.ctlo_error(ctlo._StrucId, ctlo.Version, ctlo.Options)
        if reason is not None:
            raise MQMIError(C.MQCC_FAILED, reason)
        me = threading.get_ident()
        in_callback = me == self._loop_ident or self._depth() > 0
        started = self.state is not Control.STOPPED and self.guard.consumer is not None
        if started and not in_callback and operation not in (C.MQOP_STOP, C.MQOP_SUSPEND):
            raise MQMIError(C.MQCC_FAILED, C.MQRC_HCONN_ASYNC_ACTIVE)
        state = self.state if self.state is Control.SUSPENDED else self.mode
        conn = self.qmgr._conn
        uow_open = conn is not None and conn.txn.current is not None
        reason = rules.ctl_error(operation, state, in_callback=in_callback, uow_open=uow_open)
        if reason is not None:
            raise MQMIError(C.MQCC_FAILED, reason)
        self.connection_area = ctlo.ConnectionArea
        if operation == C.MQOP_START:
            self._start(in_callback, ctlo.Options)
        elif operation == C.MQOP_START_WAIT:
            self._start_wait(ctlo.Options)
        elif operation == C.MQOP_STOP:
            self.stop(C.MQRC_NONE)
        elif operation == C.MQOP_SUSPEND:
            self._suspend(in_callback)
        else:
            self._resume()

    def _start(self, in_callback: bool, options: int) -> None:
        with self._cond:
            if in_callback or self.state is Control.STARTED:
                self._stop_reason = None  # START from a callback cancels a STOP asked
                return
            self.fail_if_quiescing = bool(options & C.MQCTLO_FAIL_IF_QUIESCING)
            self.state = self.mode = Control.STARTED
            self._stop_reason = None
            self._started_ok.clear()
            thread = threading.Thread(
                target=self._thread_main, name=f"mqk-async-{self.qmgr._conn.qmgr}", daemon=True
            )
            self._thread = thread
            thread.start()
            self._loop_ident = self.guard.consumer = thread.ident
            self._cond.notify_all()
        # The consumers' START calls run on that thread before MQCTL returns: a consumer
        # that stops the connection in its START call makes MQCTL fail with 2528.
        self._started_ok.wait()
        if self._stopped_starting:
            raise MQMIError(C.MQCC_FAILED, C.MQRC_CONNECTION_STOPPED)

    def _thread_main(self) -> None:
        with self._cond:
            while self.guard.consumer != threading.get_ident():  # START publishes it
                self._cond.wait(0.01)
        try:
            self._loop(wait_mode=False)
        except BaseException:  # noqa: BLE001 - never let the thread die with a traceback
            log.exception("asynchronous consume ended unexpectedly")
            self._finish_stop(C.MQRC_UNEXPECTED_ERROR)
        finally:
            self._started_ok.set()

    def _start_wait(self, options: int) -> None:
        if not self._any_active():
            raise MQMIError(C.MQCC_FAILED, C.MQRC_NO_CALLBACKS_ACTIVE)
        with self._cond:
            self.fail_if_quiescing = bool(options & C.MQCTLO_FAIL_IF_QUIESCING)
            self.state = self.mode = Control.STARTED_WAIT
            self._stop_reason = None
        self._run_waiting()

    def _run_waiting(self) -> None:
        """MQOP_START_WAIT (or RESUME of it): delivery on this thread, until stopped."""
        me = threading.get_ident()
        with self._cond:
            self._loop_ident = self.guard.consumer = me
        outcome = self._loop(wait_mode=True)
        if outcome is not None:
            comp = C.MQCC_WARNING if outcome == C.MQRC_CONNECTION_SUSPENDED else C.MQCC_FAILED
            raise MQMIError(comp, outcome)

    def stop(self, reason: int) -> None:
        """MQCTL STOP (reason MQRC_NONE) or the connection ending: from a callback it
        takes effect when the callback returns; from another thread it returns once the
        callback in progress and the STOP calls are done."""
        with self._cond:
            if self.state is Control.STOPPED:
                return
            if self._stop_reason is None or self._stop_reason == C.MQRC_NONE:
                self._stop_reason = reason
            self._cond.notify_all()
            me = threading.get_ident()
            if me == self._loop_ident:
                return
            running = self._loop_ident is not None
            if not running:  # suspended START_WAIT: nobody delivers, stop here
                pass
            else:
                while self.state is not Control.STOPPED:
                    self._cond.wait(0.5)
        if not running:
            self._finish_stop(reason)
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    def _suspend(self, in_callback: bool) -> None:
        with self._cond:
            if self.state is Control.SUSPENDED:
                return
            self._suspend_asked = True
            self._cond.notify_all()
            if in_callback:
                return
            while self.state is not Control.SUSPENDED and self.state is not Control.STOPPED:
                self._cond.wait(0.5)

    def _resume(self) -> None:
        with self._cond:
            if self.state is not Control.SUSPENDED:
                return
            self.state = self.mode
            if self.mode is Control.STARTED:
                self.guard.consumer = self._loop_ident
                self._cond.notify_all()
                return
        self._run_waiting()  # RESUME of a START_WAIT blocks, as START_WAIT does

    def shutdown(self) -> None:
        """MQDISC: stop, then every callback deregistered (DEREGISTER calls with
        MQHO_UNUSABLE_HOBJ for consumers: their handles close with the connection)."""
        self.stop(C.MQRC_NONE)
        for reg in list(self.consumers.values()):
            self._deregister(reg, C.MQHO_UNUSABLE_HOBJ)
        if self.handler is not None:
            self._deregister(self.handler, C.MQHO_NONE)
