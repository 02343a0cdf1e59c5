"""The PCF channel commands, for the PCF server (adapter/pymqi/pcfserver.py, which this
module extends through its EXTENSIONS hook: the face may not import the channel
package): MQCMD_CREATE_CHANNEL, CHANGE_CHANNEL, DELETE_CHANNEL, INQUIRE_CHANNEL,
INQUIRE_CHANNEL_NAMES, INQUIRE_CHANNEL_STATUS, START_CHANNEL, STOP_CHANNEL,
RESET_CHANNEL and RESOLVE_CHANNEL, doing what their MQSC twins (tools/mqscchannel.py)
do, through the same catalog (shim/channeldef.py) and operator calls (channel/control.py).

`register()` adds them; the command server (tools/cmdserver.py) does so at import. A
pymqi.PCFExecute with no command server running runs commands in its own process: it
answers the channel commands once that process has imported the command server or
called `register()` (else 3007 MQRCCF_CFH_COMMAND_ERROR, as before).

IBM's PCF pages (MQ 9.2-9.4): Change, Copy, and Create Channel
(https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q086920_.html),
Delete Channel (q087060_), Inquire Channel and its response (q087440_ / q087450_),
Inquire Channel Status and its response
(https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q087540_.html,
https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q087560_.html: always
returned ChannelName, ChannelInstanceType, ChannelStatus, ChannelType, ConnectionName,
RemoteApplTag, RemoteQMgrName, StopRequested, SubState, XmitQName; the rest when asked),
Reset Channel (MsgSeqNumber, MQIACH_MSG_SEQUENCE_NUMBER, default 1), Resolve Channel
(InDoubt, MQIACH_IN_DOUBT: MQIDO_COMMIT / MQIDO_BACKOUT; sender channels only), Start /
Stop Channel. Reason codes: 4032 MQRCCF_CHANNEL_NOT_FOUND
(https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q048480_.html), 3065
MQRCCF_CHL_STATUS_NOT_FOUND (no status: q046620_), 4031 MQRCCF_CHANNEL_IN_USE (RESET /
RESOLVE / DELETE while the channel runs), 4064 MQRCCF_CHANNEL_NOT_ACTIVE (STOP of a
channel not running), 3034 MQRCCF_CHANNEL_TYPE_ERROR (RESOLVE of a receiver), 3030
MQRCCF_MSG_SEQ_NUMBER_ERROR (RESET outside 1-999999999), 4001 /
4002 as DEFINE CHANNEL (catalog), 3037 MQRCCF_BATCH_SIZE_ERROR; a sender-only attribute
on a receiver: 4052 MQRCCF_XMIT_Q_NAME_WRONG_TYPE (XmitQName), 4087
MQRCCF_BATCH_INT_WRONG_TYPE (BatchInterval), else 4041 MQRCCF_WRONG_CHANNEL_TYPE; 4005
MQRCCF_ATTR_VALUE_ERROR for the other values out of range.
"""

from __future__ import annotations

from typing import Any

import adapter.pymqi as pymqi
from adapter.channel import control
from adapter.channel import status as S
from adapter.channel.agent import channels
from adapter.core import cmqc as C  # noqa: N812
from adapter.core import cmqcfc as F  # noqa: N812
from adapter.core import cmqxc as X
from adapter.core.mqscparse import is_generic, matches
from adapter.core.pcfcommand import CommandError, Request, Values, filtered, padded
from adapter.pymqi import pcfserver
from adapter.shim.channeldef import SENDER_ONLY, ChannelDef

# PCF parameter -> (ChannelDef field, length of a string attribute, 0 for an integer).
ATTRIBUTES: dict[int, tuple[str, int]] = {
    F.MQCACH_XMIT_Q_NAME: ("xmit_q_name", C.MQ_Q_NAME_LENGTH),
    F.MQCACH_CONNECTION_NAME: ("conn_name", C.MQ_CONN_NAME_LENGTH),
    F.MQCACH_DESC: ("description", C.MQ_CHANNEL_DESC_LENGTH),
    C.MQCA_Q_MGR_NAME: ("qmgr_name", C.MQ_Q_MGR_NAME_LENGTH),  # mqk's QMNAME on a sender
    F.MQIACH_BATCH_SIZE: ("batch_size", 0),
    F.MQIACH_BATCH_INTERVAL: ("batch_interval", 0),
    F.MQIACH_BATCH_DATA_LIMIT: ("batch_data_limit", 0),
    F.MQIACH_NPM_SPEED: ("npm_speed", 0),
}
# A sender-only attribute on a receiver: its own reason where MQ has one, else 4041.
_WRONG_TYPE = {
    "xmit_q_name": F.MQRCCF_XMIT_Q_NAME_WRONG_TYPE,
    "batch_interval": F.MQRCCF_BATCH_INT_WRONG_TYPE,
}
_STATUS_CODES = {
    S.BINDING: F.MQCHS_BINDING, S.STARTING: F.MQCHS_STARTING, S.RUNNING: F.MQCHS_RUNNING,
    S.STOPPING: F.MQCHS_STOPPING, S.RETRYING: F.MQCHS_RETRYING, S.STOPPED: F.MQCHS_STOPPED,
}  # fmt: skip
# Inquire Channel Status's attributes returned when asked (MQIACF_ALL: all of them).
STATUS_ATTRS = (
    F.MQIACH_BATCHES, F.MQIACH_BATCH_SIZE, F.MQCACH_CURRENT_LUWID, F.MQIACH_CURRENT_MSGS,
    F.MQIACH_CURRENT_SEQ_NUMBER, F.MQIACH_INDOUBT_STATUS, F.MQCACH_LAST_LUWID,
    F.MQIACH_LAST_SEQ_NUMBER, F.MQIACH_MSGS, F.MQIACH_NPM_SPEED,
)  # fmt: skip


def _name(req: Request) -> str:
    name = req.take(F.MQCACH_CHANNEL_NAME, required=True)
    if not name or len(name) > C.MQ_CHANNEL_NAME_LENGTH:
        raise CommandError(F.MQRCCF_CHANNEL_NAME_ERROR, F.MQCACH_CHANNEL_NAME)
    return name


def _existing(qm: pymqi.QueueManager, name: str) -> ChannelDef:
    cdef = channels(qm).lookup(name)
    if cdef is None:
        raise CommandError(F.MQRCCF_CHANNEL_NOT_FOUND, F.MQCACH_CHANNEL_NAME)
    return cdef


def _chltype(req: Request) -> int:
    ctype = req.take(F.MQIACH_CHANNEL_TYPE, required=True)
    if ctype not in (X.MQCHT_SENDER, X.MQCHT_RECEIVER):
        raise CommandError(F.MQRCCF_CHANNEL_TYPE_ERROR, F.MQIACH_CHANNEL_TYPE)
    return ctype


def _fields(req: Request, ctype: int) -> dict[str, Any]:
    """ChannelDef fields from the attribute parameters (TransportType TCP accepted and
    not stored: the only transport mqk has)."""
    if req.take(F.MQIACH_XMIT_PROTOCOL_TYPE, X.MQXPT_TCP) != X.MQXPT_TCP:
        raise CommandError(F.MQRCCF_XMIT_PROTOCOL_TYPE_ERR, F.MQIACH_XMIT_PROTOCOL_TYPE)
    out: dict[str, Any] = {}
    for parameter, (field, _length) in ATTRIBUTES.items():
        value = req.take(parameter)
        if value is None:
            continue
        if ctype == X.MQCHT_RECEIVER and field in SENDER_ONLY:
            reason = _WRONG_TYPE.get(field, F.MQRCCF_WRONG_CHANNEL_TYPE)
            raise CommandError(reason, parameter)
        out[field] = value
    req.check_used()
    return out


def _valid(cdef: ChannelDef) -> None:
    try:
        cdef.validate()
    except ValueError as err:
        bad = F.MQIACH_BATCH_SIZE if "BATCHSZ" in str(err) else None
        raise CommandError(
            F.MQRCCF_BATCH_SIZE_ERROR if bad else F.MQRCCF_ATTR_VALUE_ERROR, bad
        ) from None


def _save(qm: pymqi.QueueManager, cdef: ChannelDef, replace: bool) -> None:
    _valid(cdef)
    channels(qm).define(cdef, replace=replace)


def create_channel(qm: pymqi.QueueManager, req: Request) -> list[Values]:
    name, ctype = _name(req), _chltype(req)
    replace = req.take(F.MQIACF_REPLACE, F.MQRP_NO)
    if replace not in (F.MQRP_YES, F.MQRP_NO):
        raise CommandError(F.MQRCCF_REPLACE_VALUE_ERROR, F.MQIACF_REPLACE)
    cdef = ChannelDef(name, channel_type=ctype, **_fields(req, ctype))
    _save(qm, cdef, replace == F.MQRP_YES)
    return []


def change_channel(qm: pymqi.QueueManager, req: Request) -> list[Values]:
    name, ctype = _name(req), _chltype(req)
    if _existing(qm, name).channel_type != ctype:
        raise CommandError(F.MQRCCF_OBJECT_WRONG_TYPE, F.MQIACH_CHANNEL_TYPE)
    fields = _fields(req, ctype)

    def change(cdef: ChannelDef) -> None:  # on the definition as it is under the claim
        if cdef.channel_type != ctype:
            raise CommandError(F.MQRCCF_OBJECT_WRONG_TYPE, F.MQIACH_CHANNEL_TYPE)
        for field, value in fields.items():
            setattr(cdef, field, value)
        _valid(cdef)

    try:
        channels(qm).alter(name, change)
    except pymqi.MQMIError as err:
        if err.reason != C.MQRC_UNKNOWN_OBJECT_NAME:
            raise
        raise CommandError(F.MQRCCF_CHANNEL_NOT_FOUND, F.MQCACH_CHANNEL_NAME) from None
    return []


def delete_channel(qm: pymqi.QueueManager, req: Request) -> list[Values]:
    name = _name(req)
    req.check_used()
    _existing(qm, name)
    store = qm.get_handle().store
    if control.is_running(S.read(store, name)):
        raise CommandError(F.MQRCCF_CHANNEL_IN_USE)
    channels(qm).delete(name)
    store.set_channel_status(name, None)
    return []


def _matching(qm: pymqi.QueueManager, pattern: str, ctype: int) -> list[ChannelDef]:
    names = channels(qm).names()
    picked = [n for n in names if matches(pattern, n)] if is_generic(pattern) else [pattern]
    found = [c for c in map(channels(qm).lookup, picked) if c is not None]
    return [c for c in found if ctype in (X.MQCHT_ALL, c.channel_type)]


def inquire_channel(qm: pymqi.QueueManager, req: Request) -> list[Values]:
    pattern = _name(req)
    ctype = req.take(F.MQIACH_CHANNEL_TYPE, X.MQCHT_ALL)
    asked = list(req.take(F.MQIACF_CHANNEL_ATTRS, (F.MQIACF_ALL,), kind=F.MQCFT_INTEGER_LIST))
    req.check_used()
    known = {F.MQIACF_ALL, F.MQCACH_CHANNEL_NAME, F.MQIACH_CHANNEL_TYPE,
             F.MQIACH_XMIT_PROTOCOL_TYPE, *ATTRIBUTES}  # fmt: skip
    for selector in asked:
        if selector not in known:
            raise CommandError(F.MQRCCF_CFIL_PARM_ID_ERROR, selector)
    found = _matching(qm, pattern, ctype)
    if not found:
        raise CommandError(F.MQRCCF_CHANNEL_NOT_FOUND, F.MQCACH_CHANNEL_NAME)
    every = F.MQIACF_ALL in asked
    out: list[Values] = []
    for cdef in found:
        values: Values = {
            F.MQCACH_CHANNEL_NAME: padded(cdef.name, C.MQ_CHANNEL_NAME_LENGTH),
            F.MQIACH_CHANNEL_TYPE: cdef.channel_type,
        }
        if every or F.MQIACH_XMIT_PROTOCOL_TYPE in asked:
            values[F.MQIACH_XMIT_PROTOCOL_TYPE] = X.MQXPT_TCP
        for parameter, (field, length) in ATTRIBUTES.items():
            if not (every or parameter in asked):
                continue
            if field in SENDER_ONLY and not cdef.is_sender:
                continue  # a receiver has no such attribute: MQ leaves it out
            value = getattr(cdef, field)
            values[parameter] = padded(value, length) if length else value
        kept = filtered(values, req.filters)
        if kept is not None:
            out.append(kept)
    return out


def inquire_channel_names(qm: pymqi.QueueManager, req: Request) -> list[Values]:
    pattern = _name(req)
    ctype = req.take(F.MQIACH_CHANNEL_TYPE, X.MQCHT_ALL)
    req.check_used()
    found = _matching(qm, pattern, ctype)
    if not found and not is_generic(pattern):
        raise CommandError(F.MQRCCF_CHANNEL_NOT_FOUND, F.MQCACH_CHANNEL_NAME)
    names = [padded(c.name, C.MQ_CHANNEL_NAME_LENGTH) for c in found]
    return [
        {F.MQCACH_CHANNEL_NAMES: names, F.MQIACH_CHANNEL_TYPES: [c.channel_type for c in found]}
    ]


def status_values(
    cdef: ChannelDef, st: S.ChannelStatus, stop_requested: bool, wanted: set[int], saved: bool
) -> Values:
    """One Inquire Channel Status response: the always-returned parameters, then those
    of `wanted`. Saved status (MQOT_SAVED_CHANNEL) is the point of the last committed
    batch: its current sequence number and LUWID are the last ones."""
    values: Values = {
        F.MQCACH_CHANNEL_NAME: padded(cdef.name, C.MQ_CHANNEL_NAME_LENGTH),
        F.MQIACH_CHANNEL_INSTANCE_TYPE: C.MQOT_SAVED_CHANNEL if saved else C.MQOT_CURRENT_CHANNEL,
        F.MQIACH_CHANNEL_STATUS: _STATUS_CODES.get(st.status, F.MQCHS_STOPPED),
        F.MQIACH_CHANNEL_TYPE: cdef.channel_type,
        F.MQCACH_CONNECTION_NAME: padded(st.conn_name, C.MQ_CONN_NAME_LENGTH),
        F.MQCACH_REMOTE_APPL_TAG: padded("", C.MQ_APPL_TAG_LENGTH),
        C.MQCA_REMOTE_Q_MGR_NAME: padded(st.rqmname, C.MQ_Q_MGR_NAME_LENGTH),
        F.MQIACH_STOP_REQUESTED: F.MQCHSR_STOP_REQUESTED if stop_requested
        else F.MQCHSR_STOP_NOT_REQUESTED,
        F.MQIACH_CHANNEL_SUBSTATE: F.MQCHSSTATE_OTHER,
        F.MQCACH_XMIT_Q_NAME: padded(st.xmit_q if cdef.is_sender else "", C.MQ_Q_NAME_LENGTH),
    }  # fmt: skip
    indoubt = st.indoubt and not saved
    every = {
        F.MQIACH_BATCHES: st.batches,
        F.MQIACH_BATCH_SIZE: st.batch_size,
        F.MQCACH_CURRENT_LUWID: padded(
            st.last_luwid if saved else st.cur_luwid, C.MQ_LUWID_LENGTH
        ),  # fmt: skip
        F.MQIACH_CURRENT_MSGS: st.cur_msgs if indoubt else 0,
        F.MQIACH_CURRENT_SEQ_NUMBER: st.last_seq if saved else st.cur_seq,
        F.MQIACH_INDOUBT_STATUS: F.MQCHIDS_INDOUBT if indoubt else F.MQCHIDS_NOT_INDOUBT,
        F.MQCACH_LAST_LUWID: padded(st.last_luwid, C.MQ_LUWID_LENGTH),
        F.MQIACH_LAST_SEQ_NUMBER: st.last_seq,
        F.MQIACH_MSGS: st.msgs,
        F.MQIACH_NPM_SPEED: X.MQNPMS_FAST if st.npm_speed == "FAST" else X.MQNPMS_NORMAL,
    }
    values.update({k: v for k, v in every.items() if k in wanted})
    return values


def inquire_channel_status(qm: pymqi.QueueManager, req: Request) -> list[Values]:
    pattern = _name(req)
    instance = req.take(F.MQIACH_CHANNEL_INSTANCE_TYPE, C.MQOT_CURRENT_CHANNEL)
    if instance not in (C.MQOT_CURRENT_CHANNEL, C.MQOT_SAVED_CHANNEL):
        raise CommandError(F.MQRCCF_PARM_VALUE_ERROR, F.MQIACH_CHANNEL_INSTANCE_TYPE)
    asked = req.take(F.MQIACH_CHANNEL_INSTANCE_ATTRS, (F.MQIACF_ALL,),
                     kind=F.MQCFT_INTEGER_LIST)  # fmt: skip
    req.check_used()
    wanted = set(STATUS_ATTRS) if F.MQIACF_ALL in asked else set(asked)
    store = qm.get_handle().store
    out: list[Values] = []
    for cdef in _matching(qm, pattern, X.MQCHT_ALL):
        st = S.read(store, cdef.name)
        if st is None:
            continue
        saved = instance == C.MQOT_SAVED_CHANNEL
        if saved and st.last_luwid == S.NO_LUWID:
            continue  # nothing committed yet: no saved status, as MQ after a RESET
        stop = store.channel_stop_requested(cdef.name)
        kept = filtered(status_values(cdef, st, stop, wanted, saved), req.filters)
        if kept is not None:
            out.append(kept)
    if not out:
        raise CommandError(F.MQRCCF_CHL_STATUS_NOT_FOUND)
    return out


def start_channel(qm: pymqi.QueueManager, req: Request) -> list[Values]:
    name = _name(req)
    req.check_used()
    _existing(qm, name)
    control.start_channel(qm, qm.get_handle().qmgr, name)
    return []


def stop_channel(qm: pymqi.QueueManager, req: Request) -> list[Values]:
    name = _name(req)
    req.check_used()
    _existing(qm, name)
    if not control.is_running(S.read(qm.get_handle().store, name)):
        raise CommandError(F.MQRCCF_CHANNEL_NOT_ACTIVE)
    control.stop_channel(qm, name)
    return []


def reset_channel(qm: pymqi.QueueManager, req: Request) -> list[Values]:
    name = _name(req)
    seqnum = req.take(F.MQIACH_MSG_SEQUENCE_NUMBER, 1)
    req.check_used()
    if not 1 <= seqnum <= 999_999_999:
        raise CommandError(F.MQRCCF_MSG_SEQ_NUMBER_ERROR, F.MQIACH_MSG_SEQUENCE_NUMBER)
    _existing(qm, name)
    if control.is_running(S.read(qm.get_handle().store, name)):
        raise CommandError(F.MQRCCF_CHANNEL_IN_USE)
    control.reset_channel(qm, name, seqnum)
    return []


def resolve_channel(qm: pymqi.QueueManager, req: Request) -> list[Values]:
    name = _name(req)
    action = req.take(F.MQIACH_IN_DOUBT, required=True)
    req.check_used()
    if action not in (F.MQIDO_COMMIT, F.MQIDO_BACKOUT):
        raise CommandError(F.MQRCCF_INDOUBT_VALUE_ERROR, F.MQIACH_IN_DOUBT)
    cdef = _existing(qm, name)
    if not cdef.is_sender:
        raise CommandError(F.MQRCCF_CHANNEL_TYPE_ERROR, F.MQCACH_CHANNEL_NAME)
    if control.is_running(S.read(qm.get_handle().store, name)):
        raise CommandError(F.MQRCCF_CHANNEL_IN_USE)
    control.resolve_channel(qm, name, action == F.MQIDO_COMMIT)
    return []


COMMANDS = {
    F.MQCMD_CREATE_CHANNEL: create_channel,
    F.MQCMD_CHANGE_CHANNEL: change_channel,
    F.MQCMD_DELETE_CHANNEL: delete_channel,
    F.MQCMD_INQUIRE_CHANNEL: inquire_channel,
    F.MQCMD_INQUIRE_CHANNEL_NAMES: inquire_channel_names,
    F.MQCMD_INQUIRE_CHANNEL_STATUS: inquire_channel_status,
    F.MQCMD_START_CHANNEL: start_channel,
    F.MQCMD_STOP_CHANNEL: stop_channel,
    F.MQCMD_RESET_CHANNEL: reset_channel,
    F.MQCMD_RESOLVE_CHANNEL: resolve_channel,
}


def _guarded(handler):  # type: ignore[no-untyped-def]
    """A refusal of channel/control.py (a message, no reason) as MQRCCF_CHANNEL_ERROR."""

    def run(qm: pymqi.QueueManager, req: Request) -> list[Values]:
        try:
            return handler(qm, req)
        except control.ControlError as err:
            raise CommandError(F.MQRCCF_CHANNEL_ERROR) from err

    return run


def register() -> None:
    """Make the PCF server answer the channel commands."""
    for command, handler in COMMANDS.items():
        pcfserver.EXTENSIONS[command] = _guarded(handler)
