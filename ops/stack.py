"""`mqk stack up|down|status|env`: the native local stack (Kafka + Redis), idempotent.

State (pids, endpoints) lives in <MQK_HOME>/run/stack.json. `down` stops only the pids
recorded there, and only if their command line is still ours.

`up --brokers N` (N > 1) makes the stack's Kafka a replicated cluster of N nodes
(ops/cluster.py: RF N, min.insync.replicas N-1, on the cluster ports 29092...) instead of
the single node; `env` then names the cluster's bootstrap servers.

`up --cluster NAME` starts one more, separate single-node cluster called NAME (ops/named.py:
ports 31092/31093 for the first, its files under run/clusters/NAME), for a second queue
manager on another Kafka cluster; it shares the stack's Redis. `env --cluster NAME`
names its bootstrap, `down --cluster NAME` stops it alone, and a plain `down` stops it
with the rest.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from adapter import config
from ops import cluster, kafka, named, procs, redis


@dataclass
class StackState:
    kafka_pid: int | None = None
    redis_pid: int | None = None
    kafka_bootstrap: str = ""
    redis_url: str = ""
    external: dict[str, str] = field(default_factory=dict)
    cluster_pids: list[int] = field(default_factory=list)  # up --brokers N: node i's pid
    cluster_bootstrap: str = ""
    clusters: dict[str, dict] = field(default_factory=dict)  # up --cluster NAME: named.Named


def run_dir() -> Path:
    return config.mqk_home() / "run"


def _state_file() -> Path:
    return run_dir() / "stack.json"


def load() -> StackState:
    """The recorded state; fields this version does not know (written by another
    version of mqk sharing the same MQK_HOME) are left out rather than losing the pids."""
    try:
        raw = json.loads(_state_file().read_text())
        known = {f.name for f in fields(StackState)}
        return StackState(**{k: v for k, v in raw.items() if k in known})
    except (OSError, ValueError, TypeError, AttributeError):
        return StackState()


def _save(state: StackState) -> None:
    run_dir().mkdir(parents=True, exist_ok=True)
    record = asdict(state)
    if not state.cluster_pids:  # unused: left out, so an older mqk still reads the file
        del record["cluster_pids"], record["cluster_bootstrap"]
    if not state.clusters:  # likewise
        del record["clusters"]
    _state_file().write_text(json.dumps(record, indent=2))


def _cluster_alive(state: StackState) -> bool:
    return bool(state.cluster_pids) and all(
        procs.alive(pid, kafka.MARKER) for pid in state.cluster_pids
    )


def _up_cluster(state: StackState, brokers: int, log) -> None:
    if _cluster_alive(state) and len(state.cluster_pids) == brokers:
        log(f"kafka: {brokers}-node cluster already running at {state.cluster_bootstrap}")
        return
    cluster.stop(state.cluster_pids)  # a partial or differently sized one
    state.cluster_pids = cluster.start(run_dir() / f"cluster{brokers}", brokers)
    state.cluster_bootstrap = cluster.bootstrap(brokers)
    _save(state)
    log(
        f"kafka: {brokers}-node cluster started (pids {state.cluster_pids}) at "
        f"{state.cluster_bootstrap}: RF {brokers}, min.insync.replicas {max(1, brokers - 1)}"
    )


def _named(state: StackState) -> dict[str, named.Named]:
    return {name: named.Named.from_json(raw) for name, raw in state.clusters.items()}


def up_cluster(name: str, log=print) -> str:
    """Start named cluster `name` unless it runs (the stack's own servers are left
    alone); its bootstrap servers."""
    state = load()
    recorded = _named(state)
    node = recorded.get(named.check_name(name))
    if node is not None and node.alive():
        log(f"kafka {name}: already running (pid {node.pid}) at {node.bootstrap}")
        return node.bootstrap
    slot = node.slot if node is not None else named.free_slot(recorded)
    node = named.start(run_dir(), name, slot)
    state = load()  # re-read: the start took seconds
    state.clusters[name] = node.to_json()
    _save(state)
    log(f"kafka {name}: started (pid {node.pid}) at {node.bootstrap}")
    return node.bootstrap


def down_cluster(name: str, wipe: bool = False, log=print) -> None:
    """Stop named cluster `name` (nothing else); `wipe` deletes its data."""
    state = load()
    node = _named(state).get(named.check_name(name))
    if node is not None and named.stop(node):
        log(f"kafka {name}: stopped (pid {node.pid})")
    else:
        log(f"kafka {name}: not running")
    state = load()
    state.clusters.pop(name, None)
    _save(state)
    if wipe:
        shutil.rmtree(named.cluster_dir(run_dir(), name), ignore_errors=True)
        log(f"wiped cluster {name}'s data")


def cluster_bootstrap(name: str) -> str | None:
    """The bootstrap servers of named cluster `name` if it runs."""
    node = _named(load()).get(name)
    return node.bootstrap if node is not None and node.alive() else None


def up(log=print, brokers: int = 1) -> StackState:
    """Start what is not running; leave running servers alone (so `up` twice is one stack).
    `brokers` > 1: the stack's Kafka is a replicated cluster of that many nodes."""
    state = load()
    local = config.local_endpoints()
    ext_kafka = os.environ.get(config.KAFKA_BOOTSTRAP_ENV)
    ext_redis = os.environ.get(config.REDIS_URL_ENV)
    state.external = {}

    if ext_redis:
        state.external["redis"] = ext_redis
        log(f"redis: using {ext_redis} from {config.REDIS_URL_ENV}")
    elif procs.alive(state.redis_pid, redis.MARKER):
        log(f"redis: already running (pid {state.redis_pid}) at {state.redis_url}")
    else:
        state.redis_pid = redis.start(run_dir(), config.DEFAULT_REDIS_PORT, config.redis_socket())
        state.redis_url = local.redis_url
        _save(state)
        redis.wait_ready(state.redis_url, state.redis_pid, run_dir() / "redis.log")
        log(f"redis: started (pid {state.redis_pid}) at {state.redis_url}")

    if ext_kafka:
        state.external["kafka"] = ext_kafka
        log(f"kafka: using {ext_kafka} from {config.KAFKA_BOOTSTRAP_ENV}")
    elif brokers > 1:
        _up_cluster(state, brokers, log)
    elif procs.alive(state.kafka_pid, kafka.MARKER):
        log(f"kafka: already running (pid {state.kafka_pid}) at {state.kafka_bootstrap}")
    else:
        state.kafka_pid = kafka.start(
            run_dir(), config.DEFAULT_KAFKA_PORT, config.DEFAULT_CONTROLLER_PORT
        )
        state.kafka_bootstrap = local.kafka_bootstrap
        _save(state)
        try:
            kafka.wait_ready(state.kafka_bootstrap, state.kafka_pid, run_dir() / "kafka.log")
        except kafka.KafkaStartError:
            procs.stop(state.kafka_pid, kafka.MARKER, timeout=10)
            raise
        log(f"kafka: started (pid {state.kafka_pid}) at {state.kafka_bootstrap}")
    _save(state)
    return state


def down(wipe: bool = False, log=print, only: Iterable[str] = ("kafka", "redis")) -> None:
    """Stop the recorded servers (`only`: some of "kafka", "redis"); `wipe` deletes data."""
    only = set(only)
    state = load()
    for name, pid, marker in (
        ("kafka", state.kafka_pid, kafka.MARKER),
        ("redis", state.redis_pid, redis.MARKER),
    ):
        if name not in only:
            continue
        if procs.alive(pid, marker):
            procs.stop(pid, marker)
            log(f"{name}: stopped (pid {pid})")
        else:
            log(f"{name}: not running")
        setattr(state, f"{name}_pid", None)
    if "kafka" in only and state.cluster_pids:
        cluster.stop(state.cluster_pids)
        log(f"kafka: cluster stopped (pids {state.cluster_pids})")
        state.cluster_pids, state.cluster_bootstrap = [], ""
    if "kafka" in only:
        for name, node in _named(state).items():
            if named.stop(node):
                log(f"kafka {name}: stopped (pid {node.pid})")
        state.clusters = {}
    _save(state)
    if wipe:
        for sub in (
            "kafka-data",
            "redis-data",
            "server.properties",
            "cluster2",
            "cluster3",
            "cluster4",
            "cluster5",
            "clusters",
        ):
            target = run_dir() / sub
            if target.is_dir():
                shutil.rmtree(target)
            elif target.exists():
                target.unlink()
        log(f"wiped broker and redis data under {run_dir()}")


def status() -> dict[str, dict]:
    state = load()
    out: dict[str, dict] = {}
    for name, pid, marker, endpoint in (
        ("kafka", state.kafka_pid, kafka.MARKER, state.kafka_bootstrap),
        ("redis", state.redis_pid, redis.MARKER, state.redis_url),
    ):
        out[name] = {"pid": pid, "running": procs.alive(pid, marker), "endpoint": endpoint}
    if state.cluster_pids:
        out["kafka"] = {
            "pid": ",".join(map(str, state.cluster_pids)),
            "running": _cluster_alive(state),
            "endpoint": state.cluster_bootstrap,
        }
    for name, node in _named(state).items():
        out[f"kafka:{name}"] = {
            "pid": node.pid,
            "running": node.alive(),
            "endpoint": node.bootstrap,
        }
    return out


def env_lines(cluster_name: str | None = None) -> list[str]:
    """Exports for the running stack, for `eval "$(mqk stack env)"`; with `cluster_name`,
    the Kafka bootstrap of that named cluster instead (nothing if it is not running)."""
    state = load()
    lines = []
    if cluster_name is not None:
        bootstrap = cluster_bootstrap(cluster_name)
        return [f"export {config.KAFKA_BOOTSTRAP_ENV}={bootstrap}"] if bootstrap else []
    if _cluster_alive(state):
        lines.append(f"export {config.KAFKA_BOOTSTRAP_ENV}={state.cluster_bootstrap}")
    elif procs.alive(state.kafka_pid, kafka.MARKER):
        lines.append(f"export {config.KAFKA_BOOTSTRAP_ENV}={state.kafka_bootstrap}")
    if procs.alive(state.redis_pid, redis.MARKER):
        lines.append(f"export {config.REDIS_URL_ENV}={state.redis_url}")
    return lines
