"""What an open queue uses of its connection: the backends, the pump, the unit of work,
the catalog, ids, and the recovery paths. Built by `Connection`, handed to each
QueueHandle, so the handle's parts depend on these components and never on the
connection object itself."""

from __future__ import annotations

import itertools
import logging
import time
import uuid
from typing import Any

from adapter.shim import recovery, reports
from adapter.shim.catalog import Catalog, QueueDef
from adapter.shim.clock import Clock
from adapter.shim.log import Log
from adapter.shim.pump import Pump
from adapter.shim.reconcile import reconcile
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
    ) -> None:
        self.qmgr = qmgr
        self.conn_id = conn_id
        self.clock = clock
        self.log = log_backend
        self.store = store
        self.pump = pump
        self.txn = txn
        self.catalog = catalog
        # MsgId: 'MQK ' + 12 bytes unique to this connection + 8-byte counter (MQ's own
        # ids are likewise a fixed prefix plus a counter).
        self._id_prefix = b"MQK " + uuid.uuid4().bytes[:12]
        self._id_counter = itertools.count(int(time.time() * 1000) << 16)
        self._handles = itertools.count(1)

    def new_msg_id(self) -> bytes:
        return self._id_prefix + next(self._id_counter).to_bytes(8, "big")

    def new_handle_id(self) -> str:
        return f"{self.conn_id}.{next(self._handles)}"

    def report_expiry(self, original: dict[str, Any]) -> bool:
        """A discarded expired message that asked for an MQRO_EXPIRATION* report: put
        it now, outside any unit of work. True if a report was put."""
        reply_q, out = reports.expiry_report(
            original, self.qmgr, self.catalog.lookup, self.new_msg_id, self.clock.now_ms()
        )
        if out:
            self.pump.send_async(reply_q, out, status=False)
        return bool(out)

    def rebuild(self, qdef: QueueDef) -> bool:
        return recovery.rebuild(
            self.log, self.store, self.qmgr, qdef, self.conn_id, self.pump.barrier, self.clock
        )

    def reconcile(self, queue: str) -> int:
        return reconcile(self.log, self.store, self.qmgr, queue, self.conn_id)
