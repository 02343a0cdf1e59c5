"""`mqk channel run QMGR CHANNEL`: run a sender channel's agent in the foreground (as
MQ's runmqchl -c CHANNEL -m QMGR, https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q083410_.html)
until STOP CHANNEL, SIGTERM / SIGINT or the queue manager quiescing: runnable under any
process supervisor. Exit status as runmqchl's: 0 ended normally, 20 the channel could
not run (a sequence-number mismatch, no such sender channel)."""

from __future__ import annotations

import argparse
import logging
import signal
import threading

from adapter.channel.agent import run_channel

log = logging.getLogger("mqk.channel.cli")


def run_command(args: argparse.Namespace) -> int:
    stop = threading.Event()

    def _stop(signum: int, _frame: object) -> None:
        log.info("signal %d: channel %s stopping", signum, args.channel)
        stop.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    return 0 if run_channel(args.qmgr, args.channel, stop, poll_ms=args.poll_ms) == 0 else 20


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("channel", help="message channels: run a sender channel's agent")
    verbs = p.add_subparsers(dest="verb", required=True, metavar="VERB")
    run = verbs.add_parser("run", help="runmqchl: run sender channel CHANNEL of QMGR")
    run.add_argument("qmgr")
    run.add_argument("channel")
    run.add_argument(
        "--poll-ms", type=int, default=500, help="how long a get waits for a batch's first message"
    )
    run.set_defaults(func=run_command)
