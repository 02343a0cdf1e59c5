"""`mqk put`, `mqk get`, `mqk browse`: IBM MQ's amqsput, amqsget and amqsbcg samples.

They make the same MQI calls with the same options and print what the samples print, so
a session reads as it does on MQ:

- `mqk put QMGR Q` (amqsput): MQOPEN for output, then each line of standard input (or
  `--file`) a datagram of format MQSTR, new-line removed, put outside syncpoint; an empty
  line or the end of the input ends it. A line longer than 65534 bytes becomes several
  messages, as the sample's buffer cuts it. "Sample AMQSPUT0 start", "target queue is Q",
  "Sample AMQSPUT0 end"; a failed call prints "MQOPEN ended with reason code 2085" (and
  "unable to open queue for output"), "MQPUT ended with reason code ...".
- `mqk get QMGR Q` (amqsget): MQOPEN with MQOO_INPUT_AS_Q_DEF, then MQGET with
  MQGMO_WAIT (15 seconds, `--wait`), MQGMO_NO_SYNCPOINT and MQGMO_CONVERT, a 65535-byte
  buffer, until none is left: "message <text>" for each (the text up to its first NUL,
  as C's `%s` prints it), then "no more messages".
- `mqk browse QMGR Q` (amqsbcg): MQOPEN with MQOO_BROWSE, MQGET with MQGMO_BROWSE_NEXT,
  MQGMO_NO_WAIT and MQGMO_ACCEPT_TRUNCATED_MSG into a 64 KiB buffer, each message's MQMD
  and data dumped as adapter/core/amqsbcg.py lays them out, then the summary. Nothing is
  removed.

Beyond the samples: `--count N` stops after N messages; `--properties` gets into a message
handle (amqsbcg's property option 1) and prints the properties; `put` takes
`--priority`, `--persistent`, `--correl-id`, `--property` and `--syncpoint` (one unit of
work, committed at the end, backed out if a put fails).

Exit status: 0, or 2 (MQCC_FAILED) when an MQI call failed, as amqsbcg returns its
completion code. (amqsput and amqsget end 0 after a failed MQOPEN or MQPUT, and exit with
the MQCONNX reason code; a command in a script needs to tell failure from success.)

IBM's texts: "The Put sample programs"
(https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.0.0/com.ibm.mq.dev.doc/q024260_.htm),
"Running the Put sample programs" (open options 8208, MQOO_OUTPUT + FAIL_IF_QUIESCING:
https://ibm.com/support/knowledgecenter/en/SSFKSJ_latest/develop/q024270_.html), "The Get
sample programs" (MQOO_INPUT_AS_Q_DEF, a 15-second wait, MsgId and CorrelId cleared for
each MQGET, a fixed buffer: https://www.ibm.com/docs/SSFKSJ_9.4.0/develop/q024180_.html),
"The Browser sample program" (https://www.ibm.com/docs/SSFKSJ_9.4.0/develop/q024070_.html),
and the samples' sources: samp/amqsput0.c and samp/amqsget0.c (MQ 9.3.1, for the texts
and options), samp/amqsbcg0.c (MQ 9.4.4, through adapter/core/amqsbcg.py).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import os
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import adapter.pymqi as pymqi
from adapter.core import amqsbcg

C = pymqi.CMQC

PUT_LINE_MAX = 65534  # amqsput's fgets into a 65535-byte buffer
GET_BUFFER = 65535  # amqsget's buffer, less the byte for its terminating NUL
BROWSE_BUFFER = 65536  # amqsbcg's BUFFERLENGTH
DEFAULT_WAIT_S = 15  # amqsget's WaitInterval


class _Out:
    """Standard output as bytes, a line at a time and flushed, so a terminal sees each
    message as it is got; message data goes out as the bytes it is, as the samples'
    printf writes it."""

    def __init__(self, stream: BinaryIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stdout.buffer

    def __call__(self, *lines: str | bytes) -> None:
        for line in lines:
            data = line.encode("utf-8") if isinstance(line, str) else line
            self.stream.write(data + b"\n")
        self.stream.flush()


def _ended_by_the_user(command: Callable[[argparse.Namespace], int]):
    """Ctrl-C ends a command as it ends a sample, without a traceback (exit status 130,
    the shell's for SIGINT); a reader that went away (`mqk browse ... | head`) ends it
    quietly. The connection goes with the process, as a killed sample's does."""

    @functools.wraps(command)
    def run(args: argparse.Namespace) -> int:
        try:
            return command(args)
        except KeyboardInterrupt:
            return 130
        except BrokenPipeError:
            if getattr(args, "out", None) is None:  # the process's own standard output:
                # nothing more can be written; keep the interpreter's flush at exit quiet
                with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation):
                    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 141  # 128 + SIGPIPE, as a shell reports a writer killed by it

    return run


# -- arguments -------------------------------------------------------------------------

_HEX = re.compile(r"(?:[0-9A-Fa-f]{2}){1,24}")

_PROPERTY_TYPES: dict[str, tuple[int, Callable[[str], Any]]] = {
    "string": (C.MQTYPE_STRING, str),
    "boolean": (C.MQTYPE_BOOLEAN, lambda v: v.strip().lower() in ("1", "true", "yes")),
    "int8": (C.MQTYPE_INT8, int),
    "int16": (C.MQTYPE_INT16, int),
    "int32": (C.MQTYPE_INT32, int),
    "int64": (C.MQTYPE_INT64, int),
    "float32": (C.MQTYPE_FLOAT32, float),
    "float64": (C.MQTYPE_FLOAT64, float),
    "bytes": (C.MQTYPE_BYTE_STRING, bytes.fromhex),
    "null": (C.MQTYPE_NULL, lambda v: None),
}


def correl_id(value: str) -> bytes:
    """--correl-id: hex digits (an even number, at most 48) are the bytes they spell;
    anything else is text, encoded UTF-8 and NUL-padded to 24 bytes."""
    raw = bytes.fromhex(value) if _HEX.fullmatch(value) else value.encode("utf-8")
    if len(raw) > C.MQ_CORREL_ID_LENGTH:
        raise argparse.ArgumentTypeError(f"a CorrelId holds 24 bytes, not {len(raw)}")
    return raw.ljust(C.MQ_CORREL_ID_LENGTH, b"\0")


def message_property(value: str) -> tuple[str, int, Any]:
    """--property NAME=VALUE (an MQTYPE_STRING) or NAME:TYPE=VALUE, TYPE one of
    string, boolean, int8, int16, int32, int64, float32, float64, bytes (hex), null."""
    name, sep, text = value.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"NAME=VALUE or NAME:TYPE=VALUE, not {value!r}")
    name, _, type_name = name.partition(":")
    kind = _PROPERTY_TYPES.get((type_name or "string").lower())
    if kind is None:
        raise argparse.ArgumentTypeError(f"TYPE is one of {', '.join(_PROPERTY_TYPES)}")
    try:
        return name, kind[0], kind[1](text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"{value!r}: {err}") from None


def _lines(stream: BinaryIO) -> Iterator[bytes]:
    """amqsput's input: each line without its new-line, until an empty line or the end;
    a line longer than the sample's buffer comes in pieces."""
    while True:
        line = stream.readline(PUT_LINE_MAX)
        if line.endswith(b"\n"):
            line = line[:-1]
        if not line:
            return
        yield line


def _properties(handle: pymqi.MessageHandle) -> list[tuple[str, int, Any]]:
    """MQINQMP of '%' with MQIMPO_INQ_NEXT until 2471, as amqsbcg's printProperties:
    (name, type, value). The handle's property store is asked directly because pymqi's
    `properties.get` does not return MQINQMP's Type, which the printing needs."""
    store = handle._handles.properties(handle.msg_handle)
    found: list[tuple[str, int, Any]] = []
    options = C.MQIMPO_CONVERT_VALUE | C.MQIMPO_INQ_FIRST
    while True:
        try:
            got = store.inquire("%", options)
        except pymqi.MQMIError as err:
            if err.reason == C.MQRC_PROPERTY_NOT_AVAILABLE:
                return found
            raise
        found.append((got.name, got.type, got.value))
        options = C.MQIMPO_CONVERT_VALUE | C.MQIMPO_INQ_NEXT


# -- amqsput ---------------------------------------------------------------------------


@_ended_by_the_user
def put_command(args: argparse.Namespace) -> int:
    return _sample(args, "AMQSPUT0", C.MQOO_OUTPUT, "output", _put_lines)


def _sample(
    args: argparse.Namespace,
    sample: str,
    open_options: int,
    purpose: str,
    work: Callable[[argparse.Namespace, pymqi.QueueManager, pymqi.Queue, _Out], bool],
) -> int:
    """amqsput's and amqsget's frame: their start line, MQCONNX, MQOPEN
    (`open_options`, failing if quiescing), `work`, MQCLOSE, MQDISC, each failure printed
    as the samples print it, their end line; the exit status."""
    out = _Out(getattr(args, "out", None))
    out(f"Sample {sample} start")
    try:
        qm = pymqi.connect(args.qmgr)
    except pymqi.MQMIError as err:
        out(f"MQCONNX ended with reason code {err.reason}")
        return C.MQCC_FAILED  # the sample ends there, without its end line
    failed = False
    if purpose == "output":
        out(f"target queue is {args.queue}")
    try:
        queue = pymqi.Queue(qm, args.queue, open_options | C.MQOO_FAIL_IF_QUIESCING)
    except pymqi.MQMIError as err:
        out(f"MQOPEN ended with reason code {err.reason}", f"unable to open queue for {purpose}")
        queue, failed = None, True
    if queue is not None:
        failed = work(args, qm, queue, out)
        failed = _close(queue, out) or failed
    failed = _disconnect(qm, out) or failed
    out(f"Sample {sample} end")
    return C.MQCC_FAILED if failed else 0


def _put_lines(
    args: argparse.Namespace, qm: pymqi.QueueManager, queue: pymqi.Queue, out: _Out
) -> bool:
    """The put loop; True when a call failed."""
    sync = C.MQPMO_SYNCPOINT if args.syncpoint else C.MQPMO_NO_SYNCPOINT
    pmo = pymqi.PMO(Options=sync | C.MQPMO_FAIL_IF_QUIESCING)
    if args.property:
        handle = pymqi.MessageHandle(qm)
        for name, ptype, value in args.property:
            handle.properties.set(name, value, ptype)
        pmo.OriginalMsgHandle = handle.msg_handle
    failed = False
    stream = open(args.file, "rb") if args.file else sys.stdin.buffer  # noqa: SIM115
    try:
        for line in _lines(stream):
            md = pymqi.MD(
                Format=C.MQFMT_STRING,
                # amqsput leaves MQCCSI_Q_MGR for MQ to fill in; this queue manager's
                # CCSID is the connection's default (1208, UTF-8).
                CodedCharSetId=qm.default_ccsid,
                Priority=C.MQPRI_PRIORITY_AS_Q_DEF if args.priority is None else args.priority,
                Persistence=(
                    C.MQPER_PERSISTENT if args.persistent else C.MQPER_PERSISTENCE_AS_Q_DEF
                ),
                CorrelId=args.correl_id or C.MQCI_NONE,
            )
            try:
                queue.put(line, md, pmo)
            except pymqi.MQMIError as err:
                out(f"MQPUT ended with reason code {err.reason}")
                if err.comp == C.MQCC_FAILED:
                    failed = True
                    break
    finally:
        if args.file:
            stream.close()
    if args.syncpoint:
        failed = _end_unit_of_work(qm, failed, out) or failed
    return failed


def _end_unit_of_work(qm: pymqi.QueueManager, failed: bool, out: _Out) -> bool:
    """--syncpoint: MQCMIT, or MQBACK after a failed put (all the lines or none)."""
    verb, call = ("MQBACK", qm.backout) if failed else ("MQCMIT", qm.commit)
    try:
        call()
    except pymqi.MQMIError as err:
        out(f"{verb} ended with reason code {err.reason}")
        return True
    return False


def _close(queue: pymqi.Queue, out: _Out) -> bool:
    try:
        queue.close()
    except pymqi.MQMIError as err:
        out(f"MQCLOSE ended with reason code {err.reason}")
        return err.comp == C.MQCC_FAILED
    return False


def _disconnect(qm: pymqi.QueueManager, out: _Out) -> bool:
    try:
        qm.disconnect()
    except pymqi.MQMIError as err:
        out(f"MQDISC ended with reason code {err.reason}")
        return err.comp == C.MQCC_FAILED
    return False


# -- amqsget ---------------------------------------------------------------------------


@_ended_by_the_user
def get_command(args: argparse.Namespace) -> int:
    return _sample(args, "AMQSGET0", C.MQOO_INPUT_AS_Q_DEF, "input", _get_messages)


def _get_messages(
    args: argparse.Namespace, qm: pymqi.QueueManager, queue: pymqi.Queue, out: _Out
) -> bool:
    """The get loop; True when MQGET failed for another reason than 2033."""
    gmo = pymqi.GMO(
        Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT | C.MQGMO_CONVERT,
        WaitInterval=C.MQWI_UNLIMITED if args.wait < 0 else int(args.wait * 1000),
    )
    handle = None
    if args.properties:
        handle = pymqi.MessageHandle(qm)
        gmo.Options |= C.MQGMO_PROPERTIES_IN_HANDLE
        gmo.MsgHandle = handle.msg_handle
    got = 0
    while args.count is None or got < args.count:
        md = pymqi.MD()  # MsgId and CorrelId none: the next message, whichever it is
        try:
            data = queue.get(GET_BUFFER, md, gmo)
        except pymqi.MQMIError as err:
            if err.reason == C.MQRC_NO_MSG_AVAILABLE:
                out("no more messages")
                return False
            out(f"MQGET ended with reason code {err.reason}")
            # 2080 is a warning (the message stays); amqsget treats it as a failure
            if err.comp == C.MQCC_FAILED or err.reason == C.MQRC_TRUNCATED_MSG_FAILED:
                return True
            data = getattr(err, "message", b"")  # a warning still gives the message
        got += 1
        out(b"message <" + bytes(data).split(b"\0", 1)[0] + b">")
        if handle is not None:  # each property under its message, as amqsbcg prints one
            out(*(amqsbcg.property_line(*prop) for prop in _properties(handle)))
    return False


# -- amqsbcg ---------------------------------------------------------------------------


@_ended_by_the_user
def browse_command(args: argparse.Namespace) -> int:
    out = _Out(getattr(args, "out", None))
    out(*amqsbcg.banner_lines())
    try:
        qm = pymqi.connect(args.qmgr)
    except pymqi.MQMIError as err:
        out(f" MQCONNX failed with CompCode:{err.comp}, Reason:{err.reason}")
        return C.MQCC_FAILED
    out(*amqsbcg.open_lines(args.queue))
    status = 0
    try:
        queue = pymqi.Queue(qm, args.queue, C.MQOO_BROWSE)
    except pymqi.MQMIError as err:
        out(f" MQOPEN failed with CompCode:{err.comp}, Reason:{err.reason}")
        queue, status = None, C.MQCC_FAILED
    if queue is not None:
        status = _browse_messages(args, qm, queue, out)
        out(" MQCLOSE")
        if _close_quietly(queue, out):
            status = C.MQCC_FAILED
    out(" MQDISC")
    try:
        qm.disconnect()
    except pymqi.MQMIError as err:
        out(f"  failed with CompCode:{err.comp}, Reason:{err.reason}")
    return status


def _browse_messages(
    args: argparse.Namespace, qm: pymqi.QueueManager, queue: pymqi.Queue, out: _Out
) -> int:
    """amqsbcg's loop, its summary and MQDLTMH; the completion code it ends with."""
    handle = None
    gmo = pymqi.GMO(
        Version=C.MQGMO_VERSION_2,
        MatchOptions=C.MQMO_NONE,  # no need to reset MsgId and CorrelId between gets
        Options=C.MQGMO_NO_WAIT | C.MQGMO_ACCEPT_TRUNCATED_MSG | C.MQGMO_BROWSE_NEXT,
    )
    if args.properties:  # amqsbcg's property option 1
        out(" MQCRTMH")
        handle = pymqi.MessageHandle(qm)
        gmo.Version = C.MQGMO_VERSION_4
        gmo.MsgHandle = handle.msg_handle
        gmo.Options |= C.MQGMO_PROPERTIES_IN_HANDLE
    summary = amqsbcg.BrowseSummary()
    status = 0
    number = 1
    while args.count is None or number <= args.count:
        md = pymqi.MD()
        comp = reason = 0
        try:
            data = queue.get(BROWSE_BUFFER, md, gmo)
            length = len(data)
        except pymqi.MQMIError as err:
            if err.comp == C.MQCC_FAILED:
                if err.reason == C.MQRC_NO_MSG_AVAILABLE:
                    out(*amqsbcg.no_more_lines())
                else:
                    out(*amqsbcg.get_failed_lines(number, err.comp, err.reason))
                    status = C.MQCC_FAILED
                break
            comp, reason = err.comp, err.reason  # 2079: the first 64 KiB of a longer one
            data = getattr(err, "message", b"")
            length = getattr(err, "original_length", len(data))
        summary.add(length)
        props = _properties(handle) if handle is not None else None
        out(
            *amqsbcg.message_lines(
                number, md.get(), data, length, comp=comp, reason=reason, properties=props
            )
        )
        number += 1
    out(*summary.lines())
    if handle is not None:
        out(" MQDLTMH")
        handle.dlt()
    return status


def _close_quietly(queue: pymqi.Queue, out: _Out) -> bool:
    """amqsbcg's MQCLOSE: a failure is printed under the call's line."""
    try:
        queue.close()
    except pymqi.MQMIError as err:
        out(f"  failed with CompCode:{err.comp}, Reason:{err.reason}")
        return err.comp == C.MQCC_FAILED
    return False


# -- registration ----------------------------------------------------------------------


def add_parser(sub: argparse._SubParsersAction) -> None:
    """The `mqk.commands` entry point: adds put, get and browse."""
    p = sub.add_parser("put", help="amqsput: each line of input a message (empty line ends)")
    p.add_argument("qmgr")
    p.add_argument("queue")
    p.add_argument("--file", type=Path, help="read the lines from FILE, not standard input")
    p.add_argument("--priority", type=int, help="MQMD Priority (default: the queue's)")
    p.add_argument("--persistent", action="store_true", help="MQPER_PERSISTENT messages")
    p.add_argument(
        "--correl-id",
        dest="correl_id",
        type=correl_id,
        metavar="HEX|TEXT",
        help="MQMD CorrelId: hex digits, or text (NUL-padded to 24 bytes)",
    )
    p.add_argument(
        "--property",
        action="append",
        type=message_property,
        metavar="NAME[:TYPE]=VALUE",
        help="a message property (repeatable); TYPE string (default), int32, boolean, ...",
    )
    p.add_argument("--syncpoint", action="store_true", help="put in one unit of work")
    p.set_defaults(func=put_command)

    p = sub.add_parser("get", help="amqsget: get and print every message (waits 15 s)")
    p.add_argument("qmgr")
    p.add_argument("queue")
    p.add_argument(
        "--wait",
        type=float,
        default=DEFAULT_WAIT_S,
        metavar="S",
        help="seconds MQGET waits for a message (default 15; -1 without limit)",
    )
    p.add_argument("--count", type=int, metavar="N", help="stop after N messages")
    p.add_argument("--properties", action="store_true", help="print each message's properties")
    p.set_defaults(func=get_command)

    p = sub.add_parser("browse", help="amqsbcg: print every message's MQMD and data, in hex")
    p.add_argument("qmgr")
    p.add_argument("queue")
    p.add_argument("--count", type=int, metavar="N", help="stop after N messages")
    p.add_argument(
        "--properties",
        action="store_true",
        help="get into a message handle and print the properties (option 1)",
    )
    p.set_defaults(func=browse_command)
