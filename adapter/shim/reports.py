"""Report messages the queue manager generates (COA, COD, expiration, exception), and
where they go: the original's ReplyToQ at ReplyToQMgr, else the dead-letter queue.

The report's MQMD and data follow the rules core (adapter/core/reports.py); this module
routes it and returns records, so the caller decides how they travel: COA and COD of a
syncpoint put or get go into that unit of work (backed out with it), the others are
sent at once outside any unit of work, and the Spark job places expiration reports in
the transaction of its micro-batch (exactly once).

A report is "treated in the same way as ordinary messages; if the report message
cannot be delivered to its destination queue (usually the queue specified by the
ReplyToQ field ...), the report message is placed on the dead-letter queue"
("DeadLetterQName (MQCHAR48)", https://www.ibm.com/docs/SSFKSJ_9.3.0/refdev/q102290_.html),
with the put's reason in the MQDLH: MQRC_UNKNOWN_OBJECT_NAME (missing), MQRC_Q_FULL,
MQRC_PUT_INHIBITED, MQRC_MSG_TOO_BIG_FOR_Q, and MQRC_UNKNOWN_REMOTE_Q_MGR for a
ReplyToQMgr that is not this queue manager (there are no channels here, so no route to
another one). A report whose Report field carries MQRO_DISCARD_MSG (passed on by
MQRO_PASS_DISCARD_AND_EXPIRY) is discarded instead ("Report (MQLONG)", q097680_).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from adapter.core import cmqc as C
from adapter.core import expiry as exp
from adapter.core import reports as rules
from adapter.core.reports import Kind
from adapter.shim.clock import Clock
from adapter.shim.deadletter import DeadLetterQueue, Delivery

log = logging.getLogger("mqk.shim.reports")

__all__ = ["Delivery", "Kind", "Reports"]


class Reports:
    """Builds a connection's report messages and routes them (or dead-letters them)."""

    def __init__(
        self,
        qmgr: str,
        dead_letters: DeadLetterQueue,
        new_msg_id: Callable[[], bytes],
        clock: Clock,
    ) -> None:
        self.qmgr = qmgr
        self.dead_letters = dead_letters
        self._new_msg_id = new_msg_id
        self._clock = clock

    def report(
        self, original: dict[str, Any], kind: Kind, *, feedback: int | None = None
    ) -> Delivery | None:
        """The `kind` report on `original` (an envelope), routed; None when it asked
        for none, or when it could go nowhere (logged and counted)."""
        report = original["Report"]
        if not rules.wants(report, kind):
            return None
        reply_q = (original.get("ReplyToQ") or "").strip()
        if not reply_q:
            return None  # MQPUT refuses a report request without a ReplyToQ (2027)
        now = self._clock.now_ms()
        expiry_left = C.MQEI_UNLIMITED
        if report & C.MQRO_PASS_DISCARD_AND_EXPIRY and kind is not Kind.EXPIRATION:
            expiry_left = exp.remaining_tenths(original["PutTimestamp"], original["Expiry"], now)
            if expiry_left == 0:
                expiry_left = 1  # the shortest lifetime an MQMD can carry
        env = rules.report_envelope(
            original,
            kind,
            self.qmgr,
            self._new_msg_id(),
            now,
            feedback=feedback,
            expiry_left=expiry_left,
        )
        return self.deliver(env, reply_q, (original.get("ReplyToQMgr") or "").strip())

    def deliver(self, env: dict[str, Any], queue: str, qmgr: str = "") -> Delivery | None:
        """A message the queue manager generated, to `queue` at `qmgr`, or to the
        dead-letter queue with the reason it could not go there; MQRO_DISCARD_MSG in its
        Report field discards it instead."""
        if qmgr and qmgr != self.qmgr:
            reason: int | None = C.MQRC_UNKNOWN_REMOTE_Q_MGR
        else:
            reason = self.dead_letters.refusal(queue, env)
        if reason is None:
            return self.dead_letters.to_queue(queue, env)
        if env["Report"] & C.MQRO_DISCARD_MSG:
            self.dead_letters.counts.discarded += 1
            log.info("a report for %s was discarded (reason %d, MQRO_DISCARD_MSG)", queue, reason)
            return None
        return self.dead_letters.put(env, reason, queue, qmgr)
