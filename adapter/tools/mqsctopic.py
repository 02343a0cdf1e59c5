"""DEFINE / ALTER / DISPLAY / DELETE TOPIC for `mqk mqsc` (adapter/tools/mqscrun.py runs
them): topic objects with TOPICSTR, DESCR and the attributes of adapter/core/topicattrs.py
(DURSUB, DEFPSIST, DEFPRTY, DEFPRESP, MDURMDL, MNDURMDL, NPMSGDLV, PMSGDLV, PUB, SUB,
USEDLQ, WILDCARD), as runmqsc prints them ("Displaying administrative topic object
attributes",
<https://www.ibm.com/docs/en/ibm-mq/9.4.x?topic=topics-displaying-administrative-topic-object-attributes>;
DEFINE TOPIC, DISPLAY TOPIC <https://www.ibm.com/docs/SSFKSJ_9.2.0/refadmin/q086380_.html>).
The other topic attributes (CLUSTER, COMMINFO, PUBSCOPE, ...) are not kept by mqk: a
command naming one fails, naming it. TOPICSTR is DEFINE's only: ALTER TOPIC cannot
change the node a topic object names.

Messages: AMQ8690I created, AMQ8691I changed, AMQ8692I deleted, AMQ8633I the DISPLAY
header (the 9.4 runmqsc texts; AMQ8691I's number is taken from the AMQ8690-8692 run, not
seen in IBM's message list).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import adapter.pymqi as pymqi
from adapter.core import topicattrs as TA  # noqa: N812
from adapter.core.mqscparse import Command, MQSCSyntaxError, is_generic, matches

C = pymqi.CMQC
_ATTRS = {a.keyword: True for a in TA.ATTRIBUTES}
_DEFINE = {"TOPICSTR": True, "DESCR": True, "REPLACE": False, "NOREPLACE": False, **_ATTRS}
_ALTER = {"DESCR": True, **_ATTRS}
_DISPLAY = {"ALL": False, "TOPICSTR": False, "DESCR": False, "TYPE": False,
            "ALTDATE": False, "ALTTIME": False, **{k: False for k in _ATTRS}}  # fmt: skip
# MQ's topic attributes that mqk does not keep (the command fails, naming the keyword).
_UNSUPPORTED = frozenset(
    [
        "CLROUTE",
        "CLUSTER",
        "COMMINFO",
        "CUSTOM",
        "LIKE",
        "MCAST",
        "PROXYSUB",
        "PUBSCOPE",
        "SUBSCOPE",
        "WHERE",
        "CAPEXPRY",
        "CLUSINFO",
    ]
)


class TopicCommandError(Exception):
    """A topic command that ran and failed: its message line is printed."""


def _attributes(cmd: Command) -> dict[str, Any]:
    """The topic attributes the command sets, by TopicDef field (ValueError for a value
    out of the attribute's domain: printed as mqk's message)."""
    out: dict[str, Any] = {}
    for p in cmd.params:
        attr = TA.BY_KEYWORD.get(p.keyword)
        if attr is not None and p.value is not None:
            out[attr.field] = attr.parse(p.value)
    return out


class TopicCommands:
    """Mixed into mqscrun.Processor: `qm` and `out` are the processor's."""

    qm: pymqi.QueueManager
    out: Callable[[str], None]
    layout: Callable[[list[str]], list[str]]  # runmqsc's two columns (mqscrun.columns)

    @staticmethod
    def _topic_params(cmd: Command, allowed: dict[str, bool]) -> None:
        for p in cmd.params:
            if p.keyword in _UNSUPPORTED:
                raise TopicCommandError(f"mqk: {p.keyword} is not supported by mqk.")
            if p.keyword not in allowed:
                raise MQSCSyntaxError(cmd.segment(p), f"{p.keyword}: unknown keyword")
            if allowed[p.keyword] != (p.value is not None):
                raise MQSCSyntaxError(cmd.segment(p), f"{p.keyword}: value")

    def _define_topic(self, cmd: Command) -> None:
        self._topic_params(cmd, _DEFINE)
        topic_string = cmd.value("TOPICSTR")
        if not topic_string:  # required, and never empty (Topic properties: TOPICSTR)
            raise TopicCommandError("AMQ8884E: Topic string is not valid.")
        self.qm.define_topic(
            cmd.name or "",
            topic_string,
            cmd.value("DESCR") or "",
            replace="REPLACE" in cmd.keywords(),
            **_attributes(cmd),
        )
        self.out("AMQ8690I: IBM MQ topic created.")

    def _alter_topic(self, cmd: Command) -> None:
        self._topic_params(cmd, _ALTER)
        self.qm.alter_topic(cmd.name or "", cmd.value("DESCR"), **_attributes(cmd))
        self.out("AMQ8691I: IBM MQ topic changed.")

    def _delete_topic(self, cmd: Command) -> None:
        self._topic_params(cmd, {})
        self.qm.delete_topic(cmd.name or "")
        self.out("AMQ8692I: IBM MQ topic deleted.")

    def _display_topic(self, cmd: Command) -> None:
        self._topic_params(cmd, _DISPLAY)
        conn = self.qm.get_handle()
        pattern = cmd.name or ""
        names = conn.pubsub.topics.names() if is_generic(pattern) else [pattern]
        asked = cmd.keywords() - {"ALL", "TYPE"}
        every = "ALL" in cmd.keywords() or not asked
        found = 0
        for name in names:
            tdef = conn.lookup_topic(name) if matches(pattern, name) else None
            if tdef is None:
                continue
            found += 1
            items = [f"TOPIC({tdef.name})", "TYPE(LOCAL)"]
            if every or "TOPICSTR" in asked:
                items.append(f"TOPICSTR({tdef.topic_string or ' '})")
            if every or "DESCR" in asked:
                items.append(f"DESCR({tdef.description or ' '})")
            for attr in TA.ATTRIBUTES:
                if every or attr.keyword in asked:
                    items.append(f"{attr.keyword}({attr.mqsc(tdef.value(attr.field))})")
            if every or "ALTDATE" in asked:
                items.append(f"ALTDATE({tdef.alt_date or ' '})")
            if every or "ALTTIME" in asked:
                items.append(f"ALTTIME({tdef.alt_time or ' '})")
            self.out("AMQ8633I: Display topic details.")
            for line in self.layout(items):
                self.out(line)
        if not found:
            raise pymqi.MQMIError(C.MQCC_FAILED, C.MQRC_UNKNOWN_OBJECT_NAME)
