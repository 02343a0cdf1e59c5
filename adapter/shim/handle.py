"""An open queue (MQOPEN's object handle): a putter, a getter and a read-ahead buffer,
the handle's registration in the queue's open counts (IPPROCS / OPPROCS), which also
keeps DELETE QLOCAL out, the queue's current definition (ALTER, DELETE), and MQCLOSE
with its options (the dynamic-queue rules: adapter/core/dynamic.py, shim/dynamic.py).
A handle opened through an alias queue works on the target queue (`name`) with the
alias's defaults (catalog.through_alias) and an AliasBinding (shim/alias.py)."""

from __future__ import annotations

import logging

from adapter import config
from adapter.core import cmqc as C
from adapter.core.calls import GetRequest, GetResult, PutRequest, PutResult
from adapter.core.dynamic import DELETE_OPTIONS, close_options_error
from adapter.core.errors import MQMIError, fail
from adapter.core.openrules import input_exclusive
from adapter.core.resolution import RemoteRoute
from adapter.core.selector import Selector
from adapter.shim import putrun
from adapter.shim.alias import AliasBinding
from adapter.shim.catalog import QueueDef, incarnation, through_alias
from adapter.shim.dynamic import CREATOR_KIND
from adapter.shim.get import Getter
from adapter.shim.put import Putter
from adapter.shim.readahead import ReadAheadBuffer
from adapter.shim.services import Services
from adapter.shim.store import QueueDeletedError

log = logging.getLogger("mqk.shim.handle")


class QueueHandle:
    def __init__(
        self,
        svc: Services,
        qdef: QueueDef,
        options: int,
        mark: str,
        ids: tuple[int, str] | None = None,
        selector: Selector | None = None,
        alias: QueueDef | None = None,
        remote: RemoteRoute | None = None,
        object_name: str | None = None,
    ) -> None:
        """`mark`: the definition mark `qdef` is current under (Catalog.lookup); `ids`:
        the (Hobj, state id) the connection drew before creating the dynamic queue this
        handle opens (the queue records its creator); `selector`: the compiled MQOD
        SelectionString; `alias`: the alias queue opened, which resolved to `qdef` (or the
        QREMOTE definition opened, which resolved to the transmission queue `qdef`);
        `remote`: where the messages put go (the handle then works on the transmission
        queue, each message wrapped in an MQXQH); `object_name`: the name opened, when
        neither `qdef` nor `alias` has it (ObjectName at another ObjectQMgrName)."""
        self.svc = svc
        self.base = qdef  # the local queue's own definition
        self.name = qdef.name
        self.object_name = object_name or (alias.name if alias is not None else qdef.name)
        self.remote = remote
        self.options = options
        self.hobj, self.handle_id = ids or svc.new_handle_id()
        self.alias = AliasBinding(svc.catalog, svc.store, alias, self.handle_id) if alias else None
        if alias is not None:
            qdef = through_alias(alias, qdef)
        self.qdef = qdef
        self.is_creator = bool(qdef.creator) and qdef.creator == self.handle_id
        self.state = svc.store.queue(qdef.name)
        self._mark = mark
        self.gone = False  # its queue was deleted: every call but MQCLOSE is MQRC_Q_DELETED
        self.putter = Putter(svc, qdef, options, self.state, remote)
        if options & C.MQOO_OUTPUT:  # the disk guard places the topics puts go to
            svc.disk.watch_queue(qdef.name, qdef.partitions)
        self.ahead = ReadAheadBuffer(svc, qdef, options, self.state)
        if selector is not None:
            # Reading ahead takes a run of messages whatever their properties.
            self.ahead.enabled = False
        self.getter = Getter(svc, qdef, options, self.state, self.handle_id, self.ahead, selector)
        self.getter.refresh_definition = self.current
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
        # Every open counts for DELETE QLOCAL, an inquire-only one too (IBM's DELETE
        # queues: "if an application has this queue open").
        if options & C.MQOO_INQUIRE:
            kinds.append("inquire")
        if options & C.MQOO_SET:
            kinds.append("set")
        self.kinds = ",".join(kinds)
        self.closed = False
        # Registered last: a refused open leaves nothing behind.
        try:
            registered = self.state.register_open(self.handle_id, self.kinds, config.OPEN_LEASE_MS)
        except QueueDeletedError:  # deleted (or being deleted) since the lookup
            raise fail(C.MQRC_UNKNOWN_OBJECT_NAME) from None
        if not registered:
            raise fail(C.MQRC_OBJECT_IN_USE)
        if self.alias is not None:
            try:
                self.alias.register()
            except BaseException:
                self.state.unregister_open(self.handle_id)
                raise
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
        if self.closed or self.gone or not self.kinds:
            return True
        if self.alias is not None:
            self.alias.renew()
        try:
            return self.state.register_open(self.handle_id, self.kinds, config.OPEN_LEASE_MS)
        except QueueDeletedError:
            # Deleted, or a delete in progress that may still fail: the next call's
            # definition check tells which.
            log.info("%s: not renewed, the queue is being deleted or was", self.name)
            return True

    def current(self) -> QueueDef:
        """The queue's definition now (every MQPUT, MQGET and MQINQ asks first): an ALTER
        made by any connection is seen by the next call, and a handle whose queue was
        deleted (its lease ran out, or a forced delete) gets MQRC_Q_DELETED, which IBM
        documents for handles of a deleted dynamic queue
        (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041230_.html). Costs no
        round trip while the definition is unchanged (store.QueueState.definition)."""
        if self.gone:
            raise fail(C.MQRC_Q_DELETED)
        changed = self.alias is not None and self.alias.refresh()
        mark = self.state.definition(in_call=True)  # after the call's run-state check
        if mark != self._mark:
            self._changed(mark)
            changed = True
        if changed:
            self._apply()
        return self.qdef

    def _changed(self, mark: str | None) -> None:
        qdef = self.svc.catalog.lookup(self.name, refresh=True)
        if (
            qdef is None
            or qdef.incarnation != self.qdef.incarnation
            or (mark is not None and incarnation(mark) != qdef.incarnation)
        ):
            self.gone = True  # deleted, and perhaps defined again: another queue now
            raise fail(C.MQRC_Q_DELETED)
        self.base = qdef
        self._mark = self.state.definition() if mark is None else mark

    def _apply(self) -> None:
        """ALTER / DEFINE REPLACE of the queue or of the alias it was opened through:
        the new attributes for every part of the handle. (The reader keeps the layout it
        was built with: partitions cannot be altered.)"""
        qdef = self.base if self.alias is None else through_alias(self.alias.qdef, self.base)
        self.qdef = self.putter.qdef = self.getter.qdef = self.ahead.qdef = qdef

    def put(self, req: PutRequest, payload: bytes, *, put1: bool = False) -> PutResult:
        if not self.svc.closed:
            self.svc.run.check(req.options & C.MQPMO_FAIL_IF_QUIESCING)
            self.current()
        return self.putter.put(req, payload, put1=put1)

    def put_run(self, items: list[tuple[PutRequest, bytes]]) -> list[MQMIError | None]:
        """MQPUT of a run of complete messages (shim/putrun.py): for each, None or the
        MQMIError its put failed with."""
        if items and not self.svc.closed:
            self.svc.run.check(items[0][0].options & C.MQPMO_FAIL_IF_QUIESCING)
            self.current()
        return putrun.put_run(self.putter, items)

    def get(
        self, req: GetRequest, max_length: int | None = None, wait_interval: int = 0
    ) -> GetResult | None:
        if not self.svc.closed:
            self.svc.run.check(req.options & C.MQGMO_FAIL_IF_QUIESCING)
            self.current()
        return self.getter.get(req, max_length, wait_interval)

    def get_run(
        self, req: GetRequest, limit: int, max_bytes: int = 0, wait_interval: int = 0
    ) -> list[GetResult]:
        """Up to `limit` MQGETs at once (Getter.get_run)."""
        if not self.svc.closed:
            self.svc.run.check(req.options & C.MQGMO_FAIL_IF_QUIESCING)
            self.current()
        return self.getter.get_run(req, limit, max_bytes, wait_interval)

    def inquired(self) -> QueueDef:
        """MQINQ: the definition now (after an ALTER, the new values)."""
        self.svc.run.check()
        return self.current()

    def close(self, options: int = C.MQCO_NONE) -> tuple[int, int]:
        """MQCLOSE: the Table 2 outcome for an unterminated group or logical message.
        A failed close (2045, 2046, 2055) leaves the handle open, as MQ does. Closing
        the handle that created a temporary dynamic queue deletes the queue with its
        messages; MQCO_DELETE / MQCO_DELETE_PURGE delete a permanent dynamic queue."""
        svc = self.svc
        if svc.closed:
            raise fail(C.MQRC_HCONN_ERROR)
        svc.run.check()  # ending immediately: MQRC_Q_MGR_STOPPING, the handle stays open
        if not self.gone:
            try:
                self.current()
            except MQMIError as err:
                # MQCLOSE is what 2041 asks for: the handle goes back whatever changed.
                if err.reason not in (C.MQRC_Q_DELETED, C.MQRC_OBJECT_CHANGED):
                    raise
        # A handle of a deleted queue may still be closed (2052 page): no delete rule left.
        # Through an alias the object is the alias, which no delete option fits.
        kind = C.MQQDT_PERMANENT_DYNAMIC if self.gone else self.qdef.definition_type
        if self.alias is not None and not self.gone:
            kind = C.MQQDT_PREDEFINED
        reason = close_options_error(options, kind, self.is_creator)
        if reason is not None:
            raise fail(reason)
        delete = not self.gone and (
            (self.is_creator and self.qdef.is_temporary) or bool(options & DELETE_OPTIONS)
        )
        if delete and self.qdef.definition_type == C.MQQDT_PERMANENT_DYNAMIC:
            self._check_deletable(options)
        outcome = self.putter.close()
        # A deleted queue's handle closes without giving anything back (MQ: MQCLOSE
        # succeeds on it): its messages went with the queue.
        get_outcome = self.getter.close(gone=self.gone)
        if outcome[0] == C.MQCC_OK:
            outcome = get_outcome
        self.closed = True
        self.state.unregister_open(self.handle_id)
        if self.alias is not None:
            self.alias.unregister()
        svc.temporary.pop(self.handle_id, None)
        if delete:
            self._delete_queue()
        return outcome

    def _check_deletable(self, options: int) -> None:
        """MQCO_DELETE of a permanent dynamic queue needs it empty; either delete option
        needs no uncommitted put or get on it, by any connection (MQRC_Q_NOT_EMPTY)."""
        if self.svc.txn.touches(self.name):
            raise fail(C.MQRC_Q_NOT_EMPTY)
        self.svc.pump.barrier()  # this connection's puts on Kafka and counted in the depth
        if options & C.MQCO_DELETE and self.state.depth() > 0:
            raise fail(C.MQRC_Q_NOT_EMPTY)
        if self.svc.catalog.has_uncommitted(self.qdef):
            raise fail(C.MQRC_Q_NOT_EMPTY)

    def _delete_queue(self) -> None:
        # A temporary queue closed inside a unit of work that touched it: the name goes
        # now, the messages when the unit of work ends (Connection.commit / backout).
        later = self.svc.txn.touches(self.name)
        self.svc.dynamic.delete(self.qdef, storage_later=later)
        if later:
            self.svc.deleted_after_uow.append(self.qdef)
