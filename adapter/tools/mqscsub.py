"""DEFINE / ALTER / DELETE / DISPLAY SUB, DISPLAY SBSTATUS and DISPLAY TPSTATUS for `mqk mqsc`
(registered with adapter/tools/mqscrun.py's EXTENSIONS), on adapter/shim/subadmin.py.

runmqsc's messages: AMQ8094I created, AMQ8096I "IBM MQ subscription inquired." (DISPLAY
SUB), AMQ8099I "IBM MQ subscription status inquired." (DISPLAY SBSTATUS), AMQ8754I
"Display topic status details." (DISPLAY TPSTATUS) as IBM's "Displaying attributes of
subscriptions" <https://setgetweb.com/p/MQ90/adm/q020920_.htm> shows them; AMQ8095I
deleted and AMQ8097I changed (ALTER SUB) (their numbers are not in the pages read:
unverified). DEFINE SUB LIKE copies a subscription (shim/subadmin.py SubAdmin.copy).
Dates and times are MQ's (yyyy-mm-dd, hh.mm.ss, local time). SUBID and DESTCORL are 48
hexadecimal digits; ACTCONN is the hexadecimal of mqk's id of the handle holding the
subscription (MQ's is a connection id: mqk has no 24-byte one), zeros when none.

Keywords mqk does not keep fail, naming them, unless given MQ's default value
(EXPIRY(UNLIMITED), PSPROP(MSGPROP), SUBSCOPE(ALL), SUBLEVEL(1), VARUSER(ANY)).

ALTER, DELETE and DISPLAY SUB and DISPLAY SBSTATUS name the subscription by SUB(name),
SUBID(id) or both (then they must be the same one), as IBM's usage notes give them
(core/mqscparse.py cites the pages). A SUBID that names none: "AMQ8147E: IBM MQ object
<subid> not found." (the id where the name would be: runmqsc's text for this case is
not in the pages read).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import adapter.pymqi as pymqi
from adapter.core import topicattrs as TA  # noqa: N812
from adapter.core.mqscparse import Command, MQSCSyntaxError
from adapter.core.topicstring import Wildcard
from adapter.shim.subadmin import SubAdmin, SubChange, SubStatus, TopicStatus
from adapter.shim.subscriptions import SubDef
from adapter.tools import mqscrun
from adapter.tools.mqscrun import CommandError, columns

C = pymqi.CMQC
_DEFINE = {"TOPICSTR", "TOPICOBJ", "DEST", "DESTQMGR", "DESTCLAS", "SELECTOR", "USERDATA",
           "PUBPRTY", "DESTCORL", "WSCHEMA", "REQONLY", "REPLACE", "NOREPLACE", "LIKE"}  # fmt: skip
_DEFAULT_ONLY = {"EXPIRY": "UNLIMITED", "PSPROP": "MSGPROP", "SUBSCOPE": "ALL",
                 "SUBLEVEL": "1", "VARUSER": "ANY"}  # fmt: skip
_PRIORITY = {"ASPUB": C.MQPRI_PRIORITY_AS_PUBLISHED, "ASQDEF": C.MQPRI_PRIORITY_AS_Q_DEF}
_ZERO_CONN = "0" * 48
_SUB_ITEMS = ("SUBID", "SUB", "TOPICSTR", "TOPICOBJ", "DISTYPE", "DEST", "DESTQMGR",
              "SELECTOR", "SELTYPE", "USERDATA", "DESTCORL", "DESTCLAS", "DURABLE",
              "EXPIRY", "PSPROP", "PUBPRTY", "REQONLY", "SUBSCOPE", "SUBLEVEL", "SUBTYPE",
              "VARUSER", "WSCHEMA", "CRDATE", "CRTIME", "ALTDATE", "ALTTIME")  # fmt: skip
_STATUS_ITEMS = ("SUB", "SUBID", "RESMDATE", "RESMTIME", "LMSGDATE", "LMSGTIME", "ACTCONN",
                 "DURABLE", "SUBTYPE", "NUMMSGS")  # fmt: skip


def _date(ms: int) -> str:
    return time.strftime("%Y-%m-%d", time.localtime(ms / 1000)) if ms else " "


def _time(ms: int) -> str:
    return time.strftime("%H.%M.%S", time.localtime(ms / 1000)) if ms else " "


def _conn(active: str) -> str:
    return active.encode().hex().upper()[:48].ljust(48, "0") if active else _ZERO_CONN


def _admin(proc: Any) -> SubAdmin:
    return proc.qm.get_handle().subadmin


def _sub_id(cmd: Command) -> bytes | None:
    value = cmd.value("SUBID")
    return _hex24("SUBID", value) if value else None


def _find(proc: Any, cmd: Command) -> SubDef:
    """The subscription SUB(name) and / or SUBID(id) name."""
    sub_id = _sub_id(cmd)  # a SUBID that is no id fails first (and under runmqsc -v)
    try:
        return _admin(proc).find(cmd.name or "", sub_id)
    except pymqi.MQMIError as err:
        if err.reason != C.MQRC_UNKNOWN_OBJECT_NAME:
            raise
        named = cmd.name or cmd.value("SUBID")
        raise CommandError(f"AMQ8147E: IBM MQ object {named} not found.") from err


def _out(proc: Any, header: str, items: list[str]) -> None:
    proc.out(header)
    for line in columns(items):
        proc.out(line)


def define_sub(proc: Any, cmd: Command) -> None:
    for p in cmd.params:
        if p.keyword in _DEFAULT_ONLY and p.value == _DEFAULT_ONLY[p.keyword]:
            continue
        if p.keyword in _DEFAULT_ONLY or p.keyword in ("PUBACCT", "PUBAPPID", "SUBUSER"):
            raise CommandError(f"mqk: {p.keyword} is not supported by mqk.")
        if p.keyword not in _DEFINE:
            raise MQSCSyntaxError(cmd.segment(p), f"{p.keyword}: unknown keyword")
        if (p.value is None) != (p.keyword in ("REPLACE", "NOREPLACE")):
            raise MQSCSyntaxError(cmd.segment(p), f"{p.keyword}: value")
    qmgr = (cmd.value("DESTQMGR") or "").strip()
    if qmgr and qmgr != proc.qmgr:
        raise CommandError("mqk: DESTQMGR other than this queue manager is not supported by mqk.")
    priority = cmd.value("PUBPRTY") or "ASPUB"
    if priority not in _PRIORITY and not (priority.isdigit() and int(priority) <= 9):
        raise CommandError(f"mqk: PUBPRTY({priority}) is not valid.")
    correl = cmd.value("DESTCORL")
    try:
        correl_bytes = bytes.fromhex(correl) if correl else None
    except ValueError:
        raise CommandError(f"mqk: DESTCORL({correl}) is not valid.") from None
    if correl_bytes is not None and len(correl_bytes) != 24:
        raise CommandError(f"mqk: DESTCORL({correl}) is not valid.")
    words = {"WSCHEMA": ("TOPIC", "CHAR"), "REQONLY": ("NO", "YES"),
             "DESTCLAS": ("PROVIDED", "MANAGED")}  # fmt: skip
    for keyword, allowed in words.items():
        if cmd.value(keyword) not in (None, *allowed):
            raise CommandError(f"mqk: {keyword}({cmd.value(keyword)}) is not valid.")
    like = cmd.value("LIKE")
    if like is not None:  # the attributes of LIKE's subscription where none are given
        _define_like(proc, cmd, like, correl_bytes)
        return
    _admin(proc).define(
        cmd.name or "",
        topic_object=cmd.value("TOPICOBJ") or "",
        topic_string=cmd.value("TOPICSTR") or "",
        dest=cmd.value("DEST") or "",
        managed=cmd.value("DESTCLAS") == "MANAGED",
        selector=cmd.value("SELECTOR") or "",
        user_data=cmd.value("USERDATA") or "",
        pub_priority=_PRIORITY.get(priority, int(priority) if priority.isdigit() else 0),
        dest_correl=correl_bytes,
        wildcard=Wildcard.CHAR if cmd.value("WSCHEMA") == "CHAR" else Wildcard.TOPIC,
        request_only=cmd.value("REQONLY") == "YES",
        replace="REPLACE" in cmd.keywords(),
    )
    proc.out("AMQ8094I: IBM MQ subscription created.")


def _define_like(proc: Any, cmd: Command, like: str, correl: bytes | None) -> None:
    """DEFINE SUB(name) LIKE(other): a copy of `other` with the attributes given
    ("Copying a local subscription definition",
    <https://ibm.com/docs/SSFKSJ_9.3.0/administer/q020940_.html>),
    as PCF Copy Subscription makes it (shim/subadmin.py SubAdmin.copy)."""
    admin = _admin(proc)
    try:
        source = admin.find(like)
    except pymqi.MQMIError as err:
        raise CommandError(f"AMQ8147E: IBM MQ object {like} not found.") from err
    priority = cmd.value("PUBPRTY")
    wschema = cmd.value("WSCHEMA")
    change = SubChange(
        dest=cmd.value("DEST"),
        dest_correl=correl,
        user_data=cmd.value("USERDATA"),
        pub_priority=_priority(priority) if priority is not None else None,
        request_only=None if cmd.value("REQONLY") is None else cmd.value("REQONLY") == "YES",
        topic_object=cmd.value("TOPICOBJ"),
        topic_string=cmd.value("TOPICSTR"),
        selector=cmd.value("SELECTOR"),
        wildcard=None if wschema is None else Wildcard[wschema],
        managed=None if cmd.value("DESTCLAS") is None else cmd.value("DESTCLAS") == "MANAGED",
    )
    admin.copy(source, cmd.name or "", change, replace_it="REPLACE" in cmd.keywords())
    proc.out("AMQ8094I: IBM MQ subscription created.")


# ALTER SUB's keywords (its syntax diagram): TOPICOBJ, TOPICSTR, WSCHEMA, SELECTOR,
# SUBSCOPE, DESTCLAS and SUBLEVEL are DEFINE's only, a syntax error here.
_ALTER = {"SUBID", "DEST", "DESTQMGR", "DESTCORL", "PUBPRTY", "REQONLY", "USERDATA"}


def _priority(value: str) -> int:
    if value not in _PRIORITY and not (value.isdigit() and int(value) <= 9):
        raise CommandError(f"mqk: PUBPRTY({value}) is not valid.")
    return _PRIORITY.get(value, int(value) if value.isdigit() else 0)


def _hex24(keyword: str, value: str) -> bytes:
    try:
        raw = bytes.fromhex(value)
    except ValueError:
        raise CommandError(f"mqk: {keyword}({value}) is not valid.") from None
    if len(raw) != 24:
        raise CommandError(f"mqk: {keyword}({value}) is not valid.")
    return raw


def alter_sub(proc: Any, cmd: Command) -> None:
    """ALTER SUB(name) / SUB SUBID(hex) / SUB(name) SUBID(hex): DEST, DESTCORL,
    DESTQMGR (this queue manager), PUBPRTY, REQONLY, USERDATA (shim/subadmin.py
    SubAdmin.alter says what may change).
    runmqsc answers AMQ8097I "IBM MQ subscription changed." (its number is not in the
    pages read: unverified)."""
    for p in cmd.params:
        if p.keyword in _DEFAULT_ONLY and p.keyword not in ("SUBSCOPE", "SUBLEVEL"):
            if p.value == _DEFAULT_ONLY[p.keyword]:
                continue
            raise CommandError(f"mqk: {p.keyword} is not supported by mqk.")
        if p.keyword in ("PUBACCT", "PUBAPPID", "SUBUSER"):
            raise CommandError(f"mqk: {p.keyword} is not supported by mqk.")
        if p.keyword not in _ALTER or p.value is None:
            raise MQSCSyntaxError(cmd.segment(p), f"{p.keyword}: unknown keyword")
    qmgr = (cmd.value("DESTQMGR") or "").strip()
    if qmgr and qmgr != proc.qmgr:
        raise CommandError("mqk: DESTQMGR other than this queue manager is not supported by mqk.")
    if cmd.value("REQONLY") not in (None, "NO", "YES"):
        raise CommandError(f"mqk: REQONLY({cmd.value('REQONLY')}) is not valid.")
    correl = cmd.value("DESTCORL")
    priority = cmd.value("PUBPRTY")
    change = SubChange(
        dest=cmd.value("DEST"),
        dest_correl=_hex24("DESTCORL", correl) if correl else None,
        user_data=cmd.value("USERDATA"),
        pub_priority=_priority(priority) if priority is not None else None,
        request_only=None if cmd.value("REQONLY") is None else cmd.value("REQONLY") == "YES",
    )
    admin = _admin(proc)
    sd = _find(proc, cmd)
    try:
        admin.alter(sd, change)
    except pymqi.MQMIError as err:
        if err.reason == C.MQRC_DEST_CLASS_NOT_ALTERABLE:
            raise CommandError(
                "mqk: DEST of a DESTCLAS(MANAGED) subscription cannot be altered."
            ) from err
        raise
    proc.out("AMQ8097I: IBM MQ subscription changed.")


def delete_sub(proc: Any, cmd: Command) -> None:
    """DELETE SUB(name) / SUB SUBID(hex) / SUB(name) SUBID(hex)."""
    for p in cmd.params:
        if p.keyword != "SUBID" or p.value is None:
            raise MQSCSyntaxError(cmd.segment(p), f"{p.keyword}: unknown keyword")
    sd = _find(proc, cmd)
    try:
        _admin(proc).delete(sd.key)
    except pymqi.MQMIError as err:
        if err.reason == C.MQRC_SUBSCRIPTION_IN_USE:
            raise CommandError("AMQ8148E: IBM MQ object in use.") from err
        raise
    proc.out("AMQ8095I: IBM MQ subscription deleted.")


def _sub_values(sd: SubDef) -> dict[str, str]:
    priority = {v: k for k, v in _PRIORITY.items()}.get(sd.pub_priority, str(sd.pub_priority))
    return {
        "SUBID": sd.subscription_id.upper(),
        "SUB": sd.name or " ",
        "TOPICSTR": sd.topic or " ",
        "TOPICOBJ": sd.topic_object or " ",
        "DISTYPE": "RESOLVED",
        "DEST": sd.queue,
        "DESTQMGR": " ",
        "SELECTOR": sd.selection or " ",
        "SELTYPE": "STANDARD" if sd.selection else "NONE",
        "USERDATA": sd.user_data or " ",
        "DESTCORL": sd.correl_id.upper(),
        "DESTCLAS": "MANAGED" if sd.managed else "PROVIDED",
        "DURABLE": "YES" if sd.durable else "NO",
        "EXPIRY": "UNLIMITED",
        "PSPROP": "MSGPROP",
        "PUBPRTY": priority,
        "REQONLY": "YES" if sd.on_request else "NO",
        "SUBSCOPE": "ALL",
        "SUBLEVEL": "1",
        "SUBTYPE": "ADMIN" if sd.sub_type == C.MQSUBTYPE_ADMIN else "API",
        "VARUSER": "ANY",
        "WSCHEMA": "CHAR" if sd.wildcard == Wildcard.CHAR.value else "TOPIC",
        "CRDATE": _date(sd.created_ms),
        "CRTIME": _time(sd.created_ms),
        "ALTDATE": _date(sd.altered_ms or sd.created_ms),
        "ALTTIME": _time(sd.altered_ms or sd.created_ms),
    }


def _wanted(cmd: Command, known: tuple[str, ...], always: tuple[str, ...]) -> list[str]:
    asked = set()
    for p in cmd.params:
        if p.keyword in ("ALL", "DURABLE", "SUBTYPE", "TYPE"):
            continue
        if p.keyword == "SUBID" and p.value is not None:  # which one, not an attribute
            continue
        if p.keyword not in known or p.value is not None:
            raise MQSCSyntaxError(cmd.segment(p), f"{p.keyword}: unknown keyword")
        asked.add(p.keyword)
    if "ALL" in cmd.keywords():
        return list(known)
    return [k for k in known if k in always or k in asked]


def _kept(cmd: Command, sd: SubDef) -> bool:
    """SUBID(id), DURABLE(YES|NO|ALL) and SUBTYPE(USER|ADMIN|API|ALL) filters (USER, the
    default: ADMIN and API)."""
    sub_id = _sub_id(cmd)
    if sub_id is not None and bytes.fromhex(sd.subscription_id) != sub_id:
        return False
    durable = cmd.value("DURABLE") or "ALL"
    if durable != "ALL" and (durable == "YES") != sd.durable:
        return False
    kind = cmd.value("SUBTYPE") or "USER"
    mine = "ADMIN" if sd.sub_type == C.MQSUBTYPE_ADMIN else "API"
    return kind in ("USER", "ALL", mine)


def _not_found(cmd: Command) -> None:
    if cmd.name is None:  # named by SUBID alone
        raise CommandError(f"AMQ8147E: IBM MQ object {cmd.value('SUBID')} not found.")
    raise pymqi.MQMIError(C.MQCC_FAILED, C.MQRC_UNKNOWN_OBJECT_NAME)


def display_sub(proc: Any, cmd: Command) -> None:
    wanted = _wanted(cmd, _SUB_ITEMS, ("SUB", "SUBID"))
    found = [sd for sd in _admin(proc).listing(cmd.name or "*") if _kept(cmd, sd)]
    if not found:
        _not_found(cmd)
    for sd in found:
        values = _sub_values(sd)
        _out(proc, "AMQ8096I: IBM MQ subscription inquired.", [f"{k}({values[k]})" for k in wanted])


def _status_values(st: SubStatus) -> dict[str, str]:
    sd = st.sd
    return {
        "SUB": sd.name or " ",
        "SUBID": sd.subscription_id.upper(),
        "RESMDATE": _date(sd.created_ms),
        "RESMTIME": _time(sd.created_ms),
        "LMSGDATE": _date(st.last_ms),
        "LMSGTIME": _time(st.last_ms),
        "ACTCONN": _conn(st.active),
        "DURABLE": "YES" if sd.durable else "NO",
        "SUBTYPE": "ADMIN" if sd.sub_type == C.MQSUBTYPE_ADMIN else "API",
        "NUMMSGS": str(st.messages),
    }


def display_sbstatus(proc: Any, cmd: Command) -> None:
    wanted = _wanted(cmd, _STATUS_ITEMS, _STATUS_ITEMS)
    found = [st for st in _admin(proc).status(cmd.name or "*") if _kept(cmd, st.sd)]
    if not found:
        _not_found(cmd)
    for st in found:
        values = _status_values(st)
        items = [f"{k}({values[k]})" for k in wanted]
        _out(proc, "AMQ8099I: IBM MQ subscription status inquired.", items)


def _topic_items(ts: TopicStatus) -> list[str]:
    items = [f"TOPICSTR({ts.topic or ' '})", f"ADMIN({ts.admin or ' '})"]
    for attr in TA.ATTRIBUTES:
        if attr.as_parent is not None:  # resolved: never ASPARENT
            items.append(f"{attr.keyword}({attr.mqsc(ts.attributes[attr.field])})")
    items += [f"RETAINED({'YES' if ts.retained else 'NO'})", f"SUBCOUNT({len(ts.subs)})",
              f"PUBCOUNT({len(ts.publishers)})"]  # fmt: skip
    return items


def display_tpstatus(proc: Any, cmd: Command) -> None:
    for p in cmd.params:
        if p.keyword != "TYPE" and p.keyword != "ALL":
            raise MQSCSyntaxError(cmd.segment(p), f"{p.keyword}: unknown keyword")
    kind = cmd.value("TYPE") or "TOPIC"
    if kind not in ("TOPIC", "SUB", "PUB"):
        raise MQSCSyntaxError(cmd.text, f"TYPE({kind})")
    header = "AMQ8754I: Display topic status details."
    admin = _admin(proc)
    by_key = {st.sd.key: st for st in admin.status("*")} if kind == "SUB" else {}
    for ts in admin.topic_status(cmd.name or ""):
        if kind == "TOPIC":
            _out(proc, header, _topic_items(ts))
        elif kind == "SUB":
            for sd in ts.subs:
                if sd.key not in by_key:  # deleted meanwhile
                    continue
                v = _status_values(by_key[sd.key])
                names = ("SUBID", "RESMDATE", "RESMTIME", "LMSGDATE", "LMSGTIME", "ACTCONN",
                         "DURABLE", "SUBTYPE", "NUMMSGS")  # fmt: skip
                _out(proc, header, [f"TOPICSTR({ts.topic})", *(f"{n}({v[n]})" for n in names)])
        else:
            for pub in ts.publishers:
                items = [f"TOPICSTR({ts.topic})", f"LPUBDATE({_date(pub.last_ms)})",
                         f"LPUBTIME({_time(pub.last_ms)})", f"ACTCONN({_conn(pub.conn_id)})",
                         f"NUMPUBS({pub.publications})"]  # fmt: skip
                _out(proc, header, items)


_HANDLERS: dict[tuple[str, str], Callable[[Any, Command], None]] = {
    ("DEFINE", "SUB"): define_sub,
    ("ALTER", "SUB"): alter_sub,
    ("DELETE", "SUB"): delete_sub,
    ("DISPLAY", "SUB"): display_sub,
    ("DISPLAY", "SBSTATUS"): display_sbstatus,
    ("DISPLAY", "TPSTATUS"): display_tpstatus,
}


def register() -> None:
    """Make the MQSC processor run the subscription and topic-status commands."""
    mqscrun.EXTENSIONS.update(_HANDLERS)
