"""Unit tests for the pymqi-compatible structures, errors and CMQC facade."""

from __future__ import annotations

import copy
import enum
import pickle
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapter.core import cmqc as C  # noqa: N812
from adapter.pymqi import CMQC
from adapter.pymqi.errors import REASON_NAMES, Error, MQMIError, PYIFError, reason_name
from adapter.pymqi.structs import (
    GMO,
    MD,
    OD,
    PMO,
    MQOpts,
    UnknownFieldError,
    gmo,
    md,
    mqchar,
    mqstr,
    od,
    pad_id,
    pmo,
)

MD_FIELDS = [
    "_StrucId",
    "Version",
    "Report",
    "MsgType",
    "Expiry",
    "Feedback",
    "Encoding",
    "CodedCharSetId",
    "Format",
    "Priority",
    "Persistence",
    "MsgId",
    "CorrelId",
    "BackoutCount",
    "ReplyToQ",
    "ReplyToQMgr",
    "UserIdentifier",
    "AccountingToken",
    "ApplIdentityData",
    "PutApplType",
    "PutApplName",
    "PutDate",
    "PutTime",
    "ApplOriginData",
    "GroupId",
    "MsgSeqNumber",
    "Offset",
    "MsgFlags",
    "OriginalLength",
]


# ---------------------------------------------------------------------------------------
# Defaults and versions


def test_md_fields_and_defaults() -> None:
    m = MD()
    assert list(m.get()) == MD_FIELDS
    assert len(MD_FIELDS) == 29
    assert m.get() == {
        "_StrucId": b"MD  ",
        "Version": 2,
        "Report": C.MQRO_NONE,
        "MsgType": C.MQMT_DATAGRAM,
        "Expiry": C.MQEI_UNLIMITED,
        "Feedback": C.MQFB_NONE,
        "Encoding": C.MQENC_NATIVE,
        "CodedCharSetId": C.MQCCSI_Q_MGR,
        "Format": b"",
        "Priority": C.MQPRI_PRIORITY_AS_Q_DEF,
        "Persistence": C.MQPER_PERSISTENCE_AS_Q_DEF,
        "MsgId": b"",
        "CorrelId": b"",
        "BackoutCount": 0,
        "ReplyToQ": b"",
        "ReplyToQMgr": b"",
        "UserIdentifier": b"",
        "AccountingToken": b"",
        "ApplIdentityData": b"",
        "PutApplType": C.MQAT_NO_CONTEXT,
        "PutApplName": b"",
        "PutDate": b"",
        "PutTime": b"",
        "ApplOriginData": b"",
        "GroupId": b"",
        "MsgSeqNumber": 1,
        "Offset": 0,
        "MsgFlags": C.MQMF_NONE,
        "OriginalLength": C.MQOL_UNDEFINED,
    }


def test_gmo_defaults() -> None:
    g = GMO()
    assert g.Version == C.MQGMO_VERSION_4 == 4
    assert g.Options == C.MQGMO_NO_WAIT
    assert g.WaitInterval == 0 and g.Signal1 == 0 and g.Signal2 == 0
    assert g.ResolvedQName == b""
    assert g.MatchOptions == C.MQMO_MATCH_MSG_ID | C.MQMO_MATCH_CORREL_ID == 3
    assert g.GroupStatus == C.MQGS_NOT_IN_GROUP == ord(" ")
    assert g.SegmentStatus == C.MQSS_NOT_A_SEGMENT
    assert g.Segmentation == C.MQSEG_INHIBITED
    assert g.Reserved1 == g._Reserved1 == b" "
    assert g.MsgToken == b""
    assert g.ReturnedLength == C.MQRL_UNDEFINED
    assert g.Reserved2 == g._Reserved2 == 0
    assert g.MsgHandle == 0
    assert g.StrucId == b"GMO "


def test_pmo_defaults() -> None:
    p = PMO()
    assert p.StrucId == b"PMO "
    assert p.Version == C.MQPMO_VERSION_3 == 3
    assert p.Options == C.MQPMO_NONE
    assert p.Timeout == -1
    assert p.Context == 0
    assert p.KnownDestCount == p.UnknownDestCount == p.InvalidDestCount == 0
    assert p.ResolvedQName == p.ResolvedQMgrName == b""
    assert p.RecsPresent == p.PutMsgRecFields == p.PutMsgRecOffset == p.ResponseRecOffset == 0
    assert p.PutMsgRecPtr == p.ResponseRecPtr == 0
    assert p.OriginalMsgHandle == p.NewMsgHandle == 0
    assert p.Action == 0
    assert p.PubLevel == 9


def test_od_defaults() -> None:
    o = OD()
    assert o.StrucId == b"OD  "
    assert o.Version == C.MQOD_VERSION_4
    assert o.ObjectType == C.MQOT_Q
    assert o.ObjectName == b"" and o.ObjectQMgrName == b""
    assert o.DynamicQName == b"AMQ.*"
    assert o.AlternateUserId == b"" and o.AlternateSecurityId == b""
    assert o.ResolvedQName == o.ResolvedQMgrName == b""
    assert o.ObjectStringVSLength == 0 and o.ObjectStringVSPtr == 0
    assert o.ResolvedType == -3


def test_lowercase_aliases() -> None:
    assert md is MD and gmo is GMO and pmo is PMO and od is OD


def test_constructor_kwargs() -> None:
    m = MD(MsgType=C.MQMT_REQUEST, ReplyToQ="REPLY", CorrelId=b"c" * 24, Version=1)
    assert m.MsgType == C.MQMT_REQUEST
    assert m.ReplyToQ == b"REPLY"
    assert m.CorrelId == b"c" * 24
    assert m.Version == 1
    g = GMO(Options=C.MQGMO_WAIT | C.MQGMO_LOGICAL_ORDER, WaitInterval=500)
    assert g.Options == C.MQGMO_WAIT | C.MQGMO_LOGICAL_ORDER and g.WaitInterval == 500
    o = OD(ObjectName="DEV.QUEUE.1")
    assert o.ObjectName == b"DEV.QUEUE.1"


def test_instances_are_independent() -> None:
    a, b = MD(), MD()
    a.MsgId = b"x" * 24
    a.Priority = 5
    assert b.MsgId == b"" and b.Priority == -1
    assert MD().get() == b.get()


# ---------------------------------------------------------------------------------------
# Access styles


def test_attribute_item_set_get_access() -> None:
    m = MD()
    m.Priority = 3
    assert m["Priority"] == 3
    m["Priority"] = 4
    assert m.Priority == 4
    m.set(Priority=5, Persistence=C.MQPER_PERSISTENT, Format=C.MQFMT_STRING)
    assert (m.Priority, m.Persistence, m.Format) == (5, 1, b"MQSTR   ")
    d = m.get()
    assert d["Priority"] == 5
    d["Priority"] = 9  # get() returns a copy
    assert m.Priority == 5


def test_strucid_and_reserved_aliases() -> None:
    m = MD()
    assert m.StrucId == m["StrucId"] == m._StrucId == m["_StrucId"] == b"MD  "
    m.StrucId = b"XX  "
    assert m._StrucId == b"XX  "
    m["StrucId"] = "MD  "
    assert m._StrucId == b"MD  "
    g = GMO(Reserved1=b"R", Reserved2=7)
    assert g._Reserved1 == b"R" and g._Reserved2 == 7
    assert "StrucId" not in m.get() and "_StrucId" in m.get()
    with pytest.raises(AttributeError):
        _ = m.Reserved1  # MD has no reserved fields


@pytest.mark.parametrize(
    "action",
    [
        lambda m: setattr(m, "MsgID", b"x"),
        lambda m: m.__setitem__("Bogus", 1),
        lambda m: m.set(Priority=1, Bogus=1),
        lambda m: MD(Bogus=1),
        lambda m: m["Bogus"],
        lambda m: m.Bogus,
        lambda m: m[0],
    ],
)
def test_unknown_fields_raise_attribute_error(action) -> None:
    with pytest.raises(AttributeError):
        action(MD())


def test_unknown_field_error_is_also_key_error() -> None:
    with pytest.raises(KeyError):
        MD()["Bogus"]
    with pytest.raises(UnknownFieldError, match="MD has no field 'Bogus'"):
        MD().Bogus = 1
    assert not hasattr(MD(), "Bogus")


def test_fields_cannot_be_deleted() -> None:
    m = MD()
    with pytest.raises(AttributeError):
        del m.Priority
    assert m.Priority == -1


def test_str_lists_name_value_lines() -> None:
    text = str(MD(Priority=7))
    lines = text.split("\n")
    assert len(lines) == 29
    assert lines[0] == "_StrucId: b'MD  '"
    assert "Priority: 7" in lines
    assert lines[-1] == "OriginalLength: -1"
    assert repr(GMO()).startswith("GMO(_StrucId=b'GMO ', Version=4")


def test_copy_and_pickle() -> None:
    m = MD(MsgId=b"i" * 24, Format="MQSTR")
    for other in (copy.copy(m), copy.deepcopy(m), pickle.loads(pickle.dumps(m))):
        assert type(other) is MD
        assert other.get() == m.get()
        other.Priority = 8
        assert m.Priority == -1
        with pytest.raises(AttributeError):
            other.Bogus = 1


# ---------------------------------------------------------------------------------------
# str / bytes / int rules


@pytest.mark.parametrize(
    ("field", "size"),
    [
        ("Format", 8),
        ("ReplyToQ", 48),
        ("ReplyToQMgr", 48),
        ("UserIdentifier", 12),
        ("ApplIdentityData", 32),
        ("PutApplName", 28),
        ("PutDate", 8),
        ("PutTime", 8),
        ("ApplOriginData", 4),
    ],
)
def test_mqchar_fields_accept_str_and_bytes(field: str, size: int) -> None:
    m = MD()
    m[field] = "A" * size
    assert m[field] == b"A" * size
    setattr(m, field, b"B")
    assert m[field] == b"B"
    m.set(**{field: bytearray(b"C")})
    assert m[field] == b"C" and type(m[field]) is bytes
    with pytest.raises(ValueError, match=field):
        m[field] = "x" * (size + 1)
    with pytest.raises(TypeError, match=field):
        m[field] = 5
    with pytest.raises(TypeError):
        m[field] = None


def test_mqchar_str_is_utf8() -> None:
    m = MD(ReplyToQ="QUEUE.é")
    assert m.ReplyToQ == "QUEUE.é".encode()


@pytest.mark.parametrize(
    ("cls", "field", "size"),
    [
        (MD, "MsgId", 24),
        (MD, "CorrelId", 24),
        (MD, "GroupId", 24),
        (MD, "AccountingToken", 32),
        (GMO, "MsgToken", 16),
        (OD, "AlternateSecurityId", 40),
    ],
)
def test_mqbyte_fields_require_bytes(cls: type[MQOpts], field: str, size: int) -> None:
    s = cls()
    with pytest.raises(TypeError, match=f"{field}.*bytes"):
        setattr(s, field, "a" * size)
    with pytest.raises(TypeError):
        s[field] = "abc"
    with pytest.raises(TypeError):
        s.set(**{field: "abc"})
    with pytest.raises(TypeError):
        cls(**{field: "abc"})
    with pytest.raises(ValueError, match=field):
        s[field] = b"x" * (size + 1)
    s[field] = b"\x00\x01" + b"x" * (size - 2)
    assert s[field] == b"\x00\x01" + b"x" * (size - 2)
    s[field] = memoryview(b"mv")
    assert s[field] == b"mv" and type(s[field]) is bytes


def test_int_fields() -> None:
    m = MD()
    with pytest.raises(TypeError, match="Priority"):
        m.Priority = "5"
    with pytest.raises(TypeError):
        m.Priority = 5.0
    with pytest.raises(TypeError):
        m.Priority = None
    with pytest.raises(ValueError, match="Expiry"):
        m.Expiry = 2**31
    m.Expiry = 2**31 - 1
    m.Expiry = -(2**31)

    class P(enum.IntEnum):
        HIGH = 9

    m.Priority = P.HIGH
    assert m.Priority == 9 and type(m.Priority) is int
    m.Persistence = True
    assert m.Persistence == 1 and type(m.Persistence) is int
    g = GMO()
    g.GroupStatus = C.MQGS_LAST_MSG_IN_GROUP
    with pytest.raises(ValueError):
        g.GroupStatus = 200  # a signed char
    g.MsgHandle = 2**63 - 1
    with pytest.raises(ValueError):
        PMO().PutMsgRecPtr = -1  # pointers are unsigned


def test_reserved1_is_one_char() -> None:
    g = GMO()
    g.Reserved1 = "x"
    assert g._Reserved1 == b"x"
    with pytest.raises(ValueError):
        g.Reserved1 = b"xy"
    with pytest.raises(ValueError):
        g.Reserved1 = b""


# ---------------------------------------------------------------------------------------
# pack / unpack


def test_lengths_match_mq_64bit() -> None:
    assert struct.calcsize("P") == 8, "the reference lengths are for 64-bit platforms"
    assert MD().get_length() == len(MD().pack()) == C.MQMD_LENGTH_2 == 364
    assert GMO().get_length() == len(GMO().pack()) == C.MQGMO_LENGTH_4 == 112
    assert PMO().get_length() == len(PMO().pack()) == C.MQPMO_LENGTH_3 == 184
    assert OD().get_length() == len(OD().pack()) == 424
    # Full layout regardless of Version, as in pymqi.
    assert len(MD(Version=1).pack()) == 364


def test_md_pack_layout() -> None:
    m = MD(MsgId=b"id", Format=C.MQFMT_STRING, Priority=4, MsgSeqNumber=2)
    buf = m.pack()
    assert buf[:4] == b"MD  "
    assert struct.unpack_from("i", buf, 4)[0] == 2  # Version
    assert buf[32:40] == b"MQSTR   "  # Format
    assert struct.unpack_from("i", buf, 40)[0] == 4  # Priority
    assert buf[48:72] == b"id" + b"\0" * 22  # MsgId NUL-padded
    assert buf[72:96] == C.MQCI_NONE  # CorrelId b'' -> 24 NULs
    assert buf[324:348] == C.MQGI_NONE  # GroupId, first v2 field
    assert struct.unpack_from("4i", buf, 348) == (2, 0, 0, -1)


def test_md_pack_unpack_round_trip() -> None:
    m = MD(
        MsgId=b"M" * 24,
        CorrelId=b"C" * 24,
        GroupId=b"G" * 24,
        AccountingToken=b"\x01" * 32,
        Format="MQSTR   ",
        ReplyToQ="Q" * 48,
        PutDate="20240229",
        PutTime="12000000",
        MsgSeqNumber=7,
        Offset=100,
        MsgFlags=C.MQMF_LAST_MSG_IN_GROUP,
        OriginalLength=5,
        BackoutCount=3,
    )
    out = MD().unpack(m.pack())
    assert out.pack() == m.pack()
    for name, value in m.get().items():
        if isinstance(value, int) or value:  # ints, and the (full-width) bytes set above
            assert out[name] == value, name
    # Short values come back at full width (NUL-padded), as from a real MQGET.
    short = MD(ReplyToQ="R", MsgId=b"x")
    back = MD().unpack(short.pack())
    assert back.ReplyToQ == b"R" + b"\0" * 47
    assert back.MsgId == b"x" + b"\0" * 23
    assert back.Format == b"\0" * 8


def test_unpack_returns_self_and_accepts_short_buffers() -> None:
    m = MD()
    assert m.unpack(MD(Priority=3).pack()[: C.MQMD_LENGTH_1]) is m
    assert m.Priority == 3
    assert m.MsgSeqNumber == 0  # v2 part NUL-extended, as ibmmq does


def test_unpack_rejects_bad_input() -> None:
    with pytest.raises(TypeError):
        MD().unpack("not bytes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="364"):
        MD().unpack(b"\0" * 365)


def test_gmo_pmo_od_round_trip() -> None:
    g = GMO(
        Options=C.MQGMO_WAIT | C.MQGMO_SYNCPOINT,
        WaitInterval=-1,
        MatchOptions=C.MQMO_MATCH_GROUP_ID,
        GroupStatus=C.MQGS_MSG_IN_GROUP,
        SegmentStatus=C.MQSS_LAST_SEGMENT,
        Segmentation=C.MQSEG_ALLOWED,
        MsgToken=b"t" * 16,
        ReturnedLength=10,
        MsgHandle=-5,
    )
    g2 = GMO().unpack(g.pack())
    assert g2.get() == {**g.get(), "ResolvedQName": b"\0" * 48}
    assert g2.GroupStatus == C.MQGS_MSG_IN_GROUP and type(g2.GroupStatus) is int
    p = PMO(Options=C.MQPMO_LOGICAL_ORDER, ResolvedQName="Q", PutMsgRecPtr=2**64 - 1)
    p2 = PMO().unpack(p.pack())
    assert p2.Options == C.MQPMO_LOGICAL_ORDER and p2.PutMsgRecPtr == 2**64 - 1
    assert p2.ResolvedQName == b"Q" + b"\0" * 47
    o = OD(ObjectName="DEV.Q", ObjectType=C.MQOT_Q_MGR)
    o2 = OD().unpack(o.pack())
    assert o2.ObjectName.rstrip(b"\0") == b"DEV.Q" and o2.ObjectType == C.MQOT_Q_MGR
    assert o2.DynamicQName.rstrip(b"\0") == b"AMQ.*"


@given(
    priority=st.integers(-(2**31), 2**31 - 1),
    msg_id=st.binary(max_size=24),
    reply=st.text(alphabet=st.characters(min_codepoint=1, max_codepoint=127), max_size=48),
    flags=st.integers(-(2**31), 2**31 - 1),
)
def test_md_round_trip_property(priority: int, msg_id: bytes, reply: str, flags: int) -> None:
    m = MD(Priority=priority, MsgId=msg_id, ReplyToQ=reply, MsgFlags=flags)
    out = MD().unpack(m.pack())
    assert out.Priority == priority and out.MsgFlags == flags
    assert out.MsgId == msg_id.ljust(24, b"\0")
    assert out.ReplyToQ == reply.encode().ljust(48, b"\0")
    assert out.pack() == m.pack()


# ---------------------------------------------------------------------------------------
# pymqi-style generic MQOpts


def test_mqopts_with_member_list() -> None:
    class XYZ(MQOpts):
        def __init__(self, **kw):
            MQOpts.__init__(
                self,
                (["_StrucId", b"XYZ ", "4s"], ["Version", 1, "i"], ["Name", b"", "12s"]),
                **kw,
            )

    x = XYZ(Name="abc")
    assert x.StrucId == b"XYZ " and x.Name == b"abc" and x.get_length() == 20
    assert XYZ().unpack(x.pack()).Name == b"abc" + b"\0" * 9
    with pytest.raises(AttributeError):
        x.Bogus = 1
    with pytest.raises(TypeError):
        MQOpts()


# ---------------------------------------------------------------------------------------
# Helpers


def test_pad_id() -> None:
    assert pad_id(b"") == C.MQMI_NONE
    assert pad_id(b"abc") == b"abc" + b"\0" * 21
    assert pad_id(b"x" * 24) == b"x" * 24
    assert pad_id(b"tok", 16) == b"tok" + b"\0" * 13
    assert pad_id(bytearray(b"a")) == b"a" + b"\0" * 23
    with pytest.raises(ValueError, match="25 bytes"):
        pad_id(b"x" * 25)
    with pytest.raises(TypeError, match="bytes"):
        pad_id("abc")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        pad_id(None)  # type: ignore[arg-type]


def test_mqchar_and_mqstr() -> None:
    assert mqchar("MQSTR", 8) == b"MQSTR   "
    assert mqchar(b"", 8) == C.MQFMT_NONE
    assert mqchar(None, 4) == b"    "
    assert mqchar(b"\0" * 8, 8) == C.MQFMT_NONE  # pymqi's NUL-packed default
    assert mqchar(b"AB\0junk", 4) == b"AB  "
    assert mqchar("Q", 3, pad=b"\0") == b"Q\0\0"
    assert mqchar("é", 2) == "é".encode()
    with pytest.raises(ValueError, match="MQCHAR4"):
        mqchar("abcde", 4)
    with pytest.raises(TypeError):
        mqchar(5, 4)  # type: ignore[arg-type]
    assert mqstr(b"MQSTR   ") == "MQSTR"
    assert mqstr(b"Q1" + b"\0" * 46) == "Q1"
    assert mqstr("Q2  ") == "Q2"
    assert mqstr(None) == ""
    assert mqstr(b"\xff") == "\ufffd"


# ---------------------------------------------------------------------------------------
# Errors


def test_mqmierror_attributes_and_strings() -> None:
    e = MQMIError(C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE)
    assert isinstance(e, Error) and isinstance(e, Exception)
    assert e.comp == 2 and e.reason == 2033
    assert e.errorAsString() == e.error_as_string() == "FAILED: MQRC_NO_MSG_AVAILABLE"
    assert str(e) == "MQI Error. Comp: 2, Reason 2033: FAILED: MQRC_NO_MSG_AVAILABLE"
    w = MQMIError(C.MQCC_WARNING, C.MQRC_INCOMPLETE_GROUP)
    assert w.errorAsString() == "WARNING: MQRC_INCOMPLETE_GROUP"
    assert str(w) == "MQI Error. Comp: 1, Reason 2241: WARNING: MQRC_INCOMPLETE_GROUP"
    assert MQMIError(0, 0).errorAsString() == "OK"
    assert MQMIError(2, 1).errorAsString() == "FAILED: Error code 1 not defined"
    assert MQMIError(1, 99999).errorAsString() == "WARNING: Error code 99999 not defined"


def test_mqmierror_keyword_attributes() -> None:
    e = MQMIError(1, C.MQRC_TRUNCATED_MSG_ACCEPTED, message=b"part", original_length=10)
    assert e.message == b"part" and e.original_length == 10
    assert e.get("original_length") == 10
    assert e.args == (1, 2079)
    r = pickle.loads(pickle.dumps(e))
    assert (r.comp, r.reason, r.message, r.original_length) == (1, 2079, b"part", 10)
    assert "original_length=10" in repr(e)
    with pytest.raises(MQMIError) as info:
        raise e
    assert info.value.reason == C.MQRC_TRUNCATED_MSG_ACCEPTED


def test_mqmierror_class_defaults() -> None:
    assert MQMIError.comp == C.MQCC_OK and MQMIError.reason == C.MQRC_NONE


def test_reason_names() -> None:
    assert MQMIError(1, 2120).errorAsString() == "WARNING: MQRC_CONVERTED_MSG_TOO_BIG"
    assert reason_name(2033) == "MQRC_NO_MSG_AVAILABLE"
    assert reason_name(2003) == "MQRC_BACKED_OUT"
    assert reason_name(123456) is None
    for code, name in REASON_NAMES.items():
        assert getattr(C, name) == code
    assert all(n.startswith("MQRC_") for n in REASON_NAMES.values())


def test_pyiferror() -> None:
    e = PYIFError("not open")
    assert isinstance(e, Error)
    assert e.error == "not open"
    assert str(e) == "PYMQI Error: not open"
    assert str(PYIFError(ValueError("x"))) == "PYMQI Error: x"


# ---------------------------------------------------------------------------------------
# CMQC facade


def test_cmqc_facade() -> None:
    assert CMQC.MQGMO_WAIT == C.MQGMO_WAIT == 1
    assert CMQC.MQRC_NO_MSG_AVAILABLE == 2033
    assert CMQC.MQMI_NONE == b"\0" * 24
    public = {n for n in vars(C) if not n.startswith("_")}
    assert public <= set(vars(CMQC))
