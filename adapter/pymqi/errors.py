"""pymqi-compatible exceptions: Error, MQMIError (from the core) and PYIFError.

``str(PYIFError)`` starts ``'PYMQI Error: '`` as in pymqi, since applications and their
tests match on that string. Pure: no I/O.
"""

from __future__ import annotations

from typing import Any

from adapter.core.errors import REASON_NAMES, Error, MQMIError, reason_name

__all__ = ["Error", "MQMIError", "PYIFError", "reason_name", "REASON_NAMES"]


class PYIFError(Error):
    """An error detected by the Python interface itself (e.g. 'not open')."""

    def __init__(self, error: Any) -> None:
        super().__init__(error)
        self.error = error

    def __str__(self) -> str:
        return "PYMQI Error: " + str(self.error)
