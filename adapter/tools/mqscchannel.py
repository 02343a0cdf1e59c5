"""runmqsc's channel commands: DEFINE / ALTER / DELETE / DISPLAY CHANNEL (CHLTYPE SDR
and RCVR), DISPLAY CHSTATUS, START / STOP / RESET / RESOLVE CHANNEL, with runmqsc's
messages. Registered with the MQSC processor (tools/mqscrun.py) by `register`.

IBM's pages: DEFINE CHANNEL (https://www.ibm.com/docs/ja/SSFKSJ_8.0.0/com.ibm.mq.ref.adm.doc/q085520_.htm),
DISPLAY CHSTATUS (https://www.ibm.com/docs/en/ibm-mq/9.4.x?topic=reference-display-chstatus-display-channel-status),
RESET CHANNEL (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q086510_.html),
RESOLVE CHANNEL (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q086570_.html);
the messages are runmqsc's (AMQ8014I created, AMQ8015I deleted, AMQ8016I changed,
AMQ8018I start accepted, AMQ8019I stop accepted, AMQ8023I reset, AMQ8414I / AMQ8417I
the DISPLAY headers, AMQ8420I no status). DISPLAY CHSTATUS lists CHANNEL and CHLTYPE
first, then its attributes alphabetically, as runmqsc does. AMQ8023I (RESET) and
AMQ8025I (RESOLVE) are as remembered from IBM's AMQ8xxx list, not checked against it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import adapter.pymqi as pymqi
from adapter.channel import control
from adapter.channel import status as S
from adapter.channel.agent import channels
from adapter.core import cmqxc as X
from adapter.core.mqscparse import Command, MQSCSyntaxError, is_generic, matches
from adapter.shim.channeldef import CHANNEL_TYPES, ChannelDef
from adapter.tools import mqscrun
from adapter.tools.mqscrun import CommandError, columns

C = pymqi.CMQC
_TYPE_NAMES = {v: k for k, v in CHANNEL_TYPES.items()}
_SPEEDS = {"FAST": X.MQNPMS_FAST, "NORMAL": X.MQNPMS_NORMAL}
# MQSC keyword -> (ChannelDef field, kind): "int", "str" or "speed".
ATTRIBUTES = {
    "BATCHINT": ("batch_interval", "int"),
    "BATCHLIM": ("batch_data_limit", "int"),
    "BATCHSZ": ("batch_size", "int"),
    "CONNAME": ("conn_name", "str"),
    "DESCR": ("description", "str"),
    "NPMSPEED": ("npm_speed", "speed"),
    "QMNAME": ("qmgr_name", "str"),
    "XMITQ": ("xmit_q_name", "str"),
}
_STATUS_BRIEF = ("CONNAME", "CURRENT", "RQMNAME", "STATUS", "SUBSTATE", "XMITQ")
# SAVED: the common status, beside the channel's name, CONNAME and XMITQ.
_STATUS_SAVED = {"CONNAME", "CURLUWID", "CURMSGS", "CURSEQNO", "INDOUBT", "LSTLUWID",
                 "LSTSEQNO", "STATUS", "XMITQ"}  # fmt: skip
_STATUS_ALL = ("BATCHES", "BATCHSZ", "CURLUWID", "CURMSGS", "CURSEQNO", "INDOUBT",
               "LSTLUWID", "LSTSEQNO", "MSGS", "NPMSPEED", "STOPREQ")  # fmt: skip


def _settings(cmd: Command, skip: set[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for p in cmd.params:
        if p.keyword in skip:
            continue
        if p.keyword not in ATTRIBUTES:
            raise MQSCSyntaxError(cmd.segment(p), f"{p.keyword}: unknown keyword")
        if p.value is None:
            raise MQSCSyntaxError(cmd.segment(p), f"{p.keyword}: value")
        field, kind = ATTRIBUTES[p.keyword]
        if kind == "int":
            if not p.value.isdigit():
                raise MQSCSyntaxError(cmd.segment(p), f"{p.keyword}: a number")
            out[field] = int(p.value)
        elif kind == "speed":
            if p.value not in _SPEEDS:
                raise MQSCSyntaxError(cmd.segment(p), f"{p.keyword}: not one of its values")
            out[field] = _SPEEDS[p.value]
        else:
            out[field] = p.value
    return out


def _chltype(cmd: Command, required: bool) -> int | None:
    value = cmd.value("CHLTYPE")
    if value is None:
        if required:
            raise MQSCSyntaxError(cmd.text, "CHLTYPE is required")
        return None
    if value not in CHANNEL_TYPES:
        raise CommandError(f"mqk: CHLTYPE({value}) is not supported by mqk.")
    return CHANNEL_TYPES[value]


def _skip(cmd: Command) -> set[str]:
    """Keywords accepted and not stored: TRPTYPE(TCP), the only transport mqk has."""
    trptype = cmd.value("TRPTYPE")
    if trptype not in (None, "TCP"):
        raise CommandError(f"mqk: TRPTYPE({trptype}) is not supported by mqk.")
    return {"CHLTYPE", "TRPTYPE", "REPLACE", "NOREPLACE"}


def define_channel(proc: Any, cmd: Command) -> None:
    ctype = _chltype(cmd, True)
    assert ctype is not None
    fields = _settings(cmd, _skip(cmd))
    cdef = ChannelDef(cmd.name or "", channel_type=ctype, **fields)
    cdef.check_type_attributes(set(fields))
    channels(proc.qm).define(cdef, replace="REPLACE" in cmd.keywords())
    proc.out("AMQ8014I: IBM MQ channel created.")


def alter_channel(proc: Any, cmd: Command) -> None:
    ctype = _chltype(cmd, True)
    fields = _settings(cmd, _skip(cmd))

    def change(cdef: ChannelDef) -> None:  # on the definition as it is under the claim
        if cdef.channel_type != ctype:
            raise pymqi.MQMIError(C.MQCC_FAILED, C.MQRCCF_OBJECT_WRONG_TYPE)
        cdef.check_type_attributes(set(fields))
        for name, value in fields.items():
            setattr(cdef, name, value)

    channels(proc.qm).alter(cmd.name or "", change)
    proc.out("AMQ8016I: IBM MQ channel changed.")


def delete_channel(proc: Any, cmd: Command) -> None:
    _settings(cmd, {"CHLTABLE"})
    if control.is_running(S.read(proc.qm.get_handle().store, cmd.name or "")):
        raise CommandError(f"AMQ9514E: Channel '{cmd.name}' is in use.")
    channels(proc.qm).delete(cmd.name or "")
    proc.qm.get_handle().store.set_channel_status(cmd.name or "", None)
    proc.out("AMQ8015I: IBM MQ channel deleted.")


def _names(proc: Any, pattern: str) -> list[str]:
    names = channels(proc.qm).names()
    return [n for n in names if matches(pattern, n)] if is_generic(pattern) else [pattern]


def _render(cdef: ChannelDef, keyword: str) -> str:
    field, kind = ATTRIBUTES[keyword]
    value = getattr(cdef, field)
    if kind == "speed":
        value = "FAST" if value == X.MQNPMS_FAST else "NORMAL"
    return f"{keyword}({value if value != '' else ' '})"


def display_channel(proc: Any, cmd: Command) -> None:
    wanted_type = _chltype(cmd, False)
    asked = [p.keyword for p in cmd.params if p.keyword not in ("ALL", "CHLTYPE")]
    for kw in asked:
        if kw not in ATTRIBUTES and kw != "TRPTYPE":
            raise CommandError(f"mqk: {kw} is not supported by mqk.")
    every = "ALL" in cmd.keywords() or (not asked and not is_generic(cmd.name or ""))
    found = 0
    for name in _names(proc, cmd.name or ""):
        cdef = channels(proc.qm).lookup(name)
        if cdef is None or (wanted_type is not None and cdef.channel_type != wanted_type):
            continue
        found += 1
        items = [f"CHANNEL({name})", f"CHLTYPE({_TYPE_NAMES[cdef.channel_type]})"]
        keys = sorted([*ATTRIBUTES, "TRPTYPE"])
        for kw in keys:
            if not (every or kw in asked):
                continue
            if kw == "TRPTYPE":
                items.append("TRPTYPE(TCP)")
            elif cdef.is_sender or ATTRIBUTES[kw][0] not in ("xmit_q_name", "conn_name",
                                                            "batch_interval", "batch_data_limit",
                                                            "qmgr_name"):  # fmt: skip
                items.append(_render(cdef, kw))
        proc.out("AMQ8414I: Display Channel details.")
        for line in columns(items):
            proc.out(line)
    if not found:
        raise CommandError(f"AMQ8147E: IBM MQ object {cmd.name} not found.")


def _status_items(cdef: ChannelDef, st: S.ChannelStatus, stop: bool) -> dict[str, str]:
    return {
        "CONNAME": f"CONNAME({st.conn_name or ' '})",
        "CURRENT": "CURRENT",
        "RQMNAME": f"RQMNAME({st.rqmname or ' '})",
        "STATUS": f"STATUS({st.status})",
        "SUBSTATE": "SUBSTATE( )",
        "XMITQ": f"XMITQ({st.xmit_q or ' '})",
        "BATCHES": f"BATCHES({st.batches})",
        "BATCHSZ": f"BATCHSZ({st.batch_size})",
        "CURLUWID": f"CURLUWID({st.cur_luwid})",
        "CURMSGS": f"CURMSGS({st.cur_msgs if st.indoubt else 0})",
        "CURSEQNO": f"CURSEQNO({st.cur_seq})",
        "INDOUBT": f"INDOUBT({'YES' if st.indoubt else 'NO'})",
        "LSTLUWID": f"LSTLUWID({st.last_luwid})",
        "LSTSEQNO": f"LSTSEQNO({st.last_seq})",
        "MSGS": f"MSGS({st.msgs})",
        "NPMSPEED": f"NPMSPEED({st.npm_speed})",
        "STOPREQ": f"STOPREQ({'YES' if stop else 'NO'})",
    }


def display_chstatus(proc: Any, cmd: Command) -> None:
    """DISPLAY CHSTATUS [CURRENT | SAVED]. SAVED shows the common status only (CHLTYPE,
    CURLUWID, CURMSGS, CURSEQNO, INDOUBT, LSTLUWID, LSTSEQNO, STATUS, beside CHANNEL,
    CONNAME and XMITQ; current-only keywords asked are left out), and only for a channel
    that moved a batch: "saved status does not apply until at least one batch of
    messages has been transmitted" (https://www.ibm.com/docs/en/ibm-mq/9.4.x?topic=objects-displaying-channel-status).
    mqk keeps one status record, written at each batch's end and when the channel
    stops (what MQ saves), so SAVED reads its common fields."""
    keywords = cmd.keywords()
    saved = "SAVED" in keywords
    if saved and "CURRENT" in keywords:
        raise MQSCSyntaxError(cmd.text, "CURRENT and SAVED together")
    skip = ("ALL", "CURRENT", "SAVED", "CHLTYPE")
    asked = [p.keyword for p in cmd.params if p.keyword not in skip]
    for kw in asked:
        if kw not in _STATUS_BRIEF + _STATUS_ALL:
            raise CommandError(f"mqk: {kw} is not supported by mqk.")
    every = "ALL" in keywords
    store = proc.qm.get_handle().store
    found = 0
    for name in _names(proc, cmd.name or ""):
        cdef = channels(proc.qm).lookup(name)
        st = S.read(store, name)
        if cdef is None or st is None or (saved and st.last_luwid == S.NO_LUWID):
            continue
        found += 1
        shown = set(_STATUS_BRIEF) | set(asked) | (set(_STATUS_ALL) if every else set())
        if saved:
            shown &= _STATUS_SAVED
        if not cdef.is_sender:
            shown.discard("XMITQ")
        rendered = _status_items(cdef, st, store.channel_stop_requested(name))
        items = [f"CHANNEL({name})", f"CHLTYPE({_TYPE_NAMES[cdef.channel_type]})"]
        items += [rendered[k] for k in sorted(shown)]
        proc.out("AMQ8417I: Display Channel Status details.")
        for line in columns(items):
            proc.out(line)
    if not found:
        raise CommandError("AMQ8420I: Channel Status not found.")


def start_channel(proc: Any, cmd: Command) -> None:
    _settings(cmd, set())
    control.start_channel(proc.qm, proc.qmgr, cmd.name or "")
    proc.out("AMQ8018I: Start IBM MQ channel accepted.")


def stop_channel(proc: Any, cmd: Command) -> None:
    _settings(cmd, set())
    control.stop_channel(proc.qm, cmd.name or "")
    proc.out("AMQ8019I: Stop IBM MQ channel accepted.")


def reset_channel(proc: Any, cmd: Command) -> None:
    _settings(cmd, {"SEQNUM"})
    seqnum = cmd.value("SEQNUM") or "1"
    if not seqnum.isdigit():
        raise MQSCSyntaxError(cmd.text, "SEQNUM: a number")
    control.reset_channel(proc.qm, cmd.name or "", int(seqnum))
    proc.out("AMQ8023I: IBM MQ channel reset.")


def resolve_channel(proc: Any, cmd: Command) -> None:
    _settings(cmd, {"ACTION"})
    action = cmd.value("ACTION")
    if action not in ("COMMIT", "BACKOUT"):
        raise MQSCSyntaxError(cmd.text, "ACTION(COMMIT) or ACTION(BACKOUT) is required")
    control.resolve_channel(proc.qm, cmd.name or "", action == "COMMIT")
    proc.out("AMQ8025I: IBM MQ channel resolved.")


_HANDLERS: dict[tuple[str, str], Callable[[Any, Command], None]] = {
    ("DEFINE", "CHANNEL"): define_channel,
    ("ALTER", "CHANNEL"): alter_channel,
    ("DELETE", "CHANNEL"): delete_channel,
    ("DISPLAY", "CHANNEL"): display_channel,
    ("DISPLAY", "CHSTATUS"): display_chstatus,
    ("START", "CHANNEL"): start_channel,
    ("STOP", "CHANNEL"): stop_channel,
    ("RESET", "CHANNEL"): reset_channel,
    ("RESOLVE", "CHANNEL"): resolve_channel,
}


def _guarded(handler: Callable[[Any, Command], None]) -> Callable[[Any, Command], None]:
    def run(proc: Any, cmd: Command) -> None:
        try:
            handler(proc, cmd)
        except control.ControlError as err:
            raise CommandError(str(err)) from err

    return run


def register() -> None:
    """Make the MQSC processor run the channel commands."""
    for key, handler in _HANDLERS.items():
        mqscrun.EXTENSIONS[key] = _guarded(handler)
