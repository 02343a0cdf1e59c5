"""Subscriptions: their definitions, the in-process index publishers match against, the
leases of the handles that have them open, and the sweep of the non-durable ones whose
process died.

Where a subscription lives:
- its definition in the state store's `subs` hash (redis_store.py), keyed by its
  SubName (an unnamed non-durable one gets a generated key);
- a durable one also in the compacted catalog topic under `*SUB:<key>`, so it survives
  a loss of Redis: when the store has no subscriptions version (never set, or lost)
  the first connection that looks puts the durable ones back (`_recover`);
- the handle that has it open holds a lease on it (`subs.owner`), renewed by the
  connection's pump like an open queue handle's: a durable one with a live lease is in
  use (2429); a non-durable one lives as long as its handle (MQCLOSE, MQDISC) and,
  after a crash, until `sweep` finds its lease run out.

Publishers keep an index of every subscription (core/topicstring.SubscriptionIndex)
and update it when the store's subscriptions version changes, by the keys the store's
change log names since the version they hold (a full read only the first time, after
a gap, or for more than a thousand changes); the version is read
through the client-tracking cache (RedisStore.marks), so a publication pays no round
trip to learn nothing changed, and a subscription made by any process is matched by
every publication that starts after its MQSUB returned.
"""

from __future__ import annotations

import json
import logging
import threading
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass

from adapter import config
from adapter.core import cmqc as C
from adapter.core.selector import Selector, compile_selector
from adapter.core.topicstring import SubscriptionIndex, Wildcard
from adapter.shim.catalog import Catalog
from adapter.shim.clock import Clock
from adapter.shim.store import StateStore

log = logging.getLogger("mqk.shim.subscriptions")

SUB_KEY_PREFIX = "*SUB:"  # catalog topic key of a durable subscription
NOT_LEASED_GRACE_MS = 60_000  # a non-durable subscription never leased: its MQSUB died
_MAX_INCREMENTAL = 1_000  # more changed keys than this: one HGETALL beats the re-reads


@dataclass
class SubDef:
    """One subscription. `queue`: its destination queue; `correl_id`: hex of the
    CorrelId its publications carry; `options`: the MQSO_* it was made with."""

    key: str
    name: str
    topic: str
    wildcard: str
    durable: bool
    managed: bool
    queue: str
    correl_id: str
    user_data: str = ""
    selection: str = ""
    options: int = 0
    pub_priority: int = C.MQPRI_PRIORITY_AS_PUBLISHED
    created_ms: int = 0
    # DISPLAY SUB: MQSUBTYPE_API (MQSUB) or MQSUBTYPE_ADMIN (DEFINE SUB), the SUBID (hex;
    # "": older definitions, whose CorrelId stands for it), TOPICOBJ.
    sub_type: int = C.MQSUBTYPE_API
    sub_id: str = ""
    topic_object: str = ""
    altered_ms: int = 0  # ALTDATE / ALTTIME (0: never altered: the creation's)

    def to_json(self) -> bytes:
        return json.dumps(asdict(self), sort_keys=True).encode()

    @classmethod
    def from_json(cls, raw: bytes) -> SubDef:
        return cls(**json.loads(raw))

    @property
    def correl_bytes(self) -> bytes:
        return bytes.fromhex(self.correl_id)

    @property
    def subscription_id(self) -> str:
        """SUBID: when the queue manager made the CorrelId, the SubId is it (MQSD
        SubCorrelId: "the SubId is used as the DestinationCorrelId")."""
        return self.sub_id or self.correl_id

    @property
    def on_request(self) -> bool:
        return bool(self.options & C.MQSO_PUBLICATIONS_ON_REQUEST)


def generated_key() -> str:
    """An unnamed non-durable subscription's key. It starts with a null, which ends an
    MQCHARV SubName, so no application's SubName is ever one."""
    return "\0" + uuid.uuid4().hex


class Subscriptions:
    """The subscriptions of one queue manager as one connection sees them."""

    def __init__(self, qmgr: str, store: StateStore, catalog: Catalog, clock: Clock) -> None:
        self.qmgr = qmgr
        self.state = store.pubsub()
        self.catalog = catalog
        self.clock = clock
        self._lock = threading.Lock()  # the application's threads and the pump
        self._version: str | None = None
        self.rebuilds = 0  # full reads of every subscription (the tests count them)
        self._index = SubscriptionIndex()
        self._defs: dict[str, SubDef] = {}
        self._selectors: dict[str, Selector | None] = {}
        # Run when the store turns out to have lost the pub/sub state (no version):
        # the publisher puts the retained publications back (shim/publish.py).
        self.on_recover: list[Callable[[], None]] = []
        # Keys of the subscriptions this connection's open handles hold
        # (MQPMO_NOT_OWN_SUBS: its publications skip them).
        self.held: set[str] = set()

    # -- the index -------------------------------------------------------------------
    def _current(self, in_call: bool = False) -> None:
        version = self.state.version(in_call=in_call)
        if version is None:
            self._recover()
            version = self.state.version()
        if version == self._version:
            return
        if not self._apply_changes(version):
            self._rebuild(version)

    def _rebuild(self, version: str | None) -> None:
        index = SubscriptionIndex()
        defs = {}
        for key, raw in self.state.subs_all().items():
            sd = SubDef.from_json(raw)
            defs[key] = sd
            index.add(key, sd.topic, Wildcard(sd.wildcard))
        self._index, self._defs, self._version = index, defs, version
        self._selectors = {}
        self.rebuilds += 1

    def _apply_changes(self, version: str | None) -> bool:
        """Bring the index from the version it holds to `version` by the keys changed
        in between (the store's change log), re-reading only those; False when that
        cannot be done (no version held, the log does not reach back, too many)."""
        if self._version is None or version is None:
            return False
        held, target = int(self._version), int(version)
        if target < held:
            return False  # the store restarted its count (a loss): read everything
        changes = self.state.sub_changes(held)
        if changes is None or len(changes) > _MAX_INCREMENTAL:
            return False
        for key in dict.fromkeys(k for v, k in changes if v <= target):
            raw = self.state.sub_get(key)
            self._selectors.pop(key, None)
            if raw is None:
                self._index.remove(key)
                self._defs.pop(key, None)
            else:
                sd = SubDef.from_json(raw)
                self._defs[key] = sd
                self._index.add(key, sd.topic, Wildcard(sd.wildcard))
        self._version = version
        return True

    def matching(self, topic: str, *, in_call: bool = False) -> list[SubDef]:
        """The subscriptions a publication on `topic` reaches, in key order (every
        publisher fans out in the same order). `in_call`: the subscriptions as of the
        MQI call's start (its run-state read polled the tracking socket; redis_marks.py),
        which is all a publication asks."""
        with self._lock:
            self._current(in_call)
            return [self._defs[k] for k in sorted(self._index.match(topic))]

    def selector(self, sd: SubDef) -> Selector | None:
        with self._lock:
            if sd.key not in self._selectors:
                self._selectors[sd.key] = compile_selector(sd.selection or None)
            return self._selectors[sd.key]

    def lookup(self, key: str) -> SubDef | None:
        """The subscription's definition now (from the store, not the index)."""
        raw = self.state.sub_get(key)
        return None if raw is None else SubDef.from_json(raw)

    # -- changes ---------------------------------------------------------------------
    def put(self, sd: SubDef) -> None:
        """Create or alter: durable ones go to the catalog topic first, so a definition
        in the store is always one Kafka also holds."""
        if sd.durable:
            self.catalog.write_object(SUB_KEY_PREFIX + sd.key, sd.to_json())
        self.state.sub_put(sd.key, sd.to_json())

    def remove(self, sd: SubDef) -> None:
        if sd.durable:
            self.catalog.write_object(SUB_KEY_PREFIX + sd.key, None)
        self.state.sub_delete(sd.key)
        log.info("subscription %r on %r removed", sd.name or sd.key[1:], sd.topic)

    def lease(self, key: str, owner: str) -> bool:
        return self.state.lease(key, owner, config.OPEN_LEASE_MS)

    def release(self, key: str, owner: str) -> None:
        self.state.release(key, owner)

    # -- after a loss of the store, and after a crash ------------------------------------
    def _recover(self) -> None:
        """The store has no subscriptions version: it was never set, or the store lost
        everything. Put the durable subscriptions back from the catalog topic (the
        non-durable ones died with their handles' leases)."""
        restored = 0
        for raw in self.catalog.read_objects(SUB_KEY_PREFIX).values():
            sd = SubDef.from_json(raw)
            if self.state.sub_get(sd.key) is None:
                self.state.sub_put(sd.key, raw)
                restored += 1
        for action in self.on_recover:
            action()
        if self.state.init_version() and restored:
            log.warning("restored %d durable subscriptions from the catalog topic", restored)

    def sweep(self) -> list[SubDef]:
        """Remove the non-durable subscriptions whose handle's lease ran out (its
        process ended without MQCLOSE or MQDISC). Returns them: their managed queues are
        temporary dynamic queues, which the dynamic-queue sweep deletes."""
        now = self.clock.now_ms()
        leases = self.state.leases()
        gone = []
        for key, raw in self.state.subs_all().items():
            sd = SubDef.from_json(raw)
            if sd.durable:
                continue
            lease = leases.get(key)
            expired = lease[1] <= now if lease else now - sd.created_ms > NOT_LEASED_GRACE_MS
            if expired:
                log.warning(
                    "non-durable subscription on %r: its handle ended without MQCLOSE; removing it",
                    sd.topic,
                )
                self.state.sub_delete(key)
                gone.append(sd)
        return gone
