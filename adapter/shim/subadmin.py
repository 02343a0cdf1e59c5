"""Subscriptions administered: DEFINE SUB / DELETE SUB (durable subscriptions made by an
administrator, SUBTYPE(ADMIN), which a program can then MQSUB with MQSO_RESUME by
their name), and what DISPLAY SUB / SBSTATUS / TPSTATUS show: each subscription's
definition, its status (NUMMSGS, LMSGDATE / LMSGTIME, ACTCONN) and the topic tree's
status (its nodes' resolved attributes, RETAINED, SUBCOUNT, PUBCOUNT, the publishers).

IBM: DEFINE SUB <https://www.ibm.com/docs/en/ibm-mq/9.4.x?topic=reference-define-sub-define-durable-subscription>,
DELETE SUB <https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q085950_.html>
("remove a durable subscription ... For a managed destination, any unprocessed messages
left on the destination are removed"), DISPLAY SUB
<https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q086340_.html>,
DISPLAY SBSTATUS, DISPLAY TPSTATUS.
"""

from __future__ import annotations

import dataclasses
import logging
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from adapter.core import cmqc as C
from adapter.core import cmqcfc as F  # noqa: N812
from adapter.core.errors import fail
from adapter.core.selector import compile_selector
from adapter.core.topicattrs import Effective
from adapter.core.topicstring import Wildcard, matches, pattern_error
from adapter.shim.handle import QueueHandle
from adapter.shim.pubstats import PUBLISHER_ACTIVE_MS, split_publisher
from adapter.shim.pubsub import PubSub
from adapter.shim.subscribe import MANAGED_NAME, MANAGED_OPEN, ensure_model, topic_attributes
from adapter.shim.subscriptions import SUB_KEY_PREFIX, SubDef

log = logging.getLogger("mqk.shim.subadmin")

OpenQueue = Callable[[str, int, str], QueueHandle]


@dataclass(frozen=True)
class SubChange:
    """The attributes an ALTER SUB / Change or Copy Subscription gives (None: not
    given)."""

    dest: str | None = None
    dest_correl: bytes | None = None
    user_data: str | None = None
    pub_priority: int | None = None
    request_only: bool | None = None
    # Not alterable (only at their present value); a copy takes them.
    topic_object: str | None = None
    topic_string: str | None = None
    selector: str | None = None
    wildcard: Wildcard | None = None
    managed: bool | None = None


@dataclass(frozen=True)
class SubStatus:
    """DISPLAY SBSTATUS of one subscription."""

    sd: SubDef
    messages: int  # NUMMSGS
    last_ms: int  # LMSGDATE / LMSGTIME (0: none yet)
    active: str  # ACTCONN: the id of the handle that has it open ("" none)


@dataclass(frozen=True)
class Publisher:
    """DISPLAY TPSTATUS TYPE(PUB): one connection publishing on a topic string."""

    conn_id: str
    publications: int  # NUMPUBS
    last_ms: int  # LPUBDATE / LPUBTIME


@dataclass(frozen=True)
class TopicStatus:
    """DISPLAY TPSTATUS TYPE(TOPIC) of one topic string."""

    topic: str
    admin: str  # ADMIN: the topic object at this node ("" none)
    attributes: Effective
    retained: bool
    subs: list[SubDef]  # SUBCOUNT: the subscriptions whose topic string is this one
    publishers: list[Publisher]  # PUBCOUNT: those that published within the lease


class SubAdmin:
    def __init__(self, pubsub: PubSub, open_queue: OpenQueue) -> None:
        self.pubsub = pubsub
        self.svc = pubsub.svc
        self.subs = pubsub.subs
        self.open_queue = open_queue

    # -- DEFINE / DELETE SUB -----------------------------------------------------------
    def define(
        self,
        name: str,
        *,
        topic_object: str = "",
        topic_string: str = "",
        dest: str = "",
        managed: bool = False,
        selector: str = "",
        user_data: str = "",
        pub_priority: int = C.MQPRI_PRIORITY_AS_PUBLISHED,
        dest_correl: bytes | None = None,
        wildcard: Wildcard = Wildcard.TOPIC,
        request_only: bool = False,
        replace: bool = False,
    ) -> SubDef:
        """DEFINE SUB: a durable subscription SUBTYPE(ADMIN). 4001 when it exists and
        not `replace`; 2429 replacing one a handle has open; the topic as MQSUB resolves
        it (2085, 2425, 2503 SUB(DISABLED), 2436 DURSUB(NO)); DEST a queue that exists
        (2085), or a managed one made from the topic's MDURMDL.

        One definer at a time: the claim of `*SUB:<name>` (catalog.claimed) orders it
        with other DEFINE / ALTER / DELETE SUBs of the name, and the subscription's
        lease, held while it is written, with an MQSUB creating or resuming it (2429
        while one is)."""
        key = name.rstrip(" ")
        if not key or len(key) > C.MQ_TOPIC_STR_LENGTH:
            raise ValueError("SUB: a subscription name is required")
        topic = self.pubsub.resolve_topic(topic_object, topic_string)
        reason = pattern_error(topic, wildcard)
        if reason is not None:
            raise fail(reason)
        compile_selector(selector or None)
        with self.svc.catalog.claimed(SUB_KEY_PREFIX + key):
            existing = self.subs.lookup(key)
            if existing is not None and not replace:
                raise fail(F.MQRCCF_OBJECT_ALREADY_EXISTS)
            with self._leased(key):
                eff = topic_attributes(self.pubsub.publisher, topic, wildcard)
                if not eff.durable_allowed:
                    raise fail(C.MQRC_DURABILITY_NOT_ALLOWED)
                if managed:
                    queue = existing.queue if existing is not None and existing.managed else ""
                    queue = queue or self._managed_queue(eff)
                else:
                    if not dest:
                        raise ValueError("DEST is required unless DESTCLAS(MANAGED)")
                    qdef = self.svc.catalog.lookup(dest)
                    if qdef is None or not qdef.has_storage:
                        raise fail(C.MQRC_UNKNOWN_OBJECT_NAME)
                    queue = qdef.name
                if existing is not None:
                    sub_id, created = existing.subscription_id, existing.created_ms
                else:
                    sub_id, created = self.svc.new_msg_id().hex(), self.svc.clock.now_ms()
                options = C.MQSO_DURABLE | (C.MQSO_MANAGED if managed else 0)
                wild = C.MQSO_WILDCARD_CHAR if wildcard is Wildcard.CHAR else C.MQSO_WILDCARD_TOPIC
                options |= wild | (C.MQSO_PUBLICATIONS_ON_REQUEST if request_only else 0)
                sd = SubDef(
                    key=key,
                    name=key,
                    topic=topic,
                    wildcard=wildcard.value,
                    durable=True,
                    managed=managed,
                    queue=queue,
                    correl_id=dest_correl.hex() if dest_correl else sub_id,
                    user_data=user_data,
                    selection=selector,
                    options=options,
                    pub_priority=pub_priority,
                    created_ms=created,
                    sub_type=C.MQSUBTYPE_ADMIN,
                    sub_id=sub_id,
                    topic_object=topic_object.rstrip(" "),
                )
                self.subs.put(sd)
        log.info("DEFINE SUB(%s) on %r -> %s", key, topic, queue)
        return sd

    @contextmanager
    def _leased(self, key: str) -> Iterator[None]:
        """The subscription's lease for the block (2429 while a handle holds it, or an
        MQSUB is creating it): nobody resumes it half-changed."""
        owner = "admin:" + uuid.uuid4().hex
        if not self.subs.lease(key, owner):
            raise fail(C.MQRC_SUBSCRIPTION_IN_USE)
        try:
            yield
        finally:
            self.subs.release(key, owner)

    # -- ALTER SUB / PCF Change and Copy Subscription ----------------------------------
    def find(self, name: str = "", sub_id: bytes | None = None) -> SubDef:
        """The subscription a command names by SUB (SubName) and / or SUBID (both: they
        must agree); 2085 when none."""
        key = name.rstrip(" ")
        if key:
            sd = self.subs.lookup(key)
            if sd is None or (sub_id is not None and bytes.fromhex(sd.subscription_id) != sub_id):
                raise fail(C.MQRC_UNKNOWN_OBJECT_NAME)
            return sd
        for sd in self.listing("*"):
            if sub_id is not None and bytes.fromhex(sd.subscription_id) == sub_id:
                return sd
        raise fail(C.MQRC_UNKNOWN_OBJECT_NAME)

    def alter(self, sd: SubDef, change: SubChange) -> SubDef:
        """ALTER SUB / Change Subscription: the attributes given, the others kept.

        What may change (ALTER SUB, usage note 2,
        <https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q085420_.html>):
        DEST, DESTCORL, DESTQMGR, PUBPRTY, REQONLY, USERDATA (and EXPIRY, PSPROP,
        PUBACCT, PUBAPPID, SUBUSER, VARUSER, which mqk does not keep). TOPICOBJ, TOPICSTR,
        WSCHEMA, SELECTOR and DESTCLAS cannot: Change Subscription accepts them only at
        their present value (Change, Copy, and Create Subscription, TopicObject: accepted,
        but not at a value other than the original,
        <https://www.ibm.com/docs/en/SSFKSJ_9.4.0/refadmin/q087050_.html>), otherwise the
        reason MQSUB's MQSO_ALTER gives for the same change (2510 topic or wildcard, 2524 selector,
        2533 destination class). DEST is not checked ("no check is performed that the
        named DEST ... exists"): a publication that cannot reach it follows the topic's
        delivery rules (shim/pubdelivery.py). A managed subscription's queue is the
        queue manager's: a DEST for it changes the destination class (2533).

        Under the claim of the subscription's name (as DEFINE SUB), on its definition as
        it is then: two ALTERs at once lose neither's change (2085 if it went meanwhile)."""
        with self.svc.catalog.claimed(SUB_KEY_PREFIX + sd.key):
            current = self.subs.lookup(sd.key)
            if current is None:
                raise fail(C.MQRC_UNKNOWN_OBJECT_NAME)
            return self._alter(current, change)

    def _alter(self, sd: SubDef, change: SubChange) -> SubDef:
        if change.topic_string is not None or change.topic_object is not None:
            topic = self.pubsub.resolve_topic(
                change.topic_object if change.topic_object is not None else sd.topic_object,
                change.topic_string if change.topic_string is not None else "",
            )
            if topic != sd.topic:
                raise fail(C.MQRC_TOPIC_NOT_ALTERABLE)
        if change.wildcard is not None and change.wildcard.value != sd.wildcard:
            raise fail(C.MQRC_TOPIC_NOT_ALTERABLE)
        if change.selector is not None and change.selector != sd.selection:
            raise fail(C.MQRC_SELECTOR_NOT_ALTERABLE)
        if change.managed is not None and change.managed != sd.managed:
            raise fail(C.MQRC_DEST_CLASS_NOT_ALTERABLE)
        if change.dest is not None and sd.managed and change.dest.rstrip(" ") != sd.queue:
            raise fail(C.MQRC_DEST_CLASS_NOT_ALTERABLE)
        # The SUBID stays what it was when DESTCORL changes (older definitions kept it
        # only as their CorrelId).
        new = dataclasses.replace(sd, sub_id=sd.subscription_id, altered_ms=self.svc.clock.now_ms())
        if change.dest is not None and not sd.managed:
            if not change.dest.strip():
                raise ValueError("DEST: a queue name is required")
            new = dataclasses.replace(new, queue=change.dest.rstrip(" "))
        if change.dest_correl is not None:
            new = dataclasses.replace(new, correl_id=change.dest_correl.hex())
        if change.user_data is not None:
            new = dataclasses.replace(new, user_data=change.user_data)
        if change.pub_priority is not None:
            new = dataclasses.replace(new, pub_priority=change.pub_priority)
        if change.request_only is not None:
            options = new.options & ~C.MQSO_PUBLICATIONS_ON_REQUEST
            if change.request_only:
                options |= C.MQSO_PUBLICATIONS_ON_REQUEST
            new = dataclasses.replace(new, options=options)
        self.subs.put(new)
        log.info("ALTER SUB(%s) on %r -> %s", new.name or new.key[1:], new.topic, new.queue)
        return new

    def copy(self, sd: SubDef, to_name: str, change: SubChange, *, replace_it: bool) -> SubDef:
        """Copy Subscription: a new durable SUBTYPE(ADMIN) subscription named `to_name`
        with `sd`'s attributes where `change` gives none (as DEFINE SUB LIKE; a managed
        one gets a managed queue of its own, and a DESTCORL given to `sd` is copied)."""
        managed = sd.managed if change.managed is None else change.managed
        own_topic = change.topic_object is None and change.topic_string is None
        correl = change.dest_correl
        if correl is None and sd.correl_id != sd.subscription_id:
            correl = sd.correl_bytes
        priority = change.pub_priority
        with self.svc.catalog.claimed(SUB_KEY_PREFIX + to_name.rstrip(" ")):
            new = self.define(
                to_name,
                topic_object="" if own_topic else change.topic_object or "",
                topic_string=sd.topic if own_topic else change.topic_string or "",
                dest="" if managed else (change.dest if change.dest is not None else sd.queue),
                managed=managed,
                selector=sd.selection if change.selector is None else change.selector,
                user_data=sd.user_data if change.user_data is None else change.user_data,
                pub_priority=sd.pub_priority if priority is None else priority,
                dest_correl=correl,
                wildcard=Wildcard(sd.wildcard) if change.wildcard is None else change.wildcard,
                request_only=sd.on_request if change.request_only is None else change.request_only,
                replace=replace_it,
            )
            if own_topic and sd.topic_object:  # the same topic, through the same object
                new = dataclasses.replace(new, topic_object=sd.topic_object)
                self.subs.put(new)
        return new

    def _managed_queue(self, eff: Effective) -> str:
        """A permanent dynamic queue from the topic's MDURMDL, as MQSUB's managed
        durable subscriptions have; it goes with the subscription."""
        model = ensure_model(self.svc, True, str(eff["model_durable_q"]))
        handle = self.open_queue(model, MANAGED_OPEN, MANAGED_NAME[True])
        name = handle.name
        handle.close()
        return name

    def _active(self, key: str) -> str:
        lease = self.subs.state.leases().get(key)
        if lease is None or lease[1] <= self.svc.clock.now_ms():
            return ""
        return lease[0]

    def delete(self, name: str) -> None:
        """DELETE SUB: a durable subscription (2085 none of that name; 2429 while a
        handle has it open; MQRCCF_DURABILITY_NOT_ALLOWED for a non-durable one, which
        only its handle ends); a managed destination goes with its messages. Under the
        claim of its name and its lease, so no MQSUB resumes it while it goes."""
        key = name.rstrip(" ")
        with self.svc.catalog.claimed(SUB_KEY_PREFIX + key):
            sd = self.subs.lookup(key)
            if sd is None:
                raise fail(C.MQRC_UNKNOWN_OBJECT_NAME)
            if not sd.durable:
                raise fail(F.MQRCCF_DURABILITY_NOT_ALLOWED)
            with self._leased(sd.key):
                self.subs.remove(sd)
            if sd.managed:
                qdef = self.svc.catalog.lookup(sd.queue, refresh=True)
                if qdef is not None:
                    self.svc.dynamic.delete(qdef)

    # -- DISPLAY SUB / SBSTATUS ----------------------------------------------------------
    def listing(self, pattern: str = "*") -> list[SubDef]:
        """The subscriptions whose name matches the (generic) MQSC name, by name."""
        from_store = [SubDef.from_json(raw) for raw in self.subs.state.subs_all().values()]
        found = [sd for sd in from_store if _name_matches(pattern, sd.name)]
        return sorted(found, key=lambda sd: (sd.name, sd.key))

    def status(self, pattern: str = "*") -> list[SubStatus]:
        counts, _topics = self.pubsub.publisher.counts.read()
        out = []
        for sd in self.listing(pattern):
            n, last = counts.get(sd.key, (0, 0))
            out.append(SubStatus(sd, n, last, self._active(sd.key)))
        return out

    # -- DISPLAY TPSTATUS ----------------------------------------------------------------
    def topic_status(self, pattern: str) -> list[TopicStatus]:
        """The topic strings `pattern` names (itself, or with '#' / '+' the topic tree's
        nodes it matches: topic objects, subscriptions, retained publications and
        publications seen), in order."""
        _subs, per_publisher = self.pubsub.publisher.counts.read()
        now = self.svc.clock.now_ms()
        publishers: dict[str, list[Publisher]] = {}
        for key, (n, last) in per_publisher.items():
            topic, conn = split_publisher(key)
            if now - last <= PUBLISHER_ACTIVE_MS:
                publishers.setdefault(topic, []).append(Publisher(conn, n, last))
        all_subs = self.listing("*")
        retained = set(self.pubsub.publisher.state.retained_all())
        admin = {}
        for name in self.pubsub.topics.names():
            tdef = self.pubsub.topics.lookup(name)
            if tdef is not None and tdef.topic_string:
                admin.setdefault(tdef.topic_string, tdef.name)
        known = {*admin, *retained, *publishers, *(sd.topic for sd in all_subs)}
        wild = any(c in pattern for c in "#+")
        topics = sorted(t for t in known if matches(pattern, t) if wild or t == pattern)
        if not topics and not wild:
            raise fail(C.MQRC_UNKNOWN_OBJECT_NAME)  # no such node in the topic tree
        out = []
        for topic in topics:
            out.append(
                TopicStatus(
                    topic=topic,
                    admin=admin.get(topic, ""),
                    attributes=self.pubsub.topics.effective(topic),
                    retained=topic in retained,
                    subs=[sd for sd in all_subs if sd.topic == topic],
                    publishers=sorted(publishers.get(topic, []), key=lambda p: p.conn_id),
                )
            )
        return out


def _name_matches(pattern: str, name: str) -> bool:
    """MQSC's generic names: a trailing '*' matches any rest."""
    if pattern.endswith("*"):
        return name.startswith(pattern[:-1])
    return name == pattern
