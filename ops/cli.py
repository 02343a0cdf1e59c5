"""`mqk stack up|down|status|env`: the native launcher's commands in the `mqk` CLI.

Wired in through the entry-point group `mqk.commands` (pyproject.toml); `mqk bench` comes
from `ops.bench.cli` the same way. `reporting_start_errors` turns the launcher's start
errors (a port in use, a broker that never answered, jars Maven could not resolve) into
one line and exit status 2, never a traceback; every command that may start the stack or
resolve jars (stack, bench, demo, reassemble) is wrapped in it.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable

Handler = Callable[[argparse.Namespace], int | None]


def reporting_start_errors(func: Handler) -> Handler:
    @functools.wraps(func)
    def run(args: argparse.Namespace) -> int | None:
        from ops.jars import JarResolutionError
        from ops.kafka import KafkaStartError
        from ops.redis import RedisStartError

        try:
            return func(args)
        except (KafkaStartError, RedisStartError, JarResolutionError) as exc:
            print(f"mqk: {exc}", file=sys.stderr)
            return 2

    return run


def _stack(args: argparse.Namespace) -> int:
    from ops import stack

    if args.action == "up":
        stack.up(brokers=args.brokers)
    elif args.action == "down":
        stack.down(wipe=args.wipe)
    elif args.action == "status":
        running = True
        for name, st in stack.status().items():
            state = "running" if st["running"] else "stopped"
            running &= st["running"]
            print(f"{name:6} {state:8} pid={st['pid'] or '-'} {st['endpoint'] or ''}")
        return 0 if running else 3
    elif args.action == "env":
        lines = stack.env_lines()
        if not lines:
            print("# the local stack is not running: mqk stack up", file=sys.stderr)
            return 3
        print("\n".join(lines))
    return 0


def add_stack_parser(subparsers) -> None:
    """`mqk stack`: entry point `stack` of the group `mqk.commands`."""
    p = subparsers.add_parser("stack", help="the native local stack: Kafka (KRaft) + Redis")
    p.add_argument("action", choices=["up", "down", "status", "env"])
    p.add_argument("--wipe", action="store_true", help="with down: delete broker and Redis data")
    p.add_argument(
        "--brokers",
        type=int,
        default=1,
        help="with up: Kafka as a replicated cluster of this many KRaft nodes "
        "(3: RF 3, min.insync.replicas 2)",
    )
    p.set_defaults(func=reporting_start_errors(_stack))
