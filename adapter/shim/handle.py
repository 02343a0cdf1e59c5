"""An open queue (MQOPEN handle): MQPUT and MQGET over Kafka and Redis, rules from the core.

The core decides (which GroupId/MsgSeqNumber/Offset a put uses, which messages a get
may return and in what order, the handle's group cursors); this shell writes envelopes
to the priority topics, mirrors them into a `QueueView`, and claims messages in Redis.
"""

from __future__ import annotations

import datetime as dt
import getpass
import os
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass

from mqk_avro import codec

from adapter.core import cmqc as C
from adapter.core import expiry as exp
from adapter.core import getrules as gr
from adapter.core.model import Item, id24
from adapter.core.putrules import PutCursor, close_outcome, plan_put
from adapter.core.segmentation import segment_message
from adapter.pymqi.errors import MQMIError
from adapter.pymqi.structs import mqchar, mqstr
from adapter.shim import naming
from adapter.shim.catalog import QueueDef
from adapter.shim.connection import BROKEN_AFTER_S, Connection
from adapter.shim.reader import QueueReader, cand_of, lane_of
from adapter.shim.state import NoEpochError
from adapter.shim.uow import LEASE_MS

# Candidates offered to one claim script call: enough to get past the messages other
# getters took since this handle last looked, without shipping the whole queue.
CLAIM_BATCH = 16
DEAD_LETTER_QUEUE = "SYSTEM.DEAD.LETTER.QUEUE"
# Read-ahead: non-persistent messages one claim call takes for the handle's buffer.
READ_AHEAD_BATCH = 256
# How often (consumed messages) a handle raises the low watermarks it can prove.
ADVANCE_EVERY = 512
# A get trusts a view this fresh; older, it first reads what was committed meanwhile
# (so a higher-priority message put just before the get is not overtaken).
STALE_VIEW_S = 0.1
# A depth estimate this far below MAXDEPTH is trusted without asking Redis.
DEPTH_MARGIN = 256

_SELECTIVE = (
    C.MQGMO_COMPLETE_MSG
    | C.MQGMO_ALL_MSGS_AVAILABLE
    | C.MQGMO_ALL_SEGMENTS_AVAILABLE
    | C.MQGMO_SYNCPOINT
    | C.MQGMO_LOCK
    | C.MQGMO_MSG_UNDER_CURSOR
)
_INPUT = C.MQOO_INPUT_AS_Q_DEF | C.MQOO_INPUT_SHARED | C.MQOO_INPUT_EXCLUSIVE
_USER = (getpass.getuser() or "")[:12]
_APPL_NAME = os.path.basename(sys.argv[0] or "python")[-28:]


_RETRY = object()  # a claim found candidates gone: the view changed, select again


def _fail(reason: int) -> MQMIError:
    return MQMIError(C.MQCC_FAILED, reason)


@dataclass
class GetResult:
    data: bytes
    md: dict  # MQMD fields to write into the caller's MD
    gmo: dict  # GMO output fields
    warning: int | None  # reason of an MQCC_WARNING completion
    original_length: int


class QueueHandle:
    """MQOPEN's object handle: put/get state and cursors of one open queue."""

    def __init__(self, conn: Connection, qdef: QueueDef, options: int) -> None:
        self.conn = conn
        self.qdef = qdef
        self.name = qdef.name
        self.options = options
        self.handle_id = conn.new_handle_id()
        self.state = conn.state(qdef.name)
        self.put_cursor = PutCursor()
        self.get_cursor = gr.GetCursor()
        self.browse_cursor = gr.GetCursor()
        self._reader: QueueReader | None = None
        self._locked: str | None = None  # candidate locked by BROWSE + MQGMO_LOCK
        self._forgotten = 0
        self._depth_cache = (0, 0.0)
        # MQOO_READ_AHEAD / DEFREADA: non-persistent messages consumed ahead of the gets.
        # As in MQ, they are never delivered twice and may be lost if the process dies.
        self.read_ahead = bool(options & C.MQOO_READ_AHEAD) or (
            qdef.def_read_ahead and not options & C.MQOO_NO_READ_AHEAD
        )
        self._ahead: deque[Item] = deque()
        self._buffered: dict = {}  # envelopes of the read-ahead buffer
        self._lock = threading.Lock()
        kinds = []
        if options & _INPUT:
            kinds.append("input")
        if options & C.MQOO_OUTPUT:
            kinds.append("output")
        if options & C.MQOO_BROWSE:
            kinds.append("browse")
        if kinds:
            self.state.register_open(self.handle_id, ",".join(kinds))

    # ------------------------------------------------------------------ put
    def _depth_estimate(self, n: int) -> int:
        value, at = self._depth_cache
        if time.monotonic() - at > 0.1:
            value = self.state.depth()
            self._depth_cache = (value, time.monotonic())
        # Counted but not yet in Redis, plus puts still in flight (len(producer): counted
        # on delivery), so a burst of async puts cannot overshoot MAXDEPTH.
        estimate = value + self.conn._depth_deltas.get(self.name, 0) + len(self.conn.producer)
        if estimate + n > self.qdef.max_depth - DEPTH_MARGIN:
            self.conn.barrier()  # near the limit: count exactly
            estimate = self.state.depth()
            self._depth_cache = (estimate, time.monotonic())
        return estimate

    def put(self, payload: bytes, md, pmo, *, put1: bool = False) -> int | None:
        """MQPUT. Fills the output fields of `md` on success; returns a warning reason or
        None. Raises MQMIError for failures."""
        opts = pmo.Options
        if not put1 and not self.options & C.MQOO_OUTPUT:
            raise _fail(C.MQRC_NOT_OPEN_FOR_OUTPUT)
        if opts & C.MQPMO_SYNCPOINT and opts & C.MQPMO_NO_SYNCPOINT:
            raise _fail(C.MQRC_OPTIONS_ERROR)
        if opts & C.MQPMO_ASYNC_RESPONSE and opts & C.MQPMO_SYNC_RESPONSE:
            raise _fail(C.MQRC_OPTIONS_ERROR)
        if self.qdef.put_inhibited:
            raise _fail(C.MQRC_PUT_INHIBITED)
        in_uow = bool(opts & C.MQPMO_SYNCPOINT)
        if in_uow:
            self.conn.txn.begin()  # MQRC_BACKED_OUT if the unit of work can no longer commit

        persistence = md.Persistence
        if persistence in (C.MQPER_PERSISTENCE_AS_Q_DEF, C.MQPER_PERSISTENCE_AS_PARENT):
            persistence = self.qdef.def_persistence
        elif persistence not in (C.MQPER_PERSISTENT, C.MQPER_NOT_PERSISTENT):
            raise _fail(C.MQRC_PERSISTENCE_ERROR)
        priority = md.Priority
        warning = None
        if priority == C.MQPRI_PRIORITY_AS_Q_DEF:
            priority = self.qdef.def_priority
        elif priority < 0:
            raise _fail(C.MQRC_PRIORITY_ERROR)
        elif priority > 9:
            warning = C.MQRC_PRIORITY_EXCEEDS_MAXIMUM  # accepted at the highest priority
        reason = exp.validate_expiry(md.Expiry)
        if reason is not None:
            raise _fail(reason)

        plan = plan_put(
            self.put_cursor,
            msg_flags=md.MsgFlags,
            group_id=md.GroupId,
            seq=md.MsgSeqNumber,
            offset=md.Offset,
            persistence=persistence,
            length=len(payload),
            md_version=md.Version,
            logical_order=bool(opts & C.MQPMO_LOGICAL_ORDER),
            in_uow=in_uow,
            put1=put1,
            new_group_id=self.conn.new_msg_id(),
        )
        if plan.comp == C.MQCC_FAILED:
            raise _fail(plan.reason)
        if plan.comp == C.MQCC_WARNING:
            warning = plan.reason

        # One physical message up to MAXMSGL; beyond it (or beyond the segment size,
        # when the application allows it) queue-manager segmentation.
        flags = plan.msg_flags
        limit = self.qdef.max_msg_length
        if flags & C.MQMF_SEGMENTATION_ALLOWED:
            limit = min(limit, self.qdef.segment_size)
        pieces = segment_message(flags, plan.offset, len(payload), limit)
        if pieces is None:
            raise _fail(C.MQRC_MSG_TOO_BIG_FOR_Q)
        if self._depth_estimate(len(pieces)) + len(pieces) > self.qdef.max_depth:
            raise _fail(C.MQRC_Q_FULL)

        msg_id = id24(md.MsgId)
        if opts & C.MQPMO_NEW_MSG_ID or msg_id == C.MQMI_NONE:
            msg_id = self.conn.new_msg_id()
        correl_id = self.conn.new_msg_id() if opts & C.MQPMO_NEW_CORREL_ID else id24(md.CorrelId)
        now_ms = int(time.time() * 1000)
        context = self._context(md, opts)
        base = {
            "CorrelId": correl_id,
            "GroupId": plan.group_id,
            "MsgSeqNumber": plan.seq,
            "OriginalLength": md.OriginalLength,
            "Persistence": persistence,
            "Priority": md.Priority if md.Priority >= 0 else priority,
            "Expiry": md.Expiry,
            "PutTimestamp": now_ms,
            "Format": mqstr(md.Format).ljust(8) if mqstr(md.Format) else C.MQFMT_NONE.decode(),
            "CodedCharSetId": md.CodedCharSetId,
            "Encoding": md.Encoding,
            "MsgType": md.MsgType,
            "Report": md.Report,
            "Feedback": md.Feedback,
            "ReplyToQ": mqstr(md.ReplyToQ),
            "ReplyToQMgr": mqstr(md.ReplyToQMgr) or (self.conn.qmgr if mqstr(md.ReplyToQ) else ""),
            "BackoutCount": 0,
            **context,
        }
        topic = naming.data_topic(self.conn.qmgr, self.name, min(priority, 9))
        key = plan.group_id if plan.group_id != C.MQGI_NONE else msg_id
        sync = bool(opts & C.MQPMO_SYNC_RESPONSE) or (
            not opts & C.MQPMO_ASYNC_RESPONSE and self.qdef.def_put_response != 2
        )
        self._produce(topic, key, payload, pieces, base, msg_id, sync and not in_uow, in_uow)

        self.put_cursor = plan.cursor
        if warning is not None:
            # pymqi raises before it unpacks the MD: a warned put leaves the MD as given.
            return warning
        md.MsgId = msg_id
        md.CorrelId = correl_id
        md.GroupId = plan.group_id
        md.MsgSeqNumber = plan.seq
        md.Offset = plan.offset
        stamp = dt.datetime.fromtimestamp(now_ms / 1000, dt.UTC)
        md.PutDate = stamp.strftime("%Y%m%d").encode()
        md.PutTime = (stamp.strftime("%H%M%S") + f"{stamp.microsecond // 10000:02d}").encode()
        for field in ("UserIdentifier", "ApplIdentityData", "PutApplName", "ApplOriginData"):
            md[field] = context[field].encode()
        md.PutApplType = context["PutApplType"]
        md.AccountingToken = context["AccountingToken"]
        return None

    def _context(self, md, opts: int) -> dict:
        """Identity and origin context: generated unless the application sets it."""
        if opts & C.MQPMO_NO_CONTEXT:
            return {
                "UserIdentifier": "",
                "AccountingToken": b"\0" * 32,
                "ApplIdentityData": "",
                "PutApplType": C.MQAT_NO_CONTEXT,
                "PutApplName": "",
                "ApplOriginData": "",
            }
        identity = opts & (C.MQPMO_SET_IDENTITY_CONTEXT | C.MQPMO_SET_ALL_CONTEXT)
        origin = opts & C.MQPMO_SET_ALL_CONTEXT
        return {
            "UserIdentifier": mqstr(md.UserIdentifier) if identity else _USER,
            "AccountingToken": bytes(md.AccountingToken).ljust(32, b"\0")[:32]
            if identity
            else b"\0" * 32,
            "ApplIdentityData": mqstr(md.ApplIdentityData) if identity else "",
            "PutApplType": md.PutApplType if origin else C.MQAT_UNIX,
            "PutApplName": mqstr(md.PutApplName) if origin else _APPL_NAME,
            "ApplOriginData": mqstr(md.ApplOriginData) if origin else "",
        }

    def _produce(self, topic, key, payload, pieces, base, msg_id, sync: bool, in_uow: bool) -> None:
        producer = self.conn.producer
        results: list = []
        view = memoryview(payload)
        cb = (lambda err, _msg: results.append(err)) if sync else self._async_delivery
        for i, piece in enumerate(pieces):
            env = dict(base)
            env["MsgId"] = msg_id if i == 0 else self.conn.new_msg_id()
            env["Offset"] = piece.offset
            env["MsgFlags"] = piece.flags
            env["Payload"] = bytes(view[piece.start : piece.start + piece.length])
            value = codec.encode(env)
            if in_uow:  # invisible to read_committed getters until the transaction commits
                self.conn.txn.produce(self.name, topic, key, value)
                continue
            while True:
                try:
                    producer.produce(topic, value=value, key=key, on_delivery=cb)
                    break
                except BufferError:  # local queue full: let deliveries drain
                    producer.poll(0.05)
        if sync:
            deadline = time.monotonic() + BROKEN_AFTER_S
            while len(results) < len(pieces):
                if time.monotonic() > deadline:
                    raise _fail(C.MQRC_CONNECTION_BROKEN)
                producer.poll(0.01)
            if any(err is not None for err in results):
                raise _fail(C.MQRC_CONNECTION_BROKEN)
        if not in_uow and sync:
            # Depth counts what is durably on the queue: a delivered put (async puts are
            # counted by their delivery report; syncpoint puts when the unit of work commits).
            self.conn.count_put(self.name, len(pieces))
            self.conn.flush_depth()

    def _async_delivery(self, err, msg) -> None:
        if err is not None:
            self.conn.async_errors.append(err)
        else:
            self.conn.count_put(self.name, 1)

    # ------------------------------------------------------------------ get
    @property
    def reader(self) -> QueueReader:
        if self._reader is None:
            self._reader = QueueReader(
                self.conn.consumer_conf(), self.conn.qmgr, self.qdef, self.state
            )
        return self._reader

    def get(self, max_length: int | None, md, gmo) -> GetResult:
        opts = gmo.Options
        req = gr.GetRequest(
            options=opts,
            match_options=gmo.MatchOptions,
            msg_id=id24(md.MsgId),
            correl_id=id24(md.CorrelId),
            group_id=id24(md.GroupId) if md.Version >= 2 else C.MQGI_NONE,
            seq=md.MsgSeqNumber if md.Version >= 2 else 1,
            offset=md.Offset if md.Version >= 2 else 0,
            gmo_version=gmo.Version,
            md_version=md.Version,
        )
        browsing = bool(
            opts & (C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT | C.MQGMO_BROWSE_MSG_UNDER_CURSOR)
        )
        if browsing and not self.options & C.MQOO_BROWSE:
            raise _fail(C.MQRC_NOT_OPEN_FOR_BROWSE)
        if not browsing and not self.options & _INPUT:
            raise _fail(C.MQRC_NOT_OPEN_FOR_INPUT)
        if not browsing and self.qdef.get_inhibited:
            raise _fail(C.MQRC_GET_INHIBITED)
        if opts & C.MQGMO_SYNCPOINT and not browsing:
            self.conn.txn.begin()  # MQRC_BACKED_OUT if the unit of work can no longer commit
        if opts & C.MQGMO_WAIT and gmo.WaitInterval < C.MQWI_UNLIMITED:
            raise _fail(C.MQRC_WAIT_INTERVAL_ERROR)
        if opts & C.MQGMO_UNLOCK:
            self._unlock()
            return None  # type: ignore[return-value]
        cursor = self.browse_cursor if browsing else self.get_cursor
        failure = gr.check_request(cursor, req)
        if failure is not None:
            raise MQMIError(*failure)
        if max_length is None and opts & C.MQGMO_ACCEPT_TRUNCATED_MSG:
            max_length = 0  # pymqi passes a zero-length buffer in that case
        reader = self.reader
        stale = time.monotonic() - reader.caught_up_at > STALE_VIEW_S
        if len(self.conn.producer) or self.conn.pending_puts:
            self.conn.barrier()  # this connection's own puts are visible to its gets
            stale = True
        wait_ms = gmo.WaitInterval if opts & C.MQGMO_WAIT else 0
        deadline = None if wait_ms == C.MQWI_UNLIMITED else time.monotonic() + wait_ms / 1000
        if stale:
            reader.catch_up(self.conn.admin)
        else:
            reader.pump(0)
        fresh = stale
        while True:
            result = self._attempt(req, browsing, max_length)
            while result is _RETRY:  # the view changed under the claim: select again
                result = self._attempt(req, browsing, max_length)
            if result is not None:
                return result
            if not fresh:
                # Nothing in the view: make sure nothing committed is still unread.
                reader.catch_up(self.conn.admin)
                fresh = True
                continue
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                if browsing:
                    self.browse_cursor = gr.no_message(self.browse_cursor, req)
                raise _fail(C.MQRC_NO_MSG_AVAILABLE)
            # Block in Kafka's fetch: a new record wakes us at once.
            reader.pump(min(0.05, remaining) if remaining is not None else 0.05)

    def _plain(self, req: gr.GetRequest, browsing: bool, max_length: int | None) -> bool:
        """A get read-ahead can serve: next message in physical order, no selection."""
        mo = req.match
        return (
            self.read_ahead
            and not browsing
            and max_length is None
            and not req.under_cursor
            and not req.logical
            and not req.options & _SELECTIVE
            and not (mo & C.MQMO_MATCH_MSG_ID and req.msg_id != C.MQMI_NONE)
            and not (mo & C.MQMO_MATCH_CORREL_ID and req.correl_id != C.MQCI_NONE)
            and not mo & (C.MQMO_MATCH_GROUP_ID | C.MQMO_MATCH_MSG_SEQ_NUMBER | C.MQMO_MATCH_OFFSET)
        )

    def _from_buffer(self, req: gr.GetRequest) -> GetResult | None:
        now = int(time.time() * 1000)
        while self._ahead:
            item = self._ahead.popleft()
            env = self._buffered.pop(item.key)
            if exp.is_expired(item.put_ms, item.expiry, now):
                if exp.wants_expiry_report(env["Report"]):
                    self.conn.put_report(
                        env, exp.expiry_report_fields(env, new_msg_id=self.conn.new_msg_id())
                    )
                continue
            return self._deliver(item, [item], req, None, removed=True, env=env)
        return None

    def _read_ahead(self, first: Item, req: gr.GetRequest) -> GetResult | None:
        """Consume a run of non-persistent messages in one call; deliver the first."""
        reader, st = self.reader, self.state
        run: list[Item] = []
        now = int(time.time() * 1000)
        for item in gr.candidates(reader.view, self.get_cursor, req):
            if item.persistence != C.MQPER_NOT_PERSISTENT or len(run) >= READ_AHEAD_BATCH:
                break
            if not exp.is_expired(item.put_ms, item.expiry, now):
                run.append(item)
        if not run or run[0] is not first:
            return None
        taken, gone = st.consume_many([cand_of(i.key) for i in run], self.handle_id)
        for i in gone:
            reader.forget(run[i].key)
        for i in taken:
            item = run[i]
            self.conn.record_ack(self.name, lane_of(item.key), item.key[2])
            self._buffered[item.key] = reader.envelopes[item.key]
            reader.forget(item.key)
            self._ahead.append(item)
        self._forgotten += len(taken)
        return self._from_buffer(req)

    def _attempt(
        self, req: gr.GetRequest, browsing: bool, max_length: int | None
    ) -> GetResult | None:
        plain = self._plain(req, browsing, max_length)
        if plain and self._ahead:
            result = self._from_buffer(req)
            if result is not None:
                return result
        reader = self.reader
        view = reader.view
        now = int(time.time() * 1000)
        # MSG_UNDER_CURSOR finds its message with the browse cursor.
        sel_cursor = self.browse_cursor if (browsing or req.under_cursor) else self.get_cursor
        batch: list[Item] = []
        expired: list[Item] = []
        first_error = None
        for item in gr.candidates(view, sel_cursor, req):
            if exp.is_expired(item.put_ms, item.expiry, now):
                expired.append(item)
                if len(expired) >= CLAIM_BATCH:
                    break
                continue
            failure = gr.check_item(item, sel_cursor, req)
            if failure is not None:
                if not batch:
                    first_error = failure
                break
            batch.append(item)
            if len(batch) >= CLAIM_BATCH:
                break
        if expired:
            self._discard_expired(expired)
            if not batch and first_error is None:
                return _RETRY
        if first_error is not None:
            raise MQMIError(*first_error)
        if not batch:
            if req.under_cursor:
                raise _fail(C.MQRC_NO_MSG_UNDER_CURSOR)
            return None
        try:
            if browsing:
                return self._browse(batch, req, max_length)
            if plain and batch[0].persistence == C.MQPER_NOT_PERSISTENT:
                result = self._read_ahead(batch[0], req)
                if result is not None:
                    return result
            return self._remove(batch, req, max_length)
        except NoEpochError:
            from adapter.shim.recovery import rebuild

            rebuild(self.conn, self.qdef)
            return _RETRY

    def _claimer(self, req: gr.GetRequest, item: Item) -> tuple[str, bool]:
        """(lock owner, consume now?) for removing `item`: under syncpoint the unit of
        work holds a leased lock until commit; outside it the message goes at once."""
        if gr.get_in_uow(req, item):
            return self.conn.txn.begin().owner, False
        return self.handle_id, True

    def _stale(self, res) -> object | None:
        """Candidates whose lock outlived its owner: reconcile, then select again."""
        if res.locked:
            from adapter.shim.reconcile import reconcile

            if reconcile(self.conn, self.name):
                return _RETRY
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
                total = sum(s.length for s in segments)
                if max_length is not None and total > max_length and not accept:
                    if st.peek([cand_of(item.key)], self.handle_id)[0] in (0, 3):
                        raise self._truncated_failure(item, segments, req, max_length)
                    continue
                owner, consume = self._claimer(req, item)
                res = st.claim(
                    [cand_of(s.key) for s in segments],
                    owner,
                    consume=consume,
                    lease_ms=LEASE_MS,
                    all_or_nothing=True,
                )
                if res.index is None:
                    for i in res.gone:
                        reader.forget(segments[i].key)
                    progressed = progressed or bool(res.gone) or self._stale(res) is _RETRY
                    continue
                return self._deliver(
                    item, segments, req, max_length, removed=True, in_uow=not consume
                )
            return _RETRY if progressed else None
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
                [cand_of(i.key) for i in fits], owner, consume=consume, lease_ms=LEASE_MS
            )
            for i in res.gone:
                reader.forget(fits[i].key)
            if res.index is not None:
                item = fits[res.index]
                if not consume and self._requeue_poison(item, owner):
                    return _RETRY
                return self._deliver(
                    item, [item], req, max_length, removed=True, in_uow=not consume
                )
            if res.gone:
                return _RETRY  # others took these: the view changed, look again
            if self._stale(res) is _RETRY:
                return _RETRY
        if too_big is not None and st.peek([cand_of(too_big.key)], self.handle_id)[0] in (0, 3):
            raise self._truncated_failure(too_big, [too_big], req, max_length)
        return None

    def _requeue_poison(self, item: Item, owner: str) -> bool:
        """BOTHRESH / BOQNAME: a message backed out that many times moves to the backout
        requeue queue (else SYSTEM.DEAD.LETTER.QUEUE, if defined) inside the same unit of
        work, so it cannot block the queue. False: deliver it as usual."""
        threshold = self.qdef.backout_threshold
        if threshold <= 0:
            return False
        cand = cand_of(item.key)
        count = self.reader.envelopes[item.key]["BackoutCount"] + self.state.backout_count(cand)
        if count < threshold:
            return False
        target = None
        for name in (self.qdef.backout_requeue_q, DEAD_LETTER_QUEUE):
            if name and name != self.name and self.conn.lookup_queue(name) is not None:
                target = name
                break
        if target is None:
            return False
        env = dict(self.reader.envelopes[item.key], BackoutCount=count)
        key = env["GroupId"] if env["GroupId"] != C.MQGI_NONE else env["MsgId"]
        topic = naming.data_topic(self.conn.qmgr, target, min(max(env["Priority"], 0), 9))
        self.conn.txn.produce(target, topic, key, codec.encode(env))
        self.conn.txn.hold(self, self.name, cand, item, self.reader.envelopes[item.key])
        self.reader.forget(item.key)
        return True

    def take_back(self, item: Item, env: dict) -> None:
        """MQBACK: a message this handle got under syncpoint is on the queue again, in
        its original position."""
        if self._reader is not None and item.key not in self._reader.envelopes:
            self._reader.envelopes[item.key] = env
            self._reader.view.add(item)

    def _browse(
        self, batch: list[Item], req: gr.GetRequest, max_length: int | None
    ) -> GetResult | None:
        reader, st = self.reader, self.state
        statuses = st.peek([cand_of(i.key) for i in batch], self.handle_id)
        progressed = False
        for item, status in zip(batch, statuses, strict=True):
            if status == 1:
                reader.forget(item.key)
                progressed = True
                continue
            if status in (2, 4):
                continue  # locked by another handle (or in its unit of work): invisible
            segments = gr.complete_message(reader.view, item) if req.complete_msg else [item]
            if not segments:
                continue
            if req.options & C.MQGMO_LOCK:
                self._unlock()
                res = st.claim([cand_of(item.key)], self.handle_id, consume=False, lease_ms=600_000)
                if res.index is None:
                    continue
                self._locked = cand_of(item.key)
            return self._deliver(item, segments, req, max_length, removed=False)
        return _RETRY if progressed else None

    def _unlock(self) -> None:
        if self._locked is not None:
            self.state.release([self._locked], self.handle_id)
            self._locked = None

    def _truncated_failure(self, item, segments, req, max_length) -> MQMIError:
        result = self._deliver(item, segments, req, max_length, removed=False, move=False)
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
    ) -> GetResult:
        reader = self.reader
        if env is not None:  # from the read-ahead buffer: consumed and logged already
            return self._result(item, env, env["Payload"], req, max_length, True, move)
        env = reader.envelopes[item.key]
        data = (
            b"".join(reader.envelopes[s.key]["Payload"] for s in segments)
            if len(segments) > 1
            else env["Payload"]
        )
        if removed:
            for s in segments:
                if in_uow:  # its consumption commits with the unit of work
                    self.conn.txn.hold(self, self.name, cand_of(s.key), s, reader.envelopes[s.key])
                else:
                    self.conn.record_ack(self.name, lane_of(s.key), s.key[2])
                reader.forget(s.key)
            self._forgotten += len(segments)
        return self._result(item, env, data, req, max_length, removed, move)

    def _result(
        self,
        item: Item,
        env: dict,
        data: bytes,
        req: gr.GetRequest,
        max_length: int | None,
        removed: bool,
        move: bool,
    ) -> GetResult:
        if self._forgotten >= ADVANCE_EVERY:
            self._advance_watermarks()
        warning = None
        original_length = len(data)
        if max_length is not None and len(data) > max_length:
            data = data[:max_length]
            warning = C.MQRC_TRUNCATED_MSG_ACCEPTED if removed else C.MQRC_TRUNCATED_MSG_FAILED
        now = int(time.time() * 1000)
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
            "Format": mqchar(env["Format"], 8),
            "CodedCharSetId": env["CodedCharSetId"],
            "Encoding": env["Encoding"],
            "MsgType": env["MsgType"],
            "Report": env["Report"],
            "Feedback": env["Feedback"],
            "ReplyToQ": mqchar(env["ReplyToQ"], 48),
            "ReplyToQMgr": mqchar(env["ReplyToQMgr"], 48),
            "UserIdentifier": mqchar(env["UserIdentifier"], 12),
            "AccountingToken": env["AccountingToken"],
            "ApplIdentityData": mqchar(env["ApplIdentityData"], 32),
            "PutApplType": env["PutApplType"],
            "PutApplName": mqchar(env["PutApplName"], 28),
            "ApplOriginData": mqchar(env["ApplOriginData"], 4),
            "BackoutCount": env["BackoutCount"] + self.state.backout_count(cand_of(item.key))
            if removed
            else env["BackoutCount"],
        }
        stamp = dt.datetime.fromtimestamp(env["PutTimestamp"] / 1000, dt.UTC)
        md["PutDate"] = stamp.strftime("%Y%m%d").encode()
        md["PutTime"] = (stamp.strftime("%H%M%S") + f"{stamp.microsecond // 10000:02d}").encode()
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
        return GetResult(data, md, gmo, warning, original_length)

    def _discard_expired(self, items: list[Item]) -> None:
        """Expired messages a get met: removed (outside any unit of work) and reported."""
        reader, st = self.reader, self.state
        for item in items:
            res = st.claim([cand_of(item.key)], self.handle_id, consume=True)
            if res.index is None:
                if res.gone:
                    reader.forget(item.key)
                continue
            env = reader.envelopes.get(item.key)
            self.conn.record_ack(self.name, lane_of(item.key), item.key[2])
            reader.forget(item.key)
            if env is not None and exp.wants_expiry_report(env["Report"]):
                self.conn.put_report(
                    env, exp.expiry_report_fields(env, new_msg_id=self.conn.new_msg_id())
                )

    def _give_back(self) -> None:
        """MQCLOSE with read-ahead messages the application never got: put them back.

        They were consumed from their old positions, and other handles' views have
        dropped them, so they return as new records (same MQMD, same put time, so expiry
        runs on) behind whatever arrived meanwhile: never lost, never delivered twice.
        """
        if not self._ahead:
            return
        for item in self._ahead:
            env = self._buffered[item.key]
            key = env["GroupId"] if env["GroupId"] != C.MQGI_NONE else env["MsgId"]
            topic = naming.data_topic(self.conn.qmgr, self.name, item.key[0])
            self.conn.producer.produce(topic, value=codec.encode(env), key=key)
        self.conn.count_put(self.name, len(self._ahead))
        self.conn.barrier()
        self._ahead.clear()
        self._buffered.clear()

    def _advance_watermarks(self) -> None:
        self._forgotten = 0
        known = self.state.lows()
        lows = self.reader.low_watermarks()
        for item in self._ahead:  # buffered messages may still be given back at MQCLOSE
            lane = lane_of(item.key)
            lows[lane] = min(lows.get(lane, item.key[2]), item.key[2])
        for lane, low in lows.items():
            if low > known.get(lane, 0):
                self.state.advance(lane, low)

    # ------------------------------------------------------------------ close
    def close(self) -> tuple[int, int]:
        """MQCLOSE: the Table 2 outcome for an unterminated group or logical message."""
        outcome = close_outcome(self.put_cursor)
        if outcome[0] == C.MQCC_OK:
            outcome = gr.close_outcome(self.get_cursor)
        self._unlock()
        self._give_back()
        if self._reader is not None:
            if self._forgotten:
                self._advance_watermarks()
            self._reader.close()
            self._reader = None
        self.state.unregister_open(self.handle_id)
        return outcome
