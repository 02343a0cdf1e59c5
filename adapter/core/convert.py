"""MQGET's data conversion (MQGMO_CONVERT): the dispatch by Format. Pure.

IBM's "Conversion processing" (https://www.ibm.com/docs/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q104070_.html)
in order:

1. No conversion is needed when the message is already in the CodedCharSetId and
   Encoding the application's MQMD asks for, or has no data, or the buffer is of length
   zero: returned as it is, the MQMD describing it.
2. Format MQFMT_NONE: returned unconverted, MQCC_WARNING, MQRC_FORMAT_ERROR (2110).
3. A built-in format goes to the queue manager's conversion service (CONVERTERS below);
   any other format to the data-conversion exit of that name, which does not exist
   here: 2110. A built-in format with no converter here: 2119, unconverted.
4. A conversion that fails returns the data unconverted, the MQMD describing it (the
   message's CodedCharSetId and Encoding), with MQCC_WARNING and the reason: the
   message's CCSID not supported 2111 (MQRC_SOURCE_CCSID_ERROR,
   https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041720_.html), the requested one
   2115 (MQRC_TARGET_CCSID_ERROR, q041760_), an Encoding whose integer, decimal or float
   part is not recognised 2112-2114 (the message's) or 2116-2118 (the requested one;
   core/codepages.py), a string that no longer fits its fixed-length field 2190
   (MQRC_CONVERTED_STRING_TOO_BIG, q042320_), data that does not convert 2119
   (MQRC_NOT_CONVERTED, q041800_).

Converters (signature `(data, ccsid, encoding, want_ccsid, want_encoding) -> Converted`):

- MQFMT_STRING (MQSTR), here: characters between the CODECS character sets. It holds no
  numbers, so its Encoding is never looked at ("Processing conventions": an unsupported
  value that is not needed for the conversion may go undiagnosed) and it converts to any
  requested Encoding.
- The MQ header formats MQDEAD, MQHRF2, MQHRF, MQXMIT, MQTRIG, MQHREF, MQHMDE and MQIMS, in
  core/convert_headers.py: each header converted, then the part it names (a chain of
  headers walked in a loop, the first part that is not a header converted through
  `convert_part`); a later part that fails leaves the parts before it
  converted, its own header's fields describing it unconverted, and the call warns
  with that part's reason (the reason pages: "some parts may be converted and other
  parts not converted. However, the values returned in the various CodedCharSetId and
  Encoding fields always correctly describe the relevant message data").
- MQADMIN / MQEVENT / MQPCF: core/pcfconvert.py:convert_pcf.

A requested CodedCharSetId of MQCCSI_Q_MGR (0) is the queue manager's, QMGR_CCSID.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from adapter.core import cmqc as C
from adapter.core import convert_headers as H
from adapter.core.codepages import (
    CODECS,
    MQRC_CONVERTED_STRING_TOO_BIG,
    MQRC_FORMAT_ERROR,
    MQRC_NOT_CONVERTED,
    MQRC_SOURCE_CCSID_ERROR,
    MQRC_SOURCE_DECIMAL_ENC_ERROR,
    MQRC_SOURCE_FLOAT_ENC_ERROR,
    MQRC_SOURCE_INTEGER_ENC_ERROR,
    MQRC_TARGET_CCSID_ERROR,
    MQRC_TARGET_DECIMAL_ENC_ERROR,
    MQRC_TARGET_FLOAT_ENC_ERROR,
    MQRC_TARGET_INTEGER_ENC_ERROR,
    QMGR_CCSID,
    Converted,
)
from adapter.core.pcfconvert import convert_pcf

__all__ = [
    "BUILT_IN_FORMATS",
    "CODECS",
    "CONVERTERS",
    "MQRC_CONVERTED_STRING_TOO_BIG",
    "MQRC_FORMAT_ERROR",
    "MQRC_NOT_CONVERTED",
    "MQRC_SOURCE_CCSID_ERROR",
    "MQRC_SOURCE_DECIMAL_ENC_ERROR",
    "MQRC_SOURCE_FLOAT_ENC_ERROR",
    "MQRC_SOURCE_INTEGER_ENC_ERROR",
    "MQRC_TARGET_CCSID_ERROR",
    "MQRC_TARGET_DECIMAL_ENC_ERROR",
    "MQRC_TARGET_FLOAT_ENC_ERROR",
    "MQRC_TARGET_INTEGER_ENC_ERROR",
    "QMGR_CCSID",
    "Converted",
    "convert",
    "convert_part",
    "convert_string",
]

Converter = Callable[[bytes, int, int, int, int], Converted]

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
_NONE = C.MQFMT_NONE.decode()


def _target(ccsid: int) -> int:
    return QMGR_CCSID if ccsid == C.MQCCSI_Q_MGR else ccsid


def convert_string(
    data: bytes, ccsid: int, encoding: int, want_ccsid: int, want_encoding: int
) -> Converted:
    """MQFMT_STRING: the characters from `ccsid` to `want_ccsid`; any Encoding."""
    source, target = _target(ccsid), _target(want_ccsid)
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


def convert_part(
    data: bytes, fmt: str, ccsid: int, encoding: int, want_ccsid: int, want_encoding: int
) -> Converted:
    """One part of a message (the whole of it, or what an MQ header names), steps 1-4:
    the data as it is when there is nothing to convert, else its Format's converter."""
    if not data or (_target(ccsid) == _target(want_ccsid) and encoding == want_encoding):
        return Converted(data, ccsid, encoding)
    fmt = fmt.ljust(8)
    if fmt == _NONE or fmt not in BUILT_IN_FORMATS:
        return Converted(data, ccsid, encoding, MQRC_FORMAT_ERROR)
    converter = CONVERTERS.get(fmt)
    if converter is None:
        return Converted(data, ccsid, encoding, MQRC_NOT_CONVERTED)
    return converter(data, ccsid, encoding, _target(want_ccsid), want_encoding)


CONVERTERS: dict[str, Converter] = {
    C.MQFMT_STRING.decode(): convert_string,
    **{fmt: partial(conv, next_part=convert_part) for fmt, conv in H.CONVERTERS.items()},
    # The PCF formats: integers re-encoded, strings converted (core/pcfconvert.py).
    **dict.fromkeys(("MQADMIN ", "MQEVENT ", "MQPCF   "), convert_pcf),
}


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
    return convert_part(data, fmt, ccsid, encoding, want_ccsid, want_encoding)
