"""MQGET's data conversion (MQGMO_CONVERT) of a PCF message (Format MQADMIN, MQEVENT,
MQPCF), as the queue manager's conversion service does it for its built-in formats.
Pure.

- Every integer (the MQLONGs of every structure, MQCFIN64's and MQCFIL64's MQINT64s) is
  rewritten in the requested Encoding's byte order.
- The character strings (MQCFST, MQCFSL, MQCFSF) go from their own CodedCharSetId
  (MQCCSI_DEFAULT: the message's, the MQMD's) to the requested one, their
  StringLength / FilterValueLength and StrucLength recomputed, StrucLength a multiple of
  four. A string with its own CodedCharSetId gets the requested one; one with
  MQCCSI_DEFAULT keeps it, which now means the requested one too. An MQCFSL's strings
  are all of one length: the shorter ones are padded with blanks of the new character
  set.
- Byte strings (MQCFBS, MQCFBF) are not converted.

Failures leave the data unconverted, the MQMD describing it (the message's CodedCharSetId
and Encoding), with MQCC_WARNING and the reason: 2112 MQRC_SOURCE_INTEGER_ENC_ERROR
when the message's integer encoding is neither MQENC_INTEGER_NORMAL nor
MQENC_INTEGER_REVERSED (<https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041730_.html>),
2116 MQRC_TARGET_INTEGER_ENC_ERROR the same of the requested one (q041770_), 2111 / 2115
a CCSID with no character set here (the message's or a string's / the requested one), 2119
MQRC_NOT_CONVERTED a string that does not convert (q041800_), and 2110 MQRC_FORMAT_ERROR
data that is not a valid PCF message ("the message contains data that is not consistent
with the format definition", q041710_).
"""

from __future__ import annotations

from adapter.core import cmqc as C
from adapter.core import codepages
from adapter.core import pcf as P
from adapter.core.codepages import Converted

_INTEGER_ENCODINGS = (C.MQENC_INTEGER_NORMAL, C.MQENC_INTEGER_REVERSED)


def convert_pcf(
    data: bytes, ccsid: int, encoding: int, want_ccsid: int, want_encoding: int
) -> Converted:
    """MQGMO_CONVERT of the PCF message `data` (in `ccsid` / `encoding`, the MQMD's) to
    `want_ccsid` / `want_encoding`, by the rules in the module text."""
    source = codepages.QMGR_CCSID if ccsid == C.MQCCSI_Q_MGR else ccsid
    target = codepages.QMGR_CCSID if want_ccsid == C.MQCCSI_Q_MGR else want_ccsid
    if not data or (source == target and encoding == want_encoding):
        return Converted(data, ccsid, encoding)

    def unconverted(reason: int) -> Converted:
        return Converted(data, ccsid, encoding, reason)

    if encoding & C.MQENC_INTEGER_MASK not in _INTEGER_ENCODINGS:
        return unconverted(C.MQRC_SOURCE_INTEGER_ENC_ERROR)
    if want_encoding & C.MQENC_INTEGER_MASK not in _INTEGER_ENCODINGS:
        return unconverted(C.MQRC_TARGET_INTEGER_ENC_ERROR)
    if codepages.CODECS.get(source) is None:
        return unconverted(codepages.MQRC_SOURCE_CCSID_ERROR)
    if codepages.CODECS.get(target) is None:
        return unconverted(codepages.MQRC_TARGET_CCSID_ERROR)
    message = P.parse(data, encoding)
    if isinstance(message, int):
        return unconverted(codepages.MQRC_FORMAT_ERROR)
    try:
        params = [_convert_param(p, source, target, codepages.CODECS) for p in message.params]
    except LookupError:  # a string's own CodedCharSetId names no character set here
        return unconverted(codepages.MQRC_SOURCE_CCSID_ERROR)
    except ValueError:  # a string that does not convert (UnicodeError)
        return unconverted(codepages.MQRC_NOT_CONVERTED)
    return Converted(P.encode(message.header, params, want_encoding), target, want_encoding)


def _convert_param(param: P.Param, source: int, target: int, codecs: dict[int, str]) -> P.Param:
    """`param` with its character strings in `target` (integers are re-encoded by
    P.encode; the rest is kept)."""
    if param.type not in P.CHARACTER_TYPES:
        return param
    own = param.ccsid if param.ccsid != C.MQCCSI_DEFAULT else source
    new_ccsid = param.ccsid if param.ccsid == C.MQCCSI_DEFAULT else target
    if own == target:
        return P.Param(param.type, param.parameter, param.value, new_ccsid, param.operator)
    from_codec, to_codec = codecs[own], codecs[target]  # KeyError: not a known CCSID

    def one(raw: bytes) -> bytes:
        if from_codec == to_codec:  # two CCSIDs of one character set: the same bytes
            return raw
        return raw.decode(from_codec).encode(to_codec)  # UnicodeError: not convertible

    value: bytes | tuple[bytes, ...]
    if isinstance(param.value, bytes):
        value = one(param.value)
    else:  # MQCFSL: each string, then all padded to the longest
        strings = [one(s) for s in param.value]
        size = max((len(s) for s in strings), default=0)
        blank = " ".encode(to_codec)
        value = tuple(s + blank * ((size - len(s)) // len(blank)) for s in strings)
        if any(len(s) != size for s in value):  # a blank does not fill the gap evenly
            raise ValueError("the strings of an MQCFSL are not of one length")
    return P.Param(param.type, param.parameter, value, new_ccsid, param.operator)
