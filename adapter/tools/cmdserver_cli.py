"""`mqk strmqcsv QM` (the command server in the foreground, until endmqcsv, SIGTERM /
SIGINT or the queue manager's quiesce: runnable under any process supervisor),
`mqk endmqcsv [-c|-i] QM` and `mqk dspmqcsv QM`, as IBM MQ's control commands
(adapter/tools/cmdserver.py has the pages and the design).

Exit codes are IBM's for the three commands: 0 completed normally, 10 completed with
unexpected results (endmqcsv when no command server runs; strmqcsv when one already
does), 20 an error occurred (the queue manager is not available).
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading

import adapter.pymqi as pymqi
from adapter.tools import cmdserver

log = logging.getLogger("mqk.tools.cmdserver")
C = pymqi.CMQC


def _connect(qmgr: str) -> pymqi.QueueManager | None:
    try:
        return pymqi.connect(qmgr)
    except pymqi.MQMIError:
        log.debug("connecting to %s failed", qmgr, exc_info=True)
        print("AMQ8146E: IBM MQ queue manager not available.")
        return None


def strmqcsv(args: argparse.Namespace) -> int:
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    try:
        qm = pymqi.connect(args.qmgr, transactional_id=cmdserver.transactional_id(args.qmgr))
    except pymqi.MQMIError:
        log.debug("connecting to %s failed", args.qmgr, exc_info=True)
        print("AMQ8146E: IBM MQ queue manager not available.")
        return 20
    try:
        try:
            server = cmdserver.CommandServer(qm)
        except pymqi.MQMIError as err:
            if err.reason == C.MQRC_OBJECT_IN_USE:
                print(f"mqk: a command server for {args.qmgr} is already running.")
                return 10
            raise
        print(f"IBM MQ command server for queue manager {args.qmgr} started.", flush=True)
        try:
            why = server.serve(stop)
        finally:
            server.close()
        c = server.counts
        print(
            f"IBM MQ command server for queue manager {args.qmgr} ended ({why}): "
            f"{c.requests} requests, {c.failed_commands} failed commands, "
            f"{c.dead_lettered} replies dead-lettered, {c.undelivered} undelivered, "
            f"{c.backed_out} backed out.",
            flush=True,
        )
        return 0
    finally:
        qm.disconnect()


def endmqcsv(args: argparse.Namespace) -> int:
    qm = _connect(args.qmgr)
    if qm is None:
        return 20
    try:
        if not cmdserver.is_running(qm):
            print(f"mqk: the command server for {args.qmgr} is not running.")
            return 10
        cmdserver.request_stop(qm)
    finally:
        qm.disconnect()
    print("AMQ8021I: Request to stop IBM MQ Command Server accepted.")
    return 0


def dspmqcsv(args: argparse.Namespace) -> int:
    qm = _connect(args.qmgr)
    if qm is None:
        return 20
    try:
        running = cmdserver.is_running(qm)
    finally:
        qm.disconnect()
    print(f"AMQ8027I: IBM MQ Command Server Status ..: {'Running' if running else 'Stopped'}")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "strmqcsv",
        help="strmqcsv: run the command server (PCF on SYSTEM.ADMIN.COMMAND.QUEUE) "
        "in the foreground until endmqcsv or SIGTERM",
    )
    p.add_argument("qmgr")
    p.set_defaults(func=strmqcsv)
    p = sub.add_parser("endmqcsv", help="endmqcsv: stop the running command server")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("-c", dest="immediate", action="store_false", help="controlled")
    mode.add_argument("-i", dest="immediate", action="store_true", help="immediate")
    p.add_argument("qmgr")
    p.set_defaults(func=endmqcsv, immediate=False)
    p = sub.add_parser("dspmqcsv", help="dspmqcsv: is the command server running")
    p.add_argument("qmgr")
    p.set_defaults(func=dspmqcsv)


if __name__ == "__main__":  # python3 -m adapter.tools.cmdserver_cli strmqcsv QM
    _parser = argparse.ArgumentParser(prog="mqk")
    add_parser(_parser.add_subparsers(dest="command", required=True))
    _args = _parser.parse_args()
    sys.exit(_args.func(_args))
