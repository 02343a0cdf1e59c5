"""MQGET's data conversion of MQ's header formats: MQDLH (MQDEAD), MQRFH2 (MQHRF2), MQRFH
(MQHRF), MQXQH (MQXMIT, with the MQMD inside it), MQTMC2 and MQTMC (MQTRIG), MQRMH
(MQHREF), MQMDE (MQHMDE) and MQIIH (MQIMS). Pure; core/convert.py dispatches to
CONVERTERS.

IBM's "Processing conventions"
(https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=exit-processing-conventions): a header's
MQLONG fields go to the requested Encoding's byte order, its MQCHAR fields to the
requested character set; MQBYTE fields (MsgId, CorrelId, ObjectInstanceId, ...) stay as
they are. A string in a fixed-length field may expand or shrink: a shorter one is padded
with blanks, a longer one may lose its trailing blanks and whatever follows its first
null; if it still does not fit, 2190 MQRC_CONVERTED_STRING_TOO_BIG
(https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.tro.doc/q042320_.html) and the part
is returned unconverted. The strings an MQRMH addresses by offset expand or shrink as
they need, the header's offsets and StrucLength following them; so does an MQRFH's
NameValueString (padded with blanks to a multiple of 4 when it changes). An MQRFH2's
NameValueData stays in its NameValueCCSID (1200, 13488, 17584 or 1208, else 2111),
UTF-16 taking the byte order of the header's integers ("MQRFH2 - Rules and formatting
header 2", q099240_, and "NameValueCCSID", q099310_).

A header must be in a character set with single-byte characters for queue names, not
UTF-16 or UTF-32 (the 2111 / 2115 pages); its Encoding must be one MQ recognises
(core/codepages.py, 2112-2118), except MQTMC2's, which has no numbers. A header that does
not parse (StrucId, Version, StrucLength, lengths) is returned unconverted with 2119
MQRC_NOT_CONVERTED.

A chained header's Format, CodedCharSetId (MQCCSI_INHERIT: the header's own) and
Encoding name the next part, which is converted by the same rules; the header's fields
are then set to describe that part as returned. MQIIH's CodedCharSetId and Encoding are
reserved: what follows it is in the MQIIH's own character set and encoding ("Encoding
(MQLONG) for MQIIH", q097020_), so it converts with the header or the whole message stays
unconverted. When the next part cannot be converted
the header stays converted, its fields keep the next part's own values, and the reason
is the next part's: IBM's reason pages (2111, 2112, 2190, ...) "some parts may be
converted and other parts not converted. However, the values returned in the various
CodedCharSetId and Encoding fields always correctly describe the relevant message data".
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from adapter.core import cmqc as C
from adapter.core.codepages import (
    CODECS,
    MQRC_CONVERTED_STRING_TOO_BIG,
    MQRC_NOT_CONVERTED,
    MQRC_SOURCE_CCSID_ERROR,
    MQRC_TARGET_CCSID_ERROR,
    NOT_SBCS,
    QMGR_CCSID,
    Converted,
    big_endian,
    encoding_error,
)

NextPart = Callable[[bytes, str, int, int, int, int], Converted]

_MD1 = "c4 l l l l l l l c8 l l b24 b24 l c48 c48 c12 b32 c32 l c28 c8 c8 c4"
_RFH2_NAME_VALUE_CCSIDS = (1200, 13488, 17584, 1208)


class _NotConvertedError(Exception):
    def __init__(self, reason: int) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class _Codings:
    """The character sets (Python codecs) and integer byte orders of one conversion."""

    src: str
    dst: str
    src_order: str
    dst_order: str

    def long(self, data: bytes, at: int) -> int:
        return struct.unpack_from(self.src_order + "i", data, at)[0]

    def pack(self, value: int) -> bytes:
        return struct.pack(self.dst_order + "i", value)

    def text(self, raw: bytes) -> str:
        return raw.decode(self.src, "replace")


# A header's variable part after its fixed fields: (data, StrucLength, codings, the
# converted fixed part, which it may patch) -> the converted variable part.
VarPart = Callable[[bytes, int, _Codings, bytearray], bytes]


def _exactly_fixed(data: bytes, length: int, cod: _Codings, out: bytearray) -> bytes:
    if length != len(out):
        raise _NotConvertedError(MQRC_NOT_CONVERTED)
    return b""


@dataclass(frozen=True)
class _Header:
    struc_id: str
    version: int | str  # an MQLONG at offset 4, or MQTMC2's four characters
    fields: str  # c<n> characters, l an MQLONG, b<n> bytes
    chain: tuple[int, int, int] | None = None  # offsets of Encoding, CodedCharSetId, Format
    struc_length_at: int | None = None
    numeric: bool = True
    var_part: VarPart = _exactly_fixed
    inner: tuple[tuple[int, str, tuple[int, ...]], ...] = ()  # (offset, StrucId, versions)
    # MQIIH: CodedCharSetId and Encoding are reserved; what follows is in the header's own
    same_coding: bool = False

    @property
    def layout(self) -> list[tuple[str, int]]:
        return [(f[0], 4 if f == "l" else int(f[1:])) for f in self.fields.split()]

    @property
    def length(self) -> int:
        return sum(n for _, n in self.layout)


def _chars(raw: bytes, cod: _Codings) -> bytes:
    """A fixed-length MQCHAR field in the target character set, by the conventions."""
    if cod.src == cod.dst:
        return raw
    n = len(raw)
    blank = " ".encode(cod.dst)
    try:
        out = raw.decode(cod.src).encode(cod.dst)
    except UnicodeError:
        out = None
    if out is not None and len(out) <= n:
        return out + blank * (n - len(out))
    significant, nul, _ = raw.partition(b"\0")
    try:
        out = significant.decode(cod.src).rstrip(" ").encode(cod.dst)
    except UnicodeError as exc:
        raise _NotConvertedError(MQRC_NOT_CONVERTED) from exc
    if len(out) > n:
        raise _NotConvertedError(MQRC_CONVERTED_STRING_TOO_BIG)
    return out + (b"\0" if nul else blank) * (n - len(out))


def _fixed(data: bytes, header: _Header, cod: _Codings) -> bytearray:
    out = bytearray()
    pos = 0
    for kind, n in header.layout:
        chunk = data[pos : pos + n]
        if kind == "l":
            out += cod.pack(cod.long(data, pos))
        elif kind == "b":
            out += chunk
        else:
            out += _chars(chunk, cod)
        pos += n
    return out


def _check(data: bytes, header: _Header, cod: _Codings) -> int:
    """The header's StrucLength (its fixed length if it has none); 2119 if the data does
    not start with a valid one."""
    fixed = header.length
    if len(data) < fixed or cod.text(data[:4]) != header.struc_id:
        raise _NotConvertedError(MQRC_NOT_CONVERTED)
    if isinstance(header.version, str):
        if cod.text(data[4:8]) != header.version:
            raise _NotConvertedError(MQRC_NOT_CONVERTED)
    elif cod.long(data, 4) != header.version:
        raise _NotConvertedError(MQRC_NOT_CONVERTED)
    for at, struc_id, versions in header.inner:
        if cod.text(data[at : at + 4]) != struc_id or cod.long(data, at + 4) not in versions:
            raise _NotConvertedError(MQRC_NOT_CONVERTED)
    if header.struc_length_at is None:
        return fixed
    length = cod.long(data, header.struc_length_at)
    if not fixed <= length <= len(data):
        raise _NotConvertedError(MQRC_NOT_CONVERTED)
    return length


def _codec(ccsid: int) -> str | None:
    codec = CODECS.get(QMGR_CCSID if ccsid == C.MQCCSI_Q_MGR else ccsid)
    return None if codec in NOT_SBCS else codec


@dataclass(frozen=True)
class _Done:
    """One header converted: where it was, its converted bytes and what follows it."""

    header: _Header
    data: bytes  # from this header on
    ccsid: int
    encoding: int
    out: bytearray
    cod: _Codings
    rest: bytes


def _convert_one(
    header: _Header, data: bytes, ccsid: int, encoding: int, want_ccsid: int, want_encoding: int
) -> _Done | int:
    """The header at the start of `data` converted, or the reason it is not."""
    src, dst = _codec(ccsid), _codec(want_ccsid)
    if src is None:
        return MQRC_SOURCE_CCSID_ERROR
    if dst is None:
        return MQRC_TARGET_CCSID_ERROR
    if header.numeric:
        reason = encoding_error(encoding, want_encoding)
        if reason is not None:
            return reason
    order = ">" if big_endian(encoding) else "<"
    to = ">" if big_endian(want_encoding) else "<"
    cod = _Codings(src, dst, order if header.numeric else ">", to if header.numeric else ">")
    try:
        length = _check(data, header, cod)
        out = _fixed(data, header, cod)
        out += header.var_part(data, length, cod, out)
    except _NotConvertedError as failed:
        return failed.reason
    return _Done(header, data, ccsid, encoding, out, cod, data[length:])


def _header_for(fmt: str, data: bytes, ccsid: int) -> _Header | None:
    """The header layout Format `fmt` names (MQTRIG: MQTMC2, or MQTMC by its Version)."""
    if fmt == "MQTRIG  ":
        src = _codec(ccsid)
        version_1 = src is not None and data[4:8].decode(src, "replace") == "   1"
        return _TMC if version_1 else _TMC2
    return _HEADERS.get(fmt)


def _linked(done: _Done, part: Converted, want_ccsid: int, want_encoding: int) -> Converted:
    """The converted header `done` with the part after it as returned (`part`), its
    fields set to describe that part."""
    header, out, cod, rest = done.header, done.out, done.cod, done.rest
    if header.chain is None:  # nothing named after it: any bytes after it stay as they are
        return Converted(bytes(out) + rest, want_ccsid, want_encoding)
    if header.same_coding:
        if rest and ((part.ccsid or QMGR_CCSID) != want_ccsid or part.encoding != want_encoding):
            # nothing could say the rest is not converted: all of it stays as it was
            return Converted(done.data, done.ccsid, done.encoding, part.reason)
        return Converted(bytes(out) + part.data, want_ccsid, want_encoding, part.reason)
    enc_at, ccsid_at, _ = header.chain
    next_enc, next_ccsid = cod.long(done.data, enc_at), cod.long(done.data, ccsid_at)
    if rest:  # the fields describe the next part as it is returned
        same_set = (part.ccsid or QMGR_CCSID) == want_ccsid
        inherit = next_ccsid == C.MQCCSI_INHERIT
        next_enc = part.encoding
        next_ccsid = C.MQCCSI_INHERIT if inherit and same_set else part.ccsid
    out[enc_at : enc_at + 4] = cod.pack(next_enc)
    out[ccsid_at : ccsid_at + 4] = cod.pack(next_ccsid)
    return Converted(bytes(out) + part.data, want_ccsid, want_encoding, part.reason)


def convert_chain(
    fmt: str,
    data: bytes,
    ccsid: int,
    encoding: int,
    want_ccsid: int,
    want_encoding: int,
    *,
    next_part: NextPart,
) -> Converted:
    """The header Format `fmt` names at the start of `data` and the parts it chains to,
    by the module text: the headers in a loop (a chain of any length), the first part
    that is not a header to convert through `next_part`, then each header's fields set
    from the part after it, last to first. `want_ccsid` is a CCSID (MQCCSI_Q_MGR
    already resolved)."""
    done: list[_Done] = []
    header = _header_for(fmt, data, ccsid)
    while True:
        one = (
            _convert_one(header, data, ccsid, encoding, want_ccsid, want_encoding)
            if header is not None
            else MQRC_NOT_CONVERTED
        )
        if isinstance(one, int):
            part = Converted(data, ccsid, encoding, one)
            break
        done.append(one)
        if one.header.chain is None:
            part = Converted(b"", want_ccsid, want_encoding)
            break
        enc_at, ccsid_at, fmt_at = one.header.chain
        fmt = one.cod.text(data[fmt_at : fmt_at + 8])
        if not one.header.same_coding:
            encoding, next_ccsid = one.cod.long(data, enc_at), one.cod.long(data, ccsid_at)
            ccsid = ccsid if next_ccsid == C.MQCCSI_INHERIT else next_ccsid
        data = one.rest
        header = _header_for(fmt, data, ccsid)
        as_is = (ccsid or QMGR_CCSID) == want_ccsid and encoding == want_encoding
        if header is None or not data or as_is:  # not a header, or nothing to convert
            part = next_part(data, fmt, ccsid, encoding, want_ccsid, want_encoding)
            break
    for one in reversed(done):
        part = _linked(one, part, want_ccsid, want_encoding)
    return part


def _swap16(value: bytes) -> bytes:
    if len(value) % 2:
        raise _NotConvertedError(MQRC_NOT_CONVERTED)
    out = bytearray(value)
    out[0::2], out[1::2] = value[1::2], value[0::2]
    return bytes(out)


def _rfh2_name_values(data: bytes, length: int, cod: _Codings, out: bytearray) -> bytes:
    """NameValueLength + NameValueData pairs: the lengths converted, the data left in its
    NameValueCCSID (UTF-16 in the byte order of the header's integers)."""
    nv_ccsid = cod.long(data, 32)
    if nv_ccsid not in _RFH2_NAME_VALUE_CCSIDS:
        raise _NotConvertedError(MQRC_SOURCE_CCSID_ERROR)
    swap = nv_ccsid != 1208 and cod.src_order != cod.dst_order
    parts = []
    pos = len(out)
    while pos < length:
        n = cod.long(data, pos) if pos + 4 <= length else -1
        if n < 0 or pos + 4 + n > length:
            raise _NotConvertedError(MQRC_NOT_CONVERTED)
        value = data[pos + 4 : pos + 4 + n]
        parts.append(cod.pack(n) + (_swap16(value) if swap else value))
        pos += 4 + n
    return b"".join(parts)


def _rfh_name_values(data: bytes, length: int, cod: _Codings, out: bytearray) -> bytes:
    """MQRFH's NameValueString: characters, expanding or shrinking as they need, padded
    with blanks to a multiple of 4 when they change length, StrucLength following."""
    raw = data[len(out) : length]
    try:
        text = raw.decode(cod.src).encode(cod.dst)
    except UnicodeError as exc:
        raise _NotConvertedError(MQRC_NOT_CONVERTED) from exc
    if len(text) != len(raw):
        text += " ".encode(cod.dst) * (-(len(out) + len(text)) % 4)
        out[8:12] = cod.pack(len(out) + len(text))
    return text


_RMH_STRINGS = ((64, 68), (72, 76), (80, 84), (88, 92))  # SrcEnv, SrcName, DestEnv, DestName


def _rmh_strings(data: bytes, length: int, cod: _Codings, out: bytearray) -> bytes:
    """The four strings an MQRMH addresses by (length, offset), converted; laid out again
    after the fixed part, offsets and StrucLength updated, when one changes length."""
    fixed = len(out)
    strings = []
    for len_at, off_at in _RMH_STRINGS:
        n, off = cod.long(data, len_at), cod.long(data, off_at)
        if n < 0 or (n > 0 and not (fixed <= off and off + n <= length)):
            raise _NotConvertedError(MQRC_NOT_CONVERTED)
        try:
            text = data[off : off + n].decode(cod.src).encode(cod.dst) if n else b""
        except UnicodeError as exc:
            raise _NotConvertedError(MQRC_NOT_CONVERTED) from exc
        strings.append((off, n, text, len_at, off_at))
    if all(len(text) == n for _, n, text, _, _ in strings):
        var = bytearray(data[fixed:length])
        for off, n, text, _, _ in strings:
            var[off - fixed : off - fixed + n] = text
        return bytes(var)
    var = bytearray()
    for _off, _, text, len_at, off_at in sorted(strings):
        out[len_at : len_at + 4] = cod.pack(len(text))
        out[off_at : off_at + 4] = cod.pack(fixed + len(var) if text else 0)
        var += text
    out[8:12] = cod.pack(fixed + len(var))
    return bytes(var)


_DLH = _Header("DLH ", 1, "c4 l l c48 c48 l l c8 l c28 c8 c8", chain=(108, 112, 116))
_XQH = _Header(
    "XQH ", 1, "c4 l c48 c48 " + _MD1, chain=(128, 132, 136), inner=((104, "MD  ", (1, 2)),)
)
_MDE = _Header("MDE ", 2, "c4 l l l l c8 l b24 l l l l", chain=(12, 16, 20), struc_length_at=8)
_RFH2 = _Header(
    "RFH ",
    2,
    "c4 l l l l c8 l l",
    chain=(12, 16, 20),
    struc_length_at=8,
    var_part=_rfh2_name_values,
)
_RMH = _Header(
    "RMH ",
    1,
    "c4 l l l l c8 l c8 b24" + " l" * 11,
    chain=(12, 16, 20),
    struc_length_at=8,
    var_part=_rmh_strings,
)
_RFH = _Header(
    "RFH ",
    1,
    "c4 l l l l c8 l",
    chain=(12, 16, 20),
    struc_length_at=8,
    var_part=_rfh_name_values,
)
_IIH = _Header(
    "IIH ",
    1,
    "c4 l l l l c8 l c8 c8 c8 c8 b16 c1 c1 c1 c1",
    chain=(12, 16, 20),
    struc_length_at=8,
    same_coding=True,
)
_TMC_1_FIELDS = "c4 c4 c48 c48 c64 c4 c256 c128 c128"
_TMC = _Header("TMC ", "   1", _TMC_1_FIELDS, numeric=False)
_TMC2 = _Header("TMC ", "   2", _TMC_1_FIELDS + " c48", numeric=False)
assert (_DLH.length, _XQH.length, _MDE.length, _RFH2.length, _RMH.length) == (
    172,
    428,
    72,
    36,
    108,
)
assert (_TMC.length, _TMC2.length, _RFH.length, _IIH.length) == (684, 732, 32, 84)


_HEADERS = {
    C.MQFMT_DEAD_LETTER_HEADER.decode(): _DLH,
    C.MQFMT_XMIT_Q_HEADER.decode(): _XQH,
    C.MQFMT_MD_EXTENSION.decode(): _MDE,
    C.MQFMT_RF_HEADER_2.decode(): _RFH2,
    "MQHRF   ": _RFH,
    "MQIMS   ": _IIH,
    "MQHREF  ": _RMH,
}

LAYOUTS: dict[str, _Header] = {**_HEADERS, "MQTRIG  ": _TMC2}
"""Format -> the layout of the MQ header it names (MQTRIG: MQTMC2, what MQPUT takes):
StrucId, Version, fixed length, the offsets of Encoding/CodedCharSetId/Format and of
StrucLength. The one description of these headers: MQPUT's checks (mqheaders.py) read
it too."""

CONVERTERS: dict[str, Callable[..., Converted]] = {
    fmt: partial(convert_chain, fmt) for fmt in (*_HEADERS, "MQTRIG  ")
}
"""Format -> converter `(data, ccsid, encoding, want_ccsid, want_encoding, *, next_part)`."""
