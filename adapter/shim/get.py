"""MQGET on a queue handle: the rules core selects, the state store claims, the
envelope becomes the returned MQMD. Browse cursors, locks, truncation, expiry discard
with reports, COD reports, syncpoint gets held by the unit of work, and the BOTHRESH
requeue (to BOQNAME, else the dead-letter queue)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace

from adapter import config
from adapter.core import cmqc as C
from adapter.core import expiry as exp
from adapter.core import getrules as gr
from adapter.core import propctl, propwire
from adapter.core.calls import GetRequest, GetResult
from adapter.core.convert import convert
from adapter.core.errors import MQMIError, fail, warning
from adapter.core.model import Item
from adapter.core.properties import MessageProperties
from adapter.core.reassembly import consistent_segments
from adapter.core.reports import Kind, wants_coa, wants_cod
from adapter.core.selector import Selector
from adapter.shim.catalog import QueueDef
from adapter.shim.context import SAVED_FIELDS, pad_mqchar, put_date_time
from adapter.shim.getlease import GetLease
from adapter.shim.readahead import ReadAheadBuffer
from adapter.shim.reader import Key, QueueReader
from adapter.shim.selection import message_lookup
from adapter.shim.services import Services
from adapter.shim.store import COUNT, MONITORED, ClaimStatus, NoEpochError, QueueState

log = logging.getLogger("mqk.shim.get")
INPUT = C.MQOO_INPUT_AS_Q_DEF | C.MQOO_INPUT_SHARED | C.MQOO_INPUT_EXCLUSIVE
_BROWSING = C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT | C.MQGMO_BROWSE_MSG_UNDER_CURSOR
_FREE_TO_ME = (ClaimStatus.FREE, ClaimStatus.MINE)

_BLANK_DATE_TIME = (b" " * 8, b" " * 8)
# Options whose gets take something else than the next whole message as it is: never in
# a run (Getter.get_run).
_NOT_IN_RUN = (
    _BROWSING
    | C.MQGMO_MSG_UNDER_CURSOR
    | C.MQGMO_LOCK
    | C.MQGMO_UNLOCK
    | C.MQGMO_COMPLETE_MSG
    | C.MQGMO_ALL_MSGS_AVAILABLE
    | C.MQGMO_ALL_SEGMENTS_AVAILABLE
    | C.MQGMO_MARK_SKIP_BACKOUT
)


def _no_context(env: dict) -> bool:
    """Every identity and origin field empty: MQPMO_NO_CONTEXT's mark (PutApplType alone
    is not: SET_ALL_CONTEXT may set it to MQAT_NO_CONTEXT with a real context)."""
    return (
        env["PutApplType"] == C.MQAT_NO_CONTEXT
        and not env["UserIdentifier"]
        and not env["PutApplName"]
        and not env["ApplIdentityData"]
        and not env["ApplOriginData"]
    )


RETRY = object()  # a claim found candidates gone: the view changed, select again
# Polls (5 ms each) a get makes for messages held by other handles' get leases: the
# longest a lease lasts.
_LEASE_POLLS = max(1, config.GET_LEASE_MS // 5)
# The longest selection a getter looking past held messages claims at once.
_MAX_CLAIM_BATCH = 64 * config.CLAIM_BATCH


class _RejectedRun:
    """Watches one scan: how far from its start every message was one the selector
    rejects, so that the handle's next get starts after them."""

    def __init__(self, selects, upto: tuple | None, version: int) -> None:
        self._selects = selects
        self.upto = upto
        self.version = version
        self._unbroken = True

    def selects(self, item: Item) -> bool:
        verdict = self._selects(item)
        if verdict:
            self._unbroken = False
        elif self._unbroken:
            self.upto = item.pos
        return verdict


class Getter:
    """The MQGET half of an open queue: its view of the queue, get and browse cursors,
    and the browse lock."""

    def __init__(
        self,
        svc: Services,
        qdef: QueueDef,
        options: int,
        state: QueueState,
        handle_id: str,
        ahead: ReadAheadBuffer,
        selector: Selector | None = None,
    ) -> None:
        self.svc = svc
        self.qdef = qdef
        self.name = qdef.name
        self.options = options
        self.state = state
        self.handle_id = handle_id
        self.ahead = ahead
        self.get_cursor = gr.GetCursor()
        self.browse_cursor = gr.GetCursor()
        self._reader: QueueReader | None = None
        self.lease = GetLease(state, handle_id, svc.clock)
        self.lease.on_held = svc.leasing.add
        self._lease_blocked = False  # the last claim passed over another's get lease
        # Candidates this MQGET found held by other units of work (or by a dead one's
        # lock not yet reconciled): invisible to it, as a message got under syncpoint is
        # to everyone else in MQ, so the next selection looks past them. Forgotten when
        # a call starts and whenever a wait looks again (a backed-out one comes back).
        self._passed: set[Key] = set()
        # How many candidates one selection claims: CLAIM_BATCH, doubled each time a
        # round passed a full batch of held ones (a getter behind another unit of
        # work's N messages pays about log2(N / CLAIM_BATCH) round trips, not N / 16).
        self._claim_batch = config.CLAIM_BATCH
        self._locked: tuple[int, int, int] | None = None  # locked by BROWSE + MQGMO_LOCK
        # Makes self.qdef current (the handle's QueueHandle.current: raises MQRC_Q_DELETED
        # for a deleted queue), asked while a get waits.
        self.refresh_definition: Callable[[], object] = lambda: None
        self._forgotten = 0
        # MQOO_SAVE_ALL_CONTEXT: the context of the last message got, for PASS_*_CONTEXT.
        self.saved_context: dict | None = None
        # MQOD SelectionString: only messages it selects are seen by this handle.
        self.selector = selector
        self._selects = self._selected if selector is not None else None
        self._verdicts: dict = {}  # item key -> the selector's verdict on that message
        # (pos, view order_version): every message up to pos is one the selector rejects
        self._rejected_upto: tuple[tuple, int] | None = None

    @property
    def reader(self) -> QueueReader:
        if self._reader is None:
            self._reader = QueueReader(
                self.svc.log, self.svc.qmgr, self.qdef, self.state, self.svc.clock
            )
        return self._reader

    def _selected(self, item: Item) -> bool:
        # A message's properties and MQMD never change on the queue, so neither does the
        # selector's verdict: each message is judged once, not on every get that scans
        # past it (messages the selector rejects pile up in front of the ones it takes).
        verdict = self._verdicts.get(item.key)
        if verdict is None:
            env = self.reader.envelopes.get(item.key)
            verdict = env is not None and self.selector.matches(message_lookup(env))
            self._verdicts[item.key] = verdict
            if len(self._verdicts) > 2 * len(self.reader.envelopes) + 1024:
                live = self.reader.envelopes
                self._verdicts = {k: v for k, v in self._verdicts.items() if k in live}
        return verdict

    def get(self, req: GetRequest, max_length: int | None, wait_interval: int) -> GetResult | None:
        """MQGET; None for MQGMO_UNLOCK (no message). Raises MQMIError for failures and
        for a truncated message that stays on the queue (with `.result` filled)."""
        opts = req.options
        clock = self.svc.clock
        if self.svc.closed:
            raise fail(C.MQRC_HCONN_ERROR)  # MQDISC ended the connection
        if max_length is not None and max_length < 0:
            # BufferLength below zero (MQGET's parameter checks; None: the whole message).
            raise fail(C.MQRC_BUFFER_LENGTH_ERROR)
        if opts & C.MQGMO_UNLOCK:
            return self._unlock_call(opts)
        browsing = bool(opts & _BROWSING)
        if browsing and not self.options & C.MQOO_BROWSE:
            raise fail(C.MQRC_NOT_OPEN_FOR_BROWSE)
        if not browsing and not self.options & INPUT:
            raise fail(C.MQRC_NOT_OPEN_FOR_INPUT)
        if self.qdef.get_inhibited:  # browsing too (InhibitGet attribute)
            raise fail(C.MQRC_GET_INHIBITED)
        if opts & C.MQGMO_SYNCPOINT and not browsing:
            self.svc.txn.begin()  # MQRC_BACKED_OUT if the unit of work can no longer commit
            self.svc.txn.check_room(self.svc.qmgr_def().max_uncommitted_msgs)
        if opts & C.MQGMO_WAIT and wait_interval < C.MQWI_UNLIMITED:
            raise fail(C.MQRC_WAIT_INTERVAL_ERROR)
        cursor = self.browse_cursor if browsing else self.get_cursor
        failure = gr.check_request(cursor, req)
        if failure is not None:
            raise MQMIError(*failure)
        if max_length is None and opts & C.MQGMO_ACCEPT_TRUNCATED_MSG:
            max_length = 0  # pymqi passes a zero-length buffer in that case
        reader = self.reader
        stale = clock.monotonic() - reader.caught_up_at > config.STALE_VIEW_S
        if self.svc.pump.puts_in_flight:
            self.svc.pump.barrier()  # this connection's own puts are visible to its gets
            stale = True
        wait_ms = wait_interval if opts & C.MQGMO_WAIT else 0
        deadline = None if wait_ms == C.MQWI_UNLIMITED else clock.monotonic() + wait_ms / 1000
        if stale:
            reader.catch_up()
        elif clock.monotonic() - reader.pumped_at > config.PUMP_GAP_S:
            reader.pump(0)
        fresh = stale
        held = self.svc.txn.held_gets()
        quiescing = opts & C.MQGMO_FAIL_IF_QUIESCING
        self._lease_blocked, lease_polls = False, 0
        self._forget_passed()
        while True:
            result = self._attempt(req, browsing, max_length)
            while result is RETRY:  # the view changed under the claim: select again
                result = self._attempt(req, browsing, max_length)
            if result is not None:
                if self.svc.txn.held_gets() > held:  # one more in the unit of work
                    self.svc.txn.count_uncommitted()
                return result
            remaining = None if deadline is None else deadline - clock.monotonic()
            if not fresh and remaining is not None and remaining <= 0:
                # Nothing in the view and no time left: make sure nothing committed
                # before now is still unread (no false 2033). A get that still waits
                # skips this ListOffsets round trip: the fetch it blocks in brings
                # committed records within fetch.wait.max.ms, and the view is caught up
                # before its wait ends empty-handed or when a wake finds it stale.
                reader.catch_up()
                fresh = True
                continue
            if remaining is not None and remaining <= 0:
                if self._lease_blocked and lease_polls < _LEASE_POLLS:
                    # Messages another handle's get lease holds are only about to be
                    # got: MQ would offer them, so wait until they are got or given
                    # back (this connection's own idle runs at once; a dead holder's
                    # lease runs out within GET_LEASE_MS).
                    self._lease_blocked = False
                    lease_polls += 1
                    for lease in list(self.svc.leasing):
                        lease.release_idle(float("inf"), self.svc.leasing)
                    reader.pump(0.005)
                    continue
                if browsing:
                    self.browse_cursor = gr.no_message(self.browse_cursor, req)
                raise fail(C.MQRC_NO_MSG_AVAILABLE)
            # A wait ends when the queue manager ends, or quiesces for a getter that
            # asked to fail then (2162 / 2161, seen within one 50 ms fetch).
            self.svc.run.check(quiescing)
            # The wait is cancelled when the queue becomes get-inhibited (MQGMO_WAIT: "If
            # MQGET requests become inhibited while waiting, the wait is canceled", 2016)
            # or is deleted (2052); the definition mark costs no round trip to ask.
            self.refresh_definition()
            if self.qdef.get_inhibited:
                raise fail(C.MQRC_GET_INHIBITED)
            # Block in Kafka's fetch: a new record wakes us at once.
            self._forget_passed()
            arrived = reader.pump(min(0.05, remaining) if remaining is not None else 0.05)
            if arrived and clock.monotonic() - reader.caught_up_at > config.STALE_VIEW_S:
                # Records arrived into a view older than STALE_VIEW_S: the bound every get
                # keeps, so a message of higher priority committed before them and not yet
                # fetched is not overtaken (a wait that nothing wakes asks nothing).
                reader.catch_up()
                fresh = True

    def _attempt(self, req: GetRequest, browsing: bool, max_length: int | None):
        """One selection and claim: a result, None (nothing there), or RETRY."""
        reader = self.reader
        if reader.corrupt and not browsing:  # records no one may get: to the DLQ first
            self.svc.move_corrupt(self.name, self.state, reader.corrupt)
        ahead = self.ahead
        plain = ahead.serves(req, browsing, max_length)
        if plain and ahead.buffered:
            got = ahead.take()
            if got is not None:
                return self._deliver(got[0], [got[0]], req, None, removed=True, env=got[1])
        plain_sync = ahead.serves_syncpoint(req, browsing, max_length)
        if self.svc.txn.has_prefetched(reader):
            if plain_sync:
                held = ahead.take_locked(reader)
                if held is not None:
                    return self._deliver(
                        held.item, [held.item], req, None, removed=True, env=held.env, in_uow=True
                    )
            else:  # a get that selects differently must see those messages too
                self.svc.txn.give_back_prefetched(reader)
        leased = not browsing and self.lease.serves(req)
        if self.lease.held and not leased:
            self.lease.release()  # this get must see the leased messages as free
        view = reader.view
        now = self.svc.clock.now_ms()
        # MSG_UNDER_CURSOR finds its message with the browse cursor.
        sel_cursor = self.browse_cursor if (browsing or req.under_cursor) else self.get_cursor
        batch: list[Item] = []
        expired: list[Item] = []
        first_error = None
        selects, start_after, scan = self._selects, None, None
        if selects is not None and not browsing and req.in_physical_order:
            skip = self._rejected_upto
            if skip is not None and skip[1] == view.order_version:
                start_after = skip[0]
            scan = _RejectedRun(selects, start_after, view.order_version)
            selects = scan.selects
        passed = self._passed
        for item in gr.candidates(view, sel_cursor, req, selects, start_after):
            if passed and item.key in passed:
                continue
            if exp.is_expired(item.put_ms, item.expiry, now):
                expired.append(item)
                if len(expired) >= config.CLAIM_BATCH:
                    break
                continue
            failure = gr.check_item(item, sel_cursor, req)
            if failure is not None:
                if not batch:
                    first_error = failure
                break
            batch.append(item)
            if len(batch) >= self._claim_batch or (leased and self.lease.holds(item.key)):
                break  # (the lease's next message needs no look further)
        if scan is not None and scan.upto is not None:
            self._rejected_upto = (scan.upto, scan.version)
        if expired:
            self._discard_expired(expired)
            if not batch and first_error is None:
                return RETRY
        if first_error is not None:
            raise MQMIError(*first_error)
        if not batch:
            if req.under_cursor:
                raise fail(C.MQRC_NO_MSG_UNDER_CURSOR)
            return None
        try:
            if browsing:
                return self._browse(batch, req, max_length)
            if plain and batch[0].persistence == C.MQPER_NOT_PERSISTENT:
                taken = ahead.fill(reader, self.get_cursor, req, batch[0], self.handle_id)
                self._forgotten += taken
                got = ahead.take() if taken else None
                if got is not None:
                    return self._deliver(got[0], [got[0]], req, None, removed=True, env=got[1])
            if plain_sync and ahead.lock_run(reader, self.get_cursor, req, batch[0]):
                held = ahead.take_locked(reader)
                if held is not None:
                    return self._deliver(
                        held.item, [held.item], req, None, removed=True, env=held.env, in_uow=True
                    )
            if leased:
                run = batch
                if req.logical and not self.lease.holds(batch[0].key):
                    # What this handle's next gets take, to lock in one claim; `batch`
                    # (its first free candidate) stays what a plain claim takes.
                    run = gr.logical_run(
                        view, sel_cursor, req, batch[0], config.GET_LEASE_BATCH, self._selects
                    )
                got = self.lease.take(
                    run,
                    req,
                    max_length,
                    self._stats(),
                    reader.forget,
                    lambda: self._claimer(req, batch[0])[0],
                )
                if got is not None:
                    item, backout = got
                    in_uow = gr.get_in_uow(req, item)
                    if in_uow and self._requeue_poison(item, backout):
                        return RETRY
                    return self._deliver(
                        item, [item], req, max_length, removed=True, in_uow=in_uow, backout=backout
                    )
            return self._remove(batch, req, max_length)
        except NoEpochError:
            self.lease.lost()
            self.svc.rebuild(self.qdef)
            return RETRY

    # -- a run of gets with one state call (a channel's batch) ---------------------------
    def get_run(
        self, req: GetRequest, limit: int, max_bytes: int = 0, wait_interval: int = 0
    ) -> list[GetResult]:
        """Up to `limit` destructive MQGETs with `req`, as that many MQGET calls made one
        after the other would return them, the run of messages there now taken with one
        state call (`QueueState.lock_many` for the unit of work, `consume_many` outside
        it) instead of a claim each. Every rule of MQGET holds as for single gets:
        priority and physical order (a message another unit of work holds is passed, a
        get lease's is not), expiry (discarded, reported), MAXUMSGS (the run stops at
        the limit; 2024 only when nothing was got), BOTHRESH, COD reports, statistics,
        the cursor. The first message is waited for as MQGMO_WAIT asks (`wait_interval`);
        the others are the ones there. `max_bytes`: no further message once the data got
        reaches it (0: no limit), as BATCHLIM ends a channel's batch. No message: MQGET's
        failure is raised (2033, ...); a failure after the first message ends the run,
        and the next call meets it. A get a run cannot serve (browse, matching, logical
        order, a selector, COMPLETE_MSG, ...) is one MQGET."""
        if limit <= 0:
            return []
        self._forget_passed()  # the single get below fills it with what it passes
        got = self._take_run(req, limit, max_bytes) if self._runs(req) else []
        if got:
            return got
        first = self.get(req, None, wait_interval)  # waits, catches up, raises 2033
        if first is None:  # MQGMO_UNLOCK (not a removing get): nothing got
            return []
        got, size = [first], len(first.data)
        if limit > 1 and (not max_bytes or size < max_bytes) and self._runs(req):
            try:
                got += self._take_run(req, limit - 1, max_bytes - size if max_bytes else 0)
            except MQMIError:
                log.debug("%s: a run ended early after its first message", self.name)
        return got

    def _runs(self, req: GetRequest) -> bool:
        """A get a run serves: destructive, the next message in physical order, no
        selector, whole messages as they are."""
        return (
            req.removes
            and req.in_physical_order
            and not req.options & _NOT_IN_RUN
            and self._selects is None
        )

    def _take_run(self, req: GetRequest, limit: int, max_bytes: int) -> list[GetResult]:
        """The run there now (no wait): [] when there is none (or when this handle's
        read-ahead messages must be got first: single gets serve those)."""
        svc, reader = self.svc, self.reader
        if svc.closed:
            raise fail(C.MQRC_HCONN_ERROR)
        if not self.options & INPUT:
            raise fail(C.MQRC_NOT_OPEN_FOR_INPUT)
        if self.qdef.get_inhibited:
            raise fail(C.MQRC_GET_INHIBITED)
        failure = gr.check_request(self.get_cursor, req)
        if failure is not None:
            raise MQMIError(*failure)
        if req.options & C.MQGMO_SYNCPOINT:
            svc.txn.begin()  # MQRC_BACKED_OUT if the unit of work can no longer commit
        if svc.pump.puts_in_flight:
            svc.pump.barrier()  # this connection's own puts are visible to its gets
            reader.catch_up()
        elif svc.clock.monotonic() - reader.caught_up_at > config.STALE_VIEW_S:
            reader.catch_up()
        else:
            reader.pump(0)
        if reader.corrupt:  # records no one may get: to the DLQ first
            svc.move_corrupt(self.name, self.state, reader.corrupt)
        if self.ahead.buffered or svc.txn.has_prefetched(reader):
            return []
        if self.lease.held:
            self.lease.release()  # the run must see the leased messages as free
        now = svc.clock.now_ms()
        run: list[Item] = []
        expired: list[Item] = []
        size, room, in_uow = 0, limit, None
        passed = self._passed
        for item in gr.candidates(reader.view, self.get_cursor, req):
            if passed and item.key in passed:
                continue  # held by another unit of work (the first get of the run saw)
            if exp.is_expired(item.put_ms, item.expiry, now):
                expired.append(item)
                if len(expired) >= config.CLAIM_BATCH:
                    break
                continue
            if gr.check_item(item, self.get_cursor, req) is not None:
                break  # a single MQGET returns that failure: let it
            if in_uow is None:
                in_uow = gr.get_in_uow(req, item)
                if in_uow:  # one uncommitted message per get (MAXUMSGS): 2024 if none fits
                    uow = svc.txn.begin()
                    maximum = svc.qmgr_def().max_uncommitted_msgs
                    svc.txn.check_room(maximum)
                    room = min(limit, maximum - uow.uncommitted)
            elif gr.get_in_uow(req, item) != in_uow:
                break  # SYNCPOINT_IF_PERSISTENT: one run is got one way
            if len(run) >= room or (max_bytes and size >= max_bytes):
                break
            run.append(item)
            size += item.length
        if expired:
            self._discard_expired(expired)
        if not run:
            return []
        keys = [i.key for i in run]
        try:
            if in_uow:
                owner = self._claimer(req, run[0])[0]
                claim = self.state.lock_many(keys, owner, config.LEASE_MS, self._stats())
            else:
                claim = self.state.consume_many(keys, self.handle_id, self._stats())
        except NoEpochError:
            self.lease.lost()
            svc.rebuild(self.qdef)
            return []
        for i in claim.gone:
            reader.forget(run[i].key)
        out: list[GetResult] = []
        for i, backout in zip(claim.taken, claim.backouts, strict=True):
            item = run[i]
            if in_uow and self._requeue_poison(item, backout):
                continue  # moved to BOQNAME / the DLQ in the unit of work
            out.append(
                self._deliver(
                    item, [item], req, None, removed=True, in_uow=bool(in_uow), backout=backout
                )
            )
            if in_uow:
                svc.txn.count_uncommitted()
        return out

    def _claimer(self, req: gr.GetRequest, item: Item) -> tuple[str, bool]:
        """(lock owner, consume now?) for removing `item`: under syncpoint the unit of
        work holds a leased lock until commit; outside it the message goes at once."""
        if gr.get_in_uow(req, item):
            uow = self.svc.txn.begin()
            if not req.options & C.MQGMO_SYNCPOINT:  # SYNCPOINT_IF_PERSISTENT: now known
                self.svc.txn.check_room(self.svc.qmgr_def().max_uncommitted_msgs)
            return uow.owner, False
        return self.handle_id, True

    def _stats(self) -> str:
        """What a destructive claim records in the queue's statistics: MSGSOUT, and the
        last get time while monitoring is on (no round trip: both definitions cached)."""
        return MONITORED if self.svc.monitored(self.qdef) else COUNT

    def _stale(self, res) -> object | None:
        """Candidates whose lock outlived its owner: reconcile, then select again."""
        # The reconcile changed something: look again.
        if res.locked and self.state.stale_locks() and self.svc.reconcile(self.name) > 0:
            return RETRY
        return None

    def _remove(
        self, batch: list[Item], req: gr.GetRequest, max_length: int | None
    ) -> GetResult | None:
        reader, st = self.reader, self.state
        accept = bool(req.options & C.MQGMO_ACCEPT_TRUNCATED_MSG)
        if req.complete_msg:
            progressed = False
            for item in batch:
                segments = gr.complete_message(reader.view, item)
                if not segments:
                    continue
                segments, inconsistent = self._consistent(segments)
                total = sum(s.length for s in segments)
                if max_length is not None and total > max_length and not accept:
                    if st.peek([item.key], self.handle_id)[0] in _FREE_TO_ME:
                        raise self._truncated_failure(item, segments, req, max_length, inconsistent)
                    continue
                owner, consume = self._claimer(req, item)
                res = st.claim(
                    [s.key for s in segments],
                    owner,
                    consume=consume,
                    lease_ms=config.LEASE_MS,
                    all_or_nothing=True,
                    stats=self._stats(),
                )
                if res.index is None:
                    for i in res.gone:
                        reader.forget(segments[i].key)
                    if res.leased:  # another handle is about to get it: not overtaken
                        self._lease_blocked = True
                        break
                    progressed = progressed or bool(res.gone) or self._stale(res) is RETRY
                    continue
                return self._deliver(
                    item,
                    segments,
                    req,
                    max_length,
                    removed=True,
                    in_uow=not consume,
                    backout=res.backout,
                    inconsistent=inconsistent,
                )
            return RETRY if progressed else None
        # One claim takes the first free candidate; all of them must be removed the same
        # way (SYNCPOINT_IF_PERSISTENT decides per message), so the run stops at a change.
        owner, consume = self._claimer(req, batch[0])
        batch = [i for i in batch if gr.get_in_uow(req, i) == (not consume)] or batch[:1]
        # Messages that would be truncated without ACCEPT_TRUNCATED_MSG stay on the queue
        # (MQRC_TRUNCATED_MSG_FAILED): claim only up to the first of them.
        fits = batch
        too_big = None
        if max_length is not None and not accept:
            for i, item in enumerate(batch):
                if item.length > max_length:
                    fits, too_big = batch[:i], item
                    break
        if fits:
            res = st.claim(
                [i.key for i in fits],
                owner,
                consume=consume,
                lease_ms=config.LEASE_MS,
                stats=self._stats(),
            )
            for i in res.gone:
                reader.forget(fits[i].key)
            if res.index is not None:
                item = fits[res.index]
                if not consume and self._requeue_poison(item, res.backout):
                    return RETRY
                return self._deliver(
                    item,
                    [item],
                    req,
                    max_length,
                    removed=True,
                    in_uow=not consume,
                    backout=res.backout,
                )
            if res.gone:
                return RETRY  # others took these: the view changed, look again
            if self._stale(res) is RETRY:
                return RETRY
            self._lease_blocked = self._lease_blocked or res.leased
            if fits and not res.leased and len(batch) >= self._claim_batch:
                # Every one of a full batch is held by other units of work: look past
                # them, as MQ's MQGET does, instead of answering 2033 with free messages
                # behind them (each round passes a batch more, so this ends).
                self._pass(fits)
                return RETRY
        if too_big is not None and st.peek([too_big.key], self.handle_id)[0] in _FREE_TO_ME:
            raise self._truncated_failure(too_big, [too_big], req, max_length)
        return None

    def _pass(self, held: list[Item]) -> None:
        """Look past `held` for the rest of this call, with a batch twice as long."""
        self._passed.update(i.key for i in held)
        self._claim_batch = min(self._claim_batch * 2, _MAX_CLAIM_BATCH)

    def _forget_passed(self) -> None:
        self._passed.clear()
        self._claim_batch = config.CLAIM_BATCH

    def _requeue_poison(self, item: Item, backout: int) -> bool:
        """BOTHRESH / BOQNAME, as IBM MQ classes for JMS handle a poison message: one
        backed out that many times moves to the backout requeue queue, as it is; when
        there is none or it cannot take the message, it is discarded if its Report asks
        for MQRO_DISCARD_MSG, else it goes to the dead-letter queue with an MQDLH whose
        Reason is MQRC_BACKOUT_THRESHOLD_REACHED (2362), with an exception report if
        one was asked for (Feedback 2362) ("Handling poison messages in IBM MQ classes
        for JMS", https://www.ibm.com/docs/SSFKSJ_9.4.0/develop/q032280_.html; 2362,
        https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q043910_.html). All of it
        inside the getter's unit of work. False: nowhere can take it, so it stays and
        is delivered as usual (never lost)."""
        threshold = self.qdef.backout_threshold
        if threshold <= 0:
            return False
        count = self.reader.envelopes[item.key]["BackoutCount"] + backout
        if count < threshold:
            return False
        svc = self.svc
        env = dict(self.reader.envelopes[item.key], BackoutCount=count)
        boq = self.qdef.backout_requeue_q.strip()
        requeued = bool(boq) and boq != self.name and svc.dead_letters.refusal(boq, env) is None
        if requeued:
            svc.send(svc.dead_letters.to_queue(boq, env), in_uow=True, counted=False)
            if wants_coa(env["Report"], env["Format"]):  # JMS MQPUTs it there: it arrives
                svc.send(svc.reports.report(env, Kind.COA), in_uow=True)
        elif env["Report"] & C.MQRO_DISCARD_MSG:
            svc.dead_letters.counts.discarded += 1
            log.info("%s: a message backed out %d times was discarded (MQRO_DISCARD_MSG)",
                     self.name, count)  # fmt: skip
        else:
            dead = svc.dead_letters.put(env, C.MQRC_BACKOUT_THRESHOLD_REACHED, self.name)
            if dead is None:
                return False
            svc.send(dead, in_uow=True, counted=False)
        if not requeued and env["Report"] & C.MQRO_EXCEPTION:
            report = svc.reports.report(
                env, Kind.EXCEPTION, feedback=C.MQRC_BACKOUT_THRESHOLD_REACHED
            )
            svc.send(report, in_uow=True)
        svc.txn.hold(self.name, item, self.reader.envelopes[item.key], self.reader)
        self.reader.forget(item.key)
        return True

    def _confirm_delivery(self, env: dict, in_uow: bool) -> None:
        """MQRO_COD: the report on a message got destructively, in the get's unit of work
        (backed out with it) or at once (adapter/core/reports.py)."""
        if wants_cod(env["Report"], env["Format"]):
            self.svc.send(self.svc.reports.report(env, Kind.COD), in_uow)

    def _browse(
        self, batch: list[Item], req: gr.GetRequest, max_length: int | None
    ) -> GetResult | None:
        reader, st = self.reader, self.state
        statuses = st.peek([i.key for i in batch], self.handle_id)
        progressed = False
        for item, status in zip(batch, statuses, strict=True):
            if status == ClaimStatus.CONSUMED:
                reader.forget(item.key)
                progressed = True
                continue
            if status in (ClaimStatus.LOCKED, ClaimStatus.STALE):
                continue  # locked by another handle (or in its unit of work): invisible
            segments = gr.complete_message(reader.view, item) if req.complete_msg else [item]
            if not segments:
                continue
            segments, inconsistent = self._consistent(segments)
            if req.options & C.MQGMO_LOCK:
                self._unlock()
                res = st.claim(
                    [item.key], self.handle_id, consume=False, lease_ms=config.BROWSE_LOCK_MS
                )
                if res.index is None:
                    continue
                self._locked = item.key
            return self._deliver(
                item, segments, req, max_length, removed=False, inconsistent=inconsistent
            )
        if len(batch) >= self._claim_batch:
            # A full batch and nothing in it to show: look past all of it (as _remove
            # does; each round passes the whole batch, so this ends).
            self._pass(batch)
            return RETRY
        return RETRY if progressed else None

    def _unlock_call(self, opts: int) -> None:
        """MQGMO_UNLOCK: only NO_WAIT and NO_SYNCPOINT may stand beside it (2046); with
        no message locked it warns MQRC_NO_MSG_LOCKED (2209). Returns no message."""
        if opts & ~(C.MQGMO_UNLOCK | C.MQGMO_NO_SYNCPOINT | C.MQGMO_NO_WAIT):
            raise fail(C.MQRC_OPTIONS_ERROR)
        if self._locked is None:
            raise warning(C.MQRC_NO_MSG_LOCKED)
        self._unlock()

    def _unlock(self) -> None:
        if self._locked is not None:
            self.state.release([self._locked], self.handle_id)
            self._locked = None

    def _consistent(self, segments: list[Item]) -> tuple[list[Item], int | None]:
        """MQGMO_COMPLETE_MSG: the leading segments that share the first one's
        CodedCharSetId and Encoding, and MQRC_INCONSISTENT_CCSIDS (2243) /
        MQRC_INCONSISTENT_ENCODINGS (2244) when that is not all of them; the others stay
        on the queue (core/reassembly.py consistent_segments)."""
        envs = self.reader.envelopes
        n, reason = consistent_segments(
            [(envs[s.key]["CodedCharSetId"], envs[s.key]["Encoding"]) for s in segments]
        )
        return segments[:n], reason

    def _truncated_failure(
        self, item, segments, req, max_length, inconsistent: int | None = None
    ) -> MQMIError:
        result = self._deliver(
            item, segments, req, max_length, removed=False, move=False, inconsistent=inconsistent
        )
        err = MQMIError(
            C.MQCC_WARNING,
            C.MQRC_TRUNCATED_MSG_FAILED,
            message=result.data,
            original_length=result.original_length,
        )
        err.result = result
        return err

    def _deliver(
        self,
        item: Item,
        segments: list[Item],
        req: gr.GetRequest,
        max_length: int | None,
        *,
        removed: bool,
        move: bool = True,
        env: dict | None = None,
        in_uow: bool = False,
        backout: int = 0,
        inconsistent: int | None = None,
    ) -> GetResult:
        """`backout`: the BackoutCount Redis returned with the claim (added to the one
        the message carried when it was put, e.g. by a requeue). `inconsistent`: 2243 or
        2244 when `segments` are only the leading run of a logical message's segments
        (_consistent): the MQMD, GMO and cursors then describe that run as one segment
        that is not the last, the logical message left open for the rest."""
        reader = self.reader
        if removed and self.svc.monitored(self.qdef):  # QTIME: put to destructive get
            self.svc.pump.note_qtime(self.name, self.svc.clock.now_ms() - item.put_ms)
        if env is not None:  # from the read-ahead buffer: consumed and logged already
            if env["Report"] & C.MQRO_COD:
                self._confirm_delivery(env, in_uow)
            return self._result(item, env, env["Payload"], req, max_length, True, move, backout)
        env = reader.envelopes[item.key]
        data = (
            b"".join(reader.envelopes[s.key]["Payload"] for s in segments)
            if len(segments) > 1
            else env["Payload"]
        )
        if removed:
            for s in segments:
                s_env = reader.envelopes[s.key]
                if in_uow:  # its consumption commits with the unit of work
                    self.svc.txn.hold(self.name, s, s_env, reader)
                else:
                    self.svc.pump.record_ack(self.name, s.key)
                if s_env["Report"] & C.MQRO_COD:  # one report per physical message
                    self._confirm_delivery(s_env, in_uow)
                reader.forget(s.key)
            self._forgotten += len(segments)
        if inconsistent is not None:
            item = replace(item, length=sum(s.length for s in segments))
            req = replace(req, options=req.options & ~C.MQGMO_COMPLETE_MSG)
        return self._result(item, env, data, req, max_length, removed, move, backout, inconsistent)

    def _result(
        self,
        item: Item,
        env: dict,
        data: bytes,
        req: gr.GetRequest,
        max_length: int | None,
        removed: bool,
        move: bool,
        backout: int = 0,
        inconsistent: int | None = None,
    ) -> GetResult:
        if self._forgotten >= config.ADVANCE_EVERY:
            self._advance_watermarks()
        warning = None
        fmt, encoding, ccsid = env["Format"], env["Encoding"], env["CodedCharSetId"]
        packed = env.get("Properties", b"")
        props = None
        if packed:
            data, props, fmt, encoding, ccsid = self._deliver_properties(
                req, packed, data, fmt, encoding, ccsid
            )
        too_long = max_length is not None and len(data) > max_length
        if (
            req.options & C.MQGMO_CONVERT
            and max_length != 0
            and not (too_long and not req.options & C.MQGMO_ACCEPT_TRUNCATED_MSG)
        ):
            # Data conversion (core/convert.py); a message truncated without acceptance
            # is returned unconverted (2080), as IBM's conversion processing says.
            conv = convert(data, fmt, ccsid, encoding, req.ccsid, req.encoding)
            if (
                max_length is not None
                and len(conv.data) > max_length
                and not req.options & C.MQGMO_ACCEPT_TRUNCATED_MSG
            ):
                # It fitted before conversion, so it is gone from the queue: returned
                # unconverted with MQRC_CONVERTED_MSG_TOO_BIG (IBM: "Processing
                # conventions", 1; reason page q041810_).
                warning = C.MQRC_CONVERTED_MSG_TOO_BIG
            else:
                data, ccsid, encoding, warning = conv.data, conv.ccsid, conv.encoding, conv.reason
        original_length = len(data)
        if max_length is not None and len(data) > max_length:
            data = data[:max_length]
            # Accepted: a removed message, or a browse with MQGMO_ACCEPT_TRUNCATED_MSG (the
            # cursor moves on past it, MQRC_TRUNCATED_MSG_ACCEPTED as for a removing get).
            # A conversion's warning is the one MQ returns then.
            accepted = removed or bool(req.options & C.MQGMO_ACCEPT_TRUNCATED_MSG)
            truncated = C.MQRC_TRUNCATED_MSG_ACCEPTED if accepted else C.MQRC_TRUNCATED_MSG_FAILED
            warning = warning or truncated
        warning = warning or inconsistent  # 2243 / 2244: after conversion's and truncation's
        now = self.svc.clock.now_ms()
        md = {
            "MsgId": env["MsgId"],
            "CorrelId": env["CorrelId"],
            "GroupId": env["GroupId"],
            "MsgSeqNumber": env["MsgSeqNumber"],
            "Offset": env["Offset"],
            "MsgFlags": gr.returned_flags(item, req),
            "OriginalLength": env["OriginalLength"],
            "Persistence": env["Persistence"],
            "Priority": env["Priority"],
            "Expiry": exp.remaining_tenths(env["PutTimestamp"], env["Expiry"], now),
            "Format": pad_mqchar(fmt, 8),
            "CodedCharSetId": ccsid,
            "Encoding": encoding,
            "MsgType": env["MsgType"],
            "Report": env["Report"],
            "Feedback": env["Feedback"],
            "ReplyToQ": pad_mqchar(env["ReplyToQ"], 48),
            "ReplyToQMgr": pad_mqchar(env["ReplyToQMgr"], 48),
            "UserIdentifier": pad_mqchar(env["UserIdentifier"], 12),
            "AccountingToken": env["AccountingToken"],
            "ApplIdentityData": pad_mqchar(env["ApplIdentityData"], 32),
            "PutApplType": env["PutApplType"],
            "PutApplName": pad_mqchar(env["PutApplName"], 28),
            "ApplOriginData": pad_mqchar(env["ApplOriginData"], 4),
            "BackoutCount": env["BackoutCount"] + backout,
        }
        if _no_context(env):  # put with MQPMO_NO_CONTEXT: no origin context, no put time
            md["PutDate"], md["PutTime"] = _BLANK_DATE_TIME
        else:
            md["PutDate"], md["PutTime"] = put_date_time(env["PutTimestamp"])
        if self.options & C.MQOO_SAVE_ALL_CONTEXT:
            if removed:
                self.saved_context = {f: env[f] for f in SAVED_FIELDS}
            elif req.options & _BROWSING:  # a browse leaves no context to pass (2098)
                self.saved_context = None
        group_status, segment_status, segmentation = gr.gmo_status(item, req)
        gmo = {
            "GroupStatus": group_status,
            "SegmentStatus": segment_status,
            "Segmentation": segmentation,
            "ReturnedLength": len(data),
        }
        if move:
            browsing = req.browse or bool(req.options & C.MQGMO_BROWSE_MSG_UNDER_CURSOR)
            if browsing:
                self.browse_cursor = gr.advance(self.browse_cursor, item, req)
            else:
                table2 = gr.get_warning(self.get_cursor, req, item)
                if table2 is not None and warning is None:
                    warning = table2[1]
                self.get_cursor = gr.advance(self.get_cursor, item, req)
        return GetResult(data, md, gmo, warning, original_length, props)

    def _deliver_properties(
        self, req: GetRequest, packed: bytes, data: bytes, fmt: str, encoding: int, ccsid: int
    ) -> tuple[bytes, MessageProperties | None, str, int, int]:
        """The message's properties go to the GMO's message handle, into an MQRFH2 in
        front of the data, or nowhere (adapter/core/propctl.py). Returns the data, the
        properties for the handle (None: none go there) and the MQMD's Format, Encoding
        and CCSID."""
        try:
            props = propwire.unpack(packed)
        except propwire.PropertiesWireError:
            # Written by something else than this project: the message, without them.
            log.warning("%s: a message's properties are unreadable; delivered without", self.name)
            return data, None, fmt, encoding, ccsid
        how = propctl.delivery(
            req.options, req.msg_handle, self.qdef.property_control, (p.name for p in props)
        )
        if how is propctl.Delivery.HANDLE:
            return data, props, fmt, encoding, ccsid
        if how is propctl.Delivery.NONE:
            return data, None, fmt, encoding, ccsid
        merge = self.qdef.property_control != C.MQPROP_V6COMPAT  # V6COMPAT: MQRFH2 as put
        data, body_fmt, encoding, ccsid = propctl.insert_properties(
            props, data, fmt.encode(), encoding, ccsid, merge
        )
        return data, None, body_fmt.decode(), encoding, ccsid

    def _discard_expired(self, items: list[Item]) -> None:
        """Expired messages a get met: removed (outside any unit of work) and reported."""
        reader, st = self.reader, self.state
        self.lease.forget([i.key for i in items])  # a leased one is this handle's to discard
        for item in items:
            res = st.claim([item.key], self.handle_id, consume=True)
            if res.index is None:
                if res.gone:
                    reader.forget(item.key)
                continue
            env = reader.envelopes.get(item.key)
            self.svc.pump.record_ack(self.name, item.key)
            reader.forget(item.key)
            if env is not None:
                self.svc.report_expiry(env)

    def _advance_watermarks(self) -> None:
        self._forgotten = 0
        known = self.state.lows()
        lows = self.reader.low_watermarks()
        for ln, low in self.ahead.lowest().items():  # may still be given back at MQCLOSE
            lows[ln] = min(lows.get(ln, low), low)
        for ln, low in lows.items():
            if low > known.get(ln, 0):
                self.state.advance(ln, low)

    def close(self, gone: bool = False) -> tuple[int, int]:
        """MQCLOSE: Table 2's outcome for an unterminated logical get; locks released,
        read-ahead messages given back, watermarks raised (none of it once the queue is
        `gone`: its topics and state went with it)."""
        outcome = gr.close_outcome(self.get_cursor)
        if not gone:
            self._unlock()
            self.lease.release()
            self.ahead.give_back()
        if self._reader is not None:
            if self._forgotten and not gone:
                self._advance_watermarks()
            self._reader.close()
            self._reader = None
        return outcome
