"""The command server: PCF commands from SYSTEM.ADMIN.COMMAND.QUEUE, answered on the
request's ReplyToQ, as IBM MQ's command server (strmqcsv / endmqcsv / dspmqcsv) does.

    run_command_server("QM1", stop_event)     # the library entry point (a thread)
    mqk strmqcsv QM1                          # the same in the foreground (a process)
    mqk endmqcsv QM1 / mqk dspmqcsv QM1

IBM: "strmqcsv", https://www.ibm.com/docs/SSFKSJ_9.3.0/refadmin/q083630_.html; "endmqcsv",
https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q083290_.html;
"dspmqcsv", https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q083200_.html;
"PCF command messages" (q020010_), "PCF responses in IBM MQ" (q020030_) and the reply
rules in adapter/core/cmdreplies.py.

Each request is one unit of work: the MQGET under syncpoint, the command (run by
adapter/pymqi/pcfserver.py's `serve`, unchanged), the responses MQPUT under syncpoint,
then MQCMIT. A server that dies before the commit leaves the request on the queue (its
lock lapses after MQK_UOW_LEASE_MS) and no response readable; the restarted server, on
the same stable transactional id (`mqk.cmdserver.<QM>`), fences the dead one's open
transaction at once and answers the request once. (The command's own effect, e.g. a
queue created, is not transactional in MQ either: run again, it answers what it finds.)

A response that cannot be put to its ReplyToQ goes to the queue manager's dead-letter
queue with an MQDLH whose Reason is the put's reason (as MQ does with a reply it cannot
deliver); with no dead-letter queue, or when that fails too, it is discarded, logged and
counted (`Counts.undelivered`) and the request still commits: backing it out would only
answer it again and fail again.

Design (mqk's, stated because MQ's internals are not a contract):
- Running / Stopped is whether SYSTEM.ADMIN.COMMAND.QUEUE has an input handle open
  (IPPROCS > 0): the server opens it MQOO_INPUT_EXCLUSIVE, so there is one server per
  queue manager; a second strmqcsv gets MQRC_OBJECT_IN_USE. After a kill -9 the dead
  server's open registration counts until its lease (MQK_OPEN_LEASE_MS) runs out.
- endmqcsv puts a control message on the command queue (Format `MQKCSV  `, priority 9,
  so it is the next message read: -c's "no new message is read"; it expires after 60 s
  if no server reads it). The server commits its get and stops. -i is the same: a
  request is one unit of work, so there is never a half-done one to abandon.
- A request whose processing raises (not a PCF failure: those are answered) is backed
  out and logged; once its BackoutCount reaches MAX_BACKOUTS it is answered with
  MQRCCF_COMMAND_FAILED instead of being run again.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field

import adapter.pymqi as pymqi
from adapter.core import cmdreplies as R  # noqa: N812
from adapter.core import pcf
from adapter.core.dlh import DeadLetterHeader
from adapter.core.pcfcommand import failure
from adapter.pymqi import pcfserver
from adapter.tools import pcfchannel

pcfchannel.register()  # the channel commands too (the face cannot import them)
log = logging.getLogger("mqk.tools.cmdserver")
C = pymqi.CMQC
CONTROL_FORMAT = b"MQKCSV  "
MAX_BACKOUTS = 3
WAIT_MS = 500  # how often the loop looks at its stop event between requests


def transactional_id(qmgr: str) -> str:
    return f"mqk.cmdserver.{qmgr}"


def ensure_system_queues(qm: pymqi.QueueManager) -> None:
    """crtmqm's defaults the command server needs, defined when missing:
    SYSTEM.ADMIN.COMMAND.QUEUE (local), SYSTEM.ADMIN.COMMAND.REPLY.MODEL and
    SYSTEM.DEFAULT.MODEL.QUEUE (models of temporary dynamic queues, PCFExecute's
    default reply model)."""
    wanted = {
        R.COMMAND_QUEUE: {"description": "IBM MQ Administration Command Queue"},
        R.REPLY_MODEL: {"queue_type": C.MQQT_MODEL,
                        "definition_type": C.MQQDT_TEMPORARY_DYNAMIC},
        R.DEFAULT_MODEL: {"queue_type": C.MQQT_MODEL,
                          "definition_type": C.MQQDT_TEMPORARY_DYNAMIC},
    }  # fmt: skip
    for name, attributes in wanted.items():
        try:
            qm.queue_status(name)
        except pymqi.MQMIError as err:
            if err.reason != C.MQRC_UNKNOWN_OBJECT_NAME:
                raise
            try:
                qm.define_queue(name, **attributes)
                log.info("defined %s", name)
            except pymqi.MQMIError as lost:  # another process defined it first
                if lost.reason != C.MQRCCF_OBJECT_ALREADY_EXISTS:
                    raise


def is_running(qm: pymqi.QueueManager) -> bool:
    """dspmqcsv: the command queue has an input handle open (the server's)."""
    try:
        return qm.queue_status(R.COMMAND_QUEUE)["open_input_count"] > 0
    except pymqi.MQMIError as err:
        if err.reason == C.MQRC_UNKNOWN_OBJECT_NAME:
            return False
        raise


def request_stop(qm: pymqi.QueueManager) -> None:
    """endmqcsv: the control message the running server stops on."""
    md = pymqi.MD(Format=CONTROL_FORMAT, MsgType=C.MQMT_DATAGRAM, Priority=9, Expiry=600,
                  Persistence=C.MQPER_NOT_PERSISTENT)  # fmt: skip
    qm.put1(R.COMMAND_QUEUE, b"ENDMQCSV", md, pymqi.PMO(Options=C.MQPMO_NO_SYNCPOINT))


@dataclass
class Counts:
    """What the server did, for logs and tests."""

    requests: int = 0
    failed_commands: int = 0  # answered with CompCode MQCC_FAILED
    dead_lettered: int = 0  # responses put to the dead-letter queue
    undelivered: int = 0  # responses that went nowhere
    backed_out: int = 0  # requests whose processing raised
    reasons: list[int] = field(default_factory=list)  # of the failed puts


class CommandServer:
    """Serves SYSTEM.ADMIN.COMMAND.QUEUE on the connection `qm` (its own: the server
    holds a unit of work open across each request)."""

    def __init__(self, qm: pymqi.QueueManager) -> None:
        self.qm = qm
        self.counts = Counts()
        ensure_system_queues(qm)
        self.queue = pymqi.Queue(qm, R.COMMAND_QUEUE,
                                 C.MQOO_INPUT_EXCLUSIVE | C.MQOO_FAIL_IF_QUIESCING)  # fmt: skip
        log.info("command server for %s started", qm.get_name())

    def close(self) -> None:
        self.queue.close()

    def serve_one(self, wait_ms: int = 0) -> str:
        """Takes one message: 'request' (answered, committed), 'stop' (endmqcsv's),
        'empty' (nothing came within `wait_ms`)."""
        md = pymqi.MD()
        options = C.MQGMO_SYNCPOINT | C.MQGMO_FAIL_IF_QUIESCING
        options |= C.MQGMO_WAIT if wait_ms else C.MQGMO_NO_WAIT
        gmo = pymqi.GMO(Options=options, WaitInterval=wait_ms)
        try:
            data = self.queue.get(None, md, gmo)
        except pymqi.MQMIError as err:
            if err.reason == C.MQRC_NO_MSG_AVAILABLE:
                return "empty"
            raise
        if bytes(md.Format) == CONTROL_FORMAT:
            self.qm.commit()
            log.info("command server for %s: endmqcsv received", self.qm.get_name())
            return "stop"
        try:
            self._answer(md, data)
            self.qm.commit()
        except Exception:
            self.counts.backed_out += 1
            log.exception("command server: request %s backed out", bytes(md.MsgId).hex())
            self.qm.backout()
            raise
        return "request"

    def _answer(self, md: pymqi.MD, data: bytes) -> None:
        self.counts.requests += 1
        encoding = md.Encoding
        bad = R.request_error(bytes(md.Format), data, encoding)
        if bad is not None:
            replies = [failure(bad.command, bad.reason, None, encoding)]
        elif md.BackoutCount >= MAX_BACKOUTS:
            command = pcf.parse(data, encoding)
            cmd = command.header.command if isinstance(command, pcf.Message) else 0
            replies = [failure(cmd, pymqi.CMQCFC.MQRCCF_COMMAND_FAILED, None, encoding)]
        else:
            replies = pcfserver.serve(self.qm, data, encoding)
        comp = _comp_code(replies, encoding)
        if comp == C.MQCC_FAILED:
            self.counts.failed_commands += 1
        if not R.answered(md.MsgType, md.Report, comp):
            return
        fields = R.reply_fields(md.Report, bytes(md.MsgId), bytes(md.CorrelId), md.Persistence,
                                md.Priority, md.Expiry)  # fmt: skip
        for reply in replies:
            self._put(md, fields, reply)

    def _put(self, request: pymqi.MD, f: R.ReplyFields, reply: bytes) -> None:
        md = pymqi.MD(MsgType=f.msg_type, Format=f.format, Encoding=request.Encoding,
                      CodedCharSetId=request.CodedCharSetId, CorrelId=f.correl_id,
                      Persistence=f.persistence, Priority=f.priority, Expiry=f.expiry,
                      Report=f.report)  # fmt: skip
        if f.msg_id is not None:
            md.MsgId = f.msg_id
        od = pymqi.OD(ObjectName=request.ReplyToQ, ObjectQMgrName=request.ReplyToQMgr)
        pmo = pymqi.PMO(Options=C.MQPMO_SYNCPOINT)  # MsgId MQMI_NONE: a new one
        try:
            self.qm.put1(od, reply, md, pmo)
        except pymqi.MQMIError as err:
            self.counts.reasons.append(err.reason)
            log.warning("command server: reply to %s not put (%s)",
                        _text(request.ReplyToQ), err.reason)  # fmt: skip
            self._dead_letter(request, md, reply, err.reason)

    def _dead_letter(self, request: pymqi.MD, md: pymqi.MD, reply: bytes, reason: int) -> None:
        deadq = self.qm.get_handle().qmgr_def().dead_letter_q
        if deadq:
            header = DeadLetterHeader(
                reason, _text(request.ReplyToQ), _text(request.ReplyToQMgr) or self.qm.get_name(),
                md.Encoding, md.CodedCharSetId, C.MQFMT_ADMIN, C.MQAT_QMGR,
                self.qm.get_name()[:28], b"", b"",
            )  # fmt: skip
            md.Format = C.MQFMT_DEAD_LETTER_HEADER
            try:
                self.qm.put1(deadq, header.pack(md.Encoding) + reply, md,
                             pymqi.PMO(Options=C.MQPMO_SYNCPOINT))  # fmt: skip
                self.counts.dead_lettered += 1
                return
            except pymqi.MQMIError as err:
                log.error("command server: dead-letter queue %s refused a reply (%s)",
                          deadq, err.reason)  # fmt: skip
        self.counts.undelivered += 1
        log.error("command server: a reply to %s was discarded", _text(request.ReplyToQ))

    def serve(self, stop_event: threading.Event | None = None) -> str:
        """Serves until `stop_event`, endmqcsv or the queue manager's quiesce/end;
        says which. A failure that is not the queue manager ending is logged and the
        loop goes on after a pause (GET(DISABLED) on the command queue, a request that
        raised and was backed out); a broken connection ends it with the error."""
        stop = stop_event or threading.Event()
        while not stop.is_set():
            try:
                if self.serve_one(WAIT_MS) == "stop":
                    return "endmqcsv"
            except pymqi.MQMIError as err:
                if err.reason in (C.MQRC_Q_MGR_QUIESCING, C.MQRC_Q_MGR_STOPPING):
                    log.info("command server: queue manager ending (%s)", err.reason)
                    return "quiesce"
                if err.reason == C.MQRC_CONNECTION_BROKEN:
                    raise
                log.warning("command server: MQGET failed (%s); retrying", err.reason)
                stop.wait(WAIT_MS / 1000)
            except Exception:  # noqa: BLE001 - logged and backed out in serve_one
                stop.wait(WAIT_MS / 1000)
        return "stopped"


def _comp_code(replies: list[bytes], encoding: int) -> int:
    worst = C.MQCC_OK
    for raw in replies:
        parsed = pcf.parse(raw, encoding)
        if isinstance(parsed, pcf.Message):
            worst = max(worst, parsed.header.comp_code)
    return worst


def _text(value: bytes | str) -> str:
    return (value.decode("ascii", "replace") if isinstance(value, bytes) else value).strip(" \0")


def run_command_server(
    qmgr_name: str, stop_event: threading.Event | None = None, **connect: object
) -> Counts:
    """The command server of `qmgr_name` until `stop_event` is set, endmqcsv, or the
    queue manager quiesces; `connect` goes to pymqi.connect (the servers, or the
    in-memory backends). Its counts."""
    connect.setdefault("transactional_id", transactional_id(qmgr_name))
    qm = pymqi.connect(qmgr_name, **connect)
    try:
        server = CommandServer(qm)
        try:
            why = server.serve(stop_event)
            log.info("command server for %s ended: %s", qmgr_name, why)
        finally:
            server.close()
        return server.counts
    finally:
        qm.disconnect()
