"""The properties an MQPUT gives its message: from the PMO's message handles (by its
Action) and from the property folders of the MQRFH2 headers the application wrote in
front of its data. Pure.

IBM pages followed:
- MQPMO Action, OriginalMsgHandle, NewMsgHandle (PMO version 3):
  https://www.ibm.com/docs/SSFKSJ_9.2.0/com.ibm.mq.ref.dev.doc/q098680_.html (Action;
  MQRC_ACTION_ERROR for another value), q098740_ (OriginalMsgHandle: "not altered by the
  MQPUT"), q098720_ (NewMsgHandle: "defines the properties of the message and overrides
  the values of the OriginalMsgHandle"; on return it reflects the message put), and
  "Setting properties of a message" (new message: OriginalMsgHandle with MQACTP_NEW;
  forward, reply, report: the message got before in OriginalMsgHandle, the new one in
  NewMsgHandle). Which properties of the original go along is their MQPD CopyOptions
  (q098550_): MQCOPY_DEFAULT is FORWARD + REPORT + PUBLISH, so with the default every
  property is forwarded and reported and none is copied into a reply. Properties here
  carry no property descriptor of their own, so every one has MQCOPY_DEFAULT.
- 2334 MQRC_RFH_ERROR (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q043630_.html):
  "An MQPUT or MQPUT1 call was issued, but the message data contains an MQRFH or MQRFH2
  structure that is not valid": StrucId, Version, a StrucLength too small or past the
  end of the data, a CodedCharSetId that is zero or a negative value other than
  MQCCSI_INHERIT.
- MsgHandle of MQGMO (q096760_): properties a message carries in its data are removed
  from the data and given in the handle -- so a queue manager reads the property folders
  of an application's MQRFH2 as the message's properties, which is what selectors and
  MQINQMP then see. The folders MQ reads as properties: "Supported MQRFH2 folders"
  (q104150_); elements that cannot be properties stay in the header ("MQRFH2 folder
  restrictions", q104170_).
- "MQRFH2 element name conflicts": two elements of one name, the one closest to the
  head of the message counts; a property set through the API wins over the same one in
  the application's MQRFH2.
- 2527 MQRC_RFH_RESTRICTED_FORMAT_ERR (q045280_): the ``mq`` folder must have a restricted
  form (`rfh2.restricted_format_error`).
- PROPCTL V6COMPAT (PropertyControl, q103350_; "PROPCTL queue options"): an application
  MQRFH2 is received as it was sent, and its properties cannot be inquired with MQINQMP:
  on such a queue the MQRFH2 is not read at all.

Here the message is stored without the property folders (a header they leave without
any folder goes, and Format, Encoding and CodedCharSetId become those of what follows it);
the get side puts them back into an MQRFH2 when PROPCTL or the GMO asks for one
(`propctl.insert_properties`). IBM says of PROPCTL ALL that the
layout and number of MQRFH2 headers an application reads may change this way.

A folder whose XML cannot be read (2421) is not refused on MQPUT (IBM gives 2421 on the
property calls, MQINQMP and MQDLTMP, as a warning): it stays in the data as it was.
"""

from __future__ import annotations

from dataclasses import dataclass

from adapter.core import cmqc as C  # noqa: N812 (the project-wide alias)
from adapter.core.errors import MQMIError, fail
from adapter.core.properties import MessageProperties
from adapter.core.rfh2 import (
    Folder,
    decode_header,
    encode_header,
    properties_from_folders,
    restricted_format_error,
)

__all__ = ["ACTIONS", "RfhPut", "compose", "read_rfh2_on_put"]

ACTIONS = (C.MQACTP_NEW, C.MQACTP_FORWARD, C.MQACTP_REPLY, C.MQACTP_REPORT)
_COPY_OF_ACTION = {
    C.MQACTP_FORWARD: C.MQCOPY_FORWARD,
    C.MQACTP_REPLY: C.MQCOPY_REPLY,
    C.MQACTP_REPORT: C.MQCOPY_REPORT,
}
_RFH2 = C.MQFMT_RF_HEADER_2


def compose(
    action: int, original: MessageProperties | None, new: MessageProperties | None
) -> MessageProperties | None:
    """The properties of a put from PMO.Action, OriginalMsgHandle and NewMsgHandle
    (None: no handle given). 2535 MQRC_ACTION_ERROR for an Action that is not MQACTP_*."""
    if action not in ACTIONS:
        raise fail(C.MQRC_ACTION_ERROR)
    if original is None and new is None:
        return None
    out = MessageProperties()
    if original is not None:
        copy = _COPY_OF_ACTION.get(action)
        # NEW takes the original's properties as they are; the others those whose copy
        # options (MQCOPY_DEFAULT for every property here) name the action.
        if copy is None or copy & C.MQCOPY_DEFAULT:
            for prop in original:
                out.add(prop)
    if new is not None:
        for prop in new:  # NewMsgHandle overrides the OriginalMsgHandle
            out.add(prop)
    return out


@dataclass(slots=True)
class RfhPut:
    """A put's data after its MQRFH2 property folders were read."""

    properties: MessageProperties  # from the folders, the API's ones not among them
    data: bytes  # the data without them
    format: bytes  # MQCHAR8 Format, Encoding, CodedCharSetId of `data` (the MQMD's)
    encoding: int
    ccsid: int


def _check_ccsid(ccsid: int) -> None:
    if ccsid == 0 or (ccsid < 0 and ccsid != C.MQCCSI_INHERIT):
        raise fail(C.MQRC_RFH_ERROR)


def read_rfh2_on_put(
    data: bytes,
    encoding: int,
    ccsid: int,
    api: MessageProperties | None = None,
    read_folders: bool = True,
) -> RfhPut:
    """The MQRFH2 chain in front of `data` (the MQMD says Format MQHRF2, `encoding` and
    `ccsid`): 2334 for a header that is not valid; with `read_folders` (not on a
    V6COMPAT queue) its property folders become the message's properties (`api` wins
    over them) and leave the data; otherwise the data stays as it is."""
    props = api.copy() if api is not None else MessageProperties()
    md = (_RFH2, encoding, ccsid)  # what describes the start of the data kept
    kept: list[list] = []  # [header, the encoding its integers are in, its bytes or None]
    fmt, pos = _RFH2, 0
    while fmt == _RFH2:
        try:
            header, length = decode_header(data[pos:], encoding)
        except MQMIError as err:
            if err.reason != C.MQRC_RFH_FORMAT_ERROR:
                raise
            break  # folders this cannot read: from here on the data stays as it was put
        _check_ccsid(header.ccsid)
        raw: bytes | None = data[pos : pos + length]
        pos += length
        if header.ccsid == C.MQCCSI_INHERIT:
            # The queue manager writes the actual CCSID: that of this structure.
            header.ccsid, raw = ccsid, None
        if read_folders:
            folders = _read_folders(header.folders, props)
            if not folders and header.folders:
                # Nothing left in it: the header goes, and what described it (the MQMD,
                # or the header before) now describes what follows it.
                after = (header.format, header.encoding, header.ccsid)
                if kept:
                    before = kept[-1][0]
                    before.format, before.encoding, before.ccsid = after
                    kept[-1][2] = None
                else:
                    md = after
                fmt, encoding, ccsid = after
                continue
            if folders != header.folders:  # some (or some elements) were properties
                header.folders, raw = folders, None
        kept.append([header, encoding, raw])
        fmt, encoding, ccsid = header.format, header.encoding, header.ccsid
    out = [raw if raw is not None else encode_header(h, enc) for h, enc, raw in kept]
    return RfhPut(props, b"".join(out) + data[pos:], md[0], md[1], md[2])


def _read_folders(folders: list[Folder], props: MessageProperties) -> list[Folder]:
    """The folders that stay in the header; the properties of the others into `props`
    (a property already there, from the API or nearer the head, keeps its value)."""
    kept = []
    for folder in folders:
        if restricted_format_error(folder):
            raise fail(C.MQRC_RFH_RESTRICTED_FORMAT_ERR)
        try:
            _props, rest = properties_from_folders([folder], props)
        except MQMIError as err:
            if err.reason != C.MQRC_RFH_FORMAT_ERROR:
                raise
            kept.append(folder)  # unreadable: stays in the data as the application wrote it
            continue
        kept.extend(rest)
    return kept
