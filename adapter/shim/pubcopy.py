"""A subscription's copy of a publication: its MQMD (own MsgId, the subscription's
CorrelId and PubPriority) and the properties MQ adds ("Publish/subscribe message
properties": MQTopicString, MQSubUserData, MQIsRetained,
<https://www.ibm.com/docs/en/ibm-mq/9.4.x?topic=properties-publishsubscribe-message>),
and the topic of the queue's priority it goes to. Paid once per subscription per
publication, so what the copies share is computed once (shim/publish.py uses it).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from adapter.core import cmqc as C
from adapter.core import propwire
from adapter.shim import naming
from adapter.shim.catalog import QueueDef
from adapter.shim.subscriptions import SubDef


def copy_envelope(
    env: dict[str, Any],
    topic: str,
    sd: SubDef,
    qdef: QueueDef | None,
    msg_id: bytes,
    *,
    retained: bool = False,
) -> dict[str, Any]:
    """The envelope of `sd`'s copy of a publication (`qdef`: its queue's definition,
    None when the queue is gone)."""
    out = dict(env)
    out["MsgId"] = msg_id
    out["CorrelId"] = sd.correl_bytes
    if sd.pub_priority >= 0:
        out["Priority"] = sd.pub_priority
    elif sd.pub_priority == C.MQPRI_PRIORITY_AS_Q_DEF and qdef is not None:
        out["Priority"] = qdef.def_priority
    packed = bytes(env.get("Properties") or b"")
    out["Properties"] = _copy_properties(packed, topic, sd.user_data, retained)
    return out


@lru_cache(maxsize=1024)
def _copy_properties(packed: bytes, topic: str, user_data: str, retained: bool) -> bytes:
    """A copy's properties: the publication's with MQTopicString, MQSubUserData and
    MQIsRetained added. Cached: the copies of one publication differ at most in the
    user data, and a publisher usually sends the same properties again, so this is
    packed once, not once per subscription."""
    props = propwire.unpack(packed)
    props.set("mqps.Top", topic, C.MQTYPE_STRING, validate=False)
    if user_data:
        props.set("mqps.Sud", user_data, C.MQTYPE_STRING, validate=False)
    if retained:
        props.set("mqps.Ret", True, C.MQTYPE_BOOLEAN, validate=False)
    return propwire.pack(props)


@lru_cache(maxsize=4096)
def data_topic(qmgr: str, queue: str, priority: int) -> str:
    """naming.data_topic, kept: escaping the names was a tenth of a copy's cost."""
    return naming.data_topic(qmgr, queue, priority)
