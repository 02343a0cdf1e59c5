"""What a publication does when one subscription's queue cannot take its copy: the
queue is gone, PUT(DISABLED), full, its MAXMSGL too small, or its broker's disk nearly
full (2056, shim/diskguard.py) (MQPUT's own checks, as
shim/deadletter.py:DeadLetterQueue.refusal makes them, with the depth estimated as
Putter estimates it: no round trip per copy). A persistent publication still goes to a
managed non-durable subscription's temporary dynamic queue (as the first slice had it:
mqk's temporary queues hold persistent records like any other, and refusing them would
make persistent publications and managed non-durable subscriptions exclusive).

The topic's attributes decide (DEFINE TOPIC, USEDLQ / PMSGDLV / NPMSGDLV,
<https://www.ibm.com/docs/en/ibm-mq/9.4.x?topic=reference-define-topic-define-topic>):
with USEDLQ(YES) the copy goes to the queue manager's dead-letter queue with an MQDLH
naming the subscriber's queue and the reason; when it cannot (USEDLQ(NO), no DEADQ, or
the dead-letter queue refuses it too) the delivery failed, and PMSGDLV (persistent
publications) or NPMSGDLV (non-persistent ones) say whether that fails the publication:
ALL: any failure fails it; ALLDUR: a failure for a durable subscription fails it, one
for a non-durable subscription does not; ALLAVAIL: never. A failed publication is
MQRC_PUBLICATION_FAILURE (2502) and no subscriber gets it (nothing was sent: the copies
go in one transaction).
"""

from __future__ import annotations

import logging
from typing import Any

from adapter import config
from adapter.core import cmqc as C
from adapter.core.errors import fail
from adapter.shim.catalog import QueueDef
from adapter.shim.log import produce
from adapter.shim.pump import delivery_reason
from adapter.shim.records import Record
from adapter.shim.services import Services

log = logging.getLogger("mqk.shim.pubdelivery")

_DEPTH_FRESH_S = 0.1  # as Putter._depth_estimate
_DEPTH_STALE_MAX_S = 2.0  # a queue with room to spare: read again at least this often


def fails_publication(persistent: bool, durable: bool, delivery: int) -> bool:
    """Whether a failed delivery to one subscription fails the whole publication, by
    the topic's PMSGDLV / NPMSGDLV value `delivery` (resolved: never ASPARENT)."""
    if delivery == C.MQDLV_ALL:
        return True
    if delivery == C.MQDLV_ALL_DUR:
        return durable
    return False


class DeliveryCheck:
    """A connection's view of whether subscription queues can take copies."""

    def __init__(self, svc: Services) -> None:
        self.svc = svc
        self._depths: dict[str, tuple[int, float, int]] = {}  # value, when, depth_mark

    def _read(self, queue: str) -> tuple[int, int]:
        mark = self.svc.pump.depth_mark(queue)  # first: a flush after it counts twice
        value = self.svc.store.queue(queue).depth_with_uncommitted(self.svc.txn.owner)
        self._depths[queue] = (value, self.svc.clock.monotonic(), mark)
        return value, mark

    def _depth(self, queue: str, max_depth: int) -> int:
        """The queue's depth as last read, read again when older than its freshness:
        _DEPTH_FRESH_S (Putter's) near MAXDEPTH, longer the more room the queue has,
        up to _DEPTH_STALE_MAX_S, plus what this connection counted since (its own
        copies never hide) and its unit of work's puts less its gets (as Putter). A
        publication to N subscriptions paid up to N Redis round trips every 0.1 s;
        with room for R more messages, the read it skips could only hide an overshoot
        if other connections put more than about R / freshness (at least
        10 * DEPTH_MARGIN / _DEPTH_FRESH_S, 25,600) messages a second on that one
        queue, and the check near the limit counts exactly."""
        value, at, mark = self._depths.get(queue, (0, -1e9, 0))
        room = max_depth - value
        fresh = _DEPTH_FRESH_S * max(1.0, room / (10 * config.DEPTH_MARGIN))
        if self.svc.clock.monotonic() - at > min(fresh, _DEPTH_STALE_MAX_S):
            value, mark = self._read(queue)
        return value + self.svc.pump.counted_since(queue, mark) + self.svc.txn.depth_change(queue)

    def refusal(self, qdef: QueueDef | None, copies: list[dict[str, Any]]) -> int | None:
        """Why `qdef` cannot take the copies now (MQPUT's reason codes), or None."""
        if qdef is None or not qdef.has_storage:
            return C.MQRC_UNKNOWN_OBJECT_NAME
        if qdef.put_inhibited:
            return C.MQRC_PUT_INHIBITED
        if any(len(c["Payload"]) > qdef.max_msg_length for c in copies):
            return C.MQRC_MSG_TOO_BIG_FOR_Q
        depth = self._depth(qdef.name, qdef.max_depth)
        if depth + len(copies) > qdef.max_depth - config.DEPTH_MARGIN:
            # Near the limit: count exactly, this connection's own gets and puts
            # settled first (as Putter does: a message it just got makes room).
            self.svc.pump.barrier()
            value, mark = self._read(qdef.name)
            depth = value + self.svc.pump.counted_since(qdef.name, mark)
            depth += self.svc.txn.depth_change(qdef.name)  # as MQ counts a unit of work
        if depth + len(copies) > qdef.max_depth:
            return C.MQRC_Q_FULL
        if self.svc.disk.refuses(qdef.name, qdef.partitions, copies[0]["Priority"]):
            return C.MQRC_Q_SPACE_NOT_AVAILABLE  # its broker's disk is nearly full
        return None

    def dead_letter(
        self, copies: list[dict[str, Any]], reason: int, queue: str
    ) -> tuple[str, list[Record]] | None:
        """The copies on the dead-letter queue (its name and records), or None when it
        cannot take them."""
        out: list[Record] = []
        dlq = ""
        for copy in copies:
            moved = self.svc.dead_letters.put(copy, reason, queue)
            if moved is None:
                return None
            dlq = moved.queue
            out.extend(moved.records)
        return dlq, out


def direct(in_uow: bool, delivery: int, durable_copies: bool) -> bool:
    """Whether a publication outside syncpoint goes without a Kafka transaction of its
    own: the copies and the `_pub` record written one by one on the connection's
    idempotent producer (in order per subscription), which saves the transaction's
    round trips (begin, AddPartitionsToTxn, EndTxn) and the wait for its markers.

    `delivery` is the topic's PMSGDLV for a persistent publication, NPMSGDLV for a
    non-persistent one (resolved). All or nothing is owed only where a failed delivery
    fails the publication and keeps it from every subscriber: ALL, and ALLDUR when a
    durable subscription gets a copy. With ALLAVAIL, or ALLDUR and only non-durable
    subscriptions, "failure to deliver ... does not return an error to the MQPUT call"
    and the others still get it (DEFINE TOPIC, PMSGDLV / NPMSGDLV,
    <https://www.ibm.com/docs/en/ibm-mq/9.4.x?topic=reference-define-topic-define-topic>),
    so one by one is what MQ promises; acks=all makes each copy of a persistent
    publication as durable as a persistent MQPUT to a queue (shim/pump.py send_sync).
    Under syncpoint the caller's unit of work holds everything (visible at MQCMIT)."""
    if in_uow or delivery == C.MQDLV_ALL:
        return False
    return not (delivery == C.MQDLV_ALL_DUR and durable_copies)


def send_direct(
    svc: Services, by_queue: dict[str, list[Record]], own: list[Record], *, asynchronous: bool
) -> None:
    """The copies and the publication's own records on the connection's producer:
    `asynchronous` (MQPMO_ASYNC_RESPONSE or DEFPRESP(ASYNC)) counted as each copy is
    delivered, as an asynchronous MQPUT; otherwise one flush for all of them, as a
    synchronous MQPUT (MQRC_CONNECTION_BROKEN, or the delivery's reason, when the broker
    did not take them)."""
    pump = svc.pump
    if asynchronous:
        for queue, recs in by_queue.items():
            pump.send_async(queue, recs, status=False)
        pump.send_now(own)
        return
    results: list = []

    def settled(err: object, _msg: object) -> None:
        results.append(err)

    records = [r for recs in by_queue.values() for r in recs] + own
    for topic, key, value, headers in records:
        produce(pump.producer, topic, key, value, settled, headers)
    if not pump.wait_delivered(config.BROKEN_AFTER_S) or len(results) < len(records):
        raise fail(C.MQRC_CONNECTION_BROKEN)
    failed = next((err for err in results if err is not None), None)
    if failed is not None:
        raise fail(delivery_reason(failed))
    for queue, recs in by_queue.items():
        pump.count_put(queue, len(recs))
    pump.flush_depth()
