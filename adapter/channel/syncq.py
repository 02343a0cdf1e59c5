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
import logging
from dataclasses import asdict, dataclass, field, fields

import adapter.pymqi as pymqi
from adapter import config

log = logging.getLogger("mqk.channel.syncq")
C = pymqi.CMQC
SYNCQ = "SYSTEM.CHANNEL.SYNCQ"
SENDER, RECEIVER = "S", "R"
SEQ_WRAP = 999_999_999  # SEQWRAP's default: sequence numbers restart at 1 after it


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
        return json.dumps(asdict(self), sort_keys=True).encode()

    @classmethod
    def from_bytes(cls, raw: bytes) -> SyncRecord:
        data = json.loads(raw)
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


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
        self.qm = qm
        self.correl_id = f"{end}:{channel}".encode().ljust(24, b"\0")
        options = C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT | C.MQOO_FAIL_IF_QUIESCING
        self.queue = pymqi.Queue(qm, SYNCQ, options)

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

    def read(self) -> SyncRecord:
        """The committed record (MQ's zero state when there is none yet). Got under
        syncpoint and backed out: a dead agent's lock on it (until its lease runs out)
        makes this wait instead of reading nothing."""
        locked = self.qm.get_handle().store.queue(SYNCQ).live_locks() > 0
        wait = config.LEASE_MS + 5000 if locked else 0
        rec = self._get(C.MQGMO_SYNCPOINT, wait)
        self.qm.backout()
        return rec or SyncRecord()

    def replace(self, record: SyncRecord) -> None:
        """Replace the record inside the current unit of work (the caller commits)."""
        self._get(C.MQGMO_SYNCPOINT)
        md = pymqi.MD(CorrelId=self.correl_id, Persistence=C.MQPER_PERSISTENT)
        self.queue.put(record.to_bytes(), md, pymqi.PMO(Options=C.MQPMO_SYNCPOINT))

    def write(self, record: SyncRecord) -> None:
        """Replace the record in a unit of work of its own (RESET / RESOLVE CHANNEL)."""
        self.qm.backout()
        self.replace(record)
        self.qm.commit()

    def close(self) -> None:
        self.queue.close()
