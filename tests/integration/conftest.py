"""Helpers for MQI tests (the `qmgr` fixture comes from the mqk pytest plugin)."""

from __future__ import annotations

import adapter.pymqi as pymqi

C = pymqi.CMQC


def drain(queue: pymqi.Queue, wait_ms: int = 0, options: int = 0) -> list[tuple[bytes, pymqi.MD]]:
    """Destructive gets (with extra GMO `options`) until MQRC_NO_MSG_AVAILABLE; returns
    (data, md) pairs."""
    out = []
    while True:
        md, gmo = pymqi.MD(), pymqi.GMO(Options=options | (C.MQGMO_WAIT if wait_ms else 0))
        gmo.WaitInterval = wait_ms
        try:
            out.append((queue.get(None, md, gmo), md))
        except pymqi.MQMIError as err:
            if err.reason != C.MQRC_NO_MSG_AVAILABLE:
                raise
            return out


def mqerror(excinfo) -> tuple[int, int]:
    return excinfo.value.comp, excinfo.value.reason
