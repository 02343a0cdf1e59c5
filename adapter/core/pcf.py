"""PCF messages: the walker, encoder and MQPUT check of a Programmable Command Format
message (Format MQADMIN, MQEVENT or MQPCF): an MQCFH header followed by its
ParameterCount parameter structures. Pure.

The wire layout (cmqcfc.h; every field an MQLONG but MQCFIN64's and MQCFIL64's values,
MQINT64s; integers in the MQMD's Encoding, byte order by rfh2.is_big_endian):

- MQCFH  Type StrucLength(36) Version Command MsgSeqNumber Control CompCode Reason
         ParameterCount
- MQCFIN Type StrucLength(16) Parameter Value;  MQCFIN64 ... Parameter Reserved Value64 (24)
- MQCFIL Type StrucLength Parameter Count Values[Count] (fixed 16); MQCFIL64 the same
         with MQINT64 values
- MQCFST Type StrucLength Parameter CodedCharSetId StringLength String (fixed 20)
- MQCFSL Type StrucLength Parameter CodedCharSetId Count StringLength Strings (fixed 24)
- MQCFBS Type StrucLength Parameter StringLength String (fixed 16)
- MQCFGR Type StrucLength(16) Parameter ParameterCount: the next ParameterCount
         structures are the group's; the header (or an enclosing group) counts it as one
- MQCFIF Type StrucLength(20) Parameter Operator FilterValue
- MQCFSF Type StrucLength Parameter Operator CodedCharSetId FilterValueLength FilterValue
         (fixed 24)
- MQCFBF Type StrucLength Parameter Operator FilterValueLength FilterValue (fixed 20)

MQPUT / MQPUT1 fail a PCF message that is not valid with the reason of the structure
at fault: 2235 MQRC_CFH_ERROR, 2237 MQRC_CFIN_ERROR (MQCFIN, MQCFIN64), 2236
MQRC_CFIL_ERROR (MQCFIL, MQCFIL64), 2239 MQRC_CFST_ERROR, 2238 MQRC_CFSL_ERROR, 2395
MQRC_CFBS_ERROR, 2416 MQRC_CFGR_ERROR, 2414 MQRC_CFIF_ERROR, 2415 MQRC_CFSF_ERROR, 2422
MQRC_CFBF_ERROR, and 2149 MQRC_PCF_ERROR when "the length of the message does not equal
the sum of the lengths of the PCF structures present in the message" (for the formats
MQFMT_ADMIN, MQFMT_EVENT and MQFMT_PCF: all three are checked). The reason pages say
only "check that the fields in the structure are set correctly"; what a field must be
comes from the structure pages, and is what is checked here:

- MQCFH: Type a header type, StrucLength MQCFH_STRUC_LENGTH, Version 1 to 3,
  ParameterCount zero or greater; data shorter than the MQCFH is not an MQCFH either.
  (Command, MsgSeqNumber and Control are the command server's to judge, MQRCCF_*.)
- a fixed-length structure (MQCFIN, MQCFIN64, MQCFGR, MQCFIF): StrucLength its length;
  MQCFGR's ParameterCount zero or greater.
- a list: Count zero or greater and StrucLength exactly the fixed part plus the values.
- a string: StrucLength a multiple of four, "sufficient to contain the string"; the
  length of the string (and MQCFSL's Count) zero or greater; CodedCharSetId
  MQCCSI_DEFAULT or a CCSID (a negative one names no character set for the string).
- a structure type that is none of these, or a structure running past the end of the
  data, or data left after the last structure: 2149.

Pages (reasons, then structures; IBM Docs, SSFKSJ = IBM MQ):
<https://www.ibm.com/docs/ja/SSFKSJ_9.3.0/reference/q042090_.html> 2149,
<https://www-01.ibm.com/support/knowledgecenter/SSFKSJ_7.5.0/com.ibm.mq.tro.doc/q042690_.html>
2235, and under <https://www.ibm.com/docs/en/SSFKSJ_latest/reference/>: q042700_.html
2236, q042710_.html 2237, q042720_.html 2238, q042730_.html 2239, q044370_.html 2414,
q044380_.html 2415, q044390_.html 2416, q044450_.html 2422, q049400_.html MQCFH;
<https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q088680_.html> MQCFST,
<https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q088670_.html> MQCFSL,
<https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q088620_.html> MQCFBS.
2395 MQRC_CFBS_ERROR is cmqc.h's name and number; its reason page was not found.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from adapter.core import cmqc as C
from adapter.core import cmqcfc as F
from adapter.core.rfh2 import is_big_endian

PCF_FORMATS = frozenset(f.decode() for f in (C.MQFMT_ADMIN, C.MQFMT_EVENT, C.MQFMT_PCF))

# The MQCFH Type values: what a PCF message as a whole is.
HEADER_TYPES = frozenset(
    (
        F.MQCFT_COMMAND,
        F.MQCFT_RESPONSE,
        F.MQCFT_EVENT,
        F.MQCFT_USER,
        F.MQCFT_TRACE_ROUTE,
        F.MQCFT_REPORT,
        F.MQCFT_COMMAND_XR,
        F.MQCFT_XR_MSG,
        F.MQCFT_XR_ITEM,
        F.MQCFT_XR_SUMMARY,
        F.MQCFT_STATISTICS,
        F.MQCFT_ACCOUNTING,
        F.MQCFT_APP_ACTIVITY,
        F.MQCFT_STATUS,
    )
)


@dataclass(frozen=True)
class _Kind:
    reason: int  # what MQPUT fails with when this structure is not valid
    fixed: int  # the length of the fixed part (all of it, for a fixed-length one)
    exact: bool  # StrucLength must be `fixed`
    fields: tuple[str, ...]  # the MQLONGs after Parameter, as named here


# Parameter structure Type -> what it is. Strings are kept as bytes in their own
# CodedCharSetId: the walker never decodes them (only conversion does).
KINDS: dict[int, _Kind] = {
    F.MQCFT_INTEGER: _Kind(C.MQRC_CFIN_ERROR, F.MQCFIN_STRUC_LENGTH, True, ("value",)),
    F.MQCFT_INTEGER64: _Kind(C.MQRC_CFIN_ERROR, F.MQCFIN64_STRUC_LENGTH, True, ("reserved",)),
    F.MQCFT_INTEGER_LIST: _Kind(C.MQRC_CFIL_ERROR, F.MQCFIL_STRUC_LENGTH_FIXED, False, ("count",)),
    F.MQCFT_INTEGER64_LIST: _Kind(
        C.MQRC_CFIL_ERROR, F.MQCFIL64_STRUC_LENGTH_FIXED, False, ("count",)
    ),
    F.MQCFT_STRING: _Kind(C.MQRC_CFST_ERROR, F.MQCFST_STRUC_LENGTH_FIXED, False, ("ccsid", "size")),
    F.MQCFT_STRING_LIST: _Kind(
        C.MQRC_CFSL_ERROR, F.MQCFSL_STRUC_LENGTH_FIXED, False, ("ccsid", "count", "size")
    ),
    F.MQCFT_BYTE_STRING: _Kind(C.MQRC_CFBS_ERROR, F.MQCFBS_STRUC_LENGTH_FIXED, False, ("size",)),
    F.MQCFT_GROUP: _Kind(C.MQRC_CFGR_ERROR, F.MQCFGR_STRUC_LENGTH, True, ("count",)),
    F.MQCFT_INTEGER_FILTER: _Kind(
        C.MQRC_CFIF_ERROR, F.MQCFIF_STRUC_LENGTH, True, ("operator", "value")
    ),
    F.MQCFT_STRING_FILTER: _Kind(
        C.MQRC_CFSF_ERROR, F.MQCFSF_STRUC_LENGTH_FIXED, False, ("operator", "ccsid", "size")
    ),
    F.MQCFT_BYTE_STRING_FILTER: _Kind(
        C.MQRC_CFBF_ERROR, F.MQCFBF_STRUC_LENGTH_FIXED, False, ("operator", "size")
    ),
}
_ITEM_SIZE = {F.MQCFT_INTEGER_LIST: 4, F.MQCFT_INTEGER64_LIST: 8}  # a list's values
CHARACTER_TYPES = frozenset((F.MQCFT_STRING, F.MQCFT_STRING_LIST, F.MQCFT_STRING_FILTER))


@dataclass(frozen=True)
class Header:
    """The MQCFH. parameter_count None: the encoder counts the top-level structures."""

    type: int = F.MQCFT_USER
    version: int = F.MQCFH_VERSION_1
    command: int = F.MQCMD_NONE
    msg_seq_number: int = 1
    control: int = F.MQCFC_LAST
    comp_code: int = 0
    reason: int = 0
    parameter_count: int | None = None


@dataclass(frozen=True)
class Param:
    """One parameter structure. `value` by Type: MQCFIN / MQCFIN64 / MQCFIF an int;
    MQCFIL / MQCFIL64 a tuple of ints; MQCFST / MQCFBS / MQCFSF / MQCFBF bytes; MQCFSL a
    tuple of bytes, all of one length; MQCFGR the count of the structures after it that
    are the group's (the list stays flat, so that no nesting depth costs a recursion)."""

    type: int
    parameter: int
    value: int | bytes | tuple[int, ...] | tuple[bytes, ...]
    ccsid: int = C.MQCCSI_DEFAULT  # the strings' CodedCharSetId (MQCFST/MQCFSL/MQCFSF)
    operator: int = 0  # the filters' Operator (MQCFIF/MQCFSF/MQCFBF)


@dataclass(frozen=True)
class Message:
    header: Header
    params: tuple[Param, ...]


def _order(encoding: int) -> str:
    return ">" if is_big_endian(encoding) else "<"


def parse(data: bytes, encoding: int, *, whole: bool = True) -> Message | int:
    """The PCF message in `data`, or the reason code MQPUT fails it with. `whole` False
    (the first segment of a message the application segments): the data may stop
    anywhere after the MQCFH; what it holds must still be valid."""
    order = _order(encoding)
    if len(data) < F.MQCFH_STRUC_LENGTH:
        return C.MQRC_CFH_ERROR
    (kind, length, version, command, seq, control, comp, reason, count) = struct.unpack_from(
        order + "9i", data
    )
    if (
        kind not in HEADER_TYPES
        or length != F.MQCFH_STRUC_LENGTH
        or not F.MQCFH_VERSION_1 <= version <= F.MQCFH_VERSION_3
        or count < 0
    ):
        return C.MQRC_CFH_ERROR
    header = Header(kind, version, command, seq, control, comp, reason, count)
    params: list[Param] = []
    at, remaining = F.MQCFH_STRUC_LENGTH, count
    while remaining:
        param = _parse_param(data, at, order, whole)
        if param is None:
            break  # the first segment ends inside this structure: the rest comes later
        if isinstance(param, int):
            return param
        params.append(param)
        at += struct.unpack_from(order + "i", data, at + 4)[0]
        remaining -= 1
        if param.type == F.MQCFT_GROUP:
            remaining += param.value  # the structures of the group count too
    if not remaining and at != len(data):
        return C.MQRC_PCF_ERROR  # data the structures do not account for
    return Message(header, tuple(params))


def _parse_param(data: bytes, at: int, order: str, whole: bool) -> Param | int | None:
    """The parameter structure at `at`, or the reason it is not valid; None when the
    data is not `whole` and ends inside a structure that is valid as far as it goes."""
    if len(data) - at < 8:
        return C.MQRC_PCF_ERROR if whole else None
    kind_id, length = struct.unpack_from(order + "2i", data, at)
    kind = KINDS.get(kind_id)
    if kind is None:
        return C.MQRC_PCF_ERROR  # no PCF structure of that Type
    if length != kind.fixed if kind.exact else length < kind.fixed or length % 4:
        return kind.reason
    if len(data) - at < kind.fixed:
        return C.MQRC_PCF_ERROR if whole else None
    parameter, *values = struct.unpack_from(f"{order}{1 + len(kind.fields)}i", data, at + 8)
    f = dict(zip(kind.fields, values, strict=True))
    if min(f.get("ccsid", 0), f.get("count", 0), f.get("size", 0)) < 0:
        return kind.reason  # no CCSID, count or length is negative
    if kind_id in _ITEM_SIZE:  # a list: exactly its values
        if length != kind.fixed + f["count"] * _ITEM_SIZE[kind_id]:
            return kind.reason
    elif "size" in f and kind.fixed + f.get("count", 1) * f["size"] > length:
        return kind.reason  # not "sufficient to contain the string"
    if at + length > len(data):
        return C.MQRC_PCF_ERROR if whole else None  # it ends after the message does
    start = at + kind.fixed
    value: int | bytes | tuple[int, ...] | tuple[bytes, ...]
    if kind_id == F.MQCFT_INTEGER64:
        value = struct.unpack_from(order + "q", data, at + 16)[0]
    elif kind_id in _ITEM_SIZE:
        code = "q" if _ITEM_SIZE[kind_id] == 8 else "i"
        value = struct.unpack_from(f"{order}{f['count']}{code}", data, start)
    elif kind_id == F.MQCFT_STRING_LIST:
        size = f["size"]
        value = tuple(data[start + i * size : start + (i + 1) * size] for i in range(f["count"]))
    elif "size" in f:
        value = data[start : start + f["size"]]
    else:  # MQCFIN, MQCFIF: the Value; MQCFGR: its ParameterCount
        value = f.get("value", f.get("count", 0))
    ccsid, operator = f.get("ccsid", C.MQCCSI_DEFAULT), f.get("operator", 0)
    return Param(kind_id, parameter, value, ccsid, operator)


def pcf_error(
    fmt: str, data: bytes, encoding: int, *, whole: bool = True, in_group: bool = False
) -> int | None:
    """The reason MQPUT / MQPUT1 fails with for a PCF message (Format MQADMIN, MQEVENT,
    MQPCF) that is not valid, or (`in_group`) may not be in a group: a trace-route
    message, IBM's example for 2417 MQRC_MSG_NOT_ALLOWED_IN_GROUP
    (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q044400_.html). None when it is
    valid or the Format is not a PCF one."""
    if fmt.ljust(8) not in PCF_FORMATS:
        return None
    parsed = parse(data, encoding, whole=whole)
    if isinstance(parsed, int):
        return parsed
    if in_group and parsed.header.type == F.MQCFT_TRACE_ROUTE:
        return C.MQRC_MSG_NOT_ALLOWED_IN_GROUP
    return None


def _pad4(raw: bytes) -> bytes:
    return raw + b"\0" * (-len(raw) % 4)


def top_level_count(params: Iterable[Param]) -> int:
    """How many structures the MQCFH counts: a group and its own structures are one."""
    count, inside = 0, 0  # inside: structures still owed to the open groups
    for param in params:
        if inside:
            inside -= 1
        else:
            count += 1
        if param.type == F.MQCFT_GROUP:
            inside += param.value
    return count


def encode_param(param: Param, encoding: int) -> bytes:
    """One parameter structure, its StrucLength the least multiple of four that holds it."""
    o, t, p, v = _order(encoding), param.type, param.parameter, param.value

    def head(rest: bytes, *fields: int) -> bytes:
        fixed = struct.pack(f"{o}{3 + len(fields)}i", t, 0, p, *fields)
        whole = _pad4(fixed + rest)
        return whole[:4] + struct.pack(o + "i", len(whole)) + whole[8:]

    if t in (F.MQCFT_INTEGER, F.MQCFT_GROUP):
        return head(b"", v)
    if t == F.MQCFT_INTEGER64:
        return head(struct.pack(o + "q", v), 0)  # Reserved
    if t == F.MQCFT_INTEGER_FILTER:
        return head(b"", param.operator, v)
    if t in (F.MQCFT_INTEGER_LIST, F.MQCFT_INTEGER64_LIST):
        code = "q" if t == F.MQCFT_INTEGER64_LIST else "i"
        values: Sequence[int] = v
        return head(struct.pack(f"{o}{len(values)}{code}", *values), len(values))
    if t == F.MQCFT_STRING_LIST:
        strings: Sequence[bytes] = v
        size = len(strings[0]) if strings else 0
        if any(len(s) != size for s in strings):
            raise ValueError("the strings of an MQCFSL are all of one length")
        return head(b"".join(strings), param.ccsid, len(strings), size)
    raw: bytes = v
    if t == F.MQCFT_STRING:
        return head(raw, param.ccsid, len(raw))
    if t == F.MQCFT_BYTE_STRING:
        return head(raw, len(raw))
    if t == F.MQCFT_STRING_FILTER:
        return head(raw, param.operator, param.ccsid, len(raw))
    if t == F.MQCFT_BYTE_STRING_FILTER:
        return head(raw, param.operator, len(raw))
    raise ValueError(f"no PCF parameter structure of Type {t}")


def encode(header: Header, params: Sequence[Param], encoding: int) -> bytes:
    """The PCF message: the MQCFH and the parameter structures, in `encoding`."""
    count = header.parameter_count
    if count is None:
        count = top_level_count(params)
    cfh = struct.pack(
        _order(encoding) + "9i",
        header.type,
        F.MQCFH_STRUC_LENGTH,
        header.version,
        header.command,
        header.msg_seq_number,
        header.control,
        header.comp_code,
        header.reason,
        count,
    )
    return cfh + b"".join(encode_param(p, encoding) for p in params)
