"""The dead-letter queue: where the queue manager puts what it cannot deliver, with an
MQDLH in front of the data.

The queue manager's DEADQ (ALTER QMGR, shim/qmgrdef.py; blank: none) names it. A
message goes there when the queue manager itself must move it and its destination
cannot take it: a report whose ReplyToQ is missing, full, put-inhibited or on another
queue manager, or a message backed out BOTHRESH times that its BOQNAME cannot take.
An application's own MQPUT that fails is never dead-lettered: the application gets the
reason code ("DeadLetterQName (MQCHAR48)",
https://www.ibm.com/docs/SSFKSJ_9.3.0/refdev/q102290_.html: "Messages are not put on
the dead-letter queue when the application that issued the put request has been
notified synchronously of the problem").

The dead-lettered message keeps its MQMD (context, ids, Report, BackoutCount) except
Format (MQFMT_DEAD_LETTER_HEADER), Encoding and CodedCharSetId, which move into the
MQDLH with the reason and the original destination ("MQDLH - Dead letter header",
https://www.ibm.com/docs/en/SSFKSJ_latest/refdev/q096110_.html, "Putting messages on
the dead-letter queue"). When the dead-letter queue is missing, full or inhibited the
message is not lost: the caller keeps it where it was (a poison message stays on its
queue), or, for a report the queue manager generated, drops it -- logged and counted,
as MQ writes an error-log entry when it cannot put a report anywhere.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from adapter.core import cmqc as C
from adapter.core.dlh import DeadLetterHeader
from adapter.core.resolution import alias_base_error
from adapter.shim import naming, records
from adapter.shim.catalog import QueueDef, through_alias
from adapter.shim.clock import Clock
from adapter.shim.context import put_date_time
from adapter.shim.qmgrdef import QMgrDef

log = logging.getLogger("mqk.shim.deadletter")

_DEAD = C.MQFMT_DEAD_LETTER_HEADER.decode()


@dataclass(frozen=True)
class Delivery:
    """Records for one queue: a generated message, or one the queue manager moves."""

    queue: str
    records: list[records.Record]
    dead_lettered: bool = False


@dataclass
class Counts:
    """What this connection's queue manager work could not deliver (logged as well)."""

    dead_lettered: int = 0
    discarded: int = 0  # MQRO_DISCARD_MSG: dropped as the sender asked
    undeliverable: int = 0  # no dead-letter queue could take it
    by_reason: dict[int, int] = field(default_factory=dict)


def dead_letter_envelope(
    env: dict[str, Any], reason: int, dest_q: str, dest_qmgr: str, qmgr: str, now_ms: int
) -> dict[str, Any]:
    """`env` as it goes on the dead-letter queue: an MQDLH (Reason, the original
    destination, the original Format/Encoding/CCSID; put by the queue manager now) in
    front of the data, Format MQFMT_DEAD_LETTER_HEADER."""
    put_date, put_time = put_date_time(now_ms)
    header = DeadLetterHeader(
        reason=reason,
        dest_q_name=dest_q,
        dest_q_mgr_name=dest_qmgr,
        encoding=env["Encoding"],
        coded_char_set_id=env["CodedCharSetId"],
        format=(env["Format"] or "").encode(),
        put_appl_type=C.MQAT_QMGR,
        put_appl_name=qmgr,
        put_date=put_date,
        put_time=put_time,
    )
    return dict(
        env,
        Format=_DEAD,
        Encoding=C.MQENC_NATIVE,
        Payload=header.pack(C.MQENC_NATIVE) + bytes(env["Payload"]),
    )


class DeadLetterQueue:
    """Decides whether a queue can take a message the queue manager moves, and
    dead-letters what cannot go where it was meant to."""

    def __init__(
        self,
        qmgr: str,
        lookup: Callable[[str], QueueDef | None],
        qmgr_def: Callable[[], QMgrDef],
        depth: Callable[[str], int],
        clock: Clock,
        no_space: Callable[[str, int, int], bool] = lambda _q, _n, _p: False,
    ) -> None:
        """`no_space(queue, partitions, priority)`: the disk guard's answer for a queue
        (shim/diskguard.py DiskGuard.refuses)."""
        self.qmgr = qmgr
        self._no_space = no_space
        self._lookup = lookup
        self._qmgr_def = qmgr_def
        self._depth = depth
        self._clock = clock
        self.counts = Counts()

    def _resolve(self, queue: str) -> QueueDef | None:
        """The queue a message for `queue` lands on, as MQOPEN resolves it: a local queue
        itself, an alias its target with the alias's attributes (catalog.through_alias);
        None when nothing can take messages under that name."""
        qdef = self._lookup(queue)
        if qdef is not None and qdef.is_alias:
            target = self._lookup(qdef.target) if qdef.target else None
            # The rule MQOPEN applies (2082 / 2001): only a local queue takes them.
            if alias_base_error(None if target is None else target.queue_type) is not None:
                return None
            return through_alias(qdef, target)  # type: ignore[arg-type]  # checked above
        return qdef if qdef is not None and qdef.has_storage else None

    def refusal(self, queue: str, env: dict[str, Any]) -> int | None:
        """The reason `queue` cannot take `env` now (MQPUT's reason codes), or None."""
        qdef = self._resolve(queue)
        if qdef is None:
            return C.MQRC_UNKNOWN_OBJECT_NAME
        if qdef.put_inhibited:
            return C.MQRC_PUT_INHIBITED
        if env["Persistence"] == C.MQPER_PERSISTENT and qdef.is_temporary:
            return C.MQRC_PERSISTENT_NOT_ALLOWED
        if len(env["Payload"]) > qdef.max_msg_length:
            return C.MQRC_MSG_TOO_BIG_FOR_Q
        if self._depth(qdef.name) >= qdef.max_depth:
            return C.MQRC_Q_FULL
        if self._no_space(qdef.name, qdef.partitions, env["Priority"]):
            return C.MQRC_Q_SPACE_NOT_AVAILABLE  # its broker's disk is nearly full
        return None

    def to_queue(self, queue: str, env: dict[str, Any]) -> Delivery:
        """`env` written to `queue` (an alias: its target) as it is (one physical
        message), after `refusal` found nothing against it."""
        resolved = self._resolve(queue)
        queue = queue if resolved is None else resolved.name
        topic = naming.data_topic(self.qmgr, queue, min(max(env["Priority"], 0), 9))
        return Delivery(queue, [records.resend(topic, env)])

    def put(
        self, env: dict[str, Any], reason: int, dest_q: str, dest_qmgr: str = ""
    ) -> Delivery | None:
        """`env`, which could not go to `dest_q` for `reason`, on the dead-letter queue
        with an MQDLH; None (logged, counted) when there is none that can take it."""
        dlq = self._qmgr_def().dead_letter_q.strip()
        dead = dead_letter_envelope(
            env, reason, dest_q, dest_qmgr or self.qmgr, self.qmgr, self._clock.now_ms()
        )
        refused = C.MQRC_UNKNOWN_OBJECT_NAME if not dlq else self.refusal(dlq, dead)
        if refused is not None or dlq == dest_q:
            self.counts.undeliverable += 1
            log.warning(
                "a message for %s (reason %d) cannot go to the dead-letter queue %r (%s)",
                dest_q,
                reason,
                dlq,
                "none defined" if not dlq else f"reason {refused}",
            )
            return None
        self.counts.dead_lettered += 1
        self.counts.by_reason[reason] = self.counts.by_reason.get(reason, 0) + 1
        log.info(
            "a message for %s went to the dead-letter queue %s (reason %d)", dest_q, dlq, reason
        )
        out = self.to_queue(dlq, dead)
        return Delivery(out.queue, out.records, dead_lettered=True)
