"""`mqk mqsc QMGR [FILE]`: runmqsc for the queue objects mqk has. It reads MQSC commands
from FILE or standard input (`mqk mqsc QM1 < app.mqsc`, as `runmqsc QM1 < app.mqsc`),
runs each on one connection and prints runmqsc's report: the header, each command echoed
with its number (continuation and comment lines under it), the response messages, and
the summary of commands read, syntax errors and commands that could not be processed.

Exit status as runmqsc's (https://www.ibm.com/docs/SSFKSJ_9.4.0/refadmin/q083460_.html):
0 every command ran, 10 some command had a syntax error or failed, 20 the commands were
not run (the queue manager is not available, the file cannot be read). `-e` leaves the
echo out, as runmqsc -e does; `-v` verifies each command and performs none, as runmqsc
-v does (adapter/tools/mqscverify.py): the same report, syntax errors in the same words,
exit status 10 when some command has a syntax error or an invalid value.

The report's shape is IBM's ("Running MQSC commands from text files",
https://www.ibm.com/docs/SSFKSJ_9.0.0/com.ibm.mq.adm.doc/q020670_.html; the summary and
the syntax error texts as an APAR shows them, https://ibm.com/support/pages/node/4709355).
One deliberate difference: runmqsc's first line is IBM's product number and copyright
("5724-H72 (C) Copyright IBM Corp. ..."), which mqk, not being IBM MQ, does not print.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable, Iterable

import adapter.pymqi as pymqi
from adapter.core import mqscparse
from adapter.tools import mqscchannel, mqscsub
from adapter.tools.mqscrun import Processor
from adapter.tools.mqscverify import Verified, VerifyOnly

log = logging.getLogger(__name__)
VERBS = (
    "ALTER",
    "CLEAR",
    "DEFINE",
    "DELETE",
    "DISPLAY",
    "END",
    "RESET",
    "RESOLVE",
    "START",
    "STOP",
)
mqscchannel.register()
mqscsub.register()


def _count(n: int, one: str, many: str, none: str) -> str:
    return none if n == 0 else one if n == 1 else many.format(n)


def run(
    qm: pymqi.QueueManager,
    qmgr: str,
    lines: Iterable[str],
    out: Callable[[str], None],
    echo: bool = True,
    verify: bool = False,
) -> int:
    """Run MQSC `lines` on `qm`, printing runmqsc's report through `out`; the exit
    status (0 or 10). `verify` (runmqsc -v): check each command, perform none."""
    out(f"Starting MQSC for queue manager {qmgr}.")
    out("")
    out("")
    processor = Processor(VerifyOnly() if verify else qm, qmgr, out)  # type: ignore[arg-type]
    read = syntax = failed = 0
    for item in mqscparse.read(lines):
        if isinstance(item, mqscparse.Comment):
            if echo:
                out(f"       : {item.line}")
            continue
        if echo:
            out(f"{item.number:6d} : {item.lines[0]}")
            for line in item.lines[1:]:
                out(f"       : {line}")
        if item.text.strip().upper() == "END":
            break  # END ends the input and is not counted (runmqsc's summary)
        read += 1
        try:
            ok = processor.run(mqscparse.parse(item))
        except mqscparse.MQSCSyntaxError as err:
            syntax += 1
            out("AMQ8405I: Syntax error detected at or near end of command segment below:-")
            out(err.segment)
            if err.reason == "unknown verb":
                out("AMQ8426I: Valid MQSC commands are:")
                for verb in VERBS:
                    out(f"    {verb}")
            continue
        except Verified:
            ok = True  # -v: valid, and not performed
        except Exception as exc:  # noqa: BLE001 - a report line, never a traceback
            log.debug("MQSC command %d failed", item.number, exc_info=True)
            out(f"mqk: the command failed: {type(exc).__name__}: {exc}")
            ok = False
        failed += not ok
    out(_count(read, "One MQSC command read.", "{} MQSC commands read.", "No MQSC commands read."))
    out(
        _count(
            syntax,
            "One command has a syntax error.",
            "{} commands have a syntax error.",
            "No commands have a syntax error.",
        )
    )
    out(
        _count(
            failed,
            "One valid MQSC command could not be processed.",
            "{} valid MQSC commands could not be processed.",
            "All valid MQSC commands were processed.",
        )
    )
    return 10 if syntax or failed else 0


def mqsc_command(args: argparse.Namespace) -> int:
    try:
        source = open(args.file, encoding="utf-8") if args.file else sys.stdin  # noqa: SIM115
    except OSError as err:
        print(f"mqk mqsc: cannot read {args.file}: {err.strerror}", file=sys.stderr)
        return 20
    try:
        try:
            qm = pymqi.connect(args.qmgr)
        except Exception:  # noqa: BLE001 - runmqsc's words, the detail in the log
            log.debug("connecting to %s failed", args.qmgr, exc_info=True)
            print("AMQ8146E: IBM MQ queue manager not available.")
            return 20
        try:
            out = lambda line: print(line, flush=False)  # noqa: E731
            return run(qm, args.qmgr, source, out, args.echo, args.verify)
        finally:
            try:
                qm.disconnect()
            except pymqi.Error:
                log.debug("disconnect failed", exc_info=True)
    finally:
        if source is not sys.stdin:
            source.close()


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "mqsc",
        help="runmqsc: run MQSC commands (DEFINE/ALTER/DELETE/DISPLAY/CLEAR of queues, "
        "DISPLAY QSTATUS, ALTER/DISPLAY QMGR) from FILE or standard input",
    )
    p.add_argument("qmgr")
    p.add_argument("file", nargs="?", help="the MQSC file (default: standard input)")
    p.add_argument(
        "-e", dest="echo", action="store_false", help="do not echo the commands (runmqsc -e)"
    )
    p.add_argument(
        "-v",
        dest="verify",
        action="store_true",
        help="verify the commands without performing them (runmqsc -v)",
    )
    p.set_defaults(func=mqsc_command)
