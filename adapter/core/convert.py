"""MQGET's data conversion (MQGMO_CONVERT) of character messages. Pure.

IBM's "Conversion processing" (https://www.ibm.com/docs/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q104070_.html)
in order:

1. No conversion is needed when the message is already in the CodedCharSetId and
   Encoding the application's MQMD asks for, or has no data, or the buffer is of length
   zero: returned as it is, the MQMD describing it.
2. Format MQFMT_NONE: returned unconverted, MQCC_WARNING, MQRC_FORMAT_ERROR (2110).
3. A built-in format goes to the queue manager's conversion service; any other format to
   the data-conversion exit of that name, which does not exist here: 2110.
4. A conversion that fails returns the data unconverted, the MQMD describing it (the
   message's CodedCharSetId and Encoding), with MQCC_WARNING and the reason: the
   message's CCSID not supported 2111 (MQRC_SOURCE_CCSID_ERROR,
   https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041720_.html), the requested one
   2115 (MQRC_TARGET_CCSID_ERROR, q041760_), data that does not convert 2119
   (MQRC_NOT_CONVERTED, q041800_: "may also indicate that a parameter to the
   data-conversion service is not supported").

The conversion service here converts MQFMT_STRING (MQSTR) between the character sets
below (Python's codecs); integer encoding means nothing to character data, so an MQSTR
converts to any requested Encoding. The other built-in formats carry MQ headers whose
conversion is not implemented: 2119, the data unconverted. A requested CodedCharSetId of
MQCCSI_Q_MGR (0) is the queue manager's, QMGR_CCSID.
"""

from __future__ import annotations

from dataclasses import dataclass

from adapter.core import cmqc as C

QMGR_CCSID = 1208  # the queue manager's CodedCharSetId (MQIA_CODED_CHAR_SET_ID): UTF-8

MQRC_FORMAT_ERROR = 2110
MQRC_SOURCE_CCSID_ERROR = 2111
MQRC_TARGET_CCSID_ERROR = 2115
MQRC_NOT_CONVERTED = 2119

# CCSID -> Python codec: Unicode, the ISO 8859 and Windows code pages, the PC code pages
# and the EBCDIC code pages Python's standard library has.
CODECS: dict[int, str] = {
    1208: "utf-8",
    1200: "utf-16-be",
    13488: "utf-16-be",
    17584: "utf-16-be",
    1232: "utf-32-be",
    367: "ascii",
    819: "latin-1",
    912: "iso8859-2",
    915: "iso8859-5",
    1089: "iso8859-6",
    813: "iso8859-7",
    916: "iso8859-8",
    920: "iso8859-9",
    923: "iso8859-15",
    437: "cp437",
    850: "cp850",
    852: "cp852",
    858: "cp858",
    866: "cp866",
    1250: "cp1250",
    1251: "cp1251",
    1252: "cp1252",
    5348: "cp1252",
    1253: "cp1253",
    1254: "cp1254",
    1255: "cp1255",
    1256: "cp1256",
    943: "cp932",
    932: "cp932",
    954: "euc-jp",
    1386: "gbk",
    5488: "gb18030",
    950: "cp950",
    949: "cp949",
    37: "cp037",
    273: "cp273",
    500: "cp500",
    875: "cp875",
    1026: "cp1026",
    1140: "cp1140",
}

# The formats MQ's own conversion service handles (cmqc.h MQFMT_*): a format outside
# these needs a data-conversion exit.
BUILT_IN_FORMATS = frozenset(
    f.ljust(8)
    for f in (
        "MQSTR",
        "MQADMIN",
        "MQCHCOM",
        "MQCICS",
        "MQCMD1",
        "MQCMD2",
        "MQDEAD",
        "MQHDIST",
        "MQHEPCF",
        "MQEVENT",
        "MQIMS",
        "MQIMSVS",
        "MQHMDE",
        "MQPCF",
        "MQHREF",
        "MQHRF",
        "MQHRF2",
        "MQHSAP",
        "MQTRIG",
        "MQHWIH",
        "MQXMIT",
    )
)
_STRING = C.MQFMT_STRING.decode()
_NONE = C.MQFMT_NONE.decode()


@dataclass(frozen=True)
class Converted:
    """What MQGET returns: the data, the CodedCharSetId and Encoding that describe it
    (the MQMD's output), and the warning reason when it was not converted."""

    data: bytes
    ccsid: int
    encoding: int
    reason: int | None = None


def convert(
    data: bytes,
    fmt: str,
    ccsid: int,
    encoding: int,
    want_ccsid: int,
    want_encoding: int,
) -> Converted:
    """MQGMO_CONVERT of `data` (Format `fmt`, in `ccsid` / `encoding`) to the MQMD's
    `want_ccsid` / `want_encoding`, by the steps in the module text."""
    target = QMGR_CCSID if want_ccsid == C.MQCCSI_Q_MGR else want_ccsid
    source = QMGR_CCSID if ccsid == C.MQCCSI_Q_MGR else ccsid
    as_is = Converted(data, ccsid, encoding)
    if not data or (source == target and encoding == want_encoding):
        return as_is
    fmt = fmt.ljust(8)
    if fmt == _NONE or fmt not in BUILT_IN_FORMATS:
        return Converted(data, ccsid, encoding, MQRC_FORMAT_ERROR)
    if fmt != _STRING:
        return Converted(data, ccsid, encoding, MQRC_NOT_CONVERTED)
    source_codec, target_codec = CODECS.get(source), CODECS.get(target)
    if source_codec is None:
        return Converted(data, ccsid, encoding, MQRC_SOURCE_CCSID_ERROR)
    if target_codec is None:
        return Converted(data, ccsid, encoding, MQRC_TARGET_CCSID_ERROR)
    if source_codec == target_codec:  # two CCSIDs of one character set: the same bytes
        return Converted(data, target, want_encoding)
    try:
        text = data.decode(source_codec)
        return Converted(text.encode(target_codec), target, want_encoding)
    except (UnicodeDecodeError, UnicodeEncodeError):
        return Converted(data, ccsid, encoding, MQRC_NOT_CONVERTED)
