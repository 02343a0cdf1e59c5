"""pymqi/ibmmq-compatible MQI structures: MQOpts and MD, GMO, PMO, OD, CNO, CSP.

Mirrors ``MQOpts`` of pymqi (dsuch/pymqi) and of its successor ibmmq
(ibm-messaging/mq-mqi-python), following ibmmq v2 where the two differ:

* default versions MD 2, GMO 4, PMO 3, OD 4 (pymqi v1 used 1 for all four);
* non-public fields carry a leading underscore (``_StrucId``, ``_Reserved1``,
  ``_Reserved2``); the pymqi v1 names ``StrucId``, ``Reserved1``, ``Reserved2`` remain
  readable and writable as aliases;
* MQCHAR fields accept ``str`` (encoded as UTF-8) or ``bytes``; MQBYTE fields
  (MsgId, CorrelId, GroupId, AccountingToken, MsgToken, ...) accept only bytes.

Unlike pymqi, values are checked and normalised when they are set (by attribute,
``obj['Field']``, ``set()`` or constructor keyword), not only at ``pack()``: char and byte
fields are stored as ``bytes`` no longer than the field, integer fields as ``int`` within
the range of their C type, and unknown field names raise :class:`UnknownFieldError`
(an ``AttributeError`` that is also a ``KeyError``). Values are stored as given otherwise
(``MsgId`` defaults to ``b''``, which packs to 24 NULs == MQMI_NONE, as in pymqi).

``pack()`` always produces the full structure of the newest version this module knows
(like pymqi, whatever ``Version`` says), with native alignment, so MD is 364 bytes, GMO
112, PMO 184 and OD 424 on 64-bit platforms.

Pure: no I/O.
"""

from __future__ import annotations

import operator
import struct
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar

from adapter.core import cmqc as C  # noqa: N812

# The MQCHAR / MQBYTE helpers live in the core; re-exported here (pymqi.structs.mqstr).
from adapter.core.text import _bytes_like, mqchar, mqstr, pad_id

__all__ = [
    "CNO",
    "CSP",
    "GMO",
    "MD",
    "OD",
    "PMO",
    "MQOpts",
    "UnknownFieldError",
    "gmo",
    "md",
    "mqchar",
    "mqstr",
    "cno",
    "csp",
    "od",
    "pad_id",
    "pmo",
]

MQLONG_TYPE = "i"  # MQLONG is a 32-bit int on every 64-bit platform MQ supports

# Fields that are opaque bytes (MQBYTEn) rather than characters; as ibmmq's _binary_fields.
BINARY_FIELDS = frozenset(
    {
        "AccountingToken",
        "AlternateSecurityId",
        "ConnectionId",
        "ConnTag",
        "CorrelId",
        "Facility",
        "GroupId",
        "MCASecurityId",
        "MsgId",
        "MsgToken",
        "PubAccountingToken",
        "RemoteSecurityId",
        "SubCorrelId",
        "TranInstanceId",
    }
)

# pymqi v1 name -> ibmmq v2 name of the non-public fields.
ALIASES = {"StrucId": "_StrucId", "Reserved1": "_Reserved1", "Reserved2": "_Reserved2"}


class UnknownFieldError(AttributeError, KeyError):
    """A name that is not a field of the structure (an AttributeError, as in pymqi)."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


# --------------------------------------------------------------------------------------
# Field layouts

_INT_RANGES: dict[str, tuple[int, int]] = {}
for _code in "bBhHiIlLqQnNP":
    _bits = struct.calcsize(_code) * 8
    if _code in "bhilqn":
        _INT_RANGES[_code] = (-(1 << (_bits - 1)), (1 << (_bits - 1)) - 1)
    else:
        _INT_RANGES[_code] = (0, (1 << _bits) - 1)


def _int_coercer(name: str, lo: int, hi: int) -> Callable[[Any], int]:
    def coerce(v: Any) -> int:
        if type(v) is int and lo <= v <= hi:
            return v
        if not isinstance(v, int):
            if not hasattr(type(v), "__index__"):  # e.g. a queue handle given as Hobj
                raise TypeError(f"{name} must be an int, not {type(v).__name__} ({v!r})")
            v = operator.index(v)
        v = int(v)  # bool, IntEnum, ... -> plain int
        if not lo <= v <= hi:
            raise ValueError(f"{name}={v} is out of range for its C type ({lo}..{hi})")
        return v

    return coerce


def _char_coercer(name: str, size: int) -> Callable[[Any], bytes]:
    def coerce(v: Any) -> bytes:
        if type(v) is not bytes:
            if isinstance(v, str):
                v = v.encode("utf-8")
            elif _bytes_like(v):
                v = bytes(v)
            else:
                raise TypeError(
                    f"{name} is an MQCHAR{size} field: expected str or bytes, "
                    f"not {type(v).__name__}"
                )
        if len(v) > size:
            raise ValueError(f"{name} is an MQCHAR{size} field: {v!r} is {len(v)} bytes long")
        return v

    return coerce


def _byte_coercer(name: str, size: int) -> Callable[[Any], bytes]:
    def coerce(v: Any) -> bytes:
        if type(v) is not bytes:
            if isinstance(v, str):
                raise TypeError(
                    f"{name} is an MQBYTE{size} field and must be bytes, not str ({v!r}); "
                    f"e.g. {name}=b'...'"
                )
            if not _bytes_like(v):
                raise TypeError(
                    f"{name} is an MQBYTE{size} field and must be bytes, not {type(v).__name__}"
                )
            v = bytes(v)
        if len(v) > size:
            raise ValueError(f"{name} is an MQBYTE{size} field: value is {len(v)} bytes long")
        return v

    return coerce


def _char1_coercer(name: str) -> Callable[[Any], bytes]:
    def coerce(v: Any) -> bytes:
        if isinstance(v, str):
            v = v.encode("utf-8")
        elif _bytes_like(v):
            v = bytes(v)
        else:
            raise TypeError(f"{name} is an MQCHAR field: expected str or bytes of length 1")
        if len(v) != 1:
            raise ValueError(f"{name} is an MQCHAR field: expected exactly 1 byte, got {v!r}")
        return v

    return coerce


def _coercer_for(name: str, fmt: str) -> Callable[[Any], Any]:
    code = fmt[-1]
    if code == "s":
        size = int(fmt[:-1] or 1)
        if name.lstrip("_") in BINARY_FIELDS:
            return _byte_coercer(name, size)
        return _char_coercer(name, size)
    if code == "c" and fmt == "c":
        return _char1_coercer(name)
    if code in _INT_RANGES and len(fmt) == 1:
        lo, hi = _INT_RANGES[code]
        return _int_coercer(name, lo, hi)
    raise ValueError(f"unsupported struct format {fmt!r} for field {name}")


class _Layout:
    """Compiled member list: names, defaults, struct, per-field coercion."""

    __slots__ = ("defaults", "index", "names", "struct", "values")

    def __init__(self, memlist: Iterable[Sequence[Any]]):
        names: list[str] = []
        fmts: list[str] = []
        index: dict[str, tuple[str, Callable[[Any], Any]]] = {}
        defaults: dict[str, Any] = {}
        for member in memlist:
            name, default, fmt = member[0], member[1], member[2]
            if len(member) > 3 and member[3] != 1:
                raise ValueError(f"array members are not supported ({name})")
            if name in index:
                raise ValueError(f"duplicate member {name}")
            coerce = _coercer_for(name, fmt)
            index[name] = (name, coerce)
            defaults[name] = coerce(default)
            names.append(name)
            fmts.append(fmt)
        for alias, canonical in ALIASES.items():
            if canonical in index and alias not in index:
                index[alias] = index[canonical]
        self.names: tuple[str, ...] = tuple(names)
        self.index = index
        self.defaults = defaults
        self.struct = struct.Struct("@" + "".join(fmts))
        getter = operator.itemgetter(*names)
        self.values: Callable[[dict[str, Any]], tuple[Any, ...]] = (
            getter if len(names) > 1 else (lambda d, g=getter: (g(d),))
        )


# --------------------------------------------------------------------------------------
# MQOpts


class MQOpts:
    """Base class of the MQI structures, as pymqi's ``MQOpts(memlist, **kw)``.

    Subclasses list their members in ``_fields`` as ``(name, default, struct format)``;
    code written for pymqi may instead pass a member list to the constructor.
    Members are instance attributes: ``obj.Field``, ``obj['Field']``,
    ``obj['Field'] = v``, ``obj.set(Field=v)``, ``obj.get() -> dict``.
    """

    _fields: ClassVar[Sequence[Sequence[Any]] | None] = None
    _layout: ClassVar[_Layout]

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        fields = cls.__dict__.get("_fields")
        if fields is not None:
            cls._layout = _Layout(fields)

    def __init__(self, memlist: Iterable[Sequence[Any]] | None = None, **kw: Any) -> None:
        if memlist is not None:
            layout = _Layout(memlist)
            object.__setattr__(self, "_layout", layout)
        else:
            layout = getattr(type(self), "_layout", None)
            if layout is None:
                raise TypeError("MQOpts needs a member list: MQOpts(memlist, **kw)")
        self.__dict__.update(layout.defaults)
        if kw:
            self.set(**kw)

    # -- member access -------------------------------------------------------------

    def _unknown(self, name: str) -> UnknownFieldError:
        return UnknownFieldError(f"{type(self).__name__} has no field {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        entry = self._layout.index.get(name)
        if entry is None:
            raise self._unknown(name)
        canonical, coerce = entry
        self.__dict__[canonical] = coerce(value)

    def __getattr__(self, name: str) -> Any:
        # Only called when normal lookup fails: resolve the pymqi v1 aliases. Canonical
        # members always live in __dict__, so names starting with "_" never need this
        # (and looking up "_layout" here could otherwise recurse).
        if name.startswith("_"):
            raise AttributeError(name)
        entry = self._layout.index.get(name)
        if entry is None or entry[0] == name:
            raise self._unknown(name)
        return self.__dict__[entry[0]]

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} of {type(self).__name__}")

    def __getitem__(self, key: str) -> Any:
        entry = self._layout.index.get(key) if isinstance(key, str) else None
        if entry is None:
            raise self._unknown(key)
        return self.__dict__[entry[0]]

    def __setitem__(self, key: str, value: Any) -> None:
        if not isinstance(key, str):
            raise self._unknown(key)
        self.__setattr__(key, value)

    def set(self, **kw: Any) -> None:
        """Set members by keyword; unknown names raise :class:`UnknownFieldError`."""
        for k, v in kw.items():
            self.__setattr__(k, v)

    def get(self) -> dict[str, Any]:
        """All members as a dict keyed by member name (in structure order)."""
        d = self.__dict__
        return {n: d[n] for n in self._layout.names}

    def fields(self) -> tuple[str, ...]:
        """Member names in structure order (not in pymqi)."""
        return self._layout.names

    # -- MQCHARV (variable-length strings) --------------------------------------------

    def set_vs(
        self,
        vs_name: str,
        vs_value: bytes | str | None = None,
        vs_offset: int = 0,
        vs_buffer_size: int = 0,
        vs_ccsid: int = 0,
    ) -> None:
        """Set an MQCHARV member (ObjectString, SelectionString, ...) as ibmmq's
        ``set_vs``: its VSLength, VSOffset, VSBufSize and VSCCSID fields, and the string
        itself, which is kept with the structure (there is no C buffer to point at)."""
        name = vs_name.removesuffix("VSPtr")
        if f"{name}VSPtr" not in self._layout.index:
            raise self._unknown(vs_name)
        if isinstance(vs_value, str):
            vs_value = vs_value.encode("utf-8")
        self.__dict__.setdefault("_vs", {})[name] = vs_value
        self[f"{name}VSOffset"] = vs_offset
        self[f"{name}VSBufSize"] = vs_buffer_size
        self[f"{name}VSLength"] = len(vs_value) if vs_value is not None else 0
        self[f"{name}VSCCSID"] = vs_ccsid

    def get_vs(self, vs_name: str) -> bytes | None:
        """The string an MQCHARV member was set to with ``set_vs`` (None if never)."""
        name = vs_name.removesuffix("VSPtr")
        if f"{name}VSPtr" not in self._layout.index:
            raise self._unknown(vs_name)
        return self.__dict__.get("_vs", {}).get(name)

    # -- C structure -----------------------------------------------------------------

    def pack(self) -> bytes:
        """The structure as C bytes (native alignment; strings NUL-padded)."""
        layout = self._layout
        return layout.struct.pack(*layout.values(self.__dict__))

    def unpack(self, buff: bytes) -> MQOpts:
        """Fill the members from C bytes ``buff`` (shorter buffers are NUL-extended,
        as in ibmmq); returns self."""
        if isinstance(buff, str):
            raise TypeError("unpack() needs bytes, not str")
        if not _bytes_like(buff):
            raise TypeError(f"unpack() needs bytes, not {type(buff).__name__}")
        layout = self._layout
        size = layout.struct.size
        buff = bytes(buff)
        if len(buff) < size:
            buff += b"\0" * (size - len(buff))
        elif len(buff) > size:
            raise ValueError(
                f"{type(self).__name__}.unpack(): buffer is {len(buff)} bytes, "
                f"the structure is {size}"
            )
        self.__dict__.update(zip(layout.names, layout.struct.unpack(buff), strict=True))
        return self

    def get_length(self) -> int:
        """Length in bytes of the packed structure."""
        return self._layout.struct.size

    # -- display ---------------------------------------------------------------------

    def __str__(self) -> str:
        d = self.__dict__
        return "\n".join(f"{n}: {d[n]}" for n in self._layout.names)

    def __repr__(self) -> str:
        d = self.__dict__
        body = ", ".join(f"{n}={d[n]!r}" for n in self._layout.names)
        return f"{type(self).__name__}({body})"


# --------------------------------------------------------------------------------------
# The structures

_L = MQLONG_TYPE


class MD(MQOpts):
    """MQMD message descriptor (version 2 layout, 364 bytes; Version defaults to 2)."""

    _fields = (
        ("_StrucId", C.MQMD_STRUC_ID, "4s"),
        ("Version", C.MQMD_VERSION_2, _L),
        ("Report", C.MQRO_NONE, _L),
        ("MsgType", C.MQMT_DATAGRAM, _L),
        ("Expiry", C.MQEI_UNLIMITED, _L),
        ("Feedback", C.MQFB_NONE, _L),
        ("Encoding", C.MQENC_NATIVE, _L),
        ("CodedCharSetId", C.MQCCSI_Q_MGR, _L),
        ("Format", b"", "8s"),
        ("Priority", C.MQPRI_PRIORITY_AS_Q_DEF, _L),
        ("Persistence", C.MQPER_PERSISTENCE_AS_Q_DEF, _L),
        ("MsgId", b"", "24s"),
        ("CorrelId", b"", "24s"),
        ("BackoutCount", 0, _L),
        ("ReplyToQ", b"", "48s"),
        ("ReplyToQMgr", b"", "48s"),
        ("UserIdentifier", b"", "12s"),
        ("AccountingToken", b"", "32s"),
        ("ApplIdentityData", b"", "32s"),
        ("PutApplType", C.MQAT_NO_CONTEXT, _L),
        ("PutApplName", b"", "28s"),
        ("PutDate", b"", "8s"),
        ("PutTime", b"", "8s"),
        ("ApplOriginData", b"", "4s"),
        ("GroupId", b"", "24s"),
        ("MsgSeqNumber", 1, _L),
        ("Offset", 0, _L),
        ("MsgFlags", C.MQMF_NONE, _L),
        ("OriginalLength", C.MQOL_UNDEFINED, _L),
    )

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)


class GMO(MQOpts):
    """MQGMO get-message options (version 4 layout, 112 bytes; Version defaults to 4).

    GroupStatus, SegmentStatus and Segmentation are ints (``ord`` of the MQCHAR), as in
    pymqi: compare with ``CMQC.MQGS_*``, ``MQSS_*``, ``MQSEG_*``.
    """

    _fields = (
        ("_StrucId", C.MQGMO_STRUC_ID, "4s"),
        ("Version", C.MQGMO_VERSION_4, _L),
        ("Options", C.MQGMO_NO_WAIT, _L),
        ("WaitInterval", 0, _L),
        ("Signal1", 0, _L),
        ("Signal2", 0, _L),
        ("ResolvedQName", b"", "48s"),
        ("MatchOptions", C.MQMO_MATCH_MSG_ID | C.MQMO_MATCH_CORREL_ID, _L),
        ("GroupStatus", C.MQGS_NOT_IN_GROUP, "b"),
        ("SegmentStatus", C.MQSS_NOT_A_SEGMENT, "b"),
        ("Segmentation", C.MQSEG_INHIBITED, "b"),
        ("_Reserved1", b" ", "c"),
        ("MsgToken", b"", "16s"),
        ("ReturnedLength", C.MQRL_UNDEFINED, _L),
        ("_Reserved2", 0, _L),
        ("MsgHandle", 0, "q"),
    )

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)


class PMO(MQOpts):
    """MQPMO put-message options (version 3 layout, 184 bytes; Version defaults to 3)."""

    _fields = (
        ("_StrucId", C.MQPMO_STRUC_ID, "4s"),
        ("Version", C.MQPMO_VERSION_3, _L),
        ("Options", C.MQPMO_NONE, _L),
        ("Timeout", -1, _L),
        ("Context", 0, _L),
        ("KnownDestCount", 0, _L),
        ("UnknownDestCount", 0, _L),
        ("InvalidDestCount", 0, _L),
        ("ResolvedQName", b"", "48s"),
        ("ResolvedQMgrName", b"", "48s"),
        ("RecsPresent", 0, _L),
        ("PutMsgRecFields", 0, _L),
        ("PutMsgRecOffset", 0, _L),
        ("ResponseRecOffset", 0, _L),
        ("PutMsgRecPtr", 0, "P"),
        ("ResponseRecPtr", 0, "P"),
        ("OriginalMsgHandle", 0, "q"),
        ("NewMsgHandle", 0, "q"),
        ("Action", 0, _L),
        ("PubLevel", 9, _L),
    )

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)


def charv_fields(*names: str) -> list[tuple[str, Any, str]]:
    """The MQCHARV fields (VSPtr, VSOffset, VSBufSize, VSLength, VSCCSID) of each named
    variable-length string, as MQOD, MQSD and MQSTS lay them out."""
    return [
        field
        for vs in names
        for field in (
            (f"{vs}VSPtr", 0, "P"),
            (f"{vs}VSOffset", 0, _L),
            (f"{vs}VSBufSize", 0, _L),
            (f"{vs}VSLength", 0, _L),
            (f"{vs}VSCCSID", 0, _L),
        )
    ]


_OD_FIELDS: list[tuple[str, Any, str]] = [
    ("_StrucId", C.MQOD_STRUC_ID, "4s"),
    ("Version", C.MQOD_VERSION_4, _L),
    ("ObjectType", C.MQOT_Q, _L),
    ("ObjectName", b"", "48s"),
    ("ObjectQMgrName", b"", "48s"),
    ("DynamicQName", b"AMQ.*", "48s"),
    ("AlternateUserId", b"", "12s"),
    ("RecsPresent", 0, _L),
    ("KnownDestCount", 0, _L),
    ("UnknownDestCount", 0, _L),
    ("InvalidDestCount", 0, _L),
    ("ObjectRecOffset", 0, _L),
    ("ResponseRecOffset", 0, _L),
    ("ObjectRecPtr", 0, "P"),
    ("ResponseRecPtr", 0, "P"),
    ("AlternateSecurityId", b"", "40s"),
    ("ResolvedQName", b"", "48s"),
    ("ResolvedQMgrName", b"", "48s"),
]
_OD_FIELDS += charv_fields("ObjectString", "SelectionString", "ResObjectString")
_OD_FIELDS += [("ResolvedType", -3, _L), ("pad", b"", "4s")]


class OD(MQOpts):
    """MQOD object descriptor (version 4 layout, 424 bytes on 64-bit; Version defaults
    to 4 as in ibmmq v2 — pymqi v1 used 1). ObjectName takes str or bytes."""

    _fields = tuple(_OD_FIELDS)

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)


class CNO(MQOpts):
    """MQCNO connect options for MQCONNX (ibmmq v2's CNO: version 8 layout, Version
    defaults to 5). Only StrucId, Version and Options mean anything here: there is no
    client channel, TLS or connection tag on Kafka."""

    _fields = (
        ("_StrucId", C.MQCNO_STRUC_ID, "4s"),
        ("Version", C.MQCNO_VERSION_5, _L),
        ("Options", C.MQCNO_NONE, _L),
        ("_ClientConnOffset", 0, _L),
        ("_ClientConnPtr", 0, "P"),
        ("ConnTag", b"", "128s"),
        ("_SSLConfigPtr", 0, "P"),
        ("_SSLConfigOffset", 0, _L),
        ("ConnectionId", b"", "24s"),
        ("_SecurityParmsOffset", 0, _L),
        ("_SecurityParmsPtr", 0, "P"),
        ("_CCDTUrlPtr", 0, "P"),
        ("_CCDTUrlOffset", 0, _L),
        ("_CCDTUrlLength", 0, _L),
        ("_Reserved", 0, "q"),
        ("ApplName", b"", "28s"),
        ("_Reserved2", 0, _L),
        ("_BalanceParmsPtr", 0, "P"),
        ("_BalanceParmsOffset", 0, _L),
        ("_Reserved3", 0, _L),
    )

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)


class CSP(MQOpts):
    """MQCSP security parameters (ibmmq v2's CSP, version 1 by default). As in ibmmq,
    CSPUserId and CSPPassword take str or bytes; they are kept beside the structure
    (pointers in C), never packed nor shown by repr()."""

    _fields = (
        ("_StrucId", C.MQCSP_STRUC_ID, "4s"),
        ("Version", C.MQCSP_VERSION_1, _L),
        ("AuthenticationType", C.MQCSP_AUTH_NONE, _L),
        ("_Reserved1", 0, _L),
        ("_CSPUserIdPtr", 0, "P"),
        ("_CSPUserIdOffset", 0, _L),
        ("_CSPUserIdLength", 0, _L),
        ("_Reserved2", 0, "q"),
        ("_CSPPasswordPtr", 0, "P"),
        ("_CSPPasswordOffset", 0, _L),
        ("_CSPPasswordLength", 0, _L),
    )
    _TEXT = ("CSPUserId", "CSPPassword")

    def __init__(self, **kw: Any) -> None:
        self.__dict__.update(dict.fromkeys(self._TEXT))
        super().__init__(**kw)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in self._TEXT:
            if value is not None and not isinstance(value, str | bytes):
                raise TypeError(f"{name} must be str or bytes, not {type(value).__name__}")
            self.__dict__[name] = value
            return
        super().__setattr__(name, value)


# Backward-compatible lower-case aliases (pymqi and ibmmq both export them).
md = MD
gmo = GMO
pmo = PMO
od = OD
cno = CNO
csp = CSP
