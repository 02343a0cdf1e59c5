"""Mirror of a queue's priority topics in a handle's memory, indexed by the rules core.

A Kafka consumer with manual assignment (no group: consumption is ours to track) reads
every lane from its low watermark with read_committed, so uncommitted and aborted
records never appear. Each record becomes a core `Item` in a `QueueView`; the decoded
envelope (MQMD fields + payload) is kept beside it until the item leaves the view.
"""

from __future__ import annotations

import heapq
import logging
from typing import Any

from confluent_kafka import TopicPartition

from adapter.core import cmqc as C
from adapter.core import recordrules
from adapter.core.model import Item
from adapter.core.view import QueueView
from adapter.shim import naming, records
from adapter.shim.catalog import QueueDef
from adapter.shim.clock import Clock
from adapter.shim.corrupt import Corrupt, CorruptRecords
from adapter.shim.log import Log
from adapter.shim.store import NoEpochError, QueueState, lane

log = logging.getLogger("mqk.shim.reader")

Key = tuple[int, int, int]  # (priority, partition, offset): also the store's Candidate


class QueueReader:
    def __init__(
        self, log_backend: Log, qmgr: str, qdef: QueueDef, state: QueueState, clock: Clock
    ) -> None:
        self.log = log_backend
        self.qmgr = qmgr
        self.clock = clock
        self.qdef = qdef
        self.closed = False
        self.view = QueueView()
        self.envelopes: dict[Key, dict] = {}
        # Per lane (priority, partition), a min-heap of the offsets put in the view, dead
        # ones dropped lazily: the lane's lowest offset still on the queue in amortised
        # O(1) (low_watermarks), not a scan of the whole view every ADVANCE_EVERY gets.
        self._offsets: dict[tuple[int, int], list[int]] = {}
        self._heaped = 0  # entries in those heaps, live or dead
        self.bad_records = 0
        # Records that cannot be delivered (shim/corrupt.py): never in the view.
        self.corrupt = CorruptRecords()
        self.state = state
        # Native records read and not yet counted into the depth (store.count_native).
        self._native: dict[str, list[int]] = {}
        self.read_errors = 0
        self._fifo = qdef.msg_delivery_sequence == C.MQMDS_FIFO
        self._single = qdef.partitions == 1
        self._topic_prio = {naming.data_topic(qmgr, qdef.name, p): p for p in naming.PRIORITIES}
        # Next offset to read per lane: everything below it is in the view or consumed.
        self.position: dict[str, int] = {}
        self.caught_up_at = -1e9  # monotonic time of the last catch_up
        self.pumped_at = -1e9  # monotonic time of the last take from the consumer
        self._parts = [(t, p) for t in self._topic_prio for p in range(qdef.partitions)]
        self.consumer = log_backend.reader()
        lows = state.lows()
        parts = []
        for topic, prio in self._topic_prio.items():
            for part in range(qdef.partitions):
                low = lows.get(lane(prio, part))
                parts.append(TopicPartition(topic, part, low or 0))
                self.position[lane(prio, part)] = low or 0
        self.consumer.assign(parts)

    def _pos(self, prio: int, part: int, offset: int, ts: int, msg_id: bytes) -> tuple:
        # One partition per priority: offset order is physical order, exactly.
        if self._fifo:
            # MSGDLVSQ(FIFO): arrival order across the priority topics. The broker's
            # append time orders puts a millisecond apart; within one millisecond the
            # MsgId does: a connection's generated MsgIds end in a big-endian counter
            # behind its own prefix, so one application's puts keep their order (sync
            # puts are appended in put order) and puts of two connections in the same
            # millisecond, which were concurrent, get a fixed order of their own.
            return (ts, msg_id, part, offset)
        if self._single:
            return (-prio, offset)
        return (-prio, ts, part, offset)

    def pump(self, timeout: float = 0.0, max_records: int = 2000) -> int:
        """Move newly committed records into the view; returns how many arrived."""
        n = 0
        self.pumped_at = self.clock.monotonic()
        # consume(n, timeout) waits out its whole timeout unless n records arrive, so
        # wait in poll() for the first record and then take what is already there.
        first = self.consumer.poll(timeout) if timeout > 0 else None
        msgs = self.consumer.consume(max_records, timeout=0)
        if first is not None:
            msgs.insert(0, first)
        for msg in msgs:
            if msg.error():
                self.read_errors += 1
                log.debug("read error on %s: %s", self.qdef.name, msg.error())
                continue
            prio = self._topic_prio[msg.topic()]
            part, offset = msg.partition(), msg.offset()
            ln = lane(prio, part)
            self.position[ln] = max(self.position.get(ln, 0), offset + 1)
            try:
                bad = None
                env = records.envelope_of(msg.key(), msg.value())
                if env is None:  # a Kafka producer's native record, as an MQ message
                    why = records.unreadable(msg.key(), msg.value())
                    if why is not None:
                        bad = (recordrules.UNREADABLE, why)
                    env = records.native_envelope(msg, prio, self.qdef.def_persistence)
                    self._native.setdefault(ln, []).append(offset)
                else:
                    bad = recordrules.impossible_field(env)
                    if bad is not None:  # no MQPUT wrote it: a producer's, like a native one
                        env = records.native_envelope(msg, prio, self.qdef.def_persistence)
                        self._native.setdefault(ln, []).append(offset)
            except Exception:
                # Every record reads as an envelope or a native message; one that still
                # fails (a defect) is counted and logged, never handed out, and the
                # getter goes on with the next (MQ has no such message: nothing to
                # return for it).
                self.bad_records += 1
                log.error(
                    "%s: the record at %s:%d cannot be read as a message; skipped (%d so far)",
                    self.qdef.name,
                    msg.topic(),
                    offset,
                    self.bad_records,
                    exc_info=self.bad_records == 1,
                )
                continue
            key: Key = (prio, part, offset)
            item = Item(
                key=key,
                pos=self._pos(prio, part, offset, msg.timestamp()[1], env["MsgId"]),
                priority=env["Priority"],
                msg_id=env["MsgId"],
                correl_id=env["CorrelId"],
                group_id=env["GroupId"],
                seq=env["MsgSeqNumber"],
                offset=env["Offset"],
                flags=env["MsgFlags"],
                length=len(env["Payload"]),
                persistence=env["Persistence"],
                put_ms=env["PutTimestamp"],
                expiry=env["Expiry"],
                report=env["Report"],
            )
            if bad is not None:
                self._set_aside(item, env, *bad)
                continue
            self._add(item, env)
            n += 1
        if self._native:
            self._count_native()
        return n

    def _set_aside(self, item: Item, env: dict[str, Any], reason: int, detail: str) -> None:
        """A record no application may get (shim/corrupt.py): kept out of the view for
        the dead-letter queue. Logged once per reader; the reader counts them."""
        if item.key in self.corrupt.waiting:
            return
        self.corrupt.add(Corrupt(item, env, reason, detail))
        log.warning(
            "%s: the record at %s:%d is no deliverable message (reason %d: %s); "
            "it goes to the dead-letter queue",
            self.qdef.name,
            naming.data_topic(self.qmgr, self.qdef.name, item.key[0]),
            item.key[2],
            reason,
            detail,
        )

    def _count_native(self) -> None:
        """Native records count into the depth once read (nothing counted them at put).
        Without the epoch they wait for the next pump: the rebuild counts what it saw."""
        for ln in list(self._native):
            try:
                self.state.count_native(ln, self._native[ln])
            except NoEpochError:
                return
            del self._native[ln]

    def catch_up(self, timeout: float = 2.0) -> bool:
        """Read every record committed before this call: one ListOffsets request gives
        each lane's last stable offset as read_committed sees it."""
        ends = self.log.end_offsets(self._parts)
        want = [TopicPartition(t, p, end) for (t, p), end in ends.items() if end > 0]
        self.caught_up_at = self.clock.monotonic()
        deadline = self.caught_up_at + timeout
        while want:
            positions = self.consumer.position(
                [TopicPartition(tp.topic, tp.partition) for tp in want]
            )
            want = [
                tp for tp, pos in zip(want, positions, strict=True) if self._next(pos) < tp.offset
            ]
            if not want:
                break
            if self.clock.monotonic() > deadline:
                return False
            self.pump(0.005)
        return True

    def _next(self, pos: TopicPartition) -> int:
        """The next offset this reader will read in `pos`'s lane. The consumer's position
        passes transaction markers, but stays OFFSET_INVALID (-1001) on a partition
        assigned at its end (every message consumed: the lane's low mark is its end)
        until something is fetched there; then the reader's own position (the assigned
        offset, or past the last record read) says where it stands. Without this, a
        reader whose lanes were all consumed waited out catch_up's whole timeout on
        every get (a channel agent restarted after its high priorities were sent moved
        one message a second)."""
        if pos.offset >= 0:
            return pos.offset
        return self.position.get(lane(self._topic_prio[pos.topic], pos.partition), 0)

    def take_back(self, item: Item, env: dict[str, Any]) -> None:
        """A message this reader's handle got under syncpoint is on the queue again
        (backout, or a prefetched message released), in its original position."""
        if not self.closed and item.key not in self.envelopes:
            self._add(item, env)

    def _add(self, item: Item, env: dict[str, Any]) -> None:
        key = item.key
        self.envelopes[key] = env
        self.view.add(item)
        heap = self._offsets.get(key[:2])
        if heap is None:
            heap = self._offsets[key[:2]] = []
        heapq.heappush(heap, key[2])
        self._heaped += 1

    def forget(self, key: Key) -> None:
        """The item left the queue (consumed by anyone, or expired)."""
        self.view.discard(key)
        self.envelopes.pop(key, None)

    def low_watermarks(self) -> dict[str, int]:
        """Per lane, the smallest offset still in the view (or the read position): every
        offset below it is consumed, an aborted record or a transaction marker."""
        lows = dict(self.position)
        for ln, low in self.corrupt.lows().items():  # still on the queue
            lows[ln] = min(lows.get(ln, low), low)
        live = self.envelopes
        if self._heaped > 2 * len(live) + 1024:  # dead entries buried under a low one
            self._rebuild_offsets()
        for (prio, part), heap in self._offsets.items():
            while heap and (prio, part, heap[0]) not in live:
                heapq.heappop(heap)
                self._heaped -= 1
            if heap:
                ln = lane(prio, part)
                lows[ln] = min(lows.get(ln, heap[0]), heap[0])
        return lows

    def _rebuild_offsets(self) -> None:
        offsets: dict[tuple[int, int], list[int]] = {}
        for prio, part, offset in self.envelopes:
            offsets.setdefault((prio, part), []).append(offset)
        for heap in offsets.values():
            heapq.heapify(heap)
        self._offsets, self._heaped = offsets, len(self.envelopes)

    def close(self) -> None:
        self.closed = True
        self.consumer.close()
