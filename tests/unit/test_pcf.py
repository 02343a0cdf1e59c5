"""PCF messages (adapter/core/pcf.py, adapter/core/pcfconvert.py): the encoder and walker,
MQPUT's check of Format MQADMIN / MQEVENT / MQPCF data (one scenario per reason code,
then the put through the pymqi face refusing it with nothing put), and MQGMO_CONVERT of
a PCF message (integers byte-swapped, strings converted, the failure reasons)."""

from __future__ import annotations

import struct
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import adapter.pymqi as pymqi
from adapter.core import cmqc as C
from adapter.core import cmqcfc as F
from adapter.core import pcf as P
from adapter.core.convert import Converted
from adapter.core.pcfconvert import convert_pcf
from tests.integration.conftest import mqerror

LITTLE, BIG = C.MQENC_NATIVE, C.MQENC_NORMAL  # integers reversed / normal
CFH = F.MQCFH_STRUC_LENGTH


def one(param: P.Param, encoding: int = LITTLE, **header) -> bytes:
    """A PCF message of the header and the one parameter structure."""
    return P.encode(P.Header(**header), [param], encoding)


def put_long(data: bytes, at: int, value: int, encoding: int = LITTLE) -> bytes:
    """`data` with the MQLONG at `at` set to `value`."""
    order = ">" if encoding == BIG else "<"
    return data[:at] + struct.pack(order + "i", value) + data[at + 4 :]


def field(param: P.Param, at: int, value: int) -> bytes:
    """A message of `param` with the MQLONG at `at` of the parameter structure set."""
    return put_long(one(param), CFH + at, value)


IN = P.Param(F.MQCFT_INTEGER, C.MQIA_CURRENT_Q_DEPTH, 7)
IN64 = P.Param(F.MQCFT_INTEGER64, 1, 2**40)
IL = P.Param(F.MQCFT_INTEGER_LIST, 2, (1, 2, 3))
IL64 = P.Param(F.MQCFT_INTEGER64_LIST, 3, (-(2**40), 5))
ST = P.Param(F.MQCFT_STRING, 4, b"Q.NAME", ccsid=819)
SL = P.Param(F.MQCFT_STRING_LIST, 5, (b"AB", b"CD"))
BS = P.Param(F.MQCFT_BYTE_STRING, 6, b"\x00\x01\x02")
GR = P.Param(F.MQCFT_GROUP, 7, 0)
IF = P.Param(F.MQCFT_INTEGER_FILTER, 8, 3, operator=F.MQCFOP_GREATER)
SF = P.Param(F.MQCFT_STRING_FILTER, 9, b"Q.*", operator=F.MQCFOP_LIKE)
BF = P.Param(F.MQCFT_BYTE_STRING_FILTER, 10, b"\xff", operator=F.MQCFOP_EQUAL)
ALL = [IN, IN64, IL, IL64, ST, SL, BS, GR, IF, SF, BF]

# One scenario per reason (and per rule): the data, and the reason MQPUT fails it with.
# Offsets inside a parameter structure: 4 StrucLength, then the fields after Parameter (8).
INVALID = [
    ("MQCFH shorter than 36 bytes", one(IN)[:30], C.MQRC_CFH_ERROR),
    ("MQCFH Type not a header type", put_long(one(IN), 0, F.MQCFT_INTEGER), C.MQRC_CFH_ERROR),
    ("MQCFH StrucLength not 36", put_long(one(IN), 4, 32), C.MQRC_CFH_ERROR),
    ("MQCFH Version 4", put_long(one(IN), 8, 4), C.MQRC_CFH_ERROR),
    ("MQCFH Version 0", put_long(one(IN), 8, 0), C.MQRC_CFH_ERROR),
    ("MQCFH ParameterCount negative", put_long(one(IN), 32, -1), C.MQRC_CFH_ERROR),
    ("MQCFIN StrucLength not 16", field(IN, 4, 20), C.MQRC_CFIN_ERROR),
    ("MQCFIN64 StrucLength not 24", field(IN64, 4, 16), C.MQRC_CFIN_ERROR),
    ("MQCFIL Count negative", field(IL, 12, -1), C.MQRC_CFIL_ERROR),
    ("MQCFIL StrucLength not fixed + Count values", field(IL, 12, 2), C.MQRC_CFIL_ERROR),
    ("MQCFIL64 StrucLength not fixed + 8 Count", field(IL64, 4, 28), C.MQRC_CFIL_ERROR),
    ("MQCFST StrucLength not a multiple of 4", field(ST, 4, 27), C.MQRC_CFST_ERROR),
    ("MQCFST StrucLength under the fixed part", field(ST, 4, 16), C.MQRC_CFST_ERROR),
    ("MQCFST StringLength negative", field(ST, 16, -1), C.MQRC_CFST_ERROR),
    ("MQCFST StringLength past StrucLength", field(ST, 16, 9), C.MQRC_CFST_ERROR),
    ("MQCFST CodedCharSetId negative", field(ST, 12, C.MQCCSI_EMBEDDED), C.MQRC_CFST_ERROR),
    ("MQCFSL Count negative", field(SL, 16, -1), C.MQRC_CFSL_ERROR),
    ("MQCFSL strings past StrucLength", field(SL, 20, 3), C.MQRC_CFSL_ERROR),
    ("MQCFSL CodedCharSetId negative", field(SL, 12, C.MQCCSI_INHERIT), C.MQRC_CFSL_ERROR),
    ("MQCFBS StringLength past StrucLength", field(BS, 12, 5), C.MQRC_CFBS_ERROR),
    ("MQCFBS StringLength negative", field(BS, 12, -4), C.MQRC_CFBS_ERROR),
    ("MQCFGR StrucLength not 16", field(GR, 4, 20), C.MQRC_CFGR_ERROR),
    ("MQCFGR ParameterCount negative", field(GR, 12, -1), C.MQRC_CFGR_ERROR),
    ("MQCFIF StrucLength not 20", field(IF, 4, 16), C.MQRC_CFIF_ERROR),
    ("MQCFSF FilterValueLength negative", field(SF, 20, -1), C.MQRC_CFSF_ERROR),
    ("MQCFSF FilterValueLength past StrucLength", field(SF, 20, 5), C.MQRC_CFSF_ERROR),
    ("MQCFSF CodedCharSetId negative", field(SF, 16, -3), C.MQRC_CFSF_ERROR),
    ("MQCFBF StrucLength not a multiple of 4", field(BF, 4, 22), C.MQRC_CFBF_ERROR),
    ("MQCFBF FilterValueLength past StrucLength", field(BF, 16, 8), C.MQRC_CFBF_ERROR),
    ("a byte after the last structure", one(IN) + b"\0", C.MQRC_PCF_ERROR),
    ("the last structure cut short", one(ST)[:-4], C.MQRC_PCF_ERROR),
    ("ParameterCount more than the structures", put_long(one(IN), 32, 2), C.MQRC_PCF_ERROR),
    ("ParameterCount fewer than the structures", put_long(one(IN), 32, 0), C.MQRC_PCF_ERROR),
    ("a group counting more than follows", field(GR, 12, 1), C.MQRC_PCF_ERROR),
    ("no PCF structure of that Type", field(IN, 0, 99), C.MQRC_PCF_ERROR),
    ("StrucLength past the end of the data", field(ST, 4, 400), C.MQRC_PCF_ERROR),
]


@pytest.mark.parametrize(("why", "data", "reason"), INVALID, ids=[w for w, _, _ in INVALID])
def test_an_invalid_pcf_message_fails_the_put_with_its_reason(
    why: str, data: bytes, reason: int
) -> None:
    for fmt in ("MQADMIN ", "MQEVENT ", "MQPCF   ", "MQPCF"):
        assert P.pcf_error(fmt, data, LITTLE) == reason, why


def test_every_reason_code_has_a_scenario() -> None:
    expected = {k.reason for k in P.KINDS.values()} | {C.MQRC_CFH_ERROR, C.MQRC_PCF_ERROR}
    assert {reason for _, _, reason in INVALID} == expected


@pytest.mark.parametrize("encoding", [LITTLE, BIG])
def test_every_structure_is_valid_in_either_byte_order(encoding: int) -> None:
    data = P.encode(P.Header(type=F.MQCFT_COMMAND, version=3), ALL, encoding)
    assert P.pcf_error("MQADMIN ", data, encoding) is None
    message = P.parse(data, encoding)
    assert isinstance(message, P.Message)
    assert message.params == tuple(ALL) and message.header.parameter_count == len(ALL)
    # Read in the wrong byte order the same bytes are not a PCF message.
    assert P.pcf_error("MQADMIN ", data, LITTLE if encoding == BIG else BIG) is not None


def test_an_empty_pcf_and_other_formats() -> None:
    assert P.pcf_error("MQPCF   ", P.encode(P.Header(), [], LITTLE), LITTLE) is None
    for fmt in ("MQSTR   ", "        ", "MQHRF2  ", "MQADMINX", "mqpcf   "):
        assert P.pcf_error(fmt, b"not a PCF message", LITTLE) is None


def test_a_group_counts_as_one_and_owns_what_follows() -> None:
    grouped = [P.Param(F.MQCFT_GROUP, 1, 2), IN, P.Param(F.MQCFT_GROUP, 2, 1), ST, IL]
    assert P.top_level_count(grouped) == 2  # the outer group (with the inner one), IL
    data = P.encode(P.Header(), grouped, LITTLE)
    assert struct.unpack_from("<i", data, 32)[0] == 2
    assert P.pcf_error("MQPCF   ", data, LITTLE) is None


def test_a_first_segment_holds_only_the_start_of_a_pcf_message() -> None:
    data = P.encode(P.Header(), ALL, LITTLE)
    for cut in range(CFH, len(data) + 1):
        assert P.pcf_error("MQADMIN ", data[:cut], LITTLE, whole=False) is None, cut
    # What it holds is still checked: the MQCFH, a structure, data after the last one.
    assert P.pcf_error("MQADMIN ", data[:20], LITTLE, whole=False) == C.MQRC_CFH_ERROR
    bad = field(ST, 16, -1)
    assert P.pcf_error("MQADMIN ", bad[:-2], LITTLE, whole=False) == C.MQRC_CFST_ERROR
    extra = one(IN) + b"\0" * 8
    assert P.pcf_error("MQADMIN ", extra, LITTLE, whole=False) == C.MQRC_PCF_ERROR


# Random PCF messages: every structure, random fields, groups whose counts stay in range.
longs = st.integers(-(2**31), 2**31 - 1)
int64s = st.integers(-(2**63), 2**63 - 1)
# A string's own CCSID the message's (or MQCCSI_DEFAULT): converting the byte order then
# leaves the strings as they are, whatever their bytes.
ccsids = st.sampled_from([0, 1208])
text = st.binary(max_size=12)


@st.composite
def leaf(draw, text=text, ccsids=ccsids) -> P.Param:
    """Any parameter structure but a group, its fields random."""
    kind = draw(st.sampled_from(sorted(set(P.KINDS) - {F.MQCFT_GROUP})))
    if kind in (F.MQCFT_INTEGER, F.MQCFT_INTEGER_FILTER):
        value: object = draw(longs)
    elif kind == F.MQCFT_INTEGER64:
        value = draw(int64s)
    elif kind == F.MQCFT_INTEGER_LIST:
        value = tuple(draw(st.lists(longs, max_size=5)))
    elif kind == F.MQCFT_INTEGER64_LIST:
        value = tuple(draw(st.lists(int64s, max_size=5)))
    elif kind == F.MQCFT_STRING_LIST:
        size = draw(st.integers(0, 6))
        value = tuple(draw(st.lists(text.map(lambda t: t[:size].ljust(size)), max_size=4)))
    else:
        value = draw(text)
    filters = (F.MQCFT_INTEGER_FILTER, F.MQCFT_STRING_FILTER, F.MQCFT_BYTE_STRING_FILTER)
    ccsid = draw(ccsids) if kind in P.CHARACTER_TYPES else 0
    operator = draw(st.integers(0, 30)) if kind in filters else 0
    return P.Param(kind, draw(longs), value, ccsid, operator)


def flatten(items: list) -> list[P.Param]:
    """A tree of parameters (a group: (Parameter, [its items])) as PCF lays it out."""
    out: list[P.Param] = []
    for item in items:
        if isinstance(item, P.Param):
            out.append(item)
        else:
            pid, children = item
            out.append(P.Param(F.MQCFT_GROUP, pid, len(children)))
            out.extend(flatten(children))
    return out


def trees(leaves: st.SearchStrategy[P.Param]) -> st.SearchStrategy[list[P.Param]]:
    return st.recursive(
        st.lists(leaves, max_size=4),
        lambda children: st.lists(st.one_of(leaves, st.tuples(longs, children)), max_size=4),
        max_leaves=12,
    ).map(flatten)


params = trees(leaf())
# ASCII strings in MQCCSI_DEFAULT or ISO 8859-1: they convert to UTF-8 and back unchanged.
ascii_params = trees(
    leaf(
        text=st.text(st.characters(max_codepoint=126, min_codepoint=32), max_size=8).map(
            str.encode
        ),
        ccsids=st.sampled_from([0, 819]),
    )
)


@settings(max_examples=300, deadline=None)
@given(ps=params, encoding=st.sampled_from([LITTLE, BIG]), version=st.integers(1, 3))
def test_any_encoded_pcf_message_validates_and_round_trips(ps, encoding, version) -> None:
    data = P.encode(P.Header(version=version), ps, encoding)
    assert P.pcf_error("MQPCF   ", data, encoding) is None
    message = P.parse(data, encoding)
    assert isinstance(message, P.Message) and list(message.params) == ps
    # MQGMO_CONVERT to the other byte order and back: the same bytes.
    other = BIG if encoding == LITTLE else LITTLE
    there = convert_pcf(data, 1208, encoding, 1208, other)
    assert there.reason is None and there.encoding == other
    assert P.parse(there.data, other) == message
    back = convert_pcf(there.data, 1208, other, 1208, encoding)
    assert back.reason is None and back.data == data
    # Cut anywhere short of its end, it is a reason code, never an exception.
    for cut in range(len(data)):
        reason = P.pcf_error("MQPCF   ", data[:cut], encoding)
        assert reason in (C.MQRC_CFH_ERROR, C.MQRC_PCF_ERROR) or reason in {
            k.reason for k in P.KINDS.values()
        }, cut


@settings(max_examples=200, deadline=None)
@given(ps=ascii_params)
def test_strings_convert_to_another_ccsid_and_back(ps) -> None:
    data = P.encode(P.Header(), ps, LITTLE)
    there = convert_pcf(data, 819, LITTLE, 1208, BIG)
    assert (there.ccsid, there.reason) == (1208, None)
    assert P.pcf_error("MQPCF   ", there.data, BIG) is None
    back = convert_pcf(there.data, 1208, BIG, 819, LITTLE)
    assert (back.ccsid, back.reason, back.data) == (819, None, data)


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=120), encoding=st.sampled_from([LITTLE, BIG]))
def test_any_bytes_give_a_reason_or_none_never_an_exception(data, encoding) -> None:
    header = P.encode(P.Header(parameter_count=2), [], encoding)
    for candidate in (data, header + data):
        assert P.pcf_error("MQADMIN ", candidate, encoding) in {None} | {
            C.MQRC_CFH_ERROR,
            C.MQRC_PCF_ERROR,
        } | {k.reason for k in P.KINDS.values()}
        P.pcf_error("MQADMIN ", candidate, encoding, whole=False)
        convert_pcf(candidate, 819, encoding, 1208, LITTLE if encoding == BIG else BIG)


# MQGMO_CONVERT of a PCF message.


def test_conversion_swaps_integers_and_converts_strings() -> None:
    cafe = "café".encode("latin-1")
    ps = [
        IN,
        IL64,
        P.Param(F.MQCFT_STRING, 1, cafe),  # MQCCSI_DEFAULT: the MQMD's, 819
        P.Param(F.MQCFT_STRING, 2, "ü".encode("cp037"), ccsid=37),  # its own
        P.Param(F.MQCFT_STRING_LIST, 3, (cafe, b"tea ")),
        P.Param(F.MQCFT_STRING_FILTER, 4, cafe, ccsid=819, operator=F.MQCFOP_LIKE),
        P.Param(F.MQCFT_BYTE_STRING, 5, cafe),
    ]
    data = P.encode(P.Header(type=F.MQCFT_RESPONSE), ps, LITTLE)
    got = convert_pcf(data, 819, LITTLE, 1208, BIG)
    assert (got.ccsid, got.encoding, got.reason) == (1208, BIG, None)
    message = P.parse(got.data, BIG)
    assert isinstance(message, P.Message)
    out = message.params
    assert out[0] == IN and out[1] == IL64
    assert out[2] == P.Param(F.MQCFT_STRING, 1, "café".encode(), ccsid=0)  # still default
    assert out[3] == P.Param(F.MQCFT_STRING, 2, "ü".encode(), ccsid=1208)
    # MQCFSL: one length for all, the shorter padded with blanks.
    assert out[4].value == ("café".encode(), b"tea  ")
    assert out[5] == P.Param(F.MQCFT_STRING_FILTER, 4, "café".encode(), 1208, F.MQCFOP_LIKE)
    assert out[6] == ps[6]  # a byte string is not converted
    # StrucLength recomputed, a multiple of four: the whole message still walks.
    assert P.pcf_error("MQADMIN ", got.data, BIG) is None
    # UTF-16's blanks are two bytes; there the two strings are of one length already.
    wider = P.encode(P.Header(), [P.Param(F.MQCFT_STRING_LIST, 3, (b"\xe9t\xe9", b"ab "))], BIG)
    utf16 = convert_pcf(wider, 819, BIG, 1200, BIG)
    message = P.parse(utf16.data, BIG)
    assert isinstance(message, P.Message)
    assert message.params[0].value == ("été".encode("utf-16-be"), "ab ".encode("utf-16-be"))
    utf8 = P.parse(convert_pcf(wider, 819, BIG, 1208, BIG).data, BIG)
    assert isinstance(utf8, P.Message)
    assert utf8.params[0].value == ("été".encode(), b"ab   ")


def test_conversion_not_needed_returns_the_data_as_it_is() -> None:
    data = one(ST)
    assert convert_pcf(data, 819, LITTLE, 819, LITTLE) == Converted(data, 819, LITTLE)
    assert convert_pcf(b"", 819, LITTLE, 1208, BIG).data == b""
    # MQCCSI_Q_MGR on either side is the queue manager's CCSID (1208).
    assert convert_pcf(data, 0, LITTLE, 1208, LITTLE).reason is None


@pytest.mark.parametrize(
    ("why", "data", "ccsid", "encoding", "want_ccsid", "want_encoding", "reason"),
    [
        ("message integers undefined", one(IN), 819, 0x20, 819, LITTLE, 2112),
        ("message integers not 1 or 2", one(IN), 819, 0x3, 819, LITTLE, 2112),
        ("wanted integers not 1 or 2", one(IN), 819, LITTLE, 819, 0x30, 2116),
        ("message CCSID unknown", one(IN), 4242, LITTLE, 819, BIG, 2111),
        (
            "a string's own CCSID unknown",
            one(replace(ST, ccsid=4242)),
            819,
            LITTLE,
            1208,
            BIG,
            2111,
        ),
        ("wanted CCSID unknown", one(IN), 819, LITTLE, 4242, BIG, 2115),
        (
            "a string that does not convert",
            one(P.Param(F.MQCFT_STRING, 1, b"\xff")),
            1208,
            LITTLE,
            819,
            BIG,
            2119,
        ),
        ("not a valid PCF message", one(IN) + b"\0", 819, LITTLE, 819, BIG, 2110),
    ],
)
def test_conversion_failures_return_the_data_unconverted(
    why, data, ccsid, encoding, want_ccsid, want_encoding, reason
) -> None:
    got = convert_pcf(data, ccsid, encoding, want_ccsid, want_encoding)
    assert (got.data, got.ccsid, got.encoding, got.reason) == (data, ccsid, encoding, reason), why


# MQPUT / MQPUT1 through the pymqi face.


def depth(qmgr, name: str) -> int:
    return pymqi.Queue(qmgr, name, C.MQOO_INQUIRE).inquire(C.MQIA_CURRENT_Q_DEPTH)


# The first scenario of each reason.
PER_REASON = list({reason: (w, d, reason) for w, d, reason in reversed(INVALID)}.values())


@pytest.mark.parametrize(("why", "data", "reason"), PER_REASON, ids=[w for w, _, _ in PER_REASON])
def test_mqput_and_mqput1_refuse_an_invalid_pcf_message(qmgr, why, data, reason) -> None:
    qmgr.define_queue("Q.PCF")
    q = pymqi.Queue(qmgr, "Q.PCF", C.MQOO_OUTPUT)
    for fmt in (C.MQFMT_ADMIN, C.MQFMT_EVENT, C.MQFMT_PCF):
        with pytest.raises(pymqi.MQMIError) as exc:
            q.put(data, pymqi.MD(Format=fmt, Encoding=LITTLE))
        assert mqerror(exc) == (C.MQCC_FAILED, reason), why
        with pytest.raises(pymqi.MQMIError) as exc:
            qmgr.put1("Q.PCF", data, pymqi.MD(Format=fmt, Encoding=LITTLE))
        assert mqerror(exc) == (C.MQCC_FAILED, reason), why
    assert depth(qmgr, "Q.PCF") == 0  # nothing was put


def test_mqput_keeps_a_valid_pcf_message_and_converts_it_on_get(qmgr) -> None:
    qmgr.define_queue("Q.PCF.OK")
    q = pymqi.Queue(qmgr, "Q.PCF.OK", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    data = P.encode(P.Header(type=F.MQCFT_COMMAND), ALL, BIG)
    q.put(data, pymqi.MD(Format=C.MQFMT_ADMIN, Encoding=BIG))
    assert depth(qmgr, "Q.PCF.OK") == 1
    got = q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_NO_WAIT))
    assert got == data
    # The same bytes read in the other byte order: MQPUT checks them in the MQMD's.
    with pytest.raises(pymqi.MQMIError):
        q.put(data, pymqi.MD(Format=C.MQFMT_ADMIN, Encoding=LITTLE))


def test_mqput_checks_only_the_first_segment_and_only_what_it_holds(qmgr) -> None:
    qmgr.define_queue("Q.PCF.SEG")
    q = pymqi.Queue(qmgr, "Q.PCF.SEG", C.MQOO_OUTPUT)
    data = P.encode(P.Header(), ALL, LITTLE)
    group = b"G".ljust(24, b"\0")
    cut = CFH + 10  # inside the first parameter structure
    first = pymqi.MD(Format=C.MQFMT_PCF, Encoding=LITTLE, GroupId=group, MsgFlags=C.MQMF_SEGMENT)
    q.put(data[:cut], first)
    rest = pymqi.MD(
        Format=C.MQFMT_PCF,
        Encoding=LITTLE,
        GroupId=group,
        Offset=cut,
        MsgFlags=C.MQMF_LAST_SEGMENT,
    )
    q.put(data[cut:], rest)  # not a PCF message on its own: a later segment is not checked
    assert depth(qmgr, "Q.PCF.SEG") == 2
    with pytest.raises(pymqi.MQMIError) as exc:  # a bad MQCFH fails the first segment
        q.put(put_long(data, 8, 9)[:cut], pymqi.MD(Format=C.MQFMT_PCF, MsgFlags=C.MQMF_SEGMENT))
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_CFH_ERROR)


def test_a_trace_route_message_may_not_be_put_in_a_group(qmgr) -> None:
    """2417 MQRC_MSG_NOT_ALLOWED_IN_GROUP: IBM's example, a PCF message of Type
    MQCFT_TRACE_ROUTE in a group; alone, or another PCF type in a group, it is put."""
    qmgr.define_queue("Q.PCF.GROUP")
    q = pymqi.Queue(qmgr, "Q.PCF.GROUP", C.MQOO_OUTPUT)
    trace = P.encode(P.Header(type=F.MQCFT_TRACE_ROUTE), ALL, LITTLE)
    in_group = dict(Format=C.MQFMT_ADMIN, Encoding=LITTLE, GroupId=b"T".ljust(24, b"\0"))
    for flags in (C.MQMF_MSG_IN_GROUP, C.MQMF_LAST_MSG_IN_GROUP):
        with pytest.raises(pymqi.MQMIError) as exc:
            q.put(trace, pymqi.MD(MsgFlags=flags, **in_group))
        assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_MSG_NOT_ALLOWED_IN_GROUP)
    assert depth(qmgr, "Q.PCF.GROUP") == 0
    q.put(trace, pymqi.MD(Format=C.MQFMT_ADMIN, Encoding=LITTLE))
    command = P.encode(P.Header(type=F.MQCFT_COMMAND), ALL, LITTLE)
    q.put(command, pymqi.MD(MsgFlags=C.MQMF_LAST_MSG_IN_GROUP, **in_group))
    assert depth(qmgr, "Q.PCF.GROUP") == 2


def test_mqget_with_convert_gives_a_pcf_message_in_the_encoding_asked_for(qmgr) -> None:
    """MQGMO_CONVERT reaches core/pcfconvert.py through core/convert.py's table."""
    qmgr.define_queue("Q.PCF.CONVERT")
    q = pymqi.Queue(qmgr, "Q.PCF.CONVERT", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    data = P.encode(P.Header(type=F.MQCFT_COMMAND), ALL, LITTLE)
    q.put(data, pymqi.MD(Format=C.MQFMT_ADMIN, Encoding=LITTLE, CodedCharSetId=1208))
    md = pymqi.MD(Encoding=BIG, CodedCharSetId=1208)
    got = q.get(None, md, pymqi.GMO(Options=C.MQGMO_NO_WAIT | C.MQGMO_CONVERT))
    assert md.Encoding == BIG and got != data
    before, after = P.parse(data, LITTLE), P.parse(got, BIG)
    assert after.header == before.header
    assert [(p.type, p.parameter, p.value) for p in after.params] == [
        (p.type, p.parameter, p.value) for p in before.params
    ]
    # a string with its own CodedCharSetId is now in the one asked for
    assert {p.ccsid for p in after.params if p.type == F.MQCFT_STRING} == {1208}
