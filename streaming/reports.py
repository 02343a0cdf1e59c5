"""Expiration reports and discards of expired messages, for a transactional writer.

A discard goes through the queue's consumption state (the shim's Redis claims), so an
expired message is discarded -- and reported -- once, whoever meets it first (an MQGET,
the expiry scan, or this job), and never returned by a later MQGET.

The report is an MQ message put to the original's ReplyToQ by the MQPUT rules of the
shim (Table 1 through plan_put, segmentation through segment_message, the envelope of
Connection.put_report), but returned as Kafka records so the job writes it in the same
transaction as its other outputs: a report is then put exactly once even when the job
dies between two systems. (Connection.put_report produces at once, outside any
transaction, which is right for a get's discard but not for this.)
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from mqk_avro import codec

from adapter.core import cmqc as C  # noqa: N812 (the project-wide alias)
from adapter.core import expiry as exp
from adapter.core.model import normalise_flags
from adapter.core.putrules import PutCursor, plan_put
from adapter.core.segmentation import segment_message
from adapter.shim import naming
from adapter.shim.connection import Connection
from adapter.shim.mdfields import DEFAULT_CONTEXT
from adapter.shim.state import NoEpochError, QueueState

# An expired message this job locked stays hidden from getters until the transaction
# that reports it commits and the lock turns into a consumption. If the job dies in
# between, whoever meets the lock after its lease reconciles it with the ack log (the
# shim's reconcile): consumed if the transaction committed, released if not.
DISCARD_LEASE_MS = 10 * 60 * 1000


Record = tuple[str, bytes, bytes]  # (topic, key, value)


def report_records(conn: Connection, original: dict[str, Any]) -> tuple[str, list[Record]]:
    """(reply queue, records) of the expiration report `original` asked for; no records
    when it asked for none or its ReplyToQ is not a queue of this queue manager (MQ
    would route the report to a dead-letter queue this queue manager does not have)."""
    if not exp.wants_expiry_report(original["Report"]):
        return "", []
    reply_q = original.get("ReplyToQ", "").strip()
    reply_qm = original.get("ReplyToQMgr", "").strip()
    if not reply_q or (reply_qm and reply_qm != conn.qmgr):
        return "", []
    qdef = conn.lookup_queue(reply_q)
    if qdef is None:
        return "", []
    fields = exp.expiry_report_fields(original, new_msg_id=conn.new_msg_id())
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
        new_group_id=conn.new_msg_id(),
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
    msg_id = fields["MsgId"] if fields["MsgId"] != C.MQMI_NONE else conn.new_msg_id()
    priority = min(max(fields["Priority"], 0), 9)
    base = {
        "CorrelId": fields["CorrelId"],
        "GroupId": plan.group_id,
        "MsgSeqNumber": plan.seq,
        "OriginalLength": len(original["Payload"]),
        "Persistence": fields["Persistence"],
        "Priority": priority,
        "Expiry": fields["Expiry"],
        "PutTimestamp": int(time.time() * 1000),
        "Format": original.get("Format") or C.MQFMT_NONE.decode(),
        "CodedCharSetId": original.get("CodedCharSetId", 0),
        "Encoding": original.get("Encoding", C.MQENC_NATIVE),
        "MsgType": fields["MsgType"],
        "Report": fields["Report"],
        "Feedback": fields["Feedback"],
        "ReplyToQ": "",
        "ReplyToQMgr": "",
        "BackoutCount": 0,
        **DEFAULT_CONTEXT,
    }
    topic = naming.data_topic(conn.qmgr, reply_q, priority)
    key = plan.group_id if plan.group_id != C.MQGI_NONE else msg_id
    records = []
    for i, piece in enumerate(pieces):
        env = dict(base)
        env["MsgId"] = msg_id if i == 0 else conn.new_msg_id()
        env["Offset"] = piece.offset
        env["MsgFlags"] = piece.flags
        env["Payload"] = data[piece.start : piece.start + piece.length]
        records.append((topic, key, codec.encode(env)))
    return reply_q, records


def _with_state(conn: Connection, queue: str, call):
    """Run a claim; a queue whose Redis state was lost is rebuilt from Kafka first."""
    from adapter.shim.recovery import rebuild

    state: QueueState = conn.state(queue)
    try:
        return call(state)
    except NoEpochError:
        qdef = conn.lookup_queue(queue)
        if qdef is not None:
            rebuild(conn, qdef)
        return call(state)


def lock_expired(conn: Connection, queue: str, cand: str, owner: str) -> bool:
    """Take an expired message for discarding: True if it was still on the queue (or
    already locked by `owner`, as when a micro-batch is replayed)."""
    from adapter.shim.reconcile import reconcile

    def claim(state: QueueState):
        return state.claim([cand], owner, consume=False, lease_ms=DISCARD_LEASE_MS)

    res = _with_state(conn, queue, claim)
    if res.index is None and res.locked:
        # A lock whose owner's lease ran out (ours from a run that died, or a getter's):
        # the ack log decides whether it was consumed; then look again.
        reconcile(conn, queue)
        res = _with_state(conn, queue, claim)
    return res.index is not None


def consume_locked(conn: Connection, queue: str, cands: list[str], owner: str) -> int:
    """Turn this owner's locks into consumption (idempotent): the depth drops here."""
    if not cands:
        return 0
    res = _with_state(conn, queue, lambda st: st.consume_many(cands, owner))
    return len(res[0])  # (taken indexes, ..., gone indexes)
