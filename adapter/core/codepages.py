"""What MQGET's data conversion knows of character sets and numeric encodings, and the
result every format's converter returns. Pure; shared by core/convert.py (the dispatch
by Format), core/convert_headers.py (MQ's header chain) and the PCF converter.

Numeric encodings (the MQMD's Encoding, cmqc.h MQENC_*): an integer part
(MQENC_INTEGER_MASK 0x0f: NORMAL 1 big-endian, REVERSED 2 little-endian), a packed-decimal
part (0xf0: NORMAL 0x10, REVERSED 0x20) and a floating-point part (0xf00: IEEE_NORMAL
0x100, IEEE_REVERSED 0x200, S390 0x300, TNS 0x400); a part of 0 is UNDEFINED. IBM's
reason pages 2112-2114 (the message's Encoding, q041730_ / q041740_ / q041750_) and
2116-2118 (the MQMD's, q041770_ / q041780_ / q041790_) return the data unconverted,
MQCC_WARNING, when a part "is not recognized". Integers cannot be converted from or to
an undefined byte order, so an integer part must be 1 or 2; the decimal and float parts
may also be 0 (the data has none to convert).
"""

from __future__ import annotations

from dataclasses import dataclass

QMGR_CCSID = 1208  # the queue manager's CodedCharSetId (MQIA_CODED_CHAR_SET_ID): UTF-8

MQRC_FORMAT_ERROR = 2110
MQRC_SOURCE_CCSID_ERROR = 2111
MQRC_SOURCE_INTEGER_ENC_ERROR = 2112
MQRC_SOURCE_DECIMAL_ENC_ERROR = 2113
MQRC_SOURCE_FLOAT_ENC_ERROR = 2114
MQRC_TARGET_CCSID_ERROR = 2115
MQRC_TARGET_INTEGER_ENC_ERROR = 2116
MQRC_TARGET_DECIMAL_ENC_ERROR = 2117
MQRC_TARGET_FLOAT_ENC_ERROR = 2118
MQRC_NOT_CONVERTED = 2119
MQRC_CONVERTED_STRING_TOO_BIG = 2190

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

# Character sets without single-byte characters for the characters of queue names: an MQ
# header cannot be in them (2111 / 2115 pages: "The Unicode character set UTF-16 is an
# example of such a character set").
NOT_SBCS = frozenset(("utf-16-be", "utf-32-be"))

_INTEGER = (1, 2)
_DECIMAL = (0, 0x10, 0x20)
_FLOAT = (0, 0x100, 0x200, 0x300, 0x400)


@dataclass(frozen=True)
class Converted:
    """What MQGET returns: the data, the CodedCharSetId and Encoding that describe it
    (the MQMD's output), and the warning reason when it was not (all) converted."""

    data: bytes
    ccsid: int
    encoding: int
    reason: int | None = None


def encoding_error(encoding: int, want_encoding: int) -> int | None:
    """2112 / 2113 / 2114 for a message Encoding with an integer / decimal / float part
    MQ does not recognise, else 2116 / 2117 / 2118 for such a requested Encoding."""
    for value, reasons in (
        (encoding, (2112, 2113, 2114)),
        (want_encoding, (2116, 2117, 2118)),
    ):
        if value & 0x0F not in _INTEGER:
            return reasons[0]
        if value & 0xF0 not in _DECIMAL:
            return reasons[1]
        if value & 0xF00 not in _FLOAT:
            return reasons[2]
    return None


def big_endian(encoding: int) -> bool:
    """True for MQENC_INTEGER_NORMAL (encoding_error has ruled out the others)."""
    return encoding & 0x0F == 1
