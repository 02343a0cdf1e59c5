"""``XQH``: the MQXQH transmission-queue header as pymqi and ibmmq shape it.

An MQOpts structure of the header's own fields (StrucId, Version, RemoteQName,
RemoteQMgrName: 104 bytes); the version-1 MQMD embedded after them is read with
``get_embedded_md(message)``, as ibmmq does it, and an MQMDE follows when that MQMD's
Format is MQFMT_MD_EXTENSION. A message got from a transmission queue (Format
MQFMT_XMIT_Q_HEADER) starts with it; the engine writes it with adapter/core/xqh.py
(layout: https://www.ibm.com/docs/SSFKSJ_9.2.0/com.ibm.mq.ref.dev.doc/q101500_.html).
"""

from __future__ import annotations

from adapter.core import cmqc as C
from adapter.pymqi.structs import MD, MQLONG_TYPE, MQOpts

_OWN_LENGTH = C.MQXQH_CURRENT_LENGTH - C.MQMD_LENGTH_1


class XQH(MQOpts):
    """MQXQH transmission-queue header, without its embedded MQMD."""

    _fields = (
        ("_StrucId", C.MQXQH_STRUC_ID, "4s"),
        ("Version", C.MQXQH_VERSION_1, MQLONG_TYPE),
        ("RemoteQName", b"", "48s"),
        ("RemoteQMgrName", b"", "48s"),
    )

    def get_header(self, buf: bytes) -> XQH:
        """Fill the header from the front of a whole message; returns self."""
        self.unpack(bytes(buf[:_OWN_LENGTH]))
        return self

    @staticmethod
    def get_embedded_md(buf: bytes) -> MD:
        """The MQMD inside the MQXQH (always version 1: its version-2 fields are at
        their defaults here; an MQMDE after the MQXQH holds them when they are not)."""
        md = MD()
        md.unpack(bytes(buf[_OWN_LENGTH : C.MQXQH_CURRENT_LENGTH]).ljust(C.MQMD_LENGTH_2, b"\0"))
        md.Version = C.MQMD_VERSION_1
        return md
