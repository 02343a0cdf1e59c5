"""Runs the benchmark sections in order on the local (or configured) stack."""

from __future__ import annotations

import datetime as dt
import os
import time
import traceback
from collections.abc import Callable, Iterable
from pathlib import Path

from adapter import config
from ops.bench import (
    bigmsg,
    channel,
    costs,
    gets,
    javatools,
    latency,
    logical,
    machine,
    pairs,
    props,
    pubsub,
    puts,
    spark,
    uow,
)
from ops.bench.model import Row
from ops.bench.report import RunInfo
from ops.bench.settings import BenchConfig

DOCS = Path(__file__).resolve().parents[2] / "docs"

# name -> (section label, runner); the order is the (1)..(7).
SECTIONS: dict[str, tuple[str, Callable[..., list[Row]]]] = {
    "put": ("1 put", puts.run),
    "get": ("2 get", gets.run),
    "logical": ("3 logical", logical.run),
    "big": ("3 big", bigmsg.run),
    "uow": ("4 uow", uow.run),
    "latency": ("5 latency", latency.run),
    "spark": ("6 spark", spark.run),
    "java": ("7 ceiling", javatools.run),
    "props": ("8 properties", props.run),
    "channel": (channel.SECTION, channel.run),  # two Kafka clusters (issue 17)
    "pubsub": (pubsub.SECTION, pubsub.run),  # issue 16: fan-out against raw Kafka's
    "pairs": ("11 pairs", pairs.run),
    "costs": (costs.SECTION, costs.run),  # per-call floors behind the missed 1 KiB ratios
}


def ensure_stack(log=print) -> config.Endpoints:
    """Start or reuse the local stack (or use MQK_KAFKA_BOOTSTRAP / MQK_REDIS_URL), and
    export the endpoints so child processes and every connection use the same servers."""
    from ops import stack

    state = stack.up(log=log)
    eps = config.endpoints(state.kafka_bootstrap or None, state.redis_url or None)
    os.environ[config.KAFKA_BOOTSTRAP_ENV] = eps.kafka_bootstrap
    os.environ[config.REDIS_URL_ENV] = eps.redis_url
    return eps


def run_suite(
    cfg: BenchConfig,
    *,
    only: Iterable[str] = (),
    skip: Iterable[str] = (),
    profile: bool = False,
    out: Path | None = DOCS,
    command: str = "mqk bench",
    log=print,
) -> tuple[list[Row], RunInfo]:
    """Every selected section; a section that fails becomes a row saying so."""
    from ops.bench import profiling, report

    eps = ensure_stack(log=lambda msg: log(f"  {msg}"))
    only, skip = set(only), set(skip)
    info = RunInfo(
        cfg=cfg,
        command=command,
        machine=machine.describe(eps.kafka_bootstrap, eps.redis_url),
        started=dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        load_start=machine.load_average(),
    )
    started = time.monotonic()
    rows: list[Row] = []
    for name, (section, runner) in SECTIONS.items():
        if only and name not in only:
            continue
        log(f"== ({section}) {name}")
        if name not in skip:
            waited, idle = machine.settle(cfg.settle_s)
            log(f"   (settled {waited:.0f} s: CPUs {idle:.0%} idle)")
        t0 = time.monotonic()
        try:
            if name == "spark":
                rows += runner(cfg, eps.kafka_bootstrap, log, skip=name in skip)
            elif name not in skip:
                rows += runner(cfg, eps.kafka_bootstrap, log)
        except Exception as exc:  # noqa: BLE001 - report it and go on with the others
            log(traceback.format_exc())
            rows.append(
                Row(f"{name} benchmark", section, "", None, None, "", note=f"failed: {exc!r}")
            )
        log(f"   ({name}: {time.monotonic() - t0:.1f} s)")
    if profile:
        log("== profiles")
        info.profiles = profiling.run(cfg, (out or DOCS) / "profiles", log)
    info.seconds = time.monotonic() - started
    info.load_end = machine.load_average()
    if out is not None:
        path = report.write(rows, info, out)
        log(f"wrote {path}")
    return rows, info
