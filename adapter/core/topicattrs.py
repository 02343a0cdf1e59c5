"""Topic object attributes: their MQSC keywords, PCF selectors and values, IBM's
defaults, and how a topic string's attributes are resolved through the topic tree.
Pure: no I/O (shim/topics.py keeps the definitions).

Every inheritable attribute of a topic object may be ASPARENT: its value is then the
one of the closest administrative topic object above it in the topic tree (the topic
object whose TOPICSTR is the longest level-prefix of the topic string), and at the root
SYSTEM.BASE.TOPIC's; where SYSTEM.BASE.TOPIC itself says ASPARENT (or does not exist),
IBM's defaults below are used ("SYSTEM.BASE.TOPIC",
<https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=objects-systembasetopic>; "Administrative
topic objects", <https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=topics-administrative-topic-objects>;
DEFINE TOPIC, <https://www.ibm.com/docs/en/ibm-mq/9.4.x?topic=reference-define-topic-define-topic>).

WILDCARD is not inherited (it has no ASPARENT): a topic object with WILDCARD(BLOCK)
keeps the publications on its topic string and below from subscriptions "made to a
wildcarded topic less specific than the topic string at this topic object"
("Wildcards in proxy subscriptions",
<https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_8.0.0/com.ibm.mq.pro.doc/q005160_.html>):
`blocked` says which.
"""

from __future__ import annotations

from dataclasses import dataclass

from adapter.core import cmqc as C
from adapter.core.topicstring import MULTI, SEPARATOR, SINGLE, Wildcard

BASE_TOPIC = "SYSTEM.BASE.TOPIC"
DURABLE_MODEL = "SYSTEM.DURABLE.MODEL.QUEUE"
NDURABLE_MODEL = "SYSTEM.NDURABLE.MODEL.QUEUE"


@dataclass(frozen=True)
class TopicAttr:
    """One attribute: MQSC `keyword`, TopicDef `field`, PCF / MQINQ `selector`;
    `words` maps MQSC values to MQ's integers (None: a number or a name); `as_parent`
    is the value that means ASPARENT (None: not inherited); `default` IBM's value at the
    root (SYSTEM.BASE.TOPIC's)."""

    keyword: str
    field: str
    selector: int
    words: dict[str, int] | None
    as_parent: int | str | None
    default: int | str
    length: int = 0  # a name's length (MQCA_*)

    def mqsc(self, value: int | str) -> str:
        """The value as DISPLAY TOPIC prints it."""
        if self.words is not None:
            return next(w for w, v in self.words.items() if v == value)
        if value == self.as_parent and isinstance(value, int):
            return "ASPARENT"
        return str(value) if value != "" else " "

    def parse(self, text: str) -> int | str:
        """An MQSC value (upper-cased unless quoted); ValueError when not valid."""
        if self.words is not None:
            if text.upper() not in self.words:
                raise ValueError(f"{self.keyword}({text}) is not valid")
            return self.words[text.upper()]
        if self.length:  # a queue name: blank means ASPARENT
            if len(text) > self.length:
                raise ValueError(f"{self.keyword}: longer than {self.length} characters")
            return text.strip()
        if text.upper() == "ASPARENT":
            return self.as_parent  # type: ignore[return-value]
        if not text.lstrip("-").isdigit() or not 0 <= int(text) <= 9:
            raise ValueError(f"{self.keyword}({text}) is not valid")
        return int(text)

    def check(self, value: int | str) -> int | str:
        """A PCF / API value; ValueError outside the domain."""
        if self.length:
            if not isinstance(value, str) or len(value) > self.length:
                raise ValueError(f"{self.keyword}: not a name")
            return value.strip()
        if not isinstance(value, int):
            raise ValueError(f"{self.keyword}: not an integer")
        if self.words is not None and value not in self.words.values():
            raise ValueError(f"{self.keyword}: {value} is not valid")
        if self.words is None and value != self.as_parent and not 0 <= value <= 9:
            raise ValueError(f"{self.keyword}: {value} is not valid")
        return value


_DLV = {"ASPARENT": C.MQDLV_AS_PARENT, "ALL": C.MQDLV_ALL, "ALLDUR": C.MQDLV_ALL_DUR,
        "ALLAVAIL": C.MQDLV_ALL_AVAIL}  # fmt: skip
_ENABLE_PUB = {"ASPARENT": C.MQTA_PUB_AS_PARENT, "ENABLED": C.MQTA_PUB_ALLOWED,
               "DISABLED": C.MQTA_PUB_INHIBITED}  # fmt: skip
_ENABLE_SUB = {"ASPARENT": C.MQTA_SUB_AS_PARENT, "ENABLED": C.MQTA_SUB_ALLOWED,
               "DISABLED": C.MQTA_SUB_INHIBITED}  # fmt: skip

# In DISPLAY TOPIC's order.
ATTRIBUTES: tuple[TopicAttr, ...] = (
    TopicAttr("DURSUB", "durable_sub", C.MQIA_DURABLE_SUB,
              {"ASPARENT": C.MQSUB_DURABLE_AS_PARENT, "YES": C.MQSUB_DURABLE_ALLOWED,
               "NO": C.MQSUB_DURABLE_INHIBITED}, C.MQSUB_DURABLE_AS_PARENT,
              C.MQSUB_DURABLE_ALLOWED),
    TopicAttr("DEFPSIST", "def_persistence", C.MQIA_TOPIC_DEF_PERSISTENCE,
              {"ASPARENT": C.MQPER_PERSISTENCE_AS_PARENT, "NO": C.MQPER_NOT_PERSISTENT,
               "YES": C.MQPER_PERSISTENT}, C.MQPER_PERSISTENCE_AS_PARENT,
              C.MQPER_NOT_PERSISTENT),
    TopicAttr("DEFPRTY", "def_priority", C.MQIA_DEF_PRIORITY, None,
              C.MQPRI_PRIORITY_AS_PARENT, 0),
    TopicAttr("DEFPRESP", "def_put_response", C.MQIA_DEF_PUT_RESPONSE_TYPE,
              {"ASPARENT": C.MQPRT_RESPONSE_AS_PARENT, "SYNC": C.MQPRT_SYNC_RESPONSE,
               "ASYNC": C.MQPRT_ASYNC_RESPONSE}, C.MQPRT_RESPONSE_AS_PARENT,
              C.MQPRT_SYNC_RESPONSE),
    TopicAttr("MDURMDL", "model_durable_q", C.MQCA_MODEL_DURABLE_Q, None, "", DURABLE_MODEL,
              C.MQ_Q_NAME_LENGTH),
    TopicAttr("MNDURMDL", "model_non_durable_q", C.MQCA_MODEL_NON_DURABLE_Q, None, "",
              NDURABLE_MODEL, C.MQ_Q_NAME_LENGTH),
    TopicAttr("NPMSGDLV", "npm_delivery", C.MQIA_NPM_DELIVERY, _DLV, C.MQDLV_AS_PARENT,
              C.MQDLV_ALL_AVAIL),
    TopicAttr("PMSGDLV", "pm_delivery", C.MQIA_PM_DELIVERY, _DLV, C.MQDLV_AS_PARENT,
              C.MQDLV_ALL_DUR),
    TopicAttr("PUB", "inhibit_pub", C.MQIA_INHIBIT_PUB, _ENABLE_PUB, C.MQTA_PUB_AS_PARENT,
              C.MQTA_PUB_ALLOWED),
    TopicAttr("SUB", "inhibit_sub", C.MQIA_INHIBIT_SUB, _ENABLE_SUB, C.MQTA_SUB_AS_PARENT,
              C.MQTA_SUB_ALLOWED),
    TopicAttr("USEDLQ", "use_dlq", C.MQIA_USE_DEAD_LETTER_Q,
              {"ASPARENT": C.MQUSEDLQ_AS_PARENT, "NO": C.MQUSEDLQ_NO, "YES": C.MQUSEDLQ_YES},
              C.MQUSEDLQ_AS_PARENT, C.MQUSEDLQ_YES),
    TopicAttr("WILDCARD", "wildcard_operation", C.MQIA_WILDCARD_OPERATION,
              {"PASSTHRU": C.MQTA_PASSTHRU, "BLOCK": C.MQTA_BLOCK}, None, C.MQTA_PASSTHRU),
)  # fmt: skip
BY_KEYWORD = {a.keyword: a for a in ATTRIBUTES}
BY_SELECTOR = {a.selector: a for a in ATTRIBUTES}
BY_FIELD = {a.field: a for a in ATTRIBUTES}
INHERITED = tuple(a for a in ATTRIBUTES if a.as_parent is not None)

# What a new topic object has: ASPARENT everywhere (IBM's DEFINE TOPIC defaults, taken
# from SYSTEM.DEFAULT.TOPIC, are ASPARENT), WILDCARD(PASSTHRU).
NEW_OBJECT: dict[str, int | str] = {
    a.field: (a.as_parent if a.as_parent is not None else a.default) for a in ATTRIBUTES
}
# SYSTEM.BASE.TOPIC as a new queue manager has it.
BASE_VALUES: dict[str, int | str] = {a.field: a.default for a in ATTRIBUTES}


@dataclass(frozen=True)
class Effective:
    """A topic string's attributes once ASPARENT is resolved, and the topic strings of
    the WILDCARD(BLOCK) objects at or above it."""

    values: dict[str, int | str]
    blocks: tuple[str, ...] = ()

    @property
    def pub_inhibited(self) -> bool:
        return self.values["inhibit_pub"] == C.MQTA_PUB_INHIBITED

    @property
    def sub_inhibited(self) -> bool:
        return self.values["inhibit_sub"] == C.MQTA_SUB_INHIBITED

    @property
    def durable_allowed(self) -> bool:
        return self.values["durable_sub"] == C.MQSUB_DURABLE_ALLOWED

    def __getitem__(self, field: str) -> int | str:
        return self.values[field]


def ancestors(topic: str) -> list[str]:
    """The topic string and the level-prefixes above it, closest first ('a/b/c',
    'a/b', 'a'); the root ('') is SYSTEM.BASE.TOPIC's and is not listed."""
    levels = topic.split(SEPARATOR)
    return [SEPARATOR.join(levels[:n]) for n in range(len(levels), 0, -1)]


def resolve(chain: list[dict[str, int | str]], base: dict[str, int | str]) -> Effective:
    """The attributes of a topic whose administrative nodes are `chain` (their field
    values, closest first) under SYSTEM.BASE.TOPIC's `base`."""
    values: dict[str, int | str] = {}
    for attr in INHERITED:
        found = next(
            (node[attr.field] for node in [*chain, base] if node[attr.field] != attr.as_parent),
            attr.default,
        )
        values[attr.field] = found
    values["wildcard_operation"] = chain[0]["wildcard_operation"] if chain else C.MQTA_PASSTHRU
    return Effective(values)


def first_wildcard(pattern: str, wildcard: Wildcard) -> int | None:
    """Where the subscription's pattern stops being literal: the index of its first
    wildcard level (topic scheme) or character (character scheme); None: no wildcard."""
    if wildcard is Wildcard.TOPIC:
        levels = pattern.split(SEPARATOR)
        return next((i for i, lv in enumerate(levels) if lv in (MULTI, SINGLE)), None)
    i = 0
    while i < len(pattern):
        if pattern[i] == "%":
            i += 2
            continue
        if pattern[i] in "*?":
            return i
        i += 1
    return None


def blocked(pattern: str, wildcard: Wildcard, blocks: tuple[str, ...]) -> bool:
    """Whether a wildcard subscription `pattern` is kept from a publication by a
    WILDCARD(BLOCK) topic object (topic strings `blocks`, at or above the publication's
    topic string): when its wildcard covers part of the object's topic string ('#' and
    'a/#' are less specific than 'a/b'; 'a/b/#' is not)."""
    at = first_wildcard(pattern, wildcard)
    if at is None or not blocks:
        return False
    if wildcard is Wildcard.TOPIC:
        return any(at < len(b.split(SEPARATOR)) for b in blocks)
    return any(at <= len(b) for b in blocks)
