"""`python -m ops.bench [--quick]`: the same as `mqk bench`, before or without the CLI."""

from __future__ import annotations

import argparse
import sys

from ops.bench.cli import add_parser


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ops.bench")
    sub = parser.add_subparsers(dest="command", required=True)
    add_parser(sub)
    args = parser.parse_args(["bench", *(sys.argv[1:] if argv is None else argv)])
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
