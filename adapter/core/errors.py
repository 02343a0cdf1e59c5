"""MQI errors: MQMIError (a completion code and a reason code) and the reason names.

They live in the core because every layer raises them; the API faces re-export them
(pymqi adds its PYIFError beside them).

As pymqi v1 (``code/pymqi/__init__.py``), with ibmmq v2's additions ``error_as_string()``
and ``get()``. ``str(MQMIError)`` keeps pymqi v1's text
``'MQI Error. Comp: %d, Reason %d: %s'``, since applications and their tests match on it.

Pure: no I/O.
"""

from __future__ import annotations

from typing import Any

from adapter.core import cmqc as C  # noqa: N812

__all__ = ["Error", "MQMIError", "REASON_NAMES", "fail", "reason_name"]

# Where cmqc.h defines several names for one reason code, the one to report.
_PREFERRED = {2120: "MQRC_CONVERTED_MSG_TOO_BIG"}  # also MQRC_TRUNCATED


def _reason_names() -> dict[int, str]:
    names: dict[int, str] = {}
    for name, value in vars(C).items():
        if name.startswith("MQRC_") and isinstance(value, int) and not isinstance(value, bool):
            names.setdefault(value, name)  # first definition wins, as in cmqc.h order
    for value, name in _PREFERRED.items():
        if getattr(C, name, None) == value:
            names[value] = name
    return names


REASON_NAMES: dict[int, str] = _reason_names()
"""{reason code: MQRC_* name}, built from adapter.core.cmqc."""


def reason_name(reason: int) -> str | None:
    """The MQRC_* name of a reason code, or None if it is not defined."""
    return REASON_NAMES.get(reason)


class Error(Exception):
    """Base class of all exceptions raised by the pymqi-compatible API."""


class MQMIError(Error):
    """An MQI call ended with a non-zero completion code.

    ``MQMIError(comp, reason, **kw)``: ``.comp`` and ``.reason`` hold the codes and every
    keyword becomes an attribute (``get()`` uses ``message=`` and ``original_length=``
    for truncated messages).
    """

    comp: int = C.MQCC_OK
    reason: int = C.MQRC_NONE

    def __init__(self, comp: int, reason: int, **kw: Any) -> None:
        super().__init__(comp, reason)
        self.comp = comp
        self.reason = reason
        self._kw = dict(kw)
        for k, v in kw.items():
            setattr(self, k, v)

    def __str__(self) -> str:
        return f"MQI Error. Comp: {self.comp}, Reason {self.reason}: {self.errorAsString()}"

    def __repr__(self) -> str:
        extra = "".join(f", {k}={v!r}" for k, v in self._kw.items())
        return f"{type(self).__name__}({self.comp!r}, {self.reason!r}{extra})"

    def __reduce__(self) -> tuple[Any, ...]:
        # Keep keyword attributes through pickling (e.g. across processes).
        return (_rebuild_mqmierror, (type(self), self.comp, self.reason, self._kw))

    def errorAsString(self) -> str:
        """'OK', 'WARNING: MQRC_xxx', 'FAILED: MQRC_xxx' or 'FAILED: Error code N not defined'."""
        if self.comp == C.MQCC_OK:
            return "OK"
        prefix = "WARNING: " if self.comp == C.MQCC_WARNING else "FAILED: "
        name = REASON_NAMES.get(self.reason)
        if name is None:
            return f"{prefix}Error code {self.reason} not defined"
        return prefix + name

    error_as_string = errorAsString

    def get(self, k: str) -> Any:
        """An extra attribute given at construction (ibmmq v2)."""
        return getattr(self, k)


def _rebuild_mqmierror(cls: type[MQMIError], comp: int, reason: int, kw: dict) -> MQMIError:
    return cls(comp, reason, **kw)


def fail(reason: int) -> MQMIError:
    """An MQCC_FAILED error with `reason`."""
    return MQMIError(C.MQCC_FAILED, reason)


def warning(reason: int) -> MQMIError:
    """An MQCC_WARNING completion with `reason` (pymqi raises warnings too)."""
    return MQMIError(C.MQCC_WARNING, reason)
