"""MQINQ, MQSET and MQSTAT as pymqi and ibmmq 2.x spell them, in one place for both
faces: `inquire(selector)` returns the value, `inquire([selectors])` a dict keyed by
selector; `set(selector, value)` or `set({selector: value})`; `stat(type)` an STS.

The engine answers (adapter/shim/attributes.py, the pump's MQSTAT figures); this module
only shapes arguments and results, as ibmmq's `mqinq.common_inq` / `common_set` do:
character values come back as bytes at their MQ length (blank-padded), an MQCC_WARNING
(2068, a selector not for this queue type) is raised as MQMIError with the answered
values attached as `values` (ibmmq raises it without them).

MQSTAT: https://www.ibm.com/docs/SSFKSJ_9.4.0/refdev/q101920_.html. Only
MQSTAT_TYPE_ASYNC_ERROR has figures; the reconnection types are for reconnectable
client connections, which these are not: MQRC_ENVIRONMENT_ERROR, as the page says for
other connections. Any other type is MQRC_STAT_TYPE_ERROR (2430).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from adapter.core import attributes as rules
from adapter.core import cmqc as C
from adapter.core.errors import MQMIError
from adapter.pymqi.structs_ext import STS
from adapter.shim.attributes import Inquired

__all__ = ["answer", "selector_list", "set_values", "status"]


def selector_list(selectors: int | list[int]) -> tuple[list[int], bool]:
    """(the selectors, whether one was given alone) as ibmmq: a list means a dict back."""
    if isinstance(selectors, list | tuple):
        return [int(s) for s in selectors], False
    return [int(selectors)], True


def answer(inquired: Inquired, selectors: list[int], single: bool) -> Any:
    """The value (one selector) or the dict (a list) of an MQINQ; its warning raised."""
    if inquired.warning is not None:
        raise MQMIError(C.MQCC_WARNING, inquired.warning, values=dict(inquired.values))
    if single:
        return inquired.values[selectors[0]]
    return dict(inquired.values)


def set_values(args: tuple[Any, ...], encoding: str = "utf8") -> dict[int, int | bytes]:
    """MQSET's arguments, old style `(selector, value)` or new `({selector: value})`, as
    {selector: int or bytes}. Unknown selectors pass through: the engine says 2067."""
    if len(args) == 1 and isinstance(args[0], Mapping):
        pairs = dict(args[0])
    elif len(args) == 2:
        pairs = {args[0]: args[1]}
    else:
        raise TypeError("set() takes (selector, value) or ({selector: value, ...})")
    out: dict[int, int | bytes] = {}
    for selector, value in pairs.items():
        attr = rules.ATTRIBUTES.get(int(selector))
        # A selector this queue manager does not know is character by its range (MQCA_*
        # 2001-4000), so its value passes as MQ's would and the engine answers 2067.
        is_char = attr.is_char if attr is not None else C.MQCA_FIRST <= selector <= C.MQCA_LAST
        if is_char:
            if isinstance(value, str):
                value = value.encode(encoding)
            if not isinstance(value, bytes | bytearray):
                what = attr.name if attr is not None else f"selector {selector}"
                raise TypeError(f"{what} takes str or bytes, not {type(value).__name__}")
            out[int(selector)] = bytes(value)
        else:
            if not isinstance(value, int):
                raise TypeError(f"selector {selector} takes an int, not {type(value).__name__}")
            out[int(selector)] = int(value)
    return out


def status(conn, status_type: int) -> STS:
    """MQSTAT on connection `conn`: an STS (version 2) with its figures."""
    if status_type in (C.MQSTAT_TYPE_RECONNECTION, C.MQSTAT_TYPE_RECONNECTION_ERROR):
        raise MQMIError(C.MQCC_FAILED, C.MQRC_ENVIRONMENT_ERROR)
    if status_type != C.MQSTAT_TYPE_ASYNC_ERROR:
        raise MQMIError(C.MQCC_FAILED, C.MQRC_STAT_TYPE_ERROR)
    figures = conn.async_status()
    sts = STS(
        CompCode=figures.comp,
        Reason=figures.reason,
        PutSuccessCount=figures.put_success,
        PutWarningCount=figures.put_warning,
        PutFailureCount=figures.put_failure,
        ObjectType=figures.object_type or C.MQOT_Q,
    )
    if figures.object_name:
        name = figures.object_name.encode().ljust(C.MQ_Q_NAME_LENGTH)
        qmgr = conn.qmgr.encode().ljust(C.MQ_Q_MGR_NAME_LENGTH)
        sts.__dict__.update(
            ObjectName=name, ObjectQMgrName=qmgr, ResolvedObjectName=name, ResolvedQMgrName=qmgr
        )
    return sts
