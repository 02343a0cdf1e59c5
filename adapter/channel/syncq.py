"""The channel synchronization records on SYSTEM.CHANNEL.SYNCQ: what MQ keeps "in
persistent storage for the last message transferred in a batch" on both ends of a
channel, so that at start "both ends of the link agree on which messages have been
transferred successfully" (Channel message sequence numbering,
https://ibm.com/support/knowledgecenter/en/SSFKSJ_7.5.0/com.ibm.mq.con.doc/q015480_.htm).

One record per channel and end: a persistent message whose CorrelId names the end and
the channel (`S:` sender, `R:` receiver, then the channel name: at most 22 bytes of the
24), its data a JSON object (`SyncRecord`). It is replaced inside the unit of work of the
batch it records (get the old one, put the new one), so the record and the batch's
puts (receiver) or gets (sender) commit together or not at all.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields

import adapter.pymqi as pymqi
from adapter import config

C = pymqi.CMQC
SYNCQ = "SYSTEM.CHANNEL.SYNCQ"
SENDER, RECEIVER = "S", "R"
SEQ_WRAP = 999_999_999  # SEQWRAP's default: sequence numbers restart at 1 after it
# How long `replace` waits for a record its caller committed to become readable (its
# commit markers are written within milliseconds while the broker is well; past this,
# the record is taken for lost: SyncRecordUnavailableError, the channel retries).
REPLACE_WAIT_MS = 5000
_OPEN = C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT | C.MQOO_FAIL_IF_QUIESCING


@dataclass
class SyncRecord:
    """The last committed batch of one end: its last sequence number and LUWID, and the
    state before it (`prev_*`: a receiver one batch ahead of the sender names the
    sender's state here), the batch's transmission-queue MsgIds (hex), and the two
    operator actions waiting for the next start (RESET CHANNEL, RESOLVE BACKOUT)."""

    seq: int = 0
    luwid: str = "0000000000000000"
    prev_seq: int = 0
    prev_luwid: str = "0000000000000000"
    msgids: list[str] = field(default_factory=list)
    reset: bool = False  # RESET CHANNEL on a sender: the receiver takes this seq at start
    backout_luwid: str = ""  # RESOLVE ACTION(BACKOUT) of this in-doubt batch

    def same_point(self, other: SyncRecord) -> bool:
        return (self.seq, self.luwid) == (other.seq, other.luwid)

    def to_bytes(self) -> bytes:
        # Flat fields: read them as they are (asdict copies deep, on every batch).
        flat = {f.name: getattr(self, f.name) for f in fields(self)}
        return json.dumps(flat, sort_keys=True).encode()

    @classmethod
    def from_bytes(cls, raw: bytes) -> SyncRecord:
        data = json.loads(raw)
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


class SyncRecordUnavailableError(Exception):
    """A sync record could not be read or replaced as it is: a transient state (a dead
    agent's lock not yet reconciled), never a sequence-number mismatch."""


def read_timeout_s() -> float:
    """How long a dead agent's lock may hide a record: its lease, then an undecided
    transaction on the ack log (aborted by the transaction timeout at the latest)."""
    return (config.LEASE_MS + config.TXN_TIMEOUT_MS) / 1000 + 5


def _same(old: SyncRecord | None, current: SyncRecord) -> bool:
    """Whether the record got is the one expected (none is the zero state's)."""
    if old is None:
        return current.same_point(SyncRecord()) and not current.msgids
    return old.same_point(current)


def next_seq(seq: int, count: int) -> int:
    """The sequence number `count` messages after `seq` (wrapping after SEQWRAP)."""
    return (seq + count - 1) % SEQ_WRAP + 1 if count else seq


def ensure_syncq(qm: pymqi.QueueManager) -> None:
    """Define SYSTEM.CHANNEL.SYNCQ (persistent by default) if the queue manager lacks it:
    mqk has no crtmqm making the SYSTEM objects, so the first channel that needs it does."""
    try:
        qm.queue_status(SYNCQ)
        return
    except pymqi.MQMIError as err:
        if err.reason != C.MQRC_UNKNOWN_OBJECT_NAME:
            raise
    try:
        qm.define_queue(SYNCQ, def_persistence=C.MQPER_PERSISTENT, description="channel sync")
    except pymqi.MQMIError as err:
        if err.reason != C.MQRCCF_OBJECT_ALREADY_EXISTS:  # another agent made it first
            raise


class SyncQueue:
    """One end's record of one channel, on that end's queue manager `qm`."""

    def __init__(self, qm: pymqi.QueueManager, end: str, channel: str) -> None:
        ensure_syncq(qm)
        self.qm, self.channel = qm, channel
        self.end_name = "sender" if end == SENDER else "receiver"
        self.correl_id = f"{end}:{channel}".encode().ljust(24, b"\0")
        self.queue = pymqi.Queue(qm, SYNCQ, _OPEN)

    def _get(self, options: int, wait_ms: int = 0) -> SyncRecord | None:
        md = pymqi.MD(CorrelId=self.correl_id)
        gmo = pymqi.GMO(
            Options=options | C.MQGMO_FAIL_IF_QUIESCING | (C.MQGMO_WAIT if wait_ms else 0),
            MatchOptions=C.MQMO_MATCH_CORREL_ID,
            WaitInterval=wait_ms,
        )
        try:
            return SyncRecord.from_bytes(self.queue.get(None, md, gmo))
        except pymqi.MQMIError as err:
            if err.reason == C.MQRC_NO_MSG_AVAILABLE:
                return None
            raise

    def read(self, timeout_s: float | None = None) -> SyncRecord:
        """The committed record; MQ's zero state only when there is none.

        A record that is there may be out of sight for a while: locked by a dead agent's
        unit of work (until its lease runs out and the lock is reconciled, which waits
        for an undecided transaction on the ack log), so a get that finds nothing does
        not prove there is no record. Locks on the queue (any channel's) are looked at
        *before* each get: with none, a record, if there were one, was free then and
        only this channel's agent takes it, so a get that then finds nothing means
        there is none. Otherwise the read tries again until `timeout_s` (the lease and
        the transaction timeout) and then fails with SyncRecordUnavailableError: taking a
        hidden record for "none" would compare the zero state with the partner's and
        stop the channel with AMQ9526E though nothing was wrong. A mismatch "implies
        that persistent synchronization data has been lost on either side of the
        channel" (spec/sequential-retrieval.txt, "Channel message sequence
        numbering"); a record out of sight for a while is not lost, and "the channel
        recovers automatically in most cases"
        ("Safety of messages",
        https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.0.0/com.ibm.mq.con.doc/q015710_.html)."""
        conn = self.qm.get_handle()
        state = conn.store.queue(SYNCQ)
        limit = timeout_s if timeout_s is not None else read_timeout_s()
        clock = conn.clock  # the connection's: a test's manual clock moves with the sleeps
        deadline = clock.monotonic() + limit
        while True:
            stale = state.stale_locks()
            busy = bool(stale) or state.live_locks() > 0
            try:
                rec = self._get(C.MQGMO_SYNCPOINT)
            finally:
                self.qm.backout()
            if rec is not None:
                return rec
            if not busy:
                return SyncRecord()
            if stale:
                conn.services.reconcile(SYNCQ)  # 0 while a commit is undecided: again
            if clock.monotonic() > deadline:
                raise SyncRecordUnavailableError(
                    f"the {self.end_name} sync record of channel {self.channel} stayed "
                    f"locked for {limit:.0f} s"
                )
            clock.sleep(0.05)

    def replace(self, record: SyncRecord, current: SyncRecord | None = None) -> None:
        """Replace the record inside the current unit of work (the caller commits).
        `current`: the record the caller knows to be there (compared at start, or
        written by its last batch); if the get does not return that one, the unit of
        work must not commit (two records for one end, or a lost one, would make the
        next start compare the wrong state): SyncRecordUnavailableError. A record the
        caller committed is waited for (REPLACE_WAIT_MS): the agent commits without
        waiting for its puts to become readable, so the last batch's record may still be
        on its way to the readers."""
        committed = current is not None and not _same(None, current)
        old = self._get(C.MQGMO_SYNCPOINT, REPLACE_WAIT_MS if committed else 0)
        if current is not None and not _same(old, current):
            raise SyncRecordUnavailableError(
                f"the {self.end_name} sync record of channel {self.channel} is "
                f"{old.seq if old else 'missing'}/{old.luwid if old else '-'}, not "
                f"{current.seq}/{current.luwid} as expected"
            )
        md = pymqi.MD(CorrelId=self.correl_id, Persistence=C.MQPER_PERSISTENT)
        self.queue.put(record.to_bytes(), md, pymqi.PMO(Options=C.MQPMO_SYNCPOINT))

    def write(self, record: SyncRecord) -> None:
        """Replace the record in a unit of work of its own (RESET / RESOLVE CHANNEL)."""
        self.qm.backout()
        self.replace(record)
        self.qm.commit()

    def close(self) -> None:
        self.queue.close()
