"""A unit of work (MQ syncpoint) on one Kafka transaction.

Puts under syncpoint go into the connection's transaction; gets under syncpoint lock
their messages in Redis (leased, renewed while the unit of work is open) and log their
consumption to the queue's ack log *inside the same transaction*. Commit order:

1. the acks are produced and flushed, so the ack log's last stable offset is held
   back by this open transaction from here on;
2. every lock is verified and extended (one Lua call per queue): a lock lost to a
   reclaimer means another getter may hold the message, so the unit of work aborts;
3. commit_transaction: puts become visible and the consumption is durable, atomically;
4. Redis learns the consumption (locks become consumed offsets).

A process that dies between 3 and 4 leaves locks whose lease runs out; a getter that
meets one reconciles with the ack log first (reconcile.py), so the message is not
delivered again. One that dies before 3 leaves an undecided transaction that the broker
aborts (transaction timeout, or at once when a successor with the same transactional
id calls init_transactions); its messages then return with BackoutCount + 1.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from dataclasses import dataclass, field

from confluent_kafka import KafkaException, Producer

from adapter.core import cmqc as C
from adapter.pymqi.errors import MQMIError
from adapter.shim import naming
from adapter.shim.state import NoEpochError

# Lease on messages got under syncpoint; renewed every third of it while the UOW lives.
LEASE_MS = int(os.environ.get("MQK_UOW_LEASE_MS", "30000"))
# The broker aborts a transaction whose producer went silent this long.
TXN_TIMEOUT_MS = int(os.environ.get("MQK_TXN_TIMEOUT_MS", "20000"))


def backed_out() -> MQMIError:
    return MQMIError(C.MQCC_WARNING, C.MQRC_BACKED_OUT)


@dataclass
class HeldGet:
    """A message got under syncpoint, locked until commit or backout."""

    handle: object  # the QueueHandle that got it (its view takes it back on backout)
    queue: str
    cand: str
    item: object
    env: dict


@dataclass
class UnitOfWork:
    owner: str  # the lock owner in Redis
    gets: list[HeldGet] = field(default_factory=list)
    # Locked ahead for a handle's next syncpoint gets, not yet delivered: released (not
    # backed out) when the unit of work ends.
    prefetched: list[HeldGet] = field(default_factory=list)
    puts: dict[str, int] = field(default_factory=dict)  # queue -> physical messages
    doomed: bool = False  # can no longer commit: gets and puts fail with 2003
    written: dict[tuple[str, int], int] = field(default_factory=dict)  # last offset per partition
    renewed_at: float = field(default_factory=time.monotonic)


class Transactions:
    """The connection's transactional producer and its current unit of work."""

    _n = itertools.count(1)

    def __init__(self, conn, transactional_id: str | None) -> None:
        self.conn = conn
        self.transactional_id = transactional_id or f"mqk.{conn.qmgr}.{conn.conn_id}"
        self._producer: Producer | None = None
        self.current: UnitOfWork | None = None
        # The pump thread renews leases while the application thread commits.
        self.lock = threading.RLock()

    # -- producer --------------------------------------------------------------------
    def producer(self) -> Producer:
        if self._producer is None:
            producer = Producer(
                {
                    **self.conn.kafka_conf,
                    "transactional.id": self.transactional_id,
                    "enable.idempotence": True,
                    "acks": "all",
                    "linger.ms": 1,
                    "retry.backoff.ms": 5,  # back-to-back short transactions (STACK-NOTES)
                    "transaction.timeout.ms": TXN_TIMEOUT_MS,
                    "message.max.bytes": 100 * 1024 * 1024,
                }
            )
            try:
                # Fences an earlier producer with this id and aborts its open transaction.
                producer.init_transactions(30)
            except KafkaException as exc:
                raise MQMIError(C.MQCC_FAILED, C.MQRC_CONNECTION_BROKEN) from exc
            self._producer = producer
        return self._producer

    def _drop_producer(self) -> None:
        """librdkafka's producer is unusable after a fatal error or a commit timeout."""
        self._producer = None

    # -- unit of work ----------------------------------------------------------------
    def begin(self) -> UnitOfWork:
        if self.current is None:
            producer = self.producer()
            try:
                producer.begin_transaction()
            except KafkaException as exc:
                self._drop_producer()
                raise MQMIError(C.MQCC_FAILED, C.MQRC_CONNECTION_BROKEN) from exc
            self.current = UnitOfWork(owner=f"uow.{self.conn.conn_id}.{next(self._n)}")
        if self.current.doomed:
            raise MQMIError(C.MQCC_FAILED, C.MQRC_BACKED_OUT)
        return self.current

    def produce(self, queue: str, topic: str, key: bytes, value: bytes) -> None:
        uow = self.begin()
        try:
            while True:
                try:
                    self.producer().produce(
                        topic, value=value, key=key, on_delivery=self._delivered
                    )
                    break
                except BufferError:
                    self.producer().poll(0.05)
        except KafkaException as exc:
            uow.doomed = True
            raise MQMIError(C.MQCC_FAILED, C.MQRC_BACKED_OUT) from exc
        uow.puts[queue] = uow.puts.get(queue, 0) + 1

    def _delivered(self, err, msg) -> None:
        uow = self.current
        if err is not None:
            if uow is not None:
                uow.doomed = True
            return
        if uow is not None:
            tp = (msg.topic(), msg.partition())
            uow.written[tp] = max(uow.written.get(tp, -1), msg.offset())

    def _await_visible(self, written: dict[tuple[str, int], int], timeout: float = 10.0) -> None:
        """MQCMIT returns when its puts are available: commit_transaction returns before
        the commit markers are written, so wait for the last stable offsets to pass."""
        from confluent_kafka import IsolationLevel, TopicPartition
        from confluent_kafka.admin import OffsetSpec

        pending = dict(written)
        deadline = time.monotonic() + timeout
        while pending and time.monotonic() < deadline:
            specs = {TopicPartition(t, p): OffsetSpec.latest() for t, p in pending}
            futures = self.conn.admin.list_offsets(
                specs, isolation_level=IsolationLevel.READ_COMMITTED
            )
            for tp, fut in futures.items():
                try:
                    if fut.result(5).offset > pending[(tp.topic, tp.partition)]:
                        del pending[(tp.topic, tp.partition)]
                except KafkaException:
                    pass
            if pending:
                time.sleep(0.002)

    def hold(self, handle, queue: str, cand: str, item, env: dict) -> None:
        self.begin().gets.append(HeldGet(handle, queue, cand, item, env))

    def renew(self) -> None:
        """Called by the connection's pump: keep the locks of a long unit of work.
        Never waits for the lock: the application thread may be committing."""
        if not self.lock.acquire(blocking=False):
            return
        try:
            self._renew()
        finally:
            self.lock.release()

    def _renew(self) -> None:
        uow = self.current
        if uow is None or not (uow.gets or uow.prefetched) or uow.doomed:
            return
        if time.monotonic() - uow.renewed_at < LEASE_MS / 3000:
            return
        uow.renewed_at = time.monotonic()
        for queue, cands in self._by_queue(uow, uow.gets + uow.prefetched).items():
            try:
                if self.conn.state(queue).verify(cands, uow.owner, LEASE_MS):
                    uow.doomed = True
            except NoEpochError:
                uow.doomed = True

    @staticmethod
    def _by_queue(uow: UnitOfWork, held_gets: list[HeldGet] | None = None) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for held in uow.gets if held_gets is None else held_gets:
            out.setdefault(held.queue, []).append(held.cand)
        return out

    def prefetch(self, handle, queue: str, cand: str, item, env: dict) -> HeldGet:
        held = HeldGet(handle, queue, cand, item, env)
        self.begin().prefetched.append(held)
        return held

    def give_back_prefetched(self, handle) -> None:
        """The handle is about to select differently: its locked-ahead messages go back
        on the queue (not a backout) so that this get can see them."""
        with self.lock:
            uow = self.current
            if uow is None:
                return
            mine = [h for h in uow.prefetched if h.handle is handle]
            if not mine:
                return
            uow.prefetched = [h for h in uow.prefetched if h.handle is not handle]
            rest, uow.prefetched = uow.prefetched, mine
            self._release_prefetched(uow)
            uow.prefetched = rest

    def deliver_prefetched(self, held: HeldGet) -> None:
        """A prefetched message is got by the application: it now belongs to the unit
        of work like any syncpoint get."""
        uow = self.begin()
        uow.prefetched.remove(held)
        uow.gets.append(held)

    def _release_prefetched(self, uow: UnitOfWork) -> None:
        for queue, cands in self._by_queue(uow, uow.prefetched).items():
            try:
                self.conn.state(queue).release(cands, uow.owner, backout=False)
            except Exception:  # noqa: BLE001 - a lock left behind expires and is reclaimed
                pass
        for held in uow.prefetched:
            held.handle.take_back(held.item, held.env)
            held.handle.forget_prefetched()
        uow.prefetched.clear()

    def commit(self) -> None:
        with self.lock:
            self._commit()

    def _commit(self) -> None:
        uow = self.current
        if uow is None:
            return
        if uow.doomed:
            self._backout()
            raise backed_out()
        producer = self.producer()
        by_queue = self._by_queue(uow)
        try:
            from adapter.shim.connection import encode_ack

            for queue, cands in by_queue.items():
                lanes: dict[str, list[int]] = {}
                for c in cands:
                    lane, off = c.split(":")
                    lanes.setdefault(lane, []).append(int(off))
                for lane, offsets in lanes.items():
                    producer.produce(
                        naming.ack_topic(self.conn.qmgr, queue),
                        key=lane.encode(),
                        value=encode_ack(offsets),
                    )
            if producer.flush(30):
                raise KafkaException("transactional records not delivered")
            for queue, cands in by_queue.items():
                if self.conn.state(queue).verify(cands, uow.owner, LEASE_MS):
                    raise _LostLockError(queue)
            producer.commit_transaction(30)
            self._await_visible(uow.written)
        except (KafkaException, _LostLockError, NoEpochError):
            self._backout()
            raise backed_out() from None
        self.current = None
        self._release_prefetched(uow)
        for queue, n in uow.puts.items():  # depth counts committed messages only
            self.conn.count_put(queue, n)
        self.conn.flush_depth()  # before MQCMIT returns, so a kill after it loses nothing
        for queue, cands in by_queue.items():
            try:
                self.conn.state(queue).apply_consumed(cands)
            except Exception:  # noqa: BLE001 - Kafka holds the truth; reconcile repairs Redis
                pass

    def backout(self) -> None:
        with self.lock:
            self._backout()

    def _backout(self) -> None:
        uow = self.current
        if uow is None:
            return
        self.current = None
        if self._producer is not None:
            try:
                self._producer.abort_transaction(30)
            except KafkaException:
                self._drop_producer()  # a successor's init_transactions aborts it
        for queue, cands in self._by_queue(uow).items():
            try:
                self.conn.state(queue).release(cands, uow.owner, backout=True)
            except Exception:  # noqa: BLE001 - a lock left behind expires and is reclaimed
                pass
        for held in uow.gets:  # back in their original positions, for this handle too
            held.handle.take_back(held.item, held.env)
        self._release_prefetched(uow)


class _LostLockError(Exception):
    pass
