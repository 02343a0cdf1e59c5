"""Dynamic queues: created by MQOPEN of a model queue, deleted by MQCLOSE, MQDISC, the
end of the application, or, when the creating process died, by whoever next sweeps.

A dynamic queue is a local queue with its model's attributes, its DefinitionType
(temporary or permanent dynamic) and the state id of the handle whose MQOPEN created it
(`QueueDef.creator`). IBM: "Dynamic and Model queues"
<https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_8.0.0/com.ibm.mq.pro.doc/q003140_.htm>,
MQOPEN <https://www.ibm.com/docs/en/SSFKSJ_9.3.0/refdev/q101870_.html>, MQCLOSE
<https://www.ibm.com/docs/SSFKSJ_9.4.0/refdev/q101740_.html>, 2100
<https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041610_.html>, 2052
<https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041230_.html>.

Who deletes a temporary dynamic queue:
- MQCLOSE of the creating handle, whatever its options (QueueHandle.close);
- MQDISC and the end of the application without MQDISC (Connection.close,
  Connection.end_without_disconnect): every temporary queue the connection created and
  has not closed;
- after a crash: the creating handle's registration in the queue's `opens` is leased
  (config.OPEN_LEASE_MS) and renewed by its connection's pump; `sweep` deletes every
  temporary queue whose creator's lease ran out. It runs when a connection starts and,
  at most every third of a lease, when a model queue is opened. MQ deletes them when
  the queue manager restarts; there is no queue-manager process here, so the next
  connection plays that part.

Open handles of a deleted dynamic queue learn it on their next call from the queue's
definition mark (QueueHandle.current; a later queue of the same name is another
incarnation) and the call fails with MQRC_Q_DELETED (2052); MQCLOSE of such a handle
completes.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable

from adapter import config
from adapter.core import cmqc as C
from adapter.core.dynamic import dynamic_name, dynamic_q_name_error
from adapter.core.errors import MQMIError, fail
from adapter.shim.catalog import Catalog, QueueDef
from adapter.shim.clock import Clock
from adapter.shim.store import StateStore

log = logging.getLogger("mqk.shim.dynamic")

CREATOR_KIND = "creator"  # the open kind that keeps a temporary queue's creator leased
_CREATE_MUTEX = "create"  # on the new name's state: create, check and sweep one at a time
_MUTEX_S = 30.0
_GENERATE_TRIES = 5
_TEMPDYN_MARK = f'"definition_type": {C.MQQDT_TEMPORARY_DYNAMIC}'.encode()


def unique_suffix() -> str:
    """16 characters unique at this queue manager (MQ's own are 16 hex digits too)."""
    return uuid.uuid4().hex[:16].upper()


class DynamicQueues:
    def __init__(
        self,
        catalog: Catalog,
        store: StateStore,
        clock: Clock,
        owner: str,
        settle: Callable[[], None] = lambda: None,
    ) -> None:
        """`settle`: this connection's writes on their way to Kafka land (the pump's
        barrier), called before a queue's topics are deleted."""
        self.catalog = catalog
        self.store = store
        self.clock = clock
        self.owner = owner  # the mutex owner: this connection
        self._settle = settle
        self._swept_at: float | None = None

    # -- MQOPEN of a model queue ---------------------------------------------------------
    def create(self, model: QueueDef, pattern: str, creator: str) -> QueueDef:
        """The dynamic queue for MQOPEN of `model` with DynamicQName `pattern`, created
        by handle `creator`: MQRC_DYNAMIC_Q_NAME_ERROR for a name MQ refuses,
        MQRC_OBJECT_ALREADY_EXISTS when a full name is taken."""
        reason = dynamic_q_name_error(pattern)
        if reason is not None:
            raise fail(reason)
        generated = pattern.endswith("*")
        for _ in range(_GENERATE_TRIES if generated else 1):
            name = dynamic_name(pattern, unique_suffix())
            created = self._create_named(model, name, creator, generated)
            if created is not None:
                return created
        raise fail(C.MQRC_OBJECT_ALREADY_EXISTS)

    def _create_named(
        self, model: QueueDef, name: str, creator: str, generated: bool
    ) -> QueueDef | None:
        st = self.store.queue(name)
        if not st.try_mutex(_CREATE_MUTEX, self.owner, _MUTEX_S):
            return None  # another MQOPEN or a sweep is at this name right now
        try:
            # A generated name (64 random bits) is checked against the cached catalog
            # only; a name the application chose against the durable one too.
            taken = (
                self.store.catalog_get(name) is not None
                if generated
                else self.catalog.lookup(name, refresh=True) is not None
            )
            if taken:
                return None
            skip = ("name", "creator", "incarnation")
            attrs = {k: v for k, v in model.__dict__.items() if k not in skip}
            attrs.update(queue_type=C.MQQT_LOCAL, definition_type=model.definition_type)
            qdef = QueueDef(name=name, creator=creator, **attrs)
            try:
                # Not REPLACE: a DEFINE of this name by an administrator since the check
                # above (which does not take this mutex) keeps its queue.
                self.catalog.define(qdef)
            except MQMIError as err:
                if err.reason != C.MQRCCF_OBJECT_ALREADY_EXISTS:
                    raise
                return None
            if qdef.is_temporary:
                # Leased while the mutex is held, so a sweep (which takes it too) never
                # finds a temporary queue without a live creator while its MQOPEN runs.
                st.register_open(creator, CREATOR_KIND, config.OPEN_LEASE_MS)
            log.info("created dynamic queue %s from model %s", name, model.name)
            return qdef
        finally:
            st.drop_mutex(_CREATE_MUTEX)

    # -- deletion ----------------------------------------------------------------------
    def delete(self, qdef: QueueDef, *, storage_later: bool = False) -> None:
        """Delete the queue with its messages. With `storage_later` only the definition
        goes now (MQ's logical deletion: the unit of work that touches the queue still
        has to end); `drop_storage` finishes it."""
        self.catalog.forget(qdef.name)
        if not storage_later:
            self.drop_storage(qdef)
        log.info("deleted dynamic queue %s", qdef.name)

    def drop_storage(self, qdef: QueueDef) -> None:
        # This connection's acks of gets from the queue (batched by the pump) and its
        # asynchronous puts may still be on their way: once the topics are gone, the
        # producer would retry them until message.timeout.ms, and the connection's next
        # barrier (MQDISC's) would wait that long and answer MQRC_CONNECTION_BROKEN.
        self._settle()
        self.catalog.drop_storage(qdef)

    # -- after a crash -----------------------------------------------------------------
    def sweep_if_due(self) -> list[str]:
        now = self.clock.monotonic()
        if self._swept_at is not None and now - self._swept_at < config.OPEN_LEASE_MS / 3000:
            return []
        return self.sweep()

    def sweep(self) -> list[str]:
        """Delete every temporary dynamic queue whose creating handle's lease ran out
        (its process died without MQCLOSE or MQDISC). Returns their names."""
        self._swept_at = self.clock.monotonic()
        swept = []
        for name, raw in self.store.catalog_all().items():
            if _TEMPDYN_MARK not in raw:  # most definitions: skip the JSON decoding
                continue
            qdef = QueueDef.from_json(raw)
            if qdef.is_temporary and self._sweep_one(qdef):
                swept.append(name)
        return swept

    def _sweep_one(self, qdef: QueueDef) -> bool:
        st = self.store.queue(qdef.name)
        if st.open_live(qdef.creator) or not st.try_mutex(_CREATE_MUTEX, self.owner, _MUTEX_S):
            return False
        try:
            current = self.catalog.lookup(qdef.name, refresh=True)
            if current is None or current.creator != qdef.creator:
                return False  # deleted or created anew meanwhile
            if st.open_live(qdef.creator):
                return False
            log.warning(
                "temporary dynamic queue %s: its creator %s ended without closing it; "
                "deleting it with its messages",
                qdef.name,
                qdef.creator,
            )
            self.delete(qdef)
            return True
        finally:
            st.drop_mutex(_CREATE_MUTEX)
