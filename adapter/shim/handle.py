"""An open queue (MQOPEN's object handle): a putter, a getter and a read-ahead buffer,
and the handle's registration in the queue's open counts (IPPROCS / OPPROCS)."""

from __future__ import annotations

from adapter import config
from adapter.core import cmqc as C
from adapter.core.calls import GetRequest, GetResult, PutRequest, PutResult
from adapter.core.errors import fail
from adapter.core.openrules import input_exclusive
from adapter.core.selector import Selector
from adapter.shim.catalog import QueueDef
from adapter.shim.get import Getter
from adapter.shim.put import Putter
from adapter.shim.readahead import ReadAheadBuffer
from adapter.shim.services import Services


class QueueHandle:
    def __init__(
        self, svc: Services, qdef: QueueDef, options: int, selector: Selector | None = None
    ) -> None:
        self.svc = svc
        self.qdef = qdef
        self.name = qdef.name
        self.options = options
        self.hobj, self.handle_id = svc.new_handle_id()
        self.state = svc.store.queue(qdef.name)
        self.putter = Putter(svc, qdef, options, self.state)
        self.ahead = ReadAheadBuffer(svc, qdef, options, self.state)
        if selector is not None:
            # Reading ahead takes a run of messages whatever their properties.
            self.ahead.enabled = False
        self.getter = Getter(svc, qdef, options, self.state, self.handle_id, self.ahead, selector)
        kinds = []
        exclusive = input_exclusive(options, qdef.shareable, qdef.def_input_exclusive)
        if exclusive is not None:
            kinds.append("input,exclusive" if exclusive else "input")
        if options & C.MQOO_OUTPUT:
            kinds.append("output")
        if options & C.MQOO_BROWSE:
            kinds.append("browse")
        self.kinds = ",".join(kinds)
        self.closed = False
        # Registered last: a refused open leaves nothing behind.
        if self.kinds and not self.state.register_open(
            self.handle_id, self.kinds, config.OPEN_LEASE_MS
        ):
            raise fail(C.MQRC_OBJECT_IN_USE)
        svc.handles[self.hobj] = self

    def __index__(self) -> int:
        """The Hobj, as MQI programs pass it (PMO.Context = queue.get_handle())."""
        return self.hobj

    def renew(self) -> bool:
        """Keep the registration (open counts, exclusive input) alive; the connection's
        pump calls it every third of the lease. False if another handle took the queue
        exclusively after this one's lease had run out."""
        if self.closed or not self.kinds:
            return True
        return self.state.register_open(self.handle_id, self.kinds, config.OPEN_LEASE_MS)

    def put(self, req: PutRequest, payload: bytes, *, put1: bool = False) -> PutResult:
        return self.putter.put(req, payload, put1=put1)

    def get(
        self, req: GetRequest, max_length: int | None = None, wait_interval: int = 0
    ) -> GetResult | None:
        return self.getter.get(req, max_length, wait_interval)

    def close(self) -> tuple[int, int]:
        """MQCLOSE: the Table 2 outcome for an unterminated group or logical message."""
        if self.svc.closed:
            raise fail(C.MQRC_HCONN_ERROR)
        outcome = self.putter.close()
        get_outcome = self.getter.close()
        if outcome[0] == C.MQCC_OK:
            outcome = get_outcome
        self.closed = True
        self.state.unregister_open(self.handle_id)
        return outcome
