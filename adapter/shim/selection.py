"""What a message selector reads from a message on the queue (MQOD SelectionString).

The message descriptor's fields are properties named `Root.MQMD.<Field>`, with the C
declaration's spelling; StrucId and Version are not among them:
https://www.ibm.com/docs/en/ibm-mq/9.4.x?topic=names-message-descriptor-fields-as-properties
A name the message does not have reads as NULL (adapter/core/selector.py).
"""

from __future__ import annotations

from typing import Any

from adapter.core.selector import Lookup
from adapter.shim.context import put_date_time

MQMD_PREFIX = "Root.MQMD."

# MQMD fields kept in the envelope under their own names. MQCHAR fields compare as
# strings without their blank padding, MQBYTE fields as byte strings, MQLONGs as numbers.
_ENVELOPE_FIELDS = frozenset(
    {
        "Report",
        "MsgType",
        "Expiry",
        "Feedback",
        "Encoding",
        "CodedCharSetId",
        "Format",
        "Priority",
        "Persistence",
        "MsgId",
        "CorrelId",
        "BackoutCount",
        "ReplyToQ",
        "ReplyToQMgr",
        "UserIdentifier",
        "AccountingToken",
        "ApplIdentityData",
        "PutApplType",
        "PutApplName",
        "ApplOriginData",
        "GroupId",
        "MsgSeqNumber",
        "Offset",
        "MsgFlags",
        "OriginalLength",
    }
)


def _mqmd_field(env: dict[str, Any], field: str) -> Any:
    if field in _ENVELOPE_FIELDS:
        value = env.get(field)
        return value.rstrip(" ") if isinstance(value, str) else value
    if field in ("PutDate", "PutTime"):
        date, time_ = put_date_time(env["PutTimestamp"])
        return (date if field == "PutDate" else time_).decode()
    return None


def message_lookup(env: dict[str, Any]) -> Lookup:
    """The selector's view of one message (its envelope)."""

    def lookup(name: str) -> Any:
        if name.startswith(MQMD_PREFIX):
            return _mqmd_field(env, name[len(MQMD_PREFIX) :])
        return None  # no such property on the message

    return lookup
