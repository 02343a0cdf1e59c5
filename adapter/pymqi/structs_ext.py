"""The MQI structures beyond put and get, as ibmmq 2.x (and pymqi) define them: MQSTS
(MQSTAT), MQCD, MQSCO and MQBNO (client connection, accepted by MQCONNX), and MQCBD,
MQCBC and MQCTLO (asynchronous consume: MQCB / MQCTL).

Field names and defaults follow IBM's structure pages and ibmmq's classes (version
numbers from cmqc.h / cmqxc.h): MQSTS https://www.ibm.com/docs/en/SSFKSJ_latest/refdev/q100520_.html
(StrucId 'STAT', version 2), MQCBD / MQCBC / MQCTLO pages of the 9.4 reference. The MQCD
keeps the fields client programs set (channel name and type, transport, connection name,
TLS cipher, heartbeats, limits); its arrays and exit pointers are left out, since no
channel is started here. Pure: no I/O.
"""

from __future__ import annotations

from typing import Any

from adapter.core import cmqc as C  # noqa: N812
from adapter.core import cmqxc as X  # noqa: N812
from adapter.pymqi.structs import MQLONG_TYPE, MQOpts, charv_fields

__all__ = ["BNO", "CBC", "CBD", "CD", "CTLO", "SCO", "STS", "bno", "cd", "sco", "sts"]

_L = MQLONG_TYPE


class STS(MQOpts):
    """MQSTS, MQSTAT's answer (version 2 layout: version 1 plus the MQCHARV fields)."""

    _fields = (
        ("_StrucId", C.MQSTS_STRUC_ID, "4s"),
        ("Version", C.MQSTS_VERSION_2, _L),
        ("CompCode", C.MQCC_OK, _L),
        ("Reason", C.MQRC_NONE, _L),
        ("PutSuccessCount", 0, _L),
        ("PutWarningCount", 0, _L),
        ("PutFailureCount", 0, _L),
        ("ObjectType", C.MQOT_Q, _L),
        ("ObjectName", b"", "48s"),
        ("ObjectQMgrName", b"", "48s"),
        ("ResolvedObjectName", b"", "48s"),
        ("ResolvedQMgrName", b"", "48s"),
        *charv_fields("ObjectString", "SubName"),
        ("OpenOptions", 0, _L),
        ("SubOptions", 0, _L),
    )

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)


class CD(MQOpts):
    """MQCD channel definition (a client connection's fields; Version 11 as ibmmq)."""

    _fields = (
        ("ChannelName", b"", "20s"),
        ("Version", X.MQCD_VERSION_11, _L),
        ("ChannelType", X.MQCHT_CLNTCONN, _L),
        ("TransportType", X.MQXPT_TCP, _L),
        ("Desc", b"", "64s"),
        ("QMgrName", b"", "48s"),
        ("XmitQName", b"", "48s"),
        ("ShortConnectionName", b"", "20s"),
        ("BatchSize", 50, _L),
        ("DiscInterval", 6000, _L),
        ("MaxMsgLength", 4194304, _L),
        ("PutAuthority", X.MQPA_DEFAULT, _L),
        ("DataConversion", X.MQCDC_NO_SENDER_CONVERSION, _L),
        ("UserIdentifier", b"", "12s"),
        ("Password", b"", "12s"),
        ("MCAUserIdentifier", b"", "12s"),
        ("MCAType", X.MQMCAT_PROCESS, _L),
        ("ConnectionName", b"", "264s"),
        ("HeartbeatInterval", 300, _L),
        ("BatchInterval", 0, _L),
        ("NonPersistentMsgSpeed", X.MQNPMS_FAST, _L),
        ("SSLCipherSpec", b"", "32s"),
        ("SSLPeerNamePtr", 0, "P"),
        ("SSLPeerNameLength", 0, _L),
        ("SSLClientAuth", 0, _L),
        ("KeepAliveInterval", -1, _L),
        ("LocalAddress", b"", "48s"),
        ("SharingConversations", 10, _L),
        ("PropertyControl", 0, _L),
        ("MaxInstances", 999999999, _L),
        ("MaxInstancesPerClient", 999999999, _L),
        ("ClientChannelWeight", 0, _L),
        ("ConnectionAffinity", 1, _L),
        ("DefReconnect", 0, _L),
        ("CertificateLabel", b"", "64s"),
    )

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)


class SCO(MQOpts):
    """MQSCO TLS configuration options (accepted; Kafka's and Redis's TLS are set in
    their own configuration)."""

    _fields = (
        ("_StrucId", C.MQSCO_STRUC_ID, "4s"),
        ("Version", C.MQSCO_VERSION_5, _L),
        ("KeyRepository", b"", "256s"),
        ("CryptoHardware", b"", "256s"),
        ("AuthInfoRecCount", 0, _L),
        ("AuthInfoRecOffset", 0, _L),
        ("AuthInfoRecPtr", 0, "P"),
        ("KeyResetCount", 0, _L),
        ("FipsRequired", 0, _L),
        ("CertificateValPolicy", 0, _L),
        ("CertificateLabel", b"", "64s"),
    )

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)


class BNO(MQOpts):
    """MQBNO balancing options (accepted; there is one queue manager per name here)."""

    _fields = (
        ("_StrucId", C.MQBNO_STRUC_ID, "4s"),
        ("Version", C.MQBNO_VERSION_1, _L),
        ("ApplType", C.MQBNO_BALTYPE_SIMPLE, _L),
        ("Timeout", C.MQBNO_TIMEOUT_AS_DEFAULT, _L),
        ("Options", C.MQBNO_OPTIONS_NONE, _L),
    )

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)


class _WithPython(MQOpts):
    """A structure with pointer fields that hold Python objects in ibmmq (a callback
    function, an application's area): kept beside the structure, never packed."""

    _PYTHON: tuple[str, ...] = ()

    def __init__(self, **kw: Any) -> None:
        self.__dict__.update(dict.fromkeys(self._PYTHON))
        super().__init__(**kw)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in self._PYTHON:
            self.__dict__[name] = value
            return
        super().__setattr__(name, value)


class CBD(_WithPython):
    """MQCBD callback descriptor (CallbackFunction and CallbackArea: Python objects)."""

    _fields = (
        ("_StrucId", C.MQCBD_STRUC_ID, "4s"),
        ("Version", C.MQCBD_VERSION_1, _L),
        ("CallbackType", C.MQCBT_MESSAGE_CONSUMER, _L),
        ("Options", C.MQCBDO_NONE, _L),
        ("CallbackName", b"", "128s"),
        ("MaxMsgLength", C.MQCBD_FULL_MSG_LENGTH, _L),
        ("_Reserved1", 0, _L),
    )
    _PYTHON = ("CallbackArea", "CallbackFunction")


class CBC(_WithPython):
    """MQCBC callback context, as a callback would receive it."""

    _fields = (
        ("_StrucId", C.MQCBC_STRUC_ID, "4s"),
        ("Version", C.MQCBC_VERSION_2, _L),
        ("CallType", 0, _L),
        ("Hobj", 0, _L),
        ("CompCode", 0, _L),
        ("Reason", 0, _L),
        ("State", 0, _L),
        ("DataLength", 0, _L),
        ("BufferLength", 0, _L),
        ("Flags", 0, _L),
        ("ReconnectDelay", 0, _L),
        ("_Reserved1", 0, _L),
    )
    # CallbackFunction: ibmmq's proxy callback sets it on the context it passes too.
    _PYTHON = ("CallbackArea", "CallbackFunction", "ConnectionArea")


class CTLO(_WithPython):
    """MQCTLO control-callbacks options (ConnectionArea: a Python object)."""

    _fields = (
        ("_StrucId", C.MQCTLO_STRUC_ID, "4s"),
        ("Version", C.MQCTLO_VERSION_1, _L),
        ("Options", C.MQCTLO_NONE, _L),
        ("_Reserved", 0, _L),
    )
    _PYTHON = ("ConnectionArea",)


# Lower-case aliases, as pymqi and ibmmq export them.
sts = STS
cd = CD
sco = SCO
bno = BNO
