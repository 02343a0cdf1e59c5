"""Report messages (MQRO_EXPIRATION*): built by MQPUT's own rules and record builder.

A discarded expired message that asked for an expiration report gets one on its
ReplyToQ. The report is planned like any put (Table 1 through plan_put, segmentation
through segment_message, records through records.build) and returned as records, so
the caller decides how they travel: a get's discard sends them at once, outside any unit
of work; the Spark job places them in the transaction of its micro-batch, so a report
is put exactly once even when the job dies between two systems.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from adapter.core import cmqc as C
from adapter.core import expiry as exp
from adapter.core.model import normalise_flags
from adapter.core.putrules import PutCursor, plan_put
from adapter.core.segmentation import segment_message
from adapter.shim import naming, records
from adapter.shim.catalog import QueueDef
from adapter.shim.context import DEFAULT_CONTEXT


def expiry_report(
    original: dict[str, Any],
    qmgr: str,
    lookup: Callable[[str], QueueDef | None],
    new_msg_id: Callable[[], bytes],
    now_ms: int,
) -> tuple[str, list[records.Record]]:
    """(reply queue, records) of the expiration report `original` (an envelope) asked
    for; no records when it asked for none or its ReplyToQ is not a queue of this queue
    manager (MQ would route the report to a dead-letter queue this queue manager does
    not have)."""
    if not exp.wants_expiry_report(original["Report"]):
        return "", []
    reply_q = original.get("ReplyToQ", "").strip()
    reply_qm = original.get("ReplyToQMgr", "").strip()
    if not reply_q or (reply_qm and reply_qm != qmgr):
        return "", []
    qdef = lookup(reply_q)
    if qdef is None:
        return "", []
    fields = exp.expiry_report_fields(original, new_msg_id=new_msg_id())
    data = exp.report_data(original["Payload"], original["Report"])
    plan = plan_put(
        PutCursor(),
        msg_flags=fields["MsgFlags"],
        group_id=fields["GroupId"],
        seq=fields["MsgSeqNumber"],
        offset=fields["Offset"],
        persistence=fields["Persistence"],
        length=len(data),
        md_version=C.MQMD_VERSION_2,
        logical_order=False,
        in_uow=False,
        put1=True,
        new_group_id=new_msg_id(),
    )
    if plan.comp == C.MQCC_FAILED and plan.reason == C.MQRC_SEGMENT_LENGTH_ZERO:
        # A report on a segment may carry no data: its OriginalLength (> 0) says how
        # long the segment was (MQMD OriginalLength). plan_put does not know MsgType,
        # so use what Table 1's 'values in field' rows would: the fields as given.
        plan = replace(
            plan,
            comp=C.MQCC_OK,
            reason=C.MQRC_NONE,
            msg_flags=normalise_flags(fields["MsgFlags"]),
        )
    if plan.comp == C.MQCC_FAILED:
        return reply_q, []
    limit = (
        qdef.segment_size if plan.msg_flags & C.MQMF_SEGMENTATION_ALLOWED else qdef.max_msg_length
    )
    pieces = segment_message(plan.msg_flags, plan.offset, len(data), limit)
    if pieces is None:
        return reply_q, []  # too big for the reply queue: MQ would dead-letter it
    msg_id = fields["MsgId"] if fields["MsgId"] != C.MQMI_NONE else new_msg_id()
    priority = min(max(fields["Priority"], 0), 9)
    md = {
        "CorrelId": fields["CorrelId"],
        "OriginalLength": len(original["Payload"]),
        "Persistence": fields["Persistence"],
        "Priority": priority,
        "Expiry": fields["Expiry"],
        "PutTimestamp": now_ms,
        "Format": original.get("Format") or C.MQFMT_NONE.decode(),
        "CodedCharSetId": original.get("CodedCharSetId", 0),
        "Encoding": original.get("Encoding", C.MQENC_NATIVE),
        "MsgType": fields["MsgType"],
        "Report": fields["Report"],
        "Feedback": fields["Feedback"],
        "ReplyToQ": "",
        "ReplyToQMgr": "",
        "BackoutCount": 0,
    }
    topic = naming.data_topic(qmgr, reply_q, priority)
    return reply_q, records.build(
        topic, plan, pieces, md, DEFAULT_CONTEXT, data, msg_id, new_msg_id
    )
