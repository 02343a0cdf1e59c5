"""Publishing: MQOPEN of a topic for output, and MQPUT / MQPUT1 to it, which fans the
publication out to every matching subscription's queue.

A publication outside syncpoint that MQ need not deliver all or nothing (its PMSGDLV /
NPMSGDLV ALLAVAIL, or ALLDUR with no durable subscription among its copies) is written
without a transaction of its own (shim/pubdelivery.py:direct). Any other MQPUT on a
topic handle is one Kafka transaction holding the publication's own
record on `mqk.<QM>._pub` (key = the full topic string, for Kafka-native consumers),
one copy per matching subscription on its destination queue's priority topic, and, with
MQPMO_RETAIN, the record of the compacted `mqk.<QM>._retained`. Outside syncpoint the
transaction is a short one of its own (on a second transactional producer of the
connection, so a unit of work the application has open is not touched); under
syncpoint it is the caller's unit of work and everything appears at MQCMIT. Each
matching subscription therefore gets each publication exactly once, in the order of
the publisher's puts.

The publication goes through the MQPUT rules once (shim/put.py, against the topic
string's attributes resolved through the topic tree, shim/topics.py: PUB(DISABLED) is
MQRC_PUT_INHIBITED, DEFPSIST / DEFPRTY / DEFPRESP are what MQPER_PERSISTENCE_AS_TOPIC_DEF,
MQPRI_PRIORITY_AS_TOPIC_DEF and MQPMO_RESPONSE_AS_TOPIC_DEF take; the queue manager's
MAXMSGL); a wildcard subscription kept off by a WILDCARD(BLOCK) topic object gets none;
each copy is the stored envelope with its own MsgId, the subscription's CorrelId, its
PubPriority, and the properties MQ adds ("Publish/subscribe message properties":
MQTopicString, MQSubUserData when the subscription has user data, MQIsRetained on a
retained publication delivered to a new subscription or on request,
<https://www.ibm.com/docs/en/ibm-mq/9.4.x?topic=properties-publishsubscribe-message>).
A subscription with a SelectionString gets the publications it selects
(core/selector.py over the publication, as MQGET's selection reads a message). A
subscription made with MQSO_PUBLICATIONS_ON_REQUEST gets nothing at publication time:
only what MQSUBRQ asks for (the retained publication). MQPMO_SUPPRESS_REPLYTO blanks the
copies' ReplyToQ / ReplyToQMgr; MQPMO_NOT_OWN_SUBS skips the subscriptions the
publishing connection holds open (MQPMO Options).

No matching subscription is MQRC_NONE, or MQRC_NO_SUBS_MATCHED (2550, a warning) with
MQPMO_WARN_IF_NO_SUBS_MATCHED (MQPMO Options,
<https://www.ibm.com/docs/en/ibm-mq/9.4.x?topic=mqpmo-options-mqlong>).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any

from mqk_avro import codec

from adapter.core import cmqc as C
from adapter.core.calls import PutRequest, PutResult
from adapter.core.errors import MQMIError, fail
from adapter.core.topicattrs import Effective, blocked
from adapter.core.topicstring import Wildcard, matches
from adapter.shim import naming, records
from adapter.shim.catalog import QueueDef
from adapter.shim.log import TopicSpec, read_range
from adapter.shim.pubcopy import copy_envelope, data_topic
from adapter.shim.pubdelivery import DeliveryCheck, direct, fails_publication, send_direct
from adapter.shim.pubstats import PubCounts
from adapter.shim.put import Putter
from adapter.shim.records import Record
from adapter.shim.selection import message_lookup
from adapter.shim.services import Services
from adapter.shim.subscriptions import SubDef, Subscriptions
from adapter.shim.topics import TopicObjects
from adapter.shim.uow import UnitsOfWork

log = logging.getLogger("mqk.shim.publish")

TOPIC_HEADER = "mqk.topic"
BASE_TOPIC = "SYSTEM.BASE.TOPIC"
# Which attribute says what a failed delivery does: PMSGDLV (persistent), NPMSGDLV.
_DLV = {True: "pm_delivery", False: "npm_delivery"}
# Options of a publication that are not a queue put's.
_PUB_ONLY = (
    C.MQPMO_RETAIN | C.MQPMO_WARN_IF_NO_SUBS_MATCHED | C.MQPMO_NOT_OWN_SUBS | C.MQPMO_SCOPE_QMGR
)


class _NoDepth:
    """A topic has no depth: the publication's own put never counts against one."""

    def depth(self) -> int:
        return 0

    def depth_with_uncommitted(self, exclude_owner: str = "") -> int:
        return 0


class Publisher:
    """A connection's publishing side: the subscriptions it matches against and the
    transactional producer of its publications outside syncpoint."""

    def __init__(self, svc: Services, subs: Subscriptions, topics: TopicObjects) -> None:
        self.svc = svc
        self.subs = subs
        self.topics = topics
        self.state = svc.store.pubsub()
        self._txn: UnitsOfWork | None = None
        self._pub_topic = naming.pub_topic(svc.qmgr)
        self._retained_topic = naming.retained_topic(svc.qmgr)
        self._topics_made = False
        self.counts = PubCounts(self.state, svc.conn_id)
        self.check = DeliveryCheck(svc)
        subs.on_recover.append(self.restore_retained)

    def _own_txn(self) -> UnitsOfWork:
        if self._txn is None:
            self._txn = self.svc.side_units_of_work("pub")
        return self._txn

    def restore_retained(self) -> int:
        """The store lost its state: put the retained publications back from the
        compacted `_retained` topic (the latest record per topic string). Returns how
        many were missing."""
        topic = self._retained_topic
        if not self.svc.log.topic_exists(topic):
            return 0
        high = self.svc.log.end_offsets([(topic, 0)])[(topic, 0)]
        latest: dict[str, bytes] = {}

        def on_record(msg: Any) -> None:
            latest[msg.key().decode()] = msg.value()

        read_range(self.svc.log, {(topic, 0): (0, high)}, on_record, timeout_s=30)
        missing = {t: v for t, v in latest.items() if self.state.retained_get(t) is None}
        for t, v in missing.items():
            self.state.retained_put(t, v)
        if missing:
            log.warning("restored %d retained publications from %s", len(missing), topic)
        return len(missing)

    def ensure_topics(self) -> None:
        if not self._topics_made:
            self.svc.log.create_topics(
                {
                    self._pub_topic: TopicSpec(1),
                    self._retained_topic: TopicSpec(1, {"cleanup.policy": "compact"}),
                }
            )
            self._topics_made = True
            self.svc.disk.watch([self._pub_topic, self._retained_topic], 1)

    def no_space(self, retain: bool) -> bool:
        """Whether the publication's own record (and the retained one) would go to a
        nearly full log directory (shim/diskguard.py)."""
        blocked = self.svc.disk.blocked
        return bool(blocked) and (
            self._pub_topic in blocked or (retain and self._retained_topic in blocked)
        )

    def topic_def(self, eff: Effective) -> QueueDef:
        """The topic string's attributes (`eff`) as the MQPUT rules read them."""
        qm = self.svc.qmgr_def()
        return QueueDef(
            name=BASE_TOPIC,
            max_msg_length=qm.max_msg_length,
            max_depth=999_999_999,
            def_persistence=int(eff["def_persistence"]),
            def_priority=int(eff["def_priority"]),
            def_put_response=int(eff["def_put_response"]),
            put_inhibited=eff.pub_inhibited,
        )

    # -- fan-out -----------------------------------------------------------------------
    def copies(
        self,
        topic: str,
        envs: list[dict[str, Any]],
        *,
        retained: bool = False,
        skip: frozenset[str] | set[str] = frozenset(),
        eff: Effective | None = None,
    ) -> tuple[dict[str, list[Record]], list[str], int, bool]:
        """Every matching subscription's copy of the publication's pieces, by queue,
        the keys of the subscriptions given a copy, how many subscriptions matched, and
        whether a durable subscription is among those given one (`skip`: keys not to
        deliver to; `eff`: the topic's attributes: WILDCARD(BLOCK)
        nodes, USEDLQ, PMSGDLV / NPMSGDLV for a queue that refuses its copy,
        shim/pubdelivery.py; MQRC_PUBLICATION_FAILURE when that fails it)."""
        eff = eff if eff is not None else self.topics.effective(topic, in_call=True)
        persistent = envs[0]["Persistence"] == C.MQPER_PERSISTENT
        by_queue: dict[str, list[Record]] = {}
        delivered: list[str] = []
        matched = 0
        durable = False
        for sd in self.subs.matching(topic, in_call=True):
            if sd.key in skip or blocked(sd.topic, Wildcard(sd.wildcard), eff.blocks):
                continue
            if sd.on_request:
                matched += 1
                continue
            got = self._copy_for(sd, topic, envs, retained=retained)
            if got is None:
                continue
            matched += 1
            queue, recs = got
            if recs:
                by_queue.setdefault(queue, []).extend(recs)
                delivered.append(sd.key)
                durable = durable or sd.durable
            elif fails_publication(persistent, sd.durable, int(eff[_DLV[persistent]])):
                raise fail(C.MQRC_PUBLICATION_FAILURE)
        return by_queue, delivered, matched, durable

    def _copy_for(
        self, sd: SubDef, topic: str, envs: list[dict[str, Any]], *, retained: bool
    ) -> tuple[str, list[Record]] | None:
        """The queue and records of `sd`'s copy (None: its selector refuses the
        publication). A queue that refuses the copy: the dead-letter queue's records
        when USEDLQ lets them go there, else none (the delivery failed, logged)."""
        selector = self.subs.selector(sd)
        if selector is not None and not selector.matches(message_lookup(envs[0])):
            return None
        qdef = self.svc.catalog.lookup(sd.queue, in_call=True)
        copies = [
            copy_envelope(env, topic, sd, qdef, self.svc.new_msg_id(), retained=retained)
            for env in envs
        ]
        reason = self.check.refusal(qdef, copies)
        if reason is not None:
            use_dlq = self.topics.effective(topic, in_call=True)["use_dlq"] == C.MQUSEDLQ_YES
            moved = self.check.dead_letter(copies, reason, sd.queue) if use_dlq else None
            if moved is not None:
                return moved
            log.warning(
                "subscription %r: its queue %s refused a publication on %r (reason %d)",
                sd.name or sd.key[1:],
                sd.queue,
                topic,
                reason,
            )
            return sd.queue, []
        out = []
        for copy in copies:
            data = data_topic(self.svc.qmgr, sd.queue, min(copy["Priority"], 9))
            key = records.record_key(copy["GroupId"], copy["MsgId"])
            out.append((data, key, codec.encode(copy), records.headers_of(copy)))
        return sd.queue, out

    def send(
        self,
        by_queue: dict[str, list[Record]],
        own: list[Record],
        in_uow: bool,
        after_commit: Callable[[], None] | None = None,
    ) -> None:
        """One transaction: the caller's unit of work (`in_uow`), else a short one;
        `after_commit` runs when it commits (never if it backs out)."""
        txn = self.svc.txn if in_uow else self._own_txn()
        uow = txn.begin()
        if after_commit is not None:
            uow.after_commit.append(after_commit)
        try:
            txn.put(None, own, counted=in_uow)
            for queue, recs in by_queue.items():
                txn.put(queue, recs, counted=False)
        except MQMIError:
            if not in_uow:
                txn.backout()
            raise
        if not in_uow:
            try:
                txn.commit()
            except MQMIError as err:
                log.warning("publication backed out: %s", err)
                raise fail(C.MQRC_PUBLICATION_FAILURE) from err

    def deliver_retained(self, sd: SubDef) -> int:
        """MQSUB (unless MQSO_NEW_PUBLICATIONS_ONLY) and MQSUBRQ: the retained
        publications on topics `sd` matches, marked MQIsRetained, sent at once. Returns
        how many; MQRC_RETAINED_NOT_DELIVERED when one can reach neither the
        subscription's queue nor the dead-letter queue."""
        wildcard = Wildcard(sd.wildcard)
        found = []
        raw = self.state.retained_get(sd.topic)
        if raw is not None:
            found.append((sd.topic, raw))
        if not found or set(sd.topic) & set("#+*?"):
            found = [
                (t, v)
                for t, v in sorted(self.state.retained_all().items())
                if matches(sd.topic, t, wildcard)
            ]
        n = 0
        for topic, value in found:
            if blocked(sd.topic, wildcard, self.topics.effective(topic).blocks):
                continue
            got = self._copy_for(sd, topic, [codec.decode(value)], retained=True)
            if got is None:  # the subscription's selector does not select it
                continue
            if not got[1]:
                # Neither the subscription's queue nor the dead-letter queue took it:
                # MQRC_RETAINED_NOT_DELIVERED (2526, "2526 (09DE) (RC2526)",
                # <https://www.ibm.com/docs/SSFKSJ_9.3.0/reference/q045270_.html>).
                raise fail(C.MQRC_RETAINED_NOT_DELIVERED)
            self.svc.pump.send_sync(got[0], got[1])
            n += 1
        return n


class TopicHandle:
    """An open topic (MQOPEN with ObjectType MQOT_TOPIC) for output."""

    def __init__(
        self, svc: Services, publisher: Publisher, topic: str, object_name: str, options: int
    ) -> None:
        self.svc = svc
        self.publisher = publisher
        self.topic = topic
        # The topic object (ResolvedQName of the put: at most 48 characters, as a name).
        self.name = object_name or BASE_TOPIC
        self.object_name = object_name
        self.options = options
        self.remote = None  # a topic is never a remote queue's route (QueueHandle.remote)
        self.hobj, self.handle_id = svc.new_handle_id()
        self.closed = False
        publisher.ensure_topics()
        qdef = publisher.topic_def(publisher.topics.effective(topic))
        self.putter = Putter(svc, qdef, C.MQOO_OUTPUT, _NoDepth())  # type: ignore[arg-type]
        svc.handles[self.hobj] = self

    def __index__(self) -> int:
        return self.hobj

    def renew(self) -> bool:
        return True  # a topic handle holds no registration

    def put(self, req: PutRequest, payload: bytes, *, put1: bool = False) -> PutResult:
        svc = self.svc
        if self.closed or svc.closed:
            raise fail(C.MQRC_HCONN_ERROR if svc.closed else C.MQRC_HOBJ_ERROR)
        svc.run.check(req.options & C.MQPMO_FAIL_IF_QUIESCING)
        if not put1 and not self.options & C.MQOO_OUTPUT:
            raise fail(C.MQRC_NOT_OPEN_FOR_OUTPUT)
        opts = req.options
        in_uow = bool(opts & C.MQPMO_SYNCPOINT)
        if in_uow:
            svc.txn.begin()  # MQRC_BACKED_OUT if it can no longer commit
            svc.txn.check_room(svc.qmgr_def().max_uncommitted_msgs)
        built: list[Record] = []
        inner = replace(req, options=opts & ~(_PUB_ONLY | C.MQPMO_SYNCPOINT))
        # The topic's attributes now (an ALTER TOPIC applies to open handles, as an
        # ALTER QLOCAL does), MAXMSGL as the queue manager's now.
        eff = self.publisher.topics.effective(self.topic, in_call=True)
        self.putter.qdef = self.publisher.topic_def(eff)
        result = self.putter.put(inner, payload, put1=put1, deliver=built.extend)
        if not built:  # refused, as an asynchronous put is (PUB(DISABLED), DEFPRESP(ASYNC))
            return result
        if self.publisher.no_space(bool(opts & C.MQPMO_RETAIN)):
            if self.putter._async_response(opts):  # DEFPRESP(ASYNC) or MQPMO_ASYNC_RESPONSE
                svc.pump.refuse_async(self.name, C.MQRC_Q_SPACE_NOT_AVAILABLE)
                return PutResult({})
            raise fail(C.MQRC_Q_SPACE_NOT_AVAILABLE)
        envs = [codec.decode(value) for _t, _k, value, _h in built]
        if opts & C.MQPMO_SUPPRESS_REPLYTO:  # the copies name no reply-to queue
            for env in envs:
                env["ReplyToQ"] = env["ReplyToQMgr"] = ""
        # MQPMO_NOT_OWN_SUBS: none to the subscriptions this connection holds.
        skip = set(self.publisher.subs.held) if opts & C.MQPMO_NOT_OWN_SUBS else frozenset()
        by_queue, delivered, matched, durable = self.publisher.copies(
            self.topic, envs, skip=skip, eff=eff
        )
        own = [self._own_record(value, headers) for _t, _k, value, headers in built]
        retain = bool(opts & C.MQPMO_RETAIN)
        if retain:
            # The last piece stands for the topic's retained publication (one piece: a
            # publication is not segmented unless the application segments it).
            _t, _k, value, headers = built[-1]
            own.append((naming.retained_topic(svc.qmgr), self.topic.encode(), value, headers))
        # The store's cache of a retained publication and the delivery counters follow
        # the transaction's outcome.
        counted = partial(
            self.publisher.counts.published, self.topic, delivered, svc.clock.now_ms(), len(envs)
        )
        retained = partial(self.publisher.state.retained_put, self.topic, built[-1][2])

        def committed() -> None:
            if retain:
                retained()
            counted()

        persistent = envs[0]["Persistence"] == C.MQPER_PERSISTENT
        if direct(in_uow, int(eff[_DLV[persistent]]), durable):
            asynchronous = bool(opts & C.MQPMO_ASYNC_RESPONSE) or (
                not opts & C.MQPMO_SYNC_RESPONSE
                and eff["def_put_response"] == C.MQPRT_ASYNC_RESPONSE
            )
            send_direct(svc, by_queue, own, asynchronous=asynchronous)
            committed()
        else:
            if svc.pump.puts_in_flight:  # earlier asynchronous publications go first
                svc.pump.barrier()
            self.publisher.send(by_queue, own, in_uow, committed)
        if not matched and opts & C.MQPMO_WARN_IF_NO_SUBS_MATCHED and result.warning is None:
            return PutResult(None, C.MQRC_NO_SUBS_MATCHED, result.properties)
        return result

    def _own_record(self, value: bytes, headers: Any) -> Record:
        tagged = list(headers or []) + [(TOPIC_HEADER, self.topic.encode())]
        return (naming.pub_topic(self.svc.qmgr), self.topic.encode(), value, tagged)

    def close(self, options: int = C.MQCO_NONE) -> tuple[int, int]:
        if self.svc.closed:
            raise fail(C.MQRC_HCONN_ERROR)
        if options & ~C.MQCO_NONE:
            raise fail(C.MQRC_OPTION_NOT_VALID_FOR_TYPE)  # no delete or subscription option
        self.closed = True
        return self.putter.close()
