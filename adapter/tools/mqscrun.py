"""What each MQSC command does, on a connection of the pymqi face, and what runmqsc
prints for it: DEFINE / ALTER / DELETE QLOCAL, QMODEL, QALIAS, QREMOTE, CLEAR QLOCAL,
DISPLAY QUEUE / QLOCAL / QMODEL / QALIAS / QREMOTE / QSTATUS / QMGR, ALTER QMGR and
RESET QSTATS; DEFINE / DISPLAY / DELETE TOPIC (adapter/tools/mqsctopic.py).

The attributes are adapter/core/queueattrs.py's table; a keyword MQ has but mqk does not
implement fails the command, naming it. The response messages are runmqsc's (IBM MQ
messages AMQ8000-8999, https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_8.0.0/com.ibm.mq.ref.doc/amq8.htm):
AMQ8006I created, AMQ8007I deleted, AMQ8008I changed, AMQ8022I cleared, AMQ8005I queue
manager changed, AMQ8409I / AMQ8450I / AMQ8408I the DISPLAY headers, AMQ8147E not found,
AMQ8150E already exists, AMQ8151E different type, AMQ8148E in use, AMQ8143E not empty;
any other reason code is AMQ8101S with the code in hexadecimal. DISPLAY lays attributes
out two to a line in 40-character columns, as runmqsc does.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

import adapter.pymqi as pymqi
from adapter.core import qstats as QS  # noqa: N812
from adapter.core import queueattrs as QA  # noqa: N812
from adapter.core.mqscparse import Command, MQSCSyntaxError, Param, is_generic, matches
from adapter.tools.mqsctopic import TopicCommandError, TopicCommands

log = logging.getLogger(__name__)
C = pymqi.CMQC
_TYPE_OF = QA.QUEUE_TYPES
# mqk's own QueueDef fields (no MQSC keyword) that LIKE copies with the MQ attributes.
_MQK_FIELDS = ("partitions", "segment_size")
# ALTER QMGR / DISPLAY QMGR: keyword -> (QMgrDef field, integer?) (adapter/shim/qmgrdef.py).
_QMGR = {
    "DEADQ": ("dead_letter_q", False),
    "DEFXMITQ": ("def_xmit_q", False),
    "DESCR": ("description", False),
    "MAXHANDS": ("max_handles", True),
    "MAXMSGL": ("max_msg_length", True),
    "MAXUMSGS": ("max_uncommitted_msgs", True),
    "MONQ": ("monitoring_q", False),
    "PERFMEV": ("perf_events", False),
}
# ALTER QMGR / DISPLAY QMGR keywords whose values are words (adapter/core/qstats.py).
_QMGR_WORDS = {"MONQ": QS.QMGR_MONQ_WORDS, "PERFMEV": QS.PERFMEV_WORDS}
_REASONS = {
    C.MQRCCF_OBJECT_ALREADY_EXISTS: "AMQ8150E: IBM MQ object already exists.",
    C.MQRCCF_OBJECT_WRONG_TYPE: "AMQ8151E: IBM MQ object has different type.",
    C.MQRC_OBJECT_IN_USE: "AMQ8148E: IBM MQ object in use.",
    C.MQRCCF_OBJECT_OPEN_FORCE: "AMQ8148E: IBM MQ object in use.",
    C.MQRC_Q_NOT_EMPTY: "AMQ8143E: IBM MQ queue not empty.",
    C.MQRC_NOT_AUTHORIZED: "AMQ8135E: Not authorized.",
    C.MQRC_CONNECTION_BROKEN: "AMQ8145E: Connection broken.",
    C.MQRC_Q_MGR_QUIESCING: "AMQ8156E: IBM MQ queue manager quiescing.",
    C.MQRC_Q_MGR_STOPPING: "AMQ8156E: IBM MQ queue manager quiescing.",
}


# (verb, object type) -> handler(processor, command), for commands other modules own.
EXTENSIONS: dict[tuple[str, str], Callable[[Any, Command], None]] = {}


class CommandError(Exception):
    """A command that ran and failed: its message lines are printed."""


def columns(items: list[str]) -> list[str]:
    """runmqsc's DISPLAY layout: three blanks, two items a line in 40-character
    columns; an item of 38 characters or more has its line to itself (runmqsc prints
    QUEUE(SYSTEM.DEFAULT.INITIATION.QUEUE) alone, TYPE(QLOCAL) under it)."""
    lines: list[str] = []
    left: str | None = None
    for item in items:
        if len(item) >= 38:
            if left is not None:
                lines.append("   " + left)
                left = None
            lines.append("   " + item)
        elif left is None:
            left = item
        else:
            lines.append("   " + left.ljust(40) + item)
            left = None
    if left is not None:
        lines.append("   " + left)
    return lines


def _all(cmd: Command, asked: list) -> bool:
    """Whether DISPLAY shows every attribute: ALL, or (runmqsc's default on
    Multiplatforms) a name that is not generic and no attribute asked for."""
    return "ALL" in cmd.keywords() or (not asked and not is_generic(cmd.name or ""))


class Processor(TopicCommands):
    """Runs parsed commands on `qm`, printing through `out`; `run` says whether the
    command succeeded (MQSCSyntaxError escapes for a command that never ran)."""

    def __init__(self, qm: pymqi.QueueManager, qmgr: str, out: Callable[[str], None]) -> None:
        self.qm, self.qmgr, self.out = qm, qmgr, out
        self.layout = columns

    def run(self, cmd: Command) -> bool:
        handler = getattr(self, f"_{cmd.verb.lower()}_{cmd.objtype.lower()}", None)
        if (cmd.verb, cmd.objtype) in EXTENSIONS:  # e.g. channels: tools/mqscchannel.py
            handler = functools.partial(EXTENSIONS[(cmd.verb, cmd.objtype)], self)
        if handler is None and cmd.objtype in _TYPE_OF:
            handler = getattr(self, f"_{cmd.verb.lower()}_queue", None)
        try:
            if handler is None:
                raise CommandError(f"mqk: {cmd.verb} {cmd.objtype} is not supported by mqk.")
            handler(cmd)
            return True
        except (CommandError, TopicCommandError) as failure:
            self.out(str(failure))
        except pymqi.MQMIError as err:
            self.out(self._reason(err.reason, cmd.name or ""))
        except ValueError as err:  # a value the queue definition refuses
            if isinstance(err, MQSCSyntaxError):
                raise
            self.out(f"mqk: {err}.")
        return False

    @staticmethod
    def _reason(reason: int, name: str) -> str:
        if reason == C.MQRC_UNKNOWN_OBJECT_NAME:
            return f"AMQ8147E: IBM MQ object {name} not found."
        return _REASONS.get(reason, f"AMQ8101S: IBM MQ error ({reason:X}) has occurred.")

    # -- checks before anything runs ----------------------------------------------------
    @staticmethod
    def _check(
        cmd: Command, extra: dict[str, bool], attributes: bool = True, bare: bool = False
    ) -> None:
        """Syntax: every keyword is one the command takes (`extra`: keyword -> takes a
        value; queue attributes with `attributes`), with a value exactly when it needs
        one (never, with `bare`: DISPLAY's), an enumerated value one of its words.
        MQ keywords mqk lacks pass here and fail when run, naming themselves."""
        for p in cmd.params:
            if p.keyword in extra:
                if extra[p.keyword] != (p.value is not None):
                    raise MQSCSyntaxError(cmd.segment(p), f"{p.keyword}: value")
                continue
            attr = QA.by_keyword(p.keyword) if attributes else None
            if attr is None:
                if not (attributes and p.keyword in QA.UNSUPPORTED):
                    raise MQSCSyntaxError(cmd.segment(p), f"{p.keyword}: unknown keyword")
                continue
            if (attr.kind == "flag" or bare) != (p.value is None):
                raise MQSCSyntaxError(cmd.segment(p), f"{p.keyword}: value")
            if bare:
                continue
            words = {w for w, _, _ in attr.words}
            if attr.kind == "enum" and not attr.fixed and p.value not in words:
                raise MQSCSyntaxError(cmd.segment(p), f"{p.keyword}: not one of its values")

    def _status(self, name: str) -> dict | None:
        try:
            return self.qm.queue_status(name)
        except pymqi.MQMIError as err:
            if err.reason == C.MQRC_UNKNOWN_OBJECT_NAME:
                return None
            raise

    def _existing(self, cmd: Command) -> dict:
        """The status of the command's queue, which must exist with the command's type."""
        st = self._status(cmd.name or "")
        if st is None:
            raise pymqi.MQMIError(C.MQCC_FAILED, C.MQRC_UNKNOWN_OBJECT_NAME)
        if st["attributes"].get("queue_type", C.MQQT_LOCAL) != _TYPE_OF[cmd.objtype]:
            raise pymqi.MQMIError(C.MQCC_FAILED, C.MQRCCF_OBJECT_WRONG_TYPE)
        return st

    @staticmethod
    def _settings(cmd: Command, qtype: int, skip: set[str]) -> dict[str, Any]:
        pairs = [(p.keyword, p.value) for p in cmd.params if p.keyword not in skip]
        return QA.fields_from_mqsc(qtype, pairs)

    # -- DEFINE / ALTER / DELETE / CLEAR ---------------------------------------------------
    def _define_queue(self, cmd: Command) -> None:
        self._check(cmd, {"LIKE": True, "REPLACE": False, "NOREPLACE": False})
        qtype = _TYPE_OF[cmd.objtype]
        attrs: dict[str, Any] = {}
        like = cmd.value("LIKE")
        if like is not None:
            st = self._status(like)
            if st is None:
                raise CommandError(f"AMQ8147E: IBM MQ object {like} not found.")
            if st["attributes"].get("queue_type", C.MQQT_LOCAL) != qtype:
                raise CommandError("AMQ8151E: IBM MQ object has different type.")
            attrs = self._copied(st["attributes"], qtype)
        attrs.update(self._settings(cmd, qtype, {"LIKE", "REPLACE", "NOREPLACE"}))
        if qtype != C.MQQT_LOCAL:
            attrs["queue_type"] = qtype
        self.qm.define_queue(cmd.name, replace="REPLACE" in cmd.keywords(), **attrs)
        self.out("AMQ8006I: IBM MQ queue created.")

    @staticmethod
    def _copied(fields: dict[str, Any], qtype: int) -> dict[str, Any]:
        """What DEFINE ... LIKE takes from the queue named: its attributes of the type."""
        keep = {f for f, a in QA.BY_FIELD.items() if a.settable_on(qtype)}
        if qtype in (C.MQQT_LOCAL, C.MQQT_MODEL):
            keep.update(_MQK_FIELDS)
        return {k: v for k, v in fields.items() if k in keep}

    def _alter_queue(self, cmd: Command) -> None:
        self._check(cmd, {"FORCE": False})
        changes = self._settings(cmd, _TYPE_OF[cmd.objtype], {"FORCE"})
        self._existing(cmd)
        if changes:
            self.qm.alter_queue(cmd.name, force="FORCE" in cmd.keywords(), **changes)
        self.out("AMQ8008I: IBM MQ queue changed.")

    def _delete_queue(self, cmd: Command) -> None:
        local = cmd.objtype == "QLOCAL"
        self._check(cmd, {"PURGE": False, "NOPURGE": False} if local else {}, attributes=False)
        self._existing(cmd)
        self.qm.delete_queue(cmd.name, purge="PURGE" in cmd.keywords())
        self.out("AMQ8007I: IBM MQ queue deleted.")

    def _clear_qlocal(self, cmd: Command) -> None:
        """CLEAR QLOCAL: QueueManager.clear_queue (refused while the queue is open or has
        uncommitted messages, as MQ; then every message removed by MQGET)."""
        self._check(cmd, {}, attributes=False)
        self._existing(cmd)
        self.qm.clear_queue(cmd.name)  # MQRC_OBJECT_IN_USE: AMQ8148E, as runmqsc
        self.out("AMQ8022I: IBM MQ queue cleared.")

    # -- DISPLAY -------------------------------------------------------------------------
    def _display_queue(self, cmd: Command) -> None:
        extra = {"ALL": False, "WHERE": True}  # WHERE: MQ's filter, fails as not mqk's
        if cmd.objtype == "QUEUE":
            extra["TYPE"] = True
        self._check(cmd, extra, bare=True)
        wanted = self._wanted(cmd, {"ALL"} | ({"TYPE"} if cmd.objtype == "QUEUE" else set()))
        types = set(_TYPE_OF.values()) if cmd.objtype == "QUEUE" else {_TYPE_OF[cmd.objtype]}
        if cmd.value("TYPE") not in (None, "ALL"):
            types &= {QA.QUEUE_TYPES.get(cmd.value("TYPE") or "", -1)}
        found = 0
        for st in self._matching(cmd.name or "", types):
            found += 1
            a, qtype = st["attributes"], st["attributes"].get("queue_type", C.MQQT_LOCAL)
            status = {"CURDEPTH": st["current_depth"], "IPPROCS": st["open_input_count"],
                      "OPPROCS": st["open_output_count"]}  # fmt: skip
            shown = [x for x in QA.display_order(qtype) if wanted is None or x.keyword in wanted]
            items = [f"QUEUE({st['queue']})"] + [QA.render_value(x, a, status) for x in shown]
            self.out("AMQ8409I: Display Queue details.")
            for line in columns(items):
                self.out(line)
        if not found:
            raise CommandError(f"AMQ8147E: IBM MQ object {cmd.name} not found.")

    @staticmethod
    def _wanted(cmd: Command, skip: set[str]) -> set[str] | None:
        """The keywords DISPLAY asked for (None: ALL); TYPE always. A keyword mqk
        lacks fails the command, naming it."""
        asked = [p.keyword for p in cmd.params if p.keyword not in skip]
        for kw in asked:
            if kw in QA.UNSUPPORTED or kw == "WHERE":
                raise CommandError(f"mqk: {kw} is not supported by mqk.")
        if _all(cmd, asked):
            return None
        return {"TYPE"} | {QA.BY_KEYWORD[kw].keyword for kw in asked}

    def _matching(self, pattern: str, types: set[int]) -> list[dict]:
        if is_generic(pattern):
            names = [n for n in self.qm.get_handle().catalog.names() if matches(pattern, n)]
        else:
            names = [pattern]
        found = [st for st in map(self._status, names) if st is not None]
        return [st for st in found if st["attributes"].get("queue_type", 1) in types]

    def _display_qstatus(self, cmd: Command) -> None:
        """DISPLAY QSTATUS TYPE(QUEUE): QUEUE, TYPE and CURDEPTH always, the figures asked
        for (ALL, or a specific name alone: all; MONITOR: the monitoring ones)."""
        extra = {"ALL": False, "TYPE": True, "MONITOR": False,
                 **{k: False for k in QS.QSTATUS_KEYWORDS}}  # fmt: skip
        for p in cmd.params:
            if p.keyword not in extra:  # handle status (TYPE(HANDLE)'s) is not mqk's
                raise CommandError(f"mqk: {p.keyword} is not supported by mqk.")
        self._check(cmd, extra, attributes=False)
        if cmd.value("TYPE") not in (None, "QUEUE"):
            raise CommandError(f"mqk: TYPE({cmd.value('TYPE')}) is not supported by mqk.")
        every = _all(cmd, [k for k in cmd.keywords() if k != "TYPE"])
        asked = {k for k in QS.QSTATUS_KEYWORDS if k in cmd.keywords() or every}
        if "MONITOR" in cmd.keywords():
            asked.update(QS.MONITOR_KEYWORDS)
        found = self._matching(cmd.name or "", {C.MQQT_LOCAL})
        for st in found:
            shown = QS.mqsc_items(self.qm.queue_figures(st["queue"]))
            items = [f"QUEUE({st['queue']})", "TYPE(QUEUE)", shown["CURDEPTH"]]
            items += [shown[k] for k in QS.QSTATUS_KEYWORDS[1:] if k in asked]
            self.out("AMQ8450I: Display queue status details.")
            for line in columns(items):
                self.out(line)
        if not found:
            raise CommandError(f"AMQ8147E: IBM MQ object {cmd.name} not found.")

    def _reset_qstats(self, cmd: Command) -> None:
        """RESET QSTATS(generic-qname): each local queue's performance figures, read and
        zeroed at once. IBM documents the MQSC command for z/OS only (Multiplatforms has
        the PCF command, MQCMD_RESET_Q_STATS, which needs PERFMEV(ENABLED) like this
        one); its report is z/OS's CSQM201I RESET QSTATS DETAILS block, its keywords
        QSTATS, RESETINT, HIQDEPTH, MSGSIN, MSGSOUT
        (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q086540_.html)."""
        if cmd.params:
            raise MQSCSyntaxError(cmd.segment(cmd.params[0]), f"{cmd.params[0].keyword}: unknown")
        # PERFMEV(DISABLED): the engine's 3224 MQRCCF_EVENTS_DISABLED, AMQ8101S (C98).
        found = self._matching(cmd.name or "", {C.MQQT_LOCAL})
        if not found:
            raise CommandError(f"AMQ8147E: IBM MQ object {cmd.name} not found.")
        for st in found:
            figures = self.qm.reset_queue_stats(st["queue"])
            self.out("CSQM201I: RESET QSTATS DETAILS")
            for line in columns(figures.mqsc_items()):
                self.out(line)
            self.out("END QSTATS DETAILS")

    # -- the queue manager ----------------------------------------------------------------
    @staticmethod
    def _qmgr_params(cmd: Command, with_values: bool, extra: set[str]) -> list[Param]:
        for p in cmd.params:
            if p.keyword not in _QMGR and p.keyword not in extra:
                # MQ's queue manager has some hundred attributes: the rest are not mqk's
                raise CommandError(f"mqk: {p.keyword} is not supported by mqk.")
            if p.keyword in _QMGR and (p.value is not None) != with_values:
                raise MQSCSyntaxError(cmd.segment(p), f"{p.keyword}: value")
        return [p for p in cmd.params if p.keyword in _QMGR]

    def _alter_qmgr(self, cmd: Command) -> None:
        changes = {}
        for p in self._qmgr_params(cmd, True, set()):
            fld, number = _QMGR[p.keyword]
            if number and not (p.value or "").isdigit():
                raise MQSCSyntaxError(cmd.segment(p), f"{p.keyword}: a number")
            words = _QMGR_WORDS.get(p.keyword)
            if words is not None:
                if (p.value or "").upper() not in words:
                    raise MQSCSyntaxError(cmd.segment(p), f"{p.keyword}: {'|'.join(words)}")
                changes[fld] = words[(p.value or "").upper()]
                continue
            changes[fld] = int(p.value or 0) if number else p.value
        self.qm.alter_qmgr(**changes)
        self.out("AMQ8005I: IBM MQ queue manager changed.")

    def _display_qmgr(self, cmd: Command) -> None:
        self._qmgr_params(cmd, False, {"ALL", "MAXPRTY", "SYNCPT"})
        asked = [p for p in cmd.params if p.keyword != "ALL"]
        d = self.qm.get_handle().qmgr_def()
        items = [f"QMNAME({self.qmgr})"]
        every = _all(cmd, asked)
        shown = {
            kw: f"{kw}({getattr(d, f) if getattr(d, f) != '' else ' '})"
            for kw, (f, _) in _QMGR.items()
        }
        for kw, words in _QMGR_WORDS.items():
            value = getattr(d, _QMGR[kw][0])
            shown[kw] = f"{kw}({next(w for w, v in words.items() if v == value)})"
        # fixed: ten priorities, syncpoint always available (DISPLAY QMGR ALL shows them)
        shown.update(MAXPRTY="MAXPRTY(9)", SYNCPT="SYNCPT")
        for kw in sorted(shown):  # runmqsc lists them alphabetically after QMNAME
            if every or any(p.keyword == kw for p in asked):
                items.append(shown[kw])
        self.out("AMQ8408I: Display Queue Manager details.")
        for line in columns(items):
            self.out(line)
