"""``DLH``: the MQDLH dead-letter header as pymqi and ibmmq shape it.

An MQOpts structure of the 172-byte header (the layout of
https://www.ibm.com/docs/en/SSFKSJ_latest/refdev/q096110_.html; the engine writes it with
adapter/core/dlh.py): ``DLH().get_header(message)`` reads the header at the front of a
message got from the dead-letter queue (the rest, ``message[CMQC.MQDLH_LENGTH_1:]``, is
the original data, in the header's Format), ``unpack``/``pack`` as every structure,
``to_string()`` turns the character fields into ``str`` in place (ibmmq's behaviour;
``pack`` blank-pads them again).
"""

from __future__ import annotations

from adapter.core import cmqc as C
from adapter.core.text import mqchar
from adapter.pymqi.structs import MQLONG_TYPE, MQOpts

_L = MQLONG_TYPE


class DLH(MQOpts):
    """MQDLH dead-letter header (version 1, 172 bytes)."""

    _fields = (
        ("_StrucId", C.MQDLH_STRUC_ID, "4s"),
        ("Version", C.MQDLH_VERSION_1, _L),
        ("Reason", C.MQRC_NONE, _L),
        ("DestQName", b"", "48s"),
        ("DestQMgrName", b"", "48s"),
        ("Encoding", 0, _L),
        ("CodedCharSetId", C.MQCCSI_UNDEFINED, _L),
        ("Format", C.MQFMT_NONE, "8s"),
        ("PutApplType", 0, _L),
        ("PutApplName", b"", "28s"),
        ("PutDate", b"", "8s"),
        ("PutTime", b"", "8s"),
    )
    # The MQCHAR fields and their lengths (to_string strips them, pack blank-pads them).
    _TEXT = {"_StrucId": 4, "DestQName": 48, "DestQMgrName": 48, "Format": 8,
             "PutApplName": 28, "PutDate": 8, "PutTime": 8}  # fmt: skip

    def get_header(self, buf: bytes) -> DLH:
        """Fill the header from the front of a whole message; returns self."""
        self.unpack(bytes(buf[: C.MQDLH_LENGTH_1]))
        return self

    def to_string(self, encoding: str = "utf-8") -> DLH:
        """The character fields as ``str`` without their padding; returns self."""
        for name in self._TEXT:
            value = self.__dict__[name]
            if isinstance(value, bytes):
                try:
                    self.__dict__[name] = value.decode(encoding).strip(" \0")
                except UnicodeDecodeError:
                    pass  # left as bytes, as ibmmq leaves what it cannot decode
        return self

    def pack(self) -> bytes:
        values = dict(self.__dict__)
        for name, size in self._TEXT.items():
            if isinstance(values[name], str):  # after to_string: blank-padded again
                values[name] = mqchar(values[name], size)
        layout = self._layout
        return layout.struct.pack(*layout.values(values))
