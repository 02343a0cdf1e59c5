"""Topic objects (DEFINE / ALTER / DISPLAY / DELETE TOPIC): a name for a node of the
topic tree, whose TOPICSTR an MQOPEN or MQSUB naming it in ObjectName puts before the
ObjectString (core/topicstring.combine), and whose attributes (DEFPRTY, DEFPSIST,
DEFPRESP, PUB, SUB, DURSUB, MDURMDL, MNDURMDL, NPMSGDLV, PMSGDLV, USEDLQ, WILDCARD;
core/topicattrs.py) apply to its topic string and, where those below say ASPARENT, to
every topic string below it.

A definition is kept like a queue's: durable in the compacted catalog topic and cached
in the state store's catalog hash, under the key `*TOPIC:<name>` (no queue name holds a
'*', qmgrdef.is_queue_key). SYSTEM.BASE.TOPIC, with the empty topic string, always
exists, as in every queue manager; ALTER TOPIC(SYSTEM.BASE.TOPIC) stores it like any
other.

Publishers and MQSUB resolve a topic string's attributes against a cached topic tree
(`effective`), reloaded when the store's topics version changes (read through the
client-tracking cache: no round trip while nothing changed).
IBM: "Topic objects" <https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.0.0/com.ibm.mq.pro.doc/q003320_.htm>.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from adapter.core import cmqc as C
from adapter.core import topicattrs as TA  # noqa: N812
from adapter.core.errors import fail
from adapter.shim.catalog import Catalog
from adapter.shim.store import StateStore

log = logging.getLogger("mqk.shim.topics")

TOPIC_KEY_PREFIX = "*TOPIC:"
BASE_TOPIC = TA.BASE_TOPIC
_MEMO_MAX = 10_000  # topic strings whose resolved attributes are kept per tree version


def _stamp() -> tuple[str, str]:
    """ALTDATE / ALTTIME as MQ shows them (yyyy-mm-dd, hh.mm.ss; local time)."""
    now = time.localtime()
    return time.strftime("%Y-%m-%d", now), time.strftime("%H.%M.%S", now)


@dataclass(frozen=True)
class TopicDef:
    name: str
    topic_string: str = ""
    description: str = ""
    # core/topicattrs.py's attributes (field -> value); missing ones are ASPARENT.
    attributes: dict[str, Any] = field(default_factory=dict)
    alt_date: str = ""
    alt_time: str = ""

    def __post_init__(self) -> None:
        for name, value in self.attributes.items():
            attr = TA.BY_FIELD.get(name)
            if attr is None:
                raise ValueError(f"not a topic attribute: {name}")
            attr.check(value)

    def value(self, name: str) -> int | str:
        return self.attributes.get(name, TA.NEW_OBJECT[name])

    def values(self) -> dict[str, int | str]:
        return {name: self.value(name) for name in TA.NEW_OBJECT}

    def to_json(self) -> bytes:
        return json.dumps(asdict(self), sort_keys=True).encode()

    @classmethod
    def from_json(cls, raw: bytes) -> TopicDef:
        return cls(**json.loads(raw))


BASE = TopicDef(BASE_TOPIC, "", "Base topic for resolving attributes", dict(TA.BASE_VALUES))


class TopicObjects:
    def __init__(self, catalog: Catalog, store: StateStore) -> None:
        self.catalog = catalog
        self.store = store
        self.state = store.pubsub()
        self._lock = threading.Lock()  # the application's threads and the pump
        self._version: str | None = "unread"
        self._by_string: dict[str, TopicDef] = {}
        self._base = BASE
        self._memo: dict[str, TA.Effective] = {}

    def lookup(self, name: str) -> TopicDef | None:
        name = name.rstrip(" ")
        key = TOPIC_KEY_PREFIX + name
        raw = self.store.catalog_get(key)
        if raw is None and name != BASE_TOPIC:
            # The store may have lost it (as Catalog.lookup does for queues): Kafka holds it.
            raw = self.catalog.read_objects(key).get(key)
            if raw is not None:
                self.store.catalog_put(key, raw)
        if raw is not None:
            return TopicDef.from_json(raw)
        return BASE if name == BASE_TOPIC else None

    def define(self, tdef: TopicDef, replace: bool = False) -> TopicDef:
        """DEFINE TOPIC: 4001 without REPLACE when it exists; TOPICSTR is required and
        another topic object may not have it (MQRCCF_TOPIC_STRING_... is MQSC's; the
        checks here are the name's and the string's length)."""
        if not tdef.name or len(tdef.name) > C.MQ_TOPIC_NAME_LENGTH:
            raise ValueError(f"topic object name not valid: {tdef.name!r}")
        if len(tdef.topic_string) > C.MQ_TOPIC_STR_LENGTH:
            raise ValueError("TOPICSTR longer than 10240 characters")
        # One definer at a time (catalog.claimed): the second of two at once finds the
        # first's topic object (4001 without REPLACE).
        with self.catalog.claimed(TOPIC_KEY_PREFIX + tdef.name):
            if self.lookup(tdef.name) is not None and not replace:
                raise fail(C.MQRCCF_OBJECT_ALREADY_EXISTS)
            if self.catalog.lookup(tdef.name) is not None:
                raise fail(C.MQRCCF_OBJECT_WRONG_TYPE)
            return self._write(tdef)

    def alter(self, name: str, description: str | None = None, **attributes: Any) -> TopicDef:
        """ALTER TOPIC: the description and attributes given change; TOPICSTR never
        does (a topic object names one node)."""
        with self.catalog.claimed(TOPIC_KEY_PREFIX + name.rstrip(" ")):
            current = self.lookup(name)
            if current is None:
                raise fail(C.MQRC_UNKNOWN_OBJECT_NAME)
            changed = replace(
                current,
                description=current.description if description is None else description,
                attributes={**current.attributes, **attributes},
            )
            return self._write(changed)

    def _write(self, tdef: TopicDef) -> TopicDef:
        date, clock = _stamp()
        tdef = replace(tdef, alt_date=date, alt_time=clock)
        key = TOPIC_KEY_PREFIX + tdef.name
        self.catalog.write_object(key, tdef.to_json())
        self.store.catalog_put(key, tdef.to_json())
        self.state.bump_topics_version()
        return tdef

    def delete(self, name: str) -> None:
        """DELETE TOPIC. SYSTEM.BASE.TOPIC's defaults stay in force without it (as MQ
        uses them when the object does not exist), so deleting it resets it."""
        name = name.rstrip(" ")
        key = TOPIC_KEY_PREFIX + name
        with self.catalog.claimed(key):
            if self.lookup(name) is None:
                raise fail(C.MQRC_UNKNOWN_OBJECT_NAME)
            self.catalog.write_object(key, None)
            self.store.catalog_delete(key)
            self.state.bump_topics_version()

    def names(self) -> list[str]:
        keys = self.store.catalog_all()
        found = {k[len(TOPIC_KEY_PREFIX) :] for k in keys if k.startswith(TOPIC_KEY_PREFIX)}
        return sorted(found | {BASE_TOPIC})

    # -- the topic tree ----------------------------------------------------------------
    def _current(self, in_call: bool = False) -> None:
        version = self.state.topics_version(in_call=in_call)
        if version is not None and version == self._version:
            return
        if version is None:
            # Never set, or the store lost it: the store's cache may have lost the
            # definitions too; Kafka holds them.
            for key, raw in self.catalog.read_objects(TOPIC_KEY_PREFIX).items():
                if self.store.catalog_get(key) is None:
                    self.store.catalog_put(key, raw)
            self.state.bump_topics_version()
            version = self.state.topics_version()
        by_string: dict[str, TopicDef] = {}
        base = BASE
        for key, raw in sorted(self.store.catalog_all().items()):
            if not key.startswith(TOPIC_KEY_PREFIX):
                continue
            tdef = TopicDef.from_json(raw)
            if tdef.name == BASE_TOPIC:
                base = tdef
            else:
                by_string.setdefault(tdef.topic_string, tdef)  # one per node: the first name
        self._by_string, self._base, self._version, self._memo = by_string, base, version, {}

    def effective(self, topic: str, *, in_call: bool = False) -> TA.Effective:
        """The attributes of topic string `topic` (ASPARENT resolved up the tree) and
        the WILDCARD(BLOCK) nodes at or above it (`in_call`: as of the MQI call's start,
        Subscriptions.matching)."""
        with self._lock:
            self._current(in_call)
            found = self._memo.get(topic)
            if found is not None:
                return found
            chain = [self._by_string[s] for s in TA.ancestors(topic) if s in self._by_string]
            eff = TA.resolve([d.values() for d in chain], self._base.values())
            blocks = tuple(
                d.topic_string for d in chain if d.value("wildcard_operation") == C.MQTA_BLOCK
            )
            if chain and chain[0].topic_string != topic:  # WILDCARD is the node's own
                eff.values["wildcard_operation"] = C.MQTA_PASSTHRU
            eff = TA.Effective(eff.values, blocks)
            if len(self._memo) >= _MEMO_MAX:
                self._memo.clear()
            self._memo[topic] = eff
            return eff
