"""`mqk`: the command line (stack control, queue administration, the jobs)."""

from __future__ import annotations

import argparse
import sys


def _stack(args: argparse.Namespace) -> int:
    from ops import stack

    if args.action == "up":
        stack.up()
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


def _demo(args: argparse.Namespace) -> int:
    from adapter import demo

    return demo.run()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mqk", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("stack", help="the native local stack: Kafka (KRaft) + Redis")
    p.add_argument("action", choices=["up", "down", "status", "env"])
    p.add_argument("--wipe", action="store_true", help="with down: delete broker and Redis data")
    p.set_defaults(func=_stack)

    p = sub.add_parser("demo", help="the main job on the embedded local stack")
    p.set_defaults(func=_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args) or 0
    except Exception as exc:  # noqa: BLE001 - the CLI reports, never dumps a traceback
        from ops.jars import JarResolutionError
        from ops.kafka import KafkaStartError
        from ops.redis import RedisStartError

        if isinstance(exc, KafkaStartError | RedisStartError | JarResolutionError):
            print(f"mqk: {exc}", file=sys.stderr)
            return 2
        raise


if __name__ == "__main__":
    sys.exit(main())
