"""A connection's publish/subscribe: its topic objects, MQOPEN of a topic (the full
topic string), MQSUB (resolving the topic, then shim/subscribe.py), and the end of its
subscriptions at MQDISC. Built by `Connection`, which checks the connection-wide rules
(run state, MAXHANDS, context authority) before it asks."""

from __future__ import annotations

import logging
from collections.abc import Callable

from adapter.core import cmqc as C
from adapter.core.calls import SubRequest
from adapter.core.dynamic import DEFAULT_DYNAMIC_Q_NAME
from adapter.core.errors import MQMIError, fail
from adapter.core.openrules import INPUT
from adapter.core.topicstring import combine, combine_error
from adapter.shim.handle import QueueHandle
from adapter.shim.publish import Publisher, TopicHandle
from adapter.shim.services import Services
from adapter.shim.subscribe import SubscriptionHandle, subscribe
from adapter.shim.subscriptions import Subscriptions
from adapter.shim.topics import TopicObjects

log = logging.getLogger("mqk.shim.pubsub")

# What MQOPEN of a topic may not ask: it is opened to publish (subscribe with MQSUB).
_NOT_FOR_TOPIC = INPUT | C.MQOO_BROWSE | C.MQOO_INQUIRE | C.MQOO_SET | C.MQOO_SAVE_ALL_CONTEXT

Open = Callable[..., QueueHandle]


class PubSub:
    def __init__(self, svc: Services) -> None:
        self.svc = svc
        self.subs = Subscriptions(svc.qmgr, svc.store, svc.catalog, svc.clock)
        self.topics = TopicObjects(svc.catalog, svc.store)
        self.publisher = Publisher(svc, self.subs, self.topics)

    def resolve_topic(self, object_name: str, object_string: str) -> str:
        """The full topic string of an MQOD / MQSD (core/topicstring.combine): 2085 for a
        topic object that does not exist or neither field, 2425 / 2441 as MQ."""
        name = object_name.rstrip(" ")
        base = None
        if name:
            tdef = self.topics.lookup(name)
            if tdef is None:
                raise fail(C.MQRC_UNKNOWN_OBJECT_NAME)
            base = tdef.topic_string
        reason = combine_error(base, object_string)
        if reason is not None:
            raise fail(reason)
        return combine(base, object_string)

    def open_topic(self, object_name: str, object_string: str, options: int) -> TopicHandle:
        """MQOPEN of a topic for output: input, browse, inquire, set or save-context
        options are MQRC_OPTION_NOT_VALID_FOR_TYPE (MQOPEN, "Opening a topic"). There is
        no MQINQ of a topic handle: MQINQ's objects are the queue manager, queues,
        namelists and process definitions
        (<https://www.ibm.com/docs/en/SSFKSJ_9.4.0/refdev/q101840_.html>)."""
        if options & _NOT_FOR_TOPIC:
            raise fail(C.MQRC_OPTION_NOT_VALID_FOR_TYPE)
        topic = self.resolve_topic(object_name, object_string)
        return TopicHandle(self.svc, self.publisher, topic, object_name.rstrip(" "), options)

    def subscribe(
        self, req: SubRequest, queue: QueueHandle | None, open_queue: Open
    ) -> tuple[SubscriptionHandle, QueueHandle, str]:
        """MQSUB. MQSO_RESUME / MQSO_ALTER without the topic fields go by SubName."""
        try:
            topic = self.resolve_topic(req.object_name, req.object_string)
        except MQMIError:
            if req.options & C.MQSO_CREATE or not req.sub_name.strip():
                raise
            topic = ""  # resuming: the subscription's own topic string

        def open_for_sub(name: str, options: int, dynamic_name: str) -> QueueHandle:
            return open_queue(name, options, dynamic_name or DEFAULT_DYNAMIC_Q_NAME)

        handle, qh = subscribe(self.svc, self.subs, self.publisher, req, topic, queue, open_for_sub)
        return handle, qh, handle.sd.topic

    def end(self) -> None:
        """MQDISC and the end of the application: the non-durable subscriptions of the
        connection's open handles go, its durable ones are left free for a RESUME."""
        try:
            self.publisher.counts.flush()
        except Exception:
            log.warning("writing the delivery counters failed", exc_info=True)
        for handle in list(self.svc.handles.values()):
            if isinstance(handle, SubscriptionHandle) and not handle.closed:
                try:
                    if handle.sd.durable:
                        self.subs.release(handle.sd.key, handle.handle_id)
                    else:
                        self.subs.remove(handle.sd)
                    handle.closed = True
                    self.subs.held.discard(handle.sd.key)
                except Exception:
                    log.warning("ending subscription %r failed", handle.sd.key, exc_info=True)
