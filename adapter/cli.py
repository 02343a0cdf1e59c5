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


def _admin(args: argparse.Namespace) -> int:
    """DEFINE QLOCAL / DELETE QLOCAL / DISPLAY QSTATUS, in MQSC's words."""
    import adapter.pymqi as pymqi

    try:
        qm = pymqi.connect(args.qmgr)
        try:
            if args.command == "define":
                attrs = {k: v for k, v in vars(args).items() if k in _ATTRS and v is not None}
                qdef = qm.define_queue(args.queue, replace=args.replace, **attrs)
                print(f"AMQ8006I: IBM MQ queue created: {qdef.name}")
            elif args.command == "delete":
                qm.delete_queue(args.queue, purge=args.purge)
                print(f"AMQ8007I: IBM MQ queue deleted: {args.queue}")
            else:
                st = qm.queue_status(args.queue)
                a = st["attributes"]
                print(
                    f"QUEUE({st['queue']}) TYPE(QLOCAL) CURDEPTH({st['current_depth']}) "
                    f"IPPROCS({st['open_input_count']}) OPPROCS({st['open_output_count']}) "
                    f"MAXDEPTH({a['max_depth']}) MAXMSGL({a['max_msg_length']}) "
                    f"DEFPSIST({'YES' if a['def_persistence'] else 'NO'}) "
                    f"DEFPRTY({a['def_priority']}) "
                    f"MSGDLVSQ({'FIFO' if a['msg_delivery_sequence'] else 'PRIORITY'}) "
                    f"PARTITIONS({a['partitions']})"
                )
        finally:
            qm.disconnect()
    except pymqi.MQMIError as err:
        print(f"mqk: {args.command} {args.queue}: {err}", file=sys.stderr)
        return 1
    except ValueError as err:
        print(f"mqk: {args.command} {args.queue}: {err}", file=sys.stderr)
        return 2
    return 0


_ATTRS = {
    "max_msg_length",
    "max_depth",
    "def_persistence",
    "def_priority",
    "msg_delivery_sequence",
    "partitions",
    "segment_size",
    "backout_threshold",
    "backout_requeue_q",
}


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

    p = sub.add_parser("define", help="DEFINE QLOCAL: create a queue (its priority topics)")
    p.add_argument("qmgr")
    p.add_argument("queue")
    p.add_argument("--max-msg-length", dest="max_msg_length", type=int)
    p.add_argument("--max-depth", dest="max_depth", type=int)
    p.add_argument("--def-persistence", dest="def_persistence", type=int, choices=[0, 1])
    p.add_argument("--def-priority", dest="def_priority", type=int)
    p.add_argument(
        "--msg-delivery-sequence",
        dest="msg_delivery_sequence",
        type=int,
        choices=[0, 1],
        help="0 PRIORITY (default), 1 FIFO",
    )
    p.add_argument("--partitions", type=int, help="partitions per priority topic")
    p.add_argument("--segment-size", dest="segment_size", type=int)
    p.add_argument("--backout-threshold", dest="backout_threshold", type=int)
    p.add_argument("--backout-requeue-q", dest="backout_requeue_q")
    p.add_argument("--replace", action="store_true")
    p.set_defaults(func=_admin)
    p = sub.add_parser("delete", help="DELETE QLOCAL")
    p.add_argument("qmgr")
    p.add_argument("queue")
    p.add_argument("--purge", action="store_true", help="delete even if messages remain")
    p.set_defaults(func=_admin)
    p = sub.add_parser("status", help="DISPLAY QSTATUS / QLOCAL: depth, open counts, attributes")
    p.add_argument("qmgr")
    p.add_argument("queue")
    p.set_defaults(func=_admin)

    p = sub.add_parser(
        "demo",
        help="the main job on the embedded local stack: the spec's example and a generated "
        "workload through the Spark reassembly job",
    )
    p.set_defaults(func=_demo)

    from ops.bench.cli import add_parser as add_bench_parser
    from streaming.cli import add_parser as add_streaming_parsers

    add_bench_parser(sub)
    add_streaming_parsers(sub)  # mqk reassemble, mqk expire
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
