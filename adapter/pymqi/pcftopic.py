"""The command server's topic commands (adapter/pymqi/pcfserver.py hands them here):
MQCMD_CREATE_TOPIC, MQCMD_CHANGE_TOPIC, MQCMD_DELETE_TOPIC, MQCMD_INQUIRE_TOPIC and
MQCMD_INQUIRE_TOPIC_NAMES, on the same calls `mqk mqsc`'s DEFINE / ALTER / DELETE /
DISPLAY TOPIC use. Attributes by selector are adapter/core/topicattrs.py's table.

IBM: "Create, Copy and Change Topic" <https://www.ibm.com/docs/en/ibm-mq/9.4.x?topic=formats-change-copy-create-topic>,
"Inquire Topic" <https://www.ibm.com/docs/en/ibm-mq/9.4.x?topic=formats-mqcmd-inquire-topic-inquire-topic>
and its response. Failures as the queue commands': 2085 (no such topic object, or none
matching a generic name), 4001 (CREATE without MQIACF_REPLACE of an existing one), 4002
(the name is a queue's), 3015 / 3014 (a parameter the command does not take: TopicString
on CHANGE, a topic attribute mqk does not keep), 4005 (a value outside the attribute's
domain), 3019 (TopicName, or TopicString on CREATE, missing).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from adapter.core import cmqc as C  # noqa: N812
from adapter.core import cmqcfc as F  # noqa: N812
from adapter.core import topicattrs as TA  # noqa: N812
from adapter.core.mqscparse import is_generic, matches
from adapter.core.pcfcommand import PARM_ID_ERROR, CommandError, Request, Values, filtered, padded

_DESC_LENGTH = 64  # MQ_TOPIC_DESC_LENGTH
_NAME_LENGTH = C.MQ_TOPIC_NAME_LENGTH
# INQUIRE_TOPIC's answer, in order (MQIACF_ALL): beside the attributes of the table.
_OWN = (C.MQCA_TOPIC_NAME, C.MQIA_TOPIC_TYPE, C.MQCA_TOPIC_STRING, C.MQCA_TOPIC_DESC)
_STAMP = (C.MQCA_ALTERATION_DATE, C.MQCA_ALTERATION_TIME)


def _yes(req: Request, parameter: int, reason: int) -> bool:
    value = req.take(parameter, 0)
    if value not in (0, 1):
        raise CommandError(reason, parameter)
    return value == 1


def _attributes(req: Request) -> dict[str, Any]:
    """The parameters not taken, as TopicDef fields; any other is not the command's."""
    out: dict[str, Any] = {}
    for selector, value in req.rest().items():
        attr = TA.BY_SELECTOR.get(selector)
        if attr is None:
            reason = PARM_ID_ERROR.get(req.types[selector], F.MQRCCF_CFIN_PARM_ID_ERROR)
            raise CommandError(reason, selector)
        try:
            out[attr.field] = attr.check(value)
        except ValueError:
            raise CommandError(F.MQRCCF_ATTR_VALUE_ERROR, selector) from None
    return out


class TopicServer:
    """The topic commands on the command server's connection `qm`."""

    def __init__(self, qm: Any) -> None:
        self.qm = qm

    def commands(self) -> dict[int, Callable[[Request], list[Values]]]:
        return {
            F.MQCMD_CREATE_TOPIC: self.create_topic,
            F.MQCMD_CHANGE_TOPIC: self.change_topic,
            F.MQCMD_DELETE_TOPIC: self.delete_topic,
            F.MQCMD_INQUIRE_TOPIC: self.inquire_topic,
            F.MQCMD_INQUIRE_TOPIC_NAMES: self.inquire_topic_names,
        }

    def _topics(self) -> Any:
        return self.qm.get_handle().pubsub.topics

    def _matching(self, pattern: str) -> list[Any]:
        topics = self._topics()
        names = topics.names() if is_generic(pattern) else [pattern]
        found = [topics.lookup(n) for n in names if matches(pattern, n)]
        return [t for t in found if t is not None]

    def create_topic(self, req: Request) -> list[Values]:
        name = req.take(C.MQCA_TOPIC_NAME, required=True)
        topic_string = req.take(C.MQCA_TOPIC_STRING, required=True)
        description = req.take(C.MQCA_TOPIC_DESC, "")
        replace = _yes(req, F.MQIACF_REPLACE, F.MQRCCF_REPLACE_VALUE_ERROR)
        req.take(C.MQIA_TOPIC_TYPE, C.MQTOPT_LOCAL)
        fields = _attributes(req)
        if not topic_string:
            raise CommandError(F.MQRCCF_ATTR_VALUE_ERROR, C.MQCA_TOPIC_STRING)
        self.qm.define_topic(name, topic_string, description, replace=replace, **fields)
        return []

    def change_topic(self, req: Request) -> list[Values]:
        name = req.take(C.MQCA_TOPIC_NAME, required=True)
        description = req.take(C.MQCA_TOPIC_DESC)
        req.take(C.MQIA_TOPIC_TYPE, C.MQTOPT_LOCAL)
        fields = _attributes(req)  # TopicString left: not CHANGE's (3015)
        self.qm.alter_topic(name, description, **fields)
        return []

    def delete_topic(self, req: Request) -> list[Values]:
        name = req.take(C.MQCA_TOPIC_NAME, required=True)
        req.check_used()
        self.qm.delete_topic(name)
        return []

    def inquire_topic(self, req: Request) -> list[Values]:
        name = req.take(C.MQCA_TOPIC_NAME, required=True)
        req.take(C.MQIA_TOPIC_TYPE, C.MQTOPT_LOCAL)
        asked = list(req.take(F.MQIACF_TOPIC_ATTRS, (F.MQIACF_ALL,), kind=F.MQCFT_INTEGER_LIST))
        req.check_used()
        known = {*_OWN, *_STAMP, *TA.BY_SELECTOR}
        for selector in asked:
            if selector != F.MQIACF_ALL and selector not in known:
                raise CommandError(F.MQRCCF_CFIL_PARM_ID_ERROR, selector)
        wanted = [*_OWN, *TA.BY_SELECTOR, *_STAMP] if F.MQIACF_ALL in asked else asked
        found = self._matching(name)
        if not found:
            raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME)
        out = []
        for tdef in found:
            every = {
                C.MQCA_TOPIC_NAME: padded(tdef.name, _NAME_LENGTH),
                C.MQIA_TOPIC_TYPE: C.MQTOPT_LOCAL,
                C.MQCA_TOPIC_STRING: tdef.topic_string.encode(),  # MQCHAR10240: not padded
                C.MQCA_TOPIC_DESC: padded(tdef.description, _DESC_LENGTH),
                C.MQCA_ALTERATION_DATE: padded(tdef.alt_date, C.MQ_DATE_LENGTH),
                C.MQCA_ALTERATION_TIME: padded(tdef.alt_time, C.MQ_TIME_LENGTH),
            }
            for attr in TA.ATTRIBUTES:
                value = tdef.value(attr.field)
                every[attr.selector] = padded(value, attr.length) if attr.length else value
            values: Values = {C.MQCA_TOPIC_NAME: every[C.MQCA_TOPIC_NAME]}
            values.update({s: every[s] for s in wanted})
            out.append(filtered(values, req.filters))
        return [v for v in out if v is not None]

    def inquire_topic_names(self, req: Request) -> list[Values]:
        name = req.take(C.MQCA_TOPIC_NAME, required=True)
        req.take(C.MQIA_TOPIC_TYPE, C.MQTOPT_LOCAL)
        req.check_used()
        names = [t.name for t in self._matching(name)]
        if not names and not is_generic(name):
            raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME)
        return [{F.MQCACF_TOPIC_NAMES: [padded(n, _NAME_LENGTH) for n in names]}]
