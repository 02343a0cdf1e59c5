"""MQPUT on a queue handle: Table 1 through the rules core, segmentation, MAXDEPTH,
context, an application's MQRFH2 (its property folders read as properties,
adapter/core/putprops.py), and the records sent to the priority topic (or into the unit
of work), with a COA report when the message asks for one (adapter/core/reports.py).

A blank ReplyToQMgr is stored as the name of this queue manager ("If you leave the
ReplyToQMgr field blank ... set to the name of the queue manager to which your
application is connected", <https://www.ibm.com/docs/en/SSFKSJ_9.3.0/develop/q023100_.html>;
MQMD ReplyToQMgr <https://www.ibm.com/docs/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q097670_.html>),
with or without a ReplyToQ; the field is an input field of MQPUT, so the caller's MQMD
keeps its blank."""

from __future__ import annotations

from collections.abc import Callable

from mqk_avro import codec

from adapter import config
from adapter.core import cmqc as C
from adapter.core import expiry as exp
from adapter.core import propwire, putprops, xqh
from adapter.core.calls import PutRequest, PutResult
from adapter.core.convert import QMGR_CCSID
from adapter.core.errors import fail
from adapter.core.mdrules import feedback_error, msg_type_error, reply_to_error, report_outcome
from adapter.core.mqheaders import header_error
from adapter.core.openrules import PUT_CONTEXT, put_context_error
from adapter.core.pcf import pcf_error
from adapter.core.putrules import PutCursor, close_outcome, plan_put, put_options_error
from adapter.core.qmgrrules import MIN_QMGR_MAX_MSG_LENGTH, msg_length_error
from adapter.core.reports import Kind, wants_coa
from adapter.core.resolution import RemoteRoute
from adapter.core.segmentation import segment_message
from adapter.core.text import mqstr
from adapter.shim import naming, records
from adapter.shim.catalog import QueueDef
from adapter.shim.context import (
    CONTEXT_OPTIONS,
    DEFAULT_CONTEXT,
    DEFAULT_MD_CONTEXT,
    md_context,
    put_context,
    put_date_time,
    put_timestamp,
)
from adapter.shim.services import Services
from adapter.shim.store import QueueState

_PASS = C.MQPMO_PASS_IDENTITY_CONTEXT | C.MQPMO_PASS_ALL_CONTEXT
_RFH2 = mqstr(C.MQFMT_RF_HEADER_2)
_APPLICATION_SEGMENT = C.MQMF_SEGMENT | C.MQMF_LAST_SEGMENT
_GROUPED = C.MQMF_MSG_IN_GROUP | C.MQMF_LAST_MSG_IN_GROUP


class Putter:
    """The MQPUT half of an open queue: its put cursor (group and segment state)."""

    def __init__(
        self,
        svc: Services,
        qdef: QueueDef,
        options: int,
        state: QueueState,
        remote: RemoteRoute | None = None,
    ) -> None:
        self.svc = svc
        self.remote = remote  # a remote queue's route: `qdef` is its transmission queue
        self.qdef = qdef
        self.name = qdef.name
        self.options = options
        self.state = state
        self.cursor = PutCursor()
        # Topic names escape MQ names character by character: once per handle, not per put.
        self._topics = [naming.data_topic(svc.qmgr, qdef.name, p) for p in naming.PRIORITIES]
        self._depth_cache = (0, -1e9, 0)  # the state's depth, when read, depth_mark
        self._monotonic = svc.clock.monotonic
        self._since = svc.pump.counted_since

    def depth_estimate(self, n: int) -> int:
        """The queue's depth for a put of `n` messages: the state's, read again after
        0.1 s, plus what this connection counted since that read (flushed to the state
        meanwhile or not) and its puts in flight, so its own burst of puts cannot
        overshoot MAXDEPTH; other connections' puts show within 0.1 s. Exact (every put
        of this connection on Kafka and counted) within DEPTH_MARGIN of MAXDEPTH. As MQ
        counts it, units of work are in it (their puts, less their gets): this
        connection's at once (UnitsOfWork.depth_change), the others' as their pumps
        published them (shim/uncommitted.py), so they cannot put past MAXDEPTH either."""
        value, at, mark = self._depth_cache
        now = self._monotonic()
        if now - at > 0.1:
            value, mark = self._read_depth(now)
        change = self.svc.txn.depth_change(self.name)
        estimate = value + self._since(self.name, mark) + change
        if estimate + n > self.qdef.max_depth - config.DEPTH_MARGIN:
            self.svc.pump.barrier()  # near the limit: count exactly
            value, mark = self._read_depth(self._monotonic())
            estimate = value + self._since(self.name, mark) + change
        return estimate

    def _read_depth(self, now: float) -> tuple[int, int]:
        mark = self.svc.pump.depth_mark(self.name)  # first: a flush after it counts twice
        value = self.state.depth_with_uncommitted(self.svc.txn.owner)
        self._depth_cache = (value, now, mark)
        return value, mark

    def put(
        self,
        req: PutRequest,
        payload: bytes,
        *,
        put1: bool = False,
        deliver: Callable[[list[records.Record]], None] | None = None,
    ) -> PutResult:
        """MQPUT / MQPUT1. Raises MQMIError for failures. `deliver`: the records are
        handed to it instead of being sent (a publication: shim/publish.py sends them
        with its copies in one transaction, and asks for no COA of its own)."""
        svc = self.svc
        opts = req.options
        if svc.closed:
            raise fail(C.MQRC_HCONN_ERROR)  # MQDISC ended the connection
        if not put1 and not self.options & C.MQOO_OUTPUT:
            raise fail(C.MQRC_NOT_OPEN_FOR_OUTPUT)
        reason = put_options_error(opts, put1=put1)
        if reason is not None:
            raise fail(reason)
        if opts & PUT_CONTEXT:  # which context, and may this handle give it
            reason = put_context_error(opts, self.options, put1=put1)
            if reason is not None:
                raise fail(reason)
        if self.qdef.put_inhibited:
            if self._async_response(opts):
                # As an MQ client's asynchronous put: the call completes, MQSTAT counts
                # the failure (with the queue) and the message is not put.
                svc.pump.refuse_async(self.name, C.MQRC_PUT_INHIBITED)
                return PutResult({})
            raise fail(C.MQRC_PUT_INHIBITED)
        in_uow = bool(opts & C.MQPMO_SYNCPOINT)
        if in_uow:
            svc.txn.begin()  # MQRC_BACKED_OUT if the unit of work can no longer commit

        persistence = req.persistence
        if persistence in (C.MQPER_PERSISTENCE_AS_Q_DEF, C.MQPER_PERSISTENCE_AS_PARENT):
            persistence = self.qdef.def_persistence
        elif persistence not in (C.MQPER_PERSISTENT, C.MQPER_NOT_PERSISTENT):
            raise fail(C.MQRC_PERSISTENCE_ERROR)
        if persistence == C.MQPER_PERSISTENT and self.qdef.is_temporary:
            # Given or taken from DEFPSIST: a temporary dynamic queue holds none (2048,
            # https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041190_.html).
            raise fail(C.MQRC_PERSISTENT_NOT_ALLOWED)
        priority = req.priority
        warning = None
        if priority == C.MQPRI_PRIORITY_AS_Q_DEF:
            priority = self.qdef.def_priority
        elif priority < 0:
            raise fail(C.MQRC_PRIORITY_ERROR)
        elif priority > 9:
            warning = C.MQRC_PRIORITY_EXCEEDS_MAXIMUM  # accepted at the highest priority
        reason = (
            exp.validate_expiry(req.expiry)
            or msg_type_error(req.msg_type)
            or feedback_error(req.feedback)
            or reply_to_error(req.msg_type, req.report, req.reply_to_q)
        )
        if reason is not None:
            raise fail(reason)
        report = report_outcome(req.report)
        if report is not None:
            if report[0] == C.MQCC_FAILED:
                raise fail(report[1])
            warning = warning or report[1]  # MQRC_UNKNOWN_REPORT_OPTION: the put goes on
        fmt, encoding, ccsid, properties = req.format, req.encoding, req.ccsid, req.properties
        read_rfh2 = fmt == _RFH2 and not req.msg_flags & _APPLICATION_SEGMENT
        # MAXMSGL is checked against what the application put (its BufferLength), MQRFH2
        # included, though the folders then travel as properties (IBM's 2030 page:
        # "check whether the BufferLength parameter is specified correctly").
        buffer_length = len(payload)
        if read_rfh2:  # only then: any other put pays one comparison
            payload, fmt, encoding, ccsid, properties = self._read_rfh2(req, payload)
        # An MQ header the Format names at the start of the data (a later segment of an
        # application's own segmenting starts with no header): 2141 / 2191 / 2220 / 2260;
        # a PCF message, 2149 / 2235-2239 / 2395 / 2414-2416 / 2422 (a first segment
        # that is not the last holds only the start of one), 2417 for trace-route in a group.
        if req.offset == 0:
            more = req.msg_flags & C.MQMF_SEGMENT and not req.msg_flags & C.MQMF_LAST_SEGMENT
            reason = header_error(fmt, payload, encoding) or pcf_error(
                fmt, payload, encoding, whole=not more, in_group=bool(req.msg_flags & _GROUPED)
            )
            if reason is not None:
                raise fail(reason)

        plan = plan_put(
            self.cursor,
            msg_flags=req.msg_flags,
            group_id=req.group_id,
            seq=req.seq,
            offset=req.offset,
            persistence=persistence,
            length=len(payload),
            md_version=req.md_version,
            logical_order=bool(opts & C.MQPMO_LOGICAL_ORDER),
            in_uow=in_uow,
            put1=put1,
            # A GroupId is generated only for a group or segment: no id spent per put.
            new_group_id=svc.new_msg_id()
            if req.msg_flags or opts & C.MQPMO_LOGICAL_ORDER
            else C.MQGI_NONE,
            msg_type=req.msg_type,
            original_length=req.original_length,
        )
        if plan.comp == C.MQCC_FAILED:
            raise fail(plan.reason)
        if plan.comp == C.MQCC_WARNING:
            warning = plan.reason

        # One physical message up to MAXMSGL; beyond it (or beyond the segment size,
        # when the application allows it) queue-manager segmentation.
        # The queue manager's MAXMSGL too (never under 32 KiB: no lookup below that).
        flags = plan.msg_flags
        length = len(payload)
        qmgr_max = (
            svc.qmgr_def().max_msg_length
            if buffer_length > MIN_QMGR_MAX_MSG_LENGTH
            else buffer_length
        )
        limit = min(self.qdef.max_msg_length, qmgr_max)
        if flags & C.MQMF_SEGMENTATION_ALLOWED:
            limit = min(limit, self.qdef.segment_size)
        elif buffer_length > limit:  # the MQRFH2's folders made it too long
            raise fail(msg_length_error(buffer_length, self.qdef.max_msg_length, qmgr_max))
        pieces = segment_message(flags, plan.offset, length, limit)
        if pieces is None:
            raise fail(
                msg_length_error(length, self.qdef.max_msg_length, qmgr_max)
                or C.MQRC_MSG_TOO_BIG_FOR_Q  # segments under the 16-byte minimum
            )
        if self.depth_estimate(len(pieces)) + len(pieces) > self.qdef.max_depth:
            raise fail(C.MQRC_Q_FULL)
        if in_uow:  # one uncommitted message, however many segments (MAXUMSGS)
            svc.txn.check_room(svc.qmgr_def().max_uncommitted_msgs)
        if self._topics[min(priority, 9)] in svc.disk.blocked:
            # Its broker's log directory is nearly full (shim/diskguard.py): 2056, as MQ
            # answers a put it has no disk space for; an asynchronous put learns it from
            # MQSTAT, as for PUT(DISABLED).
            if self._async_response(opts):
                svc.pump.refuse_async(self.name, C.MQRC_Q_SPACE_NOT_AVAILABLE)
                return PutResult({})
            raise fail(C.MQRC_Q_SPACE_NOT_AVAILABLE)

        msg_id = req.msg_id
        if opts & C.MQPMO_NEW_MSG_ID or msg_id == C.MQMI_NONE:
            msg_id = svc.new_msg_id()
        correl_id = svc.new_msg_id() if opts & C.MQPMO_NEW_CORREL_ID else req.correl_id
        now_ms = arrived_ms = svc.clock.now_ms()
        if opts & CONTEXT_OPTIONS:
            saved = svc.saved_context(req.context_handle) if opts & _PASS else None
            context = put_context(opts, req.context, saved)
            back_context = md_context(context)
            now_ms = put_timestamp(opts, req.context, saved, now_ms)
        else:
            context, back_context = DEFAULT_CONTEXT, DEFAULT_MD_CONTEXT
        expiry = req.expiry
        if now_ms != arrived_ms and expiry > 0:
            # A put time the application set (or passed) is kept, but the lifetime still
            # runs from the real put: counted from the kept time, it is lengthened by the
            # difference, which every reader (MQGET, the Spark job) then subtracts.
            expiry = exp.lifetime_from(arrived_ms, now_ms, expiry)
            if expiry is None:  # the kept time is too far off to express: use the real one
                now_ms, expiry = arrived_ms, req.expiry
        reply_q = req.reply_to_q
        fields = {
            "CorrelId": correl_id,
            "OriginalLength": req.original_length,
            "Persistence": persistence,
            "Priority": req.priority if req.priority >= 0 else priority,
            "Expiry": expiry,
            "PutTimestamp": now_ms,
            "Format": fmt.ljust(8) if fmt else C.MQFMT_NONE.decode(),
            # MQCCSI_Q_MGR becomes the queue manager's CCSID, so MQGET never returns it
            # (MQMD CodedCharSetId, MQPUT).
            "CodedCharSetId": QMGR_CCSID if ccsid == C.MQCCSI_Q_MGR else ccsid,
            "Encoding": encoding,
            "MsgType": req.msg_type,
            "Report": req.report,
            "Feedback": req.feedback,
            "ReplyToQ": reply_q,
            # Blank: this queue manager, whether or not a ReplyToQ is given (IBM,
            # "Reply-to queue and queue manager"; the MQMD passed is not updated).
            "ReplyToQMgr": req.reply_to_qmgr or svc.qmgr,
            "BackoutCount": 0,
            "Properties": properties,
        }
        topic = self._topics[min(priority, 9)]
        out = records.build(topic, plan, pieces, fields, context, payload, msg_id, svc.new_msg_id)
        if self.remote is not None:
            out = self._for_transmission(out)
        if svc.monitored(self.qdef):  # LPUTDATE / LPUTTIME, flushed with the depth
            svc.pump.note_put(self.name, arrived_ms)
        if deliver is not None:
            deliver(out)
        elif in_uow:  # invisible to read_committed getters until the transaction commits
            svc.txn.put(self.name, out)
        elif self._async_response(opts):
            svc.pump.send_async(self.name, out)
        else:
            svc.pump.send_sync(self.name, out)
        # A message for a remote queue arrives at its destination later: the COA is
        # the destination queue manager's (the transmission message asks for none).
        coa = deliver is None and self.remote is None and req.report & C.MQRO_COA
        if coa and wants_coa(req.report, fields["Format"]):
            self._confirm_arrival(out, in_uow)
        self.cursor = plan.cursor
        if warning is not None:
            # pymqi raises before it unpacks the MD: a warned put leaves the MD as given.
            return PutResult(None, warning, properties if read_rfh2 else None)
        if opts & C.MQPMO_NO_CONTEXT:  # no origin context: no put time either
            put_date = put_time = b" " * 8
        else:
            put_date, put_time = put_date_time(now_ms)
        return PutResult(
            {
                **back_context,
                "MsgId": msg_id,
                "CorrelId": correl_id,
                "GroupId": plan.group_id,
                "MsgSeqNumber": plan.seq,
                "Offset": plan.offset,
                "PutDate": put_date,
                "PutTime": put_time,
            },
            properties=properties if read_rfh2 else None,
        )

    def _read_rfh2(self, req: PutRequest, payload: bytes) -> tuple[bytes, str, int, int, bytes]:
        """An application's MQRFH2 chain (adapter/core/putprops.py): checked (2334), and
        its property folders made the message's properties, except on a V6COMPAT queue."""
        api = propwire.unpack(req.properties) if req.properties else None
        got = putprops.read_rfh2_on_put(
            payload,
            req.encoding,
            req.ccsid,
            api,
            read_folders=self.qdef.property_control != C.MQPROP_V6COMPAT,
        )
        props = propwire.pack(got.properties)
        return got.data, mqstr(got.format), got.encoding, got.ccsid, props

    def _for_transmission(self, out: list[records.Record]) -> list[records.Record]:
        """Each physical message as the transmission queue holds it: its data behind an
        MQXQH (and an MQMDE for version-2 fields), under the separate descriptor
        (adapter/core/xqh.py), on the topic of its own priority."""
        svc, route = self.svc, self.remote
        assert route is not None
        wrapped = []
        for topic, _key, value, _headers in out:
            env = codec.decode(value)
            date, time_ = put_date_time(env["PutTimestamp"])
            data = xqh.wrap(env, route.remote_q, route.remote_qmgr, date, time_)
            separate = xqh.separate_descriptor(
                env, svc.qmgr, svc.new_msg_id(), svc.clock.now_ms(), QMGR_CCSID
            )
            separate.update(Payload=data, Properties=env.get("Properties", b""))
            wrapped.append(records.resend(topic, separate))
        return wrapped

    def _confirm_arrival(self, out: list[records.Record], in_uow: bool) -> None:
        """MQRO_COA: a report for each physical message now on the queue, read back from
        its own record so it reports exactly what was stored; in the put's unit of work
        when it has one (the report then appears only if the put commits)."""
        svc = self.svc
        for _topic, _key, value, _headers in out:
            svc.send(svc.reports.report(codec.decode(value), Kind.COA), in_uow)

    def _async_response(self, opts: int) -> bool:
        """Whether a put outside syncpoint returns before the queue manager has it:
        MQPMO_ASYNC_RESPONSE, or DEFPRESP(ASYNC) unless MQPMO_SYNC_RESPONSE."""
        if opts & (C.MQPMO_SYNCPOINT | C.MQPMO_SYNC_RESPONSE):
            return False
        return bool(opts & C.MQPMO_ASYNC_RESPONSE) or self.qdef.def_put_response == 2

    def close(self) -> tuple[int, int]:
        """MQCLOSE's Table 2 outcome for an unterminated group or logical message."""
        return close_outcome(self.cursor)
