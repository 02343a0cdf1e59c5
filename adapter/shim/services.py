"""What an open queue uses of its connection: the backends, the pump, the unit of work,
the catalog, ids, and the recovery paths. Built by `Connection`, handed to each
QueueHandle, so the handle's parts depend on these components and never on the
connection object itself."""

from __future__ import annotations

import itertools
import logging
import time
import uuid
import weakref
from typing import Any

from adapter.core import cmqc as C
from adapter.core.errors import fail
from adapter.core.qstats import effective_monitoring
from adapter.shim import recovery
from adapter.shim.catalog import Catalog, QueueDef
from adapter.shim.clock import Clock
from adapter.shim.corrupt import CorruptRecords, DeadLetterMover
from adapter.shim.deadletter import DeadLetterQueue, Delivery
from adapter.shim.diskguard import DiskGuard
from adapter.shim.dynamic import DynamicQueues
from adapter.shim.log import Log
from adapter.shim.pump import Pump
from adapter.shim.qmgrdef import QMgrDef
from adapter.shim.reconcile import reconcile
from adapter.shim.reports import Kind, Reports
from adapter.shim.runstate import RunStateView
from adapter.shim.store import StateStore
from adapter.shim.uow import UnitsOfWork

log = logging.getLogger("mqk.shim")


class Services:
    def __init__(
        self,
        qmgr: str,
        conn_id: str,
        clock: Clock,
        log_backend: Log,
        store: StateStore,
        pump: Pump,
        txn: UnitsOfWork,
        catalog: Catalog,
        run: RunStateView,
    ) -> None:
        self.qmgr = qmgr
        self.conn_id = conn_id
        self.clock = clock
        self.log = log_backend
        self.store = store
        self.pump = pump
        self.txn = txn
        self.catalog = catalog
        self.run = run  # the queue manager's run state (endmqm): checked on every call
        # The brokers' disks: puts to a topic on a nearly full log directory get 2056
        # (refreshed by the pump's tick).
        self.disk = DiskGuard(qmgr, log_backend, clock)
        # MsgId: 'MQK ' + 12 bytes unique to this connection + 8-byte counter (MQ's own
        # ids are likewise a fixed prefix plus a counter).
        self._id_prefix = b"MQK " + uuid.uuid4().bytes[:12]
        self._id_counter = itertools.count(int(time.time() * 1000) << 16)
        self._handles = itertools.count(1)
        self.closed = False  # MQDISC: handles of this connection answer MQRC_HCONN_ERROR
        # Open handles by Hobj: PMO.Context names one (MQPMO_PASS_*_CONTEXT); the pump
        # renews their registrations.
        self.handles: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()
        # Get leases holding a run (shim/getlease.py): the pump's tick gives idle ones back.
        self.leasing: set[Any] = set()
        self.dynamic = DynamicQueues(catalog, store, clock, conn_id, settle=pump.barrier)
        # Temporary dynamic queues this connection created and has not yet deleted, by
        # creating handle id: MQDISC deletes them.
        self.temporary: dict[str, QueueDef] = {}
        # Deleted while this connection's unit of work touched them: their topics and
        # state go when it ends (MQ's logical deletion).
        self.deleted_after_uow: list[QueueDef] = []
        self.dead_letters = DeadLetterQueue(
            qmgr, catalog.lookup, catalog.qmgr_def, self._depth, clock, self.disk.refuses
        )
        self.reports = Reports(qmgr, self.dead_letters, self.new_msg_id, clock)
        self._mover: DeadLetterMover | None = None  # made at the first corrupt record

    def _depth(self, queue: str) -> int:
        """A queue's depth with what this connection has not yet counted (a full-queue
        check for the messages the queue manager itself moves), units of work's puts
        and gets included as MQ counts them."""
        state = self.store.queue(queue)
        return self.txn.current_depth(state, queue) + self.pump.pending_depth(queue)

    def send(self, delivery: Delivery | None, in_uow: bool, *, counted: bool = True) -> bool:
        """Records the queue manager generated or moved: into the unit of work (a COA or
        COD of a syncpoint put or get, which count towards MAXUMSGS; a BOTHRESH move,
        `counted=False`, does not), else at once. True if anything was sent."""
        if delivery is None:
            return False
        if in_uow:
            self.txn.put(delivery.queue, delivery.records, counted=counted)
        else:
            self.pump.send_async(delivery.queue, delivery.records, status=False)
        return True

    def side_units_of_work(self, suffix: str) -> UnitsOfWork:
        """Units of work of this connection's own, apart from the application's (their
        transactional id `<id>.<suffix>`), for work that must commit by itself
        (publications outside syncpoint, dead-letter moves of corrupt records)."""
        return UnitsOfWork(
            self.qmgr,
            self.conn_id,
            self.log,
            self.store,
            self.pump,
            self.clock,
            f"{self.txn.transactional_id}.{suffix}",
        )

    def move_corrupt(self, queue: str, state: Any, records: CorruptRecords) -> int:
        """Records of `queue` no application may get, to the dead-letter queue
        (shim/corrupt.py); returns how many went."""
        if self._mover is None:
            self._mover = DeadLetterMover(self)
        return self._mover.move(queue, state, records)

    def monitored(self, qdef: QueueDef) -> bool:
        """Whether queue monitoring is on for the queue (its MONQ, or with MONQ(QMGR)
        the queue manager's; NONE there: off). No round trip: both are cached."""
        if qdef.monitoring_q == C.MQMON_OFF:
            return False
        return effective_monitoring(qdef.monitoring_q, self.qmgr_def().monitoring_q) != C.MQMON_OFF

    def qmgr_def(self) -> QMgrDef:
        """The queue manager's attributes (MAXHANDS, MAXUMSGS, MAXMSGL), at no round
        trip while unchanged (Catalog.qmgr_def)."""
        # The engine asks inside MQI calls, after their run-state check: as of its poll.
        return self.catalog.qmgr_def(in_call=True)

    def open_handles(self) -> int:
        """This connection's open handles, for MAXHANDS (a handle whose queue was
        deleted stays open until its MQCLOSE)."""
        return sum(1 for handle in list(self.handles.values()) if not handle.closed)

    def new_msg_id(self) -> bytes:
        return self._id_prefix + next(self._id_counter).to_bytes(8, "big")

    def new_handle_id(self) -> tuple[int, str]:
        """(Hobj, the handle's id in the state store)."""
        hobj = next(self._handles)
        return hobj, f"{self.conn_id}.{hobj}"

    def saved_context(self, hobj: int) -> dict[str, Any]:
        """The context MQOO_SAVE_ALL_CONTEXT kept on handle `hobj` (MQPMO_PASS_*_CONTEXT):
        MQRC_CONTEXT_HANDLE_ERROR if no such open handle saves context, and
        MQRC_CONTEXT_NOT_AVAILABLE if it has none to give: no message got with it yet, or
        its last successful get was a browse (2098,
        https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041590_.html)."""
        handle = self.handles.get(hobj)
        if handle is None or handle.closed or not handle.options & C.MQOO_SAVE_ALL_CONTEXT:
            raise fail(C.MQRC_CONTEXT_HANDLE_ERROR)
        saved = handle.getter.saved_context
        if saved is None:
            raise fail(C.MQRC_CONTEXT_NOT_AVAILABLE)
        return saved

    def report_expiry(self, original: dict[str, Any]) -> bool:
        """A discarded expired message that asked for an MQRO_EXPIRATION* report: put
        it now, outside any unit of work (expiration reports never belong to one,
        "MaxUncommittedMsgs"). True if a report was put (on the ReplyToQ or the DLQ)."""
        if not original["Report"] & C.MQRO_EXPIRATION:
            return False
        return self.send(self.reports.report(original, Kind.EXPIRATION), in_uow=False)

    def rebuild(self, qdef: QueueDef) -> bool:
        return recovery.rebuild(
            self.log, self.store, self.qmgr, qdef, self.conn_id, self.pump.barrier, self.clock
        )

    def reconcile(self, queue: str) -> int:
        return reconcile(self.log, self.store, self.qmgr, queue, self.conn_id)
