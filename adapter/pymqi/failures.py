"""What escapes an MQI call becomes MQ's answer, never a library traceback.

- `MQMIError` / `PYIFError`: as raised.
- A server whose security refuses the call (a Kafka ACL, a Redis ACL user's NOPERM,
  refused credentials: `shim/authority.py`): MQRC_NOT_AUTHORIZED (2035).
- A server that fails (redis, Kafka, a dropped connection): MQRC_CONNECTION_BROKEN
  (2009). A consuming claim is not retried blind: if its reply was lost, the message
  may have gone, which is MQ's own outcome for a broken connection outside syncpoint.
- The state store out of memory (Redis at `maxmemory`, which refuses every write and
  every script that writes, before it runs, so nothing is half done in it): 2102
  MQRC_RESOURCE_PROBLEM, "insufficient system resources to complete the call"
  (IBM's reason-code list, https://www.ibm.com/docs/SSFKSJ_9.2.0/com.ibm.mq.ref.dev.doc/q092490_.htm),
  not 2009: the connection is sound and the same call works once memory returns.
  Logged and counted (`resource_problems`); the open unit of work is doomed as for an
  unexpected failure (a Kafka record of the call may already be written).
- `TypeError` / `ValueError` raised by this face itself: the application passed an
  argument of the wrong kind, and pymqi raises these too; they go through unchanged.
  So does `ValueError` from an administration verb (DEFINE / ALTER refusing a value).
- `MemoryError` anywhere: MQRC_STORAGE_NOT_AVAILABLE (2071); any other exception from
  deeper down: MQRC_UNEXPECTED_ERROR (2195). Both are logged with their traceback and
  counted (`internal_failures`), and the connection's unit of work, if one is open, is
  doomed: whatever the failed call did to it is unknown, so MQCMIT backs it all out
  (MQRC_BACKED_OUT) rather than commit half a call. IBM: "2071 (0817) (RC2071):
  MQRC_STORAGE_NOT_AVAILABLE" (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041390_.html)
  and "2195 (0883) (RC2195): MQRC_UNEXPECTED_ERROR" in the same reason-code reference.
"""

from __future__ import annotations

import collections
import functools
import logging
import os
from collections.abc import Callable
from typing import Any

from adapter.core import cmqc as C
from adapter.core.errors import Error, MQMIError
from adapter.pymqi.sharing import sharing_of
from adapter.shim.authority import not_authorized
from adapter.shim.connection import BACKEND_ERRORS, RESOURCE_ERRORS

log = logging.getLogger("mqk.pymqi")

internal_failures: collections.Counter[int] = collections.Counter()
"""Calls answered MQRC_STORAGE_NOT_AVAILABLE / MQRC_UNEXPECTED_ERROR, by reason."""
resource_problems: collections.Counter[str] = collections.Counter()
"""Calls answered MQRC_RESOURCE_PROBLEM, by verb."""

_FACE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _raised_by_face(exc: BaseException) -> bool:
    """Whether the innermost frame of `exc` is this face's own code (its argument
    checks), not the engine's."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and tb.tb_frame.f_code.co_filename.startswith(_FACE_DIR)


def _connection_of(face: Any) -> Any:
    """The engine connection behind a QueueManager or Queue (None if not connected)."""
    conn = getattr(face, "_conn", None)
    if conn is None and hasattr(face, "_qmgr"):
        conn = getattr(face._qmgr, "_conn", None)
    return conn


def internal_failure(name: str, face: Any, exc: BaseException) -> MQMIError:
    """The MQMIError for an exception no layer expected (logged, counted, UOW doomed)."""
    reason = (
        C.MQRC_STORAGE_NOT_AVAILABLE if isinstance(exc, MemoryError) else C.MQRC_UNEXPECTED_ERROR
    )
    internal_failures[reason] += 1
    log.error("%s failed unexpectedly: answered reason %d", name, reason, exc_info=exc)
    conn = _connection_of(face)
    txn = getattr(conn, "txn", None)
    if txn is not None:
        try:
            txn.doom(f"{name} failed unexpectedly")
        except Exception:  # the answer is already decided: never mask it
            log.warning("could not mark the unit of work as failed", exc_info=True)
    return MQMIError(C.MQCC_FAILED, reason)


def resource_problem(name: str, face: Any, exc: BaseException) -> MQMIError:
    """MQRC_RESOURCE_PROBLEM for a call the state store refused for want of memory."""
    resource_problems[name] += 1
    log.warning("%s: the state store is out of memory (%s): answered reason 2102", name, exc)
    txn = getattr(_connection_of(face), "txn", None)
    if txn is not None and txn.current is not None:
        try:
            txn.doom(f"{name}: the state store is out of memory")
        except Exception:  # the answer is already decided: never mask it
            log.warning("could not mark the unit of work as failed", exc_info=True)
    return MQMIError(C.MQCC_FAILED, C.MQRC_RESOURCE_PROBLEM)


def mqi(
    method: Callable | None = None, *, admin: bool = False, async_control: bool = False
) -> Callable:
    """Decorate an MQI verb (or, with `admin=True`, an administration verb whose
    ValueError is its documented refusal) so that only MQ's answers escape. The call
    passes its connection's handle-sharing guard first (adapter/pymqi/sharing.py), except
    an `async_control` verb (MQCTL, MQDISC) while asynchronous consume is started by
    another thread: MQ lets those in, and the verb checks the caller itself."""

    def wrap(fn: Callable) -> Callable:
        passes: tuple[type[BaseException], ...] = (ValueError,) if admin else ()

        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any):
            guard = sharing_of(args[0]) if args else None
            try:
                if guard is None or (async_control and guard.consumer is not None):
                    return fn(*args, **kwargs)
                locked = guard.enter()
                try:
                    return fn(*args, **kwargs)
                finally:
                    guard.leave(locked)
            except Error:
                raise
            except RESOURCE_ERRORS as exc:
                raise resource_problem(fn.__qualname__, args[0] if args else None, exc) from exc
            except BACKEND_ERRORS as exc:
                if not_authorized(exc):  # a Kafka or Redis ACL refused it: MQ's 2035
                    log.warning("%s: refused by the servers' ACLs: answered reason 2035",
                                fn.__qualname__)  # fmt: skip
                    raise MQMIError(C.MQCC_FAILED, C.MQRC_NOT_AUTHORIZED) from exc
                raise MQMIError(C.MQCC_FAILED, C.MQRC_CONNECTION_BROKEN) from exc
            except Exception as exc:
                if isinstance(exc, passes) or (
                    isinstance(exc, TypeError | ValueError) and _raised_by_face(exc)
                ):
                    raise
                raise internal_failure(fn.__qualname__, args[0] if args else None, exc) from exc

        return call

    return wrap(method) if method is not None else wrap
