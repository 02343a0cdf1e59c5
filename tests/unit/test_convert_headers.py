"""MQGMO_CONVERT of MQ's header formats (adapter/core/convert_headers.py through
core/convert.py): each header's integers and characters, the chain of parts a header
names, the reasons that leave a part unconverted, and MQGET through the pymqi face."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import adapter.pymqi as pymqi
from adapter.core import convert as V
from adapter.core.dlh import DeadLetterHeader
from tests.integration.conftest import mqerror

C = pymqi.CMQC
NATIVE = C.MQENC_NATIVE  # 546: little-endian integers
NORMAL = 273  # big-endian integers (MQENC_INTEGER_NORMAL, DECIMAL_NORMAL, FLOAT_IEEE_NORMAL)
STR = "MQSTR   "
MD1 = "c4 l l l l l l l c8 l l b24 b24 l c48 c48 c12 b32 c32 l c28 c8 c8 c4"
LAYOUTS = {
    "DLH": "c4 l l c48 c48 l l c8 l c28 c8 c8",
    "XQH": "c4 l c48 c48 " + MD1,
    "MDE": "c4 l l l l c8 l b24 l l l l",
    "RFH2": "c4 l l l l c8 l l",
    "RMH": "c4 l l l l c8 l c8 b24" + " l" * 11,
    "TMC2": "c4 c4 c48 c48 c64 c4 c256 c128 c128 c48",
    "RFH": "c4 l l l l c8 l",
    "IIH": "c4 l l l l c8 l c8 c8 c8 c8 b16 c1 c1 c1 c1",
}
FORMATS = {
    "DLH": "MQDEAD  ",
    "XQH": "MQXMIT  ",
    "MDE": "MQHMDE  ",
    "RFH2": "MQHRF2  ",
    "RMH": "MQHREF  ",
    "TMC2": "MQTRIG  ",
    "RFH": "MQHRF   ",
    "IIH": "MQIMS   ",
}
CHAIN = {"DLH": (108, 112, 116), "XQH": (128, 132, 136), "MDE": (12, 16, 20)}
CHAIN |= {"RFH2": (12, 16, 20), "RMH": (12, 16, 20), "RFH": (12, 16, 20)}


def pack(layout: str, values: list, encoding: int, codec: str) -> bytes:
    """A structure of `layout` (c<n> characters, l MQLONG, b<n> bytes) from `values`."""
    order = ">" if encoding & 0x0F == 1 else "<"
    out = b""
    for field, value in zip(layout.split(), values, strict=True):
        if field == "l":
            out += struct.pack(order + "i", value)
        elif field[0] == "b":
            out += value.ljust(int(field[1:]), b"\0")
        else:
            out += value.encode(codec).ljust(int(field[1:]), " ".encode(codec))
    return out


def header(kind: str, nxt: tuple[int, int, str], enc: int, codec: str, **kw) -> bytes:
    """A valid header of `kind` whose Encoding / CodedCharSetId / Format are `nxt`."""
    n_enc, n_ccsid, n_fmt = nxt
    name = kw.get("name", "Q.ONE")
    if kind == "DLH":
        values = ["DLH ", 1, 2001, name, "QM1", n_enc, n_ccsid, n_fmt, 7]
        values += ["amqsput", "20260101", "12000000"]
    elif kind == "XQH":
        md = ["MD  ", 1, 0, 8, -1, 0, n_enc, n_ccsid, n_fmt, 4, 1, b"MSGID", b"", 0]
        md += ["REPLY.Q", "", "user", b"\x16acct", "", 6, "app", "20260101", "12000000", ""]
        values = ["XQH ", 1, name, "QM2", *md]
    elif kind == "MDE":
        values = ["MDE ", 2, 72, n_enc, n_ccsid, n_fmt, 0, b"GROUP", 1, 0, 0, 0]
    elif kind == "RFH2":
        nv_ccsid = kw.get("nv_ccsid", 1208)
        folder = kw.get("folder", "<usr><a>1</a></usr>")
        raw = folder.encode("utf-8" if nv_ccsid == 1208 else "utf-16-be")
        if nv_ccsid != 1208 and enc & 0x0F == 2:
            raw = folder.encode("utf-16-le")
        raw += b" " * (-len(raw) % 4) if nv_ccsid == 1208 else b" \0" * (-len(raw) % 4 // 2)
        order = ">" if enc & 0x0F == 1 else "<"
        tail = struct.pack(order + "i", len(raw)) + raw
        values = ["RFH ", 2, 36 + len(tail), n_enc, n_ccsid, n_fmt, 0, nv_ccsid]
        return pack(LAYOUTS[kind], values, enc, codec) + tail
    elif kind == "RMH":
        src_name = kw.get("src_name", "SRC.FILE")
        strings = src_name.encode(codec)
        values = ["RMH ", 1, 108 + len(strings), n_enc, n_ccsid, n_fmt, 0, "FILE", b"OID"]
        values += [0, 0, len(strings), 108, 0, 0, 0, 0, 0, 0, 0]
        return pack(LAYOUTS[kind], values, enc, codec) + strings
    elif kind == "RFH":
        pairs = kw.get("pairs", "name value").encode(codec)
        pairs += " ".encode(codec) * (-len(pairs) % 4)
        values = ["RFH ", 1, 32 + len(pairs), n_enc, n_ccsid, n_fmt, 0]
        return pack(LAYOUTS[kind], values, enc, codec) + pairs
    elif kind == "IIH":  # Encoding and CodedCharSetId reserved (0)
        values = ["IIH ", 1, 84, 0, 0, n_fmt, 0, "LTERM", "MAP", "MQSTR", "", b"", " ", "0"]
        values += ["C", " "]
    else:  # TMC2
        values = ["TMC ", "   2", name, "PROC", "trigger data", "0011", "/bin/app", "", "", "QM1"]
    return pack(LAYOUTS[kind], values, enc, codec)


def long_at(data: bytes, at: int, encoding: int) -> int:
    return struct.unpack_from(">i" if encoding & 0x0F == 1 else "<i", data, at)[0]


# -- MQDLH + MQSTR -----------------------------------------------------------------------


def dlh_message(text: str = "hello world", dest: str = "Q.ONE") -> bytes:
    head = DeadLetterHeader(2001, dest, "QM1", NATIVE, 1208, b"MQSTR   ", 7, "app", b"", b"")
    return head.pack(NATIVE) + text.encode()


def test_a_dlh_and_its_string_convert_to_ebcdic_big_endian_and_back() -> None:
    msg = dlh_message()
    there = V.convert(msg, "MQDEAD", 1208, NATIVE, 500, NORMAL)
    assert (there.ccsid, there.encoding, there.reason) == (500, NORMAL, None)
    data = there.data
    assert data[:4] == "DLH ".encode("cp500") and long_at(data, 4, NORMAL) == 1
    assert long_at(data, 8, NORMAL) == 2001  # Reason, big-endian now
    assert data[12:60] == "Q.ONE".ljust(48).encode("cp500")
    # the chain fields describe the converted string that follows
    assert (long_at(data, 108, NORMAL), long_at(data, 112, NORMAL)) == (NORMAL, 500)
    assert data[116:124] == STR.encode("cp500")
    assert data[172:] == "hello world".encode("cp500")
    back = V.convert(data, "MQDEAD", 500, NORMAL, 1208, NATIVE)
    assert back == V.Converted(msg, 1208, NATIVE)


def test_only_the_encoding_differing_swaps_the_integers_and_keeps_the_characters() -> None:
    msg = dlh_message()
    got = V.convert(msg, "MQDEAD", 1208, NATIVE, 1208, NORMAL)
    assert got.reason is None and got.encoding == NORMAL
    assert got.data[:4] == b"DLH " and long_at(got.data, 8, NORMAL) == 2001
    assert got.data[172:] == b"hello world"


def test_a_data_part_that_does_not_convert_leaves_the_header_converted_describing_it() -> None:
    """IBM: some parts converted, others not; the CodedCharSetId and Encoding fields
    always describe the data they go with."""
    msg = dlh_message("price €5")  # no € in ISO 8859-1
    got = V.convert(msg, "MQDEAD", 1208, NATIVE, 819, NORMAL)
    assert (got.ccsid, got.encoding, got.reason) == (819, NORMAL, V.MQRC_NOT_CONVERTED)
    assert long_at(got.data, 8, NORMAL) == 2001  # the header is converted
    assert (long_at(got.data, 108, NORMAL), long_at(got.data, 112, NORMAL)) == (NATIVE, 1208)
    assert got.data[172:] == "price €5".encode()  # the data is not


def test_a_dlh_followed_by_binary_data_converts_the_header_and_warns_2110() -> None:
    head = DeadLetterHeader(2001, "Q", "QM1", NATIVE, 1208, b"        ", 7, "a", b"", b"")
    got = V.convert(head.pack() + b"\x00\x01", "MQDEAD", 1208, NATIVE, 500, NORMAL)
    assert got.reason == V.MQRC_FORMAT_ERROR and got.ccsid == 500
    assert long_at(got.data, 108, NORMAL) == NATIVE and got.data[-2:] == b"\x00\x01"


# -- the reasons ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("encoding", "want_encoding", "reason"),
    [
        (NATIVE & ~0x0F | 3, NORMAL, V.MQRC_SOURCE_INTEGER_ENC_ERROR),
        (NATIVE & ~0x0F, NORMAL, V.MQRC_SOURCE_INTEGER_ENC_ERROR),  # undefined byte order
        (NATIVE & ~0xF0 | 0x30, NORMAL, V.MQRC_SOURCE_DECIMAL_ENC_ERROR),
        (NATIVE & ~0xF00 | 0x500, NORMAL, V.MQRC_SOURCE_FLOAT_ENC_ERROR),
        (NATIVE, NORMAL & ~0x0F | 0x0F, V.MQRC_TARGET_INTEGER_ENC_ERROR),
        (NATIVE, NORMAL & ~0xF0 | 0x40, V.MQRC_TARGET_DECIMAL_ENC_ERROR),
        (NATIVE, NORMAL & ~0xF00 | 0xF00, V.MQRC_TARGET_FLOAT_ENC_ERROR),
    ],
)
def test_an_encoding_mq_does_not_recognise_leaves_a_header_unconverted(
    encoding: int, want_encoding: int, reason: int
) -> None:
    msg = header("DLH", (NATIVE, 1208, STR), encoding if encoding & 0x0F else 1, "utf-8")
    msg += b"text"
    got = V.convert(msg, "MQDEAD", 1208, encoding, 500, want_encoding)
    assert got == V.Converted(msg, 1208, encoding, reason)
    # the same numbers are checked when only the character set differs
    assert V.convert(msg, "MQDEAD", 1208, encoding, 819, want_encoding).reason == reason


def test_a_string_has_no_numbers_so_its_encoding_is_not_checked() -> None:
    got = V.convert(b"abc", STR, 1208, 0x0F0F, 500, NORMAL)
    assert got == V.Converted("abc".encode("cp500"), 500, NORMAL)


def test_an_unrecognised_encoding_inside_the_chain_fails_that_part_only() -> None:
    inner = header("DLH", (NATIVE, 1208, STR), NATIVE, "utf-8") + b"text"
    outer = header("MDE", (0x0F0F, 1208, "MQDEAD  "), NATIVE, "utf-8")
    got = V.convert(outer + inner, "MQHMDE", 1208, NATIVE, 500, NORMAL)
    assert got.reason == V.MQRC_SOURCE_INTEGER_ENC_ERROR and got.ccsid == 500
    assert got.data[:4] == "MDE ".encode("cp500") and got.data[72:] == inner
    assert (long_at(got.data, 12, NORMAL), long_at(got.data, 16, NORMAL)) == (0x0F0F, 1208)


@pytest.mark.parametrize(
    ("ccsid", "want", "reason"),
    [
        (1200, 500, V.MQRC_SOURCE_CCSID_ERROR),  # no single-byte queue-name characters
        (4242, 500, V.MQRC_SOURCE_CCSID_ERROR),
        (1208, 1200, V.MQRC_TARGET_CCSID_ERROR),
        (1208, 4242, V.MQRC_TARGET_CCSID_ERROR),
    ],
)
def test_a_header_in_or_to_an_unsuitable_character_set_is_not_converted(
    ccsid: int, want: int, reason: int
) -> None:
    msg = dlh_message()
    assert V.convert(msg, "MQDEAD", ccsid, NATIVE, want, NATIVE) == V.Converted(
        msg, ccsid, NATIVE, reason
    )


def test_a_string_that_outgrows_its_field_is_2190_unless_blanks_make_room() -> None:
    long_name = "é" * 48  # 48 bytes in ISO 8859-1, 96 in UTF-8
    msg = header("DLH", (NATIVE, 819, STR), NATIVE, "latin-1", name=long_name) + b"x"
    got = V.convert(msg, "MQDEAD", 819, NATIVE, 1208, NATIVE)
    assert got == V.Converted(msg, 819, NATIVE, V.MQRC_CONVERTED_STRING_TOO_BIG)
    fits = header("DLH", (NATIVE, 819, STR), NATIVE, "latin-1", name="é" * 24) + b"x"
    got = V.convert(fits, "MQDEAD", 819, NATIVE, 1208, NATIVE)
    assert got.reason is None and got.data[12:60] == ("é" * 24).encode()


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"DLH ",
        b"XLH " + bytes(168),  # StrucId
        dlh_message()[:171],  # too short
        dlh_message()[:4] + struct.pack("<i", 2) + dlh_message()[8:],  # Version
    ],
)
def test_a_header_that_does_not_parse_comes_back_unconverted(data: bytes) -> None:
    got = V.convert(data, "MQDEAD", 1208, NATIVE, 500, NORMAL)
    expected = None if not data else V.MQRC_NOT_CONVERTED
    assert got == V.Converted(data, 1208, NATIVE, expected)


def test_a_chain_of_thousands_of_headers_converts_without_recursing() -> None:
    mde = header("MDE", (NATIVE, 1208, "MQHMDE  "), NATIVE, "utf-8")
    last = header("MDE", (NATIVE, 1208, STR), NATIVE, "utf-8")
    msg = mde * 3000 + last + b"end"
    got = V.convert(msg, "MQHMDE", 1208, NATIVE, 500, NORMAL)
    assert got.reason is None and got.data[-3:] == "end".encode("cp500")
    assert V.convert(got.data, "MQHMDE", 500, NORMAL, 1208, NATIVE).data == msg


_CCSIDS = st.sampled_from([0, -2, -1, 1208, 819, 500, 37, 1200, 932, 4242])
_ENCODINGS = st.one_of(
    st.sampled_from([NATIVE, NORMAL, 0, 0x0F0F]), st.integers(-(2**31), 2**31 - 1)
)
_REASONS = {None, *range(2110, 2120), 2190}


@given(
    data=st.binary(max_size=600),
    fmt=st.sampled_from(sorted(FORMATS.values())),
    source=st.tuples(_CCSIDS, _ENCODINGS),
    target=st.tuples(_CCSIDS, _ENCODINGS),
)
@settings(max_examples=300)
def test_random_bytes_never_raise(data: bytes, fmt: str, source, target) -> None:
    for prefix in (b"", b"DLH \x01\0\0\0", b"RFH \x02\0\0\0", b"RMH \x01\0\0\0"):
        got = V.convert(prefix + data, fmt, *source, *target)
        assert isinstance(got.data, bytes) and got.reason in _REASONS
        if got.reason is None:
            assert got.encoding in (source[1], target[1])


# -- the other headers -----------------------------------------------------------------------


def test_an_rfh2_converts_its_fixed_part_and_keeps_utf8_name_values() -> None:
    msg = header("RFH2", (NATIVE, 1208, STR), NATIVE, "utf-8") + b"body"
    got = V.convert(msg, "MQHRF2", 1208, NATIVE, 500, NORMAL)
    assert got.reason is None and got.data[:4] == "RFH ".encode("cp500")
    assert long_at(got.data, 36, NORMAL) == len(b"<usr><a>1</a></usr>") + 1
    assert got.data[40:60] == b"<usr><a>1</a></usr> "  # NameValueData stays UTF-8
    assert got.data[-4:] == "body".encode("cp500")


def test_utf16_name_values_follow_the_byte_order_of_the_integers() -> None:
    msg = header("RFH2", (NATIVE, 1208, STR), NATIVE, "utf-8", nv_ccsid=1200) + b"body"
    got = V.convert(msg, "MQHRF2", 1208, NATIVE, 1208, NORMAL)
    n = long_at(got.data, 36, NORMAL)
    assert got.data[40 : 40 + n].decode("utf-16-be").rstrip() == "<usr><a>1</a></usr>"


def test_an_rfh2_with_a_name_value_ccsid_mq_does_not_allow_is_2111() -> None:
    msg = header("RFH2", (NATIVE, 1208, STR), NATIVE, "utf-8", nv_ccsid=819) + b"body"
    got = V.convert(msg, "MQHRF2", 1208, NATIVE, 500, NORMAL)
    assert got == V.Converted(msg, 1208, NATIVE, V.MQRC_SOURCE_CCSID_ERROR)


def test_an_xqh_converts_the_mqmd_inside_it_and_the_data_it_names() -> None:
    msg = header("XQH", (NATIVE, 1208, STR), NATIVE, "utf-8") + b"payload"
    got = V.convert(msg, "MQXMIT", 1208, NATIVE, 500, NORMAL)
    assert got.reason is None
    assert got.data[104:108] == "MD  ".encode("cp500") and long_at(got.data, 108, NORMAL) == 1
    assert long_at(got.data, 120, NORMAL) == -1  # Expiry
    assert got.data[104 + 48 : 104 + 53] == b"MSGID"  # MsgId: bytes, not converted
    assert (long_at(got.data, 128, NORMAL), long_at(got.data, 132, NORMAL)) == (NORMAL, 500)
    assert got.data[428:] == "payload".encode("cp500")


def test_a_trigger_message_is_all_characters() -> None:
    msg = header("TMC2", (0, 0, ""), NATIVE, "utf-8")
    got = V.convert(msg, "MQTRIG", 1208, 0x0F0F, 500, NORMAL)  # no numbers: any Encoding
    assert got == V.Converted(msg.decode().encode("cp500"), 500, NORMAL)


def test_an_rmh_string_that_grows_moves_the_offsets_and_struc_length() -> None:
    msg = header("RMH", (NATIVE, 819, STR), NATIVE, "latin-1", src_name="fïlé") + b"bulk"
    got = V.convert(msg, "MQHREF", 819, NATIVE, 1208, NATIVE)
    assert got.reason is None
    assert long_at(got.data, 8, NATIVE) == 108 + len("fïlé".encode())  # StrucLength
    assert (long_at(got.data, 72, NATIVE), long_at(got.data, 76, NATIVE)) == (6, 108)
    assert got.data[108:114] == "fïlé".encode() and got.data[114:] == b"bulk"
    back = V.convert(got.data, "MQHREF", 1208, NATIVE, 819, NATIVE)
    assert back == V.Converted(msg, 819, NATIVE)


def test_mqccsi_inherit_stays_when_the_next_part_is_converted_too() -> None:
    msg = header("MDE", (NATIVE, C.MQCCSI_INHERIT, STR), NATIVE, "utf-8") + b"abc"
    got = V.convert(msg, "MQHMDE", 1208, NATIVE, 500, NORMAL)
    assert long_at(got.data, 16, NORMAL) == C.MQCCSI_INHERIT
    assert got.data[72:] == "abc".encode("cp500")
    bad = header("MDE", (NATIVE, C.MQCCSI_INHERIT, STR), NATIVE, "utf-8") + "€".encode()
    got = V.convert(bad, "MQHMDE", 1208, NATIVE, 819, NORMAL)
    # the data stays UTF-8: the header, now ISO 8859-1, says so instead of inheriting
    assert got.reason == V.MQRC_NOT_CONVERTED and long_at(got.data, 16, NORMAL) == 1208


def test_an_rfh_name_value_string_grows_and_its_struc_length_follows() -> None:
    msg = header("RFH", (NATIVE, 819, STR), NATIVE, "latin-1", pairs="clé valeur") + b"x"
    got = V.convert(msg, "MQHRF", 819, NATIVE, 1208, NORMAL)
    # 12 bytes of ISO 8859-1 (blank-padded) are 13 of UTF-8, padded to 16
    assert got.reason is None and long_at(got.data, 8, NORMAL) == 48
    assert got.data[32:48] == "clé valeur".encode() + b" " * 5 and got.data[48:] == b"x"


def test_what_follows_an_iih_is_in_the_iihs_own_coding() -> None:
    msg = header("IIH", (0, 0, STR), NATIVE, "utf-8") + b"ims data"
    got = V.convert(msg, "MQIMS", 1208, NATIVE, 500, NORMAL)
    assert got.reason is None and got.data[:4] == "IIH ".encode("cp500")
    assert got.data[84:] == "ims data".encode("cp500")
    assert (long_at(got.data, 12, NORMAL), long_at(got.data, 16, NORMAL)) == (0, 0)
    # data that does not convert: nothing could describe it apart from the header, so
    # the whole message stays as it was
    bad = header("IIH", (0, 0, STR), NATIVE, "utf-8") + "€".encode()
    assert V.convert(bad, "MQIMS", 1208, NATIVE, 819, NORMAL) == V.Converted(
        bad, 1208, NATIVE, V.MQRC_NOT_CONVERTED
    )


# -- property: any chain converts there and back unchanged ---------------------------------

_NAMES = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._", max_size=20)


@st.composite
def chains(draw) -> tuple[bytes, str]:
    """A message of up to four headers and a string, every part in UTF-8 and
    MQENC_NATIVE; returns (data, Format of the first part)."""
    kinds = st.sampled_from(["DLH", "XQH", "MDE", "RFH2", "RMH", "RFH", "IIH"])
    kinds = draw(st.lists(kinds, max_size=4))
    last = draw(st.sampled_from(["MQSTR", "TMC2"]))
    if last == "TMC2":
        data = header("TMC2", (0, 0, ""), NATIVE, "utf-8", name=draw(_NAMES))
        fmt = FORMATS["TMC2"]
    else:
        data = draw(_NAMES.filter(bool)).encode()
        fmt = STR
    for kind in reversed(kinds):
        ccsid = draw(st.sampled_from([1208, C.MQCCSI_INHERIT]))
        kw = {"name": draw(_NAMES)} if kind in ("DLH", "XQH") else {}
        if kind == "RFH2":
            kw = {"nv_ccsid": draw(st.sampled_from([1208, 1200])), "folder": draw(_NAMES)}
        if kind == "RMH":
            kw = {"src_name": draw(_NAMES)}
        if kind == "RFH":
            kw = {"pairs": draw(_NAMES)}
        data = header(kind, (NATIVE, ccsid, fmt), NATIVE, "utf-8", **kw) + data
        fmt = FORMATS[kind]
    return data, fmt


@given(message=chains(), target=st.sampled_from([(500, NORMAL), (819, NORMAL), (37, NATIVE)]))
@settings(max_examples=200, deadline=None)
def test_any_header_chain_converts_to_the_other_encoding_and_back_unchanged(
    message: tuple[bytes, str], target: tuple[int, int]
) -> None:
    data, fmt = message
    there = V.convert(data, fmt, 1208, NATIVE, *target)
    assert there.reason is None and (there.ccsid, there.encoding) == target
    back = V.convert(there.data, fmt, *target, 1208, NATIVE)
    assert back == V.Converted(data, 1208, NATIVE)


# -- MQGET through the pymqi face ------------------------------------------------------------


def test_mqget_converts_a_dead_letter_message_and_its_header(qmgr) -> None:
    qmgr.define_queue("Q.CONVERT.DLH")
    q = pymqi.Queue(qmgr, "Q.CONVERT.DLH", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    md = pymqi.MD(Format=C.MQFMT_DEAD_LETTER_HEADER, CodedCharSetId=1208, Encoding=NATIVE)
    q.put(dlh_message("dead letter"), md)
    md = pymqi.MD(CodedCharSetId=500, Encoding=NORMAL)
    data = q.get(None, md, pymqi.GMO(Options=C.MQGMO_NO_WAIT | C.MQGMO_CONVERT))
    assert (md.CodedCharSetId, md.Encoding) == (500, NORMAL)
    assert data[:4] == "DLH ".encode("cp500") and long_at(data, 8, NORMAL) == 2001
    assert (long_at(data, 108, NORMAL), long_at(data, 112, NORMAL)) == (NORMAL, 500)
    assert data[172:] == "dead letter".encode("cp500")


def test_mqget_warns_with_the_reason_of_a_dlh_it_cannot_convert(qmgr) -> None:
    qmgr.define_queue("Q.CONVERT.DLH2")
    q = pymqi.Queue(qmgr, "Q.CONVERT.DLH2", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    md = pymqi.MD(Format=C.MQFMT_DEAD_LETTER_HEADER, CodedCharSetId=1208, Encoding=NATIVE)
    q.put(dlh_message(), md)
    md = pymqi.MD(CodedCharSetId=500, Encoding=NORMAL & ~0x0F)  # undefined integers
    with pytest.raises(pymqi.MQMIError) as exc:
        q.get(None, md, pymqi.GMO(Options=C.MQGMO_NO_WAIT | C.MQGMO_CONVERT))
    assert mqerror(exc) == (C.MQCC_WARNING, V.MQRC_TARGET_INTEGER_ENC_ERROR)
    assert exc.value.message == dlh_message()
