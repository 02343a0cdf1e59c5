"""Read-ahead (MQOO_READ_AHEAD / DEFREADA): non-persistent messages consumed for a
handle ahead of its gets, one claim for a whole run. As in MQ they are never delivered
twice and may be lost if the process dies; at MQCLOSE the unread ones are put back."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from mqk_avro import codec

from adapter.core import cmqc as C
from adapter.core import expiry as exp
from adapter.core import getrules as gr
from adapter.core.model import Item
from adapter.shim import naming
from adapter.shim.reader import cand_of, lane_of

if TYPE_CHECKING:
    from adapter.shim.get import GetResult

# Non-persistent messages one claim call takes for the handle's buffer.
READ_AHEAD_BATCH = 256

_SELECTIVE = (
    C.MQGMO_COMPLETE_MSG
    | C.MQGMO_ALL_MSGS_AVAILABLE
    | C.MQGMO_ALL_SEGMENTS_AVAILABLE
    | C.MQGMO_SYNCPOINT
    | C.MQGMO_LOCK
    | C.MQGMO_MSG_UNDER_CURSOR
)


class ReadAhead:
    """The read-ahead buffer of QueueHandle (which supplies _ahead and _buffered)."""

    def _plain(self, req: gr.GetRequest, browsing: bool, max_length: int | None) -> bool:
        """A get read-ahead can serve: next message in physical order, no selection."""
        mo = req.match
        return (
            self.read_ahead
            and not browsing
            and max_length is None
            and not req.under_cursor
            and not req.logical
            and not req.options & _SELECTIVE
            and not (mo & C.MQMO_MATCH_MSG_ID and req.msg_id != C.MQMI_NONE)
            and not (mo & C.MQMO_MATCH_CORREL_ID and req.correl_id != C.MQCI_NONE)
            and not mo & (C.MQMO_MATCH_GROUP_ID | C.MQMO_MATCH_MSG_SEQ_NUMBER | C.MQMO_MATCH_OFFSET)
        )

    def _plain_syncpoint(self, req: gr.GetRequest, browsing: bool, max_length: int | None) -> bool:
        """A syncpoint get that locking ahead can serve: read-ahead is on (the locked
        messages are invisible to others until the unit of work ends, so it is opt-in),
        the next message in physical order, no selection, no BOTHRESH check to make."""
        mo = req.match
        return (
            self.read_ahead
            and not browsing
            and max_length is None
            and bool(req.options & C.MQGMO_SYNCPOINT)
            and not req.under_cursor
            and not req.logical
            and not req.options & (_SELECTIVE & ~C.MQGMO_SYNCPOINT)
            and self.qdef.backout_threshold <= 0
            and not (mo & C.MQMO_MATCH_MSG_ID and req.msg_id != C.MQMI_NONE)
            and not (mo & C.MQMO_MATCH_CORREL_ID and req.correl_id != C.MQCI_NONE)
            and not mo & (C.MQMO_MATCH_GROUP_ID | C.MQMO_MATCH_MSG_SEQ_NUMBER | C.MQMO_MATCH_OFFSET)
        )

    def _from_locked_ahead(self, req: gr.GetRequest) -> GetResult | None:
        """Next message locked ahead for this unit of work: no Redis call."""
        now = int(time.time() * 1000)
        while self._uow_ahead:
            held = self._uow_ahead.popleft()
            item = held.item
            if exp.is_expired(item.put_ms, item.expiry, now):
                # Discarding is never part of the unit of work: consumed at once.
                self.conn.txn.current.prefetched.remove(held)
                self.state.claim([held.cand], self.conn.txn.current.owner, consume=True)
                self.conn.record_ack(self.name, lane_of(item.key), item.key[2])
                self.conn.report_expiry(held.env)
                continue
            self.conn.txn.deliver_prefetched(held)
            return self._deliver(item, [item], req, None, removed=True, env=held.env)
        return None

    def _lock_ahead(self, first: Item, req: gr.GetRequest) -> GetResult | None:
        """Lock a run of messages for the unit of work in one call; deliver the first."""
        reader, st = self.reader, self.state
        uow = self.conn.txn.begin()
        now = int(time.time() * 1000)
        run = []
        for item in gr.candidates(reader.view, self.get_cursor, req):
            if len(run) >= READ_AHEAD_BATCH:
                break
            if not exp.is_expired(item.put_ms, item.expiry, now):
                run.append(item)
        if not run or run[0] is not first:
            return None
        from adapter.shim.uow import LEASE_MS

        taken, backouts, gone = st.lock_many([cand_of(i.key) for i in run], uow.owner, LEASE_MS)
        for i in gone:
            reader.forget(run[i].key)
        for i, backout in zip(taken, backouts, strict=True):
            item = run[i]
            env = reader.envelopes[item.key]
            if backout:
                env = dict(env, BackoutCount=env["BackoutCount"] + backout)
            reader.forget(item.key)
            self._uow_ahead.append(
                self.conn.txn.prefetch(self, self.name, cand_of(item.key), item, env)
            )
        return self._from_locked_ahead(req)

    def _from_buffer(self, req: gr.GetRequest) -> GetResult | None:
        now = int(time.time() * 1000)
        while self._ahead:
            item = self._ahead.popleft()
            env = self._buffered.pop(item.key)
            if exp.is_expired(item.put_ms, item.expiry, now):
                self.conn.report_expiry(env)
                continue
            return self._deliver(item, [item], req, None, removed=True, env=env)
        return None

    def _read_ahead(self, first: Item, req: gr.GetRequest) -> GetResult | None:
        """Consume a run of non-persistent messages in one call; deliver the first."""
        reader, st = self.reader, self.state
        run: list[Item] = []
        now = int(time.time() * 1000)
        for item in gr.candidates(reader.view, self.get_cursor, req):
            if item.persistence != C.MQPER_NOT_PERSISTENT or len(run) >= READ_AHEAD_BATCH:
                break
            if not exp.is_expired(item.put_ms, item.expiry, now):
                run.append(item)
        if not run or run[0] is not first:
            return None
        taken, backouts, gone = st.consume_many([cand_of(i.key) for i in run], self.handle_id)
        for i in gone:
            reader.forget(run[i].key)
        for i, backout in zip(taken, backouts, strict=True):
            item = run[i]
            self.conn.record_ack(self.name, lane_of(item.key), item.key[2])
            env = reader.envelopes[item.key]
            if backout:  # carried in the buffer: Redis is not asked again at delivery
                env = dict(env, BackoutCount=env["BackoutCount"] + backout)
            self._buffered[item.key] = env
            reader.forget(item.key)
            self._ahead.append(item)
        self._forgotten += len(taken)
        return self._from_buffer(req)

    def _give_back(self) -> None:
        """MQCLOSE with read-ahead messages the application never got: put them back.

        They were consumed from their old positions, and other handles' views have
        dropped them, so they return as new records (same MQMD, same put time, so expiry
        runs on) behind whatever arrived meanwhile: never lost, never delivered twice.
        """
        if not self._ahead:
            return
        for item in self._ahead:
            env = self._buffered[item.key]
            key = env["GroupId"] if env["GroupId"] != C.MQGI_NONE else env["MsgId"]
            topic = naming.data_topic(self.conn.qmgr, self.name, item.key[0])
            self.conn.producer.produce(topic, value=codec.encode(env), key=key)
        self.conn.count_put(self.name, len(self._ahead))
        self.conn.barrier()
        self._ahead.clear()
        self._buffered.clear()
