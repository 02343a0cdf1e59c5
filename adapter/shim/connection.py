"""One MQ connection (MQCONN): the composition root of the engine.

It builds the backends (Kafka and Redis by default, or the ones given: the in-memory
backends of the fast tests), the pump, the unit of work, the catalog, and opens queue
handles on them. Servers that cannot be reached at MQCONN give MQRC_HOST_NOT_AVAILABLE
(2538), as an MQ client that cannot reach the host in its connection name
(https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q045380_.html); refused credentials
give MQRC_NOT_AUTHORIZED (2035) and a failed TLS handshake MQRC_SSL_INITIALIZATION_ERROR
(2393) (shim/authority.py); a connection that breaks afterwards gives
MQRC_CONNECTION_BROKEN (2009). Never a hang.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import uuid
import weakref
from typing import Any

import redis
from confluent_kafka import KafkaException

from adapter import config
from adapter.core import cmqc as C
from adapter.core import cmqcfc as F  # noqa: N812
from adapter.core.calls import SubRequest
from adapter.core.dynamic import DEFAULT_DYNAMIC_Q_NAME
from adapter.core.errors import fail
from adapter.core.openrules import (
    INPUT,
    needs_alternate_user_authority,
    needs_context_authority,
    open_options_error,
    remote_open_error,
)
from adapter.core.qmgrrules import RunState, handle_error
from adapter.core.qstats import QueueFigures, ResetFigures
from adapter.core.resolution import (
    RemoteRoute,
    ResolutionError,
    alias_base_error,
    resolve_remote,
)
from adapter.core.selector import compile_selector
from adapter.redact import redact
from adapter.shim import qstats
from adapter.shim.authority import QueueAuthority, not_authorized, tls_failed
from adapter.shim.catalog import Catalog, QueueDef
from adapter.shim.clock import SYSTEM, Clock
from adapter.shim.context import DEFAULT_CONTEXT
from adapter.shim.handle import QueueHandle
from adapter.shim.kafka_log import KafkaLog
from adapter.shim.log import Log
from adapter.shim.publish import TopicHandle
from adapter.shim.pubsub import PubSub
from adapter.shim.pump import AsyncStatus, Pump
from adapter.shim.qmgrdef import QMgrDef
from adapter.shim.redis_store import RedisStore
from adapter.shim.runstate import RunStateView
from adapter.shim.services import Services
from adapter.shim.store import NoEpochError, QueueState, StateStore
from adapter.shim.subadmin import SubAdmin
from adapter.shim.subscribe import SubscriptionHandle
from adapter.shim.topics import TopicDef
from adapter.shim.uow import UnitsOfWork

log = logging.getLogger("mqk.shim.connection")

# What a backend raises when its server cannot be reached or fails: an API face turns
# these into MQRC_CONNECTION_BROKEN.
BACKEND_ERRORS = (redis.RedisError, KafkaException, ConnectionError)
# The state store refused a write for want of memory (Redis at `maxmemory` with
# noeviction): the servers are there, a resource is short (MQRC_RESOURCE_PROBLEM at the
# face, adapter/pymqi/failures.py), and the call can be tried again once memory returns.
RESOURCE_ERRORS = (redis.exceptions.OutOfMemoryError,)

_LIVE: weakref.WeakSet = weakref.WeakSet()


@atexit.register
def _application_ended() -> None:
    """The application ends without MQDISC: its puts and consumption reach Kafka, and
    its unit of work is backed out, as MQ does for an application that ends normally
    without disconnecting. (Runs before interpreter finalisation, threads still alive.)"""
    for conn in list(_LIVE):
        try:
            conn.end_without_disconnect()
        except Exception:  # best effort at exit; leases cover the rest
            log.warning("ending connection %s at exit failed", conn.conn_id, exc_info=True)


class Connection:
    def __init__(
        self,
        qmgr: str,
        kafka_bootstrap: str | None = None,
        redis_url: str | None = None,
        transactional_id: str | None = None,
        *,
        log_backend: Log | None = None,
        store: StateStore | None = None,
        clock: Clock | None = None,
        credentials: tuple[str, str] | None = None,
    ) -> None:
        """`credentials`: MQCSP's user id and password, the Kafka SASL user on a cluster
        reached over SASL (KafkaLog); refused, MQCONN answers MQRC_NOT_AUTHORIZED."""
        if not qmgr or len(qmgr) > C.MQ_Q_MGR_NAME_LENGTH:
            raise fail(C.MQRC_Q_MGR_NAME_ERROR)
        self.qmgr = qmgr
        self.conn_id = uuid.uuid4().hex[:12]
        self.clock = clock or SYSTEM
        eps = config.endpoints(kafka_bootstrap, redis_url)
        try:
            self.log = log_backend or KafkaLog(eps.kafka_bootstrap, self.conn_id, credentials)
        except KafkaException as exc:
            if not not_authorized(exc):
                raise
            log.warning("MQCONN %s: the credentials are refused: %s", qmgr, redact(str(exc)))
            raise fail(C.MQRC_NOT_AUTHORIZED) from exc
        self.store = store or RedisStore(eps.redis_url, qmgr, self.clock.now_ms)
        try:
            self.store.ping()
            self.log.check_reachable()
        except BACKEND_ERRORS as exc:
            self._close_backends()
            if not_authorized(exc):  # refused credentials: MQ's answer is 2035
                log.warning("MQCONN %s: the servers refused the credentials: %s", qmgr,
                            redact(str(exc)))  # fmt: skip
                raise fail(C.MQRC_NOT_AUTHORIZED) from exc
            if tls_failed(exc):  # certificates refused in the handshake: 2393
                log.warning("MQCONN %s: the TLS handshake with the servers failed: %s", qmgr,
                            redact(str(exc)))  # fmt: skip
                raise fail(C.MQRC_SSL_INITIALIZATION_ERROR) from exc
            log.warning("MQCONN %s: the servers cannot be reached: %s", qmgr, redact(str(exc)))
            raise fail(C.MQRC_HOST_NOT_AVAILABLE) from exc
        self._closed = False
        self.authority = QueueAuthority(self.log, qmgr)
        self.run = RunStateView(self.store, self._backout_on_stop)
        try:
            self.run.check_connect()  # no new connection while quiescing or ending
            self._build(qmgr, transactional_id)
        except BaseException:
            # Nothing half-built stays behind: no pump thread, no open clients.
            self._closed = True
            pump = getattr(self, "pump", None)
            if pump is not None:
                pump.stop()
            self._close_backends()
            raise
        _LIVE.add(self)
        self._sweep_subscriptions()
        self._sweep_dynamic()

    def _build(self, qmgr: str, transactional_id: str | None) -> None:
        self.producer = self.log.producer()
        self.pump = Pump(qmgr, self.producer, self.store, on_tick=self._tick)
        # A stable transactional id (argument or MQK_TRANSACTIONAL_ID) lets a restarted
        # process fence its dead predecessor and abort its open transaction at once.
        self.txn = UnitsOfWork(
            qmgr,
            self.conn_id,
            self.log,
            self.store,
            self.pump,
            self.clock,
            transactional_id or os.environ.get("MQK_TRANSACTIONAL_ID"),
        )
        self.catalog = Catalog(qmgr, self.log, self.store, self.producer)
        self.services = Services(
            qmgr,
            self.conn_id,
            self.clock,
            self.log,
            self.store,
            self.pump,
            self.txn,
            self.catalog,
            self.run,
        )
        self.pubsub = PubSub(self.services)
        self.subadmin = SubAdmin(self.pubsub, self.open)  # DEFINE / DISPLAY SUB, TPSTATUS
        self.subs = self.pubsub.subs
        self.user = DEFAULT_CONTEXT["UserIdentifier"]
        self.may_set_context = config.context_authority(self.user)
        self.may_use_alternate_user = config.alternate_user_authority(self.user)
        self._renewed_at = self.clock.monotonic()
        self.pump.start()

    def _close_backends(self) -> None:
        for backend in (self.store, self.log):
            try:
                backend.close()
            except Exception:
                log.warning("closing %s after a failed MQCONN failed", backend, exc_info=True)

    def _backout_on_stop(self) -> None:
        """endmqm -i: the queue manager backs out the unit of work of every connection
        (at the connection's next call)."""
        if self.txn.current is not None:
            log.warning("the queue manager is ending immediately: unit of work backed out")
            self.backout()

    def _sweep_dynamic(self) -> None:
        """Temporary dynamic queues whose creator died go when a connection starts (and
        when a model queue is opened): see shim/dynamic.py. Best effort: a failure here
        must not fail MQCONN, the next connection sweeps again."""
        try:
            self.services.dynamic.sweep_if_due()
        except BACKEND_ERRORS:
            log.warning("sweeping dead temporary dynamic queues failed", exc_info=True)

    def _sweep_subscriptions(self) -> None:
        """Non-durable subscriptions whose handle's process died go when a connection
        starts (shim/subscriptions.py); their managed queues are temporary dynamic
        queues, which the dynamic-queue sweep deletes. Best effort, as that sweep."""
        try:
            self.pubsub.subs.sweep()
        except BACKEND_ERRORS:
            log.warning("sweeping dead non-durable subscriptions failed", exc_info=True)

    def _tick(self) -> None:
        if self.run.current() is not RunState.ENDING_IMMEDIATELY:
            # Ending immediately: its locks are no longer kept (the unit of work is
            # backed out at the next call, or by their leases running out).
            self.txn.renew()
        self.pubsub.publisher.counts.flush_if_due()  # DISPLAY SBSTATUS / TPSTATUS counters
        self.services.disk.tick()  # the brokers' usable disk space, every MQK_DISK_CHECK_S
        now = self.clock.monotonic()
        for lease in list(self.services.leasing):
            lease.release_idle(now, self.services.leasing)
        if now - self._renewed_at >= config.OPEN_LEASE_MS / 3000:
            self._renewed_at = now
            for handle in list(self.services.handles.values()):
                if not handle.renew():
                    log.warning(
                        "%s lost its exclusive input: its lease ran out and another "
                        "handle opened the queue",
                        handle.name,
                    )

    # -- queues ----------------------------------------------------------------------
    def open(
        self,
        name: str,
        options: int,
        dynamic_name: str = DEFAULT_DYNAMIC_Q_NAME,
        *,
        put1: bool = False,
        selection_string: str | bytes | None = None,
        object_qmgr: str = "",
    ) -> QueueHandle:
        """MQOPEN of a local queue: option rules, the selection string, the MQOD's
        ObjectQMgrName (`object_qmgr`: blank or this queue manager; core/resolution.py),
        the object, the context authority the options ask for, exclusive input
        (MQRC_OBJECT_IN_USE). MQOPEN of a model queue creates a dynamic queue named after
        `dynamic_name` (MQOD DynamicQName) and opens that (the handle's `name`); MQPUT1
        (`put1`) of a model queue is MQRC_Q_TYPE_ERROR. MQOPEN of an alias opens its
        target (the handle's `name`; its `object_name` stays the alias). The definition
        is the current one; a delete in progress is MQRC_UNKNOWN_OBJECT_NAME."""
        self.run.check(options & C.MQOO_FAIL_IF_QUIESCING)
        reason = open_options_error(options) or handle_error(
            self.services.open_handles(), self.qmgr_def().max_handles
        )
        if reason is not None:
            raise fail(reason)
        selector = compile_selector(selection_string)
        if selector is not None and not options & (INPUT | C.MQOO_BROWSE):
            raise fail(C.MQRC_SELECTOR_INVALID_FOR_TYPE)  # it selects what gets see
        route = self._route(name, object_qmgr)
        if route is not None:
            return self._open_remote(name, object_qmgr, route, options)
        qdef = self.lookup_queue(name)  # the current one: its definition mark says so
        if qdef is None:
            raise fail(C.MQRC_UNKNOWN_OBJECT_NAME)
        alias = None
        if qdef.is_alias:
            alias, qdef = qdef, self._alias_target(qdef)
        if qdef.is_model and put1:
            raise fail(C.MQRC_Q_TYPE_ERROR)
        self.check_context_authority(options)
        self.check_alternate_user_authority(options)
        if not qdef.is_model:
            self.authority.check_open(qdef.name, options)  # the Kafka ACLs (2035)
            mark = self.catalog.mark_of(qdef.name)
            return QueueHandle(self.services, qdef, options, mark, selector=selector, alias=alias)
        self._sweep_dynamic()
        ids = self.services.new_handle_id()
        dynamic = self.services.dynamic.create(qdef, dynamic_name, ids[1])
        mark = self.catalog.mark_of(dynamic.name)
        try:
            return QueueHandle(self.services, dynamic, options, mark, ids, selector=selector)
        except BaseException:
            self.services.dynamic.delete(dynamic)  # no handle: nobody would delete it
            raise

    def _route(self, name: str, object_qmgr: str) -> RemoteRoute | None:
        """Where MQOPEN's ObjectName / ObjectQMgrName lead (core/resolution.py): None
        for a queue of this queue manager, else the remote route; MQ's reasons (2087,
        2091, 2092, 2184, 2196-2199) when neither resolves."""
        try:
            return resolve_remote(
                name, object_qmgr, self.qmgr, self.qmgr_def().def_xmit_q, self.lookup_queue
            )
        except ResolutionError as err:
            raise fail(err.reason) from None

    def _open_remote(
        self, name: str, object_qmgr: str, route: RemoteRoute, options: int
    ) -> QueueHandle:
        """MQOPEN of a remote queue: a handle on its transmission queue whose puts carry
        an MQXQH; through a QREMOTE definition, that definition is the opened object (its
        defaults, PUT(DISABLED), open count and MQINQ), as an alias is."""
        definition = self.lookup_queue(name) if object_qmgr in ("", self.qmgr) else None
        reason = remote_open_error(options, by_definition=definition is not None)
        if reason is not None:
            raise fail(reason)
        xmit_q = self.lookup_queue(route.xmit_q)
        if xmit_q is None:  # deleted since the resolution a moment ago
            raise fail(C.MQRC_UNKNOWN_XMIT_Q)
        self.check_context_authority(options)
        self.check_alternate_user_authority(options)
        mark = self.catalog.mark_of(xmit_q.name)
        return QueueHandle(
            self.services, xmit_q, options, mark, alias=definition, remote=route, object_name=name
        )

    def _alias_target(self, alias: QueueDef) -> QueueDef:
        """The local queue an alias resolves to at MQOPEN (2082 / 2001 otherwise)."""
        target = self.lookup_queue(alias.target) if alias.target else None
        reason = alias_base_error(None if target is None else target.queue_type)
        if reason is not None:
            raise fail(reason)
        return target  # type: ignore[return-value]  # not None: alias_base_error said so

    def check_context_authority(self, options: int) -> None:
        """MQRC_NOT_AUTHORIZED for set/pass context options the policy does not grant
        this user (config.context_authority)."""
        if needs_context_authority(options) and not self.may_set_context:
            log.warning(
                "user %s is not authorized to set or pass context (%s)",
                self.user,
                config.CONTEXT_AUTHORITY_ENV,
            )
            raise fail(C.MQRC_NOT_AUTHORIZED)

    def check_alternate_user_authority(self, options: int) -> None:
        """MQRC_NOT_AUTHORIZED for MQOO_ALTERNATE_USER_AUTHORITY when the policy does not
        let this user be checked as another (config.alternate_user_authority). The
        AlternateUserId itself needs nothing more: no object authorities are kept here,
        and context checks stay with the connecting user, as in MQ (MQOD AlternateUserId:
        https://www.ibm.com/support/knowledgecenter/SSFKSJ_9.0.0/com.ibm.mq.ref.dev.doc/q098140_.html)."""
        if needs_alternate_user_authority(options) and not self.may_use_alternate_user:
            log.warning(
                "user %s is not authorized to use alternate user authority (%s)",
                self.user,
                config.ALTERNATE_USER_AUTHORITY_ENV,
            )
            raise fail(C.MQRC_NOT_AUTHORIZED)

    def lookup_queue(self, name: str, refresh: bool = False) -> QueueDef | None:
        return self.catalog.lookup(name, refresh=refresh)

    def define_queue(self, qdef: QueueDef, replace: bool = False) -> QueueDef:
        self._check_max_msg_length(qdef.max_msg_length)
        return self.catalog.define(qdef, replace=replace)

    def alter_queue(self, name: str, *, force: bool = False, **changes: object) -> QueueDef:
        if "max_msg_length" in changes:
            self._check_max_msg_length(changes["max_msg_length"])
        return self.catalog.alter(name, force=force, **changes)

    def _check_max_msg_length(self, value: object) -> None:
        """DEFINE / ALTER QLOCAL / QMODEL MAXMSGL: at most the queue manager's (MQSC,
        DEFINE queues, MAXMSGL on Multiplatforms). ALTER QMGR lowering the queue
        manager's checks no queue, as in MQ (dynamic queues copy their model's)."""
        limit = self.qmgr_def().max_msg_length
        if isinstance(value, int) and value > limit:
            raise ValueError(f"MAXMSGL({value}) exceeds the queue manager's MAXMSGL({limit})")

    # -- publish/subscribe (shim/pubsub.py) -----------------------------------------
    def open_topic(self, object_name: str, object_string: str, options: int) -> TopicHandle:
        """MQOPEN of a topic (MQOT_TOPIC) for publishing."""
        self.run.check(options & C.MQOO_FAIL_IF_QUIESCING)
        reason = open_options_error(options) or handle_error(
            self.services.open_handles(), self.qmgr_def().max_handles
        )
        if reason is not None:
            raise fail(reason)
        self.check_context_authority(options)
        self.check_alternate_user_authority(options)
        return self.pubsub.open_topic(object_name, object_string, options)

    def subscribe(
        self, req: SubRequest, queue: QueueHandle | None
    ) -> tuple[SubscriptionHandle, QueueHandle, str]:
        """MQSUB: the subscription handle, its queue's handle, the full topic string."""
        self.run.check(req.options & C.MQSO_FAIL_IF_QUIESCING)
        reason = handle_error(self.services.open_handles(), self.qmgr_def().max_handles)
        if reason is not None:
            raise fail(reason)
        return self.pubsub.subscribe(req, queue, self.open)

    def define_topic(
        self,
        name: str,
        topic_string: str,
        description: str = "",
        *,
        replace: bool = False,
        **attributes: Any,
    ) -> TopicDef:
        """DEFINE TOPIC(name) TOPICSTR(topic_string) DESCR(description) and the topic
        attributes by TopicDef field (core/topicattrs.py)."""
        tdef = TopicDef(name, topic_string, description, attributes)
        return self.pubsub.topics.define(tdef, replace)

    def alter_topic(self, name: str, description: str | None = None, **attributes: Any) -> TopicDef:
        """ALTER TOPIC(name): the description and attributes given."""
        return self.pubsub.topics.alter(name, description, **attributes)

    def delete_topic(self, name: str) -> None:
        self.pubsub.topics.delete(name)

    def lookup_topic(self, name: str) -> TopicDef | None:
        return self.pubsub.topics.lookup(name)

    def delete_queue(self, name: str, purge: bool = False) -> None:
        # This connection's acks and puts to the queue land before its topics go (else
        # the producer retries them until message.timeout.ms: shim/dynamic.py).
        self.barrier()
        self.catalog.delete(name, purge=purge)

    def qmgr_def(self) -> QMgrDef:
        """The queue manager's attributes (DISPLAY QMGR), current at no round trip."""
        return self.catalog.qmgr_def()

    def alter_qmgr(self, **changes: object) -> QMgrDef:
        """ALTER QMGR: every connection of every process sees it on its next call."""
        return self.catalog.alter_qmgr(**changes)

    def queue_status(self, name: str) -> dict:
        """DISPLAY QSTATUS: depth and open counts, with the queue's attributes."""
        qdef = self.lookup_queue(name, refresh=True)
        if qdef is None:
            raise fail(C.MQRC_UNKNOWN_OBJECT_NAME)
        self.barrier()
        st = self.state(name)
        opens = st.open_counts()
        return {
            "queue": name,
            "current_depth": self.txn.current_depth(st, name),
            "open_input_count": opens["input"],  # IPPROCS: browse-only handles do not count
            "open_output_count": opens["output"],
            "attributes": json.loads(qdef.to_json()),
        }

    def queue_figures(self, name: str) -> QueueFigures:
        """DISPLAY QSTATUS / INQUIRE_Q_STATUS's figures of a local queue (shim/qstats.py):
        this connection's puts and gets counted first, as for CURDEPTH."""
        qdef = self._local_queue(name)
        self.barrier()

        def figures() -> QueueFigures:
            state, qmgr_def = self.state(name), self.qmgr_def()
            depth = self.txn.current_depth(state, name)
            return qstats.figures(self.log, self.qmgr, qdef, qmgr_def, state, self.clock, depth)

        try:
            return figures()
        except NoEpochError:  # the state was lost: rebuilt from Kafka, then asked again
            self.services.rebuild(qdef)
            return figures()

    def reset_queue_stats(self, name: str) -> ResetFigures:
        """RESET QSTATS / MQCMD_RESET_Q_STATS of one local queue: 3224
        MQRCCF_EVENTS_DISABLED unless the queue manager's PERFMEV is ENABLED (IBM: Reset
        Queue Statistics, Multiplatforms)."""
        if not self.qmgr_def().perf_events:
            raise fail(F.MQRCCF_EVENTS_DISABLED)
        self._local_queue(name)
        self.barrier()  # this connection's counts are in before they are read and zeroed
        return qstats.reset(name, self.state(name), self.clock)

    def _local_queue(self, name: str) -> QueueDef:
        qdef = self.lookup_queue(name, refresh=True)
        if qdef is None:
            raise fail(C.MQRC_UNKNOWN_OBJECT_NAME)
        if qdef.queue_type != C.MQQT_LOCAL:
            raise fail(F.MQRCCF_OBJECT_WRONG_TYPE)
        return qdef

    def state(self, queue: str) -> QueueState:
        return self.store.queue(queue)

    @property
    def redis(self) -> redis.Redis:
        """The Redis client of the real state backend (tests and tools inspect it)."""
        return self.store.client  # type: ignore[attr-defined]

    def new_msg_id(self) -> bytes:
        return self.services.new_msg_id()

    def report_expiry(self, original: dict) -> bool:
        return self.services.report_expiry(original)

    # -- MQCMIT / MQBACK / MQSTAT ----------------------------------------------------
    def barrier(self) -> None:
        """Read-your-writes: every put of this connection is on Kafka and counted, and
        every consumption is in the ack logs."""
        self.pump.barrier()

    def commit(self, visible: bool = True) -> None:
        """MQCMIT (`visible`: UnitsOfWork.commit)."""
        self.run.check()  # ending immediately: backed out, MQRC_Q_MGR_STOPPING
        self.barrier()
        try:
            self.txn.commit(visible)
        finally:
            self._drop_deleted()

    def backout(self) -> None:
        try:
            self.txn.backout()
        finally:
            self._drop_deleted()

    def begin(self) -> None:
        """MQBEGIN."""
        self.run.check()
        self.txn.begin()

    def _drop_deleted(self) -> None:
        """The storage of the temporary queues closed while the ended unit of work
        touched them."""
        pending, self.services.deleted_after_uow = self.services.deleted_after_uow, []
        for qdef in pending:
            try:
                self.services.dynamic.drop_storage(qdef)
            except Exception:
                log.warning("dropping deleted queue %s failed", qdef.name, exc_info=True)

    def _delete_temporary(self) -> None:
        """MQDISC or the end of the application: the temporary dynamic queues this
        connection created and did not close go, with their messages (MQ deletes them
        when the creating application ends). A failure is logged: the creator's lease
        then runs out and the next sweep deletes them."""
        temporary, self.services.temporary = self.services.temporary, {}
        for qdef in temporary.values():
            try:
                self.services.dynamic.delete(qdef)
            except Exception:
                log.warning("deleting temporary queue %s failed", qdef.name, exc_info=True)
        self._drop_deleted()

    def async_status(self, reset: bool = True) -> AsyncStatus:
        """MQSTAT(MQSTAT_TYPE_ASYNC_ERROR)'s figures for this connection. An MQ client's
        MQSTAT flows after the puts it sent, so it counts all of them: the asynchronous
        puts still in flight are waited for first."""
        self.pump.wait_delivered(config.BROKEN_AFTER_S)
        return self.pump.async_status(reset)

    # -- MQDISC ----------------------------------------------------------------------
    def close(self) -> None:
        """MQDISC: an open unit of work is committed (backed out if it cannot be, with
        MQRC_BACKED_OUT), as the queue manager does for a coordinated unit of work."""
        if self._closed:
            return
        self._closed = True
        self.services.closed = True
        self.pump.stop()
        try:
            self.producer.poll(0)
            self.barrier()
            if self.run.current() is RunState.ENDING_IMMEDIATELY:
                self.txn.backout()  # the queue manager backs it out, not MQDISC
            else:
                self.txn.commit()
        finally:
            self.pubsub.end()
            self._delete_temporary()
            self.store.close()
            self.log.close()

    def end_without_disconnect(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.pump.stop()
        try:
            self.barrier()
        finally:
            self.txn.backout()
            self.pubsub.end()
            self._delete_temporary()
            self.store.close()
            self.log.close()
