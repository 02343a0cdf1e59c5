"""Records on a queue's topics that cannot be delivered as messages, and their move to
the dead-letter queue.

A record shaped like an envelope that does not decode (truncated, an unknown schema
version: `records.unreadable`), or an envelope whose MQMD holds a value MQPUT refuses
(core/recordrules.py), never reaches an application: its reader keeps it aside
(`CorruptRecords`), out of the view, so browse never shows it and a get selects past
it; the first getter that opened the queue for input moves it to the queue manager's
dead-letter queue (`DeadLetterMover`) and carries on with the next message.

What goes to the dead-letter queue: an MQDLH whose Reason says why
(core/recordrules.py: 2364 MQRC_JMS_FORMAT_ERROR for a record that cannot be parsed,
MQPUT's code for an impossible MQMD value), DestQName the queue, then the record's
value, byte for byte, as MQFMT_NONE data (its MQMD is the one a Kafka producer's native
record gets, core/nativerecord.py: MsgId from topic, partition and offset). IBM MQ
classes for JMS treat a message they cannot parse the same way ("2364 (093C)
(RC2364): MQRC_JMS_FORMAT_ERROR",
https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q043930_.html).

Exactly once: the claim on the record (a lock in the state store) and the dead-letter
put are one unit of work, on a transactional producer of the connection's own
(``<transactional id>.dlq``, as publications outside syncpoint have ``.pub``), so the
move is the queue manager's, never part of the application's unit of work: committed,
the record is consumed and the copy is on the dead-letter queue; backed out (a lost
lock, a broker failure), neither, and the record is moved again later. Two getters
never both move it: the claim lets one in.

Without a dead-letter queue (DEADQ blank, or one that cannot take the message: missing,
put-inhibited, full, too long) the record stays on the queue, counted in its depth, and
getters go on past it; the failure is logged once per record and reader, counted in
`Counts.undeliverable`, and the move is tried again by later gets (a DEADQ defined
later takes it). This is what IBM MQ does with a message its queue manager cannot
dead-letter: it is not discarded ("DeadLetterQName (MQCHAR48)",
https://www.ibm.com/docs/SSFKSJ_9.3.0/refdev/q102290_.html, and shim/deadletter.py);
and as the message cannot be given to an application in any form, the getter does not
stop on it either.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from adapter import config
from adapter.core import cmqc as C
from adapter.core.errors import MQMIError
from adapter.core.model import Item
from adapter.shim.deadletter import dead_letter_envelope
from adapter.shim.store import NoEpochError, QueueState, lane
from adapter.shim.uow import UnitsOfWork

log = logging.getLogger("mqk.shim.corrupt")

Key = tuple[int, int, int]  # (priority, partition, offset)


@dataclass
class Corrupt:
    """One record that cannot be delivered: its place, its MQ view as a native record
    (the data: the value's bytes), why (an MQ reason code) and the details."""

    item: Item
    env: dict[str, Any]
    reason: int
    detail: str
    reported: bool = False  # that it cannot be moved was logged


class CorruptRecords:
    """A reader's undeliverable records, by key. It is also the `Returner` of their
    moves: a backed-out move puts the record back here, never into the view."""

    def __init__(self) -> None:
        self.waiting: dict[Key, Corrupt] = {}
        self._moving: dict[Key, Corrupt] = {}
        self.found = 0  # records this reader found undeliverable

    def __bool__(self) -> bool:
        return bool(self.waiting)

    def add(self, bad: Corrupt) -> None:
        self.found += 1
        self.waiting[bad.item.key] = bad

    def moving(self, key: Key) -> None:
        self._moving[key] = self.waiting.pop(key)

    def gone(self, key: Key) -> None:
        self.waiting.pop(key, None)
        self._moving.pop(key, None)

    def take_back(self, item: Item, env: dict[str, Any]) -> None:
        bad = self._moving.pop(item.key, None)
        if bad is not None:
            self.waiting[item.key] = bad

    def lows(self) -> dict[str, int]:
        """Per lane, the smallest offset still here: the low watermark stays below it."""
        lows: dict[str, int] = {}
        for prio, part, offset in (*self.waiting, *self._moving):
            ln = lane(prio, part)
            lows[ln] = min(lows.get(ln, offset), offset)
        return lows


class DeadLetterMover:
    """A connection's moves of undeliverable records to the dead-letter queue."""

    def __init__(self, svc: Any) -> None:
        # svc: the connection's shim.services.Services, which builds this mover (not
        # imported here: that module imports this one).
        self.svc = svc
        self._txn: UnitsOfWork | None = None
        self.moved = 0

    def _own_txn(self) -> UnitsOfWork:
        if self._txn is None:
            self._txn = self.svc.side_units_of_work("dlq")
        return self._txn

    def move(self, queue: str, state: QueueState, records: CorruptRecords) -> int:
        """Moves what the dead-letter queue can take now; returns how many went."""
        svc = self.svc
        dlq = svc.qmgr_def().dead_letter_q.strip()
        moved = 0
        for bad in list(records.waiting.values()):
            dead = dead_letter_envelope(
                bad.env, bad.reason, queue, svc.qmgr, svc.qmgr, svc.clock.now_ms()
            )
            refused = C.MQRC_UNKNOWN_OBJECT_NAME if not dlq or dlq == queue else None
            refused = refused or svc.dead_letters.refusal(dlq, dead)
            if refused is not None:
                if not bad.reported:
                    bad.reported = True
                    svc.dead_letters.counts.undeliverable += 1
                    log.warning(
                        "%s: an undeliverable record (%s, reason %d) stays on the queue: "
                        "the dead-letter queue %r cannot take it (reason %d)",
                        queue,
                        bad.detail,
                        bad.reason,
                        dlq,
                        refused,
                    )
                continue
            if self._move_one(queue, state, records, bad):
                moved += 1
        self.moved += moved
        return moved

    def _move_one(
        self, queue: str, state: QueueState, records: CorruptRecords, bad: Corrupt
    ) -> bool:
        txn = self._own_txn()
        key = bad.item.key
        try:
            uow = txn.begin()
            res = state.claim([key], uow.owner, consume=False, lease_ms=config.LEASE_MS)
            if res.index is None:
                if res.gone:  # another getter moved it
                    records.gone(key)
                txn.backout()
                return False
            records.moving(key)
            txn.hold(queue, bad.item, bad.env, records)
            delivery = self.svc.dead_letters.put(bad.env, bad.reason, queue)
            if delivery is None:  # refused since the check above: stays, tried again
                txn.backout()
                return False
            txn.put(delivery.queue, delivery.records, counted=False)
            txn.commit()
        except (MQMIError, NoEpochError) as exc:
            # Backed out: the record is back in `records` (take_back) and on the queue.
            txn.backout()
            log.warning("%s: moving an undeliverable record to the DLQ backed out: %r", queue, exc)
            return False
        records.gone(key)
        return True
