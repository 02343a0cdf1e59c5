"""Topic objects (DEFINE / DISPLAY / DELETE TOPIC): a name for a node of the topic
tree, whose TOPICSTR an MQOPEN or MQSUB naming it in ObjectName puts before the
ObjectString (core/topicstring.combine).

A definition is kept like a queue's: durable in the compacted catalog topic and cached
in the state store's catalog hash, under the key `*TOPIC:<name>` (no queue name holds a
'*', qmgrdef.is_queue_key). SYSTEM.BASE.TOPIC, with the empty topic string, always
exists, as in every queue manager.
IBM: "Topic objects" <https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.0.0/com.ibm.mq.pro.doc/q003320_.htm>.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

from adapter.core import cmqc as C
from adapter.core.errors import fail
from adapter.shim.catalog import Catalog
from adapter.shim.store import StateStore

TOPIC_KEY_PREFIX = "*TOPIC:"
BASE_TOPIC = "SYSTEM.BASE.TOPIC"


@dataclass(frozen=True)
class TopicDef:
    name: str
    topic_string: str = ""
    description: str = ""

    def to_json(self) -> bytes:
        return json.dumps(asdict(self), sort_keys=True).encode()

    @classmethod
    def from_json(cls, raw: bytes) -> TopicDef:
        return cls(**json.loads(raw))


BASE = TopicDef(BASE_TOPIC, "", "Base topic for inheriting attributes")


class TopicObjects:
    def __init__(self, catalog: Catalog, store: StateStore) -> None:
        self.catalog = catalog
        self.store = store

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
        if self.lookup(tdef.name) is not None and not replace:
            raise fail(C.MQRCCF_OBJECT_ALREADY_EXISTS)
        if self.catalog.lookup(tdef.name) is not None:
            raise fail(C.MQRCCF_OBJECT_WRONG_TYPE)
        key = TOPIC_KEY_PREFIX + tdef.name
        self.catalog.write_object(key, tdef.to_json())
        self.store.catalog_put(key, tdef.to_json())
        return tdef

    def delete(self, name: str) -> None:
        if self.lookup(name) is None:
            raise fail(C.MQRC_UNKNOWN_OBJECT_NAME)
        key = TOPIC_KEY_PREFIX + name
        self.catalog.write_object(key, None)
        self.store.catalog_delete(key)

    def names(self) -> list[str]:
        keys = self.store.catalog_all()
        found = {k[len(TOPIC_KEY_PREFIX) :] for k in keys if k.startswith(TOPIC_KEY_PREFIX)}
        return sorted(found | {BASE_TOPIC})
