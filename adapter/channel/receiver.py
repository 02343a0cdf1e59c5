"""The receiving end of a channel (the receiving MCA): each message of a batch is put
to its destination at the receiving queue manager as it was put at the sending one, or,
when the destination cannot take it, to that queue manager's dead-letter queue behind
an MQDLH carrying the reason; the channel goes on.

- MsgId, CorrelId, the identity and origin context (PutDate / PutTime included),
  Priority, Persistence, Report, ReplyToQ/QMgr and the version-2 fields of the MQMDE
  (GroupId, MsgSeqNumber, Offset, MsgFlags, OriginalLength) survive: the message is put
  with MQPMO_SET_ALL_CONTEXT and a version-2 MQMD. Expiry is what remained when the
  message was got from the transmission queue, less the time since.
- Undeliverable: "If a message cannot be delivered to its destination queue, it is put
  on the dead-letter queue of the receiving queue manager" with an MQDLH whose Reason
  says why ("Dead-letter queues",
  https://www.ibm.com/docs/en/ibm-mq/9.4.x?topic=queues-dead-letter-queues; MQDLH:
  https://www.ibm.com/docs/en/SSFKSJ_latest/refdev/q096110_.html). A message the
  dead-letter queue cannot take either (no DEADQ, or it refuses) fails the batch.
- NPMSPEED(FAST): "The receiving MCA puts the nonpersistent messages on the destination
  queue immediately and makes them visible. Persistent messages are not made visible
  until the next sync point." (the spec text, IBM's "Sequence of retrieval of fast,
  nonpersistent messages").
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, replace
from itertools import groupby

import adapter.pymqi as pymqi
from adapter.channel.batchio import put as engine_put
from adapter.channel.batchio import put_request
from adapter.channel.batchio import put_run as engine_put_run
from adapter.core.calls import PutRequest
from adapter.core.dlh import DeadLetterHeader
from adapter.core.text import mqstr
from adapter.core.xqh import TransmissionHeader

log = logging.getLogger("mqk.channel.receiver")
C = pymqi.CMQC
# Reasons a destination refuses a message that send it to the dead-letter queue.
UNDELIVERABLE = frozenset(
    {
        C.MQRC_UNKNOWN_OBJECT_NAME,  # 2085
        C.MQRC_Q_FULL,  # 2053
        # 2056: the destination's broker disk is nearly full (shim/diskguard.py). IBM
        # names it as a reason an MCA meets putting to a remote queue
        # (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041260_.html); a DLQ
        # on the same disk refuses it too, and the batch then fails and is retried.
        C.MQRC_Q_SPACE_NOT_AVAILABLE,
        C.MQRC_PUT_INHIBITED,  # 2051
        C.MQRC_MSG_TOO_BIG_FOR_Q,  # 2030
        C.MQRC_Q_DELETED,  # 2052
        C.MQRC_NOT_AUTHORIZED,  # 2035
        C.MQRC_PERSISTENT_NOT_ALLOWED,  # 2048
    }
)
_OPEN = C.MQOO_OUTPUT | C.MQOO_SET_ALL_CONTEXT | C.MQOO_FAIL_IF_QUIESCING
_DEAD = mqstr(C.MQFMT_DEAD_LETTER_HEADER)


@dataclass(frozen=True)
class Transfer:
    """A message of a batch as the receiver puts it: its MQXQH (destination, MQMD,
    data), the expiry left, whether it is put under the batch's unit of work, and its
    message properties (propwire form)."""

    th: TransmissionHeader
    expiry: int
    syncpoint: bool
    properties: bytes = b""


def _destination(m: Transfer) -> tuple[str, str, bool]:
    return m.th.remote_q_name, m.th.remote_q_mgr_name, m.syncpoint


class Receiver:
    """Puts the messages of batches at the receiving queue manager `qm` (its own
    connection; the agent commits it)."""

    def __init__(self, qm: pymqi.QueueManager, qmgr: str) -> None:
        self.qm, self.qmgr = qm, qmgr
        # The MCA acts for the queue manager: it sets every context field.
        qm.get_handle().may_set_context = True
        self._queues: dict[tuple[str, str], pymqi.Queue] = {}
        self.dead_lettered = 0

    def _queue(self, qname: str, qmgr: str) -> pymqi.Queue:
        key = (qname, qmgr)
        q = self._queues.get(key)
        if q is None:
            od = pymqi.OD(
                Version=C.MQOD_VERSION_3, ObjectName=qname.encode(), ObjectQMgrName=qmgr.encode()
            )
            q = self._queues[key] = pymqi.Queue(self.qm, od, _OPEN)
        return q

    def put_batch(self, msgs: list[Transfer]) -> None:
        """Put the messages of a batch in order, each under the batch's unit of work
        (`syncpoint`) or visible at once, with its message properties, or dead-letter
        it. A run of messages for one destination goes to the engine at once
        (QueueHandle.put_run); each refusal is its message's."""
        for (qname, qmgr, syncpoint), same in groupby(msgs, _destination):
            run = list(same)
            sync = C.MQPMO_SYNCPOINT if syncpoint else C.MQPMO_NO_SYNCPOINT
            options = sync | C.MQPMO_SET_ALL_CONTEXT | C.MQPMO_FAIL_IF_QUIESCING
            items = [(put_request(m.th, m.expiry, options, m.properties), m.th.data) for m in run]
            try:
                outcomes: list[pymqi.MQMIError | None] = engine_put_run(
                    self._queue(qname, qmgr), items
                )
            except pymqi.MQMIError as err:  # the destination cannot be opened (2085, ...)
                if err.reason not in UNDELIVERABLE:
                    raise
                outcomes = [err] * len(run)
            for m, (req, _), err in zip(run, items, outcomes, strict=True):
                if err is None:
                    continue
                if err.reason not in UNDELIVERABLE:
                    raise err
                self._queues.pop((qname, qmgr), None)  # opened again for the next
                self._dead_letter(m.th, req, err.reason)

    def _dead_letter(self, th: TransmissionHeader, req: PutRequest, reason: int) -> None:
        dlq = self.qm.get_handle().qmgr_def().dead_letter_q
        if not dlq:
            log.error(
                "channel message for %s at %s refused (%d) and the queue manager has no DEADQ",
                th.remote_q_name, th.remote_q_mgr_name, reason,
            )  # fmt: skip
            raise pymqi.MQMIError(C.MQCC_FAILED, reason)
        now = time.gmtime()
        header = DeadLetterHeader(
            reason=reason,
            dest_q_name=th.remote_q_name,
            dest_q_mgr_name=th.remote_q_mgr_name,
            encoding=req.encoding,
            coded_char_set_id=req.ccsid,
            format=req.format.encode(),
            put_appl_type=C.MQAT_QMGR,
            put_appl_name=self.qmgr,
            put_date=time.strftime("%Y%m%d", now).encode(),
            put_time=time.strftime("%H%M%S00", now).encode(),
        )
        # The message as it was, behind the MQDLH, which takes its Format, Encoding and
        # CCSID; its context and properties stay.
        dead = replace(req, format=_DEAD, encoding=C.MQENC_NATIVE, ccsid=C.MQCCSI_Q_MGR)
        engine_put(self._queue(dlq, ""), dead, header.pack() + th.data)
        self.dead_lettered += 1
        log.warning(
            "channel message for %s at %s put to the dead-letter queue %s (reason %d)",
            th.remote_q_name, th.remote_q_mgr_name, dlq, reason,
        )  # fmt: skip

    def close(self) -> None:
        for q in self._queues.values():
            try:
                q.close()
            except pymqi.MQMIError:
                log.warning("closing a destination queue failed", exc_info=True)
        self._queues.clear()
