"""The command server's side of PCF: a PCF command message in, its response messages out,
run on a connection of the pymqi face through the same admin calls `mqk mqsc` uses
(`define_queue`, `alter_queue`, `delete_queue`, `queue_status`, the catalog).

`serve(qm, request, encoding)` takes the command as the bytes MQ would put on
SYSTEM.ADMIN.COMMAND.QUEUE (an MQCFH of Type MQCFT_COMMAND / MQCFT_COMMAND_XR and its
parameters, parsed by adapter/core/pcf.py) and returns the response messages (MQCFH
Type MQCFT_RESPONSE, one per object, MQCFC_LAST on the final one), encoded by the same
module: so a command-server process reading the queue can reuse it as it is.

Queue commands: INQUIRE_Q, INQUIRE_Q_NAMES, CREATE_Q, CHANGE_Q, COPY_Q, DELETE_Q,
CLEAR_Q, INQUIRE_Q_STATUS (MQIACF_Q_STATUS), RESET_Q_STATS and INQUIRE_Q_MGR; the topic
commands are adapter/pymqi/pcftopic.py's, the subscription and topic-status ones
adapter/pymqi/pcfsub.py's. Attributes by selector
are adapter/core/queueattrs.py's table. A failure is one response with CompCode
MQCC_FAILED and the Reason in the MQCFH (pymqi/ibmmq raise MQMIError from it), with
MQIACF_PARAMETER_ID naming the parameter at fault where there is one, as MQ does.
The reason codes (IBM's "PCF reason codes",
https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q046180_.html and its siblings):
2085 MQRC_UNKNOWN_OBJECT_NAME (no such queue, or no queue matches a generic name),
4001 MQRCCF_OBJECT_ALREADY_EXISTS (CREATE_Q / COPY_Q without MQIACF_REPLACE),
4002 MQRCCF_OBJECT_WRONG_TYPE (the queue exists with another MQIA_Q_TYPE),
2042 MQRC_OBJECT_IN_USE (DELETE_Q / CLEAR_Q of an open queue), 2055 MQRC_Q_NOT_EMPTY
(DELETE_Q without MQIACF_PURGE), 3014 / 3015 / 3047 MQRCCF_CFIN / CFST / CFIL_PARM_ID_ERROR
(a parameter the command does not take, or a queue attribute mqk does not implement),
4005 MQRCCF_ATTR_VALUE_ERROR (a value outside the attribute's domain), 3019
MQRCCF_PARM_COUNT_TOO_SMALL (a required parameter missing), 3007
MQRCCF_CFH_COMMAND_ERROR (a command mqk does not implement), 3224 MQRCCF_EVENTS_DISABLED
(RESET_Q_STATS while the queue manager's PERFMEV is DISABLED), 3229 MQRCCF_PARM_VALUE_ERROR
(MQIACF_Q_STATUS_TYPE MQIACF_Q_HANDLE: mqk has no handle-level status), 3243 / 3247
MQRCCF_CFIF / CFSF_PARM_ID_ERROR (a filter on an attribute the answer lacks) and 3150
MQRCCF_FILTER_ERROR (an operator other than the comparisons and LIKE / NOT_LIKE), 3025 /
3012 / 3046 MQRCCF_REPLACE / FORCE / PURGE_VALUE_ERROR (MQIACF_REPLACE, MQIACF_FORCE,
MQIACF_PURGE neither YES nor NO).

INQUIRE_Q_STATUS answers MQIACF_Q_STATUS's figures (adapter/core/qstats.py: depth, open
counts, last get / put date and time, OldestMsgAge, OnQTime (MQMON_NOT_AVAILABLE until
measured), QueueMonitoring, UncommittedMsgs), those MQIACF_Q_STATUS_ATTRS asks
for (MQIACF_ALL, the default: all). RESET_Q_STATS answers HighQDepth, MsgEnqCount,
MsgDeqCount and TimeSinceReset per local queue and zeroes them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from adapter.core import cmqc as C  # noqa: N812
from adapter.core import cmqcfc as F  # noqa: N812
from adapter.core import pcf
from adapter.core import queueattrs as QA  # noqa: N812
from adapter.core.errors import MQMIError
from adapter.core.mqscparse import is_generic, matches
from adapter.core.pcfcommand import (
    PARM_ID_ERROR,
    CommandError,
    Request,
    Values,
    failure,
    filtered,
    padded,
    responses,
)
from adapter.core.qstats import QueueFigures, ResetFigures, pcf_values
from adapter.pymqi.pcfsub import SubServer
from adapter.pymqi.pcftopic import TopicServer


class AdminConnection(Protocol):
    """The face's QueueManager as the command server uses it: its administration calls.
    A protocol, not an import of the face, which imports this module."""

    def define_queue(self, name: str, replace: bool = False, **attributes: Any) -> Any: ...
    def alter_queue(self, name: str, force: bool = False, **attributes: Any) -> Any: ...
    def delete_queue(self, name: str, purge: bool = False) -> None: ...
    def clear_queue(self, name: str) -> None: ...
    def queue_status(self, name: str) -> dict: ...
    def queue_figures(self, name: str) -> QueueFigures: ...
    def reset_queue_stats(self, name: str) -> ResetFigures: ...
    def inquire(self, selectors: int | list[int]) -> Any: ...
    def get_handle(self) -> Any: ...


# mqk's own QueueDef fields (no MQ selector) that COPY_Q copies with the MQ attributes.
_MQK_FIELDS = ("partitions", "segment_size")
# INQUIRE_Q_MGR's attributes: what MQINQ on the queue manager answers.
QMGR_SELECTORS = (
    C.MQCA_Q_MGR_NAME, C.MQCA_Q_MGR_DESC, C.MQCA_DEAD_LETTER_Q_NAME, C.MQCA_DEF_XMIT_Q_NAME,
    C.MQCA_VERSION, C.MQIA_CODED_CHAR_SET_ID, C.MQIA_COMMAND_LEVEL, C.MQIA_DIST_LISTS,
    C.MQIA_MAX_HANDLES, C.MQIA_MAX_MSG_LENGTH, C.MQIA_MAX_PRIORITY,
    C.MQIA_MAX_UNCOMMITTED_MSGS, C.MQIA_PLATFORM, C.MQIA_SYNCPOINT,
)  # fmt: skip
# INQUIRE_Q_MGR's attributes MQINQ does not answer: selector -> QMgrDef field.
_QMGR_PCF_ONLY = {C.MQIA_MONITORING_Q: "monitoring_q", C.MQIA_PERFORMANCE_EVENT: "perf_events"}
# INQUIRE_Q_STATUS's MQIACF_Q_STATUS attributes (core/qstats.pcf_values), MQIACF_ALL's.
_STATUS_LENGTHS = {
    F.MQCACF_LAST_GET_DATE: C.MQ_DATE_LENGTH,
    F.MQCACF_LAST_GET_TIME: C.MQ_TIME_LENGTH,
    F.MQCACF_LAST_PUT_DATE: C.MQ_DATE_LENGTH,
    F.MQCACF_LAST_PUT_TIME: C.MQ_TIME_LENGTH,
}


# Commands the layers above add (adapter/tools/pcfchannel.py: the channel commands, which
# this face may not import): command -> handler(connection, request). A command that is
# neither here nor in Server.commands answers MQRCCF_CFH_COMMAND_ERROR.
Extension = Callable[["AdminConnection", Request], list[Values]]
EXTENSIONS: dict[int, Extension] = {}


class Server:
    """Runs PCF commands on the pymqi connection `qm`."""

    def __init__(self, qm: AdminConnection) -> None:
        self.qm = qm
        self.commands: dict[int, Callable[[Request], list[Values]]] = {
            F.MQCMD_INQUIRE_Q: self.inquire_q,
            F.MQCMD_INQUIRE_Q_NAMES: self.inquire_q_names,
            F.MQCMD_CREATE_Q: self.create_q,
            F.MQCMD_CHANGE_Q: self.change_q,
            F.MQCMD_COPY_Q: self.copy_q,
            F.MQCMD_DELETE_Q: self.delete_q,
            F.MQCMD_CLEAR_Q: self.clear_q,
            F.MQCMD_INQUIRE_Q_STATUS: self.inquire_q_status,
            F.MQCMD_INQUIRE_Q_MGR: self.inquire_q_mgr,
            F.MQCMD_RESET_Q_STATS: self.reset_q_stats,
        }
        self.commands.update(TopicServer(qm).commands())  # adapter/pymqi/pcftopic.py
        self.commands.update(SubServer(qm).commands())  # adapter/pymqi/pcfsub.py

    def run(self, command: int, params: tuple[pcf.Param, ...]) -> list[Values]:
        """The responses' parameters; CommandError, or MQMIError from the engine."""
        handler = self.commands.get(command)
        extension = EXTENSIONS.get(command)
        if handler is None and extension is None:
            raise CommandError(F.MQRCCF_CFH_COMMAND_ERROR)
        request = Request(params)
        try:
            return handler(request) if handler is not None else extension(self.qm, request)
        except ValueError:  # a combination define_queue / alter_queue refuses
            raise CommandError(F.MQRCCF_ATTR_VALUE_ERROR) from None

    # -- queues, found ---------------------------------------------------------------------
    def _status(self, name: str) -> dict | None:
        try:
            return self.qm.queue_status(name)
        except MQMIError as err:
            if err.reason == C.MQRC_UNKNOWN_OBJECT_NAME:
                return None
            raise

    def matching(self, pattern: str, qtype: int) -> list[dict]:
        """The status of the queues a (generic) name names, of type `qtype` (MQQT_ALL:
        any), in name order; MQRC_UNKNOWN_OBJECT_NAME when there is none, as MQ."""
        if is_generic(pattern):
            catalog = self.qm.get_handle().catalog.names()
            names = sorted(n for n in catalog if matches(pattern, n))
        else:
            names = [pattern]
        found = [st for st in map(self._status, names) if st is not None]
        found = [st for st in found if qtype in (C.MQQT_ALL, _qtype(st))]
        if not found:
            raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME)
        return found

    def existing(self, name: str, qtype: int | None) -> dict:
        st = self._status(name)
        if st is None:
            raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME)
        if qtype not in (None, C.MQQT_ALL, _qtype(st)):
            raise CommandError(F.MQRCCF_OBJECT_WRONG_TYPE)
        return st

    # -- INQUIRE -----------------------------------------------------------------------------
    def inquire_q(self, req: Request) -> list[Values]:
        name = req.take(C.MQCA_Q_NAME, required=True)
        qtype = req.take(C.MQIA_Q_TYPE, C.MQQT_ALL)
        asked = list(req.take(F.MQIACF_Q_ATTRS, (F.MQIACF_ALL,), kind=F.MQCFT_INTEGER_LIST))
        req.check_used()
        every = F.MQIACF_ALL in asked
        for selector in asked:
            if selector not in (F.MQIACF_ALL, C.MQCA_Q_NAME) and QA.by_selector(selector) is None:
                raise CommandError(F.MQRCCF_CFIL_PARM_ID_ERROR, selector)
        out = []
        for st in self.matching(name, qtype):
            kind = _qtype(st)
            wanted = [a.selector for a in QA.display_order(kind)] if every else asked
            status = {"CURDEPTH": st["current_depth"], "IPPROCS": st["open_input_count"],
                      "OPPROCS": st["open_output_count"]}  # fmt: skip
            values: Values = {C.MQCA_Q_NAME: padded(st["queue"], C.MQ_Q_NAME_LENGTH)}
            values[C.MQIA_Q_TYPE] = kind  # always: it says which attributes follow
            for selector, value in QA.pcf_values(st["attributes"], status, wanted).items():
                attr = QA.by_selector(selector)
                length = attr.length if attr is not None and attr.kind == "str" else 0
                values[selector] = padded(value, length) if isinstance(value, str) else value
            out.append(filtered(values, req.filters))
        return [v for v in out if v is not None]

    def inquire_q_names(self, req: Request) -> list[Values]:
        name = req.take(C.MQCA_Q_NAME, required=True)
        qtype = req.take(C.MQIA_Q_TYPE, C.MQQT_ALL)
        req.check_used()
        try:
            found = self.matching(name, qtype)
        except CommandError as failed:
            if failed.reason != C.MQRC_UNKNOWN_OBJECT_NAME or not is_generic(name):
                raise
            found = []  # a generic name matching nothing: an empty list, not an error
        return [{
            F.MQCACF_Q_NAMES: [padded(st["queue"], C.MQ_Q_NAME_LENGTH) for st in found],
            F.MQIACF_Q_TYPES: [_qtype(st) for st in found],
        }]  # fmt: skip

    def inquire_q_status(self, req: Request) -> list[Values]:
        name = req.take(C.MQCA_Q_NAME, required=True)
        if req.take(F.MQIACF_Q_STATUS_TYPE, F.MQIACF_Q_STATUS) != F.MQIACF_Q_STATUS:
            raise CommandError(F.MQRCCF_PARM_VALUE_ERROR, F.MQIACF_Q_STATUS_TYPE)
        asked = req.take(F.MQIACF_Q_STATUS_ATTRS, (F.MQIACF_ALL,), kind=F.MQCFT_INTEGER_LIST)
        req.check_used()
        every = F.MQIACF_ALL in asked
        out: list[Values] = []
        for st in self.matching(name, C.MQQT_LOCAL):
            values: Values = {C.MQCA_Q_NAME: padded(st["queue"], C.MQ_Q_NAME_LENGTH)}
            values[F.MQIACF_Q_STATUS_TYPE] = F.MQIACF_Q_STATUS
            figures = pcf_values(self.qm.queue_figures(st["queue"]))
            for selector, value in figures.items():
                if every or selector in asked:  # an attribute mqk lacks is left out
                    length = _STATUS_LENGTHS.get(selector, 0)
                    values[selector] = padded(value, length) if isinstance(value, str) else value
            kept = filtered(values, req.filters)
            if kept is not None:
                out.append(kept)
        return out

    def reset_q_stats(self, req: Request) -> list[Values]:
        """MQCMD_RESET_Q_STATS: one response per local queue the (generic) name names,
        each queue's figures read and zeroed at once (adapter/core/qstats.py)."""
        name = req.take(C.MQCA_Q_NAME, required=True)
        req.check_used()
        out: list[Values] = []
        for st in self.matching(name, C.MQQT_LOCAL):
            figures = self.qm.reset_queue_stats(st["queue"])
            values: Values = {C.MQCA_Q_NAME: padded(st["queue"], C.MQ_Q_NAME_LENGTH)}
            values.update(figures.pcf_values())
            out.append(values)
        return out

    def inquire_q_mgr(self, req: Request) -> list[Values]:
        asked = list(req.take(F.MQIACF_Q_MGR_ATTRS, (F.MQIACF_ALL,), kind=F.MQCFT_INTEGER_LIST))
        req.check_used()
        every = F.MQIACF_ALL in asked
        wanted = QMGR_SELECTORS if every else asked
        for selector in wanted:
            if selector not in QMGR_SELECTORS and selector not in _QMGR_PCF_ONLY:
                raise CommandError(F.MQRCCF_CFIL_PARM_ID_ERROR, selector)
        answer = dict(self.qm.inquire([s for s in wanted if s in QMGR_SELECTORS]))
        qm = self.qm.get_handle().qmgr_def()
        for selector, field in _QMGR_PCF_ONLY.items():  # QueueMonitoring, PerformanceEvent
            if every or selector in asked:
                answer[selector] = getattr(qm, field)
        return [answer]

    # -- CREATE / CHANGE / COPY / DELETE / CLEAR --------------------------------------------------
    def create_q(self, req: Request) -> list[Values]:
        name = req.take(C.MQCA_Q_NAME, required=True)
        qtype = req.take(C.MQIA_Q_TYPE, required=True)
        replace = _yes(req, F.MQIACF_REPLACE, F.MQRCCF_REPLACE_VALUE_ERROR)
        self._define(name, qtype, {}, self._fields(req, qtype), replace)
        return []

    def copy_q(self, req: Request) -> list[Values]:
        source = req.take(F.MQCACF_FROM_Q_NAME, required=True)
        target = req.take(F.MQCACF_TO_Q_NAME, required=True)
        qtype = req.take(C.MQIA_Q_TYPE, required=True)
        replace = _yes(req, F.MQIACF_REPLACE, F.MQRCCF_REPLACE_VALUE_ERROR)
        fields = self._fields(req, qtype)
        copied = self.existing(source, qtype)["attributes"]
        keep = {f for f, a in QA.BY_FIELD.items() if a.settable_on(qtype)}
        if qtype != C.MQQT_ALIAS:
            keep.update(_MQK_FIELDS)
        base = {k: v for k, v in copied.items() if k in keep}
        self._define(target, qtype, base, fields, replace)
        return []

    def _define(self, name: str, qtype: int, base: dict, fields: dict, replace: bool) -> None:
        if qtype not in QA.TYPE_NAMES:
            raise CommandError(F.MQRCCF_Q_TYPE_ERROR, C.MQIA_Q_TYPE)
        attrs = {**base, **fields}
        if qtype != C.MQQT_LOCAL:
            attrs["queue_type"] = qtype
        self.qm.define_queue(name, replace=replace, **attrs)

    def change_q(self, req: Request) -> list[Values]:
        name = req.take(C.MQCA_Q_NAME, required=True)
        qtype = req.take(C.MQIA_Q_TYPE, required=True)
        force = _yes(req, F.MQIACF_FORCE, F.MQRCCF_FORCE_VALUE_ERROR)
        if qtype not in QA.TYPE_NAMES:
            raise CommandError(F.MQRCCF_Q_TYPE_ERROR, C.MQIA_Q_TYPE)
        fields = self._fields(req, qtype)
        self.existing(name, qtype)
        if fields:
            self.qm.alter_queue(name, force=force, **fields)
        return []

    def delete_q(self, req: Request) -> list[Values]:
        name = req.take(C.MQCA_Q_NAME, required=True)
        qtype = req.take(C.MQIA_Q_TYPE)
        purge = _yes(req, F.MQIACF_PURGE, F.MQRCCF_PURGE_VALUE_ERROR)
        req.check_used()
        self.existing(name, qtype)
        self.qm.delete_queue(name, purge=purge)
        return []

    def clear_q(self, req: Request) -> list[Values]:
        name = req.take(C.MQCA_Q_NAME, required=True)
        req.check_used()
        self.existing(name, C.MQQT_LOCAL)
        self.qm.clear_queue(name)
        return []

    @staticmethod
    def _fields(req: Request, qtype: int) -> dict[str, Any]:
        """QueueDef fields from the parameters not taken: a selector that is not a
        queue attribute of the type fails as an identifier MQ does not know there."""
        rest = req.rest()
        for selector in rest:
            attr = QA.by_selector(selector)
            if attr is None or not attr.settable_on(qtype):
                reason = PARM_ID_ERROR.get(req.types[selector], F.MQRCCF_CFIN_PARM_ID_ERROR)
                raise CommandError(reason, selector)
        fields: dict[str, Any] = {}
        for selector, value in rest.items():
            try:  # one by one, so that the failure names its parameter
                fields.update(QA.fields_from_pcf(qtype, {selector: value}))
            except ValueError:
                raise CommandError(F.MQRCCF_ATTR_VALUE_ERROR, selector) from None
        return fields


def _yes(req: Request, parameter: int, reason: int) -> bool:
    """MQIACF_REPLACE / FORCE / PURGE: MQRP_YES / MQFC_YES / MQPO_YES (1) or NO (0)."""
    value = req.take(parameter, 0)
    if value not in (0, 1):
        raise CommandError(reason, parameter)
    return value == 1


def _qtype(st: dict) -> int:
    return st["attributes"].get("queue_type", C.MQQT_LOCAL)


def serve(qm: AdminConnection, request: bytes, encoding: int) -> list[bytes]:
    """The response messages to the PCF command message `request`."""
    parsed = pcf.parse(request, encoding)
    if isinstance(parsed, int):
        return [failure(F.MQCMD_NONE, parsed, None, encoding)]
    command = parsed.header.command
    try:
        answers = Server(qm).run(command, parsed.params)
    except CommandError as failed:
        return [failure(command, failed.reason, failed.parameter, encoding)]
    except MQMIError as err:
        return [failure(command, err.reason, None, encoding)]
    return responses(command, answers, encoding)
