"""Message properties as MQ defines them: names, types, MQSETMP / MQINQMP / MQDLTMP rules.

`MessageProperties` is the content of one message handle: an ordered store of
properties, each a (name, MQTYPE_*, value). It validates names and types on set as
MQSETMP does, inquires as MQINQMP does (a property cursor, ``%`` wildcards,
MQIMPO_INQ_FIRST / INQ_NEXT / INQ_PROP_UNDER_CURSOR, MQIMPO_CONVERT_TYPE with MQ's
conversion table, MQIMPO_QUERY_LENGTH, a value buffer that may be too small) and deletes
as MQDLTMP does. Errors are raised as ``MQMIError`` (``errors.fail``), as the rest of
the core does. `descriptor_properties` is the other half of what a selector sees: the
``JMS*`` names and the ``Root.MQMD.*`` names MQ derives from the message descriptor.

Pure: no I/O.

Where the rules come from (IBM MQ documentation; the pages as found, some from an earlier
release where the 9.4 copy was not at hand -- the rules are unchanged in 9.4):

- Property names: https://www.ibm.com/docs/es/ibm-mq/9.4.x?topic=properties-property-names
  (case-sensitive, at most MQ_MAX_PROPERTY_NAME_LENGTH = 4095 characters, else
  MQRC_PROPERTY_NAME_LENGTH_ERR; Java identifier rules with ``.`` allowed but not first).
- Property name restrictions:
  https://www.ibm.com/docs/SSFKSJ_9.2.0/com.ibm.mq.dev.doc/q022950_.html
  (the ``JMS`` / ``usr.JMS`` prefixes and their synonyms, of which only JMSCorrelationID,
  JMSReplyTo, JMSType, JMSXGroupID and JMSXGroupSeq can be set through the MQI; the SQL
  keywords; ``mq`` names with one ``.`` at most; no empty level; no mixed content).
- 2442 MQRC_PROPERTY_NAME_ERROR:
  https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.tro.doc/q044620_.html
  (also: characters beyond the BMP, names beginning ``Body`` or ``Root`` other than
  ``Root.MQMD.``, the keywords behind ``usr.``).
- MQCMHO_VALIDATE (what MQSETMP validates):
  https://ibm.com/docs/en/SSFKSJ_7.5.0/com.ibm.mq.ref.dev.doc/q095330_.html
- 2498 MQRC_MIXED_CONTENT_NOT_ALLOWED, 2513 MQRC_PROPERTY_NAME_LENGTH_ERR,
  2473 MQRC_PROPERTY_TYPE_ERROR (``Root.MQMD.`` and ``JMS`` names need the type of their
  field: MQCHARn/String STRING, MQLONG/int INT32, MQBYTEn BYTE_STRING, Java long INT64):
  https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q044840_.html
- MQSETMP: https://www.ibm.com/docs/en/SSFKSJ_9.4.0/refdev/q101910_.html
- MQINQMP (``%`` at the end of a name matches zero or more characters, ``.`` included;
  the returned name is the JMS name for ``jms.``/``mcd.`` properties and has no ``usr.``;
  a property with synonyms is returned once; INQ_NEXT with a changed name is INQ_FIRST):
  https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q101850_.html
- MQIMPO options (CONVERT_TYPE and its table, QUERY_LENGTH, the cursor on failures):
  https://www.ibm.com/docs/en/ibm-mq/9.1?topic=mqimpo-options-mqlong
  2469 (value too big: DataLength set, as much of the value as fits),
  2470 (conversion not supported), 2472 (string not formatted for the conversion).
- Mapping from property names to MQRFH2 folders (``X`` is ``usr.X``; ``f.X`` is element
  ``X`` of folder ``f``; more levels are groups):
  https://www.ibm.com/docs/en/ibm-mq/9.3.x?topic=psame-mapping-from-property-names-mqrfh2-folder-element-names
- JMS fields and properties with corresponding MQMD fields, and the mapping at receive():
  https://www.ibm.com/docs/en/ibm-mq/9.4.x?topic=messages-jms-fields-properties-corresponding-mqmd-fields
  (as cited by IBM's kafka-connect-mq-sink), and the receive() mapping
  http://www-01.ibm.com/support/knowledgecenter/SSFKSJ_7.5.0/com.ibm.mq.dev.doc/q032060_.htm

Python values, as ibmmq's C layer (``code/ibmmq/ibmmqc.c``, MQSETMP/MQINQMP) gives and
takes them: BOOLEAN ``int`` 1/0 on inquire (any number on set, non-zero is true);
BYTE_STRING ``bytes``; INT8..INT64 ``int`` (narrower types keep the low bits, as the C
cast does); FLOAT32 ``float`` holding the nearest single-precision value; FLOAT64
``float``; STRING ``str`` (with MQVL_NULL_TERMINATED, the default, the value ends at its
first NUL); NULL ``None``.
"""

from __future__ import annotations

import calendar
import math
import re
import struct
import unicodedata
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from adapter.core import cmqc as C  # noqa: N812 (the project-wide alias)
from adapter.core.errors import MQMIError, fail
from adapter.core.text import mqstr

__all__ = [
    "FIXED_LENGTH",
    "JMS_SYNONYMS",
    "MQMD_FIELD_TYPES",
    "TYPE_NAMES",
    "VALUE_TYPES",
    "Inquired",
    "MessageProperties",
    "Property",
    "convert",
    "descriptor_properties",
    "display_name",
    "float_text",
    "normalise_value",
    "put_timestamp_ms",
    "pymqi_value",
    "qualified_name",
    "validate_name",
    "value_length",
]

VALUE_TYPES = (
    C.MQTYPE_NULL,
    C.MQTYPE_BOOLEAN,
    C.MQTYPE_BYTE_STRING,
    C.MQTYPE_INT8,
    C.MQTYPE_INT16,
    C.MQTYPE_INT32,
    C.MQTYPE_INT64,
    C.MQTYPE_FLOAT32,
    C.MQTYPE_FLOAT64,
    C.MQTYPE_STRING,
)
"""The MQTYPE_* a property can have (MQTYPE_AS_SET only asks for "whatever it is")."""

TYPE_NAMES = {
    C.MQTYPE_AS_SET: "MQTYPE_AS_SET",
    C.MQTYPE_NULL: "MQTYPE_NULL",
    C.MQTYPE_BOOLEAN: "MQTYPE_BOOLEAN",
    C.MQTYPE_BYTE_STRING: "MQTYPE_BYTE_STRING",
    C.MQTYPE_INT8: "MQTYPE_INT8",
    C.MQTYPE_INT16: "MQTYPE_INT16",
    C.MQTYPE_INT32: "MQTYPE_INT32",
    C.MQTYPE_INT64: "MQTYPE_INT64",
    C.MQTYPE_FLOAT32: "MQTYPE_FLOAT32",
    C.MQTYPE_FLOAT64: "MQTYPE_FLOAT64",
    C.MQTYPE_STRING: "MQTYPE_STRING",
}

FIXED_LENGTH = {
    C.MQTYPE_NULL: 0,
    C.MQTYPE_BOOLEAN: 4,
    C.MQTYPE_INT8: 1,
    C.MQTYPE_INT16: 2,
    C.MQTYPE_INT32: 4,
    C.MQTYPE_INT64: 8,
    C.MQTYPE_FLOAT32: 4,
    C.MQTYPE_FLOAT64: 8,
}
"""MQSETMP's ValueLength of the fixed-size types (MQINQMP's DataLength likewise)."""

_INT_BITS = {C.MQTYPE_INT8: 8, C.MQTYPE_INT16: 16, C.MQTYPE_INT32: 32, C.MQTYPE_INT64: 64}
_INT_TYPES = tuple(_INT_BITS)
_FLOAT_TYPES = (C.MQTYPE_FLOAT32, C.MQTYPE_FLOAT64)

# JMS synonyms that live in an MQRFH2 folder (they can be set when marked True).
JMS_SYNONYMS: dict[str, tuple[str, int, bool]] = {
    "JMSCorrelationID": ("jms.Cid", C.MQTYPE_STRING, True),
    "JMSDeliveryMode": ("jms.Dlv", C.MQTYPE_INT32, False),
    "JMSDestination": ("jms.Dst", C.MQTYPE_STRING, False),
    "JMSExpiration": ("jms.Exp", C.MQTYPE_INT64, False),
    "JMSPriority": ("jms.Pri", C.MQTYPE_INT32, False),
    "JMSReplyTo": ("jms.Rto", C.MQTYPE_STRING, True),
    "JMSTimestamp": ("jms.Tms", C.MQTYPE_INT64, False),
    "JMSType": ("mcd.Type", C.MQTYPE_STRING, True),
    "JMSXGroupID": ("jms.Gid", C.MQTYPE_STRING, True),
    "JMSXGroupSeq": ("jms.Seq", C.MQTYPE_INT32, True),
    # The queue manager's publish/subscribe properties, in the MQRFH2's mqps folder
    # ("Publish/subscribe message properties"; JMS_IBM_SUBSCRIPTION_USER_DATA is
    # mqps.Sud, <https://www.ibm.com/docs/SSFKSJ_9.4.0/develop/q130250_.html>).
    "MQTopicString": ("mqps.Top", C.MQTYPE_STRING, False),
    "MQSubUserData": ("mqps.Sud", C.MQTYPE_STRING, False),
    "MQIsRetained": ("mqps.Ret", C.MQTYPE_BOOLEAN, False),
}
"""{JMS or MQ name: (folder name, MQTYPE, settable through the MQI)}."""

_FOLDER_TO_JMS = {folder: jms for jms, (folder, _t, _s) in JMS_SYNONYMS.items()}

# JMS names whose only source is the message descriptor (never stored in a handle).
_JMS_FROM_MQMD_ONLY = {
    "JMSMessageID": C.MQTYPE_STRING,
    "JMSRedelivered": C.MQTYPE_BOOLEAN,
    "JMSXAppID": C.MQTYPE_STRING,
    "JMSXDeliveryCount": C.MQTYPE_INT32,
    "JMSXUserID": C.MQTYPE_STRING,
}

MQMD_FIELD_TYPES: dict[str, int] = {
    "Report": C.MQTYPE_INT32,
    "MsgType": C.MQTYPE_INT32,
    "Expiry": C.MQTYPE_INT32,
    "Feedback": C.MQTYPE_INT32,
    "Encoding": C.MQTYPE_INT32,
    "CodedCharSetId": C.MQTYPE_INT32,
    "Format": C.MQTYPE_STRING,
    "Priority": C.MQTYPE_INT32,
    "Persistence": C.MQTYPE_INT32,
    "MsgId": C.MQTYPE_BYTE_STRING,
    "CorrelId": C.MQTYPE_BYTE_STRING,
    "BackoutCount": C.MQTYPE_INT32,
    "ReplyToQ": C.MQTYPE_STRING,
    "ReplyToQMgr": C.MQTYPE_STRING,
    "UserIdentifier": C.MQTYPE_STRING,
    "AccountingToken": C.MQTYPE_BYTE_STRING,
    "ApplIdentityData": C.MQTYPE_STRING,
    "PutApplType": C.MQTYPE_INT32,
    "PutApplName": C.MQTYPE_STRING,
    "PutDate": C.MQTYPE_STRING,
    "PutTime": C.MQTYPE_STRING,
    "ApplOriginData": C.MQTYPE_STRING,
    "GroupId": C.MQTYPE_BYTE_STRING,
    "MsgSeqNumber": C.MQTYPE_INT32,
    "Offset": C.MQTYPE_INT32,
    "MsgFlags": C.MQTYPE_INT32,
    "OriginalLength": C.MQTYPE_INT32,
}
"""The ``Root.MQMD.<field>`` properties and the MQTYPE their value must have (2473)."""

_KEYWORDS = frozenset(
    ("NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "BETWEEN", "LIKE", "IN", "IS", "ESCAPE")
)
_ROOT_MQMD = "Root.MQMD."

# Java's Character.isJavaIdentifierStart / isJavaIdentifierPart by general category.
_ID_START = frozenset(("Lu", "Ll", "Lt", "Lm", "Lo", "Nl", "Sc", "Pc"))
_ID_PART = _ID_START | {"Nd", "Mn", "Mc", "Cf"}


def _java_start(ch: str) -> bool:
    return unicodedata.category(ch) in _ID_START


def _java_part(ch: str) -> bool:
    if unicodedata.category(ch) in _ID_PART:
        return True
    o = ord(ch)  # isIdentifierIgnorable: the ISO controls that are not white space
    return o <= 8 or 0x0E <= o <= 0x1B or 0x7F <= o <= 0x9F


def _as_name(name: str | bytes) -> str:
    if isinstance(name, bytes | bytearray | memoryview):
        return bytes(name).decode("utf-8")
    if not isinstance(name, str):
        raise TypeError(f"a property name is str or bytes, not {type(name).__name__}")
    return name


def _check_length(name: str) -> None:
    if not name or len(name) > C.MQ_MAX_PROPERTY_NAME_LENGTH:
        raise fail(C.MQRC_PROPERTY_NAME_LENGTH_ERR)


def validate_name(name: str | bytes, for_set: bool = True) -> str:
    """Check a property name as MQSETMP does (MQCMHO_VALIDATE); return it as str.

    2513 MQRC_PROPERTY_NAME_LENGTH_ERR for an empty name or one over 4095 characters;
    2442 MQRC_PROPERTY_NAME_ERROR for every rule of "Property name restrictions" and of
    the 2442 page. With ``for_set`` the JMS names that the MQI cannot set (JMSPriority,
    JMSMessageID, ...) give 2442 too; without it they are accepted (they can be
    inquired).
    """
    name = _as_name(name)
    _check_length(name)
    if any(ord(ch) > 0xFFFF for ch in name):
        raise fail(C.MQRC_PROPERTY_NAME_ERROR)  # beyond the Basic Multilingual Plane
    if name.startswith("JMS"):
        if name in JMS_SYNONYMS:
            if for_set and not JMS_SYNONYMS[name][2]:
                raise fail(C.MQRC_PROPERTY_NAME_ERROR)
            return name
        if name in _JMS_FROM_MQMD_ONLY and not for_set:
            return name
        raise fail(C.MQRC_PROPERTY_NAME_ERROR)
    if name.startswith("usr.JMS"):
        raise fail(C.MQRC_PROPERTY_NAME_ERROR)
    bare = name[4:] if name.startswith("usr.") else name
    if bare.upper() in _KEYWORDS:
        raise fail(C.MQRC_PROPERTY_NAME_ERROR)
    lower = name.lower()
    if lower.startswith("mq") and not lower.startswith("mq_usr") and name.count(".") > 1:
        raise fail(C.MQRC_PROPERTY_NAME_ERROR)
    if name.startswith(_ROOT_MQMD):
        if name[len(_ROOT_MQMD) :] not in MQMD_FIELD_TYPES:
            raise fail(C.MQRC_PROPERTY_NAME_ERROR)
        return name
    if name in ("Body", "Root") or name.startswith(("Body.", "Root.")):
        raise fail(C.MQRC_PROPERTY_NAME_ERROR)
    if not _java_start(name[0]) or name.endswith(".") or ".." in name:
        raise fail(C.MQRC_PROPERTY_NAME_ERROR)
    if not all(ch == "." or _java_part(ch) for ch in name[1:]):
        raise fail(C.MQRC_PROPERTY_NAME_ERROR)
    return name


def qualified_name(name: str) -> str:
    """The name a property is stored under: its MQRFH2 folder path.

    ``Color`` and ``usr.Color`` are one property (``usr.Color``); a JMS synonym is its
    folder element (``JMSCorrelationID`` is ``jms.Cid``); anything else is itself.
    """
    synonym = JMS_SYNONYMS.get(name)
    if synonym is not None:
        return synonym[0]
    if "." not in name:
        return "usr." + name
    return name


def display_name(qualified: str) -> str:
    """The name MQINQMP returns for a stored property: the JMS name of a ``jms.``/``mcd.``
    synonym, ``usr.`` dropped, anything else as stored."""
    jms = _FOLDER_TO_JMS.get(qualified)
    if jms is not None:
        return jms
    if qualified.startswith("usr."):
        return qualified[4:]
    return qualified


def _required_type(name: str) -> int | None:
    if name in JMS_SYNONYMS:
        return JMS_SYNONYMS[name][1]
    if name.startswith(_ROOT_MQMD):
        return MQMD_FIELD_TYPES[name[len(_ROOT_MQMD) :]]
    return _FOLDER_REQUIRED_TYPES.get(name)


_FOLDER_REQUIRED_TYPES = {folder: t for folder, t, _s in JMS_SYNONYMS.values()}


def _wrap(value: int, bits: int) -> int:
    mask = (1 << bits) - 1
    value &= mask
    return value - (1 << bits) if value >> (bits - 1) else value


def _float32(value: float) -> float:
    try:
        return struct.unpack("<f", struct.pack("<f", value))[0]
    except OverflowError:  # out of single-precision range: the C cast gives infinity
        return math.copysign(math.inf, value)


def normalise_value(ptype: int, value: Any, length: int | None = None) -> Any:
    """The value MQSETMP stores for `value` of type `ptype`, as ibmmq's C layer passes it.

    `length` is MQSETMP's ValueLength for strings and byte strings: None for the whole
    value, MQVL_NULL_TERMINATED (strings only) to end at the first NUL, n >= 0 for the
    first n bytes. TypeError for a Python value the C layer cannot take (str for a byte
    string, bytes for a string, a non-number for a number), OverflowError for an integer
    beyond 64 bits; 2473 for a type that is not an MQTYPE_* value, 2005
    MQRC_BUFFER_LENGTH_ERROR for a negative length other than MQVL_NULL_TERMINATED.
    """
    if ptype not in VALUE_TYPES:
        raise fail(C.MQRC_PROPERTY_TYPE_ERROR)
    if ptype == C.MQTYPE_NULL:
        return None
    if ptype == C.MQTYPE_BOOLEAN:
        if isinstance(value, str | bytes) or value is None:
            raise TypeError(f"a boolean property takes a number, not {type(value).__name__}")
        return float(value) != 0.0
    if ptype in _INT_BITS:
        if not isinstance(value, int):
            raise TypeError(f"an integer property takes int, not {type(value).__name__}")
        if not -(1 << 63) <= value < (1 << 64):
            raise OverflowError(f"{value} does not fit in 64 bits")
        return _wrap(value, _INT_BITS[ptype])
    if ptype in _FLOAT_TYPES:
        if isinstance(value, str | bytes) or value is None:
            raise TypeError(f"a float property takes a number, not {type(value).__name__}")
        f = float(value)
        return _float32(f) if ptype == C.MQTYPE_FLOAT32 else f
    if ptype == C.MQTYPE_BYTE_STRING:
        if not isinstance(value, bytes | bytearray | memoryview):
            raise TypeError(f"a byte-string property takes bytes, not {type(value).__name__}")
        b = bytes(value)
        if length is None:
            return b
        if length < 0:
            raise fail(C.MQRC_BUFFER_LENGTH_ERROR)
        return b[:length]
    # MQTYPE_STRING
    if not isinstance(value, str):
        raise TypeError(f"a string property takes str, not {type(value).__name__}")
    value = value.encode("utf-8", "ignore").decode("utf-8")  # as the C layer: no lone surrogates
    if length is None:
        return value
    if length == C.MQVL_NULL_TERMINATED:
        nul = value.find("\0")
        return value if nul < 0 else value[:nul]
    if length < 0:
        raise fail(C.MQRC_BUFFER_LENGTH_ERROR)
    return value.encode("utf-8")[:length].decode("utf-8", "ignore")


def value_length(ptype: int, value: Any) -> int:
    """MQINQMP's DataLength of a value: the fixed size, or the bytes of a (UTF-8) string."""
    if ptype == C.MQTYPE_STRING:
        return len(value.encode("utf-8", "surrogatepass"))
    if ptype == C.MQTYPE_BYTE_STRING:
        return len(value)
    return FIXED_LENGTH[ptype]


@dataclass(frozen=True)
class Property:
    """One stored property: its qualified name, MQTYPE_* and normalised value."""

    name: str
    type: int
    value: Any

    @property
    def display(self) -> str:
        """The name MQINQMP returns for it."""
        return display_name(self.name)


@dataclass(frozen=True)
class Inquired:
    """What MQINQMP returns: the property's name (as a wildcard inquiry returns it), the
    type of the returned value, the value as pymqi/ibmmq give it (None with
    MQIMPO_QUERY_LENGTH) and DataLength."""

    name: str
    type: int
    value: Any
    data_length: int


def pymqi_value(ptype: int, value: Any) -> Any:
    """A stored value as ibmmq's MQINQMP wrapper returns it (BOOLEAN as int 1/0)."""
    if ptype == C.MQTYPE_BOOLEAN:
        return int(bool(value))
    return value


# ---------------------------------------------------------------------------
# MQINQMP type conversion (MQIMPO_CONVERT_TYPE).

_CONVERSIONS: dict[int, frozenset[int]] = {
    C.MQTYPE_BOOLEAN: frozenset((C.MQTYPE_STRING, *_INT_TYPES)),
    C.MQTYPE_BYTE_STRING: frozenset((C.MQTYPE_STRING,)),
    C.MQTYPE_INT8: frozenset((C.MQTYPE_STRING, C.MQTYPE_INT16, C.MQTYPE_INT32, C.MQTYPE_INT64)),
    C.MQTYPE_INT16: frozenset((C.MQTYPE_STRING, C.MQTYPE_INT32, C.MQTYPE_INT64)),
    C.MQTYPE_INT32: frozenset((C.MQTYPE_STRING, C.MQTYPE_INT64)),
    C.MQTYPE_INT64: frozenset((C.MQTYPE_STRING,)),
    C.MQTYPE_FLOAT32: frozenset((C.MQTYPE_STRING, C.MQTYPE_FLOAT64)),
    C.MQTYPE_FLOAT64: frozenset((C.MQTYPE_STRING,)),
    C.MQTYPE_STRING: frozenset((C.MQTYPE_BOOLEAN, *_INT_TYPES, *_FLOAT_TYPES)),
    C.MQTYPE_NULL: frozenset(),
}
"""{property type: the types MQIMPO_CONVERT_TYPE can turn it into} (MQIMPO Options page).
Numbers widen without loss, anything becomes a string, a well-formed string becomes
anything but a byte string."""

_INT_TEXT = re.compile(r"[ ]*([+-]?[0-9]+)")
_FLOAT_TEXT = re.compile(r"[ ]*([+-]?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)")


def float_text(ptype: int, value: float) -> str:
    """A float property as text: the shortest decimal that reads back to the same
    FLOAT32/FLOAT64 value; ``NaN``, ``Infinity``, ``-Infinity`` as Java writes them."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if ptype == C.MQTYPE_FLOAT32:
        for digits in range(1, 10):
            text = f"{value:.{digits}g}"
            if _float32(float(text)) == value:
                return text if any(c in text for c in ".en") else text + ".0"
    return repr(value)


def _to_string(ptype: int, value: Any) -> str:
    if ptype == C.MQTYPE_BOOLEAN:
        return "TRUE" if value else "FALSE"
    if ptype == C.MQTYPE_BYTE_STRING:
        return value.hex().upper()
    if ptype in _FLOAT_TYPES:
        return float_text(ptype, value)
    return str(value)


def _from_string(target: int, text: str) -> Any:
    if target == C.MQTYPE_BOOLEAN:
        t = text.upper()
        if t in ("TRUE", "1"):
            return True
        if t in ("FALSE", "0"):
            return False
        raise fail(C.MQRC_PROP_NUMBER_FORMAT_ERROR)
    if target in _INT_BITS:
        m = _INT_TEXT.match(text)
        if m is None:
            raise fail(C.MQRC_PROP_NUMBER_FORMAT_ERROR)
        n = int(m.group(1))
        bits = _INT_BITS[target]
        if not -(1 << (bits - 1)) <= n < (1 << (bits - 1)):
            raise fail(C.MQRC_PROP_NUMBER_FORMAT_ERROR)
        return n
    m = _FLOAT_TEXT.match(text)
    if m is None:
        raise fail(C.MQRC_PROP_NUMBER_FORMAT_ERROR)
    f = float(m.group(1))
    if target == C.MQTYPE_FLOAT32:
        f32 = _float32(f)
        if math.isinf(f32) and not math.isinf(f):
            raise fail(C.MQRC_PROP_NUMBER_FORMAT_ERROR)
        return f32
    if math.isinf(f):
        raise fail(C.MQRC_PROP_NUMBER_FORMAT_ERROR)
    return f


def convert(ptype: int, value: Any, target: int) -> Any:
    """`value` of type `ptype` as type `target` (MQIMPO_CONVERT_TYPE).

    2470 MQRC_PROP_CONV_NOT_SUPPORTED for a pair the table does not list; 2472
    MQRC_PROP_NUMBER_FORMAT_ERROR for a string that is not ``[blanks][sign]digits``
    (integers; characters after the digits are ignored; a value out of the target's range
    fails too), ``[blanks][sign]digits[.digits][e[sign]digits]`` (floats), or
    TRUE/FALSE/1/0 in any case (boolean). Booleans become "TRUE"/"FALSE" or 1/0, byte
    strings two upper-case hex digits a byte, numbers their decimal text. A NULL
    property has no value to convert: it comes back NULL (the table lists no target for
    it; JMS also gives null for any getter of a null property).
    """
    if target == ptype or ptype == C.MQTYPE_NULL:
        return value
    if target not in _CONVERSIONS.get(ptype, ()):
        raise fail(C.MQRC_PROP_CONV_NOT_SUPPORTED)
    if target == C.MQTYPE_STRING:
        return _to_string(ptype, value)
    if ptype == C.MQTYPE_STRING:
        return _from_string(target, value)
    if ptype == C.MQTYPE_BOOLEAN:
        return 1 if value else 0
    return float(value) if target in _FLOAT_TYPES else int(value)


# ---------------------------------------------------------------------------
# The store.

_INQ_OPTIONS = (
    C.MQIMPO_CONVERT_TYPE
    | C.MQIMPO_QUERY_LENGTH
    | C.MQIMPO_INQ_NEXT
    | C.MQIMPO_INQ_PROP_UNDER_CURSOR
    | C.MQIMPO_CONVERT_VALUE
)


def _matcher(pattern: str):
    """A predicate over stored properties for an MQINQMP/MQDLTMP name (``%`` at the end
    is a wildcard over the stored and the returned form of the name)."""
    if pattern.endswith("%"):
        prefix = pattern[:-1]
        return lambda p: p.name.startswith(prefix) or p.display.startswith(prefix)
    wanted = qualified_name(pattern)
    return lambda p: p.name == wanted


class MessageProperties:
    """The properties of one message handle, in the order they were first set.

    ``set`` replaces the value (and type) of an existing property in place. ``inquire``
    keeps a property cursor as MQINQMP does; ``delete`` may delete the property under it.
    Equality compares the properties and their order, not the cursor.
    """

    def __init__(self, props: Mapping[str, tuple[int, Any]] | None = None) -> None:
        self._props: dict[str, Property] = {}
        self._cursor_name: str | None = None
        self._cursor: str | None = None  # qualified name of the property under the cursor
        # Counts changes: MQPUT keeps the packed form of a handle's properties while this
        # stays the same (adapter/pymqi/msghandle.py:MessageHandles.packed_for_put).
        self.version = 0
        for name, (ptype, value) in (props or {}).items():
            self.set(name, value, ptype)

    # -- MQSETMP ---------------------------------------------------------------------
    def set(
        self,
        name: str | bytes,
        value: Any,
        ptype: int = C.MQTYPE_STRING,
        length: int | None = None,
        validate: bool = True,
    ) -> None:
        """MQSETMP: set (or replace) property `name`.

        2442/2513 for a bad name (unless ``validate`` is False, MQCMHO_NO_VALIDATION:
        only the length is checked); 2473 MQRC_PROPERTY_TYPE_ERROR for a type that is
        not an MQTYPE_* value (MQTYPE_AS_SET included) or, for ``JMS*``/``Root.MQMD.*``
        names, not the type of their field; 2498 MQRC_MIXED_CONTENT_NOT_ALLOWED when
        the name would make a level both a value and a group (``a.b`` beside ``a.b.c``).
        See `normalise_value` for the values taken.
        """
        text = validate_name(name) if validate else _as_name(name)
        if not validate:
            _check_length(text)
        if ptype not in VALUE_TYPES:
            raise fail(C.MQRC_PROPERTY_TYPE_ERROR)
        required = _required_type(text)
        if required is not None and ptype not in (required, C.MQTYPE_NULL):
            raise fail(C.MQRC_PROPERTY_TYPE_ERROR)
        stored = normalise_value(ptype, value, length)
        key = qualified_name(text)
        if key not in self._props:
            for other in self._props:
                if other.startswith(key + ".") or key.startswith(other + "."):
                    raise fail(C.MQRC_MIXED_CONTENT_NOT_ALLOWED)
        self._props[key] = Property(key, ptype, stored)
        self.version += 1

    # -- MQINQMP ---------------------------------------------------------------------
    def inquire(
        self,
        name: str | bytes,
        options: int = C.MQIMPO_INQ_FIRST,
        ptype: int = C.MQTYPE_AS_SET,
        max_length: int | None = None,
    ) -> Inquired:
        """MQINQMP: the property `name` (``%`` at its end is a wildcard).

        MQIMPO_INQ_FIRST (the default) returns the first match and puts the cursor on
        it; MQIMPO_INQ_NEXT the next match after the cursor (the first when the name
        differs from the cursor's or there is no cursor); MQIMPO_INQ_PROP_UNDER_CURSOR
        the property under the cursor again. 2471 MQRC_PROPERTY_NOT_AVAILABLE when
        nothing (more) matches; the cursor stays where it was.

        `ptype` MQTYPE_AS_SET returns the value as set. Another type is used only with
        MQIMPO_CONVERT_TYPE (`convert`; 2470/2472 leave the cursor unchanged); without
        it the value comes back as set, with its own type. 2473 for a `ptype` that is
        not an MQTYPE_* value. MQIMPO_QUERY_LENGTH returns the type and DataLength only.

        `max_length` is the Value buffer: a longer value raises MQCC_WARNING 2469
        MQRC_PROPERTY_VALUE_TOO_BIG with ``value`` (as much as fits, None for a
        fixed-size type), ``data_length`` and ``name``; the cursor moves to the property,
        so INQ_PROP_UNDER_CURSOR with a bigger buffer gets it whole.
        """
        text = _as_name(name)
        _check_length(text)
        if ptype != C.MQTYPE_AS_SET and ptype not in VALUE_TYPES:
            raise fail(C.MQRC_PROPERTY_TYPE_ERROR)
        if options & ~_INQ_OPTIONS or (
            options & C.MQIMPO_INQ_NEXT and options & C.MQIMPO_INQ_PROP_UNDER_CURSOR
        ):
            raise fail(C.MQRC_IMPO_ERROR)
        prop = self._find(text, options)
        rtype, value = prop.type, prop.value
        if options & C.MQIMPO_CONVERT_TYPE and ptype != C.MQTYPE_AS_SET:
            value = convert(prop.type, prop.value, ptype)  # raises before the cursor moves
            rtype = ptype if prop.type != C.MQTYPE_NULL else C.MQTYPE_NULL
        self._cursor_name, self._cursor = text, prop.name
        length = value_length(rtype, value)
        shown = prop.display
        if options & C.MQIMPO_QUERY_LENGTH:
            return Inquired(shown, rtype, None, length)
        value = pymqi_value(rtype, value)
        if max_length is not None and length > max_length:
            raise MQMIError(
                C.MQCC_WARNING,
                C.MQRC_PROPERTY_VALUE_TOO_BIG,
                value=_truncated(rtype, value, max_length),
                data_length=length,
                name=shown,
            )
        return Inquired(shown, rtype, value, length)

    def _find(self, text: str, options: int) -> Property:
        if options & C.MQIMPO_INQ_PROP_UNDER_CURSOR:
            if self._cursor is None or self._cursor_name != text or self._cursor not in self._props:
                raise fail(C.MQRC_PROPERTY_NOT_AVAILABLE)
            return self._props[self._cursor]
        match = _matcher(text)
        after = None
        if options & C.MQIMPO_INQ_NEXT and self._cursor_name == text:
            after = self._cursor
        seen = after is None
        for prop in self._props.values():
            if not seen:
                seen = prop.name == after
                continue
            if match(prop):
                return prop
        raise fail(C.MQRC_PROPERTY_NOT_AVAILABLE)

    # -- MQDLTMP ---------------------------------------------------------------------
    def delete(self, name: str | bytes, options: int = C.MQDMPO_DEL_FIRST) -> str:
        """MQDLTMP: delete the first property matching `name` (or, with
        MQDMPO_DEL_PROP_UNDER_CURSOR, the one under the cursor of an inquiry by the same
        name); return the name MQINQMP would show. 2471 when there is none; 2481
        MQRC_DMPO_ERROR for unknown options."""
        text = _as_name(name)
        _check_length(text)
        if options & ~C.MQDMPO_DEL_PROP_UNDER_CURSOR:
            raise fail(C.MQRC_DMPO_ERROR)
        if options & C.MQDMPO_DEL_PROP_UNDER_CURSOR:
            prop = self._find(text, C.MQIMPO_INQ_PROP_UNDER_CURSOR)
        else:
            prop = self._find(text, C.MQIMPO_INQ_FIRST)
        del self._props[prop.name]
        self.version += 1
        return prop.display

    # -- plain access ----------------------------------------------------------------
    def get(self, name: str, default: Any = None) -> Property | None:
        """The stored `Property` called `name` (any synonym), or `default`."""
        return self._props.get(qualified_name(_as_name(name)), default)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str | bytes) and self.get(name) is not None

    def __iter__(self) -> Iterator[Property]:
        return iter(list(self._props.values()))

    def __len__(self) -> int:
        return len(self._props)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MessageProperties):
            return NotImplemented
        return list(self._props.items()) == list(other._props.items())

    def __repr__(self) -> str:
        inner = ", ".join(f"{p.name}:{TYPE_NAMES[p.type][7:]}={p.value!r}" for p in self)
        return f"MessageProperties({inner})"

    def copy(self) -> MessageProperties:
        """A copy of the properties (without the cursor)."""
        new = MessageProperties()
        new._props = dict(self._props)
        return new

    def add(self, prop: Property) -> None:
        """Store an already checked `Property` (used by decoders; no name validation)."""
        self._props[prop.name] = prop
        self.version += 1


def _truncated(ptype: int, value: Any, n: int) -> Any:
    if ptype == C.MQTYPE_BYTE_STRING:
        return value[:n]
    if ptype == C.MQTYPE_STRING:
        return value.encode("utf-8", "surrogatepass")[:n].decode("utf-8", "ignore")
    return None


# ---------------------------------------------------------------------------
# The message descriptor as JMS / selector properties.


def _md_text(md: Mapping[str, Any], key: str) -> str:
    return mqstr(md.get(key))


def _md_id(md: Mapping[str, Any], key: str) -> bytes:
    v = md.get(key) or b""
    return bytes(v).ljust(24, b"\0")


def put_timestamp_ms(put_date: str, put_time: str) -> int | None:
    """PutDate (YYYYMMDD) and PutTime (HHMMSSTH, GMT) as milliseconds since the epoch, or
    None when they are blank or malformed."""
    if len(put_date) != 8 or len(put_time) < 6 or not (put_date + put_time).isdigit():
        return None
    try:
        seconds = calendar.timegm(
            (
                int(put_date[:4]),
                int(put_date[4:6]),
                int(put_date[6:8]),
                int(put_time[:2]),
                int(put_time[2:4]),
                int(put_time[4:6]),
                0,
                0,
                0,
            )
        )
    except (ValueError, OverflowError):
        return None
    hundredths = int(put_time[6:8]) if len(put_time) >= 8 else 0
    return seconds * 1000 + hundredths * 10


def descriptor_properties(md: Mapping[str, Any]) -> dict[str, Property]:
    """The properties MQ derives from a message descriptor, by the name a selector uses.

    `md` has pymqi's MD field names (``Priority``, ``Persistence``, ``CorrelId``, ...;
    missing fields are skipped). The result has ``Root.MQMD.<field>`` for every field
    given (typed as `MQMD_FIELD_TYPES`: MQCHAR fields as trimmed str, MQBYTE as bytes),
    and the JMS names of "JMS fields and properties with corresponding MQMD fields":

    - JMSDeliveryMode INT32: 2 (PERSISTENT) for MQPER_PERSISTENT, else 1 (NON_PERSISTENT);
    - JMSPriority INT32: Priority;
    - JMSMessageID / JMSCorrelationID STRING: ``"ID:"`` + 48 lower-case hex digits
      (JMSCorrelationID left out while CorrelId is MQCI_NONE, as JMS gives null);
    - JMSTimestamp INT64: PutDate+PutTime (GMT) in ms; JMSExpiration INT64: 0 with
      MQEI_UNLIMITED, else JMSTimestamp + Expiry x 100 ms (the time-to-live JMS encodes);
    - JMSReplyTo STRING: ``queue://<ReplyToQMgr>/<ReplyToQ>`` when ReplyToQ is set;
    - JMSRedelivered BOOLEAN (BackoutCount > 0), JMSXDeliveryCount INT32 (BackoutCount+1);
    - JMSXUserID / JMSXAppID STRING: UserIdentifier / PutApplName, trimmed;
    - JMSXGroupID STRING (``"ID:"`` + hex) and JMSXGroupSeq INT32 only for a message in
      a group (MQMF_MSG_IN_GROUP or MQMF_LAST_MSG_IN_GROUP), as JMS receive() does.

    JMSType and JMSDestination have no MQMD field (they are ``mcd.Type``/``jms.Dst`` in
    the properties). Values in an MQRFH2 ``jms`` folder win over these in JMS; the
    caller lays the message's own properties over this mapping when it wants that.
    """
    out: dict[str, Property] = {}

    def put(name: str, ptype: int, value: Any) -> None:
        out[name] = Property(name, ptype, value)

    for field, ftype in MQMD_FIELD_TYPES.items():
        if field not in md:
            continue
        if ftype == C.MQTYPE_STRING:
            value: Any = _md_text(md, field)
        elif ftype == C.MQTYPE_BYTE_STRING:
            value = bytes(md.get(field) or b"")
        else:
            value = int(md[field])
        put(_ROOT_MQMD + field, ftype, value)

    if "Persistence" in md:
        persistent = int(md["Persistence"]) == C.MQPER_PERSISTENT
        put("JMSDeliveryMode", C.MQTYPE_INT32, 2 if persistent else 1)
    if "Priority" in md:
        put("JMSPriority", C.MQTYPE_INT32, int(md["Priority"]))
    if "MsgId" in md:
        put("JMSMessageID", C.MQTYPE_STRING, "ID:" + _md_id(md, "MsgId").hex())
    if "CorrelId" in md and _md_id(md, "CorrelId") != C.MQCI_NONE:
        put("JMSCorrelationID", C.MQTYPE_STRING, "ID:" + _md_id(md, "CorrelId").hex())
    stamp = put_timestamp_ms(_md_text(md, "PutDate"), _md_text(md, "PutTime"))
    if stamp is not None:
        put("JMSTimestamp", C.MQTYPE_INT64, stamp)
    if "Expiry" in md:
        expiry = int(md["Expiry"])
        if expiry == C.MQEI_UNLIMITED or expiry < 0:
            put("JMSExpiration", C.MQTYPE_INT64, 0)
        elif stamp is not None:
            put("JMSExpiration", C.MQTYPE_INT64, stamp + expiry * 100)
    reply_q = _md_text(md, "ReplyToQ")
    if reply_q:
        put("JMSReplyTo", C.MQTYPE_STRING, f"queue://{_md_text(md, 'ReplyToQMgr')}/{reply_q}")
    if "BackoutCount" in md:
        backouts = int(md["BackoutCount"])
        put("JMSRedelivered", C.MQTYPE_BOOLEAN, backouts > 0)
        put("JMSXDeliveryCount", C.MQTYPE_INT32, backouts + 1)
    if "UserIdentifier" in md:
        put("JMSXUserID", C.MQTYPE_STRING, _md_text(md, "UserIdentifier"))
    if "PutApplName" in md:
        put("JMSXAppID", C.MQTYPE_STRING, _md_text(md, "PutApplName"))
    flags = int(md.get("MsgFlags", 0) or 0)
    if flags & (C.MQMF_MSG_IN_GROUP | C.MQMF_LAST_MSG_IN_GROUP):
        if "GroupId" in md:
            put("JMSXGroupID", C.MQTYPE_STRING, "ID:" + _md_id(md, "GroupId").hex())
        if "MsgSeqNumber" in md:
            put("JMSXGroupSeq", C.MQTYPE_INT32, int(md["MsgSeqNumber"]))
    return out
