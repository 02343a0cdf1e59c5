"""`mqk reassemble` that SIGKILLs itself right after committing one micro-batch.

    python -m tests.spark.crashing_job --kill-after-commit N QM Q [job options]

The crash test (test_exactly_once.py) runs it in a subprocess: the process dies in the
worst place, after the batch's Kafka transaction and before Redis and Spark's own commit
log, through the sink's public `after_commit` hook. The product has no kill switch.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys

from streaming.job import add_arguments, run_from_args


def kill_after(batch: int):
    def after_commit(batch_id: int) -> None:
        if batch_id == batch:
            os.kill(os.getpid(), signal.SIGKILL)

    return after_commit


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tests.spark.crashing_job")
    parser.add_argument("--kill-after-commit", type=int, required=True, metavar="BATCH")
    add_arguments(parser)
    args = parser.parse_args(argv)
    return run_from_args(args, after_commit=kill_after(args.kill_after_commit))


if __name__ == "__main__":
    sys.exit(main())
