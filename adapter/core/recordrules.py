"""Which stored messages cannot be delivered: an envelope whose MQMD holds values no
MQPUT could have stored, and the reason code the dead-letter queue's MQDLH gets for a
record that cannot be read at all. Pure: no I/O.

A record on a queue's topic that mqk did not write (a Kafka producer writing the
envelope's bytes by hand, or a stale tool) can decode as an envelope and still carry an
MQMD that MQPUT refuses: a Priority of -5, Persistence 7, a negative MsgSeqNumber. Handed
to an application it breaks the MQI's promises (MD.Priority is 0-9) and, worse, the
code that lays the MQMD out. Such a record is moved to the dead-letter queue like one
that cannot be decoded (shim/corrupt.py).

The MQDLH's Reason ("Reason (MQLONG)" in "Field details for MQDLH",
https://www.ibm.com/docs/ja/SSFKSJ_latest/refdev/q096115_.html: "one of the MQFB_* or
MQRC_* values"):

- a record that cannot be parsed: MQRC_JMS_FORMAT_ERROR (2364). It is the code IBM MQ
  itself gives a message its getter cannot parse and dead-letters: "When the IBM MQ
  classes for JMS encounter a message that cannot be parsed ... this reason code appears
  in the Reason field of the MQDLH" (2364,
  https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q043930_.html). MQRC_FORMAT_ERROR
  (2110) was the other candidate; IBM documents it only for MQGMO_CONVERT of a message
  whose Format cannot be converted, a different failure, so it is not used;
- an envelope with an impossible MQMD value: the code MQPUT gives that value (2050
  MQRC_PRIORITY_ERROR, 2047 MQRC_PERSISTENCE_ERROR, 2029 MQRC_MSG_TYPE_ERROR, ...), so
  the dead-letter handler learns which field was wrong; MQRC_MD_ERROR (2026) for the
  fields MQPUT has no code of their own for (lengths, BackoutCount, put time).

Only values no code path of mqk writes are refused (a false alarm would move a good
message away): Expiry 0, for instance, is refused by MQPUT but a report may carry a
remaining lifetime, so only Expiry below -1 is impossible.
"""

from __future__ import annotations

from typing import Any

from adapter.core import cmqc as C  # noqa: N812 (the project-wide alias)
from adapter.core.mdrules import feedback_error, msg_type_error
from adapter.core.putrules import flags_error

__all__ = ["UNREADABLE", "impossible_field"]

_SYSTEM_TYPES = (C.MQMT_REQUEST, C.MQMT_REPLY, C.MQMT_REPORT, C.MQMT_DATAGRAM)

UNREADABLE = C.MQRC_JMS_FORMAT_ERROR

# MQCHAR fields: at most this many characters (bytes on the wire; a character is at
# least one byte, so more characters than bytes is impossible whatever the CCSID).
MQCHAR_LENGTHS = {
    "Format": 8,
    "ReplyToQ": 48,
    "ReplyToQMgr": 48,
    "UserIdentifier": 12,
    "ApplIdentityData": 32,
    "PutApplName": 28,
    "ApplOriginData": 4,
}
LAST_MS = 253402300799999  # 9999-12-31T23:59:59.999Z: MQ's PutDate has four digits


def impossible_field(env: dict[str, Any]) -> tuple[int, str] | None:
    """(MQ reason code, the field and its value) for the first MQMD value of `env` that
    no MQPUT could have stored, None when every value is possible."""
    if _plainly_possible(env):
        return None
    checks = (
        # Above MAXPRTY (9) MQPUT warns (2049) and keeps the value in the MQMD.
        ("Priority", env["Priority"] >= 0, C.MQRC_PRIORITY_ERROR),
        (
            "Persistence",
            env["Persistence"] in (C.MQPER_NOT_PERSISTENT, C.MQPER_PERSISTENT),
            C.MQRC_PERSISTENCE_ERROR,
        ),
        ("MsgType", msg_type_error(env["MsgType"]) is None, C.MQRC_MSG_TYPE_ERROR),
        ("Feedback", feedback_error(env["Feedback"]) is None, C.MQRC_FEEDBACK_ERROR),
        ("Expiry", env["Expiry"] >= C.MQEI_UNLIMITED, C.MQRC_EXPIRY_ERROR),
        ("MsgFlags", flags_error(env["MsgFlags"]) is None, C.MQRC_MSG_FLAGS_ERROR),
        ("MsgSeqNumber", env["MsgSeqNumber"] >= 1, C.MQRC_MSG_SEQ_NUMBER_ERROR),
        ("Offset", env["Offset"] >= 0, C.MQRC_OFFSET_ERROR),
        ("OriginalLength", env["OriginalLength"] >= C.MQOL_UNDEFINED, C.MQRC_ORIGINAL_LENGTH_ERROR),
        ("BackoutCount", env["BackoutCount"] >= 0, C.MQRC_MD_ERROR),
        ("PutTimestamp", 0 <= env["PutTimestamp"] <= LAST_MS, C.MQRC_MD_ERROR),
    )
    for name, ok, reason in checks:
        if not ok:
            return reason, f"{name}={env[name]!r}"
    for name, most in MQCHAR_LENGTHS.items():
        if len(env[name]) > most:
            return C.MQRC_MD_ERROR, f"{name} is {len(env[name])} characters (at most {most})"
    return None


def _plainly_possible(env: dict[str, Any]) -> bool:
    """The common case in a few comparisons (every record a getter reads passes here):
    the values every ordinary message has. False means: look field by field."""
    return (
        env["Priority"] >= 0
        and 0 <= env["Persistence"] <= 1
        and env["MsgType"] in _SYSTEM_TYPES
        and env["Feedback"] == C.MQFB_NONE
        and env["Expiry"] >= -1
        and 0 <= env["MsgFlags"] <= 31
        and env["MsgSeqNumber"] >= 1
        and env["Offset"] >= 0
        and env["OriginalLength"] >= -1
        and env["BackoutCount"] >= 0
        and 0 <= env["PutTimestamp"] <= LAST_MS
        and len(env["ReplyToQ"]) <= 48
        and len(env["ReplyToQMgr"]) <= 48
        and len(env["Format"]) <= 8
        and len(env["UserIdentifier"]) <= 12
        and len(env["ApplIdentityData"]) <= 32
        and len(env["PutApplName"]) <= 28
        and len(env["ApplOriginData"]) <= 4
    )
