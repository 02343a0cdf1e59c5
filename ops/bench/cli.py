"""`mqk bench [--quick]`: entry point `bench` of the `mqk` CLI's group `mqk.commands`."""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path

from ops.cli import reporting_start_errors


def _names(text: str) -> list[str]:
    from ops.bench.suite import SECTIONS

    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in SECTIONS]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown section(s) {unknown}; choose from {', '.join(SECTIONS)}"
        )
    return names


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "bench",
        help="benchmarks: the MQI shim beside raw confluent-kafka; writes docs/benchmarks.md",
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="small counts: under 10 minutes")
    mode.add_argument("--tiny", action="store_true", help="a few seconds per section (CI)")
    p.add_argument("--only", type=_names, default=[], help="comma-separated sections to run")
    p.add_argument("--skip", type=_names, default=[], help="comma-separated sections to skip")
    p.add_argument("--profile", action="store_true", help="also profile MQPUT/MQGET")
    p.add_argument("--out", type=Path, help="where benchmarks.md and plots go (default: docs/)")
    p.set_defaults(func=reporting_start_errors(handle))
    return p


def _command(args: argparse.Namespace) -> str:
    """The run as a `mqk bench` command line, for docs/benchmarks.md."""
    words = ["mqk", "bench"]
    words += ["--quick"] if args.quick else ["--tiny"] if args.tiny else []
    words += [f"--only={','.join(args.only)}"] if args.only else []
    words += [f"--skip={','.join(args.skip)}"] if args.skip else []
    words += ["--profile"] if args.profile else []
    words += [f"--out={args.out}"] if args.out else []
    return shlex.join(words)


def handle(args: argparse.Namespace) -> int:
    from ops.bench import report, suite
    from ops.bench.settings import MODES

    cfg = MODES["quick" if args.quick else "tiny" if args.tiny else "full"]
    rows, _ = suite.run_suite(
        cfg,
        only=args.only,
        skip=args.skip,
        profile=args.profile,
        out=args.out or suite.DOCS,
        command=_command(args),
    )
    print()
    print(report.console_table(rows))
    failed = [r for r in rows if r.note.startswith("failed")]
    return 1 if failed else 0
