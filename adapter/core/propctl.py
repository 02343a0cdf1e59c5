"""How a message's properties reach the application that gets it: in its message handle,
as an MQRFH2 header in front of the data, or not at all. Pure.

IBM: the MQGMO property options (MQGMO_PROPERTIES_AS_Q_DEF: "If a MsgHandle is provided,
this option is ignored and the properties of the message are available using the
MsgHandle, unless the value of the PropertyControl queue attribute is
MQPROP_FORCE_MQRFH2"), https://www.ibm.com/docs/en/ibm-mq/9.4.x?topic=mqgmo-options-mqlong,
and the queue attribute PropertyControl (PROPCTL),
https://www.ibm.com/docs/en/ibm-mq/9.4.x?topic=queues-propertycontrol-mqlong:
COMPAT delivers every property in an MQRFH2 when the message has one in the mcd, jms,
usr or mqext folder and none otherwise; NONE none; ALL and FORCE every one in an MQRFH2;
V6COMPAT: "Any application MQRFH2 header is received as it was sent", and properties set
with MQSETMP are not added to it. On a V6COMPAT queue the put leaves the application's
MQRFH2 unread (adapter/core/putprops.py), so it is part of the data; MQSETMP properties
then go as under COMPAT, in an MQRFH2 of their own (`insert_properties`, no merge).
MQGMO_PROPERTIES_IN_HANDLE without a handle is MQRC_HMSG_ERROR, decided before any
message is looked at (`getrules.check_request`).
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum

from adapter.core import cmqc as C  # noqa: N812 (the project-wide alias)
from adapter.core.errors import MQMIError
from adapter.core.properties import Property
from adapter.core.rfh2 import Folder, Rfh2, decode_header, encode_header, folders_from_properties

PROPCTL_VALUES = (
    C.MQPROP_COMPATIBILITY,
    C.MQPROP_NONE,
    C.MQPROP_ALL,
    C.MQPROP_FORCE_MQRFH2,
    C.MQPROP_V6COMPAT,
)
_COMPAT_FOLDERS = frozenset(("mcd", "jms", "usr", "mqext"))
_GMO_PROPERTY_OPTIONS = (
    C.MQGMO_PROPERTIES_FORCE_MQRFH2
    | C.MQGMO_NO_PROPERTIES
    | C.MQGMO_PROPERTIES_IN_HANDLE
    | C.MQGMO_PROPERTIES_COMPATIBILITY
)


class Delivery(Enum):
    HANDLE = "handle"  # MQINQMP on the GMO's MsgHandle
    RFH2 = "rfh2"  # an MQRFH2 header before the data, Format MQHRF2
    NONE = "none"  # discarded


def _compat(qualified_names: Iterable[str]) -> Delivery:
    for name in qualified_names:
        if name.split(".", 1)[0] in _COMPAT_FOLDERS:
            return Delivery.RFH2
    return Delivery.NONE


def delivery(
    gmo_options: int, has_handle: bool, propctl: int, qualified_names: Iterable[str]
) -> Delivery:
    """Where the properties (their qualified names, e.g. 'usr.color') of the message an
    MQGET returns go."""
    chosen = gmo_options & _GMO_PROPERTY_OPTIONS
    if chosen & C.MQGMO_PROPERTIES_FORCE_MQRFH2:
        return Delivery.RFH2
    if chosen & C.MQGMO_NO_PROPERTIES:
        return Delivery.NONE
    if chosen & C.MQGMO_PROPERTIES_IN_HANDLE:
        return Delivery.HANDLE if has_handle else Delivery.NONE
    if chosen & C.MQGMO_PROPERTIES_COMPATIBILITY:
        return _compat(qualified_names)
    # MQGMO_PROPERTIES_AS_Q_DEF
    if propctl == C.MQPROP_FORCE_MQRFH2:
        return Delivery.RFH2
    if has_handle:
        return Delivery.HANDLE
    if propctl == C.MQPROP_NONE:
        return Delivery.NONE
    if propctl == C.MQPROP_ALL:
        return Delivery.RFH2
    return _compat(qualified_names)


def insert_properties(
    props: Iterable[Property],
    data: bytes,
    fmt: bytes,
    encoding: int,
    ccsid: int,
    merge: bool = True,
) -> tuple[bytes, bytes, int, int]:
    """`data` (described by `fmt`, `encoding`, `ccsid`) with `props` in an MQRFH2: with
    `merge`, added to the last MQRFH2 of the chain it starts with, as MQ "attempts to
    minimize the impact of adding properties to a message by merging message properties
    into an existing MQRFH2 header" (IBM, "Generation of MQRFH2 headers"); else, or when
    it starts with none, in a new MQRFH2 in front. Returns the data and the Format,
    Encoding and CodedCharSetId that now describe it."""
    folders = folders_from_properties(props)
    if not folders:
        return data, fmt, encoding, ccsid
    fmt = bytes(fmt)[:8].ljust(8, b" ")
    if merge and fmt == C.MQFMT_RF_HEADER_2:
        try:
            return _merge_last(folders, data, encoding), fmt, encoding, ccsid
        except MQMIError:
            pass  # not a chain this reads (stored before puts were checked): a new header
    header = Rfh2(folders, encoding, ccsid or 1208, fmt)
    return encode_header(header) + data, C.MQFMT_RF_HEADER_2, C.MQENC_NATIVE, 1208


def _merge_last(folders: list[Folder], data: bytes, encoding: int) -> bytes:
    pos = 0
    while True:
        header, length = decode_header(data[pos:], encoding)
        if bytes(header.format)[:8].ljust(8, b" ") != C.MQFMT_RF_HEADER_2:
            break
        pos, encoding = pos + length, header.encoding
    header.folders = header.folders + folders
    return data[:pos] + encode_header(header, encoding) + data[pos + length :]
