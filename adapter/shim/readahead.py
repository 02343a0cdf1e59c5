"""Read-ahead (MQOO_READ_AHEAD / DEFREADA) of one open queue.

Non-persistent messages are consumed for the handle ahead of its gets, one claim for a
whole run. As in MQ they are never delivered twice and may be lost if the process dies;
at MQCLOSE the unread ones are put back. Syncpoint gets may lock a run ahead the same
way; those locks belong to the unit of work (uow.py), which releases what was not got
when it ends.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from adapter import config
from adapter.core import cmqc as C
from adapter.core import expiry as exp
from adapter.core import getrules as gr
from adapter.core.model import Item
from adapter.shim import naming, records
from adapter.shim.catalog import QueueDef
from adapter.shim.reader import QueueReader
from adapter.shim.services import Services
from adapter.shim.store import COUNT, MONITORED, QueueState, lane
from adapter.shim.uow import HeldGet

_SELECTIVE = (
    C.MQGMO_COMPLETE_MSG
    | C.MQGMO_ALL_MSGS_AVAILABLE
    | C.MQGMO_ALL_SEGMENTS_AVAILABLE
    | C.MQGMO_SYNCPOINT
    | C.MQGMO_LOCK
    | C.MQGMO_MSG_UNDER_CURSOR
)


def _next_in_physical_order(req: gr.GetRequest, max_length: int | None) -> bool:
    """The get takes the next message in physical order, with no buffer limit."""
    return max_length is None and req.in_physical_order


class ReadAheadBuffer:
    def __init__(self, svc: Services, qdef: QueueDef, options: int, state: QueueState) -> None:
        self.svc = svc
        self.qdef = qdef
        self.name = qdef.name
        self.state = state
        self.enabled = bool(options & C.MQOO_READ_AHEAD) or (
            qdef.def_read_ahead and not options & C.MQOO_NO_READ_AHEAD
        )
        self._ahead: deque[Item] = deque()
        self._buffered: dict[tuple[int, int, int], dict[str, Any]] = {}

    @property
    def buffered(self) -> bool:
        return bool(self._ahead)

    def serves(self, req: gr.GetRequest, browsing: bool, max_length: int | None) -> bool:
        """A get the buffer can serve: read-ahead on, destructive, outside syncpoint."""
        return (
            self.enabled
            and not browsing
            and not req.options & _SELECTIVE
            and _next_in_physical_order(req, max_length)
        )

    def serves_syncpoint(self, req: gr.GetRequest, browsing: bool, max_length: int | None) -> bool:
        """A syncpoint get that locking ahead can serve: read-ahead is on (the locked
        messages are invisible to others until the unit of work ends, so it is opt-in),
        no BOTHRESH check to make."""
        return (
            self.enabled
            and not browsing
            and bool(req.options & C.MQGMO_SYNCPOINT)
            and not req.options & (_SELECTIVE & ~C.MQGMO_SYNCPOINT)
            and self.qdef.backout_threshold <= 0
            and _next_in_physical_order(req, max_length)
        )

    def _run(
        self,
        reader: QueueReader,
        cursor: gr.GetCursor,
        req: gr.GetRequest,
        first: Item,
        persistent_too: bool,
    ) -> list[Item]:
        """The run of unexpired messages from `first` on in physical order; empty if
        `first` is not where it starts (the view changed)."""
        now = self.svc.clock.now_ms()
        run: list[Item] = []
        for item in gr.candidates(reader.view, cursor, req):
            if len(run) >= config.READ_AHEAD_BATCH:
                break
            if not persistent_too and item.persistence != C.MQPER_NOT_PERSISTENT:
                break
            if not exp.is_expired(item.put_ms, item.expiry, now):
                run.append(item)
        return run if run and run[0] is first else []

    def fill(
        self,
        reader: QueueReader,
        cursor: gr.GetCursor,
        req: gr.GetRequest,
        first: Item,
        owner: str,
    ) -> int:
        """Consume a run of non-persistent messages in one claim; how many were taken."""
        run = self._run(reader, cursor, req, first, persistent_too=False)
        if not run:
            return 0
        claim = self.state.consume_many([i.key for i in run], owner, self._stats())
        for i in claim.gone:
            reader.forget(run[i].key)
        for i, backout in zip(claim.taken, claim.backouts, strict=True):
            item = run[i]
            self.svc.pump.record_ack(self.name, item.key)
            env = reader.envelopes[item.key]
            if backout:  # carried in the buffer: the state is not asked again at delivery
                env = dict(env, BackoutCount=env["BackoutCount"] + backout)
            self._buffered[item.key] = env
            reader.forget(item.key)
            self._ahead.append(item)
        return len(claim.taken)

    def _stats(self) -> str:
        """What the claim records (MSGSOUT; LGETDATE / LGETTIME while monitored)."""
        return MONITORED if self.svc.monitored(self.qdef) else COUNT

    def take(self) -> tuple[Item, dict[str, Any]] | None:
        """The next buffered message (expired ones are reported and dropped)."""
        now = self.svc.clock.now_ms()
        while self._ahead:
            item = self._ahead.popleft()
            env = self._buffered.pop(item.key)
            if exp.is_expired(item.put_ms, item.expiry, now):
                self.svc.report_expiry(env)
                continue
            return item, env
        return None

    def lock_run(
        self, reader: QueueReader, cursor: gr.GetCursor, req: gr.GetRequest, first: Item
    ) -> bool:
        """Lock a run of messages for the unit of work in one call."""
        run = self._run(reader, cursor, req, first, persistent_too=True)
        if not run:
            return False
        txn = self.svc.txn
        owner = txn.begin().owner
        claim = self.state.lock_many([i.key for i in run], owner, config.LEASE_MS, self._stats())
        for i in claim.gone:
            reader.forget(run[i].key)
        for i, backout in zip(claim.taken, claim.backouts, strict=True):
            item = run[i]
            env = reader.envelopes[item.key]
            if backout:
                env = dict(env, BackoutCount=env["BackoutCount"] + backout)
            reader.forget(item.key)
            txn.prefetch(self.name, item, env, reader)
        return bool(claim.taken)

    def take_locked(self, reader: QueueReader) -> HeldGet | None:
        """The next message locked ahead for this unit of work: no state call. An expired
        one is discarded at once (discarding is never part of a unit of work)."""
        txn = self.svc.txn
        now = self.svc.clock.now_ms()
        while True:
            held = txn.next_prefetched(reader)
            if held is None:
                return None
            item = held.item
            if not exp.is_expired(item.put_ms, item.expiry, now):
                return held
            txn.discard_prefetched(held)
            self.state.claim([item.key], txn.begin().owner, consume=True)
            self.svc.pump.record_ack(self.name, item.key)
            self.svc.report_expiry(held.env)

    def lowest(self) -> dict[str, int]:
        """Per lane the lowest buffered offset: the watermark may not pass it while the
        message can still be given back."""
        lows: dict[str, int] = {}
        for item in self._ahead:
            ln = lane(item.key[0], item.key[1])
            lows[ln] = min(lows.get(ln, item.key[2]), item.key[2])
        return lows

    def give_back(self) -> None:
        """MQCLOSE with read-ahead messages the application never got: put them back.

        They were consumed from their old positions, and other handles' views have
        dropped them, so they return as new records (same MQMD, same put time, so expiry
        runs on) behind whatever arrived meanwhile: never lost, never delivered twice.
        """
        if not self._ahead:
            return
        out = [
            records.resend(
                naming.data_topic(self.svc.qmgr, self.name, item.key[0]),
                self._buffered[item.key],
            )
            for item in self._ahead
        ]
        self.svc.pump.send_now(out)
        self.svc.pump.count_put(self.name, len(out), enqueued=False)  # not new messages
        self.svc.pump.barrier()
        self._ahead.clear()
        self._buffered.clear()
