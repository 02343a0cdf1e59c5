"""The amqsbcg layout (adapter/core/amqsbcg.py) against the sample's printf formats and
the output IBM MQ prints: the MQMD block, the properties block, the hex dump."""

from __future__ import annotations

import re
import struct

from hypothesis import given, settings
from hypothesis import strategies as st

from adapter.core import amqsbcg
from adapter.core import cmqc as C

# A message as amqsbcg printed it on a Linux queue manager (UTF-8 locale): an MQHRF2
# message put by a JMS application (the Kafka Connect MQ sink), 174 bytes.
RFH2_DUMP = """\
00000000:  5246 4820 0000 0002 0000 009C 0000 0111           'RFH ............'
00000010:  0000 04B8 4D51 5354 5220 2020 0000 0000           '....MQSTR   ....'
00000020:  0000 04B8 0000 0020 3C6D 6364 3E3C 4D73           '....... <mcd><Ms'
00000030:  643E 6A6D 735F 7465 7874 3C2F 4D73 643E           'd>jms_text</Msd>'
00000040:  3C2F 6D63 643E 2020 0000 0050 3C6A 6D73           '</mcd>  ...P<jms'
00000050:  3E3C 4473 743E 7175 6575 653A 2F2F 2F44           '><Dst>queue:///D'
00000060:  4556 2E51 5545 5545 2E31 3C2F 4473 743E           'EV.QUEUE.1</Dst>'
00000070:  3C54 6D73 3E31 3537 3133 3238 3136 3733           '<Tms>15713281673'
00000080:  3632 3C2F 546D 733E 3C44 6C76 3E32 3C2F           '62</Tms><Dlv>2</'
00000090:  446C 763E 3C2F 6A6D 733E 2020 5468 6973           'Dlv></jms>  This'
000000A0:  2069 7320 6D79 206D 6573 7361 6765                ' is my message  '"""

RFH2_MD = {
    "Encoding": 273,
    "CodedCharSetId": 1208,
    "Format": b"MQHRF2  ",
    "Priority": 4,
    "Persistence": 1,
    "MsgId": bytes.fromhex("414D5120514D312020202020202020203F8EA85D1EA66A20"),
    "ReplyToQMgr": b"QM1",
    "UserIdentifier": b"app         ",
    "PutApplType": 28,
    "PutApplName": b"cli.ConnectDistributed",
    "PutDate": b"20191017",
    "PutTime": b"16024736",
}

RFH2_MD_LINES = [
    "****Message descriptor****",
    "",
    "  StrucId  : 'MD  '  Version : 2",
    "  Report   : 0  MsgType : 8",
    "  Expiry   : -1  Feedback : 0",
    "  Encoding : 273  CodedCharSetId : 1208",
    "  Format : 'MQHRF2  '",
    "  Priority : 4  Persistence : 1",
    "  MsgId : X'414D5120514D312020202020202020203F8EA85D1EA66A20'",
    "  CorrelId : X'000000000000000000000000000000000000000000000000'",
    "  BackoutCount : 0",
    "  ReplyToQ       : '" + " " * 48 + "'",
    "  ReplyToQMgr    : 'QM1" + " " * 45 + "'",
    "  ** Identity Context",
    "  UserIdentifier : 'app         '",
    "  AccountingToken : ",
    "   X'" + "0" * 64 + "'",
    "  ApplIdentityData : '" + " " * 32 + "'",
    "  ** Origin Context",
    "  PutApplType    : '28'",
    "  PutApplName    : 'cli.ConnectDistributed      '",
    "  PutDate  : '20191017'    PutTime  : '16024736'",
    "  ApplOriginData : '    '",
    "",
    "  GroupId : X'000000000000000000000000000000000000000000000000'",
    "  MsgSeqNumber   : '1'",
    "  Offset         : '0'",
    "  MsgFlags       : '0'",
    "  OriginalLength : '-1'",
]

LINE = re.compile(r"^([0-9A-F]{8}): ([0-9A-F ]*?) '(.*)'$")


def _data_of(dump: str) -> bytes:
    return bytes.fromhex("".join(LINE.match(line).group(2) for line in dump.splitlines()))


def test_the_mqmd_block_is_the_samples_field_for_field() -> None:
    assert amqsbcg.md_lines(RFH2_MD) == RFH2_MD_LINES


def test_pymqi_spelling_of_strucid_and_nul_ended_characters() -> None:
    lines = amqsbcg.md_lines({"_StrucId": b"MD  ", "Version": 1, "ReplyToQ": b"R\0junk"})
    assert lines[2] == "  StrucId  : 'MD  '  Version : 1"
    assert lines[11] == "  ReplyToQ       : 'R'"  # `%.*s` stops at a NUL


def test_byte_fields_print_in_upper_case_hex_at_their_width() -> None:
    md = {"CorrelId": b"\x01\xab", "AccountingToken": b"\xff" * 32, "GroupId": b"G" * 24}
    lines = amqsbcg.md_lines(md)
    assert lines[9] == "  CorrelId : X'01AB" + "00" * 22 + "'"
    assert lines[16] == "   X'" + "FF" * 32 + "'"
    assert lines[24] == "  GroupId : X'" + "47" * 24 + "'"


def test_a_174_byte_message_dumps_as_mq_printed_it() -> None:
    data = _data_of(RFH2_DUMP)
    assert len(data) == 174
    assert amqsbcg.data_lines(data) == RFH2_DUMP.splitlines()


def test_the_c_locale_has_no_room_for_multibyte_characters() -> None:
    (line,) = amqsbcg.data_lines(b"Test message 1", mbcs_max=1)
    assert line == "00000000:  5465 7374 206D 6573 7361 6765 2031      'Test message 1  '"


def test_an_empty_message_still_prints_one_blank_line() -> None:
    (line,) = amqsbcg.data_lines(b"")
    assert line == "00000000: " + " " * 40 + " " * 10 + " '" + " " * 16 + "'"


def test_non_printable_bytes_show_as_dots() -> None:
    (line,) = amqsbcg.data_lines(bytes([0, 9, 0x1F, 0x7F, 0x80, 0xFF, 0x41]), mbcs_max=1)
    assert line.endswith(" '......A         '")
    assert "0009 1F7F 80FF 41" in line


def test_a_multibyte_character_stays_whole_and_pushes_the_next_line() -> None:
    data = "abcdefghijklmn€xyz".encode()  # the euro sign (3 bytes) starts at column 14
    first, second = amqsbcg.data_lines(data)
    assert first == (
        "00000000:  6162 6364 6566 6768 696A 6B6C 6D6E E282AC" + " " * 8 + " 'abcdefghijklmn€'"
    )
    # the next line starts at the offset of its first new byte, one column in
    assert second.startswith("00000011:    78 797A ")
    assert second.endswith(" ' xyz            '")


def test_a_line_of_one_blank_every_sixty_lines() -> None:
    lines = amqsbcg.data_lines(bytes(16 * 100))
    blanks = [i for i, line in enumerate(lines) if line == " "]
    # 29 lines of the page went to the first message's header, then 60 a page
    assert blanks == [31, 92]
    later = amqsbcg.data_lines(bytes(16 * 100), page_used=22)
    assert [i for i, line in enumerate(later) if line == " "] == [38, 99]


def test_property_values_print_as_printproperties_prints_them() -> None:
    v = amqsbcg.property_value
    assert v(C.MQTYPE_BOOLEAN, 1) == "TRUE"
    assert v(C.MQTYPE_BOOLEAN, 0) == "FALSE"
    assert v(C.MQTYPE_BYTE_STRING, b"\x00\x1f") == "X'001F'"
    f32 = struct.unpack("f", struct.pack("f", 0.1))[0]
    assert v(C.MQTYPE_FLOAT32, f32) == "0.10000000149"  # `%.12g` drops trailing zeros
    assert v(C.MQTYPE_FLOAT64, 0.1) == "0.100000000000000006"
    assert v(C.MQTYPE_INT8, -1) == "255"  # `%u` of the byte
    assert v(C.MQTYPE_INT16, -2) == "-2"
    assert v(C.MQTYPE_INT64, 2**40) == "1099511627776"
    assert v(C.MQTYPE_NULL, None) == "NULL"
    assert v(C.MQTYPE_STRING, "red") == "'red'"
    assert v(12345, 1) == "<unrecognized data type>"


def test_the_properties_block_or_none() -> None:
    assert amqsbcg.property_lines([("color", C.MQTYPE_STRING, "red")]) == [
        " ",
        "****Message properties****",
        "",
        "  color : 'red'",
    ]
    assert amqsbcg.property_lines([]) == [" ", "****Message properties****", "", "  None", ""]


def test_a_message_block_from_the_mqget_line_to_the_dump() -> None:
    lines = amqsbcg.message_lines(2, RFH2_MD, b"x" * 10, 70_000, comp=1, reason=2079)
    assert lines[:3] == [" ", " ", " MQGET of message number 2, CompCode:1 Reason:2079"]
    assert lines[3 : 3 + len(RFH2_MD_LINES)] == RFH2_MD_LINES
    assert lines[3 + len(RFH2_MD_LINES) :][:5] == [
        " ",
        "****   Message      ****",
        " ",
        " length - 10 of 70000 bytes",
        " ",
    ]
    assert lines[-1].startswith("00000000:  7878 7878 7878 7878 7878  ")


def test_the_summary_counts_whole_lengths() -> None:
    summary = amqsbcg.BrowseSummary()
    assert summary.lines() == []
    for length in (14, 70_000, 3):
        summary.add(length)
    assert summary.lines() == [
        "",
        "****   Summary      ****",
        " 3 messages browsed.",
        " Smallest message 3 bytes.",
        " Largest message 70000 bytes.",
        " Average message 23339 bytes.",
        "",
    ]


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=200), mbcs_max=st.sampled_from([1, amqsbcg.UTF8_MB_CUR_MAX]))
def test_the_hex_round_trips_and_the_characters_are_printable_or_dots(
    data: bytes, mbcs_max: int
) -> None:
    lines = [line for line in amqsbcg.data_lines(data, mbcs_max=mbcs_max) if line != " "]
    parsed = [LINE.match(line) for line in lines]
    assert all(parsed), lines
    assert bytes.fromhex("".join(m.group(2) for m in parsed)) == data
    at = 0
    for match in parsed:  # each line's offset is that of its first new byte
        assert int(match.group(1), 16) == at
        at += len(bytes.fromhex(match.group(2)))
    for match in parsed:
        chars = match.group(3)
        assert all(c.isprintable() for c in chars)  # '.' stands for the others
        if mbcs_max == 1:
            assert len(chars) == 16
            assert all(c == "." or 0x20 <= ord(c) < 0x7F for c in chars)
    if mbcs_max == 1:  # one column per byte: the character column reads back
        text = "".join(m.group(3) for m in parsed)[: len(data)]
        assert text == "".join(chr(b) if 0x20 <= b < 0x7F else "." for b in data)


def _dlh(reason: int) -> bytes:
    return struct.pack(
        "<4sii48s48sii8si28s8s8s",
        b"DLH ",
        1,
        reason,
        b"ORDERS".ljust(48),
        b"QM1".ljust(48),
        546,
        1208,
        b"MQSTR   ",
        6,
        b"amqsput".ljust(28),
        b"20261123",
        b"19000000",
    )


def test_a_dead_letter_header_prints_before_the_data_it_carries() -> None:
    data = _dlh(C.MQRC_Q_FULL) + b"order 1"
    lines = amqsbcg.message_lines(1, {"Format": C.MQFMT_DEAD_LETTER_HEADER}, data)
    start = lines.index("****Dead Letter Header****")
    assert lines[start - 1 : start + 13] == [
        "",
        "****Dead Letter Header****",
        "",
        "  StrucId  : 'DLH '  Version : 1",
        "  Reason   : 2053 [MQRC_Q_FULL]",
        "  DestQName      : 'ORDERS" + " " * 42 + "'",
        "  DestQMgrName   : 'QM1" + " " * 45 + "'",
        "  Encoding : 546  CodedCharSetId : 1208",
        "  Format : 'MQSTR   '",
        "  PutApplType    : '6'",
        "  PutApplName    : 'amqsput                     '",
        "  PutDate  : '20261123'    PutTime  : '19000000'",
        " ",
        "****   Message      ****",
    ]
    assert " length - 7 of 7 bytes" in lines  # the header is not part of the dump
    assert lines[-1].startswith("00000000:  6F72 6465 7220 31 ")


def test_an_unknown_reason_and_an_implausible_header() -> None:
    assert amqsbcg.dlh_lines(_dlh(99999))[0][4] == "  Reason   : 99999 [UNKNOWN RC]"
    assert amqsbcg.dlh_lines(b"DLH too short") == ([], 0)
    lines = amqsbcg.message_lines(1, {"Format": b"MQDEAD  "}, b"X" * 200)
    assert "****Dead Letter Header****" not in lines
    assert " length - 200 of 200 bytes" in lines
