"""`mqk demo`, `mqk reassemble` and `mqk expire`: the streaming commands of the `mqk` CLI.

Wired in through the entry-point group `mqk.commands` (entry point `streaming`, the
function `add_parser(sub)`); each subcommand sets `func`, called with the parsed
arguments, returning the exit status. The launcher's start errors (demo starts the local
stack, the job resolves the connector jars) are reported as one line by ops' wrapper.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import sys

from ops.cli import Handler, reporting_start_errors


def _needs_spark(func: Handler) -> Handler:
    """A one-line error instead of a traceback where the `spark` extra is not installed."""

    @functools.wraps(func)
    def run(args: argparse.Namespace) -> int | None:
        if importlib.util.find_spec("pyspark") is None:
            print(f"mqk: {args.command} needs Spark: pip install 'mqk[spark]'", file=sys.stderr)
            return 2
        return func(args)

    return run


def _demo(args: argparse.Namespace) -> int:
    from streaming import demo

    return demo.run(verbose=args.verbose)


def _reassemble(args: argparse.Namespace) -> int:
    from streaming.job import run_from_args

    return run_from_args(args)


def _expire(args: argparse.Namespace) -> int:
    import threading

    from streaming.expiry_scan import ExpiryScanner
    from streaming.job import setup_logging

    setup_logging()
    queues = [args.queue] if args.queue else None
    with ExpiryScanner(args.qmgr, queues) as scanner:
        if args.once:
            results = scanner.scan()
            for res in results:
                print(f"{res.queue}: discarded {res.expired} expired, {res.reports} report(s)")
            return 0
        stop = threading.Event()
        try:
            scanner.run(args.interval, stop)
        except KeyboardInterrupt:
            stop.set()
    return 0


def add_parser(subparsers) -> None:
    """Add `demo`, `reassemble` and `expire` to the `mqk` subcommands."""
    from streaming.job import add_arguments

    p = subparsers.add_parser(
        "demo",
        help="the main job on the embedded local stack: the spec's example and a generated "
        "workload through the Spark reassembly job",
    )
    p.add_argument(
        "-v", "--verbose", action="store_true", help="also Spark's warnings and librdkafka's log"
    )
    p.set_defaults(func=reporting_start_errors(_needs_spark(_demo)))

    p = subparsers.add_parser(
        "reassemble",
        help="Spark job: complete logical messages, complete groups and expiry reports",
        description=(
            "Reassemble a queue's segments and groups with Spark Structured Streaming "
            "(exactly-once outputs to mqk.<QM>.<Q>.logical and .groups, expiration "
            "reports to the ReplyToQ)."
        ),
    )
    add_arguments(p)
    p.set_defaults(func=reporting_start_errors(_needs_spark(_reassemble)))

    p = subparsers.add_parser(
        "expire",
        help="EXPRYINT: discard expired messages still on queues, with their reports",
    )
    p.add_argument("qmgr")
    p.add_argument("queue", nargs="?", help="one queue (default: every queue of QMGR)")
    p.add_argument("--interval", type=float, default=30.0, help="seconds between scans")
    p.add_argument("--once", action="store_true", help="one pass (REFRESH QMGR TYPE(EXPIRY))")
    p.set_defaults(func=reporting_start_errors(_expire))


def main(argv: list[str] | None = None) -> int:
    """`python -m streaming.cli`: these commands alone, without the `mqk` CLI."""
    parser = argparse.ArgumentParser(prog="mqk")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args) or 0


if __name__ == "__main__":
    sys.exit(main())
