"""The machine and software a run measured on, for docs/benchmarks.md."""

from __future__ import annotations

import os
import platform
import subprocess
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _first(path: str, *keys: str) -> str:
    try:
        for line in Path(path).read_text().splitlines():
            name, _, value = line.partition(":")
            if name.strip() in keys:
                return value.strip()
    except OSError:
        pass
    return "unknown"


def _run(cmd: list[str]) -> str:
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=30, cwd=REPO)
        return (proc.stdout + proc.stderr).strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


def kafka_version() -> str:
    from ops.jars import kafka_jars_dir

    try:
        jars = sorted(p.name for p in kafka_jars_dir().glob("kafka_2.13-*.jar"))
    except Exception:  # noqa: BLE001 - a description, never a failure
        return "unknown"
    return jars[0].removeprefix("kafka_2.13-").removesuffix(".jar") if jars else "unknown"


def redis_version(url: str) -> str:
    import redis

    try:
        return redis.Redis.from_url(url, socket_timeout=5).info("server")["redis_version"]
    except Exception:  # noqa: BLE001
        return "unknown"


def _dist_version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "unknown"


def describe(kafka_bootstrap: str, redis_url: str) -> dict[str, str]:
    import confluent_kafka

    mem_kib = _first("/proc/meminfo", "MemTotal").split()[0]
    java = _run(["java", "-version"]).splitlines()
    try:
        import pyspark

        spark = pyspark.__version__
    except ImportError:
        spark = "not installed"
    commit = _run(["git", "rev-parse", "--short", "HEAD"])
    dirty = " (with uncommitted changes)" if _run(["git", "status", "--porcelain"]) else ""
    return {
        "CPUs (nproc)": str(len(os.sched_getaffinity(0))),
        "CPU model": _first("/proc/cpuinfo", "model name", "Hardware", "cpu model"),
        "memory": f"{int(mem_kib) / 1024 / 1024:.1f} GiB" if mem_kib.isdigit() else "unknown",
        "OS": platform.platform(),
        "Kafka broker": f"{kafka_version()} (KRaft, one node) at {kafka_bootstrap}",
        "Redis": f"{redis_version(redis_url)} at {redis_url}",
        "Python": platform.python_version(),
        "confluent-kafka": f"{_dist_version('confluent-kafka')} "
        f"(librdkafka {confluent_kafka.libversion()[0]})",
        "Java": java[0] if java else "not found",
        "pyspark": spark,
        "mqk commit": f"{commit}{dirty}" if commit else "unknown",
    }


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def _cpu_times() -> tuple[int, int]:
    """(idle, total) jiffies since boot, from /proc/stat."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return fields[3] + fields[4], sum(fields)  # idle + iowait


def settle(max_wait_s: float, idle_share: float = 0.8, step_s: float = 1.0) -> tuple[float, float]:
    """Wait (at most max_wait_s) until the CPUs were idle_share idle over one step, so a
    section does not measure the broker's leftovers from the one before (log cleanup,
    topic deletion, GC). Returns (seconds waited, idle share of the last step)."""
    start = time.monotonic()
    share = 0.0
    while True:
        idle0, total0 = _cpu_times()
        time.sleep(step_s)
        idle1, total1 = _cpu_times()
        share = (idle1 - idle0) / max(1, total1 - total0)
        waited = time.monotonic() - start
        if share >= idle_share or waited >= max_wait_s:
            return waited, share
