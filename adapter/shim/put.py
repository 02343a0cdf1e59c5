"""MQPUT on a queue handle: Table 1 through the rules core, segmentation, MAXDEPTH,
context, and the write to the priority topic (or into the unit of work)."""

from __future__ import annotations

import functools
import time

from mqk_avro import codec

from adapter.core import cmqc as C
from adapter.core import expiry as exp
from adapter.core.model import id24
from adapter.core.putrules import plan_put
from adapter.core.segmentation import segment_message
from adapter.pymqi.structs import mqstr
from adapter.shim.connection import BROKEN_AFTER_S
from adapter.shim.errors import fail
from adapter.shim.mdfields import DEFAULT_CONTEXT, put_date_time

# A depth estimate this far below MAXDEPTH is trusted without asking Redis.
DEPTH_MARGIN = 256

_CONTEXT_FIELDS = ("UserIdentifier", "ApplIdentityData", "PutApplName", "ApplOriginData")


@functools.lru_cache(maxsize=1024)
def _text(value: bytes | str) -> str:
    """mqstr, cached: the same formats and reply-to names recur on every put."""
    return mqstr(value)


def _md_context(context: dict) -> dict:
    """The context fields as they go back into the caller's MQMD."""
    out = {f: context[f].encode() for f in _CONTEXT_FIELDS}
    out["PutApplType"] = context["PutApplType"]
    out["AccountingToken"] = context["AccountingToken"]
    return out


_DEFAULT_MD_CONTEXT = _md_context(DEFAULT_CONTEXT)
_CONTEXT_OPTIONS = C.MQPMO_NO_CONTEXT | C.MQPMO_SET_IDENTITY_CONTEXT | C.MQPMO_SET_ALL_CONTEXT


class Putting:
    """The MQPUT half of QueueHandle (which supplies conn, qdef, name, state, options)."""

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
            raise fail(C.MQRC_NOT_OPEN_FOR_OUTPUT)
        if opts & C.MQPMO_SYNCPOINT and opts & C.MQPMO_NO_SYNCPOINT:
            raise fail(C.MQRC_OPTIONS_ERROR)
        if opts & C.MQPMO_ASYNC_RESPONSE and opts & C.MQPMO_SYNC_RESPONSE:
            raise fail(C.MQRC_OPTIONS_ERROR)
        if self.qdef.put_inhibited:
            raise fail(C.MQRC_PUT_INHIBITED)
        in_uow = bool(opts & C.MQPMO_SYNCPOINT)
        if in_uow:
            self.conn.txn.begin()  # MQRC_BACKED_OUT if the unit of work can no longer commit

        persistence = md.Persistence
        if persistence in (C.MQPER_PERSISTENCE_AS_Q_DEF, C.MQPER_PERSISTENCE_AS_PARENT):
            persistence = self.qdef.def_persistence
        elif persistence not in (C.MQPER_PERSISTENT, C.MQPER_NOT_PERSISTENT):
            raise fail(C.MQRC_PERSISTENCE_ERROR)
        priority = md.Priority
        warning = None
        if priority == C.MQPRI_PRIORITY_AS_Q_DEF:
            priority = self.qdef.def_priority
        elif priority < 0:
            raise fail(C.MQRC_PRIORITY_ERROR)
        elif priority > 9:
            warning = C.MQRC_PRIORITY_EXCEEDS_MAXIMUM  # accepted at the highest priority
        reason = exp.validate_expiry(md.Expiry)
        if reason is not None:
            raise fail(reason)

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
            # A GroupId is generated only for a group or segment: no id spent per put.
            new_group_id=self.conn.new_msg_id()
            if md.MsgFlags or opts & C.MQPMO_LOGICAL_ORDER
            else C.MQGI_NONE,
            msg_type=md.MsgType,
            original_length=md.OriginalLength,
        )
        if plan.comp == C.MQCC_FAILED:
            raise fail(plan.reason)
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
            raise fail(C.MQRC_MSG_TOO_BIG_FOR_Q)
        if self._depth_estimate(len(pieces)) + len(pieces) > self.qdef.max_depth:
            raise fail(C.MQRC_Q_FULL)

        msg_id = id24(md.MsgId)
        if opts & C.MQPMO_NEW_MSG_ID or msg_id == C.MQMI_NONE:
            msg_id = self.conn.new_msg_id()
        correl_id = self.conn.new_msg_id() if opts & C.MQPMO_NEW_CORREL_ID else id24(md.CorrelId)
        now_ms = int(time.time() * 1000)
        if opts & _CONTEXT_OPTIONS:
            context = self._context(md, opts)
            md_context = _md_context(context)
        else:
            context, md_context = DEFAULT_CONTEXT, _DEFAULT_MD_CONTEXT
        fmt = _text(md.Format)
        reply_q = _text(md.ReplyToQ)
        base = {
            "CorrelId": correl_id,
            "GroupId": plan.group_id,
            "MsgSeqNumber": plan.seq,
            "OriginalLength": md.OriginalLength,
            "Persistence": persistence,
            "Priority": md.Priority if md.Priority >= 0 else priority,
            "Expiry": md.Expiry,
            "PutTimestamp": now_ms,
            "Format": fmt.ljust(8) if fmt else C.MQFMT_NONE.decode(),
            "CodedCharSetId": md.CodedCharSetId,
            "Encoding": md.Encoding,
            "MsgType": md.MsgType,
            "Report": md.Report,
            "Feedback": md.Feedback,
            "ReplyToQ": reply_q,
            "ReplyToQMgr": _text(md.ReplyToQMgr) or (self.conn.qmgr if reply_q else ""),
            "BackoutCount": 0,
            **context,
        }
        topic = self._topics[min(priority, 9)]
        key = plan.group_id if plan.group_id != C.MQGI_NONE else msg_id
        sync = bool(opts & C.MQPMO_SYNC_RESPONSE) or (
            not opts & C.MQPMO_ASYNC_RESPONSE and self.qdef.def_put_response != 2
        )
        self._produce(topic, key, payload, pieces, base, msg_id, sync and not in_uow, in_uow)

        self.put_cursor = plan.cursor
        if warning is not None:
            # pymqi raises before it unpacks the MD: a warned put leaves the MD as given.
            return warning
        # Values built here at their MQ types and widths: straight into the MD, as the
        # get path does (pymqi's per-field coercion is for application input).
        put_date, put_time = put_date_time(now_ms)
        md.__dict__.update(
            MsgId=msg_id,
            CorrelId=correl_id,
            GroupId=plan.group_id,
            MsgSeqNumber=plan.seq,
            Offset=plan.offset,
            PutDate=put_date,
            PutTime=put_time,
            **md_context,
        )
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
        context = dict(DEFAULT_CONTEXT)
        if opts & (C.MQPMO_SET_IDENTITY_CONTEXT | C.MQPMO_SET_ALL_CONTEXT):
            context["UserIdentifier"] = mqstr(md.UserIdentifier)
            context["AccountingToken"] = bytes(md.AccountingToken).ljust(32, b"\0")[:32]
            context["ApplIdentityData"] = mqstr(md.ApplIdentityData)
        if opts & C.MQPMO_SET_ALL_CONTEXT:
            context["PutApplType"] = md.PutApplType
            context["PutApplName"] = mqstr(md.PutApplName)
            context["ApplOriginData"] = mqstr(md.ApplOriginData)
        return context

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
            if not sync:
                self.conn.put_sent()
            while True:
                try:
                    producer.produce(topic, value=value, key=key, on_delivery=cb)
                    break
                except BufferError:  # local queue full: let deliveries drain
                    producer.poll(0.05)
        if sync:
            # flush() sends at once (no linger) and serves the delivery reports.
            if not self.conn.wait_delivered(BROKEN_AFTER_S) or len(results) < len(pieces):
                raise fail(C.MQRC_CONNECTION_BROKEN)
            if any(err is not None for err in results):
                raise fail(C.MQRC_CONNECTION_BROKEN)
        if not in_uow and sync:
            # Depth counts what is durably on the queue: a delivered put (async puts are
            # counted by their delivery report; syncpoint puts when the unit of work commits).
            self.conn.count_put(self.name, len(pieces))
            self.conn.flush_depth()

    def _async_delivery(self, err, msg) -> None:
        self.conn.put_settled()
        if err is not None:
            self.conn.async_errors.append(err)
        else:
            self.conn.count_put(self.name, 1)

    # ------------------------------------------------------------------ get
