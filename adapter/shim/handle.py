"""An open queue (MQOPEN's object handle): a putter, a getter and a read-ahead buffer,
the handle's registration in the queue's open counts (IPPROCS / OPPROCS), and MQCLOSE
with its options (the dynamic-queue rules: adapter/core/dynamic.py, shim/dynamic.py)."""

from __future__ import annotations

from adapter import config
from adapter.core import cmqc as C
from adapter.core.calls import GetRequest, GetResult, PutRequest, PutResult
from adapter.core.dynamic import DELETE_OPTIONS, close_options_error
from adapter.core.errors import fail
from adapter.core.openrules import input_exclusive
from adapter.core.selector import Selector
from adapter.shim.catalog import QueueDef
from adapter.shim.dynamic import CREATOR_KIND
from adapter.shim.get import Getter
from adapter.shim.put import Putter
from adapter.shim.readahead import ReadAheadBuffer
from adapter.shim.services import Services


class QueueHandle:
    def __init__(
        self,
        svc: Services,
        qdef: QueueDef,
        options: int,
        ids: tuple[int, str] | None = None,
        selector: Selector | None = None,
    ) -> None:
        """`ids`: the (Hobj, state id) the connection drew before creating the dynamic
        queue this handle opens (the queue records its creator); `selector`: the
        compiled MQOD SelectionString."""
        self.svc = svc
        self.qdef = qdef
        self.name = qdef.name
        self.options = options
        self.hobj, self.handle_id = ids or svc.new_handle_id()
        self.is_creator = bool(qdef.creator) and qdef.creator == self.handle_id
        self.gone = False  # its dynamic queue was deleted (MQRC_Q_DELETED)
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
        if self.is_creator and qdef.is_temporary:
            kinds.append(CREATOR_KIND)  # its lease tells a sweep the creator lives
        self.kinds = ",".join(kinds)
        self.closed = False
        # Registered last: a refused open leaves nothing behind.
        if self.kinds and not self.state.register_open(
            self.handle_id, self.kinds, config.OPEN_LEASE_MS
        ):
            raise fail(C.MQRC_OBJECT_IN_USE)
        svc.handles[self.hobj] = self
        if self.is_creator and qdef.is_temporary:
            svc.temporary[self.handle_id] = qdef

    def __index__(self) -> int:
        """The Hobj, as MQI programs pass it (PMO.Context = queue.get_handle())."""
        return self.hobj

    def renew(self) -> bool:
        """Keep the registration (open counts, exclusive input) alive; the connection's
        pump calls it every third of the lease. False if another handle took the queue
        exclusively after this one's lease had run out."""
        if self.closed or not self.kinds or self.gone:
            return True
        if self.qdef.is_dynamic and not self.svc.dynamic.exists(self.qdef):
            self.gone = True  # a deleted queue's registration is not written back
            return True
        return self.state.register_open(self.handle_id, self.kinds, config.OPEN_LEASE_MS)

    def check_queue(self) -> None:
        """MQRC_Q_DELETED once the handle's dynamic queue has been deleted (one lookup
        of the cached definition per call, on dynamic queues only)."""
        if self.gone:
            raise fail(C.MQRC_Q_DELETED)
        if self.qdef.is_dynamic and not self.svc.dynamic.exists(self.qdef):
            self.gone = True
            raise fail(C.MQRC_Q_DELETED)

    def put(self, req: PutRequest, payload: bytes, *, put1: bool = False) -> PutResult:
        self.check_queue()
        return self.putter.put(req, payload, put1=put1)

    def get(
        self, req: GetRequest, max_length: int | None = None, wait_interval: int = 0
    ) -> GetResult | None:
        self.check_queue()
        return self.getter.get(req, max_length, wait_interval)

    def close(self, options: int = C.MQCO_NONE) -> tuple[int, int]:
        """MQCLOSE: the Table 2 outcome for an unterminated group or logical message.
        A failed close (2045, 2046, 2055) leaves the handle open, as MQ does. Closing
        the handle that created a temporary dynamic queue deletes the queue with its
        messages; MQCO_DELETE / MQCO_DELETE_PURGE delete a permanent dynamic queue."""
        svc = self.svc
        if svc.closed:
            raise fail(C.MQRC_HCONN_ERROR)
        gone = self.gone or (self.qdef.is_dynamic and not svc.dynamic.exists(self.qdef))
        # A handle of a deleted queue may still be closed (2052 page): no delete rule left.
        kind = C.MQQDT_PERMANENT_DYNAMIC if gone else self.qdef.definition_type
        reason = close_options_error(options, kind, self.is_creator)
        if reason is not None:
            raise fail(reason)
        delete = not gone and (
            (self.is_creator and self.qdef.is_temporary) or bool(options & DELETE_OPTIONS)
        )
        if delete and self.qdef.definition_type == C.MQQDT_PERMANENT_DYNAMIC:
            self._check_deletable(options)
        outcome = self.putter.close()
        get_outcome = self.getter.close()
        if outcome[0] == C.MQCC_OK:
            outcome = get_outcome
        self.closed = True
        self.state.unregister_open(self.handle_id)
        svc.temporary.pop(self.handle_id, None)
        if delete:
            self._delete_queue()
        return outcome

    def _check_deletable(self, options: int) -> None:
        """MQCO_DELETE of a permanent dynamic queue needs it empty; either delete option
        needs no uncommitted put or get on it (MQRC_Q_NOT_EMPTY). Uncommitted work is
        seen for this connection's unit of work; other connections' is not."""
        if self.svc.txn.touches(self.name):
            raise fail(C.MQRC_Q_NOT_EMPTY)
        if options & C.MQCO_DELETE:
            self.svc.pump.barrier()  # this connection's puts counted in the depth
            if self.state.depth() > 0:
                raise fail(C.MQRC_Q_NOT_EMPTY)

    def _delete_queue(self) -> None:
        # A temporary queue closed inside a unit of work that touched it: the name goes
        # now, the messages when the unit of work ends (Connection.commit / backout).
        later = self.svc.txn.touches(self.name)
        self.svc.dynamic.delete(self.qdef, storage_later=later)
        if later:
            self.svc.deleted_after_uow.append(self.qdef)
