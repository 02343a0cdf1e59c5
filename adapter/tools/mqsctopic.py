"""DEFINE / DISPLAY / DELETE TOPIC for `mqk mqsc` (adapter/tools/mqscrun.py runs them):
topic objects with TOPICSTR and DESCR, as runmqsc prints them ("Displaying administrative
topic object attributes",
<https://www.ibm.com/docs/en/ibm-mq/9.4.x?topic=topics-displaying-administrative-topic-object-attributes>;
DEFINE TOPIC, DISPLAY TOPIC <https://www.ibm.com/docs/SSFKSJ_9.2.0/refadmin/q086380_.html>).
The other topic attributes (DEFPRTY, DURSUB, PUB, SUB, ...) are not kept by mqk: a
command naming one fails, naming it."""

from __future__ import annotations

from collections.abc import Callable

import adapter.pymqi as pymqi
from adapter.core.mqscparse import Command, MQSCSyntaxError, is_generic, matches

C = pymqi.CMQC
_DEFINE = {"TOPICSTR": True, "DESCR": True, "REPLACE": False, "NOREPLACE": False}
_DISPLAY = {"ALL": False, "TOPICSTR": False, "DESCR": False, "TYPE": False}
# MQ's topic attributes that mqk does not keep (the command fails, naming the keyword).
_UNSUPPORTED = frozenset(
    [
        "CLROUTE",
        "CLUSTER",
        "COMMINFO",
        "CUSTOM",
        "DEFPRESP",
        "DEFPRTY",
        "DEFPSIST",
        "DURSUB",
        "LIKE",
        "MCAST",
        "MDURMDL",
        "MNDURMDL",
        "NPMSGDLV",
        "PMSGDLV",
        "PROXYSUB",
        "PUB",
        "PUBSCOPE",
        "SUB",
        "SUBSCOPE",
        "USEDLQ",
        "WILDCARD",
        "WHERE",
        "CAPEXPRY",
        "ALTDATE",
        "ALTTIME",
        "CLUSINFO",
    ]
)


class TopicCommandError(Exception):
    """A topic command that ran and failed: its message line is printed."""


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
        )
        self.out("AMQ8690I: IBM MQ topic created.")

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
            self.out("AMQ8633I: Display topic details.")
            for line in self.layout(items):
                self.out(line)
        if not found:
            raise pymqi.MQMIError(C.MQCC_FAILED, C.MQRC_UNKNOWN_OBJECT_NAME)
