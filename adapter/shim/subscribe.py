"""MQSUB, MQSUBRQ and MQCLOSE of a subscription handle.

MQSUB resolves the full topic string (core/topicstring.py: the topic object's TOPICSTR
and ObjectString), applies the MQSD rules (core/subrules.py), then creates, resumes or
alters the subscription of its SubName (shim/subscriptions.py) and returns the handle of
its destination queue with the subscription handle:

- managed: a dynamic queue from SYSTEM.NDURABLE.MODEL.QUEUE (temporary: it goes with
  the handle that created it, at MQCLOSE of that queue handle, MQDISC, or by the sweep of
  dead creators) or SYSTEM.DURABLE.MODEL.QUEUE (permanent: it goes with the subscription,
  MQCO_REMOVE_SUB), named SYSTEM.MANAGED.NDURABLE.* / SYSTEM.MANAGED.DURABLE.* as MQ
  names them; the models are defined on first use when nobody did (as a queue manager
  has them from its creation);
- unmanaged: the queue the application opened and passed (Hobj).

The topic's attributes (shim/topics.py, resolved at the node the subscription's topic
string reaches before its first wildcard) apply: SUB(DISABLED) is MQRC_SUB_INHIBITED
(2503, <https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q045080_.html>) for any
MQSUB; DURSUB(NO) is MQRC_DURABILITY_NOT_ALLOWED (2436) for creating a durable one;
MDURMDL / MNDURMDL name the model queues of managed ones.

IBM: MQSUB <https://www.ibm.com/docs/en/SSFKSJ_9.0.0/com.ibm.mq.ref.dev.doc/q101930_.html>,
"Example 2: Managed MQ subscriber" <https://www.ibm.com/docs/SSFKSJ_9.4.0/develop/q026610_.html>,
SYSTEM.DURABLE.MODEL.QUEUE in the system objects
<https://www.ibm.com/support/knowledgecenter/SSFKSJ_9.0.0/com.ibm.mq.ref.con.doc/q081620_.html>.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from adapter.core import cmqc as C
from adapter.core.calls import SubRequest
from adapter.core.errors import MQMIError, fail
from adapter.core.selector import compile_selector
from adapter.core.subrules import (
    Access,
    access,
    removes_subscription,
    sub_close_options_error,
    sub_options_error,
)
from adapter.core.topicattrs import Effective, first_wildcard
from adapter.core.topicstring import SEPARATOR, Wildcard, pattern_error, wildcard_of
from adapter.shim.catalog import QueueDef
from adapter.shim.handle import QueueHandle
from adapter.shim.publish import Publisher
from adapter.shim.services import Services
from adapter.shim.subscriptions import SubDef, Subscriptions, generated_key

log = logging.getLogger("mqk.shim.subscribe")

DURABLE_MODEL = "SYSTEM.DURABLE.MODEL.QUEUE"
NDURABLE_MODEL = "SYSTEM.NDURABLE.MODEL.QUEUE"
MANAGED_NAME = {True: "SYSTEM.MANAGED.DURABLE.*", False: "SYSTEM.MANAGED.NDURABLE.*"}
# How MQSUB opens a managed queue for the application (input, browse, inquire).
MANAGED_OPEN = C.MQOO_INPUT_AS_Q_DEF | C.MQOO_BROWSE | C.MQOO_INQUIRE

OpenQueue = Callable[[str, int, str], QueueHandle]


class SubscriptionHandle:
    """MQSUB's Hsub: holds the subscription (its lease) until MQCLOSE."""

    def __init__(
        self, svc: Services, subs: Subscriptions, publisher: Publisher, sd: SubDef, owner: tuple
    ) -> None:
        self.svc = svc
        self.subs = subs
        self.publisher = publisher
        self.sd = sd
        self.hobj, self.handle_id = owner
        self.name = sd.topic
        self.options = 0
        self.closed = False
        svc.handles[self.hobj] = self
        subs.held.add(sd.key)

    def __index__(self) -> int:
        return self.hobj

    def renew(self) -> bool:
        """The pump keeps the lease: the subscription is in use (durable) or alive
        (non-durable) while this handle is open."""
        if self.closed:
            return True
        if not self.subs.lease(self.sd.key, self.handle_id):
            return False
        if self.subs.lookup(self.sd.key) is None:
            # The store lost it (or a sweep took it while this process was stalled past
            # its lease): the handle is open, so the subscription is still wanted.
            log.warning("subscription %r was lost by the store; registered again", self.sd.key)
            self.subs.put(self.sd)
        return True

    def request(self, action: int) -> int:
        """MQSUBRQ(MQSR_ACTION_PUBLICATION): the retained publications again; returns
        how many were sent (MQSRO NumPubs)."""
        if self.closed or self.svc.closed:
            raise fail(C.MQRC_HCONN_ERROR if self.svc.closed else C.MQRC_HOBJ_ERROR)
        if action != C.MQSR_ACTION_PUBLICATION:
            raise fail(C.MQRC_OPTIONS_ERROR)
        self.svc.run.check()
        n = self.publisher.deliver_retained(self.sd)
        if not n:
            raise fail(C.MQRC_NO_RETAINED_MSG)
        return n

    def close(self, options: int = C.MQCO_NONE) -> None:
        svc = self.svc
        if svc.closed:
            raise fail(C.MQRC_HCONN_ERROR)
        if self.closed:
            raise fail(C.MQRC_HOBJ_ERROR)
        reason = sub_close_options_error(options, durable=self.sd.durable)
        if reason is not None:
            raise fail(reason)
        if removes_subscription(options, durable=self.sd.durable):
            self.subs.remove(self.sd)
            if self.sd.managed and self.sd.durable:
                qdef = svc.catalog.lookup(self.sd.queue, refresh=True)
                if qdef is not None:
                    svc.dynamic.delete(qdef)  # with its publications, as MQ does
        else:
            self.subs.release(self.sd.key, self.handle_id)
        self.closed = True
        self.subs.held.discard(self.sd.key)


def _node(topic: str, wildcard: Wildcard) -> str:
    """The topic string whose attributes a subscription takes: its own, or the levels
    before its first wildcard."""
    at = first_wildcard(topic, wildcard)
    if at is None:
        return topic
    if wildcard is Wildcard.TOPIC:
        return SEPARATOR.join(topic.split(SEPARATOR)[:at])
    return topic[:at].rpartition(SEPARATOR)[0]


def topic_attributes(publisher: Publisher, topic: str, wildcard: Wildcard) -> Effective:
    eff = publisher.topics.effective(_node(topic, wildcard))
    if eff.sub_inhibited:
        raise fail(C.MQRC_SUB_INHIBITED)
    return eff


def ensure_model(svc: Services, durable: bool, name: str) -> str:
    """The model queue of a managed subscription: the system ones are defined at first
    use when absent (a queue manager has them from its creation); a model another
    MDURMDL / MNDURMDL names must exist (its MQOPEN says 2085)."""
    if name not in (DURABLE_MODEL, NDURABLE_MODEL):
        return name
    if svc.catalog.lookup(name) is None:
        kind = C.MQQDT_PERMANENT_DYNAMIC if durable else C.MQQDT_TEMPORARY_DYNAMIC
        qdef = QueueDef(name=name, queue_type=C.MQQT_MODEL, definition_type=kind)
        try:
            svc.catalog.define(qdef)
        except Exception:
            if svc.catalog.lookup(name, refresh=True) is None:  # not another's define
                raise
    return name


def subscribe(
    svc: Services,
    subs: Subscriptions,
    publisher: Publisher,
    req: SubRequest,
    topic: str,
    queue: QueueHandle | None,
    open_queue: OpenQueue,
) -> tuple[SubscriptionHandle, QueueHandle]:
    """MQSUB with the full topic string `topic` already resolved (Connection.subscribe).
    Returns the subscription handle and the destination queue's handle."""
    options = req.options
    reason = sub_options_error(options, req.sub_name, has_queue=queue is not None)
    if reason is not None:
        raise fail(reason)
    wildcard = wildcard_of(options)
    reason = pattern_error(topic, wildcard)
    if reason is not None:
        raise fail(reason)
    compile_selector(req.selection_string or None)  # 2459 / 2519 before anything changes
    named = bool(req.sub_name.strip())
    key = req.sub_name.rstrip(" ") if named else generated_key()
    owner = svc.new_handle_id()
    # The lease first, then the definition: a DEFINE / DELETE SUB holds the lease while
    # it writes (shim/subadmin.py), so what is read here is not half-changed, and a
    # subscription another MQSUB or DEFINE SUB is making now is in use (2429).
    in_use = named and not subs.lease(key, owner[1])
    existing = subs.lookup(key) if named else None
    try:
        return _access(
            svc, subs, publisher, req, key, topic, queue, open_queue, owner, existing, in_use
        )
    except BaseException:
        if not in_use:  # a lease this call took goes with its failure
            subs.release(key, owner[1])
        raise


def _access(
    svc: Services,
    subs: Subscriptions,
    publisher: Publisher,
    req: SubRequest,
    key: str,
    topic: str,
    queue: QueueHandle | None,
    open_queue: OpenQueue,
    owner: tuple,
    existing: SubDef | None,
    in_use: bool,
) -> tuple[SubscriptionHandle, QueueHandle]:
    options = req.options
    wildcard = wildcard_of(options)
    outcome = access(options, exists=existing is not None, in_use=in_use)
    if not isinstance(outcome, Access):
        raise fail(outcome)
    if outcome is Access.CREATED:
        sd, queue = _create(
            svc, subs, publisher, req, key, topic, wildcard.value, queue, open_queue, owner
        )
        if not options & (C.MQSO_NEW_PUBLICATIONS_ONLY | C.MQSO_PUBLICATIONS_ON_REQUEST):
            try:
                publisher.deliver_retained(sd)
            except MQMIError as err:
                # 2526 on MQSUB: "the subscription is not created" (nor its managed
                # queue).
                _undo_create(svc, subs, sd, queue)
                raise err from None
    else:
        sd = existing  # type: ignore[assignment]  # exists: access said so
        topic_attributes(publisher, sd.topic, Wildcard(sd.wildcard))
        if outcome is Access.ALTERED:
            sd = _altered(sd, req, queue)
            subs.put(sd)
        if queue is None:
            queue = open_queue(sd.queue, MANAGED_OPEN, "")
    handle = SubscriptionHandle(svc, subs, publisher, sd, owner)
    log.info("MQSUB %s %r on %r -> %s", outcome.value, sd.name, sd.topic, sd.queue)
    return handle, queue


def _undo_create(svc: Services, subs: Subscriptions, sd: SubDef, queue: QueueHandle) -> None:
    subs.remove(sd)
    if sd.managed:
        queue.close()
        qdef = svc.catalog.lookup(sd.queue, refresh=True)
        if qdef is not None:
            svc.dynamic.delete(qdef)


def _create(
    svc: Services,
    subs: Subscriptions,
    publisher: Publisher,
    req: SubRequest,
    key: str,
    topic: str,
    wildcard: str,
    queue: QueueHandle | None,
    open_queue: OpenQueue,
    owner: tuple,
) -> tuple[SubDef, QueueHandle]:
    options = req.options
    durable = bool(options & C.MQSO_DURABLE)
    managed = bool(options & C.MQSO_MANAGED)
    if not subs.lease(key, owner[1]):  # taken between the lookup and now
        raise fail(C.MQRC_SUBSCRIPTION_IN_USE)
    eff = topic_attributes(publisher, topic, Wildcard(wildcard))
    if durable and not eff.durable_allowed:
        raise fail(C.MQRC_DURABILITY_NOT_ALLOWED)
    if managed:
        model = str(eff["model_durable_q" if durable else "model_non_durable_q"])
        queue = open_queue(ensure_model(svc, durable, model), MANAGED_OPEN, MANAGED_NAME[durable])
    assert queue is not None  # unmanaged without a queue: sub_options_error said 2019
    sub_id = svc.new_msg_id()
    correl = req.sub_correl_id if options & C.MQSO_SET_CORREL_ID else sub_id
    sd = SubDef(
        key=key,
        name=req.sub_name.rstrip(" "),
        topic=topic,
        wildcard=wildcard,
        durable=durable,
        managed=managed,
        queue=queue.name,
        correl_id=correl.hex(),
        user_data=req.sub_user_data,
        selection=req.selection_string,
        options=options,
        pub_priority=req.pub_priority,
        created_ms=svc.clock.now_ms(),
        sub_id=sub_id.hex(),
        topic_object=req.object_name.rstrip(" "),
    )
    try:
        subs.put(sd)
    except BaseException:
        if managed:
            queue.close()
        raise
    return sd, queue


def _altered(sd: SubDef, req: SubRequest, queue: QueueHandle | None) -> SubDef:
    """MQSO_ALTER: the fields an application may change (SubUserData, SubCorrelId with
    MQSO_SET_CORREL_ID, PubPriority, MQSO_PUBLICATIONS_ON_REQUEST, an unmanaged
    subscription's queue)."""
    options = req.options
    changes = {
        "user_data": req.sub_user_data,
        "pub_priority": req.pub_priority,
        "options": (sd.options & ~C.MQSO_PUBLICATIONS_ON_REQUEST)
        | (options & C.MQSO_PUBLICATIONS_ON_REQUEST),
    }
    if options & C.MQSO_SET_CORREL_ID:
        changes["correl_id"] = req.sub_correl_id.hex()
    if queue is not None and not sd.managed:
        changes["queue"] = queue.name
    return SubDef(**{**sd.__dict__, **changes})
