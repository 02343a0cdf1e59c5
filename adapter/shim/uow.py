"""A unit of work (MQ syncpoint) on one Kafka transaction.

Puts under syncpoint go into the connection's transaction; gets under syncpoint lock
their messages in the state store (leased, renewed while the unit of work is open) and
log their consumption to the queue's ack log *inside the same transaction*. Commit:

1. the puts waiting in the unit of work (below) and the acks are produced and
   flushed, so the ack log's last stable offset is held back by this open transaction
   from here on;
2. every lock is verified and extended (one call per queue): a lock lost to a
   reclaimer means another getter may hold the message, so the unit of work aborts;
3. commit_transaction: puts become visible and the consumption is durable, atomically;
4. the state learns the consumption (locks become consumed offsets).

Puts under syncpoint wait in the unit of work (in memory, up to
config.UOW_BUFFER_BYTES) and go into the transaction at MQCMIT, step 1. Kafka's
read_committed readers stop at a partition's first open transaction, and the broker
aborts a transaction open longer than its timeout counted from its first record: a
transaction opened at the first MQPUT would hide every later message of that queue and
priority (other applications' too, put outside syncpoint or committed since) until the
unit of work ends, and would back out any unit of work with puts that lasts longer than
the timeout (MQK_TXN_TIMEOUT_MS, 20 s). MQ does neither: a message another application
commits, or puts outside syncpoint, can be got at once, and a unit of work lasts as long
as its application wants. Opened at MQCMIT, the transaction lives for the commit only.
IBM promises the order of one application's messages only when "all the put requests
were either from the same unit of work, or all ... outside of a unit of work", and
"messages from other tasks and units of work might be interspersed with the sequence"
(spec/sequential-retrieval.txt): a unit of work's messages, in their order, then take
their place on the queue when it commits. A unit of work that puts more than the buffer
holds sends what it holds whenever it fills: its transaction is open from the first
such send, and hides what follows on those partitions, and times out, from then on.

A process that dies between 3 and 4 leaves locks whose lease runs out; a getter that
meets one reconciles with the ack log first (reconcile.py), so the message is not
delivered again. One that dies before 3 leaves an undecided transaction that the broker
aborts (transaction timeout, or at once when a successor with the same transactional
id calls init_transactions); its messages then return with BackoutCount + 1.

What a unit of work holds is owned here: its gets, the messages locked ahead for a
reader's next gets (syncpoint read-ahead), its put counts. A held message goes back
into the view of the reader that got it through that reader's public `take_back`.
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from confluent_kafka import KafkaError, KafkaException

from adapter import config
from adapter.core import cmqc as C
from adapter.core.errors import MQMIError, fail
from adapter.core.model import Item
from adapter.core.qmgrrules import syncpoint_error
from adapter.shim import acklog
from adapter.shim.clock import Clock
from adapter.shim.log import Log, TransactionalProducer, produce
from adapter.shim.pump import Pump
from adapter.shim.records import Record
from adapter.shim.store import UOW_LOCK_OWNER, NoEpochError, QueueState, StateStore
from adapter.shim.uncommitted import PUBLISH_AFTER_S, UncommittedCounts

log = logging.getLogger("mqk.shim.uow")


def backed_out() -> MQMIError:
    return MQMIError(C.MQCC_WARNING, C.MQRC_BACKED_OUT)


class Returner(Protocol):
    """Whoever got a message under syncpoint takes it back into its view on backout."""

    def take_back(self, item: Item, env: dict[str, Any]) -> None: ...


@dataclass(eq=False)
class HeldGet:
    """A message got (or locked ahead) under syncpoint, locked until the unit of work
    ends."""

    queue: str
    item: Item
    env: dict[str, Any]
    returner: Returner
    logged: bool = False  # its ack record is in the transaction already (write_acks)


@dataclass
class UnitOfWork:
    owner: str  # the lock owner in the state store
    gets: list[HeldGet] = field(default_factory=list)
    # Locked ahead for a reader's next syncpoint gets, not yet delivered: released (not
    # backed out) when the unit of work ends or the reader selects differently.
    prefetched: dict[int, deque[HeldGet]] = field(default_factory=dict)
    puts: dict[str, int] = field(default_factory=dict)  # queue -> physical messages
    # Its puts not yet in the transaction (the module docstring says why), in put order.
    pending: list[Record] = field(default_factory=list)
    pending_bytes: int = 0
    got: dict[str, int] = field(default_factory=dict)  # queue -> messages in `gets`
    # Messages put and got by the application (MAXUMSGS): one per MQPUT / MQGET call,
    # however many segments it made or took.
    uncommitted: int = 0
    doomed: bool = False  # can no longer commit: gets and puts fail with 2003
    written: dict[tuple[str, int], int] = field(default_factory=dict)  # last offset per partition
    renewed_at: float = 0.0
    started_at: float = 0.0
    # State changes that belong to the unit of work's outcome (a retained publication's
    # cache entry): run after the commit, dropped by a backout.
    after_commit: list[Callable[[], None]] = field(default_factory=list)

    def all_prefetched(self) -> list[HeldGet]:
        return [h for run in self.prefetched.values() for h in run]


def _by_queue(held_gets: list[HeldGet]) -> dict[str, list[tuple[int, int, int]]]:
    out: dict[str, list[tuple[int, int, int]]] = {}
    for held in held_gets:
        out.setdefault(held.queue, []).append(held.item.key)
    return out


class _LostLockError(Exception):
    pass


def _flush(producer: TransactionalProducer) -> int:
    """producer.flush(30), a fatal error met inside it as a KafkaException. A producer
    fenced while its records wait for their partitions (a unit of work's puts sent at
    MQCMIT) fails them in the flush, and confluent-kafka then returns from flush with
    no exception set: SystemError ("returned NULL without setting an exception"),
    measured with a second producer of the same transactional id."""
    try:
        return producer.flush(30)
    except SystemError as exc:
        raise KafkaException(KafkaError(KafkaError._FATAL, f"flush failed: {exc}")) from exc


class UnitsOfWork:
    """The connection's transactional producer and its current unit of work."""

    _n = itertools.count(1)

    def __init__(
        self,
        qmgr: str,
        conn_id: str,
        log_backend: Log,
        store: StateStore,
        pump: Pump,
        clock: Clock,
        transactional_id: str | None = None,
    ) -> None:
        self.qmgr = qmgr
        self.conn_id = conn_id
        self.log = log_backend
        self.store = store
        self.pump = pump
        self.clock = clock
        self.transactional_id = transactional_id or f"mqk.{qmgr}.{conn_id}"
        self._producer: TransactionalProducer | None = None
        self.current: UnitOfWork | None = None
        self.state_failures = 0  # state updates left to the reconciler (logged)
        # The last offsets written by units of work committed without waiting for their
        # puts to become readable (commit(visible=False)), until await_committed.
        self._unseen: dict[tuple[str, int], int] = {}
        # The pump thread renews leases while the application thread commits.
        self.lock = threading.RLock()
        self.uncommitted = UncommittedCounts(store, clock)  # CURDEPTH's, for everyone
        # False: syncpoint puts go into the transaction as they are put (a caller that
        # commits right after its puts, a channel's agent, lets the broker take them
        # meanwhile instead of at MQCMIT).
        self.defer_puts = True

    # -- producer --------------------------------------------------------------------
    def producer(self) -> TransactionalProducer:
        if self._producer is None:
            producer = self.log.transactional_producer(self.transactional_id)
            try:
                # Fences an earlier producer with this id and aborts its open transaction.
                producer.init_transactions(30)
            except KafkaException as exc:
                raise fail(C.MQRC_CONNECTION_BROKEN) from exc
            self._producer = producer
        return self._producer

    def _drop_producer(self) -> None:
        """librdkafka's producer is unusable after a fatal error or a commit timeout."""
        self._producer = None

    # -- unit of work ----------------------------------------------------------------
    def begin(self) -> UnitOfWork:
        """MQBEGIN, or the first syncpoint call: MQRC_BACKED_OUT if the current unit of
        work can no longer commit."""
        if self.current is None:
            producer = self.producer()
            try:
                producer.begin_transaction()
            except KafkaException as exc:
                self._drop_producer()
                raise fail(C.MQRC_CONNECTION_BROKEN) from exc
            now = self.clock.monotonic()
            self.current = UnitOfWork(
                owner=f"{UOW_LOCK_OWNER}{self.conn_id}.{next(self._n)}",
                renewed_at=now,
                started_at=now,
            )
        if self.current.doomed:
            raise fail(C.MQRC_BACKED_OUT)
        return self.current

    def check_room(self, max_uncommitted: int) -> None:
        """MQRC_SYNCPOINT_LIMIT_REACHED if one more message would take the unit of work
        past MAXUMSGS; the unit of work is untouched and may still commit."""
        uow = self.current
        reason = syncpoint_error(0 if uow is None else uow.uncommitted, max_uncommitted)
        if reason is not None:
            raise fail(reason)

    def held_gets(self) -> int:
        """How many gets the current unit of work holds (a get call compares before and
        after to know whether it added one)."""
        return 0 if self.current is None else len(self.current.gets)

    def count_uncommitted(self) -> None:
        """An application's MQPUT or MQGET joined the unit of work (MAXUMSGS)."""
        if self.current is not None:
            self.current.uncommitted += 1

    def put(self, queue: str | None, records: list[Record], *, counted: bool = True) -> None:
        """Syncpoint puts: invisible to read_committed getters until commit. `counted`:
        an application's MQPUT (one uncommitted message, MAXUMSGS), not a message the
        queue manager moves itself (a BOTHRESH requeue). `queue` None: records on no
        queue (a publication's own records), counted in no depth."""
        uow = self.begin()
        uow.pending.extend(records)
        uow.pending_bytes += sum(
            len(key or b"") + len(value or b"") for _, key, value, _ in records
        )
        if not self.defer_puts or uow.pending_bytes >= config.UOW_BUFFER_BYTES:
            try:
                self._send_pending(uow)
            except KafkaException as exc:
                uow.doomed = True
                raise fail(C.MQRC_BACKED_OUT) from exc
        if queue is not None:
            first = queue not in uow.puts
            uow.puts[queue] = uow.puts.get(queue, 0) + len(records)
            self.pump.count_enqueued(queue, len(records))  # MSGSIN: uncommitted puts count
            if first and self.defer_puts:
                # Kafka shows nothing of the puts before MQCMIT: the state tells every
                # connection at once that the queue has uncommitted puts (DELETE and
                # CLEAR refuse it, MQCLOSE's delete options too); their number follows
                # on the pump's ticks, as for CURDEPTH.
                with self.lock:
                    self.uncommitted.publish(uow.owner, dict(uow.puts), dict(uow.got))
        if counted:
            uow.uncommitted += 1

    def _send_pending(self, uow: UnitOfWork) -> None:
        """The unit of work's waiting puts into its transaction, in put order."""
        records, uow.pending, uow.pending_bytes = uow.pending, [], 0
        producer = self.producer()
        for topic, key, value, headers in records:
            produce(producer, topic, key, value, self._delivered, headers)

    def _delivered(self, err, msg) -> None:
        uow = self.current
        if uow is None:
            return
        if err is not None:
            uow.doomed = True
            log.warning("a put in unit of work %s failed (%s): it will back out", uow.owner, err)
            return
        tp = (msg.topic(), msg.partition())
        uow.written[tp] = max(uow.written.get(tp, -1), msg.offset())

    def doom(self, why: str) -> None:
        """The current unit of work can no longer commit (a call failed in a way that
        leaves its part unknown): MQCMIT backs it out with MQRC_BACKED_OUT."""
        uow = self.current
        if uow is not None and not uow.doomed:
            uow.doomed = True
            log.warning("unit of work %s will back out: %s", uow.owner, why)

    @property
    def owner(self) -> str:
        """The current unit of work's owner ("" without one): the state's readers leave
        its uncommitted counts out and add depth_change, which is never late."""
        uow = self.current
        return "" if uow is None else uow.owner

    def current_depth(self, state: QueueState, queue: str) -> int:
        """`queue`'s CURDEPTH as MQ counts it, seen from this connection: the state's
        (committed messages, other units of work as published) and this unit of work's
        own change, never late."""
        return state.depth_with_uncommitted(self.owner) + self.depth_change(queue)

    def depth_change(self, queue: str) -> int:
        """What the current unit of work changes in `queue`'s depth as MQ counts it, and
        the state does not yet: CurrentQDepth "is incremented during an MQPUT call ... and
        decremented during a nonbrowse MQGET call", so it "includes messages that have
        been put on the queue within a unit of work, but which have not yet been
        committed" and "excludes messages that have been retrieved within a unit of
        work" (https://www.ibm.com/support/knowledgecenter/SSFKSJ_9.0.0/com.ibm.mq.ref.dev.doc/q106410_.htm),
        while the state counts both at commit. Its puts less its gets."""
        uow = self.current
        if uow is None:
            return 0
        return uow.puts.get(queue, 0) - uow.got.get(queue, 0)

    def touches(self, queue: str) -> bool:
        """Whether the current unit of work has puts to or gets from `queue` (MQCLOSE's
        MQRC_Q_NOT_EMPTY, and a temporary queue's deletion waits for the outcome)."""
        uow = self.current
        if uow is None:
            return False
        return queue in uow.puts or any(held.queue == queue for held in uow.gets)

    def hold(self, queue: str, item: Item, env: dict[str, Any], returner: Returner) -> None:
        """A syncpoint get: its consumption commits with the unit of work."""
        uow = self.begin()
        uow.gets.append(HeldGet(queue, item, env, returner))
        uow.got[queue] = uow.got.get(queue, 0) + 1

    def prefetch(self, queue: str, item: Item, env: dict[str, Any], returner: Returner) -> None:
        uow = self.begin()
        uow.prefetched.setdefault(id(returner), deque()).append(HeldGet(queue, item, env, returner))

    def has_prefetched(self, returner: Returner) -> bool:
        uow = self.current
        return uow is not None and bool(uow.prefetched.get(id(returner)))

    def next_prefetched(self, returner: Returner) -> HeldGet | None:
        """The next message locked ahead for `returner`, now got: it belongs to the unit
        of work like any syncpoint get."""
        uow = self.current
        run = uow.prefetched.get(id(returner)) if uow is not None else None
        if not run:
            return None
        held = run.popleft()
        uow.gets.append(held)
        uow.got[held.queue] = uow.got.get(held.queue, 0) + 1
        return held

    def discard_prefetched(self, held: HeldGet) -> None:
        """A message got from the prefetched run that expired: not part of the unit of
        work (discarding never is)."""
        uow = self.current
        if uow is not None and held in uow.gets:
            uow.gets.remove(held)
            uow.got[held.queue] -= 1

    def give_back_prefetched(self, returner: Returner) -> None:
        """`returner` is about to select differently: its locked-ahead messages go back
        on the queue (not a backout) so that this get can see them."""
        with self.lock:
            uow = self.current
            if uow is not None:
                self._release_prefetched(list(uow.prefetched.pop(id(returner), ())), uow.owner)

    def _release_prefetched(self, held: list[HeldGet], owner: str) -> None:
        self._release(held, owner, backout=False)
        for h in held:
            h.returner.take_back(h.item, h.env)

    def _release(self, held: list[HeldGet], owner: str, *, backout: bool) -> None:
        """Drop the unit of work's locks (BackoutCount + 1 with backout). A failure leaves
        the locks to expire and be reclaimed: counted and logged, never raised here."""
        for queue, keys in _by_queue(held).items():
            try:
                self.store.queue(queue).release(keys, owner, backout=backout)
            except Exception:
                self.state_failures += 1
                log.warning(
                    "releasing %d locks on %s failed; their lease will expire",
                    len(keys),
                    queue,
                    exc_info=True,
                )

    def renew(self) -> None:
        """Called by the connection's pump: publish the unit of work's uncommitted
        counts (CURDEPTH, shim/uncommitted.py) and keep the locks of a long unit of
        work. Never waits for the lock: the application thread may be committing."""
        if not self.lock.acquire(blocking=False):
            return
        try:
            uow = self.current
            if uow is not None and self.clock.monotonic() - uow.started_at >= PUBLISH_AFTER_S:
                # copies: the application thread adds to them unlocked
                self.uncommitted.publish(uow.owner, dict(uow.puts), dict(uow.got))
            if uow is None or uow.doomed or not (uow.gets or uow.prefetched):
                return
            if self.clock.monotonic() - uow.renewed_at < config.LEASE_MS / 3000:
                return
            uow.renewed_at = self.clock.monotonic()
            for queue, keys in _by_queue(uow.gets + uow.all_prefetched()).items():
                try:
                    if self.store.queue(queue).verify(keys, uow.owner, config.LEASE_MS):
                        uow.doomed = True
                except NoEpochError:
                    uow.doomed = True
        finally:
            self.lock.release()

    def write_acks(self) -> None:
        """Produce the ack records of the gets the unit of work holds now, ahead of
        MQCMIT (which then adds only those of later gets). They are in its transaction
        like any of its records: aborted by a backout, committed with it. A caller that
        knows its last get of the unit of work (a channel's batch) lets the broker take
        them, and the partitions they add to the transaction, while it goes on with its
        puts, instead of waiting for them at MQCMIT. Nothing else changes: the locks are
        verified at MQCMIT, after the flush, as step 2 says."""
        with self.lock:
            uow = self.current
            if uow is None or uow.doomed:
                return
            fresh = [held for held in uow.gets if not held.logged]
            try:
                self._produce_acks(fresh)
            except KafkaException as exc:
                uow.doomed = True
                raise fail(C.MQRC_BACKED_OUT) from exc
            for held in fresh:
                held.logged = True

    def _produce_acks(self, held_gets: list[HeldGet]) -> None:
        producer = self.producer()
        for queue, keys in _by_queue(held_gets).items():
            for topic, key, value in acklog.records(self.qmgr, queue, acklog.by_lane(keys)):
                produce(producer, topic, key, value)

    def commit(self, visible: bool = True) -> None:
        """MQCMIT. A unit of work that cannot commit is backed out: MQRC_BACKED_OUT.
        `visible`: return once the puts are readable (MQCMIT's promise); False returns
        when the transaction is committed, the commit markers perhaps still on their way
        (for a caller whose next reader waits for what it put: a channel's agent)."""
        with self.lock:
            self._commit(visible)

    def _commit(self, visible: bool = True) -> None:
        uow = self.current
        if uow is None:
            return
        if uow.doomed:
            self._backout()
            raise backed_out()
        producer = self.producer()
        by_queue = _by_queue(uow.gets)
        try:
            self._send_pending(uow)
            self._produce_acks([held for held in uow.gets if not held.logged])
            if _flush(producer):
                raise KafkaException("transactional records not delivered")
            for queue, keys in by_queue.items():
                if self.store.queue(queue).verify(keys, uow.owner, config.LEASE_MS):
                    raise _LostLockError(queue)
            producer.commit_transaction(30)
            if visible:
                self._await_visible(uow.written)
            else:
                for tp, offset in uow.written.items():
                    self._unseen[tp] = max(self._unseen.get(tp, -1), offset)
        except (KafkaException, _LostLockError, NoEpochError) as exc:
            log.info("unit of work %s backed out at commit: %r", uow.owner, exc)
            self._backout()
            raise backed_out() from None
        self.current = None
        self.uncommitted.clear(uow.owner)  # before the depth counts them: never twice
        self._release_prefetched(uow.all_prefetched(), uow.owner)
        for queue, n in uow.puts.items():  # depth counts committed messages only
            self.pump.count_put(queue, n, enqueued=False)  # MSGSIN counted them at put
        self.pump.flush_depth()  # before MQCMIT returns, so a kill after it loses nothing
        for action in uow.after_commit:
            try:
                action()
            except Exception:  # Kafka holds the truth (e.g. the compacted _retained topic)
                self.state_failures += 1
                log.warning("a state update after commit failed", exc_info=True)
        for queue, keys in by_queue.items():
            try:
                self.store.queue(queue).apply_consumed_later(keys)
            except Exception:  # Kafka holds the truth; reconcile repairs the state
                self.state_failures += 1
                log.warning(
                    "committed consumption of %d messages of %s not yet in the "
                    "state; the reconciler applies it",
                    len(keys),
                    queue,
                    exc_info=True,
                )

    def await_committed(self) -> None:
        """Return once the puts of every unit of work committed without waiting
        (commit(visible=False)) are readable: what MQCMIT would have waited for."""
        with self.lock:
            unseen, self._unseen = self._unseen, {}
            self._await_visible(unseen)

    def _await_visible(self, written: dict[tuple[str, int], int], timeout: float = 10.0) -> None:
        """MQCMIT returns when its puts are available: commit_transaction returns before
        the commit markers are written, so wait for the last stable offsets to pass."""
        pending = dict(written)
        deadline = self.clock.monotonic() + timeout
        while pending and self.clock.monotonic() < deadline:
            try:
                ends = self.log.end_offsets(list(pending))
            except KafkaException:
                ends = {}
            for tp, end in ends.items():
                if end > pending[tp]:
                    del pending[tp]
            if pending:
                self.clock.sleep(0.002)

    def backout(self) -> None:
        """MQBACK: puts forgotten, gets back on their queues with BackoutCount + 1."""
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
        self.uncommitted.clear(uow.owner)
        self._release(uow.gets, uow.owner, backout=True)
        for held in uow.gets:  # back in their original positions, for this reader too
            held.returner.take_back(held.item, held.env)
        self._release_prefetched(uow.all_prefetched(), uow.owner)
