"""Shorthand for the shim's failures."""

from adapter.core import cmqc as C
from adapter.pymqi.errors import MQMIError


def fail(reason: int) -> MQMIError:
    return MQMIError(C.MQCC_FAILED, reason)
