"""PCFExecute's way to a running command server: the command MQPUT to
SYSTEM.ADMIN.COMMAND.QUEUE, the responses MQGET from a reply queue, as pymqi / ibmmq do
it (their `PCFExecute` in ibmmq's mqadmin.py, read for its shape):

- the reply queue is opened once per PCFExecute from `model_queue_name` (default
  SYSTEM.DEFAULT.MODEL.QUEUE; a temporary dynamic queue named by `dynamic_queue_name`,
  default PYMQPCF.*), or `reply_queue_name`, with `reply_queue_open_options` (an input
  option is added when none is given);
- the request: Format MQADMIN, MsgType MQMT_REQUEST, ReplyToQ the reply queue, Report
  MQRO_PASS_DISCARD_AND_EXPIRY + MQRO_DISCARD_MSG, Expiry `command_timeout` (ms) in
  tenths, or three times `response_wait_interval` when it is 0; put outside syncpoint;
- the responses: MQGET with MQGMO_WAIT for `response_wait_interval` ms, matching the
  CorrelId on the request's MsgId, outside syncpoint, until the one with Control
  MQCFC_LAST. Nothing within the interval: MQMIError(MQCC_FAILED,
  MQRC_NO_MSG_AVAILABLE 2033), as pymqi raises it.

adapter/pymqi/pcf.py sends a command this way only while a command server runs (the
command queue has an input handle: `adapter.tools.cmdserver.is_running`'s test);
otherwise it runs the command in process (pcfserver.serve), where MQ would put the
request and time out with 2033. Both give the same responses.
"""

from __future__ import annotations

from typing import Any

from adapter.core import cmqc as C  # noqa: N812
from adapter.core import cmqcfc as F  # noqa: N812
from adapter.core import pcf
from adapter.pymqi.errors import MQMIError
from adapter.pymqi.structs import GMO, MD, OD, PMO

_INPUT = C.MQOO_INPUT_EXCLUSIVE | C.MQOO_INPUT_AS_Q_DEF | C.MQOO_INPUT_SHARED


def server_running(qm: Any, command_queue: str) -> bool:
    """Whether `command_queue` has an input handle open: the command server's."""
    try:
        return qm.queue_status(command_queue)["open_input_count"] > 0
    except MQMIError as err:
        if err.reason == C.MQRC_UNKNOWN_OBJECT_NAME:
            return False
        raise


class QueuePath:
    """The command queue and the reply queue of one PCFExecute. `queue_class` is the
    face's Queue (injected: this module cannot import the package that imports it)."""

    def __init__(self, owner: Any, queue_class: type) -> None:
        self.owner, self.queue_class = owner, queue_class
        self.reply: Any = None
        self.reply_name = b""

    def _open_reply(self) -> None:
        o = self.owner
        name = o.reply_queue_name or o.model_queue_name
        od = OD(ObjectName=name, DynamicQName=o.dynamic_queue_name)
        options = o.reply_queue_open_options
        if not options & _INPUT:
            options |= C.MQOO_INPUT_EXCLUSIVE
        self.reply = self.queue_class(o.qm, od, options)
        self.reply_name = bytes(od.ObjectName).strip(b" \0")

    def execute(self, request: bytes) -> list[bytes]:
        """The response messages to `request`, through the command server."""
        o = self.owner
        if self.reply is None:
            self._open_reply()
        wait = o.response_wait_interval
        expiry = o.command_timeout // 100 if o.command_timeout else (wait // 100) * 3
        md = MD(Format=C.MQFMT_ADMIN, MsgType=C.MQMT_REQUEST, ReplyToQ=self.reply_name,
                Feedback=C.MQFB_NONE, Expiry=expiry,
                Report=C.MQRO_PASS_DISCARD_AND_EXPIRY | C.MQRO_DISCARD_MSG)  # fmt: skip
        pmo = PMO(Options=C.MQPMO_NO_SYNCPOINT)
        if o.command_queue is not None:
            o.command_queue.put(request, md, pmo)
        else:
            queue = self.queue_class(o.qm, o.command_queue_name, C.MQOO_OUTPUT)
            try:
                queue.put(request, md, pmo)
            finally:
                queue.close()
        options = C.MQGMO_NO_SYNCPOINT | C.MQGMO_FAIL_IF_QUIESCING | C.MQGMO_WAIT
        if o.convert:
            options |= C.MQGMO_CONVERT
        out: list[bytes] = []
        while True:
            gmo = GMO(Options=options, Version=C.MQGMO_VERSION_2,
                      MatchOptions=C.MQMO_MATCH_CORREL_ID, WaitInterval=wait)  # fmt: skip
            got = MD(CorrelId=md.MsgId)
            data = self.reply.get(o.max_length, got, gmo)  # 2033 after the wait: raised
            out.append(data)
            if _last(data):
                return out

    def close(self) -> None:
        if self.reply is not None:
            reply, self.reply = self.reply, None
            reply.close()


def _last(data: bytes) -> bool:
    """Whether a response's MQCFH says MQCFC_LAST (Control, the sixth MQLONG)."""
    parsed = pcf.parse(data, C.MQENC_NATIVE)
    return not isinstance(parsed, pcf.Message) or parsed.header.control == F.MQCFC_LAST
