"""The channel agent's message I/O without the pymqi face's per-message structures.

The agent gets every message of a batch from the transmission queue and puts it at its
destination. Through the face, each of those calls builds and fills an MQMD and an
MQGMO / MQPMO (every field coerced on assignment) only for the agent to read three
fields back (MsgId, Persistence, Expiry) or to copy the MQXQH's MQMD into it. Here the
engine's requests are built once per option set (gets) or straight from the MQXQH's
descriptor (puts), and the engine's handles are called directly. What MQ defines stays
where it is: the engine's MQGET and MQPUT rules (priority order, syncpoint, context,
MAXDEPTH, put inhibition, reports, the destination's refusals that send a message to
the dead-letter queue) all run as before, and a failure reaches the agent as the face
gives it (`failures.mqi`: MQMIError with MQ's reason, the unit of work doomed on an
unexpected one).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, NamedTuple

import adapter.pymqi as pymqi
from adapter.core import propwire
from adapter.core.calls import GetRequest, PutRequest
from adapter.core.model import id24
from adapter.core.xqh import TransmissionHeader
from adapter.pymqi.failures import mqi

C = pymqi.CMQC


@mqi
def _get_run(queue: pymqi.Queue, req: GetRequest, limit: int, max_bytes: int, wait_ms: int) -> Any:
    return queue.get_handle().get_run(req, limit, max_bytes, wait_ms)


@mqi
def _put(queue: pymqi.Queue, req: PutRequest, data: bytes) -> Any:
    return queue.get_handle().put(req, data, put1=False)


class Got(NamedTuple):
    """A message got from the transmission queue: its MQMD (the engine's form), its
    data (MQXQH first) and its message properties (adapter.core.propwire's form)."""

    md: dict[str, Any]
    data: bytes
    properties: bytes


class XmitGetter:
    """Destructive gets from an open transmission queue with `options` (its syncpoint
    option; MQGMO_WAIT added when a wait is asked), the requests made once. Properties
    come into a message handle, as the MCA gets them: left to PROPCTL they would reach
    the data as an MQRFH2 in front of the MQXQH."""

    def __init__(self, queue: pymqi.Queue, options: int) -> None:
        self.queue = queue
        options |= C.MQGMO_FAIL_IF_QUIESCING | C.MQGMO_PROPERTIES_IN_HANDLE
        # The face's own translation of a default MQMD and the MQGMO (with a message
        # handle): the same request an MQGET with these options would make.
        no_wait = pymqi.get_request(pymqi.MD(), pymqi.GMO(Options=options))
        self._no_wait = replace(no_wait, msg_handle=True)
        self._wait = replace(self._no_wait, options=options | C.MQGMO_WAIT)

    def get_run(self, wait_ms: int, limit: int, max_bytes: int = 0) -> list[Got]:
        """Up to `limit` next messages (and no more once `max_bytes` of data are got, 0:
        no limit), the run there taken with one state call (the engine's get_run),
        waiting up to `wait_ms` for the first; [] for 2033."""
        req = self._wait if wait_ms > 0 else self._no_wait
        try:
            results = _get_run(self.queue, req, limit, max_bytes, max(wait_ms, 0))
        except pymqi.MQMIError as err:
            if err.reason == C.MQRC_NO_MSG_AVAILABLE:
                return []
            raise
        # No conversion and no buffer limit are asked: a warning cannot come with them.
        return [Got(r.md, r.data, propwire.pack(r.properties) if r.properties else b"")
                for r in results]  # fmt: skip


def put_request(
    th: TransmissionHeader, expiry: int, options: int, properties: bytes = b""
) -> PutRequest:
    """The MQPUT of the message `th` carries, as it was put at the sending end: its
    MQMD (and MQMDE's version-2 fields) with every context field set
    (MQPMO_SET_ALL_CONTEXT in `options`), `expiry` as what remains of it, and its
    message properties (propwire form)."""
    md, mde = th.md, th.mde
    ext = mde if mde is not None else md
    context = {
        "UserIdentifier": md["UserIdentifier"],
        "AccountingToken": bytes(md["AccountingToken"]),
        "ApplIdentityData": md["ApplIdentityData"],
        "PutApplType": md["PutApplType"],
        "PutApplName": md["PutApplName"],
        "ApplOriginData": md["ApplOriginData"],
        "PutDate": md["PutDate"],
        "PutTime": md["PutTime"],
    }
    return PutRequest(
        options,
        id24(md["MsgId"]),
        id24(md["CorrelId"]),
        mde["GroupId"] if mde is not None else C.MQGI_NONE,
        mde["MsgSeqNumber"] if mde is not None else 1,
        mde["Offset"] if mde is not None else 0,
        mde["MsgFlags"] if mde is not None else C.MQMF_NONE,
        md["Persistence"],
        md["Priority"],
        expiry,
        ext["Format"],
        ext["CodedCharSetId"],
        ext["Encoding"],
        md["MsgType"],
        md["Report"],
        md["Feedback"],
        md["ReplyToQ"],
        md["ReplyToQMgr"],
        mde["OriginalLength"] if mde is not None else C.MQOL_UNDEFINED,
        C.MQMD_VERSION_2,
        context,
        0,
        properties,
    )


@mqi
def put_run(queue: pymqi.Queue, items: list[tuple[PutRequest, bytes]]) -> list[Any]:
    """MQPUT of a run of messages through the engine's handle (QueueHandle.put_run):
    for each, None or the MQMIError its put failed with."""
    return queue.get_handle().put_run(items)


@mqi
def write_acks(qm: pymqi.QueueManager) -> None:
    """The consumption of the gets `qm`'s unit of work holds, into its transaction now
    (UnitsOfWork.write_acks): the agent's last get of a batch is behind it."""
    qm.get_handle().txn.write_acks()


def puts_at_once(qm: pymqi.QueueManager) -> None:
    """Syncpoint puts on `qm` go into its transaction as they are put, not at MQCMIT
    (UnitsOfWork.defer_puts): the agent commits right after a batch's puts, and the
    broker takes them while it goes on instead of in its commit."""
    qm.get_handle().txn.defer_puts = False


@mqi
def commit(qm: pymqi.QueueManager) -> None:
    """MQCMIT of one end's batch without waiting for its puts to become readable
    (Connection.commit(visible=False)): nothing the agent does next reads them but
    the next batch's sync-record get, which waits for its record (syncq.py)."""
    qm.get_handle().commit(visible=False)


@mqi
def await_committed(qm: pymqi.QueueManager) -> None:
    """Once this returns, what `commit` committed on `qm` is readable."""
    qm.get_handle().txn.await_committed()


def put(queue: pymqi.Queue, req: PutRequest, data: bytes) -> None:
    """MQPUT through the engine's handle: MQMIError as the face raises it. A warning
    (the message is put) is not a failure of the batch."""
    _put(queue, req, data)
