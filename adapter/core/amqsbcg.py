"""The output of IBM MQ's Browser sample, amqsbcg, as lines of text: the message
descriptor block, the message properties block and the hex-and-character dump of the
data, so `mqk browse` (adapter/tools/amqs.py) prints what MQ people read every day.

Pure: plain values in (an MQMD as a mapping of field name to value, bytes, properties as
(name, MQTYPE_*, value)), lines out; no I/O. Joined with newlines, the lines are the
program's output byte for byte (its blank lines hold one space, as it prints them).

Where the layout comes from:

- The sample's source, samp/amqsbcg0.c of IBM MQ 9.4.4 (MQMBID sn=p944-L251007):
  printMD (two fields on the first lines, `%d` integers, `'%.*s'` characters at their
  MQ widths, MQBYTE fields as `X'` + `%02X` per byte), printProperties (`  name : value`;
  TRUE/FALSE, X'..', `%.12g` FLOAT32, `%.18g` FLOAT64, `%u` INT8, NULL, '...'), the dump
  in main (`%08X: ` offsets, 16 bytes a line in two-byte groups, a character column with
  '.' where `isprint` fails, the blank line every 60 lines, the MBCS handling that keeps
  a multibyte character whole and the column padding of `(MB_CUR_MAX - overrun - 1) * 2`
  blanks) and the summary at the end.
- "The Browser sample program":
  https://www.ibm.com/docs/SSFKSJ_9.4.0/develop/q024070_.html (parameters; property
  option 1 = a message handle, "****Message properties****" then the properties or
  "None"; numbers as printf prints them, strings in quotes, byte strings as X'..').
- "Browsing queues with the sample program":
  https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=queues-browsing-sample-program
  (typical output).

The character column is the sample's in a UTF-8 locale on Linux (MB_CUR_MAX 6, the
padding of ten blanks IBM's own container output shows); `mbcs_max=1` gives the C
locale's. One deliberate difference: a multibyte character that is not printable (C1
controls, for one) shows as '.', where the sample writes it raw to the terminal.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from adapter.core import cmqc as C  # noqa: N812 (the project-wide alias)
from adapter.core.errors import reason_name

__all__ = [
    "CHARS_PER_LINE",
    "UTF8_MB_CUR_MAX",
    "BrowseSummary",
    "banner_lines",
    "data_lines",
    "dlh_lines",
    "get_failed_lines",
    "md_lines",
    "message_lines",
    "no_more_lines",
    "open_lines",
    "property_line",
    "property_lines",
    "property_value",
]

CHARS_PER_LINE = 16
UTF8_MB_CUR_MAX = 6  # glibc's MB_CUR_MAX in a UTF-8 locale
_PAGE = 60  # the sample prints a line of one blank every 60 dump lines
_FIRST_PAGE_USED = 29  # lines the first message's header takes on its page
_NEXT_PAGE_USED = 22  # ... and every later message's

# MQMD_DEFAULT, for the fields a caller does not give (what MQ prints for them).
_MD_DEFAULTS: dict[str, Any] = {
    "StrucId": C.MQMD_STRUC_ID,
    "Version": C.MQMD_VERSION_2,  # the sample asks for a version-2 MQMD
    "Report": C.MQRO_NONE,
    "MsgType": C.MQMT_DATAGRAM,
    "Expiry": C.MQEI_UNLIMITED,
    "Feedback": C.MQFB_NONE,
    "Encoding": C.MQENC_NATIVE,
    "CodedCharSetId": C.MQCCSI_Q_MGR,
    "Format": C.MQFMT_NONE,
    "Priority": 0,
    "Persistence": C.MQPER_NOT_PERSISTENT,
    "MsgId": C.MQMI_NONE,
    "CorrelId": C.MQCI_NONE,
    "BackoutCount": 0,
    "ReplyToQ": b"",
    "ReplyToQMgr": b"",
    "UserIdentifier": b"",
    "AccountingToken": bytes(C.MQ_ACCOUNTING_TOKEN_LENGTH),  # MQACT_NONE
    "ApplIdentityData": b"",
    "PutApplType": C.MQAT_NO_CONTEXT,
    "PutApplName": b"",
    "PutDate": b"",
    "PutTime": b"",
    "ApplOriginData": b"",
    "GroupId": C.MQGI_NONE,
    "MsgSeqNumber": 1,
    "Offset": 0,
    "MsgFlags": C.MQMF_NONE,
    "OriginalLength": C.MQOL_UNDEFINED,
}


def _field(md: Mapping[str, Any], name: str) -> Any:
    # pymqi's MD.get() names StrucId "_StrucId" (ibmmq v2's spelling); either is taken.
    for key in (name, "_" + name):
        if key in md:
            return md[key]
    return _MD_DEFAULTS[name]


def _chars(value: Any, width: int) -> str:
    """`'%.*s'` of an MQCHARn field: at most `width` characters, ending at a NUL; a value
    shorter than its field is blank-padded, as MQGET returns it."""
    raw = value.encode() if isinstance(value, str) else bytes(value)
    raw = raw[:width].split(b"\0", 1)[0] if b"\0" in raw[:width] else raw[:width].ljust(width)
    return raw.decode("utf-8", errors="replace")


def hex_bytes(value: Any, width: int | None = None) -> str:
    """X'...' of an MQBYTE field (`%02X` a byte), NUL-padded to its width."""
    raw = bytes(value)
    if width is not None:
        raw = raw[:width].ljust(width, b"\0")
    return "X'" + raw.hex().upper() + "'"


def md_lines(md: Mapping[str, Any]) -> list[str]:
    """printMD: every MQMD field, in the sample's order and layout. Fields missing from
    `md` print as in MQMD_DEFAULT."""

    def f(name: str) -> Any:
        return _field(md, name)

    def chars(name: str, width: int) -> str:
        return _chars(f(name), width)

    return [
        "****Message descriptor****",
        "",
        f"  StrucId  : '{chars('StrucId', 4)}'  Version : {f('Version')}",
        f"  Report   : {f('Report')}  MsgType : {f('MsgType')}",
        f"  Expiry   : {f('Expiry')}  Feedback : {f('Feedback')}",
        f"  Encoding : {f('Encoding')}  CodedCharSetId : {f('CodedCharSetId')}",
        f"  Format : '{chars('Format', C.MQ_FORMAT_LENGTH)}'",
        f"  Priority : {f('Priority')}  Persistence : {f('Persistence')}",
        f"  MsgId : {hex_bytes(f('MsgId'), C.MQ_MSG_ID_LENGTH)}",
        f"  CorrelId : {hex_bytes(f('CorrelId'), C.MQ_CORREL_ID_LENGTH)}",
        f"  BackoutCount : {f('BackoutCount')}",
        f"  ReplyToQ       : '{chars('ReplyToQ', C.MQ_Q_NAME_LENGTH)}'",
        f"  ReplyToQMgr    : '{chars('ReplyToQMgr', C.MQ_Q_MGR_NAME_LENGTH)}'",
        "  ** Identity Context",
        f"  UserIdentifier : '{chars('UserIdentifier', C.MQ_USER_ID_LENGTH)}'",
        "  AccountingToken : ",
        f"   {hex_bytes(f('AccountingToken'), C.MQ_ACCOUNTING_TOKEN_LENGTH)}",
        f"  ApplIdentityData : '{chars('ApplIdentityData', C.MQ_APPL_IDENTITY_DATA_LENGTH)}'",
        "  ** Origin Context",
        f"  PutApplType    : '{f('PutApplType')}'",
        f"  PutApplName    : '{chars('PutApplName', C.MQ_PUT_APPL_NAME_LENGTH)}'",
        f"  PutDate  : '{chars('PutDate', C.MQ_PUT_DATE_LENGTH)}'"
        f"    PutTime  : '{chars('PutTime', C.MQ_PUT_TIME_LENGTH)}'",
        f"  ApplOriginData : '{chars('ApplOriginData', C.MQ_APPL_ORIGIN_DATA_LENGTH)}'",
        "",
        f"  GroupId : {hex_bytes(f('GroupId'), C.MQ_GROUP_ID_LENGTH)}",
        f"  MsgSeqNumber   : '{f('MsgSeqNumber')}'",
        f"  Offset         : '{f('Offset')}'",
        f"  MsgFlags       : '{f('MsgFlags')}'",
        f"  OriginalLength : '{f('OriginalLength')}'",
    ]


def property_value(ptype: int, value: Any) -> str:
    """One property value as printProperties prints it."""
    if ptype == C.MQTYPE_BOOLEAN:
        return "TRUE" if value else "FALSE"
    if ptype == C.MQTYPE_BYTE_STRING:
        return hex_bytes(value)
    if ptype == C.MQTYPE_FLOAT32:
        return format(float(value), ".12g")
    if ptype == C.MQTYPE_FLOAT64:
        return format(float(value), ".18g")
    if ptype == C.MQTYPE_INT8:
        return str(int(value) & 0xFF)  # `%u` of the byte: -1 prints 255
    if ptype in (C.MQTYPE_INT16, C.MQTYPE_INT32, C.MQTYPE_INT64):
        return str(int(value))
    if ptype == C.MQTYPE_NULL:
        return "NULL"
    if ptype == C.MQTYPE_STRING:
        return f"'{value}'"
    return "<unrecognized data type>"


def property_lines(properties: Iterable[tuple[str, int, Any]]) -> list[str]:
    """printProperties: the block after the MQMD when the message was got with a message
    handle; `properties` as MQINQMP with `%` and MQIMPO_INQ_NEXT returns them."""
    lines = [" ", "****Message properties****", ""]
    body = [property_line(name, ptype, value) for name, ptype, value in properties]
    return lines + (body or ["  None", ""])


def property_line(name: str, ptype: int, value: Any) -> str:
    """One property: `  name : value`."""
    return f"  {name} : {property_value(ptype, value)}"


# MQDLH version 1, as the sample reads it: the platform's own integers (little-endian on
# x86-64 Linux; the sample gets without MQGMO_CONVERT).
_DLH = struct.Struct("<4sii48s48sii8si28s8s8s")
DLH_LENGTH = _DLH.size  # MQDLH_LENGTH_1, 172
_DLH_STRUC_ID = b"DLH "  # MQDLH_STRUC_ID


def dlh_lines(data: bytes) -> tuple[list[str], int]:
    """printDLH, for a message whose Format is MQFMT_DEAD_LETTER_HEADER: the Dead Letter
    Header block and the header's length, which the dump then skips; no lines and 0
    when the data does not start with a plausible MQDLH."""
    if len(data) < DLH_LENGTH or data[:4] != _DLH_STRUC_ID:
        return [], 0
    fields = _DLH.unpack_from(data)
    strucid, version, reason, dest_q, dest_qmgr, encoding, ccsid, fmt = fields[:8]
    appl_type, appl_name, put_date, put_time = fields[8:]
    return [
        "",
        "****Dead Letter Header****",
        "",
        f"  StrucId  : '{_chars(strucid, 4)}'  Version : {version}",
        f"  Reason   : {reason} [{reason_name(reason) or 'UNKNOWN RC'}]",
        f"  DestQName      : '{_chars(dest_q, C.MQ_Q_NAME_LENGTH)}'",
        f"  DestQMgrName   : '{_chars(dest_qmgr, C.MQ_Q_MGR_NAME_LENGTH)}'",
        f"  Encoding : {encoding}  CodedCharSetId : {ccsid}",
        f"  Format : '{_chars(fmt, C.MQ_FORMAT_LENGTH)}'",
        f"  PutApplType    : '{appl_type}'",
        f"  PutApplName    : '{_chars(appl_name, C.MQ_PUT_APPL_NAME_LENGTH)}'",
        f"  PutDate  : '{_chars(put_date, C.MQ_PUT_DATE_LENGTH)}'"
        f"    PutTime  : '{_chars(put_time, C.MQ_PUT_TIME_LENGTH)}'",
    ], DLH_LENGTH


def _char_len(data: bytes, at: int, mbcs_max: int) -> int:
    """`mblen` in a UTF-8 locale: the length of the well-formed character at `at`, 1 for
    a single byte, a NUL or a malformed sequence (the sample treats those as SBCS)."""
    if mbcs_max <= 1 or data[at] < 0x80:
        return 1
    for length in range(2, min(4, mbcs_max) + 1):
        try:
            if len(data[at : at + length].decode("utf-8")) == 1:
                return length
        except UnicodeDecodeError:
            continue
    return 1


def data_lines(
    data: bytes, *, mbcs_max: int = UTF8_MB_CUR_MAX, page_used: int = _FIRST_PAGE_USED
) -> list[str]:
    """The dump of the message data: a line per 16 bytes (at least one line, blank for
    an empty message), offset, hex in two-byte groups, then the characters in quotes.

    A multibyte character is kept whole: its bytes may run past the 16th column, and the
    next line then starts that many columns in, at the offset of its first new byte.
    `page_used` is how many lines of the page were used before the dump (the sample
    inserts a line of one blank every 60 lines)."""
    lines: list[str] = []
    at = 0
    overrun = 0
    used = page_used
    while True:
        hexes = [f"{at:08X}: "]
        chars: list[str] = []
        column = 0
        for left in range(overrun, 0, -1):  # columns the last line's character took
            hexes.append("   " if left % 2 else "  ")
            chars.append(" ")
            column += 1
        while column < CHARS_PER_LINE and at < len(data):
            length = _char_len(data, at, mbcs_max)
            if length > 1:
                char = data[at : at + length].decode("utf-8")
                chars.append(char if char.isprintable() else ".")
            else:
                byte = data[at]
                chars.append(chr(byte) if 0x20 <= byte < 0x7F else ".")
            for byte in data[at : at + length]:
                if column % 2 == 0 and column < CHARS_PER_LINE:
                    hexes.append(" ")
                hexes.append(f"{byte:02X}")
                column += 1
            at += length
        overrun = max(0, column - CHARS_PER_LINE)
        for pad in range(column, CHARS_PER_LINE):
            hexes.append("   " if pad % 2 == 0 else "  ")
            chars.append(" ")
        gap = " " * ((mbcs_max - overrun - 1) * 2)
        lines.append("".join(hexes) + gap + " '" + "".join(chars) + "'")
        used += 1
        if used >= _PAGE:
            used = 0
            lines.append(" ")
        if at >= len(data):
            return lines


def message_lines(
    number: int,
    md: Mapping[str, Any],
    data: bytes,
    data_length: int | None = None,
    *,
    comp: int = C.MQCC_OK,
    reason: int = C.MQRC_NONE,
    properties: Sequence[tuple[str, int, Any]] | None = None,
    mbcs_max: int = UTF8_MB_CUR_MAX,
) -> list[str]:
    """Everything the sample prints for its `number`th MQGET that got a message: the
    call's line, the MQMD, the properties (when got with a message handle: `properties`
    not None), a dead-letter queue's MQDLH and the data after it. `data` is what the
    buffer holds (the sample's is 64 KiB, so a longer message is truncated);
    `data_length` the message's whole length."""
    length = len(data) if data_length is None else data_length
    lines = [" ", " ", f" MQGET of message number {number}, CompCode:{comp} Reason:{reason}"]
    lines += md_lines(md)
    if properties is not None:
        lines += property_lines(properties)
    if _chars(_field(md, "Format"), C.MQ_FORMAT_LENGTH) == C.MQFMT_DEAD_LETTER_HEADER.decode():
        header, skip = dlh_lines(data)
        lines += header
        data, length = data[skip:], length - skip
    lines += [" ", "****   Message      ****", " ", f" length - {len(data)} of {length} bytes", " "]
    page_used = _FIRST_PAGE_USED if number == 1 else _NEXT_PAGE_USED
    return lines + data_lines(data, mbcs_max=mbcs_max, page_used=page_used)


def banner_lines() -> list[str]:
    """What the sample prints first, before it connects."""
    return ["", "AMQSBCG0 - starts here", "**********************", " "]


def open_lines(queue: str, *, message_handle: bool = False) -> list[str]:
    """The MQOPEN line (printed before the call), and MQCRTMH's with property option 1."""
    return [f" MQOPEN - '{queue}'"] + ([" MQCRTMH"] if message_handle else [])


def no_more_lines() -> list[str]:
    """MQGET's 2033 ends the browse."""
    return [" ", " ", " ", " No more messages "]


def get_failed_lines(number: int, comp: int, reason: int) -> list[str]:
    """Any other failed MQGET ends it too."""
    return [" ", f" MQGET {number}, failed with CompCode:{comp} Reason:{reason}"]


@dataclass
class BrowseSummary:
    """The counts behind the sample's closing summary (message lengths as MQGET's
    DataLength gives them: whole, even when the buffer truncated the data)."""

    count: int = 0
    smallest: int = 0
    largest: int = 0
    total: int = 0

    def add(self, length: int) -> None:
        self.smallest = length if self.count == 0 else min(self.smallest, length)
        self.largest = max(self.largest, length)
        self.total += length
        self.count += 1

    def lines(self) -> list[str]:
        """Nothing when no message was browsed."""
        if not self.count:
            return []
        return [
            "",
            "****   Summary      ****",
            f" {self.count} messages browsed.",
            f" Smallest message {self.smallest} bytes.",
            f" Largest message {self.largest} bytes.",
            f" Average message {self.total // self.count} bytes.",
            "",
        ]
