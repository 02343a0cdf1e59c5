"""Queue definitions (DEFINE QLOCAL / QMODEL / QALIAS, ALTER, DELETE): durable in a
compacted Kafka topic, cached in the state store. Creating a local queue creates its
ten priority topics and its ack log; a model queue is a definition only (no topics:
MQOPEN of it creates a dynamic local queue, see dynamic.py); so is an alias queue
(MQOPEN resolves it to its TARGET, see core/resolution.py). Queue types and
DefinitionType: <https://www.ibm.com/docs/zh-tw/SSFKSJ_9.2.0/refdev/q103160_.html>.
A name is one object whatever its type: DEFINE of a name that exists as another type
is MQRCCF_OBJECT_ALREADY_EXISTS (4001) without REPLACE and MQRCCF_OBJECT_WRONG_TYPE
(4002, <https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q048210_.html>) with it.
DEFINE QALIAS: <https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=queues-define-qalias-define-new-alias-queue>;
the alias attributes and FORCE (changing the TARGET of an alias some application has
open needs it, else the command fails): ALTER queues
<https://www.ibm.com/docs/zh/SSFKSJ_9.4.0/refadmin/q085330_.html>; without it this gives
MQRCCF_OBJECT_OPEN_FORCE (3210,
<https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q047310_.html>).

DEFINE, ALTER and DELETE run holding the claim of the object's name (nameclaims.py), so
two processes defining one new queue at once make one queue: the second waits, then
finds it (4001, or REPLACE of that same incarnation), and no handle opened on the first
gets MQRC_Q_DELETED. Topic objects, subscriptions and channels take the same claim of
their catalog keys (`claimed`).

Every definition has a mark in the queue's state (`QueueDef.mark()`: which DEFINE made
the queue, and a digest of its attributes); DELETE QLOCAL leaves the mark DELETED. Open
handles and this cache compare the mark on each call, which costs no round trip while it
is unchanged (store.QueueState.definition), so an ALTER or a DELETE made by any
connection of any process is seen by the next call of every handle."""

from __future__ import annotations

import hashlib
import json
import uuid
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass, fields, replace

from adapter import config
from adapter.core import cmqc as C
from adapter.core.errors import fail
from adapter.core.propctl import PROPCTL_VALUES
from adapter.core.text import object_name_error
from adapter.shim import naming
from adapter.shim.log import Log, Producer, TopicSpec, produce, read_range
from adapter.shim.nameclaims import NameClaims
from adapter.shim.qmgrdef import ALTERABLE as QMGR_ALTERABLE
from adapter.shim.qmgrdef import QMGR_KEY, QMgrDef, is_queue_key
from adapter.shim.store import DELETED, UOW_LOCK_OWNER, StateStore

# Kafka's default record limit is ~1 MB; a segment plus its envelope must fit under it.
DEFAULT_SEGMENT_SIZE = 900 * 1024
_TOPIC_HEADROOM = 64 * 1024  # envelope, key and batch overhead above the payload
_DYNAMIC = (C.MQQDT_PERMANENT_DYNAMIC, C.MQQDT_TEMPORARY_DYNAMIC)


@dataclass
class QueueDef:
    """Queue attributes, with MQ's names in the comments and MQ's defaults."""

    name: str
    max_msg_length: int = 4 * 1024 * 1024  # MAXMSGL
    max_depth: int = 5000  # MAXDEPTH
    def_persistence: int = C.MQPER_NOT_PERSISTENT  # DEFPSIST
    def_priority: int = 0  # DEFPRTY
    msg_delivery_sequence: int = C.MQMDS_PRIORITY  # MSGDLVSQ
    partitions: int = 1  # per priority topic; 1 gives MQ's strict FIFO
    segment_size: int = DEFAULT_SEGMENT_SIZE  # largest physical message on Kafka
    backout_threshold: int = 0  # BOTHRESH
    backout_requeue_q: str = ""  # BOQNAME
    def_put_response: int = 1  # DEFPRESP: MQPRT_SYNC_RESPONSE (1) or ASYNC (2)
    def_read_ahead: bool = False  # DEFREADA: send non-persistent messages ahead of gets
    get_inhibited: bool = False  # GET(DISABLED)
    put_inhibited: bool = False  # PUT(DISABLED)
    shareable: bool = True  # SHARE / NOSHARE: may several handles open it for input
    # DEFSOPT: what MQOO_INPUT_AS_Q_DEF opens. None: the type's default. IBM's DEFINE
    # QLOCAL gives DEFSOPT(SHARED) on Multiplatforms (EXCL is z/OS's), DEFINE QMODEL
    # gives DEFSOPT(EXCL) on every platform, so a dynamic queue made from the default
    # model opens exclusively, as it does on MQ:
    # https://www.ibm.com/docs/en/SSFKSJ_9.4.0/refadmin/q085710_.html (QLOCAL, note 4),
    # https://www.ibm.com/docs/en/SSFKSJ_9.4.0/refadmin/q085720_.html (QMODEL).
    def_input_exclusive: bool | None = None
    property_control: int = C.MQPROP_COMPATIBILITY  # PROPCTL (adapter/core/propctl.py)
    description: str = ""  # DESCR (MQCA_Q_DESC)
    # Triggering (TRIGGER/NOTRIGGER, TRIGTYPE, TRIGDPTH, TRIGMPRI, TRIGDATA, PROCESS,
    # INITQ), with MQ's defaults: kept, answered by MQINQ and changed by MQSET and ALTER,
    # but no trigger message is generated yet.
    trigger_control: int = C.MQTC_OFF
    trigger_type: int = C.MQTT_FIRST
    trigger_depth: int = 1
    trigger_msg_priority: int = 0
    trigger_data: str = ""
    process_name: str = ""
    initiation_q_name: str = ""
    # DISTL: whether distribution-list messages may be stored (MQSET may change it;
    # distribution lists themselves are not implemented).
    dist_lists: int = C.MQDL_NOT_SUPPORTED
    # MONQ (MQIA_MONITORING_Q): MQMON_Q_MGR (MQ's default: the queue manager's MONQ
    # decides), MQMON_OFF, or LOW / MEDIUM / HIGH (all one level here: adapter/core/qstats.py).
    monitoring_q: int = C.MQMON_Q_MGR
    # Which DEFINE made the queue (set by the catalog): a queue deleted and defined again
    # is another queue to the handles still open on the old one.
    incarnation: str = ""
    queue_type: int = C.MQQT_LOCAL  # QLOCAL, QMODEL or QALIAS (MQIA_Q_TYPE)
    # DEFTYPE / MQIA_DEFINITION_TYPE. None: the type's default, MQQDT_PREDEFINED for a
    # local queue (DEFINE QLOCAL), MQQDT_TEMPORARY_DYNAMIC for a model queue (MQ's
    # DEFTYPE(TEMPDYN)). Records written before these fields decode as predefined
    # local queues.
    definition_type: int | None = None
    # A dynamic queue: the state id of the handle whose MQOPEN created it (also what
    # tells this incarnation of the name from a later one).
    creator: str = ""
    # An alias queue's TARGET (TARGQ, MQCA_BASE_Q_NAME): the queue it resolves to at
    # MQOPEN. Blank is MQ's default (MQOPEN then gives MQRC_UNKNOWN_ALIAS_BASE_Q).
    target: str = ""
    # USAGE of a local or model queue: MQUS_NORMAL, or MQUS_TRANSMISSION for a
    # transmission queue (its messages carry an MQXQH: adapter/core/xqh.py).
    usage: int = C.MQUS_NORMAL
    # A local definition of a remote queue (QREMOTE): RNAME, RQMNAME and XMITQ
    # (MQCA_REMOTE_Q_NAME, MQCA_REMOTE_Q_MGR_NAME, MQCA_XMIT_Q_NAME). RNAME blank makes
    # it a queue-manager alias (core/resolution.py).
    remote_q_name: str = ""
    remote_q_mgr_name: str = ""
    xmit_q_name: str = ""

    def __post_init__(self) -> None:
        if self.definition_type is None:
            model = self.queue_type == C.MQQT_MODEL
            self.definition_type = C.MQQDT_TEMPORARY_DYNAMIC if model else C.MQQDT_PREDEFINED
        if self.def_input_exclusive is None:
            self.def_input_exclusive = self.queue_type == C.MQQT_MODEL

    @property
    def is_model(self) -> bool:
        return self.queue_type == C.MQQT_MODEL

    @property
    def is_alias(self) -> bool:
        return self.queue_type == C.MQQT_ALIAS

    @property
    def is_remote(self) -> bool:
        return self.queue_type == C.MQQT_REMOTE

    @property
    def has_storage(self) -> bool:
        """A local queue has topics and messages; a model or an alias is a definition."""
        return self.queue_type == C.MQQT_LOCAL

    @property
    def is_dynamic(self) -> bool:
        return self.queue_type == C.MQQT_LOCAL and self.definition_type in _DYNAMIC

    @property
    def is_temporary(self) -> bool:
        return self.is_dynamic and self.definition_type == C.MQQDT_TEMPORARY_DYNAMIC

    def to_json(self) -> bytes:
        return json.dumps(asdict(self), sort_keys=True).encode()

    def mark(self) -> str:
        """The definition mark: '<incarnation>:<digest of the attributes>'."""
        return f"{self.incarnation}:{_digest(self.to_json())}"

    @classmethod
    def from_json(cls, data: bytes) -> QueueDef:
        raw = json.loads(data)
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in raw.items() if k in known})

    def validate(self) -> None:
        bad_name = object_name_error(self.name, C.MQ_Q_NAME_LENGTH)
        if bad_name is not None:
            raise ValueError(f"queue name: {bad_name}")
        if self.msg_delivery_sequence not in (C.MQMDS_PRIORITY, C.MQMDS_FIFO):
            raise ValueError("msg_delivery_sequence must be MQMDS_PRIORITY or MQMDS_FIFO")
        if not 0 <= self.def_priority <= 9:
            raise ValueError("def_priority must be 0-9")
        if self.def_persistence not in (C.MQPER_NOT_PERSISTENT, C.MQPER_PERSISTENT):
            raise ValueError("def_persistence must be MQPER_NOT_PERSISTENT or MQPER_PERSISTENT")
        if self.partitions < 1 or self.max_depth < 0 or self.max_msg_length < 0:
            raise ValueError("partitions must be >= 1, max_depth and max_msg_length >= 0")
        if not self.segment_size >= 16:
            raise ValueError("segment_size must be at least 16 bytes")
        if self.property_control not in PROPCTL_VALUES:
            raise ValueError("property_control must be an MQPROP_* value")
        if self.queue_type not in (C.MQQT_LOCAL, C.MQQT_MODEL, C.MQQT_ALIAS, C.MQQT_REMOTE):
            raise ValueError("queue_type must be MQQT_LOCAL, MQQT_MODEL, MQQT_ALIAS or MQQT_REMOTE")
        remote = (self.remote_q_name, self.remote_q_mgr_name, self.xmit_q_name)
        if any(remote) and not self.is_remote:
            raise ValueError("RNAME, RQMNAME and XMITQ are attributes of a remote queue")
        if max(len(self.remote_q_name), len(self.xmit_q_name)) > C.MQ_Q_NAME_LENGTH:
            raise ValueError(f"remote_q_name, xmit_q_name: at most {C.MQ_Q_NAME_LENGTH}")
        if len(self.remote_q_mgr_name) > C.MQ_Q_MGR_NAME_LENGTH:
            raise ValueError(f"remote_q_mgr_name: at most {C.MQ_Q_MGR_NAME_LENGTH}")
        if self.usage not in (C.MQUS_NORMAL, C.MQUS_TRANSMISSION):
            raise ValueError("usage must be MQUS_NORMAL or MQUS_TRANSMISSION")
        xmitq = self.usage == C.MQUS_TRANSMISSION
        if xmitq and self.queue_type not in (C.MQQT_LOCAL, C.MQQT_MODEL):
            raise ValueError("USAGE(XMITQ) is an attribute of a local or model queue")
        if len(self.target) > C.MQ_Q_NAME_LENGTH or (self.target and not self.is_alias):
            raise ValueError("target is the TARGET of an alias queue, 0-48 characters")
        if (self.is_alias or self.is_remote) and self.definition_type != C.MQQDT_PREDEFINED:
            raise ValueError("an alias or remote queue is predefined")
        if self.is_model and self.definition_type not in _DYNAMIC:
            raise ValueError("a model queue's definition_type is TEMPDYN or PERMDYN")
        if not self.is_model and self.definition_type not in (C.MQQDT_PREDEFINED, *_DYNAMIC):
            raise ValueError("definition_type must be an MQQDT_* value")
        if len(self.description) > C.MQ_Q_DESC_LENGTH:
            raise ValueError(f"description (DESCR) is at most {C.MQ_Q_DESC_LENGTH} characters")
        if len(self.trigger_data) > C.MQ_TRIGGER_DATA_LENGTH:
            raise ValueError(f"trigger_data is at most {C.MQ_TRIGGER_DATA_LENGTH} characters")
        if max(len(self.process_name), len(self.initiation_q_name)) > C.MQ_Q_NAME_LENGTH:
            raise ValueError(f"process_name and initiation_q_name: at most {C.MQ_Q_NAME_LENGTH}")
        if self.trigger_control not in (C.MQTC_OFF, C.MQTC_ON):
            raise ValueError("trigger_control must be MQTC_OFF or MQTC_ON")
        if self.trigger_type not in (C.MQTT_NONE, C.MQTT_FIRST, C.MQTT_EVERY, C.MQTT_DEPTH):
            raise ValueError("trigger_type must be an MQTT_* value")
        if self.trigger_depth < 1 or not 0 <= self.trigger_msg_priority <= 9:
            raise ValueError("trigger_depth must be >= 1 and trigger_msg_priority 0-9")
        if self.dist_lists not in (C.MQDL_SUPPORTED, C.MQDL_NOT_SUPPORTED):
            raise ValueError("dist_lists must be MQDL_SUPPORTED or MQDL_NOT_SUPPORTED")

    def topic_configs(self) -> dict[str, str]:
        largest = max(self.segment_size, self.max_msg_length) + _TOPIC_HEADROOM
        return {
            # Broker-assigned timestamps give one arrival clock across a queue's topics.
            "message.timestamp.type": "LogAppendTime",
            "max.message.bytes": str(largest),
            "retention.ms": "-1",
            "retention.bytes": "-1",
        }


def _digest(definition: bytes) -> str:
    return hashlib.blake2b(definition, digest_size=8).hexdigest()


_DEFAULT_QMGR_MARK = _digest(QMgrDef().to_json())
"""The definition mark of a queue manager object never altered (MQ's defaults)."""


def incarnation(mark: str) -> str:
    """The incarnation part of a definition mark."""
    return mark.split(":", 1)[0]


# Attributes ALTER QLOCAL may change on a queue that exists (the rest shape its topics).
ALTERABLE = frozenset(
    {
        "description",
        "monitoring_q",
        "max_msg_length",
        "max_depth",
        "def_persistence",
        "def_priority",
        "msg_delivery_sequence",
        "backout_threshold",
        "backout_requeue_q",
        "def_put_response",
        "def_read_ahead",
        "get_inhibited",
        "put_inhibited",
        "shareable",
        "def_input_exclusive",
        "property_control",
        "trigger_control",
        "trigger_type",
        "trigger_depth",
        "trigger_msg_priority",
        "trigger_data",
        "process_name",
        "initiation_q_name",
        "dist_lists",
        "usage",
    }
)
# The defaults an alias carries itself and gives to whoever opens it (the target's own
# are not used through the alias).
ALIAS_DEFAULTS = (
    "def_persistence",
    "def_priority",
    "def_put_response",
    "def_read_ahead",
    "property_control",
)
# Every attribute of an alias queue (DEFINE / ALTER QALIAS), besides its name and type.
ALIAS_ATTRIBUTES = frozenset(
    {*ALIAS_DEFAULTS, "get_inhibited", "put_inhibited", "description", "target"}
)
# Every attribute of a local definition of a remote queue (DEFINE / ALTER QREMOTE).
REMOTE_ATTRIBUTES = frozenset(
    {
        "def_persistence",
        "def_priority",
        "def_put_response",
        "put_inhibited",
        "description",
        "remote_q_name",
        "remote_q_mgr_name",
        "xmit_q_name",
    }
)


def open_transaction_records(log_backend: Log, qmgr: str, qdef: QueueDef) -> int:
    """Records of Kafka transactions still open on the queue's topics: its partitions'
    high watermarks past their last stable offsets (a transaction's records, and any
    committed ones behind its first, so an upper bound while one runs)."""
    parts = [
        (naming.data_topic(qmgr, qdef.name, p), part)
        for p in naming.PRIORITIES
        for part in range(qdef.partitions)
    ]
    stable = log_backend.end_offsets(parts)
    high = log_backend.end_offsets(parts, committed=False)
    return sum(max(0, high[tp] - stable[tp]) for tp in parts)


def check_alias_attributes(names: set[str]) -> None:
    """ValueError for attributes an alias queue does not have (MAXDEPTH, SHARE, ...:
    they are the target's)."""
    foreign = names - ALIAS_ATTRIBUTES
    if foreign:
        raise ValueError(f"attributes an alias queue does not have: {sorted(foreign)}")


def through_alias(alias: QueueDef, target: QueueDef) -> QueueDef:
    """The definition a handle opened through `alias` works with: the target queue (its
    name, topics, limits, SHARE and DEFSOPT) with the alias's defaults, GET/PUT inhibited
    when either queue inhibits them (core/resolution.py)."""
    return replace(
        target,
        **{name: getattr(alias, name) for name in ALIAS_DEFAULTS},
        get_inhibited=alias.get_inhibited or target.get_inhibited,
        put_inhibited=alias.put_inhibited or target.put_inhibited,
    )


class Catalog:
    """DEFINE / ALTER / DELETE QLOCAL and name resolution: definitions are durable in
    the compacted catalog topic (tombstone on delete) and cached in the state store,
    which is refilled from Kafka when the store lost them, and in this connection (as
    long as the queue's definition mark says the cached one is current)."""

    def __init__(self, qmgr: str, log: Log, store: StateStore, producer: Producer) -> None:
        self.qmgr = qmgr
        self.log = log
        self.store = store
        self.producer = producer
        self._defs: dict[str, QueueDef] = {}
        self._marks: dict[str, str] = {}  # the definition mark each cached one came with
        self._qmgr_def: QMgrDef | None = None
        self._qmgr_mark: str | None = None
        self.claims = NameClaims(store)

    def claimed(self, key: str) -> AbstractContextManager[None]:
        """Hold the claim of catalog key `key` (a queue's name, or an object's key:
        `*TOPIC:<name>`, ...) for a block that checks and changes the object: one
        definer at a time across processes (nameclaims.py)."""
        return self.claims.held(key)

    def _write(self, name: str, value: bytes | None) -> None:
        self.claims.confirm(name)  # a definer that lost its claim writes nothing
        done: list = []
        topic = naming.catalog_topic(self.qmgr)
        produce(self.producer, topic, name.encode(), value, lambda err, _m: done.append(err))
        self.producer.flush(config.BROKEN_AFTER_S)
        if not done or done[0] is not None:
            raise fail(C.MQRC_CONNECTION_BROKEN) from RuntimeError(f"catalog write: {done}")

    def define(self, qdef: QueueDef, replace: bool = False, *, force: bool = False) -> QueueDef:
        """DEFINE (REPLACE). `force`: an alias's TARGET may change while it is open
        (FORCE); its open handles then get MQRC_OBJECT_CHANGED."""
        qdef.validate()
        with self.claimed(qdef.name):
            return self._define(qdef, replace, force)

    def _define(self, qdef: QueueDef, replace: bool, force: bool) -> QueueDef:
        existing = self.lookup(qdef.name, refresh=True)
        if existing is not None and not replace:
            raise fail(C.MQRCCF_OBJECT_ALREADY_EXISTS)
        if existing is not None and existing.queue_type != qdef.queue_type:
            raise fail(C.MQRCCF_OBJECT_WRONG_TYPE)  # a name is one object
        if (
            existing is not None
            and existing.is_alias
            and existing.target != qdef.target
            and not force
            and self.store.queue(qdef.name).open_counts()["handles"] > 0
        ):
            raise fail(C.MQRCCF_OBJECT_OPEN_FORCE)
        # REPLACE keeps the queue (its handles stay valid); a new queue is a new one.
        qdef.incarnation = existing.incarnation if existing else uuid.uuid4().hex[:12]
        self.log.create_topics(
            {naming.catalog_topic(self.qmgr): TopicSpec(1, {"cleanup.policy": "compact"})}
        )
        if qdef.has_storage:
            self._create_topics(qdef)
        self._write(qdef.name, qdef.to_json())
        self.store.catalog_put(qdef.name, qdef.to_json())
        st = self.store.queue(qdef.name)
        # After the cached definition: whoever sees the new mark reads the new one.
        mark = qdef.mark()
        st.set_definition(mark)
        # A new queue's state is complete (and empty) from the start.
        st.mark_complete()
        self._defs[qdef.name], self._marks[qdef.name] = qdef, mark
        return qdef

    def _create_topics(self, qdef: QueueDef) -> None:
        topics = {
            naming.data_topic(self.qmgr, qdef.name, p): TopicSpec(
                qdef.partitions, qdef.topic_configs()
            )
            for p in naming.PRIORITIES
        }
        topics[naming.ack_topic(self.qmgr, qdef.name)] = TopicSpec(1, {"retention.ms": "-1"})
        self.log.create_topics(topics)

    def alter(self, name: str, *, force: bool = False, **changes: object) -> QueueDef:
        """ALTER QLOCAL / QALIAS: change attributes of a queue that exists; open handles
        see the new definition on their next call (GET(DISABLED) / PUT(DISABLED) at
        once). ValueError for an attribute that cannot change (or is unknown). An alias's
        TARGET changes while the alias is open only with `force` (FORCE)."""
        with self.claimed(name):  # the attributes read are the ones changed
            return self._alter(name, force, changes)

    def _alter(self, name: str, force: bool, changes: dict[str, object]) -> QueueDef:
        qdef = self.lookup(name, refresh=True)
        if qdef is None:
            raise fail(C.MQRC_UNKNOWN_OBJECT_NAME)
        if qdef.is_alias:
            check_alias_attributes(set(changes))
        elif qdef.is_remote:
            foreign = set(changes) - REMOTE_ATTRIBUTES
            if foreign:
                raise ValueError(f"attributes a remote queue does not have: {sorted(foreign)}")
        else:
            unknown = set(changes) - ALTERABLE
            if unknown:
                raise ValueError(f"attributes that ALTER cannot change: {sorted(unknown)}")
        return self.define(replace(qdef, **changes), replace=True, force=force)

    def delete(self, name: str, purge: bool = False, *, force: bool = False) -> None:
        """DELETE QLOCAL / QMODEL / QALIAS (an alias is open while any handle opened
        through it is). Refused with MQRC_OBJECT_IN_USE while any handle of
        any connection has the queue open (its registration's lease running), as MQ
        refuses it (https://ibm.com/docs/SSFKSJ_9.3.0/refadmin/q085890_.html; runmqsc
        prints AMQ8148E); an MQOPEN racing the delete either makes it fail so or is
        refused with MQRC_UNKNOWN_OBJECT_NAME (store.begin_delete). `force` deletes it
        even so (a dynamic queue its MQCLOSE deletes): handles still open on it get
        MQRC_Q_DELETED on their next call."""
        with self.claimed(name):
            self._delete(name, purge, force)

    def _delete(self, name: str, purge: bool, force: bool) -> None:
        qdef = self.lookup(name, refresh=True)
        if qdef is None:
            raise fail(C.MQRC_UNKNOWN_OBJECT_NAME)
        st = self.store.queue(name)
        owner = uuid.uuid4().hex
        if not force and not st.begin_delete(owner, config.DELETE_LEASE_MS):
            raise fail(C.MQRC_OBJECT_IN_USE)
        try:
            if (not purge and st.depth() > 0) or (qdef.has_storage and self.has_uncommitted(qdef)):
                raise fail(C.MQRC_Q_NOT_EMPTY)
            self._write(name, None)
        except BaseException:
            st.end_delete(owner)  # nothing deleted: opens are allowed again
            raise
        # Deleted (durably) from here. drop_storage marks the state DELETED before the
        # topics go, so a handle whose lease ran out learns it instead of waiting on a
        # topic that is gone.
        self.drop_storage(qdef)
        self._forget_cached(name)

    def has_uncommitted(self, qdef: QueueDef) -> bool:
        """Whether any connection of any process has uncommitted puts or gets on the
        queue: a message locked under a running lease, puts a live unit of work holds
        (published at its first put to the queue: shim/uow.py keeps them until
        MQCMIT), or a Kafka transaction still open on one of its topics (the last
        stable offset short of the high watermark: a commit under way, or a unit of
        work past its buffer). MQ refuses to delete such a queue, PURGE or not (2055
        MQRC_Q_NOT_EMPTY: https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041250_.html)."""
        state = self.store.queue(qdef.name)
        if state.live_locks(UOW_LOCK_OWNER) > 0 or state.uncommitted_puts() > 0:
            return True
        return open_transaction_records(self.log, self.qmgr, qdef) > 0

    def forget(self, name: str) -> None:
        """The definition goes (tombstone, cache, mark DELETED) but not yet the messages
        (a dynamic queue closed inside a unit of work that touched it): the name is free,
        opens give MQRC_UNKNOWN_OBJECT_NAME and open handles MQRC_Q_DELETED."""
        with self.claimed(name):
            self._write(name, None)
            self.store.queue(name).set_definition(DELETED)
            self._forget_cached(name)

    def _forget_cached(self, name: str) -> None:
        self.store.catalog_delete(name)
        self._uncache(name)

    def _uncache(self, name: str) -> None:
        self._defs.pop(name, None)
        self._marks.pop(name, None)

    def drop_storage(self, qdef: QueueDef) -> None:
        """The queue's state (leaving the mark DELETED) and its topics (messages and ack
        log) go."""
        self.store.queue(qdef.name).drop()
        if qdef.has_storage:
            topics = [naming.data_topic(self.qmgr, qdef.name, p) for p in naming.PRIORITIES]
            topics.append(naming.ack_topic(self.qmgr, qdef.name))
            self.log.delete_topics(topics)

    def lookup(self, name: str, refresh: bool = False, *, in_call: bool = False) -> QueueDef | None:
        """The queue's current definition (None: no such queue). The cached one is used
        while the queue's definition mark is the one it came with (no round trip).
        `in_call`: the mark as of the MQI call's start (QueueState.definition)."""
        st = self.store.queue(name)
        mark = st.definition(in_call=in_call)
        if mark == DELETED:
            self._uncache(name)
            return None
        if not refresh and mark is not None and self._marks.get(name) == mark:
            return self._defs[name]
        raw = self._durable(name)
        if raw is None:
            self._uncache(name)
            return None
        qdef = QueueDef.from_json(raw)
        if mark is None:  # never written (an older definition), or the state was lost
            mark = qdef.mark()
            st.set_definition(mark)
        self._defs[name], self._marks[name] = qdef, mark
        return qdef

    def _durable(self, key: str) -> bytes | None:
        """The definition under `key` (a queue's name, or QMGR_KEY): the store's cache,
        else the catalog topic, put back into the cache when the store had lost it."""
        raw = self.store.catalog_get(key)
        if raw is None:
            raw = self._read_all().get(key)
            if raw is not None:
                self.store.catalog_put(key, raw)
        return raw

    def mark_of(self, name: str) -> str:
        """The definition mark the cached definition of `name` came with (after a
        lookup that found it)."""
        return self._marks[name]

    def _read_all(self) -> dict[str, bytes]:
        """Read the compacted catalog topic to its end (every durable definition: the
        queues' and the queue manager object's)."""
        topic = naming.catalog_topic(self.qmgr)
        if not self.log.topic_exists(topic):
            return {}
        high = self.log.end_offsets([(topic, 0)])[(topic, 0)]
        out: dict[str, bytes] = {}

        def on_record(msg) -> None:
            name = msg.key().decode()
            if msg.value() is None:  # a tombstone: DELETE QLOCAL
                out.pop(name, None)
            else:
                out[name] = msg.value()

        read_range(self.log, {(topic, 0): (0, high)}, on_record, timeout_s=30)
        return out

    def read_topic(self) -> dict[str, bytes]:
        """The durable queue definitions, by queue name (from Kafka)."""
        return {k: v for k, v in self._read_all().items() if is_queue_key(k)}

    # -- the queue manager object (ALTER QMGR) -------------------------------------
    def qmgr_def(self, *, in_call: bool = False) -> QMgrDef:
        """The queue manager's attributes. Cached while its definition mark (kept where
        a queue's is, under QMGR_KEY) is unchanged, so every call can ask at no round
        trip and an ALTER QMGR by any process is seen by the next call. `in_call`: the
        mark as of the MQI call's start (redis_marks.py)."""
        st = self.store.queue(QMGR_KEY)
        mark = st.definition(in_call=in_call)
        if mark is not None and mark == self._qmgr_mark and self._qmgr_def is not None:
            return self._qmgr_def
        if mark == _DEFAULT_QMGR_MARK:
            # Never altered: MQ's defaults, with no read of the catalog (every MQOPEN
            # asks for MAXHANDS, so a new connection's first open must not read Kafka).
            self._qmgr_def, self._qmgr_mark = QMgrDef(), mark
            return self._qmgr_def
        raw = self._durable(QMGR_KEY)
        qm = QMgrDef() if raw is None else QMgrDef.from_json(raw)
        if mark is None:  # never altered, or the state was lost
            mark = _digest(qm.to_json())
            st.set_definition(mark)
        self._qmgr_def, self._qmgr_mark = qm, mark
        return qm

    def alter_qmgr(self, **changes: object) -> QMgrDef:
        """ALTER QMGR: ValueError for an unknown attribute or a value MQ refuses."""
        unknown = set(changes) - QMGR_ALTERABLE
        if unknown:
            raise ValueError(f"not queue manager attributes: {sorted(unknown)}")
        with self.claimed(QMGR_KEY):  # two ALTER QMGRs at once: neither change is lost
            return self._alter_qmgr(changes)

    def _alter_qmgr(self, changes: dict[str, object]) -> QMgrDef:
        qm = replace(self.qmgr_def(), **changes)
        qm.validate()
        self.log.create_topics(
            {naming.catalog_topic(self.qmgr): TopicSpec(1, {"cleanup.policy": "compact"})}
        )
        raw = qm.to_json()
        self._write(QMGR_KEY, raw)
        self.store.catalog_put(QMGR_KEY, raw)
        mark = _digest(raw)
        self.store.queue(QMGR_KEY).set_definition(mark)
        self._qmgr_def, self._qmgr_mark = qm, mark
        return qm

    def names(self) -> list[str]:
        """Every queue defined (the durable list, from Kafka)."""
        return sorted(self.read_topic())

    # -- other objects kept in the catalog topic (topic objects, durable subscriptions,
    # channels: shim/topics.py, shim/subscriptions.py, shim/channeldef.py) -------------
    def write_object(self, key: str, raw: bytes | None) -> None:
        """Write (None: delete) a non-queue object's durable record under `key`, which
        starts with '*' so no queue name can be it (qmgrdef.is_queue_key), and in the
        store's cache."""
        if is_queue_key(key):
            raise ValueError(f"not an object key: {key!r}")
        self.log.create_topics(
            {naming.catalog_topic(self.qmgr): TopicSpec(1, {"cleanup.policy": "compact"})}
        )
        self._write(key, raw)
        if raw is None:
            self.store.catalog_delete(key)
        else:
            self.store.catalog_put(key, raw)

    def read_object(self, key: str) -> bytes | None:
        return self._durable(key)

    def read_objects(self, prefix: str) -> dict[str, bytes]:
        """The durable records whose key starts with `prefix` (from Kafka)."""
        return {k: v for k, v in self._read_all().items() if k.startswith(prefix)}

    def object_keys(self) -> list[str]:
        """Every non-queue object's key (the durable list, from Kafka)."""
        return sorted(k for k in self._read_all() if not is_queue_key(k))
