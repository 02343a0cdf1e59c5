"""MQPUT of a run of complete messages to one open queue: a receiving MCA's puts.

A channel's receiving end puts every message of a batch as it was put at the sending
queue manager: a complete MQMD (context included: MQPMO_SET_ALL_CONTEXT), its data and
its properties. Through `Putter.put` each of those pays, per message, what a run shares:
the handle's checks (open options, PMO options, context authority, put inhibition, the
definition and run state), the queue manager's and the queue's attributes, the depth
estimate. Here they are asked once for the run, and a *plain* message (no group or
segment, no MQ header or PCF format to check, no COA to generate, within MAXMSGL, no
warning to give) becomes its record straight from its descriptor, as `Putter.put` makes
it (`records.build`'s single physical message: same envelope, key and headers; a unit
test holds the two paths to the same records). Every other message goes through
`Putter.put` itself. MQ's rules for the destination apply to every message as MQPUT
applies them: put inhibition (2051), a persistent message on a temporary dynamic queue
(2048), MAXDEPTH (2053, counted as Putter counts), MAXUMSGS (2024), a nearly full broker
disk (2056, shim/diskguard.py), and each refusal is
that message's outcome, not the run's ("MQPUT", https://www.ibm.com/docs/en/SSFKSJ_9.4.0/refdev/q101920_.html;
the receiving MCA dead-letters what its destination refuses: receiver.py).
"""

from __future__ import annotations

from adapter import config
from adapter.core import cmqc as C
from adapter.core import expiry as exp
from adapter.core.calls import PutRequest
from adapter.core.convert import QMGR_CCSID
from adapter.core.errors import MQMIError, fail
from adapter.core.mdrules import feedback_error, msg_type_error, reply_to_error, report_outcome
from adapter.core.mqheaders import header_error
from adapter.core.openrules import put_context_error
from adapter.core.pcf import pcf_error
from adapter.core.putrules import plan_put, put_options_error
from adapter.core.text import mqstr
from adapter.shim import naming, records
from adapter.shim.context import put_context, put_timestamp
from adapter.shim.put import Putter

# The options of a run's puts: one syncpoint option, all context set, and quiescing.
_RUN_OPTIONS = (
    C.MQPMO_SYNCPOINT | C.MQPMO_NO_SYNCPOINT | C.MQPMO_SET_ALL_CONTEXT | C.MQPMO_FAIL_IF_QUIESCING
)
_RFH2 = mqstr(C.MQFMT_RF_HEADER_2)
_NONE_FORMAT = C.MQFMT_NONE.decode()


def put_run(putter: Putter, items: list[tuple[PutRequest, bytes]]) -> list[MQMIError | None]:
    """Put `items` (request, data) in order through `putter` (its handle's definition
    made current by the caller); for each, None (put: with a warning, as MQPUT completes
    then) or the MQMIError its MQPUT failed with. A failure that is no single message's
    (the connection, the unit of work: MQRC_BACKED_OUT) is raised."""
    if not items:
        return []
    if not _runs(putter, items):
        return [_one(putter, req, data) for req, data in items]
    svc, qdef = putter.svc, putter.qdef
    if svc.closed:
        raise fail(C.MQRC_HCONN_ERROR)
    if not putter.options & C.MQOO_OUTPUT:
        raise fail(C.MQRC_NOT_OPEN_FOR_OUTPUT)
    opts = items[0][0].options
    reason = put_options_error(opts, put1=False) or put_context_error(opts, putter.options)
    if reason is not None:
        raise fail(reason)
    if qdef.put_inhibited:  # 2051, or for an asynchronous put MQSTAT's: as MQPUT does
        return [_one(putter, req, data) for req, data in items]
    in_uow = bool(opts & C.MQPMO_SYNCPOINT)
    if in_uow:
        svc.txn.begin()  # MQRC_BACKED_OUT if the unit of work can no longer commit
    qmgr_def = svc.qmgr_def()
    max_length = min(qdef.max_msg_length, qmgr_def.max_msg_length)
    monitored = svc.monitored(qdef)
    # MAXDEPTH as Putter.put estimates it (depth_estimate: the state's depth read
    # within 0.1 s, what this connection counted since, puts in flight, its unit of
    # work's puts less its gets), once for the run plus the run's own puts, and exactly
    # (every put on Kafka and counted) near the limit.
    depth = putter.depth_estimate(len(items))
    topics = [naming.data_topic(svc.qmgr, putter.name, p) for p in naming.PRIORITIES]
    out: list[MQMIError | None] = []
    for req, data in items:
        if not _plain(req, data, max_length):
            out.append(_one(putter, req, data))
            continue
        if req.persistence == C.MQPER_PERSISTENT and qdef.is_temporary:
            out.append(fail(C.MQRC_PERSISTENT_NOT_ALLOWED))
            continue
        if depth + 1 > qdef.max_depth - config.DEPTH_MARGIN:
            depth = putter.depth_estimate(1)  # exact near the limit
        if depth + 1 > qdef.max_depth:
            out.append(fail(C.MQRC_Q_FULL))
            continue
        if in_uow:
            try:  # one uncommitted message (MAXUMSGS)
                svc.txn.check_room(qmgr_def.max_uncommitted_msgs)
            except MQMIError as err:
                out.append(err)
                continue
        if topics[req.priority] in svc.disk.blocked:
            # Its broker's disk is nearly full (shim/diskguard.py): Putter.put answers
            # 2056 (or, for an asynchronous put, tells MQSTAT) as MQPUT would.
            out.append(_one(putter, req, data))
            continue
        outcome = _plain_put(putter, req, data, topics, in_uow, monitored)
        if outcome is None:
            depth += 1
        out.append(outcome)
    return out


def _runs(putter: Putter, items: list[tuple[PutRequest, bytes]]) -> bool:
    """The run's puts share the options it serves, and the handle puts locally (a
    remote route wraps each message in an MQXQH: Putter.put)."""
    opts = items[0][0].options
    return (
        putter.remote is None
        and not opts & ~_RUN_OPTIONS
        and bool(opts & C.MQPMO_SET_ALL_CONTEXT)
        and all(req.options == opts for req, _ in items)
    )


def _one(putter: Putter, req: PutRequest, data: bytes) -> MQMIError | None:
    try:
        putter.put(req, data)
    except MQMIError as err:
        if err.comp != C.MQCC_FAILED or err.reason == C.MQRC_BACKED_OUT:
            raise
        return err
    return None


def _plain(req: PutRequest, data: bytes, max_length: int) -> bool:
    """A message Putter.put would store as one physical message with no warning, no
    header to read or check and no report to generate."""
    fmt = req.format
    return (
        req.msg_flags == C.MQMF_NONE
        and req.context is not None
        and req.persistence in (C.MQPER_NOT_PERSISTENT, C.MQPER_PERSISTENT)
        and 0 <= req.priority <= 9
        and len(data) <= max_length
        and not req.report & C.MQRO_COA
        and fmt != _RFH2
        and exp.validate_expiry(req.expiry) is None
        and msg_type_error(req.msg_type) is None
        and feedback_error(req.feedback) is None
        and reply_to_error(req.msg_type, req.report, req.reply_to_q) is None
        and report_outcome(req.report) is None
        and header_error(fmt, data, req.encoding) is None
        and pcf_error(fmt, data, req.encoding) is None
    )


def _plain_put(
    putter: Putter,
    req: PutRequest,
    data: bytes,
    topics: list[str],
    in_uow: bool,
    monitored: bool,
) -> MQMIError | None:
    """One plain message: its record as Putter.put builds it, sent the same way."""
    svc = putter.svc
    opts = req.options
    plan = plan_put(
        putter.cursor,
        msg_flags=req.msg_flags,
        group_id=req.group_id,
        seq=req.seq,
        offset=req.offset,
        persistence=req.persistence,
        length=len(data),
        md_version=req.md_version,
        logical_order=False,
        in_uow=in_uow,
        new_group_id=C.MQGI_NONE,
        msg_type=req.msg_type,
        original_length=req.original_length,
    )
    if plan.comp != C.MQCC_OK:  # Table 2 has something to say: as MQPUT says it
        return _one(putter, req, data)
    msg_id = req.msg_id if req.msg_id != C.MQMI_NONE else svc.new_msg_id()
    now_ms = arrived_ms = svc.clock.now_ms()
    context = put_context(opts, req.context, None)
    now_ms = put_timestamp(opts, req.context, None, now_ms)
    expiry = req.expiry
    if now_ms != arrived_ms and expiry > 0:  # the kept put time: Putter.put's rule
        expiry = exp.lifetime_from(arrived_ms, now_ms, expiry)
        if expiry is None:
            now_ms, expiry = arrived_ms, req.expiry
    fmt, ccsid = req.format, req.ccsid
    env = {
        "CorrelId": req.correl_id,
        "OriginalLength": req.original_length,
        "Persistence": req.persistence,
        "Priority": req.priority,
        "Expiry": expiry,
        "PutTimestamp": now_ms,
        "Format": fmt.ljust(8) if fmt else _NONE_FORMAT,
        "CodedCharSetId": QMGR_CCSID if ccsid == C.MQCCSI_Q_MGR else ccsid,
        "Encoding": req.encoding,
        "MsgType": req.msg_type,
        "Report": req.report,
        "Feedback": req.feedback,
        "ReplyToQ": req.reply_to_q,
        "ReplyToQMgr": req.reply_to_qmgr or svc.qmgr,
        "BackoutCount": 0,
        "Properties": req.properties,
        "GroupId": plan.group_id,
        "MsgSeqNumber": plan.seq,
        **context,
        "MsgId": msg_id,
        "Offset": plan.offset,
        "MsgFlags": plan.msg_flags,
        "Payload": data,
    }
    out = [records.resend(topics[req.priority], env)]
    if monitored:  # LPUTDATE / LPUTTIME, flushed with the depth
        svc.pump.note_put(putter.name, arrived_ms)
    if in_uow:
        svc.txn.put(putter.name, out)
    elif _async_response(putter, opts):
        svc.pump.send_async(putter.name, out)
    else:
        svc.pump.send_sync(putter.name, out)
    putter.cursor = plan.cursor
    return None


def _async_response(putter: Putter, opts: int) -> bool:
    """Putter._async_response's rule for the run's options (no ASYNC / SYNC_RESPONSE
    among them): the queue's DEFPRESP."""
    return not opts & C.MQPMO_SYNCPOINT and putter.qdef.def_put_response == 2
