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
        from ops.certs import CertError
        from ops.jars import JarResolutionError
        from ops.kafka import KafkaStartError
        from ops.redis import RedisStartError

        try:
            return func(args)
        except (KafkaStartError, RedisStartError, JarResolutionError, CertError) as exc:
            print(f"mqk: {exc}", file=sys.stderr)
            return 2

    return run


def _stack(args: argparse.Namespace) -> int:
    from ops import stack

    if args.secure:
        return _secure(args)
    name = args.cluster
    if name is not None and args.brokers != 1:
        print("mqk: --cluster starts a single node; --brokers is for the stack's own Kafka",
              file=sys.stderr)  # fmt: skip
        return 2
    if name is not None and args.action == "up":
        stack.up_cluster(name)
    elif name is not None and args.action == "down":
        stack.down_cluster(name, wipe=args.wipe)
    elif args.action == "up":
        stack.up(brokers=args.brokers)
    elif args.action == "down":
        stack.down(wipe=args.wipe)
    elif args.action == "status":
        running = True
        for server, st in stack.status().items():
            if name is not None and server != f"kafka:{name}":
                continue
            state = "running" if st["running"] else "stopped"
            running &= st["running"]
            print(f"{server:6} {state:8} pid={st['pid'] or '-'} {st['endpoint'] or ''}")
        return 0 if running else 3
    elif args.action == "env":
        lines = stack.env_lines(name)
        if not lines:
            what = f"cluster {name}" if name is not None else "the local stack"
            print(f"# {what} is not running: mqk stack up" + (f" --cluster {name}" if name else ""),
                  file=sys.stderr)  # fmt: skip
            return 3
        from adapter.redact import redact

        print(redact("\n".join(lines)))  # never a password (adapter/redact.py)
    return 0


def _secure(args: argparse.Namespace) -> int:
    """`mqk stack up|down|status|env --secure`: ops/secure.py's stack."""
    from adapter.redact import redact
    from ops import secure

    if args.cluster is not None or args.brokers != 1:
        print("mqk: --secure is one node of its own; no --cluster / --brokers", file=sys.stderr)
        return 2
    if args.action == "up":
        st = secure.up(redis_client_certs=args.redis_client_certs)
        redis_tls = "mTLS (client certificate required)" if st.redis_client_certs else "TLS"
        print(f"secure stack up: SASL_SSL {st.sasl_bootstrap}, mTLS {st.mtls_bootstrap}, "
              f"Redis {redis_tls} 127.0.0.1:{st.redis_port}; files in {st.folder}")  # fmt: skip
    elif args.action == "down":
        secure.down(wipe=args.wipe)
    elif args.action == "status":
        st = secure.load()
        alive = st is not None and st.alive()
        print(f"secure {'running' if alive else 'stopped'}" + (f" {st.folder}" if st else ""))
        return 0 if alive else 3
    else:
        lines = secure.env_lines(kind=args.auth, harness=args.harness)
        if not lines:
            print("# the secure stack is not running: mqk stack up --secure", file=sys.stderr)
            return 3
        print(redact("\n".join(lines)))
    return 0


def _cluster_name(text: str) -> str:
    from ops.named import check_name

    try:
        return check_name(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def add_stack_parser(subparsers) -> None:
    """`mqk stack`: entry point `stack` of the group `mqk.commands`."""
    p = subparsers.add_parser(
        "stack",
        help="the native local stack: Kafka (KRaft) + Redis",
        description="The native local stack: Kafka (KRaft) + Redis. With --cluster NAME, "
        "up/down/status/env act on one more single-node Kafka cluster called NAME "
        "(127.0.0.1:31092 for the first, its data under run/clusters/NAME), for a second "
        "queue manager on another Kafka cluster; it shares the stack's Redis (every key "
        "carries its queue manager's name). A plain `down` stops it too.",
    )
    p.add_argument("action", choices=["up", "down", "status", "env"])
    p.add_argument("--wipe", action="store_true", help="with down: delete broker and Redis data")
    p.add_argument(
        "--brokers",
        type=int,
        default=1,
        help="with up: Kafka as a replicated cluster of this many KRaft nodes "
        "(3: RF 3, min.insync.replicas 2)",
    )
    p.add_argument(
        "--cluster",
        metavar="NAME",
        type=_cluster_name,
        help="act on the extra single-node Kafka cluster NAME (a second cluster for "
        "channels between clusters) instead of the stack",
    )
    p.add_argument(
        "--secure",
        action="store_true",
        help="act on the secure stack instead: Kafka with SASL_SSL (SCRAM-SHA-512) and "
        "mTLS listeners and ACLs, Redis on TLS with an ACL user, certificates made for "
        "the run (MQK_SECURE_PORT, default 19300..19303; MQK_SECURE_DIR)",
    )
    p.add_argument(
        "--auth",
        choices=["sasl", "mtls"],
        default="sasl",
        help="with env --secure: the Kafka listener and credentials to export",
    )
    p.add_argument(
        "--redis-client-certs",
        action="store_true",
        help="with up --secure: Redis requires a client certificate (tls-auth-clients yes); "
        "the exported URL carries it (ssl_certfile / ssl_keyfile)",
    )
    p.add_argument(
        "--harness",
        action="store_true",
        help="with env --secure: also export the test harness's administrator settings "
        "(MQK_TEST_ADMIN_KAFKA_CONFIG, MQK_TEST_ADMIN_REDIS_URL_FILE: files, never secrets)",
    )
    p.set_defaults(func=reporting_start_errors(_stack))
