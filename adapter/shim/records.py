"""The one builder of message records: (put plan, pieces, MQMD fields, context) ->
Kafka records. MQPUT sends them; report messages, the dead-letter queue, the BOTHRESH
requeue and the read-ahead give-back write one whole envelope (`resend`). Pure; the
envelope format itself belongs to mqk_avro.codec.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from mqk_avro import codec

from adapter.core import cmqc as C
from adapter.core.putrules import PutPlan
from adapter.core.segmentation import SegmentPlan

Record = tuple[str, bytes, bytes]  # (topic, key, value)


def record_key(group_id: bytes, msg_id: bytes) -> bytes:
    """The Kafka key: the GroupId for groups and segments (one partition per group, so
    a group keeps its physical order), else the MsgId."""
    return group_id if group_id != C.MQGI_NONE else msg_id


def build(
    topic: str,
    plan: PutPlan,
    pieces: Sequence[SegmentPlan],
    fields: dict[str, Any],
    context: dict[str, Any],
    payload: bytes,
    msg_id: bytes,
    new_msg_id: Callable[[], bytes],
) -> list[Record]:
    """The physical messages of one put. `fields` are the MQMD fields the put stores
    (everything but MsgId, GroupId, MsgSeqNumber, Offset, MsgFlags and the context);
    the first piece keeps `msg_id`, later segments get new ones, as MQ's segmentation."""
    base = dict(fields)
    base.setdefault("Properties", b"")  # reports and requeues carry none of their own
    base["GroupId"] = plan.group_id
    base["MsgSeqNumber"] = plan.seq
    base.update(context)
    key = record_key(plan.group_id, msg_id)
    if len(pieces) == 1 and pieces[0].start == 0 and pieces[0].length == len(payload):
        # The common case, one physical message: no copy of the envelope or the payload.
        base["MsgId"] = msg_id
        base["Offset"] = pieces[0].offset
        base["MsgFlags"] = pieces[0].flags
        base["Payload"] = payload
        return [(topic, key, codec.encode(base))]
    view = memoryview(payload)
    out = []
    for i, piece in enumerate(pieces):
        env = dict(base)
        env["MsgId"] = msg_id if i == 0 else new_msg_id()
        env["Offset"] = piece.offset
        env["MsgFlags"] = piece.flags
        env["Payload"] = bytes(view[piece.start : piece.start + piece.length])
        out.append((topic, key, codec.encode(env)))
    return out


def resend(topic: str, env: dict[str, Any]) -> Record:
    """An envelope written again as it is (moved to a requeue queue, or a read-ahead
    message given back): same MQMD, same put time, same key rule."""
    return (topic, record_key(env["GroupId"], env["MsgId"]), codec.encode(env))
