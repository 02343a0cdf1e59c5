"""The message channel agent of a sender channel (the MCA: both ends of the channel in
one process, an MQ application on the pymqi face of each queue manager).

Per batch: up to BATCHSZ messages (and BATCHLIM kilobytes; waiting BATCHINT for more)
are got from the transmission queue under syncpoint, unwrapped (MQXQH) and put at the
receiving queue manager under syncpoint (receiver.py); the receiver's sync record is
replaced and the receiving side commits; then the sender's record is replaced and the
sending side commits. Each batch has a new LUWID, each message a sequence number
(incremented before use: the current sequence number is that of the last message sent,
IBM's "Channel message sequence numbering",
https://ibm.com/support/knowledgecenter/en/SSFKSJ_7.5.0/com.ibm.mq.con.doc/q015480_.htm).
Every message sent is counted, persistent or not.

At start the two ends' records (syncq.py) are compared: the same point, the channel
runs; the receiver one batch ahead of the sender (its record names the sender's as the
state before it), the batch was in doubt and committed at the receiver: the sender
commits it (its messages leave the transmission queue, nothing is resent); anything
else is a sequence-number mismatch: AMQ9526E and status STOPPED until RESET CHANNEL.

NPMSPEED(FAST) (when both ends say FAST; either NORMAL makes it NORMAL): a
non-persistent message is got outside syncpoint (MQGMO_SYNCPOINT_IF_PERSISTENT) and put
at once outside syncpoint: visible at once, may overtake the batch's persistent ones,
lost if the channel fails between the two, never duplicated.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid
from dataclasses import replace

import adapter.pymqi as pymqi
from adapter import config
from adapter.channel import batchio
from adapter.channel import status as S
from adapter.channel.batchio import Got, XmitGetter
from adapter.channel.endpoints import partner_targets
from adapter.channel.receiver import Receiver, Transfer
from adapter.channel.syncq import (
    RECEIVER,
    SENDER,
    SyncQueue,
    SyncRecord,
    SyncRecordUnavailableError,
    next_seq,
)
from adapter.core import cmqxc as X
from adapter.core.xqh import XQHError, unwrap
from adapter.shim.channeldef import ChannelCatalog, ChannelDef

log = logging.getLogger("mqk.channel.agent")
C = pymqi.CMQC


class ChannelError(Exception):
    """The channel cannot run: `message` is MQ's (AMQ...), `status` the one it is left in."""

    def __init__(self, message: str, status: str = S.STOPPED) -> None:
        super().__init__(message)
        self.message, self.status = message, status


def mismatch(channel: str, sent: int, expected: int) -> str:
    """AMQ9526E, as IBM's AMQ9xxx messages give it
    (https://www.ibm.com/docs/en/ibm-mq/9.4.x?topic=messages-amq9000-amq9999-remote)."""
    return (
        f"AMQ9526E: Message sequence number error for channel '{channel}'. The local and "
        "remote queue managers do not agree on the next message sequence number. A message "
        f"with sequence number {sent} has been sent when sequence number {expected} was "
        "expected."
    )


def new_luwid() -> str:
    """A logical unit of work id: 8 bytes, shown as 16 hexadecimal digits as MQ does."""
    return uuid.uuid4().hex[:16].upper()


def transactional_id(qmgr: str, channel: str, end: str) -> str:
    """The Kafka transactional id of one end of a channel's agent."""
    return f"mqk.channel.{qmgr}.{channel}.{end}"


def _has_connection(qm: pymqi.QueueManager) -> bool:
    """Whether `qm` holds a connection, without pymqi's is_connected round trip (a Redis
    PING: one per batch when the status is written)."""
    try:
        qm.get_handle()
    except pymqi.MQMIError:
        return False
    return True


def channels(qm: pymqi.QueueManager) -> ChannelCatalog:
    return ChannelCatalog(qm.get_handle().catalog)


class Agent:
    """One sender channel between `local` (the sending queue manager `qmgr`) and
    `remote` (the receiving one), bound by `bind` and moved a batch at a time by `step`."""

    def __init__(self, local: pymqi.QueueManager, qmgr: str, cdef: ChannelDef) -> None:
        self.local, self.qmgr, self.cdef = local, qmgr, cdef
        self.store = local.get_handle().store
        self.remote: pymqi.QueueManager | None = None
        self.status = S.read(self.store, cdef.name) or S.ChannelStatus(cdef.name)
        self.status.pid = S.ChannelStatus(cdef.name).pid
        self.xmitq: pymqi.Queue | None = None
        self.getter: XmitGetter | None = None
        self.ssync: SyncQueue | None = None
        self.rsync: SyncQueue | None = None
        self.receiver: Receiver | None = None
        self.record = SyncRecord()
        self.batch_size, self.fast = cdef.batch_size, cdef.npm_speed == X.MQNPMS_FAST

    # -- status --------------------------------------------------------------------------
    def set_status(self, state: str, message: str = "", later: bool = False) -> None:
        """The status here and its mirror at the partner (`later`: write-behind, for
        the figures of each batch)."""
        self.status.status, self.status.message = state, message
        S.write(self.store, self.status, later)
        if self.remote is not None and _has_connection(self.remote):
            mirror = replace(self.status, xmit_q="", indoubt_msgids=[])
            store = self.remote.get_handle().store
            store.set_channel_status(self.cdef.name, mirror.to_json(), later)

    # -- start ---------------------------------------------------------------------------
    def bind(self) -> None:
        """Connect to the partner, check its RCVR channel, open the transmission queue
        for exclusive input and compare the sync records."""
        cdef, partner = self.cdef, self.cdef.partner
        self.status = replace(
            self.status, conn_name=cdef.conn_name, xmit_q=cdef.xmit_q_name, rqmname=partner
        )
        self.set_status(S.BINDING)
        targets = partner_targets(cdef.conn_name, partner)
        # A stable transactional id: a restarted agent fences its dead predecessor and
        # aborts the batch that one left open at the receiver at once.
        txn = transactional_id(self.qmgr, cdef.name, RECEIVER)
        self.remote = pymqi.connect(partner, transactional_id=txn, **targets)
        batchio.puts_at_once(self.local)
        batchio.puts_at_once(self.remote)
        rdef = channels(self.remote).lookup(cdef.name)
        if rdef is None:
            raise ChannelError(
                f"AMQ9520E: Channel not defined remotely. There is no definition of channel "
                f"'{cdef.name}' at the remote location.",
                S.RETRYING,
            )
        if rdef.is_sender:
            raise ChannelError(
                "AMQ9547E: Type of remote channel not suitable for action requested."
            )
        self.batch_size = min(cdef.batch_size, rdef.batch_size)
        self.fast = cdef.npm_speed == rdef.npm_speed == X.MQNPMS_FAST
        self.status.batch_size = self.batch_size
        self.status.npm_speed = "FAST" if self.fast else "NORMAL"
        options = C.MQOO_INPUT_EXCLUSIVE | C.MQOO_FAIL_IF_QUIESCING
        try:
            self.xmitq = pymqi.Queue(self.local, cdef.xmit_q_name, options)
        except pymqi.MQMIError as err:
            if err.reason == C.MQRC_OBJECT_IN_USE:  # another agent, or a dead one's lease
                raise ChannelError(
                    f"AMQ9514E: Channel '{cdef.name}' is in use.", S.RETRYING
                ) from err
            raise
        sync = C.MQGMO_SYNCPOINT_IF_PERSISTENT if self.fast else C.MQGMO_SYNCPOINT
        self.getter = XmitGetter(self.xmitq, sync)
        self._wait_for_predecessor()
        # A channel started again by this process reads the record its last batch
        # committed without waiting for it (a partner's new connection fences the old
        # one, which completes its commit): readable first.
        batchio.await_committed(self.local)
        self.ssync = SyncQueue(self.local, SENDER, cdef.name)
        self.rsync = SyncQueue(self.remote, RECEIVER, cdef.name)
        self.receiver = Receiver(self.remote, partner)
        try:
            self._compare()
        except SyncRecordUnavailableError as err:
            raise ChannelError(f"AMQ9999E: Channel '{cdef.name}': {err}.", S.RETRYING) from err
        self.status.cur_seq, self.status.cur_luwid = self.record.seq, self.record.luwid
        self.status.last_seq, self.status.last_luwid = self.record.seq, self.record.luwid
        self.status.indoubt, self.status.indoubt_msgids = False, []
        self.set_status(S.RUNNING)

    def _wait_for_predecessor(self) -> None:
        """Wait until no dead agent's lock holds messages of the transmission queue: MQ
        backs a dead MCA's batch out at once, mqk when its lease runs out, and getting
        past the locked messages meanwhile would send them out of order."""
        deadline = time.monotonic() + (config.LEASE_MS + 5000) / 1000
        conn = self.local.get_handle()
        # Fence the dead predecessor's producers now (same transactional ids): a commit
        # it left undecided holds the ack logs' last stable offset back, and reconcile
        # decides nothing until the broker aborts it (the transaction timeout).
        conn.txn.producer()
        assert self.remote is not None
        self.remote.get_handle().txn.producer()
        state = conn.store.queue(self.cdef.xmit_q_name)
        # Live locks: wait for their lease. Stale ones: the engine's getters pass them by
        # while any message is free (reconciling only when none is), so reconcile here
        # (the dead agent's ack log decides: consumed, or back on the queue in place).
        xmitq = self.cdef.xmit_q_name
        while True:
            if state.live_locks() == 0:
                if state.stale_locks():
                    conn.services.reconcile(xmitq)  # 0 while a commit is undecided
                if not state.stale_locks():
                    return
            if time.monotonic() > deadline:
                raise ChannelError(f"AMQ9514E: Channel '{self.cdef.name}' is in use.", S.RETRYING)
            time.sleep(0.1)

    def _compare(self) -> None:
        assert self.ssync is not None and self.rsync is not None
        mine, theirs = self.ssync.read(), self.rsync.read()
        if mine.reset:  # RESET CHANNEL: the receiver takes the sender's number
            theirs = SyncRecord(seq=mine.seq, luwid=mine.luwid)
            self.rsync.write(theirs)
            mine = replace(mine, reset=False)
            self.ssync.write(mine)
        # One batch ahead: a batch's record (it has MsgIds) made from the sender's point.
        ahead = bool(theirs.msgids) and (theirs.prev_seq, theirs.prev_luwid) == (
            mine.seq,
            mine.luwid,
        )
        if mine.same_point(theirs):
            pass
        elif ahead and mine.backout_luwid == theirs.luwid:
            # RESOLVE ACTION(BACKOUT): the batch is sent again; the receiver's record
            # goes back to the sender's point.
            log.warning("channel %s: batch %s backed out by RESOLVE", self.cdef.name, theirs.luwid)
            self.rsync.write(replace(mine, backout_luwid=""))
        elif ahead:
            log.info("channel %s: in-doubt batch %s committed", self.cdef.name, theirs.luwid)
            self._commit_indoubt(theirs, mine)
            mine = theirs
        else:
            raise ChannelError(mismatch(self.cdef.name, mine.seq + 1, theirs.seq + 1))
        self.record = replace(mine, backout_luwid="")

    def _commit_indoubt(self, batch: SyncRecord, mine: SyncRecord) -> None:
        """The sender's side of a batch the receiver committed: its messages leave the
        transmission queue (by MsgId) with the sender's record, in one unit of work."""
        assert self.xmitq is not None and self.ssync is not None
        remove_batch(self.local, self.xmitq, self.cdef.xmit_q_name, batch.msgids)
        self.ssync.replace(batch, current=mine)
        self.local.commit()

    # -- a batch -------------------------------------------------------------------------
    def _gather(self, wait_ms: int) -> list[tuple[Got, float]]:
        """The batch: up to BATCHSZ messages and BATCHLIM kilobytes, waiting `wait_ms`
        for the first and what is left of BATCHINT for the others (each with when it
        was got), a run of them with one state call."""
        assert self.getter is not None
        cdef = self.cdef
        got: list[tuple[Got, float]] = []
        limit, size, started = cdef.batch_data_limit * 1024, 0, time.monotonic()
        while len(got) < self.batch_size and (limit == 0 or size < limit):
            if got:
                wait = cdef.batch_interval - int((time.monotonic() - started) * 1000)
            else:
                wait = wait_ms
            run = self.getter.get_run(
                wait, self.batch_size - len(got), limit - size if limit else 0
            )
            if not run:
                break
            now = time.monotonic()
            for msg in run:
                got.append((msg, now))
                size += len(msg.data)
        return got

    def step(self, wait_ms: int = 0, *, visible: bool = True) -> int:
        """Move one batch (waiting up to `wait_ms` for its first message); the number of
        messages moved (0: the transmission queue was empty). `visible`: return once the
        batch is readable at the far end, as MQ's receiving MCA's commit makes it; a
        running channel (run_channel) passes False and lets Kafka's commit markers land
        while it gathers the next batch (the wait is one ListOffsets round trip or more: a
        median 1.4 ms here)."""
        assert self.receiver is not None and self.remote is not None
        assert self.ssync is not None and self.rsync is not None
        try:
            got = self._gather(wait_ms)
        except BaseException:
            self.local.backout()
            raise
        if not got:
            return 0
        prev = self.record
        batch = SyncRecord(
            seq=next_seq(prev.seq, len(got)),
            luwid=new_luwid(),
            prev_seq=prev.seq,
            prev_luwid=prev.luwid,
            msgids=[msg.md["MsgId"].hex() for msg, _ in got],
        )
        st = self.status
        st.cur_seq, st.cur_luwid, st.cur_msgs = batch.seq, batch.luwid, len(got)
        try:
            # Everything but the two commits first, both ends' sync records before the
            # messages: each end's transaction then holds all its partitions (and the
            # sending end's the batch's consumption, write_acks) while the messages are
            # put, so that neither commit waits for records sent at its last moment
            # (measured: the sender's records sent after the messages cost its commit
            # ~1.8 ms a batch more). Uncommitted, the sender's record is nothing yet: it
            # commits after the receiver's, as the protocol orders.
            self.ssync.replace(batch, current=prev)
            batchio.write_acks(self.local)
            self.rsync.replace(batch, current=prev)
            batchio.write_acks(self.remote)
            # Fast non-persistent messages before the persistent ones, which open the
            # batch's transaction on the destination's topics: a read_committed reader
            # sees nothing past an open transaction, so put after it they would wait
            # for its commit.
            fast_first = sorted(got, key=lambda g: not self._fast(g[0].md))
            self.receiver.put_batch([self._transfer(msg, got_at) for msg, got_at in fast_first])
            st.indoubt, st.indoubt_msgids = True, batch.msgids
            # In Redis once sent (writebehind.py), before the receiver commits.
            S.write(self.store, st, later=True)
        except BaseException:
            self.remote.backout()
            self.local.backout()
            raise
        try:
            batchio.commit(self.remote)  # the batch is at the receiver: in doubt until ours
        except BaseException:
            # Backed out there (or undecided: the next start compares the records); the
            # gets go back here, or the connection's unit of work would keep them locked.
            self.local.backout()
            raise
        batchio.commit(self.local)  # failing, the batch stays in doubt: the next start
        # commits it (_compare)
        self.record = batch
        st.last_seq, st.last_luwid, st.indoubt, st.indoubt_msgids = (
            batch.seq,
            batch.luwid,
            False,
            [],
        )
        st.batches += 1
        st.msgs += len(got)
        self.set_status(S.RUNNING, later=True)
        if visible:
            batchio.await_committed(self.remote)
        return len(got)

    def _fast(self, md: dict) -> bool:
        return self.fast and md["Persistence"] != C.MQPER_PERSISTENT

    def _transfer(self, msg: Got, got_at: float) -> Transfer:
        """What the receiver puts for a message got: its MQXQH read, its expiry less the
        time since it was got, its syncpoint (NPMSPEED), its properties."""
        try:
            th = unwrap(msg.data)
        except XQHError as err:
            # MQ's sending MCA cannot send it either: it stops the channel.
            raise ChannelError(
                f"AMQ9544E: Messages not put to destination queue. A message on transmission "
                f"queue {self.cdef.xmit_q_name} has no MQXQH: {err}."
            ) from err
        expiry = msg.md["Expiry"]
        if expiry != C.MQEI_UNLIMITED:  # less the time since it was got
            expiry = max(1, expiry - int((time.monotonic() - got_at) * 10))
        return Transfer(th, expiry, not self._fast(msg.md), msg.properties)

    # -- end -----------------------------------------------------------------------------
    def close(self) -> None:
        """Close both ends (a channel left RUNNING by its owner ends STOPPED)."""
        if self.status.status in (S.RUNNING, S.BINDING) and self.status.pid == os.getpid():
            self.set_status(S.STOPPED, f"AMQ9001I: Channel '{self.cdef.name}' ended normally.")
        for thing in (self.receiver, self.rsync, self.ssync, self.xmitq):
            if thing is None:
                continue
            try:
                thing.close()
            except pymqi.Error:
                log.warning("channel %s: closing %s failed", self.cdef.name, thing, exc_info=True)
        if self.remote is not None and self.remote.is_connected:
            try:
                self.remote.backout()
                self.remote.disconnect()
            except pymqi.Error:
                log.warning("channel %s: disconnect from the partner failed", self.cdef.name,
                            exc_info=True)  # fmt: skip


def remove_batch(qm: pymqi.QueueManager, queue: pymqi.Queue, qname: str, msgids: list[str]) -> int:
    """Get the messages `msgids` (hex) off transmission queue `queue` under syncpoint
    (the caller commits): waits out a dead agent's locks on them. The number found."""
    locked = qm.get_handle().store.queue(qname).live_locks() > 0
    found = 0
    for hexid in msgids:
        md = pymqi.MD(MsgId=bytes.fromhex(hexid))
        wait = config.LEASE_MS + 5000 if locked else 0
        gmo = pymqi.GMO(
            Options=C.MQGMO_SYNCPOINT
            | C.MQGMO_ACCEPT_TRUNCATED_MSG
            | (C.MQGMO_WAIT if wait else 0),
            MatchOptions=C.MQMO_MATCH_MSG_ID,
            WaitInterval=wait,
        )
        try:
            queue.get(0, md, gmo)
            found += 1
        except pymqi.MQMIError as err:
            if err.reason == C.MQRC_TRUNCATED_MSG_ACCEPTED:
                found += 1
            elif err.reason == C.MQRC_NO_MSG_AVAILABLE:
                # A non-persistent message of a FAST channel left at once, or someone
                # removed it: nothing to take.
                log.info("in-doubt message %s is no longer on %s", hexid, qname)
            else:
                raise
    return found


def run_channel(
    qmgr: str,
    channel: str,
    stop_event: threading.Event | None = None,
    *,
    poll_ms: int = 500,
    retry_s: float = 2.0,
) -> int:
    """Run sender channel `channel` of queue manager `qmgr` until STOP CHANNEL, the
    event, or the queue manager quiescing (0), or until it cannot run (a sequence-number
    mismatch, a definition missing: 1). Transient failures (partner unreachable or
    without the RCVR channel, the transmission queue held by another agent, a broken
    batch) leave it RETRYING and it tries again every `retry_s`."""
    stop = stop_event or threading.Event()
    local = pymqi.connect(qmgr, transactional_id=transactional_id(qmgr, channel, SENDER))
    try:
        cdef = channels(local).lookup(channel)
        store = local.get_handle().store
        if cdef is None or not cdef.is_sender:
            log.error("AMQ9519E: Channel '%s' not found (a sender channel).", channel)
            return 1
        while not (stop.is_set() or store.channel_stop_requested(channel)):
            agent = Agent(local, qmgr, cdef)
            try:
                agent.bind()
                while not (stop.is_set() or store.channel_stop_requested(channel)):
                    agent.step(poll_ms, visible=False)
                agent.set_status(S.STOPPED, f"AMQ9001I: Channel '{channel}' ended normally.")
                return 0
            except SyncRecordUnavailableError as err:
                log.warning("channel %s: %s; retrying", channel, err)
                agent.set_status(S.RETRYING, f"AMQ9999E: Channel '{channel}': {err}.")
            except ChannelError as err:
                log.error("%s", err.message)
                agent.set_status(err.status, err.message)
                if err.status != S.RETRYING:
                    return 1
            except pymqi.MQMIError as err:
                if err.reason in (C.MQRC_Q_MGR_QUIESCING, C.MQRC_Q_MGR_STOPPING):
                    agent.set_status(S.STOPPED, f"AMQ9001I: Channel '{channel}' ended normally.")
                    return 0
                log.warning("channel %s: %s; retrying", channel, err, exc_info=True)
                agent.set_status(
                    S.RETRYING, f"AMQ9999E: Channel '{channel}' ended abnormally: {err}"
                )
            finally:
                agent.close()
            cdef = channels(local).lookup(channel) or cdef
            stop.wait(retry_s)
        S.write(
            store, replace(S.read(store, channel) or S.ChannelStatus(channel), status=S.STOPPED)
        )
        return 0
    finally:
        local.disconnect()
